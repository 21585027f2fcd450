"""The RNN's step scopes, one time step at a time ("for" as blocks and scopes,
as "Design Doc: Block and Scope" writes it).

A ``recurrent`` op runs its step block once per time step, each time in a
fresh kid scope of the scope it runs in, and keeps those step scopes for the
backward pass. In step scope t, the memory variable (``static_rnn_0@mem_0``)
holds the previous step's value: the state the step block computed at t-1,
or the initial state at t=0 — the C++ loop's ``mem[i-1]``. The explorer
shows each step scope's variables with their values, and that link, marked
equal when the two values are. PaddlePaddle's fused ``rnn`` op (``paddle.nn.LSTM``)
runs the same way, one step scope per layer, direction and step; rnn_op_steps.py
lists those, one execution per layer and direction, with their gates.
"""

import numpy
import traitlets

from paddle_nb.executor.record import RunRecord
from paddle_nb.viz.names import user_names
from paddle_nb.viz.rnn_op_steps import rnn_op_executions
from paddle_nb.viz.widget_base import PaddleWidget, jsonable, value_preview, weak_method

__all__ = ["rnn_executions", "RNNExplorerWidget", "rnn_explorer"]

NO_VALUES = ("Values were not recorded: set `exe.record_values = True` before the run "
             "(rnn_explorer(exe) does it for you).")


def _index(tree, parent=None, out=None):
    """``{scope id: (ScopeRecord, parent id)}`` for a snapshot tree."""
    out = {} if out is None else out
    out[tree.id] = (tree, parent)
    for kid in tree.kids:
        _index(kid, tree.id, out)
    return out


def _lookup(scopes, sid, name):
    """The VarRecord a lookup of ``name`` from scope ``sid`` finds (this scope, then parents)."""
    while sid is not None and sid in scopes:
        record, parent = scopes[sid]
        for v in record.vars:
            if v.name == name:
                return v, sid
        sid = parent
    return None, None


def rnn_executions(record):
    """Every execution of a ``recurrent`` op in ``record``, as plain data, and of each
    layer and direction of an ``rnn`` op (rnn_op_steps.py).

    Each is ``{"title", "op", "memories", "steps"}``; a step is ``{"t", "scope",
    "label", "vars", "links"}`` and a link ties a variable of step t to where
    its value came from: a memory to the state at t-1 (or the initial state),
    a step input to row t of the outer sequence.
    """
    if record.scopes is None:
        return []
    scopes = _index(record.scopes)
    out = []
    for i, o in enumerate(record.ops):
        if o.type not in ("recurrent", "rnn"):
            continue
        try:
            op = record.program.block(o.block).ops[o.index]
        except (IndexError, AttributeError):
            continue
        if o.type == "rnn":
            out.extend(rnn_op_executions(record, scopes, i, op))
            continue
        step_ids = _step_scopes(record.ops, i, int(op.attr("sub_block")))
        out.append(_execution(record, scopes, o, op, [s for s in step_ids if s in scopes]))
    return out


def _step_scopes(ops, i, sub_block):
    """The scopes the op at ``i`` ran its sub-block in, in the order it ran them."""
    owner, ids = ops[i], []
    for o in ops[i + 1:]:
        if o.block == owner.block and o.scope_id == owner.scope_id:
            break
        if o.block == sub_block and o.scope_id not in ids:
            ids.append(o.scope_id)
    return ids


def _execution(record, scopes, o, op, step_ids):
    pres, states = list(op.attr("ex_states") or []), list(op.attr("states") or [])
    inits, seqs = op.input("initial_states"), op.input("inputs")
    outputs = op.output("outputs")
    roles = {**{n: "input" for n in seqs}, **{n: "output" for n in outputs},
             **{n: "memory-pre" for n in pres}, **{n: "memory-state" for n in states}}
    memories = [{"pre": p, "state": s, "init": inits[k] if k < len(inits) else None}
                for k, (p, s) in enumerate(zip(pres, states))]
    steps = []
    for t, sid in enumerate(step_ids):
        scope = scopes[sid][0]
        links = [_memory_link(scopes, step_ids, t, m) for m in memories]
        links += [_input_link(scopes, sid, t, name) for name in seqs]
        steps.append({"t": t, "scope": sid, "label": scope.label or f"step {t}",
                      "vars": [_step_var(v, roles.get(v.name, "temp")) for v in scope.vars],
                      "links": links})
    return {"title": f"recurrent op #{o.index} of block {o.block}, step block "
                     f"{op.attr('sub_block')}: {len(steps)} steps",
            "op": {"block": o.block, "index": o.index, "scope": o.scope_id},
            "sub_block": int(op.attr("sub_block")), "memories": memories, "steps": steps}


def _step_var(v, role):
    return {"name": v.name, "state": v.state, "role": role,
            "shape": list(v.shape) if v.shape is not None else None, "dtype": v.dtype,
            "nbytes": int(v.nbytes or 0), "value": value_preview(v.value)}


def _memory_link(scopes, step_ids, t, memory):
    """Memory ``pre`` at step t against the state at step t-1 (the initial state at t=0)."""
    pre, _ = _lookup(scopes, step_ids[t], memory["pre"])
    if t == 0:
        source, where = _lookup(scopes, scopes[step_ids[0]][1], memory["init"])
        source_name, source_step = memory["init"], None
    else:
        source, where = _lookup(scopes, step_ids[t - 1], memory["state"])
        source_name, source_step = memory["state"], t - 1
    return {"kind": "memory", "name": memory["pre"], "value": _preview(pre),
            "source": source_name, "source_step": source_step, "source_scope": where,
            "source_value": _preview(source), "equal": _equal(pre, source)}


