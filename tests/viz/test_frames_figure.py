"""The frames-and-scopes figure (viz/frames_figure.py): a C++ call stack over time beside the
scopes alive over one minibatch, from a run record (an RNN, an IfElse) or live scopes."""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.viz.frames_figure import frames_figure, moment

T, B, IN, H = 3, 1, 2, 2


def recorded(prog, feed, fetch):
    exe, records = pd.Executor(pd.CPUPlace()), []
    exe.subscribe(records.append)
    exe.run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())
    return records[-1]


@pytest.fixture(scope="module")
def rnn_record():
    prog = pd.Program()
    with pd.program_guard(prog):
        xs = pd.layers.data("xs", shape=[T, B, IN], dtype="float64", append_batch_size=False)
        m0 = pd.layers.data("m0", shape=[B, H], dtype="float64", append_batch_size=False)
        w = prog.global_block().create_parameter(name="W", shape=[IN, H], dtype="float64")
        rnn = pd.create_rnn(inputs=[xs])
        with rnn.stepnet() as net:
            h = net.add_memory(init=m0)
            act = pd.layers.sigmoid(pd.layers.matmul(net.set_inputs(0), w) + h.pre(n=1))
            h.update(act)
            net.set_outputs(0, act)
        out, = rnn()
        loss = pd.layers.reduce_sum(out * out)
        pd.append_backward(loss)
    feed = {"xs": np.ones((T, B, IN)), "m0": np.zeros((B, H))}
    return recorded(prog, feed, [loss])


def test_an_rnn_run_is_forward_through_the_steps_then_backward_from_the_last(rnn_record):
    labels = [m.label for m in frames_figure(rnn_record).moments]
    steps = [label for label in labels if " in step " in label]
    assert steps == ["forward in step 0", "forward in step 1", "forward in step 2",
                     "backward in step 2", "backward in step 1", "backward in step 0"]
    assert labels[-1] == "end of the minibatch"


def test_the_stack_is_one_body_deep_while_the_scopes_only_accumulate(rnn_record):
    figure = frames_figure(rnn_record)
    by_label = {m.label: m for m in figure.moments}
    assert by_label["forward in step 1"].stack == ("main()", "{step 1}")
    assert max(len(m.stack) for m in figure.moments) == 2
    rows = {row[0]: row for row in figure.rows()}
    assert rows["forward in step 0"][2] == "s0"
    assert rows["forward in step 2"][2] == "s0 s1 s2"
    assert rows["backward in step 0"][2] == "s0+g s1+g s2+g"
    assert rows["end of the minibatch"][2:] == ("-", "-")


def test_paddlepaddle_has_no_grad_kids_and_drops_steps_backward_has_passed(rnn_record):
    rows = {row[0]: row for row in frames_figure(rnn_record).rows()}
    assert rows["backward in step 2"][3] == "s0 s1 s2"
    assert rows["backward in step 0"][3] == "s0 s1"


def test_paddlepaddles_recurrent_makes_every_step_scope_before_its_first_step(rnn_record):
    """`StepScopes`' constructor makes all T step scopes when `recurrent` starts."""
    rows = {row[0]: row for row in frames_figure(rnn_record).rows()}
    assert rows["forward in step 0"][2:] == ("s0", "s0 s1 s2")
    assert rows["forward in step 1"][3] == "s0 s1 s2"


def test_the_moments_scopes_are_cut_from_the_records_snapshot(rnn_record):
    ours = {m.label: m.ours for m in frames_figure(rnn_record).moments}
    step0 = ours["forward in step 0"].kids[0]
    assert step0.label == "step 0" and step0.kids == []    # its grad kid came later
    full = ours["backward in step 0"].kids[0]
    assert [k.label for k in full.kids] == ["grad"] and full.vars


def test_the_picture_is_svg_with_a_column_per_moment(rnn_record):
    figure = frames_figure(rnn_record)
    html = figure._repr_html_()
    assert html.count("<svg") == 1 and "{step 2}" in html and "(destroyed)" in html
    assert "backward in step 1" in repr(figure)


def test_an_ifelse_run_shows_both_branches():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2])
        cond = pd.layers.data("cond", shape=[1], dtype="bool")
        ie = pd.create_ifelseop(inputs=[x], output_num=1)
        with ie.true_block():
            ie.set_output(True, 0, pd.layers.scale(ie.inputs(True, 0), 2.0))
        with ie.false_block():
            ie.set_output(False, 0, pd.layers.fc(ie.inputs(False, 0), size=2))
        out = ie(cond)
        loss = pd.layers.mean(out * out)
        pd.append_backward(loss)
    feed = {"x": np.ones((4, 2), "float32"), "cond": np.array([[1], [0], [1], [0]], bool)}
    rows = frames_figure(recorded(prog, feed, [loss])).rows()
    assert ("forward in block 1", "main() > {block 1}") == rows[1][:2]
    # append_backward asks for the parameters' gradients: only the false branch reads one
    assert rows[-2][2:] == ("b1 b2+g", "b1 b2")


def test_a_moment_snapshots_a_live_scope():
    run = pd.Scope().new_scope("run")
    run.new_scope("step 0").var("h")
    shown = moment("forward in step 0", ("main()", "{step 0}"), run)
    run.new_scope("step 1")        # made after the snapshot: not in it
    assert shown.row() == ("forward in step 0", "main() > {step 0}", "s0", "s0")
    assert moment("end", ("main()",), None).row()[2:] == ("-", "-")


def test_a_record_without_a_run_scope_is_refused_clearly(rnn_record):
    import dataclasses
    from paddle_nb.executor.record import RunRecord
    empty = RunRecord(rnn_record.program, rnn_record.place, rnn_record.ops, rnn_record.events,
                      dataclasses.replace(rnn_record.scopes, kids=[]))
    with pytest.raises(ValueError, match="expected a run scope"):
        frames_figure(empty)


def test_many_moments_narrow_the_columns_to_fit_a_notebook():
    import re
    run = pd.Scope().new_scope("run")
    shown = [moment(f"forward in step {t}", ("main()", f"{{step {t}}}"), run) for t in range(14)]
    width = int(re.search(r'<svg [^>]*width="(\d+)"', pd.viz.frames_figure(shown).svg()).group(1))
    assert width <= 1092
