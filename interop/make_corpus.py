"""Make the corpus: real PaddlePaddle 2.6.2 programs, with the outputs PaddlePaddle gave.

Run with the interop virtual environment (``make interop`` creates it), never with paddle_nb's:

    .venv-interop/bin/python interop/make_corpus.py --out build/interop/corpus [--time] [names]

Every program is built in static mode on the CPU with fixed seeds and no downloads
(``interop/corpus_models.py``: every ``paddle.vision.models`` family, Transformer layers, the
recurrent layers, a text CNN, an upsampling net; ``interop/corpus_training.py``: five training
programs). After the startup program every parameter is overwritten by
``interop.synth.synth_params(name, shape, dtype)``, which paddle_nb's side computes too, so no
parameter file is written. Per program ``<name>``:

- inference: ``<name>.pdmodel`` (``paddle.static.save_inference_model``, ``op_callstack``
  removed) and ``<name>_io.npz``: ``in/<feed>`` and ``out/<k>`` (the k-th fetched target);
- training: ``<name>.main.pb`` / ``<name>.startup.pb`` (``op_callstack`` removed) and
  ``<name>_io.npz``: ``step<k>/<feed>``, ``loss`` (one per step) and ``step<k>:<param>``;
- ``manifest.json``: per program its kind, feeds, fetches, synthesized parameters, op types
  (per block and all), learning rates, files and, with ``--time``, PaddlePaddle's median run
  time; ``op_examples.json``: one op of each type as PaddlePaddle wrote it (slots, attributes).
"""

import argparse
import hashlib
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interop import synth                                          # noqa: E402
from interop.corpus_models import FIXED_FEEDS, INFERENCE           # noqa: E402
from interop.corpus_training import STEP_FEEDS, TRAINING              # noqa: E402

SEED = 2024
STEPS = 3
BIG_FEED = 64 * 1024     # float feeds larger than this are synthesized, not stored
NOISE = 1e-6             # a parameter whose gradient never exceeds this is not compared


def _paddle():
    import paddle
    paddle.enable_static()
    return paddle


def _strip_callstacks(paddle, data):
    """The serialized program without ``op_callstack`` (the Python stack that built each op:
    most of a program's bytes, and the paths of the machine that made it)."""
    from paddle.base.proto import framework_pb2
    desc = framework_pb2.ProgramDesc.FromString(data)
    for block in desc.blocks:
        for op in block.ops:
            kept = [a for a in op.attrs if a.name != "op_callstack"]
            del op.attrs[:]
            op.attrs.extend(kept)
    return desc.SerializeToString()


def _blocks(program):
    return [[op.type for op in block.ops] for block in program.blocks]


def _feed_value(name, var, key):
    spec = var.corpus_feed
    fixed = FIXED_FEEDS.get((name, var.name))
    if fixed is not None:
        return fixed(np)
    return synth.synth_input(key, spec["shape"], spec["dtype"], spec["high"])


def _step_feed(name, var, k):
    """Feed ``var`` of training step ``k``: fresh values each step, or fixed ones (a threshold)."""
    fixed = STEP_FEEDS.get((name, var.name))
    if fixed is not None:
        return np.full(var.corpus_feed["shape"], fixed[k], var.corpus_feed["dtype"])
    return _feed_value(name, var, f"{name}/step{k}/{var.name}")


def _feed_entry(var, value):
    spec = dict(var.corpus_feed, name=var.name)
    spec["stored"] = not (value.dtype.kind == "f" and value.nbytes > BIG_FEED)
    spec["sha256"] = hashlib.sha256(value.tobytes()).hexdigest()   # synth's, in either venv
    return spec


def _fused(startup):
    """Parameters that ``coalesce_tensor`` fuses others into (the recurrent layers' flat
    weight): the parameters it fuses are views into it, so it holds no values of its own."""
    return {n for op in startup.global_block().ops if op.type == "coalesce_tensor"
            for n in op.output("FusedOutput")}


def _synthesize(paddle, program, startup, scope):
    """Overwrite every float parameter (BatchNorm's running stats are parameters too) with
    synth_params; [name, shape, dtype] of each, in the program's order, but for fused ones.

    A fused parameter is written first, so that writing the parameters it holds views of
    (each into its own slice) leaves each of them its own values; the check reads them back.
    """
    fused = _fused(startup)
    params = sorted(program.all_parameters(), key=lambda p: p.name not in fused)
    done = []
    for p in params:
        dtype = str(np.dtype(paddle.base.data_feeder.convert_dtype(p.dtype)))
        if np.dtype(dtype).kind != "f":
            continue
        value = synth.synth_params(p.name, p.shape, dtype)
        scope.find_var(p.name).get_tensor().set(value, paddle.CPUPlace())
        if p.name not in fused:
            done.append([p.name, list(p.shape), dtype])
    digest = synth.Digest()
    for name, shape, dtype in done:
        got = np.array(scope.find_var(name).get_tensor())
        assert np.array_equal(got, synth.synth_params(name, shape, dtype)), name
        digest.update(got.tobytes())
    return done, digest.hexdigest()


