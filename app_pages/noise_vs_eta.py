"""How much noise does MIP need, compared with DP? (Figure 1 of the paper, Section 5.1.)

The controls (the table :data:`CONTROLS`) → ``jobs.run(figure1.noise_rows)`` (certifies σ of
each n) → ``cached(figure1_view)`` → Vega-Lite charts (:mod:`mipcore.plots.figure1_vega`; the η
range only changes their tables) → sentences, templates of ``noise_vs_eta.md``. The paper's
claims are judged by :func:`mipcore.experiments.figure1.paper_claims`; this script only writes
them out.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

import appkit
from appkit import controls, fmt_num, jobs
from appkit.controls import choice, multi, span, toggle
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.bounds import attacker_accuracy
from mipcore.experiments import figure1
from mipcore.experiments.figure1 import Coverage, Figure1View, NoiseRow, paper_over_certified
from mipcore.noise import (
    COROLLARY14_CONSTANT,
    THEOREM9_CONSTANT,
    dp_laplace_scale,
    mip_noise_scale,
)
from mipcore.plots import figure1_vega as charts
from mipcore.plots.formatting import superscript
from mipcore.theorem9 import required_noise_multiplier

PAGE = "noise_vs_eta"
PRESET = figure1.PAPER_PRESET
EQUAL_ENDS_HALF_WIDTH = 0.005  # equal η handles: the charts use η ± this
CURVE_POINTS = 200
READ_ETA = 0.1  # the η the plain-language reading quotes (clamped to the range shown)
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
CONSTANTS = {
    COROLLARY14_CONSTANT: "6.16 (Corollary 14, M ≥ 2)",
    THEOREM9_CONSTANT: "7.5 (Theorem 9, any M)",
}

# The defaults are the settings of the paper's Figure 1 (the preset button restores them).
CONTROLS = controls.table(
    multi("n", "dataset sizes n (even, up to 200)", range(4, 201, 2), PRESET.ns, help="One set of curves per n; at most 8.", max_selected=8, min_selected=0),
    choice("M", "moment order M", range(2, 9), PRESET.M, help="σ bounds the M-th root of E|output − mean| to the power M; M = 2: the standard deviation. The printed MIP noise is (C/η) to the power 1 + 2/M, times σ."),
    choice("c", "constant C (printed curve)", tuple(CONSTANTS), PRESET.constant, CONSTANTS, "Corollary 14 sharpens Theorem 9's 7.5 to 6.16 for M ≥ 2 (the paper's Figure 1 uses 6.16). The smallest certified noise does not depend on C.", radio=True),
    span("eta", "η range (x-axis)", 0.001, 0.499, (PRESET.eta_min, PRESET.eta_max), 0.001, "%.3f", "η = 0 is perfect privacy (infinite noise), η = 1/2 no privacy at all."),
    toggle("logy", "log y-axis", PRESET.log_y),
    toggle("logx", "log x-axis", False),
    toggle("cap", "cap y at the printed MIP maximum", True, "The paper prints no axis limits. With the cap, the y-axis stops at the printed MIP noise at the smallest η shown, which is how its plot reads; DP curves entirely above it are off the plot."),
    toggle("tight", "smallest certified MIP noise", True, "Theorem 9's noise with multiplier c certifies η ≤ ½(1 − exp(−1/c)) in every dimension, so c = −1/ln(1 − 2η) suffices: the dotted curves."),
)  # fmt: skip
DEFAULTS = {key: c.default for key, c in CONTROLS.items()}


def apply_preset() -> None:
    """The preset button's callback: runs before the widgets exist, so it may set them."""
    for key, value in DEFAULTS.items():
        st.session_state[key] = list(value) if key == "n" else value


def gap_text(row: NoiseRow) -> str:
    """Where DP becomes cheaper again, as 1/2 − gap (also below the smallest double)."""
    gap, log10_gap = row.crossover.high_gap, row.upper_log10_gap
    if gap is not None and gap > 0:
        return say(PAGE, "gap", gap=gap)
    if log10_gap is not None:
        e = math.floor(log10_gap)
        return say(PAGE, "gap_power", mantissa=10 ** (log10_gap - e), power=superscript(e))
    return prose_text(PAGE, "gap_beyond")


def sig(M: int) -> str:
    """σ_M written with a subscript: σ₂."""
    return "σ" + str(M).translate(SUB)


def num_or(x: float | None, missing: str) -> str:
    return missing if x is None else fmt_num(x)


def listed(items: list[Any]) -> str:
    return ", ".join(map(str, items))


def spaced(parts: list[str]) -> str:
    """Sentences one after the other, each followed by a space (as the page always wrote them)."""
    return "".join(p + " " for p in parts)


page = appkit.page(PAGE)
prose(PAGE, "intro")

