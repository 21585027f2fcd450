"""The user's names for variables: ``o1, o2 = rnn()`` names the rnn's outputs ``o1`` and ``o2``.

A program names its variables itself (``static_rnn_0.tmp_1``, ``_generated_var_0``), but
the reader of a notebook knows them by the Python names the cell bound them to. Every op
keeps the user's line that built it (``op_callstack``, see ``framework/callsite.py``); when
that line is an assignment, ``name = ...`` or ``a, b = ...``, its targets name what the
line's last op wrote: its main output (``Out``, ``Y``, ``Output``, ``outputs``), or, for
several targets, the output slot holding that many variables. A Python name bound more
than once in a block (a loop's ``h = fc(h)``) names the last variable bound, as Python
does; a parameter keeps its own name (``name=`` already gave it the user's).

>>> import paddle_nb as pd
>>> prog = pd.Program()
>>> with pd.program_guard(prog, pd.Program()):
...     x = pd.layers.data("x", shape=[3])
...     hidden = pd.layers.relu(x)
>>> user_names(prog)
{(0, 'relu_0.tmp_0'): 'hidden'}
"""

import re

from paddle_nb.framework.variable import Variable
from paddle_nb.viz.style import esc

__all__ = ["user_names", "assigned_names", "names_by_block", "names_in_block",
           "scope_names", "name_html"]

TARGETS = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*=(?!=)")
MAIN_SLOTS = ("Out", "Y", "Output", "outputs")


def assigned_names(source):
    """The names a line of source binds: ``"o1, o2 = rnn()"`` -> ``["o1", "o2"]``.

    >>> assigned_names("o1, o2 = rnn()"), assigned_names("h += 1"), assigned_names("f(a=1)")
    (['o1', 'o2'], [], [])
    """
    match = TARGETS.match(source)
    if match is None:
        return []
    return [name.strip() for name in match.group(1).split(",")]


def user_names(program, namespace=None):
    """``{(block idx, variable name): Python name}`` for the variables the user's own lines
    bound to a Python name (only where that name differs from the variable's).

    ``namespace`` (a dict of Python names; by default the running notebook's, none outside
    one) fills in what no building line says: ``o1, o2 = rnn()`` builds no op (the
    ``recurrent`` op was built when its step net opened), but ``o1`` and ``o2`` are there.
    Names starting with ``_`` (IPython's ``_``, ``_12``) are left out."""
    named = _from_lines(program)
    taken = set(named.values())
    for target, value in (_namespace() if namespace is None else namespace).items():
        # (only Variables are asked anything: a module's __getattr__ may import or raise)
        if not isinstance(value, Variable) or target.startswith("_") or target in taken or \
                value.block.program is not program:
            continue
        block = value.block
        key = (block.idx, value.name)
        var = block.vars.get(key[1])
        if key not in named and var is not None and not var.persistable and key[1] != target:
            named[key] = target
            taken.add(target)
    return named


def _namespace():
    import sys
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return dict(getattr(shell, "user_ns", None) or {})


def _from_lines(program):
    """The names the user's building lines bound (see the module's docstring)."""
    named = {}
    for block in program.blocks:
        bound = {}                       # Python name -> variable, the last binding wins
        for site, ops in _runs(block):
            targets = assigned_names(site[1])
            for target, var in zip(targets, _results(ops[-1], len(targets))):
                if var is not None:
                    bound[target] = var
        for target, name in bound.items():
            var = block.vars.get(name)
            if name != target and var is not None and not var.persistable:
                named[(block.idx, name)] = target
    return named


def _runs(block):
    """Consecutive ops built by the same line of the user's code: ``[((file:line, source),
    [ops])]``."""
    runs = []
    for op in block.ops:
        site = _user_line(op.callstack)
        if site is None:
            continue
        if runs and runs[-1][0] == site and runs[-1][1][-1].index() == op.index() - 1:
            runs[-1][1].append(op)
        else:
            runs.append((site, [op]))
    return runs


def _user_line(callstack):
    """``(where, source)`` of the user's line in an ``op_callstack`` paddle_nb wrote (two
    strings: the user's frame only). PaddlePaddle writes its whole stack, and only for some
    ops of a saved model: the one line found there (``logits = net(image)`` for a lone
    ``flatten``) names the wrong variable, so its programs get names from a namespace only."""
    if callstack is None or len(callstack) != 2 or not callstack[0].strip().startswith("File "):
        return None
    return callstack[0].strip(), callstack[1].strip()


def _results(op, count):
    """The variables an op gives back to ``count`` targets, or ``[]`` when it is unclear."""
    outputs = {slot: names for slot, names in op.outputs.items() if names}
    slots = [slot for slot in MAIN_SLOTS if slot in outputs] + list(outputs)
    if count == 1:
        return [outputs[slots[0]][0]] if slots else []
    for slot in slots:
        if len(outputs[slot]) == count:
            return list(outputs[slot])
    return []


def names_by_block(program, namespace=None):
    """:func:`user_names` as ``{block idx: {variable name: Python name}}``. Empty when the
    notebook's namespace changed while it was read (a run's thread asking while a cell binds
    names)."""
    try:
        found = user_names(program, namespace)
    except RuntimeError:
        return {}
    by_block = {}
    for (idx, name), given in found.items():
        by_block.setdefault(idx, {})[name] = given
    return by_block


def names_in_block(block, by_block):
    """``{variable name: Python name}`` for the names ``block`` sees: its own variables and
    its ancestors' (a step block's ``x`` is its own slice, not the outer sequence ``x``: the
    nearest declaration wins, named or not)."""
    chain = []
    while block is not None:
        chain.append(block)
        block = block.parent
    seen = {}
    for b in reversed(chain):                  # the root first, the nearest block last
        for name in b.vars:
            seen[name] = by_block.get(b.idx, {}).get(name)
    return {name: given for name, given in seen.items() if given}


def scope_names(program, by_block):
    """``(outer, inner)``: the names a scope's rows show. The user's scope and the run scope
    hold block 0's variables (``outer``); the scopes below them (``step 0``, ``block 1``,
    ``grad``) hold the sub-blocks' (``inner``: a sub-block's own name wins over block 0's,
    as a step's output row ``h`` is not the stacked ``out`` outside, though both may share
    a variable name)."""
    outer = names_in_block(program.global_block(), by_block)
    inner = dict(outer)
    for block in program.blocks[1:]:
        for name in block.vars:
            given = by_block.get(block.idx, {}).get(name)
            if given:
                inner[name] = given
            else:
                inner.pop(name, None)
    return outer, inner


def name_html(name, named):
    """``name`` for an HTML view: the user's name where ``named`` (a dict from
    :func:`names_in_block`) has one, the program's on hover (``title``, ``data-internal``).

    >>> name_html("relu_0.tmp_0", {"relu_0.tmp_0": "hidden"})
    '<span class="pnb-user-name" title="relu_0.tmp_0" data-internal="relu_0.tmp_0">hidden</span>'
    >>> name_html("x<1>", {})
    'x&lt;1&gt;'
    """
    given = (named or {}).get(name)
    if not given or given == name:
        return esc(name)
    return (f'<span class="pnb-user-name" title="{esc(name)}" data-internal="{esc(name)}">'
            f"{esc(given)}</span>")
