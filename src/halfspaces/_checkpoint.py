"""Checkpoints of a long ``fit``: its state saved every few epochs, and a fit resumed from one.

A fit loop that supports checkpoints (the passes of the perceptrons, ``PegasosSVC``,
``KernelPerceptron``, ``KernelPegasosSVC`` and ``LogisticRegression(solver="sgd")``, in
memory and, where they stream, over a stream) calls two hooks:

``resume_point(est, rng) -> int``
    after validating its data: the passes already made (0 unless a :class:`Checkpointer`
    with a checkpoint to resume from is active for ``est``; then ``est``'s attributes and
    ``rng``'s state become the checkpoint's);
``epoch_done(est, epochs, rng)``
    after pass ``epochs`` when the fit goes on: every ``every`` passes, the active
    checkpointer writes the checkpoint.

A streamed fit can also checkpoint inside a pass (:func:`rows_every`, :func:`rows_done`,
:func:`resume_position`); a fit whose state lives in a solver's arrays (``SVC`` by dual
coordinate descent, Crammer-Singer) uses :func:`solver_resume` and :func:`solver_writer`.

A checkpoint is a model file (:mod:`halfspaces.persistence`) of the estimator in the middle
of its fit, with the passes made, the state of the fit's random number generator, its
parameters and the identity of its training data (a checkpoint of another training is
refused), so a fit killed and resumed makes the passes of an uninterrupted one: the same
model, bit for bit. Nothing here changes a fit when no checkpointer is active (``train
--checkpoint-every N`` activates one). In full: docs/internals.md.
"""

from __future__ import annotations

import contextlib
import json
import os
from contextvars import ContextVar

import numpy as np

from .datasets._fingerprint import FINGERPRINT_VERSION, difference, file_fingerprint
from .datasets._io import remove_stale_temporaries

__all__ = ["Checkpointer", "CheckpointError", "check_solver_arrays", "checkpointing",
           "epoch_done", "file_identity", "resume_point", "resume_position", "rows_done",
           "rows_every", "solver_resume", "solver_state_error", "solver_writer"]

_ACTIVE: ContextVar[Checkpointer | None] = ContextVar("halfspaces_checkpointer", default=None)


