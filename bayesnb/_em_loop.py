"""EM in compiled code: the whole loop of :meth:`bayesnb.mixture._Problem.run`, E-step,
expected statistics, M-step, objective, SQUAREM cycles, the monotonicity check and
the stopping rule, with no Python between iterations.

The engine's Python loop (:mod:`bayesnb.mixture`) calls every family's kernels once per
sweep, which costs about 0.2 ms per iteration whatever the data's size: on the small
data sets latent-class work runs with many restarts, that is the whole cost. Here a
family supplies its compiled pieces instead (:meth:`bayesnb.families.Family.em_kernel`)
and the loop runs over them all, Python touching it only at the start and the end.

Two kinds of block take part, each gathered over every block of its kind:

* **discrete blocks** (Bernoulli, Categorical, Binned) as group codes (see
  :mod:`bayesnb._compiled`): one table of summed log-probabilities per group, read once
  per row and component in the E-step, and one weighted histogram per group in the
  same pass, whose margins are the expected counts. Their parameters lie flat,
  ``logp`` (K, S), every column's categories at ``segments[j]``;
* **diagonal Gaussian blocks** as one dense matrix stored column by column (d, n), so
  that every sum over rows runs along contiguous memory; a missing value (NaN) is
  left out of both steps. The M-step is the Normal-Inverse-Gamma mode (MAP-EM).

Discrete data that can show few distinct rows (at most half as many patterns as
rows) is read once per pattern, with the rows' summed weight. The E-step's
exponentials come from :func:`exp_in_place`, which the compiler vectorizes.

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

#: Rows of a block of the sweep: its scores (K, rows), responsibilities and Gaussian
#: columns stay in L1/L2 while the block is scored and counted.
_ROWS = 1024

#: Rows per code of a discrete block's tables: every iteration rebuilds its tables,
#: zeroes its histogram and sums its margins, so the groups of a small data set are
#: kept to fewer codes than it has rows (a few per row would make them the cost).
ROWS_PER_CODE = 4

#: Outcomes of :func:`em_run` (``info[3]``).
CONVERGED, MAX_ITER, IRREGULAR = 0, 1, 2

#: Cycles over which accelerated EM takes the largest observed rate of the EM map, and
#: the factor by which SQUAREM's bound on the step length grows (and shrinks); the
#: Python engine (:mod:`bayesnb.mixture`) takes both from here.
_RATE_WINDOW = 6
_STEP_FACTOR = 4.0

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
def em_sweep(data, scratch, clp, logp, mu, var, resp, row_ll):
    """The E-step at ``(clp, logp, mu, var)`` and its expected statistics, in one pass.

    Fills ``resp`` (K, n) and ``row_ll`` (2, n), the groups' histogram ``hist``
    (codes, K), the Gaussian sums ``g_n``, ``g_s1``, ``g_s2`` (K, d) of the weights,
    deviations from ``mu`` and squared deviations, and ``class_counts`` (K,).
    ``data`` is :attr:`CompiledProblem.data`, its Gaussian values column by column,
    ``xt`` (d, n), so every sum runs along contiguous memory; ``scratch`` holds the
    statistics and the loop's scratch space (see :func:`em_run`). Returns
    ``(log-likelihood, row)``: ``row`` is -1, or the first row of likelihood 0 under
    every component (the sweep then stops).
    """
    codes, offsets, bounds, sizes, segments, xt, weights, known, unit = data
    table, hist, g_n, g_s1, g_s2, class_counts, scores, inv_sd, const = scratch[:9]
    tops, lls, bits, byrow, no_labels = scratch[9:]
    n_comp = clp.shape[0]
    d, n = xt.shape
    no_weights = np.empty(0)  # (the histogram's rows all soft: ``no_labels`` -1)
    n_groups = codes.shape[1]
    if n_groups:
        _compiled.group_tables(logp, offsets, bounds, sizes, segments, table)
        hist[:] = 0.0
    for k in range(n_comp):
        for j in range(d):
            inv_sd[k, j] = 1.0 / math.sqrt(var[k, j])
            const[k, j] = -0.5 * (math.log(var[k, j]) + _LOG_2PI)
    g_n[:] = 0.0
    g_s1[:] = 0.0
    g_s2[:] = 0.0
    class_counts[:] = 0.0
    total = 0.0
    product, factors = 1.0, 0
    chunk = int(600.0 / math.log(n_comp)) if n_comp > 1 else n + 1
    for start in range(0, n, _ROWS):
        stop = min(n, start + _ROWS)
        m = stop - start
        if n_groups:  # each row reads K adjacent entries per group: summed row by row
            byrow[:m] = 0.0
            for g in range(n_groups):
                _compiled._lookup_codes(codes[start:stop, g], offsets[g], m, table, byrow)
        for k in range(n_comp):
            c = clp[k]
            for r in range(m):
                scores[k, r] = c + byrow[r, k] if n_groups else c
        if d:
            for k in range(n_comp):
                s = scores[k]
                for j in range(d):
                    c, mean, w = const[k, j], mu[k, j], inv_sd[k, j]
                    col = xt[j][start:stop]
                    for r in range(m):
                        v = col[r]
                        z = (v - mean) * w
                        s[r] += c - 0.5 * z * z if v == v else 0.0
        # normalize: responsibilities and every row's log-likelihood (a known row's:
        # its component's joint), by a log-sum-exp over the components
        for r in range(m):
            top = scores[0, r]
            for k in range(1, n_comp):
                top = max(top, scores[k, r])
            if not math.isfinite(top):
                return total, start + r
            tops[r] = top
            label = known[start + r] if len(known) else -1
            lls[r] = scores[label, r] if label >= 0 else 0.0
        for k in range(n_comp):
            s = scores[k]
            for r in range(m):
                s[r] -= tops[r]
            exp_in_place(s[:m], bits)
        # A row's log-likelihood is top + log(acc), acc in [1, K]: kept as the pair
        # (``row_ll[0]``, ``row_ll[1]``), whose logarithms the caller takes once at the
        # end. Unit weights sum the logarithms as the logarithm of products of up to
        # ``chunk`` factors (below K^chunk < 1e260), one libm call per chunk.
        for r in range(m):
            i = start + r
            label = known[i] if len(known) else -1
            w = weights[i]
            if label >= 0:
                ll, acc = lls[r], 1.0
                for k in range(n_comp):
                    scores[k, r] = 0.0
                scores[label, r] = 1.0
            else:
                ll, acc = tops[r], 0.0
                for k in range(n_comp):
                    acc += scores[k, r]
                for k in range(n_comp):
                    scores[k, r] /= acc
            row_ll[0, i], row_ll[1, i] = ll, acc
            for k in range(n_comp):
                resp[k, i] = scores[k, r]
            total += ll * w
            if unit:
                product *= acc
                factors += 1
                if factors == chunk:
                    total += math.log(product)
                    product, factors = 1.0, 0
            else:
                total += w * math.log(acc)
            for k in range(n_comp):
                scores[k, r] *= w
        # the expected statistics of the block, while it is in cache
        for k in range(n_comp):
            acc = 0.0
            for r in range(m):
                acc += scores[k, r]
            class_counts[k] += acc
        if n_groups:
            for r in range(m):
                for k in range(n_comp):
                    byrow[r, k] = scores[k, r]
            for g in range(n_groups):
                _compiled._count_codes(
                    codes[start:stop, g], offsets[g], m, no_labels, no_weights, byrow, hist
                )
        for k in range(n_comp):
            for j in range(d):  # deviations from the swept means, a missing value left out
                s0, s1, s2 = _compiled._column_sums(xt[j][start:stop], scores[k], m, mu[k, j], True)
                g_n[k, j] += s0
                g_s1[k, j] += s1
                g_s2[k, j] += s2
    return total + math.log(product), -1


# -- the M-step -------------------------------------------------------------------------


@_jit
def em_estimate(data, prior, scratch, centre, banks, out):
    """The M-step: the statistics of a sweep (its histogram, Gaussian sums about
    ``centre`` and class counts) as counts, moments and class counts (``counts``,
    ``n_out``, ``mean_out``, ``ss_out``, ``cc_out``), and the estimates from them
    (``clp``, ``logp``, ``mu``, ``var``). Returns 0; 1 where an estimate is undefined
    (a variable's total count <= 0, a negative MAP numerator; the estimates are then
    left unfinished); 2 where a Gaussian component's deviation lies below the spacing
    of floats at its mean. The statistics and estimates go to slot ``out`` of
    ``banks``; ``centre`` is the swept state's Gaussian means."""
    _codes, offsets, bounds, sizes, segments, _x, _weights, _known, _unit = data
    disc_add, _coef, class_add, _ccoef, _const, mu0, kappa0, alpha0, beta0, _gp, strict = prior
    _table, hist, g_n, g_s1, g_s2, class_counts = scratch[:6]
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
            if class_counts[k] <= 0.0:
                return 1
    if counts.shape[1]:
        counts[:] = 0.0
        _compiled.group_margins(hist, offsets, bounds, sizes, segments, counts)
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
        cc_out[k] = class_counts[k]
        num = class_counts[k] + class_add[k]
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
        for j in range(g_n.shape[1]):
            n = g_n[k, j]
            if n > 0.0:
                dev = g_s1[k, j] / n
                mean = centre[k, j] + dev
                ss = g_s2[k, j] - g_s1[k, j] * dev
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
def em_log_prior(prior, clp, logp, mu, var):
    """``log p(theta)``: the discrete priors' ``sum (alpha' - 1) log p`` (``disc_coef``;
    0 where a block has no prior term), the class prior's, their constant
    ``prior_const``, and the Normal-Inverse-Gamma densities of the MAP-estimated
    Gaussian columns (``gauss_prior``), all from ``prior``
    (:attr:`CompiledProblem.prior`)."""
    _add, disc_coef, _cadd, class_coef, prior_const, mu0, kappa0, alpha0, beta0 = prior[:9]
    gauss_prior = prior[9]
    total = prior_const
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


