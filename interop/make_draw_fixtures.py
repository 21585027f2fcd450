"""Make the drawing fixtures with PaddlePaddle 2.6.2: ResNet-18 and ResNet-50 inference programs.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/make_draw_fixtures.py --out tests/fixtures/paddle26/draw

``pd.viz.graph`` draws a program from its ProgramDesc alone, so only the ``.pdmodel`` (the
serialized inference program of ``paddle.vision.models.resnet18()`` / ``resnet50()``, input
``image[N, 3, 224, 224]``) is kept; the parameters (``.pdiparams``, tens of MB) are written to a
temporary directory by ``save_inference_model`` and thrown away.
"""

import argparse
import pathlib
import shutil
import tempfile

import paddle

MODELS = {"resnet18": "resnet18", "resnet50": "resnet50"}


def save_model(name, out):
    """Build ``paddle.vision.models.<name>()`` in static mode and keep its ``.pdmodel``."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data("image", shape=[None, 3, 224, 224], dtype="float32")
        net = getattr(paddle.vision.models, MODELS[name])()
        net.eval()
        logits = net(image)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = str(pathlib.Path(tmp) / name)
        paddle.static.save_inference_model(prefix, [image], [logits], exe, program=main)
        shutil.copyfile(prefix + ".pdmodel", out / f"{name}.pdmodel")
    print(f"{name}: {len(main.global_block().ops)} ops built -> {out / (name + '.pdmodel')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/draw")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    paddle.enable_static()
    for name in MODELS:
        save_model(name, out)


if __name__ == "__main__":
    main()
