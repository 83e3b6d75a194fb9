"""Does MIP beat DP-SGD when learning a covariance matrix? (Figure 2, Section 5.2)

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582.
Widgets → :func:`mipcore.lessons.figure2.plan_experiment` (cached) →
:func:`mipcore.lessons.figure2.run_experiment` in its own process (:func:`appkit.jobs.run`) →
:mod:`mipcore.plots.covariance_vega` (Vega-Lite) → sentences. Every number and verdict on the page comes
from the run's :class:`mipcore.lessons.figure2.ExperimentResult`.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import streamlit as st

import appkit
import appkit.jobs
from appkit import fmt_num, fmt_pct, settings
from appkit.prose import prose
from mipcore.lessons import figure2 as cv
from mipcore.mechanism import MipCalibration
from mipcore.noise import COROLLARY14_CONSTANT, THEOREM9_CONSTANT
from mipcore.plots import covariance_vega as figs

PRESET_NAMES = ["Quick", "Paper"]
DEFAULT_PRESET = "Quick"
DEFAULT_C = 5.0  # the fixed clipping norm offered first (the median rule gives ≈ 6 at d = 3)
Claim, DpCal = cv.Claim, cv.DpCalibration
Mip = MipCalibration
MIP_ORDER = (Mip.TIGHT, Mip.PAPER, Mip.AS_PRINTED)  # the order the page names them in
MIP_OPTION = {
    Mip.AS_PRINTED: "as printed (Laplace radius) — not certified for d > 1",
    Mip.PAPER: "Theorem 9's density, paper's constant",
    Mip.TIGHT: "smallest certified noise",
}
MIP_COLUMN = {
    Mip.AS_PRINTED: "As printed",
    Mip.PAPER: "Theorem 9's density, paper's constant",
    Mip.TIGHT: "Smallest certified noise",
}
DP_NAME = {DpCal.PAPER: "paper calibration", DpCal.TIGHT: "tight calibration"}
DP_OPTION = {DpCal.PAPER: "paper (Theorem 4 + analytic Gaussian)", DpCal.TIGHT: "tight (exact GDP)"}
CLIP_NAME = {
    cv.ClipRule.INITIAL_MEDIAN: "median norm at A = 0",
    cv.ClipRule.TRAJECTORY_MEDIAN: "median over the run",
    cv.ClipRule.FIXED: "fixed C",
}
CLIP_PHRASE = {
    cv.ClipRule.INITIAL_MEDIAN: "the median per-example gradient norm at A = 0",
    cv.ClipRule.TRAJECTORY_MEDIAN: "the median gradient norm over the non-private trajectory",
    cv.ClipRule.FIXED: "fixed by hand",
}
CLAIM_TEXT = {
    Claim.MIP_BEATS_DP_FROM_01: "(1) For η ≥ 0.1, MIP with every tested M beats DP-SGD",
    Claim.M46_BEAT_DP_EVERYWHERE: "(2) MIP with M = 4 or 6 beats DP-SGD at every η",
    Claim.DP_NEVER_BELOW_1: "(3) DP-SGD never gets relative error below 1",
    Claim.MIP_BELOW_1_FROM_02: "(4) MIP gets relative error below 1 from η ≈ 0.2 on",
}
ZOOMS = [  # (tab, (lo, hi), M left out, slug, note): our reading of the paper's three panels
    ("All η", (None, None), (), "all", None),
    ("η ≤ 0.15", (None, 0.15), (2,), "zoom_low", "Without M = 2, as in the paper's first panel."),
    ("0.1 ≤ η ≤ 0.3", (0.1, 0.3), (), "zoom_mid", None),
    ("η ≥ 0.2", (0.2, None), (), "zoom_high", None),
]
PARAM_NAMES = {
    "dim": "d",
    "size": "n",
    "rng": "seed",
    "halves": "B",
    "R": "R",
    "Ms": "M",
    "const": "constant",
    "radii": "MIP calibrations",
    "etas": "η range",
    "pts": "η points",
    "dlt": "δ",
    "cal": "DP-SGD calibrations",
    "T": "T",
    "lr": "learning rate",
    "clip": "clipping rule",
}


def widget_state(cfg: cv.ExperimentConfig) -> dict:
    """The parameter widgets' values that reproduce a preset (keys are the URL keys, unique to
    this page so that another page's ``n`` or ``eta`` never leaks into the experiment)."""
    return {
        "dim": cfg.d,
        "size": cfg.n,
        "rng": cfg.seed,
        "halves": cfg.B,
        "R": cfg.R,
        "Ms": sorted(cfg.Ms),
        "etas": (cfg.etas[0], cfg.etas[-1]),
        "pts": len(cfg.etas),
        "dlt": float(round(math.log10(cfg.delta), 1)),
        "T": cfg.T,
        "lr": cfg.lr,
        "clip": cfg.clip_rule,
        "cal": list(cfg.dp_calibrations),
        "radii": list(cfg.mip_calibrations),
        "const": cfg.constant,
    }


