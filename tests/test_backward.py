"""append_backward and gradients, checked against central differences (float64).

Every case builds a small composite program through the public API (``pd.layers`` in
float64), runs it once so that the parameters get values in a scope, then compares the
gradients the backward ops compute with numeric ones: each element of a parameter tensor in
the scope (or of a fed input) is moved by +-eps and the forward part is run again.

The structural cases check what makes backward a *program transformation*: grad ops are
ordinary ops named ``T_grad`` with gradients named ``x@GRAD``, marked ``op_role`` Backward,
printed by ``str(program)`` and kept by ``serialize``; several contributions to one gradient
are written under ``x@GRAD@RENAME@...`` names and added by a ``sum`` op; an unused output's
gradient is made by ``fill_any_like`` (value 0, as PaddlePaddle 2.6 makes it).
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.framework.operator import OpRole

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7
CPU = pd.CPUPlace()


# -- helpers --------------------------------------------------------------------------------------
def build(fn):
    """Run ``fn()`` inside a fresh program; return (program, what fn returned)."""
    program = pd.Program()
    with pd.program_guard(program):
        result = fn()
    return program, result


def rng(seed=0):
    return np.random.default_rng(seed)


class Checker:
    """Runs a program in its own scope; computes analytic and numeric gradients."""

    def __init__(self, program, loss, feed):
        self.program = program
        self.loss = loss
        self.feed = feed
        self.exe = pd.Executor(CPU, seed=0)
        self.scope = pd.Scope()
        self.forward = program.prune([loss])      # only the ops the loss needs: no grad ops
        self.exe.run(program, feed=feed, scope=self.scope)   # initializes the parameters

    def run(self, fetch):
        return self.exe.run(self.program, feed=self.feed, fetch_list=fetch, scope=self.scope)

    def loss_value(self, feed=None):
        out = self.exe.run(self.forward, feed=feed or self.feed, fetch_list=[self.loss],
                           scope=self.scope)
        return float(np.sum(out[0]))

    def numeric_param(self, name):
        """d loss / d param, by moving each element of the parameter tensor in the scope."""
        tensor = self.scope.find_var(name).get_tensor()
        base = tensor.numpy()
        grad = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            values = []
            for step in (EPS, -EPS):
                moved = base.copy()
                moved[idx] += step
                tensor.set(moved, CPU)
                values.append(self.loss_value())
            grad[idx] = (values[0] - values[1]) / (2 * EPS)
        tensor.set(base, CPU)
        return grad

    def numeric_feed(self, name):
        """d loss / d feed[name], by moving each element of the fed array."""
        base = self.feed[name]
        grad = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            values = []
            for step in (EPS, -EPS):
                moved = base.copy()
                moved[idx] += step
                values.append(self.loss_value(dict(self.feed, **{name: moved})))
            grad[idx] = (values[0] - values[1]) / (2 * EPS)
        return grad

    def check_pairs(self, pairs):
        """Each (param, grad) pair's fetched gradient equals the numeric one."""
        assert pairs, "append_backward returned no (parameter, gradient) pairs"
        values = self.run([g for _, g in pairs])
        for (param, grad), value in zip(pairs, values):
            assert grad.name.endswith(f"{param.name}@GRAD")    # grad/grad/... in a 2nd pass
            assert value.shape == tuple(param.shape)
            np.testing.assert_allclose(value, self.numeric_param(param.name), rtol=RTOL,
                                       atol=ATOL, err_msg=f"gradient of {param.name}")


def grad_ops(program):
    return [op for op in program.global_block().ops if op.role & OpRole.BACKWARD]


def op_types(program):
    return [op.type for op in program.global_block().ops]


def names(pairs):
    return [(p.name, g.name) for p, g in pairs]


# -- (a) fc + softmax_with_cross_entropy + mean ---------------------------------------------------
def mlp_classifier():
    x = pd.layers.data("x", shape=[3], dtype="float64")
    label = pd.layers.data("label", shape=[1], dtype="int64")
    hidden = pd.layers.fc(x, 4, act="tanh")
    logits = pd.layers.fc(hidden, 3)
    loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
    return loss, pd.append_backward(loss)


def classifier_feed():
    return {"x": rng(1).normal(size=(2, 3)), "label": np.array([[0], [2]], dtype="int64")}


