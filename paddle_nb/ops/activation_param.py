"""Activations shaped by attributes: thresholds, slopes, bounds (relu6 ... mish, clip, pow).

Like activation.py, each op is an elementwise function of one tensor whose
forward formula and derivative sit side by side; here both also take the
op's attributes (relu6's ``threshold``, leaky_relu's ``alpha``). Each grad op
reads what PaddlePaddle 2.6's grad op reads (``X``, ``Out`` or both) so that
PaddlePaddle's own training programs run. The default of an attribute is the
op's own default, which is not always the one ``paddle.nn.functional`` writes
(leaky_relu: op 0.02, F.leaky_relu 0.01): a saved program carries its values.
``clip`` and ``pow`` take their scalars from one-element tensor inputs
(``Min``/``Max``, ``FactorTensor``) when given, else from the attributes.
"""

import functools
import math

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, prepared, register

__all__ = ["erf", "erf_series", "scipy_special", "sigmoid_into", "PARAM_ACTIVATIONS"]

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2 = math.sqrt(2.0)
_TANH_GELU = math.sqrt(2.0 / math.pi)   # the tanh approximation's sqrt(2/pi)


def sigmoid_into(xp, x, out=None):
    """1 / (1 + exp(-x)) written into ``out`` (``x`` itself allowed; None: a new array),
    four ufuncs. (exp overflows to inf for x < -88 in float32: 1 / inf = 0 is right, so
    callers silence that warning where it matters.)"""
    r = xp.negative(x, out=out)
    xp.exp(r, out=r)
    r += 1
    return xp.reciprocal(r, out=r)


@functools.cache
def scipy_special():
    """``scipy.special`` when SciPy is importable, else None (SciPy is optional: the ``fast``
    extra). Imported on first use, not with paddle_nb."""
    try:
        import scipy.special
    except ImportError:
        return None
    return scipy.special


def erf(xp, x):
    """The error function on ``xp`` arrays, in x's dtype: SciPy's ``special.erf`` for NumPy
    arrays when SciPy is there (about 20x faster in float32), else :func:`erf_series`."""
    special = scipy_special() if xp.__name__ == "numpy" else None
    if special is None:
        return erf_series(xp, x)
    return special.erf(x).astype(x.dtype, copy=False)


def erf_series(xp, x):
    """The error function on ``xp`` arrays, to 1.5e-15 in float64 (NumPy has none).

    Below |x| = 2.5 the series erf(x) = 2/sqrt(pi) exp(-x^2) sum (2x^2)^n x / (2n+1)!!
    has only positive terms (no cancellation); above, erfc's continued fraction
    1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) converges fast. Both run on every
    element (clamped into their range) and ``where`` picks: no data-dependent loops.
    Float32 and float16 need fewer terms (error 6e-9 before their own rounding).
    """
    n_series, n_fraction = (50, 30) if x.dtype.itemsize >= 8 else (25, 8)
    a = xp.abs(x)
    s = xp.minimum(a, 2.5)
    term, total, s2 = s, s, 2 * s * s
    for n in range(1, n_series):
        term = term * s2 / (2 * n + 1)
        total = total + term
    small = (2 / _SQRT_PI) * xp.exp(-s * s) * total
    b = xp.maximum(a, 2.5)
    f = b
    for k in range(n_fraction, 0, -1):
        f = b + (k / 2) / f
    large = 1 - xp.exp(-b * b) / (_SQRT_PI * f)
    return xp.sign(x) * xp.where(a < 2.5, small, large)


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


