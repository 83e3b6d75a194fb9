"""How much noise does MIP need, compared with DP? (Figure 1 of the paper, Section 5.1.)

Widgets → ``jobs.run(figure1.noise_rows)`` (certifies σ of each n) → ``cached(figure1_view)``
→ Vega-Lite charts (:mod:`mipcore.plots.figure1_vega`; the η range only changes their tables)
→ sentences. The paper's claims are judged by :func:`mipcore.lessons.figure1.paper_claims`;
this script only writes them out.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd
import streamlit as st

import appkit
from appkit import fmt_num, jobs
from appkit.prose import prose
from mipcore.lessons import figure1
from mipcore.lessons.figure1 import Coverage
from mipcore.noise import COROLLARY14_CONSTANT, THEOREM9_CONSTANT
from mipcore.plots import figure1_vega as charts
from mipcore.plots.formatting import superscript

PRESET = figure1.PAPER_PRESET
N_OPTIONS = list(range(4, 201, 2))
N_DEFAULT = list(PRESET.ns)
N_MAX_SELECTED = 8
M_OPTIONS = list(range(2, 9))
CONSTANTS = [COROLLARY14_CONSTANT, THEOREM9_CONSTANT]
ETA_LIMITS = (0.001, 0.499)
ETA_DEFAULT = (PRESET.eta_min, PRESET.eta_max)
EQUAL_ENDS_HALF_WIDTH = 0.005  # equal η handles: the charts use η ± this
CURVE_POINTS = 200
PRESET_STATE = {
    "n": N_DEFAULT,
    "M": PRESET.M,
    "c": PRESET.constant,
    "eta": ETA_DEFAULT,
    "logy": PRESET.log_y,
    "logx": False,
    "cap": True,
    "tight": True,
}
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def apply_preset() -> None:
    """The preset button's callback: runs before the widgets exist, so it may set them."""
    for key, value in PRESET_STATE.items():
        st.session_state[key] = list(value) if isinstance(value, list) else value


def gap_text(row: figure1.NoiseRow) -> str:
    """Where DP becomes cheaper again, as 1/2 − gap (also below the smallest double)."""
    if row.upper_gap is not None and row.upper_gap > 0:
        return f"1/2 − {fmt_num(row.upper_gap, 3)}"
    if row.upper_log10_gap is not None:
        e = math.floor(row.upper_log10_gap)
        return f"1/2 − {10 ** (row.upper_log10_gap - e):.2g} × 10{superscript(e)}"
    return "beyond double precision (≈ 1/2)"


page = appkit.page("noise_vs_eta")
prose("noise_vs_eta", "intro")

main = page.slot()  # controls, charts, table and readings: rerun on each change

# ------------------------------------------------------------------------------ the claims
with st.container(border=True):
    st.subheader("Paper vs this computation")
    claims = page.slot()

# ------------------------------------------------------------------------------ the maths
with appkit.folded("The maths") as shown:
    if shown:
        prose("noise_vs_eta", "maths")


class Controls(NamedTuple):
    """What the controls chose (the η range already widened when both handles meet)."""

    ns: list[int]
    M: int
    constant: float
    eta_min: float
    eta_max: float
    log_x: bool
    log_y: bool
    cap: bool
    tight: bool

    @property
    def sig(self) -> str:
        return "σ" + str(self.M).translate(SUB)


