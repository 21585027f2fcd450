"""Sweep cases for paddle.static.nn and paddle.vision.ops (see specs.py for the helpers)."""

from interop.sweep.specs_base import B, F, Int, V, cls, fn  # noqa: F401

X, Y = V("x"), V("y")

CASES = [
    fn("paddle.static.nn.conv2d_transpose", X, 2, filter_size=3, stride=2, padding=1,
       act="relu", tag="strided", x=F(1, 2, 3, 3)),
    fn("paddle.static.nn.conv2d_transpose", X, 2, output_size=[5, 5], tag="output_size",
       x=F(1, 2, 3, 3)),
    fn("paddle.static.nn.conv3d", X, 2, 2, padding=1, groups=2, tag="groups",
       x=F(1, 2, 3, 3, 3)),
    fn("paddle.static.nn.layer_norm", X, begin_norm_axis=2, tag="axis2", x=F(2, 3, 4)),
    fn("paddle.static.nn.layer_norm", X, scale=False, shift=False, tag="plain", x=F(2, 3)),
    fn("paddle.static.nn.prelu", X, "all", tag="all", x=F(2, 3, 2, 2)),
    fn("paddle.static.nn.prelu", X, "element", tag="element", x=F(2, 3, 2, 2)),
]

ROIS = F(3, 4, low=0.0, high=4.0, grad=False)
CASES += [
    fn("paddle.vision.ops.nms", V("b"), 0.3, b=F(6, 4, grad=False)),
    fn("paddle.vision.ops.nms", V("b"), 0.3, scores=V("s"), top_k=3, tag="scores",
       b=F(6, 4, grad=False), s=F(6, grad=False)),
    fn("paddle.vision.ops.nms", V("b"), 0.3, scores=V("s"), category_idxs=V("c"),
       categories=[0, 1], top_k=3, tag="categories", b=F(6, 4, grad=False), s=F(6, grad=False),
       c=Int(6, high=2)),
    fn("paddle.vision.ops.roi_pool", X, V("r"), V("n"), 2, x=F(1, 2, 6, 6), r=ROIS,
       n=Int(1, low=3, high=4, dtype="int32")),
    cls("paddle.vision.ops.RoIPool", (2,), {}, (X, V("r"), V("n")), x=F(1, 2, 6, 6), r=ROIS,
        n=Int(1, low=3, high=4, dtype="int32")),
    # (psroi_pool: 2.6.2's static form reads the ROIs' LoD, which the sweep does not feed;
    # tests/vision/test_pooling.py compares it)
    # (RoIAlign: 2.6.2 refuses the sweep's random boxes; tests/vision/test_pooling.py compares it)
    fn("paddle.vision.ops.deform_conv2d", X, V("o"), V("w"), x=F(1, 2, 5, 5),
       o=F(1, 18, 3, 3), w=F(2, 2, 3, 3)),
    fn("paddle.vision.ops.deform_conv2d", X, V("o"), V("w"), mask=V("m"), tag="mask",
       x=F(1, 2, 5, 5), o=F(1, 18, 3, 3), w=F(2, 2, 3, 3), m=F(1, 9, 3, 3)),
    cls("paddle.vision.ops.DeformConv2D", (2, 2, 3), {}, (X, V("o")), x=F(1, 2, 5, 5),
        o=F(1, 18, 3, 3)),
]

CASES += [
    fn("paddle.static.nn.deform_conv2d", X, V("o"), V("m"), 2, 3, x=F(1, 2, 5, 5),
       o=F(1, 18, 3, 3), m=F(1, 9, 3, 3)),
    fn("paddle.static.nn.deform_conv2d", X, V("o"), None, 2, 2, padding=1, tag="v1",
       x=F(1, 2, 4, 4), o=F(1, 8, 5, 5)),
]

CASES += [
    fn("paddle.static.nn.row_conv", X, 2, x=F(2, 5, 3)),
    fn("paddle.static.nn.row_conv", X, 1, act="tanh", tag="act", x=F(1, 4, 3)),
    # (forward only: paddle_nb has no spectral_norm_grad, see paddle_nb/ops/spectral_norm.py)
    fn("paddle.static.nn.spectral_norm", V("w"), grad=False, w=F(4, 3)),
    fn("paddle.static.nn.spectral_norm", V("w"), dim=1, power_iters=3, tag="dim1", grad=False,
       w=F(4, 3, 2)),
]

# (sparse_embedding: 2.6.2's executor refuses its SelectedRows table, so the sweep cannot run
# it; tests/static/test_nn_layers.py compares the program 2.6.2 writes)

# (group_norm without a scale: the sweep's loss sum(y * y) has an exact gradient of about
# eps / var, below float32 rounding, where 2.6.2 is 5x further from float64 than paddle_nb;
# with a scale and shift the gradient is well conditioned)
CASES += [
    fn("paddle.static.nn.group_norm", X, 2, param_attr="gn_scale", bias_attr="gn_shift",
       tag="affine", x=F(2, 4, 3, 3)),
]

CASES += [
    fn("paddle.vision.ops.yolo_loss", X, V("gb"), V("gl"), [10, 13, 16, 30, 33, 23], [0, 1], 2,
       0.7, 8, x=F(2, 14, 4, 4, low=-1.0, high=1.0), gb=F(2, 3, 4, low=0.1, high=0.6,
                                                          grad=False),
       gl=Int(2, 3, high=2, dtype="int32")),
]
