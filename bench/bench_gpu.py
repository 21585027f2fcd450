"""paddle_nb on ``pd.GPUPlace(0)`` (CuPy) against the same work written by hand in CuPy and
against PyTorch on the same GPU.

  (a) the chain of 1,000 tiny adds (bench_executor's): what the interpreter costs per op when
      the device does almost nothing: each op is a kernel launch;
  (b) the MLP train step (bench_executor's model: forward, backward, SGD) at batch 64 and 4096;
  (c) ResNet-18 inference (bench_cnn's program and weights) at batch 2 and 32.

Every figure is wall time with the device synchronized before the clock stops (a fetch copies
its value to the host, which waits for the device; the hand-written and PyTorch forms end with
the same copy), the median of interleaved repeats. The ratios compare the same run. Without
CuPy and a CUDA device (CI, most laptops) it prints one line and returns.
"""

from bench import _common  # noqa: F401  (one thread, set before NumPy is imported)
from bench._common import Table, torch_or_none, ms, us, x

import statistics
import time

import numpy

import paddle_nb as pd
from bench import bench_executor as be
from bench import bench_cnn as bc


def _sync_time(fns, sync, repeat=15, warmup=3, number=1):
    """Median wall seconds per call of each function, timed in turn (one repeat of each)."""
    for _ in range(warmup):
        for fn in fns:
            fn()
    sync()
    samples = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, samples):
            sync()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            sync()
            out.append((time.perf_counter() - start) / number)
    return [statistics.median(s) for s in samples]


def _torch_cuda(torch):
    """PyTorch on the GPU in plain float32 (TF32 off: paddle_nb and CuPy compute in float32),
    or None without it."""
    if torch is None or not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch


def bench_chain(cupy, gpu):
    prog, y = be.chain_program(be.CHAIN)
    exe, scope = pd.Executor(gpu), pd.Scope()
    xv = cupy.asarray(numpy.arange(4, dtype="float32"))

    def fw():
        return exe.run(prog, feed={"x": xv}, fetch_list=[y], scope=scope)[0]

    def hand():
        out = xv
        for _ in range(be.CHAIN):
            out = cupy.add(out, xv)
        return out.get()
    numpy.testing.assert_allclose(fw(), hand(), rtol=1e-6)
    t_fw, t_hand = _sync_time([fw, hand], cupy.cuda.Device().synchronize, repeat=9)
    return {"chain_s": t_fw, "chain_cupy_s": t_hand}


def bench_mlp(cupy, gpu, torch, batch):
    main, startup, loss, _ = be.mlp_program()
    cpu_scope, scope = pd.Scope(), pd.Scope()
    pd.Executor(pd.CPUPlace()).run(startup, scope=cpu_scope)
    for var in main.global_block().vars.values():
        if var.persistable and cpu_scope.find_var(var.name) is not None:
            scope.var(var.name).get_tensor().set(
                cpu_scope.find_var(var.name).get_tensor().numpy(), gpu)
    exe = pd.Executor(gpu)
    (w1n, w2n), (b1n, b2n) = be._param_names(main)
    values = [cpu_scope.find_var(n).get_tensor().numpy() for n in (w1n, b1n, w2n, b2n)]
    rng = numpy.random.default_rng(0)
    xh = rng.standard_normal((batch, be.IN)).astype("float32")
    lh = rng.integers(0, be.OUT, (batch, 1)).astype("int64")
    xd, ld = cupy.asarray(xh), cupy.asarray(lh)
    ref = be.NumpyMLP(*(cupy.asarray(v) for v in values), xp=cupy)

    def fw():
        return float(exe.run(main, feed={"x": xd, "label": ld}, fetch_list=[loss],
                             scope=scope)[0])

    def hand():
        return float(ref.step(xd, ld))
    for _ in range(3):
        got, want = fw(), hand()
        assert abs(got - want) <= 1e-3 * max(1.0, abs(want)), (got, want)
    fns = [fw, hand]
    torch = _torch_cuda(torch)
    if torch is not None:
        model = be.TorchMLP(torch, *values)
        model.params = [p.detach().cuda().requires_grad_() for p in model.params]
        xt, lt = torch.from_numpy(xh).cuda(), torch.from_numpy(lh[:, 0].copy()).cuda()
        fns.append(lambda: model.step(xt, lt))
    times = _sync_time(fns, cupy.cuda.Device().synchronize, repeat=21, number=2)
    out = {f"mlp{batch}_s": times[0], f"mlp{batch}_cupy_s": times[1]}
    if torch is not None:
        out[f"mlp{batch}_torch_s"] = times[2]
    return out


