"""What does ε mean for the people in my data? A guarantee as 100 people, for a stakeholder.

Every number comes from :func:`mipcore.lessons.what_eps_means.what_eps_means_lesson` (built on
:mod:`mipcore.risk`); the pictures from :mod:`mipcore.plots.risk_vega` (on screen) and
:mod:`mipcore.plots.risk_figs` (the PNG export); the one-page summary
from :func:`mipcore.lessons.what_eps_means.summary_html`. No formula on the surface: the
formulas are in "The maths".
"""

from __future__ import annotations

import importlib.util

import streamlit as st

import appkit
from appkit import fmt_num, fmt_pct, jobs
from appkit.page import _view_url
from mipcore.lessons.what_eps_means import (
    PEOPLE,
    Confidence,
    GuaranteeKind,
    WhatEpsMeans,
    summary_html,
    what_eps_means_lesson,
)
from mipcore.plots.risk_figs import IconPicture, IconView, icon_array_figure, icon_arrays_png
from mipcore.plots.risk_vega import icon_array_vega
from mipcore.risk import ICON_FPR_CAPS

EPS_MAX = 20.0
DELTA_MAX = 0.1
QUICK_PRIORS = (1.0, 10.0, 50.0)  # % of the population in the data
PRIOR_KEY = "prior"  # % in the URL: ?prior=1 is 1 %
_PNG_KEY = "_what_eps_means_png"  # the pictures whose PNG files were asked for (plain key)


def _set_prior(pct: float) -> None:
    st.session_state[PRIOR_KEY] = pct


def _pc(p: float) -> str:
    """A computed probability in %, never rounded to a misleading 0 % or 100 %."""
    if p >= 1.0:
        return "100 %"
    if p >= 0.999:
        return f"{fmt_num(100 * p, 6)} %"
    if p < 0.001:
        return f"{fmt_num(100 * p, 2)} %"
    return fmt_pct(p)


def _given(p: float) -> str:
    """A share the user chose (1 %, 0.25 %, 33.3 %), exactly as chosen."""
    return f"{fmt_num(100 * p, 4)} %"


def _share(L: WhatEpsMeans) -> str:
    if L.one_in is not None and L.one_in >= 2:
        return f"1 in {L.one_in} people is"
    return f"{_given(L.prior)} of the people are"


def _guarantee(L: WhatEpsMeans) -> str:
    if L.kind is GuaranteeKind.MIP:
        return f"η = {fmt_num(L.eta, 3)}"
    assert L.epsilon is not None
    return f"ε = {fmt_num(L.epsilon, 3)}" + (f", δ = {fmt_num(L.delta, 3)}" if L.delta else "")


def _of_members(count: int, members: int) -> str:
    if members == 1:
        return "the one member" if count == 1 else "none of the members (there is one)"
    return f"{count} of the {members} members"


page = appkit.page("what_eps_means")
st.markdown(
    "A privacy guarantee limits what anyone can learn from a released model or statistic "
    "about **whether a given person's record was used** (“membership”). Here is what the "
    "guarantee allows the *best possible* attacker to do, pictured as 100 people. Choose the "
    "guarantee and how many of the people are in the data."
)
main = page.slot()  # controls, the sentence, metrics and the two pictures: live
st.subheader("How the numbers change with ε")
table_area = page.slot()  # the table, its rows in words and its sentence

# ---------------------------------------------------------------- glossary and maths
with st.expander("Glossary"):
    st.markdown(
        "- **Member**: a person whose record is in the data the release was computed from.\n"
        "- **Non-member**: a person of the same population whose record is not in it.\n"
        "- **Attacker**: anyone who sees the release and a person's record and tries to tell "
        "whether that person is a member. *The best possible attacker* knows everything "
        "except that one fact; the limits on this page hold for every attacker.\n"
        "- **Prior**: the share of the population that is in the data — how likely a person "
        "is to be a member before anything is released.\n"
        "- **False accusation**: calling a non-member a member (a false positive).\n"
        "- **Advantage**: the share of members an attacker finds minus the share of "
        "non-members it wrongly accuses; 0 for a blind guess, 1 for a perfect attacker.\n"
        "- **η**: when half the people are members, no attacker is right more than "
        "50 % + η of the time; the advantage is at most 2η.\n"
        "- **ε**: the privacy parameter of differential privacy: any one person's record "
        "changes the chance of any outcome of the release by at most a factor that grows "
        "quickly with ε.\n"
        "- **δ**: the small probability with which that limit may fail — for instance a "
        "release that happens to give a person away."
    )
