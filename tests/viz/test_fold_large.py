"""Large programs drawn readably: ResNets saved by PaddlePaddle 2.6.2, a 1,000-op program, a
transformer-like stack, a While loop with a big body.

Each default drawing must read at a glance: at most DEFAULT_MAX_NODES nodes (ops, folded
nodes and variables alike), repeated structure folded into "N x ..." nodes, parameters next to
(or inside) the op that reads them, and any folded node can be opened with ``expand``. The
ResNet programs are the ``.pdmodel`` files interop/make_draw_fixtures.py wrote.
"""

import pathlib
import re

import pytest

pytest.importorskip("graphviz")

import paddle_nb as pd                                           # noqa: E402
from paddle_nb.io import load_program                            # noqa: E402
from paddle_nb.viz import graph                                  # noqa: E402
from paddle_nb.viz.graph import DEFAULT_MAX_NODES                # noqa: E402
from paddle_nb.viz.repeats import find_repeats                   # noqa: E402
from tests.viz.test_graph import big_program, clusters, edges, nodes  # noqa: E402

DRAW = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "draw"


def resnet(name):
    return load_program(str(DRAW / f"{name}.pdmodel"))


def folds(ns):
    """{id: label} of the folded nodes."""
    return {n: a["label"] for n, a in ns.items() if a.get("class", "").startswith("fold")}


# -- finding repeats --------------------------------------------------------------------------
def test_repeats_are_found_by_wiring_and_the_first_copy_is_not_rotated():
    layer = [("mul", (1, None)), ("add", (1, None)), ("relu", (1,))]
    first = [("mul", (None, None)), ("add", (1, None)), ("relu", (1,))]  # reads the feed
    assert find_repeats(first + layer * 4 + [("mean", (1,))]) == [(0, 3, 5)]
    other_wiring = [("mul", (1, None)), ("add", (2, None)), ("relu", (1,))]
    assert find_repeats(layer + other_wiring) == []


def test_the_repeat_saving_most_items_wins_over_a_pair_inside_each_copy():
    cbr = [("conv", (1,)), ("bn", (1,)), ("relu", (1,))]
    block = cbr + cbr + [("add", (1, 6)), ("relu", (1,))]      # a pair of (conv, bn, relu) inside
    assert find_repeats(block * 3) == [(0, 8, 3)]


def test_two_copies_of_a_long_stretch_are_not_enough():
    long = [(f"op{i}", (1,)) for i in range(40)]
    assert find_repeats(long * 2) == []
    assert find_repeats(long * 3) == [(0, 40, 3)]


# -- ResNets saved by PaddlePaddle ------------------------------------------------------------
def test_resnet18_default_graph_is_compact_and_folds_its_residual_blocks():
    """By default a program too big to draw in full draws its parameters in the labels of
    their ops and its intermediates as named edges (issue 25: compact by default), then
    folds its repeated blocks; no variable stands alone (the XShape nobody reads)."""
    dot = graph(resnet("resnet18"))
    ns = nodes(dot)
    assert len(ns) <= 20
    assert not [n for n in ns if n.startswith("var-")]
    labels = folds(ns)
    assert labels["repeat-b0-5"].startswith(
        "2 x 7 ops (#5-#18)\\nconv2d, batch_norm, relu, elementwise_add")
    assert labels["repeat-b0-19"].startswith("3 x 16 ops")
    assert ns["op-b0-2"]["label"] == "#2 batch_norm\\n+4 params (batch_norm2d_0.*)"
    through = {e["xlabel"] for a, b, e in edges(dot) if "xlabel" in e}
    assert {"conv2d_20.tmp_0", "relu_4.tmp_0", "linear_1.tmp_0"} <= through
    tips = {e["xlabel"]: e["tooltip"] for a, b, e in edges(dot) if "xlabel" in e}
    assert tips["relu_4.tmp_0"] == "relu_4.tmp_0: float32[-1, 64, 56, 56]"   # hover: its type
    assert "flatten_0.tmp_1" not in dot.source
    assert dot.paddle_note.startswith("73 ops (289 nodes in full) drawn as")
    assert "dataflow='full'" in dot.paddle_note