class CheckpointError(ValueError):
    """A checkpoint cannot be resumed: missing, or written by another training. ``path`` is
    the checkpoint file (the message starts with it)."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path


def file_identity(path) -> dict:
    """What identifies a data file between two runs: its fingerprint (real path, size,
    modification and status-change times, inode, a digest of a sample of its content; see
    :mod:`halfspaces.datasets._fingerprint`): a file rewritten or replaced since the
    checkpoint, even with its size and modification time kept, or another file, differs."""
    return file_fingerprint(path)


def _params(est) -> dict:
    return {name: repr(value) for name, value in sorted(est.get_params(deep=False).items())}


def _rng_state(rng) -> list | None:
    if rng is None:
        return None
    name, keys, pos, has_gauss, cached = rng.get_state()
    return [keys.tolist(), int(pos), int(has_gauss), float(cached)]


class Checkpointer:
    """Write a fit to ``path`` every ``every`` passes (0: never), or with ``unit="rows"``
    every ``every`` rows of a streamed fit; with ``resume``, continue the fit from the
    checkpoint at ``path``.

    The checkpointer follows the first fit that calls :func:`resume_point` while it is
    active (:func:`checkpointing`). ``source`` identifies the training data
    (:func:`file_identity`), ``options`` any other setting that changes the fit (JSON
    values); a checkpoint whose estimator class, parameters, source or options differ is
    refused with a :class:`CheckpointError`.
    """

    def __init__(self, path, every: int, *, source: dict, options: dict | None = None,
                 resume: bool = False, unit: str = "epochs"):
        self.path, self.every, self.resuming = os.fspath(path), int(every), resume
        self.source, self.options, self.unit = source, options or {}, unit
        if resume and not os.path.exists(self.path):
            raise CheckpointError(self.path, "no checkpoint to resume from; run without"
                                  " --resume to start the training afresh")
        self.est = self.identity = None
        self.position = None  # inside a pass: where the checkpoint resumed from was written
        self.rows_written = 0  # rows made by the fit when the last checkpoint was written
        self.arrays = None  # a solver's state: written with the next checkpoint, or read

    def _read(self):
        from .persistence import load  # only when a checkpoint is read

        model, metadata, self.arrays = load(self.path, with_metadata=True, with_arrays=True)
        try:
            state = json.loads(metadata.get("checkpoint", "null"))
        except (TypeError, ValueError):
            state = None
        if not isinstance(state, dict) or not isinstance(state.get("epochs"), int):
            raise CheckpointError(self.path, "a model file, not a checkpoint of train"
                                  " --checkpoint-every")
        if state.get("source") != self.source:
            raise CheckpointError(self.path, _other_source(state.get("source"), self.source))
        for key, what in (("estimator", "estimator"), ("options", "data options"),
                          ("params", "parameters")):
            mine, theirs = self.identity[key], state.get(key)
            if mine != theirs:
                raise CheckpointError(self.path, "the checkpoint is of another training:"
                                      f" its {what} {_first_difference(theirs, mine)}; resume"
                                      " with the command line that wrote it, or run without"
                                      " --resume to start afresh")
        return model, state

    def resume(self, est, rng) -> int:
        """Follow ``est``'s fit; with ``resume``, give it the checkpoint's state."""
        self.est = est
        self.identity = {"estimator": type(est).__name__, "params": _params(est),
                         "source": self.source, "options": self.options}
        if not self.resuming:
            return 0
        self.resuming = False
        model, state = self._read()
        _check_same_data(est, model)
        # in place, keeping those a model leaves out (rebuilt by the fit, e.g.
        # PegasosSVC._pass_params), in the order the attributes had when the checkpoint was
        # written (a saved model numbers its arrays in that order: the file is then the
        # uninterrupted run's, also when the fit had not started them all, as in a stream)
        attrs = est.__getstate__()
        attrs.update(model.__getstate__())
        order = {name: attrs.pop(name) for name in state.get("attrs", ()) if name in attrs}
        order.update(attrs)
        est.__setstate__(order)
        if state["rng"] is not None and rng is not None:
            keys, pos, has_gauss, cached = state["rng"]
            rng.set_state(("MT19937", np.array(keys, dtype=np.uint32), pos, has_gauss,
                           cached))
        self.position = state.get("position")
        self.rows_written = self.position["made"] if self.position else 0
        return int(state["epochs"])

    def epoch_done(self, est, epochs: int, rng, position: dict | None = None) -> None:
        """After pass ``epochs`` (``position``: inside the next one, after the rows it
        names; see :func:`rows_done`): write the checkpoint when one is due."""
        if not self.every:
            return
        if self.unit == "rows":
            if position is None or position["made"] // self.every <= \
                    self.rows_written // self.every:
                return
            self.rows_written = position["made"]
        elif position is not None or epochs % self.every:
            return
        from .persistence import save  # only when a checkpoint is written

        # a fit whose state lives outside its attributes (the kernel learners' expansions)
        # puts it there while the checkpoint is written
        with getattr(est, "checkpoint_form", contextlib.nullcontext)():
            state = {**self.identity, "epochs": int(epochs), "rng": _rng_state(rng),
                     "position": position, "attrs": list(est.__getstate__())}
            save(est, self.path, metadata={"checkpoint": json.dumps(state, sort_keys=True)},
                 arrays=self.arrays)

    def finished(self) -> None:
        """The fit ended and its model is saved: the checkpoint is of no more use, nor the
        temporary files of checkpoints whose writer was killed."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        remove_stale_temporaries(os.path.realpath(self.path))


def _check_same_data(est, model) -> None:
    """Refuse a checkpoint whose columns or classes are not those the fit found in its data
    (the model file's schema ties every array's shape to them and requires them of a fitted
    model; a crafted file could still disagree with the data, and a compiled pass would then
    read past an array's end). A solver's checkpoint is an unfitted estimator: its arrays are
    the solver's to check."""
    for name, what in (("n_features_in_", "features"), ("classes_", "classes")):
        if not hasattr(est, name) or not hasattr(model, name):
            continue
        mine, theirs = getattr(est, name), getattr(model, name)
        if np.shape(mine) != np.shape(theirs) or not np.array_equal(mine, theirs):
            raise solver_state_error(f"its {what} ({name} {np.asarray(theirs).tolist()}) are"
                                     f" not the data's ({np.asarray(mine).tolist()})")


def _other_source(theirs, mine: dict) -> str:
    """Why a checkpoint written for the data file ``theirs`` (its identity) does not go on
    with ``mine``, in words."""
    if not isinstance(theirs, dict) or theirs.get("version") != FINGERPRINT_VERSION:
        return ("the checkpoint records its data file in an older form, which cannot tell a"
                " file replaced with the same size and modification time (cp -p, rsync -t,"
                " tar x) from the one it was written for; run without --resume to start"
                " afresh")
    if theirs.get("path") != mine.get("path"):
        return (f"the checkpoint is of another training: it was written for {theirs['path']}"
                f" ({theirs.get('size', 0):,} bytes), and the data is now {mine.get('path')}"
                f" ({mine.get('size', 0):,} bytes); resume with the file it was written for, or"
                " run without --resume to start afresh")
    return (f"the checkpoint is of another training: {mine['path']} is not the file it was"
            f" written for ({difference(theirs, mine)} changed: it was rewritten or replaced"
            " since, even if its size and modification time were kept); resume with the file"
            " it was written for, or run without --resume to start afresh")


