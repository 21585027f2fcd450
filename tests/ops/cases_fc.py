"""Contract cases for paddle_nb/ops/fc.py: ``fc`` (inference only: PaddlePaddle has no grad
op for it, so no gradient check). tests/ops/test_fc_paddle.py compares it with PaddlePaddle."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(31)
F = np.float32


def fc_ref(ins, attrs):
    x, w = ins["Input"].astype(np.float64), ins["W"].astype(np.float64)
    cols = attrs.get("in_num_col_dims", 1)
    rows = x.shape[:cols]
    y = x.reshape(int(np.prod(rows)), -1) @ w
    if ins.get("Bias") is not None:
        y = y + ins["Bias"].reshape(-1)
    if attrs.get("activation_type") == "relu":
        y = np.maximum(y, 0)
    return {"Out": y.reshape(rows + (w.shape[1],))}


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def case(x, w, bias, name, **attrs):
    ins = {"Input": x, "W": w} if bias is None else {"Input": x, "W": w, "Bias": bias}
    return Case(inputs=ins, attrs=attrs, ref=fc_ref, name=name)


CASES = {"fc": [
    case(arr(4, 6), arr(6, 3), arr(3), "matrix"),
    case(arr(2, 3, 6), arr(6, 3), arr(3), "sequence, relu", in_num_col_dims=2,
         activation_type="relu"),
    case(arr(2, 3, 4), arr(12, 5), None, "flattened, no bias"),
    case(arr(3, 8), arr(8, 2), arr(1, 2), "row bias, relu", activation_type="relu"),
]}


def _m(*shape):
    return Meta(tuple(shape), np.dtype(F))


BAD = {"fc": [
    Bad(inputs={"Input": _m(2, 3, 4), "W": _m(5, 2)}, attrs={"in_num_col_dims": 2},
        error=ShapeError, match=r"flattened after axis 2 has 4 columns but W of shape \[5, 2\]"),
    Bad(inputs={"Input": _m(2, 4), "W": _m(4, 2)}, attrs={"in_num_col_dims": 2},
        error=ShapeError, match=r"in_num_col_dims must be in \[1, 1\]"),
    Bad(inputs={"Input": _m(2, 4), "W": _m(4, 2), "Bias": _m(3)}, error=ShapeError,
        match=r"Bias must hold one value per output column \(2\)"),
    Bad(inputs={"Input": _m(2, 4), "W": _m(4, 2)}, attrs={"activation_type": "gelu"},
        error=ShapeError, match="activation_type must be '' or 'relu'"),
]}
