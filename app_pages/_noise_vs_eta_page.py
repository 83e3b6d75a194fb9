"""The page "Noise vs η (Figure 1)": its code, imported by ``app_pages/noise_vs_eta.py``.

Section 5.1 of ``000_ece03c98c31c7b12.txt`` (Figure 1) on the Proposition 11 dataset:
MIP noise from Theorem 9 / Corollary 14, DP noise from the Laplace mechanism and
Theorem 4. The paper's reading of the figure is evaluated by
:func:`mipcore.lessons.figure1.paper_claims`, never restated.

Why a module and not the page script itself: Streamlit executes the page script from the
top on every rerun, so everything defined there is defined again each time: a
``@st.cache_*`` decorator re-creates its function and re-reads and hashes its source
(≈ 0.7 ms each), a ``@dataclass`` is rebuilt (≈ 0.7 ms), and Streamlit's AppTest (the
tests, ``benchmarks/rerun.py``) even recompiles the whole script, with Streamlit's "magic"
AST pass, on every run (≈ 14 ms for this page's 2,700 AST nodes). A module is compiled and
imported once per process; the page script only calls :func:`render`.

Not a page: ``app.py`` lists its pages. Streamlit still reads every ``app_pages/*.py`` (a
``app_pages/`` folder switches on its old multipage mode, which checks that their URL paths are
unique), so this file's name must not reduce to a page's URL path: ``_noise_vs_eta.py``
would clash with ``noise_vs_eta.py``.

Per setting, :func:`_view` builds once everything the page shows from the curves (both
figures, the table and the sentences derived from the crossovers); each cache stays keyed
by all its inputs, and the page only reads the shared objects (never mutate them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa
import streamlit as st

import appkit
from appkit import fmt_num
from mipcore.lessons import figure1
from mipcore.noise import (
    COROLLARY14_CONSTANT,
    THEOREM9_CONSTANT,
    dp_laplace_scale,
    mip_noise_scale,
)
from mipcore.plots import freeze as _served
from mipcore.plots.figure1_figs import Mark, dp_hidden, noise_figure, ratio_figure, ratio_frame

N_OPTIONS = list(range(4, 201, 2))
N_DEFAULT = list(figure1.PAPER_PRESET["ns"])
N_MAX_SELECTED = 8
M_OPTIONS = list(range(2, 9))
CONSTANTS = [COROLLARY14_CONSTANT, THEOREM9_CONSTANT]
ETA_LIMITS = (0.001, 0.499)
ETA_DEFAULT = (figure1.PAPER_PRESET["eta_min"], figure1.PAPER_PRESET["eta_max"])
READ_ETA = 0.1  # the η the plain-language reading quotes (when it is on the plotted range)
CURVE_POINTS = 200  # per curve; smooth at any zoom, and keeps the CSV and the chart light
SAME_SIGMA = 1e-3  # MIP curves of different n drawn as "one line" when their σ agree this well

PRESET_STATE = {
    "n": N_DEFAULT,
    "M": figure1.PAPER_PRESET["M"],
    "c": figure1.PAPER_PRESET["constant"],
    "eta": ETA_DEFAULT,
    "logy": figure1.PAPER_PRESET["log_y"],
    "logx": False,
    "cap": True,
}


def _constant_label(c: float) -> str:
    return "6.16 (Corollary 14, M ≥ 2)" if c == COROLLARY14_CONSTANT else "7.5 (Theorem 9, any M)"


def _apply_preset() -> None:
    """on_click of the preset button: runs before the widgets exist, so it may set them."""
    for key, value in PRESET_STATE.items():
        st.session_state[key] = list(value) if isinstance(value, list) else value


# ------------------------------------------------------------------ formatting helpers
def _times(x: float) -> str:
    return f"{fmt_num(x, 3)}×"


def _upper_text(gap: float, eps: float) -> str:
    """Where DP becomes cheaper again, 1/2 − gap, without ever printing NaN."""
    if math.isnan(gap) or math.isnan(eps):
        return "never"
    if gap > 0:
        return f"1/2 − {fmt_num(gap, 3)}"
    if math.isfinite(eps):  # gap below the smallest double: 1/2 − gap with gap = e^(−ε) here
        return f"1/2 − e^(−{fmt_num(eps, 4)})"
    return "beyond double precision (≈ 1/2)"


def _table_view(tab: pd.DataFrame) -> pd.DataFrame:
    """The crossover table as the page shows it: every cell a formatted string."""
    rows = []
    for r in tab.itertuples(index=False):
        never = math.isnan(r.crossover_eta)
        rows.append(
            {
                "n": str(r.n),
                "Δ (sensitivity)": fmt_num(r.sensitivity),
                "σ_M (certified)": fmt_num(r.sigma),
                "crossover η (MIP cheaper above)": "never" if never else fmt_num(r.crossover_eta),
                "DP cheaper again above η =": "—"
                if never
                else _upper_text(r.upper_crossover_gap, r.upper_crossover_epsilon),
                "…i.e. at DP ε =": "—" if never else fmt_num(r.upper_crossover_epsilon),
                "max DP/MIP ratio": fmt_num(r.max_ratio_dp_over_mip),
                "at η =": fmt_num(r.best_eta),
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ the paper's claims
# st.cache_resource: shared, not unpickled on every rerun (the claims are frozen dataclasses)
@st.cache_resource(
    show_spinner="Checking the paper's claims for every even n up to 200 "
    "(a few seconds, first time for this M and constant only)…",
    max_entries=32,
)
def _claims(M: int, c: float) -> tuple[figure1.Claim, ...]:
    return tuple(
        figure1.paper_claims(figure1.PAPER_PRESET["eta_min"], figure1.PAPER_PRESET["eta_max"], M, c)
    )


# ------------------------------------------------------------------ one setting's view


@dataclass(frozen=True)
class _Crossovers:
    """The crossover table of some n (for M and C) and what the page derives from it alone."""

    table: pd.DataFrame
    rows: dict  # n -> its row of ``table`` (a namedtuple)
    sigmas: dict
    deltas: dict
    table_view: pa.Table  # :func:`_table_view` as Arrow: st.dataframe sends it without converting
    table_note: str  # the caption under the table


# Not the η range: moving the η slider reuses the crossovers (show_spinner=False: it only
# runs inside _view, whose spinner already shows).
@st.cache_resource(show_spinner=False, max_entries=32)
def _crossovers(ns: tuple[int, ...], M: int, c: float) -> _Crossovers:
    table = figure1.crossover_table(list(ns), M, c)
    return _Crossovers(
        table,
        {int(r.n): r for r in table.itertuples(index=False)},
        {int(n): float(s) for n, s in zip(table["n"], table["sigma"], strict=True)},
        {int(n): float(d) for n, d in zip(table["n"], table["sensitivity"], strict=True)},
        pa.Table.from_pandas(_table_view(table), preserve_index=False),
        _table_note(table),
    )


@dataclass(frozen=True)
class _View:
    """Everything the charts, the table and their notes show for one setting."""

    curves: pd.DataFrame
    table: pd.DataFrame
    table_view: pa.Table  # :func:`_table_view` as Arrow: st.dataframe sends it without converting
    ratios: pd.DataFrame
    fig_noise: go.Figure
    fig_ratio: go.Figure
    sigmas: dict
    deltas: dict
    y_top: float | None
    hidden: list
    crossings: list
    rows: dict  # n -> its row of ``table`` (a namedtuple)
    notes: str  # the "What to notice" paragraph under the noise chart
    table_note: str  # the caption under the table
    reading: str | Exception  # the plain-language reading, or why it could not be computed

    def reading_text(self) -> str:
        """The plain-language reading; raises (a copy of) the error that stopped it, so the
        page's ``appkit.guard("The reading")`` reports it as it did when computed in place."""
        if isinstance(self.reading, Exception):
            raise type(self.reading)(*self.reading.args)
        return self.reading


