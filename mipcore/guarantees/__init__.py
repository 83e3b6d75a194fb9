r"""Any privacy guarantee in attacker terms: the best membership attacker's edge and ROC.

A privacy engineer arrives with an (ε, δ) pair, a privacy profile, a μ-GDP or ρ-zCDP
parameter, Rényi-DP values at a few orders, or a DP-SGD run (noise multiplier,
Poisson sampling rate, steps). This module turns each into

* ``eta`` -- the best membership attacker's accuracy edge over 1/2 at prior 1/2
  (η-MIP, Definition 1 of Izzo et al. with k = n/2), and
* the largest true-positive rate any attacker reaches at a given false-positive rate.

Why one number per pair of neighbours suffices
----------------------------------------------
In the MIP game the training set is a uniformly random half of the data. Lemma 12 of
Izzo et al. pairs every half without the target x* with a half that contains it and
differs in *one replaced record*. The attacker's error is the average, over these pairs,
of its two error rates on the pair; for one pair of output distributions (P, Q) the two
rates sum to at least ``1 − TV(P, Q)``. Hence

    accuracy ≤ 1/2 + sup TV / 2,     i.e.   η = (1/2) · sup over replace-one pairs of TV,

and TV is the hockey-stick divergence at ε = 0: ``η = δ(0)/2`` for the privacy profile
δ(ε) of the replace-one relation. Theorem 4 (``mipcore.bounds.eta_from_epsilon``) is the
largest TV an (ε, δ)-DP pair can have, halved. For the ROC: each pair's (FPR, TPR) lies in
the pair's trade-off region; the game's (FPR, TPR) is their average, and the region
``TPR ≤ g(FPR)`` with g concave is convex, so any symmetric trade-off bound g valid for
replace-one pairs bounds the game's TPR at every FPR (Theorem 8 of the paper, corrected
in ``mipcore.bounds.tpr_bound_mip``, is the weaker consequence TPR ≤ FPR + 2η).

**Neighbouring relation.** Everything above needs the guarantee for *replace-one*
neighbours (same dataset size, one record swapped). Most DP-SGD libraries report
add-or-remove guarantees. A replacement is a removal followed by an addition, so an
add/remove guarantee is converted by group privacy for groups of two: μ → 2μ for GDP
(Dong, Roth & Su, group privacy), ρ → 4ρ for zCDP (Bun & Steinke, group privacy), and the
trade-off bound g → g∘g otherwise (Dong, Roth & Su, Theorem 2.14; for a single (ε, δ)
point also the classical (2ε, (1 + e^ε)δ)). Each guarantee class carries a ``relation``
field; the DP-SGD route computes the replace-one relation directly.

**Noise-multiplier convention.** DP-SGD's noise multiplier is the Opacus/TF-Privacy one:
per-step noise standard deviation = noise multiplier × clipping norm C. Replacing a record
moves the clipped gradient sum by up to 2C, so full-batch DP-SGD (sampling rate 1) with
noise multiplier σ for T steps is exactly μ-GDP with **μ = 2√T/σ** for the replace-one
relation (√T/σ is its add/remove value). The covariance experiment
(``mipcore.experiments.covariance``) instead scales its noise to the replace sensitivity 2C; its
multiplier z equals σ/2 here.

Routes
------
:func:`attacker_bound` evaluates, for one guarantee, every route that applies (:class:`Route`)
and keeps the smallest valid η; the ``routes`` field lists them side by side so a page
can show how much a loose conversion overstates the risk. Every route is a valid upper
bound on the same quantity; only :attr:`Route.ADD_REMOVE_AS_REPLACE` (the add/remove
number used as if it were replace-one) is marked ``valid=False``, to show what ignoring the
relation would report.

Where things live
-----------------
One module per family, as ``dp_accounting`` keeps one per accountant; every public name is
imported here, so ``from mipcore.guarantees import eta_from_gdp`` works for all of them.

* :mod:`mipcore.guarantees.gdp` -- μ-GDP: :func:`eta_from_gdp`, :func:`tpr_bound_gdp`,
  :func:`delta_from_gdp`, :func:`epsilon_from_gdp`.
* :mod:`mipcore.guarantees.profiles` -- privacy profiles: :func:`eta_from_profile`,
  :func:`tpr_bound_profile`.
* :mod:`mipcore.guarantees.renyi` -- Rényi DP and ρ-zCDP: :func:`eta_from_rdp`,
  :func:`tpr_bound_rdp`, :func:`delta_from_rdp`, :func:`eta_from_zcdp`,
  :func:`tpr_bound_zcdp`, :func:`delta_from_zcdp`.
* :mod:`mipcore.guarantees.dpsgd` -- DP-SGD through ``dp_accounting``'s PLD accountant:
  :func:`eta_from_dpsgd`, :func:`dpsgd_attacker_bound`, :func:`dpsgd_noise_for_eta`,
  :func:`dpsgd_noise_for_tpr`, :func:`dpsgd_noise_and_eta`; the presets :data:`CIFAR10` and
  :data:`E2E`.
* ``_dispatch`` -- the one dispatcher, :func:`attacker_bound`, with each kind's routes.
* :mod:`mipcore.guarantees.routes` -- every route's ROC bound side by side:
  :func:`route_curves`.
* :mod:`mipcore.guarantees.epsilon` -- a guarantee's ε at a given δ, for every kind:
  :func:`epsilon_at` (what an audit's ε lower bound is compared with).
* ``_common`` -- what they share: :class:`Relation`, :class:`Kind`, :class:`Route`, the
  guarantee dataclasses (:class:`EpsDelta`, :class:`Profile`, :class:`Gdp`, :class:`Zcdp`,
  :class:`Rdp`, :class:`DpSgd`), the one group-privacy conversion (:func:`group_of_two`),
  :class:`RouteResult`, :class:`AttackerBound`, :data:`FPR_LEVELS`, :data:`REFERENCE_DELTA`.

Each module lists the papers it implements; those the reasoning above rests on:

References
----------
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4 and Lemma 12).
- Kairouz, Oh, Viswanath. *The Composition Theorem for Differential Privacy*. ICML 2015,
  arXiv:1311.0776 (the (ε, δ) hypothesis-testing region, Theorem 2.1).
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065.
"""

