"""many_live_merged in a fragment."""

import streamlit as st
from floor_common import live_block_merged, slider


@st.fragment
def live() -> None:
    live_block_merged(slider())


live()
