"""The PyMC model built from a declaration (bayesnb.pymc_model, NaiveBayes.to_pymc).

The deterministic checks carry the weight: at a point, the PyMC model's log density
(PyMC's own distributions over the package's encodings) equals the package's numpy
computation (the priors' log densities and the families' likelihood kernels), for the
classifier, the mixture and the semi-supervised mixture, with missing values. One slow
test samples the classifier's model by NUTS and meets the exact conjugate posterior.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import sparse, special, stats

import bayesnb as bnb
from bayesnb import posterior
from bayesnb.pymc_model import log_density, model_point

pm = pytest.importorskip("pymc")

TOL = 1e-8


# -- data and declarations ------------------------------------------------------------------
def _mixed(n: int = 40, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Bernoulli, Categorical (3 values), Gaussian and Binned columns, each with
    missing values, and two classes."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q"], n)
    shift = np.where(y == "p", 0.0, 2.0)
    X = pd.DataFrame(
        {
            "b": (rng.random(n) < 0.3 + 0.4 * (y == "q")).astype(float),
            "c": rng.choice(["u", "v", "w"], n).astype(object),
            "g": rng.normal(1.0 + shift, 1.5),
            "h": np.clip(rng.normal(3.0 + shift, 2.0), 0.0, 10.0),
        }
    )
    X.loc[[1, 5, 9], "b"] = np.nan
    X.loc[[2, 7], "c"] = None
    X.loc[[3, 8, 5], "g"] = np.nan
    X.loc[[4, 7], "h"] = np.nan
    return X, y


def _mixed_model() -> bnb.NaiveBayes:
    return bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(bnb.Beta(2.0, 3.0)),
            "c": bnb.Categorical(bnb.Dirichlet([1.0, 2.0, 3.0])),  # one per category
            "g": bnb.Gaussian(),  # the default prior, resolved from the data
            "h": bnb.Binned([0.0, 2.5, 5.0, 10.0]),
        },
        class_prior=bnb.Dirichlet([2.0, 1.5]),
    )


def _blocks(n: int = 36, seed: int = 1) -> tuple[pd.DataFrame, np.ndarray]:
    """Columns for blocks: two Bernoulli, two categorical of different domains, one
    categorical of three values, two Gaussian; missing values in each."""
    rng = np.random.default_rng(seed)
    y = rng.choice([0, 1], n)
    X = pd.DataFrame(
        {
            "b1": rng.integers(0, 2, n).astype(float),
            "b2": (rng.random(n) < 0.5 + 0.3 * y).astype(float),
            "c1": rng.choice(["u", "v", "w"], n).astype(object),
            "c2": rng.choice(["x", "z"], n).astype(object),
            "c3": rng.choice(["lo", "mid", "hi"], n).astype(object),
            "g1": rng.normal(5.0 * y, 1.0),
            "g2": rng.normal(-1.0, 0.5 + y),
        }
    )
    X.loc[[0, 4], "b1"] = np.nan
    X.loc[[4, 6], "b2"] = np.nan
    X.loc[[1], "c1"] = None
    X.loc[[2, 3], "c2"] = None
    X.loc[[5], "c3"] = None
    X.loc[[6, 7], "g1"] = np.nan
    X.loc[[7, 8], "g2"] = np.nan
    return X, y


def _blocks_model() -> bnb.NaiveBayes:
    return bnb.NaiveBayes(
        {
            "bb": bnb.Bernoulli(bnb.Beta([2.0, 1.0], [1.0, 3.0]), columns=["b1", "b2"]),
            "cc": bnb.Categorical(bnb.Dirichlet(0.7), columns=["c1", "c2"]),
            "c3": bnb.Categorical(bnb.Dirichlet([[1.0, 2.0, 3.0], [3.0, 2.0, 1.5]])),  # per class
            "gg": bnb.Gaussian(
                bnb.NormalInverseGamma(mu=0.0, kappa=0.5, alpha=2.0, beta=3.0),
                columns=["g1", "g2"],
            ),
        }
    )


def _words(n: int = 30, seed: int = 2) -> tuple[pd.DataFrame, np.ndarray]:
    """Word counts (some rows empty) beside a Bernoulli column with missing values."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n)
    rates = np.where((y == "spam")[:, None], [0.5, 2.0, 0.2, 1.0], [2.0, 0.3, 0.8, 1.0])
    counts = rng.poisson(rates)
    counts[[3, 11]] = 0
    X = pd.DataFrame(counts, columns=["w1", "w2", "w3", "w4"])
    X["flag"] = (rng.random(n) < 0.5).astype(float)
    X.loc[[0, 7], "flag"] = np.nan
    return X, y


