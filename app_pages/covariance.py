"""Does MIP beat DP-SGD when learning a covariance matrix? (Figure 2, Section 5.2)

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582.
The controls (:data:`CONTROLS`) build an :class:`~mipcore.experiments.covariance.ExperimentConfig`;
:func:`~mipcore.experiments.covariance.plan_experiment` (cached) resolves its noise levels and
:func:`~mipcore.experiments.covariance.run_experiment` runs it in its own process
(:func:`appkit.jobs.run`); :mod:`mipcore.plots.covariance_vega` draws the result. Every number
and verdict comes from the run's :class:`~mipcore.experiments.covariance.ExperimentResult`,
and every sentence with a number is a template of ``covariance.md``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import appkit
import appkit.jobs
from appkit import controls, fmt_num, settings
from appkit.controls import choice, multi, number, slider, span, toggle
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.experiments import covariance as cv
from mipcore.experiments.covariance import Claim, ClipRule, ExperimentResult
from mipcore.experiments.covariance import DpCalibration as DpCal
from mipcore.mechanism import MipCalibration as Mip
from mipcore.noise import COROLLARY14_CONSTANT, THEOREM9_CONSTANT
from mipcore.plots import covariance_vega as figs

PAGE = "covariance"
PRESET_LABELS = {"Quick": "Quick (n = 20 000, R = 3)", "Paper": "Paper (n = 500 000, R = 10)"}
DEFAULT_C = 5.0  # the fixed clipping norm offered first (the median rule gives ≈ 6 at d = 3)
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
MIP_NAME = {
    Mip.AS_PRINTED: "the printed Laplace radius",
    Mip.PAPER: "Theorem 9's density with the paper's constant",
    Mip.TIGHT: "the smallest certified noise",
}
DP_NAME = {DpCal.PAPER: "paper calibration", DpCal.TIGHT: "tight calibration"}
DP_OPTION = {DpCal.PAPER: "paper (Theorem 4 + analytic Gaussian)", DpCal.TIGHT: "tight (exact GDP)"}
CLIP_NAME = {
    ClipRule.INITIAL_MEDIAN: "median norm at A = 0",
    ClipRule.TRAJECTORY_MEDIAN: "median over the run",
    ClipRule.FIXED: "fixed C",
}
CLIP_PHRASE = {
    ClipRule.INITIAL_MEDIAN: "the median per-example gradient norm at A = 0",
    ClipRule.TRAJECTORY_MEDIAN: "the median gradient norm over the non-private trajectory",
    ClipRule.FIXED: "fixed by hand",
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
# The experiment's parameters by URL key (unique to this page, so that another page's ``n``
# or ``eta`` never leaks into the experiment), with their names in the preset note, and
# as the expander lays them out: two by two (a select's option must fit on a projector).
PARAM_NAMES = {
    "dim": "d", "size": "n", "rng": "seed", "halves": "B", "R": "R", "Ms": "M",
    "const": "constant", "radii": "MIP calibrations", "etas": "η range", "pts": "η points",
    "dlt": "δ", "cal": "DP-SGD calibrations", "T": "T", "lr": "learning rate", "clip": "clipping rule",
}  # fmt: skip
LAYOUT = (("dim", "size", "rng", "R"), ("Ms", "halves", "const", "radii"), ("etas", "pts", "dlt", "cal"), ("T", "lr", "clip"))  # fmt: skip


def widget_state(cfg: cv.ExperimentConfig) -> dict[str, Any]:
    """The parameter controls' values that reproduce a configuration (a preset)."""
    return {
        "dim": cfg.d, "size": cfg.n, "rng": cfg.seed, "halves": cfg.B, "R": cfg.R,
        "Ms": sorted(cfg.Ms), "etas": (cfg.etas[0], cfg.etas[-1]), "pts": len(cfg.etas),
        "dlt": float(round(math.log10(cfg.delta), 1)), "T": cfg.T, "lr": cfg.lr,
        "clip": cfg.clip_rule, "cal": list(cfg.dp_calibrations),
        "radii": list(cfg.mip_calibrations), "const": cfg.constant,
    }  # fmt: skip


