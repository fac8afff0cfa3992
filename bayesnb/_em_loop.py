"""EM in compiled code: the whole loop of :meth:`bayesnb.mixture._Problem.run`, E-step,
expected statistics, M-step, objective, SQUAREM cycles, the monotonicity check and
the stopping rule, with no Python between iterations.

The engine's Python loop (:mod:`bayesnb.mixture`) calls every family's kernels once per
sweep, which costs about 0.2 ms per iteration whatever the data's size: on the small
data sets latent-class work runs with many restarts, that is the whole cost. Here a
family supplies its compiled pieces instead (:meth:`bayesnb.families.Family.em_kernel`)
and the loop runs over them all, Python touching it only at the start and the end.

Four kinds of block take part, each gathered over every block of its kind:

* **discrete blocks** (Bernoulli, Categorical, Binned) as group codes (see
  :mod:`bayesnb._compiled`): one table of summed log-probabilities per group, read once
  per row and component in the E-step, and one weighted histogram per group in the
  same pass, whose margins are the expected counts. Their parameters lie flat,
  ``logp`` (K, S), every column's categories at ``segments[j]``;
* **word counts** (Multinomial blocks) as one CSR matrix of every block's counts,
  their words laid after the discrete categories on ``logp``, each block one variable:
  a row adds its counts times a table of the words' log-probabilities (words by
  components) in the E-step, and its counts times its weighted responsibilities to
  a histogram of the same shape, which is the words' expected counts;
* **diagonal Gaussian blocks** as one dense matrix stored column by column (d, n), so
  that every sum over rows runs along contiguous memory; a missing value (NaN) is
  left out of both steps. The M-step is the Normal-Inverse-Gamma mode (MAP-EM);
* **multivariate Gaussian blocks** (``MultivariateGaussian``, every covariance type)
  as their centred values column by column, scored through Cholesky factors, their
  statistics the weighted cross-products about the swept means, the M-step the
  Normal-Inverse-Wishart mode (MAP-EM). A problem without such a block passes ``mv``
  None, a type the compiler prunes, so their code is compiled only where it runs.

Discrete data that can show few distinct rows (at most half as many patterns as
rows) is read once per pattern, with the rows' summed weight. The E-step's
exponentials come from :func:`exp_in_place`, which the compiler vectorizes.

The loop is compiled once (about 30 s, then cached) for every problem without
multivariate blocks, and once more for those with them: its data has one type
whatever the input's (16-bit group codes laid out groups first, every array a
read-only view; :func:`_codes_dtype`, :func:`bayesnb._compiled.read_only_arrays`),
and the slots it passes between its functions are NumPy integers, not literals, each
of which would compile the callee again.

Every formula is the Python engine's, term for term (the estimates of
:meth:`bayesnb.priors.Dirichlet.point_estimate` and
:meth:`bayesnb.priors.NormalInverseGamma.point_estimate`, the priors' log densities,
the SQUAREM step of :func:`bayesnb.mixture._extrapolate`, and the stopping rules of
:func:`bayesnb.mixture._converged` and :func:`bayesnb.mixture._converged_cycle`), so
the two give the same histories to round-off. The loop stops at anything irregular
(a row of likelihood 0, an M-step without an estimate, a decrease of the objective)
and reports it; the caller then runs the Python engine, which raises the error the
user would get.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from bayesnb import _compiled
from bayesnb._compiled import _jit
from bayesnb._lazy import special
from bayesnb.families.multivariate import COVARIANCES, DIAGONAL_COVARIANCES

#: Rows of a block of the sweep: its scores (components, rows), responsibilities and
#: Gaussian columns stay in cache while the block is scored and counted. The same for
#: every batch of restarts, so that a restart's sums add in the same order in any batch.
_ROWS = 512

#: Components of the words' table summed in registers (:func:`_word_scores`): a
#: narrower batch's table is padded to this width.
_NARROW = 8

#: Rows per code of a discrete block's tables: every iteration rebuilds its tables,
#: zeroes its histogram and sums its margins, so the groups of a small data set are
#: kept to fewer codes than it has rows (a few per row would make them the cost).
ROWS_PER_CODE = 4

#: Outcomes of :func:`em_run` (``info[3]``).
CONVERGED, MAX_ITER, IRREGULAR = (np.int64(outcome) for outcome in range(3))

#: Cycles over which accelerated EM takes the largest observed rate of the EM map, and
#: the factor by which SQUAREM's bound on the step length grows (and shrinks); the
#: Python engine (:mod:`bayesnb.mixture`) takes both from here.
_RATE_WINDOW = 6
_STEP_FACTOR = 4.0

#: A SQUAREM cycle whose first EM step gains at most this many units in the last place
#: of the objective started at an EM fixed point: such a gain is the round-off of
#: evaluating the objective at parameters estimated twice (a start estimated in
#: Python, the step in the compiled loop), not a move. Near a saddle EM's first gains
#: are small but real (1e-9 and more on a few hundred rows), far above this.
_FIXED_POINT_ULPS = 4.0

_LOG_2PI = math.log(2.0 * math.pi)


# -- exp, vectorized ------------------------------------------------------------------

#: ln 2 split in two (Cody and Waite): ``k * _LN2_HI`` is exact for |k| < 2^11.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.44269504088896338700e00
#: Below this, exp(x) is subnormal (< 2.2e-308); it is taken as 0.
_EXP_FLOOR = -708.0


@_jit
def exp_in_place(values, bits):
    """``values[i] = exp(values[i])``, within one unit in the last place of libm's,
    in loops the compiler vectorizes (libm's exp is a call per value, the E-step's
    largest cost). ``x = k ln 2 + r`` with ``|r| <= ln(2)/2`` (ln 2 in two parts, so
    ``x - k ln 2`` is exact), ``exp(r)`` by its Taylor series to ``r^13/13!``
    (truncation below 4e-18 relative), and ``2^k`` made from its exponent bits in
    ``bits`` (int64 scratch, at least as long as ``values``). An ``x`` below
    ``_EXP_FLOOR`` (a subnormal result, or -inf) gives 0."""
    n = len(values)
    for i in range(n):
        x = max(values[i], _EXP_FLOOR)
        k = math.floor(x * _LOG2E + 0.5)
        r = (x - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        bits[i] = (np.int64(k) + 1023) << 52
        values[i] = p if values[i] >= _EXP_FLOOR else 0.0
    scale = bits[:n].view(np.float64)
    for i in range(n):
        values[i] *= scale[i]


# -- one sweep: the E-step and the expected statistics --------------------------------


@_compiled._reassociated
def em_sweep(
    data, mv, scratch, n_comp, clp, logp, mu, var, mv_mu, mv_cov, resp, row_ll, totals, bad
):
    """The E-step of a batch of restarts and its expected statistics, in one pass.

    ``clp`` (B K,), ``logp`` (B K, S), ``mu`` and ``var`` (B K, d) hold the ``B``
    restarts' parameters side by side, ``n_comp`` (K) rows each, so that every read
    of a row serves them all; ``mv_mu`` (B K, D) and ``mv_cov`` (B K, Q) those of the
    multivariate Gaussian blocks. Fills the statistics of :func:`em_run`'s scratch, B K
    components wide: the groups' histogram ``hist`` (codes, B K), the Gaussian sums
    ``g_n``, ``g_s1``, ``g_s2`` (B K, d) of the weights, deviations from ``mu`` and
    squared deviations, the multivariate blocks' sums ``m_s1`` and ``m_cross``
    (:func:`em_mvn_sums`), and ``class_counts`` (B K,). Each restart's log-likelihood
    goes to ``totals`` (B,), and ``bad`` (B,) gets -1, or the restart's first row of
    likelihood 0 under every component (its statistics are then undefined). A batch
    of one also fills ``resp`` (K, n) and ``row_ll`` (2, n); larger batches leave
    them. ``data`` is :attr:`CompiledProblem.data`, its Gaussian values column by
    column, ``xt`` (d, n), so every sum runs along contiguous memory.
    """
    codes, offsets, bounds, sizes, segments, xt, weights, known, unit = data[:9]
    w_ptr, w_idx, w_val, w_start, n_words = data[9:]
    table, hist, g_n, g_s1, g_s2, class_counts, scores, inv_sd, const = scratch[:9]
    tops, lls, accs, bits, byrow, no_labels, products, factors = scratch[9:17]
    m_chol, m_const, m_centre, m_s1, m_cross, m_z = scratch[17:23]
    w_table, w_hist = scratch[23:]
    width = clp.shape[0]
    n_batch = width // n_comp
    write = n_batch == 1
    d, n = xt.shape
    rows = scores.shape[1]
    no_weights = np.empty(0)  # (the histogram's rows all soft: ``no_labels`` -1)
    n_groups = codes.shape[0]
    if n_groups:
        _compiled.group_tables(logp, offsets, bounds, sizes, segments, table)
        hist[:] = 0.0
    for c in range(n_words):  # every word's log-probabilities, components side by side
        for k in range(width):
            w_table[c, k] = logp[k, w_start + c]
        for k in range(width, w_table.shape[1]):  # (a narrow table's padding)
            w_table[c, k] = 0.0
    w_hist[:] = 0.0
    tabled = n_groups > 0 or n_words > 0  # scores summed row by row in ``byrow``
    for k in range(width):
        for j in range(d):
            inv_sd[k, j] = 1.0 / math.sqrt(var[k, j])
            const[k, j] = -0.5 * (math.log(var[k, j]) + _LOG_2PI)
    g_n[:] = 0.0
    g_s1[:] = 0.0
    g_s2[:] = 0.0
    class_counts[:] = 0.0
    for b in range(n_batch):
        totals[b], bad[b], products[b], factors[b] = 0.0, -1, 1.0, 0
    if mv is not None:
        _mvn_prepare(mv[0], mv_mu, mv_cov, n_comp, m_chol, m_const, m_centre, bad, False)
        m_s1[:] = 0.0
        m_cross[:] = 0.0
    chunk = int(600.0 / math.log(n_comp)) if n_comp > 1 else n + 1
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        m = stop - start
        if tabled:  # each row reads B K adjacent entries per group: summed row by row
            byrow[:m] = 0.0
            for g in range(n_groups):
                _compiled._lookup_codes(codes[g, start:stop], offsets[g], m, table, byrow)
            if n_words:  # and per word it holds, times its count
                _word_scores(w_ptr, w_idx, w_val, start, m, w_table, byrow)
        for k in range(width):
            c = clp[k]
            for r in range(m):
                scores[k, r] = c + byrow[r, k] if tabled else c
        if d:
            for k in range(width):
                s = scores[k]
                for j in range(d):
                    c, mean, w = const[k, j], mu[k, j], inv_sd[k, j]
                    col = xt[j][start:stop]
                    for r in range(m):
                        v = col[r]
                        z = (v - mean) * w
                        s[r] += c - 0.5 * z * z if v == v else 0.0
        if mv is not None:
            em_mvn_scores(mv[0], m_chol, m_const, m_centre, start, m, m_z, scores)
        for b in range(n_batch):
            base = b * n_comp
            # normalize: responsibilities and every row's log-likelihood (a known
            # row's: its component's joint), by a log-sum-exp over the components,
            # every step along the block's rows
            for r in range(m):
                tops[r] = scores[base, r]
            for k in range(1, n_comp):
                s = scores[base + k]
                for r in range(m):
                    tops[r] = max(tops[r], s[r])
            for r in range(m):
                if not math.isfinite(tops[r]):
                    if bad[b] < 0:
                        bad[b] = start + r
                    tops[r] = 0.0  # the restart's sums go undefined; the others' go on
                lls[r] = tops[r]
            if len(known):
                for r in range(m):
                    label = known[start + r]
                    if label >= 0:
                        lls[r] = scores[base + label, r]
            for r in range(m):
                accs[r] = 0.0
            for k in range(n_comp):
                s = scores[base + k]
                for r in range(m):
                    s[r] -= tops[r]
                exp_in_place(s[:m], bits)
                for r in range(m):
                    accs[r] += s[r]
            if len(known):  # a known row: all its weight on its component
                for r in range(m):
                    label = known[start + r]
                    if label >= 0:
                        accs[r] = 1.0
                        for k in range(n_comp):
                            scores[base + k, r] = 1.0 if k == label else 0.0
            for k in range(n_comp):
                s = scores[base + k]
                for r in range(m):
                    s[r] /= accs[r]
            if write:
                for k in range(n_comp):
                    s, out = scores[k], resp[k]
                    for r in range(m):
                        out[start + r] = s[r]
                for r in range(m):
                    row_ll[0, start + r], row_ll[1, start + r] = lls[r], accs[r]
            # A row's log-likelihood is top + log(acc), acc in [1, K]: kept as the
            # pair (``row_ll[0]``, ``row_ll[1]``), whose logarithms the caller takes
            # once at the end. Unit weights sum the logarithms as the logarithm of
            # products of up to ``chunk`` factors (below K^chunk < 1e260), one libm
            # call per chunk.
            total = totals[b]
            w = weights[start:stop]
            if unit:
                for r in range(m):
                    total += lls[r]
                product, factor = products[b], factors[b]
                r = 0
                while r < m:
                    take = min(chunk - factor, m - r)
                    for q in range(r, r + take):
                        product *= accs[q]
                    factor += take
                    r += take
                    if factor == chunk:
                        total += math.log(product)
                        product, factor = 1.0, 0
                products[b], factors[b] = product, factor
            else:
                for r in range(m):
                    total += w[r] * (lls[r] + math.log(accs[r]))
                for k in range(n_comp):
                    s = scores[base + k]
                    for r in range(m):
                        s[r] *= w[r]
            totals[b] = total
        # the expected statistics of the block, while it is in cache
        for k in range(width):
            acc = 0.0
            for r in range(m):
                acc += scores[k, r]
            class_counts[k] += acc
        if tabled:
            for r in range(m):
                for k in range(width):
                    byrow[r, k] = scores[k, r]
            for g in range(n_groups):
                _compiled._count_codes(
                    codes[g, start:stop], offsets[g], m, no_labels, no_weights, byrow, hist
                )
            if n_words:
                _word_counts(w_ptr, w_idx, w_val, start, m, byrow, w_hist)
        for k in range(width):
            for j in range(d):  # deviations from the swept means, a missing value left out
                s0, s1, s2 = _compiled._column_sums(xt[j][start:stop], scores[k], m, mu[k, j], True)
                g_n[k, j] += s0
                g_s1[k, j] += s1
                g_s2[k, j] += s2
        if mv is not None:
            em_mvn_sums(mv[0], m_centre, start, m, scores, m_z, m_s1, m_cross)
    for b in range(n_batch):
        totals[b] += math.log(products[b])


@_compiled._in_order
def _word_scores(ptr, idx, val, start, m, table, acc):
    """Add ``count * table[word]`` (one entry per component, adjacent) to ``acc[r]``
    for every word of the block's ``m`` rows from ``start`` on (CSR ``ptr``, ``idx``,
    ``val``). A stored count of 0 adds nothing, even where the word's log-probability
    is -inf.

    A table :data:`_NARROW` columns wide (a narrower one padded with zeros) is summed
    in that many scalars, which stay in registers: 1.5 times as fast as a loop over
    a width the compiler does not know. Compiled apart from :func:`em_sweep`, without
    its reassociation: allowed to reorder these sums, the compiler gathers one
    component's entries of several words at once, which takes three times as long."""
    width = acc.shape[1]
    if table.shape[1] == _NARROW:
        for r in range(m):
            a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
            for j in range(ptr[start + r], ptr[start + r + 1]):
                v = val[j]
                if v != 0.0:
                    c = idx[j]
                    a0 += v * table[c, 0]
                    a1 += v * table[c, 1]
                    a2 += v * table[c, 2]
                    a3 += v * table[c, 3]
                    a4 += v * table[c, 4]
                    a5 += v * table[c, 5]
                    a6 += v * table[c, 6]
                    a7 += v * table[c, 7]
            sums = (a0, a1, a2, a3, a4, a5, a6, a7)
            for k in range(width):
                acc[r, k] += sums[k]
        return
    for r in range(m):
        for j in range(ptr[start + r], ptr[start + r + 1]):
            v = val[j]
            if v != 0.0:
                c = idx[j]
                for k in range(width):
                    acc[r, k] += v * table[c, k]


