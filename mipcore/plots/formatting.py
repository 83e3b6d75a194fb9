"""Numbers for sentences: how pages (and headless figure text) print a float.

Pure Python so that both ``appkit`` (the Streamlit side) and ``mipcore.plots`` use the
same rules: plain notation between 1e-4 and 1e6, ``m × 10^e`` outside, and never the
text ``nan``/``inf``.
"""

from __future__ import annotations

import math

__all__ = ["fmt_num"]


def fmt_num(x: float, digits: int = 4) -> str:
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
    return f"{mant} × 10^{int(exp)}"
