"""Seconds per EM iteration, in units of one plain pass over the data.

The data: n x d binary (0/1 float64) rows drawn from a planted K-component mixture.
One EM iteration is one sweep over the rows: the E-step (the joint log-likelihood,
then the log-sum-exp over components) and the expected counts, then the M-step's
estimates. Written as matrix products (``X @ log_theta.T``, ``resp.T @ X``) that is
two reads of X, a floor of about 2 passes. bayesnb does not multiply: the Bernoulli
block is encoded once, before EM, as one mixed-radix code per eight columns (see
``bayesnb.families.Bernoulli``), so each iteration reads 13 small codes per row
instead of 100 floats: the E-step is one table lookup per code and component, the
expected counts one weighted histogram per code (compiled loops,
``bayesnb._compiled``).

"One plain pass" is timed in the same run, on the same array:

* ``X @ v`` with a vector v: BLAS reads every entry once (the headline unit);
* ``X.sum()``: numpy's reduction over every entry (printed for reference).

For context it times the product formulation: a straightforward iteration in plain
numpy/scipy (rows-first (n, K) layout, ``scipy.special.logsumexp`` over the short
axis, ``X.T @ R``), and the parts on their own: the E-step product ``W @ X.T``, the
engine's components-first log-sum-exp and normalization of the (K, n) joint, the
M-step product ``R @ X``, and both products fused over L2-sized blocks of rows.

The EM iteration is timed in the compiled loop (``bayesnb._em_loop``, the default),
and in the Python engine three ways: with its default sweep blocks, with L2-sized
blocks (1 MiB of codes), and as one block (the E-step over every row, then the
M-step over every row). Its time is the difference between runs of
``max_iter=m2`` and ``max_iter=m1`` iterations (``MixtureFit.seconds`` times the EM
loop only, not the encoding), divided by ``m2 - m1``; every timing is the best of
``--repeats``. BLAS threads are pinned with threadpoolctl (default 1): on a shared
2-core machine, oversubscribed BLAS threads made the same EM 50x slower.

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
from bayesnb import mixture
from bayesnb.mixture import ConvergenceWarning, fit_mixture

L2_BLOCK_BYTES = 1 << 20


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


def em_seconds(model, x, k: int, iterations: int, block_bytes: int | None = None) -> float:
    """``MixtureFit.seconds`` of ``iterations`` EM iterations: the compiled loop (the
    default engine), or, given ``block_bytes``, the Python engine sweeping blocks of
    that size."""
    default, compiled = mixture._SWEEP_BYTES, mixture._em_loop.compile_problem
    if block_bytes is not None:
        mixture._SWEEP_BYTES = block_bytes
        mixture._em_loop.compile_problem = lambda problem: None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            mix = fit_mixture(
                model,
                x,
                k,
                n_init=1,
                max_iter=iterations,
                tol=0.0,
                estimate="map",
                accelerate=False,  # one sweep per iteration: the cost of a plain step
                random_state=0,
            )
    finally:
        mixture._SWEEP_BYTES, mixture._em_loop.compile_problem = default, compiled
    assert mix.n_iter == iterations
    return mix.seconds


def em_iteration(model, x, k: int, args, block_bytes: int | None = None) -> float:
    """Seconds per EM iteration: the difference of a long and a short run."""
    short = min(em_seconds(model, x, k, args.m1, block_bytes) for _ in range(args.repeats))
    long = min(em_seconds(model, x, k, args.m2, block_bytes) for _ in range(args.repeats))
    return (long - short) / (args.m2 - args.m1)


def fused_products(x, w, r, rows: int) -> np.ndarray:
    """Both products over blocks of ``rows`` rows: ``W @ X_b.T``, then ``R_b @ X_b``."""
    out = np.zeros((r.shape[0], x.shape[1]))
    for start in range(0, x.shape[0], rows):
        block = x[start : start + rows]
        w @ block.T
        out += r[:, start : start + rows] @ block
    return out


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
    logj = rng.normal(size=(args.k, args.n))
    row_bytes = x.itemsize * args.d
    l2_rows = max(1, min(args.n, L2_BLOCK_BYTES // row_bytes))
    reps = 10 * args.repeats
    with threadpool_limits(limits=args.threads):
        gemv = best(lambda: x @ v, reps)
        reduce = best(lambda: x.sum(), reps)
        e_product = best(lambda: w @ x.T, reps)
        m_product = best(lambda: r @ x, reps)
        resp_out, row_ll_out = np.empty_like(logj), np.empty(args.n)  # the engine's buffers
        lse = best(lambda: mixture._Problem._normalize(logj, resp_out, row_ll_out, 0, None), reps)
        fused = best(lambda: fused_products(x, w, r, l2_rows), reps)
        log_theta = np.log(rng.uniform(0.2, 0.8, (args.k, args.d)))
        log_pi = np.full(args.k, -np.log(args.k))
        plain = best(lambda: straightforward_iteration(x, log_theta, log_pi), args.repeats)
        per_iter = em_iteration(model, x, args.k, args)
        per_iter_python = em_iteration(model, x, args.k, args, mixture._SWEEP_BYTES)
        per_iter_l2 = em_iteration(model, x, args.k, args, L2_BLOCK_BYTES)
        per_iter_one = em_iteration(model, x, args.k, args, 1 << 62)
    result = {
        "seconds_per_iteration": per_iter,
        "pass_gemv": gemv,
        "pass_sum": reduce,
        "passes": per_iter / gemv,
        "passes_vs_sum": per_iter / reduce,
        "passes_python_engine": per_iter_python / gemv,
        "passes_l2_blocks": per_iter_l2 / gemv,
        "passes_one_block": per_iter_one / gemv,
        "floor_passes": (e_product + m_product) / gemv,
        "fused_products_passes": fused / gemv,
        "straightforward_passes": plain / gemv,
    }

    def line(label, seconds):
        return f"  {label:<44}: {seconds * 1e3:8.2f} ms {seconds / gemv:6.2f} passes\n"

    print(
        f"EM on {args.n} x {args.d} binary data, K = {args.k}, {args.threads} BLAS thread(s)\n"
        + line("one pass, X @ v (the unit)", gemv)
        + line("one pass, X.sum()", reduce)
        + line("straightforward EM step (rows first, scipy)", plain)
        + "  the parts on their own:\n"
        + line("  E-step product W @ X.T", e_product)
        + line("  log-sum-exp and normalization, (K, n)", lse)
        + line("  M-step product R @ X", m_product)
        + line(f"  both products fused, blocks of {l2_rows} rows", fused)
        + "  one EM iteration (model.cluster):\n"
        + line("  the compiled loop (the default)", per_iter)
        + line("  Python engine, its default sweep blocks", per_iter_python)
        + line("  Python engine, blocks of 1 MiB of codes (L2)", per_iter_l2)
        + line("  Python engine, one block: E-step, then M-step", per_iter_one)
        + f"  EM iteration / pass: {result['passes']:.2f} passes of X @ v "
        f"({result['passes_vs_sum']:.2f} of X.sum()); target <= 4, floor ~2"
    )
    return result


if __name__ == "__main__":
    main()
