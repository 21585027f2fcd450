"""Step scopes that fill lazily: a block run's values kept as a list until asked for.

An RNN runs its step block once per time step, each time in a new kid scope,
and its backward pass reads those scopes' values. Making a Variable and a
LoDTensor for every value of every step would cost more than the step's
kernels, so the executor runs a sub-block on a list of arrays (an env) and
leaves that list in the block's scope as a :class:`Frame`. The scopes the
executor makes for a run are :class:`FrameScope` s: Scopes on which every
public method works as on any Scope, turning the frame into Variables
(``materialize``) when something asks for one. The executor and the
control-flow ops (through executor/step_runs.py's FramedContext) read arrays without that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paddle_nb.core.memory import MEMORY
from paddle_nb.core.place import Place
from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor, redeliver_interrupt
from paddle_nb.core.variable import Variable
from paddle_nb.executor.plan import flat_positions

__all__ = ["Frame", "FrameScope", "FramedBlock", "StepFrame", "find_array", "local_array"]


class StepFrame:
    """A block run's own variables as a list of arrays, before anyone asks for a Variable.

    ``index`` maps each name to its position in ``arrays`` (shared by every run
    of the block); None in ``arrays`` is a declared variable without a value.
    ``nbytes`` (the bytes of the arrays the block's ops made; the caller's
    inputs are counted where they came from) are counted under ``place`` until
    ``release``. A StepFrame's maker counts them (an RNN's forward pass, all its
    steps' at once) and its step scope gives them back when destroyed (a run's end
    destroys them all); a :class:`Frame` counts them itself.
    """

    __slots__ = ("index", "arrays", "place", "nbytes")

    def __init__(self, index: dict[str, int], arrays: list[Any], place: Place,
                 nbytes: int) -> None:
        self.index = index
        self.arrays = arrays
        self.place: Place | None = place
        self.nbytes = nbytes

    def release(self) -> None:
        """Stop counting the values' bytes (once)."""
        if self.place is not None:
            MEMORY.release(self.place, self.nbytes)
            self.place = None


class Frame(StepFrame):
    """A StepFrame that counts its bytes from its making on and gives them back if
    dropped unreleased (a scope holding it garbage-collected without being destroyed)."""

    __slots__ = ()

    def __init__(self, index: dict[str, int], arrays: list[Any], place: Place,
                 nbytes: int) -> None:
        self.index = index
        self.arrays = arrays
        self.place = place
        self.nbytes = nbytes
        MEMORY.allocate(place, nbytes)

    def __del__(self) -> None:
        # (released: the usual case, a step scope destroyed; or __init__ never finished, when
        # Ctrl-C stopped it, and there is nothing to release)
        if getattr(self, "place", None) is None:
            return
        try:
            self.release()
        except KeyboardInterrupt:     # lost if raised in a finalizer: deliver it again
            redeliver_interrupt()
        except Exception:
            pass


