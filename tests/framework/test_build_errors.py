"""Build-time errors point at the user's line, and a failed append changes nothing.

A shape that does not fit raises ``ShapeError`` (an ``OpBuildError``) at the line that
built the op, naming the op, the block and the inputs' shapes; bad attributes, slots and
op types are refused with what was expected. The line checked is read from the
exception's traceback: the frame of this file is the offending call.
"""
import os

import pytest

import paddle_nb as pd
from paddle_nb.errors import AttrError, OpBuildError, OpNotFoundError, ShapeError

HERE = os.path.basename(__file__)


def _at_this_line(info):
    """``test_build_errors.py:<line>``: the line of this file the exception passed through."""
    tb = info.tb
    while tb is not None and os.path.basename(tb.tb_frame.f_code.co_filename) != HERE:
        tb = tb.tb_next
    assert tb is not None
    return f"{HERE}:{tb.tb_lineno}"


def _state(prog):
    return [(len(b.ops), len(b.vars), len(b.desc.ops), len(b.desc.vars)) for b in prog.blocks], \
        prog.serialize()


@pytest.fixture
def prog():
    prog = pd.Program()
    with pd.program_guard(prog):
        yield prog


# -- shapes ----------------------------------------------------------------------------------------
def test_matmul_operator_shape_mismatch_names_op_block_shapes_and_line(prog):
    x = pd.layers.data("x", shape=[3])
    w = prog.global_block().create_parameter(name="w", shape=[4, 5])
    before = _state(prog)
    with pytest.raises(ShapeError) as info:
        x @ w
    message = str(info.value)
    assert isinstance(info.value, OpBuildError) and isinstance(info.value, ValueError)
    assert "'matmul_v2'" in message and "block 0" in message
    assert "[-1, 3]" in message and "[4, 5]" in message
    assert _at_this_line(info) in message
    assert "x @ w" in message                     # the source line itself
    assert _state(prog) == before


def test_a_shape_error_in_a_sub_block_names_that_block(prog):
    x = pd.layers.data("x", shape=[3])
    y = pd.layers.data("y", shape=[4])
    with prog._block_guard():
        with pytest.raises(ShapeError) as info:
            pd.layers.elementwise_mul(x, y)
    assert "'elementwise_mul' in block 1" in str(info.value)
    assert _at_this_line(info) in str(info.value)


@pytest.mark.parametrize("build", [
    lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
    lambda x, y: pd.layers.elementwise_add(x, y), lambda x, y: pd.layers.elementwise_max(x, y),
])
def test_elementwise_shape_mismatch_names_op_block_shapes_and_line(prog, build):
    x = pd.layers.data("x", shape=[3])
    y = pd.layers.data("y", shape=[4])
    before = _state(prog)
    with pytest.raises(ShapeError) as info:
        build(x, y)
    message = str(info.value)
    assert "'elementwise_" in message and "block 0" in message
    assert "x float32[-1, 3]" in message and "y float32[-1, 4]" in message
    assert f"{HERE}:{build.__code__.co_firstlineno}" in message    # the lambda's line
    assert _state(prog) == before


def test_elementwise_axis_mismatch_points_at_the_layer_call(prog):
    x = pd.layers.data("x", shape=[3, 4])
    b = pd.layers.data("b", shape=[4], append_batch_size=False)
    with pytest.raises(ShapeError) as info:
        pd.layers.elementwise_add(x, b, axis=1)
    message = str(info.value)
    assert "'elementwise_add'" in message and "block 0" in message
    assert "[-1, 3, 4]" in message and "b float32[4]" in message
    assert _at_this_line(info) in message


def test_fc_given_a_wrong_input_rank_points_at_the_fc_call(prog):
    x = pd.layers.data("v", shape=[3], append_batch_size=False)      # rank 1: no batch
    with pytest.raises(ShapeError) as info:
        pd.layers.fc(x, 2)
    message = str(info.value)
    assert "'mul'" in message and "block 0" in message and "v float32[3]" in message
    assert _at_this_line(info) in message
    assert "pd.layers.fc(x, 2)" in message


def test_fc_given_too_few_dimensions_to_flatten_points_at_the_fc_call(prog):
    x = pd.layers.data("x", shape=[3, 2])
    with pytest.raises(ShapeError) as info:
        pd.layers.fc(x, 2, num_flatten_dims=3)
    assert "[-1, 3, 2]" in str(info.value)
    assert _at_this_line(info) in str(info.value)


def test_a_layer_shape_error_inside_a_helper_points_at_the_users_call(prog):
    def my_block(v):                                       # the user's own helper function
        return pd.layers.matmul(v, v)
    x = pd.layers.data("x", shape=[3, 4], append_batch_size=False)
    with pytest.raises(ShapeError) as info:
        my_block(x)
    # the innermost user frame (the helper's line) is the one reported
    assert "return pd.layers.matmul(v, v)" in str(info.value)
    assert HERE in str(info.value)


def test_reshape_to_an_impossible_shape_is_a_shape_error(prog):
    x = pd.layers.data("x", shape=[2, 3], append_batch_size=False)
    with pytest.raises(ShapeError) as info:
        pd.layers.reshape(x, [4, -1])
    assert "'reshape2'" in str(info.value) and "[2, 3]" in str(info.value)
    assert _at_this_line(info) in str(info.value)


# -- attributes, slots, op types -------------------------------------------------------------------
def test_an_unknown_attribute_is_refused_with_a_suggestion(prog):
    x = pd.layers.data("x", shape=[3])
    before = _state(prog)
    with pytest.raises(AttrError) as info:
        prog.global_block().append_op("scale", inputs={"X": x}, attrs={"scael": 2.0})
    message = str(info.value)
    assert "'scale'" in message and "'scael'" in message and "did you mean 'scale'" in message
    assert _at_this_line(info) in message
    assert _state(prog) == before


