# %% [markdown]
# # 02 · Programs and blocks
#
# Notebook 01 kept run-time values in scopes. This one builds what runs over them: a
# **program**. A PaddlePaddle program is not Python code that computes; it is a description
# of a computation, a protobuf message that Python writes line by line and an executor
# interprets later, like a compiler writing a binary for the operating system to run. It
# follows two design documents: *Design Doc: Python API* and *Design Doc: Block and Scope*.
#
# **What you will see**
#
# 1. Four Python classes (`Program`, `Block`, `Operator`, `Variable`) that write four
#    protobuf messages (`ProgramDesc`, `BlockDesc`, `OpDesc`, `VarDesc`); the message grows
#    with every line you write.
# 2. Shapes are inferred the moment an op is appended: each layer knows its output shape
#    at once, with `-1` for the batch.
# 3. A shape error is raised at the line that made it, and names that line.
# 4. Blocks nest like braces in C++: `create_block`, `rollback`, and a symbol table whose
#    lookups climb to the parent block (`find_var`, `pd.get_variable`).
# 5. Parameters live in the global block; their initializers go to its *preamble*, or to a
#    separate startup program.
# 6. `print(program)`, and a round trip through bytes that changes nothing.
# 7. `prune` and `eval`: the minimal program for a target; running with an `Executor`.
# 8. The backward pass is more ops appended to the same block.
# 9. Three exercises, with hidden solutions.
#
# Along the way `pd.viz` draws what the text describes: the dataflow graph of a program,
# its block tree, and a Dashboard that follows the runs.
#
# Each code cell checks itself with `assert` lines, so a wrong result stops the notebook.
# Run it top to bottom (*Kernel → Restart Kernel and Run All Cells*).
#
# > **Core path, notebook 2 of 5 · about 17 min: sections 1, 2, 4 and 5.** Optional:
# > sections 3, 6, 7 and 8, and the *Lab* subsections.
# > The tour's table, and how times are counted: [README.md](README.md).
# > Claims say whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see
# > notebook 01).

# %%
import numpy as np
import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (graphs, block trees, the Dashboard)
from paddle_nb.framework.operator import OpRole

cpu = pd.CPUPlace()


def size(program):
    """(blocks, ops, vars), counted in the protobuf message itself, not the Python views."""
    desc = program.desc
    return (len(desc.blocks), sum(len(b.ops) for b in desc.blocks),
            sum(len(b.vars) for b in desc.blocks))


print("an empty program:", size(pd.Program()), "(blocks, ops, vars)")

# %% [markdown]
# ## 1. Four classes that write four messages
#
# > Due to the refactorization of the PaddlePaddle core, we need Python classes to
# > construct corresponding protobuf messages that describe a DL program.
# > (*Design Doc: Python API*)
#
# | Python class | protobuf message | what it holds |
# | --- | --- | --- |
# | `Program` | `ProgramDesc` | a list of blocks; block 0 is the global block |
# | `Block` | `BlockDesc` | its index, its parent's index, variables, operators |
# | `Operator` | `OpDesc` | a type, input and output slots (names), attributes |
# | `Variable` | `VarDesc` | a name, a type, a shape, a dtype, flags |
#
# In paddle_nb the message is the only copy of the program: each Python object is a thin
# view over its part of `program.desc`, plus a little construction-time information (which
# op last wrote a variable, a parameter's initializer, the line of your code that built an
# op). Watch the message grow as a small classifier is written, one line at a time.
#
# A note on `data`: in **Design** (*Design Doc: Python API*) `data_layer` declares the
# variable *and prepends a `Feed` op* to the global block, whose input is a special
# variable of the global scope filled by the Python readers. **paddle_nb**'s
# `pd.layers.data` (like PaddlePaddle 1.8's and `paddle.static.data` in 2.6) only declares
# the variable: the executor puts the fed arrays in the run's scope (notebook 06), where
# **PaddlePaddle**'s executor inserts `feed` ops reading a `feed` variable when it runs.

# %%
main = pd.Program()
growth = [("pd.Program()", size(main))]

