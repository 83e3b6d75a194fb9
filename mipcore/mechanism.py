r"""The MIP noise mechanism: Theorem 9, Corollary 10 and Algorithm 1.

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582: Section 4 (Theorem 9, Corollary 10, Algorithm 1) and Appendix D (proofs,
Corollary 14).

**Noise (Corollary 10).** With per-coordinate moment bounds
``sigma_i^M >= E|theta_i - E theta_i|^M`` define the norm
``||x||_{sigma,M} = (sum_i |x_i|^M / (d sigma_i^M))^(1/M)``; then
``E||theta - E theta||^M <= 1`` in that norm, so Theorem 9 (with its scalar sigma = 1)
asks for noise X with density proportional to ``exp(-||x||_{sigma,M} / c)``,
``c = (constant/eta)^(1+2/M)``.

**Radius.** Corollary 10 and Algorithm 1 print ``r ~ Laplace(c)``; the density Theorem 9
assumes needs ``r ~ Gamma(d, c)`` (see :mod:`mipcore.noise_laws`). ``radius=Radius.GAMMA``
(default) is correct; ``radius=Radius.AS_PRINTED`` keeps the printed variant for comparison.

**Sigma estimate (Algorithm 1).** The printed formula writes ``(theta - theta_bar)^M``;
for odd M that can be negative, so we use ``|theta - theta_bar|^M`` (the moment the
theorem needs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from ._validate import as_generator, check_int, check_range
from .noise import COROLLARY14_CONSTANT, mip_noise_multiplier
from .noise_laws import Radius, _check_sigma_vec, sample_mip_noise, sigma_norm

__all__ = [
    "RADIUS_VARIANTS",
    "MIPRelease",
    "as_generator",
    "estimate_sigma",
    "mip_release",
    "random_half",
    "sample_noise",
    "sigma_norm",
]

RADIUS_VARIANTS = tuple(r.value for r in Radius)


def sample_noise(
    sigma,
    eta,
    M=2,
    *,
    size=None,
    rng,
    constant=COROLLARY14_CONSTANT,
    radius: Radius | str = Radius.GAMMA,
) -> np.ndarray:
    r"""Draw Corollary 10 noise ``X = r U`` in R^d (d = len(sigma)).

    Parameters
    ----------
    sigma : array of d positive per-coordinate moment bounds,
        ``sigma_i^M >= E|theta_i - E theta_i|^M``.
    eta : ``0 < eta <= 1/2``, the MIP level to certify.
    M : moment order, ``M > 0`` (``M >= 2`` with constant 6.16).
    size : None for one draw (shape ``(d,)``) or an int number of draws (``(size, d)``).
    rng : ``numpy.random.Generator`` or int seed (required: same seed, same noise).
    constant : 6.16 (Corollary 14, default) or 7.5 (Theorem 9).
    radius : ``Radius.GAMMA`` -- r ~ Gamma(shape d, scale c), which gives exactly the
        density ``exp(-||x||_{sigma,M}/c)`` Theorem 9 needs (see the module docstring);
        ``Radius.AS_PRINTED`` -- r ~ Laplace(0, c) as Corollary 10 / Algorithm 1 print it,
        correct only for d = 1.

    Returns
    -------
    ndarray of shape ``(d,)`` or ``(size, d)``.
    """
    s = _check_sigma_vec(sigma)
    c = mip_noise_multiplier(eta, M, constant)
    try:
        rad = Radius(radius)
    except ValueError:
        raise ValueError(f"radius={radius!r} is not one of {RADIUS_VARIANTS}") from None
    gen = as_generator(rng)
    count = 1 if size is None else check_int("size", size, 1, 10**8)
    x = sample_mip_noise(s, float(M), c, count, gen, rad)
    return x[0] if size is None else x


def random_half(n_rows: int, rng) -> np.ndarray:
    """Indices of a uniformly random subset of size ``floor(n_rows/2)`` (RANDOMSPLIT(D, 1/2))."""
    n_rows = check_int("n_rows", n_rows, 2)
    gen = as_generator(rng)
    return np.sort(gen.permutation(n_rows)[: n_rows // 2])


def _moment_sigma(thetas: np.ndarray, M: float) -> np.ndarray:
    """Algorithm 1's sigma_j = (mean_i |theta_j^(i) - theta_bar_j|^M)^(1/M) (absolute value: see module doc)."""
    dev = np.abs(thetas - thetas.mean(axis=0))
    scale = dev.max(axis=0)
    safe = np.where(scale > 0, scale, 1.0)
    return safe * np.mean((dev / safe) ** M, axis=0) ** (1.0 / M)


