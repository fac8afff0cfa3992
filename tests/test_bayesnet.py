"""Seed 004's Bayes-net ideas: independence in joint tables, d-separation against brute
force, Markovian parents, the IC algorithm, and naive Bayes as a special Bayes net."""

import functools
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import bayesnet as bn

NODES = ["X1", "X2", "X3", "X4", "X5"]


@pytest.fixture(scope="module")
def sprinkler_joint():
    graph = bn.sprinkler()
    return graph, bn.joint_table(graph, bn.random_cpts(graph, 2, random_state=0))


def test_every_d_separation_matches_the_factorized_table(sprinkler_joint):
    """Every statement X ⊥ Y | Z over the five variables with |Z| <= 2: d-separation
    in the graph holds exactly when the joint table built from random CPTs shows the
    independence (to 1e-12; a dependence shows far above it)."""
    graph, table = sprinkler_joint
    assert float(table.sum()) == pytest.approx(1.0, abs=1e-14)
    checked = 0
    for x, y in itertools.combinations(NODES, 2):
        others = [v for v in NODES if v not in (x, y)]
        for size in range(3):
            for given in itertools.combinations(others, size):
                separated = bn.d_separated(graph, x, y, given)
                assert bn.is_independent(table, x, y, given, tol=1e-12) == separated
                checked += 1
    assert checked == 10 * (1 + 3 + 3)


def test_the_seeds_statements(sprinkler_joint):
    """X5 ⊥ X1 | X4; X4's Markovian parents screen it off; the axioms.

    The seed writes P(X4 | X1, X2, X3, X5) = P(X4 | X2, X3). With X5 in the condition
    that is a slip: X5 is X4's child, and knowing it changes X4's distribution. The
    Markovian-parents statement it illustrates conditions on X4's predecessors in the
    ordering, P(X4 | X1, X2, X3) = P(X4 | X2, X3), which holds; the seed's version does
    not."""
    _, table = sprinkler_joint
    assert bn.is_independent(table, "X5", "X1", "X4")
    direct = bn.conditional(table, "X4", ["X2", "X3"])
    before = bn.conditional(table, "X4", ["X1", "X2", "X3"])
    np.testing.assert_allclose((before - direct).values, 0.0, atol=1e-12)
    with_child = bn.conditional(table, "X4", ["X1", "X2", "X3", "X5"])
    assert np.abs((with_child - direct).values).max() > 1e-3  # the seed's slip
    # symmetry and decomposition: X5 ⊥ {X1, X2} | X4 gives X5 ⊥ X1 | X4, and back
    assert bn.is_independent(table, "X5", ["X1", "X2"], "X4")
    assert bn.is_independent(table, ["X1", "X2"], "X5", "X4")
    assert not bn.is_independent(table, "X2", "X3", ["X1", "X4"])  # the collider opened
    # the exercise: independence iff P(A | B) = P(A); X2 and X5 are dependent, and
    # X5 given X4 does not depend on X1: P(X5 | X1, X4) = P(X5 | X4)
    pa = bn.marginal(table, "X2")
    pab = bn.conditional(table, "X2", "X5")
    assert not np.allclose((pab - pa).values, 0.0)
    given_x4 = bn.conditional(table, "X5", "X4")
    given_both = bn.conditional(table, "X5", ["X1", "X4"])
    np.testing.assert_allclose((given_both - given_x4).values, 0.0, atol=1e-12)


def test_markovian_parents_of_the_sprinkler(sprinkler_joint):
    _, table = sprinkler_joint
    parents = bn.markovian_parents(table, NODES)
    assert parents == {
        "X1": set(),
        "X2": {"X1"},
        "X3": {"X1"},
        "X4": {"X2", "X3"},
        "X5": {"X4"},
    }


def test_the_collider_gpa_admission_personality():
    nx = pytest.importorskip("networkx")
    graph = nx.DiGraph([("GPA", "Admission"), ("Personality", "Admission")])
    table = bn.joint_table(graph, bn.random_cpts(graph, 2, random_state=3))
    assert bn.d_separated(graph, "GPA", "Personality")
    assert bn.is_independent(table, "GPA", "Personality")
    assert not bn.is_independent(table, "GPA", "Personality", "Admission")


