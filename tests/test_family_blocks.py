"""Blocks of columns: a Categorical (or Binned) block encoded as mixed-radix group codes,
and the Gaussian's single read (lazy missing values, prior pooled from the counts).

Every number is checked against an independent computation: one feature per column of
a DataFrame, an explicit one-hot sum, numpy's per-class moments, or scipy densities.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb as bnb
from bayesnb._data import Table
from bayesnb.families import _kernels as families

# -- Categorical blocks ------------------------------------------------------------------


@pytest.fixture
def ragged():
    """Integer columns with different domains, one of them wide (its own code group)."""
    rng = np.random.default_rng(11)
    n = 600
    y = rng.integers(0, 3, n)
    X = np.column_stack(
        [
            rng.integers(0, 3, n),
            rng.choice([3, 7, 9], n),
            (rng.integers(0, 2, n) + y) % 3,  # depends on the class
            rng.integers(0, 40, n),
            rng.integers(0, 2, n),
            rng.integers(-2, 2, n),
        ]
    )
    return X, y


def per_column(X):
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])


@pytest.mark.parametrize("estimate", ["map", "mean"])
def test_array_block_equals_one_feature_per_column(ragged, estimate):
    X, y = ragged
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    block = model.fit(X, y, estimate=estimate)
    columns = model.fit(per_column(X), y, estimate=estimate)
    assert [b.name for b in block.blocks] == ["X"]
    assert block.blocks[0].column_categories == [b.categories for b in columns.blocks]
    assert block.blocks[0].categories is None  # the domains differ
    for j in range(X.shape[1]):
        name = f"x{j}"
        np.testing.assert_array_equal(block.counts[name].values, columns.counts[name].values)
        np.testing.assert_allclose(block.params[name].values, columns.params[name].values)
        assert list(block.params[f"{name}_category"].values) == sorted(set(X[:, j]))
    np.testing.assert_allclose(
        block.joint_log_likelihood(X), columns.joint_log_likelihood(per_column(X)), rtol=1e-13
    )
    assert block.n_free_parameters() == columns.n_free_parameters()
    assert block.n_parameters() == columns.n_parameters()


def test_unseen_values_in_an_array_block(ragged):
    X, y = ragged
    model = bnb.NaiveBayes(bnb.Categorical())
    fit = model.fit(X, y, estimate="mean")
    reference = model.fit(per_column(X), y, estimate="mean")
    new = X[:5].copy()
    new[0, 1] = 4  # between the seen values 3 and 7
    new[1, 3] = 40  # just past the range of a column whose categories are 0..39
    new[2, 5] = -3  # below
    np.testing.assert_allclose(
        fit.predict_proba(new), reference.predict_proba(per_column(new)), rtol=1e-13
    )
    # Marginalized: the row scores like the same row without that column.
    drop = model.fit(np.delete(X, 3, axis=1), y, estimate="mean")
    np.testing.assert_allclose(
        fit.joint_log_likelihood(new[1:2]),
        drop.joint_log_likelihood(np.delete(new[1:2], 3, axis=1)),
        rtol=1e-13,
    )
    strict = bnb.NaiveBayes(bnb.Categorical(unseen="error")).fit(X, y, estimate="mean")
    with pytest.raises(ValueError, match=r"feature 'x3' got the value 40, which is not among"):
        strict.predict(new[1:2])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint64, np.int16])
def test_unseen_values_of_any_integer_dtype(ragged, dtype):
    X, y = ragged
    X = X[:, [0, 2, 3, 4]]  # non-negative columns
    model = bnb.NaiveBayes(bnb.Categorical())
    fit = model.fit(X.astype(dtype), y, estimate="mean")
    new = X[:4].copy()
    new[0, 0], new[1, 2] = 3, 200  # past the domains 0..2 and 0..39
    expected = model.fit(X, y, estimate="mean").predict_proba(new)
    np.testing.assert_allclose(fit.predict_proba(new.astype(dtype)), expected, rtol=1e-13)
    ragged_fit = model.fit(np.column_stack([X, 5 + X[:, :1]]).astype(dtype), y, estimate="mean")
    assert ragged_fit.blocks[0].column_categories[-1] == [5, 6, 7]  # not a range: by column
    wide = np.column_stack([new, np.full(4, 255)]).astype(dtype)
    np.testing.assert_allclose(ragged_fit.predict_proba(wide[:1]), expected[:1], rtol=1e-13)


def test_shared_categories_have_a_category_axis():
    rng = np.random.default_rng(2)
    X, y = rng.integers(0, 4, (300, 5)), rng.integers(0, 2, 300)
    alpha = np.array([[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]])  # one row per class
    fit = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(alpha), categories=range(4))).fit(
        X, y, estimate="mean"
    )
    block = fit.blocks[0]
    assert fit.stats[0]["counts"].shape == (2, 5, 4)  # (labels, columns, categories)
    assert block.category_labels() == [0, 1, 2, 3]
    for j in range(5):
        for k in range(2):
            counts = np.bincount(X[y == k, j], minlength=4)
            expected = (counts + alpha[k]) / (counts.sum() + alpha[k].sum())
            np.testing.assert_allclose(fit.params[f"x{j}"].sel(class_label=k).values, expected)


def test_ragged_block_layout_and_its_guard(ragged):
    X, y = ragged
    block = bnb.NaiveBayes().fit(X, y, estimate="mean").blocks[0]
    sizes = [3, 3, 3, 40, 2, 4]
    assert block.column_sizes() == sizes
    np.testing.assert_array_equal(block.segments(), np.cumsum([0, *sizes[:-1]]))
    with pytest.raises(ValueError, match="have different categories"):
        block.category_labels()
    # The concentration lies in the flat layout, each column's part at its segment
    # (the model-choice tests check the Dirichlets taken over those parts).
    np.testing.assert_array_equal(block._alpha(3, (sum(sizes),)), np.ones((3, sum(sizes))))


def test_group_codes_count_and_score_like_the_one_hot_design():
    rng = np.random.default_rng(5)
    sizes = (1, 2, 5, 300, 3, 9000, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 7)
    n, K = 2000, 3
    codes = np.column_stack([rng.integers(-1, s, n) for s in sizes])  # -1: missing
    groups = families._code_groups(sizes)
    # bases 2 * 3 * 6 = 36 (times 301 would pass 8192); 301 * 4; 9001 alone; ...
    assert [g[:2] for g in groups][:3] == [(0, 3), (3, 5), (5, 6)]
    assert all(g[2] <= families._GROUP_CODES or g[1] - g[0] == 1 for g in groups)
    enc, outside, first = families._group_codes(codes, sizes)
    assert outside == int((codes < 0).sum())
    assert first == int(np.flatnonzero(codes.ravel() < 0)[0])
    resp = rng.dirichlet(np.ones(K), size=n)  # soft, as in EM
    resp[::3] = np.eye(K)[rng.integers(0, K, len(resp[::3]))] * 2.5  # weighted labels
    resp[1::7] = 0.0  # rows of weight 0
    offsets = np.cumsum([0, *sizes])

    def expected_counts(resp):
        out = np.zeros((K, offsets[-1]))
        for j, size in enumerate(sizes):
            for v in range(size):
                out[:, offsets[j] + v] = resp[codes[:, j] == v].sum(axis=0)
        return out

    expected = expected_counts(resp)
    np.testing.assert_allclose(families._group_counts(enc, resp, sizes), expected, rtol=1e-12)
    # The same counts with the group codes made block by block from the codes.
    flat, got_outside, got_first = families._value_counts(codes, resp, sizes)
    np.testing.assert_allclose(flat, expected, rtol=1e-12)
    assert (got_outside, got_first) == (outside, first)
    # Class labels with weights: the same counts as their one-hot matrix.
    labels = families.Labels(rng.integers(0, K, n), K, rng.uniform(0, 3, n))
    by_labels = expected_counts(labels.dense())
    np.testing.assert_allclose(families._group_counts(enc, labels, sizes), by_labels, rtol=1e-12)
    by_values = families._value_counts(codes, labels, sizes)[0]
    np.testing.assert_allclose(by_values, by_labels, rtol=1e-12)
    np.testing.assert_allclose(labels.totals(), labels.dense().sum(axis=0), rtol=1e-12)
    logp = np.log(rng.random((K, offsets[-1])))
    logp[1, offsets[2] + 3] = -np.inf  # a zero probability reaches only its rows
    score = np.zeros((n, K))
    for j in range(len(sizes)):
        seen = codes[:, j] >= 0
        score[seen] += logp[:, offsets[j] + codes[seen, j]].T
    finite = np.isfinite(score)
    for got in (
        families._group_lookup(enc, logp, sizes),
        families._value_lookup(codes, logp, sizes)[0],
    ):
        np.testing.assert_array_equal(np.isneginf(got), np.isneginf(score))
        np.testing.assert_allclose(got[finite], score[finite], rtol=1e-12)


def test_group_codes_read_other_values_as_missing():
    """Codes past a column's size, NaN, and huge unsigned integers all get digit 0."""
    sizes = (3, 4)
    codes = np.array([[0, 3], [3, 1], [2, 4], [-5, 0]])
    enc, outside, first = families._group_codes(codes, sizes)
    # digits (v + 1, or 0): place values 1 and 4
    np.testing.assert_array_equal(enc[:, 0], [1 + 4 * 4, 0 + 4 * 2, 3 + 4 * 0, 0 + 4 * 1])
    assert (outside, first) == (3, 2)
    floats = np.array([[0.0, np.nan], [np.nan, 3.0]])
    enc, outside, first = families._group_codes(floats, sizes)
    np.testing.assert_array_equal(enc[:, 0], [1, 4 * 4])
    assert (outside, first) == (2, 1)
    huge = np.array([[2**63 + 1, 2]], dtype=np.uint64)
    enc, outside, first = families._group_codes(huge, sizes)
    np.testing.assert_array_equal(enc[:, 0], [4 * 3])
    assert (outside, first) == (1, 0)


