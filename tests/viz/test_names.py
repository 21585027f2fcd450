"""viz/names.py: the Python names a user's code bound variables to, and the graph showing them."""

import pytest

import paddle_nb as pd
from paddle_nb.viz.names import assigned_names, user_names


def test_assignment_targets_are_read_from_the_line():
    assert assigned_names("h = pd.layers.fc(x, 3)") == ["h"]
    assert assigned_names("o1, o2 = rnn()") == ["o1", "o2"]
    assert assigned_names("a, = f()") == ["a"]
    for line in ("h += 1", "f(a=1)", "x == y", "self.w = w", "d[k] = v", ""):
        assert assigned_names(line) == []


def mlp():
    prog = pd.Program()
    with pd.program_guard(prog, pd.Program()):
        x = pd.layers.data("x", shape=[3])
        hidden = pd.layers.fc(x, 4, act="relu")
        h = hidden
        for _ in range(2):
            h = pd.layers.scale(h, 2.0)
        loss = pd.layers.mean(h)
    return prog, loss


def test_a_line_names_its_last_ops_main_output_and_a_rebound_name_its_last_variable():
    prog, loss = mlp()
    names = user_names(prog, namespace={})
    assert names[(0, "fc_0.tmp_2")] == "hidden"           # mul, add, relu: relu's Out
    assert names[(0, loss.name)] == "loss"
    assert list(names.values()).count("h") == 1           # the loop bound h twice: the last
    assert names[(0, "scale_1.tmp_0")] == "h"
    # parameters keep theirs
    assert (0, "x") not in names and not any("w_0" in n for _, n in names)


def test_a_namespace_names_what_no_line_built():
    prog, _ = mlp()
    x = prog.global_block().var("x")
    named = user_names(prog, namespace={"inputs": x, "_": x, "other": pd.Program()})
    assert named[(0, "x")] == "inputs"                     # "_" (IPython's) is left out


def test_the_graph_labels_variables_with_the_users_names_and_keeps_theirs_on_hover():
    pytest.importorskip("graphviz")
    from paddle_nb.viz import graph
    prog, _ = mlp()
    dot = graph(prog, dataflow="full")
    node = dot.paddle_nodes["var-b0-fc_0.tmp_2"]
    assert node["user-name"] == "hidden" and node["var"] == "fc_0.tmp_2"
    assert 'label="hidden\\nfloat32[-1, 4]"' in dot.source
    assert 'tooltip="hidden = fc_0.tmp_2: float32[-1, 4]' in dot.source
    assert "user-name" not in graph(prog, python_names=False).paddle_nodes["var-b0-fc_0.tmp_2"]


def test_a_program_paddlepaddle_saved_gets_no_names_from_its_partial_callstacks():
    from tests.viz.test_fold_large import resnet
    assert user_names(resnet("resnet18"), namespace={}) == {}
