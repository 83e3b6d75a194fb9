"""Synthetic covariance (Figure 2): learning a covariance matrix privately, MIP vs DP-SGD.

Section 5.2 of ``000_ece03c98c31c7b12.txt`` (Figure 2 and its caption), run by
:func:`mipcore.lessons.figure2.run_experiment`. The paper's reading of the figure is evaluated
on the computed results by :func:`mipcore.lessons.figure2.paper_claims`, never restated; the
explanations under it are computed from the same results.
"""

from __future__ import annotations

import math
import time

import numpy as np
import streamlit as st

import appkit
from appkit import fmt_num
from appkit.charts import csv_bytes
from mipcore import covariance_gd
from mipcore.lessons import figure2 as cv
from mipcore.mechanism import RADIUS_VARIANTS
from mipcore.noise import COROLLARY14_CONSTANT, THEOREM9_CONSTANT
from mipcore.plots import covariance_figs as figs

PRESET_NAMES = ["Quick", "Paper"]
DEFAULT_PRESET = "Quick"
AUTO_SECONDS = 4.0  # configurations estimated to finish faster than this run on every change
# Cost model (seconds), fitted to timings of run_experiment on the 2-core development machine
# (Quick preset 0.25-0.5 s, Paper 19-32 s depending on load): per run, T full-batch DP-SGD
# steps over the m = n/2 training rows for K = 1 + #calibrations x #eta stacked trajectories
# (a per-row cost plus a per-row-and-trajectory cost, growing with the d^2 entries of A),
# plus the B half-splits. The page rescales it by what it measures on real runs (see _run).
STEP_ROW_SECONDS = 2.6e-7  # per training row and DP-SGD step, at d = 3
STEP_ROW_TRAJ_SECONDS = 1.25e-8  # per row, step and trajectory, at d = 3
SPLIT_ROW_SECONDS = 2e-9  # per row and half-split, at d = 3
FIXED_SECONDS = 0.1
SESSION_RESULTS = 8  # results of this many configurations are kept per session
ZOOMS = [  # (tab, (lo, hi), MIP M's left out, file name, note): our reading of the paper's panels
    ("All η", (None, None), (), "all", None),
    (
        "η ≤ 0.15",
        (None, 0.15),
        (2,),
        "zoom_low",
        "Without MIP M = 2, as in the paper's first panel (its error is very large at small η).",
    ),
    ("0.1 ≤ η ≤ 0.3", (0.1, 0.3), (), "zoom_mid", None),
    ("η ≥ 0.2", (0.2, None), (), "zoom_high", None),
]
CLIP_NAMES = {
    "initial_median": "median norm at A = 0",
    "trajectory_median": "median over the run",
    "fixed": "fixed C",
}
RADIUS_SHORT = {"gamma": "Gamma (Thm 9)", "as_printed": "Laplace (printed)"}
CAL_NAMES = {"paper": "paper (Thm 4 + Gaussian)", "tight": "tight (μ-GDP)"}
CONSTANTS = [COROLLARY14_CONSTANT, THEOREM9_CONSTANT]
PARAM_NAMES = {
    "dim": "d",
    "size": "n",
    "rng": "seed",
    "halves": "B",
    "R": "R",
    "Ms": "M",
    "const": "constant",
    "radii": "radius variants",
    "etas": "η range",
    "pts": "η points",
    "dlt": "δ",
    "cal": "calibrations",
    "T": "T",
    "lr": "learning rate",
    "clip": "clipping rule",
    "C": "C",
}


def _widget_state(cfg: cv.ExperimentConfig) -> dict:
    """The parameter widgets' values that reproduce a preset (keys are the URL keys).

    The keys are unique to this page on purpose: a widget value lives in the session under
    its key, so a key shared with another page (``n``, ``d``, ``seed``, ``B`` on "Wrap a
    statistic", ``eta``, ``c`` on "Noise vs η") would carry that page's setting into this
    experiment when the user comes back.
    """
    etas = list(cfg.etas)
    return {
        "dim": cfg.d,
        "size": cfg.n,
        "rng": cfg.seed,
        "halves": cfg.B,
        "R": cfg.R,
        "Ms": sorted(cfg.Ms),
        "etas": (etas[0], etas[-1]),
        "pts": len(etas),
        "dlt": float(round(math.log10(cfg.delta), 1)),
        "T": cfg.T,
        "lr": cfg.lr,
        "clip": cfg.clip_rule,
        "C": float(cfg.clip_value or 0.0),
        "cal": list(cfg.calibrations),
        "radii": list(cfg.radii),
        "const": cfg.constant,
    }


