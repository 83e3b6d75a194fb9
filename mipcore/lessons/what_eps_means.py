r"""What does a privacy guarantee mean for the people in the data? Every number of the page.

The page "What does ε mean for the people in my data?" is for a stakeholder. It takes a
guarantee -- (ε, δ)-DP, η-MIP, μ-GDP, ρ-zCDP, Rényi DP at a few orders, or a DP-SGD run
(noise multiplier, sampling rate, steps) read through the same PLD accountant as the risk
calculator (:func:`mipcore.guarantees.attacker_bound`); the DP kinds stated for replace-one or
add/remove neighbours, as on the calculator -- and the share π of the population that is in
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

For μ-GDP, ρ-zCDP, Rényi DP, DP-SGD and every add/remove guarantee the numbers come from the
trade-off curve of :func:`~mipcore.guarantees.attacker_bound` (its ROC bound, η and refined
TPRs at FPR 0.1 %, 1 % and 10 %; an add/remove guarantee converted to MIP's replace-one game
by group privacy for two), exactly as the risk calculator shows them, so both pages agree. A
replace-one (ε, δ) is read in closed form (Theorem 4 and the (ε, δ) region).

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
Differential Privacy*. JRSS-B 2022, arXiv:1905.02383. Bun, Steinke. *Concentrated
Differential Privacy*. TCC 2016, arXiv:1605.02065. Mironov. *Rényi Differential Privacy*.
CSF 2017, arXiv:1702.07476.
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
from ..guarantees import (
    AttackerBound,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Rdp,
    Relation,
    Route,
    Zcdp,
    attacker_bound,
)
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
    "RELATION_KINDS",
    "Confidence",
    "GuaranteeKind",
    "WhatEpsMeans",
    "export_file_name",
    "read_guarantee",
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
    GDP = "gdp"  # μ-Gaussian DP: its exact trade-off curve
    ZCDP = "zcdp"  # ρ-zero-concentrated DP: the Rényi trade-off curve
    RDP = "rdp"  # Rényi DP at a few orders: the Rényi trade-off curve
    DPSGD = "dpsgd"  # a DP-SGD run through the PLD accountant (replace-one)


#: The kinds stated for a neighbouring relation (η-MIP and a DP-SGD run are replace-one).
RELATION_KINDS = (GuaranteeKind.DP, GuaranteeKind.GDP, GuaranteeKind.ZCDP, GuaranteeKind.RDP)


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
        "dp"), ``mu`` (μ-GDP), ``rho`` (ρ-zCDP), ``orders`` and ``rdp_values`` (Rényi DP,
        as tuples), ``noise_multiplier``, ``sampling_rate``, ``steps`` (DP-SGD): None
        where not given.
    relation : the neighbouring relation the guarantee was stated for (replace-one for
        η-MIP and DP-SGD); an add/remove guarantee is read for MIP's replace-one game by
        group privacy for two, as :func:`mipcore.guarantees.attacker_bound` does.
    route : the tightest route of :func:`mipcore.guarantees.attacker_bound` (the one whose η
        is reported) for every kind read through it; None for η-MIP and a replace-one
        (ε, δ), read in closed form.
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
        (1 unless the guarantee is pure ε-DP -- a likelihood ratio of at most e^ε, e^2ε for
        add/remove neighbours -- or η = 0).
    confidence_kind, confidence : the headline: the worst posterior when it is below 1 for
        structural reasons (pure ε-DP, or η = 0), else the precision ``ppv`` of a naming rule
        at ``fpr_cap``; ``confidence_lift = confidence / prior``; ``tells_nothing``: the
        confidence equals the prior (to rounding): the release says nothing about membership.
    ppv : the largest precision at π and ``fpr_cap``.
    table : :func:`mipcore.risk.comparison_table` at the page's prior and ``fpr_cap``.
    """

    kind: GuaranteeKind
    relation: Relation
    epsilon: float | None
    delta: float
    mu: float | None
    rho: float | None
    orders: tuple[float, ...] | None
    rdp_values: tuple[float, ...] | None
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


