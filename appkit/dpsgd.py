"""A DP-SGD run's controls and the server's ceiling on its steps.

The risk calculator and "What does ε mean?" both take a DP-SGD run (noise multiplier σ,
sampling rate q, steps T) as rows of their control tables (:data:`SIGMA`, :data:`RATE`,
:data:`STEPS`: URL keys ``sigma``, ``q``, ``steps``; defaults the CIFAR-10 preset of
:mod:`mipcore.guarantees`), so the calculator's link carries a run to the stakeholder page
unchanged. Both refuse more steps than the server converts per request (:data:`CEILING`, from
``MIP_EXPLORER_WORK_LIMIT``) with the same sentence.
"""

from __future__ import annotations

import math

import streamlit as st

from mipcore.guarantees import CIFAR10
from mipcore.plots.formatting import fmt_count

from . import settings
from .controls import number

__all__ = ["CEILING", "MAX_STEPS", "RATE", "SIGMA", "STEPS", "steps_ceiling", "steps_ok"]

#: DP-SGD steps one request may ask for (times the server's work limit; see steps_ceiling).
MAX_STEPS = 100_000


def steps_ceiling(work_limit: float = 1.0) -> int:
    """The most DP-SGD steps one request may ask for: ``MAX_STEPS · work_limit``, at most 10⁷.

    ``work_limit >= 1`` (the server's ``MIP_EXPLORER_WORK_LIMIT``, checked by
    :mod:`appkit.settings`). A conversion of 10⁴ steps takes about a second and 10⁶ steps a
    few; the noise search evaluates it ~20 times.

    Examples
    --------
    >>> steps_ceiling(), steps_ceiling(20)
    (100000, 2000000)
    """
    return int(min(10**7, math.floor(MAX_STEPS * work_limit)))


#: The most DP-SGD steps one request converts on this server.
CEILING = steps_ceiling(settings.WORK_LIMIT)

SIGMA = number("sigma", "noise multiplier σ", 0.01, 1e6, CIFAR10.noise_multiplier, 0.1, "%g", "Per-step noise standard deviation / clipping norm (Opacus, TensorFlow Privacy).")  # fmt: skip
RATE = number("q", "sampling rate q (batch / dataset size)", 1e-6, 1.0, CIFAR10.sampling_rate, 0.001, "%g", "Poisson sampling: each record joins each batch independently with probability q (e.g. 256/50 000 = 0.00512).")  # fmt: skip
STEPS = number("steps", "steps T", 1, 10**7, CIFAR10.steps, 100, None, f"Training steps; epochs = T · q. At most {fmt_count(CEILING)} on this server.")  # fmt: skip


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
