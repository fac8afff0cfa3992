"""The multivariate Gaussian family (full, diagonal, spherical and tied covariances)
and its Normal-Inverse-Wishart prior, against scikit-learn, scipy and closed forms."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import logsumexp

import bayesnb as bnb
from bayesnb.errors import InputError
from bayesnb.families._kernels import Labels

COVARIANCES = ("full", "diag", "spherical", "tied")  # scikit-learn's four
ALL = (*COVARIANCES, "tied-spherical")


def _faithful() -> pd.DataFrame:
    return bnb.datasets.old_faithful()


def _random_resp(n: int, k: int, seed: int) -> np.ndarray:
    """The seed's start: every row assigned to a component at random (hard)."""
    z = np.random.default_rng(seed).integers(0, k, n)
    return np.eye(k)[z]


# -- parity with scikit-learn's GaussianMixture ------------------------------------------


def _sklearn_from(resp0, covariance: str, X: np.ndarray):
    """scikit-learn's GaussianMixture (no regularization, tight tol) started from the
    M-step of ``resp0``: its own initialization replaced by those responsibilities."""
    from sklearn.mixture import GaussianMixture

    class FromResponsibilities(GaussianMixture):
        def _initialize_parameters(self, X, random_state, xp=None):
            self._initialize(X, resp0, xp=xp) if xp is not None else self._initialize(X, resp0)

    gm = FromResponsibilities(
        n_components=resp0.shape[1],
        covariance_type=covariance,
        reg_covar=0.0,
        tol=1e-14,
        max_iter=100_000,
    )
    gm.fit(X)
    return gm


@pytest.mark.parametrize("covariance", COVARIANCES)
@pytest.mark.parametrize("k", [2, 3])
def test_em_reaches_scikit_learns_optimum_from_the_same_start(covariance, k):
    X = _faithful()
    resp0 = _random_resp(len(X), k, seed=k)
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).cluster(
        X, k, init=resp0, estimate="ml", class_estimate="ml", tol=1e-13, max_iter=20_000
    )
    gm = _sklearn_from(resp0, covariance, X.to_numpy())
    assert fit.converged and gm.converged_
    ours, theirs = fit.log_likelihood, gm.score(X.to_numpy()) * len(X)
    assert ours == pytest.approx(theirs, rel=1e-6)
    # the same optimum, component for component (matched by their means)
    order = np.argsort(fit.params["X_mu"].values[:, 1])
    np.testing.assert_allclose(
        fit.params["X_mu"].values[order],
        gm.means_[np.argsort(gm.means_[:, 1])],
        rtol=1e-4,
    )


# -- the supervised classifier: quadratic discriminant analysis --------------------------


def test_full_covariance_classifier_is_qda_by_hand():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)) @ rng.normal(size=(3, 3)), columns=list("abc"))
    y = rng.integers(0, 3, 300)
    X.loc[y == 1, "a"] += 2.0
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).fit(X, y, estimate="ml")
    logj = np.empty((len(X), 3))
    for k in range(3):
        rows = X.to_numpy()[y == k]
        prior = np.mean(y == k)
        cov = np.cov(rows, rowvar=False, bias=True)
        logj[:, k] = np.log(prior) + stats.multivariate_normal(rows.mean(0), cov).logpdf(X)
    expected = np.exp(logj - logsumexp(logj, axis=1, keepdims=True))
    np.testing.assert_allclose(fit.predict_proba(X), expected, rtol=1e-10, atol=1e-13)
    assert fit.params["X_cov"].dims == (
        "class_label",
        "X_feature",
        "X_feature_2",
    )


def test_diag_block_is_the_gaussian_naive_bayes():
    """covariance='diag' under ML is the independent Gaussian's fit, column by column."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4)) * [1.0, 2.0, 0.5, 3.0]
    y = rng.integers(0, 2, 200)
    joint = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="diag")).fit(X, y, estimate="ml")
    indep = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    np.testing.assert_allclose(joint.predict_proba(X), indep.predict_proba(X), rtol=1e-10)
    var = np.diagonal(joint.params["X_cov"].values, axis1=1, axis2=2)
    np.testing.assert_allclose(var, indep.params["X_var"].values, rtol=1e-12)


# -- the mixed model ---------------------------------------------------------------------


def test_a_full_block_beside_a_categorical_feature():
    """A full-covariance block and a categorical feature in one mixture; the fit's
    log-likelihood at its parameters equals the hand computation."""
    rng = np.random.default_rng(3)
    n = 400
    z = rng.integers(0, 2, n)
    g = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], n) + 3.0 * z[:, None]
    colour = np.where(rng.random(n) < 0.2 + 0.6 * z, "red", "blue")
    X = pd.DataFrame({"x": g[:, 0], "y": g[:, 1], "colour": colour})
    model = bnb.NaiveBayes(
        {"xy": bnb.MultivariateGaussian(columns=["x", "y"]), "colour": bnb.Categorical()}
    )
    fit = model.cluster(X, 2, random_state=0)
    p = fit.params
    log_pi = np.log(p["class_prob"].values)
    logj = np.empty((n, 2))
    for k in range(2):
        gauss = stats.multivariate_normal(p["xy_mu"].values[k], p["xy_cov"].values[k])
        cat = p["colour"].sel(component=k).to_series()
        logj[:, k] = log_pi[k] + gauss.logpdf(g) + np.log(cat[colour].to_numpy())
    assert fit.log_likelihood == pytest.approx(logsumexp(logj, axis=1).sum(), rel=1e-12)
    np.testing.assert_allclose(fit.log_likelihood_rows(X), logsumexp(logj, axis=1), rtol=1e-10)


# -- monotone and safe -------------------------------------------------------------------


@pytest.mark.parametrize("covariance", ALL)
@pytest.mark.parametrize("accelerate", [True, False])
def test_the_objective_never_decreases(covariance, accelerate):
    X = _faithful()
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
    for seed in range(6):
        fit = model.cluster(X, 3, n_init=1, init="random", random_state=seed, accelerate=accelerate)
        gains = np.diff(fit.history)
        assert np.all(gains >= -1e-9 * np.abs(fit.history[1:])), (seed, gains.min())


def test_a_collapsing_component_is_named_under_ml_and_finite_under_map():
    """A component started on one row (a point mass of weight 1, the rest elsewhere)
    has a singular covariance under ML, where the likelihood is unbounded: the error
    names it. MAP's Normal-Inverse-Wishart prior keeps it definite."""
    X = _faithful()
    resp0 = np.zeros((len(X), 2))
    resp0[:, 0] = 1.0
    resp0[5] = [0.0, 1.0]
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.raises(InputError, match=r"class 1 .*singular full covariance"):
        model.cluster(X, 2, init=resp0, estimate="ml")
    fit = model.cluster(X, 2, init=resp0)
    assert np.isfinite(fit.log_likelihood)
    assert np.all(np.linalg.eigvalsh(fit.params["X_cov"].values) > 0)


