"""Capture how PaddlePaddle 2.6.2 writes the ops paddle_nb exports (run with .venv-interop).

    .venv-interop/bin/python interop/ops/export_refs.py [--out tests/fixtures/paddle26/export]

Each case builds one op (the one of its type recorded) with PaddlePaddle's own Python API in
static mode (or, where 2.6's API writes a newer op type, and for the newer ops listed as data
in ``interop/op_cases26.py``, with ``LayerHelper.append_op``, which fills the slots and
attributes as PaddlePaddle's ``Operator`` does), and records its OpDesc: the slots with their
argument counts and the attributes with their values (not ``op_callstack``, which names
files). ``tests/compat/test_export_paddle26.py`` builds the same ops with paddle_nb, runs
``paddle_nb.io.export26.normalize`` over them, and checks they match these descs. Also
records which of paddle_nb's control-flow op types 2.6.2 registers.
"""

import argparse
import json
import pathlib

import sys

import paddle
from paddle.base import core
from paddle.base.layer_helper import LayerHelper
from paddle.base.proto import framework_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "interop"))
from op_cases26 import OP_FORM_CASES  # noqa: E402  (plain data: the newer ops' cases)
SKIP_ATTRS = {"op_callstack"}
CONTROL_FLOW = ["recurrent", "rnn_memory_helper", "split_lod_tensor", "merge_lod_tensor",
                "conditional_block", "select_input", "select_output", "while", "assign"]


def _raw(op_type, inputs, outputs, attrs):
    """An op as PaddlePaddle's Operator writes it, for ops its 2.6 API no longer emits."""
    helper = LayerHelper(op_type)
    outs = {slot: [helper.create_variable_for_type_inference(dtype) for _ in range(n)]
            for slot, (n, dtype) in outputs.items()}
    helper.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)


def _binary(op_type, x, y):
    return lambda: _raw(op_type, {"X": x, "Y": y}, {"Out": (1, "float32")}, {"axis": -1})


