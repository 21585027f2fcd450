"""paddle.nn's losses and norms against formulas written in NumPy.

Each case builds one function or layer with paddle_nb on small fed arrays, runs it, and
compares with the textbook formula computed here in float64 (the PaddlePaddle
comparison is tests/api/test_lossnorm_api.py). Also: the errors a user meets.
"""

import numpy as np
import pytest

import paddle_nb as pd
import paddle_nb.nn as nn
import paddle_nb.nn.functional as F
from paddle_nb.framework import unique_name

rng = np.random.default_rng(3)
X = rng.standard_normal((4, 3))
Y = rng.standard_normal((4, 3))
P = rng.random((4, 3)) * 0.8 + 0.1
Q = rng.random((4, 3)) * 0.8 + 0.1
T = np.where(rng.random((4, 3)) > 0.5, 1.0, -1.0)
LABEL = np.array([0, 2, 1, 2])
W3 = rng.random(3) + 0.5
IMG = rng.standard_normal((2, 3, 2, 2))
FEEDS = {"x": X, "y": Y, "p": P, "q": Q, "t": T, "label": LABEL, "w3": W3, "img": IMG,
         "sign": np.array([1, -1, 1, -1])}


def run(build, *names):
    """build(*variables) with paddle_nb; the output's value (float32 feeds, int64 labels)."""
    with unique_name.guard():
        main, startup = pd.Program(), pd.Program()
        with pd.program_guard(main, startup):
            feeds = {n: FEEDS[n].astype("int64" if FEEDS[n].dtype.kind == "i" else "float32")
                     for n in names}
            out = build(*[pd.layers.data(n, list(v.shape), dtype=str(v.dtype),
                                         append_batch_size=False) for n, v in feeds.items()])
        exe = pd.Executor(pd.CPUPlace())
        exe.run(startup, scope=(scope := pd.Scope()))
        return exe.run(main, feed=feeds, fetch_list=[out], scope=scope)[0]


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


PICK = log_softmax(X)[np.arange(4), LABEL]
KEPT = LABEL != 1
D = Y - X
COS = (X * Y).sum(1) / np.sqrt((X * X).sum(1) * (Y * Y).sum(1))

