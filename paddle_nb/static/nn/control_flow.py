"""``paddle.static.nn``'s control flow: cond, case, switch_case, while_loop (PaddlePaddle 2.6).

They write the op forms PaddlePaddle 2.6 writes, through the Fluid-1.8 builders
(``paddle_nb.layers.control_flow``): ``cond`` is a ``conditional_block`` per branch (the
false one on ``logical_not(pred)``) whose results meet in ``select_input``; ``case`` and
``switch_case`` are chains of ``cond``; ``while_loop`` is one ``while`` op whose body ends by
computing the condition again and assigning the new values to the loop variables. Names come
from PaddlePaddle 2.x's process-wide generator: results and step scopes are
``_generated_var_N``, helper ops ``logical_not_N.tmp_0``, ``cast_N.tmp_0``.
"""

from __future__ import annotations

from paddle_nb.errors import OpBuildError
from paddle_nb.framework import unique_name
from paddle_nb.framework.variable import Variable, as_tensor, tensor_dtype, tensor_shape
from paddle_nb.layers.control_flow import CondNames, While, cond_with
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["cond", "case", "switch_case", "while_loop"]


class _Names2x(CondNames):
    """cond's names as PaddlePaddle 2.x gives them."""

    def branch_out(self) -> str:
        return unique_name.generate("_generated_var")

    def scopes(self) -> str:
        return unique_name.generate("_generated_var")

    def out(self, op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None
           ) -> Tensor:
        if op_type == "select_input":
            helper = self.helper
            name = unique_name.generate("_generated_var")
            helper.append(op_type, inputs, {"Out": name}, attrs)
            return as_tensor(helper.block.var(name))
        return layer_helper(op_type).out(op_type, inputs, attrs)


def cond(pred: Tensor, true_fn: Callable[..., Any] | None = None,
         false_fn: Callable[..., Any] | None = None, name: str | None = None,
         return_names: Any = None) -> Tensor | list[Tensor] | None:
    """``true_fn()`` when the one-element bool ``pred`` holds, else ``false_fn()``; both
    branches are built, each in its own block, and return the same structure (or None)."""
    if not isinstance(pred, Variable):
        raise TypeError(f"cond: pred must be a bool Variable, got {pred!r}")
    for fn, what in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        if fn is not None and not callable(fn):
            raise TypeError(f"cond: {what} must be callable or None, got {fn!r}")
    return cond_with(_Names2x(layer_helper("cond", name)), pred, true_fn, false_fn)


def case(pred_fn_pairs: Sequence[tuple[Any, ...]], default: Callable[..., Any] | None = None,
         name: str | None = None) -> Tensor:
    """The first ``fn`` whose ``pred`` holds (an if-elif chain of ``cond``); ``default`` when
    none does, or, without a default, the last pair's ``fn``."""
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"case: pred_fn_pairs must be a list or tuple, got {pred_fn_pairs!r}")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"case: each of pred_fn_pairs must be a (pred, fn) tuple, got {pair!r}")
        if not isinstance(pair[0], Variable) or not callable(pair[1]):
            raise TypeError(f"case: expected (bool Variable, callable), got {pair!r}")
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs.pop()[1]
    elif not callable(default):
        raise TypeError(f"case: default must be callable, got {default!r}")
    return _chain(pairs, default)


def _chain(pairs: Any, default: Callable[..., Any]) -> Tensor:
    """``cond(p0, f0, lambda: cond(p1, f1, ... default))``, outermost first."""
    false_fn = default
    for pred, true_fn in reversed(pairs):
        false_fn = _bind_cond(pred, true_fn, false_fn)
    return false_fn()


def _bind_cond(pred: Tensor, true_fn: Callable[..., Any], false_fn: Callable[..., Any]
              ) -> Callable[..., Any]:
    return lambda: cond(pred, true_fn, false_fn)


