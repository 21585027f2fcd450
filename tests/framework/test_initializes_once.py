"""The preamble's mark travels with the program.

A program built without a startup program holds its parameters' initializers at the head of
its global block (the preamble); each runs once per scope. Which ops those are is decided
when the program is built and written into the op's desc (the attribute
``initializes_once``), so every copy of the program, in memory or through bytes and files,
has the same preamble, and a parsed program trains without re-initializing its parameters.
PaddlePaddle 2.6.2 keeps the attribute as it came (``interop/check_initializes_once.py``).
"""
import numpy as np

import paddle_nb as pd
from paddle_nb.framework.program import INITIALIZES_ONCE


def _trained_program(startup=None):
    prog = pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.fc(x, 2, act="relu")
        loss = pd.layers.mean(h)
        pd.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return prog, h, loss


def _marks(program):
    return [program.initializes_once(op) for op in program.global_block().ops]


def test_the_preamble_is_marked_in_the_descs():
    prog, _, _ = _trained_program()
    n = prog.preamble_length()
    marks = _marks(prog)
    assert n >= 3 and marks == [True] * n + [False] * (len(marks) - n)
    assert all(op.attr(INITIALIZES_ONCE) is True for op in prog.global_block().ops[:n])
    assert not any(op.has_attr(INITIALIZES_ONCE) for op in prog.global_block().ops[n:])


def test_parse_clone_and_prune_keep_the_mark_of_every_op():
    prog, h, _ = _trained_program()
    parsed = pd.Program.parse(prog.serialize())
    assert _marks(parsed) == _marks(prog)
    assert parsed.preamble_length() == prog.preamble_length()
    assert parsed.serialize() == prog.serialize()
    assert _marks(parsed.clone()) == _marks(prog)
    pruned = parsed.prune([h])
    assert _marks(pruned) == [op.type in ("uniform_random", "fill_constant")
                              for op in pruned.global_block().ops]
    assert pruned.preamble_length() == 2


def test_a_program_with_a_startup_program_marks_nothing():
    startup = pd.Program()
    prog, _, _ = _trained_program(startup)
    for program in (prog, startup, pd.Program.parse(startup.serialize())):
        assert program.preamble_length() == 0
        assert not any(op.has_attr(INITIALIZES_ONCE) for op in program.global_block().ops)


def test_a_parsed_program_initializes_once_per_scope():
    prog, h, loss = _trained_program()
    parsed = pd.Program.parse(prog.serialize())
    exe, scope = pd.Executor(), pd.Scope()
    feed = {"x": np.ones((2, 3), "float32")}
    exe.run(parsed, feed=feed, fetch_list=[loss], scope=scope)
    w = np.full((3, 2), 0.5, "float32")
    scope.var("fc_0.w_0").get_tensor().set(w)
    exe.run(parsed, feed=feed, fetch_list=[loss], scope=scope)
    after = np.asarray(scope.find_var("fc_0.w_0").get_tensor())
    # one SGD step from the values set, not from fresh random ones
    np.testing.assert_allclose(after, w - 0.1 * np.full((3, 2), 0.5, "float32"), rtol=1e-6)


def test_the_files_of_io_keep_the_mark(tmp_path):
    prog, h, _ = _trained_program()
    pd.io.save(prog, tmp_path / "main.pdmodel")
    loaded = pd.io.load_program(tmp_path / "main.pdmodel")
    assert _marks(loaded) == _marks(prog)
    pd.static.save(prog, str(tmp_path / "ckpt"), scope=_initialized_scope(prog))
    data = pd.static.load_from_file(str(tmp_path / "ckpt.pdmodel"))
    assert _marks(pd.static.deserialize_program(data)) == _marks(prog)


def test_an_inference_model_holds_no_initializer(tmp_path):
    prog, h, _ = _trained_program()
    exe, scope = pd.Executor(), _initialized_scope(prog)
    pd.io.save_inference_model(str(tmp_path / "inf"), ["x"], [h], exe, main_program=prog,
                               scope=scope)
    loaded, feeds, fetches = pd.io.load_inference_model(str(tmp_path / "inf"), exe, scope=scope)
    assert loaded.preamble_length() == 0
    assert not any(op.has_attr(INITIALIZES_ONCE) for op in loaded.global_block().ops)
    assert feeds == ["x"] and [op.type for op in loaded.global_block().ops][:2] == ["feed", "mul"]


def _initialized_scope(prog):
    scope = pd.Scope()
    pd.Executor().run(prog, feed={"x": np.ones((1, 3), "float32")}, scope=scope)
    return scope


def test_the_mark_is_bookkeeping_that_printing_leaves_out():
    from paddle_nb.framework.printer import HIDDEN_ATTRS
    prog, _, _ = _trained_program()
    assert INITIALIZES_ONCE in HIDDEN_ATTRS and INITIALIZES_ONCE not in str(prog)


def test_a_program_paddlepaddle_wrote_back_keeps_the_mark():
    """``interop/check_initializes_once.py`` gave a marked program to PaddlePaddle 2.6.2,
    which parsed, cloned and serialized it again (``initializes_once.pb``, call sites
    removed). Read back here it has the same preamble, and training it in one scope runs
    the initializers once: the second step starts from the first step's weights."""
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26"
    prog = pd.Program.parse((path / "initializes_once.pb").read_bytes())
    ops = prog.global_block().ops
    assert prog.preamble_length() == 3
    assert [prog.initializes_once(op) for op in ops[:3]] == [True] * 3
    assert not any(prog.initializes_once(op) for op in ops[3:])
    scope, exe = pd.Scope(), pd.Executor()
    feed = {"x": np.ones((2, 3), "float32")}
    exe.run(prog, feed=feed, scope=scope)
    weight = next(n for n in scope.local_var_names() if n.endswith(".w_0"))
    tensor = scope.find_var(weight).get_tensor()
    tensor.set(np.full(tensor.numpy().shape, 0.5, "float32"), pd.CPUPlace())
    exe.run(prog, feed=feed, scope=scope)
    # one SGD step (learning rate 0.1) from 0.5, not a fresh random initialization
    np.testing.assert_allclose(tensor.numpy(), 0.5, atol=0.1)
    assert not np.array_equal(tensor.numpy(), np.full(tensor.numpy().shape, 0.5))
