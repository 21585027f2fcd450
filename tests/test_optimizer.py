"""Optimizers end to end: programs built with minimize(), run by an Executor.

Each optimizer is checked against a NumPy implementation of its update on a
tiny linear regression, then trained on scikit-learn's digits. The rest
checks where the optimizer's state lives (the user's scope, initialized once),
per-parameter learning rates and regularizers, frozen parameters, op roles,
and that a thousand training steps leak neither scopes nor memory.
"""

import time

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.framework.operator import OpRole
from paddle_nb.regularizer import L1Decay, L2Decay

Constant = pd.initializer.Constant

RNG = np.random.default_rng(0)
X = RNG.standard_normal((32, 4)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5], [3.0]]) + 0.7).astype("float32")
FEED = {"x": X, "y": Y}

OPTIMIZERS = {
    "sgd": lambda: pd.optimizer.SGD(learning_rate=0.1),
    "momentum": lambda: pd.optimizer.Momentum(learning_rate=0.05, momentum=0.9),
    "nesterov": lambda: pd.optimizer.Momentum(learning_rate=0.05, momentum=0.9, use_nesterov=True),
    "adam": lambda: pd.optimizer.Adam(learning_rate=0.1),
}


def linear_regression(optimizer, startup=True, w_attr=None, b_attr=None):
    """``loss = mean((x @ w + b - y)^2)`` minimized by ``optimizer``: (main, startup, loss)."""
    main = pd.Program()
    start = pd.Program() if startup else None
    with pd.program_guard(main, start):
        x = pd.layers.data("x", shape=[4])
        y = pd.layers.data("y", shape=[1])
        pred = pd.layers.fc(x, 1, param_attr=w_attr or "w", bias_attr=b_attr or "b")
        loss = pd.layers.mean(pd.layers.square_error_cost(pred, y))
        optimizer.minimize(loss)
    return main, start, loss


def start(main, startup):
    """A fresh scope and executor, with the startup program run when there is one."""
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace(), seed=0)
    if startup is not None:
        exe.run(startup, scope=scope)
    return scope, exe


def value(scope, name):
    return scope.find_var(name).get_tensor().numpy().astype(np.float64)


def grads(w, b):
    """The gradients of the mean squared error, in float64."""
    d = 2.0 * (X @ w + b - Y) / len(X)
    return X.T @ d, d.sum(axis=0)


# ---- NumPy references: one update each, written from the textbook formulas -----------------------

def numpy_sgd(lr):
    def step(p, g, state):
        return p - lr * g
    return step


def numpy_momentum(lr, mu, nesterov=False):
    def step(p, g, state):
        state["v"] = mu * state.get("v", 0.0) + g
        return p - lr * (g + mu * state["v"] if nesterov else state["v"])
    return step


def numpy_adam(lr, b1=0.9, b2=0.999, eps=1e-8):
    def step(p, g, state):
        t = state["t"] = state.get("t", 0) + 1
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * g
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * g * g
        m_hat, v_hat = state["m"] / (1 - b1 ** t), state["v"] / (1 - b2 ** t)
        return p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return step


NUMPY = {"sgd": numpy_sgd(0.1), "momentum": numpy_momentum(0.05, 0.9),
         "nesterov": numpy_momentum(0.05, 0.9, nesterov=True), "adam": numpy_adam(0.1)}


@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_converges_on_linear_regression(kind):
    main, startup, loss = linear_regression(OPTIMIZERS[kind]())
    scope, exe = start(main, startup)
    losses = [exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)[0] for _ in range(100)]
    assert losses[-1] < losses[0] / 10, (losses[0], losses[-1])


@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_three_steps_match_numpy(kind):
    main, startup, _ = linear_regression(OPTIMIZERS[kind]())
    scope, exe = start(main, startup)
    w, b = value(scope, "w"), value(scope, "b")
    state_w, state_b = {}, {}
    for _ in range(3):
        exe.run(main, feed=FEED, scope=scope)
        gw, gb = grads(w, b)
        w, b = NUMPY[kind](w, gw, state_w), NUMPY[kind](b, gb, state_b)
        np.testing.assert_allclose(value(scope, "w"), w, atol=1e-5)
        np.testing.assert_allclose(value(scope, "b"), b, atol=1e-5)


