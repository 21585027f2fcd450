"""``paddle.static``'s program vocabulary: data, program_guard, InputSpec, global variables.

These are PaddlePaddle 2.x's names over paddle_nb's Program machinery. Two differ from the
Fluid-1.8 forms in ``pd.layers`` / ``pd.program_guard``, as they differ in PaddlePaddle:
``data`` takes the whole shape (no batch dimension added; None or -1 for an unknown one), and
``program_guard(main)`` without a startup program sends the initializers to the *default*
startup program, where ``pd.program_guard(main)`` puts them in main's preamble.

>>> import paddle_nb as pd
>>> from paddle_nb import static
>>> with static.program_guard(pd.Program(), pd.Program()):
...     static.data("x", [None, 3])
Variable(x: float32[-1, 3])
"""

from __future__ import annotations

import contextlib

from paddle_nb.core.dtypes import convert_dtype, dtype_name
from paddle_nb.core.place import CPUPlace, GPUPlace, gpu_available
from paddle_nb.errors import PlaceUnavailableError
from paddle_nb.framework import context, unique_name
from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.variable import Variable, as_tensor, whole_dims
from paddle_nb.layers import io as layers_io
from paddle_nb.layers.helper import layer_helper
from paddle_nb.ops.py_func import register_callable
from paddle_nb.static.mode import SETTINGS
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    import numpy

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["data", "program_guard", "InputSpec", "name_scope", "device_guard", "cpu_places",
           "cuda_places", "create_global_var", "accuracy", "py_func", "Print", "auc"]


def data(name: str, shape: Sequence[int | None], dtype: DTypeLike | None = None, lod_level: int = 0
        ) -> Tensor:
    """A variable fed at run time, of exactly ``shape`` (None or -1: unknown; no batch
    dimension is added). ``dtype`` defaults to the default dtype (float32). As in PaddlePaddle
    2.6 it is a plain variable of the global block with ``stop_gradient=True``; no feed op is
    written (the Executor feeds it by name)."""
    dims = whole_dims([-1 if d is None else d for d in shape], f"paddle.static.data '{name}'")
    return layers_io.data(name, dims, dtype=dtype or SETTINGS.default_dtype,
                          lod_level=lod_level, append_batch_size=False, stop_gradient=True)


@contextlib.contextmanager
def program_guard(main_program: Any, startup_program: Any = None) -> Iterator[Any]:
    """Build into ``main_program``; parameters' initializers go to ``startup_program``, or
    (None) to the default startup program, as PaddlePaddle 2.x's ``program_guard`` does."""
    startup = context.default_startup_program() if startup_program is None else startup_program
    with context.program_guard(main_program, startup) as main:
        yield main


class InputSpec:
    """The shape, dtype and name of a model input (``paddle.static.InputSpec``).

    >>> InputSpec([None, 784], "float32", "x")
    InputSpec(shape=(-1, 784), dtype=float32, name=x, stop_gradient=False)
    """

    def __init__(self, shape: Sequence[int | None], dtype: DTypeLike = "float32",
                 name: str | None = None, stop_gradient: bool = False) -> None:
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor: Tensor, name: str | None = None) -> InputSpec:
        """The spec of a Variable (its shape, dtype, and name unless ``name`` is given)."""
        if not isinstance(tensor, Variable):
            raise TypeError(f"InputSpec.from_tensor: expected a Variable, got {tensor!r}")
        return cls(tensor.shape, tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray: numpy.ndarray, name: str | None = None) -> InputSpec:
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size: int) -> InputSpec:
        """The spec with ``batch_size`` put in front of the shape."""
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name, self.stop_gradient)

    def unbatch(self) -> InputSpec:
        return InputSpec(self.shape[1:], self.dtype, self.name, self.stop_gradient)

    def data(self) -> Tensor:
        """``paddle.static.data`` of this spec (its name is required)."""
        if self.name is None:
            raise ValueError("InputSpec.data: the spec needs a name")
        return data(self.name, self.shape, self.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputSpec) and (self.shape, self.dtype, self.name) == \
            (other.shape, other.dtype, other.name)

    def __repr__(self) -> str:
        return (f"InputSpec(shape={self.shape}, dtype={dtype_name(self.dtype)}, "
                f"name={self.name}, stop_gradient={self.stop_gradient})")


