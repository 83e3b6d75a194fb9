"""Can a statistic be very sensitive and still barely vary? (Proposition 11 of the paper.)

Widgets → ``appkit.cached(prop11_view.prop11_view)`` (exact and certified numbers, at most
~0.3 s) and ``jobs.run(prop11_view.growth)`` → Vega-Lite charts
(:mod:`mipcore.plots.prop11_vega`; the n slider only changes their tables) → sentences.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

import appkit
from appkit import fmt_num, jobs
from appkit.prose import prose
from mipcore.lessons import prop11_view as lesson
from mipcore.lessons.prop11_view import Float64Outcome
from mipcore.plots import prop11_vega as charts
from mipcore.plots.formatting import superscript

N_MIN, N_MAX, N_DEFAULT = 4, 200, 48
M_OPTIONS = list(range(2, 9))
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def even(n: int) -> None:
    """The n slider's check for values from a link (the slider itself steps by 2)."""
    if n % 2:
        raise ValueError("n must be even: the MIP game trains on a random half, k = n/2")


def pow2(i: int) -> str:
    """2 to the power i, written with a superscript: 2⁴⁶."""
    return "2" + superscript(i)


def powers(last: int, sep: str) -> str:
    """'2⁰, 2¹, …, 2⁴⁶' (every term when there are at most four)."""
    if last <= 3:
        return sep.join(pow2(i) for i in range(last + 1))
    return sep.join([pow2(0), pow2(1), "…", pow2(last)])


def float_text(x: float) -> str:
    """A float64 with all the digits it holds (shortest round-trip form), minus sign −."""
    return repr(float(x)).replace("-", "−") if 1e-4 <= abs(x) < 1e16 else fmt_num(x, 17)


def digits(text: str) -> str:
    """Certified digits ("1.76096769962e-7") with a superscript exponent, digits unchanged."""
    mant, _, exp = text.partition("e")
    return mant.replace("-", "−") + (f" × 10{superscript(int(exp))}" if exp else "")


def metrics(items: list[tuple[str, str, str | None]]) -> None:
    """Metrics in rows of three (two in presenter mode, where the type is larger)."""
    per_row = 2 if appkit.presenter() else 3
    for i in range(0, len(items), per_row):
        for col, (label, value, help_text) in zip(
            st.columns(per_row), items[i : i + per_row], strict=False
        ):
            col.metric(label, value, help=help_text)


def big(x: int) -> str:
    """An exact integer with thin spaces between groups of three digits."""
    return f"{x:,}".replace(",", "\u2009")


page = appkit.page("proposition11")
prose("proposition11", "intro")

main = page.slot()  # controls: rerun on each change

# ------------------------------------------------------------------------------ the dataset
st.subheader("The dataset and the special subset")
dataset = page.slot()

# ------------------------------------------------------------------------------ the numbers
st.subheader("Sensitivity and spread, exactly")
numbers = page.slot()  # the numbers, the noise, float64 and the growth chart

# ------------------------------------------------------------------------------ chart 2: outputs
st.subheader("Where the outputs fall")
outputs = page.slot()

# ------------------------------------------------------------------------------ the reading
st.subheader("Why σ stays about 1 while Δ explodes")
reading = page.slot()
st.page_link(
    "app_pages/noise_vs_eta.py", label="See the noise levels for every η: Figure 1", icon="📈"
)
st.info(
    "**Notes on the paper.**\n"
    "- **1/Σx, not Σ1/x.** The main text (Section 4) defines 𝒜(D) = 1/Σx (one over the sum of "
    "D's records); the restatement in Appendix D writes Σ 1/x (the sum of the reciprocals). "
    "Only 1/Σx works: the construction makes the *sum* of D\\* tiny (√p) so that its "
    "reciprocal is huge. With Σ 1/x, D\\* would give 1 + 1/2 + … + 1/A ≈ 2, an ordinary "
    "value, and nothing would stand out. This page implements 1/Σx.\n"
    "- **σ is a standard deviation.** Section 5.1 calls σ “an upper bound on the variance”; "
    "with M = 2, Theorem 9 needs σ² ≥ Var, i.e. σ bounds the standard deviation. (Here Var ≈ "
    "1, so the two readings happen to give the same number.)\n"
    "- **Theorem 9's noise certifies more than printed.** Its noise with multiplier c "
    "certifies η ≤ ½(1 − exp(−1/c)) in every dimension, so −1/ln(1 − 2η) suffices where Corollary "
    "14 prescribes (6.16/η)²: 847 times less noise at η = 0.1.\n"
    "- **Δ's closed form is ours.** The paper only states that Δ grows at least like ∛(2ⁿ). "
    "The exact Δ is derived here (argument in “The maths”) and checked against brute-force "
    "enumeration of all neighbouring halves for small n in the tests.",
    icon="ℹ️",
)

