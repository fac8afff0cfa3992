"""Clustering a MultivariateGaussian block with missing values: EM over the missing
values as well as the memberships. The oracles are the conditional-Gaussian formulas
written out (with an explicit inverse), scipy's densities and optimizer on the
observed values' likelihood, and the closed forms of a diagonal Gaussian."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import bayesnb as bnb
from bayesnb.errors import InputError

COVARIANCES = ("full", "diag", "spherical", "tied", "tied-spherical")


def _holed(X: pd.DataFrame, share: float, seed: int) -> pd.DataFrame:
    """``X`` with about ``share`` of its values missing at random, and every row
    keeping at least one value."""
    rng = np.random.default_rng(seed)
    mask = rng.random(X.shape) < share
    mask[mask.all(axis=1), 0] = False
    return X.mask(mask)


def _three(n=60, seed=3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cov = np.array([[1.0, 0.6, -0.3], [0.6, 2.0, 0.4], [-0.3, 0.4, 0.5]])
    values = rng.multivariate_normal([1.0, -2.0, 4.0], cov, size=n)
    return pd.DataFrame(values, columns=["p", "q", "r"])


def _bound(X: pd.DataFrame, covariance="full", prior=None):
    family = bnb.MultivariateGaussian(prior, covariance=covariance)
    return family.bind("X", list(X.columns), X)


#: A declared scale for the examples of a few rows, whose columns are observed in fewer
#: than d + 1 rows (under the default prior a full covariance refuses them).
DECLARED = bnb.NormalInverseWishart(psi=np.eye(2))


# -- the E-step's expected statistics -------------------------------------------------


def test_expected_statistics_of_two_columns_by_hand():
    """Two columns; class 0's Gaussian has means (1, 2), variances 4 and 9, covariance
    3. Row (3, NaN): E[q | p = 3] = 2 + (3/4)(3 - 1) = 3.5, Var = 9 - 3^2/4 = 6.75. Row
    (NaN, -1): E[p | q = -1] = 1 + (3/9)(-1 - 2) = 0, Var = 4 - 3^2/9 = 3."""
    X = pd.DataFrame({"p": [1.0, 3.0, np.nan, 5.0], "q": [2.0, np.nan, -1.0, 4.0]})
    block = _bound(X)
    at = {"mu": np.array([[1.0, 2.0]]), "cov": np.array([[[4.0, 3.0], [3.0, 9.0]]])}
    resp = np.array([[1.0], [0.5], [2.0], [1.0]])
    st = block.count(block.encode(X), resp, at=at)
    # completed rows (1, 2), (3, 3.5), (0, -1), (5, 4) with weights 1, 0.5, 2, 1
    w = np.array([1.0, 0.5, 2.0, 1.0])
    p = np.array([1.0, 3.0, 0.0, 5.0])
    q = np.array([2.0, 3.5, -1.0, 4.0])
    n = 4.5
    mp, mq = (w @ p) / n, (w @ q) / n
    spp = w @ (p - mp) ** 2 + 2.0 * 3.0  # row 3's conditional variance of p, weight 2
    sqq = w @ (q - mq) ** 2 + 0.5 * 6.75  # row 2's of q, weight 0.5
    spq = w @ ((p - mp) * (q - mq))  # no row misses both: no conditional covariance
    assert st["n"][0] == pytest.approx(n, rel=1e-15)
    np.testing.assert_allclose(st["mean"][0], [mp, mq], rtol=1e-14)
    np.testing.assert_allclose(st["scatter"][0], [[spp, spq], [spq, sqq]], rtol=1e-13)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_expected_statistics_match_the_conditional_gaussian(covariance):
    """Three columns, two classes, rows missing one or two values (and one none):
    the completed rows and conditional covariances from the textbook formulas with
    an explicit inverse."""
    X = _holed(_three(12), 0.3, seed=1)
    block = _bound(X, covariance)
    rng = np.random.default_rng(2)
    mu = rng.normal(size=(2, 3))
    a = rng.normal(size=(2, 3, 3))
    cov = a @ np.swapaxes(a, 1, 2) + np.eye(3)
    resp = rng.dirichlet([1.0, 1.0], size=len(X))
    st = block.count(block.encode(X), resp, at={"mu": mu, "cov": cov})
    values = X.to_numpy()
    for k in range(2):
        filled, extra = values.copy(), np.zeros((3, 3))
        for i, row in enumerate(values):
            m = np.isnan(row)
            if not m.any():
                continue
            o = ~m
            coef = cov[k][np.ix_(m, o)] @ np.linalg.inv(cov[k][np.ix_(o, o)])
            filled[i, m] = mu[k][m] + coef @ (row[o] - mu[k][o])
            cond = cov[k][np.ix_(m, m)] - coef @ cov[k][np.ix_(o, m)]
            extra[np.ix_(m, m)] += resp[i, k] * cond
        n = resp[:, k].sum()
        mean = resp[:, k] @ filled / n
        dev = filled - mean
        scatter = (dev * resp[:, k, None]).T @ dev + extra
        assert st["n"][k] == pytest.approx(n, rel=1e-14)
        np.testing.assert_allclose(st["mean"][k], mean, rtol=1e-12, atol=1e-12)
        if covariance in ("diag", "spherical", "tied-spherical"):
            np.testing.assert_allclose(st["scatter"][k], np.diag(scatter), rtol=1e-11)
        else:
            np.testing.assert_allclose(st["scatter"][k], scatter, rtol=1e-11, atol=1e-11)


def test_statistics_without_current_parameters_refuse_a_missing_value():
    X = _holed(_three(12), 0.3, seed=1)
    block = _bound(X)
    with pytest.raises(InputError, match="missing value in column"):
        block.count(block.encode(X), np.ones((len(X), 1)))


# -- the training rows' Gaussian: the default prior's centre and scale ----------------------


def _observed_log_likelihood(values, mu, cov) -> float:
    """Sum over rows of scipy's Gaussian log density of each row's observed values."""
    total = 0.0
    for row in values:
        o = ~np.isnan(row)
        if o.any():
            total += stats.multivariate_normal(mu[o], cov[np.ix_(o, o)]).logpdf(row[o])
    return total


def _from_free(theta, d):
    """A mean and a covariance from the mean then the log-Cholesky factor (flat)."""
    mu = theta[:d]
    chol = np.zeros((d, d))
    rows, cols = np.tril_indices(d)
    chol[rows, cols] = theta[d:]
    chol[np.diag_indices(d)] = np.exp(np.diagonal(chol))
    return mu, chol @ chol.T


def _to_free(mu, cov):
    chol = np.linalg.cholesky(cov)
    chol[np.diag_indices(len(mu))] = np.log(np.diagonal(chol))
    return np.concatenate([mu, chol[np.tril_indices(len(mu))]])


def test_the_training_rows_gaussian_is_the_maximum_likelihood_one():
    """With missing values, the block's data mean and covariance maximize the observed
    values' likelihood (scipy's BFGS on scipy's densities, from the complete-case
    start), not the column means of what is there."""
    X = _holed(_three(60), 0.25, seed=4)
    values = X.to_numpy()
    block = _bound(X)

    def loss(theta):
        return -_observed_log_likelihood(values, *_from_free(theta, 3))

    complete = values[~np.isnan(values).any(axis=1)]
    start = _to_free(complete.mean(axis=0), np.cov(complete.T, bias=True))
    best = optimize.minimize(loss, start, method="BFGS", options={"gtol": 1e-9})
    mu, cov = _from_free(best.x, 3)
    np.testing.assert_allclose(block.data_mean, mu, atol=1e-5)
    np.testing.assert_allclose(block.data_cov, cov, atol=1e-5)
    ours = _observed_log_likelihood(values, block.data_mean, block.data_cov)
    assert ours >= -best.fun - 1e-8
    assert np.abs(block.data_mean - np.nanmean(values, axis=0)).max() > 1e-3


def test_a_column_with_no_observed_value_is_named():
    X = _three(10)
    X["r"] = np.nan
    with pytest.raises(InputError, match=r"no observed value .* column 'r'"):
        bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(X, 2)


# -- EM over memberships and missing values ---------------------------------------------


@pytest.mark.parametrize("covariance", ["diag", "spherical"])
def test_one_diagonal_component_by_ml_is_every_columns_observed_moments(covariance):
    """A diagonal Gaussian's columns are independent, so its maximum-likelihood mean
    and variance per column are those of the column's observed values alone (and one
    shared variance is every observed value's squared deviation from its column's
    mean, averaged over all observed values)."""
    X = _holed(_three(80), 0.3, seed=5)
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).cluster(
        X, 1, estimate="ml", tol=1e-13, max_iter=5000
    )
    values = X.to_numpy()
    mean = np.nanmean(values, axis=0)
    np.testing.assert_allclose(fit.params["X_mu"].values[0], mean, rtol=1e-7)
    var = np.diagonal(fit.params["X_cov"].values[0])
    if covariance == "diag":
        np.testing.assert_allclose(var, np.nanvar(values, axis=0), rtol=1e-7)
    else:  # one variance: the squared deviations over all observed values, whose
        # count is what divides (EM's fixed point s2 = (S + s2 * n_missing) / (n d))
        seen = ~np.isnan(values)
        expected = np.nansum((values - mean) ** 2) / seen.sum()
        np.testing.assert_allclose(var, expected, rtol=1e-7)


def _log_niw(mu, cov, mu0, kappa, nu, psi) -> float:
    return float(
        stats.multivariate_normal(mu0, cov / kappa).logpdf(mu)
        + stats.invwishart(df=nu, scale=psi).logpdf(cov)
    )


def test_clustering_reaches_a_maximum_of_the_observed_posterior():
    """Old Faithful with a fifth of its values missing, K = 2, an explicit prior: at
    EM's stopping point no direction of the means and log-Cholesky factors raises the
    objective written with scipy (the observed values' mixture likelihood plus the
    Normal-Inverse-Wishart log densities), by central differences."""
    X = _holed(bnb.datasets.old_faithful(), 0.2, seed=6)
    prior = bnb.NormalInverseWishart(
        mu=[3.5, 70.0], kappa=0.05, nu=5.0, psi=[[0.6, 2.0], [2.0, 60.0]]
    )
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(prior)).cluster(
        X, 2, tol=1e-12, max_iter=5000, random_state=0
    )
    assert fit.converged
    values = X.to_numpy()
    weights = np.exp(fit.class_log_prob)
    mu0, cov0 = fit.params["X_mu"].values, fit.params["X_cov"].values

    def objective(theta):
        comps = [_from_free(theta[5 * k : 5 * k + 5], 2) for k in range(2)]
        total = 0.0
        for row in values:
            o = ~np.isnan(row)
            dens = [
                w * stats.multivariate_normal(m[o], c[np.ix_(o, o)]).pdf(row[o])
                for w, (m, c) in zip(weights, comps, strict=True)
            ]
            total += np.log(sum(dens))
        psi = np.array([[0.6, 2.0], [2.0, 60.0]])
        return total + sum(_log_niw(m, c, np.array([3.5, 70.0]), 0.05, 5.0, psi) for m, c in comps)

    theta = np.concatenate([_to_free(mu0[k], cov0[k]) for k in range(2)])
    h = 1e-5
    grad = np.array(
        [
            (objective(theta + h * e) - objective(theta - h * e)) / (2 * h)
            for e in np.eye(len(theta))
        ]
    )
    assert np.abs(grad).max() < 1e-3, grad
    # and the objective EM reports is this one plus the weights' Dirichlet term
    alpha = np.full(2, 1.0 + 1.0)  # the default class prior, Dirichlet(1), its mean: +1
    weights_term = stats.dirichlet(alpha).logpdf(weights)
    assert fit.history[-1] == pytest.approx(objective(theta) + weights_term, rel=1e-10)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_em_with_missing_values_climbs_and_scores_every_row(covariance):
    X = _holed(bnb.datasets.old_faithful(), 0.15, seed=7)
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).cluster(
        X, 2, random_state=0
    )
    assert fit.converged
    history = np.asarray(fit.history)
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    proba = fit.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # the rows keep the memberships the complete data gives them, up to the components'
    # order, where both values are seen
    complete = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).cluster(
        bnb.datasets.old_faithful(), 2, random_state=0
    )
    seen = X.notna().all(axis=1).to_numpy()
    ours = proba[seen].argmax(axis=1)
    theirs = complete.predict_proba(X[seen]).argmax(axis=1)
    assert max((ours == theirs).mean(), (ours != theirs).mean()) > 0.97


def test_semi_supervised_weighted_fit_with_missing_values_saves_and_loads(tmp_path):
    X = _holed(bnb.datasets.old_faithful(), 0.15, seed=8)
    y = np.where(X["eruptions"] > 3, "long", "short").astype(object)
    y[np.random.default_rng(0).random(len(y)) < 0.7] = None
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(
        X, ["long", "short"], y=y, sample_weight=w, random_state=0
    )
    assert fit.converged
    path = tmp_path / "fit.nc"
    fit.save(path)
    back = bnb.load(path)
    for key in ("X_mu", "X_cov"):
        np.testing.assert_array_equal(back.params[key].values, fit.params[key].values)
    np.testing.assert_array_equal(back.predict_proba(X), fit.predict_proba(X))


@pytest.mark.parametrize("estimate", ["ml", "map"])
def test_a_classifier_is_fitted_as_a_mixture_with_every_label_known(estimate):
    """The classifier refuses a missing value and names the remedy: clustering with
    every label known, whose EM fills the missing values in. For a diagonal block by
    ML that gives every class's observed means and variances column by column (the
    columns independent); by MAP, every column's Normal-Inverse-Gamma mode of its
    observed values, written out here."""
    X = _holed(bnb.datasets.old_faithful(), 0.2, seed=11)
    y = np.where(bnb.datasets.old_faithful()["eruptions"] > 3, "long", "short")
    mu0, kappa, nu, psi = np.array([3.5, 70.0]), 0.05, 5.0, np.diag([0.6, 60.0])
    prior = bnb.NormalInverseWishart(mu=mu0, kappa=kappa, nu=nu, psi=psi)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(prior, covariance="diag"))
    with pytest.raises(InputError, match=r"model.cluster\(X, classes, y=y\)"):
        model.fit(X, y, estimate=estimate)
    fit = model.cluster(X, ["long", "short"], y=y, estimate=estimate, tol=1e-13, max_iter=5000)
    alpha = (nu - 2 + 1.0) / 2.0  # every variance's inverse gamma, d = 2
    for k, label in enumerate(["long", "short"]):
        for j, column in enumerate(X.columns):
            v = X[column].to_numpy()[(y == label) & X[column].notna().to_numpy()]
            n, mean, ss = len(v), v.mean(), ((v - v.mean()) ** 2).sum()
            if estimate == "ml":
                mu, var = mean, ss / n
            else:  # the joint mode of (mu, var): mu_n and beta_n / (alpha_n + 3/2)
                kappa_n = kappa + n
                mu = (kappa * mu0[j] + n * mean) / kappa_n
                beta_n = (
                    psi[j, j] / 2.0 + ss / 2.0 + kappa * n * (mean - mu0[j]) ** 2 / (2 * kappa_n)
                )
                var = beta_n / (alpha + n / 2.0 + 1.5)
            assert fit.params["X_mu"].values[k, j] == pytest.approx(mu, rel=1e-9)
            assert fit.params["X_cov"].values[k, j, j] == pytest.approx(var, rel=1e-8)


def test_dask_refuses_missing_values_by_name():
    """Dask's merged pooled statistics have no exact form with a missing value."""
    dd = pytest.importorskip("dask.dataframe")
    X = _holed(bnb.datasets.old_faithful(), 0.15, seed=9)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.raises(InputError, match=r"missing value in column.* Dask refuse"):
        model.cluster(dd.from_pandas(X, npartitions=2), 2)


