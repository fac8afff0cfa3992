"""The compiled EM loop (bayesnb._em_loop) against the Python engine it replaces.

From the same starts (the same random streams), the loop must give the Python
engine's histories, optima and restarts to round-off: every objective to 1e-12 of
its size, the same number of iterations and restarts. The Python engine's
optima were checked against poLCA and mclust (tests/test_parity.py); the values
pinned below are its results at the commit before the loop existed.
"""

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import _em_loop, mixture
from bayesnb.mixture import MonotonicityError


def _fit(model, X, k, *, python: bool, monkeypatch, **kwargs):
    if python:
        monkeypatch.setattr(mixture._em_loop, "compile_problem", lambda problem: None)
    try:
        return model.cluster(X, k, **kwargs)
    finally:
        monkeypatch.undo()


def _votes():
    return bnb.datasets.house_votes_84().drop(columns="party")


def _mixed():
    """Booleans, categories and floats (some missing), as a frame."""
    rng = np.random.default_rng(4)
    n = 600
    z = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            **{f"b{j}": rng.random(n) < 0.2 + 0.3 * (z == j % 3) for j in range(4)},
            **{f"c{j}": pd.Categorical(rng.choice(list("abcd"), n)) for j in range(2)},
            "g0": rng.normal(z * 2.0, 1.0),
            "g1": rng.normal(-z, 0.5) + 50.0,  # far from 0
        }
    )
    frame.loc[rng.random(n) < 0.05, "g0"] = np.nan
    return frame, z


def _few_patterns():
    """1200 rows of four items (3, 2, 2 and 3 levels, some missing): at most
    4 * 3 * 3 * 4 = 144 patterns, so the loop reads each pattern once."""
    rng = np.random.default_rng(9)
    z = rng.integers(0, 3, 1200)
    frame = pd.DataFrame(
        {
            f"q{j}": np.where(rng.random(1200) < 0.6, z % size, rng.integers(0, size, 1200))
            for j, size in enumerate([3, 2, 2, 3])
        }
    ).astype(float)
    frame[frame.columns[0]] = frame[frame.columns[0]].mask(rng.random(1200) < 0.05)
    return frame


def planted_words(n, V, topics, concentration, lengths, seed, *, stray_zeros=True):
    """Word counts of ``topics`` planted topics (Dirichlet(``concentration``) over the
    first ``V - 1`` words, document lengths uniform in ``lengths``) as CSR, with
    stored zeros: the whole of the last column (a word no document holds) and, with
    ``stray_zeros``, one more in every row at a random word."""
    from scipy import sparse

    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.full(V - 1, concentration), topics)
    z = rng.integers(0, topics, n)
    counts = np.zeros((n, V))
    counts[:, :-1] = [rng.multinomial(rng.integers(*lengths), weights[k]) for k in z]
    rows, cols = np.nonzero(counts)
    zero_rows, zero_cols = [np.arange(n)], [np.full(n, V - 1)]
    if stray_zeros:
        zero_rows.insert(0, np.arange(n))
        zero_cols.insert(0, rng.integers(0, V - 1, n))
    rows = np.concatenate([rows, *zero_rows])
    cols = np.concatenate([cols, *zero_cols])
    values = np.concatenate([counts[counts > 0], np.zeros(len(zero_rows) * n)])
    x = sparse.csr_array((values, (rows, cols)), shape=(n, V))
    assert (x.data == 0).sum() >= n  # (coo -> csr sums duplicates: zeros stay stored)
    return x


def _words(n=400, V=30, seed=12):
    """Three planted topics, stored zeros in every row and a word no document holds."""
    return planted_words(n, V, 3, 0.3, (3, 25), seed)


def _word_columns(first: int, stop: int) -> list:
    return [f"w{j}" for j in range(first, stop)]


