"""Plain against accelerated EM: passes over the data and seconds to the same optimum.

For every data set that ships with bayesnb (the declaration a user would write:
``bnb.NaiveBayes()`` infers the families, the votes also as Bernoulli features), for
K = 2, 3, 4, and for a larger synthetic latent-class data set (binary items from
close classes, where plain EM is slow), each of ``--seeds`` random starts is fitted
twice by ``model.cluster(X, K, n_init=1, random_state=seed)`` with the default
estimators and ``tol``: with ``accelerate=False`` (plain EM, one sweep per step) and
with the default ``accelerate=True`` (SQUAREM). Both runs start from the same point.

Printed per case, as medians over the starts: the sweeps (passes over the data,
which is what an EM step costs; for SQUAREM including the extrapolations tried and
rejected), the seconds of the EM loop (``MixtureFit.seconds``, without the encoding),
and the plain / accelerated ratios; ``same`` counts the starts where both runs end
within 1e-6 per row of each other (the same optimum), and ``gap`` is the largest
objective difference between them (accelerated minus plain; positive: the
accelerated run ended higher).

Run: ``python3 benchmarks/bench_em_acceleration.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb
from bayesnb.mixture import ConvergenceWarning


def latent_class(n: int = 5000, d: int = 20, k: int = 4, seed: int = 0) -> pd.DataFrame:
    """Binary items from ``k`` close latent classes (item probabilities 0.3..0.7)."""
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0.3, 0.7, (k, d))
    z = rng.choice(k, n, p=rng.dirichlet(np.full(k, 5.0)))
    x = rng.random((n, d)) < theta[z]
    return pd.DataFrame(x.astype(int), columns=[f"item{j}" for j in range(d)])


def cases(quick: bool = False) -> list[tuple[str, object, pd.DataFrame, list[int]]]:
    """``(name, model, X, Ks)`` of every case."""
    data = bnb.datasets
    votes = data.house_votes_84().drop(columns="party")
    out = [
        ("house votes, categorical", bnb.NaiveBayes(), votes, [2, 3, 4]),
        (
            "house votes, bernoulli",
            bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y"))),
            votes,
            [2, 3, 4],
        ),
        ("play tennis", bnb.NaiveBayes(), data.play_tennis(), [2, 3, 4]),
        ("old faithful", bnb.NaiveBayes(), data.old_faithful(), [2, 3, 4]),
        ("soccer games", bnb.NaiveBayes(), data.soccer_games(), [2, 3]),
        ("temperature", bnb.NaiveBayes(), data.temperature(), [2, 3, 4]),
        (
            "latent classes 5000 x 20",
            bnb.NaiveBayes(bnb.Bernoulli()),
            latent_class(1000 if quick else 5000),
            [2, 3, 4],
        ),
    ]
    return out[:1] + out[3:4] if quick else out


def fit(model, X, K: int, seed: int, accelerate: bool):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.cluster(
            X, K, n_init=1, random_state=seed, accelerate=accelerate, max_iter=100_000
        )


def run_case(model, X, K: int, seeds: int) -> dict:
    rows = []
    for seed in range(seeds):
        plain = fit(model, X, K, seed, accelerate=False)
        fast = fit(model, X, K, seed, accelerate=True)
        rows.append(
            {
                "plain_sweeps": plain.n_sweeps,
                "fast_sweeps": fast.n_sweeps,
                "plain_s": plain.seconds,
                "fast_s": fast.seconds,
                "gap": fast.objective - plain.objective,
                "converged": plain.converged and fast.converged,
            }
        )
    frame = pd.DataFrame(rows)
    med = frame.median()
    n = len(X)
    return {
        "plain_sweeps": med["plain_sweeps"],
        "fast_sweeps": med["fast_sweeps"],
        "sweep_ratio": med["plain_sweeps"] / med["fast_sweeps"],
        "plain_s": med["plain_s"],
        "fast_s": med["fast_s"],
        "time_ratio": med["plain_s"] / med["fast_s"],
        "same": int((frame["gap"].abs() <= 1e-6 * n).sum()),
        "starts": len(frame),
        "gap": float(frame["gap"].iloc[int(frame["gap"].abs().argmax())]),
        "converged": bool(frame["converged"].all()),
    }


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="random starts per case")
    parser.add_argument("--quick", action="store_true", help="two cases, two starts")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    args = parser.parse_args(argv)
    seeds = 2 if args.quick else args.seeds
    header = (
        f"{'case':<26} {'K':>2} {'plain':>7} {'SQUAREM':>7} {'ratio':>6}  "
        f"{'plain s':>8} {'SQUAREM s':>9} {'ratio':>6}  {'same':>5} {'gap':>9}"
    )
    print(f"median sweeps (passes over the data) and EM seconds over {seeds} starts\n{header}")
    results = []
    with threadpool_limits(limits=args.threads):
        for name, model, X, Ks in cases(args.quick):
            for K in Ks:
                r = run_case(model, X, K, seeds)
                r.update(case=name, K=K)
                results.append(r)
                print(
                    f"{name:<26} {K:>2} {r['plain_sweeps']:>7.0f} {r['fast_sweeps']:>7.0f} "
                    f"{r['sweep_ratio']:>6.2f}  {r['plain_s']:>8.4f} {r['fast_s']:>9.4f} "
                    f"{r['time_ratio']:>6.2f}  {r['same']:>2}/{r['starts']:<2} {r['gap']:>9.2g}"
                    + ("" if r["converged"] else "  (not converged)"),
                    flush=True,
                )
    ratios = np.array([r["sweep_ratio"] for r in results])
    times = np.array([r["time_ratio"] for r in results])
    print(
        f"median over cases: {np.median(ratios):.2f}x fewer sweeps, "
        f"{np.median(times):.2f}x less time with SQUAREM"
    )
    return results


if __name__ == "__main__":
    main()