def test_missing_values_raise_naming_the_column_where_no_em_fills_them_in():
    X = _faithful().copy()
    X.iloc[7, 1] = np.nan
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.raises(InputError, match="missing value in column 'waiting', row 7"):
        model.fit(X, (X["eruptions"] > 3).to_numpy())
    with pytest.raises(InputError, match=r"only a mixture \(model.cluster"):
        model.density(X)


def test_bad_declarations():
    with pytest.raises(InputError, match="covariance must be one of"):
        bnb.MultivariateGaussian(covariance="banded")
    with pytest.raises(InputError, match="positive definite"):
        bnb.NormalInverseWishart(psi=[[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(InputError, match="nu must exceed d - 1"):
        bnb.NaiveBayes(bnb.MultivariateGaussian(bnb.NormalInverseWishart(nu=0.5))).cluster(
            _faithful(), 2
        )


# -- the Normal-Inverse-Wishart prior ------------------------------------------------------


def test_niw_log_density_is_scipys():
    prior = bnb.NormalInverseWishart(
        mu=[1.0, -1.0], kappa=2.0, nu=5.0, psi=[[2.0, 0.3], [0.3, 1.0]]
    )
    mu, cov = np.array([0.5, 0.2]), np.array([[1.5, -0.2], [-0.2, 0.7]])
    expected = stats.multivariate_normal(prior.mu, cov / prior.kappa).logpdf(mu) + stats.invwishart(
        df=prior.nu, scale=prior.psi
    ).logpdf(cov)
    assert prior.logpdf(mu, cov) == pytest.approx(expected, rel=1e-12)


def test_niw_marginal_likelihood_is_the_product_of_predictives():
    """p(x1, x2, x3) = p(x1) p(x2 | x1) p(x3 | x1, x2), each a multivariate Student-t
    of the posterior so far: the evidence by the chain rule, from scipy."""
    prior = bnb.NormalInverseWishart(mu=[0.0, 1.0], kappa=0.5, nu=4.0, psi=[[1.0, 0.2], [0.2, 2.0]])
    x = np.array([[0.3, 1.2], [-0.5, 0.4], [1.1, 2.5]])
    total, post, d = 0.0, prior, 2
    for i in range(len(x)):
        df = post.nu - d + 1
        shape = post.psi * (post.kappa + 1) / (post.kappa * df)
        total += stats.multivariate_t(post.mu, shape, df=df).logpdf(x[i])
        seen = x[: i + 1]
        scatter = (seen - seen.mean(0)).T @ (seen - seen.mean(0))
        post = prior.posterior(i + 1, seen.mean(0), scatter)
    scatter = (x - x.mean(0)).T @ (x - x.mean(0))
    assert prior.log_marginal_likelihood(3, x.mean(0), scatter) == pytest.approx(total, rel=1e-12)


def test_one_column_is_the_normal_inverse_gamma():
    """d = 1: NIW(nu, psi) is NIG(alpha = nu/2, beta = psi/2); MAP and mean agree with the
    Gaussian family's."""
    rng = np.random.default_rng(2)
    X = rng.normal(3.0, 2.0, size=(50, 1))
    y = rng.integers(0, 2, 50)
    niw = bnb.NormalInverseWishart(mu=[1.0], kappa=0.5, nu=3.0, psi=[[4.0]])
    nig = bnb.NormalInverseGamma(mu=1.0, kappa=0.5, alpha=1.5, beta=2.0)
    for method in ("map", "mean"):
        a = bnb.NaiveBayes(bnb.MultivariateGaussian(niw)).fit(X, y, estimate=method)
        b = bnb.NaiveBayes(bnb.Gaussian(nig)).fit(X, y, estimate=method)
        np.testing.assert_allclose(
            a.params["X_mu"].values[:, 0], b.params["X_mu"].values, rtol=1e-12
        )
        np.testing.assert_allclose(
            a.params["X_cov"].values[:, 0, 0], b.params["X_var"].values, rtol=1e-12
        )


@pytest.mark.parametrize("covariance", ALL)
def test_map_maximizes_likelihood_plus_prior(covariance):
    """The MAP estimate beats every nearby point on the complete-data log-likelihood
    plus the log prior (the objective its M-step maximizes)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3)) @ np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 1.0]])
    y = rng.integers(0, 2, 60)
    block = bnb.MultivariateGaussian(covariance=covariance).bind("X", ["a", "b", "c"], X)
    st = block.count(block.encode(X), Labels(y, 2))
    best = block.estimate_params(st, "map")

    def objective(params):
        return block.complete_log_likelihood(st, params) + block.log_prior(params)

    top = objective(best)
    for _ in range(40):
        step = {
            "mu": best["mu"] + 1e-3 * rng.normal(size=best["mu"].shape),
            "cov": best["cov"].copy(),
        }
        if covariance == "full":
            e = 1e-3 * rng.normal(size=(2, 3, 3))
            step["cov"] = best["cov"] + (e + np.swapaxes(e, 1, 2)) / 2
        elif covariance == "tied":
            e = 1e-3 * rng.normal(size=(3, 3))
            step["cov"] = best["cov"] + (e + e.T) / 2
        elif covariance == "diag":
            idx = np.arange(3)
            step["cov"][:, idx, idx] *= np.exp(1e-3 * rng.normal(size=(2, 3)))
        elif covariance == "spherical":
            idx = np.arange(3)
            step["cov"][:, idx, idx] *= np.exp(1e-3 * rng.normal(size=(2, 1)))
        else:
            idx = np.arange(3)
            step["cov"][:, idx, idx] *= np.exp(1e-3 * rng.normal())
        assert objective(step) < top


def test_n_free_parameters():
    counts = {
        "full": 2 * (3 + 6),
        "diag": 2 * 6,
        "spherical": 2 * 4,
        "tied": 2 * 3 + 6,
        "tied-spherical": 2 * 3 + 1,
    }
    for covariance, expected in counts.items():
        block = bnb.MultivariateGaussian(covariance=covariance)
        block.columns = ["a", "b", "c"]
        assert block.n_free_parameters(2) == expected


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_statistics_of_two_halves_merge_into_the_whole(covariance):
    """The pairwise update of the scatter matrices (EM's blocks of rows, partitions)."""
    from bayesnb.sufficient import merge_stats

    rng = np.random.default_rng(5)
    X = rng.normal(size=(101, 3)) * 3.0 + 1e4  # an offset: deviations stay exact
    r = rng.dirichlet(np.ones(2), size=101)
    block = bnb.MultivariateGaussian(covariance=covariance).bind("X", ["a", "b", "c"], X)
    whole = block.count(block.encode(X), r)
    a = block.count(block.encode(X[:40]), r[:40])
    b = block.count(block.encode(X[40:]), r[40:])
    merged = merge_stats(a, b)
    for key in whole:
        np.testing.assert_allclose(merged[key], whole[key], rtol=1e-10)
    # and the scatter is the weighted sum of outer products of deviations, by hand
    for k in range(2):
        dev = X - whole["mean"][k]
        full = (dev * r[:, k : k + 1]).T @ dev
        expected = full if covariance == "full" else np.diag(full)
        np.testing.assert_allclose(whole["scatter"][k], expected, rtol=1e-9)


# -- k-means as a limit ------------------------------------------------------------------


def test_kmeans_is_classification_em_with_one_shared_spherical_variance():
    """Equal spherical variance (``tied-spherical``), fixed equal weights and hard
    assignments: every E-step puts a row with its nearest mean and every M-step moves
    each mean to its rows' centroid, which is Lloyd's algorithm. From the same centres
    it gives scikit-learn's KMeans: the same labels, centres and inertia."""
    from sklearn.cluster import KMeans

    X = _faithful()
    K = 3
    start = X.to_numpy()[[0, 100, 200]]
    init = {
        "class_prob": np.full(K, 1.0 / K),
        "X_mu": start,
        "X_cov": np.broadcast_to(np.eye(2), (K, 2, 2)),
    }
    model = bnb.NaiveBayes(
        bnb.MultivariateGaussian(covariance="tied-spherical"),
        class_prior=bnb.PointMass(np.full(K, 1.0 / K)),
    )
    fit = model.cluster(X, K, init=init, hard=True, estimate="ml", accelerate=False)
    km = KMeans(K, init=start, n_init=1, algorithm="lloyd", tol=0.0, max_iter=300).fit(X)
    assert fit.converged
    np.testing.assert_array_equal(fit.responsibilities.argmax(axis=1), km.labels_)
    np.testing.assert_allclose(fit.params["X_mu"].values, km.cluster_centers_, rtol=1e-12)
    np.testing.assert_array_equal(np.unique(fit.responsibilities), [0.0, 1.0])
    # the shared variance is the inertia over n d: k-means' objective, estimated
    sigma2 = fit.params["X_cov"].values[0, 0, 0]
    assert sigma2 == pytest.approx(km.inertia_ / (len(X) * 2), rel=1e-10)
    assert fit.n_parameters() == K * 2 + 1  # the means and one variance; weights fixed


def test_hard_assignments_raise_the_classification_likelihood():
    """Classification EM's objective (each row's joint under its own component) never
    falls, and the fit's log-likelihood is that objective's."""
    X = _faithful()
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(
        X, 3, hard=True, init="random", n_init=1, random_state=2
    )
    assert np.all(np.diff(fit.history) >= -1e-9 * np.abs(fit.history[1:]))
    logj = fit.joint_log_likelihood(X)
    assert fit.log_likelihood == pytest.approx(logj.max(axis=1).sum(), rel=1e-10)


# -- model choice as mclust ----------------------------------------------------------------


def test_icl_and_uncertainty_by_hand():
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(_faithful(), 3, random_state=0)
    top = fit.responsibilities.max(axis=1)
    np.testing.assert_allclose(fit.uncertainty(), 1.0 - top)
    assert fit.icl == pytest.approx(fit.bic - 2.0 * np.log(top).sum(), rel=1e-12)
    assert fit.icl >= fit.bic


def test_the_table_over_k_and_covariance():
    """One row per (covariance, K); with K = 1 under ML every structure's
    log-likelihood is a single Gaussian's, by scipy, and BIC counts its parameters."""
    X = _faithful()
    table, fits = bnb.compare_covariances(X, 2, estimate="ml", random_state=0, return_fits=True)
    assert list(table.index) == [(c, k) for c in COVARIANCES for k in (1, 2)]
    n, x = len(X), X.to_numpy()
    cov = np.cov(x, rowvar=False, bias=True)
    single = {
        "full": stats.multivariate_normal(x.mean(0), cov).logpdf(x).sum(),
        "tied": stats.multivariate_normal(x.mean(0), cov).logpdf(x).sum(),
        "diag": stats.multivariate_normal(x.mean(0), np.diag(np.diag(cov))).logpdf(x).sum(),
        "spherical": stats.multivariate_normal(x.mean(0), np.trace(cov) / 2).logpdf(x).sum(),
    }
    n_params = {"full": 5, "tied": 5, "diag": 4, "spherical": 3}
    for covariance, expected in single.items():
        row = table.loc[(covariance, 1)]
        assert row["log_likelihood"] == pytest.approx(expected, rel=1e-12)
        assert row["n_parameters"] == n_params[covariance]
        assert row["bic"] == pytest.approx(-2 * expected + n_params[covariance] * np.log(n))
    for (covariance, k), fit in fits.items():
        assert table.loc[(covariance, k), "icl"] == pytest.approx(fit.icl)


def test_bic_chooses_mclusts_model_for_old_faithful():
    """mclust's documented choice for Old Faithful is EEE (one shared full covariance,
    our "tied") with 3 components; the table over K = 1..3 and the four structures
    picks the same."""
    table = bnb.compare_covariances(_faithful(), 3, random_state=0)
    assert table["bic"].idxmin() == ("tied", 3)


@pytest.mark.parametrize("covariance", ALL)
def test_save_and_load_are_exact(tmp_path, covariance):
    """The file holds the statistics (a diagonal type's scatter diagonal alone), the
    prior as declared (None for a data default) and the rows' mean and covariance
    that resolve it: loading re-estimates every parameter bit for bit, for the
    classifier under every estimate and for an EM mixture with its diagnostics."""
    X = _faithful()
    y = np.where(X["waiting"] > 70, "long", "short")
    path = tmp_path / "model.nc"
    for prior in (None, bnb.NormalInverseWishart(mu=[3.0, 70.0], kappa=0.5, nu=4.0)):
        model = bnb.NaiveBayes(bnb.MultivariateGaussian(prior, covariance=covariance))
        fits = [model.fit(X, y, estimate=e) for e in ("mean", "map", "ml", "predictive")]
        fits.append(model.cluster(X, 2, random_state=0))
        for fit in fits:
            fit.save(path)
            back = bnb.load(path)
            assert type(back) is type(fit)
            assert back.params.identical(fit.params)
            assert back.counts.identical(fit.counts)
            np.testing.assert_array_equal(back.predict_proba(X), fit.predict_proba(X))
        assert back.log_likelihood == fits[-1].log_likelihood
        np.testing.assert_array_equal(back.history, fits[-1].history)
        saved = back.blocks[0]
        assert saved.covariance == covariance
        if prior is None:  # the data defaults stay defaults, resolved again at load
            assert (saved.prior.mu, saved.prior.nu, saved.prior.psi) == (None, None, None)
        else:
            np.testing.assert_array_equal(saved.prior.mu, [3.0, 70.0])
            assert (saved.prior.kappa, saved.prior.nu, saved.prior.psi) == (0.5, 4.0, None)
        np.testing.assert_allclose(saved.data_cov, np.cov(X.to_numpy().T, bias=True), rtol=1e-13)


def test_load_refuses_a_damaged_multivariate_state(tmp_path):
    """A saved covariance type, a data covariance of the wrong shape, a prior that
    cannot resolve: each a ModelFileError naming it."""
    import json

    import xarray as xr

    from bayesnb.model import CONFIG_ATTR

    X = _faithful()
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).fit(X, X["waiting"] > 70)
    path = tmp_path / "model.nc"
    fit.save(path)
    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    config = json.loads(ds.attrs[CONFIG_ATTR])

    def damaged(change, name):
        bad = json.loads(json.dumps(config))
        change(bad["blocks"][0]["state"])
        out = ds.copy()
        out.attrs[CONFIG_ATTR] = json.dumps(bad)
        target = tmp_path / name
        out.to_netcdf(target, engine="scipy")
        return target

    cases = [
        (lambda s: s.update(covariance="round"), r"covariance must be one of"),
        (lambda s: s.update(data_cov=[[1.0, 0.0]]), r"data_cov \(2, 2\); got shapes"),
        (lambda s: s.update(data_cov=[[1.0, 0.5], [0.4, 1.0]]), r"data_cov must be a symmetric"),
        (lambda s: s["prior"].update(nu=0.5), r"nu must exceed d - 1 = 1"),
        (lambda s: s.update(covariance="diag"), r"scatter.*shape \(2, 2, 2\).*declare \(2, 2\)"),
    ]
    for i, (change, message) in enumerate(cases):
        with pytest.raises(bnb.ModelFileError, match=message):
            bnb.load(damaged(change, f"bad{i}.nc"))


def test_saving_a_family_without_a_schema_says_so(tmp_path):
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).fit(_faithful(), [0, 1] * 136)
    fit.blocks[0].kind = "home_made"  # a family registered outside the package
    with pytest.raises(bnb.ModelFileError, match=r"kind 'home_made'\) is not built"):
        fit.save(tmp_path / "model.nc")


def test_the_seeds_start_assigns_rows_then_takes_an_m_step():
    """init="assign": every row in a random component (each component given a row),
    then an M-step; the same as passing that assignment as the start."""
    X = _faithful()
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(
        X, 3, init="assign", n_init=1, random_state=7
    )
    rng = np.random.default_rng(7)
    z = rng.integers(0, 3, len(X))
    z[rng.permutation(len(X))[:3]] = np.arange(3)
    same = bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(X, 3, init=np.eye(3)[z])
    np.testing.assert_allclose(fit.history, same.history, rtol=1e-12)
    assert fit.init == "'assign'"  # as _describe names it


def test_an_ml_component_collapsing_under_squarem_raises_the_collapse_error():
    """Fifteen ML components on Old Faithful: one shrinks onto about two rows. Long
    before its covariance is singular to float precision (condition number 4e16 at
    iteration 57), its spread across the line through them falls below 1e-6 of the
    data's; that is the collapse error naming the component, not a decrease of the
    objective reported as a bug."""
    X = bnb.datasets.old_faithful()
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="full"))
    with pytest.raises(bnb.InputError, match=r"class 2 \(weight 1\.99.*singular full"):
        model.cluster(X, 15, estimate="ml", init="assign", random_state=0, n_init=1)


