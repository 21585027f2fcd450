"""Lifecycle events: what a listener sees, that it hears its own thread only, that its
failure fails nothing, and that nobody pays when nobody listens.

The widgets draw a variable's life (created, typed, allocated, freed) from these events.
Emitting sites test ``EVENTS.active`` first, so with no listener no Event is ever built.
Listeners belong to the thread (execution context) that subscribed them.
"""
import threading
import warnings

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core import EVENTS, Event, EventBus
from paddle_nb.core.events import notify
from paddle_nb.errors import ListenerWarning

CPU = pd.CPUPlace()


@pytest.fixture
def seen():
    events = []
    with EVENTS.listening(events.append):
        yield events


def kinds_and_names(events):
    return [(e.kind, e.name) for e in events]


def test_a_variables_whole_life_in_order(seen):
    root = pd.Scope()
    kid = root.new_scope()
    tensor = kid.var("h").get_tensor()
    tensor.mutable_data(CPU, "float32", (2, 3))
    root.destroy()
    assert kinds_and_names(seen) == [
        ("scope_created", None),
        ("scope_created", None),
        ("var_created", "h"),
        ("var_typed", "h"),
        ("tensor_allocated", "h"),
        ("tensor_freed", "h"),
        ("scope_destroyed", None),      # the kid first,
        ("scope_destroyed", None),      # then the root
    ]
    assert [e.scope for e in seen] == [root, kid, kid, kid, kid, kid, kid, root]


def test_event_fields_describe_what_happened(seen):
    scope = pd.Scope()
    var = scope.var("w")
    var.get_tensor().mutable_data(CPU, "float64", (4,))
    scope.erase("w")
    by_kind = {e.kind: e for e in seen}
    assert by_kind["var_typed"].holder == "LoDTensor"
    allocated = by_kind["tensor_allocated"]
    assert (allocated.place, allocated.nbytes, allocated.shape, allocated.dtype) == \
        (CPU, 32, (4,), np.dtype("float64"))
    freed = by_kind["tensor_freed"]
    assert (freed.name, freed.place, freed.nbytes) == ("w", CPU, 32)
    assert kinds_and_names(seen)[-2:] == [("tensor_freed", "w"), ("var_erased", "w")]
    assert all(isinstance(e, Event) and e.scope is scope for e in seen[1:])


def test_reusing_memory_emits_nothing_and_reallocating_frees_first(seen):
    tensor = pd.Scope().var("t").get_tensor()
    tensor.mutable_data(CPU, "float32", (3,))
    tensor.mutable_data(CPU, "float32", (3,))       # reused: no event
    tensor.mutable_data(CPU, "float32", (5,))       # reallocated: freed, then allocated
    tensor_events = [(e.kind, e.nbytes) for e in seen if e.kind.startswith("tensor")]
    assert tensor_events == [("tensor_allocated", 12), ("tensor_freed", 12),
                             ("tensor_allocated", 20)]


def test_create_or_get_emits_var_created_once(seen):
    scope = pd.Scope()
    scope.var("x")
    scope.var("x")
    scope.var("x").get_tensor()
    scope.var("x").get_tensor()
    assert kinds_and_names(seen)[1:] == [("var_created", "x"), ("var_typed", "x")]


def test_drop_kids_and_with_blocks_report_destruction(seen):
    root = pd.Scope()
    with root.new_scope() as step:
        step.var("a")
    root.new_scope()
    root.drop_kids()
    destroyed = [e.scope for e in seen if e.kind == "scope_destroyed"]
    assert len(destroyed) == 2 and destroyed[0] is step


def test_a_standalone_tensor_reports_no_variable(seen):
    tensor = pd.LoDTensor()
    tensor.mutable_data(CPU, "int8", (2,))
    assert [(e.kind, e.scope, e.name) for e in seen] == [("tensor_allocated", None, None)]


def test_listening_unsubscribes_on_exit_even_after_an_error():
    events = []
    assert EVENTS.active is False
    with pytest.raises(RuntimeError):
        with EVENTS.listening(events.append):
            assert EVENTS.active is True
            raise RuntimeError("inside")
    assert EVENTS.active is False
    pd.Scope()
    assert events == []


def test_subscribe_returns_an_unsubscriber():
    events = []
    stop = EVENTS.subscribe(events.append)
    try:
        pd.Scope()
    finally:
        stop()
    pd.Scope()
    assert [e.kind for e in events] == ["scope_created"]
    assert EVENTS.active is False


def test_two_listeners_both_hear_and_active_stays_until_the_last_leaves():
    first, second = [], []
    with EVENTS.listening(first.append):
        with EVENTS.listening(second.append):
            pd.Scope()
        assert EVENTS.active is True
        pd.Scope()
    assert EVENTS.active is False
    assert len(first) == 2 and len(second) == 1


