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
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import as_enum, as_generator, check_int, check_range
from .noise import COROLLARY14_CONSTANT, mip_noise_multiplier
from .noise_laws import Radius, _check_sigma_vec, sample_mip_noise, sigma_norm
from .theorem9 import certified_eta, required_noise_multiplier

__all__ = [
    "RADIUS_VARIANTS",
    "Algorithm",
    "MIPRelease",
    "MipCalibration",
    "Radius",
    "as_generator",
    "certified_level",
    "estimate_sigma",
    "mip_release",
    "noise_multiplier_for",
    "random_half",
    "sample_noise",
    "sigma_norm",
]

RADIUS_VARIANTS: tuple[str, ...] = tuple(r.value for r in Radius)


class MipCalibration(StrEnum):
    """How much Theorem 9 noise a release gets, and how its radius is drawn.

    * ``PAPER`` -- Corollary 14's ``c = (constant/η)^(1+2/M)`` with the Gamma(d, c) radius
      (the density Theorem 9 assumes). Certified in every dimension
      (:func:`mipcore.theorem9.certified_eta`), with a large margin; the paper's own proof
      covers only d = 1.
    * ``AS_PRINTED`` -- the same c with the Laplace radius Corollary 10 / Algorithm 1 print.
      Certified only for d = 1 (where it is the same noise); for d > 1 the density is not the
      one any proof covers.
    * ``TIGHT`` -- the smallest noise certified: ``c = −1/ln(1 − 2η)`` with the Gamma radius
      (:func:`mipcore.theorem9.required_noise_multiplier`).
    """

    PAPER = "paper"
    AS_PRINTED = "as_printed"
    TIGHT = "tight"

    @classmethod
    def _missing_(cls, value: object) -> MipCalibration | None:
        # the Gamma radius with the paper's constant was called "theorem9", then "gamma"
        return cls.PAPER if value in ("gamma", "theorem9") else None

    @property
    def radius(self) -> Radius:
        return Radius.AS_PRINTED if self is MipCalibration.AS_PRINTED else Radius.GAMMA


def noise_multiplier_for(
    eta: float,
    *,
    M: float,
    d: int,
    calibration: MipCalibration | str = MipCalibration.PAPER,
    constant: float = COROLLARY14_CONSTANT,
) -> float:
    """The noise multiplier c a release of d numbers gets for target η under ``calibration``.

    ``PAPER`` and ``AS_PRINTED``: ``(constant/η)^(1+2/M)`` (Corollary 14 / Theorem 9);
    ``TIGHT``: ``−1/ln(1 − 2η)``. ``0 < eta <= 1/2`` (``TIGHT`` needs ``eta < 1/2``), ``M >= 1``
    for ``TIGHT``, integer ``d >= 1``.

    Examples
    --------
    >>> round(noise_multiplier_for(0.1, M=2, d=3, calibration="tight"), 3)
    4.481
    >>> round(noise_multiplier_for(0.1, M=2, d=3), 1)
    3794.6
    """
    cal = as_enum("calibration", calibration, MipCalibration)
    if cal is MipCalibration.TIGHT:
        return float(required_noise_multiplier(eta, M=M, d=d))
    check_int("d", d, 1)
    return float(mip_noise_multiplier(eta, M, constant))


def certified_level(
    noise_multiplier: float,
    *,
    M: float,
    d: int,
    calibration: MipCalibration | str = MipCalibration.PAPER,
) -> float | None:
    """The MIP level a release of d numbers with this noise is *certified* to have, or None.

    ``PAPER``/``TIGHT`` (Gamma radius): :func:`mipcore.theorem9.certified_eta` in every d.
    ``AS_PRINTED`` (Laplace radius): the same for d = 1 (it is the same noise there); None
    for d > 1 -- no proof covers that density.

    Examples
    --------
    >>> round(certified_level(4.4814, M=2, d=9, calibration="tight"), 4)
    0.1
    >>> certified_level(3794.6, M=2, d=9, calibration="as_printed") is None
    True
    """
    cal = as_enum("calibration", calibration, MipCalibration)
    d = check_int("d", d, 1)
    if cal is MipCalibration.AS_PRINTED and d > 1:
        return None
    return float(certified_eta(noise_multiplier, M=max(float(M), 1.0), d=d))


