"""Record PaddlePaddle 2.6.2's loss and normalization ops (run with .venv-interop).

    .venv-interop/bin/python interop/ops/lossnorm_refs.py [--out tests/fixtures/paddle26/ops]

Each case appends one op in static mode on the CPU with PaddlePaddle's LayerHelper (so
every attribute is the case's), feeds its inputs, builds ``loss = sum(Out * W)`` over
the op's main output, appends the gradients with ``paddle.static.append_backward`` and
runs it once. ``lossnorm.npz`` holds, per case ``<c>``: the feeds ``<c>/feed/<slot>``
(and ``W``), the op's outputs ``<c>/out/<slot>``, the gradients ``<c>/grad/<slot>``, the
serialized main program ``<c>/program`` (uint8) and ``<c>/meta`` (JSON: op type,
attributes, main output slot, variable names, and the shapes the program declares).
tests/ops/test_lossnorm_paddle.py compares paddle_nb with these numbers.
"""

import argparse
import json
import pathlib

import numpy as np
import paddle
from paddle.base.layer_helper import LayerHelper

ROOT = pathlib.Path(__file__).resolve().parents[2]
rng = np.random.default_rng(2026)


def normal(*shape):
    return rng.standard_normal(shape).astype("float32")


def prob(*shape):
    return (rng.random(shape) * 0.8 + 0.1).astype("float32")


def with_ignored(values, value, *cells):
    values = values.copy()
    for cell in cells:
        values[cell] = value
    return values


# name -> (op type, {slot: (value, wants grad)}, attrs, {out slot: dtype}, main out slot
#          [, W's shape where the main output's is not known])
F32 = "float32"
CASES = {
    "bce_loss": ("bce_loss", {"X": (prob(3, 4), True), "Label": (prob(3, 4), False)}, {},
                 {"Out": F32}, "Out"),
    "sce_plain": ("sigmoid_cross_entropy_with_logits",
                  {"X": (normal(3, 4) * 3, True), "Label": (prob(3, 4), False)},
                  {}, {"Out": F32}, "Out"),
    "sce_pos_weight": ("sigmoid_cross_entropy_with_logits",
                       {"X": (normal(3, 4), True), "Label": (prob(3, 4), False),
                        "pos_weight": (prob(3, 4) * 3, False)}, {}, {"Out": F32}, "Out"),
    "sce_ignore_normalize": ("sigmoid_cross_entropy_with_logits",
                             {"X": (normal(3, 4), True),
                              "Label": (with_ignored(prob(3, 4), -1, (0, 1), (2, 3)), False)},
                             {"ignore_index": -1, "normalize": True}, {"Out": F32}, "Out"),
    "huber_loss": ("huber_loss", {"X": (normal(3, 4), True), "Y": (normal(3, 4), True)},
                   {"delta": 0.5}, {"Out": F32, "Residual": F32}, "Out"),
    "kldiv_none": ("kldiv_loss", {"X": (np.log(prob(3, 4)), True), "Target": (prob(3, 4), False)},
                   {"reduction": "none"}, {"Loss": F32}, "Loss"),
    "kldiv_mean": ("kldiv_loss", {"X": (np.log(prob(3, 4)), True),
                                  "Target": (with_ignored(prob(3, 4), -0.5, (1, 1)), False)},
                   {"reduction": "mean"}, {"Loss": F32}, "Loss"),
    "kldiv_batchmean": ("kldiv_loss", {"X": (np.log(prob(3, 4)), True),
                                       "Target": (prob(3, 4), False)},
                        {"reduction": "batchmean"}, {"Loss": F32}, "Loss"),
    "kldiv_sum": ("kldiv_loss", {"X": (np.log(prob(2, 5)), True), "Target": (prob(2, 5), False)},
                  {"reduction": "sum"}, {"Loss": F32}, "Loss"),
    "log_loss": ("log_loss", {"Predicted": (prob(4, 1), True), "Labels": (prob(4, 1), False)},
                 {"epsilon": 1e-4}, {"Loss": F32}, "Loss"),
    "label_smooth": ("label_smooth", {"X": (np.eye(4, dtype=F32)[[0, 3, 1]], True)},
                     {"epsilon": 0.1}, {"Out": F32}, "Out"),
    "label_smooth_prior": ("label_smooth", {"X": (prob(2, 3), True),
                                            "PriorDist": (prob(1, 3), False)},
                           {"epsilon": 0.25}, {"Out": F32}, "Out"),
    "nll_mean_weight": ("nll_loss", {"X": (np.log(prob(4, 3)), True),
                                     "Label": (np.array([0, 2, 1, 2]), False),
                                     "Weight": (prob(3) + 0.5, False)},
                        {"reduction": "mean", "ignore_index": -100},
                        {"Out": F32, "Total_weight": F32}, "Out"),
    "nll_none_ignore": ("nll_loss", {"X": (np.log(prob(4, 3)), True),
                                     "Label": (np.array([0, 1, 2, 1]), False)},
                        {"reduction": "none", "ignore_index": 1},
                        {"Out": F32, "Total_weight": F32}, "Out"),
    "nll_4d_mean": ("nll_loss", {"X": (np.log(prob(2, 3, 2, 2)), True),
                                 "Label": (rng.integers(0, 3, (2, 2, 2)), False)},
                    {"reduction": "mean", "ignore_index": -100},
                    {"Out": F32, "Total_weight": F32}, "Out"),
    "nll_4d_sum_weight": ("nll_loss", {"X": (np.log(prob(2, 3, 1, 2)), True),
                                       "Label": (rng.integers(0, 3, (2, 1, 2)), False),
                                       "Weight": (prob(3) + 0.5, False)},
                          {"reduction": "sum", "ignore_index": -100},
                          {"Out": F32, "Total_weight": F32}, "Out"),
    "lrn_n3": ("lrn", {"X": (normal(2, 4, 2, 3), True)}, {"n": 3, "alpha": 0.01},
               {"Out": F32, "MidOut": F32}, "Out"),
    "lrn_n5": ("lrn", {"X": (normal(1, 6, 2, 2), True)},
               {"n": 5, "alpha": 0.1, "beta": 0.6, "k": 1.5}, {"Out": F32, "MidOut": F32}, "Out"),
    "cross_entropy2": ("cross_entropy2", {"X": (prob(4, 3), True),
                                          "Label": (np.array([[0], [2], [1], [2]]), False)},
                       {"ignore_index": 1}, {"Y": F32, "XShape": F32, "MatchX": F32}, "Y"),
    "hinge_loss": ("hinge_loss", {"Logits": (normal(5, 1) * 2, True),
                                  "Labels": (np.array([[0], [1], [1], [0], [1]], "float32"),
                                             False)},
                   {}, {"Loss": F32}, "Loss"),
    "rank_loss": ("rank_loss", {"Label": (prob(4, 1), False), "Left": (normal(4, 1), True),
                                "Right": (normal(4, 1), True)}, {}, {"Out": F32}, "Out"),
    # warpctc declares Loss [-1, 1]: W's shape is given
    "warpctc": ("warpctc", {"Logits": (normal(5, 2, 4), True),
                            "Label": (np.array([[1, 2, 2], [3, 1, 0]], dtype="int32"), False),
                            "LogitsLength": (np.array([5, 4]), False),
                            "LabelLength": (np.array([3, 2]), False)},
                {"blank": 0, "norm_by_times": False}, {"Loss": F32, "WarpCTCGrad": F32}, "Loss",
                (2, 1)),
    "warpctc_norm_by_times": ("warpctc", {"Logits": (normal(4, 2, 3), True),
                                          "Label": (np.array([[1], [2]], dtype="int32"), False),
                                          "LogitsLength": (np.array([4, 3]), False),
                                          "LabelLength": (np.array([1, 1]), False)},
                              {"blank": 0, "norm_by_times": True},
                              {"Loss": F32, "WarpCTCGrad": F32}, "Loss", (2, 1)),
}


