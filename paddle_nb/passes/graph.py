"""Who reads and who writes each variable of a program: what every pass asks before it edits.

A pass may remove an op or reroute a variable only when nothing else depends on it: no other
reader, no fetch, no sub-block that captures it, no second writer. :class:`Uses` answers those
questions for a program at one moment; a pass builds a fresh one after each edit it makes.
"""

from collections import defaultdict

__all__ = ["Uses", "rename_input", "rename_output", "SIDE_EFFECT_TYPES"]

# ops that matter for what they do, not for what they write: never removed as dead code
SIDE_EFFECT_TYPES = frozenset({"feed", "fetch", "fetch_v2", "print", "save", "save_combine",
                               "py_func", "send_v2", "recv_v2", "c_allreduce_sum"})


class Uses:
    """Readers and writers of every name, over all blocks of ``program``.

    ``keep`` names count as fetched. ``readers[name]`` and ``writers[name]`` are lists of
    (block index, op index); a name that a sub-block reads counts as read there, so a pass on
    the global block leaves it alone.
    """

    def __init__(self, program, keep=()):
        self.program = program
        self.readers, self.writers = defaultdict(list), defaultdict(list)
        for block in program.blocks:
            for k, op in enumerate(block.ops):
                for name in op.input_arg_names:
                    self.readers[name].append((block.idx, k))
                for name in op.output_arg_names:
                    self.writers[name].append((block.idx, k))
        glob = program.global_block()
        self.fetched = {n for op in glob.ops if op.type in ("fetch", "fetch_v2")
                        for n in op.input_arg_names} | set(keep)

    def only_reader(self, name, where):
        """True when the op at ``where`` (block, index) is the one op that reads ``name``."""
        return self.readers.get(name, []) == [where] and name not in self.fetched

    def sole_reader(self, name):
        """(index, op) of the one op of the global block reading ``name``, which is not
        fetched; (None, None) when there is not exactly one such reader."""
        readers = self.readers.get(name, [])
        if len(readers) != 1 or readers[0][0] != 0 or name in self.fetched:
            return None, None
        return readers[0][1], self.program.global_block().ops[readers[0][1]]

    def written_once(self, name):
        return len(self.writers.get(name, [])) == 1

    def persistable(self, name):
        var = self.program.global_block().find_var(name)
        return var is not None and var.persistable

    def unread(self, name):
        return not self.readers.get(name) and name not in self.fetched


def rename_input(op, old, new):
    """Make ``op`` read ``new`` wherever it read ``old`` (its OpDesc edited in place)."""
    _rename(op, op.desc.inputs, old, new)


def rename_output(op, old, new):
    """Make ``op`` write ``new`` wherever it wrote ``old`` (its OpDesc edited in place)."""
    _rename(op, op.desc.outputs, old, new)


def _rename(op, slots, old, new):
    for slot in slots:
        for k, arg in enumerate(slot.arguments):
            if arg == old:
                slot.arguments[k] = new
    op.block.program.bump_version()
