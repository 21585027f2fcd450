"""Contract cases for paddle_nb/ops/loss_more.py, loss_nll.py and norm_lrn.py.

References are written per element or per sample in plain NumPy (float64), from the
formulas PaddlePaddle documents; the lrn reference loops over channels and windows.
Inputs stay away from kinks (Huber's |r| = delta, KL's Target = 0) for the grad checks.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(29)
F = np.float32
D = np.float64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def prob(*shape):
    return (rng.random(shape) * 0.8 + 0.1).astype(F)


def meta(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


# ---- bce_loss, sigmoid_cross_entropy_with_logits, log_loss ----

def _bce_ref(ins, attrs):
    x, y = ins["X"].astype(D), ins["Label"].astype(D)
    return {"Out": -(y * np.log(x) + (1 - y) * np.log(1 - x))}


def _sce_ref(ins, attrs):
    x, y = ins["X"].astype(D), ins["Label"].astype(D)
    w = ins.get("pos_weight")
    w = 1.0 if w is None else w.astype(D)
    log_sig = -np.logaddexp(0, -x)                # log(sigmoid(x)), stable
    log_one_minus = -np.logaddexp(0, x)           # log(1 - sigmoid(x))
    out = -(y * log_sig + (1 - y) * log_one_minus)
    if not np.isscalar(w):       # PaddlePaddle weighs log(1 + exp(-|x|)) only
        out = out + (w - 1) * np.log1p(np.exp(-np.abs(x)))
    keep = y != attrs.get("ignore_index", -100)
    out = np.where(keep, out, 0)
    return {"Out": out / max(keep.sum(), 1) if attrs.get("normalize") else out}


def _log_loss_ref(ins, attrs):
    p, y, eps = ins["Predicted"].astype(D), ins["Labels"].astype(D), attrs.get("epsilon", 1e-4)
    return {"Loss": -y * np.log(p + eps) - (1 - y) * np.log(1 - p + eps)}


def _ignored_labels():
    y = prob(3, 4)
    y[0, 1] = y[2, 3] = -1
    return y


# ---- huber_loss, kldiv_loss, label_smooth ----

def _huber_ref(ins, attrs):
    r = ins["Y"].astype(D) - ins["X"].astype(D)
    d = attrs.get("delta", 1.0)
    return {"Out": np.where(np.abs(r) <= d, r * r / 2, d * (np.abs(r) - d / 2)), "Residual": r}


def _kl_ref(ins, attrs):
    x, t = ins["X"].astype(D), ins["Target"].astype(D)
    loss = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        if t[i] > 0:
            loss[i] = t[i] * (np.log(t[i]) - x[i])
    red = attrs.get("reduction", "mean")
    div = {"mean": x.size, "batchmean": x.shape[0], "sum": 1}.get(red)
    return {"Loss": loss if div is None else np.array(loss.sum() / div)}


def _ls_ref(ins, attrs):
    x, eps = ins["X"].astype(D), attrs.get("epsilon", 0.0)
    prior = ins.get("PriorDist")
    prior = np.full(x.shape[-1], 1 / x.shape[-1]) if prior is None else prior.reshape(-1)
    return {"Out": (1 - eps) * x + eps * prior}


# ---- nll_loss ----

def _nll_ref(ins, attrs):
    x, label = ins["X"].astype(D), ins["Label"]
    ignore, red = attrs.get("ignore_index", -100), attrs.get("reduction", "mean")
    weight = ins.get("Weight")
    losses, total = np.zeros(label.shape), 0.0
    for idx in np.ndindex(label.shape):
        c = int(label[idx])
        if c == ignore:
            continue
        w = 1.0 if weight is None else float(weight[c])
        losses[idx] = -w * x[(idx[0], c) + idx[1:]]
        total += w
    out = {"none": losses, "sum": np.array(losses.sum()),
           "mean": np.array(losses.sum() / total if total else 0.0)}[red]
    return {"Out": out, "Total_weight": np.array(total if red != "none" else 0.0)}


def _nll(x_shape, label, name, weight=False, **attrs):
    ins = {"X": np.log(prob(*x_shape)), "Label": np.asarray(label, dtype=np.int64)}
    if weight:
        ins["Weight"] = (rng.random(x_shape[1]) + 0.5).astype(F)
    return Case(inputs=ins, attrs=attrs, ref=_nll_ref, grad=("X",), grad_outputs=("Out",),
                name=name)


# ---- lrn ----

def _lrn_ref(ins, attrs):
    x = ins["X"].astype(D)
    n, k = attrs.get("n", 5), attrs.get("k", 2.0)
    alpha, beta = attrs.get("alpha", 1e-4), attrs.get("beta", 0.75)
    axis = 3 if attrs.get("data_format") == "NHWC" else 1
    xc = np.moveaxis(x, axis, 1)
    mid = np.empty_like(xc)
    for c in range(xc.shape[1]):
        lo = max(c - (n - 1) // 2, 0)
        hi = min(c - (n - 1) // 2 + n, xc.shape[1])
        mid[:, c] = k + alpha * (xc[:, lo:hi] ** 2).sum(axis=1)
    mid = np.moveaxis(mid, 1, axis)
    return {"Out": x * mid ** -beta, "MidOut": mid}


def _lrn(x, name, **attrs):
    return Case(inputs={"X": x}, attrs=attrs, ref=_lrn_ref, grad=("X",), grad_outputs=("Out",),
                name=name)


CASES = {
    "bce_loss": [Case(inputs={"X": prob(3, 4), "Label": prob(3, 4)}, ref=_bce_ref, grad=("X",),
                      name="soft targets"),
                 Case(inputs={"X": prob(5), "Label": (rng.random(5) > 0.5).astype(F)},
                      ref=_bce_ref, grad=("X",), name="hard targets, 1-D")],
    "sigmoid_cross_entropy_with_logits": [
        Case(inputs={"X": arr(3, 4), "Label": prob(3, 4)}, ref=_sce_ref, grad=("X",),
             name="plain"),
        Case(inputs={"X": arr(3, 4) * 30, "Label": prob(3, 4)}, ref=_sce_ref, name="large logits"),
        # PaddlePaddle's pos_weight gradient is not its forward's derivative: no grad check
        Case(inputs={"X": arr(3, 4), "Label": prob(3, 4), "pos_weight": prob(3, 4) * 3},
             ref=_sce_ref, name="pos_weight"),
        Case(inputs={"X": arr(3, 4), "Label": _ignored_labels()},
             attrs={"ignore_index": -1, "normalize": True}, ref=_sce_ref, grad=("X",),
             name="ignore_index, normalize"),
    ],
    "log_loss": [Case(inputs={"Predicted": prob(4, 1), "Labels": prob(4, 1)}, ref=_log_loss_ref,
                      grad=("Predicted",), name="column"),
                 Case(inputs={"Predicted": prob(6, 1), "Labels": prob(6, 1)},
                      attrs={"epsilon": 1e-2}, ref=_log_loss_ref, grad=("Predicted",),
                      name="epsilon")],
    "huber_loss": [Case(inputs={"X": arr(3, 4), "Y": arr(3, 4)}, ref=_huber_ref,
                        grad=("X", "Y"), grad_outputs=("Out",), name="delta 1",
                        attrs={"delta": 1.0}),
                   Case(inputs={"X": arr(6), "Y": arr(6)}, attrs={"delta": 0.37},
                        ref=_huber_ref, grad=("X", "Y"), grad_outputs=("Out",),
                        name="small delta")],
    "kldiv_loss": [Case(inputs={"X": np.log(prob(3, 4)), "Target": t}, attrs={"reduction": r},
                        ref=_kl_ref, grad=("X",), name=r)
                   for r, t in (("none", prob(3, 4)), ("mean", prob(3, 4)),
                                ("batchmean", prob(3, 4)),
                                ("sum", np.where(prob(3, 4) > 0.5, prob(3, 4), -0.2).astype(F)))],
    "label_smooth": [Case(inputs={"X": np.eye(4, dtype=F)[[0, 2, 3]]}, attrs={"epsilon": 0.1},
                          ref=_ls_ref, grad=("X",), name="uniform"),
                     Case(inputs={"X": prob(2, 3), "PriorDist": prob(1, 3)},
                          attrs={"epsilon": 0.25}, ref=_ls_ref, grad=("X",), name="prior")],
    "nll_loss": [
        _nll((4, 3), [0, 2, 1, 2], "mean"),
        _nll((4, 3), [0, 2, 1, 1], "weight, ignore_index, none", weight=True,
             ignore_index=1, reduction="none"),
        _nll((3, 4), [3, 0, 1], "weight, sum", weight=True, reduction="sum"),
        _nll((2, 3, 2, 2), rng.integers(0, 3, (2, 2, 2)), "4-D, weight, mean", weight=True),
        _nll((2, 3, 1, 2), [[[0, 2]], [[1, 1]]], "4-D none", reduction="none"),
    ],
    "lrn": [_lrn(arr(2, 4, 2, 3), "n 3", n=3),
            _lrn(arr(1, 5, 2, 2), "n 1, alpha, beta, k", n=1, alpha=0.1, beta=0.6, k=1.5),
            _lrn(arr(1, 2, 2, 6), "NHWC, default n 5", alpha=0.05, data_format="NHWC")],
}

BAD = {
    "bce_loss": [Bad({"X": meta(3, 4), "Label": meta(3, 5)}, error=ShapeError,
                     match=r"Label must have X's shape")],
    "sigmoid_cross_entropy_with_logits": [
        Bad({"X": meta(3, 4), "Label": meta(4, 3)}, error=ShapeError, match="Label must have"),
        Bad({"X": meta(3, 4), "Label": meta(3, 4), "pos_weight": meta(2)}, error=ShapeError,
            match="pos_weight must have")],
    "log_loss": [Bad({"Predicted": meta(4, 1), "Labels": meta(4, 2)}, error=ShapeError,
                     match="Labels must have Predicted's shape"),
                 Bad({"Predicted": meta(4, 3), "Labels": meta(4, 3)}, error=ShapeError,
                     match=r"Predicted must be \[N, 1\]")],
    "huber_loss": [Bad({"X": meta(3, 4), "Y": meta(3)}, error=ShapeError, match="Y must have")],
    "kldiv_loss": [Bad({"X": meta(3, 4, dtype=np.int64), "Target": meta(3, 4)},
                       error=ShapeError, match="floating-point")],
    "label_smooth": [Bad({"X": meta(3, 4), "PriorDist": meta(1, 5)}, error=ShapeError,
                         match="one value per class")],
    "nll_loss": [Bad({"X": meta(4, 3), "Label": meta(4, 1, dtype=np.int64)}, error=ShapeError,
                     match=r"Label must have shape \(4,\)"),
                 Bad({"X": meta(4, 3), "Label": meta(4, dtype=F)}, error=ShapeError,
                     match="integer"),
                 Bad({"X": meta(4, 3, 2), "Label": meta(4, 2, dtype=np.int64)},
                     error=ShapeError, match=r"\[N, C\] or \[N, C, H, W\]"),
                 Bad({"X": meta(4, 3), "Label": meta(4, dtype=np.int64), "Weight": meta(4)},
                     error=ShapeError, match="Weight must have shape")],
    "lrn": [Bad({"X": meta(2, 3, 4)}, error=ShapeError, match="X must be 4-D")],
}


# ---- warpctc: every alignment enumerated ----

def _collapse(path, blank):
    out = [c for i, c in enumerate(path) if (i == 0 or c != path[i - 1])]
    return [c for c in out if c != blank]


def _ctc_ref(ins, attrs):
    import itertools
    logits, blank = ins["Logits"].astype(D), attrs.get("blank", 0)
    losses = []
    for b in range(logits.shape[1]):
        steps = int(ins["LogitsLength"][b])
        target = list(ins["Label"][b, :int(ins["LabelLength"][b])])
        probs = np.exp(logits[:steps, b])
        probs /= probs.sum(1, keepdims=True)
        total = sum(np.prod([probs[t, c] for t, c in enumerate(path)])
                    for path in itertools.product(range(logits.shape[2]), repeat=steps)
                    if _collapse(path, blank) == target)
        losses.append([-np.log(total)])
    return {"Loss": np.array(losses)}


def _ctc(logits, label, logits_length, label_length, name, grad=("Logits",), **attrs):
    ins = {"Logits": logits, "Label": np.asarray(label, dtype=np.int32),
           "LogitsLength": np.asarray(logits_length, dtype=np.int64),
           "LabelLength": np.asarray(label_length, dtype=np.int64)}
    return Case(inputs=ins, attrs=attrs, ref=_ctc_ref, grad=grad, grad_outputs=("Loss",),
                name=name)


CASES["warpctc"] = [
    _ctc(arr(4, 2, 3), [[1, 2], [2, 2]], [4, 4], [2, 2], "two sequences, a repeat"),
    _ctc(arr(5, 2, 3), [[1, 1, 0], [2, 0, 0]], [5, 3], [2, 1], "padded lengths, blank 0"),
    _ctc(arr(3, 1, 3), [[0]], [3], [1], "blank 2", blank=2),
    # norm_by_times scales the gradient only (not the loss): no central differences
    _ctc(arr(3, 2, 2), [[1], [1]], [3, 2], [1, 1], "norm_by_times", grad=(),
         norm_by_times=True),
]
BAD["warpctc"] = [
    Bad({"Logits": meta(4, 3), "Label": meta(2, 2, dtype=np.int32),
         "LogitsLength": meta(2, dtype=np.int64), "LabelLength": meta(2, dtype=np.int64)},
        error=ShapeError, match=r"Logits must be \[max_time, batch, classes\]"),
    Bad({"Logits": meta(4, 2, 3), "Label": meta(2, 2, dtype=np.int32),
         "LogitsLength": meta(2, dtype=np.int64), "LabelLength": meta(2, dtype=np.int64)},
        attrs={"blank": 3}, error=ShapeError, match="blank"),
]


# ---- cross_entropy2, hinge_loss, rank_loss ----

def _ce2_ref(ins, attrs):
    x, label = ins["X"].astype(D), ins["Label"]
    ignore = attrs.get("ignore_index", -100)
    y = np.zeros(label.shape)
    match = np.zeros(label.shape)
    for idx in np.ndindex(label.shape[:-1]):
        c = int(label[idx][0])
        if c != ignore:
            match[idx] = x[idx][c]
            y[idx] = -np.log(x[idx][c])
    return {"Y": y, "MatchX": match}


def _hinge_ref(ins, attrs):
    sign = 2 * ins["Labels"].astype(D) - 1
    return {"Loss": np.maximum(1 - sign * ins["Logits"], 0)}


def _rank_ref(ins, attrs):
    d = ins["Left"].astype(D) - ins["Right"]
    return {"Out": np.log(1 + np.exp(d)) - ins["Label"] * d}


def _probs(*shape):
    e = np.exp(rng.standard_normal(shape))
    return (e / e.sum(-1, keepdims=True)).astype(F)


def _away_from_the_kink(logits, labels):
    sign = 2 * labels - 1
    return np.where(np.abs(1 - sign * logits) < 0.1, logits + 0.3 * sign, logits).astype(F)


_LABELS01 = (rng.random((5, 1)) > 0.5).astype(F)
CASES.update({
    "cross_entropy2": [
        Case(inputs={"X": _probs(4, 3), "Label": np.array([[0], [2], [1], [2]])}, ref=_ce2_ref,
             grad=("X",), grad_outputs=("Y",), name="rows"),
        Case(inputs={"X": _probs(2, 2, 3), "Label": np.array([[[1], [0]], [[2], [1]]])},
             attrs={"ignore_index": 1}, ref=_ce2_ref, grad=("X",), grad_outputs=("Y",),
             name="3-D, ignore_index"),
    ],
    "hinge_loss": [Case(inputs={"Logits": _away_from_the_kink(arr(5, 1), _LABELS01),
                                "Labels": _LABELS01}, ref=_hinge_ref, grad=("Logits",),
                        name="labels 0 and 1")],
    "rank_loss": [Case(inputs={"Label": prob(4, 1), "Left": arr(4, 1), "Right": arr(4, 1)},
                       ref=_rank_ref, grad=("Left", "Right"), name="soft labels")],
})
BAD.update({
    "cross_entropy2": [Bad({"X": meta(4, 3), "Label": meta(4, 3, dtype=np.int64)},
                           error=ShapeError, match="last dimension of 1")],
    "hinge_loss": [Bad({"Logits": meta(4, 2), "Labels": meta(4, 2)}, error=ShapeError,
                       match=r"Logits must be a column \[N, 1\]")],
    "rank_loss": [Bad({"Label": meta(4, 1), "Left": meta(4, 1), "Right": meta(3, 1)},
                      error=ShapeError, match="Right must have 4 rows")],
})
