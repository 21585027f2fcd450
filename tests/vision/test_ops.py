"""paddle_nb.vision.ops against PaddlePaddle 2.6.2: the detection cases of
interop/ops/detection_refs.py, rebuilt with paddle_nb's functions, append the same ops with
the same attributes and output names, and compute the same values."""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.framework import unique_name
from paddle_nb.ops.machinery import registry
from paddle_nb.vision import ops as V


# the public names these tests compare with PaddlePaddle 2.6.2 (tools/api_coverage.py counts them)
COVERED = [
    "paddle.vision.ops.box_coder",
    "paddle.vision.ops.distribute_fpn_proposals",
    "paddle.vision.ops.generate_proposals",
    "paddle.vision.ops.matrix_nms",
    "paddle.vision.ops.prior_box",
    "paddle.vision.ops.roi_align",
    "paddle.vision.ops.yolo_box",
]

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "detection_ops.npz"
REFS = np.load(FIXTURE)
NMS = dict(background_label=-1, score_threshold=0.05, nms_top_k=6, nms_threshold=0.5,
           nms_eta=1.0, keep_top_k=5, normalized=False)

# the cases in the order the interop script built them (its names count across cases)
BUILDS = {
    "yolo_box": lambda v: list(V.yolo_box(v["x"], v["img"], anchors=[10, 13, 16, 30],
                                          class_num=2, conf_thresh=0.3, downsample_ratio=8)),
    "yolo_box_iou_aware": lambda v: list(V.yolo_box(
        v["x"], v["img"], anchors=[5, 6, 9, 8], class_num=2, conf_thresh=0.1,
        downsample_ratio=16, clip_bbox=False, scale_x_y=1.2, iou_aware=True,
        iou_aware_factor=0.4)),
    "box_coder_decode": lambda v: [
        V.box_coder(v["pb"], v["pbv"], v["tb"], code_type="decode_center_size",
                    box_normalized=False),
        V.box_coder(v["pb"], [0.1, 0.1, 0.2, 0.2], v["tb"], code_type="decode_center_size")],
    "box_coder_decode_axis1": lambda v: [V.box_coder(v["pb"], [0.2, 0.1, 0.3, 0.4], v["tb"],
                                                     code_type="decode_center_size", axis=1)],
    "box_coder_encode": lambda v: [
        V.box_coder(v["pb"], v["pbv"], v["tb"], code_type="encode_center_size"),
        V.box_coder(v["pb"], [0.1, 0.1, 0.2, 0.2], v["tb"], code_type="encode_center_size",
                    box_normalized=False)],
    "prior_box": lambda v: list(V.prior_box(v["feat"], v["image"], min_sizes=[4.0, 8.0],
                                            max_sizes=[8.0, 12.0], aspect_ratios=[2.0, 3.0],
                                            flip=True, clip=True))
    + list(V.prior_box(v["feat"], v["image"], min_sizes=[5.0], aspect_ratios=[1.0, 2.0],
                       variance=[0.1, 0.2, 0.3, 0.4], steps=[6.0, 7.0], offset=0.25,
                       min_max_aspect_ratios_order=True)),
    "roi_align": lambda v: [
        V.roi_align(v["feat"], v["rois"], v["rn"], output_size=2, spatial_scale=0.5,
                    sampling_ratio=2, aligned=True),
        V.roi_align(v["feat"], v["rois"], v["rn"], output_size=(3, 2), spatial_scale=0.7,
                    sampling_ratio=-1, aligned=False)],
    "multiclass_nms3": lambda v: [
        *V.multiclass_nms(v["bb"], v["sc"], return_index=True, **NMS),
        *V.multiclass_nms(v["bb"], v["sc"], return_index=True, **{
            **NMS, "background_label": 0, "keep_top_k": -1, "nms_top_k": -1,
            "normalized": True, "nms_eta": 0.9, "nms_threshold": 0.6})],
    "multiclass_nms3_empty": lambda v: list(V.multiclass_nms(v["bb"], v["sc"],
                                                             return_index=True, **NMS)),
    "matrix_nms": lambda v: [
        *V.matrix_nms(v["bb"], v["sc"], score_threshold=0.1, post_threshold=0.2, nms_top_k=6,
                      keep_top_k=7, background_label=-1, normalized=False, return_index=True),
        *V.matrix_nms(v["bb"], v["sc"], score_threshold=0.05, post_threshold=0.1,
                      nms_top_k=-1, keep_top_k=-1, use_gaussian=True, gaussian_sigma=1.5,
                      return_index=True)],
    "generate_proposals": lambda v: [
        *V.generate_proposals(v["scores"], v["deltas"], v["imsize"], v["anchors"], v["var"],
                              pre_nms_top_n=20, post_nms_top_n=8, nms_thresh=0.6,
                              min_size=2.0, return_rois_num=True),
        *V.generate_proposals(v["scores"], v["deltas"], v["imsize"], v["anchors"], v["var"],
                              pre_nms_top_n=-1, post_nms_top_n=-1, nms_thresh=0.7, eta=0.9,
                              min_size=0.1, pixel_offset=True, return_rois_num=True)],
    "distribute_fpn_proposals": lambda v: _flatten(
        V.distribute_fpn_proposals(v["rois"], 2, 5, 4, 224, rois_num=v["rn"])
        + V.distribute_fpn_proposals(v["rois"], 2, 4, 3, 112, pixel_offset=True,
                                     rois_num=v["rn"])),
}


