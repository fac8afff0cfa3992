"""MCMC clustering: the Gibbs sampler against the exact conjugate posterior where the
memberships are known, relabelling against label switching, and the fit's groups."""

import math
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

import bayesnb as bnb
from bayesnb import errors
from tests.test_em_loop import planted_words


def mcse_ok(draws: np.ndarray, expected, k: float = 4.0) -> bool:
    """Whether the mean of (chain, draw, ...) draws lies within k Monte-Carlo standard
    errors (sd / sqrt(ESS), ArviZ's bulk ESS) of ``expected``."""
    import xarray as xr

    da = xr.DataArray(draws, dims=("chain", "draw", *[f"d{i}" for i in range(draws.ndim - 2)]))
    ess = az.ess(da.to_dataset(name="x"))["x"].values
    sd = draws.std(axis=(0, 1))
    err = np.abs(draws.mean(axis=(0, 1)) - expected)
    return bool(np.all(err <= k * sd / np.sqrt(ess) + 1e-12))


def labelled_frame(seed=0, n=80):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n)
    df = pd.DataFrame(
        {
            "f": np.where(y == "a", rng.random(n) < 0.8, rng.random(n) < 0.3).astype(float),
            "c": np.where(y == "a", rng.choice(["x", "y", "z"], n), rng.choice(["x", "y"], n)),
            "g": np.where(y == "a", rng.normal(0, 1, n), rng.normal(3, 0.5, n)),
        }
    )
    df.loc[::6, "f"] = np.nan
    df.loc[::7, "g"] = np.nan
    df.loc[::5, "c"] = None
    return df, y


CONVERGENCE = "ignore::sklearn.exceptions.ConvergenceWarning"  # few draws: r_hat is rough
NIG = bnb.NormalInverseGamma(mu=1.0, kappa=0.5, alpha=3.0, beta=2.0)


def model():
    return bnb.NaiveBayes(
        {"f": bnb.Bernoulli(bnb.Beta(2, 2)), "c": bnb.Categorical(), "g": bnb.Gaussian(NIG)}
    )