def test_block_round_trips_through_save_and_load(ragged, tmp_path):
    X, y = ragged
    shared = bnb.NaiveBayes(bnb.Categorical(categories=range(-2, 40))).fit(X, y, estimate="mean")
    for fit in (bnb.NaiveBayes().fit(X, y, estimate="mean"), shared):
        path = tmp_path / "model.nc"
        fit.save(path)
        again = bnb.load(path)
        np.testing.assert_array_equal(again.predict_proba(X), fit.predict_proba(X))
        assert again.blocks[0].column_categories == fit.blocks[0].column_categories
        assert again.params.equals(fit.params)


def test_mixture_on_an_array_block_follows_the_per_column_model():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 4))
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    block = model.cluster(X, 2, n_init=1, random_state=0)
    columns = model.cluster(per_column(X), 2, n_init=1, random_state=0)
    np.testing.assert_allclose(block.history, columns.history, rtol=1e-12)
    np.testing.assert_allclose(block.params["x2"].values, columns.params["x2"].values)


def test_binned_block_over_an_array():
    rng = np.random.default_rng(8)
    X, y = rng.uniform(0, 10, (400, 3)), rng.integers(0, 2, 400)
    X[::7, 1] = np.nan
    edges = [0, 2, 5, 10]
    block = bnb.NaiveBayes(bnb.Binned(edges)).fit(X, y, estimate="mean")
    columns = bnb.NaiveBayes(bnb.Binned(edges)).fit(per_column(X), y, estimate="mean")
    assert [b.name for b in block.blocks] == ["X"]
    np.testing.assert_allclose(
        block.joint_log_likelihood(X), columns.joint_log_likelihood(per_column(X)), rtol=1e-13
    )
    assert list(block.params["x1_lower"].values) == [0, 2, 5]
    bad = X[:1].copy()
    bad[0, 2] = 11.0
    with pytest.raises(ValueError, match="Binned feature 'x2' has edges from 0 to 10; got 11"):
        block.predict(bad)


