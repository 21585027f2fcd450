# %% [markdown]
# # 03 · If-else over a minibatch
#
# In C++ an `if` looks at one boolean and runs one branch. In PaddlePaddle the variables
# hold *minibatches*, so the condition holds one boolean per instance, and each branch
# runs on its own share of the rows. This notebook follows *Design Doc: Block and Scope*
# (PaddlePaddle's design document): a branch is a **block** of the program, and each time a block runs it gets a
# fresh **scope**, a kid of the scope that runs the op owning the block.
#
# > **Core path, notebook 3 of 5 · about 17 min, and about 10 more to write section 6.**
# > Optional: section 4 and the *Lab* subsection of 5.
# > The tour's table, and how times are counted: [README.md](README.md).
# > Claims say whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see
# > notebook 01).
#
# **What you will see**
#
# 1. The design doc's C++ program beside its PaddlePaddle twin, and the twin run on six rows.
# 2. The per-instance split: which rows go to which branch, read off the run record's scope
#    tree (`"block 1"` holds the true rows, `"block 2"` the false ones).
# 3. An empty branch: when no row is false, the false block does not run at all.
# 4. `cond`, for one scalar condition (the C++ kind of `if`).
# 5. Gradients through a branch: each instance's gradient flows back through the branch it
#    took, and the backward pass reads the values the forward pass left in the branch's
#    scope.
# 6. Build it yourself: the IfElse by hand, with the reference evaluator of notebook 06.
# 7. Three exercises, with hidden solutions.
#
# `pd.viz.graph` draws the program, branches and all, and `pd.viz.scope_tree` the scopes
# of a run.
#
# Each code cell checks itself with `assert` lines, so a wrong result stops the notebook.
# Run it top to bottom (*Kernel → Restart Kernel and Run All Cells*); it takes a few seconds.

# %% [markdown]
# ## 1 · The design doc's program, twice
#
# <table>
# <tr><th>C++ (the design doc)</th><th>paddle_nb</th></tr>
# <tr><td style="vertical-align: top; text-align: left">
# <pre>
# int x = 10;
# int y = 20;
# int out;
# bool cond = false;
# if (cond) {
#   int z = x + y;
#   out = softmax(z);
# } else {
#   int z = fc(x);
#   out = z;
# }
# </pre>
# </td><td style="vertical-align: top; text-align: left">
# <pre>
# x = pd.layers.data("x", shape=[D])
# y = pd.layers.data("y", shape=[D], append_batch_size=False)
# cond = pd.layers.data("cond", shape=[1], dtype="bool")
# ie = pd.create_ifelseop(inputs=[x], output_num=1)
# with ie.true_block():
#     x = ie.inputs(True, 0)
#     z = x + y
#     ie.set_output(True, 0, pd.layers.softmax(z))
# with ie.false_block():
#     x = ie.inputs(False, 0)
#     z = pd.layers.fc(x, size=D)
#     ie.set_output(False, 0, pd.layers.softmax(z))
# out = ie(cond)
# </pre>
# </td></tr>
# </table>
#
# The left branch computes `softmax(x + y)`, the right one `fc(x)` (the design doc's Python
# version adds a softmax there too; so do we). Two differences matter:
#
# - In C++, `x`, `y` and `cond` are scalars. Here `x` is a minibatch of `N` rows, `cond`
#   holds one boolean per row, and `ie.inputs(True, 0)` is **the rows of input 0 whose
#   condition is true**; `ie.inputs(False, 0)` the others. `y` is shared by every row.
# - In C++, `z` lives in the frame of its braces and is gone at `}`. Here each branch is a
#   block, and when it runs its `z` lives in a scope that survives until the minibatch is
#   done: the backward pass will need it.
#
# The design doc's text has a few typos (`true` for `True`, `set_output(true, ...)` in the false
# block, `out = b(cond)`); the right-hand column fixes them and nothing else.

# %%
import numpy as np
import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (graphs, scope trees)

cpu = pd.CPUPlace()
N, D = 6, 4


def softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


