"""Compile-time variables: views over their VarDesc, and arithmetic that appends ops.

The VarDesc is the one source of truth: editing it through ``var.desc`` is what
``var.shape`` reads. ``+ - * / @`` and unary ``-`` on Variables (with Python numbers on
either side) append ops whose results, run, match NumPy.
"""
import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()


# -- the VarDesc is the one source of truth --------------------------------------------------------
def test_shape_is_read_from_the_var_desc():
    var = pd.Program().global_block().create_var(name="a", shape=[-1, 3], dtype="float32")
    assert var.shape == (-1, 3)
    dims = var.desc.type.lod_tensor.tensor.dims
    del dims[:]
    dims.extend([5, 7, 2])
    assert var.shape == (5, 7, 2)


def test_setting_a_property_writes_the_var_desc():
    prog = pd.Program()
    var = prog.global_block().create_var(name="a", shape=[2], dtype="float32")
    var.shape = (4, 4)
    var.dtype = "int64"
    var.persistable = True
    var.stop_gradient = True
    var.lod_level = 1
    desc = prog.desc.blocks[0].vars[0]
    assert list(desc.type.lod_tensor.tensor.dims) == [4, 4]
    assert desc.type.lod_tensor.tensor.data_type == pd.framework.variable.VarType.INT64
    assert desc.persistable and desc.stop_gradient
    assert desc.type.lod_tensor.lod_level == 1
    assert var.dtype == np.dtype("int64") and var.lod_level == 1


def test_dtype_accepts_strings_and_numpy_types_and_reads_back_a_numpy_dtype():
    glob = pd.Program().global_block()
    a = glob.create_var(name="a", shape=[1], dtype="float64")
    b = glob.create_var(name="b", shape=[1], dtype=np.int32)
    c = glob.create_var(name="c", shape=[1], dtype=np.dtype("bool"))
    assert (a.dtype, b.dtype, c.dtype) == (np.dtype("float64"), np.dtype("int32"),
                                           np.dtype("bool"))
    assert isinstance(a.dtype, np.dtype)


def test_the_program_desc_holds_every_op_of_every_block():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.fc(x, 2, act="relu")
        with prog._block_guard():
            pd.layers.scale(y, 2.0)
            pd.layers.sigmoid(y)
    for block, block_desc in zip(prog.blocks, prog.desc.blocks):
        assert block.desc is block_desc or block.desc == block_desc
        assert [op.type for op in block.ops] == [d.type for d in block_desc.ops]
        assert [v.name for v in block.vars.values()] == [d.name for d in block_desc.vars]
        for op, op_desc in zip(block.ops, block_desc.ops):
            assert op.desc == op_desc
    assert sum(len(b.ops) for b in prog.desc.blocks) == 7


def test_an_op_edited_through_its_desc_is_edited_in_the_program_desc():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.relu(x)
    y.writer.desc.type = "tanh"
    assert prog.desc.blocks[0].ops[0].type == "tanh"
    assert prog.global_block().ops[0].type == "tanh"


def test_inserting_and_removing_ops_keeps_views_and_descs_in_step():
    prog = pd.Program()
    glob = prog.global_block()
    x = glob.create_var(name="x", shape=[2])
    relu = glob.append_op("relu", inputs={"X": x})
    sig = glob.append_op("sigmoid", inputs={"X": x})
    mid = glob.insert_op(1, "tanh", inputs={"X": x})
    first = glob.prepend_op("exp", inputs={"X": x})
    assert [op.type for op in glob.ops] == ["exp", "relu", "tanh", "sigmoid"]
    assert [d.type for d in prog.desc.blocks[0].ops] == ["exp", "relu", "tanh", "sigmoid"]
    assert [relu.type, sig.type, mid.type, first.type] == ["relu", "sigmoid", "tanh", "exp"]
    glob.remove_op(2)
    assert [d.type for d in prog.desc.blocks[0].ops] == ["exp", "relu", "sigmoid"]
    assert [op.type for op in glob.ops] == ["exp", "relu", "sigmoid"]
    assert relu.index() == 1 and sig.index() == 2
    assert "tanh_0.tmp_0" not in {n for op in glob.ops for n in op.output_arg_names}


def test_repr_shows_name_dtype_and_shape():
    glob = pd.Program().global_block()
    assert repr(glob.create_var(name="x", shape=[-1, 3])) == "Variable(x: float32[-1, 3])"
    p = glob.create_parameter(name="w", shape=[3, 2])
    assert repr(p) == "Parameter(w: float32[3, 2])"


def test_dtype_or_none_answers_none_where_paddle_nb_knows_no_dtype():
    """``dtype`` raises for a desc whose dtype paddle_nb cannot hold; ``dtype_or_none`` (what a
    message or a picture reads) answers None, and the repr and printout show '?'."""
    VT = pd.framework.variable.VarType
    prog = pd.Program()
    glob = prog.global_block()
    x = glob.create_var(name="x", shape=[2, 3], dtype="float64")
    bf16 = glob.create_var(name="bf16", shape=[2])
    bf16.desc.type.lod_tensor.tensor.data_type = VT.BF16
    untyped = glob.create_var(name="untyped", shape=[2])
    untyped.desc.type.lod_tensor.tensor.ClearField("data_type")
    scopes = glob.create_var(name="scopes", type=VT.STEP_SCOPES)
    assert x.dtype_or_none() == np.dtype("float64")
    assert [v.dtype_or_none() for v in (bf16, untyped, scopes)] == [None, None, None]
    for var in (bf16, untyped):
        with pytest.raises((TypeError, pd.errors.ProtoDecodeError)):
            var.dtype
        assert repr(var) == f"Variable({var.name}: ?[2])"
        assert f"{var.name} : ?[2]" in str(prog)


