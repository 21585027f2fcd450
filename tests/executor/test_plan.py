"""A parsed program whose op fills an input slot paddle_nb's op lacks is refused, not run."""

import numpy as np
import pytest

import paddle_nb as pd


def test_an_undeclared_filled_input_slot_is_refused_before_anything_runs():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[4])
        y = pd.layers.concat([x, x], axis=1)
    axis = prog.global_block().create_var(name="axis_tensor", shape=[1], dtype="int32")
    desc = prog.global_block().ops[0].desc
    desc.inputs.add(parameter="AxisTensor", arguments=[axis.name])   # as PaddlePaddle can
    loaded = pd.Program.parse(prog.serialize())
    scope = pd.Scope()
    with pytest.raises(pd.errors.OpBuildError, match="fills input slot 'AxisTensor'"):
        pd.Executor().run(loaded, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y.name],
                          scope=scope)
    assert scope.local_var_names() == [] and scope.kids == []


def test_an_empty_undeclared_slot_is_fine():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[4])
        y = pd.layers.concat([x, x], axis=1)
    prog.global_block().ops[0].desc.inputs.add(parameter="AxisTensor")
    out, = pd.Executor().run(pd.Program.parse(prog.serialize()),
                             feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y.name],
                             scope=pd.Scope())
    assert out.shape == (2, 8)


def test_a_saved_models_feed_and_fetch_ops_do_not_keep_every_temporary_alive(tmp_path):
    """feed and fetch are raw ops (they reach the scope), but they touch only their slots: a
    model loaded from a file, which has them around its ops, still releases each temporary
    after its last use, as the same program without them does."""
    from paddle_nb.executor.plan import BlockPlan
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[4])
        y = x
        for _ in range(4):
            y = pd.layers.relu(pd.layers.scale(y, 2.0))
    exe = pd.Executor(pd.CPUPlace())
    pd.io.save_inference_model(str(tmp_path / "m"), ["x"], [y], exe, main_program=prog)
    loaded, feeds, fetches = pd.io.load_inference_model(str(tmp_path / "m"), exe)
    plan = BlockPlan(loaded, 0)
    plan.plan_releases(set())
    released = {plan.names[pos] for step in plan.steps for pos in step.release}
    assert {"feed", "fetch"} <= {step.op.type for step in plan.steps}
    assert len(released) >= 6           # the intermediate scale/relu outputs
    x_value = np.arange(8, dtype="float32").reshape(2, 4) - 3
    got, = exe.run(loaded, feed={"x": x_value}, fetch_list=fetches)
    np.testing.assert_allclose(got, np.maximum(x_value * 16, 0))
