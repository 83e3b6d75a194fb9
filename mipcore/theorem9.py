r"""Theorem 9 in d dimensions: what its noise certifies, with proofs that hold in every dimension.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582:
Theorem 9, Corollary 10, Corollary 14 and the proof of Theorem 9 in Appendix D.

Summary
-------
* :func:`certified_eta` (the certificate the app uses): noise ``∝ exp(−||x||/(cσ))`` makes any
  algorithm whose output satisfies Theorem 9's moment condition ``((1 − e^{−1/c})/2)``-MIP, in
  every dimension, for every norm and every ``M >= 1`` (steps T1-T4 below). It is tight: a
  two-point mechanism attains it exactly, so no bound of the form f(c) is smaller.
  :func:`required_noise_multiplier` inverts it: ``c = −1/ln(1 − 2η)``, about 4.48 for
  η = 0.1 -- the paper's Corollary 14 prescribes ``(6.16/η)^{1+2/M}`` (3795 for η = 0.1,
  M = 2), which is therefore certified in every dimension too, with a very large margin.
  (This module first certified ``½ tanh(1/c)``, from a per-pair bound that was not the best
  available; see T1 and the README's notes on the paper.)
* :func:`chain_certified_eta`: the paper's own proof (Appendix D) redone in d dimensions.
  Its printed version is only valid for d = 1 (it uses a one-dimensional tail, S7); with the
  correct Gamma(d) tail it remains a valid but much weaker certificate, kept because it
  shows how the paper's argument works and where it loses.

The dimension-free certificate
------------------------------
Fix the target x*; with k = n/2 it is in the training half with probability ½. Let P_in and
P_out be the laws of θ = 𝒜(D_train) given "in" and "out"; their even mixture is the law of
θ, whose mean μ satisfies ``E||θ − μ||^M <= σ^M`` (Theorem 9's hypothesis). The release is
``θ + X``; write K_a for the law of ``a + X``.

(T1) *Per pair, through the midpoint.* With ``m = (a + b)/2`` the triangle inequality gives
``||y − a|| <= ||y − m|| + ||a − b||/2``, so ``K_a(y) >= e^{−||a − b||/(2cσ)} K_m(y)``, and
the same for ``K_b``. Hence ``min(K_a, K_b) >= e^{−||a − b||/(2cσ)} K_m`` pointwise, and
``TV(K_a, K_b) = 1 − ∫ min(K_a, K_b) <= 1 − e^{−||a − b||/(2cσ)}``, in every norm and
dimension. (Bounding the likelihood ratio ``K_a/K_b`` by ``e^{±||a − b||/(cσ)}`` and using
the ε-DP region instead gives ``tanh(||a − b||/(2cσ))``, which is larger: the ratio cannot
be extreme everywhere at once, and the midpoint argument uses that.)

(T2) *Mixtures.* Total variation is jointly convex, so with X ~ P_in and Y ~ P_out
independent, ``TV(P_in * K, P_out * K) <= E TV(K_X, K_Y) <= E[1 − e^{−||X − Y||/(2cσ)}]
<= 1 − e^{−E||X − Y||/(2cσ)}`` (``1 − e^{−x}`` is concave).

(T3) *Moments.* ``E||X − Y|| <= E||X − μ|| + E||Y − μ|| = 2 E||θ − μ|| <= 2σ`` (the mixture
is even; Lyapunov's inequality for M >= 1).

(T4) *MIP.* By Proposition 2 the best attacker's accuracy is ``½ + ½ TV(P_in * K, P_out * K)``,
so ``η <= (1 − e^{−1/c})/2``. Tightness: θ = ±σ (in/out) with d = 1 and Laplace(cσ) noise has
exact ``η = (1 − e^{−1/c})/2`` (the tests compute it with the exact optimal attacker), so no
bound of the form f(c) is smaller. Only the density's form ``∝ exp(−||x||/(cσ))`` is used: this covers the
Gamma-radius sampler of Corollary 10 in any dimension, and not the printed Laplace radius
for d >= 2 (whose density is ``∝ e^{−||x||/c}/||x||^{d−1}``, with unbounded likelihood
ratios), for which nothing is certified here.

Why the paper's chain needed a closer look
------------------------------------------
Theorem 9 adds noise X with density ``∝ exp(−||x||/(cσ))`` in R^d. Its printed proof bounds
``P(||X|| > t)`` by ``½ e^{−t/(cσ)}``, a tail of the *one-dimensional* Laplace law. In d
dimensions ``||X||/(cσ)`` is Gamma(d, 1) for every norm (step S7), whose tail
``e^{−y} Σ_{j<d} y^j/j!`` is far heavier for d >= 2. Below, the chain of Appendix D is
redone step by step with that tail; :func:`chain_eta` evaluates every step at given
constants and :func:`chain_certified_eta` returns the best level over the constants.

What is evaluated, and how it relates to the printed chain. Every *inequality* below is one
the paper uses (the same decomposition, the same counting, the same events). What is not
copied are the relaxations the paper applies afterwards only to print a closed form: the
linearisations (``e^x <= 1 + 2x``, ``1/(1+x) >= 1 − x``, ``(1−x)(1−y) >= 1 − x − y``), the
weakening ``1/(2 − Δ) <= ½ + Δ/2`` of S6, ``P(good) <= 1`` in S9 and the double charge of one
event in (12) (see S9). Each unrelaxed expression is at most its relaxed form, so at d = 1
the printed bounds are upper bounds on ours (S10).

Setting and notation
--------------------
n records, the training set ``D_train`` a uniform half (k = n/2; Definition 1 needs the prior
1/2). Fix the target x*. The halves containing x* are ``D_1..D_N`` with outputs
``a_i = 𝒜(D_i)``; those not containing it ``D'_1..D'_N`` with outputs ``b_j`` (both
families have ``N = C(n−1, k−1)`` members). The output θ of a uniform half is uniform on the
2N atoms; translating, ``E θ = 0``. The moment bound is
``(1/2N)(Σ_i ||a_i||^M + Σ_j ||b_j||^M) <= σ^M``. The release is ``θ̂ = θ + X``, X with
density ``K exp(−||x||/(cσ))``, independent of θ. (A randomised 𝒜 replaces the sums over
atoms by integrals over (D, internal randomness); nothing below changes.) For Corollary 10's
norm ``||x||_{σ,M} = (Σ_i |x_i|^M/(d σ_i^M))^{1/M}`` one has σ = 1; it is a norm, as the
triangle inequality below needs, exactly when M >= 1. All radii are in units of σ and c is
the *noise multiplier* (``mipcore.noise.mip_noise_multiplier`` calls it c as well).

Free constants: the inner radius ``r = c^α σ``, the outer radius ``R = γ σ c log c`` and
the split radius ``τ = c^β σ``. The paper fixes β = 1 (it writes ``||𝒜(D)|| <= cσ``);
Theorem 9 takes α = 2/(M+2), γ = M/(M+2); Corollary 14 takes M = 2, α = γ = ½.

The proof, step by step
-----------------------
(S1) *Posterior.* With prior ½ and N halves on each side,
``P(x* ∈ D_train | θ̂) = F/(1 + F)`` where
``F(θ̂) = Σ_i e^{−||θ̂ − a_i||/(cσ)} / Σ_j e^{−||θ̂ − b_j||/(cσ)}`` (K cancels). By
Proposition 2 the best attacker's accuracy is ``E max{F, 1}/(1 + F)`` over θ̂.

(S2) *Counting (Markov / the paper's Lemma 13).* For s > 0, the number of atoms (of all
2N) with norm ``>= s`` is at most ``2N σ^M / s^M``. Hence the share of in-atoms, and
likewise of out-atoms, with norm ``> s`` (or ``>= s``) is at most ``min(1, 2 (σ/s)^M)``.
At s = r: ``q = min(1, 2 c^{−Mα})``. (Lemma 13's hypothesis prints
``E||X − EX||^2 <= σ^k``; its proof uses the k-th moment, ``E||X − EX||^k <= σ^k``.)

(S3) *Inner ball, ||θ̂|| <= r.* Dropping the in-atoms with ``||a_i|| > r`` (terms >= 0)
and using ``||θ̂ − a_i|| <= ||θ̂|| + ||a_i|| <= 2r``, the numerator of F is at least
``(1 − q) N e^{−2r/(cσ)}``; every denominator term is at most 1, so the denominator is at
most N. Hence ``F >= L1 = (1 − q) e^{−2 c^{α−1}}``. (Paper, equation (10), before it
linearises to ``1 − 4c^{−min(Mα, 1−α)}``.)

(S4) *Annulus, r < ||θ̂|| = s <= R.* Numerator as in S3:
``>= (1 − q) N e^{−s/(cσ)} e^{−r/(cσ)}``. Denominator: by the reverse triangle inequality
``||θ̂ − b|| >= | s − ||b|| |``; split the out-atoms into

* G1, ``||b|| <= r``: each term ``<= e^{−(s − ||b||)/(cσ)} <= e^{−s/(cσ)} e^{r/(cσ)}``, at
  most N atoms;
* G2, ``r < ||b|| < s``: each term ``<= 1 = e^{−s/(cσ)} e^{s/(cσ)}``, at most qN atoms (S2 at r);
* G3, ``||b|| >= s``: each term ``<= 1``, at most ``min(N, 2N(σ/s)^M) <= qN`` atoms (S2 at s).

So the denominator is at most ``N e^{−s/(cσ)} (e^{r/(cσ)} + 2q e^{s/(cσ)})`` and, as
``s <= R`` gives ``e^{s/(cσ)} <= e^{γ log c} = c^γ``,
``F >= L2 = (1 − q) e^{−c^{α−1}} / (e^{c^{α−1}} + 2q c^γ)``. (Paper, equation (11), third and
fourth lines: ``2q = 4c^{−Mα}``. G2 and G3 are charged qN atoms each although together they
hold at most qN -- the paper's count, kept.) Note ``L2 <= L1``.

(S5) *Both directions on the ball ||θ̂|| <= R.* With ``L = min(L1, L2)`` (``L = L1`` if
R <= r, when the annulus is empty), S3-S4 give ``F >= L`` on the ball. The counting of S2 is
the same for in- and out-atoms, so the same argument with their roles exchanged gives
``1/F >= L``. Hence ``L <= F <= 1/L`` on the ball. The paper's Δ is ``1 − L``.

(S6) *Posterior on the ball.* ``max{F, 1}/(1 + F) = 1/(1 + min(F, 1/F)) <= 1/(1 + L)
= 1/(2 − Δ) =: m``. (The paper uses the weaker ``½ + Δ/2``; ``1/(2−Δ) <= ½ + Δ/2`` for
``0 <= Δ <= 1``.)

(S7) *The radius law -- the step that depends on d.* For any norm the ball
``{||x|| <= ρ}`` has volume ``V(ρ) = ρ^d V(1)`` (the norm is 1-homogeneous and Lebesgue
measure scales by ``ρ^d``), so the image of Lebesgue measure under ``x ↦ ||x||`` is
``d V(1) ρ^{d−1} dρ`` and ``||X||`` has density ``∝ ρ^{d−1} e^{−ρ/(cσ)}``:
``||X||/(cσ) ~ Gamma(d, 1)`` and

    ``P(||X|| > y cσ) = Q(d, y) = Γ(d, y)/Γ(d) = e^{−y} Σ_{j<d} y^j/j!``

(:func:`gamma_radius_tail`), with no constant depending on the norm. For d = 1,
``Q(1, y) = e^{−y}``: X is Laplace(cσ) and ``P(|X| > t) = e^{−t/(cσ)}``. *The factor-½
slip:* the printed proof uses ``½ e^{−t/(cσ)}``, which is the one-sided tail ``P(X > t)``,
not ``P(|X| > t)``; it is a slip, not a sharper argument: for
``||𝒜(D)|| = cσ`` (allowed by its event) the exact ``P(|𝒜(D) + X| > R)`` is
``e^{−R/(cσ)} cosh(1) ≈ 1.54 e^{−R/(cσ)}``, above the printed ``(e/2) e^{−R/(cσ)} ≈ 1.36
e^{−R/(cσ)}``. For d >= 2 the tail carries the extra factor
``Σ_{j<d} y^j/j! >= y^{d−1}/(d−1)!``, polynomial in ``y ≈ γ log c``.

(S8) *The bad event.* By S2 applied to the uniform half (all 2N atoms), the share of halves
with ``||𝒜(D)|| > τ`` is at most ``w = min(1, c^{−Mβ})``. If ``||𝒜(D)|| <= τ`` then
``||θ̂|| > R`` implies ``||X|| > R − τ``, of probability ``Q(d, y)`` with
``y = (R − τ)/(cσ) = γ log c − c^{β−1}`` (``Q = 1`` if ``y <= 0``); for the other halves bound
the probability by 1. So ``P(||θ̂|| > R) <= w + (1 − w) Q(d, y) =: p`` (the bound is
increasing in the share, so using its upper bound w is valid). Paper:
``(1 − c^{−M})(1 − (e/2) c^{−γ})`` for the complement, with the one-sided slip of S7.

(S9) *Aggregation (Proposition 2).* Split the accuracy over the ball and its complement:
``accuracy <= m P(ball) + 1 · P(not ball) = m + (1 − m) P(not ball) <= m + (1 − m) p``, so

    ``η <= (m − ½) + (1 − m) p = Δ/(2(2 − Δ)) + p (1 − Δ)/(2 − Δ)``.

The paper's (12) instead writes ``(½ + Δ/2) P(good) + P(bad)``, bounds ``P(good) <= 1`` and
charges ``P(bad)`` twice, ``2c^{−M} + e c^{−γ}`` ("the exact same logic ... shows that
F <= (1 − Δ)^{−1} with probability at least ...", then a union), although both bounds on F
hold on the *same* event ``{||θ̂|| <= R}``.

(S10) *The printed d = 1 results hold: the slip is absorbed.* With the correct tail the
failure probability of the single event is at most ``c^{−M} + e c^{−γ}`` (S8 with β = 1:
``p <= w + Q``), and (12) charges ``2c^{−M} + e c^{−γ}`` -- more. So the last three lines of
(12), Theorem 9's ``7.5 c^{−M/(M+2)}`` and Corollary 14's (13)
``((4 + e + 2c^{−1/2})/2 + e + 2c^{−3/2}) c^{−1/2}`` stand for d = 1 as printed, and since
S6 and S9 are sharper and S3/S4 unlinearised, ``chain_eta`` at Corollary 14's constants is at
most (13) (the tests check this, and Theorem 9's and Corollary 14's closed forms). Also: the
last line of (11) prints ``min(1 − α, Mα − 2γ)``; the exponent it derives is ``Mα − γ``
(``4c^{γ−Mα}``), which (12) then uses -- a typo.

(S11) *Dependence on d.* Only Q(d, y) depends on d, and it increases with d (Gamma(d + 1)
stochastically dominates Gamma(d)), so the certificate is non-decreasing in d. For Q to be
small, ``y ≈ γ log c`` must exceed about d, while ``2q c^γ = 4 c^{γ − Mα}`` must be small,
forcing ``γ < Mα < M``: the chain needs ``log c`` of order ``d/M`` -- noise exponential in
d/M. That is a limit of this proof (it controls F only on a ball of radius ``~ cσ log c``,
while ``||X||`` concentrates near ``d cσ``), not a proof that the mechanism leaks.

(S12) *Optimisation over the constants.* Any α, β and any γ > 0 give a valid bound. In the
coordinates ``x = c^{α−1}``, ``ρ = γ log c``, ``t = c^{β−1}``, Δ depends on (x, ρ) only and
p on (ρ, t) only, and η is increasing in both. For fixed ρ: ``log L2`` is strictly concave
in ``log x`` (its derivative ``Mq/(1−q) + (M + x) S − 2x`` with ``S = s/(1+s)``,
``s = 2q e^{ρ−x}``, has derivative ``−M²q/(1−q)² − (M + x)² S(1−S) + xS − 2x < 0``), and
``log(1 − p) = log(1 − w) + log P(d, ρ − t)`` is concave in t (``1 − (ct)^{−M}`` is concave
and the Gamma(d) CDF is log-concave), so each inner optimum is the unique root of a strictly
decreasing derivative, found by bracketed Newton (bisection fallback) to a relative
tolerance of 1e-11 in the variable. ρ is searched on a 64-point logarithmic grid over
``[0.05, M log c + d + 10√d + 20]`` and then 8 times on a 17-point grid around the best
point (each zoom narrows by 8; final resolution about 1e-9 in log ρ). The optimiser only
chooses constants: the returned value is the chain *evaluated* at the constants
``(α, γ, β)`` it found (:func:`optimal_chain`), so it is certified whatever the optimiser's
accuracy. Its tightness: no point of a brute-force grid around it is lower by more than
1e-10 (relative) in the tests, and it matched a fine grid search to 1e-15 over c from 50 to
1e100, M in {1, 2, 6}, d in {1, 3, 20}; monotone in c and d up to float64 rounding (below
1e-15 relative in 3000 random cases).

Rounding: the chain is evaluated in log space (``log1p``, ``expm1``, ``logaddexp``; the
Gamma tail by ``scipy.special.gammaincc`` directly, never as ``1 − CDF``), so nothing cancels
or overflows for any c in the float range; every certified value is then enlarged by a
relative 1e-9 (rounding of a dozen operations and the incomplete gamma function's accuracy)
plus an absolute 1e-300 (terms that underflow to 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.optimize import brentq

from ._validate import as_float_array, check_range, scalar_or_array

__all__ = [
    "D_MAX",
    "ChainTerms",
    "certified_eta",
    "chain_certified_eta",
    "chain_certified_eta_by_dimension",
    "chain_eta",
    "chain_required_noise_by_dimension",
    "chain_required_noise_multiplier",
    "gamma_radius_tail",
    "log_gamma_radius_tail",
    "optimal_chain",
    "required_noise_multiplier",
    "tv_certified_eta",
]

#: Largest dimension accepted. The chain needs log c of order d/M, so for d beyond a few
#: hundred times M the required noise multiplier leaves the float64 range anyway.
D_MAX = 1_000_000

_LOG2 = math.log(2.0)
_LOG_FLOAT_MAX = math.log(np.finfo(float).max)  # 709.78...
# Safety margin on every certified value (see "Rounding" in the module docstring).
_REL_MARGIN = 1e-9
_ABS_MARGIN = 1e-300
# Optimiser settings (S12).
_RHO_LO = 0.05
_GRID0 = 64
_GRID = 17
_ZOOMS = 8
_NEWTON_ITERS = 80
_NEWTON_TOL = 1e-11


# --------------------------------------------------------------------------- validation


def _check_dims(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """Integer dimensions ``1 <= d <= D_MAX`` (scalar or array), returned as a float array."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} must be an integer")
    arr = as_float_array(name, value)
    if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
        raise ValueError(f"{name}={value!r} must be an integer (or an array of integers)")
    if np.any(arr < 1) or np.any(arr > D_MAX):
        raise ValueError(f"{name}={value!r} is out of range: allowed 1 <= {name} <= {D_MAX}")
    return arr


