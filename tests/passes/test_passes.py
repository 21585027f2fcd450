"""Each pass on a small program built here: what it removes, what it folds, what it leaves."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import passes


def build(body):
    """(program, scope, exe, feed, fetch names) of ``body(x)`` for x [2, 3, 6, 6], run once
    for test so that batch_norm has statistics."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3, 6, 6])
        out = body(x)
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    for p in main.all_parameters():          # statistics and scales away from 0 and 1
        t = scope.find_var(p.name).get_tensor()
        t.set(rng.uniform(0.5, 1.5, t.numpy().shape).astype("float32"))
    for v in main.list_vars():
        if v.persistable and "mean" in v.name or "variance" in v.name:
            t = scope.find_var(v.name).get_tensor()
            t.set(rng.uniform(0.5, 1.5, t.numpy().shape).astype("float32"))
    test = main.clone(for_test=True)
    feed = {"x": rng.standard_normal((2, 3, 6, 6)).astype("float32")}
    return test, scope, exe, feed, [out.name]


def run_pass(pass_, body):
    program, scope, exe, feed, fetch = build(body)
    results = []
    after = pass_.apply(program, scope, results, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe)
    return program, after, results[0]


def types(program):
    return [op.type for op in program.global_block().ops]


def conv_bn_relu(x):
    y = pd.layers.conv2d(x, 4, 3, bias_attr=False)
    return pd.layers.relu(pd.layers.batch_norm(y))


def test_batch_norm_folds_into_the_conv_before_it():
    before, after, result = run_pass(passes.FOLD_BATCH_NORM, conv_bn_relu)
    assert types(before) == ["conv2d", "batch_norm", "relu"]
    assert types(after) == ["conv2d", "elementwise_add", "relu"]
    assert [c[:2] for c in result.changes] == [("folded", "batch_norm")]
    assert after.global_block().ops[0].input("Filter")[0].endswith(".bn_fold")


def test_a_conv_bias_folds_into_the_batch_norm_shift():
    before, after, _ = run_pass(passes.FOLD_BATCH_NORM,
                                lambda x: pd.layers.batch_norm(pd.layers.conv2d(x, 4, 3)))
    assert types(before) == ["conv2d", "elementwise_add", "batch_norm"]
    assert types(after) == ["conv2d", "elementwise_add"]


def test_a_matmul_then_batch_norm_folds():
    def body(x):
        flat = pd.layers.reshape(x, [-1, 108])
        return pd.layers.batch_norm(pd.layers.fc(flat, 5))
    before, after, _ = run_pass(passes.FOLD_BATCH_NORM, body)
    assert "batch_norm" in types(before) and "batch_norm" not in types(after)


def test_a_conv_output_read_twice_keeps_its_batch_norm():
    def body(x):
        y = pd.layers.conv2d(x, 4, 3, bias_attr=False)
        return pd.layers.elementwise_add(pd.layers.batch_norm(y), y)
    _, after, result = run_pass(passes.FOLD_BATCH_NORM, body)
    assert "batch_norm" in types(after) and not result.changes


def test_identities_go_and_their_readers_read_the_input():
    def body(x):
        y = pd.layers.dropout(pd.layers.relu(x), 0.5,
                              dropout_implementation="upscale_in_train")
        return pd.layers.sigmoid(pd.layers.scale(pd.layers.assign(y), 1.0))
    before, after, result = run_pass(passes.IDENTITIES, body)
    assert types(before) == ["relu", "dropout", "assign", "scale", "sigmoid"]
    assert types(after) == ["relu", "sigmoid"]
    assert after.global_block().ops[1].input("X") == before.global_block().ops[0].output("Out")
    assert len(result.changes) == 3


def test_a_fetched_identity_stays():
    _, after, _ = run_pass(passes.IDENTITIES, lambda x: pd.layers.scale(pd.layers.relu(x), 1.0))
    assert types(after) == ["relu", "scale"]


def test_dead_code_goes_unless_fetched():
    def body(x):
        pd.layers.sigmoid(x)                  # nobody reads it
        return pd.layers.relu(x)
    _, after, result = run_pass(passes.DEAD_CODE, body)
    assert types(after) == ["relu"]
    assert result.changes[0][:2] == ("removed", "sigmoid")


def test_check_unchanged_names_the_output_that_changed():
    program, scope, exe, feed, fetch = build(lambda x: pd.layers.relu(x))
    other = program.clone()
    other.global_block().ops[0].desc.type = "sigmoid"
    with pytest.raises(AssertionError, match="changed by the passes"):
        passes.check_unchanged(program, other, feed, fetch, scope, exe)


