r"""A real model to audit: an MLP on half of the digits, without and with DP-SGD, attacked.

Data
----
scikit-learn's bundled ``load_digits`` (1 797 images of 8×8 pixels, 10 classes; no
download), pixels scaled to [0, 1]. Every record is a member -- trained on -- by an
independent fair coin, so the training set is a random half in expectation (about 900
records). Independent coins rather than an exact half: then the one-run audit of Steinke,
Nasr and Jagielski (:func:`mipcore.score_audit.one_run_from_scores`) applies to the scores
exactly, every record being one of its canaries; the non-members are the test set.

Model and training
------------------
A one-hidden-layer perceptron (64 inputs, ``hidden`` tanh units, 10 softmax outputs, with
biases), trained by minibatch SGD on the cross-entropy. Each step draws a Poisson sample
(every member independently with probability q) and divides the summed gradient by the
constant q·N/2 (N = 1 797; the expected batch of a half) rather than by the batch's size,
so that the step does not depend on how many records were drawn. Two runs on the same
members:

* :data:`NON_DP` -- no clipping, no noise: 1 000 steps at q = 0.1 (about 100 epochs),
  learning rate 0.5, 64 hidden units; it fits its members (training accuracy about 100 %).
* :data:`DP_SGD` -- DP-SGD (Abadi et al.): each example's gradient clipped to L2 norm
  C = 1 (the norm of the whole gradient, both layers and biases, computed exactly from
  ``‖x‖·‖δ‖`` per layer, Goodfellow's trick: no per-example gradient is stored), Gaussian
  noise of standard deviation σC with noise multiplier σ = 3 added to the clipped sum at
  every step, q = 0.05, 300 steps, learning rate 0.25, 64 hidden units.

Guarantee of the DP model
-------------------------
:func:`mipcore.guarantees.attacker_bound` of ``DpSgd(σ, q, T)``: ``dp_accounting``'s PLD
accountant for the **replace-one** relation, MIP's (README notes 13 and 20): ε at
δ = 10⁻⁵ and η. Because the gradient sum is divided by a constant, a member whose clipped
gradient were always 0 would change nothing, so removing a record is replacing it by such a
record: the replace-one (ε, δ) also holds for add/remove, the relation of Steinke et al.'s
one-run audit. The accounting covers every iterate, so every score below is
post-processing.

Attacks
-------
* Loss threshold (Yeom et al.): the score is ``log p_y(x)``, minus the cross-entropy loss;
  higher means "member".
* LiRA, online with global variances (Carlini, Chien, Nasr, Song, Terzis, Tramèr,
  *Membership Inference Attacks From First Principles*, IEEE S&P 2022, arXiv:2112.03570,
  Section IV): ``shadows`` models trained by the same procedure (the DP target's shadows with
  DP-SGD) on halves of the same 1 797 records drawn so that each record is in exactly half of
  them; the statistic is the logit-scaled confidence ``φ = log(p_y/(1 − p_y))``; per record,
  the mean of φ over the shadows that trained on it (μ_in) and over those that did not
  (μ_out), with one variance for all records on each side (the paper's choice with few
  shadows); the score is ``log N(φ; μ_in, σ²_in) − log N(φ; μ_out, σ²_out)``. The shadows
  never see the target's coins, so the scores stay valid guesses for the one-run audit.

Time: both targets and 2 × 16 shadows in about 3 s on one core of a 2-core machine (3.2 s
measured, one BLAS thread; ``benchmarks/score_audit.py``).

References
----------
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang. *Deep Learning with Differential
  Privacy*. CCS 2016, arXiv:1607.00133.
- Goodfellow. *Efficient Per-Example Gradient Computations*. 2015, arXiv:1510.01799.
- Yeom, Giacomelli, Fredrikson, Jha. *Privacy Risk in Machine Learning: Analyzing the
  Connection to Overfitting*. CSF 2018, arXiv:1709.01604.
- Carlini, Chien, Nasr, Song, Terzis, Tramèr. *Membership Inference Attacks From First
  Principles*. IEEE S&P 2022, arXiv:2112.03570.
- Steinke, Nasr, Jagielski. *Privacy Auditing with One (1) Training Run*. NeurIPS 2023,
  arXiv:2305.08846.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from .._validate import as_generator, check_int, check_range
from ..guarantees import REFERENCE_DELTA, AttackerBound, DpSgd, Route, attacker_bound

__all__ = [
    "DELTA",
    "DP_SGD",
    "NON_DP",
    "ONE_RUN_GUESSES",
    "SHADOWS",
    "AttackedModel",
    "DpGuarantee",
    "TrainedModelExample",
    "TrainingConfig",
    "load_data",
    "run_trained_model_example",
]

#: ``progress(fraction, message)``, as :func:`appkit.jobs.run` passes it.
Progress = Callable[[float, str], None]

#: Shadow models per target (each record is in exactly half of them).
SHADOWS = 16
#: The δ at which the DP model's ε is stated (and audited): the guarantees' 1e-5.
DELTA = REFERENCE_DELTA
#: The one-run audit's guesses ("in" for the 25 highest scores, "out" for the 25 lowest),
#: fixed before any result was seen.
ONE_RUN_GUESSES = (25, 25)
_N_CLASSES = 10


@dataclass(frozen=True)
class TrainingConfig:
    """How one model is trained (see the module docstring).

    ``hidden``: tanh units, ``1 <= hidden <= 512``; ``steps``: ``1 <= steps <= 10000``;
    ``learning_rate > 0``; ``sampling_rate``: Poisson rate q, ``0 < q <= 1``; ``clip_norm``:
    the per-example L2 clipping norm C, or None for no clipping (and then no noise);
    ``noise_multiplier``: σ ``>= 0``, the noise's standard deviation over C.
    """

    hidden: int
    steps: int
    learning_rate: float
    sampling_rate: float
    clip_norm: float | None = None
    noise_multiplier: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden", check_int("hidden", self.hidden, 1, 512))
        object.__setattr__(self, "steps", check_int("steps", self.steps, 1, 10_000))
        lr = check_range("learning_rate", self.learning_rate, 0.0, 100.0, lo_open=True)
        object.__setattr__(self, "learning_rate", float(lr))
        q = check_range("sampling_rate", self.sampling_rate, 0.0, 1.0, lo_open=True)
        object.__setattr__(self, "sampling_rate", float(q))
        if self.clip_norm is not None:
            c = check_range("clip_norm", self.clip_norm, 0.0, 1e6, lo_open=True)
            object.__setattr__(self, "clip_norm", float(c))
        s = check_range("noise_multiplier", self.noise_multiplier, 0.0, 1e6)
        object.__setattr__(self, "noise_multiplier", float(s))
        if self.clip_norm is None and self.noise_multiplier > 0:
            raise ValueError(
                f"noise_multiplier={self.noise_multiplier!r} needs a clip_norm: the noise's "
                "standard deviation is noise_multiplier × clip_norm"
            )

    @property
    def private(self) -> bool:
        """Whether this is DP-SGD (clipping and noise), which has a guarantee."""
        return self.clip_norm is not None and self.noise_multiplier > 0


#: The model without DP.
NON_DP = TrainingConfig(hidden=64, steps=1000, learning_rate=0.5, sampling_rate=0.1)
#: The model with DP-SGD: σ = 3, q = 0.05, T = 300, C = 1 (ε ≈ 2.3 at δ = 1e-5, replace-one).
DP_SGD = TrainingConfig(
    hidden=64,
    steps=300,
    learning_rate=0.25,
    sampling_rate=0.05,
    clip_norm=1.0,
    noise_multiplier=3.0,
)


@dataclass(frozen=True)
class AttackedModel:
    """One target model and its attack scores (one per record of the 1 797).

    ``train_accuracy``/``test_accuracy``: on the members / the non-members.
    ``loss_scores``: ``log p_y(x)`` (minus the loss); ``lira_scores``: online LiRA's
    log-likelihood ratio; for both, higher means "member". ``seconds``: the target's and its
    shadows' training and the attack.
    """

    config: TrainingConfig
    train_accuracy: float
    test_accuracy: float
    loss_scores: NDArray[np.float64] = field(repr=False)
    lira_scores: NDArray[np.float64] = field(repr=False)
    seconds: float


@dataclass(frozen=True)
class DpGuarantee:
    """The DP model's guarantee, replace-one (MIP's relation), from ``dp_accounting``'s PLD.

    ``epsilon`` at ``delta``; ``eta``: the η-MIP level (the best attacker's accuracy is at
    most 1/2 + η); ``bound``: the whole :class:`~mipcore.guarantees.AttackerBound` (the ROC
    region a page draws).
    """

    epsilon: float
    delta: float
    eta: float
    noise_multiplier: float
    sampling_rate: float
    steps: int
    bound: AttackerBound = field(repr=False, compare=False)


@dataclass(frozen=True)
class TrainedModelExample:
    """Result of :func:`run_trained_model_example`.

    ``member``: the coins (True = trained on), one per record; ``non_dp``/``dp``: the two
    targets with their scores; ``guarantee``: the DP model's; ``shadows``: per target;
    ``seconds``: the whole run (targets, shadows, attacks, accountant).
    """

    member: NDArray[np.bool_] = field(repr=False)
    non_dp: AttackedModel
    dp: AttackedModel
    guarantee: DpGuarantee
    shadows: int
    seconds: float


def load_data() -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``load_digits`` as ``(X, y)``: 1 797 × 64 pixels scaled to [0, 1], labels 0–9."""
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    return np.asarray(x, dtype=np.float64) / 16.0, np.asarray(y, dtype=np.int64)


