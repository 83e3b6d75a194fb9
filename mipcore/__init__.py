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

mipcore never imports Streamlit.
"""

from . import bounds, noise

__all__ = ["bounds", "noise"]
__version__ = "0.1.0"