PRESET_STATE = {name: widget_state(cfg) for name, cfg in cv.PRESETS.items()}
QUICK = PRESET_STATE["Quick"]  # the controls' defaults
CONTROLS = controls.table(
    choice("preset", "Preset", list(cv.PRESETS), "Quick", PRESET_LABELS.__getitem__, "Paper: d = 3, n = 500 000, B = 128, R = 10, M ∈ {2, 4, 6} (Section 5.2). Quick: the same with n = 20 000 and R = 3. Choosing a preset resets every parameter below to it.", radio=True),
    slider("dim", "dimension d (Σ is d × d)", 1, 8, QUICK["dim"], help="The paper uses d = 3: the release holds d² = 9 numbers."),
    number("size", "dataset size n", 100, 1_000_000, QUICK["size"], 10_000, help="Rows x_i ~ N(0, Σ); training uses a random half, m = n/2. Paper: 500 000."),
    number("rng", "seed", 0, 2**31 - 1, QUICK["rng"], 1, help="Σ = make_spd_matrix(d, random_state=seed); run r uses the seed sequence (seed, r) for data, splits and noise."),
    slider("R", "runs R (mean ± SEM)", 1, 30, QUICK["R"], help="The paper averages 10 runs."),
    multi("Ms", "moment orders M (MIP)", list(range(2, 9)), QUICK["Ms"], help="Corollary 10 needs σᵢᴹ ≥ E|θᵢ − Eθᵢ|ᴹ. Paper: 2, 4, 6."),
    slider("halves", "half-splits B (σᵢ, Algorithm 1)", 2, 512, QUICK["halves"], help="Paper: 128 random train/holdout splits."),
    choice("const", "noise constant", [COROLLARY14_CONSTANT, THEOREM9_CONSTANT], QUICK["const"], lambda v: "6.16 (Corollary 14, M ≥ 2)" if v == COROLLARY14_CONSTANT else "7.5 (Theorem 9)", "The paper's constant in c = (constant/η) to the power 1 + 2/M; the smallest certified noise does not use it."),
    multi("radii", "MIP calibrations", list(Mip), QUICK["radii"], MIP_OPTION.get, "Corollary 10 prints a Laplace radius; Theorem 9's density needs a Gamma(d², c) radius, which is certified in every dimension. The smallest certified noise uses c = −1/ln(1 − 2η). See “The maths”."),
    span("etas", "η range", 0.001, 0.499, QUICK["etas"], 0.001, "%.3f", "Paper: 0.01 to about 0.45 (it prints no grid)."),
    slider("pts", "η grid points", 2, 40, QUICK["pts"], help="Evenly spaced over the η range."),
    slider("dlt", "log₁₀ δ (paper calibration)", -12.0, -2.0, QUICK["dlt"], 0.5, "%.1f", say(PAGE, "dlt_help", delta=10.0 ** QUICK["dlt"])),
    multi("cal", "DP-SGD calibrations", list(DpCal), QUICK["cal"], DP_OPTION.get, "paper: η → ε by Theorem 4 at δ, then the analytic Gaussian mechanism; tight: the T steps are μ-GDP and η = Φ(μ/2) − 1/2. See “The maths”."),
    slider("T", "steps T (GD and DP-SGD)", 1, 200, QUICK["T"], help="Not stated in the paper; 20 by default."),
    slider("lr", "learning rate", 0.01, 0.5, QUICK["lr"], 0.01, "%.2f", "Gradient descent from A = 0 gives A after T steps = (1 − (1 − 2·lr)ᵀ)·S."),
    choice("clip", "DP-SGD clipping rule", list(ClipRule), QUICK["clip"], CLIP_NAME.get, "The paper: “the median of the unclipped gradients over the training procedure” (Abadi et al.'s advice). Here: the median per-example gradient norm at A = 0, the median over the non-private trajectory, or a fixed C."),
    number("C", "fixed clipping norm C", 0.01, 1e6, DEFAULT_C, 1.0, "%.3f", "C > 0: DP-SGD's noise is proportional to C (sensitivity 2C)."),
    multi("Mshow", "MIP curves for M =", (), (), help="One M keeps the chart readable; the verdicts below use every M of the run."),
    toggle("z0", "clipping-only run", False, "DP-SGD with z = 0: clipping, no noise (how much of its error is bias)."),
    toggle("logerr", "log y-axis", True, "The errors span orders of magnitude."),
    choice("vs", "Compare with DP-SGD calibrated by", list(DpCal), DpCal.TIGHT, DP_OPTION.get, "The tight calibration gives DP-SGD exactly the target η (the honest comparison); the paper's gives it only a fraction of it.", radio=True),
)  # fmt: skip


def duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{fmt_num(seconds, 2)} s"
    return f"{fmt_num(seconds / 60, 2)} min"


def stays(lo: float, hi: float) -> str:
    """ "between 0.39 and 0.45", or "at 0.395" when both read the same."""
    same = fmt_num(lo, 3) == fmt_num(hi, 3)
    return say(PAGE, "at", x=lo) if same else say(PAGE, "between", lo=lo, hi=hi)


def mip_name(cal: Mip, certified: bool) -> str:
    """The calibration's name in a sentence; an uncertified one says so."""
    return MIP_NAME[cal] if certified else say(PAGE, "uncertified", name=MIP_NAME[cal])


def where(r: cv.FailRange, with_M: bool) -> str:
    """Where a claim fails: "η 0.01–0.05" or "η = 0.01", after "M = 2: " if ``with_M``."""
    at = say(PAGE, "etas", lo=r.lo, hi=r.hi) if r.lo < r.hi else say(PAGE, "eta", lo=r.lo)
    return say(PAGE, "at_m", M=r.M, where=at) if with_M else at


def where_text(v: cv.Verdict) -> str:
    """A table cell: ✅/❌ with the word (some fonts have no emoji) and where it fails."""
    mark = "✅ holds" if v.holds else "❌ fails"
    if v.claim is Claim.DP_NEVER_BELOW_1:
        if v.holds or not v.where:
            return say(PAGE, "cell_least", mark=mark, least=v.dp_min or 0.0)
        more = " …" if len(v.where) > 1 else ""
        at = where(v.where[0], False)
        return say(PAGE, "cell_below", mark=mark, where=at, more=more, least=v.dp_min or 0.0)
    if v.claim is Claim.MIP_BELOW_1_FROM_02:
        starts = [o for o in v.onsets if o.eta is not None]
        if not starts:
            return say(PAGE, "cell_never", mark=mark)
        best = min(starts, key=lambda o: o.eta or 0.0)
        return say(PAGE, "cell_onset", mark=mark, eta=best.eta or 0.0, M=best.M)
    if not v.checked:
        return prose_text(PAGE, "cell_not_judged")
    if v.holds:
        return say(PAGE, "cell_wins", mark=mark, checked=v.checked)
    parts = "; ".join(where(r, True) for r in v.where[:2]) + ("; …" if len(v.where) > 2 else "")
    return say(PAGE, "cell_loses", mark=mark, failed=v.failed, checked=v.checked, where=parts)


def request_run(config: cv.ExperimentConfig) -> None:
    st.session_state["_cov_requested"] = config
    st.session_state.pop("_cov_stopped", None)


def stop_run(config: cv.ExperimentConfig) -> None:
    st.session_state["_cov_stopped"] = config
    st.session_state.pop("_cov_requested", None)


def parameters() -> tuple[str, dict[str, Any]]:
    """The preset and the parameter controls (a preset change resets them), and the note
    beside the preset on what differs from it: (preset, values by URL key)."""
    p_col, p_note = st.columns([1, 2], vertical_alignment="center")
    with p_col:
        preset = controls.draw(CONTROLS["preset"])
    # A preset change resets the parameter widgets (created below, so their values may be set now).
    if st.session_state.get("_cov_preset_seen") not in (None, preset):
        for k, v in PRESET_STATE[preset].items():
            st.session_state[k] = list(v) if isinstance(v, list) else v
    st.session_state["_cov_preset_seen"] = preset
    base = PRESET_STATE[preset]
    values: dict[str, Any] = {}
    with st.expander("All parameters", expanded=False):
        c1, c2 = st.columns(2)
        c3, c4 = st.columns(2)
        for column, keys in zip((c1, c2, c3, c4), LAYOUT, strict=True):
            with column:
                values |= {k: controls.draw(CONTROLS[k], default=base[k]) for k in keys}
        if values["clip"] is ClipRule.FIXED:
            with c4:
                values["C"] = float(controls.draw(CONTROLS["C"]))

    def listed(v: Any) -> Any:
        return sorted(v) if isinstance(v, list) else v

    changed = [name for k, name in PARAM_NAMES.items() if listed(values[k]) != listed(base[k])]
    changed += ["C"] if "C" in values else []
    what = say(PAGE, "preset_changed", preset=preset, changed=", ".join(changed))
    p_note.caption(
        say(
            PAGE,
            "preset_note",
            settings=what if changed else say(PAGE, "preset_same", preset=preset),
        )
    )
    return preset, values


