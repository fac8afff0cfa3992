"""Autoclass: the naive Bayes mixture fitted by EM, through the public API.

Oracles: the exact fractions of seed 003's worked example, brute-force enumeration
of completions, hand computations with plain numpy, scipy densities and
integrals, and the supervised classifier (semi-supervised EM with every label known
is the classifier).
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import integrate, optimize, sparse, special, stats

import bayesnb as bnb
from bayesnb import cluster_reports
from bayesnb.completions import enumerate_completions, expected_statistics
from bayesnb.mixture import ConvergenceWarning, MixtureFit, MonotonicityError, fit_mixture
from bayesnb.model_choice import compare_components

# -- seed 003's worked example -------------------------------------------------------------

SLIDE_DATA = pd.DataFrame({"X1": [False, True], "X2": [True, True]})  # D = {FT, TT}
SLIDE_START = xr.Dataset(
    {
        "class_prob": ("component", [0.3, 0.7]),  # theta_C = P(C = T) = 0.7
        "X1": ("component", [0.3, 0.9]),  # theta_1^F, theta_1^T
        "X2": ("component", [0.2, 0.6]),  # theta_2^F, theta_2^T
    },
    coords={"component": ["F", "T"]},
)


def slide_model():
    return bnb.NaiveBayes({"X1": bnb.Bernoulli(), "X2": bnb.Bernoulli()})


def test_seed_003_one_em_iteration_reproduces_the_slide():
    with pytest.warns(ConvergenceWarning), pytest.warns(bnb.ZeroProbabilityWarning):
        mix = slide_model().cluster(
            SLIDE_DATA, n_components=None, init=SLIDE_START, max_iter=1, estimate="ml", n_init=1
        )
    assert mix.labels == ["F", "T"] and mix.n_iter == 1
    # E-step: q_1 = 0.042 / (0.042 + 0.042) = 1/2 and q_2 = 0.378 / (0.378 + 0.018) = 21/22
    # (the slide prints 0.95), so E[N_T] = 16/11 (slide: 1.4546, 1.45), E[N_F] = 6/11,
    # E[N_1,T^T] = 21/22 (0.9546, 0.95) and E[N_1,T^F] = 1/22 (0.0454, 0.05).
    counts = mix.counts
    np.testing.assert_allclose(counts["class_count"].values, [6 / 11, 16 / 11], rtol=1e-14)
    np.testing.assert_allclose(counts["X1"].sel(X1_category=1).values, [1 / 22, 21 / 22])
    np.testing.assert_allclose(counts["X2"].sel(X2_category=1).values, [6 / 11, 16 / 11])
    # The E-step slides write E[N_T] = sum_j P(C^j = T | x^j) "∝ sum_j P(C^j = T)
    # prod_i P(x_i^j | C^j = T)": a slip, since every row has its own normalizer.
    # Normalizing the sum once would give 2 * 0.42 / (0.42 + 0.06) = 1.75, not 16/11.
    # The Autoclass E-step slide also leaves out E[N_{i,T}^F] += 1 - q; the count
    # 1/22 above is that line's.
    # M-step. theta_C = 8/11 = 0.72727 (the slide's last page prints 0.72, from the
    # rounded 1.45 / 2.0); theta_1^T = 21/32 = 0.65625 (0.6563; 0.65 on the last page);
    # theta_1^F = (1/22) / (6/11) = 1/12 = 0.08333, where the slide prints 0.0832 and
    # then 0.09 (both rounding slips of 0.0454 / 0.5454). theta_2^T = theta_2^F = 1
    # (the last page labels the second one theta_1^F).
    p = mix.params
    np.testing.assert_allclose(p["class_prob"].sel(component="T"), 8 / 11, rtol=1e-14)
    np.testing.assert_allclose(p["X1"].sel(component="T"), 21 / 32, rtol=1e-14)
    np.testing.assert_allclose(p["X1"].sel(component="F"), 1 / 12, rtol=1e-14)
    np.testing.assert_allclose(p["X2"].values, [1.0, 1.0])
    # The objective: log p(D) = log 0.084 + log 0.396 at the start, then
    # log(3/11 * 11/12 + 8/11 * 11/32) + log(3/11 * 1/12 + 8/11 * 21/32) = 2 log(1/2).
    np.testing.assert_allclose(mix.history, [math.log(0.084) + math.log(0.396), 2 * math.log(0.5)])
    assert mix.log_likelihood == pytest.approx(2 * math.log(0.5), rel=1e-14)


def test_seed_003_completions_by_brute_force():
    completions, by_enumeration = enumerate_completions(slide_model(), SLIDE_DATA, SLIDE_START)
    # The slide's four completions (F,F), (F,T), (T,F), (T,T): 0.000756, 0.015876, ...
    np.testing.assert_allclose(completions["joint"], [0.000756, 0.015876, 0.000756, 0.015876])
    # ... normalized to 0.0227 and 0.4773: exactly 1/44 and 21/44.
    np.testing.assert_allclose(completions["probability"], [1 / 44, 21 / 44, 1 / 44, 21 / 44])
    per_instance = expected_statistics(slide_model(), SLIDE_DATA, SLIDE_START)
    xr.testing.assert_allclose(by_enumeration, per_instance)
    np.testing.assert_allclose(per_instance["class_count"].values, [6 / 11, 16 / 11])


def test_enumeration_equals_per_instance_estep_on_mixed_families():
    rng = np.random.default_rng(3)
    n = 6
    df = pd.DataFrame(
        {
            "color": pd.Series(rng.choice(["r", "g", "b"], n), dtype=object),
            "size": rng.normal(size=n),
            "windy": rng.random(n) < 0.5,
            "hum": rng.uniform(0, 10, n),
            "w1": rng.poisson(2, n),
            "w2": rng.poisson(3, n),
        }
    )
    df.loc[1, "color"] = None
    df.loc[2, "size"] = np.nan
    df.loc[4, "hum"] = np.nan
    model = bnb.NaiveBayes(
        {
            "color": bnb.Categorical(bnb.Dirichlet(2.0)),
            "size": bnb.Gaussian(),
            "windy": bnb.Bernoulli(bnb.Beta(2, 2)),
            "hum": bnb.Binned(edges=[0, 3, 7, 10], prior=bnb.Dirichlet(2.0)),
            "words": bnb.Multinomial(bnb.Dirichlet(2.0), columns=["w1", "w2"]),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = model.cluster(df, 3, max_iter=2, n_init=1, random_state=0, estimate="map")
    _, by_enumeration = enumerate_completions(model, df, start)  # 3^6 = 729 completions
    per_instance = expected_statistics(model, df, start)
    xr.testing.assert_allclose(by_enumeration, per_instance, rtol=1e-10)
    with pytest.raises(ValueError, match="max_completions"):
        enumerate_completions(model, df, start, max_completions=100)


# -- the objective never decreases ------------------------------------------------------------


def random_problem(seed):
    """A small random data set over a random mix of families, and a model for it."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(15, 60))
    df, features = pd.DataFrame(index=range(n)), {}
    for j in range(int(rng.integers(1, 4))):
        kind = rng.choice(["bernoulli", "categorical", "gaussian", "binned", "multinomial"])
        name = f"f{j}"
        if kind == "bernoulli":
            cols = [f"{name}_{c}" for c in range(int(rng.integers(1, 4)))]
            for c in cols:
                df[c] = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(float)
                df.loc[rng.random(n) < 0.1, c] = np.nan
            features[name] = bnb.Bernoulli(bnb.Beta(*rng.uniform(1, 3, 2)), columns=cols)
        elif kind == "categorical":
            values = rng.choice(list("abcd"), size=n).astype(object)
            values[rng.random(n) < 0.1] = None
            df[name] = values
            features[name] = bnb.Categorical(
                bnb.Dirichlet(rng.uniform(1, 3)), categories=list("abcd")
            )
        elif kind == "gaussian":
            x = rng.normal(rng.normal(0, 3), rng.uniform(0.5, 3), n)
            x[rng.random(n) < 0.1] = np.nan
            df[name] = x
            features[name] = bnb.Gaussian(estimate="map")  # ML variances may collapse to 0
        elif kind == "binned":
            df[name] = rng.uniform(0, 1, n)
            features[name] = bnb.Binned(edges=[0, 0.2, 0.5, 1], prior=bnb.Dirichlet(1.5))
        else:
            cols = [f"{name}_{c}" for c in range(3)]
            for c in cols:
                df[c] = rng.poisson(rng.uniform(0.5, 4), n)
            features[name] = bnb.Multinomial(bnb.Dirichlet(1.5), columns=cols)
    model = bnb.NaiveBayes(features, class_prior=bnb.Dirichlet(rng.uniform(1, 2)))
    options = {
        "n_components": int(rng.integers(2, 5)),
        "estimate": str(rng.choice(["ml", "map"])),
        "random_state": seed,
    }
    return model, df, options


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore::bayesnb.ZeroProbabilityWarning")
def test_objective_is_monotone_over_200_random_problems():
    iterations = 0
    for seed in range(200):
        model, df, options = random_problem(seed)
        mix = model.cluster(df, n_init=1, max_iter=40, tol=1e-10, **options)
        h = mix.history
        slack = 1e-9 * (np.abs(h[:-1]) + len(df))
        assert np.all(np.diff(h) >= -slack), (seed, np.diff(h).min())
        iterations += mix.n_iter
    assert iterations > 200 * 5  # the loop really iterated


