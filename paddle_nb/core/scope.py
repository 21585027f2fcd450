"""Scope: a map from names to Variables, with a parent ("Design of Scope in Paddle").

A scope is to a program what a stack frame is to a C++ function ("Design Doc:
Block and Scope"): ``var(name)`` creates or gets a local variable,
``find_var(name)`` looks in this scope and then in each ancestor, so a kid's
variable shadows its parent's. Only scopes create variables, and destroying a
scope destroys its variables and its kids; references kept past that raise
ScopeDestroyedError. A kid holds its parent, so the parent lives as long as any
kid is used.

>>> root = Scope()
>>> w = root.var("w")
>>> with root.new_scope() as kid:
...     kid.find_var("w") is w, kid.find_local_var("w")
(True, None)
>>> root.kids
[]
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
from collections.abc import Iterable, Iterator

from paddle_nb.core.events import EVENTS
from paddle_nb.core.variable import Variable
from paddle_nb.errors import ScopeDestroyedError

__all__ = ["Scope", "StepScopes", "global_scope", "scope_guard"]

_IDS = itertools.count()


class Scope:
    """A node of the scope hierarchy.

    Invariant: every Variable in ``own_vars`` belongs to this scope alone, and
    every scope in ``_kids`` has this scope as its parent. Two attributes are
    plain, for walks that must be quick (read them, never write them):
    ``own_vars`` (name -> Variable, this scope's own) and ``up`` (the parent,
    None at the root, read without the liveness check of ``parent``).

    A subclass may hold some variables another way (the executor's step scopes
    keep a block run's values as a list until someone asks for a Variable): it
    sets ``holds_elsewhere`` while it holds some, and overrides ``realize``
    (make them Variables: ``var``, ``local_var_names`` and ``erase`` call it
    first), ``local_lookup`` (``find_var`` and ``find_local_var`` find one name
    through it), ``holds``, ``var_count`` and ``destroy_vars`` (and may override
    ``destroy_held``, which gives up what many destroyed leaves hold at once). A kid is
    of its parent's class unless ``new_scope`` is told otherwise.
    """

    __slots__ = ("own_vars", "up", "holds_elsewhere", "_kids", "_dead", "id", "label",
                 "__weakref__")

    def __init__(self, _parent: Scope | None = None, label: str | None = None) -> None:
        self.own_vars: dict[str, Variable] = {}
        self.up = _parent
        self.holds_elsewhere = False   # True while a subclass holds variables not in own_vars
        # the kids, in creation order: an empty tuple until the first (most scopes of a run
        # are RNN step scopes without kids; a list each would only feed the garbage collector)
        self._kids: list[Scope] | tuple[()] = ()
        self._dead: str | None = None
        self.id = next(_IDS)
        self.label = label        # what made it ("run", "step 3", ...), for display
        if EVENTS.active:
            EVENTS.emit("scope_created", self)

    # -- variables ----------------------------------------------------------------------------
    def var(self, name: str) -> Variable:
        """The local variable ``name``, created empty if absent (create-or-get)."""
        self._check_alive()
        if self.holds_elsewhere:
            self.realize()
        var = self.own_vars.get(name)
        if var is None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"scope.var: expected a non-empty str name, got {name!r}")
            var = self.own_vars[name] = Variable.for_scope(name, self)
            if EVENTS.active:
                EVENTS.emit("var_created", self, name=name)
        return var

    def find_var(self, name: str) -> Variable | None:
        """The variable ``name`` in this scope or the nearest ancestor, else None."""
        self._check_alive()
        scope: Scope | None = self
        while scope is not None:
            var = scope.own_vars.get(name)
            if var is None and scope.holds_elsewhere:      # a subclass holding it otherwise
                var = scope.local_lookup(name)
            if var is not None:
                return var
            scope = scope.up
        return None

    def find_scope_of(self, name: str) -> Scope | None:
        """The scope (this one or an ancestor) that holds ``name``, else None."""
        self._check_alive()
        scope: Scope | None = self
        while scope is not None:
            if scope.holds(name):
                return scope
            scope = scope.up
        return None

    def holds(self, name: str) -> bool:
        """True when ``name`` is one of this scope's own variables (none is made)."""
        return name in self.own_vars

    def find_local_var(self, name: str) -> Variable | None:
        """The variable ``name`` of this scope only, else None."""
        self._check_alive()
        return self.local_lookup(name)

    def realize(self) -> None:
        """Make Variables of the variables this scope holds elsewhere (a subclass's)."""

    def local_lookup(self, name: str) -> Variable | None:
        """``find_local_var`` without the liveness check, for a walk up the scopes that
        checked where it began (a live scope's ancestors live): what a subclass overrides."""
        return self.own_vars.get(name)

    def local_var_names(self) -> list[str]:
        """The names of this scope's own variables, in creation order."""
        self._check_alive()
        if self.holds_elsewhere:
            self.realize()
        return list(self.own_vars)

    def var_count(self) -> int:
        """How many variables this scope holds itself."""
        return len(self.own_vars)

    def erase(self, names: str | list[str]) -> None:
        """Destroy the local variables named (a name or a list); unknown names are ignored."""
        self._check_alive()
        if self.holds_elsewhere:
            self.realize()
        if isinstance(names, str):
            names = [names]
        for name in names:
            var = self.own_vars.pop(name, None)
            if var is not None:
                var.destroy(f"erased from scope {self.id}")
                if EVENTS.active:
                    EVENTS.emit("var_erased", self, name=name)

    # -- the hierarchy ------------------------------------------------------------------------
    def new_scope(self, label: str | None = None, kind: type[Scope] | None = None) -> Scope:
        """A new kid of this scope, of this scope's class or of ``kind`` (a Scope class)."""
        if self._dead is not None:       # (an RNN makes two per time step: the check inline)
            self._check_alive()
        kid = (kind or type(self))(self, label)
        if self._kids:
            self._kids.append(kid)      # (not empty: a list)
        else:
            self._kids = [kid]
        return kid

    def new_scopes(self, labels: Iterable[str | None]) -> list[Scope]:
        """New kids of this scope's class, one per label, in order: what as many
        ``new_scope(label)`` calls make, made at once (an RNN's step scopes, hundreds a run)."""
        self._check_alive()
        kind = type(self)
        kids = [kind(self, label) for label in labels]
        self._kids = [*self._kids, *kids] if self._kids else list(kids)
        return kids

    @property
    def parent(self) -> Scope | None:
        self._check_alive()
        return self.up

    @property
    def kids(self) -> list[Scope]:
        self._check_alive()
        return list(self._kids)

    def drop_kids(self) -> None:
        """Destroy every kid (and its variables and kids)."""
        self._check_alive()
        kids, self._kids = self._kids, ()
        for kid in kids:
            kid._destroy_tree("its parent dropped its kids")

    def destroy(self) -> None:
        """Destroy this scope, its variables and its kids, and leave the parent's kids."""
        if self._dead is not None:
            return
        parent = self.up
        if parent is not None and parent._dead is None:
            try:
                parent._kids.remove(self)   # type: ignore[union-attr]  # (a kid's: a list)
            except (ValueError, AttributeError):       # (not among them: none, or others)
                pass
        self._destroy_tree("its scope was destroyed")

    def destroy_vars(self, why: str) -> None:
        """Destroy this scope's own variables (its destruction does this), saying ``why``."""
        if self.own_vars:
            reason = f"{why} (scope {self.id})"
            for var in self.own_vars.values():
                var.destroy(reason)
            self.own_vars = {}

    def _destroy_tree(self, why: str) -> None:
        kids = self._kids
        if kids:                         # (most scopes of a run are step scopes without kids)
            self._kids = ()
            if EVENTS.active:
                for kid in kids:
                    kid._destroy_tree(why)
            else:
                self._destroy_quietly(kids, why)
        if self.own_vars or self.holds_elsewhere:
            self.destroy_vars(why)
        if EVENTS.active:
            EVENTS.emit("scope_destroyed", self)
        self._dead = why           # the message is only written if someone asks

    @staticmethod
    def _destroy_quietly(kids: list[Scope], why: str) -> None:
        """Destroy ``kids`` while nobody listens to scope events. A leaf holding no Variable
        (an RNN's step scope, hundreds a run) is marked destroyed here, and what such leaves
        hold elsewhere is given up by one call of their class's ``destroy_held``; any
        other kid takes the long way."""
        held: dict[type[Scope], list[Scope]] = {}   # by class: each gives up what its own hold
        for kid in kids:
            if kid._kids or kid.own_vars:
                kid._destroy_tree(why)
            else:
                kid._dead = why
                if kid.holds_elsewhere:
                    held.setdefault(type(kid), []).append(kid)
        for kind, scopes in held.items():
            kind.destroy_held(scopes, why)

    @classmethod
    def destroy_held(cls, scopes: list[Scope], why: str) -> None:
        """Give up what ``scopes`` (destroyed leaves holding no Variable) hold elsewhere: a
        subclass holding variables another way may do it for all of them at once."""
        for scope in scopes:
            scope.destroy_vars(why)

    def is_alive(self) -> bool:
        return self._dead is None

    def __enter__(self) -> Scope:
        self._check_alive()
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    def depth(self) -> int:
        depth, scope = 0, self.up
        while scope is not None:
            depth, scope = depth + 1, scope.up
        return depth

    def _check_alive(self) -> None:
        if self._dead is not None:
            raise ScopeDestroyedError(f"scope {self.id} was destroyed ({self._dead})")

    def __repr__(self) -> str:
        if self._dead is not None:
            return f"<Scope {self.id} (destroyed)>"
        label = f" {self.label!r}" if self.label else ""
        return (f"<Scope {self.id}{label}: {self.var_count()} variables, "
                f"{len(self._kids)} kids>")


class StepScopes(list):
    """The scopes one control-flow op made for its sub-block runs, in order.

    A STEP_SCOPES variable holds one: an RNN's step scopes, a loop's
    iteration scopes, a branch's scope. They stay alive until the run that
    made them ends, so that the backward pass can read them ("Design Doc: Block and
    Scope").
    """


class _ScopeContext:
    """Holds the process's global scope (one, as PaddlePaddle's)."""

    def __init__(self) -> None:
        self.root = Scope(label="global")


_CONTEXT = _ScopeContext()
# the scopes that the enclosing scope_guards pushed, innermost last, per thread (a ContextVar
# holding a tuple): a thread inside its own scope_guard never sees another thread's scope
_GUARDED: contextvars.ContextVar[tuple[Scope, ...]] = contextvars.ContextVar(
    "paddle_nb_scope_guards", default=())


def global_scope() -> Scope:
    """The default scope: the one ``Executor.run`` uses when given none."""
    guarded = _GUARDED.get()
    return guarded[-1] if guarded else _CONTEXT.root


@contextlib.contextmanager
def scope_guard(scope: Scope) -> Iterator[Scope]:
    """Make ``scope`` the global scope inside a ``with`` block (for the calling thread)."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: expected a Scope, got {scope!r}")
    token = _GUARDED.set(_GUARDED.get() + (scope,))
    try:
        yield scope
    finally:
        _GUARDED.reset(token)