def _check_m(value: ArrayLike) -> NDArray[np.float64]:
    return check_range(
        "M",
        value,
        1.0,
        math.inf,
        hi_open=True,
        hint="Corollary 10's ||x||_{σ,M} is a norm only for M >= 1",
    )


def _check_c(value: ArrayLike) -> NDArray[np.float64]:
    return check_range("noise_multiplier", value, 0.0, math.inf, lo_open=True, hi_open=True)


def _check_eta(value: ArrayLike) -> NDArray[np.float64]:
    return check_range(
        "eta",
        value,
        0.0,
        0.5,
        lo_open=True,
        hi_open=True,
        hint="η = 0 needs infinite noise; η = 1/2 certifies nothing",
    )


# --------------------------------------------------------------------------- the radius law (S7)


def gamma_radius_tail(x: ArrayLike, d: ArrayLike) -> float | NDArray[np.float64]:
    r"""``P(||X|| > x cσ)`` for X with density ``∝ exp(−||x||/(cσ))`` in R^d: the Gamma(d, 1) tail.

    The regularised upper incomplete gamma function
    ``Q(d, x) = Γ(d, x)/Γ(d) = e^{−x} Σ_{j<d} x^j/j!`` (step S7 of the module docstring),
    evaluated directly by ``scipy.special.gammaincc`` (never as ``1 − CDF``, which cancels to
    0 in the tail). For d = 1 it is ``e^{−x}``, the tail of ``|Laplace(1)|``.

    Parameters
    ----------
    x : radius in units of ``cσ``, ``x >= 0`` (float or array).
    d : dimension, integer ``1 <= d <= D_MAX`` (int or array; broadcast against x).

    Returns
    -------
    float or ndarray in [0, 1]. Tails below the float64 range come back as 0.0; use
    :func:`log_gamma_radius_tail` for them.

    Raises
    ------
    ValueError
        If x is negative or NaN, or d is not an integer in range.

    Examples
    --------
    >>> round(gamma_radius_tail(2.0, 1), 6)  # e^-2
    0.135335
    >>> round(gamma_radius_tail(2.0, 2), 6)  # e^-2 (1 + 2)
    0.406006
    """
    xa = check_range("x", x, 0.0, math.inf)
    da = _check_dims("d", d)
    with np.errstate(under="ignore"):
        out = special.gammaincc(da, xa)
    return scalar_or_array(out, x, d)


