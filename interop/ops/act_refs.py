"""PaddlePaddle 2.6.2's numbers for the ops of paddle_nb/ops/activation_param.py.

    .venv-interop/bin/python interop/ops/act_refs.py

For each case it builds, in static mode, a program of one op (appended by its
type, with the attributes as the op stores them) and its grad op (from
``paddle.static.gradients`` with a fed output gradient ``w``), runs it, and
writes to tests/fixtures/paddle26/ops/act_refs.npz: the inputs, ``Out``,
``X@GRAD`` and the program's bytes, so tests/ops/test_activation_paddle.py can
check the kernels and also run PaddlePaddle's own program in paddle_nb.
Inputs include the kinks themselves (0 and 6 for relu6) to pin down ties.

Attributes stay where 2.6 and paddle_nb agree. They part in two places, on
purpose: 2.6's hard_swish kernel ignores threshold/scale/offset (fixed at 6, 6,
3, all that paddle.nn.functional writes), where paddle_nb honours them as
fluid 1.x did; and 2.6's mish_grad above a non-default threshold uses
1 - exp(-x) for softplus' slope, where paddle_nb uses the true slope 1.
"""

import json
import pathlib

import numpy as np
import paddle

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/fixtures/paddle26/ops/act_refs.npz"
rng = np.random.default_rng(2026)

# (name, op type, attrs, x range, exact values to include, dtype, extra inputs)
CASES = [
    ("relu6", "relu6", {}, (-2, 8), [0, 6], "float32", {}),
    ("hard_swish", "hard_swish", {}, (-5, 5), [-3, 3], "float32", {}),
    ("hard_sigmoid", "hard_sigmoid", {}, (-4, 4), [-2.5, 2.5], "float32", {}),
    ("hard_sigmoid_f", "hard_sigmoid", {"slope": 1 / 6, "offset": 0.5}, (-4, 4), [-3, 3],
     "float32", {}),
    ("swish", "swish", {}, (-6, 6), [0], "float32", {}),
    ("silu", "silu", {}, (-6, 6), [0], "float64", {}),
    ("gelu", "gelu", {"approximate": False}, (-5, 5), [0, -6, 6], "float32", {}),
    ("gelu64", "gelu", {"approximate": False}, (-6, 6), [0, 3, -8], "float64", {}),
    ("gelu_tanh", "gelu", {"approximate": True}, (-5, 5), [0], "float32", {}),
    ("leaky_relu", "leaky_relu", {}, (-3, 3), [0], "float32", {}),
    ("leaky_relu_a", "leaky_relu", {"alpha": 0.1}, (-3, 3), [0], "float32", {}),
    ("elu", "elu", {"alpha": 0.7}, (-4, 3), [0], "float32", {}),
    ("softplus", "softplus", {}, (-30, 30), [0, 20], "float32", {}),
    ("softplus_attrs", "softplus", {"beta": 2.0, "threshold": 3.0}, (-3, 3), [1.5],
     "float64", {}),
    ("brelu", "brelu", {"t_min": -1.0, "t_max": 2.0}, (-3, 4), [-1, 2], "float32", {}),
    ("logsigmoid", "logsigmoid", {}, (-30, 30), [0], "float32", {}),
    ("tanh_shrink", "tanh_shrink", {}, (-3, 3), [0], "float64", {}),
    ("softshrink", "softshrink", {"lambda": 0.3}, (-2, 2), [-0.3, 0.3], "float32", {}),
    ("hard_shrink", "hard_shrink", {"threshold": 0.4}, (-2, 2), [-0.4, 0.4], "float32", {}),
    ("mish", "mish", {}, (-25, 25), [0, 20], "float32", {}),
    ("mish64", "mish", {}, (-22, 22), [0, 20], "float64", {}),
    ("clip", "clip", {"min": -0.5, "max": 0.7}, (-2, 2), [-0.5, 0.7], "float32", {}),
    ("clip_tensors", "clip", {"min": -9.0, "max": 9.0}, (-2, 2), [-0.25, 0.5], "float32",
     {"Min": np.array([-0.25], "float32"), "Max": np.array([0.5], "float32")}),
    ("pow", "pow", {"factor": 3.0}, (-2, 2), [0], "float32", {}),
    ("pow_frac", "pow", {"factor": 2.5}, (0.1, 3), [1], "float64", {}),
    ("pow_tensor", "pow", {"factor": 1.0}, (0.1, 3), [2], "float32",
     {"FactorTensor": np.array([-1.5], "float32")}),
]


def _input(lo, hi, exact, dtype):
    x = rng.uniform(lo, hi, 15 - len(exact))
    return np.concatenate([x, exact]).reshape(3, 5).astype(dtype)


def run_case(name, op_type, attrs, x_range, exact, dtype, extra):
    """Out, X@GRAD, the program's bytes and the attributes as the op desc holds them."""
    x_value = _input(*x_range, exact, dtype)
    w_value = rng.standard_normal((3, 5)).astype(dtype)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 5], dtype)
        x.stop_gradient = False
        w = paddle.static.data("w", [3, 5], dtype)
        ins = {"X": [x]}
        for slot, value in extra.items():
            ins[slot] = [paddle.static.data(slot.lower(), list(value.shape), str(value.dtype))]
        block = main.global_block()
        out = block.create_var(name="out", dtype=dtype, shape=[3, 5])
        op = block.append_op(type=op_type, inputs=ins, outputs={"Out": [out]}, attrs=attrs)
        dx, = paddle.static.gradients([out], [x], target_gradients=[w])
    for each in block.ops:               # the Python call stacks would be most of the file
        each._set_attr("op_callstack", [])
    feed = {"x": x_value, "w": w_value, **{k.lower(): v for k, v in extra.items()}}
    got_out, got_dx = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed=feed, fetch_list=[out, dx])
    stored = {k: op.attr(k) for k in attrs}
    return feed, got_out, got_dx, main.desc.serialize_to_string(), stored, dx.name


def main():
    paddle.enable_static()
    arrays, index = {}, []
    for name, op_type, attrs, x_range, exact, dtype, extra in CASES:
        feed, out, dx, program, stored, dx_name = run_case(
            name, op_type, attrs, x_range, exact, dtype, extra)
        for k, v in feed.items():
            arrays[f"{name}/feed/{k}"] = v
        arrays[f"{name}/out"], arrays[f"{name}/dx"] = out, dx
        arrays[f"{name}/program"] = np.frombuffer(program, dtype=np.uint8)
        index.append({"name": name, "op": op_type, "attrs": stored, "feeds": list(feed),
                      "slots": {k: k.lower() for k in extra}, "dx": dx_name})
    arrays["index"] = np.array(json.dumps(index))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(index)} cases to {OUT}")


if __name__ == "__main__":
    main()