# -- arithmetic appends ops ------------------------------------------------------------------------
def _run(prog, feed, fetch):
    return pd.Executor(CPU).run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())


def _new_ops(prog, before):
    return [op.type for op in prog.global_block().ops[before:]]


X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], "float32")
Y = np.array([[2.0, 1.0, -1.0], [4.0, -2.0, 0.25]], "float32")


@pytest.mark.parametrize("label, build, ops, expect", [
    ("x + y", lambda x, y: x + y, ["elementwise_add"], lambda: X + Y),
    ("x - y", lambda x, y: x - y, ["elementwise_sub"], lambda: X - Y),
    ("x * y", lambda x, y: x * y, ["elementwise_mul"], lambda: X * Y),
    ("x / y", lambda x, y: x / y, ["elementwise_div"], lambda: X / Y),
    ("-x", lambda x, y: -x, ["scale"], lambda: -X),
    ("x + 2", lambda x, y: x + 2, ["scale"], lambda: X + 2),
    ("2 + x", lambda x, y: 2 + x, ["scale"], lambda: 2 + X),
    ("x - 2.5", lambda x, y: x - 2.5, ["scale"], lambda: X - 2.5),
    ("2.5 - x", lambda x, y: 2.5 - x, ["scale"], lambda: 2.5 - X),
    ("x * 3", lambda x, y: x * 3, ["scale"], lambda: X * 3),
    ("3 * x", lambda x, y: 3 * x, ["scale"], lambda: 3 * X),
    ("x / 4", lambda x, y: x / 4, ["scale"], lambda: X / 4),
    ("4 / x", lambda x, y: 4 / x, ["fill_constant_batch_size_like", "elementwise_div"],
     lambda: 4 / X),
    ("x * np.float32(2)", lambda x, y: x * np.float32(2), ["scale"], lambda: X * 2),
    ("(x + y) * x - y / 2", lambda x, y: (x + y) * x - y / 2,
     ["elementwise_add", "elementwise_mul", "scale", "elementwise_sub"],
     lambda: (X + Y) * X - Y / 2),
])
def test_arithmetic_appends_the_right_ops_and_computes_the_right_values(label, build, ops,
                                                                        expect):
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.data("y", shape=[3])
        out = build(x, y)
    assert isinstance(out, pd.Variable), label
    assert _new_ops(prog, 0) == ops, label
    assert out.writer is prog.global_block().ops[-1]
    assert out.shape == (-1, 3) and out.dtype == np.dtype("float32")
    got, = _run(prog, {"x": X, "y": Y}, [out])
    np.testing.assert_allclose(got, expect(), rtol=1e-6, err_msg=label)


def test_the_scale_attributes_of_number_arithmetic():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        cases = [(x + 2, 1.0, 2.0), (x - 2, 1.0, -2.0), (2 - x, -1.0, 2.0), (x * 3, 3.0, 0.0),
                 (x / 4, 0.25, 0.0), (-x, -1.0, 0.0)]
    for var, scale, bias in cases:
        assert var.writer.type == "scale"
        assert var.writer.input("X") == ["x"]
        assert (var.writer.attr("scale"), var.writer.attr("bias")) == (scale, bias)


def test_matmul_operator_appends_matmul_v2():
    prog = pd.Program()
    w_value = np.arange(12, dtype="float32").reshape(3, 4) / 10
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        w = prog.global_block().create_parameter(
            name="w", shape=[3, 4], initializer=pd.initializer.Constant(0.0))
        out = x @ w
    assert out.writer.type == "matmul_v2"
    assert out.writer.inputs == {"X": ["x"], "Y": ["w"]}
    assert out.shape == (-1, 4)
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    exe.run(prog, feed={"x": X}, scope=scope)            # initializes w in this scope
    scope.find_var("w").get_tensor().set(w_value, CPU)
    got, = exe.run(prog, feed={"x": X}, fetch_list=[out], scope=scope)
    np.testing.assert_allclose(got, X @ w_value, rtol=1e-6)


def test_arithmetic_broadcasts_like_numpy_and_infers_the_shape():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        b = pd.layers.data("b", shape=[3], append_batch_size=False)
        out = x * b + b
    assert out.shape == (-1, 3)
    bv = np.array([1.0, 10.0, 100.0], "float32")
    got, = _run(prog, {"x": X, "b": bv}, [out])
    np.testing.assert_allclose(got, X * bv + bv)


def test_arithmetic_with_unsupported_operands_is_a_type_error():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[3])
        with pytest.raises(TypeError):
            x + "two"
        with pytest.raises(TypeError):
            [1, 2] * x


def test_arithmetic_appends_to_the_current_block():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        with prog._block_guard() as sub:
            y = x * 2 + x
    assert y.block is sub
    assert [op.type for op in sub.ops] == ["scale", "elementwise_add"]
    assert prog.global_block().ops == []
