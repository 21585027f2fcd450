"""The op contract: every registered op is checked the same four ways.

For each forward op with cases in ``tests/ops/cases_*.py``: the kernel
against a NumPy reference, the kernel's output shapes and dtypes against
shape inference (also with an unknown batch dimension), gradients through
its own grad ops against central differences in float64, and bad inputs
rejected at build time with a clear message. Every registered op must be
covered: a forward op by cases, a grad op by its forward op's grad check.
"""

import importlib
import pkgutil
import re
import types

import numpy as np
import pytest

import tests.ops as cases_pkg
from paddle_nb.errors import AttrError
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.grad import GradContext
from tests.ops import harness
from tests.ops.signs import SIGN_FREE, align_signs

CASES, BAD, RAW = {}, {}, {}
for info in pkgutil.iter_modules(cases_pkg.__path__):
    if info.name.startswith("cases_"):
        module = importlib.import_module(f"tests.ops.{info.name}")
        for table, name in ((CASES, "CASES"), (BAD, "BAD"), (RAW, "RAW")):
            for op, cases in getattr(module, name, {}).items():
                assert op not in table, f"{op} has cases in two modules"
                table[op] = cases

FORWARD = [t for t in registry.types() if not registry.get(t).raw and t in CASES]
CASE_IDS = [(t, i) for t in FORWARD for i in range(len(CASES[t]))]


def _grad_types(op_type):
    """The grad op types an op's maker emits (from a symbolic call)."""
    opdef = registry.get(op_type)
    if opdef.grad is None:
        return []
    g = GradContext(op_type, {s.name: [s.name.lower()] for s in opdef.inputs},
                    {s.name: [s.name.lower() + "_out"] for s in opdef.outputs},
                    opdef.complete_attrs({k: v for k, v in CASES[op_type][0].attrs.items()}))
    return [spec.type for spec in opdef.grad(g)]


def _writes_gradients(op_type):
    """Whether the op's grad maker writes any gradient (increment's undoes the step instead)."""
    opdef = registry.get(op_type)
    g = GradContext(op_type, {s.name: [s.name.lower()] for s in opdef.inputs},
                    {s.name: [s.name.lower() + "_out"] for s in opdef.outputs},
                    opdef.complete_attrs({k: v for k, v in CASES[op_type][0].attrs.items()}))
    return any("@GRAD" in n for spec in opdef.grad(g) for names in spec.outputs.values()
               for n in (names if isinstance(names, list) else [names]))


def test_every_op_is_covered():
    covered = set(CASES) | set(RAW)
    for t in FORWARD:
        covered.update(_grad_types(t))
    missing = [t for t in registry.types() if t not in covered]
    assert not missing, f"ops without contract cases: {missing}"


def test_every_forward_op_has_a_bad_input_case():
    missing = [t for t in FORWARD if t not in BAD]
    assert not missing, f"ops without a bad-input case: {missing}"


def _compare(got, want, case, what):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), what
        for g, w in zip(got, want):
            _compare(g, w, case, what)
        return
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    np.testing.assert_allclose(got.astype(np.float64) if got.dtype.kind != "b" else got,
                               want, rtol=case.rtol, atol=case.atol, err_msg=what)


@pytest.mark.parametrize("op_type,i", CASE_IDS, ids=[f"{t}-{i}" for t, i in CASE_IDS])
def test_forward_matches_numpy(op_type, i):
    case = CASES[op_type][i]
    outs = harness.forward(op_type, case.inputs, case.attrs)
    if case.ref is None:
        pytest.fail(f"{op_type} case {i} has no NumPy reference")
    want = case.ref(case.inputs, case.attrs)
    for slot, value in want.items():
        if case.seeded and callable(value):
            value(outs[slot])        # a check function for random outputs
            continue
        _compare(outs[slot], value, case, f"{op_type}.{slot}")


@pytest.mark.parametrize("op_type,i", CASE_IDS, ids=[f"{t}-{i}" for t, i in CASE_IDS])
def test_inferred_shapes_match_kernel(op_type, i):
    case = CASES[op_type][i]
    outs = harness.forward(op_type, case.inputs, case.attrs)
    metas = harness.infer(op_type, case.inputs, case.attrs)
    for slot, out in outs.items():
        if out is None or metas[slot] is None:    # (None: the caller declares it, py_func)
            continue
        for o, m in zip(out if isinstance(out, list) else [out],
                        metas[slot] if isinstance(metas[slot], list) else [metas[slot]]):
            # -1: a size that depends on the input's values (split_lod_tensor's rows)
            assert len(m.shape) == np.ndim(o) and \
                all(d in (-1, k) for d, k in zip(m.shape, np.shape(o))), \
                f"{op_type}.{slot}: inferred {m.shape}, kernel {np.shape(o)}"
            assert m.dtype == np.asarray(o).dtype, \
                f"{op_type}.{slot}: inferred {m.dtype}, kernel {np.asarray(o).dtype}"


