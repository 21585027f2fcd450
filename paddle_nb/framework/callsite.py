"""Where in the user's code an op was built.

Errors at build time and at run time point at the user's line, not at
paddle_nb's internals: :func:`user_frame` walks up the stack to the first
frame outside the package. The site is stored on the op as PaddlePaddle's
``op_callstack`` attribute (two strings per frame, as PaddlePaddle writes
them), keeping only the user's frame so that a saved program stays small.
"""

import linecache
import os
import sys
from types import FrameType
from collections.abc import Sequence

import paddle_nb

__all__ = ["user_frame", "callstack_strings", "format_site"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(paddle_nb.__file__)) + os.sep
_INTERNAL = ("contextlib.py", "<frozen ")


# file name -> whether its frames are paddle_nb's (or contextlib's)
_INSIDE: dict[str, bool] = {}


def user_frame() -> tuple[str, int, str]:
    """(filename, lineno, function) of the innermost frame outside paddle_nb."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        inside = _INSIDE.get(filename)
        if inside is None:
            if len(_INSIDE) > 10000:     # a notebook names each cell's code anew
                _INSIDE.clear()
            inside = _INSIDE[filename] = filename.startswith(_PACKAGE_DIR) or \
                filename.endswith(_INTERNAL[0]) or filename.startswith(_INTERNAL[1])
        if not inside:
            return filename, frame.f_lineno, code.co_name
        frame = frame.f_back
    return "<unknown>", 0, "<unknown>"


def callstack_strings() -> list[str]:
    """The user's frame as PaddlePaddle's two ``op_callstack`` strings. A notebook cell is
    named as IPython's tracebacks name it (``Cell In[3]``), not by its temporary file."""
    filename, lineno, function = user_frame()
    source = linecache.getline(filename, lineno).strip()
    return [f'  File "{_cell_name(filename)}", line {lineno}, in {function}', f"    {source}"]


def _cell_name(filename: str) -> str:
    """``Cell In[N]`` for the code of notebook cell N run in this process, else ``filename``."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    format_code_name = getattr(getattr(shell, "compile", None), "format_code_name", None)
    named = format_code_name(filename) if format_code_name is not None else None
    return " ".join(named) if named else filename


def format_site(callstack: Sequence[str]) -> str:
    """``file:line: source`` from ``op_callstack`` strings, for error messages. PaddlePaddle
    writes the whole stack, its own frames last: the innermost frame outside an installed
    ``paddle`` package is the user's."""
    if not callstack:
        return "an unknown place (the op carries no op_callstack)"
    head = callstack[-2] if len(callstack) >= 2 else callstack[-1]
    source = callstack[-1].strip() if len(callstack) >= 2 else ""
    for k in range(len(callstack) - 2, -1, -1):
        line = callstack[k]
        if line.lstrip().startswith("File ") and not _paddles(line):
            head = line
            source = callstack[k + 1].strip() if k + 1 < len(callstack) else ""
            break
    try:
        filename = head.split('"')[1]
        lineno = head.split("line ")[1].split(",")[0]
        site = f"{_shown_path(filename)}:{lineno}"
    except IndexError:
        site = head.strip()
    return f"{site}: {source}" if source else site


def _shown_path(filename: str) -> str:
    """A file as a message shows it: an installed package's file from its package on
    (``decorator/__init__.py``), a file of another machine (a program PaddlePaddle saved
    elsewhere) by its name alone, a file of this machine (the user's) as it is."""
    path = filename.replace("\\", "/")
    if "-packages/" in path:
        return path.rsplit("-packages/", 1)[1]
    if os.path.isabs(filename) and not os.path.exists(filename):
        return os.path.basename(path)
    return filename


def _paddles(frame_line: str) -> bool:
    """Whether an op_callstack ``File "...", line N`` string is a frame of PaddlePaddle itself."""
    path = frame_line.replace("\\", "/")
    return "-packages/paddle/" in path
