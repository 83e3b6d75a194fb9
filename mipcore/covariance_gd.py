r"""The base algorithm of Section 5.2: gradient descent on a second-moment matrix.

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582, Section 5.2 (Figure 2). The data are ``n`` rows ``x_i ~ N(0, Σ)`` with
``Σ = sklearn.datasets.make_spd_matrix(d, random_state=seed)``; the base algorithm learns
``A`` by gradient descent on ``||A − S||_F²`` with ``S = (1/m) Σ x_i x_iᵀ``. From ``A_0 = 0``
with learning rate ``lr`` the gradient ``2(A − S)`` gives the closed form
``A_T = (1 − (1 − 2 lr)^T) S`` (:func:`gd_closed_form`, checked against the iteration
:func:`gd_iterate` in the tests). The experiment that adds MIP and DP-SGD noise to it is
:mod:`mipcore.lessons.figure2`; the covariance audit (:mod:`mipcore.canary_audit`) releases
the same ``A_T`` on a tiny dataset.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import as_generator, check_int, check_range

__all__ = ["gd_closed_form", "gd_iterate", "make_sigma", "outer_products", "sample_data"]


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