def _control_notes(
    b_note, ns, M, constant, eta_lo, eta_hi, log_x, log_y, cap, tight
) -> tuple[float, float]:
    """The preset button's note, the η range (widened when both handles meet, with a
    sentence) and what M > 2 does to this dataset."""
    is_preset = (
        ns == N_DEFAULT
        and M == PRESET.M
        and constant == PRESET.constant
        and (eta_lo, eta_hi) == ETA_DEFAULT
        and log_y == PRESET.log_y
        and not log_x
        and cap
    )
    b_note.caption(
        "Showing the settings of the paper's Figure 1"
        + (" (switch off the dotted curves for its exact picture)." if tight else ".")
        if is_preset
        else "The button restores the settings of the paper's Figure 1 (Section 5.1)."
    )
    sig = "σ" + str(M).translate(SUB)
    if eta_lo >= eta_hi:  # both handles on one value: not a range
        eta_min = max(ETA_LIMITS[0], eta_lo - EQUAL_ENDS_HALF_WIDTH)
        eta_max = min(ETA_LIMITS[1], eta_lo + EQUAL_ENDS_HALF_WIDTH)
        st.warning(
            f"Both ends of the η range are at {fmt_num(eta_lo)}: a range needs two different "
            f"ends. The charts show η from {fmt_num(eta_min)} to {fmt_num(eta_max)}; drag either "
            "handle to choose the range.",
            icon="⚠️",
        )
    else:
        eta_min, eta_max = eta_lo, eta_hi
    if M > 2:
        st.info(
            f"**M = {M}:** for this dataset {sig} *grows* with n when M > 2. The one huge output "
            "1/√p (probability p = 1/C(n, n/2)) dominates the M-th moment, so "
            f"{sig} grows like C(n, n/2) to the power 1/2 − 1/{M} = {fmt_num(0.5 - 1 / M, 3)}. "
            "So the MIP curves separate by n, and MIP loses part of its advantage. At M = 2 the "
            "power is 0 and σ₂ ≈ 1 for every n.",
            icon="ℹ️",
        )
    return eta_min, eta_max


def _controls() -> Controls:
    """The preset button, the controls, and the notes they call for."""
    b_col, b_note = st.columns([1, 3], vertical_alignment="center")
    b_col.button(
        "Paper Figure 1",
        on_click=apply_preset,
        key="preset",
        icon=":material/restore:",
        help="n = 30, 36, 42, 48; M = 2; constant 6.16; η from 0.01 to 0.49; linear axes; "
        "y-axis capped at the printed MIP curve's maximum (the paper prints no axis limits).",
    )
    c1, c2, c3 = st.columns([3, 1, 2])
    ns = sorted(
        appkit.url_multiselect(
            "dataset sizes n (even, up to 200)",
            "n",
            N_OPTIONS,
            default=N_DEFAULT,
            max_selected=N_MAX_SELECTED,
            min_selected=0,
            help=f"One set of curves per n; at most {N_MAX_SELECTED}.",
            container=c1,
        )
    )
    M = appkit.url_select(
        "moment order M",
        "M",
        M_OPTIONS,
        default=PRESET.M,
        help="σ bounds the M-th root of E|output − mean| to the power M; M = 2: the standard "
        "deviation. The printed MIP noise is (C/η) to the power 1 + 2/M, times σ.",
        container=c2,
    )
    constant = appkit.url_select(
        "constant C (printed curve)",
        "c",
        CONSTANTS,
        default=PRESET.constant,
        widget="radio",
        format_func=lambda c: "6.16 (Corollary 14, M ≥ 2)" if c < 7 else "7.5 (Theorem 9, any M)",
        help="Corollary 14 sharpens Theorem 9's 7.5 to 6.16 for M ≥ 2 (the paper's Figure 1 "
        "uses 6.16). The smallest certified noise does not depend on C.",
        container=c3,
    )
    eta_lo, eta_hi = appkit.url_range_slider(
        "η range (x-axis)",
        "eta",
        min_value=ETA_LIMITS[0],
        max_value=ETA_LIMITS[1],
        default=ETA_DEFAULT,
        step=0.001,
        format="%.3f",
        help="η = 0 is perfect privacy (infinite noise), η = 1/2 no privacy at all.",
    )
    t1, t2, t3, t4 = st.columns(4)
    log_y = appkit.url_toggle("log y-axis", "logy", default=PRESET.log_y, container=t1)
    log_x = appkit.url_toggle("log x-axis", "logx", default=False, container=t2)
    cap = appkit.url_toggle(
        "cap y at the printed MIP maximum",
        "cap",
        default=True,
        help="The paper prints no axis limits. With the cap, the y-axis stops at the printed MIP "
        "noise at the smallest η shown, which is how its plot reads; DP curves entirely above it "
        "are off the plot.",
        container=t3,
    )
    tight = appkit.url_toggle(
        "smallest certified MIP noise",
        "tight",
        default=True,
        help="Theorem 9's noise with multiplier c certifies η ≤ ½(1 − exp(−1/c)) in every dimension, "
        "so c = −1/ln(1 − 2η) suffices: the dotted curves.",
        container=t4,
    )
    eta_min, eta_max = _control_notes(
        b_note, ns, M, constant, eta_lo, eta_hi, log_x, log_y, cap, tight
    )
    return Controls(ns, M, constant, eta_min, eta_max, log_x, log_y, cap, tight)