def configuration(v: dict[str, Any]) -> cv.ExperimentConfig | None:
    """The experiment the controls describe, or None after a sentence saying why none runs."""
    delta = float(10.0 ** v["dlt"])
    lo, hi = v["etas"]
    etas = (
        tuple(float(x) for x in np.linspace(round(lo, 6), round(hi, 6), int(v["pts"])))
        if hi > lo
        else (float(round(lo, 6)),)
    )
    if not v["Ms"]:
        st.warning(prose_text(PAGE, "no_m"), icon="⚠️")
        return None
    if DpCal.PAPER in v["cal"] and etas[0] < delta / 2:
        st.warning(say(PAGE, "below_delta", half_delta=delta / 2, start=etas[0]), icon="⚠️")
        return None
    return cv.ExperimentConfig(
        d=int(v["dim"]), n=int(v["size"]), seed=int(v["rng"]), B=int(v["halves"]), R=int(v["R"]),
        Ms=tuple(sorted(v["Ms"])), etas=etas, delta=delta, T=int(v["T"]),
        lr=float(round(v["lr"], 4)), clip_rule=v["clip"], clip_value=v.get("C"),
        dp_calibrations=tuple(c for c in DpCal if c in v["cal"]),
        mip_calibrations=tuple(c for c in Mip if c in v["radii"]), constant=float(v["const"]),
    )  # fmt: skip


def run(config: cv.ExperimentConfig, plan: cv.Plan) -> ExperimentResult | None:
    """Run the plan in a job when it is cheap or asked for (with a Stop button), else say
    what it costs beside a Run button; the result, or None."""
    work = cv.work(config)
    ceiling = cv.WORK_CEILING * settings.WORK_LIMIT
    too_big = work.units > ceiling
    seconds = cv.estimate_seconds(work, appkit.cached(cv.measure_speed))
    estimate = duration(seconds)
    done: set[cv.ExperimentConfig] = st.session_state.setdefault("_cov_done", set())
    if len(done) > 32:  # configurations this session ran (their results are fetched again)
        done.clear()
    stopped = st.session_state.get("_cov_stopped") == config
    wanted = st.session_state.get("_cov_requested") == config or config in done
    auto = config == cv.PRESETS["Quick"] or seconds <= cv.AUTO_RUN_SECONDS
    K = 1 + len(config.dp_calibrations) * len(config.etas)
    s = "s" if config.R > 1 else ""
    size = say(PAGE, "size", R=config.R, s=s, B=config.B, T=config.T, K=K, m=config.m)
    # The note and the button keep their places whether the run waits or computes (Run and its
    # note, or Stop and the progress), and Run and Stop are one widget key: an element a
    # running script has replaced by another key stays on the page as a stale copy until the
    # run ends, and collapsed under a presenter's mouse as they pressed Stop, moving the
    # button away from the pointer (the click was lost).
    note, button = st.empty(), st.empty()
    if too_big or stopped or not (auto or wanted):
        if too_big:
            note.warning(say(PAGE, "too_big", ratio=work.units / ceiling, size=size), icon="🚧")
        elif stopped:
            note.info(prose_text(PAGE, "stopped"), icon="⏹️")
        else:
            wait = say(PAGE, "wait", duration=estimate, size=size, auto=cv.AUTO_RUN_SECONDS)
            note.info(wait, icon="⏱️")
        label = say(PAGE, "run_button", duration=estimate)
        button.button(
            label,
            key="run",
            type="primary",
            icon=":material/play_arrow:",
            disabled=too_big,
            on_click=request_run,
            args=(config,),
        )
        return None
    button.button("Stop", key="run", icon=":material/stop:", on_click=stop_run, args=(config,))
    result = None
    try:
        with appkit.guard("This experiment"):
            label = say(PAGE, "job", duration=estimate)
            # quick: the Quick preset and runs under AUTO_RUN_SECONDS
            result = appkit.jobs.run(cv.run_experiment, plan, label=label, quick=auto)
            done.add(config)
    except appkit.jobs.JobStopped:
        st.info(prose_text(PAGE, "job_stopped"))
    button.empty()
    return result


