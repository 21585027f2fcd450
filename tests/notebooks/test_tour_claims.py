"""What the tour's text relies on, checked here so that the notebooks' cells can teach.

The notebooks say what a picture shows and walk through the reference evaluator's source line
by line; these tests keep those sentences true (the pictures draw what the text says, the
source still holds the lines the text explains), and check that every link from a notebook to
a design note, and the tour's README, point at something that exists.
"""
import pathlib
import re

import numpy as np
import pytest

import paddle_nb as pd
import paddle_nb.viz  # noqa: F401  (pd.viz)
from paddle_nb.executor import evaluate

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "notebooks" / "scripts").glob("[0-9][0-9]_*.py"))
DESIGN_LINK = re.compile(r"\.\./docs/design_notes\.md#([a-z0-9_-]+)")


def github_anchor(heading):
    """The anchor GitHub gives a markdown heading: lower case, punctuation dropped, - for spaces.

    >>> github_anchor("Grad blocks run in a grad kid scope")
    'grad-blocks-run-in-a-grad-kid-scope'
    >>> github_anchor("The `rnn` op as step scopes")
    'the-rnn-op-as-step-scopes'
    """
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_design_note_link_of_the_tour_has_its_heading():
    notes = (ROOT / "docs" / "design_notes.md").read_text(encoding="utf-8")
    anchors = {github_anchor(h) for h in re.findall(r"^#+ (.*)$", notes, re.MULTILINE)}
    linked = {(path.name, a) for path in SCRIPTS + [ROOT / "notebooks" / "README.md"]
              for a in DESIGN_LINK.findall(path.read_text(encoding="utf-8"))}
    assert linked, "the notebooks link to no design note"
    missing = sorted((name, a) for name, a in linked if a not in anchors)
    assert not missing, f"links to design notes with no such heading: {missing}"


def test_readme_lists_every_notebook():
    readme = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    for script in SCRIPTS:
        assert f"({script.stem}.ipynb)" in readme, \
            f"notebooks/README.md does not link {script.stem}"


def test_the_evaluator_still_holds_the_lines_notebook_06_explains():
    import inspect
    source = inspect.getsource(evaluate)
    for fragment in ["ctx = ctx or KernelContext(CPUPlace())",
                     "block = program.block(block_idx)",
                     "for name, var in block.vars.items():",
                     "scope.var(name)",
                     "def value(name):",
                     "for op in block.ops:",
                     "program.initializes_once(op)",
                     "opdef = registry.get(op.type)",
                     "attrs = opdef.complete_attrs(op.attrs, strict=False)",
                     "if opdef.raw:",
                     "evaluate(program, kid_scope, idx, ctx)",
                     "result = opdef.kernel(ctx, *args, **attrs)",
                     "get_tensor().hold(array, ctx.place)"]:
        assert fragment in source, fragment
    assert len(source.splitlines()) <= 40, "notebook 06 calls it 'about thirty lines'"


def test_scope_tree_draws_a_shadowing_variable_twice_and_each_state():
    """Notebook 01 sections 2 and 4: two `h` rows, the labels, created/typed/allocated."""
    root = pd.Scope(label="root")
    step = root.new_scope(label="step")
    inner = step.new_scope(label="inner")
    root.var("W")
    step.var("h").get_tensor().set(np.ones(2, "float32"))
    inner.var("h").get_tensor().set(np.ones(2, "float32"))
    html = pd.viz.scope_tree(root).html
    assert html.count('data-var="h"') == 2 and 'data-scope-label="inner"' in html
    lazy = pd.Scope(label="three states")
    lazy.var("a")
    lazy.var("b").get_tensor()
    lazy.var("c").get_tensor().mutable_data(pd.CPUPlace(), "float16", (2, 2))
    drawing = pd.viz.scope_tree(lazy).html
    for state in ["created", "typed", "allocated"]:
        assert f'data-state="{state}"' in drawing


def test_block_tree_lists_nested_blocks_with_their_parents():
    """Notebook 02 section 4: blocks made by create_block, each with its parent."""
    prog = pd.Program()
    prog.create_block()
    prog.create_block()
    prog.rollback()
    prog.rollback()
    html = pd.viz.block_tree(prog).html
    assert all(f'data-block="{i}" data-parent="{i - 1}"' in html for i in range(3))


