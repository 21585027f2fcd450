"""Ctrl-C at any point of a save leaves the old save or the new one, whole, and nothing else.

A Ctrl-C reaches Python as a call of the SIGINT handler between two bytecodes of the main
thread. ``interrupted(save, n)`` does the same at the n-th line or call event of the save
(``sys.settrace`` sees every Python line the save runs: paddle_nb's, ``tempfile``'s,
``shutil``'s): it calls the handler installed at that moment, Python's own (which raises
KeyboardInterrupt) or the one a save installs while it must not be stopped. After each
point the test checks the folder: every file is byte for byte the old save's or every
file is the new save's, no temporary (``.*.tmp``, ``.*.tmp-*``, ``.*.old-*``) is left, the
SIGINT handler is Python's again, and the KeyboardInterrupt reached the caller.

Also here: a full disk (ENOSPC) or a failed rename between the two files of PaddlePaddle
2.x's ``<prefix>.pdmodel`` / ``<prefix>.pdiparams`` leaves both old files; a real SIGINT
sent during a save.
"""

import contextlib
import errno
import gc
import os
import signal
import sys

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import SaveLoadError
from paddle_nb.io import atomic, interrupts
from paddle_nb.io import params as params_module
from paddle_nb.ops.machinery import tensor_stream

POINTS_PER_SAVE = 70          # x 10 save kinds: up to 700 interrupt points


@pytest.fixture(autouse=True)
def python_sigint_handler():
    """Python's own SIGINT handler during each test (a runner may install another)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


class Model:
    """x[N,3] -> fc(4, relu) -> fc(2), trained with Adam one step (so that persistables
    include moments and counters); ``renew()`` gives every persistable other values."""

    def __init__(self):
        self.main, self.startup = pd.Program(), pd.Program()
        with pd.program_guard(self.main, self.startup):
            self.x = pd.layers.data("x", shape=[3])
            hidden = pd.layers.fc(self.x, 4, act="relu")
            self.out = pd.layers.fc(hidden, 2)
            loss = pd.layers.mean(self.out)
            pd.optimizer.Adam(0.01).minimize(loss)
        self.test_program = self.main.clone(for_test=True)
        self.exe = pd.Executor(pd.CPUPlace())
        self.scope = pd.Scope()
        self.exe.run(self.startup, scope=self.scope)
        self.exe.run(self.main, feed={"x": np.ones((2, 3), "float32")}, scope=self.scope)
        self.program = self.main            # what io.save writes: another one after renew()

    def renew(self):
        self.program = self.test_program if self.program is self.main else self.main
        for var in self.main.list_vars():
            if var.persistable and var.type == pd.framework.variable.VarType.LOD_TENSOR:
                held = self.scope.find_var(var.name)
                if held is not None and held.get_tensor().is_allocated():
                    tensor = held.get_tensor()
                    tensor.set(tensor.numpy() + np.ones((), tensor.numpy().dtype))


def save_kinds(model, root):
    """{kind: save()}: every way paddle_nb saves, each into its own place under ``root``."""
    exe, main, scope = model.exe, model.main, model.scope
    test, x, out = model.test_program, "x", model.out.name
    static = pd.static if hasattr(pd, "static") else None
    kinds = {
        "save_persistables": lambda: pd.io.save_persistables(exe, str(root / "a"), main,
                                                             scope=scope),
        "save_persistables(filename)": lambda: pd.io.save_persistables(
            exe, str(root / "b"), main, scope=scope, filename="all.bin"),
        "save_params": lambda: pd.io.save_params(exe, str(root / "c"), main, scope=scope),
        "save_vars": lambda: pd.io.save_vars(exe, str(root / "d"), main, scope=scope,
                                             vars=[v.name for v in main.all_parameters()][:2]),
        "save_inference_model": lambda: pd.io.save_inference_model(
            str(root / "e"), [x], [out], exe, test, scope=scope),
        "save_inference_model(params_filename)": lambda: pd.io.save_inference_model(
            str(root / "f"), [x], [out], exe, test, params_filename="params", scope=scope),
        "save_inference_model(prefix)": lambda: pd.io.save_inference_model(
            str(root / "g" / "model"), [x], [out], exe, test, scope=scope, prefix=True),
        "io.save(program)": lambda: pd.io.save(model.program, str(root / "h" / "main.pb")),
    }
    if static is not None:
        kinds["paddle.static.save_inference_model"] = lambda: static.save_inference_model(
            str(root / "i" / "model"), [test.global_block().var(x)],
            [test.global_block().var(out)], exe, program=test, scope=scope)
        kinds["paddle.static.save"] = lambda: static.save(main, str(root / "j" / "ckpt"),
                                                         scope=scope)
    return kinds


def snapshot(root):
    """{relative path: bytes} of every file under ``root``."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def leftovers(root):
    return [str(p.relative_to(root)) for p in root.rglob(".*")]