# ------------------------------------------------------------------------------ the maths
with appkit.folded("The maths") as shown:
    if shown:
        prose("proposition11", "maths")


class Controls(NamedTuple):
    """What the controls chose: the dataset size and the moment order."""

    n: int
    M: int

    @property
    def sig(self) -> str:
        return "σ" + str(self.M).translate(SUB)


def _controls() -> Controls:
    """The widgets: the n slider and the moment order M."""
    c_n, c_m = st.columns([3, 1])
    n = appkit.url_slider(
        "n (dataset size, even)",
        "n",
        min_value=N_MIN,
        max_value=N_MAX,
        default=N_DEFAULT,
        step=2,
        validate=even,
        help="The dataset has n numbers; the algorithm runs on random halves (k = n/2 records).",
        container=c_n,
    )
    M = appkit.url_select(
        "moment order M",
        "M",
        M_OPTIONS,
        default=2,
        help="σ of order M is the M-th root of E|𝒜(D) − E𝒜(D)| to the power M; M = 2 is the "
        "standard deviation.",
        container=c_m,
    )
    return Controls(n, M)


def _dataset(c: Controls, v) -> None:
    """The dataset and the special subset, with its exact integers."""
    n, ds, k, C = c.n, v.dataset, v.k, v.n_subsets
    st.markdown(
        f"With n = {n} (so k = n/2 = {k}) the dataset is **{{{powers(n - 2, ', ')}}} ∪ {{A}}**: "
        f"the {n - 1} powers of two from 1 to {pow2(n - 2)}, and one special number "
        f"A = √p − ({pow2(k - 1)} − 1), where **p = 1 / C({n}, {k})** is the probability of "
        f"drawing any one particular half. As a float64, A = {float_text(ds.a_value)}."
    )
    st.markdown(  # exact integers, one per line (wrapped: C(200, 100) has 59 digits)
        f"C({n}, {k}) = {C}  \n"
        f"{pow2(k - 1)} − 1 = {-ds.a_offset}  \n"
        f"A = 1/√{C} − {-ds.a_offset}  \n"
        f"p = 1/{C}"
    )
    st.markdown(
        f"The **special subset** D\\* = {{{powers(k - 2, ', ')}, A}} ({k} records) sums to exactly "
        f"{pow2(k - 1)} − 1 + A = √p, so its output is **𝒜(D\\*) = 1/√p = √C({n}, {k}) = "
        f"{fmt_num(v.special, 6)}**. It is one of the {big(C)} equally likely halves. Every other "
        "half misses the cancellation: its sum is at least 1, so its output is at most 1."
    )


def _how(m, what: str, C: int) -> str:
    """How a certified moment was obtained (enumeration or branch-and-bound)."""
    if m.exhaustive:
        return f"{what}: every one of the {big(C)} halves evaluated individually (full enumeration)"
    width = max(m.mean_rel_width, m.moment_rel_width)
    return (
        f"{what}: certified interval of relative width {fmt_num(width, 2)} "
        "(branch-and-bound over groups of halves, not enumeration)"
    )


