"""One model in PaddlePaddle 2.6.2's Inference predictor and static Executor, for
bench_inference.py (run with the interop venv's python, in its own process).

``python inference_paddle26.py DIR REPEAT`` reads DIR/model.pdmodel, DIR/model.pdiparams (the
parameters paddle_nb set, written in PaddlePaddle's combined format) and DIR/feed.npz, and writes
DIR/out.json ({"predictor": s, "executor": s, "predictor_peak": bytes}) and DIR/predictor.npz /
DIR/executor.npz (the outputs, in fetch order). The predictor runs as a deployment would:
``config.disable_gpu()``, one math-library thread, IR optimizations on, its other CPU defaults.
Peak memory: the growth of the process's peak resident set from before the predictor is made to
after its runs (weights, its optimized program and its buffers).
"""

import json
import os
import pathlib
import resource
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from bench._common import median_time  # noqa: E402  (the same timing rule as paddle_nb's)

import numpy   # noqa: E402
import paddle  # noqa: E402


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def predictor_run(folder, feed, repeat):
    from paddle import inference
    base = rss_bytes()
    config = inference.Config(os.path.join(folder, "model.pdmodel"),
                              os.path.join(folder, "model.pdiparams"))
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(1)
    config.switch_ir_optim(True)
    config.disable_glog_info()
    predictor = inference.create_predictor(config)
    for name in predictor.get_input_names():
        predictor.get_input_handle(name).copy_from_cpu(feed[name])

    def run():
        predictor.run()
        return [predictor.get_output_handle(n).copy_to_cpu()
                for n in predictor.get_output_names()]
    outs = run()
    seconds = median_time(run, repeat=repeat)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    return seconds, max(peak, 0), outs


def executor_run(folder, feed, repeat):
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(
        os.path.join(folder, "model"), exe)
    run = lambda: exe.run(program, feed={n: feed[n] for n in feeds},  # noqa: E731
                          fetch_list=fetches)
    outs = run()
    return median_time(run, repeat=repeat), outs


def main(folder, repeat):
    feed = dict(numpy.load(os.path.join(folder, "feed.npz")))
    p_s, p_peak, p_outs = predictor_run(folder, feed, repeat)
    e_s, e_outs = executor_run(folder, feed, repeat)
    numpy.savez(os.path.join(folder, "predictor.npz"), *p_outs)
    numpy.savez(os.path.join(folder, "executor.npz"), *e_outs)
    with open(os.path.join(folder, "out.json"), "w") as f:
        json.dump({"predictor": p_s, "executor": e_s, "predictor_peak": p_peak}, f)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