main = page.slot()  # controls, charts, table and readings: rerun on each change

# ------------------------------------------------------------------------------ the claims
with st.container(border=True):
    st.subheader("Paper vs this computation")
    claims = page.slot()

# ------------------------------------------------------------------------------ the maths
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")


def _controls() -> dict[str, Any]:
    """The preset button, the controls, and the notes they call for; the values by key (the
    η range widened when both handles meet)."""
    b_col, b_note = st.columns([1, 3], vertical_alignment="center")
    b_col.button(
        "Paper Figure 1",
        on_click=apply_preset,
        key="preset",
        icon=":material/restore:",
        help=prose_text(PAGE, "preset_help"),
    )
    v: dict[str, Any] = {}
    for col, key in zip(st.columns([3, 1, 2]), ("n", "M", "c"), strict=True):
        with col:
            v[key] = controls.draw(CONTROLS[key])
    v["n"] = sorted(v["n"])
    v["eta"] = tuple(controls.draw(CONTROLS["eta"]))
    for col, key in zip(st.columns(4), ("logy", "logx", "cap", "tight"), strict=True):
        with col:
            v[key] = controls.draw(CONTROLS[key])
    if {**v, "n": tuple(v["n"]), "tight": True} != DEFAULTS:
        b_note.caption(prose_text(PAGE, "preset_button"))
    elif v["tight"]:
        b_note.caption(prose_text(PAGE, "preset_tight"))
    else:
        b_note.caption(prose_text(PAGE, "preset"))
    lo, hi = v["eta"]
    if lo >= hi:  # both handles on one value: not a range
        ends = CONTROLS["eta"]
        wide = max(ends.lo, lo - EQUAL_ENDS_HALF_WIDTH), min(ends.hi, lo + EQUAL_ENDS_HALF_WIDTH)
        st.warning(say(PAGE, "equal_ends", eta=lo, lo=wide[0], hi=wide[1]), icon="⚠️")
        v["eta"] = wide
    if v["M"] > 2:
        power = 0.5 - 1 / v["M"]
        st.info(say(PAGE, "high_moment", M=v["M"], sig=sig(v["M"]), power=power), icon="ℹ️")
    return v


def _notice(view: Figure1View) -> None:
    """The noise chart's takeaway, and per n where the printed MIP noise is below DP's."""
    coverage = {r.n: view.coverage(r) for r in view.rows}
    everywhere = [n for n, c in coverage.items() if c is Coverage.EVERYWHERE]
    never = [n for n, c in coverage.items() if c is Coverage.NEVER]
    if len(everywhere) == len(view.rows):
        appkit.takeaway(prose_text(PAGE, "takeaway_everywhere"))
    elif len(never) == len(view.rows):
        appkit.takeaway(prose_text(PAGE, "takeaway_never"))
    else:
        appkit.takeaway(prose_text(PAGE, "takeaway_depends"))
    items = [say(PAGE, "notice_everywhere", ns=listed(everywhere))] if everywhere else []
    for r in view.rows:
        cov = coverage[r.n]
        if cov is Coverage.FROM:
            items.append(say(PAGE, "notice_from", r=r))
        elif cov is Coverage.BETWEEN:
            items.append(say(PAGE, "notice_between", r=r, gap=gap_text(r)))
        elif cov is Coverage.UNTIL:
            items.append(say(PAGE, "notice_until", r=r, gap=gap_text(r)))
        elif cov is Coverage.OUTSIDE:
            items.append(say(PAGE, "notice_outside", r=r))
    if never:
        items.append(say(PAGE, "notice_never", ns=listed(never)))
    notes = [say(PAGE, "notice", items="; ".join(items))]
    if len(view.rows) > 1 and view.mip_curves_coincide:
        notes.append(say(PAGE, "coincide", sig=sig(view.M)))
    if view.y_top is not None:
        notes.append(say(PAGE, "top", view=view))
        if view.hidden:
            hidden = [say(PAGE, "hidden_one", r=r, floor=view.dp_floor(r)) for r in view.hidden]
            notes.append(say(PAGE, "hidden", curves=", ".join(hidden)))
    st.markdown(" ".join(notes))


