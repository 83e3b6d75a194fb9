r"""The reference-data experiment: a defense that looks private on D_T can leak D_R.

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira. *A Cautionary Tale: On the Role of
Reference Data in Empirical Privacy Defenses*. PETS 2024, arXiv:2310.12112 -- WERM
(equation (13)), the attacks of Section 2.2.4 / Appendix D.2 and the selection rules of
Table 2, on toy data small enough to run in a page.

Experiment
----------
*Data.* ``sklearn.datasets.make_classification`` (size, dimension, informative features,
classes, class separation and label noise adjustable; one cluster per class), shuffled and
cut into four disjoint parts: the training set D_T, the reference set D_R and two fresh
holdouts from the same distribution -- one for *calibrating* the attacks, one for
*evaluating* them (and for test accuracy, as the paper does, Section 4.2.2). D_T and D_R
are each halved: the first half (``*_calib``) plays the records the attacker already
knows, used only for calibration; the second (``*_eval``) is what the attack is scored on
(the paper's D^adv holds half of the training data, Section 2.2.2). Replicate r of a
sweep uses ``numpy.random.default_rng([seed, r])``: same config, same result.

*Model.* WERM minimises (1−w)·L_{D_T} + w·L_{D_R} through per-sample weights (1−w)/N_T
and w/N_R (which sum to 1). scikit-learn's ``LogisticRegression`` minimises
C·Σᵢ sᵢ ℓᵢ + ½‖β‖² (intercept unpenalised); with these weights that is
C·(L^w_D + (l2/2)‖β‖²) for ``C = 1/l2``: the paper's objective up to the constant C, plus
weight decay l2 (``l2 = 0`` gives ``C = inf``, the objective exactly; it needs
non-separable data to have a minimiser). Beware the usual convention (unit weights): there
the penalty's relative strength 1/(C·N) changes with N, here it does not. The optional
``MLPClassifier`` is fitted full-batch with L-BFGS, whose loss is the weighted *average*
Σ sᵢℓᵢ/Σ sᵢ = L^w_D plus (alpha/2)‖W‖²/Σ sᵢ, so ``alpha = l2`` gives the same objective
(mini-batch solvers would renormalise the weights per batch). Zero-weight records (D_R at
w = 0, D_T at w = 1) are dropped before fitting, so those models do not depend on them.

*Attacks* (black-box, the attacker knows each target's label), each scored on balanced
sets -- k members of the ``*_eval`` half against the first k records of the evaluation
holdout, k = min of the two sizes -- so accuracy is equation (4) of the paper at prior 1/2:

* ``GAP`` -- equation (5): "member" iff the model classifies the record correctly
  (Yeom et al.; no calibration).
* ``CONFIDENCE`` -- equation (6): "member" iff f(x)_y > τ, with τ maximising balanced
  accuracy between the known members (``*_calib``) and the calibration holdout. The
  evaluation data never enter τ.
* ``LOSS`` -- "member" iff the cross-entropy loss ℓ(x, y) ≤ τ_loss, τ_loss = the mean loss
  of the known members (Yeom, Giacomelli, Fredrikson, Jha, *Privacy Risk in Machine
  Learning: Analyzing the Connection to Overfitting*, CSF 2018, arXiv:1709.01604).

Each reports its accuracy with a two-sided Clopper–Pearson interval, its TPR and FPR;
the confidence score additionally gives the TPR at a low FPR, the threshold set on the
calibration holdout so that at most a fraction ``low_fpr`` of it is flagged.

*Empirical privacy.* An accuracy 1/2 + η̂ gives η̂ and the pure ε = log((1+2η̂)/(1−2η̂))
(:func:`mipcore.bounds.epsilon_from_eta`, Theorem 4 of *Provable Membership Inference
Privacy*, Izzo, Yoon, Arık, Zou, TMLR 2024, arXiv:2211.06582): the smallest ε for which
ε-DP would allow that accuracy. Fields named ``*_empirical_lower_bound`` use the one-sided
Clopper–Pearson lower bound on the accuracy instead. These are EMPIRICAL LOWER BOUNDS on
the leakage of *this* procedure, valid for the sampled evaluation records and one fitted
model (the pooled ones for the average over seeds) -- evidence of leakage, never a
guarantee of privacy: a stronger attack may leak more.

Results
-------
:func:`run_sweep` fits every w of the grid on every replicate and returns a
:class:`SweepResult`: per-(w, seed) fits and attacks, per-w aggregates with bands over seeds
and pooled intervals, utility, and the trend verdicts of every attack on both sets. The
picks of Table 2's three rules (:func:`mipcore.reference_data.select_instance`), the view of
an evaluator who looks at training-data leakage only and the paper's other headline claims
are computed from it on demand, for the config's attack and thresholds; :func:`reselect`
changes those without refitting (the fits and attacks do not depend on them).
:func:`sweep_work` and :func:`check_work` say what a sweep asks of a server.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from scipy.special import expit
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.utils.extmath import softmax
from threadpoolctl import threadpool_limits

from .._validate import as_enum, check_int, check_range
from ..audit_stats import clopper_pearson, eta_lower_bound
from ..bounds import epsilon_from_eta
from ..reference_data import (
    Selection,
    SelectionRule,
    effective_sample_size,
    equal_privacy_weight,
    select_instance,
)

__all__ = [
    "WORK_CEILING",
    "WORK_PER_FIT",
    "Attack",
    "AttackOutcome",
    "LeakConfig",
    "LowFprOutcome",
    "ModelAudit",
    "ModelKind",
    "Part",
    "Splits",
    "SweepResult",
    "SweepStopped",
    "Target",
    "TrendTest",
    "TrendVerdict",
    "WermFit",
    "WorkCheck",
    "audit_model",
    "check_work",
    "fit_werm",
    "make_splits",
    "reselect",
    "run_sweep",
    "sweep_work",
    "weight_grid",
    "werm_sample_weights",
]

#: The default grid of reference weights: 0, 0.1, ..., 1.
DEFAULT_WEIGHTS: tuple[float, ...] = tuple(i / 10 for i in range(11))
#: Upper limits a page may not exceed (records in total, features).
MAX_RECORDS = 250_000
MAX_FEATURES = 1_000

#: Work units (see :func:`sweep_work`) one request may ask for, before the server's factor
#: ``MIP_EXPLORER_WORK_LIMIT``. The default sweep asks for 8.0 × 10⁷ (about 1.2 s on a busy
#: 2-core machine); sweeps near the ceiling took 6–20 s there (1000 features: 6 s;
#: 2 × 3000 records: 11 s; overlapping classes need more solver iterations). The sweep's CPU
#: time is mostly its L-BFGS fits: on a 2-core machine at load 4–8, 1.8 s for the default,
#: 3.8 s for 1000 features, 5.8 s for 2 × 3000 records (``benchmarks/reference_data.py``).
WORK_CEILING = 2.5e8
#: Work units charged per fit on top of its records × features: a fit and its audit cost
#: a few tens of milliseconds however small the data (solver set-up, predictions).
WORK_PER_FIT = 500_000


class Attack(Enum):
    """The membership inference attacks of the experiment."""

    GAP = "gap"
    CONFIDENCE = "confidence"
    LOSS = "loss"


class Target(Enum):
    """Whose membership is attacked: the training set D_T or the reference set D_R."""

    TRAIN = "train"
    REFERENCE = "reference"


class ModelKind(Enum):
    """The model WERM trains."""

    LOGISTIC = "logistic"
    MLP = "mlp"


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class LeakConfig:
    """Every parameter of the experiment (see the module docstring).

    Sizes: ``n_train`` (N_T), ``n_ref`` (N_R), ``n_calib`` (attack-calibration holdout),
    ``n_eval`` (evaluation holdout, also the test set). Data: ``n_features``,
    ``n_informative``, ``n_classes``, ``class_sep``, ``flip_y`` (fraction of random
    labels). Sweep: ``weights`` (w grid), ``n_seeds`` replicates from ``seed``. Model:
    ``model``, ``l2`` (weight decay of the normalised objective), ``hidden_layer_sizes``
    (MLP), ``max_iter``, ``tol``. Attacks: ``confidence`` (interval level), ``low_fpr``.
    Rules: ``selection_attack`` (the paper uses the confidence attack) and the thresholds
    ``max_train_attack``, ``max_gap``, ``max_ref_attack``. Verdicts: ``trend_alpha``.
    """

    n_train: int = 600
    n_ref: int = 600
    n_calib: int = 1000
    n_eval: int = 1000
    n_features: int = 300
    n_informative: int = 10
    n_classes: int = 2
    class_sep: float = 0.8
    flip_y: float = 0.1
    weights: tuple[float, ...] = DEFAULT_WEIGHTS
    n_seeds: int = 5
    seed: int = 0
    model: ModelKind = ModelKind.LOGISTIC
    l2: float = 1e-2
    hidden_layer_sizes: tuple[int, ...] = (32,)
    max_iter: int = 1000
    tol: float = 1e-6
    confidence: float = 0.95
    low_fpr: float = 0.05
    selection_attack: Attack = Attack.CONFIDENCE
    max_train_attack: float = 0.51
    max_gap: float = 0.04
    max_ref_attack: float = 0.51
    trend_alpha: float = 0.01

    @property
    def n_total(self) -> int:
        """All records generated per replicate."""
        return self.n_train + self.n_ref + self.n_calib + self.n_eval

    def validated(self) -> LeakConfig:
        """Return self after checking every field; ``ValueError`` naming the first bad one."""
        for name, lo in (("n_train", 20), ("n_ref", 20), ("n_calib", 10), ("n_eval", 10)):
            check_int(name, getattr(self, name), lo, MAX_RECORDS)
        if self.n_total > MAX_RECORDS:
            raise ValueError(
                f"n_train + n_ref + n_calib + n_eval = {self.n_total} is out of range: "
                f"allowed at most {MAX_RECORDS}"
            )
        check_int("n_features", self.n_features, 2, MAX_FEATURES)
        check_int("n_informative", self.n_informative, 1, self.n_features)
        check_int("n_classes", self.n_classes, 2, 20)
        if self.n_classes > 2**self.n_informative:
            raise ValueError(
                f"n_classes={self.n_classes} is out of range for n_informative="
                f"{self.n_informative}: allowed n_classes <= 2**n_informative"
            )
        check_range("class_sep", self.class_sep, 0.0, 100.0, lo_open=True)
        check_range("flip_y", self.flip_y, 0.0, 1.0, hi_open=True)
        if len(self.weights) == 0:
            raise ValueError("weights=() is empty: give at least one w in [0, 1]")
        check_range("weights", np.asarray(self.weights, dtype=float), 0.0, 1.0)
        if len(set(self.weights)) != len(self.weights):
            raise ValueError(f"weights={self.weights!r} contains duplicates")
        if len(self.weights) > 201:
            raise ValueError(f"weights has {len(self.weights)} values: allowed at most 201")
        check_int("n_seeds", self.n_seeds, 1, 100)
        check_int("seed", self.seed, 0, 2**32 - 1)
        for name, kind in (("model", ModelKind), ("selection_attack", Attack)):
            if not isinstance(getattr(self, name), kind):
                raise ValueError(
                    f"{name}={getattr(self, name)!r} is not one of {[m.value for m in kind]}"
                )
        _check_solver(self.l2, self.tol, self.max_iter)
        if not 1 <= len(self.hidden_layer_sizes) <= 5:
            raise ValueError(
                f"hidden_layer_sizes={self.hidden_layer_sizes!r}: allowed 1 to 5 layers"
            )
        for h in self.hidden_layer_sizes:
            check_int("hidden_layer_sizes", h, 1, 1024)
        check_range("confidence", self.confidence, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("low_fpr", self.low_fpr, 0.0, 0.5, lo_open=True)
        for name in ("max_train_attack", "max_gap", "max_ref_attack"):
            check_range(name, getattr(self, name), 0.0, 1.0)
        check_range("trend_alpha", self.trend_alpha, 0.0, 0.5, lo_open=True, hi_open=True)
        return self


def _check_solver(l2: float, tol: float, max_iter: int) -> None:
    check_range("l2", l2, 0.0, math.inf, hi_open=True)
    check_range("tol", tol, 0.0, 1.0, lo_open=True, hi_open=True)
    check_int("max_iter", max_iter, 1, 100_000)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False)
class Part:
    """Records ``X`` (n × d) and their labels ``y`` (n,)."""

    X: NDArray[np.float64]
    y: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.y.shape[0])

    def head(self, k: int) -> Part:
        """The first ``k`` records."""
        return Part(self.X[:k], self.y[:k])

    @staticmethod
    def concat(a: Part, b: Part) -> Part:
        """``a`` followed by ``b``."""
        return Part(np.concatenate([a.X, b.X]), np.concatenate([a.y, b.y]))


@dataclass(frozen=True, eq=False)
class Splits:
    """The six disjoint parts of one replicate.

    D_T = ``train_calib`` + ``train_eval``, D_R = ``ref_calib`` + ``ref_eval``; the
    ``*_calib`` halves are the members the attacker knows (calibration only), the
    ``*_eval`` halves are attacked; ``holdout_calib`` calibrates, ``holdout_eval``
    evaluates (and measures test accuracy).
    """

    train_calib: Part
    train_eval: Part
    ref_calib: Part
    ref_eval: Part
    holdout_calib: Part
    holdout_eval: Part

    @property
    def train(self) -> Part:
        """D_T."""
        return Part.concat(self.train_calib, self.train_eval)

    @property
    def reference(self) -> Part:
        """D_R."""
        return Part.concat(self.ref_calib, self.ref_eval)

    def members(self, target: Target) -> tuple[Part, Part]:
        """(calibration half, evaluation half) of D_T or D_R."""
        if target is Target.TRAIN:
            return self.train_calib, self.train_eval
        return self.ref_calib, self.ref_eval


def make_splits(config: LeakConfig, replicate: int) -> Splits:
    """Generate replicate ``replicate`` of the data and cut it into :class:`Splits`.

    ``make_classification`` (no redundant or repeated features, one cluster per class)
    seeded from ``numpy.random.default_rng([config.seed, replicate])``, then a random
    permutation from the same generator; D_T's and D_R's calibration halves have
    ``n // 2`` records.

    Raises
    ------
    ValueError
        Naming a bad config field or ``replicate`` (``0 <= replicate < 2**32``).
    """
    return _splits(config.validated(), check_int("replicate", replicate, 0, 2**32 - 1))


def _splits(cfg: LeakConfig, rep: int) -> Splits:
    gen = np.random.default_rng([cfg.seed, rep])
    X, y = make_classification(
        n_samples=cfg.n_total,
        n_features=cfg.n_features,
        n_informative=cfg.n_informative,
        n_redundant=0,
        n_repeated=0,
        n_classes=cfg.n_classes,
        n_clusters_per_class=1,
        class_sep=cfg.class_sep,
        flip_y=cfg.flip_y,
        random_state=int(gen.integers(2**31 - 1)),
    )
    order = gen.permutation(cfg.n_total)
    X, y = X[order].astype(np.float64), y[order].astype(np.int64)
    halves = [cfg.n_train // 2, cfg.n_train - cfg.n_train // 2]
    halves += [cfg.n_ref // 2, cfg.n_ref - cfg.n_ref // 2]
    cuts = np.cumsum([0, *halves, cfg.n_calib, cfg.n_eval])
    return Splits(*(Part(X[a:b], y[a:b]) for a, b in itertools.pairwise(cuts)))


# --------------------------------------------------------------------------- WERM


def werm_sample_weights(w: float, n_train: int, n_ref: int) -> NDArray[np.float64]:
    r"""Per-record weights of WERM: (1−w)/N_T for D_T's records, then w/N_R for D_R's.

    With these weights Σᵢ sᵢ ℓᵢ = (1−w)·L_{D_T} + w·L_{D_R} (equation (13)); they sum to 1.

    Examples
    --------
    >>> werm_sample_weights(0.25, 3, 1).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    ww = float(check_range("w", w, 0.0, 1.0))
    nt = check_int("n_train", n_train, 1)
    nr = check_int("n_ref", n_ref, 1)
    return _sample_weights(ww, nt, nr)


