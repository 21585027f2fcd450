"""Control flow with blocks and scopes: IfElse, cond, While, StaticRNN
("Design Doc: Block and Scope").

Every builder here uses one mechanism: a ``with`` guard creates a sub-block,
makes it current, and rolls back in ``finally``; on leaving it, the builder
finds the sub-block's captures and outer writes (``block_captures``) and
appends the op that owns the sub-block (``conditional_block``, ``while``,
``recurrent``) to the parent block. At run time each execution of a
sub-block gets a fresh kid scope of the scope that runs the owning op.
"""

from __future__ import annotations

import contextlib
import numbers
from typing import Any

from paddle_nb.errors import OpBuildError
from paddle_nb.framework.captures import block_captures
from paddle_nb.framework.variable import VarType, as_tensor
from paddle_nb.layers.helper import LayerHelper
from paddle_nb.ops.control_flow import WHILE_LIMITS
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.variable import Tensor

__all__ = ["IfElse", "cond", "cond_with", "CondNames", "While", "WHILE_LIMITS", "with_every_slot"]


def _check_bool(var: Tensor, who: str, one_value: bool = False) -> None:
    if var.dtype.kind != "b":
        raise OpBuildError(f"{who}: the condition '{var.name}' must be a bool tensor, got "
                           f"{var.dtype} (build it with less_than, equal, ...)")
    if one_value and any(d > 1 for d in var.shape):
        raise OpBuildError(f"{who}: the condition '{var.name}' must hold one value, got shape "
                           f"{list(var.shape)}")


def with_every_slot(op: Operator, inputs: Sequence[str] = (), outputs: Sequence[str] = ()
                   ) -> Operator:
    """Write the slots named even when they hold no variable (a branch reading nothing from
    outside): PaddlePaddle's executor refuses a control-flow op whose OpDesc lacks one
    ("Operator conditional_block's input (Input) is not set"), and append_op leaves empty
    slots out. Returns ``op``."""
    for slots, listed in ((inputs, op.desc.inputs), (outputs, op.desc.outputs)):
        present = {v.parameter for v in listed}
        for slot in slots:
            if slot not in present:
                listed.add(parameter=slot)
    return op


def _scopes_var(helper: Any, block: Any) -> Tensor:
    """The STEP_SCOPES variable of a control-flow op, named by the helper's generator (the
    program's counter for Fluid 1.8, the process-wide one for 2.x)."""
    return block.create_var(name=helper.unique("_generated_var"), type=VarType.STEP_SCOPES)