with pd.program_guard(main):          # layers append to `main` inside this block
    image = pd.layers.data("image", shape=[4])
    growth.append(('image = data("image", shape=[4])', size(main)))
    label = pd.layers.data("label", shape=[1], dtype="int64")
    growth.append(('label = data("label", shape=[1], dtype="int64")', size(main)))
    hidden = pd.layers.fc(image, 8, act="relu")
    growth.append(('hidden = fc(image, 8, act="relu")', size(main)))
    logits = pd.layers.fc(hidden, 3)
    growth.append(("logits = fc(hidden, 3)", size(main)))
    loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
    growth.append(("loss = mean(softmax_with_cross_entropy(logits, label))", size(main)))

print(f"{'after':56} blocks  ops  vars")
for line, (blocks, ops, nvars) in growth:
    print(f"{line:56} {blocks:6} {ops:4} {nvars:5}")

assert [g[1] for g in growth] == [(1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 5, 7), (1, 9, 11),
                                  (1, 11, 14)]

# %% [markdown]
# `data` declares a variable and appends no op: its value comes from the feed. `fc(image, 8,
# act="relu")` added five ops and five variables: two parameters (`W`, `b`) with one
# initializer op each, and `mul`, `elementwise_add`, `relu` writing three temporaries.
#
# `pd.viz.graph(program)` draws the same message as a dataflow graph: each op a box,
# numbered in block order (`#0 uniform_random`), each variable an oval labelled with its
# dtype and shape, parameters as cylinders, and an arrow for every input and output. The
# fed variables `image` and `label` have no op above them. Hover a node for its slots.

# %%
pd.viz.graph(main)

# %% [markdown]
# The Python objects read everything from the message. A `Variable` is a view over a
# `VarDesc`, an `Operator` over an `OpDesc`; changing one through the view changes the
# message, because there is nothing else to change.

# %%
block = main.global_block()
print(type(main.desc).__name__, "->", type(block.desc).__name__, "->",
      type(hidden.writer.desc).__name__, "and", type(hidden.desc).__name__)
print()
print(image.desc)                       # the VarDesc of `image`, as protobuf text

assert block.desc is main.desc.blocks[0]          # the view holds the message itself
assert [v.name for v in main.desc.blocks[0].vars] == list(block.vars)
assert [op.type for op in main.desc.blocks[0].ops] == [op.type for op in block.ops]

# %%
relu = hidden.writer                    # the op that last wrote `hidden`
print(relu)
print("type:", relu.type, "| inputs:", relu.inputs, "| outputs:", relu.outputs)
print("op_role:", relu.attr("op_role"), "(forward) | built at:", relu.site())

image.stop_gradient = False             # written straight into the VarDesc
print("the VarDesc now says stop_gradient:", main.desc.blocks[0].vars[0].stop_gradient)
image.stop_gradient = True

assert relu.type == "relu" and relu.inputs == {"X": [relu.input("X")[0]]}
assert relu.output("Out") == [hidden.name] and "hidden = pd.layers.fc" in relu.site()
assert main.desc.blocks[0].vars[0].stop_gradient

# %% [markdown]
# `op_callstack`, an attribute PaddlePaddle itself writes, keeps the line of your code that
# built each op, so that errors at build time and at run time can point at it.

# %% [markdown]
# ## 2. Shapes are inferred at once
#
# > The `Operator` class fills in the `OpDesc` message and calls the C++ function
# > `InferShape` to infer output shape from input shape. (*Design Doc: Python API*)
#
# Appending an op runs the op's shape rule on its inputs' `VarDesc`s and writes the
# outputs' shapes and dtypes before the line returns. No data is needed: the batch size is
# unknown while the program is written, so the first dimension is `-1`. Each variable can
# show its shape the moment it exists.
#
# *Design Doc: Block and Scope* also gives a block an `InferShape(scope)` that runs before
# `Run`, at run time, when the real sizes are known. **PaddlePaddle** does both: the
# build-time inference above, and a run-time `InferShape` before each kernel.
# **paddle_nb** infers at build time only; at run time a kernel's output array simply has
# the shape it computed, and notebook 06's evaluator stores it as it is.

