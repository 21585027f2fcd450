"""Functions of square matrices: ``inverse``, ``determinant``, ``slogdeterminant``, ``solve``,
``triangular_solve``, ``cholesky``, ``matrix_power``, ``eigvalsh`` and ``eigh``, each over a
batch of matrices in the last two dimensions, with its grad op. (X of ``cholesky``, ``eigh``
and ``eigvalsh`` is meant to be symmetric: paddle_nb reads its symmetric part, PaddlePaddle one
triangle; the two agree on symmetric matrices, and the gradients are symmetric.)

The gradients all come from ``d(A^-1) = -A^-1 dA A^-1``: for ``B = A^-1``,
``dA = -B^T dB B^T``; for ``d = det A``, ``dA = dd * d * A^-T``; for ``log|det A|``,
``dA = dlog * A^-T`` (the sign has no gradient); for ``X = A^-1 Y``,
``dY = A^-T dX`` and ``dA = -dY X^T``; the Cholesky factor's is in ``_cholesky_grad``.
"""

from paddle_nb.ops.machinery.broadcast import sum_to
from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []


def _square(m, slot):
    s = m.shape
    if len(s) < 2 or (s[-1] != s[-2] and -1 not in s[-2:]):
        fail(f"{slot} must be a (batch of) square matrices [..., n, n], got {tuple(s)}")


def _t(a):
    return a.swapaxes(-1, -2)


# ---- inverse -----------------------------------------------------------------------------

def _inverse_infer(x):
    _square(x, "Input")
    return x


register(OpDef("inverse", inputs=["Input"], outputs=["Output"], infer=_inverse_infer,
               kernel=lambda ctx, x: ctx.xp.linalg.inv(x).astype(x.dtype, copy=False),
               grad=grad_op("inverse_grad", inputs=(), outputs=("Output",),
                            out_grads=("Output",), in_grads=("Input",)),
               doc="Output = Input^-1 for each matrix of the batch"))
register(OpDef("inverse_grad", inputs=["Output", "Output@GRAD"], outputs=["Input@GRAD"],
               infer=lambda out, dout: out,
               kernel=lambda ctx, out, dout: -(_t(out) @ dout @ _t(out)),
               doc="the gradient of inverse: -B^T dB B^T, B = Output"))


# ---- determinant, slogdeterminant ----------------------------------------------------------

def _det_infer(x):
    _square(x, "Input")
    return x.with_shape(tuple(x.shape[:-2]))


def _det_grad(ctx, x, out, dout):
    scale = (dout * out)[..., None, None]
    return (scale * _t(ctx.xp.linalg.inv(x))).astype(x.dtype, copy=False)


def _slogdet_infer(x):
    _square(x, "Input")
    return x.with_shape((2,) + tuple(x.shape[:-2]))


def _slogdet_kernel(ctx, x):
    sign, logabs = ctx.xp.linalg.slogdet(x)
    return ctx.xp.stack([sign, logabs]).astype(x.dtype, copy=False)


def _slogdet_grad(ctx, x, out, dout):
    return (dout[1][..., None, None] * _t(ctx.xp.linalg.inv(x))).astype(x.dtype, copy=False)


for _name, _infer, _kernel, _grad, _doc in (
        ("determinant", _det_infer,
         lambda ctx, x: ctx.xp.asarray(ctx.xp.linalg.det(x)).astype(x.dtype, copy=False),
         _det_grad, "Out = det(Input) for each matrix of the batch"),
        ("slogdeterminant", _slogdet_infer, _slogdet_kernel, _slogdet_grad,
         "Out = [sign(det Input), log|det Input|] stacked on a new first axis")):
    register(OpDef(_name, inputs=["Input"], outputs=["Out"], infer=_infer, kernel=_kernel,
                   grad=grad_op(f"{_name}_grad", inputs=("Input",), outputs=("Out",),
                                in_grads=("Input",)), doc=_doc))
    register(OpDef(f"{_name}_grad", inputs=["Input", "Out", "Out@GRAD"],
                   outputs=["Input@GRAD"], infer=lambda x, out, dout: x, kernel=_grad,
                   doc=f"the gradient of {_name}: Input@GRAD"))


# ---- solve -------------------------------------------------------------------------------

