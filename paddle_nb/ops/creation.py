"""Creation ops: tensors made from attributes alone (constants, random draws, counters).

``fill_constant`` fills a shape with one value; ``fill_constant_batch_size_like``
does the same but copies one dimension (the batch size) from its Input, which is
how PaddlePaddle's StaticRNN makes its initial memories. ``uniform_random`` and
``gaussian_random`` draw on the host from the op's ``seed`` (0: the run's
generator) and move the result to the place; like ``fill_constant`` they may take their
shape from tensors, and ``uniform_random_batch_size_like`` copies a batch size as
``fill_constant_batch_size_like`` does. (The other random ops are in random.py.)
``increment`` adds ``step`` to a
one-element counter, ``assign_value`` holds the values of a small array written
into the program (paddle.to_tensor in static mode), and ``range`` counts from Start to
End by Step (the ``paddle.arange`` op: its three bounds are one-value tensors, so its
length is unknown until it runs). None of them has a gradient.

>>> constant_value(numpy.dtype("int64"), 0.0, "9007199254740993")
9007199254740993
"""

import math
import numbers

import numpy

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import (REQUIRED, Attr, Meta, OpDef, Slot, fail, prepared,
                                              register)
from paddle_nb.ops.machinery.tensor_args import ints_at_build, ints_at_run

__all__ = ["constant_value", "fill_value_attrs", "check_shape", "drawn_shape", "SEED",
           "SHAPE_SLOTS"]

FLOAT32 = numpy.dtype("float32")


def constant_value(dtype, value, str_value):
    """The fill value: ``str_value`` when set (exact for big integers), else ``value``."""
    if not str_value:
        return value
    if dtype.kind in "iub":
        try:
            return int(str_value)
        except ValueError:
            pass
    return float(str_value)


def fill_value_attrs(dtype, value):
    """``{"value", "str_value"}`` for a fill of ``value`` as PaddlePaddle 2.6 writes them:
    the float32 attribute ``value`` and the exact text ``str_value``, which the kernel reads
    (an integer dtype gets the integer's digits, any other the float's repr).

    >>> fill_value_attrs(numpy.dtype("int64"), 123456789)
    {'value': 123456789.0, 'str_value': '123456789'}
    >>> fill_value_attrs(numpy.dtype("float64"), 0.1)
    {'value': 0.1, 'str_value': '0.1'}
    """
    if not isinstance(value, numbers.Real):
        return {"value": value}      # the attribute check says what came instead of a number
    exact = math.trunc(value) if dtype.kind in "iu" else float(value)
    return {"value": float(exact), "str_value": str(exact)}


def check_shape(shape, what="shape"):
    """``shape`` as a tuple, after checking that every size is >= 0."""
    if any(d < 0 for d in shape):
        fail(f"{what} must hold sizes >= 0, got {list(shape)}")
    return tuple(shape)


FILL_ATTRS = {
    "value": Attr("float", 0.0), "str_value": Attr("str", "", comment="the value as text; wins"),
    "dtype": Attr("dtype", FLOAT32), "force_cpu": Attr("bool", False, comment="ignored"),
}

def _fill_constant_infer(value_t, shape_t, shape_list, *, shape, dtype, **_):
    if value_t is not None and -1 not in value_t.shape and math.prod(value_t.shape) != 1:
        fail(f"ValueTensor must hold one value, got shape {tuple(value_t.shape)}")
    if shape_t is None and not shape_list:
        return Meta(check_shape(shape), dtype)
    return Meta(tuple(ints_at_build(shape, shape_t, shape_list,
                                    ("ShapeTensor", "ShapeTensorList"))), dtype)


def _fill_constant(ctx, value_t, shape_t, shape_list, *, shape, value, str_value, dtype, **_):
    shape = check_shape(ints_at_run(shape, shape_t, shape_list))
    if value_t is None:
        return _fill(ctx, shape, value, str_value, dtype)
    out = ctx.xp.empty(shape, dtype=dtype)
    out[...] = value_t.reshape(())       # the tensor's value, converted to dtype
    return out


