"""Folding a big program's graph: which ops are drawn together as one node.

A thousand ops do not fit on a screen, but a program is made of layers, and a
layer's names share a prefix (``fc_0.w_0``, ``fc_0.tmp_1``). Folding by
prefix draws one node per layer and role (the forward ops of ``fc_0``, its
backward ops, its optimizer ops); folding repeats draws one node for a run of
identical layers (``fc_0 ... fc_49 x50``); folding blocks draws each sub-block
as one node in its parent. Variables used only inside folded nodes disappear
into them; the graph then draws an edge from node to node, labelled with the
variable's name.

>>> import paddle_nb as pd
>>> prog = pd.Program()
>>> with pd.program_guard(prog):
...     h = pd.layers.fc(pd.layers.data("x", shape=[3]), 4, act="relu")
>>> folds = Folds(prog, prog.blocks)
>>> folds.count(), folds.apply("prefix", None), folds.count()
(5, 'folded: prefix', 1)
"""

import fnmatch
import re

from paddle_nb.framework.operator import OpRole

__all__ = ["Folds", "name_prefix", "node_id", "KEYWORDS"]

KEYWORDS = ("prefix", "repeats", "blocks")


def name_prefix(name):
    """The layer a variable's name belongs to.

    >>> name_prefix("fc_0.w_0@GRAD"), name_prefix("x@GRAD"), name_prefix("learning_rate_0")
    ('fc_0', 'x', 'learning_rate_0')
    """
    return re.split(r"[.@]", name, maxsplit=1)[0]


def node_id(kind, block_idx, name):
    """A node's stable id: ``var-b0-fc_0.w_0``, ``op-b1-3``; characters that DOT, CSS or
    HTML dislike (``:``, spaces, quotes, ``<>&``, glob marks) become ``_``."""
    return f"{kind}-b{block_idx}-" + re.sub(r'[:\s"\'<>&*?\[\]]', "_", str(name))


