"""Linear algebra at paddle's top level and in paddle.linalg: matmul, mm, bmm, dot, mv, cross,
kron, t, outer, inner, norm, dist, trace, einsum.

Each function appends the op PaddlePaddle 2.6 appends (``paddle.matmul`` and ``paddle.mm``
write ``matmul_v2``; ``paddle.norm`` writes ``frobenius_norm`` for the Frobenius norm of a
whole tensor or of two axes and ``p_norm`` otherwise) and names its output after the function
(``mm_0.tmp_0``). ``x.matmul(y)``, ``x.norm()``, ``x.t()``... are the same functions, registered
as Variable methods.

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     x = pd.layers.data("x", [2, 3], append_batch_size=False)
...     whole, rows, product = norm(x), x.norm(p=1, axis=1), mm(x, t(x))
>>> whole.name, whole.shape, rows.name, rows.shape, product.name, product.shape
('frobenius_norm_0.tmp_0', (), 'p_norm_0.tmp_0', (2,), 'mm_0.tmp_0', (2, 2))
"""

from __future__ import annotations

from paddle_nb.framework import unique_name
from paddle_nb.framework.variable import as_tensor, register_tensor_methods
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.functional import compose
from paddle_nb.nn.functional.common import diag_embed  # paddle.diag_embed is F.diag_embed
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["matmul", "mm", "bmm", "dot", "mv", "cross", "kron", "t", "outer", "inner", "norm",
           "dist", "trace", "einsum", "inverse", "cholesky", "diag_embed"]

# paddle.linalg only (paddle_nb/linalg.py), as in PaddlePaddle: inv, det, slogdet, solve,
# multi_dot, matrix_power, triangular_solve, eigh, eigvalsh


def _out(key: str, op_type: str, inputs: Any, attrs: Any = None, name: str | None = None) -> Tensor:
    return layer_helper(key, name).out(op_type, inputs, attrs or {})


def matmul(x: Tensor, y: Tensor, transpose_x: bool = False, transpose_y: bool = False,
           name: str | None = None) -> Tensor:
    """``x @ y`` with NumPy's rules (rank-1 operands, broadcast batches), either operand's last
    two dimensions transposed first: one ``matmul_v2``."""
    return _out("matmul_v2", "matmul_v2", {"X": x, "Y": y},
                {"trans_x": bool(transpose_x), "trans_y": bool(transpose_y)}, name)


def mm(input: Tensor, mat2: Tensor, name: str | None = None) -> Tensor:
    """The matrix product ``input @ mat2`` (``matmul_v2``, named ``mm_N.tmp_0``)."""
    return _out("mm", "matmul_v2", {"X": input, "Y": mat2}, {"trans_x": False, "trans_y": False},
                name)


