"""viz/values.py: hovering an op after a run shows its inputs' and outputs' values; the user's
names in the block tree, the scope tree and the Dashboard's scope pane."""

import json
import re

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.viz import Dashboard, block_tree, graph, html_of, scope_tree
from paddle_nb.viz.values import MAX_SLOT_LINES, RunValues, value_summary

T, BATCH, IN, HID = 3, 2, 2, 2


def tooltip(dot, node):
    """The tooltip of ``node`` in a graph's DOT source, with its line breaks back."""
    line = next(ln for ln in dot.source.splitlines() if ln.strip().startswith(f'"{node}" ['))
    return re.search(r'tooltip="((?:[^"\\]|\\.)*)"', line).group(1).replace("\\n", "\n")


def small_net():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3])
        hidden = pd.layers.fc(x, 2)
        out = pd.layers.relu(hidden)
    scope, exe = pd.Scope(), pd.Executor()
    exe.run(startup, scope=scope)
    return prog, scope, exe, out


def run_recorded(exe, prog, scope, fetch, values=True):
    records = []
    stop = exe.subscribe(records.append)
    exe.record_values = values
    exe.run(prog, feed={"x": np.array([[1., -2., 3.]], "float32")}, fetch_list=[fetch],
            scope=scope)
    stop()
    return records[-1]


def test_an_ops_tooltip_shows_its_values_after_a_run_from_the_record():
    prog, scope, exe, out = small_net()
    record = run_recorded(exe, prog, scope, out)
    relu = tooltip(graph(prog, scope=record, python_names=False), "op-b0-2")
    assert "values after the run:" in relu
    assert "in X fc_0.tmp_1: released after its last use" in relu     # a freed temporary
    fetched = np.maximum(record.scopes.find("run")[0].vars[-1].value, 0)
    assert f"out Out {out.name}: float32[1, 2] {value_summary(fetched)}" in relu
    mul = tooltip(graph(prog, scope=record), "op-b0-0")
    w = scope.find_var("fc_0.w_0").get_tensor().numpy()
    assert f"in Y fc_0.w_0: float32[3, 2] {value_summary(w)}" in mul
    assert mul.index("x_num_col_dims") < mul.index("values after the run") < mul.index("built at")


def test_variable_nodes_and_a_live_scope():
    """A live scope keeps the parameters; the temporaries went with the run's scope."""
    prog, scope, exe, out = small_net()
    exe.run(prog, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out], scope=scope)
    dot = graph(prog, scope=scope)
    assert "after the run: float32[2] [0, 0]" in tooltip(dot, "var-b0-fc_0.b_0")
    assert "not in this scope: a temporary" in tooltip(dot, f"var-b0-{out.name}")
    without = graph(prog)
    assert "after the run" not in tooltip(without, "op-b0-0")


def test_a_record_without_values_says_how_to_get_them():
    prog, scope, exe, out = small_net()
    record = run_recorded(exe, prog, scope, out, values=False)
    relu = tooltip(graph(prog, scope=record), "op-b0-2")
    assert "float32[1, 2] (values not recorded: set exe.record_values = True)" in relu
    live = RunValues(record, live=scope)          # the Dashboard's way: parameters from scope
    assert live.say("fc_0.b_0") == "float32[2] [0, 0]"


def test_step_scope_values_say_which_step():
    prog, startup, _, h, out = rnn_program()
    scope, exe = pd.Scope(), pd.Executor()
    exe.run(startup, scope=scope)
    records = []
    exe.subscribe(records.append)
    exe.record_values = True
    exe.run(prog, feed={"x": np.ones((T, BATCH, IN), "float32")}, fetch_list=[out], scope=scope)
    dot = graph(prog, scope=records[-1])
    said = RunValues(records[-1]).say(h.name)
    assert re.search(rf"\(in step {T - 1}, last of {T} scopes\)$", said), said
    values = RunValues(records[-1])
    stacked = values.say(out.name, outer=True)           # block 0's out: the run scope's
    assert stacked.startswith(f"float32[{T}, {BATCH}, {HID}] [") and "step" not in stacked
    assert values.say(out.name, outer=False).endswith(f"(in step {T - 1}, last of {T} scopes)")
    recurrent = tooltip(dot, "op-b0-1")
    assert f"float32[{T}, {BATCH}, {HID}]" in recurrent, recurrent
    step_ops = [n for n, a in dot.paddle_nodes.items() if a.get("block") == 1 and "op" in a]
    assert any("last of 3 scopes" in tooltip(dot, n) for n in step_ops)


def test_an_op_with_many_inputs_lists_a_few():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        xs = [pd.layers.data(f"x{i}", shape=[1]) for i in range(12)]
        joined = pd.layers.concat(xs, axis=1)
    exe, records = pd.Executor(), []
    exe.subscribe(records.append)
    exe.run(prog, feed={f"x{i}": np.ones((1, 1), "float32") for i in range(12)},
            fetch_list=[joined])
    dot = graph(prog, scope=records[-1], collapse=False)
    op = next(n for n, a in dot.paddle_nodes.items() if a.get("op-type") == "concat")
    text = tooltip(dot, op)
    assert f"… {12 + 1 - MAX_SLOT_LINES} more variables" in text


