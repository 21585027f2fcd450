"""Resampling in paddle.nn.functional: pad, interpolate/upsample, unfold/fold, grid_sample,
affine_grid, pixel_shuffle/unshuffle, channel_shuffle (static mode).

Each function appends the op PaddlePaddle 2.6 appends. ``pad`` writes ``pad`` for a constant
border given for every axis, else ``pad3d`` (a 3-D or 4-D tensor unsqueezed to 5-D first,
squeezed after, as 2.6 builds it). ``interpolate`` writes ``<mode>_interp_v2`` with
data_layout "NCHW" or "NHWC" for every rank, the size either in out_d / out_h / out_w, in
``scale``, or in tensors (``OutSize``, a ``SizeTensor`` list, ``Scale``); mode "area" is an
adaptive average pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paddle_nb.framework.variable import Variable
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.functional.conv import to_list
from paddle_nb.nn.functional.pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d,
                                             adaptive_avg_pool3d)
from paddle_nb.nn.functional.vision_steps import squeeze, unsqueeze
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paddle_nb.framework.variable import Tensor

__all__ = ["pad", "zeropad2d", "interpolate", "upsample", "unfold", "fold", "grid_sample",
           "affine_grid", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "temporal_shift"]


def _one(op_type: str, inputs: Any, attrs: Any, slot: str = "Out", helper_name: str | None = None
        ) -> Tensor:
    """Append ``op_type`` through a helper named after it (or ``helper_name``)."""
    return layer_helper(helper_name or op_type).out(op_type, inputs, attrs, slot=slot)


# ---- pad ----

CHANNEL_FIRST = ("NCL", "NCHW", "NCDHW")
PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad(x: Tensor, pad: Sequence[int], mode: str = "constant", value: float = 0.0,
        data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """x padded by ``pad``: [before, after] pairs from the last spatial axis out
    ([left, right, top, bottom, front, back]), or, in constant mode, pairs for every axis
    in order."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(f"mode should be one of constant, reflect, replicate, circular, but "
                         f"got {mode}")
    if isinstance(pad, Variable):
        raise NotImplementedError("pad: paddings given as a Tensor are not available in "
                                  "paddle_nb; give a list of ints")
    data_format, rank, pad = data_format.upper(), len(x.shape), list(pad)
    if mode == "constant" and len(pad) == 2 * rank:
        return _one("pad", {"X": x}, {"paddings": pad, "pad_value": float(value)})
    if rank not in PAD_FORMATS:
        raise ValueError(f"pad: x must be a 3-, 4- or 5-D tensor, got shape {tuple(x.shape)}")
    if data_format not in PAD_FORMATS[rank]:
        raise ValueError(f"pad: a {rank}-D tensor's data_format must be one of "
                         f"{list(PAD_FORMATS[rank])}, got {data_format}")
    first = data_format in CHANNEL_FIRST
    axes = {3: [3, 4] if first else [2, 3], 4: [2] if first else [1], 5: []}[rank]
    pad = {3: [0, 0, 0, 0] + pad, 4: pad + [0, 0], 5: pad}[rank]
    if len(pad) != 6:
        raise ValueError(f"pad: a {rank}-D tensor takes {2 * (rank - 2)} paddings (or "
                         f"{2 * rank} in constant mode), got {len(pad) - 6 + 2 * (rank - 2)}")
    if axes:
        x = unsqueeze(x, axes)
    out = _one("pad3d", {"X": x}, {"paddings": pad, "mode": mode, "value": float(value),
                                   "data_format": "NCDHW" if first else "NDHWC"})
    return squeeze(out, axes) if axes else out


def zeropad2d(x: Tensor, padding: int | Sequence[int], data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """x [N, C, H, W] padded with zeros by [left, right, top, bottom]."""
    return pad(x, to_list(padding, 4, "padding"), mode="constant", value=0.0,
               data_format=data_format)


# ---- interpolate ----

RANK_OF = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,),
           "nearest": (4, 5), "area": (3, 4, 5)}
