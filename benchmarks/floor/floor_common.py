"""What the floor pages share: the bare page's slider, the app's η(ε) and ROC charts as
Plotly figures (plain dicts) and as Vega-Lite specifications.

The app draws every chart with Vega-Lite and does not depend on plotly; the Plotly pages here
(``static_chart``, ``live_chart``, ``app_chart``, ``app_chart_presized``, ``app_two_charts``)
are what that choice was measured against. They need ``pip install plotly``; without it they
show an exception that says so (``benchmarks/browser.py`` reports such a page as an error and
measures the others).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st

ROOT = Path(__file__).resolve().parents[2]  # the repository, for mipcore
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mipcore.bounds import dp_region_kink, eta_from_epsilon, tpr_bound_dp  # noqa: E402
from mipcore.plots import bounds_vega, style  # noqa: E402

PLOTLY_MISSING = (
    "This floor page draws a Plotly chart, for comparison with Vega-Lite; the app itself does "
    "not depend on plotly. To measure it: pip install plotly"
)

# What Plotly's auto-margin settles on for the η(ε) chart at 1024×768 (read in Chromium from
# the chart's _fullLayout._size): given up front, Plotly has no margin to push and draws once.
PRESIZED_MARGIN = {"l": 56, "r": 60, "t": 56, "b": 160}


def slider() -> float:
    """The bare page's slider and line of text."""
    x = st.slider("x", min_value=0.0, max_value=1.0, value=0.1, step=0.005)
    st.write(f"x = {x:.3f}")
    return x


# ---------------------------------------------------------------- the η and ε page in Plotly
# The η(ε) and ROC charts as the app drew them with Plotly before it moved to Vega-Lite (the
# same traces, styles and layout, without the hover texts), from mipcore.plots.bounds_vega's
# tables.


def _axis(title: str, **extra: Any) -> dict[str, Any]:
    return {
        "title": {"text": title, "font": {"size": 16, "color": style.INK}, "standoff": 8},
        "tickfont": {"size": 14, "color": style.INK},
        "color": style.INK,
        "gridcolor": style.GRID,
        "linecolor": "#444444",
        "zerolinecolor": "#b0b0b0",
        "automargin": True,
        "exponentformat": "power",
        **extra,
    }


def _layout(title: str, xaxis: dict[str, Any], yaxis: dict[str, Any], height: int, **extra: Any):
    ink = {"color": style.INK}
    return {
        "template": "none",
        "colorway": list(style.SEQUENCE),
        "font": {"size": 15, **ink, "family": "Source Sans Pro, Helvetica, Arial, sans-serif"},
        "title": {"text": title, "font": {"size": 18, **ink}, "x": 0.0, "xanchor": "left"},
        "xaxis": xaxis,
        "yaxis": yaxis,
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 56, "b": 10},
        "legend": {"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.2, "yanchor": "top"}
        | {"font": {"size": 14, **ink}, "bgcolor": "rgba(255,255,255,0)"},
        "hoverlabel": {"font": {"size": 14}},
        "hovermode": "closest",
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        **extra,
    }


