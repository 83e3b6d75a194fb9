"""Can a statistic be very sensitive and still barely vary? (Proposition 11 of the paper.)

Widgets → :mod:`mipcore.prop11` (exact and certified numbers; the certified moments and the
histogram through ``appkit.cached``) and ``jobs.run(prop11.growth_table)``, the noise of each
route from :mod:`mipcore.noise` and :mod:`mipcore.theorem9` → Vega-Lite charts
(:mod:`mipcore.plots.prop11_vega`; the n slider only changes their tables) → sentences.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import streamlit as st

import appkit
from appkit import fmt_num, jobs
from appkit.prose import prose
from mipcore import prop11
from mipcore.noise import dp_laplace_scale, mip_noise_multiplier
from mipcore.plots import prop11_vega as charts
from mipcore.plots.formatting import superscript
from mipcore.prop11 import Float64Outcome, Prop11Moments
from mipcore.theorem9 import required_noise_multiplier

N_MIN, N_MAX, N_DEFAULT = 4, 200, 48
M_OPTIONS = list(range(2, 9))
GROWTH_NS = tuple(range(N_MIN, N_MAX + 1, 2))  # the growth chart: every n the slider offers
ETA = 0.1  # the η of the noise comparison
SPECIAL = "special D*"  # value_histogram's group of the special half
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


def _dataset(c: Controls) -> None:
    """The dataset and the special subset, with its exact integers."""
    ds, special = appkit.cached(prop11.dataset, c.n), appkit.cached(prop11.special_output, c.n)
    n, k, C = c.n, ds.k, ds.n_subsets
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
        f"{fmt_num(special, 6)}**. It is one of the {big(C)} equally likely halves. Every other "
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


def _sensitivity(c: Controls, m2: Prop11Moments, m_M: Prop11Moments) -> None:
    """Sensitivity and spread: the metrics, the certified digits and how they were obtained."""
    M, sig, C = c.M, c.sig, math.comb(c.n, c.n // 2)
    delta, special = (
        appkit.cached(prop11.sensitivity, c.n),
        appkit.cached(prop11.special_output, c.n),
    )
    lo, hi = appkit.cached(prop11.sensitivity_interval, c.n)
    metrics(
        [
            (
                "Δ (sensitivity)",
                fmt_num(delta),
                "Largest |𝒜(D) − 𝒜(D′)| over halves D, D′ that differ in one record "
                "(closed form in “The maths”).",
            ),
            (
                "σ = σ₂ (std. dev.)",
                fmt_num(m2.sigma),
                "Square root of the certified upper end of Var 𝒜(D).",
            ),
            (
                f"{sig} (M = {M})",
                fmt_num(m_M.sigma),
                f"The M-th root of E|𝒜(D) − E𝒜(D)| to the power M = {M}, from the certified upper "
                "end of that moment. Equal to σ when M = 2.",
            ),
            ("𝒜(D\\*) = 1/√p", fmt_num(special), "The one huge output, √C(n, n/2)."),
            ("mean E𝒜(D)", fmt_num(m2.mean), None),
            (f"Δ / {sig}", fmt_num(delta / m_M.sigma), None),
        ]
    )
    lines = [
        f"- **Δ** = {fmt_num(delta, 15)} (certified interval [{fmt_num(lo, 17)}, "
        f"{fmt_num(hi, 17)}])",
        f"- **mean** E𝒜(D) = `{digits(m2.mean_text)}`",
        f"- **Var** 𝒜(D) = E|𝒜(D) − E𝒜(D)|² = `{digits(m2.moment_text)}`, "
        f"so σ = √Var ≤ {float_text(m2.sigma)}",
    ]
    if M != 2:
        lines.append(
            f"- **E|𝒜(D) − E𝒜(D)|{superscript(M)}** = `{digits(m_M.moment_text)}`, "
            f"so {sig} ≤ {float_text(m_M.sigma)}"
        )
    st.markdown(
        "Certified digits (both ends of the interval that provably contains the true value "
        "round to these digits):\n" + "\n".join(lines)
    )
    st.caption(
        "; ".join(
            [_how(m2, "mean and variance", C)]
            + ([_how(m_M, f"moment of order {M}", C)] if M != 2 else [])
        )
        + f". A noise calibration needs an upper bound on {sig}, so σ and {sig} above are taken "
        "from the **upper end** of the certified interval (rounded up), never from its midpoint."
    )


def _noise(c: Controls, m2: Prop11Moments, m_M: Prop11Moments) -> None:
    """The noise each route needs at the page's η: metrics, takeaway and the comparison."""
    n, M, sig = c.n, c.M, c.sig
    dp = dp_laplace_scale(
        ETA, appkit.cached(prop11.sensitivity, n)
    )  # Δ/ε(η): the Laplace mechanism
    paper_c = mip_noise_multiplier(ETA, M)  # Theorem 9 as printed (Corollary 14's 6.16)
    cert_c = float(
        required_noise_multiplier(ETA, M=M, d=1)
    )  # the smallest certified: −1/ln(1 − 2η)
    paper, cert = paper_c * m_M.sigma, cert_c * m_M.sigma
    dp_over_paper, dp_over_cert = dp / paper, dp / cert
    st.subheader(f"The noise each route needs at η = {fmt_num(ETA)}")
    metrics(
        [
            (
                "DP: Laplace scale",
                fmt_num(dp),
                "Δ/ε with ε = log((1 + 2η)/(1 − 2η)): the Laplace mechanism, then Theorem 4.",
            ),
            (
                "MIP as printed",
                fmt_num(paper),
                f"Theorem 9 as printed (Corollary 14): (6.16/η) to the power 1 + 2/M, times {sig}.",
            ),
            (
                "MIP, certified min.",
                fmt_num(cert),
                f"{sig}/ln(1/(1 − 2η)): Theorem 9's noise certifies η ≤ ½(1 − exp(−1/c)) in every "
                "dimension.",
            ),
        ]
    )
    appkit.takeaway(
        f"Tiny spread, huge sensitivity: at n = {n}, DP needs {fmt_num(dp_over_cert, 3)} "
        f"times the smallest certified MIP noise"
        + ("." if dp_over_cert > 1 else ": here that is less than 1, DP is cheaper.")
    )
    st.markdown(
        f"At η = {fmt_num(ETA)} (no attacker right more than {appkit.fmt_pct(0.5 + ETA)} of "
        f"the time): DP needs Laplace noise of scale Δ/ε = {fmt_num(dp)}. The paper's MIP "
        f"calibration, (6.16/η) to the power {fmt_num(1 + 2 / M, 4)} times {sig}, gives "
        f"{fmt_num(paper)}"
        + (
            f", {fmt_num(dp_over_paper, 3)} times less than DP."
            if dp_over_paper > 1
            else f": at this small n more than DP ({fmt_num(1 / dp_over_paper, 3)} times), "
            "because its constant is large."
        )
        + f" But Theorem 9's noise certifies far more than the paper proves: ½(1 − exp(−1/c)) for "
        f"multiplier c, so {sig}/ln(1/(1 − 2η)) = **{fmt_num(cert)}** is enough, "
        f"{fmt_num(paper_c / cert_c, 3)} times less than printed. DP needs "
        f"{fmt_num(dp_over_cert, 3)} times that: between Δ/(2{sig}) (small η) and "
        f"Δ/{sig} (η near ½), since DP's ε is ln((1 + 2η)/(1 − 2η)) and MIP's 1/c is "
        "ln(1/(1 − 2η))."
        + (
            f" (This certificate accepts a bound on any moment of order at least 1: with "
            f"σ₂ = {fmt_num(m2.sigma)} instead of {sig} it would be "
            f"{fmt_num(cert_c * m2.sigma)}.)"
            if M > 2
            else ""
        )
    )


