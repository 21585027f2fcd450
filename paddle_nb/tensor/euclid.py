"""``paddle.gcd`` and ``paddle.lcm``: greatest common divisor and least common multiple of
integer tensors, elementwise, by Euclid's algorithm in a ``while`` loop, as PaddlePaddle 2.6
builds them.

``gcd`` broadcasts both to one shape (``expand_v2``), takes absolute values and loops
``while any(y != 0)``: where y is nonzero, (x, y) becomes (y, x mod y), then each pair is
ordered so that x >= y. ``lcm`` is ``|x * y| // gcd`` (0 where the gcd is 0); ``lcm_``
computes the same with 2.6's own op order for it (in a static program it does not work in
place either).

>>> import paddle_nb as paddle
>>> main = paddle.Program()
>>> with paddle.program_guard(main, paddle.Program()):
...     g = paddle.gcd(paddle.static.data("a", [3], "int64"), paddle.static.data("b", [3], "int64"))
>>> [op.type for op in main.global_block().ops][-1]
'while'
"""

from __future__ import annotations

from paddle_nb.errors import ShapeError
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.layers.control_flow import While
from paddle_nb.tensor import creation, logic, manipulation, manipulation_more, reduction, search
from paddle_nb.tensor import math as tmath
from paddle_nb.tensor.building import expect_variable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["gcd", "lcm", "lcm_"]


def _integers(function: str, x: Tensor, y: Tensor) -> None:
    for value, what in ((x, "x"), (y, "y")):
        expect_variable(value, what, function)
        if value.dtype.name not in ("int32", "int64"):
            raise ShapeError(f"paddle.{function}: '{what}' must be an int32 or int64 tensor, "
                             f"got {value.dtype}\n  built at "
                             f"{format_site(callstack_strings())}")


def _euclid_step(x: Tensor, y: Tensor) -> Any:
    nonzero = y != 0
    y_safe = search.where(nonzero, y, creation.ones(y.shape, y.dtype))
    x, y = (search.where(nonzero, y, x),
            search.where(nonzero, tmath.mod(x, y_safe), creation.zeros(y.shape, y.dtype)))
    return search.where(x < y, y, x), search.where(x < y, x, y)


def gcd(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The greatest common divisor of |x| and |y|, elementwise (0 where both are 0)."""
    _integers("gcd", x, y)
    shape = manipulation_more.broadcast_shape(x.shape, y.shape)
    x, y = manipulation.broadcast_to(x, shape), manipulation.broadcast_to(y, shape)
    x, y = tmath.abs(x), tmath.abs(y)
    return _while_any_nonzero(x, y)


def _while_any_nonzero(x: Tensor, y: Tensor) -> Tensor:
    """One ``while`` op running Euclid's step on (x, y) while any y is nonzero; x at the end
    (paddle.static.nn.while_loop's shape: the condition, then the body, its new values and
    condition assigned back)."""
    condition = reduction.any(y != 0)
    loop = While(condition)
    with loop.block() as body:
        new_x, new_y = _euclid_step(x, y)
        again = reduction.any(new_y != 0)
        for new, old in ((new_x, x), (new_y, y), (again, condition)):
            body.append_op("assign", {"X": new}, {"Out": old})
    return x


def lcm(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The least common multiple of |x| and |y|, elementwise (0 where either is 0)."""
    _integers("lcm", x, y)
    d = gcd(x, y)
    is_zero = logic.equal(d, 0)
    d_safe = search.where(is_zero, creation.ones(d.shape, d.dtype), d)
    return search.where(is_zero, creation.zeros(d.shape, d.dtype), tmath.abs(x * y) // d_safe)


def lcm_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """``paddle.lcm``, with the ops in the order 2.6's ``lcm_`` appends them."""
    _integers("lcm_", x, y)
    d = gcd(x, y)
    nonzero = d != 0
    d_safe = search.where(nonzero, d, creation.ones(d.shape, d.dtype))
    multiple = tmath.abs(x * y) // d_safe
    return search.where(nonzero, multiple, creation.zeros(d.shape, d.dtype))
