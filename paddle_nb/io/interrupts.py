"""Ctrl-C during a save: taken at safe points, never in the middle of a commit or a clean-up.

Python turns Ctrl-C (SIGINT) into a KeyboardInterrupt raised between any two bytecodes of
the main thread: inside ``tempfile.mkstemp`` after the file exists but before its name is
known, between the two renames that swap a directory in, inside the ``except`` block that
removes a temporary. Any of those leaves files behind. So a save runs inside
``deferred_interrupts()``: while it is active, a SIGINT is only recorded, and it is acted
on at an ``interruption_point()`` (between two tensors, before the commit), where the
save's clean-up runs with interrupts still deferred, or when the outermost
``deferred_interrupts`` ends, after the commit. Either way the folder holds the old save
or the new one, whole, and nothing else; the user still gets the KeyboardInterrupt.

What "acted on" means is what the handler installed before the save says: Python's own
raises KeyboardInterrupt, a user's handler is called, SIG_IGN ignores it, SIG_DFL ends
the process as it would have. Signals reach only the main thread, so in other threads
both functions do nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

__all__ = ["deferred_interrupts", "interruption_point", "no_interruption_points"]


class _Deferral:
    """The main thread's state: how deep the deferral is, the handler it replaced, and the
    SIGINT that came meanwhile (if any)."""

    def __init__(self) -> None:
        self.depth = 0
        self.held = 0           # > 0: interruption points wait too (a save in place)
        self.previous: Any = None
        self.pending: tuple[Any, Any] | None = None

    def record(self, signum: Any, frame: Any) -> None:
        self.pending = (signum, frame)


_STATE = _Deferral()


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[Any]:
    """Record SIGINT instead of raising it in the with-block (main thread; nests)."""
    state = _STATE
    if threading.current_thread() is not threading.main_thread() or \
            (state.depth == 0 and not _install(state)):
        yield
        return
    state.depth += 1
    try:
        yield
    finally:
        state.depth -= 1
        if state.depth == 0:
            signal.signal(signal.SIGINT, _restorable(state.previous))
            _deliver(state)


@contextlib.contextmanager
def no_interruption_points() -> Iterator[Any]:
    """Defer SIGINT to the end of the with-block, past any ``interruption_point()`` in it:
    for a save that writes in place, where stopping half-way would leave a mix."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with deferred_interrupts():
        _STATE.held += 1
        try:
            yield
        finally:
            _STATE.held -= 1


def interruption_point() -> None:
    """Act now on a SIGINT recorded by ``deferred_interrupts`` (raise KeyboardInterrupt,
    with Python's handler): call it where stopping leaves nothing to undo but what the
    caller's own ``except`` / ``finally`` removes."""
    state = _STATE
    if state.pending is not None and state.depth > 0 and not state.held and \
            threading.current_thread() is threading.main_thread():
        _deliver(state)


def _install(state: Any) -> bool:
    """Put ``state.record`` in place of the SIGINT handler; False where Python may not
    (a sub-interpreter), and the save then runs as any code does."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, state.record)
    except ValueError:
        return False
    state.previous = previous
    return True


def _deliver(state: Any) -> None:
    pending, handler = state.pending, state.previous
    if pending is None or (handler is signal.SIG_DFL and state.depth > 0):
        return                 # (the default action ends the process: only after the commit)
    state.pending = None
    if handler is signal.SIG_IGN:
        return
    if handler is signal.SIG_DFL:
        signal.raise_signal(signal.SIGINT)          # the default action, as it would have been
        return
    if callable(handler):
        handler(*pending)
        return
    raise KeyboardInterrupt


def _restorable(handler: Callable[..., Any]) -> Callable[..., Any]:
    """A handler ``signal.signal`` accepts: one installed outside Python reads as None."""
    return signal.default_int_handler if handler is None else handler
