"""Fitting, EM and prediction on Dask equal the in-memory results, under a
``distributed.LocalCluster`` of 2 worker processes started here, and only statistics
and parameters travel between workers."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb

dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

N_PARTS = 8


@pytest.fixture(scope="module")
def client():
    """Two worker processes. Work stealing is off: the scheduler's load balancing may
    otherwise move a partition to an idle worker, which is Dask's choice, not a step
    of the package's (see the README)."""
    import dask

    with (
        dask.config.set({"distributed.scheduler.work-stealing": False}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _frame(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Every family's kind of column, with missing values, and a category ("late")
    that first appears in the last partition."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["A", "B", "C"], n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"A": 0.0, "B": 1.0, "C": 2.0}).to_numpy()
    frame = pd.DataFrame(
        {
            "b": rng.random(n) < 0.2 + 0.2 * shift,
            "c": rng.choice(["x", "y", "z"], n).astype(object),
            "k": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "mid", "hi"]),
            "i": rng.integers(0, 5, n),
            "g": rng.normal(shift, 1.0 + shift),
            "pos": rng.gamma(2.0 + shift, 1.5),
            "bin": rng.normal(shift, 1.0),
            "w1": rng.poisson(1 + shift),
            "w2": rng.poisson(2.0, n),
            "w3": rng.poisson(3 - shift),
            "m1": rng.normal(shift, 1.0),
            "m2": rng.normal(0.0, 2.0, n),
            "y": y,
            "weight": rng.gamma(2.0, 0.5, n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "c"] = None
    frame.loc[rng.random(n) < 0.1, "g"] = np.nan
    frame.loc[rng.random(n) < 0.05, "pos"] = np.nan
    frame.loc[n - 5 :, "c"] = "late"  # in the last partition only
    return frame


def _declaration(estimate=None):
    return bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(),
            "c": bnb.Categorical(),
            "k": bnb.Categorical(),
            "i": bnb.Categorical(),
            "g": bnb.Gaussian(),
            "pos": bnb.Gamma(estimate="ml"),
            "bin": bnb.Binned(bins=5),
            "words": bnb.Multinomial(columns=["w1", "w2", "w3"]),
            "joint": bnb.MultivariateGaussian(columns=["m1", "m2"], estimate=estimate),
        }
    )


def _same(dask_fit, memory_fit, rtol=1e-12):
    assert dask_fit.labels == memory_fit.labels
    ours, theirs = dask_fit.params, memory_fit.params
    assert set(ours.data_vars) == set(theirs.data_vars)
    for name in theirs.data_vars:
        assert ours[name].dims == theirs[name].dims, name
        for dim in theirs[name].dims:
            assert list(ours[name][dim].values) == list(theirs[name][dim].values), (name, dim)
        np.testing.assert_allclose(
            ours[name].values, theirs[name].values, rtol=rtol, atol=1e-13, err_msg=name
        )


@pytest.mark.filterwarnings("ignore::bayesnb.priors.ZeroProbabilityWarning")
@pytest.mark.parametrize("estimate", ["ml", "map", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_supervised_fit_on_8_partitions_equals_the_in_memory_fit(client, estimate, weighted):
    frame = _frame()
    ddf = dd.from_pandas(frame, npartitions=N_PARTS).persist()
    assert "late" not in set(ddf.partitions[0].compute()["c"])
    assert "late" in set(ddf.partitions[N_PARTS - 1].compute()["c"])
    weight = "weight" if weighted else None
    X = frame.drop(columns=["weight"])
    memory = _declaration().fit(
        X,
        target="y",
        estimate=estimate,
        sample_weight=frame["weight"].to_numpy() if weighted else None,
    )
    ours = _declaration().fit(
        ddf if weighted else ddf.drop(columns="weight"),
        target="y",
        estimate=estimate,
        sample_weight=weight,
    )
    _same(ours, memory)
    assert "late" in ours.params["c"].coords["c_category"].values
    assert ours.training == []


def test_the_predictive_and_the_exact_posterior_from_the_merged_statistics(client):
    frame = _frame().drop(columns=["weight", "pos", "joint"], errors="ignore")
    frame = frame.drop(columns=["m1", "m2"])
    model = bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(),
            "c": bnb.Categorical(),
            "g": bnb.Gaussian(),
            "words": bnb.Multinomial(columns=["w1", "w2", "w3"]),
        }
    )
    X = frame[["b", "c", "g", "w1", "w2", "w3", "y"]]
    ddf = dd.from_pandas(X, npartitions=N_PARTS)
    memory = model.fit(X, target="y", estimate="predictive")
    ours = model.fit(ddf, target="y", estimate="predictive")
    _same(ours, memory)
    Xt = X.drop(columns="y")
    np.testing.assert_allclose(
        ours.predict_proba(Xt), memory.predict_proba(Xt), rtol=1e-12, atol=1e-15
    )
    post_mem = model.fit(X, target="y").posterior(draws=200, random_state=1)
    # a Dask fit keeps no rows: the posterior and prior alone (the same draws)
    post_ours = model.fit(ddf, target="y").posterior(draws=200, random_state=1, data=False)
    assert "observed_data" not in post_ours.children  # the rows stay in their partitions
    for name in post_mem["posterior"].data_vars:
        np.testing.assert_allclose(
            post_ours["posterior"][name].values,
            post_mem["posterior"][name].values,
            rtol=1e-12,
            atol=1e-15,  # draws near 0
            err_msg=name,
        )


def test_predict_proba_of_a_dask_frame_is_a_dask_frame_equal_to_in_memory(client):
    frame = _frame()
    X = frame.drop(columns=["weight"])
    fit = _declaration().fit(X, target="y")
    features = dd.from_pandas(X.drop(columns="y"), npartitions=N_PARTS)
    proba = fit.predict_proba(features)
    assert type(proba).__module__.startswith("dask")
    assert list(proba.columns) == fit.labels
    got = proba.compute()
    np.testing.assert_allclose(
        got.to_numpy(), fit.predict_proba(X.drop(columns="y")), rtol=1e-12, atol=1e-15
    )
    assert got.index.equals(X.index)
    labels = fit.predict(features).compute()
    assert (labels.to_numpy() == fit.predict(X.drop(columns="y"))).all()


def test_a_dask_array_with_dask_labels(client):
    rng = np.random.default_rng(3)
    x = rng.random((3000, 6)) < rng.random(6)
    y = rng.integers(0, 2, 3000)
    X = da.from_array(x, chunks=(400, 3))  # chunked along the columns too
    Y = da.from_array(y, chunks=400)
    memory = bnb.NaiveBayes().fit(x, y)
    ours = bnb.NaiveBayes().fit(X, Y)
    _same(ours, memory)
    proba = ours.predict_proba(X)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), memory.predict_proba(x), rtol=1e-12)


