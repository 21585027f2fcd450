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

The first run of a block checks each result against the dtype and shape
the program declares (executor/declared.py); once a run has passed, the
block is compiled again without the checks, which cost as much as a small
op's dispatch.
"""

import functools

from paddle_nb.core.memory import MEMORY
from paddle_nb.core.scope import Frame
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import ScopeDestroyedError
from paddle_nb.executor.declared import check_results
from paddle_nb.executor.failures import op_plan_error, op_run_error
from paddle_nb.executor.plan import check_persistable_dtype, flat_positions, output_values
from paddle_nb.executor.unroll import unroll
from paddle_nb.ops.registry import Meta

__all__ = ["FastBlock", "write_back"]


class FastBlock:
    """A BlockPlan compiled for one executor: its steps unrolled into one function
    (``source`` shows it; see executor/unroll.py)."""

    def __init__(self, plan, executor):
        self.plan = plan
        self.executor = executor
        self._kernels = [self._bind(step) for step in plan.steps]
        # the first run checks each result against its declaration; once one has passed,
        # run_checked turns False and the next run compiles the block without the checks
        self.run_checked = True
        self._checked, self.source = unroll(f"block_{plan.block.idx}", plan.steps,
                                            self._kernels, _store, self._fail, self._check)
        self._plain = None
        self.persistable = [p for p, is_p in enumerate(plan.persistable) if is_p]
        written = {p for step in plan.steps for p in flat_positions(step.outs)}
        self.written = sorted(p for p in written if plan.persistable[p])
        # for sub-blocks run on frames: the block's own names, the others, and which of
        # those the block writes
        self.local_index = {n: p for p, n in enumerate(plan.names) if plan.local[p]}
        self.outer = [p for p in range(len(plan.names)) if not plan.local[p]]
        self.written_outer = sorted(p for p in written if not plan.local[p])
        # persistables the block reads before writing: each run checks they have a value
        self.needs = [p for p in plan.first_reads if plan.persistable[p]]
        self._linkage = (None, None, None)      # see _link
        self.written_any = sorted(written)

    def run(self, scope, feed_arrays):
        """Run the global block: persistables read from ``scope``, feeds put in place."""
        plan, executor = self.plan, self.executor
        env = [None] * len(plan.names)
        for pos in self.persistable:
            var = scope.find_var(plan.names[pos])
            if var is not None and isinstance(var.holder, LoDTensor):
                env[pos] = var.holder.data
                check_persistable_dtype(plan, pos, env[pos])
        fed = 0                 # the run holds its feeds (copies) as the scope loop does
        for pos, array in feed_arrays:
            env[pos] = array
            fed += array.nbytes
        plan.check_persistables_ready(env)
        MEMORY.transient_peak(executor.place, self._function()(env, fed))
        self.run_checked = False
        return env

    def _check(self, k, out, env):
        check_results(self.plan.steps[k], self.plan, out, env)

    def _function(self):
        """The unrolled block: checked until a run has passed, then plain (compiled on the
        first run that needs it, so a program run once, a startup program, compiles once)."""
        if self.run_checked:
            return self._checked
        plain = self._plain
        if plain is None:
            plain, self.source = unroll(f"block_{self.plan.block.idx}", self.plan.steps,
                                        self._kernels, _store, self._fail)
            self._plain = plain        # (two threads may both compile it: either will do)
        return plain

    def run_framed(self, scope, values, reuse=None):
        """Run a sub-block in ``scope``, leaving its own variables there as a Frame.

        ``values`` (name -> array) seeds the block's variables, as a control-flow
        op puts a step's inputs in the step scope. Variables of outer scopes are
        read through the scope chain without making Variables of frames; those
        the block writes are written back when it has run, to the Variables that
        ``Executor.bound_var`` finds or makes (persistables staged, so a failed
        run puts them back). ``reuse``, when the control-flow op promises that
        nothing but its blocks changes outer variables while it runs them (an
        RNN), is a dict in which it keeps what its block runs looked up.
        """
        plan, executor, local = self.plan, self.executor, self.local_index
        names = plan.names
        if scope.frame is not None:    # the block ran in this scope before: its Variables now
            scope.materialize()
        made_here = scope.own_vars
        up = scope.up
        if not made_here and up is not None:      # the usual case: a new kid scope
            index = local
            env = self._bind_outer(up, reuse)
        else:
            # variables made in the scope itself (by the caller, or from the frame) are
            # bound, not framed
            index = {n: p for n, p in local.items() if n not in made_here} if made_here else local
            env = [None] * len(names)
            for pos in self.outer:
                env[pos] = scope.find_array(names[pos])
            if index is not local:
                for name, pos in local.items():
                    if name not in index:
                        env[pos] = scope.find_array(name)
        if values:
            for name, array in values.items():
                pos = index.get(name)
                if pos is not None:
                    env[pos] = array
                    continue
                pos = plan.position(name)   # not one of the block's own: a Variable in the scope
                if pos is not None:
                    env[pos] = array
                scope.var(name).get_tensor().hold(array, executor.place)
        made = self._function()(env)   # nothing is released: the peak is all made (a parameter
        #                                with no value fails in _fail, clearly)
        self.run_checked = False
        place = executor.place
        for pos in self.written_outer if index is local else self.written_any:
            name = names[pos]
            if name not in index and env[pos] is not None:
                tensor = executor.bound_var(plan, pos, scope).get_tensor()
                made -= env[pos].nbytes             # counted by the tensor, not the frame
                if tensor.data is not env[pos]:
                    tensor.hold(env[pos], place)
                if reuse:                           # what other runs looked up may be stale
                    reuse.clear()
        scope.attach_frame(Frame(index, env, place, made))

    def _bind_outer(self, parent, reuse):
        """A new env with the outer names' values, for a scope (a kid of ``parent``)
        holding nothing of the block's yet. Within one run of a control-flow op (``reuse``),
        the values found above the scope's parent are found once (unless the block writes
        outer variables) and copied from a template."""
        frame = parent.frame
        anchor, positions = parent, self.outer
        if frame is not None:
            # a grad block reads what the forward step left in the parent's frame (the
            # same layout every step); the other outer names lie above the parent
            linked, links, positions = self._linkage
            if linked is not frame.index:
                linked, links, positions = self._link(frame.index)
            if not parent.own_vars and parent.up is not None:
                anchor = parent.up
        hit = reuse.get(self) if reuse is not None else None
        if hit is not None and hit[0] is anchor and hit[1] is positions:
            env = hit[2].copy()
        else:
            names = self.plan.names
            template = [None] * len(names)
            for pos in positions:
                template[pos] = anchor.find_array(names[pos])
            if reuse is not None and not self.written_outer:
                reuse[self] = (anchor, positions, template)
            env = template.copy()
        if frame is not None:
            arrays = frame.arrays
            for pos, at in links:
                env[pos] = arrays[at]
        return env

    def _link(self, index):
        """Remember where the outer names lie in a parent frame of layout ``index``: one
        tuple, replaced whole, so a thread sharing this block never reads half of it."""
        names = self.plan.names
        links = [(pos, index[names[pos]]) for pos in self.outer if names[pos] in index]
        unlinked = [pos for pos in self.outer if names[pos] not in index]
        self._linkage = (index, links, unlinked)
        return self._linkage

    def _bind(self, step):
        """The step's bound kernel; a direct form that fails while being built (a
        constant too big for memory) fails as the op, naming it and its line."""
        try:
            return _bind_kernel(step, self.plan, self.executor.ctx)
        except Exception as err:
            raise op_plan_error(step, self.plan, err) from err

    def _fail(self, k, env, err):
        for pos in self.needs:     # a parameter never initialized (no startup program run):
            if env[pos] is None:   # say that, not what the op made of the missing value
                self.plan.check_persistables_ready(env)
        return op_run_error(self.plan.steps[k], self.plan, lambda pos: env[pos], err,
                            self.executor.run_state)

    def commit(self, scope, env, place, fed=(), feeds=(), unread=()):
        """Write the persistables the block wrote, and those fed (as PaddlePaddle does),
        back to the user's scope, all or none (see :func:`write_back`). No scope keeps a
        caller's array (the scope path copies each feed into its scope): a fed persistable
        is copied, and so is a result that is a view of one of the ``feeds`` (a reshape2 of
        a feed into a parameter). ``unread``: (name, array) of fed persistables no op reads."""
        if not scope.is_alive():   # destroyed while the block ran (a kernel, another thread)
            raise ScopeDestroyedError(
                f"the scope of the run (scope {scope.id}) was destroyed while the program ran "
                "(by a kernel or another thread): its results could not be written back")
        names = self.plan.names
        writes = []                # everything computed first: the swap below only assigns
        for pos in self.written:
            array = env[pos]
            if array is not None:
                if array.base is not None and _views_any(array, feeds, place):
                    array = array.copy()
                writes.append((names[pos], array))
        for pos in fed:
            if env[pos] is not None and pos not in self.written:
                writes.append((names[pos], env[pos].copy()))
        writes.extend((name, array.copy()) for name, array in unread)
        write_back(scope, writes, place)


def write_back(scope, writes, place):
    """Give each user variable of ``writes`` ((name, array); found up the scopes, else made)
    its new array, all of them even if a KeyboardInterrupt arrives part-way (Ctrl-C, at any
    bytecode): the interrupt is held until every variable holds its new array, then raised.
    Each write is repeatable (a variable already holding its array is left alone), so a
    write cut short is simply done again; the user's scope is never left half old, half new."""
    interrupted = None
    while True:
        try:
            for name, array in writes:
                tensor = (scope.find_var(name) or scope.var(name)).get_tensor()
                if tensor.data is not array:
                    tensor.hold(array, place)
            break
        except KeyboardInterrupt as err:     # finish the swap first
            interrupted = err
    if interrupted is not None:
        raise interrupted


