"""A sequence tagger: Embedding, a bidirectional GRU, a Linear per token; RMSProp."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.enable_static()

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    words = paddle.static.data("words", [None, 6], "int64")
    tags = paddle.static.data("tags", [None, 6], "int64")
    embed = nn.Embedding(15, 8)
    gru = nn.GRU(8, 5, direction="bidirect")
    proj = nn.Linear(10, 4)
    out, _ = gru(embed(words))
    logits = proj(out)
    loss = F.cross_entropy(logits, paddle.unsqueeze(tags, -1))
    params = embed.parameters() + gru.parameters() + proj.parameters()
    paddle.optimizer.RMSProp(learning_rate=0.01, parameters=params).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(4)
for step in range(5):
    feed = {"words": rng.randint(0, 15, (3, 6)).astype("int64"),
            "tags": rng.randint(0, 4, (3, 6)).astype("int64")}
    print(step, exe.run(main, feed=feed, fetch_list=[loss]))
