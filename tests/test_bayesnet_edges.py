"""Edges of the Bayes nets in bayesnb.bayesnet: exact queries by variable elimination on
nets whose joint table cannot be built, given tables near 1, integer node names, tables
ML cannot estimate, values learned as the Categorical family learns them, and the
argument checks of ic and g2_test. Every expected value comes from the test's own
arithmetic (enumeration, matrix products, counts), or from pgmpy."""

import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnb as bnb
from bayesnb import bayesnet as bn


# -- query by variable elimination ----------------------------------------------------------
def _random_tables(graph, cards: dict, seed: int) -> dict:
    """P(node | parents) as plain arrays, axes (*parents, node), every row from a
    Dirichlet(0.5) (so some entries are small)."""
    rng = np.random.default_rng(seed)
    out = {}
    for node in graph:
        parents = list(graph.predecessors(node))
        shape = (*[cards[p] for p in parents], cards[node])
        out[node] = rng.dirichlet(np.full(cards[node], 0.5), size=shape[:-1] or None)
        out[node] = np.asarray(out[node]).reshape(shape)
    return out


def _enumerate(graph, cards: dict, tables: dict, target, evidence: dict) -> np.ndarray:
    """P(target | evidence) by summing the product of the tables over every
    configuration of every node (no package code)."""
    nodes = list(graph)
    post = np.zeros(cards[target])
    for config in itertools.product(*(range(cards[v]) for v in nodes)):
        row = dict(zip(nodes, config, strict=True))
        if any(row[v] != c for v, c in evidence.items()):
            continue
        p = 1.0
        for v in nodes:
            p *= tables[v][tuple(row[q] for q in graph.predecessors(v))][row[v]]
        post[row[target]] += p
    return post / post.sum()


# A net with a v-structure, a loop (a -> b -> d, a -> c -> d), nodes of 2-4 values and
# barren nodes below the evidence (e, f).
_LOOPY = nx.DiGraph(
    [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e"), ("g", "c"), ("e", "f")]
)
_LOOPY_CARDS = {"a": 3, "b": 2, "c": 4, "d": 2, "e": 3, "f": 2, "g": 2}


@pytest.mark.parametrize(
    ("target", "evidence"),
    [
        ("a", {}),
        ("a", {"d": 1}),
        ("g", {"d": 0, "b": 1}),  # explaining away through c
        ("c", {"e": 2}),
        ("f", {"a": 2, "g": 0}),
        ("d", {"f": 1, "a": 0}),
        ("b", {"c": 3, "e": 0, "f": 1}),
    ],
)
def test_query_equals_brute_force_enumeration(target, evidence):
    tables = _random_tables(_LOOPY, _LOOPY_CARDS, seed=7)
    net = bn.BayesNet.from_cpts(_LOOPY, tables)
    got = net.query(target, evidence)
    assert got.dims == (target,)
    assert list(got[target].values) == list(range(_LOOPY_CARDS[target]))
    expected = _enumerate(_LOOPY, _LOOPY_CARDS, tables, target, evidence)
    np.testing.assert_allclose(got.values, expected, rtol=1e-12, atol=1e-15)


def test_query_agrees_with_pgmpys_variable_elimination():
    """pgmpy's VariableElimination on the same tables, for every node given every
    single observation and given pairs of them."""
    pytest.importorskip("pgmpy")
    with warnings.catch_warnings():  # pgmpy's import warns of its own deprecations
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.inference import VariableElimination
        from pgmpy.models import DiscreteBayesianNetwork

    tables = _random_tables(_LOOPY, _LOOPY_CARDS, seed=11)
    model = DiscreteBayesianNetwork(list(_LOOPY.edges))
    for node, table in tables.items():
        parents = list(_LOOPY.predecessors(node))
        model.add_cpds(
            TabularCPD(
                node,
                _LOOPY_CARDS[node],
                np.moveaxis(table, -1, 0).reshape(_LOOPY_CARDS[node], -1),
                evidence=parents or None,
                evidence_card=[_LOOPY_CARDS[p] for p in parents] or None,
            )
        )
    reference = VariableElimination(model)
    net = bn.BayesNet.from_cpts(_LOOPY, tables)
    nodes = sorted(_LOOPY)
    cases = [({}, None)] + [({v: 1}, None) for v in nodes]
    cases += [({v: 1, w: 0}, None) for v, w in itertools.combinations(nodes, 2)]
    for evidence, _ in cases:
        for target in nodes:
            if target in evidence:
                continue
            theirs = reference.query([target], evidence=evidence, show_progress=False)
            np.testing.assert_allclose(
                net.query(target, evidence).values, theirs.values, rtol=1e-10, atol=1e-14
            )


def _chain(n: int, seed: int = 0):
    graph = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(n - 1)])
    return graph, bn.random_cpts(graph, random_state=seed)


