"""The Gamma family and generalized EM (seed 003: an M-step that only increases the
expected complete-data log-likelihood), against scipy."""

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

import bayesnb as bnb
from bayesnb.errors import InputError
from bayesnb.families import gamma as gamma_module


def _durations() -> pd.DataFrame:
    """Old Faithful's eruption durations (minutes): two clusters of positive values."""
    return bnb.datasets.old_faithful()[["eruptions"]]


def test_the_classifiers_shape_and_rate_are_scipys_fit():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    x = np.where(y == 0, rng.gamma(2.0, 1.5, 400), rng.gamma(9.0, 0.5, 400))
    fit = bnb.NaiveBayes(bnb.Gamma()).fit(x[:, None], y, estimate="ml")
    for k in range(2):
        a, _, scale = stats.gamma.fit(x[y == k], floc=0.0, method="MLE")
        assert fit.params["X_shape"].values[k] == pytest.approx(a, rel=1e-6)
        assert fit.params["X_rate"].values[k] == pytest.approx(1.0 / scale, rel=1e-6)


def test_log_likelihood_is_scipys():
    rng = np.random.default_rng(1)
    x = rng.gamma(3.0, 2.0, (50, 2))
    y = rng.integers(0, 3, 50)
    fit = bnb.NaiveBayes(bnb.Gamma()).fit(x, y, estimate="ml")
    a, b = fit.params["X_shape"].values, fit.params["X_rate"].values
    log_pi = np.log(fit.params["class_prob"].values)
    logj = np.stack(
        [log_pi[k] + stats.gamma(a[k], scale=1.0 / b[k]).logpdf(x).sum(axis=1) for k in range(3)],
        axis=1,
    )
    np.testing.assert_allclose(fit.joint_log_likelihood(x), logj, rtol=1e-12)


def test_one_generalized_step_never_lowers_the_expected_log_likelihood():
    """From any current shape, the M-step's Newton step (halved where needed) raises the
    profile :math:`a\\log a - a - \\log\\Gamma(a) - a s` or leaves it."""
    rng = np.random.default_rng(2)
    s = rng.uniform(1e-4, 3.0, 500)
    current = np.exp(rng.uniform(-5, 8, 500))
    new = gamma_module._improving_step(current, s)

    def profile(a):
        return a * np.log(a) - a - special.gammaln(a) - a * s

    assert np.all(profile(new) >= profile(current))
    # and the full maximization is the root of log a - digamma(a) = s, by scipy
    roots = [
        optimize.brentq(lambda a, t=t: np.log(a) - special.digamma(a) - t, 1e-8, 1e8) for t in s
    ]
    np.testing.assert_allclose(gamma_module._shape_ml(s), roots, rtol=1e-10)


def _scipy_shape_ml(s):
    """The full inner maximization by scipy.optimize (brentq on the shape's equation)."""
    return np.vectorize(
        lambda t: optimize.brentq(lambda a: np.log(a) - special.digamma(a) - t, 1e-8, 1e8)
    )(s)


@pytest.mark.parametrize("seed", range(4))
def test_generalized_em_reaches_the_full_maximizations_optimum(seed, monkeypatch):
    """One improving Newton step per M-step (GEM) against an M-step that maximizes fully
    with scipy.optimize: the same optimum to 1e-6, and both histories monotone."""
    X = _durations()
    kwargs = {"n_init": 1, "init": "random", "random_state": seed, "tol": 1e-12, "max_iter": 5000}
    gem = bnb.NaiveBayes(bnb.Gamma(steps=1)).cluster(X, 2, **kwargs)
    monkeypatch.setattr(gamma_module, "_shape_ml", _scipy_shape_ml)
    full = bnb.NaiveBayes(bnb.Gamma(steps=None)).cluster(X, 2, **kwargs)
    for fit in (gem, full):
        assert fit.converged
        assert np.all(np.diff(fit.history) >= -1e-9 * np.abs(fit.history[1:]))
    assert gem.log_likelihood == pytest.approx(full.log_likelihood, rel=1e-6)
    order = np.argsort(gem.params["eruptions_shape"].values / gem.params["eruptions_rate"].values)
    other = np.argsort(full.params["eruptions_shape"].values / full.params["eruptions_rate"].values)
    np.testing.assert_allclose(
        gem.params["eruptions_shape"].values[order],
        full.params["eruptions_shape"].values[other],
        rtol=1e-4,
    )


def test_the_optimum_is_a_maximum_of_the_observed_likelihood():
    """No direction raises the mixture's log-likelihood at the GEM optimum (weights by
    maximum likelihood too, so the objective is the log-likelihood): scipy's optimizer
    started there gains nothing beyond 1e-6."""
    x = _durations()["eruptions"].to_numpy()
    fit = bnb.NaiveBayes(bnb.Gamma()).cluster(
        _durations(), 2, random_state=0, tol=1e-12, class_estimate="ml"
    )
    p = fit.params

    def negative(theta):
        w, a1, b1, a2, b2 = theta
        pi = special.expit(w)
        dens = pi * stats.gamma(np.exp(a1), scale=np.exp(-b1)).pdf(x) + (1 - pi) * stats.gamma(
            np.exp(a2), scale=np.exp(-b2)
        ).pdf(x)
        return -np.log(dens).sum()

    a, b, pi = p["eruptions_shape"].values, p["eruptions_rate"].values, p["class_prob"].values
    start = [special.logit(pi[0]), np.log(a[0]), np.log(b[0]), np.log(a[1]), np.log(b[1])]
    assert -negative(start) == pytest.approx(fit.log_likelihood, rel=1e-9)
    best = optimize.minimize(negative, start, method="Nelder-Mead", options={"xatol": 1e-10})
    assert -best.fun <= fit.log_likelihood + 1e-6 * abs(fit.log_likelihood)


