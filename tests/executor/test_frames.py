"""Frame: a block run's own variables as a list of arrays, held by a FrameScope (the executor's
step scopes) until asked for.

A scope holding a Frame answers every public question as if the frame's names
were Variables: asking for one (``var``, ``find_var``, ``find_local_var``,
``local_var_names``, ``erase``) turns the whole frame into Variables first, in
the frame's index order, with the same arrays; lookups that hand out no
Variable (``find_array``, ``local_array``, ``find_scope_of``, ``repr``, a
``find_var`` of another name) leave the frame alone. The frame's bytes are
counted in MEMORY while it lives: materializing moves them to the tensors,
destroying the scope gives them back, and ``Frame.release`` counts once.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core import variable as variable_module
from paddle_nb.core.memory import MEMORY
from paddle_nb.executor.frames import Frame, FrameScope

CPU = pd.CPUPlace()
Destroyed = pd.errors.ScopeDestroyedError


def _frame(index, arrays, nbytes=None):
    """A Frame counting ``nbytes`` (by default every array's bytes, as if the block made them)."""
    if nbytes is None:
        nbytes = sum(arrays[k].nbytes for k in index.values() if arrays[k] is not None)
    return Frame(index, arrays, CPU, nbytes)


def _framed(scope=None, **values):
    """``scope`` (a new root by default) holding a frame of ``values`` in keyword order."""
    scope = FrameScope() if scope is None else scope
    names = list(values)
    scope.attach_frame(_frame({n: k for k, n in enumerate(names)}, [values[n] for n in names]))
    return scope


@pytest.fixture
def made(monkeypatch):
    """The names of the Variables made while the test runs."""
    names = []
    original = variable_module.Variable.for_scope.__func__

    def counting(cls, name, scope, holding=None):
        names.append(name)
        return original(cls, name, scope, holding)
    monkeypatch.setattr(variable_module.Variable, "for_scope", classmethod(counting))
    return names


# -- materializing --------------------------------------------------------------------------------
def test_find_var_of_a_framed_name_gives_a_variable_holding_the_same_array():
    a, b = np.arange(3.0), np.ones((2, 2))
    scope = _framed(b=b, a=a)
    var = scope.find_var("a")
    assert var is not None and var.name == "a"
    assert var.get_tensor().array() is a
    assert scope.frame is None
    assert scope.local_var_names() == ["b", "a"]         # the frame's order, not the asked one
    assert scope.find_local_var("b").get_tensor().array() is b
    assert scope.find_var("a") is var                      # made once


def test_the_frame_order_is_its_index_not_the_array_positions():
    a, b = np.zeros(1), np.ones(1)
    scope = FrameScope()
    scope.attach_frame(_frame({"second": 1, "first": 0}, [a, b]))
    assert scope.local_var_names() == ["second", "first"]
    assert scope.find_var("second").get_tensor().array() is b
    assert scope.find_var("first").get_tensor().array() is a


def test_var_of_a_new_name_materializes_the_frame_then_creates_it():
    scope = _framed(x=np.zeros(2))
    fresh = scope.var("fresh")
    assert scope.frame is None
    assert scope.local_var_names() == ["x", "fresh"]
    assert not fresh.get_tensor().is_allocated()


def test_var_of_a_framed_name_gives_its_value():
    x = np.full(2, 7.0)
    scope = _framed(x=x)
    assert scope.var("x").get_tensor().array() is x
    assert scope.local_var_names() == ["x"]


def test_find_var_of_another_name_leaves_the_frame_alone():
    root = FrameScope()
    w = root.var("w")
    kid = _framed(root.new_scope(), x=np.zeros(2))
    assert kid.find_var("w") is w
    assert kid.find_var("nowhere") is None
    assert kid.frame is not None
    assert kid.find_local_var("w") is None
    assert kid.frame is not None


def test_find_var_through_a_framed_middle_scope_leaves_that_frame_alone():
    root = FrameScope()
    w = root.var("w")
    middle = _framed(root.new_scope(), x=np.zeros(2))
    kid = middle.new_scope()
    assert kid.find_var("w") is w
    assert middle.frame is not None
    var = kid.find_var("x")                         # now it is the middle scope's name
    assert middle.frame is None and middle.find_local_var("x") is var
    assert kid.local_var_names() == []


def test_a_declared_name_without_a_value_becomes_an_empty_variable():
    scope = _framed(x=np.zeros(2), empty=None)
    var = scope.find_var("empty")
    assert var is not None
    assert not var.get_tensor().is_allocated()
    assert scope.local_var_names() == ["x", "empty"]
    with pytest.raises(pd.errors.NotAllocatedError):
        var.get_tensor().array()


def test_local_tensor_materializes_and_gives_the_framed_tensor():
    x = np.arange(4.0)
    scope = _framed(x=x)
    assert scope.local_tensor("x").array() is x
    assert scope.frame is None


def test_attaching_a_second_frame_materializes_the_first():
    a, b = np.zeros(1), np.ones(1)
    scope = _framed(a=a)
    _framed(scope, b=b)
    assert scope.frame is not None and list(scope.frame.index) == ["b"]
    assert list(scope.own_vars) == ["a"]
    assert scope.local_var_names() == ["a", "b"]
    assert scope.find_var("b").get_tensor().array() is b


# -- reading without materializing ----------------------------------------------------------------
def test_find_array_from_a_kid_reads_the_parents_frame_without_materializing(made):
    x = np.arange(3.0)
    parent = _framed(x=x, empty=None)
    kid = parent.new_scope()
    assert kid.find_array("x") is x
    assert kid.find_array("empty") is None
    assert kid.find_array("nowhere") is None
    assert parent.frame is not None and parent.own_vars == {}
    assert made == []


def test_find_array_reads_variables_too():
    root = FrameScope()
    w = np.ones(2)
    root.var("w").get_tensor().set(w, CPU)
    root.var("unset")
    kid = _framed(root.new_scope(), x=np.zeros(1))
    np.testing.assert_array_equal(kid.find_array("w"), w)
    assert kid.find_array("unset") is None
    assert kid.frame is not None


def test_a_framed_name_shadows_the_parents_variable():
    parent = FrameScope()
    outer = np.zeros(2)
    parent.var("x").get_tensor().set(outer, CPU)
    inner = np.ones(2)
    kid = _framed(parent.new_scope(), x=inner)
    assert kid.find_array("x") is inner
    assert kid.local_array("x") is inner
    assert kid.find_scope_of("x") is kid
    assert kid.frame is not None
    var = kid.find_var("x")
    assert var.get_tensor().array() is inner
    assert var is not parent.find_var("x")
    np.testing.assert_array_equal(parent.find_var("x").get_tensor().array(), outer)


def test_local_array_sees_only_this_scope():
    parent = FrameScope()
    parent.var("w").get_tensor().set(np.ones(2), CPU)
    x = np.zeros(3)
    kid = _framed(parent.new_scope(), x=x, empty=None)
    assert kid.local_array("x") is x
    assert kid.local_array("empty") is None
    assert kid.local_array("w") is None
    assert kid.frame is not None


def test_find_scope_of_a_framed_name_is_its_scope_without_materializing():
    root = _framed(x=np.zeros(1))
    kid = root.new_scope()
    kid.var("y")
    assert kid.find_scope_of("x") is root
    assert kid.find_scope_of("y") is kid
    assert kid.find_scope_of("nowhere") is None
    assert root.frame is not None


def test_repr_counts_the_frame_variables():
    scope = _framed(a=np.zeros(1), b=None)
    assert "2 variables" in repr(scope)
    assert scope.frame is not None
    scope.var("c")
    assert "3 variables" in repr(scope)


# -- find_local_var, erase ------------------------------------------------------------------------
def test_find_local_var_of_a_framed_name():
    a = np.zeros(2)
    scope = _framed(a=a, b=np.ones(1))
    var = scope.find_local_var("a")
    assert var.get_tensor().array() is a
    assert scope.local_var_names() == ["a", "b"]


def test_erase_on_a_framed_scope(quiet_gc):
    base = MEMORY.in_use(CPU)
    scope = _framed(a=np.zeros(4), b=np.ones(2))
    assert MEMORY.in_use(CPU) - base == 6 * 8
    scope.erase("a")
    assert scope.local_var_names() == ["b"]
    assert scope.find_var("a") is None
    assert MEMORY.in_use(CPU) - base == 2 * 8
    scope.erase(["b", "unknown"])
    assert scope.local_var_names() == []
    assert MEMORY.in_use(CPU) == base


def test_erased_framed_variable_refuses_later_use():
    scope = _framed(a=np.zeros(2))
    var = scope.find_var("a")
    scope.erase("a")
    with pytest.raises(Destroyed, match="'a'"):
        var.get_tensor()


# -- memory ---------------------------------------------------------------------------------------
def test_a_frame_counts_its_bytes_while_it_lives(quiet_gc):
    base = MEMORY.in_use(CPU)
    frame = Frame({"a": 0, "b": 1, "c": 2}, [np.zeros(5), None, np.zeros(3, "float32")], CPU, 52)
    assert frame.nbytes == 52
    assert MEMORY.in_use(CPU) - base == 52
    frame.release()
    assert MEMORY.in_use(CPU) == base


def test_a_frame_counting_less_than_its_arrays_still_ends_at_the_baseline(quiet_gc):
    """A block's inputs (seeds) are counted where they came from, not by the frame; once made
    into Variables, each tensor counts what it holds, and gives it back when destroyed."""
    base = MEMORY.in_use(CPU)
    seed, made = np.zeros(4), np.ones(2)
    scope = FrameScope()
    scope.attach_frame(_frame({"seed": 0, "made": 1}, [seed, made], nbytes=made.nbytes))
    assert MEMORY.in_use(CPU) - base == made.nbytes
    assert scope.find_var("seed").get_tensor().array() is seed
    assert MEMORY.in_use(CPU) - base == seed.nbytes + made.nbytes
    scope.destroy()
    assert MEMORY.in_use(CPU) == base


def test_frame_release_is_idempotent(quiet_gc):
    base = MEMORY.in_use(CPU)
    frame = _frame({"a": 0}, [np.zeros(10)])
    frame.release()
    frame.release()
    assert MEMORY.in_use(CPU) == base
    del frame                                  # __del__ releases nothing more
    assert MEMORY.in_use(CPU) == base


def test_a_dropped_frame_releases_its_bytes(quiet_gc):
    base = MEMORY.in_use(CPU)
    frame = _frame({"a": 0}, [np.zeros(10)])
    assert MEMORY.in_use(CPU) - base == 80
    del frame
    assert MEMORY.in_use(CPU) == base


def test_destroy_releases_the_frame_bytes_and_makes_no_variables(quiet_gc, made):
    base = MEMORY.in_use(CPU)
    scope = _framed(a=np.zeros(4), b=None, c=np.zeros(2))
    frame = scope.frame            # held here, so only an explicit release can give the bytes back
    assert MEMORY.in_use(CPU) - base == 6 * 8
    scope.destroy()
    assert MEMORY.in_use(CPU) == base
    assert frame.place is None      # released
    assert made == []
    assert scope.frame is None
    assert not scope.is_alive()
    with pytest.raises(Destroyed):
        scope.find_var("a")


def test_destroying_a_parent_releases_a_framed_kid(quiet_gc, made):
    base = MEMORY.in_use(CPU)
    root = FrameScope()
    kid = _framed(root.new_scope(), a=np.zeros(4))
    grandkid = _framed(kid.new_scope(), b=np.zeros(2))
    frames = [kid.frame, grandkid.frame]        # held: only an explicit release counts
    assert MEMORY.in_use(CPU) - base == 6 * 8
    root.destroy()
    assert MEMORY.in_use(CPU) == base
    assert [f.place for f in frames] == [None, None]
    assert made == []


def test_destroying_a_parent_destroys_many_kids_of_every_kind_at_once(quiet_gc, made):
    """A run's end destroys its step scopes in one pass (their frames' bytes given back in
    one count); a kid holding Variables, a kid with kids and an empty kid go the long way,
    and every one ends destroyed, its bytes given back, no Variable made."""
    base = MEMORY.in_use(CPU)
    root = FrameScope()
    steps = [_framed(kid, a=np.zeros(2), b=np.zeros(3)) for kid in root.new_scopes(["s"] * 5)]
    frames = [kid.frame for kid in steps]
    holding = _framed(root.new_scope("holding"), c=np.zeros(4))
    holding.find_var("c")                              # its frame made Variables
    parent = root.new_scope("parent")
    grandkid = _framed(parent.new_scope("grandkid"), d=np.zeros(1))
    empty = root.new_scope("empty")
    assert MEMORY.in_use(CPU) - base == (5 * 5 + 4 + 1) * 8
    root.destroy()
    assert MEMORY.in_use(CPU) == base
    assert all(f.place is None for f in frames)
    for scope in steps + [holding, parent, grandkid, empty]:
        assert not scope.is_alive() and scope.frame is None
        with pytest.raises(Destroyed):
            scope.find_var("a")
    assert made == ["c"]


def test_a_listener_hears_each_framed_kid_destroyed(quiet_gc):
    """While someone listens, each kid is destroyed the long way and says so."""
    root = FrameScope()
    kids = [_framed(kid, a=np.zeros(2)) for kid in root.new_scopes(["s0", "s1"])]
    heard = []
    with pd.core.events.EVENTS.listening(heard.append):
        root.destroy()
    destroyed = [e.scope for e in heard if e.kind == "scope_destroyed"]
    assert destroyed == kids + [root]


def test_new_scopes_makes_kids_of_the_parents_class_in_order():
    root = FrameScope()
    first = root.new_scope("first")
    kids = root.new_scopes([f"step {t}" for t in range(3)])
    assert root.kids == [first] + kids
    assert [k.label for k in kids] == ["step 0", "step 1", "step 2"]
    assert all(type(k) is FrameScope and k.parent is root and k.frame is None for k in kids)
    assert len({k.id for k in kids}) == 3
    root.destroy()
    with pytest.raises(Destroyed):
        root.new_scopes(["late"])


def test_drop_kids_releases_framed_kids(quiet_gc):
    base = MEMORY.in_use(CPU)
    root = FrameScope()
    frame = _framed(root.new_scope(), a=np.zeros(4)).frame
    root.drop_kids()
    assert MEMORY.in_use(CPU) == base and root.kids == []
    assert frame.place is None


def test_materializing_moves_the_bytes_from_the_frame_to_the_tensors(quiet_gc):
    base = MEMORY.in_use(CPU)
    scope = _framed(a=np.zeros(4), b=None, c=np.zeros(2))
    frame = scope.frame
    assert MEMORY.in_use(CPU) - base == 6 * 8
    scope.local_var_names()
    assert MEMORY.in_use(CPU) - base == 6 * 8
    frame.release()                             # already released by materializing
    assert MEMORY.in_use(CPU) - base == 6 * 8
    scope.destroy()
    assert MEMORY.in_use(CPU) == base


def test_materialized_variables_die_with_their_scope():
    scope = _framed(a=np.zeros(2))
    var = scope.find_var("a")
    scope.destroy()
    with pytest.raises(Destroyed, match="'a'"):
        var.get_tensor()
