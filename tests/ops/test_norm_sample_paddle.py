"""layer_norm, group_norm and instance_norm against PaddlePaddle 2.6.2's own numbers.

interop/ops/norm_refs.py ran each op in PaddlePaddle (``loss = sum(Y * W)`` and its
gradients) and stored feeds, outputs, gradients and the serialized program in
tests/fixtures/paddle26/ops/norm_sample.npz. Here paddle_nb computes the same three ways:
the op's kernel alone, its grad ops (with ``Y@GRAD = W``), and PaddlePaddle's program
itself, parsed and run by paddle_nb's Executor (so the grad ops' slots are the ones 2.6
writes). Mean and Variance are compared too: what each op saves (the variance, or
1/sqrt(var + eps)) and their shapes.
"""

import json
import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops import registry
from paddle_nb.ops.grad import GradContext
from tests.ops import harness

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/ops/norm_sample.npz"
RTOL, ATOL = 2e-5, 2e-5


@pytest.fixture(scope="module")
def refs():
    if not FIXTURE.is_file():
        pytest.skip(f"{FIXTURE} is absent (interop/ops/norm_refs.py writes it)")
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
