"""The RNN step net: one step block, run once per time step in its own scope.

Seed 003's RNN: ``recurrent`` slices each step input along dimension 0
([T, batch, ...]), makes a step scope per time step under the running
scope, puts the step's slice there under the outer sequence's name, links
each memory's previous value (``ex_states``) to the last step's updated
value (``states``) or to its initial state, runs the step block, and stacks
the step outputs over time. The step scopes are kept in ``step_scopes`` for
``recurrent_grad``, which runs the grad block in each of them, last step
first, passing each memory's gradient back one step at a time.

Under PaddlePaddle's rules (``Executor(scopes="paddle")``, read as ``ctx.scope_rules``):
``is_train=False`` runs the steps in two alternating step scopes, and ``recurrent_grad``
runs the grad block in each step scope itself, destroying each once backward has
passed it (docs/design_notes.md, "Where paddle_nb differs from PaddlePaddle").
"""

import operator

from paddle_nb.core.scope import StepScopes
from paddle_nb.errors import ScopeDestroyedError
from paddle_nb.ops.machinery.context import StepRunner
from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import (EMPTY_VAR, Attr, OpDef, Slot, fail, grad_var_name,
                                              prepared, register)

__all__ = []


def _order(n, reverse):
    return range(n - 1, -1, -1) if reverse else range(n)


def _sequence_length(ctx, names):
    return _sequences(ctx, names)[0]


def _sequences(ctx, names):
    """(T, the step inputs' arrays): their shared first dimension, checked."""
    arrays = [ctx.tensor(n).array() for n in names]
    shapes = {n: tuple(a.shape) for n, a in zip(names, arrays)}
    if not shapes:
        raise ValueError("recurrent: expected at least one step input")
    lengths = {n: s[0] if s else None for n, s in shapes.items()}
    if len(set(lengths.values())) > 1 or None in lengths.values():
        raise ValueError("recurrent: step inputs must share their first (time) dimension, got "
                         + ", ".join(f"{n}: {t}" for n, t in lengths.items()))
    steps = next(iter(lengths.values()))
    if steps == 0:    # no step: no output to stack (PaddlePaddle's leaves them unset)
        raise ValueError(
            "recurrent: the step inputs have 0 time steps ("
            + ", ".join(f"{n}: {list(s)}" for n, s in shapes.items())
            + "); a StaticRNN runs its step block once per step: expected sequences of at "
            "least one step, laid out [T, batch, ...]")
    return steps, arrays


def _missing(scope, name, what):
    """The error for a step value ``ctx.local_array`` did not find."""
    if not scope.is_alive():       # a listener, a kernel or another thread destroyed it mid-run
        return ScopeDestroyedError(
            f"recurrent: the step scope holding {what} '{name}' was destroyed while the RNN "
            "ran (by a listener, a kernel or another thread)")
    return ValueError(f"recurrent: the step block did not compute {what} '{name}'")


def _recurrent(ctx):
    attrs = ctx.attrs
    xp, place = ctx.xp, ctx.place
    inputs = ctx.input_names("inputs")
    steps, sequences = _sequences(ctx, inputs)
    ex_states, states = attrs["ex_states"], attrs["states"]
    boots = [ctx.tensor(name).array() for name in ctx.input_names("initial_states")]
    holder = ctx.scope.find_var(ctx.output_names("step_scopes")[0])
    if ctx.scope_rules == "paddle":        # PaddlePaddle drops the last run's step scopes first
        _clear_step_scopes(ctx.scope, holder)
    scopes = holder.set_value(StepScopes())
    outputs = ctx.output_names("outputs")
    memories = list(zip(ex_states, states, boots))
    # a step: its slices and memories in; its outputs and updated memories out
    run_step = ctx.step_runner(attrs["sub_block"], inputs + [pre for pre, _, _ in memories],
                               outputs + [state for _, state, _ in memories])
    kids = scopes
    if ctx.scope_rules == "paddle" and not attrs["is_train"]:
        run_step, kids = _TwoScopes(ctx, run_step, scopes), []  # (in ``scopes`` already)

    def fail(kid, k):
        """The error for step scope ``kid`` lacking out k, or holding a memory of a shape
        not its initial state's."""
        if k < len(outputs):
            return _missing(kid, outputs[k], "step output")
        pre, state, boot = memories[k - len(outputs)]
        value = ctx.local_array(kid, state) if kid.is_alive() else None
        if value is None:
            return _missing(kid, state, "memory")
        return ValueError(f"recurrent: memory '{pre}' has shape {boot.shape} "
                          f"but its update '{state}' has shape {value.shape}")
    collected = run_step.run_steps(ctx.scope, _order(steps, attrs["reverse"]), sequences,
                                   [boot for _, _, boot in memories], kids, fail)
    for name, parts in zip(outputs, collected):     # (new arrays: held, not copied)
        ctx.out_tensor(name).hold(_stacked(xp, parts), place)


