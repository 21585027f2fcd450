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

import functools
import warnings

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor import (
    composite, creation, linalg, logic, manipulation, math, own_ops, quantiles, search, stat,
)
from paddle_nb.tensor import euclid

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


def inplace(function, name):
    """``name`` (an in-place name): warns as PaddlePaddle 2.6 does in a static program and
    builds what ``function`` (the out-of-place form) builds; same signature and docs."""
    @functools.wraps(function)
    def static_inplace(*args, **kwargs):
        warnings.warn(f"In static graph mode, {name}() is the same as {function.__name__}() "
                      "and does not perform inplace operation.", stacklevel=2)
        return function(*args, **kwargs)
    static_inplace.__name__ = static_inplace.__qualname__ = name
    static_inplace.__doc__ = (f"``paddle.{function.__name__}``; in a static program it does "
                              f"not work in place (PaddlePaddle 2.6 neither).\n\n"
                              + (function.__doc__ or ""))
    return static_inplace


def _out_of_place(name):
    for family in (math, logic, manipulation, creation, linalg, search, stat, composite,
                   own_ops, euclid, quantiles):
        if name in family.__all__:
            return getattr(family, name)
    return None


FUNCTIONS = {n: inplace(_out_of_place(n[:-1]), n) for n in NAMES if _out_of_place(n[:-1])}
globals().update(FUNCTIONS)
__all__ = sorted(FUNCTIONS)

register_tensor_methods(FUNCTIONS)
