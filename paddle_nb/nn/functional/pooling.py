"""Pooling in paddle.nn.functional: max/avg pools 1-D to 3-D, adaptive pools, static mode.

Each function appends the op PaddlePaddle 2.6 appends: ``pool2d`` / ``pool3d`` (max or avg,
fixed or adaptive windows), or ``max_pool2d_with_index`` / ``max_pool3d_with_index`` when
the positions of the maxima are asked for (``return_mask``, and every adaptive max pool).
A 1-D pool is a 2-D one over an unsqueezed height of 1 (unsqueeze2, the pool, squeeze2).
``stride`` defaults to the kernel size; ``padding`` reads as for the convolutions.
"""

from __future__ import annotations

from paddle_nb.framework import unique_name
from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.functional.conv import conv_padding, to_list
from paddle_nb.nn.functional.vision_steps import squeeze, unsqueeze
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "max_unpool1d", "max_unpool2d", "max_unpool3d"]

FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _channel_last(data_format: str, n: int) -> bool:
    if data_format not in FORMATS[n]:
        raise ValueError(f"data_format must be one of {list(FORMATS[n])} for a {n}-D pool, got "
                         f"'{data_format}'")
    return data_format == FORMATS[n][1]


def _check_rank(x: Tensor, rank: int, what: str) -> None:
    if len(x.shape) != rank:
        raise ValueError(f"{what}: x must be a {rank}-D tensor, got shape {tuple(x.shape)}")


def _window(kernel_size: Any, stride: int | None, padding: int | str, n: int, channel_last: bool,
            ceil_mode: bool) -> Any:
    """(ksize, strides, paddings, padding_algorithm) as 2.6 writes them for an n-D pool."""
    ksize = to_list(kernel_size, n, "kernel_size")
    strides = ksize if stride is None else to_list(stride, n, "stride")
    if isinstance(padding, str) and padding.upper() == "VALID" and ceil_mode:
        raise ValueError('When padding is "VALID", ceil_mode must be False')
    paddings, algorithm = conv_padding(padding, channel_last, n)
    return ksize, strides, paddings, algorithm


def _pool(op_type: str, x: Tensor, attrs: Any, mask: bool = False, unused_mask: bool = False
         ) -> Any:
    """Append a pool op through a helper named after it: (out, mask or None).

    ``unused_mask``: declare the int32 ``<helper>.tmp_1`` that 2.6's max_pool1d / max_pool3d
    make for a Mask the pool op does not have (so the programs declare the same variables)."""
    helper = layer_helper(op_type)
    if not mask:
        out = helper.out(op_type, {"X": x}, attrs)
        if unused_mask:
            helper.block.create_var(name=helper.tmp_name(), dtype="int32")
        return out, None
    out_name, where = helper.tmp_name(), helper.tmp_name()
    helper.append(op_type, {"X": x}, {"Out": out_name, "Mask": where}, attrs)
    return as_tensor(helper.block.var(out_name)), as_tensor(helper.block.var(where))


def _pool_attrs(pooling_type: str, ksize: Any, strides: Any, paddings: Any, algorithm: str,
                ceil_mode: bool, exclusive: bool, data_format: str, adaptive: bool = False) -> Any:
    return {"pooling_type": pooling_type, "ksize": ksize, "global_pooling": False,
            "strides": strides, "paddings": paddings, "padding_algorithm": algorithm,
            "use_cudnn": not adaptive, "ceil_mode": ceil_mode, "exclusive": exclusive,
            "data_format": data_format, "adaptive": adaptive}


def _index_attrs(ksize: Any, strides: Any, paddings: Any, adaptive: bool = False) -> Any:
    return {"ksize": ksize, "strides": strides, "paddings": paddings, "global_pooling": False,
            "adaptive": adaptive}


def _low_padding(paddings: Any) -> Any:
    """A 1-D pool's paddings for its 2-D op: nothing added on the unit height."""
    return ([0, 0] if len(paddings) == 2 else [0]) + paddings


# ---- fixed windows ----