def test_fc_softmax_with_cross_entropy_mean():
    program, (loss, pairs) = build(mlp_classifier)
    assert names(pairs) == [("fc_0.w_0", "fc_0.w_0@GRAD"), ("fc_0.b_0", "fc_0.b_0@GRAD"),
                            ("fc_1.w_0", "fc_1.w_0@GRAD"), ("fc_1.b_0", "fc_1.b_0@GRAD")]
    for param, grad in pairs:
        assert grad.shape == param.shape and grad.dtype == np.float64
    Checker(program, loss, classifier_feed()).check_pairs(pairs)


# -- (b) a weight shared by two layers ------------------------------------------------------------
def test_shared_weight_gradient_is_the_sum_of_both_uses():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        a = pd.layers.fc(x, 3, param_attr="w", act="tanh")
        b = pd.layers.fc(a, 3, param_attr="w", act="sigmoid")   # the same W, used again
        loss = pd.layers.mean(pd.layers.elementwise_mul(a, b))
        return loss, pd.append_backward(loss)

    program, (loss, pairs) = build(net)
    params = program.all_parameters()
    assert [p.name for p in params].count("w") == 1          # one Parameter, not two
    assert [p for p, _ in pairs if p.name == "w"] == [program.global_block().var("w")]
    ops = program.global_block().ops
    sums = [op for op in ops if op.type == "sum" and op.output("Out") == ["w@GRAD"]]
    assert len(sums) == 1
    # both parts are renamed, as PaddlePaddle 2.6 names them; the sum writes w@GRAD
    renamed = sums[0].input("X")
    assert renamed == ["w@GRAD@RENAME@block0@0", "w@GRAD@RENAME@block0@1"]
    assert all(program.global_block().find_var(n) is not None for n in renamed)
    assert sums[0].role & OpRole.BACKWARD

    checker = Checker(program, loss, {"x": rng(2).normal(size=(2, 3))})
    checker.check_pairs(pairs)


def test_shared_weight_contributions_add_up():
    """The sum of the two mul_grad outputs is the full gradient, not either one."""
    def net():
        x = pd.layers.data("x", shape=[2], dtype="float64")
        a = pd.layers.fc(x, 2, param_attr="w", bias_attr=False)
        b = pd.layers.fc(x, 2, param_attr="w", bias_attr=False)
        loss = pd.layers.reduce_sum(pd.layers.elementwise_mul(a, b))   # sum((xW)^2)
        return loss, pd.append_backward(loss)

    program, (loss, pairs) = build(net)
    feed = {"x": rng(3).normal(size=(3, 2))}
    checker = Checker(program, loss, feed)
    (param, grad), = pairs
    w = checker.scope.find_var("w").get_tensor().numpy()
    x = feed["x"]
    expected = 2 * x.T @ (x @ w)
    np.testing.assert_allclose(checker.run([grad])[0], expected, rtol=1e-10)
    checker.check_pairs(pairs)


# -- (c) a variable used several times ------------------------------------------------------------
def test_variable_used_several_times():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 2, act="tanh")
        y = h * h + h                                   # h read three times
        loss = pd.layers.mean(y)
        return h, loss, pd.append_backward(loss)

    program, (h, loss, pairs) = build(net)
    grad_name = h.name + "@GRAD"
    sums = [op for op in program.global_block().ops
            if op.type == "sum" and op.output("Out") == [grad_name]]
    assert sums, f"no sum op adds the contributions into {grad_name}"
    assert any(grad_name + "@RENAME@" in n for op in sums for n in op.input("X"))
    Checker(program, loss, {"x": rng(4).normal(size=(2, 3))}).check_pairs(pairs)


def test_variable_in_both_slots_of_one_op():
    """``h * h``: one elementwise_mul_grad writes h@GRAD twice; both are renamed (as in
    PaddlePaddle 2.6) and summed."""
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 3, act="tanh")
        loss = pd.layers.reduce_sum(h * h)
        return h, loss, pd.append_backward(loss)

    program, (h, loss, pairs) = build(net)
    (mul_grad,) = [op for op in grad_ops(program) if op.type == "elementwise_mul_grad"]
    assert mul_grad.output("X@GRAD") == [h.name + "@GRAD@RENAME@block0@0"]
    assert mul_grad.output("Y@GRAD") == [h.name + "@GRAD@RENAME@block0@1"]
    Checker(program, loss, {"x": rng(13).normal(size=(2, 3))}).check_pairs(pairs)


