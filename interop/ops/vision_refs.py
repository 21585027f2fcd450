"""PaddlePaddle 2.6.2's own numbers for the vision ops (paddle_nb/ops/{conv3d,pool3d,pad,
interp,grid,pixel,fold,unpool}.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/vision_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with the public paddle API (``paddle.nn.functional``,
so the descs are what 2.6 writes), adds ``loss = sum(out * w)`` for every float output and
``append_backward``, runs it on the CPU and stores in ``vision_ops.npz`` the serialized
program, the feeds and the fetched outputs and gradients, as tensor_refs.py does (its
``run_case`` runs each case). tests/ops/test_vision_paddle.py runs them in paddle_nb.
"""

import argparse
import pathlib
import sys

import numpy as np
import paddle
import paddle.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from tensor_refs import run_case  # noqa: E402  (the shared case runner, next to this file)

rng = np.random.default_rng(2606)


def arr(*shape, spread=1.0):
    return (rng.standard_normal(shape) * spread).astype("float32")


def grid(*shape, spread=1.0):
    return rng.uniform(-spread, spread, shape).astype("float32")


X5 = {"x": (arr(1, 2, 4, 5, 3), True)}
X4 = {"x": (arr(2, 4, 6, 4), True)}


def _conv3d():
    return {
        "conv3d": ({"x": (arr(1, 2, 4, 5, 3), True), "w": (arr(2, 2, 2, 2, 2), True),
                    "g": (arr(4, 2, 2, 1, 2), True)}, lambda v: [
            F.conv3d(v["x"], v["w"], stride=[2, 1, 1], padding=[1, 0, 1], dilation=[1, 2, 1]),
            F.conv3d(v["x"], v["w"], padding="SAME"),
            F.conv3d(paddle.concat([v["x"], v["x"]], axis=1), v["g"], groups=2,
                     padding=[[0, 0], [0, 0], [1, 0], [0, 1], [1, 1]])]),
        "conv3d_ndhwc": ({"x": (arr(1, 3, 4, 2, 2), True), "w": (arr(3, 2, 2, 2, 1), True)},
                         lambda v: [F.conv3d(v["x"], v["w"], padding=1,
                                             data_format="NDHWC")]),
        "conv3d_transpose": ({"x": (arr(1, 2, 2, 3, 2), True), "w": (arr(2, 3, 2, 2, 2), True),
                              "g": (arr(2, 1, 3, 2, 2), True)}, lambda v: [
            F.conv3d_transpose(v["x"], v["w"], stride=2, padding=1, output_size=[3, 5, 3]),
            F.conv3d_transpose(v["x"], v["w"], stride=[1, 2, 1], dilation=[2, 1, 1]),
            F.conv3d_transpose(v["x"], v["g"], groups=2, stride=2)]),
    }


def _pool3d():
    return {
        "pool3d": (X5, lambda v: [
            F.max_pool3d(v["x"], 2), F.avg_pool3d(v["x"], [2, 3, 2], stride=[2, 1, 1],
                                                  padding=1),
            F.avg_pool3d(v["x"], 2, ceil_mode=True, exclusive=False),
            F.avg_pool3d(v["x"], 2, ceil_mode=True),
            F.max_pool3d(v["x"], 3, stride=2, padding=1, ceil_mode=True),
            F.adaptive_avg_pool3d(v["x"], [2, 3, 2]), F.adaptive_max_pool3d(v["x"], [3, 2, 2])]),
        "pool3d_mask": (X5, lambda v: [
            *F.max_pool3d(v["x"], 2, stride=[2, 2, 1], padding=[0, 1, 0], return_mask=True),
            *F.adaptive_max_pool3d(v["x"], [2, 3, 2], return_mask=True)]),
        "pool3d_ndhwc": ({"x": (arr(1, 4, 4, 3, 2), True)}, lambda v: [
            F.max_pool3d(v["x"], 2, data_format="NDHWC"),
            F.avg_pool3d(v["x"], 2, padding="SAME", data_format="NDHWC")]),
    }


def _pad():
    return {
        "pad3d": (X5, lambda v: [
            F.pad(v["x"], [1, 0, 2, 1, 0, 1], value=0.5, data_format="NCDHW"),
            F.pad(v["x"], [2, 1, 1, 2, 1, 0], mode="reflect", data_format="NCDHW"),
            F.pad(v["x"], [3, 1, 0, 2, 1, 2], mode="replicate", data_format="NCDHW"),
            F.pad(v["x"], [2, 3, 1, 3, 0, 1], mode="circular", data_format="NCDHW"),
            F.pad(v["x"], [1, 1, 2, 0, 0, 1], mode="reflect", data_format="NDHWC")]),
        "pad_lower_ranks": ({"x3": (arr(2, 3, 5), True), "x4": (arr(1, 2, 3, 4), True)},
                            lambda v: [
            F.pad(v["x3"], [2, 1], mode="reflect", data_format="NCL"),
            F.pad(v["x3"], [1, 2], mode="circular", data_format="NLC"),
            F.pad(v["x4"], [1, 2, 0, 1], mode="replicate"),
            F.pad(v["x4"], [1, 0, 2, 1], value=-1.0, data_format="NHWC"),
            F.pad(v["x4"], [0, 1, 1, 0, 2, 1, 1, 2], value=0.25)]),
    }


