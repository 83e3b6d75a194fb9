"""Cached computations and figures of the page "Proposition 11" (app_pages/proposition11.py).

Not a page (``app.py`` lists its pages explicitly; this module is only imported).
The cached functions are decorated here, once per process: a decorator in a page
script runs again on every rerun and re-hashes the function's source (≈ 1 ms each).

* The mathematics (:mod:`mipcore.prop11`) is cached with ``st.cache_data``, per n
  (and M): a certified moment or the growth table is computed once.
* What one rerun needs is cached with ``st.cache_resource``, keyed by every input it
  depends on: :func:`numbers` per (n, M), :func:`growth_chart` per (n, M),
  :func:`distribution_chart` per n. ``cache_resource`` hands back the same objects,
  without the pickle round trip of ``cache_data`` (unpickling a ``go.Figure`` costs
  more than building it). Everything returned is shared between sessions and
  **read-only**: the page only reads it, and so do ``st.plotly_chart`` and the CSV
  download.
* A cached figure is *served*: its ``to_dict()`` (which ``st.plotly_chart`` calls on
  every rerun, deep-copying the figure and base64-encoding its arrays) is computed
  once; see :func:`_served`.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from mipcore import prop11
from mipcore.plots import freeze as _served
from mipcore.plots.prop11_figs import distribution_figure, growth_figure

N_MIN, N_MAX = 4, 200


# ---------------------------------------------------------------- cached mipcore calls
@st.cache_data(show_spinner=False, max_entries=256)
def dataset(n: int) -> prop11.Prop11Dataset:
    return prop11.dataset(n)


@st.cache_data(show_spinner=False, max_entries=256)
def sensitivity(n: int) -> tuple[float, tuple[float, float], float]:
    return prop11.sensitivity(n), prop11.sensitivity_interval(n), prop11.special_output(n)


@st.cache_data(show_spinner="Certifying the mean and the moments of 𝒜(D)…", max_entries=512)
def moments(n: int, M: int) -> prop11.Prop11Moments:
    return prop11.output_moments(n, M)


@st.cache_data(
    max_entries=16,
    show_spinner="Computing Δ and σ for every even n from 4 to 200 (a few seconds, once)…",
)
def growth(M: int) -> pd.DataFrame:
    return prop11.growth_table(range(N_MIN, N_MAX + 1, 2), M)


@st.cache_data(show_spinner=False, max_entries=256)
def histogram(n: int) -> pd.DataFrame:
    return pd.DataFrame(prop11.value_histogram(n))


# ---------------------------------------------------------------- what one rerun needs
class Numbers(NamedTuple):
    """The exact numbers the page shows for one (n, M) (immutable)."""

    ds: prop11.Prop11Dataset
    delta: float
    delta_iv: tuple[float, float]
    special: float  # 𝒜(D*) = p^(-1/2)
    mom2: prop11.Prop11Moments
    momM: prop11.Prop11Moments  # the same object as mom2 when M == 2


@st.cache_resource(max_entries=64, show_spinner=False)
def numbers(n: int, M: int) -> Numbers:
    """All the numbers for (n, M), in one cache lookup (each computed via the caches above)."""
    delta, delta_iv, special = sensitivity(n)
    mom2 = moments(n, 2)
    return Numbers(dataset(n), delta, delta_iv, special, mom2, moments(n, M) if M != 2 else mom2)


@st.cache_resource(max_entries=64, show_spinner=False)
def growth_chart(n: int, M: int) -> tuple[go.Figure, pd.DataFrame]:
    """The Δ/σ_M-against-n figure with n marked, and the growth table it shows (read-only)."""
    table = growth(M)
    return _served(growth_figure(table, n_chosen=n, M=M)), table


class DistributionChart(NamedTuple):
    fig: go.Figure
    csv: pd.DataFrame  # the histogram, exact counts as text (the CSV download)
    v_max: float  # the largest output of an ordinary half
    heavy_probability: float  # the heaviest ordinary bin (the first one of largest probability)
    heavy_min: float
    heavy_max: float


@st.cache_resource(max_entries=64, show_spinner=False)
def distribution_chart(n: int) -> DistributionChart:
    """The distribution figure, its CSV data and the numbers the page quotes (read-only)."""
    hist = histogram(n)
    fig = _served(distribution_figure(hist, n=n))
    csv = hist.assign(count=hist["count"].map(str))  # exact integers, as text
    rows = zip(
        hist["group"].tolist(),
        hist["value_min"].tolist(),
        hist["value_max"].tolist(),
        hist["probability"].tolist(),
        strict=True,
    )
    ordinary = [(lo, hi, pr) for group, lo, hi, pr in rows if group != "special D*"]
    heavy_min, heavy_max, heavy_p = max(ordinary, key=lambda r: r[2])  # first of equal maxima
    return DistributionChart(
        fig, csv, float(max(hi for _lo, hi, _pr in ordinary)), heavy_p, heavy_min, heavy_max
    )
