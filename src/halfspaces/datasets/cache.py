"""A binary cache of a parsed data file, as Vowpal Wabbit's ``--cache``: read the text once.

:func:`open_cached` parses an svmlight or VW file once and writes its rows as CSR blocks of
``.npy`` files (never pickle) beside it, or in ``cache_dir``, with a ``header.json`` (the
source's fingerprint, the reader's options, the shape, the classes, the size and CRC-32 of
every file); every later pass, in this run or a later one, maps the blocks
(``np.load(mmap_mode="r")``) instead of parsing text.

It is written to a temporary directory and renamed when complete; the source's fingerprint
is taken again after the pass (a file that changed meanwhile is refused). On opening, a
stale cache, or one of an older version, is rebuilt; a directory that is not such a cache,
or a damaged one, is refused with a message. Each file's size is checked on opening, its
CRC-32 the first time it is mapped, and each block's CSR structure the first time it is
read. Several processes may read and build one cache at once (a shared ``flock`` on the
directory; a rebuild renames the old cache aside, removed once no process holds it). The
blocks of an svmlight file are exactly :func:`~halfspaces.datasets.load_svmlight` of it,
cut into blocks; those of a VW file :func:`~halfspaces.datasets.load_vw`'s. The layout and
the checks in full: docs/internals.md.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import mmap
import os
import secrets
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

try:
    import fcntl
except ImportError:  # not POSIX: no locks (and nothing set aside is removed)
    fcntl = None

from ._fingerprint import check_unchanged, file_fingerprint
from ._io import (
    BLOCK_BYTES,
    DataFormatError,
    check_block_bytes,
    check_n_threads,
    format_of,
    require_regular_file,
)

__all__ = ["open_cached", "CachedData", "CacheError"]

CACHE_BLOCK_BYTES = 8 << 20  # text per cache block: fewer files than a stream's blocks
FORMAT_TAG = "halfspaces-block-cache"
VERSION = 2
SUFFIX = ".hscache"


class CacheError(ValueError):
    """A cache directory that cannot be used (not a cache of this format, or damaged)."""


def cache_path(path, cache_dir=None) -> Path:
    """Where the cache of ``path`` lives: ``<path>.hscache`` beside it, or in ``cache_dir``
    under the file's name and a digest of its absolute path (two files of one name do not
    collide)."""
    source = Path(os.path.abspath(os.fspath(path)))
    if cache_dir is None:
        return source.with_name(source.name + SUFFIX)
    digest = hashlib.sha256(str(source).encode()).hexdigest()[:16]
    return Path(cache_dir) / f"{source.name}.{digest}{SUFFIX}"


def _damaged(path: Path, problem: str) -> CacheError:
    """The error for the file ``path`` of a cache."""
    return CacheError(f"{path}: {problem}: the cache is damaged; delete the directory"
                      f" {path.parent} to rebuild it.")


class CachedData:
    """A cache opened by :func:`open_cached`: iterate it for ``(X, y)`` blocks (each pass
    maps the blocks again), or :meth:`load` it whole.

    It holds the cache's directory open, locked shared (``flock``), until :meth:`close` (or
    until it is garbage collected): every file is opened in that directory, the one whose
    header was checked, and a process that rebuilds the cache moves it aside and leaves it
    in place while it is locked.

    Attributes
    ----------
    directory : Path
    header : dict, the parsed ``header.json``
    n_rows, nnz, n_features : int
    zero_based : bool, the indexing the reader resolved
    classes : ndarray of float64, the distinct labels, sorted
    weighted : bool, whether some example's weight is not 1 (VW importance weights)
    """

    def __init__(self, directory: Path, header: dict, fd: int | None = None):
        self.directory = Path(directory)
        self.header = header
        self.n_rows = int(header["n_rows"])
        self.nnz = int(header["nnz"])
        self.n_features = int(header["n_features"])
        self.zero_based = bool(header["zero_based"])
        self.classes = np.array(header["classes"], dtype=np.float64)
        self.weighted = bool(header["weighted"])
        self._fd = fd
        # the dtype each block's float arrays must have: the header's for the values
        self._floats = {"data": np.dtype(header["dtype"]), "labels": np.dtype(np.float64),
                        "weights": np.dtype(np.float64)}
        self._layouts: dict[str, tuple] = {}  # (shape, dtype, offset) of each .npy file read
        self._checked: set[int] = set()  # the blocks whose CSR structure was checked

    def close(self) -> None:
        """Release the directory (the arrays already mapped stay readable)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self):
        self.close()

    def __enter__(self) -> CachedData:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _open(self, name: str) -> int:
        if self._fd is None:
            return os.open(self.directory / name, os.O_RDONLY)
        return os.open(name, os.O_RDONLY, dir_fd=self._fd)

    def _map(self, k: int, what: str) -> np.ndarray:
        """Block ``k``'s array ``what``, memory-mapped read-only, as
        ``np.load(mmap_mode="r")`` maps it, with each file's header read once: every pass
        maps the blocks again (so that only the blocks in use are mapped), and np.load's
        header parsing and path resolution, four files a block, were a large part of a
        pass's time outside the compiled pass. The first time a file is mapped, its size and CRC-32
        are checked against those recorded in ``header.json``."""
        name = f"{k:06d}.{what}.npy"
        try:
            fd = self._open(name)
        except FileNotFoundError:
            raise _damaged(self.directory / name, "the file is missing") from None
        with open(fd, "rb") as fh:
            layout = self._layouts.get(name)
            if layout is None:
                _verify(fh, self.directory / name, self.header["files"].get(name))
                try:  # np.save writes 1.0 (2.0: huge headers)
                    version = np.lib.format.read_magic(fh)
                    read = {(1, 0): np.lib.format.read_array_header_1_0,
                            (2, 0): np.lib.format.read_array_header_2_0}[version]
                    shape, fortran, dtype = read(fh)
                except Exception as exc:  # numpy's parser raises ValueError, SyntaxError,
                    # tokenize.TokenError, ... on a damaged header
                    raise _damaged(self.directory / name, f"its .npy header cannot be read"
                                   f" ({exc})") from None
                if (dtype.kind not in _KINDS[what] or fortran or len(shape) != 1
                        or dtype != self._floats.get(what, dtype)):
                    raise _damaged(self.directory / name, f"it holds an array of {dtype} and"
                                   f" shape {shape}, not the cache's")
                layout = (shape, dtype, fh.tell())
                if os.fstat(fh.fileno()).st_size - layout[2] < int(np.prod(shape)) * \
                        dtype.itemsize:
                    raise _damaged(self.directory / name, "the file is shorter than its"
                                   " array (truncated)")
                self._layouts[name] = layout
            shape, dtype, offset = layout
            count = int(np.prod(shape))
            if count == 0:  # mmap cannot map an empty range
                return np.empty(shape, dtype=dtype)
            buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        if len(buffer) - offset < count * dtype.itemsize:  # shortened since it was checked
            raise _damaged(self.directory / name, "the file is shorter than its array"
                           " (truncated)")
        return np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)

    def __iter__(self) -> Iterator[tuple]:
        return self.blocks()

    def blocks(self, *, weights: bool = False) -> Iterator[tuple]:
        """Yield ``(X, y)`` (or ``(X, y, sample_weight)``, None for a svmlight file, which
        has no weights) for each block, memory-mapped: only the blocks in use are mapped, so
        memory stays bounded (see :meth:`block`)."""
        for k in range(len(self.header["blocks"])):
            yield self.block(k, weights=weights)

    def block(self, k: int, *, weights: bool = False) -> tuple:
        """Block ``k`` as :meth:`blocks` yields it, memory-mapped. Its CSR structure is
        checked (row pointers, column indices in range, sorted and without repeats, as the
        cache writes them) the first time it is read."""
        from .._csr import OK, csr_fault

        has_weights = self.header["reader"]["format"] == "vw"
        rows, nnz = self.header["blocks"][k]
        arrays = [self._map(k, what) for what in ("data", "indices", "indptr", "labels")]
        data, indices, indptr, labels = arrays
        if data.shape != (nnz,) or indptr.shape != (rows + 1,) or labels.shape != (rows,) \
                or indices.shape != (nnz,):
            raise CacheError(f"{self.directory}: block {k} does not match header.json (the"
                             " cache is damaged); delete the directory to rebuild it.")
        if indptr[0] != 0 or indptr[-1] != nnz:
            raise CacheError(f"{self.directory}: block {k}'s row pointers do not run from"
                             f" 0 to its {nnz} entries (the cache is damaged); delete the"
                             " directory to rebuild it.")
        X = sp.csr_matrix((data, indices, indptr), shape=(rows, self.n_features))
        fault, row, canonical = OK, -1, True
        if k not in self._checked:  # files checked once, opened in a locked directory
            fault, row, _, canonical = csr_fault(X, finite=False)
        if fault != OK or not canonical:
            if fault == OK and not canonical:  # the first row whose indices repeat
                p = np.flatnonzero(np.diff(indices) <= 0) + 1
                row = int(np.searchsorted(indptr, p[~np.isin(p, indptr)][0], "right")) - 1
            raise CacheError(f"{self.directory}: block {k} is not a valid CSR matrix (row"
                             f" {max(row, 0)} of the block: its row pointers or column"
                             " indices are out of range, unsorted or repeated); the cache"
                             " is damaged; delete the directory to rebuild it.")
        self._checked.add(k)
        X.has_sorted_indices = True
        if not weights:
            return X, labels
        w = self._map(k, "weights") if has_weights else None
        if w is not None and w.shape != (rows,):
            raise CacheError(f"{self.directory}: block {k}'s weights do not match"
                             " header.json (the cache is damaged); delete the"
                             " directory to rebuild it.")
        return X, labels, w

    def load(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """The whole data in memory, ``(X, y)``, as the loaders return it."""
        blocks = list(self.blocks())
        return (sp.vstack([b[0] for b in blocks], format="csr"),
                np.concatenate([b[1] for b in blocks]))


# The kinds of dtype of each array of a block (float data, integer indices, float labels).
_KINDS = {"data": "f", "indices": "iu", "indptr": "iu", "labels": "f", "weights": "f"}


def _verify(fh, path: Path, record) -> None:
    """Refuse the open file ``fh`` unless its size and CRC-32 are ``record``'s."""
    if not isinstance(record, list) or len(record) != 2:
        raise _damaged(path, "header.json records no checksum of it")
    size = os.fstat(fh.fileno()).st_size
    if size != record[0]:
        raise _damaged(path, f"the file has {size:,} bytes, and the cache wrote {record[0]:,}"
                       + (" (truncated)" if size < record[0] else ""))
    crc = 0
    if size:
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            crc = zlib.crc32(view)
    if crc != record[1]:
        raise _damaged(path, "its content is not what the cache wrote (its CRC-32 differs)")


def _read_header(directory: Path, fd: int | None = None) -> dict:
    """The header of an existing directory (``fd``: opened), or a CacheError saying why it
    cannot be used."""
    try:
        if fd is None:
            text = (directory / "header.json").read_bytes()
        else:
            with open(os.open("header.json", os.O_RDONLY, dir_fd=fd), "rb") as fh:
                text = fh.read()
        header = json.loads(text)
    except FileNotFoundError:
        raise CacheError(f"{directory} exists but is not a halfspaces cache (it has no"
                         " header.json); remove it or pass another cache_dir.") from None
    except (OSError, ValueError) as exc:
        raise CacheError(f"{directory}/header.json cannot be read ({exc}): the cache is"
                         " damaged; delete the directory to rebuild it.") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_TAG:
        raise CacheError(f"{directory} is not a halfspaces cache (header.json has no format"
                         f" {FORMAT_TAG!r}); remove it or pass another cache_dir.")
    version = header.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise CacheError(f"{directory} is a halfspaces cache of version {version!r}, this"
                         f" library reads version {VERSION}; delete the directory to rebuild"
                         " it.")
    return header  # an older version is stale: rebuilt


def _check_blocks(directory: Path, header: dict, fd: int | None) -> None:
    """Refuse a cache whose block files are missing or of another size than it wrote."""
    def count(x) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and x >= 0

    try:
        blocks, files = header["blocks"], header["files"]
        well_formed = (
            all(count(header[key]) for key in ("n_rows", "nnz", "n_features"))
            and isinstance(header["zero_based"], bool)
            and header["dtype"] in ("float64", "float32")
            and isinstance(header["classes"], list)
            and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                    for c in header["classes"])
            and isinstance(blocks, list) and len(blocks) > 0 and isinstance(files, dict)
            and all(isinstance(b, list) and len(b) == 2 and count(b[0]) and count(b[1])
                    for b in blocks)
            and sum(b[0] for b in blocks) == header["n_rows"]
            and sum(b[1] for b in blocks) == header["nnz"])
        arrays = ("data", "indices", "indptr", "labels") + (
            ("weights",) if header["reader"]["format"] == "vw" else ())
        names = [f"{k:06d}.{what}.npy" for k in range(len(blocks)) for what in arrays]
        sizes = {name: files[name][0] for name in names}
        if not well_formed or not all(count(size) for size in sizes.values()):
            raise TypeError
    except (KeyError, TypeError, IndexError):
        raise CacheError(f"{directory}/header.json lacks the block layout: the cache is"
                         " damaged; delete the directory to rebuild it.") from None
    missing = []
    for name in names:
        try:
            size = os.stat(name, dir_fd=fd).st_size if fd is not None else \
                os.stat(directory / name).st_size
        except FileNotFoundError:
            missing.append(name)
            continue
        if size != sizes[name]:
            raise _damaged(directory / name, f"the file has {size:,} bytes, and the cache"
                           f" wrote {sizes[name]:,}" + (" (truncated)" if size < sizes[name]
                                                        else ""))
    if missing:
        raise CacheError(f"{directory} lacks {missing[0]} (and {len(missing) - 1} more"
                         " files): the cache is damaged; delete the directory to rebuild it.")