def _words_model() -> bnb.NaiveBayes:
    return bnb.NaiveBayes(
        {
            "words": bnb.Multinomial(bnb.Dirichlet(0.5), columns=["w1", "w2", "w3", "w4"]),
            "flag": bnb.Bernoulli(),
        }
    )


def _joint(n: int = 40, seed: int = 3) -> tuple[pd.DataFrame, np.ndarray]:
    """Two correlated columns (no value missing) beside a Gaussian and a Bernoulli
    column with missing values."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q"], n)
    base = rng.normal(size=(n, 2))
    X = pd.DataFrame(
        {
            "u": base[:, 0] + 2.0 * (y == "q"),
            "v": 0.7 * base[:, 0] + 0.5 * base[:, 1] + 40.0,
            "g": rng.normal(1.0, 1.0 + (y == "q")),
            "b": (rng.random(n) < 0.4).astype(float),
        }
    )
    X.loc[[2, 9], "g"] = np.nan
    X.loc[[4], "b"] = np.nan
    return X, y


def _joint_model() -> bnb.NaiveBayes:
    return bnb.NaiveBayes(
        {
            "uv": bnb.MultivariateGaussian(columns=["u", "v"]),  # the default prior
            "g": bnb.Gaussian(bnb.NormalInverseGamma(mu=0.0, kappa=0.5, alpha=2.0, beta=3.0)),
            "b": bnb.Bernoulli(),
        },
        class_prior=bnb.Dirichlet([1.5, 2.5]),
    )


CASES = {
    "mixed": (_mixed, _mixed_model),
    "blocks": (_blocks, _blocks_model),
    "words": (_words, _words_model),
    "joint": (_joint, _joint_model),
}


# -- the package's numpy side -----------------------------------------------------------------
def _numpy_log_density(fit, X, codes=None, weights=None) -> float:
    """The class Dirichlet's and every block's log prior density at ``fit``'s
    parameters, plus the log-likelihood from the package's kernels: a row with a known
    class code contributes its joint log-likelihood under that class, any other row
    the log-sum-exp over the classes; ``weights`` multiply the rows' terms."""
    k = len(fit.labels)
    total = float(bnb.Dirichlet(fit.class_prior.resolve(k)).logpdf(np.exp(fit.class_log_prob)))
    total += sum(
        block.log_prior(params) for block, params in zip(fit.blocks, fit.block_params, strict=True)
    )
    jll = fit.joint_log_likelihood(X)
    n = len(jll)
    codes = np.full(n, -1) if codes is None else np.asarray(codes)
    rows = np.where(
        codes >= 0, jll[np.arange(n), np.maximum(codes, 0)], special.logsumexp(jll, axis=1)
    )
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    return total + float(rows @ w)


def _at_draw(fit, seed: int):
    """The fitted model at one draw from the conjugate posterior of ``fit``'s statistics
    (a point that no estimator gives)."""
    rng = np.random.default_rng(seed)
    class_log_prob, params = posterior.draw(fit, posterior.hyperparameters(fit), 1, rng)
    return type(fit)(
        labels=fit.labels,
        blocks=fit.blocks,
        stats=fit.stats,
        block_params=params,
        class_counts=fit.class_counts,
        class_log_prob=class_log_prob[0],
        class_prior=fit.class_prior,
        estimates=fit.estimates,
        feature_names=fit.feature_names,
        is_frame=fit.is_frame,
        target=fit.target,
    )


