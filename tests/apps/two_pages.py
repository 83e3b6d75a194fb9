"""Two pages in a navigation, as app.py has them: a home page, and a page whose button makes
the run rerun itself (as ``appkit.jobs`` does when a press in the live part lands during a
page's first load). Served by ``tests/test_page_switch.py``."""

import streamlit as st


def home() -> None:
    st.write("This is the home page.")


def again() -> None:
    st.write("This is the other page.")
    if st.button("Run again", key="again"):
        st.rerun()


st.navigation(
    [st.Page(home, title="Home", default=True), st.Page(again, title="Again", url_path="again")]
).run()
