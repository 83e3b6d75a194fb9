"""How loose are the certified bounds? The exact best attack beside what the theorems certify.

The controls (the table :data:`CONTROLS`) → ``jobs.run`` / ``appkit.cached`` of
:mod:`mipcore.experiments.certificate_gap` (σ_M from :func:`mipcore.prop11.output_moments`)
→ Vega-Lite charts of :mod:`mipcore.plots.looseness_vega` → sentences, templates of
``bounds_looseness.md``. The charts' titles name no slider value (the captions do), so a
slider step redraws them in place.
"""

from __future__ import annotations

import streamlit as st

import appkit
from appkit import controls, fmt_num, jobs
from appkit.controls import choice, slider, toggle
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore import prop11
from mipcore.bounds import attacker_accuracy
from mipcore.constructions import theorem5_indicator_eta, theorem5_publish_eta
from mipcore.experiments import certificate_gap as gap
from mipcore.experiments.certificate_gap import COVARIANCE_GAP_DIM, NoiseDemand, Route
from mipcore.plots import looseness_vega as figs

PAGE = "looseness"
CNAME = {6.16: "Corollary 14", 7.5: "Theorem 9"}  # where each printed constant comes from


def sig(M: int) -> str:
    """σ_M written with a subscript: σ₂."""
    return "σ" + "₂₃₄₅₆"[M - 2]


def _even(v) -> None:
    if int(v) % 2:
        raise ValueError("n must be even")


CONTROLS = controls.table(
    slider("n", "n (dataset size, even)", 4, gap.LOOSENESS_N_MAX, 8, 2, help="Exact enumeration of C(n, n/2) halves: up to n = 16.", validate=_even),
    slider("M", "M (moment order of Theorem 9)", 2, 6, 2, 1),
    choice("const", "Constant of the printed noise", (6.16, 7.5), 6.16, lambda c: f"{c} ({CNAME[c]})", radio=True, horizontal=False),
    slider("teta", "target η", 0.01, 0.45, 0.1, 0.01, "%.2f"),
    toggle("logy", "log η axes", True),
    slider("delta", "δ of the (ε, δ)-DP construction", 0.0, 0.5, 0.0, 0.01, "%.2f"),
)  # fmt: skip

page = appkit.page(PAGE)
prose(PAGE, "intro")
main = page.slot()  # URL warnings, controls and the heavy runs: rerun on each change
st.subheader("η against the noise scale")
eta_area = page.slot()
needed_area = page.slot()  # its subheader names the target η
st.subheader("Theorem 4 is attained")
t4_area = page.slot()
st.subheader("Theorem 5: small η, no finite ε")
t5_area = page.slot()
st.subheader("The dimension mattered for the printed proof, not for the noise")
dim_area = page.slot()

with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")


def _controls() -> dict:
    """n, M, the printed constant and the target η side by side, then log axes."""
    v = {}
    for col, key in zip(st.columns(4), ("n", "M", "const", "teta"), strict=True):
        with col:
            v[key] = controls.draw(CONTROLS[key])
    v["logy"] = controls.draw(CONTROLS["logy"])
    v.update(n=int(v["n"]), M=int(v["M"]), const=float(v["const"]), teta=float(v["teta"]))
    return v


def _curves(v: dict):
    """The heavy runs: exact η, σ_M, the η curves and the noise each route needs (or stop)."""
    n, M, constant = v["n"], v["M"], v["const"]
    with appkit.guard("The η curves", stop=True):
        # Each heavy part is its own cached job, computed again only when what it depends
        # on changes: the exact η grid on n, σ_M on n and M; the rest is quick.
        # every job here is bounded by n <= 16 (about 2 s at most): the quick lane
        grid = jobs.run(gap.exact_eta_grid, n, label="Enumerating every training half", quick=True)
        sigma = jobs.run(
            prop11.output_moments,
            n,
            M,
            label=say(PAGE, "bounding", sig=sig(M)),
            quick=True,
        ).sigma
        curves = appkit.cached(gap.eta_curves, grid, M, constant, sigma=sigma)
        demand = jobs.run(
            gap.noise_demand,
            n,
            v["teta"],
            M,
            constant,
            sigma=sigma,
            label="Bisecting on the exact η",
            quick=True,
        )
    return curves, demand


