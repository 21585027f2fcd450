# %% [markdown]
# # 09 · Prototyping with PaddlePaddle's names
#
# The notebooks so far built programs with the Fluid-1.8 vocabulary of the design
# documents (`pd.layers.fc`, `StaticRNN`). PaddlePaddle users today write 2.x code in
# static mode: `paddle.static.data`, `paddle.nn.Linear` called on a static variable,
# `paddle.nn.functional`, `x @ w` and `x[:, 1:3]`, `paddle.optimizer.AdamW` with a
# learning-rate schedule and gradient clipping. paddle_nb speaks that vocabulary too: a
# static-mode script runs with `import paddle_nb as paddle` and builds the programs
# PaddlePaddle 2.6 builds — the same op types, the same parameter names (`linear_0.w_0`),
# the same numbers from the same starting values (`make interop` runs a set of such
# scripts under both and compares them step by step; `docs/api_coverage.md` lists every
# public name and whether it is here).
#
# **What you will see**
#
# 1. A small Transformer classifier written in 2.x code, and the names it builds.
# 2. Its block tree and its Dashboard after eight training steps with AdamW, warmup and
#    clipping.
# 3. An `nn.LSTM`: one `rnn` op, which paddle_nb runs as step scopes you can slide
#    through (PaddlePaddle's `rnn` kernel makes none: the decomposition is paddle_nb's,
#    see notebook 08 section 6).
# 4. A learning-rate schedule, plotted, and checked against what each run used.
# 5. Two exercises, with hidden solutions.
#
# Each code cell checks itself with `assert` lines. Run it top to bottom.
#
# > **Optional lab · about 13 min** (the core path is in [README.md](README.md)). Claims say
# > whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see notebook 01).

# %%
import numpy as np
import paddle_nb as paddle
import paddle_nb.nn as nn
import paddle_nb.nn.functional as F
from IPython.display import SVG, display

try:                       # the viewer; without graphviz's `dot` a graph shows as DOT text
    import paddle_nb.viz as viz
except ImportError:
    viz = None

paddle.enable_static()     # PaddlePaddle 2.x starts in dynamic mode; paddle_nb is static only
paddle.seed(2024)
rng = np.random.RandomState(0)

# %% [markdown]
# ## 1. A Transformer classifier in 2.x code
#
# A model is an `nn.Layer`: its parameters are made in `__init__` (in the startup
# program, with PaddlePaddle's initializers) and `forward` appends ops when it is called on
# static variables. Every name below — `paddle.static.data`, `nn.Embedding`,
# `nn.TransformerEncoderLayer`, `paddle.mean`, `F.cross_entropy` — is PaddlePaddle's, with
# its signature.

# %%
class Classifier(nn.Layer):
    def __init__(self, vocab=30, d_model=16, classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d_model, classes)

    def forward(self, ids):
        h = self.encoder(self.embed(ids))          # [batch, T, d_model]
        return self.head(paddle.mean(h, axis=1))   # the mean over time, then a Linear


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    ids = paddle.static.data("ids", [None, 5], "int64")
    label = paddle.static.data("label", [None, 1], "int64")
    model = Classifier()
    logits = model(ids)
    loss = F.cross_entropy(logits, label)
    schedule = paddle.optimizer.lr.LinearWarmup(
        paddle.optimizer.lr.CosineAnnealingDecay(0.01, T_max=20), warmup_steps=5,
        start_lr=0.0, end_lr=0.01)
    opt = paddle.optimizer.AdamW(schedule, parameters=model.parameters(), weight_decay=0.01,
                                 grad_clip=nn.ClipGradByGlobalNorm(1.0))
    opt.minimize(loss)

names = [p.name for p in model.parameters()]
print(len(names), "parameters:", names[:4], "...")
print("structured names:", [n for n, _ in model.named_parameters()][:4], "...")
print("ops in the main program:", len(main.global_block().ops))
assert names[0] == "embedding_0.w_0" and names[-1] == "linear_12.b_0"
assert logits.shape == (-1, 2) and loss.shape == ()

