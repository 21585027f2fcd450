"""The corpus's training programs: forward, backward and an optimizer, as users write them.

Each builder takes the ``paddle`` module (static mode, inside ``program_guard``) and returns
``(feeds, loss, optimizer, scheduler)``: the feeds carry a ``corpus_feed`` spec as in
``corpus_models``; ``make_corpus`` calls ``optimizer.minimize(loss)``, runs three steps and
calls ``scheduler.step()`` after each when there is one (PaddlePaddle's executor writes the
learning-rate variable from Python before each run, so the corpus records the value used).
Dropout probabilities are 0, so PaddlePaddle's results do not depend on its random streams.
"""

from interop.corpus_models import _data


def _classifier_loss(paddle, logits, classes, batch):
    label = _data(paddle, "label", (batch, 1), "int64", high=classes)
    return label, paddle.mean(paddle.nn.functional.cross_entropy(logits, label))


def _adamw_clip(paddle):
    """MLP; AdamW (weight decay 0.01), ClipGradByGlobalNorm(0.5), StepDecay(0.01, 1, 0.5)."""
    x = _data(paddle, "x", (4, 8))
    hidden = paddle.nn.functional.gelu(paddle.nn.Linear(8, 16)(x))
    logits = paddle.nn.Linear(16, 3)(hidden)
    label, loss = _classifier_loss(paddle, logits, 3, 4)
    scheduler = paddle.optimizer.lr.StepDecay(0.01, step_size=1, gamma=0.5)
    optimizer = paddle.optimizer.AdamW(
        learning_rate=scheduler, weight_decay=0.01,
        grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5))
    return [x, label], loss, optimizer, scheduler


def _momentum_nesterov(paddle):
    """Conv + BatchNorm (training mode) + pool + Linear; Momentum, Nesterov, L2Decay(1e-3)."""
    img = _data(paddle, "img", (4, 3, 8, 8))
    h = paddle.nn.BatchNorm2D(4)(paddle.nn.Conv2D(3, 4, 3, padding=1)(img))
    h = paddle.nn.functional.max_pool2d(paddle.nn.functional.relu(h), 2, 2)
    logits = paddle.nn.Linear(4 * 4 * 4, 5)(paddle.flatten(h, 1))
    label, loss = _classifier_loss(paddle, logits, 5, 4)
    optimizer = paddle.optimizer.Momentum(
        learning_rate=0.05, momentum=0.9, use_nesterov=True,
        weight_decay=paddle.regularizer.L2Decay(1e-3))
    return [img, label], loss, optimizer, None


def _lstm_adam(paddle):
    """Embedding -> LSTM -> the last step's hidden state -> Linear; Adam(0.01)."""
    ids = _data(paddle, "ids", (4, 6), "int64", high=30)
    embedded = paddle.nn.Embedding(30, 8)(ids)
    _, (h, _) = paddle.nn.LSTM(8, 8)(embedded)
    logits = paddle.nn.Linear(8, 2)(h[-1])
    label, loss = _classifier_loss(paddle, logits, 2, 4)
    return [ids, label], loss, paddle.optimizer.Adam(0.01), None


def _transformer_adam(paddle):
    """TransformerEncoderLayer -> mean over positions -> Linear; Adam(0.01)."""
    x = _data(paddle, "x", (2, 5, 8))
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    logits = paddle.nn.Linear(8, 3)(paddle.mean(layer(x), axis=1))
    label, loss = _classifier_loss(paddle, logits, 3, 2)
    return [x, label], loss, paddle.optimizer.Adam(0.01), None


def _while_cond_sgd(paddle):
    """``while i < 2: h = tanh(h @ W + b)``, then ``cond(mean(h) > thr)`` picks how the loss
    reads ``h``; SGD(0.1). ``thr`` is fed: -1e9, 1e9, -1e9, so the steps take both branches."""
    x = _data(paddle, "x", (3, 4))
    x.stop_gradient = False          # else the loop, which carries x, passes no gradient on
    thr = _data(paddle, "thr", (1,))
    w = paddle.static.create_parameter([4, 4], "float32", name="loop_w")
    b = paddle.static.create_parameter([4], "float32", name="loop_b", is_bias=True)
    v = paddle.static.create_parameter([4, 2], "float32", name="head_v")
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 2, "int64")
    _, h = paddle.static.nn.while_loop(
        lambda i, h: i < n, lambda i, h: [i + 1, paddle.tanh(paddle.matmul(h, w) + b)], [i, x])
    out = paddle.static.nn.cond(paddle.mean(h) > thr,
                                lambda: paddle.matmul(paddle.nn.functional.relu(h), v),
                                lambda: paddle.matmul(paddle.nn.functional.sigmoid(h), v))
    loss = paddle.mean(paddle.square(out))
    return [x, thr], loss, paddle.optimizer.SGD(0.1), None


TRAINING = {
    "train_adamw_clip": _adamw_clip,
    "train_momentum_nesterov": _momentum_nesterov,
    "train_lstm_adam": _lstm_adam,
    "train_transformer_adam": _transformer_adam,
    "train_while_cond_sgd": _while_cond_sgd,
}

# feeds with fixed values per step: the cond's threshold takes the true branch, then the false
STEP_FEEDS = {("train_while_cond_sgd", "thr"): [-1e9, 1e9, -1e9]}
