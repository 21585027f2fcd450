"""Contract cases for paddle_nb/ops/linalg.py: mul, matmul (fluid 1.x) and matmul_v2.

References use einsum on operands shaped by hand, and each case states the
output shape PaddlePaddle gives, so the shape rules are checked independently.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(3)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def meta(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _mul_ref(out_shape):
    def ref(ins, attrs):
        x, y = ins["X"], ins["Y"]
        xn, yn = attrs.get("x_num_col_dims", 1), attrs.get("y_num_col_dims", 1)
        x2 = x.reshape(int(np.prod(x.shape[:xn])), -1)
        y2 = y.reshape(int(np.prod(y.shape[:yn])), -1)
        return {"Out": np.einsum("ik,kj->ij", x2, y2).reshape(out_shape)}
    return ref


def _matmul_ref(out_shape, batch_x=None):
    """Rank-1 X is a row, rank-1 Y a column; ``batch_x`` regroups X's batch like Y's."""
    def ref(ins, attrs):
        x, y = ins["X"], ins["Y"]
        x = x.reshape(1, -1) if x.ndim == 1 else x
        y = y.reshape(-1, 1) if y.ndim == 1 else y
        if batch_x is not None:
            x = x.reshape(batch_x + x.shape[-2:])
        if attrs.get("transpose_X"):
            x = np.swapaxes(x, -1, -2)
        if attrs.get("transpose_Y"):
            y = np.swapaxes(y, -1, -2)
        out = np.einsum("...ij,...jk->...ik", x, y) * attrs.get("alpha", 1.0)
        return {"Out": out.reshape(out_shape)}
    return ref


def _v2_ref(out_shape):
    def ref(ins, attrs):
        x, y = ins["X"], ins["Y"]
        if attrs.get("trans_x") and x.ndim > 1:
            x = np.swapaxes(x, -1, -2)
        if attrs.get("trans_y") and y.ndim > 1:
            y = np.swapaxes(y, -1, -2)
        x = x.reshape(1, -1) if x.ndim == 1 else x
        y = y.reshape(-1, 1) if y.ndim == 1 else y
        return {"Out": np.einsum("...ij,...jk->...ik", x, y).reshape(out_shape)}
    return ref


XY = ("X", "Y")

CASES = {
    "mul": [
        Case(inputs={"X": arr(3, 4), "Y": arr(4, 5)}, ref=_mul_ref((3, 5)), grad=XY, name="2-D"),
        Case(inputs={"X": arr(2, 3, 4), "Y": arr(12, 2)}, ref=_mul_ref((2, 2)), grad=XY,
             name="X flattened after dim 1"),
        Case(inputs={"X": arr(2, 3, 4), "Y": arr(4, 2, 3)}, attrs={"x_num_col_dims": 2},
             ref=_mul_ref((2, 3, 2, 3)), grad=XY, name="x_num_col_dims=2"),
        Case(inputs={"X": arr(3, 6), "Y": arr(2, 3, 4)}, attrs={"y_num_col_dims": 2},
             ref=_mul_ref((3, 4)), grad=XY, name="y_num_col_dims=2"),
    ],
    "matmul": [
        Case(inputs={"X": arr(3, 4), "Y": arr(4, 5)}, ref=_matmul_ref((3, 5)), grad=XY),
        Case(inputs={"X": arr(4, 3), "Y": arr(4, 5)}, attrs={"transpose_X": True, "alpha": 0.5},
             ref=_matmul_ref((3, 5)), grad=XY, name="transpose_X, alpha"),
        Case(inputs={"X": arr(2, 3, 4), "Y": arr(2, 5, 4)}, attrs={"transpose_Y": True},
             ref=_matmul_ref((2, 3, 5)), grad=XY, name="batched, transpose_Y"),
        Case(inputs={"X": arr(2, 4, 3), "Y": arr(2, 5, 4)},
             attrs={"transpose_X": True, "transpose_Y": True}, ref=_matmul_ref((2, 3, 5)),
             grad=XY, name="both transposed"),
        Case(inputs={"X": arr(4), "Y": arr(4, 5)}, ref=_matmul_ref((5,)), grad=XY,
             name="rank-1 X"),
        Case(inputs={"X": arr(2, 3, 4), "Y": arr(4)}, ref=_matmul_ref((2, 3)), grad=XY,
             name="rank-1 Y"),
        Case(inputs={"X": arr(4), "Y": arr(4)}, ref=_matmul_ref((1,)), grad=XY, name="dot"),
        Case(inputs={"X": arr(3, 4), "Y": arr(2, 4, 5)}, ref=_matmul_ref((2, 3, 5)), grad=XY,
             name="one X matrix, a batch of Y"),
        Case(inputs={"X": arr(2, 2, 3, 4), "Y": arr(4, 4, 2)},
             ref=_matmul_ref((2, 2, 3, 2), (4,)), grad=XY, name="batches of 4 shaped differently"),
    ],
    "matmul_v2": [
        Case(inputs={"X": arr(3, 4), "Y": arr(4, 5)}, ref=_v2_ref((3, 5)), grad=XY),
        Case(inputs={"X": arr(2, 4, 3), "Y": arr(2, 5, 4)},
             attrs={"trans_x": True, "trans_y": True},
             ref=_v2_ref((2, 3, 5)), grad=XY, name="both transposed"),
        Case(inputs={"X": arr(2, 1, 3, 4), "Y": arr(3, 4, 2)}, ref=_v2_ref((2, 3, 3, 2)), grad=XY,
             name="batch dims broadcast"),
        Case(inputs={"X": arr(4), "Y": arr(2, 4, 3)}, ref=_v2_ref((2, 3)), grad=XY,
             name="rank-1 X"),
        Case(inputs={"X": arr(2, 3, 4), "Y": arr(4)}, attrs={"trans_y": True},
             ref=_v2_ref((2, 3)), grad=XY, name="rank-1 Y ignores trans_y"),
        Case(inputs={"X": arr(4), "Y": arr(4)}, ref=_v2_ref((1,)), grad=XY, name="dot"),
    ],
}

BAD = {
    "mul": [
        Bad(inputs={"X": meta(2, 3), "Y": meta(4, 5)}, error=ShapeError,
            match=r"width 3 .*height 4.*X shape \(2, 3\), Y shape \(4, 5\)"),
        Bad(inputs={"X": meta(2, 3), "Y": meta(3, 5)}, attrs={"x_num_col_dims": 2},
            error=ShapeError, match=r"X must have rank > x_num_col_dims = 2, got shape \(2, 3\)"),
        Bad(inputs={"X": meta(2, 3), "Y": meta(3, 5, dtype=np.float64)}, error=ShapeError,
            match="same dtype"),
    ],
    "matmul": [
        Bad(inputs={"X": meta(2, 3), "Y": meta(4, 5)}, error=ShapeError,
            match=r"X's width must equal Y's height: X of shape \(2, 3\).*Y of shape \(4, 5\)"),
        Bad(inputs={"X": meta(2, 3, 4), "Y": meta(3, 4, 5)}, error=ShapeError,
            match=r"as many matrices: X of shape \(2, 3, 4\)"),
        Bad(inputs={"X": meta(3, 4), "Y": meta(3, 5)}, attrs={"transpose_Y": True},
            error=ShapeError, match="transpose_Y=True"),
        Bad(inputs={"X": meta(3, 4), "Y": meta(4, 5, dtype=np.float64)}, error=ShapeError,
            match="same dtype"),
    ],
    "matmul_v2": [
        Bad(inputs={"X": meta(2, 3), "Y": meta(4, 5)}, error=ShapeError,
            match=r"X's width must equal Y's height: X of shape \(2, 3\)"),
        Bad(inputs={"X": meta(2, 3, 4), "Y": meta(3, 4, 5)}, error=ShapeError,
            match=r"batch dimensions of X \(shape \(2, 3, 4\)\) and Y .* do not broadcast"),
        Bad(inputs={"X": meta(), "Y": meta(3)}, error=ShapeError, match="rank >= 1"),
    ],
}
