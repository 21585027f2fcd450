"""Contract cases for paddle_nb/ops/lod.py (routing rows by a mask) and rnn_memory_helper.

References walk the rows one by one in Python (``for i in range(n)``),
not by boolean indexing as the kernels do. The ops that own a sub-block
(conditional_block, while, recurrent) reach the scope and the executor,
so the harness cannot run them alone: RAW says where they are tested.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(5)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def mask(*flags):
    return np.array(flags, dtype=bool).reshape(-1, 1)


MIXED = mask(1, 0, 0, 1, 0)
ALL_TRUE = mask(1, 1, 1, 1, 1)
ALL_FALSE = mask(0, 0, 0, 0, 0)


def _rows(x, m, want):
    flags = [bool(v) for v in np.asarray(m).reshape(-1)]
    picked = [x[i] for i in range(len(flags)) if flags[i] == want]
    return np.array(picked, dtype=x.dtype).reshape((len(picked),) + x.shape[1:])


def _split_ref(ins, attrs):
    return {"OutTrue": _rows(ins["X"], ins["Mask"], True),
            "OutFalse": _rows(ins["X"], ins["Mask"], False)}


def _merge_ref(ins, attrs):
    flags = [bool(v) for v in np.asarray(ins["Mask"]).reshape(-1)]
    ref = ins["InTrue"] if ins.get("InTrue") is not None else ins["InFalse"]
    out = np.empty((len(flags),) + ref.shape[1:], dtype=ref.dtype)
    t = f = 0
    for i, flag in enumerate(flags):
        if flag:
            out[i], t = ins["InTrue"][t], t + 1
        else:
            out[i], f = ins["InFalse"][f], f + 1
    return {"Out": out}


def _merge_inputs(m, *trailing):
    n_true = int(np.asarray(m).sum())
    return {"X": m, "Mask": m, "InTrue": arr(n_true, *trailing),
            "InFalse": arr(len(m) - n_true, *trailing)}


def _select_ref(ins, attrs):
    return {"Out": ins["X"][int(np.asarray(ins["Mask"]).reshape(-1)[0])]}


def i32(k):
    return np.array([k], dtype=np.int32)


CASES = {
    "split_lod_tensor": [
        Case(inputs={"X": arr(5, 3), "Mask": MIXED}, ref=_split_ref, grad=("X",), name="mixed"),
        Case(inputs={"X": arr(5, 3), "Mask": ALL_TRUE}, ref=_split_ref, grad=("X",),
             name="all true: OutFalse has no rows"),
        Case(inputs={"X": arr(5, 3), "Mask": ALL_FALSE}, ref=_split_ref, grad=("X",),
             name="all false: OutTrue has no rows"),
        Case(inputs={"X": arr(5, 2, 2), "Mask": MIXED.reshape(-1)}, ref=_split_ref,
             grad=("X",), name="rank 3, mask [N]"),
        Case(inputs={"X": np.arange(5, dtype=np.int64), "Mask": MIXED}, ref=_split_ref,
             name="int64 rows"),
    ],
    "merge_lod_tensor": [
        Case(inputs=_merge_inputs(MIXED, 3), ref=_merge_ref, grad=("InTrue", "InFalse"),
             name="mixed"),
        Case(inputs=_merge_inputs(ALL_TRUE, 3), ref=_merge_ref, grad=("InTrue",),
             name="all true: InFalse has no rows"),
        Case(inputs={"X": ALL_FALSE, "Mask": ALL_FALSE, "InFalse": arr(5, 3)}, ref=_merge_ref,
             grad=("InFalse",), name="all false: InTrue absent"),
        Case(inputs=_merge_inputs(MIXED, 2, 2), ref=_merge_ref, grad=("InTrue", "InFalse"),
             name="rank 3"),
    ],
    "select_input": [
        # One candidate: select_output, its gradient, writes only the chosen entry, and the
        # harness cannot compare a gradient that was never written (see RAW below).
        Case(inputs={"X": [arr(2, 3)], "Mask": i32(0)}, ref=_select_ref, grad=("X",),
             name="one candidate"),
        Case(inputs={"X": [arr(2, 3), arr(2, 3)], "Mask": i32(0)}, ref=_select_ref,
             name="first of two"),
        Case(inputs={"X": [arr(2, 3), arr(2, 3)], "Mask": i32(1)}, ref=_select_ref,
             name="second of two"),
        Case(inputs={"X": [arr(4), arr(4), arr(4)], "Mask": i32(2)}, ref=_select_ref,
             name="third of three"),
    ],
    "rnn_memory_helper": [
        Case(inputs={"X": arr(2, 3)}, ref=lambda ins, attrs: {"Out": ins["X"]}, grad=("X",),
             name="identity"),
        Case(inputs={"X": arr(4)}, attrs={"dtype": 6}, ref=lambda ins, attrs: {"Out": ins["X"]},
             grad=("X",), name="dtype attribute"),
    ],
}

M = Meta((5, 3), np.dtype(F))
B5 = Meta((5, 1), np.dtype(bool))
BAD = {
    "split_lod_tensor": [
        Bad(inputs={"X": M, "Mask": Meta((5, 1), np.dtype(F))}, error=ShapeError,
            match="Mask must be bool"),
        Bad(inputs={"X": M, "Mask": Meta((4, 1), np.dtype(bool))}, error=ShapeError,
            match="Mask has 4 rows but X has 5"),
    ],
    "merge_lod_tensor": [
        Bad(inputs={"X": B5, "Mask": Meta((5, 1), np.dtype(np.int32)), "InTrue": M,
                    "InFalse": M}, error=ShapeError, match="Mask must be bool"),
        Bad(inputs={"X": B5, "Mask": B5}, error=ShapeError, match="InTrue or InFalse"),
        Bad(inputs={"X": B5, "Mask": B5, "InTrue": Meta((-1, 3), np.dtype(F)),
                    "InFalse": Meta((-1, 2), np.dtype(F))}, error=ShapeError,
            match="same kind"),
        Bad(inputs={"X": B5, "Mask": B5, "InTrue": Meta((-1, 3), np.dtype(F)),
                    "InFalse": Meta((-1, 3), np.dtype(np.float64))}, error=ShapeError,
            match="same kind"),
    ],
    "select_input": [
        Bad(inputs={"X": [M, M], "Mask": Meta((1,), np.dtype(bool))}, error=ShapeError,
            match="Mask must be an integer"),
        Bad(inputs={"X": [M, M], "Mask": Meta((2,), np.dtype(np.int32))}, error=ShapeError,
            match="one value"),
        Bad(inputs={"X": [M, Meta((5, 3), np.dtype(np.float64))],
                    "Mask": Meta((1,), np.dtype(np.int32))},
            error=ShapeError, match="same dtype and rank"),
        Bad(inputs={"X": [M, Meta((3,), np.dtype(F))], "Mask": Meta((1,), np.dtype(np.int32))},
            error=ShapeError, match="same dtype and rank"),
    ],
    "rnn_memory_helper": [
        Bad(inputs={"X": None}, error=ShapeError, match="X must be given"),
    ],
}

RAW = {
    "select_output": "tests/layers/test_control_flow.py: test_select_output_* (forward, alone) "
                     "and cond's gradients; it writes only the chosen output, which the "
                     "harness cannot compare",
    "conditional_block": "tests/layers/test_control_flow.py: IfElse and cond, forward and "
                         "scope records",
    "conditional_block_grad": "tests/layers/test_control_flow.py: gradients through IfElse "
                              "and cond against central differences",
    "while": "tests/layers/test_control_flow.py: While sums, step scopes, endless-loop error",
    "while_grad": "tests/layers/test_control_flow.py: gradients through While (data and "
                  "captured parameters) against central differences",
    "recurrent": "tests/layers/test_rnn.py and test_seed_examples.py: StaticRNN and "
                 "create_rnn against NumPy loops, step scopes",
    "recurrent_grad": "tests/layers/test_rnn.py: backward through time against central "
                      "differences, reversed included",
}