def takeaway(result: ExperimentResult, vs: DpCal | None, certified: dict[Mip, bool]) -> None:
    """What the run shows, against DP-SGD's default calibration ``vs``."""
    mips = [m for m in MIP_ORDER if m in result.config.mip_calibrations]
    bias = result.bias(vs) if vs is not None else None
    judged = [(m, result.verdict(Claim.MIP_BEATS_DP_FROM_01, mip=m, dp=vs)) for m in mips]
    wins = [(m, v) for m, v in judged if v is not None and v.checked]
    if bias is None:
        appkit.takeaway(prose_text(PAGE, "takeaway_no_dp"))
        return
    error = stays(bias.error_min, bias.error_max)
    if (vs is None or not wins) and mips:
        appkit.takeaway(say(PAGE, "takeaway_beyond", stays=error))
        return
    if vs is None or not wins:
        appkit.takeaway(say(PAGE, "takeaway_no_mip", stays=error))
        return
    beats = "; ".join(
        say(PAGE, "wins", passed=v.passed, checked=v.checked, name=mip_name(m, certified[m]))
        for m, v in wins
    )
    dp = DP_NAME[vs]
    appkit.takeaway(say(PAGE, "takeaway", dp=dp, wins=beats, stays=error, share=bias.share_min))


def curves(result: ExperimentResult) -> list[int]:
    """The view controls and the chart, one tab per zoom (only the open one is built); the M
    shown."""
    cfg = result.config
    grid_lo, grid_hi = float(min(cfg.etas)), float(max(cfg.etas))
    first = [4] if 4 in cfg.Ms else [cfg.Ms[0]]
    v1, v2, v3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    if "Mshow" in st.session_state:  # keep the M shown that this run still has
        kept = [M for M in st.session_state["Mshow"] if M in cfg.Ms]
        if kept != st.session_state["Mshow"]:
            st.session_state["Mshow"] = kept or first
    with v1:
        shown_M = controls.draw(CONTROLS["Mshow"], options=list(cfg.Ms), default=first)
    with v2:
        clip_only = controls.draw(CONTROLS["z0"])
    with v3:
        log_y = controls.draw(CONTROLS["logerr"])
    st.caption(prose_text(PAGE, "zooms"))
    # Tabs that track state are lazy: only the open tab's chart is built and sent.
    tabs = st.tabs([z[0] for z in ZOOMS], key="zoom", bind="query-params")
    for tab, (title, (lo, hi), drop_M, slug, zoom_note) in zip(tabs, ZOOMS, strict=True):
        if tab.open is False:
            continue
        with tab:
            view = dict(Ms=tuple(shown_M), clip_only=clip_only, eta_range=(lo, hi))
            frame = appkit.cached(figs.curve_frame, result, **view, exclude_M=drop_M)
            if frame.empty:
                st.info(prose_text(PAGE, "empty_zoom"), icon="ℹ️")
                continue
            notes = [zoom_note] if zoom_note else []
            if not shown_M:
                notes.append(prose_text(PAGE, "no_m_shown"))
            if log_y and figs.band_clipped(frame):
                notes.append(prose_text(PAGE, "band_floor"))
            x_range = (max(lo or grid_lo, grid_lo), min(hi or grid_hi, grid_hi))
            title = f"Relative error vs η ({title})"
            look = dict(log_y=log_y, x_range=x_range, title=title)
            fig, table = appkit.cached(figs.error_vega, frame, **look)
            caption = " ".join(notes)
            appkit.chart(fig, table, f"covariance_{slug}", key=f"cov_chart_{slug}", caption=caption)
    return shown_M


def lowest(
    result: ExperimentResult, shown_M: list[int], vs: DpCal | None, certified: dict[Mip, bool]
) -> None:
    """The lowest MIP curve drawn at the reference η, beside DP-SGD."""
    drawn = [s for s in result.scales if s.M in shown_M]
    bias = result.bias(vs) if vs is not None else None
    if not drawn or vs is None or bias is None:
        return
    best = min(drawn, key=lambda s: s.error_ref)
    name = mip_name(best.calibration, certified[best.calibration])
    error = stays(bias.error_min, bias.error_max)
    eta, M, dp = best.eta_ref, best.M, DP_NAME[vs]
    appkit.takeaway(
        say(PAGE, "lowest", eta=eta, M=M, name=name, error=best.error_ref, dp=dp, stays=error)
    )


