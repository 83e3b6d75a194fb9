"""Widgets whose value lives in the URL, so a teacher can share an exact view.

Each ``url_*`` function wraps one Streamlit widget:

1. On the first run of the page in a session, the widget's initial value is read
   from ``st.query_params[key]``. A missing parameter gives the default; an
   unparsable or out-of-range one gives the default *and a warning sentence*
   (shown in the page's message area, see :func:`messages`).
2. After the widget has rendered, its current value is written back to the URL
   (and removed from it when equal to the default, to keep links short).

The widget's value is held in ``st.session_state[key]``, so the URL parameter name
is the widget key. Keys must therefore be short, URL-friendly and unique per page.

**Why not Streamlit's own ``bind="query-params"``** (Streamlit 1.67; read for this module,
which it would otherwise replace): it drops an invalid link value silently ("ignored and
removed from the URL"), where a shared link that asks for something the page cannot show must
say so; it writes a range slider as repeated parameters (``?p=10&p=90``), where every link
shared so far says ``p=10,90``; it matches options by their text only, where old links use an
enum's legacy spellings; and the URL is written by the browser's code, which
``streamlit.testing`` (AppTest) does not run, so the page tests could no longer check a link
round trip. ``persist_state`` keeps a value across pages, which this module must not do for
the keys that pages share (``n``, ``M``, ``eta``: a link shows what it says).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import streamlit as st

from . import internals
from .safe import plain

__all__ = [
    "messages",
    "url_multiselect",
    "url_number",
    "url_range_slider",
    "url_select",
    "url_slider",
    "url_text",
    "url_toggle",
    "warn",
]

_MSG_KEY = "_appkit_message_area"
_OWNER_KEY = "_appkit_key_owner"  # widget key -> the page that last drew it


def messages():
    """Create the page's message area (call once, near the top of a page).

    URL warnings raised later in the run are written into it, so they appear
    under the title rather than wherever the widget happens to be.
    """
    area = st.container()
    st.session_state[_MSG_KEY] = (area, _page_id())
    return area


def _page_id():
    run = internals.script_run()
    return None if run is None else run.page_script_hash


def warn(text: str) -> None:
    """Show a warning in the page's message area (or inline if this run has none)."""
    stored = st.session_state.get(_MSG_KEY)
    area = stored[0] if stored is not None and stored[1] == _page_id() else None
    (area if area is not None else st).warning(text, icon="⚠️")


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(v) if not v.is_integer() else str(int(v)) if abs(v) < 1e15 else repr(v)
    return str(v)


def _encode(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt_value(v) for v in value)
    return _fmt_value(value)


def _shown(value: Any) -> str:
    """A default or current value of the app's own as it appears in a sentence."""
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt_value(v) for v in value) or "none"
    return _fmt_value(value)


def _init_from_url(
    key: str,
    default: Any,
    parse: Callable[[Any], Any],
    describe: str,
    accepts: Callable[[Any], bool],
    *,
    label: str = "",
    owner: str | None = None,
) -> None:
    """Seed st.session_state[key] from the URL on the first run; refuse bad values aloud.

    Pages share ``st.session_state`` and some share key names (``n``, ``M``, ``eta``): a
    value another page left under this key is dropped, so every page starts from its own
    URL or default (a link to a page shows exactly what it says). ``owner`` names a widget
    that every page draws (the presenter toggle), which is never dropped.

    A value this page holds is kept only if ``accepts(value)`` (right type and range). A
    value it refuses -- from a link, or from a modified client that sent a value outside
    the widget's range -- is never silently replaced: a warning sentence names the value,
    what is allowed and what is used instead. Everything user-derived in the sentence is
    shown as plain text (:func:`appkit.safe.plain`), never as Markdown.
    """
    owners = st.session_state.setdefault(_OWNER_KEY, {})
    page = owner or _page_id()
    if key in st.session_state and owners.get(key, page) != page:
        del st.session_state[key]  # left by another page: this page starts from its URL/default
    owners[key] = page
    what = f"“{label or key}”"
    if key in st.session_state:
        held = st.session_state[key]
        try:
            ok = accepts(held)
        except (ValueError, TypeError, OverflowError):
            ok = False
        if ok:
            return
        del st.session_state[key]
        warn(
            f"The value {plain(_shown(held))} received for {what} is not allowed ({describe}) "
            f"and was refused; using the default, {_shown(default)}."
        )
    value = default
    raw_list = st.query_params.get_all(key)
    if raw_list:
        raw = raw_list[-1] if len(raw_list) == 1 else raw_list
        try:
            value = parse(raw)
        except (ValueError, TypeError, OverflowError) as exc:
            reason = str(exc) or "not understood"
            shown = raw if isinstance(raw, str) else ",".join(raw)
            warn(
                f"The link set {key}={plain(shown, max_chars=80)}, which is not valid "
                f"for {what} ({plain(reason, max_chars=120)}; allowed: {describe}). "
                f"Using the default, {_shown(default)}."
            )
            value = default
    st.session_state[key] = value