def _eta_vs_noise(curves, demand: NoiseDemand, v: dict) -> None:
    """η against the noise scale: the chart, where each route first certifies, and why."""
    n, cname = v["n"], CNAME[v["const"]]
    fig, data = appkit.cached(figs.eta_vs_scale_vega, curves, demand, log_y=v["logy"])
    delta = appkit.cached(prop11.sensitivity, n)
    caption = say(PAGE, "eta_caption", n=n, sig=sig(v["M"]), demand=demand, delta=delta)
    appkit.chart(fig, data, f"eta_vs_scale_n{n}", key="loose_eta_chart", caption=caption)
    first = gap.first_certificates(curves)
    tight = next((f for f in first if f.route is Route.MIP_TIGHT), None)
    if tight is not None:
        appkit.takeaway(say(PAGE, "eta_takeaway", nontrivial=gap.NONTRIVIAL_ETA, tight=tight))
    routes = {
        Route.MIP_TIGHT: prose_text(PAGE, "route_tight"),
        Route.MIP_PRINTED: say(PAGE, "route_printed", cname=cname),
        Route.DP: prose_text(PAGE, "route_dp"),
    }
    said = [say(PAGE, "first", route=routes[f.route], f=f) for f in first]
    appkit.explain(" ".join(said) + " " + say(PAGE, "printed_curve", cname=cname))


def _noise_needed(demand: NoiseDemand, v: dict) -> None:
    """The noise each route needs for the target η: chart, table, takeaway and explanation."""
    n, target, cname = v["n"], v["teta"], CNAME[v["const"]]
    st.subheader(say(PAGE, "needed_title", target=target))
    fig, data = appkit.cached(figs.demanded_vega, demand)
    caption = say(PAGE, "needed_caption", n=n, target=target)
    appkit.chart(fig, data, f"noise_needed_n{n}", key="loose_needed_chart", caption=caption)
    appkit.tables.table(
        {
            "route": [figs.ROUTE_NAMES[r.route] for r in demand.rows],
            "Laplace scale b": [fmt_num(r.scale) for r in demand.rows],
            "exact η there": [fmt_num(r.exact_eta) for r in demand.rows],
            "× enough": [fmt_num(r.times_sufficient, 3) for r in demand.rows],
        },
        right=["Laplace scale b", "exact η there", "× enough"],
    )
    ok = demand.route(Route.SUFFICIENT)
    tight, dp, printed = (demand.route(r) for r in (Route.MIP_TIGHT, Route.DP, Route.MIP_PRINTED))
    appkit.takeaway(
        say(
            PAGE,
            "needed_takeaway",
            n=n,
            ok=ok,
            target=target,
            accuracy=attacker_accuracy(demand.target_eta),
            tight=tight,
            dp=dp,
            printed=printed,
            cname=cname,
        )
    )
    appkit.explain(
        say(
            PAGE,
            "needed_explain",
            demand=demand,
            tight=tight,
            dp=dp,
            printed=printed,
            cname=cname,
            rtol=gap.SUFFICIENT_RTOL,
        )
    )


def _theorem4() -> None:
    """Theorem 4 is attained: the δ slider and the construction's chart."""
    delta = float(controls.draw(CONTROLS["delta"]))
    with appkit.guard("The Theorem 4 construction"):
        t4 = appkit.cached(gap.theorem4_tightness, delta)
        fig, data = appkit.cached(figs.tightness_vega, t4)
        caption = say(PAGE, "t4_caption", delta=delta)
        appkit.chart(fig, data, "theorem4_tightness", key="loose_t4_chart", caption=caption)
        appkit.takeaway(say(PAGE, "t4_takeaway", gap=t4.max_gap))