def _certified(view: Figure1View, v: dict[str, Any]) -> None:
    """The smallest certified MIP noise, in numbers and words."""
    M, s = v["M"], sig(v["M"])
    st.subheader("The smallest certified MIP noise")
    at_min = paper_over_certified(view.eta_min, M, view.constant)
    at_max = paper_over_certified(view.eta_max, M, view.constant)
    prose(PAGE, "certified", view=view, at_min=at_min, at_max=at_max)
    parts = [say(PAGE, "disappear", sig=s)]
    cheaper = [r for r in view.rows if r.certified_cheaper]
    ns = listed([r.n for r in cheaper])
    ratios = ", ".join(fmt_num(r.certified_ratio, 3) for r in cheaper)
    if len(cheaper) == 1:
        parts.append(say(PAGE, "cheaper_one", ns=ns, ratios=ratios))
    elif cheaper:
        parts.append(say(PAGE, "cheaper_many", ns=ns, ratios=ratios))
    for r in view.rows:
        if r.certified_cheaper:
            continue
        if r.certified_crossover_eta is not None:
            parts.append(say(PAGE, "certified_crossing", r=r, sig=s))
        else:
            parts.append(say(PAGE, "certified_never", r=r, sig=s))
    st.markdown(spaced(parts) + (say(PAGE, "certified_moment", sig=s) if M > 2 else ""))
    if v["tight"] and not v["logy"]:
        st.caption(prose_text(PAGE, "hug_zero"))


def _ratio(view: Figure1View, v: dict[str, Any]) -> None:
    """The DP / MIP noise ratio chart."""
    fig, data = appkit.cached(charts.ratio_vega, view, log_x=v["logx"], show_certified=v["tight"])
    appkit.chart(fig, data, "dp_over_mip_ratio", key="ratio_chart")
    if all(r.certified_cheaper for r in view.rows):
        appkit.takeaway(prose_text(PAGE, "ratio_takeaway_all"))
    else:
        appkit.takeaway(prose_text(PAGE, "ratio_takeaway"))
    st.caption(say(PAGE, "ratio_caption", power=1 + 2 / v["M"], sig=sig(v["M"])))


def _table_text(rows: tuple[NoiseRow, ...], s: str) -> tuple[str, str]:
    """The crossovers table (Markdown) and its caption: they depend on the n, M and C chosen,
    not on the η range, so moving the range reuses them."""
    table = pd.DataFrame(
        [
            {
                "n": str(x.n),
                "Δ (sensitivity)": fmt_num(x.sensitivity),
                f"{s} (certified)": fmt_num(x.sigma),
                "crossover η (MIP cheaper above)": num_or(x.crossover.low, "never"),
                "DP cheaper again above η =": "—" if x.crossover.low is None else gap_text(x),
                "…i.e. at DP ε =": num_or(x.crossover.high_epsilon, "—"),
                "max DP/MIP ratio": fmt_num(x.crossover.best_ratio),
                "at η =": fmt_num(x.crossover.best_eta),
                "DP ÷ certified MIP (at least)": fmt_num(x.certified_ratio),
            }
            for x in rows
        ]
    )
    # One column per n (a row per quantity): nine quantities side by side do not fit a
    # projector's column, and the page allows at most eight n.
    per_n = table.set_index("n").T
    per_n.columns = [f"n = {n}" for n in per_n.columns]
    markdown = appkit.tables.markdown_table(
        per_n.reset_index(names="quantity"), right=list(per_n.columns)
    )
    crossing = [r for r in rows if r.crossover.low is not None]
    parts = [prose_text(PAGE, "table_crossover")]
    finite = [x for x in crossing if x.upper_log10_gap is not None]
    if finite:
        widest = max(finite, key=lambda x: x.upper_log10_gap or -math.inf)
        least_eps = min(x.crossover.high_epsilon or math.inf for x in finite)
        parts.append(say(PAGE, "table_hair", gap=gap_text(widest), n=widest.n, eps=least_eps))
    if len(finite) < len(crossing):
        beyond = [x.n for x in crossing if x.upper_log10_gap is None]
        parts.append(say(PAGE, "table_beyond", ns=listed(beyond)))
    if len(crossing) < len(rows):
        parts.append(prose_text(PAGE, "table_never"))
    return markdown, spaced(parts) + say(PAGE, "table_certified", sig=s)


def _table(view: Figure1View, s: str) -> None:
    """Crossovers per n, one column per n."""
    st.subheader("Crossovers per n")
    markdown, caption = appkit.cached(_table_text, tuple(view.rows), s)
    appkit.tables.show(markdown)
    st.caption(caption)