def _lock(fd: int, exclusive: bool = False, wait: bool = True) -> bool:
    """``flock`` the directory ``fd`` (True: locked; False: held by another, ``wait``
    false); a no-op where there is no flock."""
    if fcntl is None:
        return True
    flags = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        fcntl.flock(fd, flags if wait else flags | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _open_locked(directory: Path) -> int | None:
    """The directory ``directory`` opened and locked shared (None: there is none); the one
    at that path once the lock is held (a rebuild may have moved it aside meanwhile)."""
    for _ in range(100):
        try:
            fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            raise CacheError(f"{directory} exists but is not a halfspaces cache (it is not a"
                             " directory); remove it or pass another cache_dir.") from None
        _lock(fd)
        if _same(directory, fd):
            return fd
        os.close(fd)
    raise CacheError(f"{directory} keeps being replaced by other processes; run again.")


def _remove_unused(directory: Path) -> None:
    """Remove the temporary and set-aside directories of ``directory``'s cache that no
    process holds (a reader's shared lock, or a builder's, keeps one)."""
    prefix = "." + directory.name + "."
    with contextlib.suppress(OSError), os.scandir(directory.parent) as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith((".tmp", ".old"))
                    and entry.is_dir(follow_symlinks=False)):
                continue
            try:
                fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                continue
            try:
                if fcntl is not None and _lock(fd, exclusive=True, wait=False) \
                        and _same(entry.path, fd):
                    shutil.rmtree(entry.path, ignore_errors=True)
            finally:
                os.close(fd)


