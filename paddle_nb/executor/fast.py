"""The fast path: a block without control flow, run on a list of arrays.

When nobody records a run or listens to the core's events, and the global
block has no raw op (control flow, feed, fetch), nothing can observe the
run's local scope, so the executor
skips making a Variable and a LoDTensor for every temporary: values live
in a list indexed like the plan's names, each kernel is pre-bound to its
context and attributes, and a temporary is dropped after its last use.
Persistable results are staged in the list and written to the user's
scope only when every op has succeeded: a failed run changes nothing.
Semantics are those of ``run_block``; the tests run both paths.
"""

import functools

from paddle_nb.core.memory import MEMORY
from paddle_nb.core.scope import Frame
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.executor.plan import flat_positions
from paddle_nb.ops.registry import Meta

__all__ = ["FastBlock"]


class FastBlock:
    """A BlockPlan compiled for one executor's context."""

    def __init__(self, plan, ctx):
        self.plan = plan
        self.calls = []
        for step in plan.steps:
            fn = _bind_kernel(step, plan, ctx)
            single = len(step.outs) == 1 and not isinstance(step.outs[0], tuple)
            arity = len(step.ins) if step.simple_in and len(step.ins) <= 3 else -1
            self.calls.append((fn, step.ins, arity, step.outs, single, step.release,
                               step.initializer, step))
        self.persistable = [p for p, is_p in enumerate(plan.persistable) if is_p]
        written = {p for step in plan.steps for p in flat_positions(step.outs)}
        self.written = sorted(p for p in written if plan.persistable[p])
        # for sub-blocks run on frames: the block's own names, the others, and which of
        # those the block writes
        self.local_index = {n: p for p, n in enumerate(plan.names) if plan.local[p]}
        self.outer = [p for p in range(len(plan.names)) if not plan.local[p]]
        self.written_outer = sorted(p for p in written if not plan.local[p])
        self.written_any = sorted(written)

    def run(self, executor, scope, feed_arrays, fetch_positions):
        """Run the global block: persistables read from ``scope``, feeds put in place."""
        plan = self.plan
        env = [None] * (len(plan.names) + 1)     # the last slot stays None: position -1
        for pos in self.persistable:
            var = scope.find_var(plan.names[pos])
            if var is not None and isinstance(var._holder, LoDTensor):
                env[pos] = var._holder._array
        for pos, array in feed_arrays:
            env[pos] = array
        executor._check_persistables_ready(plan, env)
        MEMORY.transient_peak(executor.place, self._execute(executor, env))
        return env

    def run_framed(self, executor, scope, values, stage):
        """Run a sub-block in ``scope``, leaving its own variables there as a Frame.

        ``values`` (name -> array) seeds the block's variables, as a control-flow
        op puts a step's inputs in the step scope. Variables of outer scopes are
        read through the scope chain without making Variables of frames; those
        the block writes are written back when it has run (``stage(var)`` first,
        so a failed run can put persistables back).
        """
        plan = self.plan
        names = plan.names
        env = [None] * (len(names) + 1)
        index = self.local_index
        if scope._vars:        # variables the caller made in the scope itself: bound, not framed
            index = {n: p for n, p in index.items() if n not in scope._vars}
        for pos in self.outer:
            env[pos] = scope._find_array(names[pos])
        if len(index) != len(self.local_index):
            for name, pos in self.local_index.items():
                if name not in index:
                    env[pos] = scope._find_array(name)
        if values:
            position = plan._pos
            for name, array in values.items():
                pos = position.get(name)
                if pos is not None:
                    env[pos] = array
                if name not in index:    # not one of the block's own: a Variable in the scope
                    scope.var(name).get_tensor()._hold(array, executor.place)
        self._execute(executor, env)
        place = executor.place
        for pos in self.written_outer if index is self.local_index else self.written_any:
            name = names[pos]
            if name not in index and env[pos] is not None:
                var = scope.find_var(name) or executor._outer_scope(plan, name, scope).var(name)
                stage(var)
                tensor = var.get_tensor()
                if tensor._array is not env[pos]:
                    tensor._hold(env[pos], place)
        scope._attach_frame(Frame(index, env, place))

    def _execute(self, executor, env):
        """Run every step on ``env``; return the peak bytes of the values made."""
        plan = self.plan
        in_use = peak = 0
        for fn, ins, arity, outs, single, release, init, step in self.calls:
            if init and all(env[p] is not None for p in outs if p >= 0):
                continue
            try:
                if arity == 2:
                    out = fn(env[ins[0]], env[ins[1]])
                elif arity == 1:
                    out = fn(env[ins[0]])
                elif arity == 3:
                    out = fn(env[ins[0]], env[ins[1]], env[ins[2]])
                elif arity == 0:
                    out = fn()
                else:
                    out = fn(*_gather(env, ins))
            except Exception as err:
                raise executor._op_error_env(step, plan, env, err) from err
            if single:
                env[outs[0]] = out
                in_use += out.nbytes
            else:
                in_use += _store(env, outs, out)
            if in_use > peak:
                peak = in_use
            for pos in release:
                value = env[pos]
                if value is not None:
                    in_use -= value.nbytes
                    env[pos] = None
        return peak

    def commit(self, scope, env, place):
        """Write the persistables the block wrote back to the user's scope."""
        plan = self.plan
        for pos in self.written:
            array = env[pos]
            if array is None:
                continue
            name = plan.names[pos]
            var = scope.find_var(name) or scope.var(name)
            tensor = var.get_tensor()
            if tensor._array is not array:
                tensor._hold(array, place)


def _bind_kernel(step, plan, ctx):
    """The step's kernel with its context and attributes bound, or a direct array
    function when the op offers one for these input metas (``OpDef.direct``)."""
    if step.wanted is not None:
        ctx = ctx.for_outputs(step.wanted)
    direct = step.opdef.direct
    if direct is not None and all(i != -1 for i in step.ins):
        metas = [[_meta(plan.vars[p]) for p in i] if isinstance(i, tuple) else _meta(plan.vars[i])
                 for i in step.ins]
        if not any(m is None or (isinstance(m, list) and None in m) for m in metas):
            fn = direct(ctx, metas, step.attrs)
            if fn is not None:
                return fn
    return functools.partial(step.kernel, ctx, **step.attrs)


def _meta(var):
    try:
        return Meta(var.shape, var.dtype, var.lod_level) if var is not None and var.is_tensor() else None
    except Exception:
        return None


def _gather(env, ins):
    args = []
    for i in ins:
        if isinstance(i, tuple):
            args.append([env[p] for p in i])
        else:
            args.append(env[i] if i >= 0 else None)
    return args


def _store(env, outs, out):
    """Put a multi-output op's results in ``env``; return their bytes."""
    if len(outs) == 1:
        out = (out,)
    nbytes = 0
    for pos, value in zip(outs, out):
        if value is None:
            continue
        if isinstance(pos, tuple):
            for p, v in zip(pos, value):
                if v is not None:
                    env[p] = v
                    nbytes += v.nbytes
        elif pos >= 0:
            env[pos] = value
            nbytes += value.nbytes
    return nbytes