def _notice(view, sig: str) -> None:
    """The noise chart's takeaway, and per n where the printed MIP noise is below DP's."""
    everywhere = [str(r.row.n) for r in view.rows if r.coverage is Coverage.EVERYWHERE]
    never = [str(r.row.n) for r in view.rows if r.coverage is Coverage.NEVER]
    if len(everywhere) == len(view.rows):
        appkit.takeaway(
            "Even the paper's printed MIP noise is below DP's at every η shown, for every n chosen."
        )
    elif len(never) == len(view.rows):
        appkit.takeaway(
            "For the n chosen, the paper's printed MIP noise is above DP's at every η: "
            "these datasets are too small for its constant."
        )
    else:
        appkit.takeaway(
            "Whether the paper's printed MIP noise beats DP's depends on n: the larger n "
            "is, the more of the η range it wins."
        )
    notice = []
    if everywhere:
        notice.append(
            f"for n = {', '.join(everywhere)} the printed MIP noise is below DP's at every η shown"
        )
    for r in view.rows:
        x = r.row
        low = fmt_num(x.crossover_eta) if x.crossover_eta is not None else ""
        if r.coverage is Coverage.FROM:
            notice.append(f"for n = {x.n} only from η = {low} on (diamond)")
        elif r.coverage is Coverage.BETWEEN:
            notice.append(f"for n = {x.n} only between η = {low} and {gap_text(x)} (diamonds)")
        elif r.coverage is Coverage.UNTIL:
            notice.append(f"for n = {x.n} only up to η = {gap_text(x)} (diamond)")
        elif r.coverage is Coverage.OUTSIDE:
            notice.append(f"for n = {x.n} only outside this η range (from η = {low})")
    if never:
        notice.append(f"for n = {', '.join(never)} it is never below DP's")
    notes = ["**What to notice:** " + "; ".join(notice) + "."]
    if len(view.rows) > 1 and view.mip_curves_coincide:
        notes.append(
            f"The MIP curves of all chosen n coincide ({sig} equal to within 0.1 %), so "
            "they show as one line, as in the paper."
        )
    if view.y_top is not None:
        notes.append(
            f"The y-axis stops at the printed MIP maximum, {fmt_num(view.y_top)} (its value "
            f"at η = {fmt_num(view.eta_min)}), like the paper's plot."
        )
        if view.hidden:
            notes.append(
                "Entirely above it: the DP curve of "
                + ", ".join(
                    f"n = {r.row.n} (lowest value {fmt_num(r.dp_floor)})" for r in view.hidden
                )
                + "."
            )
    st.markdown(" ".join(notes))


def _certified(view, c: Controls) -> None:
    """The smallest certified MIP noise, in numbers and words."""
    sig, M, tight, log_y = c.sig, c.M, c.tight, c.log_y
    st.subheader("The smallest certified MIP noise")
    cheaper = [str(n) for n in view.certified_cheaper_ns]
    st.markdown(
        "Theorem 9's noise with multiplier c certifies η ≤ ½(1 − exp(−1/c)) in every dimension "
        "(see “The maths”), so the multiplier −1/ln(1 − 2η) is enough, instead of the "
        f"printed (C/η) to the power 1 + 2/M. On this range the printed noise is "
        f"**{fmt_num(view.factor_at_min, 3)} times** the certified minimum at "
        f"η = {fmt_num(view.eta_min)} and **{fmt_num(view.factor_at_max, 3)} times** at "
        f"η = {fmt_num(view.eta_max)}, for every n (the factor does not depend on σ)."
    )
    text = (
        "**The crossovers disappear.** DP needs (Δ/"
        f"{sig})·ln(1/(1 − 2η))/ε(η) times the certified-minimum MIP noise: at least "
        f"Δ/(2{sig}) (small η), rising to Δ/{sig} as η nears ½. "
    )
    if cheaper:
        text += (
            f"For n = {', '.join(cheaper)}, DP needs "
            + ", ".join(
                fmt_num(r.row.certified_ratio, 3) for r in view.rows if r.row.certified_cheaper
            )
            + (" times" if len(cheaper) == 1 else " times its noise respectively")
            + " at least: MIP is cheaper at every η, with no crossover on either side. "
        )
    for r in view.rows:
        row = r.row
        if row.certified_cheaper:
            continue
        if row.certified_crossover_eta is not None:
            text += (
                f"For n = {row.n}, {sig} < Δ < 2{sig}: DP is cheaper below "
                f"η = {fmt_num(row.certified_crossover_eta, 3)}, the certified MIP "
                "noise above it. "
            )
        else:
            text += (
                f"For n = {row.n}, Δ ≤ {sig}: DP is cheaper at every η (the dataset "
                "is too small for the spread to help). "
            )
    if M > 2:
        text += (
            "This certificate needs only a bound on the mean distance to the mean, "
            "which σ₂ (about 1 for this dataset) also gives: with σ₂ instead of "
            f"{sig} the certified noise would be smaller still."
        )
    st.markdown(text)
    if tight and not log_y:
        st.caption(
            "On a linear y-axis the dotted curves hug zero: switch on the log y-axis to "
            "compare them."
        )