PRESET_STATE = {name: _widget_state(cv.PRESETS[name]) for name in PRESET_NAMES}


def _eta_grid(lo: float, hi: float, pts: int) -> tuple[float, ...]:
    lo, hi = float(round(lo, 6)), float(round(hi, 6))
    if hi <= lo or pts < 2:
        return (lo,)
    return tuple(float(x) for x in np.linspace(lo, hi, pts))


def _trajectories(cfg: cv.ExperimentConfig) -> int:
    return 1 + len(cfg.calibrations) * len(cfg.etas)


def _model_seconds(cfg: cv.ExperimentConfig) -> float:
    """The cost model's time for ``cfg`` on the development machine (see the constants)."""
    m, size = cfg.n // 2, (1 + cfg.d * cfg.d / 9) / 2  # size = 1 at the paper's d = 3
    per_run = (
        m * cfg.T * (STEP_ROW_SECONDS + STEP_ROW_TRAJ_SECONDS * _trajectories(cfg)) * size
        + m * cfg.B * SPLIT_ROW_SECONDS * cfg.d * cfg.d / 9
    )
    return FIXED_SECONDS + cfg.R * per_run


def _estimate_seconds(cfg: cv.ExperimentConfig) -> float:
    """The model's time, rescaled by this machine's speed as measured on this session's runs."""
    return _model_seconds(cfg) * st.session_state.get("_cov_speed", 1.0)


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{fmt_num(seconds, 2)} s"
    return f"{fmt_num(seconds / 60, 2)} min"


# ------------------------------------------------------------------ the cached experiment
def _compute(config: dict, _estimate: str = "", _calls: list | None = None) -> dict:
    """Run the experiment for ``config`` (an ExperimentConfig as a dict) with a progress bar.

    Cached by :func:`_run` with ``st.cache_data`` on the full config; arguments starting
    with "_" are not part of the key. The progress bar is created *inside*: st.cache_data
    records the elements a cached function draws and replays them on a hit, which fails
    for a bar created outside (CacheReplayClosureError); replayed, this one ends empty.
    """
    if _calls is not None:
        _calls.append(1)  # runs only on a miss: how the page tells a fresh run from a hit
    cfg = cv.ExperimentConfig(**config)
    bar = st.empty()
    bar.progress(0.0, text=f"Running the experiment (estimated {_estimate})…")

    def progress(fraction: float, message: str) -> None:
        bar.progress(
            min(max(fraction, 0.0), 1.0),
            text=f"Running the experiment: {message} (estimated {_estimate} in all)…",
        )

    t0 = time.perf_counter()
    try:
        results = cv.run_experiment(cfg, progress=progress)
    finally:
        bar.empty()
    seconds = time.perf_counter() - t0
    summary = cv.summarize(results)
    return dict(
        results=results,
        summary=summary,
        seconds=seconds,
        verdicts=cv.paper_claims(summary, cfg.Ms, cfg.radii, cfg.calibrations),
        sigma_norm=float(np.linalg.norm(covariance_gd.make_sigma(cfg.d, cfg.seed))),
    )


def _run(cfg: cv.ExperimentConfig, estimate: float) -> dict:
    """Run (or fetch from the cache) with a progress bar; re-measure the cost rate."""
    # Decorated here, not at module level: a page script runs top to bottom on every rerun,
    # and a module-level decorator would re-read and hash _compute's source each time. The
    # cache is keyed by the function's source and name, so it is the same cache every time.
    cached = st.cache_data(show_spinner=False, max_entries=16)(_compute)
    calls: list[int] = []
    payload = cached(cfg.as_dict(), _estimate=_duration(estimate), _calls=calls)
    fresh = bool(calls)
    if fresh and payload["seconds"] > 3.0:  # long enough for fixed costs not to matter
        st.session_state["_cov_speed"] = float(
            np.clip(payload["seconds"] / _model_seconds(cfg), 0.2, 5.0)
        )
    return dict(payload, fresh=fresh)