# -- the loop ---------------------------------------------------------------------------

#: Slots of the state banks: the current state, and SQUAREM's points theta0, theta1,
#: theta2, the extrapolated one and the EM step from it.
_CUR, _T0, _T1, _T2, _TX, _TN = range(6)
N_SLOTS = 6


@_jit
def _sweep(run, s, resp, row_ll):
    """The sweep at slot ``s``: ``(objective, log-likelihood, row)`` (see
    :func:`em_sweep`; the objective is -inf when a row has likelihood 0). ``run`` is
    ``(data, prior, scratch, banks)``."""
    data, prior, scratch, banks = run
    clp, logp, mu, var = banks[0][s], banks[1][s], banks[2][s], banks[3][s]
    ll, bad = em_sweep(data, scratch, clp, logp, mu, var, resp, row_ll)
    if bad >= 0:
        return -math.inf, ll, bad
    return ll + em_log_prior(prior, clp, logp, mu, var), ll, -1


@_jit
def _m_step(run, centre, out):
    """The M-step from the last sweep (at slot ``centre``) into slot ``out``
    (:func:`em_estimate`)."""
    data, prior, scratch, banks = run
    return em_estimate(data, prior, scratch, banks[2][centre], banks, out)


@_jit
def _copy(banks, src, dst):
    """Slot ``src`` of every bank copied to slot ``dst``."""
    banks[0][dst] = banks[0][src]
    banks[1][dst] = banks[1][src]
    banks[2][dst] = banks[2][src]
    banks[3][dst] = banks[3][src]
    banks[4][dst] = banks[4][src]
    banks[5][dst] = banks[5][src]
    banks[6][dst] = banks[6][src]
    banks[7][dst] = banks[7][src]
    banks[8][dst] = banks[8][src]


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
def _coordinates(banks, s, scales, out):
    """Slot ``s`` in SQUAREM's unconstrained coordinates, flat: the class
    log-probabilities, the discrete log-probabilities, the Gaussian means over their
    column's ``scales`` and the log-variances."""
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