def test_gibbs_with_every_membership_known_draws_the_exact_posterior():
    # Every row's component known: z is fixed, so the Gibbs draws of theta | z are
    # independent draws of the supervised model's exact conjugate posterior.
    df, y = labelled_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (EM's start from the labels converges at once)
        fit = model().cluster(
            df, 2, y=y, method="mcmc", draws=1000, chains=2, tune=10, random_state=1
        )
    exact = model().fit(df, y)  # estimate="mean": the exact posterior mean
    post = fit.trace["posterior"].ds
    assert mcse_ok(post["f"].values, exact.params["f"].values)
    assert mcse_ok(post["c"].values, exact.params["c"].values)
    assert mcse_ok(post["class_prob"].values, exact.params["class_prob"].values)
    # the Gaussian's NIG posterior means: mu_n and beta_n / (alpha_n - 1)
    for j, label in enumerate(["a", "b"]):
        v = df["g"][y == label].dropna().to_numpy()
        n, mean = len(v), v.mean()
        kappa = 0.5 + n
        mu = (0.5 * 1.0 + n * mean) / kappa
        alpha = 3.0 + n / 2
        beta = 2.0 + ((v - mean) ** 2).sum() / 2 + 0.5 * n * (mean - 1.0) ** 2 / (2 * kappa)
        assert mcse_ok(post["g_mu"].values[..., j], mu)
        assert mcse_ok(post["g_var"].values[..., j], beta / (alpha - 1))
    assert fit.n_permuted == 0  # known rows fix the labels: nothing is relabelled
    np.testing.assert_array_equal(
        fit.membership.values, np.column_stack([y == "a", y == "b"]).astype(float)
    )


def three_clusters(seed=0, n=240):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    centres = np.array([[0.9] * 4 + [0.1] * 4, [0.1] * 4 + [0.9] * 4, [0.9, 0.1] * 4])
    return (rng.random((n, 8)) < centres[z]).astype(int), z


def test_relabelling_undoes_label_switching_between_chains():
    X, _ = three_clusters()
    fit = bnb.NaiveBayes(bnb.Bernoulli()).cluster(
        X, 3, method="mcmc", draws=400, chains=4, tune=100, random_state=3
    )
    raw = az.rhat(fit.trace["posterior_raw"].ds)
    relabelled = az.rhat(fit.trace["posterior"].ds)
    # The chains start in different labellings of the one mode: as drawn they disagree.
    assert max(float(v.max()) for v in raw.data_vars.values()) > 1.1
    assert max(float(v.max()) for v in relabelled.data_vars.values()) <= 1.01
    assert fit.n_permuted > 0
    assert fit.trace["sample_stats"]["permuted"].sum() == fit.n_permuted
    # Relabelled, every draw's components sit near the EM reference's.
    post = fit.trace["posterior"]["X"].mean(("chain", "draw")).values
    np.testing.assert_allclose(post, fit.reference.params["X"].values, atol=0.05)


def test_house_votes_gibbs_agrees_with_map_em():
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    fit = bnb.NaiveBayes().cluster(votes, 2, method="mcmc", random_state=0)
    assert fit.diagnostics["max_r_hat"] <= 1.01
    table = fit.summary(var_names=["class_prob"])
    assert table["r_hat"].max() <= 1.01 and table.attrs["n_divergent"] == 0
    assert table.attrs["n_permuted"] == fit.n_permuted
    post = fit.trace["posterior"].ds
    ref = fit.reference.params
    sd = post.std(("chain", "draw"))
    gap = np.abs(post.mean(("chain", "draw")) - ref)
    for name in post.data_vars:
        assert float((gap[name] - sd[name]).max()) < 0, name
    # membership: a distribution over the components for every row
    np.testing.assert_allclose(fit.membership.sum("component").values, 1.0)
    # row 248 has no vote at all: likelihood 1 under every draw, left out of the group
    assert fit.trace["log_likelihood"]["x"].shape == (4, 1000, 434)
    assert "248" in fit.trace["log_likelihood"].attrs["omitted_rows"]
    assert np.isfinite(az.loo(fit.trace).elpd)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_pointwise_log_likelihood_is_the_mixture_density_at_the_draw():
    X, _ = three_clusters(n=60)
    fit = bnb.NaiveBayes(bnb.Bernoulli()).cluster(
        X, 2, method="mcmc", draws=50, chains=2, tune=20, random_state=0
    )
    post = fit.trace["posterior"].ds
    for chain, draw in [(0, 0), (1, 49)]:
        p = post.isel(chain=chain, draw=draw)
        w, theta = p["class_prob"].values, p["X"].values  # (K,), (K, 8)
        by_hand = np.log(
            (w[None, :] * np.prod(np.where(X[:, None, :] == 1, theta, 1 - theta), axis=2)).sum(1)
        )
        got = fit.trace["log_likelihood"]["x"].isel(chain=chain, draw=draw).values
        np.testing.assert_allclose(got, by_hand, rtol=1e-10)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_rows_of_a_frame_are_labelled_by_its_index():
    X, _ = three_clusters(n=40)
    frame = pd.DataFrame(X.astype(float), index=[f"s{i}" for i in range(40)])
    frame.iloc[5] = np.nan  # no observed value: left out of the log-likelihood group
    fit = bnb.NaiveBayes(bnb.Bernoulli()).cluster(
        frame, 2, method="mcmc", draws=20, chains=2, tune=10, random_state=0
    )
    assert fit.membership["row"].values.tolist() == frame.index.tolist()
    kept = [label for label in frame.index if label != "s5"]
    assert fit.trace["log_likelihood"]["row"].values.tolist() == kept
    assert "'s5'" in fit.trace["log_likelihood"].attrs["omitted_rows"]


@pytest.mark.filterwarnings(CONVERGENCE)
def test_compare_over_k():
    X, _ = three_clusters(n=150)
    fits = {
        f"K={k}": bnb.NaiveBayes(bnb.Bernoulli()).cluster(
            X, k, method="mcmc", draws=200, chains=2, tune=100, random_state=0
        )
        for k in (1, 3)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArviZ's Pareto-k notes on small data
        table = az.compare({name: f.trace for name, f in fits.items()})
    assert table.index[0] == "K=3"


@pytest.mark.filterwarnings(CONVERGENCE)
def test_mcmc_fit_has_the_em_interface():
    X, _ = three_clusters(n=90)
    fit = bnb.NaiveBayes(bnb.Bernoulli()).cluster(
        X, 3, method="mcmc", draws=100, chains=2, tune=50, random_state=0
    )
    p = fit.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert set(fit.params.data_vars) == set(fit.reference.params.data_vars)
    assert math.isfinite(fit.bic)
    assert "MCMCMixtureFit" in repr(fit)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"sampler": "metropolis"}, errors.InputError, "sampler"),
        ({"draws": 0}, errors.InputError, "draws"),
        ({"chains": 1.5}, errors.InputTypeError, "chains"),
        ({"tune": -1}, errors.InputError, "tune"),
        ({"method": "vb"}, errors.InputError, "method"),
    ],
)
def test_bad_mcmc_options(kwargs, error, match):
    X, _ = three_clusters(n=30)
    options = {"method": "mcmc", **kwargs}
    with pytest.raises(error, match=match):
        bnb.NaiveBayes(bnb.Bernoulli()).cluster(X, 2, **options)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_an_mcmc_fit_is_saved_as_its_trace(tmp_path):
    X, _ = three_clusters(n=30)
    fit = bnb.NaiveBayes(bnb.Bernoulli()).cluster(
        X, 2, method="mcmc", draws=20, chains=1, tune=5, random_state=0
    )
    with pytest.raises(errors.InputError, match=r"trace\.to_netcdf"):
        fit.save(tmp_path / "m.nc")


