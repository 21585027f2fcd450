"""Contract cases for paddle_nb/ops/square_matrix.py. References: determinants by cofactor
expansion, inverses and solutions checked through the defining products (A B = I, A X = Y)
rather than numpy.linalg's own routines."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(15)
F = np.float32


def well_conditioned(*shape):
    """Matrices near 3 I (far from singular, so central differences are accurate)."""
    a = rng.standard_normal(shape) * 0.5 + 3 * np.eye(shape[-1])
    return a.astype(F)


def cofactor_det(a):
    if a.shape[0] == 1:
        return a[0, 0]
    return sum((-1) ** j * a[0, j] * cofactor_det(np.delete(a[1:], j, axis=1))
               for j in range(a.shape[0]))


def _det_ref(ins, attrs):
    a = ins["Input"].astype(np.float64)
    flat = a.reshape((-1,) + a.shape[-2:])
    return {"Out": np.array([cofactor_det(m) for m in flat]).reshape(a.shape[:-2]).astype(F)}


def _slogdet_ref(ins, attrs):
    det = _det_ref(ins, attrs)["Out"].astype(np.float64)
    return {"Out": np.stack([np.sign(det), np.log(np.abs(det))]).astype(F)}


def _inverse_ref(ins, attrs):
    """The inverse by solving A B = I column by column with Gauss-Jordan elimination."""
    a = ins["Input"].astype(np.float64)
    n = a.shape[-1]
    out = []
    for m in a.reshape((-1, n, n)):
        aug = np.concatenate([m, np.eye(n)], axis=1)
        for i in range(n):
            aug[i] /= aug[i, i]
            for r in range(n):
                if r != i:
                    aug[r] -= aug[r, i] * aug[i]
        out.append(aug[:, n:])
    return {"Output": np.array(out).reshape(a.shape).astype(F)}


def _solve_ref(ins, attrs):
    inv = _inverse_ref({"Input": ins["X"]}, {})["Output"].astype(np.float64)
    y = ins["Y"].astype(np.float64)
    out = (inv @ y[..., None])[..., 0] if y.ndim == 1 else inv @ y
    return {"Out": out.astype(F)}


def spd(*shape):
    """Symmetric positive-definite matrices."""
    a = rng.standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + 3 * np.eye(shape[-1])).astype(F)


def _cholesky_ref(ins, attrs):
    """Cholesky-Banachiewicz, row by row."""
    a = ins["X"].astype(np.float64)
    n = a.shape[-1]
    out = np.zeros_like(a)
    for m, lower in zip(a.reshape(-1, n, n), out.reshape(-1, n, n)):
        for i in range(n):
            for j in range(i + 1):
                s = m[i, j] - lower[i, :j] @ lower[j, :j]
                lower[i, j] = np.sqrt(s) if i == j else s / lower[j, j]
    if attrs.get("upper"):
        out = np.swapaxes(out, -1, -2)
    return {"Out": out.astype(F)}


CASES = {
    "inverse": [Case(inputs={"Input": well_conditioned(3, 3)}, ref=_inverse_ref,
                     grad=("Input",), rtol=1e-4, atol=1e-5),
                Case(inputs={"Input": well_conditioned(2, 2, 2)}, ref=_inverse_ref,
                     grad=("Input",), rtol=1e-4, atol=1e-5, name="batch")],
    "determinant": [Case(inputs={"Input": well_conditioned(2, 3, 3)}, ref=_det_ref,
                         grad=("Input",), rtol=1e-4, atol=1e-4)],
    "slogdeterminant": [Case(inputs={"Input": well_conditioned(3, 3) * np.float32(-1)},
                             ref=_slogdet_ref, grad=("Input",), rtol=1e-4, atol=1e-5)],
    "solve": [Case(inputs={"X": well_conditioned(3, 3), "Y": rng.standard_normal((3, 2)).astype(F)},
                   ref=_solve_ref, grad=("X", "Y"), rtol=1e-4, atol=1e-5),
              Case(inputs={"X": well_conditioned(3, 3), "Y": rng.standard_normal(3).astype(F)},
                   ref=_solve_ref, grad=("X", "Y"), rtol=1e-4, atol=1e-5, name="vector Y")],
}

CASES["cholesky"] = [
    Case(inputs={"X": spd(3, 3)}, ref=_cholesky_ref, grad=("X",), rtol=1e-4, atol=1e-5),
    Case(inputs={"X": spd(2, 3, 3)}, attrs={"upper": True}, ref=_cholesky_ref, grad=("X",),
         rtol=1e-4, atol=1e-5, name="batch, upper"),
]

def _power_ref(n):
    def ref(ins, attrs):
        a = ins["X"].astype(np.float64)
        base = _inverse_ref({"Input": a}, {})["Output"].astype(np.float64) if n < 0 else a
        out = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
        for _ in range(abs(n)):
            out = out @ base
        return {"Out": out.astype(F)}
    return ref


def _triangular_ref(ins, attrs):
    """Back or forward substitution, one column at a time."""
    x, y = ins["X"].astype(np.float64), ins["Y"].astype(np.float64)
    upper, unit = attrs.get("upper", True), attrs.get("unitriangular", False)
    a = np.triu(x) if upper else np.tril(x)
    if unit:
        np.fill_diagonal(a, 1.0)
    if attrs.get("transpose"):
        a, upper = a.T, not upper
    n = a.shape[0]
    out = np.zeros_like(y)
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        others = (a[i] @ out) - a[i, i] * out[i]
        out[i] = (y[i] - others) / a[i, i]
    return {"Out": out.astype(F)}


CASES["triangular_solve"] = [
    Case(inputs={"X": well_conditioned(3, 3), "Y": rng.standard_normal((3, 2)).astype(F)},
         ref=_triangular_ref, grad=("X", "Y"), rtol=1e-4, atol=1e-5),
    Case(inputs={"X": well_conditioned(3, 3), "Y": rng.standard_normal((3, 2)).astype(F)},
         attrs={"upper": False, "transpose": True, "unitriangular": True},
         ref=_triangular_ref, grad=("X", "Y"), rtol=1e-4, atol=1e-5,
         name="lower, transposed, unit diagonal"),
]

def _eigvalsh_ref(ins, attrs):
    """Eigenvalues as the roots of the characteristic polynomial (numpy.roots), ascending."""
    x = ins["X"].astype(np.float64)
    values = np.sort(np.real(np.roots(np.poly(x))))
    return {"Eigenvalues": values.astype(F)}


CASES["eigvalsh"] = [
    Case(inputs={"X": spd(3, 3)}, ref=_eigvalsh_ref, grad=("X",), grad_outputs=("Eigenvalues",),
         rtol=1e-4, atol=1e-4),
    Case(inputs={"X": spd(3, 3) - 4 * np.eye(3, dtype=F)}, attrs={"UPLO": "U"},
         ref=_eigvalsh_ref, grad=("X",), grad_outputs=("Eigenvalues",), rtol=1e-4, atol=1e-4,
         name="UPLO U, negative eigenvalues too"),
]

def _eigh_ref(ins, attrs):
    """Eigenvalues from the characteristic polynomial (the eigenvectors' signs are free: they
    are checked through their gradient, and against PaddlePaddle's in test_common_paddle.py)."""
    return _eigvalsh_ref(ins, attrs)


def distinct_spectrum(n):
    """A symmetric matrix with eigenvalues 1, 2.5, 4, ... (well apart: the eigenvectors'
    gradient divides by their gaps)."""
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (q * (1 + 1.5 * np.arange(n))) @ q.T


CASES["eigh"] = [
    Case(inputs={"X": distinct_spectrum(3).astype(F)}, ref=_eigh_ref, grad=("X",),
         grad_outputs=("Eigenvalues",), rtol=1e-4, atol=1e-4, name="eigenvalues' gradient"),
    Case(inputs={"X": distinct_spectrum(3).astype(F)}, ref=_eigh_ref, grad=("X",),
         rtol=1e-4, atol=1e-4, name="eigenvalues' and eigenvectors' gradients"),
]

CASES["matrix_power"] = [
    Case(inputs={"X": well_conditioned(3, 3) * np.float32(0.5)}, attrs={"n": 3},
         ref=_power_ref(3), grad=("X",), rtol=1e-4, atol=1e-4),
    Case(inputs={"X": well_conditioned(2, 2, 2)}, attrs={"n": -2}, ref=_power_ref(-2),
         grad=("X",), rtol=1e-4, atol=1e-5, name="batch, n = -2"),
    Case(inputs={"X": well_conditioned(3, 3)}, attrs={"n": 0}, ref=_power_ref(0),
         grad=("X",), name="n = 0: identity"),
]

BAD = {
    op: [Bad(inputs={"Input": Meta((2, 3), np.dtype(F))}, error=ShapeError, match=r"square")]
    for op in ("inverse", "determinant", "slogdeterminant")
}
BAD["triangular_solve"] = [
    Bad(inputs={"X": Meta((3, 3), np.dtype(F)), "Y": Meta((3,), np.dtype(F))},
        error=ShapeError, match=r"Y must be a \(batch of\) matrices")]
BAD["eigvalsh"] = [Bad(inputs={"X": Meta((2, 3), np.dtype(F))}, error=ShapeError,
                      match=r"square")]
BAD["eigh"] = [Bad(inputs={"X": Meta((3, 2), np.dtype(F))}, error=ShapeError, match=r"square")]
BAD["matrix_power"] = [Bad(inputs={"X": Meta((2, 3), np.dtype(F))}, attrs={"n": 2},
                          error=ShapeError, match=r"square")]
BAD["cholesky"] = [Bad(inputs={"X": Meta((2, 3), np.dtype(F))}, error=ShapeError,
                      match=r"square")]
BAD["solve"] = [Bad(inputs={"X": Meta((3, 3), np.dtype(F)), "Y": Meta((4, 2), np.dtype(F))},
                    error=ShapeError, match=r"size 3 in its rows")]
