"""Lifecycle events of the run-time core, for whoever wants to watch.

Scopes, variables and tensors report their lives here: a scope created or
destroyed, a variable created or erased, a tensor typed, allocated or freed.
A listener is any callable taking one :class:`Event`. Emitting sites test
``EVENTS.active`` first, so nothing is built when nobody listens.

>>> from paddle_nb.core.scope import Scope
>>> seen = []
>>> with EVENTS.listening(seen.append):
...     s = Scope()
...     _ = s.var("x")
>>> [e.kind for e in seen]
['scope_created', 'var_created']
"""

import contextlib
import typing

__all__ = ["Event", "EventBus", "EVENTS"]

KINDS = ("scope_created", "scope_destroyed", "var_created", "var_erased",
         "var_typed", "tensor_allocated", "tensor_freed")


class Event(typing.NamedTuple):
    """One thing that happened. ``scope`` is the Scope it happened in.

    (A named tuple: immutable, and made in half the time of a frozen dataclass. An observed
    run emits several per op.)"""

    kind: str
    scope: object
    name: str = None          # the variable's name, for variable and tensor events
    place: object = None      # tensor events
    nbytes: int = 0           # tensor events
    shape: tuple = None       # tensor_allocated
    dtype: object = None      # tensor_allocated
    holder: str = None        # var_typed: the held type's name


class EventBus:
    """A list of listeners; ``active`` is True while the list is not empty."""

    def __init__(self):
        self._listeners = []
        self.active = False

    def subscribe(self, listener):
        """Add a listener; returns a function that removes it."""
        self._listeners.append(listener)
        self.active = True
        return lambda: self.unsubscribe(listener)

    def unsubscribe(self, listener):
        if listener in self._listeners:
            self._listeners.remove(listener)
        self.active = bool(self._listeners)

    @contextlib.contextmanager
    def listening(self, listener):
        """Subscribe ``listener`` for the duration of a ``with`` block."""
        self.subscribe(listener)
        try:
            yield listener
        finally:
            self.unsubscribe(listener)

    def emit(self, kind, scope, **fields):
        event = Event(kind, scope, **fields)
        for listener in list(self._listeners):
            listener(event)


EVENTS = EventBus()