class FrameScope(Scope):
    """A Scope that may hold a :class:`Frame`: variables not yet made into Variables,
    whose names are not in ``own_vars``. Anything that hands out a Variable or lists
    the variables turns the frame into Variables first (``materialize``)."""

    # the frame, valid while holds_elsewhere is True (no __init__: an RNN makes two step
    # scopes per time step, and the scope's own flag says whether it has a frame)
    __slots__ = ("_frame",)
    _frame: StepFrame

    @property
    def frame(self) -> StepFrame | None:
        """The frame this scope holds, or None."""
        return self._frame if self.holds_elsewhere else None

    def attach_frame(self, frame: StepFrame) -> None:
        """Hold ``frame``'s values as this scope's variables (none of its names may be here)."""
        if self.holds_elsewhere:
            self.materialize()
        self._frame = frame
        self.holds_elsewhere = True

    def framed_kid(self, label: str, frame: StepFrame) -> FrameScope:
        """A new kid scope holding ``frame`` (an RNN's step scope, made in one call)."""
        kid: FrameScope = self.new_scope(label)  # type: ignore[assignment]  # (a kid: our class)
        kid._frame = frame
        kid.holds_elsewhere = True
        return kid

    def materialize(self) -> None:
        """Turn the frame's values into Variables holding LoDTensors, in the frame's order."""
        if not self.holds_elsewhere:
            return
        frame = self._frame
        del self._frame
        self.holds_elsewhere = False
        place: Any = frame.place          # (release() forgets it)
        frame.release()
        for name, pos in frame.index.items():
            array = frame.arrays[pos]
            tensor = self.var(name).get_tensor()
            if array is not None:
                tensor.hold(array, place)

    realize = materialize

    # -- the public Scope, seeing the frame's variables ---------------------------------------
    def local_lookup(self, name: str) -> Variable | None:
        if self.holds_elsewhere and name in self._frame.index:
            self.materialize()
        return self.own_vars.get(name)

    def holds(self, name: str) -> bool:
        return name in self.own_vars or (self.holds_elsewhere and name in self._frame.index)

    def var_count(self) -> int:
        return len(self.own_vars) + (len(self._frame.index) if self.holds_elsewhere else 0)

    def destroy_vars(self, why: str) -> None:
        if self.holds_elsewhere:
            frame = self._frame
            del self._frame
            self.holds_elsewhere = False
            frame.release()
        if self.own_vars:
            super().destroy_vars(why)

    @classmethod
    def destroy_held(cls, scopes: list[Scope], why: str) -> None:
        """Let go of the frames of ``scopes`` (destroyed leaves), their bytes given back in
        one count per place: a run's end destroys every step scope of its RNNs at once."""
        place: Any = None
        total = 0
        for scope in scopes:
            if not isinstance(scope, FrameScope):
                scope.destroy_vars(why)
                continue
            frame = scope._frame
            del scope._frame
            scope.holds_elsewhere = False
            if frame.place is not None:     # (not given back yet)
                if frame.place is not place:
                    if place is not None:
                        MEMORY.release(place, total)
                    place, total = frame.place, 0
                total += frame.nbytes
                frame.place = None
        if place is not None:
            MEMORY.release(place, total)

    # -- the executor's reads: no Variables made ----------------------------------------------
    def local_tensor(self, name: str) -> LoDTensor:
        """The tensor of local variable ``name``, made (with its empty tensor) if absent:
        the executor binds a block's variables with this."""
        if self.holds_elsewhere:
            self.materialize()
        var = self.own_vars.get(name)
        return (var or self.var(name)).get_tensor()

    def find_array(self, name: str) -> Any:
        return find_array(self, name)

    def local_array(self, name: str) -> Any:
        return local_array(self, name)


def find_array(scope: Scope | None, name: str) -> Any:
    """The array of tensor variable ``name`` seen from ``scope`` (None when absent or
    empty), read without turning frames into Variables."""
    while scope is not None:
        var = scope.own_vars.get(name)
        if var is not None:
            holder = var.holder
            return holder.data if isinstance(holder, LoDTensor) else None
        if scope.holds_elsewhere and isinstance(scope, FrameScope):
            frame = scope._frame
            pos = frame.index.get(name)
            if pos is not None:
                return frame.arrays[pos]
        scope = scope.up
    return None


def local_array(scope: Scope, name: str) -> Any:
    """The array of ``scope``'s own tensor variable ``name``, else None (no Variable made)."""
    if scope.holds_elsewhere and isinstance(scope, FrameScope):
        frame = scope._frame
        pos = frame.index.get(name)
        if pos is not None:
            return frame.arrays[pos]
    var = scope.own_vars.get(name)
    if var is None:
        return None
    holder = var.holder
    return holder.data if isinstance(holder, LoDTensor) else None


