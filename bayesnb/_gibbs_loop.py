"""The blocked Gibbs sampler of :mod:`bayesnb.mcmc` in compiled code: every sweep's
memberships, counts and conjugate draws in one loop, with no Python between sweeps.

It reads the mixture as the compiled EM loop does (:class:`bayesnb._em_loop.
CompiledProblem`): the discrete blocks' group codes, scored through one table of
summed log-probabilities per group and counted in one histogram per group, the
Multinomial blocks' word counts (one CSR matrix, scored through a words-by-components
table and counted into the flat counts row by row), the diagonal Gaussian
columns, and the multivariate Gaussian blocks (scored by the EM loop's kernels, their
statistics counted and their Normal-Inverse-Wishart posterior drawn chain by chain,
as the family's update needs one labelling's components at a time). The chains lie
side by side on one axis of ``chains * K`` components, so each read of a row serves
every chain.

The random numbers come from the user's :class:`numpy.random.Generator`, called from
the compiled code (numba draws with NumPy's own algorithms on the Generator's bit
generator), in the order of :func:`bayesnb.mcmc.gibbs`'s Python sweep: the uniforms
of the memberships, row by row and chain by chain; then the blocks' parameters,
fused group by fused group, each as its family's ``draw_params`` draws them (a
Dirichlet's gamma variates and then the uniforms of its concentrations below 1; a
Gaussian's gamma variates and then its normals; a multivariate block's, chain by
chain, Bartlett gamma variates and normals or its variances' gamma variates, then its
means' normals); then the component weights'. The
two samplers therefore give the same draws from the same seed, up to round-off (the
exponentials of the memberships come from :func:`bayesnb._em_loop.exp_in_place`,
within one unit in the last place of libm's, so a uniform that falls within that of a
boundary between components could pick the other one).
"""

from __future__ import annotations

import math

import numpy as np

from bayesnb import _compiled, _em_loop
from bayesnb._compiled import _jit
from bayesnb.errors import InputError
from bayesnb.families.base import fused_groups, joined

#: Sweeps per call of the compiled loop: the progress bar advances between calls.
_SWEEPS_PER_CALL = 100

#: Rows whose memberships are drawn together: their exponentials in one vectorized call.
_ROWS = 256

_LOG_2PI = math.log(2.0 * math.pi)

#: Kinds of a fused group's draws.
_DISCRETE, _GAUSSIAN, _MVN = 0, 1, 2

#: The parts of :attr:`bayesnb._em_loop.CompiledProblem.parts` drawn from Dirichlets:
#: a discrete block's categories, a Multinomial block's words.
_DIRICHLET = ("discrete", "counts")


@_jit
def _log_gamma(rng, alpha):
    """``log G``, ``G ~ Gamma(alpha, 1)``, drawn as :func:`bayesnb.priors.
    log_gamma_draws` draws it: from ``Gamma(alpha + 1)`` below ``alpha = 1`` (the
    caller adds the uniform's term ``log(U) / alpha`` afterwards, in that order)."""
    return math.log(rng.standard_gamma(alpha + 1.0 if alpha < 1.0 else alpha))


@_jit
def _normalize(values, a, b, out):
    """``out[a:b] = values[a:b] - log(sum(exp(values[a:b])))``, shifted by the
    maximum."""
    top = -math.inf
    for v in range(a, b):
        top = max(top, values[v])
    total = 0.0
    for v in range(a, b):
        total += math.exp(values[v] - top)
    lt = math.log(total) + top
    for v in range(a, b):
        out[v] = values[v] - lt


@_jit
def _mvn_scores(mv, state, work, n_comp, scores):
    """Add every multivariate block's log density of every row to ``scores`` (rows,
    width), by the EM loop's kernels (which lay the rows along the last axis), a
    block of rows at a time."""
    mv_mu, mv_cov = state
    chol, const, centre, bad, z, part = work[:6]
    _em_loop.em_mvn_prepare(mv[0], mv_mu, mv_cov, n_comp, chol, const, centre, bad)
    n, width = scores.shape
    for start in range(0, n, _ROWS):
        m = min(n, start + _ROWS) - start
        part[:, :m] = 0.0
        _em_loop.em_mvn_scores(mv[0], chol, const, centre, start, m, z, part)
        for r in range(m):
            for k in range(width):
                scores[start + r, k] += part[k, r]