# -- Gaussian --------------------------------------------------------------------------------


def test_default_prior_pooled_from_the_counts_equals_the_data_moments():
    rng = np.random.default_rng(4)
    X, y = rng.normal(50.0, 3.0, (500, 3)), rng.integers(0, 3, 500)
    X[::9, 0] = np.nan
    w = rng.integers(0, 4, 500).astype(float)
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="map", sample_weight=w)
    prior = fit.blocks[0].prior
    observed = ~np.isnan(X)
    # A classifier's default: every class's prior centred on its own weighted mean,
    # beta = alpha (1) times its own weighted 1/N variance.
    for k in range(3):
        for j in range(3):
            rows = observed[:, j] & (y == k)
            x, wj = X[rows, j], w[rows]
            mean = np.average(x, weights=wj)
            assert prior.mu[k, j] == pytest.approx(mean, rel=1e-13)
            var = np.average((x - mean) ** 2, weights=wj)
            assert prior.beta[k, j] == pytest.approx(var, rel=1e-11)
    # EM binds without counts: one prior from the weighted mean and variance of all
    # rows, beta half that variance over K^2 (K = 1 when no number of components is
    # given: the rows as one component).
    for k in (None, 3):
        bound = bnb.NaiveBayes(bnb.Gaussian()).bind(Table(X), w, n_labels=k)[0].prior
        for j in range(3):
            x, wj = X[observed[:, j], j], w[observed[:, j]]
            mean = np.average(x, weights=wj)
            var = np.average((x - mean) ** 2, weights=wj)
            assert bound.mu[j] == pytest.approx(mean, rel=1e-13)
            assert bound.beta[j] == pytest.approx(var / 2 / (k or 1) ** 2, rel=1e-11)


