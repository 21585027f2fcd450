"""Elementwise math of one tensor: trigonometry, rounding, logarithms, erf and the gammas.

As in activation.py, each op's forward formula and derivative sit side by side. The
derivative reads what PaddlePaddle 2.6's grad op reads: ``X`` for most (``sin_grad`` reads
X and Out@GRAD), ``Out`` where the derivative is cheaper in the output (``rsqrt``,
``reciprocal``, ``expm1``), nothing but Out@GRAD for the flat rounding ops (their gradient
is zero). ``round`` rounds halves away from zero, as PaddlePaddle does (NumPy rounds them
to even). ``lgamma`` and ``digamma`` are computed on ``xp`` arrays by shifting x up ten
steps and using Stirling's series, with the reflection formula below one half.
"""

import math

from paddle_nb.ops.activation_param import erf
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import OpDef, fail, register

__all__ = ["UNARY_MATH", "lgamma", "digamma", "trigamma", "erfinv"]

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SHIFT = 10     # gammas: x moves to x + 10 >= 10.5, where Stirling's series is exact enough
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _stirling_lgamma(xp, z):
    """log Gamma(z) for z >= 10.5: Stirling's series to the z^-7 term (error < 1e-12)."""
    r = 1 / z
    r2 = r * r
    series = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))
    return (z - 0.5) * xp.log(z) - z + _HALF_LOG_2PI + series


def _above_half(x, xp):
    """(x >= 0.5, x moved to >= 0.5 by reflection where it is below), in float64: the shifted
    series subtracts numbers of similar size, which float32 would round away."""
    up = x >= 0.5
    return up, xp.where(up, x, 1 - x).astype("float64")


def lgamma(xp, x):
    """log |Gamma(x)|; below 0.5 by reflection: log(pi / |sin(pi x)|) - lgamma(1 - x)."""
    up, a = _above_half(x, xp)
    product = a
    for k in range(1, _SHIFT):
        product = product * (a + k)
    value = _stirling_lgamma(xp, a + _SHIFT) - xp.log(product)
    reflected = math.log(math.pi) - xp.log(xp.abs(xp.sin(math.pi * a))) - value
    return xp.where(up, value, reflected)


def digamma(xp, x):
    """d/dx lgamma(x); below 0.5 by reflection: psi(1 - x) - pi / tan(pi x)."""
    up, a = _above_half(x, xp)
    z = a + _SHIFT
    r2 = 1 / (z * z)
    value = xp.log(z) - 0.5 / z - r2 * (1 / 12 - r2 * (1 / 120 - r2 * (1 / 252 - r2 / 240)))
    for k in range(_SHIFT):
        value = value - 1 / (a + k)
    return xp.where(up, value, value + math.pi / xp.tan(math.pi * a))


def trigamma(xp, x):
    """d/dx digamma(x); below 0.5 by reflection: pi^2 / sin^2(pi x) - psi1(1 - x)."""
    up, a = _above_half(x, xp)
    z = a + _SHIFT
    r = 1 / z
    r2 = r * r
    value = r + r2 / 2 + r * r2 * (1 / 6 - r2 * (1 / 30 - r2 * (1 / 42 - r2 / 30)))
    for k in range(_SHIFT):
        value = value + 1 / ((a + k) * (a + k))
    return xp.where(up, value, (math.pi / xp.sin(math.pi * a)) ** 2 - value)


def erfinv(xp, x):
    """The inverse of erf: Winitzki's closed form (to 2e-3), then three Newton steps on erf in
    float64; |x| >= 1 gives +-inf, as PaddlePaddle's kernel does."""
    a = 0.147
    v = xp.clip(x.astype("float64"), -1 + 1e-15, 1 - 1e-15)
    ln = xp.log(1 - v * v)
    first = 2 / (math.pi * a) + ln / 2
    y = xp.sign(v) * xp.sqrt(xp.sqrt(first * first - ln / a) - first)
    for _ in range(3):
        y = y - (erf(xp, y) - v) / (_TWO_OVER_SQRT_PI * xp.exp(-y * y))
    return xp.where(xp.abs(x) >= 1, xp.copysign(xp.inf, x), y)


def _round_half_away(xp, x):
    return xp.sign(x) * xp.floor(xp.abs(x) + 0.5)


def _zero(xp, dout):
    return xp.zeros_like(dout)



