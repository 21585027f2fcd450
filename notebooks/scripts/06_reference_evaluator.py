# %% [markdown]
# # 06 · What running a block means: the reference evaluator and the Executor
#
# > The `Block` class takes a `BlockDesc` as input, and provide `Run` and `InferShape`
# > functions. [...] Block's Run method will run its operators sequentially.
# > (*Design Doc: Block and Scope*)
#
# paddle_nb has two programs that run a block. The **reference evaluator** says what
# running means in about thirty lines and nothing more. The **Executor** means the same
# thing and adds what makes it usable: checked feeds and fetches, a plan prepared once
# per program, temporaries released as soon as they are dead and kept in a plain list
# unless control flow needs them as Variables of a kid scope, and a record of the run for
# whoever asks. This notebook reads the first and takes the second apart.
#
# **What you will see**
#
# 1. The reference evaluator's source, line by line, and a run of it.
# 2. The Executor's path `run → run_block → run_op`, and `run` done by hand.
# 3. Where a run keeps its values: an env (a list) or cells (Variables in a scope), and
#    watching, which changes neither the values nor where they are kept.
# 4. A `RunRecord`: the ops with their times, the ordered lifecycle events (a temporary is
#    allocated, then freed right after its last use), and the scope snapshot; replayed op
#    by op with `pd.viz.run_replay`, and its bytes drawn by `pd.viz.memory_timeline`.
# 5. Plans, prepared once and cached per program *version*.
# 6. The reference and the Executor agree, also on a training program.
# 7. Three exercises, with hidden solutions.
#
# Each code cell checks itself with `assert` lines, so a wrong result stops the notebook.
#
# > **Core path, notebook 2b of 5: sections 1 and 2 only · about 10 min** (read them
# > right after notebook 02, before 03: 03 and 04 run blocks inside blocks). Sections 3 to 7
# > are an optional lab on the Executor's machinery (about 15 min).
# > The tour's table, and how times are counted: [README.md](README.md).
# > Claims say whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see
# > notebook 01).

# %%
import inspect
import time

import numpy as np
import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (here, a run replay and a memory timeline)
from paddle_nb.executor import evaluate

cpu = pd.CPUPlace()

# %% [markdown]
# The program for the whole notebook: two fully connected layers and a softmax. The
# parameters' initializers go to a startup program, so `main` holds only the six
# computing ops. We run `startup` once in `scope`; from then on `scope` holds the
# parameters and every later run reads them there.

# %%
main, startup = pd.Program(), pd.Program()
with pd.program_guard(main, startup):
    x = pd.layers.data("x", shape=[3])
    hidden = pd.layers.fc(x, 4, act="relu")
    out = pd.layers.softmax(pd.layers.fc(hidden, 2))

exe = pd.Executor(cpu, seed=1)
scope = pd.Scope()
exe.run(startup, scope=scope)
xs = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], "float32")

print(main)
print("the scope:", scope.local_var_names())
assert [op.type for op in main.global_block().ops] == [
    "mul", "elementwise_add", "relu", "mul", "elementwise_add", "softmax"]

# %% [markdown]
# ## 1. The reference evaluator
#
# `pd.executor.evaluate(program, scope, block_idx=0)` is the whole meaning of "run a
# block in a scope". Here is its source, as the installed package has it:

# %%
source = inspect.getsource(evaluate)
for number, line in enumerate(source.splitlines(), start=1):
    print(f"{number:2}  {line}")

