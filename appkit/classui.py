"""Class mode's glue for the "Play the attacker" page: the process's one :class:`Store`, the
client key for its rate limits, and the chart of a class's individual scores.

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

import hashlib
import threading
from collections import OrderedDict
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from mipcore.plots import curves, distributions, style, vega
from mipcore.plots.curves import Look
from mipcore.plots.vega import VegaLiteChart

from .classroom import ClassScore, Store, default_url

__all__ = ["DASHBOARD_S", "STUDENT_WATCH_S", "client_key", "scores_vega", "store"]

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
    """A key of the asking client for the store's limit on wrong class codes: a digest of its
    address (``st.context.ip_address``), None where there is none (AppTest, a local socket)."""
    try:
        address = st.context.ip_address
    except Exception:  # pragma: no cover - outside a script run
        address = None
    if not address:
        return None
    return hashlib.sha256(f"mip-class-client:{address}".encode()).hexdigest()[:32]


_BINS = 10  # accuracy bins of 10 points: 0–10 %, …, 90–100 %


def scores_vega(
    score: ClassScore, *, corrected: float | None, height: int = 220
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The distribution of the players' accuracies (players with at least one answer) in
    bins of 10 points, the guarantee ``1/2 + η`` (solid rule), ``corrected`` -- the accuracy
    the best of the class must pass to be evidence once the number of players is accounted
    for (dashed rule; None: no score can be) -- and the best player (a star, no name).

    Returns the chart and its table (one row per bin), for the page's CSV download. The
    specification depends only on ``height`` and on whether there are a threshold and a best
    player: it is built once per look (:func:`mipcore.plots.distributions.chart`).
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
    lines = [(_GUARANTEE, score.certified_accuracy)]
    if corrected is not None:
        lines.append((_THRESHOLD, corrected))
    rules = pd.DataFrame({"accuracy": [v for _, v in lines], "line": [n for n, _ in lines]})
    datasets = {"rules": rules}
    if accs:
        datasets["best"] = pd.DataFrame({"accuracy": [max(accs)], "players": [0]})
    look = (corrected is not None, bool(accs))
    title = "The players' scores (★ the best)"
    chart = distributions.chart(title, datasets, _scores_layers, *look, height=height, data=table)
    return chart, table


_GUARANTEE = "guarantee 1/2 + η"
_THRESHOLD = "evidence threshold for this class"


def _scores_layers(threshold: bool, best: bool) -> list[Any]:
    """The class chart's layers: the bins of players, the guarantee's rule (and the evidence
    threshold's, dashed, if ``threshold``) and the ``best`` player's star."""
    lines = {_GUARANTEE: Look(style.VERMILLION)}
    if threshold:
        lines[_THRESHOLD] = Look(style.VERMILLION, "dash")
    dash = distributions.looks("line", lines, "strokeDash", legend={"orient": "bottom"})
    at = alt.X("accuracy", type="quantitative")
    layers = [
        distributions.own()
        .mark_bar(color=style.BLUE, opacity=0.8)
        .encode(
            x=alt.X(
                "accuracy_from",
                type="quantitative",
                title="accuracy of a player",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format=".0%"),
            ),
            x2=alt.X2("accuracy_to"),
            y=alt.Y("players", type="quantitative", title="players", axis=alt.Axis(tickMinStep=1)),
        ),
        distributions.rule(at, "rules", color=style.VERMILLION, strokeWidth=2).encode(
            strokeDash=dash["strokeDash"].title(None)
        ),
    ]
    if best:
        star = curves.dataset("best").mark_point(shape=vega.STAR, size=260, filled=True)
        layers.append(
            star.encode(x=at, y=alt.Y("players", type="quantitative"), color=alt.value(style.BLACK))
        )
    return layers