from __future__ import annotations

from ._common import (
    FPR_LEVELS,
    REFERENCE_DELTA,
    AttackerBound,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Kind,
    Profile,
    Rdp,
    Relation,
    Route,
    RouteResult,
    Zcdp,
    group_of_two,
    sampling_only_tv,
)
from ._common import FloatOrArray as FloatOrArray
from ._dispatch import attacker_bound
from .dpsgd import (
    CIFAR10,
    E2E,
    NOISE_TOLERANCE,
    PLD_MIN_NOISE,
    PLD_RESOLUTION,
    DpSgdPreset,
    dpsgd_attacker_bound,
    dpsgd_noise_and_eta,
    dpsgd_noise_for_eta,
    dpsgd_noise_for_tpr,
    eta_from_dpsgd,
)
from .dpsgd import _dpsgd_tpr as _dpsgd_tpr
from .epsilon import epsilon_at
from .gdp import delta_from_gdp, epsilon_from_gdp, eta_from_gdp, tpr_bound_gdp
from .profiles import eta_from_profile, tpr_bound_profile
from .renyi import _renyi_eta as _renyi_eta
from .renyi import (
    delta_from_rdp,
    delta_from_zcdp,
    eta_from_rdp,
    eta_from_zcdp,
    tpr_bound_rdp,
    tpr_bound_zcdp,
)
from .routes import CurveSource, RouteCurve, RouteCurves, route_curves

# Imported above but outside __all__, as before the split: FloatOrArray, and the two private
# helpers tests/test_guarantees.py calls as ``G._renyi_eta`` and ``G._dpsgd_tpr``. To patch a
# helper, patch the module that looks it up (``mipcore.guarantees.dpsgd._pld_accountant``):
# setting the name on this package changes nothing.
__all__ = [
    "CIFAR10",
    "E2E",
    "FPR_LEVELS",
    "NOISE_TOLERANCE",
    "PLD_MIN_NOISE",
    "PLD_RESOLUTION",
    "REFERENCE_DELTA",
    "AttackerBound",
    "CurveSource",
    "DpSgd",
    "DpSgdPreset",
    "EpsDelta",
    "Gdp",
    "Guarantee",
    "Kind",
    "Profile",
    "Rdp",
    "Relation",
    "Route",
    "RouteCurve",
    "RouteCurves",
    "RouteResult",
    "Zcdp",
    "attacker_bound",
    "delta_from_gdp",
    "delta_from_rdp",
    "delta_from_zcdp",
    "dpsgd_attacker_bound",
    "dpsgd_noise_and_eta",
    "dpsgd_noise_for_eta",
    "dpsgd_noise_for_tpr",
    "epsilon_at",
    "epsilon_from_gdp",
    "eta_from_dpsgd",
    "eta_from_gdp",
    "eta_from_profile",
    "eta_from_rdp",
    "eta_from_zcdp",
    "group_of_two",
    "route_curves",
    "sampling_only_tv",
    "tpr_bound_gdp",
    "tpr_bound_profile",
    "tpr_bound_rdp",
    "tpr_bound_zcdp",
]
