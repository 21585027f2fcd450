"""paddle.static.nn's cond, case, switch_case and while_loop: values against Python's own
if/elif/while, names from the 2.x generator, and the errors for misuse."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.errors import OpBuildError
from paddle_nb.framework import unique_name


def _run(main, feed, fetches):
    return static.Executor().run(main, feed=feed, fetch_list=fetches, scope=pd.Scope())


def test_cond_without_results_and_with_a_list():
    main = pd.Program()
    with unique_name.guard(), static.program_guard(main, pd.Program()):
        p = static.data("p", [1], "bool")
        x = static.data("x", [2])
        assert static.nn.cond(p, lambda: None, None) is None
        pair = static.nn.cond(p, lambda: [x * 2.0, x + 1.0], lambda: [x * 3.0, x + 2.0])
    assert isinstance(pair, list) and len(pair) == 2
    x = np.array([1, 2], "float32")
    for flag, want in ((True, [x * 2, x + 1]), (False, [x * 3, x + 2])):
        got = _run(main, {"p": np.array([flag]), "x": x}, pair)
        np.testing.assert_allclose(got[0], want[0])
        np.testing.assert_allclose(got[1], want[1])


def test_cond_refuses_what_is_not_a_condition():
    with static.program_guard(pd.Program(), pd.Program()):
        x = static.data("x", [2])
        with pytest.raises(TypeError, match="bool Variable"):
            static.nn.cond(True, lambda: x, lambda: x)
        with pytest.raises(OpBuildError, match="must be a bool tensor"):
            static.nn.cond(x, lambda: x, lambda: x)
        with pytest.raises(TypeError, match="true_fn must be callable"):
            static.nn.cond(static.data("p", [1], "bool"), x, lambda: x)
        with pytest.raises(OpBuildError, match="returns 1 values and false_fn 2"):
            static.nn.cond(static.data("q", [1], "bool"), lambda: x, lambda: [x, x])


def test_case_takes_the_first_true_pair():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        x = static.data("x", [1])
        flags = [static.data(f"p{k}", [1], "bool") for k in range(3)]
        out = static.nn.case([(flags[k], lambda k=k: x + float(k)) for k in range(3)],
                             default=lambda: x - 1.0)
    for bits in ((0, 1, 1), (0, 0, 1), (1, 1, 0), (0, 0, 0)):
        feed = {"x": np.array([10], "float32"), **{f"p{k}": np.array([bool(b)])
                                                    for k, b in enumerate(bits)}}
        want = next((10.0 + k for k, b in enumerate(bits) if b), 9.0)
        np.testing.assert_allclose(_run(main, feed, [out])[0], [want])
    with static.program_guard(pd.Program(), pd.Program()):
        with pytest.raises(TypeError, match=r"\(pred, fn\) tuple"):
            static.nn.case([flags[0]])
        with pytest.raises(TypeError, match="default must be callable"):
            static.nn.case([(static.data("p", [1], "bool"), lambda: x)], default=3)


def test_switch_case_casts_its_index_and_falls_back_to_the_largest_key():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        k = static.data("k", [1], "int32")
        x = static.data("x", [1])
        out = static.nn.switch_case(k, [(1, lambda: x * 10.0), (5, lambda: x * 50.0)])
    for index, want in ((1, 10.0), (5, 50.0), (3, 50.0)):
        got = _run(main, {"k": np.array([index], "int32"), "x": np.array([1], "float32")}, [out])
        np.testing.assert_allclose(got[0], [want])
    assert main.global_block().ops[0].type == "cast"
    with static.program_guard(pd.Program(), pd.Program()):
        with pytest.raises(TypeError, match="int32, int64 or uint8"):
            static.nn.switch_case(static.data("f", [1]), [lambda: x])
        with pytest.raises(TypeError, match="distinct ints"):
            static.nn.switch_case(static.data("i", [1], "int64"), [(1, lambda: x),
                                                                    (1, lambda: x)])


def test_while_loop_counts_like_python():
    main = pd.Program()
    with static.program_guard(main, pd.Program()):
        i = pd.layers.fill_constant([1], "int64", 0)
        total = pd.layers.fill_constant([1], "float32", 0.0)
        limit = pd.layers.fill_constant([1], "int64", 5)

        def body(i, total):
            return i + 1, total + pd.layers.cast(i, "float32")

        i_out, total_out = static.nn.while_loop(lambda i, t: pd.layers.less_than(i, limit),
                                                body, (i, total))
    got = _run(main, {}, [i_out, total_out])
    assert got[0][0] == 5 and got[1][0] == sum(range(5))
    with static.program_guard(pd.Program(), pd.Program()):
        with pytest.raises(TypeError, match="non-empty list"):
            static.nn.while_loop(lambda: None, lambda: None, [])
