"""Runs ops straight from the registry, without Program or Executor.

The contract suite (test_contract.py) uses these helpers for every op:
forward against a NumPy reference, shapes against shape inference, and
gradients (through the op's own grad ops) against central differences.

A family's cases live in ``tests/ops/cases_<family>.py`` as ``CASES`` (op
type -> list of :class:`Case`) and ``BAD`` (op type -> list of :class:`Bad`).
"""

import contextlib
import dataclasses
from typing import Callable, Optional

import numpy as np

from paddle_nb.core import CPUPlace
from paddle_nb.ops import KernelContext, registry
from paddle_nb.ops.machinery.grad import GradContext
from paddle_nb.ops.machinery.registry import Meta, grad_var_name


@dataclasses.dataclass
class Case:
    """One forward case: ``inputs`` maps slot -> array (a list for a duplicable slot).

    ``ref(inputs, attrs) -> {out_slot: array}`` is the NumPy reference (slots
    it leaves out are not compared). ``grad`` lists the input slots whose
    gradients are checked against central differences (inputs cast to float64);
    ``grad_outputs`` limits which output slots feed the loss (default: all float ones).
    """

    inputs: dict
    attrs: dict = dataclasses.field(default_factory=dict)
    ref: Optional[Callable] = None
    grad: tuple = ()
    grad_outputs: Optional[tuple] = None
    rtol: float = 1e-5
    atol: float = 1e-6
    name: str = ""
    # output depends on randomness: compare shapes/dtypes and ref's checks only
    seeded: bool = False


@dataclasses.dataclass
class Bad:
    """A bad input: ``inputs`` maps slot -> Meta (or array, or list); building must raise ``error``
    with ``match`` (a regex) in its message."""

    inputs: dict
    attrs: dict = dataclasses.field(default_factory=dict)
    error: type = Exception
    match: str = ""


def meta_of(value):
    if value is None:
        return None
    if isinstance(value, Meta):
        return value
    if isinstance(value, list):
        return [meta_of(v) for v in value]
    if not hasattr(value, "shape"):       # a device array has its shape; NumPy converts the rest
        value = np.asarray(value)
    return Meta(tuple(value.shape), value.dtype, 0)


def _args(opdef, inputs):
    return [inputs.get(s.name) for s in opdef.inputs]


def _as_dict(slots, result):
    if len(slots) == 1:
        result = (result,)
    return {s.name: r for s, r in zip(slots, result)}


def infer(op_type, inputs, attrs=None):
    """Shape inference for ``inputs`` (arrays or Metas): {out_slot: Meta}."""
    opdef = registry.get(op_type)
    values = opdef.complete_attrs(attrs or {})
    metas = {k: meta_of(v) for k, v in inputs.items()}
    return _as_dict(opdef.outputs, opdef.infer(*_args(opdef, metas), **values))


def forward(op_type, inputs, attrs=None, place=None, seed=0):
    """Run the kernel on ``inputs``: {out_slot: array}."""
    opdef = registry.get(op_type)
    values = opdef.complete_attrs(attrs or {})
    ctx = KernelContext(place or CPUPlace(), seed)
    return _as_dict(opdef.outputs, run_kernel(opdef, ctx, _args(opdef, inputs), values))


def _host(array):
    """A NumPy copy of a device array; a NumPy array as it is."""
    return array.get() if hasattr(array, "get") and not isinstance(array, np.ndarray) \
        else np.asarray(array)


def run_kernel(opdef, ctx, args, attrs):
    """``opdef.kernel(ctx, *args, **attrs)``, checked to leave its inputs as they were (see
    :func:`untouched`); where the kernel is made per plan (``registry.prepared``), also
    check that what it makes for metas as the arrays have them, with the first dimension
    unknown, and with the metas unknown, computes the same, exactly, with each output alone
    wanted."""
    with untouched(opdef, args):
        return _run_kernel(opdef, ctx, args, attrs)


@contextlib.contextmanager
def untouched(opdef, args):
    """Fail when the kernel changed an input array. No kernel writes into what it is given
    (an optimizer's too returns ParamOut as a new array): the executor may hand one array
    to several variables (elementwise_add_grad returns Out@GRAD itself as X@GRAD)."""
    before = [_copy(a) for a in args]
    yield
    for slot, was, now in zip(opdef.inputs, before, args):
        for k, (w, n) in enumerate(zip(*(_flat(was), _flat(now)))):
            if w is not None and not np.array_equal(_host(w), _host(n),
                                                    equal_nan=w.dtype.kind in "fc"):
                raise AssertionError(f"{opdef.type}: its kernel changed input {slot.name}"
                                     f"{'[%d]' % k if isinstance(was, list) else ''}")


def _copy(value):
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value.copy() if hasattr(value, "shape") and hasattr(value, "copy") else None


def _flat(value):
    return value if isinstance(value, list) else [value]


