"""The RNN step net ("Design Doc: Block and Scope"): one step block, run once per time step.

``StaticRNN`` builds a ``recurrent`` op the way PaddlePaddle 1.8 does: a
step input is a variable of the step block with the outer sequence's name
([T, batch, ...] outside, [batch, ...] inside); a memory is a step-block
variable (``static_rnn_0@mem_0``) holding the previous step's value, or its
initial state at the first step; ``update_memory`` and ``step_output`` copy
a value into a named step variable with ``rnn_memory_helper``. The design doc's
own names (``create_rnn``, ``stepnet``, ``add_memory``, ``h.pre()``) are thin
wrappers over the same builder.
"""

from __future__ import annotations

import contextlib
from typing import Any

from paddle_nb.errors import OpBuildError
from paddle_nb.framework.captures import block_captures
from paddle_nb.framework.variable import VarType
from paddle_nb.layers.control_flow import with_every_slot
from paddle_nb.layers.helper import LayerHelper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from paddle_nb.framework.variable import Tensor

__all__ = ["StaticRNN"]


def _same_shape(a: Any, b: Any) -> bool:
    return len(a) == len(b) and all(x == y or x < 0 or y < 0 for x, y in zip(a, b))


class StaticRNN:
    """An RNN over sequences laid out [T, batch, ...]; see the module docstring.

    ``rnn()`` returns the step outputs stacked over time: the variable
    itself for one output, a list for several.
    """

    def __init__(self, name: str | None = None) -> None:
        self.helper = LayerHelper("static_rnn", name)
        self.program = self.helper.program
        self.parent: Any = None     # the Block that holds the recurrent op, once step() began
        self.sub: Any = None        # the step's Block, once step() opened it
        self.inputs: list[Tensor] = []      # outer sequences
        self.memories: list[Any] = []       # [pre (step var), boot (outer var), state name or None]
        self.outputs: list[str] = []        # step-block output names
        self._results: list[Any] | None = None

    @contextlib.contextmanager
    def step(self) -> Iterator[Any]:
        """The step block: everything built inside runs once per time step."""
        self.parent = self.program.current_block()
        with self.program.block_guard() as sub:
            self.sub = sub
            yield sub
        self._complete()

    def _need_step(self, what: str) -> None:
        if self.sub is None or self.program.current_block() is not self.sub:
            raise OpBuildError(f"StaticRNN.{what} must be called inside `with rnn.step():`")

    def step_input(self, x: Tensor) -> Tensor:
        """The slice of sequence ``x`` ([T, batch, ...]) at the current time step."""
        self._need_step("step_input")
        if self.inputs and self.inputs[0].shape[0] > 0 and x.shape[0] > 0 \
                and x.shape[0] != self.inputs[0].shape[0]:
            raise OpBuildError(f"StaticRNN.step_input: '{x.name}' has {x.shape[0]} time steps "
                               f"but '{self.inputs[0].name}' has {self.inputs[0].shape[0]}: "
                               "step inputs must share their first dimension")
        self.inputs.append(x)
        return self.sub.create_var(name=x.name, shape=x.shape[1:], dtype=x.dtype,
                                   lod_level=x.lod_level)

    def memory(self, init: Tensor | None = None, shape: Sequence[int] | None = None,
               batch_ref: Tensor | None = None, init_value: float = 0.0,
               init_batch_dim_idx: int = 0, ref_batch_dim_idx: int = 1) -> Tensor:
        """A memory: ``init`` gives its first value, or ``shape`` with the batch of
        ``batch_ref``."""
        self._need_step("memory")
        if init is None:
            if shape is None or batch_ref is None:
                raise OpBuildError("StaticRNN.memory: give init, or shape and batch_ref")
            ref = self.parent.find_var(batch_ref.name) or batch_ref
            boot_name = self.program.unique_name(f"{self.helper.name}@memory_boot")
            boot = self.parent.create_var(name=boot_name,
                                          dtype=batch_ref.dtype)
            self.parent.append_op("fill_constant_batch_size_like", {"Input": ref}, {"Out": boot},
                                  {"shape": list(shape), "value": init_value,
                                   "dtype": batch_ref.dtype, "input_dim_idx": ref_batch_dim_idx,
                                   "output_dim_idx": init_batch_dim_idx})
            init = boot
        pre = self.sub.create_var(name=f"{self.helper.name}@mem_{len(self.memories)}",
                                  shape=init.shape, dtype=init.dtype)
        self.memories.append([pre, init, None])
        return pre

    def update_memory(self, mem: Tensor, var: Tensor) -> None:
        """The value ``mem`` holds at the next step."""
        self._need_step("update_memory")
        entry = next((m for m in self.memories if m[0].name == mem.name), None)
        if entry is None:
            raise OpBuildError(f"StaticRNN.update_memory: '{mem.name}' is not a memory of this RNN")
        if not _same_shape(mem.shape, var.shape) or mem.dtype != var.dtype:
            raise OpBuildError(f"StaticRNN.update_memory: memory '{mem.name}' is "
                               f"{mem.dtype}{list(mem.shape)} but its update '{var.name}' is "
                               f"{var.dtype}{list(var.shape)}")
        state = self.helper.tmp_name()
        self.sub.append_op("rnn_memory_helper", {"X": var}, {"Out": state})
        entry[2] = state

    def step_output(self, o: Tensor) -> None:
        """Collect ``o`` at every step; ``rnn()`` returns it stacked over time."""
        self._need_step("step_output")
        name = self.helper.tmp_name()
        self.sub.append_op("rnn_memory_helper", {"X": o}, {"Out": name})
        self.outputs.append(name)

    def output(self, *outputs: Any) -> None:
        for o in outputs:
            self.step_output(o)

    def _complete(self) -> None:
        for pre, _, state in self.memories:
            if state is None:
                raise OpBuildError(f"StaticRNN: memory '{pre.name}' is never updated; call "
                                   "rnn.update_memory(mem, new_value) in the step block")
        if not self.inputs:
            raise OpBuildError("StaticRNN: the step block has no step_input")
        reads, _ = block_captures(self.sub)
        steps = self.inputs[0].shape[0]
        outs = []
        for name in self.outputs:
            inner = self.sub.var(name)
            outs.append(self.parent.create_var(name=name, shape=(steps,) + tuple(inner.shape),
                                               dtype=inner.dtype))
        scopes = self.parent.create_var(name=self.program.unique_name("_generated_var"),
                                        type=VarType.STEP_SCOPES)
        op = self.parent.append_op(
            "recurrent",
            {"inputs": self.inputs, "initial_states": [m[1] for m in self.memories],
             "parameters": reads},
            {"outputs": outs, "step_scopes": scopes},
            {"ex_states": [m[0].name for m in self.memories],
             "states": [m[2] for m in self.memories], "sub_block": self.sub.idx,
             "reverse": False, "is_train": True, "has_states": bool(self.memories)})
        with_every_slot(op, ["inputs", "initial_states", "parameters"], ["outputs"])
        self._results = outs

    def __call__(self) -> Tensor | list[Tensor]:
        if self._results is None:
            raise OpBuildError("StaticRNN: call rnn() after the `with rnn.step():` block")
        return self._results[0] if len(self._results) == 1 else list(self._results)