PRESET_STATE = {name: widget_state(cv.PRESETS[name]) for name in PRESET_NAMES}


def duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{fmt_num(seconds, 2)} s"
    return f"{fmt_num(seconds / 60, 2)} min"


def num(x: float) -> str:
    return fmt_num(x, 3)


def span(lo: float, hi: float) -> str:
    """ "between 0.39 and 0.45", or "at 0.395" when both read the same."""
    a, b = num(lo), num(hi)
    return f"at {a}" if a == b else f"between {a} and {b}"


def mip_name(cal: Mip, certified: bool) -> str:
    """The calibration's name in a sentence; an uncertified one says so."""
    name = {
        Mip.AS_PRINTED: "the printed Laplace radius",
        Mip.PAPER: "Theorem 9's density with the paper's constant",
        Mip.TIGHT: "the smallest certified noise",
    }[cal]
    return name if certified else f"{name} (not certified for these d² numbers)"


def where_text(v: cv.Verdict) -> str:
    """A table cell: ✅/❌ with the word (some fonts have no emoji) and where it fails."""
    mark = "✅ holds" if v.holds else "❌ fails"
    if v.claim is Claim.DP_NEVER_BELOW_1:
        least = f"least error {num(v.dp_min or 0.0)}"
        if v.holds or not v.where:
            return f"{mark}: {least}"
        r = v.where[0]
        span = f"η {num(r.lo)}–{num(r.hi)}" if r.lo < r.hi else f"η = {num(r.lo)}"
        more = " …" if len(v.where) > 1 else ""
        return f"{mark}: below 1 at {span}{more} ({least})"
    if v.claim is Claim.MIP_BELOW_1_FROM_02:
        starts = [o for o in v.onsets if o.eta is not None]
        if not starts:
            return f"{mark}: never below 1 at the top of the grid"
        best = min(starts, key=lambda o: o.eta or 0.0)
        return f"{mark}: below 1 from η = {num(best.eta or 0.0)} (M = {best.M})"
    if not v.checked:
        return "➖ not judged: no η ≥ 0.1 on this grid"
    if v.holds:
        return f"{mark}: MIP wins all {v.checked} comparisons"
    parts = [
        f"M = {r.M}: η {num(r.lo)}–{num(r.hi)}" if r.lo < r.hi else f"M = {r.M}: η = {num(r.lo)}"
        for r in v.where[:2]
    ]
    more = "; …" if len(v.where) > 2 else ""
    return f"{mark}: MIP loses {v.failed} of {v.checked} ({'; '.join(parts)}{more})"


def request_run(config: cv.ExperimentConfig) -> None:
    st.session_state["_cov_requested"] = config
    st.session_state.pop("_cov_stopped", None)


def stop_run(config: cv.ExperimentConfig) -> None:
    st.session_state["_cov_stopped"] = config
    st.session_state.pop("_cov_requested", None)


# ================================================================== page
page = appkit.page("covariance")
page_started = time.time()
prose("covariance", "intro")

# ------------------------------------------------------------------ controls
p_col, p_note = st.columns([1, 2], vertical_alignment="center")
with p_col:
    preset = appkit.url_select(
        "Preset",
        "preset",
        PRESET_NAMES,
        default=DEFAULT_PRESET,
        widget="radio",
        format_func=lambda p: {
            "Quick": "Quick (n = 20 000, R = 3)",
            "Paper": "Paper (n = 500 000, R = 10)",
        }[p],
        help="Paper: d = 3, n = 500 000, B = 128, R = 10, M ∈ {2, 4, 6} (Section 5.2). "
        "Quick: the same with n = 20 000 and R = 3. Choosing a preset resets every "
        "parameter below to it.",
    )
