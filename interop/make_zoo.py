"""Make the zoo corpus: models of PaddlePaddle's own model zoos, exported as their tools do.

Run with the interop virtual environment, the zoo packages installed (``make interop``):

    .venv-interop/bin/python interop/make_zoo.py --out build/interop/paddle26/zoo [--time] [names]

Each model of ``interop/zoo/models.py`` (PaddleClas, PaddleDetection, PaddleSeg, PaddleNLP, at
the smallest size their constructors allow) is built in dygraph mode with fixed seeds and
names, converted with ``paddle.jit.to_static(full_graph=True)`` and written by
``paddle.jit.save``, as the zoos' export tools do. The saved model is loaded back; every
parameter (BatchNorm's running statistics too) is overwritten by
``interop.synth.synth_params(name, shape, dtype)``, the other persistable variables (a Swin's
relative position index) keep their values and are stored in ``<name>_io.npz`` as
``buf/<name>``. Then it runs. Each model is made by a process of its own, so that it is
written as a process making it alone writes it. The files and ``manifest.json`` are the corpus's
(``interop/make_corpus.py``, whose helpers this reuses), plus per model its ``package``,
``source``, what was ``shrunk`` and its ``buffers``; ``interop/run_corpus.py`` runs them here.
"""

import argparse
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interop import synth                                                   # noqa: E402
from interop.make_corpus import (BIG_FEED, SEED, _blocks, _examples,       # noqa: E402
                                 _manifest_json, _strip_callstacks, _time_runs)
from interop.zoo.models import ZOO, import_zoo                              # noqa: E402

LAYER_NAME = re.compile(r"^[a-z][a-z0-9_]*_\d+\.[wb]_\d+$")   # conv2d_0.w_0, batch_norm2d_3.w_2


def _export(zoo, name, prefix):
    """Build model ``name`` in dygraph mode and save it as its zoo's export tool would; the
    names of its parameters and of its buffers that are parameters by name (BatchNorm's)."""
    paddle = zoo.paddle
    paddle.disable_static()
    paddle.seed(SEED)
    # ops' op_namescope counts name scopes across the process: start each model afresh
    paddle.base.framework._name_scope = paddle.base.framework.NameScope()
    with paddle.utils.unique_name.guard():
        layer, spec = ZOO[name].build(zoo)
        synthesized = {p.name for p in layer.parameters()}
        synthesized |= {b.name for b in layer.buffers() if LAYER_NAME.match(b.name)}
        static = paddle.jit.to_static(layer, input_spec=spec, full_graph=True)
        paddle.jit.save(static, prefix, input_spec=spec)
    return synthesized


def _feed_spec(name, feed_name):
    """(shape, dtype, high or fixed values) of feed ``feed_name`` of model ``name``."""
    for fname, shape, dtype, high in ZOO[name].feeds:
        if fname == feed_name:
            return shape, dtype, high
    raise KeyError(f"{name}: the saved program feeds '{feed_name}', which models.py lacks")


def _feed(name, feed_name):
    """The value of feed ``feed_name``: synthesized from its name, or the model's fixed value
    (a detector's scale_factor)."""
    shape, dtype, high = _feed_spec(name, feed_name)
    if isinstance(high, (list, tuple)):
        return np.array(high, dtype).reshape(shape)
    return synth.synth_input(f"{name}/{feed_name}", shape, dtype, high)


def _feed_entry(name, feed_name, value):
    """The feed's manifest entry, as the corpus's (``stored``: in ``_io.npz``)."""
    high = _feed_spec(name, feed_name)[2]
    fixed = isinstance(high, (list, tuple))
    return {"shape": list(value.shape), "dtype": str(value.dtype),
            "high": None if fixed else high, "name": feed_name, "fixed": fixed,
            "stored": fixed or not (value.dtype.kind == "f" and value.nbytes > BIG_FEED),
            "sha256": hashlib.sha256(value.tobytes()).hexdigest()}


def _values(paddle, program, scope, synthesized):
    """Overwrite the synthesized persistables in ``scope``; ([name, shape, dtype] of those,
    their digest, the other persistables' [name, shape, dtype] and values)."""
    done, kept, arrays, digest = [], [], {}, synth.Digest()
    for var in sorted(program.list_vars(), key=lambda v: v.name):
        if not var.persistable or var.name in ("feed", "fetch"):
            continue
        tensor = scope.find_var(var.name).get_tensor()
        value = np.array(tensor)
        if var.name in synthesized and value.dtype.kind == "f":
            value = synth.synth_params(var.name, value.shape, str(value.dtype))
            tensor.set(value, paddle.CPUPlace())
            done.append([var.name, list(value.shape), str(value.dtype)])
            digest.update(value.tobytes())      # as make_corpus and run_corpus do
        else:
            kept.append([var.name, list(value.shape), str(value.dtype)])
            arrays[f"buf/{var.name}"] = value
    return done, digest.hexdigest(), kept, arrays


