"""Top-level functions that append one op of their own: ``addmm``, ``renorm``,
``diagonal_scatter`` (``fill_diagonal_tensor``) and ``select_scatter`` (``set_value``).

Each appends what PaddlePaddle 2.6 appends, under the same names (``addmm_0.tmp_0``,
``fill_diagonal_tensor_0.tmp_0`` after a ``reshape2`` of a 2-D X's diagonal,
``select_scatter_0.tmp_0`` after a ``tmp_N`` cast of the values).

>>> import paddle_nb as paddle
>>> with paddle.program_guard(paddle.Program(), paddle.Program()):
...     x = paddle.static.data("x", [2, 3])
...     out = paddle.select_scatter(x, paddle.static.data("v", [2]), 1, 0)
>>> [op.type for op in out.block.ops], out.name
(['cast', 'set_value'], 'select_scatter_0.tmp_0')
"""

from __future__ import annotations

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor import manipulation
from paddle_nb.tensor.building import append_out, expect_variable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["addmm", "renorm", "diagonal_scatter", "select_scatter"]


def addmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,
          name: str | None = None) -> Tensor:
    """beta * input + alpha * (x @ y); ``input`` broadcasts to the product's shape."""
    for value, what in ((input, "input"), (x, "x"), (y, "y")):
        expect_variable(value, what, "addmm")
    return append_out("addmm", {"Input": input, "X": x, "Y": y},
                      {"Alpha": float(alpha), "Beta": float(beta)}, name=name)


def renorm(x: Tensor, p: float, axis: int, max_norm: float) -> Tensor:
    """``x`` with each slice along ``axis`` scaled down to p-norm ``max_norm`` where above it."""
    expect_variable(x, "x", "renorm")
    return append_out("renorm", {"X": x},
                      {"p": float(p), "axis": int(axis), "max_norm": float(max_norm)})


def diagonal_scatter(x: Tensor, y: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1,
                     name: str | None = None) -> Tensor:
    """``x`` with its diagonal (``offset``, in the plane of ``axis1`` and ``axis2``) set to
    ``y`` (shaped as ``paddle.diagonal`` gives that diagonal)."""
    expect_variable(x, "x", "diagonal_scatter")
    expect_variable(y, "y", "diagonal_scatter")
    if len(x.shape) == 2:           # as in 2.6: a 2-D x takes its diagonal as [1, L]
        y = manipulation.reshape(y, [1, -1])
    return append_out("fill_diagonal_tensor", {"X": x, "Y": y},
                      {"offset": int(offset), "dim1": int(axis1), "dim2": int(axis2)},
                      name=name)


def select_scatter(x: Tensor, values: Tensor, axis: int, index: int, name: str | None = None
                  ) -> Tensor:
    """``x`` with its slice at ``index`` along ``axis`` replaced by ``values`` (the slice's
    shape, without ``axis``)."""
    expect_variable(x, "x", "select_scatter")
    expect_variable(values, "values", "select_scatter")
    axis = axis % len(x.shape)
    index = index % x.shape[axis] if x.shape[axis] > 0 else index
    values = manipulation.astype(values, x.dtype)
    attrs = {"axes": [axis], "starts": [index], "ends": [index + 1], "steps": [1],
             "decrease_axes": [axis], "none_axes": [], "dtype": x.dtype, "values": [],
             "shape": []}
    return append_out("set_value", {"Input": x, "ValueTensor": values}, attrs,
                      helper="select_scatter", name=name)


register_tensor_methods({"addmm": addmm, "renorm": renorm})
