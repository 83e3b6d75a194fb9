r"""What does a privacy guarantee mean for the people in the data? Every number of the page.

The page "What does ε mean for the people in my data?" is for a stakeholder. It takes a
guarantee -- (ε, δ)-DP or η-MIP -- and the share π of the population that is in the data (the
membership prior), and shows, with :mod:`mipcore.risk`:

* an icon array of 100 people (:func:`mipcore.risk.icon_array`): how many the best possible
  attacker classifies correctly, and how many members it names while wrongly accusing at most
  a share ``fpr_cap`` of the non-members. Its counts are rounded in the attacker's favour (never
  understating the risk); the unrounded expectations are kept beside them;
* the attacker's best confidence that a person it names is a member: for pure ε-DP the
  posterior bound :func:`mipcore.risk.member_posterior_bound`; with δ > 0 (or η > 0 alone) the
  worst case is 1 -- a δ-event, or a 2η share of members, may be exposed outright -- and the
  useful number is the precision of a naming rule at the stated false-accusation rate,
  :func:`mipcore.risk.ppv_bound`;
* the comparison table ε → η → best accuracy → TPR at FPR 1 % → posterior at π = 1 %
  (:func:`mipcore.risk.comparison_table`).

:func:`what_eps_means_lesson` returns it all as one frozen :class:`WhatEpsMeans`.
:func:`summary_html` builds the one-page, standalone HTML summary a page offers for download
(plotly.js inline, so it opens offline; every given string HTML-escaped). Pure Python, no
Streamlit, no caching.

References
----------
Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582
(Theorem 4; Theorem 8, corrected). Kairouz, Oh, Viswanath. *The Composition Theorem for
Differential Privacy*. ICML 2015, arXiv:1311.0776 (Theorem 2.1).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import plotly.graph_objects as go

from .._validate import check_range
from ..bounds import eta_from_epsilon
from ..risk import (
    ICON_FPR_CAPS,
    ComparisonTable,
    IconArray,
    NamingAtCap,
    comparison_table,
    icon_array,
    member_posterior_bound,
    ppv_bound,
)

__all__ = [
    "PEOPLE",
    "Confidence",
    "GuaranteeKind",
    "WhatEpsMeans",
    "summary_html",
    "what_eps_means_lesson",
]

#: People in the icon array.
PEOPLE = 100


class GuaranteeKind(StrEnum):
    """How the guarantee is given."""

    DP = "dp"  # (ε, δ)-differential privacy
    MIP = "mip"  # η-membership inference privacy


class Confidence(StrEnum):
    """Which number bounds the attacker's confidence in a person it names."""

    POSTERIOR = "posterior"  # a bound for every named person (pure ε-DP, or η = 0)
    PRECISION = "precision"  # the worst case is certainty; the bound is a naming rule's hit rate


@dataclass(frozen=True)
class WhatEpsMeans:
    """Every number of the page for one guarantee, prior and false-accusation cap.

    Attributes
    ----------
    kind : how the guarantee was given; ``epsilon`` (None for η-MIP), ``delta`` (0 for η-MIP).
    eta : the guarantee's η (given, or Theorem 4's η(ε, δ)); ``accuracy_half = 1/2 + η`` is the
        best accuracy when half the people are members.
    prior : π, the share of people in the data; ``one_in`` is N when π = 1/N exactly
        (N <= 1000), else None.
    fpr_cap : the largest share of non-members the naming attacker may wrongly accuse.
    icons : :class:`mipcore.risk.IconArray` of :data:`PEOPLE` people at π (all caps of
        :data:`mipcore.risk.ICON_FPR_CAPS` and ``fpr_cap``); ``naming`` is its row at
        ``fpr_cap``.
    advantage : 2η, the largest TPR − FPR; under η-MIP alone also the share of members a
        release may give away outright.
    members_expected : ``PEOPLE × π``, the members before rounding up.
    accuracy : the best attacker's accuracy at π; ``baseline = max(π, 1 − π)`` is what always
        giving the likelier answer achieves; ``accuracy_gain = accuracy − baseline`` (>= 0).
    worst_posterior : the largest posterior probability of membership for a named person
        (1 when δ > 0, or η > 0 alone).
    confidence_kind, confidence : the headline: the worst posterior when it is below 1 for
        structural reasons (pure ε-DP, or η = 0), else the precision ``ppv`` of a naming rule
        at ``fpr_cap``; ``confidence_lift = confidence / prior``; ``tells_nothing``: the
        confidence equals the prior (to rounding): the release says nothing about membership.
    ppv : :func:`mipcore.risk.ppv_bound` at π and ``fpr_cap``.
    correct_excess, named_excess : how far the picture's rounded counts exceed their expected
        values (in people, in ``[0, 2)`` and ``[0, 1)``).
    table : :func:`mipcore.risk.comparison_table` (its defaults: FPR 1 %, π = 1 %).
    """

    kind: GuaranteeKind
    epsilon: float | None
    delta: float
    eta: float
    accuracy_half: float
    advantage: float
    prior: float
    one_in: int | None
    fpr_cap: float
    icons: IconArray
    naming: NamingAtCap
    members_expected: float
    accuracy: float
    baseline: float
    accuracy_gain: float
    worst_posterior: float
    confidence_kind: Confidence
    confidence: float
    confidence_lift: float
    tells_nothing: bool
    ppv: float
    correct_excess: float
    named_excess: float
    table: ComparisonTable