def test_smoking_and_lung_cancer_share_a_cause():
    """Seed 004: Gene -> Smoking and Gene -> Cancer. Smoking and cancer are dependent,
    P(S, C) = 0.7 * 0.2 * 0.1 + 0.3 * 0.7 * 0.5 = 0.119 against P(S) P(C) = 0.35 *
    0.22 = 0.077, and independent given the gene. Without the gene, S -> C and C -> S
    cannot be told apart (equivalent); the fork is equivalent to the chain through
    the gene but not to the collider S -> Gene <- C."""
    nx = pytest.importorskip("networkx")
    import xarray as xr

    graph = nx.DiGraph([("Gene", "Smoking"), ("Gene", "Cancer")])
    binary = [0, 1]
    cpts = {
        "Gene": xr.DataArray([0.7, 0.3], dims="Gene", coords={"Gene": binary}),
        "Smoking": xr.DataArray(
            [[0.8, 0.2], [0.3, 0.7]],
            dims=("Gene", "Smoking"),
            coords={"Gene": binary, "Smoking": binary},
        ),
        "Cancer": xr.DataArray(
            [[0.9, 0.1], [0.5, 0.5]],
            dims=("Gene", "Cancer"),
            coords={"Gene": binary, "Cancer": binary},
        ),
    }
    table = bn.joint_table(graph, cpts)
    both = bn.marginal(table, ["Smoking", "Cancer"]).sel(Smoking=1, Cancer=1).item()
    assert both == pytest.approx(0.119, rel=1e-14)
    assert bn.marginal(table, "Smoking").sel(Smoking=1).item() == pytest.approx(0.35, rel=1e-14)
    assert bn.marginal(table, "Cancer").sel(Cancer=1).item() == pytest.approx(0.22, rel=1e-14)
    assert not bn.is_independent(table, "Smoking", "Cancer")
    assert bn.is_independent(table, "Smoking", "Cancer", "Gene")
    assert bn.d_separated(graph, "Smoking", "Cancer", "Gene")
    assert not bn.d_separated(graph, "Smoking", "Cancer")
    assert bn.equivalent(nx.DiGraph([("S", "C")]), nx.DiGraph([("C", "S")]))
    chain = nx.DiGraph([("Smoking", "Gene"), ("Gene", "Cancer")])
    collider = nx.DiGraph([("Smoking", "Gene"), ("Cancer", "Gene")])
    assert bn.equivalent(graph, chain)
    assert not bn.equivalent(graph, collider)


def _cpdag_edges(graph):
    directed = {(a, b) for a, b in graph.edges if not graph.has_edge(b, a)}
    undirected = {frozenset((a, b)) for a, b in graph.edges if graph.has_edge(b, a)}
    return directed, undirected


def test_ic_with_an_oracle_recovers_the_sprinklers_pattern():
    """The seed's walk-through: X1 − X2 and X1 − X3 stay undirected, X2 → X4 ← X3 (X1
    screens X2 from X3, X4 does not), then X4 → X5 (else a new v-structure)."""
    dag = bn.sprinkler()
    pattern = bn.ic(NODES, lambda x, y, s: bn.d_separated(dag, x, y, s))
    directed, undirected = _cpdag_edges(pattern)
    assert directed == {("X2", "X4"), ("X3", "X4"), ("X4", "X5")}
    assert undirected == {frozenset(("X1", "X2")), frozenset(("X1", "X3"))}
    assert pattern.graph["sepsets"][frozenset(("X2", "X3"))] == {"X1"}


@functools.cache
def _sprinkler_rows(n: int):
    """``n`` rows drawn from the sprinkler with strong effects."""
    import xarray as xr

    dag = bn.sprinkler()
    tables = {  # P(v = 1 | parents), every effect strong
        "X1": np.array(0.5),
        "X2": np.array([0.1, 0.7]),
        "X3": np.array([0.8, 0.2]),
        "X4": np.array([[0.05, 0.8], [0.8, 0.95]]),
        "X5": np.array([0.1, 0.8]),
    }
    cpts = {}
    for node, p1 in tables.items():
        dims = [*dag.predecessors(node), node]
        cpts[node] = xr.DataArray(np.stack([1 - p1, p1], axis=-1), dims=dims)
    return bn.BayesNet.from_cpts(dag, cpts).sample(n, random_state=2).astype(int)


@pytest.fixture(scope="module")
def sprinkler_sample():
    return _sprinkler_rows(20_000)


SPRINKLER_DIRECTED = {("X2", "X4"), ("X3", "X4"), ("X4", "X5")}
SPRINKLER_UNDIRECTED = {frozenset(("X1", "X2")), frozenset(("X1", "X3"))}


