"""Conjugate priors: Dirichlet (and Beta, its two-category case) and Normal-Inverse-Gamma.

Each prior knows its conjugate update from sufficient statistics, its mode, mean,
variance, log density and how to draw samples. :meth:`Dirichlet.point_estimate` and
:meth:`NormalInverseGamma.point_estimate` turn sufficient statistics into the three
point estimators of the package (``"ml"``, ``"map"``, ``"mean"``).

Laplace smoothing and the m-estimate are Dirichlet priors in disguise:
:func:`laplace` and :func:`m_estimate` build them.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np

from bayesnb._lazy import special
from bayesnb._special import log_dirichlet_evidence, log_rising
from bayesnb.errors import InputError, InputTypeError

ESTIMATES = ("ml", "map", "mean", "predictive")


#: Where the package's sources live: a warning names the first caller outside them.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class ZeroProbabilityWarning(UserWarning):
    """A maximum-likelihood (or boundary MAP) estimate gave a probability of exactly 0.

    Any new observation of that value then has likelihood 0 under that class, the
    seeds' "zero conditional probability" problem. Use ``estimate="mean"`` or a
    Dirichlet prior with every concentration > 1 to smooth it away.

    Examples
    --------
    No day of play-tennis with an overcast outlook is a ``"No"`` day, so maximum
    likelihood gives that pair probability 0; the posterior mean does not.

    >>> import warnings
    >>> import bayesnb as bnb
    >>> tennis = bnb.datasets.play_tennis()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit = bnb.NaiveBayes().fit(tennis, target="play", estimate="ml")
    >>> [w.category.__name__ for w in caught]
    ['ZeroProbabilityWarning']
    >>> cell = {"class_label": "No", "outlook_category": "Overcast"}
    >>> float(fit.params["outlook"].sel(cell))
    0.0
    >>> smooth = bnb.NaiveBayes().fit(tennis, target="play", estimate="mean")
    >>> float(smooth.params["outlook"].sel(cell))  # (0 + 1) / (5 + 3) under Dirichlet(1)
    0.125
    """


def check_estimate(estimate: str, name: str = "estimate") -> str:
    """Validate an estimator name and return it."""
    if not isinstance(estimate, str) or estimate not in ESTIMATES:
        raise InputError(
            f"{name} must be one of {ESTIMATES}; got {estimate!r}. Use 'mean' (the "
            "default: smoothed counts), 'ml' for raw frequencies, 'map' for the posterior "
            "mode, or 'predictive' for the full posterior predictive."
        )
    return estimate


def _numbers(
    value, what: str, example: str, need: str = "a number or a rectangular array of numbers"
) -> np.ndarray:
    """``value`` as a float array, or an :class:`InputTypeError` naming ``what`` when it
    is not a number or a rectangular array of numbers (True, "1", None, a ragged list)."""
    try:
        arr = np.asarray(value)
    except ValueError:  # a ragged nesting of lists
        arr = None
    if arr is None or arr.dtype.kind not in "iuf":
        raise InputTypeError(
            f"{what} must be {need}; got {value!r} "
            f"({type(value).__name__}). Give it as numbers, e.g. {example}."
        )
    return arr.astype(float)


def _as_concentration(value, name: str) -> np.ndarray:
    arr = _numbers(value, name, f"{name}=1.0", "a positive number or an array of them")
    if arr.size == 0:
        raise InputError(
            f"{name} must hold at least one concentration; got an empty array. Give a "
            "scalar, or one value per category."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError(
            f"{name} must be finite and > 0; got {value!r}. "
            "A concentration counts prior pseudo-observations, so it is positive."
        )
    return arr


def random_generator(value, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from ``value``: None, an int seed >= 0, a Generator (itself),
    a SeedSequence or a BitGenerator. Anything else is an error naming ``name``."""
    seed = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
    kinds = np.random.Generator | np.random.SeedSequence | np.random.BitGenerator
    if not (value is None or seed or isinstance(value, kinds)):
        raise InputTypeError(
            f"{name} must be None, an int >= 0 or a numpy Generator; got {value!r} "
            f"({type(value).__name__}). Give e.g. {name}=0."
        )
    if seed and value < 0:
        example = f"{name} 0" if name.startswith("--") else f"{name}=0"  # an option's or not
        raise InputError(
            f"{name} must be an int >= 0; got {int(value)}. Give a seed >= 0, e.g. {example}."
        )
    return value if isinstance(value, np.random.Generator) else np.random.default_rng(value)


def _rng(rng) -> np.random.Generator:
    """:func:`random_generator` of a prior's ``rng`` argument."""
    return random_generator(rng, "rng")


def _as_counts(counts, alpha: np.ndarray, what: str = "counts") -> np.ndarray:
    """``counts`` checked: finite, >= 0 and broadcastable with the concentration."""
    counts = _numbers(counts, what, f"{what}=[3, 1]")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise InputError(
            f"{what} must be finite and >= 0 (observed counts); got {counts.tolist()!r}. "
            "Give how many times each category was observed."
        )
    try:
        np.broadcast_shapes(counts.shape, alpha.shape)
    except ValueError:
        raise InputError(
            f"{what} of shape {counts.shape} does not fit the concentration of shape "
            f"{alpha.shape}; give one count per category (the last axis)."
        ) from None
    return counts


def _same_values(a, b) -> bool:
    """Whether two priors of one kind hold equal parameters (arrays compared by value)."""
    if type(a) is not type(b):
        return False
    return all(
        (x is None and y is None)
        or (x is not None and y is not None and np.array_equal(np.asarray(x), np.asarray(y)))
        for x, y in zip(a._values(), b._values(), strict=True)
    )


