"""Fitted models: prediction without a posterior, parameter counts, default smoothing,
saving every label and category type, and the package's import structure."""

from __future__ import annotations

import ast
import datetime
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import errors
from bayesnb.sklearn import NaiveBayesClassifier

PACKAGE = Path(bnb.__file__).resolve().parent


# -- a row with likelihood 0 under every class -------------------------------------------------


def _ruled_out_fit():
    """Categories x, y, z; class 0 saw x, class 1 saw y: z has probability 0 under both."""
    train = pd.DataFrame({"c": ["x", "y"]})
    with pytest.warns(bnb.ZeroProbabilityWarning):
        return bnb.NaiveBayes({"c": bnb.Categorical(categories=["x", "y", "z"])}).fit(
            train, y=[0, 1], estimate="ml"
        )


def test_predict_raises_like_predict_proba_on_a_row_every_class_rules_out():
    fit = _ruled_out_fit()
    X = pd.DataFrame({"c": ["x", "z", "y"]})
    for method in (fit.predict, fit.predict_proba, fit.predict_log_proba):
        with pytest.raises(errors.ZeroLikelihoodError, match=r"row 1 has likelihood 0") as info:
            method(X)
        message = str(info.value)
        assert "feature 'c'" in message
        assert "estimate is 'ml'" in message
        assert "Fit with estimate='mean'" in message
    # Rows with a posterior still predict: x is class 0, y class 1 (ML: P(x|0) = 1).
    assert fit.predict(X.iloc[[0, 2]]).tolist() == [0, 1]
    np.testing.assert_array_equal(fit.predict_proba(X.iloc[[0, 2]]), [[1.0, 0.0], [0.0, 1.0]])


def test_the_error_lists_every_row_without_a_posterior():
    fit = _ruled_out_fit()
    with pytest.raises(errors.ZeroLikelihoodError, match=r"rows 0, 2 \(2 rows\)"):
        fit.predict(pd.DataFrame({"c": ["z", "x", "z"]}))


def test_sklearn_predict_raises_like_predict_proba():
    X = pd.DataFrame({"c": ["x", "y"]})
    with pytest.warns(bnb.ZeroProbabilityWarning):
        clf = NaiveBayesClassifier(
            {"c": bnb.Categorical(categories=["x", "y", "z"])}, estimate="ml"
        ).fit(X, ["a", "b"])
    new = pd.DataFrame({"c": ["y", "z"]})
    for method in (clf.predict, clf.predict_proba, clf.predict_log_proba):
        with pytest.raises(errors.ZeroLikelihoodError, match="row 1 has likelihood 0"):
            method(new)
    assert clf.predict(new.iloc[[0]]).tolist() == ["b"]


def test_overflow_under_a_smoothed_fit_does_not_blame_the_counts():
    # Class 0 ~ 0..4, class 1 ~ 3..7, estimate "mean": no probability is 0 from counts,
    # yet x = 1e200 has density 0 (underflow) under both classes.
    X = np.r_[np.arange(5.0), np.arange(5.0) + 3][:, None]
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, [0] * 5 + [1] * 5)
    with pytest.raises(errors.ZeroLikelihoodError) as info:
        fit.predict(np.array([[1.0], [1e200]]))
    message = str(info.value)
    assert "row 1 has likelihood 0" in message
    assert "estimate is 'mean'" in message
    assert "feature 'X' (gaussian)" in message
    assert "Fit with estimate='mean'" not in message
    assert "too large in magnitude" in message


def test_non_finite_parameters_are_named_as_such():
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(np.arange(6.0)[:, None], [0, 0, 0, 1, 1, 1])
    fit.block_params[0]["mu"] = np.full_like(fit.block_params[0]["mu"], np.nan)  # damaged
    with pytest.raises(errors.ZeroLikelihoodError, match="not a number") as info:
        fit.predict(np.array([[1.0]]))
    assert "Fit with estimate='mean'" not in str(info.value)


def test_log_normalize_names_the_cause_without_a_model():
    from bayesnb.model import log_normalize, normalize

    zero = np.array([[0.0, -1.0], [-np.inf, -np.inf]])
    with pytest.raises(errors.ZeroLikelihoodError, match="Fit with estimate='mean'"):
        log_normalize(zero, estimate="ml")
    with pytest.raises(errors.ZeroLikelihoodError, match="No zero count is the cause"):
        normalize(zero, estimate="mean")
    with pytest.raises(errors.ZeroLikelihoodError, match="row 0 has a log-likelihood that is not"):
        normalize(np.array([[np.nan, 0.0]]))
    # Finite rows: probabilities exp(s) / sum exp(s), written out.
    np.testing.assert_allclose(
        normalize(np.array([[0.0, math.log(3.0)]])), [[0.25, 0.75]], rtol=1e-15
    )


