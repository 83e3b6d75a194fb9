import streamlit as st
from floor_common import app_vega_spec, slider

x = slider()
data, spec = app_vega_spec(round(10 * x, 3))
spec = {**spec, "title": {**spec["title"], "text": f"ε = {10 * x:.2f}"}}  # a new spec each step
st.vega_lite_chart(data, spec)