CASES = {
    "cross_entropy": (lambda x, label: F.cross_entropy(x, label), ("x", "label"), -PICK.mean()),
    "cross_entropy weight": (lambda x, label, w: F.cross_entropy(x, label, weight=w),
                             ("x", "label", "w3"),
                             -(PICK * W3[LABEL]).sum() / W3[LABEL].sum()),
    "cross_entropy ignore_index": (lambda x, label: F.cross_entropy(x, label, ignore_index=1),
                                   ("x", "label"), -PICK[KEPT].sum() / KEPT.sum()),
    "cross_entropy label_smoothing": (
        lambda x, label: F.cross_entropy(x, label, label_smoothing=0.3), ("x", "label"),
        -((np.eye(3)[LABEL] * 0.7 + 0.1) * log_softmax(X)).sum(1).mean()),
    "CrossEntropyLoss soft": (lambda x, q: nn.CrossEntropyLoss(soft_label=True,
                                                               reduction="sum")(x, q),
                              ("x", "q"), -(Q * log_softmax(X)).sum()),
    "mse_loss": (lambda x, y: F.mse_loss(x, y), ("x", "y"), (D ** 2).mean()),
    "L1Loss": (lambda x, y: nn.L1Loss("sum")(x, y), ("x", "y"), np.abs(D).sum()),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x, y, delta=0.5), ("x", "y"),
                       np.where(np.abs(D) <= 0.5, D ** 2 / 2, 0.5 * (np.abs(D) - 0.25)).mean()),
    "BCELoss": (lambda p, q: nn.BCELoss()(p, q), ("p", "q"),
                -(Q * np.log(P) + (1 - Q) * np.log(1 - P)).mean()),
    "BCEWithLogitsLoss": (lambda x, q: nn.BCEWithLogitsLoss(reduction="none")(x, q), ("x", "q"),
                          -(Q * np.log(sigmoid(X)) + (1 - Q) * np.log(1 - sigmoid(X)))),
    "nll_loss": (lambda x, label: F.nll_loss(x, label, reduction="sum"), ("x", "label"),
                 -X[np.arange(4), LABEL].sum()),
    "KLDivLoss sum": (lambda x, q: nn.KLDivLoss("sum")(x, q), ("x", "q"),
                      (Q * (np.log(Q) - X)).sum()),
    "kl_div batchmean": (lambda x, q: F.kl_div(x, q, "batchmean"), ("x", "q"),
                         # shape () as in 2.6 (slice decreasing every axis gives 0-D)
                         np.float32((Q * (np.log(Q) - X)).sum() / 4)),
    "margin_ranking_loss": (lambda x, y, t: F.margin_ranking_loss(x, y, t, 0.2), ("x", "y", "t"),
                            np.maximum(-T * (X - Y) + 0.2, 0).mean()),
    "SoftMarginLoss": (lambda x, t: nn.SoftMarginLoss()(x, t), ("x", "t"),
                       np.log1p(np.exp(-T * X)).mean()),
    "multi_label_soft_margin_loss": (
        lambda x, q: F.multi_label_soft_margin_loss(x, q), ("x", "q"),
        (-(Q * np.log(sigmoid(X)) + (1 - Q) * np.log(sigmoid(-X)))).mean(1).mean()),
    "hinge_embedding_loss": (lambda x, t: F.hinge_embedding_loss(x, t, margin=0.5), ("x", "t"),
                             np.where(T == 1, X, np.maximum(0.5 - X, 0)).mean()),
    "CosineEmbeddingLoss": (lambda x, y, s: nn.CosineEmbeddingLoss(0.1)(x, y, s),
                            ("x", "y", "sign"),
                            np.where(np.array([1, -1, 1, -1]) == 1, 1 - COS,
                                     np.maximum(COS - 0.1, 0)).mean()),
    "TripletMarginLoss": (lambda x, y, p: nn.TripletMarginLoss(margin=0.5)(x, y, p),
                          ("x", "y", "p"),
                          np.maximum(np.linalg.norm(X - Y + 1e-6, axis=1)
                                     - np.linalg.norm(X - P + 1e-6, axis=1) + 0.5, 0).mean()),
    "poisson_nll_loss": (lambda x, q: F.poisson_nll_loss(x, q), ("x", "q"),
                         (np.exp(X) - Q * X).mean()),
    "gaussian_nll_loss": (lambda x, y, q: F.gaussian_nll_loss(x, y, q), ("x", "y", "q"),
                          (0.5 * (np.log(Q) + D ** 2 / Q)).mean()),
    "sigmoid_focal_loss": (
        lambda x, q: F.sigmoid_focal_loss(x, q), ("x", "q"),
        ((0.25 * Q + 0.75 * (1 - Q))
         * (1 - (sigmoid(X) * Q + (1 - sigmoid(X)) * (1 - Q))) ** 2
         * -(Q * np.log(sigmoid(X)) + (1 - Q) * np.log(1 - sigmoid(X)))).sum()),
    "square_error_cost": (lambda x, y: F.square_error_cost(x, y), ("x", "y"), D ** 2),
    "label_smooth": (lambda p: F.label_smooth(p, epsilon=0.2), ("p",), 0.8 * P + 0.2 / 3),
    "batch_norm training": (
        lambda img: nn.BatchNorm2D(3)(img), ("img",),
        (IMG - IMG.mean((0, 2, 3), keepdims=True))
        / np.sqrt(IMG.var((0, 2, 3), keepdims=True) + 1e-5)),
    "batch_norm eval": (lambda img: nn.BatchNorm2D(3).eval()(img), ("img",),
                        IMG / np.sqrt(1 + 1e-5)),
    "LayerNorm": (lambda img: nn.LayerNorm([2, 2])(img), ("img",),
                  (IMG - IMG.mean((2, 3), keepdims=True))
                  / np.sqrt(IMG.var((2, 3), keepdims=True) + 1e-5)),
    "InstanceNorm2D": (lambda img: nn.InstanceNorm2D(3)(img), ("img",),
                       (IMG - IMG.mean((2, 3), keepdims=True))
                       / np.sqrt(IMG.var((2, 3), keepdims=True) + 1e-5)),
    "GroupNorm one group": (lambda img: nn.GroupNorm(1, 3)(img), ("img",),
                            (IMG - IMG.mean((1, 2, 3), keepdims=True))
                            / np.sqrt(IMG.var((1, 2, 3), keepdims=True) + 1e-5)),
    "LocalResponseNorm": (
        lambda img: nn.LocalResponseNorm(3, alpha=0.3, k=2.0)(img), ("img",),
        IMG / (2.0 + 0.3 / 3 * np.stack([(IMG[:, max(c - 1, 0):c + 2] ** 2).sum(1)
                                          for c in range(3)], 1)) ** 0.75),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_value_is_numpys(case):
    build, names, want = CASES[case]
    got = run(build, *names)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_bad_reduction_says_which_are_allowed():
    with pytest.raises(ValueError, match="mse_loss: reduction must be one of 'none', 'mean'"):
        run(lambda x, y: F.mse_loss(x, y, reduction="avg"), "x", "y")


