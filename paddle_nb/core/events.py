"""Lifecycle events of the run-time core, for whoever watches *this* thread's work.

Scopes, variables and tensors report their lives here: a scope created or
destroyed, a variable created or erased, a tensor typed, allocated or freed.
A listener is any callable taking one :class:`Event`. Emitting sites test
``EVENTS.active`` first, so nothing is built when nobody listens.

Listeners belong to an execution context, not to the process: subscribing
(``EVENTS.subscribe``, ``EVENTS.listening``) affects the calling thread (or
asyncio task) alone. A listener hears what its own thread does; another
thread's scopes never reach it, and in that other thread ``EVENTS.active``
stays False, so its runs take their unobserved path. An executor's recorder
listens this way during its own run, in its run's thread.

A listener that raises does not stop the work it watches: the error is
reported as a :class:`~paddle_nb.errors.ListenerWarning` and the next
listener is called.

>>> from paddle_nb.core.scope import Scope
>>> seen = []
>>> with EVENTS.listening(seen.append):
...     s = Scope()
...     _ = s.var("x")
>>> [e.kind for e in seen]
['scope_created', 'var_created']
"""

import contextlib
import contextvars
import typing
import warnings

from paddle_nb.errors import ListenerWarning

__all__ = ["Event", "EventBus", "EVENTS", "notify"]

KINDS = ("scope_created", "scope_destroyed", "var_created", "var_erased",
         "var_typed", "tensor_allocated", "tensor_freed")

Listener = typing.Callable[[typing.Any], object]


class Event(typing.NamedTuple):
    """One thing that happened. ``scope`` is the Scope it happened in.

    (A named tuple: immutable, and made in half the time of a frozen dataclass. An observed
    run emits several per op.)"""

    kind: str
    scope: object
    name: typing.Optional[str] = None       # the variable's name, for variable and tensor events
    place: object = None                    # tensor events
    nbytes: int = 0                         # tensor events
    shape: typing.Optional[tuple] = None    # tensor_allocated
    dtype: object = None                    # tensor_allocated
    holder: typing.Optional[str] = None     # var_typed: the held type's name


class EventBus:
    """Listeners per execution context; ``active`` is True where the calling context has one.

    The listeners live in a :class:`contextvars.ContextVar` holding a tuple, replaced (never
    changed in place) on each subscribe and unsubscribe. A new thread starts with none, so a
    subscription made in one thread is invisible to every other; ``emit`` calls the
    listeners of the context it runs in.
    """

    def __init__(self, name: str = "paddle_nb_events") -> None:
        self._listeners: contextvars.ContextVar[tuple] = contextvars.ContextVar(name, default=())

    @property
    def active(self) -> bool:
        """Whether anyone listens in the calling context (read by every emitting site)."""
        return self._listeners.get() != ()

    def listeners(self) -> tuple:
        """The calling context's listeners, in the order they subscribed."""
        return self._listeners.get()

    def subscribe(self, listener: Listener) -> typing.Callable[[], None]:
        """Add ``listener`` for the calling thread (or task); returns a function that removes
        it (call that in the same thread: another thread's listeners are not its to change)."""
        self._listeners.set(self._listeners.get() + (listener,))
        return lambda: self.unsubscribe(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Remove ``listener`` from the calling context (its last subscription; unknown
        listeners are ignored)."""
        current = self._listeners.get()
        for at in range(len(current) - 1, -1, -1):
            if current[at] is listener or current[at] == listener:
                self._listeners.set(current[:at] + current[at + 1:])
                return

    @contextlib.contextmanager
    def listening(self, listener: Listener):
        """Subscribe ``listener`` for the duration of a ``with`` block (this thread only)."""
        self.subscribe(listener)
        try:
            yield listener
        finally:
            self.unsubscribe(listener)

    def emit(self, kind: str, scope: object, **fields) -> None:
        """Tell the calling context's listeners; one that raises is reported, not raised."""
        notify(self._listeners.get(), Event(kind, scope, **fields))


def notify(listeners: typing.Iterable[Listener], item: object) -> None:
    """Call each listener with ``item``. A listener's failure never fails the caller: an
    ``Exception`` it raises becomes a :class:`ListenerWarning` naming it, and the others are
    still called (a KeyboardInterrupt or SystemExit still goes through)."""
    for listener in tuple(listeners):
        try:
            listener(item)
        except Exception as err:          # a watcher's bug must not change what it watches
            warnings.warn(ListenerWarning(
                f"listener {listener!r} raised {type(err).__name__}: {err} (while told of "
                f"{_what(item)}); the work it watches went on unchanged"), stacklevel=2)


def _what(item):
    kind = getattr(item, "kind", None)
    return f"a {kind} event" if isinstance(kind, str) else f"a {type(item).__name__}"


EVENTS = EventBus()
