"""Run-time Variable: made only by a Scope, holds one value of any type
("Design of Scope in Paddle", "What is a scope", "Design Doc: Variable").

A Variable starts empty ("created"); ``get_mutable(T)`` puts an empty T in it on first use
("typed"); ``get(T)`` returns the held T, and a mismatch names both types. Once its scope is
destroyed or it is erased, every use raises ScopeDestroyedError naming it.
"""

import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()




# -- only a scope creates a variable ------------------------------------------------------------
def test_the_variable_class_cannot_be_called():
    with pytest.raises(TypeError, match="only a Scope"):
        pd.core.Variable()


@pytest.mark.parametrize("args, kwargs",
                         [(("x",), {}), (("x", pd.Scope()), {}), ((), {"name": "x"})])
def test_the_variable_class_cannot_be_called_with_any_arguments(args, kwargs):
    with pytest.raises(TypeError, match=r"scope\.var"):
        pd.core.Variable(*args, **kwargs)


def test_a_scope_makes_variables():
    var = pd.Scope().var("x")
    assert isinstance(var, pd.core.Variable)
    assert var.name == "x"


def test_a_variable_knows_the_one_scope_it_belongs_to():
    scope = pd.Scope()
    kid = scope.new_scope()
    assert scope.var("x").scope is scope
    assert kid.var("y").scope is kid
    assert kid.find_var("x").scope is scope      # found through the kid, owned by the parent


# -- empty, typed, held -------------------------------------------------------------------------
def test_a_new_variable_holds_nothing():
    var = pd.Scope().var("x")
    assert var.is_initialized() is False
    assert var.holder_type() is None
    assert var.is_type(pd.LoDTensor) is False
    assert "empty" in repr(var)


def test_get_mutable_puts_an_empty_value_in_on_first_use():
    var = pd.Scope().var("x")
    tensor = var.get_mutable(pd.LoDTensor)
    assert isinstance(tensor, pd.LoDTensor)
    assert not tensor.is_allocated()               # typed, not allocated (lazy allocation)
    assert var.is_initialized()
    assert var.is_type(pd.LoDTensor)
    assert var.holder_type() is pd.LoDTensor


def test_get_mutable_returns_the_same_value_every_time():
    var = pd.Scope().var("x")
    assert var.get_mutable(pd.LoDTensor) is var.get_mutable(pd.LoDTensor)


def test_get_tensor_is_get_mutable_of_lod_tensor():
    var = pd.Scope().var("x")
    tensor = var.get_tensor()
    assert var.get_mutable(pd.LoDTensor) is tensor
    assert var.get(pd.LoDTensor) is tensor
    assert var.get_tensor() is tensor


def test_get_returns_the_held_value():
    var = pd.Scope().var("x")
    tensor = var.get_tensor()
    tensor.set(np.arange(3, dtype="int64"))
    assert var.get(pd.LoDTensor).numpy().tolist() == [0, 1, 2]


def test_get_on_an_empty_variable_says_it_holds_nothing():
    var = pd.Scope().var("x")
    with pytest.raises(pd.errors.VariableTypeError) as info:
        var.get(pd.LoDTensor)
    message = str(info.value)
    assert "'x'" in message and "LoDTensor" in message and "holds nothing" in message
    assert not var.is_initialized()                # get never creates


def test_get_of_another_type_names_both_types():
    var = pd.Scope().var("ids")
    var.get_tensor()
    with pytest.raises(pd.errors.VariableTypeError) as info:
        var.get(list)
    message = str(info.value)
    assert "'ids'" in message and "list" in message and "LoDTensor" in message


def test_get_mutable_of_another_type_names_both_types_and_keeps_the_value():
    var = pd.Scope().var("x")
    tensor = var.get_tensor()
    with pytest.raises(pd.errors.VariableTypeError) as info:
        var.get_mutable(dict)
    assert "dict" in str(info.value) and "LoDTensor" in str(info.value)
    assert var.get_tensor() is tensor


def test_variable_type_error_is_a_type_error():
    assert issubclass(pd.errors.VariableTypeError, TypeError)
    with pytest.raises(TypeError):
        pd.Scope().var("x").get(pd.LoDTensor)


def test_a_variable_can_hold_any_type():
    # "Design Doc: Variable": "a tensor in most cases, but could also be some integer IDs or
    # a scope of other variables in the case of RNN"
    scope = pd.Scope()
    ids = scope.var("ids").get_mutable(list)
    ids.extend([3, 1, 4])
    assert scope.var("ids").get(list) == [3, 1, 4]
    assert scope.var("ids").is_type(list) and not scope.var("ids").is_type(pd.LoDTensor)

    steps = scope.var("step_scopes").get_mutable(list)
    steps.extend(scope.new_scope() for _ in range(3))
    assert all(isinstance(s, pd.Scope) for s in scope.find_var("step_scopes").get(list))


def test_is_type_accepts_subclasses():
    class Special(pd.LoDTensor):
        __slots__ = ()

    var = pd.Scope().var("x")
    var.get_mutable(Special)
    assert var.is_type(Special) and var.is_type(pd.LoDTensor)


def test_set_value_replaces_and_frees_the_old_tensor(quiet_gc):
    scope = pd.Scope()
    var = scope.var("x")
    old = var.get_tensor()
    old.mutable_data(CPU, "float32", (8,))
    before = pd.memory_stats(CPU)["in_use"]
    new = pd.LoDTensor()
    assert var.set_value(new) is new
    assert var.get_tensor() is new
    assert not old.is_allocated()
    assert pd.memory_stats(CPU)["in_use"] == before - 32


def test_a_tensor_error_names_its_variable():
    tensor = pd.Scope().var("hidden").get_tensor()
    with pytest.raises(pd.errors.NotAllocatedError, match="'hidden'"):
        tensor.numpy()


def test_repr_shows_name_and_value():
    var = pd.Scope().var("x")
    var.get_tensor().set(np.zeros(2, "float32"))
    assert "'x'" in repr(var) and "LoDTensor" in repr(var)


# -- after the scope is gone ----------------------------------------------------------------------
def dead_variable(how):
    scope = pd.Scope()
    var = scope.var("w")
    var.get_tensor().set(np.ones(3, "float32"))
    if how == "destroy":
        scope.destroy()
    else:
        scope.erase("w")
    return var


@pytest.mark.parametrize("how", ["destroy", "erase"])
@pytest.mark.parametrize("use", [
    lambda v: v.get_tensor(),
    lambda v: v.get(pd.LoDTensor),
    lambda v: v.get_mutable(pd.LoDTensor),
    lambda v: v.is_initialized(),
    lambda v: v.is_type(pd.LoDTensor),
    lambda v: v.holder_type(),
    lambda v: v.scope,
    lambda v: v.set_value(pd.LoDTensor()),
], ids=["get_tensor", "get", "get_mutable", "is_initialized", "is_type", "holder_type",
        "scope", "set_value"])
def test_every_use_of_a_dead_variable_raises_naming_it(how, use):
    var = dead_variable(how)
    with pytest.raises(pd.errors.ScopeDestroyedError, match="variable 'w'"):
        use(var)


def test_a_dead_variable_still_tells_its_name_and_prints():
    var = dead_variable("destroy")
    assert var.name == "w"
    assert "destroyed" in repr(var)


def test_scope_destroyed_error_is_a_runtime_error():
    assert issubclass(pd.errors.ScopeDestroyedError, RuntimeError)
    assert issubclass(pd.errors.ScopeDestroyedError, pd.errors.PaddleNBError)
