"""``fused_elementwise_chain``: a chain of elementwise and activation ops as one op, evaluated
on one buffer (inference only: no grad op).

The inference passes (``paddle_nb/passes/fuse_elementwise.py``) write it in place of ops such
as ``elementwise_add -> relu`` (a residual block's end), ``sigmoid -> elementwise_mul`` (SiLU
written out), ``elementwise_add -> hard_sigmoid -> elementwise_mul`` (a squeeze-excitation
gate), where each link is read by the next op only. It is a paddle_nb op type, not
PaddlePaddle's (its ``fused_elemwise_activation`` takes two functors only): a program holding
it runs here only.

    Out = step_n( ... step_1(step_0(X[i], X[j]) ...) ...)

``chain`` (a JSON string, readable in a printed program) lists the steps: each
``{"type": op type, "X": a, "Y": b, "attrs": {...}}`` with ``a`` / ``b`` an index into the
inputs ``X`` or ``"#"``, the value the step before made (the first step reads inputs only;
unary steps have no ``"Y"``). The first step makes one new array; every later step that keeps
its shape writes over it with NumPy's ``out=``, so a chain of n ops makes one array instead of
n, and reads and writes it while it is in the cache.

``inplace`` (set by the buffer reuse pass, ``paddle_nb/passes/reuse.py``): the first step
writes over the buffer of ``X[0]`` itself, which the pass found is a temporary this op is the
last to read, that no other step reads and that no other value shares.
"""

import json
import math
from collections.abc import Callable
from typing import Any

from paddle_nb.ops.activation_param import erf, sigmoid_into
from paddle_nb.ops.machinery.broadcast import align
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, get, prepared, register

__all__ = ["UNARY", "BINARY", "FUSABLE", "parse_chain", "chain_json"]

_SQRT_2 = math.sqrt(2.0)
_TANH_GELU = math.sqrt(2.0 / math.pi)


def _leaky_relu(xp, v, o, alpha):
    if 0.0 <= alpha <= 1.0:          # max(x, a x) is x above 0 and a x below: the same values
        return xp.maximum(v, v * alpha, out=o)
    r = xp.where(v > 0, v, v * alpha)
    return r if o is None else xp.copyto(o, r) or o


def _hard_swish(xp, v, o, threshold, scale, offset):
    gate = v + offset
    xp.maximum(gate, 0, out=gate)
    xp.minimum(gate, threshold, out=gate)
    r = xp.multiply(v, gate, out=o)
    return xp.divide(r, scale, out=r)


def _hard_sigmoid(xp, v, o, slope, offset):
    r = xp.multiply(v, slope, out=o)
    r += offset
    xp.maximum(r, 0, out=r)
    return xp.minimum(r, 1, out=r)


def _gelu(xp, v, o, approximate):
    if approximate:
        inner = v * v
        inner *= v
        inner *= 0.044715
        inner += v
        inner *= _TANH_GELU
        xp.tanh(inner, out=inner)
    else:
        inner = erf(xp, v / _SQRT_2)
    inner += 1
    r = xp.multiply(v, 0.5, out=o)
    return xp.multiply(r, inner, out=r)


def _scale(xp, v, o, scale, bias, bias_after_scale):
    if bias_after_scale:
        r = xp.multiply(v, scale, out=o)
        return xp.add(r, bias, out=r)
    r = xp.add(v, bias, out=o)
    return xp.multiply(r, scale, out=r)


def _then(ufunc, r, *args):
    """``ufunc(r, *args)`` written over ``r`` (a step's own array by now)."""
    return ufunc(r, *args, out=r)


def _copied(xp, value, o):
    """``value`` (a new array) written into ``o`` when there is one."""
    if o is None:
        return value
    xp.copyto(o, value)
    return o


