"""Hypothesis strategies for small random programs, as plain data, and their builder.

A program is drawn as a :class:`ProgramSpec`: a list of instructions over a
growing list of values (each [2, 3] float32), persistables that it reads,
writes, resets and increments, sub-blocks (``cond``, ``IfElse``, a ``While``
with a fixed bound, a ``StaticRNN``) holding instructions of their own, and the feeds of
several runs, some of which feed persistables. Specs are plain tuples and
arrays, so a failing example prints as something a reader can rebuild by
hand; :func:`build` turns one into a paddle_nb Program with the layers API.

Instructions (``i``, ``j`` pick values by position, modulo the list's length):
``("unary", op, i)``, ``("scale", i, s, b)``, ``("binary", op, i, j)``,
``("matmul", i)`` (by the persistable W), ``("rowsum", i)``, ``("colmean", i)``,
``("fill", c)``, ``("assign", i)``, ``("read", k)`` and ``("write", i, k)`` (of
persistable p<k>), ``("reset", k, c)`` (fill p<k>), ``("count",)`` (counter += 1),
``("cond", i, then, else)``, ``("ifelse", i, then, else)``, ``("while", i, n, body)``,
``("rnn", i, step)`` (a StaticRNN over the rows of value i).
"""

import dataclasses

import numpy as np
from hypothesis import strategies as st

import paddle_nb as pd

__all__ = ["ProgramSpec", "program_specs", "build", "SHAPE", "N_PERSISTABLE"]

SHAPE = (2, 3)
N_PERSISTABLE = 3
UNARY = ["relu", "tanh", "sigmoid", "abs"]
BINARY = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_max"]
# what a sub-block may hold: an IfElse branch works on its rows only (no [2, 3] values)
ROW_KINDS = ["unary", "scale", "binary", "matmul"]
FLAT_KINDS = ROW_KINDS + ["rowsum", "colmean", "fill", "assign", "read", "write", "count"]
BLOCK_KINDS = ["cond", "ifelse", "while", "rnn"]
STEP_KINDS = ["unary", "scale", "binary"]       # an RNN step: on 1-D values (x_t, h)


@dataclasses.dataclass
class ProgramSpec:
    """A random program: instructions, which values to fetch, initial persistables, runs."""

    ops: list
    fetch: list              # positions in the top-level value list (modulo its length)
    initial: dict            # persistable name -> its value before the first run
    runs: list               # per run: the feed (name -> array), "x" and maybe persistables


def _small(draw):
    """A float from a short list, so that examples print short and shrink well."""
    return draw(st.sampled_from([-1.5, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0]))


def _array(draw, shape):
    seed = draw(st.integers(0, 2**16))
    return np.random.default_rng(seed).uniform(-1, 1, shape).round(2).astype("float32")


@st.composite
def instructions(draw, where="top", depth=0):
    """One instruction for a block of kind ``where`` (top, cond, while, row)."""
    kinds = {"row": ROW_KINDS, "step": STEP_KINDS}.get(where, FLAT_KINDS)
    if depth < 2 and where not in ("row", "step"):
        kinds = kinds + BLOCK_KINDS
    kind = draw(st.sampled_from(kinds))
    i, j = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    k = draw(st.integers(0, N_PERSISTABLE - 1))
    if kind == "unary":
        return (kind, draw(st.sampled_from(UNARY)), i)
    if kind == "scale":
        return (kind, i, _small(draw), _small(draw))
    if kind == "binary":
        return (kind, draw(st.sampled_from(BINARY)), i, j)
    if kind in ("matmul", "rowsum", "colmean", "assign"):
        return (kind, i)
    if kind == "fill":
        return (kind, _small(draw))
    if kind == "read":
        return (kind, k)
    if kind == "write":
        return (kind, i, k)
    if kind == "count":
        return (kind,)
    if kind == "while":
        body = draw(st.lists(instructions("while", depth + 1), min_size=1, max_size=3))
        return (kind, i, draw(st.integers(0, 3)), body)
    if kind == "rnn":
        return (kind, i, draw(st.lists(instructions("step", depth + 1), min_size=0, max_size=3)))
    inner = "row" if kind == "ifelse" else "cond"
    branches = [draw(st.lists(instructions(inner, depth + 1), min_size=0, max_size=3))
                for _ in range(2)]
    return (kind, i, *branches)


@st.composite
def program_specs(draw, max_ops=8, runs=3):
    """A :class:`ProgramSpec`: maybe a leading reset of a persistable, then up to
    ``max_ops`` instructions; ``runs`` feeds of x, each maybe feeding a persistable."""
    ops = []
    if draw(st.booleans()):
        ops.append(("reset", draw(st.integers(0, N_PERSISTABLE - 1)), _small(draw)))
    ops += draw(st.lists(instructions(), min_size=1, max_size=max_ops))
    fetch = draw(st.lists(st.integers(0, 15), min_size=1, max_size=3)) + [-1]
    initial = {f"p{k}": _array(draw, SHAPE) for k in range(N_PERSISTABLE)}
    initial["W"] = _array(draw, (SHAPE[1], SHAPE[1]))
    initial["counter"] = np.zeros([1], "float32")
    feeds = []
    for _ in range(runs):
        feed = {"x": _array(draw, SHAPE)}
        if draw(st.integers(0, 3)) == 0:
            feed[f"p{draw(st.integers(0, N_PERSISTABLE - 1))}"] = _array(draw, SHAPE)
        feeds.append(feed)
    return ProgramSpec(ops, fetch, initial, feeds)