def _ratio(view, c: Controls) -> None:
    """The DP / MIP noise ratio chart."""
    sig, M, log_x, tight = c.sig, c.M, c.log_x, c.tight
    dearer = [str(r.row.n) for r in view.rows if not r.row.certified_cheaper]
    ratio_chart, ratio_table = appkit.cached(
        charts.ratio_vega, view, log_x=log_x, show_certified=tight
    )
    appkit.chart(ratio_chart, ratio_table, "dp_over_mip_ratio", key="ratio_chart")
    appkit.takeaway(
        "Above the dashed line MIP needs less noise: the printed curve only between its "
        "two crossovers, the certified minimum from one η on"
        + (", here at every η for every n shown." if not dearer else ".")
    )
    st.caption(
        "Stars mark each n's largest ratio for the printed noise. Its ratio falls to 0 at "
        "both ends: as η → 0 the printed MIP noise grows like 1/η to the power "
        f"{fmt_num(1 + 2 / M, 3)} but DP's only like 1/η, and as η → 1/2 DP's ε → ∞. "
        f"The certified minimum's ratio is flat at Δ/(2{sig})."
    )


def _table(view, sig: str) -> None:
    """Crossovers per n, one column per n."""
    st.subheader("Crossovers per n")
    table = pd.DataFrame(
        [
            {
                "n": str(x.n),
                "Δ (sensitivity)": fmt_num(x.sensitivity),
                f"{sig} (certified)": fmt_num(x.sigma),
                "crossover η (MIP cheaper above)": "never"
                if x.crossover_eta is None
                else fmt_num(x.crossover_eta),
                "DP cheaper again above η =": "—" if x.crossover_eta is None else gap_text(x),
                "…i.e. at DP ε =": "—" if x.upper_epsilon is None else fmt_num(x.upper_epsilon),
                "max DP/MIP ratio": fmt_num(x.max_ratio),
                "at η =": fmt_num(x.best_eta),
                "DP ÷ certified MIP (at least)": fmt_num(x.certified_ratio),
            }
            for x in (r.row for r in view.rows)
        ]
    )
    # One column per n (a row per quantity): nine quantities side by side do not fit a
    # projector's column, and the page allows at most eight n.
    per_n = table.set_index("n").T
    per_n.columns = [f"n = {n}" for n in per_n.columns]
    appkit.tables.table(per_n.reset_index(names="quantity"), right=list(per_n.columns))
    crossing = [r.row for r in view.rows if r.row.crossover_eta is not None]
    note = (
        "“Crossover η”: the printed MIP noise is below DP's for every η above it (up to "
        "the second crossover). "
    )
    if crossing:
        finite = [x for x in crossing if x.upper_log10_gap is not None]
        if finite:
            widest = max(finite, key=lambda x: x.upper_log10_gap or -math.inf)
            least_eps = min(x.upper_epsilon or math.inf for x in finite)
            note += (
                "DP becomes cheaper again only within a hair of 1/2: for the n shown, at "
                f"η = {gap_text(widest)} at the earliest (n = {widest.n}), i.e. at a DP ε "
                f"of at least {fmt_num(least_eps)}, where the release protects nobody. "
            )
        if len(finite) < len(crossing):
            note += (
                "For n = "
                + ", ".join(str(x.n) for x in crossing if x.upper_log10_gap is None)
                + " DP is never cheaper again within double precision. "
            )
    if any(r.row.crossover_eta is None for r in view.rows):
        note += "“never”: the printed MIP noise is above DP's at every η. "
    note += (
        f"Δ and {sig} are certified values for the exact dataset (interval arithmetic); "
        f"the last column is Δ/(2{sig})."
    )
    st.caption(note)


