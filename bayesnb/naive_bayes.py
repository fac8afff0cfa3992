"""Supervised naive Bayes from a generative declaration."""

from __future__ import annotations

import math
from itertools import repeat
from typing import NamedTuple

import numpy as np
import xarray as xr

from bayesnb._data import (
    Table,
    check_classes,
    check_features,
    class_labels,
    declare,
    encode_labels,
    split_target,
)
from bayesnb.dask import is_dask
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import Bernoulli, Family
from bayesnb.families._kernels import Labels
from bayesnb.families.base import Group, count_blocks, count_groups, expand, fused_groups
from bayesnb.model import FittedModel
from bayesnb.priors import Dirichlet, PointMass, check_estimate


class NaiveBayes:
    """A naive Bayes model declared generatively.

    The class variable has a Dirichlet prior and every feature its own likelihood
    with a conjugate prior; features are independent given the class.

    Parameters
    ----------
    features : dict of {name: Family}, Family, or None
        One family per column (or per block of columns, via ``columns=``). A single
        family applies to every column: one feature per column of a DataFrame, one
        block named ``"X"`` over an array (and over a DataFrame for a Multinomial).
        ``None`` infers families from dtypes and values: bool, integers that are
        all 0 or 1, and floats whose observed (non-NaN) values are all 0 or 1 are
        Bernoulli; other floats Gaussian; everything else (strings, categoricals,
        other integers) Categorical. Nullable ``Int64``/``boolean``/``Float64``
        columns follow the same rule with ``pd.NA`` missing; a numeric column with
        no observed value is an error. A scipy.sparse matrix is one Bernoulli block
        when its stored values are all 0 or 1 and a Multinomial block (counts)
        otherwise. Adjacent single-column Bernoulli (or
        Categorical) features are counted and scored together as one block, so a
        frame of many columns costs about what one block of them costs; ``params``
        and ``counts`` keep one variable per column.
    class_prior : Dirichlet or PointMass, default Dirichlet(1.0)
        Prior over the class probabilities. A :class:`~bayesnb.priors.PointMass`
        fixes them (scikit-learn's ``class_prior=[...]``): every estimator then gives
        them, whatever the counts. Clustering and the PyMC model need a Dirichlet.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> df = bnb.datasets.play_tennis()
    >>> fit = bnb.NaiveBayes().fit(df, target="play", estimate="mean")
    >>> fit.params["outlook"].sel(class_label="No").values   # (0+1)/8, (2+1)/8, (3+1)/8
    array([0.125, 0.375, 0.5  ])
    >>> fit.predict(df.iloc[[0]])
    array(['No'], dtype=object)
    """

    def __init__(self, features=None, class_prior: Dirichlet | PointMass | None = None):
        self.features = check_features(features)
        self.class_prior = Dirichlet(1.0) if class_prior is None else class_prior
        if not isinstance(self.class_prior, Dirichlet | PointMass):
            raise InputTypeError(
                f"class_prior must be a bnb.Dirichlet (e.g. bnb.Dirichlet(1.0)), a "
                f"bnb.PointMass (known class probabilities), or None for Dirichlet(1.0); got "
                f"{class_prior!r} ({type(class_prior).__name__}). Wrap pseudo-counts in a "
                "prior: class_prior=bnb.Dirichlet([2.0, 1.0]), or fixed probabilities: "
                "class_prior=bnb.PointMass([0.5, 0.5])."
            )

    def __repr__(self) -> str:
        return f"NaiveBayes(features={self.features!r}, class_prior={self.class_prior!r})"

    def bind(
        self,
        table: Table,
        sample_weight=None,
        *,
        counted: bool = False,
        target=None,
        n_labels: int | None = None,
    ) -> list[Family]:
        """Bind every declared family to the training columns it describes.

        ``sample_weight`` (validated, one per row) weighs the rows wherever a family
        learns a data-dependent default, such as the Gaussian prior's pooled scale.
        ``counted=True``: the caller counts these rows next with responsibilities
        summing to ``sample_weight`` (see :meth:`bayesnb.families.Family.bind`).
        ``target``: the fit's name for its labels, which no feature may take.
        ``n_labels``: a mixture's number of components (see
        :meth:`bayesnb.families.Family.bind`).
        """
        groups = self._bind_groups(table, sample_weight, counted, target, n_labels)
        return expand(groups, sum(len(g.index) for g in groups))[0]

    def _bind_groups(
        self, table: Table, sample_weight, counted: bool, target=None, n_labels=None
    ) -> list[Group]:
        """:meth:`bind`'s blocks as groups counted and estimated as one block
        (:class:`~bayesnb.families.base.Group`): the columns one declaration bound at
        once (:meth:`~bayesnb.families.Family.bind_each`) as the block that bound
        them, whose columns become their features after the estimate; the other blocks
        fused by key. ``target``: the fit's name for its labels, which no feature may
        take."""
        declared = declare(self.features, table, target)
        # One declaration given to many columns, one feature each (an inferred frame, or
        # one family for every column): bound at once where the family can.
        shared: dict = {}
        for i, (name, family, columns) in enumerate(declared):
            if columns == [name]:
                shared.setdefault(id(family), []).append(i)
        groups, together = [], set()
        for index in shared.values():
            if len(index) > 1:
                family = declared[index[0]][1]
                columns = [declared[i][0] for i in index]
                block = family.bind_each(
                    columns,
                    table.take(columns),
                    sample_weight=sample_weight,
                    counted=counted,
                    n_labels=n_labels,
                )
                if block is not None:
                    groups.append(Group(index, block))
                    together.update(index)
        alone = [i for i in range(len(declared)) if i not in together]
        blocks = [
            family.bind(
                name,
                columns,
                table.take(columns),
                sample_weight=sample_weight,
                counted=counted,
                n_labels=n_labels,
            )
            for name, family, columns in (declared[i] for i in alone)
        ]
        return groups + fused_groups(blocks, alone)

    def fit(
        self,
        X,
        y=None,
        *,
        target=None,
        estimate: str = "mean",
        class_estimate: str | None = None,
        sample_weight=None,
        feature_names=None,
        classes=None,
    ) -> NaiveBayesFit:
        """Fit the declared model to labelled data (without labels: a density).

        Parameters
        ----------
        X : DataFrame, ndarray or sparse matrix
            Missing values (NaN/None) are allowed in every family but Multinomial; each
            is marginalized exactly. A Dask DataFrame or array is fitted partition by
            partition (:func:`bayesnb.dask.fit`), with the same result.
        y : array_like, optional
            Class labels. Alternatively name a column of ``X`` with ``target``. With
            neither, the fit is the density of ``X`` (:meth:`density`).
        estimate : {"mean", "ml", "map", "predictive"}, default "mean"
            Estimator for every feature without its own ``estimate``. ``"mean"`` (the
            default) is the posterior mean: under the default ``Dirichlet(1)`` priors it
            is Laplace's add-one smoothing, ``(count + 1) / (N + V)``, scikit-learn's
            default, so no probability is 0 or 1 from counts alone (a value never seen
            with a class does not rule that class out). ``"ml"`` is the raw
            frequency, ``"map"`` the posterior mode (equal to ``"ml"`` under
            ``Dirichlet(1)``); ``"predictive"`` is the full posterior predictive (equal to
            the mean for one categorical draw; Student-t for Gaussians;
            Dirichlet-multinomial for word counts).
        class_estimate : str, optional
            Estimator for the class probabilities (default: ``estimate``, so also
            ``"mean"``: (class count + 1) / (N + K)).
        sample_weight : array_like, optional
            Non-negative row weights, one per row, not all zero.
        classes : sequence, optional
            Every class label, including those absent from ``y`` (each gets counts 0,
            so its parameters are its prior's). Default: the labels in ``y``. The
            labels are kept sorted either way; a label of ``y`` not in ``classes`` is
            an error. Give it when later batches (:meth:`NaiveBayesFit.update`) may
            hold classes this one does not: the first fit fixes the labels. A class
            without rows has its prior's estimates, so it needs priors that have them:
            under the default ``"mean"``, a Gaussian feature's prior needs
            ``alpha > 1`` (its E[σ²] is β/(α − 1)), e.g.
            ``bnb.Gaussian(bnb.NormalInverseGamma(alpha=2.0))``; under ``"map"``, a
            discrete feature's Dirichlet needs every concentration above 1.

        Returns
        -------
        NaiveBayesFit
            A :class:`~bayesnb.density.DensityFit` when neither ``y`` nor ``target``
            is given.
        """
        if is_dask(X):  # partition by partition, the statistics merged
            from bayesnb import dask as on_dask

            return on_dask.fit(
                self,
                X,
                y,
                target=target,
                estimate=estimate,
                class_estimate=class_estimate,
                sample_weight=sample_weight,
                feature_names=feature_names,
                classes=classes,
            )
        check_estimate(estimate)
        if class_estimate is not None:
            check_estimate(class_estimate, "class_estimate")
        if y is None and target is None and classes is None:
            if class_estimate is not None:
                raise InputError(
                    f"fit got class_estimate={class_estimate!r} but no labels (neither y nor "
                    "target), so it fits a density, which has no class to estimate. Pass y= "
                    "or target= for a classifier, or drop class_estimate for a density."
                )
            return self.density(
                X, estimate=estimate, sample_weight=sample_weight, feature_names=feature_names
            )
        class_estimate = class_estimate or estimate
        X, y, target_name = split_target(X, y, target)
        table = Table(X, feature_names=feature_names)
        table.check_not_empty()
        if classes is None:
            codes, labels = encode_labels(y, table.n_rows)
        else:
            codes, labels = encode_labels(
                y,
                table.n_rows,
                labels=check_classes(classes),
                remedy="Add it to classes=, which lists every class label.",
            )
        return self._fit_codes(
            table, codes, labels, estimate, class_estimate, sample_weight, target_name
        )

    def density(self, X, estimate: str = "mean", sample_weight=None, feature_names=None):
        """Fit the declaration as a density ``p(x) = prod_i p(x_i)``, without labels.

        The classifier with one constant class (seed 000, section 1): every row is
        counted as that class, by the same families, statistics and estimators as
        :meth:`fit`. ``NaiveBayes().fit(X)`` with neither ``y`` nor ``target`` does the
        same.

        Parameters
        ----------
        X : DataFrame, ndarray or sparse matrix
            Missing values are marginalized, as by :meth:`fit`.
        estimate : {"mean", "ml", "map", "predictive"}, default "mean"
            As for :meth:`fit`.
        sample_weight : array_like, optional
            Non-negative row weights, one per row, not all zero.

        Returns
        -------
        bayesnb.density.DensityFit
        """
        from bayesnb.density import CONSTANT_LABEL, DENSITY_TARGET, DensityFit

        if is_dask(X):  # partition by partition, as fit without labels
            return self.fit(
                X, estimate=estimate, sample_weight=sample_weight, feature_names=feature_names
            )
        check_estimate(estimate)
        table = Table(X, feature_names=feature_names)  # X's type checked here
        table.check_not_empty()
        codes = np.zeros(table.n_rows, dtype=np.intp)
        return self._fit_codes(
            table,
            codes,
            [CONSTANT_LABEL],
            estimate,
            estimate,
            sample_weight,
            DENSITY_TARGET,
            kind=DensityFit,
        )

    def _fit_codes(
        self,
        table,
        codes,
        labels,
        estimate,
        class_estimate,
        sample_weight,
        target_name,
        kind=None,
    ):
        """The fit of ``table`` whose rows have the class positions ``codes`` in
        ``labels``: bind, count, estimate (the one pipeline of :meth:`fit` and
        :meth:`density`)."""
        kind = NaiveBayesFit if kind is None else kind
        resp = class_labels(codes, len(labels), sample_weight)
        groups, stats = count_groups(
            self._bind_groups(table, resp.weights, counted=True, target=target_name),
            table,
            resp,
        )
        names = [None] * sum(len(g.index) for g in groups)
        for group in groups:  # every block's estimator, in the blocks' order
            for i, name, block in zip(
                group.index, group.names(), group.members or repeat(group.block), strict=False
            ):
                names[i] = (name, block.estimate or estimate)
        fit = kind.from_statistics(
            labels=labels,
            blocks=None,
            stats=stats,
            groups=groups,
            class_counts=resp.totals(),
            class_prior=self.class_prior,
            estimates={"class": class_estimate, "features": dict(names)},
            feature_names=table.names,
            is_frame=table.is_frame,
            target=target_name,
            column_dtypes=table.frame_dtypes(),
        )
        fit.training = [TrainingRows(table, resp)]
        return fit

    def cluster(self, X, n_components=2, **options):
        """Cluster unlabelled data with this declaration as a mixture (Autoclass, EM).

        A thin front to :func:`bayesnb.mixture.fit_mixture`, which documents every
        option (``y`` for semi-supervised fitting, ``estimate``, ``init``,
        ``n_init``, ``max_iter``, ``tol``, ``random_state``).

        Returns
        -------
        bayesnb.mixture.MixtureFit
        """
        from bayesnb.mixture import fit_mixture

        if not is_dask(X):  # a Dask collection's rows are counted where they are
            Table(X, feature_names=options.get("feature_names")).check_not_empty()
        return fit_mixture(self, X, n_components, **options)

    def to_pymc(self, X, y=None, n_components=None, *, target=None, sample_weight=None):
        """This declaration as a PyMC model (``pymc.Model``), for MCMC.

        The model's variables carry the names, dims and coords of ``fit.params``:
        ``class_prob`` and every feature's parameters, each under its declared prior
        (a Dirichlet for the class weights; Beta or Dirichlet for discrete features;
        for a Gaussian ``<name>_var`` ~ InverseGamma and ``<name>_mu`` ~ Normal given
        the variance, the Normal-Inverse-Gamma prior, and ``<name>_sigma`` its square
        root). The likelihood is one ``pm.Potential`` named ``"log_likelihood"``; a
        missing value is marginalized, as by the fit and by EM.

        Parameters
        ----------
        X : DataFrame, ndarray or sparse matrix
        y : array_like, optional
            With ``n_components`` None: the classes of a classifier (the model of
            ``self.fit(X, y)``'s posterior, with the priors the fit resolves). With
            ``n_components``: the known component of each row, missing where unknown
            (semi-supervised).
        n_components : int or list, optional
            A mixture of this many components (or of these names): the declaration
            bound as EM binds it, every row's component marginalized by a log-sum-exp
            over the components (a known row's fixed). Its dim is ``component``.
        target : str, optional
            A column of ``X`` holding ``y``.
        sample_weight : array_like, optional
            Non-negative row weights: each multiplies its row's log-likelihood.

        Returns
        -------
        pymc.Model

        Examples
        --------
        >>> import bayesnb as bnb
        >>> pm_model = bnb.NaiveBayes().to_pymc(bnb.datasets.play_tennis(), target="play")
        >>> pm_model.named_vars_to_dims["outlook"]
        ('class_label', 'outlook_category')
        """
        from bayesnb.pymc_model import to_pymc

        return to_pymc(self, X, y, n_components, target=target, sample_weight=sample_weight)


