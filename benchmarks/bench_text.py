"""Time the spam filter against scikit-learn, both measured in the same run.

Data: the SMS Spam Collection with the README's fixed stratified split
(``bayesnb.text.spam_split``: 4,459 training and 1,115 test messages).

Cases
-----
pipeline
    Raw strings in, test probabilities out: ``TextNaiveBayes().fit(texts, y)`` then
    ``predict_proba(test_texts)``, against ``make_pipeline(CountVectorizer(...),
    MultinomialNB(alpha=1))`` with the same token pattern. Both sides tokenize with
    scikit-learn's ``CountVectorizer``, which dominates. Target ratio <= 1.0.
matrix
    Fit + ``predict_proba`` alone on the sparse count matrices (vectorized once,
    outside the timing): ``TextNaiveBayes().fit_matrix`` against ``MultinomialNB``
    (and the Bernoulli pair, and the generic ``bnb.NaiveBayes`` path for reference).
    Target ratio <= 0.5 for the multinomial text path.

Every case first checks that both sides give the same test probabilities (to
1e-10), then reports the median of ``--repeats`` interleaved runs.

Run ``python3 benchmarks/bench_text.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits

if __package__ in (None, ""):  # run as a script from a checkout: import the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bayesnb as bnb
from bayesnb.text import TOKEN_PATTERN, TextNaiveBayes, Vocabulary, spam_split

PARITY_ATOL = 1e-10


def _median_times(funcs: dict, repeats: int) -> dict:
    """Median wall time of every function, run interleaved so drift hits all alike."""
    times = {name: [] for name in funcs}
    for f in funcs.values():  # warm-up
        f()
    for _ in range(repeats):
        for name, f in funcs.items():
            gc.collect()
            t0 = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _check(name: str, ours: np.ndarray, theirs: np.ndarray) -> float:
    diff = float(np.max(np.abs(ours - theirs)))
    if diff > PARITY_ATOL:
        raise SystemExit(f"{name}: probabilities differ by {diff:.3g} > {PARITY_ATOL:g}")
    return diff


def pipeline_case(data, repeats: int) -> list[tuple]:
    train_x, test_x, train_y, _ = data

    def ours():
        return TextNaiveBayes().fit(train_x, train_y, estimate="mean").predict_proba(test_x)

    def theirs():
        pipe = make_pipeline(CountVectorizer(token_pattern=TOKEN_PATTERN), MultinomialNB(alpha=1.0))
        return pipe.fit(train_x, train_y).predict_proba(test_x)

    def vectorize_only():
        vec = CountVectorizer(token_pattern=TOKEN_PATTERN)
        vec.fit_transform(train_x)
        return vec.transform(test_x)

    diff = _check("pipeline", ours(), theirs())
    t = _median_times({"ours": ours, "theirs": theirs, "vec": vectorize_only}, repeats)
    return [
        ("vectorize + fit + predict, multinomial", t["ours"], t["theirs"], 1.0, diff),
        ("  (CountVectorizer alone, both sides)", t["vec"], t["vec"], None, None),
    ]


def matrix_cases(data, repeats: int, scale: int) -> list[tuple]:
    train_x, test_x, train_y, _ = data
    vocab = Vocabulary()
    Xtr, Xte = vocab.fit_transform(train_x), vocab.transform(test_x)
    if scale > 1:
        Xtr = sparse.csr_array(sparse.vstack([Xtr] * scale))
        Xte = sparse.csr_array(sparse.vstack([Xte] * scale))
        train_y = np.tile(train_y, scale)
    words = vocab.words.tolist()
    suffix = "" if scale == 1 else f" (rows x{scale})"
    rows = []

    def multinomial_ours():
        return TextNaiveBayes().fit_matrix(Xtr, train_y, words=words).predict_proba(Xte)

    def multinomial_generic():
        model = bnb.NaiveBayes(bnb.Multinomial())
        fit = model.fit(Xtr, train_y, estimate="mean", class_estimate="ml")
        return fit.predict_proba(Xte)

    def multinomial_theirs():
        return MultinomialNB(alpha=1.0).fit(Xtr, train_y).predict_proba(Xte)

    def bernoulli_ours():
        model = TextNaiveBayes("bernoulli")
        return model.fit_matrix(Xtr, train_y, words=words).predict_proba(Xte)

    def bernoulli_theirs():
        return BernoulliNB(alpha=1.0).fit(Xtr, train_y).predict_proba(Xte)

    d1 = _check("multinomial", multinomial_ours(), multinomial_theirs())
    d2 = _check("generic", multinomial_generic(), multinomial_theirs())
    d3 = _check("bernoulli", bernoulli_ours(), bernoulli_theirs())
    t = _median_times(
        {
            "m_ours": multinomial_ours,
            "m_generic": multinomial_generic,
            "m_theirs": multinomial_theirs,
            "b_ours": bernoulli_ours,
            "b_theirs": bernoulli_theirs,
        },
        repeats,
    )
    rows.append(("fit + predict, multinomial" + suffix, t["m_ours"], t["m_theirs"], 0.5, d1))
    rows.append(("  same via bnb.NaiveBayes" + suffix, t["m_generic"], t["m_theirs"], None, d2))
    rows.append(("fit + predict, bernoulli" + suffix, t["b_ours"], t["b_theirs"], None, d3))
    return rows


def report(rows: list[tuple]) -> str:
    lines = [
        f"{'case':<44} {'bayesnb ms':>10} {'sklearn ms':>10} {'ratio':>6} {'target':>7} "
        f"{'max |dp|':>9}",
    ]
    for name, ours, theirs, target, diff in rows:
        ratio = ours / theirs
        tgt = "" if target is None else f"<={target:g} " + ("ok" if ratio <= target else "MISS")
        d = "" if diff is None else f"{diff:.1e}"
        lines.append(
            f"{name:<44} {ours * 1e3:10.2f} {theirs * 1e3:10.2f} {ratio:6.2f} {tgt:>7} {d:>9}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--quick", action="store_true", help="3 repeats, no scaled case")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else args.repeats
    data = spam_split()
    with threadpool_limits(args.threads):
        rows = pipeline_case(data, max(3, repeats // 2))
        rows += matrix_cases(data, repeats, scale=1)
        if not args.quick:
            rows += matrix_cases(data, max(3, repeats // 3), scale=10)
    print(
        f"SMS Spam Collection: {len(data[0])} training / {len(data[1])} test messages; "
        f"median of {repeats} runs (pipeline: {max(3, repeats // 2)}); "
        f"BLAS threads: {args.threads}"
    )
    print(report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
