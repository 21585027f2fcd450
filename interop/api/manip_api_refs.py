"""PaddlePaddle 2.6.2's programs and numbers for the manipulation, search, creation and
indexing API (paddle_nb/tensor/{creation,manipulation,selection,search,attribute,indexing}.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/manip_api_refs.py --out tests/fixtures/paddle26/api

Each case of interop/api/manip_api_cases.py is built in a fresh program under a fresh
``unique_name.guard()``; ``loss = sum(out * w)`` over its float outputs gives the gradients
of the differentiable feeds (``paddle.static.gradients``). ``manip_api.json`` records per
case the forward op types in order and, per output, its name, declared shape and dtype;
``manip_api.npz`` the feeds, the weights and the fetched outputs and gradients.
"""

import argparse
import json
import pathlib
import sys
import types

import numpy as np
import paddle

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from interop.api.manip_api_cases import CASES  # noqa: E402

rng = np.random.default_rng(2029)
API = types.SimpleNamespace(paddle=paddle, setitem=lambda x, i, v: paddle.static.setitem(x, i, v))


def _np_dtype(var):
    return str(var.dtype).split(".")[-1]


def run_case(name, feeds, build):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        v = {}
        for k, (a, grad) in feeds.items():
            v[k] = paddle.static.data(k, list(a.shape), str(a.dtype))
            v[k].stop_gradient = not grad
        outs = build(API, v)
        n_forward = len(main.global_block().ops)
        floats = [o for o in outs if o.dtype in (paddle.float32, paddle.float64)
                  and not o.stop_gradient]
        weights, loss = {}, None
        for k, o in enumerate(floats):
            w = paddle.static.data(f"w{k}", [-1] * len(o.shape), str(o.dtype).split(".")[-1])
            weights[w.name] = o
            term = paddle.sum(o * w)
            loss = term if loss is None else loss + term
        wrt = [v[k] for k, (a, grad) in feeds.items() if grad]
        grads = paddle.static.gradients(loss, wrt) if loss is not None and wrt else []
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {k: a for k, (a, g) in feeds.items()}
    if weights:
        first = exe.run(main, feed={**feed, **{w: np.zeros([1] * len(o.shape), _np_dtype(o))
                                               for w, o in weights.items()}},
                        fetch_list=list(weights.values()))
        for (w, o), value in zip(weights.items(), first):
            feed[w] = rng.standard_normal(value.shape).astype(value.dtype)
    fetched = exe.run(main, feed=feed, fetch_list=outs + [g for g in grads if g is not None])
    info = {"ops": [op.type for op in main.global_block().ops[:n_forward]],
            "outputs": [{"name": o.name, "shape": list(o.shape), "dtype": _np_dtype(o)}
                        for o in outs],
            "weights": {w: o.name for w, o in weights.items()},
            "grads": [k for (k, (a, grad)), g in zip([(k, f) for k, f in feeds.items() if f[1]],
                                                    grads) if g is not None]}
    arrays = {f"{name}/feed/{k}": a for k, a in feed.items()}
    arrays.update({f"{name}/out/{i}": np.asarray(a) for i, a in enumerate(fetched[:len(outs)])})
    arrays.update({f"{name}/grad/{k}": np.asarray(a)
                   for k, a in zip(info["grads"], fetched[len(outs):])})
    return info, arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/api")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    infos, arrays = {}, {}
    for name, (feeds, build) in CASES.items():
        infos[name], more = run_case(name, feeds, build)
        arrays.update(more)
        print(name, "ok")
    (out / "manip_api.json").write_text(json.dumps(
        {"paddle": paddle.__version__, "cases": infos}, indent=1) + "\n")
    np.savez_compressed(out / "manip_api.npz", **arrays)
    print("paddle", paddle.__version__, "->", out)


if __name__ == "__main__":
    main()