def _float64_verdict(outcome: Float64Outcome, naive: float, sqrt_p: float) -> str:
    """What float64 makes of D*'s sum, in one sentence (the expander's verdict)."""
    if outcome is Float64Outcome.ZERO:
        return "float64 loses √p completely: the sum comes out as exactly 0."
    if outcome is Float64Outcome.NEGATIVE:
        return (
            "float64 gets a *negative* sum, and a negative output, although every record of "
            "D\\* but A is positive and the true sum is √p > 0."
        )
    if outcome is Float64Outcome.TOO_LARGE:
        return f"float64 gets a sum {fmt_num(naive / sqrt_p, 3)} times too large."
    changes = appkit.cached(prop11.float64_outcomes, N_MAX)
    relative = (naive - sqrt_p) / sqrt_p
    later = {
        Float64Outcome.ZERO: "exactly 0",
        Float64Outcome.TOO_LARGE: "far too large",
        Float64Outcome.NEGATIVE: "negative",
    }
    return (
        f"float64 is off by a relative {fmt_num(relative, 2)}"
        + (" — harmless here" if abs(relative) < 1e-3 else "")
        + ", but the error grows with n: the float64 sum becomes "
        + ", then ".join(
            f"{later[o]} from n = {m}" for m, o in changes if o is not Float64Outcome.CLOSE
        )
        + "."
    )


