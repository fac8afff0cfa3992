"""Exact one-dimensional marginals of the conjugate posteriors, and their intervals.

Every parameter of a conjugate naive Bayes model has a marginal posterior known in
closed form: a coordinate of a ``Dirichlet(a)`` is ``Beta(a_v, a_0 - a_v)``; under a
Normal-Inverse-Gamma ``(mu, kappa, alpha, beta)`` the mean is a Student-t with
``2 alpha`` degrees of freedom, location ``mu`` and scale ``sqrt(beta / (alpha kappa))``,
the variance is ``InverseGamma(alpha, beta)`` and the standard deviation its square
root. Each marginal here is elementwise over arrays of parameters and offers the
quantile function ``ppf`` and the density ``pdf`` (all that :func:`interval` needs),
and its ``mean`` and ``std``.
"""

from __future__ import annotations

import numpy as np

from bayesnb._lazy import special

__all__ = [
    "BetaMarginal",
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
        a = self.alpha
        return np.sqrt(self.beta) * np.exp(special.gammaln(a - 0.5) - special.gammaln(a))


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
