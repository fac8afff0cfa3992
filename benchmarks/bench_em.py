"""Seconds per EM iteration, in units of one plain pass over the data.

The data: n x d binary (0/1 float64) rows drawn from a planted K-component mixture.
One EM iteration is one M-step (expected counts, ``resp.T @ X``) and one E-step
(joint log-likelihood ``X @ log_theta.T``, then the log-sum-exp over components):
two matrix products over the data, so the floor is about 2 passes.

"One plain pass" is timed in the same run, on the same array:

* ``X @ v`` with a vector v: BLAS reads every entry once (the headline unit);
* ``X.sum()``: numpy's reduction over every entry (printed for reference).

For context it times a straightforward iteration in plain numpy/scipy: rows-first
(n, K) layout, ``scipy.special.logsumexp`` over the short axis, ``X.T @ R``. And it
times the floor on its own: the E-step product ``W @ X.T`` and the M-step
product ``R @ X`` with K rows, nothing else. The rest of an iteration (log-sum-exp,
estimates, checks) is the gap between the two.

The EM time per iteration is the difference between runs of ``max_iter=m2`` and
``max_iter=m1`` iterations (``MixtureFit.seconds`` times the EM loop only, not the
encoding), divided by ``m2 - m1``; every timing is the best of ``--repeats``.
BLAS threads are pinned with threadpoolctl (default 1): on a shared 2-core machine,
oversubscribed BLAS threads made the same EM 50x slower.

Run: ``python3 benchmarks/bench_em.py`` (``--help`` for the sizes).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import special
from threadpoolctl import threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb
from bayesnb.mixture import ConvergenceWarning, fit_mixture


def planted(n: int, d: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0.4, 0.6, (k, d))  # close components: EM takes many iterations
    z = rng.choice(k, n)
    x = np.empty((n, d))
    for rows in np.array_split(np.arange(n), 20):  # keep the temporary small
        x[rows] = rng.random((len(rows), d)) < theta[z[rows]]
    return x


def best(f, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def em_seconds(model, x, k: int, iterations: int) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mix = fit_mixture(model, x, k, n_init=1, max_iter=iterations, tol=0.0, random_state=0)
    assert mix.n_iter == iterations
    return mix.seconds


def straightforward_iteration(x, log_theta, log_pi):
    """One rows-first EM iteration for Bernoulli features, written the obvious way."""
    log0, log1 = np.log1p(-np.exp(log_theta)), log_theta
    jll = x @ (log1 - log0).T + log0.sum(axis=1) + log_pi  # (n, K)
    lse = special.logsumexp(jll, axis=1)
    resp = np.exp(jll - lse[:, None])
    ones = x.T @ resp  # (d, K)
    return ones / resp.sum(axis=0), resp.mean(axis=0), lse.sum()


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--m1", type=int, default=5, help="iterations of the short run")
    parser.add_argument("--m2", type=int, default=25, help="iterations of the long run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    args = parser.parse_args(argv)

    x = planted(args.n, args.d, args.k)
    model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2)))
    v = np.ones(args.d)
    rng = np.random.default_rng(1)
    w, r = rng.normal(size=(args.k, args.d)), rng.random((args.k, args.n))
    with threadpool_limits(limits=args.threads):
        gemv = best(lambda: x @ v, 10 * args.repeats)
        reduce = best(lambda: x.sum(), 10 * args.repeats)
        floor = best(lambda: w @ x.T, 10 * args.repeats) + best(lambda: r @ x, 10 * args.repeats)
        log_theta = np.log(rng.uniform(0.2, 0.8, (args.k, args.d)))
        log_pi = np.full(args.k, -np.log(args.k))
        plain = best(lambda: straightforward_iteration(x, log_theta, log_pi), args.repeats)
        short = min(em_seconds(model, x, args.k, args.m1) for _ in range(args.repeats))
        long = min(em_seconds(model, x, args.k, args.m2) for _ in range(args.repeats))
    per_iter = (long - short) / (args.m2 - args.m1)
    result = {
        "seconds_per_iteration": per_iter,
        "pass_gemv": gemv,
        "pass_sum": reduce,
        "passes": per_iter / gemv,
        "passes_vs_sum": per_iter / reduce,
        "floor_passes": floor / gemv,
        "straightforward_passes": plain / gemv,
    }
    print(
        f"EM on {args.n} x {args.d} binary data, K = {args.k}, {args.threads} BLAS thread(s)\n"
        f"  one pass, X @ v        : {gemv * 1e3:8.2f} ms\n"
        f"  one pass, X.sum()      : {reduce * 1e3:8.2f} ms\n"
        f"  straightforward EM step: {plain * 1e3:8.2f} ms ({plain / gemv:.2f} passes)\n"
        f"  the two products alone : {floor * 1e3:8.2f} ms ({floor / gemv:.2f} passes)\n"
        f"  one EM iteration       : {per_iter * 1e3:8.2f} ms\n"
        f"  EM iteration / pass    : {result['passes']:.2f} passes of X @ v "
        f"({result['passes_vs_sum']:.2f} of X.sum()); target <= 4, floor ~2"
    )
    return result


if __name__ == "__main__":
    main()
