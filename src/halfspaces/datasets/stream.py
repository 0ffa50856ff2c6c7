"""Stream a data file as CSR blocks, parsed ahead in threads, in bounded memory.

:func:`iter_blocks` yields ``(X, y)`` blocks in file order while background threads read (and
decompress) the next blocks of text and parse them: memory holds a few blocks, whatever the
file's size. svmlight and VW text are parsed by compiled kernels
(:mod:`~halfspaces.datasets.svmlight`, :mod:`~halfspaces.datasets.vw`) that release the GIL,
so blocks are parsed in parallel.

A pipe, a FIFO or ``/dev/stdin`` is read once, from start to end: it can be streamed when
nothing has to be known before the first block (``n_features`` given, with an explicit
``zero_based``, or VW with hashing). A second pass (finding ``n_features``, a second epoch)
needs a regular file, or the binary cache of :mod:`~halfspaces.datasets.cache`, which is
written by one pass over the text and read by every later one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from ._io import BLOCK_BYTES, check_block_bytes, check_n_threads, format_of

__all__ = ["iter_blocks", "format_of", "fit_stream", "fit_file", "WeightsRefused"]

def iter_blocks(
    path: str | os.PathLike,
    format: str | None = None,
    *,
    block_bytes: int = BLOCK_BYTES,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    dtype=np.float64,
    n_threads: int | None = None,
    query_id: bool = False,
    hash_features: bool = True,
    seed: int = 0,
    return_weights: bool = False,
    interactions=None,
) -> Iterator[tuple]:
    """Yield the examples of a file as CSR blocks ``(X, y)``, in file order, parsed ahead.

    Each block holds the lines of about ``block_bytes`` bytes of text (whole lines; blocks
    without an example are skipped). Stacked vertically, the blocks are exactly
    :func:`~halfspaces.datasets.load_svmlight` (or :func:`~halfspaces.datasets.load_vw`) of
    the file with the same arguments. Memory holds about ``n_threads + 3`` blocks of text and
    their matrices, whatever the file's size.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file; ``.gz``, ``.bz2`` and ``.xz`` are decompressed (in the reading thread).
    format : {"svmlight", "vw"} or None, default=None
        None guesses from the file name (``.vw``: Vowpal Wabbit; else svmlight).
    block_bytes : int, default=2 MiB
        Text per block.
    n_features : int or None, default=None
        Columns of every block. None: a first pass over the file finds them (svmlight; VW
        with ``hash_features=False``), so ``path`` must be a regular file. VW with hashing
        takes the number of buckets (None: 2**18).
    zero_based, dtype
        As in :func:`~halfspaces.datasets.load_svmlight`. With ``n_features`` given and
        ``zero_based="auto"``, the first block with a feature decides (a stream cannot look
        ahead): pass ``zero_based`` explicitly to read a pipe.
    n_threads : int or None, default=None
        Threads parsing blocks; None: one per available core. The blocks do not depend on
        it.
    query_id : bool, default=False
        svmlight: yield ``(X, y, qid)``.
    hash_features, seed, return_weights, interactions
        VW: as in :func:`~halfspaces.datasets.load_vw`; ``return_weights`` yields
        ``(X, y, sample_weight)``.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_block, n_features)
    y : ndarray of float64, shape (n_block,)

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("".join(f"{(-1) ** i:+d} {i % 3 + 1}:0.5\\n" for i in range(6)))
    >>> [(X.shape, y.tolist()) for X, y in iter_blocks(path, block_bytes=27)]  # 9-byte lines
    [((3, 3), [1.0, -1.0, 1.0]), ((3, 3), [-1.0, 1.0, -1.0])]
    """
    fmt = format_of(path, format)
    block_bytes = check_block_bytes(block_bytes)
    n_threads = check_n_threads("iter_blocks", n_threads)
    if fmt == "svmlight":
        from . import svmlight

        svmlight._check_zero_based(zero_based)
        dt = svmlight._check_dtype(dtype)
        n_cols, zero_based = svmlight._resolve_columns(
            path, "iter_blocks", svmlight._check_n_features(n_features), zero_based,
            block_bytes, n_threads)
        blocks = svmlight._stream_blocks(path, n_cols, dt, zero_based, query_id,
                                         block_bytes, n_threads)
        return (block if query_id else block[:2] for block in blocks)
    from . import vw

    if n_features is None and hash_features:
        n_features = 2**18
    dt = vw._check_common(n_features, hash_features, zero_based, dtype)
    specs = vw._check_interactions(interactions, hash_features)
    shift, n_cols = vw._stream_columns(path, "iter_blocks", n_features, hash_features, seed,
                                       zero_based)
    return vw._vw_blocks(path, n_cols, hash_features, seed, shift, dt, return_weights,
                         block_bytes, n_threads, specs)


class WeightsRefused(ValueError):
    """A learner that takes no example weights, streamed over data whose weights are not
    all 1 (raised before it learns anything)."""


class _Blocks:
    """A re-readable stream of blocks: ``blocks()`` starts a new pass. ``weighted()`` yields
    ``(X, y, w)``: with ``sample_weight``, the blocks' weights (None where a block has
    none), else None."""

    def __init__(self, blocks, sample_weight: bool = False):
        self.sample_weight = sample_weight
        self.cache = blocks if hasattr(blocks, "blocks") else None
        if self.cache is not None:
            self.blocks = blocks.blocks
        elif callable(blocks):
            self.blocks = blocks
        elif isinstance(blocks, (list, tuple)):
            self.blocks = lambda: iter(blocks)
        else:
            raise TypeError("fit_stream: 'blocks' must be a CachedData (open_cached), a list of"
                            " (X, y) blocks, or a callable returning an iterator of them (one"
                            f" pass per call); got {type(blocks).__name__}.")

    def weighted(self):
        if self.sample_weight and self.cache is not None:
            yield from self.cache.blocks(weights=True)
            return
        for X, y, *rest in self.blocks():
            yield X, y, rest[0] if self.sample_weight and rest else None


def _cut(w, start, stop):
    return None if w is None else w[start:stop]


def _regroup(blocks, multiple: int, limit: int | None):
    """The ``(X, y, w)`` blocks with row counts that are multiples of ``multiple`` (rows
    carried over to the next block; the last may be shorter), stopping after ``limit`` rows
    (None: all)."""
    import scipy.sparse as sp

    carry = None
    seen = 0
    for X, y, w in blocks:
        if limit is not None and seen + X.shape[0] > limit:
            X, y, w = X[: limit - seen], y[: limit - seen], _cut(w, None, limit - seen)
        seen += X.shape[0]
        if carry is not None:
            X, y = sp.vstack([carry[0], X], format="csr"), np.concatenate([carry[1], y])
            w = None if w is None else np.concatenate([carry[2], w])
            carry = None
        cut = X.shape[0] - X.shape[0] % multiple
        if cut < X.shape[0]:
            carry = (X[cut:], y[cut:], _cut(w, cut, None))
            X, y, w = X[:cut], y[:cut], _cut(w, None, cut)
        if X.shape[0]:
            yield X, y, w
        if limit is not None and seen >= limit:
            break
    if carry is not None and carry[0].shape[0]:
        yield carry


def _skip(blocks, rows: int):
    """The ``(X, y, w)`` blocks without their first ``rows`` rows."""
    for X, y, w in blocks:
        if rows >= X.shape[0]:
            rows -= X.shape[0]
            continue
        yield (X[rows:], y[rows:], _cut(w, rows, None)) if rows else (X, y, w)
        rows = 0


def _at_marks(X, y, w, every: int, made: int, batch: int):
    """The block ``(X, y, w)`` cut after each row that makes the rows made a multiple of
    ``every`` (``made`` before the block; rounded up to a multiple of ``batch`` rows, which
    the block's length is, but the last)."""
    start = 0
    while start < X.shape[0]:
        to_mark = every - (made + start) % every
        stop = min(X.shape[0], start - (-to_mark // batch) * batch)
        yield X[start:stop], y[start:stop], _cut(w, start, stop)
        start = stop


def _refuse_weights(source: _Blocks, adapter, blocks) -> None:
    """Raise WeightsRefused when the data has a weight other than 1 (a cache knows; else
    one pass over the weights)."""
    if hasattr(blocks, "weighted"):
        weighted = blocks.weighted
    else:
        weighted = any(w is not None and np.any(w != 1.0) for _, _, w in source.weighted())
    if weighted:
        raise WeightsRefused(
            f"{adapter.name} takes no example weights when trained from a stream, and the"
            " data has weights other than 1; load the file and call fit with sample_weight"
            " (where the learner takes it), or stream it without sample_weight")


def _summarize(source: _Blocks, adapter, known=None):
    """The :class:`~halfspaces.datasets._adapters.Summary` of the data: from ``known`` (a
    cache header, a survey of the text) where it has it, else one pass over the blocks."""
    from ._adapters import Summary

    if known is not None and not adapter.needs_rows:
        return known
    n_rows = nnz = 0
    n_features = None
    labels, sq_norms = [], []
    for X, y, *_ in source.blocks():
        n_rows += X.shape[0]
        nnz += X.nnz
        n_features = X.shape[1]
        labels.append(np.asarray(y) if adapter.needs_rows else np.unique(y))
        if adapter.needs_rows:
            sq_norms.append(adapter.row_norms(X))
    if not n_rows:
        raise ValueError("fit_stream: the data has no rows.")
    labels = np.concatenate(labels)
    classes = np.unique(labels) if known is None or known.classes is None else known.classes
    return Summary(n_rows, n_features, nnz, classes,
                   labels if adapter.needs_rows else None,
                   np.concatenate(sq_norms) if adapter.needs_rows else None)


def fit_stream(estimator, blocks, *, classes=None, epochs: int | None = None, summary=None,
               sample_weight: bool = False, shuffle_window: int | None = None):
    """Train an online learner over blocks of rows, as its in-memory method on all of them.

    The model equals, bit for bit, the one of the learner's in-memory method on the blocks
    stacked, in the same row order: ``fit`` for ``Perceptron``, ``AveragedPerceptron``,
    ``VotedPerceptron`` (passes until one makes no mistake, or ``max_iter``; ``converged_``
    and the ``ConvergenceWarning`` included; with ``max_vectors``, over several blocks, to
    the rounding of its merged sums, which it adds up a block at a time), ``HalvingClassifier`` and
    ``WeightedMajorityClassifier`` (one pass), ``PegasosSVC`` (``fit``: ``max_iter`` epochs or
    ``n_iter`` steps, the step counter ``t_``, the suffix average over the last tenth of the
    steps, ``eta0`` from all the rows); for ``LogisticRegression``, ``epochs`` passes of its
    online SGD (``partial_fit`` on all the rows each time; its ``fit`` is L-BFGS, which needs
    all the rows at once).

    Parameters
    ----------
    estimator : an online learner (see above)
        With ``shuffle=False`` (perceptrons) or ``sampling="cyclic"`` (Pegasos): a stream is
        read in file order. A perceptron with ``shuffle=True`` reads each pass shuffled, by
        windows of ``shuffle_window`` rows (see below). Other learners raise a ValueError
        saying to load the file.
    blocks : CachedData, list of (X, y), or callable
        The data: a cache (:func:`~halfspaces.datasets.cache.open_cached`), a list of blocks,
        or a function returning a new iterator of ``(X, y)`` blocks for each pass (e.g.
        ``lambda: iter_blocks(path, n_features=d, zero_based=False)``).
    classes : array-like or None, default=None
        Every label; None finds them (a cache's header, or a first pass over the blocks).
        Given, the perceptrons and the experts read the blocks only for their passes.
    epochs : int or None, default=None
        Passes of ``LogisticRegression``'s SGD (None: 1); the other learners take theirs
        from their parameters (``max_iter``, ``n_iter``).
    summary : Summary or None
        What is known of the data before a pass (rows, columns, classes), as a survey of the
        text finds it. Pegasos and logistic regression also need every label and
        ``||x_i||^2`` (8 bytes per row each), read by a first pass over the blocks (a cache
        makes it cheap).
    sample_weight : bool, default=False
        Train with example weights: each block is ``(X, y, w)`` (a cache: its VW importance
        weights), and ``w`` goes to ``partial_fit(..., sample_weight=w)`` (a block whose
        weights are all 1 goes without, so that unit weights change nothing). The model is
        then that of ``fit(X, y, sample_weight=w)`` on all the rows. A learner that takes no
        weights (a class without ``sample_weight``; Pegasos and logistic regression, whose
        streamed passes do not weigh yet) raises :class:`WeightsRefused`, before learning,
        when a weight is not 1.
    shuffle_window : int or None, default=None
        With a perceptron's ``shuffle=True``: the rows a pass holds at a time (None: 65,536).
        Each pass is a block shuffle buffer seeded by the estimator's ``random_state``: the
        rows come in windows of ``shuffle_window`` rows, each permuted, and a cache gives
        its rows in pieces of ``shuffle_window // 16`` rows taken in a random order, so
        that a window mixes rows from all over the data (a list or a callable is read in
        its order: its rows move only within their window). Data of at most
        ``shuffle_window`` rows is one window: the model is then ``fit``'s with
        ``shuffle=True``, bit for bit. A fit resumed from a checkpoint inside a pass makes
        the same passes.

    Returns
    -------
    estimator : the fitted estimator

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from halfspaces.datasets import make_separable
    >>> from halfspaces.linear import Perceptron
    >>> X, y = make_separable(n_samples=60, margin=0.1, random_state=0)
    >>> X = sp.csr_matrix(X)
    >>> blocks = [(X[i : i + 16], y[i : i + 16]) for i in range(0, 60, 16)]
    >>> streamed = fit_stream(Perceptron(shuffle=False), blocks)
    >>> in_memory = Perceptron(shuffle=False).fit(X, y)
    >>> bool(np.array_equal(streamed.coef_, in_memory.coef_)), streamed.n_iter_ == in_memory.n_iter_
    (True, True)
    """
    from .._base import check_random_state
    from .._checkpoint import epoch_done, resume_point, resume_position, rows_done, rows_every
    from ._adapters import Summary, adapter_for
    from ._shuffle import check_window, shuffled_pass

    if epochs is not None and (isinstance(epochs, bool) or not isinstance(
            epochs, (int, np.integer)) or epochs < 1):
        raise ValueError(f"fit_stream: 'epochs' must be an int >= 1 or None; got {epochs!r}.")
    source = _Blocks(blocks, sample_weight)
    adapter = adapter_for(estimator, epochs)
    window = check_window(shuffle_window)
    shuffles = adapter.shuffles and bool(getattr(estimator, "shuffle", False))
    if sample_weight and not adapter.takes_weights:
        _refuse_weights(source, adapter, blocks)
    if summary is None and hasattr(blocks, "header"):  # a cache knows its rows and classes
        summary = Summary(blocks.n_rows, blocks.n_features, blocks.nnz, blocks.classes)
    if classes is not None:
        known = summary or Summary(None, None, None, None)
        summary = Summary(known.n_rows, known.n_features, known.nnz,
                          np.unique(np.asarray(classes)))
    summary = _summarize(source, adapter, summary)
    adapter.begin(summary, source)
    epochs = adapter.epochs(summary)
    # the passes' orders, drawn as fit draws them (a checkpoint records its state)
    rng = check_random_state(estimator.random_state) if shuffles else None
    # 0, or the passes of a checkpoint (halfspaces._checkpoint) whose state is now the model's
    # (and rng's: at the start of the pass it was written in, or after the last pass made)
    done = adapter.resume(resume_point(estimator, rng)) if adapter.resumable else 0
    # checkpoints inside a pass: every `every` rows, and where in its pass one resumed from
    every = rows_every(estimator) if adapter.resumable else 0
    position = resume_position(estimator) if adapter.resumable else None
    made = position["made"] if position else 0  # rows made by the fit, in all its passes
    rows = 0
    for epoch, limit in enumerate(epochs[done:], start=done + 1):
        adapter.start_epoch(summary.n_rows if limit is None else limit)
        start = _copy(rng)  # what a checkpoint inside this pass records
        rows = 0
        blocks = source.weighted() if rng is None else \
            shuffled_pass(source, summary.n_rows, rng, window)
        if position:  # the rows the checkpoint had made of this pass are skipped
            rows = position["rows"]
            adapter.restore(position["state"])
            blocks, position = _skip(blocks, rows), None
        for block in _regroup(blocks, adapter.batch, None if limit is None else limit - rows):
            for X, y, w in _at_marks(*block, every, made, adapter.batch) if every else [block]:
                if w is None or not np.any(w != 1.0):
                    adapter.block(X, y, rows)
                else:
                    adapter.block(X, y, rows, w)
                rows += X.shape[0]
                made += X.shape[0]
                if every:  # a checkpoint when one is due
                    rows_done(estimator, epoch - 1, {"rows": rows, "made": made,
                                                     "state": adapter.state()}, start)
        if adapter.end_epoch(rows):
            break
        if adapter.resumable and epoch < len(epochs):
            epoch_done(estimator, epoch, rng)  # a checkpoint when one is due
    adapter.end(rows)
    return estimator


def _copy(rng: np.random.RandomState | None) -> np.random.RandomState | None:
    """A generator in ``rng``'s state (None: None)."""
    if rng is None:
        return None
    copy = np.random.RandomState()
    copy.set_state(rng.get_state())
    return copy


def fit_file(
    estimator,
    path: str | os.PathLike,
    format: str | None = None,
    *,
    classes=None,
    cache: bool = False,
    cache_dir: str | os.PathLike | None = None,
    epochs: int | None = None,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    dtype=np.float64,
    block_bytes: int | None = None,
    n_threads: int | None = None,
    hash_features: bool = True,
    seed: int = 0,
    sample_weight: bool = False,
    shuffle_window: int | None = None,
):
    """Train an online learner on a data file by streaming it (see :func:`fit_stream`).

    The model is the one of the in-memory method on ``load_svmlight(path, n_features,
    zero_based=..., dtype=...)`` (or ``load_vw``), bit for bit, in bounded memory.

    Passes over the text: with ``cache=True`` the text is parsed once, into the binary cache
    (beside the file, or in ``cache_dir``; see :func:`~halfspaces.datasets.cache.open_cached`),
    and every pass reads the cache (a later run too). Without it, each pass parses the text,
    and an svmlight file is first surveyed by one pass when ``n_features`` is None or
    ``zero_based="auto"`` (both are then decided by the whole file, as ``load_svmlight``
    decides them), which also finds the classes; a first pass finds the classes otherwise
    (unless ``classes`` is given), and every label and ``||x_i||^2`` for Pegasos and
    logistic regression. A pipe is read once: it can be trained on in a single pass with
    nothing to find first (``n_features`` and ``zero_based`` given for svmlight, ``classes``
    given, a perceptron with ``max_iter=1`` or an experts learner); otherwise save it to a
    file.

    Parameters
    ----------
    estimator : an online learner (see :func:`fit_stream`)
    path : str or path-like
    format, n_features, zero_based, dtype, n_threads, hash_features, seed
        As in :func:`iter_blocks`.
    block_bytes : int or None
        Text per block; None: that of :func:`iter_blocks`, or of the cache.
    classes : array-like or None
        Every label (see :func:`fit_stream`).
    cache : bool, default=False
        Read the text once into the binary cache and train from it.
    cache_dir : str, path-like or None
        Where the cache goes (None: beside the file).
    epochs : int or None
        Passes of ``LogisticRegression``'s SGD (see :func:`fit_stream`).
    sample_weight : bool, default=False
        VW: train with the importance weights, as ``fit(X, y, sample_weight=w)`` on
        ``load_vw(..., return_weights=True)`` (see :func:`fit_stream`). svmlight has no
        weights.
    shuffle_window : int or None
        A perceptron's ``shuffle=True``: the rows a pass holds (see :func:`fit_stream`);
        the text is read in its order, the cache's pieces out of order.

    Returns
    -------
    estimator : the fitted estimator
    """
    from ._adapters import Summary, adapter_for
    from ._io import require_regular_file
    from .cache import CACHE_BLOCK_BYTES, open_cached

    fmt = format_of(path, format)
    if block_bytes is None:
        block_bytes = CACHE_BLOCK_BYTES if cache else BLOCK_BYTES
    block_bytes = check_block_bytes(block_bytes)
    n_threads = check_n_threads("fit_file", n_threads)
    if sample_weight and fmt != "vw":
        raise ValueError(f"fit_file: a {fmt} file has no example weights, so sample_weight"
                         " applies only to VW files (their importance weights)")
    reader = {"n_features": n_features, "zero_based": zero_based, "dtype": dtype,
              "block_bytes": block_bytes, "n_threads": n_threads}
    if fmt == "vw":
        reader.update(hash_features=hash_features, seed=seed)
    if cache:
        return fit_stream(estimator, open_cached(path, cache_dir, format=fmt, **reader),
                          classes=classes, epochs=epochs, sample_weight=sample_weight,
                          shuffle_window=shuffle_window)
    adapter = adapter_for(estimator, epochs)
    survey = fmt == "svmlight" and (n_features is None or zero_based == "auto")
    single = (not survey and classes is not None and not adapter.needs_rows
              and len(adapter.epochs(None)) == 1)
    before = None
    if isinstance(path, (str, os.PathLike)) and os.path.isfile(path):
        from ._fingerprint import stat_fingerprint

        before = stat_fingerprint(path)  # before the survey
    if not single:
        require_regular_file(path, "fit_file", "training reads it more than once (to find"
                             " n_features, the indexing or the classes, or for several"
                             " epochs); save the stream to a file (and pass cache=True)")
    summary = None
    if survey:
        from . import svmlight

        svmlight._check_zero_based(zero_based)
        n_cols, zero_based, found, n_rows = svmlight._survey(
            path, svmlight._check_n_features(n_features), zero_based, block_bytes, n_threads)
        reader.update(n_features=n_cols, zero_based=zero_based)
        summary = Summary(n_rows, n_cols, None, found)
    if sample_weight:
        reader.update(return_weights=True)
    return fit_stream(estimator, watched(path, lambda: iter_blocks(path, fmt, **reader),
                                         before),
                      classes=classes, epochs=epochs, summary=summary,
                      sample_weight=sample_weight, shuffle_window=shuffle_window)


def watched(path, blocks, before: dict | None = None):
    """``blocks`` (a callable that starts a pass over the file ``path``), each of whose
    passes raises :class:`~halfspaces.datasets._fingerprint.FileChanged` when the file is
    not, at its start and at its end, the one it was (``before``, its ``stat_fingerprint``;
    None: now); ``blocks`` itself when ``path`` is not a regular file (read once)."""
    from ._fingerprint import check_unchanged, stat_fingerprint

    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return blocks
    before = stat_fingerprint(path) if before is None else before

    def passes():
        check_unchanged(path, before)
        yield from blocks()
        check_unchanged(path, before)

    return passes
