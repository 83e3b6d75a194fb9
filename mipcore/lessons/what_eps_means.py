r"""What does a privacy guarantee mean for the people in the data? Every number of the page.

The page "What does ε mean for the people in my data?" is for a stakeholder. It takes a
guarantee -- (ε, δ)-DP, η-MIP, μ-GDP, or a DP-SGD run (noise multiplier, sampling rate, steps)
read through the same PLD accountant as the risk calculator
(:func:`mipcore.guarantees.attacker_bound`) -- and the share π of the population that is in
the data (the membership prior), and shows, with :mod:`mipcore.risk`:

* an icon array (:func:`mipcore.risk.icon_array`) of 100, 1 000 or 10 000 people -- the
  smallest at which the attacker it draws names and wrongly accuses at least one person
  wherever the bound expects any: how many the best possible attacker classifies correctly,
  and how many members it names while wrongly accusing at most a share ``fpr_cap`` of the
  non-members. **One rounding rule**: every count the attacker achieves is rounded down and
  the members it names are those the bound allows at the share it really accuses, so the
  picture shows an attacker the guarantee allows -- never better for the attacker than the
  bound -- and never draws less than one person as a person; the averages are kept beside it;
* the attacker's best confidence that a person it names is a member: for pure ε-DP the
  posterior bound :func:`mipcore.risk.member_posterior_bound`; otherwise the worst case is 1
  -- a δ-event, a 2η share of members, or an unbounded privacy loss may expose someone
  outright -- and the useful number is the precision of a naming rule at the stated
  false-accusation rate (:func:`mipcore.risk.ppv_bound`, or from the curve's TPR bound);
* the comparison table ε → η → best accuracy → TPR at the cap → posterior, all at the page's
  one share of people (:func:`mipcore.risk.comparison_table`).

For μ-GDP and DP-SGD the numbers come from the trade-off curve of
:func:`~mipcore.guarantees.attacker_bound` (its ROC bound, η and refined TPRs at FPR 0.1 %, 1 %
and 10 %), exactly as the risk calculator shows them, so both pages agree.

:func:`what_eps_means_lesson` returns it all as one frozen :class:`WhatEpsMeans`.
:func:`summary_html` builds the one-page, standalone HTML summary a page offers for download
(its pictures inline SVG, so it opens offline and stays small; every given string
HTML-escaped); :func:`export_file_name` names it by its settings. Pure Python, no Streamlit,
no caching.

References
----------
Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582
(Theorem 4; Theorem 8, corrected). Kairouz, Oh, Viswanath. *The Composition Theorem for
Differential Privacy*. ICML 2015, arXiv:1311.0776 (Theorem 2.1). Dong, Roth, Su. *Gaussian
Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .._validate import check_range
from ..bounds import eta_from_epsilon
from ..guarantees import AttackerBound, DpSgd, Gdp, Route, attacker_bound
from ..risk import (
    ComparisonTable,
    IconArray,
    NamingAtCap,
    TradeOffCurve,
    comparison_table,
    icon_array,
    member_posterior_bound,
    ppv_bound,
)

__all__ = [
    "DEFAULT_PRIOR",
    "PEOPLE",
    "Confidence",
    "GuaranteeKind",
    "WhatEpsMeans",
    "export_file_name",
    "summary_html",
    "what_eps_means_lesson",
]

#: The smallest population the icon array shows (larger ones when needed: see icon_array).
PEOPLE = 100
#: The default share of people in the data on both the stakeholder page and the risk
#: calculator: 1 %, because a data set is usually a small part of the population an attacker
#: could test, and at small shares the risk is whom an attacker can name, not its accuracy.
DEFAULT_PRIOR = 0.01


class GuaranteeKind(StrEnum):
    """How the guarantee is given."""

    DP = "dp"  # (ε, δ)-differential privacy
    MIP = "mip"  # η-membership inference privacy
    GDP = "gdp"  # μ-Gaussian DP (replace-one): its exact trade-off curve
    DPSGD = "dpsgd"  # a DP-SGD run through the PLD accountant (replace-one)


class Confidence(StrEnum):
    """Which number bounds the attacker's confidence in a person it names."""

    POSTERIOR = "posterior"  # a bound for every named person (pure ε-DP, or η = 0)
    PRECISION = "precision"  # the worst case is certainty; the bound is a naming rule's hit rate


