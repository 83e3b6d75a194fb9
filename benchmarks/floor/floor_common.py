"""What the floor pages share: the bare page's slider and the app's figures (as dicts)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]  # the repository, for mipcore
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mipcore.plots import bounds_figs  # noqa: E402

# What Plotly's auto-margin settles on for the η(ε) chart at 1024×768 (read in Chromium from
# the chart's _fullLayout._size): given up front, Plotly has no margin to push and draws once.
PRESIZED_MARGIN = {"l": 56, "r": 60, "t": 56, "b": 160}


def slider() -> float:
    """The bare page's slider and line of text."""
    x = st.slider("x", min_value=0.0, max_value=1.0, value=0.1, step=0.005)
    st.write(f"x = {x:.3f}")
    return x


@st.cache_data(max_entries=1000)
def app_figures(epsilon: float, presized: bool) -> list[dict[str, Any]]:
    """The η and ε page's two charts at (ε, δ = 0), as plain dicts."""
    eta_fig, _ = bounds_figs.eta_epsilon_chart(epsilon, 0.0)
    roc_fig, _ = bounds_figs.roc_chart(epsilon, 0.0)
    out = []
    for fig in (eta_fig, roc_fig):
        spec = fig.to_dict()
        if presized:
            spec["layout"]["margin"] = dict(PRESIZED_MARGIN)
        out.append(spec)
    return out


def chart(spec: dict[str, Any]) -> None:
    st.plotly_chart(spec, theme=None, config={"displaylogo": False})


@st.cache_data(max_entries=1000)
def app_vega_spec(epsilon: float) -> tuple[Any, dict[str, Any]]:
    """The η(ε) chart's data and a Vega-Lite spec drawing the same lines and marker."""
    import pandas as pd

    fig, _ = bounds_figs.eta_epsilon_chart(epsilon, 0.0)
    rows = []
    for i, t in enumerate(fig.data):
        if t.name is None:
            continue
        for x, y in zip(t.x, t.y, strict=True):
            rows.append({"curve": f"{i}", "epsilon": float(x), "eta": float(y)})
    data = pd.DataFrame(rows)
    axis = {"labelFontSize": 14, "titleFontSize": 16}
    spec = {
        "height": 320,
        "title": {"text": fig.layout.title.text or "", "fontSize": 18, "anchor": "start"},
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
