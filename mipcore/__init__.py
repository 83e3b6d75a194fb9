"""mipcore: the computational core of MIP Explorer.

Membership inference privacy (MIP), from "Provable Membership Inference Privacy"
(``../shared/papers/000_ece03c98c31c7b12.txt``): an algorithm is eta-MIP when no
attacker, shown its output and a record, can tell whether the record was in the
random training half with accuracy above 1/2 + eta.

Modules, one per concept of the paper:

* :mod:`mipcore.bounds` -- Theorem 4 (DP -> MIP), its inverse, Theorem 8 (TPR bound),
  the DP hypothesis-testing region.
* :mod:`mipcore.noise` -- noise scales certifying eta-MIP directly (Theorem 9,
  Corollary 14) or through DP (Laplace mechanism + Theorem 4), and their crossover.
* :mod:`mipcore.prop11` -- the Proposition 11 construction, exactly.
* :mod:`mipcore.figure1` -- the Figure 1 comparison and the paper's claims about it.
* :mod:`mipcore.mechanism` -- the noise mechanism (Corollary 10, Algorithm 1).
* :mod:`mipcore.covariance` -- the Section 5.2 experiment (Figure 2): MIP vs DP-SGD.
* :mod:`mipcore.wrap` -- MIP beside the DP Laplace mechanism on a user's statistic.
* :mod:`mipcore.attacks` -- exact optimal attackers (Proposition 2), the counterexamples,
  audit statistics (Clopper-Pearson, epsilon and eta lower bounds), canary audits.
* :mod:`mipcore.mace` -- MACE: Bayes-optimal advantage estimated from samples.
* :mod:`mipcore.plots`, :mod:`mipcore.text` -- figure builders and number formatting.

mipcore never imports Streamlit.
"""

from . import bounds, noise

__all__ = ["bounds", "noise"]
__version__ = "0.1.0"
