"""Plotly figure builders, one module per page, usable without Streamlit.

Builders take results (floats, arrays, DataFrames, the typed results of
:mod:`mipcore.lessons`), never widgets, and return plain ``plotly.graph_objects.Figure``
objects (often with the table they draw). Every builder starts from :mod:`mipcore.plots.style`,
the one chart style of the app. Freezing a figure for sharing between sessions is the app's
business (``appkit.cached``), not the builders'.
"""