# ------------------------------------------------------------------ reading the results
def _reading(cfg: cv.ExperimentConfig, payload: dict) -> figs.Reading:
    """The verdict table and explanations of a result, built once and kept with it."""
    if "reading" not in payload:
        payload["reading"] = figs.reading(
            cfg, payload["summary"], payload["results"], payload["verdicts"], payload["sigma_norm"]
        )
        payload["charts"] = {}
    return payload["reading"]


def _chart(payload: dict, cfg: cv.ExperimentConfig, zoom, log_y: bool, shown: tuple):
    """(figure, its rows, caption) of one zoom tab; built once per view and kept."""
    charts = payload["charts"]
    key = (zoom[3], log_y, shown)
    if key not in charts:
        title, (lo, hi), drop_M, _slug, _note = zoom
        frame = figs.zoom_frame(
            payload["summary"], labels=shown, eta_range=(lo, hi), exclude_M=drop_M
        )
        if frame.empty:
            charts[key] = (None, frame, None)
        else:
            g_lo, g_hi = float(min(cfg.etas)), float(max(cfg.etas))
            x_range = (
                max(lo if lo is not None else g_lo, g_lo),
                min(hi if hi is not None else g_hi, g_hi),
            )
            notes = [zoom[4]] if zoom[4] else []
            if log_y and figs.band_clipped(frame):
                notes.append(
                    "Where mean − SEM ≤ 0 the band is drawn down to a tenth of the mean "
                    "(a log axis cannot show 0)."
                )
            fig = figs.error_figure(
                frame, log_y=log_y, x_range=x_range, title=f"Relative error vs η ({title})"
            )
            if len(charts) > 32:
                charts.clear()
            charts[key] = (fig, frame, " ".join(notes) or None)
    return charts[key]


# ================================================================== page
page = appkit.page("covariance")
st.markdown(
    "Section 5.2 of the paper learns a covariance matrix Σ from n samples by gradient descent "
    "and makes the result private in two ways: **MIP** adds noise scaled to how much the "
    "learned matrix varies over random halves of the data (Corollary 10), **DP-SGD** clips "
    "every per-example gradient and adds Gaussian noise calibrated to the same privacy level η. "
    "The chart shows the relative error ‖A − Σ‖_F / ‖Σ‖_F of each against η; the box below it "
    "checks the paper's reading of its Figure 2 on *this* run."
)

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
# A preset change resets the parameter widgets; they are created below, so in this run their
# session values may still be set (appkit's url_* widgets have no on_change hook).
if st.session_state.get("_cov_preset_seen") not in (None, preset):
    for k, v in PRESET_STATE[preset].items():
        st.session_state[k] = list(v) if isinstance(v, list) else v
st.session_state["_cov_preset_seen"] = preset
base = PRESET_STATE[preset]

