"""pd.Program.from_paddle and program.to_paddle, without PaddlePaddle installed.

from_paddle takes anything shaped like a PaddlePaddle Program (``.desc.serialize_to_string()``)
and never imports paddle; to_paddle imports paddle only when called, and says what to install
when it is missing. interop/check_coexist.py checks both with PaddlePaddle 2.6.2 itself.
"""
import sys

import pytest

import paddle_nb as pd


def small_program():
    program = pd.Program()
    with pd.program_guard(program, pd.Program()):
        pd.layers.relu(pd.layers.data("x", shape=[3]))
    return program


class FakeDesc:
    def __init__(self, data):
        self.data = data

    def serialize_to_string(self):
        return self.data


class FakePaddleProgram:
    def __init__(self, data):
        self.desc = FakeDesc(data)


def test_from_paddle_reads_the_serialized_desc():
    program = small_program()
    again = pd.Program.from_paddle(FakePaddleProgram(program.serialize()))
    assert [op.type for op in again.global_block().ops] == ["relu"]
    assert "paddle" not in sys.modules


def test_from_paddle_refuses_what_is_not_a_program():
    with pytest.raises(TypeError, match="expected a PaddlePaddle paddle.static.Program"):
        pd.Program.from_paddle(small_program().serialize())


def test_to_paddle_without_paddle_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "paddle", None)      # `import paddle` fails
    with pytest.raises(ImportError, match="pip install paddlepaddle"):
        small_program().to_paddle()