def _solve_infer(x, y):
    _square(x, "X")
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
    n = x.shape[-1]
    rows = y.shape[0] if len(y.shape) == 1 else (y.shape[-2] if len(y.shape) >= 2 else None)
    if rows is None or (rows != n and -1 not in (rows, n)):
        fail(f"Y must have X's size {n} in its rows: X {tuple(x.shape)}, Y {tuple(y.shape)}")
    if len(y.shape) == 1:
        return y.with_shape(tuple(x.shape[:-2]) + (y.shape[0],))
    batch = tuple(max(a, b) for a, b in zip(
        (1,) * (len(y.shape) - len(x.shape)) + tuple(x.shape[:-2]),
        (1,) * (len(x.shape) - len(y.shape)) + tuple(y.shape[:-2])))
    return y.with_shape(batch + tuple(y.shape[-2:]))


def _column(y):
    return y[..., None] if y.ndim == 1 else y


def _solve_kernel(ctx, x, y):
    xp = ctx.xp
    out = xp.linalg.solve(x, xp.broadcast_to(_column(y), x.shape[:-2] + _column(y).shape[-2:])
                          if y.ndim == 1 else y)
    return (out[..., 0] if y.ndim == 1 else out).astype(x.dtype, copy=False)


def _solve_grad(ctx, x, y, out, dout):
    xp = ctx.xp
    g, o = _column(dout), _column(out)
    dy = xp.linalg.solve(_t(x), g)
    dx = -(dy @ _t(o))
    dy = dy[..., 0] if y.ndim == 1 else dy
    return sum_to(dx, x.shape).astype(x.dtype, copy=False), \
        sum_to(dy, y.shape).astype(y.dtype, copy=False)


register(OpDef("solve", inputs=["X", "Y"], outputs=["Out"], infer=_solve_infer,
               kernel=_solve_kernel,
               grad=grad_op("solve_grad", inputs=("X", "Y"), outputs=("Out",),
                            in_grads=("X", "Y")),
               doc="Out = X^-1 Y: the solution of X Out = Y (Y a vector or matrices)"))
register(OpDef("solve_grad", inputs=["X", "Y", "Out", "Out@GRAD"],
               outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
               infer=lambda x, y, out, dout: (x, y), kernel=_solve_grad,
               doc="the gradients of solve: Y@GRAD = X^-T dOut, X@GRAD = -Y@GRAD Out^T"))


# ---- cholesky ----------------------------------------------------------------------------

def _cholesky_infer(x, *, upper):
    _square(x, "X")
    return x


def _cholesky_kernel(ctx, x, *, upper):
    """The factor of the symmetric part (X + X^T) / 2 (X is meant to be symmetric; PaddlePaddle
    reads one triangle of it, so the two differ only for a non-symmetric X)."""
    lower = ctx.xp.linalg.cholesky((x + _t(x)) / 2)
    return (_t(lower) if upper else lower).astype(x.dtype, copy=False)


def _cholesky_grad(ctx, out, dout, *, upper):
    """For A = L L^T: S = L^-T Phi(L^T dL) L^-1, Phi the lower triangle with its diagonal
    halved; dA = (S + S^T) / 2 (A is symmetric)."""
    xp = ctx.xp
    lower, dlower = (_t(out), _t(dout)) if upper else (out, dout)
    p = xp.tril(_t(lower) @ dlower)
    p = p - 0.5 * xp.eye(p.shape[-1], dtype=p.dtype) * p
    inv = xp.linalg.inv(lower)
    s = _t(inv) @ p @ inv
    return ((s + _t(s)) / 2).astype(out.dtype, copy=False)


register(OpDef("cholesky", inputs=["X"], outputs=["Out"],
               attrs={"upper": Attr("bool", False, comment="Out = U with X = U^T U")},
               infer=_cholesky_infer, kernel=_cholesky_kernel,
               grad=grad_op("cholesky_grad", inputs=(), outputs=("Out",)),
               doc="Out = L with X = L L^T (lower; U = L^T when upper), for symmetric "
                   "positive-definite X"))
register(OpDef("cholesky_grad", inputs=["Out", "Out@GRAD"], outputs=["X@GRAD"],
               attrs={"upper": Attr("bool", False)}, infer=lambda out, dout, **_: out,
               kernel=_cholesky_grad, doc="the gradient of cholesky: X@GRAD (symmetric)"))


# ---- matrix_power ------------------------------------------------------------------------

def _power(xp, a, n):
    """a^n for n >= 0, by repeated squaring (the identity for n = 0)."""
    out = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    while n:
        if n & 1:
            out = out @ a
        a, n = a @ a, n >> 1
    return out