INTERP_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _size_tensors(helper: Any, size: Any) -> Any:
    """2.6's SizeTensor: each Variable of ``size`` as it is, each int in a ``fill_constant``
    ([1], int32, on the CPU) written into the resize's helper's first temporaries."""
    tensors = []
    for dim in size:
        if isinstance(dim, Variable):
            tensors.append(dim)
            continue
        name = helper.tmp_name()
        helper.append("fill_constant", {}, {"Out": name},
                      {"shape": [1], "dtype": "int32", "value": float(dim),
                       "str_value": str(dim), "force_cpu": True})
        tensors.append(helper.block.var(name))
    return tensors


def _interp_sizes(helper: Any, size: Any, scale_factor: Any, n: int, inputs: Any, attrs: Any
                 ) -> None:
    """Fill the size attributes (or the OutSize / SizeTensor / Scale inputs) as 2.6 does."""
    if size is not None and scale_factor is not None:
        raise ValueError("Only one of size or scale_factor should be defined.")
    names = ("out_d", "out_h", "out_w")[3 - n:]
    if isinstance(size, Variable):       # 2.6 casts it to int32 first, whatever it was
        inputs["OutSize"] = layer_helper("cast").out(
            "cast", {"X": size}, {"in_dtype": size.dtype, "out_dtype": "int32"})
    elif size is not None:
        size = list(size)
        if len(size) != n or not all(isinstance(s, Variable) or (isinstance(s, int) and s > 0)
                                     for s in size):
            raise ValueError(f"size needs {n} positive ints or Tensors (or one Tensor), got "
                             f"{size}")
        if any(isinstance(s, Variable) for s in size):
            inputs["SizeTensor"] = _size_tensors(helper, size)
        attrs.update(zip(names, (-1 if isinstance(s, Variable) else s for s in size)))
    elif isinstance(scale_factor, Variable):
        inputs["Scale"] = scale_factor
    else:
        scales = [scale_factor] * n if isinstance(scale_factor, (int, float)) else \
            list(scale_factor)
        if len(scales) != n or min(scales) <= 0:
            raise ValueError(f"scale_factor needs {n} positive values, got {scale_factor}")
        attrs["scale"] = [float(s) for s in scales]


def interpolate(x: Tensor, size: Tensor | Sequence[Tensor | int] | None = None,
                scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
                name: str | None = None) -> Tensor:
    """x resized to ``size`` or by ``scale_factor``: nearest, linear (3-D), bilinear or
    bicubic (4-D), trilinear (5-D), or area (an adaptive average pool)."""
    method, rank, data_format = mode.lower(), len(x.shape), data_format.upper()
    if method not in RANK_OF:
        raise ValueError(f"interpolate: mode must be one of {list(RANK_OF)}, got '{mode}'")
    if rank not in RANK_OF[method]:
        raise ValueError(f"interpolate: mode '{method}' takes a "
                         f"{' or '.join(f'{r}-D' for r in RANK_OF[method])} tensor, got shape "
                         f"{tuple(x.shape)}")
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if method == "nearest" and align_corners:
        raise ValueError("align_corners can only be set with the interpolating modes: linear "
                         "| bilinear | bicubic | trilinear")
    if align_mode not in (0, 1):
        raise ValueError("align_mode can only be 0 or 1")
    if method == "area":
        pools: dict[int, Callable[..., Any]] = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d,
                                                5: adaptive_avg_pool3d}
        return pools[rank](x, size)
    if data_format not in INTERP_FORMATS[rank]:
        raise ValueError(f"interpolate: a {rank}-D tensor's data_format must be one of "
                         f"{list(INTERP_FORMATS[rank])}, got {data_format}")
    inputs = {"X": x}
    attrs = {"out_d": -1, "out_h": -1, "out_w": -1, "interp_method": method,
             "align_corners": align_corners, "align_mode": align_mode,
             "data_layout": "NCHW" if data_format in ("NCW", "NCHW", "NCDHW") else "NHWC"}
    op_type = f"{method}_interp_v2"
    helper = layer_helper(op_type)
    _interp_sizes(helper, size, scale_factor, rank - 2, inputs, attrs)
    return helper.out(op_type, inputs, attrs)


