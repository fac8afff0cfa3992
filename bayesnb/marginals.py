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
    its variable has probability 1)."""

    def __init__(self, a, b):
        self.a, self.b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
        self._point = self.b <= 0
        self._b = np.where(self._point, 1.0, self.b)

    @property
    def shape(self) -> tuple:
        return self.a.shape

    def ppf(self, q):
        from scipy import stats

        return np.where(self._point, 1.0, stats.beta.ppf(q, self.a, self._b))

    def pdf(self, x):
        from scipy import stats

        return np.where(self._point, np.inf, stats.beta.pdf(x, self.a, self._b))

    def mean(self):
        return self.a / (self.a + self.b)

    def std(self):
        total = self.a + self.b
        return np.sqrt(self.a * self.b / (total * total * (total + 1.0)))


class PointMarginal:
    """The point mass at ``value`` elementwise (a parameter the prior fixes): every
    quantile is the value, and its sd 0."""

    def __init__(self, value):
        self.value = np.asarray(value, float)

    @property
    def shape(self) -> tuple:
        return self.value.shape

    def ppf(self, q):
        return np.broadcast_to(self.value, np.shape(q)).copy()

    def pdf(self, x):
        return np.full(np.shape(x), np.inf)

    def mean(self):
        return self.value.copy()

    def std(self):
        return np.zeros(self.shape)


class StudentTMarginal:
    """Student-t with ``df`` degrees of freedom, location ``loc`` and ``scale``."""

    def __init__(self, df, loc, scale):
        self.df, self.loc, self.scale = np.broadcast_arrays(
            *(np.asarray(v, float) for v in (df, loc, scale))
        )

    @property
    def shape(self) -> tuple:
        return self.df.shape

    def ppf(self, q):
        from scipy import stats

        return stats.t.ppf(q, self.df, loc=self.loc, scale=self.scale)

    def pdf(self, x):
        from scipy import stats

        return stats.t.pdf(x, self.df, loc=self.loc, scale=self.scale)

    def mean(self):
        return np.where(self.df > 1, self.loc, np.nan)

    def std(self):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.df > 2, self.scale * np.sqrt(self.df / (self.df - 2.0)), np.inf)


class InverseGammaMarginal:
    """``InverseGamma(alpha, beta)``: ``beta / G`` with ``G ~ Gamma(alpha, 1)``."""

    def __init__(self, alpha, beta):
        self.alpha, self.beta = np.broadcast_arrays(
            np.asarray(alpha, float), np.asarray(beta, float)
        )

    @property
    def shape(self) -> tuple:
        return self.alpha.shape

    def ppf(self, q):
        from scipy import stats

        return stats.invgamma.ppf(q, self.alpha, scale=self.beta)

    def pdf(self, x):
        from scipy import stats

        return stats.invgamma.pdf(x, self.alpha, scale=self.beta)

    def mean(self):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.alpha > 1, self.beta / (self.alpha - 1.0), np.inf)

    def std(self):
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
    density ``2 s inner.pdf(s**2)``."""

    def __init__(self, inner):
        self.inner = inner

    @property
    def shape(self) -> tuple:
        return self.inner.shape

    def ppf(self, q):
        return np.sqrt(self.inner.ppf(q))

    def pdf(self, x):
        x = np.asarray(x, float)
        return 2.0 * x * self.inner.pdf(x * x)

    def mean(self):
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
