r"""What the Proposition 11 page shows: a statistic with a huge sensitivity and a tiny spread.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Proposition 11 (Section 4) and its proof sketch (Appendix D). The exact and certified numbers
come from :mod:`mipcore.prop11`; this module gathers every number the page quotes:

* :func:`prop11_view` -- for one (n, M): the dataset, Δ (certified), the mean and the M-th
  central moment (certified), the special output ``p^{-1/2}``, the float64 demonstration (what
  a naive float program gets for the special half's sum), the terms of the "why σ stays about
  1" argument, and the noise each route needs for η-MIP on this statistic
  (:class:`NoiseAtEta`): DP's Laplace scale ``Δ/ε(η)``, Theorem 9 as printed (Corollary 14)
  ``(C/η)^{1+2/M} σ_M``, and the smallest certified MIP noise ``σ_M/ln(1/(1 − 2η))``
  (:func:`mipcore.theorem9.required_noise_multiplier`, certified in every dimension, steps
  T1-T4 of :mod:`mipcore.theorem9`). DP's ε(η) is ``ln((1 + 2η)/(1 − 2η))``, so DP needs
  ``(Δ/σ_M)·ln(1/(1 − 2η))/ε(η)`` times the certified minimum: ``Δ/(2σ_M)`` for small η,
  rising to ``Δ/σ_M`` as η → 1/2.
* :func:`growth` -- Δ, σ_M and Δ/σ_M for every even n from 4 to 200 (the growth chart).
* :func:`distribution` -- the binned distribution of 𝒜(D) and its heaviest ordinary bin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import pandas as pd

from .. import prop11
from .._validate import check_int, check_range
from ..noise import COROLLARY14_CONSTANT, dp_laplace_scale, mip_noise_multiplier
from ..theorem9 import required_noise_multiplier

__all__ = [
    "ETA_EXAMPLE",
    "GROWTH_NS",
    "Distribution",
    "Float64Demo",
    "Float64Outcome",
    "Growth",
    "NoiseAtEta",
    "Prop11View",
    "distribution",
    "float64_outcomes",
    "growth",
    "naive_float_special_sum",
    "noise_at_eta",
    "prop11_view",
]

#: The η of the page's noise comparison.
ETA_EXAMPLE = 0.1
#: The n of the growth chart: every even n from 4 to 200.
GROWTH_NS = tuple(range(4, 201, 2))
#: Below this relative error the float64 sum is "harmless here" (but breaks for larger n).
_HARMLESS = 1e-3


class Float64Outcome(StrEnum):
    """What float64 gets for the special half's sum ``A + 2⁰ + … + 2ᵏ⁻²`` (exactly √p)."""

    ZERO = "zero"  # the sum is exactly 0: 1/0
    NEGATIVE = "negative"  # a negative sum (and output), although √p > 0
    TOO_LARGE = "too_large"  # more than twice √p
    CLOSE = "close"  # within a factor 2 of √p


@dataclass(frozen=True)
class Float64Demo:
    """The float64 demonstration: ``naive_sum`` (float64, left to right) against ``sqrt_p``.

    ``relative_error`` = (naive − √p)/√p and ``naive_output`` = 1/naive (None for a zero
    sum); ``harmless`` when the relative error is below 1e-3; ``a_ulp`` is the spacing of
    float64 numbers at A; the exact computation uses ``precision_bits`` bits.
    """

    naive_sum: float
    sqrt_p: float
    outcome: Float64Outcome
    relative_error: float
    naive_output: float | None
    harmless: bool
    a_ulp: float
    precision_bits: int


@dataclass(frozen=True)
class NoiseAtEta:
    """The Laplace scales that certify η-MIP for this statistic (one dimension).

    ``epsilon`` = ε(η) = log((1+2η)/(1−2η)); ``dp_scale`` = Δ/ε; ``paper_scale`` =
    ``paper_multiplier``·σ_M with ``(C/η)^{1+2/M}`` (Theorem 9 as printed, Corollary 14);
    ``certified_scale`` = ``certified_multiplier``·σ_M with ``−1/ln(1 − 2η)`` (the smallest
    certified); ``certified_scale_sigma2`` the same with σ₂ (the certificate accepts a bound
    on any moment of order >= 1, and σ₂ <= σ_M).
    """

    eta: float
    M: int
    constant: float
    epsilon: float
    dp_scale: float
    paper_multiplier: float
    paper_scale: float
    certified_multiplier: float
    certified_scale: float
    certified_scale_sigma2: float

    @property
    def dp_over_paper(self) -> float:
        """DP's noise ÷ the printed MIP noise (> 1: the printed MIP is cheaper)."""
        return self.dp_scale / self.paper_scale

    @property
    def dp_over_certified(self) -> float:
        """DP's noise ÷ the smallest certified MIP noise: between Δ/(2σ_M) (η → 0) and Δ/σ_M
        (η → 1/2), rising with η."""
        return self.dp_scale / self.certified_scale

    @property
    def paper_over_certified(self) -> float:
        """The printed MIP noise ÷ the smallest certified (the same for every σ)."""
        return self.paper_multiplier / self.certified_multiplier