@st.cache_resource(
    show_spinner="Computing the certified σ_M of each n and the crossovers "
    "(first time for these settings only)…",
    max_entries=32,
)
def _view(
    ns: tuple[int, ...],
    eta_min: float,
    eta_max: float,
    M: int,
    c: float,
    log_x: bool,
    log_y: bool,
    cap: bool,
) -> _View:
    """Curves, crossovers, both figures (served: see :class:`_ServedFigure`) and the notes on
    them. ``st.cache_resource``: Plotly figures are costly to build and to unpickle; the page
    only reads them."""
    curves = figure1.noise_curves(list(ns), eta_min, eta_max, M, c, points=CURVE_POINTS)
    x = _crossovers(ns, M, c)
    rows, sigmas, deltas = x.rows, x.sigmas, x.deltas
    y_top = float(mip_noise_scale(eta_min, max(sigmas.values()), M, c)) if cap else None

    crossings, ratio_crossings, peaks = [], [], []
    for r in rows.values():
        for eta_x, what in (
            (r.crossover_eta, "MIP cheaper to the right"),
            (0.5 - r.upper_crossover_gap, "DP cheaper again to the right"),
        ):
            if not math.isnan(eta_x) and eta_min <= eta_x <= eta_max:
                y = float(mip_noise_scale(eta_x, sigmas[r.n], M, c))
                label = (
                    f"n = {r.n}: MIP and DP need the same noise ({fmt_num(y)}) "
                    f"at η = {fmt_num(eta_x)}; {what}"
                )
                crossings.append(Mark(r.n, eta_x, y, label))
                ratio_crossings.append(Mark(r.n, eta_x, 1.0, label))
        if eta_min <= r.best_eta <= eta_max:
            peaks.append(
                Mark(
                    r.n,
                    r.best_eta,
                    r.max_ratio_dp_over_mip,
                    f"n = {r.n}: largest ratio, DP needs "
                    f"{_times(r.max_ratio_dp_over_mip)} "
                    f"the MIP noise at η = {fmt_num(r.best_eta)}",
                )
            )

    fig_noise = _served(
        noise_figure(
            curves,
            crossings=crossings,
            log_x=log_x,
            log_y=log_y,
            y_top=y_top,
            title=f"Noise needed to certify η-MIP (M = {M}, C = {c:g})",
        )
    )
    ratios = ratio_frame(curves)
    fig_ratio = _served(
        ratio_figure(
            ratios,
            crossings=ratio_crossings,
            peaks=peaks,
            log_x=log_x,
            title="How many times more noise DP needs than MIP",
        )
    )
    hidden = dp_hidden(curves, y_top)
    try:
        text: str | Exception = _reading(list(ns), eta_min, eta_max, M, c, sigmas, deltas, rows)
    except (ValueError, OverflowError, ZeroDivisionError) as exc:  # what appkit.guard reports
        text = exc
    return _View(
        curves,
        x.table,
        x.table_view,
        ratios,
        fig_noise,
        fig_ratio,
        sigmas,
        deltas,
        y_top,
        hidden,
        crossings,
        rows,
        _notes(rows, len(ns), eta_min, eta_max, sigmas, y_top, hidden),
        x.table_note,
        text,
    )