# op type -> f(xp, v, o, **attrs): the op on v, written into o (None: into a new array); each
# computes what the op's own kernel does, in the same order of operations
UNARY: dict[str, Callable[..., Any]] = {
    "relu": lambda xp, v, o: xp.maximum(v, 0, out=o),
    "relu6": lambda xp, v, o, threshold: _then(xp.minimum, xp.maximum(v, 0, out=o), threshold),
    "leaky_relu": _leaky_relu,
    "sigmoid": sigmoid_into,
    "tanh": lambda xp, v, o: xp.tanh(v, out=o),
    "exp": lambda xp, v, o: xp.exp(v, out=o),
    "log": lambda xp, v, o: xp.log(v, out=o),
    "sqrt": lambda xp, v, o: xp.sqrt(v, out=o),
    "rsqrt": lambda xp, v, o: _then(xp.reciprocal, xp.sqrt(v, out=o)),
    "abs": lambda xp, v, o: xp.abs(v, out=o),
    "square": lambda xp, v, o: xp.multiply(v, v, out=o),
    "erf": lambda xp, v, o: _copied(xp, erf(xp, v), o),
    "silu": lambda xp, v, o: xp.multiply(v, sigmoid_into(xp, v), out=o),
    "swish": lambda xp, v, o, beta: xp.multiply(v, sigmoid_into(xp, v * beta), out=o),
    "hard_swish": _hard_swish,
    "hard_sigmoid": _hard_sigmoid,
    "gelu": _gelu,
    "pow": lambda xp, v, o, factor: xp.power(v, factor, out=o),
    "scale": _scale,
}

# op type -> the ufunc's name (float operands of one dtype: NumPy's arithmetic is the op's)
BINARY = {"elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
          "elementwise_div": "divide", "elementwise_max": "maximum",
          "elementwise_min": "minimum", "elementwise_pow": "power"}

FUSABLE = frozenset(UNARY) | frozenset(BINARY)

RUNNING = "#"      # in a step: the value the step before made


def chain_json(steps):
    """The ``chain`` attribute for ``steps`` (a list of step dicts)."""
    return json.dumps(steps, separators=(",", ":"))


def parse_chain(text):
    """The steps of a ``chain`` attribute, checked: a ShapeError names what is wrong."""
    try:
        steps = json.loads(text)
    except ValueError as err:
        fail(f"chain is not JSON: {err}")
    if not isinstance(steps, list) or not steps:
        fail(f"chain must be a non-empty JSON list of steps, got {text!r}")
    for k, step in enumerate(steps):
        kind = step.get("type") if isinstance(step, dict) else None
        if kind not in FUSABLE:
            fail(f"chain step {k}: op type {kind!r} is not one fused_elementwise_chain "
                 f"evaluates ({', '.join(sorted(FUSABLE))})")
        for slot in ("X", "Y") if kind in BINARY else ("X",):
            ref = step.get(slot)
            if not (ref == RUNNING and k > 0 or isinstance(ref, int) and ref >= 0):
                fail(f"chain step {k} ({kind}): {slot} must be an input index"
                     + (" or '#'" if k else "") + f", got {ref!r}")
    return steps


def _operand(ref, running, xs, k, kind, slot):
    if ref == RUNNING:
        return running
    if ref >= len(xs):
        fail(f"chain step {k} ({kind}): {slot} is input {ref}, but X has {len(xs)} inputs")
    return xs[ref]


def _step_infer(step, k, running, xs):
    """The meta of step ``k``'s result, by the op's own shape inference."""
    kind, attrs = step["type"], get(step["type"]).complete_attrs(step.get("attrs", {}))
    infer = get(kind).infer
    assert infer is not None, kind       # every op a chain may hold has shape inference
    x = _operand(step["X"], running, xs, k, kind, "X")
    if kind in BINARY:
        y = _operand(step["Y"], running, xs, k, kind, "Y")
        return infer(x, y, **attrs)
    extra = [None] * (len(get(kind).inputs) - 1)       # scale's ScaleTensor, pow's FactorTensor
    return infer(x, *extra, **attrs)