def _same(path, fd: int) -> bool:
    """Whether ``path`` is the directory open as ``fd``."""
    try:
        here = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (here.st_ino, here.st_dev) == (mine.st_ino, mine.st_dev)


def _set_aside(directory: Path) -> None:
    """Move the cache at ``directory`` aside (its readers keep reading it) and remove it
    unless a process holds it."""
    old = directory.with_name(f".{directory.name}.{os.getpid()}.{secrets.token_hex(8)}.old")
    with contextlib.suppress(FileNotFoundError):  # (another process moved it first)
        os.rename(directory, old)
    _remove_unused(directory)


def _new_temporary(directory: Path) -> tuple[Path, int]:
    """A new empty directory beside ``directory``, opened and locked shared (so that no
    other process removes it while it is written and read)."""
    for _ in range(100):
        tmp = Path(tempfile.mkdtemp(prefix="." + directory.name + ".", suffix=".tmp",
                                    dir=directory.parent))
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        _lock(fd)
        if _same(tmp, fd):
            return tmp, fd
        os.close(fd)  # removed as unused before it was locked: another one
    raise CacheError(f"cannot make a temporary directory beside {directory}: they keep being"
                     " removed by other processes; run again.")


def open_cached(
    path: str | os.PathLike,
    cache_dir: str | os.PathLike | None = None,
    *,
    format: str | None = None,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    dtype=np.float64,
    block_bytes: int = CACHE_BLOCK_BYTES,
    n_threads: int | None = None,
    hash_features: bool = True,
    seed: int = 0,
) -> CachedData:
    """The cache of the data file ``path``: opened if valid, else built by one pass.

    Parameters
    ----------
    path : str or path-like
        A regular file (svmlight or VW text, plain or ``.gz``/``.bz2``/``.xz``).
    cache_dir : str, path-like or None, default=None
        Directory of the cache; None puts it beside the file (``<path>.hscache``).
    format, n_features, zero_based, dtype, block_bytes, n_threads, hash_features, seed
        As in :func:`~halfspaces.datasets.iter_blocks` (``block_bytes``, the text per cache
        block, defaults to 8 MiB); they are recorded in the header, and a cache built with
        other values is rebuilt. ``zero_based="auto"`` is decided by the
        whole file (as :func:`~halfspaces.datasets.load_svmlight` decides it).

    Returns
    -------
    CachedData
        Iterate it for the blocks ``(X, y)`` (memory-mapped); ``n_rows``, ``n_features``,
        ``classes`` and ``zero_based`` come from the header.

    Raises
    ------
    CacheError
        The directory exists and is not a cache of this format, or is damaged.
    DataFormatError
        The text is malformed (nothing is left on disk).

    Examples
    --------
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> path = os.path.join(root, "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:0.5 3:2\\n-1 2:1\\n")
    >>> cached = open_cached(path)              # parses the text, writes tiny.svm.hscache
    >>> [(X.shape, y.tolist()) for X, y in cached]
    [((2, 3), [1.0, -1.0])]
    >>> open_cached(path).n_rows                # later: read from the cache, no parsing
    2
    """
    fmt = format_of(path, format)
    block_bytes = check_block_bytes(block_bytes)
    n_threads = check_n_threads("open_cached", n_threads)
    require_regular_file(path, "open_cached", "the cache records the file's fingerprint"
                         " to know when it is stale; save the stream to a file first")
    dt = np.dtype(dtype)
    options = {"format": fmt, "n_features": n_features, "zero_based": zero_based,
               "dtype": dt.name, "block_bytes": block_bytes}
    if fmt == "vw":
        options.update(hash_features=bool(hash_features), seed=int(seed))
    directory = cache_path(path, cache_dir)
    fingerprint = file_fingerprint(path)
    fd = _open_locked(directory)
    if fd is not None:
        try:
            header = _read_header(directory, fd)
            if _current(header, fingerprint, options):
                _check_blocks(directory, header, fd)
                _remove_unused(directory)  # left by processes that held them
                return CachedData(directory, header, fd)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    directory.parent.mkdir(parents=True, exist_ok=True)
    return _build(path, directory, options, n_threads, fingerprint)