def log_gamma_radius_tail(x: ArrayLike, d: ArrayLike) -> float | NDArray[np.float64]:
    r"""``log Q(d, x)``, the logarithm of :func:`gamma_radius_tail`, without underflow.

    ``log(gammaincc(d, x))`` where ``Q(d, x) > 1e-280``; further out (e.g.
    ``Q(1, 37000) = e^{−37000}``, which is 0.0 in float64) mpmath at 30 significant digits.

    Parameters
    ----------
    x : ``x >= 0`` (``inf`` gives ``-inf``); d : integer ``1 <= d <= D_MAX``.

    Returns
    -------
    float or ndarray, ``<= 0``.

    Raises
    ------
    ValueError
        As :func:`gamma_radius_tail`.

    Examples
    --------
    >>> log_gamma_radius_tail(37000.0, 1)
    -37000.0
    >>> round(log_gamma_radius_tail(1000.0, 3), 4)  # -1000 + log(1 + 1000 + 1000^2/2)
    -986.8756
    """
    xa = check_range("x", x, 0.0, math.inf)
    da = _check_dims("d", d)
    xb, db = np.broadcast_arrays(xa, da)
    with np.errstate(under="ignore", divide="ignore"):
        q = special.gammaincc(db, xb)
        out = np.log(q)
    deep = np.flatnonzero(q.reshape(-1) < 1e-280)
    if deep.size:
        flat = out.reshape(-1).copy()
        for i in deep:
            xi = float(xb.reshape(-1)[i])
            if math.isinf(xi):
                flat[i] = -math.inf
                continue
            with mpmath.workdps(30):
                tail = mpmath.gammainc(float(db.reshape(-1)[i]), xi, mpmath.inf, regularized=True)
                flat[i] = float(mpmath.log(tail))
        out = flat.reshape(out.shape)
    return scalar_or_array(out, x, d)


