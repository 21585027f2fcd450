"""The widgets' model state: what they show, read with get_state() as the browser gets it.

Each widget keeps everything it shows in synced traits, so these tests build known
programs, run them, and assert on names, states and bytes in that state; ``set_state``
plays the browser's part (moving a slider, clicking a block).
"""
import json

import numpy as np
import pytest

pytest.importorskip("anywidget")

import paddle_nb as pd                                          # noqa: E402
from paddle_nb.viz import Dashboard, memory_timeline, rnn_explorer, run_replay  # noqa: E402
from paddle_nb.viz.replay import RunReplay                      # noqa: E402
from paddle_nb.viz.widget_base import GRAPHVIZ_HINT             # noqa: E402

T, BATCH, IN, HID = 3, 2, 4, 5


def walk(tree):
    yield tree
    for kid in tree["kids"]:
        yield from walk(kid)


def scope_vars(tree, label):
    """{name: var dict} of the scope labelled ``label`` in a scope-tree dict."""
    (scope,) = [s for s in walk(tree) if s["label"] == label]
    return {v["name"]: v for v in scope["vars"]}


def state(widget):
    """The model state as the front end receives it (JSON), minus anywidget's own keys."""
    return json.loads(json.dumps(widget.state()))


def build_mlp(train):
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[4])
        h = pd.layers.fc(x, size=8, act="relu")
        loss = pd.layers.mean(pd.layers.fc(h, size=2))
        if train:
            pd.optimizer.SGD(0.1).minimize(loss)
    scope, exe = pd.Scope(), pd.Executor()
    pd.Executor().run(startup, scope=scope)      # exe itself has made no run yet
    feed = {"x": np.ones((3, 4), "float32")}
    return prog, scope, exe, feed, loss


@pytest.fixture
def mlp():
    """x -> fc(relu) -> fc -> mean, trained with SGD."""
    return build_mlp(train=True)


@pytest.fixture
def forward_mlp():
    """The same network without backward: each temporary's last use is the next op."""
    return build_mlp(train=False)


@pytest.fixture
def rnn_net():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[T, BATCH, IN], append_batch_size=False)
        h0 = pd.layers.fill_constant(shape=[BATCH, HID], dtype="float32", value=0.0)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(x)
            h_pre = rnn.memory(init=h0)
            h = pd.layers.fc(input=[x_t, h_pre], size=HID, act="tanh")
            rnn.update_memory(h_pre, h)
            rnn.step_output(h)
        out = rnn()
    scope, exe = pd.Scope(), pd.Executor()
    pd.Executor().run(startup, scope=scope)      # exe itself has made no run yet
    feed = {"x": np.random.RandomState(0).rand(T, BATCH, IN).astype("float32")}
    return prog, scope, exe, feed, out


def record_of(exe, prog, feed, fetch, scope, values=False):
    records = []
    stop = exe.subscribe(records.append)
    exe.record_values = values
    exe.run(prog, feed=feed, fetch_list=[fetch], scope=scope)
    stop()
    return records[-1]


# -- the Dashboard ------------------------------------------------------------------------------
def test_dashboard_shows_the_program_and_the_scope_before_any_run(mlp):
    prog, scope, exe, _, _ = mlp
    s = state(Dashboard(prog, scope, exe))
    assert s["kind"] == "dashboard" and s["runs"] == 0
    assert [(b["idx"], b["ops"]) for b in s["blocks"]] == [(0, len(prog.global_block().ops))]
    assert s["graphs"]["0"]["dot"].startswith("digraph")
    user = scope_vars(s["scopes"], "user")
    assert user["fc_0.w_0"]["state"] == "allocated" and user["fc_0.w_0"]["nbytes"] == 4 * 8 * 4
    declared = {g["kind"]: g["names"] for g in s["declared"]}
    assert declared["data"] == ["x"] and "fc_0.w_0" not in sum(declared.values(), [])
    assert s["run"]["label"] in ("no run yet: the scope as it is now",      # counted: 0 runs
                                 "the scope as it is now (runs are counted from here on)")


