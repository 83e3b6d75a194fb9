"""Wrap your own statistic: Algorithm 1 (MIP) beside the DP Laplace mechanism on the same data.

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Theorem 9, Corollary 10, Algorithm 1)
and Theorem 4 (η → ε). All numbers come from :func:`mipcore.lessons.statistic_release.wrap_statistic`; the
repeated draws use :func:`mipcore.lessons.statistic_release.repeat_noise` (Corollary 10 with the same σ, and
Laplace noise with the same scale); the figures from :mod:`mipcore.plots.wrap_figs`.

Uploads are read only by :func:`mipcore.lessons.statistic_release.parse_numeric_csv` (text parsing; nothing
is executed or unpickled). The size cap is ``server.maxUploadSize`` in
``.streamlit/config.toml`` and, again, ``mipcore.lessons.statistic_release.MAX_UPLOAD_BYTES`` in the parser.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

import appkit
from appkit import fmt_num
from mipcore.lessons import statistic_release as wrap
from mipcore.mechanism import RADIUS_VARIANTS
from mipcore.plots.wrap_figs import error_figure, error_frame, spread_figure, spread_frame

SOURCES = ["generated", "upload CSV"]
N_MIN, N_MAX, N_DEFAULT = 50, 200_000, 2_000
D_MIN, D_MAX, D_DEFAULT = 1, 10, 3
ETA_MIN, ETA_MAX, ETA_DEFAULT = 0.01, 0.49, 0.2
M_OPTIONS = list(range(2, 9))
B_MIN, B_MAX, B_DEFAULT, B_STEP = 16, 256, 64, 16
SEED_MAX = 2**31 - 1
WIDEN_MIN, WIDEN_MAX, WIDEN_DEFAULT = 1.0, 10.0, 1.0
DRAWS = 200  # repeated releases for the spread chart
SHOWN_ROWS = 400  # the table shows at most this many rows (20 columns give 400 second moments)

STAT_LABELS = {
    "mean": "mean of each column",
    "covariance": "second moments E[x xᵀ]",
    "linear regression": "linear regression (last column on the others)",
}
RADIUS_LABELS = {
    "gamma": "Gamma(k, c): correct",
    "as_printed": "Laplace(c): as printed",
}
MAX_MB = wrap.MAX_UPLOAD_BYTES / 2**20
UPLOAD_HINT = (
    f"Upload a UTF-8 text CSV with a header row and numeric columns (at most "
    f"{MAX_MB:g} MB, {wrap.MAX_ROWS:,} rows and {wrap.MAX_COLS} numeric columns, "
    "at least 8 complete rows)."
)


# ---------------------------------------------------------------- cached computations
@st.cache_data(show_spinner=False, max_entries=32)
def _generated(stat: str, n: int, d: int, seed: int) -> pd.DataFrame:
    return wrap.make_dataset(stat, n, d, seed)


@st.cache_data(show_spinner="Reading the uploaded file…", max_entries=8)
def _parsed(digest: str, _raw: bytes) -> wrap.ParsedTable:
    """parse_numeric_csv, cached by the SHA-256 of the bytes (the bytes are not re-hashed)."""
    return wrap.parse_numeric_csv(_raw)


def _has_dp(stat: str) -> bool:
    """Whether mipcore gives the statistic a bounded sensitivity (a DP release exists)."""
    return wrap.dp_l1_sensitivity(stat, [0.0], [1.0], 1) is not None


def _bounds(data: pd.DataFrame, widen: float) -> tuple[np.ndarray, ...]:
    """Per-column data range, and the clipping bounds: the range widened by ``widen``
    about its centre. At widen = 1 these are exactly wrap_statistic's own default bounds
    (the data range, [min, min + 1] for a constant column, which needs a box too)."""
    x = data.to_numpy(dtype=float)
    lo, hi = x.min(axis=0), x.max(axis=0)
    box_hi = np.where(hi > lo, hi, lo + 1.0)
    pad = (widen - 1.0) * (box_hi - lo) / 2.0
    return lo, hi, lo - pad, box_hi + pad


@st.cache_data(
    show_spinner="Running Algorithm 1 (B fits on random halves) and the Laplace mechanism…",
    max_entries=64,
)
def _compute(
    source: tuple,
    _data: pd.DataFrame,
    stat: str,
    eta: float,
    M: int,
    radius: str,
    B: int,
    seed: int,
    widen: float,
) -> dict:
    """``source`` identifies ``_data`` (generation parameters or the upload's digest).

    Returns a plain dict (a class defined in a page script cannot be pickled by the cache
    when the page runs under ``st.navigation``): ``result`` (WrapResult), the data range
    ``data_lo``/``data_hi``, the clipping bounds ``lo``/``hi`` handed to wrap_statistic,
    ``errors`` (|release − θ| of this release) and ``spread`` (|noise| over DRAWS releases).
    """
    data_lo, data_hi, lo, hi = _bounds(_data, widen)
    # Absurd magnitudes (e.g. 1e300, whose square overflows) make mipcore refuse with a
    # ValueError ("non-finite value on some half"); numpy's overflow warning on the way
    # there is expected and silenced here.
    with np.errstate(over="ignore"):
        res = wrap.wrap_statistic(_data, stat, eta, M=M, B=B, rng=seed, lo=lo, hi=hi, radius=radius)
    errors = error_frame(res.labels, res.theta, res.mip, res.dp)
    # DRAWS more releases of the same θ with the same σ (and the same Laplace scale):
    mip_noise, dp_noise = wrap.repeat_noise(
        res, eta, DRAWS, M=M, rng=np.random.default_rng((seed, 1)), radius=radius
    )
    spread = spread_frame(res.labels, res.sigma, mip_noise, dp_noise)
    return dict(
        result=res, data_lo=data_lo, data_hi=data_hi, lo=lo, hi=hi, errors=errors, spread=spread
    )


# ---------------------------------------------------------------- helpers
def _read_upload(raw: bytes, digest: str) -> wrap.ParsedTable | None:
    """Parse the upload with mipcore's parser; a refusal becomes one error sentence."""
    try:
        return _parsed(digest, raw)
    except ValueError as exc:
        st.error(f"This file cannot be used: {exc}. {UPLOAD_HINT}", icon="🚫")
        return None


def _times(x: float) -> str:
    return f"{fmt_num(x, 3)}×"


def _range_text(values: np.ndarray, fmt=_times) -> str:
    lo, hi = float(np.min(values)), float(np.max(values))
    if fmt(lo) == fmt(hi):
        return fmt(lo)
    return f"between {fmt(lo)} and {fmt(hi)}"


def _table_view(res: wrap.WrapResult) -> pd.DataFrame:
    """WrapResult.table() with every number formatted by fmt_num ('—' where DP is unavailable)."""
    tab = res.table()
    out = pd.DataFrame({"quantity": tab["quantity"]})
    for col in tab.columns[1:]:
        out[col] = [fmt_num(v) for v in tab[col]]
    return out


def _multiple_of_b_step(b) -> None:
    if b % B_STEP:
        raise ValueError(f"not a multiple of {B_STEP}")


def _prop11_link() -> None:
    label = "Proposition 11: an algorithm whose σ stays O(1) while Δ explodes"
    try:
        st.page_link("app_pages/proposition11.py", label=label, icon="🧮")
    except StreamlitPageNotFoundError:  # the page run on its own, outside app.py's navigation
        st.markdown(f"See the page **{label}** of the full app (`streamlit run app.py`).")


# ---------------------------------------------------------------- page
page = appkit.page("wrap")
st.markdown(
    "**Algorithm 1** of the paper turns any statistic into an **η-MIP** release: compute it on a "
    "random half of the data (θ), measure how much it varies over further random halves (σ), "
    "and add noise in proportion to σ. The classical alternative, the **DP Laplace mechanism**, "
    "adds noise in proportion to the *sensitivity* Δ instead. Both below give the same guarantee: "
    "no membership-inference attacker is right more than 50 % + η of the time. Pick data, a "
    "statistic and η, and compare how much noise each needs."
)

# ---------------------------------------------------------------- data
st.subheader("1. Data")
src = appkit.url_select("Data source", "src", SOURCES, default="generated", widget="radio")
data: pd.DataFrame | None = None
source: tuple | None = None
gen_params: tuple[int, int, int] | None = None
if src == "generated":
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
            min_value=D_MIN,
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
            help="Same seed, same dataset.",
        )
    gen_params = (int(n), int(d), int(dseed))
    data_caption = st.empty()  # filled once the statistic is known (the data depend on it)
