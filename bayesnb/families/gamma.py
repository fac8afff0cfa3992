"""The Gamma family: positive continuous columns (durations, sizes), each with a Gamma
likelihood whose shape has no closed-form estimate. Under EM it is the package's
generalized-EM family: its M-step takes one improving Newton step on the shape from
the current value instead of maximizing (seed 003's generalized EM)."""

from __future__ import annotations

import numpy as np

from bayesnb._lazy import special
from bayesnb.errors import InputError
from bayesnb.families._kernels import Labels, _as_float_matrix
from bayesnb.families.base import Family

#: Newton's steps on the shape stop below this relative change (a full maximization).
_SHAPE_TOL = 1e-13
_MAX_NEWTON = 200
#: What to do where a class's maximum-likelihood Gamma does not exist.
_REMEDY = (
    "Declare the column with a family whose prior covers it (bnb.Gaussian(), or "
    "bnb.Binned(bins=...)), or drop the class's rows; when clustering, use fewer "
    "components."
)


class Gamma(Family):
    """Positive continuous columns, each with a Gamma(shape, rate) per class.

    :math:`\\log p(x \\mid a, b) = a \\log b - \\log\\Gamma(a) + (a - 1)\\log x - b x`.

    Parameters
    ----------
    steps : int or None, default 1
        Newton steps on the shape per M-step from the current shape (generalized EM:
        each step raises the expected complete-data log-likelihood, halved until it
        does), or None for a full maximization. A classifier's fit, and EM's start,
        always maximize fully.
    columns : list, optional
        The block's columns.

    Notes
    -----
    The statistics are, per class and column, the weighted count :math:`n`, the sum
    :math:`\\sum x` and the sum of logarithms :math:`\\sum \\log x`; they add. The
    maximum-likelihood rate given the shape is :math:`b = a / \\bar x`, and the shape
    solves :math:`\\log a - \\psi(a) = \\log \\bar x - \\overline{\\log x}`, a concave
    problem Newton's method solves in :math:`\\log a` (Minka's update). Only
    ``estimate="ml"`` is defined. A missing value (NaN) is left out of both the
    statistics and the likelihood; a value <= 0 raises, naming its column.

    Examples
    --------
    Seed 001's temperatures (all positive) by class. At the maximum-likelihood
    estimate the Gamma's mean ``shape / rate`` equals the class's sample mean.

    >>> import bayesnb as bnb
    >>> temps = bnb.datasets.temperature()
    >>> fit = bnb.NaiveBayes({"temperature": bnb.Gamma()}).fit(
    ...     temps, target="play", estimate="ml"
    ... )
    >>> no = fit.params.sel(class_label="No")
    >>> round(float(no["temperature_shape"]), 2), round(float(no["temperature_rate"]), 3)
    (12.78, 0.535)
    >>> mean = temps.loc[temps["play"] == "No", "temperature"].mean()
    >>> round(float(no["temperature_shape"] / no["temperature_rate"]), 2), round(float(mean), 2)
    (23.88, 23.88)
    """

    kind = "gamma"
    suffixes = ("shape", "rate", "n", "sum", "sum_log")
    multi_column = True
    em_estimate = "ml"
    generalized = True  # its M-step may start from the current parameters

    def __init__(self, prior=None, *, steps: int | None = 1, estimate=None, columns=None):
        if prior is not None:
            raise InputError(
                f"Gamma takes no prior (only estimate='ml' is defined for it); got {prior!r}."
            )
        if estimate not in (None, "ml"):
            raise InputError(f"Gamma is estimated by maximum likelihood only; got {estimate!r}.")
        # its only estimator, whatever estimate= a fit gives the other features
        super().__init__(None, estimate="ml", columns=columns)
        if steps is not None and (
            isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 1
        ):
            raise InputError(f"Gamma steps must be None or an int >= 1; got {steps!r}.")
        self.steps = steps

    def __repr__(self) -> str:
        return f"Gamma(steps={self.steps!r}, columns={self.columns!r})"

    def _what(self) -> str:
        return f"Gamma feature {self.name!r}"

    def check_em_estimate(self, method: str) -> None:
        if method != "ml":
            raise InputError(
                f"{self._what()} is estimated by estimate='ml' only; got {method!r}. Leave "
                "estimate unset for it, or declare Gamma(estimate='ml')."
            )

    def _learn(self, data, sample_weight=None) -> None:
        self.encode(data)  # the values' check

    def encode(self, data) -> np.ndarray:
        """The values as a float matrix (NaN where missing); a value <= 0 or infinite
        raises."""
        x = np.asarray(_as_float_matrix(data, self._what()), dtype=float)
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(x) & ~((x > 0) & np.isfinite(x))
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(
                f"{self._what()} has the value {float(x[i, j])!r} in column "
                f"{self.columns[j]!r}, row {i}; a Gamma needs finite values > 0. Use NaN "
                "for a missing value, or another family for data that can be 0 or negative."
            )
        return x

    def seed_features(self, data) -> np.ndarray:
        logx = np.log(self.encode(data))
        centre, spread = np.nanmean(logx, axis=0), np.nanstd(logx, axis=0)
        return np.nan_to_num((logx - centre) / np.where(spread > 0, spread, 1.0), nan=0.0)

    # -- statistics and estimates -----------------------------------------------------
    def count(self, enc, resp) -> dict:
        """``{"n", "sum", "sum_log"}`` (K, d): weighted counts, sums and sums of
        logarithms of the observed values."""
        x = enc
        r = resp.dense() if isinstance(resp, Labels) else np.asarray(resp, dtype=float)
        seen = ~np.isnan(x)
        values = np.where(seen, x, 0.0)
        return {
            "n": r.T @ seen.astype(float),
            "sum": r.T @ values,
            "sum_log": r.T @ np.log(np.where(seen, x, 1.0)),
        }

    def estimate_params(self, stats, method, *, labels=None, current=None) -> dict:
        """``{"shape", "rate"}`` (K, d): the maximum-likelihood shape (or, with
        ``current`` parameters and ``steps``, that many improving Newton steps from the
        current shape), and the rate :math:`a / \\bar x` that maximizes given it."""
        if method != "ml":
            raise InputError(f"{self._what()} is estimated by estimate='ml' only; got {method!r}.")
        n, total, total_log = stats["n"], stats["sum"], stats["sum_log"]
        names = labels if labels is not None else list(range(len(n)))
        empty = np.argwhere(n <= 0)
        if empty.size:
            k, j = empty[0]
            raise InputError(
                f"{self._what()}: class {names[k]!r} has no observed value in column "
                f"{self.columns[j]!r}, so its maximum-likelihood Gamma is undefined. {_REMEDY}"
            )
        mean = total / n
        s = np.log(mean) - total_log / n  # log of mean minus mean of logs, >= 0
        if np.any(s <= 1e-14 * np.abs(np.log(mean)) + 1e-300):
            k, j = np.argwhere(s <= 1e-14 * np.abs(np.log(mean)) + 1e-300)[0]
            raise InputError(
                f"{self._what()}: class {names[k]!r} holds a single distinct value in column "
                f"{self.columns[j]!r} (weight {float(n[k, j]):.6g}), where the Gamma's "
                f"likelihood grows without bound as its shape does. {_REMEDY}"
            )
        if current is None or self.steps is None:
            shape = _shape_ml(s)
        else:
            shape = np.asarray(current["shape"], dtype=float)
            for _ in range(self.steps):
                shape = _improving_step(shape, s)
        return {"shape": shape, "rate": shape / mean}

    def log_likelihood(self, enc, params) -> np.ndarray:
        x = enc
        a, b = np.asarray(params["shape"], float), np.asarray(params["rate"], float)
        seen = ~np.isnan(x)
        logx = np.log(np.where(seen, x, 1.0))
        values = np.where(seen, x, 0.0)
        const = a * np.log(b) - special.gammaln(a)  # (K, d)
        return seen.astype(float) @ const.T + logx @ (a - 1.0).T - values @ b.T

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        a, b = params["shape"], params["rate"]
        n, total, total_log = stats["n"], stats["sum"], stats["sum_log"]
        return float(
            np.sum(n * (a * np.log(b) - special.gammaln(a)) + (a - 1.0) * total_log - b * total)
        )

    def posterior_hyper(self, stats: dict) -> dict:
        raise InputError(
            f"{self._what()} has no conjugate prior in bayesnb, so it has no exact "
            "posterior, PyMC model or Gibbs sampler; it is estimated by maximum "
            "likelihood (fit, or cluster with method='em')."
        )

    def n_free_parameters(self, n_labels: int) -> int:
        return 2 * n_labels * self.n_columns

    # -- EM's extrapolation in unconstrained coordinates: log shape and log rate -----
    def unconstrained(self, params: dict, scale=None) -> list[np.ndarray]:
        return [np.log(params["shape"]), np.log(params["rate"])]

    def unconstrained_scale(self, params: dict):
        return None

    def from_unconstrained(self, take, like: dict, scale) -> dict:
        shape = np.exp(take(like["shape"].shape))
        return {"shape": shape, "rate": np.exp(take(like["rate"].shape))}

    # -- parameters in and out --------------------------------------------------------
    def params_from(self, source, K: int) -> dict:
        from bayesnb.families import _given

        shape = _given.source_value(source, f"{self.name}_shape")
        rate = _given.source_value(source, f"{self.name}_rate")
        if shape is None or rate is None:
            raise ValueError(
                f"init lacks the Gamma parameters of {self.name!r}: give "
                f"{self.name + '_shape'!r} and {self.name + '_rate'!r}."
            )
        shape = np.asarray(getattr(shape, "values", shape), float).reshape(K, -1)
        rate = np.asarray(getattr(rate, "values", rate), float).reshape(K, -1)
        if not (np.all(shape > 0) and np.all(rate > 0)):
            raise ValueError(f"init for Gamma {self.name!r} needs shapes and rates > 0.")
        return {"shape": shape, "rate": rate}

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        return self._columns_to_xarray(params, stats, label_dim, labels)

    def sample(self, params, components, rng) -> np.ndarray:
        a, b = np.asarray(params["shape"]), np.asarray(params["rate"])
        return rng.gamma(a[components], 1.0 / b[components])

    def observed_codes(self, data) -> np.ndarray:
        return self.encode(data)

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        return self.sample(params, components, rng)

    def divergence(self, params: dict, reference: dict) -> np.ndarray:
        """The Kullback-Leibler divergence of Gamma(a, b) from Gamma(a0, b0):
        :math:`(a - a_0)\\psi(a) - \\log\\Gamma(a) + \\log\\Gamma(a_0) + a_0(\\log b -
        \\log b_0) + a (b_0 - b)/b`."""
        a, b = params["shape"], params["rate"]
        a0, b0 = reference["shape"][0], reference["rate"][0]
        return (
            (a - a0) * special.digamma(a)
            - special.gammaln(a)
            + special.gammaln(a0)
            + a0 * (np.log(b) - np.log(b0))
            + a * (b0 - b) / b
        )

    def describe(self, params: dict, reference: dict) -> dict:
        mean = params["shape"] / params["rate"]
        m0 = reference["shape"][0] / reference["rate"][0]
        return {
            col: [f"mean {mean[k, j]:.4g} (all: {m0[j]:.4g})" for k in range(len(mean))]
            for j, col in enumerate(self.columns)
        }

    def merge_stats(self, a: dict, b: dict) -> dict:
        return {key: np.add(a[key], b[key]) for key in a}


