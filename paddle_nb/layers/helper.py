"""LayerHelper: the few things every layer does, in one place.

A layer names itself once (``fc_0``), names its temporaries after itself
(``fc_0.tmp_0``, ``fc_0.tmp_1``) and its parameters too (``fc_0.w_0``,
``fc_0.b_0``), appends ops to the current block, and adds an activation.
``ParamAttr`` says how a parameter is made: its name, initializer,
learning-rate scale, regularizer, whether it is trainable and whether
gradient clipping applies to it.

Both APIs build through this one helper. The Fluid-1.8 layers (``pd.layers``)
count names per program; the 2.x API (``paddle_nb.nn``, the tensor functions)
asks :func:`layer_helper`, whose names come from PaddlePaddle 2.x's process-wide
generator (``paddle_nb.framework.unique_name``), so a 2.x script names its
parameters as PaddlePaddle does.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.framework import unique_name
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.initializer import Constant, Initializer, Xavier, global_initializer
from paddle_nb.framework.variable import as_tensor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.variable import Parameter, Tensor, Variable

__all__ = ["LayerHelper", "ParamAttr", "layer_helper"]


class ParamAttr:
    """How to make a parameter (PaddlePaddle's ``fluid.ParamAttr``)."""

    def __init__(self, name: str | None = None, initializer: Initializer | None = None,
                 learning_rate: float = 1.0, regularizer: Any = None, trainable: bool = True,
                 do_model_average: bool = True, need_clip: bool = True) -> None:
        if initializer is not None and not isinstance(initializer, Initializer):
            raise TypeError(f"ParamAttr: initializer must be a paddle_nb.initializer, got "
                            f"{initializer!r}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @staticmethod
    def of(attr: Any) -> "ParamAttr | None":
        """A ParamAttr from None, a name, an Initializer, a ParamAttr, or False (no parameter)."""
        if attr is False:
            return None
        if attr is None:
            return ParamAttr()
        if isinstance(attr, str):
            return ParamAttr(name=attr)
        if isinstance(attr, Initializer):
            return ParamAttr(initializer=attr)
        if isinstance(attr, ParamAttr):
            return attr
        raise TypeError(f"expected a ParamAttr, a name, an initializer or False, got {attr!r}")


class LayerHelper:
    """Names, parameters and ops for one call of a layer function.

    ``unique`` makes the layer's and its parameters' names (``prefix`` -> ``prefix_N``):
    the main program's counter by default (Fluid 1.8), ``unique_name.generate`` for 2.x.
    """

    def __init__(self, layer_type: str, name: str | None = None,
                 unique: Callable[..., Any] | None = None) -> None:
        self.program = default_main_program()
        self.unique = unique or self.program.unique_name
        self.name = name or self.unique(layer_type)
        self._tmps = 0

    @property
    def block(self) -> Block:
        return self.program.current_block()

    def tmp_name(self) -> str:
        name = f"{self.name}.tmp_{self._tmps}"
        self._tmps += 1
        return name

    def param(self, attr: ParamAttr | None, shape: Sequence[int], dtype: DTypeLike = "float32",
              is_bias: bool = False, default_initializer: Initializer | None = None
              ) -> Parameter:
        """A Parameter made as ``attr`` (a ParamAttr) says, in the global block: named
        ``<layer>.w_N`` (``.b_N`` for a bias) unless the attr names it; initialized by the
        attr's initializer, else the global one (``set_global_initializer``), else
        ``default_initializer``, else Xavier (zeros for a bias)."""
        attr = attr or ParamAttr()
        name = attr.name or self.unique(f"{self.name}.{'b' if is_bias else 'w'}")
        init = attr.initializer or global_initializer(is_bias) or default_initializer or \
            (Constant(0.0) if is_bias else Xavier())
        return self.block.create_parameter(
            name=name, shape=shape, dtype=dtype, initializer=init, trainable=attr.trainable,
            optimize_attr={"learning_rate": attr.learning_rate}, regularizer=attr.regularizer,
            need_clip=attr.need_clip)

    def append(self, op_type: str, inputs: Mapping[str, Any] | None = None,
               outputs: Mapping[str, Any] | None = None, attrs: Mapping[str, Any] | None = None
              ) -> Operator:
        return self.block.append_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs)

    def out(self, op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None,
            slot: str = "Out", extra_outputs: Mapping[str, Any] | None = None) -> Tensor:
        """Append ``op_type`` writing a new temporary in ``slot``; return the temporary."""
        name = self.tmp_name()
        outputs = {slot: name}
        outputs.update(extra_outputs or {})
        self.append(op_type, inputs, outputs, attrs)
        return as_tensor(self.block.var(name))

    def act(self, var: Variable, act: str | None) -> Tensor:
        """``var`` passed through activation ``act`` (a name such as "relu"), or as it is."""
        if act is None:
            return as_tensor(var)
        if not isinstance(act, str):
            raise TypeError(f"act must be an activation name such as 'relu', got {act!r}")
        return self.out(act, {"X": var})


def layer_helper(layer_type: str, name: str | None = None) -> LayerHelper:
    """The helper the 2.x API builds with: names from PaddlePaddle 2.x's process-wide
    generator, so ``F.relu(x)`` writes ``relu_0.tmp_0`` and ``nn.Linear`` ``linear_0.w_0``."""
    return LayerHelper(layer_type, name, unique=unique_name.generate)