# --------------------------------------------------------------------------- the chain (S2-S9)


@dataclass(frozen=True)
class ChainTerms:
    """Every term of the d-dimensional Theorem 9 chain at given constants.

    Radii are in units of σ (the M-th moment bound; σ = 1 for Corollary 10's norm); the noise
    has density ``∝ exp(−||x||/(cσ))`` with ``c = noise_multiplier``. The comment on each
    field names the step of the module docstring that defines it.
    """

    noise_multiplier: float  # c
    M: float  # moment order
    d: int  # dimension
    alpha: float  # r = c^alpha
    gamma: float  # R = gamma c log c
    beta: float  # tau = c^beta
    inner_radius: float  # r (S2)
    outer_radius: float  # R (S4)
    split_radius: float  # tau (S8)
    inner_fraction: float  # q = min(1, 2 r^-M): share of in- (or out-) atoms beyond r (S2)
    ratio_bound_inner: float  # L1 = (1 - q) e^(-2r/c): F >= L1 on ||θ̂|| <= r (S3)
    ratio_bound_outer: float  # L2 = (1 - q) e^(-r/c) / (e^(r/c) + 2q e^(R/c)) (S4)
    ratio_bound: float  # L = min(L1, L2) (L1 if R <= r): L <= F <= 1/L on ||θ̂|| <= R (S5)
    delta: float  # the paper's Δ = 1 - L
    max_posterior: float  # m = 1/(1 + L) = 1/(2 - Δ) (S6)
    split_fraction: float  # w = min(1, tau^-M): share of halves with ||A(D)|| > tau (S8)
    tail_argument: float  # y = (R - tau)/c (S8)
    noise_tail: float  # Q(d, y) = P(||X|| > R - tau), 1 if y <= 0 (S7)
    bad_probability: float  # p = w + (1 - w) Q >= P(||θ̂|| > R) (S8)
    eta: float  # min(1/2, (m - 1/2) + (1 - m) p), rounded up (S9)

    @property
    def vacuous(self) -> bool:
        """True when the chain certifies nothing at these constants (η = 1/2)."""
        return self.eta >= 0.5


