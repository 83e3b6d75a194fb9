"""A page's controls declared in one table: key, label, range, default, step, format and help,
a line each, drawn by one function.

A page writes its controls once, at the top::

    CONTROLS = controls.table(
        slider("eps", "ε (privacy loss)", 0.0, 10.0, 1.0, 0.01, "%.2f", "Smaller ε = …"),
        number("teta", "target η", 0.0, 0.5, 0.1, 0.001, "%.6f", "For example 0.01: …"),
        toggle("logfpr", "low-FPR view (log axes)", False, "Plot from FPR = 10⁻⁶ …"),
        choice("mech", "Mechanism", list(Mechanism), Mechanism.MEAN, NAMES.get, radio=True),
    )

and draws one where it belongs with :func:`draw` (``draw(CONTROLS["eps"])``), or several
with :func:`draw_all`. A row may be changed where it is drawn (``draw(CONTROLS["eta"],
hi=limit)``) for a range that depends on another control. Every control is bound to the
page's link through :mod:`appkit.state` (its key is the URL parameter; a value a link cannot
have is refused with a sentence); the table is only their declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from . import state

__all__ = [
    "Control",
    "choice",
    "draw",
    "draw_all",
    "multi",
    "number",
    "slider",
    "span",
    "table",
    "text",
    "toggle",
]

Kind = Literal["slider", "span", "number", "choice", "multi", "toggle", "text"]


@dataclass(frozen=True)
class Control:
    """One control of a page: its URL ``key``, ``label``, ``kind``, ``default``; for a number
    its range ``lo``–``hi``, ``step`` and ``fmt`` (printf style); for a choice its ``options``
    and their ``names`` (a mapping or a function; default ``str``), shown as radio buttons if
    ``radio``; ``help`` (the tooltip); ``validate`` (raises ``ValueError`` for a value in range
    but not allowed); ``extra``: the remaining keyword arguments of its ``appkit.state`` widget."""

    key: str
    label: str
    kind: Kind
    default: Any
    lo: Any = None
    hi: Any = None
    step: Any = None
    fmt: str | None = None
    help: str | None = None
    options: Sequence[Any] = ()
    names: Mapping[Any, str] | Callable[[Any], str | None] | None = None
    radio: bool = False
    validate: Callable[[Any], None] | None = None
    extra: tuple[tuple[str, Any], ...] = ()


def slider(
    key: str,
    label: str,
    lo: float,
    hi: float,
    default: float,
    step: float | None = None,
    fmt: str | None = None,
    help: str | None = None,
    **extra: Any,
) -> Control:
    """A slider (integer when ``lo``, ``hi`` and ``default`` are ints)."""
    return _row(key, label, "slider", default, lo, hi, step, fmt, help, extra)


def span(
    key: str,
    label: str,
    lo: float,
    hi: float,
    default: tuple[float, float],
    step: float | None = None,
    fmt: str | None = None,
    help: str | None = None,
    **extra: Any,
) -> Control:
    """A range slider (two ends)."""
    return _row(key, label, "span", tuple(default), lo, hi, step, fmt, help, extra)


def number(
    key: str,
    label: str,
    lo: float,
    hi: float,
    default: float,
    step: float | None = None,
    fmt: str | None = None,
    help: str | None = None,
    **extra: Any,
) -> Control:
    """A number box (what is typed is checked against the range, with a sentence)."""
    return _row(key, label, "number", default, lo, hi, step, fmt, help, extra)


def choice(
    key: str,
    label: str,
    options: Sequence[Any],
    default: Any,
    names: Mapping[Any, str] | Callable[[Any], str | None] | None = None,
    help: str | None = None,
    *,
    radio: bool = False,
    **extra: Any,
) -> Control:
    """One of ``options`` (a selectbox, or radio buttons)."""
    return Control(
        key,
        label,
        "choice",
        default,
        help=help,
        options=tuple(options),
        names=names,
        radio=radio,
        extra=tuple(extra.items()),
    )


def multi(
    key: str,
    label: str,
    options: Sequence[Any],
    default: Sequence[Any],
    names: Mapping[Any, str] | Callable[[Any], str | None] | None = None,
    help: str | None = None,
    **extra: Any,
) -> Control:
    """Any number of ``options``."""
    return Control(
        key,
        label,
        "multi",
        tuple(default),
        help=help,
        options=tuple(options),
        names=names,
        extra=tuple(extra.items()),
    )


def toggle(key: str, label: str, default: bool = False, help: str | None = None) -> Control:
    """On or off."""
    return Control(key, label, "toggle", bool(default), help=help)


def text(key: str, label: str, default: str, max_chars: int, help: str | None = None) -> Control:
    """A line of text (shown as text, never as Markdown)."""
    return Control(key, label, "text", default, hi=max_chars, help=help)


def _row(
    key: str,
    label: str,
    kind: Kind,
    default: Any,
    lo: Any,
    hi: Any,
    step: Any,
    fmt: str | None,
    help: str | None,
    extra: dict[str, Any],
) -> Control:
    validate = extra.pop("validate", None)
    return Control(
        key,
        label,
        kind,
        default,
        lo,
        hi,
        step,
        fmt,
        help,
        validate=validate,
        extra=tuple(extra.items()),
    )


def table(*rows: Control) -> dict[str, Control]:
    """The page's controls by key (in the order given).

    Raises
    ------
    ValueError
        If two rows share a key (one URL parameter each).
    """
    out: dict[str, Control] = {}
    for row in rows:
        if row.key in out:
            raise ValueError(
                f"two controls share the key {row.key!r}: a link could not tell them apart"
            )
        out[row.key] = row
    return out


def _names(c: Control) -> Callable[[Any], str | None]:
    if c.names is None:
        return str
    if isinstance(c.names, Mapping):
        names = c.names
        return lambda v: names.get(v, str(v))
    return c.names


def draw(control: Control, **changes: Any) -> Any:
    """Draw ``control`` (with ``changes`` to its row, e.g. ``hi=…``) and return its value."""
    c = replace(control, **changes) if changes else control
    extra = dict(c.extra)
    if c.kind == "slider":
        return state.url_slider(
            c.label, c.key, min_value=c.lo, max_value=c.hi, default=c.default, step=c.step,
            format=c.fmt, help=c.help, validate=c.validate, **extra,
        )  # fmt: skip
    if c.kind == "span":
        return state.url_range_slider(
            c.label, c.key, min_value=c.lo, max_value=c.hi, default=c.default, step=c.step,
            format=c.fmt, help=c.help, **extra,
        )  # fmt: skip
    if c.kind == "number":
        return state.url_number(
            c.label, c.key, min_value=c.lo, max_value=c.hi, default=c.default, step=c.step,
            format=c.fmt, help=c.help, validate=c.validate, **extra,
        )  # fmt: skip
    if c.kind == "choice":
        widget = "radio" if c.radio else "selectbox"
        return state.url_select(
            c.label, c.key, c.options, default=c.default, widget=widget, format_func=_names(c),
            help=c.help, **extra,
        )  # fmt: skip
    if c.kind == "multi":
        return state.url_multiselect(
            c.label, c.key, c.options, default=c.default, format_func=_names(c), help=c.help,
            **extra,
        )  # fmt: skip
    if c.kind == "toggle":
        return state.url_toggle(c.label, c.key, default=c.default, help=c.help, **extra)
    return state.url_text(c.label, c.key, default=c.default, max_chars=c.hi, help=c.help, **extra)


def draw_all(controls: Mapping[str, Control], *keys: str) -> dict[str, Any]:
    """Draw the controls ``keys`` (all of them, in the table's order, without) in order; their
    values by key."""
    return {k: draw(controls[k]) for k in (keys or tuple(controls))}
