"""pd.viz.graph: the DOT source of known programs, folding, and the SVG it renders to.

The DOT source is parsed back into nodes (with attributes), edges and the cluster each
node sits in, so the tests assert on structure: which op owns which cluster, which edges
are captures, which colour each role gets, how many nodes folding leaves.
"""

import html
import re
import shutil

import pytest

pytest.importorskip("graphviz")

import paddle_nb as pd                                           # noqa: E402
from paddle_nb.framework.operator import OpRole                  # noqa: E402
from paddle_nb.viz import graph                                  # noqa: E402
from paddle_nb.viz.display import graph_html, svg_of             # noqa: E402
from paddle_nb.viz.graph import DEFAULT_MAX_NODES                # noqa: E402
from paddle_nb.viz.style import ROLE_COLOURS, VAR_STYLES         # noqa: E402
from tests.viz import build_ifelse, build_mlp, build_rnn, owner_of  # noqa: E402

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's `dot` is missing")

NODE = re.compile(r'^\s*"([^"]+)" \[(.*)\]$', re.M)
EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)"(?: \[(.*)\])?$', re.M)
ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s\]]+)')


def attrs(text):
    return {k: v[1:-1] if v.startswith('"') else v for k, v in ATTR.findall(text or "")}


def nodes(dot):
    return {m.group(1): attrs(m.group(2)) for m in NODE.finditer(dot.source)}


def edges(dot):
    return [(a, b, attrs(c)) for a, b, c in EDGE.findall(dot.source)]


def clusters(dot):
    """({node: innermost cluster}, {cluster: enclosing cluster or None}) from the source."""
    where, parent, stack = {}, {}, []
    for line in dot.source.splitlines():
        opened = re.match(r"\s*subgraph (cluster_b\d+) \{", line)
        inner = [c for c in stack if c]                     # anonymous {rank=same} groups: None
        if opened:
            parent[opened.group(1)] = inner[-1] if inner else None
            stack.append(opened.group(1))
        elif line.strip() == "{":
            stack.append(None)
        elif line.strip() == "}" and stack:
            stack.pop()
        else:
            node = NODE.match(line)
            if node:
                where[node.group(1)] = inner[-1] if inner else None
    return where, parent


def op_id(block, k):
    return f"op-b{block}-{k}"


# -- an MLP: nodes, shapes, dtypes, kinds ----------------------------------------------------------
def test_mlp_has_a_node_per_op_and_variable_with_dtype_and_shape():
    main, _, _ = build_mlp()
    dot = graph(main, python_names=False)
    ns = nodes(dot)
    block = main.global_block()
    for k, op in enumerate(block.ops):
        assert ns[op_id(0, k)]["label"] == f"#{k} {op.type}"
        assert ns[op_id(0, k)]["id"] == op_id(0, k)
    for name, var in block.vars.items():
        assert ns[f"var-b0-{name}"]["label"].startswith(name + "\\n")
    assert ns["var-b0-x"]["label"] == "x\\nfloat32[-1, 4]"
    assert ns["var-b0-fc_0.w_0"]["label"] == "fc_0.w_0\\nfloat32[4, 8]"


def test_parameters_and_data_are_set_apart():
    main, _, _ = build_mlp()
    ns = nodes(graph(main))
    param, data, temp = ns["var-b0-fc_0.w_0"], ns["var-b0-x"], ns["var-b0-fc_0.tmp_0"]
    assert param["class"] == "var parameter" and param["shape"] == "cylinder"
    assert param["fillcolor"] == VAR_STYLES["parameter"]["fillcolor"]
    assert data["class"] == "var data" and temp["class"] == "var temp"
    assert temp["shape"] == "ellipse" and data["fillcolor"] != temp["fillcolor"]


def test_edges_follow_the_dataflow():
    main, _, _ = build_mlp()
    es = {(a, b) for a, b, _ in edges(graph(main))}
    mul = main.global_block().ops[0]
    assert mul.type == "mul"
    assert ("var-b0-x", op_id(0, 0)) in es and ("var-b0-fc_0.w_0", op_id(0, 0)) in es
    assert (op_id(0, 0), "var-b0-fc_0.tmp_0") in es