def _views_any(array, feeds, place):
    """True when ``array`` may share memory with one of ``feeds`` (a bounds check)."""
    shares = place.xp.may_share_memory
    return any(shares(array, feed) for feed in feeds)


def _bind_kernel(step, plan, ctx):
    """The step's kernel with its context and attributes bound, or a direct array
    function when the op offers one for these input metas (``OpDef.direct``)."""
    if step.wanted is not None:
        ctx = ctx.for_outputs(step.wanted)
    direct = step.opdef.direct
    # an absent dispensable slot (fill_constant's ShapeTensor) leaves the direct form possible
    if direct is not None and all(i != -1 or s.dispensable
                                  for i, s in zip(step.ins, step.opdef.inputs)):
        metas = [[_meta(plan.vars[p]) for p in i] if isinstance(i, tuple) else
                 None if i == -1 else _meta(plan.vars[i]) for i in step.ins]
        if not any((m is None and i != -1) or (isinstance(m, list) and None in m)
                   for m, i in zip(metas, step.ins)):
            fn = direct(ctx, metas, step.attrs)
            if fn is not None:
                return fn
    return functools.partial(step.kernel, ctx, **step.attrs)


def _meta(var):
    try:
        return Meta(var.shape, var.dtype, var.lod_level) if var is not None and var.is_tensor() else None
    except Exception:
        return None


def _store(env, outs, out):
    """Put a multi-output op's results in ``env``; return their bytes."""
    nbytes = 0
    for pos, value in output_values(outs, out):
        env[pos] = value
        nbytes += value.nbytes
    return nbytes
