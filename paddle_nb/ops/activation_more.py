"""More activations: thresholded_relu, stanh, logit, selu, celu, prelu, maxout.

The first five are elementwise functions of X shaped by attributes, written as in
activation_param.py: forward and derivative side by side, the grad op reading what
PaddlePaddle 2.6's reads (``selu_grad`` reads Out, the others X). ``prelu`` learns its
negative slope: an ``Alpha`` tensor of one value (mode ``all``), one per channel
(``channel``: dimension 1 for NCHW, the last for NHWC) or one per element (``element``).
``maxout`` keeps the largest of each ``groups`` consecutive channels. (``rrelu``, whose
slope is random in training, is in random.py.)
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["SCALAR_ACTIVATIONS"]


# ---- forward and derivative, side by side (attributes as keywords) -----------------------------

def thresholded_relu(xp, x, threshold):
    return xp.where(x > threshold, x, 0)


def thresholded_relu_grad(xp, x, dout, threshold):
    return dout * (x > threshold)


def stanh(xp, x, scale_a, scale_b):
    return scale_b * xp.tanh(scale_a * x)


def stanh_grad(xp, x, dout, scale_a, scale_b):
    t = xp.tanh(scale_a * x)
    return dout * scale_a * scale_b * (1 - t * t)


def logit(xp, x, eps):
    # eps > 0 clips X into [eps, 1 - eps] first; eps = 0 leaves X as it is
    p = xp.clip(x, eps, 1 - eps) if eps > 0 else x
    return xp.log(p / (1 - p))


def logit_grad(xp, x, dout, eps):
    inside = (x >= eps) & (x <= 1 - eps) if eps > 0 else True
    return xp.where(inside, dout / (x * (1 - x)), 0)


def selu(xp, x, scale, alpha):
    return scale * xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0)))


def selu_grad(xp, out, dout, scale, alpha):
    # below 0, out = scale alpha (e^x - 1), so d/dx = scale alpha e^x = out + scale alpha
    return xp.where(out > 0, dout * scale, dout * (out + scale * alpha))


def celu(xp, x, alpha):
    return xp.maximum(x, 0) + xp.minimum(alpha * xp.expm1(xp.minimum(x, 0) / alpha), 0)


def celu_grad(xp, x, dout, alpha):
    return xp.where(x > 0, dout, dout * xp.exp(xp.minimum(x, 0) / alpha))


def _nonzero(v):
    return None if v != 0 else "must not be 0 (it divides)"


def _eps_range(v):
    return None if 0 <= v < 0.5 else "must be in [0, 0.5)"


# op type -> (forward, derivative, what the grad op reads, attrs, doc)
SCALAR_ACTIVATIONS = {
    "thresholded_relu": (thresholded_relu, thresholded_relu_grad, "X",
                         {"threshold": Attr("float", 1.0)}, "Out = X where X > threshold, else 0"),
    "stanh": (stanh, stanh_grad, "X",
              {"scale_a": Attr("float", 0.67), "scale_b": Attr("float", 1.7159)},
              "Out = scale_b * tanh(scale_a * X)"),
    "logit": (logit, logit_grad, "X", {"eps": Attr("float", 1e-6, _eps_range)},
              "Out = log(X / (1 - X)), X first clipped into [eps, 1 - eps] when eps > 0"),
    "selu": (selu, selu_grad, "Out",
             {"scale": Attr("float", 1.0507009873554805),
              "alpha": Attr("float", 1.6732632423543772)},
             "Out = scale * (X if X > 0 else alpha * (exp(X) - 1))"),
    "celu": (celu, celu_grad, "X", {"alpha": Attr("float", 1.0, _nonzero)},
             "Out = max(0, X) + min(0, alpha * (exp(X / alpha) - 1))"),
}


def _float_like(x, **attrs):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x


def _register_scalar(name, forward, derivative, reads, attrs, doc):
    def kernel(ctx, x, **a):
        return forward(ctx.xp, x, **a).astype(x.dtype, copy=False)

    def grad_kernel(ctx, v, dout, **a):
        return derivative(ctx.xp, v, dout, **a).astype(dout.dtype, copy=False)

    register(OpDef(name, inputs=["X"], outputs=["Out"], attrs=attrs, infer=_float_like,
                   kernel=kernel, doc=doc,
                   grad=grad_op(f"{name}_grad", inputs=("X",) if reads == "X" else (),
                                outputs=("Out",) if reads == "Out" else ())))
    register(OpDef(f"{name}_grad", inputs=[reads, "Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
                   infer=lambda v, dout, **a: dout, kernel=grad_kernel,
                   doc=f"the gradient of {name}: X@GRAD from {reads} and Out@GRAD"))


for _name, _spec in SCALAR_ACTIVATIONS.items():
    _register_scalar(_name, *_spec)

# ---- prelu: a learned slope below zero -------------------------------------------------------

_LAYOUTS = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")
PRELU_ATTRS = {
    "mode": Attr("str", "all", lambda v: None if v in ("all", "channel", "element")
                 else "must be 'all', 'channel' or 'element'"),
    "data_format": Attr("str", "NCHW", lambda v: None if v in _LAYOUTS
                        else f"must be one of {', '.join(_LAYOUTS)}"),
}


def _alpha_shape(x_shape, mode, data_format):
    """The shape Alpha broadcasts from against X: () for all, a channel axis, or X's own."""
    rank = len(x_shape)
    if mode == "all":
        return (1,) * rank
    if mode == "element":
        return (1,) + tuple(x_shape[1:])
    axis = rank - 1 if data_format[-1] == "C" else 1
    return tuple(x_shape[axis] if i == axis else 1 for i in range(rank))


