"""Compile-time variables: views over a VarDesc ("Design Doc: Python API").

A ``Variable`` is a name in a Block with a shape (-1 for an unknown batch
dimension), a dtype, a lod_level and flags; all of these live in its
VarDesc, the one source of truth, and the Python object only adds what the
seed calls construction-time information: the op that last wrote it
(``writer``). Arithmetic on Variables appends ops: ``x + y`` appends an
``elementwise_add``, ``x * 2.0`` a ``scale``, ``x @ w`` a ``matmul_v2``, ``x < y`` a
``less_than`` (framework/operators.py). As in PaddlePaddle, ``==`` appends an ``equal`` op:
Variables are compared by identity (``is``) or name; ``__hash__`` stays identity.
``Parameter`` adds trainable, optimize_attr and initializer.

Tensor methods (``x.mean()``, ``x.reshape([2, -1])``, ``x.astype("int64")``) are the 2.x
tensor functions of ``paddle_nb.tensor``: that layer comes after this one, so it registers
them here (``register_tensor_methods``) when it is imported, and ``Variable.__getattr__``
looks a method up in that table. Nothing is patched onto the class.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn, cast

import numpy

from paddle_nb.core.dtypes import from_var_type, known_var_type, to_var_type
from paddle_nb.errors import ProtoDecodeError, ShapeError, VariableTypeError
from paddle_nb.framework import operators
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.ops.machinery.registry import Meta
from paddle_nb.proto import framework_pb2

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.initializer import Initializer
    from paddle_nb.framework.operator import Operator

__all__ = ["Variable", "Parameter", "VarType", "whole_dims", "register_tensor_methods",
           "tensor_shape", "tensor_dtype", "Tensor", "as_tensor",
           "TENSOR_METHODS"]

# method name -> function(variable, *args, **kwargs), filled by paddle_nb.tensor at import
TENSOR_METHODS: dict[str, Callable[..., Any]] = {}


def register_tensor_methods(methods: Mapping[str, Callable[..., Any]]) -> None:
    """Make each ``name: function`` of ``methods`` callable as ``variable.name(...)``; a name
    may be registered once (two families claiming one method is a mistake)."""
    for name, function in methods.items():
        if name in TENSOR_METHODS and TENSOR_METHODS[name] is not function:
            raise ValueError(f"tensor method {name!r} is registered twice")
        TENSOR_METHODS[name] = function


def whole_dims(shape: Iterable[Any], what: str) -> list[int]:
    """``shape`` as a list of ints (None -> -1, the unknown dimension), or a ShapeError
    naming ``what`` and the user's line: a dimension is a whole number, -1 or more."""
    dims = []
    for d in shape:
        if type(d) is int and d >= -1:   # the usual case
            dims.append(d)
            continue
        if d is None:
            d = -1
        if isinstance(d, (bool, numpy.bool_)) or not isinstance(d, (int, numpy.integer)) \
                or d < -1:
            raise ShapeError(f"{what}: shape {list(shape)} has {d!r} ({type(d).__name__}); "
                             "expected whole numbers, -1 (or None) for an unknown dimension\n"
                             f"  built at {format_site(callstack_strings())}")
        dims.append(int(d))
    return dims

VarType = framework_pb2.VarType
_TENSOR_KINDS = (VarType.LOD_TENSOR, VarType.SELECTED_ROWS, VarType.LOD_TENSOR_ARRAY)


def _tensor_desc(desc: Any) -> Any:
    """The TensorDesc inside a VarDesc's type, or None for non-tensor kinds."""
    kind = desc.type.type
    if kind == VarType.LOD_TENSOR:
        return desc.type.lod_tensor.tensor
    if kind == VarType.LOD_TENSOR_ARRAY:
        return desc.type.tensor_array.tensor
    if kind == VarType.SELECTED_ROWS:
        return desc.type.selected_rows
    return None