def make_model(zoo, name, out, timed):
    """Export, synthesize, reload and run model ``name``; its manifest entry and program."""
    paddle = zoo.paddle
    model = ZOO[name]
    entry = {"kind": "inference", "paddle": paddle.__version__, "params": "synth",
             "package": model.package, "source": model.source, "shrunk": model.shrunk}
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, name)
        synthesized = _export(zoo, name, prefix)
        paddle.enable_static()
        exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            program, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
        data = _strip_callstacks(paddle, pathlib.Path(prefix + ".pdmodel").read_bytes())
    entry["synth"], entry["synth_sha256"], entry["buffers"], arrays = _values(
        paddle, program, scope, synthesized)
    feed = {f: _feed(name, f) for f in feed_names}
    with paddle.static.scope_guard(scope):
        outputs = exe.run(program, feed=feed, fetch_list=fetches)
        if timed:
            entry["paddle_ms"] = _time_runs(exe, program, feed, fetches)
    entry["feeds"] = [_feed_entry(name, f, feed[f]) for f in feed_names]
    arrays.update({f"in/{f['name']}": feed[f["name"]] for f in entry["feeds"] if f["stored"]})
    arrays.update({f"out/{k}": np.asarray(value) for k, value in enumerate(outputs)})
    entry["fetches"] = [v.name for v in fetches]
    entry["blocks"] = _blocks(paddle.static.Program.parse_from_string(data))
    entry["op_types"] = sorted({t for block in entry["blocks"] for t in block})
    (out / f"{name}.pdmodel").write_bytes(data)
    np.savez(out / f"{name}_io.npz", **arrays)
    files = [f"{name}.pdmodel", f"{name}_io.npz"]
    entry["files"] = {f: (out / f).stat().st_size for f in files}
    if timed:
        entry["timed_on"] = time.strftime("%Y-%m-%d")
    return entry, program


def _one(args):
    """Child mode: make model ``args.one`` and write its entry and op examples to ``args.entry``."""
    zoo = import_zoo()
    entry, program = make_model(zoo, args.one, pathlib.Path(args.out), args.time)
    examples = {}
    _examples(program, args.one, examples)
    pathlib.Path(args.entry).write_text(json.dumps({"entry": entry, "examples": examples}))
    return 0


def _in_own_process(args, name, tmp):
    """Model ``name`` made by a fresh process: eager tensors' names (``eager_tmp_4``: a buffer
    in the program) count across a process, and no unique_name.guard resets them, so each
    model is written as a process making it alone writes it, whichever models run."""
    entry_file = os.path.join(tmp, f"{name}.json")
    command = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one", name,
               "--entry", entry_file] + (["--time"] if args.time else [])
    subprocess.run(command, check=True)
    made = json.loads(pathlib.Path(entry_file).read_text())
    return made["entry"], made["examples"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/interop/paddle26/zoo",
                        help="output directory")
    parser.add_argument("--time", action="store_true",
                        help="store PaddlePaddle's median inference time per model")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--entry", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="which models (default: all)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in ZOO]
    if unknown:
        parser.error(f"unknown models {unknown}: choose from {list(ZOO)}")
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"       # as make_corpus.py: the same bytes each run
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]])
    if args.one:
        return _one(args)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path, examples_path = out / "manifest.json", out / "op_examples.json"
    manifest = json.loads(path.read_text()) if args.names and path.is_file() else {}
    examples = json.loads(examples_path.read_text()) if args.names and \
        examples_path.is_file() else {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names or list(ZOO):
            manifest[name], made = _in_own_process(args, name, tmp)
            examples.update({t: e for t, e in made.items() if t not in examples})
            print(f"{name}: {len(manifest[name]['op_types'])} op types, "
                  f"{manifest[name]['files'][name + '.pdmodel'] / 1024:.0f} KiB program",
                  flush=True)
    manifest = {n: manifest[n] for n in ZOO if n in manifest}
    path.write_text(_manifest_json(manifest))
    examples_path.write_text(json.dumps(dict(sorted(examples.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
