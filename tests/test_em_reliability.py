"""EM that reaches the optimum with its defaults: acceleration, the stopping rule, the
per-family default estimators, saddle points, row weights and semi-supervised labels.

Oracles: the best of 50 restarts run to tol=1e-12 by plain EM (a different algorithm
from the accelerated default), closed-form posterior means and scipy densities,
duplicated rows for row weights, and invariants (the objective never decreases).
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import bayesnb as bnb
import bayesnb.mixture as mixture
from bayesnb.mixture import ConvergenceWarning

DATA = bnb.datasets

# -- the default cluster() reaches the optimum -----------------------------------------------


def shipped_cases():
    """(name, declaration, X, K) for every data set bayesnb ships and K = 2, 3, 4 where
    K is at most the number of rows."""
    votes = DATA.house_votes_84().drop(columns="party")
    cases = [
        ("house votes, bernoulli", bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y"))), votes),
        ("house votes, categorical", bnb.NaiveBayes(), votes),
        ("play tennis", bnb.NaiveBayes(), DATA.play_tennis()),
        ("old faithful, gaussian", bnb.NaiveBayes(), DATA.old_faithful()),
        ("soccer games", bnb.NaiveBayes(), DATA.soccer_games()),
        ("temperature", bnb.NaiveBayes(), DATA.temperature()),
    ]
    return [
        pytest.param(model, X, K, id=f"{name}, K={K}")
        for name, model, X in cases
        for K in (2, 3, 4)
        if len(X) >= K
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("model", "X", "K"), shipped_cases())
def test_default_cluster_reaches_the_best_of_50_restarts(model, X, K):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        best = model.cluster(
            X, K, n_init=50, tol=1e-12, max_iter=20_000, accelerate=False, random_state=2024
        )
    for seed in range(3):
        fit = model.cluster(X, K, random_state=seed)  # every other option: the default
        assert fit.converged and not fit.saddle
        assert fit.objective >= best.objective - 1e-4, (seed, best.objective - fit.objective)
        # Smoothed: no probability is 0, and every variance is positive.
        for params in fit.block_params:
            for value in params.values():
                assert np.all(np.isfinite(value))
        assert np.all(np.isfinite(fit.class_log_prob))


def test_slow_progress_does_not_stop_em():
    # Plain EM on Old Faithful with 4 components creeps: the rule "stop when one step
    # gains at most 1e-6 per row" (the former default) stops 1e-3 below the optimum.
    model, X = bnb.NaiveBayes(), DATA.old_faithful()
    limit = model.cluster(X, 4, n_init=1, random_state=0, tol=1e-13, accelerate=False)
    gains = np.diff(limit.history)
    early = int(np.argmax(gains <= 1e-6 * len(X))) + 1  # where that rule stops
    assert limit.objective - limit.history[early] > 1e-3
    # The default rules, plain and accelerated, stop within 1e-4 of the limit.
    for accelerate in (False, True):
        fit = model.cluster(X, 4, n_init=1, random_state=0, accelerate=accelerate)
        assert fit.converged
        assert abs(limit.objective - fit.objective) <= 1e-4


# -- acceleration ----------------------------------------------------------------------------


def test_accelerated_em_reaches_the_plain_optimum_in_fewer_sweeps():
    X = DATA.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    plain = model.cluster(X, 3, n_init=1, random_state=0, accelerate=False, estimate="map")
    fast = model.cluster(X, 3, n_init=1, random_state=0, estimate="map")
    assert plain.n_sweeps == plain.n_iter + 1  # one sweep per plain step, plus the start
    assert fast.objective == pytest.approx(plain.objective, abs=1e-4)
    assert fast.n_sweeps < plain.n_sweeps / 2
    assert np.all(np.diff(fast.history) >= 0)
    # The extrapolated points are distributions: every probability row sums to one.
    for var in X.columns:
        np.testing.assert_allclose(fast.params[var].sum(f"{var}_category"), 1.0, rtol=1e-12)


def test_a_bad_extrapolation_falls_back_to_the_em_step(monkeypatch):
    # Every extrapolated point is made worse (the weights pushed to one component): it
    # is rejected, EM takes its own second step instead, and the run stays monotone and
    # reaches the optimum of plain EM.
    X = DATA.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))
    plain = model.cluster(X, 2, n_init=1, random_state=0, accelerate=False)
    real = mixture._extrapolate
    tried = []

    def worse(problem, theta0, theta1, theta2, step_max):
        _, _, rate = real(problem, theta0, theta1, theta2, step_max)
        bad = mixture._State(
            theta2.block_params, np.log(np.r_[1e-6, 1 - 1e-6][: len(theta2.class_log_prob)])
        )
        tried.append(1)
        return bad, -2.0, rate

    monkeypatch.setattr(mixture, "_extrapolate", worse)
    fast = model.cluster(X, 2, n_init=1, random_state=0)
    assert tried and fast.converged
    assert fast.n_sweeps == fast.n_iter + 1 + len(tried)  # one wasted sweep per rejection
    assert np.all(np.diff(fast.history) >= 0)
    assert fast.objective == pytest.approx(plain.objective, abs=1e-4)


def small_problem(seed: int, kind: str):
    """Small random data of one kind of features, and a declaration for it."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 40))
    if kind == "gaussian":
        centres = rng.normal(0.0, 3.0, (2, 2))
        z = rng.integers(0, 2, n)
        X = pd.DataFrame(rng.normal(centres[z], 1.0), columns=["g0", "g1"])
        X.iloc[rng.random((n, 2)) < 0.1] = np.nan
        model = bnb.NaiveBayes(bnb.Gaussian())
    else:
        X = pd.DataFrame(
            {
                "b": (rng.random(n) < 0.4).astype(float),
                "c": rng.choice(list("xyz"), n).astype(object),
            }
        )
        X.loc[rng.random(n) < 0.1, "b"] = np.nan
        X.loc[rng.random(n) < 0.1, "c"] = None
        model = bnb.NaiveBayes(
            {
                "b": bnb.Bernoulli(bnb.Beta(*rng.uniform(1, 3, 2))),
                "c": bnb.Categorical(bnb.Dirichlet(rng.uniform(1, 3)), categories=list("xyz")),
            },
            class_prior=bnb.Dirichlet(rng.uniform(1, 2)),
        )
    return model, X


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["discrete", "gaussian"]),
    K=st.integers(1, 4),
    estimate=st.sampled_from([None, "map"]),
    accelerate=st.booleans(),
)
def test_the_objective_never_decreases(seed, kind, K, estimate, accelerate):
    model, X = small_problem(seed, kind)
    K = min(K, len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # MAP under the default Dirichlet(1) may empty a component: documented warning.
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        fit = model.cluster(
            X,
            K,
            n_init=2,
            max_iter=60,
            tol=0.0,
            estimate=estimate,
            accelerate=accelerate,
            random_state=seed,
        )
    for run in fit.restarts:
        h = run.history
        slack = 1e-9 * (np.abs(h[:-1]) + len(X))
        assert np.all(np.diff(h) >= -slack), np.diff(h).min()
        assert run.objective == h[-1]


# -- row weights ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["discrete", "gaussian"]))
def test_sample_weight_2_is_a_duplicated_row(seed, kind):
    model, X = small_problem(seed, kind)
    rng = np.random.default_rng(seed + 1)
    n, K = len(X), 2
    weights = rng.integers(1, 4, n)  # 1, 2 or 3 copies of each row
    resp = rng.dirichlet(np.ones(K), n)
    rows = np.repeat(np.arange(n), weights)
    options = {"n_init": 1, "max_iter": 8, "tol": 0.0, "accelerate": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        weighted = model.cluster(X, K, init=resp, sample_weight=weights, **options)
        copied = model.cluster(X.iloc[rows].reset_index(drop=True), K, init=resp[rows], **options)
    # Both stop at the same step, unless one reaches a fixed point (a gain of 0) a
    # step earlier by round-off.
    steps = min(len(weighted.history), len(copied.history))
    assert abs(len(weighted.history) - len(copied.history)) <= 1
    np.testing.assert_allclose(weighted.history[:steps], copied.history[:steps], rtol=1e-10)
    for name in copied.params.data_vars:
        np.testing.assert_allclose(
            weighted.params[name].values, copied.params[name].values, rtol=1e-9, atol=1e-12
        )
    np.testing.assert_allclose(weighted.class_counts, copied.class_counts, rtol=1e-10)


def test_sample_weight_scales_the_objective_and_restarts_reach_the_same_optimum():
    X = DATA.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))
    once = model.cluster(X, 2, random_state=0)
    twice = model.cluster(X, 2, random_state=0, sample_weight=np.full(len(X), 2.0))
    doubled = model.cluster(pd.concat([X, X], ignore_index=True), 2, random_state=0)
    # Weight 2 everywhere is the data twice: the same optimum, twice the log-likelihood
    # of the rows (the prior term is counted once either way).
    assert twice.objective == pytest.approx(doubled.objective, abs=1e-4)
    assert twice.log_likelihood == pytest.approx(doubled.log_likelihood, abs=1e-4)
    # The prior weighs half as much against twice the data: the rows fit at least as well.
    assert twice.log_likelihood >= 2 * once.log_likelihood - 1e-6
    assert twice.converged


