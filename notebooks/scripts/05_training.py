# %% [markdown]
# # 05 · Training a network
#
# The earlier notebooks built programs and ran them once. Training is the same thing done
# many times: a program whose ops compute a loss, its gradients and the parameter updates
# is run once per minibatch, in one scope that keeps the parameters between runs. Nothing
# new is needed, only the pieces already seen, put together.
#
# **What you will see**
#
# 1. The data: scikit-learn's bundled 8×8 handwritten digits, split into a training set and
#    a held-out test set.
# 2. One function that builds a small multi-layer perceptron (MLP) as two programs: a
#    *startup* program that initializes the parameters and a *main* program that takes one
#    training step per run; and a copy of the forward part for testing.
# 3. The training loop, with a progress bar over epochs, and the loss curve; then one
#    training step op by op, as a memory timeline.
# 4. The accuracy on the held-out digits (at least 95 %).
# 5. SGD against Adam: the same model, two optimizers, and the state Adam keeps in the scope.
# 6. Saving the trained model as an inference model and loading it into a fresh scope:
#    the same predictions.
# 7. Three exercises, with hidden solutions.
#
# Each code cell checks itself with `assert` lines, so a wrong result stops the notebook.
# Run it top to bottom (*Kernel → Restart Kernel and Run All Cells*); it takes a few seconds.
#
# > **Optional lab · about 24 min** (the core path is 01, 02, 06 §1–2, 03, 04: see
# > [README.md](README.md)). Claims say whose rule they are: **Design**, **PaddlePaddle**
# > or **paddle_nb** (see notebook 01).

# %%
import os
import tempfile
import time

import numpy as np
from IPython.display import SVG, display
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm.auto import trange

import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (here, a memory timeline)
from paddle_nb.framework.operator import OpRole

cpu = pd.CPUPlace()

# %% [markdown]
# ## 1. The data
#
# `load_digits()` ships with scikit-learn, so nothing is downloaded: 1,797 grey-scale
# images of 8×8 pixels with values 0 to 16, each labelled with its digit. We scale the
# pixels to [0, 1], flatten each image to 64 numbers (`float32`, the dtype of the data
# variable), and keep the labels as an `int64` column, the shape that
# `softmax_with_cross_entropy` expects. A quarter of the images is held out, in the same
# proportions of each digit (`stratify`), and never trained on.

# %%
digits = load_digits()
X = (digits.data / 16.0).astype("float32")            # [1797, 64], values in [0, 1]
Y = digits.target.astype("int64").reshape(-1, 1)      # [1797, 1], values 0..9
X_train, X_test, Y_train, Y_test = train_test_split(
    X, Y, test_size=0.25, random_state=0, stratify=digits.target)

print("train:", X_train.shape, Y_train.shape, "| test:", X_test.shape, Y_test.shape)
print("images per digit in the test set:", np.bincount(Y_test.ravel()))

# one training image, drawn with characters: darker pixels, denser characters
shades = " .:-=+*#%@"
image = X_train[0].reshape(8, 8)
print(f"\nthe first training image, labelled {Y_train[0, 0]}:")
print("\n".join("".join(shades[int(v * 9)] * 2 for v in row) for row in image))

assert X_train.shape == (1347, 64) and X_test.shape == (450, 64)
assert X.dtype == np.float32 and Y.dtype == np.int64 and 0.0 <= X.min() and X.max() <= 1.0


# %% [markdown]
# ## 2. The model, as programs
#
# `build(optimizer)` writes the network with the layers of notebook 02: 64 inputs, a hidden
# layer of 64 ReLU units, 10 outputs (the *logits*, one score per digit), the mean
# softmax cross-entropy as the loss, and the accuracy. Inside `pd.program_guard(main,
# startup)`, every layer puts its parameters' initializers into `startup` and its
# computation into `main`.
#
# Two more lines turn the forward program into a training program:
#
# - `main.clone(for_test=True)`, taken **before** the optimizer is added, is the forward
#   part alone: the program we evaluate with.
# - `optimizer.minimize(loss)` appends the backward pass (`append_backward`) and one update
#   op per parameter (`sgd`, `adam`), whose output is the parameter itself. So each run of
#   `main` takes one step of gradient descent, in place, in the scope it runs in.