class Variable:
    """A variable of a Block, as the program sees it before anything runs.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> x = prog.global_block().create_var(name="x", shape=(-1, 3), dtype="float32")
    >>> x
    Variable(x: float32[-1, 3])
    """

    __slots__ = ("block", "desc", "writer", "__weakref__")
    block: Block
    desc: Any                   # its VarDesc
    writer: Operator | None     # the op that last wrote it, while building

    def __init__(self, block: Block, desc: Any) -> None:
        self.block = block
        self.desc = desc
        self.writer = None

    # -- what the VarDesc holds ---------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.desc.name

    @property
    def type(self) -> int:
        return self.desc.type.type

    @property
    def shape(self) -> tuple[int, ...] | None:
        tensor = _tensor_desc(self.desc)
        return None if tensor is None else tuple(tensor.dims)

    @shape.setter
    def shape(self, shape: Iterable[Any]) -> None:
        tensor = self._tensor_or_fail()
        del tensor.dims[:]
        tensor.dims.extend(whole_dims(shape, f"variable '{self.name}'"))
        self.block.program.bump_version()

    @property
    def dtype(self) -> numpy.dtype[Any] | None:
        tensor = _tensor_desc(self.desc)
        if tensor is None:
            return None
        if not tensor.HasField("data_type"):
            raise ProtoDecodeError(f"variable '{self.name}': its TensorDesc has no data_type that "
                                   "paddle_nb knows (a newer PaddlePaddle dtype?)")
        return from_var_type(tensor.data_type)

    @dtype.setter
    def dtype(self, dtype: Any) -> None:
        self._tensor_or_fail().data_type = to_var_type(dtype)
        self.block.program.bump_version()

    def dtype_or_none(self) -> numpy.dtype[Any] | None:
        """The dtype, or None where paddle_nb knows none: a variable that is not a tensor, a
        TensorDesc without a data_type, or a VarType with no NumPy form (BF16, a newer
        PaddlePaddle's). For code that describes a variable (a message, a picture) and must
        not fail on a desc it cannot read; ``dtype`` itself raises a clear error for those."""
        tensor = _tensor_desc(self.desc)
        if tensor is None or not tensor.HasField("data_type"):
            return None
        return known_var_type(tensor.data_type)

    @property
    def lod_level(self) -> int:
        kind = self.desc.type.type
        if kind == VarType.LOD_TENSOR:
            return self.desc.type.lod_tensor.lod_level
        if kind == VarType.LOD_TENSOR_ARRAY:
            return self.desc.type.tensor_array.lod_level
        return 0

    @lod_level.setter
    def lod_level(self, level: int) -> None:
        if self.desc.type.type == VarType.LOD_TENSOR:
            self.desc.type.lod_tensor.lod_level = int(level)
        elif self.desc.type.type == VarType.LOD_TENSOR_ARRAY:
            self.desc.type.tensor_array.lod_level = int(level)

    @property
    def persistable(self) -> bool:
        return self.desc.persistable

    @persistable.setter
    def persistable(self, value: bool) -> None:
        self.desc.persistable = bool(value)
        self.block.program.bump_version()

    @property
    def stop_gradient(self) -> bool:
        return self.desc.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        self.desc.stop_gradient = bool(value)

    @property
    def is_parameter(self) -> bool:
        return self.desc.is_parameter

    def is_tensor(self) -> bool:
        return self.desc.type.type in _TENSOR_KINDS

    def meta(self) -> Meta:
        """(shape, dtype, lod_level) for shape inference."""
        kind = self.desc.type.type
        if kind == VarType.LOD_TENSOR:          # the usual case, read in one go
            lod_tensor = self.desc.type.lod_tensor
            tensor = lod_tensor.tensor
            if tensor.HasField("data_type"):
                return Meta(tuple(tensor.dims), from_var_type(tensor.data_type),
                            lod_tensor.lod_level)
        return Meta(self.shape, self.dtype, self.lod_level)

    def _tensor_or_fail(self) -> Any:
        tensor = _tensor_desc(self.desc)
        if tensor is None:
            raise TypeError(f"variable '{self.name}' is a {VarType.Type.Name(self.type)}, "
                            "not a tensor: it has no shape or dtype")
        return tensor

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = TENSOR_METHODS.get(name)
        if method is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        return functools.partial(method, self)

    # indexing is the tensor layer's too (slice, strided_slice, gather, set_value)
    def __getitem__(self, index: Any) -> Any:
        return _tensor_method(self, "__getitem__")(index)

    def __setitem__(self, index: Any, value: Any) -> None:
        _tensor_method(self, "__setitem__")(index, value)

    # (else Python would iterate by indexing 0, 1, 2, ... forever)
    def __iter__(self) -> NoReturn:
        raise TypeError(f"variable '{self.name}' is a static Variable: it has no values to "
                        "iterate over while the program is built; index it (x[0]) or split it "
                        "(paddle.unbind)")

    # -- arithmetic appends ops (framework/operators.py says which) -----------------------
    def __add__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_add")

    def __radd__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_add")

    def __sub__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_sub")

    def __rsub__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_sub")

    def __mul__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_mul")

    def __rmul__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_mul")

    def __truediv__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_div")

    def __rtruediv__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_div")

    def __floordiv__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_floordiv")

    def __rfloordiv__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_floordiv")

    def __mod__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_mod")

    def __rmod__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_mod")

    def __pow__(self, other: Any) -> Any:
        return operators.binary(self, other, "elementwise_pow")

    def __rpow__(self, other: Any) -> Any:
        return operators.reflected(self, other, "elementwise_pow")

    def __matmul__(self, other: Any) -> Any:
        return operators.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return operators.matmul(self, other, reverse=True)

    def __neg__(self) -> Tensor:
        return as_tensor(operators.negate(self))

    def __abs__(self) -> Tensor:
        return as_tensor(operators.absolute(self))

    # comparisons append ops too (as in PaddlePaddle): compare Variables by identity
    # (``is``) or by name, never with ``==`` or ``in`` a list, inside paddle_nb
    def __eq__(self, other: object) -> Any:
        return operators.binary(self, other, "equal", {"force_cpu": False})

    def __ne__(self, other: object) -> Any:
        return operators.binary(self, other, "not_equal", {"force_cpu": False})

    def __lt__(self, other: Any) -> Any:
        return operators.binary(self, other, "less_than", {"force_cpu": False})

    def __le__(self, other: Any) -> Any:
        return operators.binary(self, other, "less_equal", {"force_cpu": False})

    def __gt__(self, other: Any) -> Any:
        return operators.binary(self, other, "greater_than", {"force_cpu": False})

    def __ge__(self, other: Any) -> Any:
        return operators.binary(self, other, "greater_equal", {"force_cpu": False})

    def __and__(self, other: Any) -> Any:
        return operators.bitwise(self, other, "bitwise_and")

    def __or__(self, other: Any) -> Any:
        return operators.bitwise(self, other, "bitwise_or")

    def __xor__(self, other: Any) -> Any:
        return operators.bitwise(self, other, "bitwise_xor")

    def __invert__(self) -> Tensor:
        return as_tensor(operators.bitwise_not(self))

    __hash__ = object.__hash__
    # NumPy must not broadcast a Variable as an object scalar (one op per element):
    # ``array + var`` then comes to ``var.__radd__``, which refuses it clearly
    __array_ufunc__ = None

    def __repr__(self) -> str:
        kind = self.desc.type.type
        if kind not in _TENSOR_KINDS:
            return f"{type(self).__name__}({self.name}: {VarType.Type.Name(kind)})"
        flags = [f for f, on in (("persistable", self.persistable and not self.is_parameter),)
                 if on]
        extra = f", {', '.join(flags)}" if flags else ""
        lod = f", lod_level={self.lod_level}" if self.lod_level else ""
        return f"{type(self).__name__}({self.name}: {_type_str(self)}{lod}{extra})"


