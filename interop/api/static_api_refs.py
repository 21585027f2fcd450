"""PaddlePaddle 2.6.2's own programs and numbers for ``paddle.static`` scripts.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/static_api_refs.py --out tests/fixtures/paddle26/api

Each script uses ``paddle.static`` names (data, nn.fc / conv2d / batch_norm / embedding,
while_loop with a tensor array, cond, case, switch_case, save_inference_model) and builds in
a fresh ``unique_name.guard()``, as tests/api/test_static_api.py rebuilds it in paddle_nb.
For each it stores in ``static_api.npz``: ``<name>/main`` and ``<name>/startup`` (the
serialized ProgramDescs as uint8), ``<name>/param/<p>`` (the parameters after the startup
program ran), ``<name>/feed/<f>``, ``<name>/fetch/<k>`` (the fetched values) and
``<name>/fetch_names``. The ``layers`` script also writes ``static_infer.pdmodel`` /
``static_infer.pdiparams`` (paddle.static.save_inference_model's files) beside the npz.
"""

import argparse
import os
import pathlib

import numpy as np
import paddle

rng = np.random.default_rng(2026)
paddle.enable_static()


def layers_script(v):
    x = paddle.static.data("x", [None, 3, 5, 5], "float32")
    ids = paddle.static.data("ids", [None, 2], "int64")
    c = paddle.static.nn.conv2d(x, 2, 3, padding=1, act="relu")
    b = paddle.static.nn.batch_norm(c, is_test=True)
    f = paddle.static.nn.fc(b, 4, num_flatten_dims=1, activation="tanh")
    e = paddle.static.nn.embedding(ids, [10, 4])
    return [c, b, f, e]


LAYERS_FEED = {"x": rng.standard_normal((2, 3, 5, 5)).astype("float32"),
               "ids": np.array([[1, 9], [0, 3]], "int64")}


def while_script(v, batch=None):
    x = paddle.static.data("x", [batch, 3], "float32")
    y = paddle.static.nn.fc(x, 3)
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 3, "int64")
    arr = paddle.tensor.create_array("float32")

    def body(i, y):
        y2 = y * 2.0
        paddle.tensor.array_write(y2, i, arr)
        return i + 1, y2

    i_out, y_out = paddle.static.nn.while_loop(lambda i, y: paddle.less_than(i, n), body, [i, y])
    length = paddle.tensor.array_length(arr)
    second = paddle.tensor.array_read(arr, paddle.full([1], 1, "int64"))
    to_tensor = paddle.tensor.manipulation.tensor_array_to_tensor
    # (OutIndex is not fetched: 2.6.2's static kernel leaves it unwritten)
    stacked, _ = to_tensor(arr, axis=0, use_stack=True)
    joined, _ = to_tensor(arr, axis=1)
    return [i_out, y_out, length, second, stacked, joined]


WHILE_FEED = {"x": rng.standard_normal((2, 3)).astype("float32")}


def while_grad_script(v):
    """while_script's loop, its stacked array's mean square as the loss, and the gradients
    of the fc weight and of x through the array and the loop."""
    outs = while_script(v, batch=2)    # (2.6.2's while_grad cannot fill a [-1, 3] zero)
    x = paddle.static.default_main_program().global_block().var("x")
    x.stop_gradient = False
    stacked = outs[4]
    loss = paddle.mean(stacked * stacked)
    w = paddle.static.default_main_program().global_block().var("fc_0.w_0")
    return [loss, *paddle.static.gradients([loss], [w, x])]


def cond_script(v):
    x = paddle.static.data("x", [None, 3], "float32")
    p = paddle.static.data("p", [1], "bool")
    out = paddle.static.nn.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    pair = paddle.static.nn.cond(p, lambda: (x * 3.0, x + 2.0), lambda: (x * 4.0, x + 5.0))
    return [out, *pair]


def case_script(v):
    x = paddle.static.data("x", [None, 3], "float32")
    p1 = paddle.static.data("p1", [1], "bool")
    p2 = paddle.static.data("p2", [1], "bool")
    out = paddle.static.nn.case([(p1, lambda: x * 2.0), (p2, lambda: x * 3.0)],
                                default=lambda: x * 4.0)
    last = paddle.static.nn.case([(p1, lambda: x + 1.0), (p2, lambda: x + 2.0)])
    return [out, last]