# -- parameter counts --------------------------------------------------------------------------


def test_n_parameters_is_an_int_method_on_every_fitted_kind():
    df = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(df, target="play")
    # 2 classes; outlook 3, temperature 3, humidity 2, wind 2 values: 1 + 2 * (2+2+1+1).
    assert fit.n_parameters() == 13
    assert isinstance(fit.n_parameters(), int)
    counts = fit.parameter_counts()
    assert counts["naive_bayes"] == 13
    assert counts["full_joint"] == 2 * 3 * 3 * 2 * 2 - 1
    assert counts["naive_bayes_entries"] == 2 + 2 * (3 + 3 + 2 + 2)

    mix = bnb.NaiveBayes().cluster(df.drop(columns="play"), 2, random_state=0, n_init=1)
    assert mix.n_parameters() == 13
    assert isinstance(mix.n_parameters(), int)
    assert mix.parameter_counts()["full_joint"] == 71
    assert mix.aic == pytest.approx(-2 * mix.log_likelihood + 2 * 13, rel=1e-15)
    assert mix.bic == pytest.approx(-2 * mix.log_likelihood + 13 * math.log(14), rel=1e-15)


def test_parameter_counts_of_a_continuous_model_has_no_joint_table():
    rng = np.random.default_rng(0)
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(rng.normal(size=(20, 3)), [0, 1] * 10)
    assert fit.n_parameters() == 1 + 2 * 2 * 3
    assert fit.parameter_counts() == {
        "naive_bayes": 13,
        "full_joint": None,
        "naive_bayes_entries": None,
        "full_joint_entries": None,
    }


# -- default smoothing -------------------------------------------------------------------------


def test_default_fit_smooths_playtennis_with_add_one():
    df = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(df, target="play")  # no estimate: the default
    assert fit.estimates["class"] == "mean"
    assert set(fit.estimates["features"].values()) == {"mean"}
    params = fit.params
    for name in ("outlook", "temperature", "humidity", "wind"):
        values = params[name].values
        assert np.all(values > 0) and np.all(values < 1), name
    # Outlook given No: Overcast 0, Rain 2, Sunny 3 of N = 5, V = 3 values.
    np.testing.assert_allclose(
        params["outlook"].sel(class_label="No").values,
        [(0 + 1) / (5 + 3), (2 + 1) / (5 + 3), (3 + 1) / (5 + 3)],
        rtol=1e-15,
    )
    # Class probabilities: (5 + 1) / (14 + 2) and (9 + 1) / (14 + 2).
    np.testing.assert_allclose(params["class_prob"].values, [6 / 16, 10 / 16], rtol=1e-15)
    # A value never seen with a class does not rule it out: Overcast with No.
    day = pd.DataFrame([["Overcast", "Hot", "High", "Weak"]], columns=df.columns[:4])
    assert np.all(fit.predict_proba(day) > 0)


def test_sklearn_classifier_defaults_to_the_posterior_mean():
    df = bnb.datasets.play_tennis()
    clf = NaiveBayesClassifier().fit(df.drop(columns="play"), df["play"])
    assert clf.estimate == "mean"
    np.testing.assert_allclose(
        clf.fit_.params["outlook"].sel(class_label="Yes").values,
        [(4 + 1) / (9 + 3), (3 + 1) / (9 + 3), (2 + 1) / (9 + 3)],
        rtol=1e-15,
    )


# -- saving every label and category type ------------------------------------------------------


def _round_trip(fit, tmp_path):
    path = tmp_path / "model.nc"
    fit.save(path)
    return bnb.load(path)


