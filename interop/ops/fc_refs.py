"""PaddlePaddle 2.6.2's own numbers for the ``fc`` op (paddle_nb/ops/fc.py), which its
inference passes write (``fc_fuse_pass``: mul / matmul_v2 + elementwise_add [+ relu]) and which
has no grad op. Run with the interop virtual environment:

    .venv-interop/bin/python interop/ops/fc_refs.py --out tests/fixtures/paddle26/ops

Each case appends one ``fc`` op (LayerHelper: PaddlePaddle has no public function for it) to a
small static program, runs it on the CPU and stores in ``fc_ops.npz``: ``<case>/program``
(the serialized ProgramDesc as uint8), ``<case>/feed/<name>`` and ``<case>/fetch/out``.
tests/ops/test_fc_paddle.py runs each program in paddle_nb on the same feeds.
"""

import argparse
import pathlib

import numpy as np
import paddle

rng = np.random.default_rng(2028)

# case -> (input shape, W shape, bias shape or None, in_num_col_dims, activation_type)
CASES = {
    "matrix_bias": ((4, 6), (6, 5), (5,), 1, ""),
    "seq_bias_relu": ((2, 3, 6), (6, 4), (4,), 2, "relu"),
    "flattened_no_bias": ((2, 3, 4), (12, 5), None, 1, ""),
    "row_bias_relu": ((3, 8), (8, 2), (1, 2), 1, "relu"),
}


def build(x_shape, w_shape, b_shape, cols, act):
    feeds = {"x": rng.standard_normal(x_shape).astype("float32"),
             "w": rng.standard_normal(w_shape).astype("float32")}
    if b_shape is not None:
        feeds["b"] = rng.standard_normal(b_shape).astype("float32")
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        v = {k: paddle.static.data(k, list(a.shape), "float32") for k, a in feeds.items()}
        helper = paddle.base.layer_helper.LayerHelper("fc")
        out = helper.create_variable_for_type_inference("float32")
        inputs = {"Input": [v["x"]], "W": [v["w"]]}
        if "b" in v:
            inputs["Bias"] = [v["b"]]
        helper.append_op(type="fc", inputs=inputs, outputs={"Out": [out]},
                         attrs={"in_num_col_dims": cols, "activation_type": act})
    exe = paddle.static.Executor(paddle.CPUPlace())
    (got,) = exe.run(main, feed=feeds, fetch_list=[out])
    return main, feeds, got


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out_dir = pathlib.Path(parser.parse_args().out)
    paddle.enable_static()
    record = {}
    for name, spec in CASES.items():
        program, feeds, got = build(*spec)
        record[f"{name}/program"] = np.frombuffer(program.desc.serialize_to_string(), np.uint8)
        record.update({f"{name}/feed/{k}": a for k, a in feeds.items()})
        record[f"{name}/fetch/out"] = got
    out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(out_dir / "fc_ops.npz", **record)
    print(f"wrote {len(CASES)} cases to {out_dir / 'fc_ops.npz'}")


if __name__ == "__main__":
    main()
