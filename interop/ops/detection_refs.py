"""PaddlePaddle 2.6.2's own numbers for the detection post-processing ops
(paddle_nb/ops/detection_box.py, detection_nms.py, detection_roi.py, detection_proposals.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/detection_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with the public paddle API (``paddle.vision.ops``;
``multiclass_nms3`` through its LayerHelper as PaddleDetection's exported models write it),
runs it on the CPU and stores in ``detection_ops.npz``: ``<case>/program`` (the serialized
ProgramDesc as uint8), ``<case>/feed/<name>``, ``<case>/fetch/<name>``. Forward only: these
ops are post-processing (roi_align's gradient is not compared). tests/ops/test_detection_paddle.py
parses each program, runs it and compares every fetch.
"""

import argparse
import pathlib

import numpy as np
import paddle

rng = np.random.default_rng(2027)
paddle.enable_static()


def _boxes(n, m, size=10.0):
    """n x m random boxes (x1, y1, x2, y2) with x1 < x2, y1 < y2, inside [0, size]."""
    xy = rng.uniform(0, size * 0.7, (n, m, 2))
    wh = rng.uniform(size * 0.1, size * 0.3, (n, m, 2))
    return np.concatenate([xy, xy + wh], axis=-1).astype("float32")


def _sized_rois():
    """Nine boxes of sides from 10 to 800 pixels (every FPN level), in no order."""
    half = np.array([5, 250, 20, 400, 60, 8, 120, 300, 90], "float64")[:, None]
    center = rng.uniform(300, 500, (9, 2))
    half = half * rng.uniform(0.8, 1.2, (9, 2))
    return np.concatenate([center - half, center + half], axis=1).astype("float32")


def multiclass_nms3(bboxes, scores, **attrs):
    helper = paddle.base.layer_helper.LayerHelper("multiclass_nms3")
    out = helper.create_variable_for_type_inference(bboxes.dtype)
    index = helper.create_variable_for_type_inference("int32")
    nms_rois_num = helper.create_variable_for_type_inference("int32")
    helper.append_op(type="multiclass_nms3", inputs={"BBoxes": bboxes, "Scores": scores},
                     attrs=attrs, outputs={"Out": out, "Index": index,
                                           "NmsRoisNum": nms_rois_num})
    return out, index, nms_rois_num


def data(name, value):
    return paddle.static.data(name, list(value.shape), str(value.dtype))


V = paddle.vision.ops
NMS_ATTRS = dict(background_label=-1, score_threshold=0.05, nms_top_k=6, nms_threshold=0.5,
                 nms_eta=1.0, keep_top_k=5, normalized=False)
