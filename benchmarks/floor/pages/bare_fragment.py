"""The bare page's slider and line of text in a fragment: a press reruns only the fragment,
so the navigation is neither run nor sent again."""

import streamlit as st
from floor_common import slider

st.fragment(slider)()
