"""Class mode's glue for the "Play the attacker" page: the process's one :class:`Store`, the
client key for its rate limits, the address of the join link, and the chart of a class's
individual scores.

**One Store per process and database URL** (:func:`store`). A Store holds a connection pool,
so it is made once, lazily, on the first class-mode request, and kept for every session of
the process, like :data:`appkit.progress.STORE`. The key is the URL of
:func:`appkit.classroom.default_url`, read on every call, so a test that points
``appkit.settings.DATABASE_URL`` elsewhere gets a Store of its own. Bounded: at most
:data:`_MAX_STORES` (the least recently used is disposed of), so a changing setting cannot
pile up pools. A URL that cannot make a Store raises :class:`StorageUnavailable` each time
(nothing is cached for it: the storage may come back).
"""

from __future__ import annotations

import socket
import threading
from collections import OrderedDict
from typing import Any, Literal
from urllib.parse import urlsplit

import altair as alt
import pandas as pd
import streamlit as st

from mipcore.plots import curves, distributions, style, vega
from mipcore.plots.curves import Look
from mipcore.plots.formatting import fmt_pct
from mipcore.plots.vega import VegaLiteChart

from . import internals, settings
from .classroom import ClassScore, Store, default_url

__all__ = [
    "DASHBOARD_S",
    "STUDENT_WATCH_S",
    "client_key",
    "join_origin",
    "scores_vega",
    "store",
]

_MAX_STORES = 4
#: Seconds between two refreshes of the teacher's dashboard.
DASHBOARD_S = 2
#: Seconds between two looks of a student's page at its class's state (closed, revealed).
STUDENT_WATCH_S = 5
_STORES: OrderedDict[str, Store] = OrderedDict()
_LOCK = threading.Lock()


def store() -> Store:
    """The process's Store for the configured database (made on first use).

    Raises
    ------
    StorageUnavailable
        If the configured URL cannot make a Store (a bad URL, a missing driver).
    """
    url = default_url()
    with _LOCK:
        held = _STORES.get(url)
        if held is not None:
            _STORES.move_to_end(url)
            return held
        made = Store(url)
        _STORES[url] = made
        while len(_STORES) > _MAX_STORES:
            _, old = _STORES.popitem(last=False)
            old.dispose()
        return made


def client_key() -> str | None:
    """A key of the asking client for the store's limit on wrong class codes: its browser
    (:func:`appkit.internals.browser_id`, the same in every tab), else its session (a client
    that sends no cookie), None outside a session (AppTest). Never its address: a school's
    phones share one, and behind a proxy every client has the proxy's."""
    browser = internals.browser_id()
    if browser is not None:
        return f"browser:{browser}"
    run = internals.script_run()
    return None if run is None else f"session:{run.session_id}"


_LOOPBACK = ("localhost", "0.0.0.0", "::", "::1")


def join_origin() -> tuple[str, str | None]:
    """The address the class's join link is built on, and a warning when phones cannot open
    it (or None). ``MIP_EXPLORER_PUBLIC_URL`` when it is set, else the address the teacher's
    browser uses; that one is refused by phones when it is this computer itself (localhost,
    127.x): the warning says so and suggests this computer's address on its network."""
    if settings.PUBLIC_URL:
        public = settings.PUBLIC_URL.rstrip("/")
        if urlsplit(public).scheme in ("http", "https") and urlsplit(public).hostname:
            return public, None
        return public, (
            f"MIP_EXPLORER_PUBLIC_URL is {public!r}, not an address such as "
            "http://192.168.1.20:8501: the link below may not open on a phone."
        )
    try:
        url = str(st.context.url or "")
    except Exception:  # pragma: no cover - outside a browser session
        url = ""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    host = (parts.hostname or "").lower()
    if not (host in _LOOPBACK or host.startswith("127.")):
        return origin, None
    port = f":{parts.port}" if parts.port else ""
    near = _network_address()
    suggest = (
        f" This computer seems to be http://{near}{port} on its network: open the app there, or"
        if near
        else " Open the app at this computer's address on its network, or"
    )
    return origin, (
        f"This link points at this computer itself ({host}): phones cannot open it."
        + suggest
        + " start it with MIP_EXPLORER_PUBLIC_URL set to the address students can reach (README, "
        "Settings)."
    )


