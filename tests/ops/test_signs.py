"""The sign-free comparison of eigenvectors (tests/ops/signs.py) forgives a flipped vector and
nothing else."""

import numpy as np
import pytest

from tests.ops.signs import align_signs


def test_a_flipped_eigenvector_is_aligned_and_a_wrong_one_still_fails():
    want = np.linalg.eigh(np.array([[2.0, 1.0], [1.0, 3.0]]))[1]
    flipped = want * np.array([1.0, -1.0])          # the second column's sign changed
    np.testing.assert_array_equal(align_signs(flipped, want, -2), want)
    wrong = want[:, ::-1]                            # the columns swapped: not a sign
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(align_signs(wrong, want, -2), want, atol=1e-6)


def test_rows_are_aligned_along_the_last_axis():
    vh = np.array([[0.6, 0.8], [-0.8, 0.6]])
    np.testing.assert_array_equal(align_signs(-vh, vh, -1), vh)


def test_only_gradients_through_used_eigenvectors_follow_the_signs():
    import paddle_nb as pd
    from tests.ops.signs import sign_dependent_grads
    main = pd.Program()
    with pd.program_guard(main):
        a = pd.static.data("a", [3, 3])
        b = pd.static.data("b", [3, 3])
        _, vectors = pd.linalg.eigh(a)                  # eigenvectors used: a's gradient follows
        values = pd.linalg.eigvalsh(b)                  # only eigenvalues used: b's does not
        pd.static.append_backward(pd.sum(vectors) + pd.sum(values))
    assert sign_dependent_grads(main) == {"a@GRAD"}
