"""Matrix products of shapes a single-threaded BLAS handles badly, and how to feed it.

OpenBLAS (NumPy's BLAS) packs its operands into work buffers before a GEMM. For a GEMM of a
few columns (a convolution over a batch of 1x1 images: (M, K) x (K, 2)) the packing costs
more than the product: the whole (M, K) matrix streams from memory, is written and read
again. :func:`few_columns` cuts the left operand into row blocks of about a megabyte, each
packed while it sits in the L2 cache. Measured on a 9.4 MB matrix (ResNet-18's 3x3 512->512
filter) with 2 columns: 0.6x the time of one GEMM or of two matrix-vector products; blocks
of 2 MB lose it all; with 8 columns the blocks gained nothing (measured 0.9-1.1x), hence FEW.
One column (a matrix-vector product, no packing) and arrays of another
module (CuPy) get ``matmul`` as is.
"""

__all__ = ["few_columns", "blocked", "FEW", "BLOCK_BYTES"]

FEW = 4                   # 2 to this many columns: the left operand goes in row blocks
BLOCK_BYTES = 1 << 20     # ... of this many bytes, when it is bigger than two of them


def blocked(xp, nbytes, n):
    """Whether :func:`few_columns` cuts a left operand of ``nbytes`` times n columns."""
    return xp.__name__ == "numpy" and 2 <= n <= FEW and nbytes >= 2 * BLOCK_BYTES


def few_columns(xp, a, b):
    """``a @ b`` for a 2-D ``a`` (M, K) and ``b`` (K, n): in row blocks of ``a`` when n is
    small (2 to FEW) and ``a`` large (:func:`blocked`), else one ``matmul``."""
    if a.ndim != 2 or b.ndim != 2 or not blocked(xp, a.nbytes, b.shape[-1]):
        return xp.matmul(a, b)
    rows = max(8, BLOCK_BYTES // (a.shape[1] * a.itemsize))
    out = xp.empty((a.shape[0], b.shape[1]), dtype=xp.result_type(a, b))
    for r in range(0, a.shape[0], rows):
        xp.matmul(a[r:r + rows], b, out=out[r:r + rows])
    return out
