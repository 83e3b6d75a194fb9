"""Plotly figure builders used by the pages (no Streamlit), so every figure can be made headless.

* :mod:`mipcore.plots.bounds_figs` -- Theorem 4's eta(epsilon) curves and the ROC regions (Theorem 8, DP).
* :mod:`mipcore.plots.figure1_figs` -- Figure 1: noise scale and DP/MIP ratio against eta.
* :mod:`mipcore.plots.prop11_figs` -- Proposition 11: Delta/sigma against n beside 2^(n/3), and the
  distribution of the output over the halves.

Builders take results (floats, arrays, DataFrames), never widgets.
"""
