"""How much noise would my own statistic need? Algorithm 1 (MIP) beside the DP Laplace mechanism.

The controls (:data:`CONTROLS`) → one experiment call
(:func:`mipcore.experiments.statistic_release.compare_generated` or
:func:`~mipcore.experiments.statistic_release.compare_releases`, through ``appkit.cached``, or
``appkit.jobs.run`` when :func:`~mipcore.experiments.statistic_release.release_work` says it
can take a second or more) → Vega-Lite charts (:mod:`mipcore.plots.wrap_vega`) → sentences,
each a template of ``wrap_statistic.md``. The MIP release is Algorithm 1's own result
(:class:`mipcore.mechanism.MIPRelease`, ``comp.release.mip``).

Uploads are read by :func:`mipcore.tabular.parse_numeric_csv` through ``appkit.cached`` on the
file's bytes: a file is parsed once per content, refusals included, never again on a rerun.
Column and file names are shown as text (``appkit.plain``; the charts draw them as text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

import appkit
from appkit import controls, fmt_num, fmt_pct, jobs, plain
from appkit.controls import choice, number, slider
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore import tabular
from mipcore.experiments import statistic_release as sr
from mipcore.experiments.statistic_release import Comparison, Statistic, Verdict
from mipcore.mechanism import MipCalibration
from mipcore.plots import wrap_vega

PAGE = "wrap"
B_STEP = 16
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
PROP11 = "Proposition 11: an algorithm whose σ stays O(1) while Δ explodes"
JOB = "Algorithm 1 on this data"  # the job's label while it runs


def _multiple_of_b_step(b: float) -> None:
    if b % B_STEP:
        raise ValueError(f"not a multiple of {B_STEP}")


CONTROLS = controls.table(
    choice("src", "Data source", ["generated", "upload CSV"], "generated", radio=True),
    choice("stat", "Statistic", list(Statistic), Statistic.MEAN, lambda s: STAT_LABELS[Statistic(s)], "Mean: one number per column. Second moments: the d × d matrix (1/m)·Σ x xᵀ (the covariance when the columns are centred). Linear regression: the least-squares intercept and coefficients of the last column on the others."),
    number("n", "n (rows)", 50, 200_000, 2_000, 500, help="Number of records in the dataset."),
    slider("d", "d (columns)", 1, 10, 3, help="For linear regression the last column is the response, so d ≥ 2."),
    number("dseed", "data seed", 0, SEED_MAX, 0, 1, help="Same seed, same dataset."),
    slider("eta", "η (attacker's edge over guessing)", 0.01, 0.49, 0.2, 0.01, "%.2f", "The target: no attacker right more than 50\u00a0% + η of the time (η = 0.2: at most 70\u00a0%)."),
    choice("M", "M (moment order of σ)", list(range(2, 9)), 2, help="σⱼ is the M-th root of the M-th absolute central moment over the B halves (M = 2: a standard deviation). The paper's constant is 6.16/η to the power 1 + 2/M."),
    slider("B", "B (random halves for σ)", 16, 256, 64, B_STEP, validate=_multiple_of_b_step),
    choice("radius", "Noise calibration of the MIP release", list(CAL_LABELS), MipCalibration.TIGHT, lambda c: CAL_LABELS[MipCalibration(c)], "Tight: c = −1/ln(1 − 2η), the least noise Theorem 9's density certifies, in every dimension. The paper's constant: c = 6.16/η to the power 1 + 2/M, also certified in every dimension, with a large margin. As printed: the paper's c with the Laplace radius Algorithm 1 prints — certified only for one released number.", radio=True),
    number("seed", "noise seed", 0, SEED_MAX, 0, 1, help="Seeds the random half, the B halves and both noises."),
    slider("widen", "Widen the DP clipping bounds", 1.0, sr.MAX_WIDEN, 1.0, 0.5, "%.1f×", "Each column's interval [min, max] is stretched about its centre by this factor. Wider bounds mean a larger sensitivity Δ and more DP noise."),
)  # fmt: skip


def _count(n: int) -> str:
    """A whole number with narrow spaces between thousands: 200 000."""
    return f"{n:,}".replace(",", "\u202f")


def _plural(k: int, word: str) -> str:
    return f"{_count(k)} {word}" + ("" if k == 1 else "s")


MB = tabular.MAX_UPLOAD_BYTES / 1e6
LIMITS = say(PAGE, "limits", mb=MB, columns=2 * tabular.MAX_COLS, numeric=tabular.MAX_COLS, rows=_count(tabular.MAX_ROWS))  # fmt: skip


def _names(names: Sequence[str]) -> str:
    """Column names as plain text in quotes, at most SHOWN_NAMES of them."""
    shown = ", ".join(appkit.quote(n, max_chars=60) for n in names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return say(PAGE, "names_more", shown=shown, more=more) if more > 0 else shown


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


def _upload_notes(parsed: tabular.ParsedTable, file_name: str) -> None:
    """What the parser did to the file, from ParsedTable's structured fields."""
    notes = []
    if parsed.encoding in ("utf-16", "utf-32"):
        notes.append(say(PAGE, "decoded", encoding=parsed.encoding.upper()))
    if parsed.delimiter in SEPARATORS:
        notes.append(say(PAGE, "separated", by=SEPARATORS[parsed.delimiter]))
    if dropped := parsed.dropped_columns:
        columns = _plural(len(dropped), "non-numeric column")
        notes.append(say(PAGE, "dropped_columns", columns=columns, names=_names(dropped)))
    if parsed.dropped_rows:
        notes.append(say(PAGE, "dropped_rows", rows=_plural(parsed.dropped_rows, "row")))
    if parsed.dropped_large_rows:
        notes.append(say(PAGE, "dropped_large", rows=_plural(parsed.dropped_large_rows, "row")))
    if renamed := parsed.renamed_columns:
        columns = _plural(len(renamed), "column")
        notes.append(say(PAGE, "renamed", columns=columns, names=_names(renamed)))
    for note in notes:
        st.info(note, icon="ℹ️")
    data, file = parsed.data, appkit.quote(file_name, max_chars=60)
    rows, columns = _plural(len(data), "row"), _plural(data.shape[1], "numeric column")
    names = _names(list(data.columns))
    st.caption(say(PAGE, "read", file=file, rows=rows, columns=columns, names=names))


