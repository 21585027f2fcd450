"""Padding and resampling layers of paddle.nn: Pad1D/2D/3D, ZeroPad2D, Upsample,
UpsamplingNearest2D/Bilinear2D, PixelShuffle/Unshuffle, ChannelShuffle, Unfold, Fold.

None has parameters: each keeps its arguments and calls the matching function of
``paddle_nb.nn.functional.sampling`` in ``forward``, which appends 2.6's op.
"""

from __future__ import annotations

from paddle_nb.nn.functional import sampling as S
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["Pad1D", "Pad2D", "Pad3D", "ZeroPad2D", "Upsample", "UpsamplingNearest2D",
           "UpsamplingBilinear2D", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
           "Unfold", "Fold"]


class _PadNd(Layer):
    dims = 1

    def __init__(self, padding: int | Sequence[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCL", name: str | None = None) -> None:
        super().__init__()
        self._pad = [padding] * (2 * self.dims) if isinstance(padding, int) else padding
        self._mode, self._value, self._data_format = mode, value, data_format

    def forward(self, x: Tensor) -> Tensor:
        return S.pad(x, self._pad, mode=self._mode, value=self._value,
                     data_format=self._data_format)

    def extra_repr(self) -> Any:
        return f"padding={self._pad}, mode={self._mode}, value={self._value}"


class Pad1D(_PadNd):
    """x [N, C, L] padded by [left, right] (constant, reflect, replicate or circular)."""
    dims = 1

    def __init__(self, padding: Sequence[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCL", name: str | None = None) -> None:
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadNd):
    """x [N, C, H, W] padded by [left, right, top, bottom]."""
    dims = 2

    def __init__(self, padding: Sequence[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(padding, mode, value, data_format)


class Pad3D(_PadNd):
    """x [N, C, D, H, W] padded by [left, right, top, bottom, front, back]."""
    dims = 3

    def __init__(self, padding: int, mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__(padding, mode, value, data_format)


class ZeroPad2D(_PadNd):
    """x [N, C, H, W] padded with zeros by [left, right, top, bottom]."""
    dims = 2

    def __init__(self, padding: int | Sequence[int], data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format)


class Upsample(Layer):
    """x resized by ``F.interpolate`` (nearest, linear, bilinear, bicubic, trilinear, area)."""

    def __init__(self, size: Sequence[int] | None = None,
                 scale_factor: int | Sequence[float] | None = None, mode: str = "nearest",
                 align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        return S.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format)

    def extra_repr(self) -> Any:
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class UpsamplingNearest2D(Upsample):
    """x [N, C, H, W] resized by picking the nearest pixel."""

    def __init__(self, size: Any = None, scale_factor: int | Sequence[float] | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size, scale_factor, "nearest", False, 0, data_format)


class UpsamplingBilinear2D(Upsample):
    """x [N, C, H, W] resized bilinearly with the corners aligned."""

    def __init__(self, size: Sequence[int] | None = None, scale_factor: int | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format)


class PixelShuffle(Layer):
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r]."""

    def __init__(self, upscale_factor: int, data_format: str = "NCHW", name: str | None = None
                ) -> None:
        super().__init__()
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x: Tensor) -> Tensor:
        return S.pixel_shuffle(x, self._upscale_factor, self._data_format)


class PixelUnshuffle(Layer):
    """[N, C, H * r, W * r] -> [N, C * r * r, H, W]."""

    def __init__(self, downscale_factor: int, data_format: str = "NCHW", name: str | None = None
                ) -> None:
        super().__init__()
        self._downscale_factor, self._data_format = downscale_factor, data_format

    def forward(self, x: Tensor) -> Tensor:
        return S.pixel_unshuffle(x, self._downscale_factor, self._data_format)


class ChannelShuffle(Layer):
    """The channels read as a (groups, C / groups) grid and written transposed."""

    def __init__(self, groups: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x: Tensor) -> Tensor:
        return S.channel_shuffle(x, self._groups, self._data_format)


class Unfold(Layer):
    """Every block of x [N, C, H, W] as a column: [N, C * kh * kw, L]."""

    def __init__(self, kernel_sizes: int, dilations: int = 1, paddings: int = 0, strides: int = 1,
                 name: str | None = None) -> None:
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides = paddings, strides

    def forward(self, x: Tensor) -> Tensor:
        return S.unfold(x, self.kernel_sizes, self.strides, self.paddings, self.dilations)


class Fold(Layer):
    """The columns of x [N, C * kh * kw, L] added back into [N, C, H, W]."""

    def __init__(self, output_sizes: Sequence[int], kernel_sizes: int, dilations: int = 1,
                 paddings: int = 0, strides: int = 1, name: str | None = None) -> None:
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, x: Tensor) -> Tensor:
        return S.fold(x, self.output_sizes, self.kernel_sizes, self.strides, self.paddings,
                      self.dilations)
