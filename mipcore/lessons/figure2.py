r"""The synthetic-covariance experiment of Section 5.2 (Figure 2), reproducible at paper scale.

Source: ``000_ece03c98c31c7b12.txt`` Section 5.2 and the Figure 2 caption; DP-SGD from
Abadi et al. (2016); Gaussian-mechanism calibration from Google's ``dp_accounting``.

Setting. ``Sigma = sklearn.datasets.make_spd_matrix(d, random_state=seed)``; n rows
``x_i ~ N(0, Sigma)``; the training set is a uniformly random half (m = n/2 rows).
The base algorithm learns ``A`` by gradient descent on ``||A - S||_F^2`` with
``S = (1/m) sum x_i x_i^T``; from ``A_0 = 0`` with learning rate ``lr`` the gradient
``2(A - S)`` gives the closed form ``A_T = (1 - (1 - 2 lr)^T) S`` (checked against the
iteration in the tests). Error: ``||A - Sigma||_F / ||Sigma||_F``.

Methods.

* **Raw** -- the non-private GD result.
* **MIP** -- theta = the d^2 entries of A; per-coordinate sigma_i from B random halves
  of the training set (Algorithm 1; a half's Gram matrix is a sum of precomputed
  per-row outer products, so all B halves are one matrix product), noise by
  Corollary 10 with either radius law (:mod:`mipcore.mechanism`).
* **DP-SGD, full batch** -- per-example gradient ``2(A - x x^T)``, clipped to Frobenius
  norm C, summed, plus ``N(0, (z 2C)^2)`` per entry (2C: the sum's sensitivity to
  *replacing* one record, the neighbouring notion MIP's half-splits use), divided by
  m, T steps. Per-example norms need only ``x^T A x`` and ``||x||^2``:
  ``||A - x x^T||_F^2 = ||A||_F^2 - 2 x^T A x + ||x||^4``, and ``x^T A x`` is the dot of A
  with the row's outer product, so all trajectories (every eta, both calibrations,
  and the z = 0 clipped run) share each pass over the data.
  z is calibrated for each target eta two ways:

  - ``"paper"``: eta -> epsilon by inverting Theorem 4 at delta (default 1e-6; the
    paper does not state its delta), then the Gaussian noise that makes the T-step
    composition (epsilon, delta)-DP. T full-batch Gaussian steps with noise
    multiplier z compose to one Gaussian mechanism with multiplier z/sqrt(T), so
    ``z = sqrt(T) * dp_accounting.gaussian_mechanism.get_sigma_gaussian(epsilon, delta)``.
  - ``"tight"``: the composition is mu-GDP with ``mu = sqrt(T)/z``; a mu-GDP mechanism is
    eta-MIP with ``eta = Phi(mu/2) - 1/2`` (the optimal test between N(0,1) and N(mu,1)
    at prior 1/2, carried to MIP by the injective pairing of Theorem 4's proof), so
    ``mu = 2 Phi^{-1}(1/2 + eta)``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from .._validate import as_generator, check_int, check_range
from ..bounds import epsilon_from_eta
from ..covariance_gd import gd_closed_form, make_sigma, outer_products, sample_data
from ..mechanism import RADIUS_VARIANTS, sample_noise
from ..noise import COROLLARY14_CONSTANT, mip_noise_multiplier

__all__ = [
    "CALIBRATIONS",
    "CLIP_RULES",
    "PRESETS",
    "ExperimentConfig",
    "Verdict",
    "clip_norm",
    "dp_label",
    "dp_noise_multiplier",
    "dpsgd",
    "gdp_eta",
    "half_split_grams",
    "mip_label",
    "mip_label_parts",
    "paper_claims",
    "run_experiment",
    "summarize",
]

CLIP_RULES = ("initial_median", "trajectory_median", "fixed")
CALIBRATIONS = ("paper", "tight")


@dataclass(frozen=True)
class ExperimentConfig:
    """Every parameter of the Section 5.2 experiment (see the module docstring)."""

    d: int = 3
    n: int = 20_000
    seed: int = 0
    B: int = 128
    R: int = 3
    Ms: tuple[int, ...] = (2, 4, 6)
    etas: tuple[float, ...] = tuple(float(x) for x in np.linspace(0.01, 0.45, 15))
    delta: float = 1e-6
    T: int = 20
    lr: float = 0.25
    clip_rule: str = "initial_median"
    clip_value: float | None = None
    calibrations: tuple[str, ...] = CALIBRATIONS
    radii: tuple[str, ...] = RADIUS_VARIANTS
    constant: float = COROLLARY14_CONSTANT

    def validated(self) -> ExperimentConfig:
        check_int("d", self.d, 1, 20)
        check_int("n", self.n, 8, 5_000_000)
        check_int("seed", self.seed, 0, 2**32 - 1)
        check_int("B", self.B, 2, 4096)
        check_int("R", self.R, 1, 100)
        if not self.Ms:
            raise ValueError("Ms=() is empty: choose at least one moment order M >= 2")
        for M in self.Ms:
            check_int("M", M, 2, 64)
        if not self.etas:
            raise ValueError("etas=() is empty: choose at least one eta")
        check_range("etas", np.asarray(self.etas), 0.0, 0.5, lo_open=True, hi_open=True)
        check_range("delta", self.delta, 0.0, 1.0, lo_open=True, hi_open=True)
        if any(e < self.delta / 2 for e in self.etas):
            raise ValueError(
                f"etas must be >= delta/2 = {self.delta / 2:g} for the paper calibration"
            )
        check_int("T", self.T, 1, 10_000)
        check_range("lr", self.lr, 0.0, 0.5, lo_open=True)
        if self.clip_rule not in CLIP_RULES:
            raise ValueError(f"clip_rule={self.clip_rule!r} is not one of {CLIP_RULES}")
        if self.clip_rule == "fixed":
            if self.clip_value is None:
                raise ValueError(
                    "clip_value=None: the 'fixed' clipping rule needs a clip_value > 0"
                )
            check_range("clip_value", self.clip_value, 0.0, math.inf, lo_open=True, hi_open=True)
        for cal in self.calibrations:
            if cal not in CALIBRATIONS:
                raise ValueError(f"calibrations contains {cal!r}, not one of {CALIBRATIONS}")
        for rad in self.radii:
            if rad not in RADIUS_VARIANTS:
                raise ValueError(f"radii contains {rad!r}, not one of {RADIUS_VARIANTS}")
        check_range("constant", self.constant, COROLLARY14_CONSTANT, math.inf)
        return self

    def as_dict(self) -> dict:
        return asdict(self)


PRESETS = {
    "Quick": ExperimentConfig(n=20_000, R=3),
    "Paper": ExperimentConfig(n=500_000, R=10),
}


# --------------------------------------------------------------------------- data and base algorithm


def half_split_grams(P: np.ndarray, B: int, rng, chunk: int = 16) -> np.ndarray:
    """Mean outer product over B uniformly random halves of the rows of P: shape (B, d^2).

    Each half is ``rng.choice(m, floor(m/2), replace=False)`` (drawn in order, one per
    half), and the sums over ``chunk`` halves at a time are one matrix product of their
    0/1 membership matrix with P -- B fits of the base algorithm for the price of a
    few passes over the data.
    """
    gen = as_generator(rng)
    m = P.shape[0]
    h = m // 2
    out = np.empty((B, P.shape[1]))
    mask = np.empty((min(chunk, B), m))
    for start in range(0, B, chunk):
        rows = min(chunk, B - start)
        mask[:rows] = 0.0
        for r in range(rows):
            mask[r, gen.choice(m, h, replace=False)] = 1.0
        out[start : start + rows] = mask[:rows] @ P / h
    return out


# --------------------------------------------------------------------------- DP-SGD


def gdp_eta(mu):
    """MIP level of a mu-GDP mechanism: ``eta = Phi(mu/2) - 1/2``."""
    mu = check_range("mu", mu, 0.0, math.inf)
    return norm.cdf(mu / 2.0) - 0.5


def dp_noise_multiplier(eta: float, T: int, *, route: str = "paper", delta: float = 1e-6) -> float:
    """Noise multiplier z (noise std / sensitivity per step) for T full-batch steps to give eta-MIP.

    ``route="paper"``: epsilon = Theorem 4 inverted at delta, then
    ``z = sqrt(T) * dp_accounting.gaussian_mechanism.get_sigma_gaussian(epsilon, delta)``.
    ``route="tight"``: ``z = sqrt(T)/mu`` with ``mu = 2 Phi^{-1}(1/2 + eta)`` (see module docstring).

    Parameters
    ----------
    eta : ``0 < eta < 1/2`` (and ``eta >= delta/2`` for the paper route).
    T : number of steps, ``T >= 1``.
    route : "paper" or "tight".
    delta : ``0 < delta < 1`` (paper route only).
    """
    e = float(check_range("eta", eta, 0.0, 0.5, lo_open=True, hi_open=True))
    T = check_int("T", T, 1)
    if route == "paper":
        from dp_accounting import gaussian_mechanism

        dl = float(check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
        eps = float(epsilon_from_eta(e, dl))
        return math.sqrt(T) * float(gaussian_mechanism.get_sigma_gaussian(eps, dl))
    if route == "tight":
        mu = 2.0 * norm.ppf(0.5 + e)
        return math.sqrt(T) / mu
    raise ValueError(f"route={route!r} is not one of {CALIBRATIONS}")


def _per_example_norms(P: np.ndarray, x2: np.ndarray, A: np.ndarray) -> np.ndarray:
    """||2(A_k - x_i x_i^T)||_F for every row i and trajectory k: shape (m, K).

    Uses ||A - x x^T||_F^2 = ||A||_F^2 - 2 x^T A x + ||x||^4 with x^T A x = <vec(x x^T), vec(A)>,
    so one (m, d^2) x (d^2, K) product serves every trajectory; the rest is done in place.
    """
    out = P @ A.T  # (m, K): x^T A_k x
    out *= -2.0
    out += np.sum(A * A, axis=1)[None, :]
    out += (x2 * x2)[:, None]
    np.maximum(out, 0.0, out=out)
    np.sqrt(out, out=out)
    out *= 2.0
    return out


def clip_norm(
    P: np.ndarray, x2: np.ndarray, *, rule: str, T: int, lr: float, value: float | None = None
) -> float:
    """The clipping threshold C by rule.

    ``"initial_median"``: median unclipped per-example gradient norm at A = 0 (= 2||x||^2);
    ``"trajectory_median"``: median over all rows and all T steps of the non-private GD
    trajectory (the paper's reading of Abadi et al.'s advice); ``"fixed"``: ``value``.
    """
    if rule == "initial_median":
        return float(np.median(2.0 * x2))  # ||2(0 - x x^T)||_F = 2 ||x||^2
    if rule == "trajectory_median":
        S = P.mean(axis=0)
        steps = np.array([(1.0 - (1.0 - 2.0 * lr) ** t) for t in range(T)])  # A_t for t = 0..T-1
        return float(np.median(_per_example_norms(P, x2, steps[:, None] * S[None, :])))
    if rule == "fixed":
        if value is None or not value > 0:
            raise ValueError(f"clip_value={value!r} must be > 0 for the fixed rule")
        return float(value)
    raise ValueError(f"clip_rule={rule!r} is not one of {CLIP_RULES}")


def dpsgd(
    P: np.ndarray, x2: np.ndarray, zs: Sequence[float], *, C: float, T: int, lr: float, rng
) -> np.ndarray:
    """Full-batch DP-SGD trajectories for several noise multipliers at once.

    Parameters
    ----------
    P : (m, d^2) per-row outer products of the training rows; x2 : (m,) their ``||x||^2``.
    zs : K noise multipliers (0 gives the clipped, non-private run).
    C : clipping norm (``inf`` disables clipping); T : steps; lr : learning rate.
    rng : Generator or seed for the Gaussian noise.

    Returns
    -------
    (K, d^2) final A for each z (flattened).
    """
    gen = as_generator(rng)
    z = np.asarray(zs, dtype=float)
    if math.isinf(C) and np.any(z > 0):
        raise ValueError(
            f"C={C!r} (no clipping) has unbounded sensitivity: noise multipliers z > 0 "
            "need a finite clipping norm C"
        )
    m, dd = P.shape
    A = np.zeros((z.size, dd))
    x4 = x2 * x2
    rows = max(4096, 2**21 // max(z.size, 1))  # (rows, K) blocks: bounded memory, long BLAS runs
    for _ in range(T):
        if math.isinf(C):
            w_sum = np.full(z.size, float(m))
            wP = np.broadcast_to(P.sum(axis=0), (z.size, dd))
        else:
            w_sum = np.zeros(z.size)
            wP = np.zeros((z.size, dd))
            a2 = np.sum(A * A, axis=1)
            for start in range(0, m, rows):
                Pc = P[start : start + rows]
                w = Pc @ A.T  # x^T A_k x, then in place: the clipping weights min(1, C/||g||)
                w *= -2.0
                w += a2[None, :]
                w += x4[start : start + rows, None]
                np.maximum(w, 0.0, out=w)
                np.sqrt(w, out=w)
                w *= 2.0
                np.maximum(w, 1e-300, out=w)
                np.divide(C, w, out=w)
                np.minimum(w, 1.0, out=w)
                w_sum += w.sum(axis=0)
                wP += w.T @ Pc
        # sum_i w_ik * 2 (A_k - x_i x_i^T) = 2 (A_k sum_i w_ik - sum_i w_ik x_i x_i^T)
        grad_sum = 2.0 * (A * w_sum[:, None] - wP)
        noise = (
            gen.standard_normal((z.size, dd)) * (z * 2.0 * (0.0 if math.isinf(C) else C))[:, None]
        )
        A = A - lr * (grad_sum + noise) / m
    return A


# --------------------------------------------------------------------------- the experiment


def _rel_error(A_flat: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    return np.linalg.norm(A_flat - sigma.ravel()[None, :], axis=-1) / np.linalg.norm(sigma)


def run_experiment(
    config: ExperimentConfig, progress: Callable[[float, str], None] | None = None
) -> pd.DataFrame:
    """Run every method over R runs and the eta grid; a tidy DataFrame of relative errors.

    Columns: ``run``, ``eta``, ``method`` ("Raw", "MIP", "DP-SGD", "DP-SGD z=0 (clipping only)"),
    ``M``, ``radius``, ``calibration``, ``z``, ``C``, ``rel_error``. Deterministic given
    ``config.seed`` (run r uses the seed sequence ``(seed, r)``). ``progress(fraction,
    message)`` is called halfway through each run (after the MIP part) and after it, with
    a non-decreasing fraction, if given.
    """
    cfg = config.validated()
    sigma = make_sigma(cfg.d, cfg.seed)
    etas = np.asarray(cfg.etas, dtype=float)
    zs = {
        cal: np.array([dp_noise_multiplier(e, cfg.T, route=cal, delta=cfg.delta) for e in etas])
        for cal in cfg.calibrations
    }
    rows: list[dict] = []
    for run in range(cfg.R):
        gen = np.random.default_rng([cfg.seed, run])
        X = sample_data(sigma, cfg.n, gen)
        train = np.sort(gen.permutation(cfg.n)[: cfg.n // 2])
        P = outer_products(X[train])
        x2 = np.einsum("ij,ij->i", X[train], X[train])
        S = P.mean(axis=0)
        A_raw = gd_closed_form(S, cfg.T, cfg.lr)
        raw_err = float(_rel_error(A_raw[None, :], sigma)[0])
        rows += [
            dict(
                run=run,
                eta=e,
                method="Raw",
                M=None,
                radius=None,
                calibration=None,
                z=None,
                C=None,
                rel_error=raw_err,
            )
            for e in etas
        ]

        # MIP: sigma_i from B half-splits of the training set (GD output is linear in S)
        thetas = gd_closed_form(half_split_grams(P, cfg.B, gen), cfg.T, cfg.lr)
        dev = np.abs(thetas - thetas.mean(axis=0))
        for M in cfg.Ms:
            sig_M = np.mean(dev**M, axis=0) ** (1.0 / M)
            live = sig_M > 0
            # One draw per eta: X = r U with r ~ Gamma(d, c) or Laplace(c) scales linearly in
            # c, so a draw at the reference multiplier scaled by c(eta)/c_ref has the law at eta.
            c_eta = np.asarray(mip_noise_multiplier(etas, M, cfg.constant))
            for radius in cfg.radii:
                noise = np.zeros((etas.size, A_raw.size))
                if live.any():
                    unit = sample_noise(
                        sig_M[live],
                        0.5,
                        M,
                        size=etas.size,
                        rng=gen,
                        constant=cfg.constant,
                        calibration=radius,
                    )
                    noise[:, live] = (
                        unit * (c_eta / float(mip_noise_multiplier(0.5, M, cfg.constant)))[:, None]
                    )
                errs_mip = _rel_error(A_raw[None, :] + noise, sigma)
                rows += [
                    dict(
                        run=run,
                        eta=e,
                        method="MIP",
                        M=M,
                        radius=radius,
                        calibration=None,
                        z=None,
                        C=None,
                        rel_error=float(err),
                    )
                    for e, err in zip(etas, errs_mip, strict=True)
                ]

        # DP-SGD: every calibration's trajectories and the z = 0 clipped run share the passes
        if progress is not None:  # about half of a run's time is spent before this point
            progress((run + 0.5) / cfg.R, f"run {run + 1} of {cfg.R}: MIP done, DP-SGD running")
        C = clip_norm(P, x2, rule=cfg.clip_rule, T=cfg.T, lr=cfg.lr, value=cfg.clip_value)
        all_z = np.concatenate([[0.0]] + [zs[cal] for cal in cfg.calibrations])
        finals = dpsgd(P, x2, all_z, C=C, T=cfg.T, lr=cfg.lr, rng=gen)
        errs = _rel_error(finals, sigma)
        rows += [
            dict(
                run=run,
                eta=e,
                method="DP-SGD z=0 (clipping only)",
                M=None,
                radius=None,
                calibration=None,
                z=0.0,
                C=C,
                rel_error=float(errs[0]),
            )
            for e in etas
        ]
        k = 1
        for cal in cfg.calibrations:
            for i, e in enumerate(etas):
                rows.append(
                    dict(
                        run=run,
                        eta=e,
                        method="DP-SGD",
                        M=None,
                        radius=None,
                        calibration=cal,
                        z=float(zs[cal][i]),
                        C=C,
                        rel_error=float(errs[k]),
                    )
                )
                k += 1
        if progress is not None:
            progress((run + 1) / cfg.R, f"run {run + 1} of {cfg.R} done")
    return pd.DataFrame(rows)


_RADIUS_LABEL = {"gamma": "Gamma radius, Thm 9", "as_printed": "Laplace radius, as printed"}
_MIP_LABEL = re.compile(r"MIP M=(\d+) \((.+)\)")


def mip_label(M: int, radius: str) -> str:
    """The curve label of MIP with moment order M and a radius law, e.g. "MIP M=4 (Gamma radius, Thm 9)"."""
    if radius not in _RADIUS_LABEL:
        raise ValueError(f"radius={radius!r} is not one of {RADIUS_VARIANTS}")
    return f"MIP M={int(M)} ({_RADIUS_LABEL[radius]})"


def mip_label_parts(label: str) -> tuple[int, str] | None:
    """``(M, radius)`` of a label made by :func:`mip_label`, or None for any other curve."""
    m = _MIP_LABEL.fullmatch(label)
    if m is None:
        return None
    radius = next((k for k, v in _RADIUS_LABEL.items() if v == m.group(2)), None)
    return None if radius is None else (int(m.group(1)), radius)


def dp_label(calibration: str) -> str:
    """The curve label of DP-SGD with a calibration, e.g. "DP-SGD (paper calibration)"."""
    return f"DP-SGD ({calibration} calibration)"


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error of the mean over runs, per method/variant and eta.

    Adds a ``label`` column naming the curve (:func:`mip_label`, :func:`dp_label`, or the
    method's name).
    """
    df = results.copy()

    def label(r):
        if r["method"] == "MIP":
            return mip_label(r["M"], r["radius"])
        if r["method"] == "DP-SGD":
            return dp_label(r["calibration"])
        return r["method"]

    df["label"] = df.apply(label, axis=1)
    g = df.groupby(["label", "method", "eta"], dropna=False)["rel_error"]
    out = g.agg(
        mean="mean",
        sem=lambda s: s.std(ddof=1) / math.sqrt(len(s)) if len(s) > 1 else 0.0,
        runs="count",
    ).reset_index()
    return out.sort_values(["label", "eta"]).reset_index(drop=True)


