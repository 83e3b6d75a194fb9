r"""The optimal membership attacker (Proposition 2), computed exactly.

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582: Definition 1 (η-MIP) and Proposition 2 (the optimal attacker).

**Proposition 2.** Fix a target record x* and let ``π = P(x* ∈ D_train) = k/n``. Write
``p_in``/``p_out`` for the density of the released value given ``x* ∈ D_train`` /
``x* ∉ D_train``. The best attacker guesses "in" exactly where ``π p_in ≥ (1−π) p_out`` and
its accuracy is

.. math:: \int \max\{\pi p_{in}, (1-\pi)p_{out}\}
          = \frac12 + \frac12\int\lvert \pi p_{in} - (1-\pi) p_{out}\rvert ,

which for k = n/2 (π = 1/2) is the paper's ``∫ max(p_in, p_out)/2``. ``η`` for that target
is the accuracy minus ``max(π, 1−π)`` (Definition 1). For a base algorithm 𝒜 plus
additive noise with density f, ``p_in(y) = mean_{D ∋ x*} f(y − 𝒜(D))`` -- a finite
mixture, so the integral is computed here **exactly** (Laplace, no noise) or with a
**certified error bound** (Gaussian); see :func:`optimal_attack`. For d-dimensional noisy
releases :func:`optimal_attack_accuracy_mc` gives an estimate with a confidence interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._mixture_integral import _EPS, _abs_integral
from ._validate import as_generator, check_int, check_range, scalar_or_array
from .noise_laws import NoiseKind, NoiseLaw, NoiseSpec, as_noise_law, log_mixture

__all__ = [
    "OptimalAttack",
    "optimal_attack",
    "optimal_attack_accuracy",
    "optimal_attack_accuracy_discrete",
    "optimal_attack_accuracy_mc",
]


@dataclass(frozen=True)
class OptimalAttack:
    """The Proposition 2 attacker against one target record, computed exactly.

    ``accuracy`` = ``∫ max(π p_in, (1−π) p_out)``; ``eta = accuracy − max(π, 1−π)``
    (Definition 1); ``advantage = 2 * accuracy − 1`` (the "membership advantage" of MACE:
    Liu, Xu, Mukherjee, Lavista Ferres, arXiv:2009.05683, Definition 1). ``error_bound``
    bounds ``|accuracy − exact value|`` for the float64 inputs given (see
    :func:`optimal_attack`). ``boundary`` holds the points (1-D, noisy case)
    where the optimal decision switches between "in" and "out"; ``n_atoms`` is the number
    of distinct output values after grouping.
    """

    accuracy: float
    eta: float
    prior: float
    error_bound: float
    boundary: NDArray[np.float64] = field(repr=False)
    n_atoms: int
    noise: NoiseLaw

    @property
    def advantage(self) -> float:
        """``2 accuracy − 1``, the membership advantage."""
        return 2.0 * self.accuracy - 1.0


def _as_outputs(name: str, value: ArrayLike) -> NDArray[np.float64]:
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


def _check_prior(prior: float | None, n_in: int, n_out: int) -> float:
    if prior is None:
        return n_in / (n_in + n_out)
    return float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))


def _group(
    outputs_in: NDArray[np.float64], outputs_out: NDArray[np.float64], prior: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], Fraction | float]:
    """Distinct output values (sorted) and their signed weights ``π c_in/N_in − (1−π) c_out/N_out``."""
    n_in, n_out = outputs_in.shape[0], outputs_out.shape[0]
    both = np.concatenate([outputs_in, outputs_out], axis=0)
    values, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    c_in = np.bincount(inverse[:n_in], minlength=values.shape[0]).astype(float)
    c_out = np.bincount(inverse[n_in:], minlength=values.shape[0]).astype(float)
    w_abs: Fraction | float
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


def optimal_attack(
    outputs_in: ArrayLike,
    outputs_out: ArrayLike,
    noise: NoiseSpec,
    *,
    prior: float | None = None,
) -> OptimalAttack:
    r"""Exact accuracy of the optimal membership attacker (Proposition 2).

    Parameters
    ----------
    outputs_in : array_like
        Shape (N_in,): the base algorithm's output on every training set that contains the
        target x* (one entry per training set; repeats allowed and counted). Shape
        (N_in, d) for d-dimensional outputs (only with ``noise`` none; use
        :func:`optimal_attack_accuracy_mc` for noisy d > 1). Finite values.
    outputs_out : array_like
        Shape (N_out,) or (N_out, d): the same over training sets without x*.
    noise : NoiseLaw, (kind, scale) or None
        The additive noise of the release (see :func:`mipcore.noise_laws.as_noise_law`):
        ``("laplace", b)``, ``("gaussian", std)``, ``None``. Theorem 9 noise in 1-D is
        ``NoiseLaw.mip(eta, sigma)`` = ``Laplace(c σ)``.
    prior : float, optional
        ``0 < prior < 1``, ``P(x* ∈ D_train)``. Default ``N_in/(N_in + N_out)``, which is
        Definition 1's ``k/n`` when the outputs enumerate all k-subsets; it is 1/2 for equal
        groups (k = n/2).

    Returns
    -------
    OptimalAttack
        ``accuracy``, ``eta``, ``error_bound``, the decision ``boundary``.

    Raises
    ------
    ValueError
        If the outputs are empty, non-finite or of different dimensions, the noise is not
        understood, or d > 1 with noise.

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

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Proposition 2.

    Examples
    --------
    >>> a = optimal_attack([1.0], [0.0], ("laplace", 1.0))  # 1/2 + (1 − e^{−1/2})/2
    >>> a.accuracy, a.eta
    (0.696734670144, 0.196734670144)
    >>> a.boundary  # say "in" right of the midpoint
    array([0.5])
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
    total: float
    err: float
    boundary: NDArray[np.float64]
    if law.is_none:
        total, err, boundary = w_abs, 4 * float(_EPS) * w_abs, np.empty(0)
    else:
        law = law.one_dimensional()
        keep = w != 0.0
        x, wk = values[keep], w[keep]
        if x.size == 0:  # p_in = p_out exactly
            total, err, boundary = 0.0, 0.0, np.empty(0)
        else:
            tot, errs, roots = _abs_integral(x, wk[None, :], law, want_roots=True)
            total, err = float(tot[0]), float(errs[0])
            boundary = roots[0] if roots is not None else np.empty(0)
    acc = min(1.0, 0.5 + 0.5 * total)
    return OptimalAttack(
        acc, acc - max(pi, 1.0 - pi), pi, float(err), boundary, int(values.shape[0]), law
    )