def avg_pool1d(x: Tensor, kernel_size: int, stride: int | None = None, padding: int = 0,
               exclusive: bool = True, ceil_mode: bool = False, name: str | None = None) -> Tensor:
    """Mean of each window of x [N, C, L]."""
    _check_rank(x, 3, "avg_pool1d")
    k, s, p, algorithm = _window(kernel_size, stride, padding, 1, False, ceil_mode)
    out, _ = _pool("pool2d", unsqueeze(x, [2]), _pool_attrs(
        "avg", [1] + k, [1] + s, _low_padding(p), algorithm, ceil_mode, exclusive, "NCHW"))
    return squeeze(out, [2])


def _scaled_sum(out: Tensor, ksize: Any, divisor_override: int | None) -> Tensor:
    """2.6's ``divisor_override``: the mean times the window size, over the divisor (two
    ``scale`` ops, as Variable arithmetic with a number writes them)."""
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float)) or divisor_override == 0:
        raise ValueError(f"divisor_override must be a nonzero number, got {divisor_override!r}")
    size = 1
    for k in ksize:
        size *= k
    for factor in (float(size), 1.0 / divisor_override):
        helper = layer_helper("scale", name=unique_name.generate("tmp"))
        helper.append("scale", {"X": out}, {"Out": helper.name},
                      {"scale": factor, "bias": 0.0, "bias_after_scale": True})
        out = as_tensor(helper.block.var(helper.name))
    return out


def _avg_nd(x: Tensor, n: int, kernel_size: Any, stride: Any, padding: Any,
            ceil_mode: bool, exclusive: bool, divisor_override: int | None, data_format: str
           ) -> Tensor:
    op_type = "pool2d" if n == 2 else "pool3d"
    _check_rank(x, n + 2, f"avg_pool{n}d")
    last = _channel_last(data_format, n)
    k, s, p, algorithm = _window(kernel_size, stride, padding, n, last, ceil_mode)
    out, _ = _pool(op_type, x, _pool_attrs("avg", k, s, p, algorithm, ceil_mode, exclusive,
                                           data_format))
    return _scaled_sum(out, k, divisor_override)


