"""Commit or rollback: a run changes the user's persistables all together, or not at all.

A run on an env of arrays computes every new value first and then swaps them
into the user's variables at once (:func:`write_back`). A run on Variables
(control flow, or watched) writes persistables as it goes, each one staged
first: the array its tensor holds is remembered (kernels never write into an
array; they return new ones), and if the run fails, each tensor gets its old
array back and variables the run created in the user's scope are erased
(:class:`RunState`). Both finish even when a KeyboardInterrupt arrives part-way.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.tensor import LoDTensor


__all__ = ["RunState", "write_back", "views_any"]


class RunState:
    """What one run must undo if it fails: persistables it changed or created."""

    def __init__(self, program: Any, user_scope: Any, run_scope: Any, recorder: Any) -> None:
        self.program = program
        self.user_scope = user_scope
        self.run_scope = run_scope
        self.recorder = recorder
        self.saved: dict[int, tuple] = {}
        self.created: list[str] = []

    def stage(self, var: Any) -> None:
        if id(var) not in self.saved:
            held = var.holder
            self.saved[id(var)] = (var, held, held.snapshot() if isinstance(held, LoDTensor)
                                   else None)

    def restore(self) -> None:
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


def write_back(scope: Any, writes: list[tuple[str, Any]], place: Any) -> None:
    """Give each user variable of ``writes`` ((name, array); found up the scopes, else made)
    its new array, all of them even if a KeyboardInterrupt arrives part-way (Ctrl-C, at any
    bytecode): the interrupt is held until every variable holds its new array, then raised.
    Each write is repeatable (a variable already holding its array is left alone), so a
    write cut short is simply done again; the user's scope is never left half old, half new."""
    interrupted = None
    while True:
        try:
            for name, array in writes:
                tensor = (scope.find_var(name) or scope.var(name)).get_tensor()
                if tensor.data is not array:
                    tensor.hold(array, place)
            break
        except KeyboardInterrupt as err:     # finish the swap first
            interrupted = err
    if interrupted is not None:
        raise interrupted


def views_any(array: Any, feeds: list, place: Any) -> bool:
    """True when ``array`` may share memory with one of ``feeds`` (a bounds check)."""
    shares = place.xp.may_share_memory
    return any(shares(array, feed) for feed in feeds)
