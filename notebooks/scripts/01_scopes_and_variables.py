# %% [markdown]
# # 01 · Scopes and variables
#
# PaddlePaddle keeps every run-time value (parameters, inputs, activations, optimizer
# state) in a **variable**, and every variable in a **scope**. This notebook builds both by
# hand, with no program and no executor, so that you can see the rules they follow before
# anything else relies on them. It follows three of the design documents paddle_nb
# implements: *Design of Scope in Paddle*, its earlier draft *What is a scope*, and *Design
# Doc: Variable*.
#
# > **Core path, notebook 1 of 5 · about 23 min.** Optional: sections 6 and 8, and the
# > *Lab* subsections of 4 and 7.
# > The tour's table, and how times are counted: [README.md](README.md).
#
# **Whose rule is it?** Three voices speak in this tour, and each claim says which:
#
# - **Design:** the five design documents (quoted by title);
# - **PaddlePaddle:** what PaddlePaddle itself does, checked against its C++ source
#   (`scope.h`, `dense_tensor.cc`, ...) or by running PaddlePaddle 2.6.2;
# - **paddle_nb:** a choice of this re-implementation where the other two are silent or
#   where it chose differently, with a link to the
#   [design note](../docs/design_notes.md) that records why.
#
# **What you will see**
#
# 1. A scope is a map from names to variables; `scope.var(name)` creates or gets.
# 2. Scopes form a tree: a lookup climbs from a kid to its parents, and a kid's variable
#    shadows its parent's, like names in nested blocks of source code (lexical scoping).
# 3. Only a scope makes a variable, and each variable belongs to exactly one scope.
# 4. Memory is allocated lazily: a variable is *created*, then *typed*, then *allocated*,
#    and finally *freed*; `pd.memory_stats` counts every byte.
# 5. When a tensor reuses its memory: paddle_nb's rule and PaddlePaddle's differ.
# 6. A variable can hold any one type, and says so when you ask for another.
# 7. Destroying a scope destroys its variables and kids; a reference you kept raises a
#    clear error instead of showing stale data. Who keeps whom alive: the design documents
#    and PaddlePaddle disagree.
# 8. Three exercises, with hidden solutions.
#
# Along the way `pd.viz.scope_tree(scope)` draws the scopes: each scope a box inside its
# parent's, each variable a row coloured by where it is in its life, with its bytes.
#
# Each code cell checks itself with `assert` lines, so a wrong result stops the notebook.
# Run it top to bottom (*Kernel → Restart Kernel and Run All Cells*).

# %%
import gc
import weakref

import numpy as np
import paddle_nb as pd
import paddle_nb.viz  # pd.viz: the pictures (here, scope trees)

cpu = pd.CPUPlace()


def in_use():
    """Bytes that paddle_nb's tensors hold on the CPU right now."""
    return pd.memory_stats(cpu)["in_use"]


print("bytes in use on the CPU:", in_use())

# %% [markdown]
# ## 1. A scope is a map from names to variables
#
# > Scope only contains a map of a name to variable. [...] `Create` is used to create a
# > Variable by its name and add the mapping relation. `Get` is used to find a Variable by
# > name. (*Design of Scope*)
#
# In paddle_nb the two methods are `scope.var(name)`, which returns the variable of that
# name and creates it first if it is absent (*create-or-get*), and `scope.find_var(name)`,
# which only looks and returns `None` when the name is unknown, so it doubles as
# "contains". A new variable holds nothing yet.
#
# What should `Var` do when the name already exists? **Design** says two things: the
# interface's comment, "return if already contains same name variable" (create-or-get),
# and its last section, "`Var` will return an `Error` when there is a name conflict
# locally"; its earlier draft, *What is a scope*, has only the error. **PaddlePaddle**'s
# `Scope::Var` and **paddle_nb**'s `scope.var` take the first: create-or-get.

# %%
scope = pd.Scope()
w = scope.var("w")
b = scope.var("b")
print(scope)
print("names:", scope.local_var_names())
print(w)

assert scope.local_var_names() == ["w", "b"]
assert not w.is_initialized()

