"""A DP-SGD run's controls and the server's ceiling on its steps.

The risk calculator and "What does ε mean?" both take a DP-SGD run (noise multiplier σ,
sampling rate q, steps T) under the same URL keys (``sigma``, ``q``, ``steps``), so the
calculator's link carries a run to the stakeholder page unchanged. Both refuse more steps
than the server converts per request (:data:`CEILING`, from ``MIP_EXPLORER_WORK_LIMIT``)
with the same sentence.
"""

from __future__ import annotations

import streamlit as st

from mipcore.lessons.risk_calculator import CIFAR10, steps_ceiling
from mipcore.plots.formatting import fmt_count

from . import settings
from .state import url_number

__all__ = ["CEILING", "rate_and_steps_controls", "sigma_control", "steps_ok"]

#: The most DP-SGD steps one request converts on this server.
CEILING = steps_ceiling(settings.WORK_LIMIT)


def sigma_control() -> float:
    """The noise multiplier σ (URL key ``sigma``)."""
    return float(
        url_number(
            "noise multiplier σ",
            "sigma",
            min_value=0.01,
            max_value=1e6,
            default=CIFAR10.noise_multiplier,
            step=0.1,
            format="%g",
            help="Per-step noise standard deviation / clipping norm (Opacus, TensorFlow Privacy).",
        )
    )


def rate_and_steps_controls() -> tuple[float, int]:
    """The sampling rate q and the steps T (URL keys ``q`` and ``steps``)."""
    q = url_number(
        "sampling rate q (batch / dataset size)",
        "q",
        min_value=1e-6,
        max_value=1.0,
        default=CIFAR10.sampling_rate,
        step=0.001,
        format="%g",
        help="Poisson sampling: each record joins each batch independently with probability q "
        "(e.g. 256/50 000 = 0.00512).",
    )
    steps = url_number(
        "steps T",
        "steps",
        min_value=1,
        max_value=10**7,
        default=CIFAR10.steps,
        step=100,
        help=f"Training steps; epochs = T · q. At most {fmt_count(CEILING)} on this server.",
    )
    return float(q), int(steps)


def steps_ok(steps: int) -> bool:
    """Whether ``steps`` is within :data:`CEILING`; if not, a sentence says so and what to do."""
    if steps <= CEILING:
        return True
    st.error(
        f"{fmt_count(steps)} steps is more than this server converts in one request "
        f"({fmt_count(CEILING)} steps; a shared server must stay responsive for everyone). "
        "Lower the steps — or run the app yourself and raise the ceiling with the setting "
        "`MIP_EXPLORER_WORK_LIMIT` (see the README).",
        icon="🚫",
    )
    return False
