"""What does ε mean for the people in my data? A guarantee as people, for a stakeholder.

Every number comes from :func:`mipcore.lessons.what_eps_means.what_eps_means_lesson` (for
ρ-zCDP, Rényi DP and DP-SGD on the bound of :func:`~mipcore.lessons.what_eps_means.read_guarantee`,
computed once per guarantee in its own process; built on
:mod:`mipcore.risk`, and for μ-GDP, ρ-zCDP, Rényi DP, DP-SGD and every add/remove guarantee on
the same attacker bound as the risk calculator, so the calculator's link opens this page on
the same numbers); the pictures from :mod:`mipcore.plots.icons` -- on screen, and through
``vl-convert`` as the summary's inline SVG and the PNG files; the one-page summary from
:func:`mipcore.lessons.what_eps_means.summary_html`. The relation and Rényi-DP controls are the
calculator's (:mod:`appkit.guarantee_inputs`). Probabilities are printed by the app's one
precision rule, :func:`appkit.fmt_pct`. No formula on the surface: the formulas are in
"The maths".
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import streamlit as st

import appkit
from appkit import dpsgd, fmt_count, fmt_num, fmt_pct, jobs
from appkit.guarantee_inputs import rdp_control, read_rdp, relation_control
from appkit.prose import prose
from mipcore.guarantees import Relation, Route
from mipcore.lessons.risk_calculator import (
    CIFAR10,
    LINK_DELTA_MAX,
    LINK_EPS_MAX,
    LINK_MU_MAX,
    LINK_RHO_MAX,
)
from mipcore.lessons.what_eps_means import (
    DEFAULT_PRIOR,
    RELATION_KINDS,
    Confidence,
    GuaranteeKind,
    WhatEpsMeans,
    export_file_name,
    read_guarantee,
    summary_html,
    what_eps_means_lesson,
)
from mipcore.plots.guarantee_vega import route_label
from mipcore.plots.icons import IconPicture, IconView, icon_array_vega, picture_png, picture_svg
from mipcore.risk import ICON_FPR_CAPS

QUICK_PRIORS = (1.0, 10.0, 50.0)  # % of the population in the data
PRIOR_KEY = "prior"  # % in the URL: ?prior=1 is 1 %
KINDS = {
    GuaranteeKind.DP: "ε and δ (differential privacy)",
    GuaranteeKind.MIP: "η (membership privacy)",
    GuaranteeKind.GDP: "μ (Gaussian differential privacy)",
    GuaranteeKind.ZCDP: "ρ (zero-concentrated DP)",
    GuaranteeKind.RDP: "Rényi DP (orders and values)",
    GuaranteeKind.DPSGD: "a DP-SGD run",
}
# a second or more: in their own process, as on the calculator
HEAVY = (GuaranteeKind.ZCDP, GuaranteeKind.RDP, GuaranteeKind.DPSGD)


def _set_prior(pct: float) -> None:
    st.session_state[PRIOR_KEY] = pct


def _count(x: float) -> str:
    """An average number of people: 4 significant digits below 1 000 (``2.718``, ``0.02718``),
    one decimal above (``9 900``, ``9 900.1``), thousands apart by a space."""
    if x < 1000:
        return fmt_num(x, 4)
    return f"{x:,.1f}".replace(",", " ").removesuffix(".0")  # fmt_count, with a decimal


def _share(L: WhatEpsMeans) -> str:
    if L.one_in is not None and L.one_in >= 2:
        return f"1 in {L.one_in} people is"
    return f"{fmt_pct(L.prior)} of the people are"


def _guarantee(L: WhatEpsMeans, *, relation: bool = True) -> str:
    """The guarantee the page shows, named as the risk calculator names it (the title);
    ``relation``: say "(add/remove)" for an add/remove guarantee."""
    if L.kind is GuaranteeKind.MIP:
        return f"η = {fmt_pct(L.eta)} (membership privacy)"
    if L.kind is GuaranteeKind.DPSGD:
        how = "PLD accountant" if L.route is Route.PLD else route_label(L.route or Route.PLD)
        return (
            f"DP-SGD: σ = {fmt_num(L.noise_multiplier)}, q = {fmt_num(L.sampling_rate)}, "
            f"{fmt_count(L.steps or 0)} steps ({how})"
        )
    if L.kind is GuaranteeKind.GDP:
        name = f"μ = {fmt_num(L.mu)} Gaussian DP"
    elif L.kind is GuaranteeKind.ZCDP:
        name = f"ρ = {fmt_num(L.rho)} zero-concentrated DP"
    elif L.kind is GuaranteeKind.RDP:
        n = len(L.orders or ())
        name = f"Rényi DP at {n} order{'s' if n != 1 else ''}"
    else:
        assert L.epsilon is not None
        name = f"ε = {fmt_num(L.epsilon, 3)}" + (f", δ = {fmt_num(L.delta, 3)}" if L.delta else "")
    add_remove = relation and L.relation is Relation.ADD_OR_REMOVE_ONE
    return name + (" (add/remove)" if add_remove else "")


def _guarantee_in_full(L: WhatEpsMeans) -> str:
    """The guarantee with its values, its relation and the route it is read through."""
    text = _guarantee(L, relation=False)
    if L.kind is GuaranteeKind.RDP:
        pairs = zip(L.orders or (), L.rdp_values or (), strict=True)
        text += ", α: ε(α) = " + ", ".join(f"{fmt_num(a)}: {fmt_num(v)}" for a, v in pairs)
    if L.kind in RELATION_KINDS:
        text += (
            ", stated for neighbours that replace one record (MIP's game)"
            if L.relation is Relation.REPLACE_ONE
            else ", stated for neighbours that add or remove one record, converted to MIP's "
            "replace-one game by group privacy for two"
        )
    if L.route is not None and L.kind is not GuaranteeKind.DPSGD:
        text += (
            f"; read through its tightest route, “{route_label(L.route)}”, as the risk "
            "calculator reads it"
        )
    return text


def _of_members(count: int, members: int) -> str:
    if members == 1:
        return "the one member" if count == 1 else "none of the members (there is one)"
    return f"{fmt_count(count)} of the {fmt_count(members)} members"


def _nb(text: str) -> str:
    """A narrow table cell never breaks a number from its % sign (no orphaned %)."""
    return text.replace(" %", "\u00a0%")


def _no_limit(delta: float) -> str:
    """Why a (ε, δ) guarantee with δ > 0 bounds no single person's exposure, beside the number."""
    return (
        f"no limit for every person: with δ = {fmt_num(delta, 3)} a rare release may expose "
        "someone outright"
    )