def _notes(
    rows: dict,
    n_count: int,
    eta_min: float,
    eta_max: float,
    sigmas: dict,
    y_top: float | None,
    hidden: list,
) -> str:
    """ "What to notice" under the noise chart: where MIP needs less noise, on this η range."""
    everywhere, partly, never = [], [], []
    for r in rows.values():
        high = 0.5 - r.upper_crossover_gap
        if math.isnan(r.crossover_eta):
            never.append(str(r.n))
        elif r.crossover_eta <= eta_min and high > eta_max:
            everywhere.append(str(r.n))
        elif r.crossover_eta > eta_max:
            partly.append(
                f"n = {r.n} only above η = {fmt_num(r.crossover_eta)}, right of this range"
            )
        elif high <= eta_max:
            partly.append(
                f"n = {r.n} only between η = {fmt_num(r.crossover_eta)} and "
                f"{_upper_text(r.upper_crossover_gap, r.upper_crossover_epsilon)} "
                "(diamonds)"
            )
        else:
            partly.append(f"n = {r.n} only from η = {fmt_num(r.crossover_eta)} on (diamond)")
    notice = []
    if everywhere:
        notice.append(
            f"for n = {', '.join(everywhere)} MIP needs less noise than DP at every η shown"
        )
    notice += [f"for {p}" for p in partly]
    if never:
        notice.append(f"for n = {', '.join(never)} MIP never needs less noise than DP")
    notes = ["**What to notice:** " + "; ".join(notice) + "."]
    if n_count > 1 and max(sigmas.values()) / min(sigmas.values()) - 1 < SAME_SIGMA:
        notes.append(
            "The MIP curves of all chosen n coincide (σ_M equal to within 0.1 %), so "
            "they show as one solid line, as in the paper."
        )
    if y_top is not None:
        notes.append(
            f"The y-axis stops at the MIP curve's maximum, {fmt_num(y_top)} (its value at "
            f"η = {fmt_num(eta_min)}), like the paper's plot."
        )
        if hidden:
            notes.append(
                "Entirely above it: the DP curve of "
                + ", ".join(f"n = {n} (lowest value {fmt_num(v)})" for n, v in hidden)
                + "."
            )
    return " ".join(notes)


