"""A PyMC model from a naive Bayes declaration: the classifier's and the mixture's.

The model's variables are those of ``fit.params``, with the same names, dims and
coords, so that EM's estimates, the exact posterior and MCMC draws line up variable
by variable:

* ``class_prob`` (dim ``class_label`` for a classifier, ``component`` for a mixture)
  under the class prior's Dirichlet;
* every discrete variable under its declared prior: a Bernoulli column's P(true)
  under its Beta, a categorical column's (or a Binned column's, or a Multinomial
  block's) probabilities under their Dirichlet, one per class (a concentration given
  per class or per category is honoured);
* every Gaussian's ``<name>_var`` ~ InverseGamma(alpha, beta) and ``<name>_mu`` ~
  Normal(mu0, sqrt(var / kappa)), the Normal-Inverse-Gamma prior, with
  ``<name>_sigma`` = sqrt(var) a deterministic;
* every MultivariateGaussian block's Normal-Inverse-Wishart prior: ``<name>_cov`` ~
  InverseWishart(nu, Psi) per class (a ``CustomDist`` sampled through the
  log-Cholesky factor), or one ``<name>_tied_cov`` for ``covariance="tied"`` (with
  ``<name>_cov`` its copy per class, a deterministic), or ``<name>_var`` ~
  InverseGamma per variance, per class or once for the diagonal types (with
  ``<name>_cov`` the diagonal matrix, a deterministic); then ``<name>_mu`` ~
  MvNormal(mu0, cov / kappa). :func:`free_values` reads such a free variable from
  ``<name>_cov`` when ``params`` lacks it.

The hyperparameters are the families' own: :meth:`bayesnb.families.Family.posterior_hyper`
of zero statistics (the prior as the package resolves it: a classifier's default
Gaussian prior per class, a mixture's pooled one) laid out by the family's
``to_xarray``.

The likelihood is one ``pm.Potential`` named ``"log_likelihood"``, built from the
package's encodings, with every missing value marginalized (it contributes nothing):

* rows whose class is known (every row of a classifier, the labelled rows of a
  semi-supervised mixture) enter by their weighted sufficient statistics, counted by
  the families' own ``count``: ``sum(counts * log theta)`` over the non-zero counts of
  every discrete variable (a Binned value also ``-log width`` of its bin), and
  ``-n/2 log(2 pi var) - (S + n (mean - mu)^2) / (2 var)`` for a Gaussian, and
  ``-1/2 [n (d log 2 pi + log|Sigma|) + tr(Sigma^-1 (S + n (mean - mu)(mean - mu)'))]``
  for a joint one;
* rows whose component is unknown enter by ``w_i logsumexp_k [log pi_k + sum_j log
  p(x_ij | theta_kj)]``: the discrete values read from every family's ``design`` (the
  observed entries of the flat layout of its log-probabilities) and the Gaussian
  values by their normal log density, a missing one masked out (a joint Gaussian's by
  a triangular solve against its Cholesky factor).

A Potential rather than observed distributions: the data enter as constants of one
term (statistics and a design, not draws of a PyMC distribution), the term is the
package's own likelihood, and a known row costs nothing beyond its statistics. So the
model has no observed variable: ``pm.compute_log_likelihood`` and posterior predictive
sampling do not apply to it, and the rows' log-likelihoods of a draw are computed with
the package's kernels instead.

PyMC is imported with this module, which ``import bayesnb`` does not import.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr

from bayesnb._data import Table, check_sample_weight, split_target
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import Bernoulli, Gaussian, MultivariateGaussian
from bayesnb.families._kernels import _plain, value_array
from bayesnb.families.multivariate import DIAGONAL_COVARIANCES, _missing_patterns
from bayesnb.priors import class_concentration

__all__ = [
    "classifier_model",
    "free_values",
    "log_density",
    "mixture_model",
    "model_point",
    "to_pymc",
]

LOG_2PI = float(np.log(2.0 * np.pi))

#: The name of the likelihood's Potential.
LIKELIHOOD = "log_likelihood"


# -- the front ----------------------------------------------------------------------------
def to_pymc(model, X, y=None, n_components=None, *, target=None, sample_weight=None):
    """The PyMC model of ``model`` on ``X``: :meth:`bayesnb.NaiveBayes.to_pymc`, which
    documents the arguments, as a function of the declaration.

    Examples
    --------
    Seed 003's soccer games as one component: the only free parameter is P(win),
    sampled as its log-odds.

    >>> import bayesnb as bnb
    >>> from bayesnb.pymc_model import to_pymc
    >>> games = bnb.datasets.soccer_games()
    >>> pm_model = to_pymc(bnb.NaiveBayes(), games, n_components=1)
    >>> [rv.name for rv in pm_model.free_RVs], [v.name for v in pm_model.value_vars]
    (['class_prob', 'win'], ['class_prob_simplex__', 'win_logodds__'])
    """
    if n_components is None:
        if y is None and target is None:
            raise InputError(
                "to_pymc needs the classes of the rows (y= or target=, a classifier) or "
                "n_components= (a mixture); got none of y, target and n_components. Pass "
                "y=labels for the classifier's posterior, or n_components=K to cluster."
            )
        fit = model.fit(X, y, target=target, sample_weight=sample_weight)
        return classifier_model(fit)
    if target is not None:
        if y is not None:
            raise InputError(
                f"to_pymc got both y and target={target!r}; give the known components "
                "once: y=labels, or target='column' naming a column of X."
            )
        X, y, _ = split_target(X, None, target)
    return mixture_model(model, X, n_components, y=y, sample_weight=sample_weight)


def classifier_model(fit) -> pm.Model:
    """The PyMC model of a fitted classifier's posterior (a ``NaiveBayesFit``).

    Its priors are the fit's, as the fit resolved them (a Gaussian's default prior per
    class, from the class's own rows), and its likelihood that of the training rows
    with their labels, through the fit's statistics (so a fit read by
    :func:`bayesnb.load` serves too). The class dim is ``fit.label_dim``.

    Examples
    --------
    Play-tennis under the default Dirichlet(1) priors. At the fitted parameters
    the model's log density is the log-likelihood of the counts plus the log prior
    density, here ``4 log 2`` (a flat Dirichlet over three values has density 2,
    over two values 1).

    >>> import math
    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> from bayesnb.pymc_model import classifier_model, log_density
    >>> fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
    >>> pm_model = classifier_model(fit)
    >>> pm_model.named_vars_to_dims["outlook"]
    ('class_label', 'outlook_category')
    >>> names = {"class_count": "class_prob", "outlook": "outlook",
    ...          "temperature": "temperature", "humidity": "humidity", "wind": "wind"}
    >>> loglik = sum(float((fit.counts[c] * np.log(fit.params[p])).sum())
    ...              for c, p in names.items())
    >>> round(loglik + 4 * math.log(2), 6), round(log_density(pm_model, fit.params), 6)
    (-52.318425, -52.318425)
    """
    k = len(fit.labels)
    return _build(
        blocks=fit.blocks,
        labels=fit.labels,
        label_dim=fit.label_dim,
        class_alpha=class_concentration(fit.class_prior, k, "The PyMC model"),
        known_stats=fit.stats,
        known_counts=np.asarray(fit.class_counts, dtype=float),
        rows=None,
    )


def mixture_model(
    model, X, n_components, *, y=None, sample_weight=None, feature_names=None
) -> pm.Model:
    """The PyMC model of the mixture ``model`` declares, on the rows of ``X``.

    The declaration is bound to ``X`` as EM binds it (a Gaussian's default prior is
    the one prior of every component, from all the rows). ``n_components`` is K or the
    list of the components' names, and ``y`` the known component of every row (a
    missing label: unknown), as :func:`bayesnb.mixture.fit_mixture` takes them. The
    component of a row is marginalized; a known row's is fixed.

    Examples
    --------
    Old Faithful as two Gaussian components: every Gaussian has its variance and
    mean (and the sd as a deterministic), with the dim ``component``.

    >>> import bayesnb as bnb
    >>> from bayesnb.pymc_model import mixture_model
    >>> faithful = bnb.datasets.old_faithful()
    >>> pm_model = mixture_model(bnb.NaiveBayes(bnb.Gaussian()), faithful, 2)
    >>> [rv.name for rv in pm_model.free_RVs]
    ['class_prob', 'eruptions_var', 'eruptions_mu', 'waiting_var', 'waiting_mu']
    >>> pm_model.named_vars_to_dims["eruptions_sigma"], len(pm_model.coords["component"])
    (('component',), 2)
    """
    from bayesnb.mixture import _known_codes, mixture_labels

    table = Table(X, feature_names=feature_names)
    table.check_not_empty()
    weights = check_sample_weight(sample_weight, table.n_rows)
    labels = mixture_labels(n_components, y, n_rows=table.n_rows)
    known = None if y is None else _known_codes(y, labels, table.n_rows)
    blocks = model.bind(table, weights, n_labels=len(labels))
    return bound_mixture_model(blocks, table, labels, model.class_prior, known, weights)


def bound_mixture_model(
    blocks, table: Table, labels, class_prior, known=None, sample_weight=None
) -> pm.Model:
    """The mixture's PyMC model from a declaration already bound to ``table``.

    Parameters
    ----------
    blocks : list of Family
        The bound families (``model.bind(table, sample_weight, n_labels=K)``, as EM
        binds them: a Gaussian's default prior is resolved for the K components).
    table : bayesnb._data.Table
        The rows.
    labels : list
        The components' names (the ``component`` coords).
    class_prior : Dirichlet
        The prior of the component weights.
    known : ndarray of int, optional
        Every row's known component code, -1 where unknown.
    sample_weight : ndarray, optional
        Validated row weights: each multiplies its row's term.
    """
    k, n = len(labels), table.n_rows
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    codes = np.full(n, -1, dtype=np.intp) if known is None else np.asarray(known, np.intp)
    fixed = codes >= 0
    resp = np.zeros((n, k))
    resp[fixed, codes[fixed]] = w[fixed]
    data = [table.take(block.columns) for block in blocks]
    known_stats, holed = [], {}
    for block, d in zip(blocks, data, strict=True):
        enc = block.encode(d)
        if block.imputes(enc):  # its known rows missing values are scored one by one
            missing = np.isnan(enc).any(axis=1)
            rows = np.flatnonzero(fixed & missing & (w > 0))
            holed[id(block)] = (block.observed_codes(d)[rows], codes[rows], w[rows])
            known_stats.append(block.count(enc[~missing], resp[~missing]))
        else:
            known_stats.append(block.count(enc, resp))
    free = ~fixed & (w > 0)  # a row of weight 0 adds nothing
    return _build(
        blocks=blocks,
        labels=labels,
        label_dim="component",
        class_alpha=class_concentration(class_prior, k, "The PyMC model"),
        known_stats=known_stats,
        known_counts=resp.sum(axis=0),
        rows=(data, free, w[free]),
        holed=holed,
    )


# -- the model ------------------------------------------------------------------------------
def _build(*, blocks, labels, label_dim, class_alpha, known_stats, known_counts, rows, holed=None):
    """The PyMC model: the priors, then one Potential holding the likelihood of the
    known rows (their statistics ``known_stats`` and class totals ``known_counts``)
    and of the rows ``rows`` = ``(every block's data, mask of the rows, their
    weights)`` whose class is unknown (None: none). ``holed`` maps a
    MultivariateGaussian block (its id) to its known rows that miss values, which
    its statistics leave out: ``(values with NaN, class codes, weights)``."""
    k = len(labels)
    label_values = value_array(labels)
    coords = {label_dim: label_values}
    layouts = []
    for block, stats in zip(blocks, known_stats, strict=True):
        hyper = block.posterior_hyper({key: np.zeros_like(v) for key, v in stats.items()})
        if isinstance(block, Gaussian):
            laid = block.to_xarray(hyper, None, label_dim, label_values)["params"]
        elif isinstance(block, MultivariateGaussian):  # the dims of its mu and cov
            shape = (k, block.n_columns, block.n_columns)
            laid = block.to_xarray(
                {"mu": hyper["mu"], "cov": np.zeros(shape)}, None, label_dim, label_values
            )["params"]
        elif isinstance(block, Bernoulli):  # P(true): a is the true entry, b the false
            conc = hyper["concentration"]
            laid = tuple(
                block.to_xarray({"prob": c}, None, label_dim, label_values)["params"]
                for c in (conc, conc[..., ::-1])
            )
        else:
            laid = block.to_xarray({"prob": hyper["concentration"]}, None, label_dim, label_values)[
                "params"
            ]
        layouts.append((laid, hyper))
        for da in _arrays(laid):
            coords.update({d: da[d].values for d in da.dims})

    with pm.Model(coords=coords) as pm_model:
        class_prob = pm.Dirichlet("class_prob", a=np.asarray(class_alpha, float), dims=label_dim)
        log_class = pt.log(class_prob)
        # (block, flat log table), (block, mu, var) of independent Gaussians and
        # (block, mu, Cholesky factor) of joint ones
        tables, gaussians, joints = [], [], []
        derived = {}  # free variable -> the params variable it is read from, and how
        for block, (laid, hyper) in zip(blocks, layouts, strict=True):
            if isinstance(block, Gaussian):
                gaussians.append((block, *_gaussian(block, laid, k)))
            elif isinstance(block, MultivariateGaussian):
                joint, mu, spread, read = _multivariate(block, hyper, laid, k)
                (joints if joint else gaussians).append((block, mu, spread))
                derived.update(read)
            else:
                tables.append((block, _discrete(block, laid, k)))
        terms = (log_class, tables, gaussians, joints, blocks)
        total = _known_term(*terms, known_stats, known_counts)
        if holed:
            total = total + _holed_term(gaussians + joints, holed)
        if rows is not None and rows[1].any():
            total = total + _free_term(*terms, rows)
        pm.Potential(LIKELIHOOD, total)
    _CACHE[pm_model] = {"derived": derived}
    return pm_model


def _arrays(laid) -> list[xr.DataArray]:
    """The arrays of a block's laid-out hyperparameters (a Bernoulli's: its a's)."""
    return list((laid[0] if isinstance(laid, tuple) else laid).values())


def _gaussian(block, laid, k):
    """``<name>_var``, ``<name>_mu`` and ``<name>_sigma``; the mean and variance (K, d)."""
    name = block.name
    hyper = {key: laid[f"{name}_{key}"] for key in ("mu", "kappa", "alpha", "beta")}
    dims = hyper["mu"].dims
    var = pm.InverseGamma(
        f"{name}_var", alpha=hyper["alpha"].values, beta=hyper["beta"].values, dims=dims
    )
    mu = pm.Normal(
        f"{name}_mu", mu=hyper["mu"].values, sigma=pt.sqrt(var / hyper["kappa"].values), dims=dims
    )
    pm.Deterministic(f"{name}_sigma", pt.sqrt(var), dims=dims)
    return mu.reshape((k, -1)), var.reshape((k, -1))


def _multivariate(block, hyper, laid, k):
    """A MultivariateGaussian block's variables under its Normal-Inverse-Wishart prior
    (the hyperparameters ``hyper`` of :meth:`~bayesnb.families.MultivariateGaussian.
    posterior_hyper` at zero statistics):

    * ``"full"``: ``<name>_cov`` ~ InverseWishart(nu, Psi) per class;
    * ``"tied"``: ``<name>_tied_cov`` ~ InverseWishart(nu, Psi), one matrix, and
      ``<name>_cov`` its copy per class (a deterministic);
    * ``"diag"``, ``"spherical"``, ``"tied-spherical"``: ``<name>_var`` ~
      InverseGamma(alpha, beta), per class and column, per class or one, and
      ``<name>_cov`` the diagonal matrix it makes (a deterministic);

    then ``<name>_mu`` ~ MvNormal(mu0, cov / kappa) (a Normal per coordinate when
    diagonal). Returns whether the covariance is joint, the means (K, d), the
    Cholesky factors (K, d, d) or (d, d) (joint) or the variances (K, d)
    (diagonal), and ``{free variable: (params variable, reader)}`` for a free
    variable that ``fit.params`` holds only through ``<name>_cov``."""
    name, d, kind = block.name, block.n_columns, block.covariance
    matrix = laid[f"{name}_cov"].dims
    vector = matrix[:2]
    mu0, kappa = hyper["mu"], hyper["kappa"]
    cov_name = f"{name}_cov"
    if "psi" in hyper:
        tied = kind == "tied"
        free = f"{name}_tied_cov" if tied else cov_name
        cov = _inverse_wishart(free, hyper["nu"], hyper["psi"], matrix[1:] if tied else matrix)
        chol = pt.linalg.cholesky(cov)
        scale = chol / np.sqrt(kappa)[:, None, None]
        mu = pm.MvNormal(f"{name}_mu", mu=mu0, chol=scale, dims=vector)
        if not tied:
            return True, mu, chol, {}
        pm.Deterministic(cov_name, pt.broadcast_to(cov, (k, d, d)), dims=matrix)
        return True, mu, chol, {free: (cov_name, lambda c: _shared(c, cov_name, kind)[0])}
    alpha, beta = hyper["alpha"], hyper["beta"]
    var_dims = vector[: np.ndim(alpha)]
    var = pm.InverseGamma(f"{name}_var", alpha=alpha, beta=beta, dims=var_dims)
    variances = pt.broadcast_to(
        var.reshape((k, d)[: np.ndim(alpha)] + (1,) * (2 - np.ndim(alpha))), (k, d)
    )
    mu = pm.Normal(f"{name}_mu", mu=mu0, sigma=pt.sqrt(variances / kappa[:, None]), dims=vector)
    pm.Deterministic(cov_name, variances[:, :, None] * np.eye(d), dims=matrix)
    reader = {
        "diag": lambda c: _diagonal(c, cov_name, kind),
        "spherical": lambda c: _spherical(c, cov_name, kind)[:, 0],
        "tied-spherical": lambda c: _shared(_spherical(c, cov_name, kind), cov_name, kind)[0, 0],
    }[kind]
    return False, mu, variances, {f"{name}_var": (cov_name, reader)}


#: Entries that a covariance type makes equal (or zero) may differ by this much,
#: relative to the largest variance: rounding, not structure.
_ROUNDING = 1e-10


def _diagonal(cov: np.ndarray, name: str, kind: str) -> np.ndarray:
    """The variances (K, d) of diagonal covariances (K, d, d); an off-diagonal entry
    beyond rounding raises."""
    scale = np.abs(np.diagonal(cov, axis1=-2, axis2=-1)).max()
    off = np.abs(cov * (1.0 - np.eye(cov.shape[-1]))).max()
    if off > _ROUNDING * scale:
        raise _not_of_kind(name, kind, f"an off-diagonal entry is {off:.6g}, not 0")
    return np.diagonal(cov, axis1=-2, axis2=-1).copy()


def _spherical(cov: np.ndarray, name: str, kind: str) -> np.ndarray:
    """The variances (K, d) of spherical covariances, one per class; raise unless the
    matrices are diagonal with equal variances."""
    var = _diagonal(cov, name, kind)
    spread = float(np.ptp(var, axis=1).max())
    if spread > _ROUNDING * np.abs(var).max():
        raise _not_of_kind(name, kind, f"a class's variances differ by {spread:.6g}")
    return var


def _shared(values: np.ndarray, name: str, kind: str) -> np.ndarray:
    """``values`` (K, ...), checked equal across the classes (a tied covariance)."""
    spread = float(np.abs(values - values[:1]).max())
    if spread > _ROUNDING * np.abs(values).max():
        raise _not_of_kind(name, kind, f"its classes differ by up to {spread:.6g}")
    return values


def _not_of_kind(name: str, kind: str, what: str) -> InputError:
    return InputError(
        f"params[{name!r}] is not a {kind!r} covariance: {what}. The block declares "
        f"covariance={kind!r}, and the PyMC model's parameters hold only such "
        "covariances; give parameters of that structure (those of a fit of the same "
        "declaration)."
    )


def _inverse_wishart(name, nu, psi, dims):
    r"""``name`` ~ InverseWishart(nu, psi): batched over ``nu`` (...) and ``psi``
    (..., d, d), its value the covariance matrix itself, sampled through its
    log-Cholesky factor (PyMC's ``CholeskyCovTransform``: the packed lower triangle
    of the factor, its diagonal as logarithms). The log density is
    :math:`\frac\nu2\log|\Psi| - \frac{\nu d}2\log 2 - \log\Gamma_d(\nu/2) -
    \frac{\nu + d + 1}2\log|\Sigma| - \frac12\mathrm{tr}(\Psi\Sigma^{-1})`; its
    start the mode :math:`\Psi/(\nu + d + 1)`, and its draws Bartlett's
    (symbolic, so that PyMC's compiled samplers of the prior run them)."""
    from pymc.distributions.shape_utils import implicit_size_from_params, rv_size_is_none
    from pymc.distributions.transforms import CholeskyCovTransform

    d = np.shape(psi)[-1]

    def logp(value, nu, psi):
        chol = pt.linalg.cholesky(value)
        log_det = 2.0 * pt.sum(pt.log(pt.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
        psi_chol = pt.linalg.cholesky(psi)
        log_det_psi = 2.0 * pt.sum(pt.log(pt.diagonal(psi_chol, axis1=-2, axis2=-1)), axis=-1)
        trace = pt.sum(pt.linalg.solve_triangular(chol, psi_chol, lower=True) ** 2, axis=(-2, -1))
        log_gamma_d = d * (d - 1) / 4.0 * np.log(np.pi) + pt.sum(
            pt.gammaln(nu[..., None] / 2.0 + (1.0 - np.arange(1, d + 1)) / 2.0), axis=-1
        )
        return (
            0.5 * nu * (log_det_psi - d * np.log(2.0))
            - log_gamma_d
            - 0.5 * (nu + d + 1.0) * log_det
            - 0.5 * trace
        )

    def dist(nu, psi, size):  # Bartlett: Sigma^-1 = C^-T A A^T C^-1, Psi = C C^T
        if rv_size_is_none(size):
            size = implicit_size_from_params(nu, psi, ndims_params=[0, 2])
        shape = tuple(size)
        chi = pt.sqrt(pm.ChiSquared.dist(nu=nu[..., None] - np.arange(d), size=(*shape, d)))
        a = pt.zeros((*shape, d, d))[..., np.arange(d), np.arange(d)].set(chi)
        below = np.tril_indices(d, -1)
        a = a[..., below[0], below[1]].set(pm.Normal.dist(size=(*shape, len(below[0]))))
        factor = pt.linalg.cholesky(psi) @ pt.linalg.solve_triangular(a, np.eye(d), lower=True).mT
        return factor @ factor.mT

    def support_point(rv, size, nu, psi):
        mode = psi / (nu + d + 1.0)[..., None, None]
        if rv_size_is_none(size):
            return mode
        return pt.broadcast_to(mode, pt.concatenate([size, [d, d]]))

    return pm.CustomDist(
        name,
        np.asarray(nu, dtype=float),
        np.asarray(psi, dtype=float),
        logp=logp,
        dist=dist,
        support_point=support_point,
        signature="(),(d,d)->(d,d)",
        default_transform=CholeskyCovTransform(d),
        dims=dims,
    )


def _discrete(block, laid, k):
    """The block's variables; its log density table (K, flat size): the flat
    log-probabilities (``log_prob.reshape(K, -1)``) plus the family's offset."""
    if isinstance(block, Bernoulli):
        a, b = (part[block.name] for part in laid)
        p = pm.Beta(block.name, alpha=a.values, beta=b.values, dims=a.dims).reshape((k, -1))
        flat = pt.stack([pt.log1p(-p), pt.log(p)], axis=-1).reshape((k, -1))
    else:  # one Dirichlet per variable, laid side by side as the flat layout lays them
        parts = [pt.log(pm.Dirichlet(var, a=da.values, dims=da.dims)) for var, da in laid.items()]
        flat = parts[0] if len(parts) == 1 else pt.concatenate(parts, axis=1)
    offset = block.log_offset()
    return flat + offset if np.any(offset) else flat


def _known_term(log_class, tables, gaussians, joints, blocks, known_stats, known_counts):
    """The log-likelihood of the rows whose class is known, from their statistics."""
    stats = dict(zip(map(id, blocks), known_stats, strict=True))
    nonzero = known_counts > 0
    total = pt.sum(known_counts[nonzero] * log_class[np.flatnonzero(nonzero)])
    for block, table in tables:
        counts = np.asarray(stats[id(block)]["counts"], dtype=float)
        counts = counts.reshape(counts.shape[0], -1)
        where = np.nonzero(counts)
        if where[0].size:
            total = total + pt.sum(counts[where] * table[where])
    for block, mu, var in gaussians:
        n, mean, ss = _moments(block, stats[id(block)])
        where = np.nonzero(n > 0)
        if where[0].size:
            n, mean, ss = n[where], mean[where], ss[where]
            v = var[where]
            total = total + pt.sum(
                -0.5 * n * (LOG_2PI + pt.log(v)) - (ss + n * (mean - mu[where]) ** 2) / (2.0 * v)
            )
    for block, mu, chol in joints:  # -1/2 [n (d log 2 pi + log|S|) + tr(S^-1 (Q + n dd'))]
        st = stats[id(block)]
        where = np.flatnonzero(np.asarray(st["n"]) > 0)
        if where.size:
            n, mean, scatter = (
                np.asarray(st[key], dtype=float)[where] for key in ("n", "mean", "scatter")
            )
            factor = chol[where] if chol.ndim == 3 else chol
            d = mean.shape[1]
            inverse = pt.linalg.solve_triangular(factor, np.eye(d), lower=True)  # L^-1
            log_det = 2.0 * pt.sum(pt.log(pt.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
            z = (inverse @ (mean - mu[where])[:, :, None])[:, :, 0]
            trace = pt.sum((inverse @ scatter) * inverse, axis=(-2, -1))
            total = total - 0.5 * pt.sum(
                n * (d * LOG_2PI + log_det + pt.sum(z**2, axis=-1)) + trace
            )
    return total


def _moments(block, stats: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The weighted count, mean and sum of squared deviations (K, d) of an independent
    Gaussian's statistics (a Gaussian's, or a diagonal MultivariateGaussian's)."""
    if isinstance(block, MultivariateGaussian):
        mean = np.asarray(stats["mean"], dtype=float)
        n = np.broadcast_to(np.asarray(stats["n"], dtype=float)[:, None], mean.shape)
        return n, mean, np.asarray(stats["scatter"], dtype=float)
    return tuple(np.asarray(stats[key], dtype=float) for key in ("n", "mean", "ss"))


def _free_term(log_class, tables, gaussians, joints, blocks, rows):
    """``sum_i w_i logsumexp_k [log pi_k + sum_j log p(x_ij | theta_kj)]`` over the rows
    whose class is unknown (a missing value contributes nothing)."""
    data, mask, weights = rows
    data = dict(zip(map(id, blocks), data, strict=True))
    jll = log_class[:, None]  # (K, rows)
    if tables:  # every discrete block's design read from one padded table
        k = log_class.shape[0]
        indices, values, parts, start = [], [], [], 0
        for block, table in tables:
            index, value = block.design(data[id(block)])
            index, value = index[mask], value[mask]
            pad = index == block.flat_size()
            indices.append(np.where(pad, -1, index + start))
            values.append(value)
            parts.append(table)
            start += block.flat_size()
        index = np.concatenate(indices, axis=1)
        value = np.concatenate(values, axis=1)
        index[index < 0] = start  # the padding column
        padded = pt.concatenate([*parts, pt.zeros((k, 1))], axis=1)
        read = padded[:, index]  # (K, rows, entries)
        if not np.all((value == 1.0) | (index == start)):
            read = read * value
        jll = jll + read.sum(axis=-1)
    for block, mu, var in gaussians:
        jll = jll + _independent_scores(mu, var, block.observed_codes(data[id(block)])[mask])
    for block, mu, chol in joints:
        jll = jll + _observed_scores(mu, chol, block.observed_codes(data[id(block)])[mask])
    row = pt.logsumexp(jll, axis=0)
    return pt.sum(row * weights) if np.any(weights != 1.0) else pt.sum(row)


def _independent_scores(mu, var, x):
    """(K, rows): every row's log density under every class's independent Gaussians
    (means ``mu`` and variances ``var``, (K, d)), of its observed values ``x`` (NaN
    where missing) alone."""
    seen = ~np.isnan(x)
    dev = np.where(seen, x, 0.0)[None, :, :] - mu[:, None, :]
    term = -0.5 * (LOG_2PI + pt.log(var))[:, None, :] - dev**2 / (2.0 * var[:, None, :])
    if not seen.all():
        term = term * seen
    return term.sum(axis=-1)


def _observed_scores(mu, chol, x):
    """(K, rows): every row's log density under every class's joint Gaussian (means
    ``mu`` (K, d), Cholesky factors ``chol`` (K, d, d) or one (d, d)), of its observed
    values alone, :math:`-\\tfrac12(|o|\\log 2\\pi + \\log|\\Sigma_{oo}| +
    \\|L_o^{-1}(x_o - \\mu_o)\\|^2)`: the rows that miss the same columns ``x`` (NaN)
    share the factor :math:`L_o` of their block :math:`\\Sigma_{oo} = L[o]L[o]^\\top`
    (the full factor when nothing is missing), and a row missing every value scores
    0."""
    missing = np.isnan(x)
    groups = _missing_patterns(missing) if missing.any() else [(np.arange(x.shape[1]), (), None)]
    parts, order = [], []
    for seen, _, rows in groups:
        xo = x if rows is None else x[np.ix_(rows, seen)]
        order.append(np.arange(len(x)) if rows is None else rows)
        if not seen.size:
            parts.append(pt.zeros((mu.shape[0], len(rows))))
            continue
        factor = chol
        if seen.size < x.shape[1]:
            part = chol[..., seen, :]
            factor = pt.linalg.cholesky(part @ part.mT)
        z = pt.linalg.solve_triangular(
            factor, (xo[None, :, :] - mu[:, None, seen]).mT, lower=True
        )  # (K, |o|, rows)
        log_det = 2.0 * pt.sum(pt.log(pt.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
        parts.append(-0.5 * (seen.size * LOG_2PI + log_det[..., None] + pt.sum(z**2, axis=1)))
    if len(parts) == 1:
        return parts[0]
    return pt.concatenate(parts, axis=1)[:, np.argsort(np.concatenate(order))]


def _holed_term(entries, holed):
    """The log-likelihood of the known rows of MultivariateGaussian blocks that miss
    values (``holed``, see :func:`_build`), each under its own class: the Gaussian of
    its observed values (a diagonal block: every observed column's)."""
    total = 0.0
    for block, mu, spread in entries:
        if id(block) not in holed:
            continue
        x, codes, weights = holed[id(block)]
        if not len(x):
            continue
        if block.covariance in DIAGONAL_COVARIANCES:  # spread: the variances (K, d)
            scores = _independent_scores(mu, spread, x)
        else:
            scores = _observed_scores(mu, spread, x)
        total = total + pt.sum(weights * scores[codes, np.arange(len(x))])
    return total


# -- points ---------------------------------------------------------------------------------
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _cached(pm_model, key, make):
    entry = _CACHE.setdefault(pm_model, {})
    if key not in entry:
        entry[key] = make()
    return entry[key]


def _forward(pm_model):
    """One compiled function from the free variables' values to the value variables'
    (each through its transform: the point in the sampler's space)."""
    inputs, outputs = [], []
    for rv in pm_model.free_RVs:
        value = rv.type()
        inputs.append(value)
        transform = pm_model.rvs_to_transforms.get(rv)
        outputs.append(value if transform is None else transform.forward(value, *rv.owner.inputs))
    return pytensor.function(inputs, outputs, mode="FAST_COMPILE", on_unused_input="ignore")


def free_values(pm_model: pm.Model, params) -> dict[str, np.ndarray]:
    """The value of every free variable of ``pm_model`` (its constrained space, keyed
    by name) at the parameters ``params`` (the layout of ``fit.params``): the
    variable of the same name, or, for a free variable ``fit.params`` holds only
    through another (a tied covariance, the variances of a diagonal one), read from
    that one, its structure checked.

    Examples
    --------
    Old Faithful as two components sharing one covariance: the model samples that
    matrix once, as ``X_tied_cov``, which ``fit.params`` holds as every
    component's ``X_cov``.

    >>> import bayesnb as bnb
    >>> from bayesnb.pymc_model import free_values
    >>> faithful = bnb.datasets.old_faithful()
    >>> model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="tied"))
    >>> fit = model.cluster(faithful, 2, random_state=0)
    >>> values = free_values(model.to_pymc(faithful, n_components=2), fit.params)
    >>> sorted(values), values["X_tied_cov"].shape
    (['X_mu', 'X_tied_cov', 'class_prob'], (2, 2))
    >>> bool((values["X_tied_cov"] == fit.params["X_cov"][0].values).all())
    True
    """
    if not isinstance(params, xr.Dataset | Mapping):
        raise InputTypeError(
            f"params must be an xarray.Dataset in the layout of fit.params; got "
            f"{type(params).__name__}."
        )
    derived = _CACHE.get(pm_model, {}).get("derived", {})
    out = {}
    for rv in pm_model.free_RVs:
        if rv.name not in params and rv.name in derived:
            source, read = derived[rv.name]
            out[rv.name] = np.asarray(read(_param_value(pm_model, source, params)))
        else:
            out[rv.name] = _param_value(pm_model, rv.name, params)
    return out


def _param_value(pm_model, name: str, params) -> np.ndarray:
    """The value of the model's variable ``name`` in ``params``, in the model's dim
    order, its coords checked against the model's."""
    if name not in params:
        raise InputError(
            f"params lacks the variable {name!r} of the PyMC model (it has "
            f"{sorted(map(str, params))[:10]!r}). Give parameters in the layout of fit.params "
            "of the same declaration."
        )
    da = params[name]
    if not isinstance(da, xr.DataArray):
        raise InputTypeError(
            f"params[{name!r}] must be an xarray.DataArray with the dims of fit.params; got "
            f"{type(da).__name__}."
        )
    dims = tuple(pm_model.named_vars_to_dims.get(name, ()))
    if set(da.dims) != set(dims):
        raise InputError(
            f"params[{name!r}] has dims {da.dims}; the PyMC model's variable has {dims}. Give "
            "parameters in the layout of fit.params of the same declaration."
        )
    da = da.transpose(*dims)
    for dim in dims:
        want = list(pm_model.coords[dim])
        if dim in da.coords and da[dim].values.tolist() != [_plain(v) for v in want]:
            raise InputError(
                f"params[{name!r}] has the {dim!r} coords {da[dim].values.tolist()[:10]!r}; the "
                f"PyMC model has {[_plain(v) for v in want][:10]!r}. Give the parameters in the "
                "model's order (e.g. params.sel(...))."
            )
        if da.sizes[dim] != len(want):
            raise InputError(
                f"params[{name!r}] has {da.sizes[dim]} entries on {dim!r}; the PyMC model has "
                f"{len(want)}."
            )
    value = np.asarray(da.values, dtype=float)
    if not np.all(np.isfinite(value)):
        raise InputError(
            f"params[{name!r}] holds a value that is not finite; a point of the model needs "
            "finite parameters."
        )
    return value


def model_point(pm_model: pm.Model, params) -> dict:
    """The point of ``pm_model``'s value variables (the sampler's transformed space,
    keyed by their names, e.g. ``"class_prob_simplex__"``) at the parameters
    ``params``, an ``xarray.Dataset`` in the layout of ``fit.params`` (extra
    variables, such as ``<name>_sigma``, are ignored).

    Examples
    --------
    The maximum-likelihood P(win) of one win in three games is 1/3, whose
    log-odds, :math:`\\log(1/2)`, is the point of ``win_logodds__``:

    >>> import bayesnb as bnb
    >>> from bayesnb.pymc_model import model_point, to_pymc
    >>> games = bnb.datasets.soccer_games()
    >>> fit = bnb.NaiveBayes().cluster(games, 1, estimate="ml")
    >>> point = model_point(to_pymc(bnb.NaiveBayes(), games, n_components=1), fit.params)
    >>> point["win_logodds__"].round(4)
    array([-0.6931])
    """
    values = free_values(pm_model, params)
    forward = _cached(pm_model, "forward", lambda: _forward(pm_model))
    outputs = forward(*(values[rv.name] for rv in pm_model.free_RVs))
    point = {vv.name: np.asarray(out) for vv, out in zip(pm_model.value_vars, outputs, strict=True)}
    for name, value in point.items():
        if not np.isfinite(value).all():
            raise InputError(
                f"params put {name.removesuffix('__')!r} on the boundary of its space (a "
                "probability of exactly 0 or 1, or a variance of 0), which the sampler's "
                "unconstrained space cannot hold, so its log density there is undefined. "
                "Use parameters inside the space, e.g. a smoothed estimate "
                "(estimate='mean' or 'map' under a Dirichlet prior above 1)."
            )
    return point


def log_density(pm_model: pm.Model, params) -> float:
    """``pm_model``'s log density at the parameters ``params`` (the layout of
    ``fit.params``), without the transforms' Jacobians: the log prior density of the
    parameters plus the log-likelihood.

    Examples
    --------
    One win in three games with P(win) = 1/3 under the flat Beta(1, 1) prior
    (density 1): the log density is the log-likelihood
    :math:`\\log(1/3) + 2\\log(2/3)`.

    >>> import math
    >>> import bayesnb as bnb
    >>> from bayesnb.pymc_model import log_density, to_pymc
    >>> games = bnb.datasets.soccer_games()
    >>> fit = bnb.NaiveBayes().cluster(games, 1, estimate="ml")
    >>> pm_model = to_pymc(bnb.NaiveBayes(), games, n_components=1)
    >>> round(log_density(pm_model, fit.params), 6)
    -1.909543
    >>> round(math.log(1 / 3) + 2 * math.log(2 / 3), 6)
    -1.909543
    """
    logp = _cached(pm_model, "logp", lambda: pm_model.compile_logp(jacobian=False))
    return float(logp(model_point(pm_model, params)))
