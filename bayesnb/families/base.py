"""The base class of every feature family."""

from __future__ import annotations

import copy

import numpy as np

from bayesnb.errors import InputError
from bayesnb.priors import check_estimate


class Family:
    """Base class of the feature families. Subclasses set ``kind`` and the kernel."""

    kind = "family"
    multi_column = False

    def __init__(self, prior=None, *, estimate: str | None = None, columns=None):
        if estimate is not None:
            check_estimate(estimate)
        self.prior = prior
        self.estimate = estimate
        self.columns = None if columns is None else list(columns)
        if self.columns is not None and not self.multi_column and len(self.columns) != 1:
            raise InputError(
                f"{type(self).__name__} describes one column; got columns={self.columns!r}. "
                "Declare one entry per column in `features`."
            )
        self.name: str | None = None

    def __repr__(self) -> str:
        bits = [f"prior={self.prior!r}"]
        if self.estimate is not None:
            bits.append(f"estimate={self.estimate!r}")
        if self.columns is not None:
            bits.append(f"columns={self.columns!r}")
        return f"{type(self).__name__}({', '.join(bits)})"

    # -- binding -----------------------------------------------------------------------
    def bind(
        self, name: str, columns: list, data, sample_weight=None, *, counted: bool = False
    ) -> Family:
        """A copy of this declaration bound to training ``data`` (its columns).

        ``sample_weight`` (one non-negative number per row) weighs the rows in any
        data-dependent default the family learns. ``counted=True`` promises that the
        caller counts these same rows next with responsibilities whose rows sum to
        ``sample_weight`` (a classifier's labels): a default that is a function of the
        pooled statistics (the Gaussian prior's pooled mean and variance) is then
        taken from those statistics at the first estimate, without a read here.
        """
        bound = copy.copy(self)
        bound.name = name
        bound.columns = columns if isinstance(columns, list) else list(columns)
        bound._learn(data, sample_weight)
        return bound

    def _learn(self, data, sample_weight=None) -> None:  # pragma: no cover - overridden
        pass

    def params_from(self, source, K: int) -> dict:  # pragma: no cover - overridden
        """This block's internal parameters from ``source``: parameters in the layout of
        :meth:`to_xarray` with a ``component`` axis of ``K`` entries (an
        ``xarray.Dataset`` or a dict), checked; EM starts from them."""
        raise NotImplementedError

    def encode_repeated(self, data):
        """The encoding of ``data`` for a caller that reads it many times (EM's sweeps):
        a family may spend more here to make each later ``count`` and
        ``log_likelihood`` cheaper. By default :meth:`encode`."""
        return self.encode(data)

    # -- cluster reports (see bayesnb.cluster_reports) --------------------------------------
    def attribute_names(self) -> list:
        """The attributes a cluster report describes: one per column by default."""
        return list(self.columns)

    def divergence(self, params: dict, reference: dict) -> np.ndarray:
        """(K, attributes): the Kullback-Leibler divergence, in nats, of every
        component's distribution of every attribute from ``reference``'s (the
        parameters of one component holding every row)."""
        raise NotImplementedError(f"{type(self).__name__} has no divergence")

    def describe(self, params: dict, reference: dict) -> dict:
        """``{attribute: [text per component]}``: a component's most telling value (or
        mean) against ``reference``'s."""
        raise NotImplementedError(f"{type(self).__name__} has no description")

    def value_domains(self) -> list[list] | None:
        """The raw values every column takes, when they are finitely many (so rows
        fall into a finite set of patterns); None for continuous or unbounded data."""
        return None

    def log_marginal(self, stats: dict, n_labels: int) -> float:
        """``log p(data)`` of complete-data statistics ``stats`` (one entry per class
        or component) with the parameters integrated out under the prior: the
        conjugate marginal likelihood (a Dirichlet-multinomial for counts, the
        Normal-Inverse-Gamma marginal for Gaussians)."""
        raise NotImplementedError(f"{type(self).__name__} has no marginal likelihood")

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        """``log p(data | params)`` of complete-data statistics ``stats``, leaving out
        the constants :meth:`log_marginal` leaves out too (a bin's width, the
        multinomial coefficient)."""
        raise NotImplementedError(f"{type(self).__name__} has no complete-data likelihood")

    def posterior_scores(self, enc, params: dict):
        """``log_likelihood(enc, params)`` up to a constant of every row (n, K): all
        that the posterior over the classes depends on, which a family may compute
        with less work. By default the log-likelihood itself."""
        return self.log_likelihood(enc, params)

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    def _feature_dim(self) -> str:
        return f"{self.name}_feature"

    def _lead_dims(self, label_dim: str) -> tuple[str, ...]:
        """Dims before any category axis: the label, then features for a block."""
        return (label_dim, self._feature_dim()) if self.multi_column else (label_dim,)

    def _coords(self) -> dict:
        return {self._feature_dim(): self.columns} if self.multi_column else {}
