"""paddle.linalg's decompositions and what PaddlePaddle 2.6 builds from them: svd, qr, lu,
lu_unpack, matrix_rank, lstsq, cholesky_solve, eig, eigvals (one op each), and the
compositions pinv, cond, cov, corrcoef and pca_lowrank (the ops 2.6 appends, in its order).

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     x = pd.static.data("x", [3, 2])
...     u, s, vh = svd(x)
>>> (u.name, u.shape), (s.name, s.shape), (vh.name, vh.shape)
(('svd_0.tmp_0', (3, 2)), ('svd_0.tmp_2', (2,)), ('svd_0.tmp_1', (2, 2)))
"""

from __future__ import annotations

import numpy
from typing import Any

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["svd", "qr", "lu", "lu_unpack", "matrix_rank", "lstsq", "cholesky_solve", "eig",
           "eigvals"]


def _outputs(key: str, op_type: str, inputs: Any, slots: Any, attrs: Any, name: str | None = None
            ) -> Any:
    """Append ``op_type`` writing one new temporary per output slot (in ``slots``' order)."""
    helper = layer_helper(key, name)
    names = {slot: helper.tmp_name() for slot in slots}
    helper.append(op_type, inputs, names, attrs)
    return [helper.block.var(names[slot]) for slot in slots]


def svd(x: Tensor, full_matrices: bool = False, name: str | None = None) -> tuple[Tensor, ...]:
    """(U, S, VH) with x = U diag(S) VH, S descending (``svd``)."""
    u, vh, s = _outputs("svd", "svd", {"X": x}, ["U", "VH", "S"],
                        {"full_matrices": bool(full_matrices)}, name)
    return u, s, vh


def qr(x: Tensor, mode: str = "reduced", name: str | None = None) -> Tensor | tuple[Tensor, ...]:
    """(Q, R) with x = Q R; ``mode`` 'reduced', 'complete', or 'r' (R alone) (``qr``)."""
    q, r = _outputs("qr", "qr", {"X": x}, ["Q", "R"], {"mode": str(mode)}, name)
    return r if mode == "r" else (q, r)


def lu(x: Tensor, pivot: bool = True, get_infos: bool = False, name: str | None = None
      ) -> tuple[Tensor, ...]:
    """(LU packed, pivots[, infos]) of x = P L U (``lu``)."""
    out, pivots, infos = _outputs("lu", "lu", {"X": x}, ["Out", "Pivots", "Infos"],
                                  {"pivots": bool(pivot)}, name)
    return (out, pivots, infos) if get_infos else (out, pivots)


def lu_unpack(x: Tensor, y: Tensor, unpack_ludata: bool = True, unpack_pivots: bool = True,
              name: str | None = None) -> tuple[Tensor, ...]:
    """(P, L, U) of lu's packed ``x`` and pivots ``y`` (``lu_unpack``)."""
    return tuple(_outputs("lu_unpack", "lu_unpack", {"X": x, "Pivots": y}, ["Pmat", "L", "U"],
                          {"unpack_ludata": bool(unpack_ludata),
                           "unpack_pivots": bool(unpack_pivots)}, name))


def matrix_rank(x: Tensor, tol: float | None = None, hermitian: bool = False,
                name: str | None = None) -> Tensor:
    """The rank of each matrix (int32): singular values above ``tol`` (a number or a tensor),
    by default max(m, n) * eps * the largest (``matrix_rank``)."""
    inputs: dict[str, Any] = {"X": x}
    attrs: dict[str, Any] = {"hermitian": bool(hermitian)}
    if tol is None:
        attrs.update(tol=0.0, use_default_tol=True)
    elif hasattr(tol, "block"):
        inputs["TolTensor"] = tol
        attrs.update(use_default_tol=False)
    else:
        attrs.update(tol=float(tol), use_default_tol=False)
    return layer_helper("matrix_rank", name).out("matrix_rank", inputs, attrs)


def lstsq(x: Tensor, y: Tensor, rcond: Any = None, driver: str | None = None,
          name: str | None = None) -> tuple[Tensor, ...]:
    """(solution, residuals, rank, singular_values) of the least-squares x @ solution = y."""
    driver = "gelsy" if driver is None else driver
    if rcond is None:
        eps = 1e-15 if numpy.dtype(x.dtype) == numpy.float64 else 1e-7
        rcond = eps * max(x.shape[-2:])
    return tuple(_outputs("lstsq", "lstsq", {"X": x, "Y": y},
                          ["Solution", "Residuals", "Rank", "SingularValues"],
                          {"rcond": float(rcond), "driver": str(driver)}, name))


def cholesky_solve(x: Tensor, y: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """The solution of A @ out = x for A = y y^T (y the Cholesky factor; U^T U when upper)."""
    return layer_helper("cholesky_solve", name).out(
        "cholesky_solve", {"X": x, "Y": y}, {"upper": bool(upper)})


def eig(x: Tensor, name: str | None = None) -> tuple[Tensor, ...]:
    """(eigenvalues, eigenvectors), complex, of each general square matrix (``eig``)."""
    return tuple(_outputs("eig", "eig", {"X": x}, ["Eigenvalues", "Eigenvectors"], {}, name))


def eigvals(x: Tensor, name: str | None = None) -> Tensor:
    """The eigenvalues, complex, of each general square matrix (``eigvals``)."""
    return layer_helper("eigvals", name).out("eigvals", {"X": x}, {})


# the ones PaddlePaddle 2.6 also makes Variable methods (x.qr(), x.lu() ...; not svd or
# matrix_rank; linalg_compose registers x.pinv() and the other compositions)
register_tensor_methods({
    "qr": qr, "lu": lu, "lu_unpack": lu_unpack, "lstsq": lstsq, "cholesky_solve": cholesky_solve,
    "eig": eig, "eigvals": eigvals,
})