def test_ic_with_data_recovers_it_too(sprinkler_sample):
    """Independence by the G² test at 0.001: the same pattern."""
    pattern = bn.ic(
        NODES, lambda x, y, s: bn.g2_test(sprinkler_sample, x, y, s, alpha=0.001)["independent"]
    )
    assert _cpdag_edges(pattern) == (SPRINKLER_DIRECTED, SPRINKLER_UNDIRECTED)


def test_ic_with_bayes_factors_recovers_it_too():
    """Independence where the Bayes factor favours it: the same pattern from 50 000
    rows. (At 20 000 the weak dependence of X1 and X4 given X5 is not yet decisive:
    log BF = -1.8, and G² gives p = 0.0005.)"""
    rows = _sprinkler_rows(50_000)
    pattern = bn.ic(NODES, lambda x, y, s: bn.bayes_factor_test(rows, x, y, s)["independent"])
    assert _cpdag_edges(pattern) == (SPRINKLER_DIRECTED, SPRINKLER_UNDIRECTED)


def test_ic_agrees_with_pgmpys_pc(sprinkler_sample):
    """pgmpy's PC (stable, G² at 0.001) on the same rows: the same skeleton and the
    same v-structures as IC."""
    pc_module = pytest.importorskip("pgmpy.causal_discovery")
    import networkx as nx

    pattern = bn.ic(
        NODES, lambda x, y, s: bn.g2_test(sprinkler_sample, x, y, s, alpha=0.001)["independent"]
    )
    pc = pc_module.PC(
        variant="stable", ci_test="g_sq", significance_level=0.001, show_progress=False, n_jobs=1
    ).fit(sprinkler_sample)
    # pgmpy's PDAG, like IC's pattern, holds an undirected edge as arcs both ways
    theirs = nx.DiGraph(list(pc.causal_graph_.edges))

    def skeleton(graph):
        return {frozenset(e) for e in graph.edges}

    assert (
        skeleton(theirs)
        == skeleton(pattern)
        == SPRINKLER_UNDIRECTED | {frozenset(e) for e in SPRINKLER_DIRECTED}
    )
    assert bn.v_structures(theirs) == bn.v_structures(pattern) == {("X2", "X4", "X3")}


def test_the_bayes_factor_is_the_evidence_of_two_polya_urns():
    """log BF against the sequential predictive (Pólya urn) product of each model,
    computed draw by draw: P(dep) = prod (n_xy + a)/(t + ess), P(indep) = prod
    (n_x + a_x)/(t + ess) (n_y + a_y)/(t + ess)."""
    import pandas as pd

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {"x": rng.integers(0, 3, 40), "y": rng.integers(0, 2, 40), "z": rng.integers(0, 2, 40)}
    )
    ess = 2.0
    log_bf = 0.0
    for _, part in frame.groupby("z"):
        pair, xs, ys, t = {}, {}, {}, 0
        for x, y in zip(part["x"], part["y"], strict=True):
            log_bf += np.log((pair.get((x, y), 0) + ess / 6) / (t + ess))
            log_bf -= np.log((xs.get(x, 0) + ess / 3) / (t + ess))
            log_bf -= np.log((ys.get(y, 0) + ess / 2) / (t + ess))
            pair[x, y] = pair.get((x, y), 0) + 1
            xs[x], ys[y], t = xs.get(x, 0) + 1, ys.get(y, 0) + 1, t + 1
    got = bn.bayes_factor_test(frame, "x", "y", "z", ess=ess)
    assert got["log_bf"] == pytest.approx(log_bf, abs=1e-10)
    assert got["independent"] == (log_bf <= 0)


def test_the_independence_tests_reject_bad_input(sprinkler_sample):
    with pytest.raises(bnb.InputError, match="no column"):
        bn.g2_test(sprinkler_sample, "X1", "nope")
    with pytest.raises(bnb.InputError, match="ess must be"):
        bn.bayes_factor_test(sprinkler_sample, "X1", "X2", ess=0.0)


def test_g2_against_scipy_and_the_mutual_information():
    from scipy.stats import chi2_contingency

    rng = np.random.default_rng(4)
    import pandas as pd

    a = rng.integers(0, 3, 500)
    b = (a + rng.integers(0, 2, 500)) % 3
    frame = pd.DataFrame({"a": a, "b": b})
    out = bn.g2_test(frame, "a", "b")
    table = pd.crosstab(frame["a"], frame["b"]).to_numpy()
    g, p, dof, _ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
    assert out["g2"] == pytest.approx(g, rel=1e-12)
    assert out["df"] == dof and out["p_value"] == pytest.approx(p, rel=1e-9)
    joint = table / table.sum()
    seen = joint > 0
    ratio = joint[seen] / np.outer(joint.sum(1), joint.sum(0))[seen]
    mi = float(np.sum(joint[seen] * np.log(ratio)))
    assert out["cmi"] == pytest.approx(mi, rel=1e-12)


