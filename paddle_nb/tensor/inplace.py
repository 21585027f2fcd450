"""The in-place tensor functions (``paddle.abs_``, ``paddle.cast_``, ``x.tanh_()``, ...).

In PaddlePaddle 2.6 a name ending in ``_`` updates its input in place in dynamic mode only;
in a static program it warns ("In static graph mode, abs_() is the same as abs() and does
not perform inplace operation.") and builds exactly what the out-of-place function builds:
the same op, the same new output variable (``paddle.abs_(x)`` writes ``abs_0.tmp_0``, and
``x`` keeps its value). So every in-place name here is one generic wrapper, ``inplace``,
over its out-of-place function, made once for the list ``NAMES`` and registered as a
Variable method too. The random in-place draws (``normal_``, ``cauchy_``, ...) live in
random.py, ``lcm_`` (its own op order) in euclid.py, and ``reshape_`` / ``squeeze_`` /
``unsqueeze_`` / ``scatter_`` next to their out-of-place forms.

>>> import paddle_nb as paddle, warnings
>>> with paddle.program_guard(paddle.Program(), paddle.Program()):
...     x = paddle.static.data("x", [2, 3])
...     with warnings.catch_warnings():
...         warnings.simplefilter("ignore")
...         y = paddle.abs_(x)
>>> [op.type for op in y.block.ops], y.name == x.name
(['abs'], False)
"""

from __future__ import annotations

import functools
import warnings

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor import (
    composite, creation, linalg, logic, manipulation, math, own_ops, quantiles, search, stat,
)
from paddle_nb.tensor import euclid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from paddle_nb.tensor import math_more, selection

F = TypeVar("F", bound=Callable[..., Any])

# PaddlePaddle 2.6's in-place names that run in static mode as their out-of-place function
NAMES = [
    "abs_", "acos_", "atan_", "cos_", "sin_", "sinh_", "tan_", "tanh_", "erf_", "expm1_",
    "square_", "neg_", "lgamma_", "digamma_", "log_", "log2_", "log10_", "trunc_", "frac_",
    "i0_", "logit_", "nan_to_num_", "polygamma_", "multigammaln_",
    "divide_", "multiply_", "pow_", "remainder_", "mod_", "floor_mod_", "floor_divide_",
    "gcd_", "ldexp_", "hypot_", "renorm_", "addmm_",
    "equal_", "less_than_", "less_equal_", "greater_than_", "greater_equal_",
    "logical_and_", "logical_or_", "logical_not_",
    "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_",
    "cast_", "cumsum_", "cumprod_", "transpose_", "t_", "tril_", "triu_", "where_",
    "masked_fill_", "index_add_", "index_fill_", "index_put_",
]


def inplace(function: F, name: str) -> F:
    """``name`` (an in-place name): warns as PaddlePaddle 2.6 does in a static program and
    builds what ``function`` (the out-of-place form) builds; same signature and docs."""
    @functools.wraps(function)
    def static_inplace(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"In static graph mode, {name}() is the same as {function.__name__}() "
                      "and does not perform inplace operation.", stacklevel=2)
        return function(*args, **kwargs)
    static_inplace.__name__ = static_inplace.__qualname__ = name
    static_inplace.__doc__ = (f"``paddle.{function.__name__}``; in a static program it does "
                              f"not work in place (PaddlePaddle 2.6 neither).\n\n"
                              + (function.__doc__ or ""))
    return cast(F, static_inplace)


def _out_of_place(name: str) -> Any:
    for family in (math, logic, manipulation, creation, linalg, search, stat, composite,
                   own_ops, euclid, quantiles):
        if name in family.__all__:
            return getattr(family, name)
    return None


FUNCTIONS = {n: inplace(_out_of_place(n[:-1]), n) for n in NAMES if _out_of_place(n[:-1])}
globals().update(FUNCTIONS)
__all__ = sorted(FUNCTIONS)