# -- the default estimators --------------------------------------------------------------------


def test_default_estimates_are_the_mean_for_discrete_and_the_mode_for_gaussians():
    rng = np.random.default_rng(5)
    n = 120
    z = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "c": np.array(["u", "v", "w"], dtype=object)[(z + rng.integers(0, 2, n)) % 3],
            "g": rng.normal(np.where(z == 1, 3.0, -1.0), 1.0),
        }
    )
    model = bnb.NaiveBayes(
        {"c": bnb.Categorical(bnb.Dirichlet(2.0)), "g": bnb.Gaussian()},
        class_prior=bnb.Dirichlet(1.5),
    )
    fit = model.cluster(X, 2, random_state=0)
    assert fit.estimates == {"class": "mean", "features": {"c": "mean", "g": "map"}}
    assert fit.converged
    # The M-step's posterior means from the expected counts, by hand.
    counts = fit.counts["c"].values
    np.testing.assert_allclose(
        fit.params["c"].values, (counts + 2.0) / (counts + 2.0).sum(1, keepdims=True), rtol=1e-12
    )
    cc = fit.counts["class_count"].values
    np.testing.assert_allclose(fit.params["class_prob"], (cc + 1.5) / (cc.sum() + 3.0))
    # The objective: log-likelihood + log Dir(alpha + 1) densities of the mean-estimated
    # parts + the Normal-Inverse-Gamma log density at the Gaussian's mode.
    p_c, w = fit.params["c"].values, fit.params["class_prob"].values
    mu, var = fit.params["g_mu"].values, fit.params["g_sigma"].values ** 2
    prior = fit.blocks[1].prior
    nig = stats.invgamma.logpdf(var, prior.alpha, scale=prior.beta) + stats.norm.logpdf(
        mu, prior.mu, np.sqrt(var / prior.kappa)
    )
    log_prior = (
        sum(stats.dirichlet(np.full(3, 3.0)).logpdf(p_c[k]) for k in range(2))
        + stats.dirichlet([2.5, 2.5]).logpdf(w)
        + nig.sum()
    )
    assert fit.objective == pytest.approx(fit.log_likelihood + log_prior, rel=1e-12)
    # An explicit estimate="mean" is the same fit for the discrete feature.
    same = bnb.NaiveBayes(
        {"c": bnb.Categorical(bnb.Dirichlet(2.0)), "g": bnb.Gaussian(estimate="map")},
        class_prior=bnb.Dirichlet(1.5),
    ).cluster(X, 2, random_state=0, estimate="mean")
    np.testing.assert_allclose(same.history, fit.history, rtol=1e-12)


