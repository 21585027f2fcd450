"""Step scopes that fill lazily: a block run's values kept as a list until asked for.

An RNN runs its step block once per time step, each time in a new kid scope,
and its backward pass reads those scopes' values. Making a Variable and a
LoDTensor for every value of every step would cost more than the step's
kernels, so the executor runs a sub-block on a list of arrays (an env) and
leaves that list in the block's scope as a :class:`Frame`. The scopes the
executor makes for a run are :class:`FrameScope` s: Scopes on which every
public method works as on any Scope, turning the frame into Variables
(``materialize``) when something asks for one. The executor and the
control-flow ops (through :class:`FramedContext`) read arrays without that.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.memory import MEMORY
from paddle_nb.core.place import Place
from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.ops.context import RawContext

__all__ = ["Frame", "FrameScope", "FramedContext", "find_array", "local_array"]


class Frame:
    """A block run's own variables as a list of arrays, before anyone asks for a Variable.

    ``index`` maps each name to its position in ``arrays`` (shared by every run
    of the block); None in ``arrays`` is a declared variable without a value.
    ``nbytes`` (the bytes of the arrays the block's ops made; the caller's
    inputs are counted where they came from) are counted under ``place`` while
    the frame lives.
    """

    __slots__ = ("index", "arrays", "place", "nbytes")

    def __init__(self, index: dict[str, int], arrays: list[Any], place: Place,
                 nbytes: int) -> None:
        self.index = index
        self.arrays = arrays
        self.place: Place | None = place
        self.nbytes = nbytes
        MEMORY.allocate(place, nbytes)

    def release(self) -> None:
        """Stop counting the values' bytes (once)."""
        if self.place is not None:
            MEMORY.release(self.place, self.nbytes)
            self.place = None

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:
            pass


class FrameScope(Scope):
    """A Scope that may hold a :class:`Frame`: variables not yet made into Variables,
    whose names are not in ``own_vars``. Anything that hands out a Variable or lists
    the variables turns the frame into Variables first (``materialize``)."""

    __slots__ = ("frame",)

    def __init__(self, _parent: Scope | None = None, label: str | None = None) -> None:
        super().__init__(_parent, label)
        self.frame: Frame | None = None

    def attach_frame(self, frame: Frame) -> None:
        """Hold ``frame``'s values as this scope's variables (none of its names may be here)."""
        if self.frame is not None:
            self.materialize()
        self.frame = frame

    def materialize(self) -> None:
        """Turn the frame's values into Variables holding LoDTensors, in the frame's order."""
        frame, self.frame = self.frame, None
        if frame is None:
            return
        place = frame.place
        frame.release()
        for name, pos in frame.index.items():
            array = frame.arrays[pos]
            tensor = super().var(name).get_tensor()
            if array is not None:
                tensor.hold(array, place)

    # -- the public Scope, seeing the frame's variables ---------------------------------------
    def var(self, name: str) -> Variable:
        if self.frame is not None:
            self.materialize()
        return super().var(name)

    def find_local_var(self, name: str) -> Variable | None:
        frame = self.frame
        if frame is not None and name in frame.index:
            self._check_alive()
            self.materialize()
        return super().find_local_var(name)

    def holds(self, name: str) -> bool:
        frame = self.frame
        return name in self.own_vars or (frame is not None and name in frame.index)

    def local_var_names(self) -> list[str]:
        if self.frame is not None:
            self._check_alive()
            self.materialize()
        return super().local_var_names()

    def var_count(self) -> int:
        frame = self.frame
        return len(self.own_vars) + (len(frame.index) if frame is not None else 0)

    def erase(self, names: str | list[str]) -> None:
        if self.frame is not None:
            self._check_alive()
            self.materialize()
        super().erase(names)

    def destroy_vars(self, why: str) -> None:
        frame, self.frame = self.frame, None
        if frame is not None:
            frame.release()
        super().destroy_vars(why)

    # -- the executor's reads: no Variables made ----------------------------------------------
    def local_tensor(self, name: str) -> LoDTensor:
        """The tensor of local variable ``name``, made (with its empty tensor) if absent:
        the executor binds a block's variables with this."""
        if self.frame is not None:
            self.materialize()
        var = self.own_vars.get(name)
        return (var or self.var(name)).get_tensor()

    def find_array(self, name: str) -> Any:
        return find_array(self, name)

    def local_array(self, name: str) -> Any:
        return local_array(self, name)


def find_array(scope: Scope, name: str) -> Any:
    """The array of tensor variable ``name`` seen from ``scope`` (None when absent or
    empty), read without turning frames into Variables."""
    while scope is not None:
        var = scope.own_vars.get(name)
        if var is not None:
            holder = var.holder
            return holder.data if isinstance(holder, LoDTensor) else None
        frame = getattr(scope, "frame", None)
        if frame is not None:
            pos = frame.index.get(name)
            if pos is not None:
                return frame.arrays[pos]
        scope = scope.up
    return None


def local_array(scope: Scope, name: str) -> Any:
    """The array of ``scope``'s own tensor variable ``name``, else None (no Variable made)."""
    frame = getattr(scope, "frame", None)
    if frame is not None:
        pos = frame.index.get(name)
        if pos is not None:
            return frame.arrays[pos]
    var = scope.own_vars.get(name)
    if var is None:
        return None
    holder = var.holder
    return holder.data if isinstance(holder, LoDTensor) else None


class FramedContext(RawContext):
    """The RawContext the executor gives a control-flow op: its reads of step scopes'
    arrays go through frames without making Variables."""

    __slots__ = ()

    def find_array(self, name: str, scope: Scope | None = None) -> Any:
        return find_array(self.scope if scope is None else scope, name)

    def local_array(self, scope: Scope, name: str) -> Any:
        return local_array(scope, name)

    def local_names(self, scope: Scope) -> list[str]:
        frame = getattr(scope, "frame", None)
        return list(frame.index) if frame is not None else scope.local_var_names()

    def new_scope_holding(self, label: str, index: dict[str, int], arrays: list[Any],
                          nbytes: int) -> Scope:
        if not isinstance(self.scope, FrameScope):     # (its kids are of its class)
            return super().new_scope_holding(label, index, arrays, nbytes)
        kid = self.scope.new_scope(label=label)
        kid.attach_frame(Frame(index, arrays, self.place, nbytes))
        return kid

    def own_bytes(self, scope: Scope) -> int:
        frame = getattr(scope, "frame", None)
        return (frame.nbytes if frame is not None else 0) + super().own_bytes(scope)
