"""pd.viz.block_tree and pd.viz.scope_tree: structure and numbers, read from data-* attributes.

The HTML is parsed with the standard library into a small element tree, so the tests
can ask "which scope holds this row" or "is this block inside that op's <li>".
"""

from html.parser import HTMLParser

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.executor.record import snapshot_scope
from paddle_nb.framework.printer import program_to_text
from paddle_nb.viz import block_tree, scope_tree
from tests.viz import T, build_ifelse, build_mlp, build_rnn, owner_of, rnn_feed, run_recorded


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids, self.text = tag, dict(attrs), parent, [], ""

    def walk(self):
        yield self
        for kid in self.kids:
            yield from kid.walk()

    def find(self, **data):
        """Elements below this one whose data-* attributes match ``data``."""
        want = {f"data-{k.replace('_', '-')}": str(v) for k, v in data.items()}
        return [e for e in self.walk() if all(e.attrs.get(k) == v for k, v in want.items())]

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def all_text(self):
        return self.text + "".join(k.all_text() for k in self.kids)


class TreeParser(HTMLParser):
    VOID = {"img", "br", "hr", "meta", "input"}

    def __init__(self):
        super().__init__()
        self.root = self.node = Element("root", {}, None)

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs, self.node)
        self.node.kids.append(element)
        if tag not in self.VOID:
            self.node = element

    def handle_endtag(self, tag):
        node = self.node
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.node = node.parent

    def handle_data(self, data):
        self.node.text += data


def parse(html):
    parser = TreeParser()
    parser.feed(html)
    return parser.root


def one(root, **data):
    found = root.find(**data)
    assert len(found) == 1, f"{data}: {len(found)} elements"
    return found[0]


# -- the block tree --------------------------------------------------------------------------------
def test_block_tree_nests_each_sub_block_under_the_op_that_owns_it():
    main, _ = build_ifelse()
    root = parse(block_tree(main).html)
    for sub in (1, 2):
        block, k = owner_of(main, sub)
        li = [e for e in root.find(block=block, op=k) if e.tag == "li"][0]
        assert li.attrs["data-op-type"] == "conditional_block"
        div = [e for e in root.find(block=sub) if e.attrs.get("class") == "pnb-block"][0]
        assert li in list(div.ancestors())
        assert div.attrs["data-parent"] == "0"
    top = [e for e in root.find(block=0) if e.attrs.get("class") == "pnb-block"][0]
    assert top.attrs["data-parent"] == "-1"


def test_block_tree_lists_variables_and_ops_with_attributes_on_demand():
    main, _ = build_ifelse()
    root = parse(block_tree(main).html)
    weight = one(root, var="fc_0.w_0", block=0)
    assert weight.attrs["data-kind"] == "parameter" and "float32[3, 3]" in weight.all_text()
    block, k = owner_of(main, 2)
    li = [e for e in root.find(block=block, op=k) if e.tag == "li"][0]
    details = [e for e in li.kids if e.tag == "details"][0]
    assert "open" not in details.attrs                          # attributes on demand
    assert "sub_block" in details.all_text() and "is_scalar_condition" in details.all_text()
    assert "op_callstack" not in details.all_text()
    captures = [e for e in root.walk() if "data-captures" in e.attrs]
    assert any("fc_0.w_0" in e.attrs["data-captures"] for e in captures)


def test_block_tree_roles_and_its_text_form():
    main, _, _ = build_mlp(train=True)
    view = block_tree(main)
    roles = {e.attrs["data-op-type"]: e.attrs["data-role"]
             for e in parse(view.html).walk() if e.tag == "li"}
    assert roles["mul"] == "forward" and roles["mul_grad"] == "backward"
    assert roles["sgd"] == "optimize"
    assert repr(view) == program_to_text(main)


def test_block_tree_of_one_block():
    main, _ = build_ifelse()
    root = parse(block_tree(main.block(1)).html)
    blocks = [e.attrs["data-block"] for e in root.walk() if e.attrs.get("class") == "pnb-block"]
    assert blocks == ["1"]


