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

# -- creation ------------------------------------------------------------------------------

# -- linalg --------------------------------------------------------------------------------
from paddle_nb.tensor.linalg import (  # noqa: E402
    bmm, cholesky, cross, diag_embed, dist, dot, einsum, inner, inverse, kron, matmul, mm, mv,
    norm, outer, t, trace,
)

# -- logic ---------------------------------------------------------------------------------

# -- manipulation --------------------------------------------------------------------------

# -- math ----------------------------------------------------------------------------------

# -- search --------------------------------------------------------------------------------

# -- random --------------------------------------------------------------------------------
from paddle_nb.tensor.random import (  # noqa: F401
    bernoulli, cauchy_, exponential_, geometric_, multinomial, normal, normal_, poisson, rand,
    randint, randint_like, randn, randperm, standard_normal, uniform,
)

# -- stat ----------------------------------------------------------------------------------

__all__ = [*attribute.__all__, *creation.__all__, *linalg.__all__, *logic.__all__,
           *manipulation.__all__, *math.__all__, *search.__all__, *stat.__all__,
           *random.__all__]