page = appkit.page("what_eps_means")
prose("what_eps_means", "intro")
main = page.slot()  # controls, the sentence, metrics and the two pictures: live
st.subheader("How the numbers change with ε")
table_area = page.slot()  # the table, its rows in words and its sentence

# ---------------------------------------------------------------- glossary and maths
with st.expander("Glossary"):
    prose("what_eps_means", "glossary")
with appkit.folded("The maths") as shown:
    if shown:
        prose("what_eps_means", "maths")

# ---------------------------------------------------------------- export
st.subheader("For the meeting")
export = page.slot()  # the summary download (carries the current view)
st.caption(
    "The summary holds the sentences, both pictures, the table and the link that recreates "
    "this view; it is named by its settings. The PNG files hold the pictures alone."
)
png_area = page.slot()  # the PNG files, drawn when asked for


def _dp_controls() -> dict[str, Any]:
    epsilon = appkit.url_slider(
        "ε (smaller is more private)",
        "eps",
        min_value=0.0,
        max_value=LINK_EPS_MAX,
        default=1.0,
        step=0.05,
        format="%.2f",
        help="The privacy parameter of a differentially private release.",
    )
    delta = appkit.url_number(
        "δ (usually tiny, e.g. 1e-5)",
        "delta",
        min_value=0.0,
        max_value=LINK_DELTA_MAX,
        default=0.0,
        step=1e-6,
        format="%g",
        help="The small probability with which the ε guarantee may fail. 0 for pure ε.",
    )
    return {"epsilon": epsilon, "delta": delta}