def _time_runs(exe, program, feed, fetches, runs=5):
    exe.run(program, feed=feed, fetch_list=fetches)                 # warm-up
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        exe.run(program, feed=feed, fetch_list=fetches)
        seconds.append(time.perf_counter() - start)
    return round(statistics.median(seconds) * 1000.0, 3)


def make_inference(paddle, name, out, timed):
    """Build, synthesize, save, reload and run inference model ``name``; its manifest entry."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        feeds, targets = INFERENCE[name](paddle)
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    arrays, entry = {}, {"kind": "inference", "paddle": paddle.__version__, "params": "synth"}
    with paddle.static.scope_guard(scope), tempfile.TemporaryDirectory() as tmp:
        exe.run(startup)
        entry["synth"], entry["synth_sha256"] = _synthesize(paddle, main, startup, scope)
        prefix = os.path.join(tmp, name)
        with paddle.utils.unique_name.guard():     # its scale ops' names: the same in any run
            paddle.static.save_inference_model(prefix, feeds, targets, exe, program=main)
        program, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
        data = _strip_callstacks(paddle, pathlib.Path(prefix + ".pdmodel").read_bytes())
    feed = {v.name: _feed_value(name, v, f"{name}/{v.name}") for v in feeds}
    assert list(feed_names) == list(feed), (feed_names, list(feed))
    with paddle.static.scope_guard(scope):
        outputs = exe.run(program, feed=feed, fetch_list=fetches)
        if timed:
            entry["paddle_ms"] = _time_runs(exe, program, feed, fetches)
    entry["feeds"] = [_feed_entry(v, feed[v.name]) for v in feeds]
    arrays.update({f"in/{f['name']}": feed[f["name"]] for f in entry["feeds"] if f["stored"]})
    arrays.update({f"out/{k}": np.asarray(value) for k, value in enumerate(outputs)})
    entry["fetches"] = [v.name for v in fetches]
    entry["targets"] = [v.name for v in targets]
    entry["blocks"] = _blocks(paddle.static.Program.parse_from_string(data))
    (out / f"{name}.pdmodel").write_bytes(data)
    np.savez(out / f"{name}_io.npz", **arrays)
    return entry, [program]


def make_training(paddle, name, out):
    """Build, synthesize and train program ``name`` ``STEPS`` steps; its manifest entry."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        feeds, loss, optimizer, scheduler = TRAINING[name](paddle)
        optimizer.minimize(loss)
    main_bytes = _strip_callstacks(paddle, main.desc.serialize_to_string())
    startup_bytes = _strip_callstacks(paddle, startup.desc.serialize_to_string())
    entry = {"kind": "training", "paddle": paddle.__version__, "params": "synth",
             "steps": STEPS, "losses": [loss.name], "lr_var": None, "lr": []}
    if scheduler is not None:
        entry["lr_var"] = scheduler._var_name
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        entry["synth"], entry["synth_sha256"] = _synthesize(paddle, main, startup, scope)
        entry["fused"] = sorted(_fused(startup))
        params = sorted(p.name for p in main.all_parameters() if p.name not in entry["fused"])
        arrays, largest = _train(paddle, main, scope, (name, feeds, loss, scheduler), params,
                                 entry)
    # a gradient that is zero in exact arithmetic (attention's key bias: softmax ignores a
    # shift; a conv bias before BatchNorm) is rounding noise, which Adam's g / sqrt(v) scales
    # up to a step of the learning rate's size: such a parameter is not compared
    noise = {p: v for p, v in largest.items() if v < NOISE}
    entry["unchecked"] = {p: f"largest gradient {v:.1e} (< {NOISE:g}): zero but for "
                             "rounding, so its updates are noise" for p, v in sorted(noise.items())}
    arrays = {k: v for k, v in arrays.items() if k.split(":")[-1] not in noise}
    entry.update(feeds=[dict(v.corpus_feed, name=v.name, stored=True) for v in feeds],
                 params_checked=[p for p in params if p not in noise], blocks=_blocks(main),
                 startup_blocks=_blocks(startup))
    (out / f"{name}.main.pb").write_bytes(main_bytes)
    (out / f"{name}.startup.pb").write_bytes(startup_bytes)
    np.savez(out / f"{name}_io.npz", **arrays)
    return entry, [main, startup]