def plotly_eta_figure(epsilon: float) -> dict[str, Any]:
    """The η(ε) chart at (ε, δ = 0) as a Plotly figure dict: a line per δ, the rule of thumb,
    the chosen point, and the accuracy axis on the right."""
    table = bounds_vega.eta_epsilon_table(epsilon, 0.0)
    exact = table[table["curve"] == "exact (Theorem 4)"]
    data: list[dict[str, Any]] = []
    for i, (d, rows) in enumerate(exact.groupby("delta", sort=False)):
        chosen = d == 0.0
        line = (
            {"color": style.INK, "width": 4.0, "dash": "solid"}
            if chosen
            else {"color": style.SEQUENCE[i], "width": 2.0, "dash": style.dashes(i)}
        )
        name = bounds_vega.delta_label(d) + (" (chosen)" if chosen else "")
        data.append(
            _line(rows["epsilon"], rows["eta"], name, line, 100 * rows["attacker_accuracy"])
        )
    approx = table[table["curve"] != "exact (Theorem 4)"]
    grey = {"color": style.GREY, "width": 2.5, "dash": "dot"}
    data.append(_line(approx["epsilon"], approx["eta"], bounds_vega.APPROX_NAME, grey))
    eta = float(eta_from_epsilon(epsilon, 0.0))
    marker = {"color": style.MIP.colour, "symbol": "circle", "size": 14}
    marker["line"] = {"color": "white", "width": 2}
    data.append(
        {"type": "scatter", "x": [epsilon], "y": [eta], "mode": "markers", "marker": marker}
        | {"name": bounds_vega.POINT_NAME, "customdata": [100 * (0.5 + eta)]}
    )
    data.append(  # invisible: makes Plotly draw the secondary (accuracy) axis
        {"type": "scatter", "x": [0.0, 10.0], "y": [50.0, 100.0], "yaxis": "y2", "mode": "lines"}
        | {"line": {"width": 0}, "opacity": 0, "hoverinfo": "skip", "showlegend": False}
    )
    half = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0.5}
    half |= {"y1": 0.5, "line": {"color": style.GREY, "dash": "dot"}}
    label = {"text": "η = 1/2: no privacy", "showarrow": False, "xref": "x domain", "x": 1}
    label |= {"xanchor": "right", "yref": "y", "y": 0.5, "yanchor": "top"}
    y2 = _axis("best accuracy (%)", overlaying="y", side="right", range=[50.0, 102.0])
    layout = _layout(
        bounds_vega.ETA_TITLE,
        _axis("ε", range=[0.0, 10.0]),
        _axis("η (attacker's edge)", range=[0.0, 0.52]),
        470,
        yaxis2=y2 | {"showgrid": False, "zeroline": False},
        shapes=[half],
        annotations=[label],
    )
    return {"data": data, "layout": layout}


def plotly_roc_figure(epsilon: float) -> dict[str, Any]:
    """The ROC chart at (ε, δ = 0) on linear axes as a Plotly figure dict: the shaded MIP and
    DP regions, Theorem 8 as printed, random guessing, and where the boundaries touch."""
    table = bounds_vega.roc_table(epsilon, 0.0)
    fpr = table["fpr"]
    data = []
    for column, name, look, alpha in (
        ("tpr_max_mip_2eta", bounds_vega.MIP_NAME, style.MIP, "0.1"),
        ("tpr_max_dp", bounds_vega.DP_NAME, style.DP, "0.2"),
    ):
        line = {"color": look.colour, "dash": look["dash"], "width": 3}
        trace = _line(fpr, table[column], name, line, mode="lines+markers")
        r, g, b = (int(look.colour[i : i + 2], 16) for i in (1, 3, 5))
        trace["marker"] = {"color": look.colour, "symbol": look["symbol"], "size": 8}
        trace["marker"]["maxdisplayed"] = 9
        data.append(trace | {"fill": "tozeroy", "fillcolor": f"rgba({r},{g},{b},{alpha})"})
    printed = {"color": style.PRINTED.colour, "dash": "dashdot", "width": 2.5}
    data.append(_line(fpr, table["tpr_max_theorem8_as_printed"], bounds_vega.PRINTED_NAME, printed))
    guess = {"color": style.GREY, "width": 2, "dash": "dot"}
    data.append(_line(fpr, fpr, bounds_vega.GUESS_NAME, guess))
    f_star = float(dp_region_kink(epsilon, 0.0))
    touch = {"color": style.EXACT.colour, "symbol": "diamond", "size": 13}
    data.append(
        {"type": "scatter", "x": [f_star], "y": [float(tpr_bound_dp(f_star, epsilon, 0.0))]}
        | {"mode": "markers", "name": bounds_vega.TOUCH_NAME, "marker": touch}
    )
    layout = _layout(
        bounds_vega.ROC_TITLE,
        _axis("false-positive rate", range=[0.0, 1.0]),
        _axis("true-positive rate", range=[0.0, 1.02]),
        500,
    )
    return {"data": data, "layout": layout}


