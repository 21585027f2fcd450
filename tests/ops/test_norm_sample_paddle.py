"""layer_norm, group_norm and instance_norm against PaddlePaddle 2.6.2's own numbers.

interop/ops/norm_refs.py ran each op in PaddlePaddle (``loss = sum(Y * W)`` and its
gradients) and stored feeds, outputs, gradients and the serialized program in
tests/fixtures/paddle26/ops/norm_sample.npz. Here paddle_nb computes the same four ways:
the op's kernel alone, its grad ops (with ``Y@GRAD = W``), PaddlePaddle's program itself,
parsed and run by paddle_nb's Executor (so the grad ops' slots are the ones 2.6 writes),
and the program built by paddle_nb with an unknown batch and ``pd.gradients``. Mean and
Variance are compared too: what each op saves (the variance, or 1/sqrt(var + eps)) and
their shapes.
"""

import json
import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops import KernelContext, registry
from paddle_nb.ops.machinery.grad import GradContext
from tests.ops import harness

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/ops/norm_sample.npz"
RTOL, ATOL = 2e-5, 2e-5


@pytest.fixture(scope="module")
def refs():
    if not FIXTURE.is_file():
        pytest.fail(f"{FIXTURE} is absent (interop/ops/norm_refs.py writes it)")
    return dict(np.load(FIXTURE))


CASES = ["layer_norm_axis2", "layer_norm_plain", "group_norm_nchw", "group_norm_nhwc",
         "instance_norm_4d", "instance_norm_3d"]


def part(refs, case, kind):
    """{slot: array} of one case's feeds, outputs or gradients."""
    prefix = f"{case}/{kind}/"
    return {k[len(prefix):]: v for k, v in refs.items() if k.startswith(prefix)}


def meta(refs, case):
    return json.loads(str(refs[f"{case}/meta"]))