# %%
cnn = pd.Program()
with pd.program_guard(cnn):
    img = pd.layers.data("img", shape=[1, 28, 28])
    conv = pd.layers.conv2d(img, num_filters=6, filter_size=5, act="relu")
    pool = pd.layers.pool2d(conv, pool_size=2, pool_stride=2)
    flat = pd.layers.reshape(pool, [-1, 6 * 12 * 12])
    out = pd.layers.fc(flat, 10, act="softmax")
    top = pd.layers.argmax(out, axis=1)

for v in [img, conv, pool, flat, out, top]:
    print(f"{v.writer.type if v.writer else 'data':8} -> {v}")

assert img.shape == (-1, 1, 28, 28) and conv.shape == (-1, 6, 24, 24)
assert pool.shape == (-1, 6, 12, 12) and flat.shape == (-1, 864) and out.shape == (-1, 10)
assert top.shape == (-1,) and top.dtype == np.int64

# %% [markdown]
# ## 3. A shape error points at your line
#
# Because shapes are checked when an op is appended, a mistake is caught at the line that
# makes it, not later inside the executor. The message names the op, the block, the inputs
# with their shapes, and your line. Nothing is written when the check fails: the block is
# as it was.

# %%
ops_before, vars_before = len(cnn.global_block().ops), len(cnn.global_block().vars)
with pd.program_guard(cnn):
    try:
        wrong = pd.layers.elementwise_add(out, flat)      # [-1, 10] + [-1, 864]
    except pd.errors.ShapeError as err:
        message = str(err)
        print("ShapeError:", message)
    else:
        raise AssertionError("adding [-1, 10] to [-1, 864] was accepted")

assert "elementwise_add" in message and "[-1, 864]" in message
assert "wrong = pd.layers.elementwise_add(out, flat)" in message     # your line
assert len(cnn.global_block().ops) == ops_before and len(cnn.global_block().vars) == vars_before

# %% [markdown]
# ## 4. Blocks nest like braces
#
# > In programming languages, a block is a pair of curly braces that includes local
# > variables definitions and a sequence of instructions, or operators.
# > (*Design Doc: Block and Scope*)
#
# That design document sets three representations of computation side by side: a
# *sequence of layers* (Caffe, Torch, the first Paddle), a *graph of operators*
# (TensorFlow, Caffe2, MXNet), and *nested blocks*, like C++ and Java programs, which is
# PaddlePaddle's. A sequence cannot say "this part runs once per time step"; a flat graph
# says it with special loop nodes; nested blocks say it the way a programming language
# does, with a block inside a block, owned by the op (the `for`, the `if`) that runs it.
#
# Block 0 is the **global block**. `program.create_block()` makes a new block whose parent
# is the current block, and makes it current; `program.rollback()` makes the parent current
# again, like leaving a `}`. Control-flow layers (`IfElse`, `While`, an RNN's step) do
# exactly this inside a `with`. Here we call the two methods by hand, as *Design Doc: Python API* writes
# them.

# %%
prog = pd.Program()
print("current:", prog.current_block().idx)
outer = prog.create_block()             # { ... parent 0
print("current:", prog.current_block().idx, "parent:", outer.parent_idx)
inner = prog.create_block()             #     { ... parent 1
print("current:", prog.current_block().idx, "parent:", inner.parent_idx)
prog.rollback()                         #     }
prog.rollback()                         # }
print("current:", prog.current_block().idx, "| blocks:", prog.num_blocks,
      "| parents:", [b.parent_idx for b in prog.blocks])

assert [b.parent_idx for b in prog.blocks] == [-1, 0, 1]
assert prog.current_block() is prog.global_block()
assert [b.parent_idx for b in prog.desc.blocks] == [-1, 0, 1]   # written in the message too

# %% [markdown]
# ### Lab: the symbol table
#
# *(Optional: not on the core path.)*
#
#
# > Child block's name scopes should inherit the parent's so that OpDesc in child block can
# > reference a VarDesc that stored in parent block. (*Design Doc: Block and Scope*)
#
# Each block maps names to variables: one `VarDesc` per name per block, so declaring a
# name twice in a block returns the first declaration. `block.var(name)` looks in the block
# alone; `block.find_var(name)` climbs to the parent, its parent, and so on to the global
# block, the way a C++ compiler resolves a name used inside nested braces. A name declared
# in an inner block *shadows* the same name outside. This is the compile-time twin of
# notebook 01's scope tree: at run time each block runs in a kid scope of its parent's.