def _flatten(items):
    out = []
    for item in items:
        out += list(item) if isinstance(item, (list, tuple)) else [item]
    return out


def _feeds(name):
    prefix = f"{name}/feed/"
    return {k[len(prefix):]: REFS[k] for k in REFS.files if k.startswith(prefix)}


def _built():
    programs = {}
    with unique_name.guard():
        for name, build in BUILDS.items():
            main = pd.Program()
            with static.program_guard(main, pd.Program()):
                feeds = {k: static.data(k, list(a.shape), str(a.dtype))
                         for k, a in _feeds(name).items()}
                programs[name] = (main, build(feeds))
    return programs


BUILT = _built()


def _declared_attrs(op):
    """The op's declared attributes, floats as float32 (as a desc stores them)."""
    opdef = registry.get(op.type)
    attrs = opdef.complete_attrs({k: v for k, v in op.attrs.items() if k in opdef.attrs},
                                 strict=False)
    as32 = lambda v: np.float32(v) if isinstance(v, float) else v      # noqa: E731
    return {k: [as32(x) for x in v] if isinstance(v, list) else as32(v) for k, v in attrs.items()}


@pytest.mark.parametrize("name", list(BUILDS))
def test_same_ops_attributes_and_names_as_paddle(name):
    main, outs = BUILT[name]
    theirs = pd.Program.parse(REFS[f"{name}/program"].tobytes())
    mine_ops, their_ops = main.global_block().ops, theirs.global_block().ops
    assert [op.type for op in mine_ops] == [op.type for op in their_ops]
    for mine, their in zip(mine_ops, their_ops):
        assert _declared_attrs(mine) == _declared_attrs(their), mine.type
        slots = ("Out", "Boxes", "OutputBox", "Index", "RpnRois", "MultiFpnRois", "RestoreIndex")
        assert {s: mine.output(s) for s in slots} == {s: their.output(s) for s in slots}
    fetched = [k.split("/", 2)[2] for k in REFS.files if k.startswith(f"{name}/fetch/")]
    assert sorted(o.name for o in outs if o is not None) == sorted(fetched)


@pytest.mark.parametrize("name", list(BUILDS))
def test_same_values_as_paddle(name):
    main, outs = BUILT[name]
    outs = [o for o in outs if o is not None]
    got = static.Executor().run(main, feed=_feeds(name), fetch_list=outs, scope=pd.Scope())
    for var, value in zip(outs, got):
        want = REFS[f"{name}/fetch/{var.name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, var.name
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=var.name)


def test_optional_outputs_and_bad_variances():
    with static.program_guard(pd.Program(), pd.Program()):
        bb, sc = static.data("bb", [1, 4, 4]), static.data("sc", [1, 2, 4])
        out, rois_num, index = V.matrix_nms(bb, sc, 0.1, 0.1, -1, -1)
        assert rois_num is not None and index is None
        out, rois_num, index = V.multiclass_nms(bb, sc, 0.1, -1, -1, return_rois_num=False)
        assert rois_num is None and index is None and tuple(out.shape) == (-1, 6)
        with pytest.raises(TypeError, match="prior_box_var"):
            V.box_coder(static.data("p", [2, 4]), 0.1, static.data("t", [3, 4]))
