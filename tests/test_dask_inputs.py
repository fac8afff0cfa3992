"""Dask inputs beyond a frame with its own target column: labels as a Dask Series or
array next to a Dask array, arrays from ``to_dask_array()`` whose chunk sizes Dask does
not know, and arrays of scipy.sparse blocks (word counts). The oracles are the same
package's in-memory fit on the gathered data (verified on its own elsewhere) and, for
the sparse fits, scikit-learn's MultinomialNB and BernoulliNB with the same smoothing.
Dask's synchronous scheduler runs every pass."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

import bayesnb as bnb
import bayesnb.dask as on_dask

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")

from tests.test_dask import _same  # noqa: E402  (every parameter against the in-memory fit)

N = 300


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _binary_frame(n=N, seed=0):
    """Float 0/1 columns (inferred Bernoulli) whose rates depend on a label in p/q/r,
    and a positive weight per row."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["p", "q", "r"], dtype=object), n, p=[0.5, 0.3, 0.2])
    rate = pd.Series(y).map({"p": 0.2, "q": 0.5, "r": 0.8}).to_numpy()
    frame = pd.DataFrame(
        {
            c: (rng.random(n) < rate * k).astype(float)
            for c, k in zip("abcd", [1, 0.8, 0.5, 1], strict=True)
        }
    )
    return frame, pd.Series(y, dtype=object, name="label"), rng.gamma(2.0, 0.5, n)


# -- labels next to a Dask array -----------------------------------------------------------
def test_the_probes_repro_a_dask_series_labels_a_dask_array():
    frame = pd.DataFrame({"a": [0.0, 1, 1, 0, 1, 0], "b": [1.0, 0, 1, 1, 0, 0]})
    labels = pd.Series(list("pqpqpp"), dtype=object)
    ddf = dd.from_pandas(frame, npartitions=2)
    ys = dd.from_pandas(labels, npartitions=2)
    ours = bnb.NaiveBayes().fit(ddf.to_dask_array(lengths=True), ys)
    # closed form: Bernoulli under Beta(1, 1), the posterior mean (k + 1) / (n + 2);
    # classes under Dirichlet(1, 1): (n_c + 1) / (n + 2)
    np.testing.assert_allclose(ours.params["class_prob"].values, [5 / 8, 3 / 8], rtol=1e-14)
    # p: rows 0, 2, 4, 5 -> a = 0, 1, 1, 0 and b = 1, 1, 0, 0; q: rows 1, 3 -> a = 1, 0, b = 0, 1
    np.testing.assert_allclose(
        ours.params["X"].values, [[3 / 6, 3 / 6], [2 / 4, 2 / 4]], rtol=1e-14
    )
    _same(ours, bnb.NaiveBayes().fit(frame.to_numpy(), labels))


@pytest.mark.parametrize("y_parts", [4, 3, 7])
def test_a_dask_series_labels_a_dask_array_partitioned_alike_or_not(y_parts):
    """Labels in as many partitions as X's blocks are read block by block; in another
    number they are cut at X's row boundaries."""
    frame, y, w = _binary_frame()
    X = dd.from_pandas(frame, npartitions=4).to_dask_array(lengths=True)
    ys = dd.from_pandas(y, npartitions=y_parts)
    ws = dd.from_pandas(pd.Series(w), npartitions=y_parts)
    memory = bnb.NaiveBayes().fit(frame.to_numpy(), y, sample_weight=w)
    ours = bnb.NaiveBayes().fit(X, ys, sample_weight=ws)
    _same(ours, memory)
    assert ours.target == "label"  # the Series' name, as in memory
    # and the in-memory fit is scikit-learn's BernoulliNB with alpha=1 and the mean of the
    # classes' Dirichlet(1) (weighted counts + 1) / (total + 3)
    totals = np.array([w[(y == c).to_numpy()].sum() for c in ["p", "q", "r"]])
    ref = BernoulliNB(alpha=1.0, force_alpha=True, binarize=None)
    ref.set_params(class_prior=(totals + 1) / (totals.sum() + 3))
    ref.fit(frame.to_numpy(), y.to_numpy(), sample_weight=w)
    np.testing.assert_allclose(
        ours.predict_proba(frame.to_numpy()), ref.predict_proba(frame.to_numpy()), rtol=1e-12
    )


def test_a_dask_array_of_labels_with_other_chunks_is_cut_at_x_blocks():
    frame, y, _ = _binary_frame(seed=1)
    codes = y.map({"p": 0, "q": 1, "r": 2}).to_numpy(dtype=np.int64)
    X = da.from_array(frame.to_numpy(), chunks=(70, 2))
    ours = bnb.NaiveBayes().fit(X, da.from_array(codes, chunks=45))
    _same(ours, bnb.NaiveBayes().fit(frame.to_numpy(), codes))