# %% [markdown]
# Line by line:
#
# - **`ctx = ctx or KernelContext(CPUPlace())`**. A kernel receives a *context* besides
#   its arrays: the place, the array module `xp` of that place (`numpy` here, `cupy` on a
#   GPU), and a random generator. Kernels never ask where they run; the context tells them.
# - **`block = program.block(block_idx)`**. The block to run, by index; sub-blocks are run
#   by the same function with another index.
# - **`for name, var in block.vars.items(): ... scope.var(name)`**. *Design Doc: Block and Scope*'s first
#   step, `CreateVariables(scope)`: every variable the block declares is *realized* in the
#   scope, except a persistable one (a parameter) that the scope or an ancestor already
#   holds. Realizing first means a sub-block run in a kid scope finds these variables by
#   climbing to its parent, and writes them there.
# - **`def value(name)`**. Reading an input: find the variable through the scope chain
#   (the kid first, then its parents) and take its tensor's array.
# - **`for op in block.ops:`** and **`if program.initializes_once(op) ...`**.
#   That document's `Run`: the ops, in order. The only exception is the preamble (the
#   parameter initializers put at the head of the global block when there is no startup
#   program): an initializer whose parameter already has a value in the scope is skipped,
#   so evaluating twice never re-initializes a trained parameter. That rule is
#   **paddle_nb**'s ([design note](../docs/design_notes.md#the-preamble)): the design
#   prepends initializers without saying how often they run, and PaddlePaddle puts them
#   in a startup program instead.
# - **`opdef = registry.get(op.type)`**. The op's one declaration: its slots, its
#   attributes with defaults, its kernel.
# - **`attrs = opdef.complete_attrs(op.attrs, strict=False)`**. The attributes written in
#   the OpDesc, with defaults filled in for the ones left out.
# - **`if opdef.raw:`**. Control-flow ops (and feed, fetch, the LoD ops) get the scope
#   itself, and a callback, `run_block(idx, kid_scope)`, which calls `evaluate` again on
#   a sub-block. This is how an op runs a block without knowing any executor.
# - **`args.append(...)`**. One argument per input slot, in declaration order: a list of
#   arrays for a duplicable slot, one array otherwise, `None` for an empty optional slot.
# - **`result = opdef.kernel(ctx, *args, **attrs)`**. The computation: arrays in, arrays
#   out. The kernel does not see the scope.
# - **`results = ...` and the last loop**. One result per output slot; each array is put
#   into the tensor of the output's name (`hold` takes the array as the tensor's memory
#   on the place), found through the scope chain or created in this scope.
#
# What it leaves out is as telling: no checks of the feeds, no plan, no release of
# temporaries, no record. (The project's tests keep this walk-through honest: they fail
# if one of the lines explained here leaves the source.)

# %% [markdown]
# Running it: we make a kid scope of `scope` (the parameters are in the parent), put the
# input `x` in the kid, and evaluate. Every variable of the block is then in the kid, and
# every temporary is still allocated: the reference frees nothing until the kid scope is
# destroyed.

# %%
kid = scope.new_scope(label="reference")
kid.var("x").get_tensor().set(xs, cpu)
evaluate(main, kid)

reference_out = kid.find_var(out.name).get_tensor().numpy()
print("out =", reference_out.tolist())
print(f"{'variable':18} {'allocated':9} bytes")
for name in kid.local_var_names():
    t = kid.find_local_var(name).get_tensor()
    print(f"{name:18} {str(t.is_allocated()):9} {t.nbytes}")
print("parameters found in:", "the parent" if kid.find_local_var("fc_0.w_0") is None else "the kid")

assert all(kid.find_local_var(n).get_tensor().is_allocated() for n in kid.local_var_names())
assert kid.find_local_var("fc_0.w_0") is None
assert np.allclose(reference_out.sum(axis=1), 1.0)
kid.destroy()

# %% [markdown]
# ## 2. The Executor: run → run_block → run_op
#
# The Executor's module docstring draws its path:

# %%
print(pd.executor.executor.__doc__)

# %% [markdown]
# On cells, `exe.run(program, feed, fetch_list, scope)` does six things: (0) check the
# feeds and fetches against the program, (1) make a kid scope of `scope` labelled `"run"`,
# (2) put the feeds there, (3) call `run_block` on the global block, (4) copy the fetched
# values out, and (5) destroy the kid scope. (On an env, section 3, a list stands for the
# kid scope.) (A kid scope per run, destroyed at the end, is what
# **PaddlePaddle** 1.x's `Executor::Run` does with `create_local_scope`; paddle_nb does the
# same.) `run_block(program, block_idx, scope, keep)` runs one block's ops in a
# scope; the `run_op` of the drawing is the body of its loop: gather the input arrays,
# call the kernel, store the outputs, release the dead temporaries. The same steps by
# hand give the same numbers as `run`:

# %%
(from_run,) = exe.run(main, feed={"x": xs}, fetch_list=[out], scope=scope)

run_scope = scope.new_scope(label="by hand")              # 1. a kid scope for the run
run_scope.var("x").get_tensor().set(xs, cpu)               # 2. the feed
exe.run_block(main, 0, run_scope, keep=(out.name,))        # 3. the block; keep the fetch
by_hand = run_scope.find_var(out.name).get_tensor().numpy()  # 4. the fetch, a host copy
left = {n: run_scope.find_local_var(n).get_tensor().is_allocated()
        for n in run_scope.local_var_names()}
run_scope.destroy()                                        # 5. the minibatch is done

print("allocated in the run scope at the end:", left)
print("the same as exe.run:", np.array_equal(by_hand, from_run))
assert np.array_equal(by_hand, from_run) and np.array_equal(from_run, reference_out)
assert left == {n: n == out.name for n in left}    # only the kept fetch target survived
assert scope.kids == []


# %% [markdown]
# The last assertion but one is the Executor's **eager release**: every temporary,
# including the fed `x`, was freed by the op that used it last, so only the variable we
# asked to keep still had memory when `run_block` returned. The reference kept all seven.

# %% [markdown]
# ## 3. One value store for a run, one interpreter, and watching
#
# Above, `run_block` realized a `Variable` and a `LoDTensor` for every temporary in the
# scope it was given: a block run in a scope of yours keeps its values in **cells**, the
# Variables of that scope, so that you can read them after. `run` does not need that:
# nothing outside can see a run's temporaries before they are gone. So `run` keeps the
# global block's values in an **env** (`executor/interpreter.py`): a plain Python list
# indexed like the plan's names, each kernel bound to its attributes in advance, a
# temporary dropped after its last use. Only the persistable variables the block wrote go
# back to the scope, and only when every op has succeeded. A control-flow op, which reads
# its variables through scopes, sees the env through a `run` kid scope
# (`executor/env_scope.py`), with Variables only for the names it touches.
#
# Watching does not change the store. A listener (`exe.subscribe`) makes the executor hand
# the interpreter an observer, the run's recorder, whose hooks note each op's start and
# end, each value made and each temporary released; the record is written from those notes.
# `pd.memory_stats`, which counts the allocations of tensors, shows it: a watched run on an
# env makes no tensor for its temporaries, a block run on cells makes one for each.

# %%
def allocations_of_one_run():
    before = pd.memory_stats(cpu)["allocations"]
    (value,) = exe.run(main, feed={"x": xs}, fetch_list=[out], scope=scope)
    return value, pd.memory_stats(cpu)["allocations"] - before


def allocations_on_cells():
    before = pd.memory_stats(cpu)["allocations"]
    kid = scope.new_scope(label="by hand")              # as in section 2
    kid.var("x").get_tensor().set(xs, cpu)
    exe.run_block(main, 0, kid, keep=(out.name,))
    value = kid.find_var(out.name).get_tensor().numpy()
    kid.destroy()
    return value, pd.memory_stats(cpu)["allocations"] - before


def seconds_per_run(run=allocations_of_one_run, n=300):
    start = time.perf_counter()
    for _ in range(n):
        run()
    return (time.perf_counter() - start) / n


env_value, env_allocations = allocations_of_one_run()
env_seconds = seconds_per_run()

records = []
unsubscribe = exe.subscribe(records.append)          # now someone watches
watched_value, watched_allocations = allocations_of_one_run()
watched_seconds = seconds_per_run()
unsubscribe()

cells_value, cells_allocations = allocations_on_cells()     # Variables in a scope of yours
cells_seconds = seconds_per_run(allocations_on_cells)