def _values_hash(prior) -> int:
    return hash(
        (
            type(prior).__name__,
            *tuple(
                None if v is None else (np.shape(v), np.asarray(v, float).tobytes())
                for v in prior._values()
            ),
        )
    )


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

    def _values(self) -> tuple:
        return (self.alpha,)

    def __eq__(self, other) -> bool:
        """Equal concentrations (and the same kind of prior)."""
        return _same_values(self, other) if isinstance(other, Dirichlet) else NotImplemented

    def __hash__(self) -> int:
        return _values_hash(self)

    # -- shape ------------------------------------------------------------------------
    def resolve(self, n_categories: int, n_labels: int | None = None) -> np.ndarray:
        """Broadcast the concentration to ``(n_categories,)`` or ``(n_labels, n_categories)``.

        Raises a ``ValueError`` naming the shapes when they do not fit.
        """
        shape = (n_categories,) if n_labels is None else (n_labels, n_categories)
        try:
            return np.broadcast_to(self.alpha, shape).copy()
        except ValueError:
            raise InputError(
                f"Dirichlet alpha of shape {self.alpha.shape} does not fit {shape} "
                "(n_labels, n_categories). Give a scalar, one value per category, or "
                "one row per class."
            ) from None

    def _full(self) -> np.ndarray:
        if self.alpha.ndim == 0:
            raise InputError(
                "this Dirichlet has a scalar alpha, so its number of categories is "
                f"unknown; got alpha={self.alpha.item()!r}. Call .with_categories(n) first."
            )
        return self.alpha

    def with_categories(self, n_categories: int) -> Dirichlet:
        """The same prior with its concentration spelled out for ``n_categories``."""
        return Dirichlet(self.resolve(n_categories))

    def pooled(self) -> Dirichlet:
        """The prior of one component that holds the rows of all of them, for a
        concentration with one row per component (a leading axis of length K > 1).

        A concentration counts pseudo-observations, so the components' priors are
        pooled as their data are (:func:`bayesnb.sufficient.pool_stats`: counts add)
        and the sum is then divided by K, so that the pooled prior weighs as much as
        one component's: the mean of the rows. A prior shared by every component (no
        leading axis, or one of length 1) is returned as it is, and rows that are all
        equal pool to that row, so the two declarations give the same whole-data
        estimate. A mixture's cluster report estimates the whole data's distribution
        under it (:func:`bayesnb.cluster_reports.pooled_params`).

        Examples
        --------
        >>> Dirichlet([[1.0, 3.0], [5.0, 1.0]]).pooled()
        Dirichlet([[3.0, 2.0]])
        >>> Beta([2.0, 4.0], [1.0, 1.0]).pooled()   # Beta(a, b) pools a and b alike
        Beta([3.0], [1.0])
        """
        a = self.alpha
        if a.ndim < 2 or a.shape[0] == 1:
            return self
        mean = a.mean(axis=0, keepdims=True)
        if isinstance(self, Beta):
            return Beta(mean[..., 1], mean[..., 0])
        return Dirichlet(mean)

    # -- conjugate update ---------------------------------------------------------------
    def posterior(self, counts) -> Dirichlet:
        """The posterior Dirichlet after observing ``counts`` (last axis: categories)."""
        return Dirichlet(self.alpha + _as_counts(counts, self.alpha))

    def log_marginal_likelihood(self, counts, *, segments=None) -> float:
        """``log p(data)`` of categorical draws with ``counts`` under this prior (the
        sequence's Dirichlet-multinomial, without the multinomial coefficient):
        ``log B(alpha + counts) - log B(alpha)``, summed over the leading axes.

        The Dirichlet is over the last axis, or, given ``segments`` (the starts of
        several variables laid side by side on it), over each variable's part. Exact
        to the last bits even when one category holds nearly all the weight
        (:func:`bayesnb._special.log_dirichlet_evidence`).

        Examples
        --------
        >>> import math
        >>> got = Dirichlet([1.0, 1.0]).log_marginal_likelihood([2, 1])  # 2!1!/4! = 1/12
        >>> bool(abs(got - math.log(1 / 12)) < 1e-12)
        True
        """
        counts = _as_counts(counts, self.alpha)
        if counts.ndim == 0:
            raise InputError(
                f"counts must have a last axis of categories; got the scalar {counts.item()!r}. "
                "Give one count per category, e.g. counts=[3, 1]."
            )
        alpha = np.broadcast_to(self.alpha, counts.shape)
        return float(np.sum(log_dirichlet_evidence(alpha, counts, segments)))

    # -- moments ------------------------------------------------------------------------
    def mean(self) -> np.ndarray:
        """The mean :math:`\\alpha_v / \\sum\\alpha` of every category (last axis)."""
        a = self._full()
        return a / a.sum(axis=-1, keepdims=True)

    def mode(self) -> np.ndarray:
        """The mode :math:`(\\alpha_v - 1)/(\\sum\\alpha - V)`; needs every alpha >= 1."""
        a = self._full()
        _check_mode_defined(a - 1.0, a)
        excess = a.sum(axis=-1, keepdims=True) - a.shape[-1]
        if np.any(excess <= 0):
            raise InputError(
                "the mode of a Dirichlet whose concentrations are all 1 is not unique (the "
                f"density is flat); got alpha={a.tolist()!r}. Use mean(), or a prior with "
                "some alpha > 1."
            )
        return (a - 1.0) / excess

    def var(self) -> np.ndarray:
        """Every category's variance :math:`m_v (1 - m_v) / (\\sum\\alpha + 1)`, with
        :math:`m_v` its mean."""
        a = self._full()
        a0 = a.sum(axis=-1, keepdims=True)
        m = a / a0
        return m * (1.0 - m) / (a0 + 1.0)

    # -- density and sampling -------------------------------------------------------------
    def logpdf(self, p) -> np.ndarray:
        """Log density at probability vectors ``p`` (last axis: categories)."""
        a = self._full()
        p = _numbers(p, "p", "p=[0.2, 0.8]")
        if np.isnan(p).any():
            raise InputError(
                "p holds NaN; logpdf needs probability vectors (each entry in [0, 1], "
                "summing to 1 along the last axis)."
            )
        if not p.ndim or p.shape[-1] != a.shape[-1]:
            raise InputError(
                f"p of shape {p.shape} does not fit the Dirichlet over {a.shape[-1]} "
                "categories; give probability vectors along the last axis."
            )
        try:
            np.broadcast_shapes(p.shape, a.shape)
        except ValueError:
            raise InputError(
                f"p of shape {p.shape} does not fit the concentration of shape {a.shape}."
            ) from None
        norm = special.gammaln(a.sum(axis=-1)) - special.gammaln(a).sum(axis=-1)
        inside = np.all((p >= 0) & (p <= 1), axis=-1) & np.isclose(
            p.sum(axis=-1), 1.0, rtol=0, atol=1e-9 * a.shape[-1]
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            out = norm + special.xlogy(a - 1.0, np.clip(p, 0.0, 1.0)).sum(axis=-1)
        return np.where(inside, out, -np.inf)  # outside the simplex: density 0

    def sample(self, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        """Draw probability vectors; ``size`` draws stack on a new first axis."""
        a = self._full()
        shape = a.shape if size is None else (size, *a.shape)
        g = _rng(rng).standard_gamma(np.broadcast_to(a, shape))
        return g / g.sum(axis=-1, keepdims=True)

    def log_sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` draws of the log-probabilities (size, ..., n_categories), without
        underflow however small a concentration (:func:`log_gamma_draws`)."""
        a = self._full()
        log_g = log_gamma_draws(np.broadcast_to(a, (size, *a.shape)), _rng(rng))
        return log_g - special.logsumexp(log_g, axis=-1, keepdims=True)

    def marginal(self):
        """Every probability's exact marginal, ``Beta(alpha_v, alpha_0 - alpha_v)``."""
        from bayesnb.marginals import BetaMarginal

        a = self._full()
        return BetaMarginal(a, a.sum(axis=-1, keepdims=True) - a)

    # -- point estimates from counts --------------------------------------------------------
    def point_estimate(
        self, counts, estimate: str, *, segments=None, what: str = "a variable", labels=None
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
        labels : sequence, optional
            The classes along the first axis, which error messages then name.

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
            where = tuple(int(i) for i in np.argwhere(totals <= 0)[0])
            at = f"index {where}"
            if labels is not None and len(where) > 1:
                at = f"class {labels[where[0]]!r}"
                if segments is not None and len(segments) > 1:
                    at += f", its variable {where[-1]}"
            raise InputError(
                f"estimate={estimate!r} is undefined for {what} in {at}: it has no "
                "observations there"
                + (
                    ", and maximum likelihood has no prior to fall back on. Use "
                    "estimate='mean' (the default), or 'map' with a Dirichlet prior of "
                    "alpha > 1; or drop the class if it has no rows."
                    if estimate == "ml"
                    else " and no prior pseudo-counts beyond the mode's (alpha - 1). Use "
                    "estimate='mean' (the default) or a Dirichlet prior with alpha > 1."
                )
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
                skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call that fitted
            )
        return logp


def log_gamma_draws(alpha, rng) -> np.ndarray:
    """``log G`` for independent ``G ~ Gamma(alpha, 1)``, one per entry of ``alpha``,
    without underflow: below ``alpha = 1`` a gamma variate is often smaller than the
    smallest float, so it is drawn as ``Gamma(alpha + 1) * U**(1 / alpha)``, whose
    logarithm ``log Gamma(alpha + 1) + log(U) / alpha`` is always finite."""
    alpha = np.asarray(alpha, dtype=float)
    small = alpha < 1.0
    out = np.log(rng.standard_gamma(np.where(small, alpha + 1.0, alpha)))
    if small.any():
        out[small] += np.log(rng.random(int(small.sum()))) / alpha[small]
    return out


def _check_mode_defined(numerator: np.ndarray, alpha) -> None:
    if np.any(numerator < 0):
        bad = float(np.min(np.asarray(alpha)[np.broadcast_to(numerator < 0, np.shape(alpha))]))
        raise InputError(
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
        try:
            pair = np.broadcast_arrays(b, a)
        except ValueError:
            raise InputError(
                f"Beta a of shape {a.shape} and b of shape {b.shape} do not broadcast "
                "together; give them the same shape, or one of them as a scalar."
            ) from None
        super().__init__(np.stack(pair, axis=-1))

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
        successes = _as_counts(successes, self.a, "successes")
        failures = _as_counts(failures, self.b, "failures")
        return Beta(self.a + successes, self.b + failures)

    def posterior(self, counts) -> Beta:
        """The posterior Beta after ``counts`` ``[falses, trues]`` (last axis)."""
        post = self.alpha + _as_counts(counts, self.alpha)
        return Beta(post[..., 1], post[..., 0])

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


@dataclass(frozen=True, eq=False)
class PointMass:
    """Known class probabilities: a prior with all its mass on one probability vector.

    It is the limit of ``Dirichlet(c * probs)`` as the concentration ``c`` grows
    without bound: no count moves it, so every estimator (``"ml"``, ``"map"``,
    ``"mean"``, ``"predictive"``) gives ``probs``, the posterior is the prior, and the
    evidence of class counts :math:`n_k` is :math:`\\sum_k n_k \\log p_k`. It is the
    class prior of scikit-learn's ``class_prior=[...]`` (``priors=`` of ``GaussianNB``)
    and, uniform, of ``fit_prior=False``.

    Parameters
    ----------
    probs : array_like of shape (n_classes,)
        One probability >= 0 per class, in the order of the sorted labels, summing
        to 1.

    Examples
    --------
    >>> prior = PointMass([0.3, 0.7])
    >>> prior.point_estimate([10, 0], "ml").round(4).tolist()
    [-1.204, -0.3567]
    >>> prior.posterior([10, 0]) == prior
    True
    """

    probs: np.ndarray

    def __init__(self, probs):
        arr = _numbers(probs, "PointMass probs", "PointMass([0.5, 0.5])", "probabilities")
        if arr.ndim != 1 or arr.size == 0:
            raise InputError(
                f"PointMass probs must be one probability per class (a non-empty 1-D "
                f"array); got the shape {arr.shape}. Give e.g. PointMass([0.5, 0.5])."
            )
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise InputError(
                f"Priors must be non-negative (and finite): PointMass got {arr.tolist()!r}. "
                "Give one probability >= 0 per class."
            )
        if not np.isclose(arr.sum(), 1.0):
            raise InputError(
                f"The sum of the priors should be 1: PointMass got {arr.tolist()!r}, which "
                f"sums to {float(arr.sum())!r}. Divide them by their sum."
            )
        object.__setattr__(self, "probs", arr)

    def __repr__(self) -> str:
        return f"PointMass({self.probs.tolist()!r})"

    def _values(self) -> tuple:
        return (self.probs,)

    def __eq__(self, other) -> bool:
        return _same_values(self, other) if isinstance(other, PointMass) else NotImplemented

    def __hash__(self) -> int:
        return _values_hash(self)

    def resolve(self, n_categories: int) -> np.ndarray:
        """The probabilities, checked to be one per class."""
        if self.probs.size != n_categories:
            raise InputError(
                "Number of priors must match number of classes: the class prior "
                f"{self!r} has {self.probs.size} probabilities for {n_categories} classes. "
                "Give one probability per class, in the order of the sorted labels."
            )
        return self.probs.copy()

    def with_categories(self, n_categories: int) -> PointMass:
        """Itself, checked to give one probability per class."""
        self.resolve(n_categories)
        return self

    def posterior(self, counts) -> PointMass:
        """Itself: no count moves a point mass."""
        _as_counts(counts, self.probs)
        return self

    def mean(self) -> np.ndarray:
        """The fixed probabilities (a copy)."""
        return self.probs.copy()

    def point_estimate(self, counts, estimate: str, *, what: str = "a variable") -> np.ndarray:
        """``log probs`` whatever the counts and the estimator (-inf where a
        probability is 0, as declared)."""
        check_estimate(estimate)
        counts = _as_counts(counts, self.probs)
        with np.errstate(divide="ignore"):
            return np.broadcast_to(np.log(self.probs), counts.shape).copy()

    def log_marginal_likelihood(self, counts) -> float:
        """:math:`\\sum_k n_k \\log p_k` (``-inf`` if a class of probability 0 has a row)."""
        counts = _as_counts(counts, self.probs)
        return float(np.sum(special.xlogy(counts, self.probs)))

    def log_sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` copies of ``log probs`` (size, n_classes)."""
        with np.errstate(divide="ignore"):
            return np.tile(np.log(self.probs), (size, 1))

    def marginal(self):
        """Every probability's marginal: the point mass at it."""
        from bayesnb.marginals import PointMarginal

        return PointMarginal(self.probs)


def class_concentration(class_prior, n_classes: int, where: str) -> np.ndarray:
    """The class Dirichlet's concentration over ``n_classes``, for the parts of the
    package built on a Dirichlet class prior (``where``: clustering, the PyMC model);
    a :class:`PointMass` there is an error saying so."""
    if isinstance(class_prior, PointMass):
        raise InputError(
            f"{where} with fixed class probabilities ({class_prior!r}) is not built: it "
            "needs a Dirichlet class prior. Give class_prior=bnb.Dirichlet(...) (or None)."
        )
    return class_prior.resolve(n_classes)


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
    arr = _numbers(k, "laplace k", "laplace(1.0)")
    if arr.ndim or not np.isfinite(arr) or arr <= 0:
        raise InputError(
            f"laplace(k) needs a finite k > 0; got k={k!r}. k = 0 is maximum likelihood: "
            "use estimate='ml' instead."
        )
    return Dirichlet(float(k))


def m_estimate(m: float, p) -> Dirichlet:
    """The m-estimate ``(n_c + m p) / (n + m)`` as the prior ``Dirichlet(m p)``.

    Use it with ``estimate="mean"``. ``p`` is the prior estimate of each category's
    probability: a scalar such as ``1/t``, or one value per category (summing to 1).

    Examples
    --------
    >>> m_estimate(1, 1 / 3).alpha
    array(0.33333333)
    """
    m_arr = _numbers(m, "m_estimate m", "m_estimate(1.0, 0.5)")
    p = _numbers(p, "m_estimate p", "m_estimate(1.0, 0.5)")
    if m_arr.ndim or not np.isfinite(m_arr) or m_arr <= 0 or not np.all(np.isfinite(p) & (p > 0)):
        raise InputError(
            f"m_estimate needs a finite scalar m > 0 and every p finite and > 0; got m={m!r}, "
            f"p={p.tolist()!r}. "
            "m counts virtual examples and p is a prior probability."
        )
    if p.ndim and not np.allclose(p.sum(axis=-1), 1.0, rtol=0.0, atol=1e-9):
        raise InputError(
            f"m_estimate p must be a distribution over the categories, summing to 1; got "
            f"p={p.tolist()!r}, which sums to {p.sum(axis=-1).tolist()!r}. Otherwise the "
            "prior is not the m-estimate (n_c + m p) / (n + m). Divide p by its sum, or give "
            "a scalar p (such as 1/t for t categories)."
        )
    return Dirichlet(m * p)


def _nig_value(value, name: str, *, positive: bool):
    """A NormalInverseGamma parameter checked: numbers, finite, and > 0 if ``positive``."""
    arr = _numbers(value, f"NormalInverseGamma {name}", f"{name}=1.0")
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


def _layout(value):
    """One entry of :meth:`NormalInverseGamma.layout`."""
    if value is None:
        return None
    shape = np.shape(value)
    if not shape:
        return float(value)
    return ("per column" if shape[-1] == 1 else "columns", shape)


@dataclass(frozen=True, eq=False)
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
    kappa : float or None, default 1.0
        Pseudo-observations behind ``mu``. ``None``: the default of where the prior
        is used (see *Default* below).
    alpha, beta : float or None
        Inverse-Gamma shape (default 1.0; ``None``: the default of where the prior is
        used) and scale. ``beta=None`` (the default) is data-dependent, a variance
        of the data (see *Default* below), so the prior scales with the data, a
        default that keeps the package invariant to the feature's units.

    Notes
    -----
    **Default.** :class:`~bayesnb.Gaussian` without a prior declares
    ``NormalInverseGamma(kappa=None, alpha=None)``: every parameter is then filled
    in where the feature is fitted.

    In a classifier every class gets its own default prior, weak relative to that
    class's own spread: ``kappa`` and ``alpha`` are 1, ``mu`` is the class's mean and
    ``beta`` is ``alpha`` times the class's 1/N variance. Where a class's own
    variance is 0 (a single row, or all its values equal) it takes the pooled
    within-class variance :math:`\\sum_c S_c / \\sum_c n_c`, else the variance of
    all the rows, else 1; so ``"map"`` and ``"mean"`` never give a zero variance. A
    class with no observed value in a column takes the mean of all the rows there,
    and ``alpha`` 3/2 (the prior counting as one value, as a class's own posterior
    does after one row), so that its ``"mean"`` :math:`E[\\sigma^2] = \\beta/(\\alpha
    - 1)` exists: the class's parameters there are its prior's, its mean variance
    three times the pooled one.

    In a mixture of K components (EM, MCMC) the default is one prior for every
    component, fixed before EM starts (so the EM objective stays fixed): the
    one-column case of :class:`NormalInverseWishart`'s default, Fraley and
    Raftery's weak prior for Gaussian mixtures (``kappa`` 0.01, ``alpha`` 1.5,
    ``mu`` the mean of all the rows and ``beta`` half their 1/N variance over
    :math:`K^2`, as each component spans about 1/K of the data's range; 1/2 for a
    column with no spread). A ``beta`` left ``None`` next to a given ``alpha`` is
    the same, as a Normal-Inverse-Wishart's default scale is the same whatever its
    degrees of freedom.

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
    kappa: float | np.ndarray | None = 1.0
    alpha: float | np.ndarray | None = 1.0
    beta: float | np.ndarray | None = None

    #: A classifier's default ``alpha`` for a class without an observed value in a
    #: column (see *Default*).
    EMPTY_CLASS_ALPHA = 1.5
    #: A mixture's defaults of ``kappa`` and ``alpha`` (see *Default*): those of the
    #: one-column Normal-Inverse-Wishart, 0.01 and (d + 2)/2. Class attributes.
    MIXTURE_KAPPA = 0.01
    MIXTURE_ALPHA = 1.5

    def __post_init__(self):
        for name in ("mu", "kappa", "alpha", "beta"):
            if getattr(self, name) is not None:
                _nig_value(getattr(self, name), name, positive=name != "mu")
        given = {
            k: np.shape(v)
            for k, v in zip(["mu", "kappa", "alpha", "beta"], self._values(), strict=False)
        }
        try:
            np.broadcast_shapes(*(shape for shape in given.values() if shape is not None))
        except ValueError:
            shapes = ", ".join(f"{k} {v}" for k, v in given.items() if v)
            raise InputError(
                f"NormalInverseGamma parameters of shapes that do not broadcast together "
                f"({shapes}); give each as a scalar, one value per column (d,) or one row "
                "per class (K, d)."
            ) from None

    def _values(self) -> tuple:
        return (self.mu, self.kappa, self.alpha, self.beta)

    def __eq__(self, other) -> bool:
        """Equal parameters (arrays compared by value)."""
        return (
            _same_values(self, other) if isinstance(other, NormalInverseGamma) else NotImplemented
        )

    def __hash__(self) -> int:
        return _values_hash(self)

    def _shape(self) -> tuple:
        return np.broadcast_shapes(*(np.shape(v) for v in self._values() if v is not None))

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

    def resolve(self, pooled_mean, pooled_var, n_labels: int | None = None) -> NormalInverseGamma:
        """Fill the defaults of a mixture of ``n_labels`` components (None: 1, the
        rows as one component) from the mean and 1/N variance of all the rows (one
        prior for every component; see *Default*).

        Examples
        --------
        Two components, one column of variance 8: ``beta`` is 8 / 2**2 / 2.

        >>> prior = NormalInverseGamma(kappa=None, alpha=None).resolve([3.0], [8.0], 2)
        >>> prior.mu.tolist(), float(prior.kappa), float(prior.alpha), prior.beta.tolist()
        ([3.0], 0.01, 1.5, [1.0])
        """
        mu = pooled_mean if self.mu is None else self.mu
        beta = self.beta
        if beta is None:
            var = np.asarray(pooled_var, dtype=float)
            k = 1.0 if n_labels is None else float(n_labels)
            with np.errstate(invalid="ignore"):
                beta = np.where(var > 0, var / k**2, 1.0) / 2.0
        kappa = self.MIXTURE_KAPPA if self.kappa is None else self.kappa
        alpha = self.MIXTURE_ALPHA if self.alpha is None else self.alpha
        return self._filled(mu, kappa, alpha, beta)

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
        kappa = 1.0 if self.kappa is None else self.kappa
        # a class without an observed value keeps its prior, whose E[sigma2] needs
        # alpha > 1: there the prior counts as one value (alpha 1 + 1/2)
        alpha = np.where(n > 0, 1.0, self.EMPTY_CLASS_ALPHA) if self.alpha is None else self.alpha
        beta = alpha * var if self.beta is None else self.beta
        return self._filled(mu, kappa, alpha, beta)

    def layout(self) -> tuple:
        """Each parameter's layout across columns, in the order mu, kappa, alpha, beta:
        None (a data-dependent default), a float (one number for every column),
        ``("per column", shape)`` (a last axis of one column) or ``("columns", shape)``
        (one entry per column). Computed once (the prior is immutable)."""
        cached = self.__dict__.get("_layout")
        if cached is None:
            cached = tuple(_layout(v) for v in self._values())
            cut = tuple(isinstance(v, tuple) and v[0] == "columns" for v in cached)
            object.__setattr__(self, "_layout", cached)
            object.__setattr__(self, "_cut", cut if any(cut) else None)
        return cached

    def by_column(self) -> bool:
        """Whether some parameter has one entry per column (more than one)."""
        self.layout()
        return self._cut is not None

    def column(self, j: int) -> NormalInverseGamma:
        """The prior of column ``j`` alone: every parameter with a last axis of columns
        (more than one entry) cut to that column, the others as they are."""
        if not self.by_column():
            return self  # nothing per column: the same prior (it is immutable)
        out = object.__new__(NormalInverseGamma)  # slices of checked values: no new check
        for name, value, cut in zip(
            ("mu", "kappa", "alpha", "beta"), self._values(), self._cut, strict=True
        ):
            object.__setattr__(out, name, np.asarray(value)[..., j : j + 1] if cut else value)
        return out

    def columns(self, n_columns: int) -> list[NormalInverseGamma]:
        """:meth:`column` of every one of ``n_columns`` columns, made at once."""
        if not self.by_column():
            return [self] * n_columns
        values = self._values()
        parts = [  # ``[..., j : j + 1]`` of every column j, as views
            list(np.moveaxis(np.asarray(v), -1, 0)[..., None]) if cut else [v] * n_columns
            for v, cut in zip(values, self._cut, strict=True)
        ]
        out = []
        for mu, kappa, alpha, beta in zip(*parts, strict=True):
            prior = object.__new__(NormalInverseGamma)  # slices of checked values
            object.__setattr__(prior, "mu", mu)
            object.__setattr__(prior, "kappa", kappa)
            object.__setattr__(prior, "alpha", alpha)
            object.__setattr__(prior, "beta", beta)
            out.append(prior)
        return out

    @staticmethod
    def _filled(mu, kappa, alpha, beta) -> NormalInverseGamma:
        return NormalInverseGamma(
            mu=np.asarray(mu, float),
            kappa=np.asarray(kappa, float),
            alpha=np.asarray(alpha, float),
            beta=np.asarray(beta, float),
        )

    def pending(self) -> bool:
        """Whether some parameter is still a default to fill in (None)."""
        return any(v is None for v in self._values())

    def pooled(self) -> NormalInverseGamma:
        """The prior of one component that holds the rows of all of them, for a prior
        with one row per component (some parameter of shape ``(K, d)``, K > 1).

        The prior reads as pseudo-data: ``kappa`` values at mean ``mu`` and, for the
        variance, ``2 alpha`` values with sum of squares ``2 beta``. The components'
        pseudo-data are pooled as their data are (:func:`bayesnb.sufficient.pool_stats`)
        and then weighed down by K, so that the pooled prior weighs as much as one
        component's:

        .. math::
            \\bar\\kappa = \\tfrac1K \\sum_k \\kappa_k,\\quad
            \\bar\\mu = \\frac{\\sum_k \\kappa_k \\mu_k}{\\sum_k \\kappa_k},\\quad
            \\bar\\alpha = \\tfrac1K \\sum_k \\alpha_k,\\quad
            \\bar\\beta = \\tfrac1K \\Big(\\sum_k \\beta_k
                + \\tfrac12 \\sum_k \\kappa_k (\\mu_k - \\bar\\mu)^2\\Big).

        The last term is the spread of the components' prior means, which the whole
        data span, as the pooled sum of squares of the data holds the spread of the
        components' means. A prior shared by every component is returned as it is,
        and rows that are all equal pool to that row, so the two declarations give the
        same whole-data estimate. A mixture's cluster report estimates the whole
        data's distribution under it (:func:`bayesnb.cluster_reports.pooled_params`).

        Examples
        --------
        Prior means 0 and 4 with one pseudo-observation each: the pooled mean is 2 and
        beta gains half of (0 - 2)**2 + (4 - 2)**2, over K = 2.

        >>> prior = NormalInverseGamma(mu=[[0.0], [4.0]], kappa=1.0, alpha=2.0, beta=1.0)
        >>> pooled = prior.pooled()
        >>> [float(v[0, 0]) for v in (pooled.mu, pooled.kappa, pooled.alpha, pooled.beta)]
        [2.0, 1.0, 2.0, 3.0]
        """
        values = self._values()
        shapes = [np.shape(v) for v in values if v is not None]
        if not any(len(s) == 2 and s[0] > 1 for s in shapes):
            return self
        if self.pending():
            raise InputError(
                "pooling a NormalInverseGamma with one row per component needs every "
                f"parameter given; got {self!r}, with a default still to fill in (None). "
                "Give mu, kappa, alpha and beta, or call .resolve(pooled_mean, pooled_var, "
                "n_labels) first."
            )
        from bayesnb.sufficient import pool_stats  # the statistics' merge

        shape = self._shape()
        K = shape[0]
        mu, kappa, alpha, beta = (np.broadcast_to(np.asarray(v, float), shape) for v in values)
        merged = pool_stats({"n": kappa, "mean": mu, "ss": 2.0 * beta})
        return NormalInverseGamma(
            mu=merged["mean"],
            kappa=merged["n"] / K,
            alpha=alpha.mean(axis=0, keepdims=True),
            beta=merged["ss"] / (2.0 * K),
        )

    def _check_resolved(self):
        if self.pending():
            raise InputError(
                "this NormalInverseGamma still has defaults to fill in from data "
                f"({self!r}). Give mu, kappa, alpha and beta, or call "
                ".resolve(pooled_mean, pooled_var, n_labels)."
            )

    def posterior(self, n, mean, ss) -> NormalInverseGamma:
        """Update on ``n`` observations with mean ``mean`` and centred sum of squares ``ss``."""
        self._check_resolved()
        n, mean, ss = (np.asarray(v, dtype=float) for v in (n, mean, ss))
        if not (np.all(n >= 0) and np.all(ss >= 0)) or not np.all(np.isfinite(ss)):
            raise InputError(
                "NormalInverseGamma posterior needs counts n >= 0 and sums of squares "
                f"ss >= 0, finite; got n={n.tolist()!r}, ss={ss.tolist()!r}. Give the "
                "statistics of the observed values (their number, mean and centred sum "
                "of squares)."
            )
        try:
            np.broadcast_shapes(n.shape, mean.shape, ss.shape, self._shape())
        except ValueError:
            raise InputError(
                f"NormalInverseGamma posterior: statistics of shapes n {n.shape}, mean "
                f"{mean.shape}, ss {ss.shape} do not fit the prior's shape {self._shape()}."
            ) from None
        kappa_n = self.kappa + n
        mean = np.where(n > 0, mean, self.mu)
        with np.errstate(over="ignore", invalid="ignore"):
            # the prior mean moved by a share of the deviation: exact at any offset
            delta = mean - self.mu
            mu_n = self.mu + delta * (n / kappa_n)
            alpha_n = self.alpha + n / 2.0
            beta_n = self.beta + ss / 2.0 + (self.kappa * n / (2.0 * kappa_n)) * delta * delta
        if not (np.all(np.isfinite(mu_n)) and np.all(np.isfinite(beta_n))):
            raise InputError(
                "NormalInverseGamma posterior overflows: the data's mean lies beyond the "
                f"largest float from the prior mean (mean={mean.tolist()!r}, "
                f"mu={np.asarray(self.mu).tolist()!r}). Rescale the data, or give a prior "
                "mean nearer to it."
            )
        return NormalInverseGamma(mu=mu_n, kappa=kappa_n, alpha=alpha_n, beta=beta_n)

    def log_marginal_likelihood(self, n, mean, ss) -> float:
        """``log p(data)`` of ``n`` normal draws with mean ``mean`` and centred sum of
        squares ``ss`` under this prior (the mean and variance integrated out), summed
        over the arrays' entries."""
        n = np.asarray(n, dtype=float)
        post = self.posterior(n, mean, ss)
        a, b, k = (np.asarray(v, dtype=float) for v in (self.alpha, self.beta, self.kappa))
        out = (
            log_rising(a, n / 2.0)  # ln Gamma(alpha_n) - ln Gamma(alpha)
            + a * np.log(b)
            - post.alpha * np.log(post.beta)
            + 0.5 * (np.log(k) - np.log(post.kappa))
            - 0.5 * n * np.log(2.0 * np.pi)
        )
        return float(np.sum(out))

    def posterior_from_data(self, x) -> NormalInverseGamma:
        """Update on the values ``x`` (any shape, all pooled); a missing value (NaN) is
        left out, and no value at all leaves the prior as it is."""
        x = _numbers(x, "x", "x=[1.0, 2.5]").ravel()
        x = x[~np.isnan(x)]
        if np.isinf(x).any():
            raise InputError(
                "x holds an infinite value; a Gaussian needs finite values (NaN for a missing one)."
            )
        if not x.size:
            return self.posterior(0, 0.0, 0.0)
        mean = x.mean()
        return self.posterior(x.size, mean, ((x - mean) ** 2).sum())

    def mode(self) -> tuple[np.ndarray, np.ndarray]:
        """Joint mode ``(mu, sigma2)``."""
        self._check_resolved()
        shape = self._shape()
        return (
            np.broadcast_to(np.asarray(self.mu, float), shape).copy(),
            np.broadcast_to(np.asarray(self.beta / (self.alpha + 1.5)), shape).copy(),
        )

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
        shape = self._shape()
        return (
            np.broadcast_to(np.asarray(self.mu, float), shape).copy(),
            np.broadcast_to(np.asarray(self.beta / (alpha - 1.0)), shape).copy(),
        )

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
        mu = _numbers(mu, "mu", "mu=0.0")
        sigma2 = _numbers(sigma2, "sigma2", "sigma2=1.0")
        if np.isnan(mu).any() or np.isnan(sigma2).any():
            raise InputError("logpdf needs numbers for mu and sigma2; got NaN.")
        inside = sigma2 > 0  # outside the support (sigma2 <= 0): density 0
        s2 = np.where(inside, sigma2, 1.0)
        with np.errstate(over="ignore"):
            z2 = k * ((mu - m) / np.sqrt(s2)) ** 2  # scaled first: -inf only beyond floats
            log_ig = a * np.log(b) - special.gammaln(a) - (a + 1.0) * np.log(s2) - b / s2
            log_n = -0.5 * np.log(2 * np.pi * s2 / k) - z2 / 2
        return np.where(inside, log_ig + log_n, -np.inf)

    def sample(self, rng: np.random.Generator, size: int | None = None):
        """Draw ``(mu, sigma2)`` pairs."""
        self._check_resolved()
        shape = np.broadcast(self.mu, self.alpha, self.beta, self.kappa).shape
        if size is not None:
            shape = (size, *shape)
        rng = _rng(rng)
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
        var_floor: float = 0.0,
        labels=None,
        columns=None,
    ):
        """``(mu, sigma2)`` estimated from sufficient statistics.

        ``"ml"`` gives the sample mean and ``ss / (n - ddof)``: ``ddof=0`` is the
        maximum-likelihood (1/N) variance and ``ddof=1`` the unbiased (N-1) one. An
        entry with no observation at all (``n = 0``, e.g. a class whose rows all have
        weight 0, as scikit-learn allows) has no maximum-likelihood estimate and takes
        the prior's mode, which no data moves.
        ``"predictive"`` returns the Student-t ``(df, loc, scale**2)`` instead.
        ``var_floor`` is added to every variance (the Student-t's ``scale**2``).

        ``what`` names the feature in error messages; ``labels`` (the classes, the
        first axis of ``(K, d)`` statistics) and ``columns`` (the last axis) name the
        entry at fault. An entry is named by its position when they are not given.
        """
        check_estimate(estimate)
        if isinstance(ddof, bool) or ddof not in (0, 1):
            raise InputError(
                f"ddof must be 0 (1/N, maximum likelihood) or 1 (1/(N-1), unbiased); got "
                f"ddof={ddof!r}."
            )
        n, mean, ss = (np.asarray(v, dtype=float) for v in (n, mean, ss))

        def where(bad) -> str:
            """'class c, column j' of the first entry of the mask ``bad``."""
            at = np.argwhere(np.atleast_2d(bad))[0]
            k, j = int(at[0]), int(at[-1])
            label = repr(labels[k]) if labels is not None and k < len(labels) else f"#{k}"
            column = repr(columns[j]) if columns is not None and j < len(columns) else f"#{j}"
            return f"class {label}, column {column}"

        if estimate == "ml":
            shape = np.broadcast_shapes(n.shape, mean.shape, ss.shape)
            empty = np.broadcast_to(n <= 0, shape)
            few = np.broadcast_to(n - ddof <= 0, shape) & ~empty
            if np.any(few):
                raise InputError(
                    f"estimate='ml' with ddof={ddof} needs more than {ddof} observation(s) "
                    f"of {what} in every class; {where(few)} has "
                    f"{int(np.min(n))}. Use estimate='map' (or, in a classifier, 'mean'), "
                    "which borrow strength from the Normal-Inverse-Gamma prior."
                )
            with np.errstate(divide="ignore", invalid="ignore"):
                var = ss / (n - ddof)
            if np.any(empty):  # nothing observed: the prior's mode
                prior_mu, prior_var = self.mode()
                mean = np.where(empty, prior_mu, mean)
                var = np.where(empty, prior_var, var)
            var = var + var_floor
            if np.any(var <= 0):
                fewest = np.min(np.broadcast_to(n, var.shape)[var <= 0])
                raise InputError(
                    f"estimate='ml' found zero variance of {what} in {where(var <= 0)} "
                    f"({fewest:g} sample(s) there, all equal), so its "
                    "density is infinite there. Use estimate='map' (or, in a "
                    "classifier, 'mean'), which keep the variance positive through the "
                    "prior."
                )
            return mean, var
        post = self.posterior(n, mean, ss)
        if estimate == "map":
            mu, var = post.mode()
            return mu, var + var_floor
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
            mu, var = post.mean()
            return mu, var + var_floor
        df, loc, scale2 = post.predictive_params()
        return df, loc, scale2 + var_floor