# -- the PyMC model --------------------------------------------------------------------------


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_mixtures_pymc_model_scores_the_observed_values(covariance):
    """The semi-supervised mixture's PyMC model on rows missing values (known and
    unknown rows, one row missing everything): its log density is scipy's prior plus,
    for every row, scipy's Gaussian of the row's observed values under its known
    component, or the log of the weighted sum over the components."""
    from scipy import special

    from bayesnb.pymc_model import log_density
    from tests.test_multivariate_posterior import _log_posterior_scipy
    from tests.test_multivariate_pymc import LABELS, _data, _model, _params, _point, _prior_hyper

    X, y = _data()
    X.iloc[[1, 4, 7], 0] = np.nan
    X.iloc[[2, 5, 9], 1] = np.nan
    X.iloc[11, :] = np.nan
    known = y.astype(object)
    known[::3] = None
    w, mu, cov = _point(covariance)
    pm_model = _model(covariance).to_pymc(X, y=known, n_components=LABELS)
    joint = np.log(w) + np.zeros((len(X), 2))
    for i, row in enumerate(X.to_numpy()):
        o = ~np.isnan(row)
        if o.any():
            for k in range(2):
                joint[i, k] += stats.multivariate_normal(mu[k][o], cov[k][np.ix_(o, o)]).logpdf(
                    row[o]
                )
    codes = np.array([LABELS.index(v) if v is not None else -1 for v in known])
    rows = np.where(
        codes >= 0, joint[np.arange(len(X)), np.maximum(codes, 0)], special.logsumexp(joint, 1)
    )
    expected = _log_posterior_scipy(covariance, _prior_hyper(covariance), mu, cov) + rows.sum()
    got = log_density(pm_model, _params(w, mu, cov, label_dim="component"))
    assert got == pytest.approx(expected, abs=1e-8)


