"""Master weights: the float32 copy a float16 parameter is trained through.

With ``multi_precision=True`` PaddlePaddle 2.6 keeps, beside each float16 parameter ``w``, a
persistable float32 copy ``w_fp32_master_0`` (made from ``w`` by a ``cast`` when the state is
initialized), hands it to the update op as ``MasterParam`` / ``MasterParamOut``, and names the
parameter's state after it (``w_fp32_master_0_moment1_0``). The update runs on the copy, and
the parameter gets the copy rounded: a step too small for float16 still accumulates in the
copy, where without one it is rounded away at every step. SGD, Momentum, Adam, AdamW and Lamb
keep master weights, as in PaddlePaddle 2.6.2 (its other optimizers take no
``multi_precision``).
"""

from __future__ import annotations

import numpy

from paddle_nb.framework import unique_name
from paddle_nb.framework.initializer import Initializer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Variable

__all__ = ["MasterCopy", "new_master"]

FLOAT16, FLOAT32 = numpy.dtype("float16"), numpy.dtype("float32")


class MasterCopy(Initializer):
    """The first value of a master weight: its parameter, cast to float32."""

    def __init__(self, param_name: Any) -> None:
        self.param_name = param_name

    def append_to(self, block: Any, var: Variable, index: int) -> Any:
        # in a startup program the parameter is that program's variable of the same name,
        # made (and initialized) before any optimizer state
        return block.insert_op(index, "cast", inputs={"X": block.var(self.param_name)},
                               outputs={"Out": var},
                               attrs={"in_dtype": FLOAT16, "out_dtype": FLOAT32})


def new_master(program: Any, param: Any) -> Any:
    """A new master weight of ``param`` (a float16 Parameter) in ``program``, initialized
    where the program's initializers go (its startup program, or its preamble)."""
    var = program.global_block().create_var(
        name=unique_name.generate(f"{param.name}_fp32_master"), shape=param.shape,
        dtype=FLOAT32, persistable=True, stop_gradient=True)
    program.initialize(var, MasterCopy(param.name))
    return var
