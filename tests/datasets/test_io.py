"""The shared plumbing of the readers and writers: atomic writes through links and special files."""

from __future__ import annotations

import gzip
import os
import stat

import pytest
from helpers import read_fifo_in_background as _read_fifo_in_background

from halfspaces.datasets._io import atomic_write


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
