"""Clustering a MultivariateGaussian block with missing values: what EM over the
missing values costs.

A DataFrame of ``--rows`` x ``--columns`` values from two overlapping Gaussians, with
``--share`` of the values missing at random, clustered with K = 2 and the default
options (full covariance, MAP, restarts). It prints, medians of ``--repeats``:

* ms per EM iteration (``tol=0``, one restart from a fixed start) on the complete
  frame, which runs in the compiled loop, and on the holed frame, which runs in the
  Python engine (its E-step fills every missing value in, pattern by pattern);
* the wall time of ``model.cluster(frame, 2)`` with default options on each, and of
  scikit-learn's ``GaussianMixture(2, n_init=5)`` on the holed frame's complete rows
  (the complete-case analysis that drops every row missing a value), with ratios;
* the number of distinct missing patterns, which the Python engine's cost follows.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

import bayesnb as bnb


def frame(rows: int, columns: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(columns, columns))
    cov = a @ a.T / columns + np.eye(columns)
    centres = rng.normal(0.0, 1.5, size=(2, columns))
    z = rng.integers(0, 2, rows)
    values = centres[z] + rng.multivariate_normal(np.zeros(columns), cov, size=rows)
    return pd.DataFrame(values, columns=[f"x{j}" for j in range(columns)])


def holed(X: pd.DataFrame, share: float, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    mask = rng.random(X.shape) < share
    mask[mask.all(axis=1), 0] = False
    return X.mask(mask)


def per_iteration(model, X, iterations: int, repeats: int) -> float:
    """Seconds per plain EM iteration, the loop's own clock."""
    times = []
    for _ in range(repeats):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = model.cluster(
                X, 2, n_init=1, max_iter=iterations, tol=0, accelerate=False, random_state=0
            )
        run = fit.restarts[0]
        times.append(run.seconds / run.n_sweeps)
    return statistics.median(times)


def wall(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--columns", type=int, default=6)
    parser.add_argument("--share", type=float, default=0.1)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from sklearn.mixture import GaussianMixture

    complete = frame(args.rows, args.columns)
    holes = holed(complete, args.share)
    kept = holes.dropna()
    patterns = len(np.unique(holes.isna().to_numpy(), axis=0))
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    print(
        f"bayesnb {bnb.__version__}, one thread: {args.rows} x {args.columns}, K = 2, "
        f"{args.share:.0%} missing ({patterns} patterns; {len(kept)} complete rows)"
    )
    with threadpool_limits(limits=1):
        model.cluster(complete.iloc[:200], 2, n_init=1)  # compile and import once
        model.cluster(holes.iloc[:200], 2, n_init=1)
        full_it = per_iteration(model, complete, args.iterations, args.repeats)
        hole_it = per_iteration(model, holes, args.iterations, args.repeats)
        print(
            f"ms per iteration: complete {1e3 * full_it:.2f} (compiled loop), holed "
            f"{1e3 * hole_it:.2f} (Python engine), ratio {hole_it / full_it:.1f}"
        )
        full = wall(lambda: model.cluster(complete, 2), args.repeats)
        ours = wall(lambda: model.cluster(holes, 2), args.repeats)
        theirs = wall(
            lambda: GaussianMixture(2, n_init=5, random_state=0).fit(kept.to_numpy()),
            args.repeats,
        )
        print(
            f"default cluster(), s: complete {full:.2f}, holed {ours:.2f} "
            f"(ratio {ours / full:.1f}); scikit-learn on the complete rows only "
            f"{theirs:.2f} (ours / theirs {ours / theirs:.1f})"
        )


if __name__ == "__main__":
    main()
