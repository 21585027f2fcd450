"""Matrix decompositions: ``svd``, ``qr``, ``lu`` and ``lu_unpack``, with their grad ops, each
over a batch of matrices in the last two dimensions (PaddlePaddle 2.6's op types, slots and
attributes).

The gradients (real matrices) follow from differentiating the defining products:
for ``A = U diag(S) V^T`` the classic formula with ``F_ij = 1 / (s_j^2 - s_i^2)``; for
``A = Q R`` (m >= n), ``dA = (dQ + Q copyltu(M)) R^-T`` with ``M = R dR^T - dQ^T Q``; for
``A = P L U`` (square), ``dA = P L^-T (tril(L^T dL, -1) + triu(dU U^T)) U^-T``.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []


def _matrices(m, slot):
    if len(m.shape) < 2:
        fail(f"{slot} must be a (batch of) matrices [..., m, n], got shape {tuple(m.shape)}")


def _t(a):
    return a.swapaxes(-1, -2)


def _eye_like(xp, n, dtype):
    return xp.eye(n, dtype=dtype)


# ---- svd ---------------------------------------------------------------------------------

def _svd_infer(x, *, full_matrices):
    _matrices(x, "X")
    *batch, m, n = x.shape
    k = -1 if -1 in (m, n) else min(m, n)
    u_cols, v_rows = (m, n) if full_matrices else (k, k)
    return (x.with_shape(tuple(batch) + (m, u_cols)), x.with_shape(tuple(batch) + (k,)),
            x.with_shape(tuple(batch) + (v_rows, n)))


def _svd_kernel(ctx, x, *, full_matrices):
    u, s, vh = ctx.xp.linalg.svd(x, full_matrices=full_matrices)
    return tuple(a.astype(x.dtype, copy=False) for a in (u, s, vh))


def _svd_grad(ctx, x, u, vh, s, du, dvh, ds, *, full_matrices):
    """The gradient of the reduced SVD (full_matrices=False) of a real matrix."""
    xp = ctx.xp
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    v = _t(vh)
    du = xp.zeros_like(u) if du is None else du[..., :k]
    dv = xp.zeros_like(v) if dvh is None else _t(dvh[..., :k, :])
    eye = _eye_like(xp, k, s.dtype)
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2          # s_j^2 - s_i^2
    f = (1 - eye) / (s2 + eye)
    ju, jv = _t(u) @ du, _t(v) @ dv
    middle = (f * (ju - _t(ju))) * s[..., None, :] + s[..., :, None] * (f * (jv - _t(jv)))
    if ds is not None:
        middle = middle + ds[..., None, :] * eye
    grad = u @ middle @ vh
    inv_s = 1 / s
    m, n = x.shape[-2], x.shape[-1]
    if m > k:
        grad = grad + (du - u @ (_t(u) @ du)) * inv_s[..., None, :] @ vh
    if n > k:
        grad = grad + u @ (_t(dv - v @ (_t(v) @ dv)) * inv_s[..., :, None])
    return grad.astype(x.dtype, copy=False)


SVD_ATTRS = {"full_matrices": Attr("bool", False, comment="U [m, m] and VH [n, n] (else k = "
                                                          "min(m, n) columns / rows)")}

register(OpDef("svd", inputs=["X"], outputs=["U", "S", "VH"], attrs=SVD_ATTRS,
               infer=_svd_infer, kernel=_svd_kernel,
               grad=grad_op("svd_grad", inputs=("X",), outputs=("U", "VH", "S"),
                            out_grads=("U", "VH", "S")),
               doc="X = U diag(S) VH, S descending"))
register(OpDef("svd_grad", inputs=["X", "U", "VH", "S", Slot("U@GRAD", dispensable=True),
                                   Slot("VH@GRAD", dispensable=True),
                                   Slot("S@GRAD", dispensable=True)],
               outputs=["X@GRAD"], attrs=SVD_ATTRS,
               infer=lambda x, *_, **__: x, kernel=_svd_grad,
               doc="the gradient of svd (the reduced factors): X@GRAD"))


# ---- qr ----------------------------------------------------------------------------------

def _qr_infer(x, *, mode):
    _matrices(x, "X")
    *batch, m, n = x.shape
    k = -1 if -1 in (m, n) else min(m, n)
    q_cols, r_rows = (m, m) if mode == "complete" else (k, k)
    q = x.with_shape((0,)) if mode == "r" else x.with_shape(tuple(batch) + (m, q_cols))
    return q, x.with_shape(tuple(batch) + (r_rows, n))


def _qr_kernel(ctx, x, *, mode):
    xp = ctx.xp
    if mode == "r":
        r = xp.linalg.qr(x, mode="r")
        return xp.zeros((0,), dtype=x.dtype), r.astype(x.dtype, copy=False)
    q, r = xp.linalg.qr(x, mode=mode)
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _qr_grad(ctx, x, q, r, dq, dr, *, mode):
    """dA = (dQ + Q copyltu(M)) R^-T, M = R dR^T - dQ^T Q (reduced, m >= n)."""
    xp = ctx.xp
    if mode == "r" or x.shape[-2] < x.shape[-1]:
        raise NotImplementedError(
            f"qr_grad: the derivative of qr is available for mode 'reduced' or 'complete' with "
            f"rows >= columns, got mode {mode!r} and X {tuple(x.shape)}")
    n = x.shape[-1]
    q = q[..., :n]
    dq = xp.zeros_like(q) if dq is None else dq[..., :n]
    dr = xp.zeros_like(r) if dr is None else dr
    r, dr = r[..., :n, :], dr[..., :n, :]
    m = r @ _t(dr) - _t(dq) @ q
    low = xp.tril(m, -1)
    copyltu = low + _t(low) + m * _eye_like(xp, n, m.dtype)
    rhs = dq + q @ copyltu                                  # solve X R^T = rhs for X
    grad = _t(xp.linalg.solve(r, _t(rhs)))
    return grad.astype(x.dtype, copy=False)


QR_ATTRS = {"mode": Attr("str", "reduced", lambda v: None if v in ("reduced", "complete", "r")
                         else "must be 'reduced', 'complete' or 'r'",
                         "'reduced' (k columns of Q), 'complete' (m) or 'r' (R only)")}

register(OpDef("qr", inputs=["X"], outputs=["Q", "R"], attrs=QR_ATTRS, infer=_qr_infer,
               kernel=_qr_kernel,
               grad=grad_op("qr_grad", inputs=("X",), outputs=("Q", "R"),
                            out_grads=("Q", "R")),
               doc="X = Q R, Q with orthonormal columns, R upper triangular"))
register(OpDef("qr_grad", inputs=["X", "Q", "R", Slot("Q@GRAD", dispensable=True),
                                  Slot("R@GRAD", dispensable=True)],
               outputs=["X@GRAD"], attrs=QR_ATTRS, infer=lambda x, *_, **__: x,
               kernel=_qr_grad, doc="the gradient of qr: X@GRAD"))


# ---- lu ----------------------------------------------------------------------------------

def _lu_infer(x, *, pivots):
    _matrices(x, "X")
    if not pivots:
        fail("pivots must be True: LU without pivoting is not available in paddle_nb")
    *batch, m, n = x.shape
    k = -1 if -1 in (m, n) else min(m, n)
    infos = tuple(batch) if batch else (1,)
    return (x, x.with_shape(tuple(batch) + (k,)).with_dtype("int32"),
            x.with_shape(infos).with_dtype("int32"))


def _lu_kernel(ctx, x, *, pivots):
    """Gaussian elimination with partial pivoting (LAPACK's getrf): the unit-lower L below the
    diagonal and U on and above it, packed in one matrix; pivots 1-based; info the first zero
    pivot (1-based) or 0."""
    xp = ctx.xp
    *batch, m, n = x.shape
    k = min(m, n)
    a = x.reshape((-1, m, n)).copy()
    rows = xp.arange(a.shape[0])
    piv = xp.zeros((a.shape[0], k), dtype="int32")
    info = xp.zeros((a.shape[0],), dtype="int32")
    for j in range(k):
        p = xp.argmax(xp.abs(a[:, j:, j]), axis=1) + j
        piv[:, j] = p + 1
        row_j, row_p = a[rows, j].copy(), a[rows, p].copy()
        a[rows, j], a[rows, p] = row_p, row_j
        pivot = a[:, j, j]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, j + 1, info).astype("int32")
        safe = xp.where(zero, 1, pivot)
        a[:, j + 1:, j] /= safe[:, None]
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return (a.reshape(x.shape), piv.reshape(tuple(batch) + (k,)),
            info.reshape(tuple(batch) if batch else (1,)))


def permutation(xp, piv, m):
    """The row order ``perm`` the pivots (1-based, applied in turn) make: ``(P^T A) = A[perm]``."""
    batch = piv.shape[:-1]
    perm = xp.broadcast_to(xp.arange(m), batch + (m,)).reshape((-1, m)).copy()
    flat = piv.reshape((-1, piv.shape[-1])) - 1
    rows = xp.arange(perm.shape[0])
    for j in range(flat.shape[-1]):
        p = flat[:, j]
        a, b = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = b, a
    return perm.reshape(batch + (m,))


def _pmat(xp, piv, m, dtype):
    """P with A = P L U: P[perm[i], i] = 1."""
    perm = permutation(xp, piv, m)
    return _t((perm[..., :, None] == xp.arange(m)).astype(dtype))


def _unpacked(xp, lu):
    m, n = lu.shape[-2], lu.shape[-1]
    k = min(m, n)
    lower = xp.tril(lu, -1)[..., :, :k] + xp.eye(m, k, dtype=lu.dtype)
    return lower, xp.triu(lu)[..., :k, :]


def _lu_grad(ctx, x, out, piv, dout, *, pivots):
    xp = ctx.xp
    if x.shape[-1] != x.shape[-2]:
        raise NotImplementedError(f"lu_grad: the derivative of lu is available for square "
                                  f"matrices here, got X {tuple(x.shape)}")
    lower, upper = _unpacked(xp, out)
    dl, du = xp.tril(dout, -1), xp.triu(dout)
    phi = xp.tril(_t(lower) @ dl, -1) + xp.triu(du @ _t(upper))
    inner = _t(xp.linalg.solve(upper, _t(xp.linalg.solve(_t(lower), phi))))
    return (_pmat(xp, piv, x.shape[-1], x.dtype) @ inner).astype(x.dtype, copy=False)


LU_ATTRS = {"pivots": Attr("bool", True, comment="partial pivoting (the only form here)")}

register(OpDef("lu", inputs=["X"], outputs=["Out", "Pivots", "Infos"], attrs=LU_ATTRS,
               infer=_lu_infer, kernel=_lu_kernel,
               grad=grad_op("lu_grad", inputs=("X",), outputs=("Out", "Pivots")),
               doc="X = P L U packed in Out (L unit lower, below the diagonal), the row pivots "
                   "(1-based) and each matrix's info (0, or the first zero pivot)"))
register(OpDef("lu_grad", inputs=["X", "Out", "Pivots", "Out@GRAD"], outputs=["X@GRAD"],
               attrs=LU_ATTRS, infer=lambda x, *_, **__: x, kernel=_lu_grad,
               doc="the gradient of lu (square X): X@GRAD"))


# ---- lu_unpack ---------------------------------------------------------------------------

def _lu_unpack_infer(x, piv, *, unpack_ludata, unpack_pivots):
    _matrices(x, "X")
    *batch, m, n = x.shape
    k = -1 if -1 in (m, n) else min(m, n)
    batch = tuple(batch)
    return (x.with_shape(batch + (m, m)), x.with_shape(batch + (m, k)),
            x.with_shape(batch + (k, n)))


def _lu_unpack_kernel(ctx, x, piv, *, unpack_ludata, unpack_pivots):
    xp = ctx.xp
    lower, upper = _unpacked(xp, x)
    pmat = _pmat(xp, piv, x.shape[-2], x.dtype)
    return pmat, lower.astype(x.dtype, copy=False), upper.astype(x.dtype, copy=False)


def _lu_unpack_grad(ctx, x, piv, lower, upper, pmat, dl, du, *, unpack_ludata, unpack_pivots):
    xp = ctx.xp
    grad = xp.zeros_like(x)
    k = upper.shape[-2]
    if dl is not None:
        grad[..., :, :k] += xp.tril(dl, -1)
    if du is not None:
        grad[..., :k, :] += xp.triu(du)
    return grad


LU_UNPACK_ATTRS = {"unpack_ludata": Attr("bool", True), "unpack_pivots": Attr("bool", True)}

register(OpDef("lu_unpack", inputs=["X", "Pivots"], outputs=["Pmat", "L", "U"],
               attrs=LU_UNPACK_ATTRS, infer=_lu_unpack_infer, kernel=_lu_unpack_kernel,
               grad=grad_op("lu_unpack_grad", inputs=("X", "Pivots"),
                            outputs=("L", "U", "Pmat"), out_grads=("L", "U")),
               doc="P, L and U of lu's packed Out and pivots (X = P L U)"))
register(OpDef("lu_unpack_grad", inputs=["X", "Pivots", "L", "U", "Pmat",
                                         Slot("L@GRAD", dispensable=True),
                                         Slot("U@GRAD", dispensable=True)],
               outputs=["X@GRAD"], attrs=LU_UNPACK_ATTRS, infer=lambda x, *_, **__: x,
               kernel=_lu_unpack_grad, doc="the gradient of lu_unpack: L's and U's triangles"))
