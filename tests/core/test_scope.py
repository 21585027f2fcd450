"""Scope: names to variables, lookup through parents, destruction ("Design of
Scope in Paddle", "What is a scope").

Each test states one sentence of the seeds through the public API: create-or-get, lookup
through parents, shadowing, every variable in one scope, destruction of variables and kids
(dangling references raise ScopeDestroyedError, never a stale value), a kid keeping its
parent alive, DeleteVariable (``erase``), and the global scope.
"""
import gc
import weakref

import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()
Destroyed = pd.errors.ScopeDestroyedError




def in_use():
    return pd.memory_stats(CPU)["in_use"]


# -- a map of names to variables ----------------------------------------------------------------
def test_a_new_scope_is_an_empty_root():
    scope = pd.Scope()
    assert scope.local_var_names() == []
    assert scope.parent is None
    assert scope.kids == []
    assert scope.is_alive()


def test_var_creates_a_variable_of_that_name():
    scope = pd.Scope()
    var = scope.var("w")
    assert var.name == "w"
    assert scope.local_var_names() == ["w"]


def test_var_twice_gives_the_same_variable():
    scope = pd.Scope()
    assert scope.var("w") is scope.var("w")
    assert scope.local_var_names() == ["w"]


def test_create_or_get_keeps_the_value():
    scope = pd.Scope()
    scope.var("w").get_tensor().set(np.arange(3, dtype="float32"))
    assert scope.var("w").get_tensor().numpy().tolist() == [0, 1, 2]


def test_find_var_returns_none_for_an_unknown_name():
    # "Design of Scope in Paddle", "Orthogonal interface": FindVar returns nullptr when the
    # name is not found, so it doubles as Contains.
    scope = pd.Scope()
    assert scope.find_var("nope") is None
    assert scope.find_local_var("nope") is None
    assert scope.local_var_names() == []          # looking never creates


def test_find_var_returns_the_variable_var_made():
    scope = pd.Scope()
    var = scope.var("w")
    assert scope.find_var("w") is var
    assert scope.find_local_var("w") is var


def test_local_var_names_keep_creation_order():
    scope = pd.Scope()
    for name in ["c", "a", "b"]:
        scope.var(name)
    scope.var("a")
    assert scope.local_var_names() == ["c", "a", "b"]


@pytest.mark.parametrize("bad", ["", 3, None])
def test_var_refuses_a_name_that_is_not_a_non_empty_string(bad):
    with pytest.raises(TypeError, match="name"):
        pd.Scope().var(bad)


def test_a_scope_holds_no_operators():
    # "Design of Scope in Paddle": "Scope only contains methods that are used to Create and
    # Get Variables."
    public = {name for name in dir(pd.Scope) if not name.startswith("_")}
    assert not any("op" in name.lower().split("_") for name in public)
    assert not any(name in public for name in ["run", "execute", "ops"])


# -- parent and local scope ---------------------------------------------------------------------
def test_new_scope_makes_a_kid_whose_parent_is_this_scope():
    root = pd.Scope()
    kid = root.new_scope()
    assert kid.parent is root
    assert root.kids == [kid]
    assert kid.depth() == 1 and root.depth() == 0


def test_kids_are_listed_in_creation_order_and_the_list_is_a_copy():
    root = pd.Scope()
    kids = [root.new_scope() for _ in range(3)]
    assert root.kids == kids
    root.kids.clear()
    assert root.kids == kids


def test_a_kid_finds_its_parents_variable():
    root = pd.Scope()
    w = root.var("w")
    kid = root.new_scope()
    assert kid.find_var("w") is w
    assert kid.find_local_var("w") is None
    assert kid.find_scope_of("w") is root


def test_lookup_climbs_every_ancestor():
    root = pd.Scope()
    w = root.var("w")
    scope = root
    for _ in range(5):
        scope = scope.new_scope()
    assert scope.find_var("w") is w
    assert scope.depth() == 5


def test_lookup_never_goes_down_or_sideways():
    root = pd.Scope()
    left, right = root.new_scope(), root.new_scope()
    left.var("h")
    assert root.find_var("h") is None
    assert right.find_var("h") is None


