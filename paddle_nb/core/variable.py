"""Variable: a named holder of one value of any type ("Design of Scope in
Paddle", "What is a scope", "Design Doc: Variable").

A Variable is made only by a Scope (``scope.var(name)``); calling the class
raises TypeError. It starts empty ("created"); ``get_mutable(T)`` puts an
empty T in it on first use ("typed", the lazy allocation of "Design Doc: Variable"), and
``get(T)`` returns the held T or names both types when it holds another.
When its scope is destroyed, every later use raises ScopeDestroyedError
(the weak references of "What is a scope", which turn null), never a stale value.

>>> from paddle_nb.core.scope import Scope
>>> from paddle_nb.core.tensor import LoDTensor
>>> v = Scope().var("x")
>>> v.is_initialized()
False
>>> t = v.get_mutable(LoDTensor)
>>> v.is_type(LoDTensor), v.get(LoDTensor) is t
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from paddle_nb.core.events import EVENTS
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import ScopeDestroyedError, VariableTypeError

if TYPE_CHECKING:
    from paddle_nb.core.scope import Scope

__all__ = ["Variable"]

T = TypeVar("T")


class Variable:
    """A run-time variable: a name, the scope that owns it, and one held value.

    ``holder`` (the held LoDTensor, StepScopes, ... or None) is a plain attribute, the
    executor's read without checks; it is written only through this class's methods.
    """

    __slots__ = ("_name", "_scope", "holder", "_dead", "__weakref__")
    _name: str
    _scope: Scope
    holder: Any            # a LoDTensor, LoDTensorArray, StepScopes, ... or None
    _dead: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("paddle_nb.core.Variable cannot be constructed directly: only a Scope "
                        "creates variables (use scope.var(name))")

    @classmethod
    def for_scope(cls, name: str, scope: Scope,
                  holding: LoDTensor | None = None) -> Variable:
        """A new variable of ``scope``, empty or ``holding`` a new LoDTensor: the Scope's
        factory (users call ``scope.var(name)``, which registers the variable)."""
        var = object.__new__(cls)
        var._name = name
        var._scope = scope
        var.holder = holding
        var._dead = None
        if holding is not None:
            holding.owner = var
        return var

    @property
    def name(self) -> str:
        return self._name

    @property
    def scope(self) -> Scope:
        self._check_alive()
        return self._scope

    @property
    def made_in(self) -> Scope:
        """The scope that made this variable, without a liveness check (``scope`` checks):
        what the events about its tensor name, even once the variable is gone."""
        return self._scope

    @property
    def destroyed_why(self) -> str | None:
        """None while the variable lives; after, why it was destroyed (for display)."""
        return self._dead

    def is_initialized(self) -> bool:
        """True once the variable holds a value (of any type)."""
        self._check_alive()
        return self.holder is not None

    def is_type(self, cls: type) -> bool:
        self._check_alive()
        return isinstance(self.holder, cls)

    def holder_type(self) -> type | None:
        """The type of the held value, or None when empty."""
        self._check_alive()
        return None if self.holder is None else type(self.holder)

    def get(self, cls: type[T]) -> T:
        """The held value, which must be a ``cls``."""
        self._check_alive()
        holder = self.holder
        if isinstance(holder, cls):
            return holder
        what = "nothing" if holder is None else f"a {type(holder).__name__}"
        raise VariableTypeError(f"variable '{self._name}': expected a {cls.__name__}, but it "
                                f"holds {what}")

    def get_mutable(self, cls: type[T]) -> T:
        """The held ``cls``, made empty on first use (GetMutable<T> in "Design Doc: Variable")."""
        self._check_alive()
        holder = self.holder
        if holder is None:
            holder = self.set_value(cls())
        elif not isinstance(holder, cls):
            raise VariableTypeError(f"variable '{self._name}': expected a {cls.__name__}, but it "
                                    f"holds a {type(holder).__name__}")
        return holder

    def get_tensor(self) -> LoDTensor:
        """``get_mutable(LoDTensor)``: the variable's tensor, made empty on first use."""
        holder = self.holder
        if type(holder) is LoDTensor and self._dead is None:
            return holder
        return self.get_mutable(LoDTensor)

    def set_value(self, value: T) -> T:
        """Hold ``value`` (replacing and freeing what was held). Returns it."""
        self._check_alive()
        self._release_holder()
        if isinstance(value, LoDTensor):
            value.owner = self
        self.holder = value
        if EVENTS.active:
            EVENTS.emit("var_typed", self._scope, name=self._name, holder=type(value).__name__)
        return value

    def _release_holder(self) -> None:
        holder = self.holder
        if isinstance(holder, LoDTensor) and holder.owner is self:
            holder.free()
        self.holder = None

    def destroy(self, why: str) -> None:
        """Destroy the held value; every later use raises ScopeDestroyedError (its scope
        calls this when it erases the variable or is destroyed)."""
        holder = self.holder
        if isinstance(holder, LoDTensor) and holder.owner is self:
            holder.destroy(why)
        self.holder = None
        self._dead = why           # the message is only written if someone asks

    def _check_alive(self) -> None:
        if self._dead is not None:
            raise ScopeDestroyedError(f"variable '{self._name}' was destroyed: {self._dead}")

    def __repr__(self) -> str:
        if self._dead is not None:
            return f"<Variable '{self._name}' (destroyed)>"
        held = "empty" if self.holder is None else repr(self.holder)
        return f"<Variable '{self._name}': {held}>"