def _one_in(prior: float) -> int | None:
    n = round(1.0 / prior)
    return n if 1 <= n <= 1000 and math.isclose(n * prior, 1.0, rel_tol=1e-9) else None


def what_eps_means_lesson(
    prior: float = 0.5,
    *,
    kind: GuaranteeKind | str = GuaranteeKind.DP,
    epsilon: float | None = 1.0,
    delta: float = 0.0,
    eta: float | None = None,
    fpr_cap: float = 0.01,
) -> WhatEpsMeans:
    r"""The best attacker's reach over 100 people, for a stakeholder.

    Parameters
    ----------
    prior : float
        ``0 < prior < 1``, the share of the population that is in the data.
    kind : GuaranteeKind or its value
        ``"dp"``: the guarantee is (``epsilon``, ``delta``)-DP (``eta`` must be None);
        ``"mip"``: it is ``eta``-MIP (``epsilon`` is ignored, ``delta`` must be 0).
    epsilon : float or None
        ``0 <= epsilon < inf`` (required for ``"dp"``).
    delta : float
        ``0 <= delta < 1``.
    eta : float or None
        ``0 <= eta <= 1/2`` (required for ``"mip"``).
    fpr_cap : float
        ``0 <= fpr_cap <= 1``, the share of non-members the naming attacker may wrongly accuse.

    Returns
    -------
    WhatEpsMeans

    Raises
    ------
    ValueError
        If a parameter is missing for its ``kind``, NaN or out of range (the message names it).

    Examples
    --------
    >>> r = what_eps_means_lesson(0.01, epsilon=1.0)
    >>> r.one_in, round(r.confidence, 4), r.confidence_kind.value  # 2.7 %, up from 1 %
    (100, 0.0267, 'posterior')
    >>> r.icons.members, r.naming.named, r.naming.accused
    (1, 1, 0)
    >>> h = what_eps_means_lesson(0.5, epsilon=1.0)
    >>> h.icons.correct, round(h.accuracy, 4), round(h.eta, 4)
    (74, 0.7311, 0.2311)
    >>> d = what_eps_means_lesson(0.01, epsilon=1.0, delta=1e-5)
    >>> d.worst_posterior, d.confidence_kind.value, round(d.confidence, 4)
    (1.0, 'precision', 0.0267)
    """
    try:
        kind = GuaranteeKind(kind)
    except ValueError:
        raise ValueError(
            f"kind={kind!r} is not a guarantee kind: allowed 'dp' (ε, δ) or 'mip' (η)"
        ) from None
    pi = float(
        check_range(
            "prior",
            prior,
            0.0,
            1.0,
            lo_open=True,
            hi_open=True,
            hint="the share of the population that is in the data",
        )
    )
    cap = float(check_range("fpr_cap", fpr_cap, 0.0, 1.0))
    caps = tuple(sorted({*ICON_FPR_CAPS, cap}))
    if kind is GuaranteeKind.DP:
        if epsilon is None:
            raise ValueError("epsilon=None: an (epsilon, delta) guarantee needs epsilon")
        if eta is not None:
            raise ValueError(f"eta={eta!r} was given with kind='dp'; use kind='mip' for η")
        eps_dp = float(check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True))
        dlt = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
        e = float(eta_from_epsilon(eps_dp, dlt))
        icons = icon_array(pi, epsilon=eps_dp, delta=dlt, fpr_caps=caps, people=PEOPLE)
        worst = float(member_posterior_bound(pi, epsilon=eps_dp, delta=dlt))
        ppv = float(ppv_bound(pi, cap, epsilon=eps_dp, delta=dlt))
        eps: float | None = eps_dp
        bounded = dlt == 0.0
    else:
        if eta is None:
            raise ValueError("eta=None: an η-MIP guarantee needs eta")
        if float(check_range("delta", delta, 0.0, 1.0)) != 0.0:
            raise ValueError(f"delta={delta!r} was given with kind='mip': η has no δ; pass 0")
        eps, dlt = None, 0.0
        e = float(check_range("eta", eta, 0.0, 0.5))
        icons = icon_array(pi, eta=e, fpr_caps=caps, people=PEOPLE)
        worst = float(ppv_bound(pi, 0.0, eta=e))  # the limit FPR -> 0: 1 for every eta > 0
        ppv = float(ppv_bound(pi, cap, eta=e))
        bounded = e == 0.0
    naming = next(c for c in icons.caps if c.fpr_cap == cap)
    confidence = worst if bounded else ppv
    baseline = max(pi, 1.0 - pi)
    return WhatEpsMeans(
        kind=kind,
        epsilon=eps,
        delta=dlt,
        eta=e,
        accuracy_half=0.5 + e,
        advantage=2.0 * e,
        prior=pi,
        one_in=_one_in(pi),
        fpr_cap=cap,
        icons=icons,
        naming=naming,
        members_expected=PEOPLE * pi,
        accuracy=icons.accuracy,
        baseline=baseline,
        accuracy_gain=max(0.0, icons.accuracy - baseline),
        worst_posterior=worst,
        confidence_kind=Confidence.POSTERIOR if bounded else Confidence.PRECISION,
        confidence=confidence,
        confidence_lift=confidence / pi,
        tells_nothing=confidence <= pi * (1.0 + 1e-12),
        ppv=ppv,
        correct_excess=icons.correct - icons.correct_expected,
        named_excess=naming.named - naming.named_expected,
        table=comparison_table(),
    )


