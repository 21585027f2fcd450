"""Contract cases for paddle_nb/ops/loss.py: softmax, log_softmax and the cross entropies.

References are plain NumPy written per row (exp / sum, log-sum-exp). Gradient
checks of softmax_with_cross_entropy feed only Loss (Softmax is PaddlePaddle's
intermediate output, its gradient is not propagated). Soft labels sum to 1.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(13)
F = np.float32
I64 = np.int64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def probs(*shape, axis=-1):
    e = np.exp(rng.standard_normal(shape))
    return (e / e.sum(axis=axis, keepdims=True)).astype(F)


def labels(*shape, classes, ignore=()):
    out = rng.integers(0, classes, size=shape).astype(I64)
    for idx, value in ignore:
        out[idx] = value
    return out


def meta(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _rows(x, axis):
    """Apply a per-row function along ``axis`` by moving it last."""
    return np.moveaxis(x.astype(np.float64), axis, -1)


def _softmax_ref(ins, attrs):
    axis = attrs.get("axis", -1)
    r = _rows(ins["X"], axis)
    out = np.exp(r - r.max(-1, keepdims=True))
    return {"Out": np.moveaxis(out / out.sum(-1, keepdims=True), -1, axis)}


def _log_softmax_ref(ins, attrs):
    axis = attrs.get("axis", -1)
    r = _rows(ins["X"], axis)
    top = r.max(-1, keepdims=True)
    lse = np.log(np.exp(r - top).sum(-1, keepdims=True)) + top
    return {"Out": np.moveaxis(r - lse, -1, axis)}


def _ce_ref(ins, attrs):
    x, label = ins["X"].astype(np.float64), ins["Label"]
    y = np.zeros(x.shape[:-1] + (1,))
    for idx in np.ndindex(*x.shape[:-1]):
        if attrs.get("soft_label"):
            y[idx] = -np.sum(label[idx] * np.log(x[idx]))
        elif label[idx][0] != attrs.get("ignore_index", -100):
            y[idx] = -np.log(x[idx][label[idx][0]])
    return {"Y": y}


def _swce_ref(ins, attrs):
    axis = attrs.get("axis", -1)
    r, lab = _rows(ins["Logits"], axis), np.moveaxis(ins["Label"], axis, -1)
    if attrs.get("use_softmax", True):
        logp = r - np.log(np.exp(r).sum(-1, keepdims=True))
        sm = np.exp(logp)
    else:
        sm, logp = r, np.log(r)
    loss = np.zeros(r.shape[:-1] + (1,))
    for idx in np.ndindex(*r.shape[:-1]):
        if attrs.get("soft_label"):
            loss[idx] = -np.sum(lab[idx] * logp[idx])
        elif lab[idx][0] != attrs.get("ignore_index", -100):
            loss[idx] = -logp[idx][lab[idx][0]]
    return {"Softmax": np.moveaxis(sm, -1, axis), "Loss": np.moveaxis(loss, -1, axis)}


def _softmax_cases(ref):
    return [
        Case(inputs={"X": arr(3, 5)}, ref=ref, grad=("X",), name="last axis"),
        Case(inputs={"X": arr(2, 3, 4)}, attrs={"axis": 1}, ref=ref, grad=("X",), name="axis=1"),
        Case(inputs={"X": arr(2, 3, 4)}, attrs={"axis": -3}, ref=ref, grad=("X",), name="axis=-3"),
        Case(inputs={"X": arr(4) * 30}, ref=ref, grad=("X",), rtol=1e-4, name="large logits"),
    ]


SWCE = "softmax_with_cross_entropy"
LOSS = ("Loss",)

CASES = {
    "softmax": _softmax_cases(_softmax_ref),
    "log_softmax": _softmax_cases(_log_softmax_ref),
    "cross_entropy": [
        Case(inputs={"X": probs(4, 5), "Label": labels(4, 1, classes=5)}, ref=_ce_ref,
             grad=("X",), name="hard labels"),
        Case(inputs={"X": probs(4, 5), "Label": labels(4, 1, classes=5, ignore=[((1, 0), -100)])},
             ref=_ce_ref, grad=("X",), name="ignore_index -100"),
        Case(inputs={"X": probs(4, 5), "Label": labels(4, 1, classes=5, ignore=[((2, 0), 3)])},
             attrs={"ignore_index": 3}, ref=_ce_ref, grad=("X",), name="ignore_index 3"),
        Case(inputs={"X": probs(3, 4), "Label": probs(3, 4)}, attrs={"soft_label": True},
             ref=_ce_ref, grad=("X",), name="soft labels"),
        Case(inputs={"X": probs(2, 3, 4), "Label": labels(2, 3, 1, classes=4)}, ref=_ce_ref,
             grad=("X",), name="rank 3"),
    ],
    SWCE: [
        Case(inputs={"Logits": arr(4, 5), "Label": labels(4, 1, classes=5)}, ref=_swce_ref,
             grad=("Logits",), grad_outputs=LOSS, name="hard labels"),
        Case(inputs={"Logits": arr(4, 5),
                     "Label": labels(4, 1, classes=5, ignore=[((0, 0), -100)])},
             ref=_swce_ref, grad=("Logits",), grad_outputs=LOSS, name="ignore_index"),
        Case(inputs={"Logits": arr(3, 4), "Label": probs(3, 4)}, attrs={"soft_label": True},
             ref=_swce_ref, grad=("Logits",), grad_outputs=LOSS, name="soft labels"),
        Case(inputs={"Logits": arr(2, 3, 4), "Label": labels(2, 1, 4, classes=3)},
             attrs={"axis": 1}, ref=_swce_ref, grad=("Logits",), grad_outputs=LOSS, name="axis=1"),
        Case(inputs={"Logits": arr(2, 3, 4), "Label": probs(2, 3, 4, axis=0)},
             attrs={"axis": -3, "soft_label": True}, ref=_swce_ref, grad=("Logits",),
             grad_outputs=LOSS, name="soft, axis=-3"),
        Case(inputs={"Logits": probs(4, 5),
                     "Label": labels(4, 1, classes=5, ignore=[((3, 0), -100)])},
             attrs={"use_softmax": False}, ref=_swce_ref, grad=("Logits",), grad_outputs=LOSS,
             name="use_softmax=False, hard"),
        Case(inputs={"Logits": probs(3, 4), "Label": probs(3, 4)},
             attrs={"use_softmax": False, "soft_label": True}, ref=_swce_ref, grad=("Logits",),
             grad_outputs=LOSS, name="use_softmax=False, soft"),
        Case(inputs={"Logits": arr(3, 4) * 40, "Label": labels(3, 1, classes=4)},
             attrs={"numeric_stable_mode": False}, ref=_swce_ref, grad=("Logits",),
             grad_outputs=LOSS, rtol=1e-4, name="large logits"),
    ],
}

BAD = {
    "softmax": [
        Bad(inputs={"X": meta(3, 4)}, attrs={"axis": 2}, error=ShapeError,
            match=r"axis 2 is out of range for X of shape \(3, 4\)"),
        Bad(inputs={"X": meta(3, 4, dtype=I64)}, error=ShapeError, match="floating-point"),
    ],
    "log_softmax": [
        Bad(inputs={"X": meta(3, 4)}, attrs={"axis": -3}, error=ShapeError,
            match=r"axis -3 is out of range for X of shape \(3, 4\)"),
    ],
    "cross_entropy": [
        Bad(inputs={"X": meta(4, 5), "Label": meta(4, 1)}, error=ShapeError,
            match="Label must be an integer .*got float32"),
        Bad(inputs={"X": meta(4, 5), "Label": meta(4, 2, dtype=I64)}, error=ShapeError,
            match=r"size 1 in dimension 1: X has shape \(4, 5\), Label has shape \(4, 2\)"),
        Bad(inputs={"X": meta(4, 5), "Label": meta(4, dtype=I64)}, error=ShapeError,
            match=r"rank of X: X has shape \(4, 5\), Label has shape \(4,\)"),
        Bad(inputs={"X": meta(4, 5), "Label": meta(3, 1, dtype=I64)}, error=ShapeError,
            match=r"match X except in dimension 1"),
        Bad(inputs={"X": meta(4, 5), "Label": meta(4, 4)}, attrs={"soft_label": True},
            error=ShapeError, match=r"soft Label must have X's shape \(4, 5\), got shape \(4, 4\)"),
    ],
    SWCE: [
        Bad(inputs={"Logits": meta(4, 5), "Label": meta(4, 1)}, error=ShapeError,
            match="Label must be an integer"),
        Bad(inputs={"Logits": meta(2, 3, 4), "Label": meta(2, 3, 1, dtype=I64)}, attrs={"axis": 1},
            error=ShapeError, match=r"Label must match Logits except in dimension 1"),
        Bad(inputs={"Logits": meta(4, 5), "Label": meta(4, 1, dtype=I64)}, attrs={"axis": 2},
            error=ShapeError, match=r"axis 2 is out of range for Logits of shape \(4, 5\)"),
        Bad(inputs={"Logits": meta(4, 5), "Label": meta(1, 5, dtype=I64)},
            attrs={"axis": 0, "numeric_stable_mode": False}, error=ShapeError,
            match="numeric_stable_mode is False"),
        Bad(inputs={"Logits": meta(4, 5), "Label": meta(4, 5, dtype=np.float64)},
            attrs={"soft_label": True}, error=ShapeError, match="dtype float32, got float64"),
    ],
}