@_jit
def _extrapolate(banks, sizes, segments, step_max, x0, x1, x2, scales):
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
    _coordinates(banks, _T0, scales, x0)
    _coordinates(banks, _T1, scales, x1)
    _coordinates(banks, _T2, scales, x2)
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


@_jit
def em_run(
    data,
    prior,
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
):
    """EM from the state in slot ``_CUR`` of ``banks`` (its statistics beside it), as
    :meth:`bayesnb.mixture._Problem.run`: plain EM, or SQUAREM cycles when
    ``accelerate``. Leaves the final state in slot ``_CUR``, the final sweep's
    ``resp`` and ``row_ll``, the objective at every accepted point in ``history``,
    and in ``info``: the history's length, the sweeps, whether EM converged, and the
    outcome (:data:`CONVERGED`, :data:`MAX_ITER` or :data:`IRREGULAR`). Returns the
    final sweep's log-likelihood. ``row_ll`` (2, n) holds every row's log-likelihood
    as a pair: ``row_ll[0] + log(row_ll[1])``."""
    _codes, offsets, bounds, sizes, segments, xt, _weights, _known, _unit = data
    clp = banks[0][_CUR]
    n_comp = clp.shape[0]
    n_codes = 0
    for g in range(len(offsets)):
        cur = 1
        for j in range(bounds[g], bounds[g + 1]):
            cur *= sizes[j] + 1
        n_codes = max(n_codes, offsets[g] + cur)
    d = xt.shape[0]
    scratch = (
        np.empty((n_codes, n_comp)),
        np.empty((n_codes, n_comp)),
        np.empty((n_comp, d)),
        np.empty((n_comp, d)),
        np.empty((n_comp, d)),
        np.empty(n_comp),
        np.empty((n_comp, _ROWS)),
        np.empty((n_comp, d)),
        np.empty((n_comp, d)),
        np.empty(_ROWS),  # every row's top score, log-likelihood, and exp's scratch
        np.empty(_ROWS),
        np.empty(_ROWS, dtype=np.int64),
        np.empty((_ROWS if n_codes else 0, n_comp)),  # the discrete scores, row by row
        np.full(_ROWS, -1, dtype=np.int64),  # no row labelled
    )
    size = n_comp * (1 + banks[1].shape[2] + 2 * d)
    x0, x1, x2 = np.empty(size), np.empty(size), np.empty(size)
    scales = np.empty(d)
    slack = np.empty(max_iter + 1)
    checkpoints = np.empty(max_iter + 1)
    rates = np.empty(max_iter + 1)
    info[:] = 0
    run = (data, prior, scratch, banks)

    obj, ll, bad = _sweep(run, _CUR, resp, row_ll)
    if bad >= 0 or not _resolved(banks[2][_CUR], banks[3][_CUR]):
        info[3] = IRREGULAR
        return ll
    n_hist, n_check, n_rates, n_sweeps = 1, 1, 0, 1
    history[0] = obj
    checkpoints[0] = obj
    slack[0] = em_resolution_slack(banks[2][_CUR], banks[3][_CUR], total_weight)
    converged = False
    step_max = 1.0
    irregular = False
    while n_hist - 1 < max_iter:
        if not accelerate or max_iter - (n_hist - 1) < 3:
            obj, ll, ok = _em_step(
                run, _CUR, _CUR, resp, row_ll, history, slack, n_hist, n_rows, total_weight
            )
            n_sweeps += 1
            if not ok:
                irregular = True
                break
            n_hist += 1
            checkpoints[n_check] = obj
            n_check += 1
            if _converged(checkpoints, n_check, target):
                converged = True
                break
            continue
        # One SQUAREM cycle from theta0 = the current state.
        _copy(banks, _CUR, _T0)
        start_objective = obj
        obj, ll, ok = _em_step(
            run, _T0, _T1, resp, row_ll, history, slack, n_hist, n_rows, total_weight
        )
        n_sweeps += 1
        if not ok:
            irregular = True
            break
        n_hist += 1
        first_objective = obj
        if first_objective - start_objective <= 0:  # an EM fixed point, to round-off
            _copy(banks, _T1, _CUR)
            converged = True
            break
        if _m_step(run, _T1, _T2) != 0:
            irregular = True
            break
        moved, alpha, rate = _extrapolate(banks, sizes, segments, step_max, x0, x1, x2, scales)
        rates[n_rates] = rate
        n_rates += 1
        tried = False
        if moved:
            n_sweeps += 1
            t_obj, t_ll, bad = _sweep(run, _TX, resp, row_ll)
            if bad < 0 and math.isfinite(t_obj) and t_obj >= first_objective:
                tried = _m_step(run, _TX, _TN) != 1
        if not tried and moved:  # it would lower the objective
            step_max = max(1.0, step_max / _STEP_FACTOR)
        elif alpha <= -step_max:  # the step length reached its bound: let it grow
            step_max *= _STEP_FACTOR
        if not tried:
            obj, ll, bad = _sweep(run, _T2, resp, row_ll)
            n_sweeps += 1
            at = _T2
        else:
            obj, ll, bad = t_obj, t_ll, -1
            at = _TX
        if bad >= 0 or not _accept(history, slack, n_hist, obj, banks, at, n_rows, total_weight):
            irregular = True
            break
        n_hist += 1
        accepted_objective = obj
        # The stabilizing EM step from the accepted point.
        if tried:
            _copy(banks, _TN, _CUR)
        elif _m_step(run, _T2, _CUR) != 0:
            irregular = True
            break
        obj, ll, ok = _sweep_accepted(
            run, _CUR, resp, row_ll, history, slack, n_hist, n_rows, total_weight
        )
        n_sweeps += 1
        if not ok:
            irregular = True
            break
        n_hist += 1
        cycle_gain = obj - start_objective
        if _converged_cycle(cycle_gain, obj - accepted_objective, rates, n_rates, target):
            converged = True
            break
    info[0], info[1], info[2] = n_hist, n_sweeps, converged
    info[3] = IRREGULAR if irregular else (CONVERGED if converged else MAX_ITER)
    return ll


