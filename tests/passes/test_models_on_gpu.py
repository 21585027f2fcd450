"""Every zoo model and corpus inference program on ``pd.GPUPlace(0)``, as loaded and as the
inference passes rewrite it: the outputs PaddlePaddle recorded on its CPU, to float32 rounding
(a GPU sums in another order). On a real device every model runs; on tests/fake_cupy.py (CI)
two small ones, so that this path stays exercised where there is no GPU.
"""

import numpy as np
import pytest

import paddle_nb as pd
from interop import run_corpus
from paddle_nb import passes
from tests.conftest import GPU_PRESENT
from tests.passes.test_models import SOURCES, models

pytestmark = pytest.mark.gpu
ON_THE_FAKE = ("zoo-ppcls_pplcnet_x0_25", "corpus-lstm")


def _on_device(model, gpu, xp):
    """A scope holding the model's parameters on the device, and its feeds there."""
    scope = pd.Scope()
    for name in model.scope.local_var_names():
        tensor = model.scope.find_var(name).get_tensor()
        if tensor.is_allocated():
            scope.var(name).get_tensor().set(tensor.numpy(), gpu)
    return scope, {k: xp.asarray(np.asarray(v)) for k, v in model.feed.items()}


@pytest.mark.parametrize("where, name", models())
def test_the_model_runs_on_the_gpu_to_paddles_outputs(where, name, device):
    if not GPU_PRESENT and f"{where}-{name}" not in ON_THE_FAKE:
        pytest.skip("on the fake CuPy only two models run (the rest need a device)")
    model = run_corpus.Inference(pd, SOURCES[where], name,
                                 run_corpus.manifest(SOURCES[where])[name])
    gpu = pd.GPUPlace(0)
    exe = pd.Executor(gpu)
    scope, feed = _on_device(model, gpu, device)
    fast = passes.apply_passes(model.program, scope)
    for program in (model.program, fast):
        got = exe.run(program, feed=feed, fetch_list=model.fetches, scope=scope)
        for fetch, value, want in zip(model.fetches, got, model.want):
            assert type(value) is np.ndarray, fetch
            np.testing.assert_allclose(value.reshape(np.shape(want)), want, rtol=1e-3,
                                       atol=1e-4, err_msg=f"{name}: {fetch} on the GPU")