@dataclass(frozen=True)
class Prop11View:
    """Every number the Proposition 11 page quotes for one (n, M).

    ``moments2``/``moments_m`` are the certified moments for M = 2 and for M (the same
    object when M = 2). ``special_term`` = p·(p^{-1/2} − μ)² = (1 − μ√p)², the special half's
    share of the variance; ``v_max`` the largest output of an ordinary half and
    ``rest_bound`` = max(v_max, μ)², a bound on each other half's squared deviation.
    """

    n: int
    M: int
    dataset: prop11.Prop11Dataset
    delta: float
    delta_interval: tuple[float, float]
    special: float
    moments2: prop11.Prop11Moments
    moments_m: prop11.Prop11Moments
    v_max: float
    special_term: float
    rest_bound: float
    float64: Float64Demo
    noise: NoiseAtEta

    @property
    def k(self) -> int:
        return self.dataset.k

    @property
    def n_subsets(self) -> int:
        """C(n, k), the number of halves (an exact int)."""
        return self.dataset.n_subsets

    @property
    def sigma2(self) -> float:
        return self.moments2.sigma

    @property
    def sigma_m(self) -> float:
        return self.moments_m.sigma

    @property
    def delta_over_sigma(self) -> float:
        """Δ / σ_M."""
        return self.delta / self.moments_m.sigma


def naive_float_special_sum(a_value: float, k: int) -> float:
    """``A + 2⁰ + 2¹ + … + 2ᵏ⁻²`` summed left to right in float64 (a deliberately naive sum).

    ``a_value`` is A rounded to float64 (:attr:`mipcore.prop11.Prop11Dataset.a_value`). The
    exact sum is √p; float64 keeps 53 significant bits of A (about −2ᵏ⁻¹), so for n around 54
    and above the result is 0 or even negative. :mod:`mipcore.prop11` never forms this sum in
    floating point. ``k >= 1``.

    Examples
    --------
    >>> naive_float_special_sum(prop11.dataset(60).a_value, 30)
    0.0
    """
    k = check_int("k", k, 1)
    s = float(a_value)
    for i in range(k - 1):
        s += 2.0**i
    return s


def _float64_demo(ds: prop11.Prop11Dataset, special: float) -> Float64Demo:
    naive = naive_float_special_sum(ds.a_value, ds.k)
    sqrt_p = 1.0 / special
    rel = (naive - sqrt_p) / sqrt_p
    if naive == 0:
        outcome = Float64Outcome.ZERO
    elif naive < 0:
        outcome = Float64Outcome.NEGATIVE
    elif rel > 1:
        outcome = Float64Outcome.TOO_LARGE
    else:
        outcome = Float64Outcome.CLOSE
    return Float64Demo(
        naive_sum=naive,
        sqrt_p=sqrt_p,
        outcome=outcome,
        relative_error=rel,
        naive_output=None if naive == 0 else 1.0 / naive,
        harmless=outcome is Float64Outcome.CLOSE and abs(rel) < _HARMLESS,
        a_ulp=math.ulp(ds.a_value),
        precision_bits=2 * ds.n + 128,
    )


def float64_outcomes(n_max: int = 200) -> tuple[tuple[int, Float64Outcome], ...]:
    """Where the float64 demonstration changes its outcome, over the even n from 4 to n_max:
    ``((n, outcome), ...)`` with the first n of each run of equal outcomes.

    ``4 <= n_max <= 400``; about half a second for n_max = 200.

    Examples
    --------
    >>> [(n, o.value) for n, o in float64_outcomes(120)]
    [(4, 'close'), (58, 'zero'), (110, 'too_large'), (112, 'negative')]
    """
    n_max = check_int("n_max", n_max, prop11.N_MIN, prop11.N_MAX)
    out: list[tuple[int, Float64Outcome]] = []
    for n in range(prop11.N_MIN, n_max + 1, 2):
        outcome = _float64_demo(prop11.dataset(n), prop11.special_output(n)).outcome
        if not out or out[-1][1] is not outcome:
            out.append((n, outcome))
    return tuple(out)


def noise_at_eta(
    eta: float,
    *,
    delta: float,
    sigma_m: float,
    sigma2: float,
    M: int,
    constant: float = COROLLARY14_CONSTANT,
) -> NoiseAtEta:
    """The three Laplace scales for η-MIP of a statistic with sensitivity Δ and spread σ_M.

    ``0 < eta < 1/2``; ``delta, sigma_m, sigma2 >= 0``; ``2 <= M <= 16``; ``constant >= 6.16``.

    Examples
    --------
    >>> z = noise_at_eta(0.1, delta=1e6, sigma_m=1.0, sigma2=1.0, M=2)
    >>> round(z.paper_scale, 2), round(z.certified_scale, 4), round(z.dp_over_certified)
    (3794.56, 4.4814, 550340)
    """
    e = float(check_range("eta", eta, 0.0, 0.5, lo_open=True, hi_open=True))
    d = float(check_range("delta", delta, 0.0, math.inf, hi_open=True))
    s_m = float(check_range("sigma_m", sigma_m, 0.0, math.inf, hi_open=True))
    s_2 = float(check_range("sigma2", sigma2, 0.0, math.inf, hi_open=True))
    m = check_int("M", M, 2, 16)
    paper_c = float(mip_noise_multiplier(e, m, constant))
    cert_c = float(required_noise_multiplier(e, M=m, d=1))
    return NoiseAtEta(
        eta=e,
        M=m,
        constant=float(constant),
        epsilon=math.log1p(2 * e) - math.log1p(-2 * e),
        dp_scale=float(dp_laplace_scale(e, d)),
        paper_multiplier=paper_c,
        paper_scale=paper_c * s_m,
        certified_multiplier=cert_c,
        certified_scale=cert_c * s_m,
        certified_scale_sigma2=cert_c * s_2,
    )