def test_arrays_from_to_dask_array_without_lengths(monkeypatch):
    """The probe's repro: X and y from one frame's ``to_dask_array()`` (chunk sizes
    unknown) line up block by block, with no pass to compute the sizes. The labels are
    kept as objects (Dask warns when it turns its string dtype into an array)."""
    frame, y, w = _binary_frame(seed=2)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame.assign(label=y, w=w), npartitions=5)
        small = dd.from_pandas(
            pd.DataFrame({"a": [0.0, 1, 1, 0, 1, 0], "b": [1.0, 0, 1, 1, 0, 0]}), npartitions=2
        )
        ys = dd.from_pandas(pd.Series(list("pqpqpp"), dtype=object), npartitions=2)
    X = ddf[list("abcd")].to_dask_array()
    assert np.isnan(X.chunks[0]).all()
    memory = bnb.NaiveBayes().fit(frame.to_numpy(), y, sample_weight=w)

    def no_pass(self, pieces):
        raise AssertionError("aligned inputs need no block lengths")

    with monkeypatch.context() as m:
        m.setattr(on_dask._Source, "_lengths", no_pass)
        _same(
            bnb.NaiveBayes().fit(X, ddf["label"].to_dask_array(), sample_weight=ddf["w"]),
            memory,
        )
        _same(bnb.NaiveBayes().fit(X, ddf["label"], sample_weight=ddf["w"].to_dask_array()), memory)
        # the probe's own repro; the closed form as in the first test
        fit = bnb.NaiveBayes().fit(small.to_dask_array(), ys.to_dask_array())
    np.testing.assert_allclose(fit.params["X"].values, [[3 / 6, 3 / 6], [2 / 4, 2 / 4]])


def test_labels_not_lined_up_with_unknown_chunks_are_cut_after_computing_the_lengths():
    frame, y, w = _binary_frame(seed=3)
    codes = y.map({"p": 0, "q": 1, "r": 2}).to_numpy(dtype=np.int64)
    X = dd.from_pandas(frame, npartitions=5).to_dask_array()  # lengths unknown
    memory = bnb.NaiveBayes().fit(frame.to_numpy(), codes, sample_weight=w)
    ours = bnb.NaiveBayes().fit(
        X,
        da.from_array(codes, chunks=64),  # known, but other blocks
        sample_weight=dd.from_pandas(pd.Series(w), npartitions=2).to_dask_array(),  # unknown
    )
    _same(ours, memory)
    # a Dask DataFrame X with labels in an array of other blocks
    ddf = dd.from_pandas(frame, npartitions=3)
    _same(
        bnb.NaiveBayes().fit(ddf, da.from_array(codes, chunks=64)),
        bnb.NaiveBayes().fit(frame, codes),
    )


def test_em_on_unknown_chunks_with_labels_in_other_partitions():
    """Semi-supervised EM from one start: X without known chunk sizes and the known
    labels (NaN elsewhere) in a Series of other partitions take the in-memory iterates."""
    frame, y, _ = _binary_frame(seed=4)
    known = pd.Series(np.nan, index=frame.index, dtype=object)
    known.iloc[:30] = y.iloc[:30]
    x = frame.to_numpy()
    model = bnb.NaiveBayes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a start of two steps, not converged
        start = model.cluster(x, 3, y=known, max_iter=2, n_init=1, random_state=0)
    memory = model.cluster(x, 3, y=known, init=start, accelerate=False)
    X = dd.from_pandas(frame, npartitions=4).to_dask_array()
    ours = model.cluster(X, 3, y=dd.from_pandas(known, npartitions=3), init=start, accelerate=False)
    np.testing.assert_allclose(ours.history, memory.history, rtol=1e-10, atol=0)
    _same(ours, memory, rtol=1e-10)


def test_labels_that_cannot_line_up_are_refused_with_the_remedy():
    frame, y, _ = _binary_frame(n=120, seed=5)
    codes = y.map({"p": 0, "q": 1, "r": 2}).to_numpy(dtype=np.int64)
    X = dd.from_pandas(frame, npartitions=2).to_dask_array(lengths=True)  # blocks (60, 60)
    with pytest.raises(bnb.InputError, match="y has 119 values for the 120 rows of X"):
        bnb.NaiveBayes().fit(X, da.from_array(codes[:-1], chunks=50))
    # as many blocks, of lengths Dask knows on neither side, and not X's: refused when read
    shifted = dd.from_pandas(pd.Series(codes), npartitions=2).repartition(divisions=[0, 70, 119])
    unknown = dd.from_pandas(frame, npartitions=2).to_dask_array()
    with pytest.raises(bnb.InputError, match="a block of X has 60 rows but its piece of y has 70"):
        bnb.NaiveBayes().fit(unknown, shifted.to_dask_array())
    # the lengths known on one side: the other's are computed, and y is cut at X's blocks
    _same(
        bnb.NaiveBayes().fit(X, shifted.to_dask_array()),
        bnb.NaiveBayes().fit(frame.to_numpy(), codes),
    )
    with pytest.raises(bnb.InputError, match="got a Dask DataFrame"):
        bnb.NaiveBayes().fit(X, dd.from_pandas(pd.DataFrame({"y": codes}), npartitions=2))
    with pytest.raises(bnb.InputError, match=r"got a Dask array of shape \(120, 1\)"):
        bnb.NaiveBayes().fit(X, da.from_array(codes[:, None], chunks=60))
    with pytest.raises(bnb.InputError, match="sample_weight has 240 values for the 120 rows"):
        bnb.NaiveBayes().fit(X, da.from_array(codes, chunks=60), sample_weight=da.ones(240))