def _sample_weights(w: float, nt: int, nr: int) -> NDArray[np.float64]:
    return np.concatenate([np.full(nt, (1.0 - w) / nt), np.full(nr, w / nr)])


@dataclass(frozen=True, eq=False)
class WermFit:
    """A fitted WERM model: the scikit-learn estimator, its w, and whether it converged."""

    estimator: LogisticRegression | MLPClassifier
    w: float
    converged: bool
    n_iter: int


def fit_werm(
    train: Part,
    reference: Part,
    w: float,
    *,
    model: ModelKind = ModelKind.LOGISTIC,
    l2: float = 1e-2,
    tol: float = 1e-6,
    max_iter: int = 1000,
    hidden_layer_sizes: tuple[int, ...] = (32,),
    random_state: int = 0,
) -> WermFit:
    r"""Fit WERM: minimise (1−w)·L_{D_T} + w·L_{D_R} + (l2/2)‖β‖² (equation (13) + weight decay).

    Parameters
    ----------
    train, reference : D_T and D_R (at least one record each).
    w : ``0 <= w <= 1``. Records of weight 0 are dropped before fitting.
    model : ``ModelKind.LOGISTIC`` (L-BFGS, ``C = 1/l2``) or ``ModelKind.MLP``
        (full-batch L-BFGS, ``alpha = l2``, ReLU layers ``hidden_layer_sizes``).
    l2 : ``>= 0``; 0 = no penalty (logistic regression then needs non-separable data).
    tol, max_iter : solver tolerance (``0 < tol < 1``) and iteration cap (``>= 1``).
    random_state : the MLP's initialisation seed (``>= 0``; unused by logistic regression).

    Returns
    -------
    WermFit

    Raises
    ------
    ValueError
        Naming ``w``, ``l2``, ``tol``, ``max_iter``, ``random_state``, ``model``, or
        ``train`` / ``reference`` when the records kept contain a single class.

    Examples
    --------
    >>> splits = make_splits(LeakConfig(n_train=40, n_ref=40, n_calib=20, n_eval=20), 0)
    >>> fit = fit_werm(splits.train, splits.reference, 0.5)
    >>> fit.converged, fit.estimator.coef_.shape
    (True, (1, 300))
    """
    ww = float(check_range("w", w, 0.0, 1.0))
    _check_solver(l2, tol, max_iter)
    rs = check_int("random_state", random_state, 0, 2**32 - 1)
    if not isinstance(model, ModelKind):
        raise ValueError(f"model={model!r} is not one of {[m.value for m in ModelKind]}")
    if len(train) < 1 or len(reference) < 1:
        raise ValueError(
            f"train has {len(train)} and reference {len(reference)} records: need at least 1 each"
        )
    solver = (model, float(l2), float(tol), int(max_iter), hidden_layer_sizes)
    with _one_blas_thread():
        return _fit(train, reference, ww, *solver, rs)