def prop11_view(
    n: int, M: int = 2, *, eta: float = ETA_EXAMPLE, constant: float = COROLLARY14_CONSTANT
) -> Prop11View:
    """Every number the Proposition 11 page quotes for dataset size n and moment order M.

    ``4 <= n <= 400`` (the page offers even n up to 200), ``2 <= M <= 16``; ``eta`` and
    ``constant`` as in :func:`noise_at_eta`. Certifying the moments takes up to about a second.

    Examples
    --------
    >>> v = prop11_view(8)
    >>> v.k, v.n_subsets, round(v.delta, 4), round(v.sigma2, 4), v.float64.outcome.value
    (4, 70, 8.3525, 0.9901, 'close')
    """
    n = check_int("n", n, prop11.N_MIN, prop11.N_MAX)
    m = check_int("M", M, 2, 16)
    ds = prop11.dataset(n)
    delta = prop11.sensitivity(n)
    special = prop11.special_output(n)
    mom2 = prop11.output_moments(n, 2)
    mom_m = prop11.output_moments(n, m) if m != 2 else mom2
    v_max = max(r["value_max"] for r in prop11.value_histogram(n) if r["group"] != "special D*")
    return Prop11View(
        n=n,
        M=m,
        dataset=ds,
        delta=delta,
        delta_interval=prop11.sensitivity_interval(n),
        special=special,
        moments2=mom2,
        moments_m=mom_m,
        v_max=float(v_max),
        special_term=(1.0 - mom2.mean / special) ** 2,  # p (p^(-1/2) - μ)^2, written stably
        rest_bound=max(float(v_max), mom2.mean) ** 2,
        float64=_float64_demo(ds, special),
        noise=noise_at_eta(
            eta, delta=delta, sigma_m=mom_m.sigma, sigma2=mom2.sigma, M=m, constant=constant
        ),
    )


@dataclass(frozen=True)
class Growth:
    """Δ, σ_M and Δ/σ_M for every even n from 4 to 200 (``table``: the columns of
    :func:`mipcore.prop11.growth_table`), and the last row's ratio and rate 2^(n/3)."""

    M: int
    table: pd.DataFrame
    last_n: int
    last_ratio: float
    last_rate: float


def growth(M: int = 2) -> Growth:
    """The growth chart's table for moment order M (``2 <= M <= 16``); about 6 s."""
    m = check_int("M", M, 2, 16)
    table = prop11.growth_table(GROWTH_NS, m)
    last = table.iloc[-1]
    return Growth(m, table, int(last["n"]), float(last["ratio"]), float(last["rate"]))


@dataclass(frozen=True)
class Distribution:
    """The distribution of 𝒜(D) for one n, binned (``histogram``: the rows of
    :func:`mipcore.prop11.value_histogram`; ``csv``: the same with the exact counts as text),
    and the numbers the page quotes: the largest ordinary output ``v_max`` and the first bin of
    largest probability among the ordinary halves."""

    n: int
    histogram: pd.DataFrame
    csv: pd.DataFrame
    v_max: float
    heavy_probability: float
    heavy_min: float
    heavy_max: float


def distribution(n: int) -> Distribution:
    """The binned distribution of 𝒜(D) over the halves (``4 <= n <= 400``); fast.

    Examples
    --------
    >>> d = distribution(4)
    >>> d.heavy_probability, round(d.v_max, 4)
    (0.333333333333, 0.7101)
    """
    n = check_int("n", n, prop11.N_MIN, prop11.N_MAX)
    hist = pd.DataFrame(prop11.value_histogram(n))
    ordinary = [
        (lo, hi, pr)
        for group, lo, hi, pr in zip(
            hist["group"].tolist(),
            hist["value_min"].tolist(),
            hist["value_max"].tolist(),
            hist["probability"].tolist(),
            strict=True,
        )
        if group != "special D*"
    ]
    heavy_min, heavy_max, heavy_p = max(ordinary, key=lambda r: r[2])  # first of equal maxima
    return Distribution(
        n=n,
        histogram=hist,
        csv=hist.assign(count=hist["count"].map(str)),  # exact integers, as text
        v_max=float(max(hi for _lo, hi, _pr in ordinary)),
        heavy_probability=float(heavy_p),
        heavy_min=float(heavy_min),
        heavy_max=float(heavy_max),
    )