def _network_address() -> str | None:
    """This computer's address on its network, or None: a UDP socket "connected" to a
    documentation address picks the route's source address (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("198.51.100.1", 9))
            address = str(s.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


_BINS = 10  # accuracy bins of 10 points: 0–10 %, …, 90–100 %
_X_END = 1.08  # the x axis runs a little past 100 %: a line there is not on the plot's edge

GUARANTEE = "guarantee 1/2 + η"
THRESHOLD = "evidence threshold for this class"
OPTIMAL = "optimal attacker, same rounds"
YOU = "you"
_LOOKS = {
    GUARANTEE: (Look(style.VERMILLION, width=3), "guarantee"),
    THRESHOLD: (Look(style.VERMILLION, "dash", width=2.5), "evidence"),
    OPTIMAL: (Look(style.BLUE, "dot", width=3), "optimal"),
    YOU: (Look(style.BLACK, width=3), "you"),
}


def scores_vega(
    score: ClassScore,
    *,
    corrected: float | None,
    optimal: float | None = None,
    you: float | None = None,
    height: int = 240,
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The players' accuracies (players with at least one answer) in bins of 10 points, as
    bars from zero, with labelled lines: the guarantee ``1/2 + η`` (solid); ``corrected`` --
    the accuracy the best of the class must pass to be evidence once the number of players is
    accounted for (dashed; None: no score can be); ``optimal`` -- the Bayes-optimal attacker
    on the rounds the class answered (dotted; None: not drawn); ``you`` -- the accuracy of the
    student whose phone draws it (None on the teacher's screen); and the best player (a star,
    no name). Each line has its name in the legend and a short label with its value on the
    plot; the x axis runs to 108 % so that a line at 100 % is not on the plot's edge.

    Returns the chart and its table (one row per bin), for the page's CSV download. The
    specification depends only on ``height`` and on which lines and whether a best player are
    drawn: it is built once per look (:func:`mipcore.plots.distributions.chart`).
    """
    accs = [p.accuracy for p in score.players if p.accuracy is not None]
    counts = [0] * _BINS
    for a in accs:
        counts[min(int(a * _BINS), _BINS - 1)] += 1
    table = pd.DataFrame(
        {
            "accuracy_from": [k / _BINS for k in range(_BINS)],
            "accuracy_to": [(k + 1) / _BINS for k in range(_BINS)],
            "players": counts,
        }
    )
    lines = [(GUARANTEE, score.certified_accuracy)]
    for name, value in ((THRESHOLD, corrected), (OPTIMAL, optimal), (YOU, you)):
        if value is not None:
            lines.append((name, value))
    order = sorted(range(len(lines)), key=lambda i: -lines[i][1])  # labels top-down, right first
    row = {i: r for r, i in enumerate(order)}
    rules = pd.DataFrame(
        {
            "accuracy": [v for _, v in lines],
            "line": [n for n, _ in lines],
            "label": [f"{_LOOKS[n][1]} {fmt_pct(v)}" for n, v in lines],
            "ypix": [12 + 18 * row[i] for i in range(len(lines))],
            # room above the highest bar for the labels: an invisible point extends the y axis
            "top": [(max(counts) or 1) * (1.3 + 0.2 * len(lines))] * len(lines),
        }
    )
    datasets = {"rules": rules}
    if accs:
        datasets["best"] = pd.DataFrame({"accuracy": [max(accs)], "players": [0]})
    look = tuple(name for name, _ in lines), bool(accs)
    title = "The players' scores (★ the best)"
    chart = distributions.chart(title, datasets, _scores_layers, *look, height=height, data=table)
    return chart, table


def _scores_layers(names: tuple[str, ...], best: bool) -> list[Any]:
    """The class chart's layers: the bars of players, the lines ``names`` with their labels
    (right of a line near the left edge, else left of it), and the ``best`` player's star."""
    entries = {n: _LOOKS[n][0] for n in names}
    legend = {
        "orient": "bottom",
        "columns": 2,
        "title": None,
        "symbolType": "stroke",  # a short line in the line's own dash, not a dot
        "symbolSize": 400,
        "symbolStrokeWidth": 3,
        "labelLimit": 260,
    }
    drawn = distributions.looks(
        "line", entries, "color", "strokeDash", "strokeWidth", legend=legend
    )
    at = alt.X("accuracy", type="quantitative")
    ypix = alt.Y("ypix", type="quantitative", scale=None, axis=None)
    layers = [
        distributions.own()
        .mark_bar(color=style.BLUE, opacity=0.85, stroke=style.INK, strokeWidth=0.5)
        .encode(
            x=alt.X(
                "accuracy_from",
                type="quantitative",
                title="accuracy of a player",
                scale=alt.Scale(domain=[0, _X_END], nice=False),
                axis=alt.Axis(format=".0%", values=[k / 10 for k in range(11)]),
            ),
            x2=alt.X2("accuracy_to"),
            y=alt.Y("players", type="quantitative", title="players", axis=alt.Axis(tickMinStep=1)),
            y2=alt.Y2Datum(0),
        ),
        curves.dataset("rules")
        .mark_point(opacity=0)
        .encode(x=at, y=alt.Y("top", type="quantitative")),
        curves.dataset("rules").mark_rule().encode(x=at, **drawn),
    ]
    sides: tuple[tuple[Literal["left", "right"], str], ...] = (
        ("right", "datum.accuracy >= 0.3"),
        ("left", "datum.accuracy < 0.3"),
    )
    for side, keep in sides:
        text: dict[str, Any] = {
            "align": side,
            "dx": -5 if side == "right" else 5,
            "fontSize": 13,
            "fontWeight": 600,
        }
        label = curves.dataset("rules").transform_filter(keep)
        # a white halo under each label, so that a line crossing it does not cut its letters
        layers.append(
            label.mark_text(**text, stroke="white", strokeWidth=4, strokeJoin="round").encode(
                x=at, y=ypix, text=alt.Text("label", type="nominal"), color=alt.value("white")
            )
        )
        layers.append(
            label.mark_text(**text).encode(
                x=at, y=ypix, text=alt.Text("label", type="nominal"), color=drawn["color"]
            )
        )
    if best:
        star = curves.dataset("best").mark_point(shape=vega.STAR, size=260, filled=True)
        layers.append(
            star.encode(x=at, y=alt.Y("players", type="quantitative"), color=alt.value(style.BLACK))
        )
    return layers