def _current(header: dict, fingerprint: dict, options: dict) -> bool:
    """Whether the cache of ``header`` is of this version, of this source (its
    fingerprint), read with these options, and records whether its weights are all 1 (a
    cache that does not is rebuilt, so that its weights are never read as absent)."""
    return (header.get("version") == VERSION and header.get("source") == fingerprint
            and header.get("reader") == options and isinstance(header.get("weighted"), bool))


def _build(path, directory: Path, options: dict, n_threads: int,
           fingerprint: dict) -> CachedData:
    """Parse ``path`` into a temporary directory beside ``directory``, then rename it into
    place; a cache of this format there is set aside first (its readers keep it), unless it
    is current (another process built it meanwhile): then it is used, and this one
    removed."""
    _remove_unused(directory)
    tmp, fd = _new_temporary(directory)
    try:
        if options["format"] == "svmlight":
            layout = _write_svmlight(path, tmp, options, n_threads)
        else:
            layout = _write_vw(path, tmp, options, n_threads)
        check_unchanged(path, fingerprint)
        header = {"format": FORMAT_TAG, "version": VERSION, "source": fingerprint,
                  "reader": options, **layout, "files": _checksums(tmp)}
        (tmp / "header.json").write_text(json.dumps(header, indent=1))
        os.chmod(tmp, 0o777 & ~_umask())
        for _ in range(100):
            try:
                os.rename(tmp, directory)
                return CachedData(directory, header, fd)
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
            other = _open_locked(directory)
            if other is None:  # set aside meanwhile
                continue
            try:
                theirs = _read_header(directory, other)  # only a cache is replaced
                if _current(theirs, fingerprint, options):
                    _check_blocks(directory, theirs, other)
                    shutil.rmtree(tmp)
                    os.close(fd)
                    return CachedData(directory, theirs, other)
            except BaseException:
                os.close(other)
                raise
            os.close(other)
            _set_aside(directory)
        raise CacheError(f"{directory} keeps being replaced by other processes; run again.")
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
        raise


