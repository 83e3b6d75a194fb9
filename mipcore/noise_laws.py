r"""Additive noise laws: what is added to a release, how to draw it and its log-density.

One place for the noise every other module adds or attacks: :class:`NoiseLaw` (no noise,
Laplace and Gaussian per coordinate, and the Theorem 9 density ``∝ exp(−||x||_{σ,M}/c)`` of
Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582), the σ-scaled norm of Corollary 10 (:func:`sigma_norm`), the one sampler
of the Theorem 9 density (:func:`sample_mip_noise`; radius Gamma(d, c), or the printed
Laplace radius for comparison) and the log-density of a noisy finite mixture
(:func:`log_mixture`), which the likelihood-ratio attackers evaluate.

**Why the radius is Gamma(d, c), not Laplace(c).** Write ``X = R U`` with ``R = ||X||``
and ``U = X/||X||``. For a density ``f(x) = g(||x||)`` the volume of the norm ball
``{||x|| <= r}`` is ``r^d`` times that of the unit ball, so the radius has density
proportional to ``r^(d-1) g(r)``: for ``g(r) = exp(-r/c)`` that is the Gamma law with shape
d and scale c, and U (independent of R) follows the cone measure of the unit sphere.
Corollary 10 realises U as ``Y/||Y||`` with ``Y_i ~ GenNormal(0, σ_i, M)`` (density
``exp(-|y_i/σ_i|^M) = exp(-d ||y||^M)``, a function of ``||y||`` only, which is exactly what
makes ``Y/||Y||`` cone-distributed and independent of ``||Y||``). Corollary 10 and
Algorithm 1 print ``r ~ Laplace(c)``; then ``|r| ~ Exp(c)`` and X has density proportional
to ``exp(-||x||/c) / ||x||^(d-1)`` -- not the density Theorem 9 assumes, unless d = 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import as_enum, as_generator, check_range
from .noise import COROLLARY14_CONSTANT, mip_noise_multiplier, mip_noise_scale

__all__ = [
    "NOISE_KINDS",
    "NoiseKind",
    "NoiseLaw",
    "NoiseSpec",
    "Radius",
    "as_noise_law",
    "log_kernel",
    "log_mixture",
    "sample_mip_noise",
    "sigma_norm",
]


class Radius(StrEnum):
    """How the radius of the Theorem 9 noise ``X = r U`` is drawn."""

    #: r ~ Gamma(shape d, scale c): exactly the density Theorem 9 assumes.
    GAMMA = "gamma"
    #: r ~ Laplace(0, c), as Corollary 10 / Algorithm 1 print it; correct only for d = 1.
    AS_PRINTED = "as_printed"

    @classmethod
    def _missing_(cls, value: object) -> Radius | None:
        # "theorem9" was this variant's name before the enum (old share links, old code).
        return cls.GAMMA if value == "theorem9" else None


def _check_sigma_vec(sigma: ArrayLike) -> NDArray[np.float64]:
    s = np.atleast_1d(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))
    if s.ndim != 1:
        raise ValueError(f"sigma must be a 1-d array of per-coordinate scales, got shape {s.shape}")
    return s


def sigma_norm(x: ArrayLike, sigma: ArrayLike, M: float = 2) -> NDArray[np.float64]:
    r"""``||x||_{σ,M} = (Σ_i |x_i|^M / (d σ_i^M))^(1/M)`` over the last axis (Corollary 10).

    Parameters
    ----------
    x : array whose last axis has d coordinates.
    sigma : d per-coordinate scales ``σ_i > 0``.
    M : ``M > 0``.

    Examples
    --------
    >>> float(sigma_norm([3.0, 4.0], [1.0, 1.0], M=2))  # sqrt((9 + 16) / 2)
    3.53553390593
    """
    s = _check_sigma_vec(sigma)
    m = float(check_range("M", M, 0.0, math.inf, lo_open=True, hi_open=True))
    xa = np.asarray(x, dtype=float)
    if xa.shape[-1] != s.size:
        raise ValueError(f"x has {xa.shape[-1]} coordinates but sigma has {s.size}")
    return _sigma_norm(xa, s, m)


def _sigma_norm(xa: NDArray[np.float64], s: NDArray[np.float64], m: float) -> NDArray[np.float64]:
    """:func:`sigma_norm` of checked inputs."""
    # scale first so |x/sigma|^M neither overflows nor underflows for large M
    z = np.abs(xa) / s
    zmax = np.max(z, axis=-1, keepdims=True)
    safe = np.where(zmax > 0, zmax, 1.0)
    inner = np.mean((z / safe) ** m, axis=-1)
    return np.squeeze(safe, -1) * inner ** (1.0 / m)


def sample_mip_noise(
    sigma: NDArray[np.float64],
    M: float,
    c: float,
    count: int,
    gen: np.random.Generator,
    radius: Radius | str = Radius.GAMMA,
) -> NDArray[np.float64]:
    """``count`` draws ``X = r U`` in R^d (d = len(sigma)), shape (count, d).

    U is cone-distributed on the unit sphere of ``||·||_{σ,M}``; r ~ Gamma(d, c)
    (``Radius.GAMMA``: the density ``∝ exp(−||x||_{σ,M}/c)`` of Theorem 9) or r ~ Laplace(0, c)
    (``Radius.AS_PRINTED``). Inputs are trusted (callers validate).
    """
    d = sigma.size
    m = float(M)
    # Y_i ~ GenNormal(0, sigma_i, M): |Y_i/sigma_i|^M ~ Gamma(1/M, 1), random sign. Drawn as
    # Gamma(1 + 1/M)^(1/M) * V with V ~ U(0, 1] (if G ~ Gamma(a + 1), G V^(1/a) ~ Gamma(a)):
    # Gamma(1/M) itself underflows to exactly 0 for large M, which would make U = 0/0.
    mag = gen.standard_gamma(1.0 + 1.0 / m, size=(count, d)) ** (1.0 / m) * (
        1.0 - gen.random((count, d))
    )
    sign = np.where(gen.random((count, d)) < 0.5, -1.0, 1.0)
    y = sign * mag * sigma
    u = y / _sigma_norm(y, sigma, m)[:, None]
    if as_enum("radius", radius, Radius) is Radius.GAMMA:
        r = gen.gamma(shape=d, scale=c, size=count)
    else:
        r = gen.laplace(0.0, c, size=count)
    return r[:, None] * u


class NoiseKind(StrEnum):
    """The additive noise laws the exact and Monte Carlo attackers understand."""

    NONE = "none"
    LAPLACE = "laplace"
    GAUSSIAN = "gaussian"
    #: Theorem 9's density ∝ exp(−||x||_{σ,M}/c) in R^d (Laplace(cσ) when d = 1).
    MIP = "mip"


NOISE_KINDS: tuple[str, ...] = tuple(k.value for k in NoiseKind)


@dataclass(frozen=True)
class NoiseLaw:
    """An additive noise law for the released value.

    ``kind`` is a :class:`NoiseKind` (its string value is accepted and converted):

    * ``"none"`` -- no noise (``scale`` 0): the release is the base algorithm's output.
    * ``"laplace"`` -- density ``exp(-|x|/scale) / (2 scale)`` per coordinate.
    * ``"gaussian"`` -- ``N(0, scale^2)`` per coordinate (``scale`` is the standard deviation).
    * ``"mip"`` -- Theorem 9 / Corollary 10: density proportional to
      ``exp(-||x||_{sigma,M} / scale)`` in R^d with ``scale = c``. In one dimension this is
      exactly ``Laplace(c * sigma)``, and the exact routines use it that way; in d > 1 it is
      only supported by :func:`optimal_attack_accuracy_mc`.

    Build one with :meth:`laplace`, :meth:`gaussian`, :meth:`none`, :meth:`mip` or
    :func:`as_noise_law`.
    """

    kind: NoiseKind
    scale: float = 0.0
    sigma: tuple[float, ...] = ()  # only for "mip"
    M: float = 2.0  # only for "mip"

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", as_enum("kind", self.kind, NoiseKind))
        if self.kind is NoiseKind.NONE:
            if self.scale != 0:
                raise ValueError(f"scale={self.scale!r} must be 0 for kind='none'")
            return
        check_range("scale", self.scale, 0.0, math.inf, lo_open=True, hi_open=True)
        if self.kind is NoiseKind.MIP:
            if not self.sigma:
                raise ValueError("sigma=() is empty: kind='mip' needs per-coordinate sigmas > 0")
            check_range("sigma", np.asarray(self.sigma), 0.0, math.inf, lo_open=True, hi_open=True)
            check_range("M", self.M, 0.0, math.inf, lo_open=True, hi_open=True)

    @classmethod
    def none(cls) -> NoiseLaw:
        """No noise: the release is the base algorithm's output."""
        return cls(NoiseKind.NONE, 0.0)

    @classmethod
    def laplace(cls, scale: float) -> NoiseLaw:
        """Laplace noise with scale ``0 < scale < inf`` per coordinate."""
        return cls(NoiseKind.LAPLACE, float(scale))

    @classmethod
    def gaussian(cls, std: float) -> NoiseLaw:
        """Gaussian noise with standard deviation ``0 < std < inf`` per coordinate."""
        return cls(NoiseKind.GAUSSIAN, float(std))

    @classmethod
    def mip(
        cls, eta: float, sigma: ArrayLike, M: float = 2, constant: float = COROLLARY14_CONSTANT
    ) -> NoiseLaw:
        """The Theorem 9 noise certifying ``eta``-MIP for moment bound(s) ``sigma``.

        One sigma (scalar output): ``Laplace(c σ)`` with ``c = (constant/η)^(1+2/M)``
        (:func:`mipcore.noise.mip_noise_scale`). Several sigmas: the d-dimensional law
        ``exp(−||x||_{σ,M}/c)`` (kind ``NoiseKind.MIP``).

        Examples
        --------
        >>> NoiseLaw.mip(0.1, 1.0)  # Laplace((6.16 / 0.1)^2 * 1)
        NoiseLaw(kind=<NoiseKind.LAPLACE: 'laplace'>, scale=3794.56, sigma=(), M=2.0)
        """
        s = np.atleast_1d(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))
        if s.size == 1:
            return cls(NoiseKind.LAPLACE, float(mip_noise_scale(eta, float(s[0]), M, constant)))
        c = float(mip_noise_multiplier(eta, M, constant))
        return cls(NoiseKind.MIP, c, tuple(float(v) for v in s), float(M))

    @property
    def is_none(self) -> bool:
        """Whether this is the law without noise."""
        return self.kind is NoiseKind.NONE

    def one_dimensional(self) -> NoiseLaw:
        """The equivalent scalar law (``mip`` with one sigma is ``Laplace(c σ)``)."""
        if self.kind is NoiseKind.MIP:
            if len(self.sigma) != 1:
                raise ValueError(f"kind='mip' with {len(self.sigma)} sigmas is not one-dimensional")
            return NoiseLaw(NoiseKind.LAPLACE, self.scale * self.sigma[0])
        return self

    def sample_nd(self, count: int, d: int, rng: np.random.Generator | int) -> NDArray[np.float64]:
        """``count`` draws of d-dimensional noise, shape (count, d).

        Laplace/Gaussian independent per coordinate, ``mip`` by radius Gamma(d, c) times a
        cone-distributed direction (:func:`sample_mip_noise`).
        """
        gen = as_generator(rng)
        if self.kind is NoiseKind.NONE:
            return np.zeros((count, d))
        if self.kind is NoiseKind.LAPLACE:
            return gen.laplace(0.0, self.scale, size=(count, d))
        if self.kind is NoiseKind.GAUSSIAN:
            return gen.normal(0.0, self.scale, size=(count, d))
        if len(self.sigma) != d:
            raise ValueError(
                f"noise has {len(self.sigma)} sigmas but the outputs have dimension {d}"
            )
        return sample_mip_noise(np.asarray(self.sigma), self.M, self.scale, count, gen)

    def sample(
        self, size: int | tuple[int, ...], rng: np.random.Generator | int
    ) -> NDArray[np.float64]:
        """Draws of shape ``size`` (1-D laws) from ``rng`` (Generator or int seed)."""
        gen = as_generator(rng)
        law = self.one_dimensional()
        if law.kind is NoiseKind.NONE:
            return np.zeros(size)
        if law.kind is NoiseKind.LAPLACE:
            return gen.laplace(0.0, law.scale, size=size)
        return gen.normal(0.0, law.scale, size=size)