def _one_blas_thread() -> Any:
    """Limit BLAS to one thread while fitting and scoring (see :func:`run_sweep`'s Notes)."""
    return threadpool_limits(limits=1, user_api="blas")


def _fit(
    train: Part,
    reference: Part,
    w: float,
    model: ModelKind,
    l2: float,
    tol: float,
    max_iter: int,
    hidden_layer_sizes: tuple[int, ...],
    random_state: int,
) -> WermFit:
    """:func:`fit_werm` on checked inputs (the sweep's come from a validated config)."""
    sw = _sample_weights(w, len(train), len(reference))
    X = np.concatenate([train.X, reference.X])
    y = np.concatenate([train.y, reference.y])
    keep = sw > 0.0
    X, y, sw = X[keep], y[keep], sw[keep]
    if np.unique(y).size < 2:
        name = "reference" if w == 1.0 else "train" if w == 0.0 else "train and reference"
        raise ValueError(f"{name} (the records with weight > 0) contain a single class")
    est: LogisticRegression | MLPClassifier
    if model is ModelKind.LOGISTIC:
        est = LogisticRegression(C=math.inf if l2 == 0.0 else 1.0 / l2, tol=tol, max_iter=max_iter)
        est.fit(X, y, sample_weight=sw)
        n_iter = int(np.max(est.n_iter_))
    else:
        est = MLPClassifier(
            hidden_layer_sizes=hidden_layer_sizes,
            alpha=l2,
            solver="lbfgs",
            tol=tol,
            max_iter=max_iter,
            random_state=random_state,
        )
        est.fit(X, y, sample_weight=sw)
        n_iter = int(est.n_iter_)
    return WermFit(est, w, n_iter < max_iter, n_iter)


