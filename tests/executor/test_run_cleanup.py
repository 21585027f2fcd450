"""A run's end: listeners cannot change it, and views of the executor stay consistent."""

import sys
import warnings

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import OpRunError

CPU = pd.CPUPlace()


def _failing_program():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3], dtype="float32")
        y = pd.layers.fc(x, 2)
        z = pd.layers.elementwise_add(y, pd.layers.data("b", shape=[2], dtype="float32"))
    return prog, startup, z


def test_a_listener_raising_on_a_failed_run_leaves_the_ops_error_and_nothing_behind():
    prog, startup, z = _failing_program()
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    exe.run(startup, scope=scope)
    weight = scope.find_var("fc_0.w_0").get_tensor().array()
    heard = []

    def listener(record):
        heard.append(record.failed)
        raise RuntimeError("listener bug")

    exe.subscribe(listener)
    feed = {"x": np.ones((2, 3), "float32"), "b": np.ones((3, 2), "float32")}
    with pytest.warns(RuntimeWarning, match="listener bug"):
        with pytest.raises(OpRunError, match="elementwise_add") as info:
            exe.run(prog, feed=feed, fetch_list=[z], scope=scope)
    assert heard == [True]
    assert not isinstance(info.value.__context__, RuntimeError)
    assert scope.kids == []
    assert exe.run_state is None
    assert scope.find_var("fc_0.w_0").get_tensor().array() is weight


def test_a_listener_raising_after_a_good_run_leaves_its_results():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3], dtype="float32")
        y = pd.layers.relu(x)
    exe = pd.Executor(CPU)
    exe.subscribe(lambda record: 1 / 0)
    scope = pd.Scope()
    with pytest.warns(RuntimeWarning, match="ZeroDivisionError"):
        out, = exe.run(prog, feed={"x": -np.ones((1, 3), "float32")}, fetch_list=[y],
                       scope=scope)
    assert np.array_equal(out, np.zeros((1, 3), "float32"))
    assert scope.kids == [] and exe.run_state is None


def test_cached_plans_while_plans_are_added_is_a_snapshot():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2], dtype="float32")
        outs = [pd.layers.scale(x, float(k)) for k in range(10)]
    exe = pd.Executor(CPU)
    feed = {"x": np.ones((1, 2), "float32")}
    exe.run(prog, feed=feed, fetch_list=[outs[0]])
    added = []

    def tracer(frame, event, arg):
        # another thread's run adds a plan while cached_plans reads them (made certain here
        # by adding it from inside cached_plans, on its first line events)
        if "cached_plans" in (frame.f_code.co_name, frame.f_back.f_code.co_name):
            def local(frame, event, arg):
                if event == "line" and len(added) < 8:
                    added.append(exe.run(prog, feed=feed, fetch_list=[outs[len(added) + 1]]))
                return local
            return local
        return None

    sys.settrace(tracer)
    try:
        plans = exe.cached_plans()
    finally:
        sys.settrace(None)
    assert added and len(plans) >= 1
    assert len(exe.cached_plans()) == 1 + len(added)


def test_a_listener_does_not_warn_when_it_returns():
    exe = pd.Executor(CPU)
    exe.subscribe(lambda record: None)
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2], dtype="float32")
        y = pd.layers.relu(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exe.run(prog, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y], scope=pd.Scope())
