"""The η and ε page's two Vega-Lite charts (η(ε) curves and ROC bounds), exactly as the app
builds them (``mipcore.plots.bounds_vega``), following the slider's ε: no text, no controls
but the slider, no footer. What a page with the app's two charts costs before its content."""

import streamlit as st
from floor_common import slider, vega

from mipcore.plots import bounds_vega


@st.cache_data(max_entries=1000)
def charts(epsilon: float):
    eta, _ = bounds_vega.eta_epsilon_vega(
        epsilon, 0.0, eps_max=10.0, reference_deltas=bounds_vega.REFERENCE_DELTAS
    )
    roc, _ = bounds_vega.roc_vega(epsilon, 0.0, log_axes=False, extra_fpr=(0.01,))
    return eta, roc


for fig in charts(round(10 * slider(), 3)):
    vega(fig)