def test_the_ml_collapse_test_is_in_the_datas_own_units():
    """Columns of very different scales (one multiplied by 1e9) give the same ML fit,
    scaled: the collapse test whitens each covariance by the data's before it compares
    spreads, so the small column is not taken for a collapsed one."""
    X = bnb.datasets.old_faithful().to_numpy(dtype=float)
    scale = np.array([1.0, 1e9])
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="full"))
    plain = model.cluster(X, 2, estimate="ml", init="kmeans", random_state=0, n_init=1)
    wide = model.cluster(X * scale, 2, estimate="ml", init="kmeans", random_state=0, n_init=1)
    # the density of the scaled data is the plain one over the Jacobian, 1e9 per row
    shift = len(X) * np.log(1e9)
    assert wide.log_likelihood == pytest.approx(plain.log_likelihood - shift, rel=1e-9)


@pytest.mark.parametrize(
    "covariance, what, value",
    [("full", "nu_n - d - 1", -0.5), ("diag", "alpha_n - 1", -0.25)],
)
def test_a_posterior_mean_that_does_not_exist_is_named(covariance, what, value):
    """Under NormalInverseWishart(nu=1.5) with d = 2, a class of one row has the
    posterior nu_n = 2.5 <= d + 1, so its Inverse-Wishart has no mean (full); the
    inverse gamma of each variance has alpha_n = (nu - d + 1) / 2 + 1/2 = 0.75 <= 1
    (diag). estimate="mean" says so and names the class; "map" exists."""
    X = pd.DataFrame({"a": [0.1, 0.5, 0.9, 1.3, 2.0], "b": [1.0, 0.2, 0.4, 0.8, 1.9]})
    y = ["p", "p", "p", "p", "q"]
    model = bnb.NaiveBayes(
        bnb.MultivariateGaussian(bnb.NormalInverseWishart(nu=1.5), covariance=covariance)
    )
    message = (
        rf"posterior mean of the {covariance} covariance of class 'q' does not exist: "
        rf"{what} = {value}.*estimate='map'"
    )
    with pytest.raises(InputError, match=message):
        model.fit(X, y)  # the classifier's default estimate is the mean
    cov = model.fit(X, y, estimate="map").params["X_cov"].sel(class_label="q").values
    assert np.all(np.linalg.eigvalsh(cov) > 0)