def _reading(view: Figure1View, s: str) -> None:
    """The plain-language reading of the largest and smallest n, at η = :data:`READ_ETA`."""
    st.subheader("In plain words")
    with appkit.guard("The reading"):
        big, small, M = view.rows[-1], view.rows[0], view.M
        eta = min(max(READ_ETA, view.eta_min), view.eta_max)
        mip = float(mip_noise_scale(eta, big.sigma, M, view.constant))  # Theorem 9 as printed
        cert = float(required_noise_multiplier(eta, M=M, d=1) * float(big.sigma))  # certified
        dp = float(dp_laplace_scale(eta, big.sensitivity))  # the Laplace mechanism, Theorem 4
        promise = say(PAGE, "promise", eta=eta, accuracy=attacker_accuracy(eta))
        if dp / mip >= 1:
            reading = say(
                PAGE, "reading_dp", big=big, promise=promise, times=dp / mip, dp=dp, mip=mip, sig=s
            )
        else:
            times = 1 / (dp / mip)
            reading = say(
                PAGE, "reading_mip", big=big, promise=promise, times=times, mip=mip, dp=dp
            )
        parts = [reading, say(PAGE, "reading_certified", cert=cert, paper=mip / cert, dp=dp / cert)]
        coverage = view.coverage(small)
        if small.n == big.n:
            pass
        elif coverage is Coverage.NEVER:
            parts.append(say(PAGE, "reading_never", small=small))
        elif coverage is Coverage.EVERYWHERE:
            parts.append(say(PAGE, "reading_everywhere", small=small))
        elif small.crossover.low is not None:
            parts.append(say(PAGE, "reading_part", small=small))
        st.markdown(" ".join(parts))


def _curves(v: dict[str, Any]) -> None:
    """The noise chart, the certified minimum, the ratio chart, the table and the reading."""
    view = None
    with appkit.guard("The noise curves"):
        rows = jobs.run(
            figure1.noise_rows,
            tuple(v["n"]),
            v["M"],
            v["c"],
            label=say(PAGE, "certifying", sig=sig(v["M"])),
            quick=True,  # bounded by n <= 200
        )
        view = appkit.cached(
            figure1.figure1_view, rows, *v["eta"], cap=v["cap"], points=CURVE_POINTS
        )
        # The η range is in the tables, not in the specifications: moving it redraws the
        # charts in place.
        fig, data = appkit.cached(
            charts.noise_vega, view, log_x=v["logx"], log_y=v["logy"], show_certified=v["tight"]
        )
        hidden = listed([r.n for r in view.hidden])
        caption = None
        if view.y_top is not None:
            caption = say(PAGE, "capped", ns=hidden) if hidden else prose_text(PAGE, "capped_none")
        appkit.chart(fig, data, "noise_vs_eta", key="noise_chart", caption=caption)
        _notice(view)
        _certified(view, v)
        _ratio(view, v)
        _table(view, sig(v["M"]))
    if view is not None:
        _reading(view, sig(v["M"]))


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
    mark = ["❌", "✅"]
    st.caption(say(PAGE, "claims_caption", cl=cl, M=M, constant=constant))
    one, two, three = cl.verdicts
    if one:
        evidence = say(PAGE, "claim1_holds", cl=cl)
    else:
        failures = listed(list(cl.failures[:8])) + ("…" if len(cl.failures) > 8 else "")
        evidence = say(PAGE, "claim1_fails", cl=cl, failures=failures)
    prose(PAGE, "claim1", mark=mark[one], cl=cl, M=M, constant=constant, evidence=evidence)
    prose(PAGE, "claim2", mark=mark[two], evidence=_start_evidence(cl))
    if cl.first_hidden is not None:
        first = say(PAGE, "first_hidden", cl=cl)
    else:
        first = prose_text(PAGE, "no_hidden")
    prose(PAGE, "claim3", mark=mark[three], cl=cl, first=first)
    if cl.certified_first_n is not None:
        answer = say(PAGE, "claims_changes", n=cl.certified_first_n)
    else:
        answer = prose_text(PAGE, "claims_same")
    st.caption(say(PAGE, "claims_note", answer=answer))


def _start_evidence(cl: figure1.PaperClaims) -> str:
    """The evidence for or against "n = 36 is where this starts"."""
    first = cl.first_n
    if first is None:
        return say(PAGE, "start_none", cl=cl)
    x30 = cl.crossover_of(30)
    where30 = (
        say(PAGE, "where30", eta=x30) if x30 is not None else prose_text(PAGE, "where30_never")
    )
    if cl.holds_from_first_on:
        evidence = say(PAGE, "start_stays", cl=cl, where30=where30)
    else:
        evidence = say(PAGE, "start_not_on", cl=cl, where30=where30)
    before = [
        say(PAGE, "already_one", n=n, eta=x)
        for n, x, ok in zip(cl.ns, cl.crossovers, cl.cheaper, strict=True)
        if first <= n < figure1.CLAIMED_FIRST_N and ok and x is not None
    ]
    if before:
        evidence += " " + say(PAGE, "already", ns=" and ".join(before))
    return evidence


def _live() -> None:
    with main:
        appkit.messages()
        v = _controls()
        if not v["n"]:
            st.warning(prose_text(PAGE, "no_n"), icon="⚠️")
        else:
            _curves(v)
    with claims, appkit.guard("The paper's claims"):
        _claims(v["M"], v["c"])


appkit.live(page, _live)
