"""``train`` from a svmlight or VW file by streaming it (:func:`halfspaces.datasets.fit_file`).

The online learners whose ``fit`` visits the rows in file order (the perceptron family, and
Pegasos with ``--set sampling=cyclic``) read the file in blocks: the model is the one of
``fit`` on the whole file, bit for bit, in bounded memory. ``--cache`` (or ``--cache-dir``)
parses the text once into the binary cache and reads the cache, this run and later ones.
Every other learner, and data that is not a svmlight or VW file, is read into memory, and a note
on stderr says how much memory the features take.

A VW file's importance weights go to each block's ``partial_fit`` (``fit_file(...,
sample_weight=True)``), through the cache too, so the model is ``fit(X, y, sample_weight=w)``
on the whole file. A learner whose stream takes no weights (Pegasos) trains in memory
instead when the file's weights are not all 1 (``--ignore-weights`` trains without them).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NamedTuple

import numpy as np

from ..datasets._io import check_readable
from . import _estimators, _records
from ._io import (
    PROG,
    STDIN,
    CLIError,
    fit_columns,
    fit_progress,
    in_cli_terms,
    is_text_model,
    model_hints,
    note_ignored,
    writing,
)
from ._options import EXPERT_ALGOS, PERCEPTRON_ALGOS

# Batch solvers: their fit needs every row at once (a QP or dual CD, L-BFGS, an LP, a Gram
# matrix); LogisticRegression streams only its SGD, which is not what its fit computes.
BATCH_ALGOS = ("svm", "logistic", "lp", "kernel-perceptron")
# Below this size holding the file is immaterial, and the note would be noise.
NOTE_MEGABYTES = 10.0


class Streamed(NamedTuple):
    """What ``train`` reports of a streamed fit: the progressive accuracy of its last pass
    (:func:`progressive_accuracy`), or, for more than two classes, where the passes do not
    give it, ``model.score``'s accuracy from one more pass (the other one is None)."""

    model: object
    path: str
    n_samples: int
    accuracy: float | None
    progressive: float | None
    weighted: bool  # whether the file gives example weights other than 1


def _why_not(plan, fmt: str, estimator) -> str | None:
    """Why the training of ``plan`` (a :class:`~._plan.TrainPlan`) on ``fmt`` data cannot
    stream ``estimator`` (None: it can)."""
    from ..datasets.bundled import bundled_name, no_such_file

    if bundled_name(plan.source.path):
        return "a bundled set is read whole"
    if plan.source.path != STDIN:  # a missing or unreadable file is that error, not "a pipe"
        if not os.path.lexists(plan.source.path):
            raise no_such_file(plan.source.path)
        check_readable(plan.source.path)
    if plan.source.path == STDIN or not os.path.isfile(plan.source.path):
        return "a pipe is read once"
    if fmt not in ("svmlight", "vw"):
        return f"only svmlight and VW files stream ({fmt} data is read whole)"
    if plan.features.scale:
        return "--scale fits its scaler on every row before the learner sees one"
    if plan.algo in BATCH_ALGOS or plan.algo in EXPERT_ALGOS:
        return f"--algo {plan.algo} needs all the rows at once"
    if getattr(estimator, "early_stopping", False) or getattr(estimator, "probability", False):
        return "--early-stopping and --probability hold rows out of the fit, so need them all"
    if isinstance(getattr(estimator, "class_weight", None), str):  # "balanced"
        return ("--set class_weight=balanced weighs the classes by their counts in the whole"
                " file (a dict {label: weight} streams)")
    if getattr(estimator, "shuffle", False) and not (
            plan.output.cache or plan.output.shuffle_window):
        return ("the rows of each pass are shuffled (the default; --cache or --shuffle-window"
                " streams them shuffled by windows, --no-shuffle in the file's order)")
    if type(estimator).__name__ == "KernelPegasosSVC":
        return "--algo pegasos --kernel needs all the rows at once (its Gram matrix)"
    if plan.algo == "pegasos" and (estimator.sampling != "cyclic" or estimator.tol is not None
                                   or estimator.record_objective):
        return ("Pegasos streams with --set sampling=cyclic (the file order), without --tol"
                " and --record-objective")
    if plan.algo not in PERCEPTRON_ALGOS and plan.algo != "pegasos":
        return f"--algo {plan.algo} does not stream"
    return None


