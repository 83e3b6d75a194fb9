"""What every page shows, element by element, over its controls: a proof that a change of
code changed nothing a visitor sees.

``dump`` runs each page (Streamlit's AppTest, through app.py as a shared link does) in its
default state and then, from a fresh default each time, with every control of the page moved
to its ends (a slider or a number to its minimum and maximum, each option of a choice, a
toggle flipped, a range slider to its full span, a number box the page checks itself to 0,
twice its value and -1, "The maths" opened) -- one state per move. For every state it
writes every element the page drew, in page order, as data: its type and its visible fields
(text, label, value, range, options, help, format, disabled, …; never an element's internal
id), a chart as its Vega-Lite specification and a digest of each of its tables, an image as a
digest, and the page's link (its query string) afterwards. ``diff`` compares two dumps and
prints the first difference of each state; it exits 1 when they differ.

    python benchmarks/pagedump.py dump before.json            # every page
    python benchmarks/pagedump.py dump after.json --pages eta_epsilon,mace
    python benchmarks/pagedump.py dump after.json --pages eta_epsilon --pairs  # two moves too
    python benchmarks/pagedump.py diff before.json after.json

Heavy pages run their jobs as the app does (in their own processes); a dump of every page
takes some minutes. Never asserts; prints times.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

APP = str(ROOT / "app.py")
_VOLATILE = {
    "id",
    "formId",
    "setValue",
    "fragmentId",
    "scriptHash",
    "useContainerWidth",
    "deferredFileId",  # a download built on click: a new id every run
}
_MOVES = 4  # options of a choice tried at most


def _clean(value: Any) -> Any:
    """A proto's dict without the fields that name elements rather than show something."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in sorted(value.items()) if k not in _VOLATILE}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _table_digest(data: bytes) -> str:
    """A chart's table by its content: the Arrow stream read and written again in one chunk,
    so that two equal tables built in different pieces (a string column made of many small
    arrays, or of one) give the same digest."""
    import pyarrow as pa

    if not data:
        return _digest(data)
    table = pa.ipc.open_stream(data).read_all().combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table)
    return _digest(sink.getvalue().to_pybytes())


def _element(node: Any) -> dict[str, Any] | None:
    from google.protobuf.json_format import MessageToDict

    proto = getattr(node, "proto", None)
    kind = getattr(node, "type", type(node).__name__)
    if proto is None:
        return None
    if kind in ("arrow_vega_lite_chart", "vega_lite_chart"):
        tables = [(d.name, _table_digest(d.data.data)) for d in proto.datasets]
        return {
            "type": kind,
            "spec": json.loads(proto.spec) if proto.spec else None,
            "data": _table_digest(proto.data.data) if proto.data.data else None,
            "datasets": tables,
        }
    if kind == "imgs":
        return {"type": kind, "images": [_digest(i.url.encode()) for i in proto.imgs]}
    fields = MessageToDict(proto, preserving_proto_field_name=False)
    for big in ("data", "arrowData"):
        if isinstance(fields.get(big), dict) and "data" in fields[big]:
            fields[big] = _digest(str(fields[big]["data"]).encode())
    return {"type": kind, **_clean(fields)}


def _walk(node: Any, out: list[dict[str, Any]]) -> None:
    children = getattr(node, "children", None)
    if isinstance(children, dict) and children:
        label = getattr(node, "label", None)
        if label is not None or getattr(node, "type", "") in ("expander", "tab", "popover"):
            out.append({"type": getattr(node, "type", "block"), "label": label})
        for key in sorted(children):
            _walk(children[key], out)
        return
    shown = _element(node)
    if shown is not None:
        out.append(shown)


def snapshot(at: Any) -> dict[str, Any]:
    """Every element the page drew, in order, and the page's link."""
    out: list[dict[str, Any]] = []
    _walk(at._tree, out)
    query = {k: at.query_params[k] for k in sorted(at.query_params)}
    return {"elements": out, "query": query, "exceptions": [e.value for e in at.exception]}


def _fresh(script: str, timeout: float) -> Any:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    at.switch_page(script).run()
    return at