def tensor_shape(var: Variable) -> tuple[int, ...]:
    """``var.shape`` of a variable the caller needs to be a tensor; a VariableTypeError
    naming it for any other kind (a LoDTensorArray, step scopes, a reader), whose shape is
    None."""
    shape = var.shape
    if shape is None:
        raise VariableTypeError(f"variable '{var.name}' is a {_kind_name(var)}, not a tensor: "
                                "it has no shape")
    return shape


def tensor_dtype(var: Variable) -> numpy.dtype[Any]:
    """``var.dtype`` of a variable the caller needs to be a tensor; a VariableTypeError
    naming it for any other kind, whose dtype is None."""
    dtype = var.dtype
    if dtype is None:
        raise VariableTypeError(f"variable '{var.name}' is a {_kind_name(var)}, not a tensor: "
                                "it has no dtype")
    return dtype


def as_tensor(var: Variable) -> Tensor:
    """``var``, an output the caller's op declared as a tensor, typed as a Tensor (for type
    checkers: nothing is checked or changed at run time, where Tensor is Variable)."""
    return cast("Tensor", var)


def _kind_name(var: Variable) -> str:
    return str(framework_pb2.VarType.Type.Name(var.desc.type.type))


def _tensor_method(var: Variable, name: str) -> Callable[..., Any]:
    method = TENSOR_METHODS.get(name)
    if method is None:
        raise TypeError(f"variable '{var.name}': {name} needs paddle_nb.tensor, which registers "
                        "it (import paddle_nb)")
    return functools.partial(method, var)