def test_variances_far_from_zero_and_exact_zero_variance():
    rng = np.random.default_rng(6)
    n = 40_000  # several blocks of rows
    y = np.repeat([0, 1], n // 2)
    X = 1e8 + rng.normal(0.0, 1e-2, (n, 2)) * (1 + y[:, None])
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    for k in (0, 1):
        np.testing.assert_allclose(
            fit.params.X_var.sel(class_label=k), X[y == k].var(axis=0), rtol=1e-8
        )
    # A column constant within class 1, near the centre taken from class 0's rows: its
    # sum of squares must come out exactly 0, so ML refuses the infinite density.
    X[y == 1, 0] = 1e8 + 1e-3
    with pytest.raises(ValueError, match="zero variance"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")


def test_an_outlier_among_the_first_rows_does_not_spoil_the_centre():
    rng = np.random.default_rng(12)
    X, y = rng.normal(5.0, 1e-3, (3000, 1)), np.arange(3000) % 2
    X[0] = 1e9  # class 0's outlier, among the rows the centre is taken from
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    assert fit.params.X_var.sel(class_label=1).item() == pytest.approx(X[y == 1].var(), rel=1e-9)
    assert fit.params.X_mu.sel(class_label=0).item() == pytest.approx(X[y == 0].mean(), rel=1e-12)


def test_missing_values_found_late_are_marginalized():
    rng = np.random.default_rng(1)
    n = 30_000
    X, y = rng.normal(size=(n, 3)), rng.integers(0, 2, n)
    X[-3:, 1] = np.nan  # only the last block of rows has any
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    for k in (0, 1):
        rows = (y == k) & ~np.isnan(X[:, 1])
        assert fit.params.X_mu.sel(class_label=k, X_feature="x1").item() == pytest.approx(
            X[rows, 1].mean(), rel=1e-12
        )
        assert fit.counts.X_n.sel(class_label=k, X_feature="x1").item() == rows.sum()
    jll = fit.joint_log_likelihood(X[-5:])
    mu, sigma = fit.params.X_mu.values, fit.params.X_sigma.values
    for k in (0, 1):
        dens = stats.norm(mu[k], sigma[k]).logpdf(X[-5:])
        expected = np.log(fit.params.class_prob.values[k]) + np.nansum(dens, axis=1)
        np.testing.assert_allclose(jll[:, k], expected, rtol=1e-12)


def test_infinite_values_are_clear_errors():
    X, y = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 2.5], [3.0, 0.5]]), [0, 0, 1, 1]
    bad = X.copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="Gaussian feature 'X' has an infinite value"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(bad, y)
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y)
    with pytest.raises(ValueError, match="has an infinite value"):
        fit.predict(bad)
    empty = X.copy()
    empty[:, 0] = np.nan
    with pytest.raises(ValueError, match="has a column with no observed value"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(empty, y)


@pytest.mark.parametrize("dtype", [float, np.uint8, bool])
def test_bernoulli_codes_for_em_count_and_score_like_the_products(dtype):
    # EM reads a Bernoulli block as group codes (encode_repeated); the classifier as a
    # 0/1 design (encode). Both give the same statistics and log-likelihoods, missing
    # values (float only) and zero probabilities included.
    rng = np.random.default_rng(11)
    n, d, K = 500, 19, 4  # 19 columns: groups of 8, 8 and 3
    X = (rng.random((n, d)) < 0.3).astype(dtype)
    if dtype is float:
        X[rng.random((n, d)) < 0.1] = np.nan
    block = bnb.Bernoulli().bind("X", [f"x{j}" for j in range(d)], X)
    dense, codes = block.encode(X), block.encode_repeated(X)
    assert codes.shape == (n, 3)
    resp = rng.dirichlet(np.ones(K), size=n)
    resp[::4] = np.eye(K)[rng.integers(0, K, len(resp[::4]))]
    np.testing.assert_allclose(
        block.count(codes, resp)["counts"], block.count(dense, resp)["counts"], rtol=1e-12
    )
    logp = np.log(rng.dirichlet([1.0, 1.0], size=(K, d)))
    logp[2, 5, 1] = -np.inf  # theta = 0 for x5 under component 2
    got, expected = (block.log_likelihood(e, {"log_prob": logp}) for e in (codes, dense))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    assert np.isneginf(got).any()
    np.testing.assert_allclose(got[np.isfinite(got)], expected[np.isfinite(got)], rtol=1e-12)
    # A classifier's labels: one read counts them by label (or, with a value missing,
    # the checked form does), the same counts as the one-hot product.
    labels = families.Labels(rng.integers(0, K, n), K, rng.uniform(0.5, 2.0, n))
    np.testing.assert_allclose(
        block.count(dense, labels)["counts"],
        block.count(block._checked(dense), labels.dense())["counts"],
        rtol=1e-12,
    )


def test_bernoulli_label_count_rejects_other_values():
    X = np.array([[0.0, 1.0], [2.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="needs 0/1 values"):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(X, [0, 1, 0])
    with pytest.raises(ValueError, match="needs 0/1 values"):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(X.astype(np.int64), [0, 1, 0])


@pytest.mark.parametrize(
    "X",
    [
        np.array([[0, 255], [4, 7], [4, 0]]),  # marked in one read
        np.array([[0, 256], [4, 7], [4, 0]]),  # 256: the ranges, then a table
        np.array([[-1, 5], [3, 5], [3, 2]], dtype=np.int8),
        np.array([[2**64 - 1, 1], [0, 1]], dtype=np.uint64),  # huge: sorted per column
    ],
)
def test_integer_categories_are_each_columns_distinct_values(X):
    from bayesnb.families.discrete import _integer_categories

    assert _integer_categories(X) == [np.unique(X[:, j]).tolist() for j in range(X.shape[1])]


@pytest.mark.parametrize("missing", [False, True])
def test_label_counts_equal_the_one_hot_products(missing):
    """A classifier's labels are counted by compiled reads of the block (Gaussian
    moments, Bernoulli ones); a missing value sends the block through the products.
    Both give the statistics of the one-hot responsibilities."""
    rng = np.random.default_rng(8)
    n, K = 3000, 3
    labels = families.Labels(rng.integers(0, K, n), K, rng.uniform(0.2, 3.0, n))
    X = rng.normal(50.0, 2.0, size=(n, 7))  # far from 0: the centring matters
    B = (rng.random((n, 5)) < 0.4).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.05] = np.nan
        B[rng.random(B.shape) < 0.05] = np.nan
    for family, data in ((bnb.Gaussian(), X), (bnb.Bernoulli(), B)):
        block = family.bind("X", [f"x{j}" for j in range(data.shape[1])], data)
        enc = block.encode(data)
        got, want = block.count(enc, labels), block.count(enc, labels.dense())
        assert set(got) == set(want)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-10, atol=1e-9)


def test_bernoulli_draws_are_in_the_datas_coding():
    rng = np.random.default_rng(0)
    logp = np.log(np.array([[[0.9, 0.1]], [[0.2, 0.8]]]))  # (K=2, 1 column, 2)
    components = np.repeat([0, 1], 20_000)
    votes = bnb.Bernoulli(values=("n", "y")).bind("v", ["v"], pd.DataFrame({"v": ["n", "y"]}))
    draws = votes.sample({"log_prob": logp}, components, rng)
    assert draws.dtype == object and set(np.unique(draws)) == {"n", "y"}
    binary = bnb.Bernoulli().bind("b", ["b"], np.array([[0], [1]]))
    draws = binary.sample({"log_prob": logp}, components, rng)
    assert draws.dtype == np.int64
    # P(1 | component) is 0.1 and 0.8; 20 000 draws each: 4 standard errors apart
    np.testing.assert_allclose(
        [draws[:20_000].mean(), draws[20_000:].mean()], [0.1, 0.8], atol=4 * 0.0029
    )


def test_multinomial_block_cannot_be_sampled_without_lengths():
    block = bnb.Multinomial().bind("words", ["a", "b"], np.array([[1, 0], [0, 2]]))
    with pytest.raises(TypeError, match="needs document lengths"):
        block.sample({"log_prob": np.log(np.full((1, 2), 0.5))}, np.zeros(3, int), None)


# -- column-major blocks (a DataFrame's memory order) -----------------------------------


def _one_hot_ones(x, codes, n_labels, weights):
    """The ones of every column by label: the one-hot product, by numpy."""
    w = np.ones(len(codes)) if weights is None else weights
    onehot = np.zeros((len(codes), n_labels))
    onehot[np.arange(len(codes)), codes] = w
    return onehot.T @ x.astype(float)


@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int64, np.float64])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_labels", [3, 40])  # 40: past the masks, the row loop
def test_column_major_label_counts_equal_the_one_hot_product(dtype, weighted, n_labels):
    """A column-major 0/1 block (more rows than one block of masks) is counted by its
    columns; the counts are the one-hot product's, exact for unweighted data."""
    from bayesnb.families.discrete import _label_counts

    rng = np.random.default_rng(3)
    n = 9000
    codes = rng.integers(0, n_labels, n)
    weights = rng.uniform(0.5, 2.0, n) if weighted else None
    x = np.asfortranarray(rng.random((n, 6)) < 0.3).astype(dtype, order="F")
    assert x.flags.f_contiguous and not x.flags.c_contiguous
    ones = np.zeros((n_labels, 6))
    assert _label_counts(x, families.Labels(codes, n_labels, weights), ones) == 0
    want = _one_hot_ones(x, codes, n_labels, weights)
    if weighted:
        np.testing.assert_allclose(ones, want, rtol=1e-12)
    else:
        np.testing.assert_array_equal(ones, want)