# -- scipy.sparse blocks -----------------------------------------------------------------
def _counts(n=N, d=9, seed=6):
    """Word counts whose rates depend on the class (0, 1, 2), a column never used by
    class 2 and one word that is never seen."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    rates = rng.gamma(1.0, 0.6, (3, d))
    rates[2, 0] = 0.0
    rates[:, -1] = 0.0
    return rng.poisson(rates[y]).astype(float), y


def _class_mean(y, k=3):
    """The classes' posterior mean under Dirichlet(1): (n_c + 1) / (n + k)."""
    return (np.bincount(y, minlength=k) + 1) / (len(y) + k)


@pytest.mark.parametrize("chunks", [(50, -1), (64, 4)])
def test_sparse_count_blocks_fit_and_predict_as_the_sparse_matrix_in_memory(chunks):
    x, y = _counts()
    X = da.from_array(x, chunks=chunks).map_blocks(sparse.csr_matrix)
    Y = da.from_array(y, chunks=chunks[0])
    memory = bnb.NaiveBayes(bnb.Multinomial()).fit(sparse.csr_matrix(x), y)
    ours = bnb.NaiveBayes(bnb.Multinomial()).fit(X, Y)
    _same(ours, memory)
    ref = MultinomialNB(alpha=1.0, force_alpha=True, class_prior=_class_mean(y)).fit(x, y)
    np.testing.assert_allclose(
        np.log(ours.params["X"].values), ref.feature_log_prob_, rtol=0, atol=1e-12
    )
    proba = ours.predict_proba(X)
    assert isinstance(proba, da.Array)
    got = proba.compute()
    np.testing.assert_allclose(got, memory.predict_proba(sparse.csr_matrix(x)), rtol=1e-12)
    np.testing.assert_allclose(got, ref.predict_proba(x), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X).compute(), ref.predict(x))


def test_sparse_presence_blocks_fit_as_bernoulli_nb():
    x, y = _counts(seed=7)
    b = (x > 0).astype(float)
    X = da.from_array(b, chunks=(40, -1)).map_blocks(sparse.csr_matrix)
    Y = da.from_array(y, chunks=40)
    memory = bnb.NaiveBayes(bnb.Bernoulli()).fit(sparse.csr_matrix(b), y)
    ours = bnb.NaiveBayes(bnb.Bernoulli()).fit(X, Y)
    _same(ours, memory)
    ref = BernoulliNB(alpha=1.0, force_alpha=True, binarize=None, class_prior=_class_mean(y))
    ref.fit(b, y)
    np.testing.assert_allclose(
        np.log(ours.params["X"].values), ref.feature_log_prob_, rtol=0, atol=1e-12
    )
    got = ours.predict_proba(X).compute()
    np.testing.assert_allclose(got, ref.predict_proba(b), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got, memory.predict_proba(sparse.csr_matrix(b)), rtol=1e-12)


@pytest.mark.parametrize(
    ("dtype", "family"), [(np.int64, "Multinomial"), (float, "Multinomial"), (bool, "Bernoulli")]
)
def test_the_family_of_sparse_blocks_is_inferred_as_in_memory(dtype, family):
    """Undeclared: counts are Multinomial, 0/1 (or Booleans) Bernoulli, as for the
    sparse matrix in memory, whatever the blocks' dtype."""
    x, y = _counts(seed=8)
    data = (x > 0) if dtype is bool else x.astype(dtype)
    X = da.from_array(data, chunks=(75, -1)).map_blocks(sparse.csr_matrix)
    memory = bnb.NaiveBayes().fit(sparse.csr_matrix(data), y)
    ours = bnb.NaiveBayes().fit(X, da.from_array(y, chunks=75))
    assert [type(b).__name__ for b in ours.blocks] == [family]
    _same(ours, memory)


