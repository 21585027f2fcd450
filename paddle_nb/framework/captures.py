"""Which outer variables a sub-block reads (its captures) and which it writes.

A sub-block (an if-else branch, a loop body, an RNN step) is like a C++
lambda: names it does not declare come from enclosing blocks. The op that
owns the sub-block lists the captures as inputs and the outer writes as
outputs, so that pruning, backward and the widgets see the data flow
without looking inside. Nested sub-blocks count as part of their owner.

>>> import paddle_nb as pd
>>> prog = pd.Program()
>>> g = prog.global_block()
>>> _ = g.create_var(name="w", shape=(2,)); _ = g.create_var(name="out", shape=(2,))
>>> with prog.block_guard() as sub:
...     t = sub.create_var(name="t", shape=(2,))
...     _ = sub.append_op("relu", {"X": "w"}, {"Out": "t"})
...     _ = sub.append_op("assign", {"X": "t"}, {"Out": "out"})
>>> block_captures(sub)
(['w'], ['out'])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator

__all__ = ["block_captures", "op_captures"]


def block_captures(block: Block) -> tuple[list[str], list[str]]:
    """``(reads, writes)``: outer names ``block`` (with its sub-blocks) reads and writes, in
    first-use order. A name written inside before it is read is not a read."""
    reads: list[str] = []
    writes: list[str] = []
    _walk(block, set(), reads, writes, set(block.vars))
    return reads, writes


def op_captures(op: Operator) -> set[str]:
    """Names ``op``'s sub-blocks read from outside themselves: what keeping ``op`` needs
    besides its inputs (pruning, inference export)."""
    program = op.block.program
    names: set[str] = set()
    for idx in op.sub_block_ids():
        names.update(block_captures(program.block(idx))[0])
    return names


def _walk(block: Block, written: set[str], reads: list[str], writes: list[str],
          local: set[str]) -> None:
    program = block.program
    for op in block.ops:
        for name in op.input_arg_names:
            if name not in local and name not in written and name not in reads:
                reads.append(name)
        for idx in op.sub_block_ids():
            inner = program.block(idx)
            _walk(inner, written, reads, writes, local | set(inner.vars))
        for name in op.output_arg_names:
            if name not in local:
                written.add(name)
                if name not in writes:
                    writes.append(name)
