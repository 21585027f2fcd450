"""Every way of running a block gives the same answer (the forms cannot drift).

One interpreter (executor/interpreter.py) runs the global block on an env of
arrays: the plain loop, with checks, on a plan's first run; its compiled
``block_N(env)`` form after; the compiled form with an observer's hooks when
someone watches. ``reference.evaluate`` is the thirty-line statement of what a
run means. Each case of the op contract suite
(``tests/ops/cases_*.py``) becomes a one-op program run all these ways: dtypes,
shapes and values must agree with each other (bit for bit between the
executor's forms) and with the dtype shape inference declared. Ops whose kernel is made per
plan (``registry.prepared``) also run on integer and boolean inputs, where the made function is
most likely to take another branch; cases with a gradient check also run as their backward
program, so grad ops are compared too. (Sub-blocks, which run on frames or on
cells, are compared in test_differential.py.)
"""

import gc

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.executor.reference import evaluate
from paddle_nb.ops import KernelContext, registry
from tests.ops import harness
from tests.ops.test_contract import CASES

CPU = pd.CPUPlace()


def _variants(op_type):
    """(id, Case) for the op's contract cases, plus int64/int32/bool forms of each when the
    op's kernel is made per plan (the inputs' float values made small integers or signs)."""
    cases = CASES[op_type]
    out = [(f"{op_type}-{i}", c) for i, c in enumerate(cases)]
    if not hasattr(registry.get(op_type).kernel, "make"):
        return out
    for i, base in enumerate(cases):
        for dtype in ("int64", "int32", "bool"):
            inputs = {k: _as(v, dtype) for k, v in base.inputs.items()}
            out.append((f"{op_type}-{i}-{dtype}", type(base)(
                inputs=inputs, attrs=base.attrs, name=f"{base.name} as {dtype}")))
    return out


def _as(value, dtype):
    """A float input as ``dtype``: integers 1..9 (no zero divisors, exact in every op), or
    signs for bool; other inputs (indices, shapes) stay as they are."""
    if isinstance(value, list):
        return [_as(v, dtype) for v in value]
    if value is None or np.asarray(value).dtype.kind != "f":
        return value
    value = np.asarray(value)
    if dtype == "bool":
        return value > 0
    return (np.floor(np.abs(value) * 7) % 9 + 1).astype(dtype)


def _why_skipped(op_type, case):
    """A reason this case cannot be a one-op program run three ways, or None."""
    opdef = registry.get(op_type)
    if opdef.raw:
        return "a raw op reads and writes the scope itself (control flow, feed/fetch, LoD)"
    if case.seeded:
        return "the output is random: runs with different draws differ"
    try:
        harness.infer(op_type, case.inputs, case.attrs)
    except Exception as err:      # an int or bool variant the op refuses: that is the contract
        return f"shape inference refuses these inputs: {type(err).__name__}"
    try:
        harness.forward(op_type, case.inputs, case.attrs)
    except Exception as err:      # NumPy has no such arithmetic (bool - bool): nor has the op
        return f"the kernel refuses these inputs: {type(err).__name__}: {err}"[:160]
    return None


PARAMS = [pytest.param(t, c, id=i) for t in CASES if registry.exists(t)
          for i, c in _variants(t)]


def _names(prefix, slot, value):
    if isinstance(value, list):
        return [f"{prefix}_{slot}_{k}" for k in range(len(value))]
    return [f"{prefix}_{slot}"]


def one_op_program(op_type, case):
    """(program, feed, state, fetch names): the case's inputs as data variables, the op, and
    every output the kernel computes as a fetch target. An input whose op writes it back
    (``Param`` and ``ParamOut``, ``Moment1`` and ``Moment1Out``, batch_norm's ``Mean`` and
    ``MeanOut``) is a persistable updated in place, as in a training program: ``state``
    holds its value, which each run puts in its scope first."""
    opdef = registry.get(op_type)
    results = harness.forward(op_type, case.inputs, case.attrs)
    prog = pd.Program()
    block = prog.global_block()
    feed, state, inputs, outputs, fetch = {}, {}, {}, {}, []
    in_place = _updated_in_place(opdef, case, results)
    for slot in opdef.inputs:
        value = case.inputs.get(slot.name)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        names = _names("in", slot.name, value)
        for name, v in zip(names, values):
            v = np.asarray(v)
            persistable = slot.name in in_place
            block.create_var(name=name, shape=list(v.shape), dtype=v.dtype,
                             persistable=persistable)
            (state if persistable else feed)[name] = v
        inputs[slot.name] = names
    for slot in opdef.outputs:
        value = results.get(slot.name)
        if value is None:
            continue
        names = _names("out", slot.name, value)
        if slot.name[:-3] in in_place:
            names = inputs[slot.name[:-3]]
        elif harness.infer(op_type, case.inputs, case.attrs).get(slot.name) is None:
            for name, v in zip(names, value if isinstance(value, list) else [value]):
                v = np.asarray(v)      # an op that infers nothing (py_func): its caller declares
                block.create_var(name=name, shape=list(v.shape), dtype=v.dtype)
        outputs[slot.name] = names
        fetch += [n for n, v in zip(names, value if isinstance(value, list) else [value])
                  if v is not None]
    block.append_op(op_type, inputs=inputs, outputs=outputs, attrs=case.attrs)
    return prog, feed, state, fetch


