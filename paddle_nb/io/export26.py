"""Writing a program's ops the way PaddlePaddle 2.6 writes them, for the files it loads.

paddle_nb builds ops in PaddlePaddle 1.8's form; PaddlePaddle 2.6.2 runs most of them, but
not all: it fails on ``split`` with a negative ``axis`` (its Python API always writes the
positive one) and does not register ``rnn_memory_helper`` at all. ``normalize(desc)`` returns a
copy of a ProgramDesc in 2.6's form, driven by the tables below (captured from PaddlePaddle
2.6.2 by ``interop/ops/export_refs.py``): unregistered ops become their 2.6 equivalent,
axes are made positive where 2.6 writes them so, every input slot 2.6 declares is present (empty
when unused, as 2.6's ``Operator`` writes it), the attributes match 2.6's list and values, and
the program carries 2.6's version stamps.
``save_inference_model`` writes ``normalize(program.desc)``; the user's program is not touched.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.framework.attrs import read_attr, write_attr
from paddle_nb.ops.machinery import registry
from paddle_nb.proto import framework_pb2

__all__ = ["normalize", "REWRITES", "POSITIVE_AXES", "EXTRA_INPUTS", "ADD_ATTRS", "DROP_ATTRS",
           "FIXED_ATTRS", "OP_VERSIONS"]

T = framework_pb2.AttrType

# Ops 2.6.2 does not register -> (the 2.6 op type, attributes to drop). rnn_memory_helper is a
# copy of X to Out inside a StaticRNN step block: 2.6's ``assign`` with the same slots.
REWRITES = {"rnn_memory_helper": ("assign", ("dtype",))}

# op type -> (the input slot whose rank counts, the attribute holding axes): 2.6's Python API
# writes these axes positive (``split(x, 2, axis=-1)`` writes axis=rank-1), and 2.6's split
# kernel refuses a negative one. Other ops (concat, stack, softmax...) keep negative axes in 2.6.
POSITIVE_AXES = {"split": ("X", "axis"), "slice": ("Input", "axes")}

# Input slots 2.6 declares that paddle_nb's op does not (all dispensable: tensors that would
# replace an attribute). 2.6 writes each unused one as an empty slot.
EXTRA_INPUTS = {
    "split": ("AxisTensor", "SectionsTensorList"), "concat": ("AxisTensor",),
    "slice": ("StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"),
    "unsqueeze2": ("AxesTensor", "AxesTensorList"), "reshape2": ("Shape", "ShapeTensor"),
    "top_k": ("K",), "fill_constant": ("ValueTensor", "ShapeTensor", "ShapeTensorList"),
    "gaussian_random": ("ShapeTensor", "ShapeTensorList"),
    "uniform_random": ("ShapeTensor", "ShapeTensorList"),
}

# Attributes every 2.6 op carries (its OpProtoAndCheckerMaker adds them), with what 2.6's
# Python writes, and per op type the ones 2.6 writes that paddle_nb's op does not declare.
COMMON_ATTRS = {"op_role_var": (T.STRINGS, []), "op_namescope": (T.STRING, "/"),
                "op_device": (T.STRING, ""), "with_quant_attr": (T.BOOLEAN, False)}
ADD_ATTRS: dict[str, dict[str, tuple[int, Any]]] = {
    "split": {"mkldnn_data_type": (T.STRING, "float32"), "use_mkldnn": (T.BOOLEAN, False)},
    "sum": {"mkldnn_data_type": (T.STRING, "float32"), "use_mkldnn": (T.BOOLEAN, False)},
    "reshape2": {"use_mkldnn": (T.BOOLEAN, False)}, "cast": {"use_mkldnn": (T.BOOLEAN, False)},
    "matmul": {"use_mkldnn": (T.BOOLEAN, False)}, "pool2d": {"use_cudnn": (T.BOOLEAN, True)},
}
# paddle_nb's attributes (1.8's) that 2.6 keeps out of the OpDesc: its "extra" attributes
# (oneDNN fusions and quantization, settable at run time), training-only ones of dropout, and
# the garbage collector's list of control-flow ops, which 2.6 writes only in backward.
_FUSED = ("fused_reshape_Out", "fused_reshape_X", "fused_reshape_Y", "fused_transpose_Out",
          "fused_transpose_X", "fused_transpose_Y")
DROP_ATTRS = {
    "concat": ("mkldnn_data_type", "use_quantizer"), "softmax": ("data_format",),
    "transpose2": ("data_format", "mkldnn_data_type", "use_quantizer"),
    "lookup_table_v2": ("is_distributed", "is_sparse", "remote_prefetch"),
    "batch_norm": ("fuse_with_relu",), "conv2d": ("is_test",), "pool2d": ("is_test",),
    "dropout": ("fix_seed", "seed"), "matmul": _FUSED,
    "matmul_v2": _FUSED + ("mkldnn_data_type",),
    "mul": ("force_fp32_output", "scale_out", "scale_x", "scale_y"),
    "conditional_block": ("skip_eager_deletion_vars",), "while": ("skip_eager_deletion_vars",),
    # 2.6 declares no is_test on these (its conv2d_transpose kernels have no training mode)
    "conv2d_transpose": ("is_test",), "depthwise_conv2d": ("is_test",),
    "depthwise_conv2d_transpose": ("is_test",),
}
# Attributes 2.6 does not declare because its kernel fixes the value (relu6 clips at 6, swish
# is x * sigmoid(x)): dropped like DROP_ATTRS, but another value could not be written in 2.6's
# form, so normalize refuses it rather than export a model that computes something else.
FIXED_ATTRS = {"relu6": {"threshold": 6.0}, "swish": {"beta": 1.0}}
_INT_DTYPES = (2, 3)           # VarType INT32, INT64: fill_constant's str_value is an int

# What 2.6.2 stamps on every program: its version, and the version of each op type whose form
# changed since 1.x (new attributes: compare ops' force_cpu, fill_constant's str_value ...).
# The ops above are in that form, so the export says so; only the op types it holds are listed.
PROGRAM_VERSION = 2006002
OP_VERSIONS = {
    "allclose": 2,
    "affine_grid": 1, "clip": 1, "coalesce_tensor": 2, "conv2d": 1, "conv2d_transpose": 2,
    "conv3d": 1, "conv3d_transpose": 1, "cumsum": 1, "depthwise_conv2d": 1, "grid_sampler": 1,
    "pixel_shuffle": 1,
    "depthwise_conv2d_transpose": 1, "elementwise_add": 1, "elementwise_div": 1,
    "elementwise_mul": 1, "elementwise_pow": 1, "elementwise_sub": 1, "equal": 1,
    "fill_constant": 2, "gather": 1, "greater_equal": 1, "greater_than": 1, "hard_shrink": 1,
    "instance_norm": 1, "lamb": 1, "leaky_relu": 1, "less_equal": 1, "less_than": 1,
    "lookup_table_v2": 1, "matmul": 1, "mish": 1, "momentum": 1, "not_equal": 1, "softplus": 1,
    # paddle.static's auc and print, the detection ops (ops/auc.py, debug.py, detection_*.py)
    "auc": 1, "distribute_fpn_proposals": 2, "generate_proposals_v2": 1, "matrix_nms": 1,
    "print": 1, "roi_align": 3, "yolo_box": 1,
    # the manipulation ops (ops/strided.py, set_value.py, grids.py, counting.py)
    "flip": 1, "linspace": 1, "roll": 2, "set_value": 4, "unique_consecutive": 1,
}
OP_VERSIONS.update({"p_norm": 1, "trace": 1})     # the common layers' and linear algebra's ops
OP_VERSIONS.update({"lstsq": 1})     # paddle.linalg.lstsq (ops/matrix_solvers.py)
# RoI pooling, data_norm and the Fluid embedding (ops/detection_pool.py, data_norm.py,
# lookup_table.py)
OP_VERSIONS.update({"roi_pool": 2, "data_norm": 1, "lookup_table": 1})


def normalize(desc: Any) -> Any:
    """A copy of the ProgramDesc ``desc`` with every op in PaddlePaddle 2.6's form."""
    out = framework_pb2.ProgramDesc()
    out.CopyFrom(desc)
    for block in out.blocks:
        for op in block.ops:
            _normalize_op(out, block, op)
    _stamp_versions(out)
    return out