with appkit.folded("The maths") as shown:
    if shown:
        st.markdown(
            "A membership attacker is a test with a true-positive rate (TPR, the share of members "
            "it names) and a false-positive rate (FPR, the share of non-members it accuses). "
            "(ε, δ)-DP limits every test to"
        )
        st.latex(
            r"\begin{aligned}\mathrm{TPR} \le \min\bigl(&1,\; e^{\varepsilon}\,\mathrm{FPR}"
            r" + \delta,\\ &1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR})\bigr),\end{aligned}"
        )
        st.markdown("and η-MIP (Theorem 8, corrected: the paper prints FPR + η) to")
        st.latex(r"\mathrm{TPR} \le \min(1,\ \mathrm{FPR} + 2\eta).")
        st.markdown("With a share π of members, the best accuracy is the largest")
        st.latex(r"\pi\,\mathrm{TPR} + (1-\pi)(1-\mathrm{FPR})")
        st.markdown(
            "over these tests; at π = 1/2 it is 1/2 + η with η = δ/2 + (1 − δ) tanh(ε/2)/2 "
            "(Theorem 4). The attacker's confidence in a named person is at most"
        )
        st.latex(
            r"\frac{\pi e^{\varepsilon}}{\pi e^{\varepsilon} + 1 - \pi}\quad(\delta = 0),"
            r"\qquad 1\quad(\delta > 0),"
        )
        st.markdown("and a rule that accuses a share FPR of non-members is right at most")
        st.latex(
            r"\mathrm{PPV} = \frac{\pi\,\mathrm{TPR}}{\pi\,\mathrm{TPR} + (1-\pi)\,\mathrm{FPR}}"
        )
        st.markdown(
            "of the time, with TPR as large as allowed. The picture shows ⌈100π⌉ members, "
            "⌈TPR · members⌉ named and ⌊FPR · non-members⌋ wrongly accused: every rounding favours "
            "the attacker. Sources: Izzo, Yoon, Arık, Zou, *Provable Membership Inference "
            "Privacy*, TMLR 2024, arXiv:2211.06582 (Theorems 4 and 8); Kairouz, Oh, Viswanath, "
            "*The Composition Theorem for Differential Privacy*, ICML 2015, arXiv:1311.0776 "
            "(Theorem 2.1)."
        )

# ---------------------------------------------------------------- export
st.subheader("For the meeting")
export = page.slot()  # the summary download (carries the current view)
st.caption(
    "The summary holds the sentences, both pictures, the table and the link that recreates "
    "this view."
    + (
        " To save the pictures alone, make PNG files below."
        if importlib.util.find_spec("kaleido") is not None
        else ""
    )
)
png_area = page.slot()  # the PNG files, made on request