def train(plan, estimator) -> Streamed | None:
    """Train ``estimator`` as ``plan`` (a :class:`~._plan.TrainPlan`) says by streaming its
    file when it can (None when not: the caller reads the file into memory; None for
    ``estimator``: one built from the data). ``--cache`` without streaming is an error."""
    cache, fmt = plan.output.cache, plan.fmt
    why = _why_not(plan, fmt, estimator)
    if cache and plan.source.interactions:
        raise CLIError("--cache stores a file's features as read, and --quadratic adds their"
                       " products as they are read: drop --cache")
    if plan.output.shuffle_window and (
            why is not None or not getattr(estimator, "shuffle", False)):
        raise CLIError("--shuffle-window applies to a perceptron's training streamed with"
                       " --shuffle, which this is not: "
                       f"{why or '--no-shuffle streams the rows in the file order'}; drop"
                       " --shuffle-window")
    if why is not None:
        if cache:
            flag = "--cache-dir" if plan.output.cache_dir else "--cache"
            raise CLIError(f"{flag} applies to training by streaming, which this is not: {why};"
                           f" drop {flag}, or use --algo perceptron, averaged or voted with"
                           " --no-shuffle (or pegasos with --set sampling=cyclic) on a svmlight"
                           " file")
        return None
    from ..datasets.stream import WeightsRefused

    with _in_cli_terms():
        try:
            return _fit(plan, cache, estimator)
        except WeightsRefused:  # raised before the learner learnt anything
            if cache:
                flag = "--cache-dir" if plan.output.cache_dir else "--cache"
                raise CLIError(f"{flag}: {plan.source.path} gives example weights (its VW"
                               f" importance weights), and --algo {plan.algo} streams only"
                               f" data without them; drop {flag} to train in memory with the"
                               " weights, or pass --ignore-weights") from None
            return None  # in memory, where its fit takes them


@contextlib.contextmanager
def _in_cli_terms(hints: dict | None = None):
    """A reader's complaint with the command line's advice, as ``read_data`` words it."""
    from ..datasets import DataFormatError

    try:
        yield
    except DataFormatError as exc:
        raise in_cli_terms(exc, hints) from None


def _fit(plan, cache: bool, estimator) -> Streamed:
    source, fmt = plan.source, plan.fmt
    n_features, zero_based = source.n_features, source.zero_based
    # VW: the importance weights, as sample_weight (a svmlight file has none)
    weights = fmt == "vw" and not source.ignore_weights
    if fmt == "vw":  # hashed into --n-features buckets, as load_vw reads it whole
        n_features = n_features or 2**18
    if cache:
        from ..datasets.cache import open_cached
        from ..datasets.stream import fit_stream

        cached = open_cached(source.path, plan.output.cache_dir, format=fmt,
                             n_features=n_features,
                             zero_based="auto" if zero_based is None else zero_based)
        if fmt == "svmlight":
            _records.check_stream_width(source, cached.n_features, cached.zero_based,
                                        cached.blocks)
        with fit_progress(plan.report.quiet, estimator):
            fit_stream(estimator, cached, classes=cached.classes, sample_weight=weights,
                       shuffle_window=plan.output.shuffle_window)
        n_features, zero_based = cached.n_features, cached.zero_based
        n, weighted = cached.n_rows, bool(fmt == "vw" and cached.weighted)

        def blocks():
            return cached.blocks(weights=fmt == "vw")
    else:
        blocks = _fit_file(plan, estimator, n_features, zero_based, weights)
        n_features, zero_based = blocks.n_features, blocks.zero_based
        n, weighted = blocks.rows, blocks.weights_seen
    accuracy = progressive = None
    binary = len(estimator.classes_) == 2
    if binary:
        progressive = progressive_accuracy(estimator, n)
    # one-vs-rest passes count each class's mistakes, not the rows predicted wrong; an
    # averaged or voted model is not the running learner whose mistakes the passes count
    if not binary or averages(estimator):
        right, runs, last, first_class = 0, 0, None, 0
        for X, y, *_ in blocks():
            right += int((estimator.predict(X) == y).sum())
            if y.size:  # runs of one label, in the file's order
                runs += 1 + int(np.count_nonzero(y[1:] != y[:-1])) - int(y[0] == last)
                last = y[-1]
                first_class += int(np.count_nonzero(y == estimator.classes_[0]))
        accuracy = right / n
        window = None  # rows that moved only within windows of this many (None: not moved)
        if getattr(estimator, "shuffle", False):
            from ..datasets._shuffle import SHUFFLE_WINDOW

            window = plan.output.shuffle_window or SHUFFLE_WINDOW
        # a cache's pieces, or one window, mix the rows of the whole file
        if binary and not plan.report.quiet and (window is None or not cache and n > window):
            _warn_if_ordered(source.path, cache, estimator, runs, first_class / n, n,
                             accuracy, progressive, window)
    from ..persistence import save

    # what save_model records of a file read whole, for predict and evaluate
    with writing(plan.output.path):
        save(estimator, plan.output.path, metadata={
            "format": fmt, "zero_based": None if fmt == "vw" else bool(zero_based),
            "n_features": int(n_features),
            **({"interactions": list(source.interactions)} if source.interactions else {})})
    return Streamed(estimator, source.path, n, accuracy, progressive, weighted)