def _sensitivity(c: Controls, v) -> None:
    """Sensitivity and spread: the metrics, the certified digits and how they were obtained."""
    M, sig, C = c.M, c.sig, v.n_subsets
    metrics(
        [
            (
                "Δ (sensitivity)",
                fmt_num(v.delta),
                "Largest |𝒜(D) − 𝒜(D′)| over halves D, D′ that differ in one record "
                "(closed form in “The maths”).",
            ),
            (
                "σ = σ₂ (std. dev.)",
                fmt_num(v.sigma2),
                "Square root of the certified upper end of Var 𝒜(D).",
            ),
            (
                f"{sig} (M = {M})",
                fmt_num(v.sigma_m),
                f"The M-th root of E|𝒜(D) − E𝒜(D)| to the power M = {M}, from the certified upper "
                "end of that moment. Equal to σ when M = 2.",
            ),
            ("𝒜(D\\*) = 1/√p", fmt_num(v.special), "The one huge output, √C(n, n/2)."),
            ("mean E𝒜(D)", fmt_num(v.moments2.mean), None),
            (f"Δ / {sig}", fmt_num(v.delta_over_sigma), None),
        ]
    )
    lines = [
        f"- **Δ** = {fmt_num(v.delta, 15)} (certified interval [{fmt_num(v.delta_interval[0], 17)}, "
        f"{fmt_num(v.delta_interval[1], 17)}])",
        f"- **mean** E𝒜(D) = `{digits(v.moments2.mean_text)}`",
        f"- **Var** 𝒜(D) = E|𝒜(D) − E𝒜(D)|² = `{digits(v.moments2.moment_text)}`, "
        f"so σ = √Var ≤ {float_text(v.sigma2)}",
    ]
    if M != 2:
        lines.append(
            f"- **E|𝒜(D) − E𝒜(D)|{superscript(M)}** = `{digits(v.moments_m.moment_text)}`, "
            f"so {sig} ≤ {float_text(v.sigma_m)}"
        )
    st.markdown(
        "Certified digits (both ends of the interval that provably contains the true value "
        "round to these digits):\n" + "\n".join(lines)
    )
    st.caption(
        "; ".join(
            [_how(v.moments2, "mean and variance", C)]
            + ([_how(v.moments_m, f"moment of order {M}", C)] if M != 2 else [])
        )
        + f". A noise calibration needs an upper bound on {sig}, so σ and {sig} above are taken "
        "from the **upper end** of the certified interval (rounded up), never from its midpoint."
    )


def _noise(c: Controls, v) -> None:
    """The noise each route needs at the page's η: metrics, takeaway and the comparison."""
    n, M, sig, z = c.n, c.M, c.sig, v.noise
    st.subheader(f"The noise each route needs at η = {fmt_num(z.eta)}")
    metrics(
        [
            (
                "DP: Laplace scale",
                fmt_num(z.dp_scale),
                "Δ/ε with ε = log((1 + 2η)/(1 − 2η)): the Laplace mechanism, then Theorem 4.",
            ),
            (
                "MIP as printed",
                fmt_num(z.paper_scale),
                f"Theorem 9 as printed (Corollary 14): (6.16/η) to the power 1 + 2/M, times {sig}.",
            ),
            (
                "MIP, certified min.",
                fmt_num(z.certified_scale),
                f"{sig}/ln(1/(1 − 2η)): Theorem 9's noise certifies η ≤ ½(1 − exp(−1/c)) in every "
                "dimension.",
            ),
        ]
    )
    appkit.takeaway(
        f"Tiny spread, huge sensitivity: at n = {n}, DP needs {fmt_num(z.dp_over_certified, 3)} "
        f"times the smallest certified MIP noise"
        + ("." if z.dp_over_certified > 1 else ": here that is less than 1, DP is cheaper.")
    )
    st.markdown(
        f"At η = {fmt_num(z.eta)} (no attacker right more than {appkit.fmt_pct(0.5 + z.eta)} of "
        f"the time): DP needs Laplace noise of scale Δ/ε = {fmt_num(z.dp_scale)}. The paper's MIP "
        f"calibration, (6.16/η) to the power {fmt_num(1 + 2 / M, 4)} times {sig}, gives "
        f"{fmt_num(z.paper_scale)}"
        + (
            f", {fmt_num(z.dp_over_paper, 3)} times less than DP."
            if z.dp_over_paper > 1
            else f": at this small n more than DP ({fmt_num(1 / z.dp_over_paper, 3)} times), "
            "because its constant is large."
        )
        + f" But Theorem 9's noise certifies far more than the paper proves: ½(1 − exp(−1/c)) for "
        f"multiplier c, so {sig}/ln(1/(1 − 2η)) = **{fmt_num(z.certified_scale)}** is enough, "
        f"{fmt_num(z.paper_over_certified, 3)} times less than printed. DP needs "
        f"{fmt_num(z.dp_over_certified, 3)} times that: between Δ/(2{sig}) (small η) and "
        f"Δ/{sig} (η near ½), since DP's ε is ln((1 + 2η)/(1 − 2η)) and MIP's 1/c is "
        "ln(1/(1 − 2η))."
        + (
            f" (This certificate accepts a bound on any moment of order at least 1: with "
            f"σ₂ = {fmt_num(v.sigma2)} instead of {sig} it would be "
            f"{fmt_num(z.certified_scale_sigma2)}.)"
            if M > 2
            else ""
        )
    )


