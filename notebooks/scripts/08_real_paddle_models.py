# %% [markdown]
# # 08 · Real PaddlePaddle models
#
# paddle_nb writes and reads PaddlePaddle's own file formats: a program is a serialized
# `ProgramDesc` message of PaddlePaddle's `framework.proto`, and a parameter file is
# PaddlePaddle's tensor stream. So a model PaddlePaddle saved opens here, and a model
# prototyped here opens in PaddlePaddle. This notebook does both, with files that
# PaddlePaddle itself wrote (copies in `data/`, see `data/README.md`), and without
# importing PaddlePaddle: `make interop` runs the PaddlePaddle side of every claim below.
#
# **What you will see**
#
# 1. The two files of a PaddlePaddle 2.6 inference model, read byte by byte.
# 2. Loading it with `pd.io.load_inference_model` and its path prefix.
# 3. Inspecting it: the program, its ops, its parameters, the attributes PaddlePaddle
#    wrote that paddle_nb keeps without using, and its graph.
# 4. Running it: paddle_nb gives PaddlePaddle's outputs.
# 5. A real ResNet-18: its 73 ops, its block tree, its graph (folded) and its first residual block,
#    and a run with parameters made by NumPy that gives PaddlePaddle's logits.
# 6. A real two-layer bidirectional LSTM: one `rnn` op, run as step scopes; the RNN
#    explorer slides through them, and the gates, cell and hidden state are checked by hand.
# 7. A training program from PaddlePaddle 1.8.5, with 11 blocks: its block tree, its
#    sub-blocks and grad blocks, and one training step that gives PaddlePaddle's loss.
# 8. The other way: a paddle_nb prototype, saved in PaddlePaddle's layout, and how to
#    continue in PaddlePaddle (inference, serving, many GPUs).
# 9. Three exercises, with hidden solutions.
#
# Each code cell checks itself with `assert` lines. Run it top to bottom.
#
# > **Optional lab · about 46 min** (the core path is in [README.md](README.md)). Claims say
# > whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see notebook 01).

# %%
import atexit
import collections
import pathlib
import shutil
import struct
import tempfile
import zlib

import numpy as np
import paddle_nb as pd
from paddle_nb.proto import framework_pb2

try:                       # the viewer (pd.viz); without graphviz's `dot` a graph shows as DOT text
    import paddle_nb.viz as viz
except ImportError:
    viz = None

DATA = pathlib.Path("data")
if not DATA.is_dir():      # opened as scripts/08_real_paddle_models.py: the kernel starts there
    DATA = pathlib.Path("..", "data")
exe = pd.Executor(pd.CPUPlace())
assert (DATA / "mlp2.pdmodel").is_file(), "run this notebook from notebooks/"

# %% [markdown]
# ## 1. Two files: `mlp2.pdmodel` and `mlp2.pdiparams`
#
# PaddlePaddle 2.6.2 built `x[N,784] -> fc(32, relu) -> fc(10) = logits -> softmax = prob`
# and saved it with `paddle.static.save_inference_model("mlp2", [x], [logits, prob], exe)`.
# That call writes two files named after the *path prefix* `mlp2`:
#
# | file | what it holds |
# | --- | --- |
# | `mlp2.pdmodel` | one serialized `ProgramDesc`: the forward program only, with `feed` and `fetch` ops |
# | `mlp2.pdiparams` | every persistable variable, sorted by name, back to back |
#
# The model file is a protobuf message, so the generated `framework_pb2` module reads it
# without paddle_nb's help. Its `version` field is PaddlePaddle's version as a number.

# %%
for f in sorted(DATA.glob("mlp2*")):
    print(f"{f.name:16} {f.stat().st_size:7,} bytes")

desc = framework_pb2.ProgramDesc.FromString((DATA / "mlp2.pdmodel").read_bytes())
print("\nversion:", desc.version.version, "(2.6.2)")
print("blocks: ", len(desc.blocks))
print("ops:    ", [op.type for op in desc.blocks[0].ops])

assert desc.version.version == 2006002 and len(desc.blocks) == 1

# %% [markdown]
# The parameter file has no index: each tensor is a small header and its raw data, and
# the names come from the program (the persistable variables, sorted). One tensor is:
#
# | bytes | field |
# | --- | --- |
# | 4 | `uint32` version, 0 |
# | 8 | `uint64` number of LoD levels (0 here; each level would follow as a size and offsets) |
# | 4 | `uint32` tensor version, 0 |
# | 4 | `int32` size of the `TensorDesc` message |
# | ... | the `VarType.TensorDesc` message: data type and dims |
# | ... | the data, little-endian |
#
# Here is the first tensor, read by hand with `struct`: it is `fc1.b_0`, the first name in
# sorted order (a bias, still all zeros: `mlp2` was saved as initialized, untrained).

# %%
raw = (DATA / "mlp2.pdiparams").read_bytes()
version, lod_levels, tensor_version, desc_size = struct.unpack_from("<IQIi", raw, 0)
tensor_desc = framework_pb2.VarType.TensorDesc.FromString(raw[20:20 + desc_size])
count = int(np.prod(tensor_desc.dims))
first = np.frombuffer(raw, "<f4", count=count, offset=20 + desc_size)

print("header:", version, lod_levels, tensor_version, desc_size)
print("dtype: ", framework_pb2.VarType.Type.Name(tensor_desc.data_type),
      "dims:", list(tensor_desc.dims))
print("values:", first[:6].round(4), "...")

assert (version, lod_levels, tensor_version) == (0, 0, 0)
assert tensor_desc.data_type == framework_pb2.VarType.FP32 and list(tensor_desc.dims) == [32]

# %% [markdown]
# ## 2. Loading it
#
# `pd.io.load_inference_model(path_prefix, exe)` is PaddlePaddle 2.x's call: it reads
# `<prefix>.pdmodel` and `<prefix>.pdiparams`, puts the parameters into the scope, and
# returns the program, the names to feed and the variables to fetch. (A directory with
# named files, `load_inference_model(dirname, exe, model_filename=...,
# params_filename=...)`, and the 1.x layout, `dirname/__model__` plus one file per
# variable, load too.)

# %%
scope = pd.Scope()
program, feed_names, fetch_vars = pd.io.load_inference_model(str(DATA / "mlp2"), exe,
                                                               scope=scope)

print("feed: ", feed_names)
print("fetch:", [v.name for v in fetch_vars])
print("in the scope:", scope.local_var_names())