# A preset change resets the parameter widgets (created below, so their values may be set now).
if st.session_state.get("_cov_preset_seen") not in (None, preset):
    for k, v in PRESET_STATE[preset].items():
        st.session_state[k] = list(v) if isinstance(v, list) else v
st.session_state["_cov_preset_seen"] = preset
base = PRESET_STATE[preset]

with st.expander("All parameters", expanded=False):
    # Two by two, not four across: a select's option must fit its box on a projector.
    c1, c2 = st.columns(2)
    c3, c4 = st.columns(2)
    with c1:
        d = appkit.url_slider(
            "dimension d (Σ is d × d)",
            "dim",
            min_value=1,
            max_value=8,
            default=base["dim"],
            help="The paper uses d = 3: the release holds d² = 9 numbers.",
        )
        n = appkit.url_number(
            "dataset size n",
            "size",
            min_value=100,
            max_value=1_000_000,
            default=base["size"],
            step=10_000,
            help="Rows x_i ~ N(0, Σ); training uses a random half, m = n/2. Paper: 500 000.",
        )
        seed = appkit.url_number(
            "seed",
            "rng",
            min_value=0,
            max_value=2**31 - 1,
            default=base["rng"],
            step=1,
            help="Σ = make_spd_matrix(d, random_state=seed); run r uses the seed sequence "
            "(seed, r) for data, splits and noise.",
        )
        R = appkit.url_slider(
            "runs R (mean ± SEM)",
            "R",
            min_value=1,
            max_value=30,
            default=base["R"],
            help="The paper averages 10 runs.",
        )
    with c2:
        Ms = appkit.url_multiselect(
            "moment orders M (MIP)",
            "Ms",
            list(range(2, 9)),
            default=base["Ms"],
            help="Corollary 10 needs σᵢᴹ ≥ E|θᵢ − Eθᵢ|ᴹ. Paper: 2, 4, 6.",
        )
        B = appkit.url_slider(
            "half-splits B (σᵢ, Algorithm 1)",
            "halves",
            min_value=2,
            max_value=512,
            default=base["halves"],
            help="Paper: 128 random train/holdout splits.",
        )
        const = appkit.url_select(
            "noise constant",
            "const",
            [COROLLARY14_CONSTANT, THEOREM9_CONSTANT],
            default=base["const"],
            format_func=lambda v: (
                "6.16 (Corollary 14, M ≥ 2)" if v == COROLLARY14_CONSTANT else "7.5 (Theorem 9)"
            ),
            help="The paper's constant in c = (constant/η) to the power 1 + 2/M; the smallest "
            "certified noise does not use it.",
        )
        radii = appkit.url_multiselect(
            "MIP calibrations",
            "radii",
            list(Mip),
            default=base["radii"],
            format_func=MIP_OPTION.get,
            help="Corollary 10 prints a Laplace radius; Theorem 9's density needs a "
            "Gamma(d², c) radius, which is certified in every dimension. The smallest "
            "certified noise uses c = −1/ln(1 − 2η). See “The maths”.",
        )
    with c3:
        eta_lo, eta_hi = appkit.url_range_slider(
            "η range",
            "etas",
            min_value=0.001,
            max_value=0.499,
            default=base["etas"],
            step=0.001,
            format="%.3f",
            help="Paper: 0.01 to about 0.45 (it prints no grid).",
        )
        pts = appkit.url_slider(
            "η grid points",
            "pts",
            min_value=2,
            max_value=40,
            default=base["pts"],
            help="Evenly spaced over the η range.",
        )
        dlt = appkit.url_slider(
            "log₁₀ δ (paper calibration)",
            "dlt",
            min_value=-12.0,
            max_value=-2.0,
            default=base["dlt"],
            step=0.5,
            format="%.1f",
            help=f"The paper does not state δ; {fmt_num(10.0 ** base['dlt'])} by default. "
            "Theorem 4 needs η ≥ δ/2.",
        )
        cal = appkit.url_multiselect(
            "DP-SGD calibrations",
            "cal",
            list(DpCal),
            default=base["cal"],
            format_func=DP_OPTION.get,
            help="paper: η → ε by Theorem 4 at δ, then the analytic Gaussian mechanism; "
            "tight: the T steps are μ-GDP and η = Φ(μ/2) − 1/2. See “The maths”.",
        )
    with c4:
        T = appkit.url_slider(
            "steps T (GD and DP-SGD)",
            "T",
            min_value=1,
            max_value=200,
            default=base["T"],
            help="Not stated in the paper; 20 by default.",
        )
        lr = appkit.url_slider(
            "learning rate",
            "lr",
            min_value=0.01,
            max_value=0.5,
            default=base["lr"],
            step=0.01,
            format="%.2f",
            help="Gradient descent from A = 0 gives A after T steps = (1 − (1 − 2·lr)ᵀ)·S.",
        )
        clip = appkit.url_select(
            "DP-SGD clipping rule",
            "clip",
            list(cv.ClipRule),
            default=base["clip"],
            format_func=CLIP_NAME.get,
            help="The paper: “the median of the unclipped gradients over the training "
            "procedure” (Abadi et al.'s advice). Here: the median per-example gradient norm "
            "at A = 0, the median over the non-private trajectory, or a fixed C.",
        )
        clip_value = None
        if clip is cv.ClipRule.FIXED:
            clip_value = float(
                appkit.url_number(
                    "fixed clipping norm C",
                    "C",
                    min_value=0.01,
                    max_value=1e6,
                    default=DEFAULT_C,
                    step=1.0,
                    format="%.3f",
                    help="C > 0: DP-SGD's noise is proportional to C (sensitivity 2C).",
                )
            )

