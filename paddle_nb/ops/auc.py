"""``auc``: the area under the ROC curve, kept up to date batch after batch.

Each prediction (the last column of Predict: the positive class's probability) falls into
one of ``num_thresholds + 1`` buckets; StatPos / StatNeg count the positive and negative
labels per bucket (a negative label counts in neither). Sweeping the threshold from the
top bucket down gives the ROC curve's points, and the trapezoids under them, divided by
(positives x negatives), the AUC (0 while either count is 0).

``slide_steps = 0`` accumulates over every batch (stats [1, buckets]). ``slide_steps = k``
keeps the last k batches: the stats hold k per-batch histograms, then their sum, then a
batch counter ([(k + 1) * buckets + 1]); each batch replaces the oldest histogram. The op
updates the stats in place (StatPosOut is StatPos). An InsTagWeight whose first value is 0
marks a batch of padding: it is left out of the counts.
"""

import numpy

from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register

__all__ = ["stat_size"]

_F64, _I64 = numpy.dtype("float64"), numpy.dtype("int64")


def stat_size(num_thresholds, slide_steps):
    """How many counts StatPos (and StatNeg) hold."""
    if slide_steps == 0:
        return num_thresholds + 1
    return (slide_steps + 1) * (num_thresholds + 1) + 1


def _auc_infer(predict, label, stat_pos, stat_neg, weight, *, curve, num_thresholds,
               slide_steps):
    if len(predict.shape) != 2:
        fail(f"Predict must be [batch, classes] (the last column is the positive class's "
             f"probability), got shape {list(predict.shape)}")
    want = stat_size(num_thresholds, slide_steps)
    for name, stat in (("StatPos", stat_pos), ("StatNeg", stat_neg)):
        size = int(numpy.prod(stat.shape)) if all(d >= 0 for d in stat.shape) else -1
        # (2.6's python layer gives a slide_steps=0 op one count more than it reads)
        if size >= 0 and size != want and not (slide_steps == 0 and size == want + 1):
            fail(f"{name} must hold {want} counts for num_thresholds={num_thresholds} and "
                 f"slide_steps={slide_steps}, got shape {list(stat.shape)}")
    return Meta((), _F64), stat_pos, stat_neg


def _area(xp, pos, neg):
    """The ROC AUC of per-bucket counts (bucket 0 lowest)."""
    tot_pos = xp.cumsum(pos[::-1].astype(_F64))
    tot_neg = xp.cumsum(neg[::-1].astype(_F64))
    prev_pos = xp.concatenate([xp.zeros(1), tot_pos[:-1]])
    prev_neg = xp.concatenate([xp.zeros(1), tot_neg[:-1]])
    area = xp.sum((tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0)
    if float(tot_pos[-1]) > 0 and float(tot_neg[-1]) > 0:
        area = area / tot_pos[-1] / tot_neg[-1]
    return area


def _auc(ctx, predict, label, stat_pos, stat_neg, weight, *, curve, num_thresholds,
         slide_steps):
    xp = ctx.xp
    p = predict[:, -1]
    if predict.size and (float(p.min()) < 0 or float(p.max()) > 1):
        raise ValueError("auc: the predicted probabilities must lie in [0, 1]")
    buckets = num_thresholds + 1
    bins = (p * p.dtype.type(num_thresholds)).astype(_I64)
    labels = label.reshape(-1)
    batch_pos = xp.bincount(bins[labels > 0], minlength=buckets)
    batch_neg = xp.bincount(bins[labels == 0], minlength=buckets)
    padding = weight is not None and float(weight.reshape(-1)[0]) == 0
    pos, neg = stat_pos.reshape(-1).astype(_I64), stat_neg.reshape(-1).astype(_I64)
    if slide_steps == 0:
        if not padding:
            pos[:buckets] += batch_pos
            neg[:buckets] += batch_neg
        window = pos[:buckets], neg[:buckets]
    else:
        start = int(pos[-1]) % slide_steps * buckets      # the oldest batch's histogram
        cur = slice(start, start + buckets)
        total = slice(slide_steps * buckets, (slide_steps + 1) * buckets)
        for stats, batch in ((pos, batch_pos), (neg, batch_neg)):
            stats[total] -= stats[cur]
            stats[cur] = batch
            if not padding:
                stats[total] += batch
        window = pos[total], neg[total]
    area = _area(xp, *window)
    if slide_steps:
        pos[-1] += 1
        neg[-1] += 1
    return (xp.asarray(area, dtype=_F64).reshape(()), pos.reshape(stat_pos.shape),
            neg.reshape(stat_neg.shape))


register(OpDef(
    "auc", inputs=["Predict", "Label", "StatPos", "StatNeg",
                   Slot("InsTagWeight", dispensable=True)],
    outputs=["AUC", "StatPosOut", "StatNegOut"],
    attrs={"curve": Attr("str", "ROC", lambda c: None if c == "ROC" else "only 'ROC' is "
                         "available"), "num_thresholds": Attr("int", 4095),
           "slide_steps": Attr("int", 1, lambda s: None if s >= 0 else "must be >= 0")},
    infer=_auc_infer, kernel=_auc,
    doc="ROC AUC from bucketed label counts, updated in place (over all or the last k batches)"))
