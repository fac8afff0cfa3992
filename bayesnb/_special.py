"""Special functions the package needs more accurately than their textbook forms give.

:func:`log_rising` is :math:`\\ln\\Gamma(a + n) - \\ln\\Gamma(a)`, the term of every
Dirichlet-multinomial, Student-t and Normal-Inverse-Gamma normalizer. Written as that
difference it loses all precision once ``a`` is large: the two log-gammas are near
:math:`a \\ln a` while their difference is near :math:`n \\ln a`, so at
:math:`a = 10^{15}` (a class of that much weight) the difference is off by whole nats.
"""

from __future__ import annotations

import numpy as np

from bayesnb._lazy import special

#: From this ``a`` on, the difference of Stirling's series (with the terms below) is
#: exact to the last bits: the first term left out is below 1e-17 there.
_STIRLING_FROM = 15.0
#: Stirling's series for ln Gamma: the coefficients B_2k / (2k (2k - 1)) of z^(1 - 2k).
_STIRLING = (
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
)


def log_rising(a, n) -> np.ndarray:
    r""":math:`\ln\Gamma(a + n) - \ln\Gamma(a)` for ``a > 0`` and ``n >= 0``
    (broadcast), to within a few units of the last place of the result's size.

    For integer ``n`` it is the log of the rising factorial
    :math:`a (a + 1) \cdots (a + n - 1)`. Below ``a = 15`` the log-gammas are small and
    their difference is taken as it is; from there on it is the difference of
    Stirling's series at ``a + n`` and ``a``, arranged so that nothing large cancels:
    :math:`(a - \tfrac12)\,\mathrm{log1p}(n/a) + n \ln(a + n) - n` plus the series'
    differences.

    Examples
    --------
    >>> import math
    >>> from bayesnb._special import log_rising
    >>> float(log_rising(1e15, 3)) - math.log(1e15 * (1e15 + 1) * (1e15 + 2))
    0.0
    """
    a, n = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(n, dtype=float))
    out = np.empty(a.shape)
    small = a < _STIRLING_FROM
    if small.any():
        out[small] = special.gammaln(a[small] + n[small]) - special.gammaln(a[small])
    large = ~small
    if large.any():
        x, m = a[large], n[large]
        z = x + m
        value = (x - 0.5) * np.log1p(m / x) + m * np.log(z) - m
        # the series' terms c_k (z^(1-2k) - x^(1-2k)), from their powers of 1/z and 1/x
        pz, px = 1.0 / z, 1.0 / x
        inv_z2, inv_x2 = pz * pz, px * px  # (not 1 / z**2, which overflows past 1e154)
        for c in _STIRLING:
            value += c * (pz - px)
            pz, px = pz * inv_z2, px * inv_x2
        out[large] = value
    return out if out.ndim else out[()]


def log_dirichlet_evidence(alpha, counts, segments=None) -> np.ndarray:
    r"""The log evidence of categorical draws with ``counts`` under Dirichlet(``alpha``),
    without the multinomial coefficient, one value per Dirichlet:

    .. math::
        \ln\Gamma(A) - \ln\Gamma(A + N) + \sum_v [\ln\Gamma(\alpha_v + n_v)
        - \ln\Gamma(\alpha_v)], \qquad A = \sum_v \alpha_v,\ N = \sum_v n_v.

    ``alpha`` and ``counts`` broadcast together; the categories are the last axis, or,
    given ``segments`` (the starts of several variables laid side by side on the
    flattened axes after the first), each variable's part of it. Returns the leading
    shape, or (rows, variables) with ``segments``.

    Written as :math:`\sum_v L(\alpha_v, n_v) - L(A, N)`, with :math:`L` the
    :func:`log_rising` of each, it loses all precision when one count holds nearly
    all the weight: counts (3, 1e15) under Dirichlet(1, 1) have terms near 3.5e16 whose
    difference is -136.36, lost to the last bits of the terms. Let :math:`j` be the
    category of the largest :math:`\alpha_j + n_j` and :math:`r, m` the others' sums
    of concentrations and counts. Then the same value is

    .. math::
        \sum_{v \ne j} L(\alpha_v, n_v) + L(\alpha_j, r) - L(\alpha_j + n_j, r + m),

    whose last two terms are of the size of the others' share only. Each variable
    takes the form whose two varying terms are the smaller, so that a large
    concentration over few counts (where the pairing would carry ``r`` large) keeps
    the first form. The error is then a few units in the last place of the larger
    of those terms: for ordinary concentrations, of the value itself, whatever the
    counts. One case is left: a category whose concentration is itself huge (in the
    millions or more) and holds nearly all the weight keeps terms far larger than
    the value in both forms, and an absolute error of a few units in their last
    place.

    Examples
    --------
    >>> import math
    >>> exact = math.log(6) - math.log((10**15 + 1) * (10**15 + 2) * (10**15 + 3) * (10**15 + 4))
    >>> got = float(log_dirichlet_evidence([1.0, 1.0], [3.0, 1e15]))
    >>> round(got, 10), abs(got - exact) < 1e-12
    (-136.3633461104, True)
    """
    alpha, counts = np.broadcast_arrays(np.asarray(alpha, dtype=float), np.asarray(counts, float))
    if segments is None:
        lead = counts.shape[:-1]
        width = counts.shape[-1]
        starts = np.zeros(1, dtype=np.intp)
    else:
        lead = None
        width = int(np.prod(counts.shape[1:]))
        starts = np.asarray(segments, dtype=np.intp).ravel()
    a = alpha.reshape(-1, width)
    n = counts.reshape(-1, width)
    sizes = np.diff(np.append(starts, width))
    variable = np.repeat(np.arange(len(starts)), sizes)  # each column's variable

    def total(values):
        return np.add.reduceat(values, starts, axis=1)

    # the first category of every variable with the largest alpha + n
    key = a + n
    top = np.maximum.reduceat(key, starts, axis=1)[:, variable] == key
    cols = np.arange(width)
    first = np.minimum.reduceat(np.where(top, cols, width), starts, axis=1)
    is_j = cols == first[:, variable]

    each = log_rising(a, n)
    others = total(np.where(is_j, 0.0, each))
    own_j = total(np.where(is_j, each, 0.0))  # L(alpha_j, n_j)
    whole = log_rising(total(a), total(n))  # L(A, N)
    a_j = total(np.where(is_j, a, 0.0))
    n_j = total(np.where(is_j, n, 0.0))
    r = total(np.where(is_j, 0.0, a))
    m = total(np.where(is_j, 0.0, n))
    out = others + _dominant_pair(own_j, whole, a_j, n_j, r, m)
    return out.reshape(lead) if lead is not None else out