def _three_columns(n: int = 200, seed: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n)
    cov = np.array([[1.0, 0.6, -0.3], [0.6, 2.0, 0.5], [-0.3, 0.5, 1.5]])
    x = rng.multivariate_normal([0.0, 1.0, 2.0], cov, n) + np.where(y == "b", 1.5, 0.0)[:, None]
    return pd.DataFrame(x, columns=["p", "q", "r"]), y


@pytest.mark.parametrize("estimate", ["mean", "predictive"])
@pytest.mark.parametrize("covariance", ALL)
def test_a_missing_value_is_marginalized_when_a_row_is_scored(covariance, estimate):
    """A row missing some columns scores by the law of its observed ones: scipy's
    Gaussian with the means and the block of the covariance of those columns (a
    Student-t with the same degrees of freedom and the block of the scale, under
    "predictive"); a row missing all of them scores its class's prior alone."""
    X, y = _three_columns()
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).fit(
        X, y, estimate=estimate
    )
    rows = pd.DataFrame(
        [
            [np.nan, 1.2, 2.5],
            [0.3, np.nan, np.nan],
            [np.nan] * 3,
            [0.1, 0.9, 2.2],
            [0.5, 2.0, np.nan],
        ],
        columns=X.columns,
    )
    scores = fit.joint_log_likelihood(rows)
    params = fit.params
    for k, label in enumerate(fit.labels):
        mu = params["X_mu"].sel(class_label=label).values
        for i, row in enumerate(rows.to_numpy()):
            seen = np.flatnonzero(~np.isnan(row))
            expected = fit.class_log_prob[k]
            if seen.size and estimate == "mean":
                cov = params["X_cov"].sel(class_label=label).values[np.ix_(seen, seen)]
                expected += stats.multivariate_normal(mu[seen], cov).logpdf(row[seen])
            elif seen.size:
                scale = params["X_scale"].sel(class_label=label).values[np.ix_(seen, seen)]
                df = params["X_df"].sel(class_label=label).values
                if df.ndim:  # diag: one univariate t per column
                    sd = np.sqrt(np.diag(scale))
                    expected += stats.t(df[seen], mu[seen], sd).logpdf(row[seen]).sum()
                else:
                    expected += stats.multivariate_t(mu[seen], scale, df=df).logpdf(row[seen])
            assert scores[i, k] == pytest.approx(expected, rel=1e-12, abs=1e-12), (i, label)