# -- the scope tree: states ------------------------------------------------------------------------
def hand_made_scope():
    """created, typed, allocated and (after release) freed variables, and a kid scope."""
    scope = pd.Scope(label="mine")
    scope.var("created")
    scope.var("typed").get_tensor()
    scope.var("allocated").get_tensor().mutable_data(pd.CPUPlace(), "float32", (2, 3))
    freed = scope.var("freed").get_tensor()
    freed.mutable_data(pd.CPUPlace(), "float64", (4,))
    freed.free()
    kid = scope.new_scope(label="kid")
    kid.var("k").get_tensor().mutable_data(pd.CPUPlace(), "int64", (5,))
    return scope, freed


def states(root):
    return {(e.attrs["data-scope"], e.attrs["data-var"]): e.attrs["data-state"]
            for e in root.walk() if e.tag == "tr" and "data-state" in e.attrs}


def test_states_of_a_hand_made_scope():
    scope, freed = hand_made_scope()
    record = snapshot_scope(scope, released={id(freed)})
    root = parse(scope_tree(record).html)
    sid = str(scope.id)
    assert states(root) == {(sid, "created"): "created", (sid, "typed"): "typed",
                            (sid, "allocated"): "allocated", (sid, "freed"): "freed",
                            (str(scope.kids[0].id), "k"): "allocated"}
    row = one(root, var="allocated")
    assert row.attrs["data-bytes"] == "24"
    assert all(part in row.all_text() for part in ("float32", "[2, 3]", "CPUPlace()"))


def test_a_live_scope_is_snapshotted_and_its_bytes_summed_per_scope_and_place():
    scope, _ = hand_made_scope()
    view = scope_tree(scope)
    root = parse(view.html)
    mine, kid = one(root, scope_label="mine"), one(root, scope_label="kid")
    assert (mine.attrs["data-bytes"], mine.attrs["data-total-bytes"]) == ("24", str(24 + 40))
    assert (kid.attrs["data-bytes"], kid.attrs["data-total-bytes"]) == ("40", "40")
    assert one(root, place="CPUPlace()").attrs["data-bytes"] == "64"
    assert [e.attrs["data-state"] for e in root.walk() if e.attrs.get("data-legend") == "states"
            for e in e.walk() if "data-state" in e.attrs] == \
        ["declared", "created", "typed", "allocated", "freed"]
    assert repr(view).splitlines()[:2] == ["mine: 4 variables, 64 B", "  created  created"]


def test_values_on_request_from_a_live_scope():
    scope = pd.Scope()
    scope.var("w").get_tensor().set(np.arange(6, dtype="float32").reshape(2, 3))
    assert "data-preview" not in scope_tree(scope).html
    root = parse(scope_tree(scope, values=True).html)
    row = one(root, var="w")
    (table,) = [e for e in row.walk() if e.attrs.get("data-preview") == "table"]
    assert "5" in table.all_text()


def test_declared_variables_are_those_of_the_program_in_no_scope():
    main, start, loss = build_mlp()
    scope, exe = pd.Scope(), pd.Executor()
    exe.run(start, scope=scope)
    exe.run(main, feed={"x": np.ones((2, 4), "float32"), "y": np.ones((2, 1), "float32")},
            fetch_list=[loss], scope=scope)
    root = parse(scope_tree(scope, program=main).html)
    declared = {e.attrs["data-var"] for e in root.find(state="declared") if e.tag == "tr"}
    assert "fc_0.tmp_0" in declared and "x" in declared         # the run's scope is gone
    assert "fc_0.w_0" not in declared                            # the parameters stay
    assert states(root)[(str(scope.id), "fc_0.w_0")] == "allocated"


def test_a_destroyed_scope_cannot_be_drawn():
    scope = pd.Scope()
    scope.destroy()
    with pytest.raises(ValueError, match="destroyed scope"):
        scope_tree(scope)


# -- the scope tree of an RNN run ------------------------------------------------------------------
@pytest.fixture(scope="module")
def rnn_record():
    main, loss = build_rnn(backward=True)
    record, scope = run_recorded(main, rnn_feed(), loss, values=True)
    return main, record, scope