@dataclass(frozen=True, eq=False)
class NormalInverseWishart:
    """Normal-Inverse-Wishart prior on a multivariate Gaussian's mean and covariance.

    :math:`\\Sigma \\sim \\mathrm{InvWishart}(\\nu, \\Psi)` and
    :math:`\\mu \\mid \\Sigma \\sim N(\\mu_0, \\Sigma/\\kappa)`, over a block of ``d``
    columns (:class:`~bayesnb.MultivariateGaussian`).

    Parameters
    ----------
    mu : array_like (d,) or None
        Prior mean; None (the default): the mean of all the training rows.
    kappa : float, default 0.01
        Pseudo-observations behind ``mu``.
    nu : float or None
        Degrees of freedom, > d - 1; None (the default): d + 2, the fewest for which
        the prior has a finite mean covariance.
    psi : array_like (d, d) or None
        Scale matrix, symmetric positive definite; None (the default): the 1/N
        covariance of all the training rows over :math:`K^{2/d}`, for K classes or
        components (the default of Fraley and Raftery's conjugate prior for
        Gaussian mixtures, whose components are each about 1/K of the data's volume).
        A diagonal or spherical covariance takes the diagonal of that matrix, the
        columns' variances (Fraley and Raftery's default for those structures: only
        the variances enter their inverse gammas, see *Notes*). Rows on a
        lower-dimensional set (collinear columns, proportions that sum to 1, fewer
        distinct rows than columns) have a singular covariance, so the default
        raises every eigenvalue of their correlation matrix :math:`R = D^{-1/2} C
        D^{-1/2}` (:math:`D` the variances' diagonal) below
        :attr:`CORRELATION_FLOOR` (1e-6) to it, :math:`C \\to D^{1/2} V \\max(\\Lambda,
        10^{-6}) V^\\top D^{1/2}` for :math:`R = V \\Lambda V^\\top`: a scale of 1e-6 of
        the standardized variance across the set, as scikit-learn's ``reg_covar``
        adds a small variance to every covariance. Rows whose correlation matrix has
        no eigenvalue below 1e-6 keep their covariance exactly. A column without
        spread gets a variance of 1. (A full covariance per class refuses such rows
        under this default, naming the constant combination: see
        :class:`~bayesnb.MultivariateGaussian`.)

    Notes
    -----
    From ``n`` rows with mean :math:`\\bar x` and scatter matrix
    :math:`S = \\sum (x - \\bar x)(x - \\bar x)^\\top`:

    .. math::
        \\kappa_n = \\kappa + n,\\quad \\nu_n = \\nu + n,\\quad
        \\mu_n = (\\kappa\\mu_0 + n\\bar x)/\\kappa_n,\\quad
        \\Psi_n = \\Psi + S
        + \\frac{\\kappa n}{\\kappa_n}(\\bar x - \\mu_0)(\\bar x - \\mu_0)^\\top.

    The joint mode is :math:`(\\mu_n, \\Psi_n/(\\nu_n + d + 2))` and the posterior mean
    :math:`(\\mu_n, \\Psi_n/(\\nu_n - d - 1))`. With d = 1 it is the
    :class:`NormalInverseGamma` with :math:`\\alpha = \\nu/2`, :math:`\\beta = \\Psi/2`.
    A diagonal covariance takes, for every column, the inverse gamma that the
    Inverse-Wishart gives its variance, :math:`\\alpha = (\\nu - d + 1)/2` and
    :math:`\\beta = \\Psi_{jj}/2`; a spherical one the same summed over the columns,
    :math:`\\alpha = d(\\nu - d + 1)/2` and :math:`\\beta = \\mathrm{tr}\\,\\Psi/2`.

    Examples
    --------
    >>> prior = NormalInverseWishart(mu=[0.0, 0.0], kappa=1.0, nu=4.0, psi=np.eye(2))
    >>> post = prior.posterior(n=2.0, mean=[1.0, 0.0], scatter=np.eye(2))
    >>> [float(v) for v in post.mu] + [float(post.nu)]
    [0.6666666666666666, 0.0, 6.0]
    """

    mu: np.ndarray | None = None
    kappa: float = 0.01
    nu: float | None = None
    psi: np.ndarray | None = None

    #: The default ``psi``'s floor on the eigenvalues of the training rows' correlation
    #: matrix (:meth:`default_psi`). A class attribute, not a field.
    CORRELATION_FLOOR = 1e-6

    def __post_init__(self):
        if self.mu is not None:
            mu = _numbers(self.mu, "NormalInverseWishart mu", "mu=[0.0, 0.0]")
            if mu.ndim != 1 or not np.isfinite(mu).all():
                raise InputError(
                    f"NormalInverseWishart mu must be a 1-d array of finite numbers (one per "
                    f"column); got shape {mu.shape}."
                )
            object.__setattr__(self, "mu", mu)
        kappa = _numbers(self.kappa, "NormalInverseWishart kappa", "kappa=0.01")
        if kappa.ndim != 0 or not (np.isfinite(kappa) and kappa > 0):
            raise InputError(
                f"NormalInverseWishart kappa must be one finite number > 0; got {self.kappa!r}."
            )
        object.__setattr__(self, "kappa", float(kappa))
        if self.nu is not None:
            nu = _numbers(self.nu, "NormalInverseWishart nu", "nu=4.0")
            if nu.ndim != 0 or not np.isfinite(nu):
                raise InputError(
                    f"NormalInverseWishart nu must be one finite number; got {self.nu!r}."
                )
            object.__setattr__(self, "nu", float(nu))
        if self.psi is not None:
            psi = _numbers(self.psi, "NormalInverseWishart psi", "psi=np.eye(2)")
            if psi.ndim != 2 or psi.shape[0] != psi.shape[1] or not np.isfinite(psi).all():
                raise InputError(
                    f"NormalInverseWishart psi must be a square matrix of finite numbers "
                    f"(d, d); got shape {psi.shape}."
                )
            if not np.allclose(psi, psi.T, rtol=1e-12, atol=0.0):
                raise InputError("NormalInverseWishart psi must be symmetric; got psi != psi.T.")
            try:
                np.linalg.cholesky(psi)
            except np.linalg.LinAlgError:
                raise InputError(
                    "NormalInverseWishart psi must be positive definite (its Cholesky "
                    "factorization failed). Give a covariance-like matrix, e.g. np.eye(d)."
                ) from None
            object.__setattr__(self, "psi", psi)

    def resolve(self, d: int, n_labels: int, mean: np.ndarray, cov: np.ndarray):
        """The prior with its data defaults filled in for ``d`` columns and
        ``n_labels`` classes or components, from the rows' ``mean`` and 1/N ``cov``;
        a declared value of the wrong size raises."""
        mu = mean if self.mu is None else self.mu
        nu = d + 2.0 if self.nu is None else self.nu
        psi = self.default_psi(cov, n_labels) if self.psi is None else self.psi
        if np.shape(mu) != (d,) or np.shape(psi) != (d, d):
            raise InputError(
                f"NormalInverseWishart over {d} columns needs mu of shape ({d},) and psi of "
                f"shape ({d}, {d}); got {np.shape(mu)} and {np.shape(psi)}."
            )
        if not nu > d - 1:
            raise InputError(
                f"NormalInverseWishart nu must exceed d - 1 = {d - 1} for {d} columns; got "
                f"nu={nu!r}."
            )
        return NormalInverseWishart(mu=mu, kappa=self.kappa, nu=nu, psi=psi)

    @classmethod
    def default_psi(cls, cov, n_labels: int) -> np.ndarray:
        """The default ``psi`` from the training rows' 1/N covariance ``cov`` (d, d)
        for ``n_labels`` classes or components: ``cov`` over :math:`K^{2/d}`, every
        eigenvalue of its correlation matrix raised to at least
        :attr:`CORRELATION_FLOOR` (only when one is below it), and a variance of 1
        for a column without spread (see the class's ``psi``)."""
        cov = np.array(cov, dtype=float)
        d = cov.shape[0]
        spread, sd, values, vectors = cls._correlation(cov)
        if spread.size and values.min() < cls.CORRELATION_FLOOR:  # a lower-dimensional set
            corr = (vectors * np.maximum(values, cls.CORRELATION_FLOOR)) @ vectors.T
            cov[np.ix_(spread, spread)] = (corr + corr.T) / 2.0 * np.outer(sd, sd)
        psi = cov / float(n_labels) ** (2.0 / d)
        # a column without spread: one unit of variance, so psi stays definite
        diag = np.diagonal(psi).copy()
        if np.any(diag <= 0):
            psi = psi + np.diag(np.where(diag > 0, 0.0, 1.0))
        return psi

    @classmethod
    def flat_directions(cls, cov) -> np.ndarray:
        """(m, d): the combinations c of the columns along which rows of 1/N covariance
        ``cov`` (d, d) have (almost) no spread, each scaled to a largest :math:`|c_j|`
        of 1: a column without spread (c its indicator), and every eigenvector v of
        the correlation matrix of the others whose eigenvalue is below
        :attr:`CORRELATION_FLOOR`, as :math:`c = D^{-1/2} v` (so that :math:`c^\\top
        x` is constant to within 1e-3 of the columns' standard deviations)."""
        cov = np.asarray(cov, dtype=float)
        d = cov.shape[0]
        out = [np.eye(d)[j] for j in np.flatnonzero(~(np.diagonal(cov) > 0))]
        spread, sd, values, vectors = cls._correlation(cov)
        for v in vectors[:, values < cls.CORRELATION_FLOOR].T:
            c = np.zeros(d)
            c[spread] = v / sd
            c /= c[np.argmax(np.abs(c))]  # the largest coefficient 1
            out.append(c)
        return np.reshape(out, (-1, d))

    @staticmethod
    def _correlation(cov: np.ndarray) -> tuple:
        """``(spread, sd, values, vectors)``: the columns of ``cov`` with a positive
        variance, their standard deviations, and the eigenvalues (ascending) and
        eigenvectors of their correlation matrix."""
        spread = np.flatnonzero(np.diagonal(cov) > 0)
        sd = np.sqrt(np.diagonal(cov)[spread])
        corr = cov[np.ix_(spread, spread)] / np.outer(sd, sd)
        if not spread.size:
            return spread, sd, np.zeros(0), np.zeros((0, 0))
        values, vectors = np.linalg.eigh((corr + corr.T) / 2.0)
        return spread, sd, values, vectors

    def posterior(self, n, mean, scatter) -> NormalInverseWishart:
        """The posterior after ``n`` rows with ``mean`` (d,) and ``scatter`` (d, d)."""
        n = float(n)
        mean = np.asarray(mean, dtype=float)
        kn = self.kappa + n
        delta = mean - self.mu
        pull = (self.kappa * n / kn) * np.outer(delta, delta)
        psi = self.psi + np.asarray(scatter, dtype=float) + pull
        return NormalInverseWishart(
            mu=(self.kappa * self.mu + n * mean) / kn, kappa=kn, nu=self.nu + n, psi=psi
        )

    def logpdf(self, mu, cov) -> float:
        """:math:`\\log N(\\mu \\mid \\mu_0, \\Sigma/\\kappa) + \\log \\mathrm{IW}(\\Sigma
        \\mid \\nu, \\Psi)` of one mean (d,) and covariance (d, d), from Cholesky
        factors (no inverse)."""
        return log_normal_given_cov(mu, self.mu, cov, self.kappa) + log_inverse_wishart(
            cov, self.nu, self.psi
        )

    def log_marginal_likelihood(self, n, mean, scatter) -> float:
        """``log p(rows)`` with the mean and covariance integrated out."""
        d = len(self.mu)
        post = self.posterior(n, mean, scatter)
        _, logdet0 = np.linalg.slogdet(self.psi)
        _, logdet_n = np.linalg.slogdet(post.psi)
        return float(
            -0.5 * n * d * np.log(np.pi)
            + special.multigammaln(post.nu / 2.0, d)
            - special.multigammaln(self.nu / 2.0, d)
            + 0.5 * self.nu * logdet0
            - 0.5 * post.nu * logdet_n
            + 0.5 * d * (np.log(self.kappa) - np.log(post.kappa))
        )