@pytest.mark.parametrize("n", [28, 60])
def test_a_long_chain_is_answered_without_its_joint(n):
    """P(v0 | v_last = 1) on a binary chain, whose joint would hold 2**n entries:
    P(v0, v_last) = p(v0) (T1 T2 ... T_last)[v0, v_last] by forward matrix products."""
    graph, cpts = _chain(n)
    net = bn.BayesNet.from_cpts(graph, cpts)
    forward = np.eye(2)
    for i in range(1, n):
        forward = forward @ cpts[f"v{i}"].transpose(f"v{i - 1}", f"v{i}").values
    joint = cpts["v0"].values * forward[:, 1]
    np.testing.assert_allclose(
        net.query("v0", {f"v{n - 1}": 1}).values, joint / joint.sum(), rtol=1e-12
    )
    # and forwards: P(v_last | v0 = 0) is row 0 of the product
    np.testing.assert_allclose(
        net.query(f"v{n - 1}", {"v0": 0}).values, forward[0] / forward[0].sum(), rtol=1e-12
    )


def test_the_joint_of_a_long_chain_is_refused_before_it_is_built():
    graph, cpts = _chain(28)
    net = bn.BayesNet.from_cpts(graph, cpts)
    with pytest.raises(
        bnb.InputError,
        match=r"joint table over the 28 nodes would hold 268,435,456 entries .* more than "
        r"the 134,217,728 .*use BayesNet\.query",
    ):
        net.joint()
    with pytest.raises(bnb.InputError, match=r"would hold 1\.15e\+18 entries"):
        bn.joint_table(*_chain(60))


def test_evidence_of_tiny_probability_does_not_underflow():
    """A root r and 400 children, each 1 with probability 1e-3 given r = 0 and 2e-3
    given r = 1, all observed 1: P(evidence) is about 1e-1200, below the smallest
    float, yet P(r = 0 | evidence) = 1 / (1 + 2**400) exactly."""
    children = [f"c{i}" for i in range(400)]
    graph = nx.DiGraph([("r", c) for c in children])
    tables = {"r": [0.5, 0.5], **{c: [[1 - 1e-3, 1e-3], [1 - 2e-3, 2e-3]] for c in children}}
    net = bn.BayesNet.from_cpts(graph, tables)
    got = net.query("r", dict.fromkeys(children, 1)).values
    odds = (2e-3 / 1e-3) ** 400  # 2**400, a finite float
    np.testing.assert_allclose(got, [1 / (1 + odds), odds / (1 + odds)], rtol=1e-9)
    assert got[0] > 0.0


def test_a_query_too_dense_for_exact_inference_is_a_named_error():
    """Four roots of 110 values each, every pair of them the parents of an observed
    child: summing any hidden root out needs the table over all four, 110**4 =
    146,410,000 entries, over the 2**27 limit."""
    roots = ["a", "b", "c", "d"]
    pairs = list(itertools.combinations(roots, 2))
    graph = nx.DiGraph()
    for i, (p, q) in enumerate(pairs):
        graph.add_edges_from([(p, f"x{i}"), (q, f"x{i}")])
    cards = {**dict.fromkeys(roots, 110), **{f"x{i}": 2 for i in range(len(pairs))}}
    net = bn.BayesNet.from_cpts(graph, bn.random_cpts(graph, cards, random_state=0))
    evidence = {f"x{i}": 1 for i in range(len(pairs))}
    with pytest.raises(
        bnb.InputError,
        match=r"query\('a', evidence=\{'x0': 1, .*\}\) needs a table of 146,410,000 entries "
        r"to sum 'b' out .*more than the 134,217,728",
    ):
        net.query("a", evidence)
    # without the children's evidence they are barren: the answer is a's own table
    np.testing.assert_allclose(net.query("a").values, net.cpts["a"].values, rtol=1e-12)