@pytest.fixture(scope="module")
def votes_samplers():
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes()
    fits = {
        sampler: model.cluster(votes, 2, method="mcmc", sampler=sampler, random_state=0)
        for sampler in ("gibbs", "nuts")
    }
    # MAP-EM, its components put in the order of the NUTS reference's
    fits["map"] = model.cluster(votes, 2, estimate="map", init=fits["nuts"].reference, n_init=1)
    return fits


@pytest.mark.slow
def test_house_votes_nuts_and_gibbs_agree(votes_samplers):
    gibbs, nuts = votes_samplers["gibbs"], votes_samplers["nuts"]
    for fit in (gibbs, nuts):
        assert fit.diagnostics["max_r_hat"] <= 1.01
        assert fit.diagnostics["n_divergent"] == 0
    a, b = gibbs.trace["posterior"].ds, nuts.trace["posterior"].ds
    for name in a.data_vars:
        mcse_a = az.mcse(a[[name]])[name].values
        mcse_b = az.mcse(b[[name]])[name].values
        gap = np.abs(
            a[name].mean(("chain", "draw")).values - b[name].mean(("chain", "draw")).values
        )
        assert np.all(gap <= 4 * np.sqrt(mcse_a**2 + mcse_b**2) + 1e-12), name
        # both within one posterior sd of the EM fit they were relabelled to (the
        # default M-step, the mode under Dirichlet(alpha + 1)) and of MAP-EM proper
        sd = b[name].std(("chain", "draw")).values
        em = nuts.reference.params[name].values
        assert np.all(np.abs(b[name].mean(("chain", "draw")).values - em) < sd), name
        mapped = votes_samplers["map"].params[name].values
        assert np.all(np.abs(b[name].mean(("chain", "draw")).values - mapped) < sd), name


def test_membership_draws_follow_the_responsibilities():
    from bayesnb import _compiled

    rng = np.random.default_rng(0)
    n, chains, k = 20000, 2, 3
    joint = np.array([[-1.0, 0.5, -3.0], [2.0, 2.0, -50.0]])  # per chain
    logj = np.tile((joint - [[0.1, -0.2, 0.3], [0.0, 0.0, 0.0]]).ravel(), (n, 1))
    class_log_prob = np.array([[0.1, -0.2, 0.3], [0.0, 0.0, 0.0]])
    known = np.full(n, -1)
    known[:10] = 2  # known rows keep their component
    weights = np.full(n, 2.0)
    resp = np.zeros((n, chains * k))
    _compiled.draw_memberships(logj, class_log_prob, rng.random((n, chains)), known, weights, resp)
    assert np.all(resp[:10, [2, 5]] == 2.0)
    counts = (resp[10:] > 0).sum(axis=0).reshape(chains, k)
    p = np.exp(joint) / np.exp(joint).sum(axis=1, keepdims=True)
    sd = np.sqrt(p * (1 - p) * (n - 10))
    assert np.all(np.abs(counts - p * (n - 10)) <= 4 * sd + 1e-9)
    np.testing.assert_array_equal(resp.sum(axis=1), 2.0 * chains)


