"""The startup ops ``paddle.nn.initializer`` writes, and ``ParamAttr``'s effect, recorded from
PaddlePaddle 2.6.2.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2):

    .venv-interop/bin/python interop/api/initializer_refs.py --out tests/fixtures/paddle26/api

For each case of ``CASES`` (an initializer, made by a function of the ``paddle`` module, and a
parameter shape) it creates one parameter with ``ParamAttr(initializer=...)`` and records the
startup program's ops: their types and attributes (JSON; ``op_role`` and the call stack
left out). Random values cannot match (the generators differ), so
tests/api/test_initializer_api.py compares the ops and attributes, and the values' statistics.
For the random cases of ``DRAWN`` it also keeps the serialized startup program (base64) and
the mean, standard deviation, minimum and maximum of PaddlePaddle's draw, so that paddle_nb
can run PaddlePaddle's own startup program and compare. Also ``calculate_gain`` for each
nonlinearity in ``GAINS``. Output: ``initializer_api.json``.
"""

import argparse
import base64
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
DRAWN = ["truncated_normal", "xavier_uniform_conv", "kaiming_normal_conv_tanh"]
IGNORED_ATTRS = {"op_callstack", "op_namescope", "op_device", "with_quant_attr", "op_role",
                 "op_role_var"}


def case_parts(name):
    """(make, shape, dtype) of case ``name``."""
    make, shape, *dtype = CASES[name]
    return make, shape, (dtype[0] if dtype else "float32")


def startup_program(paddle, name):
    make, shape, dtype = case_parts(name)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        attr = paddle.ParamAttr(name="w", initializer=make(paddle))
        paddle.static.create_parameter(shape, dtype, attr=attr)
    return startup


def startup_ops(startup):
    return [(op.type, {k: op.attr(k) for k in op.attr_names if k not in IGNORED_ATTRS})
            for op in startup.global_block().ops]


def stats(values):
    """[mean, std, min, max] of a draw."""
    values = np.asarray(values, np.float64)
    return [values.mean(), values.std(), values.min(), values.max()]


def drawn(paddle, startup):
    """PaddlePaddle's startup program (base64, no call stacks) and the statistics of its draw."""
    for op in startup.global_block().ops:
        op.desc.remove_attr("op_callstack")
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
    return {"program": base64.b64encode(startup.desc.serialize_to_string()).decode(),
            "stats": stats(np.array(scope.find_var("w").get_tensor()))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import paddle
    paddle.enable_static()
    programs = {name: startup_program(paddle, name) for name in CASES}
    out = {"ops": {name: startup_ops(program) for name, program in programs.items()},
           "drawn": {name: drawn(paddle, programs[name]) for name in DRAWN},
           "gains": [paddle.nn.initializer.calculate_gain(n, p) for n, p in GAINS]}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "initializer_api.json").write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"initializer_refs: wrote {args.out / 'initializer_api.json'}")


if __name__ == "__main__":
    main()
