"""Smoke test of ``benchmarks/bench_naive_bayes.py``: its quick mode runs end to end and
bayesnb computes the same probabilities as scikit-learn on every case (timings are
not asserted: they depend on the machine)."""

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(repo_script):
    with repo_script("benchmarks/bench_naive_bayes.py") as module:
        yield module


def test_quick_cases_agree_with_scikit_learn(bench):
    cases = bench.make_cases(quick=True)
    names = [c.name for c in cases]
    assert names == [
        "bernoulli float64",
        "bernoulli uint8",
        "bernoulli bool",
        "categorical int64",
        "gaussian float64",
        "multinomial csr",
    ]
    for case in cases:
        result = bench.run_case(case, repeats=1)
        bench.check_parity(result)  # raises unless both sides fit the same model
        assert result["same_classes"]
        assert result["max_abs_diff"] <= bench.PARITY_ATOL
        for key in ("pass_s", "fit_sk_s", "fit_bnb_s", "proba_sk_s", "proba_bnb_s"):
            assert result[key] > 0.0
        assert result["fit_ratio"] == pytest.approx(result["fit_bnb_s"] / result["fit_sk_s"])
        assert result["proba_passes"] == pytest.approx(result["proba_bnb_s"] / result["pass_s"])
    table = bench.format_table([result])
    assert "multinomial csr" in table and "passes" in table


def test_check_parity_rejects_different_models(bench):
    result = {"name": "x", "same_classes": True, "max_abs_diff": 1e-3}
    with pytest.raises(AssertionError, match="disagree"):
        bench.check_parity(result)
    result = {"name": "x", "same_classes": True, "max_abs_diff": np.nan}
    with pytest.raises(AssertionError, match="disagree"):
        bench.check_parity(result)


def test_main_quick_prints_the_table(bench, capsys):
    assert bench.main(["--quick", "--repeats", "1", "--only", "bernoulli bool"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert "on both sides" in header and "threads" not in header  # one thread everywhere
    assert "bernoulli bool" in out and "gaussian" not in out
