"""The API sweep, paddle_nb's side: PaddlePaddle's programs op by op, and the same calls here.

For each case the sweep recorded (``make_sweep.py``), two checks:

- **op level**: paddle_nb parses the programs PaddlePaddle wrote, runs them on the same
  inputs and parameters, and must fetch the same outputs and gradients (values, dtypes,
  shapes). A program with an op type paddle_nb lacks reports those types.
- **API level**: where paddle_nb has the callable, the same case built with
  ``import paddle_nb as paddle`` must append the same op types (the call's own ops, in order),
  name the same persistables, and compute the same outputs and gradients.

Used by ``tests/api/test_sweep.py`` (in ``make test``, against the committed fixture) and by
``tools/api_coverage.py`` (the coverage tables).
"""

import json
import pathlib

import numpy as np

from interop.sweep import runner

__all__ = ["load", "op_level", "api_level", "has_name", "RANDOM_OPS", "UNDEFINED_OPS",
           "UP_TO_SIGN_OPS", "Result"]

FIXTURE = pathlib.Path(__file__).resolve().parents[2] / "tests/fixtures/paddle26/sweep"
# ops that draw random numbers: their values are not compared, only dtypes and shapes
RANDOM_OPS = {"uniform_random", "gaussian_random", "truncated_gaussian_random", "randint",
              "randperm", "bernoulli", "multinomial", "poisson", "exponential", "dropout",
              "uniform_random_inplace", "gaussian_inplace", "rrelu", "class_center_sample",
              "random_routing", "dirichlet", "binomial", "gumbel_softmax"}
# ops whose outputs have no defined values (uninitialized memory): dtypes and shapes only
UNDEFINED_OPS = {"empty", "empty_like"}
# ops whose outputs are defined up to a sign or phase per column (eigenvectors): magnitudes
UP_TO_SIGN_OPS = {"eig"}
RTOL, ATOL = 1e-4, 1e-5


class Result:
    """One check's outcome: ``status`` is "ok", "missing" (op types paddle_nb lacks),
    "absent" (paddle_nb lacks the callable), "error" or "mismatch"; ``detail`` says what."""

    def __init__(self, status, detail=""):
        self.status, self.detail = status, detail

    def __repr__(self):
        return f"Result({self.status!r}, {self.detail!r})"


def load(folder=FIXTURE):
    """(cases PaddlePaddle ran, all cases, namespaces, values) from a sweep folder."""
    manifest = json.loads((pathlib.Path(folder) / "manifest.json").read_text())
    values = dict(np.load(pathlib.Path(folder) / "values.npz"))
    ran = [c for c in manifest["cases"] if c["paddle"]["ok"]]
    return ran, manifest["cases"], manifest["namespaces"], values


def _feeds(case, values):
    return {name: values[f"{case['id']}/in/{name}"] for name in case["feeds"]}


def _expected(case, values):
    rec = case["paddle"]
    outs = [values[f"{case['id']}/out/{k}"] for k in range(len(rec["outputs"]))]
    grads = [values[f"{case['id']}/grad/{k}"] for k in range(len(rec["grads"]))]
    return outs, grads


def _compare(case, got, want, what):
    """A mismatch text for the first differing array, or None."""
    types = set(case["paddle"]["op_types"])
    random = bool((RANDOM_OPS | UNDEFINED_OPS) & types)
    if UP_TO_SIGN_OPS & types:
        got, want = [numpy_abs(g) for g in got], [numpy_abs(w) for w in want]
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        label = f"{what} {k}"
        if g.dtype != w.dtype or g.shape != w.shape:
            return (f"{label}: {g.dtype}{list(g.shape)} here, "
                    f"{w.dtype}{list(w.shape)} in PaddlePaddle")
        if random or w.dtype.kind not in "fcbiu":
            continue
        if w.dtype.kind in "fc":
            if not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
                diff = float(np.nanmax(np.abs(g.astype(np.float64) - w)))
                return f"{label}: values differ (max abs diff {diff:.3g})"
        elif not np.array_equal(g, w):
            return f"{label}: values differ"
    return None


def numpy_abs(value):
    value = np.asarray(value)
    return np.abs(value) if value.dtype.kind in "fc" else value


def op_level(case, values):
    """Run PaddlePaddle's own programs of ``case`` in paddle_nb."""
    import paddle_nb as pd
    from paddle_nb.ops.machinery import registry
    main_bytes = values[f"{case['id']}/main"].tobytes()
    startup_bytes = values[f"{case['id']}/startup"].tobytes()
    missing = sorted({t for t in case["paddle"]["op_types"] + case["paddle"]["startup_types"]
                      if not registry.exists(t)})
    if missing:
        return Result("missing", ", ".join(missing))
    try:
        main, startup = pd.Program.parse(main_bytes), pd.Program.parse(startup_bytes)
        scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
        exe.run(startup, scope=scope)
        runner.set_params(pd, main, startup, scope)
        rec = case["paddle"]
        names = [o["name"] for o in rec["outputs"]] + rec["grads"]
        got = exe.run(main, feed=_feeds(case, values), fetch_list=names, scope=scope)
    except Exception as error:
        return Result("error", f"{type(error).__name__}: {str(error).splitlines()[0][:300]}")
    outs, grads = _expected(case, values)
    n = len(outs)
    problem = _compare(case, got[:n], outs, "output") or _compare(case, got[n:], grads, "gradient")
    return Result("mismatch", problem) if problem else Result("ok")


def has_name(dotted):
    """Whether paddle_nb has the callable ``paddle.a.b`` (as ``paddle_nb.a.b``)."""
    import paddle_nb
    obj = paddle_nb
    for part in dotted.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:
            return False
    return True


def api_level(case, values):
    """Build ``case`` through paddle_nb's API and compare with what PaddlePaddle built."""
    import paddle_nb as pd
    if not has_name(case["name"]):
        return Result("absent", case["name"])
    rec = case["paddle"]
    try:
        built, got = runner.run(pd, case, _feeds(case, values), pd.Scope())
    except Exception as error:
        return Result("error", f"{type(error).__name__}: {str(error).splitlines()[0][:300]}")
    types = [op.type for op in built.main.global_block().ops[:built.forward_ops]]
    if types != rec["forward_types"]:
        return Result("mismatch", f"op types {types} here, {rec['forward_types']} in PaddlePaddle")
    mine = runner.persistable_names(built.main)
    if mine != rec["persistables"]:
        return Result("mismatch",
                      f"persistables {mine} here, {rec['persistables']} in PaddlePaddle")
    outs, grads = _expected(case, values)
    if len(got) != len(outs) + len(grads) or built.grad_of != rec["grad_of"]:
        return Result("mismatch", f"{len(built.outputs)} outputs and gradients of {built.grad_of} "
                      f"here, {len(outs)} and {rec['grad_of']} in PaddlePaddle")
    n = len(outs)
    problem = _compare(case, got[:n], outs, "output") or _compare(case, got[n:], grads, "gradient")
    return Result("mismatch", problem) if problem else Result("ok")
