"""Numbers for sentences: the app's one rounding rule, in one place.

Pure Python so that ``appkit`` (the Streamlit side, and the page templates' ``{x:num}``,
``{x:pct}``, ``{x:count}``: :mod:`appkit.prose`) and ``mipcore.plots`` print every number
alike: :func:`fmt_pct` for probabilities and shares, :func:`fmt_num` for other numbers (plain
notation between 1e-4 and 1e6, ``m × 10ᵉ`` with a superscript exponent outside: ``5.679 ×
10⁶``, ``1 × 10⁻³⁶``), :func:`fmt_count` for whole counts and :func:`fmt_mean_count` for an
average count of people; never the text ``nan``/``inf``. A negative number keeps the ASCII
``-`` (Streamlit reads it to point a metric's delta arrow down).
"""

from __future__ import annotations

import math

__all__ = ["fmt_count", "fmt_mean_count", "fmt_num", "fmt_pct", "superscript"]

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


def fmt_count(n: int) -> str:
    """A whole number of people, steps or games, thousands apart by a space (the app's one
    style for counts; a comma would read as a decimal point to half the room).

    Examples
    --------
    >>> fmt_count(9900), fmt_count(10_000_000), fmt_count(42)
    ('9 900', '10 000 000', '42')
    """
    return f"{int(n):,}".replace(",", " ")


def fmt_mean_count(x: float) -> str:
    """An average number of people: 4 significant digits below 1 000 (``2.718``, ``0.02718``),
    one decimal above (``9 900``, ``9 900.1``), thousands apart by a space as in
    :func:`fmt_count`.

    Examples
    --------
    >>> fmt_mean_count(2.71828), fmt_mean_count(9900.0), fmt_mean_count(9900.06)
    ('2.718', '9 900', '9 900.1')
    """
    if x < 1000:
        return fmt_num(x, 4)
    return f"{x:,.1f}".replace(",", " ").removesuffix(".0")


def fmt_pct(p: float | None, digits: int = 1) -> str:
    """A probability or share as a percentage, by the app's one precision rule.

    * a value that is a whole number of 0.0001 % (a share someone chose, 0, 1/2, 1) is shown
      exactly, without trailing zeros: ``1 %``, ``0.25 %``, ``50 %``, ``100 %``;
    * any other value gets ``digits`` decimals (default 1: ``73.1 %``) and at least two
      significant digits (``0.27 %``), and more -- up to 4 -- wherever fewer would show it as
      one of the landmarks 0 %, 50 % or 100 % that it is not: η = tanh(4)/2 = 0.499665… is
      ``49.97 %``, never ``50.0 %``; 1/2 + η = 0.999665… is ``99.97 %``, never ``100.0 %``;
    * a value within 0.0001 % of a landmark it is not says on which side it is:
      ``< 0.0001 %``, ``> 50 %``, ``< 50 %``, ``> 99.9999 %``.

    Always a no-break space (U+00A0) before the ``%``, so that a line never starts with it
    (the app's text wraps at ordinary spaces); ``—`` for None or NaN (never ``nan %``).

    Examples
    --------
    >>> import math
    >>> eta = math.tanh(4) / 2
    >>> shown = fmt_pct(0.5 + math.tanh(0.5) / 2), fmt_pct(eta), fmt_pct(0.5 + eta)
    >>> shown == ("73.1\\u00a0%", "49.97\\u00a0%", "99.97\\u00a0%")  # U+00A0 before each %
    True
    >>> print(*shown, fmt_pct(2.7e-6), sep=" | ")
    73.1 % | 49.97 % | 99.97 % | 0.0003 %
    >>> print(fmt_pct(2.7e-8), fmt_pct(0.5 + 1e-9), fmt_pct(1 - 1e-9), fmt_pct(0.0027), sep=" | ")
    < 0.0001 % | > 50 % | > 99.9999 % | 0.27 %
    >>> print(fmt_pct(0.0025), fmt_pct(0.5), fmt_pct(1.0), fmt_pct(0.6), sep=" | ")
    0.25 % | 50 % | 100 % | 60 %
    """
    if p is None or math.isnan(float(p)):
        return "—"
    x = 100.0 * float(p)
    if math.isinf(x):
        return "∞ %" if x > 0 else "−∞ %"
    exact = round(x, 4)
    if abs(x - exact) <= 1e-13 * max(1.0, abs(x)):  # exact up to float noise
        text = f"{exact:.4f}".rstrip("0").rstrip(".")
        return f"{'0' if text in ('-0', '') else text} %"
    d = max(0, int(digits))
    if 0.0 < abs(x) < 10.0:  # two significant digits (up to 4 decimals)
        d = max(d, min(4, 1 - math.floor(math.log10(abs(x)))))
    while round(x, d) in (0.0, 50.0, 100.0):
        if d >= 4:  # within 0.0001 % of a landmark it is not: say on which side
            landmark = round(x, d)
            if landmark == 0.0:
                return "< 0.0001 %" if x > 0 else "> −0.0001 %"
            if landmark == 100.0:
                return "> 99.9999 %" if x < 100 else "< 100.0001 %"
            return "> 50 %" if x > 50 else "< 50 %"
        d += 1
    return f"{x:.{d}f} %"