def test_the_default_fit_has_no_zero_probability():
    # Play tennis with 4 components: maximum likelihood (and MAP under Dirichlet(1))
    # gives probabilities of exactly 0; the default posterior mean never does.
    X = DATA.play_tennis()
    with pytest.warns(bnb.ZeroProbabilityWarning):
        bnb.NaiveBayes().cluster(X, 4, random_state=0, estimate="map")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = bnb.NaiveBayes().cluster(X, 4, random_state=0)
    assert fit.converged
    for var in X.columns:
        assert float(fit.params[var].min()) > 0.0


# -- saddle points -----------------------------------------------------------------------------


def test_uniform_start_on_house_votes_is_reported_as_a_saddle(tmp_path):
    X = DATA.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))
    with pytest.warns(ConvergenceWarning, match=r"saddle point \(init='uniform'\)"):
        stuck = model.cluster(X, 3, init="uniform", n_init=1)
    assert stuck.saddle and not stuck.converged
    # It stays where EM stopped: one step, every component the same.
    assert stuck.n_iter == 1
    p = stuck.params["V1"].values
    np.testing.assert_allclose(p[0], p[1], rtol=1e-12)
    np.testing.assert_allclose(p[0], p[2], rtol=1e-12)
    # A random start is far above it.
    assert model.cluster(X, 3, random_state=0).objective > stuck.objective + 100
    stuck.save(tmp_path / "stuck.nc")
    back = bnb.load(tmp_path / "stuck.nc")
    assert back.saddle and not back.converged


