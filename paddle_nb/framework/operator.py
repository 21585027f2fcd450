"""Operators: views over an OpDesc, made only through a Block.

An Operator reads everything from its OpDesc: type, slot -> variable names,
attributes. The only thing it adds is its Block. Appending one (see
``Block.append_op``) checks slots and attributes against the op's
registered OpDef and infers its outputs' shapes at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paddle_nb.framework.attrs import read_attr, write_attr
from paddle_nb.framework.callsite import format_site
from paddle_nb.ops.machinery import registry
from paddle_nb.proto import framework_pb2

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block

__all__ = ["Operator", "OpRole"]


class OpRole:
    """PaddlePaddle's ``op_role`` attribute values (bits)."""

    FORWARD = 0x0
    BACKWARD = 0x1
    OPTIMIZE = 0x2
    LRSCHED = 0x10
    LOSS = 0x100

    @staticmethod
    def name(role: int) -> str:
        if role & OpRole.OPTIMIZE:
            return "optimize"
        if role & OpRole.BACKWARD:
            return "backward"
        if role & OpRole.LRSCHED:
            return "lr_sched"
        return "forward"


class Operator:
    """One op of a Block.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[3])
    ...     y = pd.layers.relu(x)
    >>> op = y.writer
    >>> op.type, op.inputs, op.outputs
    ('relu', {'X': ['x']}, {'Out': ['relu_0.tmp_0']})
    """

    __slots__ = ("block", "desc", "__weakref__")

    def __init__(self, block: Block, desc: Any) -> None:
        self.block = block
        self.desc = desc

    @property
    def type(self) -> str:
        return self.desc.type

    @property
    def opdef(self) -> registry.OpDef | None:
        """The registered OpDef, or None for an op type paddle_nb does not know."""
        return registry.lookup(self.desc.type)

    @property
    def inputs(self) -> dict[str, list[str]]:
        """{slot: [variable names]} in the OpDesc's order."""
        return {v.parameter: list(v.arguments) for v in self.desc.inputs}

    @property
    def outputs(self) -> dict[str, list[str]]:
        return {v.parameter: list(v.arguments) for v in self.desc.outputs}

    def input(self, slot: str) -> list[str]:
        for v in self.desc.inputs:
            if v.parameter == slot:
                return list(v.arguments)
        return []

    def output(self, slot: str) -> list[str]:
        for v in self.desc.outputs:
            if v.parameter == slot:
                return list(v.arguments)
        return []

    @property
    def input_arg_names(self) -> list[str]:
        return [n for v in self.desc.inputs for n in v.arguments]

    @property
    def output_arg_names(self) -> list[str]:
        return [n for v in self.desc.outputs for n in v.arguments]

    @property
    def attrs(self) -> dict[str, Any]:
        """{name: value} of every attribute in the OpDesc."""
        return {a.name: read_attr(a, self.desc.type) for a in self.desc.attrs}

    def attr(self, name: str, default: Any = None) -> Any:
        for a in self.desc.attrs:
            if a.name == name:
                return read_attr(a, self.desc.type)
        return default

    def has_attr(self, name: str) -> bool:
        return any(a.name == name for a in self.desc.attrs)

    def set_attr(self, name: str, value: Any) -> None:
        """Change an attribute the op already has (``clone(for_test)`` sets ``is_test``);
        an attribute it lacks raises KeyError."""
        for k, a in enumerate(self.desc.attrs):
            if a.name == name:
                attr_type = a.type
                del self.desc.attrs[k]
                write_attr(self.desc.attrs.add(), name, attr_type, value)
                self.block.program.bump_version()
                return
        raise KeyError(name)

    _set_attr = set_attr     # PaddlePaddle's spelling, which its users' scripts call

    @property
    def role(self) -> int:
        return self.attr("op_role", 0)

    @property
    def callstack(self) -> list[str]:
        return self.attr("op_callstack", [])

    def site(self) -> str:
        """``file:line: source`` of the user's code that built this op."""
        return format_site(self.callstack)

    def sub_block_ids(self) -> list[int]:
        """Indices of the blocks this op owns (its BLOCK / BLOCKS attributes)."""
        T = framework_pb2.AttrType
        ids: list[int] = []
        for a in self.desc.attrs:
            if a.type == T.BLOCK:
                ids.append(a.block_idx)
            elif a.type == T.BLOCKS:
                ids.extend(a.blocks_idx)
        return ids

    def index(self) -> int:
        return self.block.ops.index(self)

    def __repr__(self) -> str:
        def args(slots: dict[str, list[str]]) -> str:
            return ", ".join(f"{k}={v[0] if len(v) == 1 else v}" for k, v in slots.items())
        return f"Operator({self.type}: {args(self.outputs)} <- {args(self.inputs)})"
