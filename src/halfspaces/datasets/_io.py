"""Shared plumbing for the readers and writers: compressed files, atomic writes, errors.

Compression is chosen by the file name's extension (``.gz``, ``.bz2``, ``.xz``), with the
standard library's :mod:`gzip`, :mod:`bz2` and :mod:`lzma`; damaged or truncated compressed
data is a :class:`DataFormatError` at the line where the data stops, and a path that cannot
be opened (a folder, a loop of symbolic links, no permission) an :class:`OSError` that says
how to fix it (:func:`open_binary`, :func:`check_readable`). Readers take files that are not
regular files (a pipe, ``/dev/stdin``, a FIFO) as streams, read once from start to end, and
skip a UTF-8 byte-order mark at the start. Every writer goes through :func:`atomic_write`:
for a regular file the bytes go to a temporary file in the target's directory, which is
flushed, synced and then moved over the target with :func:`os.replace`, so a crash leaves
either the old file or the new one, never half of one; a symbolic link keeps pointing to its
(atomically replaced) target, and a FIFO or a device such as ``/dev/null`` is written into.

The temporary file is ``.NAME.PID.XXXXXXXX.halfspaces-tmp`` beside ``NAME``, where ``PID`` is
the writing process. A process killed while writing (``kill -9``) cannot remove it, so the
next write to ``NAME`` removes those whose process has ended (on one machine: a PID is
checked on the machine that writes, so a directory shared between machines keeps the others'
files). While the main thread writes, SIGTERM and SIGHUP (when their handlers are the default
ones) remove the temporary file before the process ends by the signal
(:func:`temporaries_removed_on_signals`); SIGINT raises KeyboardInterrupt, which removes it
like any other exception.

Large inputs are read in blocks of whole lines (:func:`read_blocks`) that worker threads
parse while the next blocks are read (:func:`map_in_order`); the parsers are compiled with
``nogil=True``, so the threads run in parallel, and reading (and decompressing) releases the
GIL too.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import errno
import gzip
import lzma
import os
import queue
import signal
import stat
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import IO

import numpy as np

_COMPRESSORS = {".gz": gzip, ".bz2": bz2, ".xz": lzma}
_NAMES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
BOM = codecs.BOM_UTF8
# How to fix a file that cannot be opened, by errno (added to the system's own words; a
# missing file needs no advice).
_OPEN_HINTS = {
    errno.EISDIR: "it is a folder; give a data file inside it",
    errno.ELOOP: "the symbolic link leads to itself (a loop of links); point it at the data"
                 " file",
    errno.EACCES: "this user may not read the file or search a folder on its path; make"
                  " them readable (chmod) or copy the file where you may read it",
}


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
    problem : str
        What is wrong, without the location or the advice.
    hint : str or None
        How to fix it, in the terms of the Python API (a caller such as the command line
        re-words it with :meth:`with_hint`).
    reason : str or None
        A tag for the problems a caller may re-word: ``"zero_index"`` (an index 0 in a
        file read as 1-based), ``"n_features"`` (an index beyond ``n_features``),
        ``"no_examples"``, ``"label"`` (a svmlight line whose first field is not a number),
        ``"pair"`` (a svmlight field after the label that is not ``index:value``),
        ``"encoding"`` (bytes that are not the encoding's text),
        ``"compression"`` (damaged or truncated compressed data).
    """

    def __init__(self, path, line: int | None, message: str, column: int | None = None, *,
                 hint: str | None = None, reason: str | None = None):
        if hasattr(path, "read") and not isinstance(path, (str, os.PathLike)):
            path = getattr(path, "name", "<stream>")
        self.path = str(path)
        self.line = line
        self.column = column
        self.problem = message
        self.hint = hint
        self.reason = reason
        where = self.path if line is None else f"{self.path}:{line}"
        if line is not None and column is not None:
            where += f":{column}"
        super().__init__(f"{where}: {message}" + (f"; {hint}" if hint else ""))

    def with_hint(self, hint: str | None) -> DataFormatError:
        """The same error (file, line, column, problem) with another piece of advice."""
        return DataFormatError(self.path, self.line, self.problem, self.column, hint=hint,
                               reason=self.reason)

    def at_line(self, line: int) -> DataFormatError:
        """The same error on another line (a block's line numbered in the whole file)."""
        return DataFormatError(self.path, line, self.problem, self.column, hint=self.hint,
                               reason=self.reason)