def _float64(c: Controls) -> None:
    """The expander "Why float64 fails here": the float64 sum against the exact one."""
    ds, k, special = (
        appkit.cached(prop11.dataset, c.n),
        c.n // 2,
        appkit.cached(prop11.special_output, c.n),
    )
    naive, sqrt_p = appkit.cached(prop11.naive_special_sum, c.n), 1.0 / special
    with st.expander(f"Why float64 fails here (n = {c.n})"):
        outcome = appkit.cached(prop11.float64_outcome, c.n)
        if outcome is Float64Outcome.ZERO:
            naive_out = "1/0: division by zero (∞)"
        elif outcome is Float64Outcome.NEGATIVE:
            naive_out = f"{fmt_num(1.0 / naive)} (negative!)"
        else:
            naive_out = fmt_num(1.0 / naive, 6)
        verdict = _float64_verdict(outcome, naive, sqrt_p)
        st.markdown(
            "| | float64, summed left to right | exact (certified) |\n"
            "|---|---|---|\n"
            f"| A | {float_text(ds.a_value)} | √p − {big(-ds.a_offset)} |\n"
            f"| A + {powers(k - 2, ' + ')} | {fmt_num(naive, 6)} | "
            f"√p = {fmt_num(sqrt_p, 6)} |\n"
            f"| 𝒜(D\\*) = 1 / sum | {naive_out} | √C = {fmt_num(special, 6)} |\n\n"
            f"{verdict} The reason: A ≈ −{big(-ds.a_offset)} and float64 keeps 53 significant "
            "bits, so A is stored only to the nearest multiple of "
            f"{fmt_num(math.ulp(ds.a_value), 3)}, while √p = {fmt_num(sqrt_p, 3)}. The exact "
            "computation therefore writes every subset sum as an exact integer plus (for halves "
            "with A) √p, and does all real arithmetic in outward-rounded interval arithmetic at "
            f"{2 * c.n + 128} bits."  # 2n + 128: mipcore.prop11's working precision
        )


def _growth(c: Controls) -> None:
    """Chart 1: Δ / σ_M as n grows, and what it shows."""
    n, M, sig = c.n, c.M, c.sig
    st.subheader(f"Δ / {sig} as n grows")
    with appkit.guard("The growth table"):
        table = jobs.run(
            prop11.growth_table,
            GROWTH_NS,
            M,
            label="Computing Δ and σ for every even n from 4 to 200",
            quick=True,
        )
        last = table.iloc[-1]  # n = 200
        last_n, last_ratio, last_rate = int(last["n"]), float(last["ratio"]), float(last["rate"])
        growth_chart, growth_table = appkit.cached(charts.growth_vega, table, n_chosen=n, M=M)
        appkit.chart(growth_chart, growth_table, f"prop11_growth_M{M}", key="prop11_growth")
        if M == 2:
            appkit.takeaway(
                "Δ / σ grows like √C(n, n/2), roughly √(2ⁿ): much faster than the ∛(2ⁿ) "
                f"Proposition 11 promises — at n = {last_n} it is {fmt_num(last_ratio, 3)} "
                f"against ∛(2²⁰⁰) = {fmt_num(last_rate, 3)} — while σ stays at 1."
            )
        else:
            appkit.takeaway(
                f"With M = {M}, {sig} grows too (like C(n, n/2) to the power 1/2 − 1/{M}), so "
                f"Δ / {sig} grows only like C(n, n/2) to the power 1/{M}, about 2 to the power "
                f"n/{M}"
                + (
                    ": still about the promised ∛(2ⁿ), up to a factor polynomial in n."
                    if M == 3
                    else f": slower than the promised ∛(2ⁿ) — at n = {last_n} it is "
                    f"{fmt_num(last_ratio, 3)} against {fmt_num(last_rate, 3)}."
                )
            )
        st.caption(
            "The y-axis is logarithmic, so straight lines are exponentials. Proposition 11 is a "
            "statement about the variance (M = 2)."
        )