def test_load_inference_model_optimize_applies_the_passes(tmp_path):
    program, scope, exe, feed, fetch = build(conv_bn_relu)
    with pd.scope_guard(scope):
        pd.io.save_inference_model(str(tmp_path / "m"), ["x"], fetch, exe, main_program=program)
    want = exe.run(program, feed=feed, fetch_list=fetch, scope=scope)
    for optimize, has_bn in ((False, True), (True, False)):
        fresh = pd.Scope()
        loaded, feeds, fetch_vars = pd.io.load_inference_model(str(tmp_path / "m"), exe,
                                                                scope=fresh, optimize=optimize)
        assert ("batch_norm" in types(loaded)) == has_bn
        got = exe.run(loaded, feed=feed, fetch_list=fetch_vars, scope=fresh)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_the_diff_marks_folded_removed_and_added_ops():
    program, scope, exe, feed, fetch = build(conv_bn_relu)
    results = []
    after = passes.FOLD_BATCH_NORM.apply(program, scope, results, keep=fetch)
    diff = passes.pass_diff(program, after, results[0])
    assert [(r["type"], r["mark"]) for r in diff["before"]] == [
        ("conv2d", "changed"), ("batch_norm", "removed"), ("relu", "kept")]
    assert [(r["type"], r["mark"]) for r in diff["after"]] == [
        ("conv2d", "changed"), ("elementwise_add", "added"), ("relu", "kept")]
    page = passes.diff_html(diff)
    assert "fold_batch_norm" in page and page.count("<li") == 6


def test_constant_ops_run_once_and_become_persistable():
    def body(x):
        mask = pd.layers.scale(pd.layers.fill_constant([6], "float32", 2.0), 3.0, bias=1.0)
        return pd.layers.elementwise_add(x, mask)
    program, scope, exe, feed, fetch = build(body)
    results = []
    after = passes.FOLD_CONSTANTS.apply(program, scope, results, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe)
    assert types(program) == ["fill_constant", "scale", "elementwise_add"]
    assert types(after) == ["elementwise_add"]
    const = after.global_block().ops[0].input("Y")[0]
    assert const.endswith(".const") and after.global_block().var(const).persistable
    np.testing.assert_array_equal(scope.find_var(const).get_tensor().numpy(), np.full(6, 7.0))


def test_conv_bias_and_activation_fuse_into_one_op():
    def body(x):
        y = pd.layers.conv2d(x, 4, 3, bias_attr=False)
        return pd.nn.functional.hardswish(pd.layers.batch_norm(y))
    program, scope, exe, feed, fetch = build(body)
    after = passes.apply_passes(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe)
    assert types(program) == ["conv2d", "batch_norm", "hard_swish"]
    assert types(after) == ["fused_conv2d_bias_act"]
    assert after.global_block().ops[0].attr("fuse_activation") == "hard_swish"


def test_an_activation_read_twice_is_not_fused_past():
    def body(x):
        y = pd.layers.batch_norm(pd.layers.conv2d(x, 4, 3, bias_attr=False))
        return pd.layers.elementwise_add(pd.layers.relu(y), y)
    program, scope, exe, feed, fetch = build(body)
    after = passes.apply_passes(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe)
    assert types(after) == ["fused_conv2d_bias_act", "fused_elementwise_chain"]   # relu + add
    assert after.global_block().ops[0].attr("fuse_activation") == ""


def test_a_linear_layer_and_its_relu_become_one_fc():
    def body(x):
        flat = pd.layers.reshape(x, [-1, 108])
        return pd.layers.relu(pd.nn.Linear(108, 5)(flat))
    program, scope, exe, feed, fetch = build(body)
    after = passes.FUSE_FC.apply(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe)
    assert types(program) == ["reshape2", "matmul_v2", "elementwise_add", "relu"]
    assert types(after) == ["reshape2", "fc"]
    fc = after.global_block().ops[1]
    assert (fc.attr("in_num_col_dims"), fc.attr("activation_type")) == (1, "relu")


def test_a_conv_bias_laid_1c11_fuses_as_a_channel_bias():
    """A squeeze-excitation conv as PP-LCNet writes it: the bias a (1, C, 1, 1) parameter added
    on axis -1. It fuses like a 1-D bias, through a new 1-D persistable ``<bias>.chan``."""
    def body(x):
        y = pd.layers.conv2d(x, 4, 3, bias_attr=False)
        b = pd.create_parameter([1, 4, 1, 1], "float32", name="se_b")
        return pd.layers.relu(pd.layers.elementwise_add(y, b, axis=-1))
    program, scope, exe, feed, fetch = build(body)
    after = passes.FUSE_CONV_ACTIVATION.apply(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe)
    assert types(after) == ["fused_conv2d_bias_act"]
    fused = after.global_block().ops[0]
    assert fused.input("Bias") == ["se_b.chan"] and fused.attr("fuse_activation") == "relu"
    assert after.global_block().var("se_b.chan").shape == (4,)
