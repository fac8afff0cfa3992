"""Known class probabilities (a PointMass class prior) and the Gaussian variance floor:
the two pieces of the core the scikit-learn drop-ins' class_prior/priors/fit_prior and
var_smoothing stand on."""

import numpy as np
import pytest
from scipy import special

import bayesnb as bnb
from bayesnb import errors

P = [0.3, 0.7]


@pytest.fixture(scope="module")
def tennis():
    return bnb.datasets.play_tennis()


@pytest.fixture(scope="module")
def fits(tennis):
    fixed = bnb.NaiveBayes(class_prior=bnb.PointMass(P)).fit(tennis, target="play")
    learnt = bnb.NaiveBayes().fit(tennis, target="play")
    return fixed, learnt


@pytest.mark.filterwarnings("ignore::bayesnb.ZeroProbabilityWarning")  # the ML features
@pytest.mark.parametrize("estimate", ["ml", "map", "mean", "predictive"])
def test_every_estimator_gives_the_fixed_probabilities(tennis, estimate):
    fit = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)), class_prior=bnb.PointMass(P)).fit(
        tennis, target="play", estimate=estimate
    )
    np.testing.assert_allclose(np.exp(fit.class_log_prob), P, rtol=1e-15)
    np.testing.assert_array_equal(fit.class_counts, [5, 9])  # still counted


def test_the_posterior_is_the_fixed_class_term_times_the_features(fits, tennis):
    """log P(c | x) = log p_c + sum_i log p(x_i | c) - logsumexp: the features' part
    is the Dirichlet fit's joint log-likelihood without its class term."""
    fixed, learnt = fits
    X = tennis.drop(columns="play")
    features = learnt.joint_log_likelihood(X) - learnt.class_log_prob
    expected = features + np.log(P)
    expected -= special.logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(fixed.predict_log_proba(X), expected, rtol=1e-13)


def test_log_evidence_has_the_class_counts_term_sum_n_log_p(fits):
    fixed, learnt = fits
    n = np.array([5.0, 9.0])
    dirichlet = special.gammaln(2.0) - special.gammaln(2.0 + n.sum())
    dirichlet += np.sum(special.gammaln(1.0 + n) - special.gammaln(1.0))
    features = learnt.log_evidence() - dirichlet
    assert fixed.log_evidence() == pytest.approx(features + 5 * np.log(0.3) + 9 * np.log(0.7))


def test_the_exact_posterior_of_fixed_probabilities_is_a_point(fits):
    fixed, _ = fits
    ci = fixed.credible_interval(0.9)["class_prob"].values
    np.testing.assert_allclose(ci, np.column_stack([P, P]), rtol=1e-15)
    for kind in ("hdi",):
        np.testing.assert_allclose(
            fixed.credible_interval(0.5, kind=kind)["class_prob"].values,
            np.column_stack([P, P]),
            rtol=1e-15,
        )
    draws = fixed.posterior(draws=5, random_state=0)["posterior"]["class_prob"].values
    np.testing.assert_allclose(draws, np.broadcast_to(P, draws.shape), rtol=1e-15)


def test_update_keeps_the_fixed_probabilities(fits, tennis):
    fixed, _ = fits
    more = fixed.update(tennis.iloc[:4], target="play")
    np.testing.assert_allclose(np.exp(more.class_log_prob), P, rtol=1e-15)
    np.testing.assert_array_equal(more.class_counts, [5 + 2, 9 + 2])  # No, No, Yes, Yes


def test_save_and_load_keep_the_point_mass(fits, tennis, tmp_path):
    fixed, _ = fits
    path = tmp_path / "fixed.nc"
    fixed.save(path)
    again = bnb.load(path)
    assert again.class_prior == bnb.PointMass(P)
    X = tennis.drop(columns="play")
    np.testing.assert_array_equal(again.predict_proba(X), fixed.predict_proba(X))


def test_a_probability_zero_class_is_never_predicted_and_its_rows_have_no_evidence(tennis):
    fit = bnb.NaiveBayes(class_prior=bnb.PointMass([0.0, 1.0])).fit(tennis, target="play")
    assert set(fit.predict(tennis.drop(columns="play"))) == {"Yes"}
    assert fit.log_evidence() == -np.inf  # five 'No' rows under P(No) = 0