def _stamp_versions(desc: Any) -> None:
    """2.6's program version and the versions of the op types ``desc`` holds, by name."""
    desc.version.version = PROGRAM_VERSION
    held = {op.type for block in desc.blocks for op in block.ops}
    versions = {p.op_name: p.op_version.version for p in desc.op_version_map.pair}
    versions.update({t: v for t, v in OP_VERSIONS.items() if t in held})
    del desc.op_version_map.pair[:]
    for name in sorted(versions):
        pair = desc.op_version_map.pair.add()
        pair.op_name = name
        pair.op_version.version = versions[name]


def _normalize_op(program: Any, block: Any, op: Any) -> None:
    if op.type in REWRITES:
        op.type, dropped = REWRITES[op.type]
        _drop_attrs(op, dropped)
    if op.type in POSITIVE_AXES:
        _positive_axes(program, block, op, *POSITIVE_AXES[op.type])
    _add_empty_inputs(op)
    for name, (attr_type, value) in {**COMMON_ATTRS, **ADD_ATTRS.get(op.type, {})}.items():
        if _attr(op, name) is None:
            write_attr(op.attrs.add(), name, attr_type, value)
    _drop_attrs(op, DROP_ATTRS.get(op.type, ()))
    _drop_fixed_attrs(op)
    _values_as_26_writes(op)


