"""The Gaussian family with its Normal-Inverse-Gamma prior."""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr
from scipy import special

from bayesnb import _compiled
from bayesnb.families import _given
from bayesnb.families._kernels import (
    _BLOCK_ENTRIES,
    Labels,
    _as_float_matrix,
    _row_blocks,
    dense,
)
from bayesnb.families.base import Family
from bayesnb.priors import NormalInverseGamma
from bayesnb.sufficient import pool_stats

LOG_2PI = np.log(2.0 * np.pi)


class Gaussian(Family):
    """A continuous feature (or block, ``columns=[...]``) with a Gaussian likelihood.

    Parameters
    ----------
    prior : NormalInverseGamma, optional
        Conjugate prior; the default is weak and scaled to the pooled data.
    ddof : {0, 1}
        For ``estimate="ml"``: 0 divides the sum of squares by N (the maximum
        likelihood variance), 1 by N - 1 (the unbiased variance).

    Notes
    -----
    ``estimate="predictive"`` replaces the Gaussian by the Student-t posterior
    predictive of the Normal-Inverse-Gamma posterior.

    The statistics are sums over rows of the values centred on ``shift`` (a value
    inside the data, taken from its first rows, only to keep round-off small) and of
    their squares: :math:`n_c`, the mean and :math:`S_c = \\sum (x - \\bar x_c)^2`
    per class. A classifier reads the data once to count them: the default prior's
    pooled mean and variance are then merged from the classes' statistics,
    :math:`\\bar x = \\sum_c n_c \\bar x_c / N` and
    :math:`S = \\sum_c [S_c + n_c (\\bar x_c - \\bar x)^2]` (Chan, Golub and LeVeque),
    and a missing value is found from sums that are not finite: only then are the
    rows read again with the missing entries left out.
    """

    kind = "gaussian"
    multi_column = True

    def __init__(self, prior=None, *, ddof: int = 0, estimate=None, columns=None):
        super().__init__(
            NormalInverseGamma() if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, NormalInverseGamma):
            raise TypeError(f"Gaussian prior must be a NormalInverseGamma; got {self.prior!r}.")
        if ddof not in (0, 1):
            raise ValueError(
                f"ddof must be 0 (1/N, maximum likelihood) or 1 (1/(N-1), unbiased); got {ddof!r}."
            )
        self.ddof = ddof
        self.shift: np.ndarray | None = None

    def bind(self, name, columns, data, sample_weight=None, *, counted=False) -> Gaussian:
        bound = super().bind(name, columns, data, sample_weight, counted=counted)
        if bound._pending() and not counted:  # e.g. EM: the counts come later, reweighted
            # The pooled moments are the statistics of one class holding every row.
            x = bound.encode(data)
            w = np.ones(len(x)) if sample_weight is None else np.asarray(sample_weight, float)
            stats = bound.count(x, w[:, None])
            bound._resolve(*_pooled_moments(stats))
        return bound

    def _learn(self, data, sample_weight=None) -> None:
        x = np.asarray(_as_float_matrix(data, f"Gaussian feature {self.name!r}"), dtype=float)
        self.shift = _cheap_centre(x)
        if not self._pending():  # nothing to learn from the data
            self.prior = self.prior.resolve(None, None)

    def _pending(self) -> bool:
        """Whether the prior still has data-dependent defaults (pooled mean or variance)."""
        return self.prior.mu is None or self.prior.beta is None

    def _resolve(self, mean: np.ndarray, var: np.ndarray) -> None:
        if np.any(np.isnan(mean)):
            raise ValueError(
                f"Gaussian feature {self.name!r} has a column with no observed value "
                "(of positive weight). Drop it."
            )
        self.prior = self.prior.resolve(mean, var)

    def _inf_error(self):
        raise ValueError(
            f"Gaussian feature {self.name!r} has an infinite value. Use NaN for a missing "
            "value, or remove the row."
        )

    def encode(self, data):
        """The values as a float matrix, unchecked.

        A missing value (NaN) is found where it matters: ``count`` and
        ``log_likelihood`` work one block of rows at a time, in cache, and a block whose
        sums are not finite is done again with its missing values left out (an
        infinite value raises there). Complete data is thus read once per product.
        """
        return np.asarray(_as_float_matrix(data, f"Gaussian feature {self.name!r}"), dtype=float)

    def _drop_missing(self, xc: np.ndarray) -> np.ndarray | None:
        """Zero the missing entries of a centred block, in place.

        Returns the float mask of the missing entries (None when there are none: the
        block's sums overflowed instead). An infinite value raises.
        """
        missing = np.isnan(xc)
        if np.isinf(xc).any():
            self._inf_error()
        if not missing.any():
            return None
        xc[missing] = 0.0
        return missing.astype(float)

    def _sums(self, x: np.ndarray, resp: np.ndarray, masked: bool):
        """``resp.T @ (x - shift)``, ``resp.T @ (x - shift)**2`` and (``masked``) the
        weight of the missing entries ``resp.T @ isnan(x)``, which are left out.

        The hot loop: each block of rows is centred into one buffer, in cache, which
        is squared in place between the two products.
        """
        n_labels, d = resp.shape[1], x.shape[1]
        s1, s2 = np.zeros((n_labels, d)), np.zeros((n_labels, d))
        part = np.empty((n_labels, d))
        unseen = np.zeros((n_labels, d)) if masked else None
        by_label = resp.T
        for rows, xc in _centred_blocks(x, self.shift):
            r = by_label[:, rows]
            if masked:
                missing = self._drop_missing(xc)
                if missing is not None:
                    unseen += r @ missing
            s1 += np.matmul(r, xc, out=part)
            s2 += np.matmul(r, np.multiply(xc, xc, out=xc), out=part)
        return s1, s2, unseen

    def count(self, enc, resp) -> dict:
        x = enc
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf: checked just below
            if isinstance(resp, Labels):  # one compiled read, by label
                s1, s2 = np.zeros((2, resp.n_labels, x.shape[1]))
                shift = np.broadcast_to(self.shift, x.shape[1])
                _compiled.dense_label_moments(x, shift, resp.codes, resp.weights, s1, s2)
                unseen, totals = None, resp.totals()
            else:
                s1, s2, unseen = self._sums(x, resp, masked=False)
                totals = resp.sum(axis=0)
        if not np.isfinite(s1.sum() + s2.sum()):  # a value missing (or infinite): again
            s1, s2, unseen = self._sums(x, dense(resp), masked=True)
        n = np.broadcast_to(totals[:, None], s1.shape).copy()
        if unseen is not None:
            n -= unseen
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_c = np.where(n > 0, s1 / n, 0.0)
        ss = s2 - n * mean_c**2
        # The difference carries a round-off of a few ulps of s2; below that it is 0.
        ss[ss <= 64 * np.finfo(float).eps * s2] = 0.0
        return {"n": n, "mean": mean_c + self.shift, "ss": ss}

    def estimate_params(self, stats, method) -> dict:
        if self._pending():  # bound with counted=True: the pooled moments of these counts
            self._resolve(*_pooled_moments(stats))
        est = self.prior.point_estimate(
            stats["n"],
            stats["mean"],
            stats["ss"],
            method,
            ddof=self.ddof,
            what=f"Gaussian feature {self.name!r}",
        )
        if method == "predictive":
            df, loc, scale2 = (np.asarray(v, float) for v in est)
            return {"df": df, "mu": loc, "scale2": scale2}
        mu, var = (np.asarray(v, float) for v in est)
        return {"mu": mu, "var": var}

    def divergence(self, params: dict, reference: dict) -> np.ndarray:
        """:math:`\\log(\\sigma/\\sigma_k) + (\\sigma_k^2 + (\\mu_k - \\mu)^2)/(2\\sigma^2)
        - 1/2` for every column."""
        vk, v0 = params["var"], reference["var"]
        return 0.5 * np.log(v0 / vk) + (vk + (params["mu"] - reference["mu"]) ** 2) / (2 * v0) - 0.5

    def describe(self, params: dict, reference: dict) -> dict:
        mu, sd = params["mu"], np.sqrt(params["var"])
        m0, s0 = reference["mu"][0], np.sqrt(reference["var"][0])
        return {
            col: [
                f"mean {mu[k, j]:.4g} ± {sd[k, j]:.3g} (all: {m0[j]:.4g} ± {s0[j]:.3g})"
                for k in range(len(mu))
            ]
            for j, col in enumerate(self.columns)
        }

    def log_marginal(self, stats: dict, n_labels: int) -> float:
        return self.prior.log_marginal_likelihood(stats["n"], stats["mean"], stats["ss"])

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        n, mean, ss = stats["n"], stats["mean"], stats["ss"]
        mu, var = params["mu"], params["var"]
        out = -0.5 * n * np.log(2.0 * np.pi * var) - (ss + n * (mean - mu) ** 2) / (2.0 * var)
        return float(np.sum(out))

    def log_prior(self, params) -> float:
        return float(self.prior.logpdf(params["mu"], params["var"]).sum())

    def n_free_parameters(self, n_labels: int) -> int:
        return 2 * n_labels * self.n_columns

    def log_likelihood(self, enc, params) -> np.ndarray:
        x = enc
        mu = params["mu"] - self.shift
        if "df" in params:
            return self._student_t(x, params["df"], mu, params["scale2"])
        # -0.5 * [(x - mu)**2 / var + log var + log 2 pi], summed over the columns, with
        # x - mu = xc - (mu - shift): a quadratic in the centred values xc.
        half_prec = -0.5 / params["var"]
        const = half_prec * mu * mu - 0.5 * (np.log(params["var"]) + LOG_2PI)
        linear = -2.0 * mu * half_prec
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf: checked just below
            out = self._quadratic(x, half_prec, linear, const, masked=False)
        if not np.isfinite(out.sum()):  # a value missing (or infinite): again
            out = self._quadratic(x, half_prec, linear, const, masked=True)
        return out.T

    def _quadratic(self, x, quad, linear, const, masked: bool) -> np.ndarray:
        """``quad @ xc2.T + linear @ xc.T + const.sum(1)`` (K, n), components first, with
        ``xc`` the centred values; ``masked``: a missing entry adds nothing."""
        out = np.empty((quad.shape[0], x.shape[0]))
        total = const.sum(axis=1)[:, None]
        for rows, xc in _centred_blocks(x, self.shift):  # squared in place, as in _sums
            missing = self._drop_missing(xc) if masked else None
            block = out[:, rows]
            np.matmul(linear, xc.T, out=block)
            block += quad @ np.multiply(xc, xc, out=xc).T
            block += total
            if missing is not None:
                block -= const @ missing.T
        return out

    def _student_t(self, x, df, loc, scale2) -> np.ndarray:
        missing = np.isnan(x)
        if np.isinf(x).any():
            self._inf_error()
        xc = np.where(missing, 0.0, x - self.shift)
        norm = (
            special.gammaln((df + 1) / 2)
            - special.gammaln(df / 2)
            - 0.5 * np.log(df * np.pi * scale2)
        )
        out = np.empty((xc.shape[0], df.shape[0]))
        for k in range(df.shape[0]):
            z = (xc - loc[k]) ** 2 / (df[k] * scale2[k])
            term = norm[k] - 0.5 * (df[k] + 1) * np.log1p(z)
            term[missing] = 0.0
            out[:, k] = term.sum(axis=1)
        return out

    def sample(self, params, components, rng) -> np.ndarray:
        return rng.normal(params["mu"][components], np.sqrt(params["var"][components]))

    def params_from(self, source, K: int) -> dict:
        """Means and variances (or standard deviations), ``(K, columns)``."""
        name = self.name
        mu = _given.source_value(source, f"{name}_mu")
        var = _given.source_value(source, f"{name}_var")
        sigma = _given.source_value(source, f"{name}_sigma")
        if mu is None or (var is None and sigma is None):
            raise ValueError(
                f"init lacks the Gaussian parameters of {name!r}: give {name + '_mu'!r} and "
                f"{name + '_var'!r} (or {name + '_sigma'!r}), each with a component axis."
            )

        def read(value, key):
            return _given.ordered(value, self, key, K, None, None).reshape(K, -1)

        mu = read(mu, f"{name}_mu")
        var = read(sigma, f"{name}_sigma") ** 2 if var is None else read(var, f"{name}_var")
        if mu.shape != (K, self.n_columns) or var.shape != mu.shape:
            raise ValueError(
                f"init for Gaussian {name!r} must have shape ({K}, {self.n_columns}); got "
                f"mu {mu.shape} and var {var.shape}."
            )
        if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(var)) and np.all(var > 0)):
            raise ValueError(
                f"init for Gaussian {name!r} needs finite means and variances > 0; got "
                f"var={var.tolist()!r}."
            )
        return {"mu": mu, "var": var}

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        dims = self._lead_dims(label_dim)
        coords = {label_dim: labels, **self._coords()}

        def arr(v):
            v = np.asarray(v)
            return v if self.n_columns > 1 else v[:, 0]

        if self.n_columns == 1:
            dims, coords = (label_dim,), {label_dim: labels}
        out = {"params": {}, "counts": {}}
        for key, value in params.items():
            out["params"][f"{self.name}_{key}"] = xr.DataArray(arr(value), dims=dims, coords=coords)
        if "var" in params:
            out["params"][f"{self.name}_sigma"] = xr.DataArray(
                np.sqrt(arr(params["var"])), dims=dims, coords=coords
            )
        for key, value in stats.items():
            out["counts"][f"{self.name}_{key}"] = xr.DataArray(arr(value), dims=dims, coords=coords)
        return out


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------


