r"""Wrap your own statistic: Algorithm 1 (MIP) beside the DP Laplace mechanism on the same data.

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Algorithm 1, Corollary 10) and
Theorem 4 (eta -> epsilon); the Laplace mechanism (Dwork et al. 2014).

Statistics: the column means, the covariance (second-moment) matrix and the
least-squares coefficients of the last column on the others (with intercept).

The DP side needs a *sensitivity*, which depends on bounds the data owner must
fix in advance (bounds read off the data itself leak information; the page says
so). With every column clipped to ``[lo_j, hi_j]`` and m training rows:

* mean: L1 sensitivity ``sum_j (hi_j - lo_j) / m`` (replace-one);
* covariance ``(1/m) sum x x^T`` (d^2 entries): replacing x by x' changes it by
  ``(x x^T - x' x'^T)/m``, whose L1 norm is at most ``2 (sum_j b_j)^2 / m`` with
  ``b_j = max(|lo_j|, |hi_j|)``;
* least squares: no bounded sensitivity without further assumptions (one record
  can move the fit arbitrarily when the design is near-singular), so no DP release
  is offered -- only MIP, which needs no sensitivity.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import as_generator, check_int, check_range
from ..bounds import epsilon_from_eta
from ..mechanism import mip_release

__all__ = [
    "MAX_UPLOAD_BYTES",
    "STATISTICS",
    "ParsedTable",
    "WrapResult",
    "dp_l1_sensitivity",
    "make_dataset",
    "parse_numeric_csv",
    "repeat_noise",
    "statistic",
    "wrap_statistic",
]

STATISTICS = ("mean", "covariance", "linear regression")
MAX_UPLOAD_BYTES = 5 * 1024 * 1024  # also set as server.maxUploadSize in .streamlit/config.toml
MAX_ROWS = 200_000
MAX_COLS = 20


@dataclass(frozen=True)
class ParsedTable:
    """A numeric table and what was done to get it (sentences for the page)."""

    data: pd.DataFrame
    notes: tuple[str, ...]


def parse_numeric_csv(
    raw: bytes,
    *,
    max_bytes: int = MAX_UPLOAD_BYTES,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
) -> ParsedTable:
    """Parse an uploaded CSV defensively into a numeric table.

    Only text is read (pandas' C parser; nothing is executed or unpickled). Non-numeric
    columns are dropped with a note; rows with NaN or infinite values are dropped
    with a note. Raises ``ValueError`` with a sentence for: an empty or oversized
    file, undecodable bytes, a ragged file (rows with more fields than the header),
    more than ``max_rows`` rows or ``max_cols`` numeric columns, or fewer than
    8 usable rows / 1 numeric column.
    """
    if not isinstance(raw, (bytes, bytearray)):
        raise ValueError("the upload must be bytes")
    if len(raw) == 0:
        raise ValueError("the file is empty")
    if len(raw) > max_bytes:
        raise ValueError(f"the file has {len(raw):,} bytes; the limit is {max_bytes:,}")
    try:
        text = bytes(raw).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(
            "the file is not UTF-8 text (is it a spreadsheet or a binary file?)"
        ) from None
    if "\x00" in text:
        raise ValueError("the file contains NUL bytes: not a text CSV")
    if not text.strip():
        raise ValueError("the file has no content")
    # Guess the separator once, from a sample and among a fixed set only: pandas' own guess
    # (sep=None) may split a one-column file on a letter of its header ("value" on "v").
    try:
        sep = csv.Sniffer().sniff(text[:65536], delimiters=",;\t| ").delimiter
    except csv.Error:
        sep = ","
    try:
        df = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            engine="python",
            nrows=max_rows + 1,
            skipinitialspace=True,
            on_bad_lines="error",
        )
    except pd.errors.EmptyDataError:
        raise ValueError("the file has no columns") from None
    except pd.errors.ParserError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "malformed rows"
        raise ValueError(f"the file is ragged or malformed ({first})") from None
    except csv.Error as exc:
        raise ValueError(f"the file is not a readable CSV ({exc})") from None
    if len(df) > max_rows:
        raise ValueError(f"the file has more than {max_rows:,} rows; the limit is {max_rows:,}")
    if df.shape[1] == 0 or len(df) == 0:
        raise ValueError("the file has a header but no data rows")
    notes = []
    numeric = df.apply(pd.to_numeric, errors="coerce")
    keep = [c for c in df.columns if numeric[c].notna().sum() >= max(1, 0.9 * df[c].notna().sum())]
    dropped = [str(c) for c in df.columns if c not in keep]
    if dropped:
        notes.append(
            "Dropped non-numeric column(s): "
            + ", ".join(dropped[:10])
            + ("…" if len(dropped) > 10 else "")
            + "."
        )
    numeric = numeric[keep].astype(float)
    if numeric.shape[1] == 0:
        raise ValueError("no numeric columns were found")
    if numeric.shape[1] > max_cols:
        raise ValueError(
            f"the file has {numeric.shape[1]} numeric columns; the limit is {max_cols}"
        )
    finite = np.isfinite(numeric.to_numpy()).all(axis=1)
    if not finite.all():
        notes.append(
            f"Dropped {int((~finite).sum()):,} row(s) with missing, non-numeric or infinite values."
        )
        numeric = numeric[finite]
    if len(numeric) < 8:
        raise ValueError(f"only {len(numeric)} usable row(s) remain; at least 8 are needed")
    numeric.columns = [str(c) for c in numeric.columns]
    return ParsedTable(numeric.reset_index(drop=True), tuple(notes))


def make_dataset(statistic_name: str, n: int, d: int, rng) -> pd.DataFrame:
    """A generated dataset suited to the statistic (n rows, d columns; the last is the
    response y = X beta + noise for linear regression)."""
    if statistic_name not in STATISTICS:
        raise ValueError(f"statistic={statistic_name!r} is not one of {STATISTICS}")
    n = check_int("n", n, 8, 1_000_000)
    d = check_int("d", d, 1, MAX_COLS)
    gen = as_generator(rng)
    if statistic_name == "linear regression":
        if d < 2:
            raise ValueError(
                "d=1 is too small for linear regression: need at least one feature and a response"
            )
        X = gen.standard_normal((n, d - 1))
        beta = np.linspace(1.0, -1.0, d - 1)
        y = X @ beta + 0.5 + 0.5 * gen.standard_normal(n)
        cols = {f"x{j + 1}": X[:, j] for j in range(d - 1)} | {"y": y}
        return pd.DataFrame(cols)
    mean = np.linspace(0.0, 2.0, d)
    X = mean + gen.standard_normal((n, d)) * np.linspace(1.0, 2.0, d)
    return pd.DataFrame({f"x{j + 1}": X[:, j] for j in range(d)})


def statistic(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """The base algorithm for a statistic: rows -> 1-d vector theta (module-level, picklable)."""
    try:
        return _STATS[name]
    except KeyError:
        raise ValueError(f"statistic={name!r} is not one of {STATISTICS}") from None


def _mean(rows: np.ndarray) -> np.ndarray:
    return rows.mean(axis=0)


def _second_moment(rows: np.ndarray) -> np.ndarray:
    return (rows.T @ rows / rows.shape[0]).ravel()


def _least_squares(rows: np.ndarray) -> np.ndarray:
    X = np.column_stack([np.ones(rows.shape[0]), rows[:, :-1]])
    coef, *_ = np.linalg.lstsq(X, rows[:, -1], rcond=None)
    return coef


_STATS = {"mean": _mean, "covariance": _second_moment, "linear regression": _least_squares}


def theta_labels(name: str, columns) -> list[str]:
    cols = [str(c) for c in columns]
    if name == "mean":
        return [f"mean({c})" for c in cols]
    if name == "covariance":
        return [f"E[{a}·{b}]" for a in cols for b in cols]
    return ["intercept"] + [f"coef({c})" for c in cols[:-1]]


def dp_l1_sensitivity(name: str, lo, hi, m: int) -> float | None:
    """Replace-one L1 sensitivity of the statistic on data clipped to [lo, hi] (None: unbounded)."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    if lo.shape != hi.shape or np.any(~(hi > lo)):
        raise ValueError("each clipping bound needs lo < hi")
    m = check_int("m", m, 1)
    if name == "mean":
        return float(np.sum(hi - lo) / m)
    if name == "covariance":
        b = np.maximum(np.abs(lo), np.abs(hi))
        return float(2.0 * np.sum(b) ** 2 / m)
    if name == "linear regression":
        return None
    raise ValueError(f"statistic={name!r} is not one of {STATISTICS}")


@dataclass(frozen=True)
class WrapResult:
    labels: list[str]
    theta: np.ndarray  # non-private value on the training half
    sigma: np.ndarray  # Algorithm 1's per-coordinate estimate
    mip: np.ndarray  # MIP release
    mip_c: float
    dp: np.ndarray | None  # DP Laplace release (None when the sensitivity is unbounded)
    dp_scale: float | None  # Laplace scale per coordinate
    epsilon: float
    sensitivity: float | None
    n_train: int

    def table(self) -> pd.DataFrame:
        df = pd.DataFrame(
            {
                "quantity": self.labels,
                "non-private θ": self.theta,
                "σ (Algorithm 1)": self.sigma,
                "MIP release": self.mip,
            }
        )
        df["DP Laplace release"] = self.dp if self.dp is not None else np.nan
        return df


def wrap_statistic(
    data: pd.DataFrame,
    name: str,
    eta: float,
    *,
    M: int = 2,
    B: int = 64,
    rng,
    lo=None,
    hi=None,
    radius: str = "gamma",
) -> WrapResult:
    """Release a statistic of ``data`` with MIP (Algorithm 1) and with the DP Laplace mechanism.

    Both certify eta against membership inference on the random training half: MIP via
    Corollary 10, DP via pure epsilon-DP with epsilon = log((1+2 eta)/(1-2 eta)) (Theorem 4).
    ``lo``/``hi`` are per-column clipping bounds for the DP side (default: the data's
    own range, which the page flags as not private).
    """
    if name not in STATISTICS:
        raise ValueError(f"statistic={name!r} is not one of {STATISTICS}")
    e = float(check_range("eta", eta, 0.0, 0.5, lo_open=True, hi_open=True))
    rows = np.asarray(data, dtype=float)
    if rows.ndim != 2 or rows.shape[0] < 8:
        raise ValueError(f"data must be a table with at least 8 rows, got shape {rows.shape}")
    if name == "linear regression" and rows.shape[1] < 2:
        raise ValueError(
            "linear regression needs at least two columns (features, then the response)"
        )
    gen = as_generator(rng)
    if lo is None or hi is None:  # bounds read off the data (not private; the page says so)
        lo = rows.min(axis=0) if lo is None else np.asarray(lo, dtype=float)
        hi = rows.max(axis=0) if hi is None else np.asarray(hi, dtype=float)
        hi = np.where(hi > lo, hi, lo + 1.0)  # a constant column still needs a box
    else:
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        if lo.shape != (rows.shape[1],) or hi.shape != (rows.shape[1],) or np.any(~(hi > lo)):
            raise ValueError(f"lo/hi must give one bound per column ({rows.shape[1]}) with lo < hi")
    clipped = np.clip(rows, lo, hi)
    fn = statistic(name)
    rel = mip_release(clipped, fn, e, M=M, B=B, rng=gen, calibration=radius)
    eps = float(epsilon_from_eta(e))
    sens = dp_l1_sensitivity(name, lo, hi, len(rel.train_index))
    if sens is None:
        dp, scale = None, None
    else:
        scale = sens / eps
        dp = rel.theta + gen.laplace(0.0, scale, size=rel.theta.shape)
    return WrapResult(
        theta_labels(name, data.columns if hasattr(data, "columns") else range(rows.shape[1])),
        rel.theta,
        rel.sigma,
        rel.theta_hat,
        rel.c,
        dp,
        scale,
        eps,
        sens,
        len(rel.train_index),
    )


def repeat_noise(
    result: WrapResult, eta: float, draws: int, *, M: int = 2, rng, radius: str = "gamma"
) -> tuple[np.ndarray, np.ndarray | None]:
    """Noise of ``draws`` more releases of the same statistic: ``(mip, dp)``, each ``(draws, d)``.

    The MIP rows follow Corollary 10 with the result's sigma (coordinates with sigma = 0 get
    no noise, as in :func:`mipcore.mechanism.mip_release`); the DP rows are Laplace with the
    result's scale (``None`` when there is no DP release). Shows how much each release
    scatters around theta, which one release alone cannot.

    Parameters
    ----------
    result : a :class:`WrapResult` from :func:`wrap_statistic` with the same eta, M, radius.
    eta : ``0 < eta < 1/2``; draws : ``1 <= draws <= 100000``; M, radius : as in
        :func:`mipcore.mechanism.sample_noise`; rng : Generator or int seed.
    """
    from ..mechanism import sample_noise

    draws = check_int("draws", draws, 1, 100_000)
    gen = as_generator(rng)
    mip = np.zeros((draws, result.theta.size))
    live = result.sigma > 0
    if live.any():
        mip[:, live] = sample_noise(
            result.sigma[live], eta, M, size=draws, rng=gen, calibration=radius
        )
    dp = (
        gen.laplace(0.0, result.dp_scale, size=(draws, result.theta.size))
        if result.dp_scale is not None
        else None
    )
    return mip, dp