#: the :class:`mipcore.guarantees.Kind` of an attacker bound, where its name differs
_BOUND_KIND = {GuaranteeKind.DP: "eps_delta"}


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


def _relation(kind: GuaranteeKind, relation: Relation | str) -> Relation:
    try:
        rel = Relation(relation)
    except ValueError:
        allowed = ", ".join(repr(r.value) for r in Relation)
        raise ValueError(
            f"relation={relation!r} is not a neighbouring relation: allowed {allowed}"
        ) from None
    if rel is not Relation.REPLACE_ONE and kind not in RELATION_KINDS:
        raise ValueError(
            f"relation={relation!r} was given with kind={kind.value!r}: η-MIP and a DP-SGD run "
            "are stated for MIP's replace-one game, so only relation='replace_one' is allowed"
        )
    return rel


def _refuse_foreign(
    kind: GuaranteeKind,
    delta: float,
    eta: float | None,
    mu: float | None,
    rho: float | None,
    rdp: tuple[Sequence[float] | None, Sequence[float] | None],
    run: tuple[float | None, float | None, int | None],
) -> None:
    """Refuse a parameter of another kind (``epsilon`` is ignored unless "dp")."""
    if kind is not GuaranteeKind.DP and float(check_range("delta", delta, 0.0, 1.0)) != 0.0:
        raise ValueError(f"delta={delta!r} was given with kind={kind.value!r}: only (ε, δ) has δ")
    if kind is not GuaranteeKind.MIP and eta is not None:
        raise ValueError(f"eta={eta!r} was given with kind={kind.value!r}; use kind='mip' for η")
    if kind is not GuaranteeKind.GDP and mu is not None:
        raise ValueError(f"mu={mu!r} was given with kind={kind.value!r}; use kind='gdp' for μ")
    if kind is not GuaranteeKind.ZCDP and rho is not None:
        raise ValueError(f"rho={rho!r} was given with kind={kind.value!r}; use kind='zcdp' for ρ")
    for name, value in zip(("orders", "rdp_values"), rdp, strict=True):
        if kind is not GuaranteeKind.RDP and value is not None:
            raise ValueError(
                f"{name}={value!r} was given with kind={kind.value!r}; use kind='rdp' for Rényi DP"
            )
    if kind is not GuaranteeKind.DPSGD and any(x is not None for x in run):
        raise ValueError(f"a DP-SGD run was given with kind={kind.value!r}; use kind='dpsgd'")


def _curve_guarantee(
    kind: GuaranteeKind,
    relation: Relation,
    epsilon: float,
    delta: float,
    mu: float | None,
    rho: float | None,
    rdp: tuple[Sequence[float] | None, Sequence[float] | None],
    run: tuple[float | None, float | None, int | None],
) -> Guarantee:
    """The guarantee read through :func:`attacker_bound` (every kind but η-MIP and a
    replace-one (ε, δ)); a missing parameter is refused by name, the rest by its class."""
    if kind is GuaranteeKind.DP:
        return EpsDelta(epsilon, delta, relation)
    if kind is GuaranteeKind.GDP:
        if mu is None:
            raise ValueError("mu=None: a μ-GDP guarantee needs mu")
        return Gdp(mu, relation)
    if kind is GuaranteeKind.ZCDP:
        if rho is None:
            raise ValueError("rho=None: a ρ-zCDP guarantee needs rho")
        return Zcdp(rho, relation)
    if kind is GuaranteeKind.RDP:
        orders, values = rdp
        if orders is None or values is None:
            raise ValueError(
                f"orders={orders!r}, rdp_values={values!r}: a Rényi-DP guarantee needs orders "
                "and rdp_values"
            )
        return Rdp(orders, values, relation)  # type: ignore[arg-type]  # Rdp makes tuples
    if any(x is None for x in run):
        raise ValueError(
            "a DP-SGD run needs noise_multiplier, sampling_rate and steps "
            f"(got {run[0]!r}, {run[1]!r}, {run[2]!r})"
        )
    return DpSgd(*run)  # type: ignore[arg-type]