def test_a_kids_variable_shadows_its_parents():
    root = pd.Scope()
    outer = root.var("x")
    kid = root.new_scope()
    inner = kid.var("x")          # var() is local: it does not return the parent's
    assert inner is not outer
    assert kid.find_var("x") is inner
    assert root.find_var("x") is outer
    assert kid.new_scope().find_var("x") is inner    # the nearest ancestor wins


def test_shadowing_variables_hold_separate_values():
    root = pd.Scope()
    root.var("x").get_tensor().set(np.array([1.0], "float32"))
    kid = root.new_scope()
    kid.var("x").get_tensor().set(np.array([2.0], "float32"))
    assert root.find_var("x").get_tensor().numpy().tolist() == [1.0]
    assert kid.find_var("x").get_tensor().numpy().tolist() == [2.0]


def test_every_variable_belongs_to_exactly_one_scope():
    root = pd.Scope()
    kid = root.new_scope()
    x_root, x_kid = root.var("x"), kid.var("x")
    assert x_root.scope is root and x_kid.scope is kid
    assert root.local_var_names() == ["x"] and kid.local_var_names() == ["x"]
    assert root.find_local_var("x") is x_root and kid.find_local_var("x") is x_kid


def test_one_net_can_run_in_different_scopes():
    # "Design of Scope in Paddle": the same names bind to different variables in different scopes.
    scopes = [pd.Scope(), pd.Scope()]
    for value, scope in enumerate(scopes):
        scope.var("out").get_tensor().set(np.array([value], "int64"))
    assert [s.find_var("out").get_tensor().numpy()[0] for s in scopes] == [0, 1]


def test_repr_says_how_many_variables_and_kids():
    root = pd.Scope(label="demo")
    root.var("a")
    root.new_scope()
    text = repr(root)
    assert "1 variables" in text and "1 kids" in text and "'demo'" in text


# -- destruction --------------------------------------------------------------------------------
def populated_tree():
    """root{w} -> kid{h} -> grandkid{g}, each variable allocated."""
    root = pd.Scope()
    kid = root.new_scope()
    grandkid = kid.new_scope()
    for scope, name in [(root, "w"), (kid, "h"), (grandkid, "g")]:
        scope.var(name).get_tensor().set(np.ones(4, "float32"))
    return root, kid, grandkid


def test_destroying_a_scope_destroys_its_variables():
    scope = pd.Scope()
    var = scope.var("w")
    var.get_tensor().set(np.ones(3, "float32"))
    scope.destroy()
    assert not scope.is_alive()
    with pytest.raises(Destroyed, match="variable 'w'"):
        var.get_tensor()


def test_a_kept_tensor_raises_instead_of_showing_a_stale_value():
    scope = pd.Scope()
    tensor = scope.var("w").get_tensor()
    tensor.set(np.full(3, 7.0, "float32"))
    scope.destroy()
    for read in [tensor.numpy, tensor.is_allocated, tensor.lod, lambda: tensor.shape,
                 lambda: tensor.dtype, lambda: tensor.nbytes, lambda: tensor.place,
                 lambda: np.asarray(tensor),
                 lambda: tensor.mutable_data(CPU, "float32", (3,)),
                 lambda: tensor.set(np.zeros(3))]:
        with pytest.raises(Destroyed, match="variable 'w'"):
            read()
    assert "destroyed" in repr(tensor)


def test_destroying_a_scope_destroys_its_kids_and_their_variables():
    root, kid, grandkid = populated_tree()
    kept = {name: s.find_local_var(name) for s, name in [(root, "w"), (kid, "h"), (grandkid, "g")]}
    root.destroy()
    for scope in (root, kid, grandkid):
        assert not scope.is_alive()
    for name, var in kept.items():
        with pytest.raises(Destroyed, match=f"variable '{name}'"):
            var.get_tensor()


@pytest.mark.parametrize("use", [
    lambda s: s.var("x"), lambda s: s.find_var("w"), lambda s: s.find_local_var("w"),
    lambda s: s.local_var_names(), lambda s: s.new_scope(), lambda s: s.parent,
    lambda s: s.kids, lambda s: s.drop_kids(), lambda s: s.erase("w"),
    lambda s: s.find_scope_of("w"),
], ids=["var", "find_var", "find_local_var", "local_var_names", "new_scope", "parent",
        "kids", "drop_kids", "erase", "find_scope_of"])
def test_every_use_of_a_destroyed_scope_raises(use):
    root, kid, _ = populated_tree()
    root.destroy()
    with pytest.raises(Destroyed, match="scope .* was destroyed"):
        use(kid)


