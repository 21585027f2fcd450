"""Random ops: integers, permutations and draws whose law an input tensor sets.

``randint`` and ``randperm`` make integers from attributes alone (as
``uniform_random`` does in creation.py); ``bernoulli``, ``poisson``,
``multinomial`` and ``exponential`` draw one number per element (or per row)
of X, whose values are the law's parameters; ``gumbel_softmax`` and ``rrelu``
are differentiable functions of X with noise inside. Every draw is made on the
host from ``ctx.generator(seed)`` (seed 0, or no seed attribute at all as in
most of these ops: the run's generator) and moved to the place.

The gradients are PaddlePaddle's: a draw's gradient is zero (``poisson_grad``;
``exponential`` writes ``fill_any_like``), ``rrelu_grad`` scales by the
Noise the forward kept, and ``gumbel_softmax_grad`` is softmax's gradient taken
from Out (PaddlePaddle's: not divided by the temperature, and zero for ``hard``).

>>> import numpy
>>> from paddle_nb.core import CPUPlace
>>> from paddle_nb.ops.machinery.context import KernelContext
>>> sorted(_randperm(KernelContext(CPUPlace(), 0), n=5, dtype=numpy.dtype("int64")).tolist())
[0, 1, 2, 3, 4]
"""

import numpy

from paddle_nb.ops.creation import SEED, SHAPE_SLOTS, check_shape, drawn_shape
from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import REQUIRED, Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import ints_at_run

__all__ = []

INT64 = numpy.dtype("int64")


def _host(ctx, x):
    """X's values on the host, where the generator draws."""
    return x if ctx.xp is numpy else ctx.xp.asnumpy(x)


def _floating(x, slot="X"):
    if x.dtype.kind != "f":
        fail(f"{slot} must be a floating-point tensor, got {x.dtype}")
    return x


# ---- randint, randperm: integers from attributes ----

def _randint_infer(shape_t, shape_list, *, low, high, shape, dtype, seed):
    if dtype not in (numpy.dtype("int32"), INT64):
        fail(f"dtype must be int32 or int64, got {dtype}")
    if low >= high:
        fail(f"low ({low}) must be less than high ({high})")
    return Meta(drawn_shape(shape, shape_t, shape_list, keep_known=False), dtype)


def _randint(ctx, shape_t, shape_list, *, low, high, shape, dtype, seed):
    shape = check_shape(ints_at_run(shape, shape_t, shape_list))
    return ctx.to_device(ctx.generator(seed).integers(low, high, size=shape).astype(dtype))


register(OpDef(
    "randint", inputs=SHAPE_SLOTS, outputs=["Out"],
    attrs={"low": Attr("int", REQUIRED), "high": Attr("int", REQUIRED, comment="excluded"),
           "shape": Attr("longs", []), "dtype": Attr("dtype", INT64), "seed": SEED},
    infer=_randint_infer, kernel=_randint,
    doc="Out = integers drawn uniformly from [low, high), of shape `shape` (paddle.randint)"))


def _randperm_infer(*, n, dtype):
    if n < 1:
        fail(f"n must be >= 1, got {n}")
    if dtype.name not in ("int32", "int64", "float32", "float64"):
        fail(f"dtype must be int32, int64, float32 or float64, got {dtype}")
    return Meta((n,), dtype)


def _randperm(ctx, *, n, dtype):
    return ctx.to_device(ctx.generator(0).permutation(n).astype(dtype))


register(OpDef(
    "randperm", outputs=["Out"],
    attrs={"n": Attr("int", REQUIRED), "dtype": Attr("dtype", INT64)},
    infer=_randperm_infer, kernel=_randperm,
    doc="Out = the numbers 0 .. n-1 in a random order (paddle.randperm)"))


# ---- bernoulli, poisson, exponential, multinomial: X holds the law's parameters ----

def _bernoulli(ctx, x):
    p = _host(ctx, x)
    return ctx.to_device((ctx.generator(0).random(p.shape) < p).astype(x.dtype))


register(OpDef(
    "bernoulli", inputs=["X"], outputs=["Out"], infer=lambda x: _floating(x), kernel=_bernoulli,
    doc="Out[i] = 1 with probability X[i], else 0 (X's dtype; paddle.bernoulli)"))


