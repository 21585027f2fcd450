"""Products beyond the matrix product: ``bmm``, ``dot``, ``mv``, ``cross``, ``kron``, the
bilinear form ``bilinear_tensor_product`` and the chain ``multi_dot``, each with its grad op.

Every one is a sum of products of X's and Y's entries, so each gradient is the same sum with
the output gradient in place of one operand: for ``out = x . y``, ``dx = dout * y`` and
``dy = dout * x``; for the cross product ``dx = y x dout`` and ``dy = dout x x``.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["kron_shape"]


def _same(a, b):
    return a == b or a < 0 or b < 0


def _same_dtype(x, y, what="X and Y"):
    if x.dtype != y.dtype:
        fail(f"{what} must have the same dtype, got {x.dtype} and {y.dtype}")


def _register(name, inputs, attrs, infer, kernel, grad_kernel, doc):
    """``name`` and ``name_grad``: the grad op reads every input and Out@GRAD."""
    register(OpDef(name, inputs=inputs, outputs=["Out"], attrs=attrs, infer=infer,
                   kernel=kernel, doc=doc,
                   grad=grad_op(f"{name}_grad", inputs=tuple(inputs), in_grads=tuple(inputs))))
    register(OpDef(f"{name}_grad", inputs=[*inputs, "Out@GRAD"],
                   outputs=[Slot(f"{s}@GRAD", dispensable=True) for s in inputs], attrs=attrs,
                   infer=lambda *metas, **_: tuple(metas[:len(inputs)]), kernel=grad_kernel,
                   doc=f"the gradients of {name}'s inputs from its inputs and Out@GRAD"))


# ---- bmm: a batch of matrix products -----------------------------------------------------

def _bmm_infer(x, y):
    _same_dtype(x, y)
    if len(x.shape) != 3 or len(y.shape) != 3:
        fail(f"X and Y must be 3-D batches of matrices, got shapes {tuple(x.shape)} and "
             f"{tuple(y.shape)}")
    if not _same(x.shape[0], y.shape[0]) or not _same(x.shape[2], y.shape[1]):
        fail(f"X [B, M, K] and Y [B, K, N] must agree on B and K, got {tuple(x.shape)} and "
             f"{tuple(y.shape)}")
    return x.with_shape((x.shape[0], x.shape[1], y.shape[2]))


def _bmm_grad(ctx, x, y, dout):
    t = (0, 2, 1)
    return dout @ y.transpose(t), x.transpose(t) @ dout


_register("bmm", ["X", "Y"], {}, _bmm_infer, lambda ctx, x, y: x @ y, _bmm_grad,
          "Out[b] = X[b] @ Y[b] for 3-D X [B, M, K] and Y [B, K, N]")


# ---- dot: rowwise inner products ---------------------------------------------------------

def _dot_infer(x, y):
    _same_dtype(x, y)
    if len(x.shape) not in (1, 2) or len(x.shape) != len(y.shape) or \
            not all(_same(a, b) for a, b in zip(x.shape, y.shape)):
        fail(f"X and Y must be vectors [N] or batches of vectors [B, N] of one shape, got "
             f"{tuple(x.shape)} and {tuple(y.shape)}")
    return x.with_shape(tuple(x.shape[:-1]))


def _dot_grad(ctx, x, y, dout):
    g = dout[..., None]
    return g * y, g * x


_register("dot", ["X", "Y"], {}, _dot_infer, lambda ctx, x, y: (x * y).sum(axis=-1),
          _dot_grad, "Out = sum(X * Y, last axis): a 0-D result for vectors, [B] for [B, N]")


# ---- mv: matrix times vector -------------------------------------------------------------

def _mv_infer(x, vec):
    _same_dtype(x, vec, "X and Vec")
    if len(x.shape) != 2 or len(vec.shape) != 1 or not _same(x.shape[1], vec.shape[0]):
        fail(f"X must be a matrix [M, N] and Vec a vector [N], got {tuple(x.shape)} and "
             f"{tuple(vec.shape)}")
    return x.with_shape((x.shape[0],))


def _mv_grad(ctx, x, vec, dout):
    return dout[:, None] * vec[None, :], dout @ x


_register("mv", ["X", "Vec"], {}, _mv_infer, lambda ctx, x, vec: x @ vec, _mv_grad,
          "Out = X @ Vec: a matrix [M, N] times a vector [N]")


# ---- cross: 3-vectors along one axis -----------------------------------------------------

DEFAULT_DIM = 9     # PaddlePaddle's "no axis given": the first axis of size 3


def _cross_axis(shape, dim):
    if dim == DEFAULT_DIM:
        for k, d in enumerate(shape):
            if d == 3:
                return k
        fail(f"X has no axis of size 3 for the cross product, shape {tuple(shape)}")
    if not -len(shape) <= dim < len(shape):
        fail(f"dim must name an axis of X (rank {len(shape)}), got {dim}")
    dim %= len(shape)
    if shape[dim] not in (3, -1):
        fail(f"the cross product needs size 3 along dim {dim}, X has shape {tuple(shape)}")
    return dim


def _cross_infer(x, y, *, dim):
    _same_dtype(x, y)
    if len(x.shape) != len(y.shape) or not all(_same(a, b) for a, b in zip(x.shape, y.shape)):
        fail(f"X and Y must have one shape, got {tuple(x.shape)} and {tuple(y.shape)}")
    _cross_axis(x.shape, dim)
    return x


def _cross(xp, a, b, axis):
    return xp.cross(a, b, axisa=axis, axisb=axis, axisc=axis)


def _cross_kernel(ctx, x, y, *, dim):
    return _cross(ctx.xp, x, y, _cross_axis(x.shape, dim)).astype(x.dtype, copy=False)


def _cross_grad(ctx, x, y, dout, *, dim):
    axis = _cross_axis(x.shape, dim)
    return _cross(ctx.xp, y, dout, axis), _cross(ctx.xp, dout, x, axis)


_register("cross", ["X", "Y"], {"dim": Attr("int", DEFAULT_DIM, comment=(
    "the axis of size 3; 9 means the first such axis"))}, _cross_infer, _cross_kernel,
    _cross_grad, "Out = X x Y, the cross product of 3-vectors along dim")


# ---- kron: the Kronecker product ---------------------------------------------------------

def kron_shape(xs, ys):
    """Out's shape for ``kron`` (the shorter shape padded with leading 1s).

    >>> kron_shape((2, 2), (3,)), kron_shape((2, -1), (1, 3))
    ((2, 6), (2, -1))
    """
    rank = max(len(xs), len(ys))
    xs = (1,) * (rank - len(xs)) + tuple(xs)
    ys = (1,) * (rank - len(ys)) + tuple(ys)
    return tuple(-1 if a < 0 or b < 0 else a * b for a, b in zip(xs, ys))


def _kron_infer(x, y):
    _same_dtype(x, y)
    return x.with_shape(kron_shape(x.shape, y.shape))


def _interleaved(x, y):
    """x and y reshaped so that broadcasting them gives kron's blocks: [x0, 1, x1, 1, ...]
    and [1, y0, 1, y1, ...]."""
    rank = max(x.ndim, y.ndim)
    xs = (1,) * (rank - x.ndim) + x.shape
    ys = (1,) * (rank - y.ndim) + y.shape
    xb = x.reshape(sum(((d, 1) for d in xs), ()))
    yb = y.reshape(sum(((1, d) for d in ys), ()))
    return xb, yb, rank


def _kron_kernel(ctx, x, y):
    xb, yb, _ = _interleaved(x, y)
    return (xb * yb).reshape(kron_shape(x.shape, y.shape))


def _kron_grad(ctx, x, y, dout):
    xb, yb, rank = _interleaved(x, y)
    g = dout.reshape(tuple(a * b for a, b in zip(xb.shape, yb.shape)))
    dx = (g * yb).sum(axis=tuple(range(1, 2 * rank, 2)))
    dy = (g * xb).sum(axis=tuple(range(0, 2 * rank, 2)))
    return dx.reshape(x.shape), dy.reshape(y.shape)


_register("kron", ["X", "Y"], {}, _kron_infer, _kron_kernel, _kron_grad,
          "Out = the Kronecker product of X and Y: X's entries times Y's blocks")


# ---- bilinear_tensor_product -------------------------------------------------------------

def _bilinear_infer(x, y, weight, bias):
    _same_dtype(x, y)
    if len(x.shape) != 2 or len(y.shape) != 2 or len(weight.shape) != 3:
        fail(f"X [B, M], Y [B, N] and Weight [K, M, N] are expected, got {tuple(x.shape)}, "
             f"{tuple(y.shape)} and {tuple(weight.shape)}")
    k, m, n = weight.shape
    if not (_same(x.shape[0], y.shape[0]) and _same(x.shape[1], m) and _same(y.shape[1], n)):
        fail(f"X [B, M] and Y [B, N] must fit Weight [K, M, N]: got {tuple(x.shape)}, "
             f"{tuple(y.shape)} and {tuple(weight.shape)}")
    if bias is not None and (len(bias.shape) != 2 or bias.shape[0] != 1
                             or not _same(bias.shape[1], k)):
        fail(f"Bias must be [1, K] = [1, {k}], got {tuple(bias.shape)}")
    return x.with_shape((x.shape[0], k))


def _bilinear_kernel(ctx, x, y, weight, bias):
    out = ctx.xp.einsum("bi,kij,bj->bk", x, weight, y)
    return (out if bias is None else out + bias).astype(x.dtype, copy=False)


def _bilinear_grad(ctx, x, y, weight, dout):
    xp = ctx.xp
    dx = xp.einsum("bk,kij,bj->bi", dout, weight, y)
    dy = xp.einsum("bk,kij,bi->bj", dout, weight, x)
    dw = xp.einsum("bk,bi,bj->kij", dout, x, y)
    dbias = dout.sum(axis=0, keepdims=True) if ctx.want(3) else None
    return dx, dy, dw, dbias


def _bilinear_grad_infer(x, y, weight, dout):
    """Bias@GRAD is [1, K] (the grad op does not read Bias: its gradient is dout's column sums)."""
    return x, y, weight, dout.with_shape((1, weight.shape[0]))


register(OpDef("bilinear_tensor_product",
               inputs=["X", "Y", "Weight", Slot("Bias", dispensable=True)], outputs=["Out"],
               infer=_bilinear_infer, kernel=_bilinear_kernel,
               grad=grad_op("bilinear_tensor_product_grad", inputs=("X", "Y", "Weight"),
                            in_grads=("X", "Y", "Weight", "Bias")),
               doc="Out[b, k] = X[b] @ Weight[k] @ Y[b] + Bias[0, k]"))
register(OpDef("bilinear_tensor_product_grad",
               inputs=["X", "Y", "Weight", "Out@GRAD"],
               outputs=[Slot(f"{s}@GRAD", dispensable=True) for s in ("X", "Y", "Weight", "Bias")],
               infer=_bilinear_grad_infer, kernel=_bilinear_grad,
               doc="the gradients of bilinear_tensor_product's X, Y, Weight and Bias"))


# ---- multi_dot: a chain of matrix products -----------------------------------------------

def _chain(operands):
    """The operands as matrices: a 1-D first one a row [1, n], a 1-D last one a column [n, 1]."""
    mats = list(operands)
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    return mats


def _multi_dot_infer(xs):
    if len(xs) < 2:
        fail(f"X must hold at least two tensors, got {len(xs)}")
    shapes = [tuple(m.shape) for m in xs]
    for k, s in enumerate(shapes):
        if len(s) != 2 and not (len(s) == 1 and k in (0, len(shapes) - 1)):
            fail(f"X[{k}] must be a matrix (the first and last may be vectors), got {s}")
    rows = [(1,) + s if (k == 0 and len(s) == 1) else s for k, s in enumerate(shapes)]
    rows[-1] = rows[-1] + (1,) if len(shapes[-1]) == 1 else rows[-1]
    for k in range(len(rows) - 1):
        if not _same(rows[k][1], rows[k + 1][0]):
            fail(f"X[{k}] {shapes[k]} and X[{k + 1}] {shapes[k + 1]} do not chain")
    out = (() if len(shapes[0]) == 1 else (rows[0][0],)) + \
        (() if len(shapes[-1]) == 1 else (rows[-1][1],))
    return xs[0].with_shape(out)


def _multi_dot_kernel(ctx, xs):
    mats = _chain(xs)
    out = mats[0]
    for m in mats[1:]:
        out = out @ m
    if xs[-1].ndim == 1:
        out = out[:, 0]
    return out[0] if xs[0].ndim == 1 else out


def _multi_dot_grad(ctx, xs, dout):
    mats = _chain(xs)
    g = dout.reshape(mats[0].shape[0], mats[-1].shape[1])
    grads = []
    for k in range(len(mats)):
        left = g
        for m in reversed(mats[k + 1:]):
            left = left @ _t(m)
        right = None
        for m in mats[:k]:
            right = m if right is None else right @ m
        grad = left if right is None else _t(right) @ left
        grads.append(grad.reshape(xs[k].shape))
    return grads


def _t(a):
    return a.swapaxes(-1, -2)


register(OpDef("multi_dot", inputs=[Slot("X", duplicable=True)], outputs=["Out"],
               infer=_multi_dot_infer, kernel=_multi_dot_kernel,
               grad=grad_op("multi_dot_grad", inputs=("X",), in_grads=("X",)),
               doc="Out = X[0] @ X[1] @ ... (a 1-D first operand is a row, a 1-D last a column)"))
register(OpDef("multi_dot_grad", inputs=[Slot("X", duplicable=True), "Out@GRAD"],
               outputs=[Slot("X@GRAD", duplicable=True, dispensable=True)],
               infer=lambda xs, dout: list(xs), kernel=_multi_dot_grad,
               doc="the gradients of multi_dot's operands"))