state_now = {
    "dim": d,
    "size": n,
    "rng": seed,
    "halves": B,
    "R": R,
    "Ms": sorted(Ms),
    "const": const,
    "radii": radii,
    "etas": (eta_lo, eta_hi),
    "pts": pts,
    "dlt": dlt,
    "cal": cal,
    "T": T,
    "lr": lr,
    "clip": clip,
}
changed = [
    PARAM_NAMES[k]
    for k, v in state_now.items()
    if (sorted(v) if isinstance(v, list) else v)
    != (sorted(base[k]) if isinstance(base[k], list) else base[k])
]
if clip is cv.ClipRule.FIXED:
    changed.append("C")
p_note.caption(
    (
        f"These are the **{preset}** preset's settings."
        if not changed
        else f"The **{preset}** preset with changes to: {', '.join(changed)}."
    )
    + " The paper does not state δ, T, the learning rate or its η grid; these defaults are ours "
    "(see “All parameters”)."
)

# ------------------------------------------------------------------ what to run
delta = float(10.0**dlt)
etas = (
    tuple(float(x) for x in np.linspace(round(eta_lo, 6), round(eta_hi, 6), int(pts)))
    if eta_hi > eta_lo
    else (float(round(eta_lo, 6)),)
)
config = plan = None
if not Ms:
    st.warning(
        "No moment order M is chosen: MIP's noise needs at least one (Corollary 10). "
        "Choose one or more under “All parameters” (the paper uses 2, 4 and 6).",
        icon="⚠️",
    )
elif DpCal.PAPER in cal and etas[0] < delta / 2:
    st.warning(
        f"The paper's DP-SGD calibration (Theorem 4) cannot certify η below δ/2 = "
        f"{fmt_num(delta / 2)}, and the η range starts at {fmt_num(etas[0])}. Raise the start "
        "of the η range, lower δ, or drop the paper calibration.",
        icon="⚠️",
    )
else:
    config = cv.ExperimentConfig(
        d=int(d),
        n=int(n),
        seed=int(seed),
        B=int(B),
        R=int(R),
        Ms=tuple(sorted(Ms)),
        etas=etas,
        delta=delta,
        T=int(T),
        lr=float(round(lr, 4)),
        clip_rule=clip,
        clip_value=clip_value,
        dp_calibrations=tuple(c for c in DpCal if c in cal),
        mip_calibrations=tuple(c for c in Mip if c in radii),
        constant=float(const),
    )
    with appkit.guard("This experiment"):
        plan = appkit.cached(cv.plan_experiment, config)