def test_rows_with_missing_values_are_classified_and_clustered_but_not_fitted():
    X, y = _three_columns()
    holed = X.copy()
    holed.iloc[[3, 8], 1] = np.nan
    holed.iloc[5, :] = np.nan
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    proba = model.fit(X, y).predict_proba(holed)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    prior = np.exp(model.fit(X, y).class_log_prob)
    np.testing.assert_allclose(proba[5], prior)  # nothing seen: the class prior
    mixture = model.cluster(X, 2, random_state=0)
    assert np.isfinite(mixture.predict_proba(holed)).all()
    assert np.isfinite(model.density(X).log_density(holed)).all()
    with pytest.raises(InputError, match="missing value in column 'q', row 3"):
        model.fit(holed, y)


# -- rows on a lower-dimensional set, offsets, scales and rows far out --------------------


def _proportions(n: int = 200, seed: int = 0) -> pd.DataFrame:
    """Proportions of three parts, every row summing to 1: a singular covariance."""
    values = np.random.default_rng(seed).dirichlet([2.0, 3.0, 4.0], n)
    return pd.DataFrame(values, columns=["a", "b", "c"])


def _two_clusters() -> tuple[np.ndarray, np.ndarray]:
    """Two clusters of 100 rows along x (means 0 and 6, sd 1) and noise w."""
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0.0, 1.0, 100), rng.normal(6.0, 1.0, 100)]
    return x, rng.normal(size=200)


