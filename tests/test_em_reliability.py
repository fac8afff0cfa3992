"""EM that reaches the optimum with its defaults: acceleration, the stopping rule, the
per-family default estimators, saddle points, row weights and semi-supervised labels.

Oracles: the best of 50 restarts run to tol=1e-12 by plain EM (a different algorithm
from the accelerated default), closed-form posterior means and scipy densities,
duplicated rows for row weights, and invariants (the objective never decreases).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
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
    # reaches the optimum of plain EM. (The Python engine's step, sabotaged: the
    # compiled loop's gives the same histories, tests/test_em_loop.py.)
    monkeypatch.setattr(mixture._em_loop, "compile_problem", lambda problem: None)
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
@example(seed=54, kind="gaussian")  # the copied rows reach a fixed point a step earlier
def test_sample_weight_2_is_a_duplicated_row(seed, kind):
    model, X = small_problem(seed, kind)
    rng = np.random.default_rng(seed + 1)
    n, K = len(X), 2
    weights = rng.integers(1, 4, n)  # 1, 2 or 3 copies of each row
    resp = rng.dirichlet(np.ones(K), n)
    rows = np.repeat(np.arange(n), weights)
    options = {"n_init": 1, "tol": 0.0, "accelerate": False}

    def both(max_iter):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            weighted = model.cluster(
                X, K, init=resp, sample_weight=weights, max_iter=max_iter, **options
            )
            copied = model.cluster(
                X.iloc[rows].reset_index(drop=True),
                K,
                init=resp[rows],
                max_iter=max_iter,
                **options,
            )
        return weighted, copied

    weighted, copied = both(8)
    # Both stop at the same step, unless one reaches a fixed point (a gain of 0) a
    # step earlier by round-off: then both again, stopped at that step, so that the
    # states compared below are of the same iteration.
    steps = min(len(weighted.history), len(copied.history))
    assert abs(len(weighted.history) - len(copied.history)) <= 1
    np.testing.assert_allclose(weighted.history[:steps], copied.history[:steps], rtol=1e-10)
    if len(weighted.history) != len(copied.history):
        weighted, copied = both(steps - 1)
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
    fit = model.cluster(X, 2, init="random", n_init=1, random_state=0)
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


def test_the_acceleration_benchmark_runs(capsys, repo_script):
    with repo_script("benchmarks/bench_em_acceleration.py") as bench:
        results = bench.main(["--quick"])
    out = capsys.readouterr().out
    assert "fewer sweeps" in out and "house votes" in out
    for r in results:
        assert r["same"] == r["starts"] and r["converged"]  # both reach the same optimum
        assert r["sweep_ratio"] == pytest.approx(r["plain_sweeps"] / r["fast_sweeps"])
    votes = [r for r in results if r["case"].startswith("house votes") and r["K"] == 3]
    assert votes[0]["sweep_ratio"] > 1.5


# -- Cheeseman-Stutz under a declared class prior ------------------------------------------


def _beta_bernoulli_log_marginal(n1, n0, a1, a0):
    """log of the Beta(a1, a0)-Bernoulli marginal likelihood of n1 ones and n0 zeros."""
    from scipy.special import gammaln

    return (
        gammaln(a1 + a0)
        - gammaln(a1 + a0 + n1 + n0)
        + gammaln(a1 + n1)
        - gammaln(a1)
        + gammaln(a0 + n0)
        - gammaln(a0)
    )


CS_X = np.array(
    [[0, 1, 1], [1, 1, 0], [0, np.nan, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0, 0]]
)


def test_cheeseman_stutz_with_one_component_is_the_exact_conjugate_marginal():
    # K = 1: the completed data are the data, so Cheeseman-Stutz is the exact marginal
    # likelihood: one Beta(3, 2)-Bernoulli marginal per column (the missing entry drops
    # out), and the class term of a single component is 0 whatever the class prior.
    model = bnb.NaiveBayes(
        bnb.Bernoulli(bnb.Beta(3, 2), values=(0, 1)), class_prior=bnb.Dirichlet(7.0)
    )
    fit = model.cluster(CS_X, 1)
    ones = np.nansum(CS_X, axis=0)
    zeros = np.sum(CS_X == 0, axis=0)
    expected = _beta_bernoulli_log_marginal(ones, zeros, 3.0, 2.0).sum()
    assert fit.cheeseman_stutz(CS_X) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("class_alpha", [[1.5, 6.0], [4.0, 4.0]])
def test_cheeseman_stutz_uses_the_declared_class_prior(class_alpha):
    # K = 2, written out: with r the responsibilities at the fitted theta, N_k = sum_i r_ik
    # and the soft counts n1_kj, n0_kj,
    #   CS = log p(X' | K) - log p(X' | theta) + log p(X | theta) + log 2!,
    #   log p(X' | K) = log Gamma(sum a) - log Gamma(sum a + n)
    #                   + sum_k [log Gamma(a_k + N_k) - log Gamma(a_k)]   (class prior)
    #                   + sum_kj Beta(2, 2)-Bernoulli marginal of (n1_kj, n0_kj),
    #   log p(X' | theta) = sum_k N_k log pi_k + sum_kj n1 log p_kj + n0 log(1 - p_kj).
    from scipy.special import gammaln, logsumexp

    a = np.asarray(class_alpha)
    model = bnb.NaiveBayes(
        bnb.Bernoulli(bnb.Beta(2, 2), values=(0, 1)), class_prior=bnb.Dirichlet(a)
    )
    fit = model.cluster(CS_X, 2, random_state=0)
    pi = fit.params["class_prob"].values
    p = fit.params["X"].values  # (component, column): P(x = 1)
    obs = ~np.isnan(CS_X)
    x = np.nan_to_num(CS_X)
    log_joint = (
        np.log(pi)[None, :]
        + np.einsum("ij,kj->ik", x * obs, np.log(p))
        + np.einsum("ij,kj->ik", (1 - x) * obs, np.log1p(-p))
    )
    row_ll = logsumexp(log_joint, axis=1)
    r = np.exp(log_joint - row_ll[:, None])
    N = r.sum(axis=0)
    n1 = r.T @ (x * obs)
    n0 = r.T @ ((1 - x) * obs)
    n = len(CS_X)
    class_term = gammaln(a.sum()) - gammaln(a.sum() + n) + np.sum(gammaln(a + N) - gammaln(a))
    features = _beta_bernoulli_log_marginal(n1, n0, 2.0, 2.0).sum()
    complete = N @ np.log(pi) + np.sum(n1 * np.log(p) + n0 * np.log1p(-p))
    expected = class_term + features - complete + row_ll.sum() + np.log(2.0)
    assert fit.cheeseman_stutz(CS_X) == pytest.approx(expected, rel=1e-12)
    # The class prior matters: the same fit under the default Dirichlet(1) gives another
    # class term, by exactly the difference of the two written out.
    default = gammaln(2.0) - gammaln(2.0 + n) + np.sum(gammaln(1.0 + N))
    assert class_term - default != pytest.approx(0.0, abs=1e-3)


# -- Gaussians far from zero, row weights in BIC, sampling, reports, seed 003 --------------


def test_em_at_an_offset_of_1e15_matches_the_shifted_data():
    # At 1e15 the spacing of float64 is 0.125: a mean can be off by a few units in the
    # last place, and the objective moves by W d^2 / (2 var) with it. EM must not call
    # that a decrease (it raised MonotonicityError), and ML is translation-equivariant:
    # the fit equals that of the data shifted to 0 (an exact subtraction here), to the
    # rounding of the means.
    rng = np.random.default_rng(0)
    z = np.r_[rng.normal(0, 1, 100), rng.normal(10, 1, 100)]
    offset = 1e15
    far = (offset + z)[:, None]
    near = far - offset  # exact: both lie in [2^49, 2^50] or close to it
    model = bnb.NaiveBayes(bnb.Gaussian())
    a = model.cluster(far, 2, estimate="ml", random_state=0)
    b = model.cluster(near, 2, estimate="ml", random_state=0)
    mu_far = np.sort(a.params["X_mu"].values - offset)
    np.testing.assert_allclose(mu_far, np.sort(b.params["X_mu"].values), atol=0.125)
    var_far = a.params["X_var"].values[np.argsort(a.params["X_mu"].values)]
    var_near = b.params["X_var"].values[np.argsort(b.params["X_mu"].values)]
    np.testing.assert_allclose(var_far, var_near, rtol=0.05)
    # The default (MAP) fit at that offset converges instead of raising.
    fit = model.cluster(pd.DataFrame({"g": far[:, 0]}), 2, random_state=0)
    assert fit.converged


def test_bic_counts_row_weights_as_rows():
    # A row of weight 2 counts as two rows: the weighted fit's BIC equals the BIC of
    # the data with that row repeated, -2 log L + p log(sum of weights).
    tennis = DATA.play_tennis().drop(columns="play")
    w = np.ones(len(tennis))
    w[[2, 5]] = 2.0
    doubled = pd.concat([tennis, tennis.iloc[[2, 5]]])
    start = np.random.default_rng(1).dirichlet([1, 1], len(tennis))
    model = bnb.NaiveBayes()
    a = model.cluster(tennis, 2, sample_weight=w, init=start, n_init=1, tol=0)
    b = model.cluster(doubled, 2, init=np.r_[start, start[[2, 5]]], n_init=1, tol=0)
    assert a.total_weight == 16.0 and a.n_samples == 14
    expected = -2.0 * a.log_likelihood + a.n_parameters() * np.log(16.0)
    assert a.bic == pytest.approx(expected, rel=1e-12)
    assert a.bic == pytest.approx(b.bic, rel=1e-9)


def test_bic_of_a_loaded_weighted_mixture(tmp_path):
    tennis = DATA.play_tennis().drop(columns="play")
    fit = bnb.NaiveBayes().cluster(
        tennis, 2, sample_weight=np.full(len(tennis), 3.0), random_state=0
    )
    fit.save(tmp_path / "mix.nc")
    back = bnb.load(tmp_path / "mix.nc")
    assert back.total_weight == 42.0
    assert back.bic == pytest.approx(-2 * fit.log_likelihood + 13 * np.log(42.0), rel=1e-12)


def test_sample_of_zero_rows_is_an_empty_frame_with_every_column():
    mix = bnb.NaiveBayes().cluster(DATA.old_faithful(), 2, random_state=0)
    empty = mix.sample(0)
    assert empty.shape == (0, 3)
    assert list(empty.columns) == ["component", "eruptions", "waiting"]


def test_report_top_one_keeps_the_most_influential_attribute_per_cluster():
    mix = bnb.NaiveBayes().cluster(DATA.house_votes_84().drop(columns="party"), 3, random_state=0)
    report = mix.report(top=1)
    infl = mix.influence()
    assert len(report) == 3
    for component, feature in report.index:
        assert feature == str(infl.sel(component=component).idxmax().item())


def test_seed_003_model_takes_data_showing_one_value_of_a_column():
    # X2 shows only True here; the seed's model declares its values, so the E-step runs.
    # Rows FT, ?T and T? at theta_C = 0.7, theta_1 = 0.9 / 0.3, theta_2 = 0.6 / 0.2:
    # q_T = 0.042 / 0.084 = 1/2, 0.42 / 0.48 = 7/8 and 0.63 / 0.72 = 7/8.
    from bayesnb.completions import expected_statistics, seed_003_example

    model, _, start = seed_003_example()
    data = pd.DataFrame({"X1": [False, None, True], "X2": [True, True, None]})
    stats = expected_statistics(model, data, start)
    np.testing.assert_allclose(stats["class_count"].values, [0.75, 2.25], rtol=1e-14)


def test_compare_components_takes_numpy_integers():
    votes = DATA.play_tennis().drop(columns="play")
    table = bnb.compare_components(bnb.NaiveBayes(), votes, np.int64(2), random_state=0)
    assert table.index.tolist() == [1, 2]


# -- a restart whose component collapses under estimate="ml" --------------------------------


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    return load_iris(as_frame=True).data


def test_a_collapsed_ml_restart_is_set_aside_and_the_best_other_one_returned(iris):
    """Full-covariance ML on iris, K = 3: in some seeds' restarts a component shrinks
    onto a few rows (the likelihood grows without bound there). Those restarts are set
    aside with a warning saying why, and the fit is the best of the others: the ML
    optimum scikit-learn's GaussianMixture (no covariance regularization, 20
    restarts) reaches."""
    from sklearn.mixture import GaussianMixture

    x = iris.to_numpy()
    oracle = GaussianMixture(
        3,
        covariance_type="full",
        reg_covar=0.0,
        n_init=20,
        tol=1e-12,
        max_iter=10_000,
        random_state=0,
    ).fit(x)
    optimum = oracle.score(x) * len(x)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    seeds_with_collapse = 0
    for seed in range(10):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = model.cluster(iris, 3, estimate="ml", random_state=seed)
        failed = [i for i, r in enumerate(fit.restarts) if r.failure is not None]
        set_aside = [
            str(w.message)
            for w in caught
            if issubclass(w.category, ConvergenceWarning) and "set aside" in str(w.message)
        ]
        if failed:
            seeds_with_collapse += 1
            assert len(set_aside) == 1, seed
            assert f"set aside {len(failed)} of {len(fit.restarts)} restarts" in set_aside[0]
            assert "singular full covariance" in set_aside[0]
            for i in failed:
                restart = fit.restarts[i]
                assert "singular full covariance" in restart.failure
                assert not restart.converged
        else:
            assert not set_aside, seed
        others = [r for r in fit.restarts if r.failure is None]
        assert fit.failure is None and fit.converged
        assert fit is fit.restarts[fit.best_restart]
        assert fit.objective == max(r.objective for r in others)
        assert fit.log_likelihood == pytest.approx(optimum, abs=1e-6), seed
    assert seeds_with_collapse >= 1  # the case is exercised


def test_the_restart_table_marks_a_collapsed_restart(iris):
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.warns(ConvergenceWarning, match=r"set aside 1 of 5 restarts"):
        fit = model.cluster(iris, 3, estimate="ml", random_state=0)
    table = fit.restart_table()
    collapsed = table["failure"] != ""
    assert collapsed.sum() == 1
    assert table.loc[collapsed, "gap"].isna().all()
    kept = table.loc[~collapsed]
    assert kept["gap"].max() == 0.0 and (kept["gap"] <= 0.0).all()
    assert not table.loc[collapsed, "best"].any()
    assert table.loc[collapsed, "failure"].str.contains("singular full covariance").all()


def test_every_restart_collapsing_is_an_error_whose_remedy_works():
    """Four distinct points, ten rows each: every ML component collapses onto fewer
    than three of them, in every restart. The error says so; the remedy (the default
    MAP estimate) fits, its covariances positive definite."""
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    X = pd.DataFrame(np.repeat(points, 10, axis=0), columns=["a", "b"])
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    with pytest.raises(bnb.InputError, match=r"every one of its 5 restarts.*estimate='map'"):
        model.cluster(X, 2, estimate="ml", random_state=0)
    fit = model.cluster(X, 2, random_state=0)
    assert all(r.failure is None for r in fit.restarts)
    assert np.all(np.linalg.eigvalsh(fit.params["X_cov"].values) > 0)