def _poisson(ctx, x):
    lam = _host(ctx, x)
    return ctx.to_device(ctx.generator(0).poisson(lam).astype(x.dtype))


register(OpDef(
    "poisson", inputs=["X"], outputs=["Out"], infer=lambda x: _floating(x), kernel=_poisson,
    grad=grad_op("poisson_grad", inputs=()),
    doc="Out[i] = a count drawn from Poisson(X[i]) (X's dtype; paddle.poisson)"))
register(OpDef(
    "poisson_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], infer=lambda dout: dout,
    kernel=lambda ctx, dout: ctx.xp.zeros_like(dout),
    doc="the gradient of poisson: zero (a draw does not depend smoothly on its rate)"))


def _exponential_infer(x, *, lam):
    if lam <= 0:
        fail(f"lambda must be > 0, got {lam}")
    return _floating(x)


def _exponential(ctx, x, **attrs):
    lam = attrs["lambda"]
    return ctx.to_device(ctx.generator(0).exponential(1.0 / lam, size=x.shape).astype(x.dtype))


def _exponential_grad(g):
    # PaddlePaddle's: X@GRAD = zeros shaped like Out@GRAD (the op is in place: one name)
    return [OpSpec("fill_any_like", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")},
                   {"value": 0.0, "dtype": -1})]


register(OpDef(
    "exponential", inputs=["X"], outputs=["Out"],
    attrs={"lambda": Attr("float", 1.0, comment="the rate; the mean is 1 / lambda")},
    infer=lambda x, **a: _exponential_infer(x, lam=a["lambda"]), kernel=_exponential,
    grad=_exponential_grad, no_need_buffer=("X",),
    doc="Out = numbers drawn from Exponential(lambda), shaped like X; written in place\n"
        "(paddle.Tensor.exponential_: Out is X)"))


def _multinomial_infer(x, *, num_samples, replacement):
    _floating(x)
    if len(x.shape) not in (1, 2):
        fail(f"X must be 1-D or 2-D (a row of probabilities per draw), got shape {tuple(x.shape)}")
    if num_samples < 1:
        fail(f"num_samples must be >= 1, got {num_samples}")
    if not replacement and x.shape[-1] >= 0 and num_samples > x.shape[-1]:
        fail(f"without replacement num_samples ({num_samples}) must not exceed the number of "
             f"categories ({x.shape[-1]})")
    return Meta(tuple(x.shape[:-1]) + (num_samples,), INT64)