def _float64_verdict(f64) -> str:
    """What float64 makes of D*'s sum, in one sentence (the expander's verdict)."""
    if f64.outcome is Float64Outcome.ZERO:
        return "float64 loses √p completely: the sum comes out as exactly 0."
    if f64.outcome is Float64Outcome.NEGATIVE:
        return (
            "float64 gets a *negative* sum, and a negative output, although every record of "
            "D\\* but A is positive and the true sum is √p > 0."
        )
    if f64.outcome is Float64Outcome.TOO_LARGE:
        return f"float64 gets a sum {fmt_num(f64.naive_sum / f64.sqrt_p, 3)} times too large."
    changes = appkit.cached(lesson.float64_outcomes, N_MAX)
    later = {
        Float64Outcome.ZERO: "exactly 0",
        Float64Outcome.TOO_LARGE: "far too large",
        Float64Outcome.NEGATIVE: "negative",
    }
    return (
        f"float64 is off by a relative {fmt_num(f64.relative_error, 2)}"
        + (" — harmless here" if f64.harmless else "")
        + ", but the error grows with n: the float64 sum becomes "
        + ", then ".join(
            f"{later[o]} from n = {m}" for m, o in changes if o is not Float64Outcome.CLOSE
        )
        + "."
    )


def _float64(c: Controls, v) -> None:
    """The expander "Why float64 fails here": the float64 sum against the exact one."""
    ds, k = v.dataset, v.k
    with st.expander(f"Why float64 fails here (n = {c.n})"):
        f64 = v.float64
        naive_out = {
            Float64Outcome.ZERO: "1/0: division by zero (∞)",
            Float64Outcome.NEGATIVE: f"{fmt_num(f64.naive_output)} (negative!)",
        }.get(f64.outcome, fmt_num(f64.naive_output, 6))
        verdict = _float64_verdict(f64)
        st.markdown(
            "| | float64, summed left to right | exact (certified) |\n"
            "|---|---|---|\n"
            f"| A | {float_text(ds.a_value)} | √p − {big(-ds.a_offset)} |\n"
            f"| A + {powers(k - 2, ' + ')} | {fmt_num(f64.naive_sum, 6)} | "
            f"√p = {fmt_num(f64.sqrt_p, 6)} |\n"
            f"| 𝒜(D\\*) = 1 / sum | {naive_out} | √C = {fmt_num(v.special, 6)} |\n\n"
            f"{verdict} The reason: A ≈ −{big(-ds.a_offset)} and float64 keeps 53 significant "
            f"bits, so A is stored only to the nearest multiple of {fmt_num(f64.a_ulp, 3)}, while "
            f"√p = {fmt_num(f64.sqrt_p, 3)}. The exact computation therefore writes every subset "
            "sum as an exact integer plus (for halves with A) √p, and does all real arithmetic in "
            f"outward-rounded interval arithmetic at {f64.precision_bits} bits."
        )


def _growth(c: Controls) -> None:
    """Chart 1: Δ / σ_M as n grows, and what it shows."""
    n, M, sig = c.n, c.M, c.sig
    st.subheader(f"Δ / {sig} as n grows")
    with appkit.guard("The growth table"):
        g = jobs.run(
            lesson.growth,
            M,
            label="Computing Δ and σ for every even n from 4 to 200",
            quick=True,
        )
        growth_chart, growth_table = appkit.cached(charts.growth_vega, g.table, n_chosen=n, M=M)
        appkit.chart(growth_chart, growth_table, f"prop11_growth_M{M}", key="prop11_growth")
        if M == 2:
            appkit.takeaway(
                "Δ / σ grows like √C(n, n/2), roughly √(2ⁿ): much faster than the ∛(2ⁿ) "
                f"Proposition 11 promises — at n = {g.last_n} it is {fmt_num(g.last_ratio, 3)} "
                f"against ∛(2²⁰⁰) = {fmt_num(g.last_rate, 3)} — while σ stays at 1."
            )
        else:
            appkit.takeaway(
                f"With M = {M}, {sig} grows too (like C(n, n/2) to the power 1/2 − 1/{M}), so "
                f"Δ / {sig} grows only like C(n, n/2) to the power 1/{M}, about 2 to the power "
                f"n/{M}"
                + (
                    ": still about the promised ∛(2ⁿ), up to a factor polynomial in n."
                    if M == 3
                    else f": slower than the promised ∛(2ⁿ) — at n = {g.last_n} it is "
                    f"{fmt_num(g.last_ratio, 3)} against {fmt_num(g.last_rate, 3)}."
                )
            )
        st.caption(
            "The y-axis is logarithmic, so straight lines are exponentials. Proposition 11 is a "
            "statement about the variance (M = 2)."
        )


