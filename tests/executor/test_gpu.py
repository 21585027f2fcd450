"""The same programs on ``pd.GPUPlace(0)``: training, control flow, records, saving.

Each test runs with the ``device`` fixture (tests/conftest.py): real CuPy where a device is
present, and everywhere tests/fake_cupy.py, whose device arrays refuse to mix with NumPy's, so
a feed not moved to the device, a kernel reaching for NumPy, or a fetch not brought back
fails here as it would on a GPU. Results must equal the CPU's (exactly on the fake, which
computes with NumPy; to float32 rounding on a real device).
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import FeedError, OpRunError
from tests.layers import counted_while, elman_rnn, row_ifelse

pytestmark = pytest.mark.gpu

CPU = pd.CPUPlace()


def _mlp(optimizer):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[8])
        label = pd.layers.data("label", shape=[1], dtype="int64")
        hidden = pd.layers.fc(x, 16, act="relu")
        hidden = pd.layers.dropout(hidden, 0.0)
        logits = pd.layers.fc(hidden, 3)
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
        optimizer.minimize(loss)
    return main, startup, loss


def _same_start(main, startup, places):
    """A scope per place, each holding the same initial values (made on the CPU)."""
    cpu_scope = pd.Scope()
    pd.Executor(CPU).run(startup, scope=cpu_scope)
    scopes = []
    for place in places:
        scope = pd.Scope()
        for var in main.global_block().vars.values():
            if var.persistable and cpu_scope.find_var(var.name) is not None:
                value = cpu_scope.find_var(var.name).get_tensor().numpy()
                scope.var(var.name).get_tensor().set(value, place)
        scopes.append(scope)
    return scopes


def _batches(n=4):
    rng = np.random.default_rng(0)
    return [{"x": rng.standard_normal((6, 8)).astype("float32"),
             "label": rng.integers(0, 3, (6, 1)).astype("int64")} for _ in range(n)]


@pytest.mark.parametrize("make", [lambda: pd.optimizer.SGD(0.1),
                                  lambda: pd.optimizer.Momentum(0.1, 0.9),
                                  lambda: pd.optimizer.Adam(0.01)],
                         ids=["sgd", "momentum", "adam"])
def test_training_on_the_gpu_matches_the_cpu(device, make):
    main, startup, loss = _mlp(make())
    gpu = pd.GPUPlace(0)
    cpu_scope, gpu_scope = _same_start(main, startup, [CPU, gpu])
    cpu_exe, gpu_exe = pd.Executor(CPU), pd.Executor(gpu)
    for feed in _batches():
        want, = cpu_exe.run(main, feed=feed, fetch_list=[loss], scope=cpu_scope)
        got, = gpu_exe.run(main, feed=feed, fetch_list=[loss], scope=gpu_scope)
        assert type(got) is np.ndarray                    # fetches come back to the host
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    for param in main.global_block().all_parameters():
        tensor = gpu_scope.find_var(param.name).get_tensor()
        assert isinstance(tensor.array(), device.ndarray)   # parameters stay on the device
        assert tensor.place == gpu
        np.testing.assert_allclose(tensor.numpy(),
                                   cpu_scope.find_var(param.name).get_tensor().numpy(),
                                   rtol=2e-5, atol=1e-6)


def test_feeds_may_be_host_or_device_arrays_and_are_checked_alike(device):
    main, startup, loss = _mlp(pd.optimizer.SGD(0.1))
    gpu_scope, = _same_start(main, startup, [pd.GPUPlace(0)])
    exe = pd.Executor(pd.GPUPlace(0))
    feed = _batches(1)[0]
    host, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[loss], scope=gpu_scope)
    on_device = {k: device.asarray(v) for k, v in feed.items()}
    again, = exe.run(main.clone(for_test=True), feed=on_device, fetch_list=[loss],
                     scope=gpu_scope)
    np.testing.assert_array_equal(host, again)
    with pytest.raises(FeedError, match=r"feed 'x': expected shape \[-1, 8\]"):
        exe.run(main, feed={**feed, "x": np.zeros((6, 7), "float32")}, fetch_list=[loss],
                scope=gpu_scope)
    tensor, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[loss],
                      scope=gpu_scope, return_numpy=False)
    np.testing.assert_array_equal(tensor.numpy(), host)


def test_a_failed_run_on_the_gpu_leaves_the_parameters_as_they_were(device):
    main, startup, loss = _mlp(pd.optimizer.SGD(0.1))
    gpu_scope, = _same_start(main, startup, [pd.GPUPlace(0)])
    before = {p.name: gpu_scope.find_var(p.name).get_tensor().numpy()
              for p in main.global_block().all_parameters()}
    feed = _batches(1)[0]
    feed["label"][2, 0] = 7                         # not a class: the loss op fails
    with pytest.raises(OpRunError, match="softmax_with_cross_entropy"):
        pd.Executor(pd.GPUPlace(0)).run(main, feed=feed, fetch_list=[loss], scope=gpu_scope)
    for name, value in before.items():
        np.testing.assert_array_equal(gpu_scope.find_var(name).get_tensor().numpy(), value)


def _rnn_program():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x, h0, hs = elman_rnn(steps=4, batch=3, width=2, hidden=5)
        loss = pd.layers.mean(hs)
        pd.optimizer.SGD(0.5).minimize(loss)
    return main, startup, loss


@pytest.mark.parametrize("observed", [False, True], ids=["framed", "recorded"])
def test_an_rnn_trains_on_the_gpu_as_on_the_cpu_with_or_without_a_record(device, observed):
    main, startup, loss = _rnn_program()
    gpu = pd.GPUPlace(0)
    cpu_scope, gpu_scope = _same_start(main, startup, [CPU, gpu])
    cpu_exe, gpu_exe = pd.Executor(CPU), pd.Executor(gpu)
    records = []
    if observed:
        gpu_exe.subscribe(records.append)
    rng = np.random.default_rng(1)
    for _ in range(3):
        feed = {"x": rng.standard_normal((4, 3, 2)), "h0": rng.standard_normal((3, 5))}
        want, = cpu_exe.run(main, feed=feed, fetch_list=[loss], scope=cpu_scope)
        got, = gpu_exe.run(main, feed=feed, fetch_list=[loss], scope=gpu_scope)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    for name in ("W", "U", "b"):
        np.testing.assert_allclose(gpu_scope.find_var(name).get_tensor().numpy(),
                                   cpu_scope.find_var(name).get_tensor().numpy(), rtol=1e-12)
    assert gpu_scope.kids == []
    if observed:
        run, = records[-1].scopes.kids
        steps = [k for k in run.kids if k.label.startswith("step")]
        assert len(steps) == 4
        allocated = [v for k in steps for v in k.vars if v.state == "allocated"]
        assert allocated and {v.place for v in allocated} == {str(gpu)}


def test_ifelse_and_while_run_on_the_gpu(device):
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[3], dtype="float64")
        c = pd.layers.data("c", shape=[1], dtype="bool")
        picked, = row_ifelse(c, [a], lambda rows: pd.layers.scale(rows, 2.0),
                             lambda rows: rows * rows)
        s = pd.layers.fill_constant([1], "int64", 0)
        counted_while(5, lambda i: pd.layers.assign(s + i, s))
    av = np.arange(12, dtype="float64").reshape(4, 3)
    mask = np.array([[True], [False], [False], [True]])
    got, total = pd.Executor(pd.GPUPlace(0)).run(prog, feed={"a": av, "c": mask},
                                                 fetch_list=[picked, s], scope=pd.Scope())
    np.testing.assert_array_equal(got, np.where(mask, 2 * av, av * av))
    assert total.tolist() == [10]


def test_parameters_saved_from_the_gpu_load_on_the_cpu(device, tmp_path):
    main, startup, loss = _mlp(pd.optimizer.SGD(0.1))
    gpu = pd.GPUPlace(0)
    gpu_scope, = _same_start(main, startup, [gpu])
    gpu_exe = pd.Executor(gpu)
    gpu_exe.run(main, feed=_batches(1)[0], fetch_list=[loss], scope=gpu_scope)
    pd.io.save_params(gpu_exe, str(tmp_path), main_program=main, scope=gpu_scope)
    cpu_scope = pd.Scope()
    pd.io.load_params(pd.Executor(CPU), str(tmp_path), main_program=main, scope=cpu_scope)
    back_scope = pd.Scope()
    pd.io.load_params(gpu_exe, str(tmp_path), main_program=main, scope=back_scope)
    for param in main.global_block().all_parameters():
        saved = gpu_scope.find_var(param.name).get_tensor().numpy()
        np.testing.assert_array_equal(cpu_scope.find_var(param.name).get_tensor().numpy(), saved)
        loaded = back_scope.find_var(param.name).get_tensor()
        assert isinstance(loaded.array(), device.ndarray)
        np.testing.assert_array_equal(loaded.numpy(), saved)
