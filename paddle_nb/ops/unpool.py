"""Max unpooling: ``unpool`` (2-D) and ``unpool3d``, with their grads.

The inverse of a max pool that kept its Mask: every value of X goes to the
position Indices names in its channel of the output (a flat index
h * W_out + w, or d * H_out * W_out + ...), the rest of the output is zero.
The output's spatial size is ``output_size``, else (in - 1) * stride -
2 * padding + ksize per axis. The gradient reads Out@GRAD back at the same
positions.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register
from paddle_nb.ops.machinery.window import one_of


def _out_sizes(sizes, ksize, strides, paddings, output_size):
    n = len(sizes)
    if output_size and any(output_size):
        return tuple(output_size[-n:])
    return tuple(-1 if s < 0 else (s - 1) * strides[i] - 2 * paddings[i] + ksize[i]
                 for i, s in enumerate(sizes))


def _make(n):
    def infer(x, indices, **attrs):
        if len(x.shape) != n + 2:
            fail(f"X must be a {n + 2}-D tensor, got shape {tuple(x.shape)}")
        if tuple(indices.shape) != tuple(x.shape):
            fail(f"Indices must have X's shape {tuple(x.shape)}, got {tuple(indices.shape)}")
        if indices.dtype.kind not in "iu":
            fail(f"Indices must be an integer tensor, got {indices.dtype}")
        outs = _out_sizes(x.shape[2:], attrs["ksize"], attrs["strides"], attrs["paddings"],
                          attrs["output_size"])
        return x.with_shape(tuple(x.shape[:2]) + outs)

    def kernel(ctx, x, indices, **attrs):
        xp = ctx.xp
        outs = _out_sizes(x.shape[2:], attrs["ksize"], attrs["strides"], attrs["paddings"],
                          attrs["output_size"])
        volume = 1
        for s in outs:
            volume *= s
        flat = indices.reshape(x.shape[0] * x.shape[1], -1).astype(xp.int64)
        if flat.size and (int(flat.max()) >= volume or int(flat.min()) < 0):
            raise ValueError(f"Indices must lie in the output's {volume} positions per channel "
                             f"(output size {outs}), got {int(flat.min())}..{int(flat.max())}")
        out = xp.zeros((flat.shape[0], volume), dtype=x.dtype)
        rows = xp.arange(flat.shape[0])[:, None]
        out[rows, flat] = x.reshape(flat.shape)
        return out.reshape(tuple(x.shape[:2]) + outs)

    def grad_kernel(ctx, x, indices, out, dout, **attrs):
        xp = ctx.xp
        flat = indices.reshape(x.shape[0] * x.shape[1], -1).astype(xp.int64)
        rows = xp.arange(flat.shape[0])[:, None]
        return dout.reshape(flat.shape[0], -1)[rows, flat].reshape(x.shape)

    return infer, kernel, grad_kernel


def _ints(n, default):
    return Attr("ints", [default] * n, lambda v: None if len(v) == n else
                f"needs {n} values, got {len(v)}")


def _register(op_type, n, layouts, extra):
    infer, kernel, grad_kernel = _make(n)
    attrs = {"ksize": _ints(n, 1), "strides": _ints(n, 1), "paddings": _ints(n, 0),
             "output_size": Attr("ints", [0] * n, comment="the output's spatial size, or 0s"),
             "data_format": Attr("str", layouts[0], one_of(*layouts)), **extra}
    register(OpDef(
        op_type, inputs=["X", "Indices"], outputs=["Out"], attrs=attrs, infer=infer,
        kernel=kernel, grad=grad_op(op_type + "_grad", inputs=("X", "Indices"),
                                    outputs=("Out",)),
        doc=f"Out = zeros with each value of X put at its Indices position ({n}-D max unpool)"))
    register(OpDef(
        op_type + "_grad", inputs=["X", "Indices", "Out", "Out@GRAD"], outputs=["X@GRAD"],
        attrs=attrs, infer=lambda x, i, o, d, **a: x, kernel=grad_kernel,
        doc=f"the gradient of {op_type}: Out@GRAD read at the Indices positions"))


_register("unpool", 2, ("NCHW",), {"unpooling_type": Attr("str", "max", one_of("max"))})
_register("unpool3d", 3, ("NCDHW",), {})