def _codes(y, labels) -> np.ndarray:
    return pd.Index(labels).get_indexer(pd.Series(y, dtype=object))


# -- closed forms by hand -----------------------------------------------------------------------
def test_one_bernoulli_classifier_log_density_by_hand():
    X = pd.DataFrame({"x": [1.0, 0.0, 1.0, np.nan, 1.0]})
    y = ["a", "a", "b", "b", "b"]
    model = bnb.NaiveBayes({"x": bnb.Bernoulli(bnb.Beta(2.0, 3.0))})
    pm_model = model.to_pymc(X, y)
    params = xr.Dataset(
        {
            "class_prob": ("class_label", [0.4, 0.6]),
            "x": ("class_label", [0.3, 0.8]),
        },
        coords={"class_label": ["a", "b"]},
    )

    def log_beta23(t):  # Beta(2, 3): t (1 - t)^2 / B(2, 3), B(2, 3) = 1/12
        return math.log(12.0 * t * (1.0 - t) ** 2)

    expected = (
        0.0  # Dirichlet(1, 1): density 1 on the simplex
        + log_beta23(0.3)
        + log_beta23(0.8)
        + 2 * math.log(0.4)
        + math.log(0.3)
        + math.log(0.7)  # class a: x = 1, x = 0
        + 3 * math.log(0.6)
        + 2 * math.log(0.8)  # class b: x = 1, missing, x = 1
    )
    assert log_density(pm_model, params) == pytest.approx(expected, abs=TOL)


def test_one_bernoulli_mixture_log_density_by_hand():
    X = pd.DataFrame({"x": [1.0, 0.0, np.nan, 1.0]})
    weights = [1.0, 2.0, 1.0, 0.5]
    model = bnb.NaiveBayes({"x": bnb.Bernoulli(bnb.Beta(2.0, 3.0))}, bnb.Dirichlet(3.0))
    pm_model = model.to_pymc(X, n_components=2, sample_weight=weights)
    w, theta = np.array([0.25, 0.75]), np.array([0.2, 0.9])
    params = xr.Dataset(
        {"class_prob": ("component", w), "x": ("component", theta)},
        coords={"component": [0, 1]},
    )
    log_dir = math.log(math.gamma(6.0) / math.gamma(3.0) ** 2) + 2 * math.log(w[0] * w[1])
    log_prior = sum(math.log(12.0 * t * (1.0 - t) ** 2) for t in theta)
    one = math.log(w @ theta)
    zero = math.log(w @ (1.0 - theta))
    expected = log_dir + log_prior + 1.0 * one + 2.0 * zero + 0.0 + 0.5 * one  # NaN row: log 1
    assert log_density(pm_model, params) == pytest.approx(expected, abs=TOL)


def test_gaussian_semi_supervised_log_density_by_hand():
    X = pd.DataFrame({"g": [0.5, -1.0, 2.0, np.nan]})
    prior = bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=3.0, beta=4.0)
    model = bnb.NaiveBayes({"g": bnb.Gaussian(prior)})
    pm_model = model.to_pymc(X, y=["L", None, "R", "R"], n_components=2)
    w, mu, var = np.array([0.3, 0.7]), np.array([0.0, 1.5]), np.array([1.0, 2.5])
    params = xr.Dataset(
        {
            "class_prob": ("component", w),
            "g_mu": ("component", mu),
            "g_var": ("component", var),
        },
        coords={"component": ["L", "R"]},
    )

    def nig(m, v):  # InvGamma(3, 4) times Normal(1, v / 2)
        ig = 3.0 * math.log(4.0) - math.lgamma(3.0) - 4.0 * math.log(v) - 4.0 / v
        return ig + stats.norm.logpdf(m, 1.0, math.sqrt(v / 2.0))

    def normal(x, k):
        return stats.norm.logpdf(x, mu[k], math.sqrt(var[k]))

    expected = (
        math.log(w[0] * w[1]) * 0.0  # Dirichlet(1, 1): log density log Gamma(2) = 0
        + nig(mu[0], var[0])
        + nig(mu[1], var[1])
        + math.log(w[0])
        + normal(0.5, 0)  # known L
        + math.log(w[0] * math.exp(normal(-1.0, 0)) + w[1] * math.exp(normal(-1.0, 1)))
        + math.log(w[1])
        + normal(2.0, 1)  # known R
        + math.log(w[1])  # known R, value missing
    )
    assert log_density(pm_model, params) == pytest.approx(expected, abs=TOL)