else:
    upload = st.file_uploader(
        "CSV file (a header row, then one record per row)",
        type=["csv", "txt"],
        key="upload",
        help=f"Read as text by a CSV parser only; nothing in the file is executed. {UPLOAD_HINT}",
    )
    st.caption(
        UPLOAD_HINT + " Non-numeric columns and rows with missing or infinite values are "
        "dropped, with a note. The file stays in this browser session only."
    )
    if upload is not None:
        raw = upload.getvalue()
        digest = hashlib.sha256(raw).hexdigest()
        parsed = _read_upload(raw, digest)
        if parsed is not None:
            data = parsed.data
            source = ("upload", digest)
            for note in parsed.notes:
                st.info(note, icon="ℹ️")
            st.caption(
                f"Read {len(data):,} rows of {data.shape[1]} numeric column(s): "
                + ", ".join(data.columns)
                + "."
            )

# ---------------------------------------------------------------- statistic and privacy
st.subheader("2. Statistic and privacy level")
c1, c2, c3 = st.columns(3)
with c1:
    stat = appkit.url_select(
        "Statistic",
        "stat",
        wrap.STATISTICS,
        default="mean",
        format_func=lambda s: STAT_LABELS[s],
        help="Mean: one value per column. Second moments: the d × d matrix "
        "(1/m)·Σ x xᵀ (mipcore's “covariance”; uncentred, so equal to "
        "the covariance only for centred columns). Linear regression: "
        "least-squares intercept and coefficients of the last column on "
        "the others.",
    )