print(f"{'run':12} {'tensor allocations':>18} {'µs per run':>11}")
for name, allocations, seconds in [("env", env_allocations, env_seconds),
                                   ("env, watched", watched_allocations, watched_seconds),
                                   ("cells", cells_allocations, cells_seconds)]:
    print(f"{name:12} {allocations:18} {1e6 * seconds:11.0f}")
print("same values:", np.array_equal(env_value, watched_value) and
      np.array_equal(env_value, cells_value))

assert np.array_equal(env_value, watched_value) and np.array_equal(env_value, cells_value)
assert env_allocations == 0 and watched_allocations == 0
assert cells_allocations == 7                     # x and the six op outputs
assert len(records) == 1 + 300 and exe.listeners == []

# %% [markdown]
# The values are the same to the last bit. Cells cost a Variable and a tensor per value;
# watching costs the hooks' notes and the record itself (on a program this small, where
# each op takes a microsecond or two, that is most of the time). The project's executor tests check that every form
# (the env's interpreted, compiled and watched runs, cells, the reference) gives the same
# results and fails in the same way.

# %% [markdown]
# ## 4. A RunRecord
#
# A listener receives one `RunRecord` per run: plain data, nothing that keeps the run's
# scopes alive.
#
# - `record.ops`: an `OpRecord` per op that ran: block, index, type, seconds, and whether
#   it was skipped (a preamble initializer whose parameter already existed).
# - `record.events`: the lifecycle events of the run in order, each a tuple
#   `(position in record.ops or -1, kind, scope id, variable name, bytes, place)`; `-1`
#   means before the first op (the feed, and realizing the block's variables). A run
#   writes the events Variables in a run scope would have, though it made none.
# - `record.scopes`: a snapshot of the user's scope and everything under it, taken just
#   before the run scope was destroyed: each variable's state (`created`, `typed`,
#   `allocated`, `freed`), shape, dtype, place and bytes.
#
# We take the first record from above and print the ops with their times:

# %%
record = records[0]
print(f"place {record.place}, {1e6 * record.seconds:.0f} µs in all, failed: {record.failed}")
print(f"{'block':>5} {'#':>2}  {'op':16} {'µs':>6}")
for op in record.ops:
    print(f"{op.block:5} {op.index:2}  {op.type:16} {1e6 * op.seconds:6.1f}")

assert [op.type for op in record.ops] == [op.type for op in main.global_block().ops[:6]]
assert all(op.seconds > 0 and not op.skipped for op in record.ops)


# %% [markdown]
# The events, in order. Before the first op (`-1`), the feed allocates `x`, and the block's
# variables are realized in the run scope (`var_created`, then `var_typed`: an empty
# tensor, no memory). Then each op allocates its output and frees whatever input it was
# the last to read:

# %%
def op_label(position):
    return "before" if position < 0 else f"#{position} {record.ops[position].type}"


for position, kind, scope_id, name, nbytes, place in record.events:
    print(f"{op_label(position):20} {kind:17} {name:16} {nbytes:4} B")

# %% [markdown]
# Follow one temporary, `fc_0.tmp_0` (the product `x @ W` of the first layer). It is
# created and typed before the first op, allocated by op #0 `mul`, which writes it, and
# freed by op #1 `elementwise_add`, its only reader. The bytes alive at any moment are
# the allocations minus the frees so far; with eager release the peak stays below the sum
# of all temporaries.
#
# **Predict, then run.** The loop below counts the bytes alive *after* each op (between
# ops). Inside an op there is a moment when its inputs and its new output are both alive,
# before the dead inputs are freed. Is the peak at that moment higher? By how much? (The
# second count, `inside`, answers it.)

# %%
life = [(op_label(p), kind) for p, kind, _, name, *_ in record.events if name == "fc_0.tmp_0"]
print("fc_0.tmp_0:", life)

