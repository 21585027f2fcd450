"""Sweep cases for paddle.static.nn and paddle.vision.ops (see specs.py for the helpers)."""

from interop.sweep.specs_base import B, F, I, V, cls, fn  # noqa: F401

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
