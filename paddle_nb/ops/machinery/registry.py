"""The operator registry: every op declared once, in one plain dict.

An :class:`OpDef` holds all there is to know about an op type: its input
and output slots, its typed attributes with defaults and checks, a pure
shape-and-dtype rule (``infer``), one kernel written against an array module
``xp`` (NumPy or CuPy), and a gradient maker that returns the grad ops to
append. ``infer`` and ``kernel`` take the same arguments (the kernel gets a
context first), so the shape rule reads like the computation it describes::

    def infer(x, y, *, axis):          # Meta(shape, dtype, lod_level) in, Meta out
    def kernel(ctx, x, y, *, axis):    # arrays in, arrays out

A slot's argument is one value, a list (``duplicable``) or None (an absent
``dispensable`` slot). With several output slots both return a tuple in slot
order.

>>> print(describe("scale").splitlines()[0])
scale: Out = scale * X + bias (or scale * (X + bias) when bias_after_scale is False)
"""

import dataclasses
import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.errors import AttrError, OpNotFoundError, ShapeError
from paddle_nb.proto import framework_pb2

__all__ = ["Meta", "prepared", "meta_of_value", "Slot", "Attr", "OpDef", "register", "get",
           "lookup", "exists", "types", "describe", "REQUIRED", "COMMON_ATTRS", "grad_var_name",
           "EMPTY_VAR", "fail", "known_product"]

AttrType = framework_pb2.AttrType
GRAD_SUFFIX = "@GRAD"
EMPTY_VAR = "@EMPTY@"


def grad_var_name(name: str) -> str:
    """The name of ``name``'s gradient: ``x`` -> ``x@GRAD``."""
    return name + GRAD_SUFFIX


class Meta(NamedTuple):
    """What shape inference knows of a variable: shape (-1 = unknown), dtype, lod_level."""

    shape: tuple[int, ...] | None      # None for a variable that is not a tensor
    dtype: numpy.dtype[Any] | None
    lod_level: int = 0

    def with_shape(self, shape: Any) -> "Meta":
        return self._replace(shape=tuple(shape))

    def with_dtype(self, dtype: Any) -> "Meta":
        return self._replace(dtype=convert_dtype(dtype))


def known_product(dims: Any) -> int:
    """The product of ``dims`` (a shape's element count), or -1 when one is unknown (-1).

    >>> known_product((2, 3, 4)), known_product((-1, 3)), known_product(())
    (24, -1, 1)
    """
    p = 1
    for d in dims:
        if d < 0:
            return -1
        p *= d
    return p


def fail(message: str) -> NoReturn:
    """Raise the error a shape rule raises when its inputs do not fit."""
    raise ShapeError(message)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


@dataclasses.dataclass(frozen=True)
class Slot:
    """An input or output slot: ``X``, ``Out``; ``duplicable`` takes a list of variables."""

    name: str
    duplicable: bool = False
    dispensable: bool = False
    comment: str = ""


# kind -> (AttrType, python coercion)
class _OutOfRange(ValueError):
    """An integer the attribute's protobuf field cannot hold."""


_INT_LIMITS = {32: (-2 ** 31, 2 ** 31), 64: (-2 ** 63, 2 ** 63)}


def _as_int(v: Any, bits: int = 64) -> int:
    low, high = _INT_LIMITS[bits]
    if type(v) is not int:       # (the usual case, a Python int, skips these checks)
        if isinstance(v, (bool, numpy.bool_)) or not isinstance(v, (int, numpy.integer)):
            raise TypeError
        v = int(v)
    if not low <= v < high:
        raise _OutOfRange(f"{v} does not fit a {bits}-bit integer ({low} to {high - 1})")
    return v


def _as_int32(v: Any) -> int:
    return _as_int(v, 32)


def _as_float(v: Any) -> float:
    if isinstance(v, (bool, numpy.bool_)) or \
            not isinstance(v, (int, float, numpy.integer, numpy.floating)):
        raise TypeError
    return float(v)


def _as_bool(v: Any) -> bool:
    if not isinstance(v, (bool, numpy.bool_)):
        raise TypeError
    return bool(v)


def _as_str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError
    return v