def test_resnet18_full_dataflow_folds_its_residual_blocks_and_fits():
    program = resnet("resnet18")
    dot = graph(program, dataflow="full")
    ns = nodes(dot)
    assert len(ns) <= DEFAULT_MAX_NODES
    labels = folds(ns)
    assert labels["repeat-b0-5"].startswith(
        "2 x 7 ops (#5-#18)\\nconv2d, batch_norm, relu, elementwise_add")
    assert labels["repeat-b0-19"].startswith("3 x 16 ops")        # downsampling + basic block
    assert "#19-#66" in labels["repeat-b0-19"] and "+75 params" in labels["repeat-b0-19"]
    # The parameters left (stem and head) sit beside their op, not in a row on top.
    beside = dict(re.findall(r'\{\s*rank=same\s*"([^"]+)"\s*"([^"]+)"\s*\}', dot.source))
    params = [n for n, a in ns.items() if a.get("class", "").startswith("var persistable")]
    assert len(params) == 9 and all(p in beside for p in params)
    assert "var-b0-flatten_0.tmp_1" not in ns                    # touched by no op
    assert beside["var-b0-conv2d_0.w_0"] == "op-b0-1"
    assert beside["var-b0-linear_0.w_0"] == "op-b0-69"
    assert dot.paddle_note.startswith("73 ops (289 nodes in full) drawn as")


def test_a_tighter_cap_writes_parameters_into_the_labels_of_their_ops():
    ns = nodes(graph(resnet("resnet18"), max_nodes=30))
    assert len(ns) <= 30
    assert not [n for n, a in ns.items() if "persistable" in a.get("class", "")]
    assert ns["op-b0-1"]["label"] == "#1 conv2d\\nconv2d_0.w_0 [64, 3, 7, 7]"
    assert ns["op-b0-2"]["label"] == "#2 batch_norm\\n+4 params (batch_norm2d_0.*)"


def test_resnet50_default_graph_folds_the_bottlenecks_of_each_stage():
    ns = nodes(graph(resnet("resnet50")))
    assert len(ns) <= DEFAULT_MAX_NODES
    heads = sorted(label.split("\\n")[0].split(" (#")[0] for label in folds(ns).values())
    assert heads.count("2 x 10 ops") == 2 and "3 x 10 ops" in heads and "5 x 10 ops" in heads
    assert "2 x 3 ops" in heads                       # conv2d, batch_norm, relu twice, per stage


def test_a_tighter_cap_folds_repeats_of_repeats_that_open_level_by_level():
    program = resnet("resnet50")
    ns = nodes(graph(program, max_nodes=20))
    assert len(ns) <= 20
    (stages, label), = folds(ns).items()
    assert label.startswith("4 x 32-62 ops")                      # the four stages
    opened = nodes(graph(program, max_nodes=20, expand=[stages]))
    assert stages not in opened
    heads = {a.split("\\n")[0].split(" (#")[0] for a in folds(opened).values()}
    assert {"2 x 10 ops", "3 x 10 ops", "5 x 10 ops"} <= heads     # bottlenecks per stage


def test_expand_opens_one_folded_node_into_its_ops():
    program = resnet("resnet18")
    ns = nodes(graph(program, expand=["repeat-b0-19"]))
    assert "repeat-b0-19" not in ns and "repeat-b0-5" in ns
    drawn = {int(n.split("-")[2]) for n in ns if n.startswith("op-b0-")}
    assert set(range(19, 67)) <= drawn
    assert "op-b0-19" in ns and ns["op-b0-19"]["label"].startswith("#19 conv2d")


def test_the_tooltip_says_how_to_open_a_folded_node():
    ns = nodes(graph(resnet("resnet18")))
    assert "expand=['repeat-b0-5']" in ns["repeat-b0-5"]["tooltip"]


def test_collapse_false_still_draws_every_op_and_variable():
    program = resnet("resnet18")
    ns = nodes(graph(program, collapse=False))
    assert len([n for n in ns if n.startswith("op-")]) == len(program.global_block().ops)


# -- programs built here -------------------------------------------------------------------------
def test_a_thousand_op_program_folds_to_a_readable_graph():
    main = big_program(125)
    assert len(main.global_block().ops) >= 1000
    dot = graph(main)                    # (how long it takes: bench/bench_draw.py)
    ns = nodes(dot)
    assert len(ns) <= DEFAULT_MAX_NODES
    assert folds(ns)["repeat-b0-0"].startswith("125 x 3 ops (#0-#374)\\nmul, elementwise_add, relu")