def test_a_decreasing_objective_raises(monkeypatch, worse_second_m_step):
    """The Python engine's check, its M-step sabotaged (the compiled loop's own check
    is tested in test_em_loop.py)."""
    import bayesnb.mixture as mixture

    monkeypatch.setattr(mixture._em_loop, "compile_problem", lambda problem: None)
    X = bnb.datasets.house_votes_84().drop(columns="party")
    with pytest.raises(MonotonicityError, match="decreased at iteration 2"):
        bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0))).cluster(X, 3, n_init=1, estimate="map")


# -- starts: the saddle point, random starts, user starts ------------------------------------


def planted_binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    theta = np.array([[0.9, 0.8, 0.2, 0.1, 0.7], [0.1, 0.3, 0.8, 0.9, 0.4]])
    z = rng.random(n) < 0.4
    return pd.DataFrame(
        (rng.random((n, 5)) < theta[z.astype(int)]).astype(int), columns=[f"a{j}" for j in range(5)]
    )


def test_uniform_start_is_a_saddle_point_that_em_does_not_leave():
    X = planted_binary()
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2)))
    # EM stops after one step, and the probe of the stopping point (perturbed
    # responsibilities climb above it) reports the saddle rather than convergence.
    with pytest.warns(ConvergenceWarning, match="saddle point"):
        stuck = model.cluster(X, 2, init="uniform", n_init=1, estimate="map")
    assert stuck.n_iter == 1 and not stuck.converged and stuck.saddle
    np.testing.assert_allclose(np.diff(stuck.history), 0.0, atol=1e-9)
    theta = stuck.params[list(X.columns)].to_array("feature").values.T  # (component, feature)
    np.testing.assert_allclose(theta[0], theta[1], rtol=1e-12)  # components identical
    np.testing.assert_allclose(stuck.params["class_prob"], [0.5, 0.5], rtol=1e-12)
    # Seed 000's literal version: every parameter 1/2. One step moves the parameters
    # to the whole data's frequencies, but the two components never separate.
    half = {"class_prob": [0.5, 0.5], **{c: [0.5, 0.5] for c in X.columns}}
    with pytest.warns(ConvergenceWarning, match="saddle point"):
        halves = model.cluster(X, 2, init=half, n_init=1, estimate="map")
    assert halves.saddle and not halves.converged
    theta = halves.params[list(X.columns)].to_array("feature").values.T
    np.testing.assert_allclose(theta[0], theta[1], rtol=1e-12)
    # Beta(2, 2) MAP with half of every count in each component: (n1/2 + 1) / (n/2 + 2).
    np.testing.assert_allclose(theta[0], (X.sum() / 2 + 1) / (len(X) / 2 + 2), rtol=1e-12)
    # The default random, asymmetric start leaves the saddle and climbs far above it.
    moved = model.cluster(X, 2, n_init=1, random_state=0, estimate="map")
    assert moved.n_iter > 1 and moved.converged and not moved.saddle
    assert moved.objective > stuck.objective + 50
    theta = moved.params[list(X.columns)].to_array("feature").values.T
    assert np.abs(theta[0] - theta[1]).max() > 0.5


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_user_start_as_responsibilities_or_parameters_agree():
    votes = bnb.datasets.house_votes_84()
    X, party = votes.drop(columns="party"), votes["party"]
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    onehot = pd.get_dummies(party).to_numpy(dtype=float)  # democrat, republican
    supervised = model.fit(votes, target="party", estimate="map")
    from_resp = model.cluster(X, 2, init=onehot, n_init=1, max_iter=5, tol=0.0, estimate="map")
    from_params = model.cluster(
        X, 2, init=supervised, n_init=1, max_iter=5, tol=0.0, estimate="map"
    )
    from_dataset = model.cluster(
        X,
        2,
        init=supervised.params.rename(class_label="component"),
        n_init=1,
        max_iter=5,
        tol=0.0,
        estimate="map",
    )
    np.testing.assert_allclose(from_resp.history, from_params.history, rtol=1e-12)
    np.testing.assert_allclose(from_resp.history, from_dataset.history, rtol=1e-12)
    xr.testing.assert_allclose(from_resp.params, from_params.params, rtol=1e-10)
    # The start is the supervised fit: its objective is EM's first value.
    ll = supervised.log_likelihood_rows(X).sum()
    prior = sum(
        stats.dirichlet([2.0, 2.0]).logpdf(supervised.params[v].sel(class_label=c).values)
        for v in X.columns
        for c in supervised.labels
    ) + stats.dirichlet([1.0, 1.0]).logpdf(supervised.params["class_prob"].values)
    assert from_resp.history[0] == pytest.approx(ll + prior, rel=1e-12)


# -- restarts, convergence ------------------------------------------------------------------


def test_n_init_keeps_the_best_and_every_restart():
    X = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    mix = model.cluster(X, 4, n_init=8, random_state=1, tol=1e-8, estimate="map")
    assert len(mix.restarts) == 8
    objectives = np.array([r.objective for r in mix.restarts])
    assert mix is mix.restarts[mix.best_restart]
    assert mix.objective == objectives.max()
    assert np.ptp(objectives) > 5.0  # local optima exist, so keeping the best matters
    for r in mix.restarts:
        assert r.objective == r.history[-1]
        assert np.all(np.diff(r.history) >= -1e-9 * np.abs(r.history[:-1]))
    # A single restart with the same seed is the first of the eight.
    first = model.cluster(X, 4, n_init=1, random_state=1, tol=1e-8, estimate="map")
    np.testing.assert_allclose(first.history, mix.restarts[0].history)


def test_restart_table_lists_every_restart_and_its_gap():
    """One row per restart: the gap to the best objective (0 where the best was
    reached, negative at a local optimum), and each restart's log-likelihood equal to
    the sum over the rows of log p(x) at its parameters, scored anew."""
    X = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    mix = model.cluster(X, 4, n_init=8, random_state=1, tol=1e-8, estimate="map")
    table = mix.restart_table()
    assert list(table.index) == list(range(8))
    assert table["best"].sum() == 1 and table["best"].idxmax() == mix.best_restart
    assert table.loc[mix.best_restart, "gap"] == 0.0
    assert (table["gap"] <= 0.0).all() and table["gap"].min() < -5.0  # local optima
    for i, restart in enumerate(mix.restarts):
        row = table.loc[i]
        assert row["n_iter"] == len(restart.history) - 1
        assert row["gap"] == restart.history[-1] - max(r.history[-1] for r in mix.restarts)
        assert row["log_likelihood"] == pytest.approx(
            restart.log_likelihood_rows(X).sum(), rel=1e-10
        )
    # a fit without its restarts (loaded) is a table of itself
    alone = mix.restarts[0]
    alone.restarts = None
    assert alone.restart_table()["gap"].tolist() == [0.0]


