"""What does ε mean for the people in my data? A guarantee as people, for a stakeholder.

widgets (the table :data:`CONTROLS`; the guarantee's rows shared with the risk calculator
come from :mod:`appkit.guarantee_inputs` and :mod:`appkit.dpsgd`) → the guarantee, built as
:mod:`mipcore.guarantees` states it (``EpsDelta``, ``Gdp``, ``Zcdp``, ``Rdp``, ``DpSgd``; η-MIP
is its η) → :mod:`mipcore.risk`: the icon array (:func:`~mipcore.risk.icon_array`) in closed
form for η-MIP and a replace-one (ε, δ), otherwise on the trade-off curve of
:func:`~mipcore.guarantees.attacker_bound` -- the risk calculator's bound, so both pages agree
(ρ-zCDP, Rényi DP and DP-SGD read in their own process, once for every share of people) --,
the number to quote (:func:`~mipcore.risk.named_confidence`) and the table
(:func:`~mipcore.risk.comparison_table`) → the pictures (:mod:`mipcore.plots.icons`, on
screen and, through ``vl-convert``, the summary's inline SVG and the PNG files) → sentences,
every one with a number a template of ``what_eps_means.md``. No formula on the surface: the
formulas are in "The maths".
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any

import streamlit as st

import appkit
from appkit import controls, dpsgd, fmt_num, fmt_pct, jobs
from appkit.controls import choice, number, slider
from appkit.guarantee_inputs import DEFAULT_PRIOR, LINK_MAX, RDP, RELATION, read_rdp
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.bounds import eta_from_epsilon
from mipcore.guarantees import (
    CIFAR10,
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
from mipcore.plots.formatting import fmt_mean_count
from mipcore.plots.guarantee_vega import route_label
from mipcore.plots.icons import (
    IconPicture,
    IconView,
    picture_png,
    picture_svg,
    picture_vega,
    summary_html,
)
from mipcore.risk import (
    ICON_FPR_CAPS,
    ComparisonTable,
    Confidence,
    IconArray,
    TradeOffCurve,
    comparison_table,
    icon_array,
    named_confidence,
)

PAGE = "what_eps_means"
KINDS = {  # the URL's kind= and how the page names it
    "dp": "ε and δ (differential privacy)",
    "mip": "η (membership privacy)",
    "gdp": "μ (Gaussian differential privacy)",
    "zcdp": "ρ (zero-concentrated DP)",
    "rdp": "Rényi DP (orders and values)",
    "dpsgd": "a DP-SGD run",
}
HEAVY = ("zcdp", "rdp", "dpsgd")  # a second or more: in their own process, as on the calculator
QUICK_PRIORS = (1.0, 10.0, 50.0)  # % of the population in the data

CONTROLS = controls.table(
    choice("kind", "The guarantee is stated as", list(KINDS), "dp", KINDS, radio=True, horizontal=False),
    slider("eps", "ε (smaller is more private)", 0.0, LINK_MAX["eps"], 1.0, 0.05, "%.2f", "The privacy parameter of a differentially private release."),
    number("delta", "δ (usually tiny, e.g. 1e-5)", 0.0, LINK_MAX["delta"], 0.0, 1e-6, "%g", "The small probability with which the ε guarantee may fail. 0 for pure ε."),
    slider("eta", "η, the best attacker's edge over a coin flip (0.1 is 10\u00a0%)", 0.0, 0.5, 0.1, 0.005, "%.3f", "η-MIP: when half the people are in the data, no attacker is right more than 50\u00a0% + η of the time."),
    number("mu", "μ (Gaussian differential privacy)", 0.0, LINK_MAX["mu"], 1.0, 0.1, "%g", "μ-GDP, e.g. from a GDP accountant; say below which neighbours it is stated for."),
    number("rho", "ρ (zero-concentrated differential privacy)", 0.0, LINK_MAX["rho"], 0.5, 0.05, "%g", "ρ-zCDP: Rényi DP ε(α) = ρα at every order α (the Gaussian mechanism with noise σ per unit of sensitivity has ρ = 1/(2σ²))."),
    RDP,
    dpsgd.SIGMA,
    dpsgd.RATE,
    dpsgd.STEPS,
    RELATION,
    number("prior", "in the data (%)", 0.1, 99.9, 100 * DEFAULT_PRIOR, 1.0, "%g", "How likely a person is to be in the data before anything is released (the “prior”): 1\u00a0% if 1 in 100 people of the population is in it."),
    choice("cap", "Wrongly accuse at most", ICON_FPR_CAPS, ICON_FPR_CAPS[0], lambda c: f"{fmt_pct(c)} of the others", "How many people who are *not* in the data an attacker may wrongly call members while it names people.", radio=True)
)  # fmt: skip
OWN = {"dp": ("eps", "delta"), "mip": ("eta",), "gdp": ("mu",), "zcdp": ("rho",), "rdp": ("rdp",)}
OWN["dpsgd"] = ("sigma", "q", "steps")


def _set_prior(pct: float) -> None:
    st.session_state["prior"] = pct


page = appkit.page(PAGE)
prose(PAGE, "intro")
main = page.slot()  # controls, the sentence, metrics and the two pictures: live
st.subheader("How the numbers change with ε")
table_area = page.slot()  # the table, its rows in words and its sentence
with st.expander("Glossary"):
    prose(PAGE, "glossary")
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")
st.subheader("For the meeting")
export = page.slot()  # the summary download (carries the current view)
st.caption(prose_text(PAGE, "meeting"))
png_area = page.slot()  # the PNG files, drawn when asked for


def _controls() -> tuple[str, dict[str, Any], float, float]:
    """The guarantee on the left (its kind, its own values, its relation), the people in the
    data on the right (the share in %, the false-accusation cap)."""
    c_guarantee, c_people = st.columns(2)
    with c_guarantee:
        kind = controls.draw(CONTROLS["kind"])
        read = controls.draw_all(CONTROLS, *OWN[kind])
        if kind not in ("mip", "dpsgd"):
            read["rel"] = controls.draw(CONTROLS["rel"])
    with c_people:
        prose(PAGE, "people")
        for col, pct in zip(st.columns(len(QUICK_PRIORS)), QUICK_PRIORS, strict=True):
            col.button(
                f"{fmt_num(pct)}\u00a0%",
                key=f"prior_{fmt_num(pct)}",
                on_click=_set_prior,
                args=(pct,),
                width="stretch",
            )
        prior_pct, cap = controls.draw(CONTROLS["prior"]), controls.draw(CONTROLS["cap"])
    return kind, read, prior_pct, cap


def _guarantee(kind: str, read: dict[str, Any]) -> Guarantee | float | None:
    """The guarantee the controls state (η-MIP: its η), or None after a sentence that says why
    there is none (Rényi-DP text that cannot be read, more DP-SGD steps than the server takes)."""
    rel = read.get("rel", Relation.REPLACE_ONE)
    if kind == "rdp":
        parsed = read_rdp(read["rdp"])
        return None if parsed is None else Rdp(parsed.orders, parsed.values, rel)
    if kind == "dpsgd":
        run = DpSgd(read["sigma"], read["q"], read["steps"])
        return run if dpsgd.steps_ok(run.steps) else None
    if kind == "dp":
        return EpsDelta(read["eps"], read["delta"], rel)
    if kind == "gdp":
        return Gdp(read["mu"], rel)
    return Zcdp(read["rho"], rel) if kind == "zcdp" else float(read["eta"])


def _bound(kind: str, g: Guarantee | float) -> AttackerBound | None:
    """The attacker bound the page reads the guarantee through (the risk calculator's), or None
    for η-MIP and a replace-one (ε, δ), read in closed form. The share of people plays no part:
    a heavy guarantee is read once, in its own process, for every share."""
    if isinstance(g, float) or (isinstance(g, EpsDelta) and g.relation is Relation.REPLACE_ONE):
        return None
    if kind not in HEAVY:
        return appkit.cached(attacker_bound, g)
    if isinstance(g, DpSgd):
        label, quick = "Reading the run through the PLD accountant", g.steps <= CIFAR10.steps
    else:
        label, quick = "Reading the guarantee through its tightest route", True
    return jobs.run(attacker_bound, g, label=label, quick=quick)


def _people(g: Guarantee | float, bound: AttackerBound | None, pi: float, cap: float) -> IconArray:
    """The icon array at the share ``pi`` and the cap: in closed form, or on the bound's curve."""
    if isinstance(g, float):
        return appkit.cached(icon_array, pi, eta=g, fpr_caps=(cap,))
    if bound is None:
        assert isinstance(g, EpsDelta)
        return appkit.cached(icon_array, pi, epsilon=g.epsilon, delta=g.delta, fpr_caps=(cap,))
    return appkit.cached(icon_array, pi, curve=TradeOffCurve.of(bound), fpr_caps=(cap,))


def _eta(g: Guarantee | float, bound: AttackerBound | None) -> float:
    """The guarantee's η: given (η-MIP), Theorem 4's (a replace-one (ε, δ)) or the bound's."""
    if bound is not None:
        return bound.eta
    if isinstance(g, float):
        return g
    assert isinstance(g, EpsDelta)
    return float(eta_from_epsilon(g.epsilon, g.delta))


def _name(g: Guarantee | float, route: Route | None, *, relation: bool = True) -> str:
    """The guarantee the page shows, named as the risk calculator names it (the title);
    ``relation``: say "(add/remove)" for an add/remove guarantee."""
    if isinstance(g, float):
        return say(PAGE, "name_mip", eta=g)
    if isinstance(g, DpSgd):
        how = "PLD accountant" if route is Route.PLD else route_label(route or Route.PLD)
        return say(PAGE, "name_dpsgd", g=g, how=how)
    if isinstance(g, Gdp):
        name = say(PAGE, "name_gdp", g=g)
    elif isinstance(g, Zcdp):
        name = say(PAGE, "name_zcdp", g=g)
    elif isinstance(g, Rdp):
        n = len(g.orders)
        name = say(PAGE, "name_rdp", orders=n, s="s" if n != 1 else "")
    else:
        assert isinstance(g, EpsDelta)
        delta = say(PAGE, "name_delta", dp=g) if g.delta else ""
        name = say(PAGE, "name_dp", dp=g, delta=delta)
    add_remove = relation and g.relation is Relation.ADD_OR_REMOVE_ONE
    return name + (" (add/remove)" if add_remove else "")


def _shown(g: Guarantee | float, route: Route | None) -> str:
    """The guarantee with its values, its relation and the route it is read through."""
    text = _name(g, route, relation=False)
    if isinstance(g, Rdp):
        pairs = zip(g.orders, g.values, strict=True)
        text += say(
            PAGE, "name_pairs", pairs=", ".join(f"{fmt_num(a)}: {fmt_num(v)}" for a, v in pairs)
        )
    if isinstance(g, EpsDelta | Gdp | Zcdp | Rdp):
        if g.relation is Relation.ADD_OR_REMOVE_ONE:
            text += prose_text(PAGE, "name_add_remove")
        else:
            text += prose_text(PAGE, "name_replace")
    if route is not None and not isinstance(g, DpSgd):
        text += say(PAGE, "name_route", route=route_label(route))
    return say(PAGE, "shown", guarantee=text)


def _one_in(prior: float) -> int | None:
    n = round(1.0 / prior)
    return n if 1 <= n <= 1000 and math.isclose(n * prior, 1.0, rel_tol=1e-9) else None


def _headline(
    g: Guarantee | float, ia: IconArray, eta: float, kind: Confidence, confidence: float
) -> tuple[str, str | None]:
    """The sentence a manager can repeat, and why it bounds the hit rate when naming rather
    than every single person (None when it bounds every person)."""
    n = _one_in(ia.prior)
    share = say(PAGE, "share_one_in", n=n) if n and n >= 2 else say(PAGE, "share", ia=ia)
    if confidence <= ia.prior * (1.0 + 1e-12):  # the release tells nothing about membership
        ending = prose_text(PAGE, "tells_nothing")
    else:
        ending = say(PAGE, "up_from", ia=ia)
    if kind is Confidence.POSTERIOR:
        return say(PAGE, "headline_posterior", share=share, at_most=confidence, ending=ending), None
    headline = say(
        PAGE, "headline_precision", share=share, ia=ia, at_most=confidence, ending=ending
    )
    if isinstance(g, EpsDelta):
        return headline, say(PAGE, "why_dp", dp=g)
    if isinstance(g, float):
        return headline, say(PAGE, "why_mip", advantage=2.0 * eta)
    return headline, prose_text(PAGE, "why_curve")


def _metrics(ia: IconArray, confidence: str) -> None:
    """The three metrics: right, members named, right when naming."""
    c, n = ia.caps[0], ia.people
    right, named, accused = map(
        fmt_mean_count, (ia.correct_expected, c.named_expected, c.accused_expected)
    )
    m1, m2, m3 = st.columns(3)
    help1 = say(PAGE, "right_help", ia=ia, right=right)
    m1.metric("best attacker is right", say(PAGE, "of", part=ia.correct, whole=n), help=help1)
    help2 = say(PAGE, "named_help", ia=ia, named=named, accused=accused)
    label = say(PAGE, "named_label", naming=c)
    m2.metric(label, say(PAGE, "of", part=c.named, whole=ia.members), help=help2)
    m3.metric("right when naming", confidence, help=say(PAGE, "naming_help", ia=ia))


def _accuracy_line(ia: IconArray) -> str:
    """What the best attacker gets right of all the people, against the likelier answer."""
    pi = ia.prior
    right = say(PAGE, "right", ia=ia, expected=fmt_mean_count(ia.correct_expected))
    baseline = max(pi, 1.0 - pi)  # always giving the likelier answer
    gain = max(0.0, ia.accuracy - baseline)
    if gain * ia.people < 0.5:  # less than half a person more than the baseline
        more = "no more" if gain == 0 else "barely more"
        answer = "not in the data" if pi < 0.5 else "in the data"
        return say(
            PAGE, "accuracy_small", ia=ia, right=right, more=more, answer=answer, baseline=baseline
        )
    if baseline == 0.5:
        return say(PAGE, "accuracy_guess", ia=ia, right=right)
    return say(PAGE, "accuracy_likelier", ia=ia, right=right, baseline=baseline)


def _naming_line(ia: IconArray) -> str:
    """Whom an attacker can name at the cap."""
    naming = ia.caps[0]
    if ia.members == 1 and naming.named == 1:
        members = prose_text(PAGE, "the_one_member")
    elif ia.members == 1:
        members = prose_text(PAGE, "none_of_one")
    else:
        members = say(PAGE, "of_members", ia=ia, naming=naming)
    named = fmt_mean_count(naming.named_expected)
    return say(PAGE, "naming", ia=ia, naming=naming, members=members, named=named)


def _counting(ia: IconArray) -> str:
    """How the pictures count (the caption under them)."""
    pi, c, n = ia.prior, ia.caps[0], ia.people
    text = prose_text(PAGE, "counting")
    if n != 100:  # what 100 people would show, on average
        named, accused = map(fmt_mean_count, (c.tpr * pi * 100, c.fpr_cap * (1 - pi) * 100))
        text += " " + say(PAGE, "why_size", ia=ia, named=named, accused=accused)
    averages = (n * pi, ia.correct_expected, c.named_expected, c.accused_expected)
    members, right, named, accused = map(fmt_mean_count, averages)
    text += " " + say(PAGE, "averages", members=members, right=right, named=named, accused=accused)
    if ia.members != round(n * pi, 9):
        text += " " + say(PAGE, "shown_share", ia=ia)
    return text


def _pictures(ia: IconArray) -> tuple[IconPicture, IconPicture]:
    """The two pictures: whom the best attacker gets right, whom it can name."""
    c, m, n = ia.caps[0], ia.members, ia.non_members
    right, named = say(PAGE, "title_right", ia=ia), say(PAGE, "title_named", naming=c)
    return (
        IconPicture(m, n, ia.correct_members, ia.wrongly_called, IconView.ACCURACY, right),
        IconPicture(m, n, c.named, c.accused, IconView.NAMING, named),
    )


def _draw_pictures(pictures: tuple[IconPicture, IconPicture], lines: list[str]) -> None:
    """The two pictures, each with its sentence, and the caption on how they count."""
    for p, key, name, line in zip(
        pictures,
        ("icons_accuracy", "icons_naming"),
        ("icons_best_attacker", "icons_naming"),
        lines,
        strict=False,
    ):
        fig, data = appkit.cached(picture_vega, p)
        appkit.chart(fig, data, name, key=key)
        appkit.takeaway(line)
    st.caption(lines[2])


def _items(markdown: str) -> list[str]:
    """A Markdown list (a table's column names or their help) as its items."""
    return [line.removeprefix("- ") for line in markdown.splitlines()]


def _rows(table: ComparisonTable) -> tuple[tuple[str, ...], ...]:
    """The table's rows, one per ε and δ, each ending with the row in words."""
    rows = []
    for r in table.rows:
        eps = say(PAGE, "row_eps", r=r, delta=say(PAGE, "name_delta", dp=r) if r.delta else "")
        if r.delta == 0:
            words = say(PAGE, "row_pure", eps=eps, t=table, r=r)
            naming = fmt_pct(r.posterior)
        else:
            words = say(PAGE, "row_delta", eps=eps, t=table, r=r)
            naming = say(PAGE, "no_limit", r=r)
        numbers = (r.eta, r.accuracy_at_prior, r.tpr)
        cells = [fmt_num(r.epsilon), fmt_num(r.delta, 3), *(fmt_pct(x) for x in numbers)]
        rows.append((*cells, naming, fmt_pct(r.ppv), words))
    return tuple(rows)


@dataclass(frozen=True)
class _TableText:
    """The comparison table as the page writes it: it depends on the share of people and the
    cap only, so a change of the guarantee reuses it (:func:`_table_text`)."""

    intro: str
    table: str  # Markdown
    helps: str  # Markdown list
    words: str  # Markdown list: each row in words
    takeaway: str | None
    header: tuple[str, ...]  # the summary's long column names
    rows: tuple[tuple[str, ...], ...]


def _table_text(pi: float, cap: float) -> _TableText:
    table = appkit.cached(comparison_table, prior=pi, fpr=cap)
    header = _items(say(PAGE, "columns", t=table))[:-1]
    helps = _items(say(PAGE, "columns_help", t=table))[:-1]
    rows = _rows(table)
    pure = [r for r in table.rows if r.delta == 0]
    low = max((r for r in pure if r.posterior < 0.1), key=lambda r: r.epsilon, default=None)
    high = min((r for r in pure if r.posterior > 0.5), key=lambda r: r.epsilon, default=None)
    return _TableText(
        intro=say(PAGE, "table_intro", t=table),
        table=appkit.tables.markdown_table(
            {h: [row[i] for row in rows] for i, h in enumerate(header)},
            right=[h for h in header if h != header[5]],
        ),
        helps=appkit.tables.help_list(dict(zip(header, helps, strict=True))),
        words="\n".join(f"- {row[-1]}" for row in rows),
        takeaway=None
        if low is None or high is None
        else say(PAGE, "table_takeaway", t=table, low=low, high=high),
        header=tuple(_items(say(PAGE, "columns_long", t=table))),
        rows=rows,
    )


def _table(pi: float, cap: float) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The table, its rows in words and its sentence; returns the summary's header and rows."""
    t = appkit.cached(_table_text, pi, cap)
    st.markdown(t.intro)
    appkit.tables.show(t.table, t.helps)  # a Markdown table: no data grid to load
    with st.expander("Each row in words"):
        st.markdown(t.words)
    if t.takeaway is not None:
        appkit.takeaway(t.takeaway)
    return t.header, t.rows


def _short(x: float) -> str:
    """A number for a file name: ``1``, ``0.5``, ``1e-05``, ``1.1`` (no spaces, no slashes)."""
    return re.sub(r"[^0-9a-z.\-]", "", f"{float(x):.6g}".replace("+", ""))


def _file_name(g: Guarantee | float, ia: IconArray, suffix: str = "html") -> str:
    """The summary's file name, made of its settings (Rényi DP by its number of orders and
    their range; ``_addremove`` after an add/remove guarantee's parameters)."""
    if isinstance(g, float):
        what = f"eta{_short(g)}"
    elif isinstance(g, EpsDelta):
        what = f"eps{_short(g.epsilon)}_delta{_short(g.delta)}"
    elif isinstance(g, Gdp):
        what = f"gdp_mu{_short(g.mu)}"
    elif isinstance(g, Zcdp):
        what = f"zcdp_rho{_short(g.rho)}"
    elif isinstance(g, Rdp):
        o = g.orders
        what = f"rdp_{len(o)}orders_alpha{_short(min(o))}-{_short(max(o))}"
    else:
        assert isinstance(g, DpSgd)
        what = f"dpsgd_sigma{_short(g.noise_multiplier)}_q{_short(g.sampling_rate)}_steps{g.steps}"
    if getattr(g, "relation", None) is Relation.ADD_OR_REMOVE_ONE:
        what += "_addremove"
    share, cap = _short(100.0 * ia.prior), _short(100.0 * ia.caps[0].fpr_cap)
    return f"mip_{what}_share{share}pct_cap{cap}pct.{suffix}"


def _export(
    title: str,
    sentences: list[str],
    pictures: tuple[IconPicture, IconPicture],
    table: tuple[tuple[str, ...], tuple[tuple[str, ...], ...]],
    name: str,
) -> None:
    """For the meeting: the one-page summary's download button."""
    view_url = appkit.view_url()

    def summary() -> bytes:  # built only when the button is clicked
        return summary_html(
            title=title,
            sentences=sentences,
            url=view_url,
            figures=tuple(appkit.cached(picture_svg, p) for p in pictures),
            table_header=table[0],
            table_rows=table[1],
            notes=(prose_text(PAGE, "notes"),),
        ).encode("utf-8")

    st.download_button(
        "Download a one-page summary (HTML, opens offline)",
        summary,
        file_name=name,
        mime="text/html",
        key="export_html",
        on_click="ignore",
        icon=":material/download:",
    )


def _pngs(pictures: tuple[IconPicture, IconPicture], name: str) -> None:
    """For the meeting: the two pictures as PNG files."""
    for col, p, what, label in zip(
        st.columns(2),
        pictures,
        ("who_it_gets_right", "whom_it_names"),
        ("first picture", "second picture"),
        strict=True,
    ):
        col.download_button(
            f"Download the {label} (PNG)",
            functools.partial(appkit.cached, picture_png, p),  # drawn when clicked
            file_name=name.replace("mip_", f"{what}_", 1),
            mime="image/png",
            key=f"png_{what}",
            on_click="ignore",
            icon=":material/image:",
        )


def _live() -> None:
    with main:
        appkit.messages()
        kind, read, prior_pct, cap = _controls()
        g = _guarantee(kind, read)
        if g is None:  # a sentence said why
            return
        with appkit.guard("The picture for this guarantee", stop=True):
            bound = _bound(kind, g)
            ia = _people(g, bound, prior_pct / 100, cap)
        route, eta = (bound.route if bound else None), _eta(g, bound)
        # a pure ε bounds every named person (2ε for add/remove); else the hit rate at the cap
        pure = g.replace_pair[0] if isinstance(g, EpsDelta) and g.delta == 0 else None
        which, confidence = named_confidence(ia.prior, ia.caps[0].ppv, eta=eta, pure_epsilon=pure)
        shown = _shown(g, route)
        st.caption(shown)
        headline, why = _headline(g, ia, eta, which, confidence)
        appkit.takeaway(headline)
        if why:
            st.markdown(why)
        _metrics(ia, fmt_pct(confidence))
        lines = [_accuracy_line(ia), _naming_line(ia), _counting(ia)]
        pictures = _pictures(ia)
        _draw_pictures(pictures, lines)
    with table_area:
        table = _table(ia.prior, cap)
    title = say(PAGE, "title", guarantee=_name(g, route))
    with export:
        sentences = [shown, headline, *([why] if why else []), *lines]
        _export(title, sentences, pictures, table, _file_name(g, ia))
    with png_area:
        _pngs(pictures, _file_name(g, ia, "png"))


appkit.live(page, _live)