def _eta_control() -> float:
    return appkit.url_slider(
        "η, the best attacker's edge over a coin flip (0.1 is 10 %)",
        "eta",
        min_value=0.0,
        max_value=0.5,
        default=0.1,
        step=0.005,
        format="%.3f",
        help="η-MIP: when half the people are in the data, no attacker is right more "
        "than 50 % + η of the time.",
    )


def _mu_control() -> float:
    return appkit.url_number(
        "μ (Gaussian differential privacy)",
        "mu",
        min_value=0.0,
        max_value=LINK_MU_MAX,
        default=1.0,
        step=0.1,
        format="%g",
        help="μ-GDP, e.g. from a GDP accountant; say below which neighbours it is stated for.",
    )


def _rho_control() -> float:
    return appkit.url_number(
        "ρ (zero-concentrated differential privacy)",
        "rho",
        min_value=0.0,
        max_value=LINK_RHO_MAX,
        default=0.5,
        step=0.05,
        format="%g",
        help="ρ-zCDP: Rényi DP ε(α) = ρα at every order α (the Gaussian mechanism with noise "
        "σ per unit of sensitivity has ρ = 1/(2σ²)).",
    )


def _guarantee_controls() -> tuple[GuaranteeKind, dict[str, Any]]:
    """The guarantee's controls: its kind and what the page read for it (the Rényi-DP text
    still as text, under ``rdp_text``; see :func:`_lesson_args`)."""
    kind = appkit.url_select(
        "The guarantee is stated as",
        "kind",
        list(KINDS),
        default=GuaranteeKind.DP,
        widget="radio",
        horizontal=False,
        format_func=KINDS.get,
    )
    args: dict[str, Any]
    if kind is GuaranteeKind.DP:
        args = _dp_controls()
    elif kind is GuaranteeKind.MIP:
        args = {"eta": _eta_control()}
    elif kind is GuaranteeKind.GDP:
        args = {"mu": _mu_control()}
    elif kind is GuaranteeKind.ZCDP:
        args = {"rho": _rho_control()}
    elif kind is GuaranteeKind.RDP:
        args = {"rdp_text": rdp_control()}
    else:
        sigma = dpsgd.sigma_control()
        q, steps = dpsgd.rate_and_steps_controls()
        args = {"noise_multiplier": sigma, "sampling_rate": q, "steps": steps}
    if kind in RELATION_KINDS:
        args["relation"] = relation_control()
    return kind, args


def _lesson_args(kind: GuaranteeKind, read: dict[str, Any]) -> dict[str, Any] | None:
    """The lesson's arguments, or None after a sentence that says why there are none (Rényi-DP
    text that cannot be read, more DP-SGD steps than the server converts)."""
    args = {k: v for k, v in read.items() if k != "rdp_text"}
    if kind is GuaranteeKind.RDP:
        parsed = read_rdp(read["rdp_text"])
        if parsed is None:
            return None
        args.update(orders=parsed.orders, rdp_values=parsed.values)
    if kind is GuaranteeKind.DPSGD and not dpsgd.steps_ok(int(args["steps"])):
        return None
    return {"kind": kind, **args}


def _lesson(prior: float, fpr_cap: float, args: dict[str, Any]) -> WhatEpsMeans:
    """The page's numbers. A DP-SGD run, ρ-zCDP and Rényi DP (a second or more) are read in
    their own process, as on the calculator, once for every share of people: moving the
    share reads the same bound again, instantly."""
    kind = args["kind"]
    if kind not in HEAVY:
        return appkit.cached(what_eps_means_lesson, prior, **args, fpr_cap=fpr_cap)
    dpsgd_run = kind is GuaranteeKind.DPSGD
    bound = jobs.run(
        read_guarantee,
        **args,
        label="Reading the run through the PLD accountant"
        if dpsgd_run
        else "Reading the guarantee through its tightest route",
        quick=not dpsgd_run or args["steps"] <= CIFAR10.steps,
    )
    return appkit.cached(what_eps_means_lesson, prior, **args, fpr_cap=fpr_cap, bound=bound)


