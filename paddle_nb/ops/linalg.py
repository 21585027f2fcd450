"""Matrix products: ``mul``, ``matmul`` and ``matmul_v2``, each with its grad op.

``mul`` (the fc layer's product) flattens X and Y to matrices at
``x_num_col_dims`` / ``y_num_col_dims``. ``matmul`` (fluid 1.x) multiplies the
last two dimensions, with transposes and a scale ``alpha``; a rank-1 X is a row
[1, K], a rank-1 Y a column [K, 1], and batches must hold as many matrices.
``matmul_v2`` follows ``numpy.matmul``: batch dimensions broadcast. Every
gradient is the same identity, dA = dOut @ B^T and dB = A^T @ dOut, summed back
over the batch dimensions an operand was broadcast along.
"""

import functools
import math

import numpy

from paddle_nb.ops.machinery.broadcast import broadcast_shape, sum_to
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import (Attr, OpDef, Slot, fail, known_product, prepared,
                                              register)

__all__ = ["matmul_shape", "matmul_v2_shape"]

# Attributes PaddlePaddle writes for its MKL-DNN/int8 kernels: accepted, ignored here.
MUL_EXTRA = {"scale_x": Attr("float", 1.0), "scale_y": Attr("floats", [1.0]),
             "scale_out": Attr("float", 1.0), "force_fp32_output": Attr("bool", False)}
FUSED_EXTRA = {"mkldnn_data_type": Attr("str", "float32"),
               **{f"fused_{k}_{s}": Attr("ints", []) for k in ("reshape", "transpose")
                  for s in ("X", "Y", "Out")}}
INT8_EXTRA = {"use_quantizer": Attr("bool", False), "Scale_x": Attr("float", 1.0),
              "Scale_y": Attr("float", 1.0), "Scale_out": Attr("float", 1.0),
              "force_fp32_output": Attr("bool", False)}


def _same(a, b):
    return a == b or a < 0 or b < 0


def _check_pair(x, y):
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
    if not x.shape or not y.shape:
        fail(f"X and Y must have rank >= 1, got shapes {tuple(x.shape)} and {tuple(y.shape)}")


def _swap(a):
    return a.swapaxes(-1, -2)


def _product_grads(a, b, g, ctx=None):
    """dA and dB of ``A @ B`` (batched, broadcast) for the output gradient ``g``; a gradient
    the context does not want is None."""
    da = sum_to(g @ _swap(b), a.shape) if ctx is None or ctx.want(0) else None
    db = sum_to(_swap(a) @ g, b.shape) if ctx is None or ctx.want(1) else None
    return da, db


def _pair_grad_infer(x, y, dout, **_):
    return x, y


def _batched_shape(a, b):
    batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return tuple(batch) + (a.shape[-2], b.shape[-1])


# ---- mul --------------------------------------------------------------------------------------

def _mul_infer(x, y, *, x_num_col_dims, y_num_col_dims, **_):
    xn, yn = x_num_col_dims, y_num_col_dims
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
    for slot, m, n in (("X", x, xn), ("Y", y, yn)):
        if len(m.shape) <= n:
            fail(f"{slot} must have rank > {slot.lower()}_num_col_dims = {n}, "
                 f"got shape {tuple(m.shape)}")
    width, height = known_product(x.shape[xn:]), known_product(y.shape[:yn])
    if not _same(width, height):
        fail(f"X flattened at x_num_col_dims={xn} has width {width} but Y flattened at "
             f"y_num_col_dims={yn} has height {height} (X shape {tuple(x.shape)}, "
             f"Y shape {tuple(y.shape)})")
    return x.with_shape(tuple(x.shape[:xn]) + tuple(y.shape[yn:]))


def _as_matrix(a, n):
    return a.reshape(math.prod(a.shape[:n]), math.prod(a.shape[n:]))


def _mul_kernel(ctx, x, y, *, x_num_col_dims, y_num_col_dims, **_):
    out = _as_matrix(x, x_num_col_dims) @ _as_matrix(y, y_num_col_dims)
    return out.reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])


def _mul_grad_kernel(ctx, x, y, dout, *, x_num_col_dims, y_num_col_dims, **_):
    a, b = _as_matrix(x, x_num_col_dims), _as_matrix(y, y_num_col_dims)
    da, db = _product_grads(a, b, dout.reshape(a.shape[0], b.shape[1]), ctx)
    return (None if da is None else da.reshape(x.shape)), \
        (None if db is None else db.reshape(y.shape))


MUL_ATTRS = {
    "x_num_col_dims": Attr("int", 1, lambda v: None if v >= 1 else "must be >= 1",
                           "X's first x_num_col_dims dimensions become the matrix's rows"),
    "y_num_col_dims": Attr("int", 1, lambda v: None if v >= 1 else "must be >= 1",
                           "Y's first y_num_col_dims dimensions become the matrix's rows"),
    **MUL_EXTRA,
}

# ---- matmul (fluid 1.x) -----------------------------------------------------------------------