# %%
g = prog.global_block()
a = g.create_var(name="a", shape=[20, 20])
h = outer.create_var(name="h", shape=[20])
shadow = inner.create_var(name="a", shape=[5])        # a local `a` in the innermost block

print("g.create_var('a') again is a:", g.create_var(name="a", shape=[20, 20]) is a)
for blk in [g, outer, inner]:
    found = {n: blk.find_var(n) for n in ["a", "h"]}
    print(f"block {blk.idx}: find_var('a') -> {found['a']},  find_var('h') -> {found['h']}")

try:
    outer.var("a")                      # local lookup only
except pd.errors.VarNotFoundError as err:
    print("VarNotFoundError:", err)

assert outer.find_var("a") is a and inner.find_var("a") is shadow
assert inner.find_var("h") is h and g.find_var("h") is None        # never downwards
assert outer.find_var("a", recursive=False) is None

# %% [markdown]
# Drawn, the nesting is plain. `pd.viz.graph(prog)` draws each block as a box inside its
# parent's box, like braces, with the variables it declares; `pd.viz.block_tree(prog)`
# lists the same blocks with their parents and their symbol tables (and their ops, when
# they have some). Two blocks declare an `a`: block 0's `[20, 20]` and block 2's `[5]`,
# which shadows it inside block 2. These blocks were made by hand, so no op owns them
# and the tree lists each at the top level; a block owned by an op (an `IfElse` branch,
# an RNN's step) is listed under that op, as notebooks 03 and 04 show.

# %%
from IPython.display import display

display(pd.viz.graph(prog))
pd.viz.block_tree(prog)

# %% [markdown]
# The example in *Design Doc: Block and Scope* reuses an `fc` layer's weight inside an RNN's step block by name, with
# `pd.get_variable`. It looks the name up from the *current* block of the default program,
# so it finds the weight from any block nested in the global one; the step block then
# uses it (`x @ fc.w`, the design's "fc without b"). Note also where the
# layer's parameters went when the `fc` was called inside the sub-block: parameters always
# live in the global block (`create_parameter` in *Design Doc: Python API*), while the layer's ops are
# appended to the current block.

# %%
seed = pd.Program()
with pd.program_guard(seed):
    x = pd.layers.data("a", shape=[20])
    b = pd.layers.fc(x, 20, param_attr="fc.w", bias_attr="fc.b")
    step = seed.create_block()                    # an RNN's step block, say
    w = pd.get_variable("fc.w")                   # found in the parent block
    fc_without_b = pd.layers.matmul(x, w)         # the reused weight, used in the step
    inside = pd.layers.fc(x, 5)                   # a layer called inside the step block
    seed.rollback()

print("get_variable('fc.w') ->", w, "| block", w.block.idx)
print("parameters of the step's fc:", [p.name for p in seed.all_parameters()][2:],
      "in block", {p.block.idx for p in seed.all_parameters()})
print("ops of block 1:", [op.type for op in step.ops])

assert w is seed.global_block().var("fc.w") and isinstance(w, pd.Parameter)
assert all(p.block.idx == 0 for p in seed.all_parameters()) and len(seed.all_parameters()) == 4
assert [op.type for op in step.ops] == ["matmul", "mul", "elementwise_add"]
assert inside.block is step and fc_without_b.block is step
assert step.ops[0].input("Y") == ["fc.w"]     # the step's matmul reads the global weight

# %% [markdown]
# In the graph, block 1 is a cluster drawn inside block 0, and what its ops read from the
# global block (`a`, the inner layer's parameters) comes in on dashed edges, like the
# captures of a C++ lambda:

# %%
pd.viz.graph(seed)

# %% [markdown]
# ## 5. Parameters and their initializers
#
# > A parameter is a global variable with an initializer (or load) operator. [...]
# > `prepend_operator` is necessary because the constructor of `Parameter` needs to create
# > the initialize (or load) operator of the parameter, and would like to put it in the
# > *preamble* of the global block. (*Design Doc: Python API*)
#
# Without a startup program, paddle_nb does as *Design Doc: Python API* says (**Design**):
# each parameter's initializer op is prepended to the global block, into its
# **preamble**, the leading ops of the global block that read nothing and write only
# persistable variables. The design does not say how often the preamble runs. **paddle_nb**
# runs a preamble op once per scope: when the parameter already has a value in the scope,
# the op is skipped, so running the program again never re-initializes what training has
# changed ([design note](../docs/design_notes.md#the-preamble)). **PaddlePaddle** has no
# such rule: its initializers live in a startup program (below), run once.

