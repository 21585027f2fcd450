"""deformable_conv (v2, with a modulation Mask) and deformable_conv_v1: convolution whose
sample points move.

A plain convolution reads input pixel ``(i * stride - pad + ki * dilation, ...)`` for output
``(i, j)`` and kernel tap ``k = ki * kw + kj``. Here each tap moves by a learned offset
(Offset [N, 2 * dg * K, Ho, Wo]: (dy, dx) per deformable group, tap and output position) and
reads the input by bilinear interpolation (zero outside the map; nothing at all once the
point is a full pixel outside); v2 then scales each sample by Mask [N, dg * K, Ho, Wo]. The
samples form columns [N, C, K, Ho, Wo] that the filter [M, C / groups, kh, kw] contracts
per group, as ``im2col`` then a product does for a plain convolution. The input's channels
split into ``deformable_groups`` that share offsets. The gradients retrace the same
sampling: the filter's from the columns, the input's by scattering back to the four corners,
the offsets' from the bilinear weights' slopes, the mask's from the samples.
"""

from typing import Any

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

ATTRS = {"strides": Attr("ints", [1, 1]), "paddings": Attr("ints", [0, 0]),
         "dilations": Attr("ints", [1, 1]), "groups": Attr("int", 1),
         "deformable_groups": Attr("int", 1), "im2col_step": Attr("int", 64)}


def _out_size(size, k, stride, pad, dilation):
    if size < 0:
        return -1
    return (size + 2 * pad - (dilation * (k - 1) + 1)) // stride + 1


def _infer(x, offset, mask, w, *, strides, paddings, dilations, groups, deformable_groups,
           im2col_step):
    for slot, meta in (("Input", x), ("Offset", offset), ("Filter", w)):
        if len(meta.shape) != 4:
            fail(f"{slot} must be 4-D (NCHW), got shape {list(meta.shape)}")
    kh, kw = w.shape[2], w.shape[3]
    taps = deformable_groups * kh * kw
    if x.shape[1] not in (-1, w.shape[1] * groups):
        fail(f"Filter [M, C / groups, kh, kw] = {list(w.shape)} does not fit Input's "
             f"{x.shape[1]} channels with groups={groups}")
    if offset.shape[1] not in (-1, 2 * taps):
        fail(f"Offset must have 2 * deformable_groups * kh * kw = {2 * taps} channels, got "
             f"shape {list(offset.shape)}")
    if mask is not None and (len(mask.shape) != 4 or mask.shape[1] not in (-1, taps)):
        fail(f"Mask must be [N, {taps}, Ho, Wo] (deformable_groups * kh * kw), got shape "
             f"{list(mask.shape)}")
    ho = _out_size(x.shape[2], kh, strides[0], paddings[0], dilations[0])
    wo = _out_size(x.shape[3], kw, strides[1], paddings[1], dilations[1])
    if -1 not in (ho, offset.shape[2]) and (ho, wo) != tuple(offset.shape[2:]):
        fail(f"Offset's map {list(offset.shape[2:])} must be the output's [{ho}, {wo}]")
    return x.with_shape((x.shape[0], w.shape[0], ho, wo))


def _points(xp, x_shape, offset, kernel, strides, paddings, dilations, dg):
    """(py, px) [N, C, K, Ho, Wo]: where each channel's tap samples."""
    n, c = x_shape[:2]
    (kh, kw), (ho, wo) = kernel, offset.shape[2:]
    taps = kh * kw
    off = offset.reshape(n, dg, taps, 2, ho, wo)
    ki, kj = xp.arange(taps) // kw, xp.arange(taps) % kw
    base_y = (xp.arange(ho)[None, :] * strides[0] - paddings[0]
              + ki[:, None] * dilations[0])[:, :, None]
    base_x = (xp.arange(wo)[None, :] * strides[1] - paddings[1]
              + kj[:, None] * dilations[1])[:, None, :]
    group = xp.arange(c) // (c // dg)
    return off[:, :, :, 0][:, group] + base_y, off[:, :, :, 1][:, group] + base_x


def _corners(xp, py, px, h, w):
    """The four (flat index, weight, d weight / dy, d weight / dx) of each sample point."""
    inside = (py > -1) & (py < h) & (px > -1) & (px < w)
    y0, x0 = xp.floor(py), xp.floor(px)
    ly, lx = py - y0, px - x0
    out = []
    for dy, dx, wy, wx, sy, sx in ((0, 0, 1 - ly, 1 - lx, -1, -1), (0, 1, 1 - ly, lx, -1, 1),
                                   (1, 0, ly, 1 - lx, 1, -1), (1, 1, ly, lx, 1, 1)):
        yc, xc = (y0 + dy).astype(xp.int64), (x0 + dx).astype(xp.int64)
        ok = inside & (yc >= 0) & (yc < h) & (xc >= 0) & (xc < w)
        index = xp.clip(yc, 0, h - 1) * w + xp.clip(xc, 0, w - 1)
        out.append((index, wy * wx * ok, sy * wx * ok, sx * wy * ok))
    return out


def _sample(xp, x, corners):
    """[N, C, K, Ho, Wo]: the bilinear value of each sample point."""
    n, c = x.shape[:2]
    flat = x.reshape(n, c, -1)
    value = 0
    for index, weight, _, _ in corners:
        got = xp.take_along_axis(flat, index.reshape(n, c, -1), axis=2)
        value = value + got.reshape(index.shape) * weight
    return value