def test_a_bus_of_its_own_starts_inactive():
    bus = EventBus()
    assert bus.active is False
    bus.unsubscribe(print)          # removing a stranger is harmless
    assert bus.active is False


def test_nothing_is_emitted_when_nobody_listens(monkeypatch):
    assert EVENTS.active is False

    def must_not_be_called(*args, **kwargs):
        raise AssertionError("an event was emitted with no listener subscribed")

    monkeypatch.setattr(EVENTS, "emit", must_not_be_called)
    monkeypatch.setattr(EventBus, "emit", must_not_be_called)
    monkeypatch.setattr("paddle_nb.core.events.Event", must_not_be_called)

    # every emitting site: scopes, variables, tensors, erase, destruction
    root = pd.Scope()
    kid = root.new_scope()
    tensor = kid.var("h").get_tensor()
    tensor.mutable_data(CPU, "float32", (2,))
    tensor.mutable_data(CPU, "float32", (3,))
    tensor.set(np.zeros(4, "float32"))
    kid.var("x").get_tensor().set(np.ones(2))
    kid.erase("x")
    kid.var("y").set_value(pd.LoDTensor())
    with root.new_scope() as step:
        step.var("s").get_tensor().mutable_data(CPU, "int64", (1,))
    root.new_scope()
    root.drop_kids()
    root.destroy()


# -- listeners belong to their thread ------------------------------------------------------------
def _in_other_thread(target):
    out = []
    thread = threading.Thread(target=lambda: out.append(target()))
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    return out[0]


def test_a_listener_hears_its_own_thread_only_and_others_stay_inactive():
    heard = []
    with EVENTS.listening(heard.append):
        theirs = _in_other_thread(lambda: (EVENTS.active, pd.Scope()))
        mine = pd.Scope()
        assert EVENTS.active is True
    assert theirs[0] is False
    assert [e.scope for e in heard] == [mine]


def test_another_threads_listener_is_its_own():
    mine, theirs = [], []

    def other():
        with EVENTS.listening(theirs.append):
            return pd.Scope(), EVENTS.listeners()
    with EVENTS.listening(mine.append):
        made, listeners = _in_other_thread(other)
        assert EVENTS.listeners() == (mine.append,)
    assert listeners == (theirs.append,)
    assert [e.scope for e in theirs] == [made] and mine == []
    assert EVENTS.active is False


def test_unsubscribing_in_another_thread_leaves_this_threads_listener():
    heard = []
    stop = EVENTS.subscribe(heard.append)
    try:
        _in_other_thread(lambda: EVENTS.unsubscribe(heard.append))
        pd.Scope()
    finally:
        stop()
    assert len(heard) == 1 and EVENTS.active is False


def test_one_listener_subscribed_twice_is_removed_once_per_unsubscriber():
    heard = []
    first = EVENTS.subscribe(heard.append)
    second = EVENTS.subscribe(heard.append)
    pd.Scope()
    first()
    first()                            # a second call removes nothing more
    pd.Scope()
    second()
    pd.Scope()
    assert len(heard) == 3 and EVENTS.active is False


def test_a_bus_is_a_plain_flag_again_once_the_last_listener_leaves():
    bus = EventBus("a_test_bus")
    assert type(bus) is EventBus and bus.active is False
    stop = bus.subscribe(print)
    assert bus.active is True and _in_other_thread(lambda: bus.active) is False
    stop()
    assert type(bus) is EventBus and bus.active is False


# -- a listener's failure fails nothing ------------------------------------------------------------
def test_a_listener_that_raises_is_reported_and_the_others_still_hear():
    after = []

    def broken(event):
        raise ValueError("a bug in the listener")
    with EVENTS.listening(broken), EVENTS.listening(after.append):
        with pytest.warns(ListenerWarning, match="raised ValueError: a bug in the listener"):
            scope = pd.Scope()
    assert [e.scope for e in after] == [scope] and scope.is_alive()


def test_a_run_goes_on_unchanged_when_an_event_listener_raises():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2])
        y = pd.layers.relu(x)
    feed = {"x": np.array([[-1.0, 2.0]], "float32")}
    calls = []

    def broken(event):
        calls.append(event.kind)
        raise RuntimeError("listener bug")
    with EVENTS.listening(broken), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got, = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[y], scope=pd.Scope())
    np.testing.assert_array_equal(got, [[0.0, 2.0]])
    assert calls and {w.category for w in caught} == {ListenerWarning}


def test_an_interrupt_in_a_listener_is_not_swallowed():
    def interrupted(event):
        raise KeyboardInterrupt
    with EVENTS.listening(interrupted), pytest.raises(KeyboardInterrupt):
        pd.Scope()


def test_notify_calls_every_listener_and_reports_each_failure():
    got = []

    def broken(item):
        raise KeyError(item)
    with pytest.warns(ListenerWarning) as caught:
        notify([broken, got.append, broken], "a record")
    assert got == ["a record"] and len(caught) == 2
    assert "a str" in str(caught[0].message)
