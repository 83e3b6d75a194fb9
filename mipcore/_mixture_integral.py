r"""Exact and certified integrals ``∫|Σ_m w_m f(y − x_m)| dy`` of a noisy signed mixture.

The engines behind :func:`mipcore.optimal_attack.optimal_attack` (Proposition 2 of Izzo,
Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582):
a closed form with a prefix scan for Laplace noise and certified root isolation with Taylor
models for Gaussian noise. The method and its error bounds are documented in
:func:`mipcore.optimal_attack.optimal_attack`; this module is private.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray
from scipy import special

from .noise_laws import NoiseKind, NoiseLaw

Arr = NDArray[np.float64]
#: (integrals (T,), error bounds (T,), per-row arrays of roots or None)
IntegralResult = tuple[Arr, Arr, list[Arr] | None]

_EPS = np.finfo(float).eps
_SQRT2PI = math.sqrt(2.0 * math.pi)


# ---- Laplace: exact


def _decay_scan(a: Arr, W: Arr) -> Arr:
    """Solve ``L_k = a_k L_{k-1} + W[:, k]`` (``L_0 = W[:, 0]``) by a parallel prefix scan.

    ``a`` (length M, ``a_0`` unused) holds decay factors in [0, 1]. Hillis–Steele doubling:
    log2(M) vectorised passes, each combining a segment with the one ``o`` places back. All
    coefficients stay in [0, 1], so nothing overflows and each pass adds at most one rounding
    to every term: the absolute error is below ``(log2 M + 1) ε Σ_m |w_m| Π a``.
    """
    A = a.copy()
    A[0] = 0.0
    B = W.copy()
    o = 1
    M = A.size
    while o < M:
        B[:, o:] = B[:, o:] + A[o:] * B[:, :-o]
        A[o:] = A[o:] * A[:-o]
        o *= 2
    return B


def _laplace_abs_integral(x: Arr, W: Arr, b: float, want_roots: bool = False) -> IntegralResult:
    """``∫|Σ_m W[t, m] Lap_b(y − x_m)| dy`` for each row t (x sorted, distinct), exactly.

    Returns (integrals (T,), error bounds (T,), list of root arrays or None).
    """
    T, M = W.shape
    with np.errstate(over="ignore"):
        gap = np.diff(x) / b  # in units of b; may be inf
    decay = np.exp(-np.r_[0.0, gap])  # e^{-(x_k - x_{k-1})/b}, in [0, 1]
    L = _decay_scan(decay, W)  # L_k = Σ_{m<=k} w_m e^{-(x_k - x_m)/b}
    # Rf_j = Σ_{m>=j} w_m e^{-(x_m - x_j)/b}: the same scan from the right
    Rf = _decay_scan(np.r_[0.0, decay[1:][::-1]], W[:, ::-1])[:, ::-1]
    total = 0.5 * (np.abs(Rf[:, 0]) + np.abs(L[:, -1]))  # the two tails
    w_abs = np.sum(np.abs(W), axis=1)
    err = 8.0 * (math.log2(M) + 4.0) * _EPS * w_abs
    roots: list[Arr] = [np.empty(0) for _ in range(T)]
    if M == 1:
        return total, err, (roots if want_roots else None)
    Lk, Rk = L[:, :-1], Rf[:, 1:]  # on segment k: 2b g = Lk e^{-(y-x_k)/b} + Rk e^{-(x_{k+1}-y)/b}
    one_m = -np.expm1(-gap)  # 1 - e^{-h/b}
    whole = 0.5 * np.abs((Lk + Rk) * one_m)
    cross = (Lk * Rk) < 0
    if np.any(cross):
        ti, si = np.nonzero(cross)
        lft, r = Lk[ti, si], Rk[ti, si]
        ell = np.log(np.abs(lft)) - np.log(np.abs(r))  # the root is at the midpoint + (b/2) ell
        hb = gap[si]
        inside = np.abs(ell) < hb
        ti, si, lft, r, hb, ell = (v[inside] for v in (ti, si, lft, r, hb, ell))
        ts, hts = 0.5 * (hb + ell), 0.5 * (hb - ell)  # t*/b and (h - t*)/b, both > 0 (maybe inf)
        one_t, one_ht = -np.expm1(-ts), -np.expm1(-hts)
        i1 = 0.5 * (lft * one_t + r * np.exp(-hts) * one_t)  # ∫ over [x_k, root]
        i2 = 0.5 * (lft * np.exp(-ts) * one_ht + r * one_ht)  # ∫ over [root, x_{k+1}]
        whole[ti, si] = np.abs(i1) + np.abs(i2)
        if want_roots:
            pos = 0.5 * x[si] + 0.5 * x[si + 1] + 0.5 * b * ell
            for t in range(T):
                roots[t] = np.sort(pos[ti == t])
    total = total + np.sum(whole, axis=1)
    return total, err, (roots if want_roots else None)


# Gaussian: gaps wider than this many noise scales are shortened to it (cross-terms < 1e-320)
_GAP_CAP = {"gaussian": 80.0}


def _standardise(x: Arr, s: float, cap: float) -> Arr:
    """Atoms in units of the noise scale, from 0, with gaps wider than ``cap`` shortened to it.

    ``∫|Σ w f_s(y − x_m)| dy`` is invariant under ``x -> (x − x_0)/s, s -> 1``; shortening a gap
    of ``D >= cap`` scales changes the overlap of the kernels across it by less than
    ``2 Σ|w| tail(cap/2)`` (``Φ(−40) < 1e-320`` for the Gaussian cap 80), and
    keeps every coordinate finite whatever the scale (``s = 1e-310`` or ``1e300``).
    Differences inside a cluster are computed from x directly (one rounding).
    """
    with np.errstate(over="ignore"):
        gaps = np.diff(x) / s
    big = np.nonzero(gaps > cap)[0]
    if big.size == 0:
        return (x - x[0]) / s
    starts = np.r_[0, big + 1]
    ends = np.r_[big, x.size - 1]
    lengths = (x[ends] - x[starts]) / s
    offsets = np.r_[0.0, np.cumsum(lengths[:-1] + cap)]
    cid = np.repeat(np.arange(starts.size), ends - starts + 1)
    return (x - x[starts][cid]) / s + offsets[cid]


def _unstandardise(r: Arr, u: Arr, x: Arr, s: float) -> Arr:
    """Map points from standardised to original coordinates, from the nearest atom.

    Exact inverse of :func:`_standardise` except inside a shortened gap, whose points are
    placed at their distance (in scales) from the nearer side.
    """
    if r.size == 0:
        return r
    j = np.clip(np.searchsorted(u, r), 0, u.size - 1)  # u[j-1] < r <= u[j]
    i = np.clip(j - 1, 0, u.size - 1)
    near = np.where(np.abs(r - u[i]) <= np.abs(u[j] - r), i, j)
    return x[near] + (r - u[near]) * s


def _abs_integral(x: Arr, W: Arr, law: NoiseLaw, want_roots: bool = False) -> IntegralResult:
    """``∫|Σ_m W[t, m] f(y − x_m)| dy`` for each row (x sorted, distinct, W (T, M)).

    Returns (values, error bounds, roots in original coordinates or None).
    """
    if law.kind is NoiseKind.LAPLACE:
        return _laplace_abs_integral(x, W, law.scale, want_roots=want_roots)
    if law.kind is not NoiseKind.GAUSSIAN:
        raise ValueError(f"noise kind {law.kind.value!r}: only laplace and gaussian integrate here")
    u = _standardise(x, law.scale, _GAP_CAP["gaussian"])
    tot, err, roots = _gauss_abs_integral(u, W, 1.0)
    if not want_roots:
        return tot, err, None
    return tot, err, [_unstandardise(r, u, x, law.scale) for r in roots]


# ---- Gaussian: certified root isolation

_TAYLOR_K = 8
_CRAMER = 1.0865
_WINDOW = 12.0  # cells cover [x_min - 12 s, x_max + 12 s]
_REACH = 40.0  # atoms farther than 40 s contribute < 1e-300 relative: skipped
_MIN_WIDTH = 1e-9  # in units of s
_CELL_RTOL = 1e-13
_CHUNK_BUDGET = 400_000
_MAX_CELLS = 500_000


def _chunks(lo: Arr, hi: Arr, x: Arr, reach: float) -> Iterator[tuple[int, int, int, int]]:
    """Split points (sorted by lo) into chunks with the index range of atoms within ``reach``."""
    P = lo.size
    start = 0
    while start < P:
        size = 256
        while True:
            stop = min(P, start + size)
            i0 = int(np.searchsorted(x, lo[start] - reach, "left"))
            i1 = int(np.searchsorted(x, np.max(hi[start:stop]) + reach, "right"))
            if size == 1 or (stop - start) * max(1, i1 - i0) <= _CHUNK_BUDGET:
                break
            size = max(1, size // 4)
        yield start, stop, i0, i1
        start = stop


def _g_values(y: Arr, x: Arr, Wt: Arr, s: float, order: int = 0) -> Arr:
    """``g_t^(k)(y)`` for k = 0..order and every column t of ``Wt`` (M, T): shape (order+1, P, T).

    ``g^(k)(y) = (−1)^k Σ_m w_m He_k(z_m) φ(z_m) / s^(k+1)``, ``z_m = (y − x_m)/s``; atoms
    farther than 40 s are skipped (their terms are below 1e-340, i.e. 0 in float64).
    """
    P, T = y.size, Wt.shape[1]
    out = np.zeros((order + 1, P, T))
    if P == 0:
        return out
    idx = np.argsort(y, kind="stable")
    ys = y[idx]
    for a, b_, i0, i1 in _chunks(ys, ys, x, _REACH * s):
        if i1 <= i0:
            continue
        z = (ys[a:b_, None] - x[None, i0:i1]) / s
        phi = np.exp(-0.5 * z * z) * (1.0 / _SQRT2PI)
        wk = Wt[i0:i1]
        he_prev, he = np.zeros_like(z), np.ones_like(z)  # He_{-1} (unused), He_0
        for k in range(order + 1):
            if k > 0:  # He_k = z He_{k-1} − (k−1) He_{k-2}
                he_prev, he = he, z * he - (k - 1) * he_prev
            term = he * phi
            sign = -1.0 if k % 2 else 1.0
            out[k, idx[a:b_]] = (term @ wk) * (sign / s ** (k + 1))
    return out


def _envelope_sums(a: Arr, c: Arr, x: Arr, Wabs_t: Arr, s: float) -> Arr:
    """``E_t = Σ_m |w_tm| exp(−z_min,m² / 4)`` over each cell ``[a, c]`` (z_min: distance/s), shape (P, T).

    With Cramér's inequality ``|He_k(z) φ(z)| <= 1.0865 √(k!) e^{−z²/4} / √(2π)`` this bounds
    ``max_cell |g^(k)| <= 1.0865 √(k!) E / (√(2π) s^(k+1))`` for every k.
    """
    P, T = a.size, Wabs_t.shape[1]
    out = np.zeros((P, T))
    if P == 0:
        return out
    idx = np.argsort(a, kind="stable")
    As, Cs = a[idx], c[idx]
    for i, j, i0, i1 in _chunks(As, Cs, x, _REACH * s):
        if i1 <= i0:
            continue
        dist = (
            np.maximum(
                0.0, np.maximum(As[i:j, None] - x[None, i0:i1], x[None, i0:i1] - Cs[i:j, None])
            )
            / s
        )
        out[idx[i:j]] = np.exp(-0.25 * dist * dist) @ Wabs_t[i0:i1]
    # atoms beyond the reach contribute at most e^{-reach^2/4} each
    out += Wabs_t.sum(axis=0)[None, :] * math.exp(-0.25 * _REACH * _REACH)
    return out


def _initial_cells(x: Arr, s: float) -> tuple[Arr, Arr, float, Arr]:
    """Cells of width <= s/2 covering the union of ``[x_m − 12 s, x_m + 12 s]``.

    Returns (cell starts, cell ends, total width, midpoints of the gaps between windows).
    """
    lo_w, hi_w = x - _WINDOW * s, x + _WINDOW * s
    gap = np.nonzero(lo_w[1:] > np.maximum.accumulate(hi_w)[:-1])[0]
    starts = np.r_[lo_w[0], lo_w[gap + 1]]
    ends = np.r_[np.maximum.accumulate(hi_w)[gap], hi_w.max()]
    pieces = []
    for A, B in zip(starts, ends, strict=True):
        m = max(1, math.ceil((B - A) / (0.5 * s)))
        e = np.linspace(A, B, m + 1)
        pieces.append(np.stack([e[:-1], e[1:]], axis=1))
    cells = np.concatenate(pieces, axis=0)
    gap_mids = 0.5 * (ends[:-1] + starts[1:])
    return cells[:, 0].copy(), cells[:, 1].copy(), float(np.sum(ends - starts)), gap_mids


def _gauss_abs_integral(x: Arr, W: Arr, s: float) -> tuple[Arr, Arr, list[Arr]]:
    """Certified ``∫|Σ_m W[t, m] φ_s(y − x_m)| dy`` for each row t (x sorted, distinct).

    Returns (values (T,), error bounds (T,), list of root arrays). All rows share the atoms
    and the dyadic cell grid, so each round evaluates the Taylor models of every row at the
    union of the cells' midpoints in one pass (one matrix product per derivative order).
    """
    K = _TAYLOR_K
    W = np.atleast_2d(W)
    T = W.shape[0]
    Wt, Wabs_t = W.T.copy(), np.abs(W).T.copy()
    w_abs = Wabs_t.sum(axis=0)
    fact = np.array([math.factorial(k) for k in range(K + 2)], dtype=float)
    cram = _CRAMER / _SQRT2PI * np.sqrt(fact)  # Cramér constant times √(k!)
    a0, c0, width_total, gap_mids = _initial_cells(x, s)
    a = np.repeat(a0[None, :], T, axis=0).ravel()
    c = np.repeat(c0[None, :], T, axis=0).ravel()
    tid = np.repeat(np.arange(T), a0.size)
    roots: list[tuple[np.ndarray, np.ndarray]] = []  # certified roots (rt, target)
    extra: list[tuple[np.ndarray, np.ndarray]] = []  # breakpoints in accepted cells
    err = 4.0 * special.ndtr(-_WINDOW) * w_abs
    min_w = _MIN_WIDTH * s
    slack = 64.0 * _EPS
    for _ in range(200):  # each round halves the pending cells; never reached
        if a.size == 0:
            break
        h = c - a
        r = 0.5 * h
        mid = a + r
        umid, imid = np.unique(mid, return_inverse=True)
        uend, iend = np.unique(np.concatenate([a, c]), return_inverse=True)
        ucell, icell = np.unique(np.stack([a, c], axis=1), axis=0, return_inverse=True)
        imid, iend, icell = imid.ravel(), iend.ravel(), icell.ravel()
        dv = _g_values(umid, x, Wt, s, order=K)[:, imid, tid]  # (K+1, P)
        ev = _g_values(uend, x, Wt, s, order=0)[0][iend, np.r_[tid, tid]]
        ga, gc = ev[: a.size], ev[a.size :]
        E = _envelope_sums(ucell[:, 0], ucell[:, 1], x, Wabs_t, s)[icell, tid]
        D = (
            np.abs(dv)
            + slack * cram[: K + 1, None] * E[None, :] / s ** np.arange(1, K + 2)[:, None]
        )
        B = cram[K + 1] * E / s ** (K + 2)  # bound on max_cell |g^(K+1)|
        rk = r[None, :] ** np.arange(K + 1)[:, None]
        L1 = np.sum(D[1:] * rk[:K] / fact[:K, None], axis=0) + B * r**K / fact[K]
        L2 = (
            np.sum(D[2:] * rk[: K - 1] / fact[: K - 1, None], axis=0)
            + B * r ** (K - 1) / fact[K - 1]
        )
        gmax = np.sum(D * rk / fact[: K + 1, None], axis=0) + B * r ** (K + 1) / fact[K + 1]
        g0_lo = np.abs(dv[0]) - slack * cram[0] * E / s
        resolved = g0_lo > L1 * r  # |g(mid)| > max|g'| h/2: no root in the cell
        change = (~resolved) & (ga * gc <= 0) & ~((ga == 0) & (gc == 0))
        breakpoint_at = mid.copy()
        if np.any(change):
            ci = np.nonzero(change)[0]
            rt = _bisect_roots(a[ci], c[ci], ga[ci], tid[ci], x, Wt, s)
            d1 = _g_values(rt, x, Wt, s, order=1)[1][np.arange(rt.size), tid[ci]]
            ok = (
                np.abs(d1) > L2[ci] * h[ci] * 0.5
            )  # g(y) = g'(r)(y − r) + O(L2 (y − r)²/2): one root
            roots.append((rt[ok], tid[ci][ok]))
            resolved[ci[ok]] = True
            breakpoint_at[ci] = rt  # a sign change: its root is the natural breakpoint
            np.add.at(
                err, tid[ci][ok], 4.0 * np.spacing(np.maximum(np.abs(rt[ok]), s)) * np.abs(d1[ok])
            )
        cell_err = 2.0 * h * gmax
        gmax_slack = np.sum(
            slack
            * cram[: K + 1, None]
            * E[None, :]
            / s ** np.arange(1, K + 2)[:, None]
            * rk
            / fact[: K + 1, None],
            axis=0,
        )
        accept = (~resolved) & (
            (cell_err <= _CELL_RTOL * w_abs[tid] * h / width_total)
            | (h <= min_w)
            | (gmax <= 4.0 * gmax_slack)
        )  # splitting cannot beat rounding
        if a.size > _MAX_CELLS:  # pragma: no cover - defensive: accept everything left
            accept = ~resolved
        np.add.at(err, tid[accept], cell_err[accept])
        # an accepted cell may hide sign changes: a breakpoint at its midpoint confines the
        # damage to the cell (a segment between breakpoints then has one sign outside it)
        extra.append((breakpoint_at[accept & ~change], tid[accept & ~change]))
        roots.append((breakpoint_at[accept & change], tid[accept & change]))  # uncertified unique
        split = ~(resolved | accept)
        a_s, c_s, m_s, t_s = a[split], c[split], mid[split], tid[split]
        a, c, tid = np.r_[a_s, m_s], np.r_[m_s, c_s], np.r_[t_s, t_s]
    else:  # pragma: no cover - defensive
        raise RuntimeError("root isolation did not terminate")
    totals = np.zeros(T)
    out_roots = []
    all_r = np.concatenate([rr for rr, _ in roots] + [np.empty(0)])
    all_t = np.concatenate([tt for _, tt in roots] + [np.empty(0, dtype=int)])
    ex_r = np.concatenate([rr for rr, _ in extra] + [np.empty(0)])
    ex_t = np.concatenate([tt for _, tt in extra] + [np.empty(0, dtype=int)])
    for t in range(T):
        rts = np.sort(all_r[all_t == t])
        # g may change sign anywhere in a gap between windows, where its mass is < 2Φ(−12)Σ|w|:
        # a breakpoint in every gap confines the effect of such a root to that mass
        G = _gauss_cdf_mix(np.sort(np.r_[rts, ex_r[ex_t == t], gap_mids]), x, W[t], s)
        vals = np.concatenate([[0.0], G, [float(np.sum(W[t]))]])
        totals[t] = float(np.sum(np.abs(np.diff(vals))))
        err[t] += (rts.size + 2) * 64.0 * _EPS * w_abs[t]
        if rts.size > 1:  # a root on a cell edge is found from both sides: report it once
            rts = rts[
                np.r_[True, np.diff(rts) > 8.0 * np.spacing(np.maximum(np.abs(rts[1:]), 1.0))]
            ]
        out_roots.append(rts)
    return totals, err, out_roots


def _bisect_roots(a: Arr, c: Arr, ga: Arr, tid: NDArray[np.intp], x: Arr, Wt: Arr, s: float) -> Arr:
    """Vectorised bisection to (about) one ulp on brackets with ``g_t(a) g_t(c) <= 0``."""
    lo, hi, glo = a.copy(), c.copy(), ga.copy()
    done = glo == 0
    hi[done] = lo[done]
    for _ in range(120):
        mid = lo + 0.5 * (hi - lo)
        active = (mid > lo) & (mid < hi)
        if not np.any(active):
            break
        ia = np.nonzero(active)[0]
        gm = _g_values(mid[ia], x, Wt, s, order=0)[0][np.arange(ia.size), tid[ia]]
        zero = gm == 0
        same = (np.sign(gm) == np.sign(glo[ia])) & ~zero
        lo[ia[same]] = mid[ia[same]]
        glo[ia[same]] = gm[same]
        hi[ia[~same]] = mid[ia[~same]]
        lo[ia[zero]] = mid[ia[zero]]
    return lo + 0.5 * (hi - lo)


def _gauss_cdf_mix(y: Arr, x: Arr, w: Arr, s: float) -> Arr:
    """``G(y) = Σ_m w_m Φ((y − x_m)/s)``: atoms far left contribute w_m exactly, far right 0."""
    if y.size == 0:
        return np.empty(0)
    prefix = np.concatenate([[0.0], np.cumsum(w)])
    out = np.zeros(y.size)
    idx = np.argsort(y, kind="stable")
    ys = y[idx]
    for a, b_, i0, i1 in _chunks(ys, ys, x, _REACH * s):
        z = (ys[a:b_, None] - x[None, i0:i1]) / s
        out[idx[a:b_]] = prefix[i0] + special.ndtr(z) @ w[i0:i1]
    return out
