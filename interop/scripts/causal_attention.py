"""A causal self-attention block written by hand: slicing, `@`, a triu mask, softmax; Adam."""
import math

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.enable_static()

T, D = 5, 8
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, T, D], "float32")
    target = paddle.static.data("target", [None, T, D], "float32")
    qkv = nn.Linear(D, 3 * D)
    proj = nn.Linear(D, D)
    h = qkv(x)
    q, k, v = h[:, :, :D], h[:, :, D:2 * D], h[:, :, 2 * D:]
    scores = q @ k.transpose([0, 2, 1]) / math.sqrt(D)
    mask = paddle.triu(paddle.full([T, T], -1e9, "float32"), diagonal=1)
    weights = F.softmax(scores + mask, axis=-1)
    out = proj(weights @ v) + x
    loss = ((out - target) ** 2).mean()
    paddle.optimizer.Adam(0.01).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(6)
for step in range(5):
    feed = {"x": rng.randn(2, T, D).astype("float32"),
            "target": rng.randn(2, T, D).astype("float32")}
    print(step, exe.run(main, feed=feed, fetch_list=[loss])[0])