def _words_frame():
    """Two blocks of word counts (a title's and a body's), a category and a float."""
    x = _words(300, 16, seed=13).toarray()
    rng = np.random.default_rng(14)
    frame = pd.DataFrame(x, columns=_word_columns(0, 16))
    frame["c"] = pd.Categorical(rng.choice(list("abc"), 300))
    frame["g"] = rng.normal(x[:, 0], 1.0)
    return frame


def _mvn_frame():
    """Three planted clusters in nine correlated columns (one far from 0), a Gaussian
    column and two binary ones, for several multivariate blocks side by side."""
    rng = np.random.default_rng(11)
    z = rng.integers(0, 3, 400)
    centres = rng.normal(0.0, 3.0, (3, 9))
    mix = np.eye(9) + 0.4 * rng.normal(size=(9, 9))
    x = centres[z] + rng.normal(size=(400, 9)) @ mix
    x[:, 7] += 1000.0
    frame = pd.DataFrame(x, columns=[f"x{j}" for j in range(9)])
    frame["g"] = rng.normal(z, 1.0)
    for j in range(2):
        frame[f"b{j}"] = rng.random(400) < 0.2 + 0.3 * (z == j)
    return frame


CASES = {
    "votes-bernoulli": (
        lambda: bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y"))),
        _votes,
        2,
        {"n_init": 3, "random_state": 0},
    ),
    "votes-categorical-map": (
        lambda: bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0))),
        _votes,
        3,
        {"n_init": 3, "random_state": 1, "estimate": "map", "init": "random"},
    ),
    "votes-ml": (
        lambda: bnb.NaiveBayes(),
        _votes,
        2,
        {"n_init": 2, "random_state": 2, "estimate": "ml", "init": "random"},
    ),
    "faithful": (
        lambda: bnb.NaiveBayes(),
        bnb.datasets.old_faithful,
        3,
        {"n_init": 3, "random_state": 0},
    ),
    "faithful-plain": (
        lambda: bnb.NaiveBayes(),
        bnb.datasets.old_faithful,
        3,
        {"n_init": 2, "random_state": 3, "accelerate": False, "init": "random"},
    ),
    "mixed-weighted": (
        lambda: bnb.NaiveBayes(),
        lambda: _mixed()[0],
        3,
        {
            "n_init": 2,
            "random_state": 5,
            "sample_weight": np.random.default_rng(0).uniform(0.2, 3.0, 600),
        },
    ),
    "few-patterns-weighted": (
        lambda: bnb.NaiveBayes(bnb.Categorical()),
        _few_patterns,
        3,
        {
            "n_init": 3,
            "random_state": 8,
            "init": "random",
            "sample_weight": np.random.default_rng(2).uniform(0.0, 2.0, 1200),
        },
    ),
    "faithful-mvn-full": (
        lambda: bnb.NaiveBayes(bnb.MultivariateGaussian()),
        bnb.datasets.old_faithful,
        3,
        {"n_init": 3, "random_state": 0, "init": "random"},
    ),
    "faithful-mvn-tied-plain": (
        lambda: bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="tied")),
        bnb.datasets.old_faithful,
        3,
        {"n_init": 2, "random_state": 1, "init": "random", "accelerate": False},
    ),
    "mvn-blocks-mixed-weighted": (
        lambda: bnb.NaiveBayes(
            {
                "d": bnb.MultivariateGaussian(covariance="diag", columns=["x0", "x1"]),
                "s": bnb.MultivariateGaussian(covariance="spherical", columns=["x2", "x3", "x4"]),
                "t": bnb.MultivariateGaussian(covariance="tied-spherical", columns=["x5", "x6"]),
                "f": bnb.MultivariateGaussian(covariance="full", columns=["x7", "x8"]),
                "g": bnb.Gaussian(columns=["g"]),
                "b": bnb.Bernoulli(columns=["b0", "b1"]),
            }
        ),
        lambda: _mvn_frame(),
        3,
        {
            "n_init": 2,
            "random_state": 2,
            "init": "random",
            "sample_weight": np.random.default_rng(3).uniform(0.2, 3.0, 400),
        },
    ),
    "words-sparse": (
        lambda: bnb.NaiveBayes(bnb.Multinomial()),
        _words,
        3,
        {"n_init": 3, "random_state": 0, "init": "random"},
    ),
    "words-sparse-ml-plain": (
        lambda: bnb.NaiveBayes(bnb.Multinomial()),
        _words,
        3,
        {"n_init": 2, "random_state": 1, "init": "random", "estimate": "ml", "accelerate": False},
    ),
    "words-blocks-mixed-weighted-map": (
        lambda: bnb.NaiveBayes(
            {
                "title": bnb.Multinomial(bnb.Dirichlet(2.0), columns=_word_columns(0, 5)),
                "body": bnb.Multinomial(bnb.Dirichlet(1.5), columns=_word_columns(5, 16)),
                "c": bnb.Categorical(bnb.Dirichlet(2.0), columns=["c"]),
                "g": bnb.Gaussian(columns=["g"]),
            }
        ),
        _words_frame,
        3,
        {
            "n_init": 2,
            "random_state": 2,
            "init": "random",
            "estimate": "map",
            "sample_weight": np.random.default_rng(4).uniform(0.2, 3.0, 300),
        },
    ),
    "ragged-block": (
        lambda: bnb.NaiveBayes(bnb.Categorical()),
        lambda: np.column_stack(
            [
                np.random.default_rng(6).integers(0, 3, 500),
                np.random.default_rng(7).integers(0, 40, 500),
                np.random.default_rng(8).integers(0, 2, 500),
            ]
        ),
        2,
        {"n_init": 2, "random_state": 4, "init": "random"},
    ),
}