def _matrix_power_infer(x, *, n):
    _square(x, "X")
    return x


def _matrix_power_kernel(ctx, x, *, n):
    base = ctx.xp.linalg.inv(x) if n < 0 else x
    return _power(ctx.xp, base, abs(n)).astype(x.dtype, copy=False)


def _power_grad(xp, a, g, m):
    """The gradient of a^m (m >= 1) for the output gradient g: sum_k (a^T)^k g (a^T)^(m-1-k)."""
    powers = [_power(xp, _t(a), k) for k in range(m)]
    return sum(powers[k] @ g @ powers[m - 1 - k] for k in range(m))


def _matrix_power_grad(ctx, x, out, dout, *, n):
    xp = ctx.xp
    if n == 0:
        return xp.zeros_like(x)
    if n > 0:
        return _power_grad(xp, x, dout, n).astype(x.dtype, copy=False)
    inv = xp.linalg.inv(x)
    dinv = _power_grad(xp, inv, dout, -n)
    return (-(_t(inv) @ dinv @ _t(inv))).astype(x.dtype, copy=False)


register(OpDef("matrix_power", inputs=["X"], outputs=["Out"],
               attrs={"n": Attr("int", 1, comment="the power; < 0 powers the inverse")},
               infer=_matrix_power_infer, kernel=_matrix_power_kernel,
               grad=grad_op("matrix_power_grad", inputs=("X",), outputs=("Out",)),
               doc="Out = X^n for each square matrix (X^-1 to the |n| when n < 0)"))
register(OpDef("matrix_power_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
               attrs={"n": Attr("int", 1)}, infer=lambda x, out, dout, **_: x,
               kernel=_matrix_power_grad, doc="the gradient of matrix_power: X@GRAD"))


# ---- triangular_solve --------------------------------------------------------------------

def _triangle(xp, x, upper, unitriangular):
    """The triangle of X the op reads (its diagonal ones when ``unitriangular``)."""
    tri = xp.triu(x) if upper else xp.tril(x)
    if unitriangular:
        eye = xp.eye(x.shape[-1], dtype=x.dtype)
        tri = tri * (1 - eye) + eye
    return tri


def _triangular_infer(x, y, *, upper, transpose, unitriangular):
    _square(x, "X")
    if len(y.shape) < 2:
        fail(f"Y must be a (batch of) matrices [..., n, k], got {tuple(y.shape)}")
    return _solve_infer(x, y)


def _triangular_kernel(ctx, x, y, *, upper, transpose, unitriangular):
    a = _triangle(ctx.xp, x, upper, unitriangular)
    return _solve_kernel(ctx, _t(a) if transpose else a, y)


def _triangular_grad(ctx, x, y, out, dout, *, upper, transpose, unitriangular):
    xp = ctx.xp
    a = _triangle(xp, x, upper, unitriangular)
    da, dy = _solve_grad(ctx, _t(a) if transpose else a, y, out, dout)
    da = _t(da) if transpose else da
    da = xp.triu(da, 1 if unitriangular else 0) if upper else \
        xp.tril(da, -1 if unitriangular else 0)
    return sum_to(da, x.shape).astype(x.dtype, copy=False), dy


TRIANGULAR_ATTRS = {
    "upper": Attr("bool", True, comment="X's upper triangle (else its lower one)"),
    "transpose": Attr("bool", False, comment="solve with the triangle's transpose"),
    "unitriangular": Attr("bool", False, comment="the diagonal is taken as ones"),
}

register(OpDef("triangular_solve", inputs=["X", "Y"], outputs=["Out"], attrs=TRIANGULAR_ATTRS,
               infer=_triangular_infer, kernel=_triangular_kernel,
               grad=grad_op("triangular_solve_grad", inputs=("X", "Y"), outputs=("Out",),
                            in_grads=("X", "Y")),
               doc="Out = A^-1 Y, A the triangle of X (transposed when transpose)"))
register(OpDef("triangular_solve_grad", inputs=["X", "Y", "Out", "Out@GRAD"],
               outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
               attrs=TRIANGULAR_ATTRS, infer=lambda x, y, out, dout, **_: (x, y),
               kernel=_triangular_grad,
               doc="the gradients of triangular_solve: X@GRAD on the triangle read, Y@GRAD"))


# ---- eigvalsh ----------------------------------------------------------------------------

def _eigvalsh_infer(x, *, UPLO, is_test):
    _square(x, "X")
    return x.with_shape(tuple(x.shape[:-1])), x