def _updated_in_place(opdef, case, results):
    """Input slots X with an output slot XOut of X's shape and dtype."""
    out = set()
    for slot in opdef.inputs:
        value, written = case.inputs.get(slot.name), results.get(slot.name + "Out")
        if slot.duplicable or value is None or written is None or \
                slot.name + "Out" not in opdef.output_index:
            continue
        value = np.asarray(value)
        if value.shape == written.shape and value.dtype == written.dtype:
            out.add(slot.name)
    return out


def _scope_with(state):
    scope = pd.Scope()
    for name, value in state.items():
        scope.var(name).get_tensor().set(value.copy(), CPU)
    return scope


WAYS = ("interpreted", "compiled", "watched", "reference")


def run_every_way(prog, feed, state, fetch):
    """{way: [fetched arrays]}: one executor's first run (interpreted), second (compiled)
    and third (watched: the compiled form with hooks); the reference."""
    got = {}

    def run(exe):
        return exe.run(prog, feed={k: v.copy() for k, v in feed.items()}, fetch_list=fetch,
                       scope=_scope_with(state))
    exe = pd.Executor(CPU, seed=0)
    got["interpreted"], got["compiled"] = run(exe), run(exe)
    exe.subscribe(lambda record: None)
    got["watched"] = run(exe)
    scope = _scope_with({**state, **feed})
    evaluate(prog, scope, ctx=KernelContext(CPU, 0))
    got["reference"] = [scope.find_var(n).get_tensor().numpy() for n in fetch]
    return got


def _agree(got, k, what):
    first = got["interpreted"][k]
    for way in WAYS[1:]:
        value = got[way][k]
        assert value.dtype == first.dtype and value.shape == first.shape, (
            f"{what}: {way} gives {value.dtype}{value.shape}, "
            f"interpreted {first.dtype}{first.shape}")
        np.testing.assert_array_equal(value, first, err_msg=f"{what}: {way} vs interpreted")


@pytest.mark.parametrize("op_type,case", PARAMS)
def test_every_path_agrees(op_type, case):
    why = _why_skipped(op_type, case)
    if why:
        pytest.skip(why)
    prog, feed, state, fetch = one_op_program(op_type, case)
    got = run_every_way(prog, feed, state, fetch)
    block = prog.global_block()
    for k, name in enumerate(fetch):
        declared, value = block.var(name).dtype, got["interpreted"][k]
        assert value.dtype == declared, \
            f"{op_type}.{name}: gives {value.dtype}, inferred {declared}"
        _agree(got, k, f"{op_type}.{name}")


GRAD_PARAMS = [pytest.param(t, c, id=f"{t}-{i}") for t in CASES if registry.exists(t)
               for i, c in enumerate(CASES[t]) if c.grad]


def one_op_grad_program(op_type, case):
    """The one-op program of ``case`` (float64), with the gradients of its checked inputs
    appended by the backward pass for fed output gradients: its grad ops' kernels run
    like any other op."""
    case = type(case)(inputs={k: harness.to_float64(v) for k, v in case.inputs.items()},
                      attrs=case.attrs, grad=case.grad, grad_outputs=case.grad_outputs)
    prog, feed, state, fetch = one_op_program(op_type, case)
    block, rng = prog.global_block(), np.random.default_rng(3)
    outs = [block.var(n) for n in fetch if block.var(n).dtype.kind == "f" and (
        case.grad_outputs is None or any(n.startswith(f"out_{s}") or n in
                                         _names("in", s[:-3], 0) for s in case.grad_outputs))]
    values = pd.Executor(CPU, seed=0).run(prog, feed=feed, fetch_list=outs,   # their shapes
                                          scope=_scope_with(state))          # (some are -1)
    seeds = []
    for out, value in zip(outs, values):
        seed = block.create_var(name=f"seed_{out.name}", shape=list(value.shape),
                                dtype=out.dtype)
        feed[seed.name] = rng.standard_normal(value.shape)
        seeds.append(seed)
    wrt = [block.var(n) for slot in case.grad for n in _names("in", slot, case.inputs[slot])]
    grads = pd.gradients(outs, wrt, target_gradients=seeds)
    return prog, feed, state, [g.name for g in grads if g is not None]


