"""activation_param's erf, which NumPy lacks: against math.erf, element by element."""

import math

import numpy as np

from paddle_nb.ops.activation_param import erf


def _math_erf(x):
    return np.array([math.erf(v) for v in np.asarray(x, dtype=np.float64).ravel()]).reshape(x.shape)


def test_erf_float64_to_1e_15():
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 1e-300, 2.5, -2.5, 27.0]])
    got = erf(np, x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, _math_erf(x), rtol=0, atol=1.5e-15)


def test_erf_keeps_float32_and_its_precision():
    x = np.linspace(-6, 6, 4001).astype(np.float32)
    got = erf(np, x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _math_erf(x), rtol=0, atol=1e-6)


def test_erf_limits_and_nan():
    got = erf(np, np.array([np.inf, -np.inf, np.nan]))
    assert got[0] == 1.0 and got[1] == -1.0 and np.isnan(got[2])