# %%
print(f"preamble of `main`: {main.preamble_length()} ops")
for op in main.global_block().ops[:main.preamble_length()]:
    print("  ", op)

exe = pd.Executor(cpu, seed=0)
scope = pd.Scope()
dash = pd.viz.Dashboard(main, scope, exe)     # follows exe's runs in `scope`
dash

# %% [markdown]
# That is a **Dashboard** of `main`: its block tree (click a block), the selected block's
# dataflow graph, and the scopes of the last run in `scope`, each variable coloured by its
# state. When you run this cell, nothing has run yet, so `scope` is empty and every
# variable of the program is only *declared*. It is displayed once and redraws itself in
# place after every run of `exe` in `scope`, so a saved copy of this notebook shows it as
# it was at the *end* of the notebook, after four runs. Now run `main` twice, zeroing a
# weight in between.
#
# **Predict, then run:** the preamble's `uniform_random` writes `fc_0.w_0`. After we zero
# the weight by hand and run `main` again, is it still zero? What is the loss then (three
# classes)?

# %%
feed = {"image": np.random.default_rng(0).normal(size=(5, 4)).astype("float32"),
        "label": np.array([[0], [1], [2], [1], [0]], dtype="int64")}
first = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]

w = scope.find_var("fc_0.w_0").get_tensor()
w.set(np.zeros((4, 8), "float32"), cpu)           # as if training had changed it
second = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]
print("loss, first run:", first, "| after zeroing fc_0.w_0 and running again:", second)
print("fc_0.w_0 is still all zeros:", not w.numpy().any())

assert main.preamble_length() == 4
preamble = main.global_block().ops[:4]
assert [op.type for op in preamble] == ["uniform_random", "fill_constant"] * 2
assert not w.numpy().any()                        # the initializer was skipped
assert np.isclose(second, np.log(3.0), rtol=1e-5)      # zero hidden -> equal logits
assert dash.runs == 2 and dash.run["label"] == "run 2"
assert [(c["name"], c["what"]) for c in dash.changes] == [("fc_0.w_0", "value")]

# %% [markdown]
# Look back up: the dashboard changed in place. Its scope pane shows the last run: your
# scope now holds the four parameters (allocated: the preamble ran once, in the first
# run), and under it the run's kid scope, whose temporaries were freed after their last
# use; the changes since the run before are marked (here `fc_0.w_0`'s value, which we
# zeroed; section 7 runs `main` again, and the dashboard follows).

# %% [markdown]
# **PaddlePaddle**'s Fluid API, already before its 1.0 release, puts initializers into a
# separate **startup program**, run once before training. Give `program_guard` a second program and the initializers go there;
# the main program is then only the model.

# %%
main2, startup = pd.Program(), pd.Program()
with pd.program_guard(main2, startup):
    x = pd.layers.data("x", shape=[4])
    y = pd.layers.fc(x, 2)

print("startup ops:", [op.type for op in startup.global_block().ops])
print("main ops:   ", [op.type for op in main2.global_block().ops])

scope2 = pd.Scope()
exe.run(startup, scope=scope2)                    # initialize once
print("after startup, scope2 holds:", scope2.local_var_names())
result = exe.run(main2, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y], scope=scope2)[0]
print("y:", result.shape)

assert [op.type for op in startup.global_block().ops] == ["uniform_random", "fill_constant"]
assert main2.preamble_length() == 0
assert [op.type for op in main2.global_block().ops] == ["mul", "elementwise_add"]
assert scope2.local_var_names() == ["fc_0.w_0", "fc_0.b_0"] and result.shape == (2, 2)

# %% [markdown]
# ### Lab: a `load` initializer
#
# *(Optional: not on the core path.)*
#
# *Design Doc: Python API* names a second kind of initializer: `init_attr={type: "load",
# filename: "something.numpy"}`, a parameter whose first value is read from a file.
# `pd.initializer.Load(path)` writes that `load` op into the preamble (paddle_nb reads a
# `.npy` file, or PaddlePaddle's tensor format):