# -- the Gibbs sampler: data augmentation ---------------------------------------------------


def test_drawn_statistics_complete_each_row_from_its_conditional_gaussian():
    """Row (3, NaN) of the two-column example, weight 1 in one class: over many draws
    the completed value of q has mean 3.5 and variance 6.75 (the conditional Gaussian
    by hand), so the drawn scatter of a class holding it alone is 0 and its mean is
    the draw."""
    X = pd.DataFrame({"p": [1.0, 3.0], "q": [2.0, np.nan]})
    block = _bound(X, prior=DECLARED)
    at = {"mu": np.array([[1.0, 2.0]] * 2), "cov": np.array([[[4.0, 3.0], [3.0, 9.0]]] * 2)}
    resp = np.array([[1.0, 0.0], [0.0, 1.0]])  # row 1 alone in class 1
    enc = block.encode(X)
    rng = np.random.default_rng(0)
    draws = np.array([block.count(enc, resp, at=at, rng=rng)["mean"][1, 1] for _ in range(20000)])
    assert abs(draws.mean() - 3.5) < 4.0 * np.sqrt(6.75 / len(draws))
    assert draws.var() == pytest.approx(6.75, rel=0.05)
    one = block.count(enc, resp, at=at, rng=rng)
    np.testing.assert_allclose(one["mean"][0], [1.0, 2.0])  # class 0: row 0, complete
    np.testing.assert_allclose(one["scatter"][1], 0.0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["gibbs", "nuts"])