#: What :func:`as_noise_law` accepts.
NoiseSpec = NoiseLaw | tuple[NoiseKind | str, float] | str | None


def as_noise_law(noise: NoiseSpec) -> NoiseLaw:
    """Accept a :class:`NoiseLaw`, ``None``/``"none"``, or a pair ``(kind, scale)``.

    ``("laplace", b)``, ``("gaussian", std)``, ``("none", 0)`` (a tuple or a list; kind a
    :class:`NoiseKind` or its value, except ``"mip"``, which needs :meth:`NoiseLaw.mip`); a
    scale of 0 means no noise.

    Examples
    --------
    >>> as_noise_law(("laplace", 2.0)) == NoiseLaw.laplace(2.0)
    True
    >>> as_noise_law(("gaussian", 0.0)).is_none
    True
    """
    if isinstance(noise, NoiseLaw):
        return noise
    if noise is None or (isinstance(noise, str) and noise == "none"):
        return NoiseLaw.none()
    if isinstance(noise, (tuple, list)) and len(noise) == 2 and isinstance(noise[0], str):
        kind = as_enum("noise kind", noise[0], NoiseKind)
        if kind is NoiseKind.MIP:
            raise ValueError(
                "noise kind 'mip' is not one of ('none', 'laplace', 'gaussian'): "
                "build it with NoiseLaw.mip(eta, sigma)"
            )
        scale = float(check_range("noise scale", noise[1], 0.0, math.inf, hi_open=True))
        if kind is NoiseKind.NONE or scale == 0.0:
            return NoiseLaw.none()
        return NoiseLaw(kind, scale)
    raise ValueError(f"noise={noise!r} must be a NoiseLaw, None, 'none' or a pair (kind, scale)")


