"""Exact Bayes-net queries: bayesnb's variable elimination against pgmpy's, in one run.

Nets with known tables (``bn.random_cpts``, Dirichlet(1) rows): binary chains of 12,
28 and 60 nodes (P(v0 | last = 1)), and random DAGs of 20 and 30 nodes with 2 to 4
values per node and up to 3 parents (P(first node | three observed nodes)). For each
the script prints the median time of ``BayesNet.query`` and of pgmpy's
``VariableElimination.query`` (``show_progress=False``; its elimination order
"MinFill"), their ratio (bayesnb / pgmpy), and the largest difference between the two
answers. pgmpy is in the ``test`` extra.

Run ``python3 benchmarks/bench_bayesnet_query.py`` (``--repeats R``).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(ROOT))

from bayesnb import bayesnet as bn  # noqa: E402


def chain(n: int):
    import networkx as nx

    graph = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(n - 1)])
    return graph, "v0", {f"v{n - 1}": 1}


def random_dag(n: int, seed: int):
    import networkx as nx

    rng = np.random.default_rng(seed)
    graph = nx.DiGraph()
    graph.add_nodes_from(f"v{i}" for i in range(n))
    for i in range(1, n):
        for j in rng.choice(i, size=min(i, int(rng.integers(0, 4))), replace=False):
            graph.add_edge(f"v{j}", f"v{i}")
    observed = {f"v{i}": 0 for i in rng.choice(np.arange(1, n), 3, replace=False)}
    return graph, "v0", observed


def pgmpy_net(net: bn.BayesNet):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork(list(net.graph.edges))
    model.add_nodes_from(net.order)
    for node in net.order:
        cpt = net.cpts[node]
        parents = [d for d in cpt.dims if d != node]
        values = cpt.transpose(node, *parents).values.reshape(cpt.sizes[node], -1)
        model.add_cpds(
            TabularCPD(
                node,
                cpt.sizes[node],
                values,
                evidence=parents or None,
                evidence_card=[cpt.sizes[p] for p in parents] or None,
            )
        )
    return model


def median_seconds(call, repeats: int) -> float:
    call()  # warm
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> None:
    with warnings.catch_warnings():  # pgmpy's own deprecations, on import
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.inference import VariableElimination

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    cases = {f"chain-{n}": chain(n) for n in (12, 28, 60)}
    cases.update({f"dag-{n}": random_dag(n, seed=n) for n in (20, 30)})
    print(f"{'net':<10} {'bayesnb ms':>11} {'pgmpy ms':>9} {'ratio':>6} {'max |diff|':>11}")
    for name, (graph, target, evidence) in cases.items():
        cards = 2 if name.startswith("chain") else {v: 2 + i % 3 for i, v in enumerate(graph)}
        net = bn.BayesNet.from_cpts(graph, bn.random_cpts(graph, cards, random_state=1))
        theirs = VariableElimination(pgmpy_net(net))

        ours_query = functools.partial(net.query, target, evidence)
        pgmpy_query = functools.partial(
            theirs.query, [target], evidence=evidence, show_progress=False
        )

        diff = float(np.max(np.abs(ours_query().values - pgmpy_query().values)))
        a = median_seconds(ours_query, args.repeats)
        b = median_seconds(pgmpy_query, args.repeats)
        print(f"{name:<10} {1e3 * a:>11.2f} {1e3 * b:>9.2f} {a / b:>6.2f} {diff:>11.1e}")


if __name__ == "__main__":
    main()
