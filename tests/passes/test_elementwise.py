"""Elementwise chains fused into one op, and buffer reuse (ops writing over a dead input)."""

import json

import numpy as np

import paddle_nb as pd
from paddle_nb import passes
from paddle_nb.ops import KernelContext
from paddle_nb.ops.machinery.registry import get
from tests.passes.test_passes import build, run_pass, types


def residual(x):
    y = pd.layers.conv2d(x, 3, 3, padding=1, bias_attr=False)
    return pd.layers.relu(pd.layers.elementwise_add(y, x))


def test_a_chain_with_private_links_becomes_one_op():
    def body(x):
        a = pd.layers.relu(pd.layers.elementwise_add(x, x))
        return pd.layers.tanh(pd.layers.scale(pd.layers.elementwise_mul(pd.layers.sigmoid(a), a),
                                              2.0, 1.0))
    before, after, result = run_pass(passes.FUSE_ELEMENTWISE, body)
    assert types(after) == ["fused_elementwise_chain", "fused_elementwise_chain"]
    assert [c[1] for c in result.changes] == ["elementwise_add + relu",
                                              "sigmoid + elementwise_mul + scale + tanh"]
    steps = json.loads(after.global_block().ops[1].attr("chain"))
    assert [s["type"] for s in steps] == ["sigmoid", "elementwise_mul", "scale", "tanh"]
    assert steps[1]["X"] == "#" and steps[1]["Y"] == 0 and steps[2]["attrs"]["scale"] == 2.0


def test_a_value_read_twice_or_fetched_ends_the_chain():
    def body(x):
        a = pd.layers.relu(x)
        b = pd.layers.sigmoid(a)
        return pd.layers.elementwise_add(pd.layers.tanh(b), b)   # b read twice
    _, after, _ = run_pass(passes.FUSE_ELEMENTWISE, body)
    assert types(after) == ["fused_elementwise_chain", "fused_elementwise_chain"]
    program, scope, exe, feed, fetch = build(lambda x: pd.layers.tanh(pd.layers.relu(x)))
    relu_out = program.global_block().ops[0].output("Out")[0]
    after = passes.FUSE_ELEMENTWISE.apply(program, scope, keep=fetch + [relu_out])
    assert types(after) == ["relu", "tanh"]


def test_integer_ops_are_not_fused():
    def body(x):
        i = pd.layers.cast(x, "int32")
        return pd.layers.cast(pd.layers.elementwise_add(pd.layers.abs(i), i), "float32")
    _, after, _ = run_pass(passes.FUSE_ELEMENTWISE, body)
    assert "fused_elementwise_chain" not in types(after)


def test_a_residual_add_and_relu_write_over_the_conv_output():
    program, scope, exe, feed, fetch = build(residual)
    results = []
    after = passes.apply_passes(program, scope, results=results, keep=fetch)
    feed_before = {k: v.copy() for k, v in feed.items()}
    got = passes.check_unchanged(program, after, feed, fetch, scope, exe)
    chain = after.global_block().ops[-1]
    assert chain.type == "fused_elementwise_chain" and chain.attr("inplace")
    # one buffer, one name: the conv writes the chain's output, which reads and writes it
    conv_out = program.global_block().ops[0].output("Output")[0]
    assert chain.input("X")[0] == chain.output("Out")[0] == fetch[0] == \
        after.global_block().ops[0].output("Output")[0]
    assert not after.global_block().has_var(conv_out)
    assert results[-1].name == "reuse_buffers" and results[-1].changes[0][0] == "inplace"
    again = exe.run(after, feed=feed, fetch_list=fetch, scope=scope)
    np.testing.assert_array_equal(again[0], got[0])            # parameters untouched
    np.testing.assert_array_equal(feed["x"], feed_before["x"])  # the feed is not written over


