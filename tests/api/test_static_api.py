"""2.x static scripts built with paddle_nb's ``paddle.static`` against PaddlePaddle 2.6.2.

interop/api/static_api_refs.py ran each script in PaddlePaddle and stored its programs,
parameters, feeds and fetches (tests/fixtures/paddle26/api/static_api.npz). Here each script
is rebuilt with paddle_nb's names (the few tensor functions not in paddle.static are written
with their pd.layers equivalents, which append the same op types) and must give the same op
types block by block, the same names for what paddle.static names, and the same values; the
program PaddlePaddle wrote must run here to the same values too.
"""

import pathlib
import re

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.framework import unique_name
from paddle_nb.static import mode


# the public names these tests compare with PaddlePaddle 2.6.2 (tools/api_coverage.py counts them)
COVERED = [
    "paddle.static.Program",
    "paddle.static.program_guard",
    "paddle.static.data",
    "paddle.static.Executor",
    "paddle.static.default_main_program",
    "paddle.static.Print",
    "paddle.static.accuracy",
    "paddle.static.auc",
    "paddle.static.create_global_var",
    "paddle.static.create_parameter",
    "paddle.static.gradients",
    "paddle.static.save_inference_model",
    "paddle.static.load_inference_model",
    "paddle.static.nn.fc",
    "paddle.static.nn.batch_norm",
    "paddle.static.nn.embedding",
    "paddle.static.nn.cond",
    "paddle.static.nn.case",
    "paddle.static.nn.switch_case",
    "paddle.static.nn.while_loop",
    "paddle.create_parameter",
    "paddle.full",
    "paddle.less_than",
    "paddle.mean",
]

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "paddle26" / "api"
REFS = np.load(FIXTURES / "static_api.npz")
OWN = r"(fc|conv2d|batch_norm|embedding|array|array_length|array_read|tensor_array_to_tensor" \
      r"|_generated_var|logical_not|cast|equal|select_input|create_parameter|print|accuracy" \
      r"|auc)_\d+"


def _full(value, dtype="int64"):
    return pd.layers.fill_constant([1], dtype, value)


def layers_script():
    x = static.data("x", [None, 3, 5, 5], "float32")
    ids = static.data("ids", [None, 2], "int64")
    c = static.nn.conv2d(x, 2, 3, padding=1, act="relu")
    b = static.nn.batch_norm(c, is_test=True)
    f = static.nn.fc(b, 4, num_flatten_dims=1, activation="tanh")
    e = static.nn.embedding(ids, [10, 4])
    return [c, b, f, e]


def while_script(batch=None):
    x = static.data("x", [batch, 3], "float32")
    y = static.nn.fc(x, 3)
    i, n = _full(0), _full(3)
    arr = static.create_array("float32")

    def body(i, y):
        y2 = y * 2.0
        static.array_write(y2, i, arr)
        return i + 1, y2

    i_out, y_out = static.nn.while_loop(lambda i, y: pd.layers.less_than(i, n), body, [i, y])
    length = static.array_length(arr)
    second = static.array_read(arr, _full(1))
    stacked, _ = static.tensor_array_to_tensor(arr, axis=0, use_stack=True)
    joined, _ = static.tensor_array_to_tensor(arr, axis=1)
    return [i_out, y_out, length, second, stacked, joined]


def while_grad_script():
    outs = while_script(batch=2)
    glob = pd.default_main_program().global_block()
    x, w = glob.var("x"), glob.var("fc_0.w_0")
    x.stop_gradient = False
    loss = pd.layers.reduce_mean(outs[4] * outs[4])
    return [loss, *static.gradients([loss], [w, x])]


def cond_script():
    x = static.data("x", [None, 3], "float32")
    p = static.data("p", [1], "bool")
    out = static.nn.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    pair = static.nn.cond(p, lambda: (x * 3.0, x + 2.0), lambda: (x * 4.0, x + 5.0))
    return [out, *pair]


def case_script():
    x = static.data("x", [None, 3], "float32")
    p1 = static.data("p1", [1], "bool")
    p2 = static.data("p2", [1], "bool")
    out = static.nn.case([(p1, lambda: x * 2.0), (p2, lambda: x * 3.0)], default=lambda: x * 4.0)
    last = static.nn.case([(p1, lambda: x + 1.0), (p2, lambda: x + 2.0)])
    return [out, last]


def switch_script():
    x = static.data("x", [None, 3], "float32")
    k = static.data("k", [1], "int64")
    out = static.nn.switch_case(k, {0: lambda: x * 1.5, 2: lambda: x * 2.5},
                                default=lambda: x * 3.5)
    listed = static.nn.switch_case(k, [lambda: x + 1.0, lambda: x + 2.0])
    return [out, listed]