register(OpDef(
    "fill_constant",
    inputs=[Slot("ValueTensor", dispensable=True, comment="a one-value tensor; wins over value"),
            Slot("ShapeTensor", dispensable=True, comment="a 1-D int tensor; wins over shape"),
            Slot("ShapeTensorList", duplicable=True, dispensable=True,
                 comment="one one-value int tensor per dim")],
    outputs=["Out"],
    attrs={"shape": Attr("longs", [], comment="sizes; -1 where a shape tensor decides"),
           **FILL_ATTRS, "place_type": Attr("int", -1, comment="ignored")},
    infer=_fill_constant_infer, kernel=prepared(lambda ctx, metas, **attrs: _make_fill_constant(
        ctx, metas, attrs)),
    doc="Out = a tensor of shape `shape` and dtype `dtype` filled with value\n"
        "ShapeTensor, ShapeTensorList and ValueTensor, when given, decide at run time."))


def _fill(ctx, shape, value, str_value, dtype, **_):
    return ctx.xp.full(tuple(shape), constant_value(dtype, value, str_value), dtype=dtype)


def _make_fill_constant(ctx, metas, attrs):
    """fill_constant's function of its (optional) tensors. Without any, its attributes
    decide everything: a small array is made once and each call gets a copy (the op's
    output is the caller's own to change); a large one is made anew each call, not kept."""
    if metas is not None and all(m is None for m in metas):
        template = _fill(ctx, **attrs)
        if template.nbytes <= 1 << 16:
            return lambda value_t, shape_t, shape_list: template.copy()
    return lambda value_t, shape_t, shape_list: _fill_constant(ctx, value_t, shape_t,
                                                               shape_list, **attrs)


def _batch_shape(in_shape, shape, input_dim_idx, output_dim_idx):
    if not 0 <= input_dim_idx < len(in_shape):
        fail(f"input_dim_idx {input_dim_idx} is out of range for Input of shape {tuple(in_shape)}")
    if not 0 <= output_dim_idx < len(shape):
        fail(f"output_dim_idx {output_dim_idx} is out of range for shape {list(shape)}")
    out = list(shape)
    out[output_dim_idx] = in_shape[input_dim_idx]
    return out


def _batch_infer(x, *, shape, dtype, input_dim_idx, output_dim_idx, **_):
    out = _batch_shape(x.shape, shape, input_dim_idx, output_dim_idx)
    check_shape([d for i, d in enumerate(out) if i != output_dim_idx])
    return Meta(tuple(out), dtype)


def _batch_kernel(ctx, x, *, shape, value, str_value, dtype, input_dim_idx, output_dim_idx, **_):
    out = _batch_shape(x.shape, shape, input_dim_idx, output_dim_idx)
    return ctx.xp.full(tuple(out), constant_value(dtype, value, str_value), dtype=dtype)


register(OpDef(
    "fill_constant_batch_size_like", inputs=["Input"], outputs=["Out"],
    attrs={"shape": Attr("ints", []), **FILL_ATTRS,
           "input_dim_idx": Attr("int", 0, comment="the dim of Input copied"),
           "output_dim_idx": Attr("int", 0, comment="the dim of Out it lands in")},
    infer=_batch_infer, kernel=_batch_kernel,
    doc="Out = fill_constant(shape) with Out.shape[output_dim_idx] = Input.shape[input_dim_idx]"))


SEED = Attr("int", 0, comment="0: the run's generator")
# PaddlePaddle 2.x's random ops may take their shape from tensors (paddle.rand(paddle.shape(x)))
SHAPE_SLOTS = [Slot("ShapeTensor", dispensable=True, comment="a 1-D int tensor; wins over shape"),
               Slot("ShapeTensorList", duplicable=True, dispensable=True,
                    comment="one one-value int tensor per dim")]


def drawn_shape(shape, shape_t, shape_list, keep_known=True):
    """What shape inference knows of a random op's shape: the attribute, or -1 where tensors
    decide. PaddlePaddle 2.6 keeps the constant entries given beside a ShapeTensorList for
    gaussian_random (``keep_known``) but not for uniform_random and randint (all -1)."""
    if shape_t is None and not shape_list:
        return check_shape(shape)
    dims = ints_at_build(shape, shape_t, shape_list, ("ShapeTensor", "ShapeTensorList"))
    return tuple(dims if keep_known else [-1] * len(dims))


def _random_infer(shape_t, shape_list, *, shape, dtype, spread, what, keep_known=True, **_):
    if dtype.kind != "f":
        fail(f"dtype must be a floating-point type, got {dtype}")
    if spread < 0:
        fail(what)
    return Meta(drawn_shape(shape, shape_t, shape_list, keep_known), dtype)