# name: (forward(xp, x), reads "X", "Out" or None, derivative(xp, x_or_out, dout), doc)
# (reads None: the derivative is derivative(xp, dout), zero everywhere it exists)
UNARY_MATH = {
    "erf": (erf, "X", lambda xp, x, d: d * _TWO_OVER_SQRT_PI * xp.exp(-x * x),
            "Out = erf(X) = 2/sqrt(pi) * integral of exp(-t^2) from 0 to X"),
    "erfinv": (erfinv, "Out", lambda xp, out, d: d * (math.sqrt(math.pi) / 2) * xp.exp(out * out),
               "Out = erfinv(X), the inverse of erf, for -1 < X < 1"),
    "rsqrt": (lambda xp, x: 1 / xp.sqrt(x), "Out", lambda xp, out, d: -0.5 * d * out * out * out,
              "Out = 1 / sqrt(X)"),
    "sin": (lambda xp, x: xp.sin(x), "X", lambda xp, x, d: d * xp.cos(x), "Out = sin(X)"),
    "cos": (lambda xp, x: xp.cos(x), "X", lambda xp, x, d: -d * xp.sin(x), "Out = cos(X)"),
    "tan": (lambda xp, x: xp.tan(x), "X", lambda xp, x, d: d / (xp.cos(x) ** 2), "Out = tan(X)"),
    "asin": (lambda xp, x: xp.arcsin(x), "X", lambda xp, x, d: d / xp.sqrt(1 - x * x),
             "Out = arcsin(X)"),
    "acos": (lambda xp, x: xp.arccos(x), "X", lambda xp, x, d: -d / xp.sqrt(1 - x * x),
             "Out = arccos(X)"),
    "atan": (lambda xp, x: xp.arctan(x), "X", lambda xp, x, d: d / (1 + x * x),
             "Out = arctan(X)"),
    "sinh": (lambda xp, x: xp.sinh(x), "X", lambda xp, x, d: d * xp.cosh(x), "Out = sinh(X)"),
    "cosh": (lambda xp, x: xp.cosh(x), "X", lambda xp, x, d: d * xp.sinh(x), "Out = cosh(X)"),
    "asinh": (lambda xp, x: xp.arcsinh(x), "X", lambda xp, x, d: d / xp.sqrt(x * x + 1),
              "Out = arcsinh(X)"),
    "acosh": (lambda xp, x: xp.arccosh(x), "X", lambda xp, x, d: d / xp.sqrt(x * x - 1),
              "Out = arccosh(X)"),
    "atanh": (lambda xp, x: xp.arctanh(x), "X", lambda xp, x, d: d / (1 - x * x),
              "Out = arctanh(X)"),
    "floor": (lambda xp, x: xp.floor(x), None, _zero, "Out = floor(X); its gradient is 0"),
    "ceil": (lambda xp, x: xp.ceil(x), None, _zero, "Out = ceil(X); its gradient is 0"),
    "round": (_round_half_away, None, _zero,
              "Out = X rounded to the nearest integer, halves away from 0; its gradient is 0"),
    "trunc": (lambda xp, x: xp.trunc(x), None, _zero,
              "Out = X rounded toward 0; its gradient is 0"),
    "reciprocal": (lambda xp, x: 1 / x, "Out", lambda xp, out, d: -d * out * out,
                   "Out = 1 / X"),
    "log2": (lambda xp, x: xp.log2(x), "X", lambda xp, x, d: d / (x * _LN2), "Out = log2(X)"),
    "log10": (lambda xp, x: xp.log10(x), "X", lambda xp, x, d: d / (x * _LN10),
              "Out = log10(X)"),
    "log1p": (lambda xp, x: xp.log1p(x), "X", lambda xp, x, d: d / (1 + x), "Out = ln(1 + X)"),
    "expm1": (lambda xp, x: xp.expm1(x), "Out", lambda xp, out, d: d * (out + 1),
              "Out = exp(X) - 1"),
    "softsign": (lambda xp, x: x / (1 + xp.abs(x)), "X",
                 lambda xp, x, d: d / ((1 + xp.abs(x)) ** 2), "Out = X / (1 + |X|)"),
    "lgamma": (lgamma, "X", lambda xp, x, d: d * digamma(xp, x), "Out = log |Gamma(X)|"),
    "digamma": (digamma, "X", lambda xp, x, d: d * trigamma(xp, x),
                "Out = digamma(X), the derivative of lgamma"),
}


def _float_like(x):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x


def _register(name, forward, reads, derivative, doc):
    reads_slots = [reads] if reads else []

    def grad_kernel(ctx, *args):            # args: the read slot (if any), then Out@GRAD
        return derivative(ctx.xp, *args).astype(args[-1].dtype, copy=False)

    register(OpDef(
        name, inputs=["X"], outputs=["Out"], infer=_float_like,
        kernel=lambda ctx, x: forward(ctx.xp, x).astype(x.dtype, copy=False),
        grad=grad_op(f"{name}_grad", inputs=("X",) if reads == "X" else (),
                     outputs=("Out",) if reads == "Out" else ()),
        doc=doc))
    register(OpDef(
        f"{name}_grad", inputs=[*reads_slots, "Out@GRAD"], outputs=["X@GRAD"],
        infer=lambda *metas: metas[-1], kernel=grad_kernel,
        doc=f"the gradient of {name}: X@GRAD from {reads + ' and ' if reads else ''}Out@GRAD"))


for _name, _spec in UNARY_MATH.items():
    _register(_name, *_spec)