def _run_kernel(opdef, ctx, args, attrs):
    result = opdef.kernel(ctx, *args, **attrs)
    make = getattr(opdef.kernel, "make", None)
    if make is None or ctx.rng is None or any(
            a is None and not s.dispensable for a, s in zip(args, opdef.inputs)):
        return result
    n = len(opdef.outputs)
    wanted = [None] + ([tuple(j == k for j in range(n)) for k in range(n)] if n > 1 else [])
    for metas in (meta_of(list(args)), [_unknown_batch(m) for m in meta_of(list(args))], None):
        for want in wanted:
            fn = make(ctx if want is None else ctx.for_outputs(want), metas, **attrs)
            got = fn(*args)
            expected, got = (result, got) if n > 1 else ((result,), (got,))
            for k, (e, g) in enumerate(zip(expected, got)):
                if want is None or want[k]:
                    assert (e is None) == (g is None), (opdef.type, k, want)
                    if e is not None:
                        assert g.dtype == e.dtype and g.shape == e.shape, (opdef.type, k)
                        np.testing.assert_array_equal(_host(g), _host(e))
    return result


def _unknown_batch(meta):
    if meta is None:
        return None
    if isinstance(meta, list):
        return [_unknown_batch(m) for m in meta]
    shape = tuple(meta.shape)
    return Meta((-1,) + shape[1:], meta.dtype, 0) if shape else meta


def _names(slot, value):
    if isinstance(value, list):
        return [f"{slot.lower()}{i}" for i in range(len(value))]
    return [slot.lower()]


def analytic_grad(op_type, inputs, attrs, out_grads):
    """Gradients of the inputs through the op's grad ops: {in_slot: array or list}."""
    opdef = registry.get(op_type)
    values = opdef.complete_attrs(attrs or {})
    env, in_names, out_names = {}, {}, {}
    for s in opdef.inputs:
        if inputs.get(s.name) is None:
            continue
        names = _names(s.name, inputs[s.name])
        in_names[s.name] = names
        value = inputs[s.name]
        env.update(zip(names, value if isinstance(value, list) else [value]))
    outs = forward(op_type, inputs, attrs)
    for s in opdef.outputs:
        if outs.get(s.name) is None:
            continue
        names = _names("o_" + s.name, outs[s.name])
        out_names[s.name] = names
        vals = outs[s.name] if isinstance(outs[s.name], list) else [outs[s.name]]
        env.update(zip(names, vals))
        grads = out_grads.get(s.name)
        if grads is not None:
            grads = grads if isinstance(grads, list) else [grads]
            env.update(zip((grad_var_name(n) for n in names), grads))
    specs = opdef.grad(GradContext(op_type, in_names, out_names, values))
    ctx = KernelContext(CPUPlace(), 0)
    for spec in specs:
        gdef = registry.get(spec.type)
        gattrs = gdef.complete_attrs({k: v for k, v in spec.attrs.items() if k in gdef.attrs})
        args = []
        for s in gdef.inputs:
            names = spec.inputs.get(s.name)
            if not names:
                args.append(None)
                continue
            vals = [env[n] if n in env else _zeros_like_name(env, n) for n in names]
            args.append(vals if s.duplicable else vals[0])
        result = _as_dict(gdef.outputs, run_kernel(gdef, ctx, args, gattrs))
        for s in gdef.outputs:
            names = spec.outputs.get(s.name)
            if not names or result.get(s.name) is None:
                continue
            vals = result[s.name] if isinstance(result[s.name], list) else [result[s.name]]
            env.update(zip(names, vals))
    grads = {}
    for slot, names in in_names.items():
        got = [env.get(grad_var_name(n)) for n in names]
        grads[slot] = got if isinstance(inputs[slot], list) else got[0]
    return grads


def _zeros_like_name(env, name):
    base = name[:-len("@GRAD")] if name.endswith("@GRAD") else None
    if base is not None and base in env:
        return np.zeros_like(env[base])
    raise KeyError(f"grad op reads '{name}', which nothing computed")


def numeric_grad(op_type, inputs, attrs, slot, weights, eps=1e-6):
    """Central differences of sum(weights[k] * out_k) with respect to input ``slot``."""
    def loss(ins):
        outs = forward(op_type, ins, attrs)
        total = 0.0
        for k, w in weights.items():
            o = outs[k]
            for oi, wi in zip(o if isinstance(o, list) else [o], w if isinstance(w, list) else [w]):
                total += float(np.sum(np.asarray(oi, dtype=np.float64) * wi))
        return total

    def one(x, set_x):
        g = np.zeros_like(x, dtype=np.float64)
        flat = x.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            plus = loss(set_x(x))
            flat[i] = old - eps
            minus = loss(set_x(x))
            flat[i] = old
            g.reshape(-1)[i] = (plus - minus) / (2 * eps)
        return g

    value = inputs[slot]
    if isinstance(value, list):
        out = []
        for j in range(len(value)):
            def set_j(x, j=j):
                ins = dict(inputs)
                ins[slot] = list(value)
                ins[slot][j] = x
                return ins
            out.append(one(value[j], set_j))
        return out
    return one(value, lambda x: {**inputs, slot: x})


def to_float64(value):
    if value is None:
        return None
    if isinstance(value, list):
        return [to_float64(v) for v in value]
    value = np.asarray(value)
    return value.astype(np.float64) if value.dtype.kind == "f" else value.copy()
