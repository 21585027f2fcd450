"""Ranks, least squares, Cholesky solves and general eigenvalues: ``matrix_rank``, ``lstsq``,
``cholesky_solve`` (with its grad op), ``eig`` and ``eigvals``, over batches of matrices in the
last two dimensions (PaddlePaddle 2.6's op types, slots and attributes).

``conj`` (the complex conjugate) is here because ``cov`` and ``pinv`` write it.
``eig`` and ``eigvals`` give complex results (complex64 for float32 input, complex128 for
float64), as PaddlePaddle's do; their kernels need ``xp.linalg.eig``, which NumPy has and CuPy
does not. For ``Out = A^-1 X`` with ``A = Y Y^T`` (``cholesky_solve``): ``dX = A^-1 dOut`` and
``dA = -dX Out^T``, so the factor's gradient is ``(dA + dA^T) Y`` on its triangle.
"""

import numpy

from paddle_nb.ops.machinery.broadcast import sum_to
from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []


def _t(a):
    return a.swapaxes(-1, -2)


def _matrices(m, slot, square=False):
    s = m.shape
    if len(s) < 2:
        fail(f"{slot} must be a (batch of) matrices [..., m, n], got shape {tuple(s)}")
    if square and s[-1] != s[-2] and -1 not in s[-2:]:
        fail(f"{slot} must be a (batch of) square matrices [..., n, n], got {tuple(s)}")


def _batch(a, b):
    a, b = tuple(a), tuple(b)
    a, b = (1,) * (len(b) - len(a)) + a, (1,) * (len(a) - len(b)) + b
    return tuple(max(i, j) if 1 not in (i, j) else i * j for i, j in zip(a, b))


# ---- matrix_rank -------------------------------------------------------------------------

def _rank_infer(x, tol_tensor, *, tol, use_default_tol, hermitian):
    _matrices(x, "X", square=hermitian)
    return x.with_shape(tuple(x.shape[:-2])).with_dtype("int32")


def _rank_kernel(ctx, x, tol_tensor, *, tol, use_default_tol, hermitian):
    """The number of singular values (|eigenvalues| when hermitian) above the tolerance: the
    given one, or max(m, n) * eps(dtype) * the largest."""
    xp = ctx.xp
    if hermitian:
        s = xp.abs(xp.linalg.eigvalsh((x + _t(x)) / 2))
    else:
        s = xp.linalg.svd(x, compute_uv=False)
    if tol_tensor is not None:
        limit = tol_tensor[..., None]
    elif use_default_tol:
        eps = numpy.finfo(x.dtype).eps
        limit = s.max(axis=-1, keepdims=True) * max(x.shape[-2:]) * eps
    else:
        limit = tol
    return (s > limit).sum(axis=-1).astype("int32")


register(OpDef("matrix_rank", inputs=["X", Slot("TolTensor", dispensable=True)],
               outputs=["Out"],
               attrs={"tol": Attr("float", 0.0, comment="the absolute tolerance (when not "
                                                        "use_default_tol)"),
                      "use_default_tol": Attr("bool", True,
                                              comment="max(m, n) * eps * the largest value"),
                      "hermitian": Attr("bool", False, comment="X symmetric: eigenvalues")},
               infer=_rank_infer, kernel=_rank_kernel,
               doc="the rank of each matrix (int32)"))


# ---- lstsq -------------------------------------------------------------------------------

def _lstsq_infer(x, y, *, rcond, driver):
    _matrices(x, "X")
    _matrices(y, "Y")
    if x.shape[-2] != y.shape[-2] and -1 not in (x.shape[-2], y.shape[-2]):
        fail(f"X and Y must have the same number of rows, got X {tuple(x.shape)} and "
             f"Y {tuple(y.shape)}")
    batch = _batch(x.shape[:-2], y.shape[:-2])
    m, n, k = x.shape[-2], x.shape[-1], y.shape[-1]
    rank = x.with_shape(batch).with_dtype("int32")
    values = x.with_shape(batch + (min(m, n),)) if driver in ("gelsd", "gelss") else \
        x.with_shape((0,))
    return x.with_shape(batch + (n, k)), x.with_shape(batch + (k,)), rank, values


def _lstsq_kernel(ctx, x, y, *, rcond, driver):
    """The least-squares solution by the pseudo-inverse (singular values below rcond * the
    largest dropped); residuals (the squared column norms of Y - X Out) when m > n and X has
    full rank, else empty; singular values for the SVD drivers only."""
    xp = ctx.xp
    batch = _batch(x.shape[:-2], y.shape[:-2])
    x, y = xp.broadcast_to(x, batch + x.shape[-2:]), xp.broadcast_to(y, batch + y.shape[-2:])
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    keep = s > rcond * s.max(axis=-1, keepdims=True)
    inv_s = xp.where(keep, 1 / xp.where(keep, s, 1), 0)
    out = _t(vh) @ (inv_s[..., :, None] * (_t(u) @ y))
    rank = keep.sum(axis=-1).astype("int32")
    m, n = x.shape[-2], x.shape[-1]
    if m > n and bool((rank == n).all()):
        residuals = ((y - x @ out) ** 2).sum(axis=-2)
    else:
        residuals = xp.zeros((0,), dtype=x.dtype)
    values = s if driver in ("gelsd", "gelss") else xp.zeros((0,), dtype=x.dtype)
    return (out.astype(x.dtype, copy=False), residuals.astype(x.dtype, copy=False), rank,
            values.astype(x.dtype, copy=False))


