"""Outputs defined only up to the sign of each vector: eigenvectors and singular vectors.

An eigenvector ``v`` and ``-v`` are equally right, and LAPACK (the CPU) and cuSOLVER (CuPy on
a GPU) choose differently, as PaddlePaddle's CPU and GPU kernels do. Comparisons between two
devices flip each vector of the result to point the way the expected one does, and then
compare as usual; the values themselves are still checked to the tolerance.
"""

import numpy as np

# (op type, output slot) -> the axis a vector lies along (-2: columns, -1: rows)
SIGN_FREE = {("eigh", "Eigenvectors"): -2, ("eigvalsh", "Eigenvectors"): -2,
             ("svd", "U"): -2, ("svd", "VH"): -1}


def align_signs(got, want, axis):
    """``got`` with each vector along ``axis`` negated where it points against ``want``'s."""
    got = np.asarray(got)
    dots = (got.astype(np.float64) * np.asarray(want, np.float64)).sum(axis=axis, keepdims=True)
    return np.where(dots < 0, -got, got)


def sign_free_axis(program, name):
    """The vector axis of the variable ``name`` when an op of ``program``'s global block writes
    it to a sign-free slot, else None."""
    for op in program.global_block().ops:
        for slot, names in op.outputs.items():
            if name in names and (op.type, slot) in SIGN_FREE:
                return SIGN_FREE[(op.type, slot)]
    return None