def test_destroying_a_kid_leaves_the_parent_and_removes_the_kid():
    root, kid, grandkid = populated_tree()
    w = root.find_var("w")
    kid.destroy()
    assert root.kids == []
    assert root.is_alive() and not grandkid.is_alive()
    assert root.find_var("w") is w
    assert w.get_tensor().numpy().tolist() == [1, 1, 1, 1]


def test_destroy_twice_is_harmless():
    scope = pd.Scope()
    scope.destroy()
    scope.destroy()
    assert "destroyed" in repr(scope)


def test_destruction_gives_the_memory_back(quiet_gc):
    before = in_use()
    root, _, _ = populated_tree()
    assert in_use() - before == 48
    root.destroy()
    assert in_use() == before


def test_a_with_block_destroys_the_kid_on_exit():
    root = pd.Scope()
    w = root.var("w")
    with root.new_scope() as step:
        assert step.parent is root and root.kids == [step]
        h = step.var("h")
        h.get_tensor().mutable_data(CPU, "float32", (2,))
        assert step.find_var("w") is w
    assert not step.is_alive()
    assert root.kids == []
    with pytest.raises(Destroyed, match="variable 'h'"):
        h.get_tensor()
    assert root.find_var("w") is w and root.find_var("h") is None


def test_a_with_block_destroys_the_kid_when_an_error_leaves_it():
    root = pd.Scope()
    with pytest.raises(KeyError):
        with root.new_scope() as step:
            step.var("h")
            raise KeyError("boom")
    assert not step.is_alive() and root.kids == []


def test_with_on_a_destroyed_scope_raises():
    scope = pd.Scope()
    scope.destroy()
    with pytest.raises(Destroyed):
        with scope:
            pass


def test_drop_kids_destroys_every_kid_and_keeps_the_parent(quiet_gc):
    root = pd.Scope()
    w = root.var("w")
    w.get_tensor().set(np.ones(2, "float32"))
    before = in_use()
    kids = [root.new_scope() for _ in range(3)]
    kept = [k.var("h").get_tensor() for k in kids]
    for tensor in kept:
        tensor.mutable_data(CPU, "float64", (4,))
    grandkid = kids[0].new_scope()
    assert in_use() - before == 96
    root.drop_kids()
    assert root.kids == []
    assert all(not k.is_alive() for k in kids) and not grandkid.is_alive()
    for tensor in kept:
        with pytest.raises(Destroyed, match="variable 'h'"):
            tensor.numpy()
    assert in_use() == before
    assert root.find_var("w") is w and w.get_tensor().numpy().tolist() == [1, 1]


def test_drop_kids_on_a_scope_without_kids_does_nothing():
    scope = pd.Scope()
    scope.var("a")
    scope.drop_kids()
    assert scope.local_var_names() == ["a"]


# -- a kid keeps its parent alive ----------------------------------------------------------------
def test_a_kid_keeps_its_parent_alive():
    def make_kid():
        root = pd.Scope()
        root.var("w").get_tensor().set(np.arange(3, dtype="int64"))
        return root.new_scope(), weakref.ref(root)

    kid, root_ref = make_kid()        # the only reference left to the root is the kid's
    gc.collect()
    assert root_ref() is not None
    assert kid.parent is root_ref()
    assert kid.find_var("w").get_tensor().numpy().tolist() == [0, 1, 2]


def test_a_scope_nobody_holds_is_collected_with_its_kids():
    root = pd.Scope()
    kid = root.new_scope()
    refs = [weakref.ref(root), weakref.ref(kid)]
    del root, kid
    gc.collect()
    assert [r() for r in refs] == [None, None]


# -- erase: DeleteVariable of "What is a scope" ------------------------------------------------
def test_erase_removes_and_destroys_a_variable(quiet_gc):
    scope = pd.Scope()
    var = scope.var("x")
    before = in_use()
    var.get_tensor().mutable_data(CPU, "float32", (4,))
    scope.erase("x")
    assert scope.find_local_var("x") is None and scope.local_var_names() == []
    assert in_use() == before
    with pytest.raises(Destroyed, match="variable 'x'.*erased"):
        var.get_tensor()


