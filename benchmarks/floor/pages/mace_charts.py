"""The MACE page's four Vega-Lite charts, exactly as the app builds them
(``mipcore.plots.mace_vega``), following the slider step by step as the page's separation slider moves
them (the page's defaults otherwise): no text, no other controls, no footer. What a
press on that page costs before its content."""

import streamlit as st
from floor_common import slider, vega

from mipcore.experiments import mace_synthetic as toy
from mipcore.plots import mace_vega


@st.cache_data(max_entries=1000)
def charts(sep: float):
    run = toy.run(toy.Shape.NORMAL, sep, 2000, 0, toy.Estimator.HISTOGRAM, 30, None, 0.5)
    drift = toy.drift(toy.Shape.NORMAL, sep, 0, toy.Estimator.HISTOGRAM, 30, None, 0.5)
    samples, loss, _ = mace_vega.samples_loss_vega(run)
    advantage, _ = mace_vega.advantage_vega(run, 1.0)
    drift_chart, _ = mace_vega.drift_vega(drift)
    return samples, loss, advantage, drift_chart


# one slider step (0.005) is one step of the page's separation slider (0.05): x = 0.1 is s = 1
for fig in charts(round(min(round(slider() / 0.005), 80) * 0.05, 2)):
    vega(fig)
