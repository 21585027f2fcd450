"""Contract cases for paddle_nb/ops/py_func.py: a Python function as an op."""

import numpy as np

from paddle_nb.errors import AttrError
from paddle_nb.ops.py_func import register_callable
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

X = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
TANH = register_callable(lambda x: np.tanh(x))
TANH_GRAD = register_callable(lambda x, y, dy: dy * (1 - y * y))

CASES = {
    "py_func": [Case(inputs={"X": [X]},
                     attrs={"forward_callable_id": TANH, "backward_callable_id": TANH_GRAD},
                     ref=lambda ins, attrs: {"Out": [np.tanh(ins["X"][0])]}, grad=("X",))],
}

BAD = {
    "py_func": [Bad(inputs={"X": [Meta((2, 3), np.dtype(np.float32))]},
                    attrs={"forward_callable_id": 10 ** 6}, error=AttrError,
                    match="no function number 1000000 is registered")],
}
