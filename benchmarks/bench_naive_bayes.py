"""Time bayesnb's naive Bayes kernels against scikit-learn's estimators, same run.

Every case fits the same model on both sides (matching priors and estimators, so
the probabilities agree to 1e-8, which the script checks) on array input, and
reports the median fit and ``predict_proba`` times, their ratio bayesnb /
scikit-learn, and each time in "passes": multiples of one plain reduction over
the same input (``X.sum()`` for a dense array, ``X.data.sum()`` for a sparse one),
timed in the same run, so the numbers carry over between machines.

Run ``python3 benchmarks/bench_naive_bayes.py`` (``--quick`` for a smoke run,
``--threads N`` to change the BLAS thread count, ``--repeats R``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy
import sklearn
from scipy import sparse
from sklearn import naive_bayes as sknb
from threadpoolctl import threadpool_info, threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb

#: Largest absolute difference allowed between the two sides' probabilities.
PARITY_ATOL = 1e-8


@dataclass
class Case:
    """One comparison: data, the scikit-learn estimator and the matching bayesnb fit."""

    name: str
    X: np.ndarray | sparse.csr_array
    y: np.ndarray
    make_sklearn: Callable[[], object]
    fit_bayesnb: Callable[[object, np.ndarray], object]

    def one_pass(self) -> float:
        """One plain reduction over the input (the unit of "passes")."""
        return float(self.X.data.sum() if sparse.issparse(self.X) else self.X.sum())


def _labels(rng, n, n_classes=3):
    prior = np.linspace(1.0, 2.0, n_classes)
    return rng.choice(n_classes, size=n, p=prior / prior.sum())


def bernoulli_data(n, d, rng, dtype=np.float64):
    """Rows drawn from a Bernoulli naive Bayes model with three classes."""
    y = _labels(rng, n)
    theta = rng.uniform(0.1, 0.9, size=(3, d))
    X = (rng.random((n, d)) < theta[y]).astype(dtype)
    return X, y


def categorical_data(n, d, n_values, rng):
    """Integer codes 0..n_values-1 drawn from a categorical naive Bayes model."""
    y = _labels(rng, n)
    prob = rng.dirichlet(np.ones(n_values), size=(3, d))  # (K, d, V)
    cum = prob.cumsum(axis=-1)[y]  # (n, d, V)
    u = rng.random((n, d, 1))
    X = np.minimum((cum < u).sum(axis=-1), n_values - 1).astype(np.int64)
    return X, y


def gaussian_data(n, d, rng):
    """Rows drawn from a Gaussian naive Bayes model with three overlapping classes."""
    y = _labels(rng, n)
    mu = rng.normal(0.0, 0.5, size=(3, d))
    sigma = rng.uniform(0.5, 2.0, size=(3, d))
    X = mu[y] + sigma[y] * rng.standard_normal((n, d))
    return X, y


def multinomial_data(n, vocabulary, per_row, rng):
    """Sparse CSR word counts: about ``per_row`` distinct words per document."""
    y = _labels(rng, n)
    # Zipf-like word frequencies, permuted differently per class.
    base = 1.0 / np.arange(1, vocabulary + 1)
    prob = np.stack([rng.permutation(base) for _ in range(3)])
    prob /= prob.sum(axis=1, keepdims=True)
    lengths = rng.poisson(per_row, size=n) + 1
    rows = np.repeat(np.arange(n), lengths)
    cols = np.empty(rows.size, dtype=np.int64)
    for k in range(3):
        members = np.flatnonzero(np.repeat(y == k, lengths))
        cols[members] = rng.choice(vocabulary, size=members.size, p=prob[k])
    X = sparse.csr_array(
        (np.ones(rows.size), (rows, cols)), shape=(n, vocabulary), dtype=np.float64
    )
    X.sum_duplicates()
    # 32-bit indices, as scikit-learn's CountVectorizer makes them.
    X = sparse.csr_array(
        (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape
    )
    return X, y


def make_cases(quick: bool = False, seed: int = 0) -> list[Case]:
    """The benchmark cases; ``quick`` shrinks every size for a smoke run."""
    rng = np.random.default_rng(seed)
    n = 20_000 if quick else 1_000_000
    n_docs, vocabulary = (5_000, 2_000) if quick else (200_000, 50_000)

    def bnb_fit(features, estimate):
        def fit(X, y):
            return bnb.NaiveBayes(features=features).fit(
                X, y, estimate=estimate, class_estimate="ml"
            )

        return fit

    X_b, y_b = bernoulli_data(n, 20, rng)
    X_c, y_c = categorical_data(n, 10, 5, rng)
    X_g, y_g = gaussian_data(n, 20, rng)
    X_m, y_m = multinomial_data(n_docs, vocabulary, 30, rng)
    return [
        Case(
            "bernoulli float64",
            X_b,
            y_b,
            lambda: sknb.BernoulliNB(alpha=1.0, binarize=None),
            bnb_fit(bnb.Bernoulli(bnb.Beta(1.0, 1.0)), "mean"),
        ),
        Case(
            "bernoulli uint8",
            X_b.astype(np.uint8),
            y_b,
            lambda: sknb.BernoulliNB(alpha=1.0, binarize=None),
            bnb_fit(bnb.Bernoulli(bnb.Beta(1.0, 1.0)), "mean"),
        ),
        Case(
            "bernoulli bool",
            X_b.astype(bool),
            y_b,
            lambda: sknb.BernoulliNB(alpha=1.0, binarize=None),
            bnb_fit(bnb.Bernoulli(bnb.Beta(1.0, 1.0)), "mean"),
        ),
        Case(
            "categorical int64",
            X_c,
            y_c,
            lambda: sknb.CategoricalNB(alpha=1.0),
            bnb_fit(bnb.Categorical(bnb.Dirichlet(1.0), categories=range(5)), "mean"),
        ),
        Case(
            "gaussian float64",
            X_g,
            y_g,
            lambda: sknb.GaussianNB(var_smoothing=0.0),
            bnb_fit(bnb.Gaussian(), "ml"),
        ),
        Case(
            "multinomial csr",
            X_m,
            y_m,
            lambda: sknb.MultinomialNB(alpha=1.0),
            bnb_fit(bnb.Multinomial(bnb.Dirichlet(1.0)), "mean"),
        ),
    ]


def run_case(case: Case, repeats: int = 3) -> dict:
    """Time one case on both sides; check that the probabilities agree.

    The two sides alternate inside every repeat so slow periods on a shared
    machine hit both alike.
    """
    timings = {key: [] for key in ("pass", "sk_fit", "bnb_fit", "sk_proba", "bnb_proba")}

    def timed(key, func, *args):
        start = time.perf_counter()
        out = func(*args)
        timings[key].append(time.perf_counter() - start)
        return out

    for _ in range(repeats):
        timed("pass", case.one_pass)
        sk_model = timed("sk_fit", lambda: case.make_sklearn().fit(case.X, case.y))
        bnb_model = timed("bnb_fit", case.fit_bayesnb, case.X, case.y)
        sk_proba = timed("sk_proba", sk_model.predict_proba, case.X)
        bnb_proba = timed("bnb_proba", bnb_model.predict_proba, case.X)
    t = {key: statistics.median(values) for key, values in timings.items()}
    return {
        "name": case.name,
        "shape": case.X.shape,
        "pass_s": t["pass"],
        "fit_sk_s": t["sk_fit"],
        "fit_bnb_s": t["bnb_fit"],
        "proba_sk_s": t["sk_proba"],
        "proba_bnb_s": t["bnb_proba"],
        "fit_ratio": t["bnb_fit"] / t["sk_fit"],
        "proba_ratio": t["bnb_proba"] / t["sk_proba"],
        "fit_passes": t["bnb_fit"] / t["pass"],
        "proba_passes": t["bnb_proba"] / t["pass"],
        "fit_passes_sk": t["sk_fit"] / t["pass"],
        "proba_passes_sk": t["sk_proba"] / t["pass"],
        "max_abs_diff": float(np.max(np.abs(bnb_proba - sk_proba))),
        "same_classes": list(bnb_model.labels) == list(sk_model.classes_),
    }


def check_parity(result: dict) -> None:
    """Raise when the two sides did not compute the same model."""
    if not result["same_classes"] or not result["max_abs_diff"] <= PARITY_ATOL:
        raise AssertionError(
            f"{result['name']}: bayesnb and scikit-learn disagree (max |dp| = "
            f"{result['max_abs_diff']:.3g}, classes equal: {result['same_classes']}); "
            "the timings would compare different models."
        )


def format_table(results: list[dict]) -> str:
    header = (
        f"{'case':<19} {'shape':>16} {'pass ms':>8} | {'fit sk ms':>9} {'fit bnb ms':>10} "
        f"{'ratio':>6} {'passes':>6} | {'proba sk ms':>11} {'proba bnb ms':>12} "
        f"{'ratio':>6} {'passes':>6} | {'max |dp|':>8}"
    )
    lines = [header, "-" * len(header)]
    for r in results:
        shape = "x".join(str(s) for s in r["shape"])
        lines.append(
            f"{r['name']:<19} {shape:>16} {1e3 * r['pass_s']:8.1f} | "
            f"{1e3 * r['fit_sk_s']:9.1f} {1e3 * r['fit_bnb_s']:10.1f} "
            f"{r['fit_ratio']:6.2f} {r['fit_passes']:6.1f} | "
            f"{1e3 * r['proba_sk_s']:11.1f} {1e3 * r['proba_bnb_s']:12.1f} "
            f"{r['proba_ratio']:6.2f} {r['proba_passes']:6.1f} | {r['max_abs_diff']:8.1e}"
        )
    return "\n".join(lines)


def _thread_summary() -> str:
    """The thread count of every loaded BLAS/OpenMP library, e.g. "openblas: 1 thread"."""
    pools = sorted(
        {(p.get("internal_api", p["user_api"]), p["num_threads"]) for p in threadpool_info()}
    )
    return ", ".join(f"{api}: {n} thread{'s' if n != 1 else ''}" for api, n in pools)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads (both)")
    parser.add_argument("--repeats", type=int, default=None, help="timings per median")
    parser.add_argument("--only", default=None, help="run the cases whose name contains this")
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 5)
    cases = make_cases(quick=args.quick)
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    with threadpool_limits(limits=args.threads):
        print(
            f"bayesnb {bnb.__version__} vs scikit-learn {sklearn.__version__} (numpy "
            f"{np.__version__}, scipy {scipy.__version__}); {_thread_summary()} on both sides; "
            f"median of {repeats}; ratio = bayesnb / scikit-learn; passes = time / one "
            "X.sum() (dense) or X.data.sum() (sparse) over the same input",
            flush=True,
        )
        results = []
        for case in cases:
            result = run_case(case, repeats)
            check_parity(result)
            results.append(result)
            print(f"  done: {case.name}", file=sys.stderr, flush=True)
    print(format_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
