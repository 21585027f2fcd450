"""Blocks: a list of ops and a symbol table of variables ("Design Doc:
Python API", "Design Doc: Block and Scope").

A Block is a view over a BlockDesc. Its variables are looked up like names
in nested C++ braces: ``find_var`` looks in this block, then in the parent
block, up to the global block (the symbol table of "Design Doc: Block and Scope"). ``append_op``
builds an op eagerly: it checks slots and attributes against the op's
OpDef, infers the output shapes, and only then writes the OpDesc, so a
failed append leaves the block as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paddle_nb.core.dtypes import convert_dtype, to_var_type
from paddle_nb.errors import AttrError, OpBuildError, ShapeError, VarNotFoundError
from paddle_nb.framework.attrs import attrs_blob, guess_attr_type, write_attr
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.initializer import default_initializer
from paddle_nb.framework.operator import Operator
from paddle_nb.framework.printer import block_to_text
from paddle_nb.framework.variable import Parameter, Variable, VarType, whole_dims
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.registry import COMMON_ATTRS
from paddle_nb.proto import framework_pb2

if TYPE_CHECKING:
    from paddle_nb.framework.initializer import Initializer
    from paddle_nb.framework.program import Program

__all__ = ["Block"]

# what a slot is given when appending an op: a Variable or a name, or a list of them
SlotArgs = Mapping[str, Any]


class Block:
    """One block of a Program: ``idx``, ``parent_idx``, ``vars`` (name -> Variable), ``ops``.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> g = prog.global_block()
    >>> sub = prog.create_block()
    >>> _ = g.create_var(name="w", shape=(2,))
    >>> sub.find_var("w") is g.var("w"), sub.find_var("w", recursive=False)
    (True, None)
    """

    def __init__(self, program: Program, desc: Any) -> None:
        self.program = program
        self.desc = desc            # its BlockDesc
        self.vars: dict[str, Variable] = {}
        self.ops: list[Operator] = []

    @property
    def idx(self) -> int:
        return self.desc.idx

    @property
    def parent_idx(self) -> int:
        return self.desc.parent_idx

    @property
    def parent(self) -> Block | None:
        return None if self.desc.parent_idx < 0 else self.program.blocks[self.desc.parent_idx]

    # -- the symbol table -----------------------------------------------------------------------
    def var(self, name: str) -> Variable:
        """The variable ``name`` declared in this block (not its parents)."""
        var = self.vars.get(name)
        if var is None:
            known = ", ".join(list(self.vars)[:12]) or "none"
            raise VarNotFoundError(f"block {self.idx} has no variable '{name}' (it declares: "
                                   f"{known}); find_var(name) also looks in parent blocks")
        return var

    def find_var(self, name: str, recursive: bool = True) -> Variable | None:
        """The variable ``name`` here or, when ``recursive``, in the nearest ancestor block."""
        block = self
        while True:
            var = block.vars.get(name)
            if var is not None or not recursive:
                return var
            parent = block.desc.parent_idx
            if parent < 0:
                return None
            block = block.program.blocks[parent]

    def has_var(self, name: str) -> bool:
        return name in self.vars

    def create_var(self, name: str | None = None, shape: Any = None, dtype: Any = "float32",
                   lod_level: int = 0, persistable: bool = False,
                   type: int = VarType.LOD_TENSOR, stop_gradient: bool = False) -> Variable:
        """Declare a variable in this block; an existing name returns the existing one."""
        if name is None:
            name = self.program.unique_name("tmp")
        existing = self.vars.get(name)
        if existing is not None:
            return existing
        desc = self.desc.vars.add()
        _fill_var_desc(desc, name, shape, dtype, lod_level, persistable, type, stop_gradient)
        var = self.vars[name] = Variable(self, desc)
        self.program.bump_version()
        return var

    def create_parameter(self, name: str | None = None, shape: Any = None,
                         dtype: Any = "float32", initializer: Initializer | None = None,
                         trainable: bool = True, optimize_attr: dict[str, Any] | None = None,
                         regularizer: Any = None, need_clip: bool = True) -> Parameter:
        """A Parameter in the global block, whatever block this is ("Design Doc: Python API").

        Its initializer op goes into the startup program when ``program_guard``
        was given one; otherwise it is put in the global block's preamble.
        """
        program = self.program
        glob = program.global_block()
        if shape is None or any(d < 0 for d in whole_dims(shape, f"parameter '{name}'")):
            raise ValueError(f"create_parameter: a parameter needs a known shape, got {shape}")
        name = name or program.unique_name("param")
        existing = glob.vars.get(name)
        if isinstance(existing, Parameter):
            if existing.shape != tuple(shape):
                raise ValueError(f"parameter '{name}' exists with shape {existing.shape}; "
                                 f"cannot share it with shape {tuple(shape)}")
            return existing
        if existing is not None:
            raise ValueError(f"'{name}' is already a non-parameter variable of the global block")
        desc = glob.desc.vars.add()
        _fill_var_desc(desc, name, shape, dtype, 0, True, VarType.LOD_TENSOR, not trainable)
        desc.is_parameter = True
        initializer = initializer or default_initializer(shape)
        param = glob.vars[name] = Parameter(glob, desc, trainable, optimize_attr, initializer,
                                            regularizer, need_clip)
        program.bump_version()
        try:
            program.initialize(param)
        except Exception:
            glob.remove_var(name)      # nothing half-written: no parameter without initializer
            raise
        return param

    def remove_var(self, name: str) -> None:
        """Remove a variable's VarDesc (undoing a failed declaration, pruning): no op may
        still name it."""
        self.vars.pop(name, None)
        for k, desc in enumerate(self.desc.vars):
            if desc.name == name:
                del self.desc.vars[k]
                break
        self.program.bump_version()

    def all_parameters(self) -> list[Parameter]:
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    # -- ops ------------------------------------------------------------------------------------
    def append_op(self, type: str, inputs: SlotArgs | None = None,
                  outputs: SlotArgs | None = None,
                  attrs: Mapping[str, Any] | None = None) -> Operator:
        """Append an op: check it, infer its output shapes, write its OpDesc. Returns it."""
        return self._insert_op(len(self.ops), type, inputs, outputs, attrs)

    def prepend_op(self, type: str, inputs: SlotArgs | None = None,
                   outputs: SlotArgs | None = None,
                   attrs: Mapping[str, Any] | None = None) -> Operator:
        return self._insert_op(0, type, inputs, outputs, attrs)

    def insert_op(self, index: int, type: str, inputs: SlotArgs | None = None,
                  outputs: SlotArgs | None = None,
                  attrs: Mapping[str, Any] | None = None) -> Operator:
        return self._insert_op(index, type, inputs, outputs, attrs)

    def remove_op(self, index: int) -> None:
        """Remove the op at ``index`` (variables stay declared)."""
        op = self.ops.pop(index)
        del self.desc.ops[index]
        for name in op.output_arg_names:
            var = self.find_var(name)
            if var is not None and var.writer is op:
                var.writer = next((o for o in reversed(self.ops)
                                   if name in o.output_arg_names), None)
        self.program.bump_version()

    def _insert_op(self, index: int, type: str, inputs: SlotArgs | None,
                   outputs: SlotArgs | None, attrs: Mapping[str, Any] | None) -> Operator:
        opdef = registry.get(type)
        attrs = dict(attrs or {})
        callstack = attrs.pop("op_callstack", None) or callstack_strings()
        try:
            ins = self._resolve(opdef, opdef.inputs, inputs or {}, "input")
            outs = self._resolve(opdef, opdef.outputs, outputs or {}, "output")
            values = opdef.complete_attrs(attrs)
            metas = self._infer(opdef, ins, values)
        except (ShapeError, AttrError, OpBuildError) as err:
            raise type_of(err)(self._build_message(type, err, inputs,
                                                   format_site(callstack))) from None
        desc = self._write_op_whole(index, type, ins, outs, attrs, values, callstack)
        op = Operator(self, desc)
        self.ops.insert(index, op)
        self._declare_outputs(opdef, outs, metas, op)
        self.program.bump_version()
        return op

    def _resolve(self, opdef: registry.OpDef, slots: tuple[registry.Slot, ...],
                 given: SlotArgs, kind: str) -> dict[str, list[str]]:
        """{slot: [name]} for the given slot map; unknown or missing slots are errors."""
        known = opdef.input_index if kind == "input" else opdef.output_index
        for slot in given:
            if slot not in known:
                raise OpBuildError(f"op '{opdef.type}' has no {kind} slot '{slot}'; its {kind}s "
                                   f"are {list(known) or 'none'}")
        resolved: dict[str, list[str]] = {}
        for s in slots:
            value = given.get(s.name)
            if value is None or (isinstance(value, (list, tuple)) and not value):
                if kind == "output" and not s.dispensable and not s.duplicable:
                    resolved[s.name] = [self.program.unique_tmp(f"{opdef.type}.{s.name}")]
                elif kind == "input" and not s.dispensable:
                    raise OpBuildError(f"op '{opdef.type}': {kind} slot '{s.name}' is required")
                continue
            if isinstance(value, Variable):          # the usual case: one Variable
                names = [value.desc.name]
            else:
                items = list(value) if isinstance(value, (list, tuple)) else [value]
                if len(items) > 1 and not s.duplicable:
                    raise OpBuildError(f"op '{opdef.type}': slot '{s.name}' takes one "
                                       f"variable, got {len(items)}")
                names = [v.name if isinstance(v, Variable) else v for v in items]
            for n in names:
                if not isinstance(n, str):
                    raise OpBuildError(f"op '{opdef.type}': slot '{s.name}' expects Variables or "
                                       f"names, got {n!r}")
                if kind == "input" and self.find_var(n) is None:
                    raise OpBuildError(f"op '{opdef.type}': input slot '{s.name}' names variable "
                                       f"'{n}', which no block up from block {self.idx} declares")
            resolved[s.name] = names
        return resolved

    def _infer(self, opdef: registry.OpDef, ins: dict[str, list[str]],
               values: dict[str, Any]) -> dict[str, Any]:
        if opdef.infer is None:
            return {}
        args: list[Any] = []
        for s in opdef.inputs:
            names = ins.get(s.name)
            if names is None:
                args.append(None)
                continue
            # (_resolve checked that every input name is declared)
            metas = [self.find_var(n).meta() for n in names]  # type: ignore[union-attr]
            args.append(metas if s.duplicable else metas[0])
        result = opdef.infer(*args, **values)
        if len(opdef.outputs) == 1:
            result = (result,)
        return {s.name: r for s, r in zip(opdef.outputs, result)}

    def _write_op_whole(self, index: int, type: str, ins: dict[str, list[str]],
                        outs: dict[str, list[str]], given: dict[str, Any],
                        values: dict[str, Any], callstack: list[str]) -> Any:
        """``_write_op``, or nothing at all: a value protobuf refuses (an undeclared attribute
        out of range) takes the half-written OpDesc back out and names the op and the line."""
        count = len(self.desc.ops)
        try:
            return self._write_op(index, type, ins, outs, given, values, callstack)
        except (ValueError, TypeError) as err:
            while len(self.desc.ops) > count:
                del self.desc.ops[index]
            raise AttrError(self._build_message(
                type, AttrError(f"op '{type}': an attribute cannot be written: {err}"),
                ins, format_site(callstack))) from None

    def _write_op(self, index: int, type: str, ins: dict[str, list[str]],
                  outs: dict[str, list[str]], given: dict[str, Any], values: dict[str, Any],
                  callstack: list[str]) -> Any:
        opdef = registry.get(type)
        new = self.desc.ops.add() if index == len(self.ops) else framework_pb2.OpDesc()
        new.type = type
        for slot, names in ins.items():
            new.inputs.add(parameter=slot, arguments=names)
        for slot, names in outs.items():
            new.outputs.add(parameter=slot, arguments=names)
        if all(name in values for name in given):     # declared attributes only: the usual case
            new.MergeFromString(attrs_blob(opdef, values, self.program.role))
        else:
            for name, value in values.items():
                write_attr(new.attrs.add(), name, opdef.attrs[name].attr_type, value)
            for name, value in given.items():
                if name not in values:
                    attr = opdef.attr_def(name)
                    kind = attr.attr_type if attr is not None else guess_attr_type(value)
                    write_attr(new.attrs.add(), name, kind, value)
            if "op_role" not in given:
                write_attr(new.attrs.add(), "op_role", COMMON_ATTRS["op_role"].attr_type,
                           self.program.role)
        write_attr(new.attrs.add(), "op_callstack", COMMON_ATTRS["op_callstack"].attr_type,
                   callstack)
        if index == len(self.ops):
            return new
        self.desc.ops.insert(index, new)
        return self.desc.ops[index]

    def _declare_outputs(self, opdef: registry.OpDef, outs: dict[str, list[str]],
                         metas: dict[str, Any], op: Operator) -> None:
        for slot, names in outs.items():
            meta = metas.get(slot)
            meta_list = meta if isinstance(meta, list) else [meta] * len(names)
            for name, m in zip(names, meta_list):
                var = self.find_var(name)
                known = m is not None and m.shape is not None
                if var is None:                   # a new output: declared with its shape at once
                    var = self.create_var(name=name, shape=m.shape if known else None,
                                          dtype=m.dtype if known else "float32",
                                          lod_level=m.lod_level if known else 0)
                elif known and var.is_tensor():
                    var.shape = m.shape
                    var.dtype = m.dtype
                    var.lod_level = m.lod_level
                var.writer = op

    def _build_message(self, type: str, err: Exception, inputs: SlotArgs | None,
                       site: str) -> str:
        described = []
        for slot, value in (inputs or {}).items():
            items = value if isinstance(value, (list, tuple)) else [value]
            for v in items:
                var = v if isinstance(v, Variable) else \
                    self.find_var(v) if isinstance(v, str) else None
                described.append(f"{slot}={_describe(var) if var is not None else repr(v)}")
        shown = ", ".join(described) or "none"
        return (f"cannot build op '{type}' in block {self.idx}: {err}\n"
                f"  inputs: {shown}\n  built at {site}")

    def __repr__(self) -> str:
        return (f"<Block {self.idx} (parent {self.parent_idx}): {len(self.vars)} vars, "
                f"{len(self.ops)} ops>")

    def __str__(self) -> str:
        return block_to_text(self)


def type_of(err: Exception) -> type[OpBuildError]:
    return type(err) if isinstance(err, OpBuildError) else OpBuildError


def _describe(var: Variable) -> str:
    dtype, shape = var.dtype_or_none(), var.shape
    return var.name if dtype is None or shape is None else f"{var.name} {dtype}{list(shape)}"


# (kind, dtype, lod_level, persistable, stop_gradient) -> VarDesc bytes
_VAR_BLOBS: dict[tuple[Any, ...], bytes] = {}


def _fill_var_desc(desc: Any, name: str, shape: Any, dtype: Any, lod_level: int,
                   persistable: bool, kind: int, stop_gradient: bool) -> None:
    key = (kind, dtype, lod_level, bool(persistable), bool(stop_gradient))
    blob = _VAR_BLOBS.get(key)
    if blob is None:              # a few kinds of variable recur: their fields are written once
        model = framework_pb2.VarDesc()
        _write_var_desc(model, *key)
        blob = _VAR_BLOBS[key] = model.SerializePartialToString()
    desc.MergeFromString(blob)
    desc.name = name
    if shape is not None and kind in _DIMS:
        _DIMS[kind](desc).dims.extend(whole_dims(shape, f"variable '{name}'"))


_DIMS = {VarType.LOD_TENSOR: lambda desc: desc.type.lod_tensor.tensor,
         VarType.LOD_TENSOR_ARRAY: lambda desc: desc.type.tensor_array.tensor,
         VarType.SELECTED_ROWS: lambda desc: desc.type.selected_rows}


def _write_var_desc(desc: Any, kind: int, dtype: Any, lod_level: int, persistable: bool,
                    stop_gradient: bool) -> None:
    desc.name = ""
    desc.type.type = kind
    desc.persistable = persistable
    desc.stop_gradient = stop_gradient
    if kind == VarType.LOD_TENSOR:
        tensor = desc.type.lod_tensor.tensor
        desc.type.lod_tensor.lod_level = int(lod_level)
    elif kind == VarType.LOD_TENSOR_ARRAY:
        tensor = desc.type.tensor_array.tensor
        desc.type.tensor_array.lod_level = int(lod_level)
    elif kind == VarType.SELECTED_ROWS:
        tensor = desc.type.selected_rows
    else:
        return
    tensor.data_type = to_var_type(convert_dtype(dtype))
