"""Chart builders, usable without Streamlit.

Every chart of the app is a Vega-Lite specification (``*_vega`` modules, built on
:mod:`mipcore.plots.vega`, which says why Vega-Lite): in a browser, Streamlit redraws a chart
whose specification is unchanged in place from its new tables. Charts are written in Altair
by concept, not page: :mod:`mipcore.plots.curves` (curves against a quantity, with bands,
reference rules and labels), :mod:`mipcore.plots.roc` (the ROC region of a guarantee),
:mod:`mipcore.plots.distributions` (histograms and boxes over bins, intervals, bands,
reference rules) and :mod:`mipcore.plots.icons` (the icon array: people one icon or one cell
each). The ``*_vega`` modules (one per page's charts: Figure 1 and 2, looseness, reference
data, the η(ε) and ROC charts, the risk calculator's routes, the audit, Proposition 11, MACE,
the game, the wrap page) only build their tables and say how to draw them; the home page's
bars (:mod:`~mipcore.plots.home_vega`) are the one dictionary, so that the first page every
visitor opens does not import Altair. Builders take results (floats, arrays,
DataFrames, theory's results and those of :mod:`mipcore.experiments`), never widgets, and return a
:class:`~mipcore.plots.vega.VegaLiteChart` with the table it draws (the chart's CSV). A
picture that leaves the app (PNG, SVG) is drawn from the same specification on the server by
``vl-convert`` (:func:`mipcore.plots.vega.chart_png`, :func:`~mipcore.plots.vega.chart_svg`).
Every builder starts from :mod:`mipcore.plots.style`, the one chart style of the app.
"""