# %%
print("scope.var('w') is w   ->", scope.var("w") is w)     # create-or-get: the same object
print("find_var('w') is w    ->", scope.find_var("w") is w)
print("find_var('nope')      ->", scope.find_var("nope"))  # looking never creates
print("names:", scope.local_var_names())

assert scope.var("w") is w and scope.find_var("w") is w
assert scope.find_var("nope") is None
assert scope.local_var_names() == ["w", "b"]

# %% [markdown]
# ## 2. Parents, kids and shadowing
#
# A scope can have a parent. `find_var` looks in the scope itself first, then in its
# parent, then in the parent's parent, until it finds the name or runs out of parents.
# **Design** (*Design of Scope in Paddle*) compares this with scope in a programming
# language. The right picture is *lexical* nesting, blocks written inside blocks, as in
# nested braces or a Python closure:
#
# ```python
# W = ...                  # module level: the parameters
# def model(x):            # a block
#     h = W @ x            # W is not local: found in the block around this one
#     def step():          # a block written inside it (a closure)
#         return h + W     # h and W: found by climbing outwards through the text
# ```
#
# It is *not* the call stack: a called function cannot see its caller's locals, but a kid
# scope sees all of its parent's variables.
#
# | nested blocks in source code | scopes in PaddlePaddle |
# | --- | --- |
# | module globals | the root scope: parameters such as `W` |
# | the body of a block written inside another | a kid scope: one run, one branch, one RNN time step |
# | reading a name that is not local | `kid.find_var("W")` climbs to the parent |
# | assigning a local | `kid.var("h")` creates `h` in the kid |
# | a local with an outer name hides it | a kid's variable *shadows* its parent's |
# | at run time, a frame is pushed at `{` and popped at `}` | a kid scope is made when the block is entered, but **not** destroyed when it ends: it is kept until the minibatch, backward included, completes |
#
# The last row is the point of **Design** (*Design Doc: Block and Scope*, "Stack Frames and
# the Scope Hierarchy"): the backward pass needs the values a block computed, so its scope
# outlives the block. The cell below plays one minibatch of a three-step RNN by hand: a run
# scope, a step scope made as each step is entered, the steps visited again backwards, the
# run scope destroyed at the end. At each moment it snapshots the scopes
# (`moment(...)`), and `pd.viz.frames_figure` draws the snapshots beside the stack a C++
# loop would have then. The bottom band is **PaddlePaddle**'s rule, not the design's:
# its `recurrent` op makes all `T` step scopes before the first step, and its
# `recurrent_grad` deletes the step scopes backward no longer needs (in backward through
# step `t`, those after `t + 1`; notebook 04 §5).
# Notebooks 03 and 04 draw the same figure from real runs.
#
# *Predict, then run:* how deep does the stack get, and how many step scopes are alive
# during the backward pass through step 0?

# %%
from paddle_nb.viz.frames_figure import moment

T = 3
run = pd.Scope(label="minibatch").new_scope("run")
moments = []
every = tuple(f"step {k}" for k in range(T))         # PaddlePaddle makes all T at once
for t in range(T):                                    # forward: enter step t
    run.new_scope(f"step {t}").var("h")
    moments.append(moment(f"forward in step {t}", ("main()", f"{{step {t}}}"), run, every))
for t in reversed(range(T)):                          # backward: the same steps, last first
    paddle = tuple(f"step {k}" for k in range(min(T, t + 2)))    # PaddlePaddle's (04 §5)
    moments.append(moment(f"backward in step {t}", ("main()", f"{{step {t}}}"), run, paddle))
run.destroy()                                         # the minibatch is complete
moments.append(moment("end of the minibatch", ("main()",), None))

figure = pd.viz.frames_figure(moments)
assert max(len(m.stack) for m in figure.moments) == 2          # never deeper than the braces
assert figure.rows()[-2][2] == "s0 s1 s2"                      # backward in step 0: all three
figure

# %% [markdown]
# The stack is never deeper than the nesting of the braces; the scopes pile up, one per
# block entered, until the minibatch completes.
#
# Lookups never go down into kids or sideways into siblings. `find_local_var` looks in one
# scope only; `find_scope_of` says where a name was found.

