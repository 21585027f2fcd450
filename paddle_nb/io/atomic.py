"""Whole or nothing: how paddle_nb writes files and directories.

A file is written to a temporary in its own directory, flushed to disk, and
then ``os.replace``d over the old one, which POSIX and Windows do atomically:
a reader sees the old file or the new one, never half of either. A directory
of files (one per variable) is built in a temporary sibling and swapped in;
the old directory is kept until the new one is complete. The swap is two
renames, and between them (a few microseconds) ``dirname`` does not exist:
that is the one non-atomic window. A crash (power, SIGKILL) inside it leaves
the old directory whole under ``.<name>.old-*`` next to where it was; Ctrl-C
waits until the swap and its clean-up are done (``io/interrupts.py``).
Several files that belong together (a ``.pdmodel`` and its ``.pdiparams``)
are written as temporaries first, then renamed: ``write_files``.

A symbolic link is followed, as ``open`` follows it: the link stays, and the
file or directory it names is replaced, by a temporary in *that* directory.
A path naming anything but a regular file or a directory (a device node, a
FIFO, a socket) is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import uuid

from paddle_nb.errors import SaveLoadError
from paddle_nb.io.interrupts import (
    deferred_interrupts, interruption_point, no_interruption_points,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

__all__ = ["write_file", "write_files", "staged_directory", "inside", "save_target"]


def write_file(path: Any, write: Callable[..., Any]) -> None:
    """Call ``write(f)`` on a temporary beside ``path``, then rename it to ``path``.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_file(os.path.join(d, "a.bin"), lambda f: f.write(b"hi"))
    >>> sorted(os.listdir(d)), open(os.path.join(d, "a.bin"), "rb").read()
    (['a.bin'], b'hi')
    """
    write_files([(path, write)])


def write_files(items: Sequence[tuple[Any, ...]]) -> None:
    """Write several files together: all of them, or none.

    ``items`` is ``[(path, write), ...]``; ``write(f)`` fills the file, and a ``write`` of
    None removes ``path`` (a model saved without parameters drops the old params file).
    Every temporary is written and flushed first (a full disk stops the save here, with
    nothing replaced); then the renames, the commit: should one fail, the files already
    renamed get their old contents back from hard-linked copies. Ctrl-C waits for a safe
    point (``io/interrupts.py``), and nothing but the files named is left behind.
    """
    targets = []
    for path, write in items:
        path, kind = save_target(path, "write the file")
        if kind == "directory":
            raise SaveLoadError(f"cannot write the file '{path}': a directory of that name "
                                "exists")
        targets.append((path, write))
    temps: dict[str, str] = {}
    backups: dict[str, str] = {}
    with deferred_interrupts():
        try:
            for path, write in targets:
                if write is not None:
                    _write_temp(path, write, temps)
                    interruption_point()
            _commit(targets, temps, backups)
        finally:
            for leftover in list(temps.values()) + list(backups.values()):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
    for parent in sorted({os.path.dirname(path) for path, _ in targets}):
        _sync_dir(parent)


def _write_temp(path: str, write: Callable[..., Any], temps: Any) -> None:
    """Write a flushed temporary beside ``path``, recorded in ``temps`` as soon as it exists."""
    parent, base = os.path.split(path)
    os.makedirs(parent, exist_ok=True)
    fd, temps[path] = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=parent)
    with os.fdopen(fd, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(temps[path], _mode_like(path, 0o666))


def _commit(targets: Any, temps: Any, backups: Any) -> None:
    """The renames; with more than one file, undone on a failure from the old contents."""
    if len(targets) > 1:
        for path, _ in targets:
            if os.path.isfile(path):
                backups[path] = _backup(path)
    done = []
    try:
        for path, write in targets:
            if write is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            else:
                os.replace(temps[path], path)
                del temps[path]
            done.append(path)
    except BaseException:
        for path in reversed(done):
            if path in backups:
                os.replace(backups.pop(path), path)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
        raise


def _backup(path: str) -> str:
    """A hard link (or, where links are refused, a copy) of ``path`` beside it."""
    parent, base = os.path.split(path)
    backup = os.path.join(parent, f".{base}.old-{uuid.uuid4().hex[:12]}")
    try:
        os.link(path, backup)
    except OSError:
        shutil.copy2(path, backup)
    return backup


@contextlib.contextmanager
def staged_directory(dirname: str) -> Iterator[Any]:
    """Yield an empty temporary sibling of ``dirname`` to fill; swap it in on success.

    Entries of the old ``dirname`` that the new one does not write are carried
    over (as PaddlePaddle, which writes into the directory, leaves them). On an
    exception the stage is removed and ``dirname`` is untouched. A directory
    that cannot be renamed (a mount point, or the working directory or one of
    its ancestors) is written in place instead: each file whole, not the set.
    Ctrl-C in the with-block is taken at its ``interruption_point()`` calls or before
    the swap, never inside the swap or the clean-up (``io/interrupts.py``).
    """
    dirname, kind = save_target(dirname, "save into")
    parent, base = os.path.split(dirname)
    if kind == "file":
        raise SaveLoadError(f"cannot save into '{dirname}': it is a file, not a directory")
    if kind == "directory" and _pinned(dirname):
        with no_interruption_points():     # written in place: Ctrl-C after the last file
            yield dirname
        return
    os.makedirs(parent, exist_ok=True)
    with deferred_interrupts():
        swapped = False
        stage = tempfile.mkdtemp(prefix=f".{base}.tmp-", dir=parent)
        try:
            yield stage
            interruption_point()
            _carry_over(dirname, stage)
            os.chmod(stage, _mode_like(dirname, 0o777))
            _swap_in(stage, dirname)
            swapped = True
        finally:
            if not swapped:
                shutil.rmtree(stage, ignore_errors=True)


def save_target(path: str | os.PathLike[str], action: str = "write") -> tuple[str, str | None]:
    """(the real path that saving to ``path`` replaces, what is there now): "file",
    "directory" or None (nothing yet). Symbolic links are followed; a loop of them, or
    anything that is not a regular file or a directory, is refused with a SaveLoadError.

    >>> import tempfile, os
    >>> d = os.path.realpath(tempfile.mkdtemp()); os.symlink("model", os.path.join(d, "link"))
    >>> save_target(os.path.join(d, "link")) == (os.path.join(d, "model"), None)
    True
    """
    shown = os.path.abspath(path)
    real = os.path.realpath(shown)
    if os.path.islink(real):         # realpath stops at a link when the links form a loop
        raise SaveLoadError(f"cannot {action} '{shown}': its symbolic links form a loop")
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real, None
    if stat.S_ISREG(mode):
        return real, "file"
    if stat.S_ISDIR(mode):
        return real, "directory"
    through = f" (the symbolic link leads to '{real}')" if real != shown else ""
    raise SaveLoadError(f"cannot {action} '{shown}': it is {_kind(mode)}, not a regular file "
                        f"or a directory{through}; nothing was written")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return f"a special file (mode {oct(stat.S_IFMT(mode))})"


def _pinned(dirname: str) -> bool:
    """True when renaming ``dirname`` would fail or move the process's working directory."""
    cwd = os.path.realpath(os.getcwd())
    real = os.path.realpath(dirname)
    return os.path.ismount(real) or cwd == real or cwd.startswith(real.rstrip(os.sep) + os.sep)


