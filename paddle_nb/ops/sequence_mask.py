"""``sequence_mask``: lengths as rows of ones then zeros.

For lengths X, ``Y[..., j] = j < X[...]`` for j below ``maxlen`` (the attribute, the
``MaxLenTensor`` input, or the largest length when neither is given), in ``out_dtype``.
Padded batches of sequences use it to mask the steps past each sequence's end.
"""

import numpy

from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []


def _infer(x, maxlen_tensor, *, maxlen, out_dtype):
    if x.dtype.kind not in "iuf":       # (PaddlePaddle takes float lengths too: j < X)
        fail(f"X must hold lengths (integers or floats), got {x.dtype}")
    width = maxlen if maxlen > 0 and maxlen_tensor is None else -1
    return x.with_shape(tuple(x.shape) + (width,)).with_dtype(out_dtype)


def _kernel(ctx, x, maxlen_tensor, *, maxlen, out_dtype):
    xp = ctx.xp
    if maxlen_tensor is not None:
        maxlen = int(numpy.asarray(maxlen_tensor.get() if hasattr(maxlen_tensor, "get")
                                   else maxlen_tensor).reshape(-1)[0])
    elif maxlen < 0:
        maxlen = int(x.max()) if x.size else 0
    return (xp.arange(maxlen) < x[..., None]).astype(out_dtype)


register(OpDef("sequence_mask", inputs=["X", Slot("MaxLenTensor", dispensable=True)],
               outputs=["Y"],
               attrs={"maxlen": Attr("int", -1, comment="the mask's width; < 0: the longest"),
                      "out_dtype": Attr("dtype", numpy.dtype("int64"))},
               infer=_infer, kernel=_kernel,
               doc="Y[..., j] = (j < X[...]) for j < maxlen, in out_dtype"))
