"""Independent references for the attack tests (no code under test inside).

References are independent of the code under test:

* ``mp_accuracy``: the Proposition 2 integral with mpmath at 30 digits -- roots of
  ``π p_in − (1−π) p_out`` located on a fine grid and polished with ``mpmath.findroot``,
  then ``|∫ g|`` summed over the pieces between atoms and roots;
* the membership game simulated with 10^6 draws (random half, noise, Bayes rule);
* exact enumeration with ``fractions.Fraction`` for the finite constructions;
* ``scipy.stats.binomtest(...).proportion_ci`` for Clopper–Pearson.

Statistical tolerances are 5 standard deviations of the estimator at the sample size used
(or a DKW/Hoeffding bound where stated), never tuned.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
from scipy import special

# --------------------------------------------------------------------------- references


def mp_accuracy(a_in, a_out, kind, scale, prior=0.5, grid=60):
    """Proposition 2's ∫max(π p_in, (1−π) p_out) with mpmath (30 digits)."""
    with mpmath.workdps(30):
        xin = [mpmath.mpf(float(v)) for v in a_in]
        xout = [mpmath.mpf(float(v)) for v in a_out]
        s = mpmath.mpf(scale)
        pi = mpmath.mpf(prior)
        if kind == "laplace":

            def f(y, x):
                return mpmath.exp(-abs(y - x) / s) / (2 * s)
        else:

            def f(y, x):
                return mpmath.exp(-((y - x) ** 2) / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))

        def g(y):
            return pi * mpmath.fsum(f(y, x) for x in xin) / len(xin) - (1 - pi) * mpmath.fsum(
                f(y, x) for x in xout
            ) / len(xout)

        atoms = sorted(set(xin + xout))
        # bracketing grid: dense within 30 scales of each atom, 20 points across every gap
        pts = set(atoms)
        for x in atoms:
            pts.update(mpmath.linspace(x - 30 * s, x + 30 * s, grid))
        for a, b in itertools.pairwise(atoms):
            pts.update(mpmath.linspace(a, b, 20))
        ys = sorted(pts)
        gs = [g(y) for y in ys]
        roots = []
        for i in range(len(ys) - 1):
            if gs[i] * gs[i + 1] < 0:
                roots.append(mpmath.findroot(g, (ys[i], ys[i + 1]), solver="anderson"))
        br = [mpmath.mpf("-inf"), *sorted(set(atoms + roots)), mpmath.mpf("inf")]
        total = mpmath.fsum(abs(mpmath.quad(g, [br[i], br[i + 1]])) for i in range(len(br) - 1))
        return float(mpmath.mpf(1) / 2 + total / 2), len(roots)


def simulate_game(outputs, member, noise_sample, logpdf, draws, rng):
    """Monte Carlo of Definition 1's game with the Bayes-optimal attacker (prior 1/2)."""
    idx = rng.integers(outputs.size, size=draws)
    y = outputs[idx] + noise_sample(draws)
    lin = np.logaddexp.reduce(logpdf(y[:, None] - outputs[member][None, :]), axis=1) - np.log(
        member.sum()
    )
    lout = np.logaddexp.reduce(logpdf(y[:, None] - outputs[~member][None, :]), axis=1) - np.log(
        (~member).sum()
    )
    guess_in = lin >= lout
    return float(np.mean(guess_in == member[idx]))


def halves(records, k):
    combos = list(itertools.combinations(range(len(records)), k))
    out = np.array([sum(records[i] for i in c) / k for c in combos])
    return combos, out


# ------------------------------------------------------------------ finite constructions


def rr_laws(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Output laws of randomised response (truth w.p. e^ε/(1+e^ε)) plus a δ-mass revealing
    membership: exactly (ε, δ)-DP, and Theorem 4's η is its best advantage over 2.

    Outputs: (leak, in), (leak, out), (rr, "in"), (rr, "out").
    """
    keep, flip = special.expit(eps), special.expit(-eps)
    p_in = np.array([delta, 0.0, (1 - delta) * keep, (1 - delta) * flip])
    p_out = np.array([0.0, delta, (1 - delta) * flip, (1 - delta) * keep])
    return p_in, p_out


def leak_laws(eta: float) -> tuple[np.ndarray, np.ndarray]:
    """Reveal membership w.p. 2η, else say nothing: exactly η-MIP."""
    q = 2 * eta
    return np.array([q, 0.0, 1 - q]), np.array([0.0, q, 1 - q])
