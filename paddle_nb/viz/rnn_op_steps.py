"""The fused ``rnn`` op's step scopes, as the RNN explorer shows them.

PaddlePaddle's ``paddle.nn.LSTM``/``GRU``/``SimpleRNN`` write one ``rnn`` op. Here it
runs one kid scope per layer, direction and time step ("layer 0 bwd step 2"), each
holding the step's input row ``x``, ``h_prev`` (and ``c_prev``), the gates and the new
``h`` (and ``c``). This module finds them in a run record, by the scopes the op made
while it ran, and lists one execution per layer and direction, steps in time order,
with their links: ``h_prev`` at step t is ``h`` of the step that ran just before (t-1
forward, t+1 backward) or the initial state, and ``x`` at step t is row t of the
layer's input (``Input`` for layer 0, the layer below's outputs above it).
"""

import numpy

from paddle_nb.viz.widget_base import value_preview

__all__ = ["rnn_op_executions"]

ROLES = {"x": "input", "h_prev": "memory-pre", "c_prev": "memory-pre", "h": "memory-state",
         "c": "memory-state", "i": "gate", "f": "gate", "o": "gate", "r": "gate", "z": "gate",
         "c~": "gate", "mask": "mask", "dropout": "mask"}


def rnn_op_executions(record, scopes, i, op):
    """One execution per layer and direction of the ``rnn`` op at ``record.ops[i]``."""
    made = [sid for pos, kind, sid, *_ in record.events if pos == i and kind == "scope_created"]
    runs = {}                              # (layer, direction) -> {time: ScopeRecord}
    for sid in made:
        if sid not in scopes or not (scopes[sid][0].label or "").startswith("layer "):
            continue
        _, layer, direction, _, t = scopes[sid][0].label.split()
        runs.setdefault((int(layer), direction), {})[int(t)] = scopes[sid][0]
    o = record.ops[i]
    found = []
    for (layer, direction), by_time in runs.items():
        found.append(_execution(record, scopes, o, op, runs, layer, direction, by_time))
    return found


def _vars(scope):
    return {v.name: v for v in scope.vars}


def _execution(record, scopes, o, op, runs, layer, direction, by_time):
    times = sorted(by_time)
    dirs = 2 if op.attr("is_bidirec") else 1
    k = layer * dirs + (1 if direction == "bwd" else 0)
    backward = direction == "bwd"
    steps = []
    for t in times:
        here = _vars(by_time[t])
        before = by_time.get(t + 1 if backward else t - 1)
        links = [_memory_link(scopes, o, op, here, before, name, j, k, t, backward)
                 for j, name in enumerate(("h_prev", "c_prev")) if name in here]
        links.append(_input_link(scopes, o, op, runs, here, layer, t))
        steps.append({"t": t, "scope": by_time[t].id, "label": by_time[t].label,
                      "vars": [_step_var(v) for v in by_time[t].vars], "links": links})
    order = f"t = {times[-1]} down to 0" if backward else f"t = 0 to {times[-1]}"
    return {"title": f"rnn op #{o.index} ({op.attr('mode')}) of block {o.block}: layer "
                     f"{layer} {direction}, {len(steps)} steps ({order})",
            "op": {"block": o.block, "index": o.index, "scope": o.scope_id},
            "memories": [{"pre": p, "state": p[0], "init": f"{n}[{k}]"}
                         for p, n in zip(("h_prev", "c_prev"), op.input("PreState"))],
            "steps": steps}


def _step_var(v):
    return {"name": v.name, "state": v.state, "role": ROLES.get(v.name, "temp"),
            "shape": list(v.shape) if v.shape is not None else None, "dtype": v.dtype,
            "nbytes": int(v.nbytes or 0), "value": value_preview(v.value)}


def _outer(scopes, sid, name):
    """The value of ``name`` seen from scope ``sid`` (it and its parents), else None."""
    while sid is not None and sid in scopes:
        record, parent = scopes[sid]
        for v in record.vars:
            if v.name == name:
                return v.value, sid
        sid = parent
    return None, None


def _memory_link(scopes, o, op, here, before, name, j, k, t, backward):
    """``h_prev``/``c_prev`` at step t against the state the step before made, or PreState."""
    pre = here[name].value
    if before is not None:
        source, where = _vars(before)[name[0]].value, before.id
        label, step = name[0], t + 1 if backward else t - 1
    else:
        init = op.input("PreState")[j]
        value, where = _outer(scopes, o.scope_id, init)
        source = None if value is None else value[k]
        label, step = f"{init}[{k}]", None
    return {"kind": "memory", "name": name, "value": value_preview(pre), "source": label,
            "source_step": step, "source_scope": where, "source_value": value_preview(source),
            "equal": _equal(pre, source)}


def _input_link(scopes, o, op, runs, here, layer, t):
    """``x`` at step t against row t of the layer's input."""
    if layer == 0:
        name = op.input("Input")[0]
        value, where = _outer(scopes, o.scope_id, name)
        row = None if value is None else value[t]
    else:
        name, where = f"layer {layer - 1} outputs", None
        row = _layer_output_row(runs, layer - 1, t)
        drop = here["dropout"].value if "dropout" in here else None
        if row is not None and drop is not None:     # dropout between layers while training
            row = row * drop
    x = here["x"].value
    return {"kind": "input", "name": "x", "value": value_preview(x), "source": f"{name}[{t}]",
            "source_step": None, "source_scope": where, "source_value": value_preview(row),
            "equal": _equal(x, row)}


def _layer_output_row(runs, layer, t):
    """Row t of a layer's output: each direction's h (zeros past a sequence's end), joined."""
    parts = []
    for direction in ("fwd", "bwd"):
        step = runs.get((layer, direction), {}).get(t)
        if step is None:
            continue
        v = _vars(step)
        h = v["h"].value
        if h is None:
            return None
        mask = v["mask"].value if "mask" in v else None
        parts.append(h if mask is None else numpy.where(mask, h, 0))
    return numpy.concatenate(parts, axis=-1) if parts else None


def _equal(a, b):
    if a is None or b is None:
        return None
    return bool(numpy.array_equal(numpy.asarray(a), numpy.asarray(b)))
