"""Contract cases for paddle_nb/ops/fused_conv.py: fused_conv2d_bias_act (inference only: no
grad op, so no gradient check), against conv2d's own reference plus the bias and the
activation written out in NumPy. It is paddle_nb's op (PaddlePaddle has no such type), so there
is no PaddlePaddle fixture: tests/passes/test_models.py checks it inside every zoo model."""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.cases_conv import conv_ref
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(29)
F = np.float32
ERF = np.vectorize(math.erf)

ACTS = {
    "": lambda y, a, b: y,
    "relu": lambda y, a, b: np.maximum(y, 0),
    "relu6": lambda y, a, b: np.minimum(np.maximum(y, 0), a),
    "leaky_relu": lambda y, a, b: np.where(y >= 0, y, a * y),
    "sigmoid": lambda y, a, b: 1 / (1 + np.exp(-y)),
    "silu": lambda y, a, b: y / (1 + np.exp(-y)),
    "swish": lambda y, a, b: y / (1 + np.exp(-y)),
    "hard_swish": lambda y, a, b: y * np.minimum(np.maximum(y + 3, 0), 6) / 6,
    "hard_sigmoid": lambda y, a, b: np.clip(a * y + b, 0, 1),
    "gelu": lambda y, a, b: (0.5 * y * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                    (y + 0.044715 * y ** 3))) if b
                             else 0.5 * y * (1 + ERF(y / math.sqrt(2)))),
}


def fused_ref(ins, attrs):
    y = conv_ref(ins, attrs)["Output"]
    if ins.get("Bias") is not None:
        y = y + ins["Bias"].astype(np.float64).reshape(-1, 1, 1)
    act = ACTS[attrs.get("fuse_activation", "")]
    return {"Output": act(y, attrs.get("fuse_alpha", 0.0), attrs.get("fuse_beta", 0.0))}


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def case(act, alpha=0.0, beta=0.0, bias=True, **conv_attrs):
    ins = {"Input": arr(2, 3, 6, 5), "Filter": arr(4, 3, 3, 3)}
    if bias:
        ins["Bias"] = arr(4)
    attrs = {"fuse_activation": act, "fuse_alpha": alpha, "fuse_beta": beta, **conv_attrs}
    return Case(inputs=ins, attrs=attrs, ref=fused_ref, name=f"{act or 'no activation'}")


def depthwise(act):
    ins = {"Input": arr(1, 4, 5, 5), "Filter": arr(4, 1, 3, 3), "Bias": arr(4)}
    return Case(inputs=ins, attrs={"fuse_activation": act, "groups": 4, "paddings": [1, 1]},
                ref=fused_ref, name=f"depthwise, {act}")


CASES = {"fused_conv2d_bias_act": [
    case(""), case("relu", bias=False), case("relu6", alpha=6.0), case("leaky_relu", alpha=0.1),
    case("sigmoid"), case("silu"), case("swish"), case("hard_swish", strides=[2, 1]),
    case("hard_sigmoid", alpha=1 / 6, beta=0.5), case("gelu"), case("gelu", beta=1.0),
    depthwise("hard_swish"),
]}


def _m(*shape):
    return Meta(tuple(shape), np.dtype(F))


BAD = {"fused_conv2d_bias_act": [
    Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(4, 3, 3, 3), "Bias": _m(3)},
        error=ShapeError, match=r"Bias must be 1-D with one value per output channel \(4\), "
                                r"got shape \[3\]"),
    Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(4, 3, 3, 3)},
        attrs={"fuse_activation": "tanh"}, error=ShapeError, match="fuse_activation 'tanh'"),
    Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(4, 2, 3, 3)}, error=ShapeError,
        match="Input has 3 channels"),
]}