def _table_note(table: pd.DataFrame) -> str:
    """The caption under the crossover table."""
    crossing = table[table["crossover_eta"].notna()]
    note = (
        "“Crossover η”: MIP needs less noise than DP for every η above it (up to the "
        "second crossover). "
    )
    if len(crossing):
        widest = crossing.loc[crossing["upper_crossover_gap"].idxmax()]
        tiny = [
            str(n)
            for n, g in zip(crossing["n"], crossing["upper_crossover_gap"], strict=True)
            if g == 0
        ]
        note += (
            "DP becomes cheaper again only when η is within a hair of 1/2: for the n shown, at "
            f"most {fmt_num(widest['upper_crossover_gap'], 3)} below it (n = {int(widest['n'])}), "
            "i.e. at a "
            f"DP ε of at least {fmt_num(crossing['upper_crossover_epsilon'].min())}, where the "
            "release protects nobody. That is far beyond any sensible privacy level. "
        )
        if tiny:
            note += (
                f"For n = {', '.join(tiny)} the gap to 1/2 is below the smallest "
                "double-precision number, so it is written as e^(−ε). "
            )
    if table["crossover_eta"].isna().any():
        note += "“never”: MIP needs more noise than DP at every η. "
    note += (
        "Δ and σ_M are certified values for the exact dataset (interval arithmetic); "
        "the crossovers solve MIP noise = DP noise."
    )
    return note


# ------------------------------------------------------------------ plain-language reading
def _reading(
    ns: list[int],
    eta_min: float,
    eta_max: float,
    M: int,
    c: float,
    sigmas: dict,
    deltas: dict,
    rows: dict,
) -> str:
    """The plain-language reading at η = READ_ETA (clamped to the range shown), for the
    largest n chosen, and how the smallest one compares."""
    n_big, n_small = ns[-1], ns[0]
    eta_r = min(max(READ_ETA, eta_min), eta_max)
    mip_r = float(mip_noise_scale(eta_r, sigmas[n_big], M, c))
    dp_r = float(dp_laplace_scale(eta_r, deltas[n_big]))
    ratio_r = dp_r / mip_r
    promise = (
        f"η = {fmt_num(eta_r)} (no attacker guesses membership right more than "
        f"{fmt_num(100 * (0.5 + eta_r), 3)} % of the time)"
    )
    if ratio_r >= 1:
        text = (
            f"At n = {n_big}, to promise {promise} via DP you would add about "
            f"**{fmt_num(ratio_r, 3)} times as much noise** as MIP needs: a Laplace "
            "scale of "
            f"{fmt_num(dp_r)} instead of {fmt_num(mip_r)}, on an output whose typical "
            f"spread σ_M is {fmt_num(sigmas[n_big])}."
        )
    else:
        text = (
            f"At n = {n_big}, to promise {promise} MIP's direct accounting needs "
            f"**{fmt_num(1 / ratio_r, 3)} times as much noise** as going through DP "
            f"(Laplace scale {fmt_num(mip_r)} instead of {fmt_num(dp_r)})."
        )
    r_small = rows[n_small]
    if n_small != n_big:
        if math.isnan(r_small.crossover_eta):
            text += f" At n = {n_small}, MIP never needs less noise than DP."
        elif r_small.crossover_eta > eta_min:
            text += (
                f" At n = {n_small}, MIP only pays off for η above "
                f"{fmt_num(r_small.crossover_eta)}; for stricter promises DP is cheaper."
            )
        else:
            text += (
                f" Even at n = {n_small}, MIP needs less noise across the whole "
                f"range shown (DP needs up to {fmt_num(r_small.max_ratio_dp_over_mip, 3)} "
                "times as much)."
            )
    return text