def _profile(shape, s):
    """The expected complete-data log-likelihood per unit weight with the rate at its
    maximum given the shape, up to terms free of the shape:
    :math:`a\\log a - a - \\log\\Gamma(a) - a s`, concave in :math:`a`."""
    return shape * np.log(shape) - shape - special.gammaln(shape) - shape * s


def _newton(shape, s):
    """Minka's Newton step for :math:`\\log a - \\psi(a) = s`, taken in :math:`1/a`."""
    gap = np.log(shape) - special.digamma(shape) - s
    slope = 1.0 / shape - special.polygamma(1, shape)
    return 1.0 / (1.0 / shape + gap / (shape * shape * slope))


def _improving_step(shape, s):
    """One Newton step from ``shape``, halved (in :math:`\\log a`) until the profile
    does not decrease: the generalized M-step."""
    target = _profile(shape, s)
    step = np.log(_newton(shape, s)) - np.log(shape)
    new = shape.copy()
    todo = np.ones(shape.shape, bool)
    for _ in range(60):
        trial = shape * np.exp(step)
        better = np.isfinite(trial) & (trial > 0) & (_profile(trial, s) >= target)
        take = todo & better
        new[take] = trial[take]
        todo &= ~better
        if not todo.any():
            break
        step = np.where(todo, step / 2.0, step)
    return new


def _shape_ml(s):
    """The maximum-likelihood shape: Minka's Newton iterations to convergence from his
    start :math:`(3 - s + \\sqrt{(s - 3)^2 + 24 s}) / (12 s)` (the equation is
    concave in the shape, and the iterations converge quadratically from there)."""
    shape = (3.0 - s + np.sqrt((s - 3.0) ** 2 + 24.0 * s)) / (12.0 * s)
    for _ in range(_MAX_NEWTON):
        new = _newton(shape, s)
        new = np.where(np.isfinite(new) & (new > 0), new, shape)
        if np.all(np.abs(new - shape) <= _SHAPE_TOL * shape):
            return new
        shape = new
    return shape
