"""Misuse gets a clear paddle_nb error naming the op or argument, what was expected, what
came, and the user's line; what PaddlePaddle accepts is accepted (a single fetch target)."""

import os

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import AttrError, FeedError, OperandError, ShapeError

HERE = os.path.basename(__file__)
CPU = pd.CPUPlace()


@pytest.fixture
def prog():
    prog = pd.Program()
    with pd.program_guard(prog):
        yield prog


def _built_here(info):
    assert f"{HERE}:" in str(info.value), str(info.value)


def test_a_single_fetch_target_or_name_is_taken_as_a_list_of_one(prog):
    x = pd.layers.data("x", shape=[2])
    y = pd.layers.scale(x, scale=2.0)
    exe, feed = pd.Executor(CPU), {"x": np.ones((1, 2), "float32")}
    for target in (y, y.name):
        (got,) = exe.run(prog, feed=feed, fetch_list=target, scope=pd.Scope())
        np.testing.assert_array_equal(got, [[2.0, 2.0]])
    (got,) = exe.eval(y.name, program=prog, feed=feed, scope=pd.Scope())
    np.testing.assert_array_equal(got, [[2.0, 2.0]])


def test_a_feed_that_is_not_a_dict_is_a_feed_error(prog):
    x = pd.layers.data("x", shape=[2])
    y = pd.layers.data("y", shape=[2])
    with pytest.raises(FeedError, match=r"feed must be a dict.*got a list of 2 items"):
        pd.Executor(CPU).run(prog, feed=[x, y], fetch_list=[x], scope=pd.Scope())
    with pytest.raises(FeedError, match="feed key must be a variable's name, got 3"):
        pd.Executor(CPU).run(prog, feed={3: np.ones((1, 2))}, scope=pd.Scope())


def test_a_variable_as_a_feed_key_stands_for_its_name(prog):
    x = pd.layers.data("x", shape=[2])
    (got,) = pd.Executor(CPU).run(prog, feed={x: np.ones((1, 2), "float32")}, fetch_list=[x],
                                  scope=pd.Scope())
    np.testing.assert_array_equal(got, [[1.0, 1.0]])


@pytest.mark.parametrize("size", [2.5, 0, True, "2"])
def test_fc_size_must_be_a_whole_number(prog, size):
    x = pd.layers.data("x", shape=[3])
    with pytest.raises(ShapeError, match=r"fc: size must be a whole number") as info:
        pd.layers.fc(x, size)
    _built_here(info)


@pytest.mark.parametrize("shape", [[2.5], [2, "3"], [-2]])
def test_data_shape_must_be_whole_numbers(prog, shape):
    with pytest.raises(ShapeError, match=r"data 'x': shape .* expected whole numbers") as info:
        pd.layers.data("x", shape=shape)
    _built_here(info)
    assert "x" not in prog.global_block().vars


def test_attribute_values_of_the_wrong_type_name_the_op_and_the_line(prog):
    x = pd.layers.data("x", shape=[3])
    with pytest.raises(AttrError, match=r"op 'scale': attribute 'scale' expects float, "
                                        r"got 'x' \(str\)") as info:
        pd.layers.scale(x, scale="x")
    _built_here(info)
    with pytest.raises(AttrError, match=r"'fill_constant'.*'value' expects float") as info:
        pd.layers.fill_constant([1], "float32", "abc")
    _built_here(info)
    assert [op.type for op in prog.global_block().ops] == []


def test_variable_and_array_arithmetic_is_refused_clearly_not_broadcast_op_by_op(prog):
    x = pd.layers.data("x", shape=[3])
    for make in (lambda: x + np.ones(3), lambda: np.ones(3) + x, lambda: x * [1.0, 2.0, 3.0]):
        with pytest.raises(OperandError, match=r"variable 'x' with a .*not a variable of the "
                                               r"program") as info:
            make()
        _built_here(info)
    assert prog.global_block().ops == []          # and no op was appended, one or many
    assert (x + 1.0).writer.type == "scale"       # numbers still work
