"""LayerHelper: the few things every layer does, in one place.

A layer names itself once (``fc_0``), names its temporaries after itself
(``fc_0.tmp_0``, ``fc_0.tmp_1``) and its parameters too (``fc_0.w_0``,
``fc_0.b_0``), appends ops to the current block, and adds an activation.
``ParamAttr`` says how a parameter is made: its name, initializer,
learning-rate scale, regularizer and whether it is trainable.
"""

from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.initializer import Constant, Initializer, Xavier

__all__ = ["LayerHelper", "ParamAttr"]


class ParamAttr:
    """How to make a parameter (PaddlePaddle's ``fluid.ParamAttr``)."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True):
        if initializer is not None and not isinstance(initializer, Initializer):
            raise TypeError(f"ParamAttr: initializer must be a paddle_nb.initializer, got {initializer!r}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable

    @staticmethod
    def of(attr):
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
    """Names, parameters and ops for one call of a layer function."""

    def __init__(self, layer_type, name=None):
        self.program = default_main_program()
        self.name = name or self.program.unique_name(layer_type)
        self._tmps = 0
        self._params = {"w": 0, "b": 0}

    @property
    def block(self):
        return self.program.current_block()

    def tmp_name(self):
        name = f"{self.name}.tmp_{self._tmps}"
        self._tmps += 1
        return name

    def param(self, attr, shape, dtype="float32", is_bias=False):
        """A Parameter made as ``attr`` (a ParamAttr) says, in the global block."""
        kind = "b" if is_bias else "w"
        name = attr.name or f"{self.name}.{kind}_{self._params[kind]}"
        self._params[kind] += 1
        init = attr.initializer or (Constant(0.0) if is_bias else Xavier())
        return self.block.create_parameter(
            name=name, shape=shape, dtype=dtype, initializer=init, trainable=attr.trainable,
            optimize_attr={"learning_rate": attr.learning_rate}, regularizer=attr.regularizer)

    def append(self, op_type, inputs=None, outputs=None, attrs=None):
        return self.block.append_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs)

    def out(self, op_type, inputs, attrs=None, slot="Out", extra_outputs=None):
        """Append ``op_type`` writing a new temporary in ``slot``; return the temporary."""
        name = self.tmp_name()
        outputs = {slot: name}
        outputs.update(extra_outputs or {})
        self.append(op_type, inputs, outputs, attrs)
        return self.block.var(name)

    def act(self, var, act):
        """``var`` passed through activation ``act`` (a name such as "relu"), or as it is."""
        if act is None:
            return var
        if not isinstance(act, str):
            raise TypeError(f"act must be an activation name such as 'relu', got {act!r}")
        return self.out(act, {"X": var})
