# %% [markdown]
# # 07 · One program, two places: CPU and GPU
#
# A program says *what* to compute; it does not say *where*. The place is chosen when the
# program runs: `pd.Executor(pd.CPUPlace())` or `pd.Executor(pd.GPUPlace(0))`. In
# **paddle_nb** every tensor the run allocates lives on that place, and every byte is
# counted per place. **PaddlePaddle** makes exceptions even in a GPU run: an op with
# `force_cpu=True` (`fill_constant`, `less_than`, ...) writes its output on the CPU, and
# the step counters and loop conditions that its own loop layers build (with
# `force_cpu=True`) stay there.
# paddle_nb accepts `force_cpu` and keeps the output on the run's place.
#
# > **Optional lab · about 16 min** (the core path is in [README.md](README.md)). Claims
# > say whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see notebook 01).
#
# paddle_nb computes on the CPU with NumPy and on an NVIDIA GPU with CuPy, and each
# kernel is written once for both.
#
# **What you will see**
#
# 1. Places, and the array module (`xp`) each one computes with.
# 2. One kernel, written once against `xp`, run on every place.
# 3. The same training program run on every place this machine has.
# 4. The results agree across places (checked when there is a GPU).
# 5. Memory per place: `pd.memory_stats()`, the scopes drawn by `pd.viz.scope_tree`
#    with their bytes per place, and a scope's bytes given back when it is destroyed.
# 6. Three exercises, with hidden solutions.
#
# Where there is no GPU (CuPy not installed, or no CUDA device), the notebook runs on the
# CPU only and says so; nothing fails. Each code cell checks itself with `assert` lines.

# %%
import inspect
import time

import numpy as np
import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (here, scope trees)
from paddle_nb.ops.loss import softmax

cpu = pd.CPUPlace()

# %% [markdown]
# ## 1. Places
#
# A place names a device. `CPUPlace()` is the host; `GPUPlace(i)` is CUDA device `i`.
# Places compare equal by kind and device id, so they can key dictionaries. Making a
# `GPUPlace` always works; *using* one needs CuPy and a device, and without them raises
# `pd.errors.PlaceUnavailableError` with a message saying what is missing. We catch it
# here to decide which places to use.

# %%
places = [cpu]
if pd.gpu_available():
    places.append(pd.GPUPlace(0))
    import cupy
    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"A GPU is available ({device}): this notebook runs on {places}.")
else:
    try:
        pd.GPUPlace(0).xp
    except pd.errors.PlaceUnavailableError as err:
        reason = str(err)
    print("There is no GPU here, so this notebook runs on the CPU only.")
    print("What paddle_nb says when a GPUPlace is used:\n   ", reason)

for place in places:
    print(f"{place!r:12} kind={place.kind!r:6} device_id={place.device_id}  "
          f"computes with {place.xp.__name__}")

assert pd.CPUPlace() == cpu and pd.GPUPlace(0) == pd.GPUPlace(0)
assert pd.GPUPlace(0) != cpu and pd.GPUPlace(0) != pd.GPUPlace(1)
assert len({pd.GPUPlace(0), pd.GPUPlace(0), cpu}) == 2        # usable as dict keys
assert cpu.xp is np and places[0] == cpu

# %% [markdown]
# ## 2. A kernel is written once
#
# CuPy copies NumPy's interface, so a function that receives the array module as an
# argument runs on either device. Every kernel in paddle_nb is written that way: it gets
# `ctx.xp` (the place's module) and arrays of that module, and never asks where it runs.
# Here is the softmax that the `softmax` op calls:

# %%
print(inspect.getsource(softmax))
print("the op:", pd.registry.describe("softmax").splitlines()[0])

# %% [markdown]
# A tensor set on a place holds an array of that place's module: a `numpy.ndarray` on the
# CPU, a `cupy.ndarray` in GPU memory on a GPU. The same function computes on each;
# `numpy()` copies the result back to the host.

