r"""The exact MIP level of the Proposition 11 mechanism: the optimal attack, by enumeration.

Proposition 11 of Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR
2024, arXiv:2211.06582 (the ``1/Σx`` construction, :mod:`mipcore.prop11`), attacked by the
optimal attacker of Proposition 2 (:mod:`mipcore.optimal_attack`): every output over all
``C(n, n/2)`` training halves, for each of the n target records, plus Laplace or Gaussian
noise. Exact for small n; the certified upper bounds (Theorem 9, Theorem 4) cover every n.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._mixture_integral import _abs_integral
from ._validate import as_enum, check_int, check_range, scalar_or_array
from .noise_laws import NoiseKind, NoiseLaw

__all__ = [
    "PROP11_EXACT_N_MAX",
    "prop11_eta_by_target",
    "prop11_eta_function",
    "prop11_outputs",
    "prop11_true_eta",
]

PROP11_EXACT_N_MAX = 20
_PROP11_GAUSS_N_MAX = 16


def prop11_outputs(n: int) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    r"""All outputs ``𝒜(D) = 1/Σ_{x∈D} x`` of the Proposition 11 mechanism and who is in D.

    Enumerates the ``C(n, k)`` subsets (k = floor(n/2)) of the dataset
    ``{2^0, ..., 2^(n−2)} ∪ {A}`` (:func:`mipcore.prop11.dataset`), records ``0..n−2`` being
    ``2^i`` and record ``n−1`` being A. Each sum is exact: an integer, or
    ``sqrt(p) + m`` with an integer ``m >= 0`` (m = 0 only for the special subset D*, whose
    output is ``sqrt(C(n, k))``). Each output is then rounded to float64 once or twice, so
    its relative error is below ``2^-52`` (no cancellation: the integer part is formed exactly).

    Parameters
    ----------
    n : ``4 <= n <= 20`` (enumeration).

    Returns
    -------
    (outputs, members) : tuple of ndarray
        Float array (C,), bool array (C, n) with ``members[j, i]`` true when record i is in
        subset j.

    Examples
    --------
    >>> outputs, members = prop11_outputs(4)  # records 1, 2, 4 and A = 1/sqrt(6)
    >>> outputs.shape, members.shape
    ((6,), (6, 4))
    >>> float(outputs.max())  # the special subset {1, A}: sqrt(C(4, 2))
    2.44948974278
    """
    n = check_int("n", n, 4, PROP11_EXACT_N_MAX)
    k = n // 2
    total = math.comb(n, k)
    combos = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64)
    members = np.zeros((total, n), dtype=bool)
    members[np.arange(total)[:, None], combos] = True
    powers = 2 ** np.arange(n - 1, dtype=np.int64)
    int_part = members[:, : n - 1].astype(np.int64) @ powers  # exact: < 2^19
    has_a = members[:, n - 1]
    a_offset = -(2 ** (k - 1) - 1)
    m = int_part + np.where(has_a, a_offset, 0)
    sqrt_p = 1.0 / math.sqrt(total)
    out = np.empty(total)
    out[~has_a] = 1.0 / m[~has_a].astype(float)
    mm = m[has_a].astype(float)
    with np.errstate(divide="ignore"):
        vals = np.where(mm == 0, math.sqrt(total), 1.0 / (mm + sqrt_p))
    out[has_a] = vals
    return out, members


def _prop11_check(n: int, noise: NoiseKind | str) -> tuple[int, NoiseKind]:
    kind = as_enum("noise", noise, NoiseKind)
    if kind is NoiseKind.MIP:
        raise ValueError(
            "noise='mip' is not one of ('none', 'laplace', 'gaussian'): Theorem 9 noise on a "
            "scalar output is Laplace(c σ); pass noise='laplace' with that scale"
        )
    limit = _PROP11_GAUSS_N_MAX if kind is NoiseKind.GAUSSIAN else PROP11_EXACT_N_MAX
    nn = check_int("n", n)
    if nn > limit:
        raise ValueError(
            f"n={nn} is out of range: allowed 4 <= n <= {limit} for noise={kind.value!r}. The "
            f"exact η enumerates all C(n, n/2) training halves (C({nn}, {nn // 2}) = "
            f"{math.comb(nn, nn // 2):,}) for each of the n targets, which is infeasible beyond "
            "that; for larger n use the certified upper bounds (Theorem 9: mipcore.noise, "
            "Theorem 4: mipcore.bounds)."
        )
    return check_int("n", nn, 4, limit), kind


def prop11_eta_by_target(
    n: int, noise_scale: float, noise: NoiseKind | str = NoiseKind.LAPLACE
) -> NDArray[np.float64]:
    r"""Exact η for each target record of the Proposition 11 mechanism plus noise.

    Proposition 2 applied to ``𝒜(D) + Z`` with 𝒜 from :func:`prop11_outputs` and Z
    Laplace(``noise_scale``), Gaussian(std ``noise_scale``) or no noise; the prior is
    Definition 1's ``k/n`` (1/2 for even n), and η is the accuracy minus ``max(k/n, 1 − k/n)``.

    Parameters
    ----------
    n : int
        ``4 <= n <= 20`` (Laplace, none) or ``<= 16`` (Gaussian).
    noise_scale : float
        ``0 <= noise_scale < inf`` (Laplace scale b or Gaussian std); ``0`` means no noise.
    noise : NoiseKind or str
        ``"laplace"`` (default), ``"gaussian"`` or ``"none"``.

    Returns
    -------
    ndarray
        η of shape (n,), entry i for record i (records ``2^0, ..., 2^(n−2)``, then A).

    Notes
    -----
    All targets share the same C(n, k) atoms (the outputs are distinct), only the signs of
    the weights ``±1/C(n, k)`` change; the Laplace integral is evaluated for all n targets
    in one vectorised pass (:func:`optimal_attack` for the method and error bound).
    """
    n, kind = _prop11_check(n, noise)
    scale = float(check_range("noise_scale", noise_scale, 0.0, math.inf, hi_open=True))
    return _Atoms(n).eta_by_target(scale, kind)


class _Atoms:
    """The attacker's problem at n, enumerated once: the sorted outputs and, per target, the
    signed weights ``±1/C(n, k)`` (Proposition 2), reused for every noise scale."""

    def __init__(self, n: int) -> None:
        k = n // 2
        out, members = prop11_outputs(n)
        self.n = n
        self.base = max(k / n, 1.0 - k / n)
        order = np.argsort(out, kind="stable")
        self.x = out[order]
        self.W = np.where(members[order].T, 1.0, -1.0) / out.size  # (n, C)

    def eta_by_target(self, scale: float, kind: NoiseKind) -> NDArray[np.float64]:
        if kind is NoiseKind.NONE or scale == 0.0:
            if np.unique(self.x).size != self.x.size:  # pragma: no cover - provably distinct
                raise RuntimeError("Proposition 11 outputs collided in float64")
            integral = np.ones(self.n)  # distinct outputs: Σ_m |±1|/C(n, k) = 1 exactly
        else:
            integral = _abs_integral(self.x, self.W, NoiseLaw(kind, scale))[0]
        acc = np.minimum(1.0, 0.5 + 0.5 * integral)
        return acc - self.base


def prop11_eta_function(
    n: int, noise: NoiseKind | str = NoiseKind.LAPLACE
) -> Callable[[float], float]:
    r"""``b -> prop11_true_eta(n, b, noise)``, with the ``C(n, n/2)`` training halves
    enumerated once for every call of the returned function.

    For a caller that needs the exact η at many noise scales one at a time (a bisection, a
    grid with progress): each call then costs only the integral, and returns exactly what
    :func:`prop11_true_eta` returns (the same floating-point operations). Nothing is kept
    once the function is dropped.

    Parameters
    ----------
    n, noise : as for :func:`prop11_true_eta` (checked now).

    Returns
    -------
    callable
        ``eta(noise_scale) -> float``; ``noise_scale`` is checked as in
        :func:`prop11_true_eta` (``0 <= noise_scale < inf``).

    Raises
    ------
    ValueError
        If n is out of range for the noise or ``noise`` is not none/laplace/gaussian.

    Examples
    --------
    >>> eta = prop11_eta_function(4)
    >>> eta(1.0) == prop11_true_eta(4, 1.0)
    True
    """
    n, kind = _prop11_check(n, noise)
    atoms = _Atoms(n)

    def eta(noise_scale: float) -> float:
        scale = float(check_range("noise_scale", noise_scale, 0.0, math.inf, hi_open=True))
        return float(np.max(atoms.eta_by_target(scale, kind)))

    return eta


@overload
def prop11_true_eta(n: int, noise_scale: float, noise: NoiseKind | str = ...) -> float: ...
@overload
def prop11_true_eta(
    n: int, noise_scale: ArrayLike, noise: NoiseKind | str = ...
) -> float | NDArray[np.float64]: ...
def prop11_true_eta(
    n: int, noise_scale: ArrayLike, noise: NoiseKind | str = NoiseKind.LAPLACE
) -> float | NDArray[np.float64]:
    r"""The exact MIP level η of the Proposition 11 mechanism plus noise (max over targets).

    ``max_{x*} (accuracy of the Proposition 2 attacker − max(k/n, 1 − k/n))`` by full
    enumeration of the ``C(n, n/2)`` training halves (12 870 at n = 16) for each of the n
    target records. Compare with the certified levels: Theorem 9 (``noise_scale = c σ``) and
    Theorem 4 through the sensitivity (:mod:`mipcore.noise`), both upper bounds on this value.

    Parameters
    ----------
    n : int
        ``4 <= n <= 20`` for Laplace and no noise, ``4 <= n <= 16`` for Gaussian. Beyond that
        a ``ValueError`` explains that enumeration is infeasible (C(22, 11) = 705 432 halves ×
        22 targets); nothing approximate is substituted.
    noise_scale : float or array_like
        ``0 <= noise_scale < inf`` (Laplace scale / Gaussian std; 0 = no noise).
    noise : NoiseKind or str
        ``"laplace"`` (default, exact), ``"gaussian"`` (certified, see
        :func:`mipcore.optimal_attack.optimal_attack`) or ``"none"``.

    Returns
    -------
    float or ndarray
        η (an array over ``noise_scale``). Error: each output is within ``2^-52`` relative of
        the exact ``1/Σx`` (:func:`prop11_outputs`); from those floats the Laplace value is
        exact to ``8 (log2 C(n, k) + 4) ε_mach < 4e-14`` and the Gaussian value carries the
        certified bound of :func:`mipcore.optimal_attack.optimal_attack` (about 1e-13).

    Raises
    ------
    ValueError
        If n is out of range for the noise, ``noise_scale`` is negative or infinite, or
        ``noise`` is not none/laplace/gaussian.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Proposition 11 and Proposition 2.

    Examples
    --------
    >>> prop11_true_eta(4, 1.0)  # Laplace(1): the worst target is record 2^2
    0.139178248259
    >>> prop11_true_eta(4, 0.0)  # no noise: the outputs are distinct, the attacker is sure
    0.5
    >>> prop11_true_eta(4, [0.5, 2.0])  # more noise, less leak
    array([0.19568697, 0.08882027])
    """
    n, kind = _prop11_check(n, noise)
    scales = check_range("noise_scale", noise_scale, 0.0, math.inf, hi_open=True)
    atoms = _Atoms(n)
    flat = [float(np.max(atoms.eta_by_target(float(s), kind))) for s in np.ravel(scales)]
    return scalar_or_array(np.reshape(np.array(flat), scales.shape), noise_scale)
