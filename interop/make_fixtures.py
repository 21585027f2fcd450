"""Make fixtures with PaddlePaddle 2.6.2 itself: three small training programs and their models.

Run with the interop virtual environment (``make interop`` creates it), never with paddle_nb's:

    .venv-interop/bin/python interop/make_fixtures.py --out build/interop/paddle26

For each model (``mlp``, ``cnn``, ``ctrl``) it writes, in static mode, on the CPU, with fixed
seeds:

- ``<model>.main.pb`` / ``<model>.startup.pb``: the serialized main program (forward, backward,
  ``sgd``) and startup program, as ``program.desc.serialize_to_string()`` returns them;
- ``<model>_io.npz``: ``init:<param>`` after the startup program; for each training step k the
  feeds ``step<k>/<feed>``, the fetched losses ``loss[k]`` (and, for ``ctrl``, ``loss0[k]``)
  and the parameters after the step, ``step<k>:<param>``; then ``infer/<feed>`` and the
  inference outputs ``infer/<target>`` of the trained model;
- ``<model>.pdmodel`` / ``<model>.pdiparams``: ``paddle.static.save_inference_model`` of the
  trained model (``path_prefix`` form);
- ``manifest.json``: per model, the op types of each block, the feed, fetch, loss and parameter
  names, the inference targets, PaddlePaddle's version and the file sizes.

The models:

- ``mlp``: ``x[N,16] -> fc(32, relu) -> fc(10) = logits -> softmax = prob``; loss: the mean of
  ``softmax_with_cross_entropy(logits, label)``; SGD(0.1).
- ``cnn``: ``img[N,1,8,8] -> conv2d(4, 3x3, pad 1) + relu -> max pool2d(2, stride 2) -> fc(10)``;
  the same loss; SGD(0.1).
- ``ctrl``: ``h = x; while i < 3: h = tanh(h @ W + b)`` (``paddle.static.nn.while_loop``), then
  ``loss0 = mean(square(h))`` and ``loss = cond(loss0 > thr, 2 loss0, 0.5 loss0)``
  (``paddle.static.nn.cond``); SGD(0.1). ``thr`` is fed per step so that steps take the true,
  false and true branch.
"""

import argparse
import json
import os
import pathlib
import sys

import numpy as np

STEPS = 3
SEED = 2024


def _paddle():
    import paddle
    paddle.enable_static()
    return paddle


def _params(program):
    return sorted(p.name for p in program.all_parameters())


def _value(scope, name):
    return np.array(scope.find_var(name).get_tensor())


def _blocks(program):
    return [[op.type for op in block.ops] for block in program.blocks]