def test_datetime_labels_and_categories_save_exactly(tmp_path):
    days = pd.date_range("2020-01-01", periods=3, freq="D")
    X = pd.DataFrame(
        {
            "day": pd.Series([*days, *days, days[0], days[1]], dtype=object),
            "zoned": pd.Series(
                [pd.Timestamp("2021-06-01 12:00", tz="Europe/Paris")] * 4
                + [pd.Timestamp("2021-06-02 12:00:00.000000001", tz="Europe/Paris")] * 4,
                dtype=object,
            ),
            "g": np.arange(8.0),
        }
    )
    y = [datetime.datetime(2020, 5, 1), datetime.datetime(2020, 5, 2, 13, 30)] * 4
    fit = bnb.NaiveBayes(
        {"day": bnb.Categorical(), "zoned": bnb.Categorical(), "g": bnb.Gaussian()}
    ).fit(X, y)
    back = _round_trip(fit, tmp_path)
    assert back.labels == [datetime.datetime(2020, 5, 1), datetime.datetime(2020, 5, 2, 13, 30)]
    assert [type(v) for v in back.labels] == [type(v) for v in fit.labels]
    for a, b in zip(fit.blocks[:2], back.blocks[:2], strict=True):
        assert a.column_categories == b.column_categories
        assert [type(v) for v in a.column_categories[0]] == [
            type(v) for v in b.column_categories[0]
        ]
    zoned = back.blocks[1].column_categories[0]
    assert zoned[1] == pd.Timestamp("2021-06-02 12:00:00.000000001", tz="Europe/Paris")
    assert str(zoned[1].tz) == "Europe/Paris"
    np.testing.assert_array_equal(back.predict_proba(X), fit.predict_proba(X))
    assert back.predict(X).tolist() == fit.predict(X).tolist()
    assert back.params.identical(fit.params)


SCALARS = {
    "datetime64_ns": [
        np.datetime64("2020-01-01T00:00:00.000000001"),
        np.datetime64("2020-01-02", "ns"),
    ],
    "datetime64_D": [np.datetime64("2020-01-02", "D"), np.datetime64("2021-03-04", "D")],
    "int64": [np.int64(7), np.int64(-3)],
    "float32": [np.float32(0.5), np.float32(-1.25)],
    "bool_": [np.bool_(False), np.bool_(True)],
    "str_": [np.str_("s"), np.str_("t")],
    "date": [datetime.date(2020, 1, 3), datetime.date(1999, 12, 31)],
    "timedelta": [datetime.timedelta(days=1, microseconds=3), datetime.timedelta(seconds=-5)],
    "timedelta64": [np.timedelta64(5, "h"), np.timedelta64(-2, "h")],
    "pd_timedelta": [pd.Timedelta(nanoseconds=17), pd.Timedelta(days=2)],
    "float": [-0.5, 1e-300],
    "big_int": [10**20, -(10**19)],
}


@pytest.mark.parametrize("kind", sorted(SCALARS))
def test_numpy_and_date_scalars_keep_their_types(kind, tmp_path):
    values = SCALARS[kind]
    X = pd.DataFrame({"c": pd.Series(values * 2, dtype=object)})
    fit = bnb.NaiveBayes({"c": bnb.Categorical(categories=values)}).fit(X, [0, 1, 0, 1])
    back = _round_trip(fit, tmp_path)
    loaded = back.blocks[0].categories
    assert loaded == values
    assert [type(v) for v in loaded] == [type(v) for v in values]
    for a, b in zip(loaded, values, strict=True):
        if isinstance(b, np.generic):
            assert a.dtype == b.dtype
    assert back.blocks[0].column_categories == [values]
    np.testing.assert_array_equal(back.counts["c"].values, [[2.0, 0.0], [0.0, 2.0]])
    assert back.params.identical(fit.params)


def test_numpy_integer_labels_save_as_the_fit_holds_them(tmp_path):
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(
        np.arange(8.0)[:, None], np.array([3, 5] * 4, dtype=np.int16)
    )
    back = _round_trip(fit, tmp_path)
    assert back.labels == fit.labels == [3, 5]
    assert [type(v) for v in back.labels] == [type(v) for v in fit.labels]


def test_a_value_json_cannot_hold_is_a_clear_error_at_save(tmp_path):
    X = pd.DataFrame({"c": [Fraction(1, 3), Fraction(1, 2)]})
    fit = bnb.NaiveBayes({"c": bnb.Categorical()}).fit(X, [0, 1])
    with pytest.raises(errors.InputTypeError, match=r"feature 'c'.*Fraction"):
        fit.save(tmp_path / "m.nc")


