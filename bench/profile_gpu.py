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
    from cupyx.profiler import benchmark
    for _ in range(3):
        run()
    sync()
    start = time.perf_counter()
    for _ in range(runs):
        run()
    sync()
    print(f"== {name}: {(time.perf_counter() - start) / runs * 1e3:.2f} ms a run ==")
    # the host's time per run against the device's (CUDA events around each run): the larger
    # says whether launching (host) or computing (device) bounds the run
    print(benchmark(run, n_repeat=runs, n_warmup=2))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        run()
    sync()
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(22)
    stats.sort_stats("cumulative").print_stats(22)


def conv_forms(cupy):
    """ResNet-18's convolutions at batch 2 and 32 on the device: the kernel as it chooses
    (conv.conv_forward: a GEMM per image for large images) against the batch-merged form
    (conv._forward_merged: one GEMM per group), host and device time of each."""
    from cupyx.profiler import benchmark
    from paddle_nb.ops import conv
    shapes = [(64, 3, 7, 2, 3, 224), (64, 64, 3, 1, 1, 56), (128, 64, 3, 2, 1, 56),
              (128, 128, 3, 1, 1, 28), (256, 256, 3, 1, 1, 14), (512, 512, 3, 1, 1, 7)]
    rng = numpy.random.default_rng(0)
    for batch in (2, 32):
        for m, c, k, s, p, hw in shapes:
            x = cupy.asarray(rng.standard_normal((batch, c, hw, hw), "float32"))
            w = cupy.asarray(rng.standard_normal((m, c, k, k), "float32"))
            o = (hw + 2 * p - k) // s + 1
            args = ((s, s), (p, p, p, p), (1, 1), (o, o), 1)
            for label, fn in (("chosen", conv.conv_forward), ("merged", conv._forward_merged)):
                r = benchmark(fn, (cupy, x, w) + args, n_repeat=20, n_warmup=3)
                print(f"conv b{batch} {m}x{c}x{k}x{k} s{s} on {hw}x{hw} {label}: host "
                      f"{r.cpu_times.mean() * 1e6:.0f} us, device "
                      f"{r.gpu_times.mean() * 1e6:.0f} us")


def gemm_forms(cupy):
    """The host cost of one float32 GEMM through CuPy's entry points (matmul, dot, and
    cuBLAS's gemm), for a conv's shape and an MLP's."""
    from cupyx.profiler import benchmark
    from cupy import cublas
    rng = numpy.random.default_rng(0)
    for m, k, n in ((64, 576, 6272), (64, 784, 256), (256, 2304, 392)):
        a = cupy.asarray(rng.standard_normal((m, k), "float32"))
        b = cupy.asarray(rng.standard_normal((k, n), "float32"))
        for label, fn in (("matmul", cupy.matmul), ("dot", cupy.dot),
                          ("cublas.gemm", lambda a, b: cublas.gemm("N", "N", a, b))):
            r = benchmark(fn, (a, b), n_repeat=50, n_warmup=5)
            print(f"gemm {m}x{k}x{n} {label}: host {r.cpu_times.mean() * 1e6:.0f} us, "
                  f"device {r.gpu_times.mean() * 1e6:.0f} us")
    x = cupy.asarray(rng.standard_normal((2, 64, 56, 56), "float32"))
    calls = (("add", lambda: x + x), ("multiply in place", lambda: cupy.multiply(x, 2, out=x)),
             ("reshape", lambda: x.reshape(2, 64, -1)), ("empty", lambda: cupy.empty_like(x)))
    for label, fn in calls:
        r = benchmark(fn, (), n_repeat=50, n_warmup=5)
        print(f"call {label}: host {r.cpu_times.mean() * 1e6:.1f} us, "
              f"device {r.gpu_times.mean() * 1e6:.1f} us")


def main():
    if not pd.core.gpu_available():
        print("profile_gpu: needs CuPy and a CUDA device")
        return
    import cupy
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    gpu, sync = pd.GPUPlace(0), cupy.cuda.Device().synchronize
    profile("ResNet-18 inference, batch 2", resnet(cupy, gpu), sync, runs)
    profile("MLP train step, batch 64", mlp(cupy, gpu), sync, runs)
    conv_forms(cupy)
    gemm_forms(cupy)


if __name__ == "__main__":
    main()
