"""PaddlePaddle 2.x's tensor functions (``paddle.add``, ``paddle.reshape``, ...), static mode.

Each family lives in its own module and lists its names in its ``__all__``; they are
imported here one block per module, and ``paddle_nb`` re-exports ``__all__`` at its top
level, as ``paddle`` does.
"""

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
    reshape_, squeeze_, unsqueeze_, view, view_as, as_strided,
)
from paddle_nb.tensor import indexing  # noqa: F401  (registers x[...] and x[...] = v)

# -- math ----------------------------------------------------------------------------------

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

__all__ = [*attribute.__all__, *creation.__all__, *linalg.__all__, *logic.__all__,
           *manipulation.__all__, *math.__all__, *search.__all__, *stat.__all__,
           *random.__all__]