def _log_terms(ell, M, d, log_x, rho, log_t) -> dict[str, NDArray[np.float64]]:
    """S2-S9 in natural coordinates, vectorised (σ = 1, c = e^ell).

    ``x = r/c = e^log_x``, ``rho = R/c``, ``t = tau/c = e^log_t``. Everything is formed in
    log space or by log1p/expm1/logaddexp; values below the float64 range underflow to 0,
    which the absolute margin covers.
    """
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        x = np.exp(log_x)
        t = np.exp(log_t)
        log_q = np.minimum(0.0, _LOG2 - M * (ell + log_x))  # S2
        q = np.exp(log_q)
        log1m_q = np.where(log_q < 0.0, np.log1p(-q), -np.inf)
        log_l1 = log1m_q - 2.0 * x  # S3
        log_l2 = log_l1 - np.logaddexp(0.0, _LOG2 + log_q + rho - x)  # S4
        log_l2 = np.where(np.isnan(log_l2), -np.inf, log_l2)
        log_l = np.where(rho > x, np.minimum(log_l1, log_l2), log_l1)  # S5
        delta = -np.expm1(log_l)
        big_l = np.exp(log_l)
        half_gap = delta / (2.0 * (2.0 - delta))  # S6: m - 1/2
        one_minus_m = big_l / (1.0 + big_l)
        w = np.exp(np.minimum(0.0, -M * (ell + log_t)))  # S8
        y = rho - t
        pos = y > 0.0
        tail = np.where(pos, special.gammaincc(d, np.where(pos, y, 1.0)), 1.0)  # S7
        p = w + (1.0 - w) * tail
        raw = half_gap + one_minus_m * p  # S9
        eta = np.minimum(0.5, raw * (1.0 + _REL_MARGIN) + _ABS_MARGIN)
    return {
        "q": q,
        "l1": np.exp(log_l1),
        "l2": np.exp(log_l2),
        "l": big_l,
        "delta": delta,
        "m": 1.0 / (1.0 + big_l),
        "w": w,
        "y": y,
        "tail": tail,
        "p": p,
        "eta": eta,
    }


def _exp_or_inf(z: float) -> float:
    return math.exp(z) if z < _LOG_FLOAT_MAX else math.inf


def _chain_from_paper(
    c: float, M: float, d: int, alpha: float, gamma: float, beta: float
) -> ChainTerms:
    ell = math.log(c)
    terms = _log_terms(ell, M, float(d), (alpha - 1.0) * ell, gamma * ell, (beta - 1.0) * ell)
    return ChainTerms(
        noise_multiplier=c,
        M=M,
        d=d,
        alpha=alpha,
        gamma=gamma,
        beta=beta,
        inner_radius=_exp_or_inf(alpha * ell),
        outer_radius=gamma * c * ell,
        split_radius=_exp_or_inf(beta * ell),
        inner_fraction=float(terms["q"]),
        ratio_bound_inner=float(terms["l1"]),
        ratio_bound_outer=float(terms["l2"]),
        ratio_bound=float(terms["l"]),
        delta=float(terms["delta"]),
        max_posterior=float(terms["m"]),
        split_fraction=float(terms["w"]),
        tail_argument=float(terms["y"]),
        noise_tail=float(terms["tail"]),
        bad_probability=float(terms["p"]),
        eta=float(terms["eta"]),
    )


def chain_eta(
    noise_multiplier: float,
    *,
    M: float,
    d: int,
    alpha: float,
    gamma: float,
    beta: float = 1.0,
) -> ChainTerms:
    r"""The d-dimensional Theorem 9 chain at given constants, term by term (steps S2-S9).

    Noise with density ``∝ exp(−||x||/(cσ))`` in R^d, ``c = noise_multiplier``; inner radius
    ``r = c^α σ``, outer radius ``R = γ σ c log c``, split radius ``τ = c^β σ``. The paper
    fixes β = 1; Theorem 9 takes α = 2/(M+2), γ = M/(M+2); Corollary 14 M = 2, α = γ = 1/2.

    Parameters
    ----------
    noise_multiplier : c > 0 (with ``c <= 1``, ``R <= 0`` and the chain is vacuous).
    M : moment order, ``M >= 1``.
    d : dimension, integer ``1 <= d <= D_MAX``.
    alpha, beta : finite real exponents.
    gamma : ``gamma > 0``.

    Returns
    -------
    ChainTerms
        Its ``eta`` is the level the chain certifies at these constants (1/2 if vacuous).

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Examples
    --------
    Corollary 14's constants at the noise the paper prescribes for η = 0.1, in one dimension:

    >>> t = chain_eta((6.16 / 0.1) ** 2, M=2, d=1, alpha=0.5, gamma=0.5)
    >>> round(t.delta, 4), round(t.noise_tail, 4), round(t.eta, 4)
    (0.0906, 0.0441, 0.0447)
    """
    c = float(_check_c(noise_multiplier))
    m = float(_check_m(M))
    dd = int(_check_dims("d", d))
    a = float(check_range("alpha", alpha, -math.inf, math.inf, lo_open=True, hi_open=True))
    g = float(check_range("gamma", gamma, 0.0, math.inf, lo_open=True, hi_open=True))
    b = float(check_range("beta", beta, -math.inf, math.inf, lo_open=True, hi_open=True))
    return _chain_from_paper(c, m, dd, a, g, b)


# --------------------------------------------------------------------------- optimisation (S12)


def _newton_decreasing(fun, lo, hi, x0):
    """Root of a strictly decreasing ``fun`` on (lo, hi), vectorised; safeguarded Newton.

    ``fun(x) -> (g, g')``. Keeps a bracket (g > 0 left of the root, g < 0 right of it); a
    Newton step that leaves it or is not finite is replaced by bisection. Entries with
    ``lo >= hi`` (empty domain) return ``hi``.
    """
    lo = lo.copy()
    hi = hi.copy()
    empty = lo >= hi
    x0 = np.where(np.isfinite(x0), x0, 0.5 * (lo + hi))
    x = np.where(empty, hi, np.clip(x0, lo + 0.01 * (hi - lo), hi - 0.01 * (hi - lo)))
    active = ~empty
    for _ in range(_NEWTON_ITERS):
        if not active.any():
            break
        g, dg = fun(x)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            lo = np.where(active & (g > 0), x, lo)
            hi = np.where(active & (g < 0), x, hi)
            step = g / dg
            newton = x - step
        tol = _NEWTON_TOL * (1.0 + np.abs(x))
        small = np.isfinite(step) & (np.abs(step) <= tol)
        ok = np.isfinite(newton) & (newton > lo) & (newton < hi)
        new = np.where(ok, newton, 0.5 * (lo + hi))
        new = np.where(small | (g == 0), x, new)
        x = np.where(active, new, x)
        active &= ~(small | (g == 0) | (hi - lo <= tol))
    return x


