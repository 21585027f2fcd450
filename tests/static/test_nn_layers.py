"""paddle.static.nn's parametric layers against NumPy: their parameter names and shapes
(PaddlePaddle 2.6's, checked against 2.6.2 by the API sweep's cases), their values with set
parameters, and their clear refusals."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.errors import OpBuildError
from paddle_nb.framework import unique_name

RNG = np.random.default_rng(0)


def _run(build, feeds, params=None):
    """Build ``build(*data)`` in a fresh program, set ``params`` (name -> array) after the
    startup program, and return (output, {parameter name: shape})."""
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        data = [static.data(name, list(value.shape), str(value.dtype))
                for name, value in feeds.items()]
        out = build(*data)
    exe, scope = static.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for name, value in (params or {}).items():
        scope.var(name).get_tensor().set(value)
    got = exe.run(main, feed=feeds, fetch_list=[out], scope=scope)[0]
    shapes = {p.name: tuple(p.shape) for p in main.global_block().all_parameters()}
    return got, shapes


def test_layer_norm_normalizes_the_trailing_dimensions():
    x = RNG.standard_normal((2, 3, 4)).astype("float32")
    got, shapes = _run(lambda v: static.nn.layer_norm(v, begin_norm_axis=2), {"x": x})
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-5)
    assert shapes == {"layer_norm_0.w_0": (4,), "layer_norm_0.b_0": (4,)}


def test_group_and_instance_norm_make_parameters_only_when_asked():
    x = RNG.standard_normal((2, 4, 3, 3)).astype("float32")
    got, shapes = _run(lambda v: static.nn.group_norm(v, 2), {"x": x})
    groups = x.reshape(2, 2, -1)
    ref = (groups - groups.mean(-1, keepdims=True)) / np.sqrt(groups.var(-1, keepdims=True)
                                                              + 1e-5)
    np.testing.assert_allclose(got, ref.reshape(x.shape), rtol=1e-4, atol=1e-5)
    assert shapes == {}
    _, shapes = _run(lambda v: static.nn.instance_norm(v, param_attr="s", bias_attr="b"),
                     {"x": x})
    assert shapes == {"s": (4,), "b": (4,)}


def test_prelu_alpha_shapes_and_values():
    x = RNG.standard_normal((2, 3, 2, 2)).astype("float32")
    alpha = np.array([0.1, 0.2, 0.3], "float32").reshape(1, 3, 1, 1)
    got, shapes = _run(lambda v: static.nn.prelu(v, "channel"), {"x": x},
                       {"prelu_0.w_0": alpha})
    np.testing.assert_allclose(got, np.where(x > 0, x, alpha * x), rtol=1e-6)
    assert shapes == {"prelu_0.w_0": (1, 3, 1, 1)}
    with static.program_guard(pd.Program(), pd.Program()), pytest.raises(OpBuildError,
                                                                         match="mode"):
        static.nn.prelu(static.data("x", [2, 3]), "row")


def test_bilinear_tensor_product_and_conv3d_against_numpy():
    x, y = (RNG.standard_normal(s).astype("float32") for s in ((2, 3), (2, 2)))
    w = RNG.standard_normal((4, 3, 2)).astype("float32")
    got, shapes = _run(lambda a, b: static.nn.bilinear_tensor_product(a, b, 4),
                       {"x": x, "y": y}, {"bilinear_tensor_product_0.w_0": w})
    np.testing.assert_allclose(got, np.einsum("bi,kij,bj->bk", x, w, y), rtol=1e-5)
    assert shapes["bilinear_tensor_product_0.b_0"] == (1, 4)
    vol = RNG.standard_normal((1, 2, 2, 2, 2)).astype("float32")
    f = RNG.standard_normal((3, 2, 2, 2, 2)).astype("float32")
    got, shapes = _run(lambda v: static.nn.conv3d(v, 3, 2), {"x": vol}, {"conv3d_0.w_0": f})
    np.testing.assert_allclose(got.reshape(3), np.einsum("cdhw,ocdhw->o", vol[0], f),
                               rtol=1e-5)
    assert shapes == {"conv3d_0.w_0": (3, 2, 2, 2, 2), "conv3d_0.b_0": (3,)}


def test_conv_transposes_take_their_filter_from_output_size():
    x = RNG.standard_normal((1, 2, 3, 3)).astype("float32")
    got, shapes = _run(lambda v: static.nn.conv2d_transpose(v, 4, output_size=[5, 5]),
                       {"x": x})
    assert got.shape == (1, 4, 5, 5) and shapes["conv2d_transpose_0.w_0"] == (2, 4, 3, 3)
    vol = RNG.standard_normal((1, 2, 2, 2, 2)).astype("float32")
    got, shapes = _run(lambda v: static.nn.conv3d_transpose(v, 2, filter_size=2, stride=2),
                       {"x": vol})
    assert got.shape == (1, 2, 4, 4, 4) and shapes["conv3d_transpose_0.w_0"] == (2, 2, 2, 2, 2)
    with static.program_guard(pd.Program(), pd.Program()), pytest.raises(OpBuildError,
                                                                         match="filter_size"):
        static.nn.conv2d_transpose(static.data("x", [1, 2, 3, 3]), 2)


def test_sparse_embedding_reads_rows_and_the_unavailable_layers_say_why():
    ids = np.array([[1], [3]], "int64")
    table = RNG.standard_normal((5, 4)).astype("float32")
    got, shapes = _run(lambda i: static.nn.sparse_embedding(i, [5, 4]), {"i": ids},
                       {"sparse_embedding_0.w_0": table})
    np.testing.assert_array_equal(got, table[[1, 3]])
    assert shapes == {"sparse_embedding_0.w_0": (5, 4)}
    for name in ("nce", "static_pylayer"):
        with pytest.raises(OpBuildError, match=f"{name} is not available"):
            getattr(static.nn, name)(None)


COVERED = ["paddle.static.nn.sparse_embedding"]


def test_sparse_embedding_writes_paddles_lookup_table():
    """2.6.2's executor refuses the program sparse_embedding writes (its table is a
    SelectedRows), so the op, its attributes and the parameter are compared with the
    program 2.6.2 wrote (interop/api/static_names_refs.py); the values with NumPy above."""
    import pathlib
    fixture = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api" / \
        "static_names.npz"
    theirs = pd.Program.parse(np.load(fixture)["sparse_embedding/program"].tobytes())
    main = pd.Program()
    with unique_name.guard(), static.program_guard(main, pd.Program()):
        static.nn.sparse_embedding(static.data("i", [3, 1], "int64"), [5, 4], padding_idx=-2)
    (mine,), (their,) = main.global_block().ops, theirs.global_block().ops
    assert (mine.type, mine.inputs, mine.outputs) == (their.type, their.inputs, their.outputs)
    for name, value in their.attrs.items():
        if not name.startswith("op_") and name != "with_quant_attr":
            assert mine.attr(name) == value, name
    assert [p.name for p in main.global_block().all_parameters()] == ["sparse_embedding_0.w_0"]
    assert main.global_block().var("sparse_embedding_0.tmp_0").shape == (3, 4)


def test_data_norm_gives_this_batchs_totals_as_their_gradients():
    """The totals' "gradients" are the batch's own totals (row count, column sums, squared
    deviations from the running means plus epsilon per row), as 2.6.2's data_norm_grad gives
    them (checked by hand against 2.6.2 once: sum, 4 rows, sq + 4e-5); X's is Y@GRAD * scales
    (the API sweep compares Y and X@GRAD with 2.6.2)."""
    x = RNG.uniform(0, 1, (4, 3)).astype("float32")
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        xv = static.data("x", [4, 3])
        y = static.nn.data_norm(xv, param_attr={"batch_size": 5.0, "batch_sum": 1.0,
                                                "batch_square": 4.0})
        params = main.global_block().all_parameters()
        grads = static.gradients([pd.sum(y)], params)
    assert [p.name for p in params] == ["dn.batch_size", "dn.batch_sum", "dn.batch_square_sum"]
    exe, scope = static.Executor(), pd.Scope()
    exe.run(startup, scope=scope)
    got = exe.run(main, feed={"x": x}, fetch_list=[y, *grads], scope=scope)
    np.testing.assert_allclose(got[0], (x - 0.2) * np.sqrt(5 / 4), rtol=1e-5)
    np.testing.assert_allclose(got[1], [4, 4, 4])
    np.testing.assert_allclose(got[2], x.sum(0), rtol=1e-5)
    np.testing.assert_allclose(got[3], ((x - 0.2) ** 2).sum(0) + 4e-5, rtol=1e-5)
    np.testing.assert_allclose(scope.find_var("dn.batch_size").get_tensor().numpy(), [5, 5, 5])