def test_a_feed_a_view_or_a_value_read_later_is_not_written_over():
    def body(x):
        y = pd.layers.conv2d(x, 3, 3, padding=1, bias_attr=False)
        flat = pd.layers.reshape(y, [-1, 108])              # a view of y lives on
        r = pd.layers.relu(y)
        return pd.layers.elementwise_add(pd.layers.reshape(r, [-1, 108]), flat)
    for body_ in (lambda x: pd.layers.relu(x), body):
        program, scope, exe, feed, fetch = build(body_)
        after = passes.apply_passes(program, scope, keep=fetch)
        passes.check_unchanged(program, after, feed, fetch, scope, exe)
        assert not any(op.type == "fused_elementwise_chain" and op.attr("inplace")
                       for op in after.global_block().ops), types(after)


def test_the_kernel_writes_over_x0_only_when_asked_and_safe():
    kernel, ctx = get("fused_elementwise_chain").kernel, KernelContext(pd.CPUPlace())
    x, y = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4), np.ones(4, "float32")
    add_relu = json.dumps([{"type": "elementwise_add", "X": 0, "Y": 1, "attrs": {"axis": -1}},
                           {"type": "relu", "X": "#"}])
    want = np.maximum(x + y, 0)
    out = kernel(ctx, [x.copy(), y], chain=add_relu, inplace=False)
    np.testing.assert_array_equal(out, want)
    x0 = x.copy()
    out = kernel(ctx, [x0, y], chain=add_relu, inplace=True)
    assert out is x0 and np.array_equal(x0, want)
    silu = json.dumps([{"type": "sigmoid", "X": 0}, {"type": "elementwise_mul", "X": "#", "Y": 0}])
    x0 = x.copy()
    out = kernel(ctx, [x0], chain=silu, inplace=True)       # X[0] read again: not written over
    assert out is not x0 and np.array_equal(x0, x)
    np.testing.assert_allclose(out, x / (1 + np.exp(-x)), rtol=1e-6)


def test_lifetimes_span_first_write_to_last_read():
    program, *_ = build(residual)
    span = passes.lifetimes(program)
    ops = program.global_block().ops
    conv_out = ops[0].output("Output")[0]
    assert span[conv_out] == (0, 1)
    assert all(not program.global_block().var(n).persistable for n in span)


def test_sequences_are_not_fused():
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[3], lod_level=1)
        out = pd.layers.tanh(pd.layers.relu(x))
    after = passes.FUSE_ELEMENTWISE.apply(main, keep=[out.name])
    assert types(after) == ["relu", "tanh"]


def test_gelu_written_out_becomes_one_chain():
    def body(x):            # x * 0.5 * (1 + erf(x / sqrt(2))), as older exports write gelu
        inner = pd.layers.scale(pd.erf(pd.layers.scale(x, 2 ** -0.5)), 1.0, bias=1.0)
        return pd.layers.scale(pd.layers.elementwise_mul(x, inner), 0.5)
    before, after, result = run_pass(passes.FUSE_ELEMENTWISE, body)
    assert types(before) == ["scale", "erf", "scale", "elementwise_mul", "scale"]
    assert types(after) == ["fused_elementwise_chain"]
    assert after.global_block().ops[0].input("X") == [before.global_block().ops[0].input("X")[0]]


def test_a_watched_run_of_the_optimized_program_gives_the_same_outputs():
    program, scope, exe, feed, fetch = build(residual)
    after = passes.apply_passes(program, scope, keep=fetch)
    want = exe.run(after, feed=feed, fetch_list=fetch, scope=scope)
    records = []
    exe.record_values = True
    stop = exe.subscribe(records.append)         # the recording path (what the Dashboard uses)
    try:
        got = exe.run(after, feed=feed, fetch_list=fetch, scope=scope)
    finally:
        stop()
        exe.record_values = False
    np.testing.assert_array_equal(got[0], want[0])
    assert len(records) == 1 and [op.type for op in records[0].ops][-1] == \
        "fused_elementwise_chain"