def transformer(layers=6, width=8):
    """A stack of encoder-like layers: attention (q, k, v, softmax), residual, a hand-made
    layer norm, a feed-forward block, residual. About 30 ops a layer."""
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        h = pd.layers.data("tokens", shape=[width])
        for _ in range(layers):
            q, k, v = (pd.layers.fc(h, width) for _ in range(3))
            att = pd.layers.softmax(pd.layers.matmul(q, k, transpose_y=True, alpha=0.5))
            h = _norm(pd.layers.elementwise_add(h, pd.layers.fc(pd.layers.matmul(att, v), width)))
            ff = pd.layers.fc(pd.layers.fc(h, 2 * width, act="relu"), width)
            h = _norm(pd.layers.elementwise_add(h, ff))
        pd.layers.mean(h)
    return main


def _norm(x):
    centred = pd.layers.elementwise_sub(x, pd.layers.reduce_mean(x, dim=1, keep_dim=True))
    var = pd.layers.reduce_mean(pd.layers.square(centred), dim=1, keep_dim=True)
    return pd.layers.elementwise_div(centred, pd.layers.sqrt(pd.layers.scale(var, bias=1e-5)))


def test_a_transformer_like_stack_folds_into_one_node_of_layers():
    main = transformer()
    n_ops = len(main.global_block().ops)
    ns = nodes(graph(main))
    assert len(ns) <= DEFAULT_MAX_NODES
    per_layer = (n_ops - 1) // 6
    assert any(label.startswith(f"6 x {per_layer} ops") for label in folds(ns).values())


def while_program(steps=12):
    """A While loop whose body is a dozen identical updates (an unrolled inner loop)."""
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[3])
        i = pd.layers.fill_constant([1], "int64", 0)
        n = pd.layers.fill_constant([1], "int64", 4)
        acc = pd.layers.scale(x, 1.0)
        c = pd.layers.less_than(i, n)
        loop = pd.layers.While(c)
        with loop.block():
            h = acc
            for _ in range(steps):
                h = pd.layers.tanh(pd.layers.scale(h, 0.5) + x)
            pd.layers.assign(h, acc)
            pd.layers.increment(i)
            pd.layers.less_than(i, n, cond=c)
    return main


def test_a_while_body_folds_its_steps_inside_its_cluster():
    main = while_program()
    dot = graph(main, dataflow="full")
    ns = nodes(dot)
    assert len(ns) <= DEFAULT_MAX_NODES
    where, parent = clusters(dot)
    (nid, label), = folds(ns).items()
    assert label.startswith("12 x 3 ops (#0-#35)\\nscale, elementwise_add, tanh")
    assert where[nid] == "cluster_b1" and parent["cluster_b1"] == "cluster_b0"
    owner, = [n for n, a in ns.items() if "control-flow" in a.get("class", "")]
    (tail, head), = [(a, b) for a, b, e in edges(dot) if e.get("class") == "owns"]
    assert tail == owner and where[head] == "cluster_b1"


def test_a_small_programs_parameters_sit_beside_the_op_that_reads_them():
    main = big_program(2)
    source = graph(main, collapse=False).source
    pairs = re.findall(r'\{\s*rank=same\s*"([^"]+)"\s*"([^"]+)"\s*\}', source)
    assert ("var-b0-fc_0.w_0", "op-b0-0") in pairs
    assert ("var-b0-fc_0.b_0", "op-b0-1") in pairs


def test_large_drawings_are_deterministic():
    assert graph(resnet("resnet50")).source == graph(resnet("resnet50")).source


def test_the_dashboard_redraws_a_block_with_the_folded_nodes_it_is_told_to_open():
    pytest.importorskip("anywidget")
    from paddle_nb.viz import Dashboard
    dash = Dashboard(resnet("resnet18"), pd.Scope(), pd.Executor())
    try:
        assert '"repeat-b0-19" [' in dash.graphs["0"]["dot"]
        dash.expanded = {"0": ["repeat-b0-19"]}            # what a click in the widget sends
        assert '"repeat-b0-19" [' not in dash.graphs["0"]["dot"]
        assert '"op-b0-19" [' in dash.graphs["0"]["dot"]
        dash.expanded = {}                                 # "fold again"
        assert '"repeat-b0-19" [' in dash.graphs["0"]["dot"]
    finally:
        dash.close()
