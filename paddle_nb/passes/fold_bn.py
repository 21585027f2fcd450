"""Folding an inference-mode batch_norm into the convolution or matmul before it.

In test mode batch_norm is an affine map per channel c::

    y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c] = x * s[c] + t[c]

with ``s = scale / sqrt(var + eps)`` and ``t = bias - mean * s``. When ``x`` is a convolution
``x = conv(u, W)`` (output channel c made by filter ``W[c]``), ``x * s[c] = conv(u, W * s[c])``:
the scaling moves into the filter, once, at load time, and only ``+ t[c]`` is left to do at run
time, an ``elementwise_add`` along the channel axis. A bias already added after the convolution
(``elementwise_add`` of a 1-D parameter on axis 1) folds too: ``t += b * s``. The same holds for
``matmul_v2`` (or ``mul``, as ``fc`` writes) with a 2-D weight ``[K, C]`` whose output's
channels are its last axis (the batch_norm then sees a 2-D ``[N, C]`` input).

The folded filter and bias are *new* persistable variables (``<filter>.bn_fold``,
``<bn bias>.bn_fold``) written into the scope; the old parameters stay, so the original program
still runs. PaddlePaddle Inference's ``conv_bn_fuse_pass`` does the same rewrite.
"""

import numpy as np

from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses
from paddle_nb.passes.values import host_value as _value, new_param

__all__ = ["fold_batch_norm", "FOLD_BATCH_NORM"]

CONVS = ("conv2d", "depthwise_conv2d")


def _producer(glob, uses, name):
    """(op index, op) of the one global-block op writing ``name``, or (None, None)."""
    writers = uses.writers.get(name, [])
    if len(writers) != 1 or writers[0][0] != 0:
        return None, None
    return writers[0][1], glob.ops[writers[0][1]]


def _bias_add(glob, uses, scope, name):
    """The ``elementwise_add(x, b)`` writing ``name`` that adds a parameter along axis 1 of
    ``x``: (index, op, b as 1-D) or None. ``b`` is 1-D on axis 1, or [1, C, 1, 1] (a conv
    bias reshaped, constants folded) on a 4-D ``x``; on a 2-D ``x``, axis -1 is axis 1 too."""
    k, op = _producer(glob, uses, name)
    if op is None or op.type != "elementwise_add" or not uses.persistable(op.input("Y")[0]):
        return None
    b, axis = _value(scope, op.input("Y")[0]), op.attr("axis")
    rank = len(glob.var(op.input("X")[0]).shape)
    if b is not None and b.ndim == 4 and rank == 4 and b.size == b.shape[1] and axis in (-1, 0):
        b = b.reshape(-1)
    elif b is None or b.ndim != 1 or not (axis == 1 or (axis == -1 and rank == 2)):
        return None
    if not uses.only_reader(op.input("X")[0], (0, k)):
        return None
    return k, op, b


def _foldable_producer(glob, uses, scope, name):
    """The conv / matmul whose output (maybe plus a bias) is ``name``: (op, bias op, b)."""
    added = _bias_add(glob, uses, scope, name)
    source = added[1].input("X")[0] if added else name
    k, op = _producer(glob, uses, source)
    if op is None:
        return None
    if op.type in CONVS and op.attr("data_format") in ("NCHW", "AnyLayout"):
        ok = True
    elif _plain_matmul(op):
        w = _value(scope, op.input("Y")[0])
        ok = w is not None and w.ndim == 2 and len(glob.var(source).shape) == 2
    else:
        ok = False
    if not ok:
        return None
    weight = op.input("Filter" if op.type in CONVS else "Y")[0]
    if not uses.persistable(weight) or _value(scope, weight) is None:
        return None
    return op, (added[1] if added else None), (added[2] if added else None)


def _plain_matmul(op):
    """``matmul_v2`` without transposes, or ``mul`` with a 2-D weight: out[:, c] = x @ w[:, c]."""
    if op.type == "matmul_v2":
        return not op.attr("trans_x") and not op.attr("trans_y")
    return op.type == "mul" and op.attr("y_num_col_dims") == 1


def _bn_ready(bn, uses, scope, k):
    if not (bn.attr("is_test") or bn.attr("use_global_stats")):
        return None
    if bn.attr("data_layout") not in ("NCHW", "AnyLayout"):
        return None
    others = [n for slot, names in bn.outputs.items() if slot != "Y" for n in names]
    if any(uses.readers.get(n) for n in others if n not in bn.input_arg_names):
        return None
    values = [_value(scope, bn.input(s)[0]) for s in ("Scale", "Bias", "Mean", "Variance")]
    return None if any(v is None for v in values) else values


def _fold_one(program, scope, bn, k, result):
    glob, uses = program.global_block(), Uses(program, result.keep)
    x = bn.input("X")[0]
    found = _foldable_producer(glob, uses, scope, x)
    stats = _bn_ready(bn, uses, scope, k)
    if found is None or stats is None:
        return False
    op, bias_op, b = found
    conv_out = op.output("Output" if op.type in CONVS else "Out")[0]
    if not uses.only_reader(conv_out, (0, bias_op.index() if bias_op else k)):
        return False
    scale, shift, mean, var = (v.astype("float64") for v in stats)
    s = scale / np.sqrt(var + bn.attr("epsilon"))
    t = shift - mean * s + (b.astype("float64") * s if b is not None else 0.0)
    slot = "Filter" if op.type in CONVS else "Y"
    weight = op.input(slot)[0]
    found_w = _value(scope, weight)
    if found_w is None:        # (found when the op was matched; gone only if the scope changed)
        return False
    w = found_w.astype("float64")
    w = w * s.reshape((-1,) + (1,) * (w.ndim - 1)) if op.type in CONVS else w * s
    new_w = new_param(glob, scope, weight, "bn_fold", w)
    new_t = new_param(glob, scope, bn.input("Bias")[0], "bn_fold", t)
    for arg in op.desc.inputs:
        if arg.parameter == slot:
            arg.arguments[0] = new_w
    y, at = bn.output("Y")[0], bn.index()
    glob.remove_op(at)
    if bias_op is None:          # conv -> bn becomes conv -> add(t)
        glob.insert_op(at, "elementwise_add", inputs={"X": [x], "Y": [new_t]},
                       outputs={"Out": [y]}, attrs={"axis": 1 if op.type in CONVS else -1,
                                                    "op_callstack": bn.attr("op_callstack")})
    else:                        # conv -> add(b) -> bn becomes conv -> add(t), t holding b
        _set_arg(bias_op.desc.inputs, "Y", new_t)
        bias_op.set_attr("axis", 1 if op.type in CONVS else -1)     # new_t is 1-D
        _set_arg(bias_op.desc.outputs, "Out", y)
        glob.program.bump_version()
    kind = "folded" if bias_op is None else "folded_away"     # replaced by an add, or gone
    result.changes.append((kind, "batch_norm", f"into {op.type}: {weight} -> {new_w}"))
    return True


def _set_arg(slots, slot, name):
    for arg in slots:
        if arg.parameter == slot:
            arg.arguments[0] = name


def fold_batch_norm(program, scope, result):
    """Fold each test-mode batch_norm into the conv2d / depthwise_conv2d / matmul_v2 before it."""
    glob = program.global_block()
    k = 0
    while k < len(glob.ops):
        op = glob.ops[k]
        if op.type == "batch_norm" and scope is not None:
            _fold_one(program, scope, op, k, result)
        k += 1


FOLD_BATCH_NORM = Pass("fold_batch_norm", fold_batch_norm)