def test_convergence_warning_and_tol():
    X = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        mix = model.cluster(X, 3, n_init=1, max_iter=2, random_state=0, estimate="map")
    assert not mix.converged and mix.n_iter == 2
    # tol bounds the remaining gain extrapolated from two successive gains (Aitken):
    # plain EM needs two steps before it can judge, however loose tol is.
    loose = model.cluster(X, 3, n_init=1, tol=1e6, random_state=0, estimate="map", accelerate=False)
    assert loose.converged and loose.n_iter == 2
    tight = model.cluster(
        X, 3, n_init=1, tol=1e-9, random_state=0, estimate="map", accelerate=False
    )
    assert tight.converged
    gains = np.diff(tight.history)

    # The stopping rule, written out: the last gain over 1 - rho (rho the larger of the
    # last two ratios of successive gains) is at most tol * n at the end only.
    def remaining(g):
        rho = max(g[-1] / g[-2], g[-2] / g[-3])
        return np.inf if rho >= 1 else g[-1] / (1 - rho)

    assert remaining(gains) <= 1e-9 * len(X)
    assert all(remaining(gains[:k]) > 1e-9 * len(X) for k in range(4, len(gains)))
    # Slow progress does not stop it: the last gain is far below tol * n well before
    # the end, where the old rule (a gain of at most tol * n) would have stopped.
    early = int(np.argmax(gains <= 1e-9 * len(X)))
    assert early < len(gains) - 5


# -- recovery of planted parameters ---------------------------------------------------------


def test_planted_parameters_are_recovered_with_n_5000():
    rng = np.random.default_rng(2024)
    n, K = 5000, 3
    weights = np.array([0.5, 0.3, 0.2])
    theta = rng.uniform(0.05, 0.95, (K, 8))
    cat = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]])
    mu = np.array([[0.0, 5.0], [3.0, 0.0], [-3.0, 2.0]])
    sd = np.array([[1.0, 2.0], [0.5, 1.0], [1.5, 0.7]])
    z = rng.choice(K, n, p=weights)
    df = pd.DataFrame(
        (rng.random((n, 8)) < theta[z]).astype(int), columns=[f"b{j}" for j in range(8)]
    )
    df["c"] = np.array(list("wxyz"))[(cat[z].cumsum(1) < rng.random((n, 1))).sum(1)]
    df[["g0", "g1"]] = rng.normal(mu[z], sd[z])
    model = bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(bnb.Beta(1.5, 1.5), columns=[f"b{j}" for j in range(8)]),
            "c": bnb.Categorical(bnb.Dirichlet(1.5)),
            "g": bnb.Gaussian(columns=["g0", "g1"]),
        }
    )
    mix = model.cluster(df, K, n_init=3, random_state=0, estimate="map")
    p = mix.params
    fitted_mu = np.stack([p["g_mu"].values[:, 0], p["g_mu"].values[:, 1]], axis=1)
    cost = ((fitted_mu[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
    _, perm = optimize.linear_sum_assignment(cost)  # fitted component -> planted one
    order = np.argsort(perm)  # planted k is fitted order[k]
    # Standard errors: weights ~ sqrt(.25/5000) = 0.007; theta with >= 1000 rows < 0.016.
    np.testing.assert_allclose(p["class_prob"].values[order], weights, atol=0.03)
    np.testing.assert_allclose(p["b"].values[order], theta, atol=0.06)
    np.testing.assert_allclose(p["c"].values[order], cat, atol=0.05)
    np.testing.assert_allclose(p["g_mu"].values[order], mu, atol=0.15)
    np.testing.assert_allclose(p["g_sigma"].values[order], sd, rtol=0.08)
    agreement = (mix.predict(df).astype(int) == order[z]).mean()
    assert agreement > 0.97


# -- missing values ----------------------------------------------------------------------------


def test_missing_values_are_marginalized_as_by_hand():
    X = pd.DataFrame(
        {"a": [1.0, 0.0, np.nan, 1.0], "b": [np.nan, 1.0, 0.0, 1.0], "g": [1.0, np.nan, 3.0, 0.5]}
    )
    model = bnb.NaiveBayes({"a": bnb.Bernoulli(), "b": bnb.Bernoulli(), "g": bnb.Gaussian()})
    start = {
        "class_prob": [0.4, 0.6],
        "a": [0.2, 0.7],
        "b": [0.5, 0.9],
        "g_mu": [0.0, 2.0],
        "g_var": [1.0, 4.0],
    }
    with pytest.warns(ConvergenceWarning):
        mix = model.cluster(X, 2, init=start, n_init=1, max_iter=1, estimate="ml")
    # By hand: each row's joint under each component, skipping the missing factors.
    pi = np.array([0.4, 0.6])
    ta, tb = np.array([0.2, 0.7]), np.array([0.5, 0.9])
    norm = [stats.norm(0.0, 1.0), stats.norm(2.0, 2.0)]
    joint = np.empty((4, 2))
    for k in range(2):
        joint[0, k] = pi[k] * ta[k] * norm[k].pdf(1.0)  # b missing
        joint[1, k] = pi[k] * (1 - ta[k]) * tb[k]  # g missing
        joint[2, k] = pi[k] * (1 - tb[k]) * norm[k].pdf(3.0)  # a missing
        joint[3, k] = pi[k] * ta[k] * tb[k] * norm[k].pdf(0.5)
    assert mix.history[0] == pytest.approx(np.log(joint.sum(1)).sum(), rel=1e-13)
    r = joint / joint.sum(1, keepdims=True)
    # M-step: each parameter from the rows where its feature is observed.
    obs_a, obs_b, obs_g = [0, 1, 3], [1, 2, 3], [0, 2, 3]
    a, b, g = X["a"].to_numpy(), X["b"].to_numpy(), X["g"].to_numpy()
    exp_a = (r[obs_a] * a[obs_a, None]).sum(0) / r[obs_a].sum(0)
    exp_b = (r[obs_b] * b[obs_b, None]).sum(0) / r[obs_b].sum(0)
    exp_mu = (r[obs_g] * g[obs_g, None]).sum(0) / r[obs_g].sum(0)
    exp_var = (r[obs_g] * (g[obs_g, None] - exp_mu) ** 2).sum(0) / r[obs_g].sum(0)
    p = mix.params
    np.testing.assert_allclose(p["class_prob"], r.mean(0), rtol=1e-13)
    np.testing.assert_allclose(p["a"], exp_a, rtol=1e-13)
    np.testing.assert_allclose(p["b"], exp_b, rtol=1e-13)
    np.testing.assert_allclose(p["g_mu"], exp_mu, rtol=1e-12)
    np.testing.assert_allclose(p["g_var"], exp_var, rtol=1e-12)
    np.testing.assert_allclose(mix.counts["g_n"], r[obs_g].sum(0), rtol=1e-13)


def test_house_votes_cluster_with_every_row():
    votes = bnb.datasets.house_votes_84()
    X = votes.drop(columns="party")
    assert len(X) == 435 and X.isna().sum().sum() == 392
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")))
    mix = model.cluster(X, 2, n_init=3, random_state=0, estimate="map")
    assert mix.n_samples == 435 and mix.responsibilities.shape == (435, 2)
    np.testing.assert_allclose(mix.responsibilities.sum(1), 1.0)
    np.testing.assert_allclose(mix.predict_proba(X), mix.responsibilities, rtol=1e-10)
    # The log-likelihood, by hand: each row's observed votes only.
    theta = np.stack([mix.params[v].values for v in X.columns], axis=1)  # (K, 16)
    pi = mix.params["class_prob"].values
    y = (X == "y").to_numpy(float)
    seen = X.notna().to_numpy(float)
    log_rows = np.log(pi) + y @ np.log(theta).T + (seen - y) @ np.log1p(-theta).T
    assert mix.log_likelihood == pytest.approx(special.logsumexp(log_rows, axis=1).sum(), rel=1e-12)
    # The two clusters are, by and large, the two parties.
    table = pd.crosstab(votes["party"], mix.predict(X))
    assert (
        np.trace(table.to_numpy()) / 435 > 0.85 or np.trace(table.to_numpy()[:, ::-1]) / 435 > 0.85
    )


# -- semi-supervised ---------------------------------------------------------------------------


def test_semi_supervised_keeps_known_rows_fixed():
    votes = bnb.datasets.house_votes_84()
    X = votes.drop(columns="party")
    rng = np.random.default_rng(0)
    y = votes["party"].where(rng.random(len(votes)) < 0.1)  # 10% labelled
    known = y.notna().to_numpy()
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    mix = model.cluster(X, 2, y=y, n_init=2, random_state=0, estimate="map")
    assert mix.labels == ["democrat", "republican"]
    onehot = pd.get_dummies(y[known]).to_numpy(dtype=float)
    np.testing.assert_array_equal(mix.responsibilities[known], onehot)
    accuracy = (mix.predict(X)[~known] == votes["party"].to_numpy()[~known]).mean()
    assert accuracy > 0.85
    assert np.all(np.diff(mix.history) >= -1e-9 * np.abs(mix.history[:-1]))


def test_semi_supervised_with_every_label_is_the_classifier():
    votes = bnb.datasets.house_votes_84()
    X = votes.drop(columns="party")
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    mix = model.cluster(X, 2, y=votes["party"], n_init=1, estimate="map")
    supervised = model.fit(votes, target="party", estimate="map")
    np.testing.assert_allclose(
        mix.params.to_array().values, supervised.params.to_array().values, rtol=1e-12
    )
    assert mix.n_iter == 1 and np.ptp(mix.history) < 1e-9


# -- model choice ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def votes_table():
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")))
    table, fits = compare_components(
        model, votes, 4, n_init=3, random_state=0, return_fits=True, estimate="map"
    )
    return votes, model, table, fits


def test_model_choice_table_columns_and_criteria(votes_table):
    votes, _, table, fits = votes_table
    assert list(table.index) == [1, 2, 3, 4]
    n = len(votes)
    for K, row in table.iterrows():
        p = (K - 1) + K * 16
        assert row["n_parameters"] == p
        assert row["aic"] == pytest.approx(-2 * row["log_likelihood"] + 2 * p)
        assert row["bic"] == pytest.approx(-2 * row["log_likelihood"] + p * math.log(n))
        assert row["df"] == 2**16 - 1 - p
        assert row["n_complete"] == 232  # rows without a missing vote
        assert row["g2"] > 0 and row["chi2"] > 0
        assert row["log_likelihood"] == fits[K].log_likelihood
    assert table["log_likelihood"].is_monotonic_increasing
    assert table["bic"].idxmin() > 1  # one cluster is not the best account of the votes


def test_cheeseman_stutz_with_one_component_is_the_exact_marginal_likelihood(votes_table):
    votes, _, table, _ = votes_table
    # Beta(2, 2) on every vote, each column's observed votes only.
    yes = (votes == "y").sum().to_numpy()
    no = (votes == "n").sum().to_numpy()
    exact = np.sum(special.betaln(2 + yes, 2 + no) - special.betaln(2, 2))
    assert table.loc[1, "cheeseman_stutz"] == pytest.approx(exact, rel=1e-12)


def test_cheeseman_stutz_of_a_gaussian_is_the_student_t_chain_rule():
    x = np.array([1.2, -0.3, 2.5, 0.7, 1.9])
    prior = bnb.NormalInverseGamma(mu=0.5, kappa=2.0, alpha=3.0, beta=4.0)
    model = bnb.NaiveBayes({"x": bnb.Gaussian(prior)})
    df = pd.DataFrame({"x": x})
    mix = model.cluster(df, 1, n_init=1, estimate="map")
    # p(x_1..x_n) = prod_i p(x_i | x_<i), each a Student-t posterior predictive.
    chain, post = 0.0, prior
    for xi in x:
        chain += post.predictive().logpdf(xi)
        post = post.posterior(1, xi, 0.0)
    assert mix.cheeseman_stutz(df) == pytest.approx(chain, rel=1e-12)


def test_cheeseman_stutz_adds_log_k_factorial():
    # Two far-apart groups of rows: the responsibilities are hard (to round-off), so the
    # completed data X' is X with its true classes and the approximation is the
    # complete-data marginal likelihood plus log K! for the K! equivalent labellings.
    X = pd.DataFrame(np.repeat([[0] * 12, [1] * 12], [7, 5], axis=0), columns=list("abcdefghijkl"))
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2)))
    mix = model.cluster(X, 2, n_init=2, random_state=0, estimate="map")
    assert np.abs(mix.responsibilities - mix.responsibilities.round()).max() < 1e-9
    sizes = np.sort(mix.counts["class_count"].values)
    np.testing.assert_allclose(sizes, [5, 7], atol=1e-9)
    # Each group: its 12 columns all 0 (or all 1) under Beta(2, 2); classes under Dir(1, 1).
    marginal = 12 * (special.betaln(2 + 7, 2) + special.betaln(2, 2 + 5) - 2 * special.betaln(2, 2))
    marginal += special.betaln(1 + 7, 1 + 5) - special.betaln(1, 1)
    assert mix.cheeseman_stutz(X) == pytest.approx(marginal + math.log(2), rel=1e-9)


