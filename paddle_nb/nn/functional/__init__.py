"""``paddle.nn.functional`` in static mode: functions that append ops and return Variables.

Each family lives in its own module and lists its names in its ``__all__``; they are
imported here one block per module, and ``__all__`` is their union.
"""

from paddle_nb.nn.functional import (
    activation, common, conv, input, loss, norm, pooling, sampling,
)

# -- activation ----------------------------------------------------------------------------
from paddle_nb.nn.functional.activation import (  # noqa: F401 (re-exported)
    celu, elu, elu_, gelu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish,
    hardtanh, leaky_relu, log_sigmoid, log_softmax, maxout, mish, prelu, relu, relu6,
    relu_, rrelu, selu, sigmoid, silu, softmax, softmax_, softplus, softshrink,
    softsign, swish, tanh, tanh_, tanhshrink, thresholded_relu,
)

# -- common --------------------------------------------------------------------------------

# -- input ---------------------------------------------------------------------------------

# -- conv ----------------------------------------------------------------------------------

# -- pooling -------------------------------------------------------------------------------

# -- sampling ------------------------------------------------------------------------------

# -- norm ----------------------------------------------------------------------------------

# -- loss ----------------------------------------------------------------------------------

__all__ = [*activation.__all__, *common.__all__, *input.__all__, *conv.__all__,
           *pooling.__all__, *sampling.__all__, *norm.__all__, *loss.__all__]