def _mixture_frame(n=3000, seed=4):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "b": rng.random(n) < 0.2 + 0.3 * z,
            "c": np.array(["x", "y", "z"])[(z + rng.integers(0, 2, n)) % 3],
            "g": rng.normal(2.0 * z, 1.0),
        }
    )
    frame.loc[rng.random(n) < 0.1, "g"] = np.nan
    return frame


def test_em_from_the_same_start_takes_the_same_iterates(client):
    """The accelerated EM from one start: every accepted objective and the final
    parameters equal the in-memory EM's to 1e-10."""
    frame = _mixture_frame()
    model = bnb.NaiveBayes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the start: two steps, not converged
        start = model.cluster(frame, 3, max_iter=2, n_init=1, random_state=0)
    memory = model.cluster(frame, 3, init=start)
    ours = model.cluster(dd.from_pandas(frame, npartitions=N_PARTS), 3, init=start)
    assert ours.n_iter == memory.n_iter and ours.converged
    np.testing.assert_allclose(ours.history, memory.history, rtol=1e-10, atol=0)
    assert np.all(np.diff(ours.history) >= 0)
    _same(ours, memory, rtol=1e-10)
    assert ours.n_samples == len(frame) and ours.responsibilities is None
    np.testing.assert_allclose(
        ours.predict_proba(frame), memory.predict_proba(frame), rtol=1e-9, atol=1e-12
    )


