# %% [markdown]
# # 04 · The RNN step net and its step scopes
#
# A C++ `for` loop pushes a stack frame when it enters its braces and pops it at the closing
# brace, every iteration. PaddlePaddle's *Design Doc: Block and Scope* says PaddlePaddle does
# the first and not the second: each time step of an RNN runs its **step block** in a new
# **step scope**, and the step scopes are *kept* until the minibatch is done, because the
# backward pass needs the values in them. This notebook watches that happen, writes the
# backward-through-time recurrence out, and measures what keeping the step scopes costs.
#
# > **Core path, notebook 4 of 5 · about 23 min, and about 10 more to write section 6.**
# > Optional: the *Lab* subsections of 3, 4 and 5.
# > The tour's table, and how times are counted: [README.md](README.md).
# > Claims say whose rule they are: **Design**, **PaddlePaddle** (its `recurrent_op.cc`, or
# > PaddlePaddle 2.6.2 run) or **paddle_nb** (see notebook 01).
# > Notebook 01 taught the first row of the table below; this one shows the second.
# >
# > | when | a C++ stack frame | a step scope (Design) |
# > | --- | --- | --- |
# > | made | at `{`, each iteration | when the step starts |
# > | gone | at `}`, each iteration | when the minibatch, backward included, completes |
#
# **What you will see**
#
# 1. The design doc's RNN: a step net with a memory, two outputs, and its C++ twin; run and
#    checked against a NumPy loop.
# 2. The program: one step block, and the `recurrent` op that owns it.
# 3. The step scopes one by one, with their values: the memory's previous value at step
#    `t` is the output of step `t - 1`.
# 4. Backward through time: the unrolled graph and the gradient recurrence written out and
#    computed by hand; the step scopes visited last step first.
# 5. Why the step scopes are kept, what it costs (memory linear in `T`), and how
#    PaddlePaddle itself frees them earlier.
# 6. Build it yourself: the RNN loop by hand, one step scope per step.
# 7. Three exercises, with hidden solutions.
#
# `pd.viz.graph` draws the program with its step links, and `pd.viz.rnn_explorer` puts
# the step scopes under a slider.
#
# Each code cell checks itself with `assert` lines, so a wrong result stops the notebook.
# Run it top to bottom (*Kernel → Restart Kernel and Run All Cells*); it takes a few seconds.

# %% [markdown]
# ## 1 · The design doc's RNN, twice
#
# <table>
# <tr><th>C++ (the design doc)</th><th>paddle_nb</th></tr>
# <tr><td style="vertical-align: top; text-align: left">
# <pre>
# int* x = {10, 20, 30};
# int m = 0;
# int W = some_value();
# int U = some_other_value();
# int mem[sizeof(x) / sizeof(x[0]) + 1];
# int o1[sizeof(x) / sizeof(x[0]) + 1];
# int o2[sizeof(x) / sizeof(x[0]) + 1];
# for (int i = 1; i &lt;= sizeof(x)/sizeof(x[0]); ++i) {
#   int x = x[i-1];
#   if (i == 1) mem[0] = m;
#   int fc_out = W * x;
#   int hidden_out = U * mem[i-1];
#   int sum = fc_out + hidden_out;
#   int act = sigmoid(sum);
#   mem[i] = act;
#   o1[i] = act;
#   o2[i] = hidden_out;
# }
# </pre>
# </td><td style="vertical-align: top; text-align: left">
# <pre>
# rnn = pd.create_rnn(inputs=[x])
# with rnn.stepnet() as net:
#     x_t = net.set_inputs(0)
#     h = net.add_memory(init=m)
#     fc_out = pd.layers.matmul(x_t, W)
#     hidden_out = pd.layers.matmul(h.pre(n=1), U)
#     sum = fc_out + hidden_out
#     act = pd.layers.sigmoid(sum)
#     h.update(act)      # update memory with act
#     net.set_outputs(0, act, hidden_out)
# o1, o2 = rnn()
# </pre>
# </td></tr>
# </table>
#
# Line for line: `net.set_inputs(0)` is `x[i-1]`, the current step's slice of the input
# sequence; `add_memory(init=m)` is `mem` with `mem[0] = m`; `h.pre(n=1)` is `mem[i-1]`;
# `h.update(act)` is `mem[i] = act`; `set_outputs` fills `o1[i]` and `o2[i]`. The design doc
# writes `pd.matmul(W, x)` for one column vector; here a step holds a minibatch of rows, so
# it is `x_t @ W`. (Its C++ also has a typo, `Y * mem[i-1]` for `U * mem[i-1]`.)
#
# The sequence is laid out `[T, batch, features]`: time first.

# %%
import gc

import numpy as np
import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (graphs, the RNN explorer)
from paddle_nb.core.memory import MEMORY

cpu = pd.CPUPlace()
T, B, I, H = 4, 2, 3, 5


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


