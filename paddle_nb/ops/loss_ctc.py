"""``warpctc``: the connectionist temporal classification loss (CTC), forward and grad.

Logits [T, B, C] hold, per time step and sequence, unnormalized scores of C classes
(``blank`` among them); LogitsLength [B] how many steps each sequence has, Label
[B, L] its target classes (LabelLength [B] of them). The loss of one sequence is
-log p(label | logits): p sums the probabilities (softmax over classes, a product over
steps) of every alignment that reads as the label once repeats are merged and blanks
removed. The forward-backward recursion over the label with blanks between its
classes (``alpha`` from the start, ``beta`` from the end) gives p and, in the same
pass, the gradient of the loss with respect to the logits, softmax - posterior,
which the op keeps in WarpCTCGrad for its grad op (as PaddlePaddle's does).
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = ["ctc_alignments"]

CTC_ATTRS = {
    "blank": Attr("int", 0, lambda v: None if v >= 0 else "must be >= 0",
                  comment="the class index of the blank"),
    "norm_by_times": Attr("bool", False, comment="the grad divides by each sequence's length"),
}


def ctc_alignments(label, blank):
    """The extended label (blank, l1, blank, l2, ..., blank) and, per position, whether the
    recursion may skip from two positions back (a class unlike the class two back)."""
    ext = numpy.full(2 * len(label) + 1, blank, dtype=numpy.int64)
    ext[1::2] = label
    skip = numpy.zeros(len(ext), dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    return ext, skip


def _logsum(*terms):
    return numpy.logaddexp.reduce(numpy.stack(terms), axis=0)


def _one_sequence(log_probs, label, blank):
    """-log p(label) and d(-log p)/d logits for one sequence: log_probs [T, C] (log-softmax)."""
    steps, _ = log_probs.shape
    ext, skip = ctc_alignments(label, blank)
    size = len(ext)
    emit = log_probs[:, ext]                      # [T, S]: log y_t(ext_s)
    alpha = numpy.full((steps, size), -numpy.inf)
    beta = numpy.full((steps, size), -numpy.inf)
    alpha[0, :min(2, size)] = emit[0, :min(2, size)]
    beta[-1, max(size - 2, 0):] = 0.0
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = numpy.concatenate(([-numpy.inf], prev[:-1]))
        two = numpy.where(skip, numpy.concatenate(([-numpy.inf] * 2, prev[:-2]))[:size],
                          -numpy.inf)
        alpha[t] = _logsum(prev, one, two) + emit[t]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + emit[t + 1]
        one = numpy.concatenate((nxt[1:], [-numpy.inf]))
        two_src = numpy.concatenate((nxt[2:], [-numpy.inf] * 2))[:size]
        two = numpy.where(numpy.concatenate((skip[2:], [False, False]))[:size], two_src,
                          -numpy.inf)
        beta[t] = _logsum(nxt, one, two)
    log_p = numpy.logaddexp.reduce(alpha[-1] + beta[-1])
    through = alpha + beta - log_p                # log posterior of (t, s)
    posterior = numpy.zeros_like(log_probs)
    for s in range(size):
        posterior[:, ext[s]] += numpy.exp(through[:, s])
    return -log_p, numpy.exp(log_probs) - posterior


def _ctc_infer(logits, label, logits_length, label_length, *, blank, norm_by_times):
    if len(logits.shape) != 3:
        fail(f"Logits must be [max_time, batch, classes] (padded), got shape "
             f"{tuple(logits.shape)}")
    if len(label.shape) != 2 or label.dtype.kind not in "iu":
        fail(f"Label must be an integer [batch, max_label_length] tensor, got "
             f"{label.dtype}{list(label.shape)}")
    if logits_length is None or label_length is None:
        fail("LogitsLength and LabelLength are needed: paddle_nb takes padded input, not LoD")
    classes = logits.shape[2]
    if classes >= 0 and blank >= classes:
        fail(f"blank ({blank}) must be a class index below the number of classes ({classes})")
    return logits.with_shape((-1, 1)), logits


def _host(array):
    """A NumPy copy of a device array (the recursion runs on the host, one step at a time)."""
    return array.get() if hasattr(array, "get") and not isinstance(array, numpy.ndarray) \
        else numpy.asarray(array)


def _ctc_kernel(ctx, logits, label, logits_length, label_length, *, blank, norm_by_times):
    host = _host(logits).astype(numpy.float64)
    label, lengths, label_lengths = _host(label), _host(logits_length), _host(label_length)
    batch = host.shape[1]
    loss = numpy.zeros((batch, 1))
    grad = numpy.zeros_like(host)
    for b in range(batch):
        steps = int(lengths[b])
        seq = host[:steps, b]
        log_probs = seq - seq.max(1, keepdims=True)
        log_probs -= numpy.log(numpy.exp(log_probs).sum(1, keepdims=True))
        loss[b, 0], g = _one_sequence(log_probs, label[b, :int(label_lengths[b])], blank)
        grad[:steps, b] = g
    dtype = logits.dtype
    return (ctx.to_device(loss.astype(dtype)), ctx.to_device(grad.astype(dtype)))


def _ctc_grad_kernel(ctx, logits, logits_length, dloss, stored, *, blank, norm_by_times):
    # stored is [T, B, C]; each sequence's gradient scales by its loss's gradient (and, with
    # norm_by_times, by 1 / its length: PaddlePaddle applies that here, not in WarpCTCGrad)
    scale = dloss.reshape(1, -1, 1)
    if norm_by_times:
        scale = scale / logits_length.reshape(1, -1, 1).astype(stored.dtype)
    return (stored * scale).astype(logits.dtype, copy=False)


register(OpDef(
    "warpctc", inputs=["Logits", "Label", "LogitsLength", "LabelLength"],
    outputs=["Loss", "WarpCTCGrad"], attrs=CTC_ATTRS, infer=_ctc_infer, kernel=_ctc_kernel,
    grad=grad_op("warpctc_grad", inputs=("Logits", "LogitsLength"), outputs=("WarpCTCGrad",),
                 out_grads=("Loss",), in_grads=("Logits",)),
    doc="Loss[b] = -log p(Label[b] | softmax(Logits[:, b])) over CTC alignments (padded input);\n"
        "WarpCTCGrad = its gradient with respect to Logits"))
register(OpDef(
    "warpctc_grad", inputs=["Logits", "LogitsLength", "Loss@GRAD", "WarpCTCGrad"],
    outputs=["Logits@GRAD"], attrs=CTC_ATTRS, infer=lambda logits, *rest, **_: logits,
    kernel=_ctc_grad_kernel, doc="the gradient of warpctc: WarpCTCGrad times Loss@GRAD"))
