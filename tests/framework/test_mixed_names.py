"""One program built with both the Fluid-1.8 layers and the 2.x API never gives two
variables one name.

The 1.8 layers count names per program, the 2.x API draws from PaddlePaddle 2.x's
process-wide generator; each skips what the other gave in the program (framework/names.py).
Each mix is built in both orders: every op writes its own variable, the parameters are
distinct, and the run computes what each layer alone computes (NumPy, from the parameters
the run drew). PaddlePaddle 2.6 has no 1.8 layers; interop/check_names_mix.py shows that its
own families (static.nn, nn, tensor functions) never share a name either.
"""
import numpy as np
import pytest

import paddle_nb as pd
import paddle_nb as paddle
import paddle_nb.nn.functional as F
from paddle_nb.framework import unique_name

CPU = pd.CPUPlace()
RNG = np.random.default_rng(7)


def build(shape, steps):
    """A program whose data ``x`` (``shape``) goes through each step; its outputs."""
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=shape, append_batch_size=False)
        outs = [step(x) for step in steps]
    return main, startup, outs


def assert_distinct(main, outs, n_params):
    """No variable is written by two ops, the outputs and the parameters are all distinct."""
    for block in main.blocks:
        written = [n for op in block.ops for n in op.output_arg_names]
        assert len(written) == len(set(written)), sorted(written)
    assert len({o.name for o in outs}) == len(outs)
    assert len({p.name for p in main.all_parameters()}) == n_params


def run(main, startup, outs, x):
    """The outputs' and the parameters' values after one run on ``x``."""
    exe = pd.Executor(CPU)
    exe.run(startup)
    params = main.all_parameters()
    got = exe.run(main, feed={"x": x}, fetch_list=list(outs) + params)
    return got[:len(outs)], got[len(outs):]


FC_18 = lambda x: pd.layers.fc(x, 3)                          # noqa: E731
FC_2X = lambda x: paddle.static.nn.fc(x, 3)                   # noqa: E731


@pytest.mark.parametrize("steps", [[FC_18, FC_2X], [FC_2X, FC_18], [FC_18, FC_2X, FC_18]])
def test_fc_of_both_apis_makes_its_own_parameters(steps):
    main, startup, outs = build([2, 4], steps)
    assert_distinct(main, outs, 2 * len(steps))
    x = RNG.standard_normal((2, 4)).astype("float32")
    got, params = run(main, startup, outs, x)
    for k, out in enumerate(got):
        w, b = params[2 * k], params[2 * k + 1]
        np.testing.assert_allclose(out, x @ w + b, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(params[0], params[2])          # two draws, not one shared weight


def test_fill_constant_then_full_keep_their_values_and_dtypes():
    steps = [(lambda x: pd.layers.fill_constant([2], "float32", 1.0), "float32", 1.0),
             (lambda x: pd.layers.fill_constant([2], "float32", 2.0), "float32", 2.0),
             (lambda x: paddle.full([2], 3, "int64"), "int64", 3)]
    for order in (steps, steps[::-1]):
        main, startup, outs = build([2], [step for step, _, _ in order])
        assert_distinct(main, outs, 0)
        got, _ = run(main, startup, outs, np.zeros(2, "float32"))
        for out, (_, dtype, value) in zip(got, order):
            assert out.dtype == dtype
            np.testing.assert_array_equal(out, np.full(2, value, dtype))


@pytest.mark.parametrize("first", ["1.8", "2.x"])
def test_relu_of_both_apis(first):
    relus = [lambda x: pd.layers.relu(x), lambda x: F.relu(x), lambda x: paddle.nn.ReLU()(x)]
    main, startup, outs = build([2, 3], relus if first == "1.8" else relus[::-1])
    assert_distinct(main, outs, 0)
    x = RNG.standard_normal((2, 3)).astype("float32")
    got, _ = run(main, startup, outs, x)
    for out in got:
        np.testing.assert_array_equal(out, np.maximum(x, 0))


@pytest.mark.parametrize("first", ["1.8", "2.x"])
def test_conv2d_of_both_apis(first):
    convs = [lambda x: pd.layers.conv2d(x, num_filters=2, filter_size=1),
             lambda x: paddle.nn.Conv2D(3, 2, 1)(x)]
    main, startup, outs = build([1, 3, 2, 2], convs if first == "1.8" else convs[::-1])
    assert_distinct(main, outs, 4)
    x = RNG.standard_normal((1, 3, 2, 2)).astype("float32")
    got, params = run(main, startup, outs, x)
    for k, out in enumerate(got):
        w, b = params[2 * k], params[2 * k + 1]
        expect = np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0]) + b[None, :, None, None]
        np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-6)


def test_a_parameter_named_twice_is_still_shared():
    """``ParamAttr(name=...)`` shares a weight across layers, whichever API made them."""
    steps = [lambda x: pd.layers.fc(x, 3, param_attr=pd.ParamAttr(name="shared_w")),
             lambda x: paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(name="shared_w"))]
    main, startup, outs = build([2, 4], steps)
    assert [p.name for p in main.all_parameters()].count("shared_w") == 1
    assert len(main.all_parameters()) == 3                   # one weight, two biases


def test_pure_programs_keep_their_names():
    """A program of one API only gets the names that API alone gives."""
    main, _, outs = build([2, 4], [FC_18, FC_18])
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0",
                                                       "fc_1.w_0", "fc_1.b_0"]
    main, _, outs = build([2, 4], [FC_2X, lambda x: paddle.nn.Linear(4, 3)(x)])
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0",
                                                       "linear_0.w_0", "linear_0.b_0"]
    assert [o.name for o in outs] == ["fc_0.tmp_1", "linear_1.tmp_1"]   # as PaddlePaddle 2.6.2


def test_a_clone_remembers_both_apis_names():
    main, startup, outs = build([2, 4], [FC_2X])
    other = main.clone()
    with unique_name.guard(), pd.program_guard(other, startup):
        more = FC_18(other.global_block().var("x"))
    assert more.name.split(".")[0] != outs[0].name.split(".")[0]
    assert len({p.name for p in other.all_parameters()}) == 4


@pytest.mark.parametrize("more", [FC_18, FC_2X], ids=["1.8", "2.x"])
def test_a_parsed_program_extended_keeps_its_names_apart(more):
    """A program parsed from bytes holds names no counter gave here: new layers pass over them."""
    main, _, outs = build([2, 4], [FC_18])
    parsed = pd.Program.parse(main.serialize())
    with unique_name.guard(), pd.program_guard(parsed, pd.Program()):
        out = more(parsed.global_block().var("x"))
    assert out.name != outs[0].name
    assert [p.name for p in parsed.all_parameters()] == ["fc_0.w_0", "fc_0.b_0",
                                                         "fc_1.w_0", "fc_1.b_0"]


def test_operators_and_unnamed_variables_share_no_name():
    """``x + 1.0`` names its result from the 2.x generator, ``create_var()`` from the
    program's counter: both ``tmp_N``, never the same one."""
    main = pd.Program()
    with unique_name.guard(), pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[2], append_batch_size=False)
        block = main.global_block()
        names = [block.create_var().name, (x + 1.0).name, block.create_var().name,
                 (x * 2.0).name, block.create_var().name]
    assert len(set(names)) == len(names), names