def test_known_memberships_draw_the_exact_diagonal_posterior(sampler):
    """A diagonal covariance keeps the columns independent, so with every row's
    component known the posterior of each column's mean and variance is the
    Normal-Inverse-Gamma update of that column's observed values alone, written out
    here. The Gibbs sampler (drawing the missing values every sweep) and NUTS (on the
    PyMC model, which marginalizes them) must meet its means within 4 Monte-Carlo
    standard errors."""
    from tests.test_mcmc import mcse_ok

    X = _holed(bnb.datasets.old_faithful(), 0.25, seed=10)
    y = np.where(bnb.datasets.old_faithful()["eruptions"] > 3, "long", "short")
    mu0, kappa, nu = np.array([3.5, 70.0]), 0.05, 5.0
    psi = np.diag([0.6, 60.0])
    prior = bnb.NormalInverseWishart(mu=mu0, kappa=kappa, nu=nu, psi=psi)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(prior, covariance="diag"))
    options = {"draws": 1500, "tune": 50} if sampler == "gibbs" else {"draws": 1000, "tune": 500}
    fit = model.cluster(
        X,
        ["long", "short"],
        y=y,
        method="mcmc",
        sampler=sampler,
        chains=2,
        random_state=2,
        **options,
    )
    post = fit.trace["posterior"].ds
    alpha = (nu - 2 + 1.0) / 2.0  # d = 2 columns
    for label in ["long", "short"]:
        for j, column in enumerate(X.columns):
            v = X[column].to_numpy()[(y == label) & X[column].notna().to_numpy()]
            n, mean = len(v), v.mean()
            kappa_n = kappa + n
            mu_n = (kappa * mu0[j] + n * mean) / kappa_n
            alpha_n = alpha + n / 2.0
            beta_n = (
                psi[j, j] / 2.0
                + ((v - mean) ** 2).sum() / 2.0
                + kappa * n * (mean - mu0[j]) ** 2 / (2.0 * kappa_n)
            )
            mu_draws = post["X_mu"].sel(component=label).values[..., j]
            var_draws = post["X_cov"].sel(component=label).values[..., j, j]
            assert mcse_ok(mu_draws, mu_n), (label, column)
            assert mcse_ok(var_draws, beta_n / (alpha_n - 1.0)), (label, column)