def _carry_over(old: str, new: str) -> None:
    """Link (or copy) into ``new`` each entry of ``old`` that ``new`` lacks."""
    if not os.path.isdir(old):
        return
    for entry in os.scandir(old):
        target = os.path.join(new, entry.name)
        if os.path.lexists(target):
            if entry.is_dir(follow_symlinks=False) and os.path.isdir(target):
                _carry_over(entry.path, target)
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(entry.path, target, symlinks=True)
        elif entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        else:
            try:
                os.link(entry.path, target)
            except OSError:
                shutil.copy2(entry.path, target)


def _swap_in(stage: str, dirname: str) -> None:
    """Rename ``stage`` to ``dirname``, keeping the old one until the new one is there."""
    if not os.path.exists(dirname):
        os.rename(stage, dirname)
        _sync_dir(os.path.dirname(dirname))
        return
    parent, base = os.path.split(dirname)
    old = os.path.join(parent, f".{base}.old-{uuid.uuid4().hex[:12]}")
    os.rename(dirname, old)
    try:                                   # the non-atomic window: dirname is absent here
        os.rename(stage, dirname)
    except BaseException:
        os.rename(old, dirname)
        raise
    _sync_dir(parent)
    shutil.rmtree(old, ignore_errors=True)


def inside(dirname: Any, name: str, what: str) -> str:
    """``dirname/name``, refusing names that would leave ``dirname`` (``..``, absolute)."""
    norm = os.path.normpath(name)
    if not name or os.path.isabs(name) or norm == os.curdir or norm.split(os.sep)[0] == os.pardir:
        raise SaveLoadError(f"{what} '{name}' is not a plain relative name; paddle_nb reads and "
                            f"writes only inside '{dirname}'")
    return os.path.join(dirname, norm)


def _mode_like(path: str, default: int) -> int:
    """The permission bits of ``path`` if it exists, else ``default`` less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return default & ~umask


def _sync_dir(path: str) -> None:
    """Flush a directory's entries (the renames) to disk, where the OS allows it."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