prog = pd.Program()
with pd.program_guard(prog):
    x = pd.layers.data("x", shape=[T, B, I], dtype="float64", append_batch_size=False)
    m = pd.layers.data("m", shape=[B, H], dtype="float64", append_batch_size=False)
    W = prog.global_block().create_parameter(name="W", shape=[I, H], dtype="float64")
    U = prog.global_block().create_parameter(name="U", shape=[H, H], dtype="float64")

    rnn = pd.create_rnn(inputs=[x])
    with rnn.stepnet() as net:
        x_t = net.set_inputs(0)
        h = net.add_memory(init=m)
        fc_out = pd.layers.matmul(x_t, W)
        hidden_out = pd.layers.matmul(h.pre(n=1), U)
        sum = fc_out + hidden_out
        act = pd.layers.sigmoid(sum)
        h.update(act)                       # update memory with act
        net.set_outputs(0, act, hidden_out)  # two outputs
    o1, o2 = rnn()
del sum                                     # the doc's name hid Python's sum(); give it back

print("x_t:", x_t, "  o1:", o1, "  o2:", o2)
assert x_t.shape == (B, I) and o1.shape == o2.shape == (T, B, H)

# %% [markdown]
# Inside the step net, `x_t` has no time dimension: it is one step's `[batch, features]`.
# Outside, `o1` and `o2` are the step outputs stacked over time. Run it, then run the C++
# loop in NumPy with the same `W` and `U` (the parameters live in the scope we pass):

# %%
rng = np.random.default_rng(0)
feed = {"x": rng.normal(size=(T, B, I)), "m": rng.normal(size=(B, H))}
exe = pd.Executor(cpu, seed=0)     # seeded: W and U start the same every run
scope = pd.Scope()
got1, got2 = exe.run(prog, feed=feed, fetch_list=[o1, o2], scope=scope)
Wv, Uv = (scope.find_var(n).get_tensor().numpy() for n in ("W", "U"))

mem = [feed["m"]]                       # mem[0] = m
want1, want2 = [], []
for i in range(1, T + 1):
    fc_out_ = feed["x"][i - 1] @ Wv
    hidden_out_ = mem[i - 1] @ Uv
    act_ = sigmoid(fc_out_ + hidden_out_)
    mem.append(act_)
    want1.append(act_)
    want2.append(hidden_out_)

print("o1[:, 0] =\n", got1[:, 0].round(3))
assert np.allclose(got1, np.stack(want1)) and np.allclose(got2, np.stack(want2))

# %% [markdown]
# ## 2 · One step block, one `recurrent` op
#
# The program has two blocks. Block 1, the step net, is written once; the `recurrent` op
# in block 0 owns it and runs it `T` times. Its attributes tie the memory together:
# `ex_states` names the step-block variable that holds the previous value (`h.pre()`),
# `states` the variable whose value becomes the next step's `ex_state` (what `h.update`
# copied `act` into). Its `step_scopes` output is where it keeps the step scopes.

# %%
rec_op, = [op for op in prog.global_block().ops if op.type == "recurrent"]
for slot, names in list(rec_op.inputs.items()) + list(rec_op.outputs.items()):
    print(f"  {slot:15s} {names}")
for name in ("ex_states", "states", "sub_block", "reverse"):
    print(f"  {name:15s} {rec_op.attr(name)}")
print("block 1:", [op.type for op in prog.block(1).ops])
pre_name, = rec_op.attr("ex_states")
state_name, = rec_op.attr("states")
assert rec_op.input("parameters") == ["W", "U"]   # captured from the global block

# %% [markdown]
# The `parameters` input lists what the step block reads from outside: `W` and `U` are
# parameters of the global block, *captured* by the step net the way a C++ loop body sees
# the variables declared before it.
#
# `pd.viz.graph(prog)` draws all of it. Block 1 is a cluster inside block 0, tied to the
# `recurrent` op by a bold purple `sub_block` edge; `W` and `U` come in on dashed edges
# (captured). The dotted purple edges are the step links: `[t]` slices `x` into the
# step's `x`, `init` gives the memory `static_rnn_0@mem_0` its first value `m`, `next
# step` carries the state written by `h.update(act)` back into the memory, and `stack`
# gathers each step's outputs into `o1` and `o2`. The folder is the variable that holds
# the step scopes.

# %%
pd.viz.graph(prog)

# %% [markdown]
# ## 3 · The step scopes, one by one
#
# Subscribe a listener and ask the executor to copy values into its run records
# (`exe.record_values = True`, off by default because it costs a copy of everything). The
# record's scope tree is a snapshot taken just before the run's scopes were destroyed.

# %%
records = []
exe.subscribe(records.append)
exe.record_values = True
got1, got2 = exe.run(prog, feed=feed, fetch_list=[o1, o2], scope=scope)
record = records[-1]