def test_parts_are_summed_right_before_the_first_reader():
    """PaddlePaddle 2.6's order: every part of h@GRAD is written first (``@0``, ``@1``),
    and one ``sum`` comes right before the grad op that reads h@GRAD (tanh_grad)."""
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 3, act="tanh")
        loss = pd.layers.reduce_sum(pd.layers.scale(h, 2.0) * pd.layers.scale(h, -3.0))
        return h, loss, pd.append_backward(loss)

    program, (h, loss, pairs) = build(net)
    types = [op.type for op in grad_ops(program)]
    ops = grad_ops(program)
    k = types.index("sum")
    assert types[k - 2:k + 2] == ["scale", "scale", "sum", "tanh_grad"]
    parts = [h.name + "@GRAD@RENAME@block0@0", h.name + "@GRAD@RENAME@block0@1"]
    assert ops[k].input("X") == parts and ops[k].output("Out") == [h.name + "@GRAD"]
    assert [ops[k - 2].output("Out"), ops[k - 1].output("Out")] == [parts[:1], parts[1:]]
    Checker(program, loss, {"x": rng(14).normal(size=(2, 3))}).check_pairs(pairs)


# -- (d) stop_gradient cuts the graph -------------------------------------------------------------
def test_stop_gradient_cut():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 4, act="tanh")              # fc_0: before the cut
        h.stop_gradient = True
        y = pd.layers.fc(h, 2, act="sigmoid")           # fc_1: after it
        loss = pd.layers.mean(y)
        return h, loss, pd.append_backward(loss)

    program, (h, loss, pairs) = build(net)
    assert names(pairs) == [("fc_1.w_0", "fc_1.w_0@GRAD"), ("fc_1.b_0", "fc_1.b_0@GRAD")]
    block = program.global_block()
    for name in ["fc_0.w_0@GRAD", "fc_0.b_0@GRAD", h.name + "@GRAD"]:
        assert block.find_var(name) is None, f"{name} should not exist past the cut"
    written = {n for op in grad_ops(program) for n in op.output_arg_names}
    assert not any(n.startswith("fc_0.") for n in written)
    Checker(program, loss, {"x": rng(5).normal(size=(2, 3))}).check_pairs(pairs)


# -- (e) no_grad_set ------------------------------------------------------------------------------
def test_no_grad_set_with_a_parameter_name():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 4, act="tanh")
        y = pd.layers.fc(h, 2)
        loss = pd.layers.mean(pd.layers.square(y))
        return loss, pd.append_backward(loss, no_grad_set={"fc_0.w_0"})

    program, (loss, pairs) = build(net)
    assert [p.name for p, _ in pairs] == ["fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    assert program.global_block().find_var("fc_0.w_0@GRAD") is None
    mul_grads = [op for op in grad_ops(program) if op.type == "mul_grad"]
    assert all("fc_0.w_0@GRAD" not in op.output_arg_names for op in mul_grads)
    Checker(program, loss, {"x": rng(6).normal(size=(2, 3))}).check_pairs(pairs)


def test_no_grad_set_accepts_variables():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        loss = pd.layers.mean(pd.layers.fc(x, 2))
        bias = pd.default_main_program().global_block().var("fc_0.b_0")
        return loss, pd.append_backward(loss, no_grad_set=[bias])

    _, (_, pairs) = build(net)
    assert names(pairs) == [("fc_0.w_0", "fc_0.w_0@GRAD")]


# -- (f) parameter_list ---------------------------------------------------------------------------
def test_parameter_list_restricts_the_pairs():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 4, act="tanh")
        y = pd.layers.fc(h, 2)
        loss = pd.layers.mean(pd.layers.square(y))
        return loss, pd.append_backward(loss, parameter_list=["fc_1.w_0", "fc_0.b_0"])

    program, (loss, pairs) = build(net)
    assert names(pairs) == [("fc_1.w_0", "fc_1.w_0@GRAD"), ("fc_0.b_0", "fc_0.b_0@GRAD")]
    block = program.global_block()
    assert block.find_var("fc_0.w_0@GRAD") is None and block.find_var("fc_1.b_0@GRAD") is None
    Checker(program, loss, {"x": rng(7).normal(size=(2, 3))}).check_pairs(pairs)