def test_pattern_statistics_against_every_pattern():
    votes = bnb.datasets.house_votes_84()[["V3", "V4", "V5", "V8", "V12"]]
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    mix = model.cluster(votes, 2, n_init=2, random_state=0, estimate="map")
    result = mix.pattern_statistics(votes)
    complete = votes.dropna()
    observed = complete.value_counts()
    # Every one of the 2^5 patterns, observed or not.
    import itertools

    every = pd.DataFrame(list(itertools.product("ny", repeat=5)), columns=votes.columns)
    expected = len(complete) * np.exp(mix.log_likelihood_rows(every))
    assert expected.sum() == pytest.approx(len(complete))
    obs = np.array([observed.get(tuple(r), 0) for r in every.itertuples(index=False)])
    chi2 = np.sum((obs - expected) ** 2 / expected)
    seen = obs > 0
    g2 = 2 * np.sum(obs[seen] * np.log(obs[seen] / expected[seen]))
    assert result["chi2"] == pytest.approx(chi2, rel=1e-10)
    assert result["g2"] == pytest.approx(g2, rel=1e-10)
    assert result["df"] == 2**5 - 1 - (1 + 2 * 5)
    assert result["n_complete"] == len(complete) and result["n_patterns"] == seen.sum()


# -- reports and sampling ------------------------------------------------------------------------