with c2:
    eta = appkit.url_slider(
        "η (attacker's edge over guessing)",
        "eta",
        min_value=ETA_MIN,
        max_value=ETA_MAX,
        default=ETA_DEFAULT,
        step=0.01,
        format="%.2f",
    )
with c3:
    M = appkit.url_select(
        "M (moment order of σ)",
        "M",
        M_OPTIONS,
        default=2,
        help="σ_j is the M-th root of the M-th absolute central moment; the "
        "noise constant is (6.16/η)^(1+2/M).",
    )

c4, c5, c6 = st.columns(3)
with c4:
    radius = appkit.url_select(
        "Radius of the noise",
        "radius",
        list(RADIUS_VARIANTS),
        default="gamma",
        format_func=lambda r: RADIUS_LABELS[r],
        help="The radius r of the noise X = rU. Gamma(k, c) gives the "
        "density Theorem 9 needs (k = number of released values). "
        "Laplace(c) is the paper's printed Algorithm 1: not a valid "
        "guarantee for k > 1, shown for comparison.",
    )
with c5:
    B = appkit.url_slider(
        "B (random halves for σ)",
        "B",
        min_value=B_MIN,
        max_value=B_MAX,
        default=B_DEFAULT,
        step=B_STEP,
        validate=_multiple_of_b_step,
    )
with c6:
    seed = appkit.url_number(
        "noise seed",
        "seed",
        min_value=0,
        max_value=SEED_MAX,
        default=0,
        help="Seeds the random half, the B halves and both noises.",
    )
widen = WIDEN_DEFAULT
has_dp = True
with appkit.guard("The DP sensitivity"):
    has_dp = _has_dp(stat)
if has_dp:
    widen = appkit.url_slider(
        "Widen the DP clipping bounds by a factor",
        "widen",
        min_value=WIDEN_MIN,
        max_value=WIDEN_MAX,
        default=WIDEN_DEFAULT,
        step=0.5,
        format="%.1f×",
        help="Each column's interval [min, max] is stretched about its centre by this factor. "
        "Wider bounds mean a larger sensitivity Δ and more DP noise.",
    )

if gen_params is not None:
    n, d, dseed = gen_params
    with appkit.guard("The generated dataset"):
        data = _generated(stat, n, d, dseed)
        source = ("generated", stat, n, d, dseed)
    if data is not None and stat == "linear regression":
        data_caption.caption(
            f"Generated: {n:,} rows; features x1…x{d - 1} standard normal, "
            "response y = x·β + 0.5 + noise with β from 1 down to −1."
        )
    elif data is not None:
        data_caption.caption(
            f"Generated: {n:,} rows of {d} independent normal columns with means "
            "from 0 to 2 and standard deviations from 1 to 2."
        )