#: Cases whose fit warns, as it should: under ML the word no document holds gets
#: probability 0 in every component.
_ZERO_WORD = pytest.mark.filterwarnings("ignore::bayesnb.priors.ZeroProbabilityWarning")


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=_ZERO_WORD) if c == "words-sparse-ml-plain" else c for c in CASES],
)
def test_the_loop_gives_the_python_engines_histories(case, monkeypatch):
    make, data, k, kwargs = CASES[case]
    X = data()
    compiled = make().cluster(X, k, **kwargs)
    python = _fit(make(), X, k, python=True, monkeypatch=monkeypatch, **kwargs)
    assert len(compiled.restarts) == len(python.restarts)
    for a, b in zip(compiled.restarts, python.restarts, strict=True):
        # (not the sweeps: at the optimum, where the gains are round-off, whether an
        # extrapolated point is tried and rejected is decided by the last bits)
        assert a.n_iter == b.n_iter
        assert a.converged == b.converged
        scale = np.abs(b.history)
        np.testing.assert_array_less(np.abs(a.history - b.history), 1e-12 * scale + 1e-300)
        assert abs(a.log_likelihood - b.log_likelihood) <= 1e-12 * abs(b.log_likelihood)
        # Near a maximum the parameters are fixed only to about the square root of the
        # objective's precision (the objective is flat there to first order): on a
        # flat optimum (the ragged block is noise) a 1e-12 difference in where EM
        # stops moves them by ~1e-9.
        np.testing.assert_allclose(a.responsibilities, b.responsibilities, atol=1e-6)
        for name in b.params.data_vars:
            np.testing.assert_allclose(a.params[name], b.params[name], rtol=1e-6, atol=1e-9)
    best = [f.objective for f in python.restarts]
    if np.sort(best)[-1] - np.sort(best)[-2] > 1e-9 * abs(max(best)):  # not a tie
        assert compiled.best_restart == python.best_restart