def test_influence_is_the_kl_divergence_from_the_whole_data():
    rng = np.random.default_rng(5)
    n = 300
    z = rng.random(n) < 0.5
    df = pd.DataFrame(
        {
            "a": (rng.random(n) < np.where(z, 0.9, 0.2)).astype(int),
            "c": rng.choice(list("xyz"), n),
            "g": rng.normal(np.where(z, 2.0, -1.0), np.where(z, 1.0, 0.5)),
        }
    )
    model = bnb.NaiveBayes(
        {
            "a": bnb.Bernoulli(bnb.Beta(2, 2)),
            "c": bnb.Categorical(bnb.Dirichlet(2.0)),
            "g": bnb.Gaussian(),
        }
    )
    mix = model.cluster(df, 2, n_init=2, random_state=0, estimate="map")
    infl = mix.influence()
    assert infl.dims == ("component", "feature") and list(infl["feature"].values) == ["a", "c", "g"]
    counts = mix.counts
    # Bernoulli: the whole data's MAP from the pooled expected counts.
    pooled = counts["a"].sum("component").values  # [zeros, ones]
    q = (pooled[1] + 1) / (pooled.sum() + 2)
    for k in range(2):
        p = mix.params["a"].values[k]
        kl = p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))
        assert infl.values[k, 0] == pytest.approx(kl, rel=1e-12)
    # Gaussian: against a numerical integral of N_k log(N_k / N_all).
    n_k, m_k = counts["g_n"].values, counts["g_mean"].values
    m0 = (n_k * m_k).sum() / n_k.sum()
    ss0 = (counts["g_ss"].values + n_k * (m_k - m0) ** 2).sum()
    prior = mix.blocks[2].prior
    mu0, var0 = (np.asarray(v).item() for v in prior.posterior(n_k.sum(), m0, ss0).mode())
    for k in range(2):
        fk = stats.norm(mix.params["g_mu"].values[k], mix.params["g_sigma"].values[k])
        f0 = stats.norm(mu0, np.sqrt(var0))
        kl, _ = integrate.quad(
            lambda t, fk=fk, f0=f0: fk.pdf(t) * (fk.logpdf(t) - f0.logpdf(t)), -30, 30
        )
        assert infl.values[k, 2] == pytest.approx(kl, rel=1e-7)
    report = mix.report(top=2)
    assert report.index.names == ["component", "feature"] and len(report) == 4
    weights = report["weight"].to_numpy()
    assert np.all(np.diff(weights[::2]) <= 0)
    for _, block in report.groupby(level="component", sort=False):
        assert block["influence"].is_monotonic_decreasing


def test_sampling_follows_the_fitted_model():
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")))
    mix = model.cluster(votes, 3, n_init=2, random_state=0, estimate="map")
    draws = mix.sample(30000, random_state=1)
    assert list(draws.columns) == ["component", *votes.columns]
    assert set(np.unique(draws["V1"])) <= {"n", "y"}
    freq = draws["component"].value_counts(normalize=True).sort_index().to_numpy()
    w = mix.params["class_prob"].values
    np.testing.assert_allclose(freq, w, atol=4 * np.sqrt(w * (1 - w) / 30000).max())
    for k in range(3):
        rows = draws[draws["component"] == k]
        got = (rows[votes.columns] == "y").mean().to_numpy()
        theta = np.array([mix.params[v].values[k] for v in votes.columns])
        assert np.all(np.abs(got - theta) < 5 * np.sqrt(0.25 / len(rows)))


def test_sampling_a_multinomial_block_needs_lengths():
    X = sparse.random(30, 4, density=0.5, random_state=0, format="csr") * 5
    X.data = np.ceil(X.data)
    mix = bnb.NaiveBayes(bnb.Multinomial(bnb.Dirichlet(2.0))).cluster(
        X, 2, n_init=1, random_state=0, estimate="map"
    )
    with pytest.raises(TypeError, match="document lengths"):
        mix.sample(3)


# -- persistence, errors -----------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path):
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    mix = model.cluster(votes, 3, n_init=2, random_state=0, estimate="map")
    mix.save(tmp_path / "mix.nc")
    back = bnb.load(tmp_path / "mix.nc")
    assert isinstance(back, MixtureFit)
    xr.testing.assert_identical(back.params, mix.params)
    np.testing.assert_array_equal(back.predict_proba(votes), mix.predict_proba(votes))
    np.testing.assert_array_equal(back.history, mix.history)
    assert back.bic == mix.bic and back.converged == mix.converged


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"estimate": "predictive"}, "estimate must be None, 'mean', 'map' or 'ml'"),
        ({"method": "gibbs"}, "method must be 'em'"),
        ({"init": "uniform", "n_init": 3}, "n_init=3 restarts need random starts"),
        ({"init": np.full((435, 2), 0.4), "n_init": 1}, "sum to 1 in every row; row 0"),
        ({"init": {"class_prob": [0.5, 0.5]}, "n_init": 1}, "lacks the parameters of feature"),
        ({"n_components": 500}, "exceeds the 435 rows"),
        ({"max_iter": 0}, "max_iter must be an int >= 1"),
        ({"tol": -1.0}, "tol must be a finite number >= 0"),
        (
            {"y": ["democrat"] + [None] * 434, "n_components": ["a", "b"]},
            "not among the components",
        ),
        ({"init": "k-medoids"}, "init must be one of"),
    ],
)
def test_bad_input_is_named(options, match):
    X = bnb.datasets.house_votes_84().drop(columns="party")
    options = {"n_components": 2, **options}
    with pytest.raises(ValueError, match=match):
        fit_mixture(bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0))), X, **options)


# -- the blocked sweep ---------------------------------------------------------------------------


def test_take_rows_of_every_encoding():
    from bayesnb.mixture import _take_rows

    dense = np.arange(40.0).reshape(10, 4)
    codes = np.arange(10, dtype=np.int8)
    csr = sparse.csr_array(np.where(dense % 3 == 0, dense, 0.0))
    rows = slice(3, 8)
    np.testing.assert_array_equal(_take_rows(dense, rows), dense[3:8])
    np.testing.assert_array_equal(_take_rows(codes, rows), codes[3:8])
    block = _take_rows(csr, rows)
    assert block.shape == (5, 4)
    np.testing.assert_array_equal(block.toarray(), csr.toarray()[3:8])
    assert np.shares_memory(block.data, csr.data)  # a view of the values, not a copy
    x, mask = _take_rows((dense, None), rows)
    np.testing.assert_array_equal(x, dense[3:8])
    assert mask is None and _take_rows(None, rows) is None
    assert _take_rows(csr, slice(0, 10)) is csr  # every row: the encoding itself


def mixed_with_labels(seed=7, n=150):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "a": (rng.random(n) < np.array([0.2, 0.5, 0.9])[z]).astype(float),
            "c": np.array(list("xyz"), dtype=object)[(z + rng.integers(0, 2, n)) % 3],
            "g": rng.normal(np.array([-2.0, 0.0, 3.0])[z], 1.0),
            "w1": rng.poisson(2, n),
            "w2": rng.poisson(np.array([1, 3, 5])[z]),
        }
    )
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    df.loc[rng.random(n) < 0.1, "c"] = None
    df.loc[rng.random(n) < 0.1, "g"] = np.nan
    model = bnb.NaiveBayes(
        {
            "a": bnb.Bernoulli(bnb.Beta(2, 2)),
            "c": bnb.Categorical(bnb.Dirichlet(2.0)),
            "g": bnb.Gaussian(),
            "w": bnb.Multinomial(bnb.Dirichlet(2.0), columns=["w1", "w2"]),
        }
    )
    y = pd.Series(np.array(["p", "q", "r"], dtype=object)[z]).where(rng.random(n) < 0.15)
    return model, df, y


def fit_in_blocks(monkeypatch, rows, *args, **kwargs):
    """Fit with sweeps over blocks of ``rows`` rows (None: one block of every row)."""
    import bayesnb.mixture as mixture

    monkeypatch.setattr(mixture, "_block_rows", lambda encoded, n: n if rows is None else rows)
    return fit_mixture(*args, **kwargs)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore::bayesnb.ZeroProbabilityWarning")