# -- given tables near 1 ------------------------------------------------------------------------
def test_tables_within_1e6_of_one_are_accepted_and_normalized():
    """P(rain) given as (0.8, 0.2 - 1e-7): accepted, and divided by its sum, so that
    P(rain = yes | wet) is 0.9 q / (0.9 q + 0.1 (1 - q)) with q = (0.2 - 1e-7) / s."""
    s = 1.0 - 1e-7
    net = bn.BayesNet.from_cpts(
        nx.DiGraph([("rain", "wet")]),
        {"rain": [0.8, 0.2 - 1e-7], "wet": [[0.9, 0.1], [0.1 + 5e-7, 0.9]]},
    )
    q = (0.2 - 1e-7) / s
    np.testing.assert_allclose(net.cpts["rain"].values, [0.8 / s, q], rtol=1e-15)
    wet = 0.9 / (1.0 + 5e-7)
    np.testing.assert_allclose(
        net.query("rain", {"wet": 1}).values[1],
        wet * q / (wet * q + 0.1 * (1 - q)),
        rtol=1e-12,
    )


@pytest.mark.parametrize(
    ("rain", "message"),
    [
        ([0.8, 0.2 - 2e-6], r"sums to 0\.999998 over 'rain'; .* this sum is 1 - 2e-06\."),
        ([0.8, 0.2 + 3e-6], r"sums to 1\.000003 over 'rain'; .* this sum is 1 \+ 3e-06\."),
    ],
)
def test_tables_further_off_are_refused_with_their_deviation(rain, message):
    with pytest.raises(bnb.InputError, match=message):
        bn.BayesNet.from_cpts(
            nx.DiGraph([("rain", "wet")]), {"rain": rain, "wet": [[0.9, 0.1], [0.1, 0.9]]}
        )


# -- integer node names -----------------------------------------------------------------------
def test_integer_node_names_fit_query_score_and_sample():
    """Counts of the frame: node 0 is (1, 2); node 1 given 0 = 0 is (0, 1), given 0 = 1
    is (1, 1). Dirichlet(1)'s means: P(0) = (2, 3)/5, P(1 | 0=0) = (1, 2)/3,
    P(1 | 0=1) = (2, 2)/4."""
    data = pd.DataFrame({0: [0, 1, 1], 1: [1, 1, 0]})
    net = bn.BayesNet(nx.DiGraph([(0, 1)])).fit(data)
    assert net.order == ["0", "1"]
    np.testing.assert_allclose(net.cpts["0"].values, [2 / 5, 3 / 5], rtol=1e-12)
    np.testing.assert_allclose(
        net.cpts["1"].transpose("0", "1").values, [[1 / 3, 2 / 3], [1 / 2, 1 / 2]], rtol=1e-12
    )
    joint = np.array([2 / 5 * 2 / 3, 3 / 5 * 1 / 2])  # P(0 = v, 1 = 1)
    np.testing.assert_allclose(net.query(0, {1: 1}).values, joint / joint.sum(), rtol=1e-12)
    np.testing.assert_allclose(net.query("0", {"1": 1}).values, joint / joint.sum(), rtol=1e-12)
    np.testing.assert_allclose(net.log_prob(data.head(1)), [np.log(2 / 5 * 2 / 3)], rtol=1e-12)
    assert list(net.sample(5, random_state=0).columns) == ["0", "1"]
    with pytest.raises(bnb.InputError, match=r"evidence names the node '1' 2 times"):
        net.query(0, {1: 1, "1": 0})


def test_integer_node_names_in_given_tables_and_tan():
    net = bn.BayesNet.from_cpts(nx.DiGraph([(0, 1)]), {0: [0.8, 0.2], 1: [[0.9, 0.1], [0.1, 0.9]]})
    joint = np.array([0.8 * 0.1, 0.2 * 0.9])
    np.testing.assert_allclose(net.query(0, {1: 1}).values, joint / joint.sum(), rtol=1e-12)
    # TAN without its tree on integer columns is naive Bayes, by hand: class 0 has rows
    # with feature 1 = (0, 0, 1), class 1 with (1, 1); Dirichlet(1) means throughout
    data = pd.DataFrame({0: [0, 0, 0, 1, 1], 1: [0, 0, 1, 1, 1]})
    tan = bn.TreeAugmentedNB(tree=False).fit(data, 0)
    x = pd.DataFrame({1: [1]})
    scores = np.array([(3 + 1) / 7 * (1 + 1) / 5, (2 + 1) / 7 * (2 + 1) / 4])
    np.testing.assert_allclose(tan.predict_proba(x)[0], scores / scores.sum(), rtol=1e-12)


def test_nodes_whose_names_read_the_same_are_refused():
    with pytest.raises(bnb.InputError, match=r"graph has the nodes \[1, '1'\].*Rename one"):
        bn.BayesNet(nx.DiGraph([(1, "1")]))


# -- tables ML cannot estimate ------------------------------------------------------------------
_UNSEEN = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 1, 0, 0, 1], "c": [0, 1, 1, 0, 1]})


