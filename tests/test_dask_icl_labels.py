"""What a Dask fit carries beyond its parameters: ICL's sum over the training rows
(and the model choice criteria, summed partition by partition) and the training
frame's own column labels. The oracle is the in-memory fit of the same rows from the
same start; the two differ only in the order the rows' sums are added and in the
round-off of iterates that agree to 1e-10 (tests/test_dask.py), so 1e-9 relative
leaves room for round-off alone."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb._dask_em import DaskProblem
from bayesnb.model_choice import cheeseman_stutz, pattern_statistics

dd = pytest.importorskip("dask.dataframe")

from tests.test_dask import N_PARTS, _mixture_frame, _same, client  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("client")  # two worker processes
RTOL = 1e-9


def _start(model, frame, K, **options):
    """Two EM steps in memory: a start that is not the optimum."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not converged, by design
        return model.cluster(frame, K, max_iter=2, n_init=1, random_state=0, **options)


def _weights(n, seed=3):
    w = np.random.default_rng(seed).gamma(2.0, 0.5, n)
    w[::97] = 0.0  # rows left out, as the in-memory sum leaves them
    return w


# -- ICL -----------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["plain", "weighted", "semi-supervised"])
def test_icl_of_a_dask_mixture_is_the_in_memory_fits_from_its_last_sweep(monkeypatch, case):
    frame = _mixture_frame(n=1000, seed=7)
    ddf = dd.from_pandas(frame, npartitions=N_PARTS)
    options, dask_options = {}, {}
    if case == "weighted":
        w = _weights(len(frame))
        options["sample_weight"] = w
        dask_options["sample_weight"] = dd.from_pandas(
            pd.Series(w, index=frame.index), npartitions=N_PARTS
        )
    if case == "semi-supervised":
        known = pd.Series([np.nan] * len(frame), dtype=object, index=frame.index)
        known.iloc[:30] = ["A", "B", "C"] * 10
        options["y"] = known
        dask_options["y"] = dd.from_pandas(known, npartitions=N_PARTS)
    model = bnb.NaiveBayes()
    start = _start(model, frame, 3, **options)
    memory = model.cluster(frame, 3, init=start, **options)

    sweeps = []
    real = DaskProblem.sweep

    def counted(self, state, out=None):
        sweeps.append(state)
        return real(self, state, out)

    monkeypatch.setattr(DaskProblem, "sweep", counted)
    ours = model.cluster(ddf, 3, init=start, **dask_options)
    assert ours.n_iter == memory.n_iter
    # ICL's term alone (icl - bic = -2 sum_i w_i log max_k r_ik), then ICL itself
    term = memory.icl - memory.bic
    assert term > 1.0  # overlapping components: the term is not a vanishing one
    assert ours.icl - ours.bic == pytest.approx(term, rel=RTOL)
    assert ours.icl == pytest.approx(memory.icl, rel=RTOL)
    # folded into EM's sweeps: no pass over the partitions beyond the fit's own
    assert len(sweeps) == ours.n_sweeps


def test_classification_em_on_dask_has_icl_equal_to_bic_as_in_memory():
    """Hard assignments: every row's top responsibility is 1, so ICL is BIC."""
    frame = _mixture_frame(n=900, seed=8)
    model = bnb.NaiveBayes()
    start = _start(model, frame, 3)
    memory = model.cluster(frame, 3, init=start, hard=True)
    ours = model.cluster(dd.from_pandas(frame, npartitions=N_PARTS), 3, init=start, hard=True)
    assert memory.icl == memory.bic
    assert ours.icl == ours.bic == pytest.approx(memory.bic, rel=RTOL)


