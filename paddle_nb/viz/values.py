"""What hovering an op shows, and what a run left in each variable, said in one line.

An op's tooltip (:func:`op_tooltip`) lists its slots, its attributes and the user's line
that built it; after a run, its inputs' and outputs' values too.

After a run, hovering an op asks "what did it read, and what did it write?". The answer
comes from a scope or from a run's record:

- a live **Scope** holds what outlives a run: parameters and other persistables. A
  temporary lived in the run's own scope, which the executor destroys when the run ends;
- a **RunRecord** (``exe.subscribe``) holds the run's scopes as they stood just before the
  run destroyed them, with values when the executor's ``record_values`` was on. A
  temporary the executor freed once its last reader had run is "released after its last
  use": the record knows it existed, its memory went back before the run ended.

Each variable is said as ``float32[2, 3] [0.1, -2, 3.5, … 3 more] mean 0.4``: its dtype and
shape, a few numbers and the mean (:func:`value_summary`, which the Dashboard also uses to
say what a run changed).

>>> import numpy as np, paddle_nb as pd
>>> prog = pd.Program()
>>> with pd.program_guard(prog):
...     y = pd.layers.relu(pd.layers.data("x", shape=[3]))
>>> exe, records = pd.Executor(), []
>>> exe.record_values = True
>>> _ = exe.subscribe(records.append)
>>> _ = exe.run(prog, feed={"x": np.array([[-1., 2., 3.]], "float32")}, fetch_list=[y])
>>> values = RunValues(records[-1])
>>> values.say("x"), values.say(y.name)
('released after its last use', 'float32[1, 3] [0, 2, 3]')
"""

import numpy

from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.executor.record import RunRecord, ScopeRecord, snapshot_scope
from paddle_nb.framework.printer import HIDDEN_ATTRS, format_attr
from paddle_nb.viz.style import fmt_shape

__all__ = ["RunValues", "value_summary", "op_value_lines", "program_op_values", "op_tooltip",
           "MAX_SLOT_LINES"]

# An op with many inputs (a concat of 50 tensors) lists this many of its variables' values.
MAX_SLOT_LINES = 8


def value_summary(array):
    """A few numbers of ``array``, and the mean of a longer one:
    ``[0.1, -2, 3.5]``, ``[0.1, -2, 3.5, … 9 more] mean 0.4``.

    >>> value_summary(numpy.arange(5, dtype="float32")), value_summary(numpy.float64(2.5))
    ('[0, 1, 2, … 2 more] mean 2', '2.5')
    """
    array = numpy.asarray(array)
    flat = array.reshape(-1)
    number = (lambda x: f"{x:.4g}") if array.dtype.kind in "fc" else str
    head = ", ".join(number(x) for x in flat[:3].tolist())
    if not array.ndim:
        return head
    if flat.size <= 3:
        return f"[{head}]"
    mean = f"{float(flat.real.mean()):.4g}" if array.dtype.kind in "fciub" else "?"
    return f"[{head}, … {flat.size - 3} more] mean {mean}"


class RunValues:
    """The variables of a run (a RunRecord), a Scope or a ScopeRecord, each said in a line.

    ``live``, a Scope, fills in what the record holds without a value (a record made with
    ``record_values`` off): the persistables a run leaves in the user's scope are the same
    there after the run. A variable held by several scopes (an RNN's step scopes) is said as
    the last scope that allocated it holds it, with where: ``(in step 2, last of 3 scopes)``.
    """

    def __init__(self, source, live=None):
        self.from_scope = isinstance(source, Scope)
        self.records = {}     # variable name -> [(scope label, depth, VarRecord)], walk order
        self._collect(_scope_record(source), 0, "")
        self.live = live
        self.said = {}        # (name, persistable, outer) -> the line: a parameter read by
                              # many ops is summed up once

    def _collect(self, scope, depth, parent):
        """Each variable with its scope's label (a step's "grad" scope as ``step 2/grad``)
        and depth (0: the user's scope, 1: the run scope, 2 and more: sub-block runs)."""
        label = scope.label or ("your scope" if depth == 0 else f"scope {scope.id}")
        if depth >= 3 and parent:
            label = f"{parent}/{label}"
        for var in scope.vars:
            self.records.setdefault(var.name, []).append((label, depth, var))
        for kid in scope.kids:
            self._collect(kid, depth + 1, label if depth >= 2 else "")

    def say(self, name, persistable=None, outer=None):
        """One line on the variable ``name`` as the run left it. ``outer``: the variable is
        block 0's (True: read it from the user's or the run scope, not from a step scope
        where a sub-block's variable of the same name lives; False: a sub-block's)."""
        key = (name, persistable, outer)
        if key not in self.said:
            self.said[key] = self._say(name, persistable, outer)
        return self.said[key]

    def _say(self, name, persistable, outer):
        held = self.records.get(name)
        if held and outer is not None:       # the user's and the run scope hold block 0's
            mine = [h for h in held if (h[1] <= 1) == outer]
            held = mine or held
        held = [(label, var) for label, _, var in held or ()]
        if not held:
            return self._missing(persistable)
        allocated = [(label, v) for label, v in held if v.state == "allocated"]
        label, var = (allocated or held)[-1]
        where = f" (in {label}, last of {len(held)} scopes)" if len(held) > 1 else ""
        return self._said(var) + where

    def _said(self, var):
        if var.state == "freed":
            return "released after its last use"
        if var.state != "allocated":
            return f"{var.state}, no value" + (f" (holds a {var.holder})" if var.holder else "")
        if var.shape is None:                    # a tensor array: its elements in ``holder``
            return f"holds {var.holder}"
        value = var.value if var.value is not None else self._live_value(var.name)
        typed = f"{var.dtype}{fmt_shape(var.shape)}"
        if value is None:
            return f"{typed} (values not recorded: set exe.record_values = True)"
        return f"{typed} {value_summary(value)}"

    def _live_value(self, name):
        var = self.live.find_var(name) if self.live is not None and self.live.is_alive() \
            else None
        if var is None or not var.is_type(LoDTensor) or not var.get(LoDTensor).is_allocated():
            return None
        return var.get(LoDTensor).numpy()

    def _missing(self, persistable):
        if persistable is False and self.from_scope:
            return "not in this scope: a temporary lives in a run's own scope, which ends " \
                   "with the run (a RunRecord made with exe.record_values = True keeps it)"
        return "not in this scope (no run made it here)"