class Folds:
    """The folding of one drawing.

    ``unit`` maps an op's key (block idx, op index) to the id of the node it is drawn in
    (absent: drawn on its own); ``units`` describes each such node (block, ops, kind, title);
    ``block_node`` maps each folded block to its node.
    """

    def __init__(self, program, blocks):
        self.program, self.blocks = program, blocks
        self.drawn = {b.idx for b in blocks}
        self.unit, self.units, self.block_node = {}, {}, {}

    def apply(self, collapse, max_ops):
        """Fold as ``collapse`` asks (see ``pd.viz.graph``); return a note for the picture."""
        if collapse is False:
            return ""
        if collapse is None:
            total = self.count()
            if max_ops is None or total <= max_ops:
                return ""
            done = []
            for step in KEYWORDS:
                done.append(step)
                self.fold(step)
                if self.count() <= max_ops:
                    break
            return (f"{total} ops, folded by {' and '.join(done)} to stay readable; "
                    f"graph(..., collapse=False) draws every op")
        items = [collapse] if isinstance(collapse, str) else list(collapse)
        if "blocks" in items:
            self.fold("blocks")
        patterns = [c for c in items if c not in KEYWORDS]
        if patterns:
            self._group(lambda op: _match(op, patterns), "pattern")
        if "prefix" in items or "repeats" in items:
            self.fold("prefix")
        if "repeats" in items:
            self.fold("repeats")
        return "folded: " + ", ".join(map(str, items))

    def count(self):
        """How many op nodes the drawing has: ops drawn alone plus folded nodes."""
        return len({self.unit.get((b.idx, k), (b.idx, k)) for b in self.blocks
                    for k in range(len(b.ops))})

    def fold(self, step):
        if step == "prefix":
            self._group(lambda op: (_op_prefix(op), OpRole.name(op.role)), "prefix")
        elif step == "repeats":
            for block in self.blocks:
                self._repeats(block)
        else:
            self._fold_blocks()

    def _add(self, nid, block_idx, keys, kind, title, signature=None):
        for key in keys:
            old = self.units.get(self.unit.get(key))
            if old is not None and old is not self.units.get(nid):
                self.units.pop(self.unit[key])
            self.unit[key] = nid
        self.units[nid] = {"block": block_idx, "ops": list(keys), "kind": kind, "title": title,
                           "signature": signature}

    def _group(self, key_of, kind):
        """Fold the ops of a block (not yet folded, owning no block) sharing ``key_of(op)``."""
        for block in self.blocks:
            if block.idx in self.block_node:
                continue
            groups = {}
            for k, op in enumerate(block.ops):
                if (block.idx, k) not in self.unit and not op.sub_block_ids():
                    key = key_of(op)
                    if key is not None:
                        groups.setdefault(key, []).append((block.idx, k))
            for key, keys in groups.items():
                if kind == "prefix" and len(keys) >= 2:
                    prefix, role = key
                    types = tuple(block.ops[k].type for _, k in keys)
                    self._add(node_id("fold", block.idx, f"{prefix}-{role}"), block.idx, keys,
                              kind, f"{prefix}.* {role}",
                              (re.sub(r"_\d+$", "", prefix), role, types, prefix))
                elif kind == "pattern":
                    self._add(node_id("fold", block.idx, key), block.idx, keys, kind, key)

    def _repeats(self, block):
        """Runs of three or more consecutive layers with the same ops become one node."""
        items, seen = [], set()       # (signature or None, unit id), in op order
        for k in range(len(block.ops)):
            nid = self.unit.get((block.idx, k))
            unit = self.units.get(nid)
            if unit is None or unit["kind"] != "prefix":
                items.append((None, None))
            elif nid not in seen:
                seen.add(nid)
                items.append((unit["signature"][:3], nid))
        start = 0
        for end in range(1, len(items) + 1):
            if end < len(items) and items[end][0] is not None and items[end][0] == items[start][0]:
                continue
            run = items[start:end]
            if run[0][0] is not None and len(run) >= 3:
                units = [self.units[nid] for _, nid in run]
                keys = [key for unit in units for key in unit["ops"]]
                stem, role = run[0][0][:2]
                title = (f"{units[0]['signature'][3]} ... {units[-1]['signature'][3]} "
                         f"x{len(run)} {role}")
                self._add(node_id("repeat", block.idx, f"{stem}-{role}-{keys[0][1]}"),
                          block.idx, keys, "repeat", title)
            start = end

    def _fold_blocks(self):
        """Each sub-block (with everything inside it) becomes one node in its parent."""
        for block in self.blocks:
            if block.parent_idx not in self.drawn or block is self.blocks[0]:
                continue
            outer = self.block_node.get(block.parent_idx)
            nid = outer or f"subblock-{block.idx}"
            self.block_node[block.idx] = nid
            keys = [(block.idx, k) for k in range(len(block.ops))]
            if outer:
                keys = self.units[nid]["ops"] + keys
                info = self.units[nid]
                self._add(nid, info["block"], keys, "block", info["title"])
            else:
                self._add(nid, block.parent_idx, keys, "block",
                          f"block {block.idx}: {len(keys)} ops, {len(block.vars)} vars")


def _op_prefix(op):
    """The name prefix most of an op's arguments share (outputs count twice)."""
    counts = {}
    for weight, names in ((2, op.output_arg_names), (1, op.input_arg_names)):
        for name in names:
            prefix = name_prefix(name)
            counts[prefix] = counts.get(prefix, 0) + weight
    return max(counts, key=counts.get) if counts else None


def _match(op, patterns):
    """The first pattern (a glob, or a bare prefix) one of the op's outputs matches."""
    for pattern in patterns:
        for name in op.output_arg_names or op.input_arg_names:
            if fnmatch.fnmatchcase(name, pattern) or name_prefix(name) == pattern:
                return pattern
    return None