def test_graph_draws_ifelse_branches_and_rnn_step_links():
    """Notebooks 03 and 04: a cluster per branch block; the RNN's `next step` link."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2], dtype="float64")
        cond = pd.layers.data("cond", shape=[1], dtype="bool")
        ie = pd.layers.IfElse(cond)
        with ie.true_block():
            ie.output(ie.input(x) * 2.0)
        with ie.false_block():
            ie.output(ie.input(x))
        ie()
    source = pd.viz.graph(prog).source
    assert "cluster_b1" in source and "cluster_b2" in source
    assert all(f'"op-b0-{k}"' in source for k in range(len(prog.global_block().ops)))

    rnn_prog = pd.Program()
    with pd.program_guard(rnn_prog):
        seq = pd.layers.data("s", shape=[3, 1, 2], dtype="float64", append_batch_size=False)
        init = pd.layers.data("m", shape=[1, 2], dtype="float64", append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            h = rnn.memory(init=init)
            new = h + rnn.step_input(seq)
            rnn.update_memory(h, new)
            rnn.step_output(new)
        rnn()
    source = pd.viz.graph(rnn_prog).source
    assert "cluster_b1" in source and "next step" in source


@pytest.mark.parametrize("name", ["03_ifelse", "04_rnn_step_scopes"])
def test_build_it_yourself_cells_check_the_students_function(name):
    """Each build-it-yourself section has an empty function for the student and an answer
    cell that checks it against exe.run."""
    text = (ROOT / "notebooks" / "scripts" / f"{name}.py").read_text(encoding="utf-8")
    assert "# your answer here" in text and '("yours", ' in text and "not written yet" in text


def test_scope_tree_sums_a_scopes_bytes_per_place():
    """Notebook 07 section 4: the table at the top of a scope tree holds each place's bytes."""
    scope = pd.Scope()
    scope.var("w").get_tensor().set(np.ones((3, 4), "float32"))
    scope.new_scope("kid").var("m").get_tensor().set(np.ones(2, "float64"))
    cpu = pd.CPUPlace()
    assert f'<tr data-place="{cpu!r}" data-bytes="{12 * 4 + 2 * 8}">' in \
        pd.viz.scope_tree(scope).html


DATA = ROOT / "notebooks" / "data"


def test_graph_of_a_saved_paddle_model_draws_every_op():
    """Notebook 08 section 3: the graph of mlp2.pdmodel has a node for each op."""
    program = pd.Program.parse((DATA / "mlp2.pdmodel").read_bytes())
    source = pd.viz.graph(program).source
    assert all(f'"op-b0-{k}"' in source for k in range(len(program.global_block().ops)))


def test_block_tree_of_the_18_training_program_lists_its_eleven_blocks():
    """Notebook 08 section 6: block_tree draws each of the 11 blocks."""
    train = pd.Program.parse((DATA / "f18_staticrnn_ifelse_cond_train.main.pb").read_bytes())
    html = pd.viz.block_tree(train).html
    assert all(f'<div class="pnb-block" data-block="{i}"' in html for i in range(11))


def paddle_answers():
    """What PaddlePaddle 2.6.2 answered to ``interop/tour_claims.py`` (a committed fixture)."""
    import json
    path = ROOT / "tests" / "fixtures" / "paddle26" / "tour_claims.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("which, requests, paddle_nb_count", [
    ("section5", [("float32", (2, 3)), ("float32", (2, 3)), ("float32", (3, 2)),
                  ("float64", (3, 2)), ("float64", (3, 2))], 3),
    ("exercise2", [("float32", (10, 10)), ("float32", (100,)),
                   ("float64", (10, 10)), ("float64", (10, 10))], 3),
])
def test_memory_reuse_paddle_rule_allocates_as_paddlepaddle_does(which, requests,
                                                                  paddle_nb_count):
    """Notebook 01 section 5 and Exercise 2: `memory_reuse("paddle")` is PaddlePaddle's rule."""
    cpu = pd.CPUPlace()

    def count(rule):
        tensor = pd.Scope().var("t").get_tensor()
        start = pd.memory_stats(cpu)["allocations"]
        with pd.core.memory_reuse(rule):
            for dtype, shape in requests:
                tensor.mutable_data(cpu, dtype, shape)
        return pd.memory_stats(cpu)["allocations"] - start

    assert count("paddle") == paddle_answers()["mutable_data_allocations"][which]
    assert count("paddle_nb") == paddle_nb_count


def test_paddlepaddle_answers_the_tour_relies_on():
    """Notebook 01 section 3 (PaddlePaddle's `Variable` needs no scope) and notebook 08
    section 7 (`StaticRNN` and `IfElse` are gone from 2.6.2), as PaddlePaddle answered."""
    answers = paddle_answers()
    assert answers["paddle_version"] == "2.6.2"
    assert answers["variable_outside_a_scope"] is True
    assert not answers["static_nn_has_StaticRNN"] and not answers["static_nn_has_IfElse"]
    with pytest.raises(TypeError):
        pd.core.Variable()          # paddle_nb, like the design, refuses