def _v1_matrix(shape, is_x, trans):
    """(batch dims, rows, cols) of X or Y as matmul sees it."""
    s = tuple(shape)
    if len(s) == 1:
        s = (1, s[0]) if is_x else (s[0], 1)
    rows, cols = (s[-1], s[-2]) if trans else (s[-2], s[-1])
    return s[:-2], rows, cols


def matmul_shape(xs, ys, transpose_x, transpose_y):
    """Out's shape for fluid's ``matmul`` (-1 = unknown), or a ShapeError.

    >>> matmul_shape((5,), (5, 3), False, False), matmul_shape((-1, 4, 5), (5,), False, False)
    ((3,), (-1, 4))
    """
    xb, m, kx = _v1_matrix(xs, True, transpose_x)
    yb, ky, n = _v1_matrix(ys, False, transpose_y)
    if not _same(kx, ky):
        fail(f"X's width must equal Y's height: X of shape {tuple(xs)} (transpose_X="
             f"{transpose_x}) has {kx} columns, Y of shape {tuple(ys)} (transpose_Y="
             f"{transpose_y}) has {ky} rows")
    if xb and yb and not _same(known_product(xb), known_product(yb)):
        fail(f"X and Y must hold as many matrices: X of shape {tuple(xs)} has batch {xb}, "
             f"Y of shape {tuple(ys)} has batch {yb}")
    out = list(xb or yb) + [m, n]
    if len(xs) == 1 and out[-2] == 1:
        del out[-2]
    if len(ys) == 1 and out[-1] == 1:
        del out[-1]
    return tuple(out) or (1,)


def _v1_operands(x, y, tx, ty):
    """X and Y as (batch, rows, cols) stacks (or plain matrices), transposes applied."""
    a = x.reshape(1, -1) if x.ndim == 1 else x
    b = y.reshape(-1, 1) if y.ndim == 1 else y
    a = a.reshape((-1,) + a.shape[-2:]) if a.ndim > 3 else a
    b = b.reshape((-1,) + b.shape[-2:]) if b.ndim > 3 else b
    return (_swap(a) if tx else a), (_swap(b) if ty else b)


def _matmul_infer(x, y, *, transpose_X, transpose_Y, **_):
    _check_pair(x, y)
    return x.with_shape(matmul_shape(x.shape, y.shape, transpose_X, transpose_Y))


def _matmul_kernel(ctx, x, y, *, transpose_X, transpose_Y, alpha, **_):
    shape = matmul_shape(x.shape, y.shape, transpose_X, transpose_Y)
    a, b = _v1_operands(x, y, transpose_X, transpose_Y)
    out = a @ b
    if alpha != 1.0:
        out = out * alpha
    return out.reshape(shape).astype(x.dtype, copy=False)


def _matmul_grad_kernel(ctx, x, y, dout, *, transpose_X, transpose_Y, alpha, **_):
    a, b = _v1_operands(x, y, transpose_X, transpose_Y)
    g = dout.reshape(_batched_shape(a, b))
    da, db = _product_grads(a, b, g * alpha if alpha != 1.0 else g)
    da = _swap(da) if transpose_X else da
    db = _swap(db) if transpose_Y else db
    return (da.reshape(x.shape).astype(x.dtype, copy=False),
            db.reshape(y.shape).astype(y.dtype, copy=False))


MATMUL_ATTRS = {
    "transpose_X": Attr("bool", False, comment="use X's transpose (last two dimensions)"),
    "transpose_Y": Attr("bool", False, comment="use Y's transpose (last two dimensions)"),
    "alpha": Attr("float", 1.0, comment="Out is scaled by alpha"),
    "head_number": Attr("int", 1, lambda v: None if v == 1 else "only head_number = 1 is supported",
                        "MKLML multi-head product; only 1 here"),
    **FUSED_EXTRA, **INT8_EXTRA,
}

# ---- matmul_v2 (numpy.matmul) -----------------------------------------------------------------


def matmul_v2_shape(xs, ys, trans_x, trans_y):
    """Out's shape for ``matmul_v2`` (numpy.matmul with transposes), or a ShapeError.

    >>> matmul_v2_shape((2, 1, 4, 5), (3, 5, 6), False, False), matmul_v2_shape((-1, 5), (5,), 0, 0)
    ((2, 3, 4, 6), (-1,))
    """
    a = (1,) + tuple(xs) if len(xs) == 1 else tuple(xs)
    b = tuple(ys) + (1,) if len(ys) == 1 else tuple(ys)
    if trans_x and len(xs) > 1:
        a = a[:-2] + (a[-1], a[-2])
    if trans_y and len(ys) > 1:
        b = b[:-2] + (b[-1], b[-2])
    if not _same(a[-1], b[-2]):
        fail(f"X's width must equal Y's height: X of shape {tuple(xs)} (trans_x={trans_x}) "
             f"has {a[-1]} columns, Y of shape {tuple(ys)} (trans_y={trans_y}) has {b[-2]} rows")
    out = broadcast_shape(a[:-2], b[:-2], f"the batch dimensions of X (shape {tuple(xs)}) "
                          f"and Y (shape {tuple(ys)})")
    out += (a[-2],) if len(xs) > 1 else ()
    out += (b[-1],) if len(ys) > 1 else ()
    return out or (1,)


