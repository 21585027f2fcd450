"""Pooling layers of paddle.nn: Max/Avg/AdaptiveAvg/AdaptiveMaxPool 1D to 3D.

A pooling layer has no parameters: it keeps its arguments and calls the matching
function of ``paddle_nb.nn.functional.pooling`` in ``forward`` (so ``MaxPool2D(2)`` writes
the ``pool2d`` op that ``F.max_pool2d`` writes, named ``pool2d_0.tmp_0``).
"""

from __future__ import annotations

from paddle_nb.nn.functional import pooling as P
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
           "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "MaxUnPool1D", "MaxUnPool2D",
           "MaxUnPool3D"]


class MaxPool1D(Layer):
    """Max of each window of x [N, C, L]."""

    def __init__(self, kernel_size: int, stride: Any = None, padding: int = 0,
                 return_mask: bool = False, ceil_mode: bool = False, name: str | None = None
                ) -> None:
        super().__init__()
        self.ksize: Any = kernel_size
        self.stride: Any = stride
        self.padding: Any = padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode

    def forward(self, x: Tensor) -> Any:
        return P.max_pool1d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode)

    def extra_repr(self) -> Any:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class _MaxPoolNd(Layer):
    def __init__(self, kernel_size: int, stride: int | None, padding: int, return_mask: bool,
                 ceil_mode: bool, data_format: str) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def extra_repr(self) -> Any:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool2D(_MaxPoolNd):
    """Max of each window of x [N, C, H, W] (or NHWC)."""

    def __init__(self, kernel_size: int, stride: int | None = None, padding: int = 0,
                 return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)

    def forward(self, x: Tensor) -> Any:
        return P.max_pool2d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.data_format)


class MaxPool3D(_MaxPoolNd):
    """Max of each window of x [N, C, D, H, W] (or NDHWC)."""

    def __init__(self, kernel_size: int, stride: Any = None, padding: int = 0,
                 return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCDHW",
                 name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)

    def forward(self, x: Tensor) -> Any:
        return P.max_pool3d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.data_format)


class AvgPool1D(Layer):
    """Mean of each window of x [N, C, L]."""

    def __init__(self, kernel_size: int, stride: int | None = None, padding: int = 0,
                 exclusive: bool = True, ceil_mode: bool = False, name: str | None = None) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode = exclusive, ceil_mode

    def forward(self, x: Tensor) -> Any:
        return P.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.exclusive,
                            self.ceil_mode)


class _AvgPoolNd(Layer):
    def __init__(self, kernel_size: int | Sequence[int], stride: int | None, padding: int,
                 ceil_mode: bool, exclusive: bool, divisor_override: int | None, data_format: str
                ) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive = ceil_mode, exclusive
        self.divisor, self.data_format = divisor_override, data_format

    def extra_repr(self) -> Any:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(_AvgPoolNd):
    """Mean of each window of x [N, C, H, W] (or NHWC)."""

    def __init__(self, kernel_size: int, stride: int | None = None, padding: int = 0,
                 ceil_mode: bool = False, exclusive: bool = True,
                 divisor_override: int | None = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format)

    def forward(self, x: Tensor) -> Any:
        return P.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                            self.exclusive, self.divisor, self.data_format)


class AvgPool3D(_AvgPoolNd):
    """Mean of each window of x [N, C, D, H, W] (or NDHWC)."""

    def __init__(self, kernel_size: int | Sequence[int], stride: Any = None, padding: int = 0,
                 ceil_mode: bool = False, exclusive: bool = True, divisor_override: Any = None,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format)

    def forward(self, x: Tensor) -> Any:
        return P.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                            self.exclusive, self.divisor, self.data_format)


class AdaptiveAvgPool1D(Layer):
    """Mean over output_size windows tiling x [N, C, L]."""

    def __init__(self, output_size: Any, name: str | None = None) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, x: Tensor) -> Any:
        return P.adaptive_avg_pool1d(x, self.output_size)

    def extra_repr(self) -> Any:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2D(AdaptiveAvgPool1D):
    """Mean over output_size windows tiling x [N, C, H, W] (or NHWC)."""

    def __init__(self, output_size: int | Sequence[int | None], data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(output_size)
        self.data_format = data_format

    def forward(self, x: Tensor) -> Any:
        return P.adaptive_avg_pool2d(x, self.output_size, self.data_format)


class AdaptiveAvgPool3D(AdaptiveAvgPool1D):
    """Mean over output_size windows tiling x [N, C, D, H, W] (or NDHWC)."""

    def __init__(self, output_size: Any, data_format: str = "NCDHW", name: str | None = None
                ) -> None:
        super().__init__(output_size)
        self.data_format = data_format

    def forward(self, x: Tensor) -> Any:
        return P.adaptive_avg_pool3d(x, self.output_size, self.data_format)


class AdaptiveMaxPool1D(Layer):
    """Max over output_size windows tiling x [N, C, L]."""

    def __init__(self, output_size: Any, return_mask: bool = False,
                 name: str | None = None) -> None:
        super().__init__()
        self.output_size, self.return_mask = output_size, return_mask

    def forward(self, x: Tensor) -> Any:
        return P.adaptive_max_pool1d(x, self.output_size, self.return_mask)

    def extra_repr(self) -> Any:
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


class AdaptiveMaxPool2D(AdaptiveMaxPool1D):
    """Max over output_size windows tiling x [N, C, H, W]."""

    def forward(self, x: Tensor) -> Any:
        return P.adaptive_max_pool2d(x, self.output_size, self.return_mask)


class AdaptiveMaxPool3D(AdaptiveMaxPool1D):
    """Max over output_size windows tiling x [N, C, D, H, W]."""

    def forward(self, x: Tensor) -> Any:
        return P.adaptive_max_pool3d(x, self.output_size, self.return_mask)


class _MaxUnPoolNd(Layer):
    def __init__(self, kernel_size: int, stride: Any, padding: int, data_format: str,
                 output_size: Any) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size = data_format, output_size

    def extra_repr(self) -> Any:
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPoolNd):
    """MaxPool1D(return_mask=True) undone: values back at their mask's positions."""

    def __init__(self, kernel_size: int, stride: Any = None, padding: int = 0,
                 data_format: str = "NCL", output_size: Any = None, name: str | None = None
                ) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)

    def forward(self, x: Tensor, indices: Tensor) -> Tensor:
        return P.max_unpool1d(x, indices, self.ksize, self.stride, self.padding,
                              self.data_format, self.output_size)


class MaxUnPool2D(_MaxUnPoolNd):
    """MaxPool2D(return_mask=True) undone: values back at their mask's positions."""

    def __init__(self, kernel_size: int, stride: Any = None, padding: int = 0,
                 data_format: str = "NCHW", output_size: Any = None, name: str | None = None
                ) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)

    def forward(self, x: Tensor, indices: Tensor) -> Tensor:
        return P.max_unpool2d(x, indices, self.ksize, self.stride, self.padding,
                              self.data_format, self.output_size)


class MaxUnPool3D(_MaxUnPoolNd):
    """MaxPool3D(return_mask=True) undone: values back at their mask's positions."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: int = 0,
                 data_format: str = "NCDHW", output_size: Any = None, name: str | None = None
                ) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)

    def forward(self, x: Tensor, indices: Any) -> Any:
        return P.max_unpool3d(x, indices, self.ksize, self.stride, self.padding,
                              self.data_format, self.output_size)