def compression_of(path) -> str | None:
    """The compression extension of ``path`` ('.gz', '.bz2', '.xz') or None."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    return suffix if suffix in _COMPRESSORS else None


FORMATS = ("svmlight", "vw")
# Text per block: 2 MiB streams as fast as larger blocks (per-block costs are small), and
# the blocks in flight (about n_threads + 3, text and matrices) stay within tens of MB.
BLOCK_BYTES = 2 << 20


def format_of(path, format: str | None = None) -> str:
    """``format`` checked, or guessed from the file name: ``.vw`` (before a compression
    extension) is Vowpal Wabbit text, anything else svmlight."""
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"'format' must be one of {', '.join(map(repr, FORMATS))} or None"
                             f" (guessed from the file name); got {format!r}.")
        return format
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else \
        getattr(path, "name", "")
    name = str(name)
    if compression_of(name):
        name = os.path.splitext(name)[0]
    return "vw" if name.lower().endswith(".vw") else "svmlight"


def check_block_bytes(block_bytes) -> int:
    """``block_bytes`` of a reader, checked: an int >= 1."""
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, (int, np.integer)) \
            or block_bytes < 1:
        raise ValueError(f"iter_blocks: 'block_bytes' must be an int >= 1; got"
                         f" {block_bytes!r}. Try 2 << 20 (2 MiB).")
    return int(block_bytes)


def _is_stream(path) -> bool:
    return hasattr(path, "read") and not isinstance(path, (str, bytes, os.PathLike))


def explained(exc: OSError, path) -> OSError:
    """``exc`` (from opening or examining ``path``) with how to fix it after the system's
    words, e.g. ``Too many levels of symbolic links; the symbolic link leads to itself ...``
    (the same type, errno and file name; ``exc`` itself when there is no advice)."""
    hint = _OPEN_HINTS.get(exc.errno)
    if hint is None or not exc.strerror or hint in exc.strerror:
        return exc
    return type(exc)(exc.errno, f"{exc.strerror}; {hint}", os.fspath(path))


def check_readable(path) -> None:
    """Raise an :class:`OSError` that says why and how to fix it unless ``path`` names
    something a reader can open: it exists (through its symbolic links, which must not loop)
    and is not a folder."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    except OSError as exc:
        raise explained(exc, path) from None


def require_regular_file(path, caller: str, why: str) -> None:
    """Raise a ValueError unless ``path`` is a regular file, which can be read twice.

    A pipe, a FIFO, ``/dev/stdin`` or an open file object can be read only once; ``why``
    says what the second pass is for and how to avoid it.
    """
    if _is_stream(path):
        kind = "an open file object"
    else:
        check_readable(path)
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode):
            return
        kind = "a pipe (FIFO)" if stat.S_ISFIFO(mode) else "not a regular file"
    name = getattr(path, "name", "<stream>") if _is_stream(path) else os.fspath(path)
    raise ValueError(f"{caller}: {name} is {kind}, which can be read only once, but {why}.")