# %%
class Model:
    """The programs and variables of one MLP; ``build`` makes it."""


def build(optimizer, hidden=64):
    m = Model()
    m.main, m.startup = pd.Program(), pd.Program()
    with pd.program_guard(m.main, m.startup):
        m.image = pd.layers.data("image", shape=[64])
        m.label = pd.layers.data("label", shape=[1], dtype="int64")
        h = pd.layers.fc(m.image, hidden, act="relu")
        m.logits = pd.layers.fc(h, 10)
        m.probs = pd.layers.softmax(m.logits)
        m.loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(m.logits, m.label))
        m.acc = pd.layers.accuracy(m.probs, m.label)
        m.test = m.main.clone(for_test=True)      # the forward part, before the updates
        optimizer.minimize(m.loss)
    return m


sgd = build(pd.optimizer.SGD(learning_rate=0.1))

print("startup:", [op.type for op in sgd.startup.global_block().ops])
roles = {"forward": OpRole.FORWARD, "backward": OpRole.BACKWARD, "optimize": OpRole.OPTIMIZE}
for role, bit in roles.items():
    ops = [op.type for op in sgd.main.global_block().ops
           if (op.attr("op_role") & bit if bit else op.attr("op_role") == 0)]
    print(f"main, {role:9} {len(ops):2} ops:", ops)
print("test: ", [op.type for op in sgd.test.global_block().ops])
print("logits:", sgd.logits.shape, "| loss:", sgd.loss.shape)

updates = [op for op in sgd.main.global_block().ops if op.type == "sgd"]
assert [op.output("ParamOut") for op in updates] == [op.input("Param") for op in updates]
assert len(updates) == 4                      # two weights, two biases
assert not any(op.type == "sgd" or op.type.endswith("_grad")
               for op in sgd.test.global_block().ops)
assert sgd.logits.shape == (-1, 10)

# %% [markdown]
# ## 3. The training loop
#
# Training is a plain Python loop around `exe.run`:
#
# 1. Run `startup` once in a fresh scope: the parameters are now allocated there.
# 2. For each epoch, shuffle the training set and cut it into minibatches of 32; run
#    `main` on each (`feed` the images and labels, `fetch` the loss). The parameters stay
#    in `scope` from one run to the next; every temporary of a run is gone when it ends.
#
# The executor gets a `seed` so that the random initial weights, and therefore every
# number below, are the same on each run of the notebook. `trange` from `tqdm.auto` draws
# a progress bar over the epochs (a widget in Jupyter, text elsewhere).

# %%
exe = pd.Executor(cpu, seed=0)
BATCH = 32


def minibatches(rng):
    order = rng.permutation(len(X_train))
    for start in range(0, len(order), BATCH):
        rows = order[start:start + BATCH]
        yield {"image": X_train[rows], "label": Y_train[rows]}