@_jit
def _em_step(run, centre, out, resp, row_ll, history, slack, n_hist, n_rows, total_weight):
    """One EM step: the M-step from the last sweep (at slot ``centre``) into slot
    ``out``, then the sweep there, accepted into the history (:func:`_sweep_accepted`);
    ``ok`` False when either stops at something irregular."""
    if _m_step(run, centre, out) != 0:
        return -math.inf, 0.0, False
    return _sweep_accepted(run, out, resp, row_ll, history, slack, n_hist, n_rows, total_weight)


@_jit
def _sweep_accepted(run, s, resp, row_ll, history, slack, n_hist, n_rows, total_weight):
    """The sweep at slot ``s`` and its objective's entry in the history:
    ``(objective, log-likelihood, ok)``, ``ok`` False at a row of likelihood 0 or a
    decrease (:func:`_accept`)."""
    obj, ll, bad = _sweep(run, s, resp, row_ll)
    ok = bad < 0 and _accept(history, slack, n_hist, obj, run[3], s, n_rows, total_weight)
    return obj, ll, ok


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


class GaussianKernel(NamedTuple):
    """A diagonal Gaussian block's part: its values (n, d) and the resolved
    Normal-Inverse-Gamma prior, each parameter (K, d); MAP-EM."""

    x: np.ndarray
    mu0: np.ndarray
    kappa0: np.ndarray
    alpha0: np.ndarray
    beta0: np.ndarray


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
        sizes, bounds, offsets, segments, codes = [], [0], [], [], []
        adds, coefs, const = [], [], 0.0
        column = code_at = flat_at = 0
        for i, kernel in enumerate(kernels):
            if not isinstance(kernel, DiscreteKernel):
                continue
            layout = _layout(tuple(kernel.sizes), kernel.max_codes)
            width = int(layout.sizes.sum())
            sizes.extend(kernel.sizes)
            bounds.extend(layout.bounds[1:] + column)
            offsets.extend(layout.offsets + code_at)
            segments.extend(layout.segments + flat_at)
            codes.append(kernel.codes)
            adds.append(kernel.add)
            coefs.append(kernel.coef)
            const += kernel.const
            self.parts.append((i, "discrete", slice(flat_at, flat_at + width), kernel.shape))
            column += len(kernel.sizes)
            code_at += layout.n_codes
            flat_at += width
        n_groups = sum(c.shape[1] for c in codes)
        dtype = np.result_type(*[c.dtype for c in codes]) if codes else np.uint8
        group_codes = np.empty((n_groups, n), dtype=dtype).T  # each group's codes contiguous
        at = 0
        for c in codes:
            group_codes[:, at : at + c.shape[1]] = c
            at += c.shape[1]
        gauss = [(i, k) for i, k in enumerate(kernels) if isinstance(k, GaussianKernel)]
        d_at = 0
        for i, kernel in gauss:
            d = kernel.x.shape[1]
            self.parts.append((i, "gaussian", slice(d_at, d_at + d), (K, d)))
            d_at += d
        # the Gaussian values column by column (a frame's block already is)
        if len(gauss) == 1:
            xt = np.ascontiguousarray(gauss[0][1].x.T, dtype=float)
        else:  # none (0, n), or several stacked
            xt = np.empty((d_at, n))
            gauss_parts = [part for part in self.parts if part[1] == "gaussian"]
            for (_, kernel), (_, _, cols, _) in zip(gauss, gauss_parts, strict=True):
                xt[cols] = kernel.x.T
        self.width, self.d = flat_at, d_at
        weights = np.ones(n) if problem.weights is None else problem.weights
        known = (
            np.empty(0, dtype=np.int64) if problem.known is None else problem.known.astype(np.int64)
        )
        self.inverse = None  # every row's pattern, when the loop reads patterns
        patterns = None if gauss else _patterns(group_codes, code_at, known, K)
        if patterns is not None:  # few possible rows: each read once, weighted
            self.inverse, first = patterns
            group_codes = np.ascontiguousarray(group_codes[first].T).T
            weights = np.bincount(self.inverse, weights=weights, minlength=len(first))
            known = known[first] if len(known) else known
            xt = np.empty((0, len(first)))

        def gauss_prior(name):
            return _concat([getattr(k, name) for _, k in gauss], K)

        index = np.asarray
        self.data = (
            group_codes,
            index(offsets, dtype=np.int64),
            index(bounds, dtype=np.int64),
            index(sizes, dtype=np.int64),
            index(segments, dtype=np.int64),
            xt,
            weights,
            known,
            problem.weights is None and self.inverse is None,  # every weight 1
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
        problem = self.problem
        K, n = problem.K, problem.n
        banks = (
            np.empty((N_SLOTS, K)),
            np.empty((N_SLOTS, K, self.width)),
            np.empty((N_SLOTS, K, self.d)),
            np.empty((N_SLOTS, K, self.d)),
            np.zeros((N_SLOTS, K, self.width)),
            np.zeros((N_SLOTS, K, self.d)),
            np.zeros((N_SLOTS, K, self.d)),
            np.zeros((N_SLOTS, K, self.d)),
            np.zeros((N_SLOTS, K)),
        )
        banks[0][_CUR] = state.class_log_prob
        for i, kind, cols, _ in self.parts:
            params = state.block_params[i]
            if kind == "discrete":
                banks[1][_CUR][:, cols] = np.reshape(params["log_prob"], (K, -1))
            else:
                banks[2][_CUR][:, cols] = params["mu"]
                banks[3][_CUR][:, cols] = params["var"]
        m = n if self.inverse is None else self.data[0].shape[0]  # rows, or patterns
        resp, row_ll = np.empty((K, m)), np.empty((2, m))
        history = np.empty(max_iter + 1)
        info = np.zeros(4, dtype=np.int64)
        target = tol * problem.total_weight
        log_likelihood = em_run(
            self.data,
            self.prior,
            banks,
            n,
            problem.total_weight,
            max_iter,
            target,
            accelerate,
            resp,
            row_ll,
            history,
            info,
        )
        if info[3] == IRREGULAR:
            return None
        row_ll = row_ll[0] + np.log(row_ll[1])  # top + log(acc), the logarithms at once
        if self.inverse is not None:  # every row takes its pattern's
            resp, row_ll = resp[:, self.inverse], row_ll[self.inverse]
        return (
            self._state(banks),
            history[: info[0]].tolist(),
            float(log_likelihood),
            row_ll,
            resp,
            bool(info[2]),
            int(info[1]),
        )

    def _state(self, banks):
        """The state of slot ``_CUR``: its statistics, one dict per block, estimated by
        the families themselves (:meth:`bayesnb.mixture._Problem.estimate`), so the
        fit holds exactly the parameters its statistics give wherever they are
        estimated again (a saved fit, loaded). They differ from the loop's own by
        the last bits of the logarithms."""
        stats: list = [None] * len(self.problem.blocks)
        for i, kind, cols, shape in self.parts:
            if kind == "discrete":
                stats[i] = {"counts": banks[4][_CUR][:, cols].reshape(shape).copy()}
            else:
                stats[i] = {
                    "n": banks[5][_CUR][:, cols].copy(),
                    "mean": banks[6][_CUR][:, cols].copy(),
                    "ss": banks[7][_CUR][:, cols].copy(),
                }
        return self.problem.estimate(stats, banks[8][_CUR].copy())


def _patterns(codes: np.ndarray, n_codes: int, known: np.ndarray, n_components: int):
    """``(inverse, first)``: every row's pattern (its group codes, and its known
    component if any) and the first row of every pattern, when the rows can take at
    most half as many patterns as there are rows (the pattern's key then fits a
    count of every possible key); else None. The loop then reads each pattern once,
    with the rows' summed weight: the same sums, fewer terms."""
    n = codes.shape[0]
    span = 1
    for g in range(codes.shape[1]):
        span *= int(codes[:, g].max()) + 1 if n else 1
        if span > n // 2:
            return None
    labels = n_components + 1 if len(known) else 1
    if span * labels > n // 2:
        return None
    key = np.zeros(n, dtype=np.int64)
    place = 1
    for g in range(codes.shape[1]):
        key += codes[:, g].astype(np.int64) * place
        place *= int(codes[:, g].max()) + 1
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
    if problem.n == 0:
        return None
    kernels = [
        block.em_kernel(
            problem.table.take(block.columns), problem.estimates["features"][block.name], problem.K
        )
        for block in problem.blocks
    ]
    if any(k is None for k in kernels):
        return None
    return CompiledProblem(problem, kernels)