def _reading(view, sig: str) -> None:
    """The plain-language reading of the largest and smallest n."""
    st.subheader("In plain words")
    with appkit.guard("The reading"):
        rd = appkit.cached(figure1.reading, view)
        promise = (
            f"η = {fmt_num(rd.eta)} (no attacker guesses membership right more than "
            f"{appkit.fmt_pct(rd.accuracy)} of the time)"
        )
        if rd.dp_over_mip >= 1:
            text = (
                f"At n = {rd.n_big}, to promise {promise} via DP you would add about "
                f"**{fmt_num(rd.dp_over_mip, 3)} times as much noise** as the paper's MIP "
                f"calibration: a Laplace scale of {fmt_num(rd.dp_scale)} instead of "
                f"{fmt_num(rd.mip_scale)}, on an output whose typical spread {sig} is "
                f"{fmt_num(rd.sigma)}."
            )
        else:
            text = (
                f"At n = {rd.n_big}, to promise {promise} the paper's MIP calibration needs "
                f"**{fmt_num(1 / rd.dp_over_mip, 3)} times as much noise** as going through DP "
                f"(Laplace scale {fmt_num(rd.mip_scale)} instead of {fmt_num(rd.dp_scale)})."
            )
        text += (
            f" The smallest certified MIP noise is only {fmt_num(rd.certified_scale)}, "
            f"{fmt_num(rd.paper_over_certified, 3)} times less than the paper's; DP needs "
            f"{fmt_num(rd.dp_over_certified, 3)} times that."
        )
        if rd.n_small != rd.n_big:
            if rd.small_coverage is Coverage.NEVER:
                text += f" At n = {rd.n_small}, the printed MIP noise is never below DP's."
            elif rd.small_coverage is Coverage.EVERYWHERE:
                text += (
                    f" Even at n = {rd.n_small}, the printed MIP noise is below DP's across "
                    f"the whole range shown (DP needs up to {fmt_num(rd.small_max_ratio, 3)} "
                    "times as much)."
                )
            elif rd.small_crossover is not None:
                text += (
                    f" At n = {rd.n_small}, the printed MIP noise pays off only on part of the "
                    f"range (from η = {fmt_num(rd.small_crossover)}); for other promises DP "
                    "is cheaper."
                )
        st.markdown(text)


def _curves(c: Controls) -> None:
    """The noise chart, the certified minimum, the ratio chart, the table and the reading."""
    view = None
    with appkit.guard("The noise curves"):
        rows = jobs.run(
            figure1.noise_rows,
            tuple(c.ns),
            c.M,
            c.constant,
            label=f"Certifying {c.sig} of each n",
            quick=True,  # bounded by n <= 200
        )
        view = appkit.cached(
            figure1.figure1_view, rows, c.eta_min, c.eta_max, cap=c.cap, points=CURVE_POINTS
        )
        # The η range is in the tables, not in the specifications: moving it redraws the
        # charts in place.
        noise_chart, noise_table = appkit.cached(
            charts.noise_vega, view, log_x=c.log_x, log_y=c.log_y, show_certified=c.tight
        )
        appkit.chart(
            noise_chart,
            noise_table,
            "noise_vs_eta",
            key="noise_chart",
            caption=charts.noise_caption(view),
        )
        _notice(view, c.sig)
        _certified(view, c)
        _ratio(view, c)
        _table(view, c.sig)
    if view is not None:
        _reading(view, c.sig)


