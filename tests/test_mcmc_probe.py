"""MCMC clustering against independent oracles: the draws of a one-component mixture
against scipy's conjugate posteriors, the PyMC model's log density against a
hand computation with scipy, relabelling when only some components hold known rows,
the relabelling of a chain that switches, and the checks of the MCMC options."""

import itertools
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import special, stats

import bayesnb as bnb
from bayesnb import errors
from tests.test_mcmc import CONVERGENCE, NIG, labelled_frame, mcse_ok, model

#: Monte-Carlo standard errors a posterior moment may stray from its exact value.
MCSE_K = 5.0


def assert_moments(draws, dist) -> None:
    """The draws' mean and second moment within MCSE_K Monte-Carlo standard errors
    (ArviZ's bulk ESS of the draws, and of their squares) of those of the scipy
    distribution ``dist``."""
    mean, var = dist.mean(), dist.var()
    assert mcse_ok(draws, mean, MCSE_K), (draws.mean(), mean)
    assert mcse_ok(draws**2, var + mean**2, MCSE_K), (draws.var(), var)


def _assert_nig_posterior(post, g):
    """The draws of ``g_var`` and ``g_mu`` against the Normal-Inverse-Gamma posterior
    of the values ``g`` under ``NIG``, updated by hand: the variance an inverse gamma,
    the mean a Student t."""
    n, mean = len(g), g.mean()
    kappa, alpha = NIG.kappa + n, NIG.alpha + n / 2
    mu = (NIG.kappa * NIG.mu + n * mean) / kappa
    beta = (
        NIG.beta + ((g - mean) ** 2).sum() / 2 + NIG.kappa * n * (mean - NIG.mu) ** 2 / (2 * kappa)
    )
    assert_moments(post["g_var"].values, stats.invgamma(alpha, scale=beta))
    t = stats.t(2 * alpha, loc=mu, scale=np.sqrt(beta / (alpha * kappa)))
    assert_moments(post["g_mu"].values, t)


def test_one_component_gibbs_draws_the_conjugate_posterior():
    # K = 1: every row is in the one component, so the mixture's posterior is the
    # conjugate one, factor by factor: Beta, Dirichlet (each entry a Beta), and
    # Normal-Inverse-Gamma (the variance an inverse gamma, the mean a Student t).
    df, _ = labelled_frame(seed=2, n=40)
    fit = model().cluster(df, 1, method="mcmc", draws=1500, chains=2, random_state=0)
    post = fit.trace["posterior"].ds.isel(component=0)
    f = df["f"].dropna().to_numpy()
    assert_moments(post["f"].values, stats.beta(2 + f.sum(), 2 + len(f) - f.sum()))
    counts = df["c"].value_counts().reindex(post["c_category"].values, fill_value=0).to_numpy()
    a = 1.0 + counts  # the default Dirichlet(1)
    for j in range(len(a)):
        assert_moments(post["c"].values[..., j], stats.beta(a[j], a.sum() - a[j]))
    _assert_nig_posterior(post, df["g"].dropna().to_numpy())
    assert np.all(post["class_prob"].values == 1.0)


@pytest.mark.slow
def test_one_component_nuts_draws_the_conjugate_posterior():
    """NUTS on the PyMC model of a one-component mixture: the Beta and the
    Normal-Inverse-Gamma posterior, as scipy has them."""
    df, _ = labelled_frame(seed=2, n=40)
    declared = bnb.NaiveBayes({"f": bnb.Bernoulli(bnb.Beta(2, 2)), "g": bnb.Gaussian(NIG)})
    fit = declared.cluster(
        df[["f", "g"]], 1, method="mcmc", sampler="nuts", draws=400, chains=2, tune=400,
        random_state=0,
    )  # fmt: skip
    post = fit.trace["posterior"].ds.isel(component=0)
    f = df["f"].dropna().to_numpy()
    assert_moments(post["f"].values, stats.beta(2 + f.sum(), 2 + len(f) - f.sum()))
    _assert_nig_posterior(post, df["g"].dropna().to_numpy())