@_compiled._inline
def _word_counts(ptr, idx, val, start, m, soft, hist):
    """Add ``count * soft[r]`` to ``hist[word]`` for every word of the block's ``m``
    rows from ``start`` on: the words' expected counts by component."""
    for r in range(m):
        for j in range(ptr[start + r], ptr[start + r + 1]):
            v = val[j]
            if v != 0.0:
                c = idx[j]
                for k in range(hist.shape[1]):
                    hist[c, k] += v * soft[r, k]


# -- the M-step -------------------------------------------------------------------------


@_jit
def em_estimate(data, prior, mv, stats, base, centre, banks, out):
    """The M-step of the batch's restart whose components are rows ``base`` to
    ``base + K - 1`` of the sweep's statistics ``stats`` (its counts, the margins of
    the histogram, (B K, S); class counts; Gaussian sums about ``centre`` (B K, d),
    the swept means; the multivariate blocks' sums, :func:`em_mvn_estimate`): its
    statistics as counts, moments and class counts (``counts``, ``n_out``,
    ``mean_out``, ``ss_out``, ``cc_out``), and the estimates from them (``clp``,
    ``logp``, ``mu``, ``var``; the multivariate blocks' in their banks). Returns 0; 1
    where an estimate is undefined (a variable's total count <= 0, a negative MAP numerator; the
    estimates are then left unfinished); 2 where a Gaussian component's deviation
    lies below the spacing of floats at its mean. The statistics and estimates go to
    slot ``out`` of ``banks`` (the restart's)."""
    sizes, segments = data[3], data[4]
    disc_add, _coef, class_add, _ccoef, _const, mu0, kappa0, alpha0, beta0, _gp, strict = prior
    all_counts, class_counts, g_n, g_s1, g_s2, m_s1, m_cross, m_centre = stats
    clp, logp, mu, var = banks[0][out], banks[1][out], banks[2][out], banks[3][out]
    counts, n_out, mean_out, ss_out, cc_out = (
        banks[4][out],
        banks[5][out],
        banks[6][out],
        banks[7][out],
        banks[8][out],
    )
    n_comp = clp.shape[0]
    if strict:  # a maximum-likelihood part: an empty component has no estimate
        for k in range(n_comp):
            if class_counts[base + k] <= 0.0:
                return 1
    if counts.shape[1]:
        for k in range(n_comp):
            for v in range(counts.shape[1]):
                counts[k, v] = all_counts[base + k, v]
        for j in range(len(sizes)):
            a, b = segments[j], segments[j] + sizes[j]
            for k in range(n_comp):
                tot = 0.0
                for v in range(a, b):
                    num = counts[k, v] + disc_add[k, v]
                    if num < 0.0:
                        return 1
                    logp[k, v] = num
                    tot += num
                if not tot > 0.0:
                    return 1
                lt = math.log(tot)
                for v in range(a, b):
                    num = logp[k, v]
                    logp[k, v] = (math.log(num) if num > 0.0 else -math.inf) - lt
    tot = 0.0
    for k in range(n_comp):
        cc_out[k] = class_counts[base + k]
        num = cc_out[k] + class_add[k]
        if num < 0.0:
            return 1
        clp[k] = num
        tot += num
    if not tot > 0.0:
        return 1
    lt = math.log(tot)
    for k in range(n_comp):
        clp[k] = (math.log(clp[k]) if clp[k] > 0.0 else -math.inf) - lt
    for k in range(n_comp):
        for j in range(mu.shape[1]):
            n = g_n[base + k, j]
            if n > 0.0:
                dev = g_s1[base + k, j] / n
                mean = centre[base + k, j] + dev
                ss = g_s2[base + k, j] - g_s1[base + k, j] * dev
                ss = max(ss, 0.0)
            else:
                mean, ss = 0.0, 0.0
            n_out[k, j], mean_out[k, j], ss_out[k, j] = n, mean, ss
            # the Normal-Inverse-Gamma posterior and its mode
            m0, k0 = mu0[k, j], kappa0[k, j]
            kn = k0 + n
            delta = (mean if n > 0.0 else m0) - m0
            mu[k, j] = m0 + delta * (n / kn)
            beta_n = beta0[k, j] + ss / 2.0 + (k0 * n / (2.0 * kn)) * delta * delta
            var[k, j] = beta_n / (alpha0[k, j] + n / 2.0 + 1.5)
            if not (math.isfinite(mu[k, j]) and math.isfinite(var[k, j])):
                return 1
    # the multivariate blocks (``mv``; None, a type the compiler prunes, without them)
    if mv is not None:  # noqa: SIM102 - the test the compiler prunes stands alone
        if em_mvn_estimate(mv[0], mv[1], class_counts, m_s1, m_cross, m_centre, base, banks, out):
            return 1
    return 0 if _resolved(mu, var) else 2


@_compiled._inline
def _spacing(value):
    """The spacing of float64 numbers at ``|value|`` (numpy's ``spacing``)."""
    a = abs(value)
    if a < 2.2250738585072014e-308:  # zero and subnormal numbers
        return 5e-324
    _, e = math.frexp(a)
    return math.ldexp(1.0, e - 53)


# -- the objective's prior terms --------------------------------------------------------


@_jit
def em_log_prior(prior, mv, clp, logp, mu, var, mv_mu, mv_cov):
    """``log p(theta)``: the discrete priors' ``sum (alpha' - 1) log p`` (``disc_coef``;
    0 where a block has no prior term), the class prior's, their constant
    ``prior_const`` (the multivariate blocks' constants included), the
    Normal-Inverse-Gamma densities of the MAP-estimated Gaussian columns
    (``gauss_prior``) and the multivariate blocks' (:func:`em_mvn_log_prior`), all from
    ``prior`` (:attr:`CompiledProblem.prior`)."""
    _add, disc_coef, _cadd, class_coef, prior_const, mu0, kappa0, alpha0, beta0 = prior[:9]
    gauss_prior = prior[9]
    total = prior_const
    if mv is not None:
        total += em_mvn_log_prior(mv[0], mv[1], mv_mu, mv_cov)
    for k in range(logp.shape[0]):
        for v in range(logp.shape[1]):
            c = disc_coef[k, v]
            if c != 0.0:
                total += c * logp[k, v]
    for k in range(clp.shape[0]):
        c = class_coef[k]
        if c != 0.0:
            total += c * clp[k]
    if gauss_prior:
        for k in range(mu.shape[0]):
            for j in range(mu.shape[1]):
                a, b, kap, m = alpha0[k, j], beta0[k, j], kappa0[k, j], mu0[k, j]
                s2 = var[k, j]
                if not s2 > 0.0:
                    return -math.inf
                z = (mu[k, j] - m) / math.sqrt(s2)
                z2 = kap * z * z
                log_ig = a * math.log(b) - math.lgamma(a) - (a + 1.0) * math.log(s2) - b / s2
                log_n = -0.5 * math.log(2 * math.pi * s2 / kap) - z2 / 2
                total += log_ig + log_n
    return total


