"""Contract cases for paddle_nb/ops/coalesce.py (the facts measured in PaddlePaddle 2.6.2:
a[2,3] = 0..5, b[5] = 10..14 -> FusedOutput 0..5 10..14 unaligned; with align_size 32 each
is padded to 8 floats; set_constant fills everything)."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(10, 15, dtype=np.float32)


def _ref(align=None, constant=None):
    def ref(ins, attrs):
        parts = []
        for x in ins["Input"]:
            flat = np.full(x.size, constant, np.float32) if constant is not None else x.ravel()
            size = x.size if align is None else -(-x.size // align) * align
            parts.append(np.concatenate([flat, np.zeros(size - x.size, np.float32)]))
        outs = [np.full_like(x, constant) if constant is not None else x for x in ins["Input"]]
        return {"Output": outs, "FusedOutput": np.concatenate(parts)}
    return ref


COMMON = {"dtype": "float32", "copy_data": True}
CASES = {"coalesce_tensor": [
    Case(inputs={"Input": [A, B]}, attrs={**COMMON, "use_align": False}, ref=_ref(),
         name="end to end"),
    Case(inputs={"Input": [A, B]}, attrs={**COMMON, "use_align": True, "align_size": 32},
         ref=_ref(align=8), name="aligned to 32 bytes"),
    Case(inputs={"Input": [A, B]}, attrs={**COMMON, "use_align": True},
         ref=_ref(align=1024), name="aligned to the CPU's 4,096 bytes"),
    Case(inputs={"Input": [A, B]}, attrs={"dtype": "float32", "use_align": False,
                                          "set_constant": True, "constant": 2.5},
         ref=_ref(constant=2.5), name="set_constant"),
]}

BAD = {"coalesce_tensor": [
    Bad(inputs={"Input": [Meta((2, 3), np.dtype("float32")), Meta((4,), np.dtype("float64"))]},
        attrs={"dtype": "float32"}, error=ShapeError, match=r"Input\[1\] is float64"),
    Bad(inputs={"Input": []}, attrs={"dtype": "float32"}, error=ShapeError,
        match="at least one tensor"),
]}
