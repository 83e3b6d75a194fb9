"""Validation at mipcore's public boundary.

Every public function calls these helpers on its inputs, so that out-of-domain
input raises ``ValueError`` naming the parameter, the offending value and the
allowed range -- never a NaN, an overflow warning or a traceback from deep inside
NumPy.
"""

from __future__ import annotations

import math
import numbers
from enum import Enum
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "as_enum",
    "as_float_array",
    "as_generator",
    "check_int",
    "check_range",
    "scalar_or_array",
]

E = TypeVar("E", bound=Enum)


def _show(value: object) -> str:
    """A short rendering of ``value``: the number, up to 4 entries, or the array's shape."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested sequences
        return repr(value)
    if arr.ndim == 0:
        return repr(arr.item())
    flat = arr.ravel()
    if flat.size <= 4:
        return repr(flat.tolist())
    return f"array of shape {arr.shape}"


def as_float_array(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """``value`` as a float64 array; ``ValueError`` if it is not numeric, is boolean or has NaN.

    Booleans are refused (``eta=True`` is a mistake, not 1.0).
    """
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "b"
    ):
        raise ValueError(f"{name}={_show(value)} is a boolean; a number is required")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None
    if np.isnan(arr).any():
        bad = arr[np.isnan(arr)] if arr.ndim else arr
        raise ValueError(f"{name}={_show(value)} contains NaN ({_show(bad)}); a number is required")
    return arr


def check_range(
    name: str,
    value: ArrayLike,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    hint: str = "",
) -> NDArray[np.float64]:
    """Return ``value`` as a float array after checking ``lo <= value <= hi``.

    ``lo_open``/``hi_open`` make the corresponding end exclusive. The error
    message names the parameter, its value and the allowed range, e.g.
    ``eta=0.7 is out of range: allowed 0 < eta <= 0.5``; for arrays it also lists
    the offending entries.
    """
    arr = as_float_array(name, value)
    ok = np.ones(arr.shape, dtype=bool)
    ok &= (arr > lo) if lo_open else (arr >= lo)
    ok &= (arr < hi) if hi_open else (arr <= hi)
    if not ok.all():
        # an infinite end is shown only when it is excluded ("0 <= sigma < inf": finite)
        left = "" if lo == -math.inf and not lo_open else f"{_fmt(lo)} {'<' if lo_open else '<='} "
        right = "" if hi == math.inf and not hi_open else f" {'<' if hi_open else '<='} {_fmt(hi)}"
        rng = f"{left}{name}{right}"
        bad = arr[~ok] if arr.ndim else arr
        shown = _show(value) if arr.ndim == 0 else f"{_show(value)} (offending: {_show(bad)})"
        msg = f"{name}={shown} is out of range: allowed {rng}"
        if hint:
            msg += f" ({hint})"
        raise ValueError(msg)
    return arr


def check_int(
    name: str, value: object, lo: int | None = None, hi: int | None = None, *, even: bool = False
) -> int:
    """Return ``value`` as a Python int, checking type, bounds and parity.

    Integral floats (``4.0``) are accepted; booleans, non-integral and non-finite numbers
    are refused.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} must be an integer, not a boolean")
    if isinstance(value, numbers.Integral):
        iv = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        iv = int(float(value))
    else:
        raise ValueError(f"{name}={value!r} must be an integer")
    if (lo is not None and iv < lo) or (hi is not None and iv > hi):
        lo_s = "" if lo is None else f"{lo} <= "
        hi_s = "" if hi is None else f" <= {hi}"
        raise ValueError(f"{name}={iv} is out of range: allowed {lo_s}{name}{hi_s}")
    if even and iv % 2:
        raise ValueError(f"{name}={iv} must be even")
    return iv


def as_enum(name: str, value: object, enum: type[E]) -> E:
    """``value`` as a member of ``enum`` (the member itself or its value, e.g. a string).

    ``ValueError`` names the parameter and lists the allowed values.
    """
    if isinstance(value, enum):
        return value
    try:
        return enum(value)
    except ValueError:
        allowed = tuple(m.value for m in enum)
        raise ValueError(f"{name}={value!r} is not one of {allowed}") from None


def scalar_or_array(result: ArrayLike, *inputs: ArrayLike | None) -> float | NDArray[np.float64]:
    """Return a Python float when every input was a scalar (or None), else the result as a float array."""
    if all(x is None or np.ndim(x) == 0 for x in inputs):
        return float(np.asarray(result).reshape(()))
    return np.asarray(result, dtype=np.float64)


def _fmt(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
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
