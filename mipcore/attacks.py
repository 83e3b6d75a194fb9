r"""Exact membership-inference attacks, the paper's constructions, and empirical audits.

Sources (all in ``../shared/papers/``):

* ``000_ece03c98c31c7b12.txt`` -- Definition 1 (MIP), Proposition 2 (the optimal
  attacker), Theorem 4 (DP => MIP, tight) with its tightness construction, Theorem 5
  (MIP does not imply DP) and Proposition 11 (the ``1/Σx`` construction).
* ``003_acb39d252537c5b2.txt`` -- the arXiv version: its Theorem 4 proof spells out the
  tightness construction; its Theorem 5 uses a *different* counterexample.
* ``001_85cb7883a67a4cfb.txt`` Appendix B -- the membership game with abstention
  (Game 1), the correct-guess rate CGR, Theorem B.1 (``ε ≥ log(CGR/(1−CGR))``) and the
  Clopper–Pearson lower bound on CGR.

**Proposition 2 (the optimal attacker).** Fix a target record x* and let
``π = P(x* ∈ D_train) = k/n``. Write ``p_in``/``p_out`` for the density of the released
value given ``x* ∈ D_train`` / ``x* ∉ D_train``. The best attacker guesses "in" exactly
where ``π p_in ≥ (1−π) p_out`` and its accuracy is

.. math:: \int \max\{\pi p_{in}, (1-\pi)p_{out}\}
          = \frac12 + \frac12\int\lvert \pi p_{in} - (1-\pi) p_{out}\rvert ,

which for k = n/2 (π = 1/2) is the paper's ``∫ max(p_in, p_out)/2``. ``η`` for that target
is the accuracy minus ``max(π, 1−π)`` (Definition 1). For a base algorithm 𝒜 plus
additive noise with density f, ``p_in(y) = mean_{D ∋ x*} f(y − 𝒜(D))`` -- a finite
mixture, so the integral is computed here **exactly** (Laplace, no noise) or with a
**certified error bound** (Gaussian); see :func:`optimal_attack`.

**Paper slips handled here.**

* Theorem 8 (``TPR ≤ FPR + η``) is off by a factor 2 -- see :func:`mipcore.bounds.tpr_bound_mip`;
  the ROC points returned by :func:`run_canary_audit` obey ``TPR ≤ FPR + 2η``.
* The tightness part of Theorem 4 is stated for ``(ε, δ)`` in ``000`` but the only
  construction printed (``003``, proof of Theorem 4) is for δ = 0. :func:`theorem4_tightness_accuracy`
  adds a δ-mass that reveals the training set, which attains the bound for every δ.
* ``000``'s Theorem 5 sketch ("as n grows the advantage goes to 0") gives no number; the
  exact value is ``η = 1/C(n, n/2)`` (:func:`theorem5_indicator_eta`). ``003``'s
  counterexample (publish each training record with a small probability q) has
  ``η = q/2`` for every n and *is* ``(0, q)``-DP: it only separates MIP from *pure*
  ε-DP, which is all the arXiv version claims (:func:`theorem5_publish_eta`).
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy import special, stats

from ._validate import check_int, check_range, scalar_or_array
from .mechanism import as_generator
from .noise import COROLLARY14_CONSTANT, mip_noise_multiplier, mip_noise_scale

__all__ = [
    "AUDIT_ATTACKERS",
    "AUDIT_MECHANISMS",
    "AUDIT_NOISES",
    "NOISE_KINDS",
    "PROP11_EXACT_N_MAX",
    "CanaryAudit",
    "NoiseLaw",
    "OptimalAttack",
    "as_noise_law",
    "clopper_pearson",
    "covariance_audit_records",
    "epsilon_from_cgr",
    "epsilon_lower_bound",
    "eta_estimate",
    "eta_lower_bound",
    "max_certifiable_epsilon",
    "optimal_attack",
    "optimal_attack_accuracy",
    "optimal_attack_accuracy_discrete",
    "optimal_attack_accuracy_mc",
    "prop11_eta_by_target",
    "prop11_outputs",
    "prop11_true_eta",
    "roc_points",
    "run_canary_audit",
    "theorem4_tightness_accuracy",
    "theorem5_indicator_eta",
    "theorem5_publish_eta",
]

_EPS = np.finfo(float).eps
_SQRT2PI = math.sqrt(2.0 * math.pi)

# --------------------------------------------------------------------------- noise laws

NOISE_KINDS = ("none", "laplace", "gaussian", "theorem9")


@dataclass(frozen=True)
class NoiseLaw:
    """An additive noise law for the released value.

    ``kind`` is one of :data:`NOISE_KINDS`:

    * ``"none"`` -- no noise (``scale`` 0): the release is the base algorithm's output.
    * ``"laplace"`` -- density ``exp(-|x|/scale) / (2 scale)`` per coordinate.
    * ``"gaussian"`` -- ``N(0, scale^2)`` per coordinate (``scale`` is the standard deviation).
    * ``"theorem9"`` -- Theorem 9 / Corollary 10 of ``000``: density proportional to
      ``exp(-||x||_{sigma,M} / scale)`` in R^d with ``scale = c``. In one dimension this is
      exactly ``Laplace(c * sigma)``, and the exact routines use it that way; in d > 1 it is
      only supported by :func:`optimal_attack_accuracy_mc`.

    Build one with :meth:`laplace`, :meth:`gaussian`, :meth:`none`, :meth:`mip` or
    :func:`as_noise_law`.
    """

    kind: str
    scale: float = 0.0
    sigma: tuple[float, ...] = ()  # only for "theorem9"
    M: float = 2.0  # only for "theorem9"

    def __post_init__(self):
        if self.kind not in NOISE_KINDS:
            raise ValueError(f"kind={self.kind!r} is not one of {NOISE_KINDS}")
        if self.kind == "none":
            if self.scale != 0:
                raise ValueError(f"scale={self.scale!r} must be 0 for kind='none'")
            return
        check_range("scale", self.scale, 0.0, math.inf, lo_open=True, hi_open=True)
        if self.kind == "theorem9":
            if not self.sigma:
                raise ValueError(
                    "sigma=() is empty: kind='theorem9' needs per-coordinate sigmas > 0"
                )
            check_range("sigma", np.asarray(self.sigma), 0.0, math.inf, lo_open=True, hi_open=True)
            check_range("M", self.M, 0.0, math.inf, lo_open=True, hi_open=True)

    @classmethod
    def none(cls) -> NoiseLaw:
        return cls("none", 0.0)

    @classmethod
    def laplace(cls, scale) -> NoiseLaw:
        return cls("laplace", float(scale))

    @classmethod
    def gaussian(cls, std) -> NoiseLaw:
        return cls("gaussian", float(std))

    @classmethod
    def mip(cls, eta, sigma, M=2, constant=COROLLARY14_CONSTANT) -> NoiseLaw:
        """The Theorem 9 noise certifying ``eta``-MIP for moment bound(s) ``sigma``.

        One sigma (scalar output): ``Laplace(c sigma)`` with ``c = (constant/eta)^(1+2/M)``
        (:func:`mipcore.noise.mip_noise_scale`). Several sigmas: the d-dimensional law
        ``exp(-||x||_{sigma,M}/c)`` (kind ``"theorem9"``).
        """
        s = np.atleast_1d(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))
        if s.size == 1:
            return cls("laplace", float(mip_noise_scale(eta, float(s[0]), M, constant)))
        c = float(mip_noise_multiplier(eta, M, constant))
        return cls("theorem9", c, tuple(float(v) for v in s), float(M))

    @property
    def is_none(self) -> bool:
        return self.kind == "none"

    def one_dimensional(self) -> NoiseLaw:
        """The equivalent scalar law (``theorem9`` with one sigma is ``Laplace(c sigma)``)."""
        if self.kind == "theorem9":
            if len(self.sigma) != 1:
                raise ValueError(
                    f"kind='theorem9' with {len(self.sigma)} sigmas is not one-dimensional"
                )
            return NoiseLaw("laplace", self.scale * self.sigma[0])
        return self

    def sample_nd(self, count: int, d: int, rng) -> np.ndarray:
        """``count`` draws of d-dimensional noise, shape (count, d): Laplace/Gaussian independent
        per coordinate, ``theorem9`` by radius Gamma(d, c) times a cone-distributed direction."""
        gen = as_generator(rng)
        if self.kind == "none":
            return np.zeros((count, d))
        if self.kind == "laplace":
            return gen.laplace(0.0, self.scale, size=(count, d))
        if self.kind == "gaussian":
            return gen.normal(0.0, self.scale, size=(count, d))
        if len(self.sigma) != d:
            raise ValueError(
                f"noise has {len(self.sigma)} sigmas but the outputs have dimension {d}"
            )
        return _theorem9_draws(np.asarray(self.sigma), self.M, self.scale, count, gen)

    def sample(self, size, rng) -> np.ndarray:
        """Draws of shape ``size`` (1-D laws) from ``rng`` (Generator or int seed)."""
        gen = as_generator(rng)
        law = self.one_dimensional()
        if law.kind == "none":
            return np.zeros(size)
        if law.kind == "laplace":
            return gen.laplace(0.0, law.scale, size=size)
        return gen.normal(0.0, law.scale, size=size)


def as_noise_law(noise) -> NoiseLaw:
    """Accept a :class:`NoiseLaw`, ``None``/``"none"``, or a pair ``(kind, scale)``.

    ``("laplace", b)``, ``("gaussian", std)``, ``("none", 0)``; a scale of 0 means no noise.
    """
    if isinstance(noise, NoiseLaw):
        return noise
    if noise is None or (isinstance(noise, str) and noise == "none"):
        return NoiseLaw.none()
    if isinstance(noise, (tuple, list)) and len(noise) == 2 and isinstance(noise[0], str):
        kind, scale = noise
        if kind not in ("none", "laplace", "gaussian"):
            raise ValueError(f"noise kind {kind!r} is not one of ('none', 'laplace', 'gaussian')")
        scale = float(check_range("noise scale", scale, 0.0, math.inf, hi_open=True))
        if kind == "none" or scale == 0.0:
            return NoiseLaw.none()
        return NoiseLaw(kind, scale)
    raise ValueError(f"noise={noise!r} must be a NoiseLaw, None, 'none' or a pair (kind, scale)")


# --------------------------------------------------------------------------- Proposition 2


@dataclass(frozen=True)
class OptimalAttack:
    """The Proposition 2 attacker against one target record, computed exactly.

    ``accuracy`` = ``∫ max(π p_in, (1−π) p_out)``; ``eta = accuracy − max(π, 1−π)``
    (Definition 1); ``advantage = 2 * accuracy − 1`` (the "membership advantage" of
    ``004``). ``error_bound`` bounds ``|accuracy − exact value|`` for the float64 inputs
    given (see :func:`optimal_attack`). ``boundary`` holds the points (1-D, noisy case)
    where the optimal decision switches between "in" and "out"; ``n_atoms`` is the number
    of distinct output values after grouping.
    """

    accuracy: float
    eta: float
    prior: float
    error_bound: float
    boundary: np.ndarray = field(repr=False)
    n_atoms: int
    noise: NoiseLaw

    @property
    def advantage(self) -> float:
        return 2.0 * self.accuracy - 1.0


def _as_outputs(name: str, value) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim > 2 or arr.shape[0] == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-d array of outputs (or 2-d: one row per "
            f"training set), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains a non-finite output")
    return arr


def _check_prior(prior, n_in: int, n_out: int) -> float:
    if prior is None:
        return n_in / (n_in + n_out)
    return float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))


def _group(outputs_in: np.ndarray, outputs_out: np.ndarray, prior: float):
    """Distinct output values (sorted) and their signed weights ``π c_in/N_in − (1−π) c_out/N_out``."""
    n_in, n_out = outputs_in.shape[0], outputs_out.shape[0]
    both = np.concatenate([outputs_in, outputs_out], axis=0)
    values, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    c_in = np.bincount(inverse[:n_in], minlength=values.shape[0]).astype(float)
    c_out = np.bincount(inverse[n_in:], minlength=values.shape[0]).astype(float)
    if prior == n_in / (n_in + n_out):
        # the Definition 1 prior: weights (c_in - c_out)/(N_in + N_out), exact zero on ties;
        # Σ|w| = Σ|c_in - c_out| / (N_in + N_out) with an exact integer numerator
        diff = c_in.astype(np.int64) - c_out.astype(np.int64)
        w = diff / (n_in + n_out)
        w_abs = Fraction(int(np.sum(np.abs(diff))), n_in + n_out)
    else:
        w = prior * c_in / n_in - (1.0 - prior) * c_out / n_out
        w_abs = math.fsum(np.abs(w))
    return values, w, w_abs


def optimal_attack(outputs_in, outputs_out, noise, *, prior=None) -> OptimalAttack:
    r"""Exact accuracy of the optimal membership attacker (Proposition 2 of ``000``).

    Parameters
    ----------
    outputs_in : array of shape (N_in,) -- the base algorithm's output on every training
        set that contains the target x* (one entry per training set; repeats allowed and
        counted). Shape (N_in, d) for d-dimensional outputs (only with ``noise`` none;
        use :func:`optimal_attack_accuracy_mc` for noisy d > 1).
    outputs_out : array of shape (N_out,) -- the same over training sets without x*.
    noise : :class:`NoiseLaw` or ``(kind, scale)`` (see :func:`as_noise_law`): the additive
        noise of the release; ``("laplace", b)``, ``("gaussian", std)``, ``None``.
        Theorem 9 noise in 1-D is ``NoiseLaw.mip(eta, sigma)`` = ``Laplace(c sigma)``.
    prior : ``0 < prior < 1``, ``P(x* ∈ D_train)``. Default ``N_in/(N_in + N_out)``, which is
        Definition 1's ``k/n`` when the outputs enumerate all k-subsets; it is 1/2 for equal
        groups (k = n/2).

    Returns
    -------
    OptimalAttack
        ``accuracy``, ``eta``, ``error_bound``, the decision ``boundary``.

    Notes
    -----
    With signed weights ``w_m`` on the distinct outputs ``x_m``, ``g = π p_in − (1−π) p_out
    = Σ_m w_m f(y − x_m)`` and accuracy ``= 1/2 + ∫|g|/2``.

    * **No noise**: ``∫|g| = Σ|w_m|``; with the default prior the accuracy
      ``(N + Σ|c_in − c_out|)/(2N)`` is formed from integer counts and rounded once.
    * **Laplace(b)** -- exact, in closed form. Between consecutive atoms
      ``2b g(y) = L_k e^{−(y−x_k)/b} + R_k e^{−(x_{k+1}−y)/b}``, which has at most one root,
      at ``(x_k + x_{k+1})/2 + (b/2) log(−L_k/R_k)``; each piece integrates in closed form
      (``expm1``) and the two tails contribute ``|R_0|/2`` and ``|L_{M−1}|/2``. The sums
      ``L_k = Σ_{m≤k} w_m e^{−(x_k−x_m)/b}`` (and R from the right) obey
      ``L_k = e^{−(x_k−x_{k−1})/b} L_{k−1} + w_k`` and are computed by a parallel prefix scan
      (log2 M vectorised passes with decay factors in [0, 1]: no overflow, whatever b). Each
      is correct to ``(log2 M + 1) ε_mach`` times the weight it sums, and the pieces add up
      to at most ``Σ|w|``, so ``error_bound = 8 (log2 M + 4) ε_mach Σ|w|`` (about 1e-13 at
      M = 10^5): exact to rounding. (The float64 atoms themselves carry a relative error
      ``ε_mach``, which moves the exact value by up to ``ε_mach max|x|/b``.)
    * **Gaussian(s)** -- ``∫|g| = Σ_j |G(r_{j+1}) − G(r_j)|`` with ``G(y) = Σ_m w_m Φ((y − x_m)/s)``
      and ``r_j`` the sign changes of g, computed in units of s (gaps wider than 80 s are
      shortened to 80 s, which changes the kernels' overlap by less than ``Φ(−40) < 1e-320``).
      The roots are isolated with certified bounds: on each cell of a subdivision of the
      windows ``[x_m − 12s, x_m + 12s]``, a degree-8 Taylor model of g (derivatives via
      Hermite polynomials, remainder via Cramér's inequality ``|He_k(z)| e^{−z²/4} ≤ 1.0865 √(k!)``,
      rounding slack included) either proves that g has no root there, or brackets a sign
      change whose root (bisection to machine precision) is proved to be the only one
      (``|g'(r)| > max|g''| h/2``). Undecided cells are split; once ``2 h max|g| ≤ 1e-13 Σ|w|
      h/width``, or the bound on ``max|g|`` is within a factor 4 of its rounding slack, or the
      width is below ``1e-9 s``, they are accepted: a breakpoint is put in the cell (its root
      if the ends differ in sign, else its midpoint) and ``2 h max_cell|g|`` is added to
      ``error_bound`` -- whatever sign changes hide in the cell, they change ``∫|g|`` by at
      most twice the mass of g on it. Each gap between windows gets a breakpoint too (there
      ``∫|g| < 2Φ(−12) Σ|w| < 4e-33 Σ|w|``). ``boundary`` lists the sign changes found inside
      the windows. Typically ``error_bound`` is 1e-13 or smaller.

    Complexity: O(M log M) for Laplace, O(cells × nearby atoms) for Gaussian; vectorised
    over the atoms with NumPy.
    """
    law = as_noise_law(noise)
    a_in = _as_outputs("outputs_in", outputs_in)
    a_out = _as_outputs("outputs_out", outputs_out)
    if a_in.ndim != a_out.ndim or (a_in.ndim == 2 and a_in.shape[1] != a_out.shape[1]):
        raise ValueError(
            f"outputs_in {a_in.shape} and outputs_out {a_out.shape} must have the same dimension"
        )
    pi = _check_prior(prior, a_in.shape[0], a_out.shape[0])
    if a_in.ndim == 2 and a_in.shape[1] == 1:
        a_in, a_out = a_in[:, 0], a_out[:, 0]
    if a_in.ndim == 2 and not law.is_none:
        raise ValueError(
            f"outputs of dimension {a_in.shape[1]} with {law.kind} noise: the exact computation is "
            "one-dimensional; use optimal_attack_accuracy_mc for d > 1"
        )
    values, w, w_abs = _group(a_in, a_out, pi)
    if law.is_none and isinstance(w_abs, Fraction):  # exact: (N + Σ|c_in − c_out|) / (2N)
        acc = float(Fraction(1, 2) + w_abs / 2)
        return OptimalAttack(
            acc, acc - max(pi, 1.0 - pi), pi, 0.0, np.empty(0), int(values.shape[0]), law
        )
    w_abs = float(w_abs)
    if law.is_none:
        total, err, boundary = w_abs, 4 * _EPS * w_abs, np.empty(0)
    else:
        law = law.one_dimensional()
        keep = w != 0.0
        x, wk = values[keep], w[keep]
        if x.size == 0:  # p_in = p_out exactly
            total, err, boundary = 0.0, 0.0, np.empty(0)
        else:
            tot, errs, roots = _abs_integral(x, wk[None, :], law, want_roots=True)
            total, err, boundary = float(tot[0]), float(errs[0]), roots[0]
    acc = min(1.0, 0.5 + 0.5 * total)
    return OptimalAttack(
        acc, acc - max(pi, 1.0 - pi), pi, float(err), boundary, int(values.shape[0]), law
    )


def optimal_attack_accuracy(outputs_in, outputs_out, noise, *, prior=None) -> float:
    """Accuracy of the optimal attacker, ``∫ max(π p_in, (1−π) p_out)`` (Proposition 2 of ``000``).

    The number :func:`optimal_attack` computes; see there for parameters, the method and the
    error bounds (exact for Laplace and no noise; certified to about 1e-14 for Gaussian).
    For equal groups (k = n/2) this is ``∫ max(p_in, p_out)/2`` and ``η = accuracy − 1/2``.
    """
    return optimal_attack(outputs_in, outputs_out, noise, prior=prior).accuracy


def optimal_attack_accuracy_discrete(p_in, p_out, prior=0.5):
    r"""Optimal accuracy for a finite output space: ``Σ_A max(π p_in(A), (1−π) p_out(A))``.

    Proposition 2 of ``000`` with a discrete range. ``p_in``/``p_out`` are probability
    vectors over the same outputs along the last axis (leading axes broadcast, so many
    laws are evaluated at once); ``0 < prior < 1``. Each vector must sum to 1 (to 1e-9).
    """
    a = check_range("p_in", p_in, 0.0, 1.0)
    b = check_range("p_out", p_out, 0.0, 1.0)
    pi = check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("p_in and p_out must be probability vectors (last axis = outputs)")
    for name, v in (("p_in", a), ("p_out", b)):
        s = v.sum(axis=-1)
        if np.any(np.abs(s - 1.0) > 1e-9):
            raise ValueError(
                f"{name} must sum to 1 along the last axis, got {np.ravel(s)[:4].tolist()}"
            )
    pi_b = np.asarray(pi)[..., None] if np.ndim(pi) else pi
    acc = np.sum(np.maximum(pi_b * a, (1.0 - pi_b) * b), axis=-1)
    return scalar_or_array(acc, np.sum(a, axis=-1), np.sum(b, axis=-1), prior)


# ---- Laplace: exact


def _decay_scan(a: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Solve ``L_k = a_k L_{k-1} + W[:, k]`` (``L_0 = W[:, 0]``) by a parallel prefix scan.

    ``a`` (length M, ``a_0`` unused) holds decay factors in [0, 1]. Hillis–Steele doubling:
    log2(M) vectorised passes, each combining a segment with the one ``o`` places back. All
    coefficients stay in [0, 1], so nothing overflows and each pass adds at most one rounding
    to every term: the absolute error is below ``(log2 M + 1) ε Σ_m |w_m| Π a``.
    """
    A = a.copy()
    A[0] = 0.0
    B = W.copy()
    o = 1
    M = A.size
    while o < M:
        B[:, o:] = B[:, o:] + A[o:] * B[:, :-o]
        A[o:] = A[o:] * A[:-o]
        o *= 2
    return B


def _laplace_abs_integral(x: np.ndarray, W: np.ndarray, b: float, want_roots: bool = False):
    """``∫|Σ_m W[t, m] Lap_b(y − x_m)| dy`` for each row t (x sorted, distinct), exactly.

    Returns (integrals (T,), error bounds (T,), list of root arrays or None).
    """
    T, M = W.shape
    with np.errstate(over="ignore"):
        gap = np.diff(x) / b  # in units of b; may be inf
    decay = np.exp(-np.r_[0.0, gap])  # e^{-(x_k - x_{k-1})/b}, in [0, 1]
    L = _decay_scan(decay, W)  # L_k = Σ_{m<=k} w_m e^{-(x_k - x_m)/b}
    # Rf_j = Σ_{m>=j} w_m e^{-(x_m - x_j)/b}: the same scan from the right
    Rf = _decay_scan(np.r_[0.0, decay[1:][::-1]], W[:, ::-1])[:, ::-1]
    total = 0.5 * (np.abs(Rf[:, 0]) + np.abs(L[:, -1]))  # the two tails
    w_abs = np.sum(np.abs(W), axis=1)
    err = 8.0 * (math.log2(M) + 4.0) * _EPS * w_abs
    roots = [np.empty(0) for _ in range(T)] if want_roots else None
    if M == 1:
        return total, err, roots
    Lk, Rk = L[:, :-1], Rf[:, 1:]  # on segment k: 2b g = Lk e^{-(y-x_k)/b} + Rk e^{-(x_{k+1}-y)/b}
    one_m = -np.expm1(-gap)  # 1 - e^{-h/b}
    whole = 0.5 * np.abs((Lk + Rk) * one_m)
    cross = (Lk * Rk) < 0
    if np.any(cross):
        ti, si = np.nonzero(cross)
        lft, r = Lk[ti, si], Rk[ti, si]
        ell = np.log(np.abs(lft)) - np.log(np.abs(r))  # the root is at the midpoint + (b/2) ell
        hb = gap[si]
        inside = np.abs(ell) < hb
        ti, si, lft, r, hb, ell = (v[inside] for v in (ti, si, lft, r, hb, ell))
        ts, hts = 0.5 * (hb + ell), 0.5 * (hb - ell)  # t*/b and (h - t*)/b, both > 0 (maybe inf)
        one_t, one_ht = -np.expm1(-ts), -np.expm1(-hts)
        i1 = 0.5 * (lft * one_t + r * np.exp(-hts) * one_t)  # ∫ over [x_k, root]
        i2 = 0.5 * (lft * np.exp(-ts) * one_ht + r * one_ht)  # ∫ over [root, x_{k+1}]
        whole[ti, si] = np.abs(i1) + np.abs(i2)
        if want_roots:
            pos = 0.5 * x[si] + 0.5 * x[si + 1] + 0.5 * b * ell
            for t in range(T):
                roots[t] = np.sort(pos[ti == t])
    total = total + np.sum(whole, axis=1)
    return total, err, roots


# Gaussian: gaps wider than this many noise scales are shortened to it (cross-terms < 1e-320)
_GAP_CAP = {"gaussian": 80.0}


def _standardise(x: np.ndarray, s: float, cap: float):
    """Atoms in units of the noise scale, from 0, with gaps wider than ``cap`` shortened to it.

    ``∫|Σ w f_s(y − x_m)| dy`` is invariant under ``x -> (x − x_0)/s, s -> 1``; shortening a gap
    of ``D >= cap`` scales changes the overlap of the kernels across it by less than
    ``2 Σ|w| tail(cap/2)`` (``Φ(−40) < 1e-320`` for the Gaussian cap 80), and
    keeps every coordinate finite whatever the scale (``s = 1e-310`` or ``1e300``).
    Differences inside a cluster are computed from x directly (one rounding).
    """
    with np.errstate(over="ignore"):
        gaps = np.diff(x) / s
    big = np.nonzero(gaps > cap)[0]
    if big.size == 0:
        return (x - x[0]) / s
    starts = np.r_[0, big + 1]
    ends = np.r_[big, x.size - 1]
    lengths = (x[ends] - x[starts]) / s
    offsets = np.r_[0.0, np.cumsum(lengths[:-1] + cap)]
    cid = np.repeat(np.arange(starts.size), ends - starts + 1)
    return (x - x[starts][cid]) / s + offsets[cid]


def _unstandardise(r: np.ndarray, u: np.ndarray, x: np.ndarray, s: float) -> np.ndarray:
    """Map points from standardised to original coordinates, from the nearest atom.

    Exact inverse of :func:`_standardise` except inside a shortened gap, whose points are
    placed at their distance (in scales) from the nearer side.
    """
    if r.size == 0:
        return r
    j = np.clip(np.searchsorted(u, r), 0, u.size - 1)  # u[j-1] < r <= u[j]
    i = np.clip(j - 1, 0, u.size - 1)
    near = np.where(np.abs(r - u[i]) <= np.abs(u[j] - r), i, j)
    return x[near] + (r - u[near]) * s


def _abs_integral(x: np.ndarray, W: np.ndarray, law: NoiseLaw, want_roots: bool = False):
    """``∫|Σ_m W[t, m] f(y − x_m)| dy`` for each row (x sorted, distinct, W (T, M)).

    Returns (values, error bounds, roots in original coordinates or None).
    """
    if law.kind == "laplace":
        return _laplace_abs_integral(x, W, law.scale, want_roots=want_roots)
    u = _standardise(x, law.scale, _GAP_CAP["gaussian"])
    tot, err, roots = _gauss_abs_integral(u, W, 1.0)
    if want_roots:
        roots = [_unstandardise(r, u, x, law.scale) for r in roots]
    return tot, err, roots


# ---- Gaussian: certified root isolation

_TAYLOR_K = 8
_CRAMER = 1.0865
_WINDOW = 12.0  # cells cover [x_min - 12 s, x_max + 12 s]
_REACH = 40.0  # atoms farther than 40 s contribute < 1e-300 relative: skipped
_MIN_WIDTH = 1e-9  # in units of s
_CELL_RTOL = 1e-13
_CHUNK_BUDGET = 400_000
_MAX_CELLS = 500_000


def _chunks(lo: np.ndarray, hi: np.ndarray, x: np.ndarray, reach: float):
    """Split points (sorted by lo) into chunks with the index range of atoms within ``reach``."""
    P = lo.size
    start = 0
    while start < P:
        size = 256
        while True:
            stop = min(P, start + size)
            i0 = int(np.searchsorted(x, lo[start] - reach, "left"))
            i1 = int(np.searchsorted(x, np.max(hi[start:stop]) + reach, "right"))
            if size == 1 or (stop - start) * max(1, i1 - i0) <= _CHUNK_BUDGET:
                break
            size = max(1, size // 4)
        yield start, stop, i0, i1
        start = stop


def _g_values(y: np.ndarray, x: np.ndarray, Wt: np.ndarray, s: float, order: int = 0) -> np.ndarray:
    """``g_t^(k)(y)`` for k = 0..order and every column t of ``Wt`` (M, T): shape (order+1, P, T).

    ``g^(k)(y) = (−1)^k Σ_m w_m He_k(z_m) φ(z_m) / s^(k+1)``, ``z_m = (y − x_m)/s``; atoms
    farther than 40 s are skipped (their terms are below 1e-340, i.e. 0 in float64).
    """
    P, T = y.size, Wt.shape[1]
    out = np.zeros((order + 1, P, T))
    if P == 0:
        return out
    idx = np.argsort(y, kind="stable")
    ys = y[idx]
    for a, b_, i0, i1 in _chunks(ys, ys, x, _REACH * s):
        if i1 <= i0:
            continue
        z = (ys[a:b_, None] - x[None, i0:i1]) / s
        phi = np.exp(-0.5 * z * z) * (1.0 / _SQRT2PI)
        wk = Wt[i0:i1]
        he_prev, he = None, None
        for k in range(order + 1):
            if k == 0:
                term = phi
            else:
                he_new = z if k == 1 else z * he - (k - 1) * he_prev
                he_prev, he = (he if k > 1 else np.ones_like(z)), he_new
                term = he * phi
            sign = -1.0 if k % 2 else 1.0
            out[k, idx[a:b_]] = (term @ wk) * (sign / s ** (k + 1))
    return out


def _envelope_sums(
    a: np.ndarray, c: np.ndarray, x: np.ndarray, Wabs_t: np.ndarray, s: float
) -> np.ndarray:
    """``E_t = Σ_m |w_tm| exp(−z_min,m² / 4)`` over each cell ``[a, c]`` (z_min: distance/s), shape (P, T).

    With Cramér's inequality ``|He_k(z) φ(z)| <= 1.0865 √(k!) e^{−z²/4} / √(2π)`` this bounds
    ``max_cell |g^(k)| <= 1.0865 √(k!) E / (√(2π) s^(k+1))`` for every k.
    """
    P, T = a.size, Wabs_t.shape[1]
    out = np.zeros((P, T))
    if P == 0:
        return out
    idx = np.argsort(a, kind="stable")
    As, Cs = a[idx], c[idx]
    for i, j, i0, i1 in _chunks(As, Cs, x, _REACH * s):
        if i1 <= i0:
            continue
        dist = (
            np.maximum(
                0.0, np.maximum(As[i:j, None] - x[None, i0:i1], x[None, i0:i1] - Cs[i:j, None])
            )
            / s
        )
        out[idx[i:j]] = np.exp(-0.25 * dist * dist) @ Wabs_t[i0:i1]
    # atoms beyond the reach contribute at most e^{-reach^2/4} each
    out += Wabs_t.sum(axis=0)[None, :] * math.exp(-0.25 * _REACH * _REACH)
    return out


def _initial_cells(x: np.ndarray, s: float):
    """Cells of width <= s/2 covering the union of ``[x_m − 12 s, x_m + 12 s]``.

    Returns (cell starts, cell ends, total width, midpoints of the gaps between windows).
    """
    lo_w, hi_w = x - _WINDOW * s, x + _WINDOW * s
    gap = np.nonzero(lo_w[1:] > np.maximum.accumulate(hi_w)[:-1])[0]
    starts = np.r_[lo_w[0], lo_w[gap + 1]]
    ends = np.r_[np.maximum.accumulate(hi_w)[gap], hi_w.max()]
    pieces = []
    for A, B in zip(starts, ends, strict=True):
        m = max(1, math.ceil((B - A) / (0.5 * s)))
        e = np.linspace(A, B, m + 1)
        pieces.append(np.stack([e[:-1], e[1:]], axis=1))
    cells = np.concatenate(pieces, axis=0)
    gap_mids = 0.5 * (ends[:-1] + starts[1:])
    return cells[:, 0].copy(), cells[:, 1].copy(), float(np.sum(ends - starts)), gap_mids


def _gauss_abs_integral(x: np.ndarray, W: np.ndarray, s: float):
    """Certified ``∫|Σ_m W[t, m] φ_s(y − x_m)| dy`` for each row t (x sorted, distinct).

    Returns (values (T,), error bounds (T,), list of root arrays). All rows share the atoms
    and the dyadic cell grid, so each round evaluates the Taylor models of every row at the
    union of the cells' midpoints in one pass (one matrix product per derivative order).
    """
    K = _TAYLOR_K
    W = np.atleast_2d(W)
    T = W.shape[0]
    Wt, Wabs_t = W.T.copy(), np.abs(W).T.copy()
    w_abs = Wabs_t.sum(axis=0)
    fact = np.array([math.factorial(k) for k in range(K + 2)], dtype=float)
    cram = _CRAMER / _SQRT2PI * np.sqrt(fact)  # Cramér constant times √(k!)
    a0, c0, width_total, gap_mids = _initial_cells(x, s)
    a = np.repeat(a0[None, :], T, axis=0).ravel()
    c = np.repeat(c0[None, :], T, axis=0).ravel()
    tid = np.repeat(np.arange(T), a0.size)
    roots: list[tuple[np.ndarray, np.ndarray]] = []  # certified roots (rt, target)
    extra: list[tuple[np.ndarray, np.ndarray]] = []  # breakpoints in accepted cells
    err = 4.0 * special.ndtr(-_WINDOW) * w_abs
    min_w = _MIN_WIDTH * s
    slack = 64.0 * _EPS
    for _ in range(200):  # each round halves the pending cells; never reached
        if a.size == 0:
            break
        h = c - a
        r = 0.5 * h
        mid = a + r
        umid, imid = np.unique(mid, return_inverse=True)
        uend, iend = np.unique(np.concatenate([a, c]), return_inverse=True)
        ucell, icell = np.unique(np.stack([a, c], axis=1), axis=0, return_inverse=True)
        imid, iend, icell = imid.ravel(), iend.ravel(), icell.ravel()
        dv = _g_values(umid, x, Wt, s, order=K)[:, imid, tid]  # (K+1, P)
        ev = _g_values(uend, x, Wt, s, order=0)[0][iend, np.r_[tid, tid]]
        ga, gc = ev[: a.size], ev[a.size :]
        E = _envelope_sums(ucell[:, 0], ucell[:, 1], x, Wabs_t, s)[icell, tid]
        D = (
            np.abs(dv)
            + slack * cram[: K + 1, None] * E[None, :] / s ** np.arange(1, K + 2)[:, None]
        )
        B = cram[K + 1] * E / s ** (K + 2)  # bound on max_cell |g^(K+1)|
        rk = r[None, :] ** np.arange(K + 1)[:, None]
        L1 = np.sum(D[1:] * rk[:K] / fact[:K, None], axis=0) + B * r**K / fact[K]
        L2 = (
            np.sum(D[2:] * rk[: K - 1] / fact[: K - 1, None], axis=0)
            + B * r ** (K - 1) / fact[K - 1]
        )
        gmax = np.sum(D * rk / fact[: K + 1, None], axis=0) + B * r ** (K + 1) / fact[K + 1]
        g0_lo = np.abs(dv[0]) - slack * cram[0] * E / s
        resolved = g0_lo > L1 * r  # |g(mid)| > max|g'| h/2: no root in the cell
        change = (~resolved) & (ga * gc <= 0) & ~((ga == 0) & (gc == 0))
        breakpoint_at = mid.copy()
        if np.any(change):
            ci = np.nonzero(change)[0]
            rt = _bisect_roots(a[ci], c[ci], ga[ci], tid[ci], x, Wt, s)
            d1 = _g_values(rt, x, Wt, s, order=1)[1][np.arange(rt.size), tid[ci]]
            ok = (
                np.abs(d1) > L2[ci] * h[ci] * 0.5
            )  # g(y) = g'(r)(y − r) + O(L2 (y − r)²/2): one root
            roots.append((rt[ok], tid[ci][ok]))
            resolved[ci[ok]] = True
            breakpoint_at[ci] = rt  # a sign change: its root is the natural breakpoint
            np.add.at(
                err, tid[ci][ok], 4.0 * np.spacing(np.maximum(np.abs(rt[ok]), s)) * np.abs(d1[ok])
            )
        cell_err = 2.0 * h * gmax
        gmax_slack = np.sum(
            slack
            * cram[: K + 1, None]
            * E[None, :]
            / s ** np.arange(1, K + 2)[:, None]
            * rk
            / fact[: K + 1, None],
            axis=0,
        )
        accept = (~resolved) & (
            (cell_err <= _CELL_RTOL * w_abs[tid] * h / width_total)
            | (h <= min_w)
            | (gmax <= 4.0 * gmax_slack)
        )  # splitting cannot beat rounding
        if a.size > _MAX_CELLS:  # pragma: no cover - defensive: accept everything left
            accept = ~resolved
        np.add.at(err, tid[accept], cell_err[accept])
        # an accepted cell may hide sign changes: a breakpoint at its midpoint confines the
        # damage to the cell (a segment between breakpoints then has one sign outside it)
        extra.append((breakpoint_at[accept & ~change], tid[accept & ~change]))
        roots.append((breakpoint_at[accept & change], tid[accept & change]))  # uncertified unique
        split = ~(resolved | accept)
        a_s, c_s, m_s, t_s = a[split], c[split], mid[split], tid[split]
        a, c, tid = np.r_[a_s, m_s], np.r_[m_s, c_s], np.r_[t_s, t_s]
    else:  # pragma: no cover - defensive
        raise RuntimeError("root isolation did not terminate")
    totals = np.zeros(T)
    out_roots = []
    all_r = np.concatenate([rr for rr, _ in roots] + [np.empty(0)])
    all_t = np.concatenate([tt for _, tt in roots] + [np.empty(0, dtype=int)])
    ex_r = np.concatenate([rr for rr, _ in extra] + [np.empty(0)])
    ex_t = np.concatenate([tt for _, tt in extra] + [np.empty(0, dtype=int)])
    for t in range(T):
        rts = np.sort(all_r[all_t == t])
        # g may change sign anywhere in a gap between windows, where its mass is < 2Φ(−12)Σ|w|:
        # a breakpoint in every gap confines the effect of such a root to that mass
        G = _gauss_cdf_mix(np.sort(np.r_[rts, ex_r[ex_t == t], gap_mids]), x, W[t], s)
        vals = np.concatenate([[0.0], G, [float(np.sum(W[t]))]])
        totals[t] = float(np.sum(np.abs(np.diff(vals))))
        err[t] += (rts.size + 2) * 64.0 * _EPS * w_abs[t]
        if rts.size > 1:  # a root on a cell edge is found from both sides: report it once
            rts = rts[
                np.r_[True, np.diff(rts) > 8.0 * np.spacing(np.maximum(np.abs(rts[1:]), 1.0))]
            ]
        out_roots.append(rts)
    return totals, err, out_roots


def _bisect_roots(a, c, ga, tid, x, Wt, s):
    """Vectorised bisection to (about) one ulp on brackets with ``g_t(a) g_t(c) <= 0``."""
    lo, hi, glo = a.copy(), c.copy(), ga.copy()
    done = glo == 0
    hi[done] = lo[done]
    for _ in range(120):
        mid = lo + 0.5 * (hi - lo)
        active = (mid > lo) & (mid < hi)
        if not np.any(active):
            break
        ia = np.nonzero(active)[0]
        gm = _g_values(mid[ia], x, Wt, s, order=0)[0][np.arange(ia.size), tid[ia]]
        zero = gm == 0
        same = (np.sign(gm) == np.sign(glo[ia])) & ~zero
        lo[ia[same]] = mid[ia[same]]
        glo[ia[same]] = gm[same]
        hi[ia[~same]] = mid[ia[~same]]
        lo[ia[zero]] = mid[ia[zero]]
    return lo + 0.5 * (hi - lo)


def _gauss_cdf_mix(y: np.ndarray, x: np.ndarray, w: np.ndarray, s: float) -> np.ndarray:
    """``G(y) = Σ_m w_m Φ((y − x_m)/s)``: atoms far left contribute w_m exactly, far right 0."""
    if y.size == 0:
        return np.empty(0)
    prefix = np.concatenate([[0.0], np.cumsum(w)])
    out = np.zeros(y.size)
    idx = np.argsort(y, kind="stable")
    ys = y[idx]
    for a, b_, i0, i1 in _chunks(ys, ys, x, _REACH * s):
        z = (ys[a:b_, None] - x[None, i0:i1]) / s
        out[idx[a:b_]] = prefix[i0] + special.ndtr(z) @ w[i0:i1]
    return out


# ---- Monte Carlo for d > 1


def optimal_attack_accuracy_mc(
    outputs_in,
    outputs_out,
    noise,
    *,
    samples: int = 200_000,
    rng,
    prior=None,
    confidence: float = 0.99,
):
    r"""Monte Carlo estimate of the Proposition 2 accuracy for d-dimensional outputs.

    Draws ``y`` from the mixture ``π p_in + (1−π) p_out`` (a random training set, then noise)
    and averages ``|tanh(ℓ(y)/2)|`` where ``ℓ = log(π p_in/((1−π) p_out))``; then
    ``accuracy = (1 + E|tanh(ℓ/2)|)/2`` exactly (``|π p_in − (1−π) p_out| / (π p_in + (1−π) p_out)``
    is that tanh). The summand lies in [0, 1]. The interval is the intersection of two, each
    at level ``1 − α/2`` (``α = 1 − confidence``; a union bound makes the intersection hold
    at ``1 − α``): Hoeffding's, half-width ``sqrt(log(4/α)/(2n))``, and the empirical
    Bernstein bound of Maurer & Pontil (2009, Theorem 4) applied to both tails, half-width
    ``sqrt(2 V log(8/α)/n) + 7 log(8/α)/(3(n − 1))`` with V the sample variance -- far
    narrower when the summand varies little (a small leak: all |tanh| near 0).

    Parameters
    ----------
    outputs_in, outputs_out : arrays of shape (N, d) (or (N,) for d = 1).
    noise : Laplace or Gaussian (independent per coordinate) or ``NoiseLaw.mip`` with d sigmas
        (the Theorem 9 density ``∝ exp(−||x||_{σ,M}/c)``, sampled as in
        :func:`mipcore.mechanism.sample_noise`).
    samples : ``1000 <= samples <= 10^8``. rng : Generator or int seed.
    prior : as in :func:`optimal_attack`. confidence : ``0 < confidence < 1``.

    Returns
    -------
    (estimate, lower, upper) : the accuracy and an interval at ``confidence`` (see above).
    """

    law = as_noise_law(noise)
    if law.is_none:
        raise ValueError("noise is none: use optimal_attack (exact) instead")
    a_in = _as_outputs("outputs_in", outputs_in)
    a_out = _as_outputs("outputs_out", outputs_out)
    a_in = a_in[:, None] if a_in.ndim == 1 else a_in
    a_out = a_out[:, None] if a_out.ndim == 1 else a_out
    if a_in.shape[1] != a_out.shape[1]:
        raise ValueError(
            f"outputs_in {a_in.shape} and outputs_out {a_out.shape} must have the same dimension"
        )
    d = a_in.shape[1]
    if law.kind == "theorem9" and len(law.sigma) != d:
        raise ValueError(f"noise has {len(law.sigma)} sigmas but the outputs have dimension {d}")
    n_samples = check_int("samples", samples, 1000, 10**8)
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    pi = _check_prior(prior, a_in.shape[0], a_out.shape[0])
    gen = as_generator(rng)
    is_in = gen.random(n_samples) < pi
    base = np.where(
        is_in[:, None],
        a_in[gen.integers(a_in.shape[0], size=n_samples)],
        a_out[gen.integers(a_out.shape[0], size=n_samples)],
    )
    y = base + law.sample_nd(n_samples, d, gen)

    def log_mix(atoms):
        vals, counts = np.unique(atoms, axis=0, return_counts=True)
        return _log_mixture(y, vals, counts.astype(float), law) - math.log(atoms.shape[0])

    ell = math.log(pi) - math.log1p(-pi) + log_mix(a_in) - log_mix(a_out)
    r = np.abs(np.tanh(0.5 * ell))
    est = float(np.mean(r))
    alpha = 1.0 - conf
    hoeffding = math.sqrt(math.log(4.0 / alpha) / (2.0 * n_samples))
    log_b = math.log(8.0 / alpha)
    bernstein = math.sqrt(2.0 * float(np.var(r, ddof=1)) * log_b / n_samples) + 7.0 * log_b / (
        3.0 * (n_samples - 1)
    )
    half = min(hoeffding, bernstein)
    acc = 0.5 * (1.0 + est)
    return (
        acc,
        max(0.5 * (1.0 + max(est - half, 0.0)), max(pi, 1 - pi)),
        0.5 * (1.0 + min(est + half, 1.0)),
    )


def _theorem9_draws(sigma: np.ndarray, M: float, c: float, count: int, gen) -> np.ndarray:
    """Draws with density ∝ exp(−||x||_{σ,M}/c): radius Gamma(d, c) times a cone-distributed
    direction (the construction of :func:`mipcore.mechanism.sample_noise`, radius="theorem9")."""
    from .mechanism import sigma_norm

    d = sigma.size
    mag = gen.standard_gamma(1.0 + 1.0 / M, size=(count, d)) ** (1.0 / M) * (
        1.0 - gen.random((count, d))
    )
    sign = np.where(gen.random((count, d)) < 0.5, -1.0, 1.0)
    y = sign * mag * sigma
    u = y / sigma_norm(y, sigma, M)[:, None]
    return gen.gamma(shape=d, scale=c, size=count)[:, None] * u


# --------------------------------------------------------------------------- Proposition 11

PROP11_EXACT_N_MAX = 20
_PROP11_GAUSS_N_MAX = 16


def prop11_outputs(n: int):
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
    (outputs, members) : float array (C,), bool array (C, n) with ``members[j, i]`` true
    when record i is in subset j.
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


def _prop11_check(n, noise):
    if noise not in ("laplace", "gaussian", "none"):
        raise ValueError(f"noise={noise!r} is not one of ('laplace', 'gaussian', 'none')")
    limit = _PROP11_GAUSS_N_MAX if noise == "gaussian" else PROP11_EXACT_N_MAX
    if isinstance(n, numbers.Integral) and not isinstance(n, bool) and n > limit:
        raise ValueError(
            f"n={n} is out of range: allowed 4 <= n <= {limit} for noise={noise!r}. The exact η "
            f"enumerates all C(n, n/2) training halves (C({n}, {n // 2}) = {math.comb(n, n // 2):,}) "
            "for each of the n targets, which is infeasible beyond that; for larger n use the "
            "certified upper bounds (Theorem 9: mipcore.noise, Theorem 4: mipcore.bounds)."
        )
    return check_int("n", n, 4, limit)


def prop11_eta_by_target(n: int, noise_scale, noise: str = "laplace") -> np.ndarray:
    r"""Exact η for each target record of the Proposition 11 mechanism plus noise.

    Proposition 2 applied to ``𝒜(D) + Z`` with 𝒜 from :func:`prop11_outputs` and Z
    Laplace(``noise_scale``), Gaussian(std ``noise_scale``) or no noise; the prior is
    Definition 1's ``k/n`` (1/2 for even n), and η is the accuracy minus ``max(k/n, 1 − k/n)``.

    Parameters
    ----------
    n : ``4 <= n <= 20`` (Laplace, none) or ``<= 16`` (Gaussian).
    noise_scale : ``> 0`` (Laplace scale b or Gaussian std); ``0`` means no noise.
    noise : ``"laplace"`` (default), ``"gaussian"`` or ``"none"``.

    Returns
    -------
    eta : array (n,), entry i for record i (records ``2^0, ..., 2^(n−2)``, then A).

    Notes
    -----
    All targets share the same C(n, k) atoms (the outputs are distinct), only the signs of
    the weights ``±1/C(n, k)`` change; the Laplace integral is evaluated for all n targets
    in one vectorised pass (:func:`optimal_attack` for the method and error bound).
    """
    n = _prop11_check(n, noise)
    scale = float(check_range("noise_scale", noise_scale, 0.0, math.inf, hi_open=True))
    k = n // 2
    out, members = prop11_outputs(n)
    total = out.size
    pi = k / n
    base = max(pi, 1.0 - pi)
    order = np.argsort(out, kind="stable")
    x = out[order]
    W = np.where(members[order].T, 1.0, -1.0) / total  # (n, C)
    if noise == "none" or scale == 0.0:
        if np.unique(x).size != x.size:  # pragma: no cover - outputs are provably distinct
            raise RuntimeError("Proposition 11 outputs collided in float64")
        integral = np.ones(n)  # distinct outputs: Σ_m |±1|/C(n, k) = 1 exactly
    else:
        integral = _abs_integral(x, W, NoiseLaw(noise, scale))[0]
    acc = np.minimum(1.0, 0.5 + 0.5 * integral)
    return acc - base


def prop11_true_eta(n: int, noise_scale, noise: str = "laplace"):
    r"""The exact MIP level η of the Proposition 11 mechanism plus noise (max over targets).

    ``max_{x*} (accuracy of the Proposition 2 attacker − max(k/n, 1 − k/n))`` by full
    enumeration of the ``C(n, n/2)`` training halves (12 870 at n = 16) for each of the n
    target records. Compare with the certified levels: Theorem 9 (``noise_scale = c σ``) and
    Theorem 4 through the sensitivity (:mod:`mipcore.noise`), both upper bounds on this value.

    Parameters
    ----------
    n : ``4 <= n <= 20`` for Laplace and no noise, ``4 <= n <= 16`` for Gaussian. Beyond that
        a ``ValueError`` explains that enumeration is infeasible (C(22, 11) = 705 432 halves ×
        22 targets); nothing approximate is substituted.
    noise_scale : float or array, ``>= 0`` (Laplace scale / Gaussian std; 0 = no noise).
    noise : ``"laplace"`` (default, exact), ``"gaussian"`` (certified, see
        :func:`optimal_attack`) or ``"none"``.

    Returns
    -------
    eta : float (or array over ``noise_scale``). Error: each output is within ``2^-52`` relative
    of the exact ``1/Σx`` (:func:`prop11_outputs`); from those floats the Laplace value is exact
    to ``8 (log2 C(n, k) + 4) ε_mach < 4e-14`` and the Gaussian value carries the certified
    bound of :func:`optimal_attack` (about 1e-13).
    """
    n = _prop11_check(n, noise)
    scales = check_range("noise_scale", noise_scale, 0.0, math.inf, hi_open=True)
    flat = [float(np.max(prop11_eta_by_target(n, float(s), noise))) for s in np.ravel(scales)]
    return scalar_or_array(np.reshape(np.array(flat), scales.shape), noise_scale)


# --------------------------------------------------------------------------- Theorems 4 and 5


def theorem4_tightness_accuracy(epsilon, delta=0.0):
    r"""Optimal attacker's accuracy against Theorem 4's tightness construction (exact).

    The construction (``003``, proof of Theorem 4, extended to δ > 0 here): dataset
    ``𝒟 = {0, 1}``, k = 1, target x* = 0. With probability δ the mechanism outputs
    ``("leak", D_train)``; otherwise it outputs ``("rr", D_train)`` with probability
    ``e^ε/(1 + e^ε)`` and ``("rr", 𝒟 \ D_train)`` otherwise (randomised response). It is
    ``(ε, δ)``-DP (the two output laws differ by a factor ``e^ε`` on the "rr" outputs and by
    δ on the "leak" outputs). The optimal accuracy is computed from the two output laws with
    :func:`optimal_attack_accuracy_discrete`; it equals ``δ + (1 − δ)/(1 + e^{−ε})``, the bound
    of Theorem 4, so the bound is attained.

    Parameters
    ----------
    epsilon : ``0 <= epsilon < inf``; delta : ``0 <= delta <= 1``. Arrays broadcast.
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True)
    dlt = check_range("delta", delta, 0.0, 1.0)
    eps, dlt = np.broadcast_arrays(eps, dlt)
    keep = special.expit(eps)  # e^ε/(1+e^ε), no overflow
    flip = special.expit(-eps)
    # outputs: (leak, {0}), (leak, {1}), (rr, {0}), (rr, {1}); x* = 0 is in D_train iff D_train = {0}
    p_in = np.stack([dlt, np.zeros_like(dlt), (1 - dlt) * keep, (1 - dlt) * flip], axis=-1)
    p_out = np.stack([np.zeros_like(dlt), dlt, (1 - dlt) * flip, (1 - dlt) * keep], axis=-1)
    acc = np.sum(np.maximum(0.5 * p_in, 0.5 * p_out), axis=-1)
    return scalar_or_array(acc, epsilon, delta)


def theorem5_indicator_eta(n):
    r"""Exact η of ``000``'s Theorem 5 counterexample: ``𝒜(D_train) = 1{D_train = D*}`` on [n].

    ``𝒟 = [n]`` (n even), k = n/2, ``D* = [n/2]``. For a target ``x* ∈ D*``: output 1 happens
    only when ``D_train = D*`` (probability ``p = 1/C(n, n/2)``), and then x* is in; given
    output 0 the posterior of "in" is ``(1/2 − p)/(1 − p) < 1/2``, so the attacker says "out"
    and is right with probability 1/2 overall. Accuracy ``1/2 + p``; the same for ``x* ∉ D*``
    by symmetry. Hence

    .. math:: \eta = 1/\binom{n}{n/2} \approx \sqrt{\pi n / 2}\, 2^{-n} \to 0,

    while 𝒜 is not (ε, δ)-DP for any δ < 1 (``P(𝒜(D*) = 1) = 1``, ``P(𝒜(D') = 1) = 0`` for
    a neighbour D'). The value is computed from the exact output laws (Python integers, then
    one rounding), so it is exact to float64 and underflows to 0 only beyond n ≈ 1080.

    Parameters
    ----------
    n : even int or array of even ints, ``n >= 2``.
    """
    ns = np.asarray(n)
    flat = []
    for v in np.ravel(ns).tolist():
        v = check_int("n", v, 2, even=True)
        k = v // 2
        total = math.comb(v, k)
        # output laws for x* ∈ D* (joint with membership): P(in, 1) = 1/C, P(out, 1) = 0,
        # P(in, 0) = 1/2 - 1/C, P(out, 0) = 1/2; Proposition 2 sums the larger of each pair
        p_in = (Fraction(1, total), Fraction(1, 2) - Fraction(1, total))
        p_out = (Fraction(0), Fraction(1, 2))
        acc = sum(max(a, b) for a, b in zip(p_in, p_out, strict=True))
        flat.append(float(acc - Fraction(1, 2)))
    return scalar_or_array(np.reshape(np.array(flat, dtype=float), ns.shape), n)


def theorem5_publish_eta(n, publish_prob):
    r"""Exact η of ``003``'s (arXiv) Theorem 5 counterexample: publish each training record w.p. q.

    The mechanism releases ``W ⊆ D_train``, each training record included independently with
    probability ``q``. For a target x*: if ``x* ∈ W`` it is certainly in; otherwise the
    posterior odds of "in" are ``(k − |W|)/(n − k) ≤ 1`` (k = n/2), so "out" is optimal.
    The attacker errs only when x* is in but unpublished: accuracy ``1/2 + q/2``, so

    .. math:: \eta = q/2 \quad\text{for every } n,

    and any η > 0 is reached with ``q = 2η``. Adding x* moves ``P(x* ∈ W)`` from 0 to q, so
    the mechanism is not ε-DP for any ε < ∞ -- but it *is* ``(0, q)``-DP, so this example only
    separates MIP from pure DP (all the arXiv version claims); ``000``'s stronger Theorem 5
    needs :func:`theorem5_indicator_eta`. (The other reading of the sketch, "publish the whole
    input with probability q", gives the same η = q/2.)

    Parameters
    ----------
    n : even int(s) ``>= 2`` (η does not depend on it). publish_prob : ``0 <= q <= 1``.
    """
    ns = np.asarray(n)
    for v in np.ravel(ns).tolist():
        check_int("n", v, 2, even=True)
    q = check_range("publish_prob", publish_prob, 0.0, 1.0)
    eta = np.broadcast_to(0.5 * q, np.broadcast_shapes(ns.shape, q.shape)).astype(float)
    return scalar_or_array(eta, n, publish_prob)


# --------------------------------------------------------------------------- audits (001 App. B)


def _check_counts(name_k: str, k, name_n: str, n, *, n_min: int = 1):
    kk = np.asarray(k)
    nn = np.asarray(n)
    for name, v in ((name_k, kk), (name_n, nn)):
        if v.dtype.kind not in "iu":
            fv = v.astype(float) if v.dtype.kind == "f" else None
            if fv is None or not np.all(np.isfinite(fv)) or not np.all(fv == np.round(fv)):
                raise ValueError(f"{name}={v.tolist()!r} must be an integer count")
    kk, nn = np.asarray(kk, dtype=float), np.asarray(nn, dtype=float)
    check_range(name_n, nn, n_min, math.inf)
    check_range(name_k, kk, 0, math.inf)
    if np.any(kk > nn):
        raise ValueError(
            f"{name_k}={kk.tolist()!r} is out of range: allowed 0 <= {name_k} <= {name_n} "
            f"({name_n}={nn.tolist()!r})"
        )
    return kk, nn


def _check_conf(confidence) -> np.ndarray:
    return check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True)


def _cp_lower(k, n, alpha):
    """One-sided Clopper–Pearson lower bound at level 1 − alpha (0 when k = 0)."""
    with np.errstate(invalid="ignore"):
        lo = stats.beta.ppf(alpha, k, n - k + 1)
    return np.where(k == 0, 0.0, lo)


def _cp_upper(k, n, alpha):
    with np.errstate(invalid="ignore"):
        hi = stats.beta.ppf(1.0 - alpha, k + 1, n - k)
    return np.where(k == n, 1.0, hi)


def clopper_pearson(k, n, confidence=0.95, alternative: str = "two-sided"):
    r"""Clopper–Pearson ("exact") confidence interval for a binomial proportion.

    ``lo = Beta⁻¹(α/2; k, n−k+1)``, ``hi = Beta⁻¹(1−α/2; k+1, n−k)`` with α = 1 − confidence
    (``lo = 0`` at k = 0, ``hi = 1`` at k = n). Same as
    ``scipy.stats.binomtest(k, n).proportion_ci(confidence, method="exact")``, vectorised.

    Parameters
    ----------
    k : successes, ``0 <= k <= n`` (int or int array). n : trials, ``n >= 1``.
    confidence : ``0 < confidence < 1``.
    alternative : ``"two-sided"``; ``"greater"`` -- a one-sided *lower* bound (α in one tail,
        ``hi = 1``), what an audit that wants "at least" uses; ``"less"`` -- one-sided upper.

    Returns
    -------
    (lo, hi) : floats or arrays.
    """
    kk, nn = _check_counts("k", k, "n", n)
    conf = _check_conf(confidence)
    alpha = 1.0 - conf
    if alternative == "two-sided":
        lo, hi = _cp_lower(kk, nn, alpha / 2), _cp_upper(kk, nn, alpha / 2)
    elif alternative == "greater":
        lo, hi = (
            _cp_lower(kk, nn, alpha),
            np.ones(np.broadcast_shapes(kk.shape, nn.shape, conf.shape)),
        )
    elif alternative == "less":
        lo, hi = (
            np.zeros(np.broadcast_shapes(kk.shape, nn.shape, conf.shape)),
            _cp_upper(kk, nn, alpha),
        )
    else:
        raise ValueError(
            f"alternative={alternative!r} is not one of ('two-sided', 'greater', 'less')"
        )
    return scalar_or_array(lo, k, n, confidence), scalar_or_array(hi, k, n, confidence)


def epsilon_from_cgr(cgr, delta=0.0, guess_rate=1.0):
    r"""The ε a correct-guess rate implies (Theorem B.1 of ``001``, and its (ε, δ) variant).

    Pure DP: ``ε = log(CGR/(1 − CGR))``. For (ε, δ)-DP and an attacker that guesses (does
    not abstain) with probability g: ``P(correct) ≤ e^ε P(wrong) + δ``, i.e.
    ``e^ε ≥ (CGR − δ/g)/(1 − CGR)``. Returns 0 where the right-hand side is ≤ 1 and ``inf``
    at CGR = 1 (with δ < g).

    Parameters
    ----------
    cgr : ``0 <= cgr <= 1``. delta : ``0 <= delta <= 1``. guess_rate : ``0 < g <= 1``.
    """
    c = check_range("cgr", cgr, 0.0, 1.0)
    d = check_range("delta", delta, 0.0, 1.0)
    g = check_range("guess_rate", guess_rate, 0.0, 1.0, lo_open=True)
    num = c - d / g
    den = 1.0 - c
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(num > den, np.log(np.maximum(num, 1e-300)) - np.log(den), 0.0)
    eps = np.where((den == 0) & (num > 0), math.inf, eps)
    return scalar_or_array(np.maximum(eps, 0.0), cgr, delta, guess_rate)


def epsilon_lower_bound(correct, guesses, confidence=0.95, *, delta=0.0, trials=None):
    r"""A lower bound on ε that holds with probability ``confidence`` (``001`` Theorem B.1).

    ``lo`` = one-sided Clopper–Pearson lower bound on CGR from ``correct`` out of ``guesses``;
    then ``ε_lb = log(lo/(1 − lo))`` (0 if ``lo <= 1/2``). For δ > 0 the (ε, δ) form
    ``e^ε ≥ (CGR − δ/g)/(1 − CGR)`` needs the guessing rate g = guesses/trials; then CGR and g
    each get a one-sided bound at level ``1 − α/2`` (union bound) and g is replaced by its
    lower bound (the bound increases in g). ``trials=None`` means the attacker never
    abstains (g = 1, no second bound).

    ``001`` reports two-sided 95 % intervals; their lower end is this bound at
    ``confidence=0.975``. Holding for DP means: *if* the mechanism were ε-DP with a smaller ε,
    this outcome would have had probability below ``1 − confidence``. It applies to the MIP
    game too (random halves, k = n/2): Lemma 12's matching pairs each in-training set with an
    adjacent out-training set, and Theorem B.1's mediant argument runs over those pairs.

    Parameters
    ----------
    correct : ``0 <= correct <= guesses``. guesses : ``>= 1`` (non-abstaining trials).
    confidence : ``0 < confidence < 1``. delta : ``0 <= delta < 1``.
    trials : None or ``>= guesses`` (all trials, including abstentions).
    """
    kk, mm = _check_counts("correct", correct, "guesses", guesses)
    conf = _check_conf(confidence)
    dlt = check_range("delta", delta, 0.0, 1.0, hi_open=True)
    alpha = 1.0 - conf
    if trials is None:
        lo = _cp_lower(kk, mm, alpha)
        eps = epsilon_from_cgr(np.clip(lo, 0, 1), dlt, 1.0)
    else:
        mm2, tt = _check_counts("guesses", guesses, "trials", trials)
        lo = _cp_lower(kk, mm, alpha / 2)
        g_lo = _cp_lower(mm2, tt, alpha / 2)
        eps = epsilon_from_cgr(np.clip(lo, 0, 1), dlt, np.maximum(g_lo, 1e-300))
    return scalar_or_array(eps, correct, guesses, confidence, delta)


def max_certifiable_epsilon(trials, confidence=0.95):
    """The largest ε that ``trials`` guesses can ever certify: :func:`epsilon_lower_bound` with all correct.

    ``lo = (1 − confidence)^(1/N)``, ``ε = log(lo/(1 − lo)) ≈ log(N / log(1/(1−confidence)))``:
    an audit with N trials cannot show more than this, however leaky the mechanism.
    """
    return epsilon_lower_bound(trials, trials, confidence)


def eta_estimate(correct, guesses, trials):
    r"""Point estimate of the MIP advantage, abstentions counted as coin flips.

    ``η̂ = g (CGR − 1/2) = (correct − wrong)/(2 trials)`` with ``g = guesses/trials``: the
    accuracy of the attacker that flips a fair coin whenever it would abstain, minus 1/2.
    """
    kk, mm = _check_counts("correct", correct, "guesses", guesses, n_min=0)
    _, tt = _check_counts("guesses", guesses, "trials", trials)
    return scalar_or_array((2.0 * kk - mm) / (2.0 * tt), correct, guesses, trials)


def eta_lower_bound(correct, guesses, trials=None, confidence=0.95):
    r"""Lower confidence bound on the MIP level η from an audit (Definition 1 of ``000``).

    Every attacker's accuracy is at most ``1/2 + η`` (k = n/2), and an abstaining attacker
    becomes a proper one by flipping a coin, so ``η ≥ g (CGR − 1/2)``. With one-sided
    Clopper–Pearson bounds on CGR (``correct`` of ``guesses``) and on g (``guesses`` of
    ``trials``), each at level ``1 − α/2`` (union bound), ``η ≥ g_lo (CGR_lo − 1/2)`` when
    ``CGR_lo > 1/2`` and ``η ≥ 0`` otherwise, with probability at least ``confidence``.
    ``trials=None``: no abstentions (g = 1), the whole α goes to CGR.

    Parameters
    ----------
    correct, guesses, trials : counts, ``0 <= correct <= guesses <= trials``, ``guesses >= 1``.
    confidence : ``0 < confidence < 1``.
    """
    kk, mm = _check_counts("correct", correct, "guesses", guesses)
    conf = _check_conf(confidence)
    alpha = 1.0 - conf
    if trials is None:
        eta = np.maximum(_cp_lower(kk, mm, alpha) - 0.5, 0.0)
    else:
        mm2, tt = _check_counts("guesses", guesses, "trials", trials)
        cgr_lo = _cp_lower(kk, mm, alpha / 2)
        g_lo = _cp_lower(mm2, tt, alpha / 2)
        eta = np.where(cgr_lo > 0.5, g_lo * (cgr_lo - 0.5), 0.0)
    return scalar_or_array(eta, correct, guesses, confidence)


def roc_points(scores, labels):
    """ROC curve of the rule "say in when score >= t" over all thresholds t.

    ``scores`` may contain ``±inf``; ``labels`` are booleans (True = member). Returns
    ``(fpr, tpr)`` arrays from (0, 0) to (1, 1), one point per distinct score.
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels, dtype=bool).ravel()
    if s.shape != y.shape or s.size == 0:
        raise ValueError(
            f"scores ({s.shape}) and labels ({y.shape}) must be non-empty and equally long"
        )
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        raise ValueError("labels must contain both members and non-members")
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    tp = np.cumsum(y)
    fp = np.cumsum(~y)
    last = np.r_[s[1:] != s[:-1], True]  # last index of each distinct score
    return np.r_[0.0, fp[last] / neg], np.r_[0.0, tp[last] / pos]


# --------------------------------------------------------------------------- canary audit

AUDIT_NOISES = ("none", "laplace", "gaussian", "mip")
AUDIT_MECHANISMS = ("mean", "count", "covariance")
AUDIT_ATTACKERS = ("lr", "distance")
#: GD settings of the covariance release (the defaults of the Figure 2 experiment,
#: :class:`mipcore.covariance.ExperimentConfig`): ``A_T = (1 − (1 − 2 lr)^T) S``.
COVARIANCE_AUDIT_T = 20
COVARIANCE_AUDIT_LR = 0.25
#: Monte Carlo samples for the exact-accuracy estimate of a d > 1 noisy release.
AUDIT_MC_SAMPLES = 200_000


@dataclass(frozen=True)
class CanaryAudit:
    """Outcome of :func:`run_canary_audit`.

    Counts: ``trials``, ``guesses`` (non-abstaining), ``correct``, ``abstentions``.
    ``cgr = correct/guesses``; ``eta_hat`` (abstentions as coin flips) and its lower bound
    ``eta_lower``; ``epsilon_lower`` (Theorem B.1 of ``001``, one-sided at ``confidence``).
    ``exact_accuracy``/``exact_eta``: Proposition 2 for the same mechanism (the likelihood-ratio
    attacker is that optimal one, so ``1/2 + eta_hat`` estimates ``exact_accuracy``);
    ``exact_interval`` an interval that contains the true optimal accuracy and ``exact_method``
    how it was obtained: ``"exact"`` (closed form / exact counts; interval = ± the rounding
    bound), ``"certified"`` (Gaussian root isolation, ± the certified error bound) or
    ``"monte carlo"`` (d > 1 outputs with noise: an estimate with a 99 % interval, see
    :func:`optimal_attack_accuracy_mc`).
    All three are None when ``exact=False`` was passed.
    ``fpr``/``tpr``: the ROC of the attacker's score over the trials.
    ``noise``: the noise law used (for ``"mip"``, Theorem 9 noise with the exact σ's).
    ``sensitivity``/``sensitivity_l2``: the mechanism's replace-one L1 / L2 sensitivity on
    this dataset (equal for scalar outputs): ``max_{i,j} ||v_i − v_j|| / k`` where ``v_i`` is
    record i's contribution (the value for the mean, ``(1 − (1−2lr)^T) vec(x xᵀ)`` for the
    covariance); 1 for the count.
    ``sigma``: the exact standard deviation of the output over all halves -- a float for the
    scalar mechanisms, a tuple (one per released coordinate) for the covariance.
    ``output_dim``: the number of released coordinates (1, or d² for the covariance).
    ``mechanism``/``attacker``/``threshold``: as passed (``threshold`` is None unless count).
    """

    trials: int
    guesses: int
    correct: int
    abstentions: int
    cgr: float | None  # None when the attacker abstained on every trial
    eta_hat: float
    eta_lower: float
    epsilon_lower: float
    exact_accuracy: float | None
    exact_eta: float | None
    confidence: float
    noise: NoiseLaw
    sensitivity: float
    sigma: float | tuple[float, ...]
    data: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    fpr: np.ndarray = field(repr=False)
    tpr: np.ndarray = field(repr=False)
    mechanism: str = "mean"
    attacker: str = "lr"
    threshold: float | None = None
    sensitivity_l2: float = 0.0
    output_dim: int = 1
    exact_interval: tuple[float, float] | None = None
    exact_method: str | None = None


def _log_kernel(y: np.ndarray, atoms: np.ndarray, law: NoiseLaw) -> np.ndarray:
    """``log f(y_t − atoms_a)`` up to f's normalising constant: shape (T, A) from y (T, d), atoms (A, d).

    Summed one coordinate at a time (d contiguous (T, A) passes: 2-3× faster than
    reducing a (T, A, d) difference over its short last axis).
    """
    if law.kind == "theorem9" and law.M != 2.0:
        from .mechanism import sigma_norm

        diff = y[:, None, :] - atoms[None, :, :]
        return -sigma_norm(diff, np.asarray(law.sigma), law.M) / law.scale
    acc = np.zeros((y.shape[0], atoms.shape[0]))
    for j in range(y.shape[1]):
        dj = y[:, j, None] - atoms[None, :, j]
        if law.kind == "laplace":
            acc += np.abs(dj)
        elif law.kind == "gaussian":
            acc += dj * dj
        else:  # theorem9, M = 2: ||x||_{σ,2} = sqrt(mean((x/σ)²))
            dj /= law.sigma[j]
            acc += dj * dj
    if law.kind == "laplace":
        return -acc / law.scale
    if law.kind == "gaussian":
        return -0.5 * acc / law.scale**2
    return -np.sqrt(acc / y.shape[1]) / law.scale


def _log_mixture(y: np.ndarray, atoms: np.ndarray, counts: np.ndarray, law: NoiseLaw) -> np.ndarray:
    """``log Σ_j counts_j f(y − atoms_j)`` up to the constant of f (the same for in and out).

    ``y``: (T,) with ``atoms`` (A,) for scalar outputs, or (T, d) with ``atoms`` (A, d).
    Log-sum-exp by the row maximum (finite: every kernel value is finite), in chunks of
    about 2·10^6 kernel values.
    """
    y2 = y[:, None] if y.ndim == 1 else y
    a2 = atoms[:, None] if atoms.ndim == 1 else atoms
    w = np.asarray(counts, dtype=float)
    out = np.empty(y2.shape[0])
    step = max(1, 2_000_000 // max(1, a2.shape[0]))
    for i in range(0, y2.shape[0], step):
        e = _log_kernel(y2[i : i + step], a2, law)
        m = np.max(e, axis=1)
        out[i : i + step] = np.log(np.exp(e - m[:, None]) @ w) + m
    return out


def _lr_scores(
    y: np.ndarray,
    outputs: np.ndarray,
    member: np.ndarray,
    law: NoiseLaw,
    pick: np.ndarray | None = None,
) -> np.ndarray:
    """Posterior log-odds of membership over all halves (the Proposition 2 attacker).

    Scalar outputs: ``y`` (T,), ``outputs`` (H,). d-dimensional: ``y`` (T, d), ``outputs``
    (H, d); without noise these need ``pick`` (the half of each trial), since then
    ``y = outputs[pick]`` exactly and the log-odds is a function of the released atom.
    """
    trials = y.shape[0]
    if outputs.ndim == 2:
        if law.is_none:
            vals, inv = np.unique(outputs, axis=0, return_inverse=True)
            inv = inv.reshape(-1)
            c_in = np.bincount(inv[member], minlength=vals.shape[0]).astype(float)
            c_out = np.bincount(inv[~member], minlength=vals.shape[0]).astype(float)
            with np.errstate(divide="ignore"):
                atom_score = np.log(c_in) - np.log(c_out)
            return atom_score[inv[pick]]
        vin, cin = np.unique(outputs[member], axis=0, return_counts=True)
        vout, cout = np.unique(outputs[~member], axis=0, return_counts=True)
        return _log_mixture(y, vin, cin.astype(float), law) - _log_mixture(
            y, vout, cout.astype(float), law
        )
    vin, cin = np.unique(outputs[member], return_counts=True)
    vout, cout = np.unique(outputs[~member], return_counts=True)
    if law.is_none:
        n_in = np.zeros(trials)
        n_out = np.zeros(trials)
        pos_in = np.searchsorted(vin, y).clip(0, vin.size - 1)
        hit_in = vin[pos_in] == y
        n_in[hit_in] = cin[pos_in[hit_in]]
        pos_out = np.searchsorted(vout, y).clip(0, vout.size - 1)
        hit_out = vout[pos_out] == y
        n_out[hit_out] = cout[pos_out[hit_out]]
        with np.errstate(divide="ignore"):
            scores = np.log(n_in) - np.log(n_out)  # ±inf where only one side can produce y
    else:
        scores = _log_mixture(y, vin, cin.astype(float), law) - _log_mixture(
            y, vout, cout.astype(float), law
        )
    return scores


def covariance_audit_records(n: int = 8, dim: int = 2, canary=3.0, data=None) -> np.ndarray:
    r"""The dataset of the covariance audit: n − 1 ordinary records in R^dim plus the canary.

    Ordinary records: ``data`` (shape (n − 1, dim)) or, by default, n − 1 draws from
    ``N(0, Σ)`` with ``Σ = make_spd_matrix(dim, random_state=0)`` (seed 0: the same dataset
    every time, like the mean's ``linspace``). The canary is the last row: ``canary`` itself
    if it is a vector of length dim, or, for a scalar c, ``c u`` with u the unit direction
    in which the ordinary records vary least (the eigenvector of the smallest eigenvalue of
    their second-moment matrix, first non-zero entry made positive) -- an outlier whose
    outer product stands out in the released matrix.
    """
    from .covariance import make_sigma, sample_data

    n = check_int("n", n, 4, 16, even=True)
    dim = check_int("dim", dim, 1, 4)
    if data is None:
        base = sample_data(make_sigma(dim, 0), n - 1, rng=0)
    else:
        base = np.asarray(
            check_range("data", data, -math.inf, math.inf, lo_open=True, hi_open=True), dtype=float
        )
        if base.ndim == 1 and dim == 1:
            base = base[:, None]
        if base.shape != (n - 1, dim):
            raise ValueError(
                f"data has shape {base.shape} but n={n}, dim={dim} needs "
                f"(n - 1, dim) = ({n - 1}, {dim}) ordinary records"
            )
    c = np.asarray(
        check_range("canary", canary, -math.inf, math.inf, lo_open=True, hi_open=True), dtype=float
    )
    if c.ndim == 0:
        _, vecs = np.linalg.eigh(base.T @ base / base.shape[0])
        u = vecs[:, 0]
        u = u * np.sign(u[np.flatnonzero(u)[0]])
        c = float(c) * u
    elif c.shape != (dim,):
        raise ValueError(
            f"canary has shape {c.shape}; the covariance audit needs a scalar or {dim} values"
        )
    return np.vstack([base, c[None, :]])


def _pair_sensitivity(v: np.ndarray, k: int) -> tuple[float, float]:
    """``max_{i,j} ||v_i − v_j||_1 / k`` and the L2 version: replacing record i by record j."""
    v2 = v[:, None] if v.ndim == 1 else v
    diff = v2[:, None, :] - v2[None, :, :]
    return (
        float(np.max(np.sum(np.abs(diff), axis=-1)) / k),
        float(np.max(np.sqrt(np.sum(diff * diff, axis=-1))) / k),
    )


def run_canary_audit(
    trials: int = 10_000,
    *,
    n: int = 8,
    canary=None,
    noise: str = "laplace",
    noise_scale=1.0,
    epsilon=None,
    eta=None,
    margin=0.0,
    confidence=0.95,
    data=None,
    mechanism: str = "mean",
    threshold=0.5,
    attacker: str = "lr",
    dim: int = 2,
    exact: bool = True,
    exact_samples: int = AUDIT_MC_SAMPLES,
    rng,
) -> CanaryAudit:
    r"""Audit a mechanism with a planted canary in the MIP game.

    The dataset is ``data`` (n − 1 ordinary records) plus a planted outlier, the canary (the
    target x*). Each trial draws a uniformly random half ``D_train`` (k = n/2, Definition 1
    of ``000``) and releases ``f(D_train) + Z`` with

    * ``mechanism="mean"``: ``f`` = the mean of the half; records default to
      ``linspace(0, 1, n−1)`` plus the canary (default 10);
    * ``mechanism="count"``: ``f`` = the number of records of the half whose value exceeds
      ``threshold`` (replace-one sensitivity 1); same default records;
    * ``mechanism="covariance"``: the release of the Figure 2 experiment (issue 3) on a tiny
      dataset -- records in R^dim (:func:`covariance_audit_records`; canary default 3, along
      the ordinary records' least-variance direction), ``f`` = the d² entries of gradient
      descent's estimate ``A_T = (1 − (1 − 2 lr)^T) S`` of the second-moment matrix
      ``S = (1/k) Σ_{x∈D_train} x xᵀ`` (T = 20, lr = 0.25), noise added to all d² entries as
      the Figure 2 experiment does.

    Noise: ``"none"``; ``"laplace"`` / ``"gaussian"`` with scale ``noise_scale`` per
    coordinate, or -- when ``epsilon`` is given -- calibrated to this dataset's replace-one
    sensitivity: ``Laplace(Δ₁/ε)`` (ε-DP) or ``N(0, (Δ₂/ε)²)`` (ε-Gaussian-DP), with Δ₁/Δ₂ the
    L1/L2 sensitivities (equal for scalar outputs); ``"mip"``: Theorem 9 / Corollary 14 noise
    for ``eta`` with the exact per-coordinate standard deviations σ of ``f`` over all C(n, k)
    halves (M = 2; in 1-D that is ``Laplace(c σ)``, in d > 1 the density ``∝ exp(−||x||_{σ,2}/c)``).

    The attacker then says whether the canary was in:

    * ``attacker="lr"``: the likelihood-ratio attacker (it knows the dataset and the noise
      law, i.e. the optimal attacker of Proposition 2); its score is the posterior log-odds ℓ
      over all halves.
    * ``attacker="distance"``: a simple, *not optimal* attacker whose score is
      ``||y − m_out|| − ||y − m_in||`` (Euclidean), with ``m_in`` / ``m_out`` the mean output
      over the halves that contain / do not contain the canary. Being one particular
      attacker, its accuracy is still bounded by the exact Proposition 2 accuracy.

    Either way it says "in" if ``score > margin``, "out" if ``score < −margin`` and abstains
    otherwise. ``exact_accuracy``/``exact_eta`` are always those of the optimal attacker:
    exact for scalar outputs and for the noiseless covariance, a Monte Carlo estimate with a
    99 % interval (``exact_samples`` draws, its own fixed seed, so it does not
    depend on ``rng``) for the noisy covariance.

    Parameters
    ----------
    trials : ``100 <= trials <= 10^7``.
    n : even, ``4 <= n <= 16`` (the attacker enumerates the halves).
    canary : the planted record (finite): a value for mean/count (default 10), a scalar or
        ``dim`` values for the covariance (default 3; see :func:`covariance_audit_records`).
    noise : ``"none"``, ``"laplace"``, ``"gaussian"`` or ``"mip"``.
    noise_scale : ``> 0`` for Laplace/Gaussian when ``epsilon`` is None (ignored otherwise).
    epsilon : ``> 0``: calibrate Laplace/Gaussian to Δ/ε as above (ignored for none/mip).
    eta : ``0 < eta <= 1/2``, only for ``"mip"``.
    margin : ``>= 0``, abstention margin on the score (0: abstain only on exact ties).
    confidence : ``0 < confidence < 1`` for the lower bounds.
    data : optional ordinary records: n − 1 values (mean/count) or an (n − 1, dim) array.
    mechanism : ``"mean"`` (default), ``"count"`` or ``"covariance"``.
    threshold : finite; only for ``"count"`` (a record counts when its value is ``> threshold``).
    attacker : ``"lr"`` (default, optimal) or ``"distance"`` (not optimal).
    dim : ``1 <= dim <= 4``, the records' dimension; only for ``"covariance"``.
    exact : compute the Proposition 2 accuracy (set False to skip it, e.g. for the later
        chunks of one long game; the ``exact_*`` fields are then None).
    exact_samples : ``1000 <= exact_samples <= 10^8``, Monte Carlo draws for d > 1 with noise.
    rng : Generator or int seed.

    Returns
    -------
    CanaryAudit
    """
    trials = check_int("trials", trials, 100, 10**7)
    n = check_int("n", n, 4, 16, even=True)
    if noise not in AUDIT_NOISES:
        raise ValueError(f"noise={noise!r} is not one of {AUDIT_NOISES}")
    if mechanism not in AUDIT_MECHANISMS:
        raise ValueError(f"mechanism={mechanism!r} is not one of {AUDIT_MECHANISMS}")
    if attacker not in AUDIT_ATTACKERS:
        raise ValueError(f"attacker={attacker!r} is not one of {AUDIT_ATTACKERS}")
    if mechanism == "count":
        threshold = float(
            check_range("threshold", threshold, -math.inf, math.inf, lo_open=True, hi_open=True)
        )
    else:
        threshold = None
    margin = float(check_range("margin", margin, 0.0, math.inf, hi_open=True))
    conf = float(_check_conf(confidence))
    exact_samples = check_int("exact_samples", exact_samples, 1000, 10**8)
    gen = as_generator(rng)
    k = n // 2
    if mechanism == "covariance":
        dim = check_int("dim", dim, 1, 4)
        records = covariance_audit_records(n, dim, 3.0 if canary is None else canary, data)
        from .covariance import gd_closed_form, outer_products

        # each record's share of A_T = (1 − (1 − 2 lr)^T) S, the base algorithm of Figure 2
        contrib = gd_closed_form(outer_products(records), COVARIANCE_AUDIT_T, COVARIANCE_AUDIT_LR)
    else:
        canary = 10.0 if canary is None else canary
        canary = float(
            check_range("canary", canary, -math.inf, math.inf, lo_open=True, hi_open=True)
        )
        if data is None:
            base = np.linspace(0.0, 1.0, n - 1)
        else:
            base = np.asarray(
                check_range("data", data, -math.inf, math.inf, lo_open=True, hi_open=True),
                dtype=float,
            ).ravel()
            if base.size != n - 1:
                raise ValueError(
                    f"data has {base.size} values but n={n} needs n - 1 = {n - 1} ordinary records"
                )
        records = np.append(base, canary)
        contrib = (records > threshold).astype(float) if mechanism == "count" else records
    combos = np.array(list(itertools.combinations(range(n), k)))
    if mechanism == "count":
        outputs = contrib[combos].sum(axis=1)
        sens1 = sens2 = 1.0
    else:
        outputs = contrib[combos].sum(axis=1) / k
        sens1, sens2 = _pair_sensitivity(contrib, k)
    if (
        outputs.ndim == 2 and outputs.shape[1] == 1
    ):  # the covariance of 1-D records is a scalar release
        outputs = outputs[:, 0]
    out_dim = 1 if outputs.ndim == 1 else outputs.shape[1]
    member = np.any(combos == n - 1, axis=1)
    sig = np.std(outputs, axis=0)
    sigma = float(sig) if out_dim == 1 else tuple(float(s) for s in sig)
    if noise == "none":
        law = NoiseLaw.none()
    elif noise == "mip":
        if eta is None:
            raise ValueError("noise='mip' needs eta (0 < eta <= 1/2)")
        law = NoiseLaw.mip(eta, np.where(np.atleast_1d(sig) > 0, sig, 1e-300))
    else:
        if epsilon is not None:
            eps = float(check_range("epsilon", epsilon, 0.0, math.inf, lo_open=True, hi_open=True))
            scale = (sens1 if noise == "laplace" else sens2) / eps
            if scale == 0.0:
                raise ValueError(
                    f"the {mechanism} has sensitivity 0 on this dataset: nothing to calibrate "
                    "the noise to (use noise_scale)"
                )
        else:
            scale = float(
                check_range("noise_scale", noise_scale, 0.0, math.inf, lo_open=True, hi_open=True)
            )
        law = NoiseLaw(noise, scale)
    exact_acc = exact_eta = exact_iv = method = None
    if exact:
        if out_dim == 1 or law.is_none:
            ex = optimal_attack(outputs[member], outputs[~member], law)
            exact_acc, exact_eta = ex.accuracy, ex.eta
            exact_iv = (
                max(0.5, ex.accuracy - ex.error_bound),
                min(1.0, ex.accuracy + ex.error_bound),
            )
            method = "certified" if law.kind == "gaussian" else "exact"
        else:
            exact_acc, lo, hi = optimal_attack_accuracy_mc(
                outputs[member],
                outputs[~member],
                law,
                samples=exact_samples,
                rng=np.random.default_rng([20240501, n, out_dim]),
                confidence=0.99,
            )
            exact_eta, exact_iv, method = exact_acc - 0.5, (lo, hi), "monte carlo"
    pick = gen.integers(outputs.shape[0], size=trials)
    labels = member[pick]
    y = outputs[pick] + (
        law.sample(trials, gen) if out_dim == 1 else law.sample_nd(trials, out_dim, gen)
    )
    if attacker == "distance":
        # not optimal: ||y − m_out|| − ||y − m_in||, m_in / m_out = mean output over halves with / without x*
        m_in, m_out = np.mean(outputs[member], axis=0), np.mean(outputs[~member], axis=0)
        if out_dim == 1:
            scores = np.abs(y - float(m_out)) - np.abs(y - float(m_in))
        else:
            scores = np.linalg.norm(y - m_out, axis=1) - np.linalg.norm(y - m_in, axis=1)
    else:
        scores = _lr_scores(y, outputs, member, law, pick)
    guess_in = scores > margin
    guess_out = scores < -margin
    guessed = guess_in | guess_out
    correct = int(np.sum((guess_in & labels) | (guess_out & ~labels)))
    guesses = int(np.sum(guessed))
    fpr, tpr = (
        roc_points(scores, labels) if 0 < labels.sum() < trials else (np.array([0.0, 1.0]),) * 2
    )
    if guesses > 0:
        eps_lb = float(epsilon_lower_bound(correct, guesses, conf))
        eta_lb = float(eta_lower_bound(correct, guesses, trials, conf))
        cgr = correct / guesses
    else:
        eps_lb = eta_lb = 0.0
        cgr = None
    return CanaryAudit(
        trials=trials,
        guesses=guesses,
        correct=correct,
        abstentions=trials - guesses,
        cgr=cgr,
        eta_hat=(2 * correct - guesses) / (2 * trials),
        eta_lower=eta_lb,
        epsilon_lower=eps_lb,
        exact_accuracy=exact_acc,
        exact_eta=exact_eta,
        confidence=conf,
        noise=law,
        sensitivity=sens1,
        sigma=sigma,
        data=records,
        scores=scores,
        labels=labels,
        fpr=fpr,
        tpr=tpr,
        mechanism=mechanism,
        attacker=attacker,
        threshold=threshold,
        sensitivity_l2=sens2,
        output_dim=out_dim,
        exact_interval=exact_iv,
        exact_method=method,
    )