with st.expander("All parameters", expanded=False):
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        d = appkit.url_slider(
            "dimension d (Σ is d × d)",
            "dim",
            min_value=1,
            max_value=8,
            default=base["dim"],
            help="The paper uses d = 3 (A has 9 entries).",
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
            help="Σ = make_spd_matrix(d, random_state=seed); run r uses the "
            "seed sequence (seed, r) for data, splits and noise.",
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
            help="Corollary 10 needs σ_i^M ≥ E|θ_i − Eθ_i|^M. Paper: 2, 4, 6.",
        )
        B = appkit.url_slider(
            "half-splits B (σ_i, Algorithm 1)",
            "halves",
            min_value=2,
            max_value=512,
            default=base["halves"],
            help="Paper: 128 random train/holdout splits.",
        )
        const = appkit.url_select(
            "noise constant",
            "const",
            CONSTANTS,
            default=base["const"],
            format_func=lambda v: (
                "6.16 (Corollary 14, M ≥ 2)" if v == COROLLARY14_CONSTANT else "7.5 (Theorem 9)"
            ),
        )
        radii = appkit.url_multiselect(
            "MIP radius variants",
            "radii",
            list(RADIUS_VARIANTS),
            default=base["radii"],
            format_func=RADIUS_SHORT.get,
            help="Corollary 10 prints r ~ Laplace(c); in d² > 1 "
            "dimensions the density Theorem 9 needs has "
            "r ~ Gamma(d², c) (correct). See “The maths”.",
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
            help="The paper does not state δ; 1e-6 by default. Theorem 4 needs η ≥ δ/2.",
        )
        cal = appkit.url_multiselect(
            "DP-SGD calibrations",
            "cal",
            list(cv.CALIBRATIONS),
            default=base["cal"],
            format_func=CAL_NAMES.get,
            help="paper: η → ε by Theorem 4 at δ, then the analytic "
            "Gaussian mechanism; tight: the T steps are μ-GDP and "
            "η = Φ(μ/2) − 1/2. See “The maths”.",
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
            help="GD on ‖A − S‖²_F from A = 0 gives A_T = (1 − (1 − 2 lr)^T) S.",
        )
        clip = appkit.url_select(
            "DP-SGD clipping rule",
            "clip",
            list(cv.CLIP_RULES),
            default=base["clip"],
            format_func=CLIP_NAMES.get,
            help="The paper: “the median of the unclipped gradients over "
            "the training procedure” (Abadi et al.'s advice). Here: "
            "the median per-example gradient norm at A = 0, the median "
            "over the non-private GD trajectory, or a fixed C.",
        )
        clip_value = None
        if clip == "fixed":
            cv_in = appkit.url_number(
                "fixed clipping norm C (0 = not set)",
                "C",
                min_value=0.0,
                max_value=1e6,
                default=base["C"],
                step=1.0,
                format="%.3f",
            )
            clip_value = float(cv_in) if cv_in > 0 else None

config, payload = None, None
with appkit.guard("This experiment"):
    config = cv.ExperimentConfig(
        d=int(d),
        n=int(n),
        seed=int(seed),
        B=int(B),
        R=int(R),
        Ms=tuple(sorted(Ms)),
        etas=_eta_grid(eta_lo, eta_hi, int(pts)),
        delta=float(10.0**dlt),
        T=int(T),
        lr=float(round(lr, 4)),
        clip_rule=clip,
        clip_value=clip_value,
        calibrations=tuple(c for c in cv.CALIBRATIONS if c in cal),
        radii=tuple(r for r in RADIUS_VARIANTS if r in radii),
        constant=float(const),
    ).validated()

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
    k
    for k, v in state_now.items()
    if (sorted(v) if isinstance(v, list) else v)
    != (sorted(base[k]) if isinstance(base[k], list) else base[k])
]
if clip == "fixed":
    changed.append("C")
p_note.caption(
    (
        f"These are the **{preset}** preset's settings."
        if not changed
        else f"The **{preset}** preset with changes to: {', '.join(PARAM_NAMES[k] for k in changed)}."
    )
    + " The paper does not state δ, T, the learning rate or its η grid; these defaults are ours "
    "(see “All parameters”)."
)

# ------------------------------------------------------------------ run (or not)
if config is not None:
    key = repr(sorted(config.as_dict().items()))
    store = st.session_state.setdefault("_cov_store", {})
    payload = store.get(key)
    if payload is None:
        estimate = _estimate_seconds(config)
        work = (
            f"{config.R} run{'s' if config.R > 1 else ''} × ({config.B} half-splits + "
            f"{config.T} DP-SGD steps × {_trajectories(config)} trajectories) over "
            f"{config.n // 2:,} training rows"
        )
        auto = config == cv.PRESETS["Quick"] or estimate <= AUTO_SECONDS
        ask = st.empty()  # the offer to run; cleared once the result is there
        clicked = False
        if not auto:
            with ask.container():
                st.info(
                    f"This configuration takes about **{_duration(estimate)}** on this "
                    f"machine ({work}), so it runs only when you ask. Changing a parameter "
                    "never starts a long run by itself; the Quick preset and configurations "
                    f"estimated under {fmt_num(AUTO_SECONDS)} s run automatically.",
                    icon="⏱️",
                )
                clicked = st.button(
                    f"Run ({_duration(estimate)})",
                    key="run",
                    type="primary",
                    icon=":material/play_arrow:",
                )
        if auto or clicked:
            with appkit.guard("This experiment"):
                payload = _run(config, estimate)
                store[key] = payload
                while len(store) > SESSION_RESULTS:
                    store.pop(next(iter(store)))
                ask.empty()

