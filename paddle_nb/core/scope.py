"""Scope: a map from names to Variables, with a parent (seeds 000 and 001).

A scope is to a program what a stack frame is to a C++ function (seed 003):
``var(name)`` creates or gets a local variable, ``find_var(name)`` looks in
this scope and then in each ancestor, so a kid's variable shadows its
parent's. Only scopes create variables, and destroying a scope destroys its
variables and its kids; references kept past that raise ScopeDestroyedError.
A kid holds its parent, so the parent lives as long as any kid is used.

>>> root = Scope()
>>> w = root.var("w")
>>> with root.new_scope() as kid:
...     kid.find_var("w") is w, kid.find_local_var("w")
(True, None)
>>> root.kids
[]
"""

import contextlib
import contextvars
import itertools

from paddle_nb.core.events import EVENTS
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.errors import ScopeDestroyedError

__all__ = ["Scope", "Frame", "StepScopes", "global_scope", "scope_guard"]

_IDS = itertools.count()


class Scope:
    """A node of the scope hierarchy.

    Invariant: every Variable in ``own_vars`` belongs to this scope alone, and
    every scope in ``_kids`` has this scope as its parent. A scope may also
    hold a :class:`Frame`: variables not yet made into Variables, whose names
    are not in ``own_vars``; anything that hands out a Variable or lists the
    variables turns the frame into Variables first (``materialize``).

    Three attributes are the executor's protocol, read on every sub-block run
    (an RNN reads them twice per time step), so they are plain attributes
    that only this class changes (read them, never write them):

    - ``own_vars``: name -> Variable, the Variables made in this scope; a
      frame's values are not among them (``local_var_names`` lists both);
    - ``frame``: the :class:`Frame` of a block run's values not yet made
      Variables, or None (``attach_frame`` and ``materialize`` change it);
    - ``up``: the parent scope (None at the root), read without the liveness
      check of ``parent``, for walks up the hierarchy from a live scope.
    """

    __slots__ = ("own_vars", "up", "_kids", "_dead", "frame", "id", "label", "__weakref__")

    def __init__(self, _parent=None, label=None):
        self.own_vars = {}
        self.up = _parent
        self._kids = []
        self._dead = None
        self.frame = None
        self.id = next(_IDS)
        self.label = label        # what made it ("run", "step 3", ...), for display
        if EVENTS.active:
            EVENTS.emit("scope_created", self)

    # -- variables ----------------------------------------------------------------------------
    def var(self, name):
        """The local variable ``name``, created empty if absent (create-or-get)."""
        self._check_alive()
        if self.frame is not None:
            self.materialize()
        var = self.own_vars.get(name)
        if var is None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"scope.var: expected a non-empty str name, got {name!r}")
            var = self.own_vars[name] = Variable.for_scope(name, self)
            if EVENTS.active:
                EVENTS.emit("var_created", self, name=name)
        return var

    def local_tensor(self, name):
        """The tensor of local variable ``name``, made (with its empty tensor) if absent.

        The executor binds a block's variables with this: one step per name
        instead of var() -> get_tensor() -> get_mutable() -> set_value().
        """
        if self.frame is not None:
            self.materialize()
        var = self.own_vars.get(name)
        if var is None and not EVENTS.active:
            tensor = LoDTensor()
            self.own_vars[name] = Variable.for_scope(name, self, holding=tensor)
            return tensor
        return (var or self.var(name)).get_tensor()

    def find_var(self, name):
        """The variable ``name`` in this scope or the nearest ancestor, else None."""
        self._check_alive()
        scope = self
        while scope is not None:
            var = scope.own_vars.get(name)
            if var is not None:
                return var
            frame = scope.frame
            if frame is not None and name in frame.index:
                scope.materialize()
                return scope.own_vars[name]
            scope = scope.up
        return None

    def find_array(self, name):
        """The array of tensor variable ``name`` seen from this scope (None when absent or
        empty), read without turning frames into Variables: the executor binds with this."""
        scope = self
        while scope is not None:
            var = scope.own_vars.get(name)
            if var is not None:
                holder = var.holder
                return holder.data if isinstance(holder, LoDTensor) else None
            frame = scope.frame
            if frame is not None:
                pos = frame.index.get(name)
                if pos is not None:
                    return frame.arrays[pos]
            scope = scope.up
        return None

    def local_array(self, name):
        """The array of this scope's own tensor variable ``name``, else None (no Variable made)."""
        frame = self.frame
        if frame is not None:
            pos = frame.index.get(name)
            if pos is not None:
                return frame.arrays[pos]
        var = self.own_vars.get(name)
        if var is None:
            return None
        holder = var.holder
        return holder.data if isinstance(holder, LoDTensor) else None

    def attach_frame(self, frame):
        """Hold ``frame``'s values as this scope's variables (none of its names may be here)."""
        if self.frame is not None:
            self.materialize()
        self.frame = frame

    def materialize(self):
        """Turn the frame's values into Variables holding LoDTensors, in the frame's order."""
        frame, self.frame = self.frame, None
        place = frame.place
        frame.release()
        for name, pos in frame.index.items():
            array = frame.arrays[pos]
            tensor = self.var(name).get_tensor()
            if array is not None:
                tensor.hold(array, place)

    # -- the executor's protocol: frames, read without making Variables ---------------------
    def find_scope_of(self, name):
        """The scope (this one or an ancestor) that holds ``name``, else None."""
        self._check_alive()
        scope = self
        while scope is not None:
            if name in scope.own_vars or (scope.frame is not None and name in scope.frame.index):
                return scope
            scope = scope.up
        return None

    def find_local_var(self, name):
        """The variable ``name`` of this scope only, else None."""
        self._check_alive()
        if self.frame is not None and name in self.frame.index:
            self.materialize()
        return self.own_vars.get(name)

    def local_var_names(self):
        """The names of this scope's own variables, in creation order."""
        self._check_alive()
        if self.frame is not None:
            self.materialize()
        return list(self.own_vars)

    def erase(self, names):
        """Destroy the local variables named (a name or a list); unknown names are ignored."""
        self._check_alive()
        if self.frame is not None:
            self.materialize()
        if isinstance(names, str):
            names = [names]
        for name in names:
            var = self.own_vars.pop(name, None)
            if var is not None:
                var.destroy(f"erased from scope {self.id}")
                if EVENTS.active:
                    EVENTS.emit("var_erased", self, name=name)

    # -- the hierarchy ------------------------------------------------------------------------
    def new_scope(self, label=None):
        """A new kid of this scope."""
        self._check_alive()
        kid = Scope(self, label)
        self._kids.append(kid)
        return kid

    @property
    def parent(self):
        self._check_alive()
        return self.up

    @property
    def kids(self):
        self._check_alive()
        return list(self._kids)

    def drop_kids(self):
        """Destroy every kid (and its variables and kids)."""
        self._check_alive()
        kids, self._kids = self._kids, []
        for kid in kids:
            kid._destroy_tree("its parent dropped its kids")

    def destroy(self):
        """Destroy this scope, its variables and its kids, and leave the parent's kids."""
        if self._dead is not None:
            return
        parent = self.up
        if parent is not None and parent._dead is None:
            try:
                parent._kids.remove(self)
            except ValueError:
                pass
        self._destroy_tree("its scope was destroyed")

    def _destroy_tree(self, why):
        for kid in self._kids:
            kid._destroy_tree(why)
        self._kids = []
        if self.frame is not None:
            self.frame.release()
            self.frame = None
        if self.own_vars:
            reason = f"{why} (scope {self.id})"
            for var in self.own_vars.values():
                var.destroy(reason)
            self.own_vars = {}
        if EVENTS.active:
            EVENTS.emit("scope_destroyed", self)
        self._dead = why           # the message is only written if someone asks

    def is_alive(self):
        return self._dead is None

    def __enter__(self):
        self._check_alive()
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def depth(self):
        depth, scope = 0, self.up
        while scope is not None:
            depth, scope = depth + 1, scope.up
        return depth

    def _check_alive(self):
        if self._dead is not None:
            raise ScopeDestroyedError(f"scope {self.id} was destroyed ({self._dead})")

    def __repr__(self):
        if self._dead is not None:
            return f"<Scope {self.id} (destroyed)>"
        label = f" {self.label!r}" if self.label else ""
        count = len(self.own_vars) + (len(self.frame.index) if self.frame is not None else 0)
        return (f"<Scope {self.id}{label}: {count} variables, "
                f"{len(self._kids)} kids>")