def _live() -> None:
    with main:
        appkit.messages()
        # ---------------------------------------------------------------- controls
        c_guarantee, c_people = st.columns(2)
        with c_guarantee:
            kind = appkit.url_select(
                "The guarantee is stated as",
                "kind",
                list(GuaranteeKind),
                default=GuaranteeKind.DP,
                widget="radio",
                format_func=lambda k: (
                    "ε and δ (differential privacy)"
                    if k is GuaranteeKind.DP
                    else "η (membership privacy)"
                ),
            )
            if kind is GuaranteeKind.DP:
                epsilon: float | None = appkit.url_slider(
                    "ε (smaller is more private)",
                    "eps",
                    min_value=0.0,
                    max_value=EPS_MAX,
                    default=1.0,
                    step=0.05,
                    format="%.2f",
                    help="The privacy parameter of a differentially private release.",
                )
                delta = appkit.url_number(
                    "δ (usually tiny, e.g. 1e-5)",
                    "delta",
                    min_value=0.0,
                    max_value=DELTA_MAX,
                    default=0.0,
                    step=1e-6,
                    format="%g",
                    help="The small probability with which the ε guarantee may fail. 0 for pure ε.",
                )
                eta: float | None = None
            else:
                eta = appkit.url_slider(
                    "η (the best attacker's edge over a coin flip)",
                    "eta",
                    min_value=0.0,
                    max_value=0.5,
                    default=0.1,
                    step=0.005,
                    format="%.3f",
                    help="η-MIP: when half the people are in the data, no attacker is right more "
                    "than 50 % + η of the time.",
                )
                epsilon, delta = None, 0.0
        with c_people:
            st.markdown("**Share of the people who are in the data**")
            for col, pct in zip(st.columns(len(QUICK_PRIORS)), QUICK_PRIORS, strict=True):
                col.button(
                    f"{fmt_num(pct)} %",
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
                default=50.0,
                step=1.0,
                format="%g",
                help="How likely a person is to be in the data before anything is released "
                "(the “prior”): 1 % if 1 in 100 people of the population is in it.",
            )
            fpr_cap = appkit.url_select(
                "Wrongly accuse at most",
                "cap",
                ICON_FPR_CAPS,
                default=ICON_FPR_CAPS[0],
                widget="radio",
                format_func=lambda c: f"{fmt_num(100 * c)} % of the others",
                help="How many people who are *not* in the data an attacker may wrongly call members "
                "while it names people.",
            )

        with appkit.guard("The picture for this guarantee", stop=True):
            L = appkit.cached(
                what_eps_means_lesson,
                prior_pct / 100,
                kind=kind,
                epsilon=epsilon,
                delta=delta,
                eta=eta,
                fpr_cap=fpr_cap,
            )
        ia, naming = L.icons, L.naming

        # ---------------------------------------------------------------- the sentence
        prior_text = _given(L.prior)
        cap_text = _given(L.fpr_cap)
        if L.confidence_kind is Confidence.POSTERIOR:
            headline = (
                f"If {_share(L)} in the data, an attacker who names someone is right at most "
                f"{_pc(L.confidence)} of the time"
            )
        else:
            headline = (
                f"If {_share(L)} in the data, an attacker who names people while wrongly accusing at "
                f"most {cap_text} of the others is right at most {_pc(L.confidence)} of the time"
            )
        if L.tells_nothing:
            headline += (
                " — no better than a blind guess: the release tells nothing about who is in it."
            )
        else:
            headline += f" — up from {prior_text}."
        why = None
        if L.confidence_kind is Confidence.PRECISION:
            if L.kind is GuaranteeKind.DP:
                why = (
                    "Why not a limit for every single person? (ε, δ)-DP allows a release to give one "
                    f"person away outright with a small probability, δ = {fmt_num(L.delta, 3)}; after "
                    "such a release an attacker can be certain. So the useful limit is the attacker's "
                    "hit rate when it names people at a stated rate of false accusations."
                )
            else:
                why = (
                    "Why not a limit for every single person? η allows a release to give away a share "
                    f"2η = {_pc(L.advantage)} of the members outright, and an attacker can be certain "
                    "about those. So the useful limit is the attacker's hit rate when it names people "
                    "at a stated rate of false accusations."
                )
        appkit.takeaway(headline)
        if why:
            st.markdown(why)

        m1, m2, m3 = st.columns(3)
        m1.metric(
            "best attacker is right",
            f"{ia.correct} of {ia.people}",
            help=f"On average {fmt_num(ia.correct_expected, 3)} of {ia.people} "
            f"({fmt_pct(L.accuracy)}); the picture rounds in the attacker's favour.",
        )
        m2.metric(
            f"members named (≤ {cap_text} wrong)",
            f"{naming.named} of {ia.members}",
            help=f"On average {fmt_num(naming.named_expected, 3)} of {ia.members}, while wrongly "
            f"accusing at most {naming.accused} of the {ia.non_members} others.",
        )
        m3.metric(
            "right when naming",
            _pc(L.confidence),
            help=f"Before the release, a blind guess is right {prior_text} of the time.",
        )

        right = f"{ia.correct} right" + (
            f" in the picture (on average {fmt_num(ia.correct_expected, 7)})"
            if L.correct_excess >= 0.5
            else f" ({fmt_pct(L.accuracy)} on average)"
        )
        if L.accuracy_gain * PEOPLE < 0.5:  # less than half a person in 100
            likelier = "not in the data" if L.prior < 0.5 else "in the data"
            acc_line = (
                f"Of {ia.people} people, the best possible attacker gets {right} — "
                + ("no more" if L.accuracy_gain == 0 else "barely more")
                + f" than answering “{likelier}” for everyone ({_pc(L.baseline)}): the risk is not its "
                "accuracy, it is whom it can name (below)."
            )
        else:
            acc_line = f"Of {ia.people} people, the best possible attacker gets {right}; " + (
                "guessing gets 50 %."
                if L.baseline == 0.5
                else f"always giving the likelier answer gets {_pc(L.baseline)}."
            )
        name_line = (
            f"Allowed to wrongly accuse at most {cap_text} of the people who are not in the data "
            f"({naming.accused} of {ia.non_members} here), an attacker can name "
            f"{_of_members(naming.named, ia.members)} ({_pc(naming.tpr)} of members on average)."
        )
        rounding = (
            "The picture never understates the risk: it rounds the members, the people the attacker "
            "gets right and the people it names up, and the false accusations down. Unrounded: "
            f"members {fmt_num(L.members_expected, 3)}, right {fmt_num(ia.correct_expected, 3)}, "
            f"named {fmt_num(naming.named_expected, 3)}, wrongly accused "
            f"{fmt_num(naming.accused_expected, 3)}."
        )
        if L.correct_excess >= 0.5 or L.named_excess >= 0.5:
            rounding += (
                " Here the rounding adds a visible amount: a small chance of harm still shows as a "
                "whole person."
            )

        pictures = (
            IconPicture(
                ia.members,
                ia.non_members,
                ia.correct_members,
                ia.non_members - ia.correct_non_members,
                IconView.ACCURACY,
                f"Who the best attacker gets right, of {ia.people} people",
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
        fig_acc, data_acc = appkit.cached(
            icon_array_vega,
            pictures[0].members,
            pictures[0].non_members,
            pictures[0].called_members,
            pictures[0].called_non_members,
            view=pictures[0].view,
            title=pictures[0].title,
        )
        appkit.chart(fig_acc, data_acc, "icons_best_attacker", key="icons_accuracy")
        appkit.takeaway(acc_line)

        fig_name, data_name = appkit.cached(
            icon_array_vega,
            pictures[1].members,
            pictures[1].non_members,
            pictures[1].called_members,
            pictures[1].called_non_members,
            view=pictures[1].view,
            title=pictures[1].title,
        )
        appkit.chart(fig_name, data_name, "icons_naming", key="icons_naming")
        appkit.takeaway(name_line)
        st.caption(rounding)
    with table_area:
        table = L.table
        t_prior, t_fpr = _given(table.prior), _given(table.fpr)
        header = [
            "ε",
            "δ",
            "η",
            "best accuracy",
            "members found",
            "right when naming",
            f"… at ≤ {t_fpr} wrong",
            "in words",
        ]
        header_long = [  # for the one-page summary, where no tooltip explains a short header
            "ε",
            "δ",
            "η",
            "best accuracy (half in the data)",
            f"members found (≤ {t_fpr} wrongly accused)",
            f"right when naming ({t_prior} in the data)",
            f"right when naming, ≤ {t_fpr} wrongly accused",
            "in words",
        ]
        header_help = [
            "The privacy parameter.",
            "The chance the ε guarantee may fail.",
            "The best attacker's edge over a coin flip when half the people are in the data.",
            "The best attacker's accuracy when half the people are in the data (50 % + η).",
            f"The largest share of members an attacker finds while wrongly accusing at most {t_fpr} "
            "of the others.",
            f"When {t_prior} of people are in the data: how often someone the attacker names is a "
            "member, at most, for every person (“no limit” when δ > 0).",
            f"When {t_prior} of people are in the data: how often someone the attacker names is a "
            f"member, at most, for an attacker that wrongly accuses at most {t_fpr} of the others.",
            "The row in one sentence.",
        ]
        rows = []
        for r in table.rows:
            eps_text = f"ε = {fmt_num(r.epsilon)}" + (
                f", δ = {fmt_num(r.delta, 3)}" if r.delta else ""
            )
            if r.delta == 0:
                words = (
                    f"{eps_text}: at best {fmt_pct(r.accuracy)} right when half the people are in the "
                    f"data; finds {_pc(r.tpr)} of members at {t_fpr} false accusations; when "
                    f"{t_prior} of people are in the data, someone it names is a member at most "
                    f"{_pc(r.posterior)} of the time."
                )
            else:
                words = (
                    f"{eps_text}: much the same on average, but a rare release can expose someone "
                    f"outright, so no limit holds for every person; naming at {t_fpr} false "
                    f"accusations it is right at most {_pc(r.ppv)} of the time."
                )
            rows.append(
                [
                    fmt_num(r.epsilon),
                    fmt_num(r.delta, 3),
                    fmt_num(r.eta, 3),
                    fmt_pct(r.accuracy),
                    _pc(r.tpr),
                    _pc(r.posterior) + (" (no limit)" if r.delta else ""),
                    _pc(r.ppv),
                    words,
                ]
            )
        appkit.tables.table(  # a Markdown table: no data grid to load (see appkit.tables)
            {h: [row[i] for row in rows] for i, h in enumerate(header[:-1])},
            right=header[:-1],
            columns_help=dict(zip(header[:-1], header_help[:-1], strict=True)),
        )
        with st.expander("Each row in words"):
            st.markdown("\n".join(f"- {row[-1]}" for row in rows))
        pure = [r for r in table.rows if r.delta == 0]
        low = max((r for r in pure if r.posterior < 0.1), key=lambda r: r.epsilon, default=None)
        high = min((r for r in pure if r.posterior > 0.5), key=lambda r: r.epsilon, default=None)
        if low is not None and high is not None:
            appkit.takeaway(
                f"When {t_prior} of people are in the data, someone the attacker names is a member at "
                f"most {_pc(low.posterior)} of the time up to ε = {fmt_num(low.epsilon)}, but up to "
                f"{_pc(high.posterior)} at ε = {fmt_num(high.epsilon)}: beyond a few units of ε the "
                "guarantee says little."
            )
    with export:
        sentences = [headline, *([why] if why else []), acc_line, name_line, rounding]
        view_url = _view_url()
        st.download_button(
            "Download a one-page summary (HTML, opens offline)",
            lambda: summary_html(
                title=f"What {_guarantee(L)} means for the people in our data",
                sentences=sentences,
                url=view_url,
                # the standalone file carries the Plotly pictures (plotly.js inline, opens offline),
                # built only when the button is clicked
                figures=tuple(
                    icon_array_figure(
                        p.members,
                        p.non_members,
                        p.called_members,
                        p.called_non_members,
                        view=p.view,
                        title=p.title,
                    )[0]
                    for p in pictures
                ),
                table_header=header_long,
                table_rows=rows,
                notes=(
                    "Made with MIP Explorer. Limits from Izzo, Yoon, Arık, Zou, Provable Membership "
                    "Inference Privacy, TMLR 2024, arXiv:2211.06582, and Kairouz, Oh, Viswanath, The "
                    "Composition Theorem for Differential Privacy, ICML 2015, arXiv:1311.0776.",
                ),
            ).encode("utf-8"),
            file_name="what_eps_means.html",
            mime="text/html",
            key="export_html",
            on_click="ignore",
            icon=":material/download:",
        )
    with png_area:
        if importlib.util.find_spec("kaleido") is not None:  # server-side PNG files, on request
            if st.button("Make PNG files of both pictures (a few seconds)", key="make_png"):
                st.session_state[_PNG_KEY] = pictures
            if st.session_state.get(_PNG_KEY) == pictures:
                with appkit.guard("The PNG pictures"):
                    pngs = jobs.run(
                        icon_arrays_png, pictures, label="Drawing the pictures", quick=True
                    )
                    for col, png, name, label in zip(
                        st.columns(2),
                        pngs,
                        ("who_it_gets_right.png", "whom_it_names.png"),
                        ("first picture", "second picture"),
                        strict=True,
                    ):
                        col.download_button(
                            f"Download the {label} (PNG)",
                            png,
                            file_name=name,
                            mime="image/png",
                            key=f"png_{name}",
                            on_click="ignore",
                            icon=":material/image:",
                        )


appkit.live(page, _live)
