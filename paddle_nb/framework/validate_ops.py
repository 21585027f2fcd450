"""Checks of a parsed program's ops: their block attributes, attribute types and variables.

``validate.py`` checks that a ProgramDesc is well formed as a message; this module checks
that its ops make sense as a program, before any view, clone, prune or run is built on
it, so that a damaged or hostile file is refused at load with an error naming the op:

- a BLOCK / BLOCKS attribute names a *descendant* of the op's block (a block whose
  parent chain leads back to it), as every program PaddlePaddle or paddle_nb builds
  does. An op pointing at its own block, an ancestor or a sibling could make the walk
  from an op into its sub-blocks go round for ever (prune, the executor, the printer).
- an attribute the op type declares (or one every op carries, ``op_role``) has an
  AttrType that can hold what the op declares: an ``op_role`` stored as FLOATS or a
  STRING is refused here, not left to fail as a bare TypeError in ``clone``.
- no op names a variable "" (PaddlePaddle writes ``@EMPTY@`` for none), and a
  global-block op names no variable that only a sub-block declares: it could read
  nothing a run gives it. (Inside sub-blocks PaddlePaddle leaves many names undeclared,
  such as the gradients a grad block makes at run time, so only the global block is
  checked.)
"""

from typing import Any

from paddle_nb.errors import ProtoDecodeError
from paddle_nb.framework.attrs import read_attr
from paddle_nb.ops.machinery import registry
from paddle_nb.proto import framework_pb2

__all__ = ["check_ops"]

T = framework_pb2.AttrType

# The AttrTypes that can hold a value of each declared kind (ops/machinery/registry.py's
# ATTR_KINDS).
# Numbers widen (an INT where a LONG or a FLOAT is declared): paddle_nb reads them so.
_INTS = {T.INT, T.LONG}
_NUMBERS = {T.INT, T.LONG, T.FLOAT, T.FLOAT64, T.SCALAR}
_TEXT = {T.STRING, T.VAR}
_FITS = {
    "int": _INTS, "long": _INTS, "dtype": _INTS, "block": {T.BLOCK, T.INT, T.LONG},
    "float": _NUMBERS, "float64": _NUMBERS, "bool": {T.BOOLEAN},
    "str": _TEXT, "var": _TEXT,
    "scalar": _NUMBERS | {T.BOOLEAN},
    "ints": {T.INTS, T.LONGS}, "longs": {T.INTS, T.LONGS}, "blocks": {T.BLOCKS, T.INTS},
    "floats": {T.FLOATS, T.FLOAT64S, T.INTS, T.LONGS, T.SCALARS},
    "float64s": {T.FLOATS, T.FLOAT64S, T.INTS, T.LONGS, T.SCALARS},
    "bools": {T.BOOLEANS}, "strs": {T.STRINGS, T.VARS}, "vars": {T.STRINGS, T.VARS},
    "scalars": {T.SCALARS, T.FLOATS, T.FLOAT64S, T.INTS, T.LONGS, T.BOOLEANS},
}
_LISTS = {T.INTS, T.LONGS, T.FLOATS, T.FLOAT64S, T.STRINGS, T.BOOLEANS, T.BLOCKS, T.VARS,
          T.SCALARS}


def check_ops(desc: Any) -> None:
    """Raise a ProtoDecodeError naming the first op whose block attribute, attribute type
    or variable does not fit (``desc`` is already well formed: see ``validate.py``)."""
    ancestors = [_chain(desc, i) for i in range(len(desc.blocks))]
    inner = _sub_block_only(desc) if len(desc.blocks) > 1 else set()
    fine, lookup, common = _FINE, registry.lookup, registry.COMMON_ATTRS
    block_types = (T.BLOCK, T.BLOCKS)
    for i, block in enumerate(desc.blocks):
        for k, op in enumerate(block.ops):
            op_type = op.type
            for attr in op.attrs:
                attr_type = attr.type
                if attr_type in block_types:
                    _check_block_attr(attr, op, k, i, ancestors)
                key = (op_type, attr.name, attr_type)
                if key not in fine and _check_attr_type(attr, op, k, i, lookup(op_type), common) \
                        and len(fine) < 100_000:
                    fine.add(key)
            if i == 0 and inner:
                _check_global_op_vars(op, f"op #{k} '{op_type}' in block 0", inner)
            _check_no_empty_names(op, k, i)


