"""MIP Explorer: entry point (`streamlit run app.py`).

Sets the shared page config, declares the pages with ``st.navigation`` and holds
the home page.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import appkit
from mipcore.bounds import attacker_accuracy, epsilon_from_eta

# name: (script, title, url path, icon). The page scripts live in app_pages/, not pages/: a
# folder named pages/ beside app.py switches Streamlit into its legacy multipage mode until
# the first visit of "/" (deep links on a fresh server then bypass this file, its navigation
# and page config, and list every file of the folder as a page). URL paths are the file stems.
PAGES = {
    "eta_epsilon": ("app_pages/eta_epsilon.py", "η and ε (Theorems 4 and 8)", "eta_epsilon", "⚖️"),
    "noise_vs_eta": ("app_pages/noise_vs_eta.py", "Noise vs η (Figure 1)", "noise_vs_eta", "📈"),
    "proposition11": ("app_pages/proposition11.py", "Proposition 11", "proposition11", "🧮"),
    "covariance": (
        "app_pages/covariance.py",
        "Synthetic covariance (Figure 2)",
        "covariance",
        "🧪",
    ),
    "wrap": ("app_pages/wrap_statistic.py", "Wrap your own statistic", "wrap_statistic", "🎁"),
    "looseness": (
        "app_pages/bounds_looseness.py",
        "How loose are the bounds?",
        "bounds_looseness",
        "🔍",
    ),
    "audit": ("app_pages/audit.py", "Audit a mechanism", "audit", "🕵️"),
    "mace": ("app_pages/mace.py", "Estimate leakage from samples (MACE)", "mace", "📊"),
}


def home() -> None:
    st.title("MIP Explorer")
    appkit.messages()
    st.markdown(
        "**Membership inference privacy (MIP)** asks one concrete question about a released "
        "model or statistic: *can an attacker tell whether your record was used?* "
        "The data owner trains on a random half of the dataset; the attacker sees the release and "
        "one record, and guesses “in” or “out”. Guessing blindly is right 50 % of the time. "
        "A release is **η-MIP** when *no* attacker, however clever, is right more than "
        "**50 % + η** of the time. Differential privacy with parameter ε implies MIP with "
        "η = tanh(ε/2)/2; when a statistic's spread is far smaller than its worst-case "
        "sensitivity, MIP can be certified with far less noise than DP (the pages show when, "
        "and when not)."
    )
    eta = appkit.url_slider(
        "η (the attacker's edge over guessing)",
        "eta",
        min_value=0.0,
        max_value=0.5,
        default=0.1,
        step=0.005,
        format="%.3f",
    )
    acc = attacker_accuracy(eta)
    names = ["Blind guess", f"Best possible attacker under {eta:.3f}-MIP", "Perfect attacker"]
    values = [0.5, acc, 1.0]
    fig = go.Figure(
        data=[
            dict(
                type="bar",
                x=[v * 100 for v in values],
                y=names,
                orientation="h",
                marker=dict(color=["#9aa5b1", "#d9534f", "#e0e0e0"]),
                text=[f"{v:.1%}" for v in values],
                textposition="auto",
                hovertemplate="%{y}: %{x:.2f} %<extra></extra>",
            )
        ],
        layout=dict(
            title=dict(text="How often can an attacker be right about membership?"),
            xaxis=dict(title=dict(text="accuracy (%)"), range=[0, 100]),
            yaxis=dict(autorange="reversed"),
            height=280,
            margin=dict(l=10, r=10, t=50, b=40),
            shapes=[
                dict(
                    type="line",
                    x0=50,
                    x1=50,
                    y0=0,
                    y1=1,
                    yref="paper",
                    line=dict(dash="dot", color="#555"),
                )
            ],
        ),
    )
    data = pd.DataFrame({"who": names, "accuracy": values})
    appkit.chart_with_csv(fig, data, "attacker_accuracy", key="home_chart")
    if eta < 0.5:
        eps = epsilon_from_eta(eta)
        st.markdown(
            f"With η = {eta:.3f}, no attacker is right more than **{acc:.1%}** of the time "
            f"(guessing gets 50 %). Pure ε-DP gives this guarantee from ε ≤ **{eps:.3g}** on."
        )
    else:
        st.markdown("With η = 0.5 the guarantee is empty: an attacker may be right every time.")

    st.subheader("Pages")
    for path, title, _url, icon in PAGES.values():
        st.page_link(path, label=title, icon=icon)


def main() -> None:
    st.set_page_config(page_title="MIP Explorer", page_icon="🔐", layout="wide")
    pages = [st.Page(home, title="Home", icon="🏠", default=True)]
    pages += [
        st.Page(path, title=title, url_path=url, icon=icon)
        for path, title, url, icon in PAGES.values()
    ]
    st.navigation(pages).run()


main()