def _uniform(ctx, shape_t, shape_list, *, shape, min, max, seed, dtype, diag_num, diag_step,
             diag_val):
    shape = check_shape(ints_at_run(shape, shape_t, shape_list))
    out = ctx.generator(seed).uniform(min, max, size=shape).astype(dtype)
    flat = out.reshape(-1)
    for i in range(diag_num):
        flat[i * diag_step + i] = diag_val
    return ctx.to_device(out)


def _gaussian(ctx, shape_t, shape_list, *, shape, mean, std, seed, dtype):
    shape = check_shape(ints_at_run(shape, shape_t, shape_list))
    return ctx.to_device(ctx.generator(seed).normal(mean, std, size=shape).astype(dtype))


register(OpDef(
    "uniform_random", inputs=SHAPE_SLOTS, outputs=["Out"],
    attrs={"shape": Attr("longs", []), "min": Attr("float", -1.0), "max": Attr("float", 1.0),
           "seed": SEED, "dtype": Attr("dtype", FLOAT32),
           "diag_num": Attr("int", 0, comment="how many diagonal entries are set to diag_val"),
           "diag_step": Attr("int", 0), "diag_val": Attr("float", 1.0)},
    infer=lambda shape_t, shape_list, *, min, max, **a: _random_infer(
        shape_t, shape_list, spread=max - min, what=f"min ({min}) must not exceed max ({max})",
        keep_known=False, **a),
    kernel=_uniform, doc="Out = numbers drawn uniformly from [min, max)"))

register(OpDef(
    "gaussian_random", inputs=SHAPE_SLOTS, outputs=["Out"],
    attrs={"shape": Attr("longs", []), "mean": Attr("float", 0.0), "std": Attr("float", 1.0),
           "seed": SEED, "dtype": Attr("dtype", FLOAT32)},
    infer=lambda shape_t, shape_list, *, std, **a: _random_infer(
        shape_t, shape_list, spread=std, what=f"std must be >= 0, got {std}", **a),
    kernel=_gaussian, doc="Out = numbers drawn from the normal distribution N(mean, std**2)"))


def _uniform_batch_infer(x, *, shape, dtype, min, max, input_dim_idx, output_dim_idx, **_):
    # the batch dimension may be unknown (-1): check the rest, as fill_constant_batch_size_like
    _random_infer(None, None, shape=[], dtype=dtype, spread=max - min,
                  what=f"min ({min}) must not exceed max ({max})")
    return _batch_infer(x, shape=shape, dtype=dtype, input_dim_idx=input_dim_idx,
                        output_dim_idx=output_dim_idx)


def _uniform_batch(ctx, x, *, shape, input_dim_idx, output_dim_idx, **attrs):
    out = _batch_shape(x.shape, shape, input_dim_idx, output_dim_idx)
    return _uniform(ctx, None, None, shape=out, **attrs)


register(OpDef(
    "uniform_random_batch_size_like", inputs=["Input"], outputs=["Out"],
    attrs={"shape": Attr("ints", REQUIRED), "input_dim_idx": Attr("int", 0),
           "output_dim_idx": Attr("int", 0), "min": Attr("float", -1.0),
           "max": Attr("float", 1.0), "seed": SEED, "diag_num": Attr("int", 0),
           "diag_step": Attr("int", 0), "diag_val": Attr("float", 1.0),
           "dtype": Attr("dtype", FLOAT32)},
    infer=_uniform_batch_infer, kernel=_uniform_batch,
    doc="Out = uniform_random(shape) with Out.shape[output_dim_idx] = "
        "Input.shape[input_dim_idx]\n(paddle.tensor.random.uniform_random_batch_size_like)"))


def _truncated_gaussian(ctx, *, shape, mean, std, seed, dtype):
    # N(0, 1) cut at two standard deviations: a draw outside [-2, 2] is drawn again
    generator = ctx.generator(seed)
    out = generator.standard_normal(math.prod(shape))
    outside = abs(out) > 2
    while outside.any():
        out[outside] = generator.standard_normal(int(outside.sum()))
        outside = abs(out) > 2
    return ctx.to_device((out * std + mean).reshape(tuple(shape)).astype(dtype))


