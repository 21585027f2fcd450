"""The startup ops ``paddle.nn.initializer`` writes, and ``ParamAttr``'s effect, recorded from
PaddlePaddle 2.6.2.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2):

    .venv-interop/bin/python interop/api/initializer_refs.py --out tests/fixtures/paddle26/api

For each case of ``CASES`` (an initializer, made by a function of the ``paddle`` module, and a
parameter shape) it creates one parameter with ``ParamAttr(initializer=...)`` and records the
startup program's ops: their types and attributes (JSON; ``op_role`` and the call stack
left out). Random values cannot match (the generators differ), so
tests/api/test_initializer_api.py compares the ops and attributes, and the values' statistics.
Also ``calculate_gain`` for each nonlinearity in ``GAINS``. Output: ``initializer_api.json``.
"""

import argparse
import json
import pathlib

import numpy as np


def _init(paddle):
    return paddle.nn.initializer


CASES = {
    "constant": (lambda p: _init(p).Constant(0.5), [3, 4]),
    "normal": (lambda p: _init(p).Normal(0.1, 2.0), [3, 4]),
    "truncated_normal": (lambda p: _init(p).TruncatedNormal(0.0, 0.5), [30, 40]),
    "uniform": (lambda p: _init(p).Uniform(-0.3, 0.2), [3, 4]),
    "xavier_normal": (lambda p: _init(p).XavierNormal(), [3, 4]),
    "xavier_uniform": (lambda p: _init(p).XavierUniform(), [3, 4]),
    "xavier_uniform_conv": (lambda p: _init(p).XavierUniform(), [8, 4, 3, 3]),
    "xavier_uniform_fans": (lambda p: _init(p).XavierUniform(fan_in=10, fan_out=20), [3, 4]),
    "kaiming_normal": (lambda p: _init(p).KaimingNormal(), [3, 4]),
    "kaiming_normal_conv_tanh": (lambda p: _init(p).KaimingNormal(nonlinearity="tanh"),
                                 [8, 4, 3, 3]),
    "kaiming_uniform": (lambda p: _init(p).KaimingUniform(), [3, 4]),
    "kaiming_uniform_leaky": (lambda p: _init(p).KaimingUniform(
        fan_in=5, negative_slope=0.1, nonlinearity="leaky_relu"), [3, 4]),
    "kaiming_uniform_vector": (lambda p: _init(p).KaimingUniform(), [6]),
    "assign": (lambda p: _init(p).Assign(np.arange(12, dtype="float32").reshape(3, 4)), [3, 4]),
    "assign_list_float64": (lambda p: _init(p).Assign([[0.5, -1.0], [2.0, 3.5]]), [2, 2],
                            "float64"),
}
GAINS = [("sigmoid", None), ("linear", None), ("conv2d", None), ("tanh", None), ("relu", None),
         ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]
IGNORED_ATTRS = {"op_callstack", "op_namescope", "op_device", "with_quant_attr", "op_role",
                 "op_role_var"}


def case_parts(name):
    """(make, shape, dtype) of case ``name``."""
    make, shape, *dtype = CASES[name]
    return make, shape, (dtype[0] if dtype else "float32")


def startup_ops(paddle, name):
    make, shape, dtype = case_parts(name)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        attr = paddle.ParamAttr(name="w", initializer=make(paddle))
        paddle.static.create_parameter(shape, dtype, attr=attr)
    return [(op.type, {k: op.attr(k) for k in op.attr_names if k not in IGNORED_ATTRS})
            for op in startup.global_block().ops]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import paddle
    paddle.enable_static()
    out = {"ops": {name: startup_ops(paddle, name) for name in CASES},
           "gains": [paddle.nn.initializer.calculate_gain(n, p) for n, p in GAINS]}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "initializer_api.json").write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"initializer_refs: wrote {args.out / 'initializer_api.json'}")


if __name__ == "__main__":
    main()
