"""The vision functions and layers against plain NumPy references.

Each test builds one call with paddle_nb's ``paddle.nn.functional`` / ``paddle.nn``, runs it,
and compares with the loop references of the op contract cases (tests/ops/cases_*.py), fed
the arguments as PaddlePaddle's ops read them: so the function's argument handling (1-D
convolutions through 2-D, "SAME" padding, 1-D pools, F.pad's axis order, interpolate's size
attributes) is checked against an independent statement of what it means.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import nn
from paddle_nb.framework import unique_name
from paddle_nb.nn import functional as F
from tests.ops.cases_conv import conv_ref
from tests.ops.cases_conv3d import conv3d_ref, conv3d_transpose_ref
from tests.ops.cases_conv_transpose import transpose_ref
from tests.ops.cases_grid import affine_ref, sampler_ref
from tests.ops.cases_interp import interp_nd_ref
from tests.ops.cases_pad import pad3d_ref
from tests.ops.cases_pixel import channel_ref, fold_ref, shuffle_ref, unfold_ref, unshuffle_ref
from tests.ops.cases_pool import pool_ref
from tests.ops.cases_pool3d import pool3d_ref

rng = np.random.default_rng(31)


def arr(*shape):
    return rng.standard_normal(shape).astype("float32")


def run(build, **feeds):
    """(fetched outputs, scope) of ``build(*inputs)`` on ``feeds``."""
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), pd.program_guard(main, startup):
        ins = [pd.layers.data(k, list(v.shape), append_batch_size=False) for k, v in
               feeds.items()]
        outs = build(*ins)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feeds, fetch_list=outs, scope=scope), scope


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_conv1d_is_conv2d_over_a_unit_height():
    x, w, b = arr(2, 3, 7), arr(4, 3, 3), arr(4)
    (got,), _ = run(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=[1, 2]), x=x, w=w, b=b)
    want = conv_ref({"Input": x[:, :, None], "Filter": w[:, :, None]},
                    {"strides": [1, 2], "paddings": [0, 0, 1, 2]})["Output"][:, :, 0]
    close(got, want + b[:, None])


def test_conv2d_same_padding_and_nhwc():
    x, w = arr(1, 5, 4, 3), arr(2, 3, 3, 2)
    (got,), _ = run(lambda x, w: F.conv2d(x, w, padding="SAME", stride=2, data_format="NHWC"),
                    x=x, w=w)
    close(got, conv_ref({"Input": x, "Filter": w}, {"padding_algorithm": "SAME",
                                                   "strides": [2, 2], "data_format": "NHWC"})
          ["Output"])


def test_conv3d_and_its_transpose():
    x, w, wt = arr(1, 2, 3, 4, 3), arr(2, 1, 2, 2, 2), arr(2, 3, 2, 1, 2)
    (got, got_t), _ = run(lambda x, w, wt: [F.conv3d(x, w, groups=2, padding=1),
                                            F.conv3d_transpose(x, wt, stride=2)], x=x, w=w, wt=wt)
    close(got, conv3d_ref({"Input": x, "Filter": w}, {"groups": 2, "paddings": [1, 1, 1]})
          ["Output"])
    close(got_t, conv3d_transpose_ref({"Input": x, "Filter": wt}, {"strides": [2, 2, 2]})
          ["Output"])


def test_conv_transpose_1d_and_2d():
    x3, x4, w1, w2 = arr(1, 2, 5), arr(1, 2, 3, 4), arr(2, 3, 3), arr(2, 3, 2, 2)
    (g1, g2), _ = run(lambda x3, x4, w1, w2: [
        F.conv1d_transpose(x3, w1, stride=2, output_padding=1),
        F.conv2d_transpose(x4, w2, stride=2, output_size=[7, 9])], x3=x3, x4=x4, w1=w1, w2=w2)
    want1 = transpose_ref({"Input": x3[..., None], "Filter": w1[..., None]},
                          {"strides": [2, 1], "output_padding": [1, 0]})["Output"][..., 0]
    close(g1, want1)
    close(g2, transpose_ref({"Input": x4, "Filter": w2}, {"strides": [2, 2],
                                                         "output_size": [7, 9]})["Output"])


def test_conv2d_layer_adds_its_bias_to_the_convolution_of_its_weight():
    x = arr(2, 3, 5, 5)
    layer = []
    (got,), scope = run(lambda x: layer.append(nn.Conv2D(3, 4, 3, padding=1)) or layer[0](x),
                        x=x)
    w = scope.find_var(layer[0].weight.name).get_tensor().numpy()
    want = conv_ref({"Input": x, "Filter": w}, {"paddings": [1, 1]})["Output"]
    close(got, want)      # the bias starts at zero


def test_pools_1d_2d_3d():
    x3, x4, x5 = arr(2, 3, 7), arr(1, 2, 5, 6), arr(1, 2, 4, 5, 3)
    outs, _ = run(lambda x3, x4, x5: [
        F.max_pool1d(x3, 3, stride=2, padding=1), F.avg_pool1d(x3, 2, ceil_mode=True),
        F.avg_pool2d(x4, 3, stride=2, padding=1, exclusive=False),
        F.max_pool3d(x5, 2, stride=1), F.adaptive_avg_pool3d(x5, [2, 3, 2]),
        F.adaptive_max_pool2d(x4, 3), F.adaptive_avg_pool1d(x3, 4)], x3=x3, x4=x4, x5=x5)
    u = x3[:, :, None]
    close(outs[0], pool_ref({"X": u}, {"ksize": [1, 3], "strides": [1, 2],
                                       "paddings": [0, 1]})["Out"][:, :, 0])
    close(outs[1], pool_ref({"X": u}, {"ksize": [1, 2], "strides": [1, 2], "ceil_mode": True,
                                       "pooling_type": "avg"})["Out"][:, :, 0])
    close(outs[2], pool_ref({"X": x4}, {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                                        "pooling_type": "avg", "exclusive": False})["Out"])
    close(outs[3], pool3d_ref({"X": x5}, {"ksize": [2, 2, 2]})["Out"])
    close(outs[4], pool3d_ref({"X": x5}, {"ksize": [2, 3, 2], "adaptive": True,
                                          "pooling_type": "avg"})["Out"])
    close(outs[5], pool_ref({"X": x4}, {"ksize": [3, 3], "adaptive": True})["Out"])
    close(outs[6], pool_ref({"X": u}, {"ksize": [1, 4], "adaptive": True,
                                       "pooling_type": "avg"})["Out"][:, :, 0])


def test_pad_orders_its_paddings_from_the_last_axis():
    x3, x4, x5 = arr(1, 2, 5), arr(1, 2, 3, 4), arr(1, 2, 3, 3, 2)
    outs, _ = run(lambda x3, x4, x5: [
        F.pad(x3, [2, 1], mode="reflect", data_format="NCL"),
        nn.Pad2D([1, 0, 2, 1], mode="replicate")(x4),
        F.pad(x5, [1, 1, 0, 2, 1, 0], mode="circular", data_format="NCDHW"),
        F.pad(x4, [0, 1, 1, 0, 2, 0, 0, 1], value=2.0), F.zeropad2d(x4, 1)],
        x3=x3, x4=x4, x5=x5)
    close(outs[0], pad3d_ref({"X": x3[..., None, None]}, {"paddings": [0, 0, 0, 0, 2, 1],
                                                          "mode": "reflect"})["Out"][..., 0, 0])
    close(outs[1], pad3d_ref({"X": x4[:, :, None]}, {"paddings": [1, 0, 2, 1, 0, 0],
                                                     "mode": "replicate"})["Out"][:, :, 0])
    close(outs[2], pad3d_ref({"X": x5}, {"paddings": [1, 1, 0, 2, 1, 0],
                                         "mode": "circular"})["Out"])
    close(outs[3], np.pad(x4, [(0, 1), (1, 0), (2, 0), (0, 1)], constant_values=2.0))
    close(outs[4], np.pad(x4, [(0, 0), (0, 0), (1, 1), (1, 1)]))


@pytest.mark.parametrize("mode, shape, kwargs, attrs", [
    ("linear", (1, 2, 5), {"size": [8], "data_format": "NCW"},
     {"out_w": 8, "align_corners": False, "align_mode": 0}),
    ("bicubic", (1, 2, 4, 3), {"scale_factor": 2, "align_corners": True},
     {"scale": [2.0, 2.0], "align_corners": True}),
    ("trilinear", (1, 1, 2, 3, 4), {"size": [3, 2, 5], "align_mode": 1,
                                    "data_format": "NCDHW"},
     {"out_d": 3, "out_h": 2, "out_w": 5, "align_corners": False, "align_mode": 1}),
    ("nearest", (1, 2, 3, 2, 2), {"scale_factor": [2, 1, 1.5], "data_format": "NCDHW"},
     {"scale": [2.0, 1.0, 1.5], "align_corners": False}),
])
def test_interpolate(mode, shape, kwargs, attrs):
    x = arr(*shape)
    (got,), _ = run(lambda x: F.interpolate(x, mode=mode, **kwargs), x=x)
    method = {"nearest": "nearest", "bicubic": "cubic"}.get(mode, "linear")
    close(got, interp_nd_ref({"X": x}, attrs, method)["Out"])


def test_unfold_fold_and_the_shuffles():
    x, c = arr(1, 2, 4, 6), arr(1, 8, 25)
    outs, _ = run(lambda x, c: [
        F.unfold(x, [2, 3], paddings=[1, 0, 0, 1]), F.fold(c, [4, 6], 2, paddings=[1, 0]),
        nn.PixelShuffle(1)(x), F.pixel_unshuffle(x, 2), F.channel_shuffle(x, 2),
        F.pixel_shuffle(F.pixel_unshuffle(x, 2), 2)], x=x, c=c)
    close(outs[0], unfold_ref({"X": x}, {"kernel_sizes": [2, 3], "paddings": [1, 0, 0, 1]})["Y"])
    close(outs[1], fold_ref({"X": c}, {"kernel_sizes": [2, 2], "output_sizes": [4, 6],
                                       "paddings": [1, 0]})["Y"])
    close(outs[2], shuffle_ref({"X": x}, {"upscale_factor": 1})["Out"])
    close(outs[3], unshuffle_ref({"X": x}, {"downscale_factor": 2})["Out"])
    close(outs[4], channel_ref({"X": x}, {"groups": 2})["Out"])
    close(outs[5], x)


def test_affine_grid_and_grid_sample():
    x, theta = arr(2, 3, 4, 5), arr(2, 2, 3) * 0.7
    (grid, out), _ = run(lambda x, t: [F.affine_grid(t, [2, 3, 3, 4], align_corners=False),
                                       F.grid_sample(x, F.affine_grid(t, [2, 3, 3, 4], False),
                                                     padding_mode="reflection",
                                                     align_corners=False)], x=x, t=theta)
    want = affine_ref({"Theta": theta}, {"output_shape": [2, 3, 3, 4], "align_corners": False})
    close(grid, want["Output"])
    close(out, sampler_ref({"X": x, "Grid": want["Output"]},
                           {"padding_mode": "reflection", "align_corners": False})["Output"])


def test_max_unpool_puts_each_max_back_where_it_was():
    x = arr(1, 2, 4, 4)
    (out, back), _ = run(lambda x: [nn.MaxPool2D(2, return_mask=True)(x)[0],
                                    nn.MaxUnPool2D(2)(*nn.MaxPool2D(2, return_mask=True)(x))],
                         x=x)
    windows = x.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 2, 2, 2, 4)
    keep = windows == windows.max(axis=-1, keepdims=True)
    want = (windows * keep).reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    close(back, want.reshape(1, 2, 4, 4))
