"""Training through paddle.static.nn.while_loop and cond, with SGD."""
import numpy as np
import paddle
import paddle.nn as nn

paddle.enable_static()

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 4], "float32")
    x.stop_gradient = False
    thr = paddle.static.data("thr", [1], "float32")
    fc = nn.Linear(4, 4)
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 3, "int64")

    def cond(i, h):
        return i < n

    def body(i, h):
        return i + 1, paddle.tanh(fc(h))

    _, h = paddle.static.nn.while_loop(cond, body, [i, x])
    s = paddle.mean(h)
    y = paddle.static.nn.cond(s > thr, lambda: h * 2.0, lambda: h - 1.0)
    loss = paddle.mean(y * y)
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(7)
for step, threshold in enumerate([-1e9, 1e9, -1e9, 1e9]):
    feed = {"x": rng.randn(3, 4).astype("float32"), "thr": np.array([threshold], "float32")}
    print(step, exe.run(main, feed=feed, fetch_list=[loss]))