# ------------------------------------------------------------------ run (or not)
result = None
if plan is not None and config is not None:
    work = cv.work(config)
    ceiling = cv.WORK_CEILING * settings.WORK_LIMIT
    too_big = work.units > ceiling
    estimate = cv.estimate_seconds(work, appkit.cached(cv.measure_speed))
    done: set = st.session_state.setdefault("_cov_done", set())
    if len(done) > 32:  # configurations this session ran (their results are fetched again)
        done.clear()
    stopped = st.session_state.get("_cov_stopped") == config
    wanted = st.session_state.get("_cov_requested") == config or config in done
    auto = config == cv.PRESETS["Quick"] or estimate <= cv.AUTO_RUN_SECONDS
    K = 1 + len(config.dp_calibrations) * len(config.etas)
    size = (
        f"{config.R} run{'s' if config.R > 1 else ''} × ({config.B} half-splits + {config.T} "
        f"DP-SGD steps × {K} trajectories) over {fmt_num(config.m)} training rows"
    )
    # The note and the button keep their places whether the run waits or computes (Run and its
    # note, or Stop and the progress), and Run and Stop are one widget key: an element a
    # running script has replaced by another key stays on the page as a stale copy until the
    # run ends, and collapsed under a presenter's mouse as they pressed Stop, moving the
    # button away from the pointer (the click was lost).
    note, button = st.empty(), st.empty()
    if too_big or stopped or not (auto or wanted):
        if too_big:
            note.warning(
                f"This configuration asks for {fmt_num(work.units / ceiling, 2)} times the work "
                f"one request may use on this shared server ({size}), so it cannot run here. "
                "Lower n, R, T, B or the number of η points (the work grows with each of "
                "them). A researcher running the app on their own machine can raise the "
                "ceiling with the environment variable MIP_EXPLORER_WORK_LIMIT (for example "
                "MIP_EXPLORER_WORK_LIMIT=10 allows ten times as much).",
                icon="🚧",
            )
        elif stopped:
            note.info("You stopped the run. Press Run to start it again.", icon="⏹️")
        else:
            note.info(
                f"This configuration takes about **{duration(estimate)}** on this server "
                f"({size}), so it runs only when you ask. Changing a parameter never starts a "
                "long run by itself; the Quick preset and configurations estimated under "
                f"{fmt_num(cv.AUTO_RUN_SECONDS)} s run at once.",
                icon="⏱️",
            )
        button.button(
            f"Run ({duration(estimate)})",
            key="run",
            type="primary",
            icon=":material/play_arrow:",
            disabled=too_big,
            on_click=request_run,
            args=(config,),
        )
    else:
        stop_box = button
        stop_box.button(
            "Stop", key="run", icon=":material/stop:", on_click=stop_run, args=(config,)
        )
        try:
            with appkit.guard("This experiment"):
                result = appkit.jobs.run(
                    cv.run_experiment,
                    plan,
                    label=f"The experiment (about {duration(estimate)})",
                    quick=auto,  # the Quick preset and runs under AUTO_RUN_SECONDS
                )
                done.add(config)
        except appkit.jobs.JobStopped:
            st.info("The run was stopped before it finished. Press Run to start it again.")
        stop_box.empty()

