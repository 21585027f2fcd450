"""``coalesce_tensor``: several tensors laid end to end in one flat buffer.

PaddlePaddle's startup programs use it to give a fused kernel (cuDNN's LSTM) one block
of memory for many parameters: ``FusedOutput`` holds every ``Input`` flattened, one after
the other (each padded to ``align_size`` bytes, or 4,096 on the CPU when ``use_align``
and no size is given), and ``Output`` are the same variables, as views into it there. Here
the outputs are copies (kernels never write into their inputs), which computes the same
values: ``copy_data`` copies the inputs in, ``set_constant`` fills everything with
``constant``. The gaps alignment leaves are zeros (PaddlePaddle leaves them unset).

With inputs of shapes (2, 3) and (2), ``use_align`` False, FusedOutput has shape (8,);
with ``align_size`` 32 on float32 each input is padded to 8 elements: shape (16,).
"""

from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

CPU_ALIGNMENT = 4096     # bytes: what PaddlePaddle's CPU allocator aligns to

ATTRS = {
    "copy_data": Attr("bool", False, comment="copy the inputs into the buffer"),
    "set_constant": Attr("bool", False, comment="fill the buffer (and outputs) with constant"),
    "persist_output": Attr("bool", False), "constant": Attr("float", 0.0),
    "dtype": Attr("dtype", comment="every input's dtype"),
    "use_align": Attr("bool", True, comment="pad each tensor to align_size bytes"),
    "align_size": Attr("int", -1, comment="bytes; -1: the device's alignment"),
    "user_defined_size_of_dtype": Attr("int", -1),
    "concated_shapes": Attr("longs", []), "concated_ranks": Attr("longs", []),
}


def _numel(shape):
    n = 1
    for d in shape:
        if d < 0:
            return -1
        n *= d
    return n


def _padded(numel, itemsize, use_align, align_size):
    """How many elements one tensor takes in the buffer."""
    if not use_align or numel < 0:
        return numel
    chunk = max((align_size if align_size > 0 else CPU_ALIGNMENT) // itemsize, 1)
    return -(-numel // chunk) * chunk


def _infer(xs, *, dtype, use_align, align_size, **_):
    if not xs:
        fail("Input must list at least one tensor, got none")
    for i, x in enumerate(xs):
        if x.dtype != dtype:
            fail(f"Input[{i}] is {x.dtype}, but dtype says {dtype}: every input must be it")
    sizes = [_padded(_numel(x.shape), dtype.itemsize, use_align, align_size) for x in xs]
    total = -1 if -1 in sizes else sum(sizes)
    return list(xs), xs[0].with_shape((total,))


def _kernel(ctx, xs, *, dtype, use_align, align_size, copy_data, set_constant, constant, **_):
    xp = ctx.xp
    sizes = [_padded(x.size, dtype.itemsize, use_align, align_size) for x in xs]
    fused = xp.full((sum(sizes),), constant if set_constant else 0, dtype=dtype)
    outputs, start = [], 0
    for x, size in zip(xs, sizes):
        if copy_data and not set_constant:
            fused[start:start + x.size] = x.reshape(-1)
        outputs.append(fused[start:start + x.size].reshape(x.shape).copy())
        start += size
    return outputs, fused


register(OpDef(
    "coalesce_tensor", inputs=[Slot("Input", duplicable=True)],
    outputs=[Slot("Output", duplicable=True, comment="the inputs, as laid in the buffer"),
             Slot("FusedOutput", comment="one flat buffer holding every input")],
    attrs=ATTRS, infer=_infer, kernel=_kernel,
    doc="FusedOutput = every Input flattened end to end (aligned); Output = the Inputs"))