def claims(result: ExperimentResult, vs: DpCal | None, certified: dict[Mip, bool]) -> None:
    """The paper's four claims judged on this run: one row each, a column per calibration."""
    cfg = result.config
    with st.container(border=True):
        st.subheader("The paper's claims, checked on this run")
        if len(cfg.dp_calibrations) > 1:
            vs = controls.draw(CONTROLS["vs"], options=list(cfg.dp_calibrations))
        if not cfg.dp_calibrations or not cfg.mip_calibrations:
            st.warning(prose_text(PAGE, "no_verdicts"), icon="⚠️")
        grid = result.grid(vs)
        if not grid:
            return
        drawn = {c for _, cells in grid for c, _ in cells}
        header = {
            m: "DP-SGD"
            if m is None
            else MIP_COLUMN[m] + ("" if certified[m] else " — not certified")
            for m in (*MIP_ORDER, None)
            if m in drawn
        }
        rows = [
            {"Claim": CLAIM_TEXT[claim], **{header[m]: where_text(v) for m, v in cells}}
            for claim, cells in grid
        ]
        table = pd.DataFrame(rows, columns=["Claim", *header.values()]).fillna("")
        appkit.tables.table(table)
        Ms, lo, hi = ", ".join(map(str, cfg.Ms)), min(cfg.etas), max(cfg.etas)
        st.caption(
            say(PAGE, "claims_caption", d=cfg.d, n=cfg.n, B=cfg.B, R=cfg.R, Ms=Ms, lo=lo, hi=hi)
        )


def why_noise(result: ExperimentResult, certified: dict[Mip, bool]) -> str:
    """The three calibrations of MIP's noise, with this run's numbers."""
    cfg = result.config
    text = [say(PAGE, "why_calibrations", p=cfg.p, s="s" if cfg.p > 1 else "")]
    paper, tight = (best_scale(result, cal) for cal in (Mip.PAPER, Mip.TIGHT))
    if paper is not None and paper.certified_ref is not None:
        c, eta, M, level, error = (
            paper.c_ref,
            paper.eta_ref,
            paper.M,
            paper.certified_ref,
            paper.error_ref,
        )
        text.append(
            say(
                PAGE,
                "why_paper",
                constant=cfg.constant,
                eta=eta,
                M=M,
                c=c,
                certified=level,
                error=error,
            )
        )
    if tight is not None:
        less = say(PAGE, "why_less", times=paper.c_ref / tight.c_ref) if paper else ""
        c, eta, error = tight.c_ref, tight.eta_ref, tight.error_ref
        text.append(say(PAGE, "why_tight", c=c, eta=eta, less=less, error=error, M=tight.M))
    if certified[Mip.AS_PRINTED] and Mip.AS_PRINTED in cfg.mip_calibrations:
        text.append(say(PAGE, "why_printed", p=cfg.p))
    elif Mip.AS_PRINTED in cfg.mip_calibrations:
        text.append(say(PAGE, "why_printed_not", p=cfg.p, p1=cfg.p - 1))
    return " ".join(text)


def best_scale(result: ExperimentResult, calibration: Mip) -> cv.MipScale | None:
    """The M whose MIP error at the reference η is least, for one calibration."""
    scales = [x for x in result.scales if x.calibration is calibration]
    return min(scales, key=lambda x: x.error_ref, default=None)


def why_error(result: ExperimentResult) -> str | None:
    """Why MIP's error is what it is (with the paper's constant)."""
    cfg, paper = result.config, best_scale(result, Mip.PAPER)
    if paper is None:
        return None
    text = [say(PAGE, "why_error", raw=result.raw_error)]
    if paper.eta_hi > paper.eta_lo:
        c, error = paper.c_lo / paper.c_hi, paper.error_lo / paper.error_hi
        text.append(
            say(
                PAGE,
                "why_error_range",
                lo=paper.eta_lo,
                hi=paper.eta_hi,
                M=paper.M,
                c=c,
                error=error,
            )
        )
    if paper.n_for_error_1 is not None:
        text.append(say(PAGE, "why_error_n", eta=paper.eta_ref, n1=paper.n_for_error_1, n=cfg.n))
    return " ".join(text)


