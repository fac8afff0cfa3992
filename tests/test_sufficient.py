"""Merging sufficient statistics: the statistics of row blocks, merged, are those of all
the rows (the reduction of EM's blocked sweep and of a partitioned fit).

Oracles: every family's own ``count`` over all the rows at once, and for the Gaussian
the weighted moments computed directly with numpy.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import bayesnb as bnb
from bayesnb._data import Table
from bayesnb.sufficient import merge_stats, pool_stats, scale_stats

N, K = 211, 3


def mixed_frame(seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "b0": (rng.random(N) < 0.3).astype(float),
            "b1": (rng.random(N) < 0.7).astype(float),
            "c": rng.choice(list("pqrs"), N).astype(object),
            "h": rng.uniform(0, 10, N),
            "w0": rng.poisson(2, N),
            "w1": rng.poisson(5, N),
            # far from 0 with a small spread: a naive sum of squares would lose digits
            "g0": 1e4 + rng.normal(0, 1e-2, N),
            "g1": rng.normal(-3, 2, N),
        }
    )
    df.loc[rng.random(N) < 0.1, "b0"] = np.nan
    df.loc[rng.random(N) < 0.1, "c"] = None
    df.loc[rng.random(N) < 0.1, "g0"] = np.nan
    df.loc[rng.random(N) < 0.1, "h"] = np.nan
    model = bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(columns=["b0", "b1"]),
            "c": bnb.Categorical(),
            "h": bnb.Binned(edges=[0, 2, 5, 10]),
            "w": bnb.Multinomial(columns=["w0", "w1"]),
            "g": bnb.Gaussian(columns=["g0", "g1"]),
        }
    )
    return df, model


def sparse_design(seed=1):
    rng = np.random.default_rng(seed)
    X = sparse.random(N, 6, density=0.3, format="csr", random_state=seed)
    X.data = np.ceil(X.data * 4)
    model = bnb.NaiveBayes(bnb.Multinomial())
    binary = X.copy()
    binary.data[:] = 1.0
    return [(X, model), (binary, bnb.NaiveBayes(bnb.Bernoulli()))], rng


def encoded_blocks():
    """(block, encoding) pairs over every family, dense and sparse."""
    df, model = mixed_frame()
    table = Table(df)
    out = [(b, b.encode(table.take(b.columns))) for b in model.bind(table)]
    designs, _ = sparse_design()
    for X, m in designs:
        t = Table(X)
        out += [(b, b.encode(t.take(b.columns))) for b in m.bind(t)]
    return out


def responsibilities(seed=2):
    rng = np.random.default_rng(seed)
    resp = rng.dirichlet(np.ones(K), size=N)
    resp[:60, 2] = 0.0  # component 2 has no weight in the first block
    return resp / resp.sum(axis=1, keepdims=True)


def rows_of(enc, rows):
    if enc is None:
        return None
    if hasattr(enc, "_replace"):  # a Categorical's codes, a Multinomial's sparse counts
        return enc._replace(values=enc.values[rows])
    if isinstance(enc, tuple):
        return tuple(rows_of(e, rows) for e in enc)
    return enc[rows]


def assert_same_stats(got, want):
    assert set(got) == set(want)
    for key in want:
        scale = np.abs(want[key]).max() + 1.0
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13 * scale)


BLOCKS = encoded_blocks()
IDS = [f"{b.kind}-{i}" for i, (b, _) in enumerate(BLOCKS)]


@pytest.mark.parametrize(("block", "enc"), BLOCKS, ids=IDS)
def test_merging_two_blocks_gives_the_whole(block, enc):
    resp = responsibilities()
    whole = block.count(enc, resp)
    first = block.count(rows_of(enc, slice(0, 60)), resp[:60])
    second = block.count(rows_of(enc, slice(60, N)), resp[60:])
    assert_same_stats(merge_stats(first, second), whole)
    assert_same_stats(merge_stats(second, first), whole)  # the order does not matter


@pytest.mark.parametrize(("block", "enc"), BLOCKS, ids=IDS)
def test_merging_is_associative(block, enc):
    resp = responsibilities()
    edges = [0, 13, 60, 61, 150, N]
    parts = [
        block.count(rows_of(enc, slice(a, b)), resp[a:b]) for a, b in itertools.pairwise(edges)
    ]
    left = parts[0]
    for p in parts[1:]:
        left = merge_stats(left, p)
    tree = merge_stats(
        merge_stats(parts[0], parts[1]), merge_stats(parts[2], merge_stats(*parts[3:]))
    )
    whole = block.count(enc, resp)
    assert_same_stats(left, whole)
    assert_same_stats(tree, whole)


@pytest.mark.parametrize(("block", "enc"), BLOCKS, ids=IDS)
def test_scaling_and_pooling(block, enc):
    resp = responsibilities()
    assert_same_stats(scale_stats(block.count(enc, resp), 0.37), block.count(enc, 0.37 * resp))
    # Pooled over the components: the statistics of every row with its whole weight.
    assert_same_stats(
        pool_stats(block.count(enc, resp)), block.count(enc, resp.sum(axis=1, keepdims=True))
    )


def test_gaussian_merge_against_direct_moments():
    df, model = mixed_frame()
    table = Table(df)
    block = next(b for b in model.bind(table) if b.kind == "gaussian")
    enc = block.encode(table.take(block.columns))
    resp = responsibilities()
    merged = merge_stats(
        block.count(rows_of(enc, slice(0, 100)), resp[:100]),
        block.count(rows_of(enc, slice(100, N)), resp[100:]),
    )
    x = df[["g0", "g1"]].to_numpy()
    for j in range(2):
        seen = ~np.isnan(x[:, j])
        for k in range(K):
            w, v = resp[seen, k], x[seen, j]
            mean = np.sum(w * v) / np.sum(w)
            ss = np.sum(w * (v - mean) ** 2)
            assert merged["n"][k, j] == pytest.approx(np.sum(w), rel=1e-13)
            assert merged["mean"][k, j] == pytest.approx(mean, rel=1e-14)
            assert merged["ss"][k, j] == pytest.approx(ss, rel=1e-9)


def test_a_side_without_weight_leaves_the_other_exactly():
    a = {"n": np.array([2.0, 0.0]), "mean": np.array([1e4 + 0.1, 7.0]), "ss": np.array([0.5, 0.0])}
    b = {"n": np.array([0.0, 3.0]), "mean": np.array([5.0, 1e4 + 0.3]), "ss": np.array([0.0, 0.2])}
    both = merge_stats(a, b)
    np.testing.assert_array_equal(both["n"], [2.0, 3.0])
    np.testing.assert_array_equal(both["mean"], [1e4 + 0.1, 1e4 + 0.3])
    np.testing.assert_array_equal(both["ss"], [0.5, 0.2])


def test_bad_statistics_are_named():
    counts = {"counts": np.ones((2, 3))}
    moments = {"n": np.ones(2), "mean": np.zeros(2), "ss": np.zeros(2)}
    with pytest.raises(TypeError, match="same family"):
        merge_stats(counts, moments)
    with pytest.raises(TypeError, match=r"got the keys \['mu', 'var'\]"):
        merge_stats({"mu": 1, "var": 2}, {"mu": 1, "var": 2})
    with pytest.raises(ValueError, match="weight must be a finite number >= 0; got -1"):
        scale_stats(counts, -1)


def test_merging_far_apart_means_of_tiny_weight_stays_finite():
    """Means +-1.5e154 of weight 1e-20 each: delta^2 (9e308) is beyond the largest float,
    but the merged sum of squares delta^2 n_a n_b / n is 4.5e288. Oracle: the formula in
    exact rational arithmetic (every float is a rational)."""
    from fractions import Fraction

    wa, wb, ma, mb = 1e-20, 3e-20, 1.5e154, -1.5e154
    exact = (
        (Fraction(mb) - Fraction(ma)) ** 2
        * Fraction(wa)
        * Fraction(wb)
        / (Fraction(wa) + Fraction(wb))
    )
    a = {"n": np.array([[wa]]), "mean": np.array([[ma]]), "ss": np.array([[0.0]])}
    b = {"n": np.array([[wb]]), "mean": np.array([[mb]]), "ss": np.array([[0.0]])}
    with np.errstate(all="raise"):  # no overflow on the way
        both = merge_stats(a, b)
    assert both["ss"][0, 0] == pytest.approx(float(exact), rel=1e-15)
    # a multivariate block's scatter (full and diagonal) takes the same cross term
    full = merge_stats(
        {"n": np.array([wa]), "mean": np.array([[ma, 1.0]]), "scatter": np.zeros((1, 2, 2))},
        {"n": np.array([wb]), "mean": np.array([[mb, 1.0]]), "scatter": np.zeros((1, 2, 2))},
    )
    np.testing.assert_allclose(full["scatter"][0], [[float(exact), 0.0], [0.0, 0.0]], rtol=1e-15)
    diag = merge_stats(
        {"n": np.array([wa]), "mean": np.array([[ma]]), "scatter": np.zeros((1, 1))},
        {"n": np.array([wb]), "mean": np.array([[mb]]), "scatter": np.zeros((1, 1))},
    )
    assert diag["scatter"][0, 0] == pytest.approx(float(exact), rel=1e-15)