def test_sparse_blocks_weighted_density_and_unknown_chunks():
    x, y = _counts(seed=9)
    w = np.random.default_rng(9).gamma(2.0, 0.5, len(y))
    S = sparse.csr_matrix(x)
    model = bnb.NaiveBayes(bnb.Multinomial())
    X = da.from_array(x, chunks=(60, -1)).map_blocks(sparse.csr_matrix)
    _same(
        model.fit(X, da.from_array(y, chunks=60), sample_weight=da.from_array(w, chunks=100)),
        model.fit(S, y, sample_weight=w),
    )
    _same(model.fit(X), model.fit(S))  # the density: no labels
    # blocks of unknown length, labels from the same frame
    frame = pd.DataFrame(x).assign(y=y)
    ddf = dd.from_pandas(frame, npartitions=4)
    Xu = ddf.drop(columns="y").to_dask_array().map_blocks(sparse.csr_matrix)
    assert np.isnan(Xu.chunks[0]).all()
    _same(model.fit(Xu, ddf["y"].to_dask_array()), model.fit(S, y))
    ref = MultinomialNB(alpha=1.0, force_alpha=True, class_prior=_class_mean(y)).fit(x, y)
    np.testing.assert_allclose(
        model.fit(Xu, ddf["y"]).predict_proba(Xu).compute(), ref.predict_proba(x), atol=1e-12
    )


def test_em_on_sparse_blocks_takes_the_in_memory_iterates():
    x, _ = _counts(seed=10)
    S = sparse.csr_matrix(x)
    model = bnb.NaiveBayes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a start of two steps, not converged
        start = model.cluster(S, 2, max_iter=2, n_init=1, random_state=0)
    memory = model.cluster(S, 2, init=start)
    X = da.from_array(x, chunks=(70, -1)).map_blocks(sparse.csr_matrix)
    ours = model.cluster(X, 2, init=start)
    assert ours.n_iter == memory.n_iter and ours.converged
    np.testing.assert_allclose(ours.history, memory.history, rtol=1e-10, atol=0)
    _same(ours, memory, rtol=1e-9)
    # the default start: restarts on a sample, gathered sparse
    assert np.isfinite(model.cluster(X, 2, random_state=0).objective)


def test_semi_supervised_em_on_sparse_blocks_takes_the_in_memory_iterates():
    x, y = _counts(n=120, seed=12)
    known = np.where(np.arange(120) < 10, y % 2, np.nan)
    S = sparse.csr_matrix(x)
    model = bnb.NaiveBayes(bnb.Multinomial())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a start of two steps, not converged
        start = model.cluster(S, 2, y=known, max_iter=2, n_init=1, random_state=0)
    memory = model.cluster(S, 2, y=known, init=start)
    X = da.from_array(x, chunks=(60, -1)).map_blocks(sparse.csr_matrix)
    ours = model.cluster(X, 2, y=da.from_array(known, chunks=60), init=start)
    assert ours.n_iter == memory.n_iter and ours.converged
    np.testing.assert_allclose(ours.history, memory.history, rtol=1e-10, atol=0)
    _same(ours, memory, rtol=1e-9)


def test_what_sparse_blocks_cannot_do_is_refused_by_name():
    x, y = _counts(n=120, seed=11)
    X = da.from_array(x, chunks=(60, -1)).map_blocks(sparse.csr_matrix)
    Y = da.from_array(y, chunks=60)
    for family in (bnb.Gaussian(), bnb.Categorical()):
        name = type(family).__name__
        with pytest.raises(bnb.InputError, match=f"scipy.sparse blocks.*declared {name}"):
            bnb.NaiveBayes(family).fit(X, Y)
    odd = da.from_delayed(  # a block that is no 2-D array
        dask.delayed(list)("abc"), shape=(3, 2), dtype=float, meta=np.empty((0, 0))
    )
    with pytest.raises(bnb.InputError, match=r"blocks must be NumPy arrays or scipy\.sparse"):
        bnb.NaiveBayes().fit(odd, da.from_array(np.array([0, 1, 0]), chunks=3))


def test_a_density_of_a_dask_frame_draws_in_its_columns_dtypes():
    rng = np.random.default_rng(13)
    frame = pd.DataFrame(
        {
            0: rng.random(80) < 0.3,
            1: pd.Categorical(rng.choice(["a", "b"], 80), categories=["a", "b", "c"]),
        }
    )
    fit = bnb.NaiveBayes().density(dd.from_pandas(frame, npartitions=3))
    drawn = fit.sample(4000, random_state=0)
    assert drawn.dtypes.tolist() == frame.dtypes.tolist()
    # the Booleans' share is the Beta(1, 1) posterior mean (m + 1) / (n + 2)
    p = (frame[0].sum() + 1) / (len(frame) + 2)
    assert abs(drawn[0].mean() - p) < 4 * np.sqrt(p * (1 - p) / len(drawn))
