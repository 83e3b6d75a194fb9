r"""Exact ground truth for the MACE page: toy member / non-member score distributions.

Three pairs of densities of a scalar statistic z, indexed by a separation ``s >= 0``
(non-members Q, members P, unit scale), named by :class:`Shape`:

* ``NORMAL``  -- Q = N(0, 1),        P = N(s, 1);
* ``LAPLACE`` -- Q = Laplace(0, 1),  P = Laplace(s, 1) (then ``|log P/Q| <= s``: the pair is
  exactly s-DP, so Theorem 1 of MACE applies with ε = s);
* ``MIXTURE`` -- Q = N(0, 1),        P = ½ N(0, 1) + ½ N(s, 1) (only half of the members
  leave a trace).

For each pair ``log P/Q`` is non-decreasing in z, so the Bayes-optimal adversary of
Lemma 2 of MACE says "member" on a half-line ``A = {z > t}`` and, with prior p,

.. math:: \mathrm{Adv}_p = \int |pP - (1-p)Q| = 2\,[p P(A) - (1-p) Q(A)] - (2p - 1),

since ``∫ (pP − (1−p)Q) = 2p − 1``. The threshold t solves ``log P/Q(t) = −λ`` with
``λ = log(p/(1−p))``; closed forms below (``A`` may be empty or everything).

References
----------
Liu, Xu, Mukherjee, Lavista Ferres. *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*. arXiv:2009.05683 (Definition 1, Lemma 2, Theorem 1).
"""

from __future__ import annotations

import math
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from .._validate import as_enum, check_int, check_range

__all__ = ["SHAPES", "Shape", "densities", "sample", "true_advantage"]


class Shape(StrEnum):
    """The pair of member / non-member laws (see the module docstring)."""

    NORMAL = "normal"
    LAPLACE = "laplace"
    MIXTURE = "mixture"


#: The shapes' names, in :class:`Shape` order (every function also takes these strings).
SHAPES: tuple[str, ...] = tuple(s.value for s in Shape)


def _shape(shape: Shape | str) -> Shape:
    return as_enum("shape", shape, Shape)


def _laplace_sf(x: float) -> float:
    """P(X > x) for the standard Laplace law."""
    return 1.0 - 0.5 * math.exp(x) if x < 0 else 0.5 * math.exp(-x)


def true_advantage(shape: Shape | str, separation: float, prior: float = 0.5) -> float:
    r"""Bayes-optimal membership advantage ``Adv_p = ∫|pP − (1−p)Q|`` (exact, closed form).

    The advantage is ``2·accuracy − 1`` of the best attacker (Definition 1 of MACE); at
    p = 1/2 it is ``2η`` with η the MIP level of Izzo et al.

    Parameters
    ----------
    shape : Shape or its value (``"normal"``, ``"laplace"``, ``"mixture"``).
    separation : ``0 <= s <= 50`` (the member law's shift, in units of the scale).
    prior : membership prior, ``0 < p < 1``.

    Returns
    -------
    float
        ``Adv_p`` in ``[|2p − 1|, 1]``.

    Raises
    ------
    ValueError
        Naming ``shape``, ``separation`` or ``prior`` when outside its domain.

    Examples
    --------
    At s = 0 (P = Q) only the prior is left, ``|2p − 1|``; at p = 1/2 the normal shape
    gives ``2Φ(s/2) − 1``:

    >>> true_advantage("normal", 0.0, 0.8)
    0.600000000000
    >>> round(true_advantage(Shape.NORMAL, 1.0), 6)  # 2Φ(1/2) − 1
    0.382925
    """
    kind = _shape(shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    lam = math.log(p) - math.log1p(-p)
    base = abs(2.0 * p - 1.0)
    if s == 0.0:
        return base
    if kind is Shape.NORMAL:  # log P/Q = s z − s²/2
        t = s / 2.0 - lam / s
        pa, qa = float(special.ndtr(s - t)), float(special.ndtr(-t))
    elif kind is Shape.LAPLACE:  # log P/Q = clip(2z − s, −s, s)
        if -lam < -s or -lam >= s:  # everything, or nothing, is "member"
            return base
        t = (s - lam) / 2.0
        pa, qa = _laplace_sf(t - s), _laplace_sf(t)
    else:  # mixture: P/Q = ½ + ½ exp(s z − s²/2) > (1−p)/p  <=>  exp(...) > 2(1−p)/p − 1
        r = 2.0 * (1.0 - p) / p - 1.0
        if r <= 0.0:  # p >= 2/3: P/Q > 1/2 >= (1−p)/p everywhere
            return base
        t = (math.log(r) + s * s / 2.0) / s
        pa = float(0.5 * special.ndtr(-t) + 0.5 * special.ndtr(s - t))
        qa = float(special.ndtr(-t))
    adv = 2.0 * (p * pa - (1.0 - p) * qa) - (2.0 * p - 1.0)
    return float(min(max(adv, base), 1.0))


def densities(
    shape: Shape | str, separation: float, z: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(P(z), Q(z))``: member and non-member densities at the points ``z``.

    Parameters
    ----------
    shape : Shape or its value.
    separation : ``0 <= s <= 50``.
    z : finite numbers (any shape).

    Returns
    -------
    (P, Q) : tuple of ndarray, each shaped like ``z``.

    Examples
    --------
    >>> p, q = densities("laplace", 1.0, [0.0, 1.0])
    >>> p.round(4).tolist(), q.round(4).tolist()
    ([0.1839, 0.5], [0.5, 0.1839])
    """
    kind = _shape(shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    x = check_range("z", z, -math.inf, math.inf, lo_open=True, hi_open=True)
    if kind is Shape.LAPLACE:
        return 0.5 * np.exp(-np.abs(x - s)), 0.5 * np.exp(-np.abs(x))
    phi0 = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    phis = np.exp(-0.5 * (x - s) ** 2) / math.sqrt(2.0 * math.pi)
    if kind is Shape.NORMAL:
        return phis, phi0
    return 0.5 * phi0 + 0.5 * phis, phi0


def sample(
    shape: Shape | str, separation: float, n: int, seed: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(members, nonmembers)``: n i.i.d. draws from each law.

    Parameters
    ----------
    shape : Shape or its value.
    separation : ``0 <= s <= 50``.
    n : ``4 <= n <= 10^7`` draws per group.
    seed : ``0 <= seed <= 2^32 − 1``, for ``numpy.random.default_rng(seed)``.

    Returns
    -------
    (members, nonmembers) : tuple of ndarray of length n.

    Examples
    --------
    >>> m, nm = sample("normal", 1.0, 1000, seed=0)
    >>> m.shape, bool(abs(m.mean() - nm.mean() - 1.0) < 0.2)
    ((1000,), True)
    """
    kind = _shape(shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    n = check_int("n", n, 4, 10_000_000)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    if kind is Shape.LAPLACE:
        members = s + rng.laplace(0.0, 1.0, n)
        nonmembers = rng.laplace(0.0, 1.0, n)
    elif kind is Shape.NORMAL:
        members = s + rng.standard_normal(n)
        nonmembers = rng.standard_normal(n)
    else:
        members = rng.standard_normal(n) + s * (rng.random(n) < 0.5)
        nonmembers = rng.standard_normal(n)
    return members, nonmembers