@dataclass(frozen=True)
class WhatEpsMeans:
    """Every number of the page for one guarantee, prior and false-accusation cap.

    Attributes
    ----------
    kind : how the guarantee was given; ``epsilon`` (None unless "dp"), ``delta`` (0 unless
        "dp"), ``mu`` (μ-GDP), ``noise_multiplier``, ``sampling_rate``, ``steps`` (DP-SGD):
        None where not given.
    route : for μ-GDP and DP-SGD, the tightest route of
        :func:`mipcore.guarantees.attacker_bound` (the one whose η is reported), else None.
    eta : the guarantee's η (given, Theorem 4's η(ε, δ), or the attacker bound's);
        ``accuracy_half = 1/2 + η`` is the best accuracy when half the people are members.
    prior : π, the share of people in the data; ``one_in`` is N when π = 1/N exactly
        (N <= 1000), else None.
    fpr_cap : the largest share of non-members the naming attacker may wrongly accuse.
    icons : :class:`mipcore.risk.IconArray` at π for the cap (its population chosen by
        :func:`mipcore.risk.icon_array`); ``naming`` is its row at ``fpr_cap``; ``people``
        its population.
    advantage : 2η, the largest TPR − FPR.
    members_expected : ``people × π``.
    accuracy : the best attacker's accuracy at π (a sound upper bound for a curve);
        ``baseline = max(π, 1 − π)`` is what always giving the likelier answer achieves;
        ``accuracy_gain = accuracy − baseline`` (>= 0).
    worst_posterior : the largest posterior probability of membership for a named person
        (1 unless the guarantee is pure ε-DP, or η = 0).
    confidence_kind, confidence : the headline: the worst posterior when it is below 1 for
        structural reasons (pure ε-DP, or η = 0), else the precision ``ppv`` of a naming rule
        at ``fpr_cap``; ``confidence_lift = confidence / prior``; ``tells_nothing``: the
        confidence equals the prior (to rounding): the release says nothing about membership.
    ppv : the largest precision at π and ``fpr_cap``.
    table : :func:`mipcore.risk.comparison_table` at the page's prior and ``fpr_cap``.
    """

    kind: GuaranteeKind
    epsilon: float | None
    delta: float
    mu: float | None
    noise_multiplier: float | None
    sampling_rate: float | None
    steps: int | None
    route: Route | None
    eta: float
    accuracy_half: float
    advantage: float
    prior: float
    one_in: int | None
    fpr_cap: float
    icons: IconArray
    naming: NamingAtCap
    people: int
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
    table: ComparisonTable


def _one_in(prior: float) -> int | None:
    n = round(1.0 / prior)
    return n if 1 <= n <= 1000 and math.isclose(n * prior, 1.0, rel_tol=1e-9) else None


def curve_of(bound: AttackerBound) -> TradeOffCurve:
    """The trade-off curve of an attacker bound (its ROC bound and η) for the icon array."""
    return TradeOffCurve(
        tuple(float(x) for x in bound.roc_fpr),
        tuple(float(x) for x in bound.roc_tpr),
        float(bound.eta),
    )