@pytest.mark.parametrize("d", [3, 62, 63, 70])
def test_missing_patterns_partition_the_rows(d):
    """Rows grouped by the columns they miss, by integer keys up to 62 columns and by
    packed bytes beyond: every row in exactly one group, each group's rows missing
    exactly its columns, and one group per distinct pattern."""
    from bayesnb.families.multivariate import _missing_patterns

    rng = np.random.default_rng(d)
    base = rng.random((5, d)) < 0.3
    missing = base[rng.integers(0, 5, 200)]
    groups = _missing_patterns(missing)
    rows = np.concatenate([g[2] for g in groups])
    np.testing.assert_array_equal(np.sort(rows), np.arange(200))
    assert len(groups) == len(np.unique(missing, axis=0))
    for seen, gone, members in groups:
        np.testing.assert_array_equal(np.sort(np.concatenate([seen, gone])), np.arange(d))
        assert np.all(missing[np.ix_(members, gone)]) and not np.any(missing[np.ix_(members, seen)])
        assert np.all(np.diff(members) > 0)


def test_a_covariance_without_a_factor_is_numpys_error():
    """The compiled loops meet a block of the covariance that is not positive definite
    and raise as numpy.linalg.cholesky does, rather than filling or scoring with it."""
    X = pd.DataFrame({"p": [1.0, 3.0, np.nan], "q": [2.0, np.nan, -1.0]})
    block = _bound(X, prior=DECLARED)
    bad = {"mu": np.array([[1.0, 2.0]]), "cov": np.array([[[-1.0, 0.0], [0.0, 1.0]]])}
    with pytest.raises(np.linalg.LinAlgError):
        block.count(block.encode(X), np.ones((3, 1)), at=bad)
    with pytest.raises(np.linalg.LinAlgError):
        block.log_likelihood(block.encode(X), bad)


