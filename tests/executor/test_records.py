"""Run records: what a listener learns about each run, and that nobody pays without one.

``exe.subscribe(listener)`` hands the listener one RunRecord per run: the ops that ran
(preamble initializers skipped on later runs are marked), the lifecycle events in order
(tensors allocated by their op, temporaries freed right after their last use), and a
snapshot of the user's scope and the run's kid scope ("run") before it was destroyed.
"""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.executor import executor as executor_module
from paddle_nb.executor import RunRecord, ScopeRecord

CPU = pd.CPUPlace()
X = np.random.default_rng(2).uniform(-1, 1, (2, 3)).astype("float32")
TYPES = ["uniform_random", "fill_constant", "mul", "elementwise_add", "relu", "mean"]


def program():
    """#0 init w, #1 init b, #2 mul -> t0, #3 add -> t1, #4 relu -> t2, #5 mean -> loss."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.fc(x, 4, act="relu")
        loss = pd.layers.mean(h)
    assert [op.type for op in prog.global_block().ops] == TYPES
    return prog, loss


def _run(exe, prog, loss, scope, **kw):
    return exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope, **kw)


def _events(record, kind, name=None):
    return [e for e in record.events if e[1] == kind and (name is None or e[3] == name)]


# -- one record per run ----------------------------------------------------------------------------
def test_a_listener_gets_one_record_per_run_with_the_ops_in_order():
    prog, loss = program()
    exe, scope, records = pd.Executor(CPU), pd.Scope(), []
    exe.subscribe(records.append)
    _run(exe, prog, loss, scope)
    assert len(records) == 1
    _run(exe, prog, loss, scope)
    assert len(records) == 2
    first, second = records
    assert isinstance(first, RunRecord) and first.program is prog and not first.failed
    assert first.place == repr(CPU) and first.seconds > 0
    assert [op.type for op in first.ops] == TYPES and [op.type for op in second.ops] == TYPES
    assert [(op.block, op.index) for op in first.ops] == [(0, k) for k in range(6)]
    assert [op.skipped for op in first.ops] == [False] * 6
    assert [op.skipped for op in second.ops] == [True, True] + [False] * 4   # preamble skipped
    assert all(op.seconds == 0 for op in second.ops[:2])
    run_ids = {s.id for s in first.scopes.find("run")}
    assert {op.scope_id for op in first.ops} == run_ids


def test_unsubscribing_stops_the_records():
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    stop = exe.subscribe(records.append)
    _run(exe, prog, loss, pd.Scope())
    stop()
    _run(exe, prog, loss, pd.Scope())
    assert len(records) == 1
    stop()                                         # twice is harmless


def test_a_listener_hears_its_executor_only():
    """Listeners are per executor (no module-global list): watching one executor leaves
    every other on its fast path, unrecorded."""
    prog, loss = program()
    records, watched, other = [], pd.Executor(CPU), pd.Executor(CPU)
    watched.subscribe(records.append)
    _run(watched, prog, loss, pd.Scope())
    _run(other, prog, loss, pd.Scope())
    assert len(records) == 1
    assert not hasattr(executor_module, "RUN_LISTENERS")


# -- events ----------------------------------------------------------------------------------------
def test_temporaries_are_allocated_by_their_op_and_freed_right_after_their_last_use():
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    _run(exe, prog, loss, pd.Scope())
    record = records[0]
    positions = [e[0] for e in record.events]
    assert positions == sorted(positions)                      # events in the order of the ops
    temps = ["fc_0.tmp_0", "fc_0.tmp_1", "fc_0.tmp_2"]         # written by #2, #3, #4
    for k, name in enumerate(temps):
        allocated = _events(record, "tensor_allocated", name)
        freed = _events(record, "tensor_freed", name)
        assert [e[0] for e in allocated] == [2 + k], name
        assert allocated[0][4] == 2 * 4 * 4 and allocated[0][5] == repr(CPU)
        assert [e[0] for e in freed] == [3 + k], name         # its only reader is the next op
        reader_out = _events(record, "tensor_allocated", temps[k + 1] if k < 2 else loss.name)
        order = record.events.index
        assert order(reader_out[0]) < order(freed[0])          # freed after its reader ran...
        later = [e for e in record.events if e[0] > 3 + k]
        assert all(order(freed[0]) < order(e) for e in later)  # ...and before the next op
    assert _events(record, "tensor_allocated", loss.name)[0][0] == 5
    assert _events(record, "tensor_freed", loss.name) == []    # the fetched one is kept
    assert _events(record, "tensor_freed", "fc_0.w_0") == []   # so are parameters


def test_the_first_run_records_the_parameters_allocated_by_the_preamble():
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    scope = pd.Scope()
    _run(exe, prog, loss, scope)
    _run(exe, prog, loss, scope)
    first, second = records
    assert [e[0] for e in _events(first, "tensor_allocated", "fc_0.w_0")] == [0]
    assert [e[0] for e in _events(first, "tensor_allocated", "fc_0.b_0")] == [1]
    assert _events(second, "tensor_allocated", "fc_0.w_0") == []


def test_every_freed_tensor_was_allocated_earlier_in_the_same_record():
    """A memory timeline built from the events never goes below where the run started."""
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    _run(exe, prog, loss, pd.Scope())
    record = records[0]
    live = 0
    for pos, kind, scope_id, name, nbytes, place in record.events:
        if kind == "tensor_allocated":
            live += nbytes
        elif kind == "tensor_freed":
            assert _events(record, "tensor_allocated", name), f"'{name}' freed, never allocated"
            live -= nbytes
        assert live >= 0
    fed = _events(record, "tensor_allocated", "x")
    assert len(fed) == 1 and fed[0][0] == -1 and fed[0][4] == X.nbytes   # by the feed, no op


# -- the scope snapshot ----------------------------------------------------------------------------
def _by_name(scope_record):
    return {v.name: v for v in scope_record.vars}


def test_the_snapshot_shows_the_users_scope_and_the_run_scope_with_states():
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    scope = pd.Scope()
    scope.var("nothing_yet")                                   # created: holds nothing
    scope.var("empty_tensor").get_tensor()                      # typed: a tensor, no memory
    _run(exe, prog, loss, scope)
    snap = records[0].scopes
    assert isinstance(snap, ScopeRecord) and snap.id == scope.id
    user = _by_name(snap)
    assert user["nothing_yet"].state == "created"
    assert user["empty_tensor"].state == "typed"
    w = user["fc_0.w_0"]
    assert (w.state, w.shape, w.dtype, w.nbytes) == ("allocated", (3, 4), "float32", 48)
    assert w.place == repr(CPU) and w.value is None             # no values unless asked
    assert snap.nbytes() == 48 + 16
    runs = snap.find("run")
    assert len(runs) == 1 and snap.kids == runs and runs[0].kids == []
    run = _by_name(runs[0])
    assert set(run) == {"x", "fc_0.tmp_0", "fc_0.tmp_1", "fc_0.tmp_2", loss.name}
    for name in ("fc_0.tmp_0", "fc_0.tmp_1", "fc_0.tmp_2"):
        assert run[name].state == "freed" and run[name].nbytes == 0, name
    assert run["x"].state in ("freed", "allocated")            # the fed one: either is fair
    out = run[loss.name]
    assert (out.state, out.shape, out.dtype, out.nbytes) == ("allocated", (), "float32", 4)
    assert records[0].step_scopes() == []
    assert scope.kids == []                                     # the run scope itself is gone


def test_values_are_recorded_only_when_asked():
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    scope = pd.Scope()
    got, = _run(exe, prog, loss, scope)
    assert all(v.value is None for s in records[0].scopes.walk() for v in s.vars)
    exe.record_values = True
    _run(exe, prog, loss, scope)
    snap = records[1].scopes
    w = _by_name(snap)["fc_0.w_0"]
    np.testing.assert_array_equal(w.value, scope.find_var("fc_0.w_0").get_tensor().numpy())
    assert isinstance(w.value, np.ndarray)
    np.testing.assert_array_equal(_by_name(snap.find("run")[0])[loss.name].value, got)
    assert _by_name(snap.find("run")[0])["fc_0.tmp_0"].value is None    # freed: no value


def test_a_failed_run_is_recorded_as_failed():
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    _run(exe, prog, loss, pd.Scope())
    assert len(records) == 1 and not records[0].failed
    bad = pd.Program()
    with pd.program_guard(bad):
        a = pd.layers.data("a", shape=[3])
        b = pd.layers.data("b", shape=[3])
        out = pd.layers.relu(a) + b
    with pytest.raises(pd.errors.OpRunError):       # batches 2 and 3 pass the feed check
        exe.run(bad, feed={"a": X, "b": np.ones((3, 3), "float32")}, fetch_list=[out],
                scope=pd.Scope())
    assert len(records) == 2 and records[1].failed and records[1].program is bad
    assert [op.type for op in records[1].ops] == ["relu", "elementwise_add"]


def test_sub_block_runs_are_recorded_in_their_own_scopes(block_owner):
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        out = prog.global_block().create_var(name="out", shape=[-1, 3])
        with prog._block_guard() as sub:
            pd.layers.assign(pd.layers.tanh(x), out)
        prog.global_block().append_op("test_block_owner", outputs={"Out": [out]},
                                      attrs={"sub_block": sub.idx})
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    exe.run(prog, feed={"x": X}, fetch_list=[out], scope=pd.Scope())
    record = records[0]
    assert [(op.block, op.type) for op in record.ops] == [(0, "test_block_owner"), (1, "tanh"),
                                                          (1, "assign")]
    steps = record.step_scopes()
    assert [s.label for s in steps] == ["sub"]
    assert record.ops[1].scope_id == steps[0].id and record.ops[0].scope_id != steps[0].id
    assert {v.name for v in steps[0].vars} == {"tanh_0.tmp_0"}


def test_a_watched_run_with_control_flow_shows_one_run_scope_holding_the_branches():
    """The block runs on its env; the cond op runs in a kid of the run scope: the record
    shows the two as one ``run`` scope, the branch's scope under it, every event's scope in
    the snapshot."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        s = pd.layers.reduce_sum(x)
        out = pd.layers.cond(pd.layers.greater_than(s, pd.layers.fill_constant(
            [], "float32", 0.0)), lambda: pd.layers.tanh(x), lambda: pd.layers.relu(x))
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    got, = exe.run(prog, feed={"x": X}, fetch_list=[out], scope=pd.Scope())
    snap = records[0].scopes
    (run,) = snap.kids
    assert run.label == "run" and snap.find("run") == [run]
    assert [k.label for k in run.kids] and all(k.label != "run" for k in run.kids)
    shown = {v.name: v for v in run.vars}
    assert shown[s.name].state == "allocated" and shown[out.name].shape == got.shape
    ids = {scope.id for scope in snap.walk()}
    assert {e[2] for e in records[0].events if e[2] is not None} <= ids
    assert {op.scope_id for op in records[0].ops} <= ids


