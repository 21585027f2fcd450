"""A residual block with BatchNorm2D, trained with Momentum (Nesterov) and L2Decay."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.regularizer import L2Decay

paddle.enable_static()


class BasicBlock(nn.Layer):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2D(channels, channels, 3, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(channels)
        self.conv2 = nn.Conv2D(channels, channels, 3, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(out)))


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2D(3, 4, 3, padding=1)
        self.block = BasicBlock(4)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(paddle.flatten(self.pool(self.block(self.stem(x))), 1))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 3, 8, 8], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    net = Net()
    loss = F.cross_entropy(net(x), y)
    opt = paddle.optimizer.Momentum(0.02, momentum=0.9, use_nesterov=True,
                                    weight_decay=L2Decay(1e-3), parameters=net.parameters())
    opt.minimize(loss)

exe = paddle.static.Executor()
exe.run(startup)
rng = np.random.RandomState(2)
for step in range(5):
    feed = {"x": rng.randn(4, 3, 8, 8).astype("float32"),
            "y": rng.randint(0, 3, (4, 1)).astype("int64")}
    loss_v, = exe.run(main, feed=feed, fetch_list=[loss])
    print("step", step, "loss", loss_v)