def close(got, want, what):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{what}: {got.shape} {got.dtype}, PaddlePaddle {want.shape} {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


def test_the_fixture_is_paddle_262(refs):
    assert str(refs["paddle"]) == "2.6.2"
    assert sorted({k.split("/")[0] for k in refs if "/" in k}) == sorted(CASES)


@pytest.mark.parametrize("case", CASES)
def test_the_kernel_gives_paddles_outputs(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    ins = {k: v for k, v in feeds.items() if k != "W"}
    got = harness.forward(m["type"], ins, m["attrs"])
    for slot, want in part(refs, case, "out").items():
        close(got[slot], want, f"{case}: {slot}")


@pytest.mark.parametrize("case", CASES)
def test_the_grad_ops_give_paddles_gradients(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    ins = {k: v for k, v in feeds.items() if k != "W"}
    got = harness.analytic_grad(m["type"], ins, m["attrs"], {"Y": feeds["W"]})
    for slot, want in part(refs, case, "grad").items():
        close(got[slot], want, f"{case}: {slot}@GRAD")


@pytest.mark.parametrize("case", CASES)
def test_paddles_grad_op_has_the_slots_our_maker_writes(refs, case):
    program = pd.Program.parse(refs[f"{case}/program"].tobytes())
    ops = program.global_block().ops
    (fwd,) = [op for op in ops if op.type == meta(refs, case)["type"]]
    (grad,) = [op for op in ops if op.type == fwd.type + "_grad"]
    opdef = registry.get(fwd.type)
    g = GradContext(fwd.type, {s: n for s, n in fwd.inputs.items() if n},
                    {s: n for s, n in fwd.outputs.items() if n}, opdef.complete_attrs({}))
    (spec,) = opdef.grad(g)
    assert spec.type == grad.type
    assert spec.inputs == {s: n for s, n in grad.inputs.items() if n}
    assert spec.outputs == {s: n for s, n in grad.outputs.items() if n}


@pytest.mark.parametrize("case", CASES)
def test_paddles_program_runs_here_with_paddles_results(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    program = pd.Program.parse(refs[f"{case}/program"].tobytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    fetch = {slot: name for slot, name in m["outs"].items()}
    fetch.update({f"{slot}@GRAD": name for slot, name in m["grads"].items()})
    got = exe.run(program, feed={m["feeds"][s]: v for s, v in feeds.items()},
                  fetch_list=list(fetch.values()), scope=scope)
    want = dict(part(refs, case, "out"))
    want.update({f"{s}@GRAD": v for s, v in part(refs, case, "grad").items()})
    assert sorted(want) == sorted(fetch)
    for key, value in zip(fetch, got):
        close(value, want[key], f"{case} (PaddlePaddle's program): {key}")


def build_here(m, feeds):
    """The case's program built by paddle_nb (X and W with an unknown batch) and its grads."""
    program = pd.Program()
    with pd.program_guard(program):
        def data(name, value, stop_gradient):
            shape = [-1] + list(value.shape[1:]) if value.ndim > 1 else list(value.shape)
            return pd.layers.data(name, shape, append_batch_size=False,
                                  stop_gradient=stop_gradient)

        ins = {s: data(m["feeds"][s], v, False) for s, v in feeds.items() if s != "W"}
        w = data(m["feeds"]["W"], feeds["W"], True)
        outs = {slot: f"here_{slot.lower()}" for slot in m["outs"]}
        program.global_block().append_op(m["type"], inputs=ins, outputs=outs, attrs=m["attrs"])
        y = program.global_block().var(outs["Y"])
        loss = pd.layers.reduce_sum(pd.layers.elementwise_mul(y, w))
        grads = dict(zip(ins, pd.gradients(loss, list(ins.values()))))
    return program, outs, grads


@pytest.mark.parametrize("case", CASES)
def test_built_here_with_an_unknown_batch_it_declares_and_computes_what_paddle_does(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    program, outs, grads = build_here(m, feeds)
    block = program.global_block()
    want = part(refs, case, "out")
    for slot, name in outs.items():
        declared = block.var(name).shape
        assert len(declared) == want[slot].ndim, (slot, declared)
        # the batch is unknown: the first dim (or, flattened with it, the only one) is -1
        assert tuple(declared[1:]) == want[slot].shape[1:] and declared[0] == -1, (slot, declared)
    for slot, var in grads.items():
        assert tuple(var.shape) == tuple(block.var(m["feeds"][slot]).shape), slot
    fetch = dict(outs)
    fetch.update({f"{s}@GRAD": grads[s].name for s in part(refs, case, "grad")})
    got = pd.Executor(pd.CPUPlace()).run(
        program, feed={m["feeds"][s]: v for s, v in feeds.items()},
        fetch_list=list(fetch.values()), scope=pd.Scope())
    want.update({f"{s}@GRAD": v for s, v in part(refs, case, "grad").items()})
    for key, value in zip(fetch, got):
        close(value, want[key], f"{case} (built here): {key}")


def test_layer_norm_grad_reads_the_flat_statistics_of_older_programs(refs):
    """PaddlePaddle before 2.6 declared Mean and Variance as [prod(X.shape[:begin_norm_axis])]."""
    m, feeds = meta(refs, "layer_norm_axis2"), part(refs, "layer_norm_axis2", "feed")
    outs = part(refs, "layer_norm_axis2", "out")
    opdef = registry.get("layer_norm_grad")
    attrs = opdef.complete_attrs(m["attrs"])
    ctx = KernelContext(pd.CPUPlace(), 0)
    args = [feeds["X"], feeds["Scale"], feeds["Bias"], outs["Mean"], outs["Variance"], feeds["W"]]
    shaped = opdef.kernel(ctx, *args, **attrs)
    args[3:5] = [outs["Mean"].reshape(-1), outs["Variance"].reshape(-1)]
    for got, want in zip(opdef.kernel(ctx, *args, **attrs), shaped):
        np.testing.assert_array_equal(got, want)
