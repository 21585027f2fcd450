"""PaddlePaddle 2.6.2's results where paddle_nb's kernels once disagreed with the declaration.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/declared_refs.py --out tests/fixtures/paddle26/ops

Four programs whose results paddle_nb once got silently wrong, each built with the public
2.6 API in static mode and run on the CPU:

- ``pool_avg_ceil``: ``avg_pool2d`` with kernel 3, stride 2, padding 1, ``exclusive=False``,
  ``ceil_mode=True``: the last window hangs over the padding, and PaddlePaddle divides by
  the part of the window inside the input plus its padding (paddle_nb divided by 9);
- ``sum_int32``: ``paddle.sum`` of int32, which 2.6 writes with ``out_dtype`` int64 and
  declares int64 (paddle_nb gave int32);
- ``argmax_flat``: ``paddle.argmax`` without an axis (``flatten=True``): declared and
  computed 0-D (paddle_nb gave [1]);
- ``slice_decrease``: ``x[1]`` of a 1-D tensor and ``y[0, 1, 2]`` of a 3-D one (``slice``
  with ``decrease_axis`` over every axis): 0-D (paddle_nb gave [1]).

The .npz holds ``<case>/program`` (serialized ProgramDesc, uint8), ``<case>/feed/<name>``,
``<case>/fetch/<name>`` (outputs, and ``x@GRAD`` of ``sum(out * w)`` for float inputs), and
``<case>/declared/<name>``: the dtype and shape the program declares for each fetched
output, as text (``float32 2,3``; an empty shape is 0-D). tests/compat/test_declared_paddle.py
runs each in paddle_nb.
"""

import argparse
import pathlib

import numpy as np
import paddle

rng = np.random.default_rng(26)


def pool(v):
    return [paddle.nn.functional.avg_pool2d(v["x"], kernel_size=3, stride=2, padding=1,
                                            exclusive=False, ceil_mode=True)]


CASES = {
    # 6 + 2 * 1 - 3 = 5, 5 / 2 rounded up + 1 = 4 windows a side; the last starts at 5
    "pool_avg_ceil": ({"x": rng.standard_normal((1, 2, 6, 6)).astype("float32")}, pool),
    "sum_int32": ({"i": rng.integers(-5, 5, (2, 3)).astype("int32")},
                  lambda v: [paddle.sum(v["i"]), paddle.sum(v["i"], axis=1)]),
    "argmax_flat": ({"x": rng.standard_normal((2, 3)).astype("float32")},
                    lambda v: [paddle.argmax(v["x"]), paddle.argmax(v["x"], axis=1)]),
    "slice_decrease": ({"x": rng.standard_normal((4,)).astype("float32"),
                        "y": rng.standard_normal((2, 3, 4)).astype("float32")},
                       lambda v: [v["x"][1], v["y"][0, 1, 2], v["y"][1]]),
}


def run_case(name, feeds, build):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        inputs = {}
        for k, a in feeds.items():
            inputs[k] = paddle.static.data(k, list(a.shape), str(a.dtype))
            inputs[k].stop_gradient = a.dtype.kind != "f"
        outs = build(inputs)
        floats = [o for o in outs if o.dtype == paddle.float32]
        weights, loss = {}, None
        for k, o in enumerate(floats):
            w = paddle.static.data(f"w{k}", list(o.shape), "float32")
            weights[w.name] = o
            term = paddle.sum(o * w)
            loss = term if loss is None else loss + term
        grads = []
        if loss is not None:
            paddle.static.append_backward(loss)
            grads = [f"{k}@GRAD" for k, a in feeds.items() if a.dtype.kind == "f"]
    feed = dict(feeds)
    for w, o in weights.items():
        feed[w] = rng.standard_normal(o.shape).astype("float32")
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    names = [o.name for o in outs]
    fetched = exe.run(main, feed=feed, fetch_list=names + grads)
    record = {f"{name}/program": np.frombuffer(main.desc.serialize_to_string(), np.uint8)}
    record.update({f"{name}/feed/{k}": v for k, v in feed.items()})
    record.update({f"{name}/fetch/{n}": np.asarray(v) for n, v in zip(names + grads, fetched)})
    block = main.global_block()
    for n in names:
        var = block.var(n)
        dtype = str(var.dtype).replace("paddle.", "")
        record[f"{name}/declared/{n}"] = np.array(f"{dtype} {','.join(map(str, var.shape))}")
        value = np.asarray(fetched[names.index(n)])
        print(f"  {n}: declared {dtype}{list(var.shape)}, "
              f"computed {value.dtype}{list(value.shape)}")
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build) in CASES.items():
        print(name)
        record.update(run_case(name, feeds, build))
    np.savez_compressed(out / "declared.npz", **record)
    print("paddle", paddle.__version__, "->", out / "declared.npz")


if __name__ == "__main__":
    main()
