"""The errors paddle_nb raises, all in one place.

Every message says what was expected, what came, and where: which variable,
which scope, which op, and the user's line of code that built the op. Each
class also derives from the built-in exception a Python user would catch
(``TypeError``, ``ValueError``, ``KeyError``, ``RuntimeError``), so ordinary
``except`` clauses keep working.
"""

__all__ = [
    "PaddleNBError", "ScopeDestroyedError", "VariableTypeError", "NotAllocatedError",
    "PlaceUnavailableError", "LoDError", "ProtoDecodeError", "VarNotFoundError",
    "OpNotFoundError", "OpBuildError", "AttrError", "ShapeError", "OperandError", "FeedError",
    "FetchError", "OpRunError", "OutOfMemoryError", "BackwardError", "SaveLoadError",
    "DynamicModeError", "VarRedefinedError", "ListenerWarning",
]


class PaddleNBError(Exception):
    """Base class of every error paddle_nb raises on purpose."""


class ScopeDestroyedError(PaddleNBError, RuntimeError):
    """A Variable, tensor or Scope was used after its scope was destroyed."""


class VariableTypeError(PaddleNBError, TypeError):
    """``Variable.get(T)`` found another type, or nothing, in the variable."""


class NotAllocatedError(PaddleNBError, RuntimeError):
    """A tensor's data was read before ``mutable_data`` or ``set`` gave it memory."""


class PlaceUnavailableError(PaddleNBError, RuntimeError):
    """A GPUPlace was used where CuPy or a CUDA device is missing."""


class LoDError(PaddleNBError, ValueError):
    """A level-of-detail (sequence offsets) table does not fit its tensor."""


class ProtoDecodeError(PaddleNBError, ValueError):
    """A serialized ProgramDesc or parameter file could not be decoded."""


class VarNotFoundError(PaddleNBError, KeyError):
    """A name was looked up in a Block or Scope and is not there."""

    def __str__(self) -> str:  # KeyError quotes its message; show it as written
        return str(self.args[0]) if self.args else ""


class OpNotFoundError(PaddleNBError, KeyError):
    """An op type is not in the registry."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class OpBuildError(PaddleNBError, ValueError):
    """An op could not be appended: bad slots, attributes, shapes or dtypes.

    The message names the op, the block, the inputs' shapes and dtypes, and
    the user's file and line that built the op.
    """


class AttrError(OpBuildError):
    """An attribute is unknown, has the wrong type, or fails its check."""


class ShapeError(OpBuildError):
    """Shape or dtype inference rejected the inputs of an op."""


class OperandError(OpBuildError, TypeError):
    """An operator (``+``, ``*``...) was given something no op can take, such as an array."""


class FeedError(PaddleNBError, ValueError):
    """A feed is missing, unknown, or has the wrong shape or dtype."""


class FetchError(PaddleNBError, KeyError):
    """A fetch target is not computed by the program."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class OpRunError(PaddleNBError, RuntimeError):
    """An op failed while running; the message names it and its call site."""


class OutOfMemoryError(OpRunError, MemoryError):
    """An allocation failed; the message names the op (or tensor) that asked, the
    variable, the shape and dtype, and the bytes requested."""


class BackwardError(PaddleNBError, ValueError):
    """append_backward could not differentiate the program."""


class SaveLoadError(PaddleNBError, OSError):
    """A model or parameter file could not be written or read."""


class DynamicModeError(PaddleNBError, RuntimeError):
    """A PaddlePaddle 2.x function that needs dynamic (eager) mode, which paddle_nb has not
    (``paddle.disable_static``, ``paddle.grad``)."""


class VarRedefinedError(PaddleNBError, ValueError):
    """A name was declared again as a variable of another kind, shape, dtype or LoD level
    (``data("x", [4])`` after ``data("x", [3])``): the block keeps one variable per name."""


class ListenerWarning(RuntimeWarning):
    """A listener (of core events or of an executor's runs) raised: the run it watched went
    on unchanged, and the listener's error is reported as this warning instead."""