def _dominant_pair(own_j, whole, a_j, n_j, r, m) -> np.ndarray:
    """:math:`L(\\alpha_j, n_j) - L(A, N)` for the category ``j`` of concentration
    ``a_j`` and count ``n_j``, the others' being ``r`` and ``m`` in all
    (:func:`log_dirichlet_evidence`): as given (``own_j - whole``), or as
    :math:`L(\\alpha_j, r) - L(\\alpha_j + n_j, r + m)`, whichever has the smaller
    terms."""
    head = log_rising(a_j, r)  # ln Gamma(A) - ln Gamma(alpha_j)
    tail = log_rising(a_j + n_j, r + m)  # ln Gamma(A + N) - ln Gamma(alpha_j + n_j)
    paired = np.abs(head) + np.abs(tail) < np.abs(own_j) + np.abs(whole)
    return np.where(paired, head - tail, own_j - whole)


def log_dirichlet_evidence_rows(alpha, x) -> np.ndarray:
    """:func:`log_dirichlet_evidence` of every row of the sparse counts ``x`` (n, V)
    under every row of ``alpha`` (K, V): (n, K), the words a row does not hold adding
    nothing but their concentrations. A row's dominant category is its stored word of
    the largest count (the first of them); a row without counts has evidence 0.

    Examples
    --------
    >>> import math
    >>> from scipy import sparse
    >>> x = sparse.csr_array([[3.0, 1e15, 0.0], [0.0, 0.0, 0.0]])
    >>> got = log_dirichlet_evidence_rows([[1.0, 1.0, 1.0]], x)
    >>> exact = math.log(2 * 6) - math.log(
    ...     (10**15 + 1) * (10**15 + 2) * (10**15 + 3) * (10**15 + 4) * (10**15 + 5)
    ... )
    >>> abs(float(got[0, 0]) - exact) < 1e-12, float(got[1, 0])
    (True, 0.0)
    """
    from scipy import sparse

    alpha = np.atleast_2d(np.asarray(alpha, dtype=float))
    x = sparse.csr_array(x, dtype=float, copy=True)
    x.sum_duplicates()  # one entry per word of a row: L(a, n1) + L(a, n2) is not L(a, n)
    n = x.shape[0]
    out = np.zeros((n, alpha.shape[0]))
    held = np.flatnonzero(np.diff(x.indptr))  # the rows with stored counts
    if not len(held):
        return out
    rows = np.repeat(np.arange(n), np.diff(x.indptr))
    starts = x.indptr[held]
    # every held row's first stored word of its largest count
    top = np.maximum.reduceat(x.data, starts)[np.searchsorted(held, rows)]
    at = np.where(x.data == top, np.arange(len(x.data)), len(x.data))
    last = np.minimum.reduceat(at, starts)
    n_j = x.data[last]
    others_n = x.data.copy()
    others_n[last] = 0.0
    m = np.bincount(rows, weights=others_n, minlength=n)[held]  # the others' counts
    lengths = np.bincount(rows, weights=x.data, minlength=n)[held]
    for k, a in enumerate(alpha):
        a_w = a[x.indices]
        each = log_rising(a_w, x.data)
        own_j = each[last]
        each[last] = 0.0  # the others' sums without it: nothing large subtracted
        others = np.bincount(rows, weights=each, minlength=n)[held]
        total = a.sum()
        a_j = a_w[last]
        pair = _dominant_pair(own_j, log_rising(total, lengths), a_j, n_j, total - a_j, m)
        out[held, k] = others + pair
    return out
