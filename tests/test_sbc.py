"""Simulation-based calibration of the exact posterior (``NaiveBayesFit.posterior``).

For 200 data sets per model, parameters drawn from the declared priors, labelled rows
drawn from them, the rank of every true scalar parameter among 99 posterior draws of
the fit is uniform on 0..99 when the posterior is exact. The simulation and the ranks
are those of ``scripts/sbc_ranks.py`` (which prints the histograms); see its
``draw_labels`` for why drawing the class probabilities and labels again until both
classes occur keeps the ranks uniform. Each scalar parameter is checked on its own
with a chi-square test over 10 bins at p > 0.001, and two posteriors that are wrong
on purpose are rejected by the same check, so it has the power to see an error.
"""

import numpy as np
import pytest

import bayesnb as bnb

N_SIMS = 200
DRAWS = 99  # ranks 0..99: 10 possible ranks in each of 10 bins
BINS = 10
LEVEL = 0.001


@pytest.fixture(scope="module")
def sbc(repo_script):
    with repo_script("scripts/sbc_ranks.py") as module:
        yield module


@pytest.fixture(scope="module")
def runs(sbc):
    return {name: sbc.run_sbc(model, N_SIMS, DRAWS, seed=0) for name, model in sbc.MODELS.items()}


EXPECTED_PARAMETERS = {
    "bernoulli": ["class_prob[1]"] + [f"x{j}[{k}]" for j in range(3) for k in (0, 1)],
    "gaussian": ["class_prob[1]"]
    + [f"g{j}_{p}[{k}]" for j in range(2) for p in ("mu", "var") for k in (0, 1)],
}


@pytest.mark.parametrize("name", ["bernoulli", "gaussian"])
def test_ranks_of_every_parameter_are_uniform(sbc, runs, name):
    ranks, _ = runs[name]
    assert list(ranks) == EXPECTED_PARAMETERS[name]
    for param, r in ranks.items():
        assert r.shape == (N_SIMS,)
        assert r.min() >= 0 and r.max() <= DRAWS
        counts = sbc.rank_counts(r, DRAWS, BINS)
        assert counts.sum() == N_SIMS
        p = sbc.uniformity_p(r, DRAWS, BINS)
        assert p > LEVEL, f"{name} {param}: ranks not uniform (p = {p:.2g}), counts {counts}"


@pytest.mark.parametrize("name", ["bernoulli", "gaussian"])
def test_a_wrong_posterior_fails_the_check(sbc, runs, name):
    # class 0's true value ranked among class 1's draws: the other class's posterior
    _, swapped = runs[name]
    assert len(swapped) == len(EXPECTED_PARAMETERS[name]) // 2
    for param, r in swapped.items():
        assert sbc.uniformity_p(r, DRAWS, BINS) < LEVEL, param


def test_a_misdeclared_prior_fails_the_check(sbc):
    # the data simulated under Beta(2, 3) for x0, fitted under Beta(3, 2): the two
    # pseudo-counts swapped, the error a mix-up of the [false, true] order would make
    model = sbc.MODELS["bernoulli"]
    wrong = sbc.Model("bernoulli", "bernoulli", {**model.features, "x0": bnb.Beta(3.0, 2.0)})
    ranks, _ = sbc.run_sbc(model, N_SIMS, DRAWS, seed=0, fitted=wrong)
    for k in (0, 1):
        assert sbc.uniformity_p(ranks[f"x0[{k}]"], DRAWS, BINS) < LEVEL
    for param in ("x1[0]", "x1[1]", "x2[0]", "x2[1]", "class_prob[1]"):  # declared right
        assert sbc.uniformity_p(ranks[param], DRAWS, BINS) > LEVEL, param


def test_every_simulated_data_set_has_both_classes(sbc):
    rng = np.random.default_rng(3)
    for _ in range(200):
        pi, y = sbc.draw_labels(rng, n_rows=3)  # 3 rows: one class alone is frequent
        assert set(y.tolist()) == {0, 1}
        assert pi.shape == (2,) and abs(pi.sum() - 1.0) < 1e-12


def test_simulated_data_follow_the_declaration(sbc):
    model = sbc.MODELS["gaussian"]
    X, y, truth = sbc.simulate(model, np.random.default_rng(5))
    assert list(X.columns) == ["g0", "g1"] and len(X) == len(y) == sbc.N_ROWS
    assert set(truth) == set(EXPECTED_PARAMETERS["gaussian"])
    assert all(truth[f"g{j}_var[{k}]"] > 0 for j in range(2) for k in (0, 1))
    fit = model.declaration().fit(X, y)
    # the counts of the fit are those of the simulated rows (NaN left out)
    for k in (0, 1):
        observed = X["g0"][y == k].dropna()
        assert float(fit.counts["g0_n"].sel(class_label=k)) == len(observed)
        assert float(fit.counts["g0_mean"].sel(class_label=k)) == pytest.approx(observed.mean())


def test_rank_counts_needs_equal_bins(sbc):
    with pytest.raises(ValueError, match="multiple of bins"):
        sbc.rank_counts(np.arange(5), draws=100, bins=10)
    assert sbc.rank_counts(np.array([0, 9, 10, 99]), draws=99, bins=10).tolist() == [
        2,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
    ]


def test_script_prints_every_histogram(sbc, capsys):
    assert sbc.main(["--sims", "20", "--only", "bernoulli"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== bernoulli: 20 data sets")
    for param in EXPECTED_PARAMETERS["bernoulli"]:
        assert f"{param}: chi-square p = " in out
    assert out.count("  90- 99 ") == len(EXPECTED_PARAMETERS["bernoulli"])
    assert "gaussian" not in out