def _centred_blocks(x: np.ndarray, centre: np.ndarray):
    """Blocks ``(rows, x[rows] - centre)`` of about ``_BLOCK_ENTRIES`` entries.

    The blocks share one buffer (use each before taking the next). ``centre`` is
    tiled to a block's shape once, so the subtraction runs over whole blocks rather
    than row by row.
    """
    n, d = x.shape
    tiled = np.tile(centre, (min(n, max(1, _BLOCK_ENTRIES // max(1, d))), 1))
    buf = np.empty_like(tiled)
    for rows in _row_blocks(n, d):
        m = rows.stop - rows.start
        yield rows, np.subtract(x[rows], tiled[:m], out=buf[:m])


def _cheap_centre(x: np.ndarray) -> np.ndarray:
    """A value inside the data of every column, to centre on against round-off.

    The median of the finite values among the first rows (robust to an outlier
    there); a column with none there takes its first finite value, or 0. One small
    read, not a pass over the data.
    """
    head = x[: min(len(x), 1024)]
    with warnings.catch_warnings():  # a column with no finite value: handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        centre = np.nanmedian(np.where(np.isfinite(head), head, np.nan), axis=0)
    centre = np.atleast_1d(centre)
    for j in np.flatnonzero(np.isnan(centre)):
        found = np.flatnonzero(np.isfinite(x[:, j]))
        centre[j] = x[found[0], j] if found.size else 0.0
    return centre


def _pooled_moments(stats: dict) -> tuple[np.ndarray, np.ndarray]:
    """Pooled mean and 1/N variance of the rows behind per-class statistics (K, d):
    the classes' statistics merged (:func:`bayesnb.sufficient.pool_stats`). A column
    with no observed row gets NaN."""
    pooled = pool_stats(stats)
    n, mean, ss = pooled["n"][0], pooled["mean"][0], pooled["ss"][0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, mean, np.nan), ss / n
