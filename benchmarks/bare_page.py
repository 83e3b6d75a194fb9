"""The reference page of benchmarks/rerun.py: one slider and one line of text, nothing else."""

import streamlit as st

x = st.slider("x", min_value=0.0, max_value=1.0, value=0.1, step=0.005)
st.write(f"x = {x:.3f}")