@pytest.mark.parametrize("estimate", ["ml", "map", "mean"])
def test_naive_bayes_is_the_special_case(estimate):
    """The class as every feature's only parent: the net's P(class | features) is
    NaiveBayes's predict_proba under the same estimate and Dirichlet(2) priors."""
    nx = pytest.importorskip("networkx")
    tennis = bnb.datasets.play_tennis()
    features = [c for c in tennis.columns if c != "play"]
    net = bn.BayesNet(nx.DiGraph([("play", f) for f in features]), prior=bnb.Dirichlet(2.0))
    model = bnb.NaiveBayes(
        {f: bnb.Categorical(bnb.Dirichlet(2.0)) for f in features},
        class_prior=bnb.Dirichlet(2.0),
    )
    with warnings.catch_warnings():  # ML's zero counts warn on both sides
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        net.fit(tennis, estimate=estimate)
        fit = model.fit(tennis, target="play", estimate=estimate)
    rows = tennis[features]
    expected = fit.predict_proba(rows)
    for i in range(len(rows)):
        post = net.query("play", rows.iloc[i].to_dict())
        np.testing.assert_allclose(post.sel(play=fit.labels).values, expected[i], rtol=1e-12)


def test_observational_equivalence_as_the_seed_says():
    """Reversing X1 → X2 keeps the adjacencies and the v-structures (equivalent);
    reversing X2 → X4 or X4 → X5 changes the v-structures (not equivalent)."""
    dag = bn.sprinkler()
    assert bn.v_structures(dag) == {("X2", "X4", "X3")}
    for edge, same in ((("X1", "X2"), True), (("X2", "X4"), False), (("X4", "X5"), False)):
        other = dag.copy()
        other.remove_edge(*edge)
        other.add_edge(*edge[::-1])
        assert bn.equivalent(dag, other) == same


# -- relaxing the naive assumption ---------------------------------------------------------


def _dependent_pair(n: int, seed: int):
    """A class, two features that copy each other (given the class) and two that do
    not: naive Bayes double-counts the pair."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.7, c, rng.integers(0, 2, n))
    b = np.where(rng.random(n) < 0.9, a, 1 - a)  # b follows a
    d = np.where(rng.random(n) < 0.6, c, 1 - c)
    e = rng.integers(0, 3, n)
    return pd.DataFrame({"c": c, "a": a, "b": b, "d": d, "e": e}).astype(str)


def test_the_diagnostic_ranks_the_dependent_pair_first():
    table = bn.naive_assumption_diagnostic(_dependent_pair(4000, 0), "c")
    assert {table.loc[0, "a"], table.loc[0, "b"]} == {"a", "b"}
    assert table.loc[0, "p_value"] < 1e-10 and table["p_value"].iloc[1:].min() > 1e-4


def test_tan_beats_naive_bayes_on_a_dependent_pair():
    train, test = _dependent_pair(3000, 1), _dependent_pair(3000, 2)
    truth = test["c"].to_numpy()

    def log_loss(proba, labels):
        picked = proba[np.arange(len(truth)), [labels.index(t) for t in truth]]
        return -np.mean(np.log(picked))

    tan = bn.TreeAugmentedNB().fit(train, "c")
    nb = bnb.NaiveBayes().fit(train, target="c")
    X = test.drop(columns="c")
    assert ("a", "b") in tan.net.graph.edges or ("b", "a") in tan.net.graph.edges
    assert log_loss(tan.predict_proba(X), tan.labels) < log_loss(nb.predict_proba(X), nb.labels)


def test_tan_without_its_tree_is_naive_bayes():
    """Data from a naive Bayes, the tree edges forced out: TAN's probabilities are
    NaiveBayes's (the same posterior-mean tables), to 1e-12."""
    frame = _dependent_pair(800, 3).drop(columns="b")
    tan = bn.TreeAugmentedNB(tree=False).fit(frame, "c")
    nb = bnb.NaiveBayes().fit(frame, target="c")
    X = frame.drop(columns="c")
    np.testing.assert_allclose(tan.predict_proba(X), nb.predict_proba(X), rtol=1e-12)
    assert set(tan.net.graph.edges) == {("c", f) for f in ("a", "d", "e")}