def test_dashboard_refreshes_after_each_run_and_marks_what_changed(mlp):
    prog, scope, exe, feed, loss = mlp
    dash = Dashboard(prog, scope, exe)
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    first = state(dash)
    assert first["runs"] == 1 and first["run"]["ops"] == len(prog.global_block().ops)
    run = scope_vars(first["scopes"], "run")
    assert run["x"]["change"] == "new"
    assert run["mean_0.tmp_0"] == {**run["mean_0.tmp_0"], "state": "allocated", "nbytes": 4}
    assert run["fc_0.tmp_0"]["state"] == "freed"            # released after its last use
    assert scope_vars(first["scopes"], "user")["fc_0.w_0"]["change"] == "value"   # SGD moved it

    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    second = state(dash)
    assert second["runs"] == 2
    changed = {(c["name"], c["what"]) for c in second["changes"]}
    assert ("fc_0.w_0", "value") in changed and ("x", "new") not in changed
    assert scope_vars(second["scopes"], "run")["x"]["change"] == ""


class CountingExecutor(pd.Executor):
    """An executor that counts its runs and keeps its last record, as the Dashboard reads
    them (``run_count``, ``last_record``), for a pd.Executor that does not (yet)."""

    def __init__(self):
        super().__init__()
        self.run_count, self.last_record = 0, None

    def run(self, *args, **kwargs):
        self.run_count += 1            # before the run: its listeners see its own number
        return super().run(*args, **kwargs)


def test_dashboard_made_after_runs_counts_them_and_shows_the_last():
    prog, scope, exe, feed, loss = build_mlp(train=True)
    if _no_count(exe):
        exe = CountingExecutor()
    for _ in range(3):
        exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    dash = Dashboard(prog, scope, exe)           # nothing recorded: the scope as it is now
    assert dash.runs == 3 and dash.run["label"].startswith("run 3: not recorded")
    assert scope_vars(dash.scopes, "user")["fc_0.w_0"]["state"] == "allocated"
    exe.last_record = record_of(exe, prog, feed, loss, scope)          # the 4th run
    dash = Dashboard(prog, scope, exe)
    assert dash.runs == 4 and dash.run["label"] == "run 4"
    assert scope_vars(dash.scopes, "run")["mean_0.tmp_0"]["state"] == "allocated"
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    assert dash.runs == 5 and dash.run["label"] == "run 5"
    assert not [c for c in dash.changes if c["what"] == "new"]   # nothing new since run 4


def test_dashboard_counts_from_its_start_without_an_executor_count(mlp):
    prog, scope, exe, feed, loss = mlp
    assert _no_count(exe) or exe.run_count >= 0
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    dash = Dashboard(prog, scope, exe)
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    assert dash.runs == (1 if _no_count(exe) else exe.run_count)


def _no_count(exe):
    return not isinstance(getattr(exe, "run_count", None), int)


def test_dashboard_says_what_changed(mlp):
    prog, scope, exe, feed, loss = mlp
    dash = Dashboard(prog, scope, exe)
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    (bias,) = [c for c in dash.changes if c["name"] == "fc_0.b_0"]
    assert bias["what"] == "value" and bias["before"] != bias["after"]
    assert bias["before"] == "[0, 0, 0, … 5 more] mean 0"        # 8 zeros, then SGD moved it


def test_dashboard_marks_new_only_what_is_new_when_programs_alternate(mlp):
    """A training and a test program in turn: after one round, nothing is "new"."""
    prog, scope, exe, feed, loss = mlp
    test_prog = prog.clone(for_test=True)
    dash = Dashboard(prog, scope, exe)
    for _ in range(2):
        exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
        exe.run(test_prog, feed=feed, fetch_list=[loss.name], scope=scope)
    assert [c["name"] for c in dash.changes if c["what"] in ("new", "gone")] == []
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    assert [c["name"] for c in dash.changes if c["what"] in ("new", "gone")] == []


