"""MCMC clustering of house votes 84 (K = 2): the Gibbs sampler against NUTS.

For each sampler, ``model.cluster(votes, 2, method="mcmc", sampler=...)`` with the
defaults (1000 draws after 1000 tuning draws, 4 chains) on the DataFrame, the path
users take. Printed per sampler: the wall time of the MCMC part (model build, compile
when warm, sampling and relabelling; the EM reference is timed apart), the smallest
bulk ESS over every parameter of the relabelled posterior, and ESS per second; then
the ratio of the Gibbs sampler's ESS/s to NUTS's. nutpie runs when installed.

PyMC's compile time is measured cold (a fresh pytensor compile directory, in a
subprocess) and warm (this process, after one compile): the time to build the PyMC
model and compile its log density and gradient.

Usage: ``python3 benchmarks/bench_mcmc.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

COMPILE = """
import time, warnings
warnings.simplefilter("ignore")
import bayesnb as bnb
from bayesnb.pymc_model import mixture_model
votes = bnb.datasets.house_votes_84().drop(columns="party")
began = time.perf_counter()
m = mixture_model(bnb.NaiveBayes(), votes, 2)
m.logp_dlogp_function(ravel_inputs=True)
print(time.perf_counter() - began)
"""


def compile_seconds(cold: bool) -> float:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:
        if cold:
            env["PYTENSOR_FLAGS"] = f"base_compiledir={folder}"
        out = subprocess.run(
            [sys.executable, "-c", COMPILE], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import bayesnb as bnb

    votes = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes()
    samplers = ["gibbs", "nuts"]
    try:
        import nutpie  # noqa: F401

        samplers.append("nutpie")
    except ImportError:
        print("nutpie is not installed: skipped")
    began = time.perf_counter()
    model.cluster(votes, 2, random_state=0)
    em = time.perf_counter() - began
    print(f"house votes 84: {votes.shape[0]} rows x {votes.shape[1]} votes, K = 2")
    print(f"EM reference (the default cluster call): {em * 1e3:.0f} ms")
    rows = {}
    for sampler in samplers:
        model.cluster(votes, 2, method="mcmc", sampler=sampler, random_state=0, draws=50, tune=50)
        seconds, ess = [], []
        for repeat in range(args.repeats):
            fit = model.cluster(votes, 2, method="mcmc", sampler=sampler, random_state=repeat)
            seconds.append(fit.diagnostics["seconds"])
            ess.append(fit.diagnostics["min_ess_bulk"])
        rows[sampler] = (statistics.median(seconds), statistics.median(ess))
    print(f"{'sampler':<8} {'seconds':>9} {'min ESS':>9} {'ESS/s':>9}")
    for sampler, (sec, ess) in rows.items():
        print(f"{sampler:<8} {sec:>9.2f} {ess:>9.0f} {ess / sec:>9.0f}")
    gibbs = rows["gibbs"][1] / rows["gibbs"][0]
    for other in samplers[1:]:
        ratio = gibbs / (rows[other][1] / rows[other][0])
        print(f"Gibbs ESS/s over {other}: {ratio:.1f}x (target >= 10x)")
    cold, warm = compile_seconds(True), compile_seconds(False)
    print(f"PyMC compile, cold: {cold:.1f} s; warm: {warm:.1f} s")


if __name__ == "__main__":
    main()