def _chol_logdet(chol: np.ndarray) -> float:
    return 2.0 * float(np.sum(np.log(np.diagonal(chol))))


def log_normal_given_cov(x, mean, cov, kappa: float = 1.0) -> float:
    """:math:`\\log N(x \\mid m, \\Sigma/\\kappa)` from the Cholesky factor of ``cov``."""
    from scipy.linalg import solve_triangular

    chol = np.linalg.cholesky(cov)
    d = len(mean)
    z = solve_triangular(chol, np.asarray(x, float) - mean, lower=True)
    return float(
        -0.5 * d * np.log(2.0 * np.pi)
        + 0.5 * d * np.log(kappa)
        - 0.5 * _chol_logdet(chol)
        - 0.5 * kappa * (z @ z)
    )


def log_inverse_wishart(cov, nu: float, psi) -> float:
    """:math:`\\log \\mathrm{IW}(\\Sigma \\mid \\nu, \\Psi)`:
    :math:`\\tfrac{\\nu}{2}\\log|\\Psi| - \\tfrac{\\nu d}{2}\\log 2 - \\log\\Gamma_d(\\nu/2)
    - \\tfrac{\\nu + d + 1}{2}\\log|\\Sigma| - \\tfrac12\\mathrm{tr}(\\Psi\\Sigma^{-1})`,
    the trace as the squared Frobenius norm of :math:`L^{-1}C` (Cholesky factors
    :math:`\\Sigma = LL^\\top`, :math:`\\Psi = CC^\\top`)."""
    from scipy.linalg import solve_triangular

    d = cov.shape[0]
    chol, chol_psi = np.linalg.cholesky(cov), np.linalg.cholesky(psi)
    m = solve_triangular(chol, chol_psi, lower=True)
    return float(
        0.5 * nu * _chol_logdet(chol_psi)
        - 0.5 * nu * d * np.log(2.0)
        - special.multigammaln(nu / 2.0, d)
        - 0.5 * (nu + d + 1.0) * _chol_logdet(chol)
        - 0.5 * float(np.sum(m * m))
    )
