"""Gradient makers: how an op says which grad ops compute its inputs' gradients.

Backward is a program transformation (docs/style.md rule 7): for each forward op, its
OpDef's ``grad(g)`` returns :class:`OpSpec` records, ordinary ops that the
backward pass appends. ``g`` is a :class:`GradContext` over the forward op:
the names in its slots, the names of their gradients (``x@GRAD``) and its
attributes. Most ops use :func:`grad_op`, which follows PaddlePaddle's
convention: ``T_grad`` reads some forward inputs and outputs plus ``Out@GRAD``
and writes ``X@GRAD``.

>>> maker = grad_op("tanh_grad", inputs=(), outputs=("Out",))
>>> g = GradContext("tanh", {"X": ["x"]}, {"Out": ["y"]}, {})
>>> maker(g)
[OpSpec(type='tanh_grad', inputs={'Out': ['y'], 'Out@GRAD': ['y@GRAD']},
        outputs={'X@GRAD': ['x@GRAD']}, attrs={})]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from paddle_nb.ops.machinery.registry import GRAD_SUFFIX, grad_var_name

__all__ = ["OpSpec", "GradContext", "grad_op"]


@dataclasses.dataclass
class OpSpec:
    """An op to append: its type, slot -> names maps and attributes."""

    type: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)


class GradContext:
    """The forward op as a gradient maker sees it.

    ``op`` and ``backward_block`` are set by the backward pass (paddle_nb.backward) and
    are None when a maker is called on its own (the contract suite): ``op`` is the forward
    Operator, ``backward_block(idx, seeds, local_seeds=False, extra_needs=())`` builds the
    grad block of sub-block ``idx`` and returns ``(grad block index, {name: inner grad})``;
    only control-flow makers use them.
    """

    __slots__ = ("type", "inputs", "outputs", "attrs", "op", "backward_block")

    def __init__(self, type: str, inputs: Mapping[str, list[str]],
                 outputs: Mapping[str, list[str]], attrs: Mapping[str, Any], op: Any = None,
                 backward_block: Callable[..., Any] | None = None) -> None:
        self.type = type
        self.inputs = inputs      # slot -> [names]
        self.outputs = outputs
        self.attrs = attrs        # the forward op's own (declared) attributes
        self.op = op
        self.backward_block = backward_block

    def input(self, slot: str) -> list[str]:
        return list(self.inputs.get(slot, []))

    def output(self, slot: str) -> list[str]:
        return list(self.outputs.get(slot, []))

    def input_grad(self, slot: str) -> list[str]:
        return [grad_var_name(n) for n in self.inputs.get(slot, [])]

    def output_grad(self, slot: str) -> list[str]:
        return [grad_var_name(n) for n in self.outputs.get(slot, [])]


GradMaker = Callable[[GradContext], list[OpSpec]]


def grad_op(grad_type: str, inputs: Sequence[str] = ("X",), outputs: Sequence[str] = (),
            out_grads: Sequence[str] = ("Out",), in_grads: Sequence[str] = ("X",),
            extra_attrs: Mapping[str, Any] | None = None) -> GradMaker:
    """A maker for one grad op in PaddlePaddle's shape.

    The grad op reads the forward input slots ``inputs``, the forward output
    slots ``outputs`` and the gradients of ``out_grads`` (as ``Out@GRAD``), and
    writes the gradients of ``in_grads`` (as ``X@GRAD``). It copies the forward
    op's attributes.
    """

    def make(g: GradContext) -> list[OpSpec]:
        ins: dict[str, list[str]] = {}
        for slot in inputs:
            if g.inputs.get(slot):
                ins[slot] = g.input(slot)
        for slot in outputs:
            if g.outputs.get(slot):
                ins[slot] = g.output(slot)
        for slot in out_grads:
            if g.outputs.get(slot):
                ins[slot + GRAD_SUFFIX] = g.output_grad(slot)
        outs = {slot + GRAD_SUFFIX: g.input_grad(slot) for slot in in_grads if g.inputs.get(slot)}
        attrs = dict(g.attrs)
        attrs.update(extra_attrs or {})
        return [OpSpec(grad_type, ins, outs, attrs)]

    return make
