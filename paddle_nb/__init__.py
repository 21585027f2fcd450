"""paddle_nb: PaddlePaddle's block-and-scope core, in Python, to watch in a notebook.

>>> import paddle_nb as pd
>>> scope = pd.Scope()
>>> t = scope.var("w").get_tensor()
>>> t.is_allocated()
False
"""

from types import ModuleType
from typing import TYPE_CHECKING

from paddle_nb import errors
from paddle_nb import core
from paddle_nb.core import (
    CPUPlace, GPUPlace, LoDTensor, Place, Scope, global_scope, gpu_available, memory_stats,
    scope_guard,
)
from paddle_nb.ops.machinery import registry
from paddle_nb import framework
from paddle_nb.framework import (
    Block, Operator, Parameter, Program, Variable, default_main_program,
    default_startup_program, get_variable, initializer, program_guard,
)
from paddle_nb import executor
from paddle_nb.executor import Executor
from paddle_nb import layers
from paddle_nb.layers import ParamAttr, create_ifelseop, create_rnn, data_layer, fc_layer
from paddle_nb import io
from paddle_nb.backward import append_backward, gradients
from paddle_nb import optimizer, regularizer
from paddle_nb import nn, static, tensor, utils, vision, linalg
from paddle_nb import display_hook

__all__ = [
    "errors", "core", "registry", "framework", "initializer",
    "CPUPlace", "GPUPlace", "Place", "gpu_available", "LoDTensor", "Scope", "global_scope",
    "scope_guard", "memory_stats",
    "Program", "Block", "Operator", "Variable", "Parameter", "default_main_program",
    "default_startup_program", "program_guard", "get_variable",
    "executor", "Executor", "layers", "ParamAttr", "data_layer", "fc_layer", "create_rnn",
    "create_ifelseop",
    "io",
    "append_backward", "gradients",
    "optimizer", "regularizer",
    "nn", "static", "tensor", "utils", "vision", "linalg",
]

# PaddlePaddle 2.x's top level also holds its tensor functions (``paddle.reshape``), its mode,
# device, seed and dtype functions (``paddle.enable_static``, ``paddle.float32``) and its
# tensor-array functions. Each is listed once, in its module's ``__all__``, and none may hide
# a name above.
_TOP_LEVEL = [(tensor, tensor.__all__), (static.mode, static.mode.__all__),
              (static, ["create_array", "array_write", "array_read", "array_length"])]
for _module, _names in _TOP_LEVEL:
    _taken = set(__all__) & set(_names)
    if _taken:
        raise ImportError(f"{_module.__name__} would hide top-level names: {sorted(_taken)}")
    globals().update({_name: getattr(_module, _name) for _name in _names})
    __all__ += _names
del _TOP_LEVEL, _module, _names, _taken

if TYPE_CHECKING:   # the same names, as a type checker reads them (tests/test_lint_config.py
    # checks that the list below is tensor.__all__)
    from paddle_nb.static import array_length, array_read, array_write, create_array
    from paddle_nb.static.mode import *  # noqa: F403
    from paddle_nb.tensor import (  # noqa: F401
        Tensor, abs, abs_, acos, acos_, acosh, add, add_n, addmm, addmm_, all, allclose, amax, amin,
        any, arange, argmax, argmin, argsort, as_strided, asin, asinh, assign, atan, atan2, atan_,
        atanh, atleast_1d, atleast_2d, atleast_3d, bernoulli, bincount, bitwise_and, bitwise_and_,
        bitwise_not, bitwise_not_, bitwise_or, bitwise_or_, bitwise_xor, bitwise_xor_, bmm,
        broadcast_shape, broadcast_tensors, broadcast_to, bucketize, cast, cast_, cauchy_, cdist,
        ceil, check_shape, cholesky, chunk, clip, clone, combinations, concat, cos, cos_, cosh,
        count_nonzero, crop, cross, cummax, cummin, cumprod, cumprod_, cumsum, cumsum_,
        cumulative_trapezoid, deg2rad, diag, diag_embed, diagflat, diagonal, diagonal_scatter, diff,
        digamma, digamma_, dist, divide, divide_, dot, dtype, einsum, empty, empty_like,
        enable_grad, equal, equal_, equal_all, erf, erf_, erfinv, exp, expand, expand_as, expm1,
        expm1_, eye, finfo, flatten, flip, floor, floor_divide, floor_divide_, floor_mod,
        floor_mod_, flops, fmax, fmin, frac, frac_, frexp, full, full_like, gather, gather_nd, gcd,
        gcd_, geometric_, greater_equal, greater_equal_, greater_than, greater_than_, heaviside,
        histogram, hypot, hypot_, i0, i0_, i0e, i1, i1e, iinfo, increment, index_add, index_add_,
        index_fill, index_fill_, index_put, index_put_, index_sample, index_select, inner, inverse,
        is_complex, is_empty, is_floating_point, is_grad_enabled, is_integer, is_tensor, isclose,
        isfinite, isinf, isnan, kron, kthvalue, lcm, lcm_, ldexp, ldexp_, lerp, less_equal,
        less_equal_, less_than, less_than_, lgamma, lgamma_, linspace, log, log10, log10_, log1p,
        log2, log2_, log_, logaddexp, logcumsumexp, logical_and, logical_and_, logical_not,
        logical_not_, logical_or, logical_or_, logical_xor, logit, logit_, logspace, logsumexp,
        masked_fill, masked_fill_, masked_select, matmul, max, maximum, mean, median, meshgrid, min,
        minimum, mm, mod, mod_, mode, moveaxis, multigammaln, multigammaln_, multinomial, multiplex,
        multiply, multiply_, mv, nan_to_num, nan_to_num_, nanmean, nanmedian, nanquantile, nansum,
        neg, neg_, nextafter, nonzero, norm, normal, normal_, not_equal, numel, ones, ones_like,
        outer, poisson, polygamma, polygamma_, pow, pow_, prod, put_along_axis, quantile, rad2deg,
        rand, randint, randint_like, randn, randperm, rank, reciprocal, remainder, remainder_,
        renorm, renorm_, repeat_interleave, reshape, reshape_, reverse, roll, rot90, round, rsqrt,
        scale, scatter, scatter_, scatter_nd, scatter_nd_add, searchsorted, select_scatter,
        set_grad_enabled, sgn, shape, shard_index, sign, sin, sin_, sinh, sinh_, slice, sort, split,
        sqrt, square, square_, squeeze, squeeze_, stack, standard_normal, stanh, std, strided_slice,
        subtract, sum, summary, t, t_, take, take_along_axis, tan, tan_, tanh, tanh_, tensordot,
        tile, to_tensor, topk, trace, transpose, transpose_, trapezoid, tril, tril_, tril_indices,
        triu, triu_, triu_indices, trunc, trunc_, unbind, unflatten, unfold, uniform, unique,
        unique_consecutive, unsqueeze, unsqueeze_, unstack, vander, var, view, view_as, vsplit,
        where, where_, zeros, zeros_like,
    )


def __getattr__(name: str) -> ModuleType:
    """``pd.viz`` loads the viewer on first use: it needs graphviz and IPython, the rest not.

    Importing ``paddle_nb.viz`` also registers its HTML formatters with the running IPython,
    so Programs, Scopes and RunRecords then show themselves (docs/viz.md).
    """
    if name == "viz":
        import importlib
        return importlib.import_module("paddle_nb.viz")
    raise AttributeError(f"module 'paddle_nb' has no attribute {name!r}")


display_hook.install()   # inside IPython: these objects show themselves (the viewer loads on use)