elif data is None and st.session_state.get("upload") is None:
    st.info(
        "No usable file yet: upload a CSV file above to see the releases, or switch the "
        f"data source to “generated”. A file over {MAX_MB:g} MB is refused by the uploader "
        "itself (a red mark beside its name) and never reaches the page.",
        icon="📄",
    )
if data is None:
    st.stop()

# ---------------------------------------------------------------- results
out: dict | None = None
with appkit.guard("The releases"):
    out = _compute(source, data, stat, float(eta), int(M), radius, int(B), int(seed), float(widen))
if out is None:
    st.stop()
res = out["result"]
k = len(res.labels)
dp_ok = res.dp is not None

st.subheader("3. The releases")
if dp_ok:
    st.warning(
        "The DP side clips each column to bounds **read off this data** (its min and max"
        + (f", widened {fmt_num(widen, 3)}×" if widen != 1 else "")
        + "). Such bounds are not private — they reveal the smallest and largest values; a real "
        "deployment fixes them in advance, from knowledge of the domain.",
        icon="⚠️",
    )
else:
    st.info(
        f"**No DP release for {stat}.** mipcore gives this statistic no bounded sensitivity "
        "(its sensitivity is unbounded): one record can move least-squares coefficients "
        "arbitrarily far when the features are nearly collinear, so the Laplace mechanism has "
        "nothing finite to calibrate its noise to without further assumptions (bounded features "
        "*and* a design "
        "bounded away from singular). MIP needs no sensitivity, only the spread σ over random "
        "halves, so only the MIP release is shown.",
        icon="ℹ️",
    )
if radius == "as_printed":
    if k > 1:
        st.warning(
            f"The radius is drawn as printed in Algorithm 1, r ~ Laplace(c). With k = {k} released "
            "numbers this does not give the noise density Theorem 9 needs, so this release is "
            f"**not** a valid η-MIP guarantee; its noise is roughly {k} times smaller than with "
            "the correct Gamma(k, c) radius. Shown for comparison only.",
            icon="⚠️",
        )
    else:
        st.info(
            "With a single released number the printed radius Laplace(c) and Theorem 9's "
            "Gamma(1, c) give the same noise: both are valid here.",
            icon="ℹ️",
        )

m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "MIP noise multiplier c",
    fmt_num(res.mip_c),
    help=f"c = (6.16/η)^(1+2/M) with η = {eta:.2f}, M = {M} (Corollary 10 / 14).",
)
m2.metric(
    "ε (DP at the same η)",
    fmt_num(res.epsilon),
    help="ε = log((1+2η)/(1−2η)): ε-DP implies η-MIP (Theorem 4).",
)
m3.metric(
    "DP sensitivity Δ (L1)",
    fmt_num(res.sensitivity),
    help="Largest L1 change of the statistic when one record is replaced, on clipped data.",
)
m4.metric(
    "DP Laplace scale Δ/ε",
    fmt_num(res.dp_scale),
    help="Scale of the Laplace noise added to each coordinate.",
)
st.caption(
    f"θ is the statistic on the random training half ({res.n_train:,} of "
    f"{len(data):,} rows); it is never published. "
    f"k = {k} released number{'s' if k != 1 else ''}."
)

view = _table_view(res)
if len(view) > SHOWN_ROWS:
    st.caption(f"The table shows the first {SHOWN_ROWS} of {len(view)} rows.")
st.dataframe(
    view.head(SHOWN_ROWS),
    hide_index=True,
    key="wrap_table",
    height=min(38 + 35 * min(len(view), SHOWN_ROWS), 420),
)

