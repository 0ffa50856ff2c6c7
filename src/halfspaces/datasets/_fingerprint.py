"""What identifies a data file between two reads: its fingerprint.

Path, size and modification time are not enough: ``cp -p``, ``rsync -t`` and ``tar x`` give a
new file the old one's size and modification time. Each of them changes the status-change
time (``st_ctime_ns``, set by the kernel on every write, rename, chmod or link, and which no
system call lets a program set), and ``rsync -t`` and ``tar x`` also create a new inode. A
digest of a sample of the content (the first and last 64 KiB and 16 pieces of 4 KiB spread
between them, about 200 KiB read whatever the file's size) adds a check that does not depend
on the file system's times, for file systems whose ctime or inode numbers are not
meaningful. A false alarm (a ``chmod`` or a new hard link also changes ctime) costs a
rebuilt cache or a refused resume; a file replaced unnoticed costs a model trained on other
rows.

:func:`stat_fingerprint` is the ``os.stat`` part alone, cheap enough to compare before and
after every pass over a file (:func:`check_unchanged`).
"""

from __future__ import annotations

import hashlib
import os

__all__ = ["FileChanged", "check_unchanged", "difference", "file_fingerprint",
           "stat_fingerprint"]

#: The version of the fingerprint's form: recorded with it, a record of another form is stale.
FINGERPRINT_VERSION = 2
_EDGE = 64 << 10  # bytes digested at each end
_PIECE, _PIECES = 4 << 10, 16  # and in between, spread evenly


class FileChanged(OSError):
    """A data file that changed while it was read (or since it was fingerprinted)."""


def stat_fingerprint(path) -> dict:
    """The file's real path, size, modification and status-change times and inode."""
    st = os.stat(path)
    return {"path": os.path.realpath(path), "size": int(st.st_size),
            "mtime_ns": int(st.st_mtime_ns), "ctime_ns": int(st.st_ctime_ns),
            "inode": int(st.st_ino)}


def file_fingerprint(path) -> dict:
    """:func:`stat_fingerprint` and a BLAKE2b digest of a sample of the content (see the
    module's docstring), with the form's version."""
    fingerprint = {"version": FINGERPRINT_VERSION, **stat_fingerprint(path)}
    size = fingerprint["size"]
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        if size <= 2 * _EDGE + _PIECES * _PIECE:
            digest.update(fh.read())
        else:
            step = (size - 2 * _EDGE) // (_PIECES + 1)
            for start in [0] + [_EDGE + k * step for k in range(1, _PIECES + 1)]:
                fh.seek(start)
                digest.update(fh.read(_EDGE if start == 0 else _PIECE))
            fh.seek(size - _EDGE)
            digest.update(fh.read(_EDGE))
    fingerprint["sample"] = digest.hexdigest()
    if stat_fingerprint(path) != {k: fingerprint[k] for k in
                                  ("path", "size", "mtime_ns", "ctime_ns", "inode")}:
        raise FileChanged(f"{path} changed while it was read; run again once it is complete.")
    return fingerprint


def difference(before: dict, after: dict) -> str | None:
    """What differs between two fingerprints of one file, in words (None: nothing)."""
    words = {"path": "its path", "size": "its size", "mtime_ns": "its modification time",
             "ctime_ns": "its status-change time (ctime)", "inode": "its inode (a new file"
             " in its place)", "sample": "its content", "version": "the form of the record"}
    changed = [key for key in words if before.get(key) != after.get(key)]
    if not changed:
        return None
    said = [words[key] for key in changed]
    if "size" in changed and before.get("size") is not None:
        said[changed.index("size")] = (f"its size ({before['size']:,} bytes, now"
                                       f" {after.get('size', 0):,})")
    return ", ".join(said)


def check_unchanged(path, before: dict) -> None:
    """Raise :class:`FileChanged` when ``path``'s :func:`stat_fingerprint` is not
    ``before``'s."""
    after = stat_fingerprint(path)
    what = difference({k: before.get(k) for k in after}, after)
    if what is not None:
        raise FileChanged(f"{path} changed while it was being trained on ({what} changed):"
                          " the rows read so far are not those of one file, so the training"
                          " stopped and nothing was saved; run again once the file is no"
                          " longer being written (train from a copy to keep training while"
                          " it grows).")
