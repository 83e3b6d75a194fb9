"""Numbers for sentences: how pages (and headless figure text) print a float.

Pure Python so that both ``appkit`` (the Streamlit side) and ``mipcore.plots`` use the
same rules: plain notation between 1e-4 and 1e6, ``m × 10ᵉ`` with a superscript exponent
outside (``5.679 × 10⁶``, ``1 × 10⁻³⁶``), and never the text ``nan``/``inf``. A negative
number keeps the ASCII ``-`` (Streamlit reads it to point a metric's delta arrow down).
"""

from __future__ import annotations

import math

__all__ = ["fmt_num", "fmt_pct", "superscript"]

_SUP = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def superscript(n: int) -> str:
    """An integer in superscript digits: ``superscript(-36) == "⁻³⁶"``."""
    return str(int(n)).translate(_SUP)


def fmt_num(x: float | None, digits: int = 4) -> str:
    """Human formatting of a number for page text: never prints 'nan'.

    Uses plain notation between 1e-4 and 1e6 and scientific notation outside.
    """
    if x is None:
        return "—"
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    ax = abs(x)
    if 1e-4 <= ax < 1e6:
        text = f"{x:.{digits}g}"
        if "e" in text:  # '.Ng' switches to e-notation from 10**digits on
            text = f"{float(text):.0f}"
        return text
    mant, exp = f"{x:.{max(digits - 1, 0)}e}".split("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant} × 10{superscript(int(exp))}"


def fmt_pct(p: float | None, digits: int = 1) -> str:
    """A probability as a percentage with a narrow space, e.g. ``73.1 %`` (never ``nan %``)."""
    if p is None or math.isnan(float(p)):
        return "—"
    return f"{100 * float(p):.{digits}f} %"
