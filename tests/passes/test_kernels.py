"""Kernels sped up for inference keep their results: each against a plain reference."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops import detection_nms
from paddle_nb.ops.detection_nms import iou


def reference_nms(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized):
    """Greedy NMS of one class, box by box against every kept box (PaddlePaddle's loop)."""
    order = sorted((i for i, s in enumerate(scores) if s > score_threshold),
                   key=lambda i: -scores[i])[:top_k]
    kept, threshold = [], nms_threshold
    for i in order:
        if all(iou(boxes[i], boxes[k], normalized) <= threshold for k in kept):
            kept.append(i)
            if eta < 1 and threshold > 0.5:
                threshold *= eta
    return kept


@pytest.mark.parametrize("eta, nms_threshold, normalized, union",
                         [(1.0, 0.45, True, 2048), (0.8, 0.7, False, 2048),
                          (1.0, 0.6, False, 2048), (1.0, 0.5, True, 10), (0.8, 0.7, True, 10)])
@pytest.mark.parametrize("score_threshold", [0.2, 0.7])   # most boxes candidates, or a few
def test_multiclass_nms3_keeps_what_the_box_by_box_loop_keeps(eta, nms_threshold, normalized,
                                                              union, score_threshold,
                                                              monkeypatch):
    monkeypatch.setattr(detection_nms, "MAX_UNION", union)   # 10: one IoU matrix per class
    rng = np.random.default_rng(3)
    corner = rng.uniform(0, 20, (1, 60, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(0, 8, (1, 60, 2))], -1)
    boxes[0, 5] = boxes[0, 6]                          # a duplicate: IoU 1
    boxes = boxes.astype("float32")
    scores = rng.uniform(0, 1, (1, 3, 60)).astype("float32")
    attrs = dict(score_threshold=score_threshold, nms_threshold=nms_threshold, nms_eta=eta,
                 nms_top_k=40, keep_top_k=-1, background_label=-1, normalized=normalized)
    main = pd.Program()
    with pd.program_guard(main):
        b = pd.layers.data("b", shape=[60, 4], dtype="float32")
        s = pd.layers.data("s", shape=[3, 60], dtype="float32")
        block = main.global_block()
        out = block.create_var("out", dtype="float32")
        idx, num = block.create_var("idx", dtype="int32"), block.create_var("num", dtype="int32")
        block.append_op("multiclass_nms3", inputs={"BBoxes": [b], "Scores": [s]},
                        outputs={"Out": [out], "Index": [idx], "NmsRoisNum": [num]},
                        attrs=attrs)
    exe = pd.Executor(pd.CPUPlace())
    got_out, got_idx = exe.run(main, feed={"b": boxes, "s": scores}, fetch_list=[out, idx])
    want = [(c, i) for c in range(3)
            for i in reference_nms(boxes[0].tolist(), scores[0, c].tolist(), score_threshold,
                                   nms_threshold, eta, 40, normalized)]
    assert [(int(r[0]), int(k)) for r, k in zip(got_out, got_idx[:, 0])] == want
