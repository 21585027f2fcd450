# %% [markdown]
# # 04 · The RNN step net and its step scopes
#
# A C++ `for` loop pushes a stack frame when it enters its braces and pops it at the closing
# brace, every iteration. PaddlePaddle's *Design Doc: Block and Scope* says PaddlePaddle does
# the first and not the second: each time step of an RNN runs its **step block** in a new
# **step scope**, and the step scopes are *kept* until the minibatch is done, because the
# backward pass runs inside them. This notebook watches that happen.
#
# **What you will see**
#
# 1. The design doc's RNN: a step net with a memory, two outputs, and its C++ twin; run and
#    checked against a NumPy loop.
# 2. The program: one step block, and the `recurrent` op that owns it.
# 3. The step scopes one by one, with their values: the memory's previous value at step
#    `t` is the output of step `t - 1`.
# 4. Backward through time: a `grad` scope inside each step scope, visited last step first;
#    the gradients checked against central differences.
# 5. Why the step scopes are kept until the minibatch completes, and proof that they are
#    gone afterwards.
# 6. Three exercises, with hidden solutions.
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
picture = pd.viz.graph(prog)
assert "cluster_b1" in picture.source and "next step" in picture.source
picture

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
# time `recurrent_grad` visits the step scopes from the last to the first, makes a kid
# scope labelled `grad` in each, runs the grad block there, and passes the memory's
# gradient (`h.pre()`'s gradient) back to the previous step, where it is added to the
# gradient of `act`. The parameters' gradients are summed over the steps.
#
# A tiny case, checked against central differences of the NumPy loop:

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


print("dW:", gW.ravel().round(5), "\ncentral:", central(lambda w: loss_np(w, U2v), W2v).ravel().round(5))
assert np.allclose(gW, central(lambda w: loss_np(w, U2v), W2v), atol=1e-8)
assert np.allclose(gU, central(lambda u: loss_np(W2v, u), U2v), atol=1e-8)

# %% [markdown]
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
# the executor destroys it. After `exe.run` returns, the user scope has no kids, holds only
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
      f"peak above the start: {peak_extra} bytes")
print("after the run: kids =", scope.kids, " vars =", scope.local_var_names())
assert scope.kids == [] and sorted(scope.local_var_names()) == ["U", "W"]
assert MEMORY.in_use(cpu) == before and params == (I * H + H * H) * 8
assert peak_extra >= step_bytes > 0

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
# ## 6 · Exercises
#
# **Exercise 1.** Give the design doc's step net a second memory `c` that starts at zeros
# (`net.add_memory(init=...)` with a zeros input, or `StaticRNN.memory(shape=[-1, H],
# batch_ref=x_t)`) and keeps the running sum of `act`: `c_t = c_{t-1} + act_t`. Output it
# too, and check that its last step equals `o1.sum(axis=0)`.
#
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
#
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
#
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
