"""LeNet on 1x12x12 images with nn.Conv2D and MaxPool2D, trained with Momentum."""
import numpy as np
import paddle
from paddle import nn

paddle.enable_static()

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    model = nn.Sequential(
        nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
        nn.Conv2D(4, 8, 3), nn.ReLU(), nn.MaxPool2D(2, 2),
        nn.Flatten(), nn.Linear(8 * 2 * 2, 10),
    )
    image = paddle.static.data("image", [None, 1, 12, 12], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    loss = nn.CrossEntropyLoss()(model(image), label)
    opt = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                    parameters=model.parameters())
    opt.minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(1)
for step in range(5):
    feed = {"image": rng.rand(4, 1, 12, 12).astype("float32"),
            "label": rng.randint(0, 10, (4, 1)).astype("int64")}
    print(step, exe.run(main, feed=feed, fetch_list=[loss])[0])