# %%
logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 10.0]], "float32")
on_host = {}
for place in places:
    t = pd.LoDTensor()
    t.set(logits, place)
    array = t.array()                            # the held array itself, on the place
    with place.device_guard():
        result = softmax(place.xp, array, -1)
    out = pd.LoDTensor()
    out.set(result, place)
    on_host[place] = out.numpy()                 # a host copy
    print(f"{place!r:12} holds a {type(array).__module__}.{type(array).__name__}; "
          f"softmax row 0 = {on_host[place][0].round(4)}")

for place in places:
    assert np.allclose(on_host[place], on_host[cpu], atol=1e-6)
assert np.allclose(on_host[cpu].sum(axis=1), 1.0)

# %% [markdown]
# ## 3. The same program on every place
#
# One program, built once: a two-layer network that learns a smooth function of 16
# inputs, trained with Adam. For each place we make an executor on that place with the
# same seed (**paddle_nb** draws the initial weights on the host from the seed, then
# moves them to the place, so they are the same everywhere; **PaddlePaddle**'s CPU and GPU
# random kernels are different generators, so there the same seed gives different
# weights on a CPU and on a GPU), a scope, and we run the startup program and 60
# training steps on the same minibatches. Feeds are NumPy arrays; the executor moves them
# to the place. Fetched values always come back as NumPy arrays.

# %%
main, startup = pd.Program(), pd.Program()
with pd.program_guard(main, startup):
    x = pd.layers.data("x", shape=[16])
    y = pd.layers.data("y", shape=[1])
    h = pd.layers.fc(x, 64, act="tanh")
    prediction = pd.layers.fc(h, 1)
    test = main.clone(for_test=True)             # the forward pass, to predict with
    loss = pd.layers.mean(pd.layers.square_error_cost(prediction, y))
    pd.optimizer.Adam(learning_rate=0.01).minimize(loss)

rng = np.random.default_rng(0)
direction = rng.normal(size=(16, 1)).astype("float32")
X = rng.normal(size=(2048, 16)).astype("float32")
Y = np.sin(X @ direction / 4).astype("float32")
X_new = rng.normal(size=(512, 16)).astype("float32")      # for predictions after training
STEPS, BATCH = 60, 64

runs = {}
for place in places:
    exe = pd.Executor(place, seed=0)
    scope = pd.Scope(label=f"trained on {place!r}")
    start = time.perf_counter()
    exe.run(startup, scope=scope)
    losses = []
    for step in range(STEPS):
        rows = slice(step * BATCH % len(X), step * BATCH % len(X) + BATCH)
        (value,) = exe.run(main, feed={"x": X[rows], "y": Y[rows]}, fetch_list=[loss],
                           scope=scope)
        losses.append(value.item())
    (predicted,) = exe.run(test, feed={"x": X_new}, fetch_list=[prediction], scope=scope)
    seconds = time.perf_counter() - start
    runs[place] = dict(exe=exe, scope=scope, losses=losses, predicted=predicted,
                       seconds=seconds)

print(f"{'place':12} {'first loss':>10} {'last loss':>10} {'seconds':>8}")
for place, run in runs.items():
    print(f"{place!r:12} {run['losses'][0]:10.5f} {run['losses'][-1]:10.5f} "
          f"{run['seconds']:8.2f}")

for place, run in runs.items():
    w = run["scope"].find_var("fc_0.w_0").get_tensor()
    print(f"in the {place!r} scope, fc_0.w_0 lives on {w.place!r} "
          f"as a {type(w.array()).__module__}.{type(w.array()).__name__}")
    assert w.place == place
    assert isinstance(run["predicted"], np.ndarray)           # fetched: a host copy
    assert run["losses"][-1] < run["losses"][0] / 3

# %% [markdown]
# On a program this small a GPU is usually not faster: each op is a tiny kernel launch,
# and the time goes to Python and to launching, not to arithmetic. The GPU pays off when the
# arrays are large (exercise 3).

# %% [markdown]
# ## 4. The results agree
#
# The same ops, the same initial weights, the same data: the numbers must agree across
# places up to the rounding of 32-bit floats (GPU libraries may sum in another order).

# %%
if len(places) == 1:
    print("Only the CPU ran here: there is nothing to compare. With CuPy and a CUDA device "
          "this cell compares the CPU's results with the GPU's.")