# ================================================================== the page
def render() -> None:
    """The whole page, top to bottom (``app_pages/noise_vs_eta.py`` calls this on every rerun)."""
    page = appkit.page("noise_vs_eta")
    st.markdown(
        "How much noise must be added to a release to promise that no attacker beats blind "
        "guessing about membership by more than **η**? Certifying η-MIP **directly** "
        "(Theorem 9 / Corollary 14, **solid** lines) needs noise proportional to the output's "
        "*spread* σ; going **through differential privacy** (Laplace mechanism + Theorem 4, "
        "**dotted**, one line per dataset size n) needs noise proportional to its "
        "*sensitivity* Δ. The Proposition 11 dataset makes the gap extreme: σ stays about 1 "
        "while Δ grows like 2^(n/2)."
    )

    ns, M, constant, eta_min, eta_max, log_y, log_x, cap = _controls()
    if M > 2:
        st.info(
            f"**M = {M}:** for this dataset σ_M *grows* with n when M > 2. The one huge output "
            "p^(−1/2) (probability p = 1/C(n, n/2)) dominates the M-th moment, so "
            f"σ_M ≈ (p · p^(−M/2))^(1/M) = p^(1/M − 1/2) = p^({fmt_num(1 / M - 0.5, 3)}). "
            "So the MIP curves separate by n (same colour as n's DP curve), and MIP loses part "
            "of its advantage. At M = 2 the exponent is 0 and σ₂ ≈ 1 for every n.",
            icon="ℹ️",
        )

    # -------------------------------------------------------------- charts, table, reading
    if not ns:
        st.warning("Choose at least one dataset size n above to draw the curves.", icon="⚠️")
    else:
        _results(ns, M, constant, eta_min, eta_max, log_y, log_x, cap)

    # -------------------------------------------------------------- paper vs computation
    with st.container(border=True):
        st.subheader("Paper vs this computation")
        with appkit.guard("The paper's claims"):
            claims = _claims(M, constant)
            st.caption(
                "Computed now from the curves, not typed in: every even n from 36 to 200, η from "
                f"{fmt_num(figure1.PAPER_PRESET['eta_min'])} to "
                f"{fmt_num(figure1.PAPER_PRESET['eta_max'])} "
                f"(the paper's range; η ≥ 0.01 is part of its claim), with your M = {M} and "
                f"constant {constant:g}. The n and η controls above do not change these verdicts."
            )
            for cl in claims:
                st.markdown(f"{'✅' if cl.holds else '❌'} **{cl.statement}** {cl.evidence}")
            st.caption(
                "The paper prints no axis limits, so the third statement depends on where its "
                "y-axis stops; the evidence gives the exact interval of y-axis tops for which it "
                "holds. Here the top is the MIP curve's maximum (what the “cap” toggle shows)."
            )

    # -------------------------------------------------------------- maths
    with st.expander("The maths"):
        st.markdown(
            "**MIP directly** (Theorem 9; Corollary 14 for M ≥ 2): adding noise with "
            "density ∝ exp(−‖x‖ / (c σ_M)) certifies η-MIP; in one dimension that is "
            "Laplace noise of scale"
        )
        st.latex(
            r"b_{\mathrm{MIP}}(\eta) = \Bigl(\frac{C}{\eta}\Bigr)^{1+2/M}\sigma_M,\qquad "
            r"\sigma_M^M \ge "
            r"\mathbb{E}\,\bigl|\mathcal{A}(D) - \mathbb{E}\mathcal{A}(D)\bigr|^M,"
        )
        st.markdown(
            "with C = 7.5 (Theorem 9, any M > 0) or C = 6.16 (Corollary 14, M ≥ 2). "
            "The paper's Figure 1 uses M = 2 and C = 6.16:"
        )
        st.latex(r"b_{\mathrm{MIP}}(\eta) = \Bigl(\frac{6.16}{\eta}\Bigr)^{2}\sigma .")
        st.markdown(
            "Section 5.1 calls σ “an upper bound on the *variance*”; that is a slip: the "
            "theorem needs σ² ≥ Var, so with M = 2 σ is a **standard deviation** "
            "(for this dataset σ₂ ≈ 1, so the figure looks the same either way)."
        )
        st.markdown(
            "**Through DP** (Laplace mechanism + Theorem 4 at δ = 0): ε-DP certifies "
            "η = 1/(1 + e^−ε) − 1/2 = tanh(ε/2)/2, so η needs ε(η) and Laplace(Δ/ε) noise:"
        )
        st.latex(
            r"\varepsilon(\eta) = \log\frac{1+2\eta}{1-2\eta},\qquad "
            r"b_{\mathrm{DP}}(\eta) = \frac{\Delta}{\varepsilon(\eta)},\qquad "
            r"\Delta = \max_{D\sim D'}\bigl|\mathcal{A}(D)-\mathcal{A}(D')\bigr|."
        )
        st.markdown(
            "**The Proposition 11 dataset** (even n, k = n/2, p = 1/C(n, k)): records "
            "2⁰, 2¹, …, 2^(n−2) and A = √p − (2^(k−1) − 1); the algorithm outputs "
            "𝒜(D) = 1/Σ_{x∈D} x over a random half D (the appendix's Σ 1/x is a slip: "
            "only 1/Σx works). One half sums to √p, so one output is p^(−1/2), with "
            "probability p; all others lie in (0, 1]. Hence"
        )
        st.latex(
            r"\Delta = p^{-1/2} - \frac{1}{2^{\,n-2} + 2^{\,k-1} - 1}"
            r"\;\approx\; \frac{2^{n/2}}{(\pi n/2)^{1/4}},"
            r"\qquad \sigma_2 \approx \sqrt{p\cdot p^{-1}} = 1,"
            r"\qquad \sigma_M \approx p^{1/M-1/2}."
        )
        st.markdown("**Where they cross.** The ratio of the two noise scales is")
        st.latex(
            r"\frac{b_{\mathrm{DP}}}{b_{\mathrm{MIP}}} = "
            r"\frac{\Delta}{\sigma_M\,C^{1+2/M}}\cdot\frac{\eta^{1+2/M}}{\varepsilon(\eta)}."
        )
        st.markdown(
            "As η → 0, ε(η) ≈ 4η and the ratio ≈ Δ η^(2/M) / (4 C^(1+2/M) σ_M) → 0, so DP "
            "is cheaper for tiny η; as η → 1/2, ε → ∞ and the ratio → 0 again. In between "
            "it exceeds 1 (MIP cheaper) exactly between the two crossovers of the table, "
            "which are found by root-finding in log ε."
        )
    appkit.finish(page)