# -- (g) a small CNN ------------------------------------------------------------------------------
def test_conv_pool_batch_norm_fc():
    def net():
        img = pd.layers.data("img", shape=[1, 4, 4], dtype="float64")
        label = pd.layers.data("label", shape=[1], dtype="int64")
        conv = pd.layers.conv2d(img, num_filters=2, filter_size=3, padding=1)
        pool = pd.layers.pool2d(conv, pool_size=2, pool_type="max", pool_stride=2)
        bn = pd.layers.batch_norm(pool, act="relu")
        logits = pd.layers.fc(bn, 3)
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
        return loss, pd.append_backward(loss)

    program, (loss, pairs) = build(net)
    types = op_types(program)
    for t in ["conv2d_grad", "pool2d_grad", "batch_norm_grad", "mul_grad", "relu_grad"]:
        assert t in types, f"no {t} in the program"
    trainable = [p.name for p in program.all_parameters() if p.trainable]
    assert [p.name for p, _ in pairs] == trainable            # moving mean/variance excluded
    assert not any(n.endswith((".mean", ".variance")) for n in trainable)
    feed = {"img": rng(8).normal(size=(3, 1, 4, 4)),
            "label": np.array([[0], [1], [2]], dtype="int64")}
    Checker(program, loss, feed).check_pairs(pairs)


# -- (h) embedding --------------------------------------------------------------------------------
def test_embedding_reduce_sum():
    def net():
        ids = pd.layers.data("ids", shape=[3], dtype="int64")
        emb = pd.layers.embedding(ids, size=[5, 2], dtype="float64")
        loss = pd.layers.reduce_sum(pd.layers.tanh(emb))
        return loss, pd.append_backward(loss)

    program, (loss, pairs) = build(net)
    assert "lookup_table_v2_grad" in op_types(program)
    assert names(pairs) == [("embedding_0.w_0", "embedding_0.w_0@GRAD")]
    feed = {"ids": np.array([[0, 3, 3], [4, 0, 3]], dtype="int64")}   # repeats accumulate
    checker = Checker(program, loss, feed)
    checker.check_pairs(pairs)
    grad = checker.run([pairs[0][1]])[0]
    assert np.all(grad[[1, 2]] == 0.0)                  # rows never looked up get zeros


# -- (i) gradients with respect to a data variable ------------------------------------------------
def test_gradients_with_respect_to_a_data_variable():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 3, act="tanh")
        y = pd.layers.reduce_sum(pd.layers.square(h) + x * x)     # x reached two ways
        return x, y, pd.gradients([y], [x])

    program, (x, y, grads) = build(net)
    assert x.stop_gradient                               # data is stop_gradient by default
    (dx,) = grads
    assert dx is not None and dx.name == "x@GRAD" and dx.shape == x.shape
    checker = Checker(program, y, {"x": rng(9).normal(size=(2, 3))})
    value = checker.run([dx])[0]
    np.testing.assert_allclose(value, checker.numeric_feed("x"), rtol=RTOL, atol=ATOL)


def test_gradients_of_a_batch_shaped_target_are_seeded_with_ones():
    """A target of shape [-1, n] cannot be filled by a constant of known shape: the seed is
    ones shaped like it at run time, so the result is the gradient of its sum."""
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 2, act="sigmoid")
        return h, pd.gradients(h, x)

    program, (h, (dx,)) = build(net)
    assert h.shape == (-1, 2)
    checker = Checker(program, h, {"x": rng(14).normal(size=(4, 3))})
    np.testing.assert_allclose(checker.run([dx])[0], checker.numeric_feed("x"), rtol=RTOL,
                               atol=ATOL)


def test_gradients_returns_none_without_a_path():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        z = pd.layers.data("z", shape=[3], dtype="float64")
        y = pd.layers.mean(pd.layers.tanh(x))
        return pd.gradients(y, [x, z])

    _, (dx, dz) = build(net)
    assert dx.name == "x@GRAD" and dz is None


