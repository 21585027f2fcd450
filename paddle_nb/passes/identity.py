"""Removing ops that compute nothing: identities, and ops whose results nobody reads.

An identity (``dropout`` in test mode with ``upscale_in_train``, ``scale`` by 1 plus 0,
``assign``, ``cast`` to the same dtype) is removed and its readers read its input instead.
That is safe only when its output is an ordinary temporary: written once, not persistable, not
fetched (the fetch keeps its name), not read in a sub-block, and its input is not written
again later (the readers would then see the later value).

Dead code: walking the global block backward from the fetches, an op none of whose outputs is
needed is dropped, unless it has an effect of its own (a fetch, a print, a sub-block, a write to
a persistable variable).
"""

from paddle_nb.framework.variable import VarType
from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import SIDE_EFFECT_TYPES, Uses, rename_input

__all__ = ["remove_identities", "remove_dead_code", "identity_input"]


def identity_input(op):
    """The one input an identity op passes through unchanged, or None if ``op`` is not one."""
    kind = op.type
    if kind == "dropout":
        upscale = op.attr("dropout_implementation") == "upscale_in_train"
        return op.input("X")[0] if op.attr("is_test") and upscale else None
    if kind == "scale":
        plain = op.attr("scale") == 1.0 and op.attr("bias") == 0.0 and not op.input("ScaleTensor")
        return op.input("X")[0] if plain else None
    if kind == "assign" and len(op.input("X")) == 1:
        return op.input("X")[0]
    if kind == "cast" and op.attr("in_dtype") == op.attr("out_dtype"):
        return op.input("X")[0]
    return None


def _removable(op, uses, source, out):
    glob = op.block
    var, src = glob.find_var(out), glob.find_var(source)
    if var is None or src is None or var.type != VarType.LOD_TENSOR or src.type != var.type:
        return False
    if var.persistable or out in uses.fetched or not uses.written_once(out):
        return False
    blocks = {b for b, _ in uses.readers.get(out, [])}
    later_writes = [k for b, k in uses.writers.get(source, []) if b != 0 or k > op.index()]
    return blocks <= {0} and not later_writes


def remove_identities(program, scope, result):
    """Drop identity ops; their readers read the identity's input."""
    glob = program.global_block()
    k = 0
    while k < len(glob.ops):
        op = glob.ops[k]
        source = identity_input(op)
        outs = op.output("Out")
        if (source is not None and len(outs) == 1
                and _removable(op, Uses(program, result.keep), source, outs[0])):
            for reader in glob.ops[k + 1:]:
                rename_input(reader, outs[0], source)
            glob.remove_op(k)
            glob.remove_var(outs[0])
            result.changes.append(("removed", op.type, f"{outs[0]} -> {source}"))
            continue
        k += 1


def _has_effect(op, program):
    if op.type in SIDE_EFFECT_TYPES or op.sub_block_ids():
        return True
    glob = program.global_block()
    return any((v := glob.find_var(n)) is not None and v.persistable for n in op.output_arg_names)


def remove_dead_code(program, scope, result):
    """Drop ops of the global block whose outputs no fetch needs."""
    glob = program.global_block()
    needed = {n for b in program.blocks[1:] for op in b.ops for n in op.input_arg_names}
    needed.update(result.keep)
    for k in range(len(glob.ops) - 1, -1, -1):
        op = glob.ops[k]
        if _has_effect(op, program) or needed.intersection(op.output_arg_names):
            needed.update(op.input_arg_names)
            continue
        glob.remove_op(k)
        result.changes.append(("removed", op.type, "dead: " + ", ".join(op.output_arg_names)))
    used = {n for b in program.blocks for op in b.ops
            for n in (*op.input_arg_names, *op.output_arg_names)}
    for name in [n for n, v in glob.vars.items() if n not in used and n not in ("feed", "fetch")
                 and not v.persistable]:
        glob.remove_var(name)


IDENTITIES = Pass("remove_identities", remove_identities)
DEAD_CODE = Pass("remove_dead_code", remove_dead_code)
