"""Tests of paddle_nb.viz; the known programs they draw are built here.

Each builder returns a fresh Program (and what a test needs to run it): an MLP, the
same MLP after append_backward and SGD, an IfElse program and a StaticRNN program.
"""

import numpy as np

import paddle_nb as pd
from tests.layers import row_ifelse

T, BATCH, IN, HID = 4, 2, 3, 5


def build_mlp(train=False, startup=True):
    """x[-1, 4] -> fc(8, relu) -> fc(1) -> square error against y -> mean."""
    main, start = pd.Program(), pd.Program()
    with pd.program_guard(main, start if startup else None):
        x = pd.layers.data("x", shape=[4])
        y = pd.layers.data("y", shape=[1])
        h = pd.layers.fc(x, 8, act="relu")
        loss = pd.layers.mean(pd.layers.square_error_cost(pd.layers.fc(h, 1), y))
        if train:
            pd.optimizer.SGD(0.1).minimize(loss)
    return main, start, loss


def build_ifelse():
    """Rows whose sum is negative are negated; the others go through an fc layer."""
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[3])
        zero = pd.layers.fill_constant(shape=[1], value=0.0, dtype="float32")
        cond = pd.layers.less_than(pd.layers.reduce_sum(x, dim=1, keep_dim=True), zero)
        out, = row_ifelse(cond, [x], lambda rows: pd.layers.scale(rows, scale=-1.0),
                          lambda rows: pd.layers.fc(rows, 3))
    return main, out


def build_rnn(backward=False):
    """h_t = tanh(fc([x_t, h_{t-1}])) over T steps; returns (program, loss)."""
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[T, BATCH, IN], append_batch_size=False)
        h0 = pd.layers.fill_constant(shape=[BATCH, HID], value=0.0, dtype="float32")
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(x)
            h_pre = rnn.memory(init=h0)
            h = pd.layers.fc([x_t, h_pre], HID, act="tanh")
            rnn.update_memory(h_pre, h)
            rnn.step_output(h)
        loss = pd.layers.mean(rnn())
        if backward:
            pd.append_backward(loss)
    return main, loss


def run_recorded(program, feed, fetch, scope=None, values=False):
    """Run ``program`` once with a subscribed executor; return (record, scope)."""
    scope = scope if scope is not None else pd.Scope()
    exe, records = pd.Executor(), []
    exe.record_values = values
    stop = exe.subscribe(records.append)
    exe.run(program, feed=feed, fetch_list=[fetch], scope=scope)
    stop()
    return records[-1], scope


def rnn_feed():
    return {"x": np.random.RandomState(0).rand(T, BATCH, IN).astype("float32")}


def owner_of(program, sub_idx):
    """``(block idx, op index)`` of the op that owns block ``sub_idx``."""
    for block in program.blocks:
        for k, op in enumerate(block.ops):
            if sub_idx in op.sub_block_ids():
                return block.idx, k
    raise AssertionError(f"no op owns block {sub_idx}")