def test_dashboard_on_an_executor_shared_by_threads(mlp, monkeypatch):
    """Four training threads, one executor, one Dashboard: no error reaches a worker,
    every run is counted. Turning traits into JSON is made slow (as sending a large state
    to the browser is), which widens the window where two runs' updates would interleave."""
    import threading
    import time
    import warnings
    prog, startup_scope, exe, feed, loss = mlp
    dash = Dashboard(prog, None, exe)
    to_json = Dashboard._trait_to_json

    def slow_to_json(x, widget):
        time.sleep(0.00005)
        return to_json(x, widget)
    monkeypatch.setattr(Dashboard, "_trait_to_json", staticmethod(slow_to_json))
    errors = []

    def train():
        scope = pd.Scope()
        for var in prog.global_block().vars.values():
            if var.persistable and startup_scope.find_var(var.name) is not None:
                value = startup_scope.find_var(var.name).get_tensor().numpy()
                scope.var(var.name).get_tensor().set(value.copy(), pd.CPUPlace())
        try:
            for _ in range(20):
                exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
        except Exception as err:            # noqa: BLE001 - what the test looks for
            errors.append(err)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=train) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == [] and [str(w.message) for w in caught] == []
    assert dash.runs == 80 and dash.run["label"] == "run 80"


def test_a_failing_dashboard_never_fails_the_run(mlp, monkeypatch):
    prog, scope, exe, feed, loss = mlp
    dash = Dashboard(prog, scope, exe)
    monkeypatch.setattr(dash, "_show", lambda *a: {}["boom"])
    with pytest.warns(RuntimeWarning, match="could not show a run.*KeyError"):
        (value,) = exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    assert np.isfinite(value).all()


def test_dashboard_follows_the_program_as_it_is_built(mlp):
    prog, scope, exe, _, loss = mlp
    dash = Dashboard(prog, scope, exe)
    ops, version = dash.blocks[0]["ops"], dash.program_version
    with pd.program_guard(prog):
        pd.layers.scale(loss, scale=2.0)
    assert dash.refresh() is True
    s = state(dash)
    assert s["program_version"] == prog.version != version
    assert s["blocks"][0]["ops"] == ops + 1 and s["blocks"][0]["change"] == "+1 ops"
    assert "scale" in s["graphs"]["0"]["dot"]
    assert dash.refresh() is False                          # nothing new: one int compare


def test_dashboard_redraws_after_a_notebook_cell(mlp, monkeypatch):
    """The post_run_cell hook a cell triggers in IPython redraws a grown program."""
    from IPython.core.events import EventManager, available_events
    import IPython

    class Shell:
        events = EventManager(None, available_events)
    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell)
    prog, scope, exe, _, loss = mlp
    dash = Dashboard(prog, scope, exe)
    before = dash.blocks[0]["ops"]
    with pd.program_guard(prog):
        pd.layers.scale(loss, scale=2.0)
    Shell.events.trigger("post_run_cell", None)
    assert dash.blocks[0]["ops"] == before + 1
    dash.close()
    assert not Shell.events.callbacks["post_run_cell"]


def test_dashboard_new_block_and_selection(rnn_net):
    prog, scope, exe, feed, out = rnn_net
    dash = Dashboard(prog, scope, exe)
    assert [(b["idx"], b["parent"]) for b in dash.blocks] == [(0, -1), (1, 0)]
    dash.set_state({"selected_block": 1})                  # a click in the block tree
    assert dash.selected_block == 1 and dash.graphs["1"]["block"] == 1
    exe.run(prog, feed=feed, fetch_list=[out], scope=scope)
    labels = [s["label"] for s in walk(dash.scopes)]
    assert labels == ["user", "run", "step 0", "step 1", "step 2"]


