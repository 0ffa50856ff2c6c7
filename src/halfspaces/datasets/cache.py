"""A binary cache of a parsed data file, as Vowpal Wabbit's ``--cache``: read the text once.

:func:`open_cached` parses an svmlight or VW file once and writes its rows as CSR blocks of
``.npy`` files (never pickle) beside it, or in ``cache_dir``; every later pass, in this run or
a later one, maps the blocks (``np.load(mmap_mode="r")``) instead of parsing text, so
multi-epoch training from a file reads the text once. The directory holds::

    header.json          format tag and version; the source's path, size and modification
                         time; the reader's options; n_rows, nnz, n_features, the indexing
                         (zero_based, as resolved), the dtypes, the classes, the blocks,
                         weighted (whether any VW importance weight is not 1)
    000000.data.npy      values (float64 or float32, as parsed)
    000000.indices.npy   0-based column indices (int32 when they fit, else int64)
    000000.indptr.npy    row pointers of the block (from 0)
    000000.labels.npy    labels (float64)
    000000.weights.npy   VW: the importance weights (float64; 1 where a line gives none)
    ...

It is written to a temporary directory beside its final place and renamed when complete, so
an interrupted pass leaves no half cache. On opening, the header is checked against the
source file (size and modification time) and the options: a stale cache is rebuilt; a
directory that is not such a cache, or a damaged one, is refused with a message (nothing is
deleted but a cache of this format); a cache written before the header recorded the
weights is rebuilt (so that its weights are never read as absent). The blocks of an svmlight
file are exactly :func:`~halfspaces.datasets.load_svmlight` of it, cut into blocks
(``zero_based="auto"`` decided by the whole file, as there); those of a VW file
:func:`~halfspaces.datasets.load_vw`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._io import DataFormatError, check_n_threads, require_regular_file
from .stream import _check_block_bytes, format_of

__all__ = ["open_cached", "CachedData", "CacheError"]

CACHE_BLOCK_BYTES = 8 << 20  # text per cache block: fewer files than a stream's blocks
FORMAT_TAG = "halfspaces-block-cache"
VERSION = 1
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


def _source_stamp(path) -> dict:
    info = os.stat(path)
    return {"path": os.path.abspath(os.fspath(path)), "size": info.st_size,
            "mtime_ns": info.st_mtime_ns}


class CachedData:
    """A cache opened by :func:`open_cached`: iterate it for ``(X, y)`` blocks (each pass
    maps the blocks again), or :meth:`load` it whole.

    Attributes
    ----------
    directory : Path
    header : dict, the parsed ``header.json``
    n_rows, nnz, n_features : int
    zero_based : bool, the indexing the reader resolved
    classes : ndarray of float64, the distinct labels, sorted
    weighted : bool, whether some example's weight is not 1 (VW importance weights)
    """

    def __init__(self, directory: Path, header: dict):
        self.directory = Path(directory)
        self.header = header
        self.n_rows = int(header["n_rows"])
        self.nnz = int(header["nnz"])
        self.n_features = int(header["n_features"])
        self.zero_based = bool(header["zero_based"])
        self.classes = np.array(header["classes"], dtype=np.float64)
        self.weighted = bool(header["weighted"])
        self._layouts: dict[Path, tuple] = {}  # (shape, dtype, offset) of each .npy file read

    def _file(self, k: int, what: str) -> Path:
        return self.directory / f"{k:06d}.{what}.npy"

    def _map(self, k: int, what: str) -> np.ndarray:
        """Block ``k``'s array ``what``, memory-mapped read-only, as
        ``np.load(mmap_mode="r")`` maps it, with each file's header read once: every pass
        maps the blocks again (so that only the blocks in use are mapped), and np.load's
        header parsing and path resolution took about 0.3 ms a file, 4 files a block (on
        200,000 x 100,000 rows of 80 entries, 50 blocks, about half of a pass's time
        outside the compiled pass)."""
        path = self._file(k, what)
        with open(path, "rb") as fh:
            layout = self._layouts.get(path)
            if layout is None:
                version = np.lib.format.read_magic(fh)
                if version not in ((1, 0), (2, 0)):  # np.save writes 1.0 (2.0: huge headers)
                    return np.load(path, mmap_mode="r")
                read = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                        np.lib.format.read_array_header_2_0)
                shape, _, dtype = read(fh)
                if dtype.hasobject:
                    raise CacheError(f"{path} holds Python objects, not numbers: the cache is"
                                     " damaged; delete the directory to rebuild it.")
                layout = self._layouts[path] = (shape, dtype, fh.tell())
            shape, dtype, offset = layout
            count = int(np.prod(shape))
            if count == 0:  # mmap cannot map an empty range
                return np.empty(shape, dtype=dtype)
            buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        return np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)

    def __iter__(self) -> Iterator[tuple]:
        return self.blocks()

    def blocks(self, *, weights: bool = False) -> Iterator[tuple]:
        """Yield ``(X, y)`` (or ``(X, y, sample_weight)``, None for a svmlight file, which
        has no weights) for each block, memory-mapped: only the blocks in use are mapped, so
        memory stays bounded."""
        has_weights = self.header["reader"]["format"] == "vw"
        for k, (rows, nnz) in enumerate(self.header["blocks"]):
            arrays = [self._map(k, what) for what in ("data", "indices", "indptr", "labels")]
            data, indices, indptr, labels = arrays
            if data.shape != (nnz,) or indptr.shape != (rows + 1,) or labels.shape != (rows,):
                raise CacheError(f"{self.directory}: block {k} does not match header.json (the"
                                 " cache is damaged); delete the directory to rebuild it.")
            X = sp.csr_matrix((data, indices, indptr), shape=(rows, self.n_features))
            X.has_sorted_indices = True
            if weights:
                w = self._map(k, "weights") if has_weights else None
                if w is not None and w.shape != (rows,):
                    raise CacheError(f"{self.directory}: block {k}'s weights do not match"
                                     " header.json (the cache is damaged); delete the"
                                     " directory to rebuild it.")
                yield X, labels, w
            else:
                yield X, labels

    def load(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """The whole data in memory, ``(X, y)``, as the loaders return it."""
        blocks = list(self.blocks())
        return (sp.vstack([b[0] for b in blocks], format="csr"),
                np.concatenate([b[1] for b in blocks]))


def _read_header(directory: Path) -> dict:
    """The header of an existing directory, or a CacheError saying why it cannot be used."""
    try:
        header = json.loads((directory / "header.json").read_text())
    except FileNotFoundError:
        raise CacheError(f"{directory} exists but is not a halfspaces cache (it has no"
                         " header.json); remove it or pass another cache_dir.") from None
    except (OSError, ValueError) as exc:
        raise CacheError(f"{directory}/header.json cannot be read ({exc}): the cache is"
                         " damaged; delete the directory to rebuild it.") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_TAG:
        raise CacheError(f"{directory} is not a halfspaces cache (header.json has no format"
                         f" {FORMAT_TAG!r}); remove it or pass another cache_dir.")
    if header.get("version") != VERSION:
        raise CacheError(f"{directory} is a halfspaces cache of version"
                         f" {header.get('version')!r}, this library reads version {VERSION};"
                         " delete the directory to rebuild it.")
    return header


def _check_blocks(directory: Path, header: dict) -> None:
    """Refuse a cache whose block files are missing."""
    try:
        blocks = header["blocks"]
        for key in ("n_rows", "nnz", "n_features", "zero_based", "classes"):
            header[key]  # noqa: B018 - a missing key raises
        arrays = ("data", "indices", "indptr", "labels") + (
            ("weights",) if header["reader"]["format"] == "vw" else ())
        missing = [f"{k:06d}.{what}.npy" for k in range(len(blocks)) for what in arrays
                   if not (directory / f"{k:06d}.{what}.npy").is_file()]
    except (KeyError, TypeError):
        raise CacheError(f"{directory}/header.json lacks the block layout: the cache is"
                         " damaged; delete the directory to rebuild it.") from None
    if missing:
        raise CacheError(f"{directory} lacks {missing[0]} (and {len(missing) - 1} more"
                         " files): the cache is damaged; delete the directory to rebuild it.")


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
    block_bytes = _check_block_bytes(block_bytes)
    n_threads = check_n_threads("open_cached", n_threads)
    require_regular_file(path, "open_cached", "the cache records the file's size and"
                         " modification time to know when it is stale; save the stream to"
                         " a file first")
    dt = np.dtype(dtype)
    options = {"format": fmt, "n_features": n_features, "zero_based": zero_based,
               "dtype": dt.name, "block_bytes": block_bytes}
    if fmt == "vw":
        options.update(hash_features=bool(hash_features), seed=int(seed))
    directory = cache_path(path, cache_dir)
    if directory.exists():
        header = _read_header(directory)
        if _current(header, _source_stamp(path), options):
            _check_blocks(directory, header)
            return CachedData(directory, header)
    directory.parent.mkdir(parents=True, exist_ok=True)
    header = _build(path, directory, options, n_threads)
    return CachedData(directory, header)


def _current(header: dict, stamp: dict, options: dict) -> bool:
    """Whether the cache of ``header`` is of this source, read with these options, and
    records whether its weights are all 1 (a cache written before it did is rebuilt)."""
    return (header.get("source") == stamp and header.get("reader") == options
            and isinstance(header.get("weighted"), bool))


def _build(path, directory: Path, options: dict, n_threads: int) -> dict:
    """Parse ``path`` into a temporary directory beside ``directory``, then rename it into
    place (replacing a stale cache of this format)."""
    stamp = _source_stamp(path)
    tmp = Path(tempfile.mkdtemp(prefix="." + directory.name + ".", suffix=".tmp",
                                dir=directory.parent))
    try:
        if options["format"] == "svmlight":
            layout = _write_svmlight(path, tmp, options, n_threads)
        else:
            layout = _write_vw(path, tmp, options, n_threads)
        if _source_stamp(path) != stamp:
            raise OSError(f"{path} changed while its cache was written; run again.")
        header = {"format": FORMAT_TAG, "version": VERSION, "source": stamp,
                  "reader": options, **layout}
        (tmp / "header.json").write_text(json.dumps(header, indent=1))
        os.chmod(tmp, 0o777 & ~_umask())
        if directory.exists():
            _read_header(directory)  # only a cache of this format is ever replaced
            shutil.rmtree(directory)
        try:
            os.replace(tmp, directory)
        except OSError:  # another process put a cache there meanwhile: use it if it is ours
            if not directory.exists():
                raise
            other = _read_header(directory)
            if not _current(other, stamp, options):
                raise
            shutil.rmtree(tmp)
            return other
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
        raise
    return header


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
    from .stream import BLOCK_BYTES

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