def test_blocked_sweeps_give_the_one_block_fit(monkeypatch):
    cases = [random_problem(seed) for seed in range(25)]
    model, df, y = mixed_with_labels()
    cases.append(
        (model, df, {"n_components": ["p", "q", "r"], "y": y, "random_state": 1, "estimate": "map"})
    )
    for model, df, options in cases:
        # tol far above round-off, so both fits stop at the same iteration; plain EM,
        # as the accelerated one's accept-or-reject decisions may turn on round-off
        options = {"n_init": 2, "max_iter": 30, "tol": 1e-8, "accelerate": False, **options}
        whole = fit_in_blocks(monkeypatch, None, model, df, **options)
        blocked = fit_in_blocks(monkeypatch, 7, model, df, **options)  # ragged last block
        # Restart by restart (which one is best may turn on round-off between equal optima).
        for b, w in zip(blocked.restarts, whole.restarts, strict=True):
            np.testing.assert_allclose(b.history, w.history, rtol=1e-12)
            np.testing.assert_allclose(
                b.responsibilities, w.responsibilities, rtol=1e-9, atol=1e-12
            )
            for key in w.params.data_vars:
                np.testing.assert_allclose(
                    b.params[key].values, w.params[key].values, rtol=1e-9, atol=1e-12
                )
            for key in w.counts.data_vars:
                np.testing.assert_allclose(
                    b.counts[key].values, w.counts[key].values, rtol=1e-9, atol=1e-9
                )


def test_one_sweep_in_blocks_equals_the_unblocked_steps():
    # At the same parameters, the sweep's per-row log-likelihoods, responsibilities and
    # expected statistics equal the E-step and the counting done over all rows at once.
    import bayesnb.mixture as mixture
    from bayesnb._data import Table

    model, df, y = mixed_with_labels(seed=3, n=101)
    labels = ["p", "q", "r"]
    known = mixture._known_codes(y, labels, len(df))
    problem = mixture._Problem(model, Table(df), labels, "map", "map", known)
    state = problem.estimate(*problem.statistics(problem.random_weights(np.random.default_rng(0))))
    sweeps = {}
    for rows in (101, 10, 1):
        problem.row_blocks = [slice(s, min(101, s + rows)) for s in range(0, 101, rows)]
        problem.fixed = [problem._fixed_rows(r) for r in problem.row_blocks]
        sweeps[rows] = problem.sweep(state)
    # The unblocked E-step, by hand from the joint over every row.
    logj = problem.joint(state)
    row_ll = special.logsumexp(logj, axis=0)
    resp = np.exp(logj - row_ll)
    rows = np.flatnonzero(known >= 0)
    row_ll[rows] = logj[known[rows], rows]
    resp[:, rows] = 0.0
    resp[known[rows], rows] = 1.0
    stats, class_counts = problem.statistics(resp)
    for sweep in sweeps.values():
        np.testing.assert_allclose(sweep.row_ll, row_ll, rtol=1e-14)
        np.testing.assert_allclose(sweep.resp, resp, rtol=1e-13, atol=1e-15)
        assert sweep.log_likelihood == pytest.approx(row_ll.sum(), rel=1e-14)
        np.testing.assert_allclose(sweep.class_counts, class_counts, rtol=1e-13)
        for got, want in zip(sweep.stats, stats, strict=True):
            for key in want:
                np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12)


def test_an_impossible_row_in_a_later_block_is_named(monkeypatch):
    X = pd.DataFrame({"a": np.zeros(40), "b": np.zeros(40)})
    X.loc[33, "a"] = 1.0
    model = bnb.NaiveBayes(bnb.Bernoulli())
    start = {"class_prob": [0.5, 0.5], "a": [0.0, 0.0], "b": [0.3, 0.6]}
    with pytest.raises(ValueError, match="row 33 has likelihood 0 under every component"):
        fit_in_blocks(monkeypatch, 8, model, X, 2, init=start, n_init=1)


def test_a_sweep_over_no_rows_gives_zero_statistics():
    import bayesnb.mixture as mixture
    from bayesnb._data import Table

    model = bnb.NaiveBayes({"a": bnb.Bernoulli(), "c": bnb.Categorical(categories=["u", "v"])})
    empty = pd.DataFrame({"a": np.array([], dtype=float), "c": np.array([], dtype=object)})
    problem = mixture._Problem(model, Table(empty), [0, 1], "map", "map")
    assert problem.row_blocks == [slice(0, 0)]
    start = {"class_prob": [0.5, 0.5], "a": [0.2, 0.7], "c": [[0.5, 0.5], [0.1, 0.9]]}
    sweep = problem.sweep(mixture._State(*mixture.start_params(problem.blocks, 2, start)))
    assert sweep.log_likelihood == 0.0 and sweep.resp.shape == (2, 0)
    np.testing.assert_array_equal(sweep.class_counts, [0.0, 0.0])
    np.testing.assert_array_equal(sweep.stats[0]["counts"], np.zeros((2, 1, 2)))
    np.testing.assert_array_equal(sweep.stats[1]["counts"], np.zeros((2, 2)))


# -- Categorical blocks whose columns have different categories ----------------------------
# Oracle: the same data declared one Categorical per column of a DataFrame, whose reports,
# model choice and starts go through one column at a time; plus closed forms.

RAGGED_SIZES = [2, 3, 4, 3]


@pytest.fixture(scope="module")
def ragged_data():
    """Two planted clusters over integer columns of 2, 3, 4 and 3 values (the last
    one's values -1, 2, 5 are not a range)."""
    rng = np.random.default_rng(21)
    n = 400
    z = rng.random(n) < 0.4
    columns = []
    for size in RAGGED_SIZES:
        first, second = rng.dirichlet(np.ones(size), size=2)
        columns.append(np.where(z, rng.choice(size, n, p=first), rng.choice(size, n, p=second)))
    X = np.column_stack(columns)
    X[:, 3] = np.array([-1, 2, 5])[X[:, 3]]
    return X


def ragged_models(X):
    """The array as one Categorical block, and as one declared Categorical per column."""
    names = [f"x{j}" for j in range(X.shape[1])]
    block = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0)))
    columns = bnb.NaiveBayes({name: bnb.Categorical(bnb.Dirichlet(2.0)) for name in names})
    return (block, X), (columns, pd.DataFrame(X, columns=names))


def ragged_start(X):
    """A start in the layout of MixtureFit.params, one variable per column; the last
    column's categories listed in reverse (the coordinates give the order)."""
    rng = np.random.default_rng(4)
    data = {"class_prob": ("component", [0.3, 0.7])}
    coords = {"component": [0, 1]}
    for j in range(X.shape[1]):
        cats = sorted(set(X[:, j].tolist()))
        if j == X.shape[1] - 1:
            cats = cats[::-1]
        data[f"x{j}"] = (("component", f"x{j}_category"), rng.dirichlet(np.ones(len(cats)), 2))
        coords[f"x{j}_category"] = cats
    return xr.Dataset(data, coords=coords)


def test_ragged_block_em_from_the_same_start_is_the_per_column_em(ragged_data):
    X = ragged_data
    start = ragged_start(X)
    (block, Xb), (columns, Xc) = ragged_models(X)
    a = block.cluster(Xb, None, init=start, n_init=1, estimate="map")
    b = columns.cluster(Xc, None, init=start, n_init=1, estimate="map")
    assert a.blocks[0].column_sizes() == RAGGED_SIZES and a.blocks[0].categories is None
    assert a.n_iter > 5
    np.testing.assert_allclose(a.history, b.history, rtol=1e-12)
    xr.testing.assert_allclose(a.params, b.params, rtol=1e-10)
    # The start's first objective, by hand: log-likelihood plus the log prior densities.
    p = {v: start[v].sortby(f"{v}_category").values for v in ("x0", "x1", "x2", "x3")}
    cats = [sorted(set(X[:, j].tolist())) for j in range(4)]
    logj = np.log(start["class_prob"].values)[None, :] + sum(
        np.log(p[f"x{j}"][:, np.searchsorted(cats[j], X[:, j])]).T for j in range(4)
    )
    loglik = special.logsumexp(logj, axis=1).sum()
    log_prior = stats.dirichlet([1.0, 1.0]).logpdf(start["class_prob"].values) + sum(
        stats.dirichlet(np.full(s, 2.0)).logpdf(p[f"x{j}"][k])
        for j, s in enumerate(RAGGED_SIZES)
        for k in range(2)
    )
    assert a.history[0] == pytest.approx(loglik + log_prior, rel=1e-12)


