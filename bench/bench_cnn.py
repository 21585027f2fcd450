"""Convolutional models: a LeNet-5 training step and ResNet-18 inference, against NumPy and peers.

(a) LeNet-5 training step at batch 64, 1x28x28, float32: conv 6@5x5 + relu + max pool 2,
    conv 16@5x5 + relu + max pool 2, fc 120 + relu, fc 84 + relu, fc 10, softmax cross
    entropy, mean, SGD(0.01), through ``exe.run(main, feed, fetch_list=[loss])``; against the
    same step written by hand in NumPy (im2col by a strided view, 2x2 pooling as a reshape) and,
    when ``import torch`` works, the same step in PyTorch eager (autograd, one thread), all from
    the same initial weights; the losses are checked equal for 3 steps before timing.
(b) ResNet-18 inference at batch 2, 3x224x224 (conv + batch_norm(is_test) + relu, basic blocks,
    global average pool, fc 1000): paddle_nb against the same network in ``torch.nn`` (eval
    mode, same weights, logits checked) and PaddlePaddle 2.6's static executor when the interop
    venv is present (run in its own process by ``bench/cnn_paddle26.py``, same weights).

Ratios are taken in the same run, timed back to back (see ``bench/_common.py``).
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

from bench import _common  # noqa: F401  (one thread, set before NumPy is imported)
from bench._common import Table, busy_note, interleaved, ms, peak_bytes, torch_or_none, x

import numpy
from numpy.lib.stride_tricks import sliding_window_view

import paddle_nb as pd
from paddle_nb import optimizer

BATCH, LR = 64, 0.01
GOAL_LENET = 1.5                 # x PyTorch
# PaddlePaddle 2.6's venv: $PADDLE26_PYTHON, else the checkout's .venv-interop
INTEROP = pathlib.Path(os.environ.get("PADDLE26_PYTHON") or pathlib.Path(__file__).resolve()
                       .parents[1] / ".venv-interop" / "bin" / "python")


# ---- (a) LeNet-5 ----------------------------------------------------------------------------

def lenet_program():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        img = pd.layers.data("x", shape=[1, 28, 28])
        label = pd.layers.data("label", shape=[1], dtype="int64")
        h = pd.layers.pool2d(pd.layers.conv2d(img, 6, 5, act="relu"), 2, "max", 2)
        h = pd.layers.pool2d(pd.layers.conv2d(h, 16, 5, act="relu"), 2, "max", 2)
        h = pd.layers.fc(pd.layers.fc(h, 120, act="relu"), 84, act="relu")
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(pd.layers.fc(h, 10), label))
        optimizer.SGD(LR).minimize(loss)
    return main, startup, loss


def lenet_params(main, scope):
    """The parameters in creation order: conv1 w, b, conv2 w, b, fc1 w, b, fc2 w, b, fc3 w, b."""
    return [scope.find_var(p.name).get_tensor().numpy().copy()
            for p in main.global_block().all_parameters()]


def _np_conv(xv, w, b):
    """(y, columns) of a stride-1 unpadded convolution: columns (N*OH*OW, C*kh*kw), one GEMM."""
    n, c = xv.shape[:2]
    m, _, kh, kw = w.shape
    win = sliding_window_view(xv, (kh, kw), axis=(2, 3))          # (N, C, OH, OW, kh, kw)
    oh, ow = win.shape[2:4]
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    y = (cols @ w.reshape(m, -1).T).reshape(n, oh, ow, m).transpose(0, 3, 1, 2) + b[:, None, None]
    return y, cols


def _np_conv_grad(dy, w, cols, x_shape, want_dx):
    n, m, oh, ow = dy.shape
    dy2 = dy.transpose(0, 2, 3, 1).reshape(-1, m)
    dw, db = (dy2.T @ cols).reshape(w.shape), dy2.sum(axis=0)
    if not want_dx:
        return None, dw, db
    kh, kw = w.shape[2:]
    dcols = (dy2 @ w.reshape(m, -1)).reshape(n, oh, ow, -1, kh, kw)
    dx = numpy.zeros(x_shape, dy.dtype)
    for i in range(kh):                     # col2im: one strided block per kernel position
        for j in range(kw):
            dx[:, :, i:i + oh, j:j + ow] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dx, dw, db


def _np_pool(a):
    """2x2 max pooling as a reshape, rows then columns (``.max(axis=(3, 5))`` is 30x slower)."""
    n, c, h, w = a.shape
    a6 = a.reshape(n, c, h // 2, 2, w // 2, 2)
    rows = numpy.maximum(a6[:, :, :, 0], a6[:, :, :, 1])
    return numpy.maximum(rows[..., 0], rows[..., 1])


def _np_pool_grad(a, out, dout):
    n, c, h, w = a.shape
    hit = a.reshape(n, c, h // 2, 2, w // 2, 2) == out[:, :, :, None, :, None]
    return (hit * dout[:, :, :, None, :, None]).reshape(a.shape)


class NumpyLeNet:
    """The same step written by hand: forward, backward, in-place SGD."""

    def __init__(self, params):
        self.p = [a.copy() for a in params]

    def step(self, xv, label):
        cw1, cb1, cw2, cb2, w1, b1, w2, b2, w3, b3 = self.p
        a1, cols1 = _np_conv(xv, cw1, cb1)
        r1 = numpy.maximum(a1, 0)
        p1 = _np_pool(r1)
        a2, cols2 = _np_conv(p1, cw2, cb2)
        r2 = numpy.maximum(a2, 0)
        p2 = _np_pool(r2)
        f0 = p2.reshape(len(xv), -1)
        h1 = numpy.maximum(f0 @ w1 + b1, 0)
        h2 = numpy.maximum(h1 @ w2 + b2, 0)
        logits = h2 @ w3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = numpy.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        rows, cls = numpy.arange(len(xv)), label[:, 0]
        loss = (numpy.log(s[:, 0]) - shifted[rows, cls]).mean()
        d = e / s
        d[rows, cls] -= 1
        d /= len(xv)
        grads = [None] * 10
        grads[8], grads[9] = h2.T @ d, d.sum(axis=0)
        d = (d @ w3.T) * (h2 > 0)
        grads[6], grads[7] = h1.T @ d, d.sum(axis=0)
        d = (d @ w2.T) * (h1 > 0)
        grads[4], grads[5] = f0.T @ d, d.sum(axis=0)
        d = _np_pool_grad(r2, p2, (d @ w1.T).reshape(p2.shape)) * (r2 > 0)
        d, grads[2], grads[3] = _np_conv_grad(d, cw2, cols2, p1.shape, True)
        d = _np_pool_grad(r1, p1, d) * (r1 > 0)
        _, grads[0], grads[1] = _np_conv_grad(d, cw1, cols1, xv.shape, False)
        for p, g in zip(self.p, grads):
            p -= LR * g
        return loss


class TorchLeNet:
    """The same step in PyTorch eager: functional layers, autograd, ``p -= lr * p.grad``."""

    def __init__(self, torch, params):
        self.torch = torch
        self.p = [torch.tensor(a, requires_grad=True) for a in params]

    def step(self, xt, lt):
        torch, F = self.torch, self.torch.nn.functional
        cw1, cb1, cw2, cb2, w1, b1, w2, b2, w3, b3 = self.p
        h = F.max_pool2d(torch.relu(F.conv2d(xt, cw1, cb1)), 2)
        h = F.max_pool2d(torch.relu(F.conv2d(h, cw2, cb2)), 2).flatten(1)
        h = torch.relu(torch.relu(h @ w1 + b1) @ w2 + b2)
        loss = F.cross_entropy(h @ w3 + b3, lt)
        loss.backward()
        with torch.no_grad():
            for p in self.p:
                p -= LR * p.grad
                p.grad = None
        return loss.item()


def bench_lenet(torch):
    main, startup, loss = lenet_program()
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    params = lenet_params(main, scope)
    rng = numpy.random.default_rng(0)
    xv = rng.standard_normal((BATCH, 1, 28, 28)).astype("float32")
    label = rng.integers(0, 10, (BATCH, 1)).astype("int64")
    feed, fetch = {"x": xv, "label": label}, [loss]
    ref = NumpyLeNet(params)

    def fw_step():
        return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)[0]

    def np_step():
        return ref.step(xv, label)

    fns = [fw_step, np_step]
    if torch is not None:
        model = TorchLeNet(torch, params)
        xt, lt = torch.from_numpy(xv), torch.from_numpy(label[:, 0].copy())
        fns.append(lambda: model.step(xt, lt))
    for _ in range(3):         # same weights, same data: the losses must agree step by step
        got = [float(f()) for f in fns]
        assert max(got) - min(got) <= 1e-4 * max(1.0, abs(got[1])), got
    times = interleaved(fns, number=1, repeat=21, warmup=2)
    out = {"lenet_step_s": times[0], "lenet_numpy_s": times[1],
           "lenet_peak_bytes": peak_bytes(fw_step), "lenet_peak_numpy_bytes": peak_bytes(np_step)}
    if torch is not None:
        out["lenet_torch_s"] = times[2]
    return out


# ---- (b) ResNet-18 inference ----------------------------------------------------------------

def resnet18_spec():
    """[(name, kind, args)]: the layers of ResNet-18 in order, shared by every implementation.

    kind "conv" (in, out, k, stride, pad) is conv + batch norm; blocks are ("block", ...)."""
    spec = [("stem", "conv", (3, 64, 7, 2, 3))]
    cin = 64
    for stage, (cout, stride) in enumerate(((64, 1), (128, 2), (256, 2), (512, 2))):
        for b in range(2):
            s = stride if b == 0 else 1
            name = f"l{stage + 1}b{b}"
            spec.append((name + "c1", "conv", (cin, cout, 3, s, 1)))
            spec.append((name + "c2", "conv", (cout, cout, 3, 1, 1)))
            if s != 1 or cin != cout:
                spec.append((name + "down", "conv", (cin, cout, 1, s, 0)))
            cin = cout
    return spec


def resnet18_weights(seed=0):
    """{name: array}: He-scaled conv filters, batch-norm scale/bias/mean/variance, fc."""
    rng = numpy.random.default_rng(seed)
    w = {}
    for name, _, (cin, cout, k, _, _) in resnet18_spec():
        w[name + ".w"] = (rng.standard_normal((cout, cin, k, k)) * (2 / (cin * k * k)) ** 0.5)
        w[name + ".scale"] = rng.uniform(0.5, 1.0, cout)
        w[name + ".bias"] = rng.uniform(-0.1, 0.1, cout)
        w[name + ".mean"] = rng.uniform(-0.1, 0.1, cout)
        w[name + ".var"] = rng.uniform(0.5, 1.5, cout)
    w["fc.w"] = rng.standard_normal((512, 1000)) * 512 ** -0.5
    w["fc.b"] = numpy.zeros(1000)
    return {k: v.astype("float32") for k, v in w.items()}


def _pd_conv_bn(h, name, args, relu):
    _, cout, k, s, p = args
    h = pd.layers.conv2d(h, cout, k, stride=s, padding=p, param_attr=pd.ParamAttr(name + ".w"),
                         bias_attr=False)
    return pd.layers.batch_norm(h, act="relu" if relu else None, is_test=True,
                                param_attr=pd.ParamAttr(name + ".scale"),
                                bias_attr=pd.ParamAttr(name + ".bias"),
                                moving_mean_name=name + ".mean",
                                moving_variance_name=name + ".var")


def resnet18_program():
    main, startup = pd.Program(), pd.Program()
    spec = dict((n, a) for n, _, a in resnet18_spec())
    with pd.program_guard(main, startup):
        img = pd.layers.data("x", shape=[3, 224, 224])
        h = _pd_conv_bn(img, "stem", spec["stem"], True)
        h = pd.layers.pool2d(h, 3, "max", 2, pool_padding=1)
        for stage in range(1, 5):
            for b in range(2):
                name = f"l{stage}b{b}"
                y = _pd_conv_bn(h, name + "c1", spec[name + "c1"], True)
                y = _pd_conv_bn(y, name + "c2", spec[name + "c2"], False)
                if name + "down" in spec:
                    h = _pd_conv_bn(h, name + "down", spec[name + "down"], False)
                h = pd.layers.relu(pd.layers.elementwise_add(y, h))
        h = pd.layers.pool2d(h, pool_type="avg", global_pooling=True)
        logits = pd.layers.fc(h, 1000, param_attr=pd.ParamAttr("fc.w"),
                              bias_attr=pd.ParamAttr("fc.b"))
    return main, startup, logits


def torch_resnet18(torch, weights):
    """The same network as ``torch.nn`` modules in eval mode, loaded with ``weights``."""
    nn = torch.nn
    spec = resnet18_spec()

    def conv_bn(name, args):
        cin, cout, k, s, p = args
        conv, bn = nn.Conv2d(cin, cout, k, s, p, bias=False), nn.BatchNorm2d(cout)
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(weights[name + ".w"]))
            for attr, key in (("weight", "scale"), ("bias", "bias"), ("running_mean", "mean"),
                              ("running_var", "var")):
                getattr(bn, attr).copy_(torch.from_numpy(weights[f"{name}.{key}"]))
        return nn.Sequential(conv, bn)

    class Block(nn.Module):
        def __init__(self, name, specs):
            super().__init__()
            self.c1 = conv_bn(name + "c1", specs[name + "c1"])
            self.c2 = conv_bn(name + "c2", specs[name + "c2"])
            down = name + "down"
            self.down = conv_bn(down, specs[down]) if down in specs else None

        def forward(self, h):
            y = self.c2(torch.relu(self.c1(h)))
            return torch.relu(y + (self.down(h) if self.down is not None else h))

    specs = dict((n, a) for n, _, a in spec)
    fc = nn.Linear(512, 1000)
    with torch.no_grad():
        fc.weight.copy_(torch.from_numpy(weights["fc.w"].T.copy()))
        fc.bias.copy_(torch.from_numpy(weights["fc.b"]))
    layers = [conv_bn("stem", specs["stem"]), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    layers += [Block(f"l{s}b{b}", specs) for s in range(1, 5) for b in range(2)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), fc]
    return nn.Sequential(*layers).eval()


def paddle26_resnet(weights, xv, repeat):
    """{"s": median seconds, "logits": ...} from PaddlePaddle 2.6's static executor, or None."""
    if not INTEROP.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        numpy.savez(os.path.join(tmp, "w.npz"), x=xv, **weights)
        env = dict(os.environ, CPU_NUM="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        env.pop("PYTHONPATH", None)
        script = pathlib.Path(__file__).with_name("cnn_paddle26.py")
        done = subprocess.run([str(INTEROP), str(script), tmp, str(repeat)], env=env,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return None
        with open(os.path.join(tmp, "out.json")) as f:
            res = json.load(f)
        res["logits"] = numpy.load(os.path.join(tmp, "logits.npy"))
        return res


def bench_resnet(torch):
    main, startup, logits = resnet18_program()
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    weights = resnet18_weights()
    for name, value in weights.items():
        scope.find_var(name).get_tensor().set(value, pd.CPUPlace())
    xv = numpy.random.default_rng(1).standard_normal((2, 3, 224, 224)).astype("float32")
    feed, fetch = {"x": xv}, [logits]

    def fw():
        return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)[0]

    ours = fw()
    fns, out = [fw], {}
    if torch is not None:
        model, xt = torch_resnet18(torch, weights), torch.from_numpy(xv)

        def tw():
            with torch.no_grad():
                return model(xt)
        numpy.testing.assert_allclose(ours, tw().numpy(), rtol=1e-3, atol=1e-3)
        fns.append(tw)
    times = interleaved(fns, number=1, repeat=7, warmup=1)
    out["resnet_s"] = times[0]
    out["resnet_peak_bytes"] = peak_bytes(fw)
    if torch is not None:
        out["resnet_torch_s"] = times[1]
    p26 = paddle26_resnet(weights, xv, 7)
    if p26 is not None:
        out["resnet_paddle26_s"], out["resnet_paddle26_version"] = p26["s"], p26["version"]
        out["resnet_paddle26_maxdiff"] = float(numpy.abs(p26["logits"] - ours).max())
    return out


def main():
    torch = torch_or_none()
    a, b = bench_lenet(torch), bench_resnet(torch)
    t = Table("cnn: (a) LeNet-5 train step, batch 64; (b) ResNet-18 inference, batch 2, 3x224x224",
              reference="reference")
    t.row("(a) LeNet-5 step vs NumPy", ms(a["lenet_step_s"]), ms(a["lenet_numpy_s"]),
          x(a["lenet_step_s"] / a["lenet_numpy_s"]))
    if "lenet_torch_s" in a:
        t.row(f"(a) LeNet-5 step vs PyTorch {torch.__version__}", ms(a["lenet_step_s"]),
              ms(a["lenet_torch_s"]), x(a["lenet_step_s"] / a["lenet_torch_s"]),
              f"<= {GOAL_LENET:.1f}x")
    t.row("(a)   peak memory a step adds", f"{a['lenet_peak_bytes'] / 2**20:.2f} MiB",
          f"{a['lenet_peak_numpy_bytes'] / 2**20:.2f} MiB",
          x(a["lenet_peak_bytes"] / a["lenet_peak_numpy_bytes"]))
    if "resnet_torch_s" in b:
        t.row(f"(b) ResNet-18 vs PyTorch {torch.__version__} (eval)", ms(b["resnet_s"]),
              ms(b["resnet_torch_s"]), x(b["resnet_s"] / b["resnet_torch_s"]))
    else:
        t.row("(b) ResNet-18 inference", ms(b["resnet_s"]))
    if "resnet_paddle26_s" in b:
        t.row("(b) ResNet-18 vs PaddlePaddle 2.6 static", ms(b["resnet_s"]),
              ms(b["resnet_paddle26_s"]), x(b["resnet_s"] / b["resnet_paddle26_s"]))
        t.note(f"(b) PaddlePaddle {b['resnet_paddle26_version']} runs in its own process (interop "
               f"venv), timed after paddle_nb, not interleaved; same weights, logits differ by at "
               f"most {b['resnet_paddle26_maxdiff']:.2e}.")
    t.row("(b)   peak memory a run adds", f"{b['resnet_peak_bytes'] / 2**20:.1f} MiB")
    if torch is None:
        t.note("PyTorch is not importable: its rows are left out (see bench/README.md).")
    t.note("losses (a) checked equal for 3 steps across implementations, logits (b) against "
           "torch first; ratio = paddle_nb / reference, timed back to back, one thread.")
    busy = busy_note()
    if busy:
        t.note(busy)
    print(t)
    a.update(b)
    a["torch"] = torch.__version__ if torch is not None else None
    return a


if __name__ == "__main__":
    main()
