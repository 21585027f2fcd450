"""``paddle.nn.functional`` in static mode: functions that append ops and return Variables.

Each family lives in its own module and lists its names in its ``__all__``; they are
imported here one block per module, and ``__all__`` is their union.
"""

from __future__ import annotations

from paddle_nb.nn.functional import (
    activation, common, conv, input, loss, norm, pooling, sampling,
)

# -- activation ----------------------------------------------------------------------------
from paddle_nb.nn.functional.activation import (  # noqa: F401 (re-exported)
    celu, elu, elu_, gelu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish,
    hardtanh, leaky_relu, log_sigmoid, log_softmax, maxout, mish, prelu, relu, relu6,
    relu_, rrelu, selu, sigmoid, silu, softmax, softmax_, softplus, softshrink,
    softsign, swish, tanh, tanh_, tanhshrink, thresholded_relu, hardtanh_, leaky_relu_,
    thresholded_relu_,
)

# -- common --------------------------------------------------------------------------------
from paddle_nb.nn.functional.common import (  # noqa: E402
    alpha_dropout, bilinear, cosine_similarity, diag_embed, dropout, dropout2d, dropout3d, linear,
    normalize, pairwise_distance, sequence_mask,
)

# -- input ---------------------------------------------------------------------------------
from paddle_nb.nn.functional.input import embedding, one_hot  # noqa: E402

# -- conv ----------------------------------------------------------------------------------
from paddle_nb.nn.functional.conv import (  # noqa: E402
    conv1d, conv1d_transpose, conv2d, conv2d_transpose, conv3d, conv3d_transpose,
)

# -- pooling -------------------------------------------------------------------------------
from paddle_nb.nn.functional.pooling import (  # noqa: E402
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d,
    max_pool2d, max_pool3d, max_unpool1d, max_unpool2d, max_unpool3d,
)

# -- sampling ------------------------------------------------------------------------------
from paddle_nb.nn.functional.sampling import (  # noqa: E402
    affine_grid, channel_shuffle, fold, grid_sample, interpolate, pad, pixel_shuffle,
    pixel_unshuffle, temporal_shift, unfold, upsample, zeropad2d,
)

# -- norm ----------------------------------------------------------------------------------
from paddle_nb.nn.functional.norm import (  # noqa: F401
    batch_norm, layer_norm, instance_norm, local_response_norm,
)

# -- loss ----------------------------------------------------------------------------------
from paddle_nb.nn.functional.loss import (  # noqa: F401
    cross_entropy, softmax_with_cross_entropy, label_smooth, mse_loss, l1_loss,
    smooth_l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits, nll_loss,
    kl_div, margin_ranking_loss, log_loss, square_error_cost, hinge_embedding_loss,
    cosine_embedding_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
    soft_margin_loss, multi_label_soft_margin_loss, sigmoid_focal_loss, dice_loss,
    poisson_nll_loss, gaussian_nll_loss, ctc_loss, multi_margin_loss, npair_loss,
    hsigmoid_loss, margin_cross_entropy, rnnt_loss, edit_distance,
)

__all__ = [*activation.__all__, *common.__all__, *input.__all__, *conv.__all__,
           *pooling.__all__, *sampling.__all__, *norm.__all__, *loss.__all__]
