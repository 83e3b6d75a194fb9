"""Chart builders, usable without Streamlit.

Every chart of the app is a Vega-Lite specification (``*_vega`` modules, built on
:mod:`mipcore.plots.vega`, which says why Vega-Lite): in a browser, Streamlit redraws a chart
whose specification is unchanged in place from its new tables. Charts are being rewritten in
Altair by concept, not page: :mod:`mipcore.plots.curves` (curves against a quantity, with
bands, reference rules and labels) draws the charts of :mod:`~mipcore.plots.figure1_vega`,
:mod:`~mipcore.plots.looseness_vega`, :mod:`~mipcore.plots.covariance_vega` (Figure 2),
:mod:`~mipcore.plots.reference_vega` and the η(ε) chart of :mod:`~mipcore.plots.bounds_vega`,
:mod:`mipcore.plots.roc` (the ROC-region chart) the ROC charts of
:mod:`~mipcore.plots.bounds_vega`, :mod:`~mipcore.plots.guarantee_vega` and
:mod:`~mipcore.plots.audit_vega`, and :mod:`mipcore.plots.distributions` (histograms and
boxes over bins, intervals, bands, reference rules) with curves the charts of
:mod:`~mipcore.plots.prop11_vega` and :mod:`~mipcore.plots.mace_vega`; their modules only
build their tables and say how to draw them. Builders take results (floats, arrays,
DataFrames, the typed results of :mod:`mipcore.lessons`), never widgets, and return a
:class:`~mipcore.plots.vega.VegaLiteChart` with the table it draws (the chart's CSV). A
picture that leaves the app (PNG, SVG) is drawn from the same specification on the server by
``vl-convert`` (:func:`mipcore.plots.vega.chart_png`, :func:`~mipcore.plots.vega.chart_svg`).
Every builder starts from :mod:`mipcore.plots.style`, the one chart style of the app.
"""