register(OpDef("lstsq", inputs=["X", "Y"],
               outputs=["Solution", "Residuals", "Rank", "SingularValues"],
               attrs={"rcond": Attr("float", 0.0, comment="singular values below rcond * the "
                                                          "largest count as zero"),
                      "driver": Attr("str", "gelsy", lambda v: None if v in (
                          "gels", "gelsy", "gelsd", "gelss") else
                          "must be 'gels', 'gelsy', 'gelsd' or 'gelss'",
                          "LAPACK's routine (the singular values come with gelsd, gelss)")},
               infer=_lstsq_infer, kernel=_lstsq_kernel,
               doc="the least-squares solution of X Solution = Y"))


# ---- cholesky_solve ----------------------------------------------------------------------

def _chol_solve_infer(x, y, *, upper):
    _matrices(x, "X")
    _matrices(y, "Y", square=True)
    if x.shape[-2] != y.shape[-1] and -1 not in (x.shape[-2], y.shape[-1]):
        fail(f"X must have as many rows as the factor Y, got X {tuple(x.shape)} and "
             f"Y {tuple(y.shape)}")
    return x.with_shape(_batch(x.shape[:-2], y.shape[:-2]) + tuple(x.shape[-2:]))


def _factor(xp, y, upper):
    return _t(xp.triu(y)) if upper else xp.tril(y)


def _chol_solve(xp, lower, b):
    a = lower @ _t(lower)
    return xp.linalg.solve(xp.broadcast_to(a, b.shape[:-2] + a.shape[-2:]), b)


def _chol_solve_kernel(ctx, x, y, *, upper):
    xp = ctx.xp
    lower = _factor(xp, y, upper)
    b = xp.broadcast_to(x, _batch(x.shape[:-2], y.shape[:-2]) + x.shape[-2:])
    return _chol_solve(xp, lower, b).astype(x.dtype, copy=False)


def _chol_solve_grad(ctx, x, y, out, dout, *, upper):
    xp = ctx.xp
    lower = _factor(xp, y, upper)
    dx = _chol_solve(xp, lower, dout)
    da = -(dx @ _t(out))
    dl = (da + _t(da)) @ lower
    dy = xp.triu(_t(dl)) if upper else xp.tril(dl)
    return (sum_to(dx, x.shape).astype(x.dtype, copy=False),
            sum_to(dy, y.shape).astype(y.dtype, copy=False))


register(OpDef("cholesky_solve", inputs=["X", "Y"], outputs=["Out"],
               attrs={"upper": Attr("bool", False, comment="Y is the upper factor U "
                                                           "(A = U^T U)")},
               infer=_chol_solve_infer, kernel=_chol_solve_kernel,
               grad=grad_op("cholesky_solve_grad", inputs=("X", "Y"), outputs=("Out",),
                            in_grads=("X", "Y")),
               doc="Out = A^-1 X for A = Y Y^T (Y the lower Cholesky factor, or U^T U)"))
register(OpDef("cholesky_solve_grad", inputs=["X", "Y", "Out", "Out@GRAD"],
               outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
               attrs={"upper": Attr("bool", False)},
               infer=lambda x, y, out, dout, **_: (x, y), kernel=_chol_solve_grad,
               doc="the gradients of cholesky_solve: X@GRAD, Y@GRAD (on Y's triangle)"))


# ---- eig, eigvals ------------------------------------------------------------------------

def _complex(dtype):
    return numpy.result_type(dtype, numpy.complex64)


def _eig_infer(x):
    _matrices(x, "X", square=True)
    values = x.with_shape(tuple(x.shape[:-1])).with_dtype(_complex(x.dtype))
    return values, x.with_dtype(_complex(x.dtype))


def _eig_kernel(ctx, x):
    values, vectors = ctx.xp.linalg.eig(x)
    kind = _complex(x.dtype)
    return values.astype(kind, copy=False), vectors.astype(kind, copy=False)


register(OpDef("eig", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"], infer=_eig_infer,
               kernel=_eig_kernel,
               doc="the (complex) eigenvalues and unit eigenvectors of a general square X"))
register(OpDef("eigvals", inputs=["X"], outputs=["Out"],
               infer=lambda x: _eig_infer(x)[0],
               kernel=lambda ctx, x: _eig_kernel(ctx, x)[0],
               doc="the (complex) eigenvalues of a general square X"))


# ---- conj --------------------------------------------------------------------------------

def _conj_grad(g):
    """The gradient of the conjugate is the conjugate of the gradient (a ``conj`` op)."""
    return [OpSpec("conj", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")}, {})]


def _conj_infer(x):
    if numpy.dtype(x.dtype).kind not in "fciu":
        fail(f"X must be a number (float, int or complex), got {numpy.dtype(x.dtype).name}")
    return x


register(OpDef("conj", inputs=["X"], outputs=["Out"], infer=_conj_infer,
               kernel=lambda ctx, x: ctx.xp.conj(x), grad=_conj_grad,
               doc="the complex conjugate (a real X as it is); cov and pinv write it"))