live, peak, inside, total = 0, 0, 0, 0
print(f"\n{'after':20} {'live bytes':>10} {'during the op':>14}")
for position in range(-1, len(record.ops)):
    here = [(kind, n) for p, kind, _, _, n, _ in record.events if p == position]
    allocated = sum(n for kind, n in here if kind == "tensor_allocated")
    freed = sum(n for kind, n in here if kind == "tensor_freed")
    inside = max(inside, live + allocated)       # the op's own moment: inputs and output
    live, total = live + allocated - freed, total + allocated
    peak = max(peak, live)
    print(f"{op_label(position):20} {live:10} {live + freed:14}")
print(f"peak between ops {peak} B; inside an op {inside} B; the run allocated {total} B in all")

assert life == [("before", "var_created"), ("before", "var_typed"),
                ("#0 mul", "tensor_allocated"), ("#1 elementwise_add", "tensor_freed")]
assert live == 16 and peak == 32 and total == 24 + 3 * 32 + 3 * 16   # x, 3×[2, 4], 3×[2, 2]
assert inside > peak


# %% [markdown]
# The scope snapshot: the user's scope with its four parameters, and under it the run
# scope as it stood just before it was destroyed. Every temporary is `freed` except the
# fetch target, which the executor kept for the fetch.

# %%
def show(snapshot, depth=0):
    print("    " * depth + f"scope {snapshot.id} ({snapshot.label or 'the user scope'}): "
          f"{snapshot.nbytes()} B")
    for v in snapshot.vars:
        shape = "" if v.shape is None else f"{v.dtype}{list(v.shape)} {v.place} {v.nbytes} B"
        print("    " * depth + f"    {v.name:16} {v.state:9} {shape}")
    for kid in snapshot.kids:
        show(kid, depth + 1)


show(record.scopes)
run_snapshot = record.scopes.kids[0]
states = {v.name: v.state for v in run_snapshot.vars}

assert run_snapshot.label == "run" and record.scopes.id == scope.id
assert states.pop(out.name) == "allocated" and set(states.values()) == {"freed"}
assert all(v.state == "allocated" for v in record.scopes.vars)
assert scope.kids == []                  # the run scope itself is gone

# %% [markdown]
# ### The run, replayed
#
# `pd.viz.run_replay(record)` puts the record under a slider with one position per
# moment of the run: the start (the feed in, the temporaries created and typed), one
# position after each op, and the end (the run scope destroyed). At each position it
# shows the op, what it read and wrote and in which scope it found each name, and every
# variable's state just then. Step through it and follow `fc_0.tmp_0`: *typed* at the
# start, *allocated* by `#0 mul`, *freed* by `#1 elementwise_add`. It starts here on
# position 1, right after `mul`; the slider works in a saved notebook too.

# %%
replay = pd.viz.run_replay(record)
replay.position = 1                      # right after op #0; drag the slider
assert len(replay.positions) == len(record.ops) + 2     # start, one per op, end
assert replay.shown["op"]["type"] == "mul"
replay

# %% [markdown]
# `pd.viz.memory_timeline(record)` draws the bytes in use on each place at each of
# those positions: ▲ an allocation, ▼ a release. It counts every scope of the run,
# the user's too, so the curve starts at the parameters' bytes plus the fed `x`, and its
# peak is the parameters plus the 32 bytes of live temporaries counted above: a peak
# **between ops**. The moment inside an op (the `inside` count above) is not drawn; add
# its extra bytes to the parameters for the true peak. Hover a column to see what
# changed there.

# %%
timeline = pd.viz.memory_timeline(record)
top = timeline.peak[repr(cpu)]                  # {"nbytes": ..., "pos": ...}
parameters = sum(v.nbytes for v in record.scopes.vars)
print(f"parameters {parameters} B; the peak, {top['nbytes']} B, comes right after "
      f"op #{top['pos'] - 1} {record.ops[top['pos'] - 1].type}")

assert top["nbytes"] == parameters + peak
assert timeline.series[repr(cpu)][0] == parameters + 24           # + the fed x
timeline


# %% [markdown]
# ## 5. Plans, cached per program version
#
# The reference looks up every op's declaration and completes its attributes on every
# run. The Executor does that once: a `BlockPlan` holds, for each op, its kernel, its
# completed attributes, the positions of its inputs and outputs in one list of names, and
# the temporaries whose last use it is. Plans are cached under the program's identity and
# its `version`, a counter that every change to the program increases, together with the
# block and the names to keep; `exe.cached_plans()` lists them.