def avg_pool2d(x: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | str | Sequence[int] = 0,
               ceil_mode: bool = False, exclusive: bool = True, divisor_override: int | None = None,
               data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Mean of each window of x [N, C, H, W] (or NHWC)."""
    return _avg_nd(x, 2, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                   data_format)


def avg_pool3d(x: Tensor, kernel_size: int | Sequence[int], stride: Any = None, padding: int = 0,
               ceil_mode: bool = False, exclusive: bool = True, divisor_override: Any = None,
               data_format: str = "NCDHW", name: str | None = None) -> Tensor:
    """Mean of each window of x [N, C, D, H, W] (or NDHWC)."""
    return _avg_nd(x, 3, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                   data_format)


def _max_nd(x: Tensor, n: int, kernel_size: int, stride: int | None, padding: int,
            return_mask: bool, ceil_mode: bool, data_format: str) -> Any:
    _check_rank(x, n + 2, f"max_pool{n}d")
    last = _channel_last(data_format, n)
    if return_mask and last:
        raise ValueError(f"max_pool{n}d: return_mask needs a channel-first data_format, got "
                         f"'{data_format}'")
    k, s, p, algorithm = _window(kernel_size, stride, padding, n, last, ceil_mode)
    if return_mask:
        return _pool(f"max_pool{n}d_with_index", x, _index_attrs(k, s, p), mask=True)
    # (exclusive means nothing to a max; 2.6 writes True for pool2d, False for pool3d)
    out, _ = _pool(f"pool{n}d", x, _pool_attrs("max", k, s, p, algorithm, ceil_mode, n == 2,
                                               data_format), unused_mask=n == 3)
    return out


def max_pool1d(x: Tensor, kernel_size: int, stride: int | None = None, padding: int = 0,
               return_mask: bool = False, ceil_mode: bool = False, name: str | None = None
              ) -> Tensor | tuple[Tensor, ...]:
    """Max of each window of x [N, C, L]; with return_mask also where each max was."""
    _check_rank(x, 3, "max_pool1d")
    k, s, p, algorithm = _window(kernel_size, stride, padding, 1, False, ceil_mode)
    k, s, p = [1] + k, [1] + s, _low_padding(p)
    x = unsqueeze(x, [2])
    if return_mask:
        out, mask = _pool("max_pool2d_with_index", x, _index_attrs(k, s, p), mask=True)
        return squeeze(out, [2]), squeeze(mask, [2])
    out, _ = _pool("pool2d", x, _pool_attrs("max", k, s, p, algorithm, ceil_mode, True, "NCHW"),
                   unused_mask=True)
    return squeeze(out, [2])


def max_pool2d(x: Tensor, kernel_size: int, stride: int | None = None, padding: int = 0,
               return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
               name: str | None = None) -> Tensor | tuple[Tensor, ...]:
    """Max of each window of x [N, C, H, W] (or NHWC); with return_mask also where."""
    return _max_nd(x, 2, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x: Tensor, kernel_size: int, stride: int | None = None, padding: int = 0,
               return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCDHW",
               name: str | None = None) -> Tensor | tuple[Tensor, ...]:
    """Max of each window of x [N, C, D, H, W] (or NDHWC); with return_mask also where."""
    return _max_nd(x, 3, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


# ---- adaptive windows ----

def _output_size(output_size: Any, spatial: Any, n: int) -> Any:
    """A list of n sizes; None keeps that axis's input size."""
    sizes = [output_size] * n if isinstance(output_size, int) else list(output_size)
    if len(sizes) != n:
        raise ValueError(f"output_size needs {n} values, got {output_size!r}")
    return [spatial[i] if v is None else v for i, v in enumerate(sizes)]


def adaptive_avg_pool1d(x: Tensor, output_size: int, name: str | None = None) -> Tensor:
    """Mean over output_size windows tiling x [N, C, L]."""
    _check_rank(x, 3, "adaptive_avg_pool1d")
    ksize = [1] + to_list(output_size, 1, "output_size")
    out, _ = _pool("pool2d", unsqueeze(x, [2]), _pool_attrs(
        "avg", ksize, [1, 1], [0, 0], "EXPLICIT", False, True, "NCHW", adaptive=True))
    return squeeze(out, [2])


def _adaptive_avg(x: Tensor, n: int, output_size: Any, data_format: str) -> Tensor:
    _check_rank(x, n + 2, f"adaptive_avg_pool{n}d")
    last = _channel_last(data_format, n)
    spatial = list(x.shape[1:-1] if last else x.shape[2:])
    ksize = _output_size(output_size, spatial, n)
    out, _ = _pool(f"pool{n}d", x, _pool_attrs("avg", ksize, [1] * n, [0] * n, "EXPLICIT",
                                               False, True, data_format, adaptive=True))
    return out


def adaptive_avg_pool2d(x: Tensor, output_size: int | Sequence[int | None],
                        data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Mean over output_size windows tiling x [N, C, H, W] (or NHWC)."""
    return _adaptive_avg(x, 2, output_size, data_format)


def adaptive_avg_pool3d(x: Tensor, output_size: int | Sequence[int], data_format: str = "NCDHW",
                        name: str | None = None) -> Tensor:
    """Mean over output_size windows tiling x [N, C, D, H, W] (or NDHWC)."""
    return _adaptive_avg(x, 3, output_size, data_format)


def adaptive_max_pool1d(x: Tensor, output_size: int | Sequence[int], return_mask: bool = False,
                        name: str | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """Max over output_size windows tiling x [N, C, L] (max_pool2d_with_index)."""
    _check_rank(x, 3, "adaptive_max_pool1d")
    ksize = [1] + to_list(output_size, 1, "output_size")
    out, mask = _pool("max_pool2d_with_index", unsqueeze(x, [2]),
                      _index_attrs(ksize, [1, 1], [0, 0], adaptive=True), mask=True)
    return (squeeze(out, [2]), squeeze(mask, [2])) if return_mask else squeeze(out, [2])


def _adaptive_max(x: Tensor, n: int, output_size: Any, return_mask: bool) -> Any:
    _check_rank(x, n + 2, f"adaptive_max_pool{n}d")
    ksize = _output_size(output_size, list(x.shape[2:]), n)
    out, mask = _pool(f"max_pool{n}d_with_index", x,
                      _index_attrs(ksize, [1] * n, [0] * n, adaptive=True), mask=True)
    return (out, mask) if return_mask else out


def adaptive_max_pool2d(x: Tensor, output_size: int, return_mask: bool = False,
                        name: str | None = None) -> Tensor | tuple[Tensor, ...]:
    """Max over output_size windows tiling x [N, C, H, W]."""
    return _adaptive_max(x, 2, output_size, return_mask)


def adaptive_max_pool3d(x: Tensor, output_size: int | Sequence[int], return_mask: bool = False,
                        name: str | None = None) -> Tensor:
    """Max over output_size windows tiling x [N, C, D, H, W]."""
    return _adaptive_max(x, 3, output_size, return_mask)


# ---- max unpooling ----

def _unpool_size(x: Tensor, ksize: Any, strides: Any, paddings: Any, output_size: Any) -> Any:
    """The output's spatial size: given (checked against the default's stride range), or
    (in - 1) * stride + ksize - 2 * padding."""
    n = len(ksize)
    default = [(x.shape[-n + d] - 1) * strides[d] + ksize[d] - 2 * paddings[d]
               for d in range(n)]
    if output_size is None:
        return default
    sizes = list(output_size)
    sizes = sizes[2:] if len(sizes) == n + 2 else sizes
    if len(sizes) != n:
        raise ValueError(f"output_size should hold {n} or {n + 2} values, got {output_size}")
    for d in range(n):
        if not default[d] - strides[d] < sizes[d] < default[d] + strides[d]:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{default[d] - strides[d]} and {default[d] + strides[d]})")
    return sizes


def _unpool(op_type: str, x: Tensor, indices: Tensor, ksize: Any, strides: Any, paddings: Any,
            output_size: Any, data_format: str | None) -> Tensor:
    attrs = {"ksize": ksize, "strides": strides, "paddings": paddings,
             "output_size": _unpool_size(x, ksize, strides, paddings, output_size)}
    if op_type == "unpool":
        attrs["unpooling_type"] = "max"
    if data_format is not None:
        attrs["data_format"] = data_format
    return layer_helper(op_type).out(op_type, {"X": x, "Indices": indices}, attrs)


def _unpool_window(kernel_size: int, stride: Any, padding: int, n: int) -> Any:
    ksize = to_list(kernel_size, n, "kernel_size")
    strides = ksize if stride is None else to_list(stride, n, "stride")
    return ksize, strides, to_list(padding, n, "padding")


def max_unpool1d(x: Tensor, indices: Tensor, kernel_size: int, stride: Any = None, padding: int = 0,
                 data_format: str = "NCL", output_size: Any = None, name: str | None = None
                ) -> Tensor:
    """max_pool1d undone: each value of x [N, C, L] put back where ``indices`` (its mask)
    says, zeros elsewhere (unsqueeze2, ``unpool``, squeeze2)."""
    if data_format != "NCL":
        raise ValueError(f"max_unpool1d: data_format must be 'NCL', got '{data_format}'")
    k, s, p = _unpool_window(kernel_size, stride, padding, 1)
    out = _unpool("unpool", unsqueeze(x, [2]), unsqueeze(indices, [2]), [1] + k, [1] + s,
                  [0] + p, None if output_size is None else [1] + list(output_size)[-1:],
                  None)
    return squeeze(out, [2])


def max_unpool2d(x: Tensor, indices: Tensor, kernel_size: int, stride: Any = None, padding: int = 0,
                 data_format: str = "NCHW", output_size: Any = None, name: str | None = None
                ) -> Tensor:
    """max_pool2d undone: each value of x [N, C, H, W] put back where ``indices`` says."""
    if data_format != "NCHW":
        raise ValueError(f"max_unpool2d: data_format must be 'NCHW', got '{data_format}'")
    k, s, p = _unpool_window(kernel_size, stride, padding, 2)
    return _unpool("unpool", x, indices, k, s, p, output_size, data_format)


def max_unpool3d(x: Tensor, indices: Any, kernel_size: Any, stride: Any = None, padding: int = 0,
                 data_format: str = "NCDHW", output_size: Any = None, name: str | None = None
                ) -> Any:
    """max_pool3d undone: each value of x [N, C, D, H, W] put back where ``indices`` says."""
    if data_format != "NCDHW":
        raise ValueError(f"max_unpool3d: data_format must be 'NCDHW', got '{data_format}'")
    k, s, p = _unpool_window(kernel_size, stride, padding, 3)
    return _unpool("unpool3d", x, indices, k, s, p, output_size, data_format)