register(OpDef(
    "truncated_gaussian_random", outputs=["Out"],
    attrs={"shape": Attr("ints", []), "mean": Attr("float", 0.0), "std": Attr("float", 1.0),
           "seed": SEED, "dtype": Attr("dtype", FLOAT32)},
    infer=lambda *, std, **a: _random_infer(None, None, spread=std,
                                            what=f"std must be >= 0, got {std}", **a),
    kernel=_truncated_gaussian,
    doc="Out = numbers drawn from N(mean, std**2) cut to [mean - 2 std, mean + 2 std]\n"
        "(paddle.nn.initializer.TruncatedNormal)"))


def _increment_infer(x, *, step):
    if -1 not in x.shape and math.prod(x.shape) != 1:
        fail(f"X must hold exactly one element (a counter), got shape {tuple(x.shape)}")
    return x


def _increment_undo(g):
    """PaddlePaddle 2.6's backward of increment writes no gradient: it appends an
    ``increment`` of X by -step, in place, undoing the step (X is usually its own Out). Only
    in the top block: inside a loop's body paddle_nb's while grad keeps no per-step
    counters to undo, so there it appends nothing."""
    if g.op is not None and g.op.block.idx != 0:
        return []
    return [OpSpec("increment", {"X": g.input("X")}, {"Out": g.input("X")},
                   {"step": -g.attrs.get("step", 1.0)})]


register(OpDef(
    "increment", inputs=["X"], outputs=["Out"], attrs={"step": Attr("float", 1.0)},
    infer=_increment_infer, kernel=lambda ctx, x, *, step: (x + step).astype(x.dtype, copy=False),
    grad=_increment_undo, doc="Out = X + step, for a one-element X (a loop counter)"))


def _range_infer(start, end, step):
    for slot, m in (("Start", start), ("End", end), ("Step", step)):
        if -1 not in m.shape and math.prod(m.shape) != 1:
            fail(f"{slot} must hold one value, got shape {tuple(m.shape)}")
    return Meta((-1,), start.dtype)     # the length depends on the values


def _range(ctx, start, end, step):
    first, last, by = (t.reshape(()).item() for t in (start, end, step))
    if by == 0:
        raise ValueError("range: Step must not be 0")
    # as PaddlePaddle counts: ceil(|end - start| / |step|) values start + i * step
    n = max(math.ceil((last - first) / by), 0)
    return (ctx.xp.arange(n, dtype=start.dtype) * by + first).astype(start.dtype, copy=False)


register(OpDef(
    "range", inputs=["Start", "End", "Step"], outputs=["Out"], infer=_range_infer,
    kernel=_range, doc="Out = [Start, Start + Step, ...] up to End (excluded): paddle.arange"))


# assign_value keeps its values in the attribute of its dtype's kind
VALUE_SLOTS = {"b": "bool_values", "i": "int32_values", "f": "fp32_values"}


def _values_attr(dtype):
    if dtype == numpy.dtype("int64"):
        return "int64_values"
    if dtype == numpy.dtype("float64"):
        return "fp64_values"
    if dtype not in (numpy.dtype(bool), numpy.dtype("int32"), FLOAT32):
        fail(f"dtype must be bool, int32, int64, float32 or float64, got {dtype}")
    return VALUE_SLOTS[dtype.kind]


def _assign_value_infer(*, shape, dtype, **values):
    given = len(values[_values_attr(dtype)])
    if given != math.prod(shape):
        fail(f"{_values_attr(dtype)} must hold one value per element of shape {list(shape)} "
             f"({math.prod(shape)}), got {given}")
    return Meta(check_shape(shape), dtype)


register(OpDef(
    "assign_value", outputs=["Out"],
    attrs={"shape": Attr("ints", []), "dtype": Attr("dtype", FLOAT32),
           "bool_values": Attr("ints", [], comment="bools as 0/1"),
           "fp32_values": Attr("floats", []),
           "fp64_values": Attr("float64s", []), "int32_values": Attr("ints", []),
           "int64_values": Attr("longs", [])},
    infer=_assign_value_infer,
    kernel=lambda ctx, *, shape, dtype, **values: ctx.xp.asarray(
        values[_values_attr(dtype)], dtype=dtype).reshape(shape),
    doc="Out = the values stored in the op (in the attribute of its dtype), of shape `shape`"))