def test_backward_and_optimizer_ops_are_coloured_by_role():
    main, _, _ = build_mlp(train=True)
    ns = nodes(graph(main, collapse=False))
    seen = set()
    for k, op in enumerate(main.global_block().ops):
        role = OpRole.name(op.role)
        assert ns[op_id(0, k)]["fillcolor"] == ROLE_COLOURS[role]
        assert f"role-{role}" in ns[op_id(0, k)]["class"]
        seen.add(role)
    assert {"forward", "backward", "optimize"} <= seen
    types = {op.type: OpRole.name(op.role) for op in main.global_block().ops}
    assert types["mul_grad"] == "backward" and types["sgd"] == "optimize"


def test_an_optimizer_update_does_not_push_the_forward_pass_down():
    main, _, _ = build_mlp(train=True)
    sgd = [k for k, op in enumerate(main.global_block().ops) if op.type == "sgd"]
    updates = {(a, b): e for a, b, e in edges(graph(main, collapse=False))
               if a in {op_id(0, k) for k in sgd}}
    for (_, head), e in updates.items():
        if head.startswith("var-b0-fc_"):
            assert e["constraint"] == "false" and "update" in e["class"]


# -- IfElse: clusters tied to their ops, captures --------------------------------------------------
def test_each_sub_block_is_a_cluster_nested_in_its_parent_and_tied_to_its_op():
    main, _ = build_ifelse()
    dot = graph(main)
    where, parent = clusters(dot)
    assert parent == {"cluster_b0": None, "cluster_b1": "cluster_b0", "cluster_b2": "cluster_b0"}
    ties = [(a, b, e) for a, b, e in edges(dot) if e.get("class") == "owns"]
    assert len(ties) == 2
    for sub in (1, 2):
        owner = op_id(*owner_of(main, sub))
        (tail, head, e), = [t for t in ties if t[2]["lhead"] == f"cluster_b{sub}"]
        assert tail == owner and where[head] == f"cluster_b{sub}"
        assert nodes(dot)[owner]["class"] == "op role-forward control-flow"
    assert 'id="block-1"' in dot.source
    assert 'label="block 1 (parent 0): sub-block of #' in dot.source


def test_a_variable_read_from_an_outer_block_comes_in_dashed():
    main, _ = build_ifelse()
    dot = graph(main)
    where, _ = clusters(dot)
    captures = [(a, b) for a, b, e in edges(dot) if e.get("class") == "capture"]
    assert all(e["style"] == "dashed" for *_, e in edges(dot) if e.get("class") == "capture")
    false_branch = main.block(2)
    mul = false_branch.ops[0]
    for name in mul.input_arg_names:            # both read from block 0: the rows and the weight
        assert (f"var-b0-{name}", op_id(2, 0)) in captures
        assert where[f"var-b0-{name}"] == "cluster_b0"
    assign = false_branch.ops[-1]
    assert (op_id(2, len(false_branch.ops) - 1), f"var-b0-{assign.output('Out')[0]}") in captures
    inner = [(a, b) for a, b, e in edges(dot) if a.startswith("var-b2-") and b == op_id(2, 1)]
    assert inner and not set(inner) & set(captures)


def test_graph_of_one_block_draws_the_outer_variables_it_reads():
    main, _ = build_ifelse()
    dot = graph(main.block(2))
    where, parent = clusters(dot)
    assert parent == {"cluster_b2": None}
    outer = {n: a for n, a in nodes(dot).items() if "outer" in a.get("class", "")}
    assert "var-b0-fc_0.w_0" in outer and where["var-b0-fc_0.w_0"] is None
    assert outer["var-b0-fc_0.w_0"]["label"].startswith("fc_0.w_0 (block 0)")


# -- StaticRNN: the step block and its links -------------------------------------------------------
def test_rnn_step_block_with_slice_init_and_next_step_links():
    main, _ = build_rnn()
    dot = graph(main)
    block, k = owner_of(main, 1)
    op = main.block(block).ops[k]
    assert op.type == "recurrent"
    links = {(a, b): e for a, b, e in edges(dot) if e.get("class") == "step"}
    assert links[("var-b0-x", "var-b1-x")]["label"] == "[t]"
    ex, state = op.attr("ex_states")[0], op.attr("states")[0]
    init = op.input("initial_states")[0]
    assert links[(f"var-b0-{init}", f"var-b1-{ex}")]["label"] == "init"
    back = links[(f"var-b1-{state}", f"var-b1-{ex}")]
    assert back["label"] == "next step" and back["constraint"] == "false"
    out = op.output("outputs")[0]
    assert links[(f"var-b1-{out}", f"var-b0-{out}")]["label"] == "stack"
    captures = {(a, b) for a, b, e in edges(dot) if e.get("class") == "capture"}
    assert any(a == "var-b0-fc_0.w_0" and b.startswith("op-b1-") for a, b in captures)
    assert nodes(dot)["var-b0-_generated_var_0"]["class"] == "var scopes"


