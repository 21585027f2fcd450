"""Control-flow ops: run a sub-block in a fresh kid scope ("Design Doc: Block
and Scope").

``conditional_block`` runs its sub-block once when its condition holds;
``while`` runs it while a bool variable stays true, one step scope per
iteration. Each keeps the scopes it made in a STEP_SCOPES variable, alive
until the run ends, because the grad ops run their grad blocks inside
them: the values of the forward pass are still there, as "Design Doc: Block and Scope" says.
The kernels reach the executor only through ``ctx.run_block``.
"""

import numbers
from typing import Any

from paddle_nb.core.scope import StepScopes
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.tensor_array import LoDTensorArray
from paddle_nb.errors import OpRunError
from paddle_nb.ops.machinery.context import held_bytes
from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import EMPTY_VAR, Attr, OpDef, Slot, grad_var_name, register
from paddle_nb.proto.framework_pb2 import VarType

__all__ = ["scalar_condition", "scope_bytes", "WhileLimits", "WHILE_LIMITS"]


def scalar_condition(ctx, name, op_type):
    """The Python bool held by bool variable ``name`` (one element)."""
    array = ctx.tensor(name).array()
    if array.dtype.kind != "b" or array.size != 1:
        raise ValueError(f"{op_type}: condition '{name}' must be a bool tensor of one element, "
                         f"got {array.dtype}{list(array.shape)}")
    return bool(array.reshape(-1)[0])


def _scopes_var(ctx, slot):
    return ctx.scope.find_var(ctx.output_names(slot)[0]) or ctx.scope.var(ctx.output_names(slot)[0])


def _conditional_block(ctx):
    attrs = ctx.attrs
    conds = ctx.input_names("Cond")
    if attrs["is_scalar_condition"]:
        run = scalar_condition(ctx, conds[0], "conditional_block")
    else:
        tensors = [ctx.tensor(n) for n in conds]
        run = all(t.is_allocated() and t.array().size > 0 for t in tensors)
    scopes = _scopes_var(ctx, "Scope").set_value(StepScopes())
    if run:
        kid = ctx.scope.new_scope(label=f"block {attrs['sub_block']}")
        scopes.append(kid)
        ctx.run_block(attrs["sub_block"], kid)
    elif not attrs["is_scalar_condition"]:
        _empty_rows(ctx)


def _empty_rows(ctx):
    """A per-row branch over no rows (IfElse on an empty batch, or every row on the
    other side) yields no rows: each output declared [-1, ...] that has no value gets an
    empty [0, ...] array, so that merge_lod_tensor merges 0 rows instead of failing."""
    block = getattr(ctx.op, "block", None)
    for name in ctx.output_names("Out"):
        var = block.find_var(name) if block is not None else None
        if var is None or not var.is_tensor() or var.persistable:
            continue
        shape = var.shape
        if not shape or shape[0] != -1 or any(d < 0 for d in shape[1:]):
            continue
        if ctx.find_array(name) is None:
            ctx.out_tensor(name).set(ctx.xp.empty((0,) + tuple(shape[1:]), var.dtype), ctx.place)


def _zeros_like_into(ctx, source, target):
    t = ctx.tensor(source)
    if t.is_allocated():
        ctx.out_tensor(target).set(ctx.xp.zeros_like(t.array()), ctx.place)


def _copy_inner_grads(ctx, inner_scope, inputs, outputs, inner_names):
    for k, (x, out) in enumerate(zip(inputs, outputs)):
        if out == EMPTY_VAR:
            continue
        inner = inner_names[k] if inner_names else grad_var_name(x)
        var = inner_scope.find_local_var(inner) if inner else None
        if var is not None and var.is_initialized() and var.get_tensor().is_allocated():
            ctx.out_tensor(out).set(var.get_tensor().array(), ctx.place)
        else:
            _zeros_like_into(ctx, x, out)


