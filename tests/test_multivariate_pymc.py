"""The PyMC model of a MultivariateGaussian block (bayesnb.pymc_model), every covariance
type: its log density at a point against scipy's densities term by term (the
Inverse-Wishart or inverse gammas, the Gaussian means given them, every row's
Gaussian), against the package's own numpy side under the default prior, its
variables' names and layout, its point in the sampler's space, and, slowly, its NUTS
draws against the exact posterior and the Gibbs sampler."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import special, stats

import bayesnb as bnb
from bayesnb.families.multivariate import COVARIANCES
from bayesnb.pymc_model import free_values, log_density, model_point
from tests.test_multivariate_posterior import (
    _log_posterior_scipy,
    assert_known_memberships_draw_the_exact_posterior,
)

pm = pytest.importorskip("pymc")

TOL = 1e-8
#: An explicit prior, so that the expected densities below owe nothing to the
#: package's resolution of it.
MU0, KAPPA, NU = np.array([3.5, 70.0]), 0.3, 5.0
PSI = np.array([[0.5, 4.0], [4.0, 150.0]])
LABELS = ["long", "short"]


def _data(n: int = 40):
    X = bnb.datasets.old_faithful().iloc[:n].reset_index(drop=True)
    y = np.where(X["eruptions"] > 3, "long", "short")
    return X, y


def _model(covariance: str, prior=True) -> bnb.NaiveBayes:
    niw = bnb.NormalInverseWishart(mu=MU0, kappa=KAPPA, nu=NU, psi=PSI) if prior else None
    return bnb.NaiveBayes(bnb.MultivariateGaussian(niw, covariance=covariance))


def _prior_hyper(covariance: str, k: int = 2) -> dict:
    """The prior's hyperparameters in the family's layout, by hand: an
    Inverse-Wishart(nu, Psi) per class or shared; under a diagonal constraint an
    inverse gamma per variance, alpha = (nu - d + 1) / 2 and beta = Psi_jj / 2, and a
    spherical variance's alpha = d (nu - d + 1) / 2 and beta = tr(Psi) / 2."""
    d = 2
    out = {"mu": np.tile(MU0, (k, 1)), "kappa": np.full(k, KAPPA)}
    alpha = (NU - d + 1.0) / 2.0
    return (
        out
        | {
            "full": {"nu": np.full(k, NU), "psi": np.tile(PSI, (k, 1, 1))},
            "tied": {"nu": NU, "psi": PSI},
            "diag": {"alpha": np.full((k, d), alpha), "beta": np.tile(np.diag(PSI) / 2.0, (k, 1))},
            "spherical": {"alpha": np.full(k, d * alpha), "beta": np.full(k, np.trace(PSI) / 2.0)},
            "tied-spherical": {"alpha": d * alpha, "beta": np.trace(PSI) / 2.0},
        }[covariance]
    )