class Frame:
    """A block run's own variables as a list of arrays, before anyone asks for a Variable.

    The executor runs a sub-block on a list of arrays and leaves that list in
    the block's scope as a frame, instead of making a Variable and a LoDTensor
    for each of the block's variables: an RNN's step scopes cost little to
    fill and to destroy, and the backward pass reads their arrays directly.
    ``index`` maps each name to its position in ``arrays`` (shared by every
    run of the block); None in ``arrays`` is a declared variable without a
    value. ``nbytes`` (the bytes of the arrays the block's ops made; the
    caller's inputs are counted where they came from) are counted under
    ``place`` while the frame lives.
    """

    __slots__ = ("index", "arrays", "place", "nbytes")

    def __init__(self, index, arrays, place, nbytes):
        self.index = index
        self.arrays = arrays
        self.place = place
        self.nbytes = nbytes
        MEMORY.allocate(place, nbytes)

    def release(self):
        """Stop counting the values' bytes (once)."""
        if self.place is not None:
            MEMORY.release(self.place, self.nbytes)
            self.place = None

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass


class StepScopes(list):
    """The scopes one control-flow op made for its sub-block runs, in order.

    A STEP_SCOPES variable holds one: an RNN's step scopes, a loop's
    iteration scopes, a branch's scope. They stay alive until the run that
    made them ends, so that the backward pass can read them (seed 003).
    """


class _ScopeContext:
    """Holds the process's global scope (one, as PaddlePaddle's)."""

    def __init__(self):
        self.root = Scope(label="global")


_CONTEXT = _ScopeContext()
# the scopes that the enclosing scope_guards pushed, innermost last, per thread (a ContextVar
# holding a tuple): a thread inside its own scope_guard never sees another thread's scope
_GUARDED = contextvars.ContextVar("paddle_nb_scope_guards", default=())


def global_scope():
    """The default scope: the one ``Executor.run`` uses when given none."""
    guarded = _GUARDED.get()
    return guarded[-1] if guarded else _CONTEXT.root


@contextlib.contextmanager
def scope_guard(scope):
    """Make ``scope`` the global scope inside a ``with`` block (for the calling thread)."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: expected a Scope, got {scope!r}")
    token = _GUARDED.set(_GUARDED.get() + (scope,))
    try:
        yield scope
    finally:
        _GUARDED.reset(token)