def _conditional_block_grad(ctx):
    attrs = ctx.attrs
    scopes = ctx.scope.find_var(ctx.input_names("Scope")[0]).get(StepScopes)
    inputs, outputs = ctx.input_names("Input"), ctx.output_names("Input@GRAD")
    if not scopes:                       # the branch did not run: no gradient flows
        for x, out in zip(inputs, outputs):
            if out != EMPTY_VAR:
                _zeros_like_into(ctx, x, out)
        return
    # paddle_nb runs the grad block in a "grad" kid of the branch scope; PaddlePaddle's
    # conditional_block_grad runs it in the branch scope itself (Executor(scopes="paddle"))
    grad_scope = scopes[0] if ctx.scope_rules == "paddle" else \
        scopes[0].new_scope(label="grad")
    # the seeds, visible however deep we are, under the names the grad block reads (Out's
    # gradient names: a second backward pass names the outer ones grad/grad/...)
    for out, name in zip(ctx.input_names("Out"), ctx.input_names("Out@GRAD")):
        var = ctx.scope.find_var(name)
        if var is not None and var.is_initialized() and var.get_tensor().is_allocated():
            grad_scope.var(grad_var_name(out)).get_tensor().hold(var.get_tensor().array(),
                                                                  ctx.place)
    ctx.run_block(attrs["sub_block"], grad_scope)
    _copy_inner_grads(ctx, grad_scope, inputs, outputs, attrs["inner_grads"])


def _conditional_block_grad_maker(g):
    inputs = g.input("Input")
    grad_block, inner = g.backward_block(g.attrs["sub_block"], seeds=g.output_grad("Out"),
                                         local_seeds=True)
    return [OpSpec("conditional_block_grad",
                   {"Cond": g.input("Cond"), "Input": inputs, "Out": g.output("Out"),
                    "Out@GRAD": g.output_grad("Out"), "Scope": g.output("Scope")},
                   {"Input@GRAD": g.input_grad("Input")},
                   {"sub_block": grad_block, "is_scalar_condition": g.attrs["is_scalar_condition"],
                    "inner_grads": [inner.get(x, "") for x in inputs]})]


COND_ATTRS = {"sub_block": Attr("block"), "is_scalar_condition": Attr("bool", False),
              "skip_eager_deletion_vars": Attr("strs", [])}
register(OpDef(
    "conditional_block",
    inputs=[Slot("Cond", duplicable=True), Slot("Input", duplicable=True, dispensable=True)],
    outputs=[Slot("Out", duplicable=True, dispensable=True), "Scope"],
    attrs=COND_ATTRS, kernel=_conditional_block, raw=True, grad=_conditional_block_grad_maker,
    doc="run sub_block once, in a kid scope, when Cond holds (scalar) or is non-empty"))
register(OpDef(
    "conditional_block_grad",
    inputs=[Slot("Cond", duplicable=True), Slot("Input", duplicable=True, dispensable=True),
            Slot("Out", duplicable=True, dispensable=True),
            Slot("Out@GRAD", duplicable=True, dispensable=True), "Scope"],
    outputs=[Slot("Input@GRAD", duplicable=True, dispensable=True)],
    attrs={**COND_ATTRS, "inner_grads": Attr("strs", [])},
    kernel=_conditional_block_grad, raw=True,
    doc="run the grad block inside the forward branch scope; copy the inputs' gradients out"))