def _prop11_link() -> None:
    try:
        st.page_link("app_pages/proposition11.py", label=PROP11, icon="🧮")
    except StreamlitPageNotFoundError:  # the page run on its own, outside app.py's navigation
        st.markdown(say(PAGE, "prop11_elsewhere", label=PROP11))


def _times(x: float) -> str:
    return say(PAGE, "times", x=x)


def _between(values: Any, fmt: Callable[[float], str] = _times) -> str:
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else say(PAGE, "between", lo=lo, hi=hi)


def _certification(comp: Comparison) -> None:
    """What the MIP release is certified to, in the page's unit (attacker accuracy)."""
    res, rel = comp.release, comp.release.mip
    cert = rel.certified_eta
    if cert is None:
        more = comp.printed_to_tight
        times, less = (more, "less") if more >= 1 else (1 / more, "more")
        st.warning(say(PAGE, "not_certified", res=res, times=times, less=less), icon="⚠️")
    elif rel.calibration is MipCalibration.PAPER:
        tight = comp.constant(MipCalibration.TIGHT)
        st.markdown(
            say(PAGE, "certified_paper", res=res, accuracy=0.5 + cert, tight=tight, comp=comp)
        )
    elif rel.calibration is MipCalibration.TIGHT:
        paper = comp.constant(MipCalibration.PAPER)
        st.markdown(
            say(PAGE, "certified_tight", res=res, accuracy=0.5 + cert, paper=paper, comp=comp)
        )
    else:
        st.info(say(PAGE, "certified_printed", res=res, accuracy=0.5 + cert), icon="ℹ️")


