"""The design documents' own names for the RNN and the if-else, as thin wrappers.

"Design Doc: Block and Scope" writes ``rnn = create_rnn(inputs=[x])``, ``with
rnn.stepnet() as net:``, ``net.set_inputs(0)``, ``h = net.add_memory(init=m)``,
``h.pre(n=1)``, ``h.update(v)``, ``net.set_outputs(0, act, hidden_out)`` and
``o1, o2 = rnn()``; and ``ie = create_ifelseop(inputs=[x], output_num=1)``
with ``ie.inputs(True, 0)``, ``ie.set_output(True, 0, v)`` and ``out =
ie(cond)``. Both map onto StaticRNN and IfElse.
"""

from __future__ import annotations

import contextlib
from typing import Any

from paddle_nb.errors import OpBuildError
from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.control_flow import IfElse
from paddle_nb.layers.helper import LayerHelper
from paddle_nb.layers.rnn import StaticRNN
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from paddle_nb.framework.variable import Tensor

__all__ = ["create_rnn", "create_ifelseop"]


class Memory:
    """A memory of the design doc's step net: ``pre(n=1)`` reads it, ``update(v)`` writes it."""

    def __init__(self, rnn: StaticRNN, pre: Tensor) -> None:
        self._rnn = rnn
        self._pre = pre

    def pre(self, n: int = 1) -> Tensor:
        if n != 1:
            raise OpBuildError(f"Memory.pre(n={n}): only the previous step (n=1) is supported")
        return self._pre

    def update(self, value: Tensor) -> None:
        self._rnn.update_memory(self._pre, value)


class _StepNet:
    def __init__(self, rnn: StaticRNN, sequences: Sequence[Tensor]) -> None:
        self._rnn = rnn
        self._sequences = sequences

    def set_inputs(self, index: int) -> Tensor:
        """The current step's slice of input ``index`` (a position in
        ``create_rnn(inputs=...)``)."""
        return self._rnn.step_input(self._sequences[index])

    def add_memory(self, init: Tensor) -> Memory:
        return Memory(self._rnn, self._rnn.memory(init=init))

    def set_outputs(self, index: int, *values: Tensor) -> None:
        for v in values:
            self._rnn.step_output(v)


class SeedRNN:
    """``create_rnn(inputs=[x])``: the design doc's RNN builder over StaticRNN."""

    def __init__(self, inputs: Sequence[Tensor]) -> None:
        self._inputs = list(inputs)
        self._rnn = StaticRNN()

    @contextlib.contextmanager
    def stepnet(self) -> Iterator[Any]:
        with self._rnn.step():
            yield _StepNet(self._rnn, self._inputs)

    def __call__(self) -> list[Tensor]:
        result = self._rnn()
        return result if isinstance(result, list) else [result]


def create_rnn(inputs: Any) -> SeedRNN:
    return SeedRNN(inputs)


class SeedIfElse:
    """``create_ifelseop(inputs=[x], output_num=1)``; the condition comes at the call
    ``ie(cond)``."""

    def __init__(self, inputs: Sequence[Tensor], output_num: int) -> None:
        self._inputs = list(inputs)
        self._output_num = output_num
        helper = LayerHelper("ifelse_cond")
        block = helper.program.current_block()
        self._cond = block.create_var(name=helper.tmp_name(), shape=(-1, 1), dtype="bool")
        self._block = block
        self._ie = IfElse(as_tensor(self._cond))
        self._outputs: dict[bool, list[Any]] = {True: [None] * output_num,
                                                False: [None] * output_num}

    def true_block(self) -> Any:
        return self._guard(True)

    def false_block(self) -> Any:
        return self._guard(False)

    @contextlib.contextmanager
    def _guard(self, flag: Any) -> Iterator[Any]:
        with (self._ie.true_block() if flag else self._ie.false_block()):
            yield
            values = self._outputs[flag]
            if any(v is None for v in values):
                raise OpBuildError(f"create_ifelseop: the {'true' if flag else 'false'} block "
                                   f"set {sum(v is not None for v in values)} of "
                                   f"{self._output_num} outputs")
            self._ie.output(*values)

    def inputs(self, flag: bool, index: int) -> Tensor:
        return self._ie.input(self._inputs[index])

    def set_output(self, flag: bool, index: int, value: Tensor) -> None:
        self._outputs[flag][index] = value

    def __call__(self, cond: Tensor) -> Tensor | list[Tensor]:
        if cond.dtype.kind != "b":
            raise OpBuildError(f"create_ifelseop: cond '{cond.name}' must be bool, got "
                               f"{cond.dtype}")
        # The condition comes last but is read first: copy it in just before the first op that
        # reads it (the split), after the global block's preamble and after cond's own writer.
        ops = self._block.ops
        first = next((k for k, op in enumerate(ops) if self._cond.name in op.input_arg_names),
                     len(ops))
        if any(cond.name in op.output_arg_names for op in ops[first:]):
            raise OpBuildError(f"create_ifelseop: cond '{cond.name}' is computed after the "
                               "branches; compute it before `with ie.true_block():`")
        self._block.insert_op(first, "assign", {"X": cond}, {"Out": self._cond})
        outs = self._ie()
        return outs[0] if self._output_num == 1 else outs


def create_ifelseop(inputs: Any, output_num: int = 1) -> SeedIfElse:
    return SeedIfElse(inputs, output_num)
