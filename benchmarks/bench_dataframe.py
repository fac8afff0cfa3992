"""The path users take: bayesnb from a pandas DataFrame, against the same data as an
array and against scikit-learn on the array, in one run.

For every case (Bernoulli bool columns, Categorical as pandas ``category`` columns
and as int codes, Gaussian floats, and a mixed frame of the three kinds) and every
size (10^4, 10^5 and 10^6 rows x 50 columns), the script times, with default
options on the bayesnb side (``bnb.NaiveBayes().fit(X, y)``, families inferred):

* bayesnb's ``fit`` and ``predict_proba`` from the DataFrame;
* the same from the array (a categorical frame's codes; the mixed one's three kinds
  declared as three blocks, as an array has one dtype);
* scikit-learn's from the array (``BernoulliNB``, ``CategoricalNB``, ``GaussianNB``;
  for the mixed frame, the three on their columns, summed, as a scikit-learn user
  would have to fit them);

and prints the medians and the ratios frame / array and frame / scikit-learn. It
then times ``import bayesnb`` and the first fit in a fresh process.

Run ``python3 benchmarks/bench_dataframe.py`` (``--quick``: 10^4 and 10^5 rows only;
``--repeats R``; ``--threads N``, default 1).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn import naive_bayes as sknb
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(ROOT))

import bayesnb as bnb  # noqa: E402

D = 50


def _labels(rng, n):
    return rng.choice(3, size=n, p=[0.2, 0.3, 0.5])


def make_case(kind: str, n: int, rng):
    """``(frame, array, y, sklearn_parts)``: sklearn_parts is a list of (estimator
    factory, column index) fitted on the array's columns."""
    y = _labels(rng, n)
    shift = y[:, None]
    if kind == "bernoulli":
        arr = rng.random((n, D)) < (0.2 + 0.2 * shift)
        parts = [(lambda: sknb.BernoulliNB(binarize=None), slice(None))]
    elif kind in ("categorical-category", "categorical-int"):
        arr = (rng.integers(0, 5, (n, D)) + shift) % 5
        parts = [(lambda: sknb.CategoricalNB(), slice(None))]
    elif kind == "gaussian":
        arr = rng.normal(size=(n, D)) + 0.3 * shift
        parts = [(lambda: sknb.GaussianNB(), slice(None))]
    else:  # mixed: 20 bool, 15 category codes, 15 floats
        b = rng.random((n, 20)) < (0.2 + 0.2 * shift)
        c = (rng.integers(0, 5, (n, 15)) + shift) % 5
        g = rng.normal(size=(n, 15)) + 0.3 * shift
        frame = pd.DataFrame(
            {
                **{f"b{j}": b[:, j] for j in range(20)},
                **{f"c{j}": pd.Categorical(c[:, j]) for j in range(15)},
                **{f"g{j}": g[:, j] for j in range(15)},
            }
        )
        parts = [
            (lambda: sknb.BernoulliNB(binarize=None), slice(0, 20)),
            (lambda: sknb.CategoricalNB(), slice(20, 35)),
            (lambda: sknb.GaussianNB(), slice(35, 50)),
        ]
        # the same data as one float array, its three kinds declared as three blocks
        # (an array has one dtype, so its families cannot be inferred per column)
        arr = np.column_stack([b, c, g]).astype(float)
        return frame, arr, y, parts
    columns = {f"x{j}": arr[:, j] for j in range(D)}
    if kind == "categorical-category":
        columns = {k: pd.Categorical(v) for k, v in columns.items()}
    return pd.DataFrame(columns), arr, y, parts


