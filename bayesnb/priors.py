"""Conjugate priors: Dirichlet (and Beta, its two-category case) and Normal-Inverse-Gamma.

Each prior knows its conjugate update from sufficient statistics, its mode, mean,
variance, log density and how to draw samples. :meth:`Dirichlet.point_estimate` and
:meth:`NormalInverseGamma.point_estimate` turn sufficient statistics into the three
point estimators of the package (``"ml"``, ``"map"``, ``"mean"``).

Laplace smoothing and the m-estimate are Dirichlet priors in disguise:
:func:`laplace` and :func:`m_estimate` build them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special

from bayesnb.errors import InputError, InputTypeError

ESTIMATES = ("ml", "map", "mean", "predictive")


class ZeroProbabilityWarning(UserWarning):
    """A maximum-likelihood (or boundary MAP) estimate gave a probability of exactly 0.

    Any new observation of that value then has likelihood 0 under that class, the
    seeds' "zero conditional probability" problem. Use ``estimate="mean"`` or a
    Dirichlet prior with every concentration > 1 to smooth it away.
    """


def check_estimate(estimate: str, name: str = "estimate") -> str:
    """Validate an estimator name and return it."""
    if estimate not in ESTIMATES:
        raise ValueError(
            f"{name} must be one of {ESTIMATES}; got {estimate!r}. "
            "Use 'ml' for counts, 'map' for the posterior mode, 'mean' for the posterior "
            "mean, or 'predictive' for the full posterior predictive."
        )
    return estimate


def _as_concentration(value, name: str) -> np.ndarray:
    if np.asarray(value).dtype.kind not in "iuf":  # True, "1", None: not a number
        raise TypeError(
            f"{name} must be a positive number or an array of them; got {value!r} "
            f"({type(value).__name__}). Give the pseudo-counts as numbers, e.g. 1.0."
        )
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(
            f"{name} must be finite and > 0; got {value!r}. "
            "A concentration counts prior pseudo-observations, so it is positive."
        )
    return arr


@dataclass(frozen=True, eq=False)
class Dirichlet:
    """Dirichlet prior over the probabilities of a categorical variable.

    Parameters
    ----------
    alpha : float or array_like
        Concentration. A scalar is symmetric (the same pseudo-count for every
        category). An array of shape ``(n_categories,)`` is asymmetric, and one of
        shape ``(n_labels, n_categories)`` gives every class its own prior.

    Notes
    -----
    With counts :math:`n_v` summing to :math:`N` over :math:`V` categories, the
    posterior is :math:`\\mathrm{Dir}(\\alpha + n)` and

    * ML: :math:`\\hat\\theta_v = n_v / N`
    * MAP (posterior mode): :math:`(n_v + \\alpha_v - 1) / (N + \\sum\\alpha - V)`
    * mean (= posterior predictive of one draw): :math:`(n_v + \\alpha_v) / (N + \\sum\\alpha)`

    Examples
    --------
    >>> prior = Dirichlet([5.0, 3.0])          # a Beta(3, 5) in Dirichlet form
    >>> post = prior.posterior([2, 1])
    >>> post.alpha
    array([7., 4.])
    >>> post.mean()
    array([0.63636364, 0.36363636])
    """

    alpha: np.ndarray

    def __init__(self, alpha=1.0):
        object.__setattr__(self, "alpha", _as_concentration(alpha, "alpha"))

    def __repr__(self) -> str:
        a = self.alpha
        return f"Dirichlet({a.item() if a.ndim == 0 else a.tolist()!r})"

    # -- shape ------------------------------------------------------------------------
    def resolve(self, n_categories: int, n_labels: int | None = None) -> np.ndarray:
        """Broadcast the concentration to ``(n_categories,)`` or ``(n_labels, n_categories)``.

        Raises a ``ValueError`` naming the shapes when they do not fit.
        """
        shape = (n_categories,) if n_labels is None else (n_labels, n_categories)
        try:
            return np.broadcast_to(self.alpha, shape).copy()
        except ValueError:
            raise ValueError(
                f"Dirichlet alpha of shape {self.alpha.shape} does not fit {shape} "
                "(n_labels, n_categories). Give a scalar, one value per category, or "
                "one row per class."
            ) from None

    def _full(self) -> np.ndarray:
        if self.alpha.ndim == 0:
            raise ValueError(
                "this Dirichlet has a scalar alpha, so its number of categories is "
                f"unknown; got alpha={self.alpha.item()!r}. Call .with_categories(n) first."
            )
        return self.alpha

    def with_categories(self, n_categories: int) -> Dirichlet:
        """The same prior with its concentration spelled out for ``n_categories``."""
        return Dirichlet(self.resolve(n_categories))

    # -- conjugate update ---------------------------------------------------------------
    def posterior(self, counts) -> Dirichlet:
        """The posterior Dirichlet after observing ``counts`` (last axis: categories)."""
        counts = np.asarray(counts, dtype=float)
        return Dirichlet(self.alpha + counts)

    def log_marginal_likelihood(self, counts, *, segments=None) -> float:
        """``log p(data)`` of categorical draws with ``counts`` under this prior (the
        sequence's Dirichlet-multinomial, without the multinomial coefficient):
        ``log B(alpha + counts) - log B(alpha)``, summed over the leading axes.

        The Dirichlet is over the last axis, or, given ``segments`` (the starts of
        several variables laid side by side on it), over each variable's part.

        Examples
        --------
        >>> import math
        >>> got = Dirichlet([1.0, 1.0]).log_marginal_likelihood([2, 1])  # 2!1!/4! = 1/12
        >>> bool(abs(got - math.log(1 / 12)) < 1e-12)
        True
        """
        counts = np.asarray(counts, dtype=float)
        alpha = np.broadcast_to(self.alpha, counts.shape)
        post = alpha + counts

        def total(values):
            if segments is None:
                return values.sum(axis=-1)
            return np.add.reduceat(values.reshape(values.shape[0], -1), segments, axis=1)

        out = special.gammaln(total(alpha)) - special.gammaln(total(post))
        out += total(special.gammaln(post) - special.gammaln(alpha))
        return float(np.sum(out))

    # -- moments ------------------------------------------------------------------------
    def mean(self) -> np.ndarray:
        a = self._full()
        return a / a.sum(axis=-1, keepdims=True)

    def mode(self) -> np.ndarray:
        """The mode :math:`(\\alpha_v - 1)/(\\sum\\alpha - V)`; needs every alpha >= 1."""
        a = self._full()
        _check_mode_defined(a - 1.0, a)
        return (a - 1.0) / (a.sum(axis=-1, keepdims=True) - a.shape[-1])

    def var(self) -> np.ndarray:
        a = self._full()
        a0 = a.sum(axis=-1, keepdims=True)
        m = a / a0
        return m * (1.0 - m) / (a0 + 1.0)

    # -- density and sampling -------------------------------------------------------------
    def logpdf(self, p) -> np.ndarray:
        """Log density at probability vectors ``p`` (last axis: categories)."""
        a = self._full()
        p = np.asarray(p, dtype=float)
        norm = special.gammaln(a.sum(axis=-1)) - special.gammaln(a).sum(axis=-1)
        return norm + special.xlogy(a - 1.0, p).sum(axis=-1)

    def sample(self, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        """Draw probability vectors; ``size`` draws stack on a new first axis."""
        a = self._full()
        shape = a.shape if size is None else (size, *a.shape)
        g = rng.standard_gamma(np.broadcast_to(a, shape))
        return g / g.sum(axis=-1, keepdims=True)

    # -- point estimates from counts --------------------------------------------------------
    def point_estimate(
        self, counts, estimate: str, *, segments=None, what: str = "a variable"
    ) -> np.ndarray:
        """Log-probabilities estimated from ``counts`` under this prior.

        Parameters
        ----------
        counts : ndarray, shape (..., M)
            Counts per category, last axis. Several categorical variables may be laid
            side by side on the last axis; ``segments`` then gives the start of each.
        estimate : {"ml", "map", "mean", "predictive"}
            ``"predictive"`` is the posterior predictive of one draw, which equals the
            posterior mean.
        segments : array_like of int, optional
            Start offsets of the variables along the last axis (as for
            :func:`numpy.add.reduceat`). Default: one variable.
        what : str
            How error and warning messages name the variable (e.g. "feature 'outlook'").

        Returns
        -------
        ndarray
            Log-probabilities, same shape as ``counts``; ``-inf`` where a probability is 0.
        """
        check_estimate(estimate)
        counts = np.asarray(counts, dtype=float)
        if estimate == "ml":
            num = counts
        else:  # a new array, which the logarithm below then overwrites
            alpha = np.broadcast_to(self.alpha, counts.shape)
            num = counts + alpha
            if estimate == "map":
                num -= 1.0
                _check_mode_defined(num, alpha)
        if segments is None:
            totals = num.sum(axis=-1, keepdims=True)
        else:
            totals = np.add.reduceat(num, segments, axis=-1)
        if np.any(totals <= 0):
            where = np.argwhere(totals <= 0)[0]
            raise ValueError(
                f"estimate={estimate!r} is undefined for {what}: somewhere it has no observations "
                f"and no prior pseudo-counts (first at index {tuple(where)}). "
                "Use estimate='mean' or a Dirichlet prior with alpha > 1."
            )
        if segments is not None:  # every entry's own variable's total
            sizes = np.diff(np.append(segments, counts.shape[-1]))
            totals = np.repeat(totals, sizes, axis=-1)
        with np.errstate(divide="ignore"):
            logp = np.log(num, out=None if num is counts else num)
        logp -= np.log(totals)
        # A zero numerator, the only way to -inf, needs estimate "ml" or "map".
        n_zero = np.count_nonzero(logp == -np.inf) if estimate in ("ml", "map") else 0
        if n_zero:
            warnings.warn(
                f"estimate={estimate!r} gives {what} probability 0 for {n_zero} "
                "(class, value) pair(s) never seen in training; their log-probability is "
                "-inf, so any row showing such a value rules that class out. Use "
                "estimate='mean' or a prior with alpha > 1 to smooth.",
                ZeroProbabilityWarning,
                stacklevel=2,
            )
        return logp


def _check_mode_defined(numerator: np.ndarray, alpha) -> None:
    if np.any(numerator < 0):
        bad = float(np.min(np.asarray(alpha)[np.broadcast_to(numerator < 0, np.shape(alpha))]))
        raise ValueError(
            "estimate='map' needs every concentration >= 1 where a count is 0 (the mode "
            f"lies on the boundary when alpha < 1); got alpha={bad:g}. Use "
            "estimate='mean' or alpha >= 1."
        )


class Beta(Dirichlet):
    """Beta(α, β) prior on the probability of a Boolean "true" (1).

    A Beta is a Dirichlet over two categories, stored in the package's category order
    ``[false, true]``: ``Beta(a, b)`` is ``Dirichlet([b, a])``.

    Examples
    --------
    >>> Beta(4, 7).update(successes=1, failures=4)     # seed 003: Beta(4,7) -> Beta(5,11)
    Beta(5.0, 11.0)
    >>> float(Beta(2, 3).beta_mode()), float(Beta(2, 3).beta_mean())
    (0.333333, 0.4)
    """

    def __init__(self, a: float = 1.0, b: float = 1.0):
        a = _as_concentration(a, "a")
        b = _as_concentration(b, "b")
        super().__init__(np.stack(np.broadcast_arrays(b, a), axis=-1))

    @property
    def a(self) -> np.ndarray:
        return self.alpha[..., 1]

    @property
    def b(self) -> np.ndarray:
        return self.alpha[..., 0]

    def __repr__(self) -> str:
        a, b = self.a, self.b
        if a.ndim == 0:
            return f"Beta({a.item()!r}, {b.item()!r})"
        return f"Beta({a.tolist()!r}, {b.tolist()!r})"

    def update(self, successes, failures) -> Beta:
        """The posterior Beta after ``successes`` trues and ``failures`` falses."""
        return Beta(self.a + np.asarray(successes), self.b + np.asarray(failures))

    def beta_mean(self):
        """:math:`\\alpha / (\\alpha + \\beta)`, the probability of true."""
        return self.mean()[..., 1]

    def beta_mode(self):
        """:math:`(\\alpha - 1)/(\\alpha + \\beta - 2)`, the probability of true."""
        return self.mode()[..., 1]

    def beta_var(self):
        return self.var()[..., 1]

    def beta_logpdf(self, theta):
        theta = np.asarray(theta, dtype=float)
        return self.logpdf(np.stack([1.0 - theta, theta], axis=-1))


def laplace(k: float = 1.0) -> Dirichlet:
    """Laplace smoothing of strength ``k`` as a prior.

    ``(count + k) / (N + k |X|)`` is the posterior mean under ``Dirichlet(k)`` and the
    MAP under ``Dirichlet(k + 1)``. This returns ``Dirichlet(k)``: use it with
    ``estimate="mean"``. ``k = 0`` is maximum likelihood; use ``estimate="ml"``.

    Examples
    --------
    >>> laplace(1)
    Dirichlet(1.0)
    """
    if not np.isfinite(k) or k <= 0:
        raise ValueError(
            f"laplace(k) needs a finite k > 0; got k={k!r}. k = 0 is maximum likelihood: "
            "use estimate='ml' instead."
        )
    return Dirichlet(float(k))


def m_estimate(m: float, p) -> Dirichlet:
    """The m-estimate ``(n_c + m p) / (n + m)`` as the prior ``Dirichlet(m p)``.

    Use it with ``estimate="mean"``. ``p`` is the prior estimate of each category's
    probability (a scalar such as ``1/t`` or one value per category).

    Examples
    --------
    >>> m_estimate(1, 1 / 3).alpha
    array(0.33333333)
    """
    p = np.asarray(p, dtype=float)
    if m <= 0 or np.any(p <= 0):
        raise ValueError(
            f"m_estimate needs m > 0 and every p > 0; got m={m!r}, p={p.tolist()!r}. "
            "m counts virtual examples and p is a prior probability."
        )
    return Dirichlet(m * p)


def _nig_value(value, name: str, *, positive: bool):
    """A NormalInverseGamma parameter checked: numbers, finite, and > 0 if ``positive``."""
    if np.asarray(value).dtype.kind not in "iuf":  # True, "1", None: not a number
        raise InputTypeError(
            f"NormalInverseGamma {name} must be a number or an array of numbers; got "
            f"{value!r} ({type(value).__name__}). Give it as a float, e.g. {name}=1.0."
        )
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or (positive and np.any(arr <= 0)):
        need = "finite and > 0" if positive else "finite"
        raise InputError(
            f"NormalInverseGamma {name} must be {need}; got {name}={value!r}. "
            + (
                f"{name} counts prior pseudo-observations (or is a scale), so it is positive."
                if positive
                else f"Give a finite prior mean, or leave {name}=None for the default."
            )
        )
    return arr


@dataclass(frozen=True)
class NormalInverseGamma:
    """Normal-Inverse-Gamma prior on a Gaussian's mean and variance.

    :math:`\\sigma^2 \\sim \\mathrm{InvGamma}(\\alpha, \\beta)` and
    :math:`\\mu \\mid \\sigma^2 \\sim N(\\mu_0, \\sigma^2/\\kappa)`.

    Every parameter is a scalar, one value per column of the Gaussian block
    ``(columns,)``, or one row per class ``(K, columns)``.

    Parameters
    ----------
    mu : float or None
        Prior mean. ``None`` (the default) is data-dependent: see *Default* below.
    kappa : float
        Pseudo-observations behind ``mu``.
    alpha, beta : float
        Inverse-Gamma shape and scale. ``beta=None`` (the default) is data-dependent:
        ``alpha`` times a variance of the data (see *Default* below), so the prior is
        about as wide as the data, a unit-information default that keeps the package
        invariant to the feature's units.

    Notes
    -----
    **Default.** In a classifier every class gets its own default prior, weak
    relative to that class's own spread: ``mu`` is the class's mean and ``beta`` is
    ``alpha`` times the class's 1/N variance. Where a class's own variance is 0 (a
    single row, or all its values equal) it takes the pooled within-class variance
    :math:`\\sum_c S_c / \\sum_c n_c`, else the variance of all the rows, else 1; so
    ``"map"`` and ``"mean"`` never give a zero variance. A class with no observed
    value in a column takes the mean of all the rows there. In a mixture (EM) the
    default is one prior for every component, fixed before EM starts (so the EM
    objective stays fixed): ``mu`` is the mean and ``beta`` is ``alpha`` times the
    1/N variance of all the rows (``alpha`` itself for a column with no spread).

    From ``n`` observations with mean :math:`\\bar x` and centred sum of squares
    :math:`S`:

    .. math::
        \\kappa_n = \\kappa + n,\\quad
        \\mu_n = (\\kappa\\mu_0 + n\\bar x)/\\kappa_n,\\quad
        \\alpha_n = \\alpha + n/2,\\quad
        \\beta_n = \\beta + S/2 + \\kappa n(\\bar x - \\mu_0)^2 / (2\\kappa_n).

    The joint mode is :math:`(\\mu_n, \\beta_n/(\\alpha_n + 3/2))`, the posterior
    mean :math:`(\\mu_n, \\beta_n/(\\alpha_n - 1))`, and the posterior predictive is a
    Student-t with :math:`2\\alpha_n` degrees of freedom, location :math:`\\mu_n` and
    squared scale :math:`\\beta_n(\\kappa_n + 1)/(\\alpha_n\\kappa_n)`.

    Examples
    --------
    >>> prior = NormalInverseGamma(mu=0.0, kappa=1.0, alpha=2.0, beta=2.0)
    >>> post = prior.posterior(n=4, mean=1.0, ss=3.0)
    >>> [float(v) for v in (post.kappa, post.mu, post.alpha, post.beta)]
    [5.0, 0.8, 4.0, 3.9]
    """

    mu: float | np.ndarray | None = None
    kappa: float | np.ndarray = 1.0
    alpha: float | np.ndarray = 1.0
    beta: float | np.ndarray | None = None

    def __post_init__(self):
        if self.mu is not None:
            _nig_value(self.mu, "mu", positive=False)
        for name in ("kappa", "alpha"):
            _nig_value(getattr(self, name), name, positive=True)
        if self.beta is not None:
            _nig_value(self.beta, "beta", positive=True)

    def check_shape(self, n_columns: int, n_labels: int | None = None, what: str = "") -> None:
        """Raise an :class:`~bayesnb.errors.InputError` unless every parameter is a
        scalar, ``(n_columns,)`` or ``(n_labels, n_columns)`` (any axis may be 1).

        ``n_labels=None``: the number of classes is not known yet, so any first axis
        of a 2-d parameter is accepted. ``what`` names the feature in the message.
        """
        for name in ("mu", "kappa", "alpha", "beta"):
            value = getattr(self, name)
            if value is None:
                continue
            shape = np.shape(value)
            fits = len(shape) <= 2 and (not shape or shape[-1] in (1, n_columns))
            if len(shape) == 2 and n_labels is not None:
                fits = fits and shape[0] in (1, n_labels)
            if not fits:
                rows = "K" if n_labels is None else str(n_labels)
                raise InputError(
                    f"NormalInverseGamma {name} of {what or 'a Gaussian feature'} has shape "
                    f"{shape}; expected a scalar, ({n_columns},) (one value per column) or "
                    f"({rows}, {n_columns}) (one row per class). Give {name} with "
                    f"{n_columns} value(s) per row, or a single number."
                )

    def resolve(self, pooled_mean, pooled_var) -> NormalInverseGamma:
        """Fill the data-dependent defaults from the pooled mean and variance (the
        default of a mixture: one prior for every component)."""
        mu = pooled_mean if self.mu is None else self.mu
        beta = self.alpha * np.asarray(pooled_var) if self.beta is None else self.beta
        beta = np.where(np.asarray(beta) > 0, beta, self.alpha)  # constant feature: unit scale
        return self._filled(mu, beta)

    def resolve_by_class(self, n, mean, ss) -> NormalInverseGamma:
        """Fill the data-dependent defaults from the statistics of every class (K, d):
        the default of a classifier, each class's prior centred on its own mean and
        as wide as its own spread (see the class's Notes, *Default*).

        Examples
        --------
        >>> prior = NormalInverseGamma(alpha=2.0).resolve_by_class(
        ...     n=[[2.0], [1.0]], mean=[[1.0], [5.0]], ss=[[8.0], [0.0]])
        >>> prior.mu.tolist(), prior.beta.tolist()   # class 2: the pooled within-class 8/3
        ([[1.0], [5.0]], [[8.0], [5.333333333333333]])
        """
        from bayesnb.sufficient import pool_stats  # the statistics' merge

        n, mean, ss = (np.asarray(v, dtype=float) for v in (n, mean, ss))
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            pooled = pool_stats({"n": n, "mean": mean, "ss": ss})
            total = pooled["n"][0]
            own = np.where(n > 0, ss / n, 0.0)
            within = np.where(total > 0, ss.sum(axis=0) / total, 0.0)
            overall = np.where(total > 0, pooled["ss"][0] / total, 0.0)

        def usable(v):
            return np.isfinite(v) & (v > 0)

        fallback = np.where(usable(within), within, np.where(usable(overall), overall, 1.0))
        var = np.where(usable(own), own, fallback)
        mu = np.where(n > 0, mean, pooled["mean"][0]) if self.mu is None else self.mu
        beta = self.alpha * var if self.beta is None else self.beta
        return self._filled(mu, beta)

    def _filled(self, mu, beta) -> NormalInverseGamma:
        return NormalInverseGamma(
            mu=np.asarray(mu, float),
            kappa=np.asarray(self.kappa, float),
            alpha=np.asarray(self.alpha, float),
            beta=np.asarray(beta, float),
        )

    def _check_resolved(self):
        if self.mu is None or self.beta is None:
            raise InputError(
                "this NormalInverseGamma still has data-dependent defaults "
                f"(mu={self.mu!r}, beta={self.beta!r}). Give mu and beta, or call "
                ".resolve(pooled_mean, pooled_var)."
            )

    def posterior(self, n, mean, ss) -> NormalInverseGamma:
        """Update on ``n`` observations with mean ``mean`` and centred sum of squares ``ss``."""
        self._check_resolved()
        n, mean, ss = (np.asarray(v, dtype=float) for v in (n, mean, ss))
        kappa_n = self.kappa + n
        mean = np.where(n > 0, mean, 0.0)
        mu_n = (self.kappa * self.mu + n * mean) / kappa_n
        alpha_n = self.alpha + n / 2.0
        beta_n = self.beta + ss / 2.0 + self.kappa * n * (mean - self.mu) ** 2 / (2.0 * kappa_n)
        return NormalInverseGamma(mu=mu_n, kappa=kappa_n, alpha=alpha_n, beta=beta_n)

    def log_marginal_likelihood(self, n, mean, ss) -> float:
        """``log p(data)`` of ``n`` normal draws with mean ``mean`` and centred sum of
        squares ``ss`` under this prior (the mean and variance integrated out), summed
        over the arrays' entries."""
        n = np.asarray(n, dtype=float)
        post = self.posterior(n, mean, ss)
        a, b, k = (np.asarray(v, dtype=float) for v in (self.alpha, self.beta, self.kappa))
        out = (
            special.gammaln(post.alpha)
            - special.gammaln(a)
            + a * np.log(b)
            - post.alpha * np.log(post.beta)
            + 0.5 * (np.log(k) - np.log(post.kappa))
            - 0.5 * n * np.log(2.0 * np.pi)
        )
        return float(np.sum(out))

    def posterior_from_data(self, x) -> NormalInverseGamma:
        x = np.asarray(x, dtype=float)
        return self.posterior(x.size, x.mean(), ((x - x.mean()) ** 2).sum())

    def mode(self) -> tuple[np.ndarray, np.ndarray]:
        """Joint mode ``(mu, sigma2)``."""
        self._check_resolved()
        return np.asarray(self.mu, float), np.asarray(self.beta / (self.alpha + 1.5))

    def mean(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means ``(E[mu], E[sigma2])``; ``E[sigma2]`` needs alpha > 1."""
        self._check_resolved()
        alpha = np.asarray(self.alpha, float)
        if np.any(alpha <= 1):
            at = np.unravel_index(int(np.argmin(alpha)), alpha.shape) if alpha.ndim else ()
            raise InputError(
                f"E[sigma2] of an Inverse-Gamma needs alpha > 1; got alpha={np.min(alpha):g}"
                + (f" at index {tuple(int(i) for i in at)}" if at else "")
                + ". Use more data, a larger prior alpha, or estimate='map'."
            )
        return np.asarray(self.mu, float), np.asarray(self.beta / (alpha - 1.0))

    def var(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior variances ``(Var[mu], Var[sigma2])``; need alpha > 1 and > 2."""
        self._check_resolved()
        a, b, k = (np.asarray(v, float) for v in (self.alpha, self.beta, self.kappa))
        with np.errstate(divide="ignore", invalid="ignore"):
            var_mu = np.where(a > 1, b / ((a - 1.0) * k), np.inf)
            var_s2 = np.where(a > 2, b**2 / ((a - 1.0) ** 2 * (a - 2.0)), np.inf)
        return var_mu, var_s2

    def predictive(self):
        """The posterior predictive, a frozen ``scipy.stats.t``."""
        from scipy import stats  # imported here: scipy.stats is slow to import

        df, loc, scale2 = self.predictive_params()
        return stats.t(df=df, loc=loc, scale=np.sqrt(scale2))

    def predictive_params(self):
        """``(df, loc, scale**2)`` of the Student-t posterior predictive."""
        self._check_resolved()
        return (
            2.0 * np.asarray(self.alpha, float),
            np.asarray(self.mu, float),
            self.beta * (self.kappa + 1.0) / (self.alpha * self.kappa),
        )

    def logpdf(self, mu, sigma2) -> np.ndarray:
        """Log density of the prior at ``(mu, sigma2)``."""
        self._check_resolved()
        a, b, k, m = self.alpha, self.beta, self.kappa, self.mu
        sigma2 = np.asarray(sigma2, float)
        log_ig = a * np.log(b) - special.gammaln(a) - (a + 1.0) * np.log(sigma2) - b / sigma2
        log_n = -0.5 * np.log(2 * np.pi * sigma2 / k) - k * (np.asarray(mu) - m) ** 2 / (2 * sigma2)
        return log_ig + log_n

    def sample(self, rng: np.random.Generator, size: int | None = None):
        """Draw ``(mu, sigma2)`` pairs."""
        self._check_resolved()
        shape = np.broadcast(self.mu, self.alpha, self.beta, self.kappa).shape
        if size is not None:
            shape = (size, *shape)
        sigma2 = self.beta / rng.gamma(np.broadcast_to(self.alpha, shape))
        mu = rng.normal(np.broadcast_to(self.mu, shape), np.sqrt(sigma2 / self.kappa))
        return mu, sigma2

    def point_estimate(
        self,
        n,
        mean,
        ss,
        estimate: str,
        ddof: int = 0,
        what: str = "a Gaussian feature",
        *,
        labels=None,
        columns=None,
    ):
        """``(mu, sigma2)`` estimated from sufficient statistics.

        ``"ml"`` gives the sample mean and ``ss / (n - ddof)``: ``ddof=0`` is the
        maximum-likelihood (1/N) variance and ``ddof=1`` the unbiased (N-1) one.
        ``"predictive"`` returns the Student-t ``(df, loc, scale**2)`` instead.

        ``what`` names the feature in error messages; ``labels`` (the classes, the
        first axis of ``(K, d)`` statistics) and ``columns`` (the last axis) name the
        entry at fault. An entry is named by its position when they are not given.
        """
        check_estimate(estimate)
        n, mean, ss = (np.asarray(v, dtype=float) for v in (n, mean, ss))

        def where(bad) -> str:
            """'class c, column j' of the first entry of the mask ``bad``."""
            at = np.argwhere(np.atleast_2d(bad))[0]
            k, j = int(at[0]), int(at[-1])
            label = repr(labels[k]) if labels is not None and k < len(labels) else f"#{k}"
            column = repr(columns[j]) if columns is not None and j < len(columns) else f"#{j}"
            return f"class {label}, column {column}"

        if estimate == "ml":
            few = np.broadcast_to(n - ddof <= 0, np.broadcast_shapes(n.shape, ss.shape))
            if np.any(few):
                raise InputError(
                    f"estimate='ml' with ddof={ddof} needs more than {ddof} observation(s) "
                    f"of {what} in every class; {where(few)} has "
                    f"{int(np.min(n))}. Use estimate='map' or 'mean', which borrow "
                    "strength from the Normal-Inverse-Gamma prior."
                )
            var = ss / (n - ddof)
            if np.any(var <= 0):
                fewest = np.min(np.broadcast_to(n, var.shape)[var <= 0])
                raise InputError(
                    f"estimate='ml' found zero variance of {what} in {where(var <= 0)} "
                    f"({fewest:g} sample(s) there, all equal), so its "
                    "density is infinite there. Use estimate='map' or "
                    "'mean', which keep the variance positive through the prior."
                )
            return mean, var
        post = self.posterior(n, mean, ss)
        if estimate == "map":
            return post.mode()
        if estimate == "mean":
            alpha_n = np.broadcast_to(np.asarray(post.alpha, float), ss.shape)
            if np.any(alpha_n <= 1):
                bad = alpha_n <= 1
                raise InputError(
                    f"estimate='mean' needs E[sigma2] of {what} in {where(bad)}, which "
                    "exists only when the posterior alpha = prior alpha + n/2 > 1; got "
                    f"{np.min(alpha_n):g} (n = {np.min(np.broadcast_to(n, ss.shape)[bad]):g} "
                    "observed value(s) there). Use estimate='map', a prior alpha > 1, or "
                    "more data."
                )
            return post.mean()
        return post.predictive_params()