def test_tan_sums_a_missing_feature_out_exactly():
    """Rows with missing features: TAN's message passing equals P(c | the observed
    features) by enumerating the net's joint table, to 1e-12; with the tree out it
    equals NaiveBayes, which marginalizes a missing feature too."""
    import pandas as pd

    train = _dependent_pair(600, 4)
    test = _dependent_pair(40, 5).drop(columns="c").astype(object)
    rng = np.random.default_rng(6)
    test = test.mask(rng.random(test.shape) < 0.35)  # about a third of the cells missing
    test.iloc[0] = np.nan  # a row with nothing observed: the class prior
    tan = bn.TreeAugmentedNB().fit(train, "c")
    got = tan.predict_proba(test)
    for i, row in test.iterrows():
        evidence = {k: v for k, v in row.items() if pd.notna(v)}
        want = tan.net.query("c", evidence).values
        np.testing.assert_allclose(got[i], want, rtol=1e-12)
    naive = bn.TreeAugmentedNB(tree=False).fit(train, "c")
    nb = bnb.NaiveBayes().fit(train, target="c")
    np.testing.assert_allclose(naive.predict_proba(test), nb.predict_proba(test), rtol=1e-12)


def test_tan_names_an_unseen_value():
    tan = bn.TreeAugmentedNB().fit(_dependent_pair(200, 7), "c")
    X = _dependent_pair(5, 8).drop(columns="c")
    X.loc[2, "e"] = "9"
    with pytest.raises(bnb.InputError, match=r"feature 'e' has the value '9'"):
        tan.predict_proba(X)
    with pytest.raises(bnb.InputError, match="not fitted yet"):
        bn.TreeAugmentedNB().predict_proba(X)


def test_tan_against_naive_bayes_on_house_votes():
    """5-fold cross-validated log loss on house votes 84 (missing votes summed out):
    TAN is better in every fold, and the naive column is NaiveBayes's own loss."""
    votes = bnb.datasets.house_votes_84()
    losses = bn.compare_tan(votes, "party")
    assert (losses["tan"] < losses["naive"]).all()
    order = np.random.default_rng(0).permutation(len(votes))
    held = np.array_split(order, 5)[0]
    train, test = votes.drop(index=votes.index[held]), votes.iloc[held]
    proba = bnb.NaiveBayes().fit(train, target="party").predict_proba(test.drop(columns="party"))
    labels = ["democrat", "republican"]
    truth = [labels.index(v) for v in test["party"]]
    loss = -np.mean(np.log(proba[np.arange(len(test)), truth]))
    assert losses.loc[0, "naive"] == pytest.approx(loss, rel=1e-12)