# -- the classifier ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_classifier_log_density_equals_the_package(case):
    make_data, make_model = CASES[case]
    X, y = make_data()
    model = make_model()
    pm_model = model.to_pymc(X, y)
    fit = model.fit(X, y)
    codes = _codes(y, fit.labels)
    for point in (fit, _at_draw(fit, 3)):
        expected = _numpy_log_density(point, X, codes)
        assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


def test_classifier_log_density_with_sample_weight():
    X, y = _mixed()
    weights = np.random.default_rng(5).uniform(0.0, 3.0, len(y))
    weights[[0, 6]] = 0.0
    model = _mixed_model()
    pm_model = model.to_pymc(X, y, sample_weight=weights)
    fit = model.fit(X, y, sample_weight=weights)
    point = _at_draw(fit, 4)
    expected = _numpy_log_density(point, X, _codes(y, fit.labels), weights)
    assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


def test_classifier_from_a_target_column_and_the_default_gaussian_prior_per_class():
    X, y = _mixed()
    frame = X.assign(label=y)
    model = _mixed_model()
    pm_model = model.to_pymc(frame, target="label")
    fit = model.fit(X, y)
    # the fit resolves the default prior per class: its hyperparameters differ by class
    prior = fit.blocks[2].prior
    assert np.ptp(np.asarray(prior.mu)) > 0.5
    expected = _numpy_log_density(fit, X, _codes(y, fit.labels))
    assert log_density(pm_model, fit.params) == pytest.approx(expected, abs=TOL)


# -- the mixture -----------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_mixture_log_density_equals_the_package(case):
    make_data, make_model = CASES[case]
    X, _ = make_data()
    model = make_model()
    pm_model = model.to_pymc(X, n_components=2)
    em = model.cluster(X, 2, n_init=2, random_state=0)
    for point in (em, _at_draw(em, 7)):
        expected = _numpy_log_density(point, X)
        assert expected == pytest.approx(
            _prior_part(point) + float(np.sum(point.log_likelihood_rows(X))), abs=1e-9
        )
        assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


def _prior_part(fit) -> float:
    k = len(fit.labels)
    total = float(bnb.Dirichlet(fit.class_prior.resolve(k)).logpdf(np.exp(fit.class_log_prob)))
    return total + sum(b.log_prior(p) for b, p in zip(fit.blocks, fit.block_params, strict=True))


def test_mixture_of_three_components_with_weights():
    X, _ = _blocks()
    weights = np.random.default_rng(8).uniform(0.2, 2.0, len(X))
    weights[3] = 0.0
    model = bnb.NaiveBayes(
        {
            "bb": bnb.Bernoulli(bnb.Beta(2.0, 1.0), columns=["b1", "b2"]),
            "cc": bnb.Categorical(bnb.Dirichlet(0.7), columns=["c1", "c2"]),
            "c3": bnb.Categorical(bnb.Dirichlet([[1.0, 2.0, 3.0], [3.0, 2.0, 1.5], [1, 1, 1]])),
            "gg": bnb.Gaussian(columns=["g1", "g2"]),  # the pooled default prior
        },
        class_prior=bnb.Dirichlet(2.0),
    )
    pm_model = model.to_pymc(X, n_components=["a", "b", "c"], sample_weight=weights)
    em = model.cluster(X, ["a", "b", "c"], n_init=1, random_state=1, sample_weight=weights)
    point = _at_draw(em, 9)
    expected = _numpy_log_density(point, X, weights=weights)
    assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("case", ["mixed", "words", "joint"])