@pytest.mark.parametrize("bad", [2, np.nan])
def test_column_major_label_counts_count_other_values(bad):
    from bayesnb.families.discrete import _label_counts

    x = np.zeros((50, 3), order="F")
    x[10, 1] = x[40, 2] = bad
    ones = np.zeros((2, 3))
    assert _label_counts(x, families.Labels(np.arange(50) % 2, 2), ones) == 2
    frame = pd.DataFrame(x.astype(np.int64) if bad == 2 else x, columns=["a", "b", "c"])
    if bad == 2:  # a frame's column-major block is rejected, naming its column
        with pytest.raises(ValueError, match="column 'b' has a value other than 0/1"):
            bnb.NaiveBayes(bnb.Bernoulli(columns=["a", "b", "c"])).fit(frame, np.arange(50) % 2)


@pytest.mark.parametrize("n_categories", [5, 300])  # int8 and int16 codes
def test_category_frame_codes_score_like_the_array(n_categories):
    """pandas ``category`` columns are read by their codes, in the smallest integer
    type that holds them; the fit and the predictions equal those of the same data
    as an integer array, and an unseen value at prediction is marginalized."""
    rng = np.random.default_rng(5)
    n = 9000  # every category seen in every column
    y = rng.integers(0, 3, n)
    X = (rng.integers(0, n_categories, (n, 4)) + y[:, None]) % n_categories
    frame = pd.DataFrame({f"x{j}": pd.Categorical(X[:, j]) for j in range(4)})
    by_frame = bnb.NaiveBayes().fit(frame, y)
    by_array = bnb.NaiveBayes(bnb.Categorical()).fit(X, y)
    codes = by_frame.blocks[0].codes(frame)
    assert codes.dtype == (np.int8 if n_categories < 127 else np.int16)
    np.testing.assert_allclose(
        by_frame.predict_proba(frame), by_array.predict_proba(X), rtol=1e-12, atol=1e-15
    )
    # one unseen value (a new category) and one missing: both marginalized
    new = frame.iloc[:2].copy()
    for j in range(4):
        new[f"x{j}"] = pd.Categorical([n_categories + 1, None])
    p = by_frame.predict_proba(new)
    np.testing.assert_allclose(p, np.exp(by_frame.class_log_prob)[None].repeat(2, 0), rtol=1e-12)


