"""paddle.static's program vocabulary: data, program_guard, Executor, CompiledProgram,
InputSpec, global variables, parameters, accuracy, and the names that record nothing."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.errors import OpBuildError, ShapeError
from paddle_nb.framework import unique_name


def test_data_takes_the_whole_shape_and_stops_gradients():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        x = static.data("x", [None, 3])
        ids = static.data("ids", [-1, 2, 4], "int64")
        scalar = static.data("s", [])
    assert x.shape == (-1, 3) and x.dtype == np.float32 and x.stop_gradient
    assert ids.shape == (-1, 2, 4) and ids.dtype == np.int64 and scalar.shape == ()
    assert main.global_block().ops == []       # no feed op: the Executor feeds by name
    with static.program_guard(pd.Program(), pd.Program()), pytest.raises(ShapeError):
        static.data("bad", [2.5])


def test_program_guard_sends_initializers_to_the_default_startup_program():
    main, outer_startup = pd.Program(), pd.Program()
    # (an outer guard makes outer_startup "the default", so the process's stays untouched)
    with pd.program_guard(pd.Program(), outer_startup):
        with unique_name.guard(), static.program_guard(main):
            static.nn.fc(static.data("x", [None, 3]), 2)
    assert main.preamble_length() == 0
    assert [op.type for op in outer_startup.global_block().ops] == ["uniform_random",
                                                                    "fill_constant"]


def test_executor_runs_the_default_program_names_and_compiled_programs():
    main, startup = pd.Program(), pd.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2])
        y = x * 3.0
    exe = static.Executor(pd.CPUPlace())
    feed = {"x": np.ones((1, 2), "float32")}
    by_var = exe.run(main, feed, [y])
    by_name = exe.run(static.CompiledProgram(main, static.BuildStrategy()), feed=feed,
                      fetch_list=[y.name], return_numpy=True, scope=pd.Scope())
    np.testing.assert_array_equal(by_var[0], [[3, 3]])
    np.testing.assert_array_equal(by_name[0], [[3, 3]])
    with pd.program_guard(main):
        got = exe.run(feed=feed, fetch_list=[y], use_program_cache=True)
    np.testing.assert_array_equal(got[0], [[3, 3]])
    compiled = static.CompiledProgram(main).with_data_parallel(loss_name=y.name)
    assert compiled.program is main and exe.close() is None
    with pytest.raises(TypeError, match="expected a Program"):
        static.CompiledProgram("main")


def test_strategies_are_plain_settings():
    build, execution = static.BuildStrategy(), static.ExecutionStrategy()
    build.fuse_elewise_add_act_ops = True
    execution.num_threads = 4
    assert build.fuse_elewise_add_act_ops and execution.num_threads == 4
    assert "num_threads=4" in repr(execution)


def test_input_spec():
    spec = static.InputSpec([None, 784], "float32", "x")
    assert spec.shape == (-1, 784) and spec.dtype == np.float32 and spec.name == "x"
    assert repr(spec) == "InputSpec(shape=(-1, 784), dtype=float32, name=x, stop_gradient=False)"
    assert spec.batch(8).shape == (8, -1, 784) and spec.unbatch().shape == (784,)
    with static.program_guard(pd.Program(), pd.Program()):
        var = static.data("img", [None, 3, 4], "float64")
        assert static.InputSpec.from_tensor(var) == static.InputSpec([-1, 3, 4], "float64", "img")
        assert spec.data().shape == (-1, 784)
    assert static.InputSpec.from_numpy(np.zeros((2, 3), "int64"), "a").shape == (2, 3)


def test_global_vars_and_parameters_named_as_paddle():
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        w = static.create_parameter([2, 3], "float32")
        b = static.create_parameter([3], "float32", is_bias=True)
        named = static.create_parameter([3], "float32", name="myp")
        g = static.create_global_var([2], 1.5, "float32", persistable=True)
        gg = static.create_global_var([2], 2.0, "float32", name="gg")
        after = static.create_parameter([2], "float32")
    assert [w.name, b.name, named.name, g.name, gg.name, after.name] == [
        "create_parameter_0.w_0", "create_parameter_1.b_0", "myp", "_generated_var_0", "gg",
        "create_parameter_2.w_0"]
    assert g.persistable and not gg.persistable and g.stop_gradient
    assert [op.type for op in startup.global_block().ops] == [
        "uniform_random", "fill_constant", "uniform_random", "fill_constant", "fill_constant",
        "uniform_random"]
    exe = static.Executor()
    scope = pd.Scope()
    exe.run(startup, scope=scope)
    np.testing.assert_array_equal(scope.find_var("gg").get_tensor().numpy(), [2.0, 2.0])


def test_accuracy_appends_top_k_v2_and_accuracy():
    main = pd.Program()
    with unique_name.guard(), static.program_guard(main, pd.Program()):
        pred = static.data("p", [-1, 3])
        label = static.data("l", [-1, 1], "int64")
        acc = static.accuracy(pred, label, k=1)
    assert [op.type for op in main.global_block().ops] == ["top_k_v2", "accuracy"]
    assert acc.name == "accuracy_0.tmp_2"
    feed = {"p": np.array([[0.1, 0.8, 0.1], [0.9, 0.05, 0.05]], "float32"),
            "l": np.array([[1], [2]], "int64")}
    got = static.Executor().run(main, feed=feed, fetch_list=[acc])
    np.testing.assert_allclose(got[0], 0.5)


def test_scopes_places_and_guards_that_record_nothing():
    scope = pd.Scope()
    with static.scope_guard(scope):
        assert static.global_scope() is scope
    main = pd.Program()
    with static.program_guard(main, pd.Program()), static.name_scope("block"), \
            static.device_guard("gpu:0"):
        static.data("x", [2])
    assert static.cpu_places() == [pd.CPUPlace()] and len(static.cpu_places(3)) == 3
    with pytest.raises(ValueError, match="device_guard"):
        with static.device_guard("tpu"):
            pass


def test_py_func_wants_a_function_and_sequence_layers_say_what_to_use():
    with pytest.raises(OpBuildError, match="py_func: expected a callable"):
        static.py_func("not a function", None, None)
    with pytest.raises(OpBuildError, match="sequence_pool is not available"):
        static.nn.sequence_pool(None, "sum")
    with pytest.raises(OpBuildError, match="WeightNormParamAttr is not available"):
        static.WeightNormParamAttr(dim=0)


def test_gradients_and_append_backward_with_2x_signatures():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        x = static.data("x", [2])
        x.stop_gradient = False
        y = pd.layers.mean(x * x)
        (gx,) = static.gradients([y], [x])
    got = static.Executor().run(main, feed={"x": np.array([1, 2], "float32")}, fetch_list=[gx])
    np.testing.assert_allclose(got[0], [1, 2])
    with static.program_guard(pd.Program(), pd.Program()):
        w = static.create_parameter([2], "float32")
        pairs = static.append_backward(pd.layers.mean(w * w))
        assert [p.name for p, _ in pairs] == [w.name]
        with pytest.raises(pd.errors.BackwardError, match="checkpoints is not available"):
            static.append_backward(pd.layers.mean(w), checkpoints=[w])


def test_print_shows_the_value_and_its_gradient(capsys):
    main = pd.Program()
    with unique_name.guard(), static.program_guard(main, pd.Program()):
        x = static.data("x", [3])
        x.stop_gradient = False
        shown = static.Print(x, message="look", summarize=2)
        loss = pd.layers.mean(shown * 2.0)
        (gx,) = static.gradients([loss], [x])
    assert shown.name == "print_0.tmp_0"
    got = static.Executor().run(main, feed={"x": np.array([1, 2, 3], "float32")},
                                fetch_list=[shown, gx])
    np.testing.assert_array_equal(got[0], [1, 2, 3])
    np.testing.assert_allclose(got[1], [2 / 3] * 3, rtol=1e-6)
    printed = capsys.readouterr().out
    assert "look\nVariable: x\n" in printed and "  - data: 1.0 2.0\n" in printed
    assert "  - shape: [3]" in printed and printed.count("Variable:") == 2   # value and grad
    with static.program_guard(pd.Program(), pd.Program()), \
            pytest.raises(pd.errors.AttrError, match="print_phase"):
        static.Print(static.data("y", [1]), print_phase="sometimes")
