"""The shared plumbing of the readers and writers: atomic writes through links and special files."""

from __future__ import annotations

import gzip
import os
import re
import signal
import stat
import subprocess
import sys

import pytest
from helpers import read_fifo_in_background as _read_fifo_in_background

from halfspaces.datasets._io import TMP_SUFFIX, atomic_write, temporaries_removed_on_signals


def test_regular_file_is_replaced_atomically_with_its_permissions(tmp_path):
    path = tmp_path / "out.txt"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o640)
    with atomic_write(path) as f:
        f.write(b"new\n")
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["out.txt"]


def test_symlink_is_kept_and_its_target_replaced(tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "real.txt.gz"
    target.write_bytes(b"old")
    link = tmp_path / "latest.gz"
    link.symlink_to(os.path.relpath(target, tmp_path))
    with atomic_write(link) as f:
        f.write(b"new contents\n")
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(target, tmp_path)
    assert gzip.decompress(target.read_bytes()) == b"new contents\n"  # by the link's name
    assert sorted(os.listdir(tmp_path / "data")) == ["real.txt.gz"]  # no temporary left


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "missing.txt")
    with atomic_write(link) as f:
        f.write(b"x\n")
    assert link.is_symlink() and (tmp_path / "missing.txt").read_bytes() == b"x\n"


def test_a_failed_write_through_a_symlink_leaves_the_target(tmp_path):
    target = tmp_path / "real.txt"
    target.write_bytes(b"old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with pytest.raises(RuntimeError, match="disk died"), atomic_write(link) as f:
        f.write(b"half")
        raise RuntimeError("disk died")
    assert link.is_symlink() and target.read_bytes() == b"old\n"
    assert sorted(os.listdir(tmp_path)) == ["link.txt", "real.txt"]


def _write_into_fifo(tmp_path, payload: bytes):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread, got = _read_fifo_in_background(fifo)
    with atomic_write(fifo) as f:
        f.write(payload)
    thread.join(timeout=60)
    return fifo, got


def test_fifo_is_written_into_not_replaced(tmp_path):
    fifo, got = _write_into_fifo(tmp_path, b"through the pipe\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got == [b"through the pipe\n"]
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


def test_dev_null_stays_a_character_device(tmp_path):
    # Check on a FIFO first: if special files were replaced, /dev/null must not be tried.
    fifo, got = _write_into_fifo(tmp_path, b"probe\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and got == [b"probe\n"]
    before = os.stat("/dev/null")
    if not stat.S_ISCHR(before.st_mode):
        pytest.skip("/dev/null is not a character device on this machine")
    with atomic_write("/dev/null") as f:
        f.write(b"discarded\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino


# -- temporary files: recognisable, removed after a kill, removed on SIGTERM ------------------

def _dead_pid() -> int:
    """The PID of a process that has ended (a child that was waited for)."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    return int(child.stdout)


def test_the_next_write_removes_temporaries_of_ended_writers_only(tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old\n")
    dead, alive = _dead_pid(), os.getppid()
    stale = tmp_path / f".model.npz.{dead}.ab12_xyz{TMP_SUFFIX}"
    live = tmp_path / f".model.npz.{alive}.ab12_xyz{TMP_SUFFIX}"
    other = tmp_path / f".model.npz.{dead}.{dead}.ab12_xyz{TMP_SUFFIX}"  # model.npz.<dead>'s
    foreign = tmp_path / f".model.npz.{dead}.ab12_xyz.tmp"  # not ours
    for f in (stale, live, other, foreign):
        f.write_bytes(b"half")
    with atomic_write(path) as f:
        f.write(b"new\n")
    assert path.read_bytes() == b"new\n"
    assert sorted(os.listdir(tmp_path)) == sorted(["model.npz", live.name, other.name,
                                                   foreign.name])


def test_a_temporary_file_names_the_target_and_the_writer(tmp_path):
    path = tmp_path / "out.txt"
    with atomic_write(path) as f:
        names = os.listdir(tmp_path)
        f.write(b"x")
    assert len(names) == 1
    assert re.fullmatch(rf"\.out\.txt\.{os.getpid()}\.[a-z0-9_]{{8}}\.halfspaces-tmp",
                        names[0])


_KILLED_WHILE_WRITING = """
import os, signal, sys
from halfspaces.datasets._io import atomic_write
if sys.argv[2] != "SIGKILL":  # a runner under nohup would pass SIGHUP on ignored
    signal.signal(getattr(signal, sys.argv[2]), signal.SIG_DFL)
with atomic_write(sys.argv[1]) as f:
    f.write(b"half of the new file")
    f.flush()
    os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    f.write(b"never")
"""


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_while_writing_removes_the_temporary(tmp_path, signame):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old\n")
    done = subprocess.run([sys.executable, "-c", _KILLED_WHILE_WRITING, str(path), signame],
                          capture_output=True)
    assert done.returncode == -getattr(signal, signame)  # ended by the signal itself
    assert path.read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["model.npz"]


def test_kill_9_while_writing_leaves_a_temporary_that_the_next_write_removes(tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old\n")
    done = subprocess.run([sys.executable, "-c", _KILLED_WHILE_WRITING, str(path), "SIGKILL"],
                          capture_output=True)
    assert done.returncode == -signal.SIGKILL
    assert path.read_bytes() == b"old\n"
    left = sorted(os.listdir(tmp_path))
    assert len(left) == 2 and left[0].endswith(TMP_SUFFIX)
    with atomic_write(path) as f:
        f.write(b"new\n")
    assert os.listdir(tmp_path) == ["model.npz"] and path.read_bytes() == b"new\n"


def test_signal_handlers_are_put_back_and_others_left_alone():
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # as pytest leaves it
    with temporaries_removed_on_signals():
        assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL

    def mine(signum, frame):
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with temporaries_removed_on_signals():  # an application's own handler stays
            assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