user = record.scopes
run, = user.kids
print(f"[user scope] {[v.name for v in user.vars]}")
print(f"    [{run.label}] {len(run.vars)} variables")
for step in run.kids:
    print(f"        [{step.label}] " + ", ".join(f"{v.name}{list(v.shape)}" for v in step.vars))
assert [s.label for s in run.kids] == [f"step {t}" for t in range(T)]

# %% [markdown]
# This is what *Design Doc: Block and Scope* calls a **stack forest**: every block entered
# pushes a scope and none is popped, so the scopes of a minibatch form a tree (one per
# scope the program is run in) instead of a stack. The height of the tallest tree is the
# nesting depth of the blocks: here the user scope, the run scope, and the step scopes of
# the one nested block; an IfElse inside the step net would add one more level.


# %% [markdown]
# Each step scope is a kid of the run scope and holds everything the step computed: the
# step's slice of `x`, the memory's previous value (`static_rnn_0@mem_0`), `fc_out`,
# `hidden_out`, `sum`, `act`, and the copies the `recurrent` op collects. Now look at
# the values. The memory's previous value at step `t` must be `act` of step `t - 1`
# (and `m` at step 0); that is the whole of what a memory is:

# %%
def value(step, name):
    return next(v.value for v in step.vars if v.name == name)


for t, step in enumerate(run.kids):
    pre = value(step, pre_name)
    before = feed["m"] if t == 0 else got1[t - 1]
    print(f"step {t}: h.pre()[0, :3] = {pre[0, :3].round(3)}   "
          f"{'m' if t == 0 else f'o1[{t - 1}]'}[0, :3] = {before[0, :3].round(3)}")
    assert np.array_equal(pre, before)
    assert np.array_equal(value(step, "x"), feed["x"][t])
    assert np.array_equal(value(step, state_name), got1[t])

# %% [markdown]
# ### Lab: the RNN explorer
#
# *(Optional: not on the core path.)*
#
# The **RNN explorer** shows the same record with a slider over the time steps. At step
# `t` it lists the variables of that step scope with their values, and its links say
# where the step's inputs came from: `x` is the slice `x[t]`, and the memory
# `static_rnn_0@mem_0` is `m` at step 0 and, at every later step, the state
# `static_rnn_0.tmp_0` of step `t - 1`, marked `=` because the two arrays are equal.
# Drag the slider (or use the arrow keys); it works in a saved notebook too, without a
# kernel.

# %%
explorer = pd.viz.rnn_explorer(record)
explorer.step = 1                        # where the slider starts; drag it
steps = explorer.rnns[0]["steps"]
memory, = [link for link in explorer.shown["links"] if link["kind"] == "memory"]

assert len(steps) == T and explorer.has_values
assert [s["label"] for s in steps] == [f"step {t}" for t in range(T)]
assert (memory["name"], memory["source"], memory["source_step"]) == (pre_name, state_name, 0)
assert memory["equal"]
explorer

# %% [markdown]
# ## 4 · Backward through time
#
# `append_backward` turns the `recurrent` op into a `recurrent_grad` op that owns a
# **grad block**: the step block's backward, written once, like the step block. At run
# time `recurrent_grad` visits the step scopes from the last to the first, runs the grad
# block for each, and passes the memory's gradient (`h.pre()`'s gradient) back to the
# previous step, where it is added to the gradient of `act`. The parameters' gradients
# are summed over the steps.
#
# Where the grad block runs differs: **paddle_nb** makes a kid scope labelled `grad` in
# each step scope and runs it there
# ([design note](../docs/design_notes.md#grad-blocks-run-in-a-grad-kid-scope));
# **PaddlePaddle**'s `recurrent_grad` (`recurrent_op.cc`) runs it in the step scope itself
# (`RunPreparedContext(..., &cur_scope, ...)`). Both find the forward values by name.
#
# ### The unrolled graph and the gradient recurrence
#
# Unrolled, the tiny RNN below is a chain; every step uses the same `W` and `U`:
#
# ```
#  m0 = h₋₁ ──U──▶ h₀ ──U──▶ h₁ ──U──▶ h₂        h_t = σ(x_t W + h_{t−1} U)
#                  ▲         ▲         ▲          L   = Σ_t sum(h_t ⊙ h_t)
#                x₀ W      x₁ W      x₂ W
# ```
#
# Write `δ_t = ∂L/∂h_t` for the *whole* gradient reaching `h_t`: from the loss directly
# (`2 h_t`) and from the next step, through `U`. With `a_t = δ_t ⊙ h_t ⊙ (1 − h_t)`, the
# gradient at the sigmoid's input (σ′ = σ(1 − σ)):
#
# - `δ_{T−1} = 2 h_{T−1}` (the last step has no next step);
# - `δ_t = 2 h_t + a_{t+1} Uᵀ`, going backwards, `t = T−2, …, 0` (the memory's gradient that
#   `recurrent_grad` passes one step back);
# - `∂L/∂W = Σ_t x_tᵀ a_t`, `∂L/∂U = Σ_t h_{t−1}ᵀ a_t` (a parameter's gradient is summed over
#   the steps), and `∂L/∂m0 = a_0 Uᵀ`.
#
# Every term reads a forward value of step `t` (`h_t`, `h_{t−1}`, `x_t`): that is why the
# step scopes must still hold them when backward runs. Below, the program's gradients are
# checked against this recurrence, computed by hand in NumPy, and against central
# differences.

