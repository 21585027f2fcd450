"""PaddlePaddle 2.6.2's programs and numbers for the 2.x common, recurrent and attention
layers and the linear-algebra functions (the cases of ``interop/api/common_api_cases.py``).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/common_api_refs.py --out tests/fixtures/paddle26/api

For each case it builds the program with ``import paddle`` in static mode inside a fresh
``unique_name.guard()``, records the op types of the main and startup programs, the
parameters (name and shape) and the outputs' names, then sets every parameter to
``interop.synth.synth_params(name, shape)``, adds ``loss = sum(sum(out_k * w_k))`` and fetches
the outputs and the gradients of the float feeds and of the parameters. All of it goes to
``common_api.npz`` (the attention cases to ``attention_api.npz``);
tests/api/test_common_api.py builds the same case with paddle_nb and must find the same ops,
names and numbers.
"""

import argparse
import pathlib
import sys

import numpy as np
import paddle

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from interop.api.common_api_cases import CASES, RANDOM, fixture_file, UNKNOWN_BATCH  # noqa: E402
from interop.synth import synth_input, synth_params  # noqa: E402


def _build(name):
    feeds, build = CASES[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        v = {}
        for key, value in feeds.items():
            shape = list(value.shape)
            if name in UNKNOWN_BATCH:
                shape[0] = -1
            v[key] = paddle.static.data(key, shape, str(value.dtype))
            v[key].stop_gradient = value.dtype.kind != "f"
        outs = build(paddle, v)
        record = {"ops": [op.type for op in main.global_block().ops],
                  "startup_ops": [op.type for op in startup.global_block().ops],
                  "params": [f"{p.name}:{list(p.shape)}" for p in main.all_parameters()],
                  "out_names": [o.name for o in outs]}
        floats = [o for o in outs if o.dtype in (paddle.float32, paddle.float64)]
        ws, loss = {}, None
        for k, out in enumerate(floats):
            ws[f"w{k}"] = out       # its value once a first run has given out's shape
            w = paddle.static.data(f"w{k}", list(out.shape), "float32")
            term = paddle.sum(out * w)
            loss = term if loss is None else loss + term
        wrt = [v[k] for k, a in feeds.items() if a.dtype.kind == "f"] + main.all_parameters()
        grads = paddle.static.gradients([loss], wrt) if loss is not None and wrt else []
    return main, startup, outs, record, ws, list(zip(wrt, grads))


def _set_parameters(main, startup, scope):
    """Every parameter to synth_params; a recurrent layer's flat buffer (the FusedOutput of
    the startup program's coalesce_tensor) to its weights, flattened in order, as
    coalesce_tensor would have packed them (PaddlePaddle's rnn kernel reads that buffer)."""
    values = {p.name: synth_params(p.name, list(p.shape)) for p in main.all_parameters()}
    for op in startup.global_block().ops:
        if op.type == "coalesce_tensor":
            values[op.output("FusedOutput")[0]] = np.concatenate(
                [values[n].reshape(-1) for n in op.output("Output")])
    for name, value in values.items():
        scope.find_var(name).get_tensor().set(value, paddle.CPUPlace())


def _weights(name, exe, main, outs):
    """{w_k: synth_input of out_k's run-time shape}: a first run with ones (size 1 for
    each -1: they broadcast) gives the shapes a -1 leaves open."""
    ones = {k: np.ones([max(d, 1) for d in o.shape], "float32") for k, o in outs.items()}
    if not all(d >= 0 for o in outs.values() for d in o.shape):
        first = exe.run(main, feed={**CASES[name][0], **ones}, fetch_list=list(outs.values()))
        shapes = {k: np.shape(v) for k, v in zip(outs, first)}
    else:
        shapes = {k: tuple(o.shape) for k, o in outs.items()}
    return {k: synth_input(f"{name}.{k}", list(shape)) for k, shape in shapes.items()}


def run_case(name):
    main, startup, outs, record, ws, pairs = _build(name)
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        _set_parameters(main, startup, scope)
        pairs = [(x, g) for x, g in pairs if g is not None]
        ws = _weights(name, exe, main, ws)
        fetched = exe.run(main, feed={**CASES[name][0], **ws},
                          fetch_list=list(outs) + [g for _, g in pairs])
    entries = {f"{name}/{key}": np.array(value) for key, value in record.items()}
    entries.update({f"{name}/w/{k}": w for k, w in ws.items()})
    if name not in RANDOM:
        entries.update({f"{name}/out/{k}": np.asarray(v)
                        for k, v in enumerate(fetched[:len(outs)])})
        entries.update({f"{name}/grad/{x.name}": np.asarray(v)
                        for (x, _), v in zip(pairs, fetched[len(outs):])})
    else:
        entries.update({f"{name}/shape/{k}": np.array(np.asarray(v).shape)
                        for k, v in enumerate(fetched[:len(outs)])})
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/api")
    parser.add_argument("cases", nargs="*", help="only these cases (default: all)")
    args = parser.parse_args()
    paddle.enable_static()
    entries = {}
    for name in args.cases or CASES:
        entries.update(run_case(name))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    by_file = {}
    for key, value in entries.items():
        by_file.setdefault(fixture_file(key.split("/")[0]), {})[key] = value
    for file, values in by_file.items():
        np.savez_compressed(out / file, **values)
        print(f"wrote {len({k.split('/')[0] for k in values})} cases to {out / file}")


if __name__ == "__main__":
    main()
