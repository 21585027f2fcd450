"""The startup ops of ``paddle.nn.initializer.Orthogonal``, ``Dirac`` and ``Bilinear``, their
values, and ``calculate_gain``, recorded from PaddlePaddle 2.6.2.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2):

    .venv-interop/bin/python interop/api/initializer_more_refs.py --out tests/fixtures/paddle26/api

For each case of ``CASES`` it creates one parameter with ``ParamAttr(initializer=...)`` and
records the startup program's ops (types, inputs, outputs and attributes), the serialized
startup program (base64, no call stacks) and the value PaddlePaddle gives the parameter; and
``calculate_gain`` for each nonlinearity of ``GAINS``. Output: ``initializer_more.json``
(read by tests/api/test_initializer_more.py).
"""

import argparse
import json
import pathlib

import numpy as np

from interop.api.initializer_refs import IGNORED_ATTRS


def _init(paddle):
    return paddle.nn.initializer


CASES = {
    "orthogonal_wide": (lambda p: _init(p).Orthogonal(), [3, 4]),
    "orthogonal_tall_gain": (lambda p: _init(p).Orthogonal(gain=2.0), [4, 3]),
    "orthogonal_filter": (lambda p: _init(p).Orthogonal(), [2, 2, 3]),
    "dirac": (lambda p: _init(p).Dirac(), [2, 2, 3]),
    "dirac_groups": (lambda p: _init(p).Dirac(groups=2), [4, 2, 3, 3]),
    "bilinear": (lambda p: _init(p).Bilinear(), [2, 1, 4, 4]),
    "bilinear_odd": (lambda p: _init(p).Bilinear(), [1, 1, 3, 3]),
}
GAINS = [("sigmoid", None), ("linear", None), ("conv1d", None), ("conv2d", None),
         ("conv3d", None), ("conv1d_transpose", None), ("conv2d_transpose", None),
         ("conv3d_transpose", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
         ("leaky_relu", 0.2), ("leaky_relu", 1.0), ("selu", None)]


def _jsonable(value):
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return float(value)


def record(paddle, name):
    import base64
    make, shape = CASES[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        attr = paddle.ParamAttr(name="w", initializer=make(paddle))
        paddle.static.create_parameter(shape, "float32", attr=attr)
    ops = [{"type": op.type,
            "inputs": {k: op.input(k) for k in op.input_names if op.input(k)},
            "outputs": {k: op.output(k) for k in op.output_names},
            "attrs": {k: _jsonable(op.attr(k)) for k in op.attr_names
                      if k not in IGNORED_ATTRS}}
           for op in startup.global_block().ops]
    for op in startup.global_block().ops:
        op.desc.remove_attr("op_callstack")
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
    value = np.array(scope.find_var("w").get_tensor())
    return {"ops": ops, "shape": shape, "value": value.ravel().tolist(),
            "program": base64.b64encode(startup.desc.serialize_to_string()).decode()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import paddle
    paddle.enable_static()
    out = {"cases": {name: record(paddle, name) for name in CASES},
           "gains": [paddle.nn.initializer.calculate_gain(n, p) for n, p in GAINS]}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "initializer_more.json").write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"initializer_more_refs: wrote {args.out / 'initializer_more.json'}")


if __name__ == "__main__":
    main()
