"""The page registry: every page of the app, its question, its section and its URL.

``app.py`` builds ``st.navigation`` from :data:`PAGES`; tests and benchmarks import it
instead of parsing ``app.py``. A page's *title* is the question it answers in plain words;
its *subtitle* names the theorem or figure behind it. ``url_path`` is the page's address
(``/eta_epsilon``) and must never change once shared links exist.

Page scripts live in ``app_pages/``, not ``pages/``: a folder named ``pages/`` beside
``app.py`` switches Streamlit into its legacy multipage mode until someone opens ``/`` (a
deep link on a freshly started server would then run its page without ``app.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HOME",
    "PAGES",
    "SECTIONS",
    "PageSpec",
    "by_key",
    "by_url_path",
    "navigation",
    "sections",
]


@dataclass(frozen=True)
class PageSpec:
    """One page: ``key`` (short id), ``script`` (None for the home page, a function in app.py),
    ``title`` (the question), ``subtitle`` (the theorem or figure), ``url_path``, ``icon``,
    ``section``, ``summary`` (one line for the home page's guide) and ``nav`` (the short label
    of the sidebar, which cuts anything longer than about 26 characters)."""

    key: str
    script: str | None
    title: str
    subtitle: str
    url_path: str
    icon: str
    section: str
    summary: str
    nav: str = ""

    @property
    def label(self) -> str:
        """The sidebar label: ``nav``, or the title when it is short enough."""
        return self.nav or self.title

    def __str__(self) -> str:  # test ids
        return self.key


START = "Start here"
PAPER = "The paper, reproduced"
AUDIT = "Attack and audit"
TOOLS = "Tools"
SECTIONS = (START, PAPER, AUDIT, TOOLS)

HOME = PageSpec(
    "home",
    None,
    "MIP Explorer",
    "Membership inference privacy, seen and tested",
    "",
    "🏠",
    START,
    "What MIP means, and where to start.",
    nav="Home",
)

PAGES: tuple[PageSpec, ...] = (
    HOME,
    PageSpec(
        "what_eps_means",
        "app_pages/what_eps_means.py",
        "What does ε mean for the people in my data?",
        "The best possible attacker's reach, as people: Theorems 4 and 8 and the DP region",
        "what_eps_means",
        "👥",
        START,
        "A guarantee as a picture of 100 people, and a sentence a manager can repeat.",
        nav="What does ε mean?",
    ),
    PageSpec(
        "play",
        "app_pages/play_attacker.py",
        "Can you beat the guarantee? Play the attacker",
        "The membership game of Definition 1, round by round, beside the Bayes-optimal attacker",
        "play_attacker",
        "🎯",
        START,
        "Guess who was in the training data, and see how far luck takes you.",
        nav="Play the attacker",
    ),
    PageSpec(
        "eta_epsilon",
        "app_pages/eta_epsilon.py",
        "How private is an (ε, δ) guarantee against a membership attacker?",
        "Theorems 4 and 8: DP ⇒ MIP, and what it allows at low false-positive rates",
        "eta_epsilon",
        "⚖️",
        PAPER,
        "Turn ε and δ into the best attacker's accuracy, both ways round.",
        nav="(ε, δ) against an attacker",
    ),
    PageSpec(
        "noise_vs_eta",
        "app_pages/noise_vs_eta.py",
        "How much noise does MIP need, compared with DP?",
        "Figure 1: Theorem 9's noise beside the Laplace mechanism on Proposition 11's data",
        "noise_vs_eta",
        "📈",
        PAPER,
        "Where certifying MIP directly needs less noise than going through DP, and where not.",
        nav="Noise, MIP vs DP (Fig. 1)",
    ),
    PageSpec(
        "proposition11",
        "app_pages/proposition11.py",
        "Can a statistic be very sensitive and still barely vary?",
        "Proposition 11: a dataset whose sensitivity explodes (faster than ∛(2ⁿ)) while its spread stays about 1",
        "proposition11",
        "🧮",
        PAPER,
        "The construction behind MIP's advantage over DP, computed exactly.",
        nav="Prop. 11: big Δ, small σ",
    ),
    PageSpec(
        "covariance",
        "app_pages/covariance.py",
        "Does MIP beat DP-SGD when learning a covariance matrix?",
        "Figure 2: the synthetic-covariance experiment of Section 5.2",
        "covariance",
        "🧪",
        PAPER,
        "The paper's experiment, rerun, with its claims checked on every run.",
        nav="MIP vs DP-SGD (Fig. 2)",
    ),
    PageSpec(
        "wrap",
        "app_pages/wrap_statistic.py",
        "How much noise would my own statistic need?",
        "Algorithm 1 on your data: MIP beside the DP Laplace mechanism",
        "wrap_statistic",
        "🎁",
        PAPER,
        "A mean, covariance or regression of generated or uploaded data, released both ways.",
        nav="Your own statistic",
    ),
    PageSpec(
        "looseness",
        "app_pages/bounds_looseness.py",
        "How loose are the certified bounds?",
        "Proposition 2's exact optimal attack against Theorems 4, 5 and 9",
        "bounds_looseness",
        "🔍",
        AUDIT,
        "The exact best attack beside what the certificates promise.",
        nav="How loose are the bounds?",
    ),
    PageSpec(
        "audit",
        "app_pages/audit.py",
        "Can an audit catch a leaky mechanism?",
        "The membership game with a canary: Clopper–Pearson, ε and η lower bounds",
        "audit",
        "🕵️",
        AUDIT,
        "Play thousands of membership games and see what they prove.",
        nav="Audit a mechanism",
    ),
    PageSpec(
        "mace",
        "app_pages/mace.py",
        "How much leaks, judging from samples alone?",
        "MACE: the Bayes-optimal advantage estimated from member and non-member samples",
        "mace",
        "📊",
        AUDIT,
        "Estimate leakage from data, and see where the plug-in estimate drifts.",
        nav="Leakage from samples",
    ),
    PageSpec(
        "reference_data",
        "app_pages/reference_data.py",
        "Can a defense look private while its reference data leak?",
        "Weighted ERM and the triad utility / training privacy / reference privacy",
        "reference_data",
        "🧷",
        AUDIT,
        "A defense judged on its training data alone can hide a leak of its reference data.",
        nav="Reference data leak too",
    ),
    PageSpec(
        "audit_model",
        "app_pages/audit_model.py",
        "Does my model leak? Audit it from its attack scores",
        "One-run and independent-trials ε lower bounds against the guarantee the model claims",
        "audit_model",
        "🔬",
        AUDIT,
        "Your attack's scores as evidence: is the model's DP claim refuted, consistent, or untested?",
        nav="Audit your model",
    ),
    PageSpec(
        "risk_calculator",
        "app_pages/risk_calculator.py",
        "What does my guarantee or DP-SGD run mean for an attacker?",
        "(ε, δ), μ-GDP, zCDP, Rényi DP or DP-SGD, turned into η, accuracy and TPR at low FPR",
        "risk_calculator",
        "📐",
        TOOLS,
        "Any privacy guarantee in attacker terms, every conversion route side by side.",
        nav="Risk calculator",
    ),
)


def by_key(key: str) -> PageSpec:
    """The page with this ``key`` (``KeyError`` naming the known keys otherwise)."""
    for p in PAGES:
        if p.key == key:
            return p
    raise KeyError(f"no page {key!r}; known: {', '.join(p.key for p in PAGES)}")


def by_url_path(url_path: str) -> PageSpec:
    """The page served at ``/url_path`` (home is ``""``)."""
    for p in PAGES:
        if p.url_path == url_path:
            return p
    raise KeyError(f"no page at /{url_path}")


def by_script(script: str) -> PageSpec:
    """The page whose script is ``script`` (``app_pages/x.py``)."""
    for p in PAGES:
        if p.script == script:
            return p
    raise KeyError(f"no page script {script!r}")


def sections() -> dict[str, list[PageSpec]]:
    """The pages grouped by section, in :data:`SECTIONS` order (empty sections left out)."""
    out: dict[str, list[PageSpec]] = {}
    for s in SECTIONS:
        members = [p for p in PAGES if p.section == s]
        if members:
            out[s] = members
    return out


def navigation(home: Callable[[], None]) -> dict[str, list[Any]]:
    """``st.navigation``'s pages by section, made anew for each run (about 0.7 ms).
    ``home`` is the home page's function.

    Not shared between runs: ``st.navigation`` marks the page it returns as callable once,
    and ``page.run()`` unmarks it, on the object itself. Two visitors whose first loads
    overlapped shared one object and one of them got "This page cannot be called directly"
    instead of the page.
    """
    import streamlit as st

    return {
        section: [
            st.Page(home, title=spec.label, icon=spec.icon, default=True)
            if spec.script is None
            else st.Page(spec.script, title=spec.label, url_path=spec.url_path, icon=spec.icon)
            for spec in specs
        ]
        for section, specs in sections().items()
    }