@pytest.mark.parametrize("estimate", ["ml", "map"])
def test_a_parent_configuration_without_rows_names_node_parents_and_remedies(estimate):
    """No row has a = 1 and b = 1, so c's row there is 0/0 under ML, and under the
    mode of Dirichlet(1)."""
    net = bn.BayesNet(nx.DiGraph([("a", "c"), ("b", "c")]))
    with (
        warnings.catch_warnings(),
        pytest.raises(
            bnb.InputError,
            match=rf"estimate='{estimate}' leaves undefined 1 of the 4 rows of the table of "
            r"node 'c': no row of data shows 'c' with its parents at \{'a': 1, 'b': 1\}.*"
            r"estimate='mean' \(the default.*estimate='map' and a Dirichlet prior whose "
            r"alpha > 1",
        ),
    ):
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        net.fit(_UNSEEN, estimate=estimate)
    # the remedies: the mean fills that row with (0 + 1) / (0 + 2); MAP under
    # Dirichlet(2) with (0 + 2 - 1) / (0 + 4 - 2)
    for fitted in (
        net.fit(_UNSEEN),
        bn.BayesNet(net.graph, bnb.Dirichlet(2.0)).fit(_UNSEEN, estimate="map"),
    ):
        np.testing.assert_allclose(fitted.cpts["c"].sel(a=1, b=1).values, [0.5, 0.5])


def test_tan_under_ml_names_the_class_and_tree_parent_it_never_saw():
    """y = 1 only with a = 0, so b's row at (y = 1, a = 1) has no data."""
    data = pd.DataFrame({"y": [0, 0, 0, 1, 1], "a": [0, 1, 1, 0, 0], "b": [0, 1, 1, 0, 1]})
    with (
        pytest.warns(bnb.ZeroProbabilityWarning),  # a = 1 given y = 1: probability 0
        pytest.raises(
            bnb.InputError,
            match=r"node 'b': no row of data shows 'b' with its parents at "
            r"\{'y': 1, 'a': 1\}",
        ),
    ):
        bn.TreeAugmentedNB().fit(data, "y", estimate="ml")


def test_no_rows_or_no_observed_value_is_a_named_error():
    net = bn.BayesNet(nx.DiGraph([("a", "c"), ("b", "c")]))
    with pytest.raises(bnb.InputError, match=r"data has no rows .*at least one row"):
        net.fit(_UNSEEN.iloc[:0])
    with pytest.raises(
        bnb.InputError,
        match=r"column 'b' of data has no observed value \(all 5 entries are missing\).*"
        r"values=\{'b': \[\.\.\.\]\}",
    ):
        net.fit(_UNSEEN.assign(b=np.nan))
    # with b's values listed, its table is the prior's mean, and c is counted on no row
    fitted = net.fit(_UNSEEN.assign(b=np.nan), values={"b": [0, 1]})
    np.testing.assert_allclose(fitted.cpts["b"].values, [0.5, 0.5])
    np.testing.assert_allclose(fitted.cpts["c"].values, np.full((2, 2, 2), 0.5))


# -- values learned as the Categorical family learns them -----------------------------------
def test_fit_learns_values_like_the_categorical_family():
    """A categorical column keeps its unused category (count 0: (0 + 1) / (3 + 3)),
    and whole numbers sort as numbers: 2, 9, 10."""
    data = pd.DataFrame(
        {"a": pd.Categorical(["x", "y", "x"], categories=["z", "x", "y"]), "c": [10, 2, 9]}
    )
    net = bn.BayesNet(nx.DiGraph([("a", "c")])).fit(data)
    assert net.values == {"a": ["z", "x", "y"], "c": [2, 9, 10]}
    np.testing.assert_allclose(net.cpts["a"].values, [1 / 6, 3 / 6, 2 / 6], rtol=1e-12)
    # c given a = x: rows c = 10 and 9, so (0 + 1, 1 + 1, 1 + 1) / 5 over (2, 9, 10)
    np.testing.assert_allclose(net.cpts["c"].sel(a="x").values, [1 / 5, 2 / 5, 2 / 5], rtol=1e-12)
    model = bnb.NaiveBayes({"c": bnb.Categorical()}).fit(data[["c"]], data["a"])
    assert model.blocks[0].column_categories == [net.values["c"]]
    with pytest.raises(bnb.InputError, match=r"column 'c' mixes values of the types"):
        bn.BayesNet(nx.DiGraph([("a", "c")])).fit(data.assign(c=["1", 2, 3]))


# -- argument checks --------------------------------------------------------------------------
def _never(x, y, given):
    return False