def test_semi_supervised_log_density_equals_the_package(case):
    make_data, make_model = CASES[case]
    X, y = make_data()
    partial = pd.Series(y, dtype=object)
    partial[np.random.default_rng(11).random(len(y)) < 0.6] = None
    model = make_model()
    weights = np.random.default_rng(12).uniform(0.5, 1.5, len(y))
    pm_model = model.to_pymc(X, partial, n_components=2, sample_weight=weights)
    em = model.cluster(X, 2, y=partial, n_init=1, random_state=0, sample_weight=weights)
    codes = _codes(partial, em.labels)
    assert (codes >= 0).sum() > 5 and (codes < 0).sum() > 5
    for point in (em, _at_draw(em, 13)):
        expected = _numpy_log_density(point, X, codes, weights)
        assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


def test_a_row_with_every_value_missing_adds_nothing_to_the_mixture():
    X, _ = _mixed()
    model = _mixed_model()
    em = model.cluster(X, 2, n_init=1, random_state=0)
    blank = pd.DataFrame({c: [np.nan] for c in X.columns}).astype({"c": object})
    wider = pd.concat([X, blank], ignore_index=True)
    point = _at_draw(em, 2)
    assert log_density(model.to_pymc(wider, n_components=2), point.params) == pytest.approx(
        log_density(model.to_pymc(X, n_components=2), point.params), abs=TOL
    )


def test_house_votes_mixture_log_density_equals_the_package():
    votes = bnb.datasets.house_votes_84()
    X = votes.drop(columns="party")
    assert X.isna().any().sum() > 10  # votes not cast: missing values in most columns
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2.0, 2.0), values=("n", "y")))
    pm_model = model.to_pymc(X, n_components=2)
    em = model.cluster(X, 2, n_init=2, random_state=0)
    for point in (em, _at_draw(em, 5)):
        expected = _prior_part(point) + float(np.sum(point.log_likelihood_rows(X)))
        assert log_density(pm_model, point.params) == pytest.approx(expected, abs=TOL)


def test_sparse_counts_give_the_log_density_of_the_dense_ones():
    X, y = _words()
    counts = X[["w1", "w2", "w3", "w4"]].to_numpy()
    model = bnb.NaiveBayes(bnb.Multinomial(bnb.Dirichlet(1.5)))
    em = model.cluster(counts, 2, n_init=1, random_state=0)
    point = _at_draw(em, 1)
    expected = _numpy_log_density(point, counts)
    for X_ in (counts, sparse.csr_array(counts), sparse.csr_matrix(counts)):
        assert log_density(model.to_pymc(X_, n_components=2), point.params) == pytest.approx(
            expected, abs=TOL
        )
    fit = model.fit(sparse.csr_array(counts), y)
    expected = _numpy_log_density(fit, counts, _codes(y, fit.labels))
    assert log_density(model.to_pymc(counts, y), fit.params) == pytest.approx(expected, abs=TOL)


# -- the families' design of their rows ------------------------------------------------------
def _bound(features, X):
    from bayesnb._data import Table

    table = Table(X, feature_names=None)
    return bnb.NaiveBayes(features).bind(table)[0], table


def test_bernoulli_design_reads_value_v_of_column_j_at_2j_plus_v():
    X = pd.DataFrame({"a": ["y", "n", None], "b": ["n", "n", "y"]})
    block, table = _bound({"f": bnb.Bernoulli(values=("n", "y"), columns=["a", "b"])}, X)
    index, value = block.design(table.take(block.columns))
    assert block.flat_size() == 4
    np.testing.assert_array_equal(index, [[1, 2], [0, 2], [4, 3]])  # 4: the padding
    np.testing.assert_array_equal(value, [[1, 1], [1, 1], [0, 1]])
    np.testing.assert_array_equal(block.log_offset(), np.zeros(4))


