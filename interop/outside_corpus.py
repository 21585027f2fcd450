"""Programs outside the corpus, with the same op types at other sizes: they must run too.

The corpus (make_corpus.py) is the measure of the op library; this check guards against ops
fitted to its shapes. PaddlePaddle 2.6.2 builds seven other models (other depths, widths,
input sizes, layouts and options: ResNet-34 at 64x64, MobileNet v2 x0.5, ShuffleNet v2 x0.5,
a 3-layer bidirectional time-major LSTM, a GRU, a pre-norm Transformer encoder, bilinear
align_corners + transposed conv + GroupNorm + nearest to a given size), saves each as an
inference model with its own parameters, inputs and outputs; then paddle_nb loads and runs
each and must give PaddlePaddle's outputs (rtol 1e-4, atol 1e-6).

    .venv-interop/bin/python interop/outside_corpus.py make --out build/interop/outside
    .venv/bin/python interop/outside_corpus.py check --out build/interop/outside
"""

import argparse
import pathlib
import sys

import numpy as np


def _save(paddle, out, name, build, inputs):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        feeds = [paddle.static.data(n, [None] + list(v.shape[1:]), str(v.dtype))
                 for n, v in inputs.items()]
        outs = build(*feeds)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    test = main.clone(for_test=True)
    results = exe.run(test, feed=inputs, fetch_list=outs)
    paddle.static.save_inference_model(str(out / name), feeds, outs, exe, program=test)
    np.savez(out / f"{name}_io.npz", **{f"in/{k}": v for k, v in inputs.items()},
             **{f"out{i}": r for i, r in enumerate(results)})


def make(out):
    import paddle
    from paddle.vision import models
    paddle.enable_static()
    paddle.seed(11)
    rng = np.random.default_rng(7)
    nn = paddle.nn

    def evaluated(make_layer):
        def build(*xs):
            layer = make_layer()
            layer.eval()
            result = layer(*xs)
            return result[0] if isinstance(layer, (nn.LSTM, nn.GRU)) else result
        return build

    def upsample(x):
        y = nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True)
        y = nn.GroupNorm(2, 4)(nn.Conv2DTranspose(3, 4, 4, stride=2, padding=1)(y))
        return nn.functional.interpolate(y, size=[13, 17], mode="nearest")

    def image(*shape):
        return {"x": rng.standard_normal(shape).astype("float32")}
    cases = {
        "resnet34_64": (evaluated(lambda: models.resnet34(num_classes=7)), image(3, 3, 64, 64)),
        "mobilenet_v2_x0_5": (evaluated(lambda: models.mobilenet_v2(scale=0.5, num_classes=5)),
                              image(2, 3, 48, 48)),
        "shufflenet_v2_x0_5": (evaluated(lambda: models.shufflenet_v2_x0_5(num_classes=5)),
                               image(2, 3, 40, 40)),
        "lstm_3_layers_time_major": (evaluated(lambda: nn.LSTM(6, 5, num_layers=3,
                                                               direction="bidirect",
                                                               time_major=True)),
                                     image(7, 4, 6)),
        "gru_1_layer": (evaluated(lambda: nn.GRU(3, 9)), image(2, 11, 3)),
        "transformer_pre_norm": (evaluated(lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(12, 3, 20, dropout=0.0, normalize_before=True), 3)),
            image(2, 9, 12)),
        "upsample_sizes": (upsample, image(2, 3, 7, 9)),
    }
    out.mkdir(parents=True, exist_ok=True)
    for name, (build, inputs) in cases.items():
        _save(paddle, out, name, build, inputs)
        print(f"outside_corpus: made {name}")


def check(out):
    import paddle_nb as pd
    failed = 0
    for path in sorted(out.glob("*_io.npz")):
        name = path.name[:-len("_io.npz")]
        io = dict(np.load(path))
        exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
        program, feeds, fetches = pd.io.load_inference_model(str(out / name), exe, scope=scope,
                                                             prefix=True)
        got = exe.run(program, feed={k: io[f"in/{k}"] for k in feeds}, fetch_list=fetches,
                      scope=scope)
        ok = all(np.allclose(g, io[f"out{i}"], rtol=1e-4, atol=1e-6) for i, g in enumerate(got))
        diff = max(float(np.max(np.abs(g - io[f"out{i}"]))) for i, g in enumerate(got))
        print(f"outside_corpus: {name}: {'agrees' if ok else 'DIFFERS'} (max abs diff {diff:.1e})")
        failed += not ok
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("side", choices=("make", "check"))
    parser.add_argument("--out", default="build/interop/outside")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    return make(out) if args.side == "make" else check(out)


if __name__ == "__main__":
    sys.exit(main())
