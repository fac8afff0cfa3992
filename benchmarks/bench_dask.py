"""Out of core: 10^8 rows x 20 Bernoulli features, generated lazily block by block
(never held: as float64 they would take 16 GB), streamed through a supervised fit and
through one EM iteration on Dask's local scheduler, against the in-memory fit of a
10^7-row slice in the same run.

Every block of 2^20 rows is drawn from a two-class naive Bayes from its own seed, so
the data is the same at every pass. The script prints, for the Dask runs and the
in-memory slice, the seconds and the throughput in rows per second, their ratio, and
the peak resident memory of the Dask runs (``ru_maxrss``, read before the in-memory
slice is built), which must stay under 3 GiB.

Run ``python3 benchmarks/bench_dask.py`` (``--rows N``, default 10^8; ``--slice M``,
default 10^7; ``--threads T``, default 2).
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np

import bayesnb as bnb

FEATURES = 20
BLOCK = 1 << 20
P0 = np.linspace(0.1, 0.5, FEATURES)  # P(x_j = 1 | class 0)
P1 = np.linspace(0.6, 0.2, FEATURES)  # P(x_j = 1 | class 1)


def block(i: int, rows: int) -> np.ndarray:
    """Rows ``i * BLOCK ...``: 20 features and the class in the last column (uint8)."""
    rng = np.random.default_rng([20261125, i])
    y = rng.random(rows) < 0.4
    p = np.where(y[:, None], P1, P0).astype(np.float32)
    out = np.empty((rows, FEATURES + 1), dtype=np.uint8)
    out[:, :FEATURES] = rng.random((rows, FEATURES), dtype=np.float32) < p
    out[:, FEATURES] = y
    return out


def lazy(n: int):
    """The first ``n`` rows as a Dask array of blocks made on demand."""
    import dask
    import dask.array as da

    sizes = [BLOCK] * (n // BLOCK) + ([n % BLOCK] if n % BLOCK else [])
    make = dask.delayed(block, pure=True)
    parts = [
        da.from_delayed(make(i, rows), shape=(rows, FEATURES + 1), dtype=np.uint8)
        for i, rows in enumerate(sizes)
    ]
    whole = da.concatenate(parts)
    return whole[:, :FEATURES], whole[:, FEATURES]


def in_memory(n: int):
    parts = [block(i, min(BLOCK, n - i * BLOCK)) for i in range((n + BLOCK - 1) // BLOCK)]
    whole = np.concatenate(parts)
    return whole[:, :FEATURES], whole[:, FEATURES]


def timed(func):
    start = time.perf_counter()
    out = func()
    return out, time.perf_counter() - start


def main() -> None:
    import dask

    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10**8)
    parser.add_argument("--slice", type=int, default=10**7)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # one EM iteration does not converge
    model = bnb.NaiveBayes()
    # the EM start: parameters fitted on a small in-memory sample of the same data
    Xs, _ = in_memory(20_000)
    start = model.cluster(Xs, 2, random_state=0, n_init=1)

    with dask.config.set(scheduler="threads", num_workers=args.threads):
        X, y = lazy(args.rows)
        fit_d, t_fit_d = timed(lambda: model.fit(X, y))
        em_d, t_em_d = timed(lambda: model.cluster(X, 2, init=start, max_iter=1, persist=False))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # GiB (ru_maxrss: KiB)

    Xm, ym = in_memory(args.slice)
    fit_m, t_fit_m = timed(lambda: model.fit(Xm, ym))
    em_m, t_em_m = timed(lambda: model.cluster(Xm, 2, init=start, max_iter=1))

    print(f"{args.rows:.0e} rows x {FEATURES} Bernoulli on Dask ({args.threads} threads)")
    print(f"against the in-memory fit of {args.slice:.0e} rows\n")
    print(
        f"{'step':<26}{'dask s':>10}{'dask rows/s':>14}{'memory s':>10}{'memory rows/s':>15}"
        f"{'ratio':>8}"
    )
    for name, td, tm in (
        ("supervised fit", t_fit_d, t_fit_m),
        ("EM, one iteration", t_em_d, t_em_m),
    ):
        rd, rm = args.rows / td, args.slice / tm
        print(f"{name:<26}{td:>10.1f}{rd:>14.3g}{tm:>10.2f}{rm:>15.3g}{rd / rm:>8.2f}")
    print(f"\npeak resident memory of the Dask runs: {peak:.2f} GiB (bar: 3 GiB)")
    # the slice is the Dask data's first rows: its estimates agree with the whole's
    gap = max(
        float(np.max(np.abs(fit_d.params[v].values - fit_m.params[v].values)))
        for v in fit_m.params.data_vars
    )
    print(f"parameters from all rows against the slice's: max |diff| = {gap:.2g}")
    print(f"EM iterations: dask {em_d.n_iter}, memory {em_m.n_iter}")


if __name__ == "__main__":
    main()
