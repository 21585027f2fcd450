# %% [markdown]
# # 10 · From notebook to cluster
#
# A notebook is where a model is built and looked at: its blocks, its scopes, a few steps of
# training. More data and more machines are PaddlePaddle's: it has a distributed engine
# (Fleet: parameter servers on CPUs, collective training on GPUs) and runs the same program
# format. `pd.io.export_training` is the bridge. It writes the training program, in the op
# forms PaddlePaddle 2.6 writes, with the current parameter values and a `train.py` that needs
# only PaddlePaddle; the weights PaddlePaddle trains come back into a scope here.
#
# **What you will see**
#
# 1. A small classifier built and trained three steps here.
# 2. Its export: what the folder holds and what `export.json` says.
# 3. `train.py` in one PaddlePaddle process: the same losses as paddle_nb, step by step.
# 4. Fleet on this machine: one parameter server and two worker processes, and each worker's
#    loss curve, asynchronous and then synchronous (checked against paddle_nb step by step);
#    and what a GPU cluster would change.
# 5. The trained weights loaded back and looked at in the scope view.
#
# Steps 3 to 5 need PaddlePaddle 2.6.2, which `make interop` installs into `.venv-interop`
# (and, for Fleet, `build/fleet-venv`, the same packages with protobuf 4). Where it is missing,
# those cells say so and do nothing else. Each code cell checks itself with `assert` lines.
#
# > **Optional lab · about 15 min** (the core path is in [README.md](README.md)). Claims say
# > whose rule they are: **Design**, **PaddlePaddle** or **paddle_nb** (see notebook 01).

# %%
import json
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import paddle_nb as pd
from IPython.display import SVG, display

ROOT = pathlib.Path.cwd().parent          # the notebooks run in notebooks/


def interpreter(variable, default):
    """A Python with PaddlePaddle: $variable, else ``default`` in the repository, else None."""
    path = os.environ.get(variable) or str(ROOT / default)
    return path if os.path.isfile(path) else None


PADDLE = interpreter("PADDLE_PYTHON", ".venv-interop/bin/python")
FLEET = interpreter("FLEET_PYTHON", "build/fleet-venv/bin/python")
for what, python in (("PaddlePaddle", PADDLE), ("Fleet", FLEET)):
    found = f"found ({pathlib.Path(python).parents[1].name})" if python else \
        "not installed here: run `make interop` (needs Python 3.8-3.12)"
    print(f"{what}: {found}")

# %% [markdown]
# ## 1 · Build and train a little here
#
# A two-layer classifier of 16 features into 10 classes, on batches whose labels come from a
# fixed linear "teacher" (so there is something to learn), trained with SGD.

# %%
rng = np.random.default_rng(0)
teacher = rng.standard_normal((16, 10))


def batch(rows=32):
    x = rng.standard_normal((rows, 16)).astype("float32")
    return {"x": x, "label": (x @ teacher).argmax(1)[:, None].astype("int64")}


main, startup = pd.Program(), pd.Program()
with pd.program_guard(main, startup):
    x = pd.layers.data("x", shape=[16])
    label = pd.layers.data("label", shape=[1], dtype="int64")
    logits = pd.layers.fc(pd.layers.fc(x, 32, act="relu"), 10)
    loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
    pd.optimizer.SGD(learning_rate=0.2).minimize(loss)

exe, scope = pd.Executor(pd.CPUPlace(), seed=1), pd.Scope()
exe.run(startup, scope=scope)
for step in range(3):
    (value,) = exe.run(main, feed=batch(), fetch_list=[loss], scope=scope)
    print(f"paddle_nb step {step}: loss {float(value):.4f}")
print(sorted({op.type for op in main.global_block().ops}))
assert {"mul_grad", "sgd"} <= {op.type for op in main.global_block().ops}

# %% [markdown]
# ## 2 · Export
#
# `export_training(dirname, main, startup, scope)` writes the programs (the whole training
# program, and its forward part alone for Fleet, which adds its own backward pass and
# optimizer), the parameters as they stand in `scope` (after the three steps above), and
# `train.py`. The manifest names the feeds, the loss and the optimizer.

# %%
work = pathlib.Path(tempfile.mkdtemp(prefix="nb10_"))
folder = work / "export"
manifest = pd.io.export_training(str(folder), main, startup, scope=scope)
print(sorted(p.name for p in folder.iterdir()))
print({k: manifest[k] for k in ("feeds", "loss", "parameters")})
print(manifest["optimizer"]["type"], f"learning rate {manifest['optimizer']['learning_rate']:g}")
files = []
for k in range(4):                   # one batch per file, its arrays named by the feeds
    files.append(str(work / f"b{k}.npz"))
    np.savez(files[-1], **batch())
