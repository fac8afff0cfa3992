"""Teaching aids of seed 003: the E-step's expected statistics, two ways.

EM needs the sufficient statistics the data would have if the hidden classes were
known, in expectation under the current parameters. Seed 003 computes them two ways:

* per instance (:func:`expected_statistics`): every row spreads its unit of weight over
  the components by its posterior :math:`P(C_i = k \\mid x_i)`; this is EM's E-step,
  linear in the number of rows;
* by brute force (:func:`enumerate_completions`): every completion of the classes,
  :math:`K^n` of them, weighted by its probability; exponential, and equal to the
  first because the rows are independent given the parameters.

:func:`seed_003_example` returns the slides' model, data and starting parameters.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb._lazy import special
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import Bernoulli
from bayesnb.mixture import MixtureFit, _problem_at
from bayesnb.model import FittedModel
from bayesnb.naive_bayes import NaiveBayes
from bayesnb.sufficient import merge_stats, scale_stats

__all__ = ["enumerate_completions", "expected_statistics", "seed_003_example"]


def seed_003_example() -> tuple[NaiveBayes, pd.DataFrame, xr.Dataset]:
    """Seed 003's worked example: the declaration, the data and the starting parameters.

    Returns
    -------
    model : NaiveBayes
        Two Bernoulli features, ``X1`` and ``X2`` (values ``False``/``True``), with the
        default Beta(1, 1) priors.
    data : DataFrame
        D = {FT, TT}: ``X1 = [False, True]`` and ``X2 = [True, True]``.
    start : Dataset
        In the layout of :attr:`bayesnb.mixture.MixtureFit.params`, components
        ``"F"`` and ``"T"``: :math:`\\theta_C = P(C = T) = 0.7`,
        :math:`\\theta_1 = P(X_1 \\mid C) = 0.9 / 0.3` and
        :math:`\\theta_2 = P(X_2 \\mid C) = 0.6 / 0.2` for T / F.

    Examples
    --------
    >>> model, D, start = seed_003_example()
    >>> start["X1"].sel(component="T").item(), start["class_prob"].sel(component="T").item()
    (0.9, 0.7)
    """
    model = NaiveBayes(
        {"X1": Bernoulli(values=(False, True)), "X2": Bernoulli(values=(False, True))}
    )
    data = pd.DataFrame({"X1": [False, True], "X2": [True, True]})
    start = xr.Dataset(
        {
            "class_prob": ("component", [0.3, 0.7]),
            "X1": ("component", [0.3, 0.9]),
            "X2": ("component", [0.2, 0.6]),
        },
        coords={"component": ["F", "T"]},
    )
    return model, data, start


def _checked_params(params):
    """``params`` when it is parameters or a fitted model, else a clear error."""
    if not isinstance(params, dict | xr.Dataset | FittedModel):
        raise InputTypeError(
            "params must be parameters in the layout of MixtureFit.params (an "
            "xarray.Dataset, or a dict with 'class_prob' and one entry per feature) or a "
            f"fitted model; got {type(params).__name__}."
        )
    return params


def _statistics_dataset(problem, state, stats, class_counts) -> xr.Dataset:
    """:attr:`MixtureFit.counts` of the mixture at ``state`` holding ``stats``."""
    return MixtureFit._at(problem, replace(state, stats=stats, class_counts=class_counts)).counts


def expected_statistics(model, X, params, *, feature_names=None) -> xr.Dataset:
    """The E-step's expected sufficient statistics, one instance at a time.

    Parameters
    ----------
    model : NaiveBayes
        The declaration.
    X : DataFrame, ndarray or sparse matrix
    params : Dataset, dict or fitted model
        Parameters in the layout of :attr:`bayesnb.mixture.MixtureFit.params`
        (``class_prob`` and one entry per feature; a ``component`` coordinate names
        the components).
    feature_names : list, optional
        Column names for an array ``X``.

    Returns
    -------
    Dataset
        In the layout of :attr:`bayesnb.mixture.MixtureFit.counts`: ``class_count``
        is :math:`E[N_k] = \\sum_i P(C_i = k \\mid x_i)` and every count is
        :math:`E[N_{kjv}] = \\sum_{i: x_{ij} = v} P(C_i = k \\mid x_i)`.

    Examples
    --------
    Seed 003's E-step from :math:`\\theta_C = 0.7`, :math:`\\theta_1 = 0.9/0.3`,
    :math:`\\theta_2 = 0.6/0.2` on D = {FT, TT}:

    >>> model, D, start = seed_003_example()
    >>> stats = expected_statistics(model, D, start)
    >>> stats["class_count"].values                      # E[N_F], E[N_T] = 6/11, 16/11
    array([0.54545455, 1.45454545])
    >>> stats["X1"].sel(X1_category=True).values         # E[N_1,T^F], E[N_1,T^T]
    array([0.04545455, 0.95454545])
    """
    problem, state = _problem_at(model, X, _checked_params(params), feature_names)
    sweep = problem.sweep(state)
    return _statistics_dataset(problem, state, sweep.stats, sweep.class_counts)


def enumerate_completions(model, X, params, *, max_completions: int = 100_000, feature_names=None):
    """Expected statistics by brute force: every completion of the hidden classes.

    A completion assigns a component to every row; there are :math:`K^n` of them
    (the "exponential" slide of seed 003). Each has probability
    :math:`\\prod_i P(c_i)\\, p(x_i \\mid c_i)`, normalized over completions, and its
    own complete-data statistics; their expectation equals the per-instance E-step
    of :func:`expected_statistics`.

    Parameters
    ----------
    model, X, params, feature_names
        As for :func:`expected_statistics`.
    max_completions : int, default 100000
        Refuse to enumerate more completions than this.

    Returns
    -------
    completions : DataFrame
        One row per completion: the component of every row of ``X``, ``joint``
        (unnormalized probability) and ``probability``.
    statistics : Dataset
        The expected statistics, in the layout of :func:`expected_statistics`.

    Examples
    --------
    >>> model, D, start = seed_003_example()
    >>> completions, stats = enumerate_completions(model, D, start)
    >>> completions
       0  1     joint  probability
    0  F  F  0.000756     0.022727
    1  F  T  0.015876     0.477273
    2  T  F  0.000756     0.022727
    3  T  T  0.015876     0.477273
    """
    if isinstance(max_completions, bool | np.bool_) or not isinstance(
        max_completions, int | np.integer
    ):
        raise InputTypeError(
            f"max_completions must be an int >= 1; got {max_completions!r} "
            f"({type(max_completions).__name__})."
        )
    problem, state = _problem_at(model, X, _checked_params(params), feature_names)
    K, n = problem.K, problem.n
    if K**n > max_completions:
        raise InputError(
            f"{K}^{n} = {K**n} completions exceed max_completions={max_completions}; the "
            "brute force is exponential in the number of rows. Use a few rows, or "
            "expected_statistics for the per-instance E-step."
        )
    logj = problem.joint(state)  # (K, n)
    rows = np.arange(n)
    assignments = np.array(list(itertools.product(range(K), repeat=n)), dtype=np.intp)
    log_joint = logj[assignments, rows].sum(axis=1)
    prob = np.exp(log_joint - special.logsumexp(log_joint))
    totals: list[dict | None] = [None] * len(problem.blocks)
    class_counts = np.zeros(K)
    for z, p in zip(assignments, prob, strict=True):
        onehot = np.zeros((n, K))
        onehot[rows, z] = 1.0
        class_counts += p * onehot.sum(axis=0)
        for i, (block, enc) in enumerate(zip(problem.blocks, problem.encoded, strict=True)):
            weighted = scale_stats(block.count(enc, onehot), p)
            totals[i] = weighted if totals[i] is None else merge_stats(totals[i], weighted)
    completions = pd.DataFrame(np.asarray(problem.labels, dtype=object)[assignments])
    if problem.table.is_frame:
        completions.columns = list(problem.table.data.index)
    completions["joint"] = np.exp(log_joint)
    completions["probability"] = prob
    return completions, _statistics_dataset(problem, state, totals, class_counts)
