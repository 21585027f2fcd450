"""Joining and cutting: concat, split, stack and slice.

``concat`` glues tensors along an existing axis and ``split`` cuts one apart
again, so each is the other's gradient (PaddlePaddle's split grad *is* a
concat op). ``stack`` glues along a new axis; ``slice`` takes a box out of a
tensor with Python's clamping of starts and ends, and its grad op scatters the
gradient back into zeros. Axes may be negative (counted from the end).

>>> split_sizes(10, num=0, sections=[2, -1, 3]), slice_shape((4, -1), [0, 1], [-3, 0], [9, 2], [])
([2, 5, 3], (3, -1))
"""

import numpy

from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import ints_at_build, ints_at_run

__all__ = ["split_sizes", "slice_shape", "norm_axis"]

MKLDNN = {"use_quantizer": Attr("bool", False), "mkldnn_data_type": Attr("str", "float32")}


def norm_axis(axis, rank, what):
    """``axis`` in [0, rank), counting a negative one from the end."""
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for {what} of rank {rank}")
    return axis + rank if axis < 0 else axis


def _common_dims(metas, skip, slot):
    """The dims the tensors of ``slot`` share (all but ``skip``); -1 yields to a known size."""
    shapes = [tuple(m.shape) for m in metas]
    if len({len(s) for s in shapes}) > 1 or len({m.dtype for m in metas}) > 1:
        fail(f"the tensors of {slot} must have one rank and dtype, got shapes {shapes} "
             f"and dtypes {[str(m.dtype) for m in metas]}")
    out = []
    for d in range(len(shapes[0])):
        known = {s[d] for s in shapes} - {-1}
        if d != skip and len(known) > 1:
            where = f"except on axis {skip}" if skip is not None else "exactly"
            fail(f"the shapes of {slot} must match {where}, got {shapes}")
        out.append(known.pop() if len(known) == 1 else -1)
    return out


def _concat_infer(xs, *, axis, **_):
    if not xs:
        fail("X must hold at least one tensor")
    a = norm_axis(axis, len(xs[0].shape), "X[0]")
    out = _common_dims(xs, a, "X")
    dims = [m.shape[a] for m in xs]
    out[a] = -1 if -1 in dims else sum(dims)
    return xs[0].with_shape(out)


def _concat_grad(ctx, xs, dout, *, axis, **_):
    a = axis + dout.ndim if axis < 0 else axis
    cuts = numpy.cumsum([x.shape[a] for x in xs])[:-1].tolist()
    return ctx.xp.split(dout, cuts, axis=a)


register(OpDef(
    "concat", inputs=[Slot("X", duplicable=True)], outputs=["Out"],
    attrs={"axis": Attr("int", 0, comment="the axis to join along"), **MKLDNN},
    infer=_concat_infer,
    kernel=lambda ctx, xs, *, axis, **_: ctx.xp.concatenate(xs, axis=axis),
    grad=grad_op("concat_grad"), doc="Out = the tensors of X joined along axis"))
register(OpDef(
    "concat_grad", inputs=[Slot("X", duplicable=True), "Out@GRAD"],
    outputs=[Slot("X@GRAD", duplicable=True, dispensable=True)],
    attrs={"axis": Attr("int", 0), **MKLDNN},
    infer=lambda xs, dout, **_: [x.with_dtype(dout.dtype) for x in xs], kernel=_concat_grad,
    doc="the gradient of concat: Out@GRAD cut back into pieces shaped like X"))


