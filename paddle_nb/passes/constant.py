"""Constant folding: ops whose inputs are all known before the first run are run once, at load.

A model exported by ``paddle.jit.to_static`` computes much at run time that never changes: an
attention mask built by a chain of ``fill_constant`` and ``set_value`` ops (SVTR), the shape
arithmetic of a reshape, a bias reshaped to broadcast. An op is *constant* when its type is a
deterministic tensor op of :data:`FOLDABLE` and every input is a constant: a persistable
variable no op writes (a parameter), or an output of another constant op. The constant ops run
once, here, in their program order; each of their outputs that a remaining op still reads
becomes a new persistable variable ``<name>.const`` holding the value, written into the scope,
and the constant ops leave the program. PaddlePaddle Inference's ``constant_folding_pass`` does
the same. Outputs the caller fetches keep their ops (and names).
"""

from paddle_nb.executor.executor import Executor
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import VarType
from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses, rename_input
from paddle_nb.passes.values import place_of

__all__ = ["fold_constants", "FOLD_CONSTANTS", "FOLDABLE"]

# deterministic ops, no effects, no sub-blocks, no randomness: safe to run once at load time
FOLDABLE = frozenset({
    "fill_constant", "assign_value", "set_value", "assign", "scale", "cast", "shape",
    "reshape2", "unsqueeze2", "squeeze2", "flatten_contiguous_range", "transpose2",
    "slice", "strided_slice", "concat", "stack", "split", "range", "fill_any_like",
    "expand_v2", "tile", "meshgrid", "elementwise_add", "elementwise_sub", "elementwise_mul",
    "elementwise_div", "elementwise_floordiv", "elementwise_pow", "elementwise_max",
    "elementwise_min", "elementwise_mod", "equal", "not_equal", "less_than", "less_equal",
    "greater_than", "greater_equal", "logical_and", "logical_or", "logical_not", "where",
    "gather", "index_select", "gather_nd", "cumsum", "sqrt", "rsqrt", "pow", "abs", "exp",
    "tril_triu", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "roll",
})


def _constant_ops(program, uses):
    """Indices of the global block's constant ops, in order."""
    glob = program.global_block()
    known = {n for n, v in glob.vars.items() if v.persistable and not uses.writers.get(n)
             and v.type == VarType.LOD_TENSOR}
    picked = []
    for k, op in enumerate(glob.ops):
        outs = op.output_arg_names
        if op.type not in FOLDABLE or not outs or not set(op.input_arg_names) <= known:
            continue
        if any(uses.persistable(n) or n in uses.fetched or not uses.written_once(n)
               or glob.var(n).type != VarType.LOD_TENSOR for n in outs):
            continue
        picked.append(k)
        known.update(outs)
    return picked


def _evaluate(program, picked, names, scope, place):
    """The values of ``names``: the ``picked`` ops alone, run once in ``scope`` on ``place``."""
    alone = Program.parse(program.serialize())
    glob = alone.global_block()
    keep = set(picked)
    for k in range(len(glob.ops) - 1, -1, -1):
        if k not in keep:
            glob.remove_op(k)
    return Executor(place).run(alone, fetch_list=list(names), scope=scope)


def fold_constants(program, scope, result):
    """Run the constant ops once; their outputs still read become persistable ``.const``s."""
    if scope is None:
        return
    uses = Uses(program, result.keep)
    picked = _constant_ops(program, uses)
    glob = program.global_block()
    outs = {n for k in picked for n in glob.ops[k].output_arg_names}
    reader_ops = {(b, k) for n in outs for b, k in uses.readers.get(n, [])}
    folded = {(0, k) for k in picked}
    needed = sorted(n for n in outs if any((b, k) not in folded
                                           for b, k in uses.readers.get(n, [])))
    if not picked:
        return
    # run, and keep the constants, where the program's parameters live (a GPU's scope)
    place = place_of(scope, (v.name for v in glob.vars.values() if v.persistable))
    values = _evaluate(program, picked, needed, scope, place) if needed else []
    for name, value in zip(needed, values):
        const = f"{name}.const"
        var = glob.var(name)
        glob.create_var(const, shape=list(value.shape), dtype=var.dtype, persistable=True)
        scope.var(const).get_tensor().set(value, place)
        for b, k in sorted(reader_ops - folded):
            rename_input(program.blocks[b].ops[k], name, const)
    for k in reversed(picked):
        op = glob.ops[k]
        glob.remove_op(k)
        result.changes.append(("removed", op.type, "constant: " + ", ".join(op.output_arg_names)))


FOLD_CONSTANTS = Pass("fold_constants", fold_constants)