def test_ragged_block_influence_and_report_are_the_per_column_ones(ragged_data):
    X = ragged_data
    (block, Xb), (columns, Xc) = ragged_models(X)
    a = block.cluster(Xb, 2, n_init=2, random_state=3, estimate="map")
    b = columns.cluster(Xc, 2, n_init=2, random_state=3, estimate="map")
    np.testing.assert_allclose(a.history, b.history, rtol=1e-12)
    infl = a.influence()
    xr.testing.assert_allclose(infl, b.influence(), rtol=1e-10)
    assert list(infl["feature"].values) == ["x0", "x1", "x2", "x3"]
    # Column x2 by hand: KL of each component's MAP probabilities from the whole
    # data's MAP under Dirichlet(2), (N_v + 1) / (N + V), from the pooled counts.
    pooled = a.counts["x2"].sum("component").values
    q = (pooled + 1) / (pooled.sum() + 4)
    for k in range(2):
        pk = a.params["x2"].values[k]
        assert infl.sel(feature="x2").values[k] == pytest.approx(np.sum(pk * np.log(pk / q)))
    pd.testing.assert_frame_equal(a.report(top=None), b.report(top=None), rtol=1e-10)
    summary = a.report(top=None).loc[(0, "x3"), "summary"]
    top = int(a.params["x3"].sel(component=0).idxmax())
    assert summary.startswith(f"{top}: ")  # the most probable value in x3's own coding


def test_ragged_block_model_choice_is_the_per_column_one(ragged_data):
    X = ragged_data
    (block, Xb), (columns, Xc) = ragged_models(X)
    a = compare_components(block, Xb, 3, n_init=2, random_state=0, estimate="map")
    b = compare_components(columns, Xc, 3, n_init=2, random_state=0, estimate="map")
    pd.testing.assert_frame_equal(a, b, rtol=1e-9)
    for K, row in a.iterrows():
        p = (K - 1) + K * sum(s - 1 for s in RAGGED_SIZES)
        assert row["n_parameters"] == p
        assert row["df"] == math.prod(RAGGED_SIZES) - 1 - p
        assert row["n_complete"] == len(X)
    # One component: the exact marginal likelihood, a Dirichlet(2)-multinomial per
    # column over its own values (the class term is log B(1 + N) - log B(1) = 0).
    exact = 0.0
    for j, size in enumerate(RAGGED_SIZES):
        counts = np.unique(X[:, j], return_counts=True)[1]
        alpha = np.full(size, 2.0)
        exact += special.gammaln(alpha.sum()) - special.gammaln(alpha.sum() + len(X))
        exact += np.sum(special.gammaln(alpha + counts) - special.gammaln(alpha))
    assert a.loc[1, "cheeseman_stutz"] == pytest.approx(exact, rel=1e-12)
    mix = block.cluster(Xb, 2, n_init=1, random_state=0, estimate="map")
    assert mix.pattern_statistics(Xb) == pytest.approx(
        columns.cluster(Xc, 2, n_init=1, random_state=0, estimate="map").pattern_statistics(Xc),
        rel=1e-10,
    )


@pytest.mark.parametrize(
    "case",
    [
        "ragged block",
        "shared block",
        "one categorical column",
        "binned block",
        "bernoulli block",
        "gaussian block",
        "multinomial",
        "data frame",
    ],
)
def test_params_of_every_layout_restart_em_where_it_stopped(case, ragged_data):
    rng = np.random.default_rng(9)
    n = 200
    model, X = {
        "ragged block": (bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0))), ragged_data),
        "shared block": (
            bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0), categories=range(3))),
            rng.integers(0, 3, (n, 3)),
        ),
        "one categorical column": (bnb.NaiveBayes(bnb.Categorical()), rng.integers(0, 4, (n, 1))),
        "binned block": (bnb.NaiveBayes(bnb.Binned([0, 0.3, 0.7, 1])), rng.random((n, 2))),
        "bernoulli block": (
            bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2))),
            rng.random((n, 3)) < 0.4,
        ),
        "gaussian block": (bnb.NaiveBayes(bnb.Gaussian()), rng.normal(size=(n, 2))),
        "multinomial": (
            bnb.NaiveBayes(bnb.Multinomial(bnb.Dirichlet(2.0))),
            rng.integers(0, 5, (n, 4)),
        ),
        "data frame": (
            bnb.NaiveBayes(
                {
                    "c": bnb.Categorical(bnb.Dirichlet(2.0), columns=["c1", "c2"]),
                    "g": bnb.Gaussian(),
                    "b": bnb.Bernoulli(bnb.Beta(2, 2)),
                }
            ),
            pd.DataFrame(
                {
                    "c1": rng.choice(list("uvw"), n),
                    "c2": rng.choice(list("pq"), n),
                    "g": rng.normal(size=n),
                    "b": rng.integers(0, 2, n),
                }
            ),
        ),
    }[case]
    fit = model.cluster(X, 2, n_init=1, random_state=0, estimate="map")
    assert fit.converged
    # The objective at the fitted parameters, recomputed from params alone (as a
    # Dataset, and as a dict of plain arrays in the same layout).
    plain = {name: value.values for name, value in fit.params.data_vars.items()}
    for start in (fit.params, plain):
        with warnings.catch_warnings():  # one step cannot show convergence
            warnings.simplefilter("ignore", ConvergenceWarning)
            again = model.cluster(X, 2, init=start, n_init=1, max_iter=1, estimate="map")
        assert again.history[0] == pytest.approx(fit.history[-1], rel=1e-12)


def test_a_start_without_a_block_column_names_it(ragged_data):
    start = ragged_start(ragged_data).drop_vars("x1")
    model = bnb.NaiveBayes(bnb.Categorical())
    with pytest.raises(ValueError, match=r"feature 'x1' \(column of the categorical block 'X'\)"):
        model.cluster(ragged_data, None, init=start, n_init=1, estimate="map")


def test_ragged_block_sample_is_the_per_column_sample(ragged_data):
    X = ragged_data
    (block, Xb), (columns, Xc) = ragged_models(X)
    a = block.cluster(Xb, 2, n_init=1, random_state=0, estimate="map")
    b = columns.cluster(Xc, 2, n_init=1, random_state=0, estimate="map")
    draws = a.sample(20000, random_state=5)
    pd.testing.assert_frame_equal(draws, b.sample(20000, random_state=5), check_dtype=False)
    assert list(draws.columns) == ["component", "x0", "x1", "x2", "x3"]
    for k in range(2):
        rows = draws[draws["component"] == k]
        for j in range(4):
            var = f"x{j}"
            theta = a.params[var].sel(component=k)
            got = rows[var].value_counts(normalize=True).reindex(theta[f"{var}_category"].values)
            got = got.fillna(0.0).to_numpy()
            assert np.all(np.abs(got - theta.values) < 5 * np.sqrt(0.25 / len(rows)))


def test_ragged_block_mixture_round_trips_through_save_and_load(ragged_data, tmp_path):
    X = ragged_data
    mix = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(2.0))).cluster(
        X, 2, random_state=0, estimate="map"
    )
    mix.save(tmp_path / "mix.nc")
    back = bnb.load(tmp_path / "mix.nc")
    assert back.blocks[0].column_categories == mix.blocks[0].column_categories
    xr.testing.assert_identical(back.params, mix.params)
    np.testing.assert_array_equal(back.history, mix.history)
    xr.testing.assert_identical(back.influence(), mix.influence())
    assert back.cheeseman_stutz(X) == mix.cheeseman_stutz(X)
    assert back.pattern_statistics(X) == mix.pattern_statistics(X)
    pd.testing.assert_frame_equal(back.sample(50, random_state=1), mix.sample(50, random_state=1))


