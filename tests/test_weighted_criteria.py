"""Model-choice criteria of a weighted mixture count a row of weight 2 as two rows, as
the fit does; ICL survives a save and load; a ``y`` of the wrong length is named.

The oracle is the same mixture fitted on the rows repeated, from the same start: a
weight of 2 and a duplicated row give the same EM, so every criterion must agree.
"""

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb.errors import InputError


@pytest.fixture(scope="module")
def pair():
    X = bnb.datasets.house_votes_84()[["V3", "V4", "V5"]]
    XX = pd.concat([X, X], ignore_index=True)
    start = np.random.default_rng(0).dirichlet([1.0, 1.0], len(X))
    w = np.full(len(X), 2.0)
    weighted = bnb.NaiveBayes().cluster(X, 2, init=start, sample_weight=w)
    repeated = bnb.NaiveBayes().cluster(XX, 2, init=np.vstack([start, start]))
    return X, XX, w, weighted, repeated


def test_icl_counts_weights_as_repeated_rows(pair):
    _, _, _, weighted, repeated = pair
    assert weighted.bic == pytest.approx(repeated.bic, rel=1e-12)
    top = repeated.responsibilities.max(axis=1)  # ICL by its formula, on the repeated rows
    assert weighted.icl == pytest.approx(repeated.bic - 2 * np.log(top).sum(), rel=1e-12)


def test_cheeseman_stutz_and_patterns_count_weights_as_repeated_rows(pair):
    X, XX, w, weighted, repeated = pair
    assert weighted.cheeseman_stutz(X, sample_weight=w) == pytest.approx(
        repeated.cheeseman_stutz(XX), rel=1e-12
    )
    got = weighted.pattern_statistics(X, sample_weight=w)
    want = repeated.pattern_statistics(XX)
    for key in ("g2", "chi2"):
        assert got[key] == pytest.approx(want[key], rel=1e-9)
    assert got["n_complete"] == want["n_complete"] == 816
    assert got["n_patterns"] == want["n_patterns"] == 8


def test_a_weighted_fit_asks_for_its_weights(pair):
    X, _, _, weighted, _ = pair
    with pytest.raises(InputError, match=r"fitted with sample_weight \(total weight 870 over 435"):
        weighted.cheeseman_stutz(X)
    with pytest.raises(InputError, match="pattern_statistics"):
        weighted.pattern_statistics(X)


def test_compare_components_with_weights_equals_repeated_rows():
    X = bnb.datasets.house_votes_84()[["V3", "V4", "V5"]]
    XX = pd.concat([X, X], ignore_index=True)
    model = bnb.NaiveBayes()
    # from their own random starts, both reach the optimum of each K (the same point:
    # the weighted and the repeated objectives are one function), to EM's tolerance
    weighted = bnb.compare_components(
        model, X, 2, sample_weight=np.full(len(X), 2.0), n_init=5, random_state=0
    )
    repeated = bnb.compare_components(model, XX, 2, n_init=5, random_state=0)
    for column in ("bic", "icl", "cheeseman_stutz", "g2", "chi2"):
        np.testing.assert_allclose(weighted[column], repeated[column], rtol=1e-6)


def test_icl_survives_save_and_load(tmp_path):
    faithful = bnb.datasets.old_faithful()
    mix = bnb.NaiveBayes().cluster(faithful, 2, random_state=0)
    top = mix.responsibilities.max(axis=1)
    expected = mix.bic - 2 * np.log(top).sum()
    mix.save(tmp_path / "f.nc")
    loaded = bnb.load(tmp_path / "f.nc")
    assert loaded.icl == pytest.approx(expected, rel=1e-14)
    with pytest.raises(InputError, match=r"uncertainty\(\) needs the training rows"):
        loaded.uncertainty()


def test_a_y_of_the_wrong_length_is_named_first():
    G = pd.DataFrame({"g": np.random.default_rng(0).normal(size=60)})
    with pytest.raises(InputError, match="y has 10 entries for 60 rows of X"):
        bnb.NaiveBayes().cluster(G, 2, y=[0.0] * 10)
