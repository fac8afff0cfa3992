"""Progress bars on long work (rich), drawn on stderr only when it is a terminal.

``show_progress(False)`` silences them (the command's ``--quiet``), ``True`` forces
them, and ``None`` (the default) draws them only on a terminal, so logs and captured
output stay clean. A bar inside another (the Gibbs sampler inside a report over K)
stays quiet: one bar at a time.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

_SETTING: bool | None = None
_ACTIVE = False


def show_progress(enabled: bool | None = None) -> None:
    """Draw progress bars always (True), never (False) or on a terminal (None).

    Examples
    --------
    Forced on, the cross-validation of :func:`bayesnb.compare` draws its bar even
    on a captured stderr; off, it draws nothing.

    >>> import contextlib
    >>> import io
    >>> import bayesnb as bnb
    >>> tennis = bnb.datasets.play_tennis()
    >>> def captured():
    ...     err = io.StringIO()
    ...     with contextlib.redirect_stderr(err):
    ...         bnb.compare(tennis, "play", strengths=(1.0,), train_sizes=(1.0,), n_splits=2)
    ...     return err.getvalue()
    >>> bnb.show_progress(True)
    >>> "cross-validating the estimators" in captured()
    True
    >>> bnb.show_progress(False)
    >>> captured()
    ''
    >>> bnb.show_progress(None)  # the default: bars on a terminal only
    """
    global _SETTING
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"show_progress takes True, False or None; got {enabled!r}.")
    _SETTING = enabled


@contextmanager
def progress(total: int, description: str):
    """A bar of ``total`` steps; yields ``advance(n=1)``."""
    global _ACTIVE
    on = sys.stderr.isatty() if _SETTING is None else _SETTING
    if not on or _ACTIVE:
        yield lambda n=1: None
        return
    from rich.console import Console
    from rich.progress import Progress

    _ACTIVE = True
    try:
        console = Console(stderr=True, force_terminal=_SETTING is True)
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task(description, total=total)
            yield lambda n=1: bar.advance(task, n)
    finally:
        _ACTIVE = False
