"""The interpreter's override points: a subclass watches or changes a run, no other path.

executor/interpreter.py defines running an op once: ``Interpreter.run_op`` reads the
inputs, calls the kernel, checks and writes the results. Its subclasses change where
values live (cells of a scope) or add what happens around each op (a recorder); these
tests use the override points the way a profiler or a debugger would.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.executor.interpreter import Interpreter, ScopeInterpreter

CPU = pd.CPUPlace()


def _program():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.scale(pd.layers.relu(x), 2.0)
    return prog, y


class Tracing(Interpreter):
    """An interpreter that notes each op it runs (and turns the compiled form off)."""

    compiles = False

    def __init__(self, plan, executor, seen):
        super().__init__(plan, executor)
        self.seen = seen

    def run_op(self, k, step, env, scope):
        self.seen.append((step.op.type, [None if i < 0 else env[i].shape for i in step.ins]))
        return super().run_op(k, step, env, scope)


def test_a_subclass_overriding_run_op_sees_every_op_with_its_inputs():
    prog, y = _program()
    exe, seen = pd.Executor(CPU), []
    feed = {"x": -np.ones((2, 3), "float32")}
    exe.run(prog, feed=feed, fetch_list=[y])
    plan, = exe._plans.values()
    plan.interpreter = Tracing(plan, exe, seen)
    out, = exe.run(prog, feed=feed, fetch_list=[y])
    assert seen == [("relu", [(2, 3)]), ("scale", [(2, 3), None])]   # (no ScaleTensor)
    np.testing.assert_array_equal(out, np.zeros((2, 3), "float32"))


def test_the_compiled_form_is_the_plain_loop_cached():
    prog, y = _program()
    exe = pd.Executor(CPU)
    feed = {"x": np.arange(6, dtype="float32").reshape(2, 3) - 3}
    first, = exe.run(prog, feed=feed, fetch_list=[y])
    plan, = exe._plans.values()
    assert plan.verified and plan.interpreter.compiled is None       # the loop ran, checking
    second, = exe.run(prog, feed=feed, fetch_list=[y])
    assert plan.interpreter.compiled is not None                       # then its cached form
    np.testing.assert_array_equal(first, second)
    env = [None] * len(plan.names)
    env[plan.position("x")] = feed["x"]
    assert plan.interpreter.interpret(list(env)) == plan.interpreter.compiled(list(env))


def test_the_scope_interpreter_runs_the_same_ops_on_tensors():
    prog, y = _program()
    exe = pd.Executor(CPU)
    feed = {"x": np.array([[-1.0, 0.5, 2.0]], "float32")}
    want, = exe.run(prog, feed=feed, fetch_list=[y])
    plan, = exe._plans.values()
    scope = pd.Scope()
    scope.var("x").get_tensor().set(feed["x"], CPU)
    cells = [scope.var(name).get_tensor() for name in plan.names]
    ScopeInterpreter(plan, exe, plan.interpreter.kernels).run(cells, scope)
    np.testing.assert_array_equal(scope.find_var(y.name).get_tensor().numpy(), want)


def test_an_interpreter_refuses_a_control_flow_op_on_arrays():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[1])
        out = pd.layers.cond(pd.layers.reduce_sum(x) > 0, lambda: x * 2, lambda: x)
    exe = pd.Executor(CPU)
    exe.run(prog, feed={"x": np.ones((1, 1), "float32")}, fetch_list=[out])
    plan = next(p for p in exe._plans.values() if p.block.idx == 0)
    env = [None] * len(plan.names)
    env[plan.position("x")] = np.ones((1, 1), "float32")
    with pytest.raises(pd.errors.OpRunError, match="reads the scope"):
        Interpreter(plan, exe).interpret(env)