def _people_controls() -> tuple[float, float]:
    """The share of people in the data (%) and the false-accusation cap."""
    st.markdown("**Share of the people who are in the data**")
    for col, pct in zip(st.columns(len(QUICK_PRIORS)), QUICK_PRIORS, strict=True):
        col.button(
            f"{fmt_num(pct)} %",
            key=f"prior_{fmt_num(pct)}",
            on_click=_set_prior,
            args=(pct,),
            width="stretch",
        )
    prior_pct = appkit.url_number(
        "in the data (%)",
        PRIOR_KEY,
        min_value=0.1,
        max_value=99.9,
        default=100 * DEFAULT_PRIOR,
        step=1.0,
        format="%g",
        help="How likely a person is to be in the data before anything is released "
        "(the “prior”): 1 % if 1 in 100 people of the population is in it.",
    )
    fpr_cap = appkit.url_select(
        "Wrongly accuse at most",
        "cap",
        ICON_FPR_CAPS,
        default=ICON_FPR_CAPS[0],
        widget="radio",
        format_func=lambda c: f"{fmt_pct(c)} of the others",
        help="How many people who are *not* in the data an attacker may wrongly call members "
        "while it names people.",
    )
    return prior_pct, fpr_cap


class Controls(NamedTuple):
    """What the controls chose: the guarantee's kind and values, the share and the cap."""

    kind: GuaranteeKind
    read: dict[str, Any]  # see _guarantee_controls
    prior_pct: float
    fpr_cap: float


def _controls() -> Controls:
    """The controls: the guarantee on the left, the people in the data on the right."""
    c_guarantee, c_people = st.columns(2)
    with c_guarantee:
        kind, read = _guarantee_controls()
    with c_people:
        prior_pct, fpr_cap = _people_controls()
    return Controls(kind, read, prior_pct, fpr_cap)


def _why(L: WhatEpsMeans) -> str | None:
    """Why the headline bounds the hit rate when naming, not every single person (or None)."""
    if L.confidence_kind is not Confidence.PRECISION:
        return None
    if L.kind is GuaranteeKind.DP:
        return (
            "Why not a limit for every single person? (ε, δ)-DP allows a release to give one "
            f"person away outright with a small probability, δ = {fmt_num(L.delta, 3)}; after "
            "such a release an attacker can be certain. So the useful limit is the attacker's "
            "hit rate when it names people at a stated rate of false accusations."
        )
    if L.kind is GuaranteeKind.MIP:
        return (
            "Why not a limit for every single person? η allows a release to give away a share "
            f"2η = {fmt_pct(L.advantage)} of the members outright, and an attacker can be "
            "certain about those. So the useful limit is the attacker's hit rate when it names "
            "people at a stated rate of false accusations."
        )
    return (
        "Why not a limit for every single person? This guarantee bounds the privacy loss "
        "only in distribution, so a rare release may still give a person away. So the "
        "useful limit is the attacker's hit rate when it names people at a stated rate of "
        "false accusations — the number the risk calculator reports for the same "
        "guarantee."
    )


def _sentence(L: WhatEpsMeans) -> tuple[str, str | None]:
    """The sentence: the guarantee shown, the headline and why; returns the headline and why."""
    prior_text = fmt_pct(L.prior)
    cap_text = fmt_pct(L.fpr_cap)
    st.caption(f"The guarantee shown: {_guarantee_in_full(L)}.")
    if L.confidence_kind is Confidence.POSTERIOR:
        headline = (
            f"If {_share(L)} in the data, an attacker who names someone is right at most "
            f"{fmt_pct(L.confidence)} of the time"
        )
    else:
        headline = (
            f"If {_share(L)} in the data, an attacker who names people while wrongly accusing at "
            f"most {cap_text} of the others is right at most {fmt_pct(L.confidence)} of the time"
        )
    if L.tells_nothing:
        headline += " — no better than a blind guess: the release tells nothing about who is in it."
    else:
        headline += f" — up from {prior_text}."
    why = _why(L)
    appkit.takeaway(headline)
    if why:
        st.markdown(why)
    return headline, why


