"""The ops PaddlePaddle 2.6.2's random functions write in static mode, recorded.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2):

    .venv-interop/bin/python interop/api/random_api_refs.py --out tests/fixtures/paddle26/api

Each case of ``CASES`` is ``build(paddle, data) -> [outputs]``, written with the names a 2.6
script uses (``paddle.rand``, ``paddle.randint_like``, ``x.multinomial``), so the same function
builds the program here and in paddle_nb (tests/api/test_random_api.py). ``data(name)`` makes
the fed input ``name`` of ``FEEDS``. For each case the script records, under a fresh name
generator: every op of the main program (type, input and output names, attributes without
``op_role`` and the call stack), each output's name and the shape and dtype its VarDesc
declares, the shape and dtype of what running it fetched, and the serialized program.
Random values cannot match (the generators differ): paddle_nb compares the ops, names,
attributes, declared and fetched shapes and dtypes. Output: ``random_api.json``.
"""

import argparse
import base64
import json
import pathlib

import numpy as np

__all__ = ["CASES", "FEEDS", "IGNORED_ATTRS"]

FEEDS = {
    "x": np.array([[0.2, 0.5, 0.8], [0.3, 0.6, 0.1]], "float32"),
    "y": np.array([[1.0, 2.0, 0.5], [0.25, 1.5, 3.0]], "float32"),
    "shape64": np.array([3, 2], "int64"),
    "rows": np.array(4, "int32"),
}
IGNORED_ATTRS = {"op_callstack", "op_namescope", "op_device", "with_quant_attr", "op_role",
                 "op_role_var"}

CASES = {
    "rand": lambda paddle, data: [paddle.rand([2, 3])],
    "rand_float64": lambda paddle, data: [paddle.rand([4], dtype="float64")],
    "rand_shape_tensor": lambda paddle, data: [paddle.rand(data("shape64"))],
    "rand_shape_list": lambda paddle, data: [paddle.rand([data("rows"), 3])],
    "randn": lambda paddle, data: [paddle.randn([2, 3])],
    "standard_normal": lambda paddle, data: [paddle.standard_normal([3, 1], "float64")],
    "uniform": lambda paddle, data: [paddle.uniform([2, 3], min=-2.0, max=3.0, seed=5)],
    "uniform_shape_list": lambda paddle, data: [paddle.uniform([2, data("rows")], "float64")],
    "normal": lambda paddle, data: [paddle.normal(1.0, 2.0, [2, 3])],
    "normal_mean_tensor": lambda paddle, data: [paddle.normal(data("x"), 2.0)],
    "normal_std_tensor": lambda paddle, data: [paddle.normal(1.0, data("y"))],
    "normal_both_tensors": lambda paddle, data: [paddle.normal(data("x"), data("y"))],
    "randint": lambda paddle, data: [paddle.randint(0, 10, [2, 3])],
    "randint_high_none": lambda paddle, data: [paddle.randint(5)],
    "randint_int32": lambda paddle, data: [paddle.randint(-3, 10, [2, 3], dtype="int32")],
    "randint_shape_tensor": lambda paddle, data: [paddle.randint(0, 3, data("shape64"))],
    "randint_like": lambda paddle, data: [paddle.randint_like(data("x"), 0, 5)],
    "randint_like_int64": lambda paddle, data: [paddle.randint_like(data("x"), 7, dtype="int64")],
    "randperm": lambda paddle, data: [paddle.randperm(6)],
    "randperm_float64": lambda paddle, data: [paddle.randperm(5, dtype="float64")],
    "bernoulli": lambda paddle, data: [paddle.bernoulli(data("x"))],
    "multinomial": lambda paddle, data: [paddle.multinomial(data("x"), 4, True)],
    "multinomial_method": lambda paddle, data: [data("x").multinomial(2)],
    "poisson": lambda paddle, data: [paddle.poisson(data("y"))],
    "exponential_": lambda paddle, data: [paddle.tensor.exponential_(data("y"), 2.0)],
    "exponential_method": lambda paddle, data: [data("y").exponential_()],
    "uniform_random_batch_size_like": lambda paddle, data: [
        paddle.tensor.random.uniform_random_batch_size_like(data("x"), [1, 4]),
        paddle.tensor.random.uniform_random_batch_size_like(
            data("y"), [5, 1, 7], "float64", input_dim_idx=1, output_dim_idx=2, min=2.0,
            max=3.0, seed=3)],
}


def build(paddle, name):
    """(main program, outputs) of case ``name`` in PaddlePaddle, under a fresh name generator."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        made = {}

        def data(key):
            if key not in made:
                made[key] = paddle.static.data(key, list(FEEDS[key].shape), str(FEEDS[key].dtype))
            return made[key]
        outs = CASES[name](paddle, data)
    return main, outs


def ops_of(program):
    return [{"type": op.type,
             "inputs": {k: list(op.input(k)) for k in op.input_names},
             "outputs": {k: list(op.output(k)) for k in op.output_names},
             "attrs": {k: op.attr(k) for k in op.attr_names if k not in IGNORED_ATTRS}}
            for op in program.global_block().ops]


def record(paddle, name):
    main, outs = build(paddle, name)
    feed = {k: v for k, v in FEEDS.items() if main.global_block().has_var(k)}
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=outs)
    for op in main.global_block().ops:
        op.desc.remove_attr("op_callstack")
    return {"ops": ops_of(main),
            "outputs": [{"name": o.name, "shape": list(o.shape),
                         "dtype": str(o.dtype).replace("paddle.", "")} for o in outs],
            "fetched": [{"shape": list(np.shape(v)), "dtype": str(np.asarray(v).dtype)}
                        for v in got],
            "program": base64.b64encode(main.desc.serialize_to_string()).decode()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import paddle
    paddle.enable_static()
    out = {name: record(paddle, name) for name in CASES}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "random_api.json").write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"random_api_refs: wrote {args.out / 'random_api.json'} ({len(out)} cases)")


if __name__ == "__main__":
    main()