def test_dashboard_listens_to_its_executor_only(mlp):
    """Listeners are per executor: a Dashboard moves no other executor off its fast path."""
    prog, scope, exe, feed, loss = mlp
    other = pd.Executor()
    dash = Dashboard(prog, scope, exe)
    try:
        assert len(exe.listeners) == 1 and other.listeners == []
        other.run(prog, feed=feed, fetch_list=[loss], scope=scope)
        assert dash.runs == 0
        exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
        assert dash.runs == 1
    finally:
        dash.close()
    assert exe.listeners == []
    assert Dashboard(prog, scope).runs == 0          # no executor: no runs followed


def test_without_graphviz_the_graph_is_dot_text_with_a_hint(mlp, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))               # no `dot` on the PATH
    prog, scope, exe, _, _ = mlp
    g = state(Dashboard(prog, scope, exe))["graphs"]["0"]
    assert g["svg"] == "" and g["dot"].startswith("digraph") and g["hint"] == GRAPHVIZ_HINT
    assert "make lab" in g["hint"] and "conda-forge" in g["hint"]


# -- the run replay -----------------------------------------------------------------------------
def test_replay_temporaries_are_allocated_then_freed_after_their_last_use(forward_mlp):
    prog, scope, exe, feed, loss = forward_mlp
    rec = record_of(exe, prog, feed, loss, scope)
    w = run_replay(rec)
    s = state(w)
    assert len(s["positions"]) == len(rec.ops) + 2
    start = scope_vars(s["shown"]["tree"][0], "run")
    assert start["x"]["state"] == "allocated" and start["x"]["nbytes"] == 3 * 4 * 4
    assert start["fc_0.tmp_0"]["state"] == "typed"

    w.set_state({"position": 1})                            # after op 0 (mul)
    after = state(w)["shown"]
    assert after["op"]["type"] == "mul" and after["op"]["op"] == 0
    assert [r["name"] for r in after["op"]["reads"]] == ["x", "fc_0.w_0"]
    assert after["op"]["reads"][1]["scope"] == scope.id     # found in the user's scope
    run = scope_vars(after["tree"][0], "run")
    assert run["fc_0.tmp_0"]["state"] == "allocated" and run["fc_0.tmp_0"]["shape"] == [3, 8]
    assert run["x"]["state"] == "freed"                     # its last use was op 0

    w.set_state({"position": 2})
    assert scope_vars(w.shown["tree"][0], "run")["fc_0.tmp_0"]["state"] == "freed"

    w.set_state({"position": len(rec.ops) + 1})             # the run scope is destroyed
    end = w.shown["tree"][0]["kids"][0]
    assert end["destroyed"] and {v["state"] for v in end["vars"]} == {"freed"}
    assert scope_vars(w.shown["tree"][0], "user")["fc_0.w_0"]["state"] == "allocated"


def test_replay_frames_rebuild_every_position(rnn_net):
    """What the front end computes (frames applied to `before`) is what Python shows."""
    prog, scope, exe, feed, out = rnn_net
    rec = record_of(exe, prog, feed, out, scope)
    r = RunReplay(rec)
    w = run_replay(rec)
    for p in range(len(rec.ops) + 2):
        cells = {(c[0], c[1]): tuple(c[2:]) for c in w.before}
        for frame in w.frames[: p + 1]:
            cells.update({(c[0], c[1]): tuple(c[2:]) for c in frame})
        assert cells == r.state_at(p)
    recurrent = next(o for o in w.ops if o and o["type"] == "recurrent")
    assert recurrent["inside"] == [recurrent["op"] + 1, recurrent["op"] + 7 * T]
    step_scopes = [s["label"] for s in w.scopes if s["label"].startswith("step")]
    assert step_scopes == ["step 0", "step 1", "step 2"]


# -- the memory timeline ------------------------------------------------------------------------
def test_replay_frees_nothing_still_to_be_read(mlp):
    """Whenever a temporary is freed, no later op of its block reads it."""
    prog, scope, exe, feed, loss = mlp
    rec = record_of(exe, prog, feed, loss, scope)
    r = RunReplay(rec)
    freed = 0
    for p in range(1, len(rec.ops) + 1):
        for sid, name, st, _, _ in r.frames[p]:
            if st == "freed":
                freed += 1
                later = [op for op in prog.global_block().ops[rec.ops[p - 1].index + 1:]
                         if name in op.input_arg_names]
                assert later == [], f"{name} freed after op {p - 1} but read later"
    assert freed > 0