# -- building --------------------------------------------------------------------------------------
def build(spec):
    """(program, fetch variables) for ``spec``; its persistables are declared in the
    global block (their values come from the scope: ``spec.initial``)."""
    program = pd.Program()
    with pd.program_guard(program):
        glob = program.global_block()
        env = {"x": pd.layers.data("x", shape=list(SHAPE), append_batch_size=False)}
        for name, value in spec.initial.items():
            env[name] = glob.create_var(name=name, shape=list(value.shape), dtype="float32",
                                        persistable=True)
        values = [env["x"]]
        for op in spec.ops:
            _emit(op, values, env)
        fetch = list({values[f % len(values)].name: values[f % len(values)]
                      for f in spec.fetch}.values())
    return program, fetch


def _emit(op, values, env):
    """Append the ops of one instruction; put its result (if any) at the end of ``values``."""
    L = pd.layers
    kind, pick = op[0], (lambda i: values[i % len(values)])
    if kind == "unary":
        out = getattr(L, op[1])(pick(op[2]))
    elif kind == "scale":
        out = L.scale(pick(op[1]), scale=op[2], bias=op[3])
    elif kind == "binary":
        out = getattr(L, op[1])(pick(op[2]), pick(op[3]))
    elif kind == "matmul":
        out = L.matmul(pick(op[1]), env["W"])
    elif kind == "rowsum":
        x = pick(op[1])
        out = L.elementwise_add(x, L.reduce_sum(x, dim=[1], keep_dim=True))
    elif kind == "colmean":
        x = pick(op[1])
        out = L.elementwise_mul(x, L.reduce_mean(x, dim=[0]))
    elif kind == "fill":
        out = L.fill_constant(list(SHAPE), "float32", op[1])
    elif kind == "assign":
        out = L.assign(pick(op[1]))
    elif kind == "read":
        out = env[f"p{op[1]}"]
    elif kind == "write":
        out = L.assign(pick(op[1]), env[f"p{op[2]}"])
    elif kind == "reset":
        out = L.fill_constant(list(SHAPE), "float32", op[2], out=env[f"p{op[1]}"])
    elif kind == "count":
        L.increment(env["counter"], 1.0, in_place=True)
        return
    else:
        out = _EMIT_BLOCK[kind](op, pick, values, env)
    values.append(out)


def _branch(ops, values, env):
    """A function emitting ``ops`` on a copy of ``values``; returns the last value."""
    def fn():
        inner = list(values)
        for op in ops:
            _emit(op, inner, env)
        return pd.layers.assign(inner[-1])      # a value of the branch's own, always
    return fn


def _emit_cond(op, pick, values, env):
    total = pd.layers.reduce_sum(pick(op[1]), dim=[0, 1], keep_dim=True)
    pred = pd.layers.less_than(total, pd.layers.fill_constant([1, 1], "float32", 0.0))
    return pd.layers.cond(pred, _branch(op[2], values, env), _branch(op[3], values, env))


def _emit_ifelse(op, pick, values, env):
    x = pick(op[1])
    rows = pd.layers.reduce_sum(x, dim=[1], keep_dim=True)
    ie = pd.layers.IfElse(pd.layers.less_than(rows, pd.layers.scale(rows, 0.0)))
    for flag, ops in ((True, op[2]), (False, op[3])):
        with (ie.true_block() if flag else ie.false_block()):
            inner = [ie.input(x)]
            for sub in ops:
                _emit(sub, inner, env)
            ie.output(pd.layers.scale(inner[-1], 1.0))
    return ie()[0]


def _emit_while(op, pick, values, env):
    L = pd.layers
    h = L.assign(pick(op[1]))                     # the loop-carried value
    i = L.fill_constant([1], "int64", 0)
    n = L.fill_constant([1], "int64", op[2])
    more = L.less_than(i, n)
    loop = L.While(more)
    with loop.block():
        inner = list(values) + [h]
        for sub in op[3]:
            _emit(sub, inner, env)
        L.assign(inner[-1], h)
        L.increment(i, in_place=True)
        L.less_than(i, n, cond=more)
    return h


def _emit_rnn(op, pick, values, env):
    """A StaticRNN over the rows of a value (2 steps of [3]); its memory starts at the
    rows' mean; the step's instructions work on [x_t, h]; the new h is the step output."""
    L = pd.layers
    x = L.assign(pick(op[1]))
    start = L.reduce_mean(x, dim=[0])
    rnn = L.StaticRNN()
    with rnn.step():
        xt = rnn.step_input(x)
        h = rnn.memory(init=start)
        inner = [xt, h]
        for sub in op[2]:
            _emit(sub, inner, env)
        new = L.scale(inner[-1], 1.0)
        rnn.update_memory(h, new)
        rnn.step_output(new)
    return rnn()


_EMIT_BLOCK = {"cond": _emit_cond, "ifelse": _emit_ifelse, "while": _emit_while,
               "rnn": _emit_rnn}