def _point(covariance: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class weights, means (2, 2) and covariances (2, 2, 2) of the given structure."""
    w = np.array([0.6, 0.4])
    mu = np.array([[4.3, 80.0], [2.0, 54.0]])
    full = np.array([[[0.17, 0.9], [0.9, 36.0]], [[0.07, 0.6], [0.6, 34.0]]])
    cov = {
        "full": full,
        "tied": np.stack([full[0], full[0]]),
        "diag": full * np.eye(2),
        "spherical": np.stack([2.0 * np.eye(2), 5.0 * np.eye(2)]),
        "tied-spherical": np.stack([3.0 * np.eye(2)] * 2),
    }[covariance]
    return w, mu, cov


def _params(w, mu, cov, label_dim="class_label") -> xr.Dataset:
    features = ["eruptions", "waiting"]
    return xr.Dataset(
        {
            "class_prob": ((label_dim,), w),
            "X_mu": ((label_dim, "X_feature"), mu),
            "X_cov": ((label_dim, "X_feature", "X_feature_2"), cov),
        },
        coords={label_dim: LABELS, "X_feature": features, "X_feature_2": features},
    )


def _rows(X, mu, cov) -> np.ndarray:
    """(n, K): every row's scipy Gaussian log density under every class."""
    x = X.to_numpy()
    return np.column_stack(
        [stats.multivariate_normal.logpdf(x, mu[k], cov[k]) for k in range(len(mu))]
    )


# -- the log density against scipy ------------------------------------------------------------
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_classifiers_log_density_is_scipys(covariance):
    """Dirichlet(1, 1) (density 1) + the Normal-Inverse-Wishart prior + every row's
    Gaussian under its own class, all from scipy."""
    X, y = _data()
    w, mu, cov = _point(covariance)
    pm_model = _model(covariance).to_pymc(X, y)
    codes = (y == "short").astype(int)
    rows = _rows(X, mu, cov)[np.arange(len(y)), codes]
    expected = (
        _log_posterior_scipy(covariance, _prior_hyper(covariance), mu, cov)
        + float(np.sum(np.log(w[codes])))
        + float(rows.sum())
    )
    assert log_density(pm_model, _params(w, mu, cov)) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_semi_supervised_mixtures_log_density_is_scipys(covariance):
    """A known row adds log w_k + log N(x | mu_k, S_k); an unknown one the log of the
    weighted sum over the components."""
    X, y = _data()
    known = y.astype(object)
    known[::3] = None
    w, mu, cov = _point(covariance)
    pm_model = _model(covariance).to_pymc(X, y=known, n_components=LABELS)
    joint = _rows(X, mu, cov) + np.log(w)
    codes = np.array([LABELS.index(v) if v is not None else -1 for v in known])
    rows = np.where(
        codes >= 0, joint[np.arange(len(y)), np.maximum(codes, 0)], special.logsumexp(joint, 1)
    )
    expected = _log_posterior_scipy(covariance, _prior_hyper(covariance), mu, cov) + rows.sum()
    params = _params(w, mu, cov, label_dim="component")
    assert log_density(pm_model, params) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_default_priors_model_agrees_with_the_package(covariance):
    """Under the default prior (resolved from the data: per class for a classifier,
    pooled for a mixture), the model's log density at the fitted parameters equals the
    package's log prior plus its log-likelihood (the EM objective's terms)."""
    X = bnb.datasets.old_faithful()
    y = np.where(X["eruptions"] > 3, "long", "short")
    model = _model(covariance, prior=False)
    fit = model.fit(X, y)
    em = model.cluster(X, 2, random_state=0)
    for point, pm_model, rows in (
        (
            fit,
            model.to_pymc(X, y),
            fit.joint_log_likelihood(X)[np.arange(len(y)), (y == "short").astype(int)],
        ),
        (em, model.to_pymc(X, n_components=2), special.logsumexp(em.joint_log_likelihood(X), 1)),
    ):
        weights = np.exp(point.class_log_prob)
        expected = (
            float(bnb.Dirichlet(point.class_prior.resolve(2)).logpdf(weights))
            + point.blocks[0].log_prior(point.block_params[0])
            + float(rows.sum())
        )
        assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


# -- the variables ------------------------------------------------------------------------------
FREE = {
    "full": ("X_cov", ("class_label", "X_feature", "X_feature_2")),
    "tied": ("X_tied_cov", ("X_feature", "X_feature_2")),
    "diag": ("X_var", ("class_label", "X_feature")),
    "spherical": ("X_var", ("class_label",)),
    "tied-spherical": ("X_var", ()),
}


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_variables_and_their_dims(covariance):
    """The covariance's free variable has the type's own shape; ``X_mu`` and ``X_cov``
    (free or deterministic) have the dims and coords of ``fit.params``."""
    X, y = _data()
    model = _model(covariance)
    pm_model = model.to_pymc(X, y)
    params = model.fit(X, y).params
    name, dims = FREE[covariance]
    assert [rv.name for rv in pm_model.free_RVs] == ["class_prob", name, "X_mu"]
    assert pm_model.named_vars_to_dims.get(name, ()) == dims
    deterministic = {d.name for d in pm_model.deterministics}
    assert deterministic == (set() if covariance == "full" else {"X_cov"})
    for var in ("X_mu", "X_cov"):
        assert pm_model.named_vars_to_dims[var] == params[var].dims
        for dim in params[var].dims:
            assert list(pm_model.coords[dim]) == params[dim].values.tolist()


def _log_cholesky(cov: np.ndarray) -> np.ndarray:
    """The packed lower triangle (row by row) of the Cholesky factor, its diagonal as
    logarithms."""
    chol = np.linalg.cholesky(cov)
    rows, cols = np.tril_indices(cov.shape[-1])
    flat = chol[..., rows, cols]
    flat[..., rows == cols] = np.log(flat[..., rows == cols])
    return flat


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_point_in_the_samplers_space(covariance):
    """An Inverse-Wishart covariance is sampled as its log-Cholesky factor (a tied one
    once, read from the first class), a variance as its logarithm (a spherical one
    per class, a tied-spherical one once); the means as they are."""
    X, y = _data()
    w, mu, cov = _point(covariance)
    pm_model = _model(covariance).to_pymc(X, y)
    point = model_point(pm_model, _params(w, mu, cov))
    expected = {
        "full": ("X_cov_cholesky-cov__", _log_cholesky(cov)),
        "tied": ("X_tied_cov_cholesky-cov__", _log_cholesky(cov[0])),
        "diag": ("X_var_log__", np.log(np.diagonal(cov, axis1=1, axis2=2))),
        "spherical": ("X_var_log__", np.log(cov[:, 0, 0])),
        "tied-spherical": ("X_var_log__", np.log(cov[0, 0, 0])),
    }[covariance]
    assert set(point) == {"class_prob_simplex__", expected[0], "X_mu"}
    np.testing.assert_allclose(point[expected[0]], expected[1], rtol=1e-13)
    np.testing.assert_array_equal(point["X_mu"], mu)


@pytest.mark.parametrize(
    "covariance, change, message",
    [
        ("tied", lambda c: c * [[[1.0]], [[1.5]]], r"its classes differ by up to"),
        (
            "diag",
            lambda c: c + np.array([[0.0, 0.01], [0.01, 0.0]]),
            r"an off-diagonal entry is 0\.01, not 0",
        ),
        ("spherical", lambda c: c * [[1.0, 0.0], [0.0, 2.0]], r"a class's variances differ"),
        ("tied-spherical", lambda c: c * [[[1.0]], [[2.0]]], r"its classes differ by up to 3"),
    ],
)
def test_parameters_without_the_types_structure_are_refused(covariance, change, message):
    """A covariance the declared type cannot hold has no point in the model: a named
    error, not the density of some other point."""
    X, y = _data()
    w, mu, cov = _point(covariance)
    pm_model = _model(covariance).to_pymc(X, y)
    expected = rf"params\['X_cov'\] is not a '{covariance}' covariance: {message}"
    with pytest.raises(bnb.InputError, match=expected):
        free_values(pm_model, _params(w, mu, change(cov)))


def test_free_values_prefer_a_variable_given_by_its_own_name():
    """A dataset that holds the free variable itself (as a sampler's draws do) is
    read by that name, not through ``X_cov``."""
    X, y = _data()
    w, mu, cov = _point("diag")
    pm_model = _model("diag").to_pymc(X, y)
    params = _params(w, mu, cov)
    params["X_var"] = (("class_label", "X_feature"), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(free_values(pm_model, params)["X_var"], [[1.0, 2.0], [3.0, 4.0]])


def test_the_inverse_wisharts_start_and_prior_draws():
    """The start is the Inverse-Wishart's mode Psi / (nu + d + 1); the prior's draws
    have scipy's Inverse-Wishart mean and variance (within 4 Monte-Carlo standard
    errors) and are symmetric and definite."""
    X, y = _data()
    pm_model = _model("full").to_pymc(X, y)
    start = pm_model.initial_point()["X_cov_cholesky-cov__"]
    np.testing.assert_allclose(start, _log_cholesky(np.tile(PSI / (NU + 3.0), (2, 1, 1))))
    n = 40_000
    draws = pm.draw(pm_model["X_cov"], draws=n, random_seed=11)  # (n, 2, 2, 2)
    assert draws.shape == (n, 2, 2, 2)
    np.testing.assert_array_equal(draws, np.swapaxes(draws, -1, -2))
    assert np.all(np.linalg.eigvalsh(draws) > 0)
    nu = 9.0  # finite variances need nu > d + 3: draw a second prior's too
    psi_model = bnb.NaiveBayes(
        bnb.MultivariateGaussian(bnb.NormalInverseWishart(mu=MU0, kappa=KAPPA, nu=nu, psi=PSI))
    ).to_pymc(X, y)
    draws = pm.draw(psi_model["X_cov"], draws=n, random_seed=12).reshape(2 * n, 2, 2)
    mean = stats.invwishart.mean(nu, PSI)
    sd = np.sqrt(stats.invwishart.var(nu, PSI))
    assert np.all(np.abs(draws.mean(axis=0) - mean) <= 4.0 * sd / np.sqrt(2 * n))
    # the mean given the covariance: MvNormal(mu0, cov / kappa), here its first moments
    mus = pm.draw(psi_model["X_mu"], draws=n, random_seed=13).reshape(2 * n, 2)
    spread = np.sqrt(np.diag(mean) / KAPPA)
    assert np.all(np.abs(mus.mean(axis=0) - MU0) <= 4.0 * spread / np.sqrt(2 * n))


# -- NUTS ----------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("covariance", ["full", "spherical"])
def test_nuts_with_every_membership_known_meets_the_exact_posterior(covariance):
    """Every row's component known: NUTS on the PyMC model (through cluster, started
    at EM's fit) draws the exact conjugate posterior, whose means are
    ``estimate="mean"``: within 4 Monte-Carlo standard errors."""
    X = bnb.datasets.old_faithful()
    y = np.where(X["eruptions"] > 3, "long", "short")
    assert_known_memberships_draw_the_exact_posterior(
        _model(covariance), X, y, sampler="nuts", draws=500, tune=500, chains=2, random_state=3
    )


@pytest.mark.slow
def test_nuts_and_gibbs_agree_on_an_unsupervised_tied_mixture():
    """Old Faithful as two components sharing one covariance, no row known: the
    posterior means of NUTS and of the Gibbs sampler agree within 4 combined
    Monte-Carlo standard errors."""
    import arviz as az

    X = bnb.datasets.old_faithful()
    model = _model("tied")
    means, errors = [], []
    for sampler, draws in (("nuts", 500), ("gibbs", 2000)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = model.cluster(
                X,
                2,
                method="mcmc",
                sampler=sampler,
                draws=draws,
                tune=500,
                chains=2,
                random_state=5,
            )
        post = fit.trace["posterior"].ds
        ess = az.ess(post)
        means.append({v: post[v].mean(("chain", "draw")).values for v in ("X_mu", "X_cov")})
        errors.append(
            {v: (post[v].std(("chain", "draw")) / np.sqrt(ess[v])).values for v in means[-1]}
        )
    for v in ("X_mu", "X_cov"):
        gap = np.abs(means[0][v] - means[1][v])
        assert np.all(gap <= 4.0 * np.hypot(errors[0][v], errors[1][v])), v