@pytest.mark.parametrize("op_type,i", CASE_IDS, ids=[f"{t}-{i}" for t, i in CASE_IDS])
def test_gradient_matches_central_differences(op_type, i):
    case = CASES[op_type][i]
    if not case.grad:
        if registry.get(op_type).grad is not None and i == 0 and _writes_gradients(op_type):
            pytest.fail(f"{op_type} is differentiable but its first case checks no gradient")
        pytest.skip("this case checks no gradient")
    inputs = {k: harness.to_float64(v) for k, v in case.inputs.items()}
    outs = harness.forward(op_type, inputs, case.attrs)
    rng = np.random.default_rng(7)
    slots = case.grad_outputs or [
        k for k, v in outs.items()
        if v is not None and np.asarray(v if not isinstance(v, list) else v[0]).dtype.kind == "f"]
    weights = {}
    for k in slots:
        v = outs[k]
        weights[k] = ([rng.standard_normal(np.shape(x)) for x in v] if isinstance(v, list)
                      else rng.standard_normal(np.shape(v)))
    got = harness.analytic_grad(op_type, inputs, case.attrs, weights)
    for slot in case.grad:
        want = harness.numeric_grad(op_type, inputs, case.attrs, slot, weights)
        _compare(got[slot], want, type(case)(inputs={}, rtol=1e-4, atol=1e-6),
                 f"d{op_type}/d{slot}")


BAD_IDS = [(t, i) for t in BAD for i in range(len(BAD[t]))]


@pytest.mark.parametrize("op_type,i", BAD_IDS, ids=[f"{t}-{i}" for t, i in BAD_IDS])
def test_bad_input_is_rejected_clearly(op_type, i):
    bad = BAD[op_type][i]
    with pytest.raises(bad.error, match=bad.match):
        harness.infer(op_type, bad.inputs, bad.attrs)


@pytest.mark.parametrize("op_type", registry.types())
def test_attributes_are_checked(op_type):
    opdef = registry.get(op_type)
    with pytest.raises(AttrError, match=re.escape(f"op '{op_type}' has no attribute")):
        opdef.complete_attrs({"no_such_attribute_xyz": 1})
    for name, attr in opdef.attrs.items():
        if attr.default is not registry.REQUIRED:
            assert attr.coerce(op_type, name, attr.default) is not None or attr.default is None


@pytest.mark.gpu
@pytest.mark.parametrize("op_type,i", CASE_IDS, ids=[f"{t}-{i}" for t, i in CASE_IDS])
def test_forward_on_gpu_matches_cpu(op_type, i, device):
    from paddle_nb.core import GPUPlace
    cupy = device
    case = CASES[op_type][i]
    if case.seeded:
        pytest.skip("random output")
    dev = {k: (None if v is None else [cupy.asarray(x) for x in v] if isinstance(v, list)
               else cupy.asarray(v))
           for k, v in case.inputs.items()}
    cpu = harness.forward(op_type, case.inputs, case.attrs)
    gpu = harness.forward(op_type, dev, case.attrs, place=GPUPlace(0))
    for slot, value in cpu.items():
        if value is None:
            continue
        got = ([cupy.asnumpy(x) for x in gpu[slot]] if isinstance(value, list)
               else cupy.asnumpy(gpu[slot]))
        if (op_type, slot) in SIGN_FREE:      # cuSOLVER picks other signs than LAPACK
            got = align_signs(got, value, SIGN_FREE[(op_type, slot)])
        _compare(got, value, case, f"{op_type}.{slot} on GPU")


def test_the_harness_fails_a_kernel_that_writes_into_an_input():
    """Every kernel run here is checked to leave its inputs as they were (harness.untouched):
    gradients may share one array (elementwise_add_grad returns Out@GRAD as X@GRAD)."""
    op = types.SimpleNamespace(type="scribble", inputs=[types.SimpleNamespace(name="X")])
    x = np.ones(3)
    with harness.untouched(op, [x]):
        pass
    with pytest.raises(AssertionError, match="scribble: its kernel changed input X"):
        with harness.untouched(op, [x]):
            x[0] = 2.0
