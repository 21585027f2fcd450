"""Prune: the minimal program that computes some targets (seed 003).

Walking the global block backwards, an op is kept when it writes a variable
that is still needed; its outputs are then produced (no longer needed from
earlier ops) and its inputs become needed. This is liveness analysis, so an
optimizer op that overwrites a parameter after the target was computed is
dropped, while the parameter's initializer before it is kept. Sub-blocks
owned by a kept op are kept whole; variables no kept op touches are dropped.
"""

__all__ = ["prune", "needed_ops"]


def needed_ops(block, targets):
    """Indices of the ops of ``block`` that the ``targets`` (names) depend on."""
    needed = set(targets)
    kept = []
    for k in range(len(block.ops) - 1, -1, -1):
        op = block.ops[k]
        outs = op.output_arg_names
        if not needed.intersection(outs):
            continue
        kept.append(k)
        needed.difference_update(outs)
        needed.update(op.input_arg_names)
        needed.update(_captures(op))
    return sorted(kept)


def _captures(op):
    """Names a kept op's sub-blocks read from outside themselves."""
    names = set()
    program = op.block.program
    for idx in op.sub_block_ids():
        stack = [program.block(idx)]
        while stack:
            block = stack.pop()
            for inner in block.ops:
                names.update(n for n in inner.input_arg_names if n not in block.vars)
                stack.extend(program.block(i) for i in inner.sub_block_ids())
    return names


def prune(program, targets):
    """A copy of ``program`` with only the ops and variables ``targets`` need."""
    from paddle_nb.framework.variable import Variable
    names = [t.name if isinstance(t, Variable) else t for t in targets]
    glob = program.global_block()
    for name in names:
        if glob.find_var(name) is None:
            from paddle_nb.errors import VarNotFoundError
            raise VarNotFoundError(f"prune: target '{name}' is not a variable of the global block")
    pruned = program.clone()
    block = pruned.global_block()
    keep = set(needed_ops(block, names))
    for k in range(len(block.ops) - 1, -1, -1):
        if k not in keep:
            block.remove_op(k)
    used = set(names)
    for b in pruned.blocks:
        for op in b.ops:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
    for name in [n for n in block.vars if n not in used]:
        block._forget_var(name)
    return pruned
