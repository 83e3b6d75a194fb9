"""Tests for mipcore.prop11: the Proposition 11 construction, Δ and the certified moments.

Source: Izzo, Yoon, Arık, Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582, Proposition 11 (main text, Section 4, and the proof sketch in Appendix D).

The reference here is an *independent brute force*: it rebuilds the dataset from the
proof sketch, writes every record exactly as a pair ``(integer part, coefficient of
sqrt(p))``, enumerates all ``floor(n/2)``-subsets with ``itertools.combinations``,
evaluates ``1/Σx`` in a private mpmath context at ``2n + 256`` bits, and sums the
moments directly. Δ is the maximum of ``|𝒜(D) − 𝒜(D′)|`` over *all* adjacent pairs
(one member swapped for one non-member). Nothing from ``mipcore.prop11``'s internals is
reused.

For n beyond brute force (n ≥ 24) the certified intervals are checked against bounds
proved below from the construction alone.

**Bounds used for large n** (k = floor(n/2) ≥ 2, p = 1/C(n, k), D* the special subset):

* Every subset other than D* has ``0 < 𝒜(D) <= 2^-(k-2)``. Without A the sum has k
  distinct powers of two, so it is at least ``2^k − 1 >= 2^(k-2)``. With A the sum is
  ``sqrt(p) + T − (2^(k-1) − 1)`` where T has k−1 one-bits; ``T = 2^(k-1) − 1`` (bits
  0..k−2) is D* itself, and the next smallest such T is ``2^(k-1) − 1 + 2^(k-2)`` (move
  bit k−2 to k−1), so the sum is at least ``sqrt(p) + 2^(k-2) > 2^(k-2)``.
* Hence ``μ = sqrt(p) + p·Σ_{D≠D*} 𝒜(D)`` lies in
  ``(sqrt(p), sqrt(p) + (1−p)·2^-(k-2))``.
* For D ≠ D*, ``|𝒜(D) − μ| < max(𝒜(D), μ) < sqrt(p) + 2^-(k-2)``, so
  ``p·|p^(-1/2) − μ|^M <= E|𝒜 − μ|^M``
  ``<= p·|p^(-1/2) − μ|^M + (1−p)(sqrt(p) + 2^-(k-2))^M``.
  (Both bounds are brute-force checked for small n below before being used for large n.)
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache

import mpmath
import numpy as np
import pytest

from mipcore import prop11

BRUTE_EVEN = list(range(4, 17, 2))  # the issue: every even n from 4 to 16
BRUTE_ODD = [5, 7, 9]  # odd n: the module uses k = floor(n/2)
MOMENT_ORDERS = (2, 3, 4)  # M = 3 exercises the absolute value
LARGE = (24, 48, 100, 200)


# --------------------------------------------------------------------------- the reference


def _ctx(n: int):
    """A private mpmath context (never touches the global mpmath.mp precision)."""
    ctx = mpmath.mp.clone()
    ctx.prec = 2 * n + 256
    return ctx


class Brute:
    """Exhaustive enumeration of the Proposition 11 construction for one n.

    Records are indexed 0..n−2 for the powers 2^i and n−1 for A. A record is the exact
    pair ``(a, b)`` meaning ``a + b·sqrt(p)``: 2^i is ``(2^i, 0)``, A is
    ``(−(2^(k−1) − 1), 1)``. A subset sum is the exact pair ``(Σa, Σb)``.
    """

    def __init__(self, n: int):
        self.n = n
        self.k = k = n // 2
        self.C = C = math.comb(n, k)
        ctx = self.ctx = _ctx(n)
        self.sqrt_p = ctx.mpf(1) / ctx.sqrt(C)
        records = [(2**i, 0) for i in range(n - 1)] + [(-(2 ** (k - 1) - 1), 1)]
        self.records = records
        self.masks: list[int] = []
        self.pairs: list[tuple[int, int]] = []
        self.values = []
        for combo in itertools.combinations(range(n), k):
            a = sum(records[i][0] for i in combo)
            b = sum(records[i][1] for i in combo)
            mask = 0
            for i in combo:
                mask |= 1 << i
            self.masks.append(mask)
            self.pairs.append((a, b))
            # a + b sqrt(p) formed in exact terms: no cancellation (a = 0 only for D*)
            self.values.append(1 / (a + b * self.sqrt_p) if b else ctx.mpf(1) / a)
        assert len(self.values) == C
        self.mean = ctx.fsum(self.values) / C

    @cache
    def moment(self, M: int):
        ctx, mu = self.ctx, self.mean
        return ctx.fsum(abs(v - mu) ** M for v in self.values) / self.C

    @cache
    def delta(self):
        """max |𝒜(D) − 𝒜(D′)| over every adjacent pair (one member swapped for a non-member).

        All C(n,k)·k·(n−k) ordered pairs are enumerated on float64 copies of the values
        (vectorised); every pair whose float difference is within 1e-9 (relative) of the
        float maximum is then re-evaluated exactly in mpmath. Float differences are off by
        at most a few ulps of the largest value (<= 1e-15·Δ), so the exact maximum is among
        the re-evaluated pairs.
        """
        n = self.n
        masks = np.array(self.masks, dtype=np.int64)
        order = np.argsort(masks)
        sorted_masks = masks[order]
        fvals = np.array([float(v) for v in self.values])
        best = -1.0
        cand_pairs = []
        per_pair = []
        for i in range(n):  # member out
            has_i = (masks >> i) & 1 == 1
            for j in range(n):  # non-member in
                if i == j:
                    continue
                src = np.nonzero(has_i & ((masks >> j) & 1 == 0))[0]
                nb = masks[src] ^ (1 << i) ^ (1 << j)
                pos = np.searchsorted(sorted_masks, nb)
                assert np.all(sorted_masks[pos] == nb)  # the neighbour is a k-subset
                dst = order[pos]
                diff = np.abs(fvals[src] - fvals[dst])
                per_pair.append((src, dst, diff))
                if diff.size:
                    best = max(best, float(diff.max()))
        n_pairs = sum(len(src) for src, _, _ in per_pair)
        assert n_pairs == self.C * self.k * (n - self.k)
        for src, dst, diff in per_pair:
            sel = diff >= best * (1 - 1e-9)
            cand_pairs.extend(zip(src[sel].tolist(), dst[sel].tolist(), strict=True))
        assert cand_pairs
        return max(abs(self.values[s] - self.values[d]) for s, d in cand_pairs)

    def special_index(self) -> int:
        return self.pairs.index((0, 1))


@cache
def brute(n: int) -> Brute:
    return Brute(n)


def assert_contains(interval, x, ctx, what: str):
    """The certified float interval contains the reference x (an mpf at >= 2n+256 bits).

    Compared exactly in mpmath, with a slack of 2^-(prec-32) relative for the reference's
    own rounding: far stricter than a 1-ulp float margin.
    """
    lo, hi = interval
    assert lo <= hi, f"{what}: empty interval {interval}"
    slack = abs(x) * ctx.mpf(2) ** (-(ctx.prec - 32))
    assert ctx.mpf(lo) <= x + slack, f"{what}: lower end {lo!r} above the reference {x}"
    assert ctx.mpf(hi) >= x - slack, f"{what}: upper end {hi!r} below the reference {x}"


def rel(a: float, b) -> float:
    b = float(b)
    return abs(a - b) / abs(b)


# --------------------------------------------------------------------------- the construction


@pytest.mark.parametrize("n", BRUTE_EVEN + BRUTE_ODD + [13])
def test_special_subset_is_huge_and_the_rest_lie_in_0_1(n):
    b = brute(n)
    ctx = b.ctx
    s = b.special_index()
    # 𝒜(D*) = 1/sqrt(p) = p^(-1/2) (a = 0, b = 1), up to the reference's own rounding
    assert abs(b.values[s] / ctx.sqrt(b.C) - 1) < ctx.mpf(2) ** (-(ctx.prec - 8))
    assert b.values[s] > 2  # sqrt(C(n,k)) >= sqrt(6): far above the rest (all <= 1)
    others = [v for i, v in enumerate(b.values) if i != s]
    bound = ctx.mpf(2) ** (-(b.k - 2))  # proved in the module docstring
    assert all(0 < v <= 1 for v in others)
    assert all(v <= bound for v in others)
    # the special subset is exactly {2^0, ..., 2^(k-2), A}
    assert b.masks[s] == (1 << (b.k - 1)) - 1 | (1 << (n - 1))


@pytest.mark.parametrize("n", [4, 5, 6, 9, 16, 48, 100, 199, 200, 400])
def test_special_output_is_sqrt_of_the_binomial(n):
    C = math.comb(n, n // 2)
    s = prop11.special_output(n)
    u = math.ulp(s)
    # exact rational check: (s - ulp)^2 < C < (s + ulp)^2, i.e. s is within one ulp of sqrt(C)
    fs, fu = Fraction(s), Fraction(u)
    assert (fs - fu) ** 2 < C < (fs + fu) ** 2
    if s < 2.0**52:  # integer part exactly (C(n,k) is not a perfect square for these n)
        assert math.isqrt(C) == math.floor(s)
    else:
        assert abs(math.isqrt(C) - Fraction(s)) <= fu + 1
    ctx = _ctx(n)
    assert abs(s - float(ctx.sqrt(C))) <= u


@pytest.mark.parametrize("n", [4, 5, 12, 17, 48, 400])
def test_dataset_fields(n):
    d = prop11.dataset(n)
    k = n // 2
    C = math.comb(n, k)
    assert (d.n, d.k, d.n_subsets) == (n, k, C)
    assert d.powers == tuple(range(n - 1))
    assert d.a_offset == -(2 ** (k - 1) - 1) and isinstance(d.a_offset, int)
    assert d.p == Fraction(1, C)
    assert len(d.special_subset) == k and d.special_subset[-1] == "A"
    assert d.special_subset[:-1] == tuple(f"2^{i}" for i in range(k - 1))
    assert len(d.powers) + 1 == n  # n records in all
    ctx = _ctx(n)
    a_exact = 1 / ctx.sqrt(C) + d.a_offset
    assert abs(d.a_value - float(a_exact)) <= math.ulp(d.a_value)


def test_float64_trap_at_n48():
    """A + 2^0 + ... + 2^22 = sqrt(p) exactly; float64 gets it visibly wrong, prop11 does not.

    Naive float64 is off by about 4.4e-4 relative at n = 48 (A itself is rounded to an
    ulp of 2^23, ~9e-10, against sqrt(p) ~ 1.8e-7): 10^12 times float64's precision, but
    not the 1 % one might guess. At n = 64 sqrt(p) ~ 7e-10 is below half an ulp of 2^30
    and the naive special sum is exactly 0 (100 % wrong).
    """
    n, k = 48, 24
    C = math.comb(n, k)
    sqrt_p = 1 / math.sqrt(C)
    A = sqrt_p - (2 ** (k - 1) - 1)
    naive = A
    for i in range(k - 1):
        naive += 2.0**i
    err48 = abs(naive - sqrt_p) / sqrt_p
    assert err48 > 1e-4
    assert abs(sum([A] + [2.0**i for i in range(k - 1)]) - sqrt_p) / sqrt_p > 1e-4
    # prop11 is exact: p * special_output^2 = 1 to float precision
    assert prop11.special_output(48) ** 2 / C == pytest.approx(1.0, rel=4e-16)
    assert prop11.special_output(48) ** -2 * C == pytest.approx(1.0, rel=4e-16)
    # at n = 64 the naive special sum is not even of the right order
    n, k = 64, 32
    C = math.comb(n, k)
    sqrt_p = 1 / math.sqrt(C)
    naive = sqrt_p - (2 ** (k - 1) - 1)
    for i in range(k - 1):
        naive += 2.0**i
    assert abs(naive - sqrt_p) / sqrt_p >= 0.5
    assert prop11.special_output(64) ** 2 / C == pytest.approx(1.0, rel=4e-16)


@pytest.mark.parametrize(
    "n, outcome",
    [
        (48, prop11.Float64Outcome.CLOSE),
        (56, prop11.Float64Outcome.CLOSE),
        (58, prop11.Float64Outcome.ZERO),
        (60, prop11.Float64Outcome.ZERO),
        (110, prop11.Float64Outcome.TOO_LARGE),
        (150, prop11.Float64Outcome.NEGATIVE),
    ],
)
def test_naive_special_sum_and_its_outcome(n, outcome):
    """The Proposition 11 page's float64 demonstration: A rounded to float64, then the powers
    added left to right (summed here too), against √p = 1/special_output."""
    k = n // 2
    s = float(prop11.dataset(n).a_value)
    for i in range(k - 1):
        s += float(2**i)
    assert prop11.naive_special_sum(n) == s
    assert prop11.float64_outcome(n) is outcome
    sqrt_p = 1 / math.sqrt(math.comb(n, k))
    if outcome is prop11.Float64Outcome.CLOSE:  # within a factor 2; 4.4e-4 relative at n = 48
        assert abs(s - sqrt_p) / sqrt_p < (1e-3 if n == 48 else 1)
        assert n == 48 or abs(s - sqrt_p) / sqrt_p > 1e-3  # 0.30 at n = 56
    elif outcome is prop11.Float64Outcome.TOO_LARGE:
        assert s > 2 * sqrt_p


def test_float64_outcome_changes():
    """Computed one n at a time above; here the runs: close up to 56, zero 58-108, too large at
    110, negative from 112 (the page used to say "from n = 56 on the sum is 0")."""
    changes = prop11.float64_outcomes(200)
    assert [(n, o.value) for n, o in changes] == [
        (4, "close"),
        (58, "zero"),
        (110, "too_large"),
        (112, "negative"),
    ]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: prop11.naive_special_sum(2), "n="),
        (lambda: prop11.float64_outcome(402), "n="),
        (lambda: prop11.float64_outcomes(2), "n_max="),
        (lambda: prop11.float64_outcomes(402), "n_max="),
    ],
)
def test_float64_demonstration_refuses_bad_n(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- Δ


@pytest.mark.parametrize("n", BRUTE_EVEN + BRUTE_ODD)
def test_sensitivity_equals_brute_force(n):
    b = brute(n)
    d_ref = b.delta()
    assert rel(prop11.sensitivity(n), d_ref) <= 1e-13
    assert_contains(prop11.sensitivity_interval(n), d_ref, b.ctx, f"Δ interval n={n}")


# --------------------------------------------------------------------------- moments


@pytest.mark.parametrize("M", MOMENT_ORDERS)
@pytest.mark.parametrize("n", BRUTE_EVEN + BRUTE_ODD)
def test_moments_equal_brute_force(n, M):
    b = brute(n)
    r = prop11.output_moments(n, M)
    assert (r.n, r.M) == (n, M)
    assert_contains(r.mean_interval, b.mean, b.ctx, f"mean n={n} M={M}")
    assert_contains(r.moment_interval, b.moment(M), b.ctx, f"moment n={n} M={M}")
    assert rel(r.mean, b.mean) <= 1e-12
    assert rel(r.moment, b.moment(M)) <= 1e-12
    assert r.moment == r.moment_interval[1]  # the upper end: what a noise calibration needs
    # sigma is moment^(1/M) rounded up, so it bounds the true sigma_M from above
    true_sigma = b.moment(M) ** (b.ctx.mpf(1) / M)
    assert b.ctx.mpf(r.sigma) >= true_sigma
    assert rel(r.sigma, true_sigma) <= 1e-12
    mean, moment = r  # iteration protocol
    assert (mean, moment) == (r.mean, r.moment)


@pytest.mark.parametrize("n", [6, 12, pytest.param(16, marks=pytest.mark.slow)])
def test_coarse_and_fine_enclosures_both_contain_the_truth(n):
    b = brute(n)
    fine = prop11.output_moments(n, 2)
    coarse = prop11.output_moments(n, 2, rtol=1e-6, max_nodes=300)
    full = prop11.output_moments(n, 2, rtol=0.0, max_nodes=10**6)
    for r, name in ((fine, "fine"), (coarse, "coarse"), (full, "rtol=0")):
        assert_contains(r.mean_interval, b.mean, b.ctx, f"{name} mean n={n}")
        assert_contains(r.moment_interval, b.moment(2), b.ctx, f"{name} moment n={n}")
    assert full.exhaustive
    assert full.moment_rel_width <= 4 * 2.0**-52  # only the final float rounding is left
    assert full.mean_rel_width <= 4 * 2.0**-52


@pytest.mark.parametrize("n", [18, 20])
def test_moments_beyond_16_against_float_enumeration(n):
    """Beyond the mpmath brute force: a float64 enumeration with exact integer sums.

    Each sum is an exact Python int a (or a + sqrt(p) with a >= 2^(k-2), no cancellation),
    so each float value is accurate to ~1e-16 relative and math.fsum adds them exactly;
    the reference is good to ~1e-15. The certified intervals (no longer exhaustive here)
    must agree to their own width plus that.
    """
    k = n // 2
    C = math.comb(n, k)
    sqrt_p = 1 / math.sqrt(C)
    off = -(2 ** (k - 1) - 1)
    vals = []
    for combo in itertools.combinations(range(n), k):
        if combo[-1] == n - 1:  # contains A
            a = sum(1 << i for i in combo[:-1]) + off
            vals.append(math.sqrt(C) if a == 0 else 1 / (a + sqrt_p))  # a = 0: D*
        else:
            vals.append(1 / sum(1 << i for i in combo))
    assert len(vals) == C
    mean = math.fsum(vals) / C
    var = math.fsum((v - mean) ** 2 for v in vals) / C
    r = prop11.output_moments(n, 2)
    tol = 1e-13
    lo, hi = r.mean_interval
    assert lo * (1 - tol) <= mean <= hi * (1 + tol)
    lo, hi = r.moment_interval
    assert lo * (1 - tol) <= var <= hi * (1 + tol)


@pytest.mark.parametrize("n", BRUTE_EVEN + BRUTE_ODD)
def test_large_n_bounds_hold_on_brute_force(n):
    """The bounds used for large n (module docstring) hold on every brute-force case."""
    b = brute(n)
    ctx, sp, k = b.ctx, b.sqrt_p, b.k
    p = ctx.mpf(1) / b.C
    tail = ctx.mpf(2) ** (-(k - 2))
    assert sp < b.mean < sp + (1 - p) * tail
    for M in MOMENT_ORDERS:
        head = p * abs(1 / sp - b.mean) ** M
        assert head <= b.moment(M) <= head + (1 - p) * (sp + tail) ** M


@pytest.mark.parametrize("n", LARGE)
def test_certified_intervals_consistent_for_large_n(n):
    k = n // 2
    C = math.comb(n, k)
    ctx = _ctx(n)
    sp = 1 / ctx.sqrt(C)
    p = ctx.mpf(1) / C
    tail = ctx.mpf(2) ** (-(k - 2))
    r = prop11.output_moments(n, 2)
    lo, hi = r.mean_interval
    assert lo <= hi
    assert r.mean_rel_width <= 1e-9
    # the truth is in (sqrt(p), sqrt(p) + (1-p) 2^-(k-2)); the certified interval must meet it
    assert ctx.mpf(hi) > sp and ctx.mpf(lo) < sp + (1 - p) * tail
    if n <= 48:  # here mean - sqrt(p) is far above float resolution: strict containment
        assert sp < ctx.mpf(lo) and ctx.mpf(hi) < sp + (1 - p) * tail
    assert lo <= r.mean <= hi
    # variance bracket from the mean's certified interval (f(mu) = p(p^-1/2 - mu)^2 decreases in mu)
    mu_lo, mu_hi = ctx.mpf(lo), ctx.mpf(hi)
    low_b = p * (1 / sp - mu_hi) ** 2
    up_b = p * (1 / sp - mu_lo) ** 2 + (1 - p) * (sp + tail) ** 2
    m_lo, m_hi = r.moment_interval
    assert m_lo <= m_hi and r.moment_rel_width <= 1e-9
    assert ctx.mpf(m_hi) >= low_b * (1 - ctx.mpf(2) ** -200)
    assert ctx.mpf(m_lo) <= up_b * (1 + ctx.mpf(2) ** -200)
    # Proposition 11: sigma = O(1); here it is 1 - O(p) - O(2^-k)
    assert abs(r.sigma - 1) <= 2e-6
    # the upper end (the noise calibration's sigma) must itself be >= the proven lower bound
    assert ctx.mpf(r.sigma) ** 2 >= low_b * (1 - ctx.mpf(2) ** -200)


@pytest.mark.parametrize("n", LARGE)
@pytest.mark.parametrize("M", (3, 4))
def test_higher_moments_consistent_for_large_n(n, M):
    k = n // 2
    C = math.comb(n, k)
    ctx = _ctx(n)
    sp = 1 / ctx.sqrt(C)
    p = ctx.mpf(1) / C
    tail = ctx.mpf(2) ** (-(k - 2))
    r = prop11.output_moments(n, M)
    mu_lo, mu_hi = (ctx.mpf(x) for x in r.mean_interval)
    low_b = p * (1 / sp - mu_hi) ** M
    up_b = p * (1 / sp - mu_lo) ** M + (1 - p) * (sp + tail) ** M
    m_lo, m_hi = (ctx.mpf(x) for x in r.moment_interval)
    eps = ctx.mpf(2) ** -200
    assert m_hi >= low_b * (1 - eps) and m_lo <= up_b * (1 + eps)
    # E|A - mu|^M ~ p^(1 - M/2) = C^(M/2 - 1): sigma_M grows with n for M > 2
    # (relative correction about M·p + M·sqrt(p)·(mean − sqrt(p)): 1.5e-6 at n = 24)
    assert rel(r.moment, ctx.mpf(C) ** (ctx.mpf(M) / 2 - 1)) <= 1e-5


@pytest.mark.parametrize("n", [24, 48, 100, 200])
def test_coarse_and_fine_intervals_intersect(n):
    fine = prop11.output_moments(n, 2)
    coarse = prop11.output_moments(n, 2, rtol=1e-6, max_nodes=300)
    for a, b in (
        (fine.mean_interval, coarse.mean_interval),
        (fine.moment_interval, coarse.moment_interval),
    ):
        assert max(a[0], b[0]) <= min(a[1], b[1]), (a, b)
    assert coarse.moment_rel_width <= 2e-6  # the requested rtol, with slack for the estimate


def test_at_n48_sigma_is_one_and_delta_is_sqrt_c():
    """The Proposition 11 page's message at its default n = 48 (certified): σ₂ = 1 to 1e-12
    while Δ = √C(48, 24); the special half's share of the variance, p·(1/√p − μ)², written
    (1 − μ√p)² as the page does, is below 1 and so is the variance."""
    m = prop11.output_moments(48)
    assert m.sigma == pytest.approx(1.0, abs=1e-12)
    assert prop11.sensitivity(48) == pytest.approx(math.sqrt(math.comb(48, 24)), rel=1e-12)
    assert m.moment <= 1.0 and (1.0 - m.mean / prop11.special_output(48)) ** 2 <= 1.0


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_sigma_helper_and_sigma_close_to_one():
    for n in (14, 20, 30, 36, 42, 48):
        s = prop11.sigma(n)
        assert s == prop11.output_moments(n, 2).sigma
        assert abs(s - 1) < 1e-3  # figure1's docstring: within 1e-3 of 1 for n >= 14
    assert abs(prop11.sigma(12) - 1) > 1e-4  # ... and not much earlier


# --------------------------------------------------------------------------- histogram


def _bin_of(b: Brute, idx: int) -> tuple[str, int]:
    a, has_a = b.pairs[idx]
    if not has_a:
        return "without A", a.bit_length() - 1
    T = a + (2 ** (b.k - 1) - 1)  # the powers inside the subset
    if 2 ** (b.k - 1) - 1 == T:
        return "special D*", b.k - 2
    return "with A", T.bit_length() - 1


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 10, 11, 12])
def test_value_histogram_matches_brute_force(n):
    b = brute(n)
    rows = prop11.value_histogram(n)
    by_bin = {(r["group"], r["top_bit"]): r for r in rows}
    assert len(by_bin) == len(rows)  # no duplicate bins
    counts = {}
    for idx, v in enumerate(b.values):
        key = _bin_of(b, idx)
        assert key in by_bin, f"no histogram bin for {key}"
        row = by_bin[key]
        if key[0] == "special D*":  # see test_histogram_special_row_is_certified
            assert abs(row["value_min"] - v) <= math.ulp(row["value_min"])
        else:  # certified, outward-rounded range: compared exactly
            assert b.ctx.mpf(row["value_min"]) <= v <= b.ctx.mpf(row["value_max"]), (key, v)
        counts[key] = counts.get(key, 0) + 1
    assert {k: r["count"] for k, r in by_bin.items()} == counts
    assert all(isinstance(r["count"], int) for r in rows)
    assert sum(r["count"] for r in rows) == b.C
    assert math.fsum(r["probability"] for r in rows) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("n", [4, 5, 16, 48])
def test_histogram_special_row_is_certified(n):
    """Regression: the "special D*" row's range must contain the irrational sqrt(C(n,k)).

    It once reported the midpoint float for both ends (e.g. n = 4: sqrt(6) lies above the
    float 2.449489742783178), which is not an enclosure.
    """
    C = math.comb(n, n // 2)
    ctx = _ctx(n)
    row = next(r for r in prop11.value_histogram(n) if r["group"] == "special D*")
    assert ctx.mpf(row["value_min"]) <= ctx.sqrt(C) <= ctx.mpf(row["value_max"])


@pytest.mark.parametrize("n", [30, 101, 400])
def test_value_histogram_totals_large_n(n):
    rows = prop11.value_histogram(n)
    C = math.comb(n, n // 2)
    assert sum(r["count"] for r in rows) == C  # exact Python ints
    assert math.fsum(r["probability"] for r in rows) == pytest.approx(1.0, abs=1e-12)
    special = [r for r in rows if r["group"] == "special D*"]
    assert len(special) == 1 and special[0]["count"] == 1
    s = prop11.special_output(n)
    assert abs(special[0]["value_min"] - s) <= math.ulp(s)
    assert abs(special[0]["value_max"] - s) <= math.ulp(s)
    others = [r for r in rows if r["group"] != "special D*"]
    assert all(0 < r["value_min"] <= r["value_max"] <= 2.0 ** -(n // 2 - 2) for r in others)


# --------------------------------------------------------------------------- domains


@pytest.mark.parametrize("bad", [3, 401, 4.5, "x", None, True, -6])
@pytest.mark.parametrize(
    "fn",
    [
        prop11.dataset,
        prop11.special_output,
        prop11.sensitivity,
        prop11.sensitivity_interval,
        prop11.output_moments,
        prop11.value_histogram,
        prop11.sigma,
    ],
)
def test_bad_n_raises(fn, bad):
    with pytest.raises(ValueError, match="n="):
        fn(bad)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"M": 1}, "M="),
        ({"M": 17}, "M="),
        ({"M": 2.5}, "M="),
        ({"rtol": -1}, "rtol="),
        ({"rtol": 1.0}, "rtol="),
        ({"rtol": float("nan")}, "rtol="),
        ({"rtol": "0.1"}, "rtol="),
        ({"max_nodes": 5}, "max_nodes="),
        ({"max_nodes": 10**7}, "max_nodes="),
    ],
)
def test_bad_moment_parameters_raise(kwargs, name):
    with pytest.raises(ValueError, match=name):
        prop11.output_moments(10, **kwargs)


def test_integral_floats_and_numpy_ints_accepted():
    assert prop11.sensitivity(10.0) == prop11.sensitivity(10)
    assert prop11.sensitivity(np.int64(10)) == prop11.sensitivity(10)


# --------------------------------------------------------------------------- growth in n


def test_growth_table_columns_and_values():
    df = prop11.growth_table([20, 40, 60])
    assert list(df.columns) == ["n", "sensitivity", "sigma", "ratio", "rate", "ratio_over_rate"]
    assert df["n"].tolist() == [20, 40, 60]
    for row in df.itertuples():
        assert row.sensitivity == prop11.sensitivity(row.n)
        assert row.rate == 2.0 ** (row.n / 3)
        assert row.ratio == pytest.approx(row.sensitivity / row.sigma, rel=1e-15)
        assert row.ratio_over_rate == pytest.approx(row.ratio / row.rate, rel=1e-15)
        var_lo = prop11.output_moments(row.n, 2, rtol=0.0, max_nodes=100).moment_interval[0]
        assert row.sigma >= var_lo**0.5
    with pytest.raises(ValueError, match="n="):
        prop11.growth_table([20, 3])
    with pytest.raises(ValueError, match="M="):
        prop11.growth_table([20], M=1)


def test_ratio_beats_two_to_the_n_over_three():
    """Proposition 11: Δ = Ω(2^(n/3)) with σ = O(1); numerically Δ/σ >= 2^(n/3), n = 20..200."""
    for n in range(20, 201, 20):
        d = prop11.sensitivity(n)
        s = prop11.output_moments(n, 2, rtol=1e-9, max_nodes=1500).sigma
        assert d / s >= 2.0 ** (n / 3), n


# --------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("case", ["underflow", "tie"])
def test_imul_signed_compares_exactly_not_by_float_key(case):
    """Regression: ``_Arith.imul_signed`` must pick the extreme products by exact comparison.

    Candidates that round to the same float64 (``half_var``'s two ends differ only in the
    last of 2n+128 bits; products below 2^-1074) once compared equal under a float key,
    so the first candidate, not the extreme one, was returned. (Uses the private helper
    on purpose: no public input isolates it.)
    """
    from mpmath.libmp import mpf_cmp

    ctx = _ctx(100)
    two = ctx.mpf(2)
    if case == "underflow":  # every product is below 2^-1074: all float keys are ±0.0
        x, y = (two**-1000, two**-999), (-(two**-100), two**-100)
    else:  # normal range: the ends differ far below float64 resolution
        x, y = (ctx.mpf(1), 1 + two**-100), (ctx.mpf(-1), ctx.mpf(1))
    xi, yi = (x[0]._mpf_, x[1]._mpf_), (y[0]._mpf_, y[1]._mpf_)
    ar = prop11._Arith(ctx.prec)
    lo, hi = ar.imul_signed(xi, yi)
    for a in xi:
        for b in yi:
            exact = ar.mul(a, b, "d")
            assert mpf_cmp(lo, exact) <= 0 <= mpf_cmp(hi, exact), "product outside the interval"


# --------------------------------------------------------------------------- rounding


@pytest.mark.parametrize("n", [*range(4, 41), 64, 101, 200, 400])
def test_reported_floats_are_correctly_rounded(n):
    """special_output, sensitivity and A are the float64 nearest the exact value.

    Averaging the outward-rounded ends of the certified interval gave the midpoint of two
    adjacent floats, which rounds to the even one: one ulp off for about half of all n.
    """
    k = n // 2
    with mpmath.workprec(4 * n + 256):
        root = mpmath.sqrt(math.comb(n, k))
        sens = root - mpmath.mpf(1) / (2 ** (n - 2) + 2 ** (k - 1) - 1)
        a_exact = 1 / root - (2 ** (k - 1) - 1)
        assert prop11.special_output(n) == float(root)
        assert prop11.sensitivity(n) == float(sens)
        assert prop11.dataset(n).a_value == float(a_exact)


@pytest.mark.parametrize("n", [4, 5, 8, 12])
def test_mean_is_correctly_rounded_when_exhaustive(n):
    b = brute(n)
    mean = b.ctx.fsum(b.values) / b.C
    m = prop11.output_moments(n, rtol=0.0)  # full enumeration
    assert m.exhaustive and m.mean == float(mean)