# %% [markdown]
# The names are PaddlePaddle's: a layer is its class name in snake case, counted across
# the process (`embedding_0`, then `linear_0` … `linear_11`: six per encoder layer — the
# attention's four projections and the feed-forward's two — and `linear_12` for the head),
# its weight `.w_0` and its bias `.b_0`. A checkpoint that PaddlePaddle writes for the same
# script with `paddle.distributed.io.save_persistables(exe, dirname, main)` (one file per
# variable) has these names, so `paddle.static.load(main, dirname, exe)` reads it into this
# program. (The pickled `.pdparams` of PaddlePaddle's `paddle.static.save` is not read: the
# load says so and names the formats it reads.)
#
# ## 2. The block tree and the Dashboard after eight training steps
#
# Training a 2.x model is running its programs: the startup program once, then the main
# program per batch. The Executor writes the schedule's value into the learning-rate
# variable before each run (`schedule.step()` between runs moves it), as PaddlePaddle's does.

# %%
exe = paddle.static.Executor(paddle.CPUPlace())
scope = paddle.static.global_scope()
exe.run(startup)
if viz is not None:
    dashboard = viz.Dashboard(main, scope, exe)
losses, lr_used = [], []
for step in range(8):
    feed = {"ids": rng.randint(0, 30, (4, 5)).astype("int64"),
            "label": rng.randint(0, 2, (4, 1)).astype("int64")}
    value, = exe.run(main, feed=feed, fetch_list=[loss])
    losses.append(float(value))
    lr_used.append(float(np.asarray(scope.find_var("learning_rate_0").get_tensor())))
    schedule.step()
print("losses:", np.round(losses, 4))
print("learning rate of each run:", np.round(lr_used, 5))
assert all(np.isfinite(losses))

# %% [markdown]
# The main program has one block: forward, backward and optimizer ops, 243 of them (as in
# PaddlePaddle 2.6.2's program for the same script).
# The tree lists them; the Dashboard shows the block's graph and the scope after the last
# run: the parameters and AdamW's moments in the user's scope, the temporaries of the run's
# local scope freed.

# %%
op_types = [op.type for op in main.global_block().ops]
print({t: op_types.count(t) for t in ("matmul_v2", "layer_norm", "softmax", "adamw")})
assert op_types.count("adamw") == len(names)
if viz is not None:
    display(viz.block_tree(main))
    display(dashboard)

# %% [markdown]
# ## 3. An `nn.LSTM`, one step scope per time step
#
# PaddlePaddle writes `nn.LSTM` as one fused `rnn` op. paddle_nb runs it as the design
# documents describe a recurrent network: one step scope per layer, direction and time
# step, holding that step's input, gates and states, kept for the backward pass. (The step
# scopes are paddle_nb's way of running the op; PaddlePaddle's own `rnn` kernel computes
# all steps inside one op.)
#
# In the explorer below, the menu picks a direction of the bidirectional LSTM: `fwd` runs
# t = 0 to 3, `bwd` (the reverse direction, not the backward pass) runs t = 3 down to 0.
# The slider moves through that direction's time steps.

# %%
lstm_main, lstm_startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(lstm_main, lstm_startup):
    x = paddle.static.data("x", [None, 4, 3], "float32")
    lstm = nn.LSTM(3, 5, num_layers=1, direction="bidirect")
    out, (h, c) = lstm(x)
    lstm_loss = paddle.mean(out * out)
    paddle.optimizer.Adam(0.01, parameters=lstm.parameters()).minimize(lstm_loss)

print([op.type for op in lstm_main.global_block().ops if op.type.startswith("rnn")])
lstm_scope = paddle.Scope()
records = []
unsubscribe = exe.subscribe(records.append)
exe.record_values = True
exe.run(lstm_startup, scope=lstm_scope)
got_out, = exe.run(lstm_main, feed={"x": rng.randn(2, 4, 3).astype("float32")},
                   fetch_list=[out], scope=lstm_scope)
exe.record_values = False
unsubscribe()
labels = [s.label for s in records[-1].step_scopes()]
print(len(labels), "step scopes, e.g.", labels[:3])
assert got_out.shape == (2, 4, 10) and len(labels) == 2 * 4

# %%
if viz is not None:
    explorer = viz.rnn_explorer(records[-1])
    display(explorer)