def test_uncertainty_of_a_dask_fit_says_how_to_get_it_and_the_remedy_holds():
    frame = _mixture_frame(n=900, seed=9)
    ddf = dd.from_pandas(frame, npartitions=N_PARTS)
    model = bnb.NaiveBayes()
    start = _start(model, frame, 3)
    memory = model.cluster(frame, 3, init=start)
    ours = model.cluster(ddf, 3, init=start)
    with pytest.raises(bnb.InputError, match=r"Dask.*1 - predict_proba\(X\)\.max\(axis=1\)"):
        ours.uncertainty()
    lazy = 1 - ours.predict_proba(ddf).max(axis=1)  # the remedy, on the Dask rows
    np.testing.assert_allclose(lazy.compute(), memory.uncertainty(), rtol=1e-9, atol=1e-12)


# -- model choice ------------------------------------------------------------------------------
def test_compare_covariances_of_a_dask_frame_has_the_in_memory_icl():
    rng = np.random.default_rng(11)
    z = rng.integers(0, 2, 500)
    frame = pd.DataFrame({"u": rng.normal(1.5 * z, 1.0), "v": rng.normal(-z, 0.8)})
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    start = _start(model, frame, 2)
    options = {"k_min": 2, "covariances": ("full",), "init": start}
    memory = bnb.compare_covariances(frame, 2, **options)
    ours = bnb.compare_covariances(dd.from_pandas(frame, npartitions=N_PARTS), 2, **options)
    assert ours["error"].tolist() == [""]  # ICL no longer fails the row
    for column in ("log_likelihood", "bic", "icl"):
        np.testing.assert_allclose(ours[column], memory[column], rtol=RTOL, err_msg=column)
    assert (memory["icl"] > memory["bic"]).all()


def _votes(parts=5):
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    w = _weights(len(votes))
    ddf = dd.from_pandas(votes, npartitions=parts)
    dw = dd.from_pandas(pd.Series(w, index=votes.index), npartitions=parts)
    return votes, ddf, w, dw


@pytest.mark.parametrize("weighted", [False, True])
def test_the_criteria_of_one_fit_summed_over_partitions_are_the_in_memory_ones(weighted):
    """Cheeseman-Stutz and the pattern statistics of one fit, on its rows in memory
    and as 5 partitions (missing votes included)."""
    votes, ddf, w, dw = _votes()
    w, dw = (w, dw) if weighted else (None, None)
    fit = bnb.NaiveBayes().cluster(votes, 2, random_state=0, sample_weight=w)
    assert cheeseman_stutz(fit, ddf, sample_weight=dw) == pytest.approx(
        cheeseman_stutz(fit, votes, sample_weight=w), rel=RTOL
    )
    three = ["V3", "V4", "V5"]  # 8 patterns: a tally whose expected counts are not tiny
    fit = bnb.NaiveBayes().cluster(votes[three], 2, random_state=0, sample_weight=w)
    memory = pattern_statistics(fit, votes[three], sample_weight=w)
    ours = pattern_statistics(fit, ddf[three], sample_weight=dw)
    assert ours.keys() == memory.keys()
    assert ours["df"] == memory["df"] and ours["n_patterns"] == memory["n_patterns"] == 8
    for key in ("g2", "chi2", "n_complete"):
        assert ours[key] == pytest.approx(memory[key], rel=RTOL), key
    if weighted:  # a weighted fit's criteria need its weights, on Dask as in memory
        with pytest.raises(bnb.InputError, match=r"cheeseman_stutz: .*sample_weight=\.\.\."):
            cheeseman_stutz(fit, ddf[three])


def test_compare_components_of_a_dask_frame_is_the_in_memory_table_at_k_1():
    """One component has one optimum, reached from any start: every column of the
    table (ICL, Cheeseman-Stutz, G² and χ² included) is the in-memory one."""
    votes, ddf, _, _ = _votes()
    three = ["V3", "V4", "V5"]
    model = bnb.NaiveBayes()
    memory = bnb.compare_components(model, votes[three], 1, random_state=0)
    ours = bnb.compare_components(model, ddf[three], 1, random_state=0)
    assert ours.columns.tolist() == memory.columns.tolist()
    for column in ("log_likelihood", "bic", "icl", "cheeseman_stutz", "g2", "chi2"):
        np.testing.assert_allclose(ours[column], memory[column], rtol=RTOL, err_msg=column)
    assert ours["n_complete"].tolist() == memory["n_complete"].tolist()