def _metrics(L: WhatEpsMeans) -> None:
    """The three metrics: right, members named, right when naming."""
    ia, naming = L.icons, L.naming
    n_text = fmt_count(ia.people)
    m1, m2, m3 = st.columns(3)
    m1.metric(
        "best attacker is right",
        f"{fmt_count(ia.correct)} of {n_text}",
        help=f"At most {fmt_pct(L.accuracy)} on average ({_count(ia.correct_expected)} of "
        f"{n_text}); the picture rounds down what the attacker gets right.",
    )
    m2.metric(
        f"members named (≤ {fmt_pct(L.fpr_cap)} wrong)",
        f"{fmt_count(naming.named)} of {fmt_count(ia.members)}",
        help=f"At most {_count(naming.named_expected)} of {fmt_count(ia.members)} on average, "
        f"while wrongly accusing {_count(naming.accused_expected)} of the "
        f"{fmt_count(ia.non_members)} others.",
    )
    m3.metric(
        "right when naming",
        fmt_pct(L.confidence),
        help=f"Before the release, a blind guess is right {fmt_pct(L.prior)} of the time.",
    )


def _picture_lines(L: WhatEpsMeans) -> tuple[str, str, str]:
    """The sentences under the two pictures, and how the pictures count (the caption)."""
    ia, naming = L.icons, L.naming
    n_text, prior_text, cap_text = fmt_count(ia.people), fmt_pct(L.prior), fmt_pct(L.fpr_cap)
    right = f"{fmt_count(ia.correct)} right (at most {_count(ia.correct_expected)} on average)"
    if L.accuracy_gain * ia.people < 0.5:  # less than half a person more than the baseline
        likelier = "not in the data" if L.prior < 0.5 else "in the data"
        acc_line = (
            f"Of {n_text} people, the best possible attacker gets {right} — "
            + ("no more" if L.accuracy_gain == 0 else "barely more")
            + f" than answering “{likelier}” for everyone ({fmt_pct(L.baseline)}): the risk is "
            "not its accuracy, it is whom it can name (below)."
        )
    else:
        acc_line = f"Of {n_text} people, the best possible attacker gets {right}; " + (
            "guessing gets 50 %."
            if L.baseline == 0.5
            else f"always giving the likelier answer gets {fmt_pct(L.baseline)}."
        )
    name_line = (
        f"Allowed to wrongly accuse at most {cap_text} of the people who are not in the data "
        f"({fmt_count(naming.accused)} of {fmt_count(ia.non_members)} here), an attacker can name "
        f"{_of_members(naming.named, ia.members)} — at most {_count(naming.named_expected)} on "
        f"average, {fmt_pct(naming.tpr)} of members."
    )
    why_size = (
        ""
        if ia.people == 100
        else f" It shows {n_text} people because with 100 the attacker would name "
        f"{_count(naming.tpr * L.prior * 100)} and wrongly accuse "
        f"{_count(L.fpr_cap * (1 - L.prior) * 100)} people on average — fractions of a person "
        "a picture cannot draw."
    )
    rounding = (
        "How the picture counts: it shows an attacker the guarantee allows, in whole people — "
        "every count the attacker achieves is rounded down, and it names only as many members "
        "as the bound allows at the share of others it really accuses — so it never looks "
        f"better for the attacker than the bound.{why_size} Averages the bound allows: "
        f"members {_count(L.members_expected)}, right {_count(ia.correct_expected)}, named "
        f"{_count(naming.named_expected)}, wrongly accused {_count(naming.accused_expected)}."
    )
    if ia.members != round(L.members_expected, 9):
        rounding += (
            f" The picture's {fmt_count(ia.members)} members are {fmt_pct(ia.shown_prior)} of "
            f"{n_text} ({prior_text} rounded down to whole people)."
        )
    return acc_line, name_line, rounding


def _pictures(L: WhatEpsMeans) -> tuple[IconPicture, IconPicture]:
    """The two pictures: whom the best attacker gets right, whom it can name."""
    ia, naming = L.icons, L.naming
    n_text, cap_text = fmt_count(ia.people), fmt_pct(L.fpr_cap)
    return (
        IconPicture(
            ia.members,
            ia.non_members,
            ia.correct_members,
            ia.wrongly_called,
            IconView.ACCURACY,
            f"Who the best attacker gets right, of {n_text} people",
        ),
        IconPicture(
            ia.members,
            ia.non_members,
            naming.named,
            naming.accused,
            IconView.NAMING,
            f"Whom it can name, wrongly accusing ≤ {cap_text}",
        ),
    )