def cases(x, y, ids, img):
    """name -> (the op type recorded, a function building it) from feeds x and y [-1, 6, 4],
    ids [-1, 1] int64 and img [-1, 4, 9, 9]."""
    f = paddle.nn.functional
    label = lambda: paddle.cast(ids, "int64")                        # noqa: E731
    topk = lambda: _raw("top_k", {"X": x}, {"Out": (1, "float32"),    # noqa: E731
                                            "Indices": (1, "int64")}, {"k": 2})
    cases = {
        "split_num_negative_axis": ("split", lambda: paddle.split(x, 2, axis=-1)),
        "split_sections": ("split", lambda: paddle.split(x, [1, 3, 2], axis=1)),
        "split_sections_minus_one": ("split", lambda: paddle.split(x, [1, -1, 2], axis=-2)),
        "concat_negative_axis": ("concat", lambda: paddle.concat([x, y], axis=-1)),
        "stack_negative_axis": ("stack", lambda: paddle.stack([x, y], axis=-1)),
        "slice_negative_axes": ("slice", lambda: paddle.slice(x, axes=[1, -1], starts=[1, 0],
                                                             ends=[-1, 3])),
        "unsqueeze2_negative_axis": ("unsqueeze2", lambda: paddle.unsqueeze(x, -1)),
        "squeeze2_negative_axis": ("squeeze2", lambda: paddle.squeeze(paddle.unsqueeze(x, -1),
                                                                     [-1])),
        "softmax_negative_axis": ("softmax", lambda: f.softmax(x, axis=-1)),
        "log_softmax_negative_axis": ("log_softmax", lambda: f.log_softmax(x, axis=-1)),
        "reduce_sum_negative_dim": ("reduce_sum", lambda: paddle.sum(x, axis=-1)),
        "reduce_mean_keep_dim": ("reduce_mean", lambda: paddle.mean(x, axis=[1, 2], keepdim=True)),
        "reduce_max_all": ("reduce_max", lambda: paddle.max(x)),
        "reduce_min_dim": ("reduce_min", lambda: paddle.min(x, axis=1)),
        "arg_max_negative_axis": ("arg_max", lambda: paddle.argmax(x, axis=-1)),
        "transpose2": ("transpose2", lambda: paddle.transpose(x, [0, 2, 1])),
        "reshape2": ("reshape2", lambda: paddle.reshape(x, [0, -1])),
        "assign": ("assign", lambda: paddle.assign(x)),
        "cast": ("cast", lambda: paddle.cast(x, "int32")),
        "scale": ("scale", lambda: paddle.scale(x, 2.0, bias=1.0, bias_after_scale=False)),
        "mean": ("mean", lambda: _raw("mean", {"X": x}, {"Out": (1, "float32")}, {})),
        "sum": ("sum", lambda: paddle.add_n([x, y])),
        "top_k": ("top_k", topk),
        "lookup_table_v2": ("lookup_table_v2", lambda: paddle.static.nn.embedding(ids, [10, 4])),
        "fill_constant": ("fill_constant", lambda: paddle.full([2, 3], 1.5, "float32")),
        "fill_constant_int": ("fill_constant", lambda: paddle.full([1], 3, "int64")),
        "conv2d": ("conv2d", lambda: paddle.static.nn.conv2d(img, 6, 3, stride=2, padding=1,
                                                            groups=2, bias_attr=False)),
        "pool2d_max": ("pool2d", lambda: f.max_pool2d(img, 2, stride=2)),
        "pool2d_avg": ("pool2d", lambda: f.avg_pool2d(img, 2, stride=1)),
        "batch_norm": ("batch_norm", lambda: paddle.static.nn.batch_norm(img, is_test=True)),
        "dropout": ("dropout", lambda: f.dropout(x, 0.3, training=False,
                                                 mode="downscale_in_infer")),
        "matmul_v2": ("matmul_v2", lambda: paddle.matmul(x, y, transpose_y=True)),
        "matmul": ("matmul", lambda: _raw("matmul", {"X": x, "Y": y}, {"Out": (1, "float32")},
                                          {"transpose_Y": True, "alpha": 0.5})),
        "mul": ("mul", lambda: _raw("mul", {"X": x, "Y": paddle.full([4, 3], 0.5)},
                                    {"Out": (1, "float32")}, {"x_num_col_dims": 2})),
        "logical_and": ("logical_and", lambda: paddle.logical_and(x > 0, y > 0)),
        "logical_or": ("logical_or", lambda: paddle.logical_or(x > 0, y > 0)),
        "logical_xor": ("logical_xor", lambda: paddle.logical_xor(x > 0, y > 0)),
        "logical_not": ("logical_not", lambda: paddle.logical_not(x > 0)),
        "increment": ("increment", lambda: paddle.increment(paddle.full([1], 0, "int64"))),
        "fill_zeros_like": ("fill_zeros_like", lambda: _raw(
            "fill_zeros_like", {"X": x}, {"Out": (1, "float32")}, {})),
        "fill_constant_batch_size_like": ("fill_constant_batch_size_like", lambda: _raw(
            "fill_constant_batch_size_like", {"Input": x}, {"Out": (1, "float32")},
            {"shape": [-1, 3], "value": 2.5, "dtype": 5})),
        "accuracy": ("accuracy", lambda: _accuracy(topk, label)),
        "cross_entropy": ("cross_entropy", lambda: _raw(
            "cross_entropy", {"X": f.softmax(paddle.reshape(x, [-1, 24])), "Label": ids},
            {"Y": (1, "float32")}, {})),
        "softmax_with_cross_entropy": ("softmax_with_cross_entropy", lambda: (
            f.softmax_with_cross_entropy(paddle.reshape(x, [-1, 24]), ids))),
    }
    cond = lambda: paddle.static.nn.cond(paddle.sum(x) > 0, lambda: x * 2.0,   # noqa: E731
                                         lambda: x * -1.0)
    cases.update({
        "conditional_block": ("conditional_block", cond), "select_input": ("select_input", cond),
        "while": ("while", lambda: paddle.static.nn.while_loop(
            lambda i: i < 3, lambda i: [i + 1], [paddle.full([1], 0, "int64")])),
        "select_output": ("select_output", lambda: _raw(
            "select_output", {"X": x, "Mask": paddle.full([1], 1, "int32")},
            {"Out": (2, "float32")}, {})),
        "split_lod_tensor": ("split_lod_tensor", lambda: _split_merge(x)),
        "merge_lod_tensor": ("merge_lod_tensor", lambda: _split_merge(x)),
    })
    feeds = {"x": x, "y": y, "ids": ids, "img": img}
    for name, (op_type, inputs, outputs, attrs) in OP_FORM_CASES.items():
        cases[name] = (op_type, lambda spec=(op_type, inputs, outputs, attrs): _from_spec(
            feeds, *spec))
    for op_type in ("elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
                    "elementwise_max", "elementwise_min", "elementwise_pow"):
        cases[op_type] = (op_type, _binary(op_type, x, y))
    for op_type in ("less_than", "less_equal", "greater_than", "greater_equal", "equal",
                    "not_equal"):
        cases[op_type] = (op_type, lambda op_type=op_type: getattr(paddle, op_type)(x, y))
    for op_type in ("relu", "sigmoid", "tanh", "exp", "log", "sqrt", "square", "abs", "sign"):
        cases[op_type] = (op_type, lambda op_type=op_type: getattr(
            paddle.nn.functional if op_type in ("relu", "sigmoid") else paddle, op_type)(x))
    return cases


