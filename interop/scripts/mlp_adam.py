"""An MLP classifier trained with Adam, as a PaddlePaddle 2.x static-mode user writes it."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.enable_static()


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 8], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    model = MLP()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(0)
for step in range(5):
    feed = {"x": rng.rand(6, 8).astype("float32"), "y": rng.randint(0, 4, (6, 1)).astype("int64")}
    loss_value, = exe.run(main, feed=feed, fetch_list=[loss])
    print(f"step {step}: loss {float(loss_value):.6f}")