# %%
import os
import tempfile

saved = np.arange(6, dtype="float32").reshape(2, 3)
path = os.path.join(tempfile.mkdtemp(), "something.npy")
np.save(path, saved)
loaded = pd.Program()
with pd.program_guard(loaded):
    p = loaded.global_block().create_parameter(name="p", shape=[2, 3], dtype="float32",
                                               initializer=pd.initializer.Load(path))
print("preamble:", [op.type for op in loaded.global_block().ops])
scope3 = pd.Scope()
exe.run(loaded, scope=scope3)
print("p =", scope3.find_var("p").get_tensor().numpy().tolist())
assert [op.type for op in loaded.global_block().ops] == ["load"]
assert np.array_equal(scope3.find_var("p").get_tensor().numpy(), saved)

# %% [markdown]
# ## 6. Printing a program, and a round trip through bytes
#
# `print(program)` shows every block: its variables with dtype and shape, then its ops as
# `outputs = type(inputs) {attributes}`. A block owned by an op would print indented under
# it.

# %%
print(main)

# %% [markdown]
# `serialize()` gives the `ProgramDesc` as bytes, the format of PaddlePaddle's `__model__`
# and `.pdmodel` files; `pd.Program.parse(bytes)` reads it back. Since the message is the
# whole program, nothing is lost: the parsed program serializes to the same bytes and
# prints the same text.

# %%
data = main.serialize()
again = pd.Program.parse(data)
print(f"{len(data)} bytes; parsed back: {again!r}")

assert again.serialize() == data                  # byte-identical
assert str(again) == str(main)
assert again is not main and again.global_block().var("fc_0.w_0").shape == (4, 8)

# %% [markdown]
# ## 7. Prune, eval and run
#
# > There is another important interface called `Eval`, which take some arguments called
# > targets, and generate a minimal graph which takes targets as the end points and creates
# > a new Block. (*Design Doc: Block and Scope*)
#
# `program.prune(targets)` walks the global block backwards and keeps only the ops that the
# targets depend on (and the variables those ops touch). To compute `hidden` nothing after
# the first layer is needed, and `label` is not even read:

# %%
small = main.prune([hidden])
print(small)

kept = [op.type for op in small.global_block().ops]
assert kept == ["uniform_random", "fill_constant", "mul", "elementwise_add", "relu"]
assert small.global_block().find_var("label") is None
assert len(main.global_block().ops) == 11          # the original is untouched

# %% [markdown]
# `exe.eval(targets, feed=...)` prunes, then runs: it needs only the feeds the pruned
# program reads. `exe.run(program, feed, fetch_list, scope)` runs the whole global block.
# Either way temporaries live in a kid scope of `scope` that is destroyed when the run
# ends; only persistable variables (the parameters) stay.

# %%
h_eval = exe.eval([hidden], program=main, feed={"image": feed["image"]}, scope=scope)[0]
h_run, loss_run = exe.run(main, feed=feed, fetch_list=[hidden, loss], scope=scope)
print("hidden:", h_eval.shape, "| loss:", loss_run)
print("the scope after the runs:", scope.local_var_names(), "| kids:", scope.kids)

assert np.array_equal(h_eval, h_run) and h_eval.shape == (5, 8)
assert sorted(scope.local_var_names()) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
assert scope.kids == []
assert dash.runs == 4          # the Dashboard of section 5 saw both runs

# %% [markdown]
# Look back up at the Dashboard of section 5: it changed in place again. It has seen four
# runs in `scope` now. The `eval` ran a pruned copy of `main` ("another program") that
# computes only `hidden`, so the last run, of `main` itself, marks `label` and the
# variables of the second layer and of the loss `new` again.

# %% [markdown]
# ## 8. The backward pass is more ops
#
# > A key difference is that a C++ program describes a one pass computation, whereas a
# > deep learning program describes both the forward and backward passes.
# > (*Design Doc: Block and Scope*)
#
# `pd.append_backward(loss)` does not compute anything. It appends ops to the same block:
# one op filling `loss@GRAD` with ones, then, for each forward op in reverse order, the
# op's gradient ops (`mul` → `mul_grad`), whose outputs are named `x@GRAD`. It returns the
# `(parameter, gradient)` pairs. A linear regression shows it plainly:

