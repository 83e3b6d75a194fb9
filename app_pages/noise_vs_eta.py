"""Noise vs η (Figure 1): how much noise certifies η-MIP directly, and how much via DP.

Section 5.1 of ``000_ece03c98c31c7b12.txt`` (Figure 1) on the Proposition 11 dataset:
MIP noise from Theorem 9 / Corollary 14, DP noise from the Laplace mechanism and
Theorem 4. The paper's reading of the figure is evaluated by
:func:`mipcore.lessons.figure1.paper_claims`, never restated.

The page's code is in :mod:`app_pages._noise_vs_eta_page`. Streamlit executes this script from the
top on every rerun (AppTest even recompiles it each run); a module is compiled, and its
cached functions are created, once per process. So the script only renders.
"""

from app_pages._noise_vs_eta_page import render

render()