def _verdict(comp: Comparison) -> None:
    """The spread chart's takeaway, then why."""
    res, v, draws = comp.release, comp.verdict, comp.spread.draws
    k = "k·" if comp.radius_factor > 1 else ""
    if v in (Verdict.DP_LESS, Verdict.MIP_LESS, Verdict.MIXED):
        n = comp.mip_to_dp.size
        on = prose_text(PAGE, "its_one_number") if n == 1 else say(PAGE, "all_numbers", n=n)
        if v is Verdict.DP_LESS:
            ratio = _between(comp.mip_to_dp)
            appkit.takeaway(say(PAGE, "dp_less", on=on, draws=draws, ratio=ratio))
        elif v is Verdict.MIP_LESS:
            ratio = _between(1 / comp.mip_to_dp)
            appkit.takeaway(say(PAGE, "mip_less", on=on, draws=draws, ratio=ratio))
        else:
            rest = n - comp.mip_wins
            appkit.takeaway(say(PAGE, "mixed", comp=comp, n=n, rest=rest, draws=draws))
        assert comp.delta_over_sigma is not None
        with_k = say(PAGE, "with_k", k=comp.radius_factor) if k else ""
        ratio = _between(comp.delta_over_sigma, lambda x: fmt_num(x, 3))
        appkit.explain(say(PAGE, "why", k=k, res=res, with_k=with_k, comp=comp, ratio=ratio))
        _prop11_link()
    elif v is Verdict.NOT_COMPARABLE:
        appkit.takeaway(prose_text(PAGE, "not_comparable"))
    elif v is Verdict.MIP_ONLY:
        ratio = _between(comp.mip_to_sigma)
        appkit.takeaway(say(PAGE, "mip_only", draws=draws, ratio=ratio))
        if k:
            about = say(PAGE, "about_kc", c=res.mip.c, k=comp.radius_factor)
        else:
            about = say(PAGE, "about_c", c=res.mip.c)
        appkit.explain(say(PAGE, "mip_only_why", about=about))
        _prop11_link()
    else:
        appkit.takeaway(prose_text(PAGE, "no_noise"))


def _generated(stat: Statistic) -> tuple[int, int, int]:
    """The generated data's controls and what they generate: (n, d, data seed)."""
    raised = _regression_needs_two_columns(stat)
    c1, c2, c3 = st.columns(3)
    with c1:
        n = controls.draw(CONTROLS["n"])
    with c2:
        d = controls.draw(CONTROLS["d"], lo=stat.min_columns)
    with c3:
        dseed = controls.draw(CONTROLS["dseed"])
    if raised:
        st.info(prose_text(PAGE, "two_columns"), icon="ℹ️")
    if stat is Statistic.LINEAR_REGRESSION and d == 2:
        st.caption(say(PAGE, "generated_line", n=_count(n)))
    elif stat is Statistic.LINEAR_REGRESSION:
        st.caption(say(PAGE, "generated_plane", n=_count(n), last=d - 1))
    else:
        st.caption(say(PAGE, "generated", n=_count(n), d=d))
    return n, d, dseed


def _uploaded(stat: Statistic) -> tabular.ParsedTable | None:
    """The uploader and its file, read with notes; None (after a sentence) if no file is usable."""
    upload = st.file_uploader(
        say(PAGE, "upload_label", limits=LIMITS),
        type=["csv", "txt"],
        key="upload",
        max_upload_size=5,  # MB: mipcore.tabular.MAX_UPLOAD_BYTES (the server takes up to 20)
        help=prose_text(PAGE, "upload_help"),
    )
    st.caption(prose_text(PAGE, "upload_format"))
    if upload is None:
        st.info(say(PAGE, "no_file", mb=MB), icon="📄")
        return None
    try:
        parsed = appkit.cached(tabular.parse_numeric_csv, upload.getvalue())
    except tabular.UploadRejected as exc:
        reason = plain(exc, max_chars=400)
        st.error(say(PAGE, "rejected", reason=reason, limits=LIMITS), icon="🚫")
        return None
    assert parsed is not None
    _upload_notes(parsed, upload.name)
    if parsed.data.shape[1] < stat.min_columns:
        names = _names(list(parsed.data.columns))
        st.warning(say(PAGE, "one_column", names=names), icon="⚠️")
        return None
    return parsed