def test_categorical_and_binned_designs_read_each_column_from_its_segment():
    X = pd.DataFrame({"a": ["u", "w", None, "v"], "b": ["x", None, "z", "x"]})
    block, table = _bound({"f": bnb.Categorical(columns=["a", "b"])}, X)
    index, value = block.design(table.take(block.columns))
    assert block.flat_size() == 5  # u v w | x z
    np.testing.assert_array_equal(index, [[0, 3], [2, 5], [5, 4], [1, 3]])
    np.testing.assert_array_equal(value, [[1, 1], [1, 0], [0, 1], [1, 1]])
    X = pd.DataFrame({"h": [0.5, 3.0, np.nan, 10.0]})
    block, table = _bound({"h": bnb.Binned([0.0, 1.0, 4.0, 10.0])}, X)
    index, value = block.design(table.take(block.columns))
    np.testing.assert_array_equal(index[:, 0], [0, 1, 3, 2])  # the last bin holds its edge
    np.testing.assert_array_equal(value[:, 0], [1, 1, 0, 1])
    np.testing.assert_allclose(block.log_offset(), -np.log([1.0, 3.0, 6.0]))


def test_multinomial_design_lists_every_rows_counts_padded_to_the_longest():
    counts = np.array([[0, 2, 0, 1], [0, 0, 0, 0], [3, 1, 1, 1]])
    block, table = _bound(bnb.Multinomial(), sparse.csr_array(counts))
    index, value = block.design(table.take(block.columns))
    assert index.shape == (3, 4) and block.flat_size() == 4
    for row, (i, v) in enumerate(zip(index, value, strict=True)):
        dense = np.zeros(5)
        np.add.at(dense, i, v)
        np.testing.assert_array_equal(dense[:4], counts[row])
        assert dense[4] == 0.0  # the padding carries no count


# -- names, dims, coords ----------------------------------------------------------------------
def _check_layout(pm_model, params: xr.Dataset) -> None:
    free = {rv.name for rv in pm_model.free_RVs}
    deterministic = {d.name for d in pm_model.deterministics}
    assert free | deterministic == set(params.data_vars)
    assert not free & deterministic
    for name, da in params.data_vars.items():
        assert pm_model.named_vars_to_dims[name] == da.dims, name
        for dim in da.dims:
            assert [v for v in pm_model.coords[dim]] == da[dim].values.tolist(), (name, dim)


@pytest.mark.parametrize("case", sorted(CASES))
def test_names_dims_and_coords_equal_the_params(case):
    make_data, make_model = CASES[case]
    X, y = make_data()
    model = make_model()
    _check_layout(model.to_pymc(X, y), model.fit(X, y).params)
    _check_layout(
        model.to_pymc(X, n_components=2), model.cluster(X, 2, n_init=1, random_state=0).params
    )


def test_the_model_has_no_observed_variable_and_one_likelihood_term():
    X, y = _mixed()
    pm_model = _mixed_model().to_pymc(X, y)
    assert pm_model.observed_RVs == []
    assert [p.name for p in pm_model.potentials] == ["log_likelihood"]
    assert pm_model.named_vars_to_dims["c"] == ("class_label", "c_category")


def test_model_point_is_in_the_transformed_space():
    X, y = _mixed()
    model = _mixed_model()
    pm_model = model.to_pymc(X, y)
    fit = model.fit(X, y)
    point = model_point(pm_model, fit.params)
    assert set(point) == {vv.name for vv in pm_model.value_vars}
    # a variance is sampled on the log scale, a Beta's P(true) on the log-odds scale
    np.testing.assert_allclose(point["g_var_log__"], np.log(fit.params["g_var"].values))
    p = fit.params["b"].values
    np.testing.assert_allclose(point["b_logodds__"], np.log(p / (1 - p)))
    np.testing.assert_allclose(point["g_mu"], fit.params["g_mu"].values)
    # the simplex of K categories has K - 1 free coordinates
    assert point["c_simplex__"].shape == (2, 2)