# --------------------------------------------------------------------------- attacks


def _own_label_proba(
    P: NDArray[np.float64], classes: NDArray[Any], y: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Row i's entry of ``P`` (probabilities over ``classes``) for the label ``y[i]``."""
    idx = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
    seen = classes[idx] == y
    return np.where(seen, P[np.arange(y.shape[0]), idx], 0.0)


class _Scorer:
    """A fitted model's predicted labels and f(x)_y for the parts of a replicate.

    The audit asks for both on up to ten matrices per model, several of them twice (the
    evaluation holdout's first k records serve both targets). Each distinct matrix (the
    same memory, shape and strides) is scored once. For a logistic regression both come
    from one product ``X @ coef_.T + intercept_`` with scikit-learn's own formulas
    (``LinearClassifierMixin.decision_function``, ``.predict``; ``predict_proba``: expit
    and [1 − p, p] for two classes, ``softmax`` for more), which
    ``predict`` and ``predict_proba`` would each compute again behind input checks that cost
    more than the product on matrices this small. The values are the same bit for bit
    (``tests/test_reference_sweep.py`` compares them with scikit-learn's); an MLP is asked
    through scikit-learn as before.
    """

    def __init__(self, est: LogisticRegression | MLPClassifier) -> None:
        self.est = est
        self.seen: dict[
            tuple[Any, ...], tuple[NDArray[np.float64], NDArray[Any], NDArray[np.float64]]
        ] = {}

    def _scores(self, X: NDArray[np.float64]) -> tuple[NDArray[Any], NDArray[np.float64]]:
        est = self.est
        if isinstance(est, LogisticRegression):
            coef_T = est.coef_.T if est.coef_.ndim == 2 else est.coef_
            s = X @ coef_T + est.intercept_
            if s.ndim > 1 and s.shape[1] == 1:
                s = s.reshape(-1)
            if s.ndim == 1:
                pred = est.classes_[(s > 0).astype(np.intp)]
                prob = expit(s)
                return pred, np.stack([1 - prob, prob], axis=1)
            return est.classes_[np.argmax(s, axis=1)], softmax(s, copy=True)
        return est.predict(X), est.predict_proba(X)

    def _get(self, part: Part) -> tuple[NDArray[np.float64], NDArray[Any], NDArray[np.float64]]:
        X = part.X
        key = (X.__array_interface__["data"][0], X.shape, X.strides, X.dtype.str)
        hit = self.seen.get(key)
        if hit is None:
            pred, P = self._scores(X)
            hit = self.seen[key] = (X, pred, P)  # X kept: its memory cannot be reused meanwhile
        return hit

    def predict(self, part: Part) -> NDArray[Any]:
        """The predicted label of each record of ``part`` (``est.predict``)."""
        return self._get(part)[1]

    def own_label_proba(self, part: Part) -> NDArray[np.float64]:
        """f(x)_y: the model's probability of each record's own label (0 for unseen labels)."""
        return _own_label_proba(self._get(part)[2], self.est.classes_, part.y)


def _loss(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cross-entropy −log f(x)_y (capped where f(x)_y underflows to 0)."""
    return -np.log(np.maximum(p, np.finfo(float).tiny))


def _best_threshold(scores_in: NDArray[np.float64], scores_out: NDArray[np.float64]) -> float:
    """τ maximising balanced accuracy of "member iff score > τ" (smallest τ among ties)."""
    s_in, s_out = np.sort(scores_in), np.sort(scores_out)
    cand = np.concatenate([[-math.inf], np.unique(np.concatenate([s_in, s_out]))])
    tpr = 1.0 - np.searchsorted(s_in, cand, side="right") / s_in.size
    fpr = 1.0 - np.searchsorted(s_out, cand, side="right") / s_out.size
    return float(cand[int(np.argmax(tpr - fpr))])


def _low_fpr_threshold(scores_out: NDArray[np.float64], fpr: float) -> float:
    """Smallest order statistic τ with at most ⌊fpr·n⌋ of ``scores_out`` strictly above it."""
    s = np.sort(scores_out)[::-1]
    j = min(math.floor(fpr * s.size), s.size - 1)
    return float(s[j])


@dataclass(frozen=True)
class AttackOutcome:
    """One attack on one target, scored on balanced evaluation sets.

    ``correct`` of ``trials`` (= 2k) guesses were right; ``accuracy`` = correct/trials with
    the two-sided Clopper–Pearson interval [``ci_low``, ``ci_high``] at the run's
    confidence; ``tpr``/``fpr`` of the decision on the k members / k non-members;
    ``threshold`` τ (None for the gap attack; a loss for the loss attack).
    ``eta_empirical`` = max(accuracy − 1/2, 0) and ``epsilon_empirical`` its pure ε by
    Theorem 4 (``inf`` at accuracy 1); the ``*_empirical_lower_bound`` fields are the same
    from the one-sided Clopper–Pearson lower bound on the accuracy. All four are EMPIRICAL
    LOWER BOUNDS on this procedure's leakage -- evidence, never guarantees.
    """

    attack: Attack
    target: Target
    threshold: float | None
    correct: int
    trials: int
    tpr: float
    fpr: float
    accuracy: float
    ci_low: float
    ci_high: float
    eta_empirical: float
    eta_empirical_lower_bound: float
    epsilon_empirical: float
    epsilon_empirical_lower_bound: float


@dataclass(frozen=True)
class LowFprOutcome:
    """TPR of the confidence score at a low FPR: τ set on the calibration holdout only.

    ``target_fpr`` is the FPR allowed on the calibration holdout; ``fpr`` and ``tpr`` are
    measured on the k evaluation non-members and members.
    """

    target: Target
    target_fpr: float
    threshold: float
    tpr: float
    fpr: float
    members: int


@dataclass(frozen=True)
class ModelAudit:
    """Every attack on one fitted model, plus its accuracies.

    ``test_accuracy`` is measured on the whole evaluation holdout; ``train_fit_accuracy``
    and ``ref_fit_accuracy`` on all of D_T and D_R.
    """

    test_accuracy: float
    train_fit_accuracy: float
    ref_fit_accuracy: float
    outcomes: tuple[AttackOutcome, ...]
    low_fpr: tuple[LowFprOutcome, ...]

    def outcome(self, attack: Attack, target: Target) -> AttackOutcome:
        """The outcome of ``attack`` on ``target`` (``KeyError`` for another pair)."""
        found = [o for o in self.outcomes if o.attack is attack and o.target is target]
        if not found:
            raise KeyError((attack, target))
        return found[0]


#: An attack's guesses on one target: the fields of :class:`AttackOutcome` before its bounds.
_Guesses = tuple[Attack, Target, float | None, int, int, float, float]
_BOUNDS = (
    "accuracy", "ci_low", "ci_high", "eta_empirical", "eta_empirical_lower_bound",
    "epsilon_empirical", "epsilon_empirical_lower_bound",
)  # fmt: skip


def _bounds(
    correct: ArrayLike, trials: ArrayLike, confidence: float
) -> dict[str, NDArray[np.float64]]:
    """The accuracies and every interval and empirical bound of many counts at once (one
    array call each instead of one per attack and fit: SciPy's per-call overhead dominated
    the audit; the element-wise values are the same), as :data:`_BOUNDS` columns."""
    k, n = np.asarray(correct, dtype=np.int64), np.asarray(trials, dtype=np.int64)
    lo, hi = (np.asarray(b, float) for b in clopper_pearson(k, n, confidence))
    eta_lb = np.asarray(eta_lower_bound(k, n, confidence=confidence), float)
    acc = k / n
    eta = np.maximum(acc - 0.5, 0.0)
    eps = np.full(eta.shape, math.inf)
    finite = eta < 0.5
    if finite.any():
        eps[finite] = np.asarray(epsilon_from_eta(eta[finite]), float)
    eps_lb = np.asarray(epsilon_from_eta(eta_lb), float)
    return dict(zip(_BOUNDS, (acc, lo, hi, eta, eta_lb, eps, eps_lb), strict=True))


def _outcomes(guesses: list[_Guesses], confidence: float) -> list[AttackOutcome]:
    """Each attack's :class:`AttackOutcome`, its intervals computed with all the others'."""
    if not guesses:
        return []
    b = _bounds([g[3] for g in guesses], [g[4] for g in guesses], confidence)
    return [AttackOutcome(*g, *(float(b[c][i]) for c in _BOUNDS)) for i, g in enumerate(guesses)]


def audit_model(
    fit: WermFit, splits: Splits, *, confidence: float = 0.95, low_fpr: float = 0.05
) -> ModelAudit:
    r"""Run the gap, confidence-threshold and loss attacks on D_T and on D_R.

    Calibration reads only ``splits.train_calib`` / ``splits.ref_calib`` (known members)
    and ``splits.holdout_calib``; scoring reads only the ``*_eval`` parts. Each target's
    attack is scored on its first k evaluation members against the first k records of
    ``holdout_eval``, k = min(len(members), len(holdout_eval)).

    Parameters
    ----------
    fit : a :class:`WermFit`.
    splits : the replicate's :class:`Splits` (the model should be fitted on
        ``splits.train`` and ``splits.reference``).
    confidence : interval level, ``0 < confidence < 1``.
    low_fpr : the FPR allowed on the calibration holdout, ``0 < low_fpr <= 1/2``.

    Returns
    -------
    ModelAudit

    Raises
    ------
    ValueError
        Naming ``confidence`` or ``low_fpr``.
    """
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    lf = float(check_range("low_fpr", low_fpr, 0.0, 0.5, lo_open=True))
    with _one_blas_thread():
        accuracies, guesses, lows = _attack(fit, splits, lf)
    return ModelAudit(*accuracies, outcomes=tuple(_outcomes(guesses, conf)), low_fpr=lows)


def _attack(
    fit: WermFit, splits: Splits, low_fpr: float
) -> tuple[tuple[float, float, float], list[_Guesses], tuple[LowFprOutcome, ...]]:
    """Every attack's guesses on one model (intervals to be added by :func:`_bounds`), and
    the model's test, D_T and D_R accuracies."""
    score = _Scorer(fit.estimator)
    p_hold_cal = score.own_label_proba(splits.holdout_calib)
    guesses: list[_Guesses] = []
    lows: list[LowFprOutcome] = []

    def guess(attack: Attack, target: Target, tau: float | None, d_in: Any, d_out: Any) -> None:
        correct, rates = int(d_in.sum()) + int((~d_out).sum()), (d_in.mean(), d_out.mean())
        guesses.append((attack, target, tau, correct, 2 * d_in.size, *map(float, rates)))

    for target in Target:
        mem_cal, mem_eval = splits.members(target)
        k = min(len(mem_eval), len(splits.holdout_eval))
        ev_in, ev_out = mem_eval.head(k), splits.holdout_eval.head(k)
        # gap attack (5): correctly classified -> member
        g_in, g_out = score.predict(ev_in) == ev_in.y, score.predict(ev_out) == ev_out.y
        guess(Attack.GAP, target, None, g_in, g_out)
        # confidence attack (6): f(x)_y > tau, tau from the calibration parts only
        p_cal = score.own_label_proba(mem_cal)
        tau = _best_threshold(p_cal, p_hold_cal)
        p_in, p_out = score.own_label_proba(ev_in), score.own_label_proba(ev_out)
        guess(Attack.CONFIDENCE, target, tau, p_in > tau, p_out > tau)
        # loss attack (Yeom et al.): loss <= mean loss of the known members
        tau_loss = float(np.mean(_loss(p_cal)))
        guess(Attack.LOSS, target, tau_loss, _loss(p_in) <= tau_loss, _loss(p_out) <= tau_loss)
        # TPR at low FPR: tau set on the calibration holdout
        tau_low = _low_fpr_threshold(p_hold_cal, low_fpr)
        tpr, fpr = float(np.mean(p_in > tau_low)), float(np.mean(p_out > tau_low))
        lows.append(LowFprOutcome(target, low_fpr, tau_low, tpr, fpr, k))
    hold, tr, rf = splits.holdout_eval, splits.train, splits.reference
    accuracies = tuple(float(np.mean(score.predict(p) == p.y)) for p in (hold, tr, rf))
    return accuracies, guesses, tuple(lows)  # type: ignore[return-value]


# --------------------------------------------------------------------------- trends


class TrendTest(Enum):
    """How a trend's p-value was obtained."""

    #: One-sided one-sample t-test of the per-seed OLS slopes (n_seeds >= 2).
    SEED_SLOPE_T_TEST = "seed_slope_t_test"
    #: One-sided OLS slope test on the single seed's points (n_seeds = 1).
    SINGLE_SEED_REGRESSION = "single_seed_regression"
    #: Not judged: fewer than 2 distinct weights (or 3 with a single seed).
    NOT_ENOUGH_WEIGHTS = "not_enough_weights"


@dataclass(frozen=True)
class TrendVerdict:
    """Does an attack's accuracy on a target move with w as the paper says (Sections 3.2,
    4.4.1): up on D_R (``target`` REFERENCE), down on D_T?

    ``slope`` is the mean over seeds of the per-seed OLS slope of accuracy on w (accuracy
    per unit w), ``slope_stderr`` its standard error, ``p_value`` one-sided in the claimed
    direction (see ``test``); ``seeds_with_claimed_sign`` counts seeds whose slope has the
    claimed sign. ``spearman_rho`` / ``spearman_p`` (one-sided) over all (w, seed) points
    are descriptive: points of one seed share data, so they are not independent.
    ``holds`` is ``p_value < alpha`` with the mean slope of the claimed sign; None when not
    judged.
    """

    attack: Attack
    target: Target
    holds: bool | None
    slope: float
    slope_stderr: float
    p_value: float
    test: TrendTest
    alpha: float
    seeds_with_claimed_sign: int
    n_seeds: int
    spearman_rho: float
    spearman_p: float


def _trend(
    rows: pd.DataFrame, attack: Attack, target: Target, n_seeds: int, alpha: float
) -> TrendVerdict:
    sign = 1.0 if target is Target.REFERENCE else -1.0
    side: Literal["greater", "less"] = "greater" if sign > 0 else "less"
    sub = rows[(rows["attack"] == attack.value) & (rows["target"] == target.value)]
    w_all = sub["w"].to_numpy(float)
    a_all = sub["accuracy"].to_numpy(float)
    if np.unique(w_all).size >= 2 and np.unique(a_all).size >= 2:
        sp = stats.spearmanr(w_all, a_all, alternative=side)
        rho, rho_p = float(sp.statistic), float(sp.pvalue)
    else:
        rho, rho_p = 0.0, 1.0
    slopes = []
    for _, g in sub.groupby("seed"):
        ws, acc = g["w"].to_numpy(float), g["accuracy"].to_numpy(float)
        slopes.append(float(np.polyfit(ws, acc, 1)[0]) if np.unique(ws).size >= 2 else 0.0)
    sl = np.asarray(slopes)
    n_w = int(np.unique(w_all).size)
    n_claimed = int(np.sum(sign * sl > 0))
    if n_w < 2 or (n_seeds == 1 and n_w < 3):
        holds, mean, se, p, test = None, float(sl.mean()), 0.0, 1.0, TrendTest.NOT_ENOUGH_WEIGHTS
    elif n_seeds >= 2:
        mean, sd = float(sl.mean()), float(sl.std(ddof=1))
        se = sd / math.sqrt(sl.size)
        if se == 0.0:
            p = 0.0 if sign * mean > 0 else 1.0
        else:
            p = float(stats.t.sf(sign * mean / se, df=sl.size - 1))
        test = TrendTest.SEED_SLOPE_T_TEST
    elif np.unique(a_all).size < 2:
        mean, se, p, test = 0.0, 0.0, 1.0, TrendTest.SINGLE_SEED_REGRESSION
    else:
        lr = stats.linregress(w_all, a_all, alternative=side)
        mean, se, p = float(lr.slope), float(lr.stderr), float(lr.pvalue)
        test = TrendTest.SINGLE_SEED_REGRESSION
    if test is not TrendTest.NOT_ENOUGH_WEIGHTS:
        holds = bool(p < alpha and sign * mean > 0)
    return TrendVerdict(
        attack, target, holds, mean, se, p, test, alpha, n_claimed, n_seeds, rho, rho_p
    )


# --------------------------------------------------------------------------- sweep


class SweepStopped(Exception):
    """Raised by :func:`run_sweep` when ``should_stop()`` returned True between fits.

    ``done`` of ``total`` fits had completed; no partial result is returned.
    """

    def __init__(self, done: int, total: int):
        super().__init__(f"sweep stopped after {done} of {total} fits")
        self.done, self.total = done, total


@dataclass(frozen=True)
class SweepResult:
    """What one sweep measured (see :func:`run_sweep`); the rest is computed on demand.

    DataFrames (enum columns hold the enum's ``value``):

    * ``fits`` -- one row per (w, seed): ``test_accuracy``, ``train_fit_accuracy``,
      ``ref_fit_accuracy``, ``converged``, ``n_iter``, ``low_fpr_tpr_train``,
      ``low_fpr_fpr_train``, ``low_fpr_tpr_ref``, ``low_fpr_fpr_ref``.
    * ``rows`` -- one row per (w, seed, attack, target): the numbers of
      :class:`AttackOutcome` but its threshold (``correct``, ``trials``, ``tpr``, ``fpr``,
      ``accuracy``, ``ci_low``, ``ci_high`` and the four empirical bounds).
    * ``per_w`` -- one row per (w, attack, target): ``accuracy_mean``, ``accuracy_std``,
      ``accuracy_min``, ``accuracy_max`` (the band over seeds), ``accuracy_sem``, pooled
      ``correct``/``trials`` over seeds with their interval ``pooled_ci_low``,
      ``pooled_ci_high`` and ``eta_empirical_lower_bound``,
      ``epsilon_empirical_lower_bound`` (EMPIRICAL LOWER BOUNDS from the pooled counts).
    * ``utility`` -- one row per w: ``test_accuracy_mean``/``_std``/``_min``/``_max`` and
      Theorem 3.2's ``n_eff`` and ``n_eff_fraction`` (= n_eff/(N_T + N_R)).

    ``trends``: every attack's trend verdict on both sets. Table 2's picks
    (:attr:`selections`) and the verdicts on them read ``config``'s ``selection_attack`` and
    thresholds (:func:`reselect` changes them).
    """

    config: LeakConfig
    fits: pd.DataFrame
    rows: pd.DataFrame
    per_w: pd.DataFrame
    utility: pd.DataFrame
    trends: tuple[TrendVerdict, ...]

    @property
    def w_star(self) -> float:
        """w* = N_R/(N_T + N_R): both sets equally private (Theorem 3.1)."""
        return float(equal_privacy_weight(self.config.n_train, self.config.n_ref))

    @property
    def tolerance(self) -> float:
        """Near w* means within this: the largest gap between consecutive weights of the grid."""
        gaps = np.diff(np.sort(self.utility["w"].to_numpy(float)))
        return float(gaps.max()) if gaps.size else 0.0

    @property
    def training_only(self) -> pd.DataFrame:
        """What a defense reporting training-data leakage only would show: per (w, attack)
        the test accuracy and the training attack's mean, band and pooled interval, without
        any reference column."""
        tr = self.per_w[self.per_w["target"] == Target.TRAIN.value]
        tr = tr.merge(self.utility[["w", "test_accuracy_mean"]], on="w")
        cols = ["w", "attack", "test_accuracy_mean", "accuracy_mean", "accuracy_min"]
        return tr[[*cols, "accuracy_max", "pooled_ci_low", "pooled_ci_high"]].reset_index(drop=True)

    def trend(self, attack: Attack, target: Target) -> TrendVerdict:
        """The trend verdict of one attack on one target."""
        return next(t for t in self.trends if t.attack is attack and t.target is target)

    def at(self, w: float, target: Target) -> pd.Series:
        """The ``per_w`` row of the selection attack on ``target`` at ``w``."""
        p = self.per_w
        sel = (p["w"] == w) & (p["target"] == target.value)
        return p[sel & (p["attack"] == self.config.selection_attack.value)].iloc[0]

    @cached_property
    def selections(self) -> tuple[Selection, ...]:
        """Table 2's rules in :class:`~mipcore.reference_data.SelectionRule` order, on the
        per-w means of ``config.selection_attack`` at ``config``'s thresholds."""
        cfg, u = self.config, self.utility
        p = self.per_w[self.per_w["attack"] == cfg.selection_attack.value].sort_values("w")
        a_t, a_r = (p[p["target"] == t.value]["accuracy_mean"].to_numpy(float) for t in Target)
        w, test = u["w"].to_numpy(float), u["test_accuracy_mean"].to_numpy(float)
        limits = (cfg.max_train_attack, cfg.max_gap, cfg.max_ref_attack)
        pairs = zip(SelectionRule, limits, strict=True)
        return tuple(select_instance(r, w, test, a_t, a_r, t) for r, t in pairs)

    def selection(self, rule: SelectionRule) -> Selection:
        """The pick of one Table 2 rule."""
        return next(s for s in self.selections if s.rule is rule)

    @property
    def training_only_pick(self) -> Selection:
        """The public-reference rule's pick: the only rule that reads training leakage alone,
        what a defense evaluated on training data only would pick."""
        return self.selection(SelectionRule.PUBLIC_REFERENCE)

    def rule_holds(self, rule: SelectionRule) -> bool | None:
        """Whether the rule's pick lies where the paper says (None: nothing picked): the
        public-reference rule above w* (it spends D_R's privacy), the equal-privacy rule
        within :attr:`tolerance` of w*, the high-reference-privacy rule below w*."""
        w = self.selection(rule).w
        if w is None:
            return None
        if rule is SelectionRule.PUBLIC_REFERENCE:
            return w > self.w_star
        if rule is SelectionRule.EQUAL_PRIVACY:
            return abs(w - self.w_star) <= self.tolerance + 1e-12
        return w < self.w_star

    @property
    def hidden_leak(self) -> bool | None:
        """Whether the training-only pick leaks D_R: the pooled reference attack's interval
        there lies above 1/2 (None when that rule picked nothing)."""
        w = self.training_only_pick.w
        return None if w is None else bool(self.at(w, Target.REFERENCE)["pooled_ci_low"] > 0.5)


#: The columns of :attr:`SweepResult.fits` and, before their intervals, of ``rows``.
_FITS = (
    "w", "seed", "test_accuracy", "train_fit_accuracy", "ref_fit_accuracy", "converged",
    "n_iter", "low_fpr_tpr_train", "low_fpr_fpr_train", "low_fpr_tpr_ref", "low_fpr_fpr_ref",
)  # fmt: skip
_GUESSES = ("w", "seed", "attack", "target", "correct", "trials", "tpr", "fpr")


def _aggregate(rows: pd.DataFrame, confidence: float) -> pd.DataFrame:
    g = rows.groupby(["w", "attack", "target"], sort=True)
    out = g.agg(
        accuracy_mean=("accuracy", "mean"),
        accuracy_std=("accuracy", lambda s: float(s.std(ddof=1)) if len(s) > 1 else 0.0),
        accuracy_min=("accuracy", "min"),
        accuracy_max=("accuracy", "max"),
        correct=("correct", "sum"),
        trials=("trials", "sum"),
        seeds=("seed", "count"),
    ).reset_index()
    out["accuracy_sem"] = out["accuracy_std"] / np.sqrt(out["seeds"])
    b = _bounds(out["correct"], out["trials"], confidence)
    out["pooled_ci_low"], out["pooled_ci_high"] = b["ci_low"], b["ci_high"]
    out["eta_empirical_lower_bound"] = b["eta_empirical_lower_bound"]
    out["epsilon_empirical_lower_bound"] = b["epsilon_empirical_lower_bound"]
    return out


def run_sweep(
    config: LeakConfig | None = None,
    progress: Callable[[float, str], None] | None = None,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> SweepResult:
    r"""Fit WERM for every w of ``config.weights`` on each of ``config.n_seeds`` replicates.

    Replicate r's data (:func:`make_splits`) is shared by all w, so the comparison across w
    is paired. Each fit is audited as :func:`audit_model` does.

    Parameters
    ----------
    config : :class:`LeakConfig` (default ``LeakConfig()``: 11 weights × 5 seeds, logistic
        regression on 3 200 records of 300 features, N_T = N_R = 600).
    progress : called as ``progress(fraction, "fit <done> of <total>")`` (the form
        ``appkit.jobs.run`` gives) once before the first fit and after every fit;
        ``total = len(weights) * n_seeds``.
    should_stop : called before every fit; when it returns True the sweep raises
        :class:`SweepStopped` (carrying ``done`` and ``total``) and returns nothing.

    Returns
    -------
    SweepResult

    Raises
    ------
    ValueError
        Naming the config field that is out of range.
    SweepStopped
        When ``should_stop()`` returned True.

    Notes
    -----
    Fitting and scoring run with BLAS limited to one thread (``threadpoolctl``): the
    matrices are small, and on a busy 2-core machine OpenBLAS's thread hand-offs made 11
    logistic fits take 4.2 s instead of 0.06 s. The limit is process-wide while it lasts.

    The trend verdicts test the per-seed OLS slopes of attack accuracy on w with a
    one-sided t-test (points of one seed share data; seeds are independent).

    Examples
    --------
    >>> cfg = LeakConfig(n_train=60, n_ref=60, n_calib=60, n_eval=60, n_features=10,
    ...                  weights=(0.0, 0.5, 1.0), n_seeds=2)
    >>> res = run_sweep(cfg)
    >>> len(res.fits), res.w_star
    (6, 0.5)
    """
    cfg = (LeakConfig() if config is None else config).validated()
    weights = [float(x) for x in cfg.weights]
    total = len(weights) * cfg.n_seeds
    if progress is not None:
        progress(0.0, f"fit 0 of {total}")
    solver = (cfg.model, cfg.l2, cfg.tol, cfg.max_iter, cfg.hidden_layer_sizes)
    fit_rows: list[tuple[Any, ...]] = []
    guesses: list[tuple[Any, ...]] = []
    with _one_blas_thread():
        for rep in range(cfg.n_seeds):
            splits = _splits(cfg, rep)
            train, reference = splits.train, splits.reference
            for w in weights:
                done = len(fit_rows)
                if should_stop is not None and should_stop():
                    raise SweepStopped(done, total)
                fit = _fit(train, reference, w, *solver, rep)
                accuracies, found, (on_t, on_r) = _attack(fit, splits, cfg.low_fpr)
                low = (on_t.tpr, on_t.fpr, on_r.tpr, on_r.fpr)
                fit_rows.append((w, rep, *accuracies, fit.converged, fit.n_iter, *low))
                guesses += [(w, rep, a.value, t.value, *g) for a, t, _tau, *g in found]
                if progress is not None:
                    progress((done + 1) / total, f"fit {done + 1} of {total}")
    # every attack's intervals at once (one SciPy call, not one per attack and fit)
    frame = pd.DataFrame(guesses, columns=_GUESSES)
    rows = frame.assign(**_bounds(frame["correct"], frame["trials"], cfg.confidence))
    fits = pd.DataFrame(fit_rows, columns=_FITS)
    ug = fits.groupby("w", sort=True)["test_accuracy"]
    utility = pd.DataFrame(
        {
            "test_accuracy_mean": ug.mean(),
            "test_accuracy_std": ug.std(ddof=1).fillna(0.0),
            "test_accuracy_min": ug.min(),
            "test_accuracy_max": ug.max(),
        }
    ).reset_index()
    n_eff = np.asarray(effective_sample_size(utility["w"].to_numpy(float), cfg.n_train, cfg.n_ref))
    utility["n_eff"] = n_eff
    utility["n_eff_fraction"] = n_eff / (cfg.n_train + cfg.n_ref)
    trends = tuple(_trend(rows, a, t, cfg.n_seeds, cfg.trend_alpha) for a in Attack for t in Target)
    return SweepResult(cfg, fits, rows, _aggregate(rows, cfg.confidence), utility, trends)


# --------------------------------------------------------------------------- for a page


def weight_grid(count: int) -> tuple[float, ...]:
    """``count`` equally spaced weights from 0 to 1 (``2 <= count <= 201``): i/(count − 1).

    Examples
    --------
    >>> weight_grid(5)
    (0.0, 0.25, 0.5, 0.75, 1.0)
    """
    c = check_int("count", count, 2, 201)
    return tuple(i / (c - 1) for i in range(c))


def sweep_work(config: LeakConfig) -> int:
    """The work a sweep asks for: fits × (records × features + :data:`WORK_PER_FIT`).

    Every fit reads the N_T + N_R training records and the audit scores all the records of
    the replicate, so each of the ``len(weights) × n_seeds`` fits costs about
    ``n_total × n_features``, plus a fixed part.

    Raises
    ------
    ValueError
        Naming the config field that is out of range.

    Examples
    --------
    >>> sweep_work(LeakConfig())  # 55 fits of 3200 records × 300 features
    80300000
    """
    cfg = config.validated()
    fits = len(cfg.weights) * cfg.n_seeds
    return fits * (cfg.n_total * cfg.n_features + WORK_PER_FIT)


@dataclass(frozen=True)
class WorkCheck:
    """``work`` asked for, ``ceiling`` allowed (:data:`WORK_CEILING` × the server's factor),
    ``allowed`` = work ≤ ceiling, and the ``fits`` the sweep would make."""

    work: int
    ceiling: float
    allowed: bool
    fits: int


def check_work(config: LeakConfig, factor: float = 1.0) -> WorkCheck:
    """Compare a sweep's work with the ceiling ``WORK_CEILING × factor`` (``factor >= 1``).

    Raises
    ------
    ValueError
        Naming ``factor``, or the config field that is out of range.

    Examples
    --------
    >>> check_work(LeakConfig()).allowed
    True
    >>> check_work(LeakConfig(n_seeds=20, n_features=1000)).allowed
    False
    """
    f = float(check_range("factor", factor, 1.0, math.inf, hi_open=True))
    work = sweep_work(config)
    ceiling = WORK_CEILING * f
    return WorkCheck(work, ceiling, work <= ceiling, len(config.weights) * config.n_seeds)


def reselect(
    result: SweepResult,
    *,
    attack: Attack | str | None = None,
    max_train_attack: float | None = None,
    max_gap: float | None = None,
    max_ref_attack: float | None = None,
) -> SweepResult:
    r"""The sweep read for other Table 2 thresholds or another attack, without refitting.

    The fits, the attacks and the trends do not depend on the selection step, so this
    returns ``result`` with a new ``config`` (the given fields replaced; None keeps a
    field): exactly what :func:`run_sweep` returns for that config.

    Parameters
    ----------
    result : a :class:`SweepResult`.
    attack : the attack whose per-w means the rules read (``selection_attack``).
    max_train_attack, max_gap, max_ref_attack : thresholds in [0, 1] (Table 2: 0.51, 0.04,
        0.51).

    Returns
    -------
    SweepResult

    Raises
    ------
    ValueError
        Naming ``attack`` or the threshold that is out of range.

    Examples
    --------
    >>> cfg = LeakConfig(n_train=60, n_ref=60, n_calib=60, n_eval=60, n_features=10,
    ...                  weights=(0.0, 0.5, 1.0), n_seeds=2)
    >>> res = reselect(run_sweep(cfg), attack="loss", max_gap=0.1)
    >>> res.config.selection_attack.value, res.config.max_gap
    ('loss', 0.1)
    """
    changes: dict[str, Any] = {}
    if attack is not None:
        changes["selection_attack"] = as_enum("attack", attack, Attack)
    limits = dict(max_train_attack=max_train_attack, max_gap=max_gap, max_ref_attack=max_ref_attack)
    for name, value in limits.items():  # checked here: the config's other fields already are
        if value is not None:
            check_range(name, value, 0.0, 1.0)
            changes[name] = value
    return dataclasses.replace(result, config=dataclasses.replace(result.config, **changes))