# -- offsets, scales and rows far out, with values missing -------------------------------


def _two_clusters_holed() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two clusters along x (means 0 and 6, sd 1), noise w, and a tenth of the values
    missing (every row keeping one)."""
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0.0, 1.0, 100), rng.normal(6.0, 1.0, 100)]
    w = rng.normal(size=200)
    mask = np.random.default_rng(1).random((200, 2)) < 0.1
    mask[mask.all(axis=1), 0] = False
    return x, w, mask


@pytest.mark.parametrize("offset, spread", [(1.7e9, 1e-3), (1e8, 1e-5)])
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_em_over_missing_values_of_offset_data_climbs(covariance, offset, spread):
    """Values near 1.7e9 varying by thousandths (near 1e8 by 1e-5, where the spacing
    of floats is 1.5e-3 of a cluster's sd), a tenth missing: EM over the missing
    values (the Python engine) climbs to the fit of the centred values, its
    log-likelihood the same to 1e-7 and its means moved by the offset. (The means of
    this engine's statistics are in the data's units, rounded at the offset's
    spacing, which bounds the agreement; the monotonicity check allows for that
    rounding, which once raised a false MonotonicityError under "tied" at 1e8.)"""
    x, w, mask = _two_clusters_holed()
    step = np.spacing(offset)
    t = np.round(x * spread / step) * step
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
    base = model.cluster(pd.DataFrame({"t": t, "w": w}).mask(mask), 2, random_state=0)
    moved = model.cluster(pd.DataFrame({"t": offset + t, "w": w}).mask(mask), 2, random_state=0)
    assert base.converged and moved.converged
    history = np.asarray(moved.history)
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert moved.log_likelihood == pytest.approx(base.log_likelihood, rel=1e-7)
    mu = np.sort(base.params["X_mu"].to_numpy()[:, 0])
    mu_moved = np.sort(moved.params["X_mu"].to_numpy()[:, 0]) - offset
    # 1e-3 sd, or two steps of the floats at the offset where those are coarser
    np.testing.assert_allclose(mu_moved, mu, rtol=0, atol=max(1e-3 * spread, 2 * step))


def test_a_spread_below_the_floats_is_named_with_values_missing():
    """The training rows' Gaussian (an EM over the observed values) of a column whose
    values differ but whose variance underflows: the error names the column and the
    rescaling instead of a silent fit."""
    x, w, mask = _two_clusters_holed()
    X = pd.DataFrame({"a": x * 1e-200, "b": w}).mask(mask)
    with pytest.raises(InputError, match=r"column 'a' that differ.*smallest normal.*multiply"):
        bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(X, 2, random_state=0)


def test_a_row_far_out_with_a_value_missing():
    """A row (1e200, missing): its Gaussian density over u alone underflows under every
    class, which the error names; the predictive Student-t of u alone scores it, by
    hand: log Gamma((nu + 1)/2) - log Gamma(nu/2) - log(nu pi s^2)/2 - (nu + 1)/2
    log(1 + z^2/nu) with log(1 + z^2/nu) = 2 log z - log nu + log(1 + nu/z^2)."""
    from scipy.special import gammaln

    X = pd.DataFrame({"u": [1.0, 2, 3, 4, 5, 7], "v": [1.0, 3, 2, 5, 4, 4]})
    y = list("aaabbb")
    far = pd.DataFrame({"u": [1e200], "v": [np.nan]})
    model = bnb.NaiveBayes({"mv": bnb.MultivariateGaussian(columns=["u", "v"])})
    with pytest.raises(bnb.ZeroLikelihoodError, match=r"too far out.*u=1e\+200, v=nan"):
        model.fit(X, y).predict_proba(far)
    fit = model.fit(X, y, estimate="predictive")
    scores = fit.joint_log_likelihood(far)[0] - fit.class_log_prob
    u = X["u"].to_numpy()
    kappa, nu0 = 0.01, 4.0  # the default prior: d + 2 degrees of freedom
    psi_uu = u.var() / 2.0  # the 1/N variance over K^(2/d) = 2
    for k, label in enumerate("ab"):
        rows = u[np.array(y) == label]
        n, mean = len(rows), rows.mean()
        kappa_n, nu_n = kappa + n, nu0 + n
        mu_n = (kappa * u.mean() + n * mean) / kappa_n
        psi_n = psi_uu + ((rows - mean) ** 2).sum() + kappa * n / kappa_n * (mean - u.mean()) ** 2
        df = nu_n - 2.0 + 1.0  # nu_n - d + 1, d = 2: u's marginal t keeps the block's
        s2 = psi_n * (kappa_n + 1.0) / (kappa_n * df)
        z = (1e200 - mu_n) / np.sqrt(s2)
        log_term = 2.0 * np.log(z) - np.log(df) + np.log1p(df / z / z)
        const = gammaln((df + 1) / 2) - gammaln(df / 2) - 0.5 * np.log(df * np.pi * s2)
        expected = const - (df + 1) / 2 * log_term
        assert scores[k] == pytest.approx(expected, rel=1e-12)
    proba = fit.predict_proba(far)
    assert np.all(np.isfinite(proba)) and proba.sum() == pytest.approx(1.0)


def _nearly_unseen(n_observed: int, seed: int) -> pd.DataFrame:
    """Two clusters in three columns, column c observed in its first rows only."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (100, 3)), rng.normal(3, 1, (100, 3))])
    frame = pd.DataFrame(X, columns=list("abc"))
    frame.loc[n_observed:, "c"] = np.nan
    return frame


@pytest.mark.parametrize("seed", range(4))
def test_a_column_seen_in_d_rows_or_fewer_is_refused_by_name_whatever_the_seed(seed):
    # c observed in 3 = d rows: regressed on a and b (3 coefficients) it fits them
    # exactly, so the rows' ML covariance is singular along it
    frame = _nearly_unseen(3, seed)
    with pytest.raises(bnb.InputError, match=r"observes column 'c' in 3 row\(s\) only.*d \+ 1 = 4"):
        bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(frame, 2, random_state=0)
    # with a column of its own, or a diagonal covariance, the same rows fit
    split = bnb.NaiveBayes(
        {"ab": bnb.MultivariateGaussian(columns=["a", "b"]), "c": bnb.Gaussian()}
    )
    assert np.isfinite(split.cluster(frame, 2, random_state=0).objective)
    diag = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="diag"))
    assert np.isfinite(diag.cluster(frame, 2, random_state=0).objective)


