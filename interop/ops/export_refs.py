"""Capture how PaddlePaddle 2.6.2 writes the ops paddle_nb exports (run with .venv-interop).

    .venv-interop/bin/python interop/ops/export_refs.py [--out tests/fixtures/paddle26/export]

Each case builds one op with PaddlePaddle's own Python API in static mode (or, where 2.6's
API writes a newer op type, with ``LayerHelper.append_op``, which fills the slots and
attributes as PaddlePaddle's ``Operator`` does), and records its OpDesc: the slots with their
argument counts and the attributes with their values (not ``op_callstack``, which names
files). ``tests/compat/test_export_paddle26.py`` builds the same ops with paddle_nb, runs
``paddle_nb.io.export26.normalize`` over them, and checks they match these descs. Also
records which of paddle_nb's control-flow op types 2.6.2 registers.
"""

import argparse
import json
import pathlib

import paddle
from paddle.base import core
from paddle.base.layer_helper import LayerHelper
from paddle.base.proto import framework_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
SKIP_ATTRS = {"op_callstack"}
CONTROL_FLOW = ["recurrent", "rnn_memory_helper", "split_lod_tensor", "merge_lod_tensor",
                "conditional_block", "select_input", "select_output", "while", "assign"]


def _raw(op_type, inputs, outputs, attrs):
    """An op as PaddlePaddle's Operator writes it, for ops its 2.6 API no longer emits."""
    helper = LayerHelper(op_type)
    outs = {slot: [helper.create_variable_for_type_inference(dtype) for _ in range(n)]
            for slot, (n, dtype) in outputs.items()}
    helper.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)


def cases(x, y, ids):
    """name -> a function building the op from feeds x [-1, 6, 4], y [-1, 6, 4], ids int64."""
    return {
        "split_num_negative_axis": lambda: paddle.split(x, 2, axis=-1),
        "split_sections": lambda: paddle.split(x, [1, 3, 2], axis=1),
        "split_sections_minus_one": lambda: paddle.split(x, [1, -1, 2], axis=-2),
        "concat_negative_axis": lambda: paddle.concat([x, y], axis=-1),
        "stack_negative_axis": lambda: paddle.stack([x, y], axis=-1),
        "slice_negative_axes": lambda: paddle.slice(x, axes=[1, -1], starts=[1, 0], ends=[-1, 3]),
        "squeeze2_negative_axis": lambda: paddle.squeeze(paddle.unsqueeze(x, -1), [-1]),
        "softmax_negative_axis": lambda: paddle.nn.functional.softmax(x, axis=-1),
        "log_softmax_negative_axis": lambda: paddle.nn.functional.log_softmax(x, axis=-1),
        "reduce_sum_negative_dim": lambda: paddle.sum(x, axis=-1),
        "reduce_mean_keep_dim": lambda: paddle.mean(x, axis=[1, 2], keepdim=True),
        "reduce_max_all": lambda: paddle.max(x),
        "arg_max_negative_axis": lambda: paddle.argmax(x, axis=-1),
        "transpose2": lambda: paddle.transpose(x, [0, 2, 1]),
        "reshape2": lambda: paddle.reshape(x, [0, -1]),
        "elementwise_add": lambda: _raw("elementwise_add", {"X": x, "Y": y},
                                        {"Out": (1, "float32")}, {"axis": -1}),
        "assign": lambda: paddle.assign(x),
        "cast": lambda: paddle.cast(x, "int32"),
        "scale": lambda: paddle.scale(x, 2.0, bias=1.0, bias_after_scale=False),
        "mean": lambda: _raw("mean", {"X": x}, {"Out": (1, "float32")}, {}),
        "top_k": lambda: _raw("top_k", {"X": x}, {"Out": (1, "float32"), "Indices": (1, "int64")},
                              {"k": 2}),
        "lookup_table_v2": lambda: paddle.static.nn.embedding(ids, size=[10, 4]),
        "fill_constant": lambda: paddle.full([2, 3], 1.5, "float32"),
    }


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "tests/fixtures/paddle26/export")
    args = parser.parse_args()
    paddle.enable_static()
    forms = {}
    for name in cases(None, None, None):
        main_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, paddle.static.Program()):
            x = paddle.static.data("x", [-1, 6, 4], "float32")
            y = paddle.static.data("y", [-1, 6, 4], "float32")
            ids = paddle.static.data("ids", [-1, 1], "int64")
            cases(x, y, ids)[name]()
        ops = main_program.global_block().ops
        forms[name] = [desc_of(op) for op in ops]
    protos = {framework_pb2.OpProto.FromString(b).type for b in core.get_all_op_protos()}
    args.out.mkdir(parents=True, exist_ok=True)
    payload = {"paddle": paddle.__version__, "forms": forms,
               "registered": {op: op in protos for op in CONTROL_FLOW}}
    (args.out / "op_forms.json").write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(forms)} op forms to {args.out / 'op_forms.json'}")


if __name__ == "__main__":
    main()
