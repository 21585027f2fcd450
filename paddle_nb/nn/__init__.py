"""``paddle.nn`` in static mode: Layer classes that build ops when called.

``Layer`` (layer_base.py) holds parameters and sublayers; each family of layers lives in
``paddle_nb/nn/layer/<family>.py``, its functions in ``paddle_nb/nn/functional``. A
PaddlePaddle 2.x static-mode script that uses them builds the same op types and parameter
names as PaddlePaddle 2.6 (docs/api_2x.md).
"""

from __future__ import annotations

from paddle_nb.nn import clip, functional, initializer
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
from paddle_nb.nn.layer.common import (  # noqa: E402
    AlphaDropout, Bilinear, CosineSimilarity, Dropout, Dropout2D, Dropout3D, Embedding, Flatten,
    Identity, Linear, PairwiseDistance, Unflatten,
)

# -- container -----------------------------------------------------------------------------
from paddle_nb.nn.layer.container import LayerDict, LayerList, ParameterList, Sequential  # noqa: E402

# -- conv ----------------------------------------------------------------------------------
from paddle_nb.nn.layer.conv import (  # noqa: E402
    Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose,
)

# -- pooling -------------------------------------------------------------------------------
from paddle_nb.nn.layer.pooling import (  # noqa: E402
    AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool1D,
    AdaptiveMaxPool2D, AdaptiveMaxPool3D, AvgPool1D, AvgPool2D, AvgPool3D, MaxPool1D,
    MaxPool2D, MaxPool3D, MaxUnPool1D, MaxUnPool2D, MaxUnPool3D,
)

# -- sampling ------------------------------------------------------------------------------
from paddle_nb.nn.layer.sampling import (  # noqa: E402
    ChannelShuffle, Fold, Pad1D, Pad2D, Pad3D, PixelShuffle, PixelUnshuffle, Unfold, Upsample,
    UpsamplingBilinear2D, UpsamplingNearest2D, ZeroPad2D,
)

# -- norm ----------------------------------------------------------------------------------
from paddle_nb.nn.layer.norm import (  # noqa: F401
    BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, SyncBatchNorm, LayerNorm,
    GroupNorm, InstanceNorm1D, InstanceNorm2D, InstanceNorm3D, LocalResponseNorm, SpectralNorm,
)

# -- loss ----------------------------------------------------------------------------------
from paddle_nb.nn.layer.loss import (  # noqa: F401
    CrossEntropyLoss, MSELoss, L1Loss, SmoothL1Loss, BCELoss, BCEWithLogitsLoss,
    NLLLoss, KLDivLoss, MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss,
    TripletMarginLoss, TripletMarginWithDistanceLoss, SoftMarginLoss,
    MultiLabelSoftMarginLoss, PoissonNLLLoss, GaussianNLLLoss, CTCLoss, MultiMarginLoss,
    HSigmoidLoss, RNNTLoss,
)

# -- rnn -----------------------------------------------------------------------------------
from paddle_nb.nn.layer.rnn import (  # noqa: E402
    GRU, LSTM, RNN, BiRNN, GRUCell, LSTMCell, RNNCellBase, SimpleRNN, SimpleRNNCell,
)

# -- transformer ---------------------------------------------------------------------------
from paddle_nb.nn.layer.transformer import (  # noqa: E402
    MultiHeadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
    TransformerEncoder, TransformerEncoderLayer,
)

# -- clip and initializer ------------------------------------------------------------------
from paddle_nb.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

__all__ = ["Layer", "functional",
           *activation.__all__, *common.__all__, *container.__all__, *conv.__all__,
           *pooling.__all__, *sampling.__all__, *norm.__all__, *loss.__all__, *rnn.__all__,
           *transformer.__all__,
           *clip.__all__, "initializer"]