def averages(estimator) -> bool:
    """Whether the model saved is an average (or a vote) of the running learner's iterates,
    not the last iterate whose mistakes the passes count."""
    return type(estimator).__name__ in ("AveragedPerceptron", "VotedPerceptron") or \
        getattr(estimator, "average", False) not in (False, 0)


# An averaged model is said to be broken by the order of the rows below this share of the
# runs of one label that a random order of the same rows gives.
ORDERED_RUNS = 0.5


def _warn_if_ordered(path: str, cache: bool, estimator, runs: int, p: float, n: int,
                     accuracy: float, progressive: float, window: int | None) -> None:
    """Warn on stderr when the rows come in long runs of one class (sorted by label, for
    instance), which an average of the iterates weighs by their length: the last run's
    class dominates it. ``runs``: the runs of one label in the file ``path`` (read through
    its cache: ``cache``), of ``n`` rows, a share ``p`` of one class; a random order of them
    gives about ``1 + 2 n p (1 - p)`` runs. ``window``: the rows were shuffled only within
    windows of that many rows of the file's order (None: not shuffled)."""
    expected = 1.0 + 2.0 * n * p * (1.0 - p)
    if runs >= ORDERED_RUNS * expected:
        return
    if window is not None:
        fix = (f"the rows moved only within windows of {window} rows of the file's order; add"
               " --cache (its pieces are read in a random order), a --shuffle-window of at"
               f" least {n}, or shuffle the file's lines (e.g. 'shuf')")
    elif cache:
        fix = ("shuffle the file's lines (e.g. 'shuf'), or drop --no-shuffle: each pass then"
               " reads the cache's pieces in a random order")
    else:
        fix = ("shuffle the file's lines (e.g. 'shuf'), or drop --no-shuffle: the rows of each"
               " pass are then shuffled (in memory, or with --cache the cache's pieces in a"
               " random order)")
    print(f"{PROG}: warning: the rows of {path} come in long runs of one class ({runs}"
          f" runs of one label where a random order of them gives about {expected:.0f}):"
          f" {type(estimator).__name__}'s saved model weighs the iterates by how long they"
          " lasted, so the last runs' class dominates it (training accuracy of the saved"
          f" model {accuracy:.4f}, against {progressive:.4f} for the running learner's"
          f" progressive accuracy); {fix}", file=sys.stderr)


def progressive_accuracy(estimator, n_rows: int) -> float:
    """The share of the rows of the last pass that the learner (two classes: one binary
    problem) predicted right before it learnt them, Vowpal Wabbit's progressive validation,
    from the mistakes the pass counted: a score of 0 counts as a mistake, as in the update
    rule. A row of weight 0 is not learnt and counts neither way: the perceptrons' ``t_``
    counts the rows learnt, the same in each pass (Pegasos streams only unit weights, and
    its ``t_`` counts steps, and ``n_iter`` steps may end inside a pass)."""
    params = estimator.get_params()
    if "n_iter" not in params:  # the perceptrons
        learnt = estimator.t_ // estimator.n_iter_
    elif params["n_iter"] is None:  # Pegasos: whole passes
        learnt = n_rows
    else:  # n_iter steps of one row: the last pass may stop short of the end
        learnt = (params["n_iter"] - 1) % n_rows + 1
    return 1.0 - estimator.mistakes_per_epoch_[-1] / learnt