# ---------------------------------------------------------------- verdict
spread = out["spread"]
mip_med = spread.loc[spread["mechanism"] == "MIP", "median"].to_numpy()
kk = k if radius == "gamma" else 1  # the Gamma(k, c) radius is about k times the Laplace one
sig = res.sigma
live = sig > 0
if dp_ok:
    dp_med = spread.loc[spread["mechanism"] == "DP", "median"].to_numpy()
    both = live & (dp_med > 0)
    ratio = mip_med[both] / dp_med[both]
    n_mip = int(np.sum(ratio < 1))
    coords = "its one coordinate" if k == 1 else f"all {k} coordinates"
    if ratio.size and n_mip == 0:
        verdict = (
            f"**For this data DP adds less noise** — on {coords}. Over {DRAWS} draws, MIP's "
            f"median |noise| is {_range_text(ratio)} DP's."
        )
    elif ratio.size and n_mip == ratio.size:
        verdict = (
            f"**For this data MIP adds less noise** — on {coords}. Over {DRAWS} draws, DP's "
            f"median |noise| is {_range_text(1 / ratio)} MIP's."
        )
    elif ratio.size:
        verdict = (
            f"**Mixed:** MIP adds less noise on {n_mip} of {ratio.size} coordinates, DP on "
            f"the other {ratio.size - n_mip} (median |noise| over {DRAWS} draws)."
        )
    else:
        verdict = "No coordinate has noise on both sides to compare."
    st.markdown(verdict)
    if both.any():
        dsig = res.sensitivity / sig[both]
        st.markdown(
            f"**Why.** MIP's noise on coordinate j is about {'k·' if kk > 1 else ''}c·σ_j "
            f"(c = {fmt_num(res.mip_c)}{f', k = {k}' if kk > 1 else ''}); DP's is about "
            f"Δ/ε = {fmt_num(res.dp_scale)} on every coordinate. So MIP only wins where Δ/σ_j is "
            f"above about {'k·' if kk > 1 else ''}c·ε = "
            f"**{fmt_num(kk * res.mip_c * res.epsilon)}**; "
            f"here Δ/σ_j is {_range_text(dsig, lambda x: fmt_num(x, 3))}. For ordinary "
            "statistics on ordinary data Δ is not large compared with σ (for a mean, Δ shrinks "
            "like 1/m and σ only like 1/√m), so MIP's large constant decides and DP wins, often by "
            "orders of magnitude. MIP shines when the sensitivity is huge compared with the "
            "spread:"
        )
        _prop11_link()
elif live.any():
    rel = mip_med[live] / sig[live]
    st.markdown(
        f"**MIP only.** Over {DRAWS} draws MIP's median |noise| is {_range_text(rel)} σ_j, the "
        f"statistic's own spread over random halves — about {'k·' if kk > 1 else ''}c with "
        f"c = {fmt_num(res.mip_c)}{f' and k = {k}' if kk > 1 else ''}. That is the price of a "
        "guarantee without a sensitivity; it pays off when the sensitivity is huge or infinite "
        "while σ is small:"
    )
    _prop11_link()
else:
    st.markdown("Every coordinate has σ = 0 over the B halves: MIP adds no noise.")

# ---------------------------------------------------------------- charts
st.subheader("4. How far each release lands from θ")
appkit.chart_with_csv(
    appkit.cached_figure(error_figure, out["errors"]),
    out["errors"],
    f"wrap_error_{stat.replace(' ', '_')}",
    key="wrap_error",
    caption="One release of each kind (the numbers in the table). The y axis is logarithmic, "
    "labelled at powers of 10." + ("" if dp_ok else " No DP bar: no DP release."),
)
appkit.chart_with_csv(
    appkit.cached_figure(spread_figure, spread),
    spread,
    f"wrap_spread_{stat.replace(' ', '_')}",
    key="wrap_spread",
    caption=f"{DRAWS} further releases of the same θ with fresh noise (same σ"
    + (", same Laplace scale" if dp_ok else "")
    + "): dots are median |noise|, bars span "
    "10 % to 90 %; the black dash is σ_j. What to notice: "
    + (
        "the gap between the red and the blue marks is the noise ratio of the verdict above."
        if dp_ok
        else "the gap between the red marks and the black dashes is MIP's noise measured in "
        "units of the statistic's own spread σ_j."
    ),
)

# ---------------------------------------------------------------- bounds and data
with st.expander("The data and the clipping bounds"):
    b = np.maximum(np.abs(out["lo"]), np.abs(out["hi"]))
    bounds = pd.DataFrame(
        {
            "column": list(data.columns),
            "data min": [fmt_num(v) for v in out["data_lo"]],
            "data max": [fmt_num(v) for v in out["data_hi"]],
            "clip lo": [fmt_num(v) for v in out["lo"]],
            "clip hi": [fmt_num(v) for v in out["hi"]],
            "b = max(|lo|, |hi|)": [fmt_num(v) for v in b],
        }
    )
    st.dataframe(bounds, hide_index=True, key="wrap_bounds")
    st.caption(
        "Both mechanisms see the data clipped to [clip lo, clip hi] (at a factor ≥ 1 "
        "nothing is clipped). A column whose min equals its max is given the interval "
        "[min, min + 1]. The first rows of the data:"
    )
    st.dataframe(data.head(10), hide_index=True, key="wrap_head")

