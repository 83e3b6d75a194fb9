"""The bare page's slider and line of text (``floor_common.slider``), and nothing else.

Written out here rather than imported from ``floor_common``: that module loads NumPy, mipcore
and Altair for the chart pages, and every object they bring would be walked by the full garbage
collection Streamlit runs after each script run -- a cost no bare page has.
"""

import streamlit as st

x = st.slider("x", min_value=0.0, max_value=1.0, value=0.1, step=0.005)
st.write(f"x = {x:.3f}")