@contextlib.contextmanager
def open_binary(path) -> Iterator[IO[bytes]]:
    """Open ``path`` for reading bytes, decompressing by extension.

    An already open binary file object is used as it is (and left open). A file that cannot
    be opened raises an :class:`OSError` that says how to fix it (:func:`explained`); damaged
    or truncated compressed data read in the block raises a :class:`DataFormatError` naming
    the line where the data stops (:func:`_decompression_error`).
    """
    if _is_stream(path):
        f, close = path, False
    else:
        kind = compression_of(path)
        try:
            f = open(path, "rb") if kind is None else _COMPRESSORS[kind].open(path, "rb")
        except OSError as exc:
            raise explained(exc, path) from None
        close = True
    try:
        yield f
    except (EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
        error = _decompression_error(path, exc)
        if error is None:
            raise
        raise error from None
    finally:
        if close:
            f.close()


def _decompression_error(path, exc: BaseException) -> DataFormatError | None:
    """The DataFormatError for ``exc`` raised while decompressing ``path`` (None if ``exc``
    is not a decompression error): at the line where the readable data stops (re-read here,
    for a file), saying what to do."""
    kind = None if _is_stream(path) else compression_of(path)
    # gzip.BadGzipFile and bz2's "Invalid data stream" are OSErrors without an errno
    if isinstance(exc, OSError) and (exc.errno is not None or kind is None) \
            and not isinstance(exc, gzip.BadGzipFile):
        return None
    name = _NAMES.get(kind, "compressed")
    if isinstance(exc, EOFError):
        problem = (f"the {name} data ends before its end-of-stream marker: the file was cut"
                   " short")
        hint = "copy or download it again (an interrupted transfer leaves such a file)"
    else:
        problem = f"the {name} data is damaged ({exc})"
        hint = (f"copy or download it again; if it is not {name}-compressed, rename it"
                f" without {kind}" if kind else "copy or download it again")
    return DataFormatError(path, _lines_before_failure(path, kind), problem, hint=hint,
                           reason="compression")


def compression_damage(path) -> DataFormatError | None:
    """The DataFormatError of a compressed file whose data is damaged or cut short (None
    when it decompresses to its end, or is not a compressed file): damage that decompresses
    to other bytes is found only by the check at the end of the data, after a reader may
    have stumbled on those bytes."""
    kind = None if _is_stream(path) else compression_of(path)
    if kind is None or not os.path.isfile(path):
        return None
    try:
        with _COMPRESSORS[kind].open(path, "rb") as f:
            while f.read(1 << 20):
                pass
    except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        return _decompression_error(path, exc)
    return None


_DECOMPRESSORS = {".gz": lambda: zlib.decompressobj(wbits=31), ".bz2": bz2.BZ2Decompressor,
                  ".xz": lzma.LZMADecompressor}


def _lines_before_failure(path, kind: str | None) -> int | None:
    """The 1-based line on which the decompressed data of the file ``path`` stops (None for
    a stream, which cannot be read again): every byte that decompresses is counted."""
    if kind is None:
        return None
    newlines = 0
    decompressor = _DECOMPRESSORS[kind]()
    with contextlib.suppress(EOFError, zlib.error, lzma.LZMAError, OSError), \
            open(path, "rb") as raw:
        while chunk := raw.read(1 << 16):
            while chunk:
                newlines += decompressor.decompress(chunk).count(b"\n")
                chunk = decompressor.unused_data if decompressor.eof else b""
                if chunk:  # the next member of a multi-member file
                    decompressor = _DECOMPRESSORS[kind]()
    return newlines + 1


def read_text(path, encoding: str = "utf-8") -> str:
    """The whole (decompressed) file decoded as ``encoding``, without a UTF-8 byte-order mark.

    Raises
    ------
    DataFormatError
        Bytes that are not ``encoding`` text, naming the line where they stand.
    ValueError
        ``encoding`` is not the name of a codec Python knows.
    """
    from .._specs import Encoding, check_param

    check_param("load", "encoding", encoding, Encoding())
    with open_binary(path) as f:
        raw = f.read()
    if raw.startswith(BOM) and codecs.lookup(encoding).name == "utf-8":
        raw = raw[len(BOM):]  # a byte-order mark is not part of the first field
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataFormatError(path, line, f"bytes that are not {encoding} text ({exc.reason})",
                              hint="pass the file's encoding=", reason="encoding") from None


def weights_size_if_too_large(n_features: int) -> str | None:
    """None when a float64 weight vector of ``n_features`` can be allocated here, else the
    memory it would take as text (e.g. '7.11 PiB'). The probe allocates and frees at once."""
    try:
        np.empty(n_features, dtype=np.float64)
    except (MemoryError, ValueError):  # ValueError: more bytes than an address can hold
        return byte_size(8.0 * n_features)
    return None


def byte_size(value: float) -> str:
    """A number of bytes as text, e.g. ``byte_size(2**34)`` is '16 GiB'."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024 or unit == "EiB":
            break
        value /= 1024
    return f"{value:.3g} {unit}"


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


def blank_bom(buf: np.ndarray) -> None:
    """Overwrite a UTF-8 byte-order mark at the start of ``buf`` with blanks (in place).

    The parsers skip leading blanks, and byte columns in messages stay those of the file.
    """
    if buf.size >= len(BOM) and bytes(buf[: len(BOM)]) == BOM:
        buf[: len(BOM)] = 32


def _target_mode(path: str) -> int:
    """Permissions for the new file: those of the file it replaces, else 0o666 less umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def _compressed(raw: IO[bytes], kind: str | None) -> Iterator[IO[bytes]]:
    """``raw`` itself, or a compressing stream over it that is closed (flushed) at the end."""
    if kind is None:
        yield raw
        return
    if kind == ".gz":
        stream: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
    elif kind == ".bz2":
        stream = bz2.BZ2File(raw, "wb")
    else:
        stream = lzma.LZMAFile(raw, "wb")
    yield stream
    stream.close()


#: The end of the name of a temporary file of :func:`atomic_write`.
TMP_SUFFIX = ".halfspaces-tmp"
# The temporary files being written by this process (for the signal handlers).
_LIVE: set[str] = set()


def _pid_ended(pid: int) -> bool:
    """Whether no process ``pid`` runs on this machine (False when that cannot be told)."""
    if os.name != "posix":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # e.g. PermissionError: another user's process
        return False
    return False


def remove_stale_temporaries(target: str) -> list[str]:
    """Remove the temporary files of :func:`atomic_write` for ``target`` whose writing
    process has ended (killed while writing); the paths removed."""
    directory, name = os.path.split(target)
    prefix = "." + name + "."
    removed = []
    with contextlib.suppress(OSError), os.scandir(directory or ".") as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith(TMP_SUFFIX)):
                continue
            # PID.XXXXXXXX exactly (the random part has no dot), so that NAME.1's files do
            # not pass for NAME's
            pid, dot, tail = entry.name[len(prefix):-len(TMP_SUFFIX)].partition(".")
            if pid.isdigit() and dot and "." not in tail and _pid_ended(int(pid)):
                with contextlib.suppress(FileNotFoundError):  # another writer was first
                    os.unlink(entry.path)
                    removed.append(entry.path)
    return removed


