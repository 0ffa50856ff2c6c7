"""Shared plumbing for the readers and writers: compressed files, atomic writes, errors.

Compression is chosen by the file name's extension (``.gz``, ``.bz2``, ``.xz``), with the
standard library's :mod:`gzip`, :mod:`bz2` and :mod:`lzma`. Every writer goes through
:func:`atomic_write`: the bytes go to a temporary file in the target's directory, which is
flushed, synced and then moved over the target with :func:`os.replace`, so a crash leaves
either the old file or the new one, never half of one.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import tempfile
from collections.abc import Iterator
from typing import IO

import numpy as np

_COMPRESSORS = {".gz": gzip, ".bz2": bz2, ".xz": lzma}


class DataFormatError(ValueError):
    """A data file is malformed; the message names the file, the line and the problem.

    Attributes
    ----------
    path : str
        The file that was being read.
    line : int or None
        1-based line number of the problem (None when it is not tied to a line).
    column : int or None
        1-based byte column of the offending token on that line, when known.
    """

    def __init__(self, path, line: int | None, message: str, column: int | None = None):
        if hasattr(path, "read") and not isinstance(path, (str, os.PathLike)):
            path = getattr(path, "name", "<stream>")
        self.path = str(path)
        self.line = line
        self.column = column
        where = self.path if line is None else f"{self.path}:{line}"
        if line is not None and column is not None:
            where += f":{column}"
        super().__init__(f"{where}: {message}")


def compression_of(path) -> str | None:
    """The compression extension of ``path`` ('.gz', '.bz2', '.xz') or None."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    return suffix if suffix in _COMPRESSORS else None


def _is_stream(path) -> bool:
    return hasattr(path, "read") and not isinstance(path, (str, bytes, os.PathLike))


def open_binary(path) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing by extension.

    An already open binary file object is used as it is (and left open).
    """
    if _is_stream(path):
        return contextlib.nullcontext(path)
    kind = compression_of(path)
    if kind is None:
        return open(path, "rb")
    return _COMPRESSORS[kind].open(path, "rb")


def read_text(path, encoding: str = "utf-8") -> str:
    """The whole (decompressed) file decoded as ``encoding``.

    Raises
    ------
    DataFormatError
        Bytes that are not ``encoding`` text, naming the line where they stand.
    """
    with open_binary(path) as f:
        raw = f.read()
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataFormatError(path, line, f"bytes that are not {encoding} text"
                              f" ({exc.reason}); pass the file's encoding=") from None


def read_bytes(path) -> np.ndarray:
    """The whole (decompressed) file as a uint8 array with one extra ``\\n`` at the end.

    The extra newline ends a last line that has none and stops number parsers at the end of
    the buffer; the array is writable and C-contiguous.
    """
    if not _is_stream(path) and compression_of(path) is None:
        size = os.path.getsize(path)
        buf = np.empty(size + 1, dtype=np.uint8)
        with open(path, "rb") as f:
            got = f.readinto(memoryview(buf)[:size])
        if got != size:  # the file changed size while we read it
            return read_bytes(path)
        buf[size] = 10
        return buf
    with open_binary(path) as f:
        raw = f.read()
    buf = np.empty(len(raw) + 1, dtype=np.uint8)
    buf[:-1] = np.frombuffer(raw, dtype=np.uint8)
    buf[-1] = 10
    return buf


def line_and_column(buf: np.ndarray, pos: int, first_line: int = 1) -> tuple[int, int]:
    """1-based line and column of byte offset ``pos`` in ``buf`` (whose first line is
    ``first_line``)."""
    head = buf[:pos]
    newlines = np.flatnonzero(head == 10)
    line = first_line + newlines.size
    column = pos - (int(newlines[-1]) + 1 if newlines.size else 0) + 1
    return line, column


def token_text(buf: np.ndarray, start: int, end: int, limit: int = 40) -> str:
    """The token ``buf[start:end]`` as text for an error message (shortened)."""
    text = bytes(buf[start:end]).decode("utf-8", "replace")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _target_mode(path: str) -> int:
    """Permissions for the new file: those of the file it replaces, else 0o666 less umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_write(path, *, compress: bool = True) -> Iterator[IO[bytes]]:
    """Open a binary stream whose bytes replace ``path`` atomically when the block ends.

    With ``compress=True`` the stream compresses by the extension of ``path``. If the block
    raises, the temporary file is removed and ``path`` is left as it was.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw:
            kind = compression_of(path) if compress else None
            if kind == ".gz":
                stream: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
            elif kind == ".bz2":
                stream = bz2.BZ2File(raw, "wb")
            elif kind == ".xz":
                stream = lzma.LZMAFile(raw, "wb")
            else:
                stream = raw
            yield stream
            if stream is not raw:
                stream.close()
            raw.flush()
            os.fsync(raw.fileno())
            os.chmod(tmp, _target_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
