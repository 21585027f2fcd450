"""paddle_nb's half of the export check: build, run and save each model of ``nb_models``.

``check_both_ways.py``'s ``nb`` side calls ``export`` for each inference model (saved in the
three layouts of ``layouts``, with its feeds and paddle_nb's outputs in ``<name>_io.npz``) and
``export_training`` for the MLP and CNN training programs; its ``paddle`` side loads the same
files with the same ``layouts``. ``coverage`` says which registered forward ops no model writes.
Nothing here imports paddle_nb or paddle at module level: ``pd`` is passed in.
"""

import numpy as np

try:
    from interop import nb_models
except ImportError:   # run from interop/ (check_both_ways.py as a script)
    import nb_models


def coverage(pd, models, report):
    """One row: every forward op paddle_nb registers is in some exported model, or listed in
    ``nb_models.OPS_NOT_EXPORTED`` with its reason, or in a program PaddlePaddle wrote that
    the tests run here (``paddle_written_op_types``). The last
    are checked in that direction only: paddle_nb's own programs with them are not yet
    exported to PaddlePaddle here (said in the row, not failed)."""
    from paddle_nb.ops.machinery import registry
    written = {t for entry in models.values() for t in entry["ops"]}
    swept = paddle_written_op_types(pd)
    unexported = sorted(t for t in registry.types() if not t.endswith("_grad")
                        and t not in written and t not in nb_models.OPS_NOT_EXPORTED)
    missing = [t for t in unexported if t not in swept]
    if missing:
        report.fail("op coverage", "", "registered ops no exported model writes: "
                    + ", ".join(missing))
    else:
        only_swept = [t for t in unexported if t in swept]
        report.add("op coverage", f"{len(written)} op types exported; {len(only_swept)} more "
                   "checked only from PaddlePaddle's side (its programs run here)",
                   {"rel": 0.0, "abs": None, "ok": True})


def paddle_written_op_types(pd):
    """The op types of every program PaddlePaddle 2.6.2 wrote that the tests commit (the API
    sweep's, the op comparisons', the corpus and zoo models): each runs here to PaddlePaddle's
    numbers in ``make test``."""
    import json
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[1] / "tests/fixtures/paddle26"
    found = set()
    manifest = root / "sweep/manifest.json"
    if manifest.is_file():
        for case in json.loads(manifest.read_text())["cases"]:
            if case["paddle"]["ok"]:
                found.update(case["paddle"]["op_types"] + case["paddle"]["startup_types"])
    programs = [path.read_bytes() for pattern in ("*.pb", "*.pdmodel")
                for path in root.rglob(pattern)]
    for path in root.rglob("*.npz"):
        with np.load(path) as values:
            programs += [values[key].tobytes() for key in values.files
                         if key.split("/")[-1] in ("program", "main", "startup")]
    for data in programs:
        try:
            program = pd.Program.parse(data)
        except Exception:          # not a program (or not one paddle_nb reads): not counted
            continue
        found.update(op.type for block in program.blocks for op in block.ops)
    return found


def export(pd, name, build, exports):
    """Build, initialize and save one paddle_nb model in every layout, with its outputs
    (computed by the program's test clone: dropout and batch_norm in inference mode)."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        feeds, targets, runs = build(pd, np.random.default_rng(7))
    exe, scope = pd.Executor(pd.CPUPlace(), seed=7), pd.Scope()
    exe.run(startup, scope=scope)
    test = main.clone(for_test=True)
    arrays = {}
    for k, feed in enumerate(runs):
        outputs = exe.run(test, feed=feed, fetch_list=[t.name for t in targets], scope=scope)
        arrays.update({f"feed{k}/{n}": v for n, v in feed.items()})
        arrays.update({f"out{k}/{t.name}": v for t, v in zip(targets, outputs)})
    feed_names = [v.name for v in feeds]
    save = dict(feeded_var_names=feed_names, target_vars=targets, executor=exe,
                main_program=main, scope=scope)
    pd.io.save_inference_model(str(exports / name), prefix=True, **save)
    pd.io.save_inference_model(str(exports / f"{name}_dir"), model_filename="model.pdmodel",
                               params_filename="model.pdiparams", **save)
    pd.io.save_inference_model(str(exports / f"{name}_vars"), **save)
    pd.io.save_params(exe, str(exports / f"{name}_params"), main, scope=scope)  # one per file
    np.savez(exports / f"{name}_io.npz", **arrays)
    # paddle_nb reads its own files back to the same outputs, in each layout
    for layout, args in layouts(exports, name).items():
        got_scope = pd.Scope()
        program, got_feeds, fetches = pd.io.load_inference_model(args["path"], exe,
                                                                 scope=got_scope,
                                                                 **args["kwargs"])
        assert got_feeds == feed_names, (layout, got_feeds)
        for k, feed in enumerate(runs):
            got = exe.run(program, feed=feed, fetch_list=fetches, scope=got_scope)
            for t, value in zip(targets, got):
                np.testing.assert_array_equal(value, arrays[f"out{k}/{t.name}"])
    saved = pd.io.load_program(str(exports / name) + ".pdmodel")
    return {"feeds": feed_names, "targets": [t.name for t in targets], "runs": len(runs),
            "ops": sorted({op.type for b in main.blocks for op in b.ops}),
            "saved_ops": sorted({op.type for b in saved.blocks for op in b.ops})}


def export_training(pd, name, build, exports, steps=3):
    """A training program (forward, backward, SGD) and its persistables, before training,
    with the feeds, losses and parameters of ``steps`` steps run by paddle_nb."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        feeds, targets, runs = build(pd, np.random.default_rng(11))
        shapes = {n: v.shape for n, v in runs[0].items()}
        label = pd.layers.data("label", shape=[1], dtype="int64")
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(targets[0], label))
        pd.optimizer.SGD(0.1).minimize(loss)
    exe, scope = pd.Executor(pd.CPUPlace(), seed=11), pd.Scope()
    exe.run(startup, scope=scope)
    pd.io.save(main, str(exports / f"{name}.pdmodel"))
    pd.io.save_persistables(exe, str(exports), main, filename=f"{name}.pdiparams", scope=scope)
    params = sorted(p.name for p in main.all_parameters())
    rng = np.random.default_rng(11)
    arrays = {}
    for k in range(steps):
        feed = {n: rng.standard_normal(shape).astype("float32") for n, shape in shapes.items()}
        feed["label"] = rng.integers(0, 10, (next(iter(shapes.values()))[0], 1)).astype("int64")
        (value,) = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        arrays.update({f"step{k}/{n}": v for n, v in feed.items()})
        arrays[f"loss{k}"] = value
        arrays.update({f"step{k}:{p}": scope.find_var(p).get_tensor().numpy() for p in params})
    np.savez(exports / f"{name}_io.npz", **arrays)
    return {"loss": loss.name, "params": params, "steps": steps,
            "feeds": sorted(shapes) + ["label"]}


def layouts(exports, name):
    """How each layout is loaded: the same arguments for paddle_nb and for PaddlePaddle."""
    return {
        "prefix": {"path": str(exports / name), "kwargs": {}},
        "dir": {"path": str(exports / f"{name}_dir"),
                "kwargs": {"model_filename": "model.pdmodel",
                           "params_filename": "model.pdiparams"}},
        "vars": {"path": str(exports / f"{name}_vars"),
                 "kwargs": {"model_filename": "__model__", "params_filename": None}},
    }
