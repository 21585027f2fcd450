"""The interpreter: what running a block's ops means, written once.

A block runs on an *env*: a list holding, at each position of its plan
(executor/plan.py), the value of the variable of that name. Running an op
is the same for every run::

    for each step of the plan:
        skip it if it is a preamble initializer whose outputs have values
        args = read(step, env)                 each input's value
        out = call_kernel(k, step, args)       the op's one kernel
        check out against the declarations    (until a run has passed)
        write(step, env, out)                  each output's value
        release(step, env)                     temporaries after their last use

:class:`Interpreter` keeps values as arrays in the env; a raw op (control
flow, rnn, feed, fetch), which reads its variables through scopes, runs in the
run scope that shows the env (``run_raw``, executor/env_scope.py). Its
subclasses add an observer or change where values live, not what an op means:
:class:`WatchedInterpreter` tells an observer (executor/env_watch.py, for a
Recorder) about each op of a run on an env; :class:`ScopeInterpreter` keeps a
sub-block's values in the tensors of its scope's Variables (a sub-block run in
a scope given to it, or one with control flow, or watched), and
:class:`RecordingInterpreter` is that loop watched. A profiler, a debugger or
a widget is one more subclass overriding ``run_op``.

Once a run of a plan has passed every check, :meth:`Interpreter.run` uses
the *compiled* form of the same loop: the steps written out as one Python
function (executor/unroll.py), with the same kernels, releases, skips and
errors, and no checks. It is a cached form of :meth:`Interpreter.interpret`;
a watched run's compiled form calls the observer's hooks too.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import OpRunError, ScopeDestroyedError
from paddle_nb.executor.declared import check_results
from paddle_nb.executor.failures import destroyed_during_run, op_plan_error, op_run_error
from paddle_nb.executor.plan import BlockPlan, Step, flat_positions, output_values
from paddle_nb.executor.unroll import unroll
from paddle_nb.ops.machinery.registry import Meta

__all__ = ["Interpreter", "WatchedInterpreter", "ScopeInterpreter", "RecordingInterpreter"]


class Interpreter:
    """Runs one BlockPlan's steps on an env of arrays, for one executor.

    Override points: ``run_op`` (one op, start to end), ``read`` (its arguments),
    ``call_kernel``, ``write`` (its results), ``release`` (temporaries past their
    last use), ``has_values`` (a preamble initializer's outputs), ``skip``,
    ``run_raw`` (a control-flow op), ``value`` (for error messages).
    """

    compiles = True          # run() may use the compiled form (envs of arrays only)

    def __init__(self, plan: BlockPlan, executor: Any, kernels: list | None = None) -> None:
        self.plan = plan
        self.executor = executor
        self.kernels = kernels if kernels is not None else \
            [_bound(step, plan, executor.ctx) for step in plan.steps]
        self.compiled: Callable | None = None
        self.watched: Callable | None = None    # the compiled form with an observer's hooks
        self.source: str | None = None      # the compiled form's source, once made

    @property
    def checking(self) -> bool:
        """Whether results are checked against their declarations: until a run passed."""
        return not self.plan.verified

    # -- the loop -----------------------------------------------------------------------------
    def run(self, env: list, scope: Any = None, made: int = 0) -> int:
        """Run the block on ``env``; return the peak bytes held (``made``: at the start).
        ``scope`` is the run scope raw ops see the env through (executor/env_scope.py)."""
        if self.compiles and self.plan.verified:
            compiled = self.compiled or self.compile()
            return compiled(env, made, scope)
        return self.interpret(env, scope, made)

    def interpret(self, env: list, scope: Any = None, made: int = 0) -> int:
        """The plain loop (what the compiled form does, plus the checks)."""
        peak = made
        for k, step in enumerate(self.plan.steps):
            if step.initializer and self.has_values(step, env):
                self.skip(step, scope)
                continue
            made += self.run_op(k, step, env, scope)
            if made > peak:
                peak = made
            made -= self.release(step, env)
        self.plan.verified = True
        return peak

    def run_op(self, k: int, step: Step, env: list, scope: Any) -> int:
        """Run step ``k``: its kernel on its inputs, its results written (checked first,
        while checking); return the bytes it made. A failure is an OpRunError naming the
        op, its line and its inputs."""
        try:
            if scope is not None and not scope.is_alive():   # (a kernel or another thread
                raise ScopeDestroyedError(f"scope {scope.id} was destroyed")  # destroyed it)
            if step.raw:
                return self.run_raw(step, env, scope)
            out = self.call_kernel(k, step, self.read(step, env))
            if self.checking:
                check_results(step, self.plan, out, env)
            return self.write(step, env, out)
        except OpRunError:
            raise
        except Exception as err:
            raise self.fail(k, env, err) from err

    # -- the override points ------------------------------------------------------------------
    def read(self, step: Step, env: list) -> list:
        """The step's arguments: each input's value (a list for a duplicable slot, None for
        an absent one)."""
        if step.simple_in:
            return [env[i] if i >= 0 else None for i in step.ins]
        return [[env[p] for p in i] if isinstance(i, tuple) else env[i] if i >= 0 else None
                for i in step.ins]

    def call_kernel(self, k: int, step: Step, args: list) -> Any:
        """The op's kernel, bound to its context and attributes, on ``args``."""
        return self.kernels[k](*args)

    def write(self, step: Step, env: list, out: Any) -> int:
        """Put the kernel's results in ``env``; return their bytes."""
        nbytes = 0
        for pos, value in output_values(step.outs, out):
            env[pos] = value
            nbytes += value.nbytes
        return nbytes

    def release(self, step: Step, env: list) -> int:
        """Drop the temporaries whose last use was ``step``; return their bytes."""
        nbytes = 0
        for pos in step.release:
            value = env[pos]
            if value is not None:
                nbytes += value.nbytes
                env[pos] = None
        return nbytes

    def has_values(self, step: Step, env: list) -> bool:
        """True when every output of ``step`` already has a value."""
        return all(env[pos] is not None for pos in flat_positions(step.outs))

    def skip(self, step: Step, scope: Any) -> None:
        """A preamble initializer was skipped (its outputs have values)."""

    def run_raw(self, step: Step, env: list, scope: Any) -> int:
        """Run a raw op (control flow, rnn, feed, fetch) in the run scope ``scope``, which
        shows ``env``: the values it reads lent to Variables first, what it wrote taken
        back after (executor/env_scope.py's Lending); return the bytes of those."""
        if scope is None:
            raise OpRunError(f"op #{step.index} '{step.op.type}' reads the scope: it cannot "
                             "run on an env without a run scope")
        executor = self.executor
        state, lending = executor.run_state, executor.lending(self.plan)
        lending.lend(step, env, scope, state, executor)
        try:
            executor.run_raw(step, scope)
        finally:
            made = lending.take_back(step, env, scope, state)
        return made

    def value(self, env: list, pos: int) -> Any:
        """The value at ``pos`` (for error messages)."""
        return env[pos]

    def fail(self, k: int, env: list, err: Exception) -> OpRunError:
        """The error of step ``k`` failing with ``err``."""
        plan, state = self.plan, self.executor.run_state
        unset = [plan.names[pos] for pos in plan.first_reads
                 if plan.persistable[pos] and self.value(env, pos) is None]
        if unset and not destroyed_during_run(state):
            # a parameter never initialized: say that, not what the op made of it
            plan.check_persistables_ready([self.value(env, p) for p in range(len(env))])
        return op_run_error(plan.steps[k], plan, functools.partial(self.value, env), err, state)

    # -- the compiled form --------------------------------------------------------------------
    def compile(self) -> Callable:
        """The loop written out for these steps (executor/unroll.py), cached."""
        steps = self.plan.steps
        kernels = [functools.partial(self.run_raw, step) if step.raw else kernel
                   for step, kernel in zip(steps, self.kernels)]
        function, self.source = unroll(f"block_{self.plan.block.idx}", steps, kernels,
                                       _store, self.fail)
        self.compiled = function       # (two threads may both compile it: either will do)
        return function


class WatchedInterpreter(Interpreter):
    """The env loop telling an observer about each op (a Recorder's ``EnvWatch``,
    executor/env_watch.py): ``op_started(k)``, ``allocated(pos, value, old)`` for each value
    it made (``old``: what ``pos`` held), ``freed(pos, value)`` for each temporary
    released after it, ``op_finished()``; ``skipped(k)`` for a preamble initializer
    skipped. The values, the kernels and the loop are the unwatched run's; the compiled
    form calls the same hooks (executor/unroll.py, ``observed``)."""

    def __init__(self, plan: BlockPlan, executor: Any, kernels: list, observer: Any) -> None:
        super().__init__(plan, executor, kernels)
        self.observer = observer
        if plan.has_raw:       # (its hooks are LiveWatch's, which the compiled form has not)
            self.compiles = False

    def run(self, env: list, scope: Any = None, made: int = 0) -> int:
        if self.compiles and self.plan.verified:
            return self.compile()(env, made, self.observer)
        return self.interpret(env, scope, made)

    def compile(self) -> Callable:
        """The watched compiled form, cached on the plan's Interpreter (``base``)."""
        base = self.plan.interpreter or self
        function = base.watched
        if function is None:        # (base's fail: the function must not keep this run alive)
            function, _ = unroll(f"block_{self.plan.block.idx}_watched", self.plan.steps,
                                 self.kernels, _store, base.fail, observed=self.plan.names)
            base.watched = function
        return function

    def run_op(self, k: int, step: Step, env: list, scope: Any) -> int:
        self.observer.op_started(k)
        return super().run_op(k, step, env, scope)

    def write(self, step: Step, env: list, out: Any) -> int:
        nbytes, allocated = 0, self.observer.allocated
        for pos, value in output_values(step.outs, out):
            allocated(pos, value, env[pos])
            env[pos] = value
            nbytes += value.nbytes
        return nbytes

    def release(self, step: Step, env: list) -> int:
        freed = self.observer.freed
        for pos in step.release:
            if env[pos] is not None:
                freed(pos, env[pos])
        nbytes = super().release(step, env)
        self.observer.op_finished()
        return nbytes

    def skip(self, step: Step, scope: Any) -> None:
        self.observer.skipped(self.plan.steps.index(step))


class ScopeInterpreter(Interpreter):
    """The same loop on an env of *cells*: the LoDTensor (or, for other kinds, the
    Variable) of each name in the scopes of the run, so that control-flow ops, which
    read variables through the scope, and whoever watches the scopes see every value
    (a sub-block's, or a block run in a scope of the caller's: ``Executor.run_block``).
    A tensor counts its own bytes."""

    compiles = False

    def read(self, step: Step, env: list) -> list:
        if step.simple_in:
            return [env[i].data if i >= 0 else None for i in step.ins]
        return [[env[p].data for p in i] if isinstance(i, tuple) else
                env[i].data if i >= 0 else None for i in step.ins]

    def write(self, step: Step, env: list, out: Any) -> int:
        place = self.executor.place
        for pos, value in output_values(step.outs, out):
            env[pos].hold(value, place)
        return 0

    def release(self, step: Step, env: list) -> int:
        for pos in step.release:
            env[pos].free()
        return 0

    def has_values(self, step: Step, env: list) -> bool:
        return all(env[pos].data is not None for pos in flat_positions(step.outs))

    def run_raw(self, step: Step, env: list, scope: Any) -> int:
        self.executor.run_raw(step, scope)
        return 0              # (its tensors count their own bytes)

    def value(self, env: list, pos: int) -> Any:
        cell = env[pos]
        return cell.data if isinstance(cell, LoDTensor) else cell


class RecordingInterpreter(ScopeInterpreter):
    """The scope loop telling ``recorder`` (executor/record.py) about each op: when it
    starts, when it and its releases are done, and which tensors it released."""

    def __init__(self, plan: BlockPlan, executor: Any, kernels: list, recorder: Any) -> None:
        super().__init__(plan, executor, kernels)
        self.recorder = recorder
        self.current: list = []        # the records of the ops running, innermost last

    @property
    def checking(self) -> bool:
        return True

    def run_op(self, k: int, step: Step, env: list, scope: Any) -> int:
        self.current.append(self.recorder.op_started(self.plan, step, scope))
        return super().run_op(k, step, env, scope)

    def release(self, step: Step, env: list) -> int:
        released = self.recorder.released
        for pos in step.release:
            released.add(id(env[pos]))
        super().release(step, env)
        self.recorder.op_finished(self.current.pop(), step)
        return 0

    def skip(self, step: Step, scope: Any) -> None:
        self.recorder.op_started(self.plan, step, scope).skipped = True


def _store(env: list, outs: tuple, out: Any) -> int:
    """Put a multi-output op's results in ``env``; return their bytes (the compiled form)."""
    nbytes = 0
    for pos, value in output_values(outs, out):
        env[pos] = value
        nbytes += value.nbytes
    return nbytes


def _bound(step: Step, plan: BlockPlan, ctx: Any) -> Callable:
    """The step's kernel with its context and attributes bound; one that fails while being
    made (fill_constant's constant, too big for memory) fails as the op."""
    try:
        return bind_kernel(step, plan, ctx)
    except Exception as err:
        raise op_plan_error(step, plan, err) from err


def bind_kernel(step: Step, plan: BlockPlan, ctx: Any) -> Callable:
    """The step's kernel with its context and attributes bound: for a kernel written in
    two steps (``registry.prepared``), the function it makes for the inputs' declared
    metas; else the kernel itself with them bound."""
    if step.raw:
        return step.kernel
    if step.wanted is not None:
        ctx = ctx.for_outputs(step.wanted)
    make = getattr(step.kernel, "make", None)
    if make is None:
        return functools.partial(step.kernel, ctx, **step.attrs)
    metas = [[_meta(plan.vars[p]) for p in i] if isinstance(i, tuple) else
             None if i == -1 else _meta(plan.vars[i]) for i in step.ins]
    unknown = any((m is None and i != -1) or (isinstance(m, list) and None in m)
                  for m, i in zip(metas, step.ins))
    return make(ctx, None if unknown else metas, **step.attrs)


def _meta(var: Any) -> Meta | None:
    try:
        if var is None or not var.is_tensor():
            return None
        return Meta(var.shape, var.dtype, var.lod_level)
    except Exception:
        return None