# -- (j) an unused output of a multi-output op ---------------------------------------------------
def test_unused_split_output_gets_zero_gradient():
    def net():
        x = pd.layers.data("x", shape=[4], dtype="float64")
        h = pd.layers.fc(x, 4, act="tanh")
        first, second = pd.layers.split(h, 2, dim=1)
        loss = pd.layers.mean(pd.layers.square(first))      # `second` is never used
        return second, loss, pd.append_backward(loss)

    program, (second, loss, pairs) = build(net)
    fills = [op for op in program.global_block().ops if op.type == "fill_any_like"]
    assert [op.output("Out") for op in fills] == [[second.name + "@GRAD"]]
    assert fills[0].input("X") == [second.name]
    assert fills[0].attr("value") == 0.0 and fills[0].attr("dtype") == -1
    assert fills[0].role & OpRole.BACKWARD
    checker = Checker(program, loss, {"x": rng(10).normal(size=(2, 4))})
    checker.check_pairs(pairs)
    w_grad = checker.run(["fc_0.w_0@GRAD"])[0]
    assert np.all(w_grad[:, 2:] == 0.0)                  # columns feeding `second` only


# -- structure: grad ops are ordinary ops ---------------------------------------------------------
def test_grad_ops_are_ordinary_ops():
    program, (loss, pairs) = build(mlp_classifier)
    ops = program.global_block().ops
    backward = grad_ops(program)
    assert backward and backward == ops[ops.index(backward[0]):]     # all after the forward
    seed = backward[0]
    assert seed.type == "fill_constant" and seed.output("Out") == [loss.name + "@GRAD"]
    assert seed.attr("op_role") == OpRole.BACKWARD | OpRole.LOSS == 0x101
    assert seed.attr("value") == 1.0 and seed.attr("shape") == []   # the loss is 0-D
    for op in backward[1:]:
        assert op.attr("op_role") == OpRole.BACKWARD == 1
        assert pd.registry.exists(op.type)
        for name in op.output_arg_names:
            assert name.endswith("@GRAD") or "@GRAD@RENAME@" in name
    for op in ops[:ops.index(seed)]:
        assert op.attr("op_role") == OpRole.FORWARD
    assert [op.type for op in backward] == [
        "fill_constant", "mean_grad", "softmax_with_cross_entropy_grad", "elementwise_add_grad",
        "mul_grad", "tanh_grad", "elementwise_add_grad", "mul_grad"]

    text = str(program)
    assert "fc_0.w_0@GRAD = mul_grad(" in text
    assert "mean_grad(X=softmax_with_cross_entropy_0.tmp_1, Out@GRAD=mean_0.tmp_0@GRAD)" in text
    for op in backward:
        assert op.type in text


def test_grad_variables_are_declared_with_shapes_and_dtypes():
    program, (loss, pairs) = build(mlp_classifier)
    block = program.global_block()
    for op in grad_ops(program):
        for name in op.output_arg_names:
            var = block.var(name)
            base = block.find_var(name.split("@GRAD")[0])
            assert var.shape == base.shape and var.dtype == base.dtype
            assert not var.persistable


def test_backward_program_serializes_and_parses_back():
    program, (loss, pairs) = build(mlp_classifier)
    data = program.serialize()
    again = pd.Program.parse(data)
    assert again.serialize() == data
    assert str(again) == str(program)
    assert [op.attr("op_role") for op in again.global_block().ops] == \
        [op.attr("op_role") for op in program.global_block().ops]
    # the parsed program computes the same gradients. It runs its initializers on every run
    # (which ops the framework put in the preamble is not in the desc), so it runs first and
    # the original, which skips its initializers in a scope that has the parameters, second
    feed = classifier_feed()
    fetch = [g.name for _, g in pairs]
    exe = pd.Executor(CPU)
    scope = pd.Scope()
    second = exe.run(again, feed=feed, fetch_list=fetch, scope=scope)
    first = exe.run(program, feed=feed, fetch_list=fetch, scope=scope)   # same parameters
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_clone_for_test_drops_the_backward():
    program, (loss, pairs) = build(mlp_classifier)
    test_program = program.clone(for_test=True)
    assert grad_ops(test_program) == []
    assert len(test_program.global_block().ops) == len(program.global_block().ops) - \
        len(grad_ops(program))


def test_prune_to_the_loss_drops_the_backward():
    program, (loss, pairs) = build(mlp_classifier)
    assert grad_ops(program.prune([loss])) == []
    pruned = program.prune([pairs[0][1]])                  # a gradient needs the forward too
    types = [op.type for op in pruned.global_block().ops]
    assert "mul" in types and "mul_grad" in types


# -- twice ----------------------------------------------------------------------------------------
def two_losses():
    x = pd.layers.data("x", shape=[3], dtype="float64")
    h = pd.layers.fc(x, 2, act="tanh")
    loss1 = pd.layers.mean(h)
    pairs1 = pd.append_backward(loss1)
    loss2 = pd.layers.reduce_sum(pd.layers.square(h))
    pairs2 = pd.append_backward(loss2)
    return loss1, pairs1, loss2, pairs2