def _climbs(history) -> bool:
    h = np.asarray(history)
    return bool(np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])))


@pytest.mark.parametrize("covariance", ["diag", "spherical", "tied-spherical"])
def test_diagonal_structures_take_the_variances_of_collinear_rows(covariance):
    """Rows summing to 1 have a singular covariance, but the diagonal structures'
    default psi is its diagonal alone, the columns' 1/N variances over K^(2/d): a
    classifier's MAP variances are the inverse gammas' joint modes by hand, with
    alpha = (nu - d + 1) / 2, nu = d + 2, beta = psi_jj / 2 (summed over the columns
    for the spherical ones), and a mixture fits."""
    P = _proportions()
    y = np.where(P["a"] > P["a"].median(), "hi", "lo")
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).fit(P, y, estimate="map")
    K, d, kappa = 2, 3, 0.01
    x = P.to_numpy()
    psi = x.var(axis=0) / K ** (2.0 / d)
    alpha = (d + 2.0 - d + 1.0) / 2.0
    m0 = x.mean(axis=0)
    q, n = {}, {}
    for label in ("hi", "lo"):
        rows = x[y == label]
        n[label] = len(rows)
        mean = rows.mean(axis=0)
        pull = kappa * n[label] / (kappa + n[label])
        q[label] = ((rows - mean) ** 2).sum(axis=0) + pull * (mean - m0) ** 2
    for label in ("hi", "lo"):
        if covariance == "diag":
            var = (psi / 2 + q[label] / 2) / (alpha + n[label] / 2 + 1.5)
        elif covariance == "spherical":
            shape = d * alpha + n[label] * d / 2
            var = np.full(d, (psi.sum() / 2 + q[label].sum() / 2) / (shape + 1 + d / 2))
        else:
            shape = d * alpha + len(x) * d / 2
            total = q["hi"].sum() + q["lo"].sum()
            var = np.full(d, (psi.sum() / 2 + total / 2) / (shape + 1 + K * d / 2))
        cov = fit.params["X_cov"].sel(class_label=label).to_numpy()
        np.testing.assert_allclose(np.diag(cov), var, rtol=1e-12)
        np.testing.assert_array_equal(cov - np.diag(np.diag(cov)), 0.0)
    mix = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).cluster(
        P, 2, random_state=0
    )
    assert mix.converged and _climbs(mix.history)