def test_report_summaries_and_word_influence_of_every_family():
    rng = np.random.default_rng(9)
    n = 400
    z = rng.random(n) < 0.5
    df = pd.DataFrame(
        {
            "v": np.where(rng.random(n) < np.where(z, 0.85, 0.2), "y", "n"),
            "g": rng.normal(np.where(z, 3.0, -1.0), 1.0),
            "w1": rng.poisson(np.where(z, 4.0, 0.5)),
            "w2": rng.poisson(np.where(z, 0.5, 4.0)),
            "w3": rng.poisson(1.0, n),
        }
    )
    model = bnb.NaiveBayes(
        {
            "v": bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")),
            "g": bnb.Gaussian(),
            "words": bnb.Multinomial(bnb.Dirichlet(2.0), columns=["w1", "w2", "w3"]),
        }
    )
    mix = model.cluster(df, 2, n_init=2, random_state=0, estimate="map")
    report = mix.report(top=None)
    names = [b.name for b in mix.blocks]
    pooled = dict(zip(names, cluster_reports.pooled_params(mix), strict=True))
    for k in range(2):
        p = mix.params["v"].values[k]
        q = np.exp(pooled["v"]["log_prob"][0, 0, 1])
        assert report.loc[(k, "v"), "summary"] == f"P(y) = {p:.3f} (all: {q:.3f})"
        mu, sd = mix.params["g_mu"].values[k], mix.params["g_sigma"].values[k]
        m0, s0 = pooled["g"]["mu"][0, 0], np.sqrt(pooled["g"]["var"][0, 0])
        assert report.loc[(k, "g"), "summary"] == (
            f"mean {mu:.4g} ± {sd:.3g} (all: {m0:.4g} ± {s0:.3g})"
        )
        # The word most over-represented, and the KL divergence over the words.
        pw, qw = mix.params["words"].values[k], np.exp(pooled["words"]["log_prob"][0])
        top = int(np.argmax(np.log(pw) - np.log(qw)))
        word = ["w1", "w2", "w3"][top]
        assert report.loc[(k, "words"), "summary"] == (
            f"{word}: {pw[top]:.3g} (all: {qw[top]:.3g})"
        )
        kl = float(np.sum(pw * np.log(pw / qw)))
        assert report.loc[(k, "words"), "influence"] == pytest.approx(kl, rel=1e-12)


def _threads_during_em(monkeypatch, X):
    """The most threads any BLAS or OpenMP pool had while EM ran on ``X``."""
    from threadpoolctl import threadpool_info

    from bayesnb import mixture

    seen = []
    run_many = mixture._Problem.run_many

    def spy(self, *args, **kwargs):
        seen.append(max(pool["num_threads"] for pool in threadpool_info()))
        return run_many(self, *args, **kwargs)

    monkeypatch.setattr(mixture._Problem, "run_many", spy)
    bnb.NaiveBayes().cluster(X, 2, n_init=1, random_state=0)
    return seen[0]


def test_a_small_clustering_runs_on_one_thread_and_restores_the_pools(monkeypatch):
    """A small problem's EM and k-means start run with every thread pool at 1 (its
    threads only wait for each other), and the pools are as they were afterwards; a
    problem above the threshold keeps them."""
    from threadpoolctl import threadpool_info

    from bayesnb import mixture

    before = {p["filepath"]: p["num_threads"] for p in threadpool_info()}
    small = bnb.datasets.old_faithful()
    assert _threads_during_em(monkeypatch, small) == 1
    assert {p["filepath"]: p["num_threads"] for p in threadpool_info()} == before
    if max(before.values()) > 1:  # a pool of several threads to keep
        rng = np.random.default_rng(0)
        rows = mixture.ONE_THREAD_ENTRIES // 2 + 1
        large = rng.normal(size=(rows, 2)) + 4.0 * (rng.random((rows, 1)) < 0.5)
        assert _threads_during_em(monkeypatch, large) == max(before.values())


def test_convergence_warnings_name_the_users_call():
    """EM's warnings point at the line that called cluster(), not inside the package."""
    X = bnb.datasets.old_faithful()
    with pytest.warns(ConvergenceWarning) as caught:
        bnb.NaiveBayes().cluster(X, 3, max_iter=2, random_state=0)
    assert {w.filename for w in caught} == {__file__}


# -- options that do not apply, checked before any fitting -----------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"draws": 10}, ["draws=10"]),
        ({"tune": 5}, ["tune=5"]),
        ({"chains": 2}, ["chains=2"]),
        ({"sampler": "nuts"}, ["sampler='nuts'"]),
        ({"draws": 10, "chains": 2}, ["draws=10", "chains=2"]),
    ],
)
def test_mcmc_options_with_method_em_are_refused(options, named):
    X = bnb.datasets.old_faithful()
    with pytest.raises(bnb.InputError, match=r"method='em'.*method='mcmc'") as caught:
        bnb.NaiveBayes().cluster(X, 2, method="em", **options)
    for name in named:
        assert name in str(caught.value)
    with pytest.raises(bnb.InputError, match=r"MCMC option"):  # method="em" by default too
        bnb.NaiveBayes().cluster(X, 2, **options)


def test_persist_with_x_in_memory_is_refused():
    X = bnb.datasets.old_faithful()
    with pytest.raises(bnb.InputError, match=r"persist=False .*Dask.*Leave persist out"):
        bnb.NaiveBayes().cluster(X, 2, persist=False)


@pytest.mark.parametrize("which", ["components", "covariances"])
def test_k_max_beyond_the_rows_is_refused_before_any_fit(monkeypatch, which):
    X = bnb.datasets.old_faithful().iloc[:30]

    def no_fit(*args, **kwargs):
        raise AssertionError("a fit ran before k_max was checked")

    monkeypatch.setattr(bnb.NaiveBayes, "cluster", no_fit)
    match = r"k_max=40 exceeds the 30 rows of X.*k_max <= 30"
    with pytest.raises(bnb.InputError, match=match):
        if which == "components":
            bnb.compare_components(bnb.NaiveBayes(), X, 40)
        else:
            bnb.compare_covariances(X, 40)
    monkeypatch.undo()
    table = bnb.compare_components(bnb.NaiveBayes(), X, 2, random_state=0)  # the remedy
    assert table.index.tolist() == [1, 2]


@pytest.mark.parametrize("init", [None, 3])
def test_an_init_of_another_type_lists_every_named_start(init):
    X = bnb.datasets.old_faithful()
    with pytest.raises(bnb.InputTypeError) as caught:
        bnb.NaiveBayes().cluster(X, 2, init=init)
    for name in ("kmeans", "k-means++", "random", "assign", "uniform"):
        assert repr(name) in str(caught.value)


def test_an_unknown_init_name_lists_every_named_start():
    X = bnb.datasets.old_faithful()
    with pytest.raises(bnb.InputError) as caught:
        bnb.NaiveBayes().cluster(X, 2, init="k-medoids")
    for name in ("kmeans", "k-means++", "random", "assign", "uniform"):
        assert repr(name) in str(caught.value)


def test_an_empty_ml_component_names_a_remedy_that_works():
    """A start with every row in component 0: under ML component 1 has no members.
    The remedy, leaving estimate unset (MAP for the Gaussian features, the posterior
    mean for the weights), fits from the same start; 'mean' would be refused."""
    X = bnb.datasets.old_faithful()
    start = np.zeros((len(X), 2))
    start[:, 0] = 1.0
    with pytest.raises(bnb.InputError, match=r"component 1 has no members") as caught:
        bnb.NaiveBayes().cluster(X, 2, init=start, estimate="ml")
    assert "'mean' for discrete features, 'map' for Gaussian ones" in str(caught.value)
    fit = bnb.NaiveBayes().cluster(X, 2, init=start)
    assert np.all(fit.params["class_prob"].values > 0)