assert feed_names == ["x"]
assert [v.name for v in fetch_vars] == ["save_infer_model/scale_0.tmp_0",
                                        "save_infer_model/scale_1.tmp_0"]
assert sorted(scope.local_var_names()) == ["fc1.b_0", "fc1.w_0", "fc2.b_0", "fc2.w_0"]
np.testing.assert_array_equal(scope.find_var("fc1.b_0").get_tensor().numpy(), first)

# %% [markdown]
# ## 3. Inspecting it
#
# The program prints like any paddle_nb program. Two things are PaddlePaddle's habits:
# `fc` is a `mul` and an `elementwise_add`, and `save_inference_model` appends a `scale`
# (x1.0) per fetch target, so the fetched variables are `save_infer_model/scale_*`, not
# `logits` and `prob`.

# %%
print(program)

# %%
block = program.global_block()
print("ops:")
for k, op in enumerate(block.ops):
    ins = ", ".join(n for names in op.inputs.values() for n in names)
    outs = ", ".join(n for names in op.outputs.values() for n in names)
    print(f"  #{k:<2} {op.type:16} {ins:40} -> {outs}")

print("\nparameters:")
params = sorted(v.name for v in block.vars.values() if v.persistable and v.is_tensor())
for name in params:
    value = scope.find_var(name).get_tensor().numpy()
    print(f"  {name:8} {str(value.dtype):8} {str(list(value.shape)):10} "
          f"mean {value.mean():+.4f}  std {value.std():.4f}")

types = [op.type for op in block.ops]
assert types == ["feed", "mul", "elementwise_add", "relu", "mul", "elementwise_add",
                 "softmax", "scale", "scale", "fetch", "fetch"]
assert params == ["fc1.b_0", "fc1.w_0", "fc2.b_0", "fc2.w_0"]

# %% [markdown]
# PaddlePaddle writes attributes paddle_nb never reads: `op_device`, `op_namescope`,
# `op_role_var`, `with_quant_attr`, `op_callstack` (the Python stack where the op was
# built, on the machine that built it: `save_inference_model` strips it from the model's
# ops but not from the `feed` and `fetch` ops it adds afterwards), ... and an
# `op_version_map` with a version per op type. paddle_nb keeps all of them: serializing
# the loaded program gives back PaddlePaddle's bytes exactly, so a model can go through
# paddle_nb and back unchanged.

# %%
mul, feed = block.ops[1], block.ops[0]
print("attributes of mul: ", sorted(mul.attrs))
print("attributes of feed:", sorted(feed.attrs))
stack = feed.attr("op_callstack")
print(f"\nthe feed op's op_callstack: {len(stack)} strings; the last frame:")
print("\n".join(stack[-2:]))

versions = {p.op_name: p.op_version.version for p in program.desc.op_version_map.pair}
print(f"\nop_version_map: {len(versions)} op types, e.g.",
      {k: versions[k] for k in sorted(versions)[:4]})

assert program.serialize() == (DATA / "mlp2.pdmodel").read_bytes()

# %% [markdown]
# With the viewer, `pd.viz.graph` draws the dataflow: ops as boxes, variables as ovals,
# persistable variables (here the four parameters, and PaddlePaddle's `feed` and `fetch`
# lists) as grey cylinders. Without graphviz's `dot` it shows the DOT text instead, and
# says how to get pictures.

# %%
if viz is not None:
    display(viz.graph(program))
else:
    print("no graph: paddle_nb.viz is not available here")

# %% [markdown]
# ## 4. Running it: PaddlePaddle's outputs
#
# `data/mlp2_io.npz` holds the input PaddlePaddle was given and the `logits` and `prob`
# PaddlePaddle computed. paddle_nb runs PaddlePaddle's ops, under PaddlePaddle's names and
# slots, with NumPy kernels: the outputs agree to float32 rounding. Running the program
# does not change it, either.

# %%
ref = np.load(DATA / "mlp2_io.npz")
logits, prob = exe.run(program, feed={"x": ref["x"]}, fetch_list=fetch_vars, scope=scope)

for name, got in (("logits", logits), ("prob", prob)):
    want = ref[name]
    print(f"{name:6} {got.shape}  largest difference from PaddlePaddle's: "
          f"{np.abs(got - want).max():.1e}")
print("classes:", prob.argmax(axis=1), "(PaddlePaddle:", ref["prob"].argmax(axis=1), ")")