def _draw_pictures(pictures: tuple[IconPicture, IconPicture], lines: tuple[str, str, str]) -> None:
    """The two pictures, each with its sentence, and the caption on how they count."""
    acc_line, name_line, rounding = lines
    for p, key, name, line in zip(
        pictures,
        ("icons_accuracy", "icons_naming"),
        ("icons_best_attacker", "icons_naming"),
        (acc_line, name_line),
        strict=True,
    ):
        fig, data = appkit.cached(
            icon_array_vega,
            p.members,
            p.non_members,
            p.called_members,
            p.called_non_members,
            view=p.view,
            title=p.title,
        )
        appkit.chart(fig, data, name, key=key)
        appkit.takeaway(line)
    st.caption(rounding)


def _headers(t_prior: str, t_fpr: str) -> tuple[list[str], list[str], list[str]]:
    """The table's column names: short (on the page), long (in the summary), and their help."""
    header = [
        "ε",
        "δ",
        "η",
        "best accuracy",
        "members found",
        "right when naming (anyone)",
        f"… at ≤ {t_fpr} wrong",
        "in words",
    ]
    header_long = [  # for the one-page summary, where no tooltip explains a short header
        "ε",
        "δ",
        "η",
        f"best accuracy ({t_prior} in the data)",
        f"members found (≤ {t_fpr} wrongly accused)",
        f"right when naming anyone ({t_prior} in the data)",
        f"right when naming, ≤ {t_fpr} wrongly accused ({t_prior} in the data)",
        "in words",
    ]
    header_help = [
        "The privacy parameter.",
        "The chance the ε guarantee may fail.",
        "The guarantee's η: the best attacker's edge over a coin flip when half the people are "
        "in the data.",
        f"The best attacker's accuracy when {t_prior} of people are in the data.",
        f"The largest share of members an attacker finds while wrongly accusing at most {t_fpr} "
        "of the others.",
        f"When {t_prior} of people are in the data: how often someone the attacker names is a "
        "member, at most, for every person — no such limit exists when δ > 0 (the cell says "
        "why).",
        f"When {t_prior} of people are in the data: how often someone the attacker names is a "
        f"member, at most, for an attacker that wrongly accuses at most {t_fpr} of the others.",
        "The row in one sentence.",
    ]
    return header, header_long, header_help


def _rows(table, t_prior: str, t_fpr: str) -> list[list[str]]:
    """The table's rows, one per ε, each ending with the row in words."""
    rows = []
    for r in table.rows:
        eps_text = f"ε = {fmt_num(r.epsilon)}" + (f", δ = {fmt_num(r.delta, 3)}" if r.delta else "")
        if r.delta == 0:
            words = (
                f"{eps_text}: when {t_prior} of people are in the data, at best "
                f"{fmt_pct(r.accuracy_at_prior)} right; finds {fmt_pct(r.tpr)} of members at "
                f"{t_fpr} false accusations; someone it names is a member at most "
                f"{fmt_pct(r.posterior)} of the time."
            )
        else:
            words = (
                f"{eps_text}: much the same on average, but a rare release can expose someone "
                f"outright, so no limit holds for every person; naming at {t_fpr} false "
                f"accusations it is right at most {fmt_pct(r.ppv)} of the time."
            )
        rows.append(
            [
                fmt_num(r.epsilon),
                fmt_num(r.delta, 3),
                fmt_pct(r.eta),
                fmt_pct(r.accuracy_at_prior),
                fmt_pct(r.tpr),
                fmt_pct(r.posterior) if r.delta == 0 else _no_limit(r.delta),
                fmt_pct(r.ppv),
                words,
            ]
        )
    return rows