def train(model, scope, epochs, name):
    """Run ``model.startup`` in ``scope``, then ``epochs`` passes over the training set.
    Returns the loss of every step."""
    exe.run(model.startup, scope=scope)
    rng = np.random.default_rng(0)          # the same minibatches for every model
    losses = []
    with trange(epochs, desc=name, unit="epoch") as bar:
        for epoch in bar:
            for feed in minibatches(rng):
                loss, = exe.run(model.main, feed=feed, fetch_list=[model.loss], scope=scope)
                losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses[-len(X_train) // BATCH:]):.4f}")
    return losses


EPOCHS = 20
sgd_scope = pd.Scope()
start = time.perf_counter()
sgd_losses = train(sgd, sgd_scope, EPOCHS, "SGD")
seconds = time.perf_counter() - start
steps_per_epoch = len(sgd_losses) // EPOCHS

print(f"{len(sgd_losses)} steps ({steps_per_epoch} per epoch) in {seconds:.2f} s")
print(f"loss: first step {sgd_losses[0]:.3f}, last epoch {np.mean(sgd_losses[-steps_per_epoch:]):.3f}")
print("the scope after training:", sgd_scope.local_var_names(), "| kids:", sgd_scope.kids)

assert len(sgd_losses) == EPOCHS * 43 and steps_per_epoch == 43     # ceil(1347 / 32) = 43
assert np.mean(sgd_losses[-steps_per_epoch:]) < 0.25 < 2.0 < sgd_losses[0]
assert sgd_scope.kids == []               # each run's local scope is gone


# %% [markdown]
# ### The loss curve
#
# The curve is a small SVG image written by hand (`line_chart`, whose source is folded:
# click the cell's left bar to open it), so that the notebook needs no plotting library:
# each step's loss in a light line, each epoch's mean (plotted at the epoch's end) in a
# dark one. The loss falls steeply during the first epochs, then slowly.

# %% jupyter={"source_hidden": true}
def line_chart(series, width=620, height=250, xlabel="epoch", ylabel="loss"):
    """An SVG chart of ``{label: (xs, ys, colour, stroke width)}`` on shared axes."""
    left, right, top, bottom = 48, 150, 26, 34
    xs_all = np.concatenate([np.asarray(xs, float) for xs, *_ in series.values()])
    ys_all = np.concatenate([np.asarray(ys, float) for _, ys, *_ in series.values()])
    x0, x1, y1 = 0.0, xs_all.max(), ys_all.max() * 1.05     # both axes start at 0

    def px(x):
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def py(y):
        return height - bottom - y / y1 * (height - top - bottom)

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for tick in np.linspace(0, y1, 5):
        svg.append(f'<line x1="{left}" x2="{width - right}" y1="{py(tick):.1f}" '
                   f'y2="{py(tick):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{py(tick) + 4:.1f}" text-anchor="end">'
                   f'{tick:.2f}</text>')
    for tick in np.linspace(x0, x1, 5):
        svg.append(f'<text x="{px(tick):.1f}" y="{height - bottom + 16}" '
                   f'text-anchor="middle">{tick:.0f}</text>')
    svg.append(f'<text x="{(left + width - right) / 2}" y="{height - 4}" '
               f'text-anchor="middle">{xlabel}</text>')
    svg.append(f'<text x="4" y="{top - 12}">{ylabel}</text>')
    for row, (label, (xs, ys, colour, stroke)) in enumerate(series.items()):
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
        svg.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                   f'stroke-width="{stroke}"/>')
        y = top + 14 + 16 * row
        svg.append(f'<line x1="{width - right + 10}" x2="{width - right + 28}" y1="{y - 4}" '
                   f'y2="{y - 4}" stroke="{colour}" stroke-width="{max(stroke, 2)}"/>')
        svg.append(f'<text x="{width - right + 34}" y="{y}">{label}</text>')
    svg.append("</svg>")
    return SVG("".join(svg))


# %%
def epoch_means(losses):
    """(1, 2, ..., epochs) and the mean loss of each epoch."""
    per_epoch = np.asarray(losses).reshape(-1, steps_per_epoch).mean(axis=1)
    return np.arange(1, len(per_epoch) + 1), per_epoch


chart = line_chart({
    "SGD, each step": (np.arange(1, len(sgd_losses) + 1) / steps_per_epoch, sgd_losses,
                       "#9ecae1", 1),
    "SGD, epoch mean": (*epoch_means(sgd_losses), "#08519c", 2.5),
})
display(chart)

