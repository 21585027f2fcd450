"""Folding a big program's graph: which ops are drawn together as one node.

A thousand ops do not fit on a screen, but a program is made of repeated parts: the
residual blocks of a ResNet, the layers of a transformer, the steps of an unrolled loop.
Folding *repeats* draws N consecutive copies of the same wiring as one node "N x ..."
(``viz/repeats.py`` finds them, by structure, not by name); folding again folds repeats of
repeats (a ResNet stage). Folding *params* writes each parameter into the label of the op
that reads it instead of drawing it as a node; *temps* draws an intermediate variable as the
edge between its writer and reader; *prefix* draws one node per layer name and role
(``fc_0.*`` forward); *segments* cuts what is left into runs of consecutive ops; *blocks*
draws each sub-block as one node in its parent. By default (``collapse=None``) these steps
are taken in that order only until the drawing has at most ``max_nodes`` nodes.

>>> import paddle_nb as pd
>>> prog = pd.Program()
>>> with pd.program_guard(prog, pd.Program()):
...     h = pd.layers.data("x", shape=[3])
...     for _ in range(4):
...         h = pd.layers.fc(h, 3, act="relu")
>>> folds = Folds(prog, prog.blocks)
>>> folds.count(), folds.apply("repeats", None), folds.count()
(33, 'folded: repeats', 3)
>>> [u["title"] for u in folds.units.values()]
['4 x 3 ops']
"""

import fnmatch
import math
import re

from paddle_nb.framework.operator import OpRole
from paddle_nb.viz.repeats import find_repeats

__all__ = ["Folds", "name_prefix", "node_id", "KEYWORDS", "LADDER", "DATAFLOWS",
           "DEFAULT_MAX_NODES"]

KEYWORDS = ("repeats", "params", "temps", "prefix", "segments", "blocks")
# The default's steps, gentlest first: each is taken only while the drawing is too big.
LADDER = ("repeats", "params", "temps", "repeats", "repeats", "prefix", "segments", "blocks")
# How variables are drawn: "full", every variable a node; "compact", parameters written in
# the labels of the ops that read them and intermediates drawn as the edges they are;
# "auto", full while the full drawing fits (at most max_nodes nodes: a small teaching
# program shows every variable), compact above.
DATAFLOWS = ("auto", "compact", "full")
DEFAULT_MAX_NODES = 60


def name_prefix(name):
    """The layer a variable's name belongs to.

    >>> name_prefix("fc_0.w_0@GRAD"), name_prefix("x@GRAD"), name_prefix("learning_rate_0")
    ('fc_0', 'x', 'learning_rate_0')
    """
    return re.split(r"[.@]", name, maxsplit=1)[0]


def node_id(kind, block_idx, name):
    """A node's stable id: ``var-b0-fc_0.w_0``, ``op-b1-3``. Letters, digits and ``_.@/-``
    stay; any other character (which DOT, CSS or HTML may read specially: ``:`` a port,
    quotes, ``<>&``, a backslash, a newline) becomes ``~`` and its code point in hex and
    ``~``, so two names never share an id.

    >>> node_id("var", 0, "fc_0.w_0@GRAD"), node_id("var", 1, 'a:b<')
    ('var-b0-fc_0.w_0@GRAD', 'var-b1-a~3a~b~3c~')
    """
    return f"{kind}-b{block_idx}-" + _UNSAFE.sub(lambda m: f"~{ord(m.group(0)):x}~", str(name))


_UNSAFE = re.compile(r"[^A-Za-z0-9_.@/-]")


