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


def sign_dependent_grads(program):
    """The gradients (``x@GRAD``) of the variables upstream of a sign-free op in ``program``'s
    global block: a loss over eigenvectors has a gradient that follows the signs each device
    picked, so two devices' gradients differ and both are right."""
    ops = [op for op in program.global_block().ops if not op.type.endswith("_grad")]
    read = {n for op in ops for n in op.input_arg_names}
    # (eigvalsh's eigenvectors feed only its gradient, through v v^T: no sign survives)
    upstream = {n for op in ops for slot, names in op.outputs.items()
                if (op.type, slot) in SIGN_FREE and read.intersection(names)
                for n in op.input_arg_names}
    for op in reversed(ops):
        if upstream.intersection(op.output_arg_names):
            upstream.update(op.input_arg_names)
    return {f"{n}@GRAD" for n in upstream}