def test_rnn_backward_block_nests_in_the_step_block_it_reads():
    main, _ = build_rnn(backward=True)
    dot = graph(main)
    _, parent = clusters(dot)
    grad_block = [b for b in main.blocks if b.idx not in (0, 1)][0]
    assert parent[f"cluster_b{grad_block.idx}"] == f"cluster_b{grad_block.parent_idx}"
    owner = op_id(*owner_of(main, grad_block.idx))
    assert nodes(dot)[owner]["fillcolor"] == ROLE_COLOURS["backward"]


# -- folding ---------------------------------------------------------------------------------------
def test_collapse_by_prefix_folds_each_layer_and_role_into_one_node():
    main, _, _ = build_mlp(train=True)
    full, folded = nodes(graph(main, collapse=False)), nodes(graph(main, collapse="prefix"))
    assert len(folded) < len(full) / 2
    fold = folded["fold-b0-fc_0-forward"]
    assert fold["class"] == "fold prefix role-forward" and fold["shape"] == "box3d"
    assert "mul, elementwise_add, relu" in fold["label"]
    assert "fold-b0-fc_0-backward" in folded and "fold-b0-fc_0-optimize" in folded
    assert "var-b0-fc_0.tmp_0" not in folded                  # used only inside fc_0's ops
    assert "var-b0-x" in folded                               # fed from outside: stays


def test_folded_nodes_are_joined_by_the_variables_between_them():
    main, _, _ = build_mlp(train=True)
    es = edges(graph(main, collapse="prefix"))
    through = {(a, b): e for a, b, e in es if "through" in e.get("class", "")}
    e = through[("fold-b0-fc_0-forward", "fold-b0-fc_1-forward")]
    assert e["xlabel"] == "h"           # the Python name build_mlp bound fc_0.tmp_2 to


def test_collapse_by_glob_pattern():
    main, _, _ = build_mlp()
    ns = nodes(graph(main, collapse="fc_0.*"))
    assert "fold-b0-fc_0.~2a~" in ns
    assert "3 ops" in ns["fold-b0-fc_0.~2a~"]["label"]
    assert not any(n.startswith("op-b0-") and "fc_0" in a["tooltip"].split("out:")[1]
                   for n, a in ns.items() if n.startswith("op-"))
    assert any(a["label"].endswith(" mul") for n, a in ns.items() if n.startswith("op-"))


def test_collapse_blocks_draws_each_sub_block_as_one_node_tied_to_its_op():
    main, _ = build_ifelse()
    dot = graph(main, collapse="blocks")
    where, parent = clusters(dot)
    assert parent == {"cluster_b0": None}
    ns = nodes(dot)
    assert ns["subblock-1"]["shape"] == "component" and where["subblock-1"] == "cluster_b0"
    es = edges(dot)
    owner = op_id(*owner_of(main, 2))
    assert any(a == owner and b == "subblock-2" and e["class"] == "owns" for a, b, e in es)
    assert any(a == "var-b0-fc_0.w_0" and b == "subblock-2" and e["class"] == "capture"
               for a, b, e in es)
    assert not any(n.startswith("var-b2-") for n in ns)


def big_program(layers):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        h = pd.layers.data("x", shape=[16])
        for _ in range(layers):
            h = pd.layers.fc(h, 16, act="relu")
        pd.optimizer.SGD(0.1).minimize(pd.layers.mean(h))
    return main


# The default used to fold by name prefix first (one node per fc layer and role), so a
# 12-layer MLP drew 40-odd layer nodes; it now finds the repeated layers by structure.
def test_a_mid_sized_program_folds_its_layers_as_one_repeat_per_role():
    main = big_program(12)
    assert len(main.global_block().ops) > DEFAULT_MAX_NODES
    dot = graph(main)
    assert "folded by repeats" in dot.paddle_note
    ns = nodes(dot)
    assert ns["repeat-b0-0"]["label"].startswith("12 x 3 ops (#0-#35)\\nmul, elementwise_add, relu")
    backward = [a for a in ns.values() if "role-backward" in a.get("class", "")]
    assert any(a["label"].startswith("11 x 3 ops") for a in backward)


