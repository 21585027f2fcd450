"""The training programs ``check_export.py`` exports: each a builder ``build(pd) -> loss`` (run
under ``program_guard``) and the batches it trains on (``batches(rng, k)``: feed name -> array).

An MLP with each optimizer, LeNet with batch_norm, and the control flow of the tour: a
StaticRNN, an IfElse, a While loop, cond, and a ``paddle.nn`` model written in 2.x names.
Nothing here imports paddle_nb: ``pd`` is passed in.
"""

import numpy as np

N, D, CLASSES = 8, 16, 10


def _classify(pd, logits):
    label = pd.layers.data("label", shape=[1], dtype="int64")
    return pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))


def _mlp_batches(rng):
    return {"x": rng.standard_normal((N, D)).astype("float32"),
            "label": rng.integers(0, CLASSES, (N, 1)).astype("int64")}


def mlp(optimizer):
    def build(pd):
        x = pd.layers.data("x", shape=[D], dtype="float32")
        hidden = pd.layers.fc(x, 32, act="relu")
        loss = _classify(pd, pd.layers.fc(hidden, CLASSES))
        optimizer(pd).minimize(loss)
        return loss
    return build, _mlp_batches


OPTIMIZERS = {
    "sgd": lambda pd: pd.optimizer.SGD(0.1),
    "momentum": lambda pd: pd.optimizer.Momentum(0.05, momentum=0.9),
    "nesterov": lambda pd: pd.optimizer.Momentum(0.05, momentum=0.9, use_nesterov=True),
    "adam": lambda pd: pd.optimizer.Adam(0.01),
    "adamw": lambda pd: pd.optimizer.AdamW(0.01, weight_decay=0.05),
    "adamax": lambda pd: pd.optimizer.Adamax(0.01),
    "adagrad": lambda pd: pd.optimizer.Adagrad(0.1),
    "rmsprop": lambda pd: pd.optimizer.RMSProp(0.01),
    "adadelta": lambda pd: pd.optimizer.Adadelta(1.0),
    "lamb": lambda pd: pd.optimizer.Lamb(0.01),
    # gradient clipping and weight decay: optimize ops besides the updates
    "clip_decay": lambda pd: pd.optimizer.Momentum(
        0.05, momentum=0.9, weight_decay=pd.regularizer.L2Decay(1e-3),
        grad_clip=pd.nn.ClipGradByGlobalNorm(0.5)),
}


def _resumed(scheduler, steps):
    """A scheduler that has already taken ``steps`` steps (training went on before export)."""
    for _ in range(steps):
        scheduler.step()
    return scheduler


# learning-rate schedulers: the Executor writes the value before each run, the training
# loop steps them (check_export.py steps the program's lr_scheduler after each run)
SCHEDULED = {
    "step_decay": lambda pd: pd.optimizer.SGD(
        pd.optimizer.lr.StepDecay(0.2, step_size=2, gamma=0.5)),
    "cosine_adam": lambda pd: pd.optimizer.Adam(
        _resumed(pd.optimizer.lr.CosineAnnealingDecay(0.02, T_max=4), 3)),
    "warmup_piecewise": lambda pd: pd.optimizer.Momentum(
        pd.optimizer.lr.LinearWarmup(pd.optimizer.lr.PiecewiseDecay([3], [0.1, 0.02]),
                                     warmup_steps=2, start_lr=0.0, end_lr=0.1), momentum=0.9),
}


def lenet_bn(pd):
    img = pd.layers.data("img", shape=[1, 12, 12], dtype="float32")
    conv = pd.layers.conv2d(img, num_filters=4, filter_size=3)
    norm = pd.layers.batch_norm(conv, act="relu")
    pool = pd.layers.pool2d(norm, pool_size=2, pool_stride=2)
    conv2 = pd.layers.conv2d(pool, num_filters=6, filter_size=3, act="relu")
    loss = _classify(pd, pd.layers.fc(conv2, CLASSES))
    pd.optimizer.Momentum(0.05, momentum=0.9).minimize(loss)
    return loss


def _lenet_batches(rng):
    return {"img": rng.standard_normal((4, 1, 12, 12)).astype("float32"),
            "label": rng.integers(0, CLASSES, (4, 1)).astype("int64")}


T, B, IN, H = 4, 3, 5, 6