def _scope_record(source):
    if isinstance(source, RunRecord):
        if source.scopes is None:
            raise ValueError("this RunRecord holds no scope snapshot (the run failed before "
                             "its scopes were recorded)")
        return source.scopes
    if isinstance(source, ScopeRecord):
        return source
    if isinstance(source, Scope):
        return snapshot_scope(source, with_values=True)
    raise TypeError(f"values: expected a Scope, a RunRecord or a ScopeRecord, got "
                    f"{type(source).__name__}")


def op_value_lines(op, values, names=None, persistable=None, outer=None):
    """The lines an op's tooltip adds after a run: each input's and output's value.

    ``names`` maps a variable to the user's Python name (viz/names.py); ``persistable(name)``
    says whether a variable outlives a run (what to say of one no scope holds), ``outer(name)``
    whether it is block 0's (see :meth:`RunValues.say`)."""
    lines, seen = [], set()
    for way, slots in (("in", op.inputs), ("out", op.outputs)):
        for slot, vars_ in slots.items():
            for name in vars_:
                if (way, name) in seen:
                    continue
                seen.add((way, name))
                shown = _shown(name, names)
                kept = persistable(name) if persistable is not None else None
                top = outer(name) if outer is not None else None
                lines.append(f"  {way} {slot} {shown}: {values.say(name, kept, top)}")
    if len(lines) > MAX_SLOT_LINES:
        lines = lines[:MAX_SLOT_LINES] + [f"  … {len(lines) - MAX_SLOT_LINES} more variables"]
    return (["values after the run:"] + lines) if lines else []


def program_op_values(program, values, names=None):
    """``{"block/op": the lines of op_value_lines}`` for every op of ``program``: what the
    Dashboard's graph adds to each op's tooltip after a run. ``names`` is viz/names.py's
    ``{(block idx, variable name): Python name}``."""
    out = {}
    for block in program.blocks:
        def persistable(name, block=block):
            var = block.find_var(name)
            return var.persistable if var is not None else None

        def outer(name, block=block):
            var = block.find_var(name)
            return var.block.idx == 0 if var is not None else None
        for k, op in enumerate(block.ops):
            given = {}
            for name in op.input_arg_names + op.output_arg_names:
                var = block.find_var(name)
                user = (names or {}).get((var.block.idx, name)) if var is not None else None
                if user:
                    given[name] = user
            lines = op_value_lines(op, values, given, persistable, outer)
            if lines:
                out[f"{block.idx}/{k}"] = "\n".join(lines)
    return out


def op_tooltip(op, k, role, names=None, values=()):
    """What hovering an op shows: its slots (a name the user gave the variable first, see
    viz/names.py), its attributes (long values cut), its variables' values after a run
    (``values``, the lines of :func:`op_value_lines`), and the user's line that built it."""
    def slots(m):
        return "; ".join(f"{s}={', '.join(_shown(n, names) for n in ns)}"
                         for s, ns in m.items() if ns)
    lines = [f"#{k} {op.type} ({role}) in: {slots(op.inputs)} out: {slots(op.outputs)}"]
    for name, value in op.attrs.items():
        if name not in HIDDEN_ATTRS:
            text = format_attr(value, name)
            lines.append(f"  {name} = {text if len(text) <= 70 else text[:67] + '...'}")
    lines += values
    if op.callstack:
        lines.append(f"built at {op.site()}")
    return "\n".join(lines)


def _shown(name, names):
    """``name``, or ``o1 (static_rnn_0.tmp_1)`` where the user bound it to a Python name."""
    given = (names or {}).get(name)
    return f"{given} ({name})" if given and given != name else name