def test_update_ops_write_the_parameter_itself_with_the_optimize_role():
    main, startup, _ = linear_regression(pd.optimizer.Adam(0.01))
    updates = [op for op in main.global_block().ops if op.type == "adam"]
    # in parameter-name order, as PaddlePaddle (1.8 and 2.6) sorts the (param, grad) pairs
    assert [op.input("Param") for op in updates] == [["b"], ["w"]]
    assert all(op.output("ParamOut") == op.input("Param") for op in updates)
    assert all(op.role == OpRole.OPTIMIZE for op in updates)
    assert updates[1].attr("op_role_var") == ["w", "w@GRAD"]
    assert updates[1].input("Moment1") == ["w_moment1_0"] == updates[1].output("Moment1Out")
    assert updates[1].input("Beta1Pow") == ["w_beta1_pow_acc_0"]
    inits = {op.output("Out")[0]: op.attr("value") for op in startup.global_block().ops}
    assert inits["learning_rate_0"] == pytest.approx(0.01)
    assert inits["w_moment1_0"] == 0.0 and inits["w_beta2_pow_acc_0"] == pytest.approx(0.999)


def test_minimize_sends_initializers_to_the_given_startup_program():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[4])
        loss = pd.layers.mean(pd.layers.fc(x, 1, param_attr="w"))
    pd.optimizer.Momentum(0.1, 0.9).minimize(loss, startup_program=startup)
    assert [op.output("Out")[0] for op in startup.global_block().ops] == \
        ["learning_rate_0", "fc_0.b_0_velocity_0", "w_velocity_0"]     # parameter-name order
    assert main._startup is None


@pytest.mark.parametrize("use_startup", [True, False], ids=["startup", "preamble"])
def test_state_lives_in_the_user_scope_and_is_initialized_once(use_startup):
    main, startup, _ = linear_regression(pd.optimizer.Adam(0.1), startup=use_startup)
    scope, exe = start(main, startup)
    exe.run(main, feed=FEED, scope=scope)
    names = scope.local_var_names()
    for name in ("learning_rate_0", "w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0",
                 "w_beta2_pow_acc_0", "b_moment1_0"):
        assert name in names
    np.testing.assert_allclose(value(scope, "w_beta1_pow_acc_0"), [0.9 ** 2], rtol=1e-6)
    moment = value(scope, "w_moment1_0")
    assert np.abs(moment).sum() > 0
    exe.run(main, feed=FEED, scope=scope)
    exe.run(main, feed=FEED, scope=scope)
    np.testing.assert_allclose(value(scope, "w_beta1_pow_acc_0"), [0.9 ** 4], rtol=1e-6)
    np.testing.assert_allclose(value(scope, "w_beta2_pow_acc_0"), [0.999 ** 4], rtol=1e-6)
    assert scope.kids == []


def test_a_failed_run_leaves_parameters_and_state_as_they_were():
    main, startup, _ = linear_regression(pd.optimizer.Adam(0.1))
    never = main.global_block().create_var(name="never_written", shape=(1,))
    scope, exe = start(main, startup)
    exe.run(main, feed=FEED, scope=scope)
    before = {n: value(scope, n) for n in ("w", "b", "w_moment1_0", "w_beta1_pow_acc_0")}
    with pytest.raises(pd.errors.FetchError):
        exe.run(main, feed=FEED, fetch_list=[never], scope=scope)   # fails after the updates ran
    for name, old in before.items():
        np.testing.assert_array_equal(value(scope, name), old)