def _interp():
    return {
        "interp_linear_cubic": ({"x3": (arr(1, 2, 5), True), "x4": (arr(1, 2, 4, 3), True)},
                                lambda v: [
            F.interpolate(v["x3"], scale_factor=2, mode="linear", data_format="NCW"),
            F.interpolate(v["x3"], size=[3], mode="linear", align_corners=True,
                          data_format="NCW"),
            F.interpolate(v["x3"], size=[7], mode="linear", align_mode=1, data_format="NCW"),
            F.interpolate(v["x4"], size=[5, 7], mode="bicubic"),
            F.interpolate(v["x4"], size=[3, 2], mode="bicubic", align_corners=True),
            F.interpolate(v["x4"], scale_factor=[1.5, 2.5], mode="bicubic"),
            F.interpolate(v["x4"], scale_factor=1.7, mode="bilinear")]),
        "interp_3d": ({"x": (arr(1, 2, 3, 2, 4), True)}, lambda v: [
            F.interpolate(v["x"], size=[4, 5, 6], mode="trilinear", data_format="NCDHW"),
            F.interpolate(v["x"], size=[2, 3, 2], mode="trilinear", align_corners=True,
                          data_format="NCDHW"),
            F.interpolate(v["x"], scale_factor=[1.5, 2, 0.5], mode="trilinear", align_mode=1,
                          data_format="NCDHW"),
            F.interpolate(v["x"], scale_factor=2, mode="nearest", data_format="NCDHW"),
            F.interpolate(v["x"], size=[5, 3, 3], mode="nearest", data_format="NCDHW"),
            F.interpolate(paddle.transpose(v["x"], [0, 2, 3, 4, 1]), size=[4, 3, 5],
                          mode="trilinear", data_format="NDHWC")]),
    }


def _grid():
    def sample(v, **kw):
        return F.grid_sample(v["x"], v["g"], **kw)
    return {
        "affine_grid_sample": ({"x": (arr(2, 3, 4, 5), True), "theta": (arr(2, 2, 3), True)},
                               lambda v: [
            F.affine_grid(v["theta"], [2, 3, 3, 4], align_corners=False),
            F.grid_sample(v["x"], F.affine_grid(v["theta"], [2, 3, 3, 2])),
            F.affine_grid(v["theta"], [2, 1, 2, 3], align_corners=True)]),
        "grid_sample": ({"x": (arr(2, 3, 4, 5), True), "g": (grid(2, 3, 2, 2, spread=1.4), True)},
                        lambda v: [
            sample(v), sample(v, align_corners=False),
            sample(v, padding_mode="border"), sample(v, padding_mode="reflection"),
            sample(v, padding_mode="reflection", align_corners=False),
            sample(v, mode="nearest"), sample(v, mode="nearest", padding_mode="border",
                                              align_corners=False)]),
        "grid_sample_3d": ({"x": (arr(1, 2, 3, 3, 4), True),
                            "g": (grid(1, 2, 2, 3, 3, spread=1.4), True),
                            "theta": (arr(1, 3, 4), True)}, lambda v: [
            sample(v), sample(v, padding_mode="reflection", align_corners=False),
            sample(v, mode="nearest", padding_mode="border"),
            F.affine_grid(v["theta"], [1, 2, 2, 3, 2], align_corners=False)]),
    }


def _pixel():
    return {
        "pixel_channel_shuffle": (X4, lambda v: [
            F.pixel_shuffle(v["x"], 2), F.pixel_unshuffle(v["x"], 2),
            F.pixel_shuffle(v["x"], 2, data_format="NHWC"),
            F.pixel_unshuffle(v["x"], 2, data_format="NHWC"),
            F.channel_shuffle(v["x"], 2), F.channel_shuffle(v["x"], 2, data_format="NHWC")]),
        "unfold_fold": ({"x": (arr(2, 2, 4, 5), True), "c": (arr(1, 12, 8), True)}, lambda v: [
            F.unfold(v["x"], [2, 3]),
            F.unfold(v["x"], [2, 2], strides=[1, 2], paddings=[1, 0, 0, 1], dilations=[2, 1]),
            F.fold(v["c"], [4, 5], [2, 3], strides=[1, 2], paddings=[1, 0], dilations=[2, 1]),
            F.fold(F.unfold(v["x"], 2, paddings=1), [4, 5], 2, paddings=1)]),
        "temporal_shift": ({"x": (arr(6, 4, 2, 3), True)}, lambda v: [
            F.temporal_shift(v["x"], 3), F.temporal_shift(v["x"], 2, 0.3, data_format="NHWC")]),
        # the masks index the output: the pools' inputs are as wide as the unpools' outputs
        "unpool": ({"x3": (arr(1, 2, 6), True), "x4": (arr(1, 2, 4, 4), True),
                    "x5": (arr(1, 1, 2, 4, 4), True)}, lambda v: [
            F.max_unpool1d(*F.max_pool1d(v["x3"], 2, return_mask=True), 2),
            F.max_unpool2d(*F.max_pool2d(v["x4"], 2, return_mask=True), 2),
            F.max_unpool2d(*F.max_pool2d(v["x4"], 2, return_mask=True), 2, output_size=[5, 4]),
            F.max_unpool3d(*F.max_pool3d(v["x5"], 2, return_mask=True), 2)]),
    }


CASES = {**_conv3d(), **_pool3d(), **_pad(), **_interp(), **_grid(), **_pixel()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "vision_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "vision_ops.npz")


if __name__ == "__main__":
    main()