np.testing.assert_allclose(logits, ref["logits"], rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(prob, ref["prob"], rtol=1e-5, atol=1e-7)
assert program.serialize() == (DATA / "mlp2.pdmodel").read_bytes()

# %% [markdown]
# The same numbers by hand, from the parameters in the scope: the program is exactly the
# two layers it claims to be.

# %%
W1, b1, W2, b2 = (scope.find_var(n).get_tensor().numpy()
                  for n in ("fc1.w_0", "fc1.b_0", "fc2.w_0", "fc2.b_0"))
by_hand = np.maximum(ref["x"] @ W1 + b1, 0) @ W2 + b2
print("largest difference, by hand vs paddle_nb:", np.abs(by_hand - logits).max())
np.testing.assert_allclose(by_hand, logits, rtol=1e-5, atol=1e-5)

# %% [markdown]
# ## 5. A real ResNet-18
#
# PaddlePaddle 2.6.2 built `paddle.vision.models.resnet18(num_classes=10)` for 32x32
# colour images (CIFAR-10's size), in eval mode, and saved it with
# `paddle.static.save_inference_model`. Its model file, `data/resnet18.pdmodel`, is 36 KB;
# its 11.2 million parameters would be a 45 MB `.pdiparams`, too big to keep in the
# repository, so that file is not here: below, NumPy makes the parameters by a fixed recipe,
# and `data/resnet18_io.npz` holds the logits PaddlePaddle computed with the same recipe
# (`interop/make_notebook_data.py` wrote both).
#
# `pd.io.load_program` reads a model file alone. The names to feed and fetch are in the
# program itself: the `Out` of each `feed` op and the `X` of each `fetch` op.

# %%
resnet = pd.io.load_program(str(DATA / "resnet18.pdmodel"))
rblock = resnet.global_block()
resnet_feeds = [op.output("Out")[0] for op in rblock.ops if op.type == "feed"]
resnet_fetches = [op.input("X")[0] for op in rblock.ops if op.type == "fetch"]
counts = collections.Counter(op.type for op in rblock.ops)
weights = sorted(v.name for v in rblock.vars.values()
                 if v.persistable and v.name not in ("feed", "fetch"))
print(f"{resnet!r}: feed {resnet_feeds}, fetch {resnet_fetches}")
print("ops by type:", dict(counts.most_common()))
print(f"{len(weights)} persistable variables, "
      f"{sum(int(np.prod(rblock.var(n).shape)) for n in weights):,} numbers")

assert resnet.num_blocks == 1 and resnet_feeds == ["image"]
assert counts["conv2d"] == counts["batch_norm"] == 20 and counts["elementwise_add"] == 9

# %% [markdown]
# The ops read like the paper's diagram. A *stem* (a 7x7 `conv2d` with stride 2,
# `batch_norm`, `relu`, a max `pool2d`) takes 32x32 down to 8x8. Then four stages of two
# *basic blocks*, each `conv2d 3x3 -> batch_norm -> relu -> conv2d 3x3 -> batch_norm`, plus
# a **shortcut**: the block's own input, added back by an `elementwise_add` before the last
# `relu`. The first block of stages 2 to 4 halves the picture (stride 2) and doubles the
# channels, so its shortcut is a 1x1 `conv2d` and a `batch_norm` too: 16 + 3 + the stem's 1
# = 20 convolutions. An adaptive average `pool2d`, `flatten_contiguous_range`, `matmul_v2`
# and the ninth `elementwise_add` (the bias) make the `Linear` layer. Each residual add,
# with the shape PaddlePaddle recorded for its output:

# %%
residual = []
for k, op in enumerate(rblock.ops):
    if op.type == "elementwise_add" and not rblock.var(op.input("Y")[0]).persistable:
        out = rblock.var(op.output("Out")[0])
        residual.append(list(out.shape))
        print(f"#{k:<2} {op.input('X')[0]:18} + {op.input('Y')[0]:18} -> {out.name:6} {out.shape}")
assert len(residual) == 8
assert [s[1:] for s in residual[::2]] == [[64, 8, 8], [128, 4, 4], [256, 2, 2], [512, 1, 1]]

# %% [markdown]
# `pd.viz.block_tree` shows the program: here one block, its 217 variables (folded; open
# them) and its 73 ops with their arguments. Open an op for its attributes (a
# convolution's `strides`, `paddings`, `groups`; `batch_norm`'s `is_test`, which
# `save_inference_model` set).

# %%
if viz is not None:
    display(viz.block_tree(resnet))

# %% [markdown]
# The graph of the whole program reads at a glance: `pd.viz.graph` folds repeated structure
# into one node with a count ("2 x 7 ops" for the first stage's basic blocks, "3 x 16 ops"
# for the three stages that downsample; the stem and the head, which do not repeat, are
# drawn op by op), and draws each parameter
# beside the op that reads it. Every folded node says, in its tooltip, how to open it:
# `viz.graph(resnet, expand=[...])`; in the Dashboard a click opens it.

# %%
if viz is not None:
    picture = viz.graph(resnet)
    display(picture)

# %% [markdown]
# `Program.prune` cuts out a part to look at in full: everything the output of the first
# basic block depends on. There the shortcut is the long edge from `pool2d_0.tmp_0`,
# around the two convolutions, into `#10 elementwise_add`. As in section 3, the loaded
# model's parameters are drawn as persistable variables: grey cylinders.

# %%
first_add = next(k for k, op in enumerate(rblock.ops) if op.type == "elementwise_add")
first_block = resnet.prune([rblock.ops[first_add + 1].output("Out")[0]])
print([op.type for op in first_block.global_block().ops])
if viz is not None:
    display(viz.graph(first_block))
assert [op.type for op in first_block.global_block().ops][-2:] == ["elementwise_add", "relu"]

# %% [markdown]
# **Running it.** The recipe for the parameters, the same as the script's: each variable
# gets its own NumPy generator, seeded by the CRC-32 of its name; convolution kernels are
# He-normal, the `Linear` weight normal with variance 1 / inputs, and every vector
# (`batch_norm`'s scale, shift, mean and variance; the bias) uniform in [0.5, 1.5], which
# keeps the variances positive. Put them in a scope, feed two images, and compare with
# PaddlePaddle's logits.

# %%
def resnet_parameters(shapes):
    """{name: float32 array} for a ResNet's persistable variables, from NumPy alone."""
    values = {}
    for name, shape in sorted(shapes.items()):
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        if len(shape) == 1:
            value = rng.uniform(0.5, 1.5, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            gain = 2.0 if len(shape) == 4 else 1.0
            value = rng.standard_normal(shape) * np.sqrt(gain / fan_in)
        values[name] = value.astype("float32")
    return values


resnet_scope = pd.Scope()
for name, value in resnet_parameters({n: rblock.var(n).shape for n in weights}).items():
    resnet_scope.var(name).get_tensor().set(value, pd.CPUPlace())

ref_resnet = np.load(DATA / "resnet18_io.npz")
(resnet_logits,) = exe.run(resnet, feed={"image": ref_resnet["image"]},
                           fetch_list=resnet_fetches, scope=resnet_scope)
print("logits:", resnet_logits.shape, "| classes:", resnet_logits.argmax(axis=1),
      "(PaddlePaddle:", ref_resnet["logits"].argmax(axis=1), ")")
print("largest difference from PaddlePaddle's, relative to the largest logit: "
      f"{np.abs(resnet_logits - ref_resnet['logits']).max() / np.abs(ref_resnet['logits']).max():.1e}")
np.testing.assert_allclose(resnet_logits, ref_resnet["logits"], rtol=1e-4, atol=1e-4)

# %% [markdown]
# ## 6. A real LSTM, step by step
#
# PaddlePaddle 2.6.2 built `paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")` on
# `x[N, 5, 4]` (batch, time, features) and saved it with its parameters:
# `data/lstm2.pdmodel` and `data/lstm2.pdiparams` (2.3 KB). The whole network is **one**
# `rnn` op; the ops around it are PaddlePaddle's plumbing: `shape`, `slice` and
# `fill_constant` make the zero initial states, as many rows as the batch has;
# `transpose2` turns batch-major into the time-major layout `rnn` works in, and back.

# %%
lstm_scope = pd.Scope()
lstm, lstm_feeds, lstm_fetches = pd.io.load_inference_model(str(DATA / "lstm2"), exe,
                                                             scope=lstm_scope)
(rnn_op,) = [op for op in lstm.global_block().ops if op.type == "rnn"]
print("ops:", [op.type for op in lstm.global_block().ops])
print("rnn attributes:", {k: rnn_op.attr(k) for k in
                          ("mode", "num_layers", "is_bidirec", "input_size", "hidden_size")})
print("WeightList:", rnn_op.input("WeightList"))

assert (rnn_op.attr("mode"), rnn_op.attr("num_layers"), rnn_op.attr("is_bidirec")) == ("LSTM", 2, True)
assert len(rnn_op.input("WeightList")) == 16     # 2 layers x 2 directions x (W_ih, W_hh, b_ih, b_hh)

# %% [markdown]
# **paddle_nb** runs the `rnn` op as step scopes, the way PaddlePaddle's `recurrent` op
# (StaticRNN) runs its step block. That decomposition is paddle_nb's own: **PaddlePaddle**'s
# `rnn` op has no step block and makes no scopes, its kernel loops over the steps inside
# itself ([design note](../docs/design_notes.md#the-rnn-op-as-step-scopes)); the numbers
# are the same (checked below against PaddlePaddle's). There is one
# kid scope per layer, direction and time step (`layer 0 fwd step 2`), holding that step's
# input row `x`, the state it starts from (`h_prev`, `c_prev`), the four gates and the new
# state (`c`, `h`). With `exe.record_values = True` the run record keeps their values.
# An LSTM step, for each row of the batch:
#
# | | computed as | meaning |
# | --- | --- | --- |
# | `i` | sigmoid(x W_ii + h_prev W_hi + b) | input gate: how much of the new candidate to write |
# | `f` | sigmoid(x W_if + h_prev W_hf + b) | forget gate: how much of the old cell to keep |
# | `c~` | tanh(x W_ic + h_prev W_hc + b) | the candidate: what this step would write |
# | `o` | sigmoid(x W_io + h_prev W_ho + b) | output gate: how much of the cell to show |
# | `c` | f * c_prev + i * c~ | the **cell**: the long-term memory, changed only by * and + |
# | `h` | o * tanh(c) | the **hidden state**: this step's output, and the next step's `h_prev` |
#
# Each gate is a number between 0 and 1 per unit, so `c` can carry a value across many
# steps untouched (`f` near 1, `i` near 0). The forward direction runs t = 0 to 4, the
# backward one t = 4 down to 0; layer 1 reads, at each t, both directions' `h` of layer 0.

# %%
lstm_records = []
unsubscribe = exe.subscribe(lstm_records.append)
exe.record_values = True
ref_lstm = np.load(DATA / "lstm2_io.npz")
lstm_out, lstm_h, lstm_c = exe.run(lstm, feed={"x": ref_lstm["x"]}, fetch_list=lstm_fetches,
                                   scope=lstm_scope)
exe.record_values = False
unsubscribe()
lstm_record = lstm_records[-1]

for name, got in (("out", lstm_out), ("h", lstm_h), ("c", lstm_c)):
    print(f"{name:3} {str(got.shape):10} largest difference from PaddlePaddle's: "
          f"{np.abs(got - ref_lstm[name]).max():.1e}")
    np.testing.assert_allclose(got, ref_lstm[name], rtol=1e-5, atol=1e-6)
labels = [s.label for s in lstm_record.step_scopes()]
print(len(labels), "step scopes:", labels[:6], "...")
assert len(labels) == 2 * 2 * 5

# %% [markdown]
# `pd.viz.rnn_explorer` slides through them: pick the layer and direction, move the
# slider over the steps, and each step shows its variables with their values, and where
# `h_prev`, `c_prev` and `x` came from (the step before, the initial state, or the input's
# row), checked equal.

# %%
if viz is not None:
    lstm_explorer = viz.rnn_explorer(lstm_record)
    assert len(lstm_explorer.rnns) == 4          # 2 layers x 2 directions
    display(lstm_explorer)

# %% [markdown]
# The same arithmetic by hand, from one recorded step and the weights in the scope.
# PaddlePaddle stores each cell's `W_ih` as [4 hidden, input] and `W_hh` as [4 hidden,
# hidden], gates in the order i, f, c~, o; `lstm_cell_0` is layer 0 forward, `lstm_cell_1`
# layer 0 backward, and so on. The output `out` at time t is layer 1's `h`, forward then
# backward; the final `h` stacks each layer and direction's last step.

# %%
def sigmoid(a):
    return 1 / (1 + np.exp(-a))


steps = {s.label: {v.name: np.asarray(v.value) for v in s.vars}
         for s in lstm_record.step_scopes()}
step = steps["layer 0 fwd step 1"]
W_ih, W_hh, b_ih, b_hh = (lstm_scope.find_var(n).get_tensor().numpy() for n in
                          ("lstm_cell_0.w_0", "lstm_cell_0.w_1", "lstm_cell_0.b_0", "lstm_cell_0.b_1"))
pre = step["x"] @ W_ih.T + b_ih + step["h_prev"] @ W_hh.T + b_hh
i, f, cand, o = np.split(pre, 4, axis=1)
i, f, cand, o = sigmoid(i), sigmoid(f), np.tanh(cand), sigmoid(o)
c = f * step["c_prev"] + i * cand
h = o * np.tanh(c)
print("forget gate f at step 1:\n", f.round(3))
print("cell c:\n", c.round(3))
for name, mine in (("i", i), ("f", f), ("c~", cand), ("o", o), ("c", c), ("h", h)):
    np.testing.assert_allclose(step[name], mine, rtol=1e-5, atol=1e-6)
np.testing.assert_array_equal(step["h_prev"], steps["layer 0 fwd step 0"]["h"])
np.testing.assert_array_equal(step["x"], ref_lstm["x"][:, 1])
H = rnn_op.attr("hidden_size")
for t in range(5):
    np.testing.assert_array_equal(lstm_out[:, t, :H], steps[f"layer 1 fwd step {t}"]["h"])
    np.testing.assert_array_equal(lstm_out[:, t, H:], steps[f"layer 1 bwd step {t}"]["h"])
np.testing.assert_array_equal(lstm_h[1], steps["layer 0 bwd step 0"]["h"])
print("every gate, cell and hidden state as recorded; out and h are the steps' h")

# %% [markdown]
# ## 7. A training program from PaddlePaddle 1.8.5
#
# PaddlePaddle 1.8.5, the last 1.x release, built and saved this training program
# (`StaticRNN` and `IfElse` stayed in 2.x up to 2.4/2.5 and are gone from 2.6.2), forward, backward and SGD together:
#
# ```
# h_t   = tanh(x_t @ rnn_Wx + h_(t-1) @ rnn_Wh + rnn_b)      # StaticRNN, T = 5 steps
# hT    = the last step, [3, 4]
# rows  = IfElse(sum(hT, 1) > 0): true rows x 2.0, false rows x 0.5
# loss0 = mean(square(rows))
# loss  = cond(loss0 > thr, loss0 * 2.0, loss0 * 0.5)
# SGD(0.1).minimize(loss)
# ```
#
# Every control-flow op owns a **sub-block**, and the backward pass added a **grad
# block** for each one. A grad block records the block it differentiates in
# `forward_block_idx`; in PaddlePaddle's descs its `parent_idx` is the forward block's
# parent (here the global block), not the forward block.

# %%
F18 = "f18_staticrnn_ifelse_cond_train"
train = pd.Program.parse((DATA / f"{F18}.main.pb").read_bytes())
print("version:", train.desc.version.version, "(1.8.5) | blocks:", train.num_blocks)


def owners(program):
    """{sub-block index: (block index, op index, op type)} of the ops that own sub-blocks."""
    found = {}
    for b in program.blocks:
        for k, op in enumerate(b.ops):
            for sub in op.sub_block_ids():
                found[sub] = (b.idx, k, op.type)
    return found


def print_tree(program, idx=0, depth=0, owner=None):
    """Each block under the op that owns it, with its parent and forward block."""
    b = program.block(idx)
    forward = b.desc.forward_block_idx
    where = "" if owner is None else f"  <- #{owner[1]} {owner[2]} of block {owner[0]}"
    grad = f", differentiates block {forward}" if forward >= 0 else ""
    print(f"{'    ' * depth}block {idx} (parent {b.parent_idx}{grad}): "
          f"{len(b.ops)} ops{where}")
    for sub, own in sorted(owners(program).items()):
        if own[0] == idx:
            print_tree(program, sub, depth + 1, own)


print_tree(train)
own = owners(train)
assert train.num_blocks == 11 and sorted(own) == list(range(1, 11))
assert own[1][2] == "recurrent" and own[10][2] == "recurrent_grad"
assert train.block(10).desc.forward_block_idx == 1 and train.block(10).parent_idx == 0

# %% [markdown]
# `pd.viz.block_tree` draws the same tree: each block listed under the op that owns it,
# with what it reads from and writes to the blocks outside it, its variables, and its
# ops coloured by role (forward, backward, optimize). Open an op for its attributes,
# PaddlePaddle's own included.

# %%
if viz is not None:
    display(viz.block_tree(train))

# %% [markdown]
# A sub-block is an ordinary block: the StaticRNN step block (block 1) reads the step
# input `x` and the memory `static_rnn_0@mem_0`, and its two `rnn_memory_helper` ops hand
# the new state out. Its graph shows the three parameters it reads from the global block
# coming in on dashed edges (captured). Its grad block (block 10) runs once per step,
# last step first.

# %%
for idx in (1, 10):
    b = train.block(idx)
    print(f"block {idx}:", [op.type for op in b.ops])
if viz is not None:
    display(viz.graph(train.block(1)))       # block 1, and what it reads from block 0

assert [op.type for op in train.block(1).ops][-2:] == ["rnn_memory_helper"] * 2

# %% [markdown]
# **One training step.** paddle_nb runs PaddlePaddle's startup program, then the main
# program, whose ops include `recurrent` / `recurrent_grad`, `split_lod_tensor` /
# `merge_lod_tensor`, `conditional_block` / `conditional_block_grad`, `select_input` and
# `sgd`. The startup program's random initializers draw from NumPy here, not from 1.8's
# `std::minstd_rand`, so the two weight matrices are set from PaddlePaddle's values
# first. The loss is fetched by name: a training program has no `fetch` ops, and `loss` is
# the output of `cond`'s `select_input`, `_generated_var_7`.

# %%
io18 = np.load(DATA / f"{F18}_io.npz")
startup = pd.Program.parse((DATA / f"{F18}.startup.pb").read_bytes())
scope18 = pd.Scope()
exe.run(startup, scope=scope18)
for name in ("rnn_Wx", "rnn_Wh", "rnn_b"):
    scope18.find_var(name).get_tensor().set(io18[f"init:{name}"], pd.CPUPlace())

records = []
unsubscribe = exe.subscribe(records.append)
loss, loss0 = exe.run(train, feed={"x": io18["x"], "thr": io18["thr"][:1]},
                      fetch_list=["_generated_var_7", "reduce_mean_0.tmp_0"], scope=scope18)
unsubscribe()

print(f"loss  {loss[0]:.7f}   PaddlePaddle: {io18['loss'][0]:.7f}")
print(f"loss0 {loss0[0]:.7f}   PaddlePaddle: {io18['loss0'][0]:.7f}")
for name in ("rnn_Wx", "rnn_Wh", "rnn_b"):
    got = scope18.find_var(name).get_tensor().numpy()
    print(f"{name:7} after the step, largest difference: "
          f"{np.abs(got - io18[f'step0:{name}']).max():.1e}")
    np.testing.assert_allclose(got, io18[f"step0:{name}"], rtol=1e-4, atol=1e-7)
np.testing.assert_allclose(loss, io18["loss"][:1], rtol=1e-4)

# %% [markdown]
# The run made one scope per RNN step and per branch that ran, kids of the run's scope,
# as **PaddlePaddle**'s `recurrent` and `conditional_block` ops do, and one `grad` scope
# per grad-block run inside them, which is **paddle_nb**'s own
# ([design note](../docs/design_notes.md#grad-blocks-run-in-a-grad-kid-scope);
# PaddlePaddle runs a grad block in the forward step's scope itself):

# %%
labels = [s.label for s in records[-1].step_scopes()]
print(len(labels), "sub-block scopes:", sorted(set(labels)))
assert labels.count("step 0") == 1 and "grad" in labels

# %% [markdown]
# ## 8. The other way: a paddle_nb prototype, saved for PaddlePaddle
#
# Prototype here, with scopes and blocks in view; then hand the model to PaddlePaddle.
# Below, a small classifier of the same shape as `mlp2` learns a made-up task: a noisy
# 28x28 image has one bright band of two rows, at one of ten heights, and the class is the
# height.

# %%
main, startup = pd.Program(), pd.Program()
with pd.program_guard(main, startup):
    x = pd.layers.data("x", shape=[784])
    label = pd.layers.data("label", shape=[1], dtype="int64")
    hidden = pd.layers.fc(x, 64, act="relu")
    logits = pd.layers.fc(hidden, 10)
    prob = pd.layers.softmax(logits)
    loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
    pd.optimizer.SGD(learning_rate=0.1).minimize(loss)

rng = np.random.default_rng(0)


def bands(n):
    """n noisy images, each with a bright band of two rows at 2 + 2 * class."""
    ys = rng.integers(0, 10, n)
    xs = rng.standard_normal((n, 28, 28)).astype("float32") * 0.5
    for i, y in enumerate(ys):
        xs[i, 2 + 2 * y:4 + 2 * y, :] += 1.0
    return xs.reshape(n, 784), ys[:, None].astype("int64")


proto_exe, proto_scope = pd.Executor(pd.CPUPlace(), seed=1), pd.Scope()
proto_exe.run(startup, scope=proto_scope)
losses = []
for step in range(40):
    xs, ys = bands(32)
    (value,) = proto_exe.run(main, feed={"x": xs, "label": ys}, fetch_list=[loss],
                             scope=proto_scope)
    losses.append(float(value))
test_x, test_y = bands(200)
# eval prunes the program to what computes prob (no loss, no SGD step), then runs it
(test_prob,) = proto_exe.eval([prob], main, feed={"x": test_x}, scope=proto_scope)
accuracy = float((test_prob.argmax(axis=1) == test_y[:, 0]).mean())
print(f"loss: {losses[0]:.3f} at the first step, {np.mean(losses[-10:]):.3f} over the "
      f"last ten; accuracy on 200 new images: {accuracy:.3f}")
assert np.mean(losses[-10:]) < 0.2 * losses[0] and accuracy > 0.9

# %% [markdown]
# `pd.io.save_inference_model(..., prefix=True)` writes PaddlePaddle 2.x's layout:
# `<prefix>.pdmodel` and `<prefix>.pdiparams`. The saved program is pruned to what
# computes `prob` from `x`: no label, no loss, no backward or optimizer ops, no
# initializers; `feed` and `fetch` ops at both ends.

# %%
export = pathlib.Path(tempfile.mkdtemp(prefix="paddle_nb_export_"))
atexit.register(shutil.rmtree, export, True)
prefix = str(export / "digits")
pd.io.save_inference_model(prefix, ["x"], [prob], proto_exe, main, scope=proto_scope,
                           prefix=True)
for f in sorted(export.iterdir()):
    print(f"{f.name:18} {f.stat().st_size:7,} bytes")

saved = pd.io.load_program(prefix + ".pdmodel")
print("ops:", [op.type for op in saved.global_block().ops])
assert sorted(f.name for f in export.iterdir()) == ["digits.pdiparams", "digits.pdmodel"]
assert [op.type for op in saved.global_block().ops] == [
    "feed", "mul", "elementwise_add", "relu", "mul", "elementwise_add", "softmax", "fetch"]

# %% [markdown]
# Loading it back gives the prototype's numbers exactly, from a fresh scope:

# %%
check_x, check_y = bands(5)
(want,) = proto_exe.eval([prob], main, feed={"x": check_x}, scope=proto_scope)
fresh = pd.Scope()
loaded, loaded_feeds, loaded_fetch = pd.io.load_inference_model(prefix, exe, scope=fresh)
(got,) = exe.run(loaded, feed={loaded_feeds[0]: check_x}, fetch_list=loaded_fetch,
                 scope=fresh)
print("classes:", got.argmax(axis=1), "| true:", check_y[:, 0])
np.testing.assert_array_equal(got, want)

# %% [markdown]
# ### Continuing in PaddlePaddle
#
# Everything below runs in PaddlePaddle (2.6, static mode), not here; `make interop` runs
# the same calls on paddle_nb's files and checks that they give paddle_nb's numbers.
#
# **Inference.** PaddlePaddle reads the prefix pair as if it had written it:
#
# ```
# import paddle
# paddle.enable_static()
# exe = paddle.static.Executor(paddle.CPUPlace())            # or paddle.CUDAPlace(0)
# program, feed_names, fetch_targets = paddle.static.load_inference_model("export/digits", exe)
# prob, = exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch_targets)
# ```
#
# A model saved as a directory with named files loads with
# `paddle.static.load_inference_model(dirname, exe, model_filename="model.pdmodel",
# params_filename="model.pdiparams")`.
#
# **Serving.** Paddle Inference, PaddlePaddle's deployment engine, takes the same two
# files and fuses ops for the hardware (`mul` + `elementwise_add` + `relu` become one
# `fc`):
#
# ```
# config = paddle.inference.Config("export/digits.pdmodel", "export/digits.pdiparams")
# predictor = paddle.inference.create_predictor(config)
# ```
#
# **Training on, on one device.** Save the whole training program and its persistables
# with `pd.io.save(main, "train.pdmodel")` and `pd.io.save_persistables(exe, dirname,
# main, filename="train.pdiparams")`; PaddlePaddle runs paddle_nb's forward, backward and
# `sgd` ops with `paddle.static.deserialize_program` and
# `paddle.static.deserialize_persistables(program, data, exe)`. (Programs whose backward
# goes through `cond` or `While` do not run there yet: paddle_nb's `while_grad` and
# `conditional_block_grad` descs follow paddle_nb's conventions, not PaddlePaddle's.)
#
# **Many GPUs, with Fleet.** Fleet rewrites a program that PaddlePaddle built (it inserts
# the collective ops that add up the gradients of all GPUs), so rebuild the network there
# with the same layer names, which gives the same parameter names, and load paddle_nb's
# parameters by name: `pd.io.save_params(exe, "export/params", main)` writes one file per
# parameter, which `paddle.static.load_program_state` reads.
#
# ```
# import paddle
# import paddle.distributed.fleet as fleet
# paddle.enable_static()
# fleet.init(is_collective=True)
# main, startup = paddle.static.Program(), paddle.static.Program()
# with paddle.static.program_guard(main, startup):
#     x = paddle.static.data("x", [None, 784], "float32")
#     label = paddle.static.data("label", [None, 1], "int64")
#     hidden = paddle.static.nn.fc(x, 64, activation="relu", name="fc_0")
#     logits = paddle.static.nn.fc(hidden, 10, name="fc_1")
#     loss = paddle.mean(paddle.nn.functional.softmax_with_cross_entropy(logits, label))
#     optimizer = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1),
#                                             fleet.DistributedStrategy())
#     optimizer.minimize(loss)
# exe = paddle.static.Executor(paddle.CUDAPlace(paddle.distributed.ParallelEnv().device_id))
# exe.run(startup)
# paddle.static.set_program_state(main, paddle.static.load_program_state("export/params"))
# # ... the training loop, each process on its share of the data; started with
# # python -m paddle.distributed.launch --gpus 0,1,2,3 train.py
# ```
#
# The parameter files for that: one per parameter, named after it, in PaddlePaddle's
# tensor format.

# %%
pd.io.save_params(proto_exe, str(export / "params"), main, scope=proto_scope)
names = sorted(f.name for f in (export / "params").iterdir())
print(names)
assert names == sorted(p.name for p in main.all_parameters()) == \
    ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]

# %% [markdown]
# ## Summary
#
# - A PaddlePaddle model is a serialized `ProgramDesc` plus a stream of tensors;
#   paddle_nb's `framework.proto` has PaddlePaddle's field numbers, so both directions
#   are plain reads and writes, and attributes paddle_nb does not use survive untouched.
# - `pd.io.load_inference_model(path_prefix, exe)` opens PaddlePaddle 2.x's
#   `.pdmodel` + `.pdiparams`; paddle_nb's outputs match PaddlePaddle's.
# - Real networks run as PaddlePaddle built them: a ResNet-18 (20 convolutions, 20 batch
#   norms, 8 residual adds) gives PaddlePaddle's logits, and a bidirectional two-layer LSTM,
#   one `rnn` op, runs (in paddle_nb's decomposition) as step scopes whose gates, cells and hidden states you can slide
#   through with `pd.viz.rnn_explorer` and check by hand.
# - Training programs load too, with every block: the 1.8.5 program trains one step to
#   PaddlePaddle's loss and parameters.
# - `pd.io.save_inference_model(prefix, ..., prefix=True)` writes the same layout for
#   PaddlePaddle's `load_inference_model` and Paddle Inference; for Fleet, rebuild in
#   PaddlePaddle and load the parameters by name.
#
# ## Exercises
#
# Try each one in the empty cell below it, then open the solution. The solutions are run,
# after the notebook, by the project's tests.
#
# **1. Walk the parameter file.** Read `data/mlp2.pdiparams` from start to end with
# `struct`, one tensor after the other as in section 1, and print each tensor's dims and
# its size in the file (header included). Check that the tensors, in file order, have the
# shapes of the persistable variables of `program` sorted by name, and that their sizes
# add up to the file's size.

# %%
# Exercise 1: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# params_bytes = (DATA / "mlp2.pdiparams").read_bytes()
# offset, found = 0, []
# while offset < len(params_bytes):
#     start = offset
#     _, levels = struct.unpack_from("<IQ", params_bytes, offset)
#     offset += 12
#     for _ in range(levels):                 # each LoD level: a byte size, then offsets
#         (size,) = struct.unpack_from("<Q", params_bytes, offset)
#         offset += 8 + size
#     _, size = struct.unpack_from("<Ii", params_bytes, offset)
#     offset += 8
#     tdesc = framework_pb2.VarType.TensorDesc.FromString(params_bytes[offset:offset + size])
#     offset += size + int(np.prod(tdesc.dims)) * 4               # FP32: 4 bytes each
#     found.append((list(tdesc.dims), offset - start))
#     print(f"dims {str(list(tdesc.dims)):10} {offset - start:7,} bytes")
#
# persistables = sorted(v.name for v in program.global_block().vars.values()
#                       if v.persistable and v.is_tensor())
# shapes = [list(program.global_block().var(n).shape) for n in persistables]
# assert [dims for dims, _ in found] == shapes
# assert sum(nbytes for _, nbytes in found) == len(params_bytes)
# ```
#
# </details>
#
# **2. Grad blocks and their forward blocks.** For every block of the 1.8 program `train`
# whose `desc.forward_block_idx` is not -1, print the block, the forward block it
# differentiates, the op that owns each of the two (use `owners(train)`), and check that
# the owner of the grad block is the owner of the forward block with `_grad` appended.

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# own = owners(train)
# pairs = []
# for b in train.blocks:
#     forward = b.desc.forward_block_idx
#     if forward < 0:
#         continue
#     pairs.append((b.idx, forward))
#     print(f"block {b.idx:2} ({own[b.idx][2]}) differentiates block {forward} "
#           f"({own[forward][2]})")
#     assert own[b.idx][2] == own[forward][2] + "_grad"
# assert len(pairs) == 5          # the RNN step block and the four branch blocks
# ```
#
# </details>
#
# **3. The same model, three layouts.** Save the prototype again into a directory,
# once with `model_filename="model.pdmodel", params_filename="model.pdiparams"` and once
# in the 1.x layout (no file names: `__model__` and one file per variable). Check that
# every model file holds the same bytes as `digits.pdmodel` but for the ops'
# `op_callstack` attributes (each save records where it built the `feed` and `fetch` ops:
# remove that attribute from each `OpDesc` with `framework_pb2` before comparing), that
# the parameter files are equal, that the 1.x layout's files
# hold, one by one, the bytes of `digits.pdiparams` back to back, and that all three load
# and give `want` for `check_x`.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# named, one_per_var = export / "named", export / "one_per_var"
# pd.io.save_inference_model(str(named), ["x"], [prob], proto_exe, main, scope=proto_scope,
#                            model_filename="model.pdmodel",
#                            params_filename="model.pdiparams")
# pd.io.save_inference_model(str(one_per_var), ["x"], [prob], proto_exe, main,
#                            scope=proto_scope)
#
#
# def without_callstacks(path):
#     # the model's bytes less each op's op_callstack (where that save built the op)
#     desc = framework_pb2.ProgramDesc.FromString(pathlib.Path(path).read_bytes())
#     for op in desc.blocks[0].ops:
#         kept = [a for a in op.attrs if a.name != "op_callstack"]
#         del op.attrs[:]
#         op.attrs.extend(kept)
#     return desc.SerializeToString()
#
#
# model_bytes = without_callstacks(export / "digits.pdmodel")
# assert without_callstacks(named / "model.pdmodel") == model_bytes
# assert without_callstacks(one_per_var / "__model__") == model_bytes
# assert (named / "model.pdiparams").read_bytes() == (export / "digits.pdiparams").read_bytes()
# files = sorted(f.name for f in one_per_var.iterdir() if f.name != "__model__")
# joined = b"".join((one_per_var / f).read_bytes() for f in files)
# assert joined == (export / "digits.pdiparams").read_bytes()
#
# for where, kwargs in [(prefix, {}),
#                       (str(named), {"model_filename": "model.pdmodel",
#                                     "params_filename": "model.pdiparams"}),
#                       (str(one_per_var), {})]:
#     s = pd.Scope()
#     prog, feeds, fetches = pd.io.load_inference_model(where, exe, scope=s, **kwargs)
#     (out,) = exe.run(prog, feed={feeds[0]: check_x}, fetch_list=fetches, scope=s)
#     np.testing.assert_array_equal(out, want)
#     print(f"{pathlib.Path(where).name:12} loads and gives the prototype's outputs")
# ```
#
# </details>

# %% [markdown]
# ## What PaddlePaddle's predictor does at load time: program passes
#
# **PaddlePaddle** Inference does not run a saved model as it was written. When its predictor
# loads one it rewrites the program first ("IR passes"): batch_norm folded into the
# convolution before it, activations fused into the op that feeds them, chains of
# elementwise ops fused, buffers reused in place. **paddle_nb** does the same in plain
# Python, as a step you can watch: `pd.io.load_inference_model(..., optimize=True)` applies
# `paddle_nb.passes.INFERENCE_PASSES` (docs/passes.md), and each pass keeps the program it
# was given and the one it made. This section saves the ResNet-18 of section 5 with
# parameters made by NumPy (its own, so that it stands alone), loads it both ways and runs
# both on the same images.

# %%
opt_dir = pathlib.Path(tempfile.mkdtemp(prefix="pnb_passes_"))
atexit.register(shutil.rmtree, opt_dir, True)
opt_net = pd.io.load_program(str(DATA / "resnet18.pdmodel"))
opt_rng = np.random.default_rng(28)
opt_scope = pd.Scope()
for opt_var in opt_net.list_vars():
    if opt_var.persistable and opt_var.name not in ("feed", "fetch"):
        opt_shape = list(opt_var.shape)
        opt_fan_in = int(np.prod(opt_shape[1:])) if len(opt_shape) == 4 else opt_shape[0]
        opt_value = (opt_rng.uniform(0.5, 1.5, opt_shape) if len(opt_shape) == 1   # batch_norm's
                     else opt_rng.standard_normal(opt_shape) * np.sqrt(1.0 / opt_fan_in))
        opt_scope.var(opt_var.name).get_tensor().set(opt_value.astype("float32"), pd.CPUPlace())
opt_fetch = [op.input("X")[0] for op in opt_net.global_block().ops if op.type == "fetch"]
pd.io.save_inference_model(str(opt_dir / "resnet18"), ["image"],
                           [opt_net.global_block().var(n) for n in opt_fetch], exe,
                           main_program=opt_net, scope=opt_scope, prefix=True)

# the same files loaded twice: as saved, and with the passes (names prefixed opt_: the
# exercises above keep theirs)
opt_plain_scope, opt_fast_scope = pd.Scope(), pd.Scope()
opt_plain, opt_feeds, opt_fetches = pd.io.load_inference_model(
    str(opt_dir / "resnet18"), exe, scope=opt_plain_scope)
opt_fast, opt_feeds, opt_fast_fetches = pd.io.load_inference_model(
    str(opt_dir / "resnet18"), exe, scope=opt_fast_scope, optimize=True)
opt_images = opt_rng.standard_normal((2, 3, 32, 32)).astype("float32")
(opt_want,) = exe.run(opt_plain, feed={"image": opt_images}, fetch_list=opt_fetches,
                      scope=opt_plain_scope)
(opt_got,) = exe.run(opt_fast, feed={"image": opt_images}, fetch_list=opt_fast_fetches,
                     scope=opt_fast_scope)
print(f"{len(opt_plain.global_block().ops)} ops as saved -> "
      f"{len(opt_fast.global_block().ops)} ops after the passes; largest difference in the "
      f"logits: {np.abs(opt_got - opt_want).max():.1e}")
for opt_result in opt_fast.pass_results:
    print(f"  {opt_result.name:22} {opt_result.ops_before:3} -> {opt_result.ops_after:3} ops",
          f"{len(opt_result.changes):3} changes",
          opt_result.changes[0][:2] if opt_result.changes else "")
np.testing.assert_allclose(opt_got, opt_want, rtol=1e-5, atol=1e-5)
assert "batch_norm" not in [op.type for op in opt_fast.global_block().ops]

# %% [markdown]
# `pd.viz.pass_view(opt_fast)` draws what each pass did: for each pass that changed something,
# the program before it on the left and after it on the right, as a block tree and a graph.
# Ops the pass removed are red, ops fused into one are purple (the fused op too: hover a
# line of the tree to see which op it became), ops that kept their type but read new
# inputs yellow (a convolution given batch_norm's scale in its weights), new ops green, and
# ops that write their result over an input nothing needs any more blue. Below, the
# graphs of `fuse_conv_activation`: each `conv2d -> elementwise_add -> relu` of the stem and
# the basic blocks became one `fused_conv2d_bias_act`, 73 ops became 44. Open the other
# passes (and their block trees) with a click; `graphs=True` draws every pass's graphs.

# %%
if viz is not None:
    display(viz.pass_view(opt_fast, graphs=["fuse_conv_activation"]))

# %% [markdown]
# **What it buys.** The passes run once, at load time; the rewritten program then runs on
# every request. Timed here on the same images (best of a few runs, after a first one that
# also checks every result against its declaration; other work on the machine makes single
# runs noisy):

# %%
import time  # noqa: E402


def opt_best_ms(program, scope, fetch_list, runs=5):
    exe.run(program, feed={"image": opt_images}, fetch_list=fetch_list, scope=scope)  # checks
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        exe.run(program, feed={"image": opt_images}, fetch_list=fetch_list, scope=scope)
        times.append(time.perf_counter() - start)
    return 1000 * min(times)


print(f"as saved: {opt_best_ms(opt_plain, opt_plain_scope, opt_fetches):.1f} ms, after the "
      f"passes: {opt_best_ms(opt_fast, opt_fast_scope, opt_fast_fetches):.1f} ms per run of "
      "2 images")
opt_in_place = [c for r in opt_fast.pass_results for c in r.changes if c[0] == "inplace"]
print(f"{len(opt_in_place)} ops write over an input nothing reads later, e.g. "
      f"{opt_in_place[0][2]}")
assert opt_in_place
