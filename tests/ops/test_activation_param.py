"""activation_param's erf, which NumPy lacks: against math.erf, element by element.

Both of its paths are checked: SciPy's ``special.erf`` (taken for NumPy arrays when SciPy is
importable) and the series / continued fraction of ``erf_series`` (CuPy, or no SciPy); and the
gelu op on the series path, with SciPy hidden.
"""

import math

import numpy as np
import pytest

from paddle_nb.ops import activation_param
from paddle_nb.ops.activation_param import erf, erf_series, scipy_special

PATHS = [pytest.param(erf_series, id="series"),
         pytest.param(erf, id="scipy", marks=pytest.mark.skipif(
             scipy_special() is None, reason="SciPy is not installed (optional: the fast extra)"))]


def _math_erf(x):
    return np.array([math.erf(v) for v in np.asarray(x, dtype=np.float64).ravel()]).reshape(x.shape)


@pytest.mark.parametrize("f", PATHS)
def test_erf_float64_to_1e_15(f):
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 1e-300, 2.5, -2.5, 27.0]])
    got = f(np, x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, _math_erf(x), rtol=0, atol=1.5e-15)


@pytest.mark.parametrize("dtype, span, count, atol", [
    (np.float32, 6, 4001, 1e-6), (np.float16, 4, 101, 4e-3)], ids=["float32", "float16"])
@pytest.mark.parametrize("f", PATHS)
def test_erf_keeps_a_low_precision_dtype_and_its_precision(f, dtype, span, count, atol):
    x = np.linspace(-span, span, count).astype(dtype)
    got = f(np, x)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, _math_erf(x), rtol=0, atol=atol)


@pytest.mark.parametrize("f", PATHS)
def test_erf_limits_and_nan(f):
    got = f(np, np.array([np.inf, -np.inf, np.nan]))
    assert got[0] == 1.0 and got[1] == -1.0 and np.isnan(got[2])


def test_erf_without_scipy_is_the_series(monkeypatch):
    x = np.linspace(-3, 3, 101).astype(np.float32)
    monkeypatch.setattr(activation_param, "scipy_special", lambda: None)
    np.testing.assert_array_equal(erf(np, x), erf_series(np, x))


def test_gelu_op_on_the_series_path(monkeypatch):
    import paddle_nb as pd
    monkeypatch.setattr(activation_param, "scipy_special", lambda: None)
    main, startup = pd.Program(), pd.Program()
    with pd.static.program_guard(main, startup):
        x = pd.static.data("x", [2, 5], "float32")
        y = pd.nn.functional.gelu(x)
    feed = np.linspace(-3, 3, 10, dtype=np.float32).reshape(2, 5)
    got, = pd.Executor(pd.CPUPlace()).run(main, feed={"x": feed}, fetch_list=[y])
    want = 0.5 * feed * (1 + _math_erf(feed / math.sqrt(2)))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
