"""``paddle.static.nn``: layers with parameters (fc, conv2d, batch_norm, embedding) and
control flow (cond, case, switch_case, while_loop) with PaddlePaddle 2.6's signatures, op
forms and names. The ``sequence_*`` (LoD) layers are not available: each raises a clear
OpBuildError."""

from paddle_nb.static.nn.common import (
    batch_norm, conv2d, embedding, fc, sequence_not_available,
)
from paddle_nb.static.nn.control_flow import case, cond, switch_case, while_loop

_SEQUENCE = ["sequence_conv", "sequence_softmax", "sequence_pool", "sequence_concat",
             "sequence_first_step", "sequence_last_step", "sequence_slice", "sequence_expand",
             "sequence_expand_as", "sequence_pad", "sequence_unpad", "sequence_reshape",
             "sequence_scatter", "sequence_enumerate", "sequence_reverse"]
globals().update({_name: sequence_not_available(_name) for _name in _SEQUENCE})

__all__ = ["fc", "conv2d", "batch_norm", "embedding", "cond", "case", "switch_case",
           "while_loop", *_SEQUENCE]