def _privacy_controls(stat: Statistic) -> dict[str, Any]:
    """Section 2: η, M and B side by side, the calibration, then the noise seed and (with a
    sensitivity) the DP bounds' widening; their values by URL key."""
    st.subheader("2. Privacy level and noise")
    p: dict[str, Any] = {}
    for column, key in zip(st.columns(3), ("eta", "M", "B"), strict=True):
        with column:
            p[key] = controls.draw(CONTROLS[key])
    p["radius"] = controls.draw(CONTROLS["radius"])
    c4, c5, _ = st.columns(3)
    with c4:
        p["seed"] = controls.draw(CONTROLS["seed"])
    p["widen"] = 1.0
    if stat.has_sensitivity:
        with c5:
            p["widen"] = controls.draw(CONTROLS["widen"])
    return p


def _compare(
    stat: Statistic, data: tuple[int, int, int] | tabular.ParsedTable, p: dict[str, Any]
) -> Comparison | None:
    """Both releases, computed (in a job when heavy); None, with a sentence, if they fail."""
    B, eta = int(p["B"]), float(p["eta"])
    options: dict[str, Any] = dict(
        M=int(p["M"]), B=B, seed=int(p["seed"]), widen=float(p["widen"]), calibration=p["radius"]
    )
    if isinstance(data, tuple):
        n, d, dseed = (int(x) for x in data)
        work = sr.release_work(n, d, stat, B)
        call: tuple[Any, ...] = (sr.compare_generated, stat, n, d, dseed, eta)
    else:
        work = sr.release_work(len(data.data), data.data.shape[1], stat, B)
        call = (sr.compare_releases, data.data, stat, eta)
    try:
        if work > sr.HEAVY_WORK:
            quick = work <= 5 * sr.HEAVY_WORK  # about 5 s at most
            comp: Comparison = jobs.run(*call, label=JOB, quick=quick, **options)
        else:
            comp = appkit.cached(*call, **options)
    except ValueError as exc:
        st.error(say(PAGE, "not_computed", reason=plain(exc, max_chars=400)), icon="🚫")
        return None
    except jobs.JobFailed as exc:
        st.error(say(PAGE, "not_finished", reason=str(exc)), icon="🚫")
        return None
    return comp


def _releases(comp: Comparison) -> None:
    """Section 3's opening: the certificate, then the DP side's bounds (or why it has none)."""
    res = comp.release
    st.subheader("3. The releases")
    _certification(comp)
    if res.dp is not None:
        w = res.bounds.widen
        widened = say(PAGE, "widened", widen=w) if w != 1 else ""
        st.warning(say(PAGE, "dp_bounds", widened=widened), icon="⚠️")
    else:
        st.info(say(PAGE, "no_dp", statistic=STAT_LABELS[res.statistic]), icon="ℹ️")


