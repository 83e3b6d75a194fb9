"""The same as many_static, but the slider and its line live in a fragment: a press reruns
only the fragment, so the 44 static elements are neither re-sent nor re-rendered."""

import streamlit as st
from floor_common import slider, static_block


@st.fragment
def live() -> None:
    slider()


live()
static_block()