def _inner_radius_opt(ell, M, rho, guess=None):
    """log x maximising log L2 (S4) at fixed rho: root of its derivative in u = log x."""
    lo = _LOG2 / M - ell + np.zeros_like(rho)  # q = 1 below
    hi = np.log(rho) + np.zeros_like(ell)  # r < R

    def fun(u):
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            z = M * (ell + u) - _LOG2  # -log q > 0
            inv = 1.0 / np.expm1(z)  # q/(1-q)
            x = np.exp(u)
            log_s = _LOG2 - z + rho - x
            big_s = special.expit(log_s)
            s2 = big_s * special.expit(-log_s)
            g = M * inv + (M + x) * big_s - 2.0 * x
            dg = -M * M * inv * (1.0 + inv) + x * big_s - (M + x) ** 2 * s2 - 2.0 * x
        return g, dg

    if guess is None:  # minimiser of the first-order expansion 2x + q (1 + 2 e^rho)
        guess = (np.log(M) - M * ell + np.logaddexp(0.0, _LOG2 + rho)) / (M + 1.0)
    return _newton_decreasing(fun, lo, hi, guess)


def _split_opt(ell, M, d, rho, guess=None):
    """log t maximising log(1 - w) + log P(d, rho - t) (S8): root of its derivative."""
    lo = -ell + np.zeros_like(rho)  # w = 1 below
    hi = np.log(rho) + np.zeros_like(ell)  # y = rho - t > 0
    lg_d = special.gammaln(d)

    def fun(v):
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            inv = 1.0 / np.expm1(M * (ell + v))  # w/(1-w)
            t = np.exp(v)
            y = rho - t
            log_g = (d - 1.0) * np.log(y) - y - lg_d
            h = np.exp(log_g - np.log(special.gammainc(d, y)))  # reverse hazard of Gamma(d)
            g = M * inv - t * h
            dg = -M * M * inv * (1.0 + inv) - t * h + t * t * h * ((d - 1.0) / y - 1.0 - h)
        return g, dg

    if guess is None:  # balance M c^-M t^-(M+1) against the Gamma(d) density at rho
        with np.errstate(divide="ignore"):
            log_pdf = (d - 1.0) * np.log(rho) - rho - lg_d
        guess = (np.log(M) - M * ell - log_pdf) / (M + 1.0)
    return _newton_decreasing(fun, lo, hi, guess)


def _optimise(ell, M, d):
    """Natural-coordinate optimum (log x, rho, log t) for 1-d batches ell > 0, M, d."""
    ell = ell[:, None]
    M = M[:, None]
    d = d[:, None]
    rows = np.arange(ell.shape[0])
    lo = np.full(ell.shape, math.log(_RHO_LO))
    hi = np.log(M * ell + d + 10.0 * np.sqrt(d) + 20.0)
    best_eta = np.full(ell.shape, np.inf)
    best = [np.zeros(ell.shape) for _ in range(3)]
    size = _GRID0
    for level in range(_ZOOMS + 1):
        log_rho = lo + (hi - lo) * np.linspace(0.0, 1.0, size)[None, :]
        rho = np.exp(log_rho)
        warm = level > 0  # later levels start Newton from the best point so far
        u = _inner_radius_opt(ell, M, rho, best[0] if warm else None)
        v = _split_opt(ell, M, d, rho, best[2] if warm else None)
        eta = _log_terms(ell, M, d, u, rho, v)["eta"]
        k = np.argmin(eta, axis=1)
        cand = eta[rows, k][:, None]
        better = cand < best_eta
        best_eta = np.where(better, cand, best_eta)
        for arr, new in zip(best, (u, rho, v), strict=True):
            arr[:] = np.where(better, new[rows, k][:, None], arr)
        lo = log_rho[rows, np.maximum(k - 1, 0)][:, None]
        hi = log_rho[rows, np.minimum(k + 1, size - 1)][:, None]
        size = _GRID
    return best[0][:, 0], best[1][:, 0], best[2][:, 0]


def _certify(c: NDArray[np.float64], M: NDArray[np.float64], d: NDArray[np.float64]):
    """(eta, alpha, gamma, beta) for validated 1-d batches: the chain at the optimum found."""
    eta = np.full(c.shape, 0.5)
    alpha = np.full(c.shape, 0.5)  # Corollary 14's constants where log c <= 0 (vacuous)
    gamma = np.full(c.shape, 0.5)
    beta = np.ones(c.shape)
    live = c > 1.0
    if live.any():
        ell = np.log(c[live])
        u, rho, v = _optimise(ell, M[live], d[live])
        a, g, b = 1.0 + u / ell, rho / ell, 1.0 + v / ell
        # evaluate the chain at the constants found (what chain_eta computes)
        terms = _log_terms(ell, M[live], d[live], (a - 1.0) * ell, g * ell, (b - 1.0) * ell)
        eta[live] = terms["eta"]
        alpha[live], gamma[live], beta[live] = a, g, b
    return eta, alpha, gamma, beta


def optimal_chain(noise_multiplier: float, *, M: float, d: int) -> ChainTerms:
    """The chain (:func:`chain_eta`) at the constants :func:`chain_certified_eta` chooses.

    Parameters
    ----------
    noise_multiplier : c > 0; M : ``M >= 1``; d : integer ``1 <= d <= D_MAX``.

    Returns
    -------
    ChainTerms
        ``eta`` equals ``certified_eta(noise_multiplier, M=M, d=d)``. For ``c <= 1``
        (``log c <= 0``: vacuous) the constants are Corollary 14's α = γ = 1/2, β = 1.

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Examples
    --------
    >>> t = optimal_chain((6.16 / 0.1) ** 2, M=2, d=3)
    >>> round(t.alpha, 3), round(t.gamma, 3), round(t.beta, 3), round(t.eta, 4)
    (0.654, 0.805, 0.503, 0.0614)
    """
    c = float(_check_c(noise_multiplier))
    m = float(_check_m(M))
    dd = int(_check_dims("d", d))
    _, a, g, b = _certify(np.array([c]), np.array([m]), np.array([float(dd)]))
    return _chain_from_paper(c, m, dd, float(a[0]), float(g[0]), float(b[0]))