# %%
root = pd.Scope(label="root")
step = root.new_scope(label="step")     # a kid: a block inside the root's
inner = step.new_scope(label="inner")   # a grandkid: a block inside that one
W = root.var("W")
h = step.var("h")
label = {root: "root", step: "step", inner: "inner"}


def where(scope, name):
    found = scope.find_scope_of(name)
    return "-" if found is None else label[found]


print("scope  depth  parent  'W' found in  'h' found in")
for s in [root, step, inner]:
    parent = "-" if s.parent is None else label[s.parent]
    print(f"{label[s]:5}  {s.depth():5}  {parent:6}  {where(s, 'W'):12}  {where(s, 'h')}")

assert inner.find_var("W") is W and step.find_var("W") is W
assert inner.find_var("h") is h and root.find_var("h") is None   # never downwards
assert inner.find_local_var("W") is None
assert root.kids == [step] and step.kids == [inner]

# %%
inner_h = inner.var("h")           # a local of the same name in the grandkid
h.get_tensor().set(np.array([1.0, 1.0], "float32"))
inner_h.get_tensor().set(np.array([2.0, 2.0], "float32"))

print("inner.find_var('h') is the grandkid's own h ->", inner.find_var("h") is inner_h)
print("step.find_var('h') is still the kid's h     ->", step.find_var("h") is h)
print("values:", step.find_var("h").get_tensor().numpy(), inner.find_var("h").get_tensor().numpy())
print("'h' found in:", where(inner, "h"), "from inner;", where(step, "h"), "from step")

assert inner_h is not h
assert inner.find_var("h") is inner_h and step.find_var("h") is h
assert inner.find_var("h").get_tensor().numpy().tolist() == [2.0, 2.0]

# %% [markdown]
# The same tree, drawn. `pd.viz.scope_tree(scope)` shows a scope and every kid below it,
# each kid nested in its parent (the labels are the ones given to `Scope` and
# `new_scope`). Each variable is a row with its state, dtype, shape, place and bytes, and
# each scope sums its bytes, alone and with its kids. There are two `h` rows: the kid's
# and the grandkid's, which shadows it. `W` is only *created*: it holds nothing yet
# (section 4).

# %%
pd.viz.scope_tree(root)

# %% [markdown]
# ## 3. Only a scope makes a variable
#
# > Variable can only be created by Scope and a variable can only be got from Scope. [...]
# > Every variable only belongs to one certain Scope. (*Design of Scope*)
#
# **Design** enforces this in C++ with a private constructor and `friend class Scope`.
# **PaddlePaddle**'s `Variable` (`variable.h`) keeps a public constructor and relies on
# convention: `Scope::Var` calls `new Variable()`. **paddle_nb**'s `Variable` class refuses
# to be called, and every variable knows the one scope that made it (`var.scope`). Above, `inner.var("h")` did not reuse the kid's `h`: it made a second
# variable owned by `inner`.

# %%
try:
    pd.core.Variable()
except TypeError as err:
    print("TypeError:", err)
else:
    raise AssertionError("a Variable was made without a scope")

for var in [W, h, inner_h]:
    print(f"variable {var.name!r} belongs to {label[var.scope]}")

assert W.scope is root and h.scope is step and inner_h.scope is inner


# %% [markdown]
# ## 4. A variable's life: lazy allocation
#
# > a variable holds nothing until `Variable::GetMutable<Tensor>()` allocates a tensor and
# > puts it in the variable. Similarly, a tensor gets its memory until
# > `Tensor::mutable_data()`. (*Design Doc: Variable*)
#
# So memory is taken only when something is about to write into it. paddle_nb names the
# steps of a variable's life; the widgets of later notebooks colour them:
#
# | state | what exists | how it gets there |
# | --- | --- | --- |
# | declared | a description of the variable in a program block, nothing at run time | building a program (a later notebook) |
# | created | a `Variable` in a scope, holding nothing | `scope.var(name)` |
# | typed | the variable holds an empty `LoDTensor`: no shape, no dtype, no memory | `var.get_tensor()`, short for `var.get_mutable(pd.LoDTensor)` |
# | allocated | the tensor has memory on a place, counted by `pd.memory_stats(place)` | `tensor.mutable_data(place, dtype, shape)` or `tensor.set(array, place)` |
# | freed | the memory is given back; a kept reference raises | `scope.erase(name)` or destroying the scope |
#
# The helper below reads the state of a variable with the public API only. Then we walk
# one variable through its life, with *Design Doc: Variable*'s own example: a `float16` tensor of shape
# `(100, 200)`.

