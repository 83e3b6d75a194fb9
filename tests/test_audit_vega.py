"""The audit page's ROC chart drawn by Vega-Lite (mipcore.plots.audit_vega): a valid
specification, datasets that draw the table's numbers, a specification the η and ε sliders do
not change, and MIP told from DP by more than colour."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.bounds import tpr_bound_dp, tpr_bound_mip
from mipcore.canary_audit import AuditAttacker
from mipcore.experiments import canary_game as audit
from mipcore.guarantees import tpr_bound_gdp
from mipcore.plots import audit_vega as av
from mipcore.plots import style
from mipcore.plots.vega import DASH

SETTINGS = [
    ("mean", "laplace", "lr", 1.0, 0.1),
    ("count", "gaussian", "distance", 2.0, 0.1),
    ("mean", "mip", "lr", 1.0, 0.2),
    ("mean", "none", "distance", 1.0, 0.1),
    ("covariance", "gaussian", "lr", 1.0, 0.1),
]


def summary(mech="mean", noise="laplace", attacker="lr", eps=1.0, eta=0.1, trials=4000):
    game = audit.play_game(mech, noise, attacker, trials=trials, epsilon=eps, eta=eta)
    return audit.summarize(game, 0.0, 0.95)


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def distance_to_polyline(x, y, px, py) -> np.ndarray:
    """The distance of each point (x, y) to the polyline through (px, py)."""
    ax, ay, bx, by = px[:-1], py[:-1], px[1:], py[1:]
    dx, dy = bx - ax, by - ay
    length2 = np.where(dx**2 + dy**2 == 0, 1.0, dx**2 + dy**2)
    u = np.clip(((x[:, None] - ax) * dx + (y[:, None] - ay) * dy) / length2, 0.0, 1.0)
    return np.hypot(ax + u * dx - x[:, None], ay + u * dy - y[:, None]).min(axis=1)


def layer(chart, mark: str) -> dict:
    return next(la for la in chart.spec["layer"] if la["mark"]["type"] == mark)


def channel(la: dict, name: str) -> dict:
    enc = la["encoding"][name]
    return dict(zip(enc["scale"]["domain"], enc["scale"]["range"], strict=True))


@pytest.fixture(scope="module", params=SETTINGS, ids=lambda s: "-".join(s[:3]))
def drawn(request):
    mech, noise, attacker, eps, eta = request.param
    s = summary(mech, noise, attacker, eps, eta)
    chart, table = av.audit_roc_vega(s, attacker)
    return s, attacker, chart, table


def test_valid_vega_lite_without_nan(drawn):
    _s, _a, chart, _table = drawn
    valid_vega_lite(chart)
    for data in chart.datasets.values():
        assert np.isfinite(data.select_dtypes("number").to_numpy(dtype=float)).all()


def test_the_table_holds_the_certified_bounds_and_the_measured_roc(drawn):
    s, _a, _chart, table = drawn
    cert = s.certificate
    grid = np.linspace(0.0, 1.0, 201)
    np.testing.assert_array_equal(table["fpr_grid"].dropna(), grid)
    if cert.certified:
        np.testing.assert_allclose(table["tpr_mip_bound"].dropna(), tpr_bound_mip(grid, cert.eta))
        # the corrected Theorem 8: TPR ≤ FPR + 2η
        np.testing.assert_allclose(
            table["tpr_mip_bound"].dropna(), np.minimum(grid + 2 * cert.eta, 1.0)
        )
    else:
        assert "tpr_mip_bound" not in table
    if cert.epsilon is not None:
        np.testing.assert_allclose(table["tpr_dp_bound"].dropna(), tpr_bound_dp(grid, cert.epsilon))
    if cert.gdp_mu is not None:
        np.testing.assert_allclose(
            table["tpr_gdp_bound"].dropna(), tpr_bound_gdp(grid, cert.gdp_mu)
        )
    np.testing.assert_array_equal(table["fpr_attack"].dropna(), s.fpr)
    np.testing.assert_array_equal(table["tpr_attack"].dropna(), s.tpr)


def test_the_datasets_draw_the_table(drawn):
    s, attacker, chart, table = drawn
    lines = chart.datasets["lines"]
    grid = table["fpr_grid"].dropna().to_numpy()
    for name, column in (
        (av.MIP_NAME, "tpr_mip_bound"),
        (av.DP_NAME, "tpr_dp_bound"),
        (av.GDP_NAME, "tpr_gdp_bound"),
    ):
        rows = lines[lines["name"] == name]
        if column not in table:
            assert rows.empty
            continue
        full = table[column].to_numpy()[: grid.size]
        if column == "tpr_gdp_bound":  # smooth: every other grid point, both ends
            np.testing.assert_array_equal(rows["fpr"], np.r_[grid[::2]])
            np.testing.assert_array_equal(rows["tpr"], full[::2])
        else:  # piecewise linear: its bends redraw it exactly
            assert len(rows) <= 6
            np.testing.assert_allclose(np.interp(grid, rows["fpr"], rows["tpr"]), full, atol=1e-12)
        markers = chart.datasets["markers"]
        assert (markers["name"] == name).sum() == 9
        if column != "tpr_gdp_bound":
            marked = markers[markers["name"] == name]
            np.testing.assert_allclose(np.interp(marked["fpr"], grid, full), marked["tpr"])
    guess = lines[lines["name"] == av.GUESS_NAME]
    assert guess[["fpr", "tpr"]].to_numpy().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    attack = lines[lines["name"] == av.ATTACKER_NAMES[AuditAttacker(attacker)]]
    f, t = s.fpr, s.tpr
    assert 2 <= len(attack) <= av.ROC_POINTS
    assert (attack["fpr"].iloc[0], attack["fpr"].iloc[-1]) == (f[0], f[-1])
    # the drawn points are points of the measured ROC, and redraw it closely
    pairs = set(zip(f.tolist(), t.tolist(), strict=True))
    assert all(p in pairs for p in zip(attack["fpr"], attack["tpr"], strict=True))
    gap = distance_to_polyline(f, t, attack["fpr"].to_numpy(), attack["tpr"].to_numpy())
    assert gap.max() < (1e-12 if len(attack) < av.ROC_POINTS else 0.015)
    if "region" in chart.datasets:
        region = chart.datasets["region"]
        name = av.DP_NAME if s.certificate.epsilon is not None else av.GDP_NAME
        assert region.equals(lines[lines["name"] == name][["fpr", "tpr"]].reset_index(drop=True))


def test_the_legend_names_what_is_drawn(drawn):
    s, attacker, chart, _table = drawn
    domain = layer(chart, "line")["encoding"]["color"]["scale"]["domain"]
    assert domain[0] == av.GUESS_NAME and domain[-1] == av.ATTACKER_NAMES[AuditAttacker(attacker)]
    assert set(chart.datasets["lines"]["name"]) == set(domain)
    assert (av.MIP_NAME in domain) == s.certificate.certified
    assert (av.DP_NAME in domain) == (s.certificate.epsilon is not None)
    assert (av.GDP_NAME in domain) == (s.certificate.gdp_mu is not None)
    assert not any(ch.isdigit() for ch in "".join(domain).replace("2η", ""))  # values: caption


@pytest.mark.parametrize(
    "noise,first,second",
    [("mip", {"eta": 0.1}, {"eta": 0.3}), ("laplace", {"eps": 1.0}, {"eps": 3.0})],
)
def test_eta_and_epsilon_change_the_tables_not_the_spec(noise, first, second):
    """Moving η (the page's first slider) or ε only changes what is drawn: Streamlit then
    redraws the chart in place instead of building it anew."""
    a, _ = av.audit_roc_vega(summary(noise=noise, **first), "lr")
    b, _ = av.audit_roc_vega(summary(noise=noise, **second), "lr")
    assert spec_text(a) == spec_text(b)
    assert not a.datasets["lines"].equals(b.datasets["lines"])


def test_mip_and_dp_differ_by_more_than_colour():
    chart, _ = av.audit_roc_vega(summary(), "lr")
    dash = channel(layer(chart, "line"), "strokeDash")
    shape = channel(layer(chart, "point"), "shape")
    colour = channel(layer(chart, "line"), "color")
    assert dash[av.MIP_NAME] == DASH["solid"] and dash[av.DP_NAME] == DASH["dash"]
    assert (shape[av.MIP_NAME], shape[av.DP_NAME]) == ("circle", "square")
    assert (colour[av.MIP_NAME], colour[av.DP_NAME]) == (style.MIP.colour, style.DP.colour)
    attack = av.ATTACKER_NAMES[AuditAttacker.LR]
    # the measured ROC and blind guessing are both dotted (the style's MEASURED and guessing
    # lines): green and thick against grey and thin
    assert colour[attack] == style.MEASURED.colour and colour[av.GUESS_NAME] == style.GREY
    widths = channel(layer(chart, "line"), "strokeWidth")
    assert widths[attack] >= widths[av.GUESS_NAME] + 1.5


def test_an_unknown_attacker_raises():
    with pytest.raises(ValueError):
        av.audit_roc_vega(summary(trials=1000), "oracle")
