"""Contract cases for paddle_nb/ops/auc.py (no gradients). The reference counts labels
per bucket in a Python loop and sums the ROC trapezoids threshold by threshold."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(41)


def roc_auc(pos, neg):
    area, tp, fp = 0.0, 0.0, 0.0
    for k in reversed(range(len(pos))):
        area += neg[k] * (2 * tp + pos[k]) / 2.0        # trapezoid: width neg, heights tp..tp+pos
        tp, fp = tp + pos[k], fp + neg[k]
    return area / tp / fp if tp > 0 and fp > 0 else area


def auc_ref(ins, attrs):
    t, steps = attrs["num_thresholds"], attrs["slide_steps"]
    pos, neg = ins["StatPos"].reshape(-1).copy(), ins["StatNeg"].reshape(-1).copy()
    batch_pos, batch_neg = np.zeros(t + 1, np.int64), np.zeros(t + 1, np.int64)
    for p, label in zip(ins["Predict"][:, -1], ins["Label"].reshape(-1)):
        bucket = int(np.float32(p) * np.float32(t))
        if label > 0:
            batch_pos[bucket] += 1
        elif label == 0:
            batch_neg[bucket] += 1
    if steps == 0:
        pos[:t + 1] += batch_pos
        neg[:t + 1] += batch_neg
        window = pos[:t + 1], neg[:t + 1]
    else:
        oldest = int(pos[-1]) % steps
        for stats, batch in ((pos, batch_pos), (neg, batch_neg)):
            old = stats[oldest * (t + 1):(oldest + 1) * (t + 1)].copy()
            stats[oldest * (t + 1):(oldest + 1) * (t + 1)] = batch
            stats[steps * (t + 1):(steps + 1) * (t + 1)] += batch - old
        window = pos[steps * (t + 1):(steps + 1) * (t + 1)], neg[steps * (t + 1):-1]
        pos[-1] += 1
        neg[-1] += 1
    return {"AUC": np.float64(roc_auc(*window)), "StatPosOut": pos.reshape(ins["StatPos"].shape),
            "StatNegOut": neg.reshape(ins["StatNeg"].shape)}


def predictions(n):
    p = rng.uniform(0, 1, (n, 1)).astype(np.float32)
    return np.concatenate([1 - p, p], axis=1)


CASES = {"auc": [
    Case({"Predict": predictions(8), "Label": rng.integers(0, 2, (8, 1)),
          "StatPos": rng.integers(0, 3, (1, 6)), "StatNeg": rng.integers(0, 3, (1, 6))},
         {"num_thresholds": 5, "slide_steps": 0}, auc_ref),
    Case({"Predict": predictions(9), "Label": rng.integers(-1, 2, (9, 1)),
          "StatPos": np.concatenate([rng.integers(0, 3, 12), [5]]),
          "StatNeg": np.concatenate([rng.integers(0, 3, 12), [5]])},
         {"num_thresholds": 3, "slide_steps": 2}, auc_ref),
    Case({"Predict": predictions(4)[:, 1:], "Label": np.ones((4, 1), np.int64),
          "StatPos": np.zeros((1, 5), np.int64), "StatNeg": np.zeros((1, 5), np.int64)},
         {"num_thresholds": 4, "slide_steps": 0}, auc_ref, name="one class: AUC 0"),
]}

BAD = {"auc": [Bad({"Predict": Meta((4, 2), np.dtype(np.float32)),
                    "Label": Meta((4, 1), np.dtype(np.int64)),
                    "StatPos": Meta((1, 7), np.dtype(np.int64)),
                    "StatNeg": Meta((1, 7), np.dtype(np.int64))},
                   {"num_thresholds": 4, "slide_steps": 0}, ShapeError,
                   "StatPos must hold 5 counts")]}