class TrainingRows(NamedTuple):
    """One batch of the rows a classifier was fitted on, kept by reference (not
    copied) for what needs the data itself: the exact posterior's ``observed_data``,
    ``log_likelihood`` and ``posterior_predictive`` groups. It is not saved: a model
    read by :func:`bayesnb.load` has none."""

    table: Table
    labels: Labels  # every row's class code, with its weight


class NaiveBayesFit(FittedModel):
    """A fitted naive Bayes classifier: parameters, statistics and predictions.

    Attributes
    ----------
    labels : list
        The classes, in the column order of :meth:`predict_proba`.
    params : xarray.Dataset
        Estimated parameters with dims ``class_label`` and per-feature category dims.
    counts : xarray.Dataset
        The sufficient statistics.
    training : list of TrainingRows
        The batches of rows the statistics were counted from (one after ``fit``; one
        more after each :meth:`update`); empty for a model read from a file.

    Examples
    --------
    Play-tennis under the default Dirichlet(1) priors: the posterior mean of
    P(play = Yes) is (9 + 1)/(14 + 2), and day D1 is predicted a "No" day.

    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> tennis = bnb.datasets.play_tennis()
    >>> fit = bnb.NaiveBayes().fit(tennis, target="play")
    >>> fit.labels, fit.params["class_prob"].values
    (['No', 'Yes'], array([0.375, 0.625]))
    >>> fit.counts["outlook"].sel(class_label="No").values  # Overcast, Rain, Sunny
    array([0., 2., 3.])
    >>> day = tennis.drop(columns="play").loc[["D1"]]
    >>> fit.predict_proba(day).round(3), fit.predict(day)
    (array([[0.704, 0.296]]), array(['No'], dtype=object))

    The conjugate update is exact: two batches give the one fit on every row.

    >>> first = bnb.NaiveBayes().fit(tennis.iloc[:7], target="play")
    >>> both = first.update(tennis.iloc[7:], target="play")
    >>> all(np.allclose(both.params[v], fit.params[v]) for v in fit.params.data_vars)
    True
    """

    training: list = []  # noqa: RUF012  (a model read from a file keeps no rows)

    # -- the exact posterior (see bayesnb.posterior) ----------------------------------------
    def posterior(
        self, draws: int = 1000, chains: int = 4, random_state=None, *, data: bool = True
    ) -> xr.DataTree:
        """Independent draws from the exact conjugate posterior, as an ArviZ ``DataTree``.

        Every parameter's posterior is conjugate: a Dirichlet (Beta) over the class
        probabilities and over every discrete variable of every class (prior
        concentration + counts), and a Normal-Inverse-Gamma over every Gaussian mean
        and variance. The draws are exact and independent (no chain, so no burn-in
        and an effective sample size of ``draws * chains``); ``chains`` only splits
        them the way ArviZ's diagnostics expect.

        Parameters
        ----------
        draws, chains : int
            ``draws * chains`` draws in all.
        random_state : None, int or numpy Generator
        data : bool, default True
            Add the groups made from the training rows (not saved with a model: a fit
            read by :func:`bayesnb.load` has none, and gets the posterior and prior
            alone).

        Returns
        -------
        xarray.DataTree
            Groups:

            * ``posterior`` and ``prior``: the variables, dims and coords of
              :attr:`params` (the estimator's values: probabilities, and for Gaussians
              ``<name>_mu``, ``<name>_var``, ``<name>_sigma``) with ``chain`` and
              ``draw`` in front. The prior is the declared one (for a Gaussian
              with the default prior, the one the fit resolved from the data).
            * ``observed_data``: the training rows, one variable per block (named
              by it; dims ``row`` and, for a block of columns, its ``<name>_feature``)
              and the class, named by the fit's target. Discrete values are coded as
              numbers: a class or category by its position on the ``class_label`` or
              ``<name>_category`` axis, a Bernoulli value as 1 (true) or 0; NaN marks
              a missing value.
            * ``posterior_predictive``: for every draw, a class and features drawn
              for every training row from that draw's parameters, coded the same way.
            * ``log_likelihood``: ``log p(x_i, y_i | theta)`` of every row under every
              draw, named by the target (a missing value contributes nothing), for
              ``az.loo`` and ``az.compare``. Being the row's one joint term, it
              serves ``az.loo_pit`` for the class: pass ``var_names=`` the target
              (without it ArviZ looks for a log-likelihood of every observed
              variable).
            * ``constant_data``: the rows' ``sample_weight``, when the fit had weights.

            The ``row`` coordinate holds the training frame's index labels (every
            batch's in turn, after :meth:`update`) when they are numbers, text or
            naive datetimes, of one kind over the batches (so that the tree saves to
            netCDF); else positions 0..n-1 (an array, a MultiIndex, time-zone-aware
            or mixed labels).

            A block whose draws would hold more than ``2**25`` values (draws x rows x
            columns: a vocabulary of word counts) is left out of ``observed_data``
            and ``posterior_predictive``; their ``omitted`` attribute names it. The
            ``log_likelihood`` group holds ``draws * chains * rows`` numbers: ask for
            fewer draws on many rows, or ``data=False``.

        Examples
        --------
        >>> import bayesnb as bnb
        >>> fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
        >>> tree = fit.posterior(draws=500, chains=2, random_state=0)
        >>> sorted(tree.children)
        ['log_likelihood', 'observed_data', 'posterior', 'posterior_predictive', 'prior']
        >>> tree["posterior"]["outlook"].dims
        ('chain', 'draw', 'class_label', 'outlook_category')
        """
        from bayesnb.posterior import posterior_tree

        return posterior_tree(self, draws, chains, random_state, data)

    def credible_interval(self, prob: float | None = None, kind: str = "eti") -> xr.Dataset:
        """Every parameter's credible interval from its exact marginal posterior.

        A coordinate of a Dirichlet is a Beta, a Gaussian mean a Student-t with
        ``2 alpha_n`` degrees of freedom, a variance an inverse gamma and a standard
        deviation its square root, so no draw is needed.

        Parameters
        ----------
        prob : float, optional
            The interval's mass; default ArviZ's ``rcParams["stats.ci_prob"]``.
        kind : {"eti", "hdi"}
            Equal-tailed (the two quantiles), or highest-density (the shortest).

        Returns
        -------
        xarray.Dataset
            The variables of :attr:`params` with a last dim ``ci_bound``
            (``"lower"``, ``"upper"``), as ArviZ's ``eti`` and ``hdi`` give them.

        Examples
        --------
        >>> import bayesnb as bnb
        >>> fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
        >>> ci = fit.credible_interval(prob=0.9)
        >>> ci["class_prob"].sel(class_label="Yes").values.round(3)   # Beta(10, 6)
        array([0.423, 0.809])
        """
        from bayesnb.posterior import credible_interval

        return credible_interval(self, prob, kind)

    def log_evidence(self) -> float:
        """``log p(labels, features)``: the marginal likelihood of the training data
        under the declaration, every parameter integrated out over its prior.

        It is the class labels' Dirichlet-multinomial plus, for every feature, its
        Beta- or Dirichlet-multinomial (a Binned feature's with each bin's width, so
        a density) or its Normal-Inverse-Gamma marginal (a product of Student-t
        predictives). A Multinomial block counts the word sequence, without the
        multinomial coefficient, as its likelihood does; a missing value is
        marginalized. Differences between two declarations fitted to the same data
        are log Bayes factors. The default Gaussian prior is centred on the data it
        scores (an empirical-Bayes prior), so compare Gaussian declarations with
        priors that are declared.

        Examples
        --------
        >>> import bayesnb as bnb
        >>> fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
        >>> round(fit.log_evidence(), 4)
        -65.3575
        """
        from bayesnb.posterior import log_evidence

        return log_evidence(self)

    def posterior_predict(
        self, X, draws: int = 1000, chains: int = 4, random_state=None
    ) -> xr.DataArray:
        """``P(class | row, theta)`` of every row of ``X`` under every posterior draw.

        Returns
        -------
        xarray.DataArray
            Dims ``(chain, draw, row, label)``; ``row`` holds the DataFrame's index
            (positions for an array).
        """
        from bayesnb.posterior import posterior_predict

        return posterior_predict(self, X, draws, chains, random_state)

    def predictive_interval(
        self,
        X,
        prob: float | None = None,
        kind: str = "eti",
        *,
        draws: int = 1000,
        chains: int = 4,
        random_state=None,
    ) -> xr.Dataset:
        """The posterior mean of ``P(class | row)`` with its credible interval.

        The interval is that of the draws of :meth:`posterior_predict`: on little
        data it is wide, which a point estimate hides. ``mean`` is the average of
        ``P(class | row, theta)`` over the posterior; the fully Bayesian class
        probability ``p(class | row, data)``, which :meth:`predict_proba` gives under
        ``estimate="predictive"``, is a ratio of averages and differs from it.

        Returns
        -------
        xarray.Dataset
            ``mean``, ``lower`` and ``upper``, each with dims ``(row, fit.label_dim)``
            (``class_label`` for a classifier).
        """
        from bayesnb.posterior import predictive_interval

        return predictive_interval(self, X, prob, kind, draws, chains, random_state)

    def linear_weights(self) -> tuple[float, xr.DataArray]:
        """The naive Bayes classifier as a linear separator (seed 000, equation 1).

        For Boolean features and two classes, the second label (``T``) is predicted
        exactly when :math:`w_0 + \\sum_i w_i x_i \\ge 0`, with

        .. math::
            w_0 = \\ln\\theta_C - \\ln(1-\\theta_C)
                  + \\sum_i [\\ln(1-\\theta_i^T) - \\ln(1-\\theta_i^F)],\\quad
            w_i = \\ln\\frac{\\theta_i^T}{1-\\theta_i^T} - \\ln\\frac{\\theta_i^F}{1-\\theta_i^F}.

        Returns
        -------
        w0 : float
        w : DataArray over dim ``feature``
        """
        others = [b.name for b in self.blocks if not isinstance(b, Bernoulli)]
        if len(self.labels) != 2 or others:
            problems = []
            if len(self.labels) != 2:
                problems.append(f"{len(self.labels)} class(es) {self.labels[:5]!r}")
            if others:
                kinds = sorted({b.kind for b in self.blocks if b.name in others})
                problems.append(f"the features {others[:5]!r}, which are {kinds}")
            raise InputError(
                "linear_weights needs Boolean (Bernoulli) features and two classes; the "
                f"fit has {' and '.join(problems)}. Declare the features as "
                "bnb.Bernoulli and fit two classes."
            )
        log0 = np.concatenate([p["log_prob"][..., 0] for p in self.block_params], axis=1)
        log1 = np.concatenate([p["log_prob"][..., 1] for p in self.block_params], axis=1)
        if not (np.isfinite(log0).all() and np.isfinite(log1).all()):
            raise InputError(
                "linear_weights needs every probability strictly between 0 and 1; the fit "
                f"(estimates {self.estimates!r}) has a probability 0 or 1. Fit with "
                "estimate='mean' (the default) or a prior with alpha > 1."
            )
        names = [c for b in self.blocks for c in b.columns]
        w = (log1[1] - log0[1]) - (log1[0] - log0[0])
        w0 = (self.class_log_prob[1] - self.class_log_prob[0]) + (log0[1] - log0[0]).sum()
        return float(w0), xr.DataArray(w, dims=("feature",), coords={"feature": names})

    def update(self, X, y=None, *, target=None, sample_weight=None) -> NaiveBayesFit:
        """The fit after one more batch of labelled rows (sequential Bayesian updating).

        This fit's posterior serves as the prior of the batch: the batch is counted
        with this fit's own bound features (their categories, values and priors), its
        statistics are merged with this fit's, and the parameters are estimated from
        the merged statistics. A fit is a value: this one is unchanged, and a new one
        is returned, whose ``training`` is this fit's batches plus ``X``.

        The conjugate update is exact, so fitting in batches equals fitting once on
        all the rows (to round-off) for every declared prior. A Gaussian's default
        prior depends on the data: it is resolved from the first fit's rows and stays
        fixed, so batches equal one fit that declares the prior the first fit
        resolved (``fit.blocks[i].prior``).

        Parameters
        ----------
        X : DataFrame, ndarray or sparse matrix
            The batch, in the form and with the columns of the first fit.
        y : array_like, optional
            The batch's class labels, each among ``labels`` (the first fit fixes the
            labels: pass ``classes=`` to it for classes that come later).
            Alternatively name a column of ``X`` with ``target``.
        sample_weight : array_like, optional
            Non-negative row weights, one per row, not all zero.

        Returns
        -------
        NaiveBayesFit

        Notes
        -----
        A categorical value outside the first fit's categories is an error here (at
        prediction it is marginalized): dropping it from the counts would make the
        batches differ from one fit. A model read by :func:`bayesnb.load` has its
        statistics, so it can be updated; it keeps no training rows, and neither does
        the new fit (its ``training`` would miss the rows behind the saved
        statistics, so the posterior's data groups would not match its parameters).

        Examples
        --------
        Seed 003's Beta updating: a Beta(4, 7) prior on a win, then one win and two
        losses, then two more losses.

        >>> import pandas as pd, bayesnb as bnb
        >>> model = bnb.NaiveBayes({"win": bnb.Bernoulli(bnb.Beta(4, 7))})
        >>> first = pd.DataFrame({"win": [True, False, False], "team": "ours"})
        >>> fit = model.fit(first, target="team")   # Beta(5, 9): mean 5/14
        >>> round(fit.params["win"].item() * 14, 12)
        5.0
        >>> later = pd.DataFrame({"win": [False, False], "team": "ours"})
        >>> after = fit.update(later, target="team")  # Beta(5, 11): mean 5/16
        >>> round(after.params["win"].item() * 16, 12), len(after.training)
        (5.0, 2)
        """
        if y is None and target is None:
            hint = (
                f" (e.g. target={self.target!r}, the first fit's)"
                if self.is_frame and hasattr(X, "columns") and self.target in X.columns
                else ""
            )
            raise InputError(
                "update needs the class of every row of the batch: pass y= or target=, "
                f"naming a column of X{hint}; got neither."
            )
        X, y, _ = split_target(X, y, target)
        table = self._table(X)
        if table.n_rows == 0:
            raise InputError(
                f"update got an empty batch: X has no rows (shape {table.shape}). Give at "
                "least one labelled row; without new rows the fit stands as it is."
            )
        for block in self.blocks:
            block.check_update(table.take(block.columns))
        codes, _ = encode_labels(
            y,
            table.n_rows,
            labels=self.labels,
            remedy=(
                "The first fit fixes the labels; to update with a class it did not see, "
                "pass every class to the first fit: fit(..., classes=[...])."
            ),
        )
        resp = class_labels(codes, len(self.labels), sample_weight)
        batch = count_blocks(self.blocks, table, resp)
        fit = self.with_statistics(
            stats=[
                block.merge_stats(old, new)
                for block, old, new in zip(self.blocks, self.stats, batch, strict=True)
            ],
            class_counts=self.class_counts + resp.totals(),
        )
        if self.training:  # else a model read from a file: its rows are unknown
            fit.training = [*self.training, TrainingRows(table, resp)]
        return fit


def count_parameters(domain_sizes, n_labels: int | None = None) -> dict:
    """Free parameters of naive Bayes against the full joint, from domain sizes.

    Parameters
    ----------
    domain_sizes : sequence of int
        ``|Dom(X_i)|`` of every attribute.
    n_labels : int, optional
        Number of classes; ``None`` counts the density ``P(X_1..X_n)`` alone (seed 000).

    Examples
    --------
    >>> count_parameters([2] * 10)                  # seed 000: 2^n - 1 against n
    {'naive_bayes': 10, 'full_joint': 1023}
    >>> count_parameters([2] * 10, n_labels=2)      # seed 003: 2n + 1
    {'naive_bayes': 21, 'full_joint': 2047}
    """
    sizes = [int(s) for s in domain_sizes]
    per_class = sum(s - 1 for s in sizes)
    if n_labels is None:
        return {"naive_bayes": per_class, "full_joint": math.prod(sizes) - 1}
    return {
        "naive_bayes": n_labels - 1 + n_labels * per_class,
        "full_joint": n_labels * math.prod(sizes) - 1,
    }


# -- validation of the options (shared with bayesnb.sklearn) ----------------------------------
