r"""The algorithms of Section 5.2: gradient descent on a second-moment matrix, privately.

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582, Section 5.2 (Figure 2). The data are ``n`` rows ``x_i ~ N(0, Σ)`` with
``Σ = sklearn.datasets.make_spd_matrix(d, random_state=seed)``; the base algorithm learns
``A`` by gradient descent on ``||A − S||_F²`` with ``S = (1/m) Σ x_i x_iᵀ``. From ``A_0 = 0``
with learning rate ``lr`` the gradient ``2(A − S)`` gives the closed form
``A_T = (1 − (1 − 2 lr)^T) S`` (:func:`gd_closed_form`, checked against the iteration
:func:`gd_iterate` in the tests).

Its two private versions need two more algorithms. Algorithm 1's σ fits the base algorithm on
B random halves; GD's output is linear in S, so :func:`half_split_grams` computes the B
halves' mean outer products as one matrix product. Full-batch DP-SGD (Abadi, Chu,
Goodfellow, McMahan, Mironov, Talwar, Zhang, *Deep Learning with Differential Privacy*, CCS
2016, arXiv:1607.00133) clips each per-example gradient ``2(A − x xᵀ)`` to Frobenius norm C
(:func:`clip_norm`, by a :class:`ClipRule`) and adds Gaussian noise to their sum
(:func:`dpsgd`, several noise multipliers sharing each pass over the data).

The experiment that adds MIP and DP-SGD noise to it is :mod:`mipcore.experiments.covariance`;
the covariance audit (:mod:`mipcore.canary_audit`) releases the same ``A_T`` on a tiny
dataset.
"""

from __future__ import annotations

import math
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import as_enum, as_generator, check_int, check_range

__all__ = [
    "ClipRule",
    "clip_norm",
    "dpsgd",
    "gd_closed_form",
    "gd_iterate",
    "half_split_grams",
    "make_sigma",
    "outer_products",
    "sample_data",
]


class ClipRule(StrEnum):
    """How DP-SGD's clipping norm C is chosen."""

    #: The median unclipped per-example gradient norm at A = 0 (= median 2||x||²).
    INITIAL_MEDIAN = "initial_median"
    #: The median over all rows and steps of the non-private GD trajectory (the paper's
    #: reading of Abadi et al.'s advice).
    TRAJECTORY_MEDIAN = "trajectory_median"
    #: A fixed C > 0 (:func:`clip_norm`'s ``value``).
    FIXED = "fixed"


def make_sigma(d: int, seed: int) -> NDArray[np.float64]:
    """The ground-truth covariance: ``sklearn.datasets.make_spd_matrix(d, random_state=seed)``.

    ``1 <= d <= 1000``, ``0 <= seed < 2^32``.

    Examples
    --------
    >>> make_sigma(3, 0).shape
    (3, 3)
    """
    from sklearn.datasets import make_spd_matrix

    d = check_int("d", d, 1, 1000)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    return np.asarray(make_spd_matrix(d, random_state=seed), dtype=np.float64)


def sample_data(sigma: ArrayLike, n: int, rng: np.random.Generator | int) -> NDArray[np.float64]:
    """n rows ``x_i ~ N(0, sigma)`` (through the Cholesky factor).

    ``sigma``: a symmetric positive definite (d, d) matrix; ``n >= 1``.

    Examples
    --------
    >>> sample_data(make_sigma(2, 0), 5, rng=0).shape
    (5, 2)
    """
    n = check_int("n", n, 1)
    s = np.asarray(sigma, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"sigma must be a square (d, d) matrix, got shape {s.shape}")
    gen = as_generator(rng)
    chol = np.linalg.cholesky(s)
    return gen.standard_normal((n, s.shape[0])) @ chol.T


