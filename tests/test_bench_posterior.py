"""Smoke test of ``benchmarks/bench_posterior.py``: its quick mode runs end to end and
prints every case with its ratio to the fit (timings are not asserted: they depend on
the machine)."""

import pytest


@pytest.fixture(scope="module")
def bench(repo_script):
    with repo_script("benchmarks/bench_posterior.py") as module:
        yield module


def test_report_gives_ratios_to_the_fit_and_the_target(bench):
    times = {
        "fit": 0.01,
        "posterior(1000x4)": 0.3,
        "posterior(1000x4, data=False)": 0.08,
        "log_evidence": 0.001,
    }
    lines = bench.report(times).splitlines()
    assert lines[1].split()[-2:] == ["10.0", "1.00"]
    assert lines[2].split()[-5:] == ["300.0", "30.00", "<500", "ms", "ok"]
    assert lines[3].split()[-2:] == ["80.0", "8.00"]  # no target for the groups alone
    times["posterior(1000x4)"] = 0.6
    assert bench.report(times).splitlines()[2].endswith("MISS")


def test_main_quick_prints_every_case(bench, capsys):
    assert bench.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("house votes 84: 435 rows x 16 votes")
    for case in (
        "fit",
        "posterior(100x2)",
        "posterior(100x2, data=False)",
        "credible_interval eti",
        "credible_interval hdi",
        "log_evidence",
    ):
        assert f"\n{case} " in out
    assert "ms ok" not in out and "MISS" not in out  # the target is for 1000 x 4 only