@pytest.mark.parametrize("max_given", [-1, 1.5, True, "2"])
def test_ic_refuses_a_max_given_that_is_not_a_count(max_given):
    with pytest.raises(
        bnb.InputError,
        match=rf"max_given must be a whole number 0 or more .*got {max_given!r}\. Pass e\.g\.",
    ):
        bn.ic(["a", "b", "c"], _never, max_given=max_given)


def test_ic_refuses_repeated_variables_and_a_non_function():
    with pytest.raises(
        bnb.InputError,
        match=r"variables must name each variable once; got \['a'\] more than once in "
        r"\['a', 'a', 'b'\]\. List every variable once",
    ):
        bn.ic(["a", "a", "b"], _never)
    with pytest.raises(bnb.InputTypeError, match=r"independent must be a function"):
        bn.ic(["a", "b"], True)
    # max_given=0 tries only the empty set: a and b stay joined, as no oracle says more
    assert set(bn.ic(["a", "b"], _never, max_given=0).edges) == {("a", "b"), ("b", "a")}


@pytest.mark.parametrize("alpha", [2, 0, 1.0, -0.5, float("nan"), True, "0.05"])
def test_g2_test_refuses_an_alpha_that_is_not_a_level(alpha):
    with pytest.raises(
        bnb.InputError,
        match=rf"alpha must be a significance level strictly between 0 and 1 .*got "
        rf"{alpha!r}\. Pass e\.g\. alpha=0\.01",
    ):
        bn.g2_test(_UNSEEN, "a", "b", alpha=alpha)


def test_g2_test_decides_by_its_alpha():
    """b copies a in 40 of 50 rows: G² against scipy's chi2 at 1 degree of freedom."""
    a = np.repeat([0, 1], 25)
    b = np.where(np.arange(50) % 5 == 0, 1 - a, a)
    table = np.array([[np.sum((a == i) & (b == j)) for j in (0, 1)] for i in (0, 1)])
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    g2 = 2 * np.sum(table * np.log(table / expected))
    from scipy import stats

    p = stats.chi2.sf(g2, 1)
    frame = pd.DataFrame({"a": a, "b": b})
    assert bn.g2_test(frame, "a", "b", alpha=p / 2)["independent"]
    assert not bn.g2_test(frame, "a", "b", alpha=min(2 * p, 0.5))["independent"]
    assert math.isclose(bn.g2_test(frame, "a", "b")["p_value"], p, rel_tol=1e-12)


def test_a_dataarray_table_with_integer_dims_is_read_by_name():
    table = xr.DataArray([[0.9, 0.1], [0.2, 0.8]], dims=(0, 1))
    net = bn.BayesNet.from_cpts(nx.DiGraph([(0, 1)]), {0: [0.5, 0.5], 1: table})
    joint = np.array([0.5 * 0.1, 0.5 * 0.8])
    np.testing.assert_allclose(net.query(0, {1: 1}).values, joint / joint.sum(), rtol=1e-12)


def test_log_prob_of_a_row_an_ml_table_rules_out_is_minus_infinity_quietly():
    data = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 1, 1]})
    with pytest.warns(bnb.priors.ZeroProbabilityWarning):
        net = bn.BayesNet(nx.DiGraph([("a", "b")])).fit(data, estimate="ml")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from log(0)
        scores = net.log_prob(pd.DataFrame({"a": [1, 0], "b": [0, 0]}))
    # P(a=1) P(b=0 | a=1) = 1/2 * 0; P(a=0) P(b=0 | a=0) = 1/2 * 1/2
    np.testing.assert_array_equal(scores, [-np.inf, math.log(0.25)])


def test_integer_nodes_keep_the_parents_order_a_table_is_given_in():
    graph = nx.DiGraph()
    graph.add_nodes_from([0, 1, 2])
    graph.add_edge(1, 2)
    graph.add_edge(0, 2)  # predecessors(2) == [1, 0]: the table's axes (1, 0, 2)
    table = np.zeros((2, 2, 2))
    table[..., 0] = 1.0
    table[1, 0] = [0.0, 1.0]  # node 2 is 1 only where node 1 is 1 and node 0 is 0
    net = bn.BayesNet.from_cpts(graph, {0: [0.5, 0.5], 1: [0.5, 0.5], 2: table})
    np.testing.assert_array_equal(net.query(2, {1: 1, 0: 0}).values, [0.0, 1.0])
    np.testing.assert_array_equal(net.query(2, {1: 0, 0: 1}).values, [1.0, 0.0])
    assert list(net.graph.predecessors("2")) == ["1", "0"]