# %%
def cached():
    """(program, version, block, names kept) of each plan the executor holds."""
    names = {id(main): "main", id(startup): "startup"}
    return [(names.get(id(program), "other"), version, block, keep)
            for (program, version, block, keep) in exe.cached_plans()]


print("main's version:", main.version)
print("cached plans:", cached())

with pd.program_guard(main, startup):
    doubled = pd.layers.scale(out, scale=2.0)            # the program changes ...
print("\nafter appending a scale op, main's version:", main.version)
for attempt in ["new plan", "cached plan"]:
    start = time.perf_counter()
    (twice,) = exe.run(main, feed={"x": xs}, fetch_list=[doubled], scope=scope)
    print(f"a run with a {attempt}: {1e6 * (time.perf_counter() - start):.0f} µs")
print("cached plans:", cached())                         # ... so a new plan was made

assert ("main", main.version, 0, (doubled.name,)) in cached()
assert np.allclose(twice, 2 * from_run)

# %% [markdown]
# ## 6. The reference and the Executor agree
#
# The forward program agreed above. A training program is a harder test: backward ops,
# and `sgd` ops that write the parameters in place, so a difference would grow from step
# to step. We build one, initialize two scopes with the same seed, and take five steps in
# each, the Executor in one and the reference evaluator (in a fresh kid scope per step,
# like `run`) in the other. The losses and the trained weights must be the same.

# %%
train, train_startup = pd.Program(), pd.Program()
with pd.program_guard(train, train_startup):
    tx = pd.layers.data("x", shape=[3])
    ty = pd.layers.data("y", shape=[1])
    prediction = pd.layers.fc(pd.layers.fc(tx, 8, act="tanh"), 1)
    loss = pd.layers.mean(pd.layers.square_error_cost(prediction, ty))
    pd.optimizer.SGD(learning_rate=0.1).minimize(loss)

rng = np.random.default_rng(0)
batches = [{"x": rng.normal(size=(16, 3)).astype("float32"),
            "y": rng.normal(size=(16, 1)).astype("float32")} for _ in range(5)]

by_executor, by_reference = pd.Scope(), pd.Scope()
pd.Executor(cpu, seed=7).run(train_startup, scope=by_executor)
pd.Executor(cpu, seed=7).run(train_startup, scope=by_reference)

losses = []
for feed in batches:
    (executor_loss,) = exe.run(train, feed=feed, fetch_list=[loss], scope=by_executor)
    with by_reference.new_scope() as step:
        for name, value in feed.items():
            step.var(name).get_tensor().set(value, cpu)
        evaluate(train, step)
        reference_loss = step.find_var(loss.name).get_tensor().numpy()
    losses.append((executor_loss.item(), reference_loss.item()))

print(f"{len(train.global_block().ops)} ops; losses (executor, reference):")
for a, b in losses:
    print(f"    {a:.6f}  {b:.6f}")
for name in by_executor.local_var_names():
    a = by_executor.find_var(name).get_tensor().numpy()
    b = by_reference.find_var(name).get_tensor().numpy()
    print(f"{name:16} largest difference {np.abs(a - b).max():.1e}")
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)

assert all(np.isclose(a, b, rtol=1e-6) for a, b in losses)
assert losses[-1][0] < losses[0][0]