_CSS = """
body { font-family: "Source Sans Pro", Helvetica, Arial, sans-serif; color: #1a1a1a;
       max-width: 860px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
li { margin: 0.35em 0; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #b0b0b0; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.small { font-size: 0.9em; color: #4a4f55; }
a { color: #0b5394; word-break: break-all; }
"""


def summary_html(
    *,
    title: str,
    sentences: Sequence[str],
    url: str,
    figures: Sequence[go.Figure] = (),
    table_header: Sequence[str] = (),
    table_rows: Sequence[Sequence[str]] = (),
    notes: Sequence[str] = (),
) -> str:
    """A one-page standalone HTML summary: title, sentences, figures, a table, the view's URL.

    Parameters
    ----------
    title : the page's heading (and the document title).
    sentences : plain-text sentences, shown as a list.
    url : the address that recreates the view; a link when it is an ``http(s)`` URL, else
        plain text.
    figures : Plotly figures; the first carries plotly.js inline (``include_plotlyjs=True``,
        about 4.6 MB), so the file opens anywhere, offline too.
    table_header, table_rows : an optional table of plain-text cells.
    notes : plain-text lines in small print at the end (sources, rounding).

    Returns
    -------
    str
        A complete HTML document. Every given string is HTML-escaped (quotes too): text from a
        crafted URL cannot add markup or script to the file.
    """
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
    ]
    if sentences:
        parts.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>")
    for i, fig in enumerate(figures):
        parts.append(
            fig.to_html(
                full_html=False,
                include_plotlyjs=i == 0,
                div_id=f"mip-figure-{i + 1}",
                config={"displaylogo": False, "responsive": True},
            )
        )
    if table_rows:
        head = "".join(f"<th>{esc(h)}</th>" for h in table_header)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in table_rows
        )
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    shown = esc(url)
    if url.startswith(("https://", "http://")):
        link = f'<a href="{esc(url, quote=True)}">{shown}</a>'
    else:
        link = f"<code>{shown or '(this page with its default settings)'}</code>"
    parts.append(f'<h2>Recreate this view</h2><p class="small">{link}</p>')
    parts.extend(f'<p class="small">{esc(n)}</p>' for n in notes)
    parts.append("</body></html>")
    return "\n".join(parts)