# %%
def life(var):
    """created, typed, allocated or freed: where a run-time variable is in its life."""
    try:
        if not var.is_initialized():
            return "created"
        return "allocated" if var.get_tensor().is_allocated() else "typed"
    except pd.errors.ScopeDestroyedError:
        return "freed"


scope = pd.Scope()
before = in_use()

x = scope.var("x")
print(f"{life(x):9} is_initialized={x.is_initialized()}  bytes in use: +{in_use() - before}")

t = x.get_tensor()
print(f"{life(x):9} is_allocated={t.is_allocated()}  shape={t.shape}  dtype={t.dtype}  "
      f"nbytes={t.nbytes}  bytes in use: +{in_use() - before}")

assert life(x) == "typed" and t.shape is None and t.nbytes == 0 and in_use() == before

# %% [markdown]
# A typed tensor has nothing to read yet; asking for its data says so, and names the
# variable:

# %%
try:
    t.numpy()
except pd.errors.NotAllocatedError as err:
    print("NotAllocatedError:", err)
else:
    raise AssertionError("an unallocated tensor returned data")

# %%
data = t.mutable_data(cpu, "float16", (100, 200))     # now, and only now, memory is taken
data[:] = 0.5
print(f"{life(x):9} is_allocated={t.is_allocated()}  shape={t.shape}  dtype={t.dtype}  "
      f"place={t.place}  nbytes={t.nbytes}  bytes in use: +{in_use() - before}")
print("pd.memory_stats(cpu) =", pd.memory_stats(cpu))

assert life(x) == "allocated"
assert t.shape == (100, 200) and t.dtype == np.float16 and t.nbytes == 100 * 200 * 2
assert in_use() - before == 40_000

# %% [markdown]
# `pd.memory_stats(cpu)` counts every tensor on the CPU, so its `in_use` also includes the
# two small `h` tensors of section 2 (16 bytes); `allocations` and `releases` count calls.
# Erasing the variable (the design's `DeleteVariable`) frees it:

# %%
scope.erase("x")                      # the design's DeleteVariable
print(f"{life(x):9} bytes in use: +{in_use() - before}   names left: {scope.local_var_names()}")

assert life(x) == "freed" and in_use() == before and scope.find_var("x") is None

# %% [markdown]
# ### Lab: the three states, drawn
#
# *(Optional: not on the core path.)*
#
# Three variables stopped at three points of that life, side by side, drawn by
# `pd.viz.scope_tree`: `a` is created (grey), `b` typed (yellow, no shape, no bytes), `c`
# allocated (green, with its dtype, shape, place and 40,000 bytes). The drawing is a
# snapshot taken when it is made; destroying the scope afterwards gives the bytes back.

# %%
lazy = pd.Scope(label="three states")
lazy.var("a")                                                       # created
lazy.var("b").get_tensor()                                          # typed
lazy.var("c").get_tensor().mutable_data(cpu, "float16", (100, 200))  # allocated
drawing = pd.viz.scope_tree(lazy)                                   # a snapshot, now
print(f"bytes in use with the scope: +{in_use() - before}")
assert [life(lazy.find_var(n)) for n in "abc"] == ["created", "typed", "allocated"]

lazy.destroy()
print(f"after destroying it:         +{in_use() - before}")
assert in_use() == before
drawing