@pytest.mark.parametrize("op_type,case", GRAD_PARAMS)
def test_every_path_agrees_on_gradients(op_type, case):
    why = _why_skipped(op_type, case)
    if why:
        pytest.skip(why)
    prog, feed, state, fetch = one_op_grad_program(op_type, case)
    got = run_every_way(prog, feed, state, fetch)
    for k, name in enumerate(fetch):
        _agree(got, k, f"{op_type}: {name}")


# -- divergences the agreement check found, each pinned -------------------------------------------

@pytest.fixture
def exe():
    return pd.Executor(CPU)


def _binary_program(op_type, x_shape, y_shape, dtype):
    prog = pd.Program()
    block = prog.global_block()
    x = block.create_var(name="x", shape=x_shape, dtype=dtype)
    y = block.create_var(name="y", shape=y_shape, dtype=dtype)
    op = block.append_op(op_type, inputs={"X": x, "Y": y})
    return prog, op.output("Out")[0]


@pytest.mark.parametrize("y", [[2, 3, 2], [[2, 3, 2], [-2, 4, -3]]], ids=["broadcast", "same"])
def test_integer_division_truncates_in_the_operands_dtype(exe, y):
    """PaddlePaddle 2.6.2 (interop/ops: elementwise_div on int64) gives int64 quotients rounded
    toward zero, broadcast or not; paddle_nb gave float64 [4., 3.33] on the fast path."""
    y = np.array(y, "int64")
    prog, out = _binary_program("elementwise_div", [2, 3], list(y.shape), "int64")
    x = np.array([[8, 10, -7], [7, -9, 5]], "int64")
    got, = exe.run(prog, feed={"x": x, "y": y}, fetch_list=[out], scope=pd.Scope())
    want = {1: [[4, 3, -3], [3, -3, 2]], 2: [[4, 3, -3], [-3, -2, -1]]}[y.ndim]
    assert got.dtype == np.int64 and got.tolist() == want


def test_integer_division_by_zero_is_an_error(exe):
    """As in PaddlePaddle 2.6.2 ("Integer division by zero"), not NumPy's 0 and a warning."""
    from paddle_nb.errors import OpRunError
    prog, out = _binary_program("elementwise_div", [2], [2], "int64")
    with pytest.raises(OpRunError, match="integer division by zero"):
        exe.run(prog, feed={"x": np.array([1, 5]), "y": np.array([0, 2])}, fetch_list=[out],
                scope=pd.Scope())


def test_peak_memory_counts_the_feed(exe):
    """A relu chain on a 4,000-byte feed holds the feed and relu's first output at once:
    8,000 bytes, however it runs (the env once said 4,000: it released the feed's bytes
    without having counted them)."""
    from paddle_nb.core.memory import MEMORY
    prog = pd.Program()
    with pd.program_guard(prog):
        h = pd.layers.data("x", shape=[1000], append_batch_size=False)
        for _ in range(4):
            h = pd.layers.relu(h)
    gc.collect()                  # earlier tests' scopes, freed now rather than mid-run
    MEMORY.reset_peak()
    base = MEMORY.in_use(CPU)
    exe.run(prog, feed={"x": np.ones(1000, "float32")}, fetch_list=[h], scope=pd.Scope())
    assert MEMORY.peak(CPU) - base == 8000 and MEMORY.in_use(CPU) == base


def test_a_persistable_never_aliases_a_fed_array(exe):
    """reshape2 of a feed into a parameter: changing the caller's array after the run must not
    change the parameter (a run copies its feeds; the env once did not)."""
    prog = pd.Program()
    block = prog.global_block()
    x = block.create_var(name="x", shape=[2, 3], dtype="float32")
    p = block.create_var(name="p", shape=[3, 2], dtype="float32", persistable=True)
    block.append_op("reshape2", inputs={"X": x}, outputs={"Out": p}, attrs={"shape": [3, 2]})
    scope, fed = pd.Scope(), np.arange(6, dtype="float32").reshape(2, 3)
    exe.run(prog, feed={"x": fed}, fetch_list=[p], scope=scope)
    fed[:] = -1
    assert scope.find_var("p").get_tensor().numpy().ravel().tolist() == [0, 1, 2, 3, 4, 5]
