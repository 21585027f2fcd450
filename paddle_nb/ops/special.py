"""Special functions: the modified Bessel functions i0, i0e, i1, i1e and polygamma.

Their slots are lower case (``x``, ``out``), as PaddlePaddle 2.6 declares them. The Bessel
functions sum their power series, I_v(x) = sum_k (x/2)^(2k+v) / (k! (k+v)!), up to |x| = 40
and use the large-x expansion e^|x| / sqrt(2 pi |x|) * sum_k (-1)^k a_k(v) / |x|^k beyond;
the ``e`` forms are scaled by exp(-|x|). ``polygamma`` (the n-th derivative of digamma)
shifts x up past 10 with the recurrence psi_n(x) = psi_n(x + 1) - (-1)^n n! / x^(n+1) and
uses the asymptotic series there. Everything is computed in float64.
"""

import math

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.math_unary import digamma
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = ["bessel", "polygamma"]

_SERIES_UP_TO = 40.0
_TERMS = 90
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730]     # B_2 ... B_12


def _series(xp, a, order):
    """sum_k (a/2)^(2k+order) / (k! (k+order)!) for a >= 0 (float64)."""
    half = a / 2
    term = half ** order / math.factorial(order)
    total = term
    for k in range(1, _TERMS):
        term = term * half * half / (k * (k + order))
        total = total + term
    return total


def _expansion(xp, a, order):
    """e^-a * I_order(a) for large a: (2 pi a)^-1/2 * sum_k (-1)^k a_k / a^k."""
    total, coefficient = 1.0, 1.0
    for k in range(1, 8):
        coefficient = coefficient * (4 * order * order - (2 * k - 1) ** 2) / (k * 8)
        total = total + (-1) ** k * coefficient / a ** k
    return total / xp.sqrt(2 * math.pi * a)


def bessel(xp, x, order, scaled):
    """I_order(x) (``scaled``: times exp(-|x|)) for order 0 or 1, elementwise."""
    a = xp.abs(x.astype("float64"))
    small = xp.minimum(a, _SERIES_UP_TO)
    near = _series(xp, small, order) * (xp.exp(-small) if scaled else 1)
    big = xp.maximum(a, _SERIES_UP_TO)
    far = _expansion(xp, big, order) * (1 if scaled else xp.exp(big))
    value = xp.where(a <= _SERIES_UP_TO, near, far)
    return xp.sign(x) * value if order == 1 else value      # I_1 is odd, I_0 even


def polygamma(xp, x, n):
    """psi_n(x), the n-th derivative of digamma (n = 0: digamma itself)."""
    x = x.astype("float64")
    if n == 0:
        return digamma(xp, x)
    shift = max(0, math.ceil(10 - float(x.min()))) if x.size else 0
    sign = (-1) ** (n + 1)
    total = 0.0
    for k in range(shift):                         # the recurrence, one step at a time
        total = total + 1 / (x + k) ** (n + 1)
    z = x + shift
    series = math.factorial(n - 1) / z ** n + math.factorial(n) / (2 * z ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        series = series + b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) *
                                                               z ** (2 * k + n))
    return sign * (math.factorial(n) * total + series)


def _float_like(x, **attrs):
    if x.dtype.kind != "f":
        fail(f"x must be a floating-point tensor, got {x.dtype}")
    return x


# name: (forward(xp, x), reads out, derivative(xp, x, out, dout), doc)
BESSEL = {
    "i0": (lambda xp, x: bessel(xp, x, 0, False), False,
           lambda xp, x, out, d: d * bessel(xp, x, 1, False), "out = I_0(x)"),
    "i0e": (lambda xp, x: bessel(xp, x, 0, True), True,
            lambda xp, x, out, d: d * (bessel(xp, x, 1, True) - xp.sign(x) * out),
            "out = exp(-|x|) I_0(x)"),
    "i1": (lambda xp, x: bessel(xp, x, 1, False), True,
           lambda xp, x, out, d: d * (bessel(xp, x, 0, False) - _over_x(xp, out, x)),
           "out = I_1(x)"),
    "i1e": (lambda xp, x: bessel(xp, x, 1, True), True,
            lambda xp, x, out, d: d * (bessel(xp, x, 0, True) - xp.sign(x) * out
                                       - _over_x(xp, out, x)),
            "out = exp(-|x|) I_1(x)"),
}


def _over_x(xp, out, x):
    """out / x, with its limit 1/2 at x = 0 (I_1(x) / x -> 1/2)."""
    safe = xp.where(x == 0, 1, x)
    return xp.where(x == 0, 0.5, out / safe)


def _register_bessel(name, forward, reads_out, derivative, doc):
    reads = ["x", "out"] if reads_out else ["x"]

    def grad_kernel(ctx, x, *rest):
        out, dout = rest if reads_out else (forward(ctx.xp, x), rest[0])
        return derivative(ctx.xp, x.astype("float64"), out.astype("float64"), dout).astype(
            dout.dtype)

    register(OpDef(name, inputs=["x"], outputs=["out"], infer=_float_like,
                   kernel=lambda ctx, x: forward(ctx.xp, x).astype(x.dtype),
                   grad=grad_op(f"{name}_grad", inputs=("x",),
                                outputs=("out",) if reads_out else (), out_grads=("out",),
                                in_grads=("x",)), doc=doc))
    register(OpDef(f"{name}_grad", inputs=[*reads, "out@GRAD"], outputs=["x@GRAD"],
                   infer=lambda *metas: metas[0], kernel=grad_kernel,
                   doc=f"the gradient of {name}"))


for _name, _spec in BESSEL.items():
    _register_bessel(_name, *_spec)

N_ATTR = {"n": Attr("int", 0, lambda v: None if v >= 0 else "must be >= 0",
                    "which derivative of digamma")}
register(OpDef(
    "polygamma", inputs=["x"], outputs=["out"], attrs=N_ATTR, infer=_float_like,
    kernel=lambda ctx, x, *, n: polygamma(ctx.xp, x, n).astype(x.dtype),
    grad=grad_op("polygamma_grad", inputs=("x",), out_grads=("out",), in_grads=("x",)),
    doc="out = psi_n(x), the n-th derivative of digamma"))
register(OpDef(
    "polygamma_grad", inputs=["x", "out@GRAD"], outputs=["x@GRAD"], attrs=N_ATTR,
    infer=lambda x, dout, **a: x,
    kernel=lambda ctx, x, dout, *, n: (dout * polygamma(ctx.xp, x, n + 1)).astype(dout.dtype),
    doc="the gradient of polygamma: out@GRAD * psi_(n+1)(x)"))