_SHAPE = operator.attrgetter("shape")


def _stacked(xp, parts):
    """``xp.stack(parts)``: the step outputs one after the other as one array. Parts of one
    shape (each step's output has the first's) are joined by one ``concatenate``, a third
    of ``stack``'s time for a hundred small ones."""
    shape = parts[0].shape
    if shape and all(map(shape.__eq__, map(_SHAPE, parts))):     # (one C loop)
        return xp.concatenate(parts).reshape((len(parts),) + shape)
    return xp.stack(parts)                # (its error names the shapes that differ)


class _TwoScopes(StepRunner):
    """PaddlePaddle's inference steps (``is_train=False``): two step scopes made at the
    start, step t run in the one of index t % 2, again and again; the memory's previous
    value comes from the other one. The outputs are copied out (the scope's next run
    writes the same variables), as PaddlePaddle's ``recurrent`` copies them."""

    def __init__(self, ctx, runner, scopes):
        super().__init__(ctx, runner.block_idx, runner.ins, runner.outs)
        self.runner = runner
        self.turns = 0
        scopes.extend(ctx.scope.new_scope(label=f"step {k}") for k in range(2))
        self.scopes = scopes

    def __call__(self, parent, label, arrays):
        scope = self.scopes[self.turns % 2]
        self.turns += 1
        got = _run_in_scope(self.ctx, self.runner, scope, arrays)
        return scope, [g.copy() if g is not None else None for g in got]


class _InStepScopes(StepRunner):
    """PaddlePaddle's backward steps: the grad block of step k runs in step k's forward
    scope itself (no kid scope), and step k+1's scope is destroyed once step k has run:
    backward has passed it (``StepScopes::BackwardNext``). Called with the scopes' index
    going down from the last."""

    def __init__(self, ctx, runner, scopes):
        steps = _sequence_length(ctx, ctx.input_names("inputs"))
        if not ctx.attrs["is_train"] or len(scopes) == 2 < steps:
            raise ValueError(
                "recurrent_grad: the recurrent op ran with is_train=False, which keeps only "
                "two step scopes under PaddlePaddle's rules (Executor(scopes='paddle')); "
                "expected is_train=True for a program that runs backward")
        if not scopes or any(not scope.is_alive() for scope in scopes):
            raise ScopeDestroyedError(
                "recurrent_grad: a step scope of the forward pass was destroyed before this "
                "backward pass ran (under PaddlePaddle's rules, Executor(scopes='paddle'), an "
                "earlier recurrent_grad of the same recurrent op deletes each step scope once "
                "it has passed it); run one backward pass per recurrent op, or use "
                "Executor(scopes='paddle_nb'), which keeps the step scopes until the run ends")
        super().__init__(ctx, runner.block_idx, runner.ins, runner.outs)
        self.runner, self.scopes = runner, scopes

    def __call__(self, scope, label, arrays):
        got = _run_in_scope(self.ctx, self.runner, scope, arrays)
        scopes = self.scopes
        if scopes[-1] is not scope:        # the step after this one: backward has passed it
            scopes.pop().destroy()
        return scope, got