@dataclass(frozen=True)
class Verdict:
    """One claim of the paper's Figure 2 text, judged on one variant of this run."""

    claim: str
    variant: str
    holds: bool
    evidence: str


def paper_claims(
    summary: pd.DataFrame, Ms: Sequence[int], radii: Sequence[str], calibrations: Sequence[str]
) -> list[Verdict]:
    """Evaluate the four claims of Section 5.2 on a summary from :func:`summarize`.

    1. "For eta >= 0.1, MIP with every tested M beats DP."
    2. "MIP with M in {4, 6} beats DP over the whole eta range."
    3. "DP never gets relative error below 1."
    4. "MIP gets relative error below 1 from eta ~ 0.2 on." (judged true when, for some M,
       the smallest eta from which MIP's mean error stays below 1 is in [0.1, 0.3]).
    Every radius variant is judged against every DP calibration; means are compared.
    """

    def curve(label):
        c = summary[summary["label"] == label].set_index("eta")["mean"]
        return c.sort_index()

    verdicts: list[Verdict] = []
    rad_name = {"gamma": "Gamma radius (Theorem 9)", "as_printed": "Laplace radius (as printed)"}
    for radius in radii:
        mip = {M: curve(mip_label(M, radius)) for M in Ms}
        for cal in calibrations:
            dp = curve(dp_label(cal))
            variant = f"{rad_name[radius]} vs DP-SGD ({cal})"
            # claim 1
            bad = [
                (M, e) for M in Ms for e in dp.index if e >= 0.1 - 1e-12 and not mip[M][e] < dp[e]
            ]
            verdicts.append(
                Verdict(
                    "For η ≥ 0.1, MIP with every tested M beats DP.",
                    variant,
                    not bad,
                    "MIP is better at every η ≥ 0.1 for every M."
                    if not bad
                    else "Not at "
                    + ", ".join(f"M={M}, η={e:.3g}" for M, e in bad[:4])
                    + ("…" if len(bad) > 4 else "")
                    + ".",
                )
            )
            # claim 2
            ms46 = [M for M in Ms if M in (4, 6)]
            if ms46:
                bad2 = [(M, e) for M in ms46 for e in dp.index if not mip[M][e] < dp[e]]
                verdicts.append(
                    Verdict(
                        "MIP with M ∈ {4, 6} beats DP over the whole η range.",
                        variant,
                        not bad2,
                        "Better at every η of the grid."
                        if not bad2
                        else "Not at "
                        + ", ".join(f"M={M}, η={e:.3g}" for M, e in bad2[:4])
                        + ("…" if len(bad2) > 4 else "")
                        + ".",
                    )
                )
            # claim 3 (independent of the MIP radius, but listed per variant for a complete table)
            below = [e for e in dp.index if dp[e] < 1.0]
            verdicts.append(
                Verdict(
                    "DP never gets relative error below 1.",
                    variant,
                    not below,
                    f"DP's smallest mean error is {dp.min():.3g}."
                    + (f" Below 1 from η = {min(below):.3g}." if below else ""),
                )
            )
            # claim 4
            starts = {}
            for M in Ms:
                c = mip[M]
                ok = c < 1.0
                start = None
                for e in sorted(c.index, reverse=True):
                    if ok[e]:
                        start = e
                    else:
                        break
                starts[M] = start
            holds4 = any(s is not None and 0.1 <= s <= 0.3 for s in starts.values())
            ev = "; ".join(
                f"M={M}: "
                + (
                    f"below 1 from η = {s:.3g}"
                    if s is not None
                    else "never below 1 at the top of the grid"
                )
                for M, s in starts.items()
            )
            verdicts.append(
                Verdict(
                    "MIP gets relative error below 1 from η ≈ 0.2 on.", variant, holds4, ev + "."
                )
            )
    return verdicts
