"""Time the exact posterior against a single fit, both measured in the same run.

Data: house votes 84 (``bnb.datasets.house_votes_84()``: 435 rows, 16 votes with
missing values, target ``"party"``), as a DataFrame, the path users take, with the
default declaration and options (``bnb.NaiveBayes().fit(df, target="party")``:
Categorical votes, ``Dirichlet(1)`` priors, ``estimate="mean"``).

Cases (each on the same fitted model):

fit
    ``NaiveBayes().fit(df, target="party")``: the unit of the ratios.
posterior
    ``fit.posterior(draws=1000, chains=4)``: the whole DataTree, with the prior, the
    observed data, the posterior predictive of the 435 rows and the pointwise
    log-likelihood. Target: under 0.5 s.
posterior, data=False
    ``fit.posterior(draws=1000, chains=4, data=False)``: the posterior and prior groups
    alone (4,000 independent draws of every parameter, vectorized).
credible_interval eti / hdi
    ``fit.credible_interval()`` (equal-tailed) and ``kind="hdi"``: every parameter's
    interval from its exact marginal, without draws.
log_evidence
    ``fit.log_evidence()``: the log marginal likelihood in closed form.

Every timing is the median of ``--repeats`` runs; the cases run interleaved within
each repeat (a slow period on a shared machine hits them all) after one warm-up
(numba compiles the fit's loops on first use). BLAS threads are pinned with
threadpoolctl (default 1).

Run ``python3 benchmarks/bench_posterior.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb

DRAWS, CHAINS = 1000, 4
POSTERIOR_TARGET_S = 0.5


def make_cases(df, draws: int = DRAWS, chains: int = CHAINS) -> dict:
    """The timed functions, by name; the first is the fit (the unit)."""
    fit = bnb.NaiveBayes().fit(df, target="party")
    return {
        "fit": lambda: bnb.NaiveBayes().fit(df, target="party"),
        f"posterior({draws}x{chains})": lambda: fit.posterior(draws, chains, random_state=0),
        f"posterior({draws}x{chains}, data=False)": lambda: fit.posterior(
            draws, chains, random_state=0, data=False
        ),
        "credible_interval eti": lambda: fit.credible_interval(),
        "credible_interval hdi": lambda: fit.credible_interval(kind="hdi"),
        "log_evidence": fit.log_evidence,
    }


def median_times(funcs: dict, repeats: int) -> dict:
    """Median wall time of every function, run interleaved so drift hits all alike."""
    times = {name: [] for name in funcs}
    for f in funcs.values():  # warm-up (compiles the loops)
        f()
    for _ in range(repeats):
        for name, f in funcs.items():
            gc.collect()
            t0 = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(times: dict) -> str:
    """One row per case: median ms and the ratio to the fit; the posterior's target."""
    unit = times["fit"]
    lines = [f"{'case':<36} {'median ms':>10} {'x fit':>7} {'target':>12}"]
    for name, seconds in times.items():
        target = ""
        if name == f"posterior({DRAWS}x{CHAINS})":  # the target's size (not --quick)
            ok = seconds < POSTERIOR_TARGET_S
            target = f"<{POSTERIOR_TARGET_S * 1e3:g} ms " + ("ok" if ok else "MISS")
        lines.append(f"{name:<36} {seconds * 1e3:10.1f} {seconds / unit:7.2f} {target:>12}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument(
        "--quick", action="store_true", help="2 repeats of 100 draws x 2 chains (smoke run)"
    )
    args = parser.parse_args(argv)
    repeats, draws, chains = (2, 100, 2) if args.quick else (args.repeats, DRAWS, CHAINS)
    df = bnb.datasets.house_votes_84()
    with threadpool_limits(args.threads):
        times = median_times(make_cases(df, draws, chains), repeats)
    print(
        f"house votes 84: {len(df)} rows x {df.shape[1] - 1} votes (DataFrame, default "
        f"declaration); median of {repeats} runs; BLAS threads: {args.threads}"
    )
    print(report(times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
