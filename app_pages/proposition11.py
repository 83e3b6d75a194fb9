"""Can a statistic be very sensitive and still barely vary? (Proposition 11 of the paper.)

The controls (the table :data:`CONTROLS`) → :mod:`mipcore.prop11` (exact and certified numbers;
the certified moments and the histogram through ``appkit.cached``) and
``jobs.run(prop11.growth_table)``, the noise of each route from :mod:`mipcore.noise` and
:mod:`mipcore.theorem9` → Vega-Lite charts (:mod:`mipcore.plots.prop11_vega`; the n slider only
changes their tables) → sentences, templates of ``proposition11.md``.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

import appkit
from appkit import controls, fmt_num, jobs
from appkit.controls import choice, slider
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore import prop11
from mipcore.bounds import attacker_accuracy
from mipcore.noise import dp_laplace_scale, mip_noise_multiplier
from mipcore.plots import prop11_vega as charts
from mipcore.plots.formatting import superscript
from mipcore.prop11 import Float64Outcome, Prop11Moments
from mipcore.theorem9 import required_noise_multiplier

PAGE = "proposition11"
N_MIN, N_MAX = 4, 200
GROWTH_NS = tuple(range(N_MIN, N_MAX + 1, 2))  # the growth chart: every n the slider offers
ETA = 0.1  # the η of the noise comparison
SPECIAL = "special D*"  # value_histogram's group of the special half
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def even(n: int) -> None:
    """The n slider's check for values from a link (the slider itself steps by 2)."""
    if n % 2:
        raise ValueError("n must be even: the MIP game trains on a random half, k = n/2")


CONTROLS = controls.table(
    slider("n", "n (dataset size, even)", N_MIN, N_MAX, 48, 2, help="The dataset has n numbers; the algorithm runs on random halves (k = n/2 records).", validate=even),
    choice("M", "moment order M", range(2, 9), 2, help="σ of order M is the M-th root of E|𝒜(D) − E𝒜(D)| to the power M; M = 2 is the standard deviation."),
)  # fmt: skip


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


def sig(M: int) -> str:
    """σ_M written with a subscript: σ₂."""
    return "σ" + str(M).translate(SUB)


page = appkit.page(PAGE)
prose(PAGE, "intro")

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
st.info(prose_text(PAGE, "notes"), icon="ℹ️")

# ------------------------------------------------------------------------------ the maths
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")


def _dataset(n: int) -> None:
    """The dataset and the special subset, with its exact integers."""
    ds, special = appkit.cached(prop11.dataset, n), appkit.cached(prop11.special_output, n)
    half, top, a = pow2(ds.k - 1), pow2(n - 2), float_text(ds.a_value)
    prose(PAGE, "dataset", ds=ds, powers=powers(n - 2, ", "), count=n - 1, top=top, half=half, a=a)
    prose(PAGE, "integers", ds=ds, half=half, offset=-ds.a_offset)  # C(200, 100): 59 digits
    C, specials = big(ds.n_subsets), powers(ds.k - 2, ", ")
    prose(PAGE, "special", ds=ds, powers=specials, half=half, special=special, C=C)


def _how(m: Prop11Moments, what: str, C: int) -> str:
    """How a certified moment was obtained (enumeration or branch-and-bound)."""
    if m.exhaustive:
        return say(PAGE, "how_enumerated", what=what, C=big(C))
    width = max(m.mean_rel_width, m.moment_rel_width)
    return say(PAGE, "how_bounded", what=what, width=width)