class _NotAssumed(Exception):
    """A label outside the classes a one-read training assumed, or a block wider than
    ``_records.WIDE_FEATURES`` (see :func:`_fit_file`)."""


class _Counted:
    """The blocks of each pass over a text file (a VW file's with its weights), counting the
    rows (of the longest pass: a pass may stop short) and whether a weight is not 1; with
    ``assumed`` classes, a block with another label raises _NotAssumed before it is
    yielded, and so does the end of a pass that did not see them all."""

    def __init__(self, path, fmt: str, n_features: int | None, zero_based, assumed=None,
                 widened=None, auto: bool = False, interactions=None,
                 before: dict | None = None):
        from ..datasets._fingerprint import stat_fingerprint

        self.path, self.fmt, self.interactions = path, fmt, interactions
        # the file as the training found it: a pass over another one raises FileChanged
        self.before = stat_fingerprint(path) if before is None else before
        self.n_features, self.zero_based = n_features, zero_based
        self.rows, self.weights_seen = 0, False  # not 'weighted': a cache's header
        self.assumed, self.seen = assumed, set()
        self.widened = widened  # the learner whose columns grow in a first pass without them
        self.auto = auto  # zero_based was assumed for "auto"

    def _blocks(self):
        """The blocks of a pass: with the columns known, ``iter_blocks``'; else (svmlight)
        the columns found as they come, the learner widened to each block's, and known
        after the pass."""
        from ..datasets import iter_blocks, stream

        if self.n_features is not None:
            yield from iter_blocks(self.path, self.fmt, n_features=self.n_features,
                                   zero_based=self.zero_based, block_bytes=stream.BLOCK_BYTES,
                                   return_weights=self.fmt == "vw",
                                   interactions=self.interactions)
            return
        from ..datasets import svmlight
        from ..datasets._io import check_n_threads

        learner, nnz = self.widened, 0
        for X, y in svmlight._growing_blocks(self.path, self.zero_based, stream.BLOCK_BYTES,
                                             check_n_threads("train", None)):
            if X.shape[1] > _records.WIDE_FEATURES:  # the survey's pass counts the features
                raise _NotAssumed  # used before the learner is that wide
            if hasattr(learner, "classes_") and X.shape[1] > learner.n_features_in_:
                learner._widen(X.shape[1])  # (the first block starts it)
            nnz += X.nnz
            yield X, y
        self.n_features = learner.n_features_in_  # the last block's: the file's
        if self.auto and not nnz:  # "auto" reads a file without features as 0-based
            self.zero_based = True

    def __call__(self):
        from ..datasets._fingerprint import check_unchanged

        check_unchanged(self.path, self.before)
        rows = 0
        for block in self._blocks():
            if self.assumed is not None:
                labels = np.unique(block[1])
                if not np.isin(labels, self.assumed).all():
                    raise _NotAssumed
                self.seen.update(labels.tolist())
            rows += block[0].shape[0]
            self.rows = max(self.rows, rows)
            self.weights_seen = self.weights_seen or bool(len(block) > 2
                                                          and (block[2] != 1.0).any())
            yield block
        check_unchanged(self.path, self.before)
        if self.assumed is not None and len(self.seen) < len(self.assumed):
            raise _NotAssumed  # before the learner ends its pass