def chain_certified_eta(
    noise_multiplier: ArrayLike, *, M: ArrayLike, d: ArrayLike
) -> float | NDArray[np.float64]:
    r"""The η the corrected Theorem 9 chain certifies for noise ``∝ exp(−||x||_{σ,M}/c)`` in R^d.

    The noise of Corollary 10 with the Gamma(d, c) radius (``mipcore.mechanism.sample_noise``
    with its default radius), ``c = noise_multiplier``, σ_i the per-coordinate M-th moment
    bounds. Steps S1-S9 of the module docstring, minimised over the free constants
    (α, γ, β) as in S12 and evaluated at the constants found (:func:`optimal_chain`).

    For d = 1 this is at most the printed guarantees at the same c (Theorem 9's
    ``7.5 c^{−M/(M+2)}``, Corollary 14's (13) and ``6.16 c^{−M/(M+2)}``). For d >= 2 it is
    what the paper's *method of proof* gives, and it needs far more noise than that method
    suggests (e.g. M = 2, d = 9, η = 0.1 below). The *statements* of Theorem 9 and
    Corollary 14 nevertheless hold in every dimension, by the dimension-free certificate
    :func:`certified_eta` (module docstring, T1-T4), which is always at most this value.

    Parameters
    ----------
    noise_multiplier : c > 0 (float or array). ``c <= 1`` is vacuous (η = 1/2).
    M : moment order ``M >= 1`` (float or array).
    d : dimension of the release, integer ``1 <= d <= D_MAX`` (int or array).
        All three broadcast together.

    Returns
    -------
    float or ndarray in (0, 1/2]; 1/2 means the chain certifies nothing. Never NaN.

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Notes
    -----
    Non-increasing in c and non-decreasing in d (S11), up to float64 rounding (about 1e-15
    relative) of the optimiser's constants. Every value carries the safety margin of the
    module docstring ("Rounding").

    Examples
    --------
    The noise the app adds for η = 0.1 with M = 2 (``(6.16/0.1)^2``):

    >>> c = (6.16 / 0.1) ** 2
    >>> [round(chain_certified_eta(c, M=2, d=d), 4) for d in (1, 2, 3, 4, 9)]
    [0.027, 0.0427, 0.0614, 0.0837, 0.2422]
    >>> chain_certified_eta(1.0, M=2, d=1)  # no noise beyond σ: the chain certifies nothing
    0.5
    """
    c = _check_c(noise_multiplier)
    m = _check_m(M)
    dd = _check_dims("d", d)
    cb, mb, db = np.broadcast_arrays(c, m, dd)
    eta, *_ = _certify(cb.reshape(-1), mb.reshape(-1), db.reshape(-1))
    return scalar_or_array(eta.reshape(cb.shape), noise_multiplier, M, d)


def _required_one(eta: float, M: float, d: float) -> float:
    """Smallest c (rounded up) with chain_certified_eta(c) <= eta; inf beyond the float range."""

    def excess(ell: float) -> float:
        val, *_ = _certify(np.array([math.exp(ell)]), np.array([M]), np.array([d]))
        return float(val[0]) - eta

    lo, hi = 0.0, 4.0  # c = 1 is vacuous, so excess(0) = 1/2 - eta > 0
    while excess(hi) > 0.0:
        if hi >= _LOG_FLOAT_MAX:
            return math.inf
        lo, hi = hi, min(2.0 * hi, _LOG_FLOAT_MAX)
    ell = brentq(excess, lo, hi, xtol=1e-13, rtol=4.0 * np.finfo(float).eps, maxiter=200)
    c = math.exp(min(ell, _LOG_FLOAT_MAX))
    step = 1e-15
    while excess(math.log(c)) > 0.0:  # round up: the returned c itself must pass
        c = min(c * (1.0 + step), np.finfo(float).max)
        if step > 1.0:  # pragma: no cover - excess(hi) <= 0 guarantees termination long before
            return math.inf
        step *= 4.0
    return c


def chain_required_noise_multiplier(
    eta: ArrayLike, *, M: ArrayLike, d: ArrayLike
) -> float | NDArray[np.float64]:
    r"""The smallest noise multiplier c that :func:`chain_certified_eta` accepts for target η.

    Brent's method on ``log c`` (bracket ``[0, 4]``, doubled until the upper end passes;
    absolute tolerance 1e-13 on ``log c``), then rounded up: the returned c always satisfies
    ``chain_certified_eta(c, M=M, d=d) <= eta``, and any c smaller by more than about 1e-12
    relative fails (``chain_certified_eta`` is strictly decreasing in c where it is below 1/2).
    Noise ``c σ_i``-scaled as in Corollary 10 with the Gamma(d, c) radius.

    Parameters
    ----------
    eta : target, ``0 < eta < 1/2`` (float or array).
    M : moment order ``M >= 1`` (the printed Corollary 14 constant 6.16 needs M >= 2; this
        certificate does not).
    d : dimension, integer ``1 <= d <= D_MAX``. All three broadcast together.

    Returns
    -------
    float or ndarray. ``inf`` when the chain needs c beyond the float64 range
    (``log c > 709.78``; for M = 2 and η = 0.1 that happens from d ≈ 1360 on).

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Examples
    --------
    >>> [round(chain_required_noise_multiplier(0.1, M=2, d=d), 1) for d in (1, 3, 9)]
    [257.0, 1223.9, 60760.4]
    >>> round((6.16 / 0.1) ** 2, 1)  # what Corollary 14 prescribes, for every d
    3794.6
    """
    e = _check_eta(eta)
    m = _check_m(M)
    dd = _check_dims("d", d)
    eb, mb, db = np.broadcast_arrays(e, m, dd)
    flat = [
        _required_one(float(x), float(y), float(z))
        for x, y, z in zip(eb.reshape(-1), mb.reshape(-1), db.reshape(-1), strict=True)
    ]
    return scalar_or_array(np.reshape(np.array(flat), eb.shape), eta, M, d)


# --------------------------------------------------------------------------- chart helpers


