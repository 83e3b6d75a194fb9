"""Proposition 11: a natural algorithm whose spread σ stays O(1) while its sensitivity Δ explodes.

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Proposition 11), Appendix D (proof
sketch) and Section 5.1. All numbers come from :mod:`mipcore.prop11` (exact /
certified); the figures from :mod:`mipcore.plots.prop11_figs`.

The page's body is :func:`app_pages._prop11_page.render` and its caches are in
:mod:`app_pages._prop11_cache`: imported modules are compiled once per process, while this
script is re-read and re-compiled on every ``AppTest`` run (see ``_prop11_page``).
"""

from app_pages._prop11_page import render

render()