def test_ic_keeps_an_edge_two_v_structures_orient_opposite_ways():
    """Independences no DAG has: A ⊥ C and B ⊥ D, each marginally, over the 4-cycle
    A–B–C–D–A. Every node is then the collider of a v-structure, and every edge is
    asked for both ways. The skeleton stays whole (it used to lose all four edges),
    each edge undirected and listed as a conflict, whatever the variables' order."""
    import itertools

    def indep(x, y, given):
        return {x, y} in ({"A", "C"}, {"B", "D"}) and not given

    cycle = {frozenset(e) for e in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")]}
    for order in itertools.permutations("ABCD"):
        graph = bn.ic(list(order), indep)
        assert {frozenset(e) for e in graph.edges} == cycle
        assert all(graph.has_edge(b, a) for a, b in graph.edges)  # all undirected
        assert graph.graph["conflicts"] == cycle


def test_ic_leaves_conflicting_edges_to_no_orientation_rule():
    """The separating sets G² finds on 5000 sprinkler rows (X1 and X4 screened off by
    X5 alone, a weak dependence passed as independence): the v-structures ask for
    X2–X4 and X3–X4 both ways. Those two edges stay undirected (the orientation rules
    skip them), and every one of the 120 variable orders gives the same pattern."""
    import itertools

    seps = {
        ("X1", "X4"): {"X5"},
        ("X1", "X5"): set(),
        ("X2", "X3"): {"X1"},
        ("X2", "X5"): {"X4"},
        ("X3", "X5"): {"X4"},
    }

    def indep(x, y, given):
        return set(given) == seps.get(tuple(sorted((x, y))))

    patterns = set()
    for order in itertools.permutations(["X1", "X2", "X3", "X4", "X5"]):
        graph = bn.ic(list(order), indep)
        directed = frozenset(e for e in graph.edges if not graph.has_edge(*e[::-1]))
        patterns.add((frozenset(graph.graph["conflicts"]), directed))
    assert patterns == {
        (
            frozenset({frozenset({"X2", "X4"}), frozenset({"X3", "X4"})}),
            frozenset({("X1", "X2"), ("X1", "X3")}),
        )
    }


# -- a net from given tables ------------------------------------------------------------------
#: The sprinkler's tables, P(v = 1 | parents), as a textbook would state them.
_GIVEN = {
    "X1": 0.4,
    "X2": [0.3, 0.6],
    "X3": [0.2, 0.7],
    "X4": [[0.01, 0.9], [0.8, 0.99]],
    "X5": [0.05, 0.7],
}


def _binary(p1):
    p1 = np.asarray(p1, dtype=float)
    return np.stack([1 - p1, p1], axis=-1)


def _enumerated(evidence: dict, target: str) -> np.ndarray:
    """P(target | evidence) by summing the product of the given numbers over every
    configuration (no package code)."""
    dag = bn.sprinkler()
    post = np.zeros(2)
    for values in itertools.product([0, 1], repeat=5):
        row = dict(zip(NODES, values, strict=True))
        if any(row[k] != v for k, v in evidence.items()):
            continue
        p = 1.0
        for node in NODES:
            p1 = np.asarray(_GIVEN[node])[tuple(row[q] for q in dag.predecessors(node))]
            p *= p1 if row[node] == 1 else 1 - p1
        post[row[target]] += p
    return post / post.sum()


def test_a_net_from_given_tables_answers_by_enumeration():
    dag = bn.sprinkler()
    net = bn.BayesNet.from_cpts(dag, {v: _binary(p) for v, p in _GIVEN.items()})
    for target, evidence in (("X1", {"X5": 1}), ("X3", {"X2": 1, "X4": 1}), ("X4", {})):
        np.testing.assert_allclose(
            net.query(target, evidence).values, _enumerated(evidence, target), rtol=1e-12
        )
    # P(X1 = 1, X2 = 0, X3 = 1, X4 = 1, X5 = 0) = 0.4 * 0.4 * 0.7 * 0.9 * 0.3
    rows = pd.DataFrame([{"X1": 1, "X2": 0, "X3": 1, "X4": 1, "X5": 0}])
    np.testing.assert_allclose(net.log_prob(rows), [np.log(0.4 * 0.4 * 0.7 * 0.9 * 0.3)])
    # drawn rows follow the tables: P(X4 = 1) within 4 standard errors
    p4 = _enumerated({}, "X4")[1]
    draws = net.sample(20_000, random_state=3)
    assert abs(draws["X4"].mean() - p4) < 4 * np.sqrt(p4 * (1 - p4) / 20_000)


def test_given_tables_with_labels_in_any_dim_order():
    import networkx as nx
    import xarray as xr

    dag = nx.DiGraph([("season", "rain"), ("rain", "wet")])
    season = xr.DataArray([0.7, 0.3], dims="season", coords={"season": ["dry", "wet"]})
    rain = xr.DataArray(  # dims (rain, season): transposed to (season, rain)
        [[0.9, 0.4], [0.1, 0.6]],
        dims=("rain", "season"),
        coords={"rain": ["no", "yes"], "season": ["dry", "wet"]},
    )
    wet = [[0.8, 0.2], [0.05, 0.95]]  # axes (rain, wet); labels from `values`
    net = bn.BayesNet.from_cpts(
        dag, {"season": season, "rain": rain, "wet": wet}, values={"wet": ["n", "y"]}
    )
    assert net.values == {"season": ["dry", "wet"], "rain": ["no", "yes"], "wet": ["n", "y"]}
    # P(season = wet | wet = y) = 0.3 (0.6 0.95 + 0.4 0.2) / P(wet = y)
    num = 0.3 * (0.6 * 0.95 + 0.4 * 0.2)
    den = num + 0.7 * (0.1 * 0.95 + 0.9 * 0.2)
    got = net.query("season", {"wet": "y"}).sel(season="wet").item()
    assert got == pytest.approx(num / den, rel=1e-12)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c.pop("X5"), "lacks \\['X5'\\]"),
        (lambda c: c.update(X9=[0.5, 0.5]), "has \\['X9'\\]"),
        (lambda c: c.update(X2=[[0.7, 0.3], [0.5, 0.6]]), "sums to 1.1 over 'X2' where"),
        (lambda c: c.update(X1=[0.7, 0.4]), "sums to 1.1 over 'X1'; P"),  # no parent
        (lambda c: c.update(X1=[0.2, 0.3, 0.5]), "but 'X1' has 3"),
        (lambda c: c.update(X2=[0.7, 0.3]), "has 1 axes"),
        (lambda c: c.update(X1=[1.5, -0.5]), "not a probability"),
    ],
)
def test_given_tables_that_do_not_fit_are_clear_errors(change, message):
    cpts = {v: _binary(p) for v, p in _GIVEN.items()}
    change(cpts)
    with pytest.raises(bnb.errors.InputError, match=message):
        bn.BayesNet.from_cpts(bn.sprinkler(), cpts)


