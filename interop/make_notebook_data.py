"""Write notebook 08's real models with PaddlePaddle 2.6.2 itself: a ResNet-18 and an LSTM.

Run with the interop environment (``make interop`` creates it), never with paddle_nb's:

    .venv-interop/bin/python interop/make_notebook_data.py --out notebooks/data

It writes, in static mode on the CPU:

- ``resnet18.pdmodel``: ``paddle.vision.models.resnet18(num_classes=10)`` in eval mode on
  ``image[N, 3, 32, 32]``, saved with ``paddle.static.save_inference_model``. Its 11.2 million
  parameters (45 MB) are not committed: notebook 08 makes them with NumPy by the recipe in
  ``resnet_parameters`` below (the notebook holds a copy), and ``resnet18_io.npz`` holds an
  ``image`` and the ``logits`` PaddlePaddle gives for it with those parameters.
- ``lstm2.pdmodel`` / ``lstm2.pdiparams``: ``paddle.nn.LSTM(4, 3, num_layers=2,
  direction="bidirect")`` on ``x[N, 5, 4]`` (batch-major), zero initial states made inside
  the program, saved with its parameters (PaddlePaddle's own seeded initialisation);
  ``lstm2_io.npz`` holds an ``x`` and PaddlePaddle's ``out``, ``h`` and ``c`` for it.
"""
import argparse
import pathlib
import zlib

import numpy as np

SEED = 2026
T, IN, H = 5, 4, 3


def resnet_parameters(shapes):
    """{name: array} for a ResNet's persistable variables, from NumPy alone.

    Each variable gets its own generator, seeded by the CRC-32 of its name (so the order does
    not matter): conv kernels [out, in, kh, kw] He-normal (std sqrt(2 / (in kh kw))), the fc
    weight [in, out] normal with std sqrt(1 / in), every vector (batch-norm scale, shift,
    mean, variance; fc bias) uniform in [0.5, 1.5], which keeps variances positive.
    """
    values = {}
    for name, shape in sorted(shapes.items()):
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        if len(shape) == 1:
            value = rng.uniform(0.5, 1.5, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            gain = 2.0 if len(shape) == 4 else 1.0
            value = rng.standard_normal(shape) * np.sqrt(gain / fan_in)
        values[name] = value.astype("float32")
    return values


def _persistables(program):
    return {v.name: list(v.shape) for v in program.list_vars()
            if v.persistable and v.name not in ("feed", "fetch")}


def make_resnet(paddle, out):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        image = paddle.static.data("image", [-1, 3, 32, 32], "float32")
        model = paddle.vision.models.resnet18(num_classes=10)
        model.eval()                              # batch norm with its running statistics
        logits = model(image)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        prefix = str(out / "resnet18")
        paddle.static.save_inference_model(prefix, [image], [logits], exe, program=main)
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        for name, value in resnet_parameters(_persistables(program)).items():
            scope.find_var(name).get_tensor().set(value, paddle.CPUPlace())
        x = np.random.default_rng(SEED).standard_normal((2, 3, 32, 32)).astype("float32")
        (got,) = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    (out / "resnet18.pdiparams").unlink()         # 45 MB: the notebook makes them itself
    np.savez(out / "resnet18_io.npz", image=x, logits=np.asarray(got))
    print("resnet18:", len(program.global_block().ops), "ops,",
          len(_persistables(program)), "persistable variables")


def make_lstm(paddle, out):
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [-1, T, IN], "float32")
        lstm = paddle.nn.LSTM(IN, H, num_layers=2, direction="bidirect")
        y, (h, c) = lstm(x)                       # initial states: zeros, made in the program
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        prefix = str(out / "lstm2")
        paddle.static.save_inference_model(prefix, [x], [y, h, c], exe, program=main)
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        feed = np.random.default_rng(SEED + 1).standard_normal((2, T, IN)).astype("float32")
        got = exe.run(program, feed={feeds[0]: feed}, fetch_list=fetches)
    np.savez(out / "lstm2_io.npz", x=feed, out=got[0], h=got[1], c=got[2])
    print("lstm2:", [op.type for op in program.global_block().ops])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="notebooks/data")
    args = parser.parse_args(argv)
    import paddle
    paddle.enable_static()
    paddle.seed(SEED)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    make_resnet(paddle, out)
    make_lstm(paddle, out)


if __name__ == "__main__":
    main()