def _drop_fixed_attrs(op: Any) -> None:
    for name, fixed in FIXED_ATTRS.get(op.type, {}).items():
        value = _value(op, name)
        if value is not None and value != fixed:
            raise ValueError(f"op '{op.type}': attribute '{name}' = {value!r} cannot be "
                             f"exported: PaddlePaddle 2.6's {op.type} always uses {fixed}")
    _drop_attrs(op, FIXED_ATTRS.get(op.type, {}))


def _positive_axes(program: Any, block: Any, op: Any, slot: str, attr_name: str) -> None:
    """Negative axes -> ``axis + rank`` (rank of the input in ``slot``, from its VarDesc)."""
    attr = _attr(op, attr_name)
    names = [v.arguments for v in op.inputs if v.parameter == slot]
    if attr is None or not names or not names[0]:
        return
    rank = _rank(program, block, names[0][0])
    value = read_attr(attr)
    axes = value if isinstance(value, list) else [value]
    if rank is None or all(a >= 0 for a in axes):
        return
    fixed = [a + rank if a < 0 else a for a in axes]
    _set_attr(op, attr_name, attr.type, fixed if isinstance(value, list) else fixed[0])


def _values_as_26_writes(op: Any) -> None:
    """Values 2.6's Python writes differently: the full reduction's dims, fill's str_value."""
    if op.type.startswith("reduce_") and _value(op, "reduce_all"):
        _set_attr(op, "dim", T.INTS, [])
    if op.type == "slice" and _attr(op, "infer_flags") is not None \
            and not _value(op, "infer_flags"):       # 2.6's slice() writes 1 per axis
        _set_attr(op, "infer_flags", T.INTS, [1] * len(_value(op, "axes") or []))
    if op.type == "fill_constant" and _attr(op, "str_value") is not None \
            and not _value(op, "str_value"):
        # the text of the float32 attribute paddle_nb computed with (2.6's Python writes the
        # user's double, "0.1"; this keeps PaddlePaddle's float64 fills equal to paddle_nb's)
        value = _value(op, "value")
        text = str(int(value)) if _value(op, "dtype") in _INT_DTYPES else str(float(value))
        _set_attr(op, "str_value", T.STRING, text)


def _add_empty_inputs(op: Any) -> None:
    """Every input slot 2.6 declares, empty when unused (as 2.6's Operator writes them)."""
    declared = [s.name for s in registry.get(op.type).inputs] if registry.exists(op.type) else []
    have = {v.parameter for v in op.inputs}
    for slot in declared + list(EXTRA_INPUTS.get(op.type, ())):
        if slot not in have:
            op.inputs.add().parameter = slot
            have.add(slot)


def _rank(program: Any, block: Any, name: str) -> int | None:
    """The rank of variable ``name`` as its VarDesc in ``block`` or an enclosing block says."""
    while True:
        for var in block.vars:
            if var.name == name:
                tensor = var.type.lod_tensor.tensor if var.type.HasField("lod_tensor") \
                    else var.type.selected_rows if var.type.HasField("selected_rows") else None
                return None if tensor is None else len(tensor.dims)
        if block.parent_idx < 0 or block.parent_idx == block.idx:
            return None
        block = program.blocks[block.parent_idx]


def _attr(op: Any, name: str) -> Any:
    return next((a for a in op.attrs if a.name == name), None)


def _value(op: Any, name: str) -> Any:
    attr = _attr(op, name)
    return None if attr is None else read_attr(attr)


def _set_attr(op: Any, name: str, attr_type: int, value: Any) -> None:
    for k, a in enumerate(op.attrs):
        if a.name == name:
            del op.attrs[k]
            break
    write_attr(op.attrs.add(), name, attr_type, value)


def _drop_attrs(op: Any, names: Any) -> None:
    for k in reversed(range(len(op.attrs))):
        if op.attrs[k].name in names:
            del op.attrs[k]
