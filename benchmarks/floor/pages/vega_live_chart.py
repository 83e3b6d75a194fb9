import pandas as pd
import streamlit as st
from floor_common import slider

x = slider()
st.vega_lite_chart(
    pd.DataFrame({"a": [0.0, 1.0], "b": [0.0, x]}),
    {
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "a", "type": "quantitative"},
            "y": {"field": "b", "type": "quantitative"},
        },
        "height": 300,
    },
)