def _latent_class_rows(n=300, seed=4):
    """Three two- and three-level items from two classes: few distinct rows, which
    the compiled loops read once per pattern."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "a": np.where(z == 0, rng.random(n) < 0.8, rng.random(n) < 0.2).astype(int),
            "b": np.where(z == 0, rng.choice(3, n, p=[0.7, 0.2, 0.1]), rng.choice(3, n)),
            "c": np.where(z == 0, rng.random(n) < 0.3, rng.random(n) < 0.9).astype(int),
        }
    )


def _word_rows(n=90, V=12, seed=8):
    """Word counts of two planted topics as CSR, with a stored zero in every row and a
    word no document holds."""
    return planted_words(n, V, 2, 0.4, (2, 15), seed, stray_zeros=False)


def _words_and_columns(n=60):
    """Two blocks of word counts beside a binary, a categorical and a Gaussian column."""
    df, y = labelled_frame(seed=5, n=n)
    words = pd.DataFrame(
        _word_rows(n, 9, seed=9).toarray(), columns=[f"w{j}" for j in range(9)], index=df.index
    )
    declared = bnb.NaiveBayes(
        {
            "f": bnb.Bernoulli(bnb.Beta(2, 2)),
            "c": bnb.Categorical(),
            "title": bnb.Multinomial(bnb.Dirichlet(0.7), columns=["w0", "w1", "w2"]),
            "g": bnb.Gaussian(NIG),
            "body": bnb.Multinomial(columns=[f"w{j}" for j in range(3, 9)]),
        }
    )
    return declared, pd.concat([df, words], axis=1), y


def _with_joint_blocks(df):
    """``df`` with six more columns declared as multivariate Gaussian blocks among its
    Bernoulli, Categorical and Gaussian: two correlated pairs, one with every
    component's full covariance and one with a tied covariance, and two single
    columns, one diag and one spherical."""
    rng = np.random.default_rng(12)
    n = len(df)
    shift = np.where(df["g"].fillna(0.0) > 1.5, 2.0, 0.0)
    base = rng.normal(size=(n, 6))
    joint = pd.DataFrame(
        {
            "u": shift + base[:, 0],
            "v": 0.8 * base[:, 0] + 0.6 * base[:, 1] - shift,
            "s": 10.0 + base[:, 2],
            "t": 10.0 + 0.5 * base[:, 2] + base[:, 3],
            "p": base[:, 4] * 3.0,
            "q": base[:, 5] + shift,
        },
        index=df.index,
    )
    declared = bnb.NaiveBayes(
        {
            "f": bnb.Bernoulli(bnb.Beta(2, 2)),
            "full": bnb.MultivariateGaussian(columns=["u", "v"]),
            "c": bnb.Categorical(),
            "tied": bnb.MultivariateGaussian(
                bnb.NormalInverseWishart(kappa=0.2, nu=5.0), covariance="tied", columns=["s", "t"]
            ),
            "g": bnb.Gaussian(NIG),
            "diag": bnb.MultivariateGaussian(covariance="diag", columns=["p"]),
            "sph": bnb.MultivariateGaussian(covariance="spherical", columns=["q"]),
        }
    )
    return declared, pd.concat([df, joint], axis=1)


@pytest.mark.parametrize(
    "case",
    ["mixed", "patterns", "gaussian", "words", "words-sparse", "multivariate", "faithful"],
)
def test_compiled_gibbs_draws_what_the_python_sweeps_draw(monkeypatch, case):
    """The compiled sampler draws from the user's Generator in the Python sweep's order
    (memberships, then each fused group's gamma variates, its uniforms below
    concentration 1 or its normals, then the weights'), so from one seed the two give
    the same raw draws, to round-off: missing values, sample weights, known rows,
    rows read once per pattern, Gaussian columns, word counts (two blocks among
    other columns; a sparse matrix with stored zeros and a word no row holds), and
    multivariate Gaussian blocks of every covariance type (chain by chain: the
    Bartlett variates of every Inverse-Wishart, the gamma variates of every
    variance, then the means' normals), among other blocks or alone."""
    from bayesnb import _gibbs_loop, mcmc

    df, y = labelled_frame(seed=5, n=60)
    semi = np.array(y, dtype=object)
    semi[1::3] = None  # a third of the rows unlabelled
    weights = np.random.default_rng(6).uniform(0.3, 2.0, len(df))
    if case == "mixed":
        args = (model(), df, dict(y=list(semi), sample_weight=weights))
    elif case == "patterns":
        args = (bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(0.5))), _latent_class_rows(), {})
    elif case == "gaussian":
        args = (bnb.NaiveBayes(bnb.Gaussian(NIG)), df[["g"]].assign(h=df["g"] ** 2), {})
    elif case == "words":
        declared, X, _ = _words_and_columns()
        args = (declared, X, dict(y=list(semi), sample_weight=weights))
    elif case == "multivariate":
        declared, X = _with_joint_blocks(df)
        args = (declared, X, dict(y=list(semi), sample_weight=weights))
    elif case == "faithful":  # one tied-spherical block: one variance in all
        X = bnb.datasets.old_faithful()
        mvn = bnb.MultivariateGaussian(covariance="tied-spherical")
        args = (bnb.NaiveBayes(mvn), X, {})
    else:
        args = (bnb.NaiveBayes(bnb.Multinomial(bnb.Dirichlet(0.5))), _word_rows(), {})
    declared, X, options = args
    calls = []
    sample = _gibbs_loop.CompiledGibbs.sample

    def spied(self, *a, **kw):
        calls.append(self.compiled.inverse is not None)
        return sample(self, *a, **kw)

    monkeypatch.setattr(_gibbs_loop.CompiledGibbs, "sample", spied)
    fits = []
    for compiled in (True, False):
        monkeypatch.setattr(mcmc, "_compiled_gibbs_enabled", compiled)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits.append(
                declared.cluster(
                    X, 2, method="mcmc", draws=150, tune=30, chains=3, random_state=7, **options
                )
            )
    assert calls == [case == "patterns"]  # the first fit ran compiled, the second did not
    fast, slow = (f.trace["posterior_raw"].ds for f in fits)
    assert set(fast.data_vars) == set(slow.data_vars)
    for name in slow.data_vars:
        np.testing.assert_allclose(fast[name].values, slow[name].values, rtol=1e-10, atol=1e-12)
    # a concentration below 1 (Dirichlet(0.5)) takes the uniform's term: no draw is 0
    if case == "patterns":
        assert np.all(fast["b"].values > 0)
    if case == "words-sparse":  # the word no row holds keeps its prior Dirichlet(0.5)
        assert np.all(fast["X"].values[..., -1] > 0)