@_jit
def _resolved(mu, var):
    """Whether every Gaussian deviation lies above the spacing of floats at its mean
    (:meth:`bayesnb.mixture._Problem.check_resolution`)."""
    for k in range(mu.shape[0]):
        for j in range(mu.shape[1]):
            if math.sqrt(var[k, j]) < _spacing(mu[k, j]):
                return False
    return True


@_jit
def em_resolution_slack(mu, var, total_weight):
    """How far the objective may move by the rounding of the Gaussian means alone
    (:meth:`bayesnb.mixture._Problem.resolution_slack`)."""
    slack = 0.0
    for k in range(mu.shape[0]):
        for j in range(mu.shape[1]):
            s = 4.0 * _spacing(mu[k, j])
            slack += s * s / (2.0 * var[k, j])
    return total_weight * slack


# -- multivariate Gaussian blocks -------------------------------------------------------
#
# The multivariate blocks come to the loop as ``mv = (mvn, mvn_prior)``
# (:attr:`CompiledProblem.mv`, None without them). ``mvn`` holds their values column
# by column, centred at the training rows' mean ``shift`` (``xm`` (D, n), the family's
# encoding), and their layout: the columns of block b are ``cols[b]:cols[b + 1]`` of the
# flat means (K, D), its matrices (covariance, scatter) are ``sq[b]:sq[b + 1]`` of the
# flat (K, Q) banks (d x d, row by row) and its Cholesky factors ``tri[b]:tri[b + 1]``
# of packed lower triangles (row by row: entry (j, l) at j (j + 1) / 2 + l, the order
# of :meth:`bayesnb.families.MultivariateGaussian.unconstrained`), and ``kind[b]`` is
# its covariance (:data:`MVN_KINDS`). ``mvn_prior`` holds the prior's ``mu`` (D),
# ``kappa`` and ``nu`` (one per block), ``psi`` (Q) and psi's packed Cholesky factor
# (T); the constant terms of its log density are in the loop's ``prior_const``.
# Every estimate is the Normal-Inverse-Wishart
# mode of :meth:`~bayesnb.families.MultivariateGaussian.estimate_params`, and its log
# density is :meth:`~bayesnb.families.MultivariateGaussian.log_prior`'s. The loop keeps
# the blocks' means (its banks ``mv_mu`` and ``mv_mean``) in the encoding's units, less
# ``shift``: a mean in the data's units would round to the spacing of floats at the
# data's offset, and so would every deviation from it (:meth:`CompiledProblem.run_many`
# takes the shift off the start's means and :meth:`CompiledProblem._state` puts it back
# on the statistics).

#: The covariances of a multivariate Gaussian block, each coded in the loop by its
#: place in the family's list.
MVN_KINDS = COVARIANCES
_FULL, _DIAG, _SPHERICAL, _TIED, _TIED_SPHERICAL = (
    COVARIANCES.index(kind) for kind in ("full", "diag", "spherical", "tied", "tied-spherical")
)
#: The smallest pivot of a definite covariance (``MultivariateGaussian._check_definite``).
_SQRT_TINY = math.sqrt(2.2250738585072014e-308)


@_compiled._inline
def _diagonal(kind):
    """Whether a block's covariance is diagonal (its off-diagonal entries 0)."""
    return kind in (_DIAG, _SPHERICAL, _TIED_SPHERICAL)


@_compiled._inline
def _at(j, i):
    """The place of entry (j, i), i <= j, of a packed lower triangle."""
    return j * (j + 1) // 2 + i


@_jit
def _cholesky(cov, c0, d, out, t0):
    """The Cholesky factor of the d x d matrix ``cov[c0:c0 + d * d]`` (row by row),
    packed into ``out[t0:]``; False when a pivot is not positive and finite (the
    matrix is not definite)."""
    for j in range(d):
        for i in range(j + 1):
            s = cov[c0 + j * d + i]
            for p in range(i):
                s -= out[t0 + _at(j, p)] * out[t0 + _at(i, p)]
            if j == i:
                if not (s > 0.0 and math.isfinite(s)):
                    return False
                out[t0 + _at(j, j)] = math.sqrt(s)
            else:
                out[t0 + _at(j, i)] = s / out[t0 + _at(i, i)]
    return True


@_jit
def _definite(chol, t0, d):
    """``MultivariateGaussian._check_definite`` on a factor (packed at ``chol[t0:]``)
    under MAP: every pivot above the square root of the smallest normal float, and
    the smallest above 1e-12 of the largest."""
    low, high = math.inf, 0.0
    for j in range(d):
        p = chol[t0 + _at(j, j)]
        low, high = min(low, p), max(high, p)
    return low > _SQRT_TINY and low > 1e-12 * high


@_jit
def _solve_sq(chol, t0, d, b, work):
    """``|L^-1 b|^2`` for the factor L packed at ``chol[t0:]``, by forward
    substitution in ``work`` (d)."""
    total = 0.0
    for j in range(d):
        s = b[j]
        for p in range(j):
            s -= chol[t0 + _at(j, p)] * work[p]
        work[j] = s / chol[t0 + _at(j, j)]
        total += work[j] * work[j]
    return total


@_jit
def _log_det(chol, t0, d):
    """``log |L L^T|`` of the factor packed at ``chol[t0:]``."""
    total = 0.0
    for j in range(d):
        total += math.log(chol[t0 + _at(j, j)])
    return 2.0 * total


@_jit
def em_mvn_prepare(mvn, mu, cov, n_comp, chol, const, centre, bad):
    """Before a sweep: every component's Cholesky factors ``chol`` (width, T), the
    constants ``const`` (width, blocks) of its log densities, ``-(d log 2 pi +
    log|Sigma|) / 2``, and its means in the encoding's units ``centre`` (width, D),
    from means ``mu`` in the data's units. A restart with a covariance that is not
    definite (only an extrapolated point can have one) gets ``bad`` 0: its sweep is
    undefined."""
    _mvn_prepare(mvn, mu, cov, n_comp, chol, const, centre, bad, True)


