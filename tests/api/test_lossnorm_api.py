"""paddle.nn's losses and norms, built by paddle_nb, against PaddlePaddle 2.6.2.

interop/api/lossnorm_api_refs.py built every case of interop/api/lossnorm_cases.py with
PaddlePaddle and stored what it wrote and computed in
tests/fixtures/paddle26/api/lossnorm_api.npz. Here paddle_nb builds the same cases and must
write the same op types with the same output names (the cases 2.6 composes from ops
paddle_nb writes otherwise excepted: those compare values only), the same parameters
and startup ops, and, given the same parameter values, compute the same output, the
same gradients of ``sum(out * W)`` and the same parameters after the run.
"""

import json

import numpy as np
import pytest

import paddle_nb as pd
import paddle_nb.nn as nn
import paddle_nb.nn.functional as F
from interop.api.lossnorm_cases import CASES, FEEDS, FLOAT_GRAD, VALUES_ONLY
from paddle_nb.framework import unique_name
from tests.ops.paddle26 import FIXTURES

FIXTURE = FIXTURES.parent / "api" / "lossnorm_api.npz"

_F = "paddle.nn.functional."
# the names these tests compare with PaddlePaddle (tools/api_coverage.py counts them)
COVERED = [_F + name for name in (
    "cross_entropy", "softmax_with_cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "nll_loss", "kl_div",
    "margin_ranking_loss", "soft_margin_loss", "multi_label_soft_margin_loss",
    "sigmoid_focal_loss", "dice_loss", "poisson_nll_loss", "log_loss", "square_error_cost",
    "label_smooth", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "gaussian_nll_loss", "ctc_loss", "multi_margin_loss",
    "npair_loss", "batch_norm", "layer_norm", "instance_norm", "local_response_norm")] + [
    "paddle.nn." + name for name in (
        "CrossEntropyLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss",
        "NLLLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
        "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
        "SoftMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
        "CTCLoss", "MultiMarginLoss", "BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D",
        "LayerNorm", "GroupNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D",
        "LocalResponseNorm")]
RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def refs():
    if not FIXTURE.is_file():
        pytest.fail(f"{FIXTURE} is absent (interop/api/lossnorm_api_refs.py writes it)")
    return dict(np.load(FIXTURE))


def part(refs, case, kind):
    prefix = f"{case}/{kind}/"
    return {k[len(prefix):]: v for k, v in refs.items() if k.startswith(prefix)}


def ops_of(program):
    return [[op.type, {s: list(n) for s, n in op.outputs.items() if n}]
            for op in program.global_block().ops]


def initializers(program):
    return [[op.type, list(op.outputs["Out"]), float(op.attr("value")), list(op.attr("shape"))]
            for op in program.global_block().ops]


def build(case):
    """The case built here: (main, startup, out, parameters, [(name, grad var)], W)."""
    main, startup, declared = pd.Program(), pd.Program(), {}

    def data(key):
        if key not in declared:
            value = FEEDS[key]
            declared[key] = pd.layers.data(key, list(value.shape), dtype=str(value.dtype),
                                           append_batch_size=False,
                                           stop_gradient=key not in FLOAT_GRAD)
        return declared[key]

    with unique_name.guard(), pd.program_guard(main, startup):
        out = CASES[case](F, nn, data)
        built = ops_of(main)
        params = main.global_block().all_parameters()
        w = pd.layers.data("W", list(out.shape), append_batch_size=False)
        wrt = [v for k, v in declared.items() if k in FLOAT_GRAD and not v.stop_gradient] + \
              [p for p in params if p.trainable]
        grads = pd.gradients([out], wrt, target_gradients=[w])
    pairs = [(v.name, g) for v, g in zip(wrt, grads) if g is not None]
    return main, startup, out, built, params, pairs


def test_the_fixture_is_paddle_262_with_every_case(refs):
    assert str(refs["paddle"]) == "2.6.2"
    assert sorted({k.split("/")[0] for k in refs if "/" in k} - {"feed"}) == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_it_builds_what_paddle_builds(refs, case):
    meta = json.loads(str(refs[f"{case}/meta"]))
    main, startup, out, built, params, pairs = build(case)
    assert [[p.name, list(p.shape), p.trainable] for p in params] == meta["params"]
    assert initializers(startup) == meta["startup"]
    assert list(out.shape) == meta["out_shape"]
    assert str(np.dtype(out.dtype)) == meta["out_dtype"]
    if case not in VALUES_ONLY:
        assert built == meta["ops"]
        assert out.name == meta["out"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_it_computes_what_paddle_computes(refs, case):
    meta = json.loads(str(refs[f"{case}/meta"]))
    main, startup, out, built, params, pairs = build(case)
    assert [name for name, _ in pairs] == meta["grads"]
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for name, value in part(refs, case, "param").items():
        scope.var(name).get_tensor().set(value, pd.CPUPlace())
    feed = {k: refs[f"feed/{k}"] for k in meta["feeds"]}
    feed["W"] = refs[f"{case}/W"]
    got = exe.run(main, feed=feed, scope=scope,
                  fetch_list=[out] + [g for _, g in pairs] + params)
    want = [refs[f"{case}/out"]] + [refs[f"{case}/grad/{n}"] for n, _ in pairs] + \
        [refs[f"{case}/after/{p.name}"] for p in params]
    what = ["out"] + [f"{n}@GRAD" for n, _ in pairs] + [f"{p.name} after" for p in params]
    for g, w, label in zip(got, want, what):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (label, g.shape, w.shape, g.dtype)
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"{case}: {label}")