def _logits(
    w1: NDArray[np.float64], w2: NDArray[np.float64], x1: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Hidden activations with a bias column, and the logits, for inputs with a bias column."""
    h = np.tanh(x1 @ w1)
    h1 = np.hstack((h, np.ones((h.shape[0], 1))))
    return h1, h1 @ w2


def _gradient_sum(
    w1: NDArray[np.float64],
    w2: NDArray[np.float64],
    xb: NDArray[np.float64],
    yb: NDArray[np.float64],
    clip: float | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Sum over the batch of each example's cross-entropy gradient, clipped to norm ``clip``.

    ``xb`` has a bias column, ``yb`` is one-hot. Example i's gradient is the pair of outer
    products ``x_i d1_iᵀ`` (first layer) and ``h_i d2_iᵀ`` (second), so its squared L2 norm is
    ``‖x_i‖²‖d1_i‖² + ‖h_i‖²‖d2_i‖²``; clipping scales ``d1_i`` and ``d2_i`` by
    ``min(1, clip/norm_i)`` before the sums ``Xᵀ D1`` and ``Hᵀ D2``.
    """
    h = w1.shape[1]
    h1, z = _logits(w1, w2, xb)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    d2 = p - yb  # ∂loss/∂logits
    d1 = (d2 @ w2[:h].T) * (1.0 - h1[:, :h] ** 2)  # ∂loss/∂(pre-activations)
    if clip is not None:
        norm2 = np.einsum("ij,ij->i", xb, xb) * np.einsum("ij,ij->i", d1, d1)
        norm2 += np.einsum("ij,ij->i", h1, h1) * np.einsum("ij,ij->i", d2, d2)
        factor = np.minimum(1.0, clip / np.sqrt(np.maximum(norm2, 1e-300)))
        d1 = d1 * factor[:, None]
        d2 = d2 * factor[:, None]
    return xb.T @ d1, h1.T @ d2


def _train(
    x1: NDArray[np.float64],
    onehot: NDArray[np.float64],
    members: NDArray[np.int64],
    config: TrainingConfig,
    gen: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Train on ``members`` (row indices of ``x1``, which has a bias column); return the weights.

    Draws, in this order: the initial weights, then per step the Poisson batch and (DP-SGD) the
    noise. The step is ``learning_rate × (clipped sum + noise) / (q·N/2)``, N = len(x1).
    """
    d, h = x1.shape[1], config.hidden
    w1 = gen.normal(0.0, 1.0 / math.sqrt(d), (d, h))
    w2 = gen.normal(0.0, 1.0 / math.sqrt(h + 1), (h + 1, _N_CLASSES))
    q, c, sigma = config.sampling_rate, config.clip_norm, config.noise_multiplier
    scale = config.learning_rate / (q * x1.shape[0] / 2.0)
    for _ in range(config.steps):
        batch = members[gen.random(members.size) < q]
        g1, g2 = _gradient_sum(w1, w2, x1[batch], onehot[batch], c)
        if sigma > 0.0 and c is not None:
            g1 += sigma * c * gen.standard_normal(g1.shape)
            g2 += sigma * c * gen.standard_normal(g2.shape)
        w1 -= scale * g1
        w2 -= scale * g2
    return w1, w2


def _log_probs(
    z: NDArray[np.float64], y: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log p_y`` and ``φ = log(p_y/(1 − p_y)) = z_y − logsumexp_{j≠y} z_j``, stably."""
    rows = np.arange(y.size)
    zy = z[rows, y]
    others = z.copy()
    others[rows, y] = -np.inf
    top = others.max(axis=1)
    lse_others = top + np.log(np.exp(others - top[:, None]).sum(axis=1))
    return zy - np.logaddexp(zy, lse_others), zy - lse_others


def _lira(
    phi: NDArray[np.float64], shadow_phi: NDArray[np.float64], keep: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Online LiRA with global variances: log N(φ; μ_in, σ_in²) − log N(φ; μ_out, σ_out²)."""
    n_in = keep.sum(axis=0)
    mu_in = np.where(keep, shadow_phi, 0.0).sum(axis=0) / n_in
    mu_out = np.where(~keep, shadow_phi, 0.0).sum(axis=0) / (keep.shape[0] - n_in)
    s_in = max(float(np.std((shadow_phi - mu_in)[keep])), 1e-12)
    s_out = max(float(np.std((shadow_phi - mu_out)[~keep])), 1e-12)
    return (
        -0.5 * ((phi - mu_in) / s_in) ** 2
        - math.log(s_in)
        + 0.5 * ((phi - mu_out) / s_out) ** 2
        + math.log(s_out)
    )


def _attacked(
    x1: NDArray[np.float64],
    y: NDArray[np.int64],
    member: NDArray[np.bool_],
    keep: NDArray[np.bool_],
    config: TrainingConfig,
    gen: np.random.Generator,
    tick: Callable[[str], None],
) -> AttackedModel:
    start = time.perf_counter()
    onehot = np.eye(_N_CLASSES)[y]
    z = _logits(*_train(x1, onehot, np.flatnonzero(member), config, gen), x1)[1]
    tick("target")
    log_py, phi = _log_probs(z, y)
    shadow_phi = np.empty((keep.shape[0], y.size))
    for j in range(keep.shape[0]):
        w = _train(x1, onehot, np.flatnonzero(keep[j]), config, gen)
        shadow_phi[j] = _log_probs(_logits(*w, x1)[1], y)[1]
        tick(f"shadow {j + 1} of {keep.shape[0]}")
    right = z.argmax(axis=1) == y
    return AttackedModel(
        config=config,
        train_accuracy=float(right[member].mean()),
        test_accuracy=float(right[~member].mean()),
        loss_scores=log_py,
        lira_scores=_lira(phi, shadow_phi, keep),
        seconds=time.perf_counter() - start,
    )


def run_trained_model_example(
    *,
    rng: np.random.Generator | int = 0,
    shadows: int = SHADOWS,
    non_dp: TrainingConfig = NON_DP,
    dp: TrainingConfig = DP_SGD,
    progress: Progress | None = None,
) -> TrainedModelExample:
    r"""Train the digits MLP without and with DP-SGD on the same random half, and attack both.

    See the module docstring for the data, the training, the guarantee and the attacks.

    Parameters
    ----------
    rng : numpy Generator or int seed ``>= 0`` (default 0). Same seed, same result: the
        members, the shadows' halves, every initialisation, batch and noise draw.
    shadows : int, even, ``4 <= shadows <= 64``: shadow models per target.
    non_dp : TrainingConfig without clipping or noise (default :data:`NON_DP`).
    dp : TrainingConfig with ``clip_norm`` and ``noise_multiplier > 0`` (default
        :data:`DP_SGD`).
    progress : optional ``progress(fraction, message)``, called after every model trained
        and after the accountant.

    Returns
    -------
    TrainedModelExample

    Raises
    ------
    ValueError
        If ``shadows`` is out of range or odd, ``non_dp`` is private, ``dp`` is not, or
        ``rng`` is not a Generator or a non-negative int.

    Examples
    --------
    >>> ex = run_trained_model_example(shadows=4, non_dp=TrainingConfig(16, 50, 0.5, 0.1),
    ...                                dp=TrainingConfig(16, 50, 0.25, 0.05, 1.0, 3.0))
    >>> ex.member.size, ex.non_dp.lira_scores.shape, round(ex.guarantee.epsilon, 2)
    (1797, (1797,), 0.87)
    """
    gen = as_generator(rng)
    s = check_int("shadows", shadows, 4, 64, even=True)
    if not isinstance(non_dp, TrainingConfig) or non_dp.private:
        raise ValueError(f"non_dp={non_dp!r} must be a TrainingConfig without clipping or noise")
    if not isinstance(dp, TrainingConfig) or not dp.private:
        raise ValueError(
            f"dp={dp!r} must be a TrainingConfig with clip_norm and noise_multiplier > 0"
        )
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    total = 2 * (s + 1) + 1
    done = [0]

    def tick(message: str) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0] / total, message)

    x, y = load_data()
    x1 = np.hstack((x, np.ones((x.shape[0], 1))))
    member = gen.random(y.size) < 0.5
    # each record in exactly half of the shadows (Carlini et al.'s design)
    keep = np.argsort(gen.random((s, y.size)), axis=0) < s // 2
    streams = gen.spawn(2)
    with threadpool_limits(limits=1, user_api="blas"):
        plain = _attacked(
            x1, y, member, keep, non_dp, streams[0], lambda m: tick(f"model without DP: {m}")
        )
        private = _attacked(
            x1, y, member, keep, dp, streams[1], lambda m: tick(f"DP-SGD model: {m}")
        )
    assert dp.clip_norm is not None
    bound = attacker_bound(DpSgd(dp.noise_multiplier, dp.sampling_rate, dp.steps))
    eps = next(r.epsilon for r in bound.routes if r.route is Route.SINGLE_POINT)
    assert eps is not None
    tick("accountant")
    guarantee = DpGuarantee(
        epsilon=float(eps),
        delta=DELTA,
        eta=bound.eta,
        noise_multiplier=dp.noise_multiplier,
        sampling_rate=dp.sampling_rate,
        steps=dp.steps,
        bound=bound,
    )
    return TrainedModelExample(
        member=member,
        non_dp=plain,
        dp=private,
        guarantee=guarantee,
        shadows=s,
        seconds=time.perf_counter() - start,
    )