def _start_evidence(c2_, n_max: int, rng: str) -> str:
    """The evidence for or against "n = 36 is where this starts"."""
    x30 = c2_.crossover_of(30)
    where30 = f"n = 30 needs η ≥ {fmt_num(x30)}" if x30 is not None else "n = 30 never gets there"
    if c2_.first_n is None:
        evidence = f"For no even n up to {n_max} is MIP cheaper on all of {rng}."
    else:
        before = [
            f"n = {n} (from η = {fmt_num(x)})"
            for n, x, ok in zip(c2_.ns_checked, c2_.crossovers, c2_.cheaper, strict=True)
            if c2_.first_n <= n < c2_.claimed_n and ok and x is not None
        ]
        evidence = (
            f"Checked for every even n from {c2_.ns_checked[0]} to {n_max}: the first n "
            f"where the printed MIP noise is below DP's on all of {rng} is "
            f"**n = {c2_.first_n}**"
            + (
                ", and it stays so for every larger n checked"
                if c2_.holds_from_first_on
                else ", but not for every larger n"
            )
            + f"; {where30}."
        )
        if before:
            evidence += (
                f" Already {' and '.join(before)} qualify: the paper's n = 36 is the first "
                "n of its figure where it holds, not the first n."
            )
    return evidence


def _claims(M: int, constant: float) -> None:
    """The paper's three statements on Figure 1, judged for every even n up to 200."""
    cl = jobs.run(
        figure1.paper_claims,
        PRESET.eta_min,
        PRESET.eta_max,
        M,
        constant,
        label="Checking the paper's claims for every even n up to 200",
        quick=True,
    )
    rng = f"[{fmt_num(cl.eta_min)}, {fmt_num(cl.eta_max)}]"
    st.caption(
        f"Computed now from the curves, not typed in: every even n from "
        f"{cl.starts_at.ns_checked[0]} to {cl.n_max}, η from {fmt_num(cl.eta_min)} to "
        f"{fmt_num(cl.eta_max)} (the paper's range; η ≥ 0.01 is part of its claim), with "
        f"your M = {M} and constant {constant:g}. The n and η controls above do not change "
        "these verdicts."
    )
    c1_ = cl.mip_cheaper
    st.markdown(
        f"{'✅' if c1_.holds else '❌'} **For n ≥ {c1_.n_from} and η ≥ "
        f"{fmt_num(cl.eta_min)}, MIP needs less noise than DP (M = {M}, constant "
        f"{constant:g}).** "
        + (
            f"For every even n from {c1_.n_from} to {c1_.n_max}, the printed MIP noise is "
            f"below DP's on all of {rng}; the largest crossover η is "
            f"{fmt_num(c1_.worst_crossover, 3)} (n = {c1_.worst_n})."
            if c1_.holds
            else f"The printed MIP noise is not below DP's on all of {rng} for n = "
            + ", ".join(map(str, c1_.failures[:8]))
            + ("…" if len(c1_.failures) > 8 else "")
            + "."
        )
    )
    c2_ = cl.starts_at
    evidence = _start_evidence(c2_, cl.n_max, rng)
    st.markdown(
        f"{'✅' if c2_.holds else '❌'} **n = {c2_.claimed_n} is where this starts.** " + evidence
    )
    c3_ = cl.leaves_plot
    st.markdown(
        f"{'✅' if c3_.holds else '❌'} **For n > 48 the DP curves leave the plotted "
        "range.** "
        f"With the y-axis topped at the printed MIP maximum ({fmt_num(c3_.y_top)}, at "
        f"η = {fmt_num(cl.eta_min)}), the first n whose DP curve is entirely off the plot is "
        + (f"n = {c3_.first_hidden}" if c3_.first_hidden is not None else "no n up to 400")
        + ". The paper's statement (n = 48 visible, n = 50 not) holds exactly for a y-axis "
        f"top from {fmt_num(c3_.top_low)} up to (not including) {fmt_num(c3_.top_high)}."
    )
    st.caption(
        "The paper prints no axis limits, so the third statement depends on where its "
        "y-axis stops. With the smallest certified MIP noise the answer to the first two "
        + (
            f"changes: it is below DP's at every η for every even n from {cl.certified_first_n} on."
            if cl.certified_first_n is not None
            else "does not change: it is not below DP's for every n checked."
        )
    )


def _live() -> None:
    with main:
        appkit.messages()
        c = _controls()
        if not c.ns:
            st.warning(
                "No dataset size is selected: choose at least one n under “dataset sizes n” above "
                "to draw the curves.",
                icon="⚠️",
            )
        else:
            _curves(c)
    with claims, appkit.guard("The paper's claims"):
        _claims(c.M, c.constant)


appkit.live(page, _live)