def run_case(name, op_type, ins_spec, attrs, out_spec, main_slot, w_shape=None):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = {slot: value for slot, (value, _) in ins_spec.items()}
    with paddle.static.program_guard(main, startup):
        ins = {}
        for slot, (value, grad) in ins_spec.items():
            ins[slot] = paddle.static.data(f"{name}_{slot.lower()}", value.shape, value.dtype)
            ins[slot].stop_gradient = not grad
        helper = LayerHelper(op_type)
        outs = {slot: helper.create_variable_for_type_inference(dtype)
                for slot, dtype in out_spec.items()}
        helper.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs)
        main_out = outs[main_slot]
        feeds["W"] = normal(*(w_shape or main_out.shape))
        w = paddle.static.data(f"{name}_w", feeds["W"].shape, "float32")
        paddle.static.append_backward(paddle.sum(main_out * w))
    grad_slots = [s for s, (_, grad) in ins_spec.items() if grad]
    grads = {s: ins[s].name + "@GRAD" for s in grad_slots}
    names = {"W": w.name, **{s: v.name for s, v in ins.items()}}
    out_names = {s: v.name for s, v in outs.items()}
    fetch_outs = {s: n for s, n in out_names.items() if s != "XShape"}   # holds no value
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    fetched = exe.run(main, feed={names[s]: v for s, v in feeds.items()},
                      fetch_list=list(fetch_outs.values()) + list(grads.values()))
    record = {f"{name}/feed/{s}": v for s, v in feeds.items()}
    record.update({f"{name}/out/{s}": v for s, v in zip(fetch_outs, fetched)})
    record.update({f"{name}/grad/{s}": v for s, v in zip(grads, fetched[len(fetch_outs):])})
    record[f"{name}/program"] = np.frombuffer(main.desc.serialize_to_string(), np.uint8)
    (op,) = [o for o in main.global_block().ops if o.type == op_type]
    written = {a: op.attr(a) for a in op.attr_names
               if not a.startswith("op_") and a != "with_quant_attr"}
    declared = {s: list(main.global_block().var(n).shape) for s, n in out_names.items()}
    meta = {"type": op_type, "attrs": written, "main": main_slot, "feeds": names,
            "outs": fetch_outs, "grads": grads, "declared": declared}
    record[f"{name}/meta"] = np.array(json.dumps(meta))
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "tests/fixtures/paddle26/ops"))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    paddle.enable_static()
    record = {}
    for name, spec in CASES.items():
        record.update(run_case(name, *spec))
    np.savez_compressed(out / "lossnorm.npz", paddle=np.array(paddle.__version__), **record)
    print(f"wrote {out / 'lossnorm.npz'}: {len(CASES)} cases, PaddlePaddle {paddle.__version__}")


if __name__ == "__main__":
    main()