prog = pd.Program()
with pd.program_guard(prog):
    x = pd.layers.data("x", shape=[D], dtype="float64")
    y = pd.layers.data("y", shape=[D], dtype="float64", append_batch_size=False)
    cond = pd.layers.data("cond", shape=[1], dtype="bool")
    ie = pd.create_ifelseop(inputs=[x], output_num=1)
    with ie.true_block():
        x = ie.inputs(True, 0)
        z = x + y
        ie.set_output(True, 0, pd.layers.softmax(z))
    with ie.false_block():
        x = ie.inputs(False, 0)
        z = pd.layers.fc(x, size=D, param_attr="fc.w", bias_attr="fc.b")
        ie.set_output(False, 0, pd.layers.softmax(z))
    out = ie(cond)

print("blocks:", prog.num_blocks)
for op in prog.global_block().ops:
    print(f"  block 0: {op.type:18s}", {k: v for k, v in op.outputs.items() if v})
for b in (1, 2):
    print(f"  block {b} (parent {prog.block(b).parent_idx}):", [op.type for op in prog.block(b).ops])
assert prog.num_blocks == 3
assert [op.type for op in prog.global_block().ops].count("conditional_block") == 2

# %% [markdown]
# Three blocks: the global block and one per branch, each a kid of block 0. The global block
# holds the machinery around the branches:
#
# - `assign` copies the condition into a variable of the IfElse's own
#   (`ifelse_cond_0.tmp_0`), which both branches' splits read;
# - `split_lod_tensor` cuts a tensor into its true rows and its false rows (once for the
#   condition itself, once for `x`);
# - each `conditional_block` op owns one branch block and runs it only if its rows are not
#   empty;
# - each branch ends with an `assign` that copies its result out to a variable of block 0;
# - `merge_lod_tensor` puts the two branches' rows back in the original order.
#
# The graph shows it. Each branch block is a shaded cluster inside block 0, tied to the
# `conditional_block` op that owns it by a bold purple `sub_block` edge (the op has a
# double border: it runs a block). What a branch reads from block 0 comes in on a
# dashed edge, like a C++ lambda's captures: its half of the rows, and `y` into the true
# branch, the parameters `fc.w` and `fc.b` into the false one. What a branch's `assign`
# writes out goes, dashed too, to a variable of block 0 that `merge_lod_tensor` reads.

# %%
pd.viz.graph(prog)

# %% [markdown]
# Run it on six rows and compare with NumPy's `where`, which computes both sides for every
# row and picks one:

# %%
rng = np.random.default_rng(0)
feed = {"x": rng.normal(size=(N, D)), "y": rng.normal(size=D),
        "cond": np.array([True, False, False, True, False, True]).reshape(N, 1)}

exe = pd.Executor(cpu, seed=0)     # seeded: fc's initial weights are the same every run
records = []
exe.subscribe(records.append)           # a listener: it receives each run's RunRecord
scope = pd.Scope()
got, = exe.run(prog, feed=feed, fetch_list=[out], scope=scope)

w, b = (scope.find_var(n).get_tensor().numpy() for n in ("fc.w", "fc.b"))
want = np.where(feed["cond"], softmax(feed["x"] + feed["y"]), softmax(feed["x"] @ w + b))
print(np.round(got, 3))
assert np.allclose(got, want)
assert np.allclose(got.sum(axis=1), 1.0)


# %% [markdown]
# ## 2 · Which rows go where: the scope tree of one run
#
# The run record (the listener's argument) keeps a snapshot of the scope hierarchy taken
# just before the run's scopes were destroyed. Print it: one line per scope, its label, and
# each variable with its shape (`show_scopes`, a helper whose source is folded: click the
# cell's left bar to open it).

# %% jupyter={"source_hidden": true}
def show_scopes(record, skip=()):
    """Print a RunRecord's scope tree: label, then each variable's name and shape."""
    def walk(s, depth):
        names = [f"{v.name}{list(v.shape)}" for v in s.vars
                 if v.shape is not None and not v.name.startswith(skip)]
        print("    " * depth + f"[{s.label or 'user scope'}] " + ", ".join(names))
        for kid in s.kids:
            walk(kid, depth + 1)
    walk(record.scopes, 0)


# %%
record = records[-1]
show_scopes(record)

run, = record.scopes.kids
true_scope, false_scope = run.kids
rows = lambda s: {v.shape[0] for v in s.vars if v.shape}
n_true = int(feed["cond"].sum())
assert run.label == "run"
assert (true_scope.label, false_scope.label) == ("block 1", "block 2")
assert rows(true_scope) == {n_true} and rows(false_scope) == {N - n_true}
print("true rows:", np.flatnonzero(feed["cond"]), " false rows:", np.flatnonzero(~feed["cond"]))