# %%
T2, B2, I2, H2 = 3, 1, 2, 2
tiny = pd.Program()
with pd.program_guard(tiny):
    xs = pd.layers.data("xs", shape=[T2, B2, I2], dtype="float64", append_batch_size=False)
    m0 = pd.layers.data("m0", shape=[B2, H2], dtype="float64", append_batch_size=False)
    W2 = tiny.global_block().create_parameter(name="W2", shape=[I2, H2], dtype="float64")
    U2 = tiny.global_block().create_parameter(name="U2", shape=[H2, H2], dtype="float64")
    rnn2 = pd.create_rnn(inputs=[xs])
    with rnn2.stepnet() as net:
        h2 = net.add_memory(init=m0)
        act2 = pd.layers.sigmoid(pd.layers.matmul(net.set_inputs(0), W2)
                                 + pd.layers.matmul(h2.pre(n=1), U2))
        h2.update(act2)
        net.set_outputs(0, act2)
    out2, = rnn2()
    loss2 = pd.layers.reduce_sum(out2 * out2)
    pairs = pd.append_backward(loss2)

print([op.type for op in tiny.global_block().ops])
print("grad block:", [op.type for op in tiny.block(2).ops])
feed2 = {"xs": rng.normal(size=(T2, B2, I2)), "m0": rng.normal(size=(B2, H2))}
scope2 = pd.Scope()
gW, gU = exe.run(tiny, feed=feed2, fetch_list=[g for _, g in pairs], scope=scope2)
W2v, U2v = (scope2.find_var(n).get_tensor().numpy() for n in ("W2", "U2"))

# %% [markdown]
# The loss in NumPy (`loss_np`) and central differences (`central`), for the check; their
# source is folded. Then the recurrence above, by hand (`bptt`):

# %% jupyter={"source_hidden": true}
def loss_np(w, u):
    mem_, total = feed2["m0"], 0.0
    for t in range(T2):
        mem_ = sigmoid(feed2["xs"][t] @ w + mem_ @ u)
        total += np.sum(mem_ * mem_)
    return total


def central(fn, value, eps=1e-6):
    grad = np.zeros_like(value)
    for i in range(value.size):
        up, down = value.copy(), value.copy()
        up.flat[i] += eps
        down.flat[i] -= eps
        grad.flat[i] = (fn(up) - fn(down)) / (2 * eps)
    return grad


# %%
def bptt(w, u):
    """Forward, then the recurrence above, last step first: (dL/dW, dL/dU)."""
    hs = [feed2["m0"]]                                   # hs[t + 1] is h_t
    for t in range(T2):
        hs.append(sigmoid(feed2["xs"][t] @ w + hs[-1] @ u))
    dW, dU, a_next = np.zeros_like(w), np.zeros_like(u), None
    for t in reversed(range(T2)):
        h_t, h_prev = hs[t + 1], hs[t]
        delta = 2 * h_t + (0 if a_next is None else a_next @ u.T)   # from L, and from t + 1
        a_t = delta * h_t * (1 - h_t)
        dW += feed2["xs"][t].T @ a_t
        dU += h_prev.T @ a_t
        a_next = a_t
    return dW, dU


hand_W, hand_U = bptt(W2v, U2v)
print("dW:", gW.ravel().round(5), "\nby hand:", hand_W.ravel().round(5),
      "\ncentral:", central(lambda w: loss_np(w, U2v), W2v).ravel().round(5))
assert np.allclose(gW, hand_W) and np.allclose(gU, hand_U)
assert np.allclose(gW, central(lambda w: loss_np(w, U2v), W2v), atol=1e-8)
assert np.allclose(gU, central(lambda u: loss_np(W2v, u), U2v), atol=1e-8)

# %% [markdown]
# ### Lab: where the grad block ran, from the record's scope ids
#
# *(Optional: not on the core path; the figure after it shows the same.)*
#
# Where did the grad block run? The run record lists every op that ran with the id of its
# scope. Map the ids of the grad block's ops to the scope tree: one `grad` scope under each
# step scope, visited last step first.

# %%
rec2 = records[-1]
run2, = rec2.scopes.kids
parent_of = {g.id: s.label for s in run2.kids for g in s.kids}
order = []
for op in rec2.ops:
    if op.block == 2 and (not order or order[-1] != parent_of[op.scope_id]):
        order.append(parent_of[op.scope_id])
