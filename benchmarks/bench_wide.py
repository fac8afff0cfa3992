"""Time a wide DataFrame fitted one feature per column against the same data declared
as one block.

The data are ``--rows`` rows of ``--columns`` integer 0/1 columns and two classes.
Three declarations are timed, each as the median of ``--repeats`` runs of ``fit``
(``estimate="mean"``) and of ``predict_proba`` on the training rows:

* ``block``: ``{"X": Bernoulli(columns=[...every column...])}``, one block;
* ``inferred``: ``features=None``, a Bernoulli feature inferred for every column;
* ``declared``: ``Bernoulli()`` given once for every column (one feature each).

It prints the seconds of each and the ratios per-column / block, and checks that the
three give the same probabilities. Run ``python3 benchmarks/bench_wide.py``
(``--columns 100000`` by default; ``--quick`` for 2 000 columns).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb


def make_data(n_rows: int, n_columns: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    p = rng.uniform(0.2, 0.8, (2, n_columns))
    X = (rng.random((n_rows, n_columns)) < p[y]).astype(np.int64)
    return pd.DataFrame(X, columns=[f"c{j}" for j in range(n_columns)]), y


def declarations(columns: list) -> dict:
    return {
        "block": {"X": bnb.Bernoulli(columns=columns)},
        "inferred": None,
        "declared": bnb.Bernoulli(),
    }


def time_one(features, X, y, repeats: int) -> dict:
    fits, probas, proba = [], [], None
    for _ in range(repeats):
        start = time.perf_counter()
        fit = bnb.NaiveBayes(features).fit(X, y, estimate="mean")
        fits.append(time.perf_counter() - start)
        start = time.perf_counter()
        proba = fit.predict_proba(X)
        probas.append(time.perf_counter() - start)
    return {"fit_s": statistics.median(fits), "proba_s": statistics.median(probas), "p": proba}


def run(n_rows: int, n_columns: int, repeats: int) -> dict:
    X, y = make_data(n_rows, n_columns)
    warm, wy = make_data(50, 20, seed=1)  # compile the loops outside the timings
    for features in declarations(list(warm.columns)).values():
        bnb.NaiveBayes(features).fit(warm, wy, estimate="mean").predict_proba(warm)
    results = {
        name: time_one(features, X, y, repeats)
        for name, features in declarations(list(X.columns)).items()
    }
    block = results["block"]
    for r in results.values():
        np.testing.assert_allclose(r["p"], block["p"], rtol=1e-9, atol=1e-12)
        r["total_s"] = r["fit_s"] + r["proba_s"]
        r["ratio"] = r["total_s"] / block["total_s"]
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--columns", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2 000 columns, 1 repeat")
    args = parser.parse_args(argv)
    columns, repeats = (2000, 1) if args.quick else (args.columns, args.repeats)
    with threadpool_limits(1):
        results = run(args.rows, columns, repeats)
    print(f"{args.rows} rows x {columns} integer 0/1 columns, median of {repeats}, one thread")
    print(f"{'declaration':<10} {'fit s':>8} {'proba s':>8} {'total s':>8} {'/ block':>8}")
    for name, r in results.items():
        print(
            f"{name:<10} {r['fit_s']:8.3f} {r['proba_s']:8.3f} {r['total_s']:8.3f} "
            f"{r['ratio']:8.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
