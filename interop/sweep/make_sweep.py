"""The API sweep, PaddlePaddle's side: every public callable, called on small inputs.

Run with PaddlePaddle 2.6.2 (``make interop``). It reads PaddlePaddle's public names in the
namespaces of ``NAMESPACES``, makes a case for each one it can call (``specs.EXPLICIT``, then
``auto_case`` from the signature), builds each case in static mode, runs it with parameters
from ``synth`` and records, per case: whether PaddlePaddle ran it (and its error if not), the
op types of the program (the call's own ops first), its persistable names, its outputs and
the gradients of ``sum(out * out)``, and the serialized programs. paddle_nb's side
(``tests/api/test_sweep.py``, ``tools/api_coverage.py``) runs PaddlePaddle's programs op by
op and the same cases through its own API, and writes the coverage tables.

    .venv-interop/bin/python -m interop.sweep.make_sweep --out tests/fixtures/paddle26/sweep
"""

import argparse
import inspect
import json
import pathlib
import sys
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from interop.sweep import runner, specs  # noqa: E402

NAMESPACES = ["paddle", "paddle.static", "paddle.static.nn", "paddle.nn",
              "paddle.nn.functional", "paddle.nn.initializer", "paddle.optimizer",
              "paddle.optimizer.lr", "paddle.regularizer", "paddle.linalg", "paddle.vision.ops"]
# namespaces whose callables the sweep calls on tensors (the others are tested by the scripts)
CALLED = {"paddle", "paddle.nn", "paddle.nn.functional", "paddle.linalg", "paddle.static.nn"}
FIRST = {"x", "input", "a", "tensor", "arr", "data"}
SECOND = {"y", "other", "b"}


def public_names(paddle):
    """{namespace: {name: "class" | "function" | "module" | "other"}} as PaddlePaddle lists them."""
    import importlib
    found = {}
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        names = (getattr(module, "__all__", None)
                 or [n for n in dir(module) if not n.startswith("_")])
        kinds = {}
        for name in sorted(set(names)):
            value = getattr(module, name, None)
            kinds[name] = ("module" if inspect.ismodule(value)
                           else "class" if inspect.isclass(value)
                           else "function" if callable(value) else "other")
        found[namespace] = kinds
    return found


def auto_case(dotted, value, kind):
    """A case from the signature when every required argument is a tensor it can guess, or None."""
    try:
        signature = inspect.signature(value.__init__ if kind == "class" else value)
    except (TypeError, ValueError):
        return None
    required = [p.name for p in signature.parameters.values()
                if p.default is inspect.Parameter.empty and p.name != "self"
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if kind == "class":
        return specs.cls(dotted, x=specs.F(2, 3)) if not required else None
    if not required or required[0] not in FIRST or len(required) > 2:
        return None
    if len(required) == 2 and required[1] not in SECOND:
        return None
    feeds = {"x": specs.F(2, 3)}
    args = [specs.V("x")]
    if len(required) == 2:
        feeds["y"] = specs.F(2, 3)
        args.append(specs.V("y"))
    return specs.fn(dotted, *args, **feeds)


def cases_for(names, paddle):
    """Every case: the explicit ones, then one automatic case per name that has none."""
    import importlib
    cases = list(specs.EXPLICIT)
    covered = {c["name"] for c in cases}
    for namespace in sorted(CALLED):
        module = importlib.import_module(namespace)
        for name, kind in names[namespace].items():
            dotted = f"{namespace}.{name}"
            if dotted in covered or kind not in ("class", "function"):
                continue
            case = auto_case(dotted, getattr(module, name), kind)
            if case is not None:
                cases.append(case)
                covered.add(dotted)
    return cases


def strip_callstacks(data):
    from paddle.base.proto import framework_pb2
    desc = framework_pb2.ProgramDesc.FromString(data)
    for block in desc.blocks:
        for op in block.ops:
            kept = [a for a in op.attrs if a.name not in ("op_callstack", "op_namescope")]
            del op.attrs[:]
            op.attrs.extend(kept)
    return desc.SerializeToString()


def run_case(paddle, case, values):
    """Run one case in PaddlePaddle; its record (and its arrays into ``values``)."""
    feeds = runner.make_feeds(case)
    record = {"ok": False}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built, fetched = runner.run(paddle, case, feeds, paddle.static.Scope()
                                        if hasattr(paddle.static, "Scope") else paddle.base.Scope())
    except Exception as error:                       # PaddlePaddle itself refuses the case
        record["error"] = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:300]}" \
            if str(error).strip() else type(error).__name__
        return record
    n_out = len(built.outputs)
    record.update(
        ok=True, op_types=runner.op_types(built.main), forward_ops=built.forward_ops,
        forward_types=[op.type for op in built.main.global_block().ops[:built.forward_ops]],
        persistables=runner.persistable_names(built.main),
        startup_types=runner.op_types(built.startup),
        outputs=[{"name": v.name, "shape": list(a.shape), "dtype": str(a.dtype),
                  "declared": [int(d) for d in v.shape]}
                 for v, a in zip(built.outputs, fetched[:n_out])],
        grad_of=built.grad_of, grads=[g.name for g in built.grads])
    key = case["id"]
    for name, value in feeds.items():
        values[f"{key}/in/{name}"] = value
    for k, value in enumerate(fetched[:n_out]):
        values[f"{key}/out/{k}"] = value
    for k, value in enumerate(fetched[n_out:]):
        values[f"{key}/grad/{k}"] = value
    values[f"{key}/main"] = np.frombuffer(strip_callstacks(built.main.desc.serialize_to_string()),
                                          dtype=np.uint8)
    values[f"{key}/startup"] = np.frombuffer(
        strip_callstacks(built.startup.desc.serialize_to_string()), dtype=np.uint8)
    return record


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "build/interop/sweep")
    parser.add_argument("--only", default="", help="run only the cases whose id contains this")
    args = parser.parse_args(argv)
    import paddle
    paddle.enable_static()
    names = public_names(paddle)
    cases = [c for c in cases_for(names, paddle) if args.only in c["id"]]
    values, ran = {}, 0
    for case in cases:
        case["paddle"] = run_case(paddle, case, values)
        ran += case["paddle"]["ok"]
    args.out.mkdir(parents=True, exist_ok=True)
    manifest = {"paddle_version": paddle.__version__, "namespaces": names, "cases": cases}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    np.savez_compressed(args.out / "values.npz", **values)
    print(f"sweep: {ran} of {len(cases)} cases ran in PaddlePaddle {paddle.__version__}; "
          f"written to {args.out}")


if __name__ == "__main__":
    main()