def _run_in_scope(ctx, runner, scope, arrays):
    """Run ``runner``'s block in ``scope`` itself (PaddlePaddle's way: no kid scope),
    ``arrays`` put there under its ``ins``; the arrays of its ``outs`` left there."""
    values = {name: a for name, a in zip(runner.ins, arrays) if a is not None}
    ctx.run_block(runner.block_idx, scope, values, same_outer=True)
    return [ctx.local_array(scope, name) for name in runner.outs]


def _clear_step_scopes(parent, holder):
    """PaddlePaddle's ``ClearStepScopes``: destroy the step scopes an earlier run of the op
    left in ``holder`` (those still kids of ``parent``), and empty it."""
    old = holder.holder if holder.is_initialized() else None
    if isinstance(old, StepScopes):
        for scope in old:
            if scope.is_alive() and scope.up is parent:
                scope.destroy()
        old.clear()


def _recurrent_grad(ctx):
    attrs = ctx.attrs
    scopes = ctx.scope.find_var(ctx.input_names("step_scopes")[0]).get(StepScopes)
    ex_states, states = attrs["ex_states"], attrs["states"]
    inputs, params = ctx.input_names("inputs"), ctx.input_names("parameters")
    boots, outputs = ctx.input_names("initial_states"), ctx.input_names("outputs")
    out_grads = [(grad_var_name(name), ctx.find_array(g))
                 for name, g in zip(outputs, ctx.input_names("outputs@GRAD"))]
    out_grads = [(name, g) for name, g in out_grads if g is not None]
    state_grads = [grad_var_name(s) for s in states]
    seeds = list(dict.fromkeys([name for name, _ in out_grads] + state_grads))  # each once
    run_step = ctx.step_runner(
        attrs["sub_block"], seeds, [grad_var_name(n) for n in inputs + params] +
        [grad_var_name(pre) for pre in ex_states], read_once=True)
    if ctx.scope_rules == "paddle":
        run_step = _InStepScopes(ctx, run_step, scopes)
    steps = len(scopes)
    order = list(_order(steps, attrs["reverse"]))   # the forward order; step k is scopes[k]
    slot = {name: k for k, name in enumerate(seeds)}

    def zero(k, j):
        """Zeros for state j's gradient at step k, where none reached it (the last step),
        as PaddlePaddle 2.6 gives its grad block."""
        value = ctx.find_array(states[j], scopes[k])
        return ctx.xp.zeros_like(value) if value is not None else None
    # the grad block's seeds: the outputs' gradients at t, and each state's gradient
    # carried from the step after
    input_grads, sums, carry = run_step.run_back(
        scopes, order, [(slot[name], g) for name, g in out_grads],
        [slot[name] for name in state_grads], zero, len(inputs), len(params))
    if ctx.scope_rules == "paddle":        # the last one (step 0's): gone once backward is done
        _clear_step_scopes(ctx.scope, ctx.scope.find_var(ctx.input_names("step_scopes")[0]))
    xp = ctx.xp
    _write_grads(ctx, inputs, "inputs@GRAD",
                 lambda n: _stack(xp, input_grads[inputs.index(n)], ctx.tensor(n)))
    param_grads = dict(zip(params, sums))
    _write_grads(ctx, params, "parameters@GRAD", lambda n: param_grads.get(n))
    boot_grads = dict(zip(boots, carry))
    _write_grads(ctx, boots, "initial_states@GRAD", lambda n: boot_grads.get(n))


def _stack(xp, parts, like):
    if all(p is None for p in parts):
        return None
    full = like.array()
    return _stacked(xp, [p if p is not None else xp.zeros_like(full[0]) for p in parts])


