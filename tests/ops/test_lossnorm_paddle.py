"""The loss ops and lrn against PaddlePaddle 2.6.2's own numbers.

interop/ops/lossnorm_refs.py appended each op in PaddlePaddle (``loss = sum(Out * W)`` and
its gradients) and stored feeds, outputs, gradients, the declared output shapes and the
serialized program in tests/fixtures/paddle26/ops/lossnorm.npz. Here paddle_nb computes
the same: the kernel alone, the grad ops (``Out@GRAD = W``), the grad op PaddlePaddle
wrote against the one our maker writes, and PaddlePaddle's program parsed and run here.
"""

import json

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.grad import GradContext
from tests.ops import harness
from tests.ops.paddle26 import fixture

RTOL, ATOL = 1e-5, 1e-6
CASES = ["bce_loss", "sce_plain", "sce_pos_weight", "sce_ignore_normalize", "huber_loss",
         "kldiv_none", "kldiv_mean", "kldiv_batchmean", "kldiv_sum", "log_loss", "label_smooth",
         "label_smooth_prior", "nll_mean_weight", "nll_none_ignore", "nll_4d_mean",
         "nll_4d_sum_weight", "lrn_n3", "lrn_n5", "warpctc", "warpctc_norm_by_times",
         "cross_entropy2", "hinge_loss", "rank_loss"]
# PaddlePaddle declares warpctc's WarpCTCGrad as shape (), though it holds [T, B, C]: paddle_nb
# declares the shape it holds
UNDECLARED = {("warpctc", "WarpCTCGrad")}


@pytest.fixture(scope="module")
def refs():
    return dict(np.load(fixture("lossnorm.npz", "interop/ops/lossnorm_refs.py")))


def part(refs, case, kind):
    prefix = f"{case}/{kind}/"
    return {k[len(prefix):]: v for k, v in refs.items() if k.startswith(prefix)}


def meta(refs, case):
    return json.loads(str(refs[f"{case}/meta"]))


def close(got, want, what):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{what}: {got.shape} {got.dtype}, PaddlePaddle {want.shape} {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


def test_the_fixture_is_paddle_262_with_every_case(refs):
    assert str(refs["paddle"]) == "2.6.2"
    assert sorted({k.split("/")[0] for k in refs if "/" in k}) == sorted(CASES)


@pytest.mark.parametrize("case", CASES)
def test_the_kernel_and_shape_inference_give_paddles_outputs(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    ins = {k: v for k, v in feeds.items() if k != "W"}
    got = harness.forward(m["type"], ins, m["attrs"])
    inferred = harness.infer(m["type"], ins, m["attrs"])
    for slot, want in part(refs, case, "out").items():
        close(got[slot], want, f"{case}: {slot}")
    for slot, declared in m["declared"].items():
        if (m["type"], slot) not in UNDECLARED:
            assert list(inferred[slot].shape) == declared, (case, slot)
            assert len(got[slot].shape) == len(declared) and all(
                d in (-1, n) for d, n in zip(declared, got[slot].shape)), (case, slot)


@pytest.mark.parametrize("case", CASES)
def test_the_grad_ops_give_paddles_gradients(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    ins = {k: v for k, v in feeds.items() if k != "W"}
    got = harness.analytic_grad(m["type"], ins, m["attrs"], {m["main"]: feeds["W"]})
    for slot, want in part(refs, case, "grad").items():
        close(got[slot], want, f"{case}: {slot}@GRAD")


@pytest.mark.parametrize("case", CASES)
def test_paddles_grad_op_has_the_slots_our_maker_writes(refs, case):
    program = pd.Program.parse(refs[f"{case}/program"].tobytes())
    ops = program.global_block().ops
    (fwd,) = [op for op in ops if op.type == meta(refs, case)["type"]]
    opdef = registry.get(fwd.type)
    g = GradContext(fwd.type, {s: n for s, n in fwd.inputs.items() if n},
                    {s: n for s, n in fwd.outputs.items() if n}, opdef.complete_attrs({}))
    (spec,) = opdef.grad(g)
    (grad,) = [op for op in ops if op.type == spec.type]     # (cross_entropy2's: _grad2)
    wanted = set(meta(refs, case)["grads"])
    assert spec.type == grad.type
    assert spec.inputs == {s: n for s, n in grad.inputs.items() if n}
    # our maker names every input's gradient; PaddlePaddle's leaves out stop_gradient ones
    paddles = {s: n for s, n in grad.outputs.items() if n}
    assert {s: n for s, n in spec.outputs.items() if s[:-len("@GRAD")] in wanted} == paddles


@pytest.mark.parametrize("case", CASES)
def test_paddles_program_runs_here_with_paddles_results(refs, case):
    m, feeds = meta(refs, case), part(refs, case, "feed")
    program = pd.Program.parse(refs[f"{case}/program"].tobytes())
    fetch = dict(m["outs"])
    fetch.update({f"{slot}@GRAD": name for slot, name in m["grads"].items()})
    got = pd.Executor(pd.CPUPlace()).run(
        program, feed={m["feeds"][s]: v for s, v in feeds.items()},
        fetch_list=list(fetch.values()), scope=pd.Scope())
    want = dict(part(refs, case, "out"))
    want.update({f"{s}@GRAD": v for s, v in part(refs, case, "grad").items()})
    for key, value in zip(fetch, got):
        close(value, want[key], f"{case} (PaddlePaddle's program): {key}")