# %% [markdown]
# ## 4. A learning-rate schedule, plotted
#
# `LinearWarmup` climbs from 0 to 0.01 in 5 steps, then hands over to the cosine decay,
# which reaches 0 after `T_max=20` of its own steps and climbs again after that, as
# PaddlePaddle's `CosineAnnealingDecay` does (it is periodic). The curve is the schedule's
# own values over 30 steps; the dots are the learning-rate variable read back from the scope
# after each of section 2's eight runs, so the Executor did use the schedule.

# %%
fresh = paddle.optimizer.lr.LinearWarmup(
    paddle.optimizer.lr.CosineAnnealingDecay(0.01, T_max=20), warmup_steps=5,
    start_lr=0.0, end_lr=0.01)
values = []
for _ in range(30):
    values.append(fresh())
    fresh.step()
print(np.round(values[:8], 5))
assert values[0] == 0.0 and abs(values[5] - 0.01) < 1e-9


def plot(values, dots, width=480, height=170):
    """The values as an SVG polyline, the dots as circles (no plotting library needed)."""
    top = max(values)

    def xy(i, v):
        return 20 + i * (width - 40) / (len(values) - 1), height - 30 - v / top * (height - 50)
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    circles = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#d9822b"/>'
                      for x, y in (xy(i, v) for i, v in enumerate(dots)))
    text = '<text font-size="12" font-family="sans-serif" '
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
            f'<rect width="100%" height="100%" fill="white"/>'
            f'<line x1="20" y1="{height - 30}" x2="{width - 20}" y2="{height - 30}" stroke="#999"/>'
            f'<polyline points="{points}" fill="none" stroke="#3b6ea8" stroke-width="2"/>'
            f'{circles}{text}x="20" y="14">learning rate (0 to {top:g}); dots: the runs of '
            f'section 2</text>{text}x="20" y="{height - 12}">step 0</text>'
            f'{text}x="{width - 20}" y="{height - 12}" text-anchor="end">step '
            f'{len(values) - 1}</text></svg>')


display(SVG(plot(values, lr_used)))
print("the variable after the last run of section 2:", f"{lr_used[-1]:.6g}",
      "= step 7 of the schedule:", f"{values[7]:.6g}")
assert np.allclose(lr_used, values[:len(lr_used)], rtol=1e-6, atol=1e-9)
used = float(np.asarray(scope.find_var("learning_rate_0").get_tensor()))
assert abs(used - values[7]) < 1e-9

# %% [markdown]
# ## Summary
#
# - `import paddle_nb as paddle` and PaddlePaddle 2.x's static-mode names build the same
#   programs as PaddlePaddle 2.6: layers, functions, tensor operators and indexing,
#   optimizers, schedules and clipping.
# - Names come from one process-wide counter, as in PaddlePaddle: the first `nn.Linear` is
#   `linear_0`, whichever program it is built in.
# - The viewers work on these programs as on any other: block tree, Dashboard, and the
#   step scopes of `nn.LSTM`.
#
# ## Exercises
#
# **1. Count the parameters.** Using `model.parameters()` and the shapes of the
# parameters, count the trainable values of the classifier, and check the count against
# the values in the scope.

# %%
# Exercise 1: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# count = sum(int(np.prod(p.shape)) for p in model.parameters())
# in_scope = sum(scope.find_var(p.name).get_tensor().numpy().size for p in model.parameters())
# print(count, "values")
# assert count == in_scope
# ```
#
# </details>
#
# **2. Slicing and `@`.** Build a program that takes `x` of shape [None, 4, 6], keeps its
# first three features (`x[:, :, :3]`), multiplies by a parameter of shape [3, 2] made with
# `paddle.create_parameter`, and run it; check the result against NumPy.

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# p2, s2 = paddle.static.Program(), paddle.static.Program()
# with paddle.static.program_guard(p2, s2):
#     xs = paddle.static.data("xs", [None, 4, 6], "float32")
#     w = paddle.create_parameter([3, 2], "float32")
#     y = xs[:, :, :3] @ w
# sc = paddle.Scope()
# exe.run(s2, scope=sc)
# xv = rng.randn(2, 4, 6).astype("float32")
# yv, = exe.run(p2, feed={"xs": xv}, fetch_list=[y], scope=sc)
# wv = sc.find_var(w.name).get_tensor().numpy()
# np.testing.assert_allclose(yv, xv[:, :, :3] @ wv, rtol=1e-5)
# print(yv.shape)
# ```
#
# </details>
