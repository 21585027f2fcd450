"""``paddle.nn`` in static mode: Layer classes that build ops when called.

``Layer`` (layer_base.py) holds parameters and sublayers; each family of layers lives in
``paddle_nb/nn/layer/<family>.py``, its functions in ``paddle_nb/nn/functional``. A
PaddlePaddle 2.x static-mode script that uses them builds the same op types and parameter
names as PaddlePaddle 2.6 (docs/api_2x.md).
"""

from paddle_nb.nn import functional
from paddle_nb.nn.layer import (
    activation, common, container, conv, loss, norm, pooling, rnn, sampling, transformer,
)
from paddle_nb.nn.layer_base import Layer

# -- activation ----------------------------------------------------------------------------
from paddle_nb.nn.layer.activation import (  # noqa: F401 (re-exported)
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
    LogSigmoid, LogSoftmax, Maxout, Mish, PReLU, RReLU, ReLU, ReLU6, SELU, SiLU,
    Sigmoid, Silu, Softmax, Softmax2D, Softplus, Softshrink, Softsign, Swish, Tanh,
    Tanhshrink, ThresholdedReLU,
)

# -- common --------------------------------------------------------------------------------

# -- container -----------------------------------------------------------------------------

# -- conv ----------------------------------------------------------------------------------

# -- pooling -------------------------------------------------------------------------------

# -- sampling ------------------------------------------------------------------------------

# -- norm ----------------------------------------------------------------------------------

# -- loss ----------------------------------------------------------------------------------

# -- rnn -----------------------------------------------------------------------------------

# -- transformer ---------------------------------------------------------------------------

# -- clip and initializer ------------------------------------------------------------------

__all__ = ["Layer", "functional",
           *activation.__all__, *common.__all__, *container.__all__, *conv.__all__,
           *pooling.__all__, *sampling.__all__, *norm.__all__, *loss.__all__, *rnn.__all__,
           *transformer.__all__]