# -- the PyMC model's log density against scipy --------------------------------------------------
def _mixed_frame(n=24, seed=1):
    rng = np.random.default_rng(seed)
    words = rng.multinomial(8, [0.2, 0.3, 0.5], n)
    df = pd.DataFrame(
        {
            "f": (rng.random(n) < 0.4).astype(float),
            "c": rng.choice(["x", "y", "z"], n),
            "g": rng.normal(2, 1.5, n),
            **{f"w{j}": words[:, j] for j in range(3)},
        }
    )
    df.loc[[1, 5], "f"] = np.nan
    df.loc[[2, 6], "c"] = None
    df.loc[[3, 5], "g"] = np.nan
    return df, rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("labelled", [False, True])
def test_pymc_log_density_is_the_log_joint_by_scipy(weighted, labelled):
    """The PyMC model's log density at a point (no Jacobians) is the log prior density
    of the parameters plus sum_i w_i log p(x_i), computed term by term with scipy:
    logsumexp over the components for a free row, its own component for a known one,
    a missing value left out, and word counts scored as a sequence of words (without
    the multinomial coefficient)."""
    from bayesnb.pymc_model import model_point

    df, w = _mixed_frame()
    n = len(df)
    w = w if weighted else np.ones(n)
    known = [("a" if i % 2 else "b") if i % 3 == 0 else None for i in range(n)]
    declared = bnb.NaiveBayes(
        {
            "f": bnb.Bernoulli(bnb.Beta(2, 3)),
            "c": bnb.Categorical(bnb.Dirichlet(1.5)),
            "g": bnb.Gaussian(NIG),
            "doc": bnb.Multinomial(bnb.Dirichlet(0.7), columns=["w0", "w1", "w2"]),
        }
    )
    labels = ["a", "b"]
    pm_model = declared.to_pymc(
        df,
        n_components=labels,
        y=pd.Series(known, dtype=object) if labelled else None,
        sample_weight=w if weighted else None,
    )
    pi, pf, mu, var = [0.35, 0.65], [0.2, 0.7], [0.5, 2.5], [1.3, 0.7]
    pc = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    pw = np.array([[0.1, 0.3, 0.6], [0.5, 0.25, 0.25]])
    comp = ("component", labels)
    params = xr.Dataset(
        {
            "class_prob": xr.DataArray(pi, coords=[comp]),
            "f": xr.DataArray(pf, coords=[comp]),
            "c": xr.DataArray(pc, coords=[comp, ("c_category", ["x", "y", "z"])]),
            "g_mu": xr.DataArray(mu, coords=[comp]),
            "g_var": xr.DataArray(var, coords=[comp]),
            "doc": xr.DataArray(pw, coords=[comp, ("doc_category", ["w0", "w1", "w2"])]),
        }
    )
    got = float(pm_model.compile_logp(jacobian=False)(model_point(pm_model, params)))

    expected = stats.dirichlet([1.0, 1.0]).logpdf(pi)
    expected += stats.beta(2, 3).logpdf(pf).sum()
    expected += sum(stats.dirichlet([1.5] * 3).logpdf(p) for p in pc)
    expected += stats.invgamma(NIG.alpha, scale=NIG.beta).logpdf(var).sum()
    expected += stats.norm(NIG.mu, np.sqrt(np.array(var) / NIG.kappa)).logpdf(mu).sum()
    expected += sum(stats.dirichlet([0.7] * 3).logpdf(p) for p in pw)
    category = {"x": 0, "y": 1, "z": 2}
    words = df[["w0", "w1", "w2"]].to_numpy()
    for i, row in df.iterrows():
        terms = np.log(pi)
        for k in range(2):
            if not np.isnan(row["f"]):
                terms[k] += stats.bernoulli(pf[k]).logpmf(row["f"])
            if isinstance(row["c"], str):
                terms[k] += np.log(pc[k, category[row["c"]]])
            if not np.isnan(row["g"]):
                terms[k] += stats.norm(mu[k], np.sqrt(var[k])).logpdf(row["g"])
            terms[k] += (words[i] * np.log(pw[k])).sum()
        if labelled and known[i] is not None:
            expected += w[i] * terms[labels.index(known[i])]
        else:
            expected += w[i] * special.logsumexp(terms)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-9)


