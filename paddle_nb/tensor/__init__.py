"""PaddlePaddle 2.x's tensor functions (``paddle.add``, ``paddle.reshape``, ...), static mode.

Each family lives in its own module and lists its names in its ``__all__``; they are
imported here one block per module, and ``paddle_nb`` re-exports ``__all__`` at its top
level, as ``paddle`` does.
"""

from __future__ import annotations

from paddle_nb.tensor import (
    attribute, creation, linalg, logic, manipulation, math, search, stat,
)
from paddle_nb.tensor import random

# -- attribute -----------------------------------------------------------------------------
from paddle_nb.tensor.attribute import (  # noqa: F401
    shape, numel, rank, is_tensor, is_floating_point, is_integer, is_complex,
)

# -- creation ------------------------------------------------------------------------------
from paddle_nb.tensor.creation import (  # noqa: F401
    full, zeros, ones, empty, full_like, zeros_like, ones_like, empty_like, arange,
    linspace, eye, meshgrid, diag, diagflat, tril, triu, to_tensor, assign, clone,
    tril_indices, triu_indices, logspace,
)

# -- linalg --------------------------------------------------------------------------------
from paddle_nb.tensor.linalg import (  # noqa: E402
    bmm, cholesky, cross, diag_embed, dist, dot, einsum, inner, inverse, kron, matmul, mm, mv,
    norm, outer, t, trace,
)

# -- logic ---------------------------------------------------------------------------------
from paddle_nb.tensor.logic import (  # noqa: F401 (re-exported)
    allclose, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal, equal_all,
    greater_equal, greater_than, is_empty, isclose, isfinite, isinf, isnan, less_equal,
    less_than, logical_and, logical_not, logical_or, logical_xor, not_equal,
)

# -- manipulation --------------------------------------------------------------------------
from paddle_nb.tensor.manipulation import (  # noqa: F401
    reshape, transpose, concat, stack, split, chunk, unbind, unstack, squeeze,
    unsqueeze, flatten, flip, rot90, roll, tile, expand, expand_as, broadcast_to,
    broadcast_tensors, slice, strided_slice, cast, crop, repeat_interleave, unique,
    unique_consecutive, moveaxis, gather, gather_nd, index_select, index_add, scatter,
    scatter_nd_add, take_along_axis, put_along_axis, masked_fill, shard_index,
    index_put, scatter_nd, index_fill, take, scatter_, diagonal,
)
from paddle_nb.tensor.manipulation import (  # noqa: F401
    reverse, vsplit, unflatten, atleast_1d, atleast_2d, atleast_3d, broadcast_shape,
    reshape_, squeeze_, unsqueeze_, view, view_as, as_strided, unfold,
)
from paddle_nb.tensor import indexing  # noqa: F401  (registers x[...] and x[...] = v)

# -- math ----------------------------------------------------------------------------------
from paddle_nb.tensor.math import (  # noqa: F401 (re-exported)
    abs, acos, acosh, add, add_n, all, amax, amin, any, asin, asinh, atan, atan2, atanh,
    ceil, clip, cos, cosh, count_nonzero, cummax, cummin, cumprod, cumsum, deg2rad,
    diff, digamma, divide, erf, erfinv, exp, expm1, floor, floor_divide, floor_mod,
    fmax, fmin, frac, heaviside, i0, i0e, i1, i1e, increment, lerp, lgamma, log, log10,
    log1p, log2, logaddexp, logcumsumexp, logit, logsumexp, max, maximum, min, minimum,
    mod, multiplex, multiply, nan_to_num, nanmean, nansum, neg, nextafter, polygamma,
    pow, prod, rad2deg, reciprocal, remainder, round, rsqrt, scale, sgn, sign, sin,
    sinh, sqrt, square, stanh, subtract, sum, tan, tanh, trunc,
)

# -- search --------------------------------------------------------------------------------
from paddle_nb.tensor.search import (  # noqa: F401
    argmax, argmin, argsort, sort, topk, where, nonzero, masked_select, index_sample,
    kthvalue, mode, searchsorted, bucketize, bincount, histogram,
)