def log_kernel(
    y: NDArray[np.float64], atoms: NDArray[np.float64], law: NoiseLaw
) -> NDArray[np.float64]:
    """``log f(y_t − atoms_a)`` up to f's normalising constant: shape (T, A) from y (T, d), atoms (A, d).

    Summed one coordinate at a time (d contiguous (T, A) passes: 2-3× faster than
    reducing a (T, A, d) difference over its short last axis).
    """
    if law.kind is NoiseKind.MIP and law.M != 2.0:
        diff = y[:, None, :] - atoms[None, :, :]
        return -sigma_norm(diff, np.asarray(law.sigma), law.M) / law.scale
    acc = np.zeros((y.shape[0], atoms.shape[0]))
    for j in range(y.shape[1]):
        dj = y[:, j, None] - atoms[None, :, j]
        if law.kind is NoiseKind.LAPLACE:
            acc += np.abs(dj)
        elif law.kind is NoiseKind.GAUSSIAN:
            acc += dj * dj
        else:  # mip, M = 2: ||x||_{σ,2} = sqrt(mean((x/σ)²))
            dj /= law.sigma[j]
            acc += dj * dj
    if law.kind is NoiseKind.LAPLACE:
        return -acc / law.scale
    if law.kind is NoiseKind.GAUSSIAN:
        return -0.5 * acc / law.scale**2
    return -np.sqrt(acc / y.shape[1]) / law.scale


def log_mixture(
    y: NDArray[np.float64], atoms: NDArray[np.float64], counts: ArrayLike, law: NoiseLaw
) -> NDArray[np.float64]:
    """``log Σ_j counts_j f(y − atoms_j)`` up to the constant of f (the same for in and out).

    ``y``: (T,) with ``atoms`` (A,) for scalar outputs, or (T, d) with ``atoms`` (A, d).
    Log-sum-exp by the row maximum (finite: every kernel value is finite), in chunks of
    about 2·10^6 kernel values.
    """
    y2 = y[:, None] if y.ndim == 1 else y
    a2 = atoms[:, None] if atoms.ndim == 1 else atoms
    w = np.asarray(counts, dtype=float)
    out = np.empty(y2.shape[0])
    step = max(1, 2 * 10**6 // max(1, a2.shape[0]))
    for i in range(0, y2.shape[0], step):
        e = log_kernel(y2[i : i + step], a2, law)
        m = np.max(e, axis=1)
        out[i : i + step] = np.log(np.exp(e - m[:, None]) @ w) + m
    return out