def _moves(at: Any) -> list[tuple[str, str, Any]]:
    """(kind, key, value) for every end of every keyed control of the page."""
    moves: list[tuple[str, str, Any]] = []
    for s in at.slider:
        if not s.key:
            continue
        lo, hi = s.min, s.max
        if isinstance(s.value, (tuple, list)):
            moves.append(("slider", s.key, (lo, hi)))
            moves.append(("slider", s.key, (lo, lo)))
        else:
            moves += [("slider", s.key, lo), ("slider", s.key, hi)]
    for n in at.number_input:
        if not n.key:
            continue
        if n.min is not None and n.max is not None:
            moves += [("number_input", n.key, n.min), ("number_input", n.key, n.max)]
        else:  # a box the page checks itself: a small, a large and a refused value
            v = n.value if isinstance(n.value, (int, float)) else 1
            moves += [("number_input", n.key, type(v)(0)), ("number_input", n.key, v * 2)]
            moves.append(("number_input", n.key, type(v)(-1)))
    if any(e.label == "The maths" for e in at.expander):
        moves.append(("unfold", "The maths", True))
    for kind in ("selectbox", "radio", "segmented_control", "pills"):
        for w in getattr(at, kind, []):
            if w.key:
                options = [o for o in w.options if o != w.value][:_MOVES]
                moves += [(kind, w.key, o) for o in options]
    for kind in ("toggle", "checkbox"):
        for w in getattr(at, kind, []):
            if w.key:
                moves.append((kind, w.key, not w.value))
    for w in at.multiselect:
        if w.key:
            moves.append(("multiselect", w.key, list(w.options[:1])))
    return moves


def _move(at: Any, kind: str, key: str, value: Any) -> None:
    if kind == "unfold":
        from appkit.page import folded_key

        at.session_state[folded_key(at.session_state["_appkit_current_page"].spec.key, key)] = True
        at.run()
        return
    widget = getattr(at, kind)(key=key)
    if kind in ("selectbox", "radio", "segmented_control", "pills"):
        # Moved by its label (AppTest shows a choice's options as labels): the label is sent
        # as the browser sends it, whatever function names the page's options.
        from streamlit.runtime.state.common import TESTING_KEY

        at.session_state[TESTING_KEY][widget.id] = str
        widget.set_value(value)
    elif kind in ("toggle", "checkbox"):
        widget.set_value(bool(value))
    else:
        widget.set_value(value)
    at.run()


def dump_page(script: str, timeout: float, pairs: bool = False) -> dict[str, Any]:
    at = _fresh(script, timeout)
    states = {"default": snapshot(at)}
    moves = _moves(at)
    plans = [[m] for m in moves]
    if pairs:  # every two moves of different controls, one after the other
        plans += [[a, b] for i, a in enumerate(moves) for b in moves[i + 1 :] if a[1] != b[1]]
    for plan in plans:
        name = " then ".join(f"{kind}:{key}={value!r}" for kind, key, value in plan)
        t0 = time.perf_counter()
        moved = _fresh(script, timeout)
        try:
            for kind, key, value in plan:
                _move(moved, kind, key, value)
            states[name] = snapshot(moved)
        except Exception as exc:  # a move the page refuses: its error is what it shows
            states[name] = {"error": f"{type(exc).__name__}: {exc}"}
        print(f"  {name} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return states


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="dump every page's states to a JSON file")
    d.add_argument("out", type=Path)
    d.add_argument("--pages", default="", help="page keys, comma-separated (default: all)")
    d.add_argument("--timeout", type=float, default=300.0, help="s a script run may take")
    d.add_argument("--pairs", action="store_true", help="also every two moves in a row")
    c = sub.add_parser("diff", help="compare two dumps")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.command == "diff":
        return _diff(json.loads(args.a.read_text()), json.loads(args.b.read_text()))
    from appkit import registry

    wanted = {k for k in args.pages.split(",") if k}
    out = {}
    for spec in registry.PAGES:
        if spec.script is None or (wanted and spec.key not in wanted):
            continue
        t0 = time.perf_counter()
        print(f"{spec.key} …", file=sys.stderr)
        out[spec.key] = dump_page(spec.script, args.timeout, args.pairs)
        print(f"{spec.key}: {len(out[spec.key])} states in {time.perf_counter() - t0:.0f} s")
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True, default=str))
    return 0


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{path}: {a!r:.200} != {b!r:.200}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}/{k}: only in {'b' if k not in a else 'a'}"
            found = _first_difference(a[k], b[k], f"{path}/{k}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None if len(a) == len(b) else f"{path}: {len(a)} != {len(b)} items"
    return None if a == b else f"{path}: {a!r:.200} != {b!r:.200}"


def _diff(a: dict[str, Any], b: dict[str, Any]) -> int:
    differ = 0
    for page in sorted(set(a) | set(b)):
        if page not in a or page not in b:
            print(f"{page}: only in {'b' if page not in a else 'a'}")
            differ += 1
            continue
        for state in sorted(set(a[page]) | set(b[page])):
            found = _first_difference(a[page].get(state), b[page].get(state), f"{page}/{state}")
            if found:
                print(found)
                differ += 1
        same = sum(1 for s in a[page] if a[page].get(s) == b[page].get(s))
        print(f"{page}: {same} of {len(set(a[page]) | set(b[page]))} states identical")
    print("identical" if not differ else f"{differ} differences")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