def _setup(ctx, x, offset, mask, w, strides, paddings, dilations, deformable_groups):
    xp = ctx.xp
    kernel = w.shape[2:]
    py, px = _points(xp, x.shape, offset, kernel, strides, paddings, dilations,
                     deformable_groups)
    corners = _corners(xp, py, px, x.shape[2], x.shape[3])
    value = _sample(xp, x, corners)
    if mask is None:
        return corners, value, None
    n, c = x.shape[:2]
    group = xp.arange(c) // (c // deformable_groups)
    scale = mask.reshape(n, deformable_groups, -1, *mask.shape[2:])[:, group]
    return corners, value, scale


def _grouped(w, groups):
    """Filter [M, C/g, kh, kw] as [g, M/g, C/g, K]."""
    m, cg = w.shape[:2]
    return w.reshape(groups, m // groups, cg, -1)


def _kernel(ctx, x, offset, mask, w, *, strides, paddings, dilations, groups,
            deformable_groups, im2col_step):
    xp = ctx.xp
    _, value, scale = _setup(ctx, x, offset, mask, w, strides, paddings, dilations,
                             deformable_groups)
    cols = value if scale is None else value * scale
    n, c, k, ho, wo = cols.shape
    cols = cols.reshape(n, groups, c // groups, k, ho, wo)
    out = xp.einsum("gmck,ngckij->ngmij", _grouped(w, groups), cols)
    return out.reshape(n, w.shape[0], ho, wo).astype(x.dtype, copy=False)


def _grad_kernel(ctx, x, offset, mask, w, dout, *, strides, paddings, dilations, groups,
                 deformable_groups, im2col_step):
    xp = ctx.xp
    corners, value, scale = _setup(ctx, x, offset, mask, w, strides, paddings, dilations,
                                   deformable_groups)
    n, c, k, ho, wo = value.shape
    cols = value if scale is None else value * scale
    wg = _grouped(w, groups)
    dout_g = dout.reshape(n, groups, -1, ho, wo)
    dw = xp.einsum("ngmij,ngckij->gmck", dout_g, cols.reshape(n, groups, c // groups, k, ho, wo))
    dcols = xp.einsum("gmck,ngmij->ngckij", wg, dout_g).reshape(n, c, k, ho, wo)
    dvalue = dcols if scale is None else dcols * scale
    dx: Any = 0
    dpy, dpx = 0, 0
    flat = x.reshape(n, c, -1)
    lead = (xp.arange(n * c).reshape(n, c, 1, 1, 1)) * (x.shape[2] * x.shape[3])
    for index, weight, sy, sx in corners:
        dx = dx + xp.bincount((index + lead).ravel(), weights=(dvalue * weight).ravel(),
                              minlength=x.size)
        got = xp.take_along_axis(flat, index.reshape(n, c, -1), axis=2).reshape(index.shape)
        dpy, dpx = dpy + dvalue * got * sy, dpx + dvalue * got * sx
    dg = deformable_groups
    doff = xp.stack([dpy, dpx], axis=3).reshape(n, dg, c // dg, k, 2, ho, wo).sum(axis=2)
    dmask: Any = None
    if mask is not None:
        dmask = (dcols * value).reshape(n, dg, c // dg, k, ho, wo).sum(axis=2)
        dmask = dmask.reshape(mask.shape).astype(mask.dtype, copy=False)
    return (dx.reshape(x.shape).astype(x.dtype, copy=False),
            doff.reshape(offset.shape).astype(offset.dtype, copy=False), dmask,
            dw.reshape(w.shape).astype(w.dtype, copy=False))


def _grad_maker(grad_type, with_mask):
    def make(g):
        slots = [s for s in ("Input", "Offset", "Mask", "Filter")
                 if g.inputs.get(s) and (with_mask or s != "Mask")]
        ins = {s: g.input(s) for s in slots}
        ins["Output@GRAD"] = g.output_grad("Output")
        outs = {f"{s}@GRAD": g.input_grad(s) for s in slots}
        return [OpSpec(grad_type, ins, outs, dict(g.attrs))]
    return make


def _declare(op_type, with_mask):
    mask_slots = [Slot("Mask", dispensable=True)] if with_mask else []
    fwd_infer = _infer if with_mask else (lambda x, o, w, **a: _infer(x, o, None, w, **a))
    fwd_kernel = _kernel if with_mask else (lambda ctx, x, o, w, **a: _kernel(ctx, x, o, None,
                                                                             w, **a))
    register(OpDef(
        op_type, inputs=["Input", "Offset", *mask_slots, "Filter"], outputs=["Output"],
        attrs=ATTRS, infer=fwd_infer, kernel=fwd_kernel,
        grad=_grad_maker(op_type + "_grad", with_mask),
        doc="deformable convolution: taps moved by Offset, read bilinearly"
            + (", scaled by Mask" if with_mask else "")))
    grads = ["Input@GRAD", "Offset@GRAD"] + (["Mask@GRAD"] if with_mask else []) + ["Filter@GRAD"]

    def grad_infer(x, o, *rest, **a):
        metas = [x, o] + ([rest[0]] if with_mask else []) + [rest[-2]]
        return tuple(metas)

    def grad_kernel(ctx, x, o, *rest, **a):
        m, w, dout = (rest if with_mask else (None, *rest))
        dx, doff, dmask, dw = _grad_kernel(ctx, x, o, m, w, dout, **a)
        return (dx, doff, dmask, dw) if with_mask else (dx, doff, dw)

    register(OpDef(
        op_type + "_grad", inputs=["Input", "Offset", *mask_slots, "Filter", "Output@GRAD"],
        outputs=[Slot(s, dispensable=True) for s in grads], attrs=ATTRS, infer=grad_infer,
        kernel=grad_kernel, doc=f"the gradients of {op_type}"))


_declare("deformable_conv", with_mask=True)
_declare("deformable_conv_v1", with_mask=False)
