"""Record PaddlePaddle 2.6.2's layer_norm, group_norm and instance_norm (run with .venv-interop).

    .venv-interop/bin/python interop/ops/norm_refs.py [--out tests/fixtures/paddle26/ops]

Each case builds, in static mode on the CPU, ``loss = sum(Y * W)`` over one norm op fed
``X``, ``W`` and (where the case has them) ``Scale`` and ``Bias``, appends the gradients
with ``paddle.static.append_backward`` and runs it once. ``norm_sample.npz`` holds, per case
``<c>``: the feeds ``<c>/feed/<slot>``, the op's outputs ``<c>/out/<slot>``, the gradients
``<c>/grad/<slot>`` (of the loss, so ``Y@GRAD`` is ``W``), the serialized main program
``<c>/program`` (uint8) and ``<c>/meta``, a JSON text: the op type, its attributes and the
variable names of the feeds, outputs and gradients. tests/ops/test_norm_sample_paddle.py
compares paddle_nb with these numbers, op by op and by running the program itself.
"""

import argparse
import json
import pathlib

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _group_norm(x, scale, bias, groups, epsilon, data_layout):
    """group_norm as paddle.nn.GroupNorm appends it (2.6 has no functional form)."""
    helper = LayerHelper("group_norm")
    outs = {k: helper.create_variable_for_type_inference("float32")
            for k in ("Y", "Mean", "Variance")}
    ins = {k: v for k, v in (("X", x), ("Scale", scale), ("Bias", bias)) if v is not None}
    helper.append_op(type="group_norm", inputs=ins, outputs=outs,
                     attrs={"groups": groups, "epsilon": epsilon, "data_layout": data_layout})
    return outs["Y"]


# name -> (x shape, affine size or None, builder(x, scale, bias) -> Y)
CASES = {
    "layer_norm_axis2": ((2, 3, 4, 5), 20,
                         lambda x, s, b: F.layer_norm(x, [4, 5], weight=s, bias=b)),
    "layer_norm_plain": ((4, 6), None,
                         lambda x, s, b: F.layer_norm(x, [6], epsilon=1e-3)),
    "group_norm_nchw": ((2, 6, 3, 4), 6,
                        lambda x, s, b: _group_norm(x, s, b, 3, 1e-5, "NCHW")),
    "group_norm_nhwc": ((2, 3, 4, 6), 6,
                        lambda x, s, b: _group_norm(x, s, b, 2, 1e-4, "NHWC")),
    "instance_norm_4d": ((2, 3, 4, 5), 3,
                         lambda x, s, b: F.instance_norm(x, weight=s, bias=b, eps=1e-5)),
    "instance_norm_3d": ((2, 4, 6), None,
                         lambda x, s, b: F.instance_norm(x, eps=1e-3)),
}


def _feed(shape, rng, positive=False):
    value = rng.random(shape) + 0.5 if positive else rng.standard_normal(shape)
    return value.astype("float32")


def run_case(name, shape, affine, build, rng):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = {"X": rng.standard_normal(shape).astype("float32") * 3 + 1}
    if affine:
        feeds["Scale"] = _feed((affine,), rng, positive=True)
        feeds["Bias"] = _feed((affine,), rng)
    with paddle.static.program_guard(main, startup):
        ins = {}
        for slot, value in feeds.items():
            ins[slot] = paddle.static.data(f"{name}_{slot.lower()}", value.shape, "float32")
            ins[slot].stop_gradient = False
        y = build(ins["X"], ins.get("Scale"), ins.get("Bias"))
        feeds["W"] = _feed(shape, rng)
        w = paddle.static.data(f"{name}_w", shape, "float32")
        loss = paddle.sum(y * w)
        slots = list(ins)
        # append_backward (as minimize does) seeds loss@GRAD with fill_constant; the inputs
        # are not parameters, but their stop_gradient=False gives them <name>@GRAD too
        paddle.static.append_backward(loss)
    grads = [main.global_block().var(ins[s].name + "@GRAD") for s in slots]
    (op,) = [op for op in main.global_block().ops if op.type.endswith("norm")]
    outs = {slot: op.output(slot)[0] for slot in op.output_names}
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    names = {"W": w.name, **{s: ins[s].name for s in slots}}
    fetched = exe.run(main, feed={names[s]: v for s, v in feeds.items()},
                      fetch_list=list(outs.values()) + [g.name for g in grads])
    record = {f"{name}/feed/{s}": v for s, v in feeds.items()}
    record.update({f"{name}/out/{s}": v for s, v in zip(outs, fetched)})
    record.update({f"{name}/grad/{s}": v for s, v in zip(slots, fetched[len(outs):])})
    record[f"{name}/program"] = np.frombuffer(main.desc.serialize_to_string(), np.uint8)
    attrs = {a: op.attr(a) for a in op.attr_names
             if not a.startswith("op_") and a != "with_quant_attr"}
    meta = {"type": op.type, "attrs": attrs, "feeds": names, "outs": outs,
            "grads": {s: g.name for s, g in zip(slots, grads)}}
    record[f"{name}/meta"] = np.array(json.dumps(meta))
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "tests/fixtures/paddle26/ops"))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    paddle.enable_static()
    rng = np.random.default_rng(2026)
    record = {}
    for name, (shape, affine, build) in CASES.items():
        record.update(run_case(name, shape, affine, build, rng))
    np.savez_compressed(out / "norm_sample.npz", paddle=np.array(paddle.__version__), **record)
    print(f"wrote {out / 'norm_sample.npz'}: {len(CASES)} cases, PaddlePaddle {paddle.__version__}")


if __name__ == "__main__":
    main()