# -- random --------------------------------------------------------------------------------
from paddle_nb.tensor.random import (  # noqa: F401
    bernoulli, cauchy_, exponential_, geometric_, multinomial, normal, normal_, poisson, rand,
    randint, randint_like, randn, randperm, standard_normal, uniform,
)

# -- stat ----------------------------------------------------------------------------------
from paddle_nb.tensor.stat import (  # noqa: F401 (re-exported)
    mean, median, nanmedian, std, var,
)
from paddle_nb.tensor import quantiles  # noqa: E402
from paddle_nb.tensor.quantiles import quantile, nanquantile  # noqa: E402,F401

# -- functions built from other functions (hypot, cdist, tensordot, ...) ----------------------
from paddle_nb.tensor import composite  # noqa: E402
from paddle_nb.tensor.composite import (  # noqa: E402,F401
    hypot, ldexp, cdist, tensordot, multigammaln, trapezoid, cumulative_trapezoid,
    combinations, vander, frexp,
)

# -- gcd and lcm (Euclid's algorithm in a while loop) -------------------------------------------
from paddle_nb.tensor import euclid  # noqa: E402
from paddle_nb.tensor.euclid import gcd, lcm, lcm_  # noqa: E402,F401

# -- functions with an op of their own (addmm, renorm, diagonal_scatter, select_scatter) --------
from paddle_nb.tensor import own_ops  # noqa: E402
from paddle_nb.tensor.own_ops import (  # noqa: E402,F401
    addmm, renorm, diagonal_scatter, select_scatter,
)

# -- dtype limits, grad mode, Tensor (no ops) -------------------------------------------------
from paddle_nb.tensor import dtype_info, grad_mode  # noqa: E402
from paddle_nb.tensor.dtype_info import finfo, iinfo, dtype  # noqa: E402,F401
from paddle_nb.tensor.grad_mode import (  # noqa: E402,F401
    set_grad_enabled, enable_grad, is_grad_enabled, Tensor, check_shape,
)

# -- paddle.summary (a table of a network's layers) -------------------------------------------
from paddle_nb.tensor import model_summary  # noqa: E402
from paddle_nb.tensor.model_summary import summary, flops  # noqa: E402,F401

# -- in-place forms (abs_, cast_, ...: the out-of-place op in a static program) -------------
from paddle_nb.tensor import inplace  # noqa: E402
from paddle_nb.tensor.inplace import *  # noqa: E402,F401,F403  (its names are made from a list)
from typing import TYPE_CHECKING  # noqa: E402

if TYPE_CHECKING:   # the names inplace's star import brings, as a type checker reads them
    from paddle_nb.tensor.inplace import (  # noqa: F401
        abs_, acos_, addmm_, atan_, bitwise_and_, bitwise_not_, bitwise_or_, bitwise_xor_, cast_,
        cos_, cumprod_, cumsum_, digamma_, divide_, equal_, erf_, expm1_, floor_divide_, floor_mod_,
        frac_, gcd_, greater_equal_, greater_than_, hypot_, i0_, index_add_, index_fill_,
        index_put_, ldexp_, less_equal_, less_than_, lgamma_, log10_, log2_, log_, logical_and_,
        logical_not_, logical_or_, logit_, masked_fill_, mod_, multigammaln_, multiply_,
        nan_to_num_, neg_, polygamma_, pow_, remainder_, renorm_, sin_, sinh_, square_, t_, tan_,
        tanh_, transpose_, tril_, triu_, trunc_, where_,
    )

__all__: list[str] = [*attribute.__all__, *creation.__all__, *linalg.__all__, *logic.__all__,
           *manipulation.__all__, *math.__all__, *search.__all__, *stat.__all__,
           *random.__all__, *composite.__all__, *euclid.__all__, *quantiles.__all__,
           *own_ops.__all__, *dtype_info.__all__, *grad_mode.__all__, *model_summary.__all__,
           *inplace.__all__]
