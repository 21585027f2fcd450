"""Build and run one sweep case with whichever framework is passed in as ``paddle``.

A case (``specs.py``) names a public callable of PaddlePaddle's API and how to call it: the
arguments, with ``{"feed": name}`` where a fed input goes, and each input's shape, dtype and
range. The same code runs under PaddlePaddle 2.6.2 (``import paddle``) and under paddle_nb
(``import paddle_nb as paddle``): both build the program in static mode, overwrite every
floating-point persistable with ``synth.synth_params`` (so both start from the same
parameters), run it on the same inputs, and fetch every output and the gradients of
``sum(out * out)`` over the outputs with respect to each floating-point input and parameter.
What differs between the two is then the framework, not the case.
"""

import numpy as np

from interop import synth

__all__ = ["make_feeds", "build", "run", "Built"]


def make_feeds(case):
    """The case's input arrays, drawn from the case's id (the same numbers in both venvs)."""
    feeds = {}
    for name, spec in case["feeds"].items():
        rng = synth.generator(f"{case['id']}/{name}")
        shape = tuple(spec["shape"])
        dtype = np.dtype(spec["dtype"])
        if "value" in spec:
            feeds[name] = np.array(spec["value"], dtype=dtype).reshape(shape)
        elif dtype.kind == "f":
            u = rng.random(shape, dtype=np.float64)
            feeds[name] = (spec["low"] + (spec["high"] - spec["low"]) * u).astype(dtype)
        elif dtype.kind == "b":
            feeds[name] = rng.random(shape) < 0.5
        else:
            feeds[name] = rng.integers(int(spec["low"]), int(spec["high"]), shape).astype(dtype)
    return feeds


def _resolve(paddle, dotted):
    obj = paddle
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _substitute(paddle, value, data):
    """The argument ``value`` with each ``{"feed": name}`` replaced by that data variable and
    each ``{"layer": dotted name, "args": [...]}`` by a new layer."""
    if isinstance(value, dict) and set(value) == {"feed"}:
        return data[value["feed"]]
    if isinstance(value, dict) and "layer" in value:
        return _resolve(paddle, value["layer"])(*_substitute(paddle, value.get("args", []), data))
    if isinstance(value, list):
        return [_substitute(paddle, v, data) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(paddle, v, data) for k, v in value.items()}
    return value


def _flatten(out):
    if isinstance(out, (list, tuple)):
        return [v for item in out for v in _flatten(item)]
    return [out] if out is not None and hasattr(out, "block") else []


class Built:
    """What ``build`` made: the programs, the data variables, the fetched outputs, the
    gradients, and how many ops the call itself appended (the rest are the loss and backward)."""

    def __init__(self, main, startup, outputs, grads, grad_of, forward_ops):
        self.main, self.startup = main, startup
        self.outputs, self.grads, self.grad_of = outputs, grads, grad_of
        self.forward_ops = forward_ops


def _dtype_name(var):
    """A variable's dtype as NumPy's name, in either framework."""
    text = str(var.dtype).replace("paddle.", "")
    aliases = {"fp32": "float32", "fp64": "float64", "fp16": "float16", "int64": "int64",
               "bool": "bool"}
    return aliases.get(text, text)


def _float(var):
    try:
        return np.dtype(_dtype_name(var)).kind == "f"
    except TypeError:
        return False


def build(paddle, case):
    """Build ``case`` in a fresh pair of programs under a fresh name generator."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        data = {}
        for name, spec in case["feeds"].items():
            data[name] = paddle.static.data(name, list(spec["shape"]), spec["dtype"])
            if np.dtype(spec["dtype"]).kind == "f" and spec.get("grad", True):
                data[name].stop_gradient = False
        target = _resolve(paddle, case["name"])
        if case["kind"] == "class":
            target = target(*_substitute(paddle, case["init"], data),
                            **_substitute(paddle, case["init_kwargs"], data))
            if case.get("eval"):
                target.eval()
        out = target(*_substitute(paddle, case["args"], data),
                     **_substitute(paddle, case["kwargs"], data))
        outputs = _flatten(out)
        forward_ops = len(main.global_block().ops)
        grads, grad_of = [], []
        floats = [o for o in outputs if _float(o)]
        if case.get("grad", True) and floats:
            wrt = [v for n, v in data.items() if not v.stop_gradient]
            wrt += [p for p in main.global_block().all_parameters() if p.trainable]
            if wrt:
                loss = paddle.add_n([paddle.sum(o * o) for o in floats]) if len(floats) > 1 \
                    else paddle.sum(floats[0] * floats[0])
                got = paddle.static.gradients([loss], wrt)
                for var, g in zip(wrt, got):
                    if g is not None:
                        grads.append(g)
                        grad_of.append(var.name)
    return Built(main, startup, outputs, grads, grad_of, forward_ops)


def set_params(paddle, main, startup, scope):
    """Overwrite every floating-point persistable of ``main`` that ``scope`` holds with
    ``synth.synth_params``. A buffer that ``coalesce_tensor`` fuses parameters into (the
    recurrent layers' flat weight) goes first, so that the parameters it holds views of are
    written after it and keep their own values."""
    fused = {n for op in startup.global_block().ops if op.type == "coalesce_tensor"
             for n in op.output("FusedOutput")}
    for var in sorted(main.list_vars(), key=lambda v: v.name not in fused):
        found = scope.find_var(var.name) if var.persistable and _float(var) else None
        if found is not None:
            value = synth.synth_params(var.name, [int(d) for d in var.shape], _dtype_name(var))
            found.get_tensor().set(value, paddle.CPUPlace())


def op_types(program):
    """Every op type of every block, in order."""
    return [op.type for block in program.blocks for op in block.ops]


def persistable_names(program):
    return sorted(v.name for v in program.list_vars() if v.persistable
                  and not v.name.startswith(("feed", "fetch")))


def run(paddle, case, feeds, scope):
    """Build and run ``case`` in ``scope`` (a fresh one); returns (built, fetched arrays:
    outputs then grads)."""
    built = build(paddle, case)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(built.startup)
        set_params(paddle, built.main, built.startup, scope)
        fetched = exe.run(built.main, feed=feeds, fetch_list=built.outputs + built.grads)
    return built, [np.asarray(v) for v in fetched]