def test_multivariate_blocks_run_in_the_loop(monkeypatch):
    """MAP-EM of MultivariateGaussian blocks runs in the compiled loop (their values,
    layout and Normal-Inverse-Wishart priors handed over as ``mv``); ML-EM, whose
    checks whiten every covariance by the data's, stays in the Python engine."""
    from bayesnb._data import Table

    make, data, k, kwargs = CASES["mvn-blocks-mixed-weighted"]
    X = data()
    runs = []
    run_many = _em_loop.CompiledProblem.run_many

    def spy(self, *args, **kw):
        runs.append(run_many(self, *args, **kw))
        return runs[-1]

    monkeypatch.setattr(_em_loop.CompiledProblem, "run_many", spy)
    make().cluster(X, k, **kwargs)
    assert len(runs) == 1 and all(out is not None for out in runs[0])  # none handed back
    problem = mixture._Problem(make(), Table(X), list(range(k)), None, None)
    (xm, cols, sq, tri, kinds, shift), (mu0, kappa, nu, psi, chol_psi) = problem.compiled.mv
    assert cols.tolist() == [0, 2, 5, 7, 9] and sq.tolist() == [0, 4, 13, 17, 21]
    assert tri.tolist() == [0, 3, 9, 12, 15]
    # the default prior: nu = d + 2, kappa 0.01, centred at the data's mean
    assert nu.tolist() == [4.0, 5.0, 4.0, 4.0] and kappa.tolist() == [0.01] * 4
    np.testing.assert_allclose(mu0, X[[f"x{j}" for j in range(9)]].mean(), rtol=1e-12, atol=1e-12)
    assert [_em_loop.MVN_KINDS[k] for k in kinds] == ["diag", "spherical", "tied-spherical", "full"]
    # the values centred at the data's mean, column by column; psi's factor packed
    np.testing.assert_allclose(xm.mean(axis=1), 0.0, atol=1e-9)
    assert shift[7] == pytest.approx(X["x7"].mean(), rel=1e-12)
    full_psi = psi[17:21].reshape(2, 2)
    lower = np.linalg.cholesky(full_psi)
    np.testing.assert_allclose(chol_psi[12:15], lower[np.tril_indices(2)], rtol=1e-14)
    faithful = bnb.datasets.old_faithful()
    ml = bnb.NaiveBayes(bnb.MultivariateGaussian(estimate="ml"))
    assert mixture._Problem(ml, Table(faithful), [0, 1], None, None).compiled is None


def test_word_counts_run_in_the_loop():
    """Multinomial blocks run in the compiled loop: their words laid after the discrete
    blocks' categories, one variable per block, their counts read from one CSR matrix.
    The rows are read one by one (documents alike in their categories differ in their
    words), and the compiled Gibbs sweep draws such a model too."""
    from bayesnb._data import Table
    from bayesnb._gibbs_loop import CompiledGibbs

    X = _words_frame()
    model = CASES["words-blocks-mixed-weighted-map"][0]()
    problem = mixture._Problem(model, Table(X), [0, 1, 2], None, None)
    compiled = problem.compiled
    assert compiled is not None and compiled.n_words == 16 and compiled.inverse is None
    parts = {problem.blocks[i].name: (kind, cols) for i, kind, cols, _ in compiled.parts}
    assert parts["c"] == ("discrete", slice(0, 3))
    assert parts["title"] == ("counts", slice(3, 8))
    assert parts["body"] == ("counts", slice(8, 19))
    ptr, idx, val, start, n_words = compiled.data[9:]
    assert (start, n_words) == (3, 16)
    words = np.zeros((len(X), n_words))
    for r in range(len(X)):
        np.add.at(words[r], idx[ptr[r] : ptr[r + 1]], val[ptr[r] : ptr[r + 1]])
    np.testing.assert_array_equal(words, X[_word_columns(0, 16)].to_numpy())
    np.testing.assert_array_equal(compiled.data[3], [3, 5, 11])  # sizes: c, title, body
    assert CompiledGibbs.covers(problem)


