"""Readable text of a program: every block, nested blocks under the op that owns them.

The form follows the descs: ``outputs = type(inputs) {attrs}``. A block
owned by an op (a sub-block of ``conditional_block``, ``while``,
``recurrent``) prints indented under that op, like braces in C++.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paddle_nb.framework.variable import Parameter, Variable, VarType

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.program import Program

__all__ = ["program_to_text", "block_to_text", "format_attr", "HIDDEN_ATTRS"]

# bookkeeping attributes, not shown; "initializes_once" is program.py's INITIALIZES_ONCE (the
# preamble's mark), kept out of the text as op_role is
HIDDEN_ATTRS = {"op_callstack", "op_role", "op_role_var", "op_namescope", "op_device",
                 "with_quant_attr", "use_mkldnn", "use_cudnn", "initializes_once"}


def program_to_text(program: Program) -> str:
    lines = [f"program ({program.num_blocks} block{'s' if program.num_blocks > 1 else ''})"]
    owned = {b for block in program.blocks for op in block.ops for b in op.sub_block_ids()}
    for block in program.blocks:
        if block.idx not in owned:
            lines.extend(_block_lines(block, "", set()))
    return "\n".join(lines)


def block_to_text(block: Block) -> str:
    return "\n".join(_block_lines(block, "", set()))


def _var_line(var: Variable) -> str:
    if not var.is_tensor():
        return f"{var.name} : {VarType.Type.Name(var.type)}"
    known = var.dtype_or_none()
    dtype = known.name if known is not None else "?"
    shape = ", ".join(str(d) for d in var.shape or ())   # (a tensor always has one)
    tags = []
    if isinstance(var, Parameter):
        tags.append("parameter")
    elif var.persistable:
        tags.append("persistable")
    if var.lod_level:
        tags.append(f"lod_level={var.lod_level}")
    return f"{var.name} : {dtype}[{shape}]" + (f"  ({', '.join(tags)})" if tags else "")


def format_attr(value: Any, name: str = "") -> str:
    if name.endswith("dtype") and isinstance(value, int) and value >= 0:
        return VarType.Type.Name(value).lower() if value in VarType.Type.values() else repr(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list) and len(value) > 8:
        return "[" + ", ".join(format_attr(v) for v in value[:8]) + ", ...]"
    return repr(value)


def _op_line(k: int, op: Operator) -> str:
    def slots(m: dict[str, list[str]]) -> str:
        return ", ".join(f"{s}={n[0] if len(n) == 1 else '[' + ', '.join(n) + ']'}"
                         for s, n in m.items() if n)
    attrs = {a: v for a, v in op.attrs.items() if a not in HIDDEN_ATTRS}
    text = ", ".join(f"{a}={format_attr(v, a)}" for a, v in attrs.items())
    outs = slots(op.outputs)
    return f"#{k} {outs + ' = ' if outs else ''}{op.type}({slots(op.inputs)})" + \
        (f" {{{text}}}" if text else "")


def _block_lines(block: Block, indent: str, seen: set[int]) -> list[str]:
    seen.add(block.idx)
    head = "global" if block.idx == 0 else f"parent {block.parent_idx}"
    lines = [f"{indent}block {block.idx} ({head})"]
    if block.vars:
        lines.append(f"{indent}  vars:")
        lines.extend(f"{indent}    {_var_line(v)}" for v in block.vars.values())
    if block.ops:
        lines.append(f"{indent}  ops:")
    for k, op in enumerate(block.ops):
        lines.append(f"{indent}    {_op_line(k, op)}")
        for sub in op.sub_block_ids():
            if sub not in seen and sub < block.program.num_blocks:
                lines.extend(_block_lines(block.program.block(sub), indent + "      ", seen))
    return lines