def _infer(xs, *, chain, inplace):
    running = None
    for k, step in enumerate(parse_chain(chain)):
        running = _step_infer(step, k, running, xs)
        if running.dtype.kind != "f":
            fail(f"chain step {k} ({step['type']}) makes {running.dtype} values: the fused "
                 f"chain evaluates floating-point steps only")
    return running


def _binary(xp, ufunc, x, y, axis, o):
    if x.ndim != y.ndim:
        x, y = align(x, y, axis)
    if o is not None:
        try:
            return ufunc(x, y, out=o)
        except ValueError:            # broadcasting made a bigger value: a new array
            pass
    return ufunc(x, y)


def _step_fn(xp, step):
    """f(running, xs, o) for one step."""
    kind, attrs = step["type"], get(step["type"]).complete_attrs(step.get("attrs", {}))
    a, b = step["X"], step.get("Y")
    if kind in BINARY:
        ufunc, axis = getattr(xp, BINARY[kind]), attrs["axis"]
        return lambda r, xs, o: _binary(xp, ufunc, r if a == RUNNING else xs[a],
                                        r if b == RUNNING else xs[b], axis, o)
    fn, kw = UNARY[kind], {n: attrs[n] for n in attrs if n in _UNARY_ATTRS.get(kind, ())}
    return lambda r, xs, o: fn(xp, r if a == RUNNING else xs[a], o, **kw)


_UNARY_ATTRS = {"relu6": ("threshold",), "leaky_relu": ("alpha",), "swish": ("beta",),
                "hard_swish": ("threshold", "scale", "offset"),
                "hard_sigmoid": ("slope", "offset"), "gelu": ("approximate",),
                "pow": ("factor",), "scale": ("scale", "bias", "bias_after_scale")}


def _writeable(array):
    """False for a read-only array (a memory-mapped feed): never written over."""
    return getattr(array.flags, "writeable", True)      # (CuPy's arrays have no such flag)


def _keeps_shape(steps, metas):
    """For each step: whether its result has the shape of the value it writes over (the first
    step: X[0]'s), by shape inference on the declared metas; True where they are unknown (a
    step whose broadcasting makes a bigger value then makes a new array, see ``_binary``)."""
    if metas is None or metas[0] is None:
        return [True] * len(steps)
    running, keeps = metas[0][0], []
    for k, step in enumerate(steps):
        new = _step_infer(step, k, None if k == 0 else running, metas[0])
        keeps.append(tuple(new.shape) == tuple(running.shape))
        running = new
    return keeps


def _make(ctx, metas, *, chain, inplace):
    xp, steps = ctx.xp, parse_chain(chain)
    fns = [_step_fn(xp, step) for step in steps]
    keeps = _keeps_shape(steps, metas)
    # the first step writes over X[0] when asked to, when it reads X[0] itself and no later
    # step does
    into_x0 = bool(inplace) and keeps[0] and 0 in (steps[0].get("X"), steps[0].get("Y")) and \
        0 not in [step.get(slot) for step in steps[1:] for slot in ("X", "Y")]
    first = fns[0]
    rest = [(fn, keep) for fn, keep in zip(fns[1:], keeps[1:])]

    def run(xs):
        r = first(None, xs, xs[0] if into_x0 and _writeable(xs[0]) else None)
        for fn, keep in rest:
            r = fn(r, xs, r if keep else None)
        return r
    return run


register(OpDef(
    "fused_elementwise_chain", inputs=[Slot("X", duplicable=True)], outputs=["Out"],
    attrs={"chain": Attr("str", "[]", comment="the steps, as JSON (see the module's doc)"),
           "inplace": Attr("bool", False, comment="the first step writes over X[0]'s buffer")},
    infer=_infer, kernel=prepared(_make),
    doc="Out = the chain of elementwise / activation steps on X, on one buffer (paddle_nb's, "
        "inference only: the passes write it)"))