def test_memory_timeline_counts_bytes_per_place(forward_mlp):
    prog, scope, exe, feed, loss = forward_mlp
    rec = record_of(exe, prog, feed, loss, scope)
    s = state(memory_timeline(rec))
    params = (4 * 8 + 8 + 8 * 2 + 2) * 4                     # weights and biases
    series = s["series"]["CPUPlace()"]
    assert len(series) == len(rec.ops) + 2
    assert series[0] == params + 3 * 4 * 4                   # parameters and the fed x
    assert series[-1] == params                               # the run scope is gone
    assert s["peak"]["CPUPlace()"]["nbytes"] == max(series)
    kinds = {m["kind"] for m in s["marks"]}
    assert {"alloc", "free"} <= kinds
    assert 'data-state="allocated"' in s["svg"] and 'data-state="freed"' in s["svg"]


def test_memory_timeline_labels_are_cut_to_stay_inside_the_picture():
    """Slanted column labels run down and left from under their column: a long op type
    (softmax_with_cross_entropy_grad) is cut with an ellipsis, whole in the column's title."""
    import math
    import re
    from paddle_nb.viz import timeline as tl
    long = "softmax_with_cross_entropy_grad"
    labels = ["start", long, "mul", long, "end"]
    titles = [f"op {k}: {t}" for k, t in enumerate(labels)]
    svg = tl.timeline_svg({"CPUPlace()": [0, 8, 16, 8, 0]}, [], titles, labels)
    texts = re.findall(r'<text x="([\d.]+)" y="([\d.]+)" text-anchor="end" '
                       r'transform="rotate\(-(\d+) [^"]*">([^<]*)</text>', svg)
    assert [t[3] for t in texts][0] == "start" and len(texts) == len(labels)
    for x, y, angle, label in texts:
        a = math.radians(int(angle))
        length = len(label) * tl.CHAR_PX
        assert float(x) - length * math.cos(a) >= 0, label            # not past the left edge
        assert float(y) + length * math.sin(a) <= tl.HEIGHT, label    # nor the bottom edge
    cut = [t[3] for t in texts if t[3].endswith("\u2026")]
    assert cut and all(long.startswith(c[:-1]) for c in cut)
    assert svg.count(f"<title>op 1: {long}</title>") == 1


# -- the RNN explorer ---------------------------------------------------------------------------
def test_rnn_explorer_slider_shows_each_step_scope(rnn_net):
    prog, scope, exe, feed, out = rnn_net
    w = rnn_explorer(exe)
    assert exe.record_values is True and state(w)["rnns"] == []
    exe.run(prog, feed=feed, fetch_list=[out], scope=scope)
    s = state(w)
    steps = s["rnns"][0]["steps"]
    assert [st["label"] for st in steps] == ["step 0", "step 1", "step 2"]
    assert s["shown"]["step"] == 0 and s["has_values"]
    names = [v["name"] for v in steps[0]["vars"]]
    assert names[:2] == ["x", "static_rnn_0@mem_0"]
    roles = {v["name"]: v["role"] for v in steps[0]["vars"]}
    assert roles["x"] == "input" and roles["static_rnn_0@mem_0"] == "memory-pre"
    assert steps[0]["vars"][1]["nbytes"] == BATCH * HID * 4

    for t in (1, 2):
        w.set_state({"step": t})                             # the browser moves the slider
        shown = state(w)["shown"]
        assert shown["step"] == t and shown["scope"] == steps[t]["scope"] != steps[0]["scope"]
        link = next(each for each in shown["links"] if each["kind"] == "memory")
        assert link["source"] == "static_rnn_0.tmp_0" and link["source_step"] == t - 1
        assert link["equal"] is True and link["value"] == link["source_value"]
        previous = {v["name"]: v for v in steps[t - 1]["vars"]}
        assert link["value"] == previous["static_rnn_0.tmp_0"]["value"]


