"""Tests for mipcore.plots.bounds_figs: the η(ε) chart and the ROC chart of the η and ε page.

The tables the charts return are exactly what the figures draw; the boundaries are drawn with
their exact kinks; the figures are plain ``go.Figure`` objects in the app's style
(:mod:`mipcore.plots.style`), without NaN.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from mipcore.bounds import dp_region_kink, eta_from_epsilon
from mipcore.plots import bounds_figs, style


def assert_no_nan(fig: go.Figure) -> None:
    for trace in fig.data:
        for attr in ("x", "y", "customdata"):
            values = getattr(trace, attr, None)
            if values is not None:
                assert not np.isnan(np.asarray(values, dtype=float)).any(), (trace.name, attr)


def test_eta_chart_table_is_what_the_figure_draws():
    fig, table = bounds_figs.eta_epsilon_chart(0.37, 0.013)
    exact = table[table.curve == "exact (Theorem 4)"]
    deltas = list(dict.fromkeys(exact.delta))
    assert deltas == [0.0, 1e-5, 1e-3, 1e-2, 0.1, 0.013]  # the reference deltas + the chosen one
    for trace, d in zip(fig.data[: len(deltas)], deltas, strict=True):
        rows = exact[exact.delta == d]
        np.testing.assert_array_equal(trace.x, rows.epsilon)
        np.testing.assert_array_equal(trace.y, rows.eta)
        np.testing.assert_allclose(trace.customdata, 100 * rows.attacker_accuracy)
    assert 0.37 in set(fig.data[0].x)  # the grid holds the chosen epsilon: the curve meets the dot
    names = [t.name for t in fig.data]
    assert names[5] == "δ = 0.013 (chosen)" and fig.data[5].line.width == 4.0
    approx = table[table.curve == "small-epsilon approximation"]
    (ap,) = [t for t in fig.data if t.name == bounds_figs.APPROX_NAME]
    np.testing.assert_array_equal(ap.x, approx.epsilon)
    np.testing.assert_array_equal(ap.y, approx.eta)
    (dot,) = [t for t in fig.data if t.name == "your (ε, δ)"]
    assert dot.x == (0.37,) and dot.y[0] == pytest.approx(float(eta_from_epsilon(0.37, 0.013)))


def test_eta_chart_marks_a_reference_delta_as_chosen():
    fig, _ = bounds_figs.eta_epsilon_chart(1.0, 10.0**-5)  # the log slider's 1e-5
    chosen = [t.name for t in fig.data if (t.name or "").endswith("(chosen)")]
    assert chosen == ["δ = 10<sup>−5</sup> (chosen)"]


def test_roc_chart_table_is_what_the_figure_draws_with_exact_kinks():
    eps, delta = 1.3, 0.02
    eta = float(eta_from_epsilon(eps, delta))
    f_star = (1 - delta) / (1 + math.exp(eps))
    assert f_star == pytest.approx(float(dp_region_kink(eps, delta)), rel=1e-15)
    for log_axes in (False, True):
        fig, table = bounds_figs.roc_chart(eps, delta, log_axes=log_axes, extra_fpr=(1e-3,))
        by_name = {t.name: t for t in fig.data}
        for column, name in [
            ("tpr_max_mip_2eta", "η-MIP: TPR ≤ min(1, FPR + 2η)"),
            ("tpr_max_dp", "(ε, δ)-DP (Kairouz et al.)"),
            ("tpr_max_theorem8_as_printed", "Theorem 8 as printed: FPR + η"),
            ("random_guessing", "random guessing (TPR = FPR)"),
        ]:
            np.testing.assert_array_equal(by_name[name].x, table.fpr)
            np.testing.assert_array_equal(by_name[name].y, table[column])
        fpr = set(table.fpr)
        for kink in (float(dp_region_kink(eps, delta)), 1 - delta, 1 - 2 * eta, 1 - eta, 1e-3):
            assert kink in fpr
        touch = by_name["where they touch: TPR − FPR = 2η"]
        assert touch.x[0] == pytest.approx(f_star, rel=1e-15)
        assert touch.y[0] - touch.x[0] == pytest.approx(2 * eta)
        assert (fig.layout.xaxis.type == "log") is log_axes
        assert (by_name["(ε, δ)-DP (Kairouz et al.)"].fill == "tozeroy") is not log_axes
        assert table.tpr_max_mip_2eta.to_numpy() == pytest.approx(
            np.minimum(1, table.fpr + 2 * eta)
        )


def test_styles_follow_the_app_style():
    fig, _ = bounds_figs.roc_chart(1.0, 1e-5, log_axes=True)
    by_name = {t.name: t for t in fig.data}
    mip, dp = by_name[bounds_figs.MIP_NAME], by_name[bounds_figs.DP_NAME]
    printed = by_name[bounds_figs.PRINTED_NAME]
    assert (mip.line.color, mip.line.dash, mip.marker.symbol) == (
        style.MIP.colour,
        "solid",
        "circle",
    )
    assert (dp.line.color, dp.line.dash, dp.marker.symbol) == (style.DP.colour, "dash", "square")
    assert (printed.line.color, printed.line.dash) == (style.PRINTED.colour, "dashdot")
    for axis in (fig.layout.xaxis, fig.layout.yaxis):  # powers of ten only, full-size labels
        assert axis.type == "log" and axis.dtick == 1 and axis.tickfont.size == 14
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # below the plot
    eta_fig, _ = bounds_figs.eta_epsilon_chart(1.0, 0.0)
    assert eta_fig.layout.legend.y < 0 and eta_fig.layout.yaxis2.side == "right"
    assert eta_fig.layout.xaxis.tickfont.size == 14 and eta_fig.layout.yaxis2.tickfont.size == 14
    assert len(eta_fig.layout.title.text) <= 55


def test_builders_return_plain_new_figures_without_nan():
    for build in (
        lambda: bounds_figs.eta_epsilon_chart(0.8, 1e-5),
        lambda: bounds_figs.roc_chart(0.8, 1e-5, log_axes=True, title="x"),
        lambda: bounds_figs.roc_chart(0.0, 0.5),
        lambda: bounds_figs.roc_chart(10.0, 0.0),
    ):
        (fig, table), (again, _) = build(), build()
        assert type(fig) is go.Figure  # plain: appkit.cached freezes what it keeps
        assert fig is not again and fig.to_dict() == again.to_dict()  # no memo, same result
        assert_no_nan(fig)
        assert not table.isna().to_numpy().any()


def test_the_half_line_is_what_add_hline_draws():
    """The η = 1/2 line and its label are exactly what add_hline(...) would draw."""
    eps = np.linspace(0, 10, 11)
    fig = bounds_figs.eta_epsilon_figure(
        eps, [("δ = 0", eta_from_epsilon(eps))], point=(1.0, float(eta_from_epsilon(1.0)))
    )
    ref = go.Figure().add_hline(
        y=0.5,
        line_dash="dot",
        line_color=style.GREY,
        annotation_text="η = 1/2: no privacy",
        annotation_position="bottom right",
    )
    assert fig.layout.shapes == ref.layout.shapes
    assert fig.layout.annotations == ref.layout.annotations
    assert fig.layout.yaxis2.overlaying == "y" and fig.data[-1].yaxis == "y2"


@pytest.mark.parametrize(
    "delta,label",
    [(0.0, "δ = 0"), (1e-5, "δ = 10<sup>−5</sup>"), (2.5e-6, "δ = 2.5·10<sup>−6</sup>"),
     (0.013, "δ = 0.013")],
)  # fmt: skip
def test_delta_label(delta, label):
    assert bounds_figs.delta_label(delta) == label


def test_style_trace_carries_colour_and_a_second_cue():
    from mipcore.plots import style

    both = style.trace(style.MIP, [1, 2], [3, 4], "MIP", hover="%{y}")
    assert both["line"]["color"] == both["marker"]["color"] == style.MIP["colour"]
    assert both["line"]["dash"] == style.MIP["dash"]
    assert both["marker"]["symbol"] == style.MIP["symbol"]
    assert both["hovertemplate"] == "%{y}"
    lines = style.trace(style.DP, [1], [2], "DP", mode="lines")
    assert "marker" not in lines and lines["line"]["dash"] == style.DP["dash"] != "solid"
    dots = style.trace(style.EXACT, [1], [2], "exact", mode="markers", size=13)
    assert "line" not in dots and dots["marker"]["size"] == 13
    assert "hovertemplate" not in dots