#: A base algorithm: rows of data in, a vector (or scalar) out.
Algorithm = Callable[[NDArray[Any]], ArrayLike]


def sample_noise(
    sigma: ArrayLike,
    eta: float,
    M: float = 2,
    *,
    size: int | None = None,
    rng: np.random.Generator | int,
    constant: float = COROLLARY14_CONSTANT,
    calibration: MipCalibration | str = MipCalibration.PAPER,
) -> NDArray[np.float64]:
    r"""Draw Corollary 10 noise ``X = r U`` in R^d (d = len(sigma)).

    Parameters
    ----------
    sigma : array_like
        d positive per-coordinate moment bounds, ``σ_i^M >= E|θ_i − E θ_i|^M``.
    eta : float
        ``0 < eta <= 1/2``, the MIP level to certify.
    M : float
        Moment order, ``M > 0`` (``M >= 2`` with constant 6.16).
    size : int or None
        None for one draw (shape ``(d,)``) or the number of draws, ``1 <= size <= 10^8``
        (shape ``(size, d)``).
    rng : numpy.random.Generator or int
        Generator or non-negative seed (required: same seed, same noise).
    constant : float
        6.16 (Corollary 14, default) or 7.5 (Theorem 9).
    calibration : MipCalibration or str
        ``"paper"`` (default): Corollary 14's c with the Gamma(d, c) radius, which gives
        exactly the density ``exp(−||x||_{σ,M}/c)`` Theorem 9 needs; ``"as_printed"``: the
        same c with the Laplace(0, c) radius Corollary 10 / Algorithm 1 print (correct only
        for d = 1); ``"tight"``: the smallest certified c, ``−1/ln(1 − 2η)``, Gamma radius.
        See :class:`MipCalibration`. (The old spellings ``"gamma"``/``"theorem9"`` mean
        ``"paper"``.)

    Returns
    -------
    ndarray
        Shape ``(d,)`` or ``(size, d)``.

    Raises
    ------
    ValueError
        If an argument is out of range or ``radius`` is not a :class:`Radius`.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Corollary 10 (the radius corrected to Gamma(d, c)).

    Examples
    --------
    >>> sample_noise([1.0, 2.0], 0.2, rng=0).shape
    (2,)
    >>> sample_noise([1.0, 2.0, 3.0], 0.2, size=5, rng=0).shape
    (5, 3)
    """
    s = _check_sigma_vec(sigma)
    cal = as_enum("calibration", calibration, MipCalibration)
    c = noise_multiplier_for(eta, M=float(M), d=int(s.size), calibration=cal, constant=constant)
    gen = as_generator(rng)
    count = 1 if size is None else check_int("size", size, 1, 10**8)
    x = sample_mip_noise(s, float(M), c, count, gen, cal.radius)
    return x[0] if size is None else x


def random_half(n_rows: int, rng: np.random.Generator | int) -> NDArray[np.int64]:
    """Indices of a uniformly random subset of size ``floor(n_rows/2)`` (RANDOMSPLIT(D, 1/2)).

    ``n_rows >= 2``; the indices are sorted.

    Examples
    --------
    >>> random_half(6, rng=0).size
    3
    """
    return _half(check_int("n_rows", n_rows, 2), as_generator(rng))


