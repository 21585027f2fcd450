"""The vision API scenarios, written once for both frameworks.

Each case is ``build(paddle, nn, F, data) -> [outputs]``: it uses only the names a
PaddlePaddle 2.6 script uses (``paddle.nn.Conv2D``, ``paddle.nn.functional.pad``...), so the
same function builds the program in PaddlePaddle 2.6.2 (interop/api/vision_api_refs.py, which
records what 2.6 wrote and computed) and in paddle_nb (tests/api/test_vision_api.py).
``data(name, dtype="float32")`` makes a fed input in each framework (differentiable when
a float). Parameters get
values made from their names (``param_value``), the same on both sides.
"""

import zlib

import numpy as np

__all__ = ["CASES", "FEEDS", "param_value"]


def param_value(name, shape):
    """A parameter's value, made from its name: the same in both frameworks."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return (rng.standard_normal(shape) * 0.5).astype("float32")


def _feeds(seed, **shapes):
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(s).astype("float32") for k, s in shapes.items()}


INT_FEEDS = {"size": np.array([5, 3], "int32"), "height": np.array([4], "int32")}


def conv_layers(paddle, nn, F, data):
    x3, x3l, x4, x5 = data("x3"), data("x3l"), data("x4"), data("x5")
    return [nn.Conv1D(3, 4, 3, padding=1)(x3),
            nn.Conv1D(3, 2, 2, stride=2, data_format="NLC")(x3l),
            nn.Conv2D(4, 3, 3, stride=2, padding=1)(x4),
            nn.Conv2D(4, 4, 3, groups=4, padding="SAME")(x4),
            nn.Conv2D(4, 2, 3, padding=1, padding_mode="reflect", bias_attr=False)(x4),
            nn.Conv2D(4, 4, [2, 3], groups=2, dilation=[1, 2])(x4),
            nn.Conv3D(2, 3, 2, padding=[1, 0, 1])(x5)]


def conv_transpose_layers(paddle, nn, F, data):
    x3, x4, x5 = data("x3"), data("x4"), data("x5")
    return [nn.Conv1DTranspose(3, 2, 3, stride=2)(x3),
            nn.Conv2DTranspose(4, 3, 3, stride=2, padding=1, output_padding=1)(x4),
            nn.Conv2DTranspose(4, 4, 3, groups=4)(x4),
            nn.Conv2DTranspose(4, 2, 2, stride=2)(x4, output_size=[13, 12]),
            nn.Conv3DTranspose(2, 2, 2, stride=2, bias_attr=False)(x5)]


def conv_functions(paddle, nn, F, data):
    x3, x4, x5 = data("x3"), data("x4"), data("x5")
    w1, w1t, b1, w2, wt = data("w1"), data("w1t"), data("b1"), data("w2"), data("wt")
    w3, w3t = data("w3"), data("w3t")
    return [F.conv1d(x3, w1, b1, padding=[1, 2]),
            F.conv2d(x4, w2, b1, stride=[1, 2], padding=[[0, 0], [0, 0], [1, 0], [0, 1]]),
            F.conv2d(x4, w2, padding="VALID", dilation=2),
            F.conv2d_transpose(x4, wt, b1, stride=2, output_size=[14, 13]),
            F.conv1d_transpose(x3, w1t, stride=2, padding=1, output_padding=1),
            F.conv3d(x5, w3, groups=2, stride=2, padding=1),
            F.conv3d_transpose(x5, w3t, b1, padding=[1, 0, 0])]


def pooling(paddle, nn, F, data):
    x3, x4, x5 = data("x3"), data("x4"), data("x5")
    return [nn.MaxPool1D(2)(x3), nn.AvgPool1D(3, stride=1, padding=1)(x3),
            nn.MaxPool2D(3, 2, 1, ceil_mode=True)(x4), nn.AvgPool2D(2, exclusive=False)(x4),
            nn.AvgPool2D(2, stride=1, divisor_override=3)(x4),
            nn.MaxPool3D(2, return_mask=True)(x5)[0], nn.AvgPool3D([2, 1, 2])(x5),
            nn.AdaptiveAvgPool1D(3)(x3), nn.AdaptiveAvgPool2D([2, None])(x4),
            nn.AdaptiveAvgPool3D(2)(x5), nn.AdaptiveMaxPool1D(3)(x3),
            nn.AdaptiveMaxPool2D(2, return_mask=True)(x4)[0], nn.AdaptiveMaxPool3D([1, 2, 2])(x5),
            F.max_pool1d(x3, 3, 2, 1, return_mask=True)[0],
            F.avg_pool2d(x4, 3, padding="SAME"), F.max_pool3d(x5, 2, stride=1, padding=1),
            nn.MaxUnPool2D(2)(*nn.MaxPool2D(2, return_mask=True)(x4)),
            F.max_unpool1d(*F.max_pool1d(x3, 2, return_mask=True), 2)]


def sampling(paddle, nn, F, data):
    x3, x4, x5, theta = data("x3"), data("x4"), data("x5"), data("theta")
    size, height = data("size", "int32"), data("height", "int32")
    return [nn.Pad1D([2, 1], mode="reflect")(x3), nn.Pad2D([1, 0, 2, 1], mode="replicate")(x4),
            nn.Pad3D(1, mode="circular")(x5), nn.ZeroPad2D([1, 2, 0, 1])(x4),
            F.pad(x4, [0, 0, 1, 0, 2, 1, 0, 1], value=0.5),
            nn.Upsample(scale_factor=2)(x4), nn.UpsamplingBilinear2D(size=[5, 7])(x4),
            nn.UpsamplingNearest2D(scale_factor=[1.5, 2])(x4),
            F.interpolate(x3, size=[7], mode="linear", data_format="NCW"),
            F.interpolate(x4, scale_factor=1.5, mode="bicubic", align_corners=True),
            F.interpolate(x5, size=[3, 4, 2], mode="trilinear", data_format="NCDHW"),
            F.interpolate(x4, size=[2, 3], mode="area"),
            F.interpolate(x4, size=size, mode="bilinear"),
            F.interpolate(x4, size=[height, 5], mode="nearest"),
            nn.PixelShuffle(2)(x4), nn.PixelUnshuffle(2)(x4), nn.ChannelShuffle(2)(x4),
            F.temporal_shift(x4, 2, 0.25),
            nn.Fold([6, 6], 2, paddings=1)(nn.Unfold(2, paddings=1)(x4)),
            F.grid_sample(x4, F.affine_grid(theta, [2, 4, 3, 5], align_corners=False),
                          padding_mode="border", align_corners=False)]


def channel_last(paddle, nn, F, data):
    x3, x4, x5 = data("x3l"), data("x4l"), data("x5l")
    w1, w2, w3, b1, b3 = data("w1"), data("w2"), data("w3l"), data("b1"), data("b3")
    return [F.conv1d(x3, w1, b1, padding=1, data_format="NLC"),
            F.conv2d(x4, w2, b1, stride=2, data_format="NHWC"),
            F.conv3d(x5, w3, b3, padding="SAME", data_format="NDHWC"),
            nn.Conv2D(4, 3, 3, padding=1, data_format="NHWC")(x4),
            nn.Conv2D(4, 2, 3, padding=1, padding_mode="circular", data_format="NHWC")(x4),
            nn.Conv3D(2, 3, 2, stride=[1, 2, 1], data_format="NDHWC")(x5),
            nn.Conv2DTranspose(4, 2, 3, stride=2, data_format="NHWC")(x4),
            nn.Conv1DTranspose(3, 2, 2, data_format="NLC")(x3),
            nn.MaxPool2D(2, data_format="NHWC")(x4),
            nn.AvgPool3D(2, ceil_mode=True, data_format="NDHWC")(x5),
            nn.AdaptiveAvgPool2D(3, data_format="NHWC")(x4),
            F.interpolate(x4, scale_factor=[1.5, 0.5], mode="bilinear", data_format="NHWC"),
            nn.Upsample(size=[3, 5, 2], mode="trilinear", align_corners=True,
                        data_format="NDHWC")(x5),
            F.interpolate(x3, size=[9], mode="linear", data_format="NWC"),
            F.pad(x3, [1, 2], value=0.5, data_format="NLC"),
            nn.Pad2D([1, 0, 0, 2], mode="reflect", data_format="NHWC")(x4),
            nn.PixelShuffle(2, data_format="NHWC")(x4)]


FEEDS = {
    "x3": (2, 3, 6), "x3l": (2, 6, 3), "w1t": (3, 2, 3), "x4": (2, 4, 6, 6),
    "x5": (2, 2, 3, 4, 4), "w1": (4, 3, 3), "b1": (4,),
    "w2": (4, 4, 2, 2), "wt": (4, 4, 3, 2), "w3": (4, 1, 2, 2, 2), "w3t": (2, 4, 2, 2, 2),
    "theta": (2, 2, 3), "x4l": (2, 6, 6, 4), "x5l": (2, 3, 4, 4, 2), "w3l": (3, 2, 2, 2, 2),
    "b3": (3,),
}

CASES = {
    "conv_layers": (conv_layers, _feeds(1, **{k: FEEDS[k] for k in ("x3", "x3l", "x4", "x5")})),
    "conv_transpose_layers": (conv_transpose_layers,
                              _feeds(2, **{k: FEEDS[k] for k in ("x3", "x4", "x5")})),
    "conv_functions": (conv_functions, _feeds(3, **{k: FEEDS[k] for k in (
        "x3", "x4", "x5", "w1", "w1t", "b1", "w2", "wt", "w3", "w3t")})),
    "pooling": (pooling, _feeds(4, **{k: FEEDS[k] for k in ("x3", "x4", "x5")})),
    "channel_last": (channel_last, _feeds(6, **{k: FEEDS[k] for k in (
        "x3l", "x4l", "x5l", "w1", "w2", "w3l", "b1", "b3")})),
    "sampling": (sampling, {**_feeds(5, **{k: FEEDS[k] for k in ("x3", "x4", "x5", "theta")}),
                            **INT_FEEDS}),
}