# %% [markdown]
# Read it from the top:
#
# - the **user scope** (the one we passed to `exe.run`) keeps the parameters `fc.w` and
#   `fc.b`: they are persistable and outlive the run;
# - its kid **`run`** holds the run's temporaries: the fed `x`, `y`, `cond`, the split
#   halves (`ifelse_*.tmp_*`, three rows and three rows) and the merged `out`, six rows;
# - **`block 1`** is the scope in which the true branch ran: `z` and the softmax have
#   3 rows, rows 0, 3 and 5 of the minibatch;
# - **`block 2`** is the false branch's scope: the fc output and its softmax, 3 rows, rows
#   1, 2 and 4.
#
# Each branch's scope is a kid of `run` because the `conditional_block` op ran in `run`;
# a name the branch does not declare (`y`, `fc.w`) is found by climbing to the parent
# scopes, just as a C++ block sees the variables of its enclosing braces.
#
# `pd.viz.scope_tree(record)` draws the same snapshot: each scope a box inside its
# parent's, each variable with its state, dtype, shape, place and bytes, and the bytes
# summed per scope. The fed `x` and the merged output have six rows, the halves and the
# branch scopes three. `_generated_var_0` and `_generated_var_1` hold a `StepScopes`
# each: the list in which a `conditional_block` op keeps the scope its branch ran in, for
# the backward pass (section 5).

# %%
pd.viz.scope_tree(record)

# %% [markdown]
# After the run, nothing is left: the run scope and everything below it is destroyed when
# the minibatch completes.

# %%
assert scope.kids == []
print("after the run, the user scope holds:", scope.local_var_names())
assert sorted(scope.local_var_names()) == ["fc.b", "fc.w"]

# %% [markdown]
# ## 3 · Empty branches
#
# If every condition is true, the false branch has no rows. `conditional_block` then skips
# its block entirely: no scope is made, no op of the branch runs, and `merge_lod_tensor`
# takes every row from the true side.

# %%
for flags in ([True] * N, [False] * N):
    c = np.array(flags).reshape(N, 1)
    got, = exe.run(prog, feed={**feed, "cond": c}, fetch_list=[out], scope=scope)
    labels = [s.label for s in records[-1].scopes.kids[0].kids]
    print(f"all {flags[0]!s:5}: branch scopes {labels}")
    assert labels == (["block 1"] if flags[0] else ["block 2"])
    assert np.allclose(got, np.where(c, softmax(feed["x"] + feed["y"]),
                                     softmax(feed["x"] @ w + b)))

# %% [markdown]
# ## 4 · `cond`: one condition for the whole minibatch
#
# The C++ `if` has one boolean. `pd.layers.cond(pred, true_fn, false_fn)` is that kind:
# `pred` holds a single value, both functions are built into blocks, and at run time only
# one of them runs. `select_input` then picks the output of the branch that ran.

# %%
prog_c = pd.Program()
with pd.program_guard(prog_c):
    a = pd.layers.data("a", shape=[3], dtype="float64", append_batch_size=False)
    big = pd.layers.greater_than(pd.layers.reduce_sum(a),
                                 pd.layers.fill_constant([1], "float64", 1.0))
    r = pd.layers.cond(big, lambda: a * 0.5, lambda: a + 1.0)

print([op.type for op in prog_c.global_block().ops])
for value in ([1.0, 2.0, 3.0], [0.1, 0.2, 0.3]):
    av = np.array(value)
    got, = exe.run(prog_c, feed={"a": av}, fetch_list=[r], scope=pd.Scope())
    labels = [s.label for s in records[-1].scopes.kids[0].kids]
    print(f"sum(a) = {av.sum():.1f}: result {got}, branch scopes {labels}")
    assert np.allclose(got, av * 0.5 if av.sum() > 1 else av + 1)
    assert labels == (["block 1"] if av.sum() > 1 else ["block 2"])

# %% [markdown]
# A condition that is not a boolean is refused when the program is built, not when it runs:

# %%
for make in (lambda: pd.layers.IfElse(pd.layers.data("f", shape=[1])),
             lambda: pd.layers.cond(pd.layers.fill_constant([1], "int32", 1), lambda: None)):
    with pd.program_guard(pd.Program()):
        try:
            make()
        except pd.errors.OpBuildError as err:
            print(type(err).__name__ + ":", err)
        else:
            raise AssertionError("a float condition was accepted")