# %% [markdown]
# ## 5. When is memory reused?
#
# In **PaddlePaddle** a kernel calls `mutable_data` on its output every time it runs
# (paddle_nb's kernels return new arrays, which the executor holds; the rules below are for
# direct calls). **Design** (*Design Doc: Variable*) only says that memory is taken lazily,
# at the first `mutable_data`; it says nothing about a second call. Two rules answer it:
#
# - **paddle_nb:** when the tensor already has memory of the same place, dtype *and* shape,
#   that memory is returned as it is, the same array object, with no new allocation; when
#   any of the three differs, the old memory is given back and new memory is taken (a NumPy
#   array has one dtype and shape, so paddle_nb keeps one array per tensor; see the
#   [design note on memory reuse](../docs/design_notes.md#memory-reuse)).
# - **PaddlePaddle** (`DenseTensor::mutable_data` in `dense_tensor.cc`): it allocates only
#   when the tensor has no memory yet, when the place differs, or when the block it holds
#   is *too small* for the new dtype and shape. A smaller or same-sized request reuses the
#   block, whatever its dtype and shape.
#
# paddle_nb can follow either rule: `pd.core.memory_reuse("paddle")` switches
# `mutable_data` to PaddlePaddle's for the cells inside the `with`. Under it a smaller
# request is a *view* of the block the tensor allocated first (a NumPy array seeing the
# block's first bytes), `t.nbytes` is what the request asked for and `t.capacity` the block
# it holds. The cell runs the same five requests under both rules.
#
# *Predict, then run:* how many new allocations does each rule make?

# %%
def replay(rule):
    """The five requests under ``rule``: one line per request, and the new allocations."""
    t = pd.Scope().var("y").get_tensor()
    start = pd.memory_stats(cpu)["allocations"]
    print(f"rule {rule!r}:  request           same array?  nbytes  capacity  allocations")
    with pd.core.memory_reuse(rule):
        for dtype, shape in [("float32", (2, 3)), ("float32", (2, 3)), ("float32", (3, 2)),
                             ("float64", (3, 2)), ("float64", (3, 2))]:
            previous = t.array() if t.is_allocated() else None
            array = t.mutable_data(cpu, dtype, shape)
            print(f"{'':17}{dtype:8} {str(shape):8} {str(array is previous):11}  "
                  f"{t.nbytes:6}  {t.capacity:8}  "
                  f"{pd.memory_stats(cpu)['allocations'] - start:11}")
    return t, pd.memory_stats(cpu)["allocations"] - start


t, ours = replay("paddle_nb")
_, theirs = replay("paddle")
assert (ours, theirs) == (3, 2)   # PaddlePaddle: float32 (3, 2) fits the 24-byte block
assert pd.core.memory_reuse_rule() == "paddle_nb"     # the with block put the default back

# %% [markdown]
# Data can also come in by copy with `set(array, place)`, and go out by copy with
# `numpy()` or `np.asarray(t)`: changing the copy never changes the tensor.

# %%
t.set(np.arange(6, dtype="float32").reshape(2, 3), cpu)
host = np.asarray(t)
host[0, 0] = 100.0
print("the copy:  ", host.tolist())
print("the tensor:", t.numpy().tolist())

assert t.numpy()[0, 0] == 0.0

# %% [markdown]
# ## 6. A variable holds one value of any type
#
# > a variable should be able to contain any typed value: a tensor in most cases, but could
# > also be some integer IDs or a scope of other variables in the case of RNN.
# > (*Design Doc: Variable*)
#
# **Design** hides the type behind a `Placeholder` and checks it with `typeid` in
# `Get<T>`; **PaddlePaddle** keeps the `Placeholder` but checks an integer id that each
# allowed type registers (`VarTypeTrait<T>::kId`), so a variable holds only registered
# types. paddle_nb does as the design says, in Python: `get_mutable(T)` makes an empty `T` on first use,
# `get(T)` returns the held value, `is_type(T)` asks. Asking for the wrong type names both
# types; asking an empty variable says it holds nothing.

# %%
scope = pd.Scope()
ids = scope.var("ids").get_mutable(list)
ids.extend([3, 1, 4])
print("ids:", scope.var("ids").get(list), "| is_type(list):", scope.var("ids").is_type(list))