# -- column labels -----------------------------------------------------------------------------
def _int_labelled(n=600, seed=12):
    """Integer column labels over a float, a Boolean, a categorical and a text column."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            0: rng.normal(2.0 * z, 1.0),
            1: rng.random(n) < 0.2 + 0.5 * z,
            2: pd.Categorical(np.where(rng.random(n) < 0.3 + 0.4 * z, "a", "b")),
            3: rng.choice(["x", "y"], n),
            4: np.where(z == 1, "p", "q"),  # a label
            5: rng.gamma(2.0, 0.5, n),  # a weight
        }
    )


def _same_draws_layout(ours, memory):
    """sample() of both fits: the same column labels and dtypes."""
    drawn, expected = ours.sample(20, random_state=0), memory.sample(20, random_state=0)
    assert drawn.columns.tolist() == expected.columns.tolist()
    assert drawn.dtypes.tolist() == expected.dtypes.tolist()
    return drawn


def test_a_dask_mixture_keeps_int_column_labels_in_sample_and_through_a_file(tmp_path):
    ddf = dd.from_pandas(_int_labelled()[[0, 1, 2, 3]], npartitions=4)
    frame = ddf.compute()  # the same rows, in the dtypes Dask holds them in
    model = bnb.NaiveBayes()
    start = _start(model, frame, 2)
    memory = model.cluster(frame, 2, init=start)
    ours = model.cluster(ddf, 2, init=start)
    assert ours.column_labels == memory.column_labels == {"0": 0, "1": 1, "2": 2, "3": 3}
    drawn = _same_draws_layout(ours, memory)
    assert drawn.columns.tolist() == ["component", 0, 1, 2, 3]
    ours.save(tmp_path / "mix.nc")
    loaded = bnb.load(tmp_path / "mix.nc")
    assert loaded.column_labels == memory.column_labels
    _same_draws_layout(loaded, memory)
    assert loaded.icl == ours.icl == pytest.approx(memory.icl, rel=RTOL)


def test_a_dask_classifier_and_density_keep_int_column_labels(tmp_path):
    ddf = dd.from_pandas(_int_labelled(), npartitions=4)
    frame = ddf.compute()
    X = frame.drop(columns=[4, 5])
    # the label and the weights named by their int labels, as in memory
    ours = bnb.NaiveBayes().fit(ddf, target=4, sample_weight=5)
    memory = bnb.NaiveBayes().fit(X, frame[4], sample_weight=frame[5].to_numpy())
    _same(ours, memory)
    assert ours.column_labels == memory.column_labels == {"0": 0, "1": 1, "2": 2, "3": 3}
    assert ours.column_dtypes == memory.column_dtypes
    ours.save(tmp_path / "nb.nc")
    assert bnb.load(tmp_path / "nb.nc").column_labels == memory.column_labels

    ours = bnb.NaiveBayes().density(ddf[[0, 1, 2, 3]])
    memory = bnb.NaiveBayes().density(X)
    drawn = _same_draws_layout(ours, memory)
    assert drawn.columns.tolist() == [0, 1, 2, 3]
    ours.save(tmp_path / "d.nc")
    _same_draws_layout(bnb.load(tmp_path / "d.nc"), memory)


def test_an_int_target_that_is_not_a_column_is_named():
    ddf = dd.from_pandas(_int_labelled(n=40), npartitions=2)
    with pytest.raises(
        bnb.InputError, match=r"target=7 is not a column of X; its columns are \[0, "
    ):
        bnb.NaiveBayes().fit(ddf, target=7)
