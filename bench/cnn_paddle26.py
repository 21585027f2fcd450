"""ResNet-18 inference in PaddlePaddle 2.6's static executor, for bench_cnn.py (interop venv).

Run as ``python cnn_paddle26.py DIR REPEAT`` by bench_cnn.py in its own process (PaddlePaddle
and paddle_nb cannot share one): reads DIR/w.npz (the input ``x`` and every weight, named as
bench_cnn.resnet18_weights names them), builds the same network with paddle.static.nn, sets the
weights in the scope, and writes the median seconds of REPEAT runs to DIR/out.json and the
logits to DIR/logits.npy. One thread (CPU_NUM, OMP_NUM_THREADS set by the caller); timed by
bench/_common.py's median_time, as every other figure.
"""

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from bench._common import median_time  # noqa: E402  (stdlib only: the same timing rule)

import numpy   # noqa: E402
import paddle  # noqa: E402


def conv_bn(h, name, cout, k, s, p, relu):
    h = paddle.static.nn.conv2d(h, cout, k, stride=s, padding=p, bias_attr=False,
                                param_attr=paddle.ParamAttr(name=name + ".w"))
    return paddle.static.nn.batch_norm(h, act="relu" if relu else None, is_test=True,
                                       param_attr=paddle.ParamAttr(name=name + ".scale"),
                                       bias_attr=paddle.ParamAttr(name=name + ".bias"),
                                       moving_mean_name=name + ".mean",
                                       moving_variance_name=name + ".var")


def build():
    x = paddle.static.data("x", [-1, 3, 224, 224], "float32")
    h = conv_bn(x, "stem", 64, 7, 2, 3, True)
    h = paddle.nn.functional.max_pool2d(h, 3, 2, 1)
    cin = 64
    for stage, (cout, stride) in enumerate(((64, 1), (128, 2), (256, 2), (512, 2))):
        for b in range(2):
            s, name = (stride if b == 0 else 1), f"l{stage + 1}b{b}"
            y = conv_bn(h, name + "c1", cout, 3, s, 1, True)
            y = conv_bn(y, name + "c2", cout, 3, 1, 1, False)
            if s != 1 or cin != cout:
                h = conv_bn(h, name + "down", cout, 1, s, 0, False)
            h = paddle.nn.functional.relu(y + h)
            cin = cout
    h = paddle.flatten(paddle.nn.functional.adaptive_avg_pool2d(h, 1), 1)
    return paddle.static.nn.fc(h, 1000, weight_attr=paddle.ParamAttr(name="fc.w"),
                               bias_attr=paddle.ParamAttr(name="fc.b"))


def main(folder, repeat):
    paddle.enable_static()
    data = numpy.load(os.path.join(folder, "w.npz"))
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_prog, startup):
        logits = build()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.global_scope()
    exe.run(startup)
    for name in data.files:
        if name != "x":
            scope.find_var(name).get_tensor().set(data[name], paddle.CPUPlace())
    feed = {"x": data["x"]}
    out = exe.run(main_prog, feed=feed, fetch_list=[logits])[0]
    seconds = median_time(lambda: exe.run(main_prog, feed=feed, fetch_list=[logits]),
                          repeat=repeat)
    numpy.save(os.path.join(folder, "logits.npy"), out)
    with open(os.path.join(folder, "out.json"), "w") as f:
        json.dump({"s": seconds, "version": paddle.__version__}, f)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
