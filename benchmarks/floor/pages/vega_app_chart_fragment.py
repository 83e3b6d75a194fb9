"""vega_app_chart with the slider and the chart in a fragment."""

import streamlit as st
from floor_common import app_vega_spec, slider


@st.fragment
def live() -> None:
    x = slider()
    data, spec = app_vega_spec(round(10 * x, 3))
    st.vega_lite_chart(data, spec)


live()
