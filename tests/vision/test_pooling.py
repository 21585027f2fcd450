"""paddle.vision.ops' psroi_pool, PSRoIPool and RoIAlign built through paddle_nb's API on
the feeds of interop/ops/detection_grad_refs.py's cases: the same op types as PaddlePaddle
2.6.2's programs, and its outputs and gradients. (The API sweep compares nms, roi_pool,
RoIPool, deform_conv2d and DeformConv2D; 2.6.2's static psroi_pool reads its ROIs' LoD,
which the sweep does not feed, and the sweep's random boxes are not valid for roi_align.)"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.errors import OpBuildError
from paddle_nb.framework import unique_name
from paddle_nb.vision import ops as V

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "detection_grad_ops.npz"
REFS = np.load(FIXTURE)

COVERED = ["paddle.vision.ops.psroi_pool", "paddle.vision.ops.PSRoIPool",
           "paddle.vision.ops.RoIAlign"]

BUILDS = {
    "psroi_pool": (lambda v: V.psroi_pool(v["x"], v["r"], v["n"], 2), True),
    "psroi_pool_layer": (lambda v: V.PSRoIPool(2, spatial_scale=0.5)(v["x"], v["r"], v["n"]),
                         True),
    "roi_align_layer": (lambda v: V.RoIAlign(2, spatial_scale=0.8)(v["x"], v["r"], v["n"]),
                        False),
}


def _feeds(case):
    prefix = f"{case}/feed/"
    return {k[len(prefix):]: REFS[k] for k in REFS.files if k.startswith(prefix)}


def _forward(types):
    """The op types before the loss (``sum(out * w)``) starts."""
    return types[:types.index("elementwise_mul")] if "elementwise_mul" in types else types


def _paddle_ops(case):
    program = pd.Program.parse(REFS[f"{case}/program"].tobytes())
    return _forward([op.type for op in program.global_block().ops])


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_built_here_as_paddle_builds_it(case):
    build, with_grad = BUILDS[case]
    feeds = _feeds(case)
    main = pd.Program()
    with unique_name.guard(), static.program_guard(main, pd.Program()):
        v = {k: static.data(k, list(a.shape), str(a.dtype)) for k, a in feeds.items()
             if not k.startswith("w")}
        v["x"].stop_gradient = False
        out = build(v)
        fetch = [out]
        if with_grad:
            loss = pd.sum(out * static.data("w0", list(feeds["w0"].shape)))
            fetch += static.gradients([loss], [v["x"]])
    assert _forward([op.type for op in main.global_block().ops]) == _paddle_ops(case)
    got = static.Executor().run(main, feed=feeds, fetch_list=fetch, scope=pd.Scope())
    wants = [REFS[k] for k in REFS.files if k.startswith(f"{case}/fetch/")]
    for value, want in zip(got, wants):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5)


def test_refusals_name_what_is_wrong():
    with static.program_guard(pd.Program(), pd.Program()):
        boxes = static.data("b", [4, 4])
        with pytest.raises(OpBuildError, match="categories"):
            V.nms(boxes, 0.3, scores=static.data("s", [4]),
                  category_idxs=static.data("c", [4], "int64"))
        with pytest.raises(OpBuildError, match="multiple of output_size"):
            V.psroi_pool(static.data("x", [1, 6, 4, 4]), boxes, None, 2)