def switch_script(v):
    x = paddle.static.data("x", [None, 3], "float32")
    k = paddle.static.data("k", [1], "int64")
    out = paddle.static.nn.switch_case(k, {0: lambda: x * 1.5, 2: lambda: x * 2.5},
                                       default=lambda: x * 3.5)
    listed = paddle.static.nn.switch_case(k, [lambda: x + 1.0, lambda: x + 2.0])
    return [out, listed]


def misc_script(v):
    pred = paddle.static.data("pred", [None, 4], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    w = paddle.create_parameter([4, 2], "float32")
    b = paddle.static.create_parameter([2], "float32", is_bias=True)
    g = paddle.static.create_global_var([2], 0.5, "float32", persistable=True)
    shown = paddle.static.Print(pred, message="pred")
    acc = paddle.static.accuracy(shown, label, k=2)
    return [acc, shown, b + g, w]


MISC_FEED = {"pred": rng.standard_normal((4, 4)).astype("float32"),
             "label": np.array([[0], [3], [1], [2]], "int64")}
def auc_script(v):
    p = paddle.static.data("p", [None, 2], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    auc, batch_auc, stats = paddle.static.auc(p, label, num_thresholds=7, slide_steps=2)
    return [auc, batch_auc, *stats]


def _auc_feed(n):
    pos = rng.uniform(0, 1, (n, 1)).astype("float32")
    return {"p": np.concatenate([1 - pos, pos], axis=1),
            "label": rng.integers(0, 2, (n, 1)).astype("int64")}


X3 = rng.standard_normal((2, 3)).astype("float32")
SCRIPTS = {
    "layers": (layers_script, [LAYERS_FEED]),
    "while_array": (while_script, [WHILE_FEED]),
    "while_grad": (while_grad_script, [WHILE_FEED]),
    "cond": (cond_script, [{"x": X3, "p": np.array([True])}, {"x": X3, "p": np.array([False])}]),
    "case": (case_script, [{"x": X3, "p1": np.array([a]), "p2": np.array([b])}
                           for a, b in ((True, True), (False, True), (False, False))]),
    "misc": (misc_script, [MISC_FEED]),
    "auc": (auc_script, [_auc_feed(n) for n in (6, 5, 7, 4)]),
    "switch": (switch_script, [{"x": X3, "k": np.array([k], "int64")} for k in (0, 1, 2, 3)]),
}


def record(name, build, feeds, store):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.base.unique_name.guard(), paddle.static.program_guard(main, startup):
        outs = build({})
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for p in main.all_parameters():
            store[f"{name}/param/{p.name}"] = np.array(scope.find_var(p.name).get_tensor())
        for k, feed in enumerate(feeds):
            for f, value in feed.items():
                store[f"{name}/feed{k}/{f}"] = value
            got = exe.run(main, feed=feed, fetch_list=outs)
            for j, value in enumerate(got):
                store[f"{name}/fetch{k}/{j}"] = np.asarray(value)
    store[f"{name}/main"] = np.frombuffer(main.desc.serialize_to_string(), np.uint8)
    store[f"{name}/startup"] = np.frombuffer(startup.desc.serialize_to_string(), np.uint8)
    store[f"{name}/fetch_names"] = np.array([o.name for o in outs])
    store[f"{name}/feeds"] = np.array([len(feeds)])
    return main, outs, exe, scope


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="tests/fixtures/paddle26/api")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    store = {}
    for name, (build, feeds) in SCRIPTS.items():
        program, outs, exe, scope = record(name, build, feeds, store)
        if name == "layers":      # the inference model of the same script, for the round trip
            with paddle.static.scope_guard(scope):
                x, ids = program.global_block().var("x"), program.global_block().var("ids")
                paddle.static.save_inference_model(os.fspath(out / "static_infer"), [x, ids],
                                                   [outs[2], outs[3]], exe, program=program)
    np.savez_compressed(out / "static_api.npz", **store)
    print(f"wrote {len(store)} arrays to {out / 'static_api.npz'}")


if __name__ == "__main__":
    main()