for place in places[1:]:
    a, b = runs[cpu], runs[place]
    print(f"CPU against {place!r}:")
    print(f"    losses:      largest difference {np.abs(np.subtract(a['losses'], b['losses'])).max():.2e}")
    print(f"    predictions: largest difference {np.abs(a['predicted'] - b['predicted']).max():.2e}")
    np.testing.assert_allclose(a["losses"][0], b["losses"][0], rtol=1e-5)
    np.testing.assert_allclose(a["losses"], b["losses"], rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(a["predicted"], b["predicted"], rtol=1e-3, atol=1e-4)
    for name in a["scope"].local_var_names():
        np.testing.assert_allclose(a["scope"].find_var(name).get_tensor().numpy(),
                                   b["scope"].find_var(name).get_tensor().numpy(),
                                   rtol=1e-3, atol=1e-4, err_msg=name)
    print("    parameters and Adam's state: all close")

assert set(runs) == set(places)

# %% [markdown]
# ## 5. Memory per place
#
# Every allocation and release of a tensor is counted under its place:
# `pd.memory_stats(place)` gives the bytes `in_use` now, the `peak`, and the number of
# `allocations` and `releases`; `pd.memory_stats()` gives all places seen. These count
# paddle_nb's tensors, not what the allocator underneath keeps in reserve (CuPy holds
# freed GPU memory in a pool for reuse). The temporaries that the executor's fast path
# keeps outside any scope (notebook 06) are not tensors: they add no allocations, and
# they are gone when the run ends, but the fast path reports the most bytes it held
# during a run, so they do show in `peak`.

# %%
print(f"{'place':12} {'in use (B)':>11} {'peak (B)':>10} {'allocations':>12} {'releases':>9}")
for place, stats in pd.memory_stats().items():
    print(f"{place!r:12} {stats['in_use']:11} {stats['peak']:10} {stats['allocations']:12} "
          f"{stats['releases']:9}")


def scope_bytes(scope):
    """{place: bytes} of the tensors held by the variables of ``scope``."""
    held = {}
    for name in scope.local_var_names():
        t = scope.find_var(name).get_tensor()
        if t.is_allocated():
            held[t.place] = held.get(t.place, 0) + t.nbytes
    return held


for place, run in runs.items():
    print(f"the trained scope on {place!r} holds {scope_bytes(run['scope'])}")
    assert scope_bytes(run["scope"]) == {place: scope_bytes(runs[cpu]["scope"])[cpu]}
    assert pd.memory_stats(place)["in_use"] >= scope_bytes(run["scope"])[place]

# %% [markdown]
# `pd.viz.scope_tree(scope)` draws the same count. The table at its top sums the bytes
# of the scope and its kids per place; each variable's row names the place its tensor
# lives on. Below, one tree per trained scope: the parameters, Adam's two moments per
# parameter (as big as the parameter) and its small beta powers and learning rate, all
# on the executor's place.

# %%
from IPython.display import display

for place, run in runs.items():
    display(pd.viz.scope_tree(run["scope"]))

# %% [markdown]
# Parameters and optimizer state live in the scope, on the executor's place. Destroying
# a scope destroys its variables, and their bytes go back to their place. A fresh scope
# initialized by the startup program shows it:

# %%
for place, run in runs.items():
    before = pd.memory_stats(place)["in_use"]
    scratch = pd.Scope()
    run["exe"].run(startup, scope=scratch)
    held = scope_bytes(scratch)[place]
    during = pd.memory_stats(place)["in_use"]
    scratch.destroy()
    after = pd.memory_stats(place)["in_use"]
    print(f"{place!r:12} before {before:7} B | with the scope {during:7} B "
          f"(+{during - before}) | after destroying it {after:7} B")
    assert during - before == held and after == before

# %% [markdown]
# ## Summary
#
# - A program does not name a device; the executor's place does. In paddle_nb every
#   tensor a run allocates lives on that place, parameters and optimizer state included
#   (PaddlePaddle keeps `force_cpu` outputs and loop counters on the CPU).
# - Kernels are written once against `xp`, NumPy's interface, which CuPy shares.
# - Feeds may be NumPy arrays on any place; fetched values are NumPy arrays (host copies).
# - In paddle_nb the same program, seed and data give the same numbers on every place, up
#   to float32 rounding (in PaddlePaddle the random initial weights differ between CPU and
#   GPU).
# - `pd.memory_stats()` counts bytes per place; destroying a scope gives them back.
# - Without CuPy or a device, `pd.gpu_available()` is False, and a GPUPlace raises a
#   clear `PlaceUnavailableError` when used, so a notebook can fall back to the CPU.
#
# ## Exercises
#
# Try each one in the empty cell below it, then open the solution. The solutions are run,
# after the notebook, by the project's tests.
#
# **1. Move a trained model.** Take the parameters trained on the CPU (`runs[cpu]
# ["scope"]`) and copy them into a new scope on `target`, the last place in `places` (the
# GPU when there is one), with `tensor.set(array, target)`. Run the `test` program there
# with an executor on `target` and check the predictions against `runs[cpu]["predicted"]`.

# %%
# Exercise 1: your answer here
target = places[-1]

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# target = places[-1]
# moved = pd.Scope()
# for param in test.global_block().all_parameters():
#     host = runs[cpu]["scope"].find_var(param.name).get_tensor().numpy()
#     moved.var(param.name).get_tensor().set(host, target)
# (on_target,) = pd.Executor(target).run(test, feed={"x": X_new}, fetch_list=[prediction],
#                                        scope=moved)
# print("moved to", target, "| largest difference:",
#       np.abs(on_target - runs[cpu]["predicted"]).max())
# assert all(moved.find_var(n).get_tensor().place == target for n in moved.local_var_names())
# np.testing.assert_allclose(on_target, runs[cpu]["predicted"], rtol=1e-4, atol=1e-5)
# ```
#
# </details>
#
# **2. Predict the bytes.** From the program alone, before running anything, compute how
# many bytes the startup program allocates: the sum over the persistable variables of
# `main`'s global block of (number of elements × bytes per element). Check the prediction
# against `pd.memory_stats(place)["in_use"]` before and after running `startup` in a fresh
# scope on each place. How much of it is Adam's state?

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# persistables = [v for v in main.global_block().vars.values() if v.persistable]
# predicted_bytes = sum(int(np.prod(v.shape)) * v.dtype.itemsize for v in persistables)
# params = {p.name for p in main.global_block().all_parameters()}
# param_bytes = sum(int(np.prod(v.shape)) * v.dtype.itemsize for v in persistables
#                   if v.name in params)
# print(f"predicted: {predicted_bytes} B, of which parameters {param_bytes} B and "
#       f"optimizer state {predicted_bytes - param_bytes} B")
# for place, run in runs.items():
#     before = pd.memory_stats(place)["in_use"]
#     with pd.Scope() as fresh:
#         run["exe"].run(startup, scope=fresh)
#         measured = pd.memory_stats(place)["in_use"] - before
#     print(f"{place!r}: measured {measured} B")
#     assert measured == predicted_bytes
# ```
#
# </details>
#
# **3. When does a GPU pay off?** Time one run of `test` (the forward pass) on each place
# for 1,000 and for 200,000 rows of input (run each once first, to leave out one-time
# costs), and check that every place gives the same predictions as the CPU. Without a
# GPU, you will see only how the CPU scales.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# for rows in [1_000, 200_000]:
#     data = np.random.default_rng(1).normal(size=(rows, 16)).astype("float32")
#     outputs = {}
#     for place, run in runs.items():
#         run["exe"].run(test, feed={"x": data}, fetch_list=[prediction], scope=run["scope"])
#         start = time.perf_counter()
#         (outputs[place],) = run["exe"].run(test, feed={"x": data}, fetch_list=[prediction],
#                                            scope=run["scope"])
#         print(f"{rows:7} rows on {place!r:12} {1e3 * (time.perf_counter() - start):8.2f} ms")
#     for place in places:
#         np.testing.assert_allclose(outputs[place], outputs[cpu], rtol=1e-3, atol=1e-4)
# ```
#
# </details>