class IfElse:
    """Per-instance if-else: each branch runs on the rows whose condition is true (false).

    ``cond`` is a bool tensor with one value per instance ([N, 1]). Inside
    ``true_block()``, ``input(x)`` gives the rows of ``x`` where it is true;
    ``output(*vars)`` sets the branch's results; ``ie()`` merges both
    branches' results back in the original row order.
    """

    def __init__(self, cond: Tensor, name: str | None = None) -> None:
        _check_bool(cond, "IfElse")
        self.cond = cond
        self.helper = LayerHelper("ifelse", name)
        self.program = self.helper.program
        self.parent = self.program.current_block()
        self._splits: dict[str, Any] = {}
        self._masks: Any = None
        self._outputs: dict[bool, list[Any]] = {True: [], False: []}
        self._branch = None

    def _split(self, x: Tensor) -> Any:
        if x.name not in self._splits:
            t, f = self.helper.tmp_name(), self.helper.tmp_name()
            self.parent.append_op("split_lod_tensor", {"X": x, "Mask": self.cond},
                                  {"OutTrue": t, "OutFalse": f}, {"level": 0})
            self._splits[x.name] = (self.parent.var(t), self.parent.var(f))
        return self._splits[x.name]

    @contextlib.contextmanager
    def true_block(self) -> Iterator[Any]:
        with self._block(True):
            yield

    @contextlib.contextmanager
    def false_block(self) -> Iterator[Any]:
        with self._block(False):
            yield

    @contextlib.contextmanager
    def _block(self, flag: Any) -> Iterator[Any]:
        if self._branch is not None:
            raise OpBuildError("IfElse: branches cannot nest inside each other")
        if self._masks is None:
            self._masks = self._split(self.cond)
        self._branch = flag
        try:
            with self.program.block_guard() as sub:
                yield sub
        finally:
            self._branch = None
        reads, writes = block_captures(sub)
        mask = self._masks[0 if flag else 1]
        with_every_slot(self.parent.append_op(
            "conditional_block", {"Cond": [mask], "Input": reads},
            {"Out": writes, "Scope": _scopes_var(self.helper, self.parent)},
            {"sub_block": sub.idx, "is_scalar_condition": False}), ["Input"], ["Out"])

    def input(self, x: Tensor) -> Tensor:
        """The rows of ``x`` that belong to the current branch."""
        if self._branch is None:
            raise OpBuildError("IfElse.input must be called inside true_block() or false_block()")
        return self._split(x)[0 if self._branch else 1]

    def output(self, *outs: Tensor) -> None:
        """Set the current branch's results (copied to variables of the parent block)."""
        if self._branch is None:
            raise OpBuildError("IfElse.output must be called inside true_block() or false_block()")
        block = self.program.current_block()
        for v in outs:
            outer = self.parent.create_var(name=self.helper.tmp_name(), shape=v.shape,
                                           dtype=v.dtype)
            block.append_op("assign", {"X": v}, {"Out": outer})
            self._outputs[self._branch].append(outer)

    def __call__(self) -> list[Tensor]:
        t, f = self._outputs[True], self._outputs[False]
        if len(t) != len(f):
            raise OpBuildError(f"IfElse: the true branch has {len(t)} outputs and the false "
                               f"branch {len(f)}; expected the same number")
        results = []
        for a, b in zip(t, f):
            name = self.helper.tmp_name()
            self.parent.append_op("merge_lod_tensor",
                                  {"X": self.cond, "Mask": self.cond, "InTrue": a, "InFalse": b},
                                  {"Out": name}, {"level": 0})
            results.append(as_tensor(self.parent.var(name)))
        return results


class CondNames:
    """How ``cond`` names what it makes. The Fluid-1.8 form: outputs ``cond_0.tmp_N`` and the
    helper's temporaries, scopes ``_generated_var_N`` from the program's counter; the 2.x
    form (``paddle.static.nn.cond``) passes its own (names from the process-wide generator)."""

    def __init__(self, helper: LayerHelper) -> None:
        self.helper = helper

    def branch_out(self) -> str:
        """The parent-block variable a branch's result is copied to."""
        return self.helper.tmp_name()

    def scopes(self) -> str:
        return self.helper.program.unique_name("_generated_var")

    def out(self, op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None
           ) -> Tensor:
        """A helper op's output (logical_not, cast, select_input)."""
        return self.helper.out(op_type, inputs, attrs)


def _branch(names: Any, parent: Any, pred: Tensor, fn: Callable[..., Any] | None) -> Any:
    """One scalar conditional block running ``fn``; returns its outputs copied outside."""
    program = names.helper.program
    with program.block_guard() as sub:
        result = fn() if fn is not None else None
        values = [] if result is None else \
            list(result) if isinstance(result, (list, tuple)) else [result]
        outs = []
        for v in values:
            outer = parent.create_var(name=names.branch_out(), shape=v.shape, dtype=v.dtype)
            sub.append_op("assign", {"X": v}, {"Out": outer})
            outs.append(outer)
    reads, writes = block_captures(sub)
    scopes = parent.create_var(name=names.scopes(), type=VarType.STEP_SCOPES)
    with_every_slot(parent.append_op(
        "conditional_block", {"Cond": [pred], "Input": reads},
        {"Out": writes, "Scope": scopes},
        {"sub_block": sub.idx, "is_scalar_condition": True}), ["Input"], ["Out"])
    return outs, result


