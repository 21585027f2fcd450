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
import itertools

from paddle_nb.core.events import EVENTS
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.errors import ScopeDestroyedError

__all__ = ["Scope", "StepScopes", "global_scope", "scope_guard"]

_IDS = itertools.count()


class Scope:
    """A node of the scope hierarchy.

    Invariant: every Variable in ``_vars`` belongs to this scope alone, and
    every scope in ``_kids`` has this scope as its parent.
    """

    __slots__ = ("_vars", "_parent", "_kids", "_dead", "id", "label", "__weakref__")

    def __init__(self, _parent=None, label=None):
        self._vars = {}
        self._parent = _parent
        self._kids = []
        self._dead = None
        self.id = next(_IDS)
        self.label = label        # what made it ("run", "step 3", ...), for display
        if EVENTS.active:
            EVENTS.emit("scope_created", self)

    # -- variables ----------------------------------------------------------------------------
    def var(self, name):
        """The local variable ``name``, created empty if absent (create-or-get)."""
        self._check_alive()
        var = self._vars.get(name)
        if var is None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"scope.var: expected a non-empty str name, got {name!r}")
            var = self._vars[name] = Variable._make(name, self)
            if EVENTS.active:
                EVENTS.emit("var_created", self, name=name)
        return var

    def _local_tensor(self, name):
        """The tensor of local variable ``name``, made (with its empty tensor) if absent.

        The executor binds a block's variables with this: one step per name
        instead of var() -> get_tensor() -> get_mutable() -> set_value().
        """
        var = self._vars.get(name)
        if var is None and not EVENTS.active:
            var = self._vars[name] = Variable._make(name, self)
            tensor = var._holder = LoDTensor()
            tensor._owner = var
            return tensor
        return (var or self.var(name)).get_tensor()

    def find_var(self, name):
        """The variable ``name`` in this scope or the nearest ancestor, else None."""
        self._check_alive()
        scope = self
        while scope is not None:
            var = scope._vars.get(name)
            if var is not None:
                return var
            scope = scope._parent
        return None

    def find_scope_of(self, name):
        """The scope (this one or an ancestor) that holds ``name``, else None."""
        self._check_alive()
        scope = self
        while scope is not None:
            if name in scope._vars:
                return scope
            scope = scope._parent
        return None

    def find_local_var(self, name):
        """The variable ``name`` of this scope only, else None."""
        self._check_alive()
        return self._vars.get(name)

    def local_var_names(self):
        """The names of this scope's own variables, in creation order."""
        self._check_alive()
        return list(self._vars)

    def erase(self, names):
        """Destroy the local variables named (a name or a list); unknown names are ignored."""
        self._check_alive()
        if isinstance(names, str):
            names = [names]
        for name in names:
            var = self._vars.pop(name, None)
            if var is not None:
                var._destroy(f"erased from scope {self.id}")
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
        return self._parent

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
        parent = self._parent
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
        reason = f"{why} (scope {self.id})"
        for var in self._vars.values():
            var._destroy(reason)
        if EVENTS.active:
            EVENTS.emit("scope_destroyed", self)
        self._vars = {}
        self._dead = f"scope {self.id} was destroyed ({why})"

    def is_alive(self):
        return self._dead is None

    def __enter__(self):
        self._check_alive()
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def depth(self):
        depth, scope = 0, self._parent
        while scope is not None:
            depth, scope = depth + 1, scope._parent
        return depth

    def _check_alive(self):
        if self._dead is not None:
            raise ScopeDestroyedError(self._dead)

    def __repr__(self):
        if self._dead is not None:
            return f"<Scope {self.id} (destroyed)>"
        label = f" {self.label!r}" if self.label else ""
        return (f"<Scope {self.id}{label}: {len(self._vars)} variables, "
                f"{len(self._kids)} kids>")


class StepScopes(list):
    """The scopes one control-flow op made for its sub-block runs, in order.

    A STEP_SCOPES variable holds one: an RNN's step scopes, a loop's
    iteration scopes, a branch's scope. They stay alive until the run that
    made them ends, so that the backward pass can read them (seed 003).
    """


class _ScopeContext:
    """Holds the default scope; ``scope_guard`` swaps it for a ``with`` block."""

    def __init__(self):
        self.stack = [Scope(label="global")]


_CONTEXT = _ScopeContext()


def global_scope():
    """The default scope: the one ``Executor.run`` uses when given none."""
    return _CONTEXT.stack[-1]


@contextlib.contextmanager
def scope_guard(scope):
    """Make ``scope`` the global scope inside a ``with`` block."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: expected a Scope, got {scope!r}")
    _CONTEXT.stack.append(scope)
    try:
        yield scope
    finally:
        _CONTEXT.stack.pop()