def count_events(save):
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer
    with no_collection():
        sys.settrace(tracer)
        try:
            save()
        finally:
            sys.settrace(None)
    return count


@contextlib.contextmanager
def no_collection():
    """The save's own events only: a garbage collection would run finalizers of earlier
    tests' objects in the middle of it, and move every later event (an interrupt that lands
    in a finalizer is delivered again later: tests/core/test_tensor.py)."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def interrupted(save, n):
    """Run ``save`` with a Ctrl-C at its ``n``-th trace event: (whether KeyboardInterrupt
    reached the caller, whether the save got as far as event ``n``)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        if count == n:
            signal.getsignal(signal.SIGINT)(signal.SIGINT, frame)
        return tracer
    with no_collection():
        sys.settrace(tracer)
        try:
            save()
        except KeyboardInterrupt:
            return True, count >= n
        finally:
            sys.settrace(None)
    return False, count >= n


def points(total, k):
    """``k`` event numbers spread over 1..total, the first and last ones included."""
    if total <= k:
        return list(range(1, total + 1))
    return sorted({1 + round(i * (total - 1) / (k - 1)) for i in range(k)})


def test_ctrl_c_at_any_point_of_any_save_leaves_the_old_save_or_the_new_one(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)     # (flushing to disk: not tested here)
    model = Model()
    tried = 0
    for kind, save in save_kinds(model, tmp_path).items():
        save()                                      # the old save
        old = snapshot(tmp_path)
        model.renew()
        total = count_events(save)                  # the new save, counted
        new = snapshot(tmp_path)
        assert new != old, kind
        for n in points(total, POINTS_PER_SAVE):
            for name, data in old.items():          # back to the old save
                (tmp_path / name).write_bytes(data)
            raised, reached = interrupted(save, n)
            now = snapshot(tmp_path)
            assert now in (old, new), f"{kind}, interrupt at event {n}: a mix of saves"
            assert leftovers(tmp_path) == [], f"{kind}, interrupt at event {n}"
            assert raised == reached, f"{kind}, event {n}: the interrupt was lost"
            assert raised or now == new, kind
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            assert interrupts._STATE.depth == 0 and interrupts._STATE.pending is None
            tried += 1
        for name, data in new.items():
            (tmp_path / name).write_bytes(data)
    print(f"{tried} interrupt points")
    assert tried >= 600