def _multinomial(ctx, x, *, num_samples, replacement):
    probs = _host(ctx, x).astype(numpy.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    if (rows < 0).any() or not numpy.isfinite(rows).all():
        raise ValueError("multinomial: X must hold finite, non-negative weights")
    generator = ctx.generator(0)
    out = numpy.empty((rows.shape[0], num_samples), INT64)
    for r, row in enumerate(rows):
        total = row.sum()
        if total <= 0:
            raise ValueError(f"multinomial: row {r} of X sums to {total}; it must be > 0")
        if not replacement and num_samples > numpy.count_nonzero(row):
            raise ValueError(f"multinomial: row {r} has {numpy.count_nonzero(row)} categories of "
                             f"weight > 0, too few for {num_samples} draws without replacement")
        out[r] = generator.choice(row.size, num_samples, replace=replacement, p=row / total)
    return ctx.to_device(out.reshape(probs.shape[:-1] + (num_samples,)))


register(OpDef(
    "multinomial", inputs=["X"], outputs=["Out"],
    attrs={"num_samples": Attr("int", 1), "replacement": Attr("bool", False)},
    infer=_multinomial_infer, kernel=_multinomial,
    doc="Out[..., k] = a category index drawn with the weights of X's last dimension (int64)\n"
        "(paddle.multinomial; without replacement each row's draws differ)"))


# ---- gumbel_softmax, rrelu: differentiable, with noise inside ----

GUMBEL_ATTRS = {"temperature": Attr("float", 1.0), "hard": Attr("bool", False),
                "axis": Attr("int", -1)}


def _gumbel_infer(x, *, temperature, hard, axis):
    _floating(x)
    if not -len(x.shape) <= axis < max(len(x.shape), 1):
        fail(f"axis {axis} is out of range for X of rank {len(x.shape)}")
    if temperature <= 0:
        fail(f"temperature must be > 0, got {temperature}")
    return x


def _gumbel_softmax(ctx, x, *, temperature, hard, axis):
    xp = ctx.xp
    gumbel = -numpy.log(-numpy.log(ctx.generator(0).random(x.shape) + 1e-20) + 1e-20)
    logits = (x + ctx.to_device(gumbel.astype(x.dtype))) / temperature
    e = xp.exp(logits - logits.max(axis=axis, keepdims=True))
    out = e / e.sum(axis=axis, keepdims=True)
    if hard:   # a one-hot of each softmax's largest entry
        first = xp.argmax(out, axis=axis)
        out = (xp.arange(out.shape[axis]).reshape(
            [-1 if d == axis % out.ndim else 1 for d in range(out.ndim)])
            == xp.expand_dims(first, axis)).astype(x.dtype)
    return out.astype(x.dtype, copy=False)


def _gumbel_grad(ctx, out, dout, *, temperature, hard, axis):
    return (out * (dout - (out * dout).sum(axis=axis, keepdims=True))).astype(out.dtype, copy=False)


register(OpDef(
    "gumbel_softmax", inputs=["X"], outputs=["Out"], attrs=GUMBEL_ATTRS,
    infer=_gumbel_infer, kernel=_gumbel_softmax,
    grad=grad_op("gumbel_softmax_grad", inputs=(), outputs=("Out",)),
    doc="Out = softmax((X + g) / temperature) along axis, g ~ Gumbel(0, 1);\n"
        "with hard, the one-hot of its largest entry (F.gumbel_softmax)"))
register(OpDef(
    "gumbel_softmax_grad", inputs=["Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=GUMBEL_ATTRS,
    infer=lambda out, dout, **a: dout, kernel=_gumbel_grad,
    doc="X@GRAD = Out * (Out@GRAD - sum(Out * Out@GRAD, axis)), as PaddlePaddle computes it\n"
        "(softmax's gradient from Out, not divided by the temperature)"))


RRELU_ATTRS = {"lower": Attr("float", 0.125), "upper": Attr("float", 1.0 / 3.0),
               "is_test": Attr("bool", False, comment="true: the slope (lower + upper) / 2")}


def _rrelu_infer(x, *, lower, upper, is_test):
    _floating(x)
    if not 0 <= lower <= upper <= 1:
        fail(f"need 0 <= lower <= upper <= 1, got lower {lower}, upper {upper}")
    return x, x


def _rrelu(ctx, x, *, lower, upper, is_test):
    if is_test:
        slope = ctx.xp.full(x.shape, (lower + upper) / 2, dtype=x.dtype)
    else:
        slope = ctx.to_device(ctx.generator(0).uniform(lower, upper, x.shape).astype(x.dtype))
    noise = ctx.xp.where(x >= 0, ctx.xp.ones_like(x), slope).astype(x.dtype, copy=False)
    return (x * noise).astype(x.dtype, copy=False), noise


register(OpDef(
    "rrelu", inputs=["X"], outputs=["Out", Slot("Noise", comment="the slope used at each element")],
    attrs=RRELU_ATTRS, infer=_rrelu_infer, kernel=_rrelu,
    grad=grad_op("rrelu_grad", inputs=("X",), outputs=("Noise",)),
    doc="Out = X * Noise: Noise is 1 where X >= 0, else a slope drawn from U(lower, upper)\n"
        "(in training; (lower + upper) / 2 with is_test) (F.rrelu, nn.RReLU)"))
register(OpDef(
    "rrelu_grad", inputs=["X", "Noise", "Out@GRAD"], outputs=["X@GRAD"],
    infer=lambda x, noise, dout: dout,
    kernel=lambda ctx, x, noise, dout: (dout * noise).astype(dout.dtype, copy=False),
    doc="X@GRAD = Out@GRAD * Noise"))


def _dirichlet(ctx, alpha):
    draws = ctx.generator(0).gamma(_host(ctx, alpha))
    return ctx.to_device((draws / draws.sum(axis=-1, keepdims=True)).astype(alpha.dtype))


register(OpDef(
    "dirichlet", inputs=["Alpha"], outputs=["Out"],
    infer=lambda alpha: _floating(alpha, "Alpha"), kernel=_dirichlet,
    doc="Out[..., :] = a point of the simplex drawn from Dirichlet(Alpha[..., :])\n"
        "(paddle.distribution.Dirichlet.sample)"))