def test_an_even_local_response_size_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="odd size"):
        run(lambda img: F.local_response_norm(img, 4), "img")


def test_batch_norm_layers_check_the_input_rank():
    with pytest.raises(ValueError, match="BatchNorm2D takes 4-D input"):
        run(lambda x: nn.BatchNorm2D(3)(x), "x")


def test_batch_norm_parameters_are_named_and_initialized_as_paddle_does():
    with unique_name.guard(), pd.program_guard(pd.Program(), startup := pd.Program()):
        bn = nn.BatchNorm1D(3, weight_attr=False)
    # no weight: the running mean takes the next .w_ name, w_0 (as in PaddlePaddle 2.6)
    assert [(p.name, p.trainable) for p in bn.parameters()] == [
        ("batch_norm1d_0.b_0", True), ("batch_norm1d_0.w_0", False),
        ("batch_norm1d_0.w_1", False)]
    scope = pd.Scope()
    pd.Executor(pd.CPUPlace()).run(startup, scope=scope)
    state = bn.state_dict(scope)
    assert list(state) == ["bias", "_mean", "_variance"]
    np.testing.assert_array_equal(state["_variance"], np.ones(3, "float32"))


def test_a_classifier_with_batch_norm_and_cross_entropy_trains():
    """fc, BatchNorm1D, fc and F.cross_entropy, minimized by SGD: the loss falls and the
    running statistics move from their start (0 and 1)."""
    gen = np.random.default_rng(0)
    x = gen.standard_normal((16, 4)).astype("float32")
    label = (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64")
    with unique_name.guard(), pd.program_guard(main := pd.Program(), startup := pd.Program()):
        xs = pd.layers.data("x", [16, 4], append_batch_size=False)
        ls = pd.layers.data("label", [16], dtype="int64", append_batch_size=False)
        bn = nn.BatchNorm1D(8)
        logits = pd.layers.fc(bn(pd.layers.fc(xs, 8, act="relu")), 3)
        loss = F.cross_entropy(logits, ls)
        pd.optimizer.SGD(0.5).minimize(loss)
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    losses = [float(exe.run(main, feed={"x": x, "label": label}, fetch_list=[loss],
                            scope=scope)[0]) for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0], losses
    state = bn.state_dict(scope)
    assert not np.allclose(state["_mean"], 0) and not np.allclose(state["_variance"], 1)


@pytest.mark.parametrize("build", [
    lambda: F.hsigmoid_loss(None, None, 4, None), lambda: F.margin_cross_entropy(None, None),
    lambda: F.rnnt_loss(None, None, None, None), lambda: F.edit_distance(None, None),
    lambda: nn.HSigmoidLoss(4, 3), lambda: nn.RNNTLoss(), lambda: nn.SpectralNorm([3, 4])])
def test_names_paddle_nb_does_not_build_say_so_and_what_to_use(build):
    with pytest.raises(NotImplementedError, match=r"is not available in paddle_nb \(.*\); "):
        build()