def test_a_run_records_display_draws_its_graph_with_the_values():
    prog, scope, exe, out = small_net()
    page = html_of(run_recorded(exe, prog, scope, out))
    assert "hover an op for its values" in page and "released after its last use" in page


def test_the_dashboard_sends_each_ops_values_after_a_run():
    prog, scope, exe, out = small_net()
    dash = Dashboard(prog, scope, exe)
    before = dash.op_values["0/2"]      # before this program ran: the scope's, no temporaries
    assert "in X hidden (fc_0.tmp_1): not in this scope: a temporary" in before
    exe.run(prog, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out], scope=scope)
    relu = dash.op_values["0/2"]
    assert "in X hidden (fc_0.tmp_1): released after its last use" in relu
    assert "(values not recorded" in relu                         # record_values is off
    assert "float32[3, 2] [" in dash.op_values["0/0"]             # the weight, from the scope
    exe.record_values = True
    exe.run(prog, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out], scope=scope)
    assert "out Out out (relu_0.tmp_0): float32[1, 2] [" in dash.op_values["0/2"]
    json.dumps(dash.state())
    later = Dashboard(prog, scope, pd.Executor())    # runs it cannot count, their values
    assert "float32[3, 2] [" in later.op_values["0/0"]  # left in the scope: the weight
    assert Dashboard(prog, pd.Scope(), pd.Executor()).op_values == {}    # nothing ran there
    dash.close()
    later.close()


# -- the user's names ---------------------------------------------------------------------------
def named_net():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3])
        hidden = pd.layers.fc(x, 2)
        out = pd.layers.relu(hidden)
    return prog, startup, hidden, out


def test_the_block_tree_shows_the_users_names_with_theirs_on_hover():
    prog, _, hidden, out = named_net()
    html = block_tree(prog).html
    assert (f'<span class="pnb-user-name" title="{hidden.name}" '
            f'data-internal="{hidden.name}">hidden</span>') in html
    assert f'data-internal="{out.name}">out</span>' in html
    assert 'class="pnb-user-name"' not in block_tree(prog, python_names=False).html


def test_the_scope_tree_of_a_run_shows_the_users_names():
    prog, startup, hidden, out = named_net()
    scope, exe = pd.Scope(), pd.Executor()
    exe.run(startup, scope=scope)
    records = []
    exe.subscribe(records.append)
    exe.run(prog, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out], scope=scope)
    html = scope_tree(records[-1]).html
    assert f'data-internal="{out.name}">out</span>' in html
    assert f'data-var="{out.name}"' in html                     # rows keep the program's name
    assert 'class="pnb-user-name"' not in scope_tree(records[-1], python_names=False).html
    declared = scope_tree(scope, program=prog).html     # a live scope: out is declared only
    assert f'data-internal="{out.name}">out</span>' in declared


def test_the_dashboard_knows_the_users_names():
    prog, startup, hidden, out = named_net()
    scope, exe = pd.Scope(), pd.Executor()
    exe.run(startup, scope=scope)
    dash = Dashboard(prog, scope, exe)
    named = {hidden.name: "hidden", out.name: "out"}
    assert dash.names == {"outer": named, "inner": named}
    exe.run(prog, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out], scope=scope)
    assert "out Out out (relu_0.tmp_0)" in dash.op_values["0/2"]
    dash.close()


@pytest.mark.parametrize("value, said", [
    (np.float32(1.5), "1.5"), (np.arange(3), "[0, 1, 2]"),
    (np.array([True, False, True, True]), "[True, False, True, … 1 more] mean 0.75"),
])
def test_value_summary(value, said):
    assert value_summary(value) == said


def rnn_program():
    """A StaticRNN (fc + tanh over [x_t, h_pre]): (prog, startup, x_t, h, out)."""
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
    return prog, startup, x_t, h, out


def test_a_step_blocks_name_stays_in_its_step_scopes(monkeypatch):
    """StaticRNN's step slice of ``x`` is a step-block variable named ``x`` too: the notebook's
    ``x_t`` names it in the step scopes and the step block, never the outer sequence."""
    from paddle_nb.viz import names as names_module
    prog, startup, x_t, _, out = rnn_program()
    assert x_t.name == "x" and x_t.block.idx == 1
    namespace = {"x_t": x_t, "out": out}
    monkeypatch.setattr(names_module, "_namespace", lambda: namespace)
    scope, exe, records = pd.Scope(), pd.Executor(), []
    exe.run(startup, scope=scope)
    exe.subscribe(records.append)
    exe.run(prog, feed={"x": np.ones((T, BATCH, IN), "float32")}, fetch_list=[out], scope=scope)
    html = scope_tree(records[-1]).html
    run_part, steps = html.split('data-scope-label="step 0"', 1)
    assert 'data-internal="x">x_t</span>' not in run_part         # the run scope's x is x
    assert 'data-internal="x">x_t</span>' in steps
    tree = block_tree(prog).html
    block0, block1 = tree.split('data-block="1"', 1)
    assert 'data-internal="x">' not in block0 and 'data-internal="x">x_t</span>' in block1
    dash = Dashboard(prog, scope, exe)
    assert "x" not in dash.names["outer"] and dash.names["inner"]["x"] == "x_t"
    assert dash.names["outer"][out.name] == "out"
    dash.close()
