"""Lifecycle events of the run-time core, for whoever watches *this* thread's work.

Scopes, variables and tensors report their lives here: a scope created or
destroyed, a variable created or erased, a tensor typed, allocated or freed.
A listener is any callable taking one :class:`Event`. Emitting sites test
``EVENTS.active`` first, so nothing is built when nobody listens.

Listeners belong to an execution context, not to the process: subscribing
(``EVENTS.subscribe``, ``EVENTS.listening``) affects the calling thread (or
asyncio task) alone. A listener hears what its own thread does; another
thread's scopes never reach it, and in that other thread ``EVENTS.active``
stays False, so nothing there is emitted. Listening never changes how an
executor runs (which value store, which form); an executor's recorder listens
this way during a run on cells, in the run's thread.

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

__all__ = ["Event", "EventBus", "HeardBus", "Subscription", "EVENTS", "notify", "call_listener"]

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

    The listeners live in a :class:`contextvars.ContextVar` holding a tuple of
    subscriptions, replaced (never changed in place) on each subscribe and unsubscribe. A new
    thread starts with none, so a subscription made in one thread is invisible to every
    other; ``emit`` calls the listeners of the context it runs in.

    ``active`` is read before every event and so on every op of a run: while no context
    anywhere listens it is a plain attribute (False, as cheap as a read gets); from the
    first subscription to the last unsubscription the bus is a :class:`HeardBus`, whose
    ``active`` reads the calling context's listeners. (A context copied from a listening one,
    e.g. an asyncio task started inside a ``listening`` block, hears its listeners while the
    subscription lasts, and not after.)
    """

    # `active` a slot: read as fast as an attribute can be (HeardBus must add no slot, so
    # that the class can switch); a __dict__ besides, so that tests may patch `emit`
    __slots__ = ("active", "_subs", "_live", "__dict__")

    def __init__(self, name: str = "paddle_nb_events") -> None:
        self.active = False             # (HeardBus's property hides it while one listens)
        self._subs: contextvars.ContextVar[tuple] = contextvars.ContextVar(name, default=())
        # the live subscriptions, all contexts together: a set changed by single add and
        # discard calls (atomic), with no lock that an interrupt could leave held
        self._live: set[Subscription] = set()

    def listeners(self) -> tuple:
        """The calling context's listeners, in the order they subscribed."""
        return tuple(sub.listener for sub in self._subs.get() if sub.live)

    def subscribe(self, listener: Listener) -> typing.Callable[[], None]:
        """Add ``listener`` for the calling thread (or task); returns a function that ends
        this subscription, called from any thread (a widget closed from the notebook's thread
        stops hearing a worker thread it subscribed in)."""
        sub = Subscription(listener)
        self._live.add(sub)             # counted before it can be heard
        self.__class__ = HeardBus
        self._subs.set(self._subs.get() + (sub,))
        return lambda: self._drop(sub)

    def unsubscribe(self, listener: Listener) -> None:
        """Remove ``listener`` from the calling context (its latest subscription there;
        unknown listeners are ignored): another thread's subscriptions are not found here."""
        for sub in reversed(self._subs.get()):
            if sub.listener is listener or sub.listener == listener:
                self._drop(sub)
                return

    def _drop(self, sub: "Subscription") -> None:
        current = self._subs.get()
        if sub in current:
            self._subs.set(tuple(s for s in current if s is not sub))
        sub.live = False                # uncounted once it can no longer be heard
        self._live.discard(sub)
        if not self._live:
            self.__class__ = EventBus
            if self._live:              # another thread subscribed meanwhile: it may have
                self.__class__ = HeardBus   # switched before this switched back

    @contextlib.contextmanager
    def listening(self, listener: Listener) -> typing.Iterator[Listener]:
        """Subscribe ``listener`` for the duration of a ``with`` block (this thread only)."""
        stop = self.subscribe(listener)
        try:
            yield listener
        finally:
            stop()

    def emit(self, kind: str, scope: object, **fields: typing.Any) -> None:
        """Tell the calling context's listeners; one that raises is reported, not raised."""
        event = Event(kind, scope, **fields)
        subs = self._subs.get()
        for sub in subs:
            if sub.live:
                call_listener(sub.listener, event)
            else:       # ended from another thread or context: forget it here too
                self._subs.set(tuple(s for s in self._subs.get() if s.live))


class HeardBus(EventBus):
    """An EventBus while some context listens: ``active`` asks the calling context."""

    __slots__ = ()

    @property       # (hides EventBus's plain attribute while some context listens)
    def active(self) -> bool:  # type: ignore[override]
        """Whether anyone listens in the calling context (read by every emitting site)."""
        return self._subs.get() != ()


class Subscription:
    """One ``subscribe``: its listener, and whether it still counts (``live``)."""

    __slots__ = ("listener", "live")

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.live = True


def notify(listeners: typing.Iterable[Listener], item: object) -> None:
    """Call each listener with ``item`` through :func:`call_listener`: one that fails is
    reported, and the others are still called."""
    for listener in tuple(listeners):
        call_listener(listener, item)


def call_listener(listener: Listener, item: object) -> None:
    """``listener(item)``; a listener's failure never fails the caller: an ``Exception`` it
    raises becomes a :class:`ListenerWarning` naming it (a KeyboardInterrupt or SystemExit
    still goes through)."""
    try:
        listener(item)
    except Exception as err:          # a watcher's bug must not change what it watches
        warnings.warn(ListenerWarning(
            f"listener {listener!r} raised {type(err).__name__}: {err} (while told of "
            f"{_what(item)}); the work it watches went on unchanged"), stacklevel=3)


def _what(item: object) -> str:
    kind = getattr(item, "kind", None)
    return f"a {kind} event" if isinstance(kind, str) else f"a {type(item).__name__}"


EVENTS = EventBus()
