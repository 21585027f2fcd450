"""paddle_nb runs the corpus: each PaddlePaddle program with its synthesized parameters.

The paddle_nb side of ``interop/make_corpus.py`` (run with paddle_nb's venv; it never imports
paddle). ``tests/compat/test_paddle26_corpus.py`` and ``tools/paddle_coverage.py`` both use it,
so that the test and the coverage table judge a program the same way:

- an inference model is its ``.pdmodel`` parsed as it is; its feed and fetch names come from
  its ``feed`` / ``fetch`` ops (by ``col``); every persistable variable gets
  ``synth_params(name, shape, dtype)``, the values PaddlePaddle ran with; the outputs are
  compared with ``out/<k>`` of ``<name>_io.npz``;
- a training program runs its startup program, gets the synthesized parameters, then runs
  ``steps`` steps with the recorded feeds (and learning rate, which PaddlePaddle's executor
  writes from Python before each step), each step's loss and parameters compared.

A comparison is ``interop.check_both_ways.compare``: rtol 1e-4, atol 1e-6. Each fetched
output is also checked against what the program declares for it (its VarDesc: the dtype,
and the shape, where -1 matches any size) and against the dtype and shape PaddlePaddle
fetched (:func:`declared_row`); the executor itself checks every op's results against
their declarations as it runs.
"""

import hashlib
import json
import pathlib

import numpy as np

from interop import synth
from interop.check_both_ways import ATOL, RTOL, compare

__all__ = ["ATOL", "RTOL", "compare", "manifest", "missing_ops", "Inference", "train",
           "declared_row"]


def manifest(corpus):
    """The corpus's manifest.json: program name -> entry."""
    return json.loads((pathlib.Path(corpus) / "manifest.json").read_text())


def missing_ops(entry, registry):
    """The op types of ``entry`` (every block, the startup program's too) not registered."""
    return [t for t in entry["op_types"] if not registry.exists(t)]


def _feed(corpus, name, spec, io, key):
    """A feed as PaddlePaddle got it: stored in ``_io.npz``, or synthesized (large images)."""
    if spec["stored"]:
        return io[key]
    value = synth.synth_input(f"{name}/{spec['name']}", spec["shape"], spec["dtype"],
                              spec["high"])
    if hashlib.sha256(value.tobytes()).hexdigest() != spec["sha256"]:
        raise AssertionError(f"{name}: synth_input gives other values for '{spec['name']}' "
                             "here than in PaddlePaddle's venv (a NumPy version difference?)")
    return value


def set_synth_params(pd, scope, name, entry):
    """Write every synthesized parameter of ``entry`` into ``scope``; checks their digest."""
    digest = synth.Digest()
    for var_name, shape, dtype in entry["synth"]:
        value = synth.synth_params(var_name, shape, dtype)
        digest.update(value.tobytes())
        scope.var(var_name).get_tensor().set(value, pd.CPUPlace())
    if digest.hexdigest() != entry["synth_sha256"]:
        raise AssertionError(f"{name}: synth_params gives other values here than in "
                             "PaddlePaddle's venv (a NumPy version difference?)")


def declared_row(program, name, got, want):
    """(what, result) for output ``name``: its dtype and shape as the program declares them
    (-1: any size) and as PaddlePaddle fetched them (``want``)."""
    var = program.global_block().var(name)
    got = np.asarray(got)
    shape = tuple(var.shape)
    as_declared = got.dtype == var.dtype and len(shape) == got.ndim and \
        all(d in (-1, s) for d, s in zip(shape, got.shape))
    as_paddle = got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    error = "" if as_declared and as_paddle else (
        f"got {got.dtype}{list(got.shape)}; declared {var.dtype}{list(shape)}; PaddlePaddle "
        f"fetched {np.asarray(want).dtype}{list(np.shape(want))}")
    return (f"{name}: dtype and shape", {"rel": 0.0, "abs": 0.0, "ok": not error,
                                         "error": error})