def _outputs(c: Controls, v) -> None:
    """Chart 2: where the outputs fall, and what to notice."""
    n, k, C = c.n, v.k, v.n_subsets
    dist = appkit.cached(lesson.distribution, n)
    dist_chart, dist_table = appkit.cached(charts.distribution_vega, dist)
    appkit.chart(
        dist_chart,
        dist_table,
        f"prop11_distribution_n{n}",
        key="prop11_distribution",
        caption=f"n = {n}: the C({n}, {k}) halves binned by output; both axes logarithmic.",
    )
    appkit.takeaway(
        f"One half in C({n}, {k}) = {big(C) if C < 10**6 else fmt_num(C)} gives the output "
        f"1/√p = {fmt_num(v.special, 4)}; every other half gives at most 1."
    )
    st.markdown(
        f"**What to notice:** all the other probability mass sits at outputs **≤ 1** (here at "
        f"most {fmt_num(dist.v_max, 3)}); the heaviest bin, with probability "
        f"{fmt_num(dist.heavy_probability, 3)}, holds outputs between "
        f"{fmt_num(dist.heavy_min, 3)} and {fmt_num(dist.heavy_max, 3)}, near "
        f"{pow2(-(n - 2))} = {fmt_num(2.0 ** -(n - 2), 3)}. Far to the right, **one** half in "
        f"C({n}, {k}) = {big(C)} — the star, probability p = {fmt_num(1.0 / C, 3)} — sits at "
        f"√C({n}, {k}) = {fmt_num(v.special, 4)}. Hover over a box for its exact number of "
        "halves."
    )


def _reading(c: Controls, v) -> None:
    """Why σ stays about 1 while Δ explodes, in words."""
    n, M, sig, k = c.n, c.M, c.sig, v.k
    appkit.explain(
        f"- **σ stays about 1.** The variance averages (𝒜(D) − E𝒜(D))² over all halves. The "
        "single huge value contributes p·(1/√p − E𝒜)² ≈ p · (1/p) = 1 "
        f"(here {fmt_num(v.special_term, 15)}): it is huge, but rare in exactly the right "
        f"proportion. Every other output lies in (0, {fmt_num(v.v_max, 3)}], so all the others "
        f"together add at most {fmt_num(v.rest_bound, 3)}. Hence Var = "
        f"{fmt_num(v.moments2.moment, 6)} and σ = {fmt_num(v.sigma2, 6)} whatever n is.\n"
        f"- **Δ explodes.** D\\* has neighbours — swap A for the largest record {pow2(n - 2)} — "
        f"whose output is ordinary (1 / ({pow2(n - 2)} + {pow2(k - 1)} − 1)). Sensitivity is a "
        f"worst case over neighbours, so Δ ≈ 1/√p = √C({n}, {k}), roughly √(2ⁿ): "
        f"Δ = {fmt_num(v.delta)} here.\n"
        f"- **So MIP needs far less noise** than DP: DP's noise grows with Δ, MIP's with {sig} "
        "(the numbers above)."
        + (
            f"\n- **The moment order matters.** For M > 2 the rare huge value weighs more: {sig} "
            f"grows like p to the power 1/{M} − 1/2 ({sig} = {fmt_num(v.sigma_m)} here, against "
            f"σ₂ = {fmt_num(v.sigma2)}). The smaller printed constant of a higher M does not make "
            "up for it in this example, and the certified minimum needs no higher M at all: "
            "use M = 2."
            if M > 2
            else ""
        )
    )


def _live() -> None:
    with main:
        appkit.messages()
        c = _controls()
        with appkit.guard("The Proposition 11 example", stop=True):
            # at most ~0.3 s for any n <= 200 and M <= 8 (measured): computed here, not in a job's
            # process, so that a held arrow key does not start and stop a process per step
            v = appkit.cached(lesson.prop11_view, c.n, c.M)
    with dataset:
        _dataset(c, v)
    with numbers:
        _sensitivity(c, v)
        _noise(c, v)
        _float64(c, v)
        _growth(c)
    with outputs, appkit.guard("The distribution of 𝒜(D)"):
        _outputs(c, v)
    with reading:
        _reading(c, v)


appkit.live(page, _live)
