"""Reference numbers from PaddlePaddle 2.6.2 for the convolution family (conv helper's ops).

Run with the interop venv (PaddlePaddle 2.6.2, NumPy 1.26), from the repository root:

    .venv-interop/bin/python interop/ops/conv_refs.py

For each case it appends the op itself (exact type and attributes) to a static
program, runs forward, and takes the gradients of sum(Out * G) for a fixed
random G with ``paddle.static.gradients``. Everything goes into
tests/fixtures/paddle26/ops/conv_refs.npz: ``<i>/in/<slot>``, ``<i>/out/<slot>``,
``<i>/grad/<slot>``, ``<i>/G`` and a JSON list of (name, op type, attrs, grad slots)
under ``cases``. tests/ops/test_conv_paddle.py compares paddle_nb with them.
"""

import json
import pathlib

import numpy as np
import paddle

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fixtures/paddle26/ops/conv_refs.npz"
rng = np.random.default_rng(26)


def a(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def conv(name, op, x, w, **attrs):
    return (name, op, {"Input": x, "Filter": w}, attrs, ["Input", "Filter"], "Output")


def pool(name, op, x, **attrs):
    return (name, op, {"X": x}, attrs, ["X"], "Out")


CASES = [
    conv("conv2d groups 2 s2 dil 2", "conv2d", a(2, 4, 9, 8), a(6, 2, 3, 3), groups=2,
         strides=[2, 2], paddings=[2, 1], dilations=[2, 1]),
    conv("conv2d NHWC SAME", "conv2d", a(1, 6, 5, 3), a(4, 3, 3, 2), strides=[2, 2],
         padding_algorithm="SAME", data_format="NHWC"),
    conv("depthwise s2 p1 multiplier 2", "depthwise_conv2d", a(2, 3, 7, 6), a(6, 1, 3, 3),
         groups=3, strides=[2, 2], paddings=[1, 1]),
    conv("depthwise dilation 2 SAME", "depthwise_conv2d", a(1, 4, 6, 5), a(4, 1, 3, 3),
         groups=4, dilations=[2, 2], padding_algorithm="SAME"),
    conv("transpose s2 p1 op groups dil", "conv2d_transpose", a(2, 4, 5, 4), a(4, 3, 3, 3),
         groups=2, strides=[2, 2], paddings=[1, 1], output_padding=[1, 0], dilations=[1, 2]),
    conv("transpose output_size 4-pads", "conv2d_transpose", a(1, 2, 3, 4), a(2, 3, 3, 2),
         strides=[3, 2], paddings=[1, 0, 0, 1], output_size=[9, 8]),
    conv("transpose SAME s2", "conv2d_transpose", a(1, 3, 5, 4), a(3, 2, 3, 3),
         strides=[2, 2], padding_algorithm="SAME"),
    conv("transpose VALID NHWC", "conv2d_transpose", a(2, 3, 4, 3), a(3, 2, 2, 3),
         strides=[2, 1], padding_algorithm="VALID", data_format="NHWC"),
    conv("transpose SAME s2 dilation 2 (reset)", "conv2d_transpose", a(1, 2, 4, 5),
         a(2, 2, 3, 3), strides=[2, 2], dilations=[2, 2], padding_algorithm="SAME"),
    conv("transpose groups 3 output_size NHWC", "conv2d_transpose", a(2, 3, 4, 6),
         a(6, 1, 2, 3), groups=3, strides=[2, 3], output_size=[7, 13], data_format="NHWC"),
    conv("depthwise transpose s2 p1", "depthwise_conv2d_transpose", a(1, 3, 4, 5),
         a(3, 1, 3, 3), groups=3, strides=[2, 2], paddings=[1, 1]),
    pool("adaptive avg 3x4", "pool2d", a(2, 3, 7, 5), pooling_type="avg", ksize=[3, 4],
         adaptive=True),
    pool("adaptive max 3x2", "pool2d", a(2, 3, 7, 5), pooling_type="max", ksize=[3, 2],
         adaptive=True),
    pool("max ceil_mode s2 p1", "pool2d", a(1, 2, 6, 7), pooling_type="max", ksize=[3, 3],
         strides=[2, 2], paddings=[1, 1], ceil_mode=True),
    pool("avg inclusive padded", "pool2d", a(1, 2, 5, 6), pooling_type="avg", ksize=[3, 2],
         strides=[2, 2], paddings=[1, 1], exclusive=False),
    pool("avg exclusive SAME", "pool2d", a(1, 2, 5, 6), pooling_type="avg", ksize=[3, 3],
         strides=[2, 2], padding_algorithm="SAME"),
    pool("avg ceil_mode exclusive padded", "pool2d", a(1, 2, 6, 7), pooling_type="avg",
         ksize=[3, 3], strides=[2, 2], paddings=[1, 1], ceil_mode=True),
    pool("avg ceil_mode inclusive", "pool2d", a(1, 2, 6, 7), pooling_type="avg", ksize=[2, 3],
         strides=[2, 2], ceil_mode=True, exclusive=False),
    pool("max 4-value paddings NHWC", "pool2d", a(1, 5, 6, 3), pooling_type="max",
         ksize=[2, 3], strides=[2, 1], paddings=[1, 0, 0, 2], data_format="NHWC"),
    pool("global avg", "pool2d", a(2, 3, 4, 5), pooling_type="avg", ksize=[1, 1],
         global_pooling=True),
    pool("adaptive avg 1x1 NHWC", "pool2d", a(2, 3, 4, 5), pooling_type="avg", ksize=[1, 1],
         adaptive=True, data_format="NHWC"),
    pool("adaptive avg 5x4 from 3x2 (windows repeat)", "pool2d", a(1, 2, 3, 2),
         pooling_type="avg", ksize=[5, 4], adaptive=True),
    pool("with_index adaptive 5x3 from 3x2", "max_pool2d_with_index", a(1, 2, 3, 2),
         ksize=[5, 3], adaptive=True),
    pool("with_index adaptive 3x4", "max_pool2d_with_index", a(2, 3, 7, 9), ksize=[3, 4],
         adaptive=True),
    pool("with_index 3x3 s2 p1", "max_pool2d_with_index", a(1, 2, 7, 6), ksize=[3, 3],
         strides=[2, 2], paddings=[1, 1]),
]
ALIGN0 = dict(align_corners=False, align_mode=0)
for method in ("bilinear", "nearest"):
    op = method + "_interp_v2"
    CASES += [
        pool(f"{method} up 5x7 half-pixel", op, a(1, 2, 4, 5), out_h=5, out_w=7,
             interp_method=method, **ALIGN0),
        pool(f"{method} down 3x2 align_mode 1", op, a(1, 2, 7, 5), out_h=3, out_w=2,
             interp_method=method, align_corners=False, align_mode=1),
        pool(f"{method} align_corners 6x9", op, a(2, 1, 4, 5), out_h=6, out_w=9,
             interp_method=method, align_corners=True),
        pool(f"{method} scale 1.7 half-pixel", op, a(1, 2, 5, 4), out_h=-1, out_w=-1,
             scale=[1.7, 1.7], interp_method=method, **ALIGN0),
        pool(f"{method} scale 0.6 NHWC", op, a(1, 7, 9, 2), out_h=-1, out_w=-1,
             scale=[0.6, 0.7], interp_method=method, data_layout="NHWC", **ALIGN0),
    ]
    CASES += [
        pool(f"{method} scale 0.7 from 10 (float32 rounding)", op, a(1, 1, 10, 10), out_h=-1,
             out_w=-1, scale=[0.7, 0.3], interp_method=method, align_corners=False,
             align_mode=1),
        pool(f"{method} 7 -> 10 align_corners NHWC", op, a(1, 7, 7, 2), out_h=10, out_w=3,
             interp_method=method, align_corners=True, data_layout="NHWC"),
    ]
CASES.append(("bilinear OutSize tensor", "bilinear_interp_v2",
               {"X": a(1, 2, 4, 4), "OutSize": np.array([6, 3], np.int32)},
               dict(out_h=-1, out_w=-1, **ALIGN0), ["X"], "Out"))


def run(name, op_type, inputs, attrs, grads, main_out):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        block = main.global_block()
        ins = {}
        for slot, value in inputs.items():
            ins[slot] = paddle.static.data(slot.lower(), value.shape, str(value.dtype))
            ins[slot].stop_gradient = slot not in grads
        outs = {main_out: block.create_var(name=f"out_{main_out}", dtype="float32")}
        if op_type == "max_pool2d_with_index":
            outs["Mask"] = block.create_var(name="out_Mask", dtype="int32")
        block.append_op(type=op_type, inputs=ins, outputs=outs, attrs=dict(attrs))
        g = paddle.static.data("g", [-1] * 4, "float32")
        loss = paddle.sum(outs[main_out] * g)
        dvars = paddle.static.gradients([loss], [ins[s] for s in grads])
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {s.lower(): v for s, v in inputs.items()}
    shape = exe.run(main, feed={**feed, "g": np.zeros((1, 1, 1, 1), np.float32)},
                    fetch_list=[outs[main_out]])[0].shape
    G = rng.standard_normal(shape).astype(np.float32)
    got = exe.run(main, feed={**feed, "g": G}, fetch_list=list(outs.values()) + dvars)
    return G, dict(zip(outs, got[:len(outs)])), dict(zip(grads, got[len(outs):]))


def write(cases, out):
    """Run every case and save it all in ``out``, in the layout the module docstring gives."""
    paddle.enable_static()
    arrays, meta = {}, []
    for i, (name, op_type, inputs, attrs, grads, main_out) in enumerate(cases):
        G, outs, dgrads = run(name, op_type, inputs, attrs, grads, main_out)
        arrays[f"{i}/G"] = G
        for kind, d in (("in", inputs), ("out", outs), ("grad", dgrads)):
            for slot, v in d.items():
                arrays[f"{i}/{kind}/{slot}"] = v
        meta.append([name, op_type, attrs, grads])
        print(f"{i:2d} {op_type:28s} {name}: out {outs[main_out].shape}")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, cases=np.array(json.dumps(meta)), **arrays)
    print("wrote", out.relative_to(ROOT))


def main():
    write(CASES, OUT)


if __name__ == "__main__":
    main()