# -- relabelling -----------------------------------------------------------------------------------
def _brute_force_order(cost, free):
    """The order (entry k: the draw component put at reference component k) of least
    total cost among the permutations that move only the components ``free``."""
    k = cost.shape[0]
    best, best_total = None, np.inf
    for perm in itertools.permutations(free):
        order = np.arange(k)
        order[list(free)] = perm
        total = cost[order, np.arange(k)].sum()
        if total < best_total:
            best, best_total = order, total
    return best


@pytest.mark.parametrize(
    ("k", "free"), [(4, [1, 2, 3]), (4, [0, 3]), (5, [0, 1, 2, 3, 4]), (8, [0, 2, 3, 5, 6, 7])]
)
def test_assignments_permute_only_the_free_components(k, free):
    """Against a brute-force search over the permutations of the free components (the
    others held fixed), both for few components (scored exhaustively) and many
    (linear_sum_assignment)."""
    from bayesnb.mcmc import _assignments

    rng = np.random.default_rng(k)
    cost = rng.normal(size=(6, k, k))
    got = _assignments(cost, np.array(free))
    for s in range(len(cost)):
        np.testing.assert_array_equal(got[s], _brute_force_order(cost[s], free))


def _one_known_of_three(seed=0):
    """Three Gaussian clusters: ``a`` far off, with 5 known rows, and ``b`` and ``c``
    overlapping, with no known row, so that a chain swaps them now and then."""
    rng = np.random.default_rng(seed)
    x = np.r_[rng.normal(-8, 1, 10), rng.normal(-0.8, 1, 6), rng.normal(0.8, 1, 6)]
    y = pd.Series(["a" if i < 5 else None for i in range(len(x))], dtype=object)
    return pd.DataFrame({"g": x}), y