def test_a_parentless_table_that_does_not_sum_to_one_is_refused():
    import networkx as nx

    with pytest.raises(bnb.InputError, match=r"table of 'r' sums to 1\.1 over 'r'; .*Normalize"):
        bn.BayesNet.from_cpts(
            nx.DiGraph([("r", "w")]), {"r": [0.8, 0.3], "w": [[0.9, 0.1], [0.1, 0.9]]}
        )


_COUNTED = pd.DataFrame({"a": [0, 0, 0, 1, 2, 2, 2, 2], "b": [0, 1, 1, 0, 1, 1, 1, 1]})


def test_fit_counts_the_listed_values_and_skips_missing_ones():
    """values lists a (in its own order) with 3, which no row has. Counts of a: 0 -> 3,
    1 -> 2, 2 -> 4, 3 -> 0, so Dirichlet(1)'s mean is (count + 1) / 13. The row with b
    missing counts for a but not for b given a (available cases): b given a = 1 is
    (1 + 1, 0 + 1) / 3; b given a = 3 has no rows, (1, 1) / 2."""
    import networkx as nx

    data = pd.concat([_COUNTED, pd.DataFrame({"a": [1], "b": [np.nan]})], ignore_index=True)
    net = bn.BayesNet(nx.DiGraph([("a", "b")])).fit(data, values={"a": [3, 2, 1, 0]})
    assert net.values["a"] == [3, 2, 1, 0]
    np.testing.assert_allclose(net.cpts["a"].values, np.array([1, 5, 3, 4]) / 13, rtol=1e-12)
    b_given_a = net.cpts["b"].transpose("a", "b").sel(a=[0, 1, 2, 3]).values
    expected = [[2 / 5, 3 / 5], [2 / 3, 1 / 3], [1 / 6, 5 / 6], [1 / 2, 1 / 2]]
    np.testing.assert_allclose(b_given_a, expected, rtol=1e-12)
    # ML: b is never 1 given a = 1, nor 0 given a = 2
    with pytest.warns(bnb.ZeroProbabilityWarning, match="node 'b' probability 0 for 2 "):
        ml = bn.BayesNet(nx.DiGraph([("a", "b")])).fit(
            _COUNTED, estimate="ml", values={"a": [0, 1, 2]}
        )
    np.testing.assert_allclose(ml.cpts["a"].values, [3 / 8, 1 / 8, 4 / 8], rtol=1e-12)


def test_fit_names_values_it_was_not_told_of():
    import networkx as nx

    net = bn.BayesNet(nx.DiGraph([("a", "b")]))
    with pytest.raises(
        bnb.InputError,
        match=r"column 'a' of data has the value 2, which is not among its values \[0, 1\]\. "
        r"List every value the column takes in values=",
    ):
        net.fit(_COUNTED, estimate="ml", values={"a": [0, 1]})
    with pytest.raises(
        bnb.InputError, match=r"column 'y' of data has the values \[1, 2\], which are not"
    ):
        bn.TreeAugmentedNB().fit(_COUNTED.rename(columns={"a": "y"}), "y", values={"y": [0]})
    with pytest.raises(bnb.InputError, match=r"values names \['c'\], which the net does not"):
        net.fit(_COUNTED, values={"c": [0, 1]})
    with pytest.raises(bnb.InputError, match=r"values\['a'\] lists \[0\] more than once"):
        net.fit(_COUNTED, values={"a": [0, 1, 2, 0]})
    with pytest.raises(bnb.InputTypeError, match=r"values\['a'\] must be a list"):
        net.fit(_COUNTED, values={"a": 0})