def _remove_and_die(signum, frame) -> None:
    """A handler of SIGTERM/SIGHUP: remove this process's temporary files, then end by the
    signal's default action (so the exit status says which signal it was)."""
    for tmp in list(_LIVE):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextlib.contextmanager
def temporaries_removed_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP remove the temporary files of the writes under way
    before the process ends (a signal whose handler is not the default one is left alone;
    outside the main thread nothing is installed). The previous handlers come back after."""
    installed = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
                installed[signum] = signal.signal(signum, _remove_and_die)
    try:
        yield
    finally:
        for signum, previous in installed.items():
            signal.signal(signum, previous)


@contextlib.contextmanager
def atomic_write(path, *, compress: bool = True) -> Iterator[IO[bytes]]:
    """Open a binary stream whose bytes replace ``path`` atomically when the block ends.

    With ``compress=True`` the stream compresses by the extension of ``path``. If the block
    raises, the temporary file is removed and ``path`` is left as it was; so it is on
    SIGTERM or SIGHUP. The temporary file is ``.NAME.PID.XXXXXXXX.halfspaces-tmp`` beside
    the target; those left by a writer that was killed are removed first (see the module's
    docstring).

    Only a regular file (or a new one) is replaced: a symbolic link is followed and its
    target replaced, so the link stays; a FIFO, a character device (``/dev/null``, a
    terminal) or a socket is opened and written into directly, since replacing it would
    destroy it (there, a failure can leave part of the output written).
    """
    path = os.fspath(path)
    target = os.path.realpath(path)  # through symbolic links: the link itself stays
    kind = compression_of(path) if compress else None
    try:
        special = not stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        special = False
    if special:
        with open(target, "wb") as raw, _compressed(raw, kind) as stream:
            yield stream
        return
    directory = os.path.dirname(target)
    remove_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=TMP_SUFFIX,
                               prefix=f".{os.path.basename(target)}.{os.getpid()}.")
    _LIVE.add(tmp)
    try:
        with temporaries_removed_on_signals(), os.fdopen(fd, "wb") as raw:
            with _compressed(raw, kind) as stream:
                yield stream
            raw.flush()
            os.fsync(raw.fileno())
            os.chmod(tmp, _target_mode(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        _LIVE.discard(tmp)


def available_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_n_threads(caller: str, n_threads) -> int:
    """``n_threads`` as a positive int (None: one per available core), or a ValueError."""
    if n_threads is None:
        return available_cores()
    if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)) \
            or n_threads < 1:
        raise ValueError(f"{caller}: 'n_threads' must be an int >= 1 or None (one per core);"
                         f" got {n_threads!r}.")
    return int(n_threads)


def _fill(f, view: memoryview) -> int:
    """Read into ``view`` until it is full or the stream ends; the bytes read."""
    got = 0
    while got < len(view):
        n = f.readinto(view[got:])
        if not n:
            break
        got += n
    return got


# Bytes after the last line of a block, for parsers that read 8 bytes at a time
# (halfspaces.datasets._numbers.PAD).
PAD = 8


def read_blocks(path, block_bytes: int) -> Iterator[tuple[np.ndarray, int]]:
    """The (decompressed) file in blocks of whole lines: ``(buf, end)`` with the lines in
    ``buf[:end]``, ``buf[end - 1]`` a newline and ``PAD`` more bytes after it (any values).

    A block holds about ``block_bytes`` bytes cut after its last newline (a longer line makes
    a longer block); a last line without a newline gets one; a UTF-8 byte-order mark at the
    start is blanked (:func:`blank_bom`). Each array is new, writable and C-contiguous.
    """
    from ._numbers import last_newline  # compiled: imported by the readers only

    carry = np.empty(0, dtype=np.uint8)
    first = True
    with open_binary(path) as f:
        while True:
            buf = np.empty(carry.size + block_bytes + PAD, dtype=np.uint8)
            buf[: carry.size] = carry
            got = _fill(f, memoryview(buf)[carry.size : carry.size + block_bytes])
            n = carry.size + got
            if got == 0:
                break
            cut = last_newline(buf, n)
            if cut < 0:  # a line longer than the block: keep reading
                carry = buf[:n]
                continue
            carry = buf[cut + 1 : n].copy()
            if first:
                blank_bom(buf[: cut + 1])
                first = False
            yield buf[: cut + 1 + PAD], cut + 1
    if carry.size:
        buf = np.zeros(carry.size + 1 + PAD, dtype=np.uint8)
        buf[: carry.size] = carry
        buf[carry.size] = 10
        if first:
            blank_bom(buf[: carry.size + 1])
        yield buf, carry.size + 1


class _Failed:
    """An exception raised by the feeding thread, handed to the consumer."""

    def __init__(self, exc: BaseException):
        self.exc = exc


_END = object()


def map_in_order(items: Iterable, fn: Callable, n_threads: int, depth: int) -> Iterator:
    """Yield ``fn(item)`` for each item, in the order of ``items``, computed ahead in threads.

    A background thread draws the items (reading a file there overlaps the consumer's work)
    and submits ``fn`` to ``n_threads`` workers; at most ``depth`` results wait for the
    consumer, which bounds the memory. An exception from ``items`` or ``fn`` is raised to the
    consumer at its place in the order. Closing the generator early stops the feeding
    thread after its current item.
    """
    pending: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=n_threads, thread_name_prefix="halfspaces-parse")

    def put(x) -> bool:
        """Queue x unless the consumer has stopped; whether it was queued."""
        while not stop.is_set():
            try:
                pending.put(x, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def feed():
        source = iter(items)
        try:
            for item in source:
                if not put(pool.submit(fn, item)):
                    return
            put(_END)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            put(_Failed(exc))
        finally:
            close = getattr(source, "close", None)
            if close is not None:  # a generator: close its file now, in this thread
                close()

    feeder = threading.Thread(target=feed, name="halfspaces-read", daemon=True)
    feeder.start()
    try:
        while True:
            got = pending.get()
            if got is _END:
                return
            if isinstance(got, _Failed):
                raise got.exc
            yield got.result()
    finally:
        stop.set()
        with contextlib.suppress(queue.Empty):
            while True:  # unblock a feeder waiting to put
                pending.get_nowait()
        feeder.join()
        pool.shutdown(wait=True, cancel_futures=True)
