"""``paddle.static.nn``'s row_conv (lookahead convolution over time) and spectral_norm (a
weight divided by its top singular value), with PaddlePaddle 2.6's ops and names.

row_conv's filter is ``row_conv_N.w_0`` [future_context_size + 1, D] (Xavier). spectral_norm
makes its power-iteration vectors ``spectral_norm_N.w_0`` [h] and ``.w_1`` [w] (N(0, 1), no
gradient), writes ``_generated_var_N``, and first builds 2.6's ``numel(weight) > 0`` check
(``size``, ``fill_constant``, ``greater_than``), whose result nothing reads.
"""

from __future__ import annotations

import math

from paddle_nb.framework.variable import as_tensor
from paddle_nb.errors import OpBuildError
from paddle_nb.framework import unique_name
from paddle_nb.framework.initializer import Normal
from paddle_nb.layers.helper import ParamAttr, layer_helper
from paddle_nb.tensor.attribute import numel
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["row_conv", "spectral_norm"]


def row_conv(input: Tensor, future_context_size: int, param_attr: Any = None, act: str | None = None
            ) -> Tensor:
    """``out[t] = sum_k input[t + k] * W[k]`` for k in 0..future_context_size, per feature;
    ``input`` is [B, T, D] (padded sequences; the LoD [T, D] form is not available)."""
    if len(input.shape) != 3:
        raise OpBuildError(f"row_conv: input must be [B, T, D] (padded sequences; LoD "
                           f"sequences are not available in paddle_nb), got shape "
                           f"{list(input.shape)}")
    helper = layer_helper("row_conv")
    w = helper.param(ParamAttr.of(param_attr), [future_context_size + 1, input.shape[-1]],
                     input.dtype)
    return helper.act(helper.out("row_conv", {"X": input, "Filter": w}), act)


def spectral_norm(weight: Tensor, dim: int = 0, power_iters: int = 1, eps: float = 1e-12,
                  name: str | None = None) -> Tensor:
    """``weight / sigma``, sigma the top singular value of ``weight`` seen as a matrix with
    dimension ``dim`` first (``power_iters`` rounds of power iteration)."""
    rank = len(weight.shape)
    if rank < 2 or not 0 <= dim < rank:
        raise OpBuildError(f"spectral_norm: weight must have 2 or more dimensions and dim in "
                           f"[0, {rank}), got shape {list(weight.shape)} and dim={dim}")
    numel(weight) > 0          # 2.6 builds this check; nothing reads it
    helper = layer_helper("spectral_norm", name)
    h = weight.shape[dim]
    w = math.prod(d for i, d in enumerate(weight.shape) if i != dim)
    u, v = (helper.param(ParamAttr(), [n], weight.dtype, default_initializer=Normal(0.0, 1.0))
            for n in (h, w))
    u.stop_gradient = v.stop_gradient = True
    out = unique_name.generate("_generated_var")
    helper.append("spectral_norm", {"Weight": weight, "U": u, "V": v}, {"Out": out},
                  {"dim": dim, "power_iters": power_iters, "eps": float(eps)})
    return as_tensor(helper.block.var(out))
