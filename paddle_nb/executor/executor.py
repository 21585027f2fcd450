"""The Executor: runs blocks over scopes ("Design Doc: Block and Scope"'s Block.Run).

::

    run(program, feed, fetch_list, scope)
     ├─ check the feeds, find the plan (executor/plan.py), one RunState (staging.py)
     ├─ the global block on an env of arrays, with one interpreter: the persistables
     │   read from ``scope``, the feeds put in (a fed LoD beside its array); raw ops
     │   (control flow, rnn, feed/fetch) see the env through a ``run`` kid scope
     │   (executor/env_scope.py); Interpreter.run, or WatchedInterpreter when someone
     │   listens (the Recorder observes each op)
     ├─ fetch: the targets' values copied out
     └─ commit: every persistable written, all at once, finished even under Ctrl-C (a
        failed run writes nothing); the run scope destroyed, the env's peak bytes
        counted; then the listeners get the run's record
     each op: executor/interpreter.py; a control-flow op runs its sub-blocks through
     run_block in kid scopes, framed (executor/frames.py) unless the run is watched,
     on cells (Variables in the scopes: executor/cells.py) when it is

Persistable variables (parameters, optimizer state) live in the user's
scope; temporaries in the run's env (and, for the raw ops, its kid scopes),
gone when the run ends. A run that fails part-way, or that Ctrl-C stops,
leaves every persistable as it was; one that succeeds changes them all.
Listeners (``exe.subscribe``) belong to this executor: each gets a RunRecord
of each of its runs, and nothing is recorded without one; watching changes
where a sub-block's values live (cells, so the record shows them), never
what the global block runs on.

One Executor may be shared by threads running programs on different scopes:
what a run must undo on failure (its RunState) is kept per thread, and the
plans it caches are read-only once built. Two threads running in the *same*
scope race on its variables, as two PaddlePaddle executors would.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping
from typing import Any

import numpy

from paddle_nb.core.events import notify
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.place import CPUPlace, Place
from paddle_nb.core.scope import Scope, global_scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.errors import ScopeDestroyedError
from paddle_nb.executor.cells import bind, bound_var
from paddle_nb.executor.env_scope import Lending
from paddle_nb.executor.env_watch import EnvWatch, LiveWatch
from paddle_nb.executor.feeds import (check_feed, env_value, feed_dict, fetch_name, fetch_targets,
                                      fetched, fill_feed_list, to_place)
from paddle_nb.executor.frames import FramedBlock, FrameScope
from paddle_nb.executor.interpreter import (Interpreter, RecordingInterpreter, ScopeInterpreter,
                                            WatchedInterpreter)
from paddle_nb.executor.plan import BlockPlan, Step, check_persistable_dtype
from paddle_nb.executor.record import Recorder
from paddle_nb.executor.staging import RunState, env_writes
from paddle_nb.executor.step_runs import FramedContext
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Variable as FrameworkVariable
from paddle_nb.ops.machinery.context import KernelContext, scope_rules


__all__ = ["Executor"]


class Executor:
    """Runs programs on one place.

    >>> import numpy as np, paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[2])
    ...     y = pd.layers.relu(x)
    >>> pd.Executor(pd.CPUPlace()).run(prog, feed={"x": np.array([[-1., 2.]], "float32")},
    ...                                fetch_list=[y])
    [array([[0., 2.]], dtype=float32)]
    """

    def __init__(self, place: Place | None = None, seed: int | None = None,
                 scopes: str = "paddle_nb") -> None:
        if place is not None and not isinstance(place, Place):
            raise TypeError(f"Executor: expected a Place, got {place!r}")
        self.place = place or CPUPlace()
        self.ctx = KernelContext(self.place, seed)
        # whose step-scope rules control-flow ops follow: paddle_nb's, or "paddle" (PaddlePaddle
        # 2.6's: two alternating step scopes at inference, grad blocks in the forward scopes)
        self.ctx.scope_rules = scope_rules(scopes)
        self.listeners: list[Callable[[Any], Any]] = []
        self.record_values = False   # RunRecords hold variable values (host copies) when True
        self._plans: dict[tuple, BlockPlan] = {}
        self._plans_lock = threading.RLock()   # held to change _plans or to copy it
        self._runs = _PerThread()    # the RunState of the run in progress, one per thread
        # runs started (a Dashboard made after some says so) and the last run's record, when
        # someone listened: what a viewer attached late shows first
        self.run_count = 0
        self.last_record: Any = None
        self._counter = itertools.count(1)     # (next() is atomic: threads count exactly)

    @property
    def run_state(self) -> RunState | None:
        """The calling thread's RunState (None outside a run): what errors, the feeds and
        the control-flow ops consult about the run in progress."""
        return self._runs.state

    # -- subscribers ------------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[Any], Any]) -> Callable[[], None]:
        """Call ``listener(record)`` after each run of this executor; returns an unsubscribe."""
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    # -- the public entry points -----------------------------------------------------------------
    def run(self, program: Program | None = None, feed: Mapping | None = None,
            fetch_list: Any = None, scope: Scope | None = None,
            return_numpy: bool = True) -> list:
        """Run ``program``'s global block in ``scope``; return the fetched values."""
        program, scope = _program_and_scope(program, scope)
        self.run_count = next(self._counter)
        feed = feed_dict(feed)
        plan, fetch_names = self._global_plan(program, fetch_targets(fetch_list))
        fed_lods = check_feed(program, plan, feed)
        _write_scheduled_lr(program, scope, self.place)
        listeners = self.listeners        # this executor's own: watching one slows no other
        recorder = Recorder(program, scope, self) if listeners else None
        outer = self._runs.state          # (None, unless a kernel or a listener runs programs)
        state = RunState(program, scope, self.place, recorder)
        if fed_lods:              # (each beside its array in the env)
            state.lods = fed_lods
        failed = True
        try:
            self._runs.state = state
            results = self._run_on_env(plan, state, feed, fetch_names, return_numpy)
            state.commit()
            failed = False
        finally:
            # written out, not staging.uninterrupted: a Ctrl-C as that call starts would
            # escape before its loop
            interrupted = None
            try:
                while True:     # (repeatable: a Ctrl-C, even as a call starts, repeats it)
                    try:
                        if failed or recorder is not None or state.run_scope is not None:
                            state.end(failed)
                        # the run's own bytes (its env's), counted once its scopes are gone
                        MEMORY.transient_peak(self.place, state.peak)
                        break
                    except KeyboardInterrupt as err:
                        interrupted = err
            finally:            # (whatever the closing raised: the thread's state restored)
                self._runs.state = outer
                if recorder is not None:
                    self.last_record = recorder.record
                    notify(listeners, recorder.record)    # (an error: a warning)
            if interrupted is not None:
                raise interrupted
        return results

    def _run_on_env(self, plan: BlockPlan, state: RunState, feed: dict,
                    fetch_names: tuple, return_numpy: bool) -> list:
        """The global block on an env of arrays: the persistables the user's scope holds and
        the feeds put in (a fed LoD beside its array), a run scope over the env when raw ops
        need one (executor/env_scope.py), the ops run (watched by the run's Recorder, if
        any), the fetch targets read out, and every persistable written handed to the
        commit."""
        scope, place = state.user_scope, self.place
        env = [None] * len(plan.names)
        for pos in plan.persistables:
            var = scope.find_var(plan.names[pos])
            if var is not None and isinstance(var.holder, LoDTensor):
                env[pos] = var.holder.data
                check_persistable_dtype(plan, pos, env[pos])
        if plan.feed_ops:
            fill_feed_list(scope, plan, feed)
        fed, feeds, fed_persistables = 0, [], []
        fed_unread: list[tuple[str, Any]] = []
        elsewhere: list[tuple[str, Any]] | None = None
        for name, value in feed.items():    # (the run counts its feeds' bytes as its own)
            at = plan.position(name)
            if at is not None:
                env[at] = array = to_place(value, place)
                fed += array.nbytes
                feeds.append(array)
                if plan.persistable[at]:
                    fed_persistables.append(at)
            elif _declared_persistable(plan.block, name):   # no op uses it: still written
                fed_unread.append((name, to_place(value, place).copy()))
            elif elsewhere is None:                         # a sub-block's, if any
                elsewhere = [(name, value)]
            else:
                elsewhere.append((name, value))
        plan.check_persistables_ready(env)
        interpreter = plan.interpreter or self._interpreter(plan)
        ops = self.lending(plan).open(state, env, feeds, elsewhere or (), fed_persistables) \
            if plan.has_raw else None
        if state.recorder is not None:
            interpreter = _watched(interpreter, state, env, feed, ops)
        state.peak = interpreter.run(env, ops, fed)
        if ops is not None and state.recorder is not None:
            self.lending(plan).settle(env, ops, state)     # (the record shows it)
        lods = state.lods
        results = [fetched(plan, name, env_value(plan, env, scope, feed, name, place),
                           lods.get(name), place, return_numpy) for name in fetch_names]
        if not scope.is_alive():   # destroyed while the block ran (a kernel, another thread)
            raise _destroyed_meanwhile(scope)
        writes = env_writes(plan, env, place, fed_persistables, feeds) + fed_unread
        if ops is not None:
            writes += self.lending(plan).raw_writes(env, state, ops)
        state.defer(writes)
        return results

    def eval(self, targets: Any, program: Program | None = None, feed: Mapping | None = None,
             scope: Scope | None = None) -> list:
        """Prune ``program`` to what ``targets`` need, then run it ("Design Doc: Block and
        Scope"'s Eval)."""
        program = default_main_program() if program is None else program
        names = [fetch_name(program, t) for t in fetch_targets(targets)]
        pruned = program.prune(names)
        feed = {k: v for k, v in feed_dict(feed).items() if pruned.global_block().find_var(k)}
        return self.run(pruned, feed=feed, fetch_list=names, scope=scope)

    def cached_plans(self) -> list[tuple]:
        """``(program, version, block_idx, keep)`` of each block plan this executor holds,
        oldest first. A plan (each op's kernel, completed attributes and variable positions)
        is made on a block's first run and reused while the program's ``version`` (which
        every edit increases) and the names kept (the fetch targets) stay the same."""
        with self._plans_lock:      # a copy: other threads may be adding plans
            items = list(self._plans.items())
        return [(plan.program_ref, version, block_idx, keep)
                for (_, version, block_idx, keep), plan in items]

    # -- running blocks ----------------------------------------------------------------------
    def run_block(self, program: Program, block_idx: int, scope: Scope, keep: tuple = (),
                  values: dict | None = None) -> None:
        """Run every op of block ``block_idx`` in ``scope``.

        ``keep`` names temporaries not to release after their last use (the
        fetch targets); sub-blocks release nothing, since the backward pass
        reads their step scopes. ``values`` (name -> array) are put in
        ``scope`` first, as the block's own variables.

        Unwatched, a sub-block without control flow run in one of the
        executor's scopes runs on an env it leaves in ``scope`` as a Frame
        (executor/frames.py): Variables are made only if someone asks.
        """
        self._run_planned(self._plan(program, block_idx, keep), scope, values)

    def _run_planned(self, plan: BlockPlan, scope: Scope, values: dict | None = None,
                     reuse: dict | None = None, state: RunState | None = None) -> None:
        """Run sub-block ``plan`` in ``scope``: framed when nobody watches the run, else on
        cells (Variables in ``scope``). ``state`` is the calling thread's RunState (looked
        up when not given)."""
        if state is None:
            state = self._runs.state
        recorder = state.recorder if state is not None else None
        if plan.framed and recorder is None and isinstance(scope, FrameScope):
            self._framed_block(plan).run(scope, values, reuse)
            return
        if values:
            for name, array in values.items():
                scope.var(name).get_tensor().hold(array, self.place)
        base = plan.interpreter or self._interpreter(plan)
        interpreter: ScopeInterpreter
        if recorder is not None:
            interpreter = RecordingInterpreter(plan, self, base.kernels, recorder)
        else:
            interpreter = plan.scope_interpreter
            if interpreter is None:
                interpreter = plan.scope_interpreter = ScopeInterpreter(plan, self, base.kernels)
        interpreter.run(bind(plan, scope, state), scope)

    def _framed_block(self, plan: BlockPlan) -> FramedBlock:
        """The plan's FramedBlock (made once; the plan must be ``framed``)."""
        framed = plan.framed_block
        if framed is None:
            framed = plan.framed_block = FramedBlock(plan.interpreter or self._interpreter(plan))
        return framed

    def _interpreter(self, plan: BlockPlan) -> Interpreter:
        """The plan's Interpreter for this executor (its kernels bound once)."""
        plan.interpreter = Interpreter(plan, self)
        return plan.interpreter

    def lending(self, plan: BlockPlan) -> Lending:
        """How the plan's raw ops see its env (executor/env_scope.py), made once."""
        lending = plan.lending
        if lending is None:
            lending = plan.lending = Lending(plan)
        return lending

    def run_raw(self, step: Step, scope: Scope) -> None:
        """Run a control-flow (or feed, fetch, LoD) op in ``scope``: its kernel gets the
        scope, the op, and a runner of its sub-blocks."""
        state = self._runs.state
        run_sub_block, framed_of = self._sub_block_runner(step.op, state)
        ctx = FramedContext(self.ctx, scope, step.op, step.attrs, run_sub_block, state)
        ctx.framed_of = framed_of
        step.kernel(ctx)

    def _sub_block_runner(self, op: Any, state: RunState | None) -> tuple[Callable, Callable]:
        """(run_sub_block, framed_of): the function a control-flow op calls to run its
        sub-blocks, within the run whose RunState is ``state`` (the op runs on that run's
        thread), and the one giving a sub-block's FramedBlock when unrecorded runs of it
        go framed (else None)."""
        program = op.block.program
        # the op runs its sub-block many times: find the plan once, and, if the op allows,
        # what its blocks read from above
        plans: dict[int, BlockPlan] = {}
        reuse: dict[str, Any] = {}

        def plan_of(block_idx: int) -> BlockPlan:
            plan = plans.get(block_idx)
            if plan is None:
                plan = plans[block_idx] = self._plan(program, block_idx, ())
            return plan

        def run_sub_block(block_idx: int, scope: Scope, values: dict | None = None,
                          same_outer: bool = False) -> None:
            self._run_planned(plan_of(block_idx), scope, values, reuse if same_outer else None,
                              state)

        def framed_of(block_idx: int) -> FramedBlock | None:
            plan = plan_of(block_idx)
            run = state if state is not None else self._runs.state
            recorded = run is not None and run.recorder is not None
            return self._framed_block(plan) if plan.framed and not recorded else None
        return run_sub_block, framed_of

    # -- preparing and binding -------------------------------------------------------------------
    def _global_plan(self, program: Program, targets: list) -> tuple[BlockPlan, tuple]:
        """The global block's plan for fetching ``targets``, and the fetch names. The names
        are checked (fetch_name) when the plan is made: a cached plan's were checked then,
        for this version of the program."""
        names = tuple(t.name if isinstance(t, FrameworkVariable) else t for t in targets)
        try:
            plan = self._plans.get((id(program), program.version, 0, names))
        except TypeError:          # an unhashable target: fetch_name says what is wrong
            plan = None
        if plan is None:
            names = tuple(fetch_name(program, t) for t in targets)
            plan = self._plan(program, 0, names)
        return plan, names

    def _plan(self, program: Program, block_idx: int, keep: tuple) -> BlockPlan:
        key = (id(program), program.version, block_idx, keep)
        plan = self._plans.get(key)
        if plan is None:
            plan = BlockPlan(program, block_idx)
            plan.check_only_used(set(keep))
            if block_idx == 0:
                plan.plan_releases(set(keep))
            plan.program_ref = program   # keeps id(program) from being reused while cached
            with self._plans_lock:
                if len(self._plans) > 64:
                    self._plans.clear()
                self._plans[key] = plan
        return plan

    def bound_var(self, plan: BlockPlan, pos: int, scope: Scope) -> Variable:
        """The Variable that a block run in ``scope`` reads and writes for a name it does
        not make itself (executor/cells.py): the scope loop binds with it, a framed block
        writes back with it."""
        return bound_var(plan, pos, scope, self._runs.state)


