"""Fixtures shared by several test modules."""

import gc

import pytest

from paddle_nb.core import global_scope, gpu_available
from paddle_nb.framework import unique_name
from paddle_nb.framework.initializer import GLOBAL_INITIALIZERS
from paddle_nb.ops.machinery import registry
from tests import fake_cupy

GPU_PRESENT = gpu_available()       # asked before any test swaps CuPy for the fake


@pytest.fixture(autouse=True)
def fresh_names():
    """Each test names from 0 (``linear_0``, ``learning_rate_0``), whatever ran before it:
    PaddlePaddle 2.x's names come from one generator per process, as its own tests guard.
    And what a test left in the global scope (2.x scripts run there by default) is dropped
    after it, so that no later test counts its memory."""
    with unique_name.guard():
        yield
    GLOBAL_INITIALIZERS.update(weight=None, bias=None)      # nn.initializer.set_global_...
    scope = global_scope()
    names = list(scope.local_var_names())
    if names:
        scope.erase(names)


@pytest.fixture
def quiet_gc():
    """No cycle collection during the test, so that only this test moves the memory counters.

    Scopes, variables and tensors form reference cycles; a collection in the middle of a test
    could free an earlier test's tensors and change the counts the test compares.
    """
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture
def block_owner(monkeypatch):
    """A test-only op type that owns a sub-block (no control-flow op is needed for this).

    Its raw kernel runs the sub-block in a fresh kid scope, as control-flow ops do.
    """
    def kernel(ctx):
        ctx.run_block(ctx.attrs["sub_block"], ctx.scope.new_scope(label="sub"))

    opdef = registry.OpDef(
        "test_block_owner",
        inputs=[registry.Slot("X", duplicable=True, dispensable=True)],
        outputs=[registry.Slot("Out", duplicable=True, dispensable=True)],
        attrs={"sub_block": registry.Attr("block")}, kernel=kernel, raw=True,
        doc="Runs its sub-block once (a test-only op).")
    monkeypatch.setitem(registry._REGISTRY, opdef.type, opdef)
    return opdef.type


@pytest.fixture(params=["fake", "cupy"])
def device(request, monkeypatch):
    """The array module behind ``pd.GPUPlace(0)``: CuPy on a real device (skipped where
    there is none), and tests/fake_cupy.py everywhere, which keeps device arrays apart
    from NumPy's as CuPy does, so the GPU path runs in CI too."""
    if request.param == "cupy":
        if not GPU_PRESENT:
            pytest.skip("needs CuPy and a CUDA device")
        import cupy
        return cupy
    return fake_cupy.install(monkeypatch)


def pytest_terminal_summary(terminalreporter):
    """Say, in a few lines, why tests were skipped (most are GPU cases on a machine without
    one), so that a skip count in the hundreds does not look like something broken."""
    reasons = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    terminalreporter.write_line("skipped, by reason (the most common):")
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1])[:6]:
        terminalreporter.write_line(f"  {count:5d}  {reason[:110]}")