# -- import structure --------------------------------------------------------------------------


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _top_level_imports(module: str, path: Path, known: set) -> set:
    """The package modules ``module`` imports when it is imported: the imports at module
    level (inside ``if``/``try`` blocks too, but not ``if TYPE_CHECKING``), not those
    inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()

    def visit(body):
        for node in body:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in known)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in known:
                        found.add(sub)  # a submodule
                    elif base in known:
                        found.add(base)
            elif isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "TYPE_CHECKING" not in test:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.With | ast.ClassDef):
                visit(node.body)

    visit(tree.body)
    found.discard(module)
    return found


def _cycle(graph: dict) -> list | None:
    state, stack = {}, []

    def walk(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = walk(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = walk(node)
            if found:
                return found
    return None


def test_the_module_level_imports_have_no_cycle():
    modules = _modules()
    known = set(modules)
    graph = {m: _top_level_imports(m, p, known) for m, p in modules.items()}
    assert "bayesnb.model" in graph and "bayesnb.families.gaussian" in graph
    assert "bayesnb.mixture" not in graph["bayesnb.model"]
    assert "bayesnb.naive_bayes" not in graph["bayesnb.model"]
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def _import_alone(module: str) -> str | None:
    """None if ``module`` imports in a fresh interpreter, else the end of its error."""
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        timeout=300,
    )
    return None if done.returncode == 0 else done.stderr[-1500:]


def test_every_module_imports_on_its_own():
    # One fresh interpreter per module (each imports only that module), a few at once.
    modules = sorted(_modules())
    assert len(modules) >= 20
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        errors_ = dict(zip(modules, pool.map(_import_alone, modules), strict=True))
    failed = {m: e for m, e in errors_.items() if e is not None}
    assert not failed, failed


# -- the saved state of every family matches the schema load checks ---------------------------


def test_every_bound_family_keeps_exactly_the_state_load_checks():
    from bayesnb.model import _COMMON_STATE, FAMILY_STATE

    frame = pd.DataFrame(
        {
            "b": [True, False, True, False],
            "c": ["u", "v", "u", "w"],
            "g": [0.0, 1.0, 2.0, 4.0],
            "h": [0.5, 1.5, 2.5, 2.9],
            "m1": [1, 0, 2, 3],
            "m2": [0, 4, 1, 1],
            "v1": [0.3, 1.2, 2.0, 0.7],
            "v2": [1.1, 0.4, 0.9, 2.5],
            "t": [0.5, 2.0, 1.5, 3.0],
        }
    )
    fit = bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(),
            "c": bnb.Categorical(),
            "g": bnb.Gaussian(),
            "h": bnb.Binned([0.0, 1.0, 3.0]),
            "m": bnb.Multinomial(columns=["m1", "m2"]),
            "v": bnb.MultivariateGaussian(columns=["v1", "v2"]),
            "t": bnb.Gamma(),
        }
    ).fit(frame, [0, 1, 0, 1])
    assert {b.kind for b in fit.blocks} == set(FAMILY_STATE)
    for block in fit.blocks:
        assert set(vars(block)) == set(_COMMON_STATE) | set(FAMILY_STATE[block.kind]), block.kind


# -- paths and names in saved files ----------------------------------------------------------


def test_save_and_load_take_a_bytes_path(tmp_path):
    X = pd.DataFrame({"c": ["a", "a", "b", "b"]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1])
    path = os.fsencode(tmp_path / "model.nc")
    fit.save(path)
    # Laplace: P(a | 0) = (2 + 1) / (2 + 2); prior 1/2 each: posterior 3/4, 1/4
    assert bnb.load(path).predict_proba(X.iloc[[0]])[0].tolist() == pytest.approx([0.75, 0.25])


def test_a_model_with_an_empty_column_name_loads_again(tmp_path):
    X = pd.DataFrame({"": ["a", "a", "b", "b"], "x": [0.0, 1.0, 2.0, 3.0]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1])
    fit.save(tmp_path / "model.nc")
    back = bnb.load(tmp_path / "model.nc")
    np.testing.assert_allclose(back.params[""].values, [[0.75, 0.25], [0.25, 0.75]], rtol=1e-12)
    assert np.array_equal(back.predict_proba(X), fit.predict_proba(X))


def test_a_bare_import_does_not_import_the_heavy_optional_libraries():
    # scikit-learn (the wrappers, the text vectorizer, EM's ConvergenceWarning), PyMC,
    # ArviZ and numba are imported where a feature needs them.
    import subprocess
    import sys

    code = (
        "import sys, bayesnb; "
        "print(sorted(m for m in ('sklearn', 'pymc', 'arviz', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    from sklearn.exceptions import ConvergenceWarning

    import bayesnb.mixture

    assert bayesnb.mixture.ConvergenceWarning is ConvergenceWarning