def test_gaussian_moments_take_one_compiled_type_of_data(monkeypatch):
    """Writable or read-only, C-ordered, column-major or strided, the values (and the
    weights) reach the compiled moments as one type (each type would compile the read
    again, about 8 s), and give numpy's counts, means and sums of squares."""
    import numba

    from bayesnb import _compiled

    rng = np.random.default_rng(3)
    x = rng.normal(5.0, 2.0, size=(300, 6))
    y = rng.integers(0, 2, 300)
    ro = x.copy()
    ro.flags.writeable = False
    ro_f = np.asfortranarray(x)
    ro_f.flags.writeable = False
    weights = rng.uniform(0.5, 2.0, 300)
    ro_w = weights.copy()
    ro_w.flags.writeable = False
    inputs = [x, ro, np.asfortranarray(x), ro_f, np.repeat(x, 2, axis=1)[:, ::2]]
    seen = []
    bnb.Gaussian().bind("X", ["x"], x[:, :1]).count(x[:, :1], families.Labels(y, 2))
    compiled = _compiled.dense_moments  # (the dispatcher, once a call has loaded it)

    def spy(rows, columns, labels, w, *rest):
        seen.append(numba.typeof((rows, columns, w)))
        return compiled(rows, columns, labels, w, *rest)

    monkeypatch.setattr(_compiled, "dense_moments", spy)
    for w in (weights, ro_w):
        for values in inputs:
            block = bnb.Gaussian().bind("X", [f"x{j}" for j in range(6)], values)
            got = block.count(values, families.Labels(y, 2, w))
            for k in range(2):
                wk, v = w[y == k], x[y == k]
                mean = wk @ v / wk.sum()
                np.testing.assert_allclose(got["n"][k], wk.sum(), rtol=1e-13)
                np.testing.assert_allclose(got["mean"][k], mean, rtol=1e-13)
                np.testing.assert_allclose(got["ss"][k], wk @ (v - mean) ** 2, rtol=1e-12)
    # every binding's pooled moments (unweighted) and every count (weighted): two types
    assert len(seen) == 20 and len(set(seen)) == 2, [str(t) for t in set(seen)]


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("rows", ["labels", "one-hot", "soft"])
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("K", [1, 2, 3, 4, 6])
def test_column_major_gaussian_moments_equal_numpys(missing, rows, unit, K):
    """A column-major block (a DataFrame's) is summed column by column: four classes
    per read when every row has one class (class labels, weighted or not, or
    responsibilities of one non-zero entry), else two components per read (an odd
    last one alone). The counts, means and centred sums of squares are numpy's
    weighted ones, over several blocks, at a large offset and with the rows sorted by
    value (the blocks' second pass), missing values left out."""
    rng = np.random.default_rng(12)
    n = 40_000  # several blocks of 16384 rows
    x = np.sort(rng.normal(1e6, 3.0, size=(n, 5)), axis=0)  # sorted: far from a centre
    if missing:
        x[rng.random(x.shape) < 0.05] = np.nan
    xf = np.asfortranarray(x)
    assert xf.T.flags.c_contiguous
    codes = rng.integers(0, K, n)
    w = np.ones(n) if unit else rng.uniform(0.5, 2.0, n)
    labels = families.Labels(codes, K, None if unit else w)
    soft = rows == "soft"
    resp = rng.dirichlet(np.ones(K), size=n) if soft else labels.dense()
    block = bnb.Gaussian().bind("X", [f"x{j}" for j in range(5)], x)
    got = block.count(xf, labels if rows == "labels" else resp)
    for k in range(K):
        rk = resp[:, k] if soft else np.where(codes == k, w, 0.0)
        for j in range(5):
            ok = ~np.isnan(x[:, j])
            wk, v = rk[ok], x[ok, j]
            n_kj = wk.sum()
            mean = np.sum(wk * v) / n_kj
            ss = np.sum(wk * (v - mean) ** 2)
            assert got["n"][k, j] == pytest.approx(n_kj, rel=1e-12)
            assert got["mean"][k, j] == pytest.approx(mean, rel=1e-14)
            assert got["ss"][k, j] == pytest.approx(ss, rel=1e-9)


