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