# ------------------------------------------------------------------ results
if payload is not None:
    results, summary, verdicts = payload["results"], payload["summary"], payload["verdicts"]
    reading = _reading(config, payload)  # computed once per result, then kept with it
    labels = reading.labels
    grid_lo, grid_hi = float(min(config.etas)), float(max(config.etas))
    st.caption(
        f"{'Computed' if payload['fresh'] else 'Computed earlier'} in "
        f"{_duration(payload['seconds'])}: {config.R} run{'s' if config.R > 1 else ''}, "
        f"{len(config.etas)} values of η, {len(results):,} results. Shaded bands: ±1 "
        "standard error of the mean over the runs."
    )

    v1, v2 = st.columns([1, 4], vertical_alignment="bottom")
    with v1:
        log_y = appkit.url_toggle(
            "log y-axis",
            "logerr",
            default=True,
            help="The errors span several orders of magnitude.",
        )
    with v2:
        shown = st.multiselect(
            "curves shown",
            labels,
            default=labels,
            key="cov_curves",
            help="Declutter the chart (clicking a legend entry hides a curve too).",
        )
    if not shown:
        st.warning("Choose at least one curve to draw.", icon="⚠️")
    else:
        st.caption(
            "The paper shows the same results in three panels zoomed on different η "
            "ranges but does not print the ranges: the last three tabs are our reading."
        )
        # Tabs that track state (bind="query-params": the open tab is in the URL) are lazy:
        # only the open tab's chart is built and sent on a rerun.
        tabs = st.tabs([z[0] for z in ZOOMS], key="zoom", bind="query-params")
        for tab, zoom in zip(tabs, ZOOMS, strict=True):
            if tab.open is False:
                continue
            with tab:
                fig, frame, note = _chart(payload, config, zoom, log_y, tuple(shown))
                if fig is None:
                    st.info(
                        "No η of this run's grid (or no chosen curve) lies in this range.", icon="ℹ️"
                    )
                    continue
                appkit.chart_with_csv(
                    fig, frame, f"covariance_{zoom[3]}", key=f"cov_chart_{zoom[3]}", caption=note
                )
    st.download_button(
        "Download every run (tidy CSV: run, η, method, M, radius, calibration, z, "
        "C, relative error)",
        lambda: csv_bytes(results),
        file_name="covariance_runs.csv",
        mime="text/csv",
        key="cov_runs_csv",
        on_click="ignore",
    )

    # -------------------------------------------------------------- paper vs this run
    with st.container(border=True):
        st.subheader("Paper vs this run")
        st.caption(
            "Each claim of the paper's Figure 2 text is judged on the mean errors computed above "
            "(never typed in), for every MIP radius variant against every DP-SGD calibration. "
            f"This run: d = {config.d}, n = {config.n:,}, B = {config.B}, R = {config.R}, "
            f"M ∈ {{{', '.join(map(str, config.Ms))}}}, η from {fmt_num(grid_lo, 3)} to "
            f"{fmt_num(grid_hi, 3)}. Nothing is tuned to make a claim come true."
        )
        if not verdicts:
            st.warning(
                "No verdicts: the claims compare MIP with DP-SGD, so choose at least one "
                "radius variant and one DP-SGD calibration.",
                icon="⚠️",
            )
        else:
            st.markdown(reading.tally)
            st.table(reading.table, hide_index=True)  # static: every row, wrapped text
        for text in reading.why:
            st.markdown(text)

