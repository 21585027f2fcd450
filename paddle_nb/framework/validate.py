"""Checks a ProgramDesc read from outside before any view is built on it.

Files can be truncated, corrupted or written by a newer PaddlePaddle. Every
required field must be there (a value of an enum this framework.proto does
not know, such as a VarType from a newer release, leaves its field unset),
every string must be UTF-8 text, a block's parent must be an earlier block
(so the tree has no cycles), and every block attribute must name an existing
block; its ops are checked too (``validate_ops.py``: sub-blocks nested, attribute types,
variables declared); anything else is a clear ProtoDecodeError, which also names the op
types paddle_nb lacks (one look at a broken file says all). Tensor dtypes are checked
where they are used (``Variable.dtype``), so a program holding a dtype NumPy
has no type for still loads for inspection.

:func:`check_op_types` is the run-time counterpart: the executor calls it
before it runs anything, so one error names every op type paddle_nb lacks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from paddle_nb.errors import OpNotFoundError, ProtoDecodeError
from paddle_nb.framework.validate_ops import check_ops
from paddle_nb.ops.machinery import registry
from paddle_nb.proto import framework_pb2, unknown_fields_of

if TYPE_CHECKING:
    from paddle_nb.framework.program import Program

__all__ = ["validate_program_desc", "check_op_types", "missing_op_types"]

T = framework_pb2.AttrType
_BLOCK, _BLOCKS = int(T.BLOCK), int(T.BLOCKS)


def validate_program_desc(desc: Any) -> None:
    """Raise a ProtoDecodeError for the first problem; it also names the op types paddle_nb
    lacks, so that a file broken in one way and using unknown ops says both at once."""
    try:
        _validate(desc)
    except ProtoDecodeError as err:
        missing = missing_op_types(desc)
        if not missing:
            raise
        raise ProtoDecodeError(f"{err}; besides, the program uses {_count(missing)} paddle_nb "
                               f"does not have: {_where(missing)}") from None


def _validate(desc: Any) -> None:
    n = len(desc.blocks)
    if n == 0:
        raise ProtoDecodeError("the ProgramDesc has no blocks: expected at least the global block")
    if not desc.IsInitialized():
        raise ProtoDecodeError(_missing_fields_message(desc))
    for i, block in enumerate(desc.blocks):
        if block.idx != i:
            raise ProtoDecodeError(f"block {i} says its idx is {block.idx}: expected {i}")
        parent = block.parent_idx
        if i == 0 and parent != -1:
            raise ProtoDecodeError(f"the global block's parent_idx is {parent}: expected -1")
        if i > 0 and not 0 <= parent < i:
            raise ProtoDecodeError(f"block {i} has parent_idx {parent}: expected an earlier "
                                   f"block, 0 to {i - 1} (a later or missing one would be a cycle)")
        _check_texts(block, i)
        _check_tensor_descs(block, i)
        for k, op in enumerate(block.ops):
            for attr in op.attrs:
                kind = attr.type
                if kind != _BLOCK and kind != _BLOCKS:
                    continue
                for b in ([attr.block_idx] if kind == _BLOCK else attr.blocks_idx):
                    if not 0 < b < n:           # (nesting: validate_ops.py)
                        raise ProtoDecodeError(
                            f"op #{k} '{op.type}' in block {i}: attribute '{attr.name}' names "
                            f"block {b}, expected a sub-block index between 1 and {n - 1}")
    check_ops(desc)


def check_op_types(program: Program) -> None:
    """Raise one OpNotFoundError naming every op type of ``program`` paddle_nb lacks.

    The message also names the input slots that registered ops fill but paddle_nb's
    declarations lack, so that one run says all that is missing, before anything runs.
    """
    missing = missing_op_types(program.desc)
    slots: dict[str, list[int]] = {}
    for block in program.desc.blocks:
        for op in block.ops:
            opdef = registry.lookup(op.type)
            if opdef is None:
                continue
            for slot in op.inputs:
                if slot.arguments and slot.parameter not in opdef.input_index:
                    slots.setdefault(f"{op.type}.{slot.parameter}", []).append(block.idx)
    if missing:
        message = f"the program uses {_count(missing)} paddle_nb does not have: {_where(missing)}"
        if slots:
            message += f"; and fills input slots paddle_nb's ops do not take: {_where(slots)}"
        raise OpNotFoundError(message + "; nothing was run")


def missing_op_types(desc: Any) -> dict[str, list[int]]:
    """``{op type: [block index, ...]}`` of the op types in ``desc`` paddle_nb has not
    registered; a desc that failed validation is read as far as it can be."""
    missing: dict[str, list[int]] = {}
    for i, block in enumerate(desc.blocks):
        for op in block.ops:
            if isinstance(op.type, str) and op.type and registry.lookup(op.type) is None:
                missing.setdefault(op.type, []).append(i)
    return missing


def _count(missing: dict[str, list[int]]) -> str:
    return f"{len(missing)} op type{'s' if len(missing) > 1 else ''}"


def _where(found: dict[str, list[int]]) -> str:
    """``{what: [block, ...]}`` as ``what (block 0), other (blocks 1, 2)``."""
    return ", ".join(f"{t} (block{'s' if len(set(b)) > 1 else ''} "
                     f"{', '.join(str(x) for x in sorted(set(b)))})" for t, b in found.items())


_TENSOR_FIELDS = {framework_pb2.VarType.LOD_TENSOR: "lod_tensor",
                  framework_pb2.VarType.SELECTED_ROWS: "selected_rows",
                  framework_pb2.VarType.LOD_TENSOR_ARRAY: "tensor_array"}


def _check_tensor_descs(block: Any, i: int) -> None:
    """A tensor variable carries its tensor's description (dtype, dims): the field that says
    so is optional in the message, so a damaged file can leave it out."""
    for var in block.vars:
        field = _TENSOR_FIELDS.get(var.type.type)
        if field is not None and not var.type.HasField(field):
            kind = framework_pb2.VarType.Type.Name(var.type.type)
            raise ProtoDecodeError(f"variable '{var.name}' in block {i} is a {kind} without its "
                                   f"tensor description (type.{field}: dtype and dims)")


# -- required fields -------------------------------------------------------------------------------
_STEP = re.compile(r"^(\w+)(?:\[(\d+)\])?$")


def _missing_fields_message(desc: Any) -> str:
    problems = []
    for path in desc.FindInitializationErrors()[:5]:
        problems.append(_describe_missing(desc, path))
    more = len(desc.FindInitializationErrors()) - len(problems)
    return ("the ProgramDesc lacks required fields: " + "; ".join(problems) +
            (f"; and {more} more" if more > 0 else ""))


def _describe_missing(desc: Any, path: str) -> str:
    """``path`` (``blocks[0].vars[3].type.lod_tensor.tensor.data_type``) said plainly."""
    msg, where = desc, path
    steps = path.split(".")
    try:
        for step in steps[:-1]:
            step_match = _STEP.match(step)
            if step_match is None:
                return f"{path} is missing"
            name, index = step_match.groups()
            msg = getattr(msg, name)
            if index is not None:
                msg = msg[int(index)]
        field = msg.DESCRIPTOR.fields_by_name[steps[-1]]
        found = [u.data for u in unknown_fields_of(msg)
                 if u.field_number == field.number]
    except Exception:          # an unexpected path: fall back to naming it
        return f"{path} is missing"
    where = _owner(desc, path) or path
    if found and field.enum_type is not None:
        return (f"{where} holds {found[0]}, which is not a {field.enum_type.name} value "
                "paddle_nb knows (written by a newer PaddlePaddle, or corrupted)")
    return f"{where} is missing"


def _owner(desc: Any, path: str) -> str | None:
    """``path`` told by the variable or the op and attribute it is in, or None."""
    found = re.match(r"^blocks\[(\d+)\]\.(vars|ops)\[(\d+)\](?:\.attrs\[(\d+)\])?\.?(.*)$", path)
    if found is None:
        return None
    block, kind, index, attr, rest = found.groups()
    item = getattr(desc.blocks[int(block)], kind)[int(index)]
    name = item.name if kind == "vars" else item.type
    if not (item.HasField("name" if kind == "vars" else "type") and isinstance(name, str)):
        return None
    if kind == "vars":
        return f"{path} (variable '{name}')"
    where = f"op #{index} '{name}' in block {block}"
    if attr is not None:
        attr_desc = item.attrs[int(attr)]
        named = attr_desc.HasField("name") and isinstance(attr_desc.name, str)
        where += f": attribute '{attr_desc.name}'" if named else f": attribute #{attr}"
    return f"{where}, field {rest}" if rest else where


# -- strings ---------------------------------------------------------------------------------------
def _check_texts(block: Any, i: int) -> None:
    """Every name and string attribute must be text: protobuf hands back bytes that are not
    UTF-8."""
    if not _all_text(block):
        _name_the_bytes(block, i)


def _all_text(block: Any) -> bool:
    """True when every string of ``block`` is text (the usual case, checked quickly)."""
    for var in block.vars:
        if type(var.name) is not str:
            return False
        for attr in var.attrs:
            if type(attr.name) is not str or type(attr.s) is not str:
                return False
    for op in block.ops:
        if type(op.type) is not str:
            return False
        for slots in (op.inputs, op.outputs):
            for slot in slots:
                if type(slot.parameter) is not str or \
                        not all(type(arg) is str for arg in slot.arguments):
                    return False
        for attr in op.attrs:
            if type(attr.name) is not str or type(attr.s) is not str or \
                    type(attr.var_name) is not str or \
                    not all(type(x) is str for x in attr.strings) or \
                    not all(type(x) is str for x in attr.vars_name):
                return False
    return True


def _name_the_bytes(block: Any, i: int) -> None:
    """Raise a ProtoDecodeError naming the first string of ``block`` that is not text."""
    for var in block.vars:
        _text(var.name, f"block {i}: a variable name")
        for attr in var.attrs:
            _text(attr.name, f"block {i}, variable '{var.name}': an attribute name")
            _text(attr.s, f"block {i}, variable '{var.name}': attribute '{attr.name}'")
    for k, op in enumerate(block.ops):
        _text(op.type, f"block {i}, op #{k}: its type")
        where = f"block {i}, op #{k} '{op.type}'"
        for slots in (op.inputs, op.outputs):
            for slot in slots:
                _text(slot.parameter, f"{where}: a slot name")
                for arg in slot.arguments:
                    _text(arg, f"{where}: an argument of slot '{slot.parameter}'")
        for attr in op.attrs:
            _text(attr.name, f"{where}: an attribute name")
            what = f"{where}: attribute '{attr.name}'"
            _text(attr.s, what)
            _text(attr.var_name, what)
            for s in attr.strings:
                _text(s, what)
            for s in attr.vars_name:
                _text(s, what)


def _text(value: Any, what: str) -> None:
    if not isinstance(value, str):
        raise ProtoDecodeError(f"{what} is not UTF-8 text ({bytes(value)[:40]!r}): the file is "
                               "corrupted")