def test_rnn_run_shows_each_step_scope_with_its_variables(rnn_record):
    main, record, _ = rnn_record
    root = parse(scope_tree(record).html)
    steps = [e for e in root.walk() if e.attrs.get("data-scope-label", "").startswith("step ")]
    assert [e.attrs["data-scope-label"] for e in steps] == [f"step {t}" for t in range(T)]
    run = one(root, scope_label="run")
    for step in steps:
        assert run in list(step.ancestors())
        rows = {e.attrs["data-var"]: e.attrs["data-state"] for e in step.walk()
                if e.tag == "tr" and e.attrs.get("data-scope") == step.attrs["data-scope"]}
        assert set(main.block(1).vars) <= set(rows)
        assert rows["x"] == "allocated" and rows["static_rnn_0@mem_0"] == "allocated"
        grads = [e for e in step.walk() if e.attrs.get("data-scope-label") == "grad"]
        assert len(grads) == 1


def test_rnn_run_bytes_per_scope_and_place_match_the_record(rnn_record):
    _, record, _ = rnn_record
    root = parse(scope_tree(record).html)
    for rec in record.scopes.walk():
        (div,) = [e for e in root.find(scope=rec.id) if e.attrs.get("class") == "pnb-scope"]
        assert int(div.attrs["data-bytes"]) == sum(v.nbytes for v in rec.vars)
        assert int(div.attrs["data-total-bytes"]) == sum(s.nbytes() for s in rec.walk())
    total = sum(s.nbytes() for s in record.scopes.walk())
    assert one(root, place="CPUPlace()").attrs["data-bytes"] == str(total)
    x_step = [e for e in root.find(var="x") if e.tag == "tr"][1]     # a step's slice of x
    assert x_step.attrs["data-bytes"] == str(2 * 3 * 4)


def test_rnn_run_values_are_previewed_when_recorded(rnn_record):
    _, record, _ = rnn_record
    root = parse(scope_tree(record, values=True).html)
    assert [e for e in root.walk() if e.attrs.get("data-preview") == "table"]
    text = repr(scope_tree(record))
    assert "  run: " in text and "    step 0: " in text and "      grad: " in text


# -- trees that open where you look ----------------------------------------------------------------
def deep_program(layers):
    prog = pd.Program()
    with pd.program_guard(prog, pd.Program()):
        h = pd.layers.data("x", shape=[4])
        for _ in range(layers):
            h = pd.layers.fc(h, size=4, act="relu")
    return prog


def test_each_block_has_a_summary_line_and_a_large_program_starts_folded():
    small, large = parse(block_tree(deep_program(2)).html), parse(block_tree(deep_program(14)).html)
    line = one(small, summary="block").all_text()
    assert line.startswith("6 ops: 2 mul, 2 elementwise_add, 2 relu") and "parameters 160 B" in line
    assert "4 parameter" in line and "1 data" in line
    assert all("open" in d.attrs for d in block0_details(small))
    assert not any("open" in d.attrs for d in block0_details(large))   # 42 ops: one line to open


def block0_details(root):
    """The <details> of block 0 itself (its summary line), not those of its ops."""
    return [d for d in root.walk() if d.tag == "details" and d.parent.tag == "div"
            and d.parent.attrs.get("data-block") == "0"]


def test_variables_group_by_kind_with_counts_sorted_naturally():
    root = parse(block_tree(deep_program(11)).html)
    params = one(root, kind_group="parameter")
    assert params.attrs["data-count"] == "22"
    names = [e.attrs["data-var"] for e in params.walk() if "data-var" in e.attrs]
    assert names[:5] == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0", "fc_2.b_0"]
    assert names.index("fc_2.w_0") < names.index("fc_10.b_0")          # _2 before _10


def test_each_scope_has_a_summary_of_its_variables_by_state(rnn_record):
    _, record, _ = rnn_record
    root = parse(scope_tree(record).html)
    (step0,) = [e for e in root.find(scope_label="step 0")]
    summary = [e for e in step0.walk() if e.attrs.get("data-summary") == "scope"][0].all_text()
    assert summary.startswith(f"{len(record.scopes.find('step 0')[0].vars)} variables: ")
    assert "allocated" in summary