# %% [markdown]
# ## Summary
#
# - Running a block means: realize its variables in a scope, then for each op, gather the
#   input arrays through the scope chain, call the kernel, and store the outputs. The
#   reference evaluator says exactly that.
# - The Executor adds: checked feeds and fetches, plans cached per program version, eager
#   release of dead temporaries, values in a list unless control flow needs Variables in a
#   kid scope per run, and RunRecords for listeners (watching changes neither values nor
#   where they are kept).
# - A RunRecord holds the ops and their times, the ordered lifecycle events, and a
#   snapshot of the scopes before the run's scope was destroyed.
# - Both give the same numbers, also over several training steps.
#
# ## Exercises
#
# Try each one in the empty cell below it, then open the solution. The solutions are run,
# after the notebook, by the project's tests.
#
# **1. Plan the releases yourself.** Write `last_uses(block, keep, n_ops)` that returns
# `{op index: [names]}`: for each of the block's first `n_ops` ops, the non-persistable
# variables declared in the block whose last use (read or write) is that op, leaving out
# the names in `keep`. Check it against the `tensor_freed` events of `record`, which ran
# the first six ops of `main` (section 5 appended more) and kept `out`.

# %%
# Exercise 1: your answer here
def last_uses(block, keep=(), n_ops=None):
    ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def last_uses(block, keep=(), n_ops=None):
#     last = {}
#     for k, op in enumerate(block.ops[:n_ops]):
#         for name in op.input_arg_names + op.output_arg_names:
#             last[name] = k
#     plan = {}
#     for name, k in last.items():
#         var = block.vars.get(name)
#         if var is not None and not var.persistable and name not in keep:
#             plan.setdefault(k, []).append(name)
#     return plan
#
#
# mine = {k: sorted(v) for k, v in last_uses(main.global_block(), (out.name,), n_ops=6).items()}
# freed = {}
# for position, kind, _, name, *_ in record.events:
#     if kind == "tensor_freed":
#         freed.setdefault(position, []).append(name)
# freed = {k: sorted(v) for k, v in freed.items()}
# print(mine)
# assert mine == freed, (mine, freed)
# ```
#
# </details>
#
# **2. Values in the record.** Set `exe.record_values = True`, subscribe a listener, and
# run `main` fetching both `out` and `hidden` (so both are kept). Find the value of
# `hidden` in the record's snapshot and check it against NumPy: `relu(xs @ W + b)` with
# `W` and `b` read from `scope`. Which variables of the run scope have a value in the
# snapshot, and why only those?

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# Only the kept fetch targets: every other temporary was freed before the snapshot.
#
# ```python
# seen = []
# stop = exe.subscribe(seen.append)
# exe.record_values = True
# try:
#     exe.run(main, feed={"x": xs}, fetch_list=[out, hidden], scope=scope)
# finally:
#     exe.record_values = False
#     stop()
#
# run_vars = {v.name: v for v in seen[0].scopes.kids[0].vars}
# with_values = sorted(n for n, v in run_vars.items() if v.value is not None)
# print("with values:", with_values)
# W = scope.find_var("fc_0.w_0").get_tensor().numpy()
# b = scope.find_var("fc_0.b_0").get_tensor().numpy()
# assert with_values == sorted([out.name, hidden.name])
# assert np.allclose(run_vars[hidden.name].value, np.maximum(xs @ W + b, 0), atol=1e-6)
# ```
#
# </details>
#
# **3. A program that changes under the executor.** Append to `main` an op that adds 1 to
# `doubled` (`pd.layers.scale(doubled, bias=1.0)`, inside `pd.program_guard(main,
# startup)`). Before running, predict: does the cached plan of section 5 still serve?
# Run it, then check the new value with the reference evaluator too.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# The program's version changed, so no cached plan matches: the executor prepares a new
# one, and the new op runs.
#
# ```python
# version = main.version
# with pd.program_guard(main, startup):
#     plus_one = pd.layers.scale(doubled, bias=1.0)
# assert main.version > version
# assert not any(version == main.version for _, version, _, _ in cached())
# (value,) = exe.run(main, feed={"x": xs}, fetch_list=[plus_one], scope=scope)
# assert ("main", main.version, 0, (plus_one.name,)) in cached()
#
# with scope.new_scope() as kid:
#     kid.var("x").get_tensor().set(xs, cpu)
#     evaluate(main, kid)
#     assert np.allclose(kid.find_var(plus_one.name).get_tensor().numpy(), value)
# assert np.allclose(value, 2 * from_run + 1)
# print(value)
# ```
#
# </details>
