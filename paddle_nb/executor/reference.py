"""A reference evaluator: what running a block means, in thirty lines.

No plans, no caching, no eager release, no records: for each op, read its
inputs from the scope, call its kernel, write its outputs. The real
Executor must give the same results (tests check it); this one is for
reading. Control-flow ops run their sub-blocks through ``run_block``.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.place import CPUPlace
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.context import KernelContext, RawContext


__all__ = ["evaluate"]


def evaluate(program: Any, scope: Any, block_idx: int = 0, ctx: Any = None) -> None:
    """Run block ``block_idx`` of ``program`` in ``scope`` (every variable made there)."""
    ctx = ctx or KernelContext(CPUPlace())
    block = program.block(block_idx)
    # realize the block's variables here first ("Design Doc: Block and Scope"),
    for name, var in block.vars.items():
        if not (var.persistable and scope.find_var(name) is not None):   # so a sub-block
            scope.var(name)                                              # can write them

    def value(name):
        var = scope.find_var(name) or scope.var(name)
        return var.get_tensor().data

    for op in block.ops:
        if program.initializes_once(op) and all(value(n) is not None for n in op.output_arg_names):
            continue                       # an initializer whose parameter already has a value
        opdef = registry.get(op.type)
        attrs = opdef.complete_attrs(op.attrs, strict=False)
        if opdef.raw:
            def run_block(idx, kid_scope, values=None, same_outer=False):
                for name, array in (values or {}).items():   # a step's inputs (an RNN's)
                    kid_scope.var(name).get_tensor().hold(array, ctx.place)
                evaluate(program, kid_scope, idx, ctx)
            opdef.kernel(RawContext(ctx, scope, op, attrs, run_block))
            continue
        args = []
        for slot in opdef.inputs:
            names = op.input(slot.name)
            args.append([value(n) for n in names] if slot.duplicable
                        else value(names[0]) if names else None)
        result = opdef.kernel(ctx, *args, **attrs)
        results = (result,) if len(opdef.outputs) == 1 else result
        for slot, out in zip(opdef.outputs, results):
            names = op.output(slot.name)
            for name, array in zip(names, out if slot.duplicable else [out]):
                if array is not None:
                    (scope.find_var(name) or scope.var(name)).get_tensor().hold(array, ctx.place)
