"""The Gaussian family with its Normal-Inverse-Gamma prior."""

from __future__ import annotations

import copy

import numpy as np

from bayesnb import _compiled
from bayesnb._special import log_rising
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import _given
from bayesnb.families._kernels import (
    Labels,
    _as_float_matrix,
    standardized,
    warn_constant_columns,
)
from bayesnb.families.base import Family
from bayesnb.marginals import InverseGammaMarginal, SqrtOf, StudentTMarginal
from bayesnb.priors import NormalInverseGamma
from bayesnb.sufficient import merge_stats, pool_stats

LOG_2PI = np.log(2.0 * np.pi)
_NIG_FIELDS = ("mu", "kappa", "alpha", "beta")


#: The default prior, made once (priors are immutable): every parameter filled in
#: where the feature is fitted, in a classifier or a mixture (see NormalInverseGamma).
_DEFAULT_PRIOR = NormalInverseGamma(kappa=None, alpha=None)


class Gaussian(Family):
    """A continuous feature (or block, ``columns=[...]``) with a Gaussian likelihood.

    Parameters
    ----------
    prior : NormalInverseGamma, optional
        Conjugate prior. The default is weak and scaled to the data: in a classifier
        each class's prior is centred on the class's own mean, with ``kappa = alpha
        = 1`` and ``beta = alpha`` times the class's own variance (the pooled
        within-class variance where a class's own is 0); in a mixture of K
        components one prior for every component, Fraley and Raftery's (``kappa =
        0.01``, ``alpha = 1.5``, centred on the mean of all the rows, ``beta`` half
        their variance over K²), the one-column case of
        :class:`~bayesnb.MultivariateGaussian`'s. See
        :class:`~bayesnb.priors.NormalInverseGamma`, *Default*.
    ddof : {0, 1}
        For ``estimate="ml"``: 0 divides the sum of squares by N (the maximum
        likelihood variance), 1 by N - 1 (the unbiased variance).
    var_floor : float, default 0.0
        A variance added to every estimated variance (and to the Student-t's squared
        scale under ``"predictive"``), so that a column constant within a class has a
        finite density under ``"ml"``: scikit-learn's ``epsilon_``. Classifiers only;
        EM's M-step must be a maximizer, so clustering rejects a floor.

    Notes
    -----
    ``estimate="predictive"`` replaces the Gaussian by the Student-t posterior
    predictive of the Normal-Inverse-Gamma posterior.

    The statistics of every class (or component) and column are the weighted count
    :math:`n_c`, the mean :math:`\\bar x_c` and :math:`S_c = \\sum w (x - \\bar x_c)^2`,
    exact to round-off whatever the data's offset and the rows' order: one compiled
    read of the data (:func:`bayesnb._compiled.dense_moments`) by blocks of rows,
    every class's deviations taken from its own centre, and the blocks merged by the
    pairwise update of Chan, Golub and LeVeque (:func:`bayesnb.sufficient.merge_stats`);
    only a block far from its class's centre is read a second time, in cache. Only a
    class whose values are all equal has :math:`S_c = 0`. The log-likelihood takes
    every deviation from the component's own mean.

    A missing value (NaN) is left out of both (marginalized): complete data is read
    once, and the statistics are counted again, leaving the missing entries out, only
    when the first read finds a NaN. An infinite value is an error naming its column.
    As every deviation is taken from a mean, values of any size can be fitted as long
    as their spread is a float: a class whose summed squared deviations exceed the
    largest float (about 1.8e308) is an error naming the column.

    Examples
    --------
    Seed 001's temperatures by class: under ``estimate="ml"`` (``ddof=0``) the
    parameters are each class's mean and variance over N.

    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> temps = bnb.datasets.temperature()
    >>> fit = bnb.NaiveBayes({"temperature": bnb.Gaussian()}).fit(
    ...     temps, target="play", estimate="ml"
    ... )
    >>> no = temps.loc[temps["play"] == "No", "temperature"]
    >>> round(float(no.mean()), 2), round(float(np.var(no)), 2)
    (23.88, 40.21)
    >>> no_params = fit.params.sel(class_label="No")
    >>> float(no_params["temperature_mu"]), float(no_params["temperature_var"])
    (23.88, 40.2096)
    """

    kind = "gaussian"
    suffixes = ("mu", "var", "sigma", "n", "mean", "ss")
    multi_column = True
    em_estimate = "map"  # the Normal-Inverse-Gamma mode: a variance never 0

    def check_em_estimate(self, method: str) -> None:
        """EM takes ``"ml"`` (with ``ddof=0``, the 1/N variance) or ``"map"``: the
        posterior mean of the variance is no mode EM could climb to."""
        super().check_em_estimate(method)
        if method == "mean":
            raise InputError(
                f"Gaussian feature {self.name!r} would be estimated by estimate='mean'; EM's "
                "M-step must maximize the objective, and the posterior mean of a "
                "Gaussian's variance does not. Use estimate='map' for it (the default "
                "when estimate is not given), or declare Gaussian(estimate='map')."
            )
        if self.var_floor:
            raise InputError(
                f"Gaussian feature {self.name!r} has var_floor={self.var_floor!r}; EM's "
                "M-step must maximize the objective, and a floor added to the maximizing "
                "variance does not. Declare Gaussian(var_floor=0.0) and use estimate='map' "
                "(the default), whose prior keeps every variance positive."
            )
        if self.ddof != 0 and method == "ml":
            raise InputError(
                f"Gaussian feature {self.name!r} has ddof={self.ddof}; EM's M-step must be "
                "the maximum-likelihood 1/N variance. Declare Gaussian(ddof=0) or use "
                "estimate='map'."
            )

    def __init__(
        self, prior=None, *, ddof: int = 0, var_floor: float = 0.0, estimate=None, columns=None
    ):
        super().__init__(
            _DEFAULT_PRIOR if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, NormalInverseGamma):
            raise InputTypeError(
                "Gaussian prior must be a NormalInverseGamma; got "
                f"{self.prior!r} ({type(self.prior).__name__}). Use "
                "bnb.NormalInverseGamma(mu=..., kappa=..., alpha=..., beta=...), or leave "
                "prior=None for the default."
            )
        if isinstance(ddof, bool) or ddof not in (0, 1):
            raise InputError(
                f"Gaussian ddof must be 0 (1/N, maximum likelihood) or 1 (1/(N-1), "
                f"unbiased); got ddof={ddof!r}."
            )
        self.ddof = ddof
        if (
            not isinstance(var_floor, int | float | np.integer | np.floating)
            or isinstance(var_floor, bool)
            or not np.isfinite(var_floor)
            or var_floor < 0
        ):
            raise InputError(
                f"Gaussian var_floor must be a finite number >= 0 (a variance added to "
                f"every estimated variance); got var_floor={var_floor!r}. Use 0.0 for none."
            )
        self.var_floor = float(var_floor)

    def _what(self) -> str:
        return f"Gaussian feature {self.name!r}"

    def bind(
        self, name, columns, data, sample_weight=None, *, counted=False, n_labels=None
    ) -> Gaussian:
        bound = super().bind(name, columns, data, sample_weight, counted=counted, n_labels=n_labels)
        if n_labels is not None:  # a mixture's components: a prior's rows are theirs
            bound.prior.check_shape(bound.n_columns, n_labels, what=bound._what())
        if bound.needs_pooled(counted):  # e.g. EM: the counts come later, reweighted
            # One prior for every component, from the statistics of one class holding
            # every row; fixed before EM, so EM's objective stays fixed.
            x = bound.encode(data)
            w = np.ones(len(x)) if sample_weight is None else np.asarray(sample_weight, float)
            stats = bound.count(x, w[:, None])
            bound._check_spread(x, stats, lambda k: w > 0)
            bound.adopt_pooled(stats, n_labels)
        return bound

    def _check_mixture_data(self, data, sample_weight=None) -> None:
        warn_constant_columns(self._what(), self.columns, self.encode(data), sample_weight)

    def needs_pooled(self, counted: bool) -> bool:
        """The default prior's mean and scale, when no classifier's counts give them."""
        return self._pending() and not counted

    def pooled_stats(self, data, weights: np.ndarray) -> dict:
        return self.count(self.encode(data), np.asarray(weights, float)[:, None])

    def adopt_pooled(self, stats: dict, n_labels: int | None = None) -> None:
        """The mixture's one prior of every one of ``n_labels`` components."""
        self._check_observed(stats["n"])
        self.prior = self.prior.resolve(*_pooled_moments(stats), n_labels)

    def _learn(self, data, sample_weight=None) -> None:
        self.prior.check_shape(self.n_columns, what=self._what())
        if not self._pending():  # nothing to learn from the data
            self.prior = self.prior.resolve(None, None)

    # -- fused groups (see bayesnb.families.base.fusion_groups) -----------------------------
    def fusion_key(self):
        """Single columns, each its own feature, under equal estimators, ``ddof`` and
        ``var_floor``, and priors of one layout: each parameter the default (None), one
        shared number, or one value per class of this column (e.g. the default once
        resolved), which the fused block lays side by side."""
        if len(self.columns) != 1 or self.columns[0] != self.name:
            return None
        if self.prior.by_column():
            return None
        return ("gaussian", self.estimate, self.ddof, self.var_floor, *self.prior.layout())

    def fused(self, blocks) -> Gaussian:
        out = copy.copy(self)
        out.columns = [b.columns[0] for b in blocks]
        values = {}
        for name in _NIG_FIELDS:
            v = getattr(self.prior, name)
            if v is not None and np.ndim(v) != 0:  # one value per column: side by side
                v = np.concatenate([np.asarray(getattr(b.prior, name)) for b in blocks], axis=-1)
            values[name] = v
        out.prior = NormalInverseGamma(**values)
        return out

    def _binds_each(self, data) -> bool:
        return True

    def column_blocks(self) -> list[Gaussian]:
        out = super().column_blocks()
        for block, prior in zip(out, self.prior.columns(len(out)), strict=True):
            block.prior = prior
        return out

    def adopt(self, fused: Gaussian, j: int) -> None:
        """The default prior the fused estimate resolved, column ``j`` of it."""
        if self._pending() and not fused._pending():
            self.prior = fused.prior.column(j)

    def _pending(self) -> bool:
        """Whether the prior still has defaults to fill in (a parameter None)."""
        return self.prior.pending()

    def _check_observed(self, n: np.ndarray) -> None:
        """A column with no observed value (of positive weight) at all is an error."""
        empty = np.flatnonzero(np.sum(n, axis=0) <= 0)
        if empty.size:
            raise InputError(
                f"{self._what()} has a column with no observed value (of positive weight), "
                f"{self.columns[int(empty[0])]!r}, so its Gaussian is undefined there. Drop "
                "the column, or give it values."
            )

    def _check_finite(self, x: np.ndarray) -> None:
        """Raise an InputError naming the first column of ``x`` with an infinite value."""
        bad = np.isinf(x)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(
                f"{self._what()} has an infinite value ({x[i, j]!r}) in column "
                f"{self.columns[j]!r}, row {i}. A Gaussian needs finite values: use NaN "
                "for a missing value, or remove the row."
            )

    def _check_spread(self, x: np.ndarray, stats: dict, rows) -> None:
        """Raise an InputError naming the class and column where the values differ but
        their variance is below the smallest normal float (about 2.2e-308): it then
        underflows to 0 or loses its digits, and every estimate would be wrong.
        ``rows(k)`` is the mask of the rows of class ``k``."""
        n, ss = stats["n"], stats["ss"]
        with np.errstate(divide="ignore", invalid="ignore"):
            tiny = (n > 0) & (ss < n * np.finfo(float).tiny)
        for k, j in np.argwhere(tiny):
            values = x[rows(k), j]
            values = values[~np.isnan(values)]
            if values.size and values.max() != values.min():
                raise InputError(
                    f"{self._what()} has values in column {self.columns[j]!r} (class #{k}) "
                    f"that differ, from {values.min():.3g} to {values.max():.3g}, but whose "
                    "variance is below the smallest normal float (about 2.2e-308), so it "
                    "cannot be computed. Rescale the column (e.g. multiply it by a power "
                    "of ten) before fitting."
                )

    def encode(self, data):
        """The values as a float matrix, unchecked: a missing value (NaN) is left out
        where the values are read (``count``, ``log_likelihood``), and an infinite
        value raises there."""
        return np.asarray(_as_float_matrix(data, self._what()), dtype=float)

    def em_kernel(self, data, method: str, n_components: int):
        """MAP-EM under the resolved Normal-Inverse-Gamma prior runs in the compiled EM
        loop (its values and the prior's parameters, each (K, columns)); ML-EM does
        not (None)."""
        from bayesnb import _em_loop

        if method != "map" or self._pending() or self.var_floor:
            return None
        shape = (n_components, self.n_columns)

        def full(value):
            return np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=float), shape))

        p = self.prior
        return _em_loop.GaussianKernel(
            self.encode(data), full(p.mu), full(p.kappa), full(p.alpha), full(p.beta)
        )

    def seed_features(self, data) -> np.ndarray:
        """Every column standardized (a constant one centred only); a missing value
        at the column's mean, 0."""
        x = self.encode(data)
        if not np.isfinite(x).all():
            self._check_finite(x)
        return standardized(x)

    def count(self, enc, resp) -> dict:
        x = enc
        if isinstance(resp, Labels):  # one compiled read, by label
            args = (resp.codes, resp.weights, np.empty((resp.n_labels, 0)))
            n_comp = resp.n_labels
        else:
            resp = np.asarray(resp, dtype=float)
            args = (np.empty(0, dtype=np.intp), None, resp.T)
            n_comp = resp.shape[1]
        stats = _moments(x, args, n_comp, masked=False)
        if not (np.isfinite(stats["mean"]).all() and np.isfinite(stats["ss"]).all()):
            stats = _moments(x, args, n_comp, masked=True)  # a value missing: again
        if isinstance(resp, Labels):
            codes, weights = resp.codes, resp.weights

            def rows(k):
                return (codes == k) if weights is None else (codes == k) & (weights > 0)

            self._check_spread(x, stats, rows)
        bad = ~(np.isfinite(stats["mean"]) & np.isfinite(stats["ss"]))
        if bad.any():
            self._check_finite(x)  # an infinite value; else sums beyond the largest float
            j = int(np.argwhere(bad)[0][-1])
            big = float(np.nanmax(np.abs(x[:, j])))
            raise InputError(
                f"{self._what()} has values as large as {big:.3g} in column "
                f"{self.columns[j]!r}, whose squared deviations from their mean sum beyond "
                "the largest float (about 1.8e308), so their variance cannot be stored. "
                "Rescale the column (e.g. divide it by a power of ten) before fitting."
            )
        return stats

    def estimate_params(self, stats, method, *, labels=None) -> dict:
        """``{"mu", "var"}`` (or the Student-t's ``{"df", "mu", "scale2"}``) of every
        class and column from the statistics. ``labels`` names the classes in error
        messages (by position otherwise)."""
        n = stats["n"]
        if self._pending():  # bound with counted=True: each class's own default prior
            self._check_observed(n)
            self.prior = self.prior.resolve_by_class(n, stats["mean"], stats["ss"])
        self.prior.check_shape(self.n_columns, np.shape(n)[0], what=self._what())
        est = self.prior.point_estimate(
            n,
            stats["mean"],
            stats["ss"],
            method,
            ddof=self.ddof,
            var_floor=self.var_floor,
            what=self._what(),
            labels=labels,
            columns=self.columns,
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

    # -- the exact conjugate posterior: a Normal-Inverse-Gamma per class and column --------
    def posterior_hyper(self, stats: dict) -> dict:
        """``{"mu", "kappa", "alpha", "beta"}`` of the posterior Normal-Inverse-Gamma,
        each (K, columns)."""
        post = self.prior.posterior(stats["n"], stats["mean"], stats["ss"])
        shape = np.shape(stats["n"])
        return {
            key: np.broadcast_to(np.asarray(getattr(post, key), dtype=float), shape)
            for key in ("mu", "kappa", "alpha", "beta")
        }

    def draw_params(self, hyper: dict, size: int, rng) -> dict:
        """``sigma2 = beta / Gamma(alpha)``, then ``mu ~ N(mu_n, sigma2 / kappa)``."""
        shape = (size, *hyper["mu"].shape)
        var = hyper["beta"] / rng.standard_gamma(np.broadcast_to(hyper["alpha"], shape))
        mu = hyper["mu"] + rng.standard_normal(shape) * np.sqrt(var / hyper["kappa"])
        rows = size * shape[1]
        return {"mu": mu.reshape(rows, -1), "var": var.reshape(rows, -1)}

    def marginals(self, hyper: dict) -> dict:
        """The mean's Student-t (``2 alpha`` degrees of freedom, scale
        ``sqrt(beta / (alpha kappa))``), the variance's inverse gamma and the standard
        deviation's square root of it."""
        alpha, beta, kappa = hyper["alpha"], hyper["beta"], hyper["kappa"]
        var = InverseGammaMarginal(alpha, beta)
        return {
            "mu": StudentTMarginal(2.0 * alpha, hyper["mu"], np.sqrt(beta / (alpha * kappa))),
            "var": var,
            "sigma": SqrtOf(var),
        }

    def log_likelihood(self, enc, params) -> np.ndarray:
        x = enc
        if "df" in params:
            return self._student_t(x, params["df"], params["mu"], params["scale2"])
        var = np.asarray(params["var"], dtype=float)
        mu = np.ascontiguousarray(np.broadcast_to(params["mu"], var.shape), dtype=float)
        inv_sd = np.ascontiguousarray(1.0 / np.sqrt(var))
        const = np.ascontiguousarray(-0.5 * (np.log(var) + LOG_2PI))
        out = np.empty((var.shape[0], x.shape[0]))
        with np.errstate(invalid="ignore", over="ignore"):
            _compiled.dense_gaussian_scores(x, mu, inv_sd, const, out)
        if not np.isfinite(out).all():  # an infinite value, or a deviation beyond 1e154 sd
            self._check_finite(x)
        return out.T

    def _student_t(self, x, df, loc, scale2) -> np.ndarray:
        self._check_finite(x)
        return student_t_scores(x, df, loc, scale2)

    def sample(self, params, components, rng) -> np.ndarray:
        """Draws (n, columns) of the classes ``components``: from their Gaussians, or
        under ``estimate="predictive"`` from their Student-t posterior predictives,
        :math:`\\mu + \\sqrt{s^2}\\,t_\\nu`."""
        if "df" in params:
            df, loc, scale2 = (
                np.asarray(params[key], dtype=float)[components] for key in ("df", "mu", "scale2")
            )
            return loc + np.sqrt(scale2) * rng.standard_t(df)
        return rng.normal(params["mu"][components], np.sqrt(params["var"][components]))

    def observed_codes(self, data) -> np.ndarray:
        """The values (NaN where missing)."""
        x = self.encode(data)
        self._check_finite(x)
        return x

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        return self.sample(params, components, rng)

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
        out = self._columns_to_xarray(params, stats, label_dim, labels)
        if "var" in params and "sigma" not in params:
            var = out["params"][f"{self.name}_var"]
            out["params"][f"{self.name}_sigma"] = np.sqrt(var)
        return out

    # -- sequential updating (see bayesnb.NaiveBayesFit.update) ---------------------------
    def merge_stats(self, a: dict, b: dict) -> dict:
        """Counts, means and sums of squares of two disjoint batches merged by the
        pairwise update of Chan, Golub and LeVeque
        (:func:`bayesnb.sufficient.merge_stats`). Batches whose means lie so far apart
        that the merged sum of squares passes the largest float raise an
        :class:`~bayesnb.errors.InputError` naming the column."""
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            merged = merge_stats(a, b)
        bad = ~(np.isfinite(merged["mean"]) & np.isfinite(merged["ss"]))
        if bad.any():
            k, j = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(
                f"{self._what()}: the batches' means of column {self.columns[j]!r} "
                f"({float(np.asarray(a['mean'])[k, j]):.3g} and "
                f"{float(np.asarray(b['mean'])[k, j]):.3g}) lie so far apart that the "
                "squared deviations of all their rows from one mean sum beyond the largest "
                "float (about 1.8e308), so their variance cannot be stored. Rescale the "
                "column (e.g. divide it by a power of ten) in every batch, and fit again."
            )
        return merged


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------


def student_t_scores(x, df, loc, scale2) -> np.ndarray:
    """(n, K): every row's sum over the columns of the Student-t log densities with
    ``df`` degrees of freedom, location ``loc`` and squared scale ``scale2`` (each
    (K, columns)); a missing value adds 0."""
    missing = np.isnan(x)
    df, loc, scale2 = (np.asarray(v, dtype=float) for v in (df, loc, scale2))
    norm = log_rising(df / 2, 0.5)  # ln Gamma((df + 1) / 2) - ln Gamma(df / 2)
    norm = norm - 0.5 * np.log(df * np.pi * scale2)
    width = np.sqrt(df * scale2)
    out = np.empty((x.shape[0], df.shape[0]))
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(df.shape[0]):
            z = (x - loc[k]) / width[k]  # scaled before it is squared
            squared = z * z
            log1p_sq = np.log1p(squared)
            far = np.isinf(squared) & np.isfinite(z)  # |z| beyond about 1.3e154
            if far.any():  # log(1 + z^2) = 2 log|z| + log(1 + z^-2), which stays finite
                wide = np.abs(z[far])
                log1p_sq[far] = 2.0 * np.log(wide) + np.log1p((1.0 / wide) ** 2)
            term = norm[k] - 0.5 * (df[k] + 1) * log1p_sq
            out[:, k] = np.where(missing, 0.0, term).sum(axis=1)
    return out


def _moments(x: np.ndarray, args: tuple, n_comp: int, masked: bool) -> dict:
    """``{"n", "mean", "ss"}`` (K, d) of ``x`` by class: the compiled read
    :func:`bayesnb._compiled.dense_moments` with the label arguments ``args``;
    ``masked``: leaving the missing entries out (else a missing entry gives NaN)."""
    n, mean, ss = (np.zeros((n_comp, x.shape[1])) for _ in range(3))
    # data stored column by column (a DataFrame's block) is read that way, as x.T
    by_column = len(x) > 1 and x.shape[1] > 1 and x.T.flags.c_contiguous
    rows = np.empty((0, x.shape[1])) if by_column else np.ascontiguousarray(x, dtype=float)
    columns = x.T if by_column else np.empty((x.shape[1], 0))
    labels, weights, resp = args
    # read-only views: one compiled type whether the caller's arrays are writable
    rows, columns, weights = _compiled.read_only_arrays((rows, columns, weights))
    with np.errstate(invalid="ignore", over="ignore"):
        _compiled.dense_moments(rows, columns, labels, weights, resp, masked, n, mean, ss)
    return {"n": n, "mean": mean, "ss": ss}


def _pooled_moments(stats: dict) -> tuple[np.ndarray, np.ndarray]:
    """Pooled mean and 1/N variance of the rows behind per-class statistics (K, d):
    the classes' statistics merged (:func:`bayesnb.sufficient.pool_stats`). A column
    with no observed row gets NaN."""
    pooled = pool_stats(stats)
    n, mean, ss = pooled["n"][0], pooled["mean"][0], pooled["ss"][0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, mean, np.nan), ss / n
