"""mipcore: the computational core of MIP Explorer.

Membership inference privacy (MIP), from Izzo, Yoon, Arık and Zou, *Provable Membership
Inference Privacy*, TMLR 2024, arXiv:2211.06582: an algorithm is η-MIP when no attacker,
shown its output and a record, can tell whether the record was in the random training
half with accuracy above 1/2 + η.

Theory, one module per concept of the papers:

* :mod:`mipcore.bounds` -- Theorem 4 (DP ⇒ MIP, tight), its inverse, Theorem 8 (corrected:
  TPR ≤ FPR + 2η) and the (ε, δ)-DP hypothesis-testing region.
* :mod:`mipcore.noise` -- noise scales that certify η-MIP directly (Theorem 9, Corollary 14)
  or through DP (Laplace mechanism + Theorem 4), their inverses and crossovers.
* :mod:`mipcore.noise_laws` -- the additive noise laws, the Theorem 9 sampler, log-densities.
* :mod:`mipcore.mechanism` -- the MIP noise mechanism (Corollary 10, Algorithm 1).
* :mod:`mipcore.optimal_attack` -- the optimal attacker (Proposition 2), exactly.
* :mod:`mipcore.prop11` -- the Proposition 11 construction, exactly;
  :mod:`mipcore.prop11_attack` -- its exact MIP level by enumeration.
* :mod:`mipcore.constructions` -- Theorem 4's tightness and the Theorem 5 counterexamples.
* :mod:`mipcore.audit_stats` -- Clopper–Pearson, ε and η lower bounds from audit counts.
* :mod:`mipcore.canary_audit` -- the membership game against a mechanism with a canary.
* :mod:`mipcore.score_audit` -- what a membership attack's scores prove: ε, η and μ lower
  bounds, ROC, AUC and TPR at FPR; the one-run audit of Steinke, Nasr and Jagielski.
* :mod:`mipcore.theorem9` -- what Theorem 9's noise certifies in d dimensions (½(1 − exp(−1/c)),
  dimension-free and tight) and the paper's proof repaired for d.
* :mod:`mipcore.guarantees` -- any guarantee (ε, δ; a privacy profile; μ-GDP; zCDP; Rényi DP;
  DP-SGD via dp_accounting's PLD accountant) in attacker terms.
* :mod:`mipcore.risk` -- what a guarantee means for a population: best TPR at a given FPR,
  the posterior of a named person, the 100-person icon array.
* :mod:`mipcore.game` -- the "play the attacker" rounds, a game in play and its scores.
* :mod:`mipcore.covariance_gd` -- the algorithms of Section 5.2 (Figure 2): gradient descent
  on a second-moment matrix, its half-split σ and full-batch DP-SGD.
* :mod:`mipcore.mace` -- MACE: the Bayes-optimal advantage estimated from samples.
* :mod:`mipcore.reference_data` -- reference data in empirical defenses (WERM's privacy).
* :mod:`mipcore.tabular` -- an upload parser no file can stall.

Experiments the app runs (one small typed result each): :mod:`mipcore.experiments`.
Chart builders (Vega-Lite specifications, headless; PNG and SVG by vl-convert): :mod:`mipcore.plots`.

mipcore never imports Streamlit and never caches; the app's ``appkit`` does both.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import bounds, noise

__version__ = "0.2.0"

#: The headline functions, importable from the top-level package so a caller need not know
#: the module (``from mipcore import certified_eta``). Loaded on first use: ``import mipcore``
#: stays light (dp_accounting, scikit-learn and mpmath load only when needed).
_CONTRACT = {
    "certified_eta": "theorem9",
    "required_noise_multiplier": "theorem9",
    "best_tpr": "risk",
    "member_posterior_bound": "risk",
    "eta_from_gdp": "guarantees",
    "tpr_bound_gdp": "guarantees",
    "eta_from_profile": "guarantees",
    "eta_from_zcdp": "guarantees",
    "eta_from_rdp": "guarantees",
    "eta_from_dpsgd": "guarantees",
    "dpsgd_noise_for_eta": "guarantees",
    "werm_epsilons": "reference_data",
    "effective_sample_size": "reference_data",
    "equal_privacy_weight": "reference_data",
    "eta_from_epsilon": "bounds",
    "epsilon_from_eta": "bounds",
}

__all__ = ["__version__", "bounds", "noise", *sorted(_CONTRACT)]


def __getattr__(name: str) -> Any:
    module = _CONTRACT.get(name)
    if module is None:
        raise AttributeError(f"module 'mipcore' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_CONTRACT))