def test_components_without_known_rows_are_relabelled():
    """Known rows pin only their own component: two components without a known row
    still switch within a chain, and relabelling must undo it (it used to leave every
    draw as drawn as soon as one row was known)."""
    df, y = _one_known_of_three()
    declared = bnb.NaiveBayes(
        bnb.Gaussian(bnb.NormalInverseGamma(mu=0, kappa=0.1, alpha=2, beta=1))
    )
    fit = declared.cluster(
        df, ["a", "b", "c"], y=y, method="mcmc", draws=3000, chains=2, tune=100, random_state=1
    )
    raw = fit.trace["posterior_raw"]["g_mu"].values
    post = fit.trace["posterior"]["g_mu"].values
    # as drawn, b and c trade places in both chains; relabelled, they hardly ever do
    assert ((raw[..., 1] > raw[..., 2]).mean(axis=1) > 0.2).all()
    assert (post[..., 1] > post[..., 2]).mean() < 0.05
    np.testing.assert_array_equal(post[..., 0], raw[..., 0])  # a keeps its label
    assert 0 < fit.n_permuted < raw.shape[0] * raw.shape[1]
    assert fit.diagnostics["max_r_hat"] <= 1.01
    # every known row is in a, in every draw
    np.testing.assert_array_equal(fit.membership.values[:5], [[1.0, 0.0, 0.0]] * 5)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_a_switching_chain_is_relabelled_whole():
    """One chain on two overlapping clusters swaps its labels back and forth; a
    relabelled draw is the raw draw with its two components swapped, or not, in every
    variable at once (weights, means, variances and sds)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": np.r_[rng.normal(-0.8, 1, 6), rng.normal(0.8, 1, 6)]})
    declared = bnb.NaiveBayes(
        bnb.Gaussian(bnb.NormalInverseGamma(mu=0, kappa=0.1, alpha=2, beta=1))
    )
    fit = declared.cluster(df, 2, method="mcmc", draws=2000, chains=1, tune=100, random_state=1)
    swapped = fit.trace["sample_stats"]["permuted"].values[0]
    assert 0.1 < swapped.mean() < 0.9 and np.sum(np.diff(swapped.astype(int)) != 0) > 10
    for name in ("class_prob", "g_mu", "g_var", "g_sigma"):
        raw = fit.trace["posterior_raw"][name].values[0]
        expected = np.where(swapped[:, None], raw[:, ::-1], raw)
        np.testing.assert_array_equal(fit.trace["posterior"][name].values[0], expected)
    post = fit.trace["posterior"]["g_mu"].values[0]
    assert (post[:, 0] > post[:, 1]).mean() < 0.15  # one labelling, mostly


# -- the options -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"draws": 0},
            errors.InputError,
            r"draws \(the draws kept per chain\).*>= 1; got 0\. Pass e\.g\. draws=1000",
        ),
        ({"chains": -2}, errors.InputError, r"chains .*>= 1; got -2\. Pass e\.g\. chains=4"),
        ({"tune": -1}, errors.InputError, r"tune .*>= 0; got -1\. Pass e\.g\. tune="),
        ({"draws": 100.0}, errors.InputTypeError, r"draws .*got float 100\.0\. Pass int\(draws\)"),
        ({"chains": 1.5}, errors.InputTypeError, r"chains .*got float 1\.5\. Pass a whole number"),
        ({"tune": "10"}, errors.InputTypeError, r"tune .*got str '10'"),
        ({"draws": True}, errors.InputTypeError, r"draws .*got bool True"),
    ],
)
def test_bad_options_are_named_with_what_was_given_and_the_remedy(kwargs, error, match):
    X = np.array([[0, 1], [1, 0], [1, 1]])
    with pytest.raises(error, match=match):
        bnb.NaiveBayes(bnb.Bernoulli()).cluster(X, 2, method="mcmc", **kwargs)


@pytest.mark.parametrize("kwargs", [{"draws": 10**12}, {"chains": 10**9, "draws": 10}])
def test_draws_beyond_memory_are_refused_before_sampling(kwargs):
    """Numbers of draws whose trace could never fit in memory: an error naming draws and
    chains and the memory they would need, not a MemoryError from deep inside (or
    hours of building a billion chains' starts)."""
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    with pytest.raises(
        errors.InputError, match=r"draws=\d+ and chains=\d+ would keep.*GiB.*Lower draws or chains"
    ):
        bnb.NaiveBayes(bnb.Bernoulli()).cluster(X, 2, method="mcmc", random_state=0, **kwargs)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_the_trace_survives_netcdf_and_arviz_reads_it_back(tmp_path):
    df, _ = labelled_frame(seed=3, n=30)
    weights = np.random.default_rng(0).uniform(0.5, 2, len(df))
    with pytest.warns(UserWarning, match="sample weights"):  # (loo ignores weights)
        fit = model().cluster(
            df, 2, method="mcmc", draws=100, chains=2, tune=20, random_state=0,
            sample_weight=weights,
        )  # fmt: skip
    path = tmp_path / "trace.nc"
    fit.trace.to_netcdf(path)
    with xr.open_datatree(path) as back:
        assert set(back.children) == set(fit.trace.children)
        for group in fit.trace.children:
            xr.testing.assert_identical(back[group].ds.load(), fit.trace[group].ds)
        table = az.summary(back)
        assert np.isfinite(table["r_hat"].to_numpy(dtype=float)).all()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pareto-k notes on 30 rows
            assert az.loo(back).elpd == pytest.approx(az.loo(fit.trace).elpd)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_a_seed_gives_the_same_draws_and_the_chains_differ():
    X = (np.random.default_rng(2).random((40, 5)) < 0.5).astype(int)
    declared = bnb.NaiveBayes(bnb.Bernoulli())
    runs = [
        declared.cluster(X, 2, method="mcmc", draws=30, chains=3, tune=5, random_state=seed)
        for seed in (7, 7, 8)
    ]
    a, b, c = (r.trace["posterior_raw"]["X"].values for r in runs)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert not np.allclose(a[0], a[1]) and not np.allclose(a[1], a[2])
