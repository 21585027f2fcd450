"""``paddle.set_grad_enabled``, ``paddle.enable_grad``, ``paddle.is_grad_enabled``,
``paddle.Tensor`` and ``paddle.check_shape``, as PaddlePaddle 2.6 has them in static mode.

Whether gradients are recorded is a dynamic-mode setting (the eager tracer's): in a static
program gradients come only from the grad ops ``append_backward`` adds, so, as in 2.6,
``set_grad_enabled(mode)`` and ``enable_grad()`` are context managers (and decorators) that
change nothing and ``is_grad_enabled()`` is False (2.6 has no tracer in static mode), like
``paddle.no_grad``. ``paddle.Tensor`` is the Variable class here (2.6's eager Tensor class
has no static counterpart; a static script uses it in ``isinstance`` checks).

>>> with set_grad_enabled(False):
...     is_grad_enabled()
False
"""

from __future__ import annotations

import contextlib

from paddle_nb.errors import OperandError
from paddle_nb.framework.variable import Tensor, Variable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["set_grad_enabled", "enable_grad", "is_grad_enabled", "Tensor", "check_shape"]


class set_grad_enabled(contextlib.ContextDecorator):    # noqa: N801 (PaddlePaddle's name)
    """``with paddle.set_grad_enabled(mode):``: no effect on a static program."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> Any:
        return False


class enable_grad(set_grad_enabled):    # noqa: N801 (PaddlePaddle's name)
    """``with paddle.enable_grad():``: no effect on a static program."""

    def __init__(self) -> None:
        super().__init__(True)


def is_grad_enabled() -> Any:
    """False: a static program records no gradients as it runs (PaddlePaddle 2.6 too)."""
    return False


def check_shape(shape: Any, op_name: Any, expected_shape_type: Any = (list, tuple, Variable),
                expected_element_type: Any = (int, Variable),
                expected_tensor_dtype: Sequence[str] = ("int32", "int64")) -> None:
    """Raise a clear error unless ``shape`` is a shape ``op_name`` accepts: a list or tuple of
    ints or int tensors, or an int tensor (PaddlePaddle's types and dtypes by default)."""
    def refuse(what: str, got: Any, expected: Any) -> None:
        raise OperandError(f"{op_name}: {what} must be {expected}, got {got!r}")

    if not isinstance(shape, expected_shape_type):
        refuse("'shape'", shape, f"one of {[t.__name__ for t in expected_shape_type]}")
    if isinstance(shape, Variable):
        if expected_tensor_dtype is not None and str(shape.dtype) not in expected_tensor_dtype:
            refuse("the shape tensor's dtype", str(shape.dtype),
                   f"one of {list(expected_tensor_dtype)}")
        return
    for item in shape if expected_element_type is not None else ():
        if not isinstance(item, expected_element_type) or isinstance(item, bool):
            refuse("each element of 'shape'", item,
                   f"one of {[t.__name__ for t in expected_element_type]}")
        if isinstance(item, Variable) and expected_tensor_dtype is not None \
                and str(item.dtype) not in expected_tensor_dtype:
            refuse("a shape element tensor's dtype", str(item.dtype),
                   f"one of {list(expected_tensor_dtype)}")