def static_rnn(pd):
    x = pd.layers.data("x", shape=[T, B, IN], dtype="float32", append_batch_size=False)
    target = pd.layers.data("target", shape=[T, B, H], dtype="float32", append_batch_size=False)
    rnn = pd.layers.StaticRNN()
    with rnn.step():
        x_t = rnn.step_input(x)
        h = rnn.memory(shape=[-1, H], batch_ref=x_t)
        act = pd.layers.tanh(pd.layers.fc(x_t, H) + pd.layers.fc(h, H, bias_attr=False))
        rnn.update_memory(h, act)
        rnn.step_output(act)
    out = rnn()
    loss = pd.layers.mean(pd.layers.square(out - target))
    pd.optimizer.SGD(0.5).minimize(loss)
    return loss


def _rnn_batches(rng):
    return {"x": rng.standard_normal((T, B, IN)).astype("float32"),
            "target": rng.uniform(-0.5, 0.5, (T, B, H)).astype("float32")}


def ifelse(pd):
    x = pd.layers.data("x", shape=[4], dtype="float32")
    y = pd.layers.data("y", shape=[1], dtype="float32")
    zero = pd.layers.fill_constant([1], "float32", 0.0)
    branch = pd.layers.IfElse(pd.layers.less_than(pd.layers.reduce_sum(x, dim=1, keep_dim=True),
                                                  zero))
    with branch.true_block():
        branch.output(pd.layers.fc(branch.input(x), 1))
    with branch.false_block():
        branch.output(pd.layers.fc(branch.input(x), 1) * 2.0)
    (pred,) = branch()
    loss = pd.layers.mean(pd.layers.square(pred - y))
    pd.optimizer.SGD(0.05).minimize(loss)
    return loss


def _ifelse_batches(rng):
    return {"x": rng.standard_normal((N, 4)).astype("float32"),
            "y": rng.standard_normal((N, 1)).astype("float32")}


def while_loop(pd):
    x = pd.layers.data("x", shape=[4], dtype="float32")
    w = pd.static.create_parameter([4, 4], "float32", name="w_loop")
    i = pd.layers.fill_constant([1], "int64", 0)
    n = pd.layers.fill_constant([1], "int64", 3)
    _, h = pd.static.nn.while_loop(lambda i, h: pd.layers.less_than(i, n),
                                lambda i, h: [i + 1, pd.layers.tanh(pd.layers.matmul(h, w))],
                                [i, pd.layers.fc(x, 4)])
    loss = pd.layers.mean(pd.layers.square(h - 0.5))
    pd.optimizer.SGD(0.5).minimize(loss)
    return loss


def cond(pd):
    x = pd.layers.data("x", shape=[4], dtype="float32")
    thr = pd.layers.data("thr", shape=[1], dtype="float32", append_batch_size=False)
    h = pd.layers.fc(x, 4, act="tanh")
    big = pd.layers.greater_than(pd.layers.mean(h), thr)
    y = pd.layers.cond(big, lambda: h * 2.0, lambda: h - 1.0)
    loss = pd.layers.mean(y * y)
    pd.optimizer.SGD(0.1).minimize(loss)
    return loss


def _cond_batches(rng):
    return {"x": rng.standard_normal((N, 4)).astype("float32"),
            "thr": np.array([rng.choice([-1e9, 1e9])], "float32")}


def paddle_nn(pd):
    """In PaddlePaddle 2.x's names (paddle.static.data, paddle.nn, paddle.optimizer)."""
    paddle = pd
    x = paddle.static.data("x", [None, D], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    model = paddle.nn.Sequential(paddle.nn.Linear(D, 32), paddle.nn.ReLU(),
                                 paddle.nn.Linear(32, CLASSES))
    loss = paddle.nn.functional.cross_entropy(model(x), label)
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return loss


def programs():
    """name -> (build, batches)."""
    found = {f"mlp_{name}": mlp(make) for name, make in OPTIMIZERS.items()}
    found.update({f"mlp_lr_{name}": mlp(make) for name, make in SCHEDULED.items()})
    found.update({"lenet_bn": (lenet_bn, _lenet_batches), "static_rnn": (static_rnn, _rnn_batches),
                  "ifelse": (ifelse, _ifelse_batches), "while": (while_loop, _ifelse_batches),
                  "cond": (cond, _cond_batches), "paddle_nn": (paddle_nn, _mlp_batches)})
    return found
