"""Simulation-based calibration of the exact posterior (``NaiveBayesFit.posterior``).

If the posterior is right, a parameter drawn from the prior, then data drawn from
the model at that parameter, then ``L`` draws from the posterior given the data,
puts the true value at a rank (the number of draws below it) that is uniform on
``0..L``: averaged over data sets the posterior is the prior, and the truth is one
more draw from it. Any error in the conjugate update (a prior pseudo-count on the
wrong category, a swapped class, a wrong Normal-Inverse-Gamma scale, a missing
value counted) bends the histogram of ranks over many data sets.

Two small models, each fitted with ``bnb.NaiveBayes`` under the priors it is
simulated from (every one declared, so the posterior does not depend on the data
through the prior):

* ``bernoulli``: 2 classes, ``class_prior=Dirichlet([2, 3])``, three Bernoulli
  features with ``Beta(2, 3)``, ``Beta(0.5, 0.5)`` and ``Beta(1, 1)``;
* ``gaussian``: 2 classes, ``class_prior=Dirichlet([2, 3])``, two Gaussian features
  with ``NormalInverseGamma(mu=1, kappa=0.5, alpha=3, beta=2)`` and
  ``NormalInverseGamma(mu=-2, kappa=2, alpha=2.5, beta=4)``.

Every data set has 20 rows; each feature value is missing (NaN) with probability
0.1, independently of everything else, so the check covers the marginalization of
missing values as well. Ranked: ``class_prob`` of class 1 and, for each class, every
feature's ``P(x = 1 | class)`` (Bernoulli) or ``mu`` and ``var`` (Gaussian; ``sigma``
is a monotone function of ``var`` and has the same ranks).

Each scalar parameter's ranks over the data sets are tested for uniformity with a
chi-square test over ``--bins`` equal bins (``scipy.stats.chisquare``); the script
prints every histogram as text bars with its p-value.

Run: ``python3 scripts/sbc_ranks.py`` (``--help`` for the sizes and the seed).
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb

N_ROWS = 20
MISSING = 0.1
CLASS_ALPHA = (2.0, 3.0)


@dataclass(frozen=True)
class Model:
    """A declaration to simulate from and fit: ``features`` maps a column to its prior."""

    name: str
    kind: str  # "bernoulli" or "gaussian"
    features: dict = field(default_factory=dict)

    def declaration(self) -> bnb.NaiveBayes:
        family = bnb.Bernoulli if self.kind == "bernoulli" else bnb.Gaussian
        return bnb.NaiveBayes(
            {col: family(prior) for col, prior in self.features.items()},
            class_prior=bnb.Dirichlet(list(CLASS_ALPHA)),
        )

    def parameter_names(self) -> list[str]:
        names = ["class_prob[1]"]
        keys = [""] if self.kind == "bernoulli" else ["_mu", "_var"]
        for col in self.features:
            for key in keys:
                names += [f"{col}{key}[{k}]" for k in (0, 1)]
        return names


MODELS = {
    "bernoulli": Model(
        "bernoulli",
        "bernoulli",
        {"x0": bnb.Beta(2.0, 3.0), "x1": bnb.Beta(0.5, 0.5), "x2": bnb.Beta(1.0, 1.0)},
    ),
    "gaussian": Model(
        "gaussian",
        "gaussian",
        {
            "g0": bnb.NormalInverseGamma(mu=1.0, kappa=0.5, alpha=3.0, beta=2.0),
            "g1": bnb.NormalInverseGamma(mu=-2.0, kappa=2.0, alpha=2.5, beta=4.0),
        },
    ),
}


def draw_labels(rng: np.random.Generator, n_rows: int = N_ROWS):
    """The class probabilities from their Dirichlet and ``n_rows`` labels from them,
    both drawn again until the labels hold both classes.

    A fit learns its classes from the labels, so a data set needs rows of both. The
    retry makes the simulation draw ``(class_prob, labels)`` from the prior joint
    conditioned on the event E = "both classes occur", an event of the labels alone.
    The posterior given labels ``y`` in E is the same whether or not one also
    conditions on E (E is a function of ``y``: ``p(pi | y, E) = p(pi | y)``), so the
    fit's posterior is the posterior of this conditioned model too, whose prior
    ``p(pi | E)`` is exactly the law of the simulated truth: the ranks stay
    uniform. What would bias them is redrawing the labels alone and keeping the
    class probabilities (the truth would then come from ``p(pi)``, not ``p(pi | E)``,
    and ``class_prob`` near 0 or 1 would be over-represented). The feature
    parameters are independent of the labels a priori, and their posterior given
    (features, labels) is the fit's for any labels, so conditioning on E leaves
    their ranks uniform as well.
    """
    while True:
        pi = rng.dirichlet(CLASS_ALPHA)
        y = (rng.random(n_rows) < pi[1]).astype(np.int64)
        if 0 < y.sum() < n_rows:
            return pi, y


def simulate(model: Model, rng: np.random.Generator, n_rows: int = N_ROWS):
    """One data set from the prior: ``(X, y, truth)``, ``truth`` keyed as
    :meth:`Model.parameter_names`."""
    pi, y = draw_labels(rng, n_rows)
    truth = {"class_prob[1]": pi[1]}
    columns = {}
    for col, prior in model.features.items():
        if model.kind == "bernoulli":
            # Beta(a, b): a pseudo-counts of true (1), b of false (0)
            theta = rng.beta(float(prior.a), float(prior.b), size=2)
            x = (rng.random(n_rows) < theta[y]).astype(float)
            truth.update({f"{col}[{k}]": theta[k] for k in (0, 1)})
        else:
            alpha, beta = float(prior.alpha), float(prior.beta)
            var = beta / rng.gamma(alpha, size=2)  # InverseGamma(alpha, beta)
            mu = rng.normal(float(prior.mu), np.sqrt(var / float(prior.kappa)))
            x = rng.normal(mu[y], np.sqrt(var[y]))
            truth.update({f"{col}_mu[{k}]": mu[k] for k in (0, 1)})
            truth.update({f"{col}_var[{k}]": var[k] for k in (0, 1)})
        x[rng.random(n_rows) < MISSING] = np.nan  # missing completely at random
        columns[col] = x
    return pd.DataFrame(columns), y, truth


def posterior_draws(model: Model, X, y, draws: int, rng) -> dict[str, np.ndarray]:
    """``draws`` posterior draws of every ranked parameter, from the exact posterior
    of ``bnb.NaiveBayes`` fitted to ``(X, y)``."""
    fit = model.declaration().fit(X, y)
    post = fit.posterior(draws=draws, chains=1, random_state=rng, data=False)["posterior"]
    out = {}
    for name in model.parameter_names():
        var, k = name[:-3], int(name[-2])
        out[name] = post[var].sel(class_label=k).values.reshape(draws)
    return out


def run_sbc(
    model: Model, n_sims: int = 200, draws: int = 99, seed: int = 0, fitted: Model | None = None
):
    """Ranks (n_sims,) of every parameter, and ``swapped``: the rank of class 0's
    true value among class 1's draws (a posterior that is wrong on purpose, which
    the check must reject). ``fitted``: the declaration fitted to the data
    (default ``model``, the one they are simulated from; another one gives the
    posterior of a misdeclared model, whose ranks are not uniform)."""
    fitted = model if fitted is None else fitted
    ranks = {name: np.empty(n_sims, dtype=np.int64) for name in model.parameter_names()}
    swapped = {name: np.empty(n_sims, dtype=np.int64) for name in ranks if name.endswith("[0]")}
    streams = np.random.SeedSequence([seed, zlib.crc32(model.name.encode())]).spawn(n_sims)
    for i, child in enumerate(streams):
        rng = np.random.default_rng(child)
        X, y, truth = simulate(model, rng)
        post = posterior_draws(fitted, X, y, draws, rng)
        for name in ranks:
            ranks[name][i] = np.sum(post[name] < truth[name])
        for name in swapped:
            swapped[name][i] = np.sum(post[name[:-3] + "[1]"] < truth[name])
    return ranks, swapped


def rank_counts(ranks: np.ndarray, draws: int, bins: int) -> np.ndarray:
    """Counts of ranks (0..draws) in ``bins`` equal bins; ``draws + 1`` must be a
    multiple of ``bins`` so every bin holds as many possible ranks."""
    if (draws + 1) % bins:
        raise ValueError(f"draws + 1 = {draws + 1} is not a multiple of bins = {bins}")
    return np.bincount(ranks // ((draws + 1) // bins), minlength=bins)


def uniformity_p(ranks: np.ndarray, draws: int, bins: int = 10) -> float:
    """The chi-square p-value of the ranks against the uniform law on ``0..draws``."""
    return float(stats.chisquare(rank_counts(ranks, draws, bins)).pvalue)


def histogram(ranks: np.ndarray, draws: int, bins: int = 10, width: int = 40) -> str:
    counts = rank_counts(ranks, draws, bins)
    expected = len(ranks) / bins
    step = (draws + 1) // bins
    scale = width / max(counts.max(), 2 * expected)
    lines = []
    for b, c in enumerate(counts):
        bar = "#" * round(c * scale)
        mark = round(expected * scale)
        bar = bar.ljust(width)
        bar = bar[:mark] + "|" + bar[mark + 1 :] if bar[mark] == " " else bar
        lines.append(f"  {b * step:3d}-{(b + 1) * step - 1:3d} {c:4d} {bar}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200, help="data sets per model")
    parser.add_argument("--draws", type=int, default=99, help="posterior draws per data set")
    parser.add_argument("--bins", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=sorted(MODELS), help="one model")
    args = parser.parse_args(argv)
    names = [args.only] if args.only else list(MODELS)
    for name in names:
        model = MODELS[name]
        start = time.perf_counter()
        ranks, _ = run_sbc(model, args.sims, args.draws, args.seed)
        seconds = time.perf_counter() - start
        print(
            f"== {name}: {args.sims} data sets of {N_ROWS} rows, {args.draws} draws each "
            f"({seconds:.1f} s); ranks 0..{args.draws} in {args.bins} bins, "
            f"'|' marks the expected {args.sims / args.bins:g} per bin"
        )
        for param, r in ranks.items():
            print(f"{param}: chi-square p = {uniformity_p(r, args.draws, args.bins):.3f}")
            print(histogram(r, args.draws, args.bins))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