#: The declaration of the mixed array's columns x0..x49: bool, codes, floats.
MIXED_ARRAY = {
    "b": bnb.Bernoulli(columns=[f"x{j}" for j in range(20)]),
    "c": bnb.Categorical(columns=[f"x{j}" for j in range(20, 35)]),
    "g": bnb.Gaussian(columns=[f"x{j}" for j in range(35, 50)]),
}


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def time_case(kind: str, n: int, repeats: int, rng) -> dict:
    frame, arr, y, parts = make_case(kind, n, rng)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, X in (("frame", frame), ("array", arr)):
            features = MIXED_ARRAY if kind == "mixed" and label == "array" else None
            fit = bnb.NaiveBayes(features).fit(X, y)
            out[f"{label} fit"] = median_time(
                lambda X=X, f=features: bnb.NaiveBayes(f).fit(X, y), repeats
            )
            out[f"{label} proba"] = median_time(lambda X=X, f=fit: f.predict_proba(X), repeats)
            out[f"{label} p"] = fit.predict_proba(X)
        fitted = [(make().fit(arr[:, cols], y), cols) for make, cols in parts]

        def sk_fit():
            for make, cols in parts:
                make().fit(arr[:, cols], y)

        def sk_proba():
            for est, cols in fitted:
                est.predict_proba(arr[:, cols])

        out["sklearn fit"] = median_time(sk_fit, repeats)
        out["sklearn proba"] = median_time(sk_proba, repeats)
    gap = float(np.max(np.abs(out.pop("frame p") - out.pop("array p"))))
    out["|p frame - p array|"] = gap
    return out


def fresh_process_times() -> dict:
    """``import bayesnb`` and the first fit, each in a new interpreter.

    Python writes a package's bytecode cache on its first import and reads it from then
    on, so the import is timed after one warm-up run, with ``PYTHONDONTWRITEBYTECODE``
    unset. A shell that sets it before the cache exists recompiles the package's
    modules on every import, about 0.12 s more.
    """
    code_import = "import time; t=time.perf_counter(); import bayesnb; print(time.perf_counter()-t)"
    code_fit = (
        "import numpy as np, pandas as pd, time; import bayesnb as bnb;"
        "r=np.random.default_rng(0); X=pd.DataFrame(r.random((10000, 50)) < 0.3);"
        "X.columns=[f'x{j}' for j in range(50)]; y=r.integers(0, 3, 10000);"
        "t=time.perf_counter(); bnb.NaiveBayes().fit(X, y).predict_proba(X);"
        "print(time.perf_counter()-t)"
    )
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(code: str, env: dict) -> float:
        return float(
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                check=True,
                cwd=str(ROOT),
                env=env,
            ).stdout
        )

    run(code_import, cached)  # writes the bytecode cache if it is missing
    cases = (
        ("import bayesnb", code_import, cached),
        ("first fit + predict", code_fit, cached),
    )
    return {name: statistics.median(run(code, env) for _ in range(5)) for name, code, env in cases}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    kinds = ["bernoulli", "categorical-category", "categorical-int", "gaussian", "mixed"]
    kinds = [k for k in kinds if args.only in k]
    rng = np.random.default_rng(0)
    header = (
        f"{'case':<22}{'rows':>9} | {'fit ms: frame':>13}{'array':>8}{'sklearn':>9}"
        f"{'f/a':>6}{'f/sk':>6} | {'proba ms: frame':>15}{'array':>8}{'sklearn':>9}"
        f"{'f/a':>6}{'f/sk':>6} | {'max|dp|':>8}"
    )
    print(f"bayesnb {bnb.__version__}, pandas {pd.__version__}, threads {args.threads}")
    print(header)
    print("-" * len(header))
    with threadpool_limits(limits=args.threads):
        for n in sizes:
            repeats = args.repeats or (31 if n <= 10_000 else 7 if n <= 100_000 else 3)
            for kind in kinds:
                t = time_case(kind, n, repeats, rng)
                ms = {k: 1e3 * v for k, v in t.items() if not k.startswith("|")}
                print(
                    f"{kind:<22}{n:>9} | {ms['frame fit']:>13.1f}{ms['array fit']:>8.1f}"
                    f"{ms['sklearn fit']:>9.1f}{t['frame fit'] / t['array fit']:>6.2f}"
                    f"{t['frame fit'] / t['sklearn fit']:>6.2f} | {ms['frame proba']:>15.1f}"
                    f"{ms['array proba']:>8.1f}{ms['sklearn proba']:>9.1f}"
                    f"{t['frame proba'] / t['array proba']:>6.2f}"
                    f"{t['frame proba'] / t['sklearn proba']:>6.2f} | "
                    f"{t['|p frame - p array|']:>8.1e}",
                    flush=True,
                )
    for name, seconds in fresh_process_times().items():
        print(f"fresh process, {name}: {seconds:.3f} s (median of 5)")


if __name__ == "__main__":
    main()