def _v2_operands(x, y, tx, ty):
    a = x.reshape(1, -1) if x.ndim == 1 else (_swap(x) if tx else x)
    b = y.reshape(-1, 1) if y.ndim == 1 else (_swap(y) if ty else y)
    return a, b


def _matmul_v2_infer(x, y, *, trans_x, trans_y, **_):
    _check_pair(x, y)
    return x.with_shape(matmul_v2_shape(x.shape, y.shape, trans_x, trans_y))


def _matmul_v2_kernel(ctx, x, y, *, trans_x, trans_y, **_):
    a, b = _v2_operands(x, y, trans_x, trans_y)
    return (a @ b).reshape(matmul_v2_shape(x.shape, y.shape, trans_x, trans_y))


def _matmul_v2_grad_kernel(ctx, x, y, dout, *, trans_x, trans_y, **_):
    a, b = _v2_operands(x, y, trans_x, trans_y)
    da, db = _product_grads(a, b, dout.reshape(_batched_shape(a, b)))
    da = _swap(da) if trans_x and x.ndim > 1 else da
    db = _swap(db) if trans_y and y.ndim > 1 else db
    return da.reshape(x.shape), db.reshape(y.shape)


MATMUL_V2_ATTRS = {
    "trans_x": Attr("bool", False, comment="use X's transpose (last two dims; not for rank 1)"),
    "trans_y": Attr("bool", False, comment="use Y's transpose (last two dims; not for rank 1)"),
    **FUSED_EXTRA,
}

# ---- the kernels as made for a plan: plain matrices go straight to matmul ----------------------


def _matrices(attrs, x, y, *rest):
    """True when the op, with these attributes, is ``X @ Y`` on two matrices of one dtype."""
    if len(x.shape) != 2 or len(y.shape) != 2 or x.dtype != y.dtype:
        return False
    if "x_num_col_dims" in attrs:
        return attrs["x_num_col_dims"] == 1 and attrs["y_num_col_dims"] == 1
    if "alpha" in attrs:
        return attrs["alpha"] == 1.0 and not attrs["transpose_X"] and not attrs["transpose_Y"]
    return not attrs["trans_x"] and not attrs["trans_y"]


def _product(kernel):
    """The op's kernel, made for its inputs: ``matmul`` itself on two matrices."""
    def make(ctx, metas, **attrs):
        if metas and _matrices(attrs, *metas):
            return ctx.xp.matmul
        return functools.partial(kernel, ctx, **attrs)
    return prepared(make)


def _product_grad(kernel):
    """The grad op's kernel, made for its inputs: (x, y, dout) -> (dX, dY) of ``X @ Y`` on
    two matrices, only the wanted ones computed."""
    def make(ctx, metas, **attrs):
        if not (metas and _matrices(attrs, *metas)):
            return functools.partial(kernel, ctx, **attrs)
        want_x, want_y = ctx.want(0), ctx.want(1)
        if want_x and want_y:
            return lambda x, y, g: (g @ y.T, x.T @ g)
        if want_x:
            return lambda x, y, g: (g @ y.T, None)
        return lambda x, y, g: (None, x.T @ g)
    return prepared(make)


# ---- registration -----------------------------------------------------------------------------


def _register(name, attrs, infer, kernel, grad_kernel, doc):
    register(OpDef(name, inputs=["X", "Y"], outputs=["Out"], attrs=attrs, infer=infer,
                   kernel=_product(kernel), doc=doc,
                   grad=grad_op(f"{name}_grad", inputs=("X", "Y"), in_grads=("X", "Y"))))
    register(OpDef(f"{name}_grad", inputs=["X", "Y", "Out@GRAD"],
                   outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
                   attrs=attrs, infer=_pair_grad_infer, kernel=_product_grad(grad_kernel),
                   doc=f"the gradients of {name}: X@GRAD and Y@GRAD from X, Y and Out@GRAD"))


_register("mul", MUL_ATTRS, _mul_infer, _mul_kernel, _mul_grad_kernel,
          "Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), reshaped to "
          "X.shape[:x_num_col_dims] + Y.shape[y_num_col_dims:]")
_register("matmul", MATMUL_ATTRS, _matmul_infer, _matmul_kernel, _matmul_grad_kernel,
          "Out = alpha * op(X) @ op(Y), op a transpose of the last two dims (fluid 1.x rules)")
_register("matmul_v2", MATMUL_V2_ATTRS, _matmul_v2_infer, _matmul_v2_kernel,
          _matmul_v2_grad_kernel,
          "Out = op(X) @ op(Y) with numpy.matmul's rules: rank-1 operands, broadcast batches")