assert manifest["feeds"] == ["x", "label"] and manifest["loss"] == loss.name
assert sorted(p.name for p in (folder / "params").iterdir()) == manifest["persistables"]

# %% [markdown]
# ## 3 · One PaddlePaddle process
#
# `python train.py --data FILE.npz ... --steps N --save OUT` runs the exported program with
# `paddle.static.Executor`: every op is one paddle_nb wrote. Each step prints one JSON line.
# paddle_nb takes the same steps on a copy of the scope; the losses agree.

# %%
def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"worker"')]


here = pd.Scope()
pd.io.load_persistables(exe, str(folder / "params"), main, scope=here)
ours = [float(exe.run(main, feed=dict(np.load(f)), fetch_list=[loss], scope=here)[0])
        for f in files]
if PADDLE:
    command = [PADDLE, str(folder / "train.py"), "--steps", "4", "--save", str(work / "one")]
    for f in files:
        command += ["--data", f]
    theirs = [line["loss"] for line in json_lines(
        subprocess.run(command, capture_output=True, text=True, check=True).stdout)]
    for step, (a, b) in enumerate(zip(ours, theirs)):
        print(f"step {step}: paddle_nb {a:.6f}  PaddlePaddle {b:.6f}")
    assert np.allclose(ours, theirs, atol=1e-4)
else:
    print("PaddlePaddle is not installed here; paddle_nb's losses:", np.round(ours, 4))

# %% [markdown]
# ## 4 · Fleet: one parameter server, two workers
#
# `python -m paddle.distributed.launch --server_num=1 --worker_num=2 train.py ...` starts
# three processes on this machine. The server holds the parameters and runs SGD; each
# worker reads its own files (worker k takes files k, k+2, ...), pushes gradients and pulls
# parameters. This first run is Fleet's asynchronous mode (`train.py`'s default): the server
# applies each worker's gradients as they come, so the workers' steps interleave and neither
# waits (README, "When a notebook is not enough"). `PADDLE_WITH_GLOO=1` makes Fleet's
# barriers work. Each worker's log holds its JSON lines; the chart shows each worker's loss.

# %%
def line_chart(series, width=560, height=220):
    """An SVG chart of ``{label: (losses, colour)}`` against the step."""
    top = max(max(ys) for ys, _ in series.values()) * 1.05
    steps = max(len(ys) for ys, _ in series.values()) - 1

    def point(i, y):
        return f"{40 + i / steps * (width - 160):.1f},{height - 25 - y / top * (height - 45):.1f}"

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11"><rect width="100%" height="100%" '
           'fill="white"/>', f'<text x="4" y="14">loss (top {top:.2f}) against step</text>']
    for row, (name, (ys, colour)) in enumerate(series.items()):
        points = " ".join(point(i, y) for i, y in enumerate(ys))
        svg.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                   'stroke-width="2"/>')
        svg.append(f'<text x="{width - 110}" y="{40 + 16 * row}" fill="{colour}">{name}</text>')
    return SVG("".join(svg) + "</svg>")


def fleet(mode, steps=12):
    """Launch 1 server + 2 workers in ``mode``; each worker's losses, printed and returned."""
    command = [FLEET, "-m", "paddle.distributed.launch", "--server_num=1", "--worker_num=2",
               "--log_dir", str(work / f"logs_{mode}"), str(folder / "train.py"),
               "--steps", str(steps), "--save", str(work / f"fleet_{mode}"), "--ps-mode", mode]
    for f in files:
        command += ["--data", f]
    subprocess.run(command, capture_output=True, check=True, cwd=work,
                   env={**os.environ, "PADDLE_WITH_GLOO": "1"}, timeout=110)
    found = {}
    for k in range(2):
        lines = json_lines((work / f"logs_{mode}" / f"workerlog.{k}").read_text(errors="replace"))
        found[f"worker {k}"] = [line["loss"] for line in lines]
        print(f"{mode} worker {k}:", " ".join(f"{v:.3f}" for v in found[f"worker {k}"]))
    return found


curves = {}
if FLEET:
    curves = fleet("async")
    display(line_chart({name: (ys, colour) for (name, ys), colour
                        in zip(curves.items(), ("#08519c", "#e6550d"))}))
    assert all(np.mean(ys[-3:]) < np.mean(ys[:3]) for ys in curves.values())
else:
    print("Fleet needs PaddlePaddle with protobuf 4.x (build/fleet-venv): run `make interop`")