def _controls() -> tuple[list[int], int, float, float, float, bool, bool, bool]:
    """The preset button and the widgets; returns (sorted n, M, C, η range, log y, log x, cap)."""
    b_col, b_note = st.columns([1, 3], vertical_alignment="center")
    b_col.button(
        "Paper Figure 1",
        on_click=_apply_preset,
        key="preset",
        icon=":material/restore:",
        help="n = 30, 36, 42, 48; M = 2; constant 6.16; η from 0.01 to 0.49; linear axes; "
        "y-axis capped at the MIP curve's maximum (the paper prints no axis limits).",
    )

    c1, c2, c3 = st.columns([3, 1, 2])
    with c1:
        ns_chosen = appkit.url_multiselect(
            "dataset sizes n (even, up to 200)",
            "n",
            N_OPTIONS,
            default=N_DEFAULT,
            max_selected=N_MAX_SELECTED,
            min_selected=0,  # empty: a sentence, not a silent reset
            help=f"One DP curve (and one MIP curve) per n; at most {N_MAX_SELECTED}.",
        )
    with c2:
        M = appkit.url_select(
            "moment order M",
            "M",
            M_OPTIONS,
            default=figure1.PAPER_PRESET["M"],
            help="Theorem 9 uses σ_M, an upper bound on the M-th root of E|output − mean|^M. "
            "M = 2: σ is the standard deviation. The MIP noise is (C/η)^(1+2/M)·σ_M.",
        )
    with c3:
        constant = appkit.url_select(
            "constant C",
            "c",
            CONSTANTS,
            default=figure1.PAPER_PRESET["constant"],
            widget="radio",
            format_func=_constant_label,
            help="Corollary 14 sharpens Theorem 9's 7.5 to 6.16 for M ≥ 2 "
            "(the paper's Figure 1 uses 6.16).",
        )

    c4, t1, t2, t3 = st.columns([3, 1, 1, 3], vertical_alignment="bottom")
    with c4:
        eta_min, eta_max = appkit.url_range_slider(
            "η range (x-axis)",
            "eta",
            min_value=ETA_LIMITS[0],
            max_value=ETA_LIMITS[1],
            default=ETA_DEFAULT,
            step=0.001,
            format="%.3f",
            help="η = 0 is perfect privacy (infinite noise), η = 1/2 no privacy at all.",
        )
    with t1:
        log_y = appkit.url_toggle("log y-axis", "logy", default=figure1.PAPER_PRESET["log_y"])
    with t2:
        log_x = appkit.url_toggle("log x-axis", "logx", default=False)
    with t3:
        cap = appkit.url_toggle(
            "cap y-axis at the MIP maximum (paper-like)",
            "cap",
            default=True,
            help="The paper prints no axis limits. With the cap, the y-axis stops at the MIP "
            "noise at the smallest η shown, which is how its plot reads; DP curves "
            "entirely above it are off the plot.",
        )

    ns = sorted(ns_chosen)
    is_preset = (
        ns == N_DEFAULT
        and PRESET_STATE["M"] == M
        and constant == PRESET_STATE["c"]
        and (eta_min, eta_max) == ETA_DEFAULT
        and log_y == PRESET_STATE["logy"]
        and not log_x
        and cap
    )
    b_note.caption(
        "Showing the settings of the paper's Figure 1."
        if is_preset
        else "The button restores the settings of the paper's Figure 1 (Section 5.1)."
    )
    return ns, M, constant, eta_min, eta_max, log_y, log_x, cap