def optimal_attack_accuracy(
    outputs_in: ArrayLike,
    outputs_out: ArrayLike,
    noise: NoiseSpec,
    *,
    prior: float | None = None,
) -> float:
    """Accuracy of the optimal attacker, ``∫ max(π p_in, (1−π) p_out)`` (Proposition 2).

    The number :func:`optimal_attack` computes; see there for parameters, the method and the
    error bounds (exact for Laplace and no noise; certified to about 1e-14 for Gaussian).
    For equal groups (k = n/2) this is ``∫ max(p_in, p_out)/2`` and ``η = accuracy − 1/2``.

    Parameters
    ----------
    outputs_in, outputs_out, noise, prior
        As in :func:`optimal_attack`.

    Returns
    -------
    float
        The optimal accuracy, in ``[max(π, 1 − π), 1]``.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Proposition 2.

    Examples
    --------
    Two training sets, outputs 1 (with the target) and 0 (without), Laplace(1) noise:
    ``1/2 + TV/2`` with ``TV = 1 − e^{−1/2}`` -- below Theorem 4's 0.7311 for the ε = 1
    this Laplace mechanism satisfies.

    >>> optimal_attack_accuracy([1.0], [0.0], ("laplace", 1.0))
    0.696734670144
    >>> optimal_attack_accuracy([1.0], [0.0], ("gaussian", 1.0))  # Φ(1/2)
    0.691462461274
    >>> optimal_attack_accuracy([0.0, 1.0], [1.0, 2.0], None)  # no noise: output 1 is a tie
    0.75
    """
    return optimal_attack(outputs_in, outputs_out, noise, prior=prior).accuracy


def optimal_attack_accuracy_discrete(
    p_in: ArrayLike, p_out: ArrayLike, prior: ArrayLike = 0.5
) -> float | NDArray[np.float64]:
    r"""Optimal accuracy for a finite output space: ``Σ_A max(π p_in(A), (1−π) p_out(A))``.

    Proposition 2 with a discrete range.

    Parameters
    ----------
    p_in, p_out : array_like
        Probability vectors over the same outputs along the last axis (leading axes
        broadcast, so many laws are evaluated at once); entries in ``[0, 1]``, each vector
        summing to 1 (to 1e-9).
    prior : float or array_like
        ``0 < prior < 1``.

    Returns
    -------
    float or ndarray
        A float for single vectors and a scalar prior.

    Examples
    --------
    >>> optimal_attack_accuracy_discrete([0.7, 0.3], [0.3, 0.7])  # randomised response
    0.7
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


def optimal_attack_accuracy_mc(
    outputs_in: ArrayLike,
    outputs_out: ArrayLike,
    noise: NoiseSpec,
    *,
    samples: int = 200_000,
    rng: np.random.Generator | int,
    prior: float | None = None,
    confidence: float = 0.99,
) -> tuple[float, float, float]:
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
    (estimate, lower, upper) : tuple of float
        The accuracy and an interval at ``confidence`` (see above).

    References
    ----------
    Maurer, Pontil. *Empirical Bernstein Bounds and Sample Variance Penalization*. COLT 2009,
    arXiv:0907.3740, Theorem 4.

    Examples
    --------
    >>> est, lo, hi = optimal_attack_accuracy_mc([1.0], [0.0], ("laplace", 1.0), rng=0)
    >>> lo <= 0.6967346701436833 <= hi  # the exact value (see optimal_attack_accuracy)
    True
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
    if law.kind is NoiseKind.MIP and len(law.sigma) != d:
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

    def log_mix(atoms: NDArray[np.float64]) -> NDArray[np.float64]:
        vals, counts = np.unique(atoms, axis=0, return_counts=True)
        return log_mixture(y, vals, counts.astype(float), law) - math.log(atoms.shape[0])

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
