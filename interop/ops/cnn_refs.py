"""Reference numbers from PaddlePaddle 2.6.2 for the CNN kernels' fast paths (bench_cnn's ops).

Run with the interop venv (PaddlePaddle 2.6.2, NumPy 1.26), from the repository root:

    .venv-interop/bin/python interop/ops/cnn_refs.py

The cases aim at what the speed work changed: max pooling's gradient found from Out (inputs
rounded so that windows hold ties, as after a relu; the first max must take the gradient),
global pooling as one reduction, 1x1 filters whose columns are the pixels, col2im with the
batch last, at the shapes LeNet-5 and ResNet-18 use (smaller batches). Each case runs as in
interop/ops/conv_refs.py (its ``write``: the op alone, forward, then the gradients of
sum(Out * G)); the result goes to tests/fixtures/paddle26/ops/cnn_refs.npz in the same layout,
read by tests/ops/test_cnn_paddle.py.
"""

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "interop" / "ops"))
from conv_refs import conv, pool, write  # noqa: E402  (the same runner and layout)

OUT = ROOT / "tests/fixtures/paddle26/ops/cnn_refs.npz"
rng = np.random.default_rng(16)


def a(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def ties(*shape):
    """Values on a coarse grid, negatives zeroed as by a relu: many equal maxima per window."""
    return np.maximum(np.round(a(*shape) * 2) / 2, 0).astype(np.float32)


CASES = [
    pool("max 2x2 s2, ties (LeNet pool)", "pool2d", ties(2, 3, 24, 24), pooling_type="max",
         ksize=[2, 2], strides=[2, 2]),
    pool("max 3x3 s2 p1, ties (ResNet stem pool)", "pool2d", ties(2, 3, 11, 10),
         pooling_type="max", ksize=[3, 3], strides=[2, 2], paddings=[1, 1]),
    pool("max 2x2 s2, ties, odd sizes cropped", "pool2d", ties(1, 2, 7, 9), pooling_type="max",
         ksize=[2, 2], strides=[2, 2]),
    pool("max 3x2 s1 overlapping, ties NHWC", "pool2d", ties(2, 5, 6, 3), pooling_type="max",
         ksize=[3, 2], strides=[1, 1], data_format="NHWC"),
    pool("global max", "pool2d", a(2, 4, 5, 6), pooling_type="max", ksize=[1, 1],
         global_pooling=True),
    pool("avg 7x7 window = image (ResNet head)", "pool2d", a(2, 8, 7, 7), pooling_type="avg",
         ksize=[7, 7]),
    conv("LeNet conv2 shape, batch 2", "conv2d", a(2, 6, 12, 12), a(16, 6, 5, 5)),
    conv("LeNet conv1 shape", "conv2d", a(1, 1, 28, 28), a(6, 1, 5, 5)),
    conv("3x3 s1 p1 groups 4, batch 3", "conv2d", a(3, 8, 6, 6), a(8, 2, 3, 3), groups=4,
         paddings=[1, 1]),
    conv("ResNet downsample 1x1 s2", "conv2d", a(2, 8, 7, 7), a(16, 8, 1, 1), strides=[2, 2]),
    conv("1x1 s1 (columns are the pixels)", "conv2d", a(2, 5, 4, 3), a(7, 5, 1, 1)),
    conv("7x7 s2 p3 (ResNet stem), batch 2", "conv2d", a(2, 3, 16, 15), a(8, 3, 7, 7),
         strides=[2, 2], paddings=[3, 3]),
    conv("depthwise 3x3 p1, batch 4", "depthwise_conv2d", a(4, 6, 8, 8), a(6, 1, 3, 3),
         groups=6, paddings=[1, 1]),
    pool("avg 3x2 tiles (stride = kernel) NHWC", "pool2d", a(2, 6, 8, 3), pooling_type="avg",
         ksize=[3, 2], strides=[3, 2], data_format="NHWC"),
    pool("max 3x2 tiles, ties", "pool2d", ties(2, 3, 9, 8), pooling_type="max", ksize=[3, 2],
         strides=[3, 2]),
    pool("max 2x2 s3 (disjoint, gaps), ties", "pool2d", ties(1, 2, 8, 8), pooling_type="max",
         ksize=[2, 2], strides=[3, 3]),
]


def main():
    write(CASES, OUT)


if __name__ == "__main__":
    main()
