"""EM over the partitions of a Dask collection (:func:`bayesnb.dask.cluster`): the
in-memory EM's loop, with a sweep that maps the E-step and the expected statistics
over the partitions and merges them on the client."""

from __future__ import annotations

import numpy as np

from bayesnb.dask import _dask, _merge_counts, _part_table
from bayesnb.mixture import _known_codes, _Problem, _Sweep


class DaskProblem(_Problem):
    """:class:`bayesnb.mixture._Problem` whose rows are a Dask collection's partitions.

    Each partition is held as a :meth:`_Problem.rows_part` (its rows encoded once,
    persisted where they live with ``persist=True``). A sweep sends the state once,
    gets back every partition's statistics, class counts and log-likelihood, and
    merges them in partition order; the prior term enters the objective once. Each
    partition also returns its rows' sum of ``w_i log max_k r_ik`` (ICL's term), so
    the sweep at the final parameters leaves :meth:`top_log_sum` on the client
    without another pass over the rows. The scheduler is told each part's true size
    (:func:`_register_sizeof`), so that it never takes a part for cheap to move. The
    Python loop (:meth:`_Problem._run_python`) drives it: accelerated EM, the
    monotonicity check and convergence are the in-memory EM's.
    """

    def __init__(self, model, bound, labels, estimate, class_estimate, hard, persist):
        self._bound, self._persist = bound, persist
        super().__init__(
            model, bound.table, labels, estimate, class_estimate, None, None, hard, model.blocks
        )
        summary = bound.summary
        self.n = summary["n"]
        self.total_weight = summary["weight"] if summary["weighted"] else float(self.n)
        self.compiled = None
        self._top = None  # (the state last swept, its sum of w_i log max_k r_ik)

    def _encode(self, table) -> list:
        return []  # the rows stay in their partitions

    def _lay_out(self) -> None:
        dask = _dask()
        source = self._bound.source
        part = dask.delayed(_rows_part, pure=True)
        semi = bool(self._bound.summary["labels"])  # some row's component is known
        self.parts = [
            part(p, self.blocks, self.labels, self.hard, source.names, source.is_frame, semi)
            for p in source.parts
        ]
        if self._persist:
            self.parts = list(dask.persist(*self.parts))

    def _buffers(self):
        return None  # no (K, n) array on the client

    def sweep(self, state, out=None) -> _Sweep:
        dask = _dask()
        step = dask.delayed(_sweep_part, pure=True)
        # the state as a literal in every task (O(K x parameters)): each task depends on
        # its encoded partition alone, so the scheduler runs it where that is
        results = [r for r in dask.compute(*[step(p, state) for p in self.parts]) if r]
        stats, class_counts = _merge_counts(self.blocks, [r[:2] for r in results], self.K)
        loglik = float(sum(r[2] for r in results))
        self._top = (state, float(sum(r[3] for r in results)))
        objective = loglik + self.log_prior(state)
        return _Sweep(objective, loglik, None, None, stats, class_counts, state)

    def top_log_sum(self, state) -> float:
        """The sum over the rows of ``w_i log max_k r_ik`` at ``state`` (the term ICL
        adds to BIC; ``w_i`` = 1 without weights), merged from the partitions. EM's
        last sweep is at its final state, so this is the value that sweep brought
        back; a state not swept last is swept once more."""
        if self._top is None or self._top[0] is not state:
            self.sweep(state)
        return self._top[1]

    def probe(self, run, max_iter, tol, restart, accelerate):
        """Not built on Dask: the probe of a saddle perturbs every row's
        responsibilities, which stay on the workers."""
        return None


def _rows_part(part, blocks, labels, hard, names, is_frame, semi):
    X, y, w = part
    known = _known_codes(y, labels, X.shape[0]) if semi and y is not None else None
    if known is not None and not (known >= 0).any():
        known = None
    return _Problem.rows_part(blocks, _part_table(X, names, is_frame), len(labels), w, known, hard)


def _sweep_part(part, state):
    if part.n == 0:
        return None
    sweep = part.sweep(state)
    # ICL's term of these rows, as the in-memory fit sums it (MixtureFit._from_run): a
    # row of weight 0 adds nothing
    logs = np.log(sweep.resp.max(axis=0))
    w = part.weights
    top = float(np.sum(logs if w is None else w * np.where(w > 0, logs, 0.0)))
    return sweep.stats, sweep.class_counts, sweep.log_likelihood, top


def _register_sizeof() -> None:
    """Dask's ``sizeof`` of a part: the bytes of its encoded rows (by default an
    unknown object counts as a few dozen bytes, which the scheduler would move freely)."""
    from dask.sizeof import sizeof

    from bayesnb.mixture import _nbytes

    @sizeof.register(_Problem)
    def _part_bytes(part) -> int:
        return sum(_nbytes(enc) for enc in getattr(part, "encoded", ())) + 1024


_register_sizeof()