for name, wanted in [("ids", pd.LoDTensor), ("empty", pd.LoDTensor)]:
    try:
        scope.var(name).get(wanted)
    except pd.errors.VariableTypeError as err:
        print("VariableTypeError:", err)

assert scope.var("ids").get(list) == [3, 1, 4]
assert not scope.var("ids").is_type(pd.LoDTensor)

# %% [markdown]
# ## 7. Destroying a scope
#
# > Scope should destruct all Variables inside it when itself is destructed. [...] If user
# > store `Variable` pointer to private data member or some global variable, the pointer
# > will be an invalid pointer when associated `Scope` is destroyed. (*Design of Scope*)
#
# In C++ such a dangling pointer may still show the old bytes, or crash.
#
# - **Design**, the earlier draft (*What is a scope*) made kept references weak pointers
#   (`VariablePtr = std::weak_ptr<Variable>`) that turn null when the scope dies; the later
#   *Design of Scope in Paddle* dropped them and only tells users not to keep the pointer.
# - **PaddlePaddle** (`scope.h`) hands out plain `Variable*` ("Caller doesn't own the
#   returned Variable"): a pointer kept past its scope dangles.
# - **paddle_nb** goes one step further than both: every use of a variable or tensor
#   reference kept past its scope raises `pd.errors.ScopeDestroyedError`, naming the
#   variable, and never returns a stale value.
#
# A scope used in a Python `with` block is destroyed when the `with` ends. That is a
# **paddle_nb** convenience for experiments like this one, *not* how programs run: the
# executor keeps the scopes of a program's blocks until the minibatch completes (**Design**,
# section 2 above). `drop_kids()` destroys every kid at once, as *Design Doc: Block and
# Scope* destroys the scope hierarchy when a minibatch completes (**PaddlePaddle** has the
# same method, `Scope::DropKids`).

# %%
root = pd.Scope(label="root")
root.var("W").get_tensor().set(np.ones((4, 4), "float32"))
before = in_use()

with root.new_scope() as step:                  # destroyed when the block ends
    kept = step.var("h").get_tensor()           # a reference we keep on purpose
    kept.set(np.full(4, 7.0, "float32"))
    print("inside:  kids =", len(root.kids), "| bytes held by the step:", in_use() - before)
    assert step.find_var("W") is root.find_var("W")

print("after:   kids =", len(root.kids), "| bytes held by the step:", in_use() - before)
try:
    kept.numpy()
except pd.errors.ScopeDestroyedError as err:
    print("ScopeDestroyedError:", err)
else:
    raise AssertionError("a destroyed tensor returned data")

assert root.kids == [] and not step.is_alive() and in_use() == before
assert root.find_var("W").get_tensor().numpy().sum() == 16.0    # the parent is untouched

# %%
steps = [root.new_scope(label=f"step {n}") for n in range(3)]    # three step scopes
for n, s in enumerate(steps):
    s.var("h").get_tensor().set(np.full(4, float(n), "float32"))
print("3 step scopes:", root.kids, "| bytes:", in_use() - before)

assert len(root.kids) == 3 and in_use() - before == 3 * 16
pd.viz.scope_tree(root)

# %% [markdown]
# Destroy one kid, the middle step: it leaves its parent's kids and its 16 bytes go back;
# the other steps and the parent are untouched. Then `drop_kids()` destroys the rest.

# %%
steps[1].destroy()
print("after destroying step 1:", root.kids, "| bytes:", in_use() - before)

assert root.kids == [steps[0], steps[2]] and in_use() - before == 2 * 16
pd.viz.scope_tree(root)

# %%
root.drop_kids()
print("after drop_kids:", root.kids, "| bytes:", in_use() - before)
print("a step scope now:", steps[0])

assert root.kids == [] and in_use() == before
assert all(not s.is_alive() for s in steps)