@contextlib.contextmanager
def name_scope(prefix: str | None = None) -> Iterator[Any]:
    """Accepted and ignored: PaddlePaddle uses it to group ops in its graph viewer
    (``op_namescope``); paddle_nb's viewers group by block instead, so nothing is recorded."""
    yield


@contextlib.contextmanager
def device_guard(device: Any = None) -> Iterator[Any]:
    """Accepted and ignored: paddle_nb runs a whole program on the Executor's place, so a
    per-op device (``op_device``) is not recorded."""
    if device is not None and str(device).split(":")[0] not in ("cpu", "gpu"):
        raise ValueError(f"device_guard: expected 'cpu', 'gpu' or 'gpu:N', got {device!r}")
    yield


def cpu_places(device_count: int | None = None) -> list[CPUPlace]:
    """``device_count`` CPUPlaces (1 by default: paddle_nb runs a program on one place)."""
    return [CPUPlace() for _ in range(device_count or 1)]


def cuda_places(device_ids: Any = None) -> Any:
    """GPUPlaces for ``device_ids`` (default: device 0). Without a GPU (CuPy and a CUDA
    device) it refuses, as PaddlePaddle 2.6 built without CUDA does."""
    if not gpu_available():
        raise PlaceUnavailableError("cuda_places: not compiled with CUDA (paddle_nb needs CuPy "
                                    "and a CUDA device for GPUPlaces); use cpu_places()")
    ids = [0] if device_ids is None else list(device_ids)
    return [GPUPlace(i) for i in ids]


def create_global_var(shape: Sequence[int], value: float, dtype: DTypeLike,
                      persistable: bool = False, force_cpu: bool = False, name: str | None = None
                     ) -> Tensor:
    """A global-block variable filled with ``value`` by a ``fill_constant`` in the startup
    program (named ``_generated_var_N`` unless ``name`` is given), as PaddlePaddle's."""
    name = name or unique_name.generate("_generated_var")
    dims = whole_dims(shape, f"create_global_var '{name}'")
    main = context.default_main_program()
    var = main.global_block().create_var(name=name, shape=dims, dtype=convert_dtype(dtype),
                                         persistable=persistable, stop_gradient=True)
    startup = context.default_startup_program()
    held = startup.global_block().create_var(name=name, shape=dims, dtype=convert_dtype(dtype),
                                             persistable=True, stop_gradient=True)
    block = startup.global_block()
    Constant(float(value)).append_to(block, held, len(block.ops))
    return as_tensor(var)


def accuracy(input: Tensor, label: Tensor, k: int = 1, correct: Any = None, total: Any = None,
             name: str | None = None) -> Tensor:
    """The fraction of rows whose label is among the ``k`` largest of ``input``: ``top_k_v2``
    then ``accuracy``, names ``accuracy_N.tmp_M`` (PaddlePaddle 2.x's ``static.accuracy``)."""
    helper = layer_helper("accuracy", name)
    values, indices = helper.tmp_name(), helper.tmp_name()
    helper.append("top_k_v2", {"X": input}, {"Out": values, "Indices": indices},
                  {"k": k, "axis": -1, "largest": True, "sorted": False})
    acc = helper.tmp_name()
    helper.append("accuracy", {"Out": values, "Indices": indices, "Label": label},
                  {"Accuracy": acc, "Correct": correct or helper.tmp_name(),
                   "Total": total or helper.tmp_name()})
    return as_tensor(helper.block.var(acc))