def _program_and_scope(program: Program | None, scope: Scope | None
                       ) -> tuple[Program, Scope]:
    """``run``'s program and scope (the defaults for None), checked."""
    program = default_main_program() if program is None else program
    if not isinstance(program, Program):
        raise TypeError(f"Executor.run: expected a Program, got {type(program).__name__}")
    scope = global_scope() if scope is None else scope
    if not isinstance(scope, Scope):
        raise TypeError(f"Executor.run: expected a Scope, got {type(scope).__name__}")
    if not scope.is_alive():
        raise ScopeDestroyedError(f"Executor.run: scope {scope.id} was destroyed before the "
                                  "run; expected a live scope (make one with pd.Scope())")
    return program, scope


def _write_scheduled_lr(program: Program, scope: Scope, place: Place) -> None:
    """A program trained with a learning-rate scheduler (``program.lr_scheduler``, set by
    the optimizer) runs with the scheduler's current value, as PaddlePaddle's Executor
    writes it into the learning-rate variable before each run."""
    if program.lr_scheduler is None:
        return
    var = program.global_block().vars.get(program.lr_var_name or "")
    if var is None or var.shape is None:
        return
    value = numpy.full(tuple(var.shape), program.lr_scheduler(), dtype=var.dtype)
    (scope.find_var(var.name) or scope.var(var.name)).get_tensor().set(value, place)


def _watched(interpreter: Interpreter, state: RunState, env: list, feed: dict,
             ops: Scope | None) -> WatchedInterpreter:
    """``interpreter``'s loop observed by the run's Recorder: through an EnvWatch, or a
    LiveWatch when raw ops run in scopes (``ops``: theirs)."""
    plan, recorder = interpreter.plan, state.recorder
    watch = EnvWatch(recorder, plan, env, feed) if ops is None else \
        LiveWatch(recorder, plan, state.run_scope, ops, env, feed)
    return WatchedInterpreter(plan, interpreter.executor, interpreter.kernels, watch)


def _destroyed_meanwhile(scope: Scope) -> ScopeDestroyedError:
    return ScopeDestroyedError(
        f"the scope of the run (scope {scope.id}) was destroyed while the program ran "
        "(by a kernel or another thread): its results could not be written back")


def _declared_persistable(block: Any, name: str) -> bool:
    var = block.find_var(name)
    return var is not None and var.persistable


class _PerThread(threading.local):
    state: RunState | None = None
