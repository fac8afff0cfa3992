"""Gaussian EM: milliseconds per iteration against the one-product baseline.

An EM iteration of a Gaussian mixture is one M-step's statistics
(:meth:`bayesnb.Gaussian.count` with soft responsibilities, exact at any offset) plus
one E-step (:meth:`bayesnb.Gaussian.log_likelihood` and the normalization of the
responsibilities). The baseline is the single BLAS product ``r.T @ x`` (the weighted
sums alone, which are not exact moments), measured in the same run. Also timed: a
whole ``cluster()`` divided by its iterations.

Run: ``OPENBLAS_NUM_THREADS=1 python3 benchmarks/bench_gaussian_em.py [--repeat N]``
(one BLAS thread: the compiled loops use one core too).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb


def median_ms(func, repeat: int) -> float:
    """The median milliseconds of ``repeat`` calls (of the faster half: on a busy
    machine the slower calls measure the other processes)."""
    func()  # compile / warm the caches
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * float(np.median(times[: max(1, len(times) // 2)]))


def case(name: str, x: np.ndarray, k: int, repeat: int) -> dict:
    r = np.random.default_rng(0)
    resp = r.dirichlet(np.ones(k), size=len(x))
    block = bnb.Gaussian(bnb.NormalInverseGamma(mu=0.0, beta=1.0)).bind(
        "g", [f"g{j}" for j in range(x.shape[1])], None
    )
    stats = block.count(x, resp)
    params = block.estimate_params(stats, "map")

    def m_step():
        block.count(x, resp)

    def e_step():
        ll = block.log_likelihood(x, params)
        ll - special.logsumexp(ll, axis=1, keepdims=True)

    def baseline():
        resp.T @ x

    out = {
        "case": name,
        "stats_ms": median_ms(m_step, repeat),
        "e_step_ms": median_ms(e_step, repeat),
        "baseline_ms": median_ms(baseline, repeat),
    }
    out["iteration_ms"] = out["stats_ms"] + out["e_step_ms"]
    return out


def whole_fit(name: str, x: np.ndarray, k: int) -> str:
    model = bnb.NaiveBayes(bnb.Gaussian())
    model.cluster(x[:2000], k, random_state=0, n_init=1)  # compile
    t0 = time.perf_counter()
    mix = model.cluster(x, k, random_state=0, n_init=1, max_iter=200, tol=1e-6)
    seconds = time.perf_counter() - t0
    iterations = max(1, len(mix.history))
    return f"{name}: cluster() {1e3 * seconds / iterations:.2f} ms/iteration ({iterations} it)"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    r = np.random.default_rng(1)
    big = r.normal(size=(100_000, 10)) + 1e6 + 4.0 * r.integers(0, 4, 100_000)[:, None]
    faithful = bnb.datasets.old_faithful().select_dtypes("number").to_numpy(float)
    rows = [
        case("100000x10, K=3", big, 3, args.repeat),
        case("100000x10, K=4", big, 4, args.repeat),
        case(f"Old Faithful {len(faithful)}x{faithful.shape[1]}, K=3", faithful, 3, args.repeat),
    ]
    print(f"{'case':<28} {'stats':>8} {'r.T@x':>8} {'ratio':>6} {'E-step':>8} {'iteration':>10}")
    for row in rows:
        print(
            f"{row['case']:<28} {row['stats_ms']:8.3f} {row['baseline_ms']:8.3f} "
            f"{row['stats_ms'] / row['baseline_ms']:6.2f} {row['e_step_ms']:8.3f} "
            f"{row['iteration_ms']:10.3f}"
        )
    print("(milliseconds, median; ratio = exact statistics / one BLAS product)")
    print(whole_fit("100000x10, K=4", big, 4))
    print(whole_fit("Old Faithful, K=3", faithful, 3))


if __name__ == "__main__":
    main()
