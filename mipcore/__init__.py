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
* :mod:`mipcore.covariance_gd` -- the base algorithm of Section 5.2 (Figure 2).
* :mod:`mipcore.mace` -- MACE: the Bayes-optimal advantage estimated from samples.

Lessons and experiments (one typed result per page): :mod:`mipcore.lessons`.
Figure builders (Plotly, headless): :mod:`mipcore.plots`.

mipcore never imports Streamlit and never caches; the app's ``appkit`` does both.
"""

from . import bounds, noise

__all__ = ["__version__", "bounds", "noise"]
__version__ = "0.2.0"