class WhileLimits:
    """The guard of every ``while`` loop: the process-wide defaults, in one place.

    A loop stops with an OpRunError at whichever comes first: ``max_iterations``
    iterations, or ``max_step_scope_bytes`` bytes of tensors held by the step
    scopes it keeps for the backward pass (an ``is_test`` loop keeps none). A
    loop built with ``While(cond, max_iterations=..., max_step_scope_bytes=...)``
    has its own limits (the op's attributes; 0 means these defaults).

    >>> old = WHILE_LIMITS.set(max_iterations=1_000_000)    # for a long loop
    >>> old
    {'max_iterations': 100000, 'max_step_scope_bytes': 1073741824}
    >>> _ = WHILE_LIMITS.set(**old)
    """

    __slots__ = ("max_iterations", "max_step_scope_bytes")
    max_iterations: int
    max_step_scope_bytes: int

    def __init__(self, max_iterations, max_step_scope_bytes):
        self.set(max_iterations=max_iterations, max_step_scope_bytes=max_step_scope_bytes)

    def set(self, max_iterations=None, max_step_scope_bytes=None):
        """Change the limits given (positive whole numbers); return all the old ones."""
        old = {name: getattr(self, name, None) for name in self.__slots__}
        for name, value in (("max_iterations", max_iterations),
                            ("max_step_scope_bytes", max_step_scope_bytes)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
                raise ValueError(f"WHILE_LIMITS.{name}: expected a positive int, got {value!r}")
            setattr(self, name, int(value))
        return old

    def __repr__(self):
        return (f"WhileLimits(max_iterations={self.max_iterations}, "
                f"max_step_scope_bytes={self.max_step_scope_bytes})")


# A trivial body runs about 70,000 iterations a CPU second, so an endless one stops in about a
# second; 1 GiB of step scopes stops a big body long before the machine runs out of memory.
WHILE_LIMITS = WhileLimits(max_iterations=100_000, max_step_scope_bytes=1 << 30)


def _while(ctx):
    attrs = ctx.attrs
    cond = ctx.input_names("Condition")[0]
    scopes = _scopes_var(ctx, "StepScopes").set_value(StepScopes())
    carried = [n for n in ctx.output_names("Out") if n != cond]
    max_steps = attrs["max_iterations"] or WHILE_LIMITS.max_iterations
    max_bytes = attrs["max_step_scope_bytes"] or WHILE_LIMITS.max_step_scope_bytes
    step = held = 0
    while scalar_condition(ctx, cond, "while"):
        if step >= max_steps:
            raise _runaway(ctx, f"max_iterations={max_steps} is reached", step, held)
        starts = {} if attrs["is_test"] else _values(ctx, carried)
        kid = ctx.scope.new_scope(label=f"step {step}")
        ctx.run_block(attrs["sub_block"], kid)
        step += 1
        if attrs["is_test"]:
            kid.destroy()
            continue
        for name, array in starts.items():   # the step's inputs, for the backward pass
            if kid.find_local_var(name) is None:
                kid.var(name).get_tensor().hold(array, ctx.place)
        scopes.append(kid)
        held += scope_bytes(kid, ctx)
        if held > max_bytes:
            raise _runaway(ctx, f"max_step_scope_bytes={_size(max_bytes)} is exceeded", step, held)


def _runaway(ctx, what, steps, held):
    """The OpRunError of a loop stopped by its guard: which loop, which limit, how far."""
    op, attrs = ctx.op, ctx.attrs
    where = (f"op #{op.index()} 'while' in block {op.block.idx}" if hasattr(op, "block")
             else "'while'")
    site = op.site() if hasattr(op, "site") else "an unknown line"
    cond = ctx.input_names("Condition")[0]
    return OpRunError(
        f"while loop ({where}, body block {attrs['sub_block']}) stopped: its condition '{cond}' "
        f"is still true after {steps} iterations, and {what} (its step scopes hold "
        f"{_size(held)}). Does the body update the condition? For a longer loop, raise the "
        "limit: While(cond, max_iterations=..., max_step_scope_bytes=...) for this loop, or "
        f"paddle_nb.layers.WHILE_LIMITS.set(...) for every loop\n  loop built at {site}")


def _size(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit} ({nbytes} bytes)"
    return f"{nbytes} bytes"


def scope_bytes(scope, ctx=None):
    """The bytes of the tensors that ``scope`` and its kids hold (each scope's own counted
    by ``held_bytes``, and what it holds elsewhere by ``ctx.elsewhere_bytes``: an executor's
    context counts its step scopes' frames)."""
    total = held_bytes(scope)
    if scope.holds_elsewhere and ctx is not None:
        total += ctx.elsewhere_bytes(scope)
    for kid in scope.kids:
        total += scope_bytes(kid, ctx)
    return total


def _values(ctx, names):
    values = {}
    for name in names:
        var = ctx.scope.find_var(name)
        # (a tensor array the loop writes is not a step input: it is carried whole)
        if var is not None and isinstance(var.holder, LoDTensor) and var.holder.is_allocated():
            values[name] = var.holder.array()
    return values


def _while_grad(ctx):
    attrs = ctx.attrs
    scopes = ctx.scope.find_var(ctx.input_names("StepScopes")[0]).get(StepScopes)
    xs, outs = ctx.input_names("X"), ctx.output_names("X@GRAD")
    if not attrs["inner_grads"] and attrs["original_output_grad"]:
        _while_grad_linked(ctx, scopes, xs, outs)     # a grad block PaddlePaddle's backward wrote
        return
    # a loop-carried X's gradient flows from each step into the one before it: the grad
    # block reads it as X@GRAD, starting from the outer Out@GRAD (a second backward pass
    # names that one grad/grad/X@GRAD), and the last one is X's gradient
    carry = {x: _array_or_none(ctx, g) for x, g in zip(ctx.input_names("Out"),
                                                        ctx.input_names("Out@GRAD"))}
    # a tensor array's gradient (an array of gradients) is the same in every step: each
    # step's grad block reads its own element; it is linked into each grad scope as it is
    arrays = {x: g for x, g in carry.items() if isinstance(g, LoDTensorArray)}
    inner_names = attrs["inner_grads"] or [grad_var_name(x) for x in xs]
    totals: dict[str, Any] = {}
    for kid in reversed(scopes):
        grad_scope = kid.new_scope(label="grad")
        for x, g in arrays.items():
            grad_scope.var(grad_var_name(x)).set_value(g)
        ctx.run_block(attrs["sub_block"], grad_scope,
                      {grad_var_name(x): g for x, g in carry.items()
                       if g is not None and x not in arrays})
        for x, inner in zip(xs, inner_names):
            value = ctx.local_array(grad_scope, inner) if inner else None
            if x in arrays:
                continue
            if x in carry:
                carry[x] = value if value is not None else ctx.xp.zeros_like(ctx.tensor(x).array())
            elif value is not None:
                totals[x] = value if x not in totals else totals[x] + value
    for x, out in zip(xs, outs):
        if out == EMPTY_VAR:
            continue
        value = carry.get(x) if x in carry else totals.get(x)
        if value is not None:
            ctx.out_tensor(out).set(value, ctx.place)
        else:
            _zeros_like_into(ctx, x, out)


def _array_or_none(ctx, name):
    """The value of gradient ``name``: its array, a LoDTensorArray (a tensor array's
    gradient), or None when it has none."""
    var = ctx.scope.find_var(name)
    if var is None or not var.is_initialized():
        return None
    if isinstance(var.holder, LoDTensorArray):
        return var.holder
    return var.get_tensor().array() if var.get_tensor().is_allocated() else None


def _while_grad_linked(ctx, scopes, xs, outs):
    """PaddlePaddle's ``while_grad``: its grad block reads and writes the gradients by name.

    For each step, last first, the outer gradients ``Out@GRAD`` are linked into the step's
    grad scope under the names of ``original_output_grad`` (zeros for one nothing computed),
    the grad block runs, and then, for each ``X`` with a gradient: when ``X@GRAD`` is also one
    of the ``Out@GRAD`` (a loop-carried variable), the grad scope's value becomes the outer one,
    which the previous step links in; otherwise (a parameter or another captured variable) the
    outer ``X@GRAD`` is the sum over the steps of the grad scope's ``X@GRAD``.
    """
    outside = ctx.input_names("Out@GRAD")
    inside = ctx.attrs["original_output_grad"]
    if len(inside) != len(outside):
        raise ValueError(f"while_grad: {len(outside)} Out@GRAD names but "
                         f"{len(inside)} original_output_grad names")
    linked = set(outside)
    totals: dict[str, Any] = {}
    for kid in reversed(scopes):
        grad_scope = kid.new_scope(label="grad")
        for out_name, in_name in zip(outside, inside):
            var = ctx.scope.find_var(out_name)
            if var is None:
                continue
            if not (var.is_initialized() and var.get_tensor().is_allocated()):
                base = out_name[:-len("@GRAD")] if out_name.endswith("@GRAD") else None
                if base is None or ctx.scope.find_var(base) is None:
                    continue
                _zeros_like_into(ctx, base, out_name)
            # shared, not copied (PaddlePaddle's ShareDataWith): kernels never write in place
            grad_scope.var(in_name).get_tensor().hold(ctx.tensor(out_name).array(), ctx.place)
        ctx.run_block(ctx.attrs["sub_block"], grad_scope)
        for x, out in zip(xs, outs):
            if out == EMPTY_VAR:
                continue
            var = grad_scope.find_local_var(grad_var_name(x))
            if var is None or not var.is_initialized() or not var.get_tensor().is_allocated():
                continue
            value = var.get_tensor().array()
            if out in linked:
                ctx.out_tensor(out).set(value, ctx.place)
            else:
                totals[out] = value if out not in totals else totals[out] + value
    for x, out in zip(xs, outs):
        if out == EMPTY_VAR or out in linked:
            continue
        if out in totals:
            ctx.out_tensor(out).set(totals[out], ctx.place)
        else:
            _zeros_like_into(ctx, x, out)


def _while_grad_maker(g):
    xs = g.input("X")
    cond = g.input("Condition")[0]
    # a carried variable that stops gradients (the loop counter) has no Out@GRAD (as in 2.6)
    carried = [n for n in g.output("Out") if n != cond and not _stops_gradient(g, n)]
    grad_block, inner = g.backward_block(g.attrs["sub_block"],
                                         seeds=[grad_var_name(n) for n in carried])
    # a tensor array the loop fills has no gradient before the loop (it starts empty)
    x_grads = [EMPTY_VAR if _is_array(g, x) else gx for x, gx in zip(xs, g.input_grad("X"))]
    return [OpSpec("while_grad",
                   {"X": xs, "Out": carried, "Out@GRAD": [grad_var_name(n) for n in carried],
                    "StepScopes": g.output("StepScopes")},
                   {"X@GRAD": x_grads},
                   {"sub_block": grad_block, "is_test": False,
                    "inner_grads": [inner.get(x, "") for x in xs]})]


def _stops_gradient(g, name):
    var = g.op.block.find_var(name) if g.op is not None else None
    return var is not None and var.stop_gradient


def _is_array(g, name):
    var = g.op.block.find_var(name) if g.op is not None else None
    return var is not None and var.type == VarType.LOD_TENSOR_ARRAY


def _non_negative(value):
    return None if value >= 0 else "must be >= 0 (0: the WHILE_LIMITS default)"


WHILE_ATTRS = {"sub_block": Attr("block"), "is_test": Attr("bool", False),
               "max_iterations": Attr("long", 0, _non_negative,
                                      comment="paddle_nb's guard; 0: WHILE_LIMITS.max_iterations"),
               "max_step_scope_bytes": Attr("long", 0, _non_negative,
                                            comment="paddle_nb's guard; 0: WHILE_LIMITS's"),
               "skip_eager_deletion_vars": Attr("strs", [])}
register(OpDef(
    "while", inputs=[Slot("X", duplicable=True, dispensable=True), "Condition"],
    outputs=[Slot("Out", duplicable=True, dispensable=True), "StepScopes"],
    attrs=WHILE_ATTRS, kernel=_while, raw=True, grad=_while_grad_maker,
    doc="run sub_block while Condition is true, one step scope per iteration"))
register(OpDef(
    "while_grad",
    inputs=[Slot("X", duplicable=True, dispensable=True),
            Slot("Out", duplicable=True, dispensable=True),
            Slot("Out@GRAD", duplicable=True, dispensable=True), "StepScopes"],
    outputs=[Slot("X@GRAD", duplicable=True, dispensable=True)],
    attrs={**WHILE_ATTRS, "inner_grads": Attr("strs", []),
           "original_output_grad": Attr("strs", [])},
    kernel=_while_grad, raw=True,
    doc="run the grad block in each step scope, last step first; sum captured gradients"))