print("the grad block ran in the grad kids of:", order)
assert order == [f"step {t}" for t in reversed(range(T2))]
for s in run2.kids:
    print(f"[{s.label}] -> [{s.kids[0].label}] " + ", ".join(v.name for v in s.kids[0].vars))

# %% [markdown]
# ### Frames and scopes over one minibatch
#
# The figure of notebook 01 section 2, now from this real run: `pd.viz.frames_figure(record)`
# draws a column for each stretch of the run record (a run of ops in one scope). On top,
# the call stack a C++ program written with loops would have there; below, the scopes
# alive under the run scope: **paddle_nb**'s, each the record's scope snapshot cut to the
# scopes that existed when that stretch began (kept until the minibatch completes, as the
# design says, with orange `grad` kids, paddle_nb's own), and **PaddlePaddle**'s, drawn
# from the same snapshots by its rule, not from a PaddlePaddle run (no grad kids;
# `recurrent` makes all step scopes before its first step; `recurrent_grad` deletes the
# step scopes backward has passed). The stack never grows
# deeper than one body; paddle_nb's scopes only accumulate.

# %%
figure = pd.viz.frames_figure(rec2)
assert figure.rows()[-2][2:] == ("s0+g s1+g s2+g", "s0 s1")    # backward in step 0
figure

# %% [markdown]
# ## 5 · Why the step scopes are kept until the minibatch completes
#
# The grad block's ops read forward values: `sigmoid_grad` reads `act` (the sigmoid's
# output), `matmul_grad` reads `x_t` and `h.pre()`. The grad block declares none of them;
# they are found by climbing from the `grad` scope to its parent, the step scope. Had the
# step scope been popped at the end of its step, like a C++ stack frame, those values
# would be gone:

# %%
step_block, grad_block = tiny.block(1), tiny.block(2)
reads = sorted({n for op in grad_block.ops for n in op.input_arg_names
                if n in step_block.vars and not n.endswith("@GRAD")})
print("forward variables of the step block that the grad block reads:", reads)
assert reads and all(n not in grad_block.vars for n in reads)
for s in run2.kids:
    held = {v.name for v in s.vars}
    assert set(reads) <= held       # each step scope still held them when backward ran

# %% [markdown]
# So the scope hierarchy lives until the whole minibatch, backward included, is done; then
# the executor destroys it. That is **Design**'s rule (*Design Doc: Block and Scope*: "After
# the process of a minibatch, PaddlePaddle destroys the scope hierarchy"), and paddle_nb
# follows it to the letter
# ([design note](../docs/design_notes.md#step-scopes-are-kept-until-the-run-ends)).
# **PaddlePaddle** itself is more frugal (`StepScopes` in `recurrent_op.cc`):
#
# - in training, `recurrent_grad` deletes step `t + 1`'s scope once backward through step
#   `t` is done (`BackwardNext`: step `t` reads the memory's gradient there), and clears
#   the rest when it ends, before the minibatch completes;
# - in inference (`is_train=False`), the `recurrent` op makes only **two** step scopes and
#   alternates between them (step `t` runs in scope `t % 2`): step `t` needs only step
#   `t − 1`'s state, and nothing is kept for a backward pass. After `exe.run` returns, the user scope has no kids, holds only
# the parameters, and the memory in use is back to the parameters' bytes, although while it
# ran the step scopes held much more:

# %%
exe.record_values = False
params = sum(scope.find_var(n).get_tensor().nbytes for n in ("W", "U"))
gc.collect()                        # count only what is really alive
before = MEMORY.in_use(cpu)
MEMORY.reset_peak()
exe.run(prog, feed=feed, fetch_list=[o1], scope=scope)
peak_extra = MEMORY.peak(cpu) - before
step_bytes = sum(s.nbytes() for s in records[-1].scopes.kids[0].kids)
print(f"parameters: {params} bytes; the step scopes held {step_bytes} bytes; "
      f"peak above the start (between ops): {peak_extra} bytes")
print("after the run: kids =", scope.kids, " vars =", scope.local_var_names())
assert scope.kids == [] and sorted(scope.local_var_names()) == ["U", "W"]
assert MEMORY.in_use(cpu) == before and params == (I * H + H * H) * 8
assert peak_extra >= step_bytes > 0

# %% [markdown]
# ### Lab: what keeping the step scopes costs, memory linear in `T`
#
# *(Optional: not on the core path.)*
#
#
# **Predict, then run.** The step scopes all live until the run ends, and each holds the
# same variables. If `T` doubles, what happens to the bytes they hold at the end of the
# forward pass? And to PaddlePaddle's inference mode, which keeps two?
#
# The cell builds the design doc's RNN for `T = 4, 8, 16, 32` (batch 64, 32 features) and
# measures the bytes its step scopes held (from the run record) and the run's peak
# (paddle_nb's counter, sampled between ops, see notebook 06). The last column is what
# PaddlePaddle's two alternating inference scopes would hold: two steps' worth, whatever
# `T`.