def test_a_big_program_folds_until_it_fits_and_says_so():
    main = big_program(30)
    n_ops = len(main.global_block().ops)
    dot = graph(main)
    ns = nodes(dot)
    assert len(ns) <= DEFAULT_MAX_NODES            # every node counts: ops, folds, variables
    assert ns["repeat-b0-0"]["label"].startswith("30 x 3 ops")
    assert "fold repeat role-forward" == ns["repeat-b0-0"]["class"]
    assert f"{n_ops} ops" in dot.paddle_note and "folded by repeats" in dot.paddle_note
    assert "collapse=False" in dot.paddle_note and "expand=" in dot.paddle_note
    assert "expand=" in dot.source                      # in each folded node's tooltip
    assert len([n for n in nodes(graph(main, collapse=False)) if n.startswith("op-")]) == n_ops


def test_the_drawing_is_deterministic():
    assert graph(build_rnn(backward=True)[0]).source == graph(build_rnn(backward=True)[0]).source


# -- rendering -----------------------------------------------------------------------------------
@needs_dot
def test_svg_keeps_ids_and_gains_data_attributes():
    main, _ = build_ifelse()
    svg = svg_of(graph(main))
    assert svg.startswith("<svg")
    assert re.search(r'<g id="op&#45;b2&#45;0" class="node op role&#45;forward"[^>]* '
                     r'data-block="2" data-op="0" data-op-type="mul" data-role="forward"', svg)
    assert 'data-var="fc_0.w_0"' in svg and 'data-block="1"' in svg
    assert re.search(r'<g id="block&#45;1" class="cluster block" data-block="1"', svg)


@needs_dot
def test_a_graph_shows_itself_in_a_notebook_as_svg():
    bundle = graph(build_mlp()[0])._repr_mimebundle_()
    assert 'data-graph="svg"' in bundle["text/html"]


def test_without_dot_the_source_is_shown_with_how_to_get_pictures(monkeypatch):
    monkeypatch.setenv("PATH", "")
    text = graph_html(graph(build_mlp()[0]))
    assert 'data-graph="dot-source"' in text
    assert "apt-get install graphviz" in text and "conda install -c conda-forge graphviz" in text
    assert "digraph program" in text


@pytest.mark.slow
@needs_dot
def test_a_thousand_op_program_renders_folded():
    """(bench/bench_draw.py times the drawing; tests assert no timings.)"""
    main = big_program(120)
    assert len(main.global_block().ops) >= 950
    svg = svg_of(graph(main))
    assert "repeat&#45;b0&#45;0" in svg and "120 x 3 ops" in svg


# -- hostile names (issue 23, item 13) -------------------------------------------------------------
HOSTILE = ["ends\\", 'q"uote', "<b>", "a>b", "{brace}", "pi|pe", "new\nline", "two\\\\", "c:d",
           "sp ace", "a&b", "\\n", "x\\"]


def hostile_program():
    prog = pd.Program()
    with pd.program_guard(prog, pd.Program()):
        for name in HOSTILE:
            pd.layers.relu(pd.layers.data(name, shape=[3]))
    return prog


def test_hostile_names_get_distinct_ids_and_literal_labels():
    dot = graph(hostile_program(), dataflow="full")
    drawn = [n for n in dot.paddle_nodes if n.startswith("var-b0-") and "relu" not in n]
    assert len(set(drawn)) == len(HOSTILE)          # no two names share a node
    assert all(re.fullmatch(r"[A-Za-z0-9_.@/~-]+", n) for n in drawn)


@needs_dot
def test_every_name_draws():
    """A name ending in a backslash, or holding quotes, <, >, {, |, newlines, draws: `dot`
    reads the source, and the picture shows the name as written."""
    prog = hostile_program()
    for dataflow in ("full", "compact"):
        svg = svg_of(graph(prog, dataflow=dataflow))
        assert svg.startswith("<svg")
    svg = svg_of(graph(prog, dataflow="full"))
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    for name in ("ends\\", 'q"uote', "<b>", "a>b", "{brace}", "pi|pe", "two\\\\", "\\n", "x\\"):
        assert name in texts, name
    assert "new" in texts and "line" in texts       # a newline in a name breaks the line
    page = pd.viz.html_of(prog)
    assert "could not draw" not in page and 'data-graph="svg"' in page