def _half(n_rows: int, gen: np.random.Generator) -> NDArray[np.int64]:
    """:func:`random_half` of checked inputs."""
    return np.sort(gen.permutation(n_rows)[: n_rows // 2]).astype(np.int64)


def _moment_sigma(thetas: NDArray[np.float64], M: float) -> NDArray[np.float64]:
    """Algorithm 1's σ_j = (mean_i |θ_j^(i) − θ̄_j|^M)^(1/M) (absolute value: see the module doc)."""
    dev = np.abs(thetas - thetas.mean(axis=0))
    scale = dev.max(axis=0)
    safe = np.where(scale > 0, scale, 1.0)
    return safe * np.mean((dev / safe) ** M, axis=0) ** (1.0 / M)


def estimate_sigma(
    data: ArrayLike,
    algorithm: Algorithm,
    *,
    B: int = 128,
    M: float = 2,
    rng: np.random.Generator | int,
    executor: Executor | None = None,
) -> NDArray[np.float64]:
    r"""Algorithm 1's estimate of the per-coordinate M-th moment bounds σ_j.

    Runs ``algorithm`` on B random halves of ``data`` (the training set) and returns
    ``σ_j = (1/B Σ_i |θ_j^(i) − θ̄_j|^M)^(1/M)`` (with ``|·|``: the printed Algorithm 1
    omits it, which for odd M can make the "moment" negative).

    Parameters
    ----------
    data : array_like
        Rows (first axis = records), at least 2 rows.
    algorithm : callable
        Maps an array of rows to a 1-d vector θ (same length every time). With a process
        pool it must be picklable (a module-level function).
    B : int
        Number of random halves, ``2 <= B <= 100000``.
    M : float
        Moment order ``M > 0``.
    rng : numpy.random.Generator or int
        The halves are drawn from it in order, so the result does not depend on the
        executor.
    executor : concurrent.futures.Executor, optional
        A thread or process pool (or a Dask/Ray executor) that runs the B fits in parallel;
        None runs them in turn.

    Returns
    -------
    ndarray
        σ of shape (d,). A coordinate that never varies gets σ 0.

    Raises
    ------
    ValueError
        If ``data`` has fewer than 2 rows, an argument is out of range, or ``algorithm``
        returns vectors of varying length or non-finite values.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Algorithm 1.

    Examples
    --------
    The mean of a random half of 20 values has standard deviation
    ``sqrt(Var/10 · 10/19) = 1.32`` (sampling without replacement); 200 halves estimate it:

    >>> import numpy as np
    >>> estimate_sigma(np.arange(20.0), np.mean, B=200, rng=0).round(2)
    array([1.3])
    """
    rows = np.asarray(data)
    if rows.ndim == 0 or rows.shape[0] < 2:
        raise ValueError(f"data must have at least 2 rows, got shape {rows.shape}")
    B = check_int("B", B, 2, 100_000)
    m = float(check_range("M", M, 0.0, math.inf, lo_open=True, hi_open=True))
    gen = as_generator(rng)
    halves = [_half(rows.shape[0], gen) for _ in range(B)]
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

    theta_hat: NDArray[np.float64]  # the released, noised output
    theta: NDArray[np.float64]  # the base output on the training half (NOT to be released)
    sigma: NDArray[np.float64]  # the estimated per-coordinate moment bounds
    c: float  # the noise multiplier (noise_multiplier_for)
    noise: NDArray[np.float64]  # theta_hat - theta
    train_index: NDArray[np.int64]  # which rows formed the training half
    calibration: MipCalibration = MipCalibration.PAPER
    certified_eta: float | None = None  # certified_level(c, M, d noised numbers, calibration)


def mip_release(
    data: ArrayLike,
    algorithm: Algorithm,
    eta: float,
    *,
    M: float = 2,
    B: int = 128,
    rng: np.random.Generator | int,
    constant: float = COROLLARY14_CONSTANT,
    calibration: MipCalibration | str = MipCalibration.PAPER,
    sigma: ArrayLike | None = None,
    executor: Executor | None = None,
) -> MIPRelease:
    """Algorithm 1 end to end: random half, σ estimate, Corollary 10 noise.

    Parameters
    ----------
    data, algorithm, B, M, rng, executor
        As in :func:`estimate_sigma` (``data`` needs at least 4 rows).
    eta : float
        ``0 < eta <= 1/2``.
    constant, calibration
        As in :func:`sample_noise`.
    sigma : array_like, optional
        A-priori per-coordinate bounds ``>= 0``; skips the estimate (Algorithm 1: "estimate
        σ if an a priori bound is not known").

    Returns
    -------
    MIPRelease

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
    cal = as_enum("calibration", calibration, MipCalibration)
    train = _half(rows.shape[0], gen)
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
    d_live = max(int(live.sum()), 1)
    c = noise_multiplier_for(eta, M=float(M), d=d_live, calibration=cal, constant=constant)
    if live.any():  # sample_noise's draw, with the c computed once here
        noise[live] = sample_mip_noise(sig[live], float(M), c, 1, gen, cal.radius)[0]
    level = certified_level(c, M=float(M), d=d_live, calibration=cal) if M >= 1 else None
    return MIPRelease(theta + noise, theta, sig, c, noise, train, cal, level)