def _fit_file(plan, estimator, n_features, zero_based, weights: bool) -> _Counted:
    """Fit ``estimator`` on the text file of ``plan`` (a :class:`~._plan.TrainPlan`), read
    as the blocks returned (their columns, indexing and rows). VW is hashed into
    ``n_features`` buckets; for svmlight one pass decides the columns, the indexing and the
    classes, as load_svmlight does, unless the training can read the file once
    (:func:`_fit_once`)."""
    from ..datasets._adapters import Summary
    from ..datasets._fingerprint import stat_fingerprint
    from ..datasets.stream import fit_stream

    path, fmt = plan.source.path, plan.fmt
    zero_based = "auto" if zero_based is None else zero_based
    classes = summary = None
    before = stat_fingerprint(path)  # before any pass
    if fmt == "svmlight":
        blocks = _fit_once(plan, estimator, n_features, zero_based, before)
        if blocks is not None:
            return blocks
        from ..datasets import iter_blocks, svmlight
        from ..datasets._io import check_n_threads
        from ..datasets.stream import BLOCK_BYTES

        n_features, zero_based, classes, n_rows = svmlight._survey(
            path, svmlight._check_n_features(n_features), zero_based, BLOCK_BYTES,
            check_n_threads("train", None))
        summary = Summary(n_rows, n_features, None, classes)
        _records.check_stream_width(plan.source, n_features, zero_based, lambda: iter_blocks(
            path, "svmlight", n_features=n_features, zero_based=zero_based))
        _note_one_read(plan, estimator, n_features, zero_based, classes)
    interactions = plan.source.interactions
    blocks = _Counted(path, fmt, n_features, zero_based,
                      interactions=None if interactions is None else list(interactions),
                      before=before)
    with fit_progress(plan.report.quiet, estimator):
        fit_stream(estimator, blocks, classes=classes, summary=summary, sample_weight=weights,
                   shuffle_window=plan.output.shuffle_window)
    return blocks


def _note_one_read(plan, estimator, n_features: int, zero_based,
                   classes) -> None:
    """Say on stderr, for a file of at least NOTE_MEGABYTES that a perceptron's training
    read more than once (a 0-based file read as 1-based by :func:`_fit_once` first, then the
    survey and the pass) and could have read once (labels -1 and +1), which options read it
    once."""
    if (plan.report.quiet or _fit_once_refused(plan, estimator)
            or not np.array_equal(classes, _PLUS_MINUS)
            or os.path.getsize(plan.source.path) < NOTE_MEGABYTES * 1e6):
        return
    indexing = "--zero-based" if zero_based else "--one-based"
    print(f"{PROG}: note: {plan.source.path} was read more than once (a pass of its own found its"
          f" columns, indexing and classes); with --n-features {n_features} {indexing} (what"
          " that pass found) the training reads it once, the same model", file=sys.stderr)


# The labels of a binary svmlight file, as its survey finds them.
_PLUS_MINUS = np.array([-1.0, 1.0])


def _fit_once(plan, estimator, n_features, zero_based,
              before: dict) -> _Counted | None:
    """A perceptron's training on a svmlight file in one read, without the survey: the
    classes are assumed to be the labels -1 and +1, the indexing (unless given by
    --zero-based or --one-based) 1-based, and the columns (unless given by --n-features)
    found as the blocks come, the learner widened to each block's (``_widen``: the model is
    the one of the columns known from the start). None when a label is another, when one of
    the two never comes, when an index is 0 in a file assumed 1-based, or with checkpoints
    or a warm start: then the caller trains afresh after the survey, which raises what is
    wrong. The file's errors are the survey's: both read the lines in the same order with
    the same checks."""
    if _fit_once_refused(plan, estimator):
        return None
    from ..datasets import DataFormatError
    from ..datasets.stream import fit_stream

    assumed = zero_based == "auto"
    blocks = _Counted(plan.source.path, "svmlight", n_features, False if assumed else zero_based,
                      assumed=_PLUS_MINUS, widened=estimator, auto=assumed, before=before)
    try:
        with fit_progress(plan.report.quiet, estimator):
            fit_stream(estimator, blocks, classes=_PLUS_MINUS)
    except _NotAssumed:
        return None
    except DataFormatError as exc:
        if assumed and exc.reason == "zero_index":  # a 0-based file, read as 1-based
            return None
        raise
    return blocks


def _fit_once_refused(plan, estimator) -> bool:
    """Whether the training cannot read the file once whatever the columns (not a perceptron,
    or checkpoints, a resume, a warm start, or a shuffle, whose windows need the columns)."""
    return (plan.algo not in PERCEPTRON_ALGOS or bool(plan.output.checkpoint_every)
            or plan.output.resume or getattr(estimator, "warm_start", False)
            or getattr(estimator, "shuffle", False))