def gd_closed_form(S: ArrayLike, T: int, lr: float) -> NDArray[np.float64]:
    """GD on ``||A − S||_F²`` from A = 0: ``A_T = (1 − (1 − 2 lr)^T) S``.

    ``T >= 0`` steps, learning rate ``0 <= lr <= 1`` (the iteration contracts for
    ``0 < lr < 1``).

    Examples
    --------
    >>> gd_closed_form([[1.0]], 2, 0.25)  # (1 − 0.5^2) S
    array([[0.75]])
    """
    T = check_int("T", T, 0)
    r = float(check_range("lr", lr, 0.0, 1.0))
    return (1.0 - (1.0 - 2.0 * r) ** T) * np.asarray(S, dtype=np.float64)


def gd_iterate(S: ArrayLike, T: int, lr: float) -> NDArray[np.float64]:
    """The same GD run step by step (reference for the closed form); same domain.

    Examples
    --------
    >>> gd_iterate([[1.0]], 2, 0.25)
    array([[0.75]])
    """
    T = check_int("T", T, 0)
    r = float(check_range("lr", lr, 0.0, 1.0))
    S_arr = np.asarray(S, dtype=np.float64)
    A = np.zeros_like(S_arr)
    for _ in range(T):
        A = A - r * 2.0 * (A - S_arr)
    return A


def outer_products(X: ArrayLike) -> NDArray[np.float64]:
    """Row-wise ``vec(x xᵀ)``: shape (n, d²) from X of shape (n, d).

    Examples
    --------
    >>> outer_products([[1.0, 2.0]])
    array([[1., 2., 2., 4.]])
    """
    Xa = np.asarray(X, dtype=np.float64)
    if Xa.ndim != 2:
        raise ValueError(f"X must be a 2-d array (n, d), got shape {Xa.shape}")
    n, d = Xa.shape
    return (Xa[:, :, None] * Xa[:, None, :]).reshape(n, d * d)


# ---------------------------------------------------------------- the private versions' algorithms


def half_split_grams(
    P: NDArray[np.float64], B: int, rng: np.random.Generator | int, chunk: int = 16
) -> NDArray[np.float64]:
    """Mean outer product over B uniformly random halves of the rows of P: shape (B, d²).

    Each half is ``rng.choice(m, m // 2, replace=False)`` (drawn in order, one per half), and
    the sums over ``chunk`` halves at a time are one matrix product of their 0/1 membership
    matrix with P -- B fits of the base algorithm for the price of a few passes over the data.
    """
    gen = as_generator(rng)
    m = P.shape[0]
    h = m // 2
    out = np.empty((B, P.shape[1]))
    mask = np.empty((min(chunk, B), m))
    for start in range(0, B, chunk):
        rows = min(chunk, B - start)
        mask[:rows] = 0.0
        for r in range(rows):
            mask[r, gen.choice(m, h, replace=False)] = 1.0
        out[start : start + rows] = mask[:rows] @ P / h
    return out


def _per_example_norms(
    P: NDArray[np.float64], x2: NDArray[np.float64], A: NDArray[np.float64]
) -> NDArray[np.float64]:
    """||2(A_k − x_i x_iᵀ)||_F for every row i and trajectory k: shape (m, K).

    Uses ||A − x xᵀ||_F² = ||A||_F² − 2 xᵀAx + ||x||⁴ with xᵀAx = <vec(x xᵀ), vec(A)>, so one
    (m, d²) × (d², K) product serves every trajectory; the rest is done in place.
    """
    out = P @ A.T  # (m, K): x^T A_k x
    out *= -2.0
    out += np.sum(A * A, axis=1)[None, :]
    out += (x2 * x2)[:, None]
    np.maximum(out, 0.0, out=out)
    np.sqrt(out, out=out)
    out *= 2.0
    return out