def _softplus(xp, x):
    """log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|))."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


# ---- forward and derivative, side by side -------------------------------------------------
# forward(xp, x, **attrs); derivative(xp, <what the grad op reads, in slot order>, dout, **attrs)

def relu6(xp, x, threshold):
    return xp.minimum(xp.maximum(x, 0), threshold)


def relu6_grad(xp, out, dout, threshold):
    return dout * ((out > 0) & (out < threshold))


def hard_swish(xp, x, threshold, scale, offset):
    # 2.6's kernel ignores the attributes (fixed 6, 6, 3, all F.hardswish writes); fluid 1.x
    # honoured them, and so does paddle_nb
    return x * xp.minimum(xp.maximum(x + offset, 0), threshold) / scale


def hard_swish_grad(xp, x, dout, threshold, scale, offset):
    # (2x + offset) / scale on the ramp, threshold / scale above it, 0 below
    inside = (x + offset > 0) & (x + offset < threshold)
    above = (x + offset >= threshold).astype(x.dtype) * (threshold / scale)   # keep X's dtype
    return dout * xp.where(inside, (2 * x + offset) / scale, above)


def hard_sigmoid(xp, x, slope, offset):
    return xp.minimum(xp.maximum(slope * x + offset, 0), 1)


def hard_sigmoid_grad(xp, out, dout, slope, offset):
    return dout * ((out > 0) & (out < 1)) * slope


def swish(xp, x, beta):
    return x * _sigmoid(xp, beta * x)


def swish_grad(xp, x, dout, beta):
    s = _sigmoid(xp, beta * x)
    return dout * (s + beta * x * s * (1 - s))


def silu(xp, x):
    return x * _sigmoid(xp, x)


def silu_grad(xp, x, out, dout):
    s = _sigmoid(xp, x)
    return dout * (s + out * (1 - s))      # out * (1 - s) = x s (1 - s)


def gelu(xp, x, approximate):
    if approximate:
        return 0.5 * x * (1 + xp.tanh(_TANH_GELU * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1 + erf(xp, x / _SQRT_2))


def gelu_grad(xp, x, dout, approximate):
    if approximate:
        t = xp.tanh(_TANH_GELU * (x + 0.044715 * x * x * x))
        dt = _TANH_GELU * (1 + 3 * 0.044715 * x * x) * (1 - t * t)
        return dout * (0.5 * (1 + t) + 0.5 * x * dt)
    cdf = 0.5 * (1 + erf(xp, x / _SQRT_2))
    return dout * (cdf + x * xp.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


def leaky_relu(xp, x, alpha):
    return xp.where(x > 0, x, alpha * x)


def leaky_relu_grad(xp, x, dout, alpha):
    return xp.where(x >= 0, dout, alpha * dout)      # slope 1 at 0 itself, as PaddlePaddle


def elu(xp, x, alpha):
    return xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0)))


def elu_grad(xp, x, out, dout, alpha):
    # below 0, d/dx alpha (e^x - 1) = alpha e^x (written with x: alpha may be negative)
    return xp.where(x > 0, dout, dout * alpha * xp.exp(xp.minimum(x, 0)))


def softplus(xp, x, beta, threshold):
    # above threshold, log(1 + e^(beta x)) / beta is x to float precision (and e^ overflows)
    return xp.where(beta * x > threshold, x, _softplus(xp, beta * x) / beta)


def softplus_grad(xp, x, dout, beta, threshold):
    return xp.where(beta * x > threshold, dout, dout * _sigmoid(xp, beta * x))


def brelu(xp, x, t_min, t_max):
    return xp.minimum(xp.maximum(x, t_min), t_max)


def brelu_grad(xp, x, dout, t_min, t_max):
    return dout * ((x > t_min) & (x < t_max))


def logsigmoid(xp, x):
    return -_softplus(xp, -x)


def logsigmoid_grad(xp, x, dout):
    return dout * _sigmoid(xp, -x)


def tanh_shrink(xp, x):
    return x - xp.tanh(x)


def tanh_shrink_grad(xp, x, dout):
    t = xp.tanh(x)
    return dout * t * t


def softshrink(xp, x, **attrs):
    lam = attrs["lambda"]                   # a Python keyword: it comes through **attrs
    return xp.where(x > lam, x - lam, xp.where(x < -lam, x + lam, 0))


def softshrink_grad(xp, x, dout, **attrs):
    return dout * (xp.abs(x) > attrs["lambda"])


def hard_shrink(xp, x, threshold):
    return xp.where(xp.abs(x) > threshold, x, 0)


def hard_shrink_grad(xp, x, dout, threshold):
    return dout * (xp.abs(x) > threshold)


def mish(xp, x, threshold):
    return x * xp.tanh(xp.where(x > threshold, x, _softplus(xp, x)))


def mish_grad(xp, x, dout, threshold):
    t = xp.tanh(xp.where(x > threshold, x, _softplus(xp, x)))
    # d softplus / dx; above threshold 1 (2.6 keeps 1 - exp(-x) there: equal at the default 20)
    dsp = xp.where(x > threshold, 1, _sigmoid(xp, x))
    return dout * (t + x * (1 - t * t) * dsp)


# ---- the table: op type -> (forward, derivative, what the grad op reads, attrs, doc) -------

def _positive(v):
    return None if v > 0 else "must be > 0"


def _nonzero(v):
    return None if v != 0 else "must not be 0 (it divides)"


def _non_negative(v):
    return None if v >= 0 else "must be >= 0"


PARAM_ACTIVATIONS = {
    "relu6": (relu6, relu6_grad, ("Out",), {
        # 2.6 writes no threshold (fixed at 6); fluid 1.x programs carry one
        "threshold": Attr("float", 6.0, _positive, "the upper bound")},
        "Out = min(max(X, 0), threshold)"),
    "hard_swish": (hard_swish, hard_swish_grad, ("X",), {
        "threshold": Attr("float", 6.0, _positive), "scale": Attr("float", 6.0, _nonzero),
        "offset": Attr("float", 3.0)},
        "Out = X * min(max(X + offset, 0), threshold) / scale"),
    "hard_sigmoid": (hard_sigmoid, hard_sigmoid_grad, ("Out",), {
        "slope": Attr("float", 0.2), "offset": Attr("float", 0.5)},
        "Out = min(max(slope * X + offset, 0), 1)"),
    "swish": (swish, swish_grad, ("X",), {
        # 2.6 writes no beta (fixed at 1); fluid 1.x programs carry one
        "beta": Attr("float", 1.0)},
        "Out = X * sigmoid(beta * X)"),
    "silu": (silu, silu_grad, ("X", "Out"), {}, "Out = X * sigmoid(X)"),
    "gelu": (gelu, gelu_grad, ("X",), {
        "approximate": Attr("bool", False, comment="tanh approximation instead of erf")},
        "Out = X * Phi(X) = 0.5 X (1 + erf(X / sqrt 2)); approximate: "
        "0.5 X (1 + tanh(sqrt(2/pi) (X + 0.044715 X^3)))"),
    "leaky_relu": (leaky_relu, leaky_relu_grad, ("X",), {
        "alpha": Attr("float", 0.02, comment="the slope below 0")},
        "Out = X if X > 0 else alpha * X"),
    "elu": (elu, elu_grad, ("X", "Out"), {"alpha": Attr("float", 1.0)},
            "Out = X if X > 0 else alpha * (exp(X) - 1)"),
    "softplus": (softplus, softplus_grad, ("X",), {
        "beta": Attr("float", 1.0, _nonzero),
        "threshold": Attr("float", 20.0, comment="above it (beta * X), Out = X")},
        "Out = log(1 + exp(beta * X)) / beta, or X where beta * X > threshold"),
    "brelu": (brelu, brelu_grad, ("X",), {
        "t_min": Attr("float", 0.0), "t_max": Attr("float", 24.0)},
        "Out = min(max(X, t_min), t_max) (paddle.nn.functional.hardtanh writes it)"),
    "logsigmoid": (logsigmoid, logsigmoid_grad, ("X",), {},
                   "Out = log(sigmoid(X)) = -log(1 + exp(-X))"),
    "tanh_shrink": (tanh_shrink, tanh_shrink_grad, ("X",), {}, "Out = X - tanh(X)"),
    "softshrink": (softshrink, softshrink_grad, ("X",), {
        "lambda": Attr("float", 0.5, _non_negative)},
        "Out = X - lambda above lambda, X + lambda below -lambda, 0 between"),
    "hard_shrink": (hard_shrink, hard_shrink_grad, ("X",), {
        "threshold": Attr("float", 0.5)}, "Out = X where |X| > threshold, else 0"),
    "mish": (mish, mish_grad, ("X",), {
        "threshold": Attr("float", 20.0, comment="above it, softplus(X) is taken as X")},
        "Out = X * tanh(softplus(X))"),
}


def _float_like(x, **attrs):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x


def _brelu_infer(x, *, t_min, t_max):
    if not t_min < t_max:
        fail(f"t_min must be less than t_max, got t_min={t_min}, t_max={t_max}")
    return _float_like(x)


def _register(name, forward, derivative, reads, attrs, doc, infer=_float_like):
    def make(ctx, metas, **a):             # the attributes bound once
        xp = ctx.xp
        return lambda x: forward(xp, x, **a).astype(x.dtype, copy=False)

    def make_grad(ctx, metas, **a):        # args: the read slots, then Out@GRAD
        xp = ctx.xp
        return lambda *args: derivative(xp, *args, **a).astype(args[-1].dtype, copy=False)

    register(OpDef(
        name, inputs=["X"], outputs=["Out"], attrs=attrs,
        infer=infer, kernel=prepared(make),
        grad=grad_op(f"{name}_grad", inputs=tuple(s for s in reads if s == "X"),
                     outputs=tuple(s for s in reads if s == "Out")),
        doc=doc))
    register(OpDef(
        f"{name}_grad", inputs=[*reads, "Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
        infer=lambda *metas, **a: metas[-1], kernel=prepared(make_grad),
        doc=f"the gradient of {name}: X@GRAD from {', '.join(reads)} and Out@GRAD"))


_INFER = {"brelu": _brelu_infer}      # shape rules that also check attributes against each other
for _name, _spec in PARAM_ACTIVATIONS.items():
    _register(_name, *_spec, infer=_INFER.get(_name, _float_like))


# ---- clip and pow: a scalar from an attribute, or from a one-element tensor -------------------

def _scalar_input(slot, meta):
    if meta is not None and -1 not in meta.shape and math.prod(meta.shape) != 1:
        fail(f"{slot} must hold one value, got shape {tuple(meta.shape)}")


def _clip_infer(x, lo, hi, *, min, max):
    if x.dtype.kind not in "fi":
        fail(f"X must be a floating-point or integer tensor, got {x.dtype}")
    _scalar_input("Min", lo)
    _scalar_input("Max", hi)
    if lo is None and hi is None and min > max:
        fail(f"max must be >= min, got min={min}, max={max}")
    return x


def _bounds(x, lo, hi, min, max):
    """clip's bounds: the tensors' values where given (as 0-d arrays), else the attributes
    (truncated for an integer X, as PaddlePaddle casts them to X's type)."""
    cast = int if x.dtype.kind == "i" else float
    return (cast(min) if lo is None else lo.reshape(()).astype(x.dtype),
            cast(max) if hi is None else hi.reshape(()).astype(x.dtype))


def _clip_kernel(ctx, x, lo, hi, *, min, max):
    lo, hi = _bounds(x, lo, hi, min, max)
    return ctx.xp.minimum(ctx.xp.maximum(x, lo), hi).astype(x.dtype, copy=False)


def _clip_grad_kernel(ctx, x, lo, hi, dout, *, min, max):
    lo, hi = _bounds(x, lo, hi, min, max)
    return (dout * ((x > lo) & (x < hi))).astype(dout.dtype, copy=False)


_BOUNDS = [Slot("Min", dispensable=True, comment="a one-element tensor; overrides min"),
           Slot("Max", dispensable=True, comment="a one-element tensor; overrides max")]
_CLIP_ATTRS = {"min": Attr("float", comment="the lower bound (required, as in PaddlePaddle)"),
               "max": Attr("float", comment="the upper bound (required)")}
register(OpDef(
    "clip", inputs=["X", *_BOUNDS], outputs=["Out"], attrs=_CLIP_ATTRS, infer=_clip_infer,
    kernel=_clip_kernel, grad=grad_op("clip_grad", inputs=("X", "Min", "Max")),
    doc="Out = min(max(X, min), max); the Min / Max tensors, when given, replace the attributes"))
register(OpDef(
    "clip_grad", inputs=["X", *_BOUNDS, "Out@GRAD"], outputs=["X@GRAD"], attrs=_CLIP_ATTRS,
    infer=lambda x, lo, hi, dout, **a: dout, kernel=_clip_grad_kernel,
    doc="the gradient of clip: Out@GRAD where min < X < max, else 0"))


def _pow_infer(x, factor_tensor, *, factor):
    _float_like(x)
    _scalar_input("FactorTensor", factor_tensor)
    return x


def _factor(x, factor_tensor, factor):
    return factor if factor_tensor is None else factor_tensor.reshape(()).astype(x.dtype)


def _pow_kernel(ctx, x, factor_tensor, *, factor):
    return (x ** _factor(x, factor_tensor, factor)).astype(x.dtype, copy=False)


def _pow_grad_kernel(ctx, x, factor_tensor, dout, *, factor):
    p = _factor(x, factor_tensor, factor)
    return (dout * p * x ** (p - 1)).astype(dout.dtype, copy=False)


_FACTOR = Slot("FactorTensor", dispensable=True, comment="a one-element tensor; overrides factor")
register(OpDef(
    "pow", inputs=["X", _FACTOR], outputs=["Out"], attrs={"factor": Attr("float", 1.0)},
    infer=_pow_infer, kernel=_pow_kernel,
    grad=grad_op("pow_grad", inputs=("X", "FactorTensor")),
    doc="Out = X ** factor (FactorTensor, when given, replaces factor)"))
register(OpDef(
    "pow_grad", inputs=["X", _FACTOR, "Out@GRAD"], outputs=["X@GRAD"],
    attrs={"factor": Attr("float", 1.0)}, infer=lambda x, f, dout, **a: dout,
    kernel=_pow_grad_kernel,
    doc="the gradient of pow: X@GRAD = Out@GRAD * factor * X ** (factor - 1)"))