@pytest.mark.parametrize("n_observed", [2, 5])
def test_ml_em_with_a_component_collapsing_along_a_holed_column_sets_it_aside(n_observed):
    """Under estimate='ml' a component may shrink onto a plane along column c, seen in
    few rows; its densities lose their digits before its covariance is singular. EM
    sets such a restart aside as collapsed (or, when all collapse, says so and names
    estimate='map'), and never reports a decrease of the objective as a bug."""
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(bnb.NormalInverseWishart(psi=np.eye(3))))
    for seed in range(5):
        frame = _nearly_unseen(n_observed, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # restarts set aside: a ConvergenceWarning
            try:
                fit = model.cluster(frame, 2, random_state=0, estimate="ml")
            except bnb.InputError as err:
                assert "estimate='map'" in str(err)
            else:
                assert np.isfinite(fit.objective)


def test_nearly_flat_is_the_smallest_eigenvalue_of_a_components_correlation():
    from bayesnb.mixture import _nearly_flat, _State

    rho = 1.0 - 1e-9  # correlation eigenvalues 1 + rho and 1 - rho = 1e-9
    cov = np.array([[4.0, 2.0 * 3.0 * rho], [2.0 * 3.0 * rho, 9.0]])
    flat = _nearly_flat(_State([{"mu": np.zeros((1, 2)), "cov": cov[None]}], np.zeros(1)))
    assert "component 0" in flat and "1e-09" in flat
    fine = np.array([[4.0, 5.9], [5.9, 9.0]])  # correlation 0.983: eigenvalue 0.017
    assert _nearly_flat(_State([{"mu": np.zeros((1, 2)), "cov": fine[None]}], np.zeros(1))) is None
