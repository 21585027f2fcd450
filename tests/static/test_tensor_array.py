"""Tensor arrays: create_array / array_write / array_read / array_length /
tensor_array_to_tensor, alone and inside while_loop, against NumPy."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.core.tensor_array import LoDTensorArray
from paddle_nb.errors import OpBuildError, OpRunError, ShapeError


def _int(value):
    return pd.layers.fill_constant([1], "int64", value)


def _loop_program(steps, reads=True):
    """``while i < steps: y = y * 2; arr[i] = y; i += 1``, then the array read back."""
    main, startup = pd.Program(), pd.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3])
        i, n = _int(0), _int(steps)
        arr = static.create_array("float32")

        def body(i, y):
            y2 = y * 2.0
            static.array_write(y2, i, arr)
            return pd.layers.increment(i, in_place=False), y2

        i_out, y_out = static.nn.while_loop(lambda i, y: pd.layers.less_than(i, n), body, [i, x])
        length = static.array_length(arr)
        if not reads:
            return main, [i_out, y_out, length], arr
        second = static.array_read(arr, _int(1))
        stacked, index = static.tensor_array_to_tensor(arr, axis=0, use_stack=True)
        joined, sizes = static.tensor_array_to_tensor(arr, axis=1)
    return main, [i_out, y_out, length, second, stacked, index, joined, sizes], arr


def test_while_loop_fills_an_array_and_stacks_it():
    main, fetches, arr = _loop_program(3)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    got = static.Executor().run(main, feed={"x": x}, fetch_list=fetches)
    steps = [x * 2 ** (k + 1) for k in range(3)]
    np.testing.assert_array_equal(got[0], [3])
    np.testing.assert_allclose(got[1], steps[-1])
    np.testing.assert_array_equal(got[2], [3])
    np.testing.assert_allclose(got[3], steps[1])
    np.testing.assert_allclose(got[4], np.stack(steps))
    np.testing.assert_array_equal(got[5], [1, 1, 1])
    np.testing.assert_allclose(got[6], np.concatenate(steps, axis=1))
    np.testing.assert_array_equal(got[7], [3, 3, 3])
    assert got[5].dtype == np.int32 and got[2].dtype == np.int64


def test_declared_shapes_and_the_while_op_carries_the_array():
    main, fetches, arr = _loop_program(2)
    assert arr.type == pd.framework.variable.VarType.LOD_TENSOR_ARRAY and arr.name == arr.name
    assert tuple(fetches[4].shape) == (-1, -1, 3)
    assert tuple(fetches[6].shape) == (-1, -1)
    assert tuple(fetches[2].shape) == (1,) and fetches[2].dtype == np.int64
    loop = [op for op in main.global_block().ops if op.type == "while"][0]
    assert arr.name in loop.input("X") and arr.name in loop.output("Out")


def test_the_array_written_in_step_scopes_lives_in_the_scope_that_declares_it():
    main, fetches, arr = _loop_program(2, reads=False)
    main.global_block().var(arr.name).persistable = True     # so the user's scope keeps it
    scope = pd.Scope()
    static.Executor().run(main, feed={"x": np.ones((1, 3), "float32")},
                          fetch_list=fetches[:1], scope=scope)
    held = scope.find_var(arr.name).get(LoDTensorArray)
    assert held.shapes() == [(1, 3), (1, 3)]
    np.testing.assert_allclose(held[1].numpy(), np.full((1, 3), 4.0))


def test_writing_past_the_end_grows_the_array():
    holder = LoDTensorArray()
    holder.write(2, np.ones(2, "float32"))
    assert len(holder) == 3 and holder.shapes() == [None, None, (2,)]


def test_zero_iterations_leave_an_empty_array():
    main, fetches, _ = _loop_program(0, reads=False)
    got = static.Executor().run(main, feed={"x": np.ones((1, 3), "float32")},
                                fetch_list=[fetches[2]])
    np.testing.assert_array_equal(got[0], [0])


def test_reading_past_the_end_is_a_clear_error():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        x = static.data("x", [2])
        arr = static.array_write(x, _int(0))
        out = static.array_read(arr, _int(4))
    with pytest.raises(OpRunError, match="index 4 of tensor array"):
        static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[out])


def test_bad_indices_are_refused_at_build_time():
    with static.program_guard(pd.Program(), pd.Program()):
        x = static.data("x", [2])
        arr = static.create_array("float32")
        with pytest.raises(TypeError, match="int64 Variable"):
            static.array_write(x, 0, arr)
        with pytest.raises(ShapeError, match="I must hold one element"):
            static.array_write(x, pd.layers.fill_constant([2], "int64", 0), arr)
        with pytest.raises(TypeError, match="not a tensor array"):
            static.array_write(x, _int(0), x)
        with pytest.raises(ShapeError, match="axis must be in"):
            static.array_write(x, _int(0), arr)
            static.tensor_array_to_tensor(arr, axis=3)


def test_create_array_with_initial_values():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        a = static.data("a", [2])
        b = static.data("b", [2])
        arr = static.create_array("float32", [a, b])
        n = static.array_length(arr)
        out, _ = static.tensor_array_to_tensor(arr, axis=0)
    feed = {"a": np.array([1, 2], "float32"), "b": np.array([3, 4], "float32")}
    got = static.Executor().run(main, feed=feed, fetch_list=[n, out])
    np.testing.assert_array_equal(got[0], [2])
    np.testing.assert_array_equal(got[1], [1, 2, 3, 4])


def test_while_loop_checks_its_functions():
    with static.program_guard(pd.Program(), pd.Program()):
        i = _int(0)
        with pytest.raises(OpBuildError, match="bool Variable of one element"):
            static.nn.while_loop(lambda i: i, lambda i: i, [i])
        with pytest.raises(OpBuildError, match="returns 2 values"):
            static.nn.while_loop(lambda i: pd.layers.less_than(i, _int(3)),
                                 lambda i: (i, i), [i])


def test_a_run_record_shows_the_array_with_its_elements():
    main, fetches, arr = _loop_program(2, reads=False)
    exe = static.Executor()
    records = []
    exe.subscribe(records.append)
    scope = pd.Scope()
    main.global_block().var(arr.name).persistable = True     # so the user's scope keeps it
    exe.run(main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=fetches[:1], scope=scope)
    shown = [v for s in records[0].scopes.walk() for v in s.vars if v.name == arr.name]
    assert shown and shown[0].holder == "LoDTensorArray of 2: [1, 3], [1, 3]"
    assert shown[0].nbytes == 24


def test_the_scope_tree_lists_an_arrays_elements():
    pytest.importorskip("IPython")
    from paddle_nb.viz.trees import scope_tree
    scope = pd.Scope(label="demo")
    array = scope.var("arr").set_value(LoDTensorArray())
    array.write(0, np.ones((2, 3), "float32"))
    array.write(2, np.ones((2, 3), "float32"))
    scope.var("none").set_value(LoDTensorArray())
    view = scope_tree(scope)
    assert str(view).splitlines()[1:] == [
        "  arr  allocated  holds LoDTensorArray of 3: [2, 3], empty, [2, 3]  48 B",
        "  none  created  holds LoDTensorArray of 0"]
    assert "LoDTensorArray of 3: [2, 3], empty, [2, 3]" in view.html


def _central(f, value, eps=1e-6):
    grad = np.zeros(value.shape)
    for idx in np.ndindex(value.shape):
        up, down = value.astype(np.float64), value.astype(np.float64)
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (f(up) - f(down)) / (2 * eps)
    return grad


def test_gradients_flow_back_through_an_array():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        a, b = static.data("a", [2, 3]), static.data("b", [2, 3])
        a.stop_gradient = b.stop_gradient = False
        arr = static.array_write(a * 2.0, _int(0))
        static.array_write(b, _int(1), arr)
        joined, _ = static.tensor_array_to_tensor(arr, axis=1)
        loss = pd.layers.mean(joined * joined)
        ga, gb = static.gradients([loss], [a, b])
        read = static.array_read(static.array_write(a * 3.0, _int(1)), _int(1))
        (ga_read,) = static.gradients([pd.layers.mean(read)], [a])
    feed = {"a": rng_array(2, 3), "b": rng_array(2, 3)}
    got = static.Executor().run(main, feed=feed, fetch_list=[ga, gb, ga_read])
    np.testing.assert_allclose(got[0], 8 * feed["a"] / 12, rtol=1e-5)     # mean of 2 x 6
    np.testing.assert_allclose(got[1], 2 * feed["b"] / 12, rtol=1e-5)
    np.testing.assert_allclose(got[2], np.full((2, 3), 3 / 6), rtol=1e-5)


def test_an_array_read_twice_on_the_way_to_the_loss_is_refused():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        a = static.data("a", [2])
        a.stop_gradient = False
        arr = static.array_write(a * 2.0, _int(0))
        joined, _ = static.tensor_array_to_tensor(arr, axis=0)
        loss = pd.layers.mean(joined) + pd.layers.mean(static.array_read(arr, _int(0)))
        (ga,) = static.gradients([loss], [a])
    with pytest.raises(OpRunError, match="cannot sum gradient arrays"):
        static.Executor().run(main, feed={"a": np.ones(2, "float32")}, fetch_list=[ga])


def test_gradients_through_an_array_a_loop_fills():
    main, startup = pd.Program(), pd.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3])
        x.stop_gradient = False
        w = static.create_parameter([3, 3], "float32",
                                    default_initializer=pd.initializer.Constant(0.3))
        arr = static.create_array("float32")

        def body(i, h):
            h2 = pd.layers.tanh(pd.layers.matmul(h, w))
            static.array_write(h2, i, arr)
            return i + 1, h2

        static.nn.while_loop(lambda i, h: pd.layers.less_than(i, _int(3)), body, [_int(0), x])
        stacked, _ = static.tensor_array_to_tensor(arr, axis=0, use_stack=True)
        loss = pd.layers.mean(stacked * stacked)
        gx, gw = static.gradients([loss], [x, w])
    scope, exe, xv = pd.Scope(), static.Executor(), rng_array(2, 3)
    exe.run(startup, scope=scope)
    got = exe.run(main, feed={"x": xv}, fetch_list=[gx, gw], scope=scope)

    def loss_of(x_value, w_value):
        h, steps = x_value, []
        for _ in range(3):
            h = np.tanh(h @ w_value)
            steps.append(h)
        return float((np.stack(steps) ** 2).mean())

    wv = np.full((3, 3), 0.3)
    np.testing.assert_allclose(got[0], _central(lambda v: loss_of(v, wv), xv), rtol=1e-4,
                               atol=1e-7)
    np.testing.assert_allclose(got[1], _central(lambda v: loss_of(xv, v), wv), rtol=1e-4,
                               atol=1e-7)


def test_a_gradient_of_an_array_read_inside_a_loop_is_refused():
    with static.program_guard(pd.Program(), pd.Program()):
        x = static.data("x", [2])
        x.stop_gradient = False
        arr = static.array_write(x * 1.0, _int(0))

        def body(i, h):
            return i + 1, h + static.array_read(arr, _int(0))

        _, h = static.nn.while_loop(lambda i, h: pd.layers.less_than(i, _int(2)), body,
                                    [_int(0), x])
        with pytest.raises(pd.errors.BackwardError, match="inside a loop or branch"):
            static.gradients([pd.layers.mean(h)], [x])


def rng_array(*shape):
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype("float32")


def test_an_array_as_a_loop_variable():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        x = static.data("x", [2])
        arr = static.create_array("float32")
        limit = _int(3)

        def body(i, arr):
            static.array_write(x * pd.layers.cast(i, "float32"), i, arr)
            return i + 1, arr

        _, arr_out = static.nn.while_loop(lambda i, a: pd.layers.less_than(i, limit), body,
                                          [_int(0), arr])
        stacked, _ = static.tensor_array_to_tensor(arr_out, axis=0, use_stack=True)
    got = static.Executor().run(main, feed={"x": np.array([1, 2], "float32")},
                                fetch_list=[stacked])
    np.testing.assert_allclose(got[0], [[0, 0], [1, 2], [2, 4]])