if TYPE_CHECKING:   # FUNCTIONS, as a type checker reads it (tests/test_lint_config.py checks
    # that these are FUNCTIONS)
    abs_ = inplace(math.abs, "abs_")
    acos_ = inplace(math.acos, "acos_")
    addmm_ = inplace(own_ops.addmm, "addmm_")
    atan_ = inplace(math.atan, "atan_")
    bitwise_and_ = inplace(logic.bitwise_and, "bitwise_and_")
    bitwise_not_ = inplace(logic.bitwise_not, "bitwise_not_")
    bitwise_or_ = inplace(logic.bitwise_or, "bitwise_or_")
    bitwise_xor_ = inplace(logic.bitwise_xor, "bitwise_xor_")
    cast_ = inplace(manipulation.cast, "cast_")
    cos_ = inplace(math.cos, "cos_")
    cumprod_ = inplace(math.cumprod, "cumprod_")
    cumsum_ = inplace(math.cumsum, "cumsum_")
    digamma_ = inplace(math.digamma, "digamma_")
    divide_ = inplace(math.divide, "divide_")
    equal_ = inplace(logic.equal, "equal_")
    erf_ = inplace(math.erf, "erf_")
    expm1_ = inplace(math.expm1, "expm1_")
    floor_divide_ = inplace(math.floor_divide, "floor_divide_")
    floor_mod_ = inplace(math.remainder, "floor_mod_")
    frac_ = inplace(math_more.frac, "frac_")
    gcd_ = inplace(euclid.gcd, "gcd_")
    greater_equal_ = inplace(logic.greater_equal, "greater_equal_")
    greater_than_ = inplace(logic.greater_than, "greater_than_")
    hypot_ = inplace(composite.hypot, "hypot_")
    i0_ = inplace(math_more.i0, "i0_")
    index_add_ = inplace(selection.index_add, "index_add_")
    index_fill_ = inplace(selection.index_fill, "index_fill_")
    index_put_ = inplace(selection.index_put, "index_put_")
    ldexp_ = inplace(composite.ldexp, "ldexp_")
    less_equal_ = inplace(logic.less_equal, "less_equal_")
    less_than_ = inplace(logic.less_than, "less_than_")
    lgamma_ = inplace(math.lgamma, "lgamma_")
    log10_ = inplace(math.log10, "log10_")
    log2_ = inplace(math.log2, "log2_")
    log_ = inplace(math.log, "log_")
    logical_and_ = inplace(logic.logical_and, "logical_and_")
    logical_not_ = inplace(logic.logical_not, "logical_not_")
    logical_or_ = inplace(logic.logical_or, "logical_or_")
    logit_ = inplace(math.logit, "logit_")
    masked_fill_ = inplace(selection.masked_fill, "masked_fill_")
    mod_ = inplace(math.remainder, "mod_")
    multigammaln_ = inplace(composite.multigammaln, "multigammaln_")
    multiply_ = inplace(math.multiply, "multiply_")
    nan_to_num_ = inplace(math_more.nan_to_num, "nan_to_num_")
    neg_ = inplace(math.neg, "neg_")
    polygamma_ = inplace(math_more.polygamma, "polygamma_")
    pow_ = inplace(math.pow, "pow_")
    remainder_ = inplace(math.remainder, "remainder_")
    renorm_ = inplace(own_ops.renorm, "renorm_")
    sin_ = inplace(math.sin, "sin_")
    sinh_ = inplace(math.sinh, "sinh_")
    square_ = inplace(math.square, "square_")
    t_ = inplace(linalg.t, "t_")
    tan_ = inplace(math.tan, "tan_")
    tanh_ = inplace(math.tanh, "tanh_")
    transpose_ = inplace(manipulation.transpose, "transpose_")
    tril_ = inplace(creation.tril, "tril_")
    triu_ = inplace(creation.triu, "triu_")
    trunc_ = inplace(math.trunc, "trunc_")
    where_ = inplace(search.where, "where_")

register_tensor_methods(FUNCTIONS)