def _eigvalsh_kernel(ctx, x, *, UPLO, is_test):
    """Eigenvalues (ascending) and eigenvectors of the symmetric part (X + X^T) / 2 (X is
    meant to be symmetric; PaddlePaddle reads the triangle UPLO names)."""
    values, vectors = ctx.xp.linalg.eigh((x + _t(x)) / 2)
    return values.astype(x.dtype, copy=False), vectors.astype(x.dtype, copy=False)


def _eigvalsh_grad(ctx, vectors, dvalues, *, UPLO, is_test):
    """d(eigenvalues) = V^T dX V on the diagonal, so dX = V diag(dvalues) V^T."""
    return ((vectors * dvalues[..., None, :]) @ _t(vectors)).astype(vectors.dtype, copy=False)


EIGVALSH_ATTRS = {"UPLO": Attr("str", "L", lambda v: None if v in ("L", "U") else
                               "must be 'L' or 'U'", "the triangle PaddlePaddle reads"),
                  "is_test": Attr("bool", False)}

register(OpDef("eigvalsh", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"],
               attrs=EIGVALSH_ATTRS, infer=_eigvalsh_infer, kernel=_eigvalsh_kernel,
               grad=grad_op("eigvalsh_grad", inputs=(), outputs=("Eigenvectors",),
                            out_grads=("Eigenvalues",)),
               doc="the eigenvalues (ascending) of symmetric X, and its eigenvectors for the "
                   "gradient"))
register(OpDef("eigvalsh_grad", inputs=["Eigenvectors", "Eigenvalues@GRAD"],
               outputs=["X@GRAD"], attrs=EIGVALSH_ATTRS,
               infer=lambda vectors, dvalues, **_: vectors, kernel=_eigvalsh_grad,
               doc="the gradient of eigvalsh: V diag(dEigenvalues) V^T"))


# ---- eigh --------------------------------------------------------------------------------

def _eigh_infer(x, *, UPLO):
    return _eigvalsh_infer(x, UPLO=UPLO, is_test=False)


def _eigh_kernel(ctx, x, *, UPLO):
    return _eigvalsh_kernel(ctx, x, UPLO=UPLO, is_test=False)


def _eigh_grad(ctx, values, vectors, dvalues, dvectors, *, UPLO):
    """dX = V (diag(dw) + (V^T dV) / (w_j - w_i)) V^T, made symmetric (X is)."""
    xp = ctx.xp
    inner = xp.zeros_like(vectors) if dvectors is None else _t(vectors) @ dvectors
    gaps = values[..., None, :] - values[..., :, None]
    n = values.shape[-1]
    gaps = gaps + xp.eye(n, dtype=gaps.dtype)          # (the diagonal is not divided)
    middle = inner / gaps * (1 - xp.eye(n, dtype=gaps.dtype))
    if dvalues is not None:
        middle = middle + dvalues[..., None, :] * xp.eye(n, dtype=gaps.dtype)
    grad = vectors @ middle @ _t(vectors)
    return ((grad + _t(grad)) / 2).astype(vectors.dtype, copy=False)


def _eigh_grad_maker(g):
    ins = {"Eigenvalues": g.output("Eigenvalues"), "Eigenvectors": g.output("Eigenvectors"),
           "Eigenvalues@GRAD": g.output_grad("Eigenvalues"),
           "Eigenvectors@GRAD": g.output_grad("Eigenvectors")}
    return [OpSpec("eigh_grad", ins, {"X@GRAD": g.input_grad("X")}, dict(g.attrs))]


EIGH_ATTRS = {"UPLO": EIGVALSH_ATTRS["UPLO"]}

register(OpDef("eigh", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"],
               attrs=EIGH_ATTRS, infer=_eigh_infer, kernel=_eigh_kernel, grad=_eigh_grad_maker,
               doc="the eigenvalues (ascending) and eigenvectors of symmetric X"))
register(OpDef("eigh_grad", inputs=["Eigenvalues", "Eigenvectors",
                                    Slot("Eigenvalues@GRAD", dispensable=True),
                                    Slot("Eigenvectors@GRAD", dispensable=True)],
               outputs=["X@GRAD"], attrs=EIGH_ATTRS,
               infer=lambda values, vectors, dvalues, dvectors, **_: vectors,
               kernel=_eigh_grad, doc="the gradient of eigh: X@GRAD"))