def _guarantee(
    kind: GuaranteeKind | str,
    epsilon: float | None,
    delta: float,
    eta: float | None,
    mu: float | None,
    rho: float | None,
    rdp: tuple[Sequence[float] | None, Sequence[float] | None],
    run: tuple[float | None, float | None, int | None],
    relation: Relation | str,
) -> tuple[GuaranteeKind, Relation, float | None, float, Guarantee | None]:
    """The kind, relation, ε and δ (a "dp" guarantee), and the guarantee read through
    :func:`attacker_bound` (None for η-MIP and a replace-one (ε, δ), read in closed form);
    every parameter checked, a wrong one refused by name."""
    try:
        kind = GuaranteeKind(kind)
    except ValueError:
        allowed = ", ".join(repr(k.value) for k in GuaranteeKind)
        raise ValueError(f"kind={kind!r} is not a guarantee kind: allowed {allowed}") from None
    rel = _relation(kind, relation)
    _refuse_foreign(kind, delta, eta, mu, rho, rdp, run)
    eps: float | None = None
    dlt = 0.0
    if kind is GuaranteeKind.DP:
        if epsilon is None:
            raise ValueError("epsilon=None: an (epsilon, delta) guarantee needs epsilon")
        eps = float(check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True))
        dlt = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    if kind is GuaranteeKind.MIP or (kind is GuaranteeKind.DP and rel is Relation.REPLACE_ONE):
        return kind, rel, eps, dlt, None
    return kind, rel, eps, dlt, _curve_guarantee(kind, rel, eps or 0.0, dlt, mu, rho, rdp, run)


def read_guarantee(
    *,
    kind: GuaranteeKind | str = GuaranteeKind.DP,
    epsilon: float | None = 1.0,
    delta: float = 0.0,
    eta: float | None = None,
    mu: float | None = None,
    rho: float | None = None,
    orders: Sequence[float] | None = None,
    rdp_values: Sequence[float] | None = None,
    noise_multiplier: float | None = None,
    sampling_rate: float | None = None,
    steps: int | None = None,
    relation: Relation | str = Relation.REPLACE_ONE,
    progress: Callable[[float, str], None] | None = None,
) -> AttackerBound | None:
    """The attacker bound of the guarantee :func:`what_eps_means_lesson` reads through its
    trade-off curve (:func:`mipcore.guarantees.attacker_bound`, the seconds of work for
    ρ-zCDP, Rényi DP and a DP-SGD run), or None for η-MIP and a replace-one (ε, δ), which
    the lesson reads in closed form. The share of people plays no part: a page computes it
    once and passes it to the lesson as ``bound`` for every share.

    The parameters are the lesson's (and refused as there).

    Examples
    --------
    >>> read_guarantee(kind="zcdp", rho=0.5).route.value
    'renyi_tradeoff'
    >>> read_guarantee(epsilon=1.0, delta=1e-5) is None  # Theorem 4, in closed form
    True
    """
    *_, g = _guarantee(
        kind,
        epsilon,
        delta,
        eta,
        mu,
        rho,
        (orders, rdp_values),
        (noise_multiplier, sampling_rate, steps),
        relation,
    )
    if g is None:
        return None
    if progress is not None:
        progress(0.05, "reading the guarantee through its tightest route")
    b = attacker_bound(g)
    if progress is not None:
        progress(1.0, "done")
    return b


