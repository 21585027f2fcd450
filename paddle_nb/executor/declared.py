"""Results checked against what the program declares.

Every output variable of a program has a VarDesc with a dtype and a shape: shape inference
wrote it when the op was appended (or PaddlePaddle did, for a program read from a file), and
every later op was chosen and inferred for it. A kernel that returns another dtype or shape
(an int32 sum where PaddlePaddle 2.6 declares int64, a [1] where it declares a 0-D tensor)
would not fail: it would give wrong answers downstream. So the executor compares each result
with its declaration and stops the run with an error that names the op, where it is, the
variable, both metas and the user's line.

A size of -1 matches any size. A 0-D value matches a declared [1] (or [1, 1]): full
reductions give 0-D tensors, as in PaddlePaddle 2.5+, where a program written by
PaddlePaddle 1.x declares [1] (see ``feeds.scalar_shape``). The dtype and the rank are
promises; a size is one only where the op's inputs, as declared, give it: PaddlePaddle
infers shapes again at run time, and its build-time sizes are sometimes wrong (2.6.2
declares ``paddle.expand`` of a [3, 1] tensor to [2, -1, 4] as [2, 1, 4]; it computes
[2, 3, 4], and the gradient declared after it inherits the wrong size). So a value of the
declared dtype passes when an input's value already differs from its own declaration (that
was checked where the value was made; what follows only inherits the declaration's error),
and a value whose sizes alone differ passes when paddle_nb's shape rule, applied to the
declared inputs, gives the value's sizes too. And a few outputs' declarations are no promise
at all in PaddlePaddle 2.6.2 (``UNINFERRED``): it leaves some auxiliary outputs' shapes empty
at build time, which reads as 0-D (``warpctc``'s ``WarpCTCGrad``, ``batch_norm``'s saved
statistics in inference), and declares some wrongly (``auc``'s AUC as int64, computed as
float64; ``matrix_nms``'s Out as [M, 6], ``kthvalue``'s and ``mode``'s int64 Indices as
float32, ``determinant``'s result with its input's shape): those are not checked.

The check costs about 0.3 us an op, as much as a small op's dispatch, so a run makes it on
the first run of each plan (``BlockPlan.verified``: executor/interpreter.py), and a watched
run's sub-blocks, which run on cells, on every op.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import OpRunError
from paddle_nb.executor.plan import flat_positions, output_values


__all__ = ["shape_matches", "check_results", "mismatch_message", "UNINFERRED"]

# (op type, output slot) whose declaration PaddlePaddle 2.6.2 leaves empty or writes wrongly
UNINFERRED = {("warpctc", "WarpCTCGrad"), ("batch_norm", "SavedMean"),
              ("batch_norm", "SavedVariance"), ("batch_norm", "ReserveSpace"),
              ("auc", "AUC"), ("auc", "BatchAUC"), ("matrix_nms", "Out"),
              ("generate_proposals_v2", "RpnRoisNum"), ("kthvalue", "Indices"),
              ("mode", "Indices"), ("einsum", "InnerCache"), ("einsum", "XShape"),
              ("determinant", "Out"), ("slogdeterminant", "Out"),
              ("yolov3_loss", "GTMatchMask"),
              ("py_func", "Out")}     # (what a Python function returns; its grad op infers none)


def shape_matches(declared: tuple, shape: tuple) -> bool:
    """True when a value of ``shape`` is what ``declared`` (-1: any size) allows."""
    if len(declared) != len(shape):
        return not shape and all(d == 1 for d in declared)
    for d, s in zip(declared, shape):
        if d != s and d != -1:
            return False
    return True


def check_results(step: Any, plan: Any, out: Any, values: list) -> None:
    """Raise an OpRunError when a result of ``step`` (its kernel returned ``out``) differs
    from its variable's declared dtype or shape. ``values[pos]`` is the value at a plan
    position (a block run on an env), or its LoDTensor (a sub-block run on cells)."""
    metas = plan.declared          # [(dtype, shape) or None] per position (BlockPlan)
    outs = step.outs
    if len(outs) == 1 and outs[0].__class__ is int:      # one output, the usual op
        pairs: Any = ((outs[0], out),) if outs[0] >= 0 and out is not None else ()
    else:
        pairs = output_values(outs, out)
    for pos, value in pairs:
        meta = metas[pos]
        if meta is None:
            continue
        try:
            dtype, shape = value.dtype, value.shape
        except AttributeError:     # not an array (a LoDTensorArray's list): not declared so
            continue
        # (NumPy's dtypes of one kind are one object, and most shapes equal their declaration)
        if (dtype is meta[0] or dtype == meta[0]) and \
                (shape == meta[1] or shape_matches(meta[1], shape)):
            continue
        if dtype == meta[0] and (_inputs_off(step, plan, values) or (
                len(meta[1]) == len(shape) and _inputs_give(step, plan, pos, shape))):
            continue                  # the declaration, not the kernel, is off
        if _uninferred(step, plan, pos):
            continue                  # PaddlePaddle's declaration of this output is no promise
        raise OpRunError(mismatch_message(step, plan, pos, value))


def _inputs_off(step: Any, plan: Any, values: list) -> bool:
    """True when an input's value differs in size from what its variable declares."""
    for pos in flat_positions(step.ins):
        meta, value = plan.declared[pos], values[pos]
        value = value.data if isinstance(value, LoDTensor) else value
        if meta is not None and value is not None and hasattr(value, "shape") \
                and not shape_matches(meta[1], value.shape):
            return True
    return False


def _inputs_give(step: Any, plan: Any, pos: int, shape: tuple) -> bool:
    """True when the op's shape rule, on its inputs' declared metas, gives ``shape``
    (-1: any size) for the output at ``pos``."""
    opdef, op = step.opdef, step.op
    if opdef.infer is None:
        return False
    try:
        args = []
        for slot in opdef.inputs:
            names = op.input(slot.name)
            metas = [op.block.find_var(n).meta() for n in names]
            args.append(metas if slot.duplicable else metas[0] if metas else None)
        result = opdef.infer(*args, **step.attrs)
    except Exception:         # inputs the rule cannot read: the declaration stands
        return False
    inferred = dict(zip((s.name for s in opdef.outputs),
                        (result,) if len(opdef.outputs) == 1 else result))
    name = plan.names[pos]
    for slot, names in op.outputs.items():
        if name in names and inferred.get(slot) is not None:
            meta = inferred[slot]
            meta = meta[names.index(name)] if isinstance(meta, list) else meta
            return shape_matches(tuple(meta.shape), shape)
    return False


def _uninferred(step: Any, plan: Any, pos: int) -> bool:
    name = plan.names[pos]
    return any((step.op.type, slot) in UNINFERRED and name in names
               for slot, names in step.op.outputs.items())


def mismatch_message(step: Any, plan: Any, pos: int, value: Any) -> str:
    op = step.op
    dtype, shape = plan.declared[pos]
    slot = next((s for s, names in op.outputs.items() if plan.names[pos] in names), "?")
    return (f"op #{step.index} '{op.type}' in block {op.block.idx} (built at {op.site()}) "
            f"gave its output {slot}='{plan.names[pos]}' as {value.dtype}{list(value.shape)}, "
            f"but the program declares {dtype}{list(shape)} (-1: any size): the kernel and "
            "the declaration disagree, so later ops would compute with the wrong values; the "
            "run stopped there and changed nothing")
