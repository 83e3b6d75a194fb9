r"""The MIP noise mechanism: Theorem 9, Corollary 10 and Algorithm 1.

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Theorem 9, Corollary 10,
Algorithm 1) and Appendix D (proofs, Corollary 14); the slips listed in
``../shared/papers/README.md``.

**Noise (Corollary 10).** With per-coordinate moment bounds
``sigma_i^M >= E|theta_i - E theta_i|^M`` define the norm
``||x||_{sigma,M} = (sum_i |x_i|^M / (d sigma_i^M))^(1/M)``; then
``E||theta - E theta||^M <= 1`` in that norm, so Theorem 9 (with its scalar sigma = 1)
asks for noise X with density proportional to ``exp(-||x||_{sigma,M} / c)``,
``c = (constant/eta)^(1+2/M)``.

**Why the radius is Gamma(d, c), not Laplace(c).** Write ``X = R U`` with
``R = ||X||`` and ``U = X/||X||``. For a density ``f(x) = g(||x||)`` the volume of the
norm ball ``{||x|| <= r}`` is ``r^d`` times that of the unit ball, so the radius has
density proportional to ``r^(d-1) g(r)``: for ``g(r) = exp(-r/c)`` that is the Gamma law
with shape d and scale c, and U (independent of R) follows the cone measure of the
unit sphere. Corollary 10 realises U as ``Y/||Y||`` with ``Y_i ~ GenNormal(0, sigma_i, M)``
(density ``exp(-|y_i/sigma_i|^M) = exp(-d ||y||^M)``, a function of ``||y||`` only, which
is exactly what makes ``Y/||Y||`` cone-distributed and independent of ``||Y||``).
Corollary 10 and Algorithm 1 print ``r ~ Laplace(c)``; then ``|r| ~ Exp(c)`` and X has
density proportional to ``exp(-||x||/c) / ||x||^(d-1)`` -- not the density Theorem 9
assumes, unless d = 1. ``radius="theorem9"`` (default) is correct;
``radius="as_printed"`` keeps the printed variant for comparison.

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

from ._validate import check_int, check_range
from .noise import COROLLARY14_CONSTANT, mip_noise_multiplier

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

RADIUS_VARIANTS = ("theorem9", "as_printed")


def as_generator(rng) -> np.random.Generator:
    """Accept a ``numpy.random.Generator`` or an int seed; anything else is an error."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng={rng!r} must be a numpy.random.Generator or a non-negative int seed")


def _check_sigma_vec(sigma) -> np.ndarray:
    s = np.atleast_1d(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))
    if s.ndim != 1:
        raise ValueError(f"sigma must be a 1-d array of per-coordinate scales, got shape {s.shape}")
    return s


def sigma_norm(x, sigma, M=2) -> np.ndarray:
    r"""``||x||_{sigma,M} = (sum_i |x_i|^M / (d sigma_i^M))^(1/M)`` over the last axis (Corollary 10)."""
    s = _check_sigma_vec(sigma)
    m = float(check_range("M", M, 0.0, math.inf, lo_open=True, hi_open=True))
    x = np.asarray(x, dtype=float)
    if x.shape[-1] != s.size:
        raise ValueError(f"x has {x.shape[-1]} coordinates but sigma has {s.size}")
    # scale first so |x/sigma|^M neither overflows nor underflows for large M
    z = np.abs(x) / s
    zmax = np.max(z, axis=-1, keepdims=True)
    safe = np.where(zmax > 0, zmax, 1.0)
    inner = np.mean((z / safe) ** m, axis=-1)
    return np.squeeze(safe, -1) * inner ** (1.0 / m)


def sample_noise(
    sigma, eta, M=2, *, size=None, rng, constant=COROLLARY14_CONSTANT, radius: str = "theorem9"
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
    radius : ``"theorem9"`` -- r ~ Gamma(shape d, scale c), which gives exactly the
        density ``exp(-||x||_{sigma,M}/c)`` Theorem 9 needs (see the module docstring);
        ``"as_printed"`` -- r ~ Laplace(0, c) as Corollary 10 / Algorithm 1 print it,
        correct only for d = 1.

    Returns
    -------
    ndarray of shape ``(d,)`` or ``(size, d)``.
    """
    s = _check_sigma_vec(sigma)
    c = mip_noise_multiplier(eta, M, constant)
    if radius not in RADIUS_VARIANTS:
        raise ValueError(f"radius={radius!r} is not one of {RADIUS_VARIANTS}")
    gen = as_generator(rng)
    count = 1 if size is None else check_int("size", size, 1, 10**8)
    d = s.size
    m = float(M)
    # Y_i ~ GenNormal(0, sigma_i, M): |Y_i/sigma_i|^M ~ Gamma(1/M, 1), random sign. Drawn as
    # Gamma(1 + 1/M)^(1/M) * V with V ~ U(0, 1] (if G ~ Gamma(a + 1), G V^(1/a) ~ Gamma(a)):
    # Gamma(1/M) itself underflows to exactly 0 for large M, which would make U = 0/0.
    mag = gen.standard_gamma(1.0 + 1.0 / m, size=(count, d)) ** (1.0 / m) * (
        1.0 - gen.random((count, d))
    )
    sign = np.where(gen.random((count, d)) < 0.5, -1.0, 1.0)
    y = sign * mag * s
    u = y / sigma_norm(y, s, m)[:, None]
    if radius == "theorem9":
        r = gen.gamma(shape=d, scale=c, size=count)
    else:
        r = gen.laplace(0.0, c, size=count)
    x = r[:, None] * u
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
    radius: str = "theorem9",
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
