"""MCMC clustering of Old Faithful (K = 2) with one MultivariateGaussian block: the
Gibbs sampler's compiled sweep against its Python sweep, and against NUTS.

For every covariance type, ``model.cluster(faithful, 2, method="mcmc")`` with the
defaults (1000 draws after 1000 tuning draws, 4 chains) on the DataFrame, the path
users take, run with the compiled sweep and then with the Python sweep (the baseline,
``bayesnb.mcmc._compiled_gibbs_enabled = False``), which draw the same numbers from
the same seed. Printed per type: the median seconds of the MCMC part
(``fit.diagnostics["seconds"]``: sampling and relabelling; the EM reference apart)
and their ratio. Then, for the full covariance, NUTS (PyMC's, and nutpie's when
installed) on the same model: the smallest bulk ESS over every parameter per
second, against the compiled Gibbs sampler's.

Usage: ``python3 benchmarks/bench_mvn_mcmc.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import warnings

from bayesnb.families.multivariate import COVARIANCES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)  # the samplers' progress notes
    import bayesnb as bnb
    from bayesnb import mcmc

    faithful = bnb.datasets.old_faithful()
    print(f"Old Faithful: {faithful.shape[0]} rows x {faithful.shape[1]} columns, K = 2")

    def run(model, repeat, **options):
        fit = model.cluster(faithful, 2, method="mcmc", random_state=repeat, **options)
        return fit.diagnostics["seconds"], fit.diagnostics["min_ess_bulk"]

    print(f"{'covariance':<15} {'compiled s':>11} {'Python s':>9} {'ratio':>7}")
    gibbs_full = None
    for covariance in COVARIANCES:
        model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
        medians = []
        for compiled in (True, False):
            mcmc._compiled_gibbs_enabled = compiled
            run(model, 0, draws=20, tune=20)  # compile and warm
            runs = [run(model, repeat) for repeat in range(args.repeats)]
            medians.append(
                (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
            )
        mcmc._compiled_gibbs_enabled = True
        (fast, ess), (slow, _) = medians
        print(f"{covariance:<15} {fast:>11.3f} {slow:>9.3f} {slow / fast:>6.1f}x")
        if covariance == "full":
            gibbs_full = ess / fast
    samplers = ["nuts"]
    try:
        import nutpie  # noqa: F401

        samplers.append("nutpie")
    except ImportError:
        print("nutpie is not installed: skipped")
    model = bnb.NaiveBayes(bnb.MultivariateGaussian())
    print(f"full covariance, compiled Gibbs: {gibbs_full:.0f} ESS/s")
    for sampler in samplers:
        run(model, 0, sampler=sampler, draws=20, tune=20)  # compile
        runs = [run(model, repeat, sampler=sampler) for repeat in range(args.repeats)]
        seconds = statistics.median(r[0] for r in runs)
        ess = statistics.median(r[1] for r in runs)
        print(
            f"{sampler}: {seconds:.2f} s, min ESS {ess:.0f}, {ess / seconds:.0f} ESS/s; "
            f"Gibbs ESS/s over {sampler}: {gibbs_full / (ess / seconds):.1f}x"
        )


if __name__ == "__main__":
    main()