def test_missing_values_drop_out_and_bad_values_are_named():
    rng = np.random.default_rng(3)
    x = rng.gamma(2.0, 1.0, (100, 2))
    y = rng.integers(0, 2, 100)
    holes = x.copy()
    holes[5, 1] = np.nan
    a = bnb.NaiveBayes(bnb.Gamma()).fit(holes, y, estimate="ml")
    b = bnb.NaiveBayes(bnb.Gamma()).fit(
        np.delete(x, 5, axis=0)[:, 1:], np.delete(y, 5), estimate="ml"
    )
    np.testing.assert_allclose(a.params["X_shape"].values[:, 1], b.params["X_shape"].values)
    x[7, 0] = 0.0
    with pytest.raises(InputError, match=r"value 0\.0 in column 'x0', row 7"):
        bnb.NaiveBayes(bnb.Gamma()).fit(x, y)
    with pytest.raises(InputError, match="maximum likelihood only"):
        bnb.Gamma(estimate="map")


def test_the_default_fit_is_maximum_likelihood_and_no_posterior():
    """A classifier's default estimate ('mean') does not reach a Gamma feature, which
    has maximum likelihood only; asking for its exact posterior says why not."""
    X = _durations()
    y = (X["eruptions"] > 3).astype(int)
    fit = bnb.NaiveBayes(bnb.Gamma()).fit(X, y)
    assert fit.estimates["features"]["eruptions"] == "ml"
    with pytest.raises(InputError, match="no conjugate prior"):
        fit.posterior()


def test_model_choice_tabulates_a_gamma_mixture():
    """compare_components over K; the Cheeseman-Stutz evidence, which needs a
    closed-form marginal likelihood, is NaN for a Gamma."""
    table = bnb.compare_components(bnb.NaiveBayes(bnb.Gamma()), _durations(), 2, random_state=0)
    assert np.isnan(table["cheeseman_stutz"]).all()
    assert table["bic"].idxmin() == 2  # two clusters of eruption times
    assert list(table["n_parameters"]) == [2, 5]


def test_save_and_load_keep_ems_last_generalized_step(tmp_path):
    """A generalized M-step (one Newton step on the shape) leaves EM's parameters near,
    not at, the maximizer of its final statistics, so the file keeps them beside the
    statistics: a classifier (full maximization) and a mixture load bit for bit."""
    X = _durations()
    path = tmp_path / "model.nc"
    model = bnb.NaiveBayes(bnb.Gamma())
    mixture = model.cluster(X, 2, random_state=0)
    maximized = mixture.blocks[0].estimate_params(mixture.stats[0], "ml")
    assert not np.array_equal(maximized["shape"], mixture.block_params[0]["shape"])
    for fit in (model.fit(X, (X["eruptions"] > 3).astype(int)), mixture):
        fit.save(path)
        back = bnb.load(path)
        assert back.params.identical(fit.params)
        assert back.counts.identical(fit.counts)
        np.testing.assert_array_equal(back.predict_proba(X), fit.predict_proba(X))
    assert back.log_likelihood == mixture.log_likelihood
    assert back.blocks[0].steps == 1 and back.blocks[0].prior is None


def test_load_refuses_a_prior_where_the_family_has_none(tmp_path):
    """A Gamma block's saved prior is "none"; a Gaussian's "none" is damage: both
    directions are named errors, not a default prior slipped in."""
    import json

    import xarray as xr

    from bayesnb.model import CONFIG_ATTR

    X = _durations().assign(g=np.linspace(0.0, 1.0, 272))
    fit = bnb.NaiveBayes({"eruptions": bnb.Gamma(), "g": bnb.Gaussian()}).fit(
        X, (X["eruptions"] > 3).astype(int)
    )
    path = tmp_path / "model.nc"
    fit.save(path)
    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    config = json.loads(ds.attrs[CONFIG_ATTR])
    assert config["blocks"][0]["state"]["prior"] == {"type": "none"}
    for block, prior, message in [
        (0, {"type": "Dirichlet", "alpha": [1.0]}, r"prior must be none"),
        (1, {"type": "none"}, r"prior must be a conjugate prior"),
    ]:
        bad = json.loads(json.dumps(config))
        bad["blocks"][block]["state"]["prior"] = prior
        out = ds.copy()
        out.attrs[CONFIG_ATTR] = json.dumps(bad)
        out.to_netcdf(tmp_path / "bad.nc", engine="scipy")
        with pytest.raises(bnb.ModelFileError, match=message):
            bnb.load(tmp_path / "bad.nc")


def test_log_evidence_and_a_constant_class_name_the_feature_and_a_remedy():
    """A Gamma has no marginal likelihood: log_evidence says so by name. A class whose
    values are all equal has no ML Gamma; the classifier's message names the families
    that fit it."""
    X = pd.DataFrame({"t": [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]})
    fit = bnb.NaiveBayes(bnb.Gamma()).fit(X, list("aaabbb"))
    with pytest.raises(InputError, match=r"gamma feature 't' has no closed-form marginal"):
        fit.log_evidence()
    flat = pd.DataFrame({"t": [1.0, 1.0, 1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InputError, match=r"class 'a' holds a single distinct .*bnb.Gaussian"):
        bnb.NaiveBayes(bnb.Gamma()).fit(flat, list("aaabbb"))