def _table(L: WhatEpsMeans) -> tuple[list[str], list[list[str]]]:
    """The table, its rows in words and its sentence; returns the summary's header and rows."""
    table = L.table
    t_prior, t_fpr = fmt_pct(table.prior), fmt_pct(table.fpr)
    st.markdown(
        f"Every column at the page's one share: **{t_prior} of the people in the data**, and an "
        f"attacker wrongly accusing at most {t_fpr} of the others. η is the guarantee's own "
        "parameter (the edge over a coin flip when half the people are in the data)."
    )
    header, header_long, header_help = _headers(t_prior, t_fpr)
    rows = _rows(table, t_prior, t_fpr)
    appkit.tables.table(  # a Markdown table: no data grid to load (see appkit.tables)
        {_nb(h): [_nb(row[i]) for row in rows] for i, h in enumerate(header[:-1])},
        right=[_nb(h) for h in header[:-1] if h != "right when naming (anyone)"],
        columns_help={_nb(h): t for h, t in zip(header[:-1], header_help[:-1], strict=True)},
    )
    with st.expander("Each row in words"):
        st.markdown("\n".join(f"- {row[-1]}" for row in rows))
    pure = [r for r in table.rows if r.delta == 0]
    low = max((r for r in pure if r.posterior < 0.1), key=lambda r: r.epsilon, default=None)
    high = min((r for r in pure if r.posterior > 0.5), key=lambda r: r.epsilon, default=None)
    if low is not None and high is not None:
        appkit.takeaway(
            f"When {t_prior} of people are in the data, someone the attacker names is a member at "
            f"most {fmt_pct(low.posterior)} of the time up to ε = {fmt_num(low.epsilon)}, but up "
            f"to {fmt_pct(high.posterior)} at ε = {fmt_num(high.epsilon)}: beyond a few units of "
            "ε the guarantee says little."
        )
    return header_long, rows


def _export(
    L: WhatEpsMeans,
    sentences: list[str],
    pictures: tuple[IconPicture, IconPicture],
    header_long: list[str],
    rows: list[list[str]],
) -> None:
    """For the meeting: the one-page summary's download button."""
    view_url = appkit.view_url()
    title = f"What {_guarantee(L)} means for the people in our data"

    def summary() -> bytes:  # built only when the button is clicked
        return summary_html(
            title=title,
            sentences=sentences,
            url=view_url,
            figures=tuple(appkit.cached(picture_svg, p) for p in pictures),
            table_header=header_long,
            table_rows=rows,
            notes=(
                "Made with MIP Explorer. Limits from Izzo, Yoon, Arık, Zou, Provable Membership "
                "Inference Privacy, TMLR 2024, arXiv:2211.06582, and Kairouz, Oh, Viswanath, The "
                "Composition Theorem for Differential Privacy, ICML 2015, arXiv:1311.0776.",
            ),
        ).encode("utf-8")

    st.download_button(
        "Download a one-page summary (HTML, opens offline)",
        summary,
        file_name=export_file_name(L),
        mime="text/html",
        key="export_html",
        on_click="ignore",
        icon=":material/download:",
    )


def _pngs(L: WhatEpsMeans, pictures: tuple[IconPicture, IconPicture]) -> None:
    """For the meeting: the two pictures as PNG files."""
    for col, p, name, label in zip(
        st.columns(2),
        pictures,
        ("who_it_gets_right", "whom_it_names"),
        ("first picture", "second picture"),
        strict=True,
    ):
        col.download_button(
            f"Download the {label} (PNG)",
            functools.partial(appkit.cached, picture_png, p),  # drawn when clicked
            file_name=export_file_name(L, "png").replace("mip_", f"{name}_", 1),
            mime="image/png",
            key=f"png_{name}",
            on_click="ignore",
            icon=":material/image:",
        )


def _live() -> None:
    with main:
        appkit.messages()
        c = _controls()
        args = _lesson_args(c.kind, c.read)
        if args is None:  # a sentence said why
            return
        with appkit.guard("The picture for this guarantee", stop=True):
            L = _lesson(c.prior_pct / 100, c.fpr_cap, args)
        headline, why = _sentence(L)
        _metrics(L)
        lines = _picture_lines(L)
        pictures = _pictures(L)
        _draw_pictures(pictures, lines)
    with table_area:
        header_long, rows = _table(L)
    with export:
        sentences = [
            f"The guarantee shown: {_guarantee_in_full(L)}.",
            headline,
            *([why] if why else []),
            *lines,
        ]
        _export(L, sentences, pictures, header_long, rows)
    with png_area:
        _pngs(L, pictures)


appkit.live(page, _live)
