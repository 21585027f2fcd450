"""Lifecycle events: what a listener sees, and that nobody pays when nobody listens.

The widgets draw a variable's life (created, typed, allocated, freed) from these events.
Emitting sites test ``EVENTS.active`` first, so with no listener no Event is ever built.
"""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core import EVENTS, Event, EventBus

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