def _theorem5(v: dict) -> None:
    """Theorem 5: the two counterexamples, small η with no finite ε."""
    n, q = v["n"], 2.0 * v["teta"]  # the arXiv version publishes each record w.p. q = 2η
    t5 = appkit.cached(gap.theorem5_table, v["teta"])
    fig, data = appkit.cached(figs.theorem5_vega, t5, log_y=v["logy"])
    caption = say(PAGE, "t5_caption", q=q)
    appkit.chart(fig, data, "theorem5_counterexamples", key="loose_t5_chart", caption=caption)
    appkit.takeaway(say(PAGE, "t5_takeaway", eta=theorem5_indicator_eta(n), n=n))
    appkit.explain(say(PAGE, "t5_explain", q=q, eta=theorem5_publish_eta(n, q)))


def _dimension_eta(dim: gap.DimensionGap, demand: NoiseDemand, v: dict) -> None:
    """The certified η against the dimension, and the best attacks beside it."""
    n, target = v["n"], v["teta"]
    fig, data = appkit.cached(figs.dimension_eta_vega, dim, demand)
    caption = say(PAGE, "dim_eta_caption", dim=dim, cname=CNAME[v["const"]], target=target, n=n)
    appkit.chart(
        fig,
        data,
        "certified_eta_vs_dimension",
        key="loose_dim_eta_chart",
        caption=caption,
    )
    upto = dim.chain_covers_target_up_to
    if upto is not None:
        appkit.takeaway(say(PAGE, "dim_eta_takeaway", dim=dim, target=target))
    else:
        appkit.takeaway(say(PAGE, "dim_eta_takeaway_none", dim=dim, target=target))
    exact = demand.route(Route.MIP_PRINTED).exact_eta
    appkit.explain(say(PAGE, "dim_eta_explain", exact=exact, n=n, dim=dim, d=COVARIANCE_GAP_DIM))


def _dimension_noise(dim: gap.DimensionGap, demand: NoiseDemand, v: dict) -> None:
    """The noise needed against the dimension, and why d = 1 needs less than certified."""
    n, target = v["n"], v["teta"]
    fig, data = appkit.cached(figs.dimension_noise_vega, dim, demand)
    caption = say(PAGE, "dim_noise_caption", target=target, n=n)
    appkit.chart(
        fig,
        data,
        "noise_needed_vs_dimension",
        key="loose_dim_noise_chart",
        caption=caption,
    )
    last = int(dim.table["d"].iloc[-1])
    appkit.takeaway(
        say(
            PAGE,
            "dim_noise_takeaway",
            target=target,
            dim=dim,
            cname=CNAME[v["const"]],
            chain1=dim.chain_noise_at(1),
            chain_last=dim.chain_noise_at(last),
            last=last,
        )
    )
    appkit.explain(say(PAGE, "dim_noise_explain", n=n, demand=demand, dim=dim))


def _dimension(demand: NoiseDemand, v: dict) -> None:
    """The dimension section: its introduction, the job, then its two charts."""
    prose(PAGE, "dimension", cname=CNAME[v["const"]], target=v["teta"])
    with appkit.guard("The certificates against the dimension"):
        dim = jobs.run(
            gap.dimension_gap,
            v["teta"],
            v["M"],
            v["const"],
            label="Certificates in each dimension and the best attack on 4 numbers",
            quick=True,
        )
        _dimension_eta(dim, demand, v)
        _dimension_noise(dim, demand, v)


def _live() -> None:
    """The live part: controls and heavy runs, then each section in its slot, in page order."""
    with main:
        appkit.messages()
        v = _controls()
        curves, demand = _curves(v)
    with eta_area:
        _eta_vs_noise(curves, demand, v)
    with needed_area:
        _noise_needed(demand, v)
    with t4_area:
        _theorem4()
    with t5_area, appkit.guard("The Theorem 5 counterexamples"):
        _theorem5(v)
    with dim_area:
        _dimension(demand, v)


appkit.live(page, _live)