def test_rnn_memory_at_step_0_is_the_initial_state(rnn_net):
    prog, scope, exe, feed, out = rnn_net
    w = rnn_explorer(record_of(exe, prog, feed, out, scope, values=True))
    link = next(each for each in w.shown["links"] if each["kind"] == "memory")
    assert link["source"] == "fill_constant_0.tmp_0" and link["source_step"] is None
    assert link["equal"] is True and link["value"]["rows"] == [[0.0] * HID] * BATCH
    x_link = next(each for each in w.shown["links"] if each["kind"] == "input")
    assert x_link["source"] == "x[0]" and x_link["equal"] is True


def test_rnn_explorer_without_values_says_how_to_get_them(rnn_net):
    prog, scope, exe, feed, out = rnn_net
    w = rnn_explorer(record_of(exe, prog, feed, out, scope, values=False))
    assert not w.has_values and "record_values = True" in w.message
    assert w.shown["links"][0]["equal"] is None


def test_every_widget_state_is_json(rnn_net):
    prog, scope, exe, feed, out = rnn_net
    rec = record_of(exe, prog, feed, out, scope, values=True)
    for widget in (Dashboard(prog, scope, exe), run_replay(rec), rnn_explorer(rec),
                   memory_timeline(rec)):
        s = state(widget)
        assert s["kind"] and set(s["palette"]["colours"]) == {
            "declared", "created", "typed", "allocated", "freed"}


def test_every_widget_says_what_running_adds_instead_of_its_repr(rnn_net):
    """A viewer without widgets shows ``text/plain``: a line, never ``<...Widget object>``."""
    prog, scope, exe, feed, out = rnn_net
    rec = record_of(exe, prog, feed, out, scope, values=True)
    lines = {}
    for widget in (Dashboard(prog, scope, exe), run_replay(rec), rnn_explorer(rec),
                   memory_timeline(rec)):
        data, _ = widget._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in data
        lines[widget.kind] = data["text/plain"]
    assert all(line.startswith("[") and line.endswith("]") and "Run the notebook" in line
               and "object" not in line for line in lines.values()), lines
    assert lines["rnn"].startswith("[RNN explorer: the step scopes of 1 RNN run(s), step 0 of 3")
    assert lines["dashboard"].startswith("[Dashboard of a program with 2 block(s), ")
    assert "no run yet" not in lines["dashboard"]                  # the executor has run


def test_a_failed_run_is_counted_and_marked():
    prog = pd.Program()
    with pd.program_guard(prog, pd.Program()):
        x = pd.layers.data("x", shape=[-1, 2], append_batch_size=False)
        y = pd.layers.data("y", shape=[-1, 2], append_batch_size=False)
        z = pd.layers.elementwise_add(x, y)
    exe, scope = pd.Executor(), pd.Scope()
    dash = Dashboard(prog, scope, exe)
    with pytest.raises(pd.errors.OpRunError):      # 2 rows and 3 rows: fails when it runs
        exe.run(prog, feed={"x": np.ones((2, 2), "float32"), "y": np.ones((3, 2), "float32")},
                fetch_list=[z], scope=scope)
    assert dash.runs == 1 and dash.run["label"] == "run 1" and dash.run["failed"] is True


def test_rnn_explorer_knows_the_users_names(rnn_net):
    """``h = pd.layers.fc(...)`` in the step block: the explorer shows ``h`` (the program's
    name on hover), as the graph does (viz.names)."""
    prog, scope, exe, feed, out = rnn_net
    w = rnn_explorer(record_of(exe, prog, feed, out, scope, values=True))
    step_names = {v["name"] for v in w.rnns[0]["steps"][0]["vars"]}
    sub_block = w.rnns[0]["sub_block"]
    (key,) = [k for k, user in w.names.items() if user == "h"]
    block, internal = key.split("/", 1)
    assert int(block) == sub_block and internal in step_names and internal != "h"
