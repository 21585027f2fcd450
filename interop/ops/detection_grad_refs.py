"""PaddlePaddle 2.6.2's own numbers and gradients for RoI pooling, nms and deformable
convolution (paddle_nb/ops/detection_pool.py, detection_nms_single.py, deformable_conv.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/detection_grad_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with ``paddle.vision.ops`` (functions and layers),
appends the backward of ``sum(out * w)`` (``w`` a fed random weight) for the float inputs it
names, runs it on the CPU and stores in ``detection_grad_ops.npz``: ``<case>/program`` (the
serialized ProgramDesc as uint8), ``<case>/feed/<name>``, ``<case>/fetch/<name>`` (outputs
and input gradients). tests/ops/test_detection_grad_paddle.py parses, runs and compares.
"""

import argparse
import pathlib

import numpy as np
import paddle

rng = np.random.default_rng(2028)
paddle.enable_static()
V = paddle.vision.ops


def f32(*shape):
    return rng.standard_normal(shape).astype("float32")


ROIS = np.array([[0.4, 0.6, 3.2, 4.1], [1.0, 1.0, 5.0, 2.0], [2.2, 0.0, 4.9, 5.4]], "float32")
X2 = (rng.permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) / 10).astype("float32")
BOXES = np.array([[0, 0, 4, 4], [0.5, 0.5, 4, 4], [5, 5, 8, 8], [0, 0, 3.5, 4.2],
                  [5.2, 5.1, 8, 8.3], [1, 6, 3, 8]], "float32")
RN = np.array([2, 1], "int32")

# name: (feeds, build(vars) -> [outputs], float inputs whose gradients are recorded)
CASES = {
    "roi_pool": ({"x": X2, "r": ROIS, "n": RN},
                 lambda v: [V.roi_pool(v["x"], v["r"], v["n"], 2)], ["x"]),
    "roi_pool_layer": ({"x": X2[:1], "r": ROIS * 2, "n": RN[:1] + 1},
                       lambda v: [V.RoIPool((3, 2), spatial_scale=0.5)(v["x"], v["r"],
                                                                         v["n"])], ["x"]),
    # (2.6.2's static psroi_pool drops boxes_num and reads the ROIs' LoD: one image, ROIs
    # fed with LoD [[3]])
    "psroi_pool": ({"x": f32(1, 8, 5, 5), "r": ROIS, "n": np.array([3], "int32")},
                   lambda v: [V.psroi_pool(v["x"], v["r"], v["n"], 2)], ["x"]),
    "psroi_pool_layer": ({"x": f32(1, 12, 6, 6), "r": ROIS * 2, "n": np.array([3], "int32")},
                         lambda v: [V.PSRoIPool(2, spatial_scale=0.5)(v["x"], v["r"],
                                                                      v["n"])], ["x"]),
    "roi_align_layer": ({"x": f32(2, 2, 6, 6), "r": ROIS, "n": RN},
                        lambda v: [V.RoIAlign(2, spatial_scale=0.8)(v["x"], v["r"], v["n"])],
                        []),
    "nms": ({"b": BOXES}, lambda v: [V.nms(v["b"], 0.3)], []),
    "nms_scores": ({"b": BOXES, "s": rng.uniform(0, 1, 6).astype("float32")},
                   lambda v: [V.nms(v["b"], 0.3, scores=v["s"], top_k=3)], []),
}


def _add_deformable(cases):
    x, w = f32(1, 2, 5, 5), f32(2, 2, 3, 3) * 0.5
    offset = (rng.uniform(-1.5, 1.5, (1, 18, 3, 3))).astype("float32")
    mask = rng.uniform(0.2, 1.0, (1, 9, 3, 3)).astype("float32")
    cases["deform_conv2d_v1"] = ({"x": x, "o": offset, "w": w},
                                 lambda v: [V.deform_conv2d(v["x"], v["o"], v["w"])],
                                 ["x", "o", "w"])
    cases["deform_conv2d_mask"] = (
        {"x": x, "o": offset, "w": w, "m": mask},
        lambda v: [V.deform_conv2d(v["x"], v["o"], v["w"], mask=v["m"])], ["x", "o", "w", "m"])
    x2, off2 = f32(1, 4, 6, 6), rng.uniform(-2, 2, (1, 16, 4, 4)).astype("float32")
    cases["deform_conv2d_groups"] = (
        {"x": x2, "o": off2, "w": f32(4, 2, 2, 2), "m": rng.uniform(0, 1, (1, 8, 4, 4)).astype(
            "float32")},
        lambda v: [V.deform_conv2d(v["x"], v["o"], v["w"], stride=2, padding=1, groups=2,
                                   deformable_groups=2, mask=v["m"])], ["x", "o", "w", "m"])


_add_deformable(CASES)


def _add_yolo(cases):
    gt = np.array([[[0.3, 0.4, 0.2, 0.3], [0.7, 0.6, 0.5, 0.4], [0, 0, 0, 0]],
                   [[0.55, 0.2, 0.1, 0.15], [0.2, 0.8, 0.3, 0.2], [0.6, 0.6, 0.05, 0.08]]],
                  "float32")
    feeds = {"x": f32(2, 14, 4, 4), "gb": gt, "gl": np.array([[0, 1, 0], [1, 1, 0]], "int32")}
    cases["yolo_loss"] = (feeds, lambda v: [V.yolo_loss(
        v["x"], v["gb"], v["gl"], [10, 13, 16, 30, 33, 23], [0, 1], 2, 0.5, 8)], ["x"])
    scored = dict(feeds, gs=rng.uniform(0.5, 1, (2, 3)).astype("float32"))
    cases["yolo_loss_score"] = (scored, lambda v: [V.yolo_loss(
        v["x"], v["gb"], v["gl"], [10, 13, 16, 30, 33, 23], [1, 2], 2, 0.3, 8, gt_score=v["gs"],
        use_label_smooth=False)], ["x"])


_add_yolo(CASES)


def data(name, value):
    return paddle.static.data(name, list(value.shape), str(value.dtype))


def run_case(name, feeds, build, grads):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = dict(feeds)
    with paddle.static.program_guard(main, startup):
        vars_ = {k: data(k, a) for k, a in feeds.items()}
        for k in grads:
            vars_[k].stop_gradient = False
        outs = build(vars_)
        fetch = list(outs)
        if grads:
            loss = 0
            for i, out in enumerate(outs):
                weight = f32(*out.shape)
                feeds[f"w{i}"] = weight
                loss = loss + paddle.sum(out * data(f"w{i}", weight))
            fetch += paddle.static.gradients([loss], [vars_[k] for k in grads])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    names = [o.name for o in fetch]
    run_feeds = dict(feeds)
    if "psroi" in name:
        run_feeds["r"] = paddle.base.create_lod_tensor(feeds["r"], [[len(feeds["r"])]],
                                                       paddle.CPUPlace())
    got = exe.run(main, feed=run_feeds, fetch_list=names)
    record = {f"{name}/program": np.frombuffer(main.desc.serialize_to_string(), np.uint8)}
    record.update({f"{name}/feed/{k}": v for k, v in feeds.items()})
    record.update({f"{name}/fetch/{n}": np.array(v) for n, v in zip(names, got)})
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build, grads) in CASES.items():
        record.update(run_case(name, feeds, build, grads))
        print(name, "ok")
    np.savez_compressed(out / "detection_grad_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "detection_grad_ops.npz")


if __name__ == "__main__":
    main()