# ------------------------------------------------------------------ results
if result is not None:
    cfg = result.config
    grid_lo, grid_hi = float(min(cfg.etas)), float(max(cfg.etas))
    vs = (
        DpCal.TIGHT if DpCal.TIGHT in cfg.dp_calibrations else next(iter(cfg.dp_calibrations), None)
    )
    mips = [m for m in MIP_ORDER if m in cfg.mip_calibrations]
    # certified_level(...) is not None for every M and η of the grid (the plan's MipNoise):
    # only then does the page call a release η-MIP
    certified = {m: all(x.is_certified for x in result.plan.mip if x.calibration is m) for m in Mip}
    ref_bias = result.bias(vs) if vs is not None else None
    judged = [(m, result.verdict(Claim.MIP_BEATS_DP_FROM_01, mip=m, dp=vs)) for m in mips]
    wins = [(m, v) for m, v in judged if v is not None and v.checked]
    if vs is not None and ref_bias is not None and wins:
        appkit.takeaway(
            f"What this run shows: at η ≥ 0.1, MIP beats DP-SGD ({DP_NAME[vs]}) "
            + "; ".join(
                f"in {v.passed} of {v.checked} comparisons with {mip_name(m, certified[m])}"
                for m, v in wins
            )
            + f". DP-SGD's error stays {span(ref_bias.error_min, ref_bias.error_max)}, at "
            f"least {fmt_pct(ref_bias.share_min)} of it clipping bias."
        )
    elif ref_bias is not None:
        appkit.takeaway(
            "What this run shows: DP-SGD's error stays "
            f"{span(ref_bias.error_min, ref_bias.error_max)}; "
            + (
                "the paper's main claim is about η ≥ 0.1, which this η range does not reach."
                if mips
                else "choose a MIP calibration to compare MIP with it."
            )
        )
    else:
        appkit.takeaway(
            "What this run shows: without a DP-SGD calibration there is nothing to compare MIP "
            "with; choose one under “All parameters”."
        )
    fresh = result.finished_at >= page_started
    st.caption(
        f"{'Computed' if fresh else 'Computed earlier'} in {duration(result.seconds)}: "
        f"{cfg.R} run{'s' if cfg.R > 1 else ''}, {len(cfg.etas)} values of η, "
        f"{fmt_num(len(result.runs))} results. Shaded bands: ±1 standard error of the mean "
        "over the runs."
    )
    page.downloads.append(("covariance_runs", "every run of the experiment", result.runs))

    v1, v2, v3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    if "Mshow" in st.session_state:  # keep the M shown that this run still has
        kept = [M for M in st.session_state["Mshow"] if M in cfg.Ms]
        if kept != st.session_state["Mshow"]:
            st.session_state["Mshow"] = kept or ([4] if 4 in cfg.Ms else [cfg.Ms[0]])
    with v1:
        shown_M = appkit.url_multiselect(
            "MIP curves for M =",
            "Mshow",
            list(cfg.Ms),
            default=[4] if 4 in cfg.Ms else [cfg.Ms[0]],
            help="One M keeps the chart readable; the verdicts below use every M of the run.",
        )
    with v2:
        clip_only = appkit.url_toggle(
            "clipping-only run",
            "z0",
            default=False,
            help="DP-SGD with z = 0: clipping, no noise (how much of its error is bias).",
        )
    with v3:
        log_y = appkit.url_toggle(
            "log y-axis", "logerr", default=True, help="The errors span orders of magnitude."
        )
    st.caption(
        "The paper shows the same results in three panels zoomed on different η ranges but "
        "does not print the ranges: the last three tabs are our reading."
    )
    # Tabs that track state are lazy: only the open tab's chart is built and sent.
    tabs = st.tabs([z[0] for z in ZOOMS], key="zoom", bind="query-params")
    for tab, (title, (lo, hi), drop_M, slug, zoom_note) in zip(tabs, ZOOMS, strict=True):
        if tab.open is False:
            continue
        with tab:
            frame = appkit.cached(
                figs.curve_frame,
                result,
                Ms=tuple(shown_M),
                clip_only=clip_only,
                eta_range=(lo, hi),
                exclude_M=drop_M,
            )
            if frame.empty:
                st.info("No η of this run's grid lies in this range.", icon="ℹ️")
                continue
            notes = [zoom_note] if zoom_note else []
            if not shown_M:
                notes.append("No M is chosen above: only Raw and DP-SGD are drawn.")
            if log_y and figs.band_clipped(frame):
                notes.append(
                    "Where mean − SEM ≤ 0 the band is drawn down to a tenth of the mean "
                    "(a log axis cannot show 0)."
                )
            chart, table = appkit.cached(
                figs.error_vega,
                frame,
                log_y=log_y,
                x_range=(max(lo or grid_lo, grid_lo), min(hi or grid_hi, grid_hi)),
                title=f"Relative error vs η ({title})",
            )
            appkit.chart(
                chart, table, f"covariance_{slug}", key=f"cov_chart_{slug}", caption=" ".join(notes)
            )
    drawn = [s for s in result.scales if s.M in shown_M]
    if drawn and vs is not None and ref_bias is not None:
        best = min(drawn, key=lambda s: s.error_ref)
        appkit.takeaway(
            f"At η = {num(best.eta_ref)} the lowest MIP curve drawn is M = {best.M} with "
            f"{mip_name(best.calibration, certified[best.calibration])}, at relative error {num(best.error_ref)}; "
            f"DP-SGD ({DP_NAME[vs]}) stays {span(ref_bias.error_min, ref_bias.error_max)}."
        )

    # -------------------------------------------------------------- the paper's claims
    with st.container(border=True):
        st.subheader("The paper's claims, checked on this run")
        if len(cfg.dp_calibrations) > 1:
            vs = appkit.url_select(
                "Compare with DP-SGD calibrated by",
                "vs",
                list(cfg.dp_calibrations),
                default=DpCal.TIGHT,
                widget="radio",
                format_func=DP_OPTION.get,
                help="The tight calibration gives DP-SGD exactly the target η (the honest "
                "comparison); the paper's gives it only a fraction of it.",
            )
        if not cfg.dp_calibrations or not mips:
            st.warning(
                "No verdicts on claims 1 and 2: they compare MIP with DP-SGD, so choose at "
                "least one MIP calibration and one DP-SGD calibration.",
                icon="⚠️",
            )
        grid = result.grid(vs)
        if grid:
            columns = [
                m for m in (*MIP_ORDER, None) if any(m is c for _, cells in grid for c, _ in cells)
            ]
            header = {
                m: "DP-SGD"
                if m is None
                else MIP_COLUMN[m] + ("" if certified[m] else " — not certified")
                for m in columns
            }
            table = pd.DataFrame(
                [
                    {"Claim": CLAIM_TEXT[claim], **{header[m]: where_text(v) for m, v in cells}}
                    for claim, cells in grid
                ],
                columns=["Claim", *header.values()],
            ).fillna("")
            appkit.tables.table(table)
            st.caption(
                f"Means over the runs are compared (never typed in); d = {cfg.d}, "
                f"n = {fmt_num(cfg.n)}, B = {cfg.B}, R = {cfg.R}, M ∈ "
                f"{{{', '.join(map(str, cfg.Ms))}}}, η from {num(grid_lo)} to {num(grid_hi)}. "
                "Claim 3 is about DP-SGD alone (the same in every column); claim 4 about MIP "
                "alone (a start before η = 0.2 counts as holding)."
            )

    # -------------------------------------------------------------- why
    why = []
    printed_ok = certified[Mip.AS_PRINTED]
    text = (
        f"**Three ways to calibrate MIP's noise.** The release holds d² = {cfg.p} "
        f"number{'s' if cfg.p > 1 else ''}. Theorem 9 needs noise with density "
        "∝ exp(−‖x‖/c) in the norm of Corollary 10, whose radius is Gamma(d², c); for that "
        "density the privacy level ½(1 − exp(−1/c)) is certified in every dimension (the paper's "
        "printed proof covers d = 1 only; see “The maths”)."
    )
    paper_s = min(
        (x for x in result.scales if x.calibration is Mip.PAPER),
        key=lambda x: x.error_ref,
        default=None,
    )
    tight_s = min(
        (x for x in result.scales if x.calibration is Mip.TIGHT),
        key=lambda x: x.error_ref,
        default=None,
    )
    if paper_s is not None and paper_s.certified_ref is not None:
        text += (
            f" With the paper's constant, c = ({num(cfg.constant)}/η) to the power 1 + 2/M: "
            f"at the target η = {num(paper_s.eta_ref)} and M = {paper_s.M}, c = "
            f"{fmt_num(paper_s.c_ref, 4)}, and the release is η-MIP with η = "
            f"{fmt_num(paper_s.certified_ref, 2)} — far more private than its target, paid "
            f"for with relative error {num(paper_s.error_ref)}."
        )
    if tight_s is not None:
        text += (
            f" The smallest certified noise, c = −1/ln(1 − 2η) = {fmt_num(tight_s.c_ref, 3)} "
            f"at η = {num(tight_s.eta_ref)} (any M, any d), makes the release η-MIP at exactly "
            "the target"
            + (
                f", with {fmt_num(paper_s.c_ref / tight_s.c_ref, 3)} times less noise"
                if paper_s is not None
                else ""
            )
            + f"; its error there is {num(tight_s.error_ref)} (M = {tight_s.M})."
        )
    if Mip.AS_PRINTED in cfg.mip_calibrations:
        text += (
            " The printed Laplace radius"
            + ("" if printed_ok else " (not certified here)")
            + f" uses the paper's constant with about {cfg.p} times less noise"
            + (
                "; at d = 1 it is the same noise as Theorem 9's density, and certified."
                if printed_ok
                else f". In {cfg.p} dimensions its density, ∝ exp(−‖x‖/c) divided by ‖x‖ to "
                f"the power {cfg.p - 1}, has unbounded likelihood ratios and no proof covers "
                "it: it is not certified, and this page claims no privacy level for it."
            )
        )
    why.append(text)
    if paper_s is not None:
        text = (
            "**Why MIP's error is what it is.** Corollary 10 adds noise of scale c(η)·σᵢ to "
            "coordinate i, with σᵢ the spread of the GD output over random halves of the data, "
            f"about the size of the estimation error itself (Raw: {num(result.raw_error)})."
        )
        if paper_s.eta_hi > paper_s.eta_lo:
            text += (
                f" From η = {num(paper_s.eta_lo)} to {num(paper_s.eta_hi)}, with the paper's "
                f"constant and M = {paper_s.M}, c falls {num(paper_s.c_lo / paper_s.c_hi)}-fold "
                f"and the error {num(paper_s.error_lo / paper_s.error_hi)}-fold (single runs "
                "scatter: the radius is heavy-tailed)."
            )
        if paper_s.n_for_error_1 is not None:
            text += (
                f" Since σᵢ shrinks like 1/√n, relative error 1 at η ≈ {num(paper_s.eta_ref)} "
                f"would need roughly n ≈ {fmt_num(paper_s.n_for_error_1, 3)} (this run: "
                f"n = {fmt_num(cfg.n)}): an extrapolation, not a run."
            )
        why.append(text)
    rr = result.radius_ratio
    if rr is not None:
        text = (
            f"**The two radius laws.** The Gamma(d², c) radius has mean d²·c = {rr.expected}·c, "
            f"the printed Laplace(c) radius{'' if printed_ok else ' (not certified)'} E|r| = c, "
            "and both share the direction U: wherever "
            f"the noise dominates, the Gamma curves should lie about {rr.expected} times higher."
        )
        if rr.observed is not None:
            text += (
                f" Observed median ratio of the mean errors: {num(rr.observed)} ("
                + "; ".join(f"M = {M}: {num(x)}" for M, x in rr.per_M)
                + "), over the η where both exceed 10 × Raw."
            )
        else:
            text += " No η of this run has both errors well above Raw, so no ratio is shown."
        why.append(text)
    if result.clipping:
        lines = [
            "**How much of DP-SGD's error is clipping bias.** Non-private GD (Raw) reaches "
            f"relative error {num(result.raw_error)}. DP-SGD clips each per-example gradient to "
            f"norm C = {fmt_num(result.clip_norm, 4)} ({CLIP_PHRASE[cfg.clip_rule]}), which "
            "moves the point it converges to away from S: with **no noise at all** (z = 0) it "
            f"ends at relative error {num(result.clipping[0].clip_only_error)}."
        ]
        for c in result.clipping:
            if c.error >= c.clip_only_error:
                share = (
                    f"**{fmt_num(100 * c.clip_only_error / c.error, 3)} % of DP-SGD's error is "
                    f"clipping bias**; the noise adds {num(c.error - c.clip_only_error)}"
                )
            else:
                share = (
                    "the noisy run even ends slightly *below* the clipping-only run (by "
                    f"{num(c.clip_only_error - c.error)}, run-to-run variation): **all of "
                    "DP-SGD's error is clipping bias**"
                )
            lo_s, hi_s = fmt_num(100 * c.share_min, 3), fmt_num(100 * c.share_max, 3)
            spread = f"{lo_s} % at every η" if lo_s == hi_s else f"from {lo_s} % to {hi_s} %"
            lines.append(
                f"- {DP_NAME[c.calibration]}, at the most private η = {num(c.eta)} (noise "
                f"multiplier z = {num(c.z)}): DP-SGD's error is {num(c.error)}, the "
                f"clipping-only run's {num(c.clip_only_error)}, so {share}. Over the whole η "
                f"grid the clipping-only share is {spread}. The noise is averaged over the "
                f"m = {fmt_num(cfg.m)} training rows: a step adds standard deviation "
                f"lr·z·2C/m = {num(c.step_sd)} per entry of A, "
                f"{fmt_num(100 * c.step_sd_rel, 3)} % of ‖Σ‖."
            )
        why.append("\n".join(lines))
    if DpCal.PAPER in cfg.dp_calibrations:
        lo_r, hi_r = result.plan.dp_noise(DpCal.PAPER).ratio_range
        why.append(
            "**The paper's DP-SGD calibration is conservative.** It turns η into ε with "
            f"Theorem 4 at δ = {fmt_num(cfg.delta)} and calibrates the analytic Gaussian "
            "mechanism to (ε, δ). But T full-batch Gaussian steps with noise multiplier z are "
            "exactly μ-GDP with μ = √T/z, and their exact level Φ(μ/2) − ½ is only "
            f"{num(lo_r)} to {num(hi_r)} times the target η on this grid: DP-SGD gets more "
            "noise than its η needs. The tight calibration gives exactly the target and is "
            "the honest comparison (the table's default)."
        )
    if why:
        appkit.explain("\n\n".join(why))

# ------------------------------------------------------------------ maths
with appkit.folded("The maths") as shown:
    if shown:
        prose("covariance", "maths")
appkit.finish(page)
