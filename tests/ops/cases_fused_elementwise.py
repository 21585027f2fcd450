"""Contract cases for paddle_nb/ops/fused_elementwise.py: fused_elementwise_chain (inference
only: no grad op, so no gradient check), against each step written out in NumPy (float64). It
is paddle_nb's op (PaddlePaddle has no such type), so there is no PaddlePaddle fixture:
tests/passes/test_models.py checks it inside every zoo model and corpus program."""

import json
import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(31)
F = np.float32
ERF = np.vectorize(math.erf)
SIG = lambda v: 1 / (1 + np.exp(-v))     # noqa: E731

REF_UNARY = {
    "relu": lambda v, a: np.maximum(v, 0),
    "relu6": lambda v, a: np.clip(v, 0, a.get("threshold", 6.0)),
    "leaky_relu": lambda v, a: np.where(v > 0, v, a.get("alpha", 0.02) * v),
    "sigmoid": lambda v, a: SIG(v),
    "tanh": lambda v, a: np.tanh(v),
    "exp": lambda v, a: np.exp(v),
    "sqrt": lambda v, a: np.sqrt(v),
    "rsqrt": lambda v, a: 1 / np.sqrt(v),
    "abs": lambda v, a: np.abs(v),
    "square": lambda v, a: v * v,
    "erf": lambda v, a: ERF(v),
    "silu": lambda v, a: v * SIG(v),
    "swish": lambda v, a: v * SIG(a.get("beta", 1.0) * v),
    "hard_swish": lambda v, a: v * np.clip(v + 3, 0, 6) / 6,
    "hard_sigmoid": lambda v, a: np.clip(a.get("slope", 0.2) * v + a.get("offset", 0.5), 0, 1),
    "gelu": lambda v, a: (0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                 (v + 0.044715 * v ** 3)))
                          if a.get("approximate") else 0.5 * v * (1 + ERF(v / math.sqrt(2)))),
    "pow": lambda v, a: v ** a.get("factor", 1.0),
    "scale": lambda v, a: (v * a.get("scale", 1.0) + a.get("bias", 0.0)
                           if a.get("bias_after_scale", True)
                           else (v + a.get("bias", 0.0)) * a.get("scale", 1.0)),
}
REF_BINARY = {"elementwise_add": np.add, "elementwise_sub": np.subtract,
              "elementwise_mul": np.multiply, "elementwise_div": np.divide,
              "elementwise_max": np.maximum, "elementwise_min": np.minimum,
              "elementwise_pow": np.power}


def _aligned(x, y, axis):
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    small, big = (y, x) if y.ndim < x.ndim else (x, y)
    shaped = small.reshape((1,) * axis + small.shape + (1,) * (big.ndim - axis - small.ndim))
    return (x, shaped) if small is y else (shaped, y)


def chain_ref(ins, attrs):
    xs = [x.astype(np.float64) for x in ins["X"]]
    running = None
    for step in json.loads(attrs["chain"]):
        pick = lambda ref: running if ref == "#" else xs[ref]    # noqa: E731
        a = step.get("attrs", {})
        if step["type"] in REF_BINARY:
            x, y = _aligned(pick(step["X"]), pick(step["Y"]), a.get("axis", -1))
            running = REF_BINARY[step["type"]](x, y)
        else:
            running = REF_UNARY[step["type"]](pick(step["X"]), a)
    return {"Out": running}


def arr(*shape, low=None):
    a = rng.standard_normal(shape)
    return (np.abs(a) + 0.5 if low else a).astype(F)


def step(kind, x="#", y=None, **attrs):
    out = {"type": kind, "X": x, "attrs": attrs}
    if y is not None:
        out["Y"] = y
    return out


def case(name, xs, steps, inplace=False):
    """(``inplace`` writes over X[0]: the harness runs a kernel several times on the same
    inputs, so it is asked for only where the op must refuse it; tests/passes checks it.)"""
    return Case(inputs={"X": xs}, attrs={"chain": json.dumps(steps), "inplace": inplace},
                ref=chain_ref, name=name)