def bmm(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """A batch of matrix products: x [B, M, K] @ y [B, K, N] -> [B, M, N] (``bmm``)."""
    return _out("bmm", "bmm", {"X": x, "Y": y}, name=name)


def dot(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The inner product of two vectors (0-D), or of the rows of two [B, N] matrices ([B])."""
    return _out("dot", "dot", {"X": x, "Y": y}, name=name)


def mv(x: Tensor, vec: Tensor, name: str | None = None) -> Tensor:
    """A matrix [M, N] times a vector [N]: [M] (``mv``)."""
    return _out("mv", "mv", {"X": x, "Vec": vec}, name=name)


def cross(x: Tensor, y: Tensor, axis: int = 9, name: str | None = None) -> Tensor:
    """The cross product of 3-vectors along ``axis`` (9, the default: the first axis of size 3)."""
    return _out("cross", "cross", {"X": x, "Y": y}, {"dim": 9 if axis is None else int(axis)},
                name)


def kron(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The Kronecker product: every entry of ``x`` times a block ``y`` (``kron``)."""
    return _out("kron", "kron", {"X": x, "Y": y}, name=name)


def t(input: Tensor, name: str | None = None) -> Tensor:
    """The transpose of a matrix (``transpose2`` named ``t_N.tmp_0``); a vector or a scalar as
    it is."""
    rank = len(input.shape)
    if rank > 2:
        raise compose.argument_error(
            f"paddle.t: '{input.name}' has rank {rank}; t takes a tensor of rank 2 "
            "or less (use paddle.transpose for more)")
    if rank < 2:
        return input
    return compose.xshape_op("transpose2", input, {"axis": [1, 0]}, "t")


def outer(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x [M] and y [N] as a column times a row: [M, N] (``reshape2`` twice, ``matmul_v2``)."""
    column = compose.reshape(x, [-1, 1])
    row = compose.reshape(y, [1, -1])
    return _out("outer", "matmul_v2", {"X": column, "Y": row},
                {"trans_x": False, "trans_y": False}, name)


def inner(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Inner products over the last axis of ``x`` and of ``y``: shape
    ``x.shape[:-1] + y.shape[:-1]``; a 0-D operand scales the other."""
    if not x.shape or not y.shape:
        return compose.elementwise("elementwise_mul", x, y)
    width = x.shape[-1]
    if y.shape[-1] != width and -1 not in (width, y.shape[-1]):
        raise compose.argument_error(
            f"paddle.inner: the last dimensions must agree, got '{x.name}' "
            f"{tuple(x.shape)} and '{y.name}' {tuple(y.shape)}")
    a = compose.reshape(x, [-1, width])
    b = compose.reshape(y, [-1, width])
    b = transposed(b)
    product = _out("inner", "matmul_v2", {"X": a, "Y": b}, {"trans_x": False, "trans_y": False},
                   name)
    return compose.reshape(product, list(x.shape[:-1]) + list(y.shape[:-1]))


def transposed(x: Tensor) -> Tensor:
    """``x.T`` as PaddlePaddle's ``Variable.T`` writes it: ``<x>.tmp_0`` (and ``.tmp_1``)."""
    out, xshape = (unique_name.generate(f"{x.name}.tmp") for _ in range(2))
    block = x.block.program.current_block()
    block.append_op("transpose2", inputs={"X": x}, outputs={"Out": out, "XShape": xshape},
                    attrs={"axis": list(range(len(x.shape)))[::-1]})
    return as_tensor(block.var(out))


def norm(x: Tensor, p: float | str = "fro", axis: int | list[int] | tuple[int, ...] | None = None,
         keepdim: bool = False, name: str | None = None) -> Tensor:
    """The p-norm of ``x``: of all its entries (``axis`` None), along one axis (an int), or
    the Frobenius norm over two axes (``p='fro'``, ``axis`` a pair). ``p`` is 'fro', a number,
    ``inf`` or ``-inf``."""
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if p == "fro" and (axis is None or isinstance(axis, (list, tuple))):
        dims = [0] if axis is None else [int(a) for a in axis]
        if len(dims) > 2:
            raise compose.argument_error(f"paddle.norm: p='fro' takes at most two axes, got {axis}")
        return _out("frobenius_norm", "frobenius_norm", {"X": x},
                    {"dim": dims, "keep_dim": bool(keepdim), "reduce_all": axis is None}, name)
    if isinstance(axis, (list, tuple)):
        raise compose.not_available(
            f"paddle.norm: p={p!r} over the axes {list(axis)} (a matrix norm) is not available "
            "in paddle_nb; use p='fro' for two axes, or a vector norm over one axis")
    porder = 2.0 if p == "fro" else float(p)
    if isinstance(p, str) and p != "fro":
        raise compose.argument_error(
            f"paddle.norm: p must be 'fro', a number, inf or -inf, got {p!r}")
    return _out("p_norm", "p_norm", {"X": x},
                {"porder": porder, "axis": -1 if axis is None else int(axis), "epsilon": 1e-12,
                 "keepdim": bool(keepdim), "asvector": axis is None}, name)


def dist(x: Tensor, y: Tensor, p: int = 2, name: str | None = None) -> Tensor:
    """The p-norm of ``x - y`` (broadcast), a 0-D result (``dist``)."""
    return _out("dist", "dist", {"X": x, "Y": y}, {"p": float(p)}, name)


def trace(x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
         ) -> Tensor:
    """The sum of the diagonal ``offset`` of the planes (axis1, axis2) (``trace``)."""
    return _out("trace", "trace", {"Input": x},
                {"offset": int(offset), "axis1": int(axis1), "axis2": int(axis2)}, name)


def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Einstein summation, as ``numpy.einsum`` reads ``equation`` (``einsum``)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    helper = layer_helper("einsum")
    out = helper.tmp_name()
    caches = [helper.tmp_name() for _ in operands]
    shapes = [helper.tmp_name() for _ in operands]
    helper.append("einsum", {"Operands": list(operands)},
                  {"Out": out, "InnerCache": caches, "XShape": shapes},
                  {"equation": str(equation)})
    return as_tensor(helper.block.var(out))


def inverse(x: Tensor, name: str | None = None) -> Tensor:
    """The inverse of each square matrix in the last two dimensions (``inverse``)."""
    return layer_helper("inverse", name).out("inverse", {"Input": x}, {}, slot="Output")


inv = inverse


def det(x: Tensor, name: str | None = None) -> Tensor:
    """The determinant of each square matrix in the last two dimensions (``determinant``)."""
    return _out("determinant", "determinant", {"Input": x}, name=name)


def slogdet(x: Tensor, name: str | None = None) -> Tensor:
    """[sign, log|det|] of each square matrix, stacked on a new first axis (``slogdeterminant``)."""
    return _out("slogdeterminant", "slogdeterminant", {"Input": x}, name=name)


def solve(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The solution of ``x @ out = y`` for square ``x`` (``solve``)."""
    return _out("solve", "solve", {"X": x, "Y": y}, name=name)


def multi_dot(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The product of the matrices in the list ``x``, left to right (a 1-D first one is a row,
    a 1-D last one a column): one ``multi_dot``."""
    return _out("multi_dot", "multi_dot", {"X": list(x)}, name=name)


def matrix_power(x: Tensor, n: int, name: str | None = None) -> Tensor:
    """``x`` to the integer power ``n`` for each square matrix (its inverse's for n < 0)."""
    return _out("matrix_power", "matrix_power", {"X": x}, {"n": int(n)}, name)


def triangular_solve(x: Tensor, y: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, name: str | None = None) -> Tensor:
    """The solution of ``A @ out = y``, A the upper (or lower) triangle of ``x``, transposed
    when ``transpose``, with ones on its diagonal when ``unitriangular`` (``triangular_solve``)."""
    return _out("triangular_solve", "triangular_solve", {"X": x, "Y": y},
                {"upper": bool(upper), "transpose": bool(transpose),
                 "unitriangular": bool(unitriangular)}, name)


def eigh(x: Tensor, UPLO: str = "L", name: str | None = None) -> tuple[Tensor, ...]:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix (``eigh``)."""
    helper = layer_helper("eigh", name)
    values, vectors = helper.tmp_name(), helper.tmp_name()
    helper.append("eigh", {"X": x}, {"Eigenvalues": values, "Eigenvectors": vectors},
                  {"UPLO": UPLO})
    return as_tensor(helper.block.var(values)), as_tensor(helper.block.var(vectors))


def eigvalsh(x: Tensor, UPLO: str = "L", name: str | None = None) -> Tensor:
    """The eigenvalues, ascending, of each symmetric matrix (``eigvalsh``)."""
    helper = layer_helper("eigvalsh", name)
    values, vectors = helper.tmp_name(), helper.tmp_name()
    helper.append("eigvalsh", {"X": x}, {"Eigenvalues": values, "Eigenvectors": vectors},
                  {"UPLO": UPLO, "is_test": False})
    return as_tensor(helper.block.var(values))


def cholesky(x: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """The Cholesky factor of each symmetric positive-definite matrix: lower L with
    x = L L^T, or upper U = L^T (``cholesky``)."""
    return _out("cholesky", "cholesky", {"X": x}, {"upper": bool(upper)}, name)


register_tensor_methods({
    "matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "mv": mv, "cross": cross,
    "kron": kron, "t": t, "outer": outer, "inner": inner, "norm": norm, "dist": dist,
    "trace": trace, "inverse": inverse, "cholesky": cholesky,
})
