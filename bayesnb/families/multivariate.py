"""The multivariate Gaussian family: one block of columns with a joint Gaussian
likelihood, its covariance full, diagonal, spherical or tied across the classes, and
its Normal-Inverse-Wishart prior."""

from __future__ import annotations

import contextlib

import numpy as np
import xarray as xr

from bayesnb import _compiled
from bayesnb._special import log_rising
from bayesnb.errors import InputError, InputTypeError, ZeroLikelihoodError
from bayesnb.families._kernels import (
    Labels,
    _as_float_matrix,
    standardized,
    warn_constant_columns,
)
from bayesnb.families.base import Family
from bayesnb.families.gaussian import _moments as gaussian_moments
from bayesnb.families.gaussian import student_t_scores
from bayesnb.marginals import CovarianceEntries, StudentTMarginal
from bayesnb.priors import NormalInverseWishart, log_inverse_wishart, log_normal_given_cov
from bayesnb.sufficient import merge_stats

LOG_2PI = np.log(2.0 * np.pi)
COVARIANCES = ("full", "diag", "spherical", "tied", "tied-spherical")
#: The covariances that are diagonal: their statistics are the scatter's diagonal.
DIAGONAL_COVARIANCES = ("diag", "spherical", "tied-spherical")


class MultivariateGaussian(Family):
    """A block of continuous columns with one joint Gaussian per class or component.

    Parameters
    ----------
    prior : NormalInverseWishart, optional
        Conjugate prior; the default is weak and scaled to the data (see
        :class:`~bayesnb.priors.NormalInverseWishart`).
    covariance : {"full", "diag", "spherical", "tied", "tied-spherical"}, default "full"
        Every class's own full covariance matrix (quadratic discriminant analysis in a
        classifier), its own diagonal one (naive Bayes), its own single variance
        :math:`\\sigma_k^2 I`, one full matrix shared by every class (linear
        discriminant analysis), or one variance :math:`\\sigma^2 I` shared by every
        class (mclust's EII; k-means' model). The first four are scikit-learn's
        ``covariance_type``.
    columns : list, optional
        The block's columns (default: all of X's when this family is the model's
        only declaration).

    Notes
    -----
    The statistics of class :math:`k` are its weighted count :math:`n_k`, mean
    :math:`\\bar x_k` and scatter matrix :math:`S_k = \\sum_i r_{ik}(x_i - \\bar
    x_k)(x_i - \\bar x_k)^\\top` (its diagonal alone for ``"diag"`` and
    ``"spherical"``), every deviation from the class's own mean. Maximum likelihood
    gives :math:`S_k/n_k` (full), its diagonal (diag), :math:`\\mathrm{tr}\\,S_k/(d\\,n_k)`
    (spherical), :math:`\\sum_k S_k / \\sum_k n_k` (tied) and
    :math:`\\sum_k \\mathrm{tr}\\,S_k / (d \\sum_k n_k)` (tied-spherical). ``"map"`` and ``"mean"``
    are the joint mode and the posterior mean under the prior (for ``"tied"``: the
    Inverse-Wishart shared, every class's mean given it Gaussian); ``"predictive"``
    replaces every class's Gaussian by its posterior predictive Student-t
    (:meth:`predictive`; ``params`` then holds ``{name}_df``, ``{name}_mu`` and
    ``{name}_scale``). Densities come from
    Cholesky factors and triangular solves; no matrix is inverted. ``params`` holds
    ``{name}_mu`` (class, feature) and ``{name}_cov`` (class, feature,
    feature_2), the full matrix whatever its constraint.

    The exact posterior (:meth:`posterior_hyper`) is conjugate for every covariance
    type: a Normal-Inverse-Wishart per class, a shared Inverse-Wishart when tied, an
    inverse gamma per variance when diagonal or spherical; it serves the classifier's
    ``posterior()`` and intervals, the evidence, and the Gibbs sampler. The PyMC model
    (:mod:`bayesnb.pymc_model`, so NUTS) has the same prior: an Inverse-Wishart
    covariance per class or shared, or inverse-gamma variances.

    A row to score (``predict_proba``, a mixture's memberships, a density) may miss
    values: its density is the Gaussian of its observed columns, which marginalizes
    the missing ones exactly. Clustering (EM) fits a block with missing values: its
    E-step fills every missing value in by its expectation given the row's observed
    values under each component's current Gaussian, and adds the conditional
    covariance to the expected scatter, so EM climbs the observed rows' likelihood
    (:meth:`count` with ``at``). The Gibbs sampler draws them instead, given each
    row's component and the current parameters (data augmentation). The training
    rows' mean and covariance, the default prior's centre and scale, are then their
    maximum-likelihood estimates under one Gaussian, by the same EM. The mixture's
    PyMC model scores such a row by the Gaussian of its observed values. The
    classifier and Dask count statistics without current parameters, so they refuse a
    missing value, naming its column (a classifier's estimate is then the mixture
    with every label known); declare such columns :class:`~bayesnb.Gaussian`
    (independent, which marginalizes them in every fit).

    Every sum of squares is taken about the training rows' mean (the encoding's
    centre), and the compiled EM loop keeps the means less that centre as well, so an
    offset in the data moves only the fitted means. A column whose values differ but
    whose variance is below the smallest normal float, or whose squared deviations sum
    beyond the largest, is an error naming it (rescale it). A constant column gets a
    unit of variance in the default prior's scale, as before. Training rows on a
    lower-dimensional set of two or more columns (collinear columns) fit the diagonal
    and tied structures under the default prior
    (:class:`~bayesnb.priors.NormalInverseWishart`, ``psi``); a full one refuses them,
    naming the combination that is constant (:meth:`_check_flat`). A row to score so
    far out that its squared distance from every mean overflows has density 0 under
    every Gaussian, and predicting it raises
    :class:`~bayesnb.errors.ZeroLikelihoodError` naming it; the predictive Student-t
    scores it from the logarithm of that distance.

    Examples
    --------
    Old Faithful's eruptions split into long (over 3 minutes) and short ones, each
    with its own full covariance: under ``estimate="ml"`` it is the class's scatter
    matrix over its count, ``numpy.cov(..., bias=True)``.

    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> faithful = bnb.datasets.old_faithful()
    >>> kind = np.where(faithful["eruptions"] > 3, "long", "short")
    >>> fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).fit(faithful, kind, estimate="ml")
    >>> fit.params["X_cov"].sel(class_label="long").values.round(3)
    array([[ 0.168,  0.913],
           [ 0.913, 35.726]])
    >>> np.cov(faithful[kind == "long"].to_numpy().T, bias=True).round(3)
    array([[ 0.168,  0.913],
           [ 0.913, 35.726]])
    """

    kind = "multivariate_gaussian"
    suffixes = ("mu", "cov", "var", "tied_cov", "n", "mean", "scatter", "feature_2")
    multi_column = True
    columns_together = True
    em_estimate = "map"  # the Normal-Inverse-Wishart mode: no covariance collapses

    def __init__(self, prior=None, *, covariance: str = "full", estimate=None, columns=None):
        super().__init__(
            NormalInverseWishart() if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, NormalInverseWishart):
            raise InputTypeError(
                "MultivariateGaussian prior must be a NormalInverseWishart; got "
                f"{self.prior!r} ({type(self.prior).__name__}). Use bnb.NormalInverseWishart("
                "mu=..., kappa=..., nu=..., psi=...), or leave prior=None for the default."
            )
        if covariance not in COVARIANCES:
            raise InputError(
                f"MultivariateGaussian covariance must be one of {COVARIANCES}; got {covariance!r}."
            )
        self.covariance = covariance
        self.data_mean = self.data_cov = None  # learnt at bind: the default prior's centre

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f", covariance={self.covariance!r})"

    def _what(self) -> str:
        return f"MultivariateGaussian feature {self.name!r}"

    def check_em_estimate(self, method: str) -> None:
        super().check_em_estimate(method)
        if method == "mean":
            raise InputError(
                f"{self._what()} would be estimated by estimate='mean'; EM's M-step must "
                "maximize the objective, and the posterior mean of a covariance does not. "
                "Use estimate='map' (the default when estimate is not given) or 'ml'."
            )

    # -- binding and encoding ---------------------------------------------------------
    def _learn(self, data, sample_weight=None) -> None:
        if self.n_columns < 1 or len(data) == 0:
            raise InputError(f"{self._what()} needs at least one column and one row.")
        w = np.ones(len(data)) if sample_weight is None else np.asarray(sample_weight, float)
        x = self._values(data, missing_ok=True)
        missing = np.isnan(x)
        self.adopt_pooled(
            self._pooled_missing(x, missing, w) if missing.any() else self.pooled_stats(x, w)
        )

    def _check_mixture_data(self, data, sample_weight=None) -> None:
        warn_constant_columns(
            self._what(), self.columns, self._values(data, missing_ok=True), sample_weight
        )

    def needs_pooled(self, counted: bool) -> bool:
        """The training rows' mean (the encoding's centre) and covariance (the default
        prior's scale), whether or not a classifier counts the rows."""
        return True

    def pooled_stats(self, data, weights: np.ndarray) -> dict:
        """``{"n", "mean", "scatter"}`` (1, ...) of the rows as one class, weighted,
        which merge across partitions; a missing value raises (the rows' Gaussian is
        then an EM's, :meth:`_pooled_missing`, which does not merge)."""
        x = self._values(data)
        w = np.asarray(weights, float)
        total = w.sum()
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            mean = (w @ x) / total if total > 0 else np.zeros(x.shape[1])
            xc = x - mean
            scatter = (xc * w[:, None]).T @ xc
            scatter = (scatter + scatter.T) / 2.0  # the product rounds apart across it
        if total > 0:
            self._check_spread(x, w, np.diagonal(scatter) / total, mean)
        return {"n": np.array([total]), "mean": mean[None], "scatter": scatter[None]}

    def _check_spread(self, x, w, var, mean) -> None:
        """Raise an InputError naming the first column of rows ``x`` (weights ``w``;
        NaN where missing) whose variance ``var`` (d,) about ``mean`` is no normal
        float while its values differ: below the smallest normal float (about
        2.2e-308) it underflows to 0 or loses its digits, and the default prior's
        scale, every covariance and every density with it would be wrong; beyond the
        largest (about 1.8e308) it overflows. Rescaling the column by a power of ten
        brings it back."""
        tiny = np.finfo(float).tiny
        for j in range(x.shape[1]):
            if np.isfinite(mean[j]) and np.isfinite(var[j]) and not 0.0 <= var[j] < tiny:
                continue
            values = x[(w > 0) & ~np.isnan(x[:, j]), j]
            column = self.columns[j] if self.columns else j
            if np.isfinite(mean[j]) and np.isfinite(var[j]):
                if values.size == 0 or values.max() == values.min():
                    continue  # a constant column: no spread to lose
                raise InputError(
                    f"{self._what()} has values in column {column!r} that differ, from "
                    f"{values.min():.3g} to {values.max():.3g}, but whose variance is "
                    "below the smallest normal float (about 2.2e-308), so it cannot be "
                    "computed. Rescale the column (e.g. multiply it by a power of ten) "
                    "before fitting."
                )
            big = float(np.max(np.abs(values))) if values.size else float("nan")
            raise InputError(
                f"{self._what()} has values as large as {big:.3g} in column {column!r}, "
                "whose squared deviations from their mean sum beyond the largest float "
                "(about 1.8e308), so their variance cannot be stored. Rescale the column "
                "(e.g. divide it by a power of ten) before fitting."
            )

    def _check_observed_rows(self, rows: np.ndarray) -> None:
        """Refuse a full covariance of d columns under the default prior when one
        column is observed in ``rows`` <= d rows (at bind, with missing values): its
        regression on the other columns then fits those
        rows exactly, so the rows' maximum-likelihood covariance, which scales that
        prior, and every component's covariance are singular along it, though the rows
        themselves lie on no lower-dimensional set. (A declared ``psi`` keeps the
        covariances definite.)"""
        d = self.n_columns
        if self.covariance != "full" or self.prior.psi is not None or d < 2 or rows.min() > d:
            return
        j = int(np.argmin(rows))
        column = self.columns[j] if self.columns else j
        raise InputError(
            f"{self._what()} observes column {column!r} in {int(rows[j])} row(s) only; a "
            f"joint covariance of its {d} columns needs every column observed in at least "
            f"d + 1 = {d + 1} rows (with fewer, that column is fitted exactly as a "
            "combination of the others, and every covariance is singular along it). Drop "
            "the column, declare it a feature of its own (bnb.Gaussian()), or declare "
            "covariance='diag'."
        )

    def _pooled_missing(self, x, missing, w) -> dict:
        """:meth:`pooled_stats` of rows ``x`` with missing values (``missing``) and
        weights ``w``: the maximum-likelihood Gaussian of the observed values. EM
        starts from every column's mean and variance over its values, and each step
        fills the missing values in (:func:`_expected_moments`), until no mean or
        covariance entry moves by more than :data:`_POOLED_TOL` of its column's spread
        (at most :data:`_POOLED_STEPS` steps; EM converges linearly, the faster the
        fewer values are missing)."""
        seen = ~missing & (w[:, None] > 0)
        blind = np.flatnonzero(~seen.any(axis=0))
        if blind.size:
            column = self.columns[int(blind[0])] if self.columns else int(blind[0])
            raise InputError(
                f"{self._what()} has no observed value (of positive weight) in column "
                f"{column!r}, so its joint Gaussian has nothing to learn that column "
                "from. Drop the column."
            )
        self._check_observed_rows(seen.sum(axis=0))
        count = (seen * w[:, None]).sum(axis=0)
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            centre = (w @ np.where(missing, 0.0, x)) / count
            deviation = x - centre  # every sum below of deviations of the data's own size
            var = (w @ np.where(missing, 0.0, deviation * deviation)) / count
        self._check_spread(x, w, var, centre)
        x = deviation
        mu, cov = np.zeros((1, len(var))), np.diag(var)[None]
        r = w[:, None]
        for _ in range(_POOLED_STEPS):
            n, new_mu, scatter = _expected_moments(x, missing, r, mu, cov, diagonal=False)
            new_cov = scatter / n[0]
            scale = np.sqrt(np.diagonal(new_cov[0]))
            scale = np.where(scale > 0, scale, 1.0)  # a constant column: no spread to scale
            moved = max(
                float(np.max(np.abs(new_mu - mu)[0] / scale)),
                float(np.max(np.abs(new_cov - cov)[0] / np.outer(scale, scale))),
            )
            mu, cov = new_mu, new_cov
            if moved <= _POOLED_TOL:
                break
        mu = mu + centre
        return {"n": n, "mean": mu, "scatter": scatter}

    def adopt_pooled(self, stats: dict, n_labels: int | None = None) -> None:
        """The training rows' mean and 1/N covariance (the prior's scale is resolved
        for each number of labels where it is used, :meth:`resolved_prior`)."""
        total = stats["n"][0]
        if not total > 0:
            raise InputError(f"{self._what()} has no row of positive weight.")
        self.data_mean = stats["mean"][0]
        self.data_cov = stats["scatter"][0] / total

    def _combinations(self) -> np.ndarray:
        """The constant combinations of two or more columns over the training rows
        (:meth:`~bayesnb.NormalInverseWishart.flat_directions`); a column constant by
        itself is not one: the default prior gives it a unit of variance, as before
        and as the univariate family does."""
        flat = NormalInverseWishart.flat_directions(self.data_cov)
        return flat[np.count_nonzero(np.abs(flat) > 1e-8, axis=1) > 1]

    def _flat_sets(self) -> list[str]:
        """The combinations of :meth:`_combinations`, written out, e.g. ``"a + b +
        c"``; none when the rows span every dimension but constant columns."""
        out = []
        for c in self._combinations():
            terms = []
            for j in np.flatnonzero(np.abs(c) > 1e-8):
                size = f"{abs(c[j]):.4g}"
                name = str(self.columns[j]) if self.columns else f"column {j}"
                term = name if size == "1" else f"{size}*{name}"
                if terms:
                    term = f"{'-' if c[j] < 0 else '+'} {term}"
                elif c[j] < 0:
                    term = f"-{term}"
                terms.append(term)
            out.append(" ".join(terms))
        return out

    def _check_flat(self) -> None:
        """Raise, naming the combinations, when the training rows lie on a
        lower-dimensional set of two or more columns (collinear columns, proportions
        that sum to 1, fewer distinct rows than columns). Along such a set a full
        covariance per class has no spread but the prior's, which shrinks as the class
        grows (:math:`\\Psi/(\\nu + n_k + d + 2)` there), so the densities would favour
        the larger classes whatever the rows say. A tied covariance fits such rows
        (its one variance along the set is the same for every class), as do the
        diagonal ones."""
        message = self._flat_message()
        if message:
            raise InputError(message)

    def _flat_message(self) -> str:
        """:meth:`_check_flat`'s error, or "" when the training rows span every
        dimension."""
        flat = self._flat_sets()
        if not flat:
            return ""
        first = self._combinations()[0]
        j = int(np.flatnonzero(np.abs(first) > 1e-8)[-1])
        drop = self.columns[j] if self.columns else j
        said = "; ".join(f"{combo} is constant" for combo in flat[:3])
        return (
            f"{self._what()} has training rows on a lower-dimensional set: {said} "
            "(to within 1e-3 of the columns' standard deviations). A full covariance "
            "per class has no spread along it: its likelihood is unbounded there, and "
            "under the default prior its spread is the prior's alone, which shrinks as "
            "the class grows, so the densities would favour the larger classes. Drop a "
            f"column of each such combination (e.g. {drop!r}), or declare "
            "covariance='tied' (one covariance shared by every class, which fits such "
            "rows under estimate='map') or covariance='diag'."
        )

    def encode(self, data) -> np.ndarray:
        """The values as a float matrix less the training rows' mean (the bound
        block's centre, so that every sum of squares below is of deviations of the
        data's own size, whatever its offset); an infinite value raises. A missing
        value stays NaN: scoring a row marginalizes it (:meth:`log_likelihood`), and
        the statistics fill it in given the current parameters (:meth:`count`)."""
        x = self._values(data, missing_ok=True)
        # column by column: the compiled loops below run along each column's rows
        return np.asfortranarray(x if self.data_mean is None else x - self.data_mean)

    def _values(self, data, missing_ok: bool = False) -> np.ndarray:
        x = np.asarray(_as_float_matrix(data, self._what()), dtype=float)
        self._check_values(x, missing_ok)
        return x

    def _check_values(self, x: np.ndarray, missing_ok: bool = False) -> None:
        """Raise at the first value that is infinite, or missing unless
        ``missing_ok``, naming its column and row."""
        bad = ~np.isfinite(x)
        if missing_ok:
            bad &= ~np.isnan(x)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            column = self.columns[j] if self.columns else j
            if np.isnan(x[i, j]):
                raise InputError(
                    f"{self._what()} has a missing value in column {column!r}, row {i}. "
                    "A joint Gaussian's statistics fill a missing value in from the "
                    "current parameters, which only a mixture (model.cluster, by EM or "
                    "MCMC, and to_pymc(X, n_components=...)) has; the classifier and Dask "
                    "refuse it. For a classifier, cluster with every label known: "
                    "model.cluster(X, classes, y=y) gives the MAP (add method='mcmc' for "
                    "the posterior). Or drop or impute the row, or declare the columns "
                    "bnb.Gaussian() (independent, which marginalizes a missing value in "
                    "every fit). Scoring a row (predict_proba) marginalizes one exactly."
                )
            raise InputError(
                f"{self._what()} has an infinite value ({float(x[i, j])!r}) in column "
                f"{column!r}, row {i}. Drop the row or replace the value."
            )

    def seed_features(self, data) -> np.ndarray:
        return standardized(self._values(data, missing_ok=True))

    def imputes(self, enc) -> bool:
        """Whether the encoding misses values, whose statistics :meth:`count` takes
        as expectations given the current parameters."""
        return bool(np.isnan(enc).any())

    def imputation_start(self, n_components: int) -> dict:
        """Parameters to fill missing values in from before any are estimated: the
        training rows' Gaussian, for every component."""
        K = n_components
        return {"mu": np.tile(self.data_mean, (K, 1)), "cov": np.tile(self.data_cov, (K, 1, 1))}

    # -- statistics and estimates -----------------------------------------------------
    def count(self, enc, resp, at: dict | None = None, rng=None) -> dict:
        """``{"n", "mean", "scatter"}``: (K,), (K, d) and (K, d, d) (the scatter's
        diagonal alone, (K, d), for ``"diag"`` and ``"spherical"``), each class's
        deviations from its own mean: from the centred encoding's weighted sums,
        :math:`S_k = \\sum_i r_{ik} x_i x_i^\\top - n_k \\bar x_k \\bar x_k^\\top`, one
        matrix product per class (a deviation of the data's own size, so no digits are
        lost to an offset).

        A row with missing values needs ``at``, the block's current parameters
        ``{"mu", "cov"}``: EM's E-step over the missing values. In class k the row's
        missing coordinates m are filled in by their conditional mean given its
        observed ones o, :math:`\\mu_m + \\Sigma_{mo}\\Sigma_{oo}^{-1}(x_o - \\mu_o)`,
        and the scatter gains their conditional covariance :math:`\\Sigma_{mm} -
        \\Sigma_{mo}\\Sigma_{oo}^{-1}\\Sigma_{om}` (:func:`_expected_moments`): the
        expected statistics of the completed rows. With ``rng`` as well, the
        statistics of rows completed by a draw from that conditional Gaussian instead
        (the Gibbs sampler's data augmentation). Without ``at`` a missing value
        raises, naming its column."""
        x = enc
        r = resp.dense() if isinstance(resp, Labels) else np.asarray(resp, dtype=float)
        diagonal = self.covariance in DIAGONAL_COVARIANCES
        missing = np.isnan(x)
        if not missing.any():
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                n, mean, scatter = _moments(x, r, diagonal)
        elif at is None:
            self._check_values(x)
        else:
            mu = np.asarray(at["mu"], dtype=float)
            if self.data_mean is not None:
                mu = mu - self.data_mean
            n, mean, scatter = _expected_moments(
                x, missing, r, mu, np.asarray(at["cov"], dtype=float), diagonal, rng
            )
        if not (np.isfinite(mean).all() and np.isfinite(scatter).all()):
            spread = np.diagonal(scatter, axis1=1, axis2=2) if scatter.ndim == 3 else scatter
            bad = ~(np.isfinite(mean) & np.isfinite(spread)).all(axis=0)
            j = int(np.flatnonzero(bad)[0]) if bad.any() else 0
            column = self.columns[j] if self.columns else j
            centre = " from the first training rows' mean" if self.data_mean is not None else ""
            raise InputError(
                f"{self._what()} has values in column {column!r} (as far as "
                f"{float(np.nanmax(np.abs(x[:, j]))):.3g}{centre}) whose squared deviations "
                "sum beyond the largest float (about 1.8e308). Rescale the columns (e.g. "
                "divide them by a power of ten) before fitting."
            )
        if self.data_mean is not None:
            mean = mean + self.data_mean
        return {"n": n, "mean": mean, "scatter": scatter}

    def em_kernel(self, data, method: str, n_components: int):
        """MAP-EM runs in the compiled EM loop (the encoded values, their centre and
        the resolved prior); ML-EM, whose checks whiten every covariance by the data's,
        and a block with missing values (:meth:`count` with ``at``) do not (None)."""
        from bayesnb import _em_loop

        if method != "map" or self.data_mean is None:
            return None
        prior = self.resolved_prior(n_components)
        encoded = self.encode(data)
        if self.imputes(encoded):  # the Python engine fills missing values in
            return None
        return _em_loop.MvnKernel(
            encoded,
            np.asarray(self.data_mean, dtype=float),
            self.covariance,
            np.asarray(prior.mu, dtype=float),
            float(prior.kappa),
            float(prior.nu),
            np.asarray(prior.psi, dtype=float),
        )

    def resolved_prior(self, n_labels: int) -> NormalInverseWishart:
        """The prior with its data defaults filled in, for ``n_labels`` classes. A
        diagonal or spherical covariance's default ``psi`` is the diagonal of the
        training rows' covariance over :math:`K^{2/d}`: only the variances enter its
        inverse gammas, so collinear columns are no obstacle to it. A full one refuses
        training rows on a lower-dimensional set (:meth:`_check_flat`)."""
        cov = self.data_cov
        if cov is not None and self.covariance in DIAGONAL_COVARIANCES:
            cov = np.diag(np.diagonal(cov))
        if cov is not None and self.covariance == "full" and self.prior.psi is None:
            self._check_flat()
        return self.prior.resolve(self.n_columns, n_labels, self.data_mean, cov)

    def estimate_params(self, stats: dict, method: str, *, labels=None) -> dict:
        """``{"mu": (K, d), "cov": (K, d, d)}`` under ``method`` ("ml", "map" or "mean");
        a covariance that is not positive definite (a component collapsed onto fewer
        than d + 1 distinct points under "ml") raises, naming the class. Under
        "predictive", the posterior predictive's Student-t (:meth:`predictive`)."""
        if method == "predictive":
            return self.predictive(self.posterior_hyper(stats))
        n, mean, scatter = stats["n"], stats["mean"], stats["scatter"]
        K = len(n)
        names = labels if labels is not None else list(range(K))
        if method == "ml":
            empty = np.flatnonzero(n <= 0)
            if empty.size:
                raise InputError(
                    f"{self._what()}: class {names[int(empty[0])]!r} has no rows, so its "
                    "maximum-likelihood mean and covariance are undefined. Use "
                    "estimate='map'."
                )
            mu = mean.copy()
            q = scatter  # the quadratic terms, about the estimated means
            shrink = None
        else:
            shrink = self.resolved_prior(K)
            _, mu, q = _updated(shrink, stats)
        cov = self._covariance(q, n, method, shrink, names)
        self._check_definite(cov, n, names, method)
        return {"mu": mu, "cov": cov}

    def predictive(self, hyper: dict) -> dict:
        r"""The posterior predictive of a new row of every class, from the posterior's
        hyperparameters: ``{"df", "mu", "scale"}``. Under an Inverse-Wishart (full,
        tied) a multivariate Student-t with :math:`\nu_n - d + 1` degrees of freedom,
        location :math:`\mu_n` and scale matrix :math:`\Psi_n(\kappa_n + 1)/(\kappa_n
        (\nu_n - d + 1))`, ``df`` (K,); under one inverse gamma per class or in all
        (spherical, tied-spherical) a multivariate Student-t with :math:`2\alpha_n`
        degrees of freedom and scale :math:`\beta_n(\kappa_n + 1)/(\alpha_n\kappa_n)
        I`; under an inverse gamma per variance (diag) a product of univariate ones,
        ``df`` (K, d), one per column. ``scale`` is (K, d, d) in every case."""
        mu, kappa = hyper["mu"], hyper["kappa"]
        K, d = mu.shape
        grow = (kappa + 1.0) / kappa
        if "psi" in hyper:
            df = np.broadcast_to(np.asarray(hyper["nu"], dtype=float) - d + 1.0, (K,)).copy()
            scale = np.broadcast_to(hyper["psi"], (K, d, d)) * (grow / df)[:, None, None]
            return {"df": df, "mu": mu, "scale": scale}
        alpha, beta = (np.asarray(hyper[key], dtype=float) for key in ("alpha", "beta"))
        shape = (K, d) if alpha.ndim == 2 else (K, 1) if alpha.ndim == 1 else ()
        alpha = np.broadcast_to(alpha.reshape(shape), (K, d))
        scale2 = np.broadcast_to(beta.reshape(shape), (K, d)) / alpha * grow[:, None]
        df = 2.0 * alpha if self.covariance == "diag" else 2.0 * alpha[:, 0]
        scale = np.zeros((K, d, d))
        scale[:, np.arange(d), np.arange(d)] = scale2
        return {"df": np.array(df), "mu": mu, "scale": scale}

    def _covariance(self, q, n, method: str, prior, names) -> np.ndarray:
        """Every class's covariance (K, d, d) from its quadratic terms ``q``."""
        K, d = len(n), q.shape[1]
        kind = self.covariance
        if kind == "tied":
            total = q.sum(axis=0)
            if method == "ml":
                shared = total / n.sum()
            elif method == "map":
                shared = (prior.psi + total) / (prior.nu + n.sum() + K + d + 1.0)
            else:
                shared = (prior.psi + total) / self._mean_denominator(
                    prior.nu + n.sum() - d - 1.0, names, "nu_n - d - 1"
                )
            return np.broadcast_to(shared, (K, d, d)).copy()
        if kind == "full":
            if method == "ml":
                return q / n[:, None, None]
            nu_n = prior.nu + n
            if method == "map":
                denom = nu_n + d + 2.0
            else:
                denom = self._mean_denominator(nu_n - d - 1.0, names, "nu_n - d - 1")
            return (prior.psi + q) / denom[:, None, None]
        # diag and spherical: the Inverse-Wishart's inverse gamma on every variance
        alpha = (prior.nu - d + 1.0) / 2.0 if prior is not None else None
        if kind == "diag":
            if method == "ml":
                var = q / n[:, None]
            else:
                beta_n = np.diagonal(prior.psi) / 2.0 + q / 2.0
                # the joint mode (mu_n, beta_n / (alpha_n + 3/2)), the mean beta_n / (alpha_n - 1)
                alpha_n = alpha + n[:, None] / 2.0
                var = beta_n / (
                    alpha_n + 1.5
                    if method == "map"
                    else self._mean_denominator(alpha_n - 1.0, names, "alpha_n - 1")
                )
        elif kind == "tied-spherical":
            total = q.sum()
            if method == "ml":
                shared = total / (d * n.sum())
            else:
                beta_n = np.trace(prior.psi) / 2.0 + total / 2.0
                alpha_n = d * alpha + n.sum() * d / 2.0
                shared = beta_n / (
                    alpha_n + 1.0 + K * d / 2.0
                    if method == "map"
                    else self._mean_denominator(alpha_n - 1.0, names, "alpha_n - 1")
                )
            var = np.full((K, d), shared)
        else:  # spherical
            total = q.sum(axis=1)
            if method == "ml":
                var1 = total / (d * n)
            else:
                beta_n = np.trace(prior.psi) / 2.0 + total / 2.0
                alpha_n = d * alpha + n * d / 2.0
                var1 = beta_n / (
                    alpha_n + 1.0 + d / 2.0
                    if method == "map"
                    else self._mean_denominator(alpha_n - 1.0, names, "alpha_n - 1")
                )
            var = np.repeat(var1[:, None], d, axis=1)
        cov = np.zeros((K, d, d))
        idx = np.arange(d)
        cov[:, idx, idx] = var
        return cov

    def _mean_denominator(self, denom, names, what: str):
        """``denom``, the denominator of a posterior mean of covariances (one shared
        (), per class (K,) or per class and column (K, d)), checked positive: an
        Inverse-Wishart has a mean only for nu > d + 1, an inverse gamma only for
        alpha > 1."""
        low = np.asarray(denom) <= 0
        if low.any():
            where = np.argwhere(low)[0]
            whose = f"of class {names[int(where[0])]!r}" if where.size else "(shared)"
            value = float(np.asarray(denom)[tuple(where)])
            raise InputError(
                f"{self._what()}: the posterior mean of the {self.covariance} covariance "
                f"{whose} does not exist: {what} = {value:.6g}, and a mean needs it "
                "positive (too few rows for so weak a prior). Use estimate='map' (the "
                "posterior mode, which always exists), or a prior with a larger nu "
                "(bnb.NormalInverseWishart(nu=...))."
            )
        return denom

    def _check_definite(self, cov, n, names, method: str) -> None:
        """Raise unless every covariance is definite, with every spread above float
        resolution. Under ML also unless every spread, in the data's own units (the
        covariance whitened by the pooled one), exceeds :data:`_COLLAPSED` of the data's:
        a component shrinking onto a line or a point has an unbounded likelihood, and
        long before its covariance turns singular its densities lose their digits (so
        EM's objective would seem to decrease)."""
        units = []  # the data's units: by its covariance, and column by column
        if method == "ml" and self.data_cov is not None:
            # column by column too: a covariance estimated with missing values may be
            # nearly singular itself (a column seen in a few rows), and then hides a
            # component that shrinks along the same direction
            units.append(np.diag(np.sqrt(np.diagonal(self.data_cov))))
            # (no factor when the data itself lies on a lower-dimensional set)
            with contextlib.suppress(np.linalg.LinAlgError):
                units.append(np.linalg.cholesky(self.data_cov))
        for k in range(len(cov)):
            ok = np.isfinite(cov[k]).all()
            diag = None
            if ok:
                try:
                    chol = np.linalg.cholesky(cov[k])
                    diag = np.diagonal(chol)
                    ok = bool(np.all(diag > np.sqrt(np.finfo(float).tiny)))
                    ok = ok and diag.min() > 1e-12 * diag.max()
                    for unit in units if ok else ():  # L0^-1 L_k: the data's units
                        own = np.linalg.cholesky(_whitened(cov[k], unit))
                        ok = ok and bool(np.diagonal(own).min() > _COLLAPSED)
                except np.linalg.LinAlgError:
                    ok = False
            if not ok:
                raise InputError(self._singular_message(names[k], float(n[k]), method, diag))

    def _singular_message(self, name, weight: float, method: str, pivots) -> str:
        """Why class ``name``'s covariance under ``method`` is not definite, and the
        remedy that works for that estimate: under "ml" the prior of "map"; under
        "map" and "mean" (whose default prior is definite, so that only the floats'
        range can fail it) a rescaling; for a start (``method`` "init"), definite
        covariances. ``pivots``: its Cholesky factor's diagonal, when it has one."""
        what = f"{self._what()}: class {name!r} (weight {weight:.6g})"
        if method == "ml":
            flat = self._flat_sets() if self.data_cov is not None else []
            if flat and self.covariance == "full":
                return self._flat_message()
            also = f" (all the training rows do: {flat[0]} is constant)" if flat else ""
            return (
                f"{what} has a singular {self.covariance} covariance under estimate='ml': "
                "its rows lie on a lower-dimensional set (a component collapsed onto "
                f"fewer than d + 1 distinct points, or collinear columns){also}, where "
                "the likelihood grows without bound. Use estimate='map' (the default "
                "for clustering), whose Normal-Inverse-Wishart prior keeps every "
                "covariance definite."
            )
        if method == "init":
            return (
                f"init gives {self._what()} component {name!r} a {self.covariance} "
                "covariance that is not positive definite (no Cholesky factor with "
                "pivots above 1e-12 of the largest and above 1.5e-154). Give symmetric "
                "positive definite covariances, e.g. the data's covariance."
            )
        spread = ""
        if pivots is not None and np.all(np.isfinite(pivots)) and pivots.max() > 0:
            spread = (
                f" (its Cholesky factor's pivots run from {pivots.min():.3g} to {pivots.max():.3g})"
            )
        return (
            f"{what} has a {self.covariance} covariance under estimate={method!r} that "
            f"is not positive definite in floating point{spread}: a standard deviation "
            "below about 1.5e-154 (a variance below the smallest normal float, about "
            "2.2e-308), or columns whose spreads differ by a factor beyond 1e12, or, "
            "with a prior of your own, a psi far from the data's scale. Rescale the "
            "block's columns to comparable spreads of moderate size (e.g. standardize "
            "them) before fitting; with a prior of your own, give it a psi of the "
            "data's scale (bnb.NormalInverseWishart(psi=...))."
        )

    # -- densities --------------------------------------------------------------------
    def log_likelihood(self, enc, params) -> np.ndarray:
        """(n, K): :math:`-\\tfrac12(d\\log 2\\pi + \\log|\\Sigma_k| + \\|L_k^{-1}(x -
        \\mu_k)\\|^2)` with :math:`\\Sigma_k = L_kL_k^\\top`: a forward substitution
        (:func:`mvn_scores`; a diagonal covariance: one product for every class). A
        row's missing values are marginalized exactly: the rows missing the same
        columns are scored by the Gaussian (or Student-t) of their observed columns,
        whose covariance (or scale) is the block of the matrix that belongs to them;
        a row with every value missing scores 0."""
        params = dict(params)
        if self.data_mean is not None:
            params["mu"] = np.asarray(params["mu"], float) - self.data_mean
        missing = np.isnan(enc)
        if not missing.any():
            return self._scores(enc, params)
        if "df" in params and np.ndim(params["df"]) == 2:  # independent columns' t
            return self._scores(enc, params)  # (a missing value adds 0)
        mu = np.ascontiguousarray(params["mu"], dtype=float)
        matrix = np.ascontiguousarray(params["scale" if "df" in params else "cov"], dtype=float)
        layout = _pattern_layout(missing)
        quad, log_det = np.empty((len(enc), len(mu))), np.empty((len(enc), len(mu)))
        _check_factored(
            missing_mvn_scores(np.ascontiguousarray(enc), *layout[:4], mu, matrix, quad, log_det)
        )
        seen = (~missing).sum(axis=1)[:, None]
        if "df" not in params:
            return -0.5 * (seen * LOG_2PI + log_det + quad)

        def far(entries):
            return _far_log_quad(enc, mu, matrix, entries)

        df = np.asarray(params["df"], dtype=float)
        return _student_t_density(df, seen, log_det, quad, far)

    def posterior_scores(self, enc, params) -> np.ndarray:
        """:meth:`log_likelihood`, which is what the posterior over the classes depends
        on. A row whose density is 0 under every class (a Gaussian's, which underflows
        only for a value so far out that its squared distance from every class's
        mean, in the class's standard deviations, exceeds the largest float, about
        1.8e308; a Student-t's never does) raises
        :class:`~bayesnb.errors.ZeroLikelihoodError` naming the row, its values and
        that cause."""
        out = self.log_likelihood(enc, params)
        lost = np.flatnonzero(np.isneginf(out).all(axis=1))
        if lost.size:
            row = int(lost[0])
            values = np.asarray(enc[row], dtype=float)
            if self.data_mean is not None:
                values = values + self.data_mean
            said = ", ".join(
                f"{name}={value:.6g}" for name, value in zip(self.columns, values, strict=True)
            )
            rows = f"row {row}" if lost.size == 1 else f"row {row} (and {lost.size - 1} more)"
            raise ZeroLikelihoodError(
                f"{rows} has likelihood 0 under every class or component, so it has no "
                f"posterior. On row {row}: {self._what()} gives it density 0 under every "
                f"class or component (a value too far out for the densities: {said}, "
                "whose squared distance from every mean, in standard deviations, exceeds "
                "the largest float, about 1.8e308). No zero count is the cause. Check "
                "that row's values (a value so far from every training row is most likely "
                "a mistake in the data): correct or drop the row; a classifier fitted with "
                "estimate='predictive' scores it by Student-t densities, whose tails reach "
                "that far."
            )
        return out

    def _scores(self, x, params) -> np.ndarray:
        """:meth:`log_likelihood` of rows ``x`` with no value missing, ``params`` in
        the encoding's units."""
        mu = np.asarray(params["mu"], float)
        if "df" in params:
            return self._student_t(x, np.asarray(params["df"], float), mu, params["scale"])
        cov = np.asarray(params["cov"], float)
        K, d = mu.shape
        if self.covariance in DIAGONAL_COVARIANCES:  # the independent Gaussians' loop
            var = np.ascontiguousarray(np.diagonal(cov, axis1=1, axis2=2))  # (K, d)
            out = np.empty((K, len(x)))
            const = -0.5 * (np.log(var) + LOG_2PI)
            _compiled.dense_gaussian_scores(
                x, np.ascontiguousarray(mu), 1.0 / np.sqrt(var), const, out
            )
            return out.T
        chol = np.linalg.cholesky(cov)
        logdet = 2.0 * np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)), axis=1)
        out = np.empty((len(x), K))
        mvn_scores(x, np.ascontiguousarray(mu), chol, -0.5 * (d * LOG_2PI + logdet), out)
        return out

    def _student_t(self, x, df, mu, scale) -> np.ndarray:
        """(n, K): the predictive Student-t log densities (:meth:`predictive`): per
        column for ``df`` (K, d), else the multivariate one (:func:`_student_t_density`)
        of the squared distance :math:`\\|L^{-1}(x - \\mu)\\|^2` with :math:`S = LL^\\top`."""

        scale = np.asarray(scale, float)
        if df.ndim == 2:  # finite however far out (student_t_scores)
            return student_t_scores(x, df, mu, np.diagonal(scale, axis1=1, axis2=2))
        K, d = mu.shape
        chol = np.linalg.cholesky(scale)
        out = np.empty((len(x), K))  # -|L^-1 (x - mu)|^2 / 2
        mvn_scores(x, np.ascontiguousarray(mu), chol, np.zeros(K), out)
        log_det = 2.0 * np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)), axis=1)

        def far(entries):
            return _far_log_quad(x, mu, scale, entries)

        return _student_t_density(df, d, log_det, -2.0 * out, far)

    def log_prior(self, params, shift: float = 0.0) -> float:
        """Log density of the prior at ``params`` (the density whose mode "map" is)."""
        mu, cov = np.asarray(params["mu"], float), np.asarray(params["cov"], float)
        K, d = mu.shape
        prior = self.resolved_prior(K)
        kind = self.covariance
        if kind in ("full", "tied"):
            total = 0.0
            for k in range(K):
                if kind == "full":
                    total += prior.logpdf(mu[k], cov[k])
                else:
                    total += log_normal_given_cov(mu[k], prior.mu, cov[k], prior.kappa)
            if kind == "tied":
                total += log_inverse_wishart(cov[0], prior.nu, prior.psi)
            return float(total)
        var = np.diagonal(cov, axis1=1, axis2=2)  # (K, d)
        alpha = (prior.nu - d + 1.0) / 2.0
        z2 = prior.kappa * (mu - prior.mu) ** 2 / var
        log_n = -0.5 * (LOG_2PI + np.log(var / prior.kappa)) - 0.5 * z2
        if kind == "diag":
            beta = np.diagonal(prior.psi) / 2.0
            log_ig = _log_inverse_gamma(var, alpha, beta)
            return float(np.sum(log_n) + np.sum(log_ig))
        s2 = var[:, 0] if kind == "spherical" else var[:1, 0]  # tied: one variance
        log_ig = _log_inverse_gamma(s2, d * alpha, np.trace(prior.psi) / 2.0)
        return float(np.sum(log_n) + np.sum(log_ig))

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        """:math:`\\sum_k -\\tfrac12[n_k(d\\log 2\\pi + \\log|\\Sigma_k|) + \\mathrm{tr}
        (\\Sigma_k^{-1}(S_k + n_k(\\bar x_k - \\mu_k)(\\bar x_k - \\mu_k)^\\top))]`."""
        from scipy.linalg import solve_triangular

        n, mean, scatter = stats["n"], stats["mean"], stats["scatter"]
        mu, cov = np.asarray(params["mu"], float), np.asarray(params["cov"], float)
        total = 0.0
        d = mu.shape[1]
        for k in range(len(n)):
            s = np.diag(scatter[k]) if scatter.ndim == 2 else scatter[k]
            delta = mean[k] - mu[k]
            q = s + n[k] * np.outer(delta, delta)
            chol = np.linalg.cholesky(cov[k])
            m = solve_triangular(chol, solve_triangular(chol, q, lower=True).T, lower=True)
            logdet = 2.0 * float(np.sum(np.log(np.diagonal(chol))))
            total += -0.5 * (n[k] * (d * LOG_2PI + logdet) + float(np.trace(m)))
        return float(total)

    # -- the exact conjugate posterior ----------------------------------------------------
    #: The default prior's scale depends on K (:class:`~bayesnb.NormalInverseWishart`),
    #: and a tied covariance pools every class's statistics.
    classes_together = True

    def posterior_hyper(self, stats: dict) -> dict:
        """The exact posterior given the classes' statistics: every class's
        :math:`\\mu_n` (K, d) and :math:`\\kappa_n` (K,) (its mean is Gaussian given the
        covariance, with covariance :math:`\\Sigma_k/\\kappa_{n,k}`), and the
        covariances' law: ``nu`` and ``psi``, an Inverse-Wishart per class (``"full"``:
        (K,) and (K, d, d)) or one shared (``"tied"``: () and (d, d)); or ``alpha``
        and ``beta``, an inverse gamma per variance (``"diag"``: (K, d)), per class
        (``"spherical"``: (K,)) or one shared (``"tied-spherical"``: ())."""
        n = np.asarray(stats["n"], dtype=float)
        K, d = len(n), self.n_columns
        prior = self.resolved_prior(K)
        kappa, mu, q = _updated(prior, stats)
        out = {"mu": mu, "kappa": kappa}
        kind = self.covariance
        if kind == "full":
            return {**out, "nu": prior.nu + n, "psi": prior.psi + q}
        if kind == "tied":
            return {**out, "nu": np.asarray(prior.nu + n.sum()), "psi": prior.psi + q.sum(axis=0)}
        alpha = (prior.nu - d + 1.0) / 2.0  # every variance's inverse gamma
        diag = np.diagonal(q, axis1=-2, axis2=-1) if q.ndim == 3 else q  # (K, d)
        if kind == "diag":
            a = np.broadcast_to(alpha + n[:, None] / 2.0, (K, d)).copy()
            return {**out, "alpha": a, "beta": np.diagonal(prior.psi) / 2.0 + diag / 2.0}
        half_trace = np.trace(prior.psi) / 2.0
        if kind == "spherical":
            return {**out, "alpha": d * alpha + n * d / 2.0, "beta": half_trace + diag.sum(1) / 2.0}
        return {  # tied-spherical
            **out,
            "alpha": np.asarray(d * alpha + n.sum() * d / 2.0),
            "beta": np.asarray(half_trace + diag.sum() / 2.0),
        }

    def draw_params(self, hyper: dict, size: int, rng) -> dict:
        """Every covariance first, then every mean given it: an Inverse-Wishart's by
        Bartlett's decomposition of its inverse (:func:`_inverse_wishart_factors`),
        a variance as ``beta / Gamma(alpha)``; then :math:`\\mu = \\mu_n + M z /
        \\sqrt{\\kappa_n}` for a factor :math:`MM^\\top = \\Sigma` and standard normal z.
        A tied covariance is drawn once per draw and shared by its classes."""
        mu_n, kappa = hyper["mu"], hyper["kappa"]
        K, d = mu_n.shape
        if "psi" in hyper:
            factor = _inverse_wishart_factors(hyper["nu"], hyper["psi"], size, rng)
            if factor.ndim == 3:  # tied: (size, d, d)
                factor = np.broadcast_to(factor[:, None], (size, K, d, d))
        else:
            alpha = np.asarray(hyper["alpha"], dtype=float)
            var = hyper["beta"] / rng.standard_gamma(np.broadcast_to(alpha, (size, *alpha.shape)))
            var = var.reshape(size, *alpha.shape, *([1] * (2 - alpha.ndim)))
            sd = np.broadcast_to(np.sqrt(var), (size, K, d))
            factor = sd[..., :, None] * np.eye(d)
        z = rng.standard_normal((size, K, d))
        mu = mu_n + np.einsum("skij,skj->ski", factor, z) / np.sqrt(kappa)[:, None]
        cov = factor @ np.swapaxes(factor, -1, -2)
        return {"mu": mu.reshape(size * K, d), "cov": cov.reshape(size * K, d, d)}

    def marginals(self, hyper: dict) -> dict:
        """Every mean coordinate's Student-t and every covariance entry's law
        (:class:`~bayesnb.marginals.CovarianceEntries`). Under an Inverse-Wishart the
        mean is a multivariate t with :math:`\\nu_n - d + 1` degrees of freedom and
        scale matrix :math:`\\Psi_n/(\\kappa_n(\\nu_n - d + 1))`; under inverse gammas
        each coordinate is a t with ``2 alpha`` degrees of freedom and scale
        ``sqrt(beta / (alpha kappa))``."""
        mu_n, kappa = hyper["mu"], hyper["kappa"]
        K, d = mu_n.shape
        if "psi" in hyper:
            nu = np.broadcast_to(hyper["nu"], (K,))
            psi = np.broadcast_to(hyper["psi"], (K, d, d))
            df = nu - d + 1.0
            spread = np.diagonal(psi, axis1=1, axis2=2) / (kappa * df)[:, None]
            return {
                "mu": StudentTMarginal(df[:, None], mu_n, np.sqrt(spread)),
                "cov": CovarianceEntries.inverse_wishart(nu, psi),
            }
        alpha, beta = (np.asarray(hyper[key], dtype=float) for key in ("alpha", "beta"))
        shape = (K, d) if alpha.ndim == 2 else (K, 1) if alpha.ndim == 1 else ()
        alpha = np.broadcast_to(alpha.reshape(shape), (K, d))
        beta = np.broadcast_to(beta.reshape(shape), (K, d))
        scale = np.sqrt(beta / (alpha * kappa[:, None]))
        return {
            "mu": StudentTMarginal(2.0 * alpha, mu_n, scale),
            "cov": CovarianceEntries.diagonal(alpha, beta),
        }

    def log_marginal(self, stats: dict, n_labels: int) -> float:
        """The marginal likelihood of the classes' rows, the means and covariances
        integrated out: from the posterior's and the prior's hyperparameters,
        :math:`\\frac d2\\sum_k \\log\\frac{\\kappa}{\\kappa_{n,k}}` plus, for
        Inverse-Wisharts, :math:`-\\frac{Nd}2\\log\\pi + \\sum[\\log\\Gamma_d(\\nu_n/2) -
        \\log\\Gamma_d(\\nu/2) + \\frac\\nu2\\log|\\Psi| - \\frac{\\nu_n}2\\log|\\Psi_n|]`,
        for inverse gammas :math:`-\\frac{Nd}2\\log 2\\pi + \\sum[\\alpha\\log\\beta -
        \\alpha_n\\log\\beta_n + \\log\\Gamma(\\alpha_n) - \\log\\Gamma(\\alpha)]` (the sums
        over the covariances' parameters: per class, per variance or one shared)."""
        from bayesnb._lazy import special

        post = self.posterior_hyper(stats)
        prior = self.posterior_hyper({key: np.zeros_like(v) for key, v in stats.items()})
        d = self.n_columns
        n_rows = float(np.sum(np.asarray(stats["n"], dtype=float)))
        out = 0.5 * d * float(np.sum(np.log(prior["kappa"] / post["kappa"])))
        if "psi" in post:
            gamma_d = np.vectorize(lambda nu: special.multigammaln(nu / 2.0, d))

            def term(h):
                return gamma_d(h["nu"]) - 0.5 * h["nu"] * np.linalg.slogdet(h["psi"])[1]

            out -= 0.5 * n_rows * d * np.log(np.pi)
        else:

            def term(h):
                return special.gammaln(h["alpha"]) - h["alpha"] * np.log(h["beta"])

            out -= 0.5 * n_rows * d * np.log(2.0 * np.pi)
        return float(out + np.sum(term(post)) - np.sum(term(prior)))

    def n_free_parameters(self, n_labels: int) -> int:
        d = self.n_columns
        per = {"full": d * (d + 1) // 2, "diag": d, "spherical": 1}.get(self.covariance, 0)
        shared = {"tied": d * (d + 1) // 2, "tied-spherical": 1}.get(self.covariance, 0)
        return n_labels * (d + per) + shared

    # -- EM's extrapolation (SQUAREM) in unconstrained coordinates ---------------------
    def unconstrained(self, params: dict, scale=None) -> list[np.ndarray]:
        """The means over their column's ``scale`` and every covariance's Cholesky
        factor, its diagonal as logarithms (the lower triangle, flat), components
        first."""
        mu, cov = params["mu"], params["cov"]
        if scale is None:
            scale = self.unconstrained_scale(params)
        chol = np.linalg.cholesky(cov)
        d = mu.shape[1]
        rows, cols = np.tril_indices(d)
        flat = chol[:, rows, cols]
        on = rows == cols
        flat[:, on] = np.log(flat[:, on])
        return [mu / scale, flat]

    def unconstrained_scale(self, params: dict) -> np.ndarray:
        return np.sqrt(np.diagonal(params["cov"], axis1=1, axis2=2).mean(axis=0))

    def from_unconstrained(self, take, like: dict, scale) -> dict:
        mu = take(like["mu"].shape) * scale
        K, d = like["mu"].shape
        rows, cols = np.tril_indices(d)
        flat = take((K, len(rows))).copy()
        on = rows == cols
        flat[:, on] = np.exp(flat[:, on])
        chol = np.zeros((K, d, d))
        chol[:, rows, cols] = flat
        return {"mu": mu, "cov": chol @ np.swapaxes(chol, 1, 2)}

    # -- parameters in and out --------------------------------------------------------
    def params_from(self, source, K: int) -> dict:
        from bayesnb.families import _given

        name = self.name
        mu = _given.source_value(source, f"{name}_mu")
        cov = _given.source_value(source, f"{name}_cov")
        if mu is None or cov is None:
            raise ValueError(
                f"init lacks the parameters of {name!r}: give {name + '_mu'!r} (component, "
                f"feature) and {name + '_cov'!r} (component, feature, feature_2)."
            )
        mu = np.asarray(getattr(mu, "values", mu), dtype=float)
        cov = np.asarray(getattr(cov, "values", cov), dtype=float)
        d = self.n_columns
        if mu.shape != (K, d) or cov.shape != (K, d, d):
            raise ValueError(
                f"init for MultivariateGaussian {name!r} must have mu ({K}, {d}) and cov "
                f"({K}, {d}, {d}); got {mu.shape} and {cov.shape}."
            )
        self._check_definite(cov, np.zeros(K), list(range(K)), "init")
        return {"mu": mu, "cov": cov}

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        feature, other = self._feature_dim(), f"{self._feature_dim()}_2"
        names = {label_dim: labels, feature: list(self.columns), other: list(self.columns)}

        def array(value, dims):
            dims = dims[: np.ndim(value)]
            return xr.DataArray(value, dims=dims, coords={d: names[d] for d in dims})

        matrix = (label_dim, feature, other)
        out = {
            "params": {f"{self.name}_{k}": array(v, matrix) for k, v in params.items()},
            "counts": {f"{self.name}_{k}": array(v, matrix) for k, v in (stats or {}).items()},
        }
        return out

    def sample(self, params, components, rng) -> np.ndarray:
        """Draws (n, d) of the classes ``components``: from their Gaussians, or under
        ``estimate="predictive"`` from their Student-t posterior predictives
        (:meth:`predictive`): :math:`\\mu + Lz\\sqrt{\\nu/w}` with :math:`S = LL^\\top`,
        :math:`z` standard normal and :math:`w \\sim \\chi^2_\\nu`, or for ``df`` (K, d)
        (diag) an independent univariate Student-t per column."""
        mu = np.asarray(params["mu"], dtype=float)
        if "df" not in params:
            chol = np.linalg.cholesky(np.asarray(params["cov"]))
            z = rng.standard_normal((len(components), mu.shape[1]))
            return mu[components] + np.einsum("nij,nj->ni", chol[components], z)
        df, scale = np.asarray(params["df"], dtype=float), np.asarray(params["scale"], float)
        if df.ndim == 2:  # diag: a product of univariate Student-t's
            sd = np.sqrt(np.diagonal(scale, axis1=1, axis2=2))
            return mu[components] + sd[components] * rng.standard_t(df[components])
        chol = np.linalg.cholesky(scale)
        z = rng.standard_normal((len(components), mu.shape[1]))
        nu = df[components]
        spread = np.sqrt(nu / rng.chisquare(nu))
        return mu[components] + np.einsum("nij,nj->ni", chol[components], z) * spread[:, None]

    def observed_codes(self, data) -> np.ndarray:
        """The values (NaN where missing)."""
        return self._values(data, missing_ok=True)

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        return self.sample(params, components, rng)

    def divergence(self, params: dict, reference: dict) -> np.ndarray:
        """(K, 1): the Kullback-Leibler divergence of every component's Gaussian from
        the reference's, the block being one attribute."""
        from scipy.linalg import solve_triangular

        mu, cov = params["mu"], params["cov"]
        m0, c0 = reference["mu"][0], reference["cov"][0]
        chol0 = np.linalg.cholesky(c0)
        d = len(m0)
        out = np.empty((len(mu), 1))
        for k in range(len(mu)):
            a = solve_triangular(chol0, np.linalg.cholesky(cov[k]), lower=True)
            z = solve_triangular(chol0, mu[k] - m0, lower=True)
            logdet = 2.0 * np.sum(np.log(np.diagonal(chol0))) - np.linalg.slogdet(cov[k])[1]
            out[k, 0] = 0.5 * (np.sum(a * a) + z @ z - d + logdet)
        return out

    def attribute_names(self) -> list:
        return [self.name]

    def merge_stats(self, a: dict, b: dict) -> dict:
        """Counts, means and scatter matrices of two disjoint batches, merged by the
        pairwise update (:func:`bayesnb.sufficient.merge_stats`). Batches whose means
        lie so far apart that the merged scatter passes the largest float raise an
        :class:`~bayesnb.errors.InputError` naming the column."""
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            merged = merge_stats(a, b)
        scatter = np.asarray(merged["scatter"])
        spread = np.diagonal(scatter, axis1=1, axis2=2) if scatter.ndim == 3 else scatter
        bad = ~(np.isfinite(merged["mean"]) & np.isfinite(spread))  # (K, d)
        if bad.any() or not np.isfinite(scatter).all():
            where = bad if bad.any() else ~np.isfinite(scatter)
            k, j = (int(v) for v in np.argwhere(where)[0][:2])
            column = self.columns[j] if self.columns else j
            raise InputError(
                f"{self._what()}: the batches' means of column {column!r} "
                f"({float(np.asarray(a['mean'])[k, j]):.3g} and "
                f"{float(np.asarray(b['mean'])[k, j]):.3g}) lie so far apart that the "
                "squared deviations of all their rows from one mean sum beyond the largest "
                "float (about 1.8e308), so their covariance cannot be stored. Rescale the "
                "column (e.g. divide it by a power of ten) in every batch, and fit again."
            )
        return merged

    def describe(self, params: dict, reference: dict) -> dict:
        mu = params["mu"]
        return {
            self.name: [
                "mean (" + ", ".join(f"{v:.4g}" for v in mu[k]) + ")" for k in range(len(mu))
            ]
        }


def _student_t_density(df, d, log_det, quad, far=None):
    r"""The multivariate Student-t log density, :math:`\log\Gamma(\frac{\nu + d}2) -
    \log\Gamma(\frac\nu2) - \frac d2\log\nu\pi - \frac12\log|S| - \frac{\nu +
    d}2\log(1 + q/\nu)`, from every class's degrees of freedom ``df`` (K,), the
    dimension ``d`` (a number, or one per row (n, 1)), ``log_det`` of the scale and the
    squared distances ``quad`` (n, K). Where q overflowed (a row beyond 1e154 of the
    scale from the location), ``far`` (the entries (m, 2) of row and class) gives
    :math:`\log q` instead, and :math:`\log(1 + q/\nu) = \log q - \log\nu +
    \log(1 + \nu/q)` keeps the density finite."""
    const = (
        log_rising(df / 2.0, d / 2.0)  # ln Gamma((df + d) / 2) - ln Gamma(df / 2)
        - 0.5 * d * np.log(df * np.pi)
        - 0.5 * log_det
    )
    with np.errstate(over="ignore"):
        term = np.log1p(quad / df)
    lost = np.argwhere(~np.isfinite(term))
    if far is not None and lost.size:
        log_q = far(lost)
        log_df = np.log(np.broadcast_to(df, term.shape)[lost[:, 0], lost[:, 1]])
        term[lost[:, 0], lost[:, 1]] = log_q - log_df + np.log1p(np.exp(log_df - log_q))
    return const - 0.5 * (df + d) * term


def _far_log_quad(x, mu, matrix, entries) -> np.ndarray:
    r""":math:`\log\|L_k^{-1}(x_i - \mu_k)\|^2` over row i's observed columns, for every
    entry (i, k) of ``entries`` (m, 2), with :math:`L_k` the Cholesky factor of that
    block of ``matrix[k]``: the deviation divided by its largest value before it is
    solved and squared, so that no square overflows (:func:`_student_t_density`)."""
    from scipy.linalg import solve_triangular

    out = np.empty(len(entries))
    for t, (i, k) in enumerate(entries):
        seen = ~np.isnan(x[i])
        dev = x[i, seen] - mu[k, seen]
        top = float(np.max(np.abs(dev)))
        chol = np.linalg.cholesky(matrix[k][np.ix_(seen, seen)])
        z = solve_triangular(chol, dev / top, lower=True)
        with np.errstate(over="ignore"):
            out[t] = 2.0 * np.log(top) + np.log(z @ z)
    return out


def _moments(x, r, diagonal: bool) -> tuple:
    """Every class's weight (K,), mean (K, d) and scatter about it (K, d, d), or the
    scatter's diagonal (K, d) when ``diagonal``, of complete rows ``x`` (n, d) under
    responsibilities ``r`` (n, K)."""
    n = r.sum(axis=0)
    if diagonal:  # the independent Gaussians' moments
        moments = gaussian_moments(x, (np.empty(0, dtype=np.intp), None, r.T), len(n), False)
        return n, moments["mean"], moments["ss"]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n[:, None] > 0, (r.T @ x) / n[:, None], 0.0)
    d = x.shape[1]
    sums, cross = np.zeros((len(n), d)), np.zeros((len(n), d, d))
    mvn_moments(x, r, sums, cross)
    cross = np.tril(cross) + np.swapaxes(np.tril(cross, -1), 1, 2)
    return n, mean, cross - n[:, None, None] * mean[:, :, None] * mean[:, None, :]


def _expected_moments(x, missing, r, mu, cov, diagonal: bool, rng=None) -> tuple:
    """:func:`_moments` of rows ``x`` (n, d) with missing values (``missing``, NaN in
    ``x``), their expectations under every class's Gaussian ``mu`` (K, d), ``cov``
    (K, d, d) (in ``x``'s units): each class's rows completed by the conditional means
    of their missing values, and the conditional covariances, weighted, added to the
    scatter (:func:`missing_mvn_moments`; the rows missing the same columns share one
    factorization per class).

    With ``rng``, the statistics of one draw of the missing values instead (data
    augmentation): each class's rows completed by a draw from their conditional
    Gaussian (standard normals drawn class by class, one per entry of the data), and
    no conditional covariance added."""
    K, d = mu.shape
    layout = _pattern_layout(missing)
    x, mu = np.ascontiguousarray(x), np.ascontiguousarray(mu, dtype=float)
    n = r.sum(axis=0)
    mean = np.zeros((K, d))
    full = np.zeros((K, d, d))
    noise = np.empty((0, d))
    for k in range(K):
        if rng is not None:
            noise = rng.standard_normal(x.shape)
        _check_factored(
            missing_mvn_moments(
                x,
                *layout,
                np.ascontiguousarray(r[:, k]),
                mu[k],
                np.ascontiguousarray(cov[k]),
                noise,
                rng is not None,
                diagonal,
                mean[k],
                full[k],
            )
        )
    return n, mean, np.diagonal(full, axis1=1, axis2=2).copy() if diagonal else full


def _check_factored(pattern: int) -> None:
    """Raise numpy's error for a covariance without a Cholesky factor where a compiled
    loop below met one (``pattern`` >= 0), as ``numpy.linalg.cholesky`` would."""
    if pattern >= 0:
        raise np.linalg.LinAlgError("Matrix is not positive definite")


def _pattern_layout(missing: np.ndarray) -> tuple:
    """The rows of ``missing`` (n, d) grouped by the columns they miss, as the compiled
    loops read them: the rows in pattern order (increasing within a pattern), every
    pattern's first position in that order (and the end), its observed and its
    missing columns (P, d; each in increasing order, then padding) and their numbers.
    A pattern is a row's bits as one integer when they fit in 62 bits (sorting
    integers is fast), else its packed bytes."""
    d = missing.shape[1]
    if d <= 62:
        key = missing.astype(np.int64) @ (np.int64(1) << np.arange(d, dtype=np.int64))
    else:
        packed = np.ascontiguousarray(np.packbits(missing, axis=1))
        key = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable").astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(np.bincount(inverse, minlength=len(first)))])
    pattern = missing[first]
    seen = np.argsort(pattern, axis=1, kind="stable").astype(np.int64)  # observed first
    gone = np.argsort(~pattern, axis=1, kind="stable").astype(np.int64)  # missing first
    n_gone = pattern.sum(axis=1).astype(np.int64)
    return order, starts.astype(np.int64), seen, d - n_gone, gone, n_gone


def _missing_patterns(missing: np.ndarray) -> list[tuple]:
    """:func:`_pattern_layout` as a list: ``(seen, gone, rows)`` per pattern, the
    observed and missing columns and the rows, each in increasing order."""
    order, starts, seen, n_seen, gone, n_gone = _pattern_layout(missing)
    return [
        (seen[p, : n_seen[p]], gone[p, : n_gone[p]], order[starts[p] : starts[p + 1]])
        for p in range(len(n_seen))
    ]


#: :meth:`MultivariateGaussian._pooled_missing`'s EM stops when no parameter moves by
#: more than this fraction of its column's spread, or after this many steps.
_POOLED_TOL = 1e-10
_POOLED_STEPS = 2000


def _updated(prior: NormalInverseWishart, stats: dict) -> tuple:
    """Every class's :math:`\\kappa_n` (K,), :math:`\\mu_n` (K, d) and quadratic terms
    :math:`S_k + \\frac{\\kappa n_k}{\\kappa_n}(\\bar x_k - \\mu_0)(\\bar x_k -
    \\mu_0)^\\top` (K, d, d), or their diagonals (K, d) for diagonal statistics."""
    n, mean, scatter = stats["n"], stats["mean"], stats["scatter"]
    kappa = prior.kappa + n
    delta = mean - prior.mu
    # the prior's mean moved by a share of the deviation: one rounding at the data's
    # offset, where kappa mu_0 + n mean would round at n times it
    mu = prior.mu + (n / kappa)[:, None] * delta
    pull = prior.kappa * n / kappa
    if scatter.ndim == 3:
        return kappa, mu, scatter + pull[:, None, None] * delta[:, :, None] * delta[:, None, :]
    return kappa, mu, scatter + pull[:, None] * delta * delta


def _inverse_wishart_factors(nu, psi, size: int, rng) -> np.ndarray:
    """``size`` draws of a factor M of :math:`\\Sigma = MM^\\top \\sim
    \\mathrm{InvWishart}(\\nu, \\Psi)` for every ``nu`` (...) and ``psi`` (..., d, d):
    (size, ..., d, d). Bartlett: :math:`\\Sigma^{-1} = C^{-\\top}AA^\\top C^{-1} \\sim
    \\mathrm{Wishart}(\\nu, \\Psi^{-1})` for :math:`\\Psi = CC^\\top` and A lower
    triangular, :math:`A_{ii}^2 \\sim \\chi^2_{\\nu - i}` (i from 0) and standard
    normals below the diagonal, so :math:`M = CA^{-\\top}` (one solve, no inverse)."""
    nu = np.asarray(nu, dtype=float)
    psi = np.asarray(psi, dtype=float)
    d = psi.shape[-1]
    shape = (size, *nu.shape)
    a = np.zeros((*shape, d, d))
    on = np.arange(d)
    a[..., on, on] = np.sqrt(2.0 * rng.standard_gamma((nu[..., None] - on) / 2.0, (*shape, d)))
    below = np.tril_indices(d, -1)
    a[..., below[0], below[1]] = rng.standard_normal((*shape, len(below[0])))
    chol_t = np.swapaxes(np.broadcast_to(np.linalg.cholesky(psi), a.shape), -1, -2)
    return np.swapaxes(np.linalg.solve(a, chol_t), -1, -2)  # M^T = A^{-1} C^T


def _log_inverse_gamma(x, alpha, beta):
    from bayesnb._lazy import special

    return alpha * np.log(beta) - special.gammaln(alpha) - (alpha + 1.0) * np.log(x) - beta / x


# -- compiled loops: every row's Mahalanobis distance, and the weighted cross-products ---

#: Rows of a block of the loops below: a block's columns and its solved values stay in
#: L1 while every class reads them.
_ROWS = 256


@_compiled._reassociated
def mvn_scores(x, mu, chol, const, out):
    """``out[i, k] = const[k] - |z|^2 / 2`` with :math:`L_k z = x_i - \\mu_k`, every
    class's Cholesky factor ``chol[k]`` (lower): a forward substitution, column by
    column of a block of rows, each step along the block's rows (``x`` column-major,
    (n, d)); no factor is inverted."""
    n, d = x.shape
    z = np.empty((d, _ROWS))
    quad = np.empty(_ROWS)
    for start in range(0, n, _ROWS):
        m = min(_ROWS, n - start)
        for k in range(mu.shape[0]):
            quad[:m] = 0.0
            for j in range(d):
                zj = z[j]
                col = x[start : start + m, j]
                mean = mu[k, j]
                for r in range(m):
                    zj[r] = col[r] - mean
                for lo in range(j):
                    c = chol[k, j, lo]
                    zl = z[lo]
                    for r in range(m):
                        zj[r] -= c * zl[r]
                pivot = chol[k, j, j]
                for r in range(m):
                    zj[r] /= pivot
                    quad[r] += zj[r] * zj[r]
            for r in range(m):
                out[start + r, k] = const[k] - 0.5 * quad[r]


@_compiled._reassociated
def mvn_moments(x, resp, sums, cross):
    """Add :math:`\\sum_i r_{ik} x_{ij}` to ``sums[k, j]`` and :math:`\\sum_i r_{ik}
    x_{ij} x_{il}` to ``cross[k, j, l]`` (l <= j, the lower triangle) for ``x``
    column-major (n, d) and responsibilities ``resp`` (n, K): one dot product along a
    block's rows per pair of columns, the block in cache."""
    n, d = x.shape
    w = np.empty(_ROWS)
    wx = np.empty(_ROWS)
    for start in range(0, n, _ROWS):
        m = min(_ROWS, n - start)
        for k in range(resp.shape[1]):
            for r in range(m):
                w[r] = resp[start + r, k]
            for j in range(d):
                col = x[start : start + m, j]
                acc = 0.0
                for r in range(m):
                    wx[r] = w[r] * col[r]
                    acc += wx[r]
                sums[k, j] += acc
                for lo in range(j + 1):
                    other = x[start : start + m, lo]
                    acc = 0.0
                    for r in range(m):
                        acc += wx[r] * other[r]
                    cross[k, j, lo] += acc


@_compiled._inline
def _factor(cov, idx, m, out):
    """The Cholesky factor of ``cov[idx[:m]][:, idx[:m]]`` into ``out[:m, :m]``
    (lower); False when that block is not positive definite."""
    for a in range(m):
        for b in range(a + 1):
            v = cov[idx[a], idx[b]]
            for c in range(b):
                v -= out[a, c] * out[b, c]
            if a == b:
                if not v > 0.0:
                    return False
                out[a, a] = np.sqrt(v)
            else:
                out[a, b] = v / out[b, b]
    return True


@_compiled._reassociated
def missing_mvn_scores(x, order, starts, seen, n_seen, mu, cov, quad, log_det):
    """Every row's squared Mahalanobis distance ``quad[i, k]`` from every class's mean
    ``mu[k]`` and ``log_det[i, k]`` (:math:`\\log|\\Sigma_{k,oo}|`), over its observed
    columns o alone: the rows of a pattern (``order[starts[p]:starts[p + 1]]``, their
    observed columns ``seen[p, :n_seen[p]]``) share the Cholesky factor of their
    block of ``cov[k]``, and each takes one forward substitution. A row missing every
    value gets 0 and 0. Returns -1, or the first pattern whose block has no factor."""
    K, d = mu.shape
    chol = np.empty((d, d))
    z = np.empty(d)
    for p in range(len(starts) - 1):
        m = n_seen[p]
        idx = seen[p]
        for k in range(K):
            det = 0.0
            if m > 0:
                if not _factor(cov[k], idx, m, chol):
                    return p
                for a in range(m):
                    det += 2.0 * np.log(chol[a, a])
            for t in range(starts[p], starts[p + 1]):
                i = order[t]
                q = 0.0
                for a in range(m):
                    v = x[i, idx[a]] - mu[k, idx[a]]
                    for b in range(a):
                        v -= chol[a, b] * z[b]
                    v /= chol[a, a]
                    z[a] = v
                    q += v * v
                quad[i, k] = q
                log_det[i, k] = det
    return -1


@_compiled._reassociated
def missing_mvn_moments(
    x, order, starts, seen, n_seen, gone, n_gone, r, mu, cov, noise, draw, diagonal, mean, scatter
):
    """One class's weighted mean and scatter (``scatter``: d x d, or its diagonal for
    ``diagonal``) of rows ``x`` (n, d) with missing values, completed under the class's
    Gaussian ``mu``, ``cov``: every missing coordinate g of a row by its conditional
    mean :math:`\\mu_g + \\sum_s (x_s - \\mu_s) B_{sg}`, :math:`B = \\Sigma_{ss}^{-1}
    \\Sigma_{sg}` (two triangular solves with the factor of :math:`\\Sigma_{ss}`), and
    the conditional covariance :math:`\\Sigma_{gg} - \\Sigma_{gs} B` times the row's
    weight ``r[i]`` added to the scatter; with ``draw``, the conditional mean plus the
    conditional covariance's factor times the row's ``noise`` instead, and nothing
    added. One pass over the rows (pattern by pattern, as :func:`missing_mvn_scores`
    reads them), the mean and the deviations from it updated row by row (West's
    weighted update, which loses no digits to an offset). Rows of weight 0 are
    skipped. Returns -1, or the first pattern whose covariance block has no factor."""
    d = x.shape[1]
    chol = np.empty((d, d))
    coef = np.empty((d, d))
    spread = np.empty((d, d))
    shape = np.empty((d, d))  # the conditional covariance's factor, for draws
    every = np.arange(d)
    row = np.empty(d)
    total = 0.0
    for p in range(len(starts) - 1):
        m, g = n_seen[p], n_gone[p]
        s_idx, g_idx = seen[p], gone[p]
        if g > 0:
            if m > 0:
                if not _factor(cov, s_idx, m, chol):
                    return p
                for c in range(g):  # B[:, c]: L y = S_sg[:, c], then L' b = y
                    for a in range(m):
                        v = cov[s_idx[a], g_idx[c]]
                        for b in range(a):
                            v -= chol[a, b] * coef[b, c]
                        coef[a, c] = v / chol[a, a]
                    for a in range(m - 1, -1, -1):
                        v = coef[a, c]
                        for b in range(a + 1, m):
                            v -= chol[b, a] * coef[b, c]
                        coef[a, c] = v / chol[a, a]
            for c in range(g):
                for e in range(c + 1):
                    v = cov[g_idx[c], g_idx[e]]
                    for a in range(m):
                        v -= 0.5 * (cov[g_idx[c], s_idx[a]] * coef[a, e])
                        v -= 0.5 * (cov[g_idx[e], s_idx[a]] * coef[a, c])
                    spread[c, e] = v
                    spread[e, c] = v
            if draw and not _factor(spread, every, g, shape):  # the draws' factor
                return p
        weight = 0.0
        for t in range(starts[p], starts[p + 1]):
            i = order[t]
            w = r[i]
            if w == 0.0:
                continue
            for j in range(d):
                row[j] = x[i, j]
            for c in range(g):
                v = mu[g_idx[c]]
                for a in range(m):
                    v += (x[i, s_idx[a]] - mu[s_idx[a]]) * coef[a, c]
                if draw:
                    for e in range(c + 1):
                        v += shape[c, e] * noise[i, g_idx[e]]
                row[g_idx[c]] = v
            # the running weighted mean and scatter: S += w (1 - w / W) dd', d = x - mean
            weight += w
            total += w
            step = w / total
            keep = w * (1.0 - step)
            for j in range(d):
                row[j] -= mean[j]
                mean[j] += step * row[j]
            if diagonal:
                for j in range(d):
                    scatter[j, j] += keep * row[j] * row[j]
            else:
                for j in range(d):
                    for lo in range(j + 1):
                        scatter[j, lo] += keep * row[j] * row[lo]
        if g > 0 and not draw and weight > 0.0:
            for c in range(g):
                for e in range(g):
                    scatter[g_idx[c], g_idx[e]] += weight * spread[c, e]
    for j in range(d):  # the upper triangle from the lower
        for lo in range(j):
            scatter[lo, j] = scatter[j, lo]
    return -1


#: Under ML, a component whose spread in some direction is below this fraction of the
#: data's own spread there has collapsed (see ``MultivariateGaussian._check_definite``).
_COLLAPSED = 1e-6


def _whitened(cov: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """:math:`L^{-1} \\Sigma L^{-\\top}` for the Cholesky factor ``chol`` (L) of the
    data's covariance: ``cov`` in the data's own units (symmetrized)."""
    half = np.linalg.solve(chol, cov)
    out = np.linalg.solve(chol, half.T)
    return (out + out.T) / 2.0
