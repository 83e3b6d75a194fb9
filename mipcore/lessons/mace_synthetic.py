r"""Exact ground truth for the MACE page: toy member / non-member score distributions.

Three pairs of densities of a scalar statistic z, indexed by a separation ``s >= 0``
(non-members Q, members P, unit scale):

* ``"normal"``  -- Q = N(0, 1),        P = N(s, 1);
* ``"laplace"`` -- Q = Laplace(0, 1),  P = Laplace(s, 1) (then ``|log P/Q| <= s``: the pair is
  exactly s-DP, so Theorem 1 of ``004`` applies with ε = s);
* ``"mixture"`` -- Q = N(0, 1),        P = ½ N(0, 1) + ½ N(s, 1) (only half of the members
  leave a trace).

For each pair ``log P/Q`` is non-decreasing in z, so the Bayes-optimal adversary of
Lemma 2 (``004``) says "member" on a half-line ``A = {z > t}`` and, with prior p,

.. math:: \mathrm{Adv}_p = \int |pP - (1-p)Q| = 2\,[p P(A) - (1-p) Q(A)] - (2p - 1),

since ``∫ (pP − (1−p)Q) = 2p − 1``. The threshold t solves ``log P/Q(t) = −λ`` with
``λ = log(p/(1−p))``; closed forms below (``A`` may be empty or everything).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._validate import check_int, check_range

__all__ = ["SHAPES", "densities", "sample", "true_advantage"]

SHAPES = ("normal", "laplace", "mixture")


def _shape(shape: str) -> str:
    if shape not in SHAPES:
        raise ValueError(f"shape={shape!r} must be one of {', '.join(SHAPES)}")
    return shape


def _laplace_sf(x: float) -> float:
    """P(X > x) for the standard Laplace law."""
    return 1.0 - 0.5 * math.exp(x) if x < 0 else 0.5 * math.exp(-x)


def true_advantage(shape: str, separation: float, prior: float = 0.5) -> float:
    r"""Bayes-optimal membership advantage ``Adv_p = ∫|pP − (1−p)Q|`` (exact, closed form).

    Parameters
    ----------
    shape : one of :data:`SHAPES`.
    separation : ``0 <= s <= 50`` (the member law's shift, in units of the scale).
    prior : membership prior, ``0 < p < 1``.

    At s = 0 (P = Q) this is ``|2p − 1|``: the prior alone. At p = 1/2 and the normal
    shape it is ``2Φ(s/2) − 1`` (0.3829 at s = 1).
    """
    shape = _shape(shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    lam = math.log(p) - math.log1p(-p)
    base = abs(2.0 * p - 1.0)
    if s == 0.0:
        return base
    if shape == "normal":  # log P/Q = s z − s²/2
        t = s / 2.0 - lam / s
        pa, qa = special.ndtr(s - t), special.ndtr(-t)
    elif shape == "laplace":  # log P/Q = clip(2z − s, −s, s)
        if -lam < -s:  # everything is "member"
            return base
        if -lam >= s:  # nothing is "member"
            return base
        t = (s - lam) / 2.0
        pa, qa = _laplace_sf(t - s), _laplace_sf(t)
    else:  # mixture: P/Q = ½ + ½ exp(s z − s²/2) > (1−p)/p  <=>  exp(...) > 2(1−p)/p − 1
        r = 2.0 * (1.0 - p) / p - 1.0
        if r <= 0.0:  # p >= 2/3: P/Q > 1/2 >= (1−p)/p everywhere
            return base
        t = (math.log(r) + s * s / 2.0) / s
        pa = 0.5 * special.ndtr(-t) + 0.5 * special.ndtr(s - t)
        qa = special.ndtr(-t)
    adv = 2.0 * (p * pa - (1.0 - p) * qa) - (2.0 * p - 1.0)
    return float(min(max(adv, base), 1.0))


def densities(shape: str, separation: float, z) -> tuple[np.ndarray, np.ndarray]:
    """``(P(z), Q(z))``: member and non-member densities at the points ``z`` (finite)."""
    shape = _shape(shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    x = check_range("z", z, -math.inf, math.inf, lo_open=True, hi_open=True)
    if shape == "laplace":
        return 0.5 * np.exp(-np.abs(x - s)), 0.5 * np.exp(-np.abs(x))
    phi0 = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    phis = np.exp(-0.5 * (x - s) ** 2) / math.sqrt(2.0 * math.pi)
    if shape == "normal":
        return phis, phi0
    return 0.5 * phi0 + 0.5 * phis, phi0


def sample(shape: str, separation: float, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(members, nonmembers)``: n i.i.d. draws from each law, from ``numpy.random.default_rng(seed)``.

    n : ``4 <= n <= 10^7``. seed : ``0 <= seed <= 2^32 − 1``.
    """
    shape = _shape(shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    n = check_int("n", n, 4, 10_000_000)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    if shape == "laplace":
        members = s + rng.laplace(0.0, 1.0, n)
        nonmembers = rng.laplace(0.0, 1.0, n)
    elif shape == "normal":
        members = s + rng.standard_normal(n)
        nonmembers = rng.standard_normal(n)
    else:
        members = rng.standard_normal(n) + s * (rng.random(n) < 0.5)
        nonmembers = rng.standard_normal(n)
    return members, nonmembers