def split_sizes(dim, *, num, sections):
    """The sizes ``split`` cuts a dimension of size ``dim`` (-1: unknown) into."""
    if num > 0 and sections:
        fail(f"split takes num or sections, not both: got num={num}, sections={list(sections)}")
    if num > 0:
        if dim != -1 and dim % num:
            fail(f"X's dimension of size {dim} does not split into {num} equal parts")
        return [-1 if dim == -1 else dim // num] * num
    if not sections:
        fail("split needs num > 0 or a list of sections")
    if list(sections).count(-1) > 1 or any(s < -1 for s in sections):
        fail(f"sections may hold sizes and one -1, got {list(sections)}")
    rest = dim - sum(s for s in sections if s != -1)
    if dim != -1 and (rest < 0 or (-1 not in sections and rest != 0)):
        fail(f"sections {list(sections)} do not add up to X's dimension of size {dim}")
    return [rest if s == -1 and dim != -1 else s for s in sections]


def _split_infer(x, *, axis, num, sections):
    a = norm_axis(axis, len(x.shape), "X")
    return [x.with_shape(x.shape[:a] + (n,) + x.shape[a + 1:])
            for n in split_sizes(x.shape[a], num=num, sections=sections)]


def _split_kernel(ctx, x, *, axis, num, sections):
    a = norm_axis(axis, x.ndim, "X")
    cuts = numpy.cumsum(split_sizes(x.shape[a], num=num, sections=sections))[:-1].tolist()
    return ctx.xp.split(x, cuts, axis=a)


def _split_grad(g):
    return [OpSpec("concat", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")},
                   {"axis": g.attrs["axis"]})]


register(OpDef(
    "split", inputs=["X"], outputs=[Slot("Out", duplicable=True)],
    attrs={"axis": Attr("int", 0), "num": Attr("int", 0, comment="equal parts (or use sections)"),
           "sections": Attr("ints", [], comment="the parts' sizes; one may be -1")},
    infer=_split_infer, kernel=_split_kernel, grad=_split_grad,
    doc="Out = X cut along axis into num equal parts or parts of the sizes in sections"))


def _stack_infer(xs, *, axis):
    if not xs:
        fail("X must hold at least one tensor")
    out = _common_dims(xs, None, "X")
    a = norm_axis(axis, len(out) + 1, "Y")
    return xs[0].with_shape(out[:a] + [len(xs)] + out[a:])


def _stack_grad(ctx, dy, *, axis):
    a = axis + dy.ndim if axis < 0 else axis
    return [dy[(slice(None),) * a + (i,)] for i in range(dy.shape[a])]


def _stack_grad_infer(dy, *, axis):
    a = norm_axis(axis, len(dy.shape), "Y@GRAD")
    return [dy.with_shape(dy.shape[:a] + dy.shape[a + 1:])] * dy.shape[a]


register(OpDef(
    "stack", inputs=[Slot("X", duplicable=True)], outputs=["Y"], attrs={"axis": Attr("int", 0)},
    infer=_stack_infer, kernel=lambda ctx, xs, *, axis: ctx.xp.stack(xs, axis=axis),
    grad=grad_op("stack_grad", inputs=(), out_grads=("Y",)),
    doc="Y = the same-shaped tensors of X stacked along a new axis"))
register(OpDef(
    "stack_grad", inputs=[Slot("X", duplicable=True, dispensable=True,
                               comment="PaddlePaddle 2.6 passes the inputs too (unused)"),
                          "Y@GRAD"],
    outputs=[Slot("X@GRAD", duplicable=True, dispensable=True)],
    attrs={"axis": Attr("int", 0)}, infer=lambda xs, dy, *, axis: _stack_grad_infer(dy, axis=axis),
    kernel=lambda ctx, xs, dy, *, axis: _stack_grad(ctx, dy, axis=axis),
    doc="the gradient of stack: Y@GRAD cut into one piece per X"))


def _boxes(shape, axes, starts, ends):
    """{axis: slice} for each sliced axis, checked; -1 dims stay unknown."""
    if not len(axes) == len(starts) == len(ends):
        fail(f"axes, starts and ends must have one length, got {list(axes)}, {list(starts)}, "
             f"{list(ends)}")
    boxes = {}
    for ax, s, e in zip(axes, starts, ends):
        if not -len(shape) <= ax < len(shape):
            fail(f"axes {list(axes)} are out of range for Input of shape {tuple(shape)}")
        boxes[ax % len(shape)] = slice(s, e)
    return boxes


def _sliced(shape, boxes):
    out = list(shape)
    for i, box in boxes.items():
        if out[i] != -1:
            out[i] = len(range(*box.indices(out[i])))
    return tuple(out)


def slice_shape(shape, axes, starts, ends, decrease_axis):
    """The shape ``slice`` gives Input (Python's clamping; decrease_axis dims dropped; all of
    them dropped leaves a 0-D tensor, as in PaddlePaddle 2.6: ``x[1]`` of a 1-D x)."""
    boxes = _boxes(shape, axes, starts, ends)
    out = _sliced(shape, boxes)
    for d in decrease_axis:
        if d not in boxes or out[d] not in (1, -1):
            fail(f"decrease_axis {list(decrease_axis)} must name sliced axes of size 1, but "
                 f"the slice of Input of shape {tuple(shape)} has shape {out}")
    return tuple(d for i, d in enumerate(out) if i not in set(decrease_axis))


SLICE_ATTRS = {
    "axes": Attr("ints", [], comment="the axes sliced"), "starts": Attr("ints", []),
    "ends": Attr("ints", [], comment="exclusive; clamped to each dimension like Python's"),
    "decrease_axis": Attr("ints", [], comment="sliced axes of size 1 to drop"),
    "infer_flags": Attr("ints", [], comment="accepted; -1 marks a bound a tensor gives"),
}
# starts and ends may come from tensors (paddle's x[:, 1:n] with n a tensor): one 1-D tensor
# each, or one one-value tensor per axis; they win over the attributes
SLICE_TENSORS = [Slot("StartsTensor", dispensable=True), Slot("EndsTensor", dispensable=True),
                 Slot("StartsTensorList", duplicable=True, dispensable=True),
                 Slot("EndsTensorList", duplicable=True, dispensable=True)]


def _bounds(starts, ends, st, et, stl, etl):
    return ints_at_run(starts, st, stl), ints_at_run(ends, et, etl)


def _slice_infer(x, st, et, stl, etl, *, axes, starts, ends, decrease_axis, infer_flags):
    if st is None and et is None and not stl and not etl:
        return x.with_shape(slice_shape(x.shape, axes, starts, ends, decrease_axis))
    for slot, m in (("StartsTensor", st), ("EndsTensor", et)):
        if m is not None:
            ints_at_build(axes, m, None, (slot, slot + "List"))
    # a tensor decides some bounds: PaddlePaddle marks their axes with infer_flags -1 (and
    # writes the constant bounds of the others into starts/ends); without flags, or with one
    # 1-D tensor for all starts or ends, every sliced axis is unknown until run time
    flags = infer_flags if len(infer_flags) == len(axes) and st is None and et is None \
        else [-1] * len(axes)
    shape = list(x.shape)
    for ax, flag in zip(axes, flags):
        if flag == -1 and -len(shape) <= ax < len(shape):
            shape[ax % len(shape)] = -1
    return x.with_shape(slice_shape(tuple(shape), axes, starts, ends, decrease_axis))


def _slice_kernel(ctx, x, st, et, stl, etl, *, axes, starts, ends, decrease_axis, infer_flags):
    starts, ends = _bounds(starts, ends, st, et, stl, etl)
    boxes = _boxes(x.shape, axes, starts, ends)
    out = x[tuple(boxes.get(i, slice(None)) for i in range(x.ndim))]
    if decrease_axis:
        out = out.reshape(slice_shape(x.shape, axes, starts, ends, decrease_axis))
    return out


def _slice_grad(ctx, x, st, et, stl, etl, dout, *, axes, starts, ends, **_):
    boxes = _boxes(x.shape, axes, *_bounds(starts, ends, st, et, stl, etl))
    dx = ctx.xp.zeros(x.shape, dtype=dout.dtype)
    box = tuple(boxes.get(i, slice(None)) for i in range(x.ndim))
    dx[box] = dout.reshape(_sliced(x.shape, boxes))
    return dx


register(OpDef(
    "slice", inputs=["Input", *SLICE_TENSORS], outputs=["Out"], attrs=SLICE_ATTRS,
    infer=_slice_infer, kernel=_slice_kernel,
    grad=grad_op("slice_grad", inputs=("Input", *(t.name for t in SLICE_TENSORS)),
                 in_grads=("Input",)),
    doc="Out = Input[starts:ends] along each of axes (Python's clamping of starts and ends)"))
register(OpDef(
    "slice_grad", inputs=["Input", *SLICE_TENSORS, "Out@GRAD"], outputs=["Input@GRAD"],
    attrs=SLICE_ATTRS,
    infer=lambda x, *rest, **_: Meta(tuple(x.shape), rest[-1].dtype, x.lod_level),
    kernel=_slice_grad, no_need_buffer=("Input",),
    doc="the gradient of slice: Out@GRAD placed into zeros shaped like Input"))