def _write_grads(ctx, names, slot, value_of):
    for name, out in zip(names, ctx.output_names(slot)):
        if out == EMPTY_VAR:
            continue
        value = value_of(name)
        if value is None:
            value = ctx.xp.zeros_like(ctx.tensor(name).array())
        # (a gradient the grad block made, or a sum or zeros of our own: no kernel writes
        # into an array it was given, so it is held without a copy)
        ctx.out_tensor(out).hold(value, ctx.place)


def _recurrent_grad_maker(g):
    attrs = g.attrs
    seeds = [grad_var_name(n) for n in g.output("outputs")] + \
        [grad_var_name(n) for n in attrs["states"]]
    grad_block, _ = g.backward_block(attrs["sub_block"], seeds=seeds, local_seeds=True,
                                     extra_needs=attrs["ex_states"])
    return [OpSpec("recurrent_grad",
                   {"inputs": g.input("inputs"), "initial_states": g.input("initial_states"),
                    "parameters": g.input("parameters"), "outputs": g.output("outputs"),
                    "outputs@GRAD": g.output_grad("outputs"),
                    "step_scopes": g.output("step_scopes")},
                   {"inputs@GRAD": g.input_grad("inputs"),
                    "initial_states@GRAD": g.input_grad("initial_states"),
                    "parameters@GRAD": g.input_grad("parameters")},
                   {**attrs, "sub_block": grad_block})]


RNN_ATTRS = {"ex_states": Attr("strs", []), "states": Attr("strs", []), "sub_block": Attr("block"),
             "reverse": Attr("bool", False), "is_train": Attr("bool", True),
             "has_states": Attr("bool", False), "skip_eager_deletion_vars": Attr("strs", [])}


def _dup(name):
    return Slot(name, duplicable=True, dispensable=True)


register(OpDef(
    "recurrent", inputs=[_dup("inputs"), _dup("initial_states"), _dup("parameters")],
    outputs=[_dup("outputs"), "step_scopes"], attrs=RNN_ATTRS, kernel=_recurrent, raw=True,
    grad=_recurrent_grad_maker,
    doc="run sub_block once per time step of the step inputs, one step scope each"))
register(OpDef(
    "recurrent_grad",
    inputs=[_dup("inputs"), _dup("initial_states"), _dup("parameters"), _dup("outputs"),
            _dup("outputs@GRAD"), "step_scopes",
            Slot("step_scopes@GRAD", dispensable=True,
                 comment="PaddlePaddle writes it; nothing reads it")],
    outputs=[_dup("inputs@GRAD"), _dup("initial_states@GRAD"), _dup("parameters@GRAD")],
    attrs=RNN_ATTRS, kernel=_recurrent_grad, raw=True,
    doc="run the grad block in each step scope, last step first; pass memory gradients back"))


def _identity_infer(x, *, dtype):
    if x is None:
        fail("X must be given")
    return x


def _same(x):
    return x


def _make_helper_grad(ctx, metas, *, dtype):
    zeros_like = ctx.xp.zeros_like
    return lambda x, out, dout: dout if dout is not None else zeros_like(x)


register(OpDef(
    "rnn_memory_helper", inputs=["X"], outputs=["Out"], attrs={"dtype": Attr("int", 5)},
    infer=_identity_infer, kernel=prepared(lambda ctx, metas, *, dtype: _same),
    grad=lambda g: [OpSpec("rnn_memory_helper_grad",
                           {"X": g.input("X"), "Out": g.output("Out"),
                            "Out@GRAD": g.output_grad("Out")},
                           {"X@GRAD": g.input_grad("X")}, dict(g.attrs))],
    doc="Out = X: names a step's memory or output inside an RNN step block"))
register(OpDef(
    "rnn_memory_helper_grad", inputs=["X", Slot("Out", dispensable=True),
                                      Slot("Out@GRAD", dispensable=True)],
    outputs=["X@GRAD"], attrs={"dtype": Attr("int", 5)},
    infer=lambda x, out, dout, *, dtype: x,
    kernel=prepared(_make_helper_grad),
    doc="X@GRAD = Out@GRAD (zeros when no gradient reached Out)"))