def _metrics(comp: Comparison, M: int) -> None:
    """The releases' numbers as metrics (MIP, then DP), and what was released."""
    res, rel = comp.release, comp.release.mip
    m1, m2 = st.columns(2)
    c_help = {
        MipCalibration.TIGHT: say(PAGE, "c_tight", eta=res.eta),
        MipCalibration.PAPER: say(PAGE, "c_paper", eta=res.eta, M=M),
        MipCalibration.AS_PRINTED: say(PAGE, "c_printed", eta=res.eta, M=M),
    }[rel.calibration]
    m1.metric("MIP noise multiplier c", fmt_num(rel.c), help=c_help)
    cert = rel.certified_eta
    shown = "no guarantee" if cert is None else f"≤ {fmt_pct(0.5 + cert, 1 if cert > 1e-3 else 2)}"
    m2.metric("Certified: best attacker", shown, help=prose_text(PAGE, "certified_help"))
    m4, m5, m6 = st.columns(3)
    m4.metric("ε (DP at the same η)", fmt_num(res.epsilon), help=prose_text(PAGE, "eps_help"))
    m5.metric(
        "DP sensitivity Δ (L1)", fmt_num(res.sensitivity), help=prose_text(PAGE, "delta_help")
    )
    m6.metric("DP Laplace scale Δ/ε", fmt_num(res.dp_scale), help=prose_text(PAGE, "scale_help"))
    k, zero = res.k, res.k - res.noised
    rest = say(PAGE, "zero_sigma", zero=zero) if zero else "."
    train, rows, s = _count(len(rel.train_index)), _count(comp.n_rows), "s" if k != 1 else ""
    st.caption(say(PAGE, "released", train=train, rows=rows, k=k, s=s, rest=rest))


def _table(comp: Comparison) -> None:
    """The table of the released numbers (at most SHOWN_ROWS rows)."""
    res = comp.release
    k = res.k
    tab = res.table()
    view: dict[str, list[Any]] = {"#": list(range(1, k + 1))}  # the charts' x positions
    view |= {col: [fmt_num(v) for v in tab[col]] for col in tab.columns[1:]}
    view["quantity"] = list(res.labels)  # last: a long name never hides a number
    if k > SHOWN_ROWS:
        st.caption(say(PAGE, "first_rows", shown=SHOWN_ROWS, k=k))
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
    many = k > wrap_vega.MAX_TICK_LABELS
    by_position = say(PAGE, "by_position", k=k) if many else None
    chart, data = appkit.cached(wrap_vega.error_vega, comp)
    appkit.chart(chart, data, f"wrap_error_{slug}", key="wrap_error", caption=by_position)
    compared, wins = comp.single
    if res.dp is not None and compared:
        appkit.takeaway(say(PAGE, "one_release", wins=wins, compared=compared))
    else:
        appkit.takeaway(prose_text(PAGE, "one_release_mip"))
    chart, data = appkit.cached(wrap_vega.spread_vega, comp)
    caption = say(PAGE, "spread_caption", draws=comp.spread.draws)
    caption += f" {by_position}" if by_position else ""
    appkit.chart(chart, data, f"wrap_spread_{slug}", key="wrap_spread", caption=caption)
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
        st.caption(prose_text(PAGE, "bounds_caption"))
        st.dataframe(comp.head, hide_index=True, key="wrap_head")


def _maths() -> None:
    """The formulas. Static, but shown only once the releases are computed (no file yet, a
    refused file or a failed release end the page before them), so the live part draws them."""
    with appkit.folded("The maths") as shown:
        if shown:
            prose(PAGE, "maths")


page = appkit.page(PAGE)
prose(PAGE, "intro")
st.subheader("1. Data and statistic")
# Everything below depends on the widgets: after the data source even the section headers
# and the formulas appear only once the data can be used (see the returns in _live).
main = page.slot()


def _live() -> None:
    """The live part: data and statistic, privacy and noise, the releases, charts, bounds, maths."""
    with main:
        appkit.messages()
        c1, c2 = st.columns([2, 3])
        with c1:
            src = controls.draw(CONTROLS["src"])
        with c2:
            stat = controls.draw(CONTROLS["stat"])
        data = _generated(stat) if src == "generated" else _uploaded(stat)
        if data is None:
            return
        p = _privacy_controls(stat)
        comp = _compare(stat, data, p)
        if comp is None:
            return
        _releases(comp)
        _metrics(comp, p["M"])
        _table(comp)
        _charts(comp)
        _bounds(comp)
        _maths()


appkit.live(page, _live)
