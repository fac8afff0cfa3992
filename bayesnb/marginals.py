"""Exact one-dimensional marginals of the conjugate posteriors, and their intervals.

Every parameter of a conjugate naive Bayes model has a marginal posterior known in
closed form: a coordinate of a ``Dirichlet(a)`` is ``Beta(a_v, a_0 - a_v)``; under a
Normal-Inverse-Gamma ``(mu, kappa, alpha, beta)`` the mean is a Student-t with
``2 alpha`` degrees of freedom, location ``mu`` and scale ``sqrt(beta / (alpha kappa))``,
the variance is ``InverseGamma(alpha, beta)`` and the standard deviation its square
root. Under a Normal-Inverse-Wishart the mean's coordinates are Student-t too, every
variance an inverse gamma, and every covariance the product of a Student-t and an
inverse gamma (:class:`CovarianceEntries`). Each marginal here is elementwise over
arrays of parameters and offers the quantile function ``ppf`` and the density ``pdf``
(all that :func:`interval` needs), and its ``mean`` and ``std``.
"""

from __future__ import annotations

import numpy as np

from bayesnb._lazy import special
from bayesnb._special import log_rising

__all__ = [
    "BetaMarginal",
    "CovarianceEntries",
    "InverseGammaMarginal",
    "PointMarginal",
    "SqrtOf",
    "StudentTMarginal",
    "interval",
]


class BetaMarginal:
    """``Beta(a, b)`` elementwise; ``b = 0`` is the point mass at 1 (a category alone in
    its variable has probability 1).

    Examples
    --------
    P(play = Yes) on play-tennis under a uniform prior: 9 of 14 days give the
    posterior Beta(10, 6), with mean 10/16; beside it a category alone in its
    variable (``b = 0``).

    >>> import numpy as np
    >>> from bayesnb.marginals import BetaMarginal, interval
    >>> marginal = BetaMarginal([10.0, 3.0], [6.0, 0.0])
    >>> marginal.mean(), marginal.std().round(4)
    (array([0.625, 1.   ]), array([0.1174, 0.    ]))
    >>> lower, upper = interval(marginal, 0.9)
    >>> lower.round(4), upper.round(4)
    (array([0.4226, 1.    ]), array([0.8091, 1.    ]))
    """

    def __init__(self, a, b):
        self.a, self.b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
        self._point = self.b <= 0
        self._b = np.where(self._point, 1.0, self.b)

    @property
    def shape(self) -> tuple:
        """The shape of the array of parameters (one marginal per entry)."""
        return self.a.shape

    def ppf(self, q):
        """The quantiles at ``q`` (1 for a point mass)."""
        from scipy import stats

        return np.where(self._point, 1.0, stats.beta.ppf(q, self.a, self._b))

    def pdf(self, x):
        """The density at ``x`` (infinite for a point mass)."""
        from scipy import stats

        return np.where(self._point, np.inf, stats.beta.pdf(x, self.a, self._b))

    def mean(self):
        """``a / (a + b)``."""
        return self.a / (self.a + self.b)

    def std(self):
        """``sqrt(a b / ((a + b)**2 (a + b + 1)))``."""
        total = self.a + self.b
        return np.sqrt(self.a * self.b / (total * total * (total + 1.0)))


class PointMarginal:
    """The point mass at ``value`` elementwise (a parameter the prior fixes): every
    quantile is the value, and its sd 0.

    Examples
    --------
    Class probabilities fixed by a :class:`~bayesnb.PointMass` prior have intervals
    of width 0:

    >>> from bayesnb.marginals import PointMarginal, interval
    >>> marginal = PointMarginal([0.3, 0.7])
    >>> interval(marginal, 0.9)
    (array([0.3, 0.7]), array([0.3, 0.7]))
    >>> marginal.std()
    array([0., 0.])
    """

    def __init__(self, value):
        self.value = np.asarray(value, float)

    @property
    def shape(self) -> tuple:
        """The shape of the array of parameters (one marginal per entry)."""
        return self.value.shape

    def ppf(self, q):
        """The value, whatever ``q``."""
        return np.broadcast_to(self.value, np.shape(q)).copy()

    def pdf(self, x):
        """Infinite everywhere (the density of a point mass is a spike)."""
        return np.full(np.shape(x), np.inf)

    def mean(self):
        """The value."""
        return self.value.copy()

    def std(self):
        """Zeros."""
        return np.zeros(self.shape)


