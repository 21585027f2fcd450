"""``paddle.nn`` in static mode: Layer classes that build ops when called.

``Layer`` (layer_base.py) holds parameters and sublayers; each family of layers lives in
``paddle_nb/nn/layer/<family>.py``, its functions in ``paddle_nb/nn/functional``. A
PaddlePaddle 2.x static-mode script that uses them builds the same op types and parameter
names as PaddlePaddle 2.6 (docs/api_2x.md).
"""

from paddle_nb.nn import clip, functional, initializer
from paddle_nb.nn.layer import (
    activation, common, container, conv, loss, norm, pooling, rnn, sampling, transformer,
)
from paddle_nb.nn.layer_base import Layer

# -- activation ----------------------------------------------------------------------------

# -- common --------------------------------------------------------------------------------

# -- container -----------------------------------------------------------------------------

# -- conv ----------------------------------------------------------------------------------

# -- pooling -------------------------------------------------------------------------------

# -- sampling ------------------------------------------------------------------------------

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

# -- transformer ---------------------------------------------------------------------------

# -- clip and initializer ------------------------------------------------------------------
from paddle_nb.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

__all__ = ["Layer", "functional",
           *activation.__all__, *common.__all__, *container.__all__, *conv.__all__,
           *pooling.__all__, *sampling.__all__, *norm.__all__, *loss.__all__, *rnn.__all__,
           *transformer.__all__,
           *clip.__all__, "initializer"]
