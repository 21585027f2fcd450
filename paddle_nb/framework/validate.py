"""Checks a ProgramDesc read from outside before any view is built on it.

Files can be truncated, corrupted or written by a newer PaddlePaddle. A
block's parent must be an earlier block (so the tree has no cycles), every
block attribute must name an existing block, and every tensor dtype must be
one paddle_nb knows; anything else is a clear ProtoDecodeError.
"""

from paddle_nb.errors import ProtoDecodeError
from paddle_nb.proto import framework_pb2

__all__ = ["validate_program_desc"]

T = framework_pb2.AttrType


def validate_program_desc(desc):
    n = len(desc.blocks)
    if n == 0:
        raise ProtoDecodeError("the ProgramDesc has no blocks: expected at least the global block")
    for i, block in enumerate(desc.blocks):
        if block.idx != i:
            raise ProtoDecodeError(f"block {i} says its idx is {block.idx}: expected {i}")
        parent = block.parent_idx
        if i == 0 and parent != -1:
            raise ProtoDecodeError(f"the global block's parent_idx is {parent}: expected -1")
        if i > 0 and not 0 <= parent < i:
            raise ProtoDecodeError(f"block {i} has parent_idx {parent}: expected an earlier "
                                   f"block, 0 to {i - 1} (a later or missing one would be a cycle)")
        for k, op in enumerate(block.ops):
            for attr in op.attrs:
                ids = [attr.block_idx] if attr.type == T.BLOCK else \
                    list(attr.blocks_idx) if attr.type == T.BLOCKS else []
                for b in ids:
                    if not 0 < b < n or b == i:
                        raise ProtoDecodeError(
                            f"op #{k} '{op.type}' in block {i}: attribute '{attr.name}' names "
                            f"block {b}, expected a sub-block index between 1 and {n - 1}")
