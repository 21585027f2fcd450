"""``print``: show a tensor while the program runs, and pass it on unchanged.

``Out`` is ``In``; the kernel writes the tensor's name, shape, dtype and its first
``summarize`` values to standard output, after ``message``. In the backward pass the grad
op is another ``print`` (``is_forward=False``) that shows the gradient and passes it on,
so the gradient of ``print`` is the identity. ``print_phase`` ("FORWARD", "BACKWARD",
"BOTH") says which of the two prints. ``first_n`` (print only the first n runs) is kept in
the op but not counted here: every run prints.
"""

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, register

__all__ = []

_PHASES = ("FORWARD", "BACKWARD", "BOTH")


def _phase(value):
    return None if value.upper() in _PHASES else f"must be one of {', '.join(_PHASES)}"


PRINT_ATTRS = {
    "first_n": Attr("int", -1), "message": Attr("str", ""), "summarize": Attr("int", 20),
    "print_tensor_name": Attr("bool", True), "print_tensor_type": Attr("bool", True),
    "print_tensor_shape": Attr("bool", True), "print_tensor_layout": Attr("bool", True),
    "print_tensor_lod": Attr("bool", True), "print_phase": Attr("str", "BOTH", _phase),
    "is_forward": Attr("bool", True),
}


def _print_infer(x, **attrs):
    return x


def _print(ctx):
    attrs = ctx.attrs
    name = ctx.input_names("In")[0]
    tensor = ctx.tensor(name)
    array = tensor.array()
    phase = attrs["print_phase"].upper()
    if phase == "BOTH" or phase == ("FORWARD" if attrs["is_forward"] else "BACKWARD"):
        print(_describe(name, tensor, array, attrs))
    ctx.out_tensor(ctx.output_names("Out")[0]).set(array, ctx.place)


def _describe(name, tensor, array, attrs):
    lines = [attrs["message"]] if attrs["message"] else []
    if attrs["print_tensor_name"]:
        lines.append(f"Variable: {name}")
    if attrs["print_tensor_lod"]:
        lines.append(f"  - lod: {tensor.lod()}")
    if attrs["print_tensor_shape"]:
        lines.append(f"  - shape: {list(array.shape)}")
    if attrs["print_tensor_layout"]:
        lines.append("  - layout: NCHW")
    if attrs["print_tensor_type"]:
        lines.append(f"  - dtype: {array.dtype}")
    count = attrs["summarize"]
    flat = array.reshape(-1)
    shown = flat if count < 0 else flat[:count]
    lines.append(f"  - data: {' '.join(str(v) for v in shown.tolist())}")
    return "\n".join(lines)


def _print_grad(g):
    return [OpSpec("print", {"In": g.output_grad("Out")}, {"Out": g.input_grad("In")},
                   {**g.attrs, "is_forward": False})]


register(OpDef("print", inputs=["In"], outputs=["Out"], attrs=PRINT_ATTRS, infer=_print_infer,
               kernel=_print, raw=True, grad=_print_grad,
               doc="Out = In, writing In's name, shape, dtype and first values to stdout"))