@_jit
def _mvn_prepare(mvn, mu, cov, n_comp, chol, const, centre, bad, shifted):
    """:func:`em_mvn_prepare` of means ``mu`` in the data's units (``shifted``: the
    training rows' mean ``shift`` is taken off) or already in the encoding's units
    (the EM loop's own state)."""
    _xm, cols, sq, tri, kind, shift = mvn
    for k in range(mu.shape[0]):
        for b in range(len(kind)):
            c0, d = cols[b], cols[b + 1] - cols[b]
            if not _cholesky(cov[k], sq[b], d, chol[k], tri[b]):
                bad[k // n_comp] = 0
                continue
            const[k, b] = -0.5 * (d * _LOG_2PI + _log_det(chol[k], tri[b], d))
            for j in range(c0, c0 + d):
                centre[k, j] = mu[k, j] - shift[j] if shifted else mu[k, j]


@_compiled._reassociated
def em_mvn_scores(mvn, chol, const, centre, start, m, z, scores):
    """Add every multivariate block's log density of rows ``start:start + m`` to
    ``scores`` (width, rows): ``const - |z|^2 / 2`` with ``L z = x - mu``, a forward
    substitution along the rows, column by column (``z`` (d, rows) scratch)."""
    xm, cols, _sq, tri, kind, _shift = mvn
    for b in range(len(kind)):
        c0, d, t0 = cols[b], cols[b + 1] - cols[b], tri[b]
        diagonal = _diagonal(kind[b])
        for k in range(scores.shape[0]):
            s, L = scores[k], chol[k]
            for r in range(m):
                s[r] += const[k, b]
            for j in range(d):
                zj, col, mean = z[j], xm[c0 + j][start : start + m], centre[k, c0 + j]
                for r in range(m):
                    zj[r] = col[r] - mean
                if not diagonal:
                    for p in range(j):
                        c, zp = L[t0 + _at(j, p)], z[p]
                        for r in range(m):
                            zj[r] -= c * zp[r]
                pivot = L[t0 + _at(j, j)]
                for r in range(m):
                    zj[r] /= pivot
                    s[r] -= 0.5 * zj[r] * zj[r]


@_compiled._reassociated
def em_mvn_sums(mvn, centre, start, m, scores, z, s1, cross):
    """Add every component's weighted deviations from its swept means (``centre``)
    over rows ``start:start + m`` to ``s1`` (width, D), and their cross-products to
    ``cross`` (width, Q), the lower triangle of every block's matrix (its diagonal
    alone for a diagonal covariance); ``scores`` (width, rows) holds the rows'
    weighted responsibilities."""
    xm, cols, sq, _tri, kind, _shift = mvn
    for b in range(len(kind)):
        c0, d, q0 = cols[b], cols[b + 1] - cols[b], sq[b]
        diagonal = _diagonal(kind[b])
        for k in range(scores.shape[0]):
            w = scores[k]
            for j in range(d):
                zj, col, mean = z[j], xm[c0 + j][start : start + m], centre[k, c0 + j]
                acc = 0.0
                for r in range(m):
                    zj[r] = col[r] - mean
                    acc += w[r] * zj[r]
                s1[k, c0 + j] += acc
                for p in range(j if diagonal else 0, j + 1):
                    zp = z[p]
                    acc = 0.0
                    for r in range(m):
                        acc += w[r] * zj[r] * zp[r]
                    cross[k, q0 + j * d + p] += acc


@_jit
def em_mvn_estimate(mvn, prior, class_counts, s1, cross, centre, base, banks, out):
    """The M-step of every multivariate block of the restart whose components are rows
    ``base:base + K`` of the sweep's sums (``s1``, ``cross``, about the swept means
    ``centre``): the statistics (``mv_mean``, ``mv_scatter`` of slot ``out``; a
    component of weight 0 has the training mean and scatter 0, as the family counts
    them) and the Normal-Inverse-Wishart mode (``mv_mu``, ``mv_cov``). Every mean is
    in the encoding's units (less the training rows' mean ``shift``, the prior's mean
    too), so that no digit of a deviation is lost to the data's offset. Returns 1
    when a covariance is not definite (the family then raises), else 0."""
    _xm, cols, sq, _tri, kind, shift = mvn
    work = np.empty(sq[-1])  # a factor (packed, d (d + 1) / 2 <= d * d)
    prior_mu, kappa0, nu0, psi = prior[:4]
    mu0 = np.empty(len(prior_mu))  # the prior's mean in the encoding's units
    for j in range(len(prior_mu)):
        mu0[j] = prior_mu[j] - shift[j]
    mv_mu, mv_cov = banks[9][out], banks[10][out]
    mv_mean, mv_scatter = banks[11][out], banks[12][out]
    n_comp = mv_mu.shape[0]
    for b in range(len(kind)):
        c0, d, q0 = cols[b], cols[b + 1] - cols[b], sq[b]
        kb, kappa, nu = kind[b], kappa0[b], nu0[b]
        diagonal = _diagonal(kb)
        n_all, trace_all = 0.0, 0.0
        for k in range(n_comp):
            n = class_counts[base + k]
            mean, scatter = mv_mean[k], mv_scatter[k]
            for j in range(c0, c0 + d):  # the swept mean and the deviation from it
                mean[j] = centre[base + k, j] + s1[base + k, j] / n if n > 0.0 else 0.0
            for j in range(d):
                for p in range(j + 1):
                    at = q0 + j * d + p
                    v = 0.0
                    if n > 0.0 and (p == j or not diagonal):
                        v = cross[base + k, at] - s1[base + k, c0 + j] * s1[base + k, c0 + p] / n
                        if p == j:
                            v = max(v, 0.0)
                    scatter[at] = v
                    scatter[q0 + p * d + j] = v
            # the posterior's mean and the quadratic terms q = S + pull delta delta^T,
            # kept in mv_cov until the covariance is made from them
            kn = kappa + n
            pull = kappa * n / kn
            cov = mv_cov[k]
            for j in range(d):
                mv_mu[k, c0 + j] = (kappa * mu0[c0 + j] + n * mean[c0 + j]) / kn
            for j in range(d):
                dj = mean[c0 + j] - mu0[c0 + j]
                for p in range(d):
                    at = q0 + j * d + p
                    if diagonal and p != j:
                        cov[at] = 0.0
                    else:
                        cov[at] = scatter[at] + pull * dj * (mean[c0 + p] - mu0[c0 + p])
            n_all += n
            for j in range(d):
                trace_all += cov[q0 + j * d + j]
        alpha = (nu - d + 1.0) / 2.0
        trace_psi = 0.0
        for j in range(d):
            trace_psi += psi[q0 + j * d + j]
        if kb == _TIED:  # (psi + sum q) / (nu + sum n + K + d + 1), every component
            first = mv_cov[0]
            for k in range(1, n_comp):
                for at in range(q0, q0 + d * d):
                    first[at] += mv_cov[k][at]
            denom = nu + n_all + n_comp + d + 1.0
            for at in range(q0, q0 + d * d):
                first[at] = (psi[at] + first[at]) / denom
            for k in range(1, n_comp):
                for at in range(q0, q0 + d * d):
                    mv_cov[k][at] = first[at]
        elif kb == _TIED_SPHERICAL:
            shared = (trace_psi / 2.0 + trace_all / 2.0) / (
                d * alpha + n_all * d / 2.0 + 1.0 + n_comp * d / 2.0
            )
            for k in range(n_comp):
                for j in range(d):
                    mv_cov[k][q0 + j * d + j] = shared
        else:
            for k in range(n_comp):
                n, cov = class_counts[base + k], mv_cov[k]
                if kb == _FULL:
                    denom = nu + n + d + 2.0
                    for at in range(q0, q0 + d * d):
                        cov[at] = (psi[at] + cov[at]) / denom
                elif kb == _DIAG:
                    denom = alpha + n / 2.0 + 1.5
                    for j in range(d):
                        at = q0 + j * d + j
                        cov[at] = (psi[at] / 2.0 + cov[at] / 2.0) / denom
                else:  # spherical
                    trace = 0.0
                    for j in range(d):
                        trace += cov[q0 + j * d + j]
                    shape = d * alpha + n * d / 2.0
                    var = (trace_psi / 2.0 + trace / 2.0) / (shape + 1.0 + d / 2.0)
                    for j in range(d):
                        cov[q0 + j * d + j] = var
        for k in range(n_comp):
            if not (_cholesky(mv_cov[k], q0, d, work, 0) and _definite(work, 0, d)):
                return 1
    return 0


@_jit
def em_mvn_log_prior(mvn, prior, mv_mu, mv_cov):
    """The multivariate blocks' Normal-Inverse-Wishart log densities at the means
    ``mv_mu`` (K, D; in the encoding's units, as :func:`em_mvn_estimate` keeps them)
    and covariances ``mv_cov`` (K, Q), less their constants (which the loop's
    ``prior_const`` adds, :func:`mvn_const`): the terms of
    :meth:`bayesnb.families.MultivariateGaussian.log_prior` that depend on the
    parameters."""
    _xm, cols, sq, tri, kind, shift = mvn
    work, solved = np.empty(sq[-1]), np.empty(sq[-1])
    prior_mu, kappa0, nu0, psi, chol_psi = prior
    mu0 = np.empty(len(prior_mu))  # the prior's mean in the encoding's units
    for j in range(len(prior_mu)):
        mu0[j] = prior_mu[j] - shift[j]
    total = 0.0
    n_comp = mv_mu.shape[0]
    for b in range(len(kind)):
        c0, d, q0 = cols[b], cols[b + 1] - cols[b], sq[b]
        kb, kappa, nu = kind[b], kappa0[b], nu0[b]
        if kb in (_FULL, _TIED):
            for k in range(n_comp):
                if not _cholesky(mv_cov[k], q0, d, work, 0):
                    return -math.inf
                for j in range(d):
                    solved[j] = mv_mu[k, c0 + j] - mu0[c0 + j]
                log_det = _log_det(work, 0, d)
                total += -0.5 * log_det - 0.5 * kappa * _solve_sq(work, 0, d, solved, solved)
                if kb == _FULL or k == 0:  # the Inverse-Wishart's terms (tied: once)
                    total -= 0.5 * (nu + d + 1.0) * log_det
                    for c in range(d):  # column c of L^-1 C, C = chol(psi)
                        for j in range(d):
                            solved[j] = chol_psi[tri[b] + _at(j, c)] if j >= c else 0.0
                        total -= 0.5 * _solve_sq(work, 0, d, solved, solved)
            continue
        alpha = (nu - d + 1.0) / 2.0
        for k in range(n_comp):
            for j in range(d):
                var = mv_cov[k, q0 + j * d + j]
                if not var > 0.0:
                    return -math.inf
                dev = mv_mu[k, c0 + j] - mu0[c0 + j]
                total += -0.5 * math.log(var) - 0.5 * kappa * dev * dev / var
                if kb == _DIAG:  # the inverse gamma of every variance
                    total += -(alpha + 1.0) * math.log(var) - psi[q0 + j * d + j] / 2.0 / var
        trace = 0.0
        for j in range(d):
            trace += psi[q0 + j * d + j]
        if kb != _DIAG:  # one inverse gamma per component (spherical) or in all (tied)
            for k in range(n_comp if kb == _SPHERICAL else 1):
                var = mv_cov[k, q0]
                total += -(d * alpha + 1.0) * math.log(var) - trace / 2.0 / var
    return total


# -- the loop ---------------------------------------------------------------------------

#: Slots of the state banks: the current state, and SQUAREM's points theta0, theta1,
#: theta2, the extrapolated one and the EM step from it. NumPy integers, like the
#: outcomes: the compiler types a global Python int as a literal, and compiles a
#: function once per literal it is called with (the M-step four times over).
_CUR, _T0, _T1, _T2, _TX, _TN = (np.int64(slot) for slot in range(6))
N_SLOTS = 6


@_jit
def _copy(banks, src, dst):
    """Slot ``src`` of every bank copied to slot ``dst``, by one loop over each bank's
    values (assigning ``bank[dst] = bank[src]`` compiles into a broadcasting loop per
    bank: seconds of compile time, for a copy). One call per bank: the banks are
    arrays of two ranks, a tuple compiled code cannot index by a variable."""
    _copy_slot(_slots(banks[0]), src, dst)
    _copy_slot(_slots(banks[1]), src, dst)
    _copy_slot(_slots(banks[2]), src, dst)
    _copy_slot(_slots(banks[3]), src, dst)
    _copy_slot(_slots(banks[4]), src, dst)
    _copy_slot(_slots(banks[5]), src, dst)
    _copy_slot(_slots(banks[6]), src, dst)
    _copy_slot(_slots(banks[7]), src, dst)
    _copy_slot(_slots(banks[8]), src, dst)
    _copy_slot(_slots(banks[9]), src, dst)
    _copy_slot(_slots(banks[10]), src, dst)
    _copy_slot(_slots(banks[11]), src, dst)
    _copy_slot(_slots(banks[12]), src, dst)


@_jit
def _slots(bank):
    """A restart's bank (slots, ...), C-ordered, as one row of values per slot."""
    return bank.reshape((bank.shape[0], bank.size // bank.shape[0]))


@_jit
def _copy_slot(rows, src, dst):
    """Row ``src`` of ``rows`` copied to row ``dst``."""
    for j in range(rows.shape[1]):
        rows[dst, j] = rows[src, j]


@_jit
def _normalized(values, a, b):
    """``values[a:b]`` minus its log-sum-exp, in place (:func:`bayesnb.mixture.
    _log_normalized`)."""
    top = -math.inf
    for v in range(a, b):
        top = max(top, values[v])
    if not math.isfinite(top):
        top = 0.0
    total = 0.0
    for v in range(a, b):
        total += math.exp(values[v] - top)
    lt = math.log(total) if total > 0.0 else -math.inf
    for v in range(a, b):
        values[v] = values[v] - top - lt


@_jit
def _coordinates(banks, s, scales, mv, out):
    """Slot ``s`` in SQUAREM's unconstrained coordinates, flat: the class
    log-probabilities, the discrete log-probabilities, the Gaussian means over their
    column's ``scales`` and the log-variances, then every multivariate block's means
    over their column's ``scales`` (after the Gaussian columns') and the packed
    Cholesky factors of its covariances, their diagonals as logarithms
    (:meth:`bayesnb.families.MultivariateGaussian.unconstrained`)."""
    clp, logp, mu, var = banks[0][s], banks[1][s], banks[2][s], banks[3][s]
    at = 0
    for k in range(clp.shape[0]):
        out[at] = clp[k]
        at += 1
    for k in range(logp.shape[0]):
        for v in range(logp.shape[1]):
            out[at] = logp[k, v]
            at += 1
    for k in range(mu.shape[0]):
        for j in range(mu.shape[1]):
            out[at] = mu[k, j] / scales[j]
            at += 1
    for k in range(var.shape[0]):
        for j in range(var.shape[1]):
            out[at] = math.log(var[k, j])
            at += 1
    if mv is None:
        return
    _xm, cols, sq, _tri, kind, _shift = mv[0]
    mv_mu, mv_cov, d = banks[9][s], banks[10][s], var.shape[1]
    for b in range(len(kind)):
        c0, db = cols[b], cols[b + 1] - cols[b]
        for k in range(mv_mu.shape[0]):
            for j in range(c0, c0 + db):
                out[at] = mv_mu[k, j] / scales[d + j]
                at += 1
        for k in range(mv_mu.shape[0]):
            if not _cholesky(mv_cov[k], sq[b], db, out, at):  # (an M-step's: definite)
                out[at : at + db * (db + 1) // 2] = math.nan
            for j in range(db):
                out[at + _at(j, j)] = math.log(out[at + _at(j, j)])
            at += db * (db + 1) // 2


@_jit
def _extrapolate(banks, sizes, segments, mv, step_max, x0, x1, x2, scales):
    """SQUAREM's S3 step from theta0, theta1, theta2 (:func:`bayesnb.mixture.
    _extrapolate`): ``(extrapolated, alpha, rate)``, the point written to the slot
    ``_TX`` when ``extrapolated``, else theta2 is the point."""
    mu0, var0 = banks[2][_T0], banks[3][_T0]
    n_comp, d = mu0.shape
    for j in range(d):
        acc = 0.0
        for k in range(n_comp):
            acc += var0[k, j]
        scales[j] = math.sqrt(acc / n_comp)
    if mv is not None:
        _xm, cols, sq, _tri, kind, _shift = mv[0]
        cov0 = banks[10][_T0]
        for b in range(len(kind)):
            c0, db = cols[b], cols[b + 1] - cols[b]
            for j in range(db):
                acc = 0.0
                for k in range(n_comp):
                    acc += cov0[k, sq[b] + j * db + j]
                scales[d + c0 + j] = math.sqrt(acc / n_comp)
    _coordinates(banks, _T0, scales, mv, x0)
    _coordinates(banks, _T1, scales, mv, x1)
    _coordinates(banks, _T2, scales, mv, x2)
    rr, vv, ss = 0.0, 0.0, 0.0
    for i in range(len(x0)):
        if math.isfinite(x0[i]) and math.isfinite(x1[i]) and math.isfinite(x2[i]):
            r = x1[i] - x0[i]
            v = x2[i] - 2.0 * x1[i] + x0[i]
            rr += r * r
            vv += v * v
            ss += (r + v) * (r + v)
    sr, sv = math.sqrt(rr), math.sqrt(vv)
    rate = math.sqrt(ss) / sr if sr > 0.0 else 0.0
    if not (sv > 0.0 and math.isfinite(sr / sv)):
        return False, -1.0, rate
    alpha = min(-1.0, max(-sr / sv, -step_max))
    if alpha == -1.0:
        return False, alpha, rate
    for i in range(len(x0)):
        if math.isfinite(x0[i]) and math.isfinite(x1[i]) and math.isfinite(x2[i]):
            r = x1[i] - x0[i]
            v = x2[i] - 2.0 * x1[i] + x0[i]
            x0[i] = x0[i] - 2.0 * alpha * r + alpha * alpha * v
            if not math.isfinite(x0[i]):
                return False, -1.0, rate
        else:
            x0[i] = x2[i]
    clp, logp, mu, var = banks[0][_TX], banks[1][_TX], banks[2][_TX], banks[3][_TX]
    at = 0
    for k in range(clp.shape[0]):
        clp[k] = x0[at]
        at += 1
    _normalized(clp, 0, len(clp))
    for k in range(logp.shape[0]):
        row = logp[k]
        for v in range(logp.shape[1]):
            row[v] = x0[at]
            at += 1
        for j in range(len(sizes)):
            _normalized(row, segments[j], segments[j] + sizes[j])
    for k in range(n_comp):
        for j in range(d):
            mu[k, j] = x0[at] * scales[j]
            at += 1
    for k in range(n_comp):
        for j in range(d):
            var[k, j] = math.exp(x0[at])
            at += 1
    if mv is None:
        return True, alpha, rate
    _xm, cols, sq, _tri, kind, _shift = mv[0]
    mv_mu, mv_cov = banks[9][_TX], banks[10][_TX]
    for b in range(len(kind)):
        c0, db, q0 = cols[b], cols[b + 1] - cols[b], sq[b]
        for k in range(n_comp):
            for j in range(c0, c0 + db):
                mv_mu[k, j] = x0[at] * scales[d + j]
                at += 1
        for k in range(n_comp):  # the factor L (its diagonal exp'd), then L L^T
            for j in range(db):
                x0[at + _at(j, j)] = math.exp(x0[at + _at(j, j)])
            for j in range(db):
                for p in range(j + 1):
                    acc = 0.0
                    for q in range(p + 1):
                        acc += x0[at + _at(j, q)] * x0[at + _at(p, q)]
                    mv_cov[k, q0 + j * db + p] = acc
                    mv_cov[k, q0 + p * db + j] = acc
            at += db * (db + 1) // 2
    return True, alpha, rate


@_jit
def _converged(checkpoints, count, target):
    """:func:`bayesnb.mixture._converged` on ``checkpoints[:count]``."""
    if count < 2:
        return False
    first = max(0, count - 4)
    n_gains = count - 1 - first
    last = checkpoints[count - 1] - checkpoints[count - 2]
    if last <= 0.0:
        return True
    if n_gains < 2:
        return False
    rho = -math.inf
    for i in range(first + 1, count - 1):
        previous = checkpoints[i] - checkpoints[i - 1]
        if previous <= 0.0:
            return False
        rho = max(rho, (checkpoints[i + 1] - checkpoints[i]) / previous)
    return rho < 1.0 and last / (1.0 - rho) <= target


@_jit
def _converged_cycle(cycle_gain, em_gain, rates, n_rates, target):
    """:func:`bayesnb.mixture._converged_cycle`."""
    if cycle_gain <= 0.0:
        return True
    if cycle_gain > target or n_rates == 0:
        return False
    top = 0.0
    for i in range(max(0, n_rates - _RATE_WINDOW), n_rates):
        top = max(top, rates[i])
    rho = top * top
    return rho < 1.0 and max(em_gain, 0.0) / (1.0 - rho) <= target


#: Where a restart stands in :func:`em_run`: the sweep it waits for (at the slot
#: ``I_PENDING``) is the first one (``_AT_START``), a plain EM step's (``_AT_PLAIN``),
#: or, in a SQUAREM cycle, the one at theta1, at the extrapolated point, at theta2, or
#: the stabilizing step's (``_AT_CUR``); ``_DONE`` once it stopped.
_AT_START, _AT_PLAIN, _AT_T1, _AT_TX, _AT_T2, _AT_CUR, _DONE = range(7)
#: A restart's numbers in :func:`em_run` (``floats``, ``ints``, one row per restart).
F_OBJ, F_LL, F_START, F_FIRST, F_ACCEPTED, F_TRIAL, F_STEP_MAX, F_ALPHA = range(8)
I_AT, I_PENDING, I_HIST, I_CHECK, I_RATES, I_SWEEPS, I_MOVED, I_TRIED, I_FRESH = range(9)


@_jit
def em_run(
    data,
    prior,
    mv,
    banks,
    n_rows,
    total_weight,
    max_iter,
    target,
    accelerate,
    resp,
    row_ll,
    history,
    info,
    lls,
):
    """EM for every restart, from the state in slot ``_CUR`` of its ``banks`` (its
    statistics beside it), as :meth:`bayesnb.mixture._Problem.run`: plain EM, or
    SQUAREM cycles when ``accelerate``.

    The restarts advance together: each round sweeps the data once for every restart
    still running (:func:`em_sweep`), each at the point it waits for, and then every
    one of them goes on from its sweep (:func:`_advance`) to the next point it needs
    swept, or stops. A restart's steps, and so its history, are the ones it takes
    alone. Leaves every restart's final state in its slot ``_CUR``, its final
    sweep's ``resp`` and ``row_ll`` (the row's log-likelihood as the pair
    ``row_ll[0] + log(row_ll[1])``), its log-likelihood in ``lls``, the objective at
    every accepted point in ``history``, and in ``info``: the history's length, the
    sweeps, whether EM converged, and the outcome (:data:`CONVERGED`,
    :data:`MAX_ITER` or :data:`IRREGULAR`). ``banks[i]``, ``resp``, ``row_ll``,
    ``history`` and ``info`` have one row per restart.
    """
    offsets, bounds, sizes, segments, xt = data[1:6]
    w_start, n_words = data[12], data[13]
    n_runs, _, n_comp = banks[0].shape
    width_all = n_runs * n_comp
    n_codes = np.int64(0)  # (a literal 0 would type one call of _views apart)
    for g in range(len(offsets)):
        cur = 1
        for j in range(bounds[g], bounds[g + 1]):
            cur *= sizes[j] + 1
        n_codes = max(n_codes, offsets[g] + cur)
    d = xt.shape[0]
    n_flat = banks[1].shape[3]
    n_mvn, d_mv, n_sq, n_tri, d_max = 0, 0, 0, 0, 0
    if mv is not None:  # the multivariate blocks' sizes (:func:`em_mvn_estimate`)
        cols, sq, tri = mv[0][1], mv[0][2], mv[0][3]
        n_mvn, d_mv, n_sq, n_tri = len(mv[0][4]), cols[-1], sq[-1], tri[-1]
        for b in range(n_mvn):
            d_max = max(d_max, cols[b + 1] - cols[b])
    m_sizes = (n_mvn, d_mv, n_sq, n_tri)
    # the batch's buffers, for all restarts at once; a smaller batch takes a prefix
    bufs = (
        np.empty((2, n_codes * width_all)),  # the groups' tables and histograms
        np.empty(width_all * _ROWS),  # scores
        np.empty(_ROWS * width_all if n_codes + n_words else 0),  # scores row by row
        np.empty((5, width_all * d)),  # the Gaussian sums, 1 / sd and constants
        np.empty(width_all),  # class counts
        np.empty((3, _ROWS)),  # every row's top score, log-likelihood and sum
        np.empty(_ROWS, dtype=np.int64),  # exp's scratch
        np.full(_ROWS, -1, dtype=np.int64),  # no row labelled
        np.empty(n_runs),  # a restart's product of row likelihoods
        np.empty(n_runs, dtype=np.int64),  # and its number of factors
        # the multivariate blocks': factors, constants, centres, sums, and the solves
        np.empty(width_all * n_tri),
        np.empty(width_all * n_mvn),
        np.empty((2, width_all * d_mv)),
        np.empty(width_all * n_sq),
        np.empty(_ROWS * d_max),
        np.empty((2, n_words * max(width_all, _NARROW))),  # the words' table and histogram
    )
    counts_buf = np.empty(width_all * n_flat)
    clp_b, lp_buf = np.empty(width_all), np.empty(width_all * n_flat)
    totals, bad = np.empty(n_runs), np.empty(n_runs, dtype=np.int64)
    mu_b, var_b = np.empty((n_runs, n_comp * d)), np.empty((n_runs, n_comp * d))
    mv_mu_b, mv_cov_b = np.empty(width_all * d_mv), np.empty(width_all * n_sq)
    size = n_comp * (1 + n_flat + 2 * d + d_mv + n_tri)
    scratch_x = (np.empty(size), np.empty(size), np.empty(size), np.empty(d + d_mv))
    slack = np.empty((n_runs, max_iter + 1))
    checkpoints = np.empty((n_runs, max_iter + 1))
    rates = np.empty((n_runs, max_iter + 1))
    floats = np.zeros((n_runs, 8))
    ints = np.zeros((n_runs, 9), dtype=np.int64)
    batch = np.empty(n_runs, dtype=np.int64)
    info[:] = 0
    for r in range(n_runs):
        ints[r, I_AT], ints[r, I_PENDING] = _AT_START, _CUR
        floats[r, F_STEP_MAX] = 1.0
    while True:
        n_batch = 0
        for r in range(n_runs):
            if ints[r, I_AT] != _DONE:
                batch[n_batch] = r
                n_batch += 1
        if n_batch == 0:
            break
        width = n_batch * n_comp
        # the batch's parameters side by side, each restart's at the point it waits for
        logp_b = lp_buf[: width * n_flat].reshape((width, n_flat))
        mu_w = mu_b.reshape(-1)[: width * d].reshape((width, d))
        var_w = var_b.reshape(-1)[: width * d].reshape((width, d))
        mv_mu_w = mv_mu_b[: width * d_mv].reshape((width, d_mv))
        mv_cov_w = mv_cov_b[: width * n_sq].reshape((width, n_sq))
        for b in range(n_batch):
            r, s = batch[b], ints[batch[b], I_PENDING]
            for k in range(n_comp):
                clp_b[b * n_comp + k] = banks[0][r, s, k]
                logp_b[b * n_comp + k] = banks[1][r, s, k]
                mu_w[b * n_comp + k] = banks[2][r, s, k]
                var_w[b * n_comp + k] = banks[3][r, s, k]
                mv_mu_w[b * n_comp + k] = banks[9][r, s, k]
                mv_cov_w[b * n_comp + k] = banks[10][r, s, k]
        scratch = _views(bufs, n_codes, n_words, width, _ROWS, d, m_sizes)
        single = batch[0]
        em_sweep(
            data,
            mv,
            scratch,
            n_comp,
            clp_b[:width],
            logp_b,
            mu_w,
            var_w,
            mv_mu_w,
            mv_cov_w,
            resp[single],
            row_ll[single],
            totals,
            bad,
        )
        counts = counts_buf[: width * n_flat].reshape((width, n_flat))
        if n_flat:
            counts[:] = 0.0
            _compiled.group_margins(scratch[1], offsets, bounds, sizes, segments, counts)
            w_hist = scratch[24]
            for c in range(n_words):
                for k in range(width):
                    counts[k, w_start + c] = w_hist[c, k]
        m_sums = (scratch[20], scratch[21], scratch[19])  # the multivariate sums, centres
        stats = (counts, scratch[5], scratch[2], scratch[3], scratch[4], *m_sums)
        for b in range(n_batch):
            r = batch[b]
            rb = (
                banks[0][r],
                banks[1][r],
                banks[2][r],
                banks[3][r],
                banks[4][r],
                banks[5][r],
                banks[6][r],
                banks[7][r],
                banks[8][r],
                banks[9][r],
                banks[10][r],
                banks[11][r],
                banks[12][r],
            )
            ints[r, I_SWEEPS] += 1
            ints[r, I_FRESH] = n_batch == 1
            s = ints[r, I_PENDING]
            ll = totals[b]
            obj = -math.inf
            if bad[b] < 0:
                obj = ll + em_log_prior(
                    prior, mv, rb[0][s], rb[1][s], rb[2][s], rb[3][s], rb[9][s], rb[10][s]
                )
            floats[r, F_LL] = ll
            run = (data, prior, mv, stats, b * n_comp, mu_w, rb)
            _advance(
                run,
                obj,
                bad[b] >= 0,
                floats[r],
                ints[r],
                history[r],
                slack[r],
                checkpoints[r],
                rates[r],
                scratch_x,
                n_rows,
                total_weight,
                max_iter,
                target,
                accelerate,
            )
    for r in range(n_runs):
        outcome = ints[r, I_PENDING]
        info[r, 0], info[r, 1] = ints[r, I_HIST], ints[r, I_SWEEPS]
        info[r, 2], info[r, 3] = outcome == CONVERGED, outcome
        lls[r] = floats[r, F_LL]
        if outcome != IRREGULAR and not ints[r, I_FRESH]:  # its last sweep, again
            rb = (banks[0][r], banks[1][r], banks[2][r], banks[3][r], banks[9][r], banks[10][r])
            scratch = _views(bufs, n_codes, n_words, n_comp, _ROWS, d, m_sizes)
            em_sweep(
                data,
                mv,
                scratch,
                n_comp,
                rb[0][_CUR],
                rb[1][_CUR],
                rb[2][_CUR],
                rb[3][_CUR],
                rb[4][_CUR],
                rb[5][_CUR],
                resp[r],
                row_ll[r],
                totals,
                bad,
            )
            lls[r] = totals[0]


@_jit
def _views(bufs, n_codes, n_words, width, rows, d, m_sizes):
    """:func:`em_sweep`'s scratch for a batch ``width`` components wide, scored
    ``rows`` rows at a time: prefixes of :func:`em_run`'s buffers ``bufs``."""
    codes_buf, scores, byrow, gauss, class_counts, per_row, bits, no_labels = bufs[:8]
    products, factors = bufs[8:10]
    m_chol, m_const, m_vectors, m_cross, m_z, words = bufs[10:]
    by_row = rows if n_codes + n_words else 0
    n_mvn, d_mv, n_sq, n_tri = m_sizes
    return (
        codes_buf[0][: n_codes * width].reshape((n_codes, width)),
        codes_buf[1][: n_codes * width].reshape((n_codes, width)),
        gauss[0][: width * d].reshape((width, d)),
        gauss[1][: width * d].reshape((width, d)),
        gauss[2][: width * d].reshape((width, d)),
        class_counts[:width],
        scores[: width * rows].reshape((width, rows)),
        gauss[3][: width * d].reshape((width, d)),
        gauss[4][: width * d].reshape((width, d)),
        per_row[0],
        per_row[1],
        per_row[2],
        bits,
        byrow[: by_row * width].reshape((by_row, width)),
        no_labels,
        products,
        factors,
        m_chol[: width * n_tri].reshape((width, n_tri)),
        m_const[: width * n_mvn].reshape((width, n_mvn)),
        m_vectors[0][: width * d_mv].reshape((width, d_mv)),  # the centres
        m_vectors[1][: width * d_mv].reshape((width, d_mv)),  # the sums
        m_cross[: width * n_sq].reshape((width, n_sq)),
        m_z.reshape((-1, rows)),
        words[0][: n_words * max(width, _NARROW)].reshape((n_words, max(width, _NARROW))),
        words[1][: n_words * width].reshape((n_words, width)),
    )


@_jit
def _advance(
    run,
    obj,
    bad,
    floats,
    ints,
    history,
    slack,
    checkpoints,
    rates,
    scratch_x,
    n_rows,
    total_weight,
    max_iter,
    target,
    accelerate,
):
    """One restart's steps from the sweep it waited for (objective ``obj``, ``bad``
    at a row of likelihood 0) up to the next point it
    needs swept, whose slot goes to ``ints[I_PENDING]``, or to its stop (``_DONE``,
    the outcome in ``info``-order at ``ints``' caller). The steps are those of
    :meth:`bayesnb.mixture._Problem.run`, one SQUAREM cycle being the sweeps at
    theta1, at the extrapolated point (when there is one), at theta2 (when that
    point is not taken) and at the stabilizing step's point. ``run`` is ``(data,
    prior, mv, stats, base, centre, banks)``: the sweep's statistics, the restart's
    rows in them, the swept means, and the restart's banks."""
    data, prior, mv, stats, base, centre, banks = run
    at = ints[I_AT]
    if at == _AT_START:
        if bad or not _resolved(banks[2][_CUR], banks[3][_CUR]):
            return _stop(ints, IRREGULAR)
        history[0] = obj
        checkpoints[0] = obj
        slack[0] = em_resolution_slack(banks[2][_CUR], banks[3][_CUR], total_weight)
        ints[I_HIST], ints[I_CHECK] = 1, 1
        floats[F_OBJ] = obj
    elif at == _AT_PLAIN:
        if bad or not _accept(history, slack, ints[I_HIST], obj, banks, _CUR, n_rows, total_weight):
            return _stop(ints, IRREGULAR)
        ints[I_HIST] += 1
        floats[F_OBJ] = obj
        checkpoints[ints[I_CHECK]] = obj
        ints[I_CHECK] += 1
        if _converged(checkpoints, ints[I_CHECK], target):
            return _stop(ints, CONVERGED)
    elif at == _AT_T1:
        if bad or not _accept(history, slack, ints[I_HIST], obj, banks, _T1, n_rows, total_weight):
            return _stop(ints, IRREGULAR)
        ints[I_HIST] += 1
        floats[F_OBJ] = floats[F_FIRST] = obj
        if _at_fixed_point(floats[F_START], obj):
            _copy(banks, _T1, _CUR)
            return _stop(ints, CONVERGED)
        if em_estimate(data, prior, mv, stats, base, centre, banks, _T2) != 0:
            return _stop(ints, IRREGULAR)
        x0, x1, x2, scales = scratch_x
        sizes, segments = data[3], data[4]
        moved, alpha, rate = _extrapolate(
            banks, sizes, segments, mv, floats[F_STEP_MAX], x0, x1, x2, scales
        )
        rates[ints[I_RATES]] = rate
        ints[I_RATES] += 1
        floats[F_ALPHA] = alpha
        ints[I_MOVED], ints[I_TRIED] = moved, False
        if moved:
            ints[I_AT], ints[I_PENDING] = _AT_TX, _TX
            return
        return _after_trial(run, floats, ints, history, slack, n_rows, total_weight)
    elif at == _AT_TX:
        floats[F_TRIAL] = obj
        if not bad and math.isfinite(obj) and obj >= floats[F_FIRST]:
            ints[I_TRIED] = em_estimate(data, prior, mv, stats, base, centre, banks, _TN) != 1
        return _after_trial(run, floats, ints, history, slack, n_rows, total_weight)
    elif at == _AT_T2:
        if bad:
            return _stop(ints, IRREGULAR)
        return _take_point(run, obj, _T2, floats, ints, history, slack, n_rows, total_weight)
    else:  # _AT_CUR: the end of a SQUAREM cycle
        if bad or not _accept(history, slack, ints[I_HIST], obj, banks, _CUR, n_rows, total_weight):
            return _stop(ints, IRREGULAR)
        ints[I_HIST] += 1
        floats[F_OBJ] = obj
        cycle_gain = obj - floats[F_START]
        em_gain = obj - floats[F_ACCEPTED]
        if _converged_cycle(cycle_gain, em_gain, rates, ints[I_RATES], target):
            return _stop(ints, CONVERGED)
    # the next step from the current state: a plain EM step, or a SQUAREM cycle
    n_iter = ints[I_HIST] - 1
    if n_iter >= max_iter:
        return _stop(ints, MAX_ITER)
    if not accelerate or max_iter - n_iter < 3:
        if em_estimate(data, prior, mv, stats, base, centre, banks, _CUR) != 0:
            return _stop(ints, IRREGULAR)
        ints[I_AT], ints[I_PENDING] = _AT_PLAIN, _CUR
        return
    _copy(banks, _CUR, _T0)
    floats[F_START] = floats[F_OBJ]
    if em_estimate(data, prior, mv, stats, base, centre, banks, _T1) != 0:
        return _stop(ints, IRREGULAR)
    ints[I_AT], ints[I_PENDING] = _AT_T1, _T1


@_jit
def _at_fixed_point(start, first):
    """Whether EM's step from objective ``start`` to ``first`` left an EM fixed point
    (its gain within round-off, :data:`_FIXED_POINT_ULPS`)."""
    return first - start <= _FIXED_POINT_ULPS * _spacing(start)


@_jit
def _after_trial(run, floats, ints, history, slack, n_rows, total_weight):
    """SQUAREM's step bound after the extrapolated point was tried (or not), then
    that point taken, or theta2 swept."""
    moved, tried = ints[I_MOVED], ints[I_TRIED]
    step_max = floats[F_STEP_MAX]
    if not tried and moved:  # it would lower the objective
        floats[F_STEP_MAX] = max(1.0, step_max / _STEP_FACTOR)
    elif floats[F_ALPHA] <= -step_max:  # the step length reached its bound: let it grow
        floats[F_STEP_MAX] = step_max * _STEP_FACTOR
    if not tried:
        ints[I_AT], ints[I_PENDING] = _AT_T2, _T2
        return
    _take_point(run, floats[F_TRIAL], _TX, floats, ints, history, slack, n_rows, total_weight)


@_jit
def _take_point(run, obj, at, floats, ints, history, slack, n_rows, total_weight):
    """The cycle's accepted point (the extrapolated one, or theta2) into the history,
    then the stabilizing EM step from it (already made when the extrapolated point
    was tried), whose sweep comes next."""
    data, prior, mv, stats, base, centre, banks = run
    if not _accept(history, slack, ints[I_HIST], obj, banks, at, n_rows, total_weight):
        return _stop(ints, IRREGULAR)
    ints[I_HIST] += 1
    floats[F_ACCEPTED] = obj
    if ints[I_TRIED]:
        _copy(banks, _TN, _CUR)
    elif em_estimate(data, prior, mv, stats, base, centre, banks, _CUR) != 0:
        return _stop(ints, IRREGULAR)
    ints[I_AT], ints[I_PENDING] = _AT_CUR, _CUR


@_jit
def _stop(ints, outcome):
    """A restart stopped with ``outcome``, kept in its ``I_PENDING`` entry."""
    ints[I_AT], ints[I_PENDING] = _DONE, outcome


@_jit
def _accept(history, slack, n_hist, obj, banks, s, n_rows, total_weight):
    """Append ``obj`` (the sweep at slot ``s``) to ``history``; False when it fell
    below the last entry beyond round-off (:func:`bayesnb.mixture._check_increase`)."""
    history[n_hist] = obj
    slack[n_hist] = em_resolution_slack(banks[2][s], banks[3][s], total_weight)
    previous = history[n_hist - 1]
    allowed = 1e-9 * (abs(previous) + n_rows) + max(slack[n_hist - 1], slack[n_hist])
    return not obj < previous - allowed


# -- the Python side: a problem's kernels gathered, and one run -----------------------


class DiscreteKernel(NamedTuple):
    """A discrete block's part of the compiled loop (:meth:`bayesnb.families.Family.
    em_kernel`): its group codes and their layout (the column sizes, and the most
    codes of a group, :func:`bayesnb.families._kernels._code_groups`), the amount its
    estimate adds to every count (``alpha - 1`` for MAP, ``alpha`` for the mean, 0
    for ML), the coefficient of every log-probability in its log prior and the
    prior's constant (0 and 0 without a prior term), and the shape of its parameters
    and counts (components first; flat (K, S) in the loop)."""

    codes: np.ndarray
    sizes: tuple
    max_codes: int
    add: np.ndarray
    coef: np.ndarray
    const: float
    shape: tuple


class CountsKernel(NamedTuple):
    """A block of word counts' part (:class:`~bayesnb.families.Multinomial`): its counts
    as a CSR matrix (n, V), checked, and the Dirichlet terms of its estimate over the
    V words (:class:`DiscreteKernel`'s ``add``, ``coef``, ``const``), its parameters
    (K, V)."""

    counts: object
    add: np.ndarray
    coef: np.ndarray
    const: float
    shape: tuple


class GaussianKernel(NamedTuple):
    """A diagonal Gaussian block's part: its values (n, d) and the resolved
    Normal-Inverse-Gamma prior, each parameter (K, d); MAP-EM."""

    x: np.ndarray
    mu0: np.ndarray
    kappa0: np.ndarray
    alpha0: np.ndarray
    beta0: np.ndarray


class MvnKernel(NamedTuple):
    """A multivariate Gaussian block's part: its encoded values (n, d), centred at
    ``shift`` (the training rows' mean), its covariance (one of :data:`MVN_KINDS`),
    and the resolved Normal-Inverse-Wishart prior (``mu`` (d,), ``kappa``, ``nu``,
    ``psi`` (d, d)); MAP-EM."""

    x: np.ndarray
    shift: np.ndarray
    covariance: str
    mu: np.ndarray
    kappa: float
    nu: float
    psi: np.ndarray


def mvn_const(kernel: MvnKernel, K: int) -> float:
    """The part of the block's log prior density (:func:`em_mvn_log_prior`) that does
    not depend on the parameters, for ``K`` components."""
    d, kappa, nu, psi = len(kernel.mu), kernel.kappa, kernel.nu, kernel.psi
    normal = 0.5 * d * (math.log(kappa) - _LOG_2PI)  # per component
    if kernel.covariance in ("full", "tied"):
        log_det_psi = np.linalg.slogdet(psi)[1]
        wishart = 0.5 * nu * (log_det_psi - d * math.log(2.0)) - special.multigammaln(nu / 2.0, d)
        return K * normal + (K if kernel.covariance == "full" else 1) * wishart
    alpha = (nu - d + 1.0) / 2.0
    if kernel.covariance == "diag":
        beta = np.diagonal(psi) / 2.0
        return K * (normal + float(np.sum(alpha * np.log(beta) - special.gammaln(alpha))))
    shape, beta = d * alpha, np.trace(psi) / 2.0
    gamma = shape * math.log(beta) - special.gammaln(shape)
    return K * normal + (K if kernel.covariance == "spherical" else 1) * gamma


def dirichlet_terms(alpha: np.ndarray, method: str, sizes) -> tuple:
    """``(add, coef, const)`` of :class:`DiscreteKernel` for concentrations ``alpha``
    (K, S), every variable's categories a run of ``sizes`` on the last axis, under
    EM's ``method``. MAP adds ``alpha - 1`` and its objective has the prior's log
    density; the mean adds ``alpha``, the mode under ``alpha + 1``, whose log density
    the objective has (:meth:`bayesnb.mixture._Problem.log_prior`); ML adds nothing."""
    if method == "ml":
        zeros = np.zeros_like(alpha)
        return zeros, zeros, 0.0
    raised = alpha + (1.0 if method == "mean" else 0.0)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    norm = (
        special.gammaln(np.add.reduceat(raised, starts, axis=1)).sum()
        - special.gammaln(raised).sum()
    )
    return raised - 1.0, raised - 1.0, float(norm)


def _concat(parts: list, K: int, dtype=float) -> np.ndarray:
    """Arrays (K, ...) side by side, flat (K, sum of sizes); (K, 0) for none."""
    if not parts:
        return np.zeros((K, 0), dtype=dtype)
    return np.ascontiguousarray(
        np.concatenate([np.reshape(p, (K, -1)) for p in parts], axis=1), dtype=dtype
    )


class CompiledProblem:
    """A mixture problem's blocks as :func:`em_run` takes them: every discrete block's
    group codes side by side (its layout shifted past the blocks before it), every
    Gaussian block's columns side by side, and the estimators' constants."""

    def __init__(self, problem, kernels: list):
        from bayesnb.families._kernels import _layout

        K, n = problem.K, problem.n
        self.problem, self.kernels = problem, kernels
        self.parts = []  # (block index, kind, columns of the flat arrays, shape)
        sizes, segments, units = [], [], []
        adds, coefs, const = [], [], 0.0
        flat_at = 0
        max_codes = min((k.max_codes for k in kernels if isinstance(k, DiscreteKernel)), default=1)
        # the Dirichlet-estimated blocks, laid flat: the discrete blocks' categories,
        # then the word counts, each Multinomial block one variable
        discrete = [(i, k) for i, k in enumerate(kernels) if isinstance(k, DiscreteKernel)]
        words = [(i, k) for i, k in enumerate(kernels) if isinstance(k, CountsKernel)]
        for i, kernel in discrete + words:
            if isinstance(kernel, CountsKernel):
                kind, width = "counts", kernel.shape[1]
                sizes.append(width)
                segments.append(flat_at)
            else:
                layout = _layout(tuple(kernel.sizes), kernel.max_codes)
                kind, width = "discrete", int(layout.sizes.sum())
                sizes.extend(kernel.sizes)
                segments.extend(layout.segments + flat_at)
                for g in range(len(layout.offsets)):
                    first, stop = layout.bounds[g], layout.bounds[g + 1]
                    n_codes = int(np.prod(layout.sizes[first:stop] + 1))
                    units.append((stop - first, n_codes, kernel.codes[:, g]))
            adds.append(kernel.add)
            coefs.append(kernel.coef)
            const += kernel.const
            self.parts.append((i, kind, slice(flat_at, flat_at + width), kernel.shape))
            flat_at += width
        group_codes, bounds, offsets, self.n_codes = _merged_groups(units, max_codes, n)
        counts = _word_rows([kernel.counts for _, kernel in words], n)
        self.n_words = counts.shape[1]
        w_start = flat_at - self.n_words
        gauss = [(i, k) for i, k in enumerate(kernels) if isinstance(k, GaussianKernel)]
        d_at = 0
        for i, kernel in gauss:
            d = kernel.x.shape[1]
            self.parts.append((i, "gaussian", slice(d_at, d_at + d), (K, d)))
            d_at += d
        xt = _by_column([kernel.x for _, kernel in gauss], n)
        self.width, self.d = flat_at, d_at
        mvns = [(i, k) for i, k in enumerate(kernels) if isinstance(k, MvnKernel)]
        cols, sq, tri = [0], [0], [0]
        for i, kernel in mvns:
            d = kernel.x.shape[1]
            where = (slice(cols[-1], cols[-1] + d), slice(sq[-1], sq[-1] + d * d))
            self.parts.append((i, "mvn", where, (K, d, kernel.covariance)))
            cols.append(cols[-1] + d)
            sq.append(sq[-1] + d * d)
            tri.append(tri[-1] + d * (d + 1) // 2)
            const += mvn_const(kernel, K)
        xm = _by_column([kernel.x for _, kernel in mvns], n)
        chol_psi = [np.linalg.cholesky(k.psi)[np.tril_indices(len(k.mu))] for _, k in mvns]

        def flat(parts):
            return np.concatenate([np.ravel(p) for p in parts]) if parts else np.zeros(0)

        mvn = (
            xm,
            np.asarray(cols, dtype=np.int64),
            np.asarray(sq, dtype=np.int64),
            np.asarray(tri, dtype=np.int64),
            np.asarray([MVN_KINDS.index(k.covariance) for _, k in mvns], dtype=np.int64),
            flat([k.shift for _, k in mvns]),
        )
        mvn_prior = (
            flat([k.mu for _, k in mvns]),
            np.asarray([k.kappa for _, k in mvns], dtype=float),
            np.asarray([k.nu for _, k in mvns], dtype=float),
            flat([k.psi for _, k in mvns]),
            flat(chol_psi),
        )
        self.mvn_width = (cols[-1], sq[-1])
        #: The multivariate blocks (:func:`em_mvn_estimate`), None when there are none:
        #: the compiled loop then leaves out their code.
        self.mv = _compiled.read_only_arrays((mvn, mvn_prior)) if mvns else None
        weights = np.ones(n) if problem.weights is None else problem.weights
        known = (
            np.empty(0, dtype=np.int64) if problem.known is None else problem.known.astype(np.int64)
        )
        self.inverse = None  # every row's pattern, when the loop reads patterns
        patterns = (
            None if gauss or mvns or words else _patterns(group_codes, self.n_codes, known, K)
        )
        if patterns is not None:  # few possible rows: each read once, weighted
            self.inverse, first = patterns
            group_codes = np.ascontiguousarray(group_codes[:, first])
            weights = np.bincount(self.inverse, weights=weights, minlength=len(first))
            known = known[first] if len(known) else known
            xt = np.empty((0, len(first)))

        def gauss_prior(name):
            return _concat([getattr(k, name) for _, k in gauss], K)

        index = np.asarray
        self.data = _compiled.read_only_arrays(
            (
                group_codes,
                index(offsets, dtype=np.int64),
                index(bounds, dtype=np.int64),
                index(sizes, dtype=np.int64),
                index(segments, dtype=np.int64),
                xt,
                weights,
                known,
                problem.weights is None and self.inverse is None,  # every weight 1
                counts.indptr.astype(np.int64),
                counts.indices.astype(np.int64),
                counts.data,
                w_start,
                self.n_words,
            )
        )
        # the component weights' estimate and prior term
        alpha = np.broadcast_to(problem.class_prior.with_categories(K).alpha, (K,)).astype(float)
        class_method = problem.estimates["class"]
        class_add, class_coef, class_const = dirichlet_terms(alpha[None], class_method, [K])
        methods = [problem.estimates["class"], *problem.estimates["features"].values()]
        self.prior = (
            _concat(adds, K),
            _concat(coefs, K),
            class_add[0].copy(),
            class_coef[0].copy(),
            const + class_const,
            gauss_prior("mu0"),
            gauss_prior("kappa0"),
            gauss_prior("alpha0"),
            gauss_prior("beta0"),
            bool(gauss),
            "ml" in methods,
        )

    def run(self, state, max_iter: int, tol: float, accelerate: bool):
        """EM from ``state`` in the compiled loop: ``(state, history, log-likelihood,
        row_ll, resp, converged, n_sweeps)``, or None when it stopped at something
        irregular (the caller then runs the Python engine, which says what)."""
        return self.run_many([state], max_iter, tol, accelerate)[0]

    def run_many(self, states: list, max_iter: int, tol: float, accelerate: bool) -> list:
        """:meth:`run` from every state of ``states``, the restarts advancing together
        (:func:`em_run`): one result per state, each what it would be alone."""
        problem = self.problem
        K, n, R = problem.K, problem.n, len(states)
        banks = (
            np.empty((R, N_SLOTS, K)),
            np.empty((R, N_SLOTS, K, self.width)),
            np.empty((R, N_SLOTS, K, self.d)),
            np.empty((R, N_SLOTS, K, self.d)),
            np.zeros((R, N_SLOTS, K, self.width)),
            np.zeros((R, N_SLOTS, K, self.d)),
            np.zeros((R, N_SLOTS, K, self.d)),
            np.zeros((R, N_SLOTS, K, self.d)),
            np.zeros((R, N_SLOTS, K)),
            *(np.empty((R, N_SLOTS, K, w)) for w in self.mvn_width),  # mu, cov
            *(np.zeros((R, N_SLOTS, K, w)) for w in self.mvn_width),  # mean, scatter
        )
        for r, state in enumerate(states):
            banks[0][r, _CUR] = state.class_log_prob
            for i, kind, cols, _ in self.parts:
                params = state.block_params[i]
                if kind in ("discrete", "counts"):
                    banks[1][r, _CUR][:, cols] = np.reshape(params["log_prob"], (K, -1))
                elif kind == "mvn":  # the means in the encoding's units
                    banks[9][r, _CUR][:, cols[0]] = params["mu"] - self.kernels[i].shift
                    banks[10][r, _CUR][:, cols[1]] = np.reshape(params["cov"], (K, -1))
                else:
                    banks[2][r, _CUR][:, cols] = params["mu"]
                    banks[3][r, _CUR][:, cols] = params["var"]
        m = self.data[0].shape[1]  # rows, or patterns
        resp, row_ll = np.empty((R, K, m)), np.empty((R, 2, m))
        history = np.empty((R, max_iter + 1))
        info = np.zeros((R, 4), dtype=np.int64)
        lls = np.empty(R)
        em_run(
            self.data,
            self.prior,
            self.mv,
            banks,
            n,
            problem.total_weight,
            max_iter,
            tol * problem.total_weight,
            accelerate,
            resp,
            row_ll,
            history,
            info,
            lls,
        )
        out: list = []
        for r in range(R):
            if info[r, 3] == IRREGULAR:
                out.append(None)
                continue
            r_resp, r_ll = resp[r], row_ll[r, 0] + np.log(row_ll[r, 1])  # top + log(acc)
            if self.inverse is not None:  # every row takes its pattern's
                r_resp, r_ll = r_resp[:, self.inverse], r_ll[self.inverse]
            out.append(
                (
                    self._state(tuple(bank[r] for bank in banks)),
                    history[r, : info[r, 0]].tolist(),
                    float(lls[r]),
                    r_ll,
                    r_resp,
                    bool(info[r, 2]),
                    int(info[r, 1]),
                )
            )
        return out

    def _state(self, banks):
        """The state of slot ``_CUR``: its statistics, one dict per block, estimated by
        the families themselves (:meth:`bayesnb.mixture._Problem.estimate`), so the
        fit holds exactly the parameters its statistics give wherever they are
        estimated again (a saved fit, loaded). They differ from the loop's own by
        the last bits of the logarithms."""
        stats: list = [None] * len(self.problem.blocks)
        for i, kind, cols, shape in self.parts:
            if kind in ("discrete", "counts"):
                stats[i] = {"counts": banks[4][_CUR][:, cols].reshape(shape).copy()}
            elif kind == "mvn":
                K, d, covariance = shape
                scatter = banks[12][_CUR][:, cols[1]].reshape(K, d, d).copy()
                if covariance in DIAGONAL_COVARIANCES:
                    scatter = np.diagonal(scatter, axis1=1, axis2=2).copy()
                stats[i] = {
                    "n": banks[8][_CUR].copy(),
                    "mean": banks[11][_CUR][:, cols[0]] + self.kernels[i].shift,
                    "scatter": scatter,
                }
            else:
                stats[i] = {
                    "n": banks[5][_CUR][:, cols].copy(),
                    "mean": banks[6][_CUR][:, cols].copy(),
                    "ss": banks[7][_CUR][:, cols].copy(),
                }
        return self.problem.estimate(stats, banks[8][_CUR].copy())


def _by_column(values: list, n: int) -> np.ndarray:
    """Blocks' values (each (n, d)) side by side, column by column: (sum of d, n), so
    that every sum over rows runs along contiguous memory (one block stored so, as a
    frame's is, is taken as it is; none gives (0, n))."""
    if len(values) == 1:
        return np.ascontiguousarray(values[0].T, dtype=float)
    out = np.empty((sum(x.shape[1] for x in values), n))
    at = 0
    for x in values:
        out[at : at + x.shape[1]] = x.T
        at += x.shape[1]
    return out


def _word_rows(counts: list, n: int):
    """The blocks' word counts side by side, one CSR matrix (n, total words) of
    float counts (none: no words)."""
    from scipy import sparse

    if not counts:
        return sparse.csr_array((n, 0))
    return sparse.csr_array(sparse.hstack(counts, format="csr"), dtype=float)


def _merged_groups(units: list, max_codes: int, n: int) -> tuple:
    """``(codes, bounds, offsets, n_codes)`` of the discrete blocks' groups side by
    side, adjacent groups merged while their codes number at most ``max_codes``.

    ``units`` holds every block's groups in order, each as ``(columns, n_codes,
    codes)``. Blocks of one column each (a DataFrame's categorical columns) have one
    small group each: merged, a row reads one table entry per merged group instead of
    one per column. A group's code is mixed-radix over its columns, the first least
    significant, so group B after group A adds ``codes_B * n_codes_A`` to A's code.
    ``codes`` (groups, n), C-ordered, holds each group's codes contiguously, in
    :func:`_codes_dtype`'s type."""
    merged: list = []  # (columns, n_codes, [(codes, place)])
    for columns, n_codes, codes in units:
        if merged and merged[-1][1] * n_codes <= max_codes:
            cols, place, parts = merged[-1]
            merged[-1] = (cols + columns, place * n_codes, [*parts, (codes, place)])
        else:
            merged.append((columns, n_codes, [(codes, 1)]))
    widest = max((m[1] for m in merged), default=1)
    out = np.empty((len(merged), n), dtype=_codes_dtype(widest))
    for g, (_, _, parts) in enumerate(merged):
        if len(parts) == 1:
            out[g] = parts[0][0]
            continue
        code = parts[0][0].astype(np.int64)
        for codes, place in parts[1:]:
            code += codes.astype(np.int64) * place
        out[g] = code
    bounds = np.concatenate([[0], np.cumsum([m[0] for m in merged])])
    offsets = np.concatenate([[0], np.cumsum([m[1] for m in merged])])
    return out, bounds, offsets[:-1], int(offsets[-1])


def _codes_dtype(widest: int) -> np.dtype:
    """The group codes' type in the compiled loop: 16 bits, or 32 for a column of more
    than 65 536 categories. One type (and one layout, groups first, C-ordered) for
    every problem, so the loop is compiled once, not once per type and layout (each
    compilation takes tens of seconds); 16 bits, not 8, because the groups of a large
    data set have thousands of codes."""
    return np.dtype(np.uint16 if widest <= 1 << 16 else np.uint32)


def _patterns(codes: np.ndarray, n_codes: int, known: np.ndarray, n_components: int):
    """``(inverse, first)``: every row's pattern (its group codes ``codes`` (groups,
    n), and its known component if any) and the first row of every pattern, when the
    rows can take at most half as many patterns as there are rows (the pattern's key
    then fits a count of every possible key); else None. The loop then reads each
    pattern once, with the rows' summed weight: the same sums, fewer terms."""
    n = codes.shape[1]
    span = 1
    for g in range(codes.shape[0]):
        span *= int(codes[g].max()) + 1 if n else 1
        if span > n // 2:
            return None
    labels = n_components + 1 if len(known) else 1
    if span * labels > n // 2:
        return None
    key = np.zeros(n, dtype=np.int64)
    place = 1
    for g in range(codes.shape[0]):
        key += codes[g].astype(np.int64) * place
        place *= int(codes[g].max()) + 1
    if len(known):
        key += (known + 1) * place
    present = np.bincount(key, minlength=span * labels) > 0
    rank = np.cumsum(present) - 1
    inverse = rank[key]
    first = np.empty(int(present.sum()), dtype=np.intp)
    first[inverse[::-1]] = np.arange(n)[::-1]  # the first row of every pattern
    return inverse, first


def compile_problem(problem) -> CompiledProblem | None:
    """The compiled loop's view of ``problem``, or None when a block has no compiled
    kernel (its family, encoding or estimator; the Python engine then runs EM)."""
    if problem.n == 0 or problem.hard or not hasattr(problem.class_prior, "alpha"):
        return None  # (classification EM, or fixed component weights: a PointMass)
    kernels = [
        block.em_kernel(
            problem.table.take(block.columns), problem.estimates["features"][block.name], problem.K
        )
        for block in problem.blocks
    ]
    if any(k is None for k in kernels):
        return None
    return CompiledProblem(problem, kernels)
