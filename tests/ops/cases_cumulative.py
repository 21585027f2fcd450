"""Contract cases for paddle_nb/ops/cumulative.py (logcumsumexp, cummax, cummin).

References loop over the axis with Python's ``math`` and plain comparisons; cummax / cummin
inputs hold no ties except in the case named for them (ties have no central difference).
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(81)
F = np.float32
X = rng.uniform(-3, 3, (2, 4)).astype(F)
DISTINCT = (rng.permutation(24).reshape(2, 3, 4) * 0.1 - 1.2).astype(F)


def along(f, axis):
    """Apply ``f(list) -> list`` to every 1-D slice of X along ``axis``."""
    def ref(x):
        moved = np.moveaxis(x.astype(np.float64), axis, -1)
        out = np.empty(moved.shape)
        for idx in np.ndindex(*moved.shape[:-1]):
            out[idx] = f(list(moved[idx]))
        return np.moveaxis(out, -1, axis)
    return ref


def running_lse(values, exclusive=False, reverse=False):
    values = values[::-1] if reverse else values
    out, total = [], -math.inf
    for v in values:
        new = total if total > v else v
        step = new + math.log(math.exp(total - new) + math.exp(v - new)) if new > -math.inf else v
        out.append(total if exclusive else step)
        total = step
    return out[::-1] if reverse else out


def running(pick):
    def f(values):
        out, best = [], values[0]
        for v in values:
            best = pick(best, v)
            out.append(best)
        return out
    return f


def where_running(better):
    def f(values):
        out, best, at = [], values[0], 0
        for i, v in enumerate(values):
            if better(v, best):
                best, at = v, i
            out.append(at)
        return out
    return f


CASES = {
    "logcumsumexp": [
        Case(inputs={"X": X}, attrs={"axis": 1},
             ref=lambda ins, a: {"Out": along(running_lse, 1)(ins["X"])}, grad=("X",)),
        Case(inputs={"X": X}, attrs={"axis": 0, "reverse": True},
             ref=lambda ins, a: {"Out": along(lambda v: running_lse(v, reverse=True), 0)(ins["X"])},
             grad=("X",), name="reverse"),
        Case(inputs={"X": X}, attrs={"axis": 1, "exclusive": True},
             ref=lambda ins, a: {
                 "Out": along(lambda v: running_lse(v, exclusive=True), 1)(ins["X"])},
             name="exclusive (Out[0] is -inf: no central difference)"),
        Case(inputs={"X": X}, attrs={"flatten": True},
             ref=lambda ins, a: {
                 "Out": np.array(running_lse(list(ins["X"].ravel().astype(float))))},
             grad=("X",), name="flatten"),
        Case(inputs={"X": np.array([[1000.0, 1000.0, -1000.0]], F)}, attrs={"axis": 1},
             ref=lambda ins, a: {
                 "Out": np.array([[1000.0, 1000.0 + math.log(2), 1000.0 + math.log(2)]])},
             name="no overflow"),
    ],
}
for _name, _pick, _better in (("cummax", max, lambda v, b: v >= b),
                              ("cummin", min, lambda v, b: v <= b)):
    CASES[_name] = [
        Case(inputs={"x": DISTINCT}, attrs={"axis": 2}, grad=("x",), grad_outputs=("out",),
             ref=lambda ins, a, p=_pick, b=_better: {
                 "out": along(running(p), 2)(ins["x"]),
                 "indices": along(where_running(b), 2)(ins["x"]).astype(np.int64)}),
        Case(inputs={"x": DISTINCT}, attrs={"axis": 0}, grad=("x",), grad_outputs=("out",),
             ref=lambda ins, a, p=_pick: {"out": along(running(p), 0)(ins["x"])}, name="axis 0"),
        Case(inputs={"x": np.array([[1.0, 3.0, 3.0, 2.0, 5.0, 5.0]], F)}, attrs={"axis": 1},
             ref=lambda ins, a, b=_better: {
                 "indices": along(where_running(b), 1)(ins["x"]).astype(np.int64)},
             name="ties: the latest position"),
    ]

BAD = {
    "logcumsumexp": [Bad(inputs={"X": X}, attrs={"axis": 2}, error=ShapeError,
                         match=r"axis 2 is out of range for X of shape \(2, 4\)")],
    "cummax": [Bad(inputs={"x": Meta((2,), np.dtype(bool))}, error=ShapeError,
                   match="x must be a number tensor, got bool")],
    "cummin": [Bad(inputs={"x": X}, attrs={"axis": -3}, error=ShapeError,
                   match="axis -3 is out of range")],
}
