"""row_conv: lookahead convolution (DeepSpeech 2), each time step mixing in the next few.

``Out[b, t, d] = sum_k X[b, t + k, d] * Filter[k, d]`` for k in 0..K-1 (K = future context
+ 1), steps past the end counting as zero. X is [B, T, D] (padded sequences; PaddlePaddle's
[T, D] LoD form is not available); each feature d has its own filter column. The
gradients are the same sums turned around: X's gradient at step t + k gathers
``Out@GRAD[t] * Filter[k]``, the filter's sums ``Out@GRAD[t] * X[t + k]``.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import OpDef, Slot, fail, register


def _infer(x, f):
    if len(x.shape) != 3:
        fail(f"X must be [B, T, D] (padded sequences; the [T, D] LoD form is not available), "
             f"got shape {list(x.shape)}")
    if len(f.shape) != 2 or f.shape[1] not in (-1, x.shape[-1]):
        fail(f"Filter must be [future_context + 1, D] with D = X's last dimension "
             f"{x.shape[-1]}, got shape {list(f.shape)}")
    return x


def _kernel(ctx, x, f):
    xs = x
    out = ctx.xp.zeros_like(xs)
    steps = xs.shape[1]
    for k in range(min(f.shape[0], steps)):
        out[:, :steps - k] += xs[:, k:] * f[k]
    return out


def _grad_kernel(ctx, x, f, dout):
    xs, ds = x, dout
    dx, df = ctx.xp.zeros_like(xs), ctx.xp.zeros_like(f)
    steps = xs.shape[1]
    for k in range(min(f.shape[0], steps)):
        dx[:, k:] += ds[:, :steps - k] * f[k]
        df[k] = (ds[:, :steps - k] * xs[:, k:]).sum(axis=(0, 1))
    return dx, df


register(OpDef(
    "row_conv", inputs=["X", "Filter"], outputs=["Out"], infer=_infer, kernel=_kernel,
    grad=grad_op("row_conv_grad", inputs=("X", "Filter"), in_grads=("X", "Filter")),
    doc="lookahead convolution: Out[t] = sum_k X[t + k] * Filter[k], per feature"))
register(OpDef(
    "row_conv_grad", inputs=["X", "Filter", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Filter@GRAD", dispensable=True)],
    infer=lambda x, f, dout: (x, f), kernel=_grad_kernel,
    doc="the gradients of row_conv"))