def _checksums(directory: Path) -> dict:
    """The size and CRC-32 of each ``.npy`` file of ``directory``, by name."""
    files = {}
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        with open(entry.path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            crc = 0
            if size:
                with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
                    crc = zlib.crc32(view)
        files[entry.name] = [size, crc]
    return files


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _save(directory: Path, k: int, what: str, array: np.ndarray) -> None:
    np.save(directory / f"{k:06d}.{what}.npy", array, allow_pickle=False)


def _write_svmlight(path, tmp: Path, options: dict, n_threads: int) -> dict:
    """Parse the svmlight file block by block (as load_svmlight, without holding it), then
    shift the indices once the whole file has decided the indexing.

    The text is parsed in a stream's blocks (``stream.BLOCK_BYTES``) and each cache block
    saved from about ``block_bytes`` of them: parsing 8 MB blocks, three of them in flight
    in the threads (float64 values and int64 indices, about 16 bytes an entry), took the
    build of a 2 GB file's cache to 312 MB of peak memory, against 210 MB for a stream."""
    from . import svmlight as svm
    from ._svmlight_blocks import _index_dtype

    zero_based = options["zero_based"]
    svm._check_zero_based(zero_based)
    dt = svm._check_dtype(options["dtype"])
    n_cols = svm._check_n_features(options["n_features"])
    lines = svm._Lines(path, zero_based=zero_based, n_cols=n_cols)
    # With the columns and the indexing given, the indices are final as parsed; else the
    # whole file decides them, and the blocks' indices are rewritten at the end.
    final = n_cols is not None and zero_based != "auto"
    layout, classes, nnz_total, group, text = [], [], 0, [], 0

    def save_group():
        k = len(layout)
        data, indices, indptr, labels = _stacked(group)
        with np.errstate(over="ignore"):  # float32 overflows to inf, as in scikit-learn
            _save(tmp, k, "data", data.astype(dt, copy=False))
        if final:
            it = _index_dtype(n_cols, indices.size)
            _save(tmp, k, "indices", np.subtract(indices, int(not zero_based), dtype=it,
                                                 casting="unsafe"))
            _save(tmp, k, "indptr", indptr.astype(it))
        else:  # the file's numbering, for now
            _save(tmp, k, "indices", indices)
            _save(tmp, k, "indptr", indptr)
        _save(tmp, k, "labels", labels)
        layout.append([labels.size, int(indices.size)])
        classes.append(np.unique(labels))
        group.clear()

    for block in svm._parsed_blocks(path, min(BLOCK_BYTES, options["block_bytes"]),
                                    n_threads, zero_based=zero_based, n_cols=n_cols):
        size = block.buf.size
        lines.take(block)  # (releases the block's text)
        text += size
        if block.n_rows:
            group.append(block)
            nnz_total += block.indices.size
        if group and text >= options["block_bytes"]:
            save_group()
            text = 0
    if group:
        save_group()
    if not layout:
        raise svm.no_examples(path)
    n_cols, zero_based = svm.decide_columns(path, lines, nnz_total, n_cols, zero_based)
    shift = int(not zero_based)
    for k, (_, nnz) in enumerate([] if final else layout):  # 0-based, int32 when they fit
        it = _index_dtype(n_cols, nnz)
        indices = np.load(tmp / f"{k:06d}.indices.npy")
        _save(tmp, k, "indices", np.subtract(indices, shift, dtype=it, casting="unsafe"))
        _save(tmp, k, "indptr", np.load(tmp / f"{k:06d}.indptr.npy").astype(it))
    return {"n_rows": sum(r for r, _ in layout), "nnz": int(nnz_total), "n_features": n_cols,
            "zero_based": bool(zero_based), "dtype": np.dtype(dt).name,
            "classes": np.unique(np.concatenate(classes)).tolist(), "blocks": layout,
            "weighted": False}


def _stacked(blocks: list) -> tuple:
    """``(data, indices, indptr, labels)`` of parsed blocks one after another (indices in the
    file's numbering, int64; indptr int64)."""
    if len(blocks) == 1:
        b = blocks[0]
        return b.data, b.indices, b.indptr, b.labels
    starts = np.cumsum([0] + [b.indices.size for b in blocks[:-1]])
    indptr = np.concatenate([blocks[0].indptr[:1]] + [b.indptr[1:] + start for b, start in
                                                       zip(blocks, starts, strict=True)])
    return (np.concatenate([b.data for b in blocks]),
            np.concatenate([b.indices for b in blocks]), indptr.astype(np.int64),
            np.concatenate([b.labels for b in blocks]))


def _write_vw(path, tmp: Path, options: dict, n_threads: int) -> dict:
    from . import vw

    n_features, hash_features = options["n_features"], options["hash_features"]
    if n_features is None and hash_features:
        n_features = 2**18
    dt = vw._check_common(n_features, hash_features, options["zero_based"], options["dtype"])
    shift, n_cols = vw._stream_columns(path, "open_cached", n_features, hash_features,
                                       options["seed"], options["zero_based"])
    layout, classes, weighted = [], [], False
    for k, (X, y, w) in enumerate(vw._vw_blocks(path, n_cols, hash_features, options["seed"],
                                                shift, dt, True, options["block_bytes"],
                                                n_threads)):
        for what, array in (("data", X.data), ("indices", X.indices), ("indptr", X.indptr),
                            ("labels", y), ("weights", w)):
            _save(tmp, k, what, array)
        layout.append([X.shape[0], int(X.nnz)])
        classes.append(np.unique(y))
        weighted = weighted or bool(np.any(w != 1.0))
    if not layout:
        raise DataFormatError(path, None, "no examples in the file (it is empty, or has only"
                              " blank lines)", reason="no_examples")
    return {"n_rows": sum(r for r, _ in layout), "nnz": sum(z for _, z in layout),
            "n_features": int(n_cols), "zero_based": not shift, "dtype": dt.name,
            "classes": np.unique(np.concatenate(classes)).tolist(), "blocks": layout,
            "weighted": weighted}