def test_rows_read_as_patterns(monkeypatch):
    """Few possible rows: the loop reads every pattern once (with the rows' summed
    weight), and every row gets its pattern's responsibilities."""
    from bayesnb._data import Table

    X = _few_patterns()
    problem = mixture._Problem(bnb.NaiveBayes(bnb.Categorical()), Table(X), [0, 1, 2], None, None)
    compiled = problem.compiled
    n_patterns = compiled.data[0].shape[1]  # (groups, patterns)
    expected = len(X.drop_duplicates())
    assert compiled.inverse is not None and n_patterns == expected
    np.testing.assert_array_equal(compiled.data[6], np.bincount(compiled.inverse))
    fit = bnb.NaiveBayes(bnb.Categorical()).cluster(X, 3, n_init=1, random_state=0)
    same = X.fillna(-1).duplicated(keep=False).to_numpy()
    groups = X.fillna(-1).groupby(list(X.columns)).ngroup().to_numpy()
    first = {g: i for i, g in reversed(list(enumerate(groups)))}
    rows = np.flatnonzero(same)
    np.testing.assert_array_equal(
        fit.responsibilities[rows], fit.responsibilities[[first[g] for g in groups[rows]]]
    )


def test_one_type_of_loop_data_for_every_input():
    """The loop's data and constants have one compiled type whatever the input: a
    frame's categorical columns, one integer column, a table whose groups need more
    than 8 bits, few patterns, booleans beside floats, read-only values and weights.
    Every other type would compile the whole loop again (about 30 s each)."""
    import numba

    from bayesnb._data import Table

    rng = np.random.default_rng(5)
    faithful = bnb.datasets.old_faithful().to_numpy().copy()
    faithful.flags.writeable = False
    weights = rng.uniform(0.5, 2.0, len(faithful))
    weights.flags.writeable = False
    cases = [
        (bnb.NaiveBayes(), _votes(), None),
        (bnb.NaiveBayes(bnb.Categorical()), rng.integers(0, 3, (1000, 1)), None),
        (bnb.NaiveBayes(bnb.Bernoulli()), rng.random((4000, 16)) < 0.5, None),
        (bnb.NaiveBayes(bnb.Categorical()), _few_patterns(), None),
        (bnb.NaiveBayes(), _mixed()[0], None),
        (bnb.NaiveBayes(bnb.Gaussian()), faithful, weights),
    ]
    types, widest = [], []
    for model, X, w in cases:
        problem = mixture._Problem(model, Table(X), [0, 1], None, None, sample_weight=w)
        compiled = problem.compiled
        assert compiled is not None and compiled.mv is None
        types.append(numba.typeof((compiled.data, compiled.prior)))
        widest.append(np.diff(np.append(compiled.data[1], compiled.n_codes)).max(initial=0))
    assert widest[0] <= 256 < widest[2]  # codes of 8 bits, and of 16 (3^6 = 729)
    assert all(t == types[0] for t in types), [str(t) for t in types]


