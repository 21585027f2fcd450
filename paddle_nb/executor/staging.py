"""Commit or rollback: a run changes the user's persistables all together, or not at all.

Every run has one :class:`RunState`, and ends through one commit or one rollback,
whichever value store it ran on (executor/executor.py):

- on an env of arrays, nothing is written to the user's scope while ops run; the
  new values are handed to :meth:`RunState.defer`, and :meth:`RunState.commit`
  swaps them all into the user's variables at once;
- on cells (Variables in scopes, for control flow), persistables are written as
  the ops run, each one staged first (:meth:`RunState.stage`: the array its tensor
  holds is remembered; kernels never write into an array, they return new ones).
  :meth:`RunState.rollback` gives each tensor its old array back and erases the
  variables the run created in the user's scope.

Commit and rollback both finish even when a KeyboardInterrupt arrives part-way:
each step can be done again, so a cut-short one is repeated whole, then the
interrupt is raised. A run is never left half old, half new.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.tensor import LoDTensor


__all__ = ["RunState", "write_back", "env_writes", "views_any", "uninterrupted"]


class RunState:
    """What one run must write when it succeeds, and undo if it fails."""

    def __init__(self, program: Any, user_scope: Any, place: Any, recorder: Any = None
                 ) -> None:
        self.program = program
        self.user_scope = user_scope
        self.place = place
        self.run_scope: Any = None         # the `run` kid scope, when the run is on cells
        self.recorder = recorder
        self.saved: dict[int, tuple] = {}
        self.created: list[str] = []
        self.writes: list[tuple[str, Any]] = []
        self.committed = False

    # -- on cells: written in place, staged ----------------------------------------------------
    def stage(self, var: Any) -> None:
        """Remember what ``var`` holds, before the run writes it."""
        if id(var) not in self.saved:
            held = var.holder
            self.saved[id(var)] = (var, held, held.snapshot() if isinstance(held, LoDTensor)
                                   else None)

    # -- the end of the run ---------------------------------------------------------------------
    def defer(self, writes: list[tuple[str, Any]]) -> None:
        """Hold ``writes`` ((name, array)) until :meth:`commit`."""
        self.writes = writes

    def commit(self) -> None:
        """The run succeeded: write the deferred values into the user's scope, all of them
        (see :func:`write_back`); staged values stay as the run wrote them."""
        if self.writes:
            try:
                write_back(self.user_scope, self.writes, self.place)
            finally:        # (an interrupt is raised only once every value is written)
                self.committed = True
        self.committed = True

    def rollback(self) -> None:
        """The run failed: every staged variable gets its old value back, variables it
        created in the user's scope are erased; deferred writes are dropped. Repeatable."""
        self.writes = []
        for var, held, snapshot in self.saved.values():
            if var.destroyed_why is not None:
                continue
            if isinstance(held, LoDTensor) and var.holder is held:
                held.restore(snapshot)
            elif var.holder is not held:
                var.restore_holder(held)
        for name in self.created:
            if self.user_scope.is_alive():
                self.user_scope.erase(name)

    def end(self, failed: bool) -> None:
        """Roll back a failed run (one whose commit never finished), close its record,
        destroy its run scope: repeatable, and finished whatever interrupts it."""
        def finish():
            try:
                if failed and not self.committed:
                    self.rollback()
                if self.recorder is not None:
                    self.recorder.finish(failed=failed)
            finally:
                if self.run_scope is not None:
                    self.run_scope.destroy()
        uninterrupted(finish)


def uninterrupted(step: Any) -> None:
    """Call ``step()`` until it returns, holding a KeyboardInterrupt that arrives meanwhile
    (``step`` must be repeatable); raise the interrupt after."""
    interrupted = None
    while True:
        try:
            step()
            break
        except KeyboardInterrupt as err:
            interrupted = err
    if interrupted is not None:
        raise interrupted


def write_back(scope: Any, writes: list[tuple[str, Any]], place: Any) -> None:
    """Give each user variable of ``writes`` ((name, array); found up the scopes, else made)
    its new array, all of them even if a KeyboardInterrupt arrives part-way (Ctrl-C, at any
    bytecode). Each write is repeatable (a variable already holding its array is left
    alone), so a write cut short is simply done again."""
    def swap():
        for name, array in writes:
            tensor = (scope.find_var(name) or scope.var(name)).get_tensor()
            if tensor.data is not array:
                tensor.hold(array, place)
    uninterrupted(swap)


def env_writes(plan: Any, env: list, place: Any, fed: list[int], feeds: list
               ) -> list[tuple[str, Any]]:
    """(name, array) of each persistable a run on ``env`` wrote, and of each fed one at
    positions ``fed`` (as PaddlePaddle writes a fed persistable): what the commit writes.
    No scope keeps a caller's array: a fed persistable is copied, and so is a result that
    is a view of one of the ``feeds`` (a reshape2 of a feed into a parameter)."""
    names, writes = plan.names, []
    for pos in plan.written_persistables:
        array = env[pos]
        if array is not None:
            if array.base is not None and views_any(array, feeds, place):
                array = array.copy()
            writes.append((names[pos], array))
    for pos in fed:
        if env[pos] is not None and not plan.written[pos]:
            writes.append((names[pos], env[pos].copy()))
    return writes


def views_any(array: Any, feeds: list, place: Any) -> bool:
    """True when ``array`` may share memory with one of ``feeds`` (a bounds check)."""
    shares = place.xp.may_share_memory
    return any(shares(array, feed) for feed in feeds)