def _check_ds(ds: ArrayLike) -> NDArray[np.float64]:
    arr = _check_dims("ds", ds)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"ds={ds!r} must be a non-empty 1-d sequence of dimensions")
    return arr


def chain_certified_eta_by_dimension(
    noise_multiplier: ArrayLike, *, M: float, ds: ArrayLike
) -> NDArray[np.float64]:
    """Chart data "certified η vs d at fixed noise": :func:`chain_certified_eta` for each d in ``ds``.

    Parameters
    ----------
    noise_multiplier : c > 0 (float or array); M : ``M >= 1``;
    ds : non-empty 1-d sequence of integer dimensions ``1 <= d <= D_MAX``.

    Returns
    -------
    ndarray of shape ``(*shape(noise_multiplier), len(ds))``.

    Examples
    --------
    >>> chain_certified_eta_by_dimension(3794.56, M=2, ds=[1, 2]).round(4)
    array([0.027 , 0.0427])
    """
    c = _check_c(noise_multiplier)
    m = float(_check_m(M))
    dims = _check_ds(ds)
    cb, db = np.broadcast_arrays(c[..., None], dims)
    return np.asarray(chain_certified_eta(cb, M=m, d=db), dtype=float)


def chain_required_noise_by_dimension(
    eta: ArrayLike, *, M: float, ds: ArrayLike
) -> NDArray[np.float64]:
    """Chart data "noise needed vs d at fixed η": :func:`chain_required_noise_multiplier` per d.

    Parameters
    ----------
    eta : ``0 < eta < 1/2`` (float or array); M : ``M >= 1``;
    ds : non-empty 1-d sequence of integer dimensions ``1 <= d <= D_MAX``.

    Returns
    -------
    ndarray of shape ``(*shape(eta), len(ds))``; ``inf`` beyond the float64 range.
    """
    e = _check_eta(eta)
    m = float(_check_m(M))
    dims = _check_ds(ds)
    eb, db = np.broadcast_arrays(e[..., None], dims)
    return np.asarray(chain_required_noise_multiplier(eb, M=m, d=db), dtype=float)


# --------------------------------------------------------------------------- T1-T4


def tv_certified_eta(noise_multiplier: ArrayLike) -> float | NDArray[np.float64]:
    r"""``(1 − e^{−1/c})/2``: the MIP level certified in every dimension (module docstring, T1-T4).

    Attained exactly by the two-point mechanism θ = ±σ in one dimension, so it is the best
    certificate of the form f(c).

    Parameters
    ----------
    noise_multiplier : c > 0 (float or array).

    Returns
    -------
    float or ndarray in (0, 1/2).

    Examples
    --------
    >>> tv_certified_eta(1.0)  # (1 − 1/e)/2
    0.316060279414
    >>> round(tv_certified_eta(-1 / math.log(0.8)), 12)
    0.1
    """
    c = _check_c(noise_multiplier)
    with np.errstate(divide="ignore"):
        eta = -0.5 * np.expm1(-1.0 / c)
    return scalar_or_array(eta, noise_multiplier)


def certified_eta(
    noise_multiplier: ArrayLike, *, M: ArrayLike, d: ArrayLike
) -> float | NDArray[np.float64]:
    r"""The MIP level η certified for Theorem 9's noise with multiplier c, moment order M, in R^d.

    The noise has density ``∝ exp(−||x||/(cσ))`` (Corollary 10 with the Gamma(d, c) radius,
    ``mipcore.mechanism.sample_noise``'s default) and σ bounds the M-th central moment of the
    output over the random training half (Theorem 9's hypothesis). The best of the proofs in
    this module: the dimension-free ``(1 − e^{−1/c})/2`` (T1-T4), which is always at most the
    corrected chain (:func:`chain_certified_eta`) and attained exactly by a two-point
    mechanism. M and d are validated but do not change the value (any ``M >= 1`` gives
    ``E||θ − Eθ|| <= σ``).

    Parameters
    ----------
    noise_multiplier : c > 0 (float or array).
    M : moment order, ``M >= 1``.
    d : dimension of the release, integer ``1 <= d <= D_MAX``.

    Returns
    -------
    float or ndarray in (0, 1/2).

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Examples
    --------
    Corollary 14's noise for η = 0.1 and M = 2 certifies far more than promised, in any d:

    >>> c = (6.16 / 0.1) ** 2
    >>> [round(certified_eta(c, M=2, d=d), 6) for d in (1, 9)]
    [0.000132, 0.000132]
    >>> certified_eta(1.0, M=2, d=1)  # no mechanism with this noise exceeds it
    0.316060279414
    """
    c = _check_c(noise_multiplier)
    m = _check_m(M)
    dd = _check_dims("d", d)
    cb, _, _ = np.broadcast_arrays(c, m, dd)
    eta = np.asarray(tv_certified_eta(cb), dtype=float)
    return scalar_or_array(eta, noise_multiplier, M, d)


def required_noise_multiplier(
    eta: ArrayLike, *, M: ArrayLike, d: ArrayLike
) -> float | NDArray[np.float64]:
    r"""The smallest noise multiplier c that :func:`certified_eta` accepts: ``−1/ln(1 − 2η)``.

    Rounded up by 8 ulps (relative 1.8e-15), so that the returned c satisfies
    ``(1 − e^{−1/c})/2 <= eta`` exactly, not only in float64. In closed form: no search.

    Parameters
    ----------
    eta : target, ``0 < eta < 1/2`` (float or array).
    M : moment order ``M >= 1``. d : dimension, integer ``1 <= d <= D_MAX``.

    Returns
    -------
    float or ndarray.

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Examples
    --------
    >>> required_noise_multiplier(0.1, M=2, d=9)  # −1/ln 0.8
    4.48142011772
    >>> round((6.16 / 0.1) ** 2 / required_noise_multiplier(0.1, M=2, d=9))  # Corollary 14
    847
    """
    e = _check_eta(eta)
    m = _check_m(M)
    dd = _check_dims("d", d)
    eb, _, _ = np.broadcast_arrays(e, m, dd)
    # log1p, the division and expm1 are each correct to about one ulp: enlarge by 8 ulps so that
    # (1 − e^{−1/c})/2 <= η holds for the exact value, not only after rounding
    c = (-1.0 / np.log1p(-2.0 * eb)) * (1.0 + 8.0 * np.finfo(float).eps)
    return scalar_or_array(c, eta, M, d)
