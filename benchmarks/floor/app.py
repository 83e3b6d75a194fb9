"""The floor under the browser targets: Streamlit pages as small as a page with a chart can be.

Serve it with ``benchmarks/browser.py --root benchmarks/floor`` (or ``load.py --root ...``).
Every page has the bare page's slider and line of text (``benchmarks/bare_page.py``), plus:

* ``bare``: nothing else (the bare page inside a navigation, as the app's pages are);
* ``static_chart``: a two-point Plotly chart that never changes;
* ``live_chart``: a two-point Plotly chart whose second point follows the slider;
* ``app_chart``: the η and ε page's η(ε) chart as the app drew it with Plotly (before its
  charts moved to Vega-Lite), redrawn for the slider's ε as the η and ε page does;
* ``app_chart_presized``: the same chart with its margins given up front (the values Plotly's
  auto-margin settles on at 1024×768), so that Plotly draws it once instead of twice;
* ``app_two_charts``: the η(ε) chart and the ROC chart of the same page, both following the slider;
* ``vega_static_chart``, ``vega_live_chart``: the two-point charts drawn by Vega-Lite
  (``st.vega_lite_chart``) instead of Plotly, for comparison;
* ``vega_app_chart``: the η(ε) chart's curves and marker, with the same data, drawn by Vega-Lite;
* ``vega_app_chart_newspec``: the same with a specification that changes on every step (its
  title names ε), which Streamlit cannot update in place;
* ``replay``: a recorded rerun of an app page (``?page=NAME``), its elements sent again as the
  app sent them after a change, computing nothing (``capacity.py --anchor replay``).

It shows what a page with a chart costs in the browser before any of the app's own content:
what the browser targets can and cannot ask of a page that draws Plotly charts in Streamlit.
The Plotly pages need ``pip install plotly`` (the app itself does not depend on it).
"""

import streamlit as st

# Read by benchmarks/browser.py and load.py (no appkit here): key -> (script, title, url path).
PAGES = {
    "bare": ("pages/bare.py", "bare", "bare"),
    "static_chart": ("pages/static_chart.py", "static chart", "static_chart"),
    "live_chart": ("pages/live_chart.py", "live chart", "live_chart"),
    "app_chart": ("pages/app_chart.py", "app chart", "app_chart"),
    "app_chart_presized": (
        "pages/app_chart_presized.py",
        "app chart presized",
        "app_chart_presized",
    ),
    "app_two_charts": ("pages/app_two_charts.py", "two app charts", "app_two_charts"),
    "vega_static_chart": ("pages/vega_static_chart.py", "static Vega chart", "vega_static_chart"),
    "vega_live_chart": ("pages/vega_live_chart.py", "live Vega chart", "vega_live_chart"),
    "vega_app_chart": ("pages/vega_app_chart.py", "app chart in Vega", "vega_app_chart"),
    "vega_two_app_charts": (
        "pages/vega_two_app_charts.py",
        "the η and ε page's two Vega charts",
        "vega_two_app_charts",
    ),
    "mace_charts": ("pages/mace_charts.py", "the MACE page's four Vega charts", "mace_charts"),
    "bare_fragment": ("pages/bare_fragment.py", "bare, slider in a fragment", "bare_fragment"),
    "vega_app_chart_fragment": (
        "pages/vega_app_chart_fragment.py",
        "app chart in Vega, in a fragment",
        "vega_app_chart_fragment",
    ),
    "many_live_merged_fragment": (
        "pages/many_live_merged_fragment.py",
        "44 live elements merged into 5, in a fragment",
        "many_live_merged_fragment",
    ),
    "many_static": ("pages/many_static.py", "44 static elements", "many_static"),
    "many_static_fragment": (
        "pages/many_static_fragment.py",
        "44 static elements, slider in a fragment",
        "many_static_fragment",
    ),
    "many_live": ("pages/many_live.py", "44 live elements", "many_live"),
    "many_live_merged": (
        "pages/many_live_merged.py",
        "44 live elements merged into 5",
        "many_live_merged",
    ),
    "vega_app_chart_newspec": (
        "pages/vega_app_chart_newspec.py",
        "app chart in Vega, new spec each step",
        "vega_app_chart_newspec",
    ),
    "replay": ("pages/replay.py", "an app page's rerun, replayed", "replay"),
}


def home() -> None:
    st.write("The floor pages: see the sidebar.")


if __name__ == "__main__":
    nav = st.navigation(
        [st.Page(home, title="Home", default=True)]
        + [st.Page(s, title=t, url_path=u) for s, t, u in PAGES.values()]
    )
    nav.run()