def bench_resnet(cupy, gpu, torch, batch):
    main, startup, logits = bc.resnet18_program()
    exe, scope = pd.Executor(gpu), pd.Scope()
    exe.run(startup, scope=scope)
    weights = bc.resnet18_weights()
    for name, value in weights.items():
        scope.find_var(name).get_tensor().set(value, gpu)
    xh = numpy.random.default_rng(1).standard_normal((batch, 3, 224, 224)).astype("float32")
    xd = cupy.asarray(xh)

    def fw():
        return exe.run(main, feed={"x": xd}, fetch_list=[logits], scope=scope)[0]
    fns = [fw]
    ours = fw()
    torch = _torch_cuda(torch)
    out = {}
    if torch is not None:
        torch.backends.cudnn.benchmark = True
        model, xt = bc.torch_resnet18(torch, weights).cuda(), torch.from_numpy(xh).cuda()

        def tw():
            with torch.no_grad():
                return model(xt).cpu().numpy()
        out[f"resnet{batch}_maxdiff"] = float(numpy.abs(tw() - ours).max())
        numpy.testing.assert_allclose(ours, tw(), rtol=1e-3, atol=1e-3)
        fns.append(tw)
    times = _sync_time(fns, cupy.cuda.Device().synchronize, repeat=9)
    out[f"resnet{batch}_s"] = times[0]
    if torch is not None:
        out[f"resnet{batch}_torch_s"] = times[1]
    return out


def figures():
    """{name: seconds}, or None where there is no CUDA device."""
    if not pd.core.gpu_available():
        return None
    import cupy
    gpu, torch = pd.GPUPlace(0), torch_or_none()
    out = {"device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
           "cupy": cupy.__version__}
    out.update(bench_chain(cupy, gpu))
    for batch in (64, 4096):
        out.update(bench_mlp(cupy, gpu, torch, batch))
    for batch in (2, 32):
        out.update(bench_resnet(cupy, gpu, torch, batch))
    return out


def _rows(t, label, ours, refs, fmt):
    """One row per reference that was measured: (label, paddle_nb, reference, ratio)."""
    for name, ref in refs:
        if ref:
            t.row(f"{label} vs {name}", fmt(ours), fmt(ref), x(ours / ref))


def main():
    f = figures()
    if f is None:
        print("gpu: skipped (needs CuPy and a CUDA device)")
        return None
    t = Table(f"gpu: paddle_nb on GPUPlace(0) against hand-written CuPy and PyTorch CUDA "
              f"({f['device']}, CuPy {f['cupy']})", reference="reference")
    _rows(t, f"(a) chain of {be.CHAIN} adds", f["chain_s"], [("CuPy", f["chain_cupy_s"])], ms)
    for batch in (64, 4096):
        _rows(t, f"(b) MLP train step, batch {batch}", f[f"mlp{batch}_s"],
              [("CuPy", f[f"mlp{batch}_cupy_s"]), ("PyTorch", f.get(f"mlp{batch}_torch_s"))], us)
    for batch in (2, 32):
        _rows(t, f"(c) ResNet-18 inference, batch {batch}", f[f"resnet{batch}_s"],
              [("PyTorch", f.get(f"resnet{batch}_torch_s"))], ms)
    print(t)
    return f