class StudentTMarginal:
    """Student-t with ``df`` degrees of freedom, location ``loc`` and ``scale``.

    Examples
    --------
    Four degrees of freedom: the 95% interval is ``loc ± 2.776 scale``, wider than a
    normal's ``± 1.96``, and the sd is ``scale * sqrt(4 / 2)``.

    >>> from bayesnb.marginals import StudentTMarginal, interval
    >>> marginal = StudentTMarginal(4.0, 20.0, 1.5)
    >>> lower, upper = interval(marginal, 0.95)
    >>> round(float(lower), 3), round(float(upper), 3)
    (15.835, 24.165)
    >>> float(marginal.mean()), round(float(marginal.std()), 4)
    (20.0, 2.1213)
    """

    def __init__(self, df, loc, scale):
        self.df, self.loc, self.scale = np.broadcast_arrays(
            *(np.asarray(v, float) for v in (df, loc, scale))
        )

    @property
    def shape(self) -> tuple:
        """The shape of the array of parameters (one marginal per entry)."""
        return self.df.shape

    def ppf(self, q):
        """The quantiles at ``q``."""
        from scipy import stats

        return stats.t.ppf(q, self.df, loc=self.loc, scale=self.scale)

    def pdf(self, x):
        """The density at ``x``."""
        from scipy import stats

        return stats.t.pdf(x, self.df, loc=self.loc, scale=self.scale)

    def mean(self):
        """``loc`` (NaN for ``df <= 1``, where the mean does not exist)."""
        return np.where(self.df > 1, self.loc, np.nan)

    def std(self):
        """``scale * sqrt(df / (df - 2))`` (infinite for ``df <= 2``)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.df > 2, self.scale * np.sqrt(self.df / (self.df - 2.0)), np.inf)


class InverseGammaMarginal:
    """``InverseGamma(alpha, beta)``: ``beta / G`` with ``G ~ Gamma(alpha, 1)``.

    Examples
    --------
    A variance under ``InverseGamma(3, 4)``: mean ``4 / (3 - 1)`` and sd
    ``4 / ((3 - 1) sqrt(3 - 2))``.

    >>> from bayesnb.marginals import InverseGammaMarginal, interval
    >>> variance = InverseGammaMarginal(3.0, 4.0)
    >>> float(variance.mean()), float(variance.std())
    (2.0, 2.0)
    >>> lower, upper = interval(variance, 0.9)
    >>> round(float(lower), 4), round(float(upper), 4)
    (0.6353, 4.8918)
    """

    def __init__(self, alpha, beta):
        self.alpha, self.beta = np.broadcast_arrays(
            np.asarray(alpha, float), np.asarray(beta, float)
        )

    @property
    def shape(self) -> tuple:
        """The shape of the array of parameters (one marginal per entry)."""
        return self.alpha.shape

    def ppf(self, q):
        """The quantiles at ``q``."""
        from scipy import stats

        return stats.invgamma.ppf(q, self.alpha, scale=self.beta)

    def pdf(self, x):
        """The density at ``x``."""
        from scipy import stats

        return stats.invgamma.pdf(x, self.alpha, scale=self.beta)

    def mean(self):
        """``beta / (alpha - 1)`` (infinite for ``alpha <= 1``)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.alpha > 1, self.beta / (self.alpha - 1.0), np.inf)

    def std(self):
        """``beta / ((alpha - 1) sqrt(alpha - 2))`` (infinite for ``alpha <= 2``)."""
        a, b = self.alpha, self.beta
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a > 2, b / ((a - 1.0) * np.sqrt(a - 2.0)), np.inf)

    def sqrt_mean(self):
        """``E[sqrt(X)] = sqrt(beta) Gamma(alpha - 1/2) / Gamma(alpha)``."""
        a = np.asarray(self.alpha, dtype=float)
        ratio = np.exp(-log_rising(np.maximum(a - 0.5, 0.5), 0.5))  # (where it is defined)
        return np.sqrt(self.beta) * np.where(a > 0.5, ratio, np.inf)


