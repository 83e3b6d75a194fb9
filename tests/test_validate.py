"""Tests for mipcore._validate: the checks every public function runs on its inputs.

Each helper must refuse out-of-domain input with a ``ValueError`` whose message names the
parameter, shows the value (for arrays: the offending entries) and states the allowed
range; booleans are never numbers; ``scalar_or_array`` gives a Python float exactly when
every input is a scalar.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mipcore._validate import (
    as_enum,
    as_float_array,
    as_generator,
    check_int,
    check_range,
    scalar_or_array,
)

# --------------------------------------------------------------------------- as_float_array


def test_as_float_array_converts_numbers_and_sequences():
    out = as_float_array("x", [1, 2.5, np.int64(3)])
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.5, 3.0]
    assert as_float_array("x", 4).shape == ()


@pytest.mark.parametrize("bad", ["abc", object(), [1, "x"], {"a": 1}])
def test_as_float_array_refuses_non_numbers(bad):
    with pytest.raises(ValueError, match=r"^x=.* is not a number"):
        as_float_array("x", bad)


def test_as_float_array_names_nan_entries():
    with pytest.raises(ValueError, match=r"^eps=\[1\.0, nan\] contains NaN \(\[nan\]\)"):
        as_float_array("eps", [1.0, math.nan])
    with pytest.raises(ValueError, match=r"^eps=nan contains NaN"):
        as_float_array("eps", math.nan)


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), np.array([True, False])])
def test_as_float_array_refuses_booleans(bad):
    with pytest.raises(ValueError, match=r"^eta=.* is a boolean; a number is required"):
        as_float_array("eta", bad)


# --------------------------------------------------------------------------- check_range


def test_check_range_message_names_parameter_value_and_range():
    with pytest.raises(ValueError) as err:
        check_range("eta", 0.7, 0.0, 0.5, lo_open=True)
    assert str(err.value) == "eta=0.7 is out of range: allowed 0 < eta <= 0.5"
    with pytest.raises(ValueError) as err:
        check_range("delta", -0.25, 0.0, 1.0, hi_open=True)
    assert str(err.value) == "delta=-0.25 is out of range: allowed 0 <= delta < 1"


def test_check_range_lists_the_offending_array_entries():
    with pytest.raises(ValueError) as err:
        check_range("fpr", [0.1, 1.5, -2.0, 0.3], 0.0, 1.0)
    msg = str(err.value)
    assert msg.startswith("fpr=[0.1, 1.5, -2.0, 0.3] (offending: [1.5, -2.0])")
    assert msg.endswith("allowed 0 <= fpr <= 1")
    with pytest.raises(ValueError, match=re.escape("(offending: [7.0])")):
        check_range("x", np.r_[np.zeros(10), 7.0], 0.0, 1.0)  # long arrays: shape, then the bad


def test_check_range_shows_excluded_infinite_ends():
    with pytest.raises(
        ValueError, match=re.escape("sigma=inf is out of range: allowed 0 <= sigma < inf")
    ):
        check_range("sigma", math.inf, 0.0, math.inf, hi_open=True)
    with pytest.raises(ValueError, match=re.escape("allowed -inf < canary < inf")):
        check_range("canary", -math.inf, -math.inf, math.inf, lo_open=True, hi_open=True)
    # a closed infinite end is no constraint and is not shown
    assert float(check_range("epsilon", math.inf, 0.0, math.inf)) == math.inf
    with pytest.raises(ValueError) as err:
        check_range("epsilon", -1.0, 0.0, math.inf)
    assert str(err.value) == "epsilon=-1.0 is out of range: allowed 0 <= epsilon"


def test_check_range_hint_and_return_value():
    with pytest.raises(ValueError, match=r"\(eta = 0 needs infinite noise\)$"):
        check_range("eta", 0.0, 0.0, 0.5, lo_open=True, hint="eta = 0 needs infinite noise")
    out = check_range("p", [[0.25], [0.5]], 0.0, 1.0)
    assert out.shape == (2, 1) and out.dtype == np.float64


@given(st.floats(allow_nan=False), st.floats(0, 10), st.floats(0, 10), st.booleans(), st.booleans())
def test_check_range_accepts_exactly_the_interval(x, a, b, lo_open, hi_open):
    lo, hi = min(a, b), max(a, b)
    inside = (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)
    if inside:
        assert float(check_range("x", x, lo, hi, lo_open=lo_open, hi_open=hi_open)) == x
    else:
        with pytest.raises(ValueError, match=r"^x=.* is out of range: allowed "):
            check_range("x", x, lo, hi, lo_open=lo_open, hi_open=hi_open)


# --------------------------------------------------------------------------- check_int


def test_check_int_accepts_integers_and_integral_floats():
    assert check_int("n", 4) == 4 and type(check_int("n", 4)) is int
    assert check_int("n", np.int64(6)) == 6
    assert check_int("n", 8.0) == 8 and type(check_int("n", 8.0)) is int
    assert check_int("n", np.float64(10.0), 2, 10, even=True) == 10


@pytest.mark.parametrize("bad", [True, False, np.bool_(True)])
def test_check_int_refuses_booleans(bad):
    with pytest.raises(ValueError, match=r"^n=.* must be an integer, not a boolean$"):
        check_int("n", bad)


@pytest.mark.parametrize("bad", [2.5, math.inf, math.nan, "4", None, [4]])
def test_check_int_refuses_non_integers(bad):
    with pytest.raises(ValueError, match=r"^n=.* must be an integer$"):
        check_int("n", bad)


def test_check_int_bounds_and_parity_messages():
    with pytest.raises(ValueError) as err:
        check_int("n", 3, 4, 16)
    assert str(err.value) == "n=3 is out of range: allowed 4 <= n <= 16"
    with pytest.raises(ValueError) as err:
        check_int("B", 0, 2)
    assert str(err.value) == "B=0 is out of range: allowed 2 <= B"
    with pytest.raises(ValueError) as err:
        check_int("k", 11, hi=10)
    assert str(err.value) == "k=11 is out of range: allowed k <= 10"
    with pytest.raises(ValueError) as err:
        check_int("n", 7, 4, 16, even=True)
    assert str(err.value) == "n=7 must be even"


# --------------------------------------------------------------------------- as_enum


class _Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


def test_as_enum_accepts_members_and_values():
    assert as_enum("colour", _Colour.RED, _Colour) is _Colour.RED
    assert as_enum("colour", "blue", _Colour) is _Colour.BLUE


@pytest.mark.parametrize("bad", ["green", 3, None])
def test_as_enum_names_parameter_and_allowed_values(bad):
    with pytest.raises(ValueError) as err:
        as_enum("colour", bad, _Colour)
    assert str(err.value) == f"colour={bad!r} is not one of ('red', 'blue')"


# --------------------------------------------------------------------------- scalar_or_array


def test_scalar_or_array_returns_python_float_for_scalars():
    out = scalar_or_array(np.asarray(0.25), 1.0, np.float64(2.0), 3, None)
    assert type(out) is float and out == 0.25
    out0 = scalar_or_array(np.array([[0.5]])[0, 0], np.array(1.0))  # 0-d arrays count as scalars
    assert type(out0) is float


def test_scalar_or_array_returns_float_array_when_any_input_is_an_array():
    out = scalar_or_array(np.array([1, 2]), 1.0, [0.0, 1.0])
    assert isinstance(out, np.ndarray) and out.dtype == np.float64 and out.tolist() == [1.0, 2.0]
    out1 = scalar_or_array(np.array([0.5]), np.array([1.0]))  # shape (1,) stays an array
    assert isinstance(out1, np.ndarray) and out1.shape == (1,)


# --------------------------------------------------------------------------- as_generator


def test_as_generator_passes_generators_and_seeds():
    g = np.random.default_rng(5)
    assert as_generator(g) is g
    a, b = as_generator(7), as_generator(np.int64(7))
    assert a.random() == b.random() == np.random.default_rng(7).random()


@pytest.mark.parametrize("bad", [-1, 1.5, True, None, "3", np.random.RandomState(0)])
def test_as_generator_refuses_everything_else(bad):
    with pytest.raises(
        ValueError, match=r"^rng=.* must be a numpy\.random\.Generator or a non-negative int seed$"
    ):
        as_generator(bad)
