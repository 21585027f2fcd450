"""``paddle.nn.functional`` in static mode: functions that append ops and return Variables.

Each family lives in its own module and lists its names in its ``__all__``; they are
imported here one block per module, and ``__all__`` is their union.
"""

from paddle_nb.nn.functional import (
    activation, common, conv, input, loss, norm, pooling, sampling,
)

# -- activation ----------------------------------------------------------------------------

# -- common --------------------------------------------------------------------------------
from paddle_nb.nn.functional.common import (  # noqa: E402
    alpha_dropout, bilinear, cosine_similarity, diag_embed, dropout, dropout2d, dropout3d, linear,
    normalize, pairwise_distance, sequence_mask,
)

# -- input ---------------------------------------------------------------------------------
from paddle_nb.nn.functional.input import embedding, one_hot  # noqa: E402

# -- conv ----------------------------------------------------------------------------------

# -- pooling -------------------------------------------------------------------------------

# -- sampling ------------------------------------------------------------------------------

# -- norm ----------------------------------------------------------------------------------

# -- loss ----------------------------------------------------------------------------------

__all__ = [*activation.__all__, *common.__all__, *input.__all__, *conv.__all__,
           *pooling.__all__, *sampling.__all__, *norm.__all__, *loss.__all__]