def note_in_memory(plan, data, estimator) -> None:
    """Say on stderr that training holds the whole file, how much memory that takes (once the
    parameters are known to be valid) and, for an online learner, why it does not stream."""
    if plan.report.quiet or data.is_text or plan.estimator.experts:
        return
    estimator._validate_params()
    why = "" if plan.algo in BATCH_ALGOS else \
        f"; {_why_not(plan, data.format, estimator) or 'its stream takes no example weights'}"
    X = data.X
    parts = (X.data, X.indices, X.indptr) if hasattr(X, "indptr") else (X,)
    megabytes = (sum(a.nbytes for a in parts) + data.y.nbytes) / 1e6
    if megabytes < NOTE_MEGABYTES:
        return
    print(f"{PROG}: note: {type(estimator).__name__} trains on the whole of {data.path} in"
          f" memory: {data.n_samples} examples, {X.shape[1]} features, about"
          f" {megabytes:,.1f} MB{why}", file=sys.stderr)


def model_blocks(model, metadata: dict, source, model_path: str, *, weights: bool = False):
    """The ``(X, y)`` blocks of the svmlight or VW file of ``source`` (a
    :class:`~._plan.Source`) read for ``model`` (from ``model_path``) as its training file
    was (svmlight: its indexing unless --zero-based or --one-based says otherwise, X cut or
    padded to its number of features; VW: hashed into its features), in bounded memory;
    None for other data (the caller reads it whole). With ``weights``, a VW file's blocks
    are ``(X, y, importance weights)``."""
    from ..datasets import detect_format

    n_features = getattr(model, "n_features_in_", None)
    recorded = metadata.get("zero_based")
    zero_based = source.zero_based if source.zero_based is not None else recorded
    fmt = None if source.path == STDIN else detect_format(
        source.path, source.format, default=metadata.get("format", "svmlight"))
    if (fmt not in ("svmlight", "vw") or not os.path.isfile(source.path)
            or n_features is None or is_text_model(model)
            or (fmt == "svmlight" and zero_based is None)):
        return None
    if fmt == "vw":
        return _vw_blocks(source, model_path, n_features, weights,
                          metadata.get("interactions"))
    return _svmlight_blocks(source, n_features, zero_based,
                            model_hints(model_path, source.zero_based, None, recorded))


def _svmlight_blocks(source, n_features: int, zero_based: bool, hints):
    import numpy as np

    from ..datasets import iter_blocks

    n_rows, ignored = 0, np.empty(0, dtype=np.int64)
    with _in_cli_terms(hints):
        for X, y in iter_blocks(source.path, "svmlight", n_features=source.n_features,
                                zero_based=zero_based):
            X, used = fit_columns(X, n_features)  # unseen features: zero weight
            ignored = np.union1d(ignored, used)
            n_rows += X.shape[0]
            yield X, y
    note_ignored(source.path, ignored.size, n_features)
    if not n_rows:
        raise CLIError(f"{source.path}: no examples in the file (it is empty, or has only blank"
                       " and comment lines)")


def _vw_blocks(source, model_path: str, n_features: int, weights: bool = False,
               interactions=None):
    from ..datasets import iter_blocks

    n_rows = 0
    with _in_cli_terms(model_hints(model_path, source.zero_based, n_features, None)):
        for block in iter_blocks(source.path, "vw", n_features=n_features,
                                 return_weights=weights, interactions=interactions):
            n_rows += block[0].shape[0]
            yield block
    if not n_rows:
        raise CLIError(f"{source.path}: no examples in the file (it is empty, or has only blank"
                       " lines)")


def predict(model, metadata: dict, source, model_path: str, proba: bool = False):
    """The predictions (with ``proba``, probabilities) of ``model`` for the svmlight or VW
    file of ``source``, read block by block (:func:`model_blocks`); None for other data (the
    caller reads it whole)."""
    blocks = model_blocks(model, metadata, source, model_path)
    if blocks is None:
        return None
    import numpy as np

    out = [np.asarray(_estimators.predict_rows(model, X, proba)) for X, _ in blocks]
    return np.concatenate(out)
