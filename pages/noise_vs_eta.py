import streamlit as st

st.title("(placeholder: being built)")