# %%
def design_rnn(T_, B_, F_):
    """The design doc's RNN, with StaticRNN, for T_ steps of [B_, F_] float64."""
    p = pd.Program()
    with pd.program_guard(p):
        xs_ = pd.layers.data("x", shape=[T_, B_, F_], dtype="float64", append_batch_size=False)
        m_ = pd.layers.data("m", shape=[B_, F_], dtype="float64", append_batch_size=False)
        W_ = p.global_block().create_parameter(name="W", shape=[F_, F_], dtype="float64")
        U_ = p.global_block().create_parameter(name="U", shape=[F_, F_], dtype="float64")
        r = pd.layers.StaticRNN()
        with r.step():
            h_ = r.memory(init=m_)
            a_ = pd.layers.sigmoid(pd.layers.matmul(r.step_input(xs_), W_)
                                   + pd.layers.matmul(h_, U_))
            r.update_memory(h_, a_)
            r.step_output(a_)
        return p, r()


B3, F3 = 64, 32
print("   T  step scopes' bytes  per step  run's peak   PaddlePaddle inference (2 scopes)")
held_by_T = {}
for T_ in (4, 8, 16, 32):
    p, out_ = design_rnn(T_, B3, F3)
    f = {"x": rng.normal(size=(T_, B3, F3)), "m": rng.normal(size=(B3, F3))}
    s_ = pd.Scope()
    exe.run(p, feed=f, fetch_list=[out_], scope=s_)          # parameters made
    gc.collect()
    start = MEMORY.in_use(cpu)
    MEMORY.reset_peak()
    exe.run(p, feed=f, fetch_list=[out_], scope=s_)
    kids = records[-1].scopes.kids[0].kids
    held = sum(k.nbytes() for k in kids)
    one = held // T_
    held_by_T[T_] = held
    print(f"{T_:4}  {held:18,}  {one:8,}  {MEMORY.peak(cpu) - start:10,}   {2 * one:,}")