def _from_spec(feeds, op_type, inputs, outputs, attrs):
    """An op of ``op_cases26``: feeds by name, constants by ``paddle.full``."""
    def var(spec):
        return feeds[spec] if isinstance(spec, str) else paddle.full(*spec[:1], spec[2], spec[1])
    ins = {slot: [var(s) for s in spec] if isinstance(spec, list) else var(spec)
           for slot, spec in inputs.items()}
    _raw(op_type, ins, {slot: (n, "float32") for slot, n in outputs.items()}, attrs)


def _split_merge(x):
    """IfElse's pair (2.6 has no Python API left that writes them): rows by a [N, 1] mask."""
    mask = paddle.sum(x, axis=[1, 2]).unsqueeze(-1) > 0
    helper = LayerHelper("split_lod_tensor")
    t, f = (helper.create_variable_for_type_inference("float32") for _ in range(2))
    helper.append_op(type="split_lod_tensor", inputs={"X": x, "Mask": mask},
                     outputs={"OutTrue": t, "OutFalse": f}, attrs={"level": 0})
    _raw("merge_lod_tensor", {"X": x, "Mask": mask, "InTrue": t, "InFalse": f},
         {"Out": (1, "float32")}, {"level": 0})


def _accuracy(topk, label):
    topk()
    block = paddle.static.default_main_program().global_block()
    values, indices = block.ops[-1].output("Out")[0], block.ops[-1].output("Indices")[0]
    _raw("accuracy", {"Out": block.var(values), "Indices": block.var(indices), "Label": label()},
         {"Accuracy": (1, "float32"), "Correct": (1, "int32"), "Total": (1, "int32")}, {})


def desc_of(op):
    """{"type", "inputs": {slot: count}, "outputs": {slot: count}, "attrs": {name: value}}."""
    d = op.desc
    attrs = {n: d.attr(n) for n in sorted(d.attr_names())
             if n not in SKIP_ATTRS and d.attr_type(n) not in (core.AttrType.BLOCK,
                                                              core.AttrType.BLOCKS)}
    return {"type": op.type,
            "inputs": {n: len(d.input(n)) for n in sorted(d.input_names())},
            "outputs": {n: len(d.output(n)) for n in sorted(d.output_names())},
            "attrs": {k: v.value if hasattr(v, "value") else v for k, v in attrs.items()}}


def _feed_fetch_forms():
    """The feed and fetch ops of a model saved by ``paddle.static.save_inference_model``."""
    import tempfile
    main_program = paddle.static.Program()
    with paddle.static.program_guard(main_program, paddle.static.Program()):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.nn.functional.relu(x)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with tempfile.TemporaryDirectory() as tmp:
        paddle.static.save_inference_model(f"{tmp}/m", [x], [y], exe, program=main_program)
        program, _, _ = paddle.static.load_inference_model(f"{tmp}/m", exe)
    ops = program.global_block().ops
    return {op_type: desc_of(next(op for op in ops if op.type == op_type))
            for op_type in ("feed", "fetch")}


def _versions():
    """(the ProgramDesc version, {op type: version}) that 2.6.2 writes into every program."""
    program = paddle.static.Program()
    desc = framework_pb2.ProgramDesc.FromString(program.desc.serialize_to_string())
    return desc.version.version, {p.op_name: p.op_version.version
                                  for p in desc.op_version_map.pair}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "tests/fixtures/paddle26/export")
    args = parser.parse_args()
    paddle.enable_static()
    forms = {}
    for name, (op_type, _) in cases(None, None, None, None).items():
        main_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, paddle.static.Program()):
            x = paddle.static.data("x", [-1, 6, 4], "float32")
            y = paddle.static.data("y", [-1, 6, 4], "float32")
            ids = paddle.static.data("ids", [-1, 1], "int64")
            img = paddle.static.data("img", [-1, 4, 9, 9], "float32")
            cases(x, y, ids, img)[name][1]()
        ops = [op for op in main_program.global_block().ops if op.type == op_type]
        forms[name] = desc_of(ops[0])
    forms.update(_feed_fetch_forms())
    protos = {framework_pb2.OpProto.FromString(b).type for b in core.get_all_op_protos()}
    args.out.mkdir(parents=True, exist_ok=True)
    version, op_versions = _versions()
    payload = {"paddle": paddle.__version__, "forms": forms, "program_version": version,
               "op_versions": op_versions,
               "registered": {op: op in protos for op in CONTROL_FLOW}}
    (args.out / "op_forms.json").write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(forms)} op forms to {args.out / 'op_forms.json'}")


if __name__ == "__main__":
    main()
