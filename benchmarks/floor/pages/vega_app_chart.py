import streamlit as st
from floor_common import app_vega_spec, slider

x = slider()
data, spec = app_vega_spec(round(10 * x, 3))
st.vega_lite_chart(data, spec)