@pytest.mark.filterwarnings(CONVERGENCE)
def test_a_multivariate_block_is_sampled_by_the_compiled_sweep():
    """A MultivariateGaussian mixture (MAP-EM, so the compiled EM loop) is sampled by
    the compiled sweep; its relabelled draws centre on EM's MAP components (within a
    few posterior sds: Old Faithful's two clusters are distinct)."""
    from bayesnb import mixture
    from bayesnb._data import Table
    from bayesnb._gibbs_loop import CompiledGibbs

    X = bnb.datasets.old_faithful()
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    assert CompiledGibbs.covers(mixture._Problem(model, Table(X), [0, 1], None, None))
    fit = model.cluster(X, 2, method="mcmc", draws=300, chains=2, random_state=0)
    em = model.cluster(X, 2, random_state=0)
    draws = fit.trace["posterior"].ds["X_mu"]
    gap = np.abs(draws.mean(("chain", "draw")).values - em.params["X_mu"].values)
    assert np.all(gap < 3 * draws.std(("chain", "draw")).values)


def test_a_covariance_that_is_not_definite_stops_the_compiled_sweep():
    """A component whose covariance has no Cholesky factor (here the start's, zero)
    leaves the rows' densities undefined: the compiled sweep stops and says so, naming
    the block, rather than scoring with a stale factor."""
    from bayesnb import mixture
    from bayesnb._data import Table
    from bayesnb._gibbs_loop import CompiledGibbs

    X = bnb.datasets.old_faithful()
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    fit = model.cluster(X, 2, random_state=0)
    problem = mixture._Problem(model, Table(X), [0, 1], None, None)
    params = [{"mu": fit.block_params[0]["mu"], "cov": np.zeros((2, 2, 2))}]
    with pytest.raises(bnb.InputError, match=r"block\(s\) \['X'\] that is not numerically"):
        CompiledGibbs(problem).sample(
            fit.class_log_prob[None], params, 5, 0, np.random.default_rng(0), lambda n: None
        )


