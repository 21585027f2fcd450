"""gumbel_softmax's gradient, by hand: softmax's Jacobian from Out, over the temperature."""

import numpy as np

from tests.ops import harness


def test_gumbel_softmax_grad_is_softmaxs_from_out():
    out = np.array([[0.2, 0.3, 0.5]])
    dout = np.array([[1.0, -2.0, 0.5]])
    got = harness.forward("gumbel_softmax_grad", {"Out": out, "Out@GRAD": dout},
                          {"temperature": 0.5})["X@GRAD"]
    jacobian = (np.diag(out[0]) - np.outer(out[0], out[0])) / 0.5
    np.testing.assert_allclose(got[0], jacobian @ dout[0])