def auc(input: Tensor, label: Tensor, curve: str = "ROC", num_thresholds: int = 4095, topk: int = 1,
        slide_steps: int = 1, ins_tag_weight: Any = None
        ) -> tuple[Tensor, Tensor, list[Tensor]]:
    """``(auc, batch_auc, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])``: the ROC
    AUC over every batch so far and over the last ``slide_steps`` batches, from four
    persistable count variables (zeros from the startup program), as PaddlePaddle 2.6
    builds it: two ``auc`` ops, the windowed one first."""
    helper = layer_helper("auc")
    if ins_tag_weight is None:
        # 2.6 makes a [1, 1] weight of 1.0 here and leaves it unused (a batch counts)
        unique_name.generate("fill_constant")
        layer_helper("fill_constant").out("fill_constant", {}, {
            "shape": [1, 1], "dtype": "float32", "value": 1.0, "str_value": "1.0"})
    auc_out, batch_auc_out = helper.tmp_name(), helper.tmp_name()
    window = [(1 + slide_steps) * (num_thresholds + 1) + 1]
    stats = [create_global_var(shape, 0, "int64", persistable=True)
             for shape in (window, window, [1, num_thresholds + 1], [1, num_thresholds + 1])]
    weight = {} if ins_tag_weight is None else {"InsTagWeight": ins_tag_weight}
    for out, (pos, neg), steps in ((batch_auc_out, stats[:2], slide_steps),
                                   (auc_out, stats[2:], 0)):
        helper.append("auc", {"Predict": input, "Label": label, "StatPos": pos,
                              "StatNeg": neg, **weight},
                      {"AUC": out, "StatPosOut": pos, "StatNegOut": neg},
                      {"curve": curve, "num_thresholds": num_thresholds, "slide_steps": steps})
    return as_tensor(helper.block.var(auc_out)), as_tensor(helper.block.var(batch_auc_out)), stats


def Print(input: Tensor, first_n: int = -1, message: str | None = None,  # noqa: N802
          summarize: int = 20, print_tensor_name: bool = True, print_tensor_type: bool = True,
          print_tensor_shape: bool = True, print_tensor_lod: bool = True,
          print_phase: str = "both") -> Tensor:
    """``input`` passed on unchanged by a ``print`` op that shows it on each run (and its
    gradient in the backward pass, by ``print_phase``); returns ``print_N.tmp_0``."""
    helper = layer_helper("print")
    return helper.out("print", {"In": input}, {
        "first_n": first_n, "message": message or "", "summarize": summarize,
        "print_tensor_name": print_tensor_name, "print_tensor_type": print_tensor_type,
        "print_tensor_shape": print_tensor_shape, "print_tensor_lod": print_tensor_lod,
        "print_phase": print_phase.upper()})


def py_func(func: Callable[..., Any], x: Tensor, out: Tensor,
            backward_func: Callable[..., Any] | None = None, skip_vars_in_backward_input: Any = None
           ) -> Tensor:
    """An op that calls ``func`` (NumPy arrays in, arrays out) when the program runs, writing
    ``out`` (Variables the caller declared, with the dtype and shape ``func`` returns); with
    ``backward_func``, its gradient calls that with the inputs (but those in
    ``skip_vars_in_backward_input``), the outputs and the outputs' gradients. As in
    PaddlePaddle, the functions live in this process: such a program runs only here."""
    xs = [] if x is None else list(x) if isinstance(x, (list, tuple)) else [x]
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    skip = skip_vars_in_backward_input or []
    skip = [v if isinstance(v, str) else v.name for v in
            (skip if isinstance(skip, (list, tuple)) else [skip])]
    block = context.default_main_program().current_block()
    block.append_op("py_func", inputs={"X": xs}, outputs={"Out": outs},
                    attrs={"forward_callable_id": register_callable(func),
                           "backward_callable_id": register_callable(backward_func)
                           if backward_func is not None else -1,
                           "backward_skip_vars": skip})
    return out