def test_erase_takes_a_list_and_ignores_unknown_names():
    scope = pd.Scope()
    for name in "abc":
        scope.var(name)
    scope.erase(["a", "c", "zzz"])
    assert scope.local_var_names() == ["b"]


def test_erase_is_local():
    root = pd.Scope()
    w = root.var("w")
    kid = root.new_scope()
    kid.erase("w")                   # not the kid's: nothing happens
    assert root.find_var("w") is w and w.is_initialized() is False


def test_erasing_a_shadow_uncovers_the_parents_variable():
    root = pd.Scope()
    outer = root.var("x")
    kid = root.new_scope()
    kid.var("x")
    kid.erase("x")
    assert kid.find_var("x") is outer


def test_var_after_erase_makes_a_new_variable():
    scope = pd.Scope()
    old = scope.var("x")
    scope.erase("x")
    new = scope.var("x")
    assert new is not old and not new.is_initialized()


# -- the global scope ---------------------------------------------------------------------------
def test_global_scope_is_one_root_scope():
    assert isinstance(pd.global_scope(), pd.Scope)
    assert pd.global_scope() is pd.global_scope()
    assert pd.global_scope().parent is None


def test_scope_guard_swaps_the_global_scope_inside_a_with():
    outer = pd.global_scope()
    mine = pd.Scope()
    with pd.scope_guard(mine) as guarded:
        assert guarded is mine
        assert pd.global_scope() is mine
    assert pd.global_scope() is outer


def test_scope_guards_nest():
    outer = pd.global_scope()
    first, second = pd.Scope(), pd.Scope()
    with pd.scope_guard(first):
        with pd.scope_guard(second):
            assert pd.global_scope() is second
        assert pd.global_scope() is first
    assert pd.global_scope() is outer


def test_scope_guard_restores_the_global_scope_after_an_error():
    outer = pd.global_scope()
    with pytest.raises(ValueError):
        with pd.scope_guard(pd.Scope()):
            raise ValueError("inside")
    assert pd.global_scope() is outer


def test_scope_guard_refuses_something_that_is_not_a_scope():
    with pytest.raises(TypeError, match="Scope"):
        with pd.scope_guard("global"):
            pass


def test_the_guarded_scope_is_not_destroyed_by_the_guard():
    mine = pd.Scope()
    w = mine.var("w")
    with pd.scope_guard(mine):
        pd.global_scope().var("b")
    assert mine.is_alive() and mine.find_var("w") is w and mine.local_var_names() == ["w", "b"]


# -- a Scope is names, a parent and kids ----------------------------------------------------------
def test_a_scope_holds_variables_one_way():
    """The step-scope speed-up lives in the executor (executor/frames.py): a core Scope
    has no frame, and every variable it holds is a Variable in ``own_vars``."""
    import paddle_nb.core.scope as scope_module
    scope = pd.Scope()
    for name in ("frame", "attach_frame", "materialize", "find_array", "local_array",
                 "local_tensor"):
        assert not hasattr(scope, name), name
    assert not hasattr(scope_module, "Frame")
    w = scope.var("w")
    assert scope.own_vars == {"w": w} and scope.local_var_names() == ["w"]


def test_a_kid_is_of_its_parents_class_unless_told():
    class Tagged(pd.Scope):
        __slots__ = ()
    root = pd.Scope()
    tagged = root.new_scope(kind=Tagged)
    assert type(tagged) is Tagged and type(tagged.new_scope()) is Tagged
    assert type(root.new_scope()) is pd.Scope


def test_quiet_destruction_gives_each_leaf_back_through_its_own_class():
    """Leaves that hold variables elsewhere are given up in bulk, each by its own class's
    ``destroy_held``, when kids of two such classes share a parent."""
    given: list[tuple[str, list[str]]] = []

    class Held(pd.Scope):
        __slots__ = ()

        def __init__(self, parent=None, label=None):
            super().__init__(parent, label)
            self.holds_elsewhere = True

        @classmethod
        def destroy_held(cls, scopes, why):
            given.append((cls.__name__, [s.label for s in scopes]))

    class Other(Held):
        __slots__ = ()

    root = pd.Scope()
    root.new_scope("a", kind=Held)
    root.new_scope("b", kind=Other)
    root.new_scope("c", kind=Held)
    root.destroy()
    assert sorted(given) == [("Held", ["a", "c"]), ("Other", ["b"])]
