"""Where a GPU run's time goes: cProfile over paddle_nb's runs on ``pd.GPUPlace(0)`` of the
ResNet-18 inference and the MLP train step of ``python -m bench gpu``, with the device
synchronized after each run, and the number of CuPy calls each op makes.

    python bench/profile_gpu.py [runs]        # needs CuPy and a CUDA device

Prints, per workload, the time per run, the top functions by own time and by cumulative time.
On a GPU the kernels are launched asynchronously: what cProfile sees is the host's side (the
interpreter, CuPy's launch cost, copies that wait for the device).
"""

import cProfile
import os
import pathlib
import pstats
import sys
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy  # noqa: E402

import paddle_nb as pd  # noqa: E402
from bench import bench_cnn as bc  # noqa: E402
from bench import bench_executor as be  # noqa: E402


def resnet(cupy, gpu):
    main, startup, logits = bc.resnet18_program()
    exe, scope = pd.Executor(gpu), pd.Scope()
    exe.run(startup, scope=scope)
    for name, value in bc.resnet18_weights().items():
        scope.find_var(name).get_tensor().set(value, gpu)
    xd = cupy.asarray(numpy.random.default_rng(1).standard_normal((2, 3, 224, 224), "float32"))
    return lambda: exe.run(main, feed={"x": xd}, fetch_list=[logits], scope=scope)


def mlp(cupy, gpu):
    main, startup, loss, _ = be.mlp_program()
    exe, scope = pd.Executor(gpu), pd.Scope()
    exe.run(startup, scope=scope)
    rng = numpy.random.default_rng(0)
    xd = cupy.asarray(rng.standard_normal((64, be.IN)).astype("float32"))
    ld = cupy.asarray(rng.integers(0, be.OUT, (64, 1)).astype("int64"))
    return lambda: exe.run(main, feed={"x": xd, "label": ld}, fetch_list=[loss], scope=scope)


def profile(name, run, sync, runs):
    for _ in range(3):
        run()
    sync()
    start = time.perf_counter()
    for _ in range(runs):
        run()
    sync()
    print(f"== {name}: {(time.perf_counter() - start) / runs * 1e3:.2f} ms a run ==")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        run()
    sync()
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(22)
    stats.sort_stats("cumulative").print_stats(22)


def main():
    if not pd.core.gpu_available():
        print("profile_gpu: needs CuPy and a CUDA device")
        return
    import cupy
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    gpu, sync = pd.GPUPlace(0), cupy.cuda.Device().synchronize
    profile("ResNet-18 inference, batch 2", resnet(cupy, gpu), sync, runs)
    profile("MLP train step, batch 64", mlp(cupy, gpu), sync, runs)


if __name__ == "__main__":
    main()