def _build_mlp(paddle):
    x = paddle.static.data("x", [None, 16], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    hidden = paddle.static.nn.fc(x, 32, activation="relu", name="fc1")
    logits = paddle.static.nn.fc(hidden, 10, name="fc2")
    prob = paddle.nn.functional.softmax(logits)
    loss = paddle.mean(paddle.nn.functional.softmax_with_cross_entropy(logits, label))

    def feeds(rng, n=4):
        return {"x": rng.standard_normal((n, 16)).astype("float32"),
                "label": rng.integers(0, 10, (n, 1)).astype("int64")}
    return {"loss": [loss], "infer_feeds": [x], "targets": [logits, prob], "feeds": feeds}


def _build_cnn(paddle):
    img = paddle.static.data("img", [None, 1, 8, 8], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    conv = paddle.static.nn.conv2d(img, 4, 3, padding=1, act="relu", name="conv1")
    pool = paddle.nn.functional.max_pool2d(conv, kernel_size=2, stride=2)
    logits = paddle.static.nn.fc(pool, 10, name="fc1")
    loss = paddle.mean(paddle.nn.functional.softmax_with_cross_entropy(logits, label))

    def feeds(rng, n=4):
        return {"img": rng.standard_normal((n, 1, 8, 8)).astype("float32"),
                "label": rng.integers(0, 10, (n, 1)).astype("int64")}
    return {"loss": [loss], "infer_feeds": [img], "targets": [logits], "feeds": feeds}


def _build_ctrl(paddle):
    x = paddle.static.data("x", [3, 4], "float32")
    x.stop_gradient = False          # else the loop's result, carried in `x`, gets no gradient
    thr = paddle.static.data("thr", [1], "float32")
    w = paddle.static.create_parameter(
        [4, 4], "float32", name="ctrl_w",
        default_initializer=paddle.nn.initializer.Normal(0.0, 0.5))
    b = paddle.static.create_parameter(
        [4], "float32", name="ctrl_b", default_initializer=paddle.nn.initializer.Constant(0.1))
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 3, "int64")

    def body(i, h):
        return [i + 1, paddle.tanh(paddle.matmul(h, w) + b)]

    _, h = paddle.static.nn.while_loop(lambda i, h: i < n, body, [i, x])
    loss0 = paddle.mean(paddle.square(h))
    loss = paddle.static.nn.cond(loss0 > thr, lambda: loss0 * 2.0, lambda: loss0 * 0.5)

    thresholds = iter([0.0, 1e9, 0.0])

    def feeds(rng, n=3):
        values = {"x": rng.standard_normal((n, 4)).astype("float32")}
        values["thr"] = np.float32([next(thresholds, 0.0)])
        return values
    return {"loss": [loss, loss0], "infer_feeds": [x, thr], "targets": [loss, h],
            "feeds": feeds, "x_requires_grad": True}


MODELS = {"mlp": _build_mlp, "cnn": _build_cnn, "ctrl": _build_ctrl}


def make(paddle, name, out):
    """Build, initialize, train ``STEPS`` steps and save model ``name``; its manifest entry."""
    paddle.seed(SEED)
    np_rng = np.random.default_rng(SEED)
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        model = MODELS[name](paddle)
        loss = model["loss"][0]
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    params = _params(main)
    arrays = {}
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for p in params:
            arrays[f"init:{p}"] = _value(scope, p)
        losses = {v.name: [] for v in model["loss"]}
        feed_names = None
        for k in range(STEPS):
            feed = model["feeds"](np_rng)
            feed_names = sorted(feed)
            for key, value in feed.items():
                arrays[f"step{k}/{key}"] = value
            fetched = exe.run(main, feed=feed, fetch_list=model["loss"])
            for var, value in zip(model["loss"], fetched):
                losses[var.name].append(np.asarray(value).reshape(-1)[0])
            for p in params:
                arrays[f"step{k}:{p}"] = _value(scope, p)
        for key, (var, values) in zip(("loss", "loss0"), losses.items()):
            arrays[key] = np.float32(values)
        # save_inference_model appends a `scale` per target to `main` itself: write it first
        main_bytes, startup_bytes = main.desc.serialize_to_string(), \
            startup.desc.serialize_to_string()
        blocks = _blocks(main)
        prefix = str(out / name)
        paddle.static.save_inference_model(prefix, model["infer_feeds"], model["targets"], exe,
                                           program=main)
        program, infer_feeds, fetch_vars = paddle.static.load_inference_model(prefix, exe)
        feed = {n: v for n, v in model["feeds"](np_rng).items() if n in infer_feeds}
        outputs = exe.run(program, feed=feed, fetch_list=fetch_vars)
        for n in infer_feeds:
            arrays[f"infer/{n}"] = feed[n]
        for var, value in zip(fetch_vars, outputs):
            arrays[f"infer/{var.name}"] = np.asarray(value)
    (out / f"{name}.main.pb").write_bytes(main_bytes)
    (out / f"{name}.startup.pb").write_bytes(startup_bytes)
    np.savez(out / f"{name}_io.npz", **arrays)
    return {
        "paddle": paddle.__version__,
        "steps": STEPS,
        "feeds": feed_names,
        "losses": [v.name for v in model["loss"]],
        "params": params,
        "main_blocks": blocks,
        "startup_ops": [op.type for op in startup.global_block().ops],
        "infer": {"feeds": list(infer_feeds), "fetches": [v.name for v in fetch_vars],
                  "targets": [v.name for v in model["targets"]],
                  "blocks": _blocks(program)},
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/interop/paddle26", help="output directory")
    parser.add_argument("models", nargs="*", default=list(MODELS), help="which models")
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        # PaddlePaddle orders a while op's X and Out slots by iterating a Python set of names:
        # fix string hashing, so that the same script writes the same bytes every time
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]])
    paddle = _paddle()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for name in args.models:
        manifest[name] = make(paddle, name, out)
        print(f"make_fixtures: {name}: losses {manifest[name]['losses']}")
    files = sorted(p for p in out.iterdir() if p.is_file() and p.name != "manifest.json")
    for name in manifest:
        manifest[name]["files"] = {p.name: p.stat().st_size for p in files
                                   if p.name.startswith((f"{name}.", f"{name}_"))}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    print(f"make_fixtures: wrote {len(files) + 1} files, {total / 1024:.0f} KiB, to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