def _type_str(var: Variable) -> str:
    known = var.dtype_or_none()
    dtype = known.name if known is not None else "?"
    shape = var.shape
    return f"{dtype}[{', '.join(str(d) for d in shape)}]" if shape is not None else dtype


if TYPE_CHECKING:
    class Tensor(Variable):
        """What PaddlePaddle's API calls a Tensor: a Variable that holds a tensor (a LoD
        tensor, a tensor array's elements, selected rows), so its shape and dtype exist.
        This class is for type checkers only; at run time ``Tensor`` is ``Variable``
        (``paddle.Tensor``), and the tensor functions take and give Tensors."""

        @property
        def shape(self) -> tuple[int, ...]: ...

        @shape.setter
        def shape(self, shape: Iterable[Any]) -> None: ...

        @property
        def dtype(self) -> numpy.dtype[Any]: ...

        @dtype.setter
        def dtype(self, dtype: Any) -> None: ...
else:
    Tensor = Variable


class Parameter(Tensor):
    """A persistable, trainable Variable of the global block, with its initializer.

    ``trainable``, ``optimize_attr`` (for example ``{"learning_rate": 0.5}``,
    which scales the optimizer's learning rate for this parameter) and
    ``initializer`` are construction-time information, kept on the Python
    object as "Design Doc: Python API" says; the VarDesc records ``is_parameter``. ``need_clip``
    (PaddlePaddle 2.x's ``ParamAttr(need_clip=...)``) says whether gradient clipping
    applies to this parameter's gradient.
    """

    __slots__ = ("trainable", "optimize_attr", "initializer", "regularizer", "need_clip")
    trainable: bool
    optimize_attr: dict[str, Any]
    initializer: Initializer | None
    regularizer: Any
    need_clip: bool

    def __init__(self, block: Block, desc: Any, trainable: bool = True,
                 optimize_attr: dict[str, Any] | None = None,
                 initializer: Initializer | None = None, regularizer: Any = None,
                 need_clip: bool = True) -> None:
        super().__init__(block, desc)
        self.trainable = trainable
        self.optimize_attr = dict(optimize_attr or {"learning_rate": 1.0})
        self.initializer = initializer
        self.regularizer = regularizer
        self.need_clip = need_clip
