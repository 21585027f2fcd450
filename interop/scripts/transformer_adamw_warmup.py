"""A Transformer encoder classifier: AdamW (no decay on biases and norms) with linear warmup."""
import numpy as np
import paddle
import paddle.nn as nn

paddle.enable_static()


class Classifier(nn.Layer):
    def __init__(self, vocab=30, d_model=16, classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, dropout=0.0,
                                           activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d_model, classes)

    def forward(self, ids):
        h = self.encoder(self.embed(ids))
        return self.head(paddle.mean(h, axis=1))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    ids = paddle.static.data("ids", [None, 5], "int64")
    label = paddle.static.data("label", [None, 1], "int64")
    model = Classifier()
    loss = nn.functional.cross_entropy(model(ids), label)
    schedule = paddle.optimizer.lr.LinearWarmup(
        paddle.optimizer.lr.CosineAnnealingDecay(0.01, T_max=10), warmup_steps=3,
        start_lr=0.0, end_lr=0.01)
    decay = [p.name for n, p in model.named_parameters() if "bias" not in n and "norm" not in n]
    opt = paddle.optimizer.AdamW(schedule, parameters=model.parameters(), weight_decay=0.01,
                                 apply_decay_param_fun=lambda name: name in decay)
    opt.minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(5)
for step in range(6):
    feed = {"ids": rng.randint(0, 30, (4, 5)).astype("int64"),
            "label": rng.randint(0, 2, (4, 1)).astype("int64")}
    value, = exe.run(main, feed=feed, fetch_list=[loss])
    schedule.step()
    print(step, value)
