"""Chart builders, one module per page, usable without Streamlit.

The app's charts are Vega-Lite specifications (``*_vega`` modules, built on
:mod:`mipcore.plots.vega`): in a browser, Streamlit redraws a Vega-Lite chart whose
specification is unchanged in place from its new tables, where a changed Plotly figure is drawn
anew, and a page without Plotly does not load its 4.7 MB bundle. Builders take results (floats,
arrays, DataFrames, the typed results of :mod:`mipcore.lessons`), never widgets, and return a
:class:`~mipcore.plots.vega.VegaLiteChart` with the table it draws (the chart's CSV). Plotly
figures remain where a picture leaves the app (:mod:`mipcore.plots.risk_figs`: the PNG and HTML
exports).
Every builder starts from :mod:`mipcore.plots.style`, the one chart style of the app.
"""