def test_an_attribute_of_the_wrong_type_names_what_was_expected(prog):
    x = pd.layers.data("x", shape=[3])
    before = _state(prog)
    with pytest.raises(AttrError, match=r"'scale'.*expects float, got 'two' \(str\)"):
        prog.global_block().append_op("scale", inputs={"X": x}, attrs={"scale": "two"})
    with pytest.raises(AttrError, match="'dim'"):
        prog.global_block().append_op("reduce_sum", inputs={"X": x}, attrs={"dim": 1})
    assert _state(prog) == before


def test_a_missing_required_attribute_is_refused(prog):
    before = _state(prog)
    with pytest.raises(AttrError) as info:
        prog.global_block().append_op("load", outputs={"Out": "c"})
    assert "'load'" in str(info.value) and "'file_path' (str) is required" in str(info.value)
    assert _at_this_line(info) in str(info.value)
    assert _state(prog) == before


def test_an_unknown_slot_is_refused(prog):
    x = pd.layers.data("x", shape=[3])
    before = _state(prog)
    with pytest.raises(OpBuildError) as info:
        prog.global_block().append_op("relu", inputs={"Input": x})
    message = str(info.value)
    assert "no input slot 'Input'" in message and "['X']" in message
    assert _at_this_line(info) in message
    with pytest.raises(OpBuildError, match="no output slot 'Y'"):
        prog.global_block().append_op("relu", inputs={"X": x}, outputs={"Y": "y"})
    assert _state(prog) == before


def test_a_missing_required_input_is_refused(prog):
    x = pd.layers.data("x", shape=[3])
    before = _state(prog)
    with pytest.raises(OpBuildError) as info:
        prog.global_block().append_op("elementwise_add", inputs={"X": x})
    assert "input slot 'Y' is required" in str(info.value)
    assert _at_this_line(info) in str(info.value)
    assert _state(prog) == before


def test_an_input_naming_an_undeclared_variable_is_refused(prog):
    before = _state(prog)
    with pytest.raises(OpBuildError, match="'ghost'"):
        prog.global_block().append_op("relu", inputs={"X": "ghost"})
    assert _state(prog) == before


def test_two_variables_in_a_single_slot_are_refused(prog):
    x = pd.layers.data("x", shape=[3])
    with pytest.raises(OpBuildError, match="takes one variable, got 2"):
        prog.global_block().append_op("relu", inputs={"X": [x, x]})


def test_an_unknown_op_type_suggests_close_names(prog):
    x = pd.layers.data("x", shape=[3])
    before = _state(prog)
    with pytest.raises(OpNotFoundError) as info:
        prog.global_block().append_op("elementwise_ad", inputs={"X": x, "Y": x})
    assert "'elementwise_ad'" in str(info.value) and "'elementwise_add'" in str(info.value)
    assert isinstance(info.value, KeyError)
    with pytest.raises(OpNotFoundError, match="did you mean 'relu'"):
        prog.global_block().append_op("rleu", inputs={"X": x})
    assert _state(prog) == before


# -- a failed append leaves the block as it was ----------------------------------------------------
@pytest.mark.parametrize("where", ["append", "prepend", "insert"])
def test_a_failed_append_leaves_the_block_unchanged(prog, where):
    x = pd.layers.data("x", shape=[3])
    y = pd.layers.data("y", shape=[4])
    pd.layers.relu(x)
    version = prog.version
    before = _state(prog)
    block = prog.global_block()
    add = {"append": block.append_op, "prepend": block.prepend_op,
           "insert": lambda *a, **k: block.insert_op(1, *a, **k)}[where]
    with pytest.raises(ShapeError):
        add("elementwise_add", inputs={"X": x, "Y": y}, outputs={"Out": "never"})
    assert _state(prog) == before
    assert "never" not in block.vars and prog.version == version
    assert [op.type for op in block.ops] == ["relu"]


def test_a_failed_append_in_a_sub_block_leaves_every_block_unchanged(prog):
    x = pd.layers.data("x", shape=[3])
    with prog._block_guard():
        pd.layers.relu(x)
        w = prog.current_block().create_var(name="w", shape=[4, 2])
        before = _state(prog)
        with pytest.raises(ShapeError):
            pd.layers.matmul(x, w)
        assert _state(prog) == before


# -- values protobuf cannot hold -------------------------------------------------------------------
def test_an_int_attribute_out_of_int32_range_is_refused_and_leaves_the_desc_whole(prog):
    a = pd.layers.data("a", shape=[4], append_batch_size=False)
    b = pd.layers.relu(a)
    before = _state(prog)
    with pytest.raises(AttrError) as info:
        pd.layers.reshape(a, [-1, 2 ** 31])
    message = str(info.value)
    assert "reshape2" in message and "'shape'" in message and "32-bit" in message
    assert _at_this_line(info) in message or HERE in message
    assert _state(prog) == before                 # the desc too: no hidden half-written op
    prog.global_block().remove_op(0)              # and remove_op removes the op it shows
    assert [op.type for op in prog.global_block().ops] == [] and b.writer is None


def test_an_undeclared_attribute_protobuf_refuses_leaves_the_desc_whole(prog):
    a = pd.layers.data("a", shape=[4], append_batch_size=False)
    block = prog.global_block()
    before = _state(prog)
    with pytest.raises(AttrError, match="cannot be written") as info:
        block.append_op("relu", inputs={"X": a}, attrs={"op_role": 2 ** 40})
    assert "relu" in str(info.value)
    assert _state(prog) == before
    with pytest.raises(AttrError):
        block.insert_op(0, "relu", inputs={"X": a}, attrs={"op_role": 2 ** 40})
    assert _state(prog) == before
