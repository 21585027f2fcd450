"""Contract cases for paddle_nb/ops/activation.py."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
POS = (rng.random((3, 4)) + 0.5).astype(np.float32)
AWAY = np.where(np.abs(X) < 0.1, 0.5, X).astype(np.float32)   # no kink within eps

REFS = {
    "relu": (AWAY, lambda x: np.maximum(x, 0)),
    "sigmoid": (X, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (X, np.tanh),
    "exp": (X, np.exp),
    "log": (POS, np.log),
    "sqrt": (POS, np.sqrt),
    "square": (X, np.square),
    "abs": (AWAY, np.abs),
}

CASES = {
    name: [Case(inputs={"X": x}, ref=lambda ins, attrs, f=f: {"Out": f(ins["X"])}, grad=("X",)),
           Case(inputs={"X": x[0]}, ref=lambda ins, attrs, f=f: {"Out": f(ins["X"])}, grad=("X",),
                name="rank 1")]
    for name, (x, f) in REFS.items()
}

# abs also takes ints (as in PaddlePaddle 2.6): a bool X is its bad input
BAD = {name: [Bad(inputs={"X": Meta((3, 4), np.dtype(np.bool_ if name == "abs" else np.int64))},
                  error=ShapeError,
                  match="floating-point")] for name in REFS}