means = epoch_means(sgd_losses)[1]
assert means[-1] < means[0] / 4 and means[-1] < means[len(means) // 2]

# %% [markdown]
# ### One step, op by op
#
# What does one run of `main` do with memory? A listener on the executor gets a
# `RunRecord` of each run (notebook 06 reads one closely), and `pd.viz.memory_timeline`
# draws it: the bytes in use on each place after each op, with ▲ where an op allocated a
# tensor, ▼ where a tensor was freed, and ◆ where an op rewrote one (freed and allocated
# it again). Hover a column to see what changed there.
#
# We watch a single step with a second executor and a fresh scope, so that the trained
# model above and the numbers below stay as they are. The curve starts at the parameters,
# the learning rate and the fed minibatch. The forward ops allocate activations, which
# the backward ops read, so most live until the backward pass; the backward ops allocate
# gradients and free each tensor after its last reader, so the peak comes in the middle
# of the backward pass; the four `sgd` ops rewrite the parameters; at the end the run
# scope is destroyed and only the persistable variables remain.
#
# The curve is sampled **between ops**: after each op has allocated its outputs *and*
# freed the inputs it read last. While an op runs, its inputs and its new output are alive
# together, so the true peak is higher; the cell computes that moment too, from the same
# record's events ([design note](../docs/design_notes.md#memory-figures-are-sampled-between-ops)).

# %%
watch = pd.Executor(cpu, seed=0)            # `exe` and `sgd_scope` are left alone
step_scope = pd.Scope()
watch.run(sgd.startup, scope=step_scope)
step_records = []
watch.subscribe(step_records.append)        # from now on, each run hands over a RunRecord
first_batch = next(minibatches(np.random.default_rng(0)))
watch.run(sgd.main, feed=first_batch, fetch_list=[sgd.loss], scope=step_scope)

timeline = pd.viz.memory_timeline(step_records[-1])
persistable = sum(step_scope.find_var(n).get_tensor().nbytes
                  for n in step_scope.local_var_names())
curve, top = timeline.series[repr(cpu)], timeline.peak[repr(cpu)]
print(f"{len(timeline.positions)} positions (start, {len(sgd.main.global_block().ops)} ops, "
      f"end); persistables {persistable} B; peak between ops {top['nbytes']} B")

live, inside_peak = curve[0], 0
for position in range(len(step_records[-1].ops)):
    events = [(kind, n) for p, kind, _, _, n, _ in step_records[-1].events if p == position]
    allocated = sum(n for kind, n in events if kind == "tensor_allocated")
    freed = sum(n for kind, n in events if kind == "tensor_freed")
    inside_peak = max(inside_peak, live + allocated)   # inputs and new outputs alive together
    live += allocated - freed
print(f"peak inside an op (inputs and outputs alive together): {inside_peak} B")
assert inside_peak >= top["nbytes"]

assert len(timeline.positions) == len(sgd.main.global_block().ops) + 2
assert curve[-1] == persistable < top["nbytes"]
timeline


# %% [markdown]
# ## 4. Accuracy on held-out digits
#
# The test program is the forward part of `main`, so running it in `sgd_scope` uses the
# trained parameters and changes nothing. We fetch the `accuracy` op's result, and the
# probabilities to check that result by hand: the predicted digit is the column with the
# highest probability.

# %%
def evaluate(model, scope):
    """(accuracy, probabilities) of ``model`` on the held-out digits."""
    acc, probs = exe.run(model.test, feed={"image": X_test, "label": Y_test},
                         fetch_list=[model.acc, model.probs], scope=scope)
    return acc.item(), probs


sgd_acc, sgd_probs = evaluate(sgd, sgd_scope)
predicted = sgd_probs.argmax(axis=1)
print(f"held-out accuracy: {sgd_acc:.4f} ({int(round(sgd_acc * len(X_test)))} of {len(X_test)})")
print("by hand:          ", np.mean(predicted == Y_test.ravel()).round(4))

confusion = np.zeros((10, 10), int)
np.add.at(confusion, (Y_test.ravel(), predicted), 1)
print("\nconfusion (rows: true digit, columns: predicted)")
print("    " + " ".join(f"{d:3}" for d in range(10)))
for d, row in enumerate(confusion):
    print(f"{d:3} " + " ".join(f"{n:3}" if n else "  ." for n in row))

assert sgd_acc >= 0.95, sgd_acc
assert np.isclose(sgd_acc, np.mean(predicted == Y_test.ravel()))
assert np.allclose(sgd_probs.sum(axis=1), 1.0, atol=1e-5)

# %% [markdown]
# ## 5. SGD against Adam
#
# SGD moves each parameter by `learning_rate × gradient`. Adam keeps, for every
# parameter, two running averages: `m` of the gradient (weight β₁ = 0.9) and `v` of its
# square (β₂ = 0.999), the accumulators `..._moment1_0` and `..._moment2_0` listed below.
# **PaddlePaddle**'s `adam` op (and paddle_nb's, which computes the same numbers) moves each
# weight by `lr_t · m / (√v + ε·√(1 − β₂ᵗ))`, where `lr_t = lr · √(1 − β₂ᵗ) / (1 − β₁ᵗ)`
# undoes the averages' start from zero (the bias correction; `β₁ᵗ` and `β₂ᵗ` are the
# accumulators `..._beta1_pow_acc_0` and `..._beta2_pow_acc_0`). Where a weight's gradient is steady,
# `m / √v` is about ±1 whatever the gradient's size, so the step is about `lr`; where the
# gradient keeps changing sign, `m` averages towards 0 while `v` does not, and the step
# shrinks. Swapping one optimizer for the other changes only the update ops at the end of
# `main`; the forward and backward ops are the same.
#
# Both models start from the same weights (the same seed, and the same order of
# initializers) and see the same minibatches.

# %%
adam = build(pd.optimizer.Adam(learning_rate=0.01))
adam_scope = pd.Scope()
start = time.perf_counter()
adam_losses = train(adam, adam_scope, EPOCHS, "Adam")
adam_seconds = time.perf_counter() - start
adam_acc, adam_probs = evaluate(adam, adam_scope)

print("update ops:", sorted({op.type for op in sgd.main.global_block().ops
                             if op.attr("op_role") & OpRole.OPTIMIZE}), "vs",
      sorted({op.type for op in adam.main.global_block().ops
              if op.attr("op_role") & OpRole.OPTIMIZE}))
print(f"{'':5} {'last-epoch loss':>16} {'accuracy':>9} {'seconds':>8}")
for name, losses, acc, secs in [("SGD", sgd_losses, sgd_acc, seconds),
                                ("Adam", adam_losses, adam_acc, adam_seconds)]:
    print(f"{name:5} {np.mean(losses[-steps_per_epoch:]):16.4f} {acc:9.4f} {secs:8.2f}")

display(line_chart({"SGD (lr 0.1)": (*epoch_means(sgd_losses), "#08519c", 2),
                    "Adam (lr 0.01)": (*epoch_means(adam_losses), "#d94801", 2)},
                   ylabel="mean loss of the epoch"))

assert adam_acc >= 0.95, adam_acc
assert np.mean(adam_losses[-steps_per_epoch:]) < np.mean(sgd_losses[-steps_per_epoch:])


# %% [markdown]
# What Adam remembers between steps lives where the parameters live: in persistable
# variables of the global block, initialized by the startup program and kept in the
# scope. SGD keeps only its learning rate.

# %%
def state(scope, model):
    """The scope's variables that are not parameters, with their shapes."""
    params = {p.name for p in model.main.global_block().all_parameters()}
    return {n: scope.find_var(n).get_tensor().shape
            for n in scope.local_var_names() if n not in params}


print("SGD keeps: ", state(sgd_scope, sgd))
print("Adam keeps:")
for name, shape in state(adam_scope, adam).items():
    print(f"    {name:32} {shape}")

adam_state = state(adam_scope, adam)
assert list(state(sgd_scope, sgd)) == ["learning_rate_0"]
assert adam_state["fc_0.w_0_moment1_0"] == adam_state["fc_0.w_0_moment2_0"] == (64, 64)
assert len(adam_state) == 1 + 4 * 4        # lr; per parameter: 2 moments, 2 beta powers

# %% [markdown]
# ## 6. Save, then load into a fresh scope
#
# `pd.io.save_inference_model(dirname, feeded_var_names, target_vars, executor,
# main_program)` keeps what computes the targets from the fed variables and nothing else:
# no loss, no backward, no optimizer, no initializers. It writes that program
# (`__model__`, the serialized ProgramDesc, with PaddlePaddle's `feed` and `fetch` ops
# added) and one file per parameter it reads, into a directory, whole or not at all.
#
# `pd.io.load_inference_model(dirname, executor, scope=...)` reads the program back, puts
# the parameters into the scope, and returns the program with the names to feed and the
# variables to fetch. Here it loads into a brand-new `Scope`, which shares nothing with
# the one we trained in; the predictions must be the same numbers.

# %%
with tempfile.TemporaryDirectory() as tmp:
    model_dir = os.path.join(tmp, "digits_mlp")
    pd.io.save_inference_model(model_dir, ["image"], [sgd.probs], exe,
                               main_program=sgd.main, scope=sgd_scope)
    files = {f: os.path.getsize(os.path.join(model_dir, f)) for f in sorted(os.listdir(model_dir))}

    fresh = pd.Scope()
    program, feed_names, fetch_vars = pd.io.load_inference_model(model_dir, exe, scope=fresh)
    loaded_probs, = exe.run(program, feed={feed_names[0]: X_test}, fetch_list=fetch_vars,
                            scope=fresh)

print("files:", files)
print("feed:", feed_names, "| fetch:", [v.name for v in fetch_vars])
print("the loaded program:", [op.type for op in program.global_block().ops])
print("the fresh scope holds:", fresh.local_var_names())
print("largest difference from the trained model:", np.abs(loaded_probs - sgd_probs).max())

assert np.array_equal(loaded_probs, sgd_probs)
assert feed_names == ["image"] and [v.name for v in fetch_vars] == [sgd.probs.name]
assert sorted(n for n in fresh.local_var_names() if n not in ("feed", "fetch")) == \
    ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
assert not any(op.type in ("sgd", "mean") or op.type.endswith("_grad")
               for op in program.global_block().ops)

# %% [markdown]
# ## Summary
#
# - A training program is an ordinary program: forward ops, the grad ops of
#   `append_backward`, and update ops that write each parameter in place. `minimize` adds
#   the last two.
# - `startup` runs once; `main` runs once per minibatch in the same scope, which keeps the
#   parameters and the optimizer's state; each run's temporaries live in a kid scope that
#   is gone when the run ends.
# - `main.clone(for_test=True)` taken before `minimize` is the program to evaluate with.
# - Adam keeps two moments and two powers per parameter, as persistable variables in the
#   scope. Here it reaches about a tenth of SGD's training loss in the same steps;
#   on the held-out digits both score about the same.
# - `save_inference_model` writes the pruned forward program and its parameters;
#   `load_inference_model` gives back a program that computes the same numbers in any
#   scope.
#
# ## Exercises
#
# Try each one in the empty cell below it, then open the solution. The solutions are run,
# after the notebook, by the project's tests.
#
# **1. Which digits does it get wrong?** From `sgd_probs`, list the held-out images the
# SGD model misclassifies as `(true, predicted)` pairs, find the most frequent pair, and
# draw one of those images with the `shades` characters of section 1. Check that the
# number of mistakes matches the accuracy.

# %%
# Exercise 1: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# true = Y_test.ravel()
# wrong = np.flatnonzero(sgd_probs.argmax(axis=1) != true)
# pairs = [(int(true[i]), int(sgd_probs[i].argmax())) for i in wrong]
# most = max(set(pairs), key=pairs.count)
# print(len(wrong), "mistakes; the most frequent (true, predicted) pair:", most,
#       pairs.count(most), "times")
# example = next(i for i, p in zip(wrong, pairs) if p == most)
# print("\n".join("".join(shades[int(v * 9)] * 2 for v in row)
#                 for row in X_test[example].reshape(8, 8)))
# assert len(wrong) == round((1 - sgd_acc) * len(X_test))
# ```
#
# </details>
#
# **2. A wider and a deeper network.** `build` takes `hidden`, the width of the hidden
# layer. Train a network with 16 hidden units and one with 128, with Adam for 8 epochs
# each, and compare their held-out accuracy and their number of parameters (count them
# from the shapes of the parameters in the program). Then change `build` into `build_deep`
# with two hidden layers of 64 and train it the same way.

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def n_params(model):
#     return sum(int(np.prod(p.shape)) for p in model.main.global_block().all_parameters())
#
#
# for width in [16, 128]:
#     model = build(pd.optimizer.Adam(learning_rate=0.01), hidden=width)
#     scope = pd.Scope()
#     train(model, scope, 8, f"{width} hidden")
#     acc, _ = evaluate(model, scope)
#     print(f"{width:4} hidden units: {n_params(model):6} parameters, accuracy {acc:.4f}")
#     assert n_params(model) == 64 * width + width + width * 10 + 10
#     assert acc > 0.9
#
#
# def build_deep(optimizer):
#     m = Model()
#     m.main, m.startup = pd.Program(), pd.Program()
#     with pd.program_guard(m.main, m.startup):
#         m.image = pd.layers.data("image", shape=[64])
#         m.label = pd.layers.data("label", shape=[1], dtype="int64")
#         h = pd.layers.fc(pd.layers.fc(m.image, 64, act="relu"), 64, act="relu")
#         m.logits = pd.layers.fc(h, 10)
#         m.probs = pd.layers.softmax(m.logits)
#         m.loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(m.logits, m.label))
#         m.acc = pd.layers.accuracy(m.probs, m.label)
#         m.test = m.main.clone(for_test=True)
#         optimizer.minimize(m.loss)
#     return m
#
#
# deep = build_deep(pd.optimizer.Adam(learning_rate=0.01))
# deep_scope = pd.Scope()
# train(deep, deep_scope, 8, "deep")
# deep_acc, _ = evaluate(deep, deep_scope)
# print(f"two hidden layers: {n_params(deep)} parameters, accuracy {deep_acc:.4f}")
# assert len(deep.main.global_block().all_parameters()) == 6 and deep_acc > 0.9
# ```
#
# </details>
#
# **3. Save the parameters, not the model.** An inference model holds a program. To keep
# training later you need only the parameters and the optimizer's state, and the program
# is rebuilt by code. Save the persistables of the Adam model with
# `pd.io.save_persistables(exe, dirname, main_program=adam.main, scope=adam_scope)`, load
# them into a fresh scope with `pd.io.load_persistables`, and check that (a) the test
# accuracy is the same and (b) one more training step from either scope gives the same
# loss and the same new weights.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# with tempfile.TemporaryDirectory() as tmp:
#     pd.io.save_persistables(exe, tmp, main_program=adam.main, scope=adam_scope)
#     print(len(os.listdir(tmp)), "files, e.g.", sorted(os.listdir(tmp))[:3])
#     restored = pd.Scope()
#     pd.io.load_persistables(exe, tmp, main_program=adam.main, scope=restored)
#
# assert evaluate(adam, restored)[0] == adam_acc
# feed = {"image": X_train[:BATCH], "label": Y_train[:BATCH]}
# steps = [exe.run(adam.main, feed=feed, fetch_list=[adam.loss, "fc_0.w_0"], scope=s)
#          for s in (adam_scope, restored)]
# (loss_a, w_a), (loss_b, w_b) = steps
# print("loss from the trained scope:", loss_a, "| from the restored one:", loss_b)
# assert np.array_equal(loss_a, loss_b) and np.array_equal(w_a, w_b)
# ```
#
# </details>
