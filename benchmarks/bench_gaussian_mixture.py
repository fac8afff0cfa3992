"""Gaussian mixtures with a covariance structure: seconds per EM iteration of
``bnb.MultivariateGaussian`` against scikit-learn's ``GaussianMixture``, in one run.

Data: 10^5 rows x 20 columns from 5 overlapping Gaussian clusters (seeded), K = 5.
For ``covariance="full"`` and ``"diag"`` both sides run plain EM (no acceleration,
``tol=0``) from a random start for 2 and for 12 iterations; the difference over 10 is
the time of one iteration, which leaves out each side's start-up. bayesnb runs
maximum-likelihood EM (scikit-learn's ``reg_covar=0``), one BLAS thread each. The
script prints the medians of ``--repeats`` runs and the ratio bayesnb /
scikit-learn (the target is <= 0.5).

Run ``python3 benchmarks/bench_gaussian_mixture.py`` (``--repeats R``, default 5;
``--rows N``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb

D, K = 20, 5


def data(n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    centres = rng.normal(0.0, 1.5, (K, D))
    z = rng.integers(0, K, n)
    mix = rng.normal(size=(K, D, D)) * 0.3 + np.eye(D)
    return centres[z] + np.einsum("nij,nj->ni", mix[z], rng.normal(size=(n, D)))


def ours(X, covariance: str, iterations: int) -> float:
    """Seconds of bayesnb's EM loop (the fit's own ``seconds``: its iterations only)."""
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = model.cluster(
            X,
            K,
            n_init=1,
            init="random",
            estimate="ml",
            class_estimate="ml",
            max_iter=iterations,
            tol=0.0,
            accelerate=False,
            random_state=0,
        )
    return fit.seconds


def theirs(X, covariance: str, iterations: int) -> float:
    gm = GaussianMixture(
        K,
        covariance_type=covariance,
        reg_covar=0.0,
        max_iter=iterations,
        tol=0.0,
        init_params="random",
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        gm.fit(X)
    return time.perf_counter() - start


def per_iteration(run, X, covariance: str, repeats: int) -> float:
    run(X, covariance, 2)  # warm: compiled code loaded
    short = statistics.median(run(X, covariance, 2) for _ in range(repeats))
    long = statistics.median(run(X, covariance, 12) for _ in range(repeats))
    return (long - short) / 10


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args(argv)
    X = data(args.rows)
    print(f"bayesnb {bnb.__version__}; {args.rows} x {D}, K = {K}; one thread; ms per iteration")
    print(f"{'covariance':<11}{'bayesnb':>10}{'sklearn':>10}{'ratio':>8}")
    with threadpool_limits(limits=1):
        for covariance in ("full", "diag"):
            a = per_iteration(ours, X, covariance, args.repeats)
            b = per_iteration(theirs, X, covariance, args.repeats)
            print(f"{covariance:<11}{1e3 * a:>10.2f}{1e3 * b:>10.2f}{a / b:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