ACT_STEPS = [step("relu6", threshold=6.0), step("leaky_relu", alpha=0.1),
             step("leaky_relu", alpha=-0.5), step("sigmoid"), step("tanh"), step("abs"),
             step("square"), step("erf"), step("silu"), step("swish", beta=1.5),
             step("hard_swish", threshold=6.0, scale=6.0, offset=3.0),
             step("hard_sigmoid", slope=0.2, offset=0.5), step("gelu", approximate=False),
             step("gelu", approximate=True), step("scale", scale=0.5, bias=1.0),
             step("scale", scale=2.0, bias=-1.0, bias_after_scale=False), step("exp")]

CASES = {"fused_elementwise_chain": [
    case("add then relu (a residual block)", [arr(2, 3, 4, 4), arr(2, 3, 4, 4)],
         [step("elementwise_add", 0, 1, axis=-1), step("relu")]),
    case("silu written out: sigmoid(x) * x", [arr(2, 5)],
         [step("sigmoid", 0), step("elementwise_mul", "#", 0, axis=-1)]),
    case("silu written out, inplace asked (X[0] read later: not written over)", [arr(2, 5)],
         [step("sigmoid", 0), step("elementwise_mul", 0, "#", axis=-1)], inplace=True),
    case("squeeze-excitation gate: broadcast into a bigger value",
         [arr(2, 3, 1, 1), arr(3), arr(2, 3, 4, 4)],
         [step("elementwise_add", 0, 1, axis=1), step("hard_sigmoid", slope=0.2, offset=0.5),
          step("elementwise_mul", 2, "#", axis=-1)]),
    case("a norm: scale, sqrt, rsqrt, div, sub, max, min, pow",
         [arr(3, 4, low=True), arr(4, low=True)],
         [step("scale", 0, scale=2.0, bias=0.5), step("sqrt"), step("rsqrt"),
          step("elementwise_div", "#", 1, axis=-1), step("elementwise_sub", 1, "#", axis=-1),
          step("elementwise_max", "#", 1, axis=-1), step("elementwise_min", "#", 1, axis=-1),
          step("abs"), step("pow", factor=1.5), step("elementwise_pow", "#", 1, axis=-1)]),
    case("every activation in turn", [arr(3, 7)], [step("relu", 0)] + ACT_STEPS),
    case("float64", [arr(4, 3).astype(np.float64)], [step("tanh", 0), step("exp")]),
]}


def _m(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


BAD = {"fused_elementwise_chain": [
    Bad(inputs={"X": [_m(2, 3)]}, attrs={"chain": json.dumps([step("softmax", 0)])},
        error=ShapeError, match="op type 'softmax' is not one fused_elementwise_chain"),
    Bad(inputs={"X": [_m(2, 3)]}, attrs={"chain": json.dumps([step("relu", "#")])},
        error=ShapeError, match=r"step 0 \(relu\): X must be an input index, got '#'"),
    Bad(inputs={"X": [_m(2, 3)]},
        attrs={"chain": json.dumps([step("elementwise_add", 0, 1)])},
        error=ShapeError, match="Y is input 1, but X has 1 inputs"),
    Bad(inputs={"X": [_m(2, 3), _m(4)]},
        attrs={"chain": json.dumps([step("elementwise_add", 0, 1, axis=-1)])},
        error=ShapeError, match="do not broadcast"),
    Bad(inputs={"X": [_m(2, 3, dtype=np.int32)]},
        attrs={"chain": json.dumps([step("elementwise_add", 0, 0, axis=-1)])},
        error=ShapeError, match=r"step 0 \(elementwise_add\) makes int32 values: the fused "
                                "chain evaluates floating-point steps only"),
    Bad(inputs={"X": [_m(2, 3)]}, attrs={"chain": "[]"}, error=ShapeError,
        match="non-empty JSON list"),
]}