def _list_of(one: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    def coerce(v: Any) -> list[Any]:
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise TypeError
        return [one(x) for x in v]
    return coerce


def _as_dtype(v: Any) -> numpy.dtype[Any]:
    return convert_dtype(v)


_SCALAR_KINDS: tuple[tuple[type[Any], type], ...] = (
    (bool, numpy.bool_), (int, numpy.integer), (float, numpy.floating),
    (complex, numpy.complexfloating))


def _as_scalar(v: Any) -> bool | int | float | complex:
    """A number that keeps its kind (a Scalar attribute): bool, int, float or complex."""
    for kind, numpy_kind in _SCALAR_KINDS:
        if isinstance(v, (kind, numpy_kind)):
            return kind(v)
    raise TypeError


ATTR_KINDS = {
    "int": (AttrType.INT, _as_int32), "long": (AttrType.LONG, _as_int),
    "float": (AttrType.FLOAT, _as_float), "float64": (AttrType.FLOAT64, _as_float),
    "str": (AttrType.STRING, _as_str), "bool": (AttrType.BOOLEAN, _as_bool),
    "ints": (AttrType.INTS, _list_of(_as_int32)), "longs": (AttrType.LONGS, _list_of(_as_int)),
    "floats": (AttrType.FLOATS, _list_of(_as_float)),
    "float64s": (AttrType.FLOAT64S, _list_of(_as_float)),
    "strs": (AttrType.STRINGS, _list_of(_as_str)), "bools": (AttrType.BOOLEANS, _list_of(_as_bool)),
    "block": (AttrType.BLOCK, _as_int32), "blocks": (AttrType.BLOCKS, _list_of(_as_int32)),
    # stored as a VarType number, given to rules as numpy.dtype
    "dtype": (AttrType.INT, _as_dtype),
    # a number that carries its kind (bool, int, float, complex): a Scalar message
    "scalar": (AttrType.SCALAR, _as_scalar), "scalars": (AttrType.SCALARS, _list_of(_as_scalar)),
    "var": (AttrType.VAR, _as_str), "vars": (AttrType.VARS, _list_of(_as_str)),
}


_ATTR_TYPES = {kind: int(spec[0]) for kind, spec in ATTR_KINDS.items()}


@dataclasses.dataclass(frozen=True)
class Attr:
    """A typed attribute: ``Attr("float", 1.0)``; ``check`` returns an error text or None."""

    kind: str
    default: Any = REQUIRED
    check: Callable[[Any], str | None] | None = None
    comment: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ATTR_KINDS:
            raise ValueError(f"unknown attribute kind {self.kind!r}; expected one of "
                             f"{list(ATTR_KINDS)}")

    @property
    def attr_type(self) -> int:
        return _ATTR_TYPES[self.kind]

    def coerce(self, op_type: str, name: str, value: Any) -> Any:
        """The value in its canonical Python form, or an AttrError naming op and attribute."""
        try:
            value = ATTR_KINDS[self.kind][1](value)
        except _OutOfRange as err:
            raise AttrError(f"op '{op_type}': attribute '{name}' ({self.kind}) = {value!r}: "
                            f"{err}") from None
        except (TypeError, ValueError):
            raise AttrError(f"op '{op_type}': attribute '{name}' expects {self.kind}, got "
                            f"{value!r} ({type(value).__name__})") from None
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise AttrError(f"op '{op_type}': attribute '{name}' = {value!r}: {problem}")
        return value


# Attributes any op may carry: PaddlePaddle writes them on every op; kernels ignore them.
COMMON_ATTRS = {
    "op_role": Attr("int", 0), "op_role_var": Attr("strs", []), "op_namescope": Attr("str", "/"),
    "op_callstack": Attr("strs", []), "op_device": Attr("str", ""),
    "with_quant_attr": Attr("bool", False), "use_mkldnn": Attr("bool", False),
    "use_cudnn": Attr("bool", False), "is_test": Attr("bool", False),
}


def _slots(spec: Any) -> tuple[Slot, ...]:
    out = []
    for s in spec or ():
        out.append(s if isinstance(s, Slot) else Slot(s))
    return tuple(out)


def _attrs(spec: Any) -> dict[str, Attr]:
    return {name: (a if isinstance(a, Attr) else Attr(*a)) for name, a in (spec or {}).items()}


def prepared(make: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel written in two steps, for ops whose work per call is small.

    ``make(ctx, metas, **attrs)`` decides once what the attributes and the
    inputs' metas decide (one Meta per input slot, a list for a duplicable one,
    None for an absent one; ``metas`` itself None when some are unknown) and
    returns the function of the input arrays that computes the op, for inputs
    of those metas. The kernel is that function made for the arrays it is
    given; an executor makes it once per plan with the inputs' declared metas
    and calls it on every run (``kernel.make``). There is one computation: the
    function ``make`` returns.
    """
    def kernel(ctx: Any, *inputs: Any, **attrs: Any) -> Any:
        return make(ctx, [meta_of_value(v) for v in inputs], **attrs)(*inputs)
    kernel.make = make       # type: ignore[attr-defined]  # (read by the executor)
    kernel.__doc__ = make.__doc__
    return kernel


def meta_of_value(value: Any) -> Any:
    """The Meta of an input value (an array, a list of them for a duplicable slot, None)."""
    if value is None:
        return None
    if isinstance(value, list):
        return [meta_of_value(v) for v in value]
    return Meta(tuple(value.shape), value.dtype, 0)


class OpDef:
    """The declaration of one op type; see the module docstring for the calling convention.

    ``raw`` kernels (control flow, feed/fetch, LoD ops) receive a context that
    also reaches the scope and the op's desc, and do their own reads and writes.
    ``grad`` is a function ``grad(g) -> [OpSpec, ...]`` (see paddle_nb.ops.machinery.grad)
    or None for an op with no gradient.
    """

    type: str
    inputs: tuple[Slot, ...]
    outputs: tuple[Slot, ...]
    attrs: dict[str, Attr]
    infer: Callable[..., Any] | None
    kernel: Callable[..., Any]          # (every registered op has one)
    grad: Callable[..., list[Any]] | None
    doc: str
    raw: bool
    no_need_buffer: tuple[str, ...]
    input_index: dict[str, int]
    output_index: dict[str, int]

    def __init__(self, type: str, inputs: Sequence[Any] = (),
                 outputs: Sequence[Any] = (), attrs: Mapping[str, Any] | None = None,
                 infer: Callable[..., Any] | None = None,
                 kernel: Callable[..., Any] | None = None,
                 grad: Callable[..., list[Any]] | None = None, doc: str = "", raw: bool = False,
                 no_need_buffer: Sequence[str] = ()) -> None:
        self.type = type
        self.inputs = _slots(inputs)
        self.outputs = _slots(outputs)
        self.attrs = _attrs(attrs)
        self.infer = infer
        self.kernel = kernel    # type: ignore[assignment]  # (register refuses None)
        self.grad = grad
        self.doc = doc.strip()
        self.raw = raw
        self.no_need_buffer = tuple(no_need_buffer)
        self.input_index = {s.name: i for i, s in enumerate(self.inputs)}
        self.output_index = {s.name: i for i, s in enumerate(self.outputs)}

    def attr_def(self, name: str) -> Attr | None:
        return self.attrs.get(name) or COMMON_ATTRS.get(name)

    def complete_attrs(self, given: dict[str, Any], strict: bool = True) -> dict[str, Any]:
        """Check and coerce ``given`` attrs; fill defaults; return the kernel's attrs.

        ``strict`` refuses attributes the op does not declare; a program read
        from a file (PaddlePaddle writes many extra attributes) is read with
        ``strict=False``, and the extra ones are left out of the result.
        """
        for name in given if strict else ():
            if name not in self.attrs and name not in COMMON_ATTRS:
                close = difflib.get_close_matches(name, list(self.attrs), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise AttrError(f"op '{self.type}' has no attribute '{name}'{hint}; it takes "
                                f"{sorted(self.attrs) or 'none'}")
        values = {}
        for name, attr in self.attrs.items():
            if name in given:
                values[name] = attr.coerce(self.type, name, given[name])
            elif attr.default is REQUIRED:
                raise AttrError(f"op '{self.type}': attribute '{name}' ({attr.kind}) is required")
            else:
                values[name] = attr.default
        return values

    def __repr__(self) -> str:
        return f"<OpDef {self.type}>"


_REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    """Add an op type to the registry (its name must be new). Returns it."""
    if opdef.type in _REGISTRY:
        raise ValueError(f"op type '{opdef.type}' is registered twice")
    if opdef.kernel is None:
        raise ValueError(f"op type '{opdef.type}' is registered without a kernel")
    _REGISTRY[opdef.type] = opdef
    return opdef


def get(op_type: str) -> OpDef:
    """The OpDef of ``op_type``; an OpNotFoundError suggests close names."""
    opdef = _REGISTRY.get(op_type)
    if opdef is None:
        close = difflib.get_close_matches(str(op_type), list(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise OpNotFoundError(f"op type '{op_type}' is not registered in paddle_nb{hint}")
    return opdef


def lookup(op_type: str) -> OpDef | None:
    """The OpDef of ``op_type``, or None when paddle_nb does not know it (no error: for
    callers that report every unknown type at once)."""
    return _REGISTRY.get(op_type)


def exists(op_type: str) -> bool:
    return op_type in _REGISTRY


def types() -> list[str]:
    """Every registered op type, in registration order."""
    return list(_REGISTRY)


def describe(op_type: str) -> str:
    """A readable description of an op: what it computes, its slots and attributes."""
    d = get(op_type)
    lines = [f"{d.type}: {d.doc.splitlines()[0] if d.doc else '(no description)'}"]
    for title, slots in (("inputs", d.inputs), ("outputs", d.outputs)):
        for s in slots:
            flags = [f for f, on in (("list", s.duplicable), ("optional", s.dispensable)) if on]
            extra = f" ({', '.join(flags)})" if flags else ""
            lines.append(f"  {title[:-1]} {s.name}{extra}{': ' + s.comment if s.comment else ''}")
    for name, a in d.attrs.items():
        default = "required" if a.default is REQUIRED else f"default {a.default!r}"
        lines.append(f"  attr {name}: {a.kind}, {default}{': ' + a.comment if a.comment else ''}")
    lines.append(f"  gradient: {'yes' if d.grad else 'none'}")
    return "\n".join(lines)