# %% [markdown]
# ## 5 · Gradients through a branch
#
# Backward is a program transformation: `append_backward` adds one grad op per forward op.
# The grad of a `conditional_block` is a `conditional_block_grad` that owns a **grad
# block**, the backward of the branch. At run time it runs that grad block in a new
# scope, a kid of the branch's forward scope: that is how it reads `z` and the softmax the
# forward pass left there. This is why a branch scope is not popped at `}` (**Design**,
# *Design Doc: Block and Scope*).
#
# Whose rule is the `grad` kid scope? **paddle_nb**'s: it keeps a backward's temporaries
# apart from the forward values, so a picture of the run shows which is which, and two grad
# blocks of one branch (as below) each get a scope of their own
# ([design note](../docs/design_notes.md#grad-blocks-run-in-a-grad-kid-scope)).
# **PaddlePaddle**'s `conditional_block_grad` (`conditional_block_op.cc`) runs the grad
# block in the branch's forward scope itself (`exec.Run(..., &cur_scope, ...)` with no new
# scope), so there the gradients sit beside the forward values. Either way the grad ops
# find the forward values by the same name lookup.
#
# Below, `loss = mean(out * out)`. Only false rows pass through the fc, so `fc.w`'s gradient
# comes from them alone; the gradient with respect to `x` (`pd.gradients`) flows through
# each row's own branch. Both are checked against central differences.

# %%
with pd.program_guard(prog):
    loss = pd.layers.mean(out * out)
    gx, = pd.gradients([loss], [prog.global_block().var("x")])
    (_, gw), (_, gb) = pd.append_backward(loss)

print([op.type for op in prog.global_block().ops if "grad" in op.type])
got_loss, got_gx, got_gw = exe.run(prog, feed=feed, fetch_list=[loss, gx, gw], scope=scope)
show_scopes(records[-1], skip=("ifelse", "x", "y", "cond", "mean", "elementwise", "fill", "split"))

# %% [markdown]
# The check, against central differences (`central` and the loss in NumPy, `loss_at`: the
# source is folded):

# %% jupyter={"source_hidden": true}
def central(fn, value, eps=1e-6):
    grad = np.zeros_like(value)
    for i in range(value.size):
        up, down = value.copy(), value.copy()
        up.flat[i] += eps
        down.flat[i] -= eps
        grad.flat[i] = (fn(up) - fn(down)) / (2 * eps)
    return grad


def loss_at(x=feed["x"], w=w):
    o = np.where(feed["cond"], softmax(x + feed["y"]), softmax(x @ w + b))
    return np.mean(o * o)


# %%
assert np.isclose(got_loss, loss_at())
assert np.allclose(got_gw, central(lambda v: loss_at(w=v), w), atol=1e-9)
assert np.allclose(got_gx, central(lambda v: loss_at(x=v), feed["x"]), atol=1e-9)
print("d loss / d fc.w and d loss / d x match central differences")

# %% [markdown]
# ### Frames and scopes over one minibatch
#
# The figure of notebook 01 section 2, now from this real run: `pd.viz.frames_figure(record)`
# draws a column for each stretch of the run record (a run of ops in one scope). On top,
# the call stack a C++ program written with `if`s would have there; below, the scopes
# alive under the run scope: **paddle_nb**'s, each the record's scope snapshot cut to the
# scopes that existed when that stretch began (kept until the minibatch completes, as the
# design says, with orange `grad` kids, paddle_nb's own), and **PaddlePaddle**'s, drawn
# from the same snapshots by its rule, not from a PaddlePaddle run (the branch scopes, no
# grad kids). The stack never grows deeper than one branch; the scopes
# only accumulate. Notebook 04 draws the same figure for an RNN.

# %%
figure = pd.viz.frames_figure(records[-1])
assert figure.rows()[-2][2:] == ("b1+g b2+g", "b1 b2")
figure