def clip_norm(
    P: NDArray[np.float64],
    x2: NDArray[np.float64],
    *,
    rule: ClipRule | str,
    T: int,
    lr: float,
    value: float | None = None,
) -> float:
    """The clipping threshold C by rule (:class:`ClipRule`).

    ``initial_median``: median unclipped per-example gradient norm at A = 0 (= 2||x||²);
    ``trajectory_median``: median over all rows and all T steps of the non-private GD
    trajectory; ``fixed``: ``value`` (> 0, finite).
    """
    r = as_enum("clip_rule", rule, ClipRule)
    if r is ClipRule.INITIAL_MEDIAN:
        return float(np.median(2.0 * x2))  # ||2(0 - x x^T)||_F = 2 ||x||^2
    if r is ClipRule.TRAJECTORY_MEDIAN:
        S = P.mean(axis=0)
        steps = np.array([(1.0 - (1.0 - 2.0 * lr) ** t) for t in range(T)])  # A_t, t < T
        return float(np.median(_per_example_norms(P, x2, steps[:, None] * S[None, :])))
    if value is None or not 0 < value < math.inf:
        raise ValueError(f"clip_value={value!r} must be > 0 and finite for the fixed rule")
    return float(value)


#: Elements of one (rows, K) block of DP-SGD's clipping weights: small enough to stay in the
#: CPU cache through the ten in-place passes over it (4-7x faster than 16 MB blocks).
_BLOCK_ELEMENTS = 2**14


def dpsgd(
    P: NDArray[np.float64],
    x2: NDArray[np.float64],
    zs: ArrayLike,
    *,
    C: float,
    T: int,
    lr: float,
    rng: np.random.Generator | int,
) -> NDArray[np.float64]:
    """Full-batch DP-SGD trajectories for several noise multipliers at once.

    Parameters
    ----------
    P : (m, d²) per-row outer products of the training rows; x2 : (m,) their ``||x||²``.
    zs : K noise multipliers (0 gives the clipped, non-private run).
    C : clipping norm (``inf`` disables clipping, allowed only with every z = 0).
    T : steps; lr : learning rate.
    rng : Generator or seed for the Gaussian noise.

    Returns
    -------
    (K, d²) final A for each z (flattened).
    """
    gen = as_generator(rng)
    z = np.asarray(zs, dtype=float)
    if math.isinf(C) and np.any(z > 0):
        raise ValueError(
            f"C={C!r} (no clipping) has unbounded sensitivity: noise multipliers z > 0 "
            "need a finite clipping norm C"
        )
    m, dd = P.shape
    A = np.zeros((z.size, dd))
    x4 = x2 * x2
    rows = max(256, _BLOCK_ELEMENTS // max(z.size, 1))
    for _ in range(T):
        if math.isinf(C):
            w_sum = np.full(z.size, float(m))
            wP = np.broadcast_to(P.sum(axis=0), (z.size, dd))
        else:
            w_sum = np.zeros(z.size)
            wP = np.zeros((z.size, dd))
            a2 = np.sum(A * A, axis=1)
            At = np.ascontiguousarray(A.T)
            for start in range(0, m, rows):
                Pc = P[start : start + rows]
                w = Pc @ At  # x^T A_k x, then in place: the clipping weights min(1, C/||g||)
                w *= -2.0
                w += a2[None, :]
                w += x4[start : start + rows, None]
                np.maximum(w, 0.0, out=w)
                np.sqrt(w, out=w)
                w *= 2.0
                np.maximum(w, 1e-300, out=w)
                np.divide(C, w, out=w)
                np.minimum(w, 1.0, out=w)
                w_sum += w.sum(axis=0)
                wP += w.T @ Pc
        # sum_i w_ik * 2 (A_k - x_i x_i^T) = 2 (A_k sum_i w_ik - sum_i w_ik x_i x_i^T)
        grad_sum = 2.0 * (A * w_sum[:, None] - wP)
        noise = (
            gen.standard_normal((z.size, dd)) * (z * 2.0 * (0.0 if math.isinf(C) else C))[:, None]
        )
        A = A - lr * (grad_sum + noise) / m
    return A