def _ordinary(histogram: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The histogram's bins of the ordinary halves (all but the special half D*), in order."""
    return [r for r in histogram if r["group"] != SPECIAL]


def _outputs(c: Controls, histogram: list[dict[str, Any]]) -> None:
    """Chart 2: where the outputs fall, and what to notice."""
    n, k, C = c.n, c.n // 2, math.comb(c.n, c.n // 2)
    special = appkit.cached(prop11.special_output, n)
    heavy = max(_ordinary(histogram), key=lambda r: r["probability"])  # the first of equal maxima
    dist_chart, dist_table = appkit.cached(charts.distribution_vega, histogram)
    appkit.chart(
        dist_chart,
        dist_table,
        f"prop11_distribution_n{n}",
        key="prop11_distribution",
        caption=f"n = {n}: the C({n}, {k}) halves binned by output; both axes logarithmic.",
    )
    appkit.takeaway(
        f"One half in C({n}, {k}) = {big(C) if C < 10**6 else fmt_num(C)} gives the output "
        f"1/√p = {fmt_num(special, 4)}; every other half gives at most 1."
    )
    st.markdown(
        f"**What to notice:** all the other probability mass sits at outputs **≤ 1** (here at "
        f"most {fmt_num(max(r['value_max'] for r in _ordinary(histogram)), 3)}); the heaviest "
        f"bin, with probability {fmt_num(heavy['probability'], 3)}, holds outputs between "
        f"{fmt_num(heavy['value_min'], 3)} and {fmt_num(heavy['value_max'], 3)}, near "
        f"{pow2(-(n - 2))} = {fmt_num(2.0 ** -(n - 2), 3)}. Far to the right, **one** half in "
        f"C({n}, {k}) = {big(C)} — the star, probability p = {fmt_num(1.0 / C, 3)} — sits at "
        f"√C({n}, {k}) = {fmt_num(special, 4)}. Hover over a box for its exact number of "
        "halves."
    )


def _reading(
    c: Controls, m2: Prop11Moments, m_M: Prop11Moments, histogram: list[dict[str, Any]]
) -> None:
    """Why σ stays about 1 while Δ explodes, in words."""
    n, M, sig, k = c.n, c.M, c.sig, c.n // 2
    special, v_max = (
        appkit.cached(prop11.special_output, n),
        max(r["value_max"] for r in _ordinary(histogram)),
    )
    special_term = (1.0 - m2.mean / special) ** 2  # D*'s share p·(1/√p − μ)², written stably
    appkit.explain(
        f"- **σ stays about 1.** The variance averages (𝒜(D) − E𝒜(D))² over all halves. The "
        "single huge value contributes p·(1/√p − E𝒜)² ≈ p · (1/p) = 1 "
        f"(here {fmt_num(special_term, 15)}): it is huge, but rare in exactly the right "
        f"proportion. Every other output lies in (0, {fmt_num(v_max, 3)}], so all the others "
        f"together add at most {fmt_num(max(v_max, m2.mean) ** 2, 3)}. Hence Var = "
        f"{fmt_num(m2.moment, 6)} and σ = {fmt_num(m2.sigma, 6)} whatever n is.\n"
        f"- **Δ explodes.** D\\* has neighbours — swap A for the largest record {pow2(n - 2)} — "
        f"whose output is ordinary (1 / ({pow2(n - 2)} + {pow2(k - 1)} − 1)). Sensitivity is a "
        f"worst case over neighbours, so Δ ≈ 1/√p = √C({n}, {k}), roughly √(2ⁿ): "
        f"Δ = {fmt_num(appkit.cached(prop11.sensitivity, n))} here.\n"
        f"- **So MIP needs far less noise** than DP: DP's noise grows with Δ, MIP's with {sig} "
        "(the numbers above)."
        + (
            f"\n- **The moment order matters.** For M > 2 the rare huge value weighs more: {sig} "
            f"grows like p to the power 1/{M} − 1/2 ({sig} = {fmt_num(m_M.sigma)} here, against "
            f"σ₂ = {fmt_num(m2.sigma)}). The smaller printed constant of a higher M does not make "
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
            # the certified moments take tenths of a second for any n <= 200 and M <= 8: cached,
            # and computed here, not in a job's process, so that a held arrow key does not start
            # and stop a process per step; the rest of mipcore.prop11 takes milliseconds
            m2 = appkit.cached(prop11.output_moments, c.n, 2)
            m_M = appkit.cached(prop11.output_moments, c.n, c.M)  # the same entry when M = 2
            histogram = appkit.cached(prop11.value_histogram, c.n)
    with dataset:
        _dataset(c)
    with numbers:
        _sensitivity(c, m2, m_M)
        _noise(c, m2, m_M)
        _float64(c)
        _growth(c)
    with outputs, appkit.guard("The distribution of 𝒜(D)"):
        _outputs(c, histogram)
    with reading:
        _reading(c, m2, m_M, histogram)


appkit.live(page, _live)