# %% [markdown]
# ### Synchronous updates
#
# `--ps-mode sync` (`strategy.a_sync = False`): each step the server waits for both workers'
# gradients, averages them and takes one SGD step; both workers then pull the same
# parameters. PaddlePaddle 2.6.2 builds these programs but does not run them by itself (its
# `send_barrier` op asks for a communicator it makes in geo mode only), so `train.py` drives
# each step: run, flush the pushes, barrier on the server's barrier table (which applies the
# mean gradient), pull. That arithmetic is easy to do here: from the same parameters, each
# worker's loss on its batch, then one SGD step on both batches stacked (the loss is a mean
# over rows, so that is the mean gradient). The two agree step by step. The chart puts the
# synchronous curves (dark) over the asynchronous ones (light): averaging two workers'
# gradients into one step moves less per step than applying each as it comes.

# %%
if FLEET:
    synchronous = fleet("sync")
    forward = pd.io.load_program(str(folder / "forward.pdmodel"))
    same = pd.Scope()
    pd.io.load_persistables(exe, str(folder / "params"), main, scope=same)
    expected = {"worker 0": [], "worker 1": []}
    for step in range(12):
        batches = [dict(np.load(files[k::2][step % 2])) for k in range(2)]
        for k, feed in enumerate(batches):
            (value,) = exe.run(forward, feed=feed, fetch_list=[loss.name], scope=same)
            expected[f"worker {k}"].append(float(value))
        exe.run(main, feed={n: np.concatenate([b[n] for b in batches]) for n in batches[0]},
                scope=same)
    shown = {f"async {k[-1]}": ys for k, ys in curves.items()}
    shown.update({f"sync {k[-1]}": ys for k, ys in synchronous.items()})
    display(line_chart({name: (ys, colour) for (name, ys), colour
                        in zip(shown.items(), ("#9ecae1", "#fdae6b", "#08519c", "#e6550d"))}))
    worst = max(abs(a - b) for k in expected for a, b in zip(expected[k], synchronous[k]))
    print(f"largest difference from paddle_nb's synchronous SGD: {worst:.2g}")
    assert worst < 1e-4
else:
    print("Fleet needs PaddlePaddle with protobuf 4.x (build/fleet-venv): run `make interop`")

# %% [markdown]
# ### What a GPU cluster would change
#
# The same folder trains collectively on GPUs, with a PaddlePaddle 2.6.2 built for CUDA
# (`paddlepaddle-gpu`):
#
#     python -m paddle.distributed.launch --gpus 0,1,2,3 export/train.py --data ... --steps N
#
# (with `--ips host1,host2` across machines). `train.py` sees `PADDLE_TRAINERS_NUM` and takes
# its collective branch: `fleet.init(is_collective=True)`, one process per GPU on
# `CUDAPlace(FLAGS_selected_gpus)`, no parameter server. Every process holds the whole model;
# Fleet adds ops that average the gradients over the processes (a 1/W scale and an NCCL
# all-reduce, `c_allreduce_sum`) before each process's own optimizer step, so all copies
# take the same step: the synchronous arithmetic above, without a server in between. Any
# optimizer and learning-rate scheduler then works (each process runs its own update ops),
# not only the CPU servers' SGD and Adam at a fixed rate; worker k still takes files k, k+W,
# ... The losses would differ from paddle_nb's only by GPU floating-point rounding. None of
# this is tried here: this machine has no GPU (and this session had no GPU machine lent),
# and the CPU build of PaddlePaddle has no collective mode.

# %% [markdown]
# ## 5 · The weights come back
#
# `train.py --save OUT` writes one file per variable, the layout `pd.io.load_params` reads.
# Worker 0 saved the parameters Fleet trained; they load into a fresh scope of this notebook
# and the scope view shows them. The table says how far each moved from the exported values.

# %%
exported = pd.Scope()
trained = pd.Scope(label="trained by Fleet" if FLEET else "exported (no Fleet here)")
pd.io.load_params(exe, str(folder / "params"), main, scope=exported)
pd.io.load_params(exe, str(work / "fleet_async" if FLEET else folder / "params"), main,
                  scope=trained)
for name in manifest["parameters"]:
    before = exported.find_var(name).get_tensor().numpy()
    after = trained.find_var(name).get_tensor().numpy()
    print(f"{name:10} {str(after.shape):9} moved by up to {np.abs(after - before).max():.4f}")
display(pd.viz.scope_tree(trained))
assert sorted(trained.local_var_names()) == manifest["parameters"]
