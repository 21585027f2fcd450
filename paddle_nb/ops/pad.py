"""Padding: ``pad3d`` (four modes, what ``F.pad`` writes) and ``pad`` (constant, any rank).

``pad3d`` pads the D, H and W axes of a 5-D volume; its ``paddings`` run from the
innermost axis out: [left, right, top, bottom, front, back]. The modes say what
the new border holds: ``constant`` a value, ``reflect`` the mirror image without
the edge (x[1], x[0] | x[0], x[1], ...), ``replicate`` the edge repeated,
``circular`` the far side (wrapping around). Every mode but constant is a
gather: output position j along an axis reads source index src(j), so the
gradient adds each output gradient back at src(j) (a one-hot (out, in) matrix
per axis, transposed). ``pad`` pads every axis of any tensor with a constant,
its paddings in axis order: [before_0, after_0, before_1, after_1, ...].
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.window import one_of
from paddle_nb.ops.machinery.window_nd import (channel_first_shape, channel_last_shape,
                                     from_channel_first, to_channel_first)

__all__ = ["source_index"]


def source_index(xp, size, before, after, mode):
    """For each output position along an axis, the input index it reads (mode != constant).

    >>> import numpy as np
    >>> [source_index(np, 3, 2, 2, m).tolist() for m in ("reflect", "replicate", "circular")]
    [[2, 1, 0, 1, 2, 1, 0], [0, 0, 0, 1, 2, 2, 2], [1, 2, 0, 1, 2, 0, 1]]
    """
    i = xp.arange(-before, size + after)
    if mode == "reflect":
        period = 2 * (size - 1) if size > 1 else 1
        i = xp.abs(i) % period
        return xp.where(i >= size, period - i, i)
    if mode == "replicate":
        return xp.clip(i, 0, size - 1)
    return i % size


# ---- pad3d ----

PAD3D_ATTRS = {
    "paddings": Attr("ints", [0, 0, 0, 0, 0, 0],
                     lambda v: None if len(v) in (0, 6) else f"paddings needs 6 values, got "
                     f"{len(v)}", comment="[left, right, top, bottom, front, back] ([] with the "
                     "Paddings tensor)"),
    "mode": Attr("str", "constant", one_of("constant", "reflect", "replicate", "circular")),
    "value": Attr("float", 0.0, comment="the fill of constant mode"),
    "data_format": Attr("str", "NCDHW", one_of("NCDHW", "NDHWC")),
}


def _dhw_pads(paddings):
    """[(before, after)] for the D, H, W axes, from [left, right, top, bottom, front, back]."""
    return [(paddings[4], paddings[5]), (paddings[2], paddings[3]), (paddings[0], paddings[1])]


def _pads_of(paddings_tensor, paddings):
    if paddings_tensor is None:
        return list(paddings)
    return [int(v) for v in paddings_tensor.reshape(-1).tolist()]


def _pad3d_infer(x, paddings_tensor, *, paddings, mode, value, data_format):
    if len(x.shape) != 5:
        fail(f"X must be a 5-D tensor, got shape {tuple(x.shape)}")
    if paddings_tensor is not None and tuple(paddings_tensor.shape) not in ((6,), (-1,)):
        fail(f"Paddings must have shape (6,), got {tuple(paddings_tensor.shape)}")
    shape = channel_first_shape(x.shape, data_format)
    if paddings_tensor is None and len(paddings) != 6:
        fail(f"paddings needs 6 values when no Paddings tensor is given, got {list(paddings)}")
    outs = []
    for size, (b, a) in zip(shape[2:], _dhw_pads(paddings or [0] * 6)):
        if paddings_tensor is not None or size < 0:
            outs.append(-1)
            continue
        if mode == "reflect" and (b >= size or a >= size):
            fail(f"reflect padding needs each padding below the side it pads: paddings "
                 f"{list(paddings)} for X of shape {tuple(x.shape)} ({data_format})")
        if mode == "circular" and (b > size or a > size):
            fail(f"circular padding needs each padding at most the side it pads: paddings "
                 f"{list(paddings)} for X of shape {tuple(x.shape)} ({data_format})")
        outs.append(size + b + a)
    return x.with_shape(channel_last_shape(shape[:2] + tuple(outs), data_format))


def _pad3d_kernel(ctx, x, paddings_tensor, *, paddings, mode, value, data_format):
    xp = ctx.xp
    x = to_channel_first(x, data_format)
    pairs = _dhw_pads(_pads_of(paddings_tensor, paddings))
    if mode == "constant":
        out = xp.pad(x, [(0, 0), (0, 0)] + pairs, mode="constant",
                     constant_values=x.dtype.type(value))
    else:
        out = x
        for axis, (b, a) in enumerate(pairs):
            out = xp.take(out, source_index(xp, x.shape[2 + axis], b, a, mode), axis=2 + axis)
    return from_channel_first(out, data_format)


def _pad3d_grad_kernel(ctx, x, paddings_tensor, dout, *, paddings, mode, value, data_format):
    xp = ctx.xp
    dout = to_channel_first(dout, data_format)
    pairs = _dhw_pads(_pads_of(paddings_tensor, paddings))
    sizes = [dout.shape[2 + i] - b - a for i, (b, a) in enumerate(pairs)]
    if mode == "constant":
        dx = dout[(Ellipsis,) + tuple(slice(b, b + s) for (b, _), s in zip(pairs, sizes))]
    else:
        dx = dout
        for axis, (b, a) in enumerate(pairs):
            src = source_index(xp, sizes[axis], b, a, mode)
            onehot = (src[:, None] == xp.arange(sizes[axis])[None, :]).astype(dout.dtype)
            dx = xp.moveaxis(xp.matmul(xp.moveaxis(dx, 2 + axis, -1), onehot), -1, 2 + axis)
    return xp.ascontiguousarray(from_channel_first(dx, data_format))


PADDINGS = Slot("Paddings", dispensable=True, comment="int32 [6]: paddings decided at run time")

register(OpDef(
    "pad3d", inputs=["X", PADDINGS], outputs=["Out"], attrs=PAD3D_ATTRS,
    infer=_pad3d_infer, kernel=_pad3d_kernel,
    grad=grad_op("pad3d_grad", inputs=("X", "Paddings")),
    doc="Out = X [N, C, D, H, W] padded on D, H, W (constant, reflect, replicate, circular)"))
register(OpDef(
    "pad3d_grad", inputs=["X", PADDINGS, "Out@GRAD"], outputs=["X@GRAD"], attrs=PAD3D_ATTRS,
    infer=lambda x, p, dout, **attrs: x, kernel=_pad3d_grad_kernel, no_need_buffer=("X",),
    doc="the gradient of pad3d: the middle of Out@GRAD, plus the border's reads added back"))


# ---- pad: a constant border on every axis ----

PAD_ATTRS = {
    "paddings": Attr("ints", [], comment="[before_0, after_0, before_1, after_1, ...]"),
    "pad_value": Attr("float", 0.0),
}


def _pad_infer(x, *, paddings, pad_value):
    if len(paddings) != 2 * len(x.shape):
        fail(f"paddings needs 2 values per axis of X (shape {tuple(x.shape)}): "
             f"{2 * len(x.shape)}, got {len(paddings)}")
    if min(paddings, default=0) < 0:
        fail(f"paddings must be at least 0, got {list(paddings)}")
    return x.with_shape(tuple(-1 if s < 0 else s + paddings[2 * i] + paddings[2 * i + 1]
                              for i, s in enumerate(x.shape)))


def _pad_kernel(ctx, x, *, paddings, pad_value):
    pairs = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(x.ndim)]
    return ctx.xp.pad(x, pairs, mode="constant", constant_values=x.dtype.type(pad_value))


def _pad_grad_infer(dout, *, paddings, pad_value):
    return dout.with_shape(tuple(-1 if s < 0 else s - paddings[2 * i] - paddings[2 * i + 1]
                                 for i, s in enumerate(dout.shape)))


def _pad_grad_kernel(ctx, dout, *, paddings, pad_value):
    index = tuple(slice(paddings[2 * i], s - paddings[2 * i + 1])
                  for i, s in enumerate(dout.shape))
    return ctx.xp.ascontiguousarray(dout[index])


register(OpDef(
    "pad", inputs=["X"], outputs=["Out"], attrs=PAD_ATTRS, infer=_pad_infer, kernel=_pad_kernel,
    grad=grad_op("pad_grad", inputs=()),
    doc="Out = X with pad_value added before and after every axis"))
register(OpDef(
    "pad_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=PAD_ATTRS,
    infer=_pad_grad_infer, kernel=_pad_grad_kernel,
    doc="the gradient of pad: the middle of Out@GRAD"))
