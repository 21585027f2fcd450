"""Train with dropout and BatchNorm, then evaluate with clone(for_test=True)."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.enable_static()

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 6], "float32")
    y = paddle.static.data("y", [None, 1], "float32")
    # no bias before BatchNorm: BatchNorm removes any shift, so such a bias's gradient is 0 up
    # to float round-off, which Adam scales into steps of the learning rate in a direction
    # each framework's arithmetic picks; the moving mean, and so the evaluation, would follow
    fc1 = nn.Linear(6, 8, bias_attr=False)
    bn = nn.BatchNorm1D(8)
    fc2 = nn.Linear(8, 1)
    h = F.dropout(F.relu(bn(fc1(x))), p=0.0)
    pred = fc2(h)
    loss = F.mse_loss(pred, y)
    test_program = main.clone(for_test=True)
    paddle.optimizer.Adam(0.01).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(8)
for step in range(4):
    feed = {"x": rng.randn(5, 6).astype("float32"), "y": rng.randn(5, 1).astype("float32")}
    exe.run(main, feed=feed, fetch_list=[loss])
test_feed = {"x": rng.randn(3, 6).astype("float32"), "y": rng.randn(3, 1).astype("float32")}
print("eval", exe.run(test_program, feed=test_feed, fetch_list=[pred, loss]))