def what_eps_means_lesson(
    prior: float = DEFAULT_PRIOR,
    *,
    kind: GuaranteeKind | str = GuaranteeKind.DP,
    epsilon: float | None = 1.0,
    delta: float = 0.0,
    eta: float | None = None,
    mu: float | None = None,
    rho: float | None = None,
    orders: Sequence[float] | None = None,
    rdp_values: Sequence[float] | None = None,
    noise_multiplier: float | None = None,
    sampling_rate: float | None = None,
    steps: int | None = None,
    relation: Relation | str = Relation.REPLACE_ONE,
    fpr_cap: float = 0.01,
    bound: AttackerBound | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> WhatEpsMeans:
    r"""The best attacker's reach over 100, 1 000 or 10 000 people, for a stakeholder.

    Parameters
    ----------
    prior : float
        ``0 < prior < 1``, the share of the population that is in the data.
    kind : GuaranteeKind or its value
        ``"dp"``: (``epsilon``, ``delta``)-DP; ``"mip"``: ``eta``-MIP; ``"gdp"``: ``mu``-GDP;
        ``"zcdp"``: ``rho``-zCDP; ``"rdp"``: Rényi DP, ε(α) = ``rdp_values`` at ``orders``;
        ``"dpsgd"``: a DP-SGD run (``noise_multiplier``, ``sampling_rate``, ``steps``;
        Poisson sampling, replace-one, the PLD accountant -- seconds for many steps).
        Parameters of other kinds must be left at their defaults (``epsilon`` is ignored
        unless ``"dp"``).
    epsilon : ``0 <= epsilon < inf``. delta : ``0 <= delta < 1``. eta : ``0 <= eta <= 1/2``.
    mu : ``0 <= mu < inf``. rho : ``0 <= rho < inf``.
    orders, rdp_values : sequences of equal length, as :class:`mipcore.guarantees.Rdp`
        (orders ``> 1``, values ``>= 0``).
    noise_multiplier, sampling_rate, steps : as :class:`mipcore.guarantees.DpSgd`
        (``> 0``, ``(0, 1]``, ``1 <= steps <= 10**7``; a page applies its own work ceiling).
    relation : Relation or its value
        The neighbours the guarantee is stated for (kinds "dp", "gdp", "zcdp", "rdp");
        ``"add_or_remove_one"`` is read for MIP's replace-one game by group privacy for two,
        as the risk calculator reads it. η-MIP and a DP-SGD run take only ``"replace_one"``.
    fpr_cap : float
        ``0 <= fpr_cap <= 1``, the share of non-members the naming attacker may wrongly accuse.
    bound : AttackerBound, optional
        :func:`read_guarantee` of the same guarantee, computed beforehand (a page computes it
        once, in its own process, for every share of people); None: computed here. Only its
        kind and relation are checked against the guarantee.
    progress : optional ``progress(fraction, message)`` callback (a page's job runner).

    Returns
    -------
    WhatEpsMeans
        For every kind but η-MIP and a replace-one (ε, δ), η, the icon array and the
        precision come from the trade-off curve of :func:`mipcore.guarantees.attacker_bound`
        for the same guarantee, so they equal the risk calculator's
        (:func:`mipcore.lessons.risk_calculator.risk_report`).

    Raises
    ------
    ValueError
        If a parameter is missing for its ``kind``, given with another kind, NaN or out of
        range (the message names it).

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
    >>> z = what_eps_means_lesson(0.01, kind="zcdp", rho=0.5)  # the Rényi trade-off curve
    >>> z.route.value, round(z.eta, 4), z.confidence_kind.value
    ('renyi_tradeoff', 0.2395, 'precision')
    >>> round(what_eps_means_lesson(0.01, kind="zcdp", rho=0.5, relation="add_or_remove_one").eta, 4)
    0.4168
    """
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
    kind, rel, eps, dlt, g = _guarantee(
        kind,
        epsilon,
        delta,
        eta,
        mu,
        rho,
        (orders, rdp_values),
        (noise_multiplier, sampling_rate, steps),
        relation,
    )
    route: Route | None = None
    if g is None and kind is GuaranteeKind.DP:  # a replace-one (ε, δ): closed form
        assert eps is not None
        e = float(eta_from_epsilon(eps, dlt))
        icons = icon_array(pi, epsilon=eps, delta=dlt, fpr_caps=(cap,))
        worst = float(member_posterior_bound(pi, epsilon=eps, delta=dlt))
        ppv = float(ppv_bound(pi, cap, epsilon=eps, delta=dlt))
        bounded = dlt == 0.0
    elif g is None:  # η-MIP
        if eta is None:
            raise ValueError("eta=None: an η-MIP guarantee needs eta")
        e = float(check_range("eta", eta, 0.0, 0.5))
        icons = icon_array(pi, eta=e, fpr_caps=(cap,))
        worst = float(ppv_bound(pi, 0.0, eta=e))  # the limit FPR -> 0: 1 for every eta > 0
        ppv = float(ppv_bound(pi, cap, eta=e))
        bounded = e == 0.0
    else:
        if bound is None:
            if progress is not None:
                progress(0.05, "reading the guarantee through its tightest route")
            b = attacker_bound(g)
        elif (bound.kind.value, bound.relation) != (_BOUND_KIND.get(kind, kind.value), rel):
            raise ValueError(
                f"bound is the attacker bound of a {bound.kind.value} guarantee "
                f"({bound.relation.value}), not of the {kind.value} one given"
            )
        else:
            b = bound
        route, e = b.route, float(b.eta)
        icons = icon_array(pi, curve=curve_of(b), fpr_caps=(cap,))
        ppv = icons.caps[0].ppv
        if isinstance(g, EpsDelta) and dlt == 0.0:  # pure 2ε-DP for replace-one
            worst, bounded = float(member_posterior_bound(pi, epsilon=2.0 * g.epsilon)), True
        else:
            worst, bounded = (1.0 if e > 0 else pi), e == 0.0
    naming = icons.caps[0]
    confidence = worst if bounded else ppv
    baseline = max(pi, 1.0 - pi)
    if progress is not None:
        progress(1.0, "done")
    return WhatEpsMeans(
        kind=kind,
        relation=rel,
        epsilon=eps,
        delta=dlt,
        mu=g.mu if isinstance(g, Gdp) else None,
        rho=g.rho if isinstance(g, Zcdp) else None,
        orders=g.orders if isinstance(g, Rdp) else None,
        rdp_values=g.values if isinstance(g, Rdp) else None,
        noise_multiplier=g.noise_multiplier if isinstance(g, DpSgd) else None,
        sampling_rate=g.sampling_rate if isinstance(g, DpSgd) else None,
        steps=g.steps if isinstance(g, DpSgd) else None,
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

    Rényi DP is named by its number of orders and their range; an add/remove guarantee has
    ``_addremove`` after its parameters.

    Examples
    --------
    >>> export_file_name(what_eps_means_lesson(0.01, epsilon=1.0, delta=1e-5))
    'mip_eps1_delta1e-05_share1pct_cap1pct.html'
    >>> export_file_name(what_eps_means_lesson(0.5, kind="mip", epsilon=None, eta=0.1))
    'mip_eta0.1_share50pct_cap1pct.html'
    >>> export_file_name(what_eps_means_lesson(0.01, kind="zcdp", rho=0.5, relation="add_or_remove_one"))
    'mip_zcdp_rho0.5_addremove_share1pct_cap1pct.html'
    >>> export_file_name(what_eps_means_lesson(0.01, kind="rdp", orders=(2, 32), rdp_values=(0.5, 8)))
    'mip_rdp_2orders_alpha2-32_share1pct_cap1pct.html'
    """
    if L.kind is GuaranteeKind.DP:
        what = f"eps{_short(L.epsilon or 0.0)}_delta{_short(L.delta)}"
    elif L.kind is GuaranteeKind.MIP:
        what = f"eta{_short(L.eta)}"
    elif L.kind is GuaranteeKind.GDP:
        what = f"gdp_mu{_short(L.mu or 0.0)}"
    elif L.kind is GuaranteeKind.ZCDP:
        what = f"zcdp_rho{_short(L.rho or 0.0)}"
    elif L.kind is GuaranteeKind.RDP:
        o = L.orders or (0.0,)
        what = f"rdp_{len(o)}orders_alpha{_short(min(o))}-{_short(max(o))}"
    else:
        what = (
            f"dpsgd_sigma{_short(L.noise_multiplier or 0.0)}_q{_short(L.sampling_rate or 0.0)}"
            f"_steps{L.steps}"
        )
    if L.relation is Relation.ADD_OR_REMOVE_ONE:
        what += "_addremove"
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
        :func:`mipcore.plots.icons.picture_svg`), inlined: no script, no network, a few
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