class SqrtOf:
    """The square root of a positive variable with marginal ``inner`` (e.g. a standard
    deviation from its variance): ``ppf`` is the root of the inner quantile, and the
    density ``2 s inner.pdf(s**2)``.

    Examples
    --------
    The standard deviation when the variance is ``InverseGamma(3, 4)``: its
    quantiles are the roots of the variance's, and its mean
    ``sqrt(4) Gamma(2.5) / Gamma(3)`` is below the root of the mean variance,
    ``sqrt(2)``.

    >>> import numpy as np
    >>> from bayesnb.marginals import InverseGammaMarginal, SqrtOf, interval
    >>> variance = InverseGammaMarginal(3.0, 4.0)
    >>> sd = SqrtOf(variance)
    >>> lower, upper = interval(sd, 0.9)
    >>> round(float(lower), 4), round(float(np.sqrt(variance.ppf(0.05))), 4)
    (0.7971, 0.7971)
    >>> round(float(sd.mean()), 4), round(float(sd.std()), 4)
    (1.3293, 0.4825)
    """

    def __init__(self, inner):
        self.inner = inner

    @property
    def shape(self) -> tuple:
        """The shape of the array of parameters (one marginal per entry)."""
        return self.inner.shape

    def ppf(self, q):
        """The square roots of the inner quantiles at ``q``."""
        return np.sqrt(self.inner.ppf(q))

    def pdf(self, x):
        """The density at ``x``: ``2 x inner.pdf(x**2)``."""
        x = np.asarray(x, float)
        return 2.0 * x * self.inner.pdf(x * x)

    def mean(self):
        """``E[sqrt(X)]``, from the inner marginal's ``sqrt_mean``."""
        return self.inner.sqrt_mean()

    def std(self):
        """``sqrt(E[X] - E[sqrt(X)]**2)``, with X the inner variable."""
        return np.sqrt(np.maximum(self.inner.mean() - self.mean() ** 2, 0.0))