def test_whole_number_floats_are_read_as_categories_by_arithmetic():
    """A float array of whole numbers (NaN missing) declared Categorical: its
    categories and codes come by arithmetic, and equal the same values read one by one
    as objects (pandas' indexer). An unseen value, whole or not, is marginalized."""
    rng = np.random.default_rng(13)
    n = 2000
    y = rng.integers(0, 3, n)
    X = ((rng.integers(0, 4, (n, 3)) + y[:, None]) % 4 - 1).astype(float)  # -1.0 .. 2.0
    X[rng.random(X.shape) < 0.05] = np.nan
    fast = bnb.NaiveBayes(bnb.Categorical()).fit(X, y)
    slow = bnb.NaiveBayes(bnb.Categorical()).fit(X.astype(object), y)
    assert fast.blocks[0].column_categories == [[-1.0, 0.0, 1.0, 2.0]] * 3
    assert all(isinstance(c, float) for c in fast.blocks[0].column_categories[0])
    new = np.array([[0.0, 1.0, 2.0], [7.0, 2.5, np.nan], [-1.0, np.nan, 0.0]])
    p_fast = fast.predict_proba(new)
    p_slow = slow.predict_proba(new.astype(object))
    np.testing.assert_allclose(p_fast, p_slow, rtol=1e-13)
    np.testing.assert_allclose(fast.predict_proba(X), slow.predict_proba(X.astype(object)))
    # a row of unseen or missing values only: the class prior
    np.testing.assert_allclose(p_fast[1], np.exp(fast.class_log_prob), rtol=1e-12)


def test_gaussian_frame_columns_equal_single_column_fits():
    """A frame of float columns is bound, counted and estimated as one block and split
    into one feature per column after the estimate: each column's parameters, counts
    and resolved default prior equal those of that column fitted alone."""
    rng = np.random.default_rng(5)
    n = 300
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({f"g{j}": rng.normal(j * y, 1.0 + j, n) for j in range(4)})
    fit = bnb.NaiveBayes().fit(X, y)
    assert [b.name for b in fit.blocks] == list(X.columns)
    for j, col in enumerate(X.columns):
        alone = bnb.NaiveBayes().fit(X[[col]], y)
        for key in ("mu", "var", "sigma"):
            np.testing.assert_allclose(
                fit.params[f"{col}_{key}"].values, alone.params[f"{col}_{key}"].values, rtol=1e-13
            )
        for key in ("n", "mean", "ss"):
            np.testing.assert_allclose(
                fit.counts[f"{col}_{key}"].values, alone.counts[f"{col}_{key}"].values, rtol=1e-13
            )
        mine, theirs = fit.blocks[j].prior, alone.blocks[0].prior
        for name in ("mu", "kappa", "alpha", "beta"):
            np.testing.assert_allclose(getattr(mine, name), getattr(theirs, name), rtol=1e-13)
        # the mean is each class's own sample mean (closed form, by the prior's default)
        for k in range(3):
            own = X[col][y == k]
            assert fit.params[f"{col}_mu"].values[k] == pytest.approx(own.mean(), rel=1e-13)