def what_eps_means_lesson(
    prior: float = DEFAULT_PRIOR,
    *,
    kind: GuaranteeKind | str = GuaranteeKind.DP,
    epsilon: float | None = 1.0,
    delta: float = 0.0,
    eta: float | None = None,
    mu: float | None = None,
    noise_multiplier: float | None = None,
    sampling_rate: float | None = None,
    steps: int | None = None,
    fpr_cap: float = 0.01,
    progress: Callable[[float, str], None] | None = None,
) -> WhatEpsMeans:
    r"""The best attacker's reach over 100, 1 000 or 10 000 people, for a stakeholder.

    Parameters
    ----------
    prior : float
        ``0 < prior < 1``, the share of the population that is in the data.
    kind : GuaranteeKind or its value
        ``"dp"``: (``epsilon``, ``delta``)-DP; ``"mip"``: ``eta``-MIP; ``"gdp"``: ``mu``-GDP
        (replace-one); ``"dpsgd"``: a DP-SGD run (``noise_multiplier``, ``sampling_rate``,
        ``steps``; Poisson sampling, replace-one, the PLD accountant -- seconds for many
        steps). Parameters of other kinds must be left at their defaults (``epsilon`` is
        ignored unless ``"dp"``).
    epsilon : ``0 <= epsilon < inf``. delta : ``0 <= delta < 1``. eta : ``0 <= eta <= 1/2``.
    mu : ``0 <= mu < inf``.
    noise_multiplier, sampling_rate, steps : as :class:`mipcore.guarantees.DpSgd`
        (``> 0``, ``(0, 1]``, ``1 <= steps <= 10**7``; a page applies its own work ceiling).
    fpr_cap : float
        ``0 <= fpr_cap <= 1``, the share of non-members the naming attacker may wrongly accuse.
    progress : optional ``progress(fraction, message)`` callback (a page's job runner).

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
    >>> r.people, r.icons.members, r.naming.named, r.naming.accused  # 2.72 named, 99 accused
    (10000, 100, 2, 99)
    >>> h = what_eps_means_lesson(0.5, epsilon=1.0, fpr_cap=0.05)
    >>> h.people, h.icons.correct, round(h.accuracy, 4), round(h.eta, 4)
    (100, 72, 0.7311, 0.2311)
    >>> d = what_eps_means_lesson(0.01, epsilon=1.0, delta=1e-5)
    >>> d.worst_posterior, d.confidence_kind.value, round(d.confidence, 4)
    (1.0, 'precision', 0.0267)
    """
    try:
        kind = GuaranteeKind(kind)
    except ValueError:
        allowed = ", ".join(repr(k.value) for k in GuaranteeKind)
        raise ValueError(f"kind={kind!r} is not a guarantee kind: allowed {allowed}") from None
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
    if kind is not GuaranteeKind.DP and float(check_range("delta", delta, 0.0, 1.0)) != 0.0:
        raise ValueError(f"delta={delta!r} was given with kind={kind.value!r}: only (ε, δ) has δ")
    if kind is not GuaranteeKind.MIP and eta is not None:
        raise ValueError(f"eta={eta!r} was given with kind={kind.value!r}; use kind='mip' for η")
    if kind is not GuaranteeKind.GDP and mu is not None:
        raise ValueError(f"mu={mu!r} was given with kind={kind.value!r}; use kind='gdp' for μ")
    run = (noise_multiplier, sampling_rate, steps)
    if kind is not GuaranteeKind.DPSGD and any(x is not None for x in run):
        raise ValueError(f"a DP-SGD run was given with kind={kind.value!r}; use kind='dpsgd'")
    eps: float | None = None
    dlt = 0.0
    route: Route | None = None
    mu_v: float | None = None
    sgd: DpSgd | None = None
    curve: TradeOffCurve | None = None
    if kind is GuaranteeKind.DP:
        if epsilon is None:
            raise ValueError("epsilon=None: an (epsilon, delta) guarantee needs epsilon")
        eps = float(check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True))
        dlt = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
        e = float(eta_from_epsilon(eps, dlt))
        icons = icon_array(pi, epsilon=eps, delta=dlt, fpr_caps=(cap,))
        worst = float(member_posterior_bound(pi, epsilon=eps, delta=dlt))
        ppv = float(ppv_bound(pi, cap, epsilon=eps, delta=dlt))
        bounded = dlt == 0.0
    elif kind is GuaranteeKind.MIP:
        if eta is None:
            raise ValueError("eta=None: an η-MIP guarantee needs eta")
        e = float(check_range("eta", eta, 0.0, 0.5))
        icons = icon_array(pi, eta=e, fpr_caps=(cap,))
        worst = float(ppv_bound(pi, 0.0, eta=e))  # the limit FPR -> 0: 1 for every eta > 0
        ppv = float(ppv_bound(pi, cap, eta=e))
        bounded = e == 0.0
    else:
        if kind is GuaranteeKind.GDP:
            if mu is None:
                raise ValueError("mu=None: a μ-GDP guarantee needs mu")
            gdp = Gdp(mu)
            g: Gdp | DpSgd = gdp
            mu_v = gdp.mu
        else:
            if any(x is None for x in run):
                raise ValueError(
                    "a DP-SGD run needs noise_multiplier, sampling_rate and steps "
                    f"(got {noise_multiplier!r}, {sampling_rate!r}, {steps!r})"
                )
            g = sgd = DpSgd(noise_multiplier, sampling_rate, steps)  # type: ignore[arg-type]
        if progress is not None:
            progress(0.05, "reading the guarantee through its tightest route")
        b = attacker_bound(g)
        route, e = b.route, float(b.eta)
        curve = curve_of(b)
        icons = icon_array(pi, curve=curve, fpr_caps=(cap,))
        ppv = icons.caps[0].ppv
        worst = 1.0 if e > 0 else pi
        bounded = e == 0.0
    naming = icons.caps[0]
    if kind in (GuaranteeKind.GDP, GuaranteeKind.DPSGD):
        ppv = naming.ppv
    confidence = worst if bounded else ppv
    baseline = max(pi, 1.0 - pi)
    if progress is not None:
        progress(1.0, "done")
    return WhatEpsMeans(
        kind=kind,
        epsilon=eps,
        delta=dlt,
        mu=mu_v,
        noise_multiplier=None if sgd is None else sgd.noise_multiplier,
        sampling_rate=None if sgd is None else sgd.sampling_rate,
        steps=None if sgd is None else sgd.steps,
        route=route,
        eta=e,
        accuracy_half=0.5 + e,
        advantage=2.0 * e,
        prior=pi,
        one_in=_one_in(pi),
        fpr_cap=cap,
        icons=icons,
        naming=naming,
        people=icons.people,
        members_expected=icons.people * pi,
        accuracy=icons.accuracy,
        baseline=baseline,
        accuracy_gain=max(0.0, icons.accuracy - baseline),
        worst_posterior=worst,
        confidence_kind=Confidence.POSTERIOR if bounded else Confidence.PRECISION,
        confidence=confidence,
        confidence_lift=confidence / pi,
        tells_nothing=confidence <= pi * (1.0 + 1e-12),
        ppv=ppv,
        table=comparison_table(prior=pi, fpr=cap),
    )