def test_a_transposed_params_gives_the_same_point():
    X, y = _blocks()
    model = _blocks_model()
    pm_model = model.to_pymc(X, y)
    params = model.fit(X, y).params
    turned = params.transpose(*reversed(list(params.dims)))
    a, b = model_point(pm_model, params), model_point(pm_model, turned)
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_import_of_the_package_does_not_build_pymc_models():
    import subprocess
    import sys

    code = "import sys, bayesnb; print('pymc' in sys.modules, 'pytensor' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# -- NUTS against the exact posterior ---------------------------------------------------------
def _nuts_data(n: int = 60, seed: int = 21) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n, p=[0.4, 0.6])
    yes = y == "yes"
    X = pd.DataFrame(
        {
            "windy": (rng.random(n) < np.where(yes, 0.3, 0.7)).astype(float),
            "outlook": np.where(
                yes, rng.choice(["rain", "sun", "cloud"], n), rng.choice(["rain", "sun"], n)
            ).astype(object),
            "temp": rng.normal(np.where(yes, 22.0, 17.0), 3.0),
        }
    )
    X.loc[[2, 9], "windy"] = np.nan
    X.loc[[4], "outlook"] = None
    X.loc[[5, 11], "temp"] = np.nan
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["pymc", "nutpie"])
def test_nuts_posterior_means_meet_the_exact_posterior(sampler):
    import arviz as az

    if sampler == "nutpie":
        pytest.importorskip("nutpie")

    X, y = _nuts_data()
    model = bnb.NaiveBayes(
        {
            "windy": bnb.Bernoulli(bnb.Beta(1.0, 1.0)),
            "outlook": bnb.Categorical(bnb.Dirichlet(1.0)),
            "temp": bnb.Gaussian(bnb.NormalInverseGamma(mu=20.0, kappa=0.1, alpha=2.0, beta=10.0)),
        }
    )
    fit = model.fit(X, y, estimate="mean")
    exact = fit.params.copy()
    # E[sigma] of the InvGamma(alpha_n, beta_n) variance: sqrt(beta_n) G(alpha_n - 1/2) / G(alpha_n)
    hyper = fit.blocks[2].posterior_hyper(fit.stats[2])
    a_n, b_n = hyper["alpha"][:, 0], hyper["beta"][:, 0]
    exact["temp_sigma"] = (
        ("class_label",),
        np.sqrt(b_n) * np.exp(special.gammaln(a_n - 0.5) - special.gammaln(a_n)),
    )
    np.testing.assert_allclose(exact["temp_var"].values, b_n / (a_n - 1.0))
    pm_model = model.to_pymc(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sampler's progress and tuning notes
        tree = pm.sample(
            draws=500,
            tune=500,
            chains=2,
            cores=1,
            random_seed=20240613,
            progressbar=False,
            compute_convergence_checks=False,
            model=pm_model,
            nuts_sampler=sampler,
        )
    post = tree["posterior"].to_dataset() if hasattr(tree, "children") else tree.posterior
    ess = az.ess(post)
    checked = 0
    for name, truth in exact.data_vars.items():
        draws = post[name]
        mean = draws.mean(("chain", "draw"))
        mcse = draws.std(("chain", "draw")) / np.sqrt(ess[name])
        z = np.abs(mean - truth.transpose(*mean.dims)) / mcse
        assert float(z.max()) < 4.0, (name, z.values)
        checked += truth.size
    assert checked == 2 + 2 + 6 + 2 * 3


def test_boundary_parameters_are_refused_with_a_clear_error():
    """A maximum-likelihood fit of play-tennis has P(Overcast | No) = 0, which the
    sampler's unconstrained space cannot hold: a named error, not NaN."""
    import warnings

    from bayesnb.pymc_model import classifier_model, log_density

    tennis = bnb.datasets.play_tennis()
    model = classifier_model(bnb.NaiveBayes().fit(tennis, target="play"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        ml = bnb.NaiveBayes().fit(tennis, target="play", estimate="ml")
    with pytest.raises(bnb.InputError, match=r"outlook_simplex.*boundary"):
        log_density(model, ml.params)
