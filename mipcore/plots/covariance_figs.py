"""Figure 2 of the paper (Section 5.2): relative error against eta, MIP vs DP-SGD, and its reading.

Source: ``000_ece03c98c31c7b12.txt`` Section 5.2 (Figure 2 and its caption).

Two kinds of headless builders (no Streamlit), both taking results, never widgets:

* **the figure** -- :func:`error_figure` draws rows of the summary table of
  :func:`mipcore.lessons.figure2.summarize` (columns ``label, method, eta, mean, sem, runs``);
  :func:`zoom_frame` only selects rows (a range of eta and a set of curves), so a figure
  shows exactly the rows handed to it and the page can offer those same rows as CSV;
* **the reading** -- :func:`reading` turns a run's results into the verdict table (from
  :func:`mipcore.lessons.figure2.paper_claims`) and the sentences that explain them (how much of
  DP-SGD's error is clipping bias, how MIP's noise scales with eta, the factor between the
  two radius variants). Every number in them is computed from the results handed in.

The figure is built in ONE ``go.Figure(data=[dict...], layout=dict(...))`` call from plain
dicts: Plotly then validates the whole figure once, several times cheaper than
``add_trace`` / ``update_layout`` / ``add_hline`` one by one (the page is re-drawn on every
widget move). Coordinates are plain lists: with a few dozen points per trace that is cheaper
to validate and serialise than NumPy arrays (which Plotly base64-encodes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..lessons.figure2 import dp_label, mip_label, mip_label_parts
from ..noise import mip_noise_multiplier
from .formatting import fmt_num

__all__ = [
    "LOG_BAND_FLOOR",
    "RADIUS_NAMES",
    "Reading",
    "band_clipped",
    "curve_order",
    "curve_style",
    "error_figure",
    "mip_label",
    "reading",
    "verdict_table",
    "zoom_frame",
]

# On a log axis a band whose lower edge mean - SEM is <= 0 cannot be drawn; it is drawn
# down to this fraction of the mean instead (the page says so when it happens).
LOG_BAND_FLOOR = 0.1

_INK = "#222222"
_GREY = "#8a8f98"
# MIP: one colour per moment order M (2, 4, 6 as in the paper, then the rest).
_M_COLOURS = {
    2: "#d62728",
    3: "#e377c2",
    4: "#1f77b4",
    5: "#17becf",
    6: "#2ca02c",
    7: "#bcbd22",
    8: "#7f7f7f",
}
_FIXED = {
    "Raw": dict(color=_INK, dash="solid", width=2.5),
    "DP-SGD z=0 (clipping only)": dict(color="#8c564b", dash="dot", width=2.5),
    dp_label("paper"): dict(color="#ff7f0e", dash="solid", width=3),
    dp_label("tight"): dict(color="#9467bd", dash="dashdot", width=3),
}
_LEGEND = dict(
    orientation="v",
    x=1.01,
    xanchor="left",
    y=1.0,
    yanchor="top",
    groupclick="togglegroup",
    font=dict(size=12),
)


def _mip_parts(label: str) -> tuple[int, bool] | None:
    """(M, is_gamma_radius) of a MIP curve label (:func:`mipcore.lessons.figure2.mip_label`)."""
    parts = mip_label_parts(label)
    return None if parts is None else (parts[0], parts[1] == "gamma")


def curve_order(labels: Iterable[str]) -> list[str]:
    """A stable reading order: Raw, the DP-SGD curves, then MIP by M (Gamma radius first)."""
    fixed = list(_FIXED)

    def key(label: str):
        if label in _FIXED:
            return (0, fixed.index(label), 0, label)
        parts = _mip_parts(label)
        if parts is not None:
            M, gamma = parts
            return (1, M, 0 if gamma else 1, label)
        return (2, 0, 0, label)

    return sorted(set(labels), key=key)


def curve_style(label: str) -> dict:
    """Line colour, dash and width of a curve: MIP coloured by M, solid for the Gamma
    radius (Theorem 9) and dashed for the printed Laplace radius; DP-SGD orange/purple."""
    if label in _FIXED:
        return dict(_FIXED[label])
    parts = _mip_parts(label)
    if parts is not None:
        M, gamma = parts
        return dict(
            color=_M_COLOURS.get(M, "#7f7f7f"),
            dash="solid" if gamma else "dash",
            width=2.5 if gamma else 2,
        )
    return dict(color=_GREY, dash="solid", width=2)


def zoom_frame(
    summary: pd.DataFrame,
    *,
    labels: Sequence[str] | None = None,
    eta_range: tuple[float | None, float | None] = (None, None),
    exclude_M: Sequence[int] = (),
) -> pd.DataFrame:
    """The summary rows a chart shows: chosen curves, eta in ``[lo, hi]``, without MIP of
    the moment orders in ``exclude_M`` (the paper's first panel drops M = 2)."""
    keep = np.ones(len(summary), dtype=bool)
    if labels is not None:
        keep &= summary["label"].isin(list(labels)).to_numpy()
    lo, hi = eta_range
    eta = summary["eta"].to_numpy(dtype=float)
    if lo is not None:
        keep &= eta >= lo - 1e-12
    if hi is not None:
        keep &= eta <= hi + 1e-12
    if exclude_M:
        drop = {
            label
            for label in summary["label"].unique()
            if (p := _mip_parts(label)) is not None and p[0] in set(exclude_M)
        }
        keep &= ~summary["label"].isin(drop).to_numpy()
    return summary[keep].reset_index(drop=True)


def band_clipped(frame: pd.DataFrame) -> bool:
    """True when some ±SEM band reaches zero or below (it is floored on a log axis)."""
    if frame.empty:
        return False
    lower = frame["mean"].to_numpy(dtype=float) - frame["sem"].to_numpy(dtype=float)
    return bool(np.any(lower <= 0))


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def error_figure(
    frame: pd.DataFrame,
    *,
    log_y: bool = True,
    title: str | None = None,
    subtitle: str | None = None,
    height: int = 500,
    x_range: tuple[float, float] | None = None,
) -> go.Figure:
    """Relative error against eta: one line per curve, shaded ±SEM, a reference line at 1.

    Parameters
    ----------
    frame : rows of :func:`mipcore.lessons.figure2.summarize` (``label, eta, mean, sem, runs``),
        typically from :func:`zoom_frame`. Every label becomes one line; Raw is drawn as a
        line without a band (its SEM over runs is tiny next to the private curves).
    log_y : logarithmic y-axis (errors span orders of magnitude). Bands whose lower edge is
        <= 0 are floored at ``LOG_BAND_FLOOR`` times the mean there.
    x_range : the eta-axis range (default: the data's).
    """
    data: list[dict] = []
    etas_all = frame["eta"].to_numpy(dtype=float) if len(frame) else np.array([0.0, 0.5])
    x_lo, x_hi = x_range if x_range is not None else (float(etas_all.min()), float(etas_all.max()))
    for label in curve_order(frame["label"].unique()):
        rows = frame[frame["label"] == label].sort_values("eta")
        x = rows["eta"].to_numpy(dtype=float)
        y = rows["mean"].to_numpy(dtype=float)
        s = np.nan_to_num(rows["sem"].to_numpy(dtype=float), nan=0.0)
        runs = rows["runs"].to_numpy()
        style = curve_style(label)
        if label != "Raw" and np.any(s > 0):
            lower = y - s
            if log_y:
                lower = np.maximum(lower, LOG_BAND_FLOOR * y)
            data.append(
                dict(
                    type="scatter",
                    x=np.concatenate([x, x[::-1]]).tolist(),
                    y=np.concatenate([y + s, lower[::-1]]).tolist(),
                    fill="toself",
                    fillcolor=_rgba(style["color"], 0.16),
                    line=dict(width=0),
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=label,
                    name=f"{label} ±SEM",
                )
            )
        data.append(
            dict(
                type="scatter",
                x=x.tolist(),
                y=y.tolist(),
                mode="lines+markers" if len(x) <= 40 else "lines",
                name=label,
                legendgroup=label,
                line=style,
                marker=dict(size=5, color=style["color"]),
                customdata=[[float(a), int(b)] for a, b in zip(s, runs, strict=True)],
                hovertemplate=(
                    f"<b>{label}</b><br>η = %{{x:.4~g}}<br>relative error = %{{y:.4~g}}"
                    " ± %{customdata[0]:.2~g} (SEM over %{customdata[1]} runs)"
                    "<extra></extra>"
                ),
            )
        )
    # the threshold of the paper's claims ("relative error < 1"), as a line trace: shapes and
    # annotations on a log axis need log10 coordinates, a trace does not
    data.append(
        dict(
            type="scatter",
            x=[x_lo, x_hi],
            y=[1.0, 1.0],
            mode="lines",
            name="relative error = 1",
            line=dict(color=_GREY, dash="dash", width=1.5),
            hoverinfo="skip",
        )
    )
    yaxis: dict = dict(title=dict(text="relative error ‖A − Σ‖_F / ‖Σ‖_F (lower is better)"))
    if log_y:
        yaxis.update(type="log", exponentformat="power")
    pad = 0.01 * (x_hi - x_lo) if x_hi > x_lo else 0.005
    title_d: dict = dict(text=title or "", x=0.0, xanchor="left")
    if subtitle:
        title_d["subtitle"] = dict(text=subtitle, font=dict(size=13, color=_GREY))
    return go.Figure(
        data=data,
        layout=dict(
            title=title_d,
            height=height,
            hovermode="closest",
            xaxis=dict(
                title=dict(text="η (attacker's edge over guessing)"), range=[x_lo - pad, x_hi + pad]
            ),
            yaxis=yaxis,
            legend=_LEGEND,
            margin=dict(l=10, r=10, t=80 if subtitle else 50, b=50),
        ),
    )


# =========================================================================== the reading
RADIUS_NAMES = {
    "gamma": "the correct Gamma(d², c) radius of Theorem 9",
    "as_printed": "the printed Laplace(c) radius",
}
_CLIP_PHRASE = {
    "initial_median": "the median per-example gradient norm at A = 0",
    "trajectory_median": "the median per-example gradient norm over the non-private trajectory",
    "fixed": "fixed by hand",
}
REF_ETA = 0.2  # "MIP gets below 1 from eta ~ 0.2": the eta the reading quotes
_Z0 = "DP-SGD z=0 (clipping only)"


def _num(x: float, digits: int = 3) -> str:
    """A number for a sentence (3 significant digits by default), never 'nan'."""
    return fmt_num(x, digits)


def _pct(x: float) -> str:
    return f"{_num(100 * x)} %"


def _curve(summary: pd.DataFrame, label: str) -> pd.Series:
    return summary[summary["label"] == label].set_index("eta")["mean"].sort_index()


def verdict_table(verdicts) -> pd.DataFrame:
    """One row per :class:`mipcore.lessons.figure2.Verdict`: ✅/❌, claim, variant, evidence.

    The verdict column reads "✅ holds" / "❌ fails": the word carries it where a font has
    no emoji.
    """
    return pd.DataFrame(
        {
            "": ["✅ holds" if v.holds else "❌ fails" for v in verdicts],
            "Claim (Section 5.2, Figure 2)": [v.claim for v in verdicts],
            "Variant": [v.variant for v in verdicts],
            "Evidence from this run": [v.evidence for v in verdicts],
        }
    )


def _clipping_text(cfg, summary, results, sigma_norm: float, raw: float) -> str:
    """How much of DP-SGD's error is clipping bias: the z = 0 run against the noisy ones."""
    z0 = _curve(summary, _Z0)
    C = float(results.loc[results["method"] == _Z0, "C"].median())
    m = cfg.n // 2
    eta0 = float(min(cfg.etas))
    lines = [
        "**How much of DP-SGD's error is clipping bias.** Non-private GD (Raw) reaches relative "
        f"error {_num(raw)}. DP-SGD clips each per-example gradient to norm C = {_num(C, 4)} "
        f"({_CLIP_PHRASE.get(cfg.clip_rule, cfg.clip_rule)}), which moves the point it "
        "converges to away from S: with **no noise at all** (z = 0) it ends at relative error "
        f"{_num(z0.loc[eta0])}."
    ]
    dp_rows = results[results["method"] == "DP-SGD"]
    for cal in cfg.calibrations:
        dp = _curve(summary, dp_label(cal))
        if dp.empty:
            continue
        e_dp, e_z0 = float(dp.loc[eta0]), float(z0.loc[eta0])
        z = float(
            dp_rows.loc[
                (dp_rows["calibration"] == cal) & np.isclose(dp_rows["eta"], eta0), "z"
            ].median()
        )
        step_sd = cfg.lr * z * 2 * C / m
        if e_dp >= e_z0:
            share = (
                f"**{_pct(e_z0 / e_dp)} of DP-SGD's error is clipping bias**; the noise adds "
                f"{_num(e_dp - e_z0)}"
            )
        else:
            share = (
                "the noisy run even ends slightly *below* the clipping-only run (by "
                f"{_num(e_z0 - e_dp)}, run-to-run variation): **all of DP-SGD's error is "
                "clipping bias**"
            )
        shares = (z0 / dp).clip(upper=1.0)
        low, high = _pct(float(shares.min())), _pct(float(shares.max()))
        spread = f"{low} at every η" if low == high else f"from {low} to {high}"
        lines.append(
            f"- {cal} calibration, at the most private η = {_num(eta0)} (noise multiplier z = "
            f"{_num(z)}): DP-SGD's error is {_num(e_dp)}, the clipping-only run's {_num(e_z0)}, "
            f"so {share}. Over the whole η grid the clipping-only share is {spread}. The noise "
            "is averaged "
            f"over the m = {m:,} training rows: a step adds standard deviation lr·z·2C/m = "
            f"{_num(step_sd)} per entry of A, {_pct(step_sd / sigma_norm)} of ‖Σ‖_F."
        )
    return "\n".join(lines)


def _mip_text(cfg, summary, raw: float) -> str:
    """MIP's noise scale against eta, and the n that would bring it below 1 at eta ~ 0.2."""
    if not cfg.radii:
        return ""
    radius = "gamma" if "gamma" in cfg.radii else cfg.radii[0]
    etas = np.asarray(cfg.etas, dtype=float)
    lo, hi = float(etas.min()), float(etas.max())
    ref = float(etas[np.argmin(np.abs(etas - REF_ETA))])
    parts, best = [], None
    for M in cfg.Ms:
        c = _curve(summary, mip_label(M, radius))
        if c.empty:
            continue
        c_lo, c_hi, c_ref = (float(mip_noise_multiplier(e, M, cfg.constant)) for e in (lo, hi, ref))
        if hi > lo:
            parts.append(
                f"M = {M}: c falls {_num(c_lo / c_hi)}-fold, the error "
                f"{_num(c.loc[lo] / c.loc[hi])}-fold"
            )
        if best is None or float(c.loc[ref]) < best[1]:
            best = (M, float(c.loc[ref]), c_ref)
    if best is None:
        return ""
    text = (
        "**Why MIP's error is what it is.** Corollary 10 adds noise of scale c(η)·σ_i to "
        f"coordinate i, with c(η) = ({_num(cfg.constant)}/η)^(1+2/M) and σ_i the spread of "
        "the GD output over random halves of the data, which is about the size of the "
        f"estimation error itself (Raw: {_num(raw)})."
    )
    if parts:
        text += (
            f" From η = {_num(lo)} to {_num(hi)}, with {RADIUS_NAMES[radius]}: "
            + "; ".join(parts)
            + " (single runs scatter: the radius is heavy-tailed)."
        )
    M, err, c_ref = best
    text += (
        f" At η = {_num(ref)} the multiplier is c = {_num(c_ref, 4)} for the best M = {M}, "
        f"whose error there is {_num(err)}."
    )
    if err > 1:
        text += (
            f" Since σ_i shrinks like 1/√n, relative error 1 at η ≈ {_num(ref)} would need "
            f"roughly n ≈ {_num(cfg.n * err**2)} (this run: n = {cfg.n:,}): an "
            "extrapolation, not a run."
        )
    else:
        text += " That is below 1."
    return text


def _radius_text(cfg, summary, raw: float) -> str:
    """Gamma(d², c) vs Laplace(c) radius: expected factor d², observed ratio of the curves."""
    if len(cfg.radii) < 2:
        return ""
    p = cfg.d * cfg.d
    ratios, per_M = [], []
    for M in cfg.Ms:
        g = _curve(summary, mip_label(M, "gamma"))
        lap = _curve(summary, mip_label(M, "as_printed"))
        both = (g > 10 * raw) & (lap > 10 * raw)  # where the noise dominates the error
        if both.any():
            r = (g[both] / lap[both]).to_numpy()
            ratios.extend(r)
            per_M.append(f"M = {M}: {_num(np.median(r))}")
    text = (
        f"**The two radius variants.** The correct Gamma(d², c) radius has mean d²·c = {p}·c "
        f"(A has d² = {p} coordinates), the printed Laplace(c) radius E|r| = c, and both "
        f"share the direction U: wherever the noise dominates, the Gamma curves should lie "
        f"about {p} times higher."
    )
    if ratios:
        text += (
            f" Observed median ratio of the mean errors: {_num(np.median(ratios))} "
            f"({'; '.join(per_M)}), over the η where both exceed 10 × Raw."
        )
    else:
        text += " No η of this run has both variants' errors well above Raw, so no ratio is shown."
    return text


@dataclass(frozen=True)
class Reading:
    """What the page writes about one run (see :func:`reading`)."""

    labels: list  # the curves, in reading order
    raw: float  # non-private GD's relative error
    tally: str  # one line per claim: in how many variants it holds (Markdown)
    table: pd.DataFrame  # verdict_table(verdicts)
    why: list  # Markdown paragraphs: clipping bias, MIP's scale, the radius factor


def reading(
    cfg, summary: pd.DataFrame, results: pd.DataFrame, verdicts, sigma_norm: float
) -> Reading:
    """The verdict table and the explanations of a run, every number computed from it.

    Parameters
    ----------
    cfg : the :class:`mipcore.lessons.figure2.ExperimentConfig` that produced ``results``.
    summary : :func:`mipcore.lessons.figure2.summarize` of ``results``.
    results : the tidy table of :func:`mipcore.lessons.figure2.run_experiment`.
    verdicts : :func:`mipcore.lessons.figure2.paper_claims` on ``summary``.
    sigma_norm : ``||Sigma||_F`` of the run's ground truth (for the size of DP-SGD's noise).
    """
    raw = float(_curve(summary, "Raw").iloc[0])
    by_claim: dict[str, list[bool]] = {}
    for v in verdicts:
        by_claim.setdefault(v.claim, []).append(v.holds)
    tally = "  \n".join(
        f"**{claim}** Holds in {sum(h)} of {len(h)} variant{'s' if len(h) > 1 else ''}."
        for claim, h in by_claim.items()
    )
    why = [
        _clipping_text(cfg, summary, results, sigma_norm, raw),
        _mip_text(cfg, summary, raw),
        _radius_text(cfg, summary, raw),
    ]
    return Reading(
        labels=curve_order(summary["label"].unique()),
        raw=raw,
        tally=tally,
        table=verdict_table(verdicts),
        why=[t for t in why if t],
    )