def _train(paddle, main, scope, model, params, entry):
    """Run ``STEPS`` steps: the arrays of ``_io.npz`` and each parameter's largest gradient."""
    name, feeds, loss, scheduler = model
    exe = paddle.static.Executor(paddle.CPUPlace())
    grads = [p for p in params if main.global_block().has_var(f"{p}@GRAD")]
    arrays, losses, largest = {}, [], {}
    for k in range(STEPS):
        feed = {v.name: _step_feed(name, v, k) for v in feeds}
        if scheduler is not None:       # the value PaddlePaddle's executor writes this step
            entry["lr"].append(float(scheduler()))
        value, *values = exe.run(main, feed=feed, fetch_list=[loss] + [f"{p}@GRAD" for p in grads])
        losses.append(np.asarray(value).reshape(-1)[0])
        for p, g in zip(grads, values):
            largest[p] = max(largest.get(p, 0.0), float(np.abs(g).max()))
        arrays.update({f"step{k}/{n}": v for n, v in feed.items()})
        arrays.update({f"step{k}:{p}": np.array(scope.find_var(p).get_tensor()) for p in params})
        if scheduler is not None:
            scheduler.step()
    arrays["loss"] = np.float32(losses)
    return arrays, largest


def _plain(value):
    """An attribute's value as JSON: a sub-block as its index."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "id") and not isinstance(value, (bool, int, float, str)):
        return {"block": value.id}
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)


def _op_example(op):
    """One op as PaddlePaddle wrote it: its slots' variables and its attributes."""
    attrs = {}
    for attr in sorted(op.desc.attr_names()):
        if attr in ("op_callstack", "op_namescope"):
            continue
        attrs[attr] = _plain(op.desc.attr(attr))
    return {"inputs": {s: op.desc.input(s) for s in op.desc.input_names()},
            "outputs": {s: op.desc.output(s) for s in op.desc.output_names()},
            "attrs": attrs}


def _examples(program, name, examples):
    for block in program.blocks:
        for op in block.ops:
            if op.type not in examples:
                examples[op.type] = {"program": name, **_op_example(op)}


def _manifest_json(manifest):
    """One line per program and key: readable, and far smaller than json's indent=1."""
    lines = []
    for name, entry in manifest.items():
        keys = [f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in entry.items()]
        lines.append(f' {json.dumps(name)}: {{\n' + ",\n".join(keys) + "\n }")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def make(paddle, name, out, timed, examples):
    """Write program ``name`` into ``out``; its manifest entry (``examples`` gets its ops)."""
    # ops' op_namescope ("/optimizer_35/") counts name scopes across the process: start each
    # program afresh, so that it is written as a process making it alone writes it
    paddle.base.framework._name_scope = paddle.base.framework.NameScope()
    if name in INFERENCE:
        entry, programs = make_inference(paddle, name, out, timed)
        files = [f"{name}.pdmodel", f"{name}_io.npz"]
    else:
        entry, programs = make_training(paddle, name, out)
        files = [f"{name}.main.pb", f"{name}.startup.pb", f"{name}_io.npz"]
    for program in programs:
        _examples(program, name, examples)
    entry["op_types"] = sorted({t for block in entry["blocks"] for t in block} |
                               {t for b in entry.get("startup_blocks", []) for t in b})
    entry["files"] = {f: (out / f).stat().st_size for f in files}
    if timed:
        entry["timed_on"] = time.strftime("%Y-%m-%d")
    return entry


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/interop/corpus", help="output directory")
    parser.add_argument("--time", action="store_true",
                        help="store PaddlePaddle's median inference time per model")
    parser.add_argument("names", nargs="*", help="which programs (default: all)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in INFERENCE and n not in TRAINING]
    if unknown:
        parser.error(f"unknown programs {unknown}: choose from {[*INFERENCE, *TRAINING]}")
    if os.environ.get("PYTHONHASHSEED") != "0":
        # PaddlePaddle orders a while op's X and Out slots by iterating a Python set of names
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]])
    paddle = _paddle()
    paddle.seed(SEED)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest, examples = _previous(out, whole=not args.names)
    for name in args.names or [*INFERENCE, *TRAINING]:
        start = time.perf_counter()
        manifest[name] = make(paddle, name, out, args.time, examples)
        print(f"make_corpus: {name}: {len(manifest[name]['op_types'])} op types, "
              f"{sum(manifest[name]['files'].values()) / 1024:.0f} KiB, "
              f"{time.perf_counter() - start:.1f} s", flush=True)
    manifest = {n: manifest[n] for n in [*INFERENCE, *TRAINING] if n in manifest}
    (out / "manifest.json").write_text(_manifest_json(manifest))
    (out / "op_examples.json").write_text(json.dumps(dict(sorted(examples.items())), indent=1)
                                          + "\n")
    total = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    print(f"make_corpus: {len(manifest)} programs, {total / 1024:.0f} KiB, in {out}")
    return 0


def _previous(out, whole):
    """The manifest and op examples already in ``out``; when the whole corpus is made anew,
    none, and the files of its programs are removed (a program may have been dropped)."""
    path = out / "manifest.json"
    manifest = json.loads(path.read_text()) if path.is_file() else {}
    examples = {}
    if whole:
        for entry in manifest.values():
            for file in entry.get("files", ()):
                (out / file).unlink(missing_ok=True)
        return {}, examples
    if (out / "op_examples.json").is_file():
        examples = json.loads((out / "op_examples.json").read_text())
    return manifest, examples


if __name__ == "__main__":
    sys.exit(main())
