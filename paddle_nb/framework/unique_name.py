"""PaddlePaddle 2.x's unique names: one counter per key, shared by every program.

PaddlePaddle 2.x names a layer, its parameters and its temporaries from a process-wide
generator: the first ``paddle.nn.Linear`` is ``linear_0`` whichever program it is built in,
its weight ``linear_0.w_0``, and the next ``F.linear`` call's output ``linear_1.tmp_0``. The
2.x API here (``paddle_nb.nn``, ``paddle_nb.static``, the tensor functions) takes its names
from this generator so that a script builds the same parameter names as in PaddlePaddle, and
a checkpoint saved there loads here. ``guard()`` starts a fresh generator inside a ``with``
(PaddlePaddle's ``paddle.utils.unique_name.guard``). The generator in use is
``framework.names.current_generator()``.

The Fluid-1.8 layers (``pd.layers``) keep their per-program counters (``Program.unique_name``).
A program may be built with both: ``generate`` skips a name the main program's own counter
already gave, and that counter skips the names ``generate`` gave while the program was the
main one (``framework.names.ProgramNames``), so no two of its variables share a name.

>>> with guard():
...     generate("linear"), generate("linear"), generate("linear_0.w")
('linear_0', 'linear_1', 'linear_0.w_0')
"""

import contextlib
from collections.abc import Iterator

from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.names import GENERATOR, UniqueNames, current_generator

__all__ = ["generate", "guard", "switch"]


def generate(key: str) -> str:
    """``key_N``, N counting the names made from ``key`` by the generator in use (one the
    main program's Fluid-1.8 counter already gave there is passed over)."""
    return default_main_program().names.process(current_generator(), key)


def switch(new_generator: UniqueNames | None = None) -> UniqueNames:
    """Make ``new_generator`` (a fresh one when None) the generator in use; return the old."""
    old = current_generator()
    GENERATOR.set(new_generator if new_generator is not None else UniqueNames())
    return old


@contextlib.contextmanager
def guard(new_generator: UniqueNames | None = None) -> Iterator[None]:
    """Names start again from 0 inside the ``with`` (a string prefix is not supported)."""
    if new_generator is not None and not isinstance(new_generator, UniqueNames):
        raise TypeError("unique_name.guard: paddle_nb takes a generator made by switch() "
                        f"or nothing, got {new_generator!r}")
    token = GENERATOR.set(new_generator if new_generator is not None else UniqueNames())
    try:
        yield
    finally:
        GENERATOR.reset(token)
