"""``benchmarks/lines.py``: every line falls in the kind its docstring says, once.

The floor it prints is only a floor if a line of code is never counted as documentation or
static text (which would make the floor too low) and every line is counted exactly once.
"""

from __future__ import annotations

import textwrap

from benchtools import load_benchmark


def _lines():
    return load_benchmark("lines")


SOURCE = textwrap.dedent(
    '''\
    """Module docstring,
    two lines."""

    import math
    from dataclasses import dataclass

    # a comment


    @dataclass
    class Result:
        """One line."""

        value: float
        name: str = "x"


    def f(x, label):
        if x < 0:
            raise ValueError(
                f"x={x!r} is out of range"
            )
        check_range("x", x, 0.0, 1.0)
        y = math.sqrt(x)  # a trailing comment keeps the line code
        text = (
            "a static sentence that could live in Markdown, "
            "over two lines"
        )
        said = f"x is {y}"
        shown = st.caption("a call keeps its line")
        w = appkit.url_slider(
            "label",
            "key",
            min_value=0,
            help="static help",
        )
        return Result(
            value=y,
            name=label,
            a=1,
            b=2,
        )
    '''
)

EXPECTED = {
    1: "docstring",
    2: "docstring",
    3: "blank",
    4: "import",
    5: "import",
    7: "comment",
    10: "code",  # @dataclass
    11: "code",  # class Result:
    12: "docstring",
    14: "field",
    15: "field",
    18: "code",  # def
    19: "code",  # if
    20: "validation",
    21: "computed",  # the f-string of the raise claims its line first
    22: "validation",
    23: "validation",
    24: "code",
    25: "code",  # text = (
    26: "static",
    27: "static",
    29: "computed",
    30: "code",
    31: "widget",
    32: "static",  # "label",
    35: "static",  # help="static help",
    36: "widget",
    37: "code",  # return Result(
    38: "plumbing",
    41: "plumbing",
}


def test_each_line_falls_in_its_kind_once():
    lines = _lines()
    kinds = lines.line_kinds(SOURCE)
    assert len(kinds) == len(SOURCE.splitlines())
    for n, kind in EXPECTED.items():
        assert kinds[n] == kind, (n, SOURCE.splitlines()[n - 1], kinds[n])
    counts = lines.classify(SOURCE)
    assert sum(counts.values()) == len(SOURCE.splitlines())
    assert set(counts) <= set(lines.KINDS)


def test_the_floor_never_counts_code_as_removable():
    """The floor keeps every line that is neither documentation nor a pure static string:
    a line with a call or a name on it never counts as static text."""
    lines = _lines()
    kinds = lines.line_kinds(SOURCE)
    removable = {n for n, k in kinds.items() if k in ("blank", "comment", "docstring", "static")}
    for n in removable:
        text = SOURCE.splitlines()[n - 1].strip()
        assert "(" not in text or text.startswith(('"', "'")), (n, text)