def test_ctrl_c_during_a_save_into_the_working_directory_waits_for_the_last_file(
        tmp_path, monkeypatch):
    """The working directory cannot be swapped, so its files are written in place, one by
    one: Ctrl-C must wait until all of them are written."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    model = Model()
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")

    def save():
        pd.io.save_persistables(model.exe, ".", model.main, scope=model.scope)

    save()
    old = snapshot(tmp_path)
    model.renew()
    total = count_events(save)
    new = snapshot(tmp_path)
    for n in points(total, 12):
        for name, data in old.items():
            (tmp_path / name).write_bytes(data)
        raised, reached = interrupted(save, n)
        assert snapshot(tmp_path) in (old, new) and leftovers(tmp_path) == [], n
        assert raised == reached


def test_what_an_interrupted_save_leaves_loads(tmp_path):
    model = Model()
    model_dir = tmp_path / "m"
    pd.io.save_inference_model(str(model_dir), ["x"], [model.out.name], model.exe,
                               model.test_program, scope=model.scope)
    model.renew()

    def save():
        pd.io.save_inference_model(str(model_dir), ["x"], [model.out.name], model.exe,
                                   model.test_program, scope=model.scope)

    total = count_events(save)
    for n in points(total, 8):
        interrupted(save, n)
        program, feeds, fetches = pd.io.load_inference_model(str(model_dir), model.exe,
                                                             scope=pd.Scope())
        assert feeds == ["x"] and [v.name for v in fetches] == [model.out.name]


def test_a_real_sigint_during_a_save_is_taken_after_a_whole_write(tmp_path, monkeypatch):
    model = Model()
    write = tensor_stream.write_tensor

    def write_and_press_ctrl_c(f, array, lod=()):
        os.kill(os.getpid(), signal.SIGINT)       # arrives while the save writes its files
        write(f, array, lod)
    monkeypatch.setattr(params_module, "write_tensor", write_and_press_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        pd.io.save_persistables(model.exe, str(tmp_path / "ckpt"), model.main, scope=model.scope)
    assert leftovers(tmp_path) == [] and not (tmp_path / "ckpt").exists()


def test_a_user_sigint_handler_is_called_once_and_the_save_completes(tmp_path, monkeypatch):
    model = Model()
    calls = []
    signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    write = tensor_stream.write_tensor

    def write_and_press_ctrl_c(f, array, lod=()):
        if not calls:
            os.kill(os.getpid(), signal.SIGINT)
        write(f, array, lod)
    monkeypatch.setattr(params_module, "write_tensor", write_and_press_ctrl_c)
    names = pd.io.save_persistables(model.exe, str(tmp_path / "ckpt"), model.main,
                                    scope=model.scope)
    assert calls == [signal.SIGINT]
    assert sorted(os.listdir(tmp_path / "ckpt")) == sorted(names)


# -- the two files of a path-prefix inference model ----------------------------------------------
def prefix_save(model, prefix):
    pd.io.save_inference_model(str(prefix), ["x"], [model.out.name], model.exe,
                               model.test_program, scope=model.scope, prefix=True)


def test_a_full_disk_between_pdiparams_and_pdmodel_leaves_both_old_files(tmp_path, monkeypatch):
    model = Model()
    prefix_save(model, tmp_path / "model")
    old = snapshot(tmp_path)
    model.renew()
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.f, name)

    def fdopen(fd, mode="r", *args, **kwargs):       # the second file's disk is full
        f = real_fdopen(fd, mode, *args, **kwargs)
        return FullDisk(f) if "model.pdmodel" in os.readlink(f"/proc/self/fd/{fd}") else f
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd to tell the two files apart")
    monkeypatch.setattr(atomic.os, "fdopen", fdopen)
    with pytest.raises(SaveLoadError, match="No space left"):
        prefix_save(model, tmp_path / "model")
    assert snapshot(tmp_path) == old and leftovers(tmp_path) == []


def test_a_failed_second_rename_puts_the_first_file_back(tmp_path, monkeypatch):
    model = Model()
    prefix_save(model, tmp_path / "model")
    old = snapshot(tmp_path)
    model.renew()
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith(".pdmodel") and ".old-" not in str(src):
            raise OSError(errno.EIO, "Input/output error")
        real_replace(src, dst)
    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(SaveLoadError, match="Input/output error"):
        prefix_save(model, tmp_path / "model")
    assert snapshot(tmp_path) == old and leftovers(tmp_path) == []


def test_a_model_without_parameters_removes_the_old_params_file_with_the_new_model(tmp_path):
    model = Model()
    prefix_save(model, tmp_path / "model")
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.relu(x)
    pd.io.save_inference_model(str(tmp_path / "model"), ["x"], [y.name], model.exe, main,
                               prefix=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pdmodel"]


def test_interrupts_are_not_deferred_outside_a_save():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with interrupts.deferred_interrupts():
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        signal.getsignal(signal.SIGINT)(signal.SIGINT, None)     # recorded, not raised
        with pytest.raises(KeyboardInterrupt):
            interrupts.interruption_point()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