def _sensitivity(n: int, M: int, m2: Prop11Moments, m_M: Prop11Moments) -> None:
    """Sensitivity and spread: the metrics, the certified digits and how they were obtained."""
    s, C = sig(M), math.comb(n, n // 2)
    delta, special = appkit.cached(prop11.sensitivity, n), appkit.cached(prop11.special_output, n)
    lo, hi = appkit.cached(prop11.sensitivity_interval, n)
    metrics(
        [
            ("Δ (sensitivity)", fmt_num(delta), prose_text(PAGE, "help_delta")),
            ("σ = σ₂ (std. dev.)", fmt_num(m2.sigma), prose_text(PAGE, "help_sigma")),
            (f"{s} (M = {M})", fmt_num(m_M.sigma), say(PAGE, "help_moment", M=M)),
            ("𝒜(D\\*) = 1/√p", fmt_num(special), prose_text(PAGE, "help_special")),
            ("mean E𝒜(D)", fmt_num(m2.mean), None),
            (f"Δ / {s}", fmt_num(delta / m_M.sigma), None),
        ]
    )
    mean, var, sigma = digits(m2.mean_text), digits(m2.moment_text), float_text(m2.sigma)
    text = say(PAGE, "digits", delta=delta, lo=lo, hi=hi, mean=mean, var=var, sigma=sigma)
    how = _how(m2, prose_text(PAGE, "what_mean"), C)
    if M != 2:
        moment, sigma_M = digits(m_M.moment_text), float_text(m_M.sigma)
        text += "\n" + say(
            PAGE, "digits_moment", power=superscript(M), moment=moment, sig=s, sigma=sigma_M
        )
        how += "; " + _how(m_M, say(PAGE, "what_moment", M=M), C)
    st.markdown(text)
    st.caption(say(PAGE, "how_upper", how=how, sig=s))


def _noise(n: int, M: int, m2: Prop11Moments, m_M: Prop11Moments) -> None:
    """The noise each route needs at the page's η: metrics, takeaway and the comparison."""
    s = sig(M)
    dp = dp_laplace_scale(ETA, appkit.cached(prop11.sensitivity, n))  # Δ/ε(η): Laplace mechanism
    paper_c = mip_noise_multiplier(ETA, M)  # Theorem 9 as printed (Corollary 14's 6.16)
    cert_c = float(
        required_noise_multiplier(ETA, M=M, d=1)
    )  # the smallest certified: −1/ln(1 − 2η)
    paper, cert = paper_c * m_M.sigma, cert_c * m_M.sigma
    st.subheader(say(PAGE, "noise_title", eta=ETA))
    metrics(
        [
            ("DP: Laplace scale", fmt_num(dp), prose_text(PAGE, "help_dp")),
            ("MIP as printed", fmt_num(paper), say(PAGE, "help_printed", sig=s)),
            ("MIP, certified min.", fmt_num(cert), say(PAGE, "help_certified", sig=s)),
        ]
    )
    if dp / cert > 1:
        appkit.takeaway(say(PAGE, "noise_takeaway", n=n, times=dp / cert))
    else:
        appkit.takeaway(say(PAGE, "noise_takeaway_dp", n=n, times=dp / cert))
    if dp / paper > 1:
        tail = say(PAGE, "noise_less", times=dp / paper)
    else:
        tail = say(PAGE, "noise_more", times=1 / (dp / paper))
    accuracy = attacker_accuracy(ETA)
    text = say(
        PAGE,
        "noise",
        eta=ETA,
        accuracy=accuracy,
        dp=dp,
        power=1 + 2 / M,
        sig=s,
        paper=paper,
        tail=tail,
    )
    text += " " + say(
        PAGE, "noise_certified", sig=s, cert=cert, less=paper_c / cert_c, times=dp / cert
    )
    if M > 2:
        text += " " + say(PAGE, "noise_moment", m2=m2, sig=s, cert2=cert_c * m2.sigma)
    st.markdown(text)


def _float64_verdict(outcome: Float64Outcome, naive: float, sqrt_p: float) -> str:
    """What float64 makes of D*'s sum, in one sentence (the expander's verdict)."""
    if outcome is Float64Outcome.ZERO:
        return prose_text(PAGE, "f64_zero")
    if outcome is Float64Outcome.NEGATIVE:
        return prose_text(PAGE, "f64_negative")
    if outcome is Float64Outcome.TOO_LARGE:
        return say(PAGE, "f64_large", times=naive / sqrt_p)
    later = []
    for m, o in appkit.cached(prop11.float64_outcomes, N_MAX):
        if o is Float64Outcome.ZERO:
            later.append(say(PAGE, "later_zero", n=m))
        elif o is Float64Outcome.TOO_LARGE:
            later.append(say(PAGE, "later_large", n=m))
        elif o is Float64Outcome.NEGATIVE:
            later.append(say(PAGE, "later_negative", n=m))
    relative = (naive - sqrt_p) / sqrt_p
    if abs(relative) < 1e-3:
        return say(PAGE, "f64_harmless", relative=relative, later=", then ".join(later))
    return say(PAGE, "f64_close", relative=relative, later=", then ".join(later))


def _float64(n: int) -> None:
    """The expander "Why float64 fails here": the float64 sum against the exact one."""
    ds, special = appkit.cached(prop11.dataset, n), appkit.cached(prop11.special_output, n)
    naive, sqrt_p = appkit.cached(prop11.naive_special_sum, n), 1.0 / special
    with st.expander(say(PAGE, "f64_title", n=n)):
        outcome = appkit.cached(prop11.float64_outcome, n)
        if outcome is Float64Outcome.ZERO:
            out = prose_text(PAGE, "f64_out_zero")
        elif outcome is Float64Outcome.NEGATIVE:
            out = say(PAGE, "f64_out_negative", out=1.0 / naive)
        else:
            out = say(PAGE, "f64_out", out=1.0 / naive)
        prose(
            PAGE,
            "f64",
            a=float_text(ds.a_value),
            offset=big(-ds.a_offset),
            terms=powers(n // 2 - 2, " + "),
            naive=naive,
            sqrt_p=sqrt_p,
            out=out,
            special=special,
            verdict=_float64_verdict(outcome, naive, sqrt_p),
            ulp=math.ulp(ds.a_value),
            bits=2 * n + 128,  # mipcore.prop11's working precision
        )


def _growth(n: int, M: int) -> None:
    """Chart 1: Δ / σ_M as n grows, and what it shows."""
    st.subheader(say(PAGE, "growth_title", sig=sig(M)))
    with appkit.guard("The growth table"):
        table = jobs.run(
            prop11.growth_table,
            GROWTH_NS,
            M,
            label="Computing Δ and σ for every even n from 4 to 200",
            quick=True,
        )
        last = table.iloc[-1]  # n = 200
        last_n, ratio, rate = int(last["n"]), float(last["ratio"]), float(last["rate"])
        fig, data = appkit.cached(charts.growth_vega, table, n_chosen=n, M=M)
        appkit.chart(fig, data, f"prop11_growth_M{M}", key="prop11_growth")
        if M == 2:
            appkit.takeaway(say(PAGE, "growth_m2", n=last_n, ratio=ratio, rate=rate))
        elif M == 3:
            appkit.takeaway(say(PAGE, "growth_m3", M=M, sig=sig(M)))
        else:
            appkit.takeaway(
                say(PAGE, "growth_slower", M=M, sig=sig(M), n=last_n, ratio=ratio, rate=rate)
            )
        st.caption(prose_text(PAGE, "growth_caption"))


def _ordinary(histogram: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The histogram's bins of the ordinary halves (all but the special half D*), in order."""
    return [r for r in histogram if r["group"] != SPECIAL]


def _outputs(n: int, histogram: list[dict[str, Any]]) -> None:
    """Chart 2: where the outputs fall, and what to notice."""
    k, C = n // 2, math.comb(n, n // 2)
    special = appkit.cached(prop11.special_output, n)
    heavy = max(_ordinary(histogram), key=lambda r: r["probability"])  # the first of equal maxima
    fig, data = appkit.cached(charts.distribution_vega, histogram)
    caption = say(PAGE, "outputs_caption", n=n, k=k)
    appkit.chart(
        fig,
        data,
        f"prop11_distribution_n{n}",
        key="prop11_distribution",
        caption=caption,
    )
    C_shown = big(C) if C < 10**6 else fmt_num(C)
    appkit.takeaway(say(PAGE, "outputs_takeaway", n=n, k=k, C=C_shown, special=special))
    st.markdown(
        say(
            PAGE,
            "outputs",
            vmax=max(r["value_max"] for r in _ordinary(histogram)),
            heavy=heavy,
            power=pow2(-(n - 2)),
            near=2.0 ** -(n - 2),
            n=n,
            k=k,
            C=big(C),
            p1=1.0 / C,
            special=special,
        )
    )


def _reading(
    n: int, M: int, m2: Prop11Moments, m_M: Prop11Moments, histogram: list[dict[str, Any]]
) -> None:
    """Why σ stays about 1 while Δ explodes, in words."""
    special = appkit.cached(prop11.special_output, n)
    v_max = max(r["value_max"] for r in _ordinary(histogram))
    text = say(
        PAGE,
        "reading",
        share=(1.0 - m2.mean / special) ** 2,  # D*'s share p·(1/√p − μ)², written stably
        vmax=v_max,
        rest=max(v_max, m2.mean) ** 2,
        m2=m2,
        top=pow2(n - 2),
        half=pow2(n // 2 - 1),
        n=n,
        k=n // 2,
        delta=appkit.cached(prop11.sensitivity, n),
        sig=sig(M),
    )
    if M > 2:
        text += "\n" + say(PAGE, "reading_moment", sig=sig(M), M=M, m_M=m_M, m2=m2)
    appkit.explain(text)


def _live() -> None:
    with main:
        appkit.messages()
        c_n, c_m = st.columns([3, 1])
        with c_n:
            n = controls.draw(CONTROLS["n"])
        with c_m:
            M = controls.draw(CONTROLS["M"])
        with appkit.guard("The Proposition 11 example", stop=True):
            # the certified moments take tenths of a second for any n <= 200 and M <= 8: cached,
            # and computed here, not in a job's process, so that a held arrow key does not start
            # and stop a process per step; the rest of mipcore.prop11 takes milliseconds
            m2 = appkit.cached(prop11.output_moments, n, 2)
            m_M = appkit.cached(prop11.output_moments, n, M)  # the same entry when M = 2
            histogram = appkit.cached(prop11.value_histogram, n)
    with dataset:
        _dataset(n)
    with numbers:
        _sensitivity(n, M, m2, m_M)
        _noise(n, M, m2, m_M)
        _float64(n)
        _growth(n, M)
    with outputs, appkit.guard("The distribution of 𝒜(D)"):
        _outputs(n, histogram)
    with reading:
        _reading(n, M, m2, m_M, histogram)


appkit.live(page, _live)
