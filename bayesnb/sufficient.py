"""Merging sufficient statistics computed on separate sets of rows.

A family's ``count(enc, resp)`` returns the statistics of the rows it was given,
weighted by ``resp``. Statistics of disjoint sets of rows combine into those of
their union, so the rows can be counted block by block (EM's cache-sized sweep), or
partition by partition on several machines, and reduced at the end:

* counts (Bernoulli, Categorical, Binned, Multinomial) add, and so do the sums of a
  Gamma (count, sum, sum of logarithms);
* Gaussian statistics, the weighted count ``n``, mean and sum of squared deviations
  ``ss``, combine by the pairwise update of Chan, Golub and LeVeque, which never
  subtracts two large sums of squares; a multivariate Gaussian's scatter matrix
  ``scatter`` (or its diagonal) by the same update with the outer product of the
  means' difference.

The merge is associative and commutative up to round-off, which is what a tree
reduction over partitions needs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["merge_stats", "pool_stats", "scale_stats"]

_GAUSSIAN = frozenset({"n", "mean", "ss"})
_MULTIVARIATE = frozenset({"n", "mean", "scatter"})
#: Statistics that are plain weighted sums (a Gamma's: count, sum and sum of logs).
_SUMS = frozenset({"n", "sum", "sum_log"})


def _kind(stats: dict) -> str:
    keys = set(stats)
    if keys == {"counts"}:
        return "counts"
    if keys == _GAUSSIAN:
        return "gaussian"
    if keys == _MULTIVARIATE:
        return "multivariate"
    if keys == _SUMS:
        return "sums"
    raise TypeError(
        "stats must be a family's sufficient statistics: {'counts'}, {'n', 'mean', 'ss'}, "
        "{'n', 'mean', 'scatter'} or {'n', 'sum', 'sum_log'}; "
        f"got the keys {sorted(keys)!r}. Pass the dict returned by the family's count()."
    )


def merge_stats(a: dict, b: dict) -> dict:
    """The statistics of two disjoint sets of rows taken together.

    Parameters
    ----------
    a, b : dict
        Statistics of the same family (the dicts returned by ``count``), with the
        same shapes.

    Returns
    -------
    dict
        New arrays; ``a`` and ``b`` are not modified.

    Notes
    -----
    Counts add. For Gaussian statistics, with :math:`n = n_a + n_b` and
    :math:`\\delta = \\bar x_b - \\bar x_a`,

    .. math:: \\bar x = \\bar x_a + \\delta\\, n_b / n, \\qquad
              SS = SS_a + SS_b + \\delta^2\\, n_a n_b / n.

    Where one side has no weight (:math:`n_a = 0` or :math:`n_b = 0`) the other side's
    statistics are taken as they are.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> def stats(v):
    ...     return {"n": np.array([len(v)]), "mean": np.array([v.mean()]),
    ...             "ss": np.array([((v - v.mean()) ** 2).sum()])}
    >>> both = merge_stats(stats(x[:1]), stats(x[1:]))
    >>> both["n"], both["mean"], both["ss"]
    (array([4.]), array([3.5]), array([21.]))
    """
    kind = _kind(a)
    if _kind(b) != kind:
        raise TypeError("merge_stats needs statistics of the same family; got counts and moments.")
    if kind == "counts":
        return {"counts": np.add(a["counts"], b["counts"])}
    if kind == "sums":
        return {key: np.add(a[key], b[key]) for key in _SUMS}
    na, nb = np.asarray(a["n"], dtype=float), np.asarray(b["n"], dtype=float)
    ma, mb = np.asarray(a["mean"], dtype=float), np.asarray(b["mean"], dtype=float)
    if kind == "multivariate":  # n (K,), mean (K, d): a count per component
        na, nb = na[:, None], nb[:, None]
    n = na + nb
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, nb / n, 0.0)  # n_b / n
    delta = mb - ma
    mean = np.where(na == 0, mb, np.where(nb == 0, ma, ma + delta * share))
    # delta sqrt(n_a n_b / n), squared: no overflow of delta^2 where the weights
    # would bring the product back below the largest float
    scaled = delta * np.sqrt(na * share)
    if kind == "multivariate":
        sa, sb = np.asarray(a["scatter"], dtype=float), np.asarray(b["scatter"], dtype=float)
        # (a diagonal covariance keeps the diagonal alone)
        cross = scaled[:, :, None] * scaled[:, None, :] if sa.ndim == 3 else scaled * scaled
        return {"n": n[:, 0], "mean": mean, "scatter": sa + sb + cross}
    ss = np.add(a["ss"], b["ss"]) + scaled * scaled
    return {"n": n, "mean": mean, "ss": ss}


def scale_stats(stats: dict, weight: float) -> dict:
    """The statistics with every row's weight multiplied by ``weight`` (>= 0).

    Counts, ``n`` and ``ss`` scale; the mean does not. Together with
    :func:`merge_stats` this forms weighted sums of statistics, such as an
    expectation over completions of the hidden classes.

    Examples
    --------
    >>> import numpy as np
    >>> scale_stats({"counts": np.array([[2.0, 3.0]])}, 0.5)
    {'counts': array([[1. , 1.5]])}
    """
    if not np.isfinite(weight) or weight < 0:
        raise ValueError(f"weight must be a finite number >= 0; got {weight!r}.")
    kind = _kind(stats)
    if kind == "counts":
        return {"counts": stats["counts"] * weight}
    if kind == "sums":
        return {key: stats[key] * weight for key in _SUMS}
    if kind == "multivariate":
        return {
            "n": stats["n"] * weight,
            "mean": np.array(stats["mean"], dtype=float),
            "scatter": stats["scatter"] * weight,
        }
    return {
        "n": stats["n"] * weight,
        "mean": np.array(stats["mean"], dtype=float),
        "ss": stats["ss"] * weight,
    }


def pool_stats(stats: dict) -> dict:
    """Merge the statistics over their first (component) axis, keeping it with size 1.

    The statistics of every row whatever its component: the whole data's.

    Examples
    --------
    >>> import numpy as np
    >>> pooled = pool_stats({"n": np.array([[1.0], [3.0]]), "mean": np.array([[1.0], [13 / 3]]),
    ...                      "ss": np.array([[0.0], [38 / 3]])})
    >>> pooled["n"], pooled["mean"], pooled["ss"]
    (array([[4.]]), array([[3.5]]), array([[21.]]))
    """
    _kind(stats)
    first = next(iter(stats.values()))
    out = {key: value[:1] for key, value in stats.items()}
    for k in range(1, np.shape(first)[0]):
        out = merge_stats(out, {key: value[k : k + 1] for key, value in stats.items()})
    return {key: np.array(value, dtype=float) for key, value in out.items()}