# %% [markdown]
# ### Lab: who keeps whom alive
#
# *(Optional: not on the core path.)*
#
#
# > Using a `shared_ptr` because when a local scope is using, its parents cannot be
# > destroyed. (*Design of Scope in Paddle*, and its draft *What is a scope*)
#
# - **Design:** a kid keeps its parent alive (`std::shared_ptr<Scope> parent_`).
# - **PaddlePaddle** (`scope.h`) turned this around: a kid holds a plain
#   `const Scope* parent_`, and the parent owns its kids (`std::list<Scope*> kids_`, "owned
#   by this class") and deletes them when it is destroyed. Nothing keeps a parent alive;
#   a kid must not outlive it.
# - **paddle_nb** does both: a parent destroys its kids (section 7), and a kid holds its
#   parent, as the design documents say: in Python a reference is what keeps an object
#   alive, and a kid whose parent vanished would be worse
#   ([design note](../docs/design_notes.md#who-keeps-a-scope-alive)).
#
# Here a function makes a root scope and returns only a kid of it. No name refers to the
# root any more, yet the kid still finds the root's variable, even after a garbage
# collection: the kid holds its parent.

# %%
def make_kid():
    root = pd.Scope()
    root.var("W").get_tensor().set(np.arange(3, dtype="int64"))
    return root.new_scope(), weakref.ref(root)


kid, root_ref = make_kid()
gc.collect()
print("root still alive:", root_ref() is not None)
print("kid.find_var('W'):", kid.find_var("W").get_tensor().numpy())

assert root_ref() is not None and kid.parent is root_ref()
del kid

# %% [markdown]
# ## 8. The global scope
#
# Programs run in `pd.global_scope()` unless told otherwise; `pd.scope_guard(scope)` puts
# another scope in its place for the length of a `with` block, which keeps experiments
# apart. The guarded scope is not destroyed when the block ends.

# %%
mine = pd.Scope()
with pd.scope_guard(mine):
    print("inside the guard, global_scope() is mine:", pd.global_scope() is mine)
    pd.global_scope().var("lr")
print("after it:", pd.global_scope() is mine, "| mine still holds", mine.local_var_names())

assert pd.global_scope() is not mine and mine.local_var_names() == ["lr"]


# %% [markdown]
# ## Summary
#
# - A scope maps names to variables. `var` creates or gets; `find_var` only looks, first
#   locally and then in each ancestor, so the nearest variable of a name wins.
# - Only a scope makes a variable, and each variable belongs to exactly one scope.
# - A variable is created empty, typed by `get_tensor()`, allocated by `mutable_data` or
#   `set`, and freed with its scope; `pd.memory_stats(place)` counts the bytes.
# - paddle_nb's `mutable_data` reuses memory when place, dtype and shape match;
#   PaddlePaddle's whenever the block it holds is on the place and big enough, and
#   `pd.core.memory_reuse("paddle")` switches paddle_nb to that rule.
# - Scope lookup is lexical nesting, not the call stack; and unlike a stack frame a block's
#   scope is kept until the minibatch completes (the design documents' central point).
# - Destroying a scope destroys its variables and kids, and a reference kept past that
#   raises `ScopeDestroyedError`. A kid keeps its parent alive (the design documents and
#   paddle_nb); in PaddlePaddle the parent owns its kids.
#
# ## Exercises
#
# Try each one in the empty cell below it, then open the solution. The solutions are run,
# after the notebook, by the project's tests.
#
# **1. Where does a name come from?** Write `owner(scope, name)` that returns the scope in
# which `scope.find_var(name)` finds `name`, or `None`. Use only `find_local_var` and
# `parent`, then compare your answer with `find_scope_of` on the `root`/`step`/`inner`
# tree of section 2 (rebuild it if you like).

# %%
# Exercise 1: your answer here
def owner(scope, name):
    ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def owner(scope, name):