def test_point_mass_errors(tennis):
    with pytest.raises(errors.InputError, match="Priors must be non-negative"):
        bnb.PointMass([-0.5, 1.5])
    with pytest.raises(errors.InputError, match=r"The sum of the priors should be 1.*sums to 0.5"):
        bnb.PointMass([0.25, 0.25])
    with pytest.raises(errors.InputError, match="one probability per class"):
        bnb.PointMass([[0.5, 0.5]])
    with pytest.raises(errors.InputTypeError, match="PointMass probs must be probabilities"):
        bnb.PointMass("0.5")
    model = bnb.NaiveBayes(class_prior=bnb.PointMass([0.2, 0.3, 0.5]))
    with pytest.raises(errors.InputError, match="Number of priors must match number of classes"):
        model.fit(tennis, target="play")
    fixed = bnb.NaiveBayes(class_prior=bnb.PointMass(P))
    X = tennis.drop(columns="play")
    # clustering keeps the fixed weights (EM estimates the rest); MCMC is not built
    fit = fixed.cluster(X, 2, random_state=0)
    np.testing.assert_allclose(fit.params["class_prob"].values, P)
    with pytest.raises(errors.InputError, match="MCMC with fixed class probabilities"):
        fixed.cluster(X, 2, method="mcmc")
    with pytest.raises(errors.InputError, match="The PyMC model with fixed class probabilities"):
        fixed.to_pymc(X, tennis["play"])
    with pytest.raises(errors.InputTypeError, match=r"bnb\.PointMass \(known class"):
        bnb.NaiveBayes(class_prior=[0.5, 0.5])


# -- the Gaussian's variance floor ----------------------------------------------------------

X = np.array([[0.0, 1.0], [2.0, 1.0], [3.0, 5.0], [5.0, 9.0], [7.0, 2.0]])
Y = [0, 0, 1, 1, 1]


def test_the_floor_is_added_to_the_ml_variance_so_a_constant_column_fits():
    with pytest.raises(errors.InputError, match="zero variance"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X, Y, estimate="ml")
    fit = bnb.NaiveBayes(bnb.Gaussian(var_floor=0.5)).fit(X, Y, estimate="ml")
    # class 0: values 0, 2 (variance 1) and 1, 1 (variance 0); class 1: 3, 5, 7 and 5, 9, 2
    np.testing.assert_allclose(
        fit.block_params[0]["var"], [[1.5, 0.5], [8 / 3 + 0.5, 74 / 9 + 0.5]], rtol=1e-14
    )


@pytest.mark.parametrize(
    ("estimate", "key"), [("map", "var"), ("mean", "var"), ("predictive", "scale2")]
)
def test_the_floor_is_added_to_every_estimator_variance(estimate, key):
    prior = bnb.NormalInverseGamma(0.0, 1.0, 3.0, 2.0)
    plain = bnb.NaiveBayes(bnb.Gaussian(prior)).fit(X, Y, estimate=estimate)
    floored = bnb.NaiveBayes(bnb.Gaussian(prior, var_floor=0.25)).fit(X, Y, estimate=estimate)
    np.testing.assert_allclose(
        floored.block_params[0][key], plain.block_params[0][key] + 0.25, rtol=1e-14
    )


def test_the_floor_is_saved_and_refused_by_em(tmp_path):
    fit = bnb.NaiveBayes(bnb.Gaussian(var_floor=0.5)).fit(X, Y, estimate="ml")
    fit.save(tmp_path / "g.nc")
    assert bnb.load(tmp_path / "g.nc").blocks[0].var_floor == 0.5
    with pytest.raises(errors.InputError, match=r"var_floor=0\.5; EM.s M-step"):
        bnb.NaiveBayes(bnb.Gaussian(var_floor=0.5)).cluster(X, 2, random_state=0)
    with pytest.raises(errors.InputError, match="var_floor must be a finite number >= 0"):
        bnb.Gaussian(var_floor=-1.0)


def test_a_class_with_no_weight_takes_the_prior_mode_under_ml():
    prior = bnb.NormalInverseGamma(1.0, 1.0, 2.0, 7.0)
    x = X.copy()
    x[0, 1] = 4.0  # class 0's columns vary
    fit = bnb.NaiveBayes(bnb.Gaussian(prior)).fit(
        x, Y, estimate="ml", sample_weight=[1, 1, 0, 0, 0], class_estimate="mean"
    )
    # class 0: its ML mean and variance; class 1 (no weight): (mu0, beta / (alpha + 1.5))
    np.testing.assert_allclose(fit.block_params[0]["mu"][0], [1.0, 2.5])
    np.testing.assert_allclose(fit.block_params[0]["var"][0], [1.0, 2.25])
    np.testing.assert_allclose(fit.block_params[0]["mu"][1], [1.0, 1.0])
    np.testing.assert_allclose(fit.block_params[0]["var"][1], [7.0 / 3.5, 7.0 / 3.5])