@_jit
def _mvn_draw(mv, b, chains, n_comp, z, weights, rng, state, work):
    """Multivariate block ``b``'s means and covariances of every chain's components
    given the memberships ``z`` (rows, chains): their statistics (count, mean, and
    scatter about that mean), then chain by chain the Normal-Inverse-Wishart
    posterior and one draw from it, with the user's Generator in the order of
    :meth:`bayesnb.families.MultivariateGaussian.draw_params`: an Inverse-Wishart's
    Bartlett gamma variates (component by component) and then its normals below
    the diagonal, or every variance's gamma variate; then the means' normals."""
    (xm, cols, sq, _tri, kind, shift), (mu0, kappa0, nu0, psi, _chol_psi) = mv
    mv_mu, mv_cov = state
    cnt, mean, q = work[6:9]
    c0, d, q0 = cols[b], cols[b + 1] - cols[b], sq[b]
    kb, kappa, nu = kind[b], kappa0[b], nu0[b]
    diagonal = _em_loop._diagonal(kb)
    tied = kb == _em_loop._TIED or kb == _em_loop._TIED_SPHERICAL
    width = chains * n_comp
    # every component's weighted count, mean (in the encoding's units) and scatter
    for k in range(width):
        cnt[k] = 0.0
        for j in range(d):
            mean[k, j] = 0.0
        for t in range(d * d):
            q[k, t] = 0.0
    for i in range(z.shape[0]):
        for c in range(chains):
            k = c * n_comp + z[i, c]
            cnt[k] += weights[i]
            for j in range(d):
                mean[k, j] += weights[i] * xm[c0 + j, i]
    for k in range(width):
        for j in range(d):
            mean[k, j] = mean[k, j] / cnt[k] if cnt[k] > 0.0 else 0.0
    for i in range(z.shape[0]):
        for c in range(chains):
            k = c * n_comp + z[i, c]
            for j in range(d):
                dj = weights[i] * (xm[c0 + j, i] - mean[k, j])
                for p in range(j if diagonal else 0, j + 1):
                    q[k, j * d + p] += dj * (xm[c0 + p, i] - mean[k, p])
    alpha0 = (nu - d + 1.0) / 2.0
    n_laws = 1 if tied else n_comp  # the covariances' laws: one shared, or one each
    mu_n, kappa_n = np.empty((n_comp, d)), np.empty(n_comp)
    psi_n, nu_n = np.empty((n_laws, d, d)), np.empty(n_laws)
    a, factor = np.zeros((n_laws, d, d)), np.zeros((n_comp, d, d))
    packed, flat, solved = np.empty(d * (d + 1) // 2), np.empty(d * d), np.empty(d)
    for c in range(chains):
        # the posterior: mu_n, kappa_n, and psi plus the quadratic terms (summed if tied)
        for t in range(n_laws):
            nu_n[t] = nu
            for j in range(d):
                for p in range(d):
                    psi_n[t, j, p] = psi[q0 + j * d + p] if not diagonal or p == j else 0.0
        for k in range(n_comp):
            g = c * n_comp + k
            n = cnt[g]
            kappa_n[k] = kappa + n
            pull = kappa * n / kappa_n[k]
            t = 0 if tied else k
            nu_n[t] += n
            for j in range(d):
                dj = mean[g, j] + shift[c0 + j] - mu0[c0 + j]
                mu_n[k, j] = mu0[c0 + j] + n * dj / kappa_n[k]
                for p in range(j if diagonal else 0, j + 1):
                    dp = mean[g, p] + shift[c0 + p] - mu0[c0 + p]
                    v = q[g, j * d + p] + pull * dj * dp
                    psi_n[t, j, p] += v
                    if p != j:
                        psi_n[t, p, j] += v
        if diagonal:  # every variance beta_n / Gamma(alpha_n), per component or shared
            for t in range(n_laws):
                n = nu_n[t] - nu
                if kb == _em_loop._DIAG:
                    for j in range(d):
                        a[t, j, j] = psi_n[t, j, j] / 2.0 / rng.standard_gamma(alpha0 + n / 2.0)
                else:
                    trace = 0.0
                    for j in range(d):
                        trace += psi_n[t, j, j]
                    var = trace / 2.0 / rng.standard_gamma(d * alpha0 + n * d / 2.0)
                    for j in range(d):
                        a[t, j, j] = var
            for k in range(n_comp):
                t = 0 if tied else k
                for j in range(d):
                    factor[k, j, j] = math.sqrt(a[t, j, j])
        else:  # Bartlett: M = C A^-T for Psi_n = C C^T, A_jj^2 ~ chi2(nu_n - j)
            for t in range(n_laws):
                for j in range(d):
                    a[t, j, j] = math.sqrt(2.0 * rng.standard_gamma((nu_n[t] - j) / 2.0))
            for t in range(n_laws):
                for j in range(1, d):
                    for p in range(j):
                        a[t, j, p] = rng.standard_normal()
            for t in range(n_laws):
                for j in range(d):
                    for p in range(d):
                        flat[j * d + p] = psi_n[t, j, p]
                _em_loop._cholesky(flat, 0, d, packed, 0)
                for col in range(d):  # row col of M: A^-1 (row col of C) by substitution
                    for j in range(d):
                        v = packed[_em_loop._at(col, j)] if j <= col else 0.0
                        for p in range(j):
                            v -= a[t, j, p] * solved[p]
                        solved[j] = v / a[t, j, j]
                    for j in range(d):
                        factor[t, col, j] = solved[j]
            for k in range(1, n_comp if tied else 0):
                factor[k] = factor[0]
        for k in range(n_comp):  # mu = mu_n + M e / sqrt(kappa_n), e standard normal
            for j in range(d):
                solved[j] = rng.standard_normal()
            g = c * n_comp + k
            for j in range(d):
                v = 0.0
                for p in range(d):
                    v += factor[k, j, p] * solved[p]
                mv_mu[g, c0 + j] = mu_n[k, j] + v / math.sqrt(kappa_n[k])
            for j in range(d):
                for p in range(d):
                    v = 0.0
                    for r in range(d):
                        v += factor[k, j, r] * factor[k, p, r]
                    mv_cov[g, q0 + j * d + p] = v


@_jit
def gibbs_sweeps(data, rows, prior, order, rng, state, work, out, first, stop, tune, multi):
    """Sweeps ``first`` to ``stop - 1`` of the Gibbs sampler from ``state``, which
    they leave at the last sweep's draws; a sweep from ``tune`` on is kept in ``out``.

    ``data``: :attr:`bayesnb._em_loop.CompiledProblem.data` (group codes and
    Gaussian columns, one per row or per pattern, and the word counts' CSR rows).
    ``rows``: every row's pattern, weight and known component (-1 where free).
    ``prior``: the concentrations (K, S) of every discrete column's categories and
    every block's words, the class prior's (K,), and the
    Normal-Inverse-Gamma's ``mu``, ``kappa``, ``alpha``, ``beta`` (K, d).
    ``order``: the fused groups' kinds, the bounds of each in ``index``, and
    ``index``, the flat columns of every group in its own order. ``state``: the
    component log-weights (chains, K), and every component's ``logp`` (chains K,
    S), ``mu`` and ``var`` (chains K, d). ``out``: the kept draws of each, (chains,
    draws, K, ...). ``multi``: None, or the multivariate blocks (``mv``, as
    :attr:`bayesnb._em_loop.CompiledProblem.mv`), their state (every component's
    means (chains K, D) and covariances (chains K, Q)), scratch and kept draws.
    """
    codes, offsets, bounds, sizes, segments, xt, _w, _known, _unit = data[:9]
    w_ptr, w_idx, w_val, w_start, n_words = data[9:]
    inverse, weights, known = rows
    conc, class_alpha, mu0, kappa0, alpha0, beta0 = prior
    kinds, starts, index = order
    clp, logp, mu, var = state
    table, hist, scores, u, z, counts, lg, g_n, g_mean, g_ss, inv_sd, const = work[:12]
    class_counts, class_lg, terms, tops, bits, w_table = work[12:]
    out_clp, out_logp, out_mu, out_var = out
    chains, n_comp = clp.shape
    width = chains * n_comp
    n, m, d = len(weights), scores.shape[0], xt.shape[0]
    n_groups = codes.shape[0]
    for sweep in range(first, stop):
        # z | theta: every pattern's score under every chain's components
        if n_groups:
            _compiled.group_tables(logp, offsets, bounds, sizes, segments, table)
        for c in range(n_words):  # every word's log-probabilities, components side by side
            for k in range(width):
                w_table[c, k] = logp[k, w_start + c]
        for k in range(width):
            for j in range(d):
                inv_sd[k, j] = 1.0 / math.sqrt(var[k, j])
                const[k, j] = -0.5 * (math.log(var[k, j]) + _LOG_2PI)
        for p in range(m):
            for k in range(width):
                scores[p, k] = 0.0
            for g in range(n_groups):
                b = offsets[g] + codes[g, p]
                for k in range(width):
                    scores[p, k] += table[b, k]
            if n_words:  # (rows are read one by one where there are words: p is the row)
                _em_loop._word_scores(w_ptr, w_idx, w_val, p, 1, w_table, scores[p:])
            for j in range(d):
                v = xt[j, p]
                if v == v:  # a missing value scores 0
                    for k in range(width):
                        t = (v - mu[k, j]) * inv_sd[k, j]
                        scores[p, k] += const[k, j] - 0.5 * t * t
        if multi is not None:  # every row read (no patterns beside such blocks)
            _mvn_scores(multi[0], multi[1], multi[2], n_comp, scores)
            if multi[2][3].min() == 0.0:  # a covariance that is not definite: the caller raises
                return
        for i in range(n * chains):
            u[i] = rng.random()
        # one component per row and chain (as :func:`bayesnb._compiled.
        # draw_memberships` draws it), counted as it is drawn; the
        # exponentials of a block of rows at once, in the vectorized loop
        if n_groups:
            hist[:] = 0.0
        class_counts[:] = 0.0
        counts[:] = 0.0
        for start in range(0, n, _ROWS):
            stop = min(n, start + _ROWS)
            for i in range(start, stop):
                p = inverse[i]
                for c in range(chains):
                    base, at = c * n_comp, ((i - start) * chains + c) * n_comp
                    top = -math.inf
                    for j in range(n_comp):
                        top = max(top, scores[p, base + j] + clp[c, j])
                    tops[(i - start) * chains + c] = top
                    for j in range(n_comp):
                        terms[at + j] = scores[p, base + j] + clp[c, j] - top
            _em_loop.exp_in_place(terms[: (stop - start) * width], bits)
            for i in range(start, stop):
                p, w = inverse[i], weights[i]
                for c in range(chains):
                    base, at = c * n_comp, ((i - start) * chains + c) * n_comp
                    zz = n_comp - 1  # (a row scored infinite or NaN everywhere)
                    if known[i] >= 0:
                        zz = known[i]
                    elif math.isfinite(tops[(i - start) * chains + c]):
                        zz = _compiled.inverse_transform(terms, at, n_comp, u[i * chains + c])
                    z[i, c] = zz
                    class_counts[base + zz] += w
                    for g in range(n_groups):
                        hist[offsets[g] + codes[g, p], base + zz] += w
                    for j in range(w_ptr[i], w_ptr[i + 1]):
                        counts[base + zz, w_start + w_idx[j]] += w * w_val[j]
        if n_groups:
            _compiled.group_margins(hist, offsets, bounds, sizes, segments, counts)
        # the Gaussian columns' count, mean and centred sum of squares per component
        if d:
            g_n[:] = 0.0
            g_mean[:] = 0.0
            g_ss[:] = 0.0
            for j in range(d):
                for i in range(n):
                    v = xt[j, i]
                    if v == v:
                        for c in range(chains):
                            k = c * n_comp + z[i, c]
                            g_n[k, j] += weights[i]
                            g_mean[k, j] += weights[i] * v
                for k in range(width):
                    if g_n[k, j] > 0.0:
                        g_mean[k, j] /= g_n[k, j]
                for i in range(n):
                    v = xt[j, i]
                    if v == v:
                        for c in range(chains):
                            k = c * n_comp + z[i, c]
                            dv = v - g_mean[k, j]
                            g_ss[k, j] += weights[i] * dv * dv
        # theta | z: group by group, in the order of the Python sampler's draws
        for gr in range(len(kinds)):
            a, b = starts[gr], starts[gr + 1]
            if kinds[gr] == _MVN:
                if multi is not None:
                    mv, mv_state, mv_work = multi[0], multi[1], multi[2]
                    _mvn_draw(mv, index[a], chains, n_comp, z, weights, rng, mv_state, mv_work)
                continue
            if kinds[gr] == _DISCRETE:
                for k in range(width):
                    for t in range(a, b):
                        v = index[t]
                        lg[k, v] = _log_gamma(rng, counts[k, v] + conc[k % n_comp, v])
                for k in range(width):
                    for t in range(a, b):
                        v = index[t]
                        alpha = counts[k, v] + conc[k % n_comp, v]
                        if alpha < 1.0:
                            lg[k, v] += math.log(rng.random()) / alpha
                continue
            # a Gaussian group: sigma^2 = beta_n / Gamma(alpha_n), then the means; the
            # posterior's mu_n and kappa_n go to ``mu`` and ``g_n`` for the second pass
            for k in range(width):
                for t in range(a, b):
                    j = index[t]
                    q = k % n_comp
                    nk = g_n[k, j]
                    kn = kappa0[q, j] + nk
                    delta = g_mean[k, j] - mu0[q, j] if nk > 0.0 else 0.0
                    alpha_n = alpha0[q, j] + nk / 2.0
                    beta_n = (
                        beta0[q, j]
                        + g_ss[k, j] / 2.0
                        + (kappa0[q, j] * nk / (2.0 * kn)) * (delta * delta)
                    )
                    var[k, j] = beta_n / rng.standard_gamma(alpha_n)
                    mu[k, j] = mu0[q, j] + delta * (nk / kn)
                    g_n[k, j] = kn
            for k in range(width):
                for t in range(a, b):
                    j = index[t]
                    mu[k, j] += rng.standard_normal() * math.sqrt(var[k, j] / g_n[k, j])
        for k in range(width):  # every variable's log-gammas normalized
            for j in range(len(sizes)):
                _normalize(lg[k], segments[j], segments[j] + sizes[j], logp[k])
        # the component weights
        for c in range(chains):
            for k in range(n_comp):
                class_lg[c, k] = _log_gamma(rng, class_alpha[k] + class_counts[c * n_comp + k])
        for c in range(chains):
            for k in range(n_comp):
                alpha = class_alpha[k] + class_counts[c * n_comp + k]
                if alpha < 1.0:
                    class_lg[c, k] += math.log(rng.random()) / alpha
        for c in range(chains):
            _normalize(class_lg[c], 0, n_comp, clp[c])
        if sweep >= tune:
            s = sweep - tune
            for c in range(chains):
                for k in range(n_comp):
                    out_clp[c, s, k] = clp[c, k]
                    out_logp[c, s, k] = logp[c * n_comp + k]
                    out_mu[c, s, k] = mu[c * n_comp + k]
                    out_var[c, s, k] = var[c * n_comp + k]
            if multi is not None:
                out_mv_mu, out_mv_cov = multi[3]
                mv_mu, mv_cov = multi[1]
                for c in range(chains):
                    for k in range(n_comp):
                        out_mv_mu[c, s, k] = mv_mu[c * n_comp + k]
                        out_mv_cov[c, s, k] = mv_cov[c * n_comp + k]


class CompiledGibbs:
    """A mixture problem laid out for :func:`gibbs_sweeps`: its compiled EM view, the
    priors' hyperparameters from the families' own conjugate posteriors at zero
    counts, and the order in which :func:`bayesnb.mcmc.gibbs` draws the groups."""

    @staticmethod
    def covers(problem) -> bool:
        """Whether the compiled sweep draws every block of ``problem``: whether its EM
        runs in the compiled loop."""
        return problem.compiled is not None

    def __init__(self, problem):
        compiled = problem.compiled
        K = problem.K
        self.problem, self.compiled = problem, compiled
        conc = np.zeros((K, compiled.width))
        nig = [np.zeros((K, compiled.d)) for _ in range(4)]
        columns: list = [None] * len(problem.blocks)  # each block's flat columns, laid out
        n_mvn = 0
        for i, kind, cols, shape in compiled.parts:
            block = problem.blocks[i]
            flat = None if kind == "mvn" else np.arange(cols.start, cols.stop, dtype=float)
            if kind == "mvn":  # drawn by block number, under the EM loop's prior
                columns[i] = {"mvn": np.array([[n_mvn]])}
                n_mvn += 1
            elif kind in _DIRICHLET:
                hyper = block.posterior_hyper({"counts": np.zeros(shape)})
                conc[:, cols] = np.reshape(hyper["concentration"], (K, -1))
                columns[i] = {"log_prob": np.broadcast_to(flat.reshape(shape[1:]), shape)}
            else:
                zeros = np.zeros(shape)
                hyper = block.posterior_hyper({"n": zeros, "mean": zeros, "ss": zeros})
                for out, key in zip(nig, ("mu", "kappa", "alpha", "beta"), strict=True):
                    out[:, cols] = hyper[key]
                laid = np.broadcast_to(flat, shape)
                columns[i] = {"mu": laid, "var": laid}
        alpha = problem.class_prior.resolve(K)
        self.prior = (conc, np.broadcast_to(alpha, (K,)).astype(float), *nig)
        groups = fused_groups(problem.blocks)
        kinds, index = [], []
        for laid in joined(groups, columns):
            key = next(k for k in ("log_prob", "mvn", "mu") if k in laid)
            kinds.append({"log_prob": _DISCRETE, "mvn": _MVN, "mu": _GAUSSIAN}[key])
            index.append(np.asarray(laid[key])[0].ravel())
        starts = np.concatenate([[0], np.cumsum([len(i) for i in index])])
        self.order = (
            np.asarray(kinds, dtype=np.int64),
            starts.astype(np.int64),
            np.concatenate(index).astype(np.int64) if index else np.zeros(0, np.int64),
        )
        n = problem.n
        inverse = np.arange(n) if compiled.inverse is None else compiled.inverse
        weights = np.ones(n) if problem.weights is None else problem.weights
        known = np.full(n, -1) if problem.known is None else problem.known
        self.rows = _compiled.read_only_arrays(
            (
                inverse.astype(np.int64),
                np.asarray(weights, dtype=float),
                np.asarray(known, dtype=np.int64),
            )
        )

    def sample(self, class_log_prob, params: list, draws: int, tune: int, rng, advance):
        """``(class_log_prob (chains, draws, K), block_params)``: ``draws`` kept sweeps
        after ``tune``, from the chains' log-weights ``class_log_prob`` (chains, K)
        and their components' parameters ``params`` (one dict per block, ``chains *
        K`` components, chain-major). ``advance(n)`` is called after every ``n``
        sweeps."""
        compiled, problem = self.compiled, self.problem
        chains, K = class_log_prob.shape
        width, S, d = chains * K, compiled.width, compiled.d
        logp, mu, var = np.zeros((width, S)), np.ones((width, d)), np.ones((width, d))
        for i, kind, cols, _ in compiled.parts:
            if kind == "mvn":
                continue
            if kind in _DIRICHLET:
                logp[:, cols] = np.reshape(params[i]["log_prob"], (width, -1))
            else:
                mu[:, cols], var[:, cols] = params[i]["mu"], params[i]["var"]
        state = (np.array(class_log_prob, dtype=float), logp, mu, var)
        multi = self._multivariate(params, chains, draws)
        codes, n_codes = compiled.data[0], compiled.n_codes
        n, m = problem.n, codes.shape[1]
        work = (
            np.empty((n_codes, width)),
            np.empty((n_codes, width)),
            np.empty((m, width)),
            np.empty(n * chains),
            np.empty((n, chains), dtype=np.int64),
            np.zeros((width, S)),
            np.empty((width, S)),
            *(np.empty((width, d)) for _ in range(5)),
            np.empty(width),
            np.empty((chains, K)),
            np.empty(_ROWS * width),
            np.empty(_ROWS * chains),
            np.empty(_ROWS * width, dtype=np.int64),
            np.empty((compiled.n_words, width)),
        )
        out = (
            np.empty((chains, draws, K)),
            np.empty((chains, draws, K, S)),
            np.empty((chains, draws, K, d)),
            np.empty((chains, draws, K, d)),
        )
        total = tune + draws
        for first in range(0, total, _SWEEPS_PER_CALL):
            stop = min(total, first + _SWEEPS_PER_CALL)
            gibbs_sweeps(
                compiled.data, self.rows, self.prior, self.order, rng, state, work, out,
                first, stop, tune, multi,
            )  # fmt: skip
            if multi is not None and not multi[2][3].all():
                names = [b.name for b in problem.blocks if b.kind == "multivariate_gaussian"]
                raise InputError(
                    "the Gibbs sampler met a covariance of the MultivariateGaussian "
                    f"block(s) {names!r} that is not numerically definite (its Cholesky "
                    "factorization failed), so the rows' densities are undefined: the "
                    "columns' scales differ too much for float precision, or a component "
                    "holds too few rows for so weak a prior. Rescale the columns, or give "
                    "a stronger prior (bnb.NormalInverseWishart(nu=..., psi=...))."
                )
            advance(stop - first)
        size = chains * draws * K
        block_params: list = [None] * len(problem.blocks)
        for i, kind, cols, shape in compiled.parts:
            if kind == "mvn":
                d = shape[1]
                block_params[i] = {
                    "mu": multi[3][0][..., cols[0]].reshape(size, d),
                    "cov": multi[3][1][..., cols[1]].reshape(size, d, d),
                }
            elif kind in _DIRICHLET:
                block_params[i] = {"log_prob": out[1][..., cols].reshape(size, *shape[1:])}
            else:
                block_params[i] = {
                    "mu": out[2][..., cols].reshape(size, -1),
                    "var": out[3][..., cols].reshape(size, -1),
                }
        return out[0], block_params

    def _multivariate(self, params: list, chains: int, draws: int):
        """The multivariate blocks' part of :func:`gibbs_sweeps`: None without them,
        else ``(mv, (means, covariances), scratch, kept draws)``, every component's
        parameters from ``params`` (chain-major)."""
        compiled = self.compiled
        if compiled.mv is None:
            return None
        K = self.problem.K
        width = chains * K
        (D, Q), (_xm, cols, _sq, tri, kind, _shift) = compiled.mvn_width, compiled.mv[0]
        d_max = int(np.max(np.diff(cols)))
        mv_mu, mv_cov = np.empty((width, D)), np.empty((width, Q))
        for i, part, where, _ in compiled.parts:
            if part == "mvn":
                mv_mu[:, where[0]] = params[i]["mu"]
                mv_cov[:, where[1]] = np.reshape(params[i]["cov"], (width, -1))
        scratch = (
            np.empty((width, tri[-1])),  # the Cholesky factors, packed
            np.empty((width, len(kind))),  # the log densities' constants
            np.empty((width, D)),  # the means in the encoding's units
            np.ones(chains),  # (set to 0 by a factor that is not definite)
            np.empty((d_max, _ROWS)),
            np.empty((width, _ROWS)),  # a block of rows' scores, rows last
            np.empty(width),  # every component's count, mean and scatter
            np.empty((width, d_max)),
            np.empty((width, d_max * d_max)),
        )
        kept = (np.empty((chains, draws, K, D)), np.empty((chains, draws, K, Q)))
        return compiled.mv, (mv_mu, mv_cov), scratch, kept
