"""Record what PaddlePaddle 2.6.2's 2.x losses and norms build and compute (run with .venv-interop).

    .venv-interop/bin/python interop/api/lossnorm_api_refs.py [--out tests/fixtures/paddle26/api]

For each case of interop/api/lossnorm_cases.py, in a fresh ``unique_name.guard()``: the
main program's ops (type and output names), the parameters (name, shape, trainable) and
the startup program's ops; then, with each parameter set to a value drawn here, the
output, the gradients of ``sum(out * W)`` with respect to the fed floats and the trainable
parameters (``paddle.static.gradients`` seeded with ``W``) and the parameters after the run
(a batch norm's running statistics move). Written to ``lossnorm_api.npz``: the feeds once,
``feed/<name>``, and per case ``<c>/meta`` (JSON), ``<c>/W``, ``<c>/param/<name>``,
``<c>/out``, ``<c>/grad/<name>`` and ``<c>/after/<name>``.
"""

import argparse
import json
import pathlib
import sys

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from interop.api.lossnorm_cases import CASES, FEEDS, FLOAT_GRAD, W_SHAPES  # noqa: E402


def ops_of(program):
    return [[op.type, {s: op.output(s) for s in op.output_names if op.output(s)}]
            for op in program.global_block().ops]


def initializers(program):
    """The startup program's ops: type, outputs, and the value and shape they fill in."""
    return [[op.type, op.output("Out"), float(op.attr("value")), list(op.attr("shape"))]
            for op in program.global_block().ops]


def param_value(index, param):
    """A value each side sets the parameter to: positive for a variance, else around 1 or 0."""
    gen = np.random.default_rng(100 + index)
    value = gen.random(param.shape) + 0.5
    return (value if param.name.endswith(("w_0", "w_2")) else value - 1).astype("float32")


def run_case(name, build):
    main, startup = paddle.static.Program(), paddle.static.Program()
    declared = {}

    def data(key):
        if key not in declared:
            declared[key] = paddle.static.data(key, FEEDS[key].shape, FEEDS[key].dtype)
            declared[key].stop_gradient = key not in FLOAT_GRAD
        return declared[key]

    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        out = build(F, nn, data)
        built = ops_of(main)
        params = main.all_parameters()
        w_shape = W_SHAPES.get(name, tuple(out.shape))     # fed; declared as out's shape
        w = paddle.static.data("W", out.shape, "float32")
        wrt = [v for k, v in declared.items() if k in FLOAT_GRAD and not v.stop_gradient] + \
              [p for p in params if p.trainable]
        grads = paddle.static.gradients([out], wrt, target_gradients=[w])
    feeds = {k: FEEDS[k] for k in declared}
    feeds["W"] = np.random.default_rng(5).standard_normal(w_shape).astype("float32")
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    values = {p.name: param_value(i, p) for i, p in enumerate(params)}
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for pname, value in values.items():
            scope.var(pname).get_tensor().set(value, paddle.CPUPlace())
        fetched = exe.run(main, feed=feeds,
                          fetch_list=[out] + [g for g in grads if g is not None] + params)
    pairs = [(v.name, g) for v, g in zip(wrt, grads) if g is not None]
    record = {f"feed/{k}": v for k, v in feeds.items() if k != "W"}    # shared by the cases
    record[f"{name}/W"] = feeds["W"]
    meta_feeds = sorted(k for k in feeds if k != "W")
    record.update({f"{name}/param/{k}": v for k, v in values.items()})
    record[f"{name}/out"] = fetched[0]
    record.update({f"{name}/grad/{n}": v for (n, _), v in zip(pairs, fetched[1:])})
    record.update({f"{name}/after/{p.name}": v
                   for p, v in zip(params, fetched[1 + len(pairs):])})
    meta = {"ops": built, "out": out.name, "out_shape": list(out.shape),
            "out_dtype": str(fetched[0].dtype),
            "params": [[p.name, list(p.shape), bool(p.trainable)] for p in params],
            "startup": initializers(startup), "grads": [n for n, _ in pairs], "feeds": meta_feeds}
    record[f"{name}/meta"] = np.array(json.dumps(meta))
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "tests/fixtures/paddle26/api"))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    paddle.enable_static()
    record = {}
    for name, build in CASES.items():
        for key, value in run_case(name, build).items():
            assert key not in record or np.array_equal(record[key], value), key
            record[key] = value
    np.savez_compressed(out / "lossnorm_api.npz", paddle=np.array(paddle.__version__), **record)
    print(f"wrote {out / 'lossnorm_api.npz'}: {len(CASES)} cases, PaddlePaddle "
          f"{paddle.__version__}")


if __name__ == "__main__":
    main()