def _short(x: float) -> str:
    """A number for a file name: ``1``, ``0.5``, ``1e-05``, ``1.1`` (no spaces, no slashes)."""
    text = f"{float(x):.6g}".replace("+", "")
    return re.sub(r"[^0-9a-z.\-]", "", text)


def export_file_name(L: WhatEpsMeans, suffix: str = "html") -> str:
    """The summary's file name, made of its settings.

    Examples
    --------
    >>> export_file_name(what_eps_means_lesson(0.01, epsilon=1.0, delta=1e-5))
    'mip_eps1_delta1e-05_share1pct_cap1pct.html'
    >>> export_file_name(what_eps_means_lesson(0.5, kind="mip", epsilon=None, eta=0.1))
    'mip_eta0.1_share50pct_cap1pct.html'
    """
    if L.kind is GuaranteeKind.DP:
        what = f"eps{_short(L.epsilon or 0.0)}_delta{_short(L.delta)}"
    elif L.kind is GuaranteeKind.MIP:
        what = f"eta{_short(L.eta)}"
    elif L.kind is GuaranteeKind.GDP:
        what = f"gdp_mu{_short(L.mu or 0.0)}"
    else:
        what = (
            f"dpsgd_sigma{_short(L.noise_multiplier or 0.0)}_q{_short(L.sampling_rate or 0.0)}"
            f"_steps{L.steps}"
        )
    share = _short(100.0 * L.prior)
    cap = _short(100.0 * L.fpr_cap)
    return f"mip_{what}_share{share}pct_cap{cap}pct.{suffix}"


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
figure.chart { margin: 1em 0; } figure.chart svg { max-width: 100%; height: auto; }
"""


def summary_html(
    *,
    title: str,
    sentences: Sequence[str],
    url: str,
    figures: Sequence[str] = (),
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
    figures : the pictures as SVG documents (``<svg …>…</svg>``, e.g. from
        :func:`mipcore.plots.risk_vega.picture_svg`), inlined: no script, no network, a few
        tens of KB each. A figure that is not an SVG without script is refused.
    table_header, table_rows : an optional table of plain-text cells.
    notes : plain-text lines in small print at the end (sources, rounding).

    Returns
    -------
    str
        A complete HTML document. Every given string is HTML-escaped (quotes too): text from a
        crafted URL cannot add markup or script to the file.

    Raises
    ------
    ValueError
        If a figure is not an SVG document, or holds a script or an event handler.
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
    for i, svg in enumerate(figures):
        text = svg.strip()
        if text.startswith("<?xml"):
            text = text[text.index("?>") + 2 :].strip()
        if not text.startswith("<svg") or re.search(r"<script|\son[a-z]+\s*=", text, re.I):
            raise ValueError(f"figures[{i}] is not an SVG picture without script")
        parts.append(f'<figure class="chart" id="mip-figure-{i + 1}">{text}</figure>')
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
