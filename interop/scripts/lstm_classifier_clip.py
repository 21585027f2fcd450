"""A text classifier: Embedding, a 2-layer LSTM, Linear; Adam with ClipGradByGlobalNorm."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.enable_static()


class TextLSTM(nn.Layer):
    def __init__(self, vocab=20, dim=8, hidden=6, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2)
        self.out = nn.Linear(hidden, classes)

    def forward(self, ids, lengths):
        seq, (h, c) = self.lstm(self.embed(ids), sequence_length=lengths)
        return self.out(h[-1])


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    ids = paddle.static.data("ids", [None, 7], "int64")
    lengths = paddle.static.data("lengths", [None], "int64")
    label = paddle.static.data("label", [None, 1], "int64")
    model = TextLSTM()
    loss = paddle.mean(F.cross_entropy(model(ids, lengths), label, reduction="none"))
    clip = paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)
    paddle.optimizer.Adam(0.01, parameters=model.parameters(), grad_clip=clip).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(3)
for step in range(5):
    feed = {"ids": rng.randint(1, 20, (4, 7)).astype("int64"),
            "lengths": np.array([7, 5, 3, 6], "int64"),
            "label": rng.randint(0, 3, (4, 1)).astype("int64")}
    print(step, float(exe.run(main, feed=feed, fetch_list=[loss])[0]))