# %% [markdown]
# The branch scopes now have kids labelled `grad` (paddle_nb's, see above): the backward of
# the branch ran inside them and read the forward values from the branch scope above.
# `pd.gradients` and `append_backward` each appended their own grad ops.
#
# ### Lab: the names two backward passes give
#
# *(Optional: not on the core path.)*
#
# The names in `run` starting `grad/grad/` are **PaddlePaddle**'s naming, which paddle_nb
# copies (PaddlePaddle 2.6.2 writes the same names for a program given two backward passes):
# the second backward pass appended to one program prefixes its gradient names with
# `grad/` once per pass (`grad/grad/` for the second), so they cannot collide with the
# first pass's `x@GRAD`. A name ending `@RENAME@block0@0`, `@1` is one of several
# contributions to the same gradient (`ifelse_0.tmp_6` feeds `out * out` twice), kept
# apart and then added by a `sum` op into `...@GRAD`. `pd.gradients(loss, x)` needs both
# branches (every row of `x` went through one of them); `append_backward` asks for the
# parameters' gradients only, and only the false branch reads a parameter, so it builds a
# grad block for block 2 alone. Hence one `grad` kid under `block 1` and two under
# `block 2`.
#
# With every row true, the fc never ran, and its weight's gradient is exactly zero:

# %%
ones = np.ones((N, 1), bool)
got_gw, = exe.run(prog, feed={**feed, "cond": ones}, fetch_list=[gw], scope=scope)
branch = records[-1].scopes.kids[0].kids
print("branch scopes:", [(s.label, [k.label for k in s.kids]) for s in branch])
assert not got_gw.any()
assert [s.label for s in branch] == ["block 1"]

# %% [markdown]
# ## 6 · Build it yourself: IfElse by hand
#
# An IfElse is nothing but ops that run blocks in kid scopes. Write it yourself, with
# nothing but scopes and notebook 06's reference evaluator, `evaluate(program, scope,
# block_idx)`, which runs one block's ops in a scope (a name the block does not find
# there is looked up in the parents, as always).
#
# Write `ifelse_by_hand(prog, feed, scope)` that returns the merged `[N, D]` output:
#
# 1. make a run scope, a kid of `scope` (which holds `fc.w` and `fc.b`), and put the
#    fed `y` in it;
# 2. for each of the two `conditional_block` ops of the global block (the first is the
#    true branch): its block index is `op.attr("sub_block")`; the name under which the
#    branch expects its rows is the first name of `op.input("Input")`; the name its
#    `assign` writes is `op.output("Out")[0]`;
# 3. if the branch has rows (`feed["cond"]` true, or false, for the second), make a kid
#    scope of the run scope, put that branch's rows of `feed["x"]` in it under the
#    expected name, and `evaluate(prog, kid, block_idx)`;
# 4. put the branch's output back into those rows of the result (the merge); destroy the
#    run scope.
#
# **Predict first:** how many kid scopes does your run scope have when every condition is
# true? The answer cell checks your function against `exe.run` on the feed of section 1
# and on an all-true condition; with your function still a stub, it checks only its own.

# %%
from paddle_nb.executor import evaluate


def ifelse_by_hand(prog, feed, scope):
    """Your IfElse: the merged output of `prog`'s branches, run by hand."""
    ...                                   # your answer here


# %%
# (a second empty cell, to try things in)

# %% [markdown]
# The answer (its source folded: try yours first, then click the cell's left bar to open
# it), and the check:

# %% jupyter={"source_hidden": true}
def answer_ifelse_by_hand(prog, feed, scope):
    mask = feed["cond"].ravel()
    run = scope.new_scope(label="by hand")
    run.var("y").get_tensor().set(feed["y"], cpu)
    merged = np.zeros(feed["x"].shape)
    branches = [op for op in prog.global_block().ops if op.type == "conditional_block"]
    for op, rows in zip(branches, (mask, ~mask)):
        if not rows.any():
            continue                                   # an empty branch does not run
        kid = run.new_scope(label=f"block {op.attr('sub_block')}")
        kid.var(op.input("Input")[0]).get_tensor().set(feed["x"][rows], cpu)
        evaluate(prog, kid, op.attr("sub_block"))      # the branch's ops, in the kid scope
        merged[rows] = kid.find_var(op.output("Out")[0]).get_tensor().numpy()
    print("  branch scopes:", [k.label for k in run.kids])
    run.destroy()
    return merged


# %%
for flags in (feed["cond"], np.ones((N, 1), bool)):
    f = {**feed, "cond": flags}
    expected, = exe.run(prog, feed=f, fetch_list=[out], scope=scope)
    for who, fn in (("the answer", answer_ifelse_by_hand), ("yours", ifelse_by_hand)):
        got_by_hand = fn(prog, f, scope)
        if got_by_hand is None:
            print(f"{who}: not written yet")
            continue
        assert np.allclose(got_by_hand, expected), who
        print(f"{who}: equals exe.run on {flags.sum()} true rows of {N}")