def upsample(x: Tensor, size: Any = None, scale_factor: int | None = None, mode: str = "nearest",
             align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
             name: str | None = None) -> Tensor:
    """The same as :func:`interpolate`."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# ---- blocks as columns ----

def _fold_args(kernel_sizes: Any, strides: int, paddings: Any, dilations: int) -> Any:
    pads = [paddings] * 4 if isinstance(paddings, int) else list(paddings)
    if len(pads) == 2:
        pads = pads + pads
    if len(pads) != 4:
        raise ValueError(f"paddings must be an int, 2 or 4 ints, got {paddings!r}")
    return {"kernel_sizes": to_list(kernel_sizes, 2, "kernel_sizes"),
            "strides": to_list(strides, 2, "strides"), "paddings": pads,
            "dilations": to_list(dilations, 2, "dilations")}


def unfold(x: Tensor, kernel_sizes: int | Sequence[int], strides: int = 1,
           paddings: int | Sequence[int] = 0, dilations: int = 1, name: str | None = None
          ) -> Tensor:
    """Every block of x [N, C, H, W] as a column: [N, C * kh * kw, L]; paddings [top, left,
    bottom, right]."""
    return _one("unfold", {"X": x}, _fold_args(kernel_sizes, strides, paddings, dilations),
                slot="Y")


def fold(x: Tensor, output_sizes: Sequence[int], kernel_sizes: int, strides: int = 1,
         paddings: int | Sequence[int] = 0, dilations: int = 1, name: str | None = None) -> Tensor:
    """The columns of x [N, C * kh * kw, L] added back into [N, C, H, W] (unfold's adjoint)."""
    attrs = {"output_sizes": to_list(output_sizes, 2, "output_sizes"),
             **_fold_args(kernel_sizes, strides, paddings, dilations)}
    return _one("fold", {"X": x}, attrs, slot="Y")


# ---- sampling at points ----

def affine_grid(theta: Tensor, out_shape: Tensor | Sequence[int], align_corners: bool = True,
                name: str | None = None) -> Tensor:
    """The sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps theta."""
    inputs: dict[str, Any] = {"Theta": theta}
    attrs: dict[str, Any] = {"align_corners": align_corners}
    if isinstance(out_shape, Variable):
        inputs["OutputShape"] = out_shape
    else:
        attrs["output_shape"] = [int(v) for v in out_shape]
    return _one("affine_grid", inputs, attrs, slot="Output")


def grid_sample(x: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: str | None = None) -> Tensor:
    """x [N, C, H, W] read at the points of grid [N, Ho, Wo, 2] (x, y in [-1, 1]), or a
    volume [N, C, D, H, W] at grid [N, Do, Ho, Wo, 3]."""
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or "
                         f"'reflection', got '{padding_mode}'")
    return _one("grid_sampler", {"X": x, "Grid": grid},
                {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners},
                slot="Output", helper_name="grid_sample")


# ---- rearranging ----

def _format(data_format: str, what: str) -> str:
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{what}: data_format must be 'NCHW' or 'NHWC', got '{data_format}'")
    return data_format


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str = "NCHW", name: str | None = None
                 ) -> Tensor:
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r]."""
    return _one("pixel_shuffle", {"X": x}, {"upscale_factor": upscale_factor,
                                            "data_format": _format(data_format,
                                                                   "pixel_shuffle")})


def pixel_unshuffle(x: Tensor, downscale_factor: int, data_format: str = "NCHW",
                    name: str | None = None) -> Tensor:
    """[N, C, H * r, W * r] -> [N, C * r * r, H, W]."""
    return _one("pixel_unshuffle", {"X": x}, {"downscale_factor": downscale_factor,
                                              "data_format": _format(data_format,
                                                                     "pixel_unshuffle")})


def channel_shuffle(x: Tensor, groups: int, data_format: str = "NCHW", name: str | None = None
                   ) -> Tensor:
    """The channels read as a (groups, C / groups) grid and written transposed."""
    return _one("channel_shuffle", {"X": x}, {"groups": groups,
                                              "data_format": _format(data_format,
                                                                     "channel_shuffle")})


def temporal_shift(x: Tensor, seg_num: int, shift_ratio: float = 0.25, name: str | None = None,
                   data_format: str = "NCHW") -> Tensor:
    """x [N * seg_num, C, H, W] with C * shift_ratio channels shifted one segment back in
    time and as many forward (TSM)."""
    return _one("temporal_shift", {"X": x}, {"seg_num": seg_num, "shift_ratio": shift_ratio,
                                             "data_format": _format(data_format,
                                                                    "temporal_shift")})