def cond(pred: Tensor, true_fn: Callable[..., Any] | None = None,
         false_fn: Callable[..., Any] | None = None, name: str | None = None
        ) -> Tensor | list[Tensor] | None:
    """``true_fn()`` if the scalar bool ``pred`` holds, else ``false_fn()`` (both built)."""
    return cond_with(CondNames(LayerHelper("cond", name)), pred, true_fn, false_fn)


def cond_with(names: Any, pred: Tensor, true_fn: Callable[..., Any] | None = None,
              false_fn: Callable[..., Any] | None = None) -> Tensor | list[Tensor] | None:
    """``cond``'s ops, named by ``names`` (a CondNames): a conditional_block per branch (the
    false one on ``logical_not(pred)``), then ``select_input`` of each result on
    ``cast(pred, int32)``."""
    _check_bool(pred, "cond", one_value=True)
    parent = names.helper.program.current_block()
    t_outs, t_result = _branch(names, parent, pred, true_fn)
    not_pred = names.out("logical_not", {"X": pred})
    f_outs, _ = _branch(names, parent, not_pred, false_fn)
    if len(t_outs) != len(f_outs):
        raise OpBuildError(f"cond: true_fn returns {len(t_outs)} values and false_fn "
                           f"{len(f_outs)}; expected the same number")
    if not t_outs:
        return None
    mask = names.out("cast", {"X": pred}, {"in_dtype": "bool", "out_dtype": "int32"})
    merged = [names.out("select_input", {"X": [f, t], "Mask": mask})
              for t, f in zip(t_outs, f_outs)]
    return merged if isinstance(t_result, (list, tuple)) else merged[0]


class While:
    """A loop: ``with w.block():`` the body, which must update ``cond``.

    Each iteration runs in its own step scope. A guard turns a loop whose
    condition never becomes false into a clear OpRunError instead of a hang
    or an exhausted machine: it stops at ``max_iterations`` iterations or when
    the step scopes hold ``max_step_scope_bytes``, whichever comes first.
    None takes the process-wide default, ``WHILE_LIMITS`` (100,000 iterations,
    1 GiB), read when the loop runs; a number is stored in the op.
    """

    def __init__(self, cond: Tensor, is_test: bool = False, name: str | None = None,
                 max_iterations: int | None = None, max_step_scope_bytes: int | None = None
                ) -> None:
        _check_bool(cond, "While", one_value=True)
        self.cond = cond
        self.is_test = is_test
        self.limits = {"max_iterations": _limit(max_iterations, "max_iterations"),
                       "max_step_scope_bytes": _limit(max_step_scope_bytes, "max_step_scope_bytes")}
        self.helper = LayerHelper("while", name)

    @contextlib.contextmanager
    def block(self) -> Iterator[Any]:
        program = self.helper.program
        parent = program.current_block()
        with program.block_guard() as sub:
            yield sub
        reads, writes = block_captures(sub)
        if self.cond.name not in writes:
            raise OpBuildError(f"While: the loop body never updates its condition "
                               f"'{self.cond.name}'; write it in the body (for example "
                               f"less_than(i, n, cond={self.cond.name}))")
        # a tensor array the body writes is read too (write_to_array adds to it in place)
        arrays = [n for n in writes if n not in reads and _is_array(parent, n)]
        with_every_slot(parent.append_op(
            "while", {"X": [n for n in reads + arrays if n != self.cond.name],
                      "Condition": self.cond},
            {"Out": writes, "StepScopes": _scopes_var(self.helper, parent)},
            {"sub_block": sub.idx, "is_test": self.is_test, **self.limits}), ["X"], ["Out"])


def _is_array(block: Any, name: str) -> bool:
    var = block.find_var(name)
    return var is not None and var.type == VarType.LOD_TENSOR_ARRAY


def _limit(value: int | None, name: str) -> int:
    """A loop's own limit as the op stores it: 0 for None (the WHILE_LIMITS default)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise OpBuildError(f"While: {name} must be a positive int or None (the WHILE_LIMITS "
                           f"default), got {value!r}")
    return int(value)