def test_append_backward_twice():
    program, (loss1, pairs1, loss2, pairs2) = build(two_losses)
    seeds = [op for op in grad_ops(program) if op.attr("op_role") == 0x101]
    assert [op.output("Out") for op in seeds] == [[loss1.name + "@GRAD"], [loss2.name + "@GRAD"]]
    assert [p.name for p, _ in pairs1] == [p.name for p, _ in pairs2] == ["fc_0.w_0", "fc_0.b_0"]
    assert [g.name for _, g in pairs1] == ["fc_0.w_0@GRAD", "fc_0.b_0@GRAD"]
    assert [g.name for _, g in pairs2] == ["grad/grad/fc_0.w_0@GRAD", "grad/grad/fc_0.b_0@GRAD"]
    checker = Checker(program, loss2, {"x": rng(11).normal(size=(2, 3))})
    checker.check_pairs(pairs2)


def test_append_backward_twice_keeps_the_first_gradients():
    """The second pass writes its gradients as grad/grad/x@GRAD (PaddlePaddle's
    _rename_grad_name_), so after a run both passes' gradients are right."""
    program, (loss1, pairs1, loss2, pairs2) = build(two_losses)
    checker = Checker(program, loss1, {"x": rng(11).normal(size=(2, 3))})
    checker.check_pairs(pairs1)


def test_a_third_backward_pass_adds_one_more_grad_prefix():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        h = pd.layers.fc(x, 2, act="tanh")
        losses = [pd.layers.mean(h), pd.layers.reduce_sum(h * h), pd.layers.mean(pd.layers.exp(h))]
        return losses, [pd.append_backward(loss) for loss in losses]

    program, (losses, passes) = build(net)
    assert [[g.name.count("grad/") for _, g in pairs] for pairs in passes] == \
        [[0, 0], [2, 2], [3, 3]]
    for loss, pairs in zip(losses, passes):
        Checker(program, loss, {"x": rng(13).normal(size=(2, 3))}).check_pairs(pairs)


def test_second_backward_does_not_read_the_first_ones_gradients():
    """The second pass needs b@GRAD (b unused by loss2); the first pass wrote one, which
    must not be read: the second pass fills its own zeros."""
    def net():
        x = pd.layers.data("x", shape=[4], dtype="float64")
        h = pd.layers.fc(x, 4, act="tanh")
        a, b = pd.layers.split(h, 2, dim=1)
        loss1 = pd.layers.mean(a * b)
        pd.append_backward(loss1)
        loss2 = pd.layers.mean(pd.layers.square(a))
        return b, loss2, pd.append_backward(loss2)

    program, (b, loss2, pairs2) = build(net)
    fills = [op for op in program.global_block().ops if op.type == "fill_any_like"]
    assert [op.output("Out") for op in fills] == [["grad/grad/" + b.name + "@GRAD"]]
    Checker(program, loss2, {"x": rng(12).normal(size=(2, 4))}).check_pairs(pairs2)


# -- errors ---------------------------------------------------------------------------------------
def test_append_backward_needs_a_variable():
    with pytest.raises(TypeError):
        pd.append_backward("loss")


def test_loss_that_no_op_computes():
    def net():
        x = pd.layers.data("x", shape=[3], dtype="float64")
        return x

    program, x = build(net)
    with pytest.raises(pd.errors.BackwardError):
        pd.append_backward(x)


def test_layers_after_a_backward_through_a_sub_block_go_to_the_block_current_before():
    """The grad block of a sub-block is made with an explicit parent; making it must not
    leave that parent (block 1) current for the layers the user writes next."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2], dtype="float64")
        x.stop_gradient = False
        pred = pd.layers.less_than(pd.layers.fill_constant([1], "float64", 0.0),
                                   pd.layers.fill_constant([1], "float64", 1.0))
        y = pd.layers.cond(pred, lambda: pd.layers.scale(x, 2.0), lambda: pd.layers.scale(x, 3.0))
        loss = pd.layers.mean(y)
        pd.append_backward(loss)
        after = pd.layers.scale(loss, 2.0)
    assert prog.current_block().idx == 0
    assert after.block.idx == 0