CASES = {
    "yolo_box": ({"x": rng.standard_normal((2, 14, 3, 4)).astype("float32"),
                  "img": np.array([[40, 50], [24, 32]], "int32")},
                 lambda v: list(V.yolo_box(v["x"], v["img"], anchors=[10, 13, 16, 30],
                                           class_num=2, conf_thresh=0.3, downsample_ratio=8))),
    "yolo_box_iou_aware": ({"x": rng.standard_normal((1, 16, 2, 2)).astype("float32"),
                            "img": np.array([[30, 20]], "int32")},
                           lambda v: list(V.yolo_box(v["x"], v["img"], anchors=[5, 6, 9, 8],
                                                     class_num=2, conf_thresh=0.1,
                                                     downsample_ratio=16, clip_bbox=False,
                                                     scale_x_y=1.2, iou_aware=True,
                                                     iou_aware_factor=0.4))),
    "box_coder_decode": ({"pb": _boxes(1, 5)[0], "pbv": rng.uniform(0.1, 0.3, (5, 4)).astype(
                              "float32"), "tb": rng.standard_normal((3, 5, 4)).astype("float32")},
                         lambda v: [V.box_coder(v["pb"], v["pbv"], v["tb"],
                                                code_type="decode_center_size",
                                                box_normalized=False),
                                    V.box_coder(v["pb"], [0.1, 0.1, 0.2, 0.2], v["tb"],
                                                code_type="decode_center_size")]),
    "box_coder_decode_axis1": ({"pb": _boxes(1, 3)[0],
                                "tb": rng.standard_normal((3, 4, 4)).astype("float32")},
                               lambda v: [V.box_coder(v["pb"], [0.2, 0.1, 0.3, 0.4], v["tb"],
                                                      code_type="decode_center_size", axis=1)]),
    "box_coder_encode": ({"pb": _boxes(1, 4)[0], "pbv": rng.uniform(0.1, 0.3, (4, 4)).astype(
                              "float32"), "tb": _boxes(1, 3)[0]},
                         lambda v: [V.box_coder(v["pb"], v["pbv"], v["tb"],
                                                code_type="encode_center_size"),
                                    V.box_coder(v["pb"], [0.1, 0.1, 0.2, 0.2], v["tb"],
                                                code_type="encode_center_size",
                                                box_normalized=False)]),
    "prior_box": ({"feat": np.zeros((1, 3, 2, 3), "float32"),
                   "image": np.zeros((1, 3, 16, 24), "float32")},
                  lambda v: list(V.prior_box(v["feat"], v["image"], min_sizes=[4.0, 8.0],
                                             max_sizes=[8.0, 12.0], aspect_ratios=[2.0, 3.0],
                                             flip=True, clip=True))
                  + list(V.prior_box(v["feat"], v["image"], min_sizes=[5.0],
                                     aspect_ratios=[1.0, 2.0], variance=[0.1, 0.2, 0.3, 0.4],
                                     steps=[6.0, 7.0], offset=0.25,
                                     min_max_aspect_ratios_order=True))),
    "roi_align": ({"feat": rng.standard_normal((2, 2, 6, 6)).astype("float32"),
                   "rois": np.array([[0, 0, 5, 5], [1, 2, 7, 9], [2.5, 1, 4, 3.5]], "float32"),
                   "rn": np.array([2, 1], "int32")},
                  lambda v: [V.roi_align(v["feat"], v["rois"], v["rn"], output_size=2,
                                         spatial_scale=0.5, sampling_ratio=2, aligned=True),
                             V.roi_align(v["feat"], v["rois"], v["rn"], output_size=(3, 2),
                                         spatial_scale=0.7, sampling_ratio=-1,
                                         aligned=False)]),
    "multiclass_nms3": ({"bb": _boxes(2, 8), "sc": rng.uniform(0, 1, (2, 3, 8)).astype("float32")},
                        lambda v: list(multiclass_nms3(v["bb"], v["sc"], **NMS_ATTRS))
                        + list(multiclass_nms3(v["bb"], v["sc"], **{
                            **NMS_ATTRS, "background_label": 0, "keep_top_k": -1,
                            "nms_top_k": -1, "normalized": True, "nms_eta": 0.9,
                            "nms_threshold": 0.6}))),
    "multiclass_nms3_empty": ({"bb": _boxes(1, 4), "sc": np.full((1, 2, 4), 0.01, "float32")},
                              lambda v: list(multiclass_nms3(v["bb"], v["sc"], **NMS_ATTRS))),
    "matrix_nms": ({"bb": _boxes(2, 8), "sc": rng.uniform(0, 1, (2, 3, 8)).astype("float32")},
                   lambda v: list(V.matrix_nms(v["bb"], v["sc"], score_threshold=0.1,
                                               post_threshold=0.2, nms_top_k=6, keep_top_k=7,
                                               background_label=-1, normalized=False,
                                               return_index=True, return_rois_num=True))
                   + list(V.matrix_nms(v["bb"], v["sc"], score_threshold=0.05,
                                       post_threshold=0.1, nms_top_k=-1, keep_top_k=-1,
                                       use_gaussian=True, gaussian_sigma=1.5,
                                       return_index=True, return_rois_num=True))),
    "generate_proposals": ({"scores": rng.uniform(0, 1, (2, 3, 4, 4)).astype("float32"),
                            "deltas": (rng.standard_normal((2, 12, 4, 4)) * 0.3).astype("float32"),
                            "imsize": np.array([[30, 40], [25, 20]], "float32"),
                            "anchors": _boxes(4, 4 * 3, 30.0).reshape(4, 4, 3, 4),
                            "var": np.full((4, 4, 3, 4), 0.5, "float32")},
                           lambda v: list(V.generate_proposals(
                               v["scores"], v["deltas"], v["imsize"], v["anchors"], v["var"],
                               pre_nms_top_n=20, post_nms_top_n=8, nms_thresh=0.6,
                               min_size=2.0, return_rois_num=True))
                           + list(V.generate_proposals(
                               v["scores"], v["deltas"], v["imsize"], v["anchors"], v["var"],
                               pre_nms_top_n=-1, post_nms_top_n=-1, nms_thresh=0.7, eta=0.9,
                               min_size=0.1, pixel_offset=True, return_rois_num=True))),
    "distribute_fpn_proposals": ({"rois": _sized_rois(),
                                  "rn": np.array([4, 5], "int32")},
                                 lambda v: _flatten(V.distribute_fpn_proposals(
                                     v["rois"], 2, 5, 4, 224, rois_num=v["rn"]))
                                 + _flatten(V.distribute_fpn_proposals(
                                     v["rois"], 2, 4, 3, 112, pixel_offset=True,
                                     rois_num=v["rn"]))),
}


def _flatten(items):
    out = []
    for item in items:
        out += list(item) if isinstance(item, (list, tuple)) else [item]
    return out


def run_case(name, feeds, build):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        outs = build({k: data(k, a) for k, a in feeds.items()})
    exe = paddle.static.Executor(paddle.CPUPlace())
    names = [o.name for o in outs]
    # (generate_proposals' outputs carry a LoD: fetched as tensors, kept as their arrays)
    fetched = exe.run(main, feed=feeds, fetch_list=names, return_numpy=False)
    record = {f"{name}/program": np.frombuffer(main.desc.serialize_to_string(), np.uint8)}
    record.update({f"{name}/feed/{k}": v for k, v in feeds.items()})
    record.update({f"{name}/fetch/{n}": np.array(v) for n, v in zip(names, fetched)})
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "detection_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "detection_ops.npz")


if __name__ == "__main__":
    main()
