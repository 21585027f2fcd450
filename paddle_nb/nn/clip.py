"""Gradient clipping (``paddle.nn.ClipGradBy*``): ops between the backward pass and the updates.

An optimizer given ``grad_clip=`` calls it on its name-sorted ``(param, grad)``
pairs before weight decay and the updates; the clip appends ops (with the
optimize role) and returns the pairs the updates should read:

- ``ClipGradByValue(max, min)``: a ``clip`` per gradient, into a new variable;
- ``ClipGradByNorm(clip_norm)``: a ``clip_by_norm`` per gradient (each scaled to
  ``clip_norm`` when its own L2 norm is larger), into a new variable;
- ``ClipGradByGlobalNorm(clip_norm)``: all gradients scaled together by
  ``clip_norm / max(global_norm, clip_norm)``, where the global norm is the root
  of the summed ``squared_l2_norm`` of every gradient; each gradient is multiplied
  in place (``elementwise_mul`` writes ``w@GRAD`` itself), as PaddlePaddle 2.6 writes it.

A parameter made with ``ParamAttr(need_clip=False)`` keeps its gradient as it is.
Temporaries are named as PaddlePaddle names them (``squared_l2_norm_0.tmp_0``,
``sqrt_0.tmp_0``, ``clip_by_norm_0.tmp_0``), from the 2.x process-wide generator.
"""

from __future__ import annotations

import numbers

from paddle_nb.framework import unique_name
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]


def _needs_clip(param: Tensor, grad: Tensor) -> bool:
    return grad is not None and getattr(param, "need_clip", True)


def _temp(block: Any, prefix: str, like: Tensor, shape: Any = None, suffix: str = ".tmp_0"
         ) -> Tensor:
    """A new temporary of ``block`` named ``{prefix}_N{suffix}``, shaped like ``like``."""
    return block.create_var(name=unique_name.generate(prefix) + suffix,
                            shape=like.shape if shape is None else shape, dtype=like.dtype)


def _positive(value: float, label: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not float(value) > 0:
        raise ValueError(f"{label} must be a positive number, got {value!r}")
    return float(value)


class ClipGradBase:
    """A callable on ``[(param, grad)]`` returning the pairs with clipped gradients."""

    def __call__(self, params_grads: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        params_grads = list(params_grads)
        if not any(_needs_clip(p, g) for p, g in params_grads):
            return params_grads
        return self.append_clip_ops(params_grads)

    def append_clip_ops(self, params_grads: Any) -> Any:
        raise NotImplementedError


class ClipGradByValue(ClipGradBase):
    """Each gradient element clipped to ``[min, max]`` (``min`` defaults to ``-max``).

    >>> ClipGradByValue(1.0)
    ClipGradByValue(max=1.0, min=-1.0)
    """

    def __init__(self, max: float, min: Any = None) -> None:
        if not isinstance(max, numbers.Real):
            raise TypeError(f"ClipGradByValue: max must be a number, got {max!r}")
        low = -float(max) if min is None else float(min)
        if not low <= float(max):
            raise ValueError(f"ClipGradByValue: expected min <= max, got min {low}, max {max}")
        self.max: float = float(max)
        self.min: float = low

    def append_clip_ops(self, params_grads: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        out = []
        for param, grad in params_grads:
            if not _needs_clip(param, grad):
                out.append((param, grad))
                continue
            clipped = _temp(grad.block, "clip", grad)
            grad.block.append_op("clip", inputs={"X": grad}, outputs={"Out": clipped},
                                 attrs={"min": self.min, "max": self.max})
            out.append((param, clipped))
        return out

    def __repr__(self) -> str:
        return f"ClipGradByValue(max={self.max}, min={self.min})"


class ClipGradByNorm(ClipGradBase):
    """Each gradient scaled down to L2 norm ``clip_norm`` when its own norm is larger."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = _positive(clip_norm, "ClipGradByNorm: clip_norm")

    def append_clip_ops(self, params_grads: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        out = []
        for param, grad in params_grads:
            if not _needs_clip(param, grad):
                out.append((param, grad))
                continue
            clipped = _temp(grad.block, "clip_by_norm", grad)
            grad.block.append_op("clip_by_norm", inputs={"X": grad}, outputs={"Out": clipped},
                                 attrs={"max_norm": self.clip_norm})
            out.append((param, clipped))
        return out

    def __repr__(self) -> Any:
        return f"ClipGradByNorm(clip_norm={self.clip_norm})"


class ClipGradByGlobalNorm(ClipGradBase):
    """All gradients scaled by ``clip_norm / max(global_norm, clip_norm)``, where
    ``global_norm = sqrt(sum of every gradient's squared L2 norm)``."""

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False) -> None:
        if not isinstance(group_name, str):
            raise TypeError(f"ClipGradByGlobalNorm: group_name must be a str, got "
                            f"{group_name!r}")
        self.clip_norm = _positive(clip_norm, "ClipGradByGlobalNorm: clip_norm")
        self.group_name = group_name
        self.auto_skip_clip = bool(auto_skip_clip)

    def append_clip_ops(self, params_grads: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        grads = [g for p, g in params_grads if _needs_clip(p, g)]
        block = grads[0].block
        squares = []
        for grad in grads:
            square = _temp(block, "squared_l2_norm", grad, shape=(1,))
            block.append_op("squared_l2_norm", inputs={"X": grad}, outputs={"Out": square})
            squares.append(square)
        total = _temp(block, "add_n", squares[0])      # (a sum even of one, as 2.6 writes)
        block.append_op("sum", inputs={"X": squares}, outputs={"Out": total})
        norm = _temp(block, "sqrt", total)
        block.append_op("sqrt", inputs={"X": total}, outputs={"Out": norm})
        limit = _temp(block, "fill_constant", norm)
        block.append_op("fill_constant", outputs={"Out": limit},
                        attrs={"shape": [1], "value": self.clip_norm, "dtype": norm.dtype,
                               "str_value": str(self.clip_norm)})
        larger = _temp(block, "elementwise_max", norm, suffix="")
        block.append_op("elementwise_max", inputs={"X": limit, "Y": norm},
                        outputs={"Out": larger})
        scale = _temp(block, "elementwise_div", norm, suffix="")
        block.append_op("elementwise_div", inputs={"X": limit, "Y": larger},
                        outputs={"Out": scale})
        for grad in grads:          # in place: the updates read w@GRAD itself
            block.append_op("elementwise_mul", inputs={"X": grad, "Y": scale},
                            outputs={"Out": grad})
        return params_grads

    def __repr__(self) -> Any:
        return f"ClipGradByGlobalNorm(clip_norm={self.clip_norm}, group_name={self.group_name!r})"