def _by_col(program, op_type):
    ops = [op for op in program.global_block().ops if op.type == op_type]
    return sorted(ops, key=lambda op: op.attr("col"))


class Inference:
    """One corpus inference model, parsed and given its parameters; ``run()`` runs it once."""

    def __init__(self, pd, corpus, name, entry):
        self.pd, self.name, self.entry = pd, name, entry
        corpus = pathlib.Path(corpus)
        self.data = (corpus / f"{name}.pdmodel").read_bytes()
        self.program = pd.Program.parse(self.data)
        self.feeds = [op.output("Out")[0] for op in _by_col(self.program, "feed")]
        self.fetches = [op.input("X")[0] for op in _by_col(self.program, "fetch")]
        io = dict(np.load(corpus / f"{name}_io.npz"))
        self.feed = {s["name"]: _feed(corpus, name, s, io, f"in/{s['name']}")
                     for s in entry["feeds"]}
        self.want = [io[f"out/{k}"] for k in range(len(self.fetches))]
        self.exe, self.scope = pd.Executor(pd.CPUPlace()), pd.Scope()
        self._check_params()
        set_synth_params(pd, self.scope, name, entry)

    def _check_params(self):
        """Every persistable variable but feed/fetch is synthesized: nothing is left unset."""
        made = {n for n, _, _ in self.entry["synth"]}
        unset = [v.name for v in self.program.global_block().vars.values()
                 if v.persistable and v.name not in ("feed", "fetch") and v.name not in made]
        if unset:
            raise AssertionError(f"{self.name}: persistable variables without values: {unset}")

    def run(self):
        """The fetched outputs, in the fetch ops' order."""
        return self.exe.run(self.program, feed=self.feed, fetch_list=self.fetches,
                            scope=self.scope)

    def rows(self, outputs):
        """[(what, compare result)] for each output, and whether the program kept its bytes."""
        rows = [(f"{fetch}", compare(got, want))
                for fetch, got, want in zip(self.fetches, outputs, self.want)]
        rows += [declared_row(self.program, fetch, got, want)
                 for fetch, got, want in zip(self.fetches, outputs, self.want)]
        same = self.program.serialize() == self.data
        rows.append(("program bytes kept", {"rel": 0.0, "abs": 0.0, "ok": same}))
        return rows


def train(pd, corpus, name, entry):
    """Run training program ``name`` ``steps`` steps; [(what, compare result)] per loss and
    parameter of each step, as PaddlePaddle recorded them."""
    corpus = pathlib.Path(corpus)
    main_bytes = (corpus / f"{name}.main.pb").read_bytes()
    main = pd.Program.parse(main_bytes)
    startup = pd.Program.parse((corpus / f"{name}.startup.pb").read_bytes())
    io = dict(np.load(corpus / f"{name}_io.npz"))
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    set_synth_params(pd, scope, name, entry)
    lr_var = main.global_block().var(entry["lr_var"]) if entry["lr_var"] else None
    rows = []
    for k in range(entry["steps"]):
        if lr_var is not None:      # what PaddlePaddle's executor does for an LRScheduler
            lr = np.full(lr_var.shape, entry["lr"][k], "float32")
            scope.find_var(lr_var.name).get_tensor().set(lr, pd.CPUPlace())
        feed = {f["name"]: io[f"step{k}/{f['name']}"] for f in entry["feeds"]}
        (loss,) = exe.run(main, feed=feed, fetch_list=entry["losses"], scope=scope)
        rows.append((f"step {k}: loss", compare(loss, io["loss"][k])))
        rows.append(declared_row(main, entry["losses"][0], loss, io["loss"][k]))
        for p in entry["params_checked"]:
            got = scope.find_var(p).get_tensor().numpy()
            rows.append((f"step {k}: {p}", compare(got, io[f"step{k}:{p}"])))
    rows.append(("program bytes kept", {"rel": 0.0, "abs": 0.0,
                                        "ok": main.serialize() == main_bytes}))
    return rows