# ------------------------------------------------------------------ maths
with st.expander("The maths"):
    st.markdown(
        "**The base algorithm.** Train on a random half (m = n/2 rows) and learn A by "
        "gradient descent from A₀ = 0 on"
    )
    st.latex(
        r"\min_A \bigl\|A - S\bigr\|_F^2,\qquad "
        r"S = \frac1m\sum_{i\in\text{train}} x_i x_i^\top,"
        r"\qquad A_{t+1} = A_t - \mathrm{lr}\cdot 2(A_t - S)"
        r"\;\Longrightarrow\; A_T = \bigl(1-(1-2\,\mathrm{lr})^T\bigr)S,"
    )
    st.markdown("scored by the relative error ‖A − Σ‖_F / ‖Σ‖_F (the paper's y-axis).")
    st.markdown(
        "**MIP (Corollary 10, Algorithm 1).** θ = the p = d² entries of A. From B random "
        "halves θ⁽ᵇ⁾ of the training set, σⱼ and the noise X = rU are"
    )
    st.latex(
        r"\sigma_j = \Bigl(\frac1B\sum_{b=1}^B"
        r"\bigl|\theta^{(b)}_j-\bar\theta_j\bigr|^M\Bigr)^{1/M},"
        r"\qquad \|x\|_{\sigma,M} = "
        r"\Bigl(\sum_{j=1}^{p}\frac{|x_j|^M}{p\,\sigma_j^M}\Bigr)^{1/M},"
        r"\qquad r\sim\mathrm{Gamma}(p,\,c),\quad c=\Bigl(\frac{6.16}{\eta}\Bigr)^{1+2/M},"
    )
    st.markdown(
        r"with $U$ uniform (cone measure) on the unit sphere of $\|\cdot\|_{\sigma,M}$. "
        r"**Why Gamma:** Theorem 9 needs noise with density $\propto e^{-\|x\|_{\sigma,M}/c}$. "
        r"The ball $\{\|x\| \le r\}$ has volume $\propto r^p$, so the radius of such a density "
        r"has density $\propto r^{p-1}e^{-r/c}$: Gamma with shape $p$ and scale $c$, mean $pc$. "
        r"Corollary 10 and Algorithm 1 print $r \sim \mathrm{Laplace}(c)$ ($\mathbb{E}|r| = c$), "
        r"which gives density $\propto e^{-\|x\|/c}/\|x\|^{p-1}$, not the one the theorem "
        r"assumes unless $p = 1$. The page runs both (“radius variants”): the printed one adds "
        r"about $p = d^2$ times less noise than the proof certifies. Algorithm 1 writes "
        r"$(\theta - \bar\theta)^M$; for odd $M$ the moment must be $|\theta - \bar\theta|^M$."
    )
    st.markdown(
        "**DP-SGD, full batch (Abadi et al.).** Per-example gradients are clipped to "
        "Frobenius norm C and Gaussian noise is added to their sum:"
    )
    st.latex(
        r"g_i = 2\bigl(A - x_i x_i^\top\bigr),\qquad "
        r"\bar g_i = g_i\min\Bigl(1,\frac{C}{\|g_i\|_F}\Bigr),"
        r"\qquad A \leftarrow A - \frac{\mathrm{lr}}{m}\Bigl(\sum_i \bar g_i"
        r" + \mathcal N\bigl(0,\,z^2(2C)^2 I\bigr)\Bigr)."
    )
    st.markdown(
        "Replacing one record changes Σᵢ ḡᵢ by at most **2C** (the neighbouring notion of "
        "MIP's half-splits), hence the 2C. The clipping rules: the median unclipped "
        "gradient norm at A = 0 (= median 2‖x‖²), the median over the non-private "
        "trajectory (the paper's reading of Abadi et al.), or a fixed C. T steps with "
        "noise multiplier z compose to one Gaussian mechanism with multiplier z/√T. Two "
        "ways to choose z for a target η:"
    )
    st.latex(
        r"\textbf{paper: }\ \varepsilon(\eta) = \log\frac{1+2\eta-2\delta}{1-2\eta}"
        r"\ \text{(Theorem 4 at }\delta),\qquad "
        r"z = \sqrt T\;\sigma_{\mathrm{AG}}(\varepsilon,\delta)"
    )
    st.latex(
        r"\textbf{tight: }\ \mu = \frac{\sqrt T}{z},\qquad "
        r"\eta = \Phi\Bigl(\frac{\mu}{2}\Bigr) - \frac12"
        r"\ \Longrightarrow\ z = \frac{\sqrt T}{2\,\Phi^{-1}(1/2+\eta)}"
    )
    st.markdown(
        r"$\sigma_{\mathrm{AG}}$ is the analytic Gaussian mechanism's noise for (ε, δ)-DP "
        "(`dp_accounting.gaussian_mechanism.get_sigma_gaussian`). The tight route uses "
        "that T Gaussian steps are μ-GDP and that the best membership test against a "
        "μ-GDP mechanism at prior 1/2 has edge Φ(μ/2) − 1/2, so it needs less noise "
        "than going through (ε, δ)."
    )
appkit.finish(page)
