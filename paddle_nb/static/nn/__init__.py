"""``paddle.static.nn``: layers with parameters (fc, conv2d, batch_norm, embedding in
``common``; the other convolutions in ``conv``; normalizations, prelu,
bilinear_tensor_product and sparse_embedding in ``norm``; row_conv and spectral_norm in
``sequence``) and control flow (cond, case,
switch_case, while_loop) with PaddlePaddle 2.6's signatures, op forms and names. The
``sequence_*`` (LoD) layers, ``nce`` and ``static_pylayer`` are not available: each raises
a clear OpBuildError. ``py_func`` is ``paddle.static.py_func``."""

from __future__ import annotations

from paddle_nb.static.nn.common import (
    batch_norm, conv2d, embedding, fc, not_available, sequence_not_available,
)
from paddle_nb.static.nn.control_flow import case, cond, switch_case, while_loop
from paddle_nb.static.program import py_func
from paddle_nb.static.nn.conv import conv2d_transpose, conv3d, conv3d_transpose, deform_conv2d
from paddle_nb.static.nn.sequence import row_conv, spectral_norm
from paddle_nb.static.nn.norm import (
    bilinear_tensor_product, data_norm, group_norm, instance_norm, layer_norm, prelu,
    sparse_embedding,
)

_SEQUENCE = ["sequence_conv", "sequence_softmax", "sequence_pool", "sequence_concat",
             "sequence_first_step", "sequence_last_step", "sequence_slice", "sequence_expand",
             "sequence_expand_as", "sequence_pad", "sequence_unpad", "sequence_reshape",
             "sequence_scatter", "sequence_enumerate", "sequence_reverse"]
_UNAVAILABLE = {
    "nce": "noise-contrastive estimation samples over a custom sampler; use a full softmax "
           "(paddle.nn.functional.cross_entropy)",
    "static_pylayer": "a Python-defined forward/backward pair is not part of paddle_nb's "
                      "programs; write the computation with paddle ops (autodiff follows)",
}
globals().update({_name: sequence_not_available(_name) for _name in _SEQUENCE})
globals().update({_name: not_available(_name, _why) for _name, _why in _UNAVAILABLE.items()})

__all__ = ["fc", "conv2d", "batch_norm", "embedding", "cond", "case", "switch_case",
           "while_loop", "conv2d_transpose", "conv3d", "conv3d_transpose", "layer_norm",
           "group_norm", "instance_norm", "prelu", "bilinear_tensor_product", "sparse_embedding",
           "deform_conv2d", "row_conv", "spectral_norm", "data_norm", "py_func",
           *_SEQUENCE, *_UNAVAILABLE]
