"""Plotly figure builders for MIP Explorer.

Each builder takes plain numbers and NumPy arrays (the results of ``mipcore``
calls) and returns a ``plotly.graph_objects.Figure``; nothing here imports
Streamlit, so the same figures can be produced headless (notebooks, reports).

* :mod:`mipcore.plots.bounds_figs` -- Theorem 4 (eta against epsilon) and the
  ROC regions of Theorem 8 and of (epsilon, delta)-DP.
"""