assert scope.kids == []

# %% [markdown]
# ## Summary
#
# - An IfElse over a minibatch splits the rows by a per-instance condition, runs each
#   branch's block on its rows in a kid scope of the run scope, and merges the rows back
#   (`split_lod_tensor`, two `conditional_block`s, `merge_lod_tensor`); a branch with no
#   rows does not run.
# - `cond` is the one-condition `if`: only one branch runs, `select_input` picks its output.
# - A branch's scope outlives the branch (**Design**): the backward pass reads the values
#   the forward pass left there. paddle_nb runs the grad block in a `grad` kid of that
#   scope; PaddlePaddle runs it in the branch's scope itself.
# - Nothing more than scopes and the evaluator: section 6 builds the IfElse by hand.
#
# %% [markdown]
# ## 7 · Exercises
#
# **Exercise 1.** Write `relu` with an `IfElse`: for a column `v` of shape `[N, 1]`, the
# condition is `v < 0` (`pd.layers.less_than`), the true branch outputs zeros
# (`ie.input(v) * 0.0`), the false branch outputs its rows unchanged. Check it against
# `np.maximum(v, 0)` on random data, and check that the true branch's scope holds exactly
# as many rows as there are negative values.

# %%
# Exercise 1: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# p1 = pd.Program()
# with pd.program_guard(p1):
#     v = pd.layers.data("v", shape=[1], dtype="float64")
#     zero = pd.layers.fill_constant([1], "float64", 0.0)
#     ie1 = pd.layers.IfElse(pd.layers.less_than(v, zero))
#     with ie1.true_block():
#         ie1.output(ie1.input(v) * 0.0)
#     with ie1.false_block():
#         ie1.output(ie1.input(v))
#     relu, = ie1()
#
# vals = np.random.default_rng(1).normal(size=(9, 1))
# got, = exe.run(p1, feed={"v": vals}, fetch_list=[relu], scope=pd.Scope())
# assert np.allclose(got, np.maximum(vals, 0))
# true_scope = records[-1].scopes.kids[0].kids[0]
# assert true_scope.label == "block 1"
# assert {s.shape[0] for s in true_scope.vars} == {int((vals < 0).sum())}
# print("relu by IfElse:", got.ravel().round(2))
# ```
#
# </details>
#
# **Exercise 2.** Without running anything, predict the branch scopes of one run of `prog`
# (the design doc's program, with its backward) when the condition is
# `[True, True, False, False, False, False]`: their labels, their row counts, and how many
# `grad` kids each has. Then check your prediction with the run record.

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# c2 = np.array([True, True, False, False, False, False]).reshape(N, 1)
# exe.run(prog, feed={**feed, "cond": c2}, fetch_list=[loss], scope=scope)
# branches = records[-1].scopes.kids[0].kids
# summary = [(s.label, {v.shape[0] for v in s.vars}, len(s.kids)) for s in branches]
# print(summary)   # block 1: only pd.gradients needs it; block 2: both backward passes
# assert summary == [("block 1", {2}, 1), ("block 2", {4}, 2)]
# ```
#
# </details>
#
# **Exercise 3.** With `cond`, write "halve `a` if its sum is above 1, otherwise leave it
# alone", and get `d sum(result) / d a` with `pd.gradients`. Mark `a` as needing a gradient
# (`a.stop_gradient = False`). The gradient should be all 0.5 or all 1 depending on the
# branch taken.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# p3 = pd.Program()
# with pd.program_guard(p3):
#     a = pd.layers.data("a", shape=[3], dtype="float64", append_batch_size=False)
#     a.stop_gradient = False
#     big = pd.layers.greater_than(pd.layers.reduce_sum(a),
#                                  pd.layers.fill_constant([1], "float64", 1.0))
#     r = pd.layers.cond(big, lambda: a * 0.5, lambda: a * 1.0)
#     ga, = pd.gradients([pd.layers.reduce_sum(r)], [a])
# for value, slope in (([1.0, 2.0, 3.0], 0.5), ([0.1, 0.2, 0.3], 1.0)):
#     got, = exe.run(p3, feed={"a": np.array(value)}, fetch_list=[ga], scope=pd.Scope())
#     print(value, "->", got)
#     assert np.allclose(got, slope)
# ```
#
# </details>