# -- diagnostics ArviZ cannot compute ----------------------------------------------------------


def _arviz_diagnostics(fit):
    """ArviZ's r_hat and bulk ESS of every parameter of the relabelled posterior that
    moves (a constant one, such as the single weight 1 of K = 1, has none)."""
    post = fit.trace["posterior"].ds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r_hat, ess = az.rhat(post), az.ess(post)
    moves = {v: np.ptp(post[v].values, axis=(0, 1)) > 0 for v in post.data_vars}
    r = np.concatenate([r_hat[v].values[moves[v]] for v in post.data_vars])
    e = np.concatenate([ess[v].values[moves[v]] for v in post.data_vars])
    return r, e


@pytest.mark.parametrize(("draws", "chains"), [(2, 4), (3, 2), (20, 1)])
def test_diagnostics_arviz_cannot_compute_are_nan_and_not_converged(draws, chains):
    """Fewer than 4 draws per chain (or one chain): ArviZ's r_hat is NaN. The fit
    reports NaN, not r_hat 1 and infinite ESS, is not converged, and warns why."""
    X = bnb.datasets.old_faithful()
    with pytest.warns(ConvergenceWarning, match=r"could not be computed.*chains=4") as caught:
        fit = bnb.NaiveBayes().cluster(
            X, 2, method="mcmc", draws=draws, tune=0, chains=chains, random_state=0
        )
    message = str(caught[0].message)
    assert (f"{draws} draw(s) per chain, fewer than 4" in message) == (draws < 4)
    assert (f"{chains} chain, fewer than 2" in message) == (chains < 2)
    r, e = _arviz_diagnostics(fit)
    assert np.isnan(r).all()  # ArviZ's own verdict
    assert math.isnan(fit.diagnostics["max_r_hat"])
    assert math.isnan(fit.diagnostics["min_ess_bulk"]) == bool(np.isnan(e).any())
    if not np.isnan(e).any():
        assert fit.diagnostics["min_ess_bulk"] == pytest.approx(e.min(), rel=1e-12)
    assert fit.converged is False


@pytest.mark.filterwarnings(CONVERGENCE)
@pytest.mark.parametrize("K", [1, 2])
def test_diagnostics_are_arviz_r_hat_and_ess(K):
    """With enough draws the diagnostics are ArviZ's maximum r_hat and minimum bulk
    ESS; the weight of a single component, 1 in every draw, has none and is left
    out."""
    X = bnb.datasets.old_faithful()
    fit = bnb.NaiveBayes().cluster(X, K, method="mcmc", draws=60, tune=10, chains=2, random_state=0)
    r, e = _arviz_diagnostics(fit)
    assert not np.isnan(r).any() and not np.isnan(e).any()
    assert fit.diagnostics["max_r_hat"] == pytest.approx(r.max(), rel=1e-12)
    assert fit.diagnostics["min_ess_bulk"] == pytest.approx(e.min(), rel=1e-12)
    assert fit.converged == bool(r.max() <= 1.01)
