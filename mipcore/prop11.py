r"""Proposition 11: a natural algorithm whose spread is O(1) while its sensitivity explodes.

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582: Section 4 (Proposition 11; Proposition 9 in the arXiv version) and its
proof sketch in Appendix D; Section 5.1 / Figure 1 use it.

The construction (proof sketch, even n; k = n/2):

* ``p = 1 / C(n, k)`` and ``A = sqrt(p) - sum_{i=0}^{k-2} 2^i = sqrt(p) - (2^(k-1) - 1)``;
* the dataset is ``{2^0, 2^1, ..., 2^(n-2)} ∪ {A}`` (n records);
* the algorithm is ``𝒜(D) = 1 / sum_{x in D} x`` over the k-subsets D.

The *special* subset ``D* = {2^0, ..., 2^(k-2), A}`` sums to ``sqrt(p)``, so
``𝒜(D*) = p^(-1/2)``: one enormous output that occurs with probability p. Every
other k-subset has ``0 < 𝒜(D) <= 1``. Hence the variance stays about
``p · p^(-1) = 1`` while the sensitivity is about ``p^(-1/2) ≈ 2^(n/2)``.

**Odd n.** Proposition 11 uses subsets of size ``floor(n/2)``; we use the same
construction with ``k = floor(n/2)`` everywhere above (``p = 1/C(n, k)``). All
statements and proofs below hold verbatim for any ``k >= 2``. The MIP definition
with k = n/2 (random *half*) needs even n, which is why the app offers even n.

**Slip in the paper.** The main text defines ``𝒜(D) = 1/Σx``; the appendix
restates it as ``Σ 1/x``. Only ``1/Σx`` works: with ``Σ 1/x`` the special subset
would not stand out (``1/A`` is of order ``2^-(k-1)``). We implement ``1/Σx``.

**Exactness.** Float64 loses the special sum: at n = 48, ``A + 2^0 + ... + 2^22`` is
``sqrt(p) ≈ 1.8e-7`` formed from terms of size ``2^22``, and the naive float sum is
already off by 4e-4 relative; at n = 64 it comes out exactly 0 (:func:`naive_special_sum`;
:func:`float64_outcomes` says from which n on float64 gets 0, a far too large or a negative sum).
This module never forms such sums in floating point. Every subset sum is written
exactly as ``integer`` (no A) or ``sqrt(p) + integer`` (with A), where the integer is
a Python int, and all real arithmetic is done in interval arithmetic
(``mpmath.iv``, outward rounding) at ``2n + 128`` bits, so every reported number
is *certified*: the true value lies inside the returned interval.

**Moments (the certified interval argument).** There are ``C(n, k)`` subsets (about
9e58 at n = 200), so the mean and the M-th central moment are computed by a
branch-and-bound over the binary digits of the subset sums instead of by
enumeration. A subset without A is an integer ``S`` with exactly ``k`` one-bits
among bits ``0..n-2``; one with A is ``sqrt(p) - (2^(k-1) - 1) + T`` with ``T`` having
``k - 1`` one-bits. A *node* fixes the high bits (``H``) and leaves the low ``j``
bits free with ``r`` ones: its ``C(j, r)`` subsets have sums ``c + L`` with
``L`` in ``[2^r - 1, 2^j - 2^(j-r)]`` and exactly known mean ``m_L = r (2^j - 1)/j``
and variance ``v_L`` of L over the node. For the mean of 1/S we use the exact identity

.. math:: \frac1S = \frac1m - \frac{S-m}{m^2} + \frac{(S-m)^2}{m^2 S},\qquad m = c + m_L,

whose middle term averages to 0 over the node, so the node's average of 1/S lies in
``[1/m + v_L/(m^2 S_max), 1/m + v_L/(m^2 S_min)]`` -- a third-order-tight enclosure.
For ``|1/S - μ|^M`` the node uses the interval ``[1/S_max, 1/S_min]``. Nodes are split
(bit ``j-1`` set or not) widest-first until the enclosure of the total is relatively
narrower than ``rtol`` or ``max_nodes`` nodes have been split; a node with a single
subset is evaluated exactly. For small n this enumerates every subset
(``exhaustive=True``); otherwise the result is the certified interval, and callers
that need a *bound* (the noise of Theorem 9) must use its upper end, which is what
:attr:`Prop11Moments.moment` and :attr:`Prop11Moments.sigma` are.
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext
from mpmath.libmp import (
    from_int,
    from_rational,
    fzero,
    mpf_add,
    mpf_cmp,
    mpf_div,
    mpf_mul,
    mpf_neg,
    mpf_pow_int,
    mpf_shift,
    mpf_sign,
    mpf_sqrt,
    mpf_sub,
    to_float,
)

from ._validate import check_int

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "N_MAX",
    "N_MIN",
    "Float64Outcome",
    "Prop11Dataset",
    "Prop11Moments",
    "dataset",
    "float64_outcome",
    "float64_outcomes",
    "naive_special_sum",
    "output_moments",
    "sensitivity",
    "sensitivity_interval",
    "sigma",
    "special_output",
    "value_histogram",
]

N_MIN = 4
N_MAX = 400

#: A raw mpmath ``libmp`` number ``(sign, mantissa, exponent, bitcount)``.
_Mpf = tuple[int, int, int, int]
#: An interval ``(lo, hi)`` of raw numbers, lower end rounded down, upper end up.
_Iv = tuple[_Mpf, _Mpf]


def _check_n(n: int) -> int:
    return check_int("n", n, N_MIN, N_MAX)


def _prec(n: int) -> int:
    return 2 * n + 128


def _ctx(n: int) -> MPIntervalContext:
    """A private interval context at 2n + 128 bits.

    mpmath's module-level contexts hold their precision globally; a fresh context
    per call keeps concurrent Streamlit sessions (threads) from changing each
    other's precision.
    """
    ctx = MPIntervalContext()
    ctx.prec = _prec(n)
    return ctx


@dataclass(frozen=True)
class Prop11Dataset:
    """The Proposition 11 dataset for a given n (exact description).

    ``powers`` are the exponents i of the records 2^i; the last record is
    ``A = sqrt(p) + a_offset`` with ``a_offset = -(2^(k-1) - 1)`` (an int) and
    ``p = 1/C(n, k)``.
    """

    n: int
    k: int
    n_subsets: int  # C(n, k)
    powers: tuple[int, ...]
    a_offset: int
    a_value: float  # A rounded to float64 (for display only)
    special_subset: tuple[str, ...]

    @property
    def p(self) -> Fraction:
        return Fraction(1, self.n_subsets)


def dataset(n: int) -> Prop11Dataset:
    """The dataset ``{2^0, ..., 2^(n-2)} ∪ {A}`` of Proposition 11 (``4 <= n <= N_MAX``).

    Examples
    --------
    >>> d = dataset(8)
    >>> d.k, d.n_subsets, d.a_offset, d.special_subset
    (4, 70, -7, ('2^0', '2^1', '2^2', 'A'))
    """
    n = _check_n(n)
    k = n // 2
    total = math.comb(n, k)
    a_offset = -(2 ** (k - 1) - 1)
    iv = _ctx(n)
    a_value = _nearest((1 / iv.sqrt(total) + a_offset)._mpi_)
    special = (*tuple(f"2^{i}" for i in range(k - 1)), "A")
    return Prop11Dataset(n, k, total, tuple(range(n - 1)), a_offset, a_value, special)


def special_output(n: int) -> float:
    """``𝒜(D*) = p^(-1/2) = sqrt(C(n, k))``, the one huge output (``4 <= n <= N_MAX``).

    Examples
    --------
    >>> special_output(8)  # sqrt(70)
    8.36660026534
    """
    n = _check_n(n)
    return _nearest(_ctx(n).sqrt(math.comb(n, n // 2))._mpi_)


def _sensitivity_iv(n: int) -> Any:
    """Δ as an ``mpmath.iv`` interval at 2n + 128 bits (n already checked)."""
    k = n // 2
    iv = _ctx(n)
    return iv.sqrt(math.comb(n, k)) - 1 / iv.mpf(2 ** (n - 2) + 2 ** (k - 1) - 1)


def sensitivity_interval(n: int) -> tuple[float, float]:
    r"""Certified enclosure ``(lo, hi)`` of the exact sensitivity Δ (see :func:`sensitivity`)."""
    return _iv_floats(_sensitivity_iv(_check_n(n)))


def sensitivity(n: int) -> float:
    r"""Exact sensitivity ``Δ = max_{D ~ D'} |𝒜(D) - 𝒜(D')|`` over adjacent k-subsets.

    Closed form (derived here; checked against enumeration for n <= 16 in the tests):

    .. math:: \Delta = p^{-1/2} - \frac{1}{2^{n-2} + 2^{k-1} - 1}.

    Argument: every output except ``𝒜(D*) = p^{-1/2} >= sqrt(6)`` lies in (0, 1],
    so the maximum is attained between D* and a neighbour D' of smallest output,
    i.e. largest sum. Swapping A for the largest record 2^(n-2) gives the sum
    ``2^(k-1) - 1 + 2^(n-2)``; swapping a power 2^i of D* for 2^(n-2) gives only
    ``sqrt(p) + 2^(n-2) - 2^i``, which is smaller because ``sqrt(p) < 1 <= 2^(k-1)``.

    Returns the float64 nearest to the midpoint of a certified interval of relative
    width about ``2^-(2n+120)`` (so the correctly rounded value, unless Δ lies within that
    width of a rounding boundary). ``4 <= n <= N_MAX``.

    Examples
    --------
    >>> sensitivity(8)  # sqrt(70) - 1/(2^6 + 2^3 - 1)
    8.35251575830
    """
    return _nearest(_sensitivity_iv(_check_n(n))._mpi_)


# --------------------------------------------------------------------------- moments


@dataclass(frozen=True)
class Prop11Moments:
    """Mean and M-th absolute central moment of 𝒜(D), D uniform over k-subsets.

    ``mean`` is the midpoint of the certified ``mean_interval``; ``moment`` is the
    *upper* end of ``moment_interval`` (what a noise calibration must use), and
    ``sigma = moment**(1/M)`` rounded up. ``exhaustive`` is True when every subset
    was evaluated individually, in which case the intervals are only rounding-wide.
    Iterating yields ``(mean, moment)``, so ``mean, m = output_moments(n)`` works.
    """

    n: int
    M: int
    mean: float
    moment: float
    mean_interval: tuple[float, float]
    moment_interval: tuple[float, float]
    exhaustive: bool
    nodes: int = field(repr=False)
    mean_text: str = field(repr=False)
    moment_text: str = field(repr=False)

    @property
    def sigma(self) -> float:
        """``moment ** (1/M)`` from the upper end, rounded up (sigma_M of Theorem 9)."""
        return math.nextafter(self.moment ** (1.0 / self.M), math.inf)

    @property
    def moment_rel_width(self) -> float:
        """Relative width of the certified moment interval."""
        lo, hi = self.moment_interval
        return (hi - lo) / hi if hi > 0 else 0.0

    @property
    def mean_rel_width(self) -> float:
        """Relative width of the certified mean interval."""
        lo, hi = self.mean_interval
        return (hi - lo) / hi if hi > 0 else 0.0

    def __iter__(self) -> Iterator[float]:
        yield self.mean
        yield self.moment


def output_moments(
    n: int, M: int = 2, *, rtol: float = 1e-12, max_nodes: int = 3000
) -> Prop11Moments:
    """Certified mean and M-th absolute central moment ``E|𝒜(D) - E𝒜(D)|^M``.

    Parameters
    ----------
    n : ``4 <= n <= N_MAX`` (odd n uses k = floor(n/2), see the module docstring).
    M : integer moment order, ``2 <= M <= 16`` (M = 2: the variance).
    rtol : target relative width of the enclosures, ``0 <= rtol < 1``; 0 asks for
        full enumeration (bounded by ``max_nodes``).
    max_nodes : node-splitting budget per quantity, ``100 <= max_nodes <= 10^6``.

    Returns
    -------
    Prop11Moments
        See its docstring; the module docstring gives the certification argument.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Proposition 11.

    Examples
    --------
    At n = 8 the 70 subsets are enumerated; the variance stays near 1 although the
    sensitivity is 8.35 (:func:`sensitivity`):

    >>> m = output_moments(8)
    >>> m.exhaustive, m.mean, m.moment
    (True, 0.148445366377, 0.980200515195)
    >>> m.sigma  # the standard deviation, rounded up: Theorem 9's σ for M = 2
    0.990050763949
    >>> mean, var = output_moments(8)  # unpacks as (mean, moment)
    """
    n = _check_n(n)
    M = check_int("M", M, 2, 16)
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real):
        raise ValueError(f"rtol={rtol!r} is not a number")
    rtol = float(rtol)
    if not 0.0 <= rtol < 1.0:
        raise ValueError(f"rtol={rtol!r} is out of range: allowed 0 <= rtol < 1")
    max_nodes = check_int("max_nodes", max_nodes, 100, 10**6)
    return _output_moments(n, M, float(rtol), max_nodes)


def sigma(n: int, M: int = 2) -> float:
    """Certified upper bound σ_M = (E|𝒜 − E𝒜|^M)^(1/M) (a standard deviation for M = 2).

    ``4 <= n <= N_MAX``, ``2 <= M <= 16``; :func:`output_moments` with its defaults.
    """
    return output_moments(n, M).sigma


def _output_moments(n: int, M: int, rtol: float, max_nodes: int) -> Prop11Moments:
    k = n // 2
    total = math.comb(n, k)
    ar = _Arith(_prec(n))
    c_total = from_int(total)
    special = (ar.sqrt(c_total, "d"), ar.sqrt(c_total, "u"))  # p^(-1/2) = sqrt(C)
    sqrt_p = (ar.div(_ONE, special[1], "d"), ar.div(_ONE, special[0], "u"))
    p = (ar.div(_ONE, c_total, "d"), ar.div(_ONE, c_total, "u"))
    roots = _roots(n, k)

    # mean = p * (special + sum over the other subsets of 1/S)
    others, nodes1, exhaustive1 = _branch_and_bound(
        ar, roots, lambda node: _node_mean(ar, node, sqrt_p), rtol, max_nodes, offset=special
    )
    mean = ar.imul(p, ar.iadd(special, others))

    spec_term = ar.ipow_abs(ar.isub(special, mean), M)
    others_m, nodes2, exhaustive2 = _branch_and_bound(
        ar,
        roots,
        lambda node: _node_moment(ar, node, sqrt_p, mean, M),
        rtol,
        max_nodes,
        offset=spec_term,
    )
    moment = ar.imul(p, ar.iadd(spec_term, others_m))
    mean_lo, mean_hi = _floats(mean)
    mom_lo, mom_hi = _floats(moment)
    return Prop11Moments(
        n=n,
        M=M,
        mean=_nearest(mean),
        moment=mom_hi,
        mean_interval=(mean_lo, mean_hi),
        moment_interval=(mom_lo, mom_hi),
        exhaustive=exhaustive1 and exhaustive2,
        nodes=nodes1 + nodes2,
        mean_text=_text(mean),
        moment_text=_text(moment),
    )


class _Arith:
    """Interval arithmetic on raw mpmath numbers with explicit directed rounding.

    An interval is a pair ``(lo, hi)`` of raw ``libmp`` mpf values; every lower end
    is computed with rounding towards -inf ("d" below means floor for the signed
    value: libmp's "f") and every upper end towards +inf ("c"), so the true value
    always lies inside. This is the same guarantee as ``mpmath.iv`` without its
    per-operation conversion overhead (about 5x faster here).
    """

    def __init__(self, prec: int) -> None:
        self.prec = prec
        # (j, r) -> _node_l_moments(j, r, prec): the branch and bound asks for the same few
        # hundred pairs thousands of times; remembered for this one computation only.
        self.l_memo: dict[tuple[int, int], tuple[_Iv, _Iv, _Iv]] = {}

    def l_moments(self, j: int, r: int) -> tuple[_Iv, _Iv, _Iv]:
        got = self.l_memo.get((j, r))
        if got is None:
            got = self.l_memo[(j, r)] = _node_l_moments(j, r, self.prec)
        return got

    # scalar operations with an explicit direction: "d" = towards -inf, "u" = towards +inf
    def add(self, a: _Mpf, b: _Mpf, d: str) -> _Mpf:
        return mpf_add(a, b, self.prec, _RND[d])

    def sub(self, a: _Mpf, b: _Mpf, d: str) -> _Mpf:
        return mpf_sub(a, b, self.prec, _RND[d])

    def mul(self, a: _Mpf, b: _Mpf, d: str) -> _Mpf:
        return mpf_mul(a, b, self.prec, _RND[d])

    def div(self, a: _Mpf, b: _Mpf, d: str) -> _Mpf:
        return mpf_div(a, b, self.prec, _RND[d])

    def sqrt(self, a: _Mpf, d: str) -> _Mpf:
        return mpf_sqrt(a, self.prec, _RND[d])

    # interval operations
    def iadd(self, x: _Iv, y: _Iv) -> _Iv:
        return self.add(x[0], y[0], "d"), self.add(x[1], y[1], "u")

    def isub(self, x: _Iv, y: _Iv) -> _Iv:
        return self.sub(x[0], y[1], "d"), self.sub(x[1], y[0], "u")

    def imul(self, x: _Iv, y: _Iv) -> _Iv:
        """Product of two intervals of non-negative numbers."""
        return self.mul(x[0], y[0], "d"), self.mul(x[1], y[1], "u")

    def imul_signed(self, x: _Iv, y: _Iv) -> _Iv:
        """Product of two intervals of any sign."""
        cands_lo = [self.mul(a, b, "d") for a in x for b in y]
        cands_hi = [self.mul(a, b, "u") for a in x for b in y]
        lo = min(cands_lo, key=_MPF_ORDER)  # exact comparison: float keys could tie
        hi = max(cands_hi, key=_MPF_ORDER)
        return lo, hi

    def ipow_abs(self, x: _Iv, m: int) -> _Iv:
        """``|x|^m`` over the interval x."""
        lo, hi = x
        if mpf_sign(lo) >= 0:
            a, b = lo, hi
        elif mpf_sign(hi) <= 0:
            a, b = mpf_neg(hi), mpf_neg(lo)
        else:
            a, b = fzero, (hi if mpf_cmp(hi, mpf_neg(lo)) >= 0 else mpf_neg(lo))
        return (mpf_pow_int(a, m, self.prec, "f"), mpf_pow_int(b, m, self.prec, "c"))


_RND = {"d": "f", "u": "c"}


_MPF_ORDER = cmp_to_key(mpf_cmp)
# libmp: "f" = floor (towards -inf), "c" = ceiling (towards +inf)
_ONE = from_int(1)


# A node: subsets whose sum is  base + H + L,  L = the low j bits with exactly r ones.
# base is sqrt(p) + a_offset for subsets containing A and 0 otherwise.
@dataclass
class _Node:
    with_a: bool
    offset: int  # the integer part: H (+ a_offset when with_a); always >= 1 here
    j: int
    r: int

    @property
    def count(self) -> int:
        return math.comb(self.j, self.r)


def _roots(n: int, k: int) -> list[_Node]:
    """All k-subsets except D*, grouped by the top one-bit of their integer part."""
    a_offset = -(2 ** (k - 1) - 1)
    roots = []
    for t in range(k - 1, n - 1):  # subsets without A: k ones among bits 0..n-2, top bit t
        roots.append(_Node(False, 2**t, t, k - 1))
    for t in range(k - 1, n - 1):  # with A: T has k-1 ones, top bit t >= k-1 (t = k-2 is D*)
        roots.append(_Node(True, 2**t + a_offset, t, k - 2))
    return roots


def _split(node: _Node) -> list[_Node]:
    j, r = node.j, node.r
    children = []
    if r >= 1:
        children.append(_Node(node.with_a, node.offset + 2 ** (j - 1), j - 1, r - 1))
    if j - 1 >= r:
        children.append(_Node(node.with_a, node.offset, j - 1, r))
    return children


def _sum_bounds(ar: _Arith, node: _Node, sqrt_p: _Iv) -> tuple[_Iv, _Iv]:
    """Enclosures of (S_min, S_max), the node's smallest and largest subset sums (all > 0)."""
    j, r = node.j, node.r
    lo_int = node.offset + 2**r - 1
    hi_int = node.offset + 2**j - 2 ** (j - r)
    if node.with_a:
        s_min = (ar.add(from_int(lo_int), sqrt_p[0], "d"), ar.add(from_int(lo_int), sqrt_p[1], "u"))
        s_max = (ar.add(from_int(hi_int), sqrt_p[0], "d"), ar.add(from_int(hi_int), sqrt_p[1], "u"))
    else:
        s_min = (from_int(lo_int), from_int(lo_int))
        s_max = (from_int(hi_int), from_int(hi_int))
    return s_min, s_max


def _node_mean(ar: _Arith, node: _Node, sqrt_p: _Iv) -> _Iv:
    """Enclosure of the node's sum of 1/S (see the module docstring). All terms are > 0."""
    j, r = node.j, node.r
    s_min, s_max = _sum_bounds(ar, node, sqrt_p)
    if r == 0 or r == j:  # a single subset
        return ar.div(_ONE, s_min[1], "d"), ar.div(_ONE, s_min[0], "u")
    mean_l, (v_lo, v_hi), _ = ar.l_moments(j, r)
    c = from_int(node.offset)
    if node.with_a:
        m_lo = ar.add(ar.add(c, sqrt_p[0], "d"), mean_l[0], "d")
        m_hi = ar.add(ar.add(c, sqrt_p[1], "u"), mean_l[1], "u")
    else:
        m_lo = ar.add(c, mean_l[0], "d")
        m_hi = ar.add(c, mean_l[1], "u")
    # lower: 1/m + v/(m^2 S_max) at the largest m, S_max; upper: at the smallest m, S_min
    lo = ar.add(
        ar.div(_ONE, m_hi, "d"),
        ar.div(v_lo, ar.mul(ar.mul(m_hi, m_hi, "u"), s_max[1], "u"), "d"),
        "d",
    )
    hi = ar.add(
        ar.div(_ONE, m_lo, "u"),
        ar.div(v_hi, ar.mul(ar.mul(m_lo, m_lo, "d"), s_min[0], "d"), "u"),
        "u",
    )
    cnt = from_int(node.count)
    return ar.mul(lo, cnt, "d"), ar.mul(hi, cnt, "u")


def _node_moment(ar: _Arith, node: _Node, sqrt_p: _Iv, mean: _Iv, M: int) -> _Iv:
    """Enclosure of the node's sum of ``g(S) = |1/S - mean|^M``.

    When ``1/S - mean`` keeps one sign on the node, ``g`` is smooth there and Taylor's
    theorem with the Lagrange remainder about the node's mean sum m gives
    ``avg g = g(m) + avg(g''(xi) (S - m)^2)/2`` (the linear term averages to 0), so
    ``avg g`` lies in ``g(m) + (v_L/2) [min g'', max g'']`` over ``[S_min, S_max]``
    with ``g'' = M(M-1) h^(M-2)/S^4 + 2 s M h^(M-1)/S^3``, ``h = s(1/S - mean) >= 0``.
    Otherwise the node uses the range of ``|v - mean|^M`` over ``v in [1/S_max, 1/S_min]``.
    """
    j, r = node.j, node.r
    s_min, s_max = _sum_bounds(ar, node, sqrt_p)
    cnt = from_int(node.count)
    if r == 0 or r == j:
        vals = (ar.div(_ONE, s_min[1], "d"), ar.div(_ONE, s_min[0], "u"))
        lo, hi = ar.ipow_abs(ar.isub(vals, mean), M)
        return ar.mul(lo, cnt, "d"), ar.mul(hi, cnt, "u")
    vals = (ar.div(_ONE, s_max[1], "d"), ar.div(_ONE, s_min[0], "u"))
    diff = ar.isub(vals, mean)  # range of 1/S - mean over the node
    if mpf_sign(diff[0]) >= 0:
        sign, h = 1, diff
    elif mpf_sign(diff[1]) <= 0:
        sign, h = -1, (mpf_neg(diff[1]), mpf_neg(diff[0]))
    else:  # the node straddles 1/S = mean: crude range
        lo, hi = ar.ipow_abs(diff, M)
        return ar.mul(lo, cnt, "d"), ar.mul(hi, cnt, "u")
    mean_l, _, half_var = ar.l_moments(j, r)
    c = from_int(node.offset)
    base = sqrt_p if node.with_a else (fzero, fzero)
    m = (
        ar.add(ar.add(c, base[0], "d"), mean_l[0], "d"),
        ar.add(ar.add(c, base[1], "u"), mean_l[1], "u"),
    )
    inv_m = (ar.div(_ONE, m[1], "d"), ar.div(_ONE, m[0], "u"))
    g_m = ar.ipow_abs(ar.isub(inv_m, mean), M)  # h(m)^M (same sign as on the node)
    # g'' pieces (h, S > 0): t1 = M(M-1) h^(M-2) / S^4 >= 0, t2 = 2 M h^(M-1) / S^3 >= 0
    mm1 = from_int(M * (M - 1))
    two_m = from_int(2 * M)
    t1 = (
        ar.div(
            ar.mul(mm1, mpf_pow_int(h[0], M - 2, ar.prec, "f"), "d"),
            mpf_pow_int(s_max[1], 4, ar.prec, "c"),
            "d",
        ),
        ar.div(
            ar.mul(mm1, mpf_pow_int(h[1], M - 2, ar.prec, "c"), "u"),
            mpf_pow_int(s_min[0], 4, ar.prec, "f"),
            "u",
        ),
    )
    t2 = (
        ar.div(
            ar.mul(two_m, mpf_pow_int(h[0], M - 1, ar.prec, "f"), "d"),
            mpf_pow_int(s_max[1], 3, ar.prec, "c"),
            "d",
        ),
        ar.div(
            ar.mul(two_m, mpf_pow_int(h[1], M - 1, ar.prec, "c"), "u"),
            mpf_pow_int(s_min[0], 3, ar.prec, "f"),
            "u",
        ),
    )
    g2 = ar.iadd(t1, t2) if sign > 0 else ar.isub(t1, t2)
    corr = ar.imul_signed(half_var, g2)
    lo, hi = ar.iadd(g_m, corr)
    lo = lo if mpf_sign(lo) > 0 else fzero  # g >= 0
    return ar.mul(lo, cnt, "d"), ar.mul(hi, cnt, "u")


def _node_l_moments(j: int, r: int, prec: int) -> tuple[_Iv, _Iv, _Iv]:
    """Mean and variance of L = sum of a uniform r-subset of {2^0, ..., 2^(j-1)}, 0 < r < j.

    With ``P(bit set) = r/j`` and ``P(two given bits set) = r(r-1)/(j(j-1))``:
    ``E L = r (2^j - 1)/j`` and, over the common denominator ``3 j^2 (j-1)``,
    ``Var L = [r j (j-1) A + r (r-1) j (B - A) - r^2 (j-1) B] / (3 j^2 (j-1))``
    with ``A = 4^j - 1`` and ``B = 3 (2^j - 1)^2``. Exact integers, then rounded
    outwards: returns ``((mean_lo, mean_hi), (var_lo, var_hi), (half_var_lo, half_var_hi))``.
    """
    a = 4**j - 1
    b = 3 * (2**j - 1) ** 2
    var_num = r * j * (j - 1) * a + r * (r - 1) * j * (b - a) - r * r * (j - 1) * b
    var_den = 3 * j * j * (j - 1)
    mean_num, mean_den = r * (2**j - 1), j

    def enclose(num: int, den: int) -> _Iv:
        return (from_rational(num, den, prec, "f"), from_rational(num, den, prec, "c"))

    return enclose(mean_num, mean_den), enclose(var_num, var_den), enclose(var_num, 2 * var_den)


def _width(x: _Iv) -> float:
    return to_float(mpf_sub(x[1], x[0], 53, "c"), rnd="u")


def _lo_float(x: _Iv) -> float:
    return to_float(x[0], rnd="d")


def _branch_and_bound(
    ar: _Arith,
    roots: list[_Node],
    contrib: Callable[[_Node], _Iv],
    rtol: float,
    max_nodes: int,
    offset: _Iv,
) -> tuple[_Iv, int, bool]:
    """Sum of ``contrib`` over all subsets (as an interval), refined widest-first.

    Returns (enclosure of the sum, number of splits, exhaustive flag). ``offset`` is
    a known term added to the total when judging the relative width. The stopping
    rule uses running float estimates of the total width and value; the returned
    enclosure is the exact interval sum of all leaves and open nodes, so the
    certification never depends on those estimates.
    """
    heap: list[tuple[float, int, _Node, _Iv]] = []
    done: _Iv = (fzero, fzero)
    counter = 0
    width = 0.0  # running estimate of the total width of the open nodes
    value = abs(_lo_float(offset))  # running estimate of |total|
    for node in roots:
        val = contrib(node)
        value += _lo_float(val)
        if node.count == 1:
            done = ar.iadd(done, val)
        else:
            w = _width(val)
            width += w
            heapq.heappush(heap, (-w, counter, node, val))
            counter += 1
    splits = 0
    while heap and splits < max_nodes:
        if rtol > 0 and width <= rtol * value:
            break
        neg_w, _, node, val = heapq.heappop(heap)
        splits += 1
        width += neg_w
        value -= _lo_float(val)
        for child in _split(node):
            cval = contrib(child)
            value += _lo_float(cval)
            if child.count == 1:
                done = ar.iadd(done, cval)
            else:
                w = _width(cval)
                width += w
                heapq.heappush(heap, (-w, counter, child, cval))
                counter += 1
    total = done
    for item in heap:
        total = ar.iadd(total, item[3])
    return total, splits, not heap


# --------------------------------------------------------------------------- distribution


def value_histogram(n: int) -> list[dict[str, Any]]:
    """Exact distribution of 𝒜(D) over the k-subsets, binned by the top bit of the sum.

    Returns one row per bin: ``group`` ("without A", "with A" or "special D*"),
    ``top_bit`` (t: the integer part of the sum -- of T for subsets with A -- has its
    highest one-bit at 2^t), ``value_min``/``value_max`` (certified range of 𝒜(D)
    in the bin, outward-rounded floats), ``count`` (an exact Python int) and
    ``probability`` (count / C(n, k), a float). ``4 <= n <= N_MAX``.

    Examples
    --------
    >>> rows = value_histogram(4)
    >>> [(r["group"], r["count"]) for r in rows]
    [('without A', 1), ('without A', 2), ('with A', 1), ('with A', 1), ('special D*', 1)]
    >>> sum(r["count"] for r in rows)  # C(4, 2)
    6
    """
    n = _check_n(n)
    k = n // 2
    total = math.comb(n, k)
    ar = _Arith(_prec(n))
    c_total = from_int(total)
    special = (ar.sqrt(c_total, "d"), ar.sqrt(c_total, "u"))
    sqrt_p = (ar.div(_ONE, special[1], "d"), ar.div(_ONE, special[0], "u"))
    rows = []
    for node in _roots(n, k):
        s_min, s_max = _sum_bounds(ar, node, sqrt_p)
        rows.append(
            {
                "group": "with A" if node.with_a else "without A",
                "top_bit": node.j,
                "value_min": to_float(ar.div(_ONE, s_max[1], "d"), rnd="d"),
                "value_max": to_float(ar.div(_ONE, s_min[0], "u"), rnd="u"),
                "count": node.count,
                "probability": node.count / total,
            }
        )
    s_lo, s_hi = _floats(special)
    rows.append(
        {
            "group": "special D*",
            "top_bit": k - 2,
            "value_min": s_lo,
            "value_max": s_hi,
            "count": 1,
            "probability": 1 / total,
        }
    )
    return rows


# --------------------------------------------------------------------------- float64


class Float64Outcome(StrEnum):
    """What naive float64 gets for the special half's sum ``A + 2⁰ + … + 2ᵏ⁻²`` (exactly √p)."""

    ZERO = "zero"  # the sum is exactly 0: 1/0
    NEGATIVE = "negative"  # a negative sum (and output), although √p > 0
    TOO_LARGE = "too_large"  # more than twice √p
    CLOSE = "close"  # within a factor 2 of √p


def naive_special_sum(n: int) -> float:
    """D*'s sum ``A + 2⁰ + 2¹ + … + 2ᵏ⁻²`` as a naive float64 program gets it (``4 <= n <= N_MAX``).

    A rounded to float64 (:attr:`Prop11Dataset.a_value`), then the powers of two added left to
    right. The exact sum is √p = 1/:func:`special_output`; float64 keeps 53 significant bits of
    A (about −2ᵏ⁻¹), so from n = 58 on the result is 0, far too large or negative
    (:func:`float64_outcomes`). This module never forms this sum in floating point.

    Examples
    --------
    >>> naive_special_sum(60)  # sqrt(p) = 1.0e-9 is lost completely
    0.0
    """
    d = dataset(n)
    s = d.a_value
    for i in range(d.k - 1):
        s += 2.0**i
    return s


def float64_outcome(n: int) -> Float64Outcome:
    """How :func:`naive_special_sum` compares with the exact √p (``4 <= n <= N_MAX``).

    Examples
    --------
    >>> float64_outcome(48).value, float64_outcome(60).value
    ('close', 'zero')
    """
    naive = naive_special_sum(n)
    sqrt_p = 1.0 / special_output(n)
    if naive == 0:
        return Float64Outcome.ZERO
    if naive < 0:
        return Float64Outcome.NEGATIVE
    if (naive - sqrt_p) / sqrt_p > 1:
        return Float64Outcome.TOO_LARGE
    return Float64Outcome.CLOSE


def float64_outcomes(n_max: int = 200) -> tuple[tuple[int, Float64Outcome], ...]:
    """Where :func:`float64_outcome` changes, over the even n from 4 to ``n_max``:
    ``((n, outcome), ...)`` with the first n of each run of equal outcomes.

    ``4 <= n_max <= N_MAX``; about half a second for n_max = 200.

    Examples
    --------
    >>> [(n, o.value) for n, o in float64_outcomes(120)]
    [(4, 'close'), (58, 'zero'), (110, 'too_large'), (112, 'negative')]
    """
    n_max = check_int("n_max", n_max, N_MIN, N_MAX)
    out: list[tuple[int, Float64Outcome]] = []
    for n in range(N_MIN, n_max + 1, 2):
        outcome = float64_outcome(n)
        if not out or out[-1][1] is not outcome:
            out.append((n, outcome))
    return tuple(out)


# --------------------------------------------------------------------------- helpers


def _iv_floats(x: Any) -> tuple[float, float]:
    return _floats(x._mpi_)


def _floats(x: _Iv) -> tuple[float, float]:
    """Outward-rounded float64 ends of a raw interval (lo, hi)."""
    return to_float(x[0], rnd="d"), to_float(x[1], rnd="u")


def _nearest(x: _Iv) -> float:
    """The float64 nearest to the midpoint of a raw interval (exact sum, exact halving).

    Rounding the ends outwards first and averaging them would give the midpoint of two
    adjacent floats, which rounds to the even one -- one ulp off half the time.
    """
    lo, hi = x
    mid = mpf_shift(mpf_add(lo, hi, 0), -1)  # prec 0: the exact sum
    return float(to_float(mid, rnd="n"))


def _text(x: _Iv, max_digits: int = 30) -> str:
    """The decimal digits the interval certifies (both ends agree to that many digits)."""
    a, b = x
    for digits in range(max_digits, 0, -1):
        sa, sb = libmp.to_str(a, digits), libmp.to_str(b, digits)
        if sa == sb:
            return sa
    return libmp.to_str(a, 3) + "…" + libmp.to_str(b, 3)


# --------------------------------------------------------------------------- growth in n


def growth_table(
    ns: Iterable[int], M: int = 2, *, rtol: float = 1e-9, max_nodes: int = 1500
) -> pd.DataFrame:
    """Δ, σ_M and Δ/σ_M for each n in ``ns``, beside the rate 2^(n/3) of Proposition 11.

    Returns a pandas DataFrame with columns ``n``, ``sensitivity``, ``sigma`` (the
    certified upper end), ``ratio`` (Δ/σ), ``rate`` (2^(n/3)) and ``ratio_over_rate``.
    ``rtol``/``max_nodes`` are passed to :func:`output_moments` (a looser default:
    the table feeds a log-scale chart).
    """
    import pandas as pd

    M = check_int("M", M, 2, 16)
    ns = list(ns)
    if not ns:
        raise ValueError("ns=[] is empty: choose at least one n")
    rows = []
    for n in ns:
        n = _check_n(n)
        delta = sensitivity(n)
        sig = output_moments(n, M, rtol=rtol, max_nodes=max_nodes).sigma
        rate = 2.0 ** (n / 3.0)
        rows.append(
            {
                "n": n,
                "sensitivity": delta,
                "sigma": sig,
                "ratio": delta / sig,
                "rate": rate,
                "ratio_over_rate": delta / sig / rate,
            }
        )
    return pd.DataFrame(rows)