def test_a_frames_columns_share_the_loops_groups():
    """A DataFrame's categorical columns are one block each. The loop merges their
    groups while a group's codes stay within the tables' bound, so a row reads one
    table entry per merged group, not one per column."""
    from bayesnb._data import Table

    votes = _votes()
    problem = mixture._Problem(bnb.NaiveBayes(), Table(votes), [0, 1], None, None)
    assert len(problem.blocks) == 16
    codes, offsets, bounds, sizes = problem.compiled.data[:4]
    # 435 rows: at most 435 // 4 = 108 codes a group; 3^4 = 81 (y, n or missing)
    assert _em_loop.ROWS_PER_CODE == 4
    np.testing.assert_array_equal(bounds, [0, 4, 8, 12, 16])
    np.testing.assert_array_equal(offsets, [0, 81, 162, 243])
    np.testing.assert_array_equal(sizes, [2] * 16)
    for j, column in enumerate(votes.columns):  # digit j % 4 of group j // 4, base 3
        digit = codes[j // 4].astype(int) // 3 ** (j % 4) % 3
        expected = votes[column].map({"n": 1, "y": 2}).fillna(0).to_numpy(int)
        np.testing.assert_array_equal(digit, expected, err_msg=column)


def test_semi_supervised_rows_keep_their_component(monkeypatch):
    X, z = _mixed()
    y = pd.Series(z.astype(object))
    y[np.random.default_rng(1).random(len(z)) < 0.8] = None  # 20 % known
    kwargs = {"y": y, "n_init": 2, "random_state": 0}
    compiled = bnb.NaiveBayes().cluster(X, 3, **kwargs)
    python = _fit(bnb.NaiveBayes(), X, 3, python=True, monkeypatch=monkeypatch, **kwargs)
    _check_semi_supervised(compiled, python, y, z)


def test_semi_supervised_patterns(monkeypatch):
    """Known rows with few patterns: a pattern's key holds the row's known component."""
    X = _few_patterns()
    z = np.random.default_rng(3).integers(0, 3, len(X))
    y = pd.Series(z.astype(object))
    y[np.random.default_rng(4).random(len(z)) < 0.9] = None
    kwargs = {"y": y, "n_init": 2, "random_state": 0, "init": "random"}
    model = bnb.NaiveBayes(bnb.Categorical())
    compiled = model.cluster(X, 3, **kwargs)
    python = _fit(model, X, 3, python=True, monkeypatch=monkeypatch, **kwargs)
    _check_semi_supervised(compiled, python, y, z)


def _check_semi_supervised(compiled, python, y, z):
    for a, b in zip(compiled.restarts, python.restarts, strict=True):
        # the same path; at the optimum, where the gains are round-off, the stopping
        # rule may take one more or one fewer SQUAREM cycle
        m = min(len(a.history), len(b.history))
        assert abs(len(a.history) - len(b.history)) <= 3
        np.testing.assert_allclose(a.history[:m], b.history[:m], rtol=1e-12)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)
    known = y.notna().to_numpy()
    resp = compiled.responsibilities[known]
    np.testing.assert_array_equal(resp.argmax(axis=1), z[known])
    np.testing.assert_array_equal(resp.max(axis=1), 1.0)


# -- values pinned from the Python engine (before the compiled loop) ---------------------


def test_pinned_optima():
    """Final objectives and iteration counts of the Python engine, pinned."""
    votes = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y"))).cluster(
        _votes(), 2, n_init=3, random_state=0
    )
    assert votes.objective == pytest.approx(PINNED["votes"][0], rel=1e-12, abs=0)
    assert votes.n_iter == PINNED["votes"][1]
    # pinned under the mixture's earlier default Gaussian prior (kappa = alpha = 1, beta
    # the 1/N variance of all the rows), now declared
    old = bnb.datasets.old_faithful()
    earlier = {c: bnb.Gaussian(bnb.NormalInverseGamma(beta=np.var(old[c]))) for c in old}
    faithful = bnb.NaiveBayes(earlier).cluster(old, 3, n_init=3, random_state=0)
    assert faithful.objective == pytest.approx(PINNED["faithful"][0], rel=1e-12, abs=0)
    assert faithful.n_iter == PINNED["faithful"][1]


#: (objective, iterations) of the Python engine at commit 82a390e.
PINNED = {"votes": (-3137.595374904465, 12), "faithful": (-1200.6477139803533, 33)}


# -- the loop's own checks ----------------------------------------------------------------


def test_the_loop_flags_a_decrease_beyond_round_off():
    """``_accept`` (the loop's monotonicity check) allows round-off and the
    rounding of the Gaussian means, and no more."""
    history = np.array([-1000.0, 0.0])
    slack = np.zeros(2)
    banks = tuple(np.zeros((6, 1, 0)) for _ in range(4))
    allowed = 1e-9 * (1000.0 + 10)
    assert _em_loop._accept(history, slack, 1, -1000.0 - 0.5 * allowed, banks, 0, 10, 1.0)
    assert not _em_loop._accept(history, slack, 1, -1000.0 - 2.0 * allowed, banks, 0, 10, 1.0)


