"""Prune: the minimal program that computes some targets ("Design Doc: Block and Scope").

Walking the global block backwards, an op is kept when it writes a variable
that is still needed; its outputs are then produced (no longer needed from
earlier ops) and its inputs become needed. This is liveness analysis, so an
optimizer op that overwrites a parameter after the target was computed is
dropped, while the parameter's initializer before it is kept. Sub-blocks
owned by a kept op are kept whole; variables no kept op touches are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from paddle_nb.errors import VarNotFoundError
from paddle_nb.framework.captures import op_captures
from paddle_nb.framework.variable import Variable
from paddle_nb.proto import framework_pb2

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.program import Program

__all__ = ["prune", "needed_ops"]


def needed_ops(block: Block, targets: Iterable[str]) -> list[int]:
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
        needed.update(op_captures(op))
    return sorted(kept)



def prune(program: Program, targets: Iterable[Variable | str]) -> Program:
    """A copy of ``program`` with only the ops and variables ``targets`` need."""
    names = [t.name if isinstance(t, Variable) else t for t in targets]
    glob = program.global_block()
    for name in names:
        if glob.find_var(name) is None:
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
        block.remove_var(name)
    return _drop_unowned_blocks(pruned, program)


def _reachable_blocks(program: Program) -> list[int]:
    """Indices of the global block and every block a kept op owns, transitively."""
    seen, stack = [0], [0]
    while stack:
        for op in program.block(stack.pop()).ops:
            for idx in op.sub_block_ids():
                if idx not in seen:
                    seen.append(idx)
                    stack.append(idx)
    for block in program.blocks:            # grad blocks hang below their forward block
        fwd = block.desc.forward_block_idx
        if fwd in seen and block.idx not in seen:
            seen.append(block.idx)
    return sorted(seen)


def _drop_unowned_blocks(pruned: Program, original: Program) -> Program:
    """``pruned`` without the blocks no kept op owns, block indices renumbered."""
    keep = _reachable_blocks(pruned)
    if len(keep) == pruned.num_blocks:
        return pruned
    new_index = {old: new for new, old in enumerate(keep)}
    desc = framework_pb2.ProgramDesc()
    desc.CopyFrom(pruned.desc)
    del desc.blocks[:]
    for old in keep:
        block = desc.blocks.add()
        block.CopyFrom(pruned.desc.blocks[old])
        block.idx = new_index[old]
        block.parent_idx = new_index.get(block.parent_idx, -1) if block.parent_idx >= 0 else -1
        if block.forward_block_idx >= 0:
            block.forward_block_idx = new_index.get(block.forward_block_idx, -1)
        for op in block.ops:
            for attr in op.attrs:
                if attr.type == framework_pb2.AttrType.BLOCK:
                    attr.block_idx = new_index[attr.block_idx]
                elif attr.type == framework_pb2.AttrType.BLOCKS:
                    attr.blocks_idx[:] = [new_index[i] for i in attr.blocks_idx]
    return type(original).from_desc(desc, original)
