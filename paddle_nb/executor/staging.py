"""Commit or rollback: a run changes the user's persistables all together, or not at all.

Every run has one :class:`RunState`, and ends through its one commit. The global block
runs on an env of arrays (executor/executor.py); nothing is written into the user's
scope while ops run, not even by a control-flow op's sub-blocks, which write into the
run's own scope (executor/env_scope.py, ``Executor.bound_var``). The new values are
handed to :meth:`RunState.defer`, and :meth:`RunState.commit` swaps them all into the
user's variables at once; a run that fails before that simply drops them.

The commit finishes even when a KeyboardInterrupt arrives part-way: each write can be
done again, so a cut-short one is repeated whole, then the interrupt is raised. A run is
never left half old, half new.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.tensor_array import LoDTensorArray
from paddle_nb.executor.feeds import lod_fits


__all__ = ["RunState", "write_back", "env_writes", "views_any", "uninterrupted"]


class RunState:
    """What one run must write when it succeeds, and what it must close when it ends.

    A run without raw ops or fed LoDs (the usual one, whose fixed cost counts) sets none
    of the class-level defaults below: executor/env_scope.py's ``Lending.open`` and
    :meth:`note_lod` do."""

    run_scope: Any = None     # the `run` kid scope, when raw ops need one (env_scope.py)
    op_scope: Any = None      # its kid, in which the raw ops run
    lods: dict[str, list] = {}    # name -> the LoD beside its env value (never written here)
    raw_written: set[int]     # env positions of persistables raw ops wrote
    shadows: list[str]        # persistables sub-blocks wrote in the raw ops' scope
    fed_ids: set[int]         # ids of the caller's arrays the env holds (a raw op gets a copy)
    # the user's tensor arrays as the run found them (name -> None, or each element's
    # (array, place, LoD)): raw ops write those in place, and a failed run puts them back
    kept_arrays: dict[str, Any] = {}
    committed = False

    def __init__(self, program: Any, user_scope: Any, place: Any, recorder: Any = None
                 ) -> None:
        self.program = program
        self.user_scope = user_scope
        self.place = place
        self.recorder = recorder
        self.writes: list[tuple[str, Any]] = []
        self.peak = 0       # the most bytes the env held (Executor.run counts it at the end)

    def note_lod(self, name: str, lod: list) -> None:
        """Keep ``lod`` beside the env value of ``name``."""
        if not self.lods:
            self.lods = {}
        self.lods[name] = lod

    def keep_arrays(self, names: list[str]) -> None:
        """Remember the user's persistable tensor arrays ``names`` as they are (absent ones
        too): a sub-block writes them in place, and a failed run must leave them as found."""
        kept: dict[str, Any] = {}
        for name in names:
            var = self.user_scope.find_var(name)
            holder = var.holder if var is not None else None
            if holder is None:
                kept[name] = None
            elif isinstance(holder, LoDTensorArray):
                kept[name] = [(t.data, t.place, t.lod()) if t.is_allocated() else None
                              for t in holder]
        self.kept_arrays = kept

    def _restore_arrays(self) -> None:
        """Put back the tensor arrays :meth:`keep_arrays` remembered (repeatable); nothing
        where the user's scope was destroyed meanwhile (the run's error says so)."""
        if not self.user_scope.is_alive():
            return
        for name, elements in self.kept_arrays.items():
            var = self.user_scope.find_var(name)
            if elements is None:
                if self.user_scope.holds(name):      # (made by the failed run)
                    self.user_scope.erase([name])
                continue
            if var is None or not isinstance(var.holder, LoDTensorArray):
                continue
            array = var.holder
            for k, element in enumerate(elements):
                while len(array) <= k:
                    array.append(LoDTensor())
                tensor = array[k]
                if element is None:
                    tensor.free()
                    continue
                data, place, lod = element
                if tensor.data is not data:
                    tensor.hold(data, place)
                tensor.set_lod(lod)
            for tensor in array[len(elements):]:
                tensor.free()
            del array[len(elements):]

    # -- the end of the run ---------------------------------------------------------------------
    def defer(self, writes: list[tuple[str, Any]]) -> None:
        """Hold ``writes`` ((name, array)) until :meth:`commit`."""
        self.writes = writes

    def commit(self) -> None:
        """The run succeeded: write the deferred values into the user's scope, all of them,
        each with the LoD beside it, if any (see :func:`write_back`)."""
        if self.writes:
            try:
                write_back(self.user_scope, self.writes, self.place, self.lods)
            finally:        # (an interrupt is raised only once every value is written)
                self.committed = True
        self.committed = True

    def end(self, failed: bool) -> None:
        """Close the run: its record and its run scope (a run without either that succeeded
        has nothing to close). Repeatable, and finished whatever interrupts it. A failed
        run's deferred writes are dropped."""
        def finish() -> None:
            try:
                if failed and not self.committed:
                    self.writes = []
                    self._restore_arrays()
                if self.recorder is not None:
                    self.recorder.finish(failed=failed)
            finally:
                if self.run_scope is not None:
                    self.run_scope.destroy()
        uninterrupted(finish)


def uninterrupted(step: Callable[[], Any]) -> None:
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


def write_back(scope: Any, writes: list[tuple[str, Any]], place: Any,
               lods: dict[str, list] | None = None) -> None:
    """Give each user variable of ``writes`` ((name, array); found up the scopes, else made)
    its new array (and its LoD in ``lods``, if any), all of them even if a
    KeyboardInterrupt arrives part-way (Ctrl-C, at any bytecode). Each write is repeatable
    (a variable already holding its array is left alone), so a write cut short is simply
    done again."""
    def swap() -> None:
        for name, array in writes:
            tensor = (scope.find_var(name) or scope.var(name)).get_tensor()
            if tensor.data is not array:
                tensor.hold(array, place)
            lod = lods.get(name) if lods else None
            if lod_fits(lod, array):
                tensor.set_lod(lod)
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