# %%
reg = pd.Program()
with pd.program_guard(reg):
    x = pd.layers.data("x", shape=[3])
    y = pd.layers.data("y", shape=[1])
    pred = pd.layers.fc(x, 1)
    cost = pd.layers.mean(pd.layers.square_error_cost(pred, y))
    n_forward = len(reg.global_block().ops)
    pairs = pd.append_backward(cost)

print("pairs:", [(p.name, g.name) for p, g in pairs])
lines = str(reg).splitlines()
first = next(k for k, line in enumerate(lines) if line.strip().startswith(f"#{n_forward} "))
print("\n".join(lines[first:]))

grad_ops = reg.global_block().ops[n_forward:]
assert [op.type for op in grad_ops] == ["fill_constant", "mean_grad", "square_grad",
                                        "elementwise_sub_grad", "elementwise_add_grad",
                                        "mul_grad"]
assert grad_ops[0].attr("op_role") == OpRole.BACKWARD | OpRole.LOSS
assert all(op.attr("op_role") == OpRole.BACKWARD for op in grad_ops[1:])
assert [(p.name, g.name) for p, g in pairs] == [("fc_0.w_0", "fc_0.w_0@GRAD"),
                                                ("fc_0.b_0", "fc_0.b_0@GRAD")]

# %% [markdown]
# The grad ops are ordinary ops: they print, serialize and run like any other. Running the
# program computes the forward values and then the gradients, which we can check against
# the formula for this model, $\partial L/\partial W = \frac{2}{N} X^\top(XW + b - y)$:

# %%
rng = np.random.default_rng(1)
xs, ys = rng.normal(size=(6, 3)).astype("float32"), rng.normal(size=(6, 1)).astype("float32")
reg_scope = pd.Scope()
dw, db = exe.run(reg, feed={"x": xs, "y": ys}, fetch_list=[g for _, g in pairs],
                 scope=reg_scope)
W = reg_scope.find_var("fc_0.w_0").get_tensor().numpy()
b = reg_scope.find_var("fc_0.b_0").get_tensor().numpy()
residual = xs @ W + b - ys
print("dW from the program:", dw.ravel())
print("dW from the formula:", (2 / len(xs) * xs.T @ residual).ravel())

assert np.allclose(dw, 2 / len(xs) * xs.T @ residual, atol=1e-5)
assert np.allclose(db, 2 / len(xs) * residual.sum(0), atol=1e-5)
assert pd.Program.parse(reg.serialize()).serialize() == reg.serialize()


# %% [markdown]
# ## Summary
#
# - A program is a protobuf message (`ProgramDesc` → `BlockDesc` → `OpDesc`, `VarDesc`);
#   `Program`, `Block`, `Operator` and `Variable` are views that write it as you go.
# - Appending an op checks it and infers its outputs' shapes at once (`-1` for the batch);
#   a mistake is reported at your line and leaves the block unchanged.
# - Blocks nest: `create_block` / `rollback`; `find_var` and `pd.get_variable` climb to the
#   parent blocks, and an inner name shadows an outer one.
# - Parameters live in the global block; their initializers sit in its preamble (the
#   design's place; run once per scope is paddle_nb's rule) or in a startup program
#   (PaddlePaddle's way).
# - A program prints as text and round-trips through bytes unchanged; `prune` keeps what
#   targets need, `eval` prunes and runs.
# - `append_backward` appends grad ops, ordinary ops writing `x@GRAD`.
#
# ## Exercises
#
# Try each one in the empty cell below it, then open the solution. The solutions are run,
# after the notebook, by the project's tests.
#
# **1. Read the message, not the views.** Write `outline(program)` that returns, for each
# block, `(idx, parent_idx, number of vars, number of ops)` using only `program.desc` (the
# protobuf message). Check it against `Block.idx`, `Block.parent_idx`, `Block.vars` and
# `Block.ops` on the `prog` and `seed` programs of section 4.

# %%
# Exercise 1: your answer here
def outline(program):
    ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def outline(program):