def _first_difference(theirs, mine) -> str:
    """``"max_iter: 5 (now 10)"``: the first entry that differs, as a phrase."""
    if isinstance(theirs, dict) and isinstance(mine, dict):
        for key in sorted(set(theirs) | set(mine)):
            if theirs.get(key) != mine.get(key):
                return f"{key} was {theirs.get(key)} (now {mine.get(key)})"
    return f"was {theirs} (now {mine})"


@contextlib.contextmanager
def checkpointing(checkpointer: Checkpointer):
    """Within the block, the first fit that supports checkpoints writes and resumes them."""
    token = _ACTIVE.set(checkpointer)
    try:
        yield checkpointer
    finally:
        _ACTIVE.reset(token)


def resume_point(est, rng=None) -> int:
    """Passes already made by ``est``'s fit (0 unless resuming from a checkpoint; then the
    state of ``est`` and ``rng`` is the checkpoint's)."""
    active = _ACTIVE.get()
    if active is None or (active.est is not None and active.est is not est):
        return 0
    return active.resume(est, rng)


def epoch_done(est, epochs: int, rng=None) -> None:
    """After pass ``epochs`` of ``est``'s fit, when more follow: a checkpoint if one is due."""
    active = _ACTIVE.get()
    if active is not None and active.est is est:
        active.epoch_done(est, epochs, rng)


def rows_every(est) -> int:
    """The rows between two checkpoints of ``est``'s streamed fit (0: none inside a pass)."""
    active = _ACTIVE.get()
    return active.every if active is not None and active.est is est and \
        active.unit == "rows" else 0


def rows_done(est, epochs: int, position: dict, rng=None) -> None:
    """Inside pass ``epochs + 1`` of ``est``'s streamed fit, at ``position`` (JSON values:
    ``rows``, the rows of the pass made; ``made``, the rows made by the fit in all; and the
    state the pass holds outside ``est``): a checkpoint if one is due. ``rng``: the fit's
    generator as it was at the start of the pass, which draws the pass again on resume."""
    active = _ACTIVE.get()
    if active is not None and active.est is est:
        active.epoch_done(est, epochs, rng, position)


def resume_position(est) -> dict | None:
    """Where inside a pass the checkpoint that ``est``'s fit resumed from was written (the
    ``position`` of :func:`rows_done`); None at the end of a pass, or without one."""
    active = _ACTIVE.get()
    return active.position if active is not None and active.est is est else None


def solver_resume(est) -> dict | None:
    """For a fit whose state is a solver's arrays (see :func:`solver_writer`): None when no
    checkpointer follows it; else the arrays of the checkpoint to resume from (unchecked:
    the solver checks them, :func:`solver_state_error`), empty when there is none."""
    active = _ACTIVE.get()
    if active is None or (active.est is not None and active.est is not est):
        return None
    if not active.resume(est, None):
        return {}
    if not active.arrays:
        raise solver_state_error("it holds no solver state")
    return active.arrays


def refuse_unsaved(est, reason: str, fix: str) -> None:
    """Raise, when a checkpointer follows ``est``'s fit, that this fit will write none
    (``reason``: why; ``fix``: what to do), rather than run without the checkpoints asked
    for."""
    active = _ACTIVE.get()
    if active is not None and (active.est is None or active.est is est):
        raise CheckpointError(active.path, f"{reason}, which writes no checkpoints; {fix}, or"
                              " train without --checkpoint-every")


def check_solver_arrays(arrays: dict, wanted: dict) -> None:
    """Refuse (ValueError, naming the array) a solver state whose arrays ``wanted`` (name:
    ``(dtype, shape)``) are missing or of another dtype or shape."""
    for name, (dtype, shape) in wanted.items():
        x = arrays.get(name)
        if x is None or x.dtype != np.dtype(dtype) or x.shape != shape:
            found = "missing" if x is None else f"{x.dtype} of shape {x.shape}"
            raise ValueError(f"the solver state {name!r} is {found}, not {np.dtype(dtype)} of"
                             f" shape {shape}")


def solver_state_error(problem: str) -> CheckpointError:
    """The error for the active checkpoint, whose solver state the solver (or whose state
    the fit) refused."""
    return CheckpointError(_ACTIVE.get().path, f"{problem}: the checkpoint is damaged; run"
                           " without --resume to start the training afresh")


def solver_writer(est):
    """For a fit whose state is a solver's arrays: None when no checkpointer follows it; else
    ``write(epochs, arrays)``, which after epoch ``epochs``, when a checkpoint is due, writes
    one of ``est``'s parameters (not its attributes: the fit sets them again) and
    ``arrays()`` (numeric arrays by name, called only then). ``write`` is bound to the
    checkpointer active now, so the threads of one-vs-rest problems, which do not see it,
    can call it (one at a time)."""
    active = _ACTIVE.get()
    if active is None or active.est is not est:
        return None

    def write(epochs: int, arrays) -> None:
        if active.every and not epochs % active.every:
            active.arrays = arrays()
            active.epoch_done(type(est)(**est.get_params(deep=False)), epochs, None)

    return write