assert all(held_by_T[T_] == T_ * held_by_T[4] // 4 for T_ in held_by_T)   # linear in T

# %% [markdown]
# Each step scope holds the same bytes, so the total is `T ×` one step: linear in `T`,
# the price of being able to run backward through time. PyTorch pays the same price in
# another form: autograd keeps the tensors each op saved for its backward (`h_t` for the
# sigmoid, `x_t` and `h_{t−1}` for the products) until `backward()` frees them, and under
# `torch.no_grad()` it saves nothing, as PaddlePaddle's `is_train=False` keeps two scopes.
# Under paddle_nb's rules (the default) `recurrent` accepts the `is_train` attribute and
# still keeps every step scope; the next lab switches to PaddlePaddle's.

# %% [markdown]
# ### Lab: PaddlePaddle's two inference scopes, switched on
#
# *(Optional: not on the core path.)*
#
# An executor made with `pd.Executor(place, scopes="paddle")` follows **PaddlePaddle**'s
# step-scope rules instead of paddle_nb's (the design note's section "Switching to
# PaddlePaddle's rules" lists them, with the lines of `recurrent_op.cc` they come from).
# Mark the `T = 32` program's `recurrent` op as inference (`is_train=False`) and run it both
# ways from the same weights: the same outputs, 32 step scopes against 2.

# %%
inf_prog, inf_out = design_rnn(32, B3, F3)
next(op for op in inf_prog.global_block().ops if op.type == "recurrent").set_attr(
    "is_train", False)
inf_feed = {"x": rng.normal(size=(32, B3, F3)), "m": rng.normal(size=(B3, F3))}
inf_weights = {"W": rng.normal(size=(F3, F3)) * 0.1, "U": rng.normal(size=(F3, F3)) * 0.1}
inf_answers, inf_counts = {}, {}
for rules in ("paddle_nb", "paddle"):
    inf_exe, inf_seen = pd.Executor(cpu, scopes=rules), []
    inf_exe.subscribe(inf_seen.append)
    inf_scope = pd.Scope()
    for name, value in inf_weights.items():
        inf_scope.var(name).get_tensor().set(value, cpu)
    inf_answers[rules], = inf_exe.run(inf_prog, feed=inf_feed, fetch_list=[inf_out],
                                      scope=inf_scope)
    inf_steps = inf_seen[-1].scopes.kids[0].kids
    inf_counts[rules] = len(inf_steps)
    print(f"{rules:>9} rules: {len(inf_steps):2} step scopes "
          f"({', '.join(k.label for k in inf_steps[:2])}, ...), "
          f"{sum(k.nbytes() for k in inf_steps):,} bytes held when the op ended")
assert np.array_equal(inf_answers["paddle_nb"], inf_answers["paddle"])
assert inf_counts == {"paddle_nb": 32, "paddle": 2}

# %% [markdown]
# The same RNN in PaddlePaddle 1.8's own names is `pd.layers.StaticRNN`:
# `with rnn.step():`, `x_t = rnn.step_input(x)`, `h = rnn.memory(init=m)` (or
# `rnn.memory(shape=[-1, H], batch_ref=x_t)` for zeros), `rnn.update_memory(h, act)`,
# `rnn.step_output(act)`. The design doc's `create_rnn` is a thin wrapper over it.

# %%
fluid_style = pd.Program()
with pd.program_guard(fluid_style):
    x3 = pd.layers.data("x", shape=[T, B, I], dtype="float64", append_batch_size=False)
    m3 = pd.layers.data("m", shape=[B, H], dtype="float64", append_batch_size=False)
    W3 = fluid_style.global_block().create_parameter(name="W", shape=[I, H], dtype="float64")
    U3 = fluid_style.global_block().create_parameter(name="U", shape=[H, H], dtype="float64")
    srnn = pd.layers.StaticRNN()
    with srnn.step():
        xt3 = srnn.step_input(x3)
        h3 = srnn.memory(init=m3)
        act3 = pd.layers.sigmoid(pd.layers.matmul(xt3, W3) + pd.layers.matmul(h3, U3))
        srnn.update_memory(h3, act3)
        srnn.step_output(act3)
    out3 = srnn()
same, = exe.run(fluid_style, feed=feed, fetch_list=[out3], scope=scope)   # the same W, U
assert np.allclose(same, got1)

# %% [markdown]
# ## 6 · Build it yourself: the RNN loop by hand
#
# The `recurrent` op is a loop over step scopes. Write the loop yourself, with scopes and
# the reference evaluator `evaluate(program, scope, block_idx)` (notebook 06), for the
# design doc's `prog` of section 1 (its `W` and `U` are in `scope`):
#
# 1. make a run scope, a kid of `scope`;
# 2. for `t = 0 … T−1`, make a step scope (a kid of the run scope), and put in it the
#    step's slice `feed["x"][t]` under the name `x` (the step block's input has the outer
#    sequence's name) and the memory's previous value under `pre_name` (section 2's
#    `ex_states`): `feed["m"]` at step 0, and from then on the value of `state_name`
#    (`states`) *in the previous step's scope*: this is the link from step scope to step
#    scope;
# 3. `evaluate(prog, step_scope, 1)`, and collect the values of the op's outputs
#    (`rec_op.output("outputs")`, the same names inside the step);
# 4. return `o1` and `o2` stacked over time, and destroy the run scope.
#
# **Predict first:** at step 2, in which scope is `W` found? And `pre_name`?

# %%
from paddle_nb.executor import evaluate


def rnn_by_hand(prog, feed, scope):
    """Your RNN loop: (o1, o2) of the design doc's program, step scope by step scope."""
    ...                                   # your answer here


# %%
# (a second empty cell, to try things in)

# %% [markdown]
# The answer (its source folded: try yours first, then click the cell's left bar to open
# it), and the check against `exe.run`:

# %% jupyter={"source_hidden": true}
def answer_rnn_by_hand(prog, feed, scope):
    run = scope.new_scope(label="by hand")
    previous, outputs = None, []
    for t in range(feed["x"].shape[0]):
        step = run.new_scope(label=f"step {t}")
        step.var("x").get_tensor().set(feed["x"][t], cpu)
        pre = feed["m"] if t == 0 else previous.find_var(state_name).get_tensor().numpy()
        step.var(pre_name).get_tensor().set(pre, cpu)            # the memory's link
        evaluate(prog, step, 1)
        outputs.append([step.find_var(n).get_tensor().numpy() for n in rec_op.output("outputs")])
        previous = step
    print("  step scopes kept until the end:", [s.label for s in run.kids])
    run.destroy()
    return tuple(np.stack(column) for column in zip(*outputs))


# %%
want_o1, want_o2 = exe.run(prog, feed=feed, fetch_list=[o1, o2], scope=scope)
for who, fn in (("the answer", answer_rnn_by_hand), ("yours", rnn_by_hand)):
    result = fn(prog, feed, scope)
    if result is None:
        print(f"{who}: not written yet")
        continue
    assert np.allclose(result[0], want_o1) and np.allclose(result[1], want_o2), who
    print(f"{who}: equals exe.run, o1 and o2")
assert scope.kids == []

# %% [markdown]
# ## Summary
#
# - The `recurrent` op runs one step block `T` times, each time in a new step scope, a kid
#   of the run scope; the memory links step `t − 1`'s state to step `t`'s `h.pre()`.
# - Backward through time runs the grad block once per step, last step first:
#   `δ_t = 2 h_t + a_{t+1} Uᵀ`, and each parameter's gradient is summed over the steps.
#   Every term reads step `t`'s forward values, which is why the step scopes are kept.
# - **Design** keeps every step scope until the minibatch completes, and paddle_nb does;
#   the memory is linear in `T`. **PaddlePaddle** deletes each step scope once backward
#   has passed it, and in inference keeps only two.
# - Nothing more than scopes and the evaluator: section 6 builds the loop by hand.
#
# %% [markdown]
# ## 7 · Exercises
#
# **Exercise 1.** Give the design doc's step net a second memory `c` that starts at zeros
# (`net.add_memory(init=...)` with a zeros input, or `StaticRNN.memory(shape=[-1, H],
# batch_ref=x_t)`) and keeps the running sum of `act`: `c_t = c_{t-1} + act_t`. Output it
# too, and check that its last step equals `o1.sum(axis=0)`.

# %%
# Exercise 1: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# p1 = pd.Program()
# with pd.program_guard(p1):
#     x1 = pd.layers.data("x", shape=[T, B, I], dtype="float64", append_batch_size=False)
#     m1 = pd.layers.data("m", shape=[B, H], dtype="float64", append_batch_size=False)
#     W1 = p1.global_block().create_parameter(name="W", shape=[I, H], dtype="float64")
#     U1 = p1.global_block().create_parameter(name="U", shape=[H, H], dtype="float64")
#     r1 = pd.layers.StaticRNN()
#     with r1.step():
#         xt1 = r1.step_input(x1)
#         h1 = r1.memory(init=m1)
#         c1 = r1.memory(shape=[-1, H], batch_ref=xt1)
#         a1 = pd.layers.sigmoid(pd.layers.matmul(xt1, W1) + pd.layers.matmul(h1, U1))
#         total = c1 + a1
#         r1.update_memory(h1, a1)
#         r1.update_memory(c1, total)
#         r1.step_output(a1)
#         r1.step_output(total)
#     acts, sums = r1()
# a_v, s_v = exe.run(p1, feed=feed, fetch_list=[acts, sums], scope=scope)
# assert np.allclose(a_v, got1)
# assert np.allclose(s_v[-1], got1.sum(axis=0))
# assert np.allclose(s_v, np.cumsum(got1, axis=0))
# print("running sum at the last step:", s_v[-1, 0].round(3))
# ```
#
# </details>
#
# **Exercise 2.** `StaticRNN` has no `reverse` option, but the `recurrent` op has a
# `reverse` attribute. Build the tiny RNN again, set the attribute on the built op
# (`op.set_attr("reverse", True)`), run it, and check (a) that the step scopes are now
# made in the order `step 2, step 1, step 0`, and (b) the result against a NumPy loop that
# walks the sequence backwards.

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# rev = pd.Program()
# with pd.program_guard(rev):
#     xr = pd.layers.data("xs", shape=[T2, B2, I2], dtype="float64", append_batch_size=False)
#     mr = pd.layers.data("m0", shape=[B2, H2], dtype="float64", append_batch_size=False)
#     Wr = rev.global_block().create_parameter(name="W2", shape=[I2, H2], dtype="float64")
#     Ur = rev.global_block().create_parameter(name="U2", shape=[H2, H2], dtype="float64")
#     rr = pd.layers.StaticRNN()
#     with rr.step():
#         hr = rr.memory(init=mr)
#         ar = pd.layers.sigmoid(pd.layers.matmul(rr.step_input(xr), Wr) + pd.layers.matmul(hr, Ur))
#         rr.update_memory(hr, ar)
#         rr.step_output(ar)
#     outr = rr()
# op, = [o for o in rev.global_block().ops if o.type == "recurrent"]
# op.set_attr("reverse", True)
# got_r, = exe.run(rev, feed=feed2, fetch_list=[outr], scope=scope2)      # the same W2, U2
# labels = [s.label for s in records[-1].scopes.kids[0].kids]
# print(labels)
# assert labels == ["step 2", "step 1", "step 0"]
# mem_, want_r = feed2["m0"], [None] * T2
# for t in reversed(range(T2)):
#     mem_ = sigmoid(feed2["xs"][t] @ W2v + mem_ @ U2v)
#     want_r[t] = mem_
# assert np.allclose(got_r, np.stack(want_r))
# ```
#
# </details>
#
# **Exercise 3.** Predict, before running, how many bytes the four step scopes of the
# design doc's RNN hold in total when `act`, `hidden_out`, `fc_out`, `sum`, the memory and the
# collected outputs are all `[B, H]` float64 and `x_t` is `[B, I]` float64; then compare with
# the run record (`ScopeRecord.nbytes()`). Hint: count the variables of one step scope in
# section 3's printout.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# one_step = [v for v in run.kids[0].vars]
# n_bh = sum(1 for v in one_step if v.shape == (B, H))
# predicted = T * (n_bh * B * H * 8 + B * I * 8)
# exe.run(prog, feed=feed, fetch_list=[o1], scope=scope)
# measured = sum(s.nbytes() for s in records[-1].scopes.kids[0].kids)
# print(f"{n_bh} [B, H] variables per step; predicted {predicted} bytes, measured {measured}")
# assert predicted == measured
# ```
#
# </details>