def test_param_learning_rate_scale_halves_the_step():
    full, full_start, _ = linear_regression(
        pd.optimizer.SGD(0.1), w_attr=pd.ParamAttr(name="w", initializer=Constant(0.3)))
    half, half_start, _ = linear_regression(
        pd.optimizer.SGD(0.1), w_attr=pd.ParamAttr(name="w", initializer=Constant(0.3),
                                                   learning_rate=0.5))
    steps = []
    for main, startup in ((full, full_start), (half, half_start)):
        scope, exe = start(main, startup)
        w0, b0 = value(scope, "w"), value(scope, "b")
        exe.run(main, feed=FEED, scope=scope)
        steps.append((value(scope, "w") - w0, value(scope, "b") - b0))
    np.testing.assert_allclose(steps[1][0], 0.5 * steps[0][0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(steps[1][1], steps[0][1], rtol=1e-6)     # b keeps the full rate
    # (the second learning rate made in this process, as in Paddle)
    scales = [op for op in half.global_block().ops
              if op.type == "scale" and op.input("X") == ["learning_rate_1"]]
    assert len(scales) == 1 and scales[0].attr("scale") == 0.5
    assert scales[0].role == OpRole.LRSCHED | OpRole.OPTIMIZE      # as PaddlePaddle marks it


def one_step(optimizer, **attrs):
    """Parameters before and after one step, and the gradients at the start."""
    main, startup, _ = linear_regression(optimizer, **attrs)
    scope, exe = start(main, startup)
    w0, b0 = value(scope, "w"), value(scope, "b")
    exe.run(main, feed=FEED, scope=scope)
    return (w0, b0), (value(scope, "w"), value(scope, "b")), grads(w0, b0), main


def test_l2_decay_adds_coeff_times_param_to_the_gradient():
    w_attr = pd.ParamAttr(name="w", initializer=Constant(0.5))
    (w0, b0), (w1, b1), (gw, gb), main = one_step(
        pd.optimizer.SGD(0.1, regularization=L2Decay(0.2)), w_attr=w_attr)
    np.testing.assert_allclose(w1, w0 - 0.1 * (gw + 0.2 * w0), atol=1e-6)
    np.testing.assert_allclose(b1, b0 - 0.1 * (gb + 0.2 * b0), atol=1e-6)
    decay_ops = [op for op in main.global_block().ops if op.type in ("scale", "sum")
                 and op.role == OpRole.OPTIMIZE]
    assert len(decay_ops) == 4          # a scale and a sum per parameter
    sgd_w = next(op for op in main.global_block().ops
                 if op.type == "sgd" and op.input("Param") == ["w"])
    assert sgd_w.input("Grad") == ["w@GRAD@REGULARIZED_0"]


def test_l2_decay_is_folded_into_momentum():
    w_attr = pd.ParamAttr(name="w", initializer=Constant(0.5))
    (w0, _), (w1, _), (gw, _), main = one_step(
        pd.optimizer.Momentum(0.1, 0.9, regularization=L2Decay(0.2)), w_attr=w_attr)
    np.testing.assert_allclose(w1, w0 - 0.1 * (gw + 0.2 * w0), atol=1e-6)   # v0 = 0
    op = next(op for op in main.global_block().ops if op.type == "momentum")
    assert op.attr("regularization_method") == "l2_decay"
    assert op.attr("regularization_coeff") == pytest.approx(0.2)


def test_a_parameter_regularizer_wins_over_the_optimizer_one():
    w_attr = pd.ParamAttr(name="w", initializer=Constant(-0.5), regularizer=L1Decay(0.3))
    (w0, b0), (w1, b1), (gw, gb), _ = one_step(
        pd.optimizer.SGD(0.1, regularization=L2Decay(0.2)), w_attr=w_attr)
    np.testing.assert_allclose(w1, w0 - 0.1 * (gw + 0.3 * np.sign(w0)), atol=1e-6)
    np.testing.assert_allclose(b1, b0 - 0.1 * (gb + 0.2 * b0), atol=1e-6)


def test_frozen_parameters_are_not_updated():
    w_attr = pd.ParamAttr(name="w", trainable=False)
    main, startup, _ = linear_regression(pd.optimizer.Momentum(0.05, 0.9), w_attr=w_attr)
    assert [op.input("Param") for op in main.global_block().ops if op.type == "momentum"] == [["b"]]
    scope, exe = start(main, startup)
    w0, b0 = value(scope, "w"), value(scope, "b")
    for _ in range(5):
        exe.run(main, feed=FEED, scope=scope)
    np.testing.assert_array_equal(value(scope, "w"), w0)
    assert not np.allclose(value(scope, "b"), b0)
    assert scope.find_var("w_velocity_0") is None


def test_bad_hyperparameters_are_refused():
    with pytest.raises(ValueError, match="learning_rate"):
        pd.optimizer.SGD(-0.1)
    with pytest.raises(ValueError, match="momentum"):
        pd.optimizer.Momentum(0.1, momentum=1.5)
    with pytest.raises(ValueError, match="beta1"):
        pd.optimizer.Adam(beta1=1.0)
    with pytest.raises(TypeError, match="regularization"):
        pd.optimizer.SGD(0.1, regularization=0.01)


# ---- the headline: an MLP on scikit-learn's digits -----------------------------------------------

@pytest.fixture(scope="module")
def digits():
    """Standardized digits (8x8 images, 10 classes), a fixed split with seed 0."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    data = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        data.data.astype("float32"), data.target.astype("int64").reshape(-1, 1),
        test_size=0.2, random_state=0)
    mean, std = x_train.mean(axis=0), x_train.std(axis=0) + 1e-6
    return ((x_train - mean) / std, y_train), ((x_test - mean) / std, y_test)


DIGITS_OPTIMIZERS = {
    "sgd": lambda: pd.optimizer.SGD(learning_rate=0.2),
    "momentum": lambda: pd.optimizer.Momentum(learning_rate=0.02, momentum=0.9),
    "adam": lambda: pd.optimizer.Adam(learning_rate=0.003),
}


def digits_mlp(optimizer):
    """64 -> 64 (relu) -> 10, softmax cross-entropy: (main, test program, startup, loss, acc)."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        image = pd.layers.data("image", shape=[64])
        label = pd.layers.data("label", shape=[1], dtype="int64")
        hidden = pd.layers.fc(image, 64, act="relu")
        logits = pd.layers.fc(hidden, 10)
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
        acc = pd.layers.accuracy(pd.layers.softmax(logits), label)
        test = main.clone(for_test=True)
        optimizer.minimize(loss)
    return main, test, startup, loss, acc


@pytest.mark.parametrize("kind", list(DIGITS_OPTIMIZERS))
def test_mlp_learns_digits(kind, digits):
    (x_train, y_train), (x_test, y_test) = digits
    main, test, startup, loss, acc = digits_mlp(DIGITS_OPTIMIZERS[kind]())
    scope, exe = start(main, startup)
    order = np.random.default_rng(0)
    epochs, batch = 10, 32
    began = time.perf_counter()
    steps = 0
    for _ in range(epochs):
        perm = order.permutation(len(x_train))
        for i in range(0, len(perm), batch):
            rows = perm[i:i + batch]
            exe.run(main, feed={"image": x_train[rows], "label": y_train[rows]}, scope=scope)
            steps += 1
    seconds = time.perf_counter() - began
    (accuracy,) = exe.run(test, feed={"image": x_test, "label": y_test}, fetch_list=[acc],
                          scope=scope)
    print(f"\n{kind}: {steps} steps in {seconds:.2f} s, test accuracy {float(accuracy):.4f}")
    assert float(accuracy) >= 0.95      # (its speed is measured in bench/, not asserted)


def test_a_thousand_steps_leak_no_scopes_and_no_memory():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[8])
        y = pd.layers.data("y", shape=[1])
        hidden = pd.layers.fc(x, 16, act="relu")
        loss = pd.layers.mean(pd.layers.square_error_cost(pd.layers.fc(hidden, 1), y))
        pd.optimizer.SGD(0.01).minimize(loss)
    feed = {"x": RNG.standard_normal((16, 8)).astype("float32"),
            "y": RNG.standard_normal((16, 1)).astype("float32")}
    scope, exe = start(main, startup)
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    in_use = pd.memory_stats(pd.CPUPlace())["in_use"]
    for _ in range(999):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert scope.kids == []
    assert pd.memory_stats(pd.CPUPlace())["in_use"] == in_use