# ---------------------------------------------------------------- maths
with st.expander("The maths"):
    st.markdown(
        "**Algorithm 1** (MIP via noise addition), with the statistic 𝒜 and k released "
        "numbers (the paper calls this number d; here d is the number of data columns):"
    )
    st.latex(
        r"D_{\text{train}} \leftarrow \text{random half of } \mathcal{D},\qquad "
        r"D^{(i)} \leftarrow \text{random half of } D_{\text{train}},\quad "
        r"\theta^{(i)} = \mathcal{A}(D^{(i)}),\quad i = 1,\dots,B,"
    )
    st.latex(
        r"\bar\theta_j = \frac1B\sum_{i=1}^B \theta^{(i)}_j,\qquad "
        r"\sigma_j = \Bigl(\frac1B\sum_{i=1}^B "
        r"\bigl|\theta^{(i)}_j-\bar\theta_j\bigr|^M\Bigr)^{1/M}."
    )
    st.markdown(
        "The paper prints (θ − θ̄)^M; for odd M that can be negative, so the absolute "
        "value is used (the moment the theorem needs)."
    )
    st.markdown("**Corollary 10** (the noise), with the radius Theorem 9 needs:")
    st.latex(
        r"\|x\|_{\sigma,M} = \Bigl(\sum_{j=1}^k "
        r"\frac{|x_j|^M}{k\,\sigma_j^M}\Bigr)^{1/M},\quad "
        r"Y_j \sim \mathrm{GenNormal}(0,\sigma_j,M),\quad U = \frac{Y}{\|Y\|_{\sigma,M}},"
    )
    st.latex(
        r"r \sim \mathrm{Gamma}(\text{shape } k,\ \text{scale } c),\quad "
        r"c = \Bigl(\frac{6.16}{\eta}\Bigr)^{1+2/M},\qquad "
        r"\hat\theta = \mathcal{A}(D_{\text{train}}) + rU ."
    )
    st.markdown(
        "Then X = rU has density ∝ exp(−‖x‖/c) in the σ,M norm, which is what Theorem 9 assumes: "
        "the ball {‖x‖ ≤ r} has volume ∝ r^k, so the radius of such a density has density "
        "∝ r^(k−1)·e^(−r/c), a Gamma law. Corollary 10 and Algorithm 1 print r ~ Laplace(c); that "
        "gives density ∝ exp(−‖x‖/c)/‖x‖^(k−1), the right one only for k = 1. Because E r = k·c, "
        "the correct noise is about k times larger per coordinate."
    )
    st.markdown("**The Laplace mechanism** (pure ε-DP) at the same η (Theorem 4):")
    st.latex(
        r"\hat\theta^{\mathrm{DP}} = \mathcal{A}(D_{\text{train}}) + (L_1,\dots,L_k),\quad "
        r"L_j \sim \mathrm{Laplace}\bigl(\Delta/\varepsilon\bigr),\qquad "
        r"\varepsilon = \log\frac{1+2\eta}{1-2\eta}."
    )
    st.markdown(
        "**The sensitivities** (L1, one record of the m training rows replaced, every "
        "column clipped to [lo_j, hi_j], b_j = max(|lo_j|, |hi_j|)):"
    )
    st.latex(
        r"\Delta_{\text{mean}} = \frac{1}{m}\sum_j (\mathrm{hi}_j - \mathrm{lo}_j),\qquad "
        r"\Delta_{\text{second moments}} = \frac{2\,(\sum_j b_j)^2}{m},\qquad "
        r"\Delta_{\text{least squares}} = \infty ."
    )
    st.markdown(
        "The second-moment matrix is the covariance when the columns are centred (it is not "
        "centred here: centring by the data's own mean would need its own sensitivity analysis). "
        "Least squares has no bounded sensitivity without assumptions on the design, so no DP "
        "release is offered for it."
    )
appkit.finish(page)