def _input_link(scopes, sid, t, name):
    """Step input ``name`` at step t against row t of the outer sequence."""
    here, _ = _lookup(scopes, sid, name)
    outer, where = _lookup(scopes, scopes[sid][1], name)
    row = None
    if outer is not None and outer.value is not None and len(outer.value) > t:
        row = outer.value[t]
    equal = None if (here is None or here.value is None or row is None) else \
        bool(numpy.array_equal(here.value, row))
    return {"kind": "input", "name": name, "value": _preview(here), "source": f"{name}[{t}]",
            "source_step": None, "source_scope": where, "source_value": value_preview(row),
            "equal": equal}


def _preview(var):
    return None if var is None else value_preview(var.value)


def _equal(a, b):
    if a is None or b is None or a.value is None or b.value is None:
        return None
    return bool(numpy.array_equal(a.value, b.value))


class RNNExplorerWidget(PaddleWidget):
    """A slider over the time steps of the last run's RNN; ``shown`` is the selected step.

    Moving the slider sets ``step``; the view draws ``rnns[rnn]["steps"][step]`` itself,
    so a saved notebook still slides without a kernel.
    """

    rnns = traitlets.List().tag(sync=True)
    rnn = traitlets.Int(0).tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)
    has_values = traitlets.Bool(False).tag(sync=True)
    runs = traitlets.Int(0).tag(sync=True)
    shown = traitlets.Dict().tag(sync=True)
    # "block/variable name" -> the Python name the user's cell bound it to (viz.names):
    # the view shows the user's name, the program's on hover
    names = traitlets.Dict().tag(sync=True)

    def __init__(self, record=None, executor=None, **kwargs):
        super().__init__(kind="rnn", **kwargs)
        self._executor, self._unsubscribe = executor, None
        if executor is not None:
            executor.record_values = True
            self._unsubscribe = executor.subscribe(weak_method(self.update, executor.listeners))
            self.message = "Run a program with an RNN on this executor to see its step scopes."
        self.observe(self._show, names=["step", "rnn", "rnns"])
        if record is not None:
            self.update(record)
        else:
            self._show()

    def update(self, record):
        """Show ``record``'s RNNs (a run without one leaves the view as it was)."""
        found = rnn_executions(record)
        if not found:
            if record.failed or self._executor is None:
                self.message = "This run has no RNN (no recurrent or rnn op ran)."
            return
        self.has_values = any(v["value"] is not None for r in found for s in r["steps"]
                              for v in s["vars"])
        self.message = "" if self.has_values else NO_VALUES
        self.runs += 1
        with self.hold_trait_notifications():
            self.names = _names(record.program)
            self.rnn = min(self.rnn, len(found) - 1)
            self.step = min(self.step, max(len(found[self.rnn]["steps"]) - 1, 0))
            self.rnns = jsonable(found)
        self._show()

    def _show(self, change=None):
        if not self.rnns:
            self.shown = {}
            return
        rnn = self.rnns[max(0, min(self.rnn, len(self.rnns) - 1))]
        steps = rnn["steps"]
        if not steps:
            self.shown = {"rnn": self.rnn, "step": None, "vars": [], "links": []}
            return
        t = max(0, min(self.step, len(steps) - 1))
        self.shown = {"rnn": self.rnn, "step": t, **steps[t]}

    def picture_line(self):
        if not self.rnns:
            return "RNN explorer: no RNN run yet. Run the notebook to see the step scopes."
        steps = len(self.rnns[min(self.rnn, len(self.rnns) - 1)]["steps"])
        return (f"RNN explorer: the step scopes of {len(self.rnns)} RNN run(s), step 0 of "
                f"{steps} shown. Run the notebook to slide through the steps and their links.")

    def close(self):
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        super().close()


def _names(program):
    """``{"block/variable name": user's name}`` (a step block and its outer block may hold
    variables of the same name: ``out`` outside, its step's row inside); empty when the
    names cannot be known."""
    try:
        found = user_names(program)
    except Exception:                  # noqa: BLE001 - names are a help, never a failure
        return {}
    return {f"{block}/{name}": python_name for (block, name), python_name in found.items()}


def rnn_explorer(record_or_executor):
    """A slider over the step scopes of the last run's RNN.

    Given a RunRecord, shows it; given an Executor, turns on ``record_values``
    and follows its runs (run the program after displaying the widget).

    >>> import numpy as np, paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[3, 1, 2], append_batch_size=False)
    ...     rnn = pd.layers.StaticRNN()
    ...     with rnn.step():
    ...         x_t = rnn.step_input(x)
    ...         h_pre = rnn.memory(shape=[-1, 2], batch_ref=x_t)
    ...         h = pd.layers.elementwise_add(x_t, h_pre)
    ...         rnn.update_memory(h_pre, h); rnn.step_output(h)
    ...     out = rnn()
    >>> exe = pd.Executor()
    >>> w = rnn_explorer(exe)
    >>> _ = exe.run(prog, feed={"x": np.ones((3, 1, 2), "float32")}, fetch_list=[out])
    >>> w.step = 2
    >>> link = w.shown["links"][0]
    >>> link["name"], link["source"], link["source_step"], link["equal"], link["value"]["rows"]
    ('static_rnn_0@mem_0', 'static_rnn_0.tmp_0', 1, True, [[2.0, 2.0]])
    """
    if isinstance(record_or_executor, RunRecord):
        return RNNExplorerWidget(record=record_or_executor)
    if hasattr(record_or_executor, "subscribe"):
        return RNNExplorerWidget(executor=record_or_executor)
    raise TypeError("rnn_explorer: expected a RunRecord or an Executor, got "
                    f"{type(record_or_executor).__name__}")
