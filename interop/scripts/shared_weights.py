"""Two Linear layers sharing one weight through ParamAttr names, trained with SGD."""
import numpy as np
import paddle
import paddle.nn as nn

paddle.enable_static()

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    a = paddle.static.data("a", [None, 4], "float32")
    b = paddle.static.data("b", [None, 4], "float32")
    shared = paddle.ParamAttr(name="shared_w")
    enc_a = nn.Linear(4, 4, weight_attr=shared, bias_attr=False)
    enc_b = nn.Linear(4, 4, weight_attr=shared, bias_attr=False)
    loss = paddle.mean(paddle.square(enc_a(a) - enc_b(b)))
    paddle.optimizer.SGD(0.1).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(9)
for step in range(4):
    feed = {"a": rng.randn(3, 4).astype("float32"), "b": rng.randn(3, 4).astype("float32")}
    print(step, exe.run(main, feed=feed, fetch_list=[loss]))