def test_a_tied_covariance_fits_collinear_rows_under_the_floored_psi():
    """v = 2u: the correlation matrix [[1, 1], [1, 1]] has eigenvalues 0 along (1, -1)
    and 2 along (1, 1); the default psi raises the 0 to 1e-6, so psi = D^1/2 (1e-6
    (1, -1)(1, -1)'/2 + 2 (1, 1)(1, 1)'/2) D^1/2 / K^(2/d), D = diag(var u, 4 var u),
    and LDA's shared MAP covariance is (psi + q_a + q_b) / (nu + N + K + d + 1). Across
    the line (along (2, -1)) the rows have no spread: the covariance there is psi's."""
    u = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
    X = pd.DataFrame({"u": u, "v": 2.0 * u})
    y = np.array(list("aaabbb"))
    model = bnb.NaiveBayes({"mv": bnb.MultivariateGaussian(columns=["u", "v"], covariance="tied")})
    fit = model.fit(X, y, estimate="map")
    sd = np.sqrt([u.var(), 4.0 * u.var()])
    corr = 1e-6 * np.outer([1, -1], [1, -1]) / 2 + 2.0 * np.outer([1, 1], [1, 1]) / 2
    psi = corr * np.outer(sd, sd) / 2.0
    x, m0, kappa = X.to_numpy(), X.to_numpy().mean(axis=0), 0.01
    total = psi.copy()
    for label in "ab":
        rows = x[y == label]
        mean = rows.mean(axis=0)
        total += (rows - mean).T @ (rows - mean)
        total += kappa * 3 / (kappa + 3) * np.outer(mean - m0, mean - m0)
    shared = total / (4.0 + 6 + 2 + 2 + 1)
    cov = fit.params["mv_cov"].sel(class_label="a").to_numpy()
    np.testing.assert_allclose(cov, shared, rtol=1e-12)
    across = np.array([2.0, -1.0]) / np.sqrt(5.0)
    assert across @ cov @ across == pytest.approx(across @ psi @ across / 15.0, rel=1e-9)
    assert across @ psi @ across == pytest.approx(0.8e-6 * u.var(), rel=1e-9)
    np.testing.assert_allclose(fit.predict_proba(X).sum(axis=1), 1.0)
    mix = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="tied")).cluster(
        _proportions(), 2, random_state=0
    )
    assert mix.converged and _climbs(mix.history)


def test_a_full_covariance_names_the_combination_that_is_constant():
    """A full covariance per class has no spread along a constant combination of the
    columns but its prior's, which shrinks as the class grows: the error names the
    combination and the remedies, and each remedy fits."""
    P = _proportions()
    full = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.raises(InputError, match=r"a \+ b \+ c is constant") as err:
        full.cluster(P, 2, random_state=0)
    said = str(err.value)
    assert "Drop a column" in said and "covariance='tied'" in said and "'diag'" in said
    assert "Use estimate='map'" not in said
    assert full.cluster(P[["a", "b"]], 2, random_state=0).converged  # a column dropped
    for covariance in ("tied", "diag"):
        model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
        assert model.cluster(P, 2, random_state=0).converged
    two = pd.DataFrame(np.repeat([[0.0, 1.0], [1.0, 2.0]], 10, axis=0), columns=["a", "b"])
    with pytest.raises(InputError, match=r"a - b is constant"):
        full.cluster(two, 2, random_state=0)
    u = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
    X = pd.DataFrame({"u": u, "v": 2.0 * u})
    qda = bnb.NaiveBayes({"mv": bnb.MultivariateGaussian(columns=["u", "v"])})
    for estimate in ("map", "mean", "predictive", "ml"):
        with pytest.raises(InputError, match=r"u - 0\.5\*v is constant"):
            qda.fit(X, list("aaabbb"), estimate=estimate)
    # a tied covariance under ML is singular (its remedy, MAP, fits: above)
    lda = bnb.NaiveBayes({"mv": bnb.MultivariateGaussian(columns=["u", "v"], covariance="tied")})
    with pytest.raises(InputError, match=r"under estimate='ml'.*u - 0\.5\*v is constant"):
        lda.fit(X, list("aaabbb"), estimate="ml")


def test_a_map_covariance_without_a_factor_says_to_rescale():
    """Columns whose spreads differ by 1e13 leave a MAP covariance without a usable
    Cholesky factor: the error says so and asks for a rescaling (not for the MAP the
    fit already uses), and the rescaled columns fit."""
    x, w = _two_clusters()
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.raises(InputError, match="under estimate='map' that is not positive") as err:
        model.cluster(pd.DataFrame({"a": x, "b": w * 1e-13}), 2, random_state=0)
    assert "Rescale the block's columns" in str(err.value)
    assert "Use estimate='map'" not in str(err.value)
    assert model.cluster(pd.DataFrame({"a": x, "b": w}), 2, random_state=0).converged


