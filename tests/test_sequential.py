"""Sequential updating: ``NaiveBayesFit.update``, ``fit(classes=)`` and the scikit-learn
wrappers' ``partial_fit``.

The conjugate update is exact: the posterior after a batch, used as the prior of the
next, is the posterior from both batches. So fitting in batches equals fitting once,
to round-off (compared here to 1e-12), for every declared prior; the Gaussian's
default prior is resolved from the first batch and stays fixed, so there the
batches equal one fit declaring the prior the first fit resolved.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn import naive_bayes as sknb
from sklearn.base import clone

import bayesnb as bnb
from bayesnb import errors
from bayesnb.sklearn import (
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MultinomialNB,
    NaiveBayesClassifier,
)

TOL = {"rtol": 1e-12, "atol": 1e-12}

# ML (and MAP under alpha <= 1) gives a probability 0 to a value a class has not shown,
# which the small batches here do; the warning saying so is tested in test_priors.py
# (and below, where a class is absent from the first partial_fit chunk).
pytestmark = pytest.mark.filterwarnings("ignore::bayesnb.ZeroProbabilityWarning")


def assert_same_fit(a, b, *, tol=None):
    """Every variable of ``params`` and ``counts`` of two fits, with their coordinates."""
    tol = TOL if tol is None else tol
    assert a.labels == b.labels
    for got, want in ((a.params, b.params), (a.counts, b.counts)):
        assert set(got.data_vars) == set(want.data_vars)
        for name in want.data_vars:
            assert got[name].dims == want[name].dims, name
            for dim in want[name].coords:
                np.testing.assert_array_equal(got[name][dim].values, want[name][dim].values)
            np.testing.assert_allclose(got[name].values, want[name].values, **tol, err_msg=name)


def in_batches(model, parts, estimate, **fit_options):
    """``model`` fitted on ``parts[0]`` and updated with each later part in turn; each
    part is ``(X, y)`` or ``(X, y, sample_weight)``."""
    first, *later = parts
    w = first[2] if len(first) > 2 else None
    fit = model.fit(first[0], first[1], estimate=estimate, sample_weight=w, **fit_options)
    for part in later:
        fit = fit.update(part[0], part[1], sample_weight=part[2] if len(part) > 2 else None)
    return fit


def split(X, y, *cuts, w=None):
    """Consecutive row ranges of X, y (and w) cut at ``cuts``."""
    bounds = [0, *cuts, len(y)]
    take = (lambda v, a, b: v.iloc[a:b]) if isinstance(X, pd.DataFrame) else None
    parts = []
    for a, b in itertools.pairwise(bounds):
        x = take(X, a, b) if take else X[a:b]
        part = (x, y[a:b]) if w is None else (x, y[a:b], w[a:b])
        parts.append(part)
    return parts


# -- seed 003: the soccer team's Beta updating --------------------------------------------


def soccer_model():
    # One feature, `win`, under a constant class: its Bernoulli parameter is the
    # probability of a win. Beta(4, 7): 4 pseudo-wins and 7 pseudo-losses.
    return bnb.NaiveBayes({"win": bnb.Bernoulli(bnb.Beta(4, 7))})


def soccer_games(*wins):
    return pd.DataFrame({"win": list(wins), "team": "ours"})


def test_seed003_beta_updating_prior_then_each_batch_then_the_posterior():
    games = bnb.datasets.soccer_games().assign(team="ours")  # t, f, f
    assert games["win"].tolist() == [True, False, False]
    later = soccer_games(False, False)
    a0, b0 = 4, 7
    for estimate in ("mean", "map"):
        fit = soccer_model().fit(games, target="team", estimate=estimate)
        losses, wins = fit.counts["win"].sel(class_label="ours").values  # [false, true]
        a, b = a0 + wins, b0 + losses
        assert (a, b) == (5, 9)  # Beta(4, 7) after 1 win and 2 losses
        theta = fit.params["win"].sel(class_label="ours").item()
        if estimate == "mean":
            assert theta == pytest.approx(5 / 14, abs=1e-15)  # a / (a + b)
        else:
            assert theta == pytest.approx(4 / 12, abs=1e-15)  # (a - 1) / (a + b - 2)

        after = fit.update(later, target="team")
        losses, wins = after.counts["win"].sel(class_label="ours").values
        a, b = a0 + wins, b0 + losses
        # the seed's slide: Beta(4, 7) with 1 positive and 4 negative is Beta(5, 11)
        assert (a, b) == (5, 11)
        theta = after.params["win"].sel(class_label="ours").item()
        if estimate == "mean":
            assert theta == pytest.approx(5 / 16, abs=1e-15)
        else:
            assert theta == pytest.approx(4 / 14, abs=1e-15)
        assert after.params["class_prob"].item() == 1.0
        assert after.counts["class_count"].item() == 5

        # a fit is a value: the first one is unchanged, and keeps its one batch
        assert fit.params["win"].sel(class_label="ours").item() == pytest.approx(
            5 / 14 if estimate == "mean" else 4 / 12, abs=1e-15
        )
        assert fit.counts["win"].values.tolist() == [[2.0, 1.0]]
        assert len(fit.training) == 1
        assert [t.table.n_rows for t in after.training] == [3, 2]
        assert after.training[0] is fit.training[0]


def test_seed003_game_by_game_equals_all_games_at_once():
    games = [True, False, False, False, False]
    fit = soccer_model().fit(soccer_games(games[0]), target="team")
    for win in games[1:]:
        fit = fit.update(soccer_games(win), target="team")
    # Beta(4 + 1, 7 + 4): mean 5/16
    assert fit.params["win"].item() == pytest.approx(5 / 16, abs=1e-15)
    assert len(fit.training) == 5


# -- two (or three) batches equal one fit ----------------------------------------------------


ESTIMATES = ["ml", "map", "mean"]


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_bernoulli_block_in_two_and_three_batches(estimate):
    rng = np.random.default_rng(1)
    X, y = rng.integers(0, 2, (90, 6)), rng.integers(0, 3, 90)
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2.0, 3.0)))
    once = model.fit(X, y, estimate=estimate)
    assert_same_fit(in_batches(model, split(X, y, 40), estimate), once)
    assert_same_fit(in_batches(model, split(X, y, 25, 61), estimate), once)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_bernoulli_columns_of_a_frame(estimate):
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.random((70, 5)) < 0.4, columns=list("abcde"))
    X["e"] = X["e"].map({True: "yes", False: "no"})
    y = pd.Series(rng.choice(["p", "q"], 70), name="cls")
    # Booleans (fused into one run of single columns), and "no"/"yes" strings
    model = bnb.NaiveBayes({**{c: bnb.Bernoulli() for c in "abcd"}, "e": bnb.Bernoulli()})
    once = model.fit(X, y, estimate=estimate)
    assert once.blocks[4].values == ("no", "yes")
    assert_same_fit(in_batches(model, split(X, y, 33), estimate), once)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_categorical_with_declared_categories(estimate):
    rng = np.random.default_rng(3)
    colours, sizes = ["red", "green", "blue", "grey"], ["S", "M", "L"]
    X = pd.DataFrame({"colour": rng.choice(colours, 80), "size": rng.choice(sizes, 80)})
    X.loc[:39, "colour"] = X.loc[:39, "colour"].replace("grey", "red")  # grey: later only
    y = rng.choice(["a", "b", "c"], 80)
    model = bnb.NaiveBayes(
        {
            "colour": bnb.Categorical(bnb.Dirichlet(1.5), categories=colours),
            "size": bnb.Categorical(bnb.Dirichlet([1.0, 2.0, 3.0]), categories=sizes),
        }
    )
    once = model.fit(X, y, estimate=estimate)
    assert "grey" not in set(X["colour"].iloc[:40]) and "grey" in set(X["colour"].iloc[40:])
    assert_same_fit(in_batches(model, split(X, y, 40), estimate), once)
    assert_same_fit(in_batches(model, split(X, y, 20, 50), estimate), once)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_categorical_block_of_integer_codes(estimate):
    rng = np.random.default_rng(4)
    X, y = rng.integers(0, 4, (100, 3)), rng.integers(0, 2, 100)
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))  # codes learnt: 0..3
    once = model.fit(X, y, estimate=estimate)
    assert_same_fit(in_batches(model, split(X, y, 50), estimate), once)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_binned(estimate):
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"t": rng.uniform(0, 10, 60), "u": rng.uniform(-1, 1, 60)})
    y = rng.integers(0, 2, 60)
    model = bnb.NaiveBayes(
        {"t": bnb.Binned([0, 2.5, 5, 7.5, 10], bnb.Dirichlet(2.0)), "u": bnb.Binned([-1, 0, 1])}
    )
    once = model.fit(X, y, estimate=estimate)
    assert_same_fit(in_batches(model, split(X, y, 30), estimate), once)


@pytest.mark.parametrize("estimate", [*ESTIMATES, "predictive"])
@pytest.mark.parametrize("form", ["dense", "sparse"])
def test_multinomial_dense_and_sparse(estimate, form):
    rng = np.random.default_rng(6)
    X, y = rng.poisson(1.5, (80, 12)), rng.integers(0, 3, 80)
    X[:, 11] = 0
    X[60:, 11] = 4  # a word only the last batch uses
    if form == "sparse":
        X = sparse.csr_array(X)
    model = bnb.NaiveBayes(bnb.Multinomial(bnb.Dirichlet(1.0)))
    once = model.fit(X, y, estimate=estimate)
    assert once.blocks[0].kind == "multinomial"
    assert_same_fit(in_batches(model, split(X, y, 35), estimate), once)
    assert_same_fit(in_batches(model, split(X, y, 20, 60), estimate), once)


def nig(d=1):
    return bnb.NormalInverseGamma(
        mu=np.linspace(-1, 1, d), kappa=0.5, alpha=3.0, beta=np.linspace(1, 2, d)
    )


@pytest.mark.parametrize("estimate", [*ESTIMATES, "predictive"])
def test_gaussian_with_a_declared_prior(estimate):
    rng = np.random.default_rng(7)
    X = rng.normal(loc=[100.0, -3.0, 0.0], scale=[5.0, 0.1, 1.0], size=(90, 3))
    y = rng.integers(0, 3, 90)
    model = bnb.NaiveBayes(bnb.Gaussian(nig(3)))
    once = model.fit(X, y, estimate=estimate)
    assert_same_fit(in_batches(model, split(X, y, 45), estimate), once)
    assert_same_fit(in_batches(model, split(X, y, 10, 47), estimate), once)


@pytest.mark.parametrize("estimate", [*ESTIMATES, "predictive"])
def test_gaussian_default_prior_stays_the_one_the_first_fit_resolved(estimate):
    rng = np.random.default_rng(8)
    X = rng.normal(loc=[5.0, 0.0], scale=[2.0, 0.5], size=(80, 2))
    y = rng.integers(0, 2, 80)
    first = bnb.NaiveBayes(bnb.Gaussian()).fit(X[:30], y[:30], estimate=estimate)
    batches = first.update(X[30:], y[30:])
    resolved = first.blocks[0].prior
    # the default centres each class's prior on the first batch's class means
    for k in range(2):
        np.testing.assert_allclose(resolved.mu[k], X[:30][y[:30] == k].mean(axis=0), rtol=1e-12)
    assert batches.blocks[0].prior is resolved
    once = bnb.NaiveBayes(bnb.Gaussian(resolved)).fit(X, y, estimate=estimate)
    assert_same_fit(batches, once)


@pytest.mark.parametrize("estimate", ["map", "mean"])
def test_mixed_declaration_with_missing_values(estimate):
    rng = np.random.default_rng(9)
    n = 120
    X = pd.DataFrame(
        {
            "flag": rng.random(n) < 0.3,
            "colour": rng.choice(["r", "g", "b"], n).astype(object),
            "height": rng.normal(170, 10, n),
            "weight": rng.normal(70, 8, n),
            "age": rng.uniform(20, 60, n),
        }
    )
    X["flag"] = X["flag"].astype(float)
    for col, frac in (("flag", 0.1), ("colour", 0.15), ("height", 0.2), ("age", 0.1)):
        X.loc[rng.random(n) < frac, col] = np.nan
    X.loc[:59, "weight"] = np.nan  # no weight at all in the first batch
    X.loc[60, "weight"] = 71.0
    y = rng.choice(["u", "v"], n)
    model = bnb.NaiveBayes(
        {
            "flag": bnb.Bernoulli(bnb.Beta(2, 2)),
            "colour": bnb.Categorical(categories=["r", "g", "b"]),
            "height": bnb.Gaussian(bnb.NormalInverseGamma(mu=170, kappa=1, alpha=2, beta=50)),
            "weight": bnb.Gaussian(bnb.NormalInverseGamma(mu=70, kappa=1, alpha=2, beta=30)),
            "age": bnb.Binned([20, 30, 40, 50, 60]),
        }
    )
    once = model.fit(X, y, estimate=estimate)
    assert X.isna().to_numpy().sum() > 60
    assert_same_fit(in_batches(model, split(X, y, 60), estimate), once)
    assert_same_fit(in_batches(model, split(X, y, 30, 90), estimate), once)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_sample_weights(estimate):
    rng = np.random.default_rng(10)
    X = pd.DataFrame(
        {
            "b": rng.integers(0, 2, 70),
            "c": rng.choice(["x", "y", "z"], 70),
            "g": rng.normal(size=70),
        }
    )
    y, w = rng.integers(0, 2, 70), rng.choice([0.0, 0.5, 1.0, 3.0], 70)
    model = bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(bnb.Beta(2, 2)),
            "c": bnb.Categorical(bnb.Dirichlet(2.0), categories=["x", "y", "z"]),
            "g": bnb.Gaussian(nig()),
        }
    )
    once = model.fit(X, y, estimate=estimate, sample_weight=w)
    assert_same_fit(in_batches(model, split(X, y, 35, w=w), estimate), once)
    # a weight of 2 is the row twice, also across batches
    twice = model.fit(X, y, estimate=estimate).update(X.iloc[:20], y[:20])
    w2 = np.ones(70)
    w2[:20] = 2.0
    assert_same_fit(twice, model.fit(X, y, estimate=estimate, sample_weight=w2))


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_house_votes_in_two_and_three_batches(estimate):
    votes = bnb.datasets.house_votes_84()
    X, y = votes.drop(columns="party"), votes["party"]
    model = bnb.NaiveBayes()  # 16 Categorical votes "y"/"n", 392 missing
    once = model.fit(X, y, estimate=estimate)
    assert_same_fit(in_batches(model, split(X, y, 200), estimate), once)
    assert_same_fit(in_batches(model, split(X, y, 100, 300), estimate), once)
    # with target= too, and as one Bernoulli block of "n"/"y" votes
    halves = model.fit(votes.iloc[:200], target="party", estimate=estimate)
    halves = halves.update(votes.iloc[200:], target="party")
    assert_same_fit(halves, model.fit(votes, target="party", estimate=estimate))
    block = bnb.NaiveBayes(
        {"votes": bnb.Bernoulli(values=("n", "y"), columns=[f"V{i}" for i in range(1, 17)])}
    )
    assert_same_fit(
        in_batches(block, split(X, y, 217), estimate), block.fit(X, y, estimate=estimate)
    )
    np.testing.assert_allclose(
        halves.predict_proba(X), once.predict_proba(X), rtol=1e-12, atol=1e-15
    )


def test_update_of_a_model_read_from_a_file(tmp_path):
    votes = bnb.datasets.house_votes_84()
    fit = bnb.NaiveBayes().fit(votes.iloc[:250], target="party")
    fit.save(tmp_path / "votes.nc")
    loaded = bnb.load(tmp_path / "votes.nc")
    assert loaded.training == []
    updated = loaded.update(votes.iloc[250:], target="party")
    assert_same_fit(updated, bnb.NaiveBayes().fit(votes, target="party"))
    assert loaded.training == []  # unchanged
    # The file holds no rows, so the updated fit keeps none: its posterior has no data
    # groups that would cover 185 of the 435 rows its parameters come from.
    assert updated.training == []
    with pytest.warns(UserWarning, match="no training rows"):
        assert set(updated.posterior(draws=5, chains=1).children) == {"posterior", "prior"}


# -- classes= ------------------------------------------------------------------------------


def test_fit_with_classes_absent_from_y():
    X = np.array([[1, 0], [1, 1], [0, 1]])
    fit = bnb.NaiveBayes(bnb.Bernoulli()).fit(X, ["b", "b", "d"], classes=["d", "c", "b"])
    assert fit.labels == ["b", "c", "d"]  # sorted, as always
    np.testing.assert_allclose(fit.counts["class_count"].values, [2, 0, 1])
    # estimate="mean" under Beta(1, 1) and Dirichlet(1): (count + 1) / (N + 2), and
    # (class count + 1) / (3 + 3)
    np.testing.assert_allclose(fit.params["X"].sel(class_label="c").values, [1 / 2, 1 / 2])
    np.testing.assert_allclose(fit.params["X"].sel(class_label="b").values, [3 / 4, 2 / 4])
    np.testing.assert_allclose(fit.params["class_prob"].values, [3 / 6, 1 / 6, 2 / 6])
    # the absent class comes in a later batch
    later = fit.update(np.array([[0, 0], [1, 0]]), ["c", "c"])
    once = bnb.NaiveBayes(bnb.Bernoulli()).fit(
        np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0]]), ["b", "b", "d", "c", "c"]
    )
    assert_same_fit(later, once)


def test_fit_with_classes_equal_to_those_of_y_is_the_plain_fit():
    votes = bnb.datasets.house_votes_84()
    plain = bnb.NaiveBayes().fit(votes, target="party")
    given = bnb.NaiveBayes().fit(votes, target="party", classes=("republican", "democrat"))
    assert_same_fit(given, plain, tol={"rtol": 0, "atol": 0})


# -- bad input -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tennis_fit():
    df = bnb.datasets.play_tennis()
    return bnb.NaiveBayes().fit(df, target="play")


def test_update_with_a_label_the_first_fit_did_not_have(tennis_fit):
    df = bnb.datasets.play_tennis().iloc[:2].assign(play=["Yes", "Maybe"])
    with pytest.raises(errors.InputError, match=r"label 'Maybe'.*classes=") as info:
        tennis_fit.update(df, target="play")
    assert "first fit fixes the labels" in str(info.value)


def test_update_with_a_category_the_first_fit_did_not_learn(tennis_fit):
    df = bnb.datasets.play_tennis().iloc[:3].copy()
    df.loc[df.index[1], "outlook"] = "Snow"
    with pytest.raises(
        errors.InputError, match=r"column 'outlook'.*\['Snow'\].*categories="
    ) as info:
        tennis_fit.update(df, target="play")
    assert "Overcast" in str(info.value)  # the first fit's categories


def test_update_never_drops_an_unseen_integer_code():
    X, y = np.array([[0, 1], [1, 2], [2, 0]]), [0, 1, 1]
    fit = bnb.NaiveBayes(bnb.Categorical()).fit(X, y)
    with pytest.raises(errors.InputError, match=r"column 'x1'.*\[7\]"):
        fit.update(np.array([[0, 7], [1, 1]]), [0, 1])
    with pytest.raises(errors.InputError, match=r"column 'x0'.*\[3\]"):  # every value unseen
        fit.update(np.array([[3, 1], [3, 2]]), [0, 1])
    # at prediction an unseen code is still marginalized
    assert fit.predict_proba(np.array([[0, 7]])).shape == (1, 2)


def test_update_with_an_empty_batch(tennis_fit):
    df = bnb.datasets.play_tennis().iloc[:0]
    with pytest.raises(errors.InputError, match="empty batch"):
        tennis_fit.update(df, target="play")


def test_update_with_the_wrong_form_or_columns(tennis_fit):
    df = bnb.datasets.play_tennis()
    with pytest.raises(errors.InputError, match=r"lacks the feature column\(s\) \['wind'\]"):
        tennis_fit.update(df.drop(columns="wind"), target="play")
    with pytest.raises(errors.InputTypeError, match="X must be a DataFrame"):
        tennis_fit.update(df.drop(columns="play").to_numpy(), df["play"])
    with pytest.raises(errors.InputError, match=r"y= or target=.*target='play'"):
        tennis_fit.update(df)
    with pytest.raises(errors.InputError, match="sample_weight"):
        tennis_fit.update(df, target="play", sample_weight=[1.0, 2.0])


def test_update_with_a_value_outside_a_bernoulli_or_binned_domain():
    X = pd.DataFrame({"v": ["n", "y", "y"], "t": [0.5, 1.5, 2.5]})
    fit = bnb.NaiveBayes({"v": bnb.Bernoulli(), "t": bnb.Binned([0, 1, 2, 3])}).fit(X, [0, 1, 0])
    with pytest.raises(errors.InputError, match=r"'v'.*'maybe'"):
        fit.update(pd.DataFrame({"v": ["maybe"], "t": [1.0]}), [0])
    with pytest.raises(errors.InputError, match=r"'t'.*edges"):
        fit.update(pd.DataFrame({"v": ["y"], "t": [9.0]}), [0])


@pytest.mark.parametrize(
    ("classes", "match"),
    [
        (["a", "b", "a"], r"classes must list every class once; got \['a'\]"),
        (["a", None], r"classes has 1 missing label"),
        (["a", 1], r"classes mixes labels of the types"),
        ([], r"classes is empty"),
        ("ab", r"classes must hold one label per row"),
    ],
)
def test_fit_with_bad_classes(classes, match):
    X = np.array([[1, 0], [0, 1]])
    err = errors.InputTypeError if isinstance(classes, str) else errors.InputError
    with pytest.raises(err, match=match):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(X, ["a", "b"], classes=classes)


def test_fit_with_a_label_outside_classes():
    X = np.array([[1, 0], [0, 1], [1, 1]])
    with pytest.raises(errors.InputError, match=r"label 'z'.*Add it to classes="):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(X, ["a", "z", "a"], classes=["a", "b"])


# -- scikit-learn's partial_fit --------------------------------------------------------------


def chunks(n, *cuts):
    bounds = [0, *cuts, n]
    return [slice(a, b) for a, b in itertools.pairwise(bounds)]


CASES = [
    (
        BernoulliNB(alpha=0.5),
        sknb.BernoulliNB(alpha=0.5),
        lambda r: r.normal(size=(90, 5)),
    ),
    (
        MultinomialNB(alpha=2.0),
        sknb.MultinomialNB(alpha=2.0),
        lambda r: r.poisson(2, (90, 7)),
    ),
    (
        CategoricalNB(alpha=0.7),
        sknb.CategoricalNB(alpha=0.7),
        lambda r: r.integers(0, 4, (90, 3)),
    ),
    (
        GaussianNB(),
        sknb.GaussianNB(),
        lambda r: r.normal(size=(90, 4)),
    ),
]


@pytest.mark.parametrize(("ours", "theirs", "make_X"), CASES)
def test_partial_fit_is_one_fit_and_is_scikit_learns_partial_fit(ours, theirs, make_X):
    ours, theirs = clone(ours), clone(theirs)
    rng = np.random.default_rng(11)
    X, y = make_X(rng), rng.integers(0, 3, 90)
    for part in chunks(90, 30, 62):
        ours.partial_fit(X[part], y[part], classes=[0, 1, 2])
        theirs.partial_fit(X[part], y[part], classes=[0, 1, 2])
    once = type(ours)(**ours.get_params()).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), once.predict_proba(X), **TOL)
    assert_same_fit(ours.fit_, once.fit_)
    if isinstance(ours, GaussianNB):
        # scikit-learn's partial_fit takes epsilon_ from the last batch alone, bayesnb's
        # from every row so far, so the batches are its fit on all the rows
        theirs = clone(theirs).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert [t.table.n_rows for t in ours.fit_.training] == [30, 32, 28]


def test_partial_fit_of_the_general_classifier_on_a_frame():
    votes = bnb.datasets.house_votes_84()
    X, y = votes.drop(columns="party"), votes["party"]
    clf = NaiveBayesClassifier(estimate="mean")
    for part in chunks(len(y), 150, 300):
        clf.partial_fit(X.iloc[part], y.iloc[part], classes=["democrat", "republican"])
    once = NaiveBayesClassifier(estimate="mean").fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), once.predict_proba(X), **TOL)
    np.testing.assert_array_equal(clf.classes_, once.classes_)
    assert list(clf.feature_names_in_) == list(X.columns)


def test_partial_fit_with_sample_weight():
    rng = np.random.default_rng(13)
    X, y, w = rng.poisson(2, (60, 5)), rng.integers(0, 2, 60), rng.uniform(0, 2, 60)
    ours, theirs = MultinomialNB(), sknb.MultinomialNB()
    for part in chunks(60, 25):
        ours.partial_fit(X[part], y[part], classes=[0, 1], sample_weight=w[part])
        theirs.partial_fit(X[part], y[part], classes=[0, 1], sample_weight=w[part])
    once = MultinomialNB().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), once.predict_proba(X), **TOL)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)


def test_categorical_nb_partial_fit_widens_to_larger_codes_as_scikit_learn():
    """A later chunk with a code beyond those seen so far widens that feature's domain
    to 0 .. largest code, as scikit-learn's CategoricalNB does; under the symmetric
    Dirichlet(alpha) that is one fit on all the rows."""
    rng = np.random.default_rng(14)
    X, y = rng.integers(0, 3, (80, 3)), rng.integers(0, 2, 80)
    X[50:, 1] = rng.integers(0, 6, 30)  # codes 3..5 appear in the second chunk only
    X[70:, 2] = 4
    ours, theirs = CategoricalNB(alpha=0.5), sknb.CategoricalNB(alpha=0.5)
    for part in chunks(80, 50, 70):
        ours.partial_fit(X[part], y[part], classes=[0, 1])
        theirs.partial_fit(X[part], y[part], classes=[0, 1])
    assert [len(b.categories) for b in ours.fit_.blocks] == [3, 6, 5]
    assert [c.shape[1] for c in theirs.category_count_] == [3, 6, 5]
    once = CategoricalNB(alpha=0.5).fit(X, y)
    assert_same_fit(ours.fit_, once.fit_)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)
    # a later chunk with a feature all missing leaves that feature's domain as it is
    ours.partial_fit(np.array([[0.0, np.nan, 1.0]]), [1])
    assert [len(b.categories) for b in ours.fit_.blocks] == [3, 6, 5]


def test_categorical_nb_partial_fit_keeps_min_categories():
    X, y = np.array([[0], [1], [1]]), np.array([0, 1, 1])
    clf = CategoricalNB(min_categories=4).partial_fit(X[:2], y[:2], classes=[0, 1])
    clf.partial_fit(X[2:], y[2:])
    assert len(clf.fit_.blocks[0].categories) == 4
    # (count + 1) / (n + 4) for class 1: codes 0..3 with counts 0, 2, 0, 0
    np.testing.assert_allclose(
        clf.fit_.params["x0"].sel(class_label=1).values, [1, 3, 1, 1] / np.array(6)
    )


def test_partial_fit_needs_classes_on_the_first_call():
    X, y = np.array([[1, 0], [0, 1]]), [0, 1]
    for clf in (
        BernoulliNB(),
        MultinomialNB(),
        CategoricalNB(),
        GaussianNB(),
        NaiveBayesClassifier(),
    ):
        with pytest.raises(errors.InputError, match="classes must be passed on the first call"):
            clf.partial_fit(X, y)
        assert not hasattr(clf, "fit_")


def test_partial_fit_later_classes_must_be_the_first_ones():
    X, y = np.array([[1, 0], [0, 1]]), [0, 1]
    clf = BernoulliNB().partial_fit(X, y, classes=[0, 1, 2])
    clf.partial_fit(X, y, classes=[2, 1, 0])  # the same labels
    with pytest.raises(errors.InputError, match=r"classes=\[0, 1\] is not the same as on last"):
        clf.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(errors.InputError, match=r"classes=\[0, 1, 1\] is not the same"):
        clf.partial_fit(X, y, classes=[0, 1, 1])  # each once
    with pytest.raises(errors.InputError, match=r"label 3.*first fit fixes the labels"):
        clf.partial_fit(X, [0, 3])
    with pytest.raises(ValueError, match="X has 3 features"):
        clf.partial_fit(np.ones((2, 3)), y)


@pytest.mark.parametrize(("ours", "theirs", "make_X"), CASES)
def test_partial_fit_class_absent_from_the_first_chunk(ours, theirs, make_X):
    ours, theirs = clone(ours), clone(theirs)
    rng = np.random.default_rng(15)
    X, y = make_X(rng), rng.integers(0, 3, 90)
    y[:40] = rng.integers(0, 2, 40)  # class 2 comes in the second chunk only
    # class 2 has probability 0 until it has rows (fit_prior=True), without a warning,
    # as in scikit-learn; GaussianNB's ML estimate gives it its prior's mode until then
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours.partial_fit(X[:40], y[:40], classes=[0, 1, 2])
    assert ours.predict_proba(X)[:, 2].max() == 0.0
    ours.partial_fit(X[40:], y[40:])
    once = type(ours)(**ours.get_params()).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), once.predict_proba(X), **TOL)
    if isinstance(ours, GaussianNB):
        # scikit-learn's epsilon_ comes from the last batch alone, bayesnb's from every
        # row so far (so that the batches are one fit): compare without the floor
        ours = clone(ours).set_params(var_smoothing=0.0)
        theirs.set_params(var_smoothing=0.0)
        ours.partial_fit(X[:40], y[:40], classes=[0, 1, 2])
        ours.partial_fit(X[40:], y[40:])
    with np.errstate(divide="ignore"):
        theirs.partial_fit(X[:40], y[:40], classes=[0, 1, 2])
    theirs.partial_fit(X[40:], y[40:])
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)


def test_fit_after_partial_fit_starts_over_and_partial_fit_after_fit_goes_on():
    rng = np.random.default_rng(16)
    X, y = rng.poisson(2, (60, 4)), rng.integers(0, 2, 60)
    clf = MultinomialNB().partial_fit(X[:30], y[:30], classes=[0, 1])
    clf.fit(X[30:], y[30:])
    fresh = MultinomialNB().fit(X[30:], y[30:])
    np.testing.assert_array_equal(clf.predict_proba(X), fresh.predict_proba(X))
    assert len(clf.fit_.training) == 1
    clf.partial_fit(X[:30], y[:30])  # fit, then partial_fit: one more batch
    np.testing.assert_allclose(
        clf.predict_proba(X), MultinomialNB().fit(X, y).predict_proba(X), **TOL
    )


# -- property: any cut of any data -----------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 40),
    n_cuts=st.integers(1, 3),
    weighted=st.booleans(),
    estimate=st.sampled_from(["map", "mean", "predictive"]),
)
def test_any_cut_into_batches_is_one_fit(seed, n, n_cuts, weighted, estimate):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "b": rng.integers(0, 2, n).astype(float),
            "c": rng.choice(["x", "y", "z"], n).astype(object),
            "g": rng.normal(1e3, 1.0, n),
            "m": rng.exponential(1.0, n),
        }
    )
    X.loc[rng.random(n) < 0.2, "b"] = np.nan
    X.loc[rng.random(n) < 0.2, "c"] = None
    X.loc[rng.random(n) < 0.2, "g"] = np.nan
    y = rng.integers(0, 3, n)
    w = rng.uniform(0.1, 2.0, n) if weighted else None
    model = bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(bnb.Beta(1.5, 2.0)),
            "c": bnb.Categorical(bnb.Dirichlet(1.2), categories=["x", "y", "z"]),
            "g": bnb.Gaussian(bnb.NormalInverseGamma(mu=1e3, kappa=0.1, alpha=2.0, beta=1.0)),
            "m": bnb.Binned([0, 0.5, 1, 2, 1e6], bnb.Dirichlet(1.5)),
        }
    )
    cuts = sorted(rng.choice(np.arange(1, n), size=min(n_cuts, n - 1), replace=False).tolist())
    once = model.fit(X, y, estimate=estimate, sample_weight=w, classes=[0, 1, 2])
    fit = in_batches(model, split(X, y, *cuts, w=w), estimate, classes=[0, 1, 2])
    assert_same_fit(fit, once)
