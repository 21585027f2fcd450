"""The 2.x optimizer API against NumPy: schedulers driving runs, clipping, weight decay, and
what a static program cannot do (``step``, ``clear_grad``).

The comparison with PaddlePaddle's own programs and numbers is tests/api/test_optim_api.py;
this file checks the mechanisms on a tiny linear regression, with NumPy references.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.optimizer import lr as schedulers

RNG = np.random.default_rng(3)
X = RNG.standard_normal((8, 3)).astype("float32")
Y = RNG.standard_normal((8, 1)).astype("float32")
FEED = {"x": X, "y": Y}
W0, B0 = np.float32([[0.5], [-0.25], [1.0]]), np.float32([0.1])


def regression(optimizer, startup=True, w_attr=None, b_attr=None):
    """``mean((x @ w + b - y)^2)`` minimized by ``optimizer``: (main, startup, loss, params)."""
    main = pd.Program()
    start = pd.Program() if startup else None
    w_attr = w_attr or pd.ParamAttr(name="w", initializer=pd.nn.initializer.Assign(W0))
    b_attr = b_attr or pd.ParamAttr(name="b", initializer=pd.nn.initializer.Assign(B0))
    with pd.program_guard(main, start):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.data("y", shape=[1])
        pred = pd.layers.fc(x, 1, param_attr=w_attr, bias_attr=b_attr)
        loss = pd.layers.mean(pd.layers.square_error_cost(pred, y))
        ops, pairs = optimizer.minimize(loss)
    return main, start, loss, [p for p, _ in pairs]


def grads(w, b):
    d = 2.0 * (X @ w + b - Y) / len(X)
    return X.T @ d, d.sum(axis=0)


def value(scope, name):
    return scope.find_var(name).get_tensor().numpy().astype(np.float64)


def run_steps(main, startup, steps, scheduler=None, exe=None):
    scope, exe = pd.Scope(), exe or pd.Executor(pd.CPUPlace())
    if startup is not None:
        exe.run(startup, scope=scope)
    seen = []
    for _ in range(steps):
        exe.run(main, feed=FEED, scope=scope)
        seen.append(float(value(scope, "learning_rate_0")))
        if scheduler is not None:
            scheduler.step()
    return scope, seen


def sgd_reference(rates):
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    for rate in rates:
        gw, gb = grads(w, b)
        w, b = w - rate * gw, b - rate * gb
    return w, b


@pytest.mark.parametrize("path", ["fast", "observed", "preamble"])
def test_a_scheduler_sets_each_runs_learning_rate(path):
    scheduler = schedulers.StepDecay(0.2, step_size=2, gamma=0.5)
    main, startup, _, _ = regression(pd.optimizer.SGD(learning_rate=scheduler),
                                     startup=path != "preamble")
    assert main.lr_scheduler is scheduler and main.lr_var_name == "learning_rate_0"
    exe = pd.Executor(pd.CPUPlace())
    if path == "observed":          # a listener sends every run down the scope loop
        exe.subscribe(lambda record: None)
    scope, seen = run_steps(main, startup, 5, scheduler, exe)
    assert seen == pytest.approx([0.2, 0.2, 0.1, 0.1, 0.05])
    w, b = sgd_reference([0.2, 0.2, 0.1, 0.1, 0.05])
    np.testing.assert_allclose(value(scope, "w"), w, rtol=1e-5)
    np.testing.assert_allclose(value(scope, "b"), b, rtol=1e-5)


def test_clone_keeps_the_scheduler():
    scheduler = schedulers.ExponentialDecay(0.1, gamma=0.5)
    main, _, _, _ = regression(pd.optimizer.Adam(scheduler))
    assert main.clone().lr_scheduler is scheduler
    assert main.clone(for_test=True).lr_var_name == "learning_rate_0"
    assert pd.optimizer.Adam(scheduler).get_lr() == pytest.approx(0.1)


def test_step_and_clear_grad_say_dynamic_mode_only():
    optimizer = pd.optimizer.Adam(0.01)
    with pytest.raises(RuntimeError, match="dynamic mode only.*minimize"):
        optimizer.step()
    with pytest.raises(RuntimeError, match="dynamic mode only"):
        optimizer.clear_grad()


def test_parameters_limit_what_is_updated():
    main, startup, _, _ = regression(pd.optimizer.SGD(0.1))
    w = main.global_block().var("w")
    main, startup, _, pairs = regression(pd.optimizer.SGD(0.1, parameters=[w]))
    assert [op.input("Param") for op in main.global_block().ops if op.type == "sgd"] == [["w"]]
    grouped = pd.optimizer.SGD(0.1, parameters=[{"params": [w]}])
    assert grouped.minimize is not None
    with pytest.raises(NotImplementedError, match="per-group options"):
        pd.optimizer.SGD(0.1, parameters=[{"params": [w], "learning_rate": 0.5}])


def test_weight_decay_float_is_l2_summed_into_the_gradient_in_place():
    main, startup, _, _ = regression(pd.optimizer.SGD(0.1, weight_decay=0.2))
    ops = main.global_block().ops
    sums = [op for op in ops if op.type == "sum"]
    assert [op.output("Out") for op in sums] == [["b@GRAD"], ["w@GRAD"]]
    assert [op.input("Grad") for op in ops if op.type == "sgd"] == [["b@GRAD"], ["w@GRAD"]]
    scope, _ = run_steps(main, startup, 1)
    gw, gb = grads(W0.astype(np.float64), B0.astype(np.float64))
    np.testing.assert_allclose(value(scope, "w"), W0 - 0.1 * (gw + 0.2 * W0), rtol=1e-5)
    with pytest.raises(TypeError, match="weight_decay must be a float"):
        pd.optimizer.SGD(0.1, weight_decay="0.1")


def test_global_norm_clip_scales_every_gradient_together_except_need_clip_false():
    b_attr = pd.ParamAttr(name="b", initializer=pd.nn.initializer.Assign(B0), need_clip=False)
    main, startup, _, _ = regression(
        pd.optimizer.SGD(1.0, grad_clip=pd.nn.ClipGradByGlobalNorm(0.05)), b_attr=b_attr)
    types = [op.type for op in main.global_block().ops if op.role == 2]
    assert types == ["squared_l2_norm", "sum", "sqrt", "fill_constant", "elementwise_max",
                     "elementwise_div", "elementwise_mul", "sgd", "sgd"]
    scope, _ = run_steps(main, startup, 1)
    gw, gb = grads(W0.astype(np.float64), B0.astype(np.float64))
    scale = 0.05 / max(np.sqrt((gw ** 2).sum()), 0.05)
    np.testing.assert_allclose(value(scope, "w"), W0 - scale * gw, rtol=1e-5)
    np.testing.assert_allclose(value(scope, "b"), B0 - gb, rtol=1e-5)     # not clipped


@pytest.mark.parametrize("clip, expect", [
    (pd.nn.ClipGradByValue(0.1), lambda g: np.clip(g, -0.1, 0.1)),
    (pd.nn.ClipGradByNorm(0.1), lambda g: g * min(1.0, 0.1 / np.sqrt((g ** 2).sum()))),
])
def test_value_and_norm_clips_clip_each_gradient(clip, expect):
    main, startup, _, _ = regression(pd.optimizer.SGD(1.0, grad_clip=clip))
    scope, _ = run_steps(main, startup, 1)
    gw, gb = grads(W0.astype(np.float64), B0.astype(np.float64))
    np.testing.assert_allclose(value(scope, "w"), W0 - expect(gw), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(value(scope, "b"), B0 - expect(gb), rtol=1e-5, atol=1e-7)


def test_adamw_decays_only_what_apply_decay_param_fun_names():
    optimizer = pd.optimizer.AdamW(0.1, weight_decay=0.5,
                                   apply_decay_param_fun=lambda name: name == "w")
    main, startup, _, _ = regression(optimizer)
    decay = {op.input("Param")[0]: op.attr("with_decay")
             for op in main.global_block().ops if op.type == "adamw"}
    assert decay == {"w": True, "b": False}
    scope, _ = run_steps(main, startup, 1)
    gw, gb = grads(W0.astype(np.float64), B0.astype(np.float64))
    # the first Adam step moves each element by lr * g / (|g| + eps') = lr * sign(g)
    np.testing.assert_allclose(value(scope, "w"), W0 * (1 - 0.1 * 0.5) - 0.1 * np.sign(gw),
                               rtol=1e-4)
    np.testing.assert_allclose(value(scope, "b"), B0 - 0.1 * np.sign(gb), rtol=1e-4)


def test_bad_arguments_are_refused_with_their_name():
    with pytest.raises(ValueError, match="learning_rate must be a positive number, an LRSch"):
        pd.optimizer.Adagrad(learning_rate=0)
    with pytest.raises(TypeError, match="grad_clip"):
        pd.optimizer.SGD(0.1, grad_clip=1.0)
    with pytest.raises(TypeError, match="AdamW: weight_decay"):
        pd.optimizer.AdamW(0.1, weight_decay=pd.regularizer.L2Decay(0.1))
    with pytest.raises(ValueError, match="rho"):
        pd.optimizer.RMSProp(0.1, rho=1.5)
    with pytest.raises(TypeError, match="a regularizer goes in weight_decay="):
        pd.optimizer.SGD(0.1, pd.regularizer.L2Decay(0.1))      # Fluid 1.8's second argument
    with pytest.raises(ValueError, match="clip_norm"):
        pd.nn.ClipGradByGlobalNorm(-1.0)


def test_adamw_writes_each_parameters_lr_ratio():
    # (PaddlePaddle 2.6's CPU kernel refuses an lr_ratio other than 1: only the attribute
    # is compared here)
    optimizer = pd.optimizer.AdamW(0.1, weight_decay=0.5, lr_ratio=lambda p: 0.5 if p.name == "w"
                                   else 1.0)
    main, _, _, _ = regression(optimizer)
    ratios = {op.input("Param")[0]: op.attr("lr_ratio")
              for op in main.global_block().ops if op.type == "adamw"}
    assert ratios == {"w": 0.5, "b": 1.0}


def test_a_scheduler_state_round_trips():
    scheduler = schedulers.StepDecay(0.5, step_size=2)
    for _ in range(3):
        scheduler.step()
    state = scheduler.state_dict()
    assert state["last_epoch"] == 3 and state["last_lr"] == pytest.approx(0.05)
    fresh = schedulers.StepDecay(0.5, step_size=2)
    fresh.set_state_dict(state)
    assert fresh() == pytest.approx(0.05) and fresh.last_epoch == 3
