"""Properties of the scope hierarchy, on random scope trees ("Design of Scope in Paddle", "What is a scope").

Hypothesis builds a random forest of scopes (each scope's parent drawn from the scopes made
before it, or none), puts variables with random names in random scopes, and compares the
real hierarchy with a plain model of it (a parent list and a dict of variables):

- ``find_var`` from any scope returns the nearest ancestor's variable of that name, or None;
- destroying a random subtree (``destroy`` or ``drop_kids``) invalidates exactly the
  variables in it, leaves every other variable the same object with the same data, and
  memory in use falls back to what the surviving tensors hold.
"""
import contextlib
import dataclasses
import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paddle_nb as pd

CPU = pd.CPUPlace()
NAMES = ["w", "b", "h", "x", "out"]
BOUNDED = settings(max_examples=100, deadline=None)


# -- the random trees ---------------------------------------------------------------------------
@dataclasses.dataclass
class Plan:
    parents: list        # parents[i] is the index of scope i's parent, or None for a root
    variables: list      # (scope index, name, state, rows); state: created, typed or allocated


@st.composite
def plans(draw, max_scopes=10):
    n = draw(st.integers(1, max_scopes))
    parents = [None]
    for i in range(1, n):
        parents.append(draw(st.none() | st.integers(0, i - 1) | st.integers(0, i - 1)))
    variables = draw(st.lists(
        st.tuples(st.integers(0, n - 1), st.sampled_from(NAMES),
                  st.sampled_from(["created", "typed", "allocated", "allocated"]),
                  st.integers(0, 5)),
        max_size=25))
    return Plan(parents, variables)


@dataclasses.dataclass
class Built:
    scopes: list         # the real Scope objects, by index
    variables: dict      # (scope index, name) -> Variable
    tensors: dict        # (scope index, name) -> LoDTensor, for typed and allocated ones
    values: dict         # (scope index, name) -> the float every element was set to


def build(plan):
    """Make the scopes and variables a plan describes; each allocated tensor gets its own value."""
    scopes = []
    for parent in plan.parents:
        scopes.append(pd.Scope() if parent is None else scopes[parent].new_scope())
    built = Built(scopes, {}, {}, {})
    for number, (i, name, state, rows) in enumerate(plan.variables):
        key = (i, name)
        var = scopes[i].var(name)
        assert built.variables.setdefault(key, var) is var      # create-or-get
        if state == "created" or key in built.tensors:
            continue
        built.tensors[key] = var.get_tensor()
        if state == "allocated":
            built.tensors[key].set(np.full((rows, 2), float(number), "float32"))
            built.values[key] = float(number)
    return built


# -- the model ----------------------------------------------------------------------------------
def expected_owner(parents, keys, i, name):
    """The index of the nearest scope from ``i`` upwards that holds ``name``, else None."""
    while i is not None:
        if (i, name) in keys:
            return i
        i = parents[i]
    return None


def subtree(parents, top):
    """``top`` and every scope below it."""
    found = {top}
    for i in range(top + 1, len(parents)):      # a parent always comes before its kids
        if parents[i] in found:
            found.add(i)
    return found


def surviving_bytes(built, alive):
    return sum(t.nbytes for (i, _), t in built.tensors.items() if i in alive)


@contextlib.contextmanager
def no_collector():
    """Scopes form reference cycles; the collector must not free old ones in mid-count.

    Used inside each example (a pytest fixture would run once for all of them).
    """
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# -- the properties -----------------------------------------------------------------------------
def check_lookups(built, parents, alive):
    keys = {key for key in built.variables if key[0] in alive}
    for i in sorted(alive):
        for name in NAMES:
            owner = expected_owner(parents, keys, i, name)
            found = built.scopes[i].find_var(name)
            if owner is None:
                assert found is None, (i, name)
            else:
                assert found is built.variables[(owner, name)], (i, name, owner)
                assert found.scope is built.scopes[owner]
            local = built.scopes[i].find_local_var(name)
            assert local is built.variables.get((i, name)), (i, name)


@BOUNDED
@given(plans())
def test_find_var_returns_the_nearest_ancestors_variable(plan):
    built = build(plan)
    check_lookups(built, plan.parents, set(range(len(plan.parents))))
    for i, parent in enumerate(plan.parents):
        assert built.scopes[i].parent is (None if parent is None else built.scopes[parent])
        expected_kids = [built.scopes[k] for k, p in enumerate(plan.parents) if p == i]
        assert built.scopes[i].kids == expected_kids


def check_after_destruction(built, parents, alive, baseline):
    for i, scope in enumerate(built.scopes):
        assert scope.is_alive() == (i in alive), i
        if i in alive:
            kids = [built.scopes[k] for k, p in enumerate(parents) if p == i and k in alive]
            assert scope.kids == kids
        else:
            with pytest.raises(pd.errors.ScopeDestroyedError):
                scope.find_var("w")
    for (i, name), var in built.variables.items():
        tensor = built.tensors.get((i, name))
        if i in alive:
            assert built.scopes[i].find_local_var(name) is var
            if tensor is not None:
                assert var.get_tensor() is tensor
            if (i, name) in built.values:
                assert np.all(tensor.numpy() == built.values[(i, name)])
        else:
            with pytest.raises(pd.errors.ScopeDestroyedError, match=f"variable '{name}'"):
                var.is_initialized()
            if tensor is not None:
                with pytest.raises(pd.errors.ScopeDestroyedError, match=f"variable '{name}'"):
                    tensor.numpy()
    check_lookups(built, parents, alive)
    assert pd.memory_stats(CPU)["in_use"] == baseline + surviving_bytes(built, alive)


@BOUNDED
@given(plans(), st.lists(st.tuples(st.integers(0, 9), st.sampled_from(["destroy", "drop_kids"])),
                         min_size=1, max_size=3))
def test_destroying_a_subtree_invalidates_exactly_its_variables(plan, cuts):
    with no_collector():
        destroy_and_check(plan, cuts)


def destroy_and_check(plan, cuts):
    baseline = pd.memory_stats(CPU)["in_use"]
    built = build(plan)
    parents = plan.parents
    alive = set(range(len(parents)))
    assert pd.memory_stats(CPU)["in_use"] == baseline + surviving_bytes(built, alive)
    for target, how in cuts:
        target %= len(parents)
        if target not in alive:
            continue
        if how == "destroy":
            built.scopes[target].destroy()
            alive -= subtree(parents, target)
        else:
            built.scopes[target].drop_kids()
            for kid in [k for k, p in enumerate(parents) if p == target and k in alive]:
                alive -= subtree(parents, kid)
        check_after_destruction(built, parents, alive, baseline)
    for i in sorted(alive):                    # tidy up: every remaining root
        if parents[i] is None:
            built.scopes[i].destroy()
    assert pd.memory_stats(CPU)["in_use"] == baseline