# (op type, attribute, AttrType) found to fit: most programs repeat them
_FINE: set[tuple[str, str, int]] = set()


def _chain(desc: Any, i: int) -> list[int]:
    """Block ``i`` and its ancestors, innermost first (parents precede: no cycle)."""
    chain = [i]
    while desc.blocks[chain[-1]].parent_idx >= 0:
        chain.append(desc.blocks[chain[-1]].parent_idx)
    return chain


def _sub_block_only(desc: Any) -> set[str]:
    """The names declared in some sub-block but not in the global block."""
    glob = {v.name for v in desc.blocks[0].vars}
    return {v.name for b in desc.blocks[1:] for v in b.vars if v.name not in glob}


def _check_block_attr(attr: Any, op: Any, k: int, i: int, ancestors: list[list[int]]) -> None:
    ids = [attr.block_idx] if attr.type == T.BLOCK else \
        list(attr.blocks_idx) if attr.type == T.BLOCKS else []
    for b in ids:
        if i not in ancestors[b][1:]:
            what = "its own block" if b == i else "an enclosing block" if b in ancestors[i] \
                else "a block that is not nested in it"
            raise ProtoDecodeError(
                f"op #{k} '{op.type}' in block {i}: attribute '{attr.name}' names block {b}, "
                f"{what}; a sub-block "
                f"must be nested in block {i} (the file is damaged: running or pruning it "
                "would go round in a cycle)")


def _check_attr_type(attr: Any, op: Any, k: int, i: int, opdef: Any, common: Any) -> bool:
    """True when the (op type, attribute, AttrType) fits whatever the value; False when
    only this value does (an empty list); else a ProtoDecodeError."""
    declared = (opdef.attrs.get(attr.name) if opdef is not None else None) \
        or common.get(attr.name)
    if declared is None:            # kept as it came (PaddlePaddle's extra attributes);
        return opdef is not None    # an op type registered later may declare it
    if attr.type in _FITS.get(declared.kind, ()):
        return True
    if attr.type in _LISTS and declared.kind.endswith("s") and _empty(attr):
        return False                # an empty list: its element type says nothing
    found = framework_pb2.AttrType.Name(attr.type) if attr.type in T.values() else attr.type
    raise ProtoDecodeError(
        f"op #{k} '{op.type}' in block {i}: attribute '{attr.name}' is stored as {found}; "
        "the op declares it "
        f"{declared.kind} ({framework_pb2.AttrType.Name(declared.attr_type)}): the file is "
        "damaged or was written for another op")


def _empty(attr: Any) -> bool:
    return read_attr(attr) == []


def _check_global_op_vars(op: Any, where: str, inner: set[str]) -> None:
    for slots, kind in ((op.inputs, "reads"), (op.outputs, "writes")):
        for slot in slots:
            for name in slot.arguments:
                if name in inner:
                    raise ProtoDecodeError(
                        f"{where} {kind} variable '{name}' (slot '{slot.parameter}'), which "
                        "only a sub-block declares: a global-block op cannot see it (the "
                        "file is damaged)")


def _check_no_empty_names(op: Any, k: int, i: int) -> None:
    """An op's variable is never named "" (PaddlePaddle writes ``@EMPTY@`` for none)."""
    for slots in (op.inputs, op.outputs):
        for slot in slots:
            if "" in slot.arguments:
                raise ProtoDecodeError(f"op #{k} '{op.type}' in block {i}: slot "
                                       f"'{slot.parameter}' names a variable '' (no name): the "
                                       "file is damaged")