def _same_option(v: Any, o: Any) -> bool:
    """``v`` is the option ``o``: equal and of the same type -- for enums, the same class by
    name and the same value (a reloaded module makes a new class with the same members)."""
    if isinstance(o, Enum):
        return (
            isinstance(v, Enum)
            and type(v).__qualname__ == type(o).__qualname__
            and v.value == o.value
        )
    return bool(v == o) and type(v) is type(o)


def _canonical(v: Any, options: list[Any]) -> Any:
    """The option object itself for a value that is the same option (see :func:`_same_option`)."""
    return next((o for o in options if _same_option(v, o)), v)


def _option_parser(options: list[Any]) -> Callable[[str], Any]:
    """Match URL text against the options: by their text, and for enums by the enum itself
    (so an enum's legacy spellings, handled by its ``_missing_``, still work)."""
    by_text = {_fmt_value(o): o for o in options}
    enum_type = type(options[0]) if options and isinstance(options[0], Enum) else None

    def parse(text: str) -> Any:
        if text in by_text:
            return by_text[text]
        if enum_type is not None:
            try:
                member = enum_type(text)
            except ValueError:
                pass
            else:
                if member in options:
                    return member
        raise ValueError(f"“{text}” is not one of the choices")

    return parse


def _write_url(key: str, value: Any, default: Any) -> None:
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
        return
    encoded = _encode(value)
    if st.query_params.get(key) != encoded:
        st.query_params[key] = encoded


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _parse_number(raw: Any, *, integer: bool, lo: float, hi: float) -> float | int:
    if not isinstance(raw, str):
        raise ValueError("given more than once")
    text = raw.strip()
    try:
        x = float(text)
    except ValueError:
        raise ValueError("not a number") from None
    if not math.isfinite(x):
        raise ValueError("not a finite number")
    if integer:
        if not x.is_integer():
            raise ValueError("not a whole number")
        x = int(x)
    if x < lo or x > hi:
        raise ValueError("out of range")
    return x


def url_slider(
    label: str,
    key: str,
    *,
    min_value,
    max_value,
    default,
    step=None,
    format: str | None = None,
    help: str | None = None,
    container=None,
    validate: Callable[[Any], None] | None = None,
):
    """A numeric ``st.slider`` bound to the URL parameter ``key``.

    Integer sliders when ``min_value``, ``max_value`` and ``default`` are ints.
    ``validate`` may raise ``ValueError`` for values that are in range but still
    not allowed (e.g. an odd n).
    """
    integer = all(
        isinstance(v, int) and not isinstance(v, bool) for v in (min_value, max_value, default)
    )

    def parse(raw):
        x = _parse_number(raw, integer=integer, lo=min_value, hi=max_value)
        if validate is not None:
            validate(x)
        return x

    def accepts(v):
        return (
            _is_number(v) and (not integer or float(v).is_integer()) and min_value <= v <= max_value
        )

    _init_from_url(
        key, default, parse, f"a number from {min_value} to {max_value}", accepts, label=label
    )
    box = container if container is not None else st
    value = box.slider(
        label,
        min_value=min_value,
        max_value=max_value,
        step=step,
        format=format,
        help=help,
        key=key,
    )
    _write_url(key, value, default)
    return value