def _line(x, y, name: str, line: dict[str, Any], customdata=None, *, mode: str = "lines"):
    trace = {"type": "scatter", "x": np.asarray(x, dtype=float), "y": np.asarray(y, dtype=float)}
    trace |= {"mode": mode, "name": name, "line": line}
    if customdata is not None:
        trace["customdata"] = np.asarray(customdata, dtype=float)
    return trace


@st.cache_data(max_entries=1000)
def app_figures(epsilon: float, presized: bool) -> list[dict[str, Any]]:
    """The η and ε page's two charts at (ε, δ = 0), as Plotly figure dicts."""
    out = [plotly_eta_figure(epsilon), plotly_roc_figure(epsilon)]
    if presized:
        for spec in out:
            spec["layout"]["margin"] = dict(PRESIZED_MARGIN)
    return out


def chart(spec: dict[str, Any]) -> None:
    """Draw a Plotly figure (a dict), as the app drew its Plotly charts."""
    if importlib.util.find_spec("plotly") is None:
        raise ModuleNotFoundError(PLOTLY_MISSING)
    st.plotly_chart(spec, theme=None, config={"displaylogo": False})


@st.cache_data(max_entries=1000)
def app_vega_spec(epsilon: float) -> tuple[Any, dict[str, Any]]:
    """The η(ε) chart's lines and marker at (ε, δ = 0) and a Vega-Lite spec drawing them."""
    import pandas as pd

    table = bounds_vega.eta_epsilon_table(epsilon, 0.0)
    curve = table["curve"] + table["delta"].astype(str)  # one line per δ, then the rule
    eta = float(eta_from_epsilon(epsilon, 0.0))
    data = pd.concat(
        [
            pd.DataFrame(
                {"curve": pd.factorize(curve)[0].astype(str), "epsilon": table["epsilon"]}
                | {"eta": table["eta"]}
            ),
            pd.DataFrame({"curve": [str(curve.nunique())], "epsilon": [epsilon], "eta": [eta]}),
        ],
        ignore_index=True,
    )
    axis = {"labelFontSize": 14, "titleFontSize": 16}
    spec = {
        "height": 320,
        "title": {"text": bounds_vega.ETA_TITLE, "fontSize": 18, "anchor": "start"},
        "layer": [
            {
                "mark": {"type": "line"},
                "encoding": {
                    "x": {"field": "epsilon", "type": "quantitative", "title": "ε", "axis": axis},
                    "y": {"field": "eta", "type": "quantitative", "title": "η", "axis": axis},
                    "color": {"field": "curve", "type": "nominal", "legend": {"orient": "bottom"}},
                    "strokeDash": {"field": "curve", "type": "nominal"},
                },
            }
        ],
    }
    return data, spec


_PARAGRAPH = (
    "A differentially private release with parameters (ε, δ) is also membership-inference "
    "private: paragraph {i} says how private, at x = {x:.3f}."
)


def static_block() -> None:
    """40 Markdown paragraphs and 4 metrics, the same on every run."""
    live_block(0.0)


def live_block(x: float) -> None:
    """40 Markdown paragraphs and 4 metrics (2 x 2 columns) that name ``x``."""
    for i in range(40):
        st.markdown(_PARAGRAPH.format(i=i, x=x))
    for row in range(2):
        for j, col in enumerate(st.columns(2)):
            col.metric(f"metric {2 * row + j}", f"{x * (j + 1):.4f}", help="A metric's help.")


def live_block_merged(x: float) -> None:
    """The same text in 4 Markdown elements and one Markdown table."""
    for k in range(4):
        st.markdown("\n\n".join(_PARAGRAPH.format(i=10 * k + i, x=x) for i in range(10)))
    st.markdown(
        "| metric | value |\n|---|---:|\n"
        + "\n".join(f"| metric {m} | {x * (m % 2 + 1):.4f} |" for m in range(4))
    )


def vega(fig: Any) -> None:
    """Draw an app ``VegaLiteChart`` as ``appkit.chart`` does (its tables as named datasets)."""
    import copy

    spec = copy.deepcopy(fig.spec)
    if fig.datasets:
        spec["datasets"] = dict(fig.datasets)
    st.vega_lite_chart(fig.data, spec, theme=None, width="stretch")