def switch_case(branch_index: Tensor,
                branch_fns: Mapping[int, Any] | Sequence[Callable[..., Any] | tuple[Any, ...]],
                default: Callable[..., Any] | None = None, name: str | None = None) -> Tensor:
    """The ``fn`` whose key equals ``branch_index`` (int32/int64/uint8, one element);
    ``branch_fns`` is a dict {key: fn}, a list of (key, fn), or a list of fns (keys 0, 1,
    ...). Without a default, the largest key's fn is the default. Keys are tested as
    ``equal(branch_index, full([1], key, int64))``, the last key outermost, as in 2.6."""
    if not isinstance(branch_index, Variable) or tensor_dtype(branch_index).name not in \
            ("int32", "int64", "uint8"):
        raise TypeError(f"switch_case: branch_index must be an int32, int64 or uint8 "
                        f"Variable, got {branch_index!r}")
    if tensor_dtype(branch_index).name != "int64":
        branch_index = layer_helper("cast").out(
            "cast", {"X": branch_index}, {"in_dtype": branch_index.dtype, "out_dtype": "int64"})
    items: list[Any] = list(branch_fns.items()) if isinstance(branch_fns, dict) \
        else list(branch_fns)
    if all(callable(fn) for fn in items):
        items = list(enumerate(items))
    keys = [k for k, _ in items]
    if any(not isinstance(k, int) for k in keys) or len(set(keys)) != len(keys):
        raise TypeError(f"switch_case: keys must be distinct ints, got {keys}")
    items.sort(key=lambda kv: kv[0])
    if default is None:
        default = items.pop()[1]
    elif not callable(default):
        raise TypeError(f"switch_case: default must be callable, got {default!r}")
    pairs = [(_equals_key(branch_index, key), fn) for key, fn in items]
    return _chain(list(reversed(pairs)), default)


def _equals_key(index: Tensor, key: int) -> Tensor:
    """``equal(index, full([1], key, "int64"))`` with 2.6's names (``paddle.full`` takes two
    numbers of the fill_constant counter: its own helper's and fill_constant's)."""
    unique_name.generate("fill_constant")
    key_var = layer_helper("fill_constant").out(
        "fill_constant", {}, {"shape": [1], "dtype": "int64", "value": float(key),
                              "str_value": str(key)})
    key_var.stop_gradient = True
    return layer_helper("equal").out("equal", {"X": index, "Y": key_var})


class _While2x(While):
    """The Fluid While, its step-scopes variable named by PaddlePaddle 2.x's generator."""

    def __init__(self, cond_var: Tensor, is_test: bool = False, name: str | None = None) -> None:
        super().__init__(cond_var, is_test=is_test, name=name)
        self.helper = layer_helper("while", name)


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Sequence[Tensor],
               is_test: bool = False, name: str | None = None) -> list[Tensor]:
    """Run ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds; returns the
    loop variables (the same Variables, holding the last values).

    One ``while`` op: ``cond`` is built once before it (the first test) and again at the end
    of the body, whose new values are then assigned to the loop variables and the condition.
    A tensor array the body writes (``array_write``) is carried by the loop too.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise TypeError(f"while_loop: loop_vars must be a non-empty list or tuple, got "
                        f"{loop_vars!r}")
    pre_cond = cond(*loop_vars)
    _check_condition(pre_cond, "cond(*loop_vars)")
    loop = _While2x(pre_cond, is_test=is_test, name=name)
    with loop.block() as sub:
        outputs = body(*loop_vars)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if len(outputs) != len(loop_vars):
            raise OpBuildError(f"while_loop: body returns {len(outputs)} values for "
                               f"{len(loop_vars)} loop_vars; expected as many")
        now_cond = cond(*outputs)
        _check_condition(now_cond, "cond(*body(...))")
        for new, old in zip(outputs, loop_vars):
            if new is not old:
                sub.append_op("assign", {"X": new}, {"Out": old})
        sub.append_op("assign", {"X": now_cond}, {"Out": pre_cond})
    return list(loop_vars)


def _check_condition(var: Tensor, what: str) -> None:
    if not isinstance(var, Variable) or tensor_dtype(var).kind != "b" or \
            any(d > 1 for d in tensor_shape(var)):
        raise OpBuildError(f"while_loop: {what} must return a bool Variable of one element, "
                           f"got {var!r}")