def why_radius(result: ExperimentResult, certified: dict[Mip, bool]) -> str | None:
    """The two radius laws, expected and observed."""
    rr = result.radius_ratio
    if rr is None:
        return None
    mark = "" if certified[Mip.AS_PRINTED] else " (not certified)"
    text = say(PAGE, "why_radius", p=rr.expected, not_certified=mark)
    if rr.observed is None:
        return text + " " + prose_text(PAGE, "why_radius_none")
    per_M = "; ".join(say(PAGE, "ratio_m", M=M, x=x) for M, x in rr.per_M)
    return text + " " + say(PAGE, "why_radius_observed", observed=rr.observed, per_M=per_M)


def why_clipping(result: ExperimentResult) -> str | None:
    """How much of DP-SGD's error is clipping bias, for each calibration."""
    cfg = result.config
    if not result.clipping:
        return None
    clip_only = result.clipping[0].clip_only_error
    rule = CLIP_PHRASE[cfg.clip_rule]
    lines = [
        say(
            PAGE,
            "why_clipping",
            raw=result.raw_error,
            C=result.clip_norm,
            rule=rule,
            clip_only=clip_only,
        )
    ]
    for c in result.clipping:
        if c.error >= c.clip_only_error:
            share = say(
                PAGE,
                "clip_share",
                share=100 * c.clip_only_error / c.error,
                noise=c.error - c.clip_only_error,
            )
        else:
            share = say(PAGE, "clip_below", by=c.clip_only_error - c.error)
        lo, hi = 100 * c.share_min, 100 * c.share_max
        same = fmt_num(lo, 3) == fmt_num(hi, 3)
        spread = say(PAGE, "clip_every", lo=lo) if same else say(PAGE, "clip_from", lo=lo, hi=hi)
        lines.append(
            say(
                PAGE,
                "clip_line",
                dp=DP_NAME[c.calibration],
                eta=c.eta,
                z=c.z,
                error=c.error,
                clip_only=c.clip_only_error,
                share=share,
                spread=spread,
                m=cfg.m,
                step=c.step_sd,
                rel=100 * c.step_sd_rel,
            )
        )
    return "\n".join(lines)


def why(result: ExperimentResult, certified: dict[Mip, bool]) -> None:
    """The longer explanation: the calibrations, MIP's error, the radius laws, clipping bias
    and the paper's DP-SGD calibration."""
    cfg = result.config
    parts = [why_noise(result, certified), why_error(result), why_radius(result, certified)]
    parts.append(why_clipping(result))
    if DpCal.PAPER in cfg.dp_calibrations:
        lo, hi = result.plan.dp_noise(DpCal.PAPER).ratio_range
        parts.append(say(PAGE, "why_dp_paper", delta=cfg.delta, lo=lo, hi=hi))
    appkit.explain("\n\n".join(x for x in parts if x is not None))


def results(result: ExperimentResult, page: appkit.Page, started: float) -> None:
    """Everything a finished run shows: takeaways, the chart, the claims, why."""
    cfg = result.config
    vs = (
        DpCal.TIGHT if DpCal.TIGHT in cfg.dp_calibrations else next(iter(cfg.dp_calibrations), None)
    )
    # certified_level(...) is not None for every M and η of the grid (the plan's MipNoise):
    # only then does the page call a release η-MIP
    certified = {m: all(x.is_certified for x in result.plan.mip if x.calibration is m) for m in Mip}
    takeaway(result, vs, certified)
    when = "Computed" if result.finished_at >= started else "Computed earlier"
    took, s, etas = duration(result.seconds), "s" if cfg.R > 1 else "", len(cfg.etas)
    st.caption(
        say(
            PAGE,
            "computed",
            when=when,
            took=took,
            R=cfg.R,
            s=s,
            etas=etas,
            results=len(result.runs),
        )
    )
    page.downloads.append(("covariance_runs", "every run of the experiment", result.runs))
    shown_M = curves(result)
    lowest(result, shown_M, vs, certified)
    claims(result, vs, certified)
    why(result, certified)


page = appkit.page(PAGE)
started = time.time()
prose(PAGE, "intro")
preset, values = parameters()
config = configuration(values)
plan = None
if config is not None:
    with appkit.guard("This experiment"):
        plan = appkit.cached(cv.plan_experiment, config)
result = run(config, plan) if config is not None and plan is not None else None
if result is not None:
    results(result, page, started)
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")
appkit.finish(page)