def test_em_plain_and_semi_supervised_take_the_same_iterates(client):
    frame = _mixture_frame(seed=5)
    known = pd.Series([np.nan] * len(frame), dtype=object)
    known.iloc[:30] = ["A", "B", "C"] * 10
    model = bnb.NaiveBayes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = model.cluster(frame, 3, y=known, max_iter=2, n_init=1, random_state=1)
    memory = model.cluster(frame, 3, y=known, init=start, accelerate=False)
    ddf = dd.from_pandas(frame, npartitions=N_PARTS)
    labels = dd.from_pandas(known, npartitions=N_PARTS)
    ours = model.cluster(ddf, 3, y=labels, init=start, accelerate=False)
    assert ours.labels == memory.labels == ["A", "B", "C"]
    np.testing.assert_allclose(ours.history, memory.history, rtol=1e-10, atol=0)
    _same(ours, memory, rtol=1e-10)


def test_em_by_default_starts_from_a_sample_and_reaches_the_in_memory_optimum(client):
    frame = _mixture_frame(seed=6)
    model = bnb.NaiveBayes()
    memory = model.cluster(frame, 3, random_state=0)
    ours = model.cluster(dd.from_pandas(frame, npartitions=N_PARTS), 3, random_state=0)
    assert ours.converged
    assert ours.objective == pytest.approx(memory.objective, abs=1e-4)


def test_no_rows_travel_between_workers(client):
    """The data persisted on the workers: a fit, an EM from given parameters and a
    prediction move nothing from worker to worker but statistics and parameters, and
    send the client nothing bigger."""
    frame = _mixture_frame(n=40_000, seed=7)
    pieces = [frame.iloc[rows] for rows in np.array_split(np.arange(len(frame)), N_PARTS)]
    part_bytes = int(pieces[0].memory_usage(deep=True).sum())
    held = client.scatter(pieces)  # the partitions, spread over the two workers
    assert len({w for ws in client.who_has(held).values() for w in ws}) == 2
    ddf = dd.from_delayed(held, meta=frame.iloc[:0], verify_meta=False)
    model = bnb.NaiveBayes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a start of two steps
        start = model.cluster(frame.iloc[:2000], 2, max_iter=2, n_init=1, random_state=0)

    def clear(dask_worker):
        dask_worker.transfer_incoming_log.clear()
        dask_worker.transfer_outgoing_log.clear()

    client.run(clear)
    model.fit(ddf, target="b")
    fit = model.cluster(ddf, 2, init=start)
    fit.predict_proba(ddf).sum().compute()
    logs = client.run(
        lambda dask_worker: {
            "in": [k for e in dask_worker.transfer_incoming_log for k in e["keys"].items()],
            "out": [k for e in dask_worker.transfer_outgoing_log for k in e["keys"].items()],
        }
    )
    between = [item for log in logs.values() for item in log["in"]]
    sent = [item for log in logs.values() for item in log["out"]]
    assert sent  # statistics did travel
    data_keys = {str(f.key) for f in held}
    assert not data_keys & {str(k) for k, _ in between + sent}
    biggest = max(between + sent, key=lambda item: item[1])
    assert biggest[1] < part_bytes / 20, (biggest, part_bytes)


def test_bad_dask_input_is_named(client):
    frame = _mixture_frame(n=200)
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(bnb.InputError, match="target='nope' is not a column"):
        bnb.NaiveBayes().fit(ddf, target="nope")
    with pytest.raises(bnb.InputError, match="learns bins='quantile'"):
        bnb.NaiveBayes({"g": bnb.Binned(bins="quantile", n_bins=4)}).fit(
            ddf[["g", "b"]], target="b"
        )
    with pytest.raises(bnb.InputError, match="not built"):
        bnb.NaiveBayes().cluster(ddf, 2, init="uniform")
    with pytest.raises(bnb.InputError, match="not built"):
        bnb.NaiveBayes().cluster(ddf, 2, method="mcmc")


def test_a_constant_gaussian_column_is_warned_of_as_in_memory():
    """The column's range (7 to 7) read from the partitions: the same warning as the
    in-memory bind, and none for a column with two values."""
    frame = bnb.datasets.old_faithful().assign(c=7.0)
    model = bnb.NaiveBayes()
    with pytest.warns(UserWarning, match=r"'c' holds one value, 7\.0, in every row"):
        model.cluster(dd.from_pandas(frame, npartitions=N_PARTS), 2, random_state=0)
    frame.loc[0, "c"] = 8.0
    model.cluster(dd.from_pandas(frame, npartitions=N_PARTS), 2, random_state=0)
