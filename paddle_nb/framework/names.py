"""Unique names, counted per program (docs/style.md rule 10: deterministic output).

>>> names = UniqueNames()
>>> names("fc"), names("fc"), names("tmp")
('fc_0', 'fc_1', 'tmp_0')
>>> names.gave("fc_1"), names.gave("fc_2"), names.gave("relu_0")
(True, False, False)

Two sources name what one program holds: the Fluid-1.8 layers count per program, the 2.x API
draws from PaddlePaddle 2.x's process-wide generator (``unique_name``). Each alone never
repeats itself, but the two can meet: a program's first ``pd.layers.fc`` and its first
``paddle.static.nn.fc`` would both be ``fc_0`` and share ``fc_0.w_0``. ``ProgramNames`` keeps
what each source gave in one program, and each skips a name the other already gave there.
A program built from one source only gets exactly the names that source alone gives. A
program parsed from bytes holds names neither source gave here: both skip those too.

>>> names, process = ProgramNames(), UniqueNames()
>>> names.fluid("fc"), names.process(process, "fc"), names.fluid("fc")
('fc_0', 'fc_1', 'fc_2')

The 2.x generator in use is ``current_generator()``: the process's one, or the one a
``unique_name.guard`` put in ``GENERATOR`` (a ``ContextVar``: a thread starts from the
process's generator unless it enters a guard). It lives here, below the programs, because
a Variable's operators (``x + y``) name their results with it.
"""

import collections
import contextvars
from collections.abc import Callable, Iterable

__all__ = ["GENERATOR", "PROCESS_GENERATOR", "ProgramNames", "UniqueNames", "current_generator"]


class UniqueNames:
    """``names(prefix)`` -> ``prefix_0``, ``prefix_1``, ... for one program."""

    def __init__(self) -> None:
        self._counts: collections.Counter[str] = collections.Counter()

    def __call__(self, prefix: str) -> str:
        n = self._counts[prefix]
        self._counts[prefix] += 1
        return f"{prefix}_{n}"

    def gave(self, name: str) -> bool:
        """Whether ``name`` is one this counter has given (``prefix_N``, N already counted)."""
        prefix, _, n = name.rpartition("_")
        return n.isdigit() and str(int(n)) == n and int(n) < self._counts.get(prefix, 0)

    def copy(self) -> "UniqueNames":
        other = UniqueNames()
        other._counts = self._counts.copy()
        return other


class ProgramNames:
    """The names one program was given by either source, each skipping the other's.

    ``fluid(prefix)`` is the program's own counter (the 1.8 layers, ``create_var`` without a
    name); ``process(generator, key)`` asks the 2.x generator, called while this program is
    the main one. A name the 2.x generator gives twice in one program (after a
    ``unique_name.guard``) is not skipped: PaddlePaddle shares such a parameter too.
    ``hold(names)`` adds the names of a parsed program's variables, which both skip.
    """

    def __init__(self) -> None:
        self.counters = UniqueNames()
        self._from_process: set[str] = set()
        self._held: set[str] = set()

    def fluid(self, prefix: str) -> str:
        name = self.counters(prefix)
        while name in self._from_process or name in self._held:
            name = self.counters(prefix)
        return name

    def process(self, generator: Callable[[str], str], key: str) -> str:
        name = generator(key)
        while self.counters.gave(name) or name in self._held:
            name = generator(key)
        self._from_process.add(name)
        return name

    def hold(self, var_names: Iterable[str]) -> None:
        """Skip from now on each name and each name a variable's is made from: for
        ``fc_0.w_0@GRAD`` those are ``fc_0`` (the layer) and ``fc_0.w_0``."""
        for var_name in var_names:
            parts = var_name.split("@")[0].split(".")
            self._held.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))

    def copy(self) -> "ProgramNames":
        other = ProgramNames()
        other.counters = self.counters.copy()
        other._from_process = set(self._from_process)
        other._held = set(self._held)
        return other


PROCESS_GENERATOR = UniqueNames()
GENERATOR: contextvars.ContextVar[UniqueNames | None] = \
    contextvars.ContextVar("paddle_nb_unique_names", default=None)


def current_generator() -> UniqueNames:
    """The 2.x generator in use: a ``unique_name.guard``'s, else the process's."""
    return GENERATOR.get() or PROCESS_GENERATOR