def url_range_slider(
    label: str,
    key: str,
    *,
    min_value,
    max_value,
    default: tuple,
    step=None,
    format: str | None = None,
    help: str | None = None,
    container=None,
):
    """A two-handle ``st.slider`` bound to the URL parameter ``key`` (``lo,hi``)."""
    integer = all(
        isinstance(v, int) and not isinstance(v, bool) for v in (min_value, max_value, *default)
    )

    def parse(raw):
        if not isinstance(raw, str):
            raise ValueError("given more than once")
        parts = raw.split(",")
        if len(parts) != 2:
            raise ValueError("needs two values, lo,hi")
        lo, hi = (_parse_number(p, integer=integer, lo=min_value, hi=max_value) for p in parts)
        if not lo < hi:
            raise ValueError("lo must be below hi")
        return (lo, hi)

    def accepts(v):
        return (
            isinstance(v, (list, tuple))
            and len(v) == 2
            and all(_is_number(x) for x in v)
            and min_value <= v[0] <= v[1] <= max_value
        )

    _init_from_url(
        key,
        tuple(default),
        parse,
        f"two numbers lo,hi from {min_value} to {max_value}",
        accepts,
        label=label,
    )
    box = container if container is not None else st
    value = box.slider(
        label,
        min_value=min_value,
        max_value=max_value,
        step=step,
        format=format,
        help=help,
        key=key,
    )
    value = tuple(value)
    _write_url(key, value, tuple(default))
    return value


def url_number(
    label: str,
    key: str,
    *,
    min_value,
    max_value,
    default,
    step=None,
    format: str | None = None,
    help: str | None = None,
    container=None,
    validate: Callable[[Any], None] | None = None,
):
    """A ``st.number_input`` bound to the URL parameter ``key``; typed values are checked.

    The browser does not clamp what is typed: a value outside ``[min_value, max_value]`` (or
    an empty box) stays visible in the box, a sentence under it says it was refused and what
    is allowed, and the function returns the last accepted value (the default at first), so
    the results never silently use something other than what the page says.
    """
    integer = all(
        isinstance(v, int) and not isinstance(v, bool) for v in (min_value, max_value, default)
    )
    last_key = f"_appkit_last_ok_{key}"

    def parse(raw):
        x = _parse_number(raw, integer=integer, lo=min_value, hi=max_value)
        if validate is not None:
            validate(x)
        return x

    def in_range(v):
        return (
            _is_number(v) and (not integer or float(v).is_integer()) and min_value <= v <= max_value
        )

    def accepts(v):  # what the box may hold: a number (range checked below) or empty
        return v is None or _is_number(v)

    describe = f"a number from {min_value} to {max_value}"
    _init_from_url(key, default, parse, describe, accepts, label=label)
    box = container if container is not None else st
    if integer:  # value=None hides the type from Streamlit: keep whole numbers whole
        step = 1 if step is None else step
        format = "%d" if format is None else format
    typed = box.number_input(label, value=None, step=step, format=format, help=help, key=key)
    fallback = st.session_state.get(last_key, default)
    problem = None
    if typed is None:
        problem = "The box is empty"
    elif not in_range(typed):
        problem = f"{plain(_shown(typed))} is outside the allowed range"
    elif validate is not None:
        try:
            validate(typed)
        except ValueError as exc:
            problem = f"{plain(_shown(typed))} is not allowed ({plain(str(exc))})"
    if problem is not None:
        box.error(
            f"{problem}: “{label}” takes {describe}. "
            f"The results below still use {_shown(fallback)}.",
            icon="🚫",
        )
        _write_url(key, fallback, default)
        return fallback
    value = int(typed) if integer else float(typed)
    st.session_state[last_key] = value
    _write_url(key, value, default)
    return value


def url_select(
    label: str,
    key: str,
    options: Sequence,
    *,
    default,
    widget: str = "selectbox",
    format_func: Callable[[Any], str | None] = str,
    help: str | None = None,
    container=None,
    horizontal: bool = True,
):
    """A ``st.selectbox`` (or, with ``widget="radio"``, a ``st.radio``) bound to ``key``.

    URL values are matched against ``str(option)``.
    """
    options = list(options)
    by_text = {_fmt_value(o): o for o in options}
    match = _option_parser(options)

    def parse(raw):
        if not isinstance(raw, str):
            raise ValueError("given more than once")
        return match(raw)

    def accepts(v):
        return any(_same_option(v, o) for o in options)

    _init_from_url(key, default, parse, "one of " + ", ".join(by_text), accepts, label=label)
    if key in st.session_state:
        st.session_state[key] = _canonical(st.session_state[key], options)
    box = container if container is not None else st
    if widget == "radio":
        value = box.radio(
            label, options, format_func=format_func, help=help, key=key, horizontal=horizontal
        )
    else:
        value = box.selectbox(label, options, format_func=format_func, help=help, key=key)
    _write_url(key, value, default)
    return value


