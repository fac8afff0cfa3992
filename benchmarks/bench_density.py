"""Naive Bayes as a density estimator, between a histogram and a single Gaussian.

Seed 000 (section 1) argues that naive Bayes sits between the two: per attribute it is
a histogram, and its independence assumption keeps its parameters linear in the
dimension, where the full joint histogram needs ``2**n - 1`` of them. This script
measures the held-out log density per row of three estimators on ``n`` Boolean
attributes, ``n = 2, 4, 8, 12, 16``:

* naive Bayes: ``bnb.NaiveBayes().density(X)`` (``estimate="mean"``, add-one);
* the full joint histogram: the ``2**n`` table of patterns, add-one smoothed,
  ``(count + 1) / (N + 2**n)``;
* a single Gaussian: a multivariate normal fitted by maximum likelihood (plus a ridge
  of 1e-3 on the diagonal) and scored as a density at the 0/1 points. That is a
  continuous density on discrete points, so its numbers are not probabilities and
  compare only loosely, as the seed's comparison does.

The data come from two generators:

* ``independent``: every attribute independent, ``P(x_i = 1) = p_i`` with ``p_i``
  drawn uniform on (0.1, 0.9); the naive Bayes case (independence holds exactly);
* ``chain``: a Markov chain ``x_1 -> x_2 -> ... -> x_n`` in which every attribute
  copies the previous one with probability 0.9 (else it is a fair coin flip); strongly
  correlated neighbours, which naive Bayes cannot represent.

Run: ``python3 benchmarks/bench_density.py`` (1000 training rows, 5000 test rows,
fixed seeds; a few seconds).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import bayesnb as bnb

DIMENSIONS = (2, 4, 8, 12, 16)
N_TRAIN = 1000
N_TEST = 5000
RIDGE = 1e-3


def independent_data(n: int, rows: int, rng: np.random.Generator, p=None) -> np.ndarray:
    """``rows`` draws of ``n`` independent Boolean attributes (0/1 integers)."""
    p = rng.uniform(0.1, 0.9, size=n) if p is None else p
    return (rng.random((rows, n)) < p).astype(np.int64)


def chain_data(n: int, rows: int, rng: np.random.Generator, stay: float = 0.9) -> np.ndarray:
    """``rows`` draws of a Boolean Markov chain: ``x_1`` a fair coin, then each
    ``x_i`` equal to ``x_{i-1}`` with probability ``stay``, else a fair coin."""
    x = np.empty((rows, n), dtype=np.int64)
    x[:, 0] = rng.random(rows) < 0.5
    for i in range(1, n):
        keep = rng.random(rows) < stay
        x[:, i] = np.where(keep, x[:, i - 1], rng.random(rows) < 0.5)
    return x


def naive_bayes_log_density(train: np.ndarray, test: np.ndarray) -> float:
    """Held-out log density per row of the naive Bayes density (add-one)."""
    columns = [f"x{i}" for i in range(train.shape[1])]
    fit = bnb.NaiveBayes(bnb.Bernoulli()).density(pd.DataFrame(train, columns=columns))
    return fit.score(pd.DataFrame(test, columns=columns))


def histogram_log_density(train: np.ndarray, test: np.ndarray) -> float:
    """Held-out log probability per row of the full joint table, add-one smoothed."""
    n = train.shape[1]
    weights = 1 << np.arange(n)
    counts = np.bincount(train @ weights, minlength=2**n)
    log_p = np.log(counts + 1.0) - np.log(len(train) + 2.0**n)
    return float(log_p[test @ weights].mean())


def gaussian_log_density(train: np.ndarray, test: np.ndarray) -> float:
    """Held-out log density per row of one multivariate normal (ML plus a ridge),
    evaluated at the 0/1 points: a continuous density on discrete points."""
    n = train.shape[1]
    mu = train.mean(axis=0)
    centred = train - mu
    cov = centred.T @ centred / len(train) + RIDGE * np.eye(n)
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, (test - mu).T)
    log_det = 2.0 * np.log(np.diag(chol)).sum()
    return float((-0.5 * (z**2).sum(axis=0) - 0.5 * (n * np.log(2 * np.pi) + log_det)).mean())


def run(dimensions=DIMENSIONS, n_train=N_TRAIN, n_test=N_TEST, seed=0) -> pd.DataFrame:
    """One row per generator and dimension: parameter counts and held-out log
    density per row of the three estimators."""
    rows = []
    for generator in ("independent", "chain"):
        for n in dimensions:
            rng = np.random.default_rng([seed, n, generator == "chain"])
            if generator == "independent":
                p = rng.uniform(0.1, 0.9, size=n)
                train = independent_data(n, n_train, rng, p)
                test = independent_data(n, n_test, rng, p)
            else:
                train = chain_data(n, n_train, rng)
                test = chain_data(n, n_test, rng)
            counts = bnb.count_parameters([2] * n)
            rows.append(
                {
                    "data": generator,
                    "n": n,
                    "params_nb": counts["naive_bayes"],
                    "params_hist": counts["full_joint"],
                    "params_gauss": n + n * (n + 1) // 2,
                    "naive_bayes": naive_bayes_log_density(train, test),
                    "histogram": histogram_log_density(train, test),
                    "gaussian": gaussian_log_density(train, test),
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    table = run()
    print(
        f"Held-out log density per row ({N_TRAIN} training rows, {N_TEST} test rows); "
        "the Gaussian is a continuous density on 0/1 points (compare loosely)."
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