class CovarianceEntries:
    """Every entry of a random covariance matrix (..., d, d), elementwise: an inverse
    gamma on the diagonal and, off it, zeros (a diagonal covariance, from
    :meth:`diagonal`) or the law of an Inverse-Wishart's covariance (from
    :meth:`inverse_wishart`).

    Under :math:`\\Sigma \\sim \\mathrm{InvWishart}(\\nu, \\Psi)` in d dimensions the
    variance :math:`\\Sigma_{jj}` is :math:`\\mathrm{InvGamma}((\\nu - d + 1)/2,
    \\Psi_{jj}/2)`. A covariance :math:`\\Sigma_{ij}` has no named law, but it is a
    product of two independent ones. The 2 x 2 block of rows and columns i, j is
    :math:`\\mathrm{InvWishart}(\\nu' = \\nu - d + 2)` with that block of
    :math:`\\Psi`; in it :math:`\\Sigma_{ij} = B\\,\\Sigma_{jj}`, where the regression
    coefficient :math:`B = \\Sigma_{ij}/\\Sigma_{jj}` is independent of
    :math:`\\Sigma_{jj}` and Student-t with :math:`\\nu'` degrees of freedom, location
    :math:`\\Psi_{ij}/\\Psi_{jj}` and scale :math:`\\sqrt{(\\Psi_{ii} -
    \\Psi_{ij}^2/\\Psi_{jj})/(\\Psi_{jj}\\nu')}`. Its distribution function is then a
    one-dimensional integral, :math:`P(\\Sigma_{ij} \\le x) = E_G[F_t((2Gx/\\Psi_{jj} -
    \\mathrm{loc})/\\mathrm{scale})]` over :math:`G = \\Psi_{jj}/(2\\Sigma_{jj}) \\sim
    \\mathrm{Gamma}((\\nu' - 1)/2)`, or the same over B when B is the far narrower of
    the two (the integrand over G would then be a step): over G by Gauss-Laguerre
    quadrature (Gauss-Legendre on G's quantiles where the shape is too large for its
    weights), over B by Gauss-Legendre on B's quantiles; accurate to about 1e-12 in
    probability for moderate degrees of freedom, 1e-8 where the law is narrow. The
    quantiles invert it by safeguarded Newton steps; the mean
    :math:`\\Psi_{ij}/(\\nu - d - 1)` and the standard deviation are exact.

    Examples
    --------
    Under InvWishart(6, [[2, 0.5], [0.5, 1]]) the variances are InvGamma(2.5, 1) and
    InvGamma(2.5, 0.5); the covariance's mean is 0.5 / 3 and, the law skewed as the
    variances are, its median is below it.

    >>> import numpy as np
    >>> from bayesnb.marginals import CovarianceEntries
    >>> entries = CovarianceEntries.inverse_wishart(6.0, [[2.0, 0.5], [0.5, 1.0]])
    >>> entries.mean().round(4)
    array([[0.6667, 0.1667],
           [0.1667, 0.3333]])
    >>> entries.ppf(np.full((2, 2), 0.5)).round(4)
    array([[0.4596, 0.1034],
           [0.1034, 0.2298]])
    """

    #: Quadrature nodes of every off-diagonal entry's distribution function.
    NODES = 256
    #: Below this ratio of B's relative spread to G's the integral runs over B.
    OVER_B = 0.03

    def __init__(self, alpha, beta, nu=None, psi=None):
        """Use :meth:`inverse_wishart` or :meth:`diagonal`."""
        self.variance = InverseGammaMarginal(alpha, beta)  # (..., d)
        d = self.variance.shape[-1]
        self._shape = (*self.variance.shape, d)
        self._on = np.broadcast_to(np.eye(d, dtype=bool), self._shape)
        self.nu, self.psi = nu, psi
        self._off = None if psi is None else _OffDiagonal(nu, psi, self._on)

    @classmethod
    def inverse_wishart(cls, nu, psi) -> CovarianceEntries:
        """The entries of :math:`\\mathrm{InvWishart}(\\nu, \\Psi)`: ``nu`` (...) and
        ``psi`` (..., d, d)."""
        psi = np.asarray(psi, float)
        d = psi.shape[-1]
        nu = np.broadcast_to(np.asarray(nu, float), psi.shape[:-2])
        diag = np.diagonal(psi, axis1=-2, axis2=-1)
        alpha = np.broadcast_to((nu[..., None] - d + 1.0) / 2.0, diag.shape)
        return cls(alpha, diag / 2.0, nu, psi)

    @classmethod
    def diagonal(cls, alpha, beta) -> CovarianceEntries:
        """A diagonal covariance: variances ``InvGamma(alpha, beta)`` (..., d), zeros
        off the diagonal."""
        return cls(alpha, beta)

    @property
    def shape(self) -> tuple:
        """The shape of the array of parameters (one marginal per entry)."""
        return self._shape

    def _fill(self, on_diagonal, off_diagonal) -> np.ndarray:
        out = np.zeros(self._shape)
        out[self._on] = np.reshape(on_diagonal, -1)
        if off_diagonal is not None:
            out[~self._on] = off_diagonal
        return out

    def _diagonal(self, values) -> np.ndarray:
        return np.broadcast_to(values, self._shape)[self._on].reshape(self.variance.shape)

    def ppf(self, q):
        """The quantiles at ``q`` (an array of the entries' shape)."""
        q = np.broadcast_to(np.asarray(q, float), self._shape)
        off = None if self._off is None else self._off.ppf(q[~self._on])
        return self._fill(self.variance.ppf(self._diagonal(q)), off)

    def pdf(self, x):
        """The density at ``x``; a diagonal covariance's zeros are point masses
        (infinite density at 0)."""
        x = np.broadcast_to(np.asarray(x, float), self._shape)
        if self._off is None:
            off = np.where(x[~self._on] == 0.0, np.inf, 0.0)
        else:
            off = self._off.pdf(x[~self._on])
        return self._fill(self.variance.pdf(self._diagonal(x)), off)

    def mean(self):
        """:math:`\\Psi/(\\nu - d - 1)` (infinite variances and undefined (NaN)
        covariances for :math:`\\nu \\le d + 1`)."""
        off = None
        if self._off is not None:
            d = self._shape[-1]
            excess = (self.nu - d - 1.0)[..., None, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                off = np.where(excess > 0, self.psi / excess, np.nan)[~self._on]
        return self._fill(self.variance.mean(), off)

    def std(self):
        """The standard deviation: :math:`\\mathrm{Var}\\,\\Sigma_{ij} = ((\\nu - d + 1)
        \\Psi_{ij}^2 + (\\nu - d - 1)\\Psi_{ii}\\Psi_{jj}) / ((\\nu - d)(\\nu - d - 1)^2
        (\\nu - d - 3))` off the diagonal (infinite for :math:`\\nu \\le d + 3`)."""
        off = None
        if self._off is not None:
            d = self._shape[-1]
            m = (self.nu - d)[..., None, None]
            diag = np.diagonal(self.psi, axis1=-2, axis2=-1)
            outer = diag[..., :, None] * diag[..., None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                var = ((m + 1.0) * self.psi**2 + (m - 1.0) * outer) / (
                    m * (m - 1.0) ** 2 * (m - 3.0)
                )
                off = np.where(m > 3, np.sqrt(var), np.inf)[~self._on]
        return self._fill(self.variance.std(), off)


class _OffDiagonal:
    """The off-diagonal entries of :class:`CovarianceEntries`'s Inverse-Wishart, flat:
    :math:`\\Sigma_{ij} = B\\,\\Psi_{jj}/(2G)`, B Student-t and G gamma."""

    def __init__(self, nu, psi, on):
        d = psi.shape[-1]
        nu = np.broadcast_to(np.asarray(nu, float)[..., None, None], psi.shape)
        diag = np.diagonal(psi, axis1=-2, axis2=-1)
        a = np.broadcast_to(diag[..., :, None], psi.shape)[~on]  # Psi_ii
        b = np.broadcast_to(diag[..., None, :], psi.shape)[~on]  # Psi_jj
        c = psi[~on]
        self.df = nu[~on] - d + 2.0
        self.alpha = (self.df - 1.0) / 2.0
        self.b = b
        self.loc = c / b
        self.scale = np.sqrt(np.maximum(a - c * c / b, 0.0) / (b * self.df))
        n = CovarianceEntries.NODES
        u, w = np.polynomial.legendre.leggauss(n)
        u, w = (u + 1.0) / 2.0, w / 2.0
        with np.errstate(divide="ignore"):
            spread = self.scale / np.abs(self.loc) * np.sqrt(self.alpha)
        self.over_b = spread < CovarianceEntries.OVER_B
        # over B: Gauss-Legendre on B's quantiles; over G: Gauss-Laguerre for the gamma
        # weight G^(alpha - 1) e^-G, or (alpha too large for its weights) Legendre on
        # G's quantiles
        self.nodes = self.loc[:, None] + self.scale[:, None] * special.stdtrit(self.df[:, None], u)
        self.weights = np.broadcast_to(w, self.nodes.shape).copy()
        for alpha in np.unique(self.alpha[~self.over_b]):
            at = ~self.over_b & (self.alpha == alpha)
            nodes, weights = special.roots_genlaguerre(n, alpha - 1.0)
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                weights = np.exp(np.log(weights) - special.gammaln(alpha))
            if not (np.all(np.isfinite(weights)) and abs(weights.sum() - 1.0) < 1e-12):
                nodes, weights = special.gammaincinv(alpha, u), w
            self.nodes[at], self.weights[at] = nodes, weights

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """:math:`P(\\Sigma_{ij} \\le x)`, every entry at its ``x``."""
        return self._integral(x, self._cdf_over_g, self._cdf_over_b, self._cdf_at_zero)

    def pdf(self, x: np.ndarray) -> np.ndarray:
        """The density, every entry at its ``x``."""
        return self._integral(x, self._pdf_over_g, self._pdf_over_b, self._pdf_at_zero)

    def _integral(self, x, over_g, over_b, at_zero) -> np.ndarray:
        """Every entry's integrand at its nodes, weighted: over G or over B (by
        ``self.over_b``), and the closed form at ``x = 0``."""
        out = np.empty(len(x))
        for where, integrand in ((~self.over_b, over_g), (self.over_b, over_b)):
            if where.any():
                nodes = self.nodes[where]
                args = (self.df[where, None], self.alpha[where, None], self.b[where, None])
                args += (self.loc[where, None], self.scale[where, None])
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    values = integrand(nodes, x[where, None], *args)
                    out[where] = np.sum(values * self.weights[where], axis=1)
        zero = x == 0.0
        if zero.any():
            out[zero] = at_zero()[zero]
        return out

    @staticmethod
    def _cdf_over_g(g, x, df, alpha, b, loc, scale):
        return special.stdtr(df, (2.0 * g * x / b - loc) / scale)

    @staticmethod
    def _cdf_over_b(slope, x, df, alpha, b, loc, scale):
        y = np.maximum(slope * b / (2.0 * x), 0.0)  # B s <= x as a bound on G
        return np.where(x > 0, special.gammaincc(alpha, y), special.gammainc(alpha, y))

    def _cdf_at_zero(self):
        return special.stdtr(self.df, -self.loc / self.scale)  # P(B <= 0)

    @staticmethod
    def _pdf_over_g(g, x, df, alpha, b, loc, scale):
        z = (2.0 * g * x / b - loc) / scale
        return np.exp(_log_student(df, z)) * 2.0 * g / (b * scale)

    @staticmethod
    def _pdf_over_b(slope, x, df, alpha, b, loc, scale):
        y = slope * b / (2.0 * x)
        gamma = np.exp((alpha - 1.0) * np.log(y) - y - special.gammaln(alpha))
        return np.where(y > 0, gamma * np.abs(slope) * b / (2.0 * x * x), 0.0)

    def _pdf_at_zero(self):
        """:math:`E_G[t(z_0)\\,2G/(b\\,\\mathrm{scale})]` with :math:`E[G] = \\alpha`."""
        t = np.exp(_log_student(self.df, -self.loc / self.scale))
        return t * 2.0 * self.alpha / (self.b * self.scale)

    #: Newton steps of the quantile search, at most (each halving the bracket at worst).
    STEPS = 200

    def ppf(self, q: np.ndarray) -> np.ndarray:
        """The quantiles at ``q``: a bracket widened until it holds the quantile, then
        Newton steps kept inside it (where a step would leave it, the bracket's secant,
        or its midpoint when the secant falls near an end)."""
        out = np.where(q <= 0, -np.inf, np.where(q >= 1, np.inf, np.nan))
        todo = np.flatnonzero(np.isnan(out))
        if not todo.size:
            return out
        sub = self._subset(todo)
        q = q[todo]
        centre = sub.loc * sub.b / (2.0 * sub.alpha)  # B's location times s's mode
        width = (np.abs(sub.loc) + sub.scale) * sub.b / (2.0 * sub.alpha)
        lo, hi = centre - width, centre + width
        for _ in range(2100):  # doubling: the heaviest tails reach far
            low, high = sub.cdf(lo) > q, sub.cdf(hi) < q
            if not (low.any() or high.any()):
                break
            lo = np.where(low, centre - 2.0 * (centre - lo), lo)
            hi = np.where(high, centre + 2.0 * (hi - centre), hi)
        flo, fhi = sub.cdf(lo) - q, sub.cdf(hi) - q
        x = np.clip(centre, lo, hi)
        tol = 1e-13 * (np.abs(centre) + width)  # of the law's own size (a median may be 0)
        for _ in range(self.STEPS):
            f = sub.cdf(x) - q
            below, above = f < 0, f > 0
            lo, flo = np.where(below, x, lo), np.where(below, f, flo)
            hi, fhi = np.where(above, x, hi), np.where(above, f, fhi)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = x - f / sub.pdf(x)
                # outside the bracket: its secant, kept off the ends (else the midpoint)
                secant = lo - flo * (hi - lo) / (fhi - flo)
            share = (secant - lo) / (hi - lo)
            fallback = np.where((share > 0.01) & (share < 0.99), secant, 0.5 * (lo + hi))
            new = np.where((step > lo) & (step < hi), step, fallback)
            done = (f == 0) | (np.abs(step - x) <= tol) | (hi - lo <= tol)
            x = np.where(done, x, new)
            if done.all():
                break
        out[todo] = x
        return out

    def _subset(self, index: np.ndarray) -> _OffDiagonal:
        sub = object.__new__(_OffDiagonal)
        for key, value in vars(self).items():
            sub.__dict__[key] = value[index]
        return sub


def _log_student(df, z):
    """The log density of the standard Student-t with ``df`` degrees of freedom at ``z``."""
    norm = log_rising(df / 2.0, 0.5)  # ln Gamma((df + 1) / 2) - ln Gamma(df / 2)
    return norm - 0.5 * np.log(df * np.pi) - 0.5 * (df + 1.0) * np.log1p(z * z / df)


#: Bisection steps of the highest-density search: the lower tail mass is found to
#: within 2**-60 of the interval's mass.
_HDI_STEPS = 60


def interval(marginal, prob: float, kind: str = "eti") -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` of the central ``prob`` credible interval of ``marginal``.

    ``kind="eti"``: the equal-tailed interval, the quantiles ``(1 - prob) / 2`` and
    ``(1 + prob) / 2``. ``kind="hdi"``: the highest-density interval, the shortest
    interval of mass ``prob``. For a unimodal density its ends have equal density:
    the width ``ppf(t + prob) - ppf(t)`` has the derivative
    ``1 / pdf(upper) - 1 / pdf(lower)`` in the lower tail mass ``t``, negative while
    ``pdf(lower) < pdf(upper)``, so ``t`` is found by bisection on that sign. The
    result is compared with the two one-sided intervals, so a density that is
    monotone (or U-shaped) on its support gets its shortest interval too.

    Examples
    --------
    For the skewed Beta(2, 8) the highest-density interval is shorter than the
    equal-tailed one, and its ends have equal density:

    >>> from bayesnb.marginals import BetaMarginal, interval
    >>> marginal = BetaMarginal(2.0, 8.0)
    >>> eti, hdi = interval(marginal, 0.9), interval(marginal, 0.9, kind="hdi")
    >>> [round(float(v), 4) for v in eti], [round(float(v), 4) for v in hdi]
    ([0.041, 0.4291], [0.0154, 0.3761])
    >>> round(float(marginal.pdf(hdi[0])), 3), round(float(marginal.pdf(hdi[1])), 3)
    (0.996, 0.996)
    """
    if kind == "eti":
        return marginal.ppf(np.full(marginal.shape, (1.0 - prob) / 2.0)), marginal.ppf(
            np.full(marginal.shape, (1.0 + prob) / 2.0)
        )
    lo = np.zeros(marginal.shape)
    hi = np.full(marginal.shape, 1.0 - prob)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for _ in range(_HDI_STEPS):
            mid = 0.5 * (lo + hi)
            shrinking = marginal.pdf(marginal.ppf(mid)) < marginal.pdf(marginal.ppf(mid + prob))
            lo = np.where(shrinking, mid, lo)
            hi = np.where(shrinking, hi, mid)
        best_lower, best_upper = marginal.ppf(lo), marginal.ppf(lo + prob)
        for tail in (0.0, 1.0 - prob):
            t = np.full(marginal.shape, tail)
            lower, upper = marginal.ppf(t), marginal.ppf(t + prob)
            shorter = (upper - lower) < (best_upper - best_lower)
            best_lower = np.where(shorter, lower, best_lower)
            best_upper = np.where(shorter, upper, best_upper)
    return best_lower, best_upper
