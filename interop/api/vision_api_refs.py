"""PaddlePaddle 2.6.2's own programs and numbers for the vision API (paddle.nn conv, pooling,
padding and resampling layers and functions).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/vision_api_refs.py --out tests/fixtures/paddle26/api

For each case of interop/api/vision_api_cases.py it builds the program with paddle's public
API in static mode, records what 2.6 wrote (the forward ops with their types and attributes,
the variables declared, the parameters' names and shapes, the startup program's initializer
ops), gives every
parameter the value ``param_value(name)``, adds ``loss = sum(out * out)`` over every output
and ``append_backward``, and stores the outputs and the
gradients of every input and parameter in ``vision_api.npz``: ``<case>/record`` (JSON as
uint8) and ``<case>/fetch/<name>``. tests/api/test_vision_api.py builds the same case with
paddle_nb and must write the same and compute the same.
"""

import argparse
import json
import pathlib
import sys

import numpy as np
import paddle

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from interop.api.vision_api_cases import CASES, param_value  # noqa: E402

SKIP_ATTRS = {"op_device", "op_namescope", "op_role", "op_role_var", "op_callstack",
              "with_quant_attr"}


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def _ops(program):
    return [[op.type, {a: _plain(op.attr(a)) for a in sorted(op.attr_names)
                       if a not in SKIP_ATTRS}] for op in program.global_block().ops]


def run_case(name, build, feeds):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        def data(key, dtype="float32"):
            var = paddle.static.data(key, list(feeds[key].shape), dtype)
            var.stop_gradient = dtype != "float32"
            return var
        outs = build(paddle, paddle.nn, paddle.nn.functional, data)
        forward = _ops(main)
        declared = [[v.name, list(v.shape), str(v.dtype).replace("paddle.", "")]
                    for v in main.global_block().vars.values()]
        params = [[p.name, list(p.shape)] for p in main.all_parameters()]
        loss = None
        for o in outs:
            term = paddle.sum(o * o)
            loss = term if loss is None else loss + term
        paddle.static.append_backward(loss)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for pname, shape in params:
            scope.find_var(pname).get_tensor().set(param_value(pname, shape), paddle.CPUPlace())
        names = [o.name for o in outs] + [f"{k}@GRAD" for k, v in feeds.items()
                                          if v.dtype == np.float32] + \
            [f"{p}@GRAD" for p, _ in params]
        fetched = exe.run(main, feed=feeds, fetch_list=names)
    record = {"outputs": [o.name for o in outs], "forward": forward, "params": params,
              "vars": declared,
              "startup": _ops(startup)}
    values = {f"{name}/record": np.frombuffer(json.dumps(record).encode(), np.uint8)}
    values.update({f"{name}/feed/{k}": v for k, v in feeds.items()})
    values.update({f"{name}/fetch/{n}": np.asarray(v) for n, v in zip(names, fetched)})
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/api")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    values = {}
    for name, (build, feeds) in CASES.items():
        values.update(run_case(name, build, feeds))
        print(name, "ok")
    np.savez_compressed(out / "vision_api.npz", **values)
    print("paddle", paddle.__version__, "->", out / "vision_api.npz")


if __name__ == "__main__":
    main()