def test_a_watched_run_shows_a_parameter_once_where_it_lives():
    """A StaticRNN's fc weight is lent to the recurrent op in the run's scope; the record
    shows it once, in the user's scope (a Dashboard listed it twice)."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3, 2, 4], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(x)
            h_pre = rnn.memory(shape=[-1, 5], batch_ref=x_t)
            h = pd.layers.fc(input=[x_t, h_pre], size=5, act="tanh")
            rnn.update_memory(h_pre, h)
            rnn.step_output(h)
        out = rnn()
    exe, scope, records = pd.Executor(CPU), pd.Scope(), []
    exe.run(startup, scope=scope)
    exe.subscribe(records.append)
    exe.run(main, feed={"x": np.ones((3, 2, 4), "float32")}, fetch_list=[out], scope=scope)
    snap = records[-1].scopes
    for param in main.global_block().all_parameters():
        where = [s.label for s in snap.walk() for v in s.vars if v.name == param.name]
        assert where == [snap.label], (param.name, where)


# -- nothing is recorded without a listener --------------------------------------------------------
def test_nothing_is_recorded_without_a_listener(monkeypatch):
    class NoRecorder:
        def __init__(self, *args, **kwargs):
            raise AssertionError("a Recorder was made with nobody listening")
    monkeypatch.setattr(executor_module, "Recorder", NoRecorder)
    prog, loss = program()
    exe = pd.Executor(CPU)
    got, = _run(exe, prog, loss, pd.Scope())
    assert got.shape == ()
    stop = exe.subscribe(lambda record: None)
    with pytest.raises(AssertionError, match="nobody listening"):
        _run(exe, prog, loss, pd.Scope())
    stop()
    _run(exe, prog, loss, pd.Scope())


def test_no_core_events_are_emitted_without_a_listener(monkeypatch):
    from paddle_nb.core.events import EVENTS
    seen = []
    real = EVENTS.emit
    monkeypatch.setattr(EVENTS, "emit", lambda *a, **k: (seen.append(a[0]), real(*a, **k)))
    prog, loss = program()
    _run(pd.Executor(CPU), prog, loss, pd.Scope())
    assert seen == [] and not EVENTS.active


def test_a_watched_run_failing_in_its_compiled_form_is_recorded_up_to_the_failing_op():
    """The second run of a plan uses its compiled form (with the recorder's hooks written
    out): an op failing there is the same OpRunError, and the record ends with that op."""
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[3])
        b = pd.layers.data("b", shape=[3])
        out = pd.layers.relu(pd.layers.relu(a) + b)
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    exe.run(prog, feed={"a": X, "b": X}, fetch_list=[out], scope=pd.Scope())
    with pytest.raises(pd.errors.OpRunError, match="elementwise_add") as info:
        exe.run(prog, feed={"a": X, "b": np.ones((3, 3), "float32")}, fetch_list=[out],
                scope=pd.Scope())
    assert "test_records.py" in str(info.value)
    record = records[1]
    assert record.failed and [op.type for op in record.ops] == ["relu", "elementwise_add"]
    assert record.ops[1].seconds == 0.0 and record.ops[0].seconds > 0
    assert [e[0] for e in record.events if e[1] == "tensor_allocated"] == [-1, -1, 0]


def test_a_record_keeps_no_array_of_the_run_alive_but_what_its_run_scope_held():
    """A run on an env writes out its record when the record is first read; until then
    it keeps what the run scope held at the end (the fetched value), not the env or the
    feeds (which would keep a step's arrays alive as long as the executor's last_record)."""
    import gc
    import weakref
    prog, loss = program()
    exe, records = pd.Executor(CPU), []
    exe.subscribe(records.append)
    fed = X.copy()
    gone = weakref.ref(fed)
    exe.run(prog, feed={"x": fed}, fetch_list=[loss], scope=pd.Scope())
    del fed
    gc.collect()
    assert gone() is None
    run = _by_name(records[0].scopes.find("run")[0])
    assert run["x"].state == "freed" and run[loss.name].state == "allocated"
