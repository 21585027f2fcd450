"""Where saves land: symbolic links are followed, special files are refused (io/atomic.py).

A save to a symlinked directory or file writes into what the link names (the link stays, no
``.<name>.old-*`` is left anywhere), whole or not at all. A path naming a FIFO, a socket or a
device node, directly or through a link, is refused with a SaveLoadError naming the path and
what it is, and nothing is written.
"""

import os
import socket
import stat

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import SaveLoadError
from paddle_nb.io.atomic import save_target

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


def _model():
    """A two-parameter program, initialized in its own scope."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        pd.layers.fc(x, 2)
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    return main, exe, scope


def _everything(*dirs):
    """Every entry under the directories (links not followed), as paths relative to each."""
    found = set()
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            found.update(os.path.relpath(os.path.join(root, n), d) for n in subdirs + files)
    return found


def _leftovers(*dirs):
    return sorted(n for n in _everything(*dirs) if ".old-" in n or ".tmp" in n)


# -- symbolic links are followed ------------------------------------------------------------------
def test_saving_into_a_symlinked_directory_writes_into_its_target(tmp_path):
    main, exe, scope = _model()
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "model").mkdir()
    (tmp_path / "real" / "model" / "notes.txt").write_text("kept")
    link = tmp_path / "model"
    link.symlink_to(tmp_path / "real" / "model")
    for _ in range(2):                       # into the old directory, then over the first save
        names = pd.io.save_persistables(exe, link, main, scope=scope)
        assert link.is_symlink() and os.readlink(link) == str(tmp_path / "real" / "model")
        assert sorted(os.listdir(tmp_path / "real" / "model")) == sorted(names + ["notes.txt"])
        assert _leftovers(tmp_path) == []
    fresh = pd.Scope()
    pd.io.load_persistables(exe, link, main, scope=fresh)
    for name in names:
        np.testing.assert_array_equal(fresh.find_var(name).get_tensor().numpy(),
                                      scope.find_var(name).get_tensor().numpy())


def test_an_inference_model_saved_through_a_chain_of_links_lands_in_the_real_directory(tmp_path):
    main, exe, scope = _model()
    (tmp_path / "store").mkdir()
    (tmp_path / "hop").symlink_to("store")              # relative links, two of them
    (tmp_path / "latest").symlink_to("hop/infer")
    pd.io.save_inference_model(tmp_path / "latest", ["x"],
                               [main.global_block().ops[-1].output("Out")[0]],
                               exe, main, scope=scope)
    assert (tmp_path / "latest").is_symlink() and (tmp_path / "hop").is_symlink()
    assert (tmp_path / "store" / "infer" / "__model__").is_file()
    assert _leftovers(tmp_path) == []


def test_saving_to_a_symlinked_file_replaces_the_target_and_keeps_the_link(tmp_path):
    main, _, _ = _model()
    target = tmp_path / "data" / "prog.pdmodel"
    target.parent.mkdir()
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "prog.pdmodel"
    link.symlink_to(target)
    pd.io.save(main, link)
    assert link.is_symlink() and target.read_bytes() == main.serialize()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640       # the target's mode is kept
    assert sorted(os.listdir(target.parent)) == ["prog.pdmodel"]  # the temporary was beside it
    assert _leftovers(tmp_path) == []


def test_a_dangling_link_is_followed_to_the_file_it_names(tmp_path):
    main, _, _ = _model()
    link = tmp_path / "prog"
    link.symlink_to(tmp_path / "sub" / "made.pdmodel")
    pd.io.save(main, link)
    assert link.is_symlink()
    assert (tmp_path / "sub" / "made.pdmodel").read_bytes() == main.serialize()


def test_a_loop_of_links_is_refused(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    main, exe, scope = _model()
    with pytest.raises(SaveLoadError, match="symbolic links form a loop"):
        pd.io.save(main, tmp_path / "a")
    with pytest.raises(SaveLoadError, match="symbolic links form a loop"):
        pd.io.save_params(exe, tmp_path / "b", main, scope=scope)
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


# -- special files are refused ---------------------------------------------------------------------
@needs_fifo
@pytest.mark.parametrize("through_link", [False, True], ids=["direct", "link"])
def test_a_fifo_is_refused_for_a_file_and_for_a_directory(tmp_path, through_link):
    main, exe, scope = _model()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path = fifo
    if through_link:
        path = tmp_path / "link"
        path.symlink_to(fifo)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(SaveLoadError, match="it is a FIFO") as info:
        pd.io.save(main, path)
    assert f"'{path}'" in str(info.value) and "nothing was written" in str(info.value)
    if through_link:
        assert f"leads to '{fifo}'" in str(info.value)
    with pytest.raises(SaveLoadError, match="it is a FIFO"):
        pd.io.save_persistables(exe, path, main, scope=scope)
    with pytest.raises(SaveLoadError, match="it is a FIFO"):
        pd.io.save_params(exe, tmp_path, main, scope=scope, filename=os.path.basename(path))
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(os.listdir(tmp_path)) == before


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets")
def test_a_socket_is_refused(tmp_path):
    main, _, _ = _model()
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        with pytest.raises(SaveLoadError, match="it is a socket"):
            pd.io.save(main, path)
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    finally:
        server.close()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0
                    or not os.path.exists("/dev/null"),
                    reason="needs root (who could replace a device node) and /dev/null")
def test_as_root_a_link_to_a_device_node_is_refused_and_the_node_kept(tmp_path):
    main, exe, scope = _model()
    link = tmp_path / "model"
    link.symlink_to("/dev/null")
    rdev = os.stat("/dev/null").st_rdev
    with pytest.raises(SaveLoadError, match="it is a character device"):
        pd.io.save(main, link)
    with pytest.raises(SaveLoadError, match="it is a character device"):
        pd.io.save_persistables(exe, link, main, scope=scope)
    st = os.stat("/dev/null")
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == rdev and link.is_symlink()
    assert not [n for n in os.listdir("/dev") if n.startswith(".null.")]


def test_save_target_says_what_a_path_names(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    (tmp_path / "to_d").symlink_to("d")
    real = os.path.realpath(tmp_path)
    assert save_target(tmp_path / "to_d") == (os.path.join(real, "d"), "directory")
    assert save_target(tmp_path / "f") == (os.path.join(real, "f"), "file")
    assert save_target(tmp_path / "new") == (os.path.join(real, "new"), None)


@needs_fifo
def test_an_inference_model_whose_model_path_is_a_fifo_writes_no_parameters_either(tmp_path):
    """The prefix form writes two files: both targets are checked before either is written."""
    main, exe, scope = _model()
    os.mkfifo(tmp_path / "m.pdmodel")
    feeds = [v.name for v in main.global_block().vars.values() if not v.persistable][:1]
    target = main.global_block().ops[-1].output_arg_names[0]
    with pytest.raises(SaveLoadError, match="it is a FIFO"):
        pd.io.save_inference_model(str(tmp_path / "m"), feeds, [target], exe,
                                   main_program=main, scope=scope, prefix=True)
    assert sorted(os.listdir(tmp_path)) == ["m.pdmodel"]      # no m.pdiparams was written