@pytest.mark.parametrize("covariance", ALL)
@pytest.mark.parametrize(("offset", "spread"), [(1.7e9, 1e-3), (1e8, 1e-5)])
def test_an_offset_moves_only_the_means(covariance, offset, spread):
    """Unix-time-like values, an offset of 1e8 or more varying by 1e-5 to 1e-3 (the
    compiled EM loop's objective used to fall there): the fit of the offset data is
    the fit of the centred data with its means moved by the offset (to the spacing of
    floats there), its objective never falling, its weights, log-likelihood and
    covariance matrices the same to 1e-8 (relative to each matrix's largest entry).
    The values are on the floats' grid at the offset, so both data sets hold the same
    deviations. The statistics hold the means in the data's units, to the offset's
    spacing (1e-4 to 1e-3 of the offset column's spread), so the start and so EM's
    stopping point move by that much: the small column's own entries agree to 1e-5."""
    x, w = _two_clusters()
    step = np.spacing(offset)
    t = np.round(x * spread / step) * step
    assert np.array_equal((offset + t) - offset, t)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
    base = model.cluster(pd.DataFrame({"t": t, "w": w}), 2, random_state=0)
    moved = model.cluster(pd.DataFrame({"t": offset + t, "w": w}), 2, random_state=0)
    assert moved.converged and _climbs(moved.history)
    assert moved.log_likelihood == pytest.approx(base.log_likelihood, rel=1e-8)

    def ordered(fit, shift):  # the components by their mean of t
        mu = fit.params["X_mu"].to_numpy() - [shift, 0.0]
        order = np.argsort(mu[:, 0])
        cov = fit.params["X_cov"].to_numpy()[order]
        return mu[order], cov, fit.params["class_prob"].to_numpy()[order]

    mu, cov, weight = ordered(base, 0.0)
    mu_moved, cov_moved, weight_moved = ordered(moved, offset)
    np.testing.assert_allclose(mu_moved[:, 0], mu[:, 0], rtol=0, atol=4 * step)
    np.testing.assert_allclose(mu_moved[:, 1], mu[:, 1], rtol=0, atol=1e-8)
    np.testing.assert_allclose(weight_moved, weight, rtol=0, atol=1e-8)
    largest = np.abs(cov).max(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(cov_moved / largest, cov / largest, rtol=0, atol=1e-8)
    sd = np.sqrt(np.einsum("kjj->kj", cov))
    scaled = sd[:, :, None] * sd[:, None, :]
    np.testing.assert_allclose(cov_moved / scaled, cov / scaled, rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    ("scale", "match"),
    [
        (1e-200, r"column 'a' that differ.*below the smallest normal float.*multiply"),
        (1e-160, r"column 'a' that differ.*below the smallest normal float.*multiply"),
        (1e200, r"as large as .* in column 'a'.*beyond the largest float.*divide"),
    ],
)
def test_a_spread_beyond_the_floats_is_named(scale, match):
    """Values whose variance underflows (or overflows) would make a silent one-cluster
    fit (or a muddled error): the error names the column and the rescaling, for a
    mixture and a classifier alike, with no floating-point warning on the way."""
    x, w = _two_clusters()
    X = pd.DataFrame({"a": x * scale, "b": w * scale})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=match):
            bnb.NaiveBayes(bnb.MultivariateGaussian()).cluster(X, 2, random_state=0)
        with pytest.raises(InputError, match=match):
            bnb.NaiveBayes(bnb.MultivariateGaussian()).fit(X, x > 3)


@pytest.mark.parametrize("covariance", ALL)
def test_a_power_of_two_scale_rescales_the_fit(covariance):
    """Every value times 2^-500 (exact, and its variances still normal floats): the
    fit is the fit of the unscaled values, its means times 2^-500, its covariances
    times 2^-1000, and its log-likelihood up by N d log 2^500 (the densities' scale)."""
    x, w = _two_clusters()
    s = 2.0**-500
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
    base = model.cluster(pd.DataFrame({"a": x, "b": w}), 2, random_state=0)
    small = model.cluster(pd.DataFrame({"a": x * s, "b": w * s}), 2, random_state=0)
    np.testing.assert_allclose(small.params["X_mu"] / s, base.params["X_mu"], atol=1e-12)
    np.testing.assert_allclose(
        small.params["X_cov"] / s**2, base.params["X_cov"], rtol=1e-11, atol=1e-13
    )
    shift = 200 * 2 * 500 * np.log(2.0)
    assert small.log_likelihood == pytest.approx(base.log_likelihood + shift, rel=1e-12)


def test_a_row_too_far_out_is_named_under_the_gaussian():
    """A value 1e200 standard deviations out has density 0 under every class (its
    squared distance overflows): the error names the row, its values and that cause,
    not a zero count or the estimate; a row merely far (1e100 out) is classified."""
    X = pd.DataFrame({"u": [1.0, 2, 3, 4, 5, 7], "v": [1.0, 3, 2, 5, 4, 4]})
    for covariance in ALL:
        fit = bnb.NaiveBayes(
            {"mv": bnb.MultivariateGaussian(columns=["u", "v"], covariance=covariance)}
        ).fit(X, list("aaabbb"))
        with pytest.raises(bnb.ZeroLikelihoodError, match="too far out") as err:
            fit.predict_proba(pd.DataFrame({"u": [1.0, 1e200], "v": [0.0, 0.0]}))
        said = str(err.value)
        assert "row 1" in said and "u=1e+200, v=0" in said and "estimate='ml'" not in said
        proba = fit.predict_proba(pd.DataFrame({"u": [1e100], "v": [0.0]}))
        assert np.all(np.isfinite(proba)) and proba.sum() == pytest.approx(1.0)