def misc_script():
    pred = static.data("pred", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    w = mode.create_parameter([4, 2], "float32")
    b = static.create_parameter([2], "float32", is_bias=True)
    g = static.create_global_var([2], 0.5, "float32", persistable=True)
    shown = static.Print(pred, message="pred")
    acc = static.accuracy(shown, label, k=2)
    return [acc, shown, b + g, w]


def auc_script():
    p = static.data("p", [None, 2], "float32")
    label = static.data("label", [None, 1], "int64")
    auc, batch_auc, stats = static.auc(p, label, num_thresholds=7, slide_steps=2)
    return [auc, batch_auc, *stats]


WITH_BACKWARD = {"while_grad"}
SCRIPTS = {"misc": misc_script, "auc": auc_script, "layers": layers_script,
           "while_array": while_script, "while_grad": while_grad_script,
           "cond": cond_script, "case": case_script, "switch": switch_script}


def _build(script):
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        outs = script()
    return main, startup, outs


def _theirs(name):
    return pd.Program.parse(REFS[f"{name}/main"].tobytes())


def _op_types(program):
    return [[op.type for op in block.ops] for block in program.blocks]


def _own_names(program):
    return sorted(n for b in program.blocks for n in b.vars if re.fullmatch(OWN, n.split(".")[0]))


def _run(program, name, fetch_list):
    scope = pd.Scope()
    exe = static.Executor()
    exe.run(pd.Program.parse(REFS[f"{name}/startup"].tobytes()), scope=scope)
    for key in REFS.files:
        if key.startswith(f"{name}/param/"):
            scope.var(key.rsplit("/", 1)[1]).get_tensor().set(REFS[key])
    results = []
    for k in range(int(REFS[f"{name}/feeds"][0])):
        prefix = f"{name}/feed{k}/"
        feed = {key[len(prefix):]: REFS[key] for key in REFS.files if key.startswith(prefix)}
        results.append(exe.run(program, feed=feed, fetch_list=fetch_list, scope=scope))
    return results


def _check(results, name):
    for k, got in enumerate(results):
        for j, value in enumerate(got):
            want = REFS[f"{name}/fetch{k}/{j}"]
            what = f"{name} feed {k} fetch {j}"
            assert value.dtype == want.dtype, what
            assert value.shape == want.shape, what
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=what)


def _forward_op_types(program, loss):
    """Block 0's ops up to the one writing ``loss``, and the other blocks' ops (the two
    frameworks' backward passes write different grad ops; the values are compared)."""
    types = _op_types(program)
    ops = program.global_block().ops
    last = max(k for k, op in enumerate(ops) if loss in op.output_arg_names)
    forward_blocks = [b.idx for b in program.blocks[1:] if b.desc.forward_block_idx == -1]
    return [types[0][:last + 1]] + [types[i] for i in forward_blocks]


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_same_ops_and_names_as_paddle(name):
    main, _, outs = _build(SCRIPTS[name])
    theirs = _theirs(name)
    if name in WITH_BACKWARD:
        loss = str(REFS[f"{name}/fetch_names"][0])
        assert _forward_op_types(main, outs[0].name) == _forward_op_types(theirs, loss)
        return
    assert _op_types(main) == _op_types(theirs)
    assert _own_names(main) == _own_names(theirs)
    names = [o.name for o in outs]
    theirs_names = [str(t) for t in REFS[f"{name}/fetch_names"]]
    owned = [k for k, t in enumerate(theirs_names) if re.fullmatch(OWN, t.split(".")[0])]
    assert [names[k] for k in owned] == [theirs_names[k] for k in owned]


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_same_values_as_paddle(name):
    main, _, outs = _build(SCRIPTS[name])
    _check(_run(main, name, outs), name)


# PaddlePaddle's own backward of a loop that fills a tensor array (its while_grad links the
# array's gradient by name) does not run here yet: only paddle_nb's is compared, by value
@pytest.mark.parametrize("name", [n for n in SCRIPTS if n not in WITH_BACKWARD])
def test_paddles_program_runs_here(name):
    _check(_run(_theirs(name), name, [str(n) for n in REFS[f"{name}/fetch_names"]]), name)


def test_same_parameters_and_initializers_as_paddle():
    main, startup, _ = _build(layers_script)
    theirs = pd.Program.parse(REFS["layers/startup"].tobytes())
    assert [op.type for op in startup.global_block().ops] == \
        [op.type for op in theirs.global_block().ops]
    mine = {p.name: (tuple(p.shape), p.trainable) for p in main.all_parameters()}
    params = [k.split("/")[-1] for k in REFS.files if k.startswith("layers/param/")]
    assert sorted(mine) == sorted(params)
    conv = [op for op in startup.global_block().ops if op.type == "gaussian_random"][0]
    want = [op for op in theirs.global_block().ops if op.type == "gaussian_random"][0]
    assert conv.attr("std") == pytest.approx(want.attr("std"))


def test_inference_model_round_trip(tmp_path):
    """PaddlePaddle's saved model loads and runs here; paddle_nb's saved model has the same
    ops as PaddlePaddle's and loads back."""
    exe = static.Executor()
    scope = pd.Scope()
    program, feeds, fetches = static.load_inference_model(
        str(FIXTURES / "static_infer"), exe, scope=scope)
    assert feeds == ["x", "ids"]
    feed = {"x": REFS["layers/feed0/x"], "ids": REFS["layers/feed0/ids"]}
    got = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    np.testing.assert_allclose(got[0], REFS["layers/fetch0/2"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], REFS["layers/fetch0/3"], rtol=1e-5, atol=1e-6)

    main, _, outs = _build(layers_script)
    mine_scope = pd.Scope()
    for key in REFS.files:
        if key.startswith("layers/param/"):
            mine_scope.var(key.rsplit("/", 1)[1]).get_tensor().set(REFS[key])
    prefix = str(tmp_path / "model")
    glob = main.global_block()
    static.save_inference_model(prefix, [glob.var("x"), glob.var("ids")], outs[2:], exe,
                                program=main, scope=mine_scope)
    saved = pd.Program.parse((tmp_path / "model.pdmodel").read_bytes())
    assert _op_types(saved) == _op_types(program)
    assert (tmp_path / "model.pdiparams").read_bytes() == \
        (FIXTURES / "static_infer.pdiparams").read_bytes()
    again, _, fetch_again = static.load_inference_model(prefix, exe, scope=pd.Scope())
    assert [v.name for v in fetch_again] == [v.name for v in fetches]