def url_multiselect(
    label: str,
    key: str,
    options: Sequence,
    *,
    default: Sequence,
    format_func: Callable[[Any], str | None] = str,
    help: str | None = None,
    container=None,
    min_selected: int = 0,
    max_selected: int | None = None,
):
    """A ``st.multiselect`` bound to ``key`` (comma-separated in the URL; ``key=`` is empty).

    With the default ``min_selected=0`` every state the widget can reach, including an
    empty selection (which the page should answer with a sentence), round-trips through
    a link. With ``min_selected >= 1`` a shorter selection -- from a link or from the
    user emptying the widget -- falls back to the default.
    """
    options = list(options)
    match = _option_parser(options)

    def parse(raw):
        items = raw.split(",") if isinstance(raw, str) else list(raw)
        items = [i.strip() for i in items if i.strip()]
        picked, bad = [], []
        for i in items:
            try:
                picked.append(match(i))
            except ValueError:
                bad.append(i)
        if bad:
            raise ValueError(f"{', '.join(bad)} not among the choices")
        if len(items) < min_selected:
            raise ValueError(f"needs at least {min_selected}")
        if max_selected is not None and len(items) > max_selected:
            raise ValueError(f"at most {max_selected}")
        return list(dict.fromkeys(picked))

    def accepts(v):
        return (
            isinstance(v, list)
            and all(any(_same_option(x, o) for o in options) for x in v)
            and min_selected <= len(v)
            and (max_selected is None or len(v) <= max_selected)
        )

    _init_from_url(
        key, list(default), parse, "a comma-separated subset of the choices", accepts, label=label
    )
    if key in st.session_state:
        st.session_state[key] = [_canonical(x, options) for x in st.session_state[key]]
    box = container if container is not None else st
    value = box.multiselect(
        label, options, format_func=format_func, help=help, key=key, max_selections=max_selected
    )
    _write_url(key, list(value), list(default))
    return list(value)


def url_toggle(
    label: str,
    key: str,
    *,
    default: bool = False,
    help: str | None = None,
    container=None,
    owner: str | None = None,
):
    """A ``st.toggle`` bound to ``key`` (``1``/``0`` in the URL); ``owner`` as in
    :func:`_init_from_url` (for a toggle every page draws)."""

    def parse(raw):
        text = raw.strip().lower() if isinstance(raw, str) else ""
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError("not 1 or 0")

    _init_from_url(
        key, default, parse, "1 or 0", lambda v: isinstance(v, bool), label=label, owner=owner
    )
    box = container if container is not None else st
    value = box.toggle(label, help=help, key=key)
    _write_url(key, bool(value), default)
    return bool(value)


def url_text(
    label: str,
    key: str,
    *,
    default: str,
    max_chars: int,
    help: str | None = None,
    container=None,
) -> str:
    """A ``st.text_input`` bound to the URL parameter ``key`` (at most ``max_chars``).

    The text is shown in the box, never as Markdown; the page reads it and answers text it
    cannot use with a sentence. A link with a longer text is refused with a sentence and the
    default is used.
    """

    def parse(raw):
        if not isinstance(raw, str):
            raise ValueError("given more than once")
        if len(raw) > max_chars:
            raise ValueError(f"{len(raw)} characters long")
        return raw

    def accepts(v):
        return isinstance(v, str) and len(v) <= max_chars

    describe = f"a text of at most {max_chars} characters"
    _init_from_url(key, default, parse, describe, accepts, label=label)
    box = container if container is not None else st
    value = str(box.text_input(label, key=key, max_chars=max_chars, help=help))
    _write_url(key, value, default)
    return value