class FramedBlock:
    """A sub-block without control flow, run on an env that it leaves in its scope as a
    Frame: the block's own names' values, never made Variables unless someone asks.

    Values of outer scopes are read through the scope chain without making Variables
    of frames; those the block writes are written back when it has run, to the
    Variables that ``cells.bound_var`` finds or makes (persistables through the run's one
    commit, so a failed run leaves them as they were).
    """

    def __init__(self, interpreter: Any) -> None:
        plan = interpreter.plan
        self.interpreter = interpreter
        self.plan = plan
        written = {p for step in plan.steps for p in flat_positions(step.outs)}
        self.local_index = {n: p for p, n in enumerate(plan.names) if plan.local[p]}
        self.outer = [p for p in range(len(plan.names)) if not plan.local[p]]
        self.written_outer = sorted(p for p in written if not plan.local[p])
        self.written_any = sorted(written)
        self._linkage: tuple = (None, None, None)      # see _link
        self._written: dict[tuple, Any] = {}            # see written

    def run(self, scope: FrameScope, values: dict | None, reuse: dict | None = None) -> None:
        """Run the block in ``scope``. ``values`` (name -> array) seeds the block's
        variables, as a control-flow op puts a step's inputs in the step scope. ``reuse``,
        when the control-flow op promises that nothing but its blocks changes outer
        variables while it runs them (an RNN), is a dict in which it keeps what its block
        runs looked up."""
        plan, local = self.plan, self.local_index
        executor = self.interpreter.executor
        names = plan.names
        if scope.holds_elsewhere:      # the block ran in this scope before: its Variables now
            scope.materialize()
        made_here = scope.own_vars
        up = scope.up
        if not made_here and up is not None:      # the usual case: a new kid scope
            index = local
            env = self._bind_outer(up, reuse)
        else:
            # variables made in the scope itself (by the caller, or from the frame) are
            # bound, not framed
            index = {n: p for n, p in local.items() if n not in made_here} if made_here else local
            env = [None] * len(names)
            for pos in self.outer:
                env[pos] = find_array(scope, names[pos])
            if index is not local:
                for name, pos in local.items():
                    if name not in index:
                        env[pos] = find_array(scope, name)
        if values:
            for name, array in values.items():
                at = index.get(name)
                if at is not None:
                    env[at] = array
                    continue
                at = plan.position(name)    # not one of the block's own: a Variable in the scope
                if at is not None:
                    env[at] = array
                scope.var(name).get_tensor().hold(array, executor.place)
        made = self.run_env(env, scope)
        place = executor.place
        for pos in self.written_outer if index is local else self.written_any:
            name = names[pos]
            if name not in index and env[pos] is not None:
                tensor = executor.bound_var(plan, pos, scope).get_tensor()
                made -= env[pos].nbytes             # counted by the tensor, not the frame
                if tensor.data is not env[pos]:
                    tensor.hold(env[pos], place)
                if reuse:                           # what other runs looked up may be stale
                    reuse.clear()
        scope.attach_frame(Frame(index, env, place, made))

    def run_env(self, env: list, scope: Scope | None = None) -> int:
        """Run the block's ops on ``env``; the bytes they made (nothing is released: the
        peak is all made). ``scope`` is the scope the block runs in, if made yet (a framed
        block has no op that reads it)."""
        compiled = self.interpreter.compiled
        # (the compiled form once there is one: Interpreter.run, minus a call per run)
        if compiled is not None and self.plan.verified:
            return compiled(env)
        return self.interpreter.run(env, scope)

    def env_runner(self) -> Callable[[list], int]:
        """``run_env`` without a scope, found once for many runs (an RNN's pass): the
        block's compiled form once its first run has passed the checks, else ``run_env``."""
        compiled = self.interpreter.compiled
        return compiled if compiled is not None and self.plan.verified else self.run_env

    def outer_layout(self, index: dict[str, int]) -> tuple:
        """(index, links, unlinked) for a parent frame of layout ``index``: ``links`` pairs
        each outer name's position with its position in such a frame, ``unlinked`` lists
        the outer positions found above it."""
        linked = self._linkage
        return linked if linked[0] is index else self._link(index)

    def written(self, key: tuple, work_out: Callable[[], Any]) -> Any:
        """What ``work_out()`` gives (a step runner's slot positions, env maker or step
        loop, written out for this block), worked out once per ``key`` and kept while the
        block lives: its runs share it."""
        found = self._written.get(key)
        if found is None:
            found = self._written[key] = work_out()
        return found

    def _bind_outer(self, parent: Scope, reuse: dict | None) -> list:
        """A new env with the outer names' values, for a scope (a kid of ``parent``)
        holding nothing of the block's yet. Within one run of a control-flow op (``reuse``),
        the values found above the scope's parent are found once (unless the block writes
        outer variables) and copied from a template."""
        frame = parent._frame if parent.holds_elsewhere and isinstance(parent, FrameScope) \
            else None
        anchor, positions = parent, self.outer
        if frame is not None:
            # a grad block reads what the forward step left in the parent's frame (the
            # same layout every step); the other outer names lie above the parent
            linked, links, positions = self._linkage
            if linked is not frame.index:
                linked, links, positions = self._link(frame.index)
            if not parent.own_vars and parent.up is not None:
                anchor = parent.up
        hit = reuse.get(self) if reuse is not None else None
        if hit is not None and hit[0] is anchor and hit[1] is positions:
            env = hit[2].copy()
        else:
            names = self.plan.names
            template = [None] * len(names)
            for pos in positions:
                template[pos] = find_array(anchor, names[pos])
            if reuse is not None and not self.written_outer:
                reuse[self] = (anchor, positions, template)
            env = template.copy()
        if frame is not None:
            arrays = frame.arrays
            for pos, at in links:
                env[pos] = arrays[at]
        return env

    def _link(self, index: dict[str, int]) -> tuple:
        """Remember where the outer names lie in a parent frame of layout ``index``: one
        tuple, replaced whole, so a thread sharing this block never reads half of it."""
        names = self.plan.names
        links = [(pos, index[names[pos]]) for pos in self.outer if names[pos] in index]
        unlinked = [pos for pos in self.outer if names[pos] not in index]
        self._linkage = (index, links, unlinked)
        return self._linkage
