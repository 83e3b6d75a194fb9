"""How much noise would my own statistic need? Algorithm 1 (MIP) beside the DP Laplace mechanism.

Widgets → one lesson call (:func:`mipcore.lessons.statistic_release.compare_generated` or
:func:`~mipcore.lessons.statistic_release.compare_releases`, through ``appkit.cached``, or
``appkit.jobs.run`` when :func:`~mipcore.lessons.statistic_release.release_work` says it can
take a second or more) → Vega-Lite charts (:mod:`mipcore.plots.wrap_vega`) → sentences.

Uploads are read by :func:`mipcore.tabular.parse_numeric_csv` through ``appkit.cached`` on the
file's bytes: a file is parsed once per content, refusals included, never again on a rerun.
Column and file names are shown as text (``appkit.plain``; the charts draw them as text).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

import appkit
from appkit import fmt_num, fmt_pct, jobs, plain
from appkit.prose import prose
from mipcore import tabular
from mipcore.lessons import statistic_release as lesson
from mipcore.lessons.statistic_release import Comparison, Statistic, Verdict
from mipcore.mechanism import MipCalibration
from mipcore.plots import wrap_vega

SOURCES = ["generated", "upload CSV"]
N_MIN, N_MAX, N_DEFAULT = 50, 200_000, 2_000
D_MAX, D_DEFAULT = 10, 3
ETA_MIN, ETA_MAX, ETA_DEFAULT = 0.01, 0.49, 0.2
M_OPTIONS = list(range(2, 9))
B_MIN, B_MAX, B_DEFAULT, B_STEP = 16, 256, 64, 16
SEED_MAX = 2**31 - 1
SHOWN_ROWS = 400  # the table shows at most this many rows (20 columns give 400 second moments)
SHOWN_NAMES = 10  # notes list at most this many column names

STAT_LABELS = {
    Statistic.MEAN: "mean of each column",
    Statistic.COVARIANCE: "second moments E[x xᵀ]",
    Statistic.LINEAR_REGRESSION: "linear regression (last column on the others)",
}
CAL_LABELS = {
    MipCalibration.TIGHT: "Tight: least certified noise",
    MipCalibration.PAPER: "Paper's constant (Corollary 14)",
    MipCalibration.AS_PRINTED: "As printed (Laplace radius)",
}
SEPARATORS = {";": "semicolons", "\t": "tabs", "|": "vertical bars", " ": "spaces"}


def _count(n: int) -> str:
    """A whole number with narrow spaces between thousands: 200 000."""
    return f"{n:,}".replace(",", "\u202f")


LIMITS = (
    f"up to {tabular.MAX_UPLOAD_BYTES / 1e6:g} MB, {2 * tabular.MAX_COLS} columns of which "
    f"at most {tabular.MAX_COLS} numeric, {_count(tabular.MAX_ROWS)} rows"
)


def _names(names: tuple[str, ...] | list[str]) -> str:
    """Column names as plain text in quotes, at most SHOWN_NAMES of them."""
    shown = ", ".join(appkit.quote(n, max_chars=60) for n in names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def _plural(k: int, word: str) -> str:
    return f"{_count(k)} {word}" + ("" if k == 1 else "s")


def _regression_needs_two_columns(stat: Statistic) -> bool:
    """Linear regression needs d ≥ 2 (the d slider's minimum then): a d = 1 this page holds
    or a link gives becomes 2 before the slider is drawn. True when that happened."""
    if stat.min_columns < 2:
        return False
    if "d" in st.session_state:
        if st.session_state["d"] == 1:
            st.session_state["d"] = 2
            return True
        return False
    if str(st.query_params.get("d", "")).strip() in ("1", "1.0"):
        st.query_params["d"] = "2"
        return True
    return False


def _multiple_of_b_step(b: float) -> None:
    if b % B_STEP:
        raise ValueError(f"not a multiple of {B_STEP}")


def _upload_notes(parsed: tabular.ParsedTable, file_name: str) -> None:
    """What the parser did to the file, from ParsedTable's structured fields."""
    notes = []
    if parsed.encoding in ("utf-16", "utf-32"):
        notes.append(f"Decoded as {parsed.encoding.upper()} (announced by its byte-order mark).")
    if parsed.delimiter in SEPARATORS:
        notes.append(f"Fields separated by {SEPARATORS[parsed.delimiter]}.")
    if parsed.dropped_columns:
        notes.append(
            f"Dropped {_plural(len(parsed.dropped_columns), 'non-numeric column')}: "
            f"{_names(parsed.dropped_columns)}."
        )
    if parsed.dropped_rows:
        notes.append(
            f"Dropped {_plural(parsed.dropped_rows, 'row')} with a missing, non-numeric or "
            "infinite value."
        )
    if parsed.dropped_large_rows:
        notes.append(
            f"Dropped {_plural(parsed.dropped_large_rows, 'row')} with a value above 10¹⁰⁰ in "
            "magnitude; to keep such rows, rescale their columns (change the unit)."
        )
    if parsed.renamed_columns:
        notes.append(
            f"Renamed {_plural(len(parsed.renamed_columns), 'column')} whose header was blank, "
            f"too long, held control characters or repeated another: "
            f"{_names(parsed.renamed_columns)}."
        )
    for note in notes:
        st.info(note, icon="ℹ️")
    data = parsed.data
    st.caption(
        f"Read {appkit.quote(file_name, max_chars=60)}: {_plural(len(data), 'row')} of "
        f"{_plural(data.shape[1], 'numeric column')}: {_names(list(data.columns))}."
    )


def _prop11_link() -> None:
    label = "Proposition 11: an algorithm whose σ stays O(1) while Δ explodes"
    try:
        st.page_link("app_pages/proposition11.py", label=label, icon="🧮")
    except StreamlitPageNotFoundError:  # the page run on its own, outside app.py's navigation
        st.markdown(f"See the page **{label}** of the full app (`streamlit run app.py`).")


def _between(values, fmt=lambda x: f"{fmt_num(x, 3)}×") -> str:
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"between {lo} and {hi}"


def _certification(comp: Comparison) -> None:
    """What the MIP release is certified to, in the page's unit (attacker accuracy)."""
    res = comp.release
    cal, cert, k = res.calibration, res.certified_eta, res.noised
    eta = fmt_num(res.eta, 3)
    if cert is None:
        more = comp.printed_to_tight
        st.warning(
            f"**Not certified for d > 1:** no proof covers the printed Laplace radius in more "
            f"than one dimension, and this release noises k = {k} numbers — it carries no "
            "membership-privacy guarantee. Theorem 9's density needs the Gamma radius. "
            + (
                f"The tight calibration certifies η = {eta} with about "
                f"{fmt_num(more if more >= 1 else 1 / more, 3)}× "
                + ("less" if more >= 1 else "more")
                + " noise than this uncertified one."
            ),
            icon="⚠️",
        )
        return
    accuracy = fmt_pct(0.5 + cert)
    if cal is MipCalibration.PAPER:
        st.markdown(
            f"**Certified η-MIP with η = {eta}, with a large margin:** the paper's constant "
            f"c = {fmt_num(res.mip_c)} certifies η = {fmt_num(cert, 2)} in every dimension "
            f"(no attacker right more than {fmt_pct(0.5 + cert, 2)} of the time) — far below "
            f"the {eta} asked. The tight calibration reaches η = {eta} with "
            f"c = {fmt_num(comp.tight_c, 3)}: {fmt_num(comp.paper_to_tight, 3)}× less noise."
        )
    elif cal is MipCalibration.TIGHT:
        st.markdown(
            f"**Certified η-MIP with η = {fmt_num(cert, 3)}:** no attacker is right more than "
            f"{accuracy} of the time. Theorem 9's noise density certifies ½(1 − exp(−1/c)) in every "
            f"dimension, and c = {fmt_num(res.mip_c, 4)} is the smallest c that reaches "
            f"η = {eta}. The paper's constant, c = {fmt_num(comp.paper_c)}, would add "
            f"{fmt_num(comp.paper_to_tight, 3)}× more noise."
        )
    else:
        st.info(
            f"**Certified η-MIP with η = {fmt_num(cert, 2)}:** with one noised number the "
            "printed Laplace radius and Theorem 9's Gamma radius give the same noise, so the "
            f"paper's constant c = {fmt_num(res.mip_c)} is certified here (no attacker right "
            f"more than {fmt_pct(0.5 + cert, 2)} of the time).",
            icon="ℹ️",
        )


def _verdict(comp: Comparison) -> None:
    """The spread chart's takeaway, then why."""
    res = comp.release
    k_txt = "k·" if comp.radius_factor > 1 else ""
    draws = comp.spread.draws
    v = comp.verdict
    if v in (Verdict.DP_LESS, Verdict.MIP_LESS, Verdict.MIXED):
        n = comp.mip_to_dp.size
        where = "its one number" if n == 1 else f"all {n} numbers"
        if v is Verdict.DP_LESS:
            appkit.takeaway(
                f"**For this data DP adds less noise** — on {where}. Over {draws} draws, MIP's "
                f"median |noise| is {_between(comp.mip_to_dp)} DP's."
            )
        elif v is Verdict.MIP_LESS:
            appkit.takeaway(
                f"**For this data MIP adds less noise** — on {where}. Over {draws} draws, DP's "
                f"median |noise| is {_between(1 / comp.mip_to_dp)} MIP's."
            )
        else:
            appkit.takeaway(
                f"**Mixed:** MIP adds less noise on {comp.mip_wins} of {n} numbers, DP on the "
                f"other {n - comp.mip_wins} (median |noise| over {draws} draws)."
            )
        assert comp.delta_over_sigma is not None
        appkit.explain(
            f"**Why.** MIP's noise on number j is about {k_txt}c·σⱼ "
            f"(c = {fmt_num(res.mip_c)}" + (f", k = {comp.radius_factor}" if k_txt else "") + "); "
            f"DP's is about Δ/ε = {fmt_num(res.dp_scale)} on every number. So MIP only wins "
            f"where Δ/σⱼ is above about {k_txt}c·ε = **{fmt_num(comp.breakeven)}**; here Δ/σⱼ "
            f"is {_between(comp.delta_over_sigma, lambda x: fmt_num(x, 3))}. For ordinary "
            "statistics on ordinary data Δ is not large compared with σ (for a mean, Δ shrinks "
            "like 1/m and σ only like 1/√m, m the training rows), so DP usually wins — with "
            "the paper's constant, whose c is hundreds of times larger, by orders of "
            "magnitude. MIP shines when the sensitivity is huge compared with the spread:"
        )
        _prop11_link()
    elif v is Verdict.NOT_COMPARABLE:
        appkit.takeaway("No number has noise on both sides to compare.")
    elif v is Verdict.MIP_ONLY:
        appkit.takeaway(
            f"**MIP only.** Over {draws} draws MIP's median |noise| is "
            f"{_between(comp.mip_to_sigma)} σⱼ, the statistic's own spread over random halves."
        )
        appkit.explain(
            f"That is about {k_txt}c with c = {fmt_num(res.mip_c)}"
            + (f" and k = {comp.radius_factor}" if k_txt else "")
            + ": the price of a guarantee without a sensitivity. It pays off when the "
            "sensitivity is huge or infinite while σ is small:"
        )
        _prop11_link()
    else:
        appkit.takeaway("Every number has σ = 0 over the B halves: MIP adds no noise.")


def _maths() -> None:
    """The formulas. Static, but shown only once the releases are computed (no file yet, a
    refused file or a failed release end the page before them), so the live part draws them."""
    with appkit.folded("The maths") as shown:
        if shown:
            prose("wrap", "maths")


# ---------------------------------------------------------------- page
page = appkit.page("wrap")
prose("wrap", "intro")

# ---------------------------------------------------------------- data and statistic
st.subheader("1. Data and statistic")
# Everything below depends on the widgets: after the data source even the section headers
# and the formulas appear only once the data can be used (see the returns in _live).
main = page.slot()


class Generated(NamedTuple):
    """What the generated data's controls chose."""

    n: int
    d: int
    dseed: int


class Privacy(NamedTuple):
    """What the privacy and noise controls chose."""

    eta: float
    M: int
    B: int
    calibration: MipCalibration
    seed: int
    widen: float


def _source_controls() -> tuple[str, Statistic]:
    """The data source and the statistic, side by side."""
    c1, c2 = st.columns([2, 3])
    with c1:
        src = appkit.url_select("Data source", "src", SOURCES, default="generated", widget="radio")
    with c2:
        stat = appkit.url_select(
            "Statistic",
            "stat",
            list(Statistic),
            default=Statistic.MEAN,
            format_func=lambda s: STAT_LABELS[Statistic(s)],
            help="Mean: one number per column. Second moments: the d × d matrix (1/m)·Σ x xᵀ "
            "(the covariance when the columns are centred). Linear regression: the least-squares "
            "intercept and coefficients of the last column on the others.",
        )
    return src, stat


def _generated(stat: Statistic) -> Generated:
    """The generated data's controls (n, d, data seed) and what they generate."""
    raised = _regression_needs_two_columns(stat)
    c1, c2, c3 = st.columns(3)
    with c1:
        n = appkit.url_number(
            "n (rows)",
            "n",
            min_value=N_MIN,
            max_value=N_MAX,
            default=N_DEFAULT,
            step=500,
            help="Number of records in the dataset.",
        )
    with c2:
        d = appkit.url_slider(
            "d (columns)",
            "d",
            min_value=stat.min_columns,
            max_value=D_MAX,
            default=D_DEFAULT,
            help="For linear regression the last column is the response, so d ≥ 2.",
        )
    with c3:
        dseed = appkit.url_number(
            "data seed",
            "dseed",
            min_value=0,
            max_value=SEED_MAX,
            default=0,
            step=1,
            help="Same seed, same dataset.",
        )
    if raised:
        st.info(
            "Linear regression needs at least two columns — the features, then the response "
            "in the last column — so d is 2 here, not 1 (d = 1 works for the mean and the "
            "second moments).",
            icon="ℹ️",
        )
    if stat is Statistic.LINEAR_REGRESSION:
        st.caption(
            f"Generated: {_count(n)} rows; "
            + ("feature x1" if d == 2 else f"features x1…x{d - 1}")
            + " standard normal, response y = x·β + 0.5 + noise"
            + (" with β = 1." if d == 2 else " with β from 1 down to −1.")
        )
    else:
        st.caption(
            f"Generated: {_count(n)} rows of {d} independent normal columns with means from "
            "0 to 2 and standard deviations from 1 to 2."
        )
    return Generated(n, d, dseed)


def _uploaded(stat: Statistic) -> tabular.ParsedTable | None:
    """The uploader and its file, read with notes; None (after a sentence) if no file is usable."""
    upload = st.file_uploader(
        f"CSV file: {LIMITS}",
        type=["csv", "txt"],
        key="upload",
        max_upload_size=5,  # MB: mipcore.tabular.MAX_UPLOAD_BYTES (the server takes up to 20)
        help="Read as text by a CSV parser only; nothing in the file is executed. The file "
        "stays in this browser session.",
    )
    st.caption(
        "A header row, then one record per row; fields separated by , ; tab or |. "
        "Non-numeric columns, and rows with a missing, infinite or huge (above 10¹⁰⁰) value, "
        "are dropped with a note. At least 8 usable rows."
    )
    if upload is None:
        st.info(
            "No file yet: upload a CSV file above to see the releases, or switch the data "
            f"source to “generated”. The uploader itself refuses a file over "
            f"{tabular.MAX_UPLOAD_BYTES / 1e6:g} MB (a red mark beside its name).",
            icon="📄",
        )
        return None
    try:
        parsed = appkit.cached(tabular.parse_numeric_csv, upload.getvalue())
    except tabular.UploadRejected as exc:
        st.error(
            f"This file cannot be used: {plain(exc, max_chars=400)}. Accepted: {LIMITS}.",
            icon="🚫",
        )
        return None
    assert parsed is not None
    _upload_notes(parsed, upload.name)
    if parsed.data.shape[1] < stat.min_columns:
        st.warning(
            "Linear regression needs at least two numeric columns — the features, then the "
            f"response in the last column — and this file has one, "
            f"{_names(list(parsed.data.columns))}. Choose the mean or the second moments "
            "above, or upload a file with at least two numeric columns.",
            icon="⚠️",
        )
        return None
    return parsed


def _privacy_controls(stat: Statistic) -> Privacy:
    """Section 2: η, M and B side by side, the calibration, then the noise seed and widening."""
    st.subheader("2. Privacy level and noise")
    c1, c2, c3 = st.columns(3)
    with c1:
        eta = appkit.url_slider(
            "η (attacker's edge over guessing)",
            "eta",
            min_value=ETA_MIN,
            max_value=ETA_MAX,
            default=ETA_DEFAULT,
            step=0.01,
            format="%.2f",
            help="The target: no attacker right more than 50 % + η of the time "
            "(η = 0.2: at most 70 %).",
        )
    with c2:
        M = appkit.url_select(
            "M (moment order of σ)",
            "M",
            M_OPTIONS,
            default=2,
            help="σⱼ is the M-th root of the M-th absolute central moment over the B halves "
            "(M = 2: a standard deviation). The paper's constant is 6.16/η to the power 1 + 2/M.",
        )
    with c3:
        B = appkit.url_slider(
            "B (random halves for σ)",
            "B",
            min_value=B_MIN,
            max_value=B_MAX,
            default=B_DEFAULT,
            step=B_STEP,
            validate=_multiple_of_b_step,
        )
    calibration = appkit.url_select(
        "Noise calibration of the MIP release",
        "radius",
        list(CAL_LABELS),
        default=MipCalibration.TIGHT,
        widget="radio",
        format_func=lambda c: CAL_LABELS[MipCalibration(c)],
        help="Tight: c = −1/ln(1 − 2η), the least noise Theorem 9's density certifies, in every "
        "dimension. The paper's constant: c = 6.16/η to the power 1 + 2/M, also certified in "
        "every dimension, with a large margin. As printed: the paper's c with the Laplace radius "
        "Algorithm 1 prints — certified only for one released number.",
    )
    seed, widen = _seed_and_widen(stat)
    return Privacy(eta, M, B, calibration, seed, widen)


def _seed_and_widen(stat: Statistic) -> tuple[int, float]:
    """Section 2's second row: the noise seed and (with a sensitivity) the DP bounds' widening."""
    c4, c5, _ = st.columns(3)
    with c4:
        seed = appkit.url_number(
            "noise seed",
            "seed",
            min_value=0,
            max_value=SEED_MAX,
            default=0,
            step=1,
            help="Seeds the random half, the B halves and both noises.",
        )
    widen = 1.0
    if stat.has_sensitivity:
        with c5:
            widen = appkit.url_slider(
                "Widen the DP clipping bounds",
                "widen",
                min_value=1.0,
                max_value=lesson.MAX_WIDEN,
                default=1.0,
                step=0.5,
                format="%.1f×",
                help="Each column's interval [min, max] is stretched about its centre by this "
                "factor. Wider bounds mean a larger sensitivity Δ and more DP noise.",
            )
    return seed, widen


def _compare(
    stat: Statistic, data: Generated | tabular.ParsedTable, p: Privacy
) -> Comparison | None:
    """Both releases, computed (in a job when heavy); None, with a sentence, if they fail."""
    options: dict[str, Any] = dict(
        M=int(p.M), B=int(p.B), seed=int(p.seed), widen=float(p.widen), calibration=p.calibration
    )
    if isinstance(data, Generated):
        n, d, dseed = data
        work = lesson.release_work(int(n), int(d), stat, int(p.B))
        call: tuple = (lesson.compare_generated, stat, int(n), int(d), int(dseed), float(p.eta))
    else:
        work = lesson.release_work(len(data.data), data.data.shape[1], stat, int(p.B))
        call = (lesson.compare_releases, data.data, stat, float(p.eta))
    try:
        if work > lesson.HEAVY_WORK:
            comp: Comparison = jobs.run(
                *call,
                label="Algorithm 1 on this data",
                quick=work <= 5 * lesson.HEAVY_WORK,  # about 5 s at most
                **options,
            )
        else:
            comp = appkit.cached(*call, **options)
    except ValueError as exc:
        st.error(f"The releases could not be computed: {plain(exc, max_chars=400)}.", icon="🚫")
        return None
    except jobs.JobFailed as exc:
        st.error(f"The releases could not be finished: {exc}.", icon="🚫")
        return None
    return comp


def _releases(comp: Comparison) -> None:
    """Section 3's opening: the certificate, then the DP side's bounds (or why it has none)."""
    res = comp.release
    st.subheader("3. The releases")
    _certification(comp)
    if res.dp is not None:
        widened = res.bounds.widen
        st.warning(
            "The DP side clips each column to bounds **read off this data** (its min and max"
            + (f", widened {fmt_num(widened, 3)}×" if widened != 1 else "")
            + "). Such bounds are not private — they reveal the smallest and largest values; a real "
            "deployment fixes them in advance, from knowledge of the domain.",
            icon="⚠️",
        )
    else:
        st.info(
            f"**No DP release for {STAT_LABELS[res.statistic]}:** its sensitivity is unbounded. One "
            "record can move least-squares coefficients arbitrarily far when the features are "
            "nearly collinear, so the Laplace mechanism has nothing finite to calibrate to. MIP "
            "needs no sensitivity, only the spread σ over random halves.",
            icon="ℹ️",
        )


def _metrics(comp: Comparison, M: int) -> None:
    """The releases' numbers as metrics (MIP, then DP), and what was released."""
    res = comp.release
    k = res.k
    m1, m2 = st.columns(2)
    m1.metric(
        "MIP noise multiplier c",
        fmt_num(res.mip_c),
        help={
            MipCalibration.TIGHT: f"c = −1/ln(1 − 2η) with η = {fmt_num(res.eta, 3)}.",
            MipCalibration.PAPER: f"c = 6.16/η to the power 1 + 2/M, with η = "
            f"{fmt_num(res.eta, 3)} and M = {M}.",
            MipCalibration.AS_PRINTED: f"c = 6.16/η to the power 1 + 2/M, with η = "
            f"{fmt_num(res.eta, 3)} and M = {M}; Laplace radius.",
        }[res.calibration],
    )
    m2.metric(
        "Certified: best attacker",
        "no guarantee"
        if res.certified_eta is None
        else f"≤ {fmt_pct(0.5 + res.certified_eta, 1 if res.certified_eta > 1e-3 else 2)}",
        help="The certified η as the best attacker's accuracy, 50 % + η (Theorem 9: ½(1 − exp(−1/c))).",
    )
    m4, m5, m6 = st.columns(3)
    m4.metric(
        "ε (DP at the same η)",
        fmt_num(res.epsilon),
        help="ε = log((1+2η)/(1−2η)): ε-DP implies η-MIP (Theorem 4).",
    )
    m5.metric(
        "DP sensitivity Δ (L1)",
        fmt_num(res.sensitivity),
        help="Largest L1 change of the statistic when one record is replaced, on clipped data.",
    )
    m6.metric(
        "DP Laplace scale Δ/ε",
        fmt_num(res.dp_scale),
        help="Scale of the Laplace noise added to each number.",
    )
    st.caption(
        f"θ is the statistic on the random training half ({_count(res.n_train)} of "
        f"{_count(comp.n_rows)} rows); it is never published. k = {k} released "
        f"number{'s' if k != 1 else ''}"
        + (
            f"; {k - res.noised} of them have σ = 0 over the B halves and are released without "
            "MIP noise."
            if res.noised < k
            else "."
        )
    )


def _table(comp: Comparison) -> None:
    """The table of the released numbers (at most SHOWN_ROWS rows)."""
    res = comp.release
    k = res.k
    tab = res.table()
    view: dict[str, list[Any]] = {"#": list(range(1, k + 1))}  # the charts' x positions
    view |= {col: [fmt_num(v) for v in tab[col]] for col in tab.columns[1:]}
    view["quantity"] = list(res.labels)  # last: a long name never hides a number
    if k > SHOWN_ROWS:
        st.caption(f"The table shows the first {SHOWN_ROWS} of {k} rows.")
    st.dataframe(
        {col: values[:SHOWN_ROWS] for col, values in view.items()},
        hide_index=True,
        key="wrap_table",
        # every row of a short table (rows are taller in presenter mode), else a window
        height="content" if k <= 12 else 420,
    )


def _charts(comp: Comparison) -> None:
    """Section 4: this release's error chart, the spread chart over many, and the verdict."""
    res = comp.release
    k = res.k
    st.subheader("4. How far each release lands from θ")
    slug = res.statistic.value.replace(" ", "_")
    by_position = (
        f"The x axis numbers the {k} released numbers (1 to {k}); hover for the name."
        if k > wrap_vega.MAX_TICK_LABELS
        else None
    )
    chart, data = appkit.cached(wrap_vega.error_vega, comp)
    appkit.chart(chart, data, f"wrap_error_{slug}", key="wrap_error", caption=by_position)
    if res.dp is not None and comp.single_compared:
        appkit.takeaway(
            f"In this one release MIP landed closer to θ than DP on {comp.single_mip_wins} of "
            f"{comp.single_compared} numbers — one draw is luck; the next chart shows the typical "
            "size."
        )
    else:
        appkit.takeaway(
            "Each bar is how far this one MIP release landed from θ — one draw is luck; the next "
            "chart shows the typical size."
        )
    chart, data = appkit.cached(wrap_vega.spread_vega, comp)
    appkit.chart(
        chart,
        data,
        f"wrap_spread_{slug}",
        key="wrap_spread",
        caption=f"{comp.spread.draws} further releases of the same θ with fresh noise: dots are "
        "the median |noise|, bars span 10 % to 90 %; the black dash is σⱼ. The y axis is "
        "logarithmic." + (f" {by_position}" if by_position else ""),
    )
    _verdict(comp)


def _bounds(comp: Comparison) -> None:
    """The folded section with the clipping bounds and the first rows of the data."""
    with st.expander("The data and the clipping bounds"):
        bounds = comp.release.bounds
        st.dataframe(
            {
                "column": list(comp.columns),
                "data min": [fmt_num(v) for v in bounds.data_lo],
                "data max": [fmt_num(v) for v in bounds.data_hi],
                "clip lo": [fmt_num(v) for v in bounds.lo],
                "clip hi": [fmt_num(v) for v in bounds.hi],
                "b = max(|lo|, |hi|)": [fmt_num(v) for v in bounds.b],
            },
            hide_index=True,
            key="wrap_bounds",
        )
        st.caption(
            "Both releases see the data clipped to [clip lo, clip hi] (at a factor ≥ 1 nothing is "
            "clipped). A column whose min equals its max gets the interval [min, min + 1]. The "
            "first rows of the data:"
        )
        st.dataframe(comp.head, hide_index=True, key="wrap_head")


def _live() -> None:
    """The live part: data and statistic, privacy and noise, the releases, charts, bounds, maths."""
    with main:
        appkit.messages()
        src, stat = _source_controls()
        data: Generated | tabular.ParsedTable | None
        data = _generated(stat) if src == "generated" else _uploaded(stat)
        if data is None:
            return
        p = _privacy_controls(stat)
        comp = _compare(stat, data, p)
        if comp is None:
            return
        _releases(comp)
        _metrics(comp, p.M)
        _table(comp)
        _charts(comp)
        _bounds(comp)
        _maths()


appkit.live(page, _live)