class Folds:
    """The folding of one drawing.

    ``unit`` maps an op's key (block idx, op index) to the id of the node it is drawn in
    (absent: drawn on its own); ``units`` describes each such node (block, ops, kind, title);
    ``block_node`` maps each folded block to its node; ``hide`` holds the kinds of variable
    drawn as no node ("params", "temps"). A fold whose id is in ``expand`` is left open:
    its ops are never folded, by any step.
    """

    def __init__(self, program, blocks, expand=()):
        self.program, self.blocks = program, blocks
        self.drawn = {b.idx for b in blocks}
        self.expand, self.opened, self.pinned = set(expand or ()), [], set()
        self.unit, self.units, self.block_node, self.hide = {}, {}, {}, set()
        self.vars, self.touch = {}, {}   # (decl block, name) -> Variable / ([writers], [readers])
        for b in blocks:
            for name, var in b.vars.items():
                self.vars[(b.idx, name)] = var
            for k, op in enumerate(b.ops):
                for slot, names in ((1, op.input_arg_names), (0, op.output_arg_names)):
                    for name in dict.fromkeys(names):
                        vk = self.resolve(b, name)
                        if vk is not None:
                            self.touch.setdefault(vk, ([], []))[slot].append((b.idx, k))
        self.side_outputs = self._side_outputs()
        self.any_ops = any(b.ops for b in blocks)
        self.linked = self._step_linked()

    def _step_linked(self):
        """The variables an RNN's step links join (sequences, states, memories, stacked
        outputs): drawn as nodes even in a compact drawing, the links are the picture."""
        linked = set()
        for b in self.blocks:
            for op in b.ops:
                sub = op.attr("sub_block") if op.type == "recurrent" else None
                if sub is None or sub not in self.drawn:
                    continue
                inner = self.program.block(sub)
                outer = op.input("inputs") + op.input("initial_states") + op.output("outputs")
                linked.update(vk for vk in (self.resolve(b, n) for n in outer) if vk)
                states = list(op.attr("ex_states") or []) + list(op.attr("states") or [])
                for name in outer + states:
                    if name in inner.vars:
                        linked.add((sub, name))
        return linked

    def _side_outputs(self):
        """Outputs nobody reads of ops whose other outputs are read (batch_norm's SavedMean,
        reshape2's XShape): the "temps" step hides them with the intermediates."""
        side = set()
        for b in self.blocks:
            for op in b.ops:
                keys = [self.resolve(b, n) for n in dict.fromkeys(op.output_arg_names)]
                read = [vk for vk in keys if vk and self.touch.get(vk, ((), ()))[1]]
                if read:
                    side.update(vk for vk in keys if vk and vk not in read)
        return side

    def resolve(self, block, name):
        """``(idx of the block declaring name, name)`` as seen from ``block``, or None."""
        var = block.find_var(name)
        if var is None:
            return None
        vk = (var.block.idx, name)
        self.vars.setdefault(vk, var)
        return vk

    # -- what is drawn --------------------------------------------------------------------------
    def var_shown(self, vk):
        """Whether variable ``vk`` is drawn as a node (else it is folded away or an edge)."""
        if vk[0] in self.block_node:
            return False
        var = self.vars[vk]
        writers, readers = self.touch.get(vk, ((), ()))
        if var.persistable and "params" in self.hide:
            return False
        if not writers and not readers and self.any_ops:
            return False                 # no op touches it: a stray node says nothing
        inner = readers or (writers and vk in self.side_outputs)    # not fed, not a result
        if inner and (writers or var.persistable) and \
                all(self.unit.get(k) for k in list(writers) + list(readers)):
            return False                 # used only inside folded nodes
        if "temps" in self.hide and writers and not var.persistable:
            return vk in self.linked or (not readers and vk not in self.side_outputs)
        return True

    def count(self):
        """How many nodes the drawing has: ops drawn alone, folded nodes, variables."""
        ops = {self.unit.get((b.idx, k), (b.idx, k)) for b in self.blocks
               for k in range(len(b.ops))}
        return len(ops) + sum(1 for vk in self.vars if self.var_shown(vk))

    # -- choosing -------------------------------------------------------------------------------
    def apply(self, collapse, max_nodes, dataflow="auto"):
        """Fold as ``collapse`` asks and draw variables as ``dataflow`` asks (see
        ``pd.viz.graph``); return a note for the picture."""
        if dataflow not in DATAFLOWS:
            raise ValueError(f"graph: dataflow must be one of {', '.join(DATAFLOWS)}, "
                             f"got {dataflow!r}")
        before = self.count()
        compact = dataflow == "compact" or \
            (dataflow == "auto" and before > (max_nodes or DEFAULT_MAX_NODES))
        if compact:
            self.hide.update(("params", "temps"))
        if collapse is False:
            return self._note(before, ["nothing"]) if compact else ""
        if collapse is None:
            if not compact and (max_nodes is None or before <= max_nodes):
                return ""
            done = []
            for step in LADDER:
                if max_nodes is None or self.count() <= max_nodes:
                    break
                if dataflow == "full" and step in ("params", "temps"):
                    continue
                if self.fold(step, max_nodes) and step not in done:
                    done.append(step)
            return self._note(before, done or ["nothing"])
        items = [collapse] if isinstance(collapse, str) else list(collapse)
        patterns = [c for c in items if c not in KEYWORDS]
        if patterns:
            self._group(lambda op: _match(op, patterns), "pattern")
        for step in KEYWORDS:
            if step in items:
                self.fold(step, max_nodes)
        return "folded: " + ", ".join(map(str, items))

    def _note(self, before, done):
        n_ops = sum(len(b.ops) for b in self.blocks)
        how = []
        if {"params", "temps"} <= self.hide:
            how.append("parameters written in their ops, intermediates as named edges "
                       "(graph(..., dataflow='full') draws every variable)")
        steps = [s for s in done if s not in ("params", "temps", "nothing")]
        if steps:
            how.append(f"folded by {' and '.join(steps)}: graph(..., expand=[id]) opens a "
                       "folded node (its id is in its tooltip), collapse=False draws every op")
        return f"{n_ops} ops ({before} nodes in full) drawn as {self.count()} nodes; " + \
            "; ".join(how)

    def fold(self, step, max_nodes=None):
        """Take one folding step; return whether it changed the drawing."""
        before = (len(self.units), len(self.unit), len(self.hide))
        if step in ("params", "temps"):
            self.hide.add(step)
        elif step == "prefix":
            self._group(lambda op: (_op_prefix(op), OpRole.name(op.role)), "prefix")
        elif step == "repeats":
            for block in self._open_blocks():
                self._repeats(block)
        elif step == "segments":
            for block in self._open_blocks():
                self._segments(block, max_nodes or 60)
        else:
            self._fold_blocks()
        return before != (len(self.units), len(self.unit), len(self.hide))

    def _open_blocks(self):
        return [b for b in self.blocks if b.idx not in self.block_node]

    def _add(self, nid, block_idx, keys, kind, title, signature=None):
        """Draw ``keys`` as node ``nid`` (absorbing the nodes they were in), unless the user
        asked to open ``nid``: then pin its ops, which no later step folds."""
        if nid in self.expand:
            self.pinned.update(keys)
            self.opened.append(nid)
            return False
        for key in keys:
            old = self.units.get(self.unit.get(key))
            if old is not None and old is not self.units.get(nid):
                self.units.pop(self.unit[key])
            self.unit[key] = nid
        self.units[nid] = {"block": block_idx, "ops": list(keys), "kind": kind, "title": title,
                           "signature": signature}
        return True

    # -- the steps ------------------------------------------------------------------------------
    def _group(self, key_of, kind):
        """Fold the ops of a block (not yet folded, owning no block) sharing ``key_of(op)``."""
        for block in self._open_blocks():
            groups = {}
            for k, op in enumerate(block.ops):
                key = (block.idx, k)
                if key not in self.unit and key not in self.pinned and not op.sub_block_ids():
                    group = key_of(op)
                    if group is not None:
                        groups.setdefault(group, []).append(key)
            for group, keys in groups.items():
                if kind == "prefix" and len(keys) >= 2:
                    prefix, role = group
                    types = tuple(block.ops[k].type for _, k in keys)
                    self._add(node_id("fold", block.idx, f"{prefix}-{role}"), block.idx, keys,
                              kind, f"{prefix}.* {role}", ("prefix", role, types))
                elif kind == "pattern":
                    self._add(node_id("fold", block.idx, group), block.idx, keys, kind, group)

    def items(self, block):
        """The block as the drawing has it now: ``[(unit id or None, [op keys], token)]`` in
        op order, each token ``(kind, distances back to the items that wrote its inputs)``."""
        items, where, last_writer = [], {}, {}
        for k, op in enumerate(block.ops):
            key = (block.idx, k)
            nid = self.unit.get(key)
            if nid is None or nid not in where:
                where[nid or key] = len(items)
                items.append((nid, [], self._kind(nid, key, op), []))
            i = where[nid or key]
            items[i][1].append(key)
            for name in op.input_arg_names:
                w = last_writer.get(name)
                if w != i and (name, w) not in items[i][3]:
                    items[i][3].append((name, w))
            for name in op.output_arg_names:
                last_writer[name] = i
        # A folded node's parameters are many and their number varies (2 or 5 bottlenecks):
        # its token keeps only the wiring to other items.
        return [(nid, keys, (kind, tuple(None if w is None else i - w for _, w in reads
                                         if nid is None or w is not None)))
                for i, (nid, keys, kind, reads) in enumerate(items)]

    def _kind(self, nid, key, op):
        if key in self.pinned or op.sub_block_ids():
            return ("alone", key)        # never part of a repeat
        if nid is not None:
            unit = self.units[nid]
            return unit["signature"] or ("unit", nid)
        return (op.type, op.role, tuple((s, len(n)) for s, n in op.inputs.items()))

    def _repeats(self, block):
        """Consecutive copies of the same wiring become one node "N x ..."."""
        items = self.items(block)
        for start, period, count in find_repeats([token for _, _, token in items]):
            copies = items[start:start + period * count]
            keys = [key for _, ks, _ in copies for key in ks]
            body = tuple(token[0] for _, _, token in copies[:period])
            sizes = sorted({sum(len(ks) for _, ks, _ in copies[c * period:(c + 1) * period])
                            for c in range(count)})
            size = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
            nid, depth = node_id("repeat", block.idx, keys[0][1]), 1
            while nid in self.units or nid in self.opened:   # a repeat of repeats: one deeper
                depth += 1
                nid = node_id("repeat", block.idx, f"{keys[0][1]}-{depth}")
            self._add(nid, block.idx, keys, "repeat", f"{count} x {size} ops", ("repeat", body))

    def _segments(self, block, max_nodes):
        """The ops still drawn alone are cut into runs of consecutive ops, few enough to fit
        (folded nodes stay as they are: they already say what they hold)."""
        items = self.items(block)
        size = max(2, math.ceil(len(items) / max(1, max_nodes // 2)))
        run = []
        for nid, keys, (kind, _) in items + [(None, [], (("alone", None), ()))]:
            alone = nid is None and kind[0] != "alone"
            if alone and len(run) < size:
                run.append(keys)
                continue
            if len(run) >= 2:
                flat = [key for ks in run for key in ks]
                self._add(node_id("segment", block.idx, flat[0][1]), block.idx, flat, "segment",
                          f"ops #{flat[0][1]}-#{flat[-1][1]}")
            run = [keys] if alone else []

    def _fold_blocks(self):
        """Each sub-block (with everything inside it) becomes one node in its parent."""
        for block in self.blocks:
            if block.parent_idx not in self.drawn or block is self.blocks[0]:
                continue
            outer = self.block_node.get(block.parent_idx)
            nid = outer or f"subblock-{block.idx}"
            keys = [(block.idx, k) for k in range(len(block.ops))]
            if nid in self.expand or any(key in self.pinned for key in keys):
                self.pinned.update(keys)
                continue
            self.block_node[block.idx] = nid
            if outer:
                info = self.units[nid]
                self._add(nid, info["block"], info["ops"] + keys, "block", info["title"])
            else:
                self._add(nid, block.parent_idx, keys, "block",
                          f"block {block.idx}: {len(keys)} ops, {len(block.vars)} vars")


def _op_prefix(op):
    """The name prefix most of an op's arguments share (outputs count twice)."""
    counts: dict[str, int] = {}
    for weight, names in ((2, op.output_arg_names), (1, op.input_arg_names)):
        for name in names:
            prefix = name_prefix(name)
            counts[prefix] = counts.get(prefix, 0) + weight
    return max(counts, key=lambda prefix: counts[prefix]) if counts else None


def _match(op, patterns):
    """The first pattern (a glob, or a bare prefix) one of the op's outputs matches."""
    for pattern in patterns:
        for name in op.output_arg_names or op.input_arg_names:
            if fnmatch.fnmatchcase(name, pattern) or name_prefix(name) == pattern:
                return pattern
    return None
