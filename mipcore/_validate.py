"""Validation at mipcore's public boundary.

Every public function calls these helpers on its inputs, so that out-of-domain
input raises ``ValueError`` naming the parameter, the offending value and the
allowed range -- never a NaN, an overflow warning or a traceback from deep inside
NumPy.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["as_float_array", "as_generator", "check_int", "check_range", "scalar_or_array"]


def _show(value) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return repr(arr.item())
    flat = arr.ravel()
    if flat.size <= 4:
        return repr(flat.tolist())
    return f"array of shape {arr.shape}"


def as_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` if it is not numeric."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None
    if np.isnan(arr).any():
        bad = arr[np.isnan(arr)] if arr.ndim else arr
        raise ValueError(f"{name}={_show(value)} contains NaN ({_show(bad)}); a number is required")
    return arr


def check_range(
    name: str,
    value,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    hint: str = "",
) -> np.ndarray:
    """Return ``value`` as a float array after checking ``lo <= value <= hi``.

    ``lo_open``/``hi_open`` make the corresponding end exclusive. The error
    message names the parameter, its value and the allowed range, e.g.
    ``eta=0.7 is out of range: allowed 0 < eta <= 0.5``.
    """
    arr = as_float_array(name, value)
    ok = np.ones(arr.shape, dtype=bool)
    ok &= (arr > lo) if lo_open else (arr >= lo)
    ok &= (arr < hi) if hi_open else (arr <= hi)
    if not ok.all():
        left = "" if lo == -math.inf else f"{_fmt(lo)} {'<' if lo_open else '<='} "
        right = "" if hi == math.inf else f" {'<' if hi_open else '<='} {_fmt(hi)}"
        if not left and not right:  # pragma: no cover - only with an empty range
            rng = "any number"
        else:
            rng = f"{left}{name}{right}"
        bad = arr[~ok] if arr.ndim else arr
        shown = _show(value) if arr.ndim == 0 else f"{_show(value)} (offending: {_show(bad)})"
        msg = f"{name}={shown} is out of range: allowed {rng}"
        if hint:
            msg += f" ({hint})"
        raise ValueError(msg)
    return arr


def check_int(
    name: str, value, lo: int | None = None, hi: int | None = None, *, even: bool = False
) -> int:
    """Return ``value`` as a Python int, checking type, bounds and parity."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name}={value!r} must be an integer")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        lo_s = "" if lo is None else f"{lo} <= "
        hi_s = "" if hi is None else f" <= {hi}"
        raise ValueError(f"{name}={value} is out of range: allowed {lo_s}{name}{hi_s}")
    if even and value % 2:
        raise ValueError(f"{name}={value} must be even")
    return value


def scalar_or_array(result: np.ndarray, *inputs) -> float | np.ndarray:
    """Return a Python float when every input was a scalar, else the array."""
    if all(np.ndim(x) == 0 for x in inputs):
        return float(np.asarray(result).reshape(()))
    return result


def _fmt(x: float) -> str:
    if x == math.inf:
        return "inf"
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def as_generator(rng: np.random.Generator | int) -> np.random.Generator:
    """Accept a ``numpy.random.Generator`` or a non-negative int seed; anything else is an error."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng={rng!r} must be a numpy.random.Generator or a non-negative int seed")
