"""``paddle.static.Executor`` and ``CompiledProgram``: PaddlePaddle 2.x's run signature.

``Executor`` is paddle_nb's Executor with PaddlePaddle 2.x's ``run`` arguments
(``feed_var_name``, ``use_program_cache``, ... are accepted and have nothing to change
here) and two 2.x defaults: a place from ``paddle.set_device`` and the generator that
``paddle.seed`` seeded. ``CompiledProgram`` wraps a Program for PaddlePaddle's
multi-device / graph-optimizing runner; paddle_nb runs it as the Program it wraps, and
``BuildStrategy`` / ``ExecutionStrategy`` are plain settings objects that nothing reads.

>>> import numpy as np, paddle_nb as pd
>>> from paddle_nb import static
>>> main = pd.Program()
>>> with static.program_guard(main, pd.Program()):
...     y = static.data("x", [None, 2]) * 2.0
>>> static.Executor().run(static.CompiledProgram(main), feed={"x": np.ones((1, 2), "float32")},
...                       fetch_list=[y.name])
[array([[2., 2.]], dtype=float32)]
"""

from __future__ import annotations

from paddle_nb.executor import Executor as CoreExecutor
from paddle_nb.framework.program import Program
from paddle_nb.static.mode import SETTINGS, device_place
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from paddle_nb.core.place import Place
    from paddle_nb.core.scope import Scope

__all__ = ["Executor", "CompiledProgram", "BuildStrategy", "ExecutionStrategy"]


class Executor(CoreExecutor):
    """paddle_nb's Executor with PaddlePaddle 2.x's ``run`` signature.

    ``place`` None runs where ``paddle.set_device`` says (the CPU by default); ``seed`` None
    takes ``paddle.seed``'s seed, if one was given.
    """

    def __init__(self, place: Place | None = None, seed: int | None = None) -> None:
        super().__init__(device_place() if place is None else place,
                         SETTINGS.seed if seed is None else seed)

    # PaddlePaddle's arguments, in its order: feed_var_name and fetch_var_name come before scope
    def run(  # type: ignore[override]
            self, program: Any = None, feed: Mapping[str, Any] | None = None,
            fetch_list: Sequence[Any] | None = None, feed_var_name: str = "feed",
            fetch_var_name: str = "fetch", scope: Scope | None = None, return_numpy: bool = True,
            use_program_cache: bool = False, use_prune: bool = False) -> list[Any]:
        """Run ``program`` (a Program, a CompiledProgram, or None for the default main
        program) with ``feed`` (name -> array) and return the values of ``fetch_list``
        (Variables or names). ``feed_var_name``, ``fetch_var_name``, ``use_program_cache``
        and ``use_prune`` are accepted as PaddlePaddle's; paddle_nb always caches the plan
        and runs only what the fetches need."""
        if isinstance(program, CompiledProgram):
            program = program.program
        return super().run(program, feed=feed, fetch_list=fetch_list, scope=scope,
                           return_numpy=return_numpy)

    def close(self) -> None:
        """Nothing to release (PaddlePaddle's closes distributed trainers)."""


class CompiledProgram:
    """A Program prepared for PaddlePaddle's parallel graph runner; here it runs as the
    Program itself (``program``). ``build_strategy`` is kept for reading back."""

    def __init__(self, program_or_graph: Program, build_strategy: BuildStrategy | None = None
                ) -> None:
        if not isinstance(program_or_graph, Program):
            raise TypeError(f"CompiledProgram: expected a Program, got {program_or_graph!r}")
        self.program = program_or_graph
        self.build_strategy = build_strategy or BuildStrategy()

    def with_data_parallel(self, loss_name: str | None = None, build_strategy: Any = None,
                           exec_strategy: Any = None, share_vars_from: Any = None,
                           places: Any = None) -> CompiledProgram:
        """Kept for 1.8-era scripts: paddle_nb runs on one place, so this returns self."""
        if build_strategy is not None:
            self.build_strategy = build_strategy
        return self

    def __repr__(self) -> Any:
        return f"CompiledProgram({self.program!r})"


class _Settings:
    """Attributes set freely and read back; nothing in paddle_nb reads them."""

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class BuildStrategy(_Settings):
    """PaddlePaddle's graph-building options (fusions, memory reuse). paddle_nb builds no
    graph, so they are kept as given and have no effect."""

    def __init__(self) -> None:
        self.enable_inplace = True
        self.memory_optimize = None
        self.fuse_elewise_add_act_ops = False
        self.fuse_bn_act_ops = False
        self.fuse_relu_depthwise_conv = False
        self.fuse_broadcast_ops = False
        self.fuse_all_optimizer_ops = False
        self.enable_auto_fusion = False
        self.debug_graphviz_path = ""


class ExecutionStrategy(_Settings):
    """PaddlePaddle's thread and scope-dropping options; kept as given, no effect here."""

    def __init__(self) -> None:
        self.num_threads = 0          # 2.6's "as many as the places want"
        self.num_iteration_per_drop_scope = 100
        self.num_iteration_per_run = 1
        self.use_thread_barrier = False
