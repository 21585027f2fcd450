"""The inference passes on a GPU executor's scope: parameters there are device arrays, so a pass
reads host copies, writes the folded and cropped parameters back on the device, and runs what
it must run (constant folding, the crop pass's confirming run) there; the optimized program
then runs on the GPU to the unoptimized one's outputs. Real CuPy where a device is present,
tests/fake_cupy.py everywhere (its arrays refuse to mix with NumPy's, as CuPy's do)."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import passes

pytestmark = pytest.mark.gpu


def _net():
    """conv (3x3 over a 2x2 image: taps to crop) + batch_norm (to fold) + relu (to fuse),
    a factor made by an op (to fold as a constant), then fc."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[4, 2, 2])
        h = pd.layers.conv2d(x, 6, 3, padding=1, bias_attr=False)
        h = pd.layers.batch_norm(h, act="relu", is_test=True)
        h = pd.layers.elementwise_mul(h, pd.layers.fill_constant([1], "float32", 2.0))
        out = pd.layers.fc(h, 3)
    return main, startup, out


def test_the_optimized_program_runs_on_the_gpu_with_its_new_parameters_there(device):
    main, startup, out = _net()
    gpu = pd.GPUPlace(0)
    exe, scope = pd.Executor(gpu), pd.Scope()
    exe.run(startup, scope=scope)
    for name in ("batch_norm_0.mean", "batch_norm_0.variance"):    # statistics worth folding
        value = np.random.default_rng(1).uniform(0.5, 1.5, 6).astype("float32")
        scope.find_var(name).get_tensor().set(value, gpu)
    feed = {"x": device.asarray(np.random.default_rng(0).standard_normal((2, 4, 2, 2))
                                .astype("float32"))}
    infer = main.clone(for_test=True)
    want, = exe.run(infer, feed=feed, fetch_list=[out.name], scope=scope)
    fast = passes.apply_passes(infer, scope, keep=(out.name,))
    kinds = {op.type for op in fast.global_block().ops}
    assert "batch_norm" not in kinds and "fill_constant" not in kinds, kinds
    got, = exe.run(fast, feed=feed, fetch_list=[out.name], scope=scope)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    made = [n for n in scope.local_var_names() if n.endswith((".bn_fold", ".crop", ".const"))]
    assert made, "the passes made no new parameter"
    for name in made:
        tensor = scope.find_var(name).get_tensor()
        assert tensor.place == gpu and isinstance(tensor.array(), device.ndarray), name
