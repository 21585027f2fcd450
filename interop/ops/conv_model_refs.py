"""A small vision model trained by PaddlePaddle 2.6.2, for paddle_nb to train the same way.

Run with the interop venv from the repository root:

    .venv-interop/bin/python interop/ops/conv_model_refs.py

The model uses the layers that write the convolution family's ops, as 2.6's
Python API writes them: Conv2D (conv2d), Conv2D(groups=C) (depthwise_conv2d),
Conv2DTranspose (conv2d_transpose, and depthwise_conv2d_transpose with
groups=C), AdaptiveAvgPool2D (pool2d adaptive), AdaptiveMaxPool2D and
max_pool2d(return_mask=True) (max_pool2d_with_index), interpolate bilinear and
Upsample nearest (bilinear_interp_v2, nearest_interp_v2). Three SGD steps; it
writes tests/fixtures/paddle26/ops/conv_model.{main,startup}.pb and
conv_model_io.npz (initial parameters, feeds, losses and parameters after each
step, and a JSON ``meta``).
"""

import json
import pathlib

import numpy as np
import paddle

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fixtures/paddle26/ops"
SEED, STEPS = 7, 3


def build():
    nn, F = paddle.nn, paddle.nn.functional
    img = paddle.static.data("img", [-1, 3, 8, 8], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    x = F.relu(nn.Conv2D(3, 6, 3, padding=1)(img))
    x = F.relu(nn.Conv2D(6, 6, 3, padding=1, groups=6)(x))                # depthwise_conv2d
    x = nn.Conv2DTranspose(6, 4, 3, stride=2, padding=1, output_padding=1)(x)     # 16 x 16
    x = nn.AdaptiveAvgPool2D(5)(x)                                          # 5 x 5
    x = F.interpolate(x, size=[7, 7], mode="bilinear", align_corners=False)  # 7 x 7
    x = nn.AdaptiveMaxPool2D(3)(x)                                          # 3 x 3
    x = nn.Upsample(scale_factor=2, mode="nearest")(x)                      # 6 x 6
    x = nn.Conv2DTranspose(4, 4, 3, groups=4)(x)                            # 8 x 8
    x = F.max_pool2d(x, 2, return_mask=True)[0]                             # 4 x 4
    x = F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True)  # 6 x 6
    logits = nn.Linear(4 * 6 * 6, 5)(paddle.reshape(x, [-1, 4 * 6 * 6]))
    return paddle.mean(F.cross_entropy(logits, label))


def main():
    paddle.enable_static()
    paddle.seed(SEED)
    rng = np.random.default_rng(SEED)
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    main_prog.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main_prog, startup), paddle.utils.unique_name.guard():
        loss = build()
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    params = [p.name for p in main_prog.all_parameters()]
    exe, scope, arrays = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope(), {}
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for p in params:
            arrays[f"init:{p}"] = np.array(scope.find_var(p).get_tensor())
        for k in range(STEPS):
            feed = {"img": rng.standard_normal((4, 3, 8, 8)).astype(np.float32),
                    "label": rng.integers(0, 5, (4, 1)).astype(np.int64)}
            arrays.update({f"step{k}/{n}": v for n, v in feed.items()})
            (value,) = exe.run(main_prog, feed=feed, fetch_list=[loss])
            arrays[f"step{k}:loss"] = np.asarray(value)
            for p in params:
                arrays[f"step{k}:{p}"] = np.array(scope.find_var(p).get_tensor())
    meta = {"paddle": paddle.__version__, "steps": STEPS, "params": params,
            "loss": loss.name, "feeds": ["img", "label"],
            "ops": [op.type for op in main_prog.global_block().ops]}
    for op in main_prog.global_block().ops:     # call stacks name this machine's paths
        op.desc.remove_attr("op_callstack")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "conv_model.main.pb").write_bytes(main_prog.desc.serialize_to_string())
    (OUT / "conv_model.startup.pb").write_bytes(startup.desc.serialize_to_string())
    np.savez_compressed(OUT / "conv_model_io.npz", meta=np.array(json.dumps(meta)), **arrays)
    print(sorted(set(meta["ops"])))
    print("losses", [float(arrays[f"step{k}:loss"]) for k in range(STEPS)])


if __name__ == "__main__":
    main()