def test_a_stopped_loop_hands_the_restart_to_the_python_engine(monkeypatch, worse_second_m_step):
    """Whatever stops the loop (a decrease, a row of likelihood 0, an undefined
    estimate) hands the restart to the Python engine, which raises the error the user
    gets: here its M-step is sabotaged, and its monotonicity check names the step."""

    class Stopped(_em_loop.CompiledProblem):
        def run_many(self, states, max_iter, tol, accelerate):
            return [None] * len(states)  # as the loop reports anything irregular

    original = _em_loop.compile_problem

    def stopped(problem):
        return Stopped(problem, original(problem).kernels)

    monkeypatch.setattr(mixture._em_loop, "compile_problem", stopped)
    with pytest.raises(MonotonicityError, match="decreased at iteration 2"):
        bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0))).cluster(
            _votes(), 3, n_init=1, estimate="map"
        )


# -- restarts advancing together --------------------------------------------------------


def _starts(model, X, k, n_starts, seed):
    """A problem and ``n_starts`` random starts, drawn in turn as ``cluster`` does."""
    from bayesnb._data import Table

    problem = mixture._Problem(model, Table(X), list(range(k)), None, None)
    rng = np.random.default_rng(seed)
    states = [
        problem.estimate(*problem.statistics(problem.random_weights(rng))) for _ in range(n_starts)
    ]
    return problem, states


@pytest.mark.parametrize(
    "case",
    [
        ("binary", lambda: np.random.default_rng(3).random((3000, 12)) < 0.4, bnb.Bernoulli()),
        ("patterns", _few_patterns, bnb.Categorical()),
        ("mixed", lambda: _mixed()[0], None),
    ],
    ids=lambda c: c[0],
)
def test_restarts_advance_together_each_as_alone(case):
    """``run_many`` sweeps the data once per round for every restart still running,
    each at its own point of its own SQUAREM cycle; every restart's history, sweeps
    and final state are the ones it reaches run alone (a batch of one), and the
    restarts that converge first drop out."""
    _, data, family = case
    model = bnb.NaiveBayes() if family is None else bnb.NaiveBayes(family)
    problem, states = _starts(model, data(), 3, 12, seed=0)
    together = problem.compiled.run_many(states, 500, 1e-10, accelerate=True)
    alone = [problem.compiled.run(s, 500, 1e-10, accelerate=True) for s in states]
    lengths = {len(a[1]) for a in alone}
    assert len(lengths) > 1  # the restarts stop at different rounds
    for a, b in zip(together, alone, strict=True):
        state, history, loglik, row_ll, resp, converged, n_sweeps = a
        assert converged == b[5] and n_sweeps == b[6] and len(history) == len(b[1])
        np.testing.assert_allclose(history, b[1], rtol=1e-13)
        assert loglik == pytest.approx(b[2], rel=1e-13)
        np.testing.assert_allclose(row_ll, b[3], rtol=1e-12)
        np.testing.assert_allclose(resp, b[4], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(state.class_log_prob, b[0].class_log_prob, rtol=1e-9)


def test_an_irregular_restart_leaves_the_batch_alone():
    """A restart that meets a row of likelihood 0 (here its start gives a value seen
    in the data probability 0 in every component) stops, reported as None, and the
    restarts beside it run exactly as alone."""
    X = np.random.default_rng(5).random((400, 6)) < 0.5
    problem, states = _starts(bnb.NaiveBayes(bnb.Bernoulli()), X, 2, 3, seed=1)
    broken = states[1]
    log_prob = broken.block_params[0]["log_prob"]
    log_prob[:, 0] = [-np.inf, 0.0]  # feature 0 is 1 in every component, surely
    together = problem.compiled.run_many(states, 200, 1e-10, accelerate=True)
    assert together[1] is None
    for i in (0, 2):
        alone = problem.compiled.run(states[i], 200, 1e-10, accelerate=True)
        np.testing.assert_allclose(together[i][1], alone[1], rtol=1e-13)
        assert together[i][6] == alone[6]