#     return [(b.idx, b.parent_idx, len(b.vars), len(b.ops)) for b in program.desc.blocks]
#
#
# for p in [prog, seed]:
#     views = [(b.idx, b.parent_idx, len(b.vars), len(b.ops)) for b in p.blocks]
#     assert outline(p) == views, (outline(p), views)
#     print(outline(p))
# ```
#
# </details>
#
# **2. Predict what prune keeps.** Build a program with one input `x` (shape `[4]`) and two
# heads, `y1 = fc(x, 2)` and `y2 = fc(x, 3, act="relu")`. Before running anything, write down the
# op types that `prune([y2])` keeps, in order, then check. Finally, show that
# `exe.eval([y2], ...)` gives the same values as fetching `y2` from a full run in the same
# scope.

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# The first head's two initializers and two ops are dropped; the second head's
# initializers stay, because `y2` reads the parameters they write.
#
# ```python
# two = pd.Program()
# with pd.program_guard(two):
#     x = pd.layers.data("x", shape=[4])
#     y1 = pd.layers.fc(x, 2)
#     y2 = pd.layers.fc(x, 3, act="relu")
#
# kept = [op.type for op in two.prune([y2]).global_block().ops]
# print(kept)
# assert kept == ["uniform_random", "fill_constant", "mul", "elementwise_add", "relu"]
#
# s = pd.Scope()
# xs = np.random.default_rng(2).normal(size=(3, 4)).astype("float32")
# full = exe.run(two, feed={"x": xs}, fetch_list=[y2], scope=s)[0]
# evaluated = exe.eval([y2], program=two, feed={"x": xs}, scope=s)[0]
# assert np.array_equal(full, evaluated)
# ```
#
# </details>
#
# **3. Freeze a layer.** Build `hidden = fc(x, 4, act="tanh")`, `out = fc(hidden, 1)` and
# a mean squared error against `y`. Append a backward pass that gives gradients only for
# the *second* layer (try both `no_grad_set` and `parameter_list`; for the second, append to
# `program.clone(for_test=True)`, a copy of the program's forward part). Run it once, take one
# step of gradient descent by hand (`w -= 0.1 * grad`, writing into the tensors in the
# scope), and check that the loss went down while the first layer's weights did not move.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# frozen = pd.Program()
# with pd.program_guard(frozen):
#     x = pd.layers.data("x", shape=[3])
#     y = pd.layers.data("y", shape=[1])
#     hidden = pd.layers.fc(x, 4, act="tanh")
#     out = pd.layers.fc(hidden, 1)
#     cost = pd.layers.mean(pd.layers.square_error_cost(out, y))
#     pairs = pd.append_backward(cost, no_grad_set={"fc_0.w_0", "fc_0.b_0"})
# print("pairs:", [(p.name, g.name) for p, g in pairs])
# assert [p.name for p, _ in pairs] == ["fc_1.w_0", "fc_1.b_0"]
# assert frozen.global_block().find_var("fc_0.w_0@GRAD") is None
#
# # parameter_list says the same thing from the other side
# other = frozen.clone(for_test=True)               # the forward only
# with pd.program_guard(other):
#     again = pd.append_backward(other.global_block().var(cost.name),
#                                parameter_list=["fc_1.w_0", "fc_1.b_0"])
# assert [(p.name, g.name) for p, g in again] == [(p.name, g.name) for p, g in pairs]
#
# rng = np.random.default_rng(3)
# feed3 = {"x": rng.normal(size=(8, 3)).astype("float32"),
#          "y": rng.normal(size=(8, 1)).astype("float32")}
# s = pd.Scope()
# before, *grads = exe.run(frozen, feed=feed3, fetch_list=[cost] + [g for _, g in pairs], scope=s)
# w0 = s.find_var("fc_0.w_0").get_tensor().numpy()
# for (param, _), grad in zip(pairs, grads):
#     t = s.find_var(param.name).get_tensor()
#     t.set(t.numpy() - 0.1 * grad, cpu)
# after = exe.run(frozen, feed=feed3, fetch_list=[cost], scope=s)[0]
# print("loss before:", before, "after one step:", after)
# assert after < before
# assert np.array_equal(s.find_var("fc_0.w_0").get_tensor().numpy(), w0)
# ```
#
# </details>
