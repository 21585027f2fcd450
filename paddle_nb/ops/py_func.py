"""py_func: an op that calls back into Python (``paddle.static.py_func``).

The op holds the number of a function registered in this process (``register_callable``),
not the function: like PaddlePaddle's, a program with a ``py_func`` runs only in the process
that built it. The function gets the inputs as NumPy arrays and returns the outputs, whose
variables the user declared beforehand: its shape rule infers nothing (None keeps their
declarations), and their dtypes and shapes are promises the executor checks. With a
backward function, the grad op is another ``py_func`` that calls it with the forward
inputs, the forward outputs and the outputs' gradients, as PaddlePaddle 2.6 does.
"""

import numpy

from paddle_nb.errors import OpBuildError
from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import REQUIRED, Attr, OpDef, Slot, register

__all__ = ["register_callable", "CALLABLES"]

CALLABLES: list = []       # the registered functions: an op's attribute holds an index here


def register_callable(function):
    """The number a ``py_func`` op names ``function`` by (its place in CALLABLES)."""
    if not callable(function):
        raise OpBuildError(f"py_func: expected a callable, got {function!r}")
    CALLABLES.append(function)
    return len(CALLABLES) - 1


def _call(ctx, xs, *, forward_callable_id, backward_callable_id, backward_skip_vars):
    if not 0 <= forward_callable_id < len(CALLABLES):
        raise OpBuildError(f"py_func: no function number {forward_callable_id} in this process "
                           "(a program with py_func runs only where it was built)")
    arrays = [numpy.asarray(x.get() if hasattr(x, "get") else x) for x in xs or []]
    result = CALLABLES[forward_callable_id](*arrays)
    results = list(result) if isinstance(result, (list, tuple)) else \
        ([] if result is None else [result])
    return [ctx.to_device(numpy.ascontiguousarray(numpy.asarray(r))) for r in results]


def _grad(g):
    backward = g.attrs.get("backward_callable_id", -1)
    if backward < 0:
        return []
    skip = set(g.attrs.get("backward_skip_vars", []))
    inputs = [n for n in g.input("X") if n not in skip] + \
        [n for n in g.output("Out") if n not in skip] + g.output_grad("Out")
    return [OpSpec("py_func", {"X": inputs}, {"Out": g.input_grad("X")},
                   {"forward_callable_id": backward, "backward_callable_id": -1,
                    "backward_skip_vars": []})]


def _registered(number):
    if not 0 <= number < len(CALLABLES):
        return (f"no function number {number} is registered in this process (a program with "
                "py_func runs only where it was built)")
    return None


register(OpDef(
    "py_func", inputs=[Slot("X", duplicable=True, dispensable=True)],
    outputs=[Slot("Out", duplicable=True, dispensable=True)],
    attrs={"forward_callable_id": Attr("int", REQUIRED, check=_registered,
                                       comment="the function called (CALLABLES)"),
           "backward_callable_id": Attr("int", -1, comment="its backward one; -1: none"),
           "backward_skip_vars": Attr("strs", [], comment="forward variables it is not given")},
    infer=lambda xs, **attrs: None, kernel=_call, grad=_grad,
    doc="Out = a Python function of X (its number in this process's CALLABLES)"))
