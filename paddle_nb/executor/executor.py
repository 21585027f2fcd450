"""The Executor: runs blocks over scopes ("Design Doc: Block and Scope"'s Block.Run).

::

    run(program, feed, fetch_list, scope)
     ├─ unwatched, no control flow in the global block: one env of arrays
     │   (persistables read from ``scope``, feeds), Interpreter.run, fetch from the env,
     │   commit the persistables it wrote to ``scope`` all at once (staging.write_back)
     └─ otherwise: a ``run`` kid scope of ``scope``; the block's variables bound as cells
         (ScopeInterpreter, RecordingInterpreter when watched); persistables staged,
         restored if the run fails
     each op: executor/interpreter.py; a control-flow op runs its sub-blocks through
     run_block in kid scopes, framed (executor/frames.py) when nobody watches

Persistable variables (parameters, optimizer state) live in the user's
scope; temporaries in the run's env or its kid scope, gone when the run ends.
A run that fails part-way, or that Ctrl-C stops, leaves every persistable as
it was; one that succeeds changes them all. Listeners (``exe.subscribe``)
receive a RunRecord of each run; with none, nothing is recorded.

One Executor may be shared by threads running programs on different scopes:
what a run must undo on failure (its RunState) is kept per thread, and the
plans it caches are read-only once built. Two threads running in the *same*
scope race on its variables, as two PaddlePaddle executors would.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy

from paddle_nb.core.events import EVENTS
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.place import CPUPlace, Place
from paddle_nb.core.scope import Scope, global_scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.errors import FetchError, ScopeDestroyedError
from paddle_nb.executor.feeds import (check_feed, feed_dict, feed_scope, fetch_from_scope,
                                      fetch_name, fetch_targets, has_lod)
from paddle_nb.executor.frames import FramedBlock, FrameScope
from paddle_nb.executor.step_runs import FramedContext
from paddle_nb.executor.interpreter import Interpreter, RecordingInterpreter, ScopeInterpreter
from paddle_nb.executor.plan import BlockPlan, Step, check_persistable_dtype
from paddle_nb.executor.record import Recorder
from paddle_nb.executor.staging import RunState, views_any, write_back
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.program import Program
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
        """The calling thread's RunState (None outside a run on cells): what errors and
        the feeds consult about the run in progress."""
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
        program = default_main_program() if program is None else program
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: expected a Program, got {type(program).__name__}")
        scope = global_scope() if scope is None else scope
        if not isinstance(scope, Scope):
            raise TypeError(f"Executor.run: expected a Scope, got {type(scope).__name__}")
        if not scope.is_alive():
            raise ScopeDestroyedError(f"Executor.run: scope {scope.id} was destroyed before the "
                                      "run; expected a live scope (make one with pd.Scope())")
        self.run_count = next(self._counter)
        feed = feed_dict(feed)
        fetch_names = [fetch_name(program, f) for f in fetch_targets(fetch_list)]
        plan = self._plan(program, 0, tuple(fetch_names))
        feed_targets = check_feed(program, plan, feed)
        _write_scheduled_lr(program, scope, self.place)     # both paths below read it
        listeners = self.listeners        # this executor's own: watching one slows no other
        if not listeners and not EVENTS.active and not plan.has_raw and not has_lod(feed):
            return self._run_fast(plan, scope, feed, fetch_names, return_numpy)
        return self._run_scoped(program, plan, scope, feed, feed_targets, fetch_names,
                                return_numpy, listeners)

    def _run_scoped(self, program, plan, scope, feed, feed_targets, fetch_names, return_numpy,
                    listeners):
        """The run on Variables in a ``run`` kid scope of ``scope``. Whatever stops it (an
        op's error, Ctrl-C at any point), the one ``finally`` puts every persistable back
        (a failed run) and destroys the run scope, finishing that even if interrupted;
        listeners hear of the run only then, and their errors are warnings."""
        recorder = Recorder(program, scope, self) if listeners else None
        state = run_scope = None
        failed = True
        try:
            run_scope = scope.new_scope(label="run", kind=FrameScope)
            state = self._runs.state = RunState(program, scope, run_scope, recorder)
            if recorder:            # before the feed, so the record has the fed tensors' allocation
                recorder.start()
            feed_scope(self, program, plan, run_scope, feed, feed_targets)
            self.run_block(program, 0, run_scope, keep=tuple(fetch_names))
            results = fetch_from_scope(self, program, run_scope, fetch_names, return_numpy)
            failed = False
        finally:
            interrupted = None
            while True:             # (an interrupt here is held until the scope is whole)
                try:
                    _end_run(state, run_scope, recorder, failed)
                    break
                except KeyboardInterrupt as err:
                    interrupted = err
            self._runs.state = None
            if recorder is not None:
                self.last_record = recorder.record
                _notify(listeners, recorder.record)
            if interrupted is not None:
                raise interrupted
        return results

    def _run_fast(self, plan, scope, feed, fetch_names, return_numpy):
        """The run on an env of arrays: nothing is written to ``scope`` until every op has
        run, then every persistable written or fed at once."""
        interpreter = plan.interpreter or self._interpreter(plan)
        env = [None] * len(plan.names)
        for pos in plan.persistables:
            var = scope.find_var(plan.names[pos])
            if var is not None and isinstance(var.holder, LoDTensor):
                env[pos] = var.holder.data
                check_persistable_dtype(plan, pos, env[pos])
        fed, feeds, fed_persistables, fed_unread = 0, [], [], []
        for name, value in feed.items():    # the run holds its feeds as the scope loop does
            pos = plan.position(name)
            if pos is not None:
                env[pos] = array = self._to_place(value)
                fed += array.nbytes
                feeds.append(array)
                if plan.persistable[pos]:
                    fed_persistables.append(pos)
            elif _declared_persistable(plan.block, name):   # no op uses it: still written
                fed_unread.append((name, self._to_place(value).copy()))
        plan.check_persistables_ready(env)
        MEMORY.transient_peak(self.place, interpreter.run(env, None, fed))
        results = [self._fetched(self._fetch_env(plan, env, scope, feed, name), return_numpy)
                   for name in fetch_names]
        if not scope.is_alive():   # destroyed while the block ran (a kernel, another thread)
            raise ScopeDestroyedError(
                f"the scope of the run (scope {scope.id}) was destroyed while the program ran "
                "(by a kernel or another thread): its results could not be written back")
        write_back(scope, _writes(plan, env, self.place, fed_persistables, feeds) + fed_unread,
                   self.place)         # only now: a failed run changes nothing
        return results

    def _fetch_env(self, plan, env, scope, feed, name):
        pos = plan.position(name)
        array = env[pos] if pos is not None else None
        if array is None and name in feed:
            array = self._to_place(feed[name])
        if array is None:
            var = scope.find_var(name)
            if var is not None and isinstance(var.holder, LoDTensor):
                array = var.holder.data
        if array is None:
            raise FetchError(f"fetch target '{name}' has no value after the run: no op "
                             "of the program computes it and it was not fed")
        if array.ndim == 0 and pos is not None:
            shape = plan.scalar_shape(pos)
            if shape is not None:
                array = array.reshape(shape)
        return array

    def _to_place(self, value):
        """A fed value as an array on this place, not copied if it is one already: the run
        only reads it, and copies at commit what a scope would keep (see _writes)."""
        if isinstance(value, LoDTensor):
            value = value.array()
        if self.place.is_gpu():
            with self.place.device_guard():
                return self.place.xp.asarray(value)
        if hasattr(value, "get") and not isinstance(value, numpy.ndarray):
            return value.get()
        return numpy.asarray(value)

    def _fetched(self, array, return_numpy):
        host = array.get() if self.place.is_gpu() else numpy.array(array, copy=True)
        if return_numpy:
            return host
        tensor = LoDTensor()
        tensor.set(host, self.place)
        return tensor

    def eval(self, targets: Any, program: Program | None = None, feed: Mapping | None = None,
             scope: Scope | None = None) -> list:
        """Prune ``program`` to what ``targets`` need, then run it ("Design Doc: Block and Scope"'s Eval)."""
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

    def _run_planned(self, plan, scope, values=None, reuse=None, state=None):
        """Run ``plan`` in ``scope``: framed when nobody watches the run, else on cells.
        ``state`` is the calling thread's RunState (looked up when not given)."""
        if state is None:
            state = self._runs.state
        recorder = state.recorder if state is not None else None
        if plan.framed and recorder is None and not EVENTS.active and \
                isinstance(scope, FrameScope):
            self._framed_block(plan).run(scope, values, reuse)
            return
        if values:
            for name, array in values.items():
                scope.var(name).get_tensor().hold(array, self.place)
        base = plan.interpreter or self._interpreter(plan)
        if recorder is not None:
            interpreter = RecordingInterpreter(plan, self, base.kernels, recorder)
        else:
            interpreter = plan.scope_interpreter
            if interpreter is None:
                interpreter = plan.scope_interpreter = ScopeInterpreter(plan, self, base.kernels)
        interpreter.run(self._bind(plan, scope), scope)

    def _framed_block(self, plan):
        """The plan's FramedBlock (made once; the plan must be ``framed``)."""
        framed = plan.framed_block
        if framed is None:
            framed = plan.framed_block = FramedBlock(plan.interpreter or self._interpreter(plan))
        return framed

    def _interpreter(self, plan):
        """The plan's Interpreter for this executor (its kernels bound once)."""
        plan.interpreter = Interpreter(plan, self)
        return plan.interpreter

    def run_raw(self, step: Step, scope: Scope) -> None:
        """Run a control-flow (or feed, fetch, LoD) op in ``scope``: its kernel gets the
        scope, the op, and a runner of its sub-blocks."""
        state = self._runs.state
        run_sub_block, framed_of = self._sub_block_runner(step.op, state)
        ctx = FramedContext(self.ctx, scope, step.op, step.attrs, run_sub_block, state)
        ctx.framed_of = framed_of
        step.kernel(ctx)

    def _sub_block_runner(self, op, state):
        """(run_sub_block, framed_of): the function a control-flow op calls to run its
        sub-blocks, within the run whose RunState is ``state`` (the op runs on that run's
        thread), and the one giving a sub-block's FramedBlock when unrecorded runs of it
        go framed (else None)."""
        program = op.block.program
        plans = {}             # the op runs its sub-block many times: find the plan once
        reuse = {}             # and, if the op allows, what its blocks read from above

        def plan_of(block_idx):
            plan = plans.get(block_idx)
            if plan is None:
                plan = plans[block_idx] = self._plan(program, block_idx, ())
            return plan

        def run_sub_block(block_idx, scope, values=None, same_outer=False):
            self._run_planned(plan_of(block_idx), scope, values, reuse if same_outer else None,
                              state)

        def framed_of(block_idx):
            plan = plan_of(block_idx)
            run = state if state is not None else self._runs.state
            recorded = run is not None and run.recorder is not None
            return self._framed_block(plan) if plan.framed and not recorded else None
        return run_sub_block, framed_of

    # -- preparing and binding -------------------------------------------------------------------
    def _plan(self, program, block_idx, keep):
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

    def _bind(self, plan, scope):
        """The tensor (or Variable, for non-tensor kinds) of each of the plan's names."""
        cells = []
        for pos, (name, local, persistable, tensor) in enumerate(
                zip(plan.names, plan.local, plan.persistable, plan.tensor)):
            if local and not persistable:
                if tensor:
                    cells.append(scope.local_tensor(name) if isinstance(scope, FrameScope)
                                 else scope.var(name).get_tensor())
                    continue
                var = scope.var(name)
            else:
                var = self.bound_var(plan, pos, scope)
            cells.append(var.get_tensor() if tensor else var)
        return cells

    def bound_var(self, plan: BlockPlan, pos: int, scope: Scope) -> Variable:
        """The Variable that a block run in ``scope`` reads and writes for a name it does
        not make itself (the scope loop binds with it, a framed block writes back with it):
        found up the scopes, else made where it belongs (a persistable in
        the user's scope, recorded so that a failed run erases it; another in the scope of
        the block that declares it). A persistable is staged, so a failed run restores it."""
        name = plan.names[pos]
        var = scope.find_var(name)
        state = self._runs.state
        if plan.persistable[pos]:
            if var is None:
                var = (state.user_scope if state is not None else scope).var(name)
                if state is not None:
                    state.created.append(name)
            elif isinstance(var.holder, LoDTensor):
                check_persistable_dtype(plan, pos, var.holder.data)
            if state is not None:
                state.stage(var)
        elif var is None:
            var = self._outer_scope(plan, name, scope).var(name)
        return var

    def _outer_scope(self, plan, name, scope):
        """The scope that runs the ancestor block declaring ``name`` (one kid scope per block)."""
        block = plan.block
        while block is not None and name not in block.vars:
            block = block.parent
            scope = scope.parent if scope.parent is not None else scope
        return scope


def _write_scheduled_lr(program, scope, place):
    """A program trained with a learning-rate scheduler (``program.lr_scheduler``, set by
    the optimizer) runs with the scheduler's current value, as PaddlePaddle's Executor
    writes it into the learning-rate variable before each run."""
    if program.lr_scheduler is None:
        return
    var = program.global_block().vars.get(program.lr_var_name)
    if var is None:
        return
    value = numpy.full(tuple(var.shape), program.lr_scheduler(), dtype=var.dtype)
    (scope.find_var(var.name) or scope.var(var.name)).get_tensor().set(value, place)


def _end_run(state, run_scope, recorder, failed):
    """Undo a failed run's writes, close its record, destroy its scope; each part can be
    done again, so a cleanup that an interrupt cut short is repeated whole."""
    try:
        if failed and state is not None:
            state.restore()
        if recorder is not None:
            recorder.finish(failed=failed)
    finally:
        if run_scope is not None:
            run_scope.destroy()


def _notify(listeners, record):
    """Give ``record`` to each listener; a listener's error is a warning, never the run's."""
    for listener in list(listeners):
        try:
            listener(record)
        except Exception as err:
            warnings.warn(f"Executor: listener {listener!r} raised {type(err).__name__}: "
                          f"{err} (the run itself was not changed)", RuntimeWarning,
                          stacklevel=3)


def _writes(plan, env, place, fed, feeds):
    """(name, array) of each persistable the run wrote, and of each fed one (as
    PaddlePaddle writes a fed persistable). No scope keeps a caller's array: a fed
    persistable is copied, and so is a result that is a view of one of the ``feeds``
    (a reshape2 of a feed into a parameter)."""
    names, writes = plan.names, []
    for pos in plan.written_persistables:
        array = env[pos]
        if array is not None:
            if array.base is not None and views_any(array, feeds, place):
                array = array.copy()
            writes.append((names[pos], array))
    for pos in fed:
        if env[pos] is not None and not plan.written[pos]:
            writes.append((names[pos], env[pos].copy()))
    return writes


def _declared_persistable(block, name):
    var = block.find_var(name)
    return var is not None and var.persistable


class _PerThread(threading.local):
    state = None