def _results(
    ns: list[int],
    M: int,
    constant: float,
    eta_min: float,
    eta_max: float,
    log_y: bool,
    log_x: bool,
    cap: bool,
) -> None:
    """Both charts with their notes, the crossover table and the plain-language reading."""
    with appkit.guard("The noise curves", stop=True):
        view = _view(tuple(ns), eta_min, eta_max, M, constant, log_x, log_y, cap)

    appkit.chart_with_csv(view.fig_noise, view.curves, "noise_vs_eta", key="noise_chart")
    st.markdown(view.notes)
    appkit.chart_with_csv(view.fig_ratio, view.ratios, "dp_over_mip_ratio", key="ratio_chart")
    st.caption(
        "Above the dashed line MIP needs less noise; stars mark each n's largest ratio. "
        "The ratio falls to 0 at both ends: as η → 0 MIP's noise grows like "
        f"η^−{fmt_num(1 + 2 / M, 3)} but DP's only like η^−1, and as η → 1/2 DP's ε → ∞."
    )

    # -------------------------------------------------------------- table
    st.subheader("Crossovers per n")
    st.dataframe(view.table_view, hide_index=True, width="stretch")
    st.caption(view.table_note)

    # -------------------------------------------------------------- plain-language reading
    st.subheader("In plain words")
    with appkit.guard("The reading"):
        st.markdown(view.reading_text())
