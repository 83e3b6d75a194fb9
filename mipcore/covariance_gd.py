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

from ._validate import as_generator, check_int

__all__ = ["gd_closed_form", "gd_iterate", "make_sigma", "outer_products", "sample_data"]


def make_sigma(d: int, seed: int) -> np.ndarray:
    """The ground-truth covariance: ``sklearn.datasets.make_spd_matrix(d, random_state=seed)``."""
    from sklearn.datasets import make_spd_matrix

    d = check_int("d", d, 1, 1000)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    return make_spd_matrix(d, random_state=seed)


def sample_data(sigma: np.ndarray, n: int, rng) -> np.ndarray:
    """n rows ``x_i ~ N(0, sigma)`` (through the Cholesky factor)."""
    n = check_int("n", n, 1)
    gen = as_generator(rng)
    chol = np.linalg.cholesky(sigma)
    return gen.standard_normal((n, sigma.shape[0])) @ chol.T


def gd_closed_form(S: np.ndarray, T: int, lr: float) -> np.ndarray:
    """GD on ``||A - S||_F^2`` from A = 0: ``A_T = (1 - (1 - 2 lr)^T) S``."""
    return (1.0 - (1.0 - 2.0 * lr) ** T) * S


def gd_iterate(S: np.ndarray, T: int, lr: float) -> np.ndarray:
    """The same GD run step by step (reference for the closed form)."""
    A = np.zeros_like(S)
    for _ in range(T):
        A = A - lr * 2.0 * (A - S)
    return A


def outer_products(X: np.ndarray) -> np.ndarray:
    """Row-wise ``vec(x x^T)``: shape (n, d^2)."""
    n, d = X.shape
    return (X[:, :, None] * X[:, None, :]).reshape(n, d * d)