#     while scope is not None:
#         if scope.find_local_var(name) is not None:
#             return scope
#         scope = scope.parent
#     return None
#
#
# root = pd.Scope()
# step = root.new_scope()
# inner = step.new_scope()
# root.var("W"); step.var("h"); inner.var("h")
# for s in [root, step, inner]:
#     for name in ["W", "h", "nope"]:
#         assert owner(s, name) is s.find_scope_of(name)
# assert owner(inner, "h") is inner and owner(step, "h") is step and owner(root, "h") is None
# print("owner agrees with find_scope_of")
# ```
#
# </details>
#
# **2. Predict, then check.** A fresh tensor gets `mutable_data(cpu, "float32", (10, 10))`,
# then `mutable_data(cpu, "float32", (100,))`, then `mutable_data(cpu, "float64", (10, 10))`,
# then `mutable_data(cpu, "float64", (10, 10))` again. Write down the bytes in use and the
# number of new allocations after each call, then check with `pd.memory_stats(cpu)`.
# Then predict the allocations under PaddlePaddle's rule, and check them inside
# `with pd.core.memory_reuse("paddle"):` (section 5).

# %%
# Exercise 2: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# Under paddle_nb's rule the same size is not enough: the shape `(100,)` differs from
# `(10, 10)`, so the second call reallocates; the last call matches all three and reuses.
# Under PaddlePaddle's rule the second call fits in the 400-byte block and reuses it; only
# the float64 request (800 bytes) outgrows it: two allocations in all, not three.
#
# ```python
# t = pd.Scope().var("t").get_tensor()
# start = pd.memory_stats(cpu)
# seen = []
# for dtype, shape in [("float32", (10, 10)), ("float32", (100,)),
#                      ("float64", (10, 10)), ("float64", (10, 10))]:
#     t.mutable_data(cpu, dtype, shape)
#     now = pd.memory_stats(cpu)
#     seen.append((now["in_use"] - start["in_use"], now["allocations"] - start["allocations"]))
# print(seen)
# assert seen == [(400, 1), (400, 2), (800, 3), (800, 3)]
#
# with pd.core.memory_reuse("paddle"):
#     t = pd.Scope().var("t").get_tensor()
#     start = pd.memory_stats(cpu)["allocations"]
#     paddle = []
#     for dtype, shape in [("float32", (10, 10)), ("float32", (100,)),
#                          ("float64", (10, 10)), ("float64", (10, 10))]:
#         t.mutable_data(cpu, dtype, shape)
#         paddle.append(pd.memory_stats(cpu)["allocations"] - start)
# assert paddle == [1, 1, 2, 2]
# ```
#
# </details>
#
# **3. A tiny recurrent loop.** Put a `W` (4×4, all `0.5`) and an `h` (4 ones) in a root
# scope. For 3 time steps, make a step scope, read `W` and the previous step's `h` (the
# root's `h` at step 0), and store `h = W @ h_prev` in the step scope under the name `h`.
# Keep the step scopes in a root variable `step_scopes` (a `list`: a variable can hold
# "a scope of other variables"). Print the final `h`, then destroy the steps and check that
# the memory they held is back and that the first step's `h` now raises.

# %%
# Exercise 3: your answer here

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# root = pd.Scope()
# root.var("W").get_tensor().set(np.full((4, 4), 0.5, "float32"))
# root.var("h").get_tensor().set(np.ones(4, "float32"))
# before = in_use()
#
# steps = root.var("step_scopes").get_mutable(list)
# previous = root
# for n in range(3):
#     step = root.new_scope()
#     steps.append(step)
#     W = step.find_var("W").get_tensor().numpy()          # found in the root
#     h_prev = previous.find_var("h").get_tensor().numpy()  # the last step's own h
#     step.var("h").get_tensor().set(W @ h_prev, cpu)        # shadows the root's h
#     previous = step
#
# print("final h:", steps[-1].find_var("h").get_tensor().numpy())
# first_h = steps[0].find_var("h")
# assert np.allclose(steps[-1].find_var("h").get_tensor().numpy(), 8.0)   # 1 -> 2 -> 4 -> 8
# assert in_use() - before == 3 * 16
#
# root.drop_kids()
# assert in_use() == before
# try:
#     first_h.get_tensor()
# except pd.errors.ScopeDestroyedError as err:
#     print("ScopeDestroyedError:", err)
# else:
#     raise AssertionError("a destroyed step's h was still readable")
# ```
#
# </details>