def _prelu_infer(x, alpha, *, mode, data_format):
    _float_like(x)
    if mode != "all" and len(x.shape) < 2:
        fail(f"X must have rank >= 2 for mode '{mode}', got shape {tuple(x.shape)}")
    want = _alpha_shape(x.shape, mode, data_format)
    n = 1
    for d in want:
        n = -1 if d < 0 or n < 0 else n * d
    size = 1
    for d in alpha.shape:
        size = -1 if d < 0 or size < 0 else size * d
    if n >= 0 and size >= 0 and size != n:
        fail(f"Alpha must hold {n} value(s) for mode '{mode}' and X of shape "
             f"{tuple(x.shape)}, got shape {tuple(alpha.shape)}")
    return x


def _prelu(ctx, x, alpha, *, mode, data_format):
    a = alpha.reshape(_alpha_shape(x.shape, mode, data_format)).astype(x.dtype, copy=False)
    return ctx.xp.where(x > 0, x, a * x)


def _prelu_grad(ctx, x, alpha, dout, *, mode, data_format):
    shape = _alpha_shape(x.shape, mode, data_format)
    a = alpha.reshape(shape).astype(x.dtype, copy=False)
    gx = ctx.xp.where(x > 0, dout, a * dout) if ctx.want(0) else None
    ga = None
    if ctx.want(1):
        full = ctx.xp.where(x > 0, 0, x * dout)
        axes = tuple(i for i, s in enumerate(shape) if s == 1)
        ga = full.sum(axis=axes).reshape(alpha.shape).astype(alpha.dtype, copy=False)
    return gx, ga


register(OpDef(
    "prelu", inputs=["X", "Alpha"], outputs=["Out"], attrs=PRELU_ATTRS, infer=_prelu_infer,
    kernel=_prelu, grad=grad_op("prelu_grad", inputs=("X", "Alpha"), in_grads=("X", "Alpha")),
    doc="Out = X where X > 0, else Alpha * X (Alpha: one value, one per channel, or per element)"))
register(OpDef(
    "prelu_grad", inputs=["X", "Alpha", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Alpha@GRAD", dispensable=True)],
    attrs=PRELU_ATTRS, infer=lambda x, a, dout, **_: (x, a), kernel=_prelu_grad,
    doc="the gradients of prelu: X@GRAD and Alpha@GRAD from X, Alpha and Out@GRAD"))

# ---- maxout: the largest of each group of channels ---------------------------------------------

MAXOUT_ATTRS = {"groups": Attr("int", comment="channels per group (required)"),
                "axis": Attr("int", 1, lambda v: None if v in (1, -1, 3)
                             else "must be 1 (NCHW) or -1 / 3 (NHWC)")}


def _maxout_infer(x, *, groups, axis):
    if len(x.shape) != 4:
        fail(f"X must be rank 4 (NCHW or NHWC), got shape {tuple(x.shape)}")
    channels = x.shape[axis]
    if groups <= 0 or (channels >= 0 and channels % groups):
        fail(f"X's channel dimension ({channels}) must be a multiple of groups, got "
             f"groups={groups}")
    shape = list(x.shape)
    shape[axis] = channels // groups if channels >= 0 else -1
    return x.with_shape(shape)


def _grouped(x, groups, axis):
    """X with its channel axis split into (channels // groups, groups)."""
    axis = axis % 4
    shape = x.shape[:axis] + (x.shape[axis] // groups, groups) + x.shape[axis + 1:]
    return x.reshape(shape), axis + 1


def _maxout(ctx, x, *, groups, axis):
    g, inner = _grouped(x, groups, axis)
    return g.max(axis=inner)


def _maxout_grad(ctx, x, out, dout, *, groups, axis):
    g, inner = _grouped(x, groups, axis)
    hit = g == ctx.xp.expand_dims(out, inner)
    first = hit & (ctx.xp.cumsum(hit, axis=inner) == 1)     # one winner per group
    return (first * ctx.xp.expand_dims(dout, inner)).reshape(x.shape).astype(dout.dtype)


register(OpDef(
    "maxout", inputs=["X"], outputs=["Out"], attrs=MAXOUT_ATTRS, infer=_maxout_infer,
    kernel=_maxout, grad=grad_op("maxout_grad", inputs=("X",), outputs=("Out",)),
    doc="Out[:, c] = max over g < groups of X[:, c * groups + g] (along axis)"))
register(OpDef(
    "maxout_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=MAXOUT_ATTRS,
    infer=lambda x, out, dout, **_: x, kernel=_maxout_grad,
    doc="the gradient of maxout: Out@GRAD to the first maximum of each group"))