def _category_frame(rng, n, d, k=4):
    return pd.DataFrame({f"x{j}": pd.Categorical(rng.integers(0, k, n)) for j in range(d)})


def test_frame_fit_scores_by_its_groups_like_categorical_nb():
    """A frame's columns fitted as one group are scored from the group itself (no
    per-column features made until they are read), with scikit-learn's
    CategoricalNB's probabilities: Dirichlet(1) posterior means are its alpha=1
    smoothing, and the class prior is the Dirichlet(1) mean (n_k + 1) / (N + K)."""
    from sklearn.naive_bayes import CategoricalNB

    rng = np.random.default_rng(11)
    n, d = 400, 6
    y = rng.integers(0, 3, n)
    X = _category_frame(rng, n, d)
    fit = bnb.NaiveBayes().fit(X, y)
    proba = fit.predict_proba(X)
    assert "blocks" not in vars(fit)  # scored without splitting the group
    prior = (np.bincount(y, minlength=3) + 1.0) / (n + 3)
    peer = CategoricalNB(alpha=1.0, class_prior=prior).fit(X.to_numpy(int), y)
    np.testing.assert_allclose(proba, peer.predict_proba(X.to_numpy(int)), rtol=1e-12)
    # the features, read afterwards, are one per column with CategoricalNB's tables
    assert [b.name for b in fit.blocks] == list(X.columns)
    for j, col in enumerate(X.columns):
        np.testing.assert_allclose(
            fit.params[col].values, np.exp(peer.feature_log_prob_[j]), rtol=1e-12
        )


def test_a_group_falls_back_to_its_columns_where_one_warns():
    """Scoring a group column by column when one column warns: the warning names that
    column (not the group's first), once, and its factor is marginalized."""
    rng = np.random.default_rng(12)
    n = 100
    y = rng.integers(0, 2, n)
    X = _category_frame(rng, n, 4)
    fit = bnb.NaiveBayes().fit(X, y)
    Z = X.copy()
    Z["x2"] = pd.Categorical(rng.integers(7, 9, n))  # no value seen in training
    with pytest.warns(bnb.errors.UnseenValuesWarning) as caught:
        proba = fit.predict_proba(Z)
    assert len(caught) == 1
    assert "'x2'" in str(caught[0].message) and "'x0'" not in str(caught[0].message)
    without = bnb.NaiveBayes().fit(X.drop(columns="x2"), y)
    np.testing.assert_allclose(proba, without.predict_proba(Z.drop(columns="x2")), rtol=1e-12)


def test_a_fit_by_groups_pickles_before_its_features_are_made():
    """A fit whose per-column features are made on first read pickles and copies as it
    is, and its copy reads the same parameters."""
    import copy
    import pickle

    rng = np.random.default_rng(13)
    y = rng.integers(0, 2, 60)
    X = _category_frame(rng, 60, 3)
    fit = bnb.NaiveBayes().fit(X, y)
    for other in (pickle.loads(pickle.dumps(fit)), copy.deepcopy(fit)):
        assert "blocks" not in vars(other)
        for col in X.columns:
            np.testing.assert_array_equal(other.params[col].values, fit.params[col].values)
        np.testing.assert_array_equal(other.predict_proba(X), fit.predict_proba(X))
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        fit.missing  # noqa: B018


def test_column_arrays_and_dtypes_are_the_frames():
    """The stored arrays and dtypes of a frame's columns, read without a Series per
    column, are the columns' own (pandas' public ``items`` and ``dtypes``), with or
    without pandas' column accessor."""
    X = pd.DataFrame(
        {
            "c": pd.Categorical(["a", "b", None]),
            "s": ["x", None, "y"],
            "f": [1.0, np.nan, 2.0],
            "i": [1, 2, 3],
            "n": pd.array([1, None, 3], dtype="Int64"),
            "b": [True, False, True],
        }
    )
    assert families.column_dtypes(X) == X.dtypes.tolist()
    for mine, (_, theirs) in zip(families.column_arrays(X), X.items(), strict=True):
        assert type(mine) is type(theirs.array) or isinstance(mine, np.ndarray)
        assert pd.Series(mine).equals(theirs.reset_index(drop=True).rename(None))

    class Plain(pd.DataFrame):  # a frame without the accessors: the public route
        _get_column_array = None

    plain = Plain(X)
    for mine, theirs in zip(families.column_arrays(plain), families.column_arrays(X), strict=True):
        assert type(mine) is type(theirs) and pd.Series(mine).equals(pd.Series(theirs))