def test_a_random_start_that_stops_at_a_saddle_leaves_it(monkeypatch):
    X = DATA.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))
    best = model.cluster(X, 2, random_state=0)
    # Random starts that are in fact the symmetric saddle.
    monkeypatch.setattr(
        mixture._Problem, "random_weights", lambda self, rng: self.uniform_weights()
    )
    fit = model.cluster(X, 2, n_init=1, random_state=0)
    assert fit.converged and not fit.saddle
    assert fit.objective == pytest.approx(best.objective, abs=1e-4)
    assert fit.history[1] == fit.history[0]  # the saddle: one step and no gain
    h = fit.history  # then on, from where the probe climbed: never down
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[:-1]))
    assert fit.n_sweeps >= fit.n_iter + 1


def test_coinciding_components_at_a_maximum_are_not_a_saddle():
    # One binary column: the mixture's likelihood depends on the components only through
    # P(x = 1), and the Beta priors' log densities are concave, so the point where both
    # components are equal is the maximum. The probe comes back to it.
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"win": rng.random(50) < 0.3})
    fit = bnb.NaiveBayes(bnb.Bernoulli()).cluster(X, 2, init="uniform", n_init=1)
    assert fit.converged and not fit.saddle
    p = fit.params["win"].values
    assert p[0] == pytest.approx(p[1], abs=1e-6)


# -- semi-supervised labels --------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["nan", "none", "pd.NA string", "pd.NA Int64"])
def test_a_missing_label_means_unknown(missing):
    votes = DATA.house_votes_84()
    X = votes.drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))
    rng = np.random.default_rng(3)
    keep = rng.random(len(X)) < 0.2
    codes = (votes["party"] == "republican").astype(int)  # democrat 0, republican 1
    reference = model.cluster(X, 2, y=np.where(keep, codes, np.nan), random_state=0)
    y = {
        "nan": np.where(keep, codes, np.nan),
        "none": pd.Series(np.where(keep, codes, None), dtype=object),
        "pd.NA string": pd.Series(np.where(keep, codes.astype(str), None), dtype="string"),
        "pd.NA Int64": pd.Series(codes, dtype="Int64").where(keep),
    }[missing]
    fit = model.cluster(X, 2, y=y, random_state=0)
    assert len(fit.labels) == 2 and fit.converged
    np.testing.assert_allclose(fit.history, reference.history, rtol=1e-12)
    # Known rows keep their label; the unknown ones get a posterior.
    assert [float(v) for v in fit.labels] == [0.0, 1.0]
    known = fit.responsibilities[keep]
    np.testing.assert_array_equal(known.argmax(1), codes[keep].to_numpy())
    assert set(np.unique(known)) == {0.0, 1.0}
    unknown = fit.responsibilities[~keep]
    assert np.mean((unknown > 1e-6) & (unknown < 1 - 1e-6)) > 0.05


def test_every_label_missing_is_unsupervised():
    X = DATA.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))
    plain = model.cluster(X, 2, random_state=0)
    none_known = model.cluster(X, 2, y=[None] * len(X), random_state=0)
    np.testing.assert_allclose(none_known.history, plain.history, rtol=1e-12)


# -- the benchmark runs --------------------------------------------------------------------------


def test_the_acceleration_benchmark_runs(capsys):
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_em_acceleration.py"
    spec = importlib.util.spec_from_file_location("bench_em_acceleration", path)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    try:
        spec.loader.exec_module(bench)
        results = bench.main(["--quick"])
    finally:
        sys.modules.pop(spec.name, None)
    out = capsys.readouterr().out
    assert "fewer sweeps" in out and "house votes" in out
    for r in results:
        assert r["same"] == r["starts"] and r["converged"]  # both reach the same optimum
        assert r["sweep_ratio"] == pytest.approx(r["plain_sweeps"] / r["fast_sweeps"])
    votes = [r for r in results if r["case"].startswith("house votes") and r["K"] == 3]
    assert votes[0]["sweep_ratio"] > 1.5
