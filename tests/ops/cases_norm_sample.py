"""Contract cases for paddle_nb/ops/norm_sample.py: layer_norm, group_norm, instance_norm.

The references loop over the normalization sets one at a time in float64
(a row of X for layer_norm, a sample's group of channels for group_norm, a
sample's channel for instance_norm), where the kernels work on reshaped views.
Gradients are checked for Y only: PaddlePaddle's grads ignore Mean@GRAD.
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(11)
F = np.float32


def arr(*shape):
    return (rng.standard_normal(shape) * 2 + 0.5).astype(F)


def vec(n):
    return (rng.random(n) + 0.5).astype(F)


def _normalize(values, eps):
    """(values - mean) / sqrt(var + eps), mean, var of one set, in float64."""
    v = np.asarray(values, np.float64).ravel()
    m = v.sum() / v.size
    var = ((v - m) ** 2).sum() / v.size
    return (v - m) / np.sqrt(var + eps), m, var


# ---- layer_norm ----

def ln_ref(ins, attrs):
    x, eps = ins["X"], attrs.get("epsilon", 1e-5)
    k = attrs.get("begin_norm_axis", 1)
    rows = x.reshape(int(np.prod(x.shape[:k])), -1)
    y, mean, var = np.empty(rows.shape), np.empty(len(rows)), np.empty(len(rows))
    for r in range(len(rows)):
        y[r], mean[r], var[r] = _normalize(rows[r], eps)
        if ins.get("Scale") is not None:
            y[r] = y[r] * ins["Scale"]
        if ins.get("Bias") is not None:
            y[r] = y[r] + ins["Bias"]
    return {"Y": y.reshape(x.shape), "Mean": mean.reshape(x.shape[:k]),
            "Variance": var.reshape(x.shape[:k])}


def ln(x, name, k=1, scale=True, bias=True, grad=None, **attrs):
    right = int(np.prod(x.shape[k:]))
    ins = {"X": x, "Scale": vec(right) if scale else None, "Bias": arr(right) if bias else None}
    if grad is None:
        grad = tuple(s for s in ("X", "Scale", "Bias") if ins[s] is not None)
    return Case(inputs=ins, attrs={"begin_norm_axis": k, **attrs}, ref=ln_ref, grad=grad,
                grad_outputs=("Y",), name=name, rtol=1e-4, atol=1e-5)


LAYER_NORM = [
    ln(arr(2, 3, 4), "rank 3, begin_norm_axis 1"),
    ln(arr(2, 3, 4), "rank 3, begin_norm_axis 2", k=2),
    ln(arr(3, 5), "no Scale, no Bias", scale=False, bias=False),
    ln(arr(3, 5), "Scale only", bias=False),
    ln(arr(3, 5), "Bias only", scale=False),
    ln(arr(2, 2, 2, 3), "rank 4, last axis, epsilon 1e-3", k=3, epsilon=1e-3),
    ln(arr(8, 16, 32), "larger, forward only", k=2, grad=()),
]


# ---- group_norm ----

def gn_ref(ins, attrs):
    x, eps, groups = ins["X"], attrs.get("epsilon", 1e-5), attrs["groups"]
    nhwc = attrs.get("data_layout") == "NHWC"
    xc = np.moveaxis(x, -1, 1) if nhwc else x          # channels on axis 1
    n, c = xc.shape[:2]
    per = c // groups
    y = np.empty(xc.shape)
    mean, var = np.empty((n, groups)), np.empty((n, groups))
    for i in range(n):
        for g in range(groups):
            part = xc[i, g * per:(g + 1) * per]
            normed, mean[i, g], var[i, g] = _normalize(part, eps)
            y[i, g * per:(g + 1) * per] = normed.reshape(part.shape)
    affine = (1, c) + (1,) * (xc.ndim - 2)
    if ins.get("Scale") is not None:
        y = y * ins["Scale"].reshape(affine)
    if ins.get("Bias") is not None:
        y = y + ins["Bias"].reshape(affine)
    return {"Y": np.moveaxis(y, 1, -1) if nhwc else y, "Mean": mean, "Variance": var}


def gn(x, groups, name, layout="NCHW", scale=True, bias=True, grad=None, **attrs):
    c = x.shape[-1] if layout == "NHWC" else x.shape[1]
    ins = {"X": x, "Scale": vec(c) if scale else None, "Bias": arr(c) if bias else None}
    if grad is None:
        grad = tuple(s for s in ("X", "Scale", "Bias") if ins[s] is not None)
    return Case(inputs=ins, attrs={"groups": groups, "data_layout": layout, **attrs}, ref=gn_ref,
                grad=grad, grad_outputs=("Y",), name=name, rtol=1e-4, atol=1e-5)


GROUP_NORM = [
    gn(arr(2, 4, 3, 2), 2, "NCHW, 2 groups"),
    gn(arr(2, 3, 2, 4), 2, "NHWC, 2 groups", layout="NHWC"),
    gn(arr(3, 6), 3, "rank 2"),
    gn(arr(2, 4, 5), 4, "a group per channel, no Scale or Bias", scale=False, bias=False),
    gn(arr(1, 2, 2, 2, 3), 1, "rank 5, one group, epsilon 1e-3", epsilon=1e-3),
    gn(arr(2, 3, 3, 4), 2, "NHWC rank 4 Scale only", layout="NHWC", bias=False),
    gn(arr(4, 32, 8, 8), 8, "larger, forward only", grad=()),
    gn(arr(4, 8, 8, 32), 4, "larger NHWC, forward only", layout="NHWC", grad=()),
]


# ---- instance_norm ----

def in_ref(ins, attrs):
    x, eps = ins["X"], attrs.get("epsilon", 1e-5)
    n, c = x.shape[:2]
    y = np.empty(x.shape)
    mean, inv_std = np.empty((n, c)), np.empty((n, c))
    for i in range(n):
        for j in range(c):
            normed, mean[i, j], var = _normalize(x[i, j], eps)
            inv_std[i, j] = 1 / np.sqrt(var + eps)
            scale = ins["Scale"][j] if ins.get("Scale") is not None else 1.0
            shift = ins["Bias"][j] if ins.get("Bias") is not None else 0.0
            y[i, j] = normed.reshape(np.shape(x[i, j])) * scale + shift
    return {"Y": y, "SavedMean": mean.ravel(), "SavedVariance": inv_std.ravel()}


def inorm(x, name, scale=True, bias=True, grad=None, **attrs):
    c = x.shape[1]
    ins = {"X": x, "Scale": vec(c) if scale else None, "Bias": arr(c) if bias else None}
    if grad is None:
        grad = tuple(s for s in ("X", "Scale", "Bias") if ins[s] is not None)
    return Case(inputs=ins, attrs=attrs, ref=in_ref, grad=grad, grad_outputs=("Y",), name=name,
                rtol=1e-4, atol=1e-5)


INSTANCE_NORM = [
    inorm(arr(2, 3, 4), "rank 3"),
    inorm(arr(2, 2, 3, 2), "rank 4, epsilon 1e-3", epsilon=1e-3),
    inorm(arr(1, 2, 2, 2, 2), "rank 5"),
    inorm(arr(2, 3, 5), "no Scale, no Bias", scale=False, bias=False),
    inorm(arr(2, 3, 4), "Bias only", scale=False),
    inorm(arr(3, 4), "rank 2: each set is one value, Y = Bias"),
    inorm(arr(8, 16, 12, 12), "larger, forward only", grad=()),
]


CASES = {"layer_norm": LAYER_NORM, "group_norm": GROUP_NORM, "instance_norm": INSTANCE_NORM}


# ---- bad inputs ----

def _m(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _bad(x, scale=None, bias=None, attrs=None, error=ShapeError, match=""):
    return Bad(inputs={"X": x, "Scale": scale, "Bias": bias}, attrs=attrs or {}, error=error,
               match=match)


BAD = {
    "layer_norm": [
        _bad(_m(2, 3, 4), attrs={"begin_norm_axis": 3},
             match=r"begin_norm_axis must be less than X's rank 3, got 3"),
        _bad(_m(5), match=r"begin_norm_axis must be less than X's rank 1"),
        _bad(_m(2, 3, 4), attrs={"begin_norm_axis": 0}, error=AttrError, match="must be > 0"),
        _bad(_m(2, 3, 4), scale=_m(5), match=r"Scale must have shape \(12,\).*got \(5,\)"),
        _bad(_m(-1, 3, 4), bias=_m(3, 4), match=r"Bias must have shape \(12,\).*got \(3, 4\)"),
        _bad(_m(2, 3, dtype=np.int64), match="floating-point"),
    ],
    "group_norm": [
        _bad(_m(2, 6, 3, 3), attrs={"groups": 4},
             match=r"6 channels \(NCHW\).*divisible by groups = 4"),
        _bad(_m(2, 3, 3, 6), attrs={"groups": 4, "data_layout": "NHWC"},
             match=r"6 channels \(NHWC\).*divisible"),
        _bad(_m(2, 6, 3, 3), match="groups must be >= 1, got -1"),
        _bad(_m(6), attrs={"groups": 3}, match=r"X must have rank 2 or more.*\(6,\)"),
        _bad(_m(2, 6, 3, 3), scale=_m(5), attrs={"groups": 3},
             match=r"Scale must have shape \(6,\).*got \(5,\)"),
        _bad(_m(2, 6, 3, 3), bias=_m(6), attrs={"groups": 3, "data_layout": "NHWC"},
             match=r"Bias must have shape \(3,\)"),
        _bad(_m(2, 6), attrs={"groups": 3, "data_layout": "HWCN"}, error=AttrError,
             match="expected 'NCHW' or 'NHWC'"),
    ],
    "instance_norm": [
        _bad(_m(3), match=r"X must have rank 2 to 5.*\(3,\)"),
        _bad(_m(2, 3, 2, 2, 2, 2), match=r"X must have rank 2 to 5"),
        _bad(_m(2, 3, 4), scale=_m(4), match=r"Scale must have shape \(3,\).*got \(4,\)"),
        _bad(_m(2, 3, 4, dtype=np.int32), match="floating-point"),
    ],
}