def estimate_sigma(
    data, algorithm: Callable, *, B: int = 128, M=2, rng, executor: Executor | None = None
) -> np.ndarray:
    r"""Algorithm 1's estimate of the per-coordinate M-th moment bounds sigma_j.

    Runs ``algorithm`` on B random halves of ``data`` (the training set) and returns
    ``sigma_j = (1/B sum_i |theta_j^(i) - theta_bar_j|^M)^(1/M)``.

    Parameters
    ----------
    data : array of rows (first axis = records), at least 2 rows.
    algorithm : maps an array of rows to a 1-d vector theta (same length every time).
        With a process pool it must be picklable (a module-level function).
    B : number of random halves, ``2 <= B <= 100000``.
    M : moment order ``M > 0``.
    rng : ``numpy.random.Generator`` or int seed. The halves are drawn from it in
        order, so the result does not depend on the executor.
    executor : optional ``concurrent.futures.Executor`` (thread or process pool, or a
        Dask/Ray executor) that runs the B fits in parallel; None runs them in turn.

    Returns
    -------
    sigma : ndarray of shape (d,). A coordinate that never varies gets sigma 0.
    """
    rows = np.asarray(data)
    if rows.ndim == 0 or rows.shape[0] < 2:
        raise ValueError(f"data must have at least 2 rows, got shape {rows.shape}")
    B = check_int("B", B, 2, 100_000)
    m = float(check_range("M", M, 0.0, math.inf, lo_open=True, hi_open=True))
    gen = as_generator(rng)
    halves = [random_half(rows.shape[0], gen) for _ in range(B)]
    subsets = (rows[idx] for idx in halves)
    results = (
        list(executor.map(algorithm, subsets))
        if executor is not None
        else [algorithm(sub) for sub in subsets]
    )
    flat = [np.ravel(np.asarray(t, dtype=float)) for t in results]
    if len({t.size for t in flat}) != 1:
        raise ValueError("algorithm must return vectors of the same length on every half")
    thetas = np.asarray(flat)
    if not np.all(np.isfinite(thetas)):
        raise ValueError("algorithm returned a non-finite value on some half")
    return _moment_sigma(thetas, m)


@dataclass(frozen=True)
class MIPRelease:
    """What Algorithm 1 releases, and what it used to get there."""

    theta_hat: np.ndarray  # the released, noised output
    theta: np.ndarray  # the base algorithm's output on the training half (NOT to be released)
    sigma: np.ndarray  # the estimated per-coordinate moment bounds
    c: float  # the noise multiplier (constant/eta)^(1+2/M)
    noise: np.ndarray  # theta_hat - theta
    train_index: np.ndarray  # which rows formed the training half


def mip_release(
    data,
    algorithm: Callable,
    eta,
    *,
    M=2,
    B: int = 128,
    rng,
    constant=COROLLARY14_CONSTANT,
    radius: Radius | str = Radius.GAMMA,
    sigma=None,
    executor: Executor | None = None,
) -> MIPRelease:
    """Algorithm 1 end to end: random half, sigma estimate, Corollary 10 noise.

    Parameters
    ----------
    data, algorithm, B, M, rng, executor : as in :func:`estimate_sigma`.
    eta : ``0 < eta <= 1/2``.
    constant, radius : as in :func:`sample_noise`.
    sigma : optional a-priori per-coordinate bounds; skips the estimate (Algorithm 1:
        "estimate sigma if an a priori bound is not known").

    Notes
    -----
    A coordinate whose estimated sigma is 0 (constant over all B halves) gets no
    noise; Corollary 10's norm is undefined there, so such coordinates are released
    as computed and the others are noised in the norm of the remaining ones.
    """
    rows = np.asarray(data)
    if rows.ndim == 0 or rows.shape[0] < 4:
        raise ValueError(f"data must have at least 4 rows, got shape {rows.shape}")
    gen = as_generator(rng)
    c = float(mip_noise_multiplier(eta, M, constant))
    train = random_half(rows.shape[0], gen)
    d_train = rows[train]
    theta = np.ravel(np.asarray(algorithm(d_train), dtype=float))
    if sigma is None:
        sig = estimate_sigma(d_train, algorithm, B=B, M=M, rng=gen, executor=executor)
    else:
        sig = np.atleast_1d(check_range("sigma", sigma, 0.0, math.inf, hi_open=True))
    if sig.shape != theta.shape:
        raise ValueError(f"sigma has shape {sig.shape} but theta has shape {theta.shape}")
    noise = np.zeros_like(theta)
    live = sig > 0
    if live.any():
        noise[live] = sample_noise(sig[live], eta, M, rng=gen, constant=constant, radius=radius)
    return MIPRelease(theta + noise, theta, sig, c, noise, train)