def _wet_grass(p_rain=(0.8, 0.2), wet=((1.0, 0.0), (0.1, 0.9))):
    import networkx as nx

    return bn.BayesNet.from_cpts(
        nx.DiGraph([("rain", "wet")]),
        {"rain": list(p_rain), "wet": [list(row) for row in wet]},
        values={"rain": ["no", "yes"], "wet": ["no", "yes"]},
    )


def test_query_of_impossible_evidence_is_a_named_error():
    net = _wet_grass(p_rain=(1.0, 0.0))  # it never rains, and only rain wets the grass
    with pytest.raises(
        bnb.ZeroLikelihoodError, match=r"evidence \{'wet': 'yes'\} has probability 0"
    ):
        net.query("rain", evidence={"wet": "yes"})
    with pytest.raises(ValueError, match="probability 0 under the net"):
        net.query("wet", evidence={"rain": "yes"})
    # P(rain | wet = no) = (1, 0): the possible evidence still answers
    np.testing.assert_array_equal(net.query("rain", {"wet": "no"}).values, [1.0, 0.0])


def test_query_of_an_observed_target_is_its_point_mass():
    net = _wet_grass()
    np.testing.assert_array_equal(net.query("rain", {"rain": "yes"}).values, [0.0, 1.0])
    got = net.query("rain", {"rain": "no", "wet": "no"})
    assert got.dims == ("rain",)
    np.testing.assert_array_equal(got.values, [1.0, 0.0])
    with pytest.raises(bnb.ZeroLikelihoodError, match="probability 0"):
        net.query("rain", {"rain": "no", "wet": "yes"})  # no rain never wets the grass


def test_query_log_prob_and_sample_name_bad_input():
    net = _wet_grass()
    # log P(rain = yes, wet = no) = log(0.2 * 0.1), by the labels
    rows = pd.DataFrame({"wet": ["no", "yes"], "rain": ["yes", "yes"]})
    np.testing.assert_allclose(net.log_prob(rows), np.log([0.2 * 0.1, 0.2 * 0.9]), rtol=1e-12)
    with pytest.raises(
        bnb.InputError, match=r"evidence\['wet'\] has the value 'damp', which is not among"
    ):
        net.query("rain", evidence={"wet": "damp"})
    with pytest.raises(bnb.InputError, match=r"evidence names \['snow'\], which the net"):
        net.query("rain", evidence={"snow": "yes"})
    with pytest.raises(bnb.InputError, match=r"target names \['snow'\], which the net"):
        net.query("snow")
    with pytest.raises(bnb.InputError, match=r"evidence\['wet'\] must be one value"):
        net.query("rain", evidence={"wet": ["no", "yes"]})
    with pytest.raises(bnb.InputError, match=r"evidence\['wet'\] has a missing value"):
        net.query("rain", evidence={"wet": np.nan})
    with pytest.raises(bnb.InputError, match=r"column 'wet' of rows has the value 'damp'"):
        net.log_prob(rows.assign(wet=["no", "damp"]))
    with pytest.raises(bnb.InputError, match=r"column 'rain' of rows has a missing value \(NaN\)"):
        net.log_prob(rows.assign(rain=["yes", None]))
    with pytest.raises(bnb.InputError, match=r"rows lacks the node column\(s\) \['wet'\]"):
        net.log_prob(rows[["rain"]])
    with pytest.raises(bnb.InputError, match=r"n must be 0 or more.*got -1"):
        net.sample(-1)
    with pytest.raises(bnb.InputTypeError, match=r"n must be a whole number.*got 2\.5"):
        net.sample(2.5)
    assert net.sample(0).shape == (0, 2)
    with pytest.raises(bnb.InputError, match="no tables yet: call fit"):
        bn.BayesNet(bn.sprinkler()).query("X1")


@pytest.mark.parametrize("test", [bn.g2_test, bn.bayes_factor_test])
@pytest.mark.parametrize(
    ("x", "y", "given"), [("X1", "X1", ()), ("X1", "X2", ["X1"]), ("X1", "X2", ["X3", "X3"])]
)
def test_the_independence_tests_need_distinct_variables(sprinkler_sample, test, x, y, given):
    with pytest.raises(bnb.InputError, match="x, y and given must be distinct variables"):
        test(sprinkler_sample, x, y, given)


def test_the_independence_tests_name_an_absent_condition(sprinkler_sample):
    for test in (bn.g2_test, bn.bayes_factor_test):
        with pytest.raises(bnb.InputError, match=r"no column\(s\) \['Q'\]"):
            test(sprinkler_sample, "X1", "X2", ["Q"])
