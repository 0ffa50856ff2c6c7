"""The ``halfspaces`` command: train, predict, evaluate, play the online game, compute bounds.

A thin layer over the public API: every sub-command reads a data file, builds an estimator
from options named after its parameters, and calls the library. No algorithm lives here.

Data files are told apart by ``--format`` or, when it is absent, by the extension (after
stripping ``.gz``, ``.bz2`` or ``.xz``):

    .tsv        ``label<TAB>text`` lines: raw text, featurized by a vectorizer kept in the model
    .csv        numeric features with the label in one column (``--label-column``, default 0,
                the first; ``-1`` is the last; a name when the file has a header row)
    .vw         Vowpal Wabbit text format
    otherwise   svmlight / libsvm (``label index:value ...``)

``-`` reads standard input (``--format``, else the model's recorded format, else svmlight).
``train`` records the format, the svmlight indexing (0- or 1-based, ``--zero-based`` /
``--one-based``, detected when neither is given) and the number of features in the model
file; ``predict`` and ``evaluate`` read later files with the same indexing.

Errors print one line, ``halfspaces: error: FILE:LINE: problem``, and exit with status 1;
``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
import textwrap
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._labels import format_label
from .datasets._io import DataFormatError, atomic_write, compression_of

PROG = "halfspaces"

ALGOS = {
    "perceptron": "Perceptron",
    "averaged": "AveragedPerceptron",
    "voted": "VotedPerceptron",
    "kernel-perceptron": "KernelPerceptron",
    "pegasos": "PegasosSVC",
    "svm": "SVC",
    "logistic": "LogisticRegression",
    "lp": "LPSeparator",
    "halving": "HalvingClassifier",
    "weighted-majority": "WeightedMajorityClassifier",
}
EXPERT_ALGOS = ("halving", "weighted-majority")
# Learners whose online mistakes Novikoff's theorem bounds.
PERCEPTRON_ALGOS = ("perceptron", "averaged", "voted")
_PLAY_BLOCK = 65536
_MAX_HYPOTHESIS_ENTRIES = 50_000_000  # N x d weights of the expert algorithms' class (400 MB)
FORMATS = ("svmlight", "vw", "tsv", "csv")
PLOT_KINDS = ("boundary", "regularization", "max-margin", "mistakes", "objective")


def _float_or_inf(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number (or 'inf'), got {text!r}") from None


def _gamma(text: str) -> float | str:
    if text in ("scale", "auto"):
        return text
    return _float_or_inf(text)


def _literal(text: str) -> Any:
    """``--set name=value`` values: JSON literals (1, 0.5, true, null, "x") or a bare string."""
    try:
        return json.loads(text)
    except ValueError:
        lowered = text.lower()
        if lowered in ("inf", "+inf", "-inf"):
            return float(lowered)
        return text


# Estimator options: (flag, parameter, argparse keywords). Each maps 1:1 to a parameter.
_ESTIMATOR_OPTIONS = [
    ("--C", "C", {"type": _float_or_inf, "help": "SVM constant C ('inf' for the hard margin)"}),
    ("--lam", "lam", {"type": _float_or_inf,
                      "help": "lambda of the regularized objective (C = 1/(lam n))"}),
    ("--max-iter", "max_iter", {"type": int, "help": "most passes (epochs) over the data"}),
    ("--tol", "tol", {"type": _float_or_inf, "help": "stopping tolerance"}),
    ("--kernel", "kernel", {"help": "kernel: linear, poly or rbf"}),
    ("--gamma", "gamma", {"type": _gamma, "help": "kernel width (a float, 'scale' or 'auto')"}),
    ("--degree", "degree", {"type": int, "help": "degree of the poly kernel"}),
    ("--coef0", "coef0", {"type": _float_or_inf, "help": "constant of the poly kernel"}),
    ("--solver", "solver", {"help": "solver, e.g. auto, qp or dcd (svm)"}),
    ("--beta", "beta", {"type": _float_or_inf,
                        "help": "weight multiplier on a mistake (weighted-majority)"}),
    ("--random-state", "random_state", {"type": int, "metavar": "SEED",
                                         "help": "seed of every random choice"}),
]
_BOOL_OPTIONS = [
    ("--fit-intercept", "fit_intercept", "learn an offset b (default: the estimator's)"),
    ("--shuffle", "shuffle", "shuffle the rows of each pass"),
]


class CLIError(Exception):
    """A user error the command reports in one line (bad option combination, bad file)."""


# -- data -----------------------------------------------------------------------------------


@dataclass
class Data:
    """What a data file holds: features (or raw texts) and labels; how it was read."""

    X: Any
    y: np.ndarray
    path: str
    text: bool = False
    format: str = "svmlight"
    zero_based: bool | None = None  # svmlight: whether its indices were read as 0-based

    @property
    def n_samples(self) -> int:
        return len(self.y)


def detect_format(path: str, fmt: str | None = None, default: str = "svmlight") -> str:
    """``fmt`` if given, else the format the extension names (compression suffix stripped),
    else ``default``.

    Examples
    --------
    >>> detect_format("sms.tsv.gz"), detect_format("points.csv"), detect_format("a9a.t")
    ('tsv', 'csv', 'svmlight')
    >>> detect_format("-", default="csv")
    'csv'
    """
    if fmt:
        return fmt
    name = os.path.basename(str(path)).lower()
    suffix = compression_of(name)
    if suffix:
        name = name[: -len(suffix)]
    return {".tsv": "tsv", ".csv": "csv", ".vw": "vw"}.get(os.path.splitext(name)[1], default)


STDIN = "-"
# Advice for the reader errors a caller may re-word, in the command line's terms.
_HINTS = {
    "n_features": "pass a larger --n-features, or leave it out",
    "zero_index": "pass --zero-based, or neither --zero-based nor --one-based to detect the"
                  " indexing",
}


def read_data(path: str, fmt: str | None = None, *, label_column: str | int = 0,
              n_features: int | None = None, zero_based: bool | None = None,
              hints: dict[str, str] | None = None) -> Data:
    """Read a data file in any supported format (see the module docstring).

    ``path`` ``-`` is standard input, read once as a stream. ``zero_based`` (svmlight):
    True, False, or None to detect it (0-based if any index is 0). ``hints`` replaces the
    advice of reader errors by their ``reason`` (see :class:`DataFormatError`).
    """
    fmt = detect_format(path, fmt)
    if path == STDIN:
        source, name = sys.stdin.buffer, "<stdin>"
    else:
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        source, name = path, str(path)
    try:
        data = _read(source, name, fmt, label_column, n_features, zero_based)
    except DataFormatError as exc:
        hint = {**_HINTS, **(hints or {})}.get(exc.reason)
        if hint:
            raise exc.with_hint(hint) from None
        raise
    data.format = fmt
    return data


def _read(source, name: str, fmt: str, label_column, n_features, zero_based) -> Data:
    from . import datasets
    from .datasets.svmlight import _load

    if fmt == "tsv":
        texts, labels = datasets.load_text_tsv(source)
        return Data(list(texts), np.asarray(labels), name, text=True)
    if fmt == "csv":
        X, y = datasets.load_csv(source, label_column)
        if n_features is not None and X.shape[1] != n_features:
            raise CLIError(f"{name}: has {X.shape[1]} feature columns but the model expects"
                           f" {n_features}")
        return Data(X, y, name)
    if fmt == "vw":
        kwargs = {} if n_features is None else {"n_features": n_features}
        X, y = datasets.load_vw(source, **kwargs)
        return Data(X, np.asarray(y), name)
    X, y, _, zero_based = _load(source, n_features, np.float64,
                                "auto" if zero_based is None else zero_based, False)
    return Data(X, np.asarray(y), name, zero_based=zero_based)


# -- models ---------------------------------------------------------------------------------


def _estimator_class(algo: str, kernel: str | None = None):
    import halfspaces

    if algo == "pegasos" and kernel is not None:  # kernelized Pegasos is its own class
        return halfspaces.KernelPegasosSVC
    return getattr(halfspaces, ALGOS[algo])


def _given_params(args: argparse.Namespace) -> dict[str, Any]:
    params = {param: getattr(args, param) for _, param, _ in _ESTIMATOR_OPTIONS
              if hasattr(args, param)}
    params.update({param: getattr(args, param) for _, param, _ in _BOOL_OPTIONS
                   if hasattr(args, param)})
    for item in getattr(args, "set", None) or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CLIError(f"--set expects NAME=VALUE, got {item!r}")
        params[name.strip().replace("-", "_")] = _literal(value.strip())
    return params


def _flag(param: str) -> str:
    for flag, name, _ in _ESTIMATOR_OPTIONS:
        if name == param:
            return flag
    return "--" + param.replace("_", "-")


def _hypotheses(args: argparse.Namespace, X) -> dict[str, Any]:
    """The finite class the expert algorithms vote over (see ``train --help``).

    ``random``: N halfspaces through the origin with standard normal weights (seeded by
    --random-state). ``stumps``: sign * (x_j - theta) for every feature j, both signs, and
    thresholds theta halfway between consecutive distinct values of x_j (at most N in all),
    written as halfspaces ``w = sign e_j``, ``offset = -sign theta``.
    """
    import scipy.sparse as sp

    n_rows, d = X.shape
    n = args.n_hypotheses
    if n < 1:
        raise CLIError(f"--n-hypotheses must be >= 1; got {n}")
    if n * d > _MAX_HYPOTHESIS_ENTRIES:
        raise CLIError(f"--n-hypotheses {n} halfspaces in {d} dimensions is {n * d:,} weights,"
                       f" more than {_MAX_HYPOTHESIS_ENTRIES:,}; use fewer hypotheses")
    if args.hypotheses == "random":
        rng = np.random.default_rng(getattr(args, "random_state", None))
        return {"hypotheses": rng.standard_normal((n, d))}
    columns = X.tocsc() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    per_feature = max(1, n // (2 * d))
    W, offsets = [], []
    for j in range(d):
        if sp.issparse(columns):
            stored = columns.data[columns.indptr[j]:columns.indptr[j + 1]]
            implicit_zero = stored.size < n_rows
            values = np.unique(np.append(stored, 0.0) if implicit_zero else stored)
        else:
            values = np.unique(columns[:, j])
        cuts = (values[:-1] + values[1:]) / 2 if values.size > 1 else values
        if cuts.size > per_feature:
            cuts = cuts[np.linspace(0, cuts.size - 1, per_feature).round().astype(int)]
        for sign in (1.0, -1.0):
            for theta in cuts:
                w = np.zeros(d)
                w[j] = sign
                W.append(w)
                offsets.append(-sign * theta)
    return {"hypotheses": np.asarray(W), "offsets": np.asarray(offsets)}


def make_estimator(args: argparse.Namespace, X=None):
    """Build the estimator ``--algo`` names from the options given on the command line.

    ``X`` (the training features) is needed by the expert algorithms, whose hypothesis class
    is built from its dimension (and, for stumps, its values).
    """
    cls = _estimator_class(args.algo, getattr(args, "kernel", None))
    params = _given_params(args)
    if args.algo in EXPERT_ALGOS:
        if X is None:
            raise CLIError(f"--algo {args.algo} votes over a class of halfspaces in the"
                           " feature space: use svmlight, VW or CSV data, not raw text")
        params.update(_hypotheses(args, X))
    allowed = cls(**({"hypotheses": params["hypotheses"]} if "hypotheses" in params else {})
                  ).get_params()
    unknown = sorted(set(params) - set(allowed))
    # random_state also seeds the hypothesis class, so an expert algorithm may ignore it.
    if args.algo in EXPERT_ALGOS and "random_state" in unknown:
        unknown.remove("random_state")
        params.pop("random_state")
    if unknown:
        names = ", ".join(_flag(p) for p in unknown)
        accepted = ", ".join(p for p in sorted(allowed) if p not in ("hypotheses", "offsets"))
        raise CLIError(f"{names} does not apply to --algo {args.algo}; {cls.__name__} takes"
                       f" {accepted} (--set NAME=VALUE passes those without an option)")
    return cls(**params)


def wrap_for_text(estimator, args: argparse.Namespace):
    """A Pipeline(vectorizer, estimator) that learns from raw text (kept in the saved model)."""
    from .datasets import make_text_pipeline

    params = {}
    if args.vectorizer == "hashing" and args.n_features:
        params["n_features"] = args.n_features
    return make_text_pipeline(estimator, vectorizer=args.vectorizer, **params)


def split_model(model, X):
    """``(final estimator, features it sees)``: a Pipeline's featurizer is applied to ``X``."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        return model[-1], model[:-1].transform(X)
    return model, X


def _expects_text(model) -> bool:
    from sklearn.pipeline import Pipeline

    return isinstance(model, Pipeline)


def _model_n_features(model) -> int | None:
    if _expects_text(model):
        return None
    return getattr(model, "n_features_in_", None)


def _read_for_model(model, metadata: dict, args: argparse.Namespace) -> Data:
    """Read ``args.data`` as the model's training data was: standard input in its format
    (unless --format says otherwise), svmlight with its indexing (unless --zero-based or
    --one-based says otherwise), and its number of features."""
    n_features = _model_n_features(model)
    recorded = metadata.get("zero_based")
    zero_based = args.zero_based if args.zero_based is not None else recorded
    hints = {}
    if n_features is not None:
        hints["n_features"] = (f"the model {args.model} was trained on {n_features} features,"
                               " so this file does not match it")
    if args.zero_based is None and recorded is False:
        hints["zero_index"] = (f"the model {args.model} was trained on 1-based indices (its"
                               " training file had no index 0); if that file was 0-based too,"
                               " train again with --zero-based")
    # A file is told by its extension (as at training); standard input by the model's record.
    default = metadata.get("format", "svmlight") if args.data == STDIN else "svmlight"
    fmt = detect_format(args.data, args.format, default=default)
    data = read_data(args.data, fmt, label_column=args.label_column, n_features=n_features,
                     zero_based=zero_based, hints=hints)
    if _expects_text(model) and not data.text:
        raise CLIError(f"{args.model}: this model was trained on raw text; give it a"
                       f" label<TAB>text file (.tsv or --format tsv), not {data.path}")
    if data.text and not _expects_text(model):
        raise CLIError(f"{args.model}: this model was trained on numeric features; {data.path}"
                       " is raw text. Train on text to get a model that featurizes it")
    return data


def load_model(path: str) -> tuple[Any, dict]:
    """``(model, metadata)`` saved by ``train`` (any estimator or a text Pipeline); the
    metadata says how the training data was read (format, zero_based, n_features)."""
    if not os.path.exists(path):
        raise FileNotFoundError(2, "No such file or directory", str(path))
    from .persistence import load

    return load(path, with_metadata=True)


def save_model(model, path: str, data: Data) -> None:
    """Save ``model`` with how its training ``data`` was read, for ``_read_for_model``."""
    from .persistence import save

    metadata = {"format": data.format, "zero_based": data.zero_based,
                "n_features": None if data.text else int(data.X.shape[1])}
    save(model, path, metadata=metadata)


# -- output ---------------------------------------------------------------------------------


def _progress(args: argparse.Namespace, **kwargs):
    """A tqdm bar on stderr, off with --quiet or when stderr is not a terminal."""
    from tqdm.auto import tqdm

    disable = getattr(args, "quiet", False) or not sys.stderr.isatty()
    return tqdm(disable=disable, file=sys.stderr, leave=False, **kwargs)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _print_json(obj: dict) -> None:
    print(json.dumps(_jsonable(obj), indent=2, sort_keys=False))


def _print_table(rows: list[tuple[str, Any]]) -> None:
    width = max(len(key) for key, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {_fmt(value)}")


def _fmt(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return "inf" if np.isinf(value) else f"{value:.6g}"
    return str(value)


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, gzip/bz2/xz-compressed by extension
    (through a symbolic link; into a FIFO or a device such as /dev/null directly)."""
    with atomic_write(path) as handle:
        handle.write(text.encode("utf-8"))


def _y_pm(y: np.ndarray, classes: np.ndarray, path: str) -> np.ndarray:
    unseen = np.setdiff1d(np.unique(y), classes)
    if unseen.size:
        raise CLIError(f"{path}: labels {[format_label(u) for u in unseen[:5]]} are not among"
                       f" the model's classes {[format_label(c) for c in classes]}")
    from ._labels import encode_pm

    return encode_pm(y, classes)


def _binary_pm(data: Data) -> np.ndarray:
    classes = np.unique(data.y)
    if classes.size != 2:
        raise CLIError(f"{data.path}: needs exactly two classes for margins and bounds; got"
                       f" {classes.size} ({[format_label(c) for c in classes[:5]]})")
    from ._labels import encode_pm

    return encode_pm(data.y, classes)


# -- sub-commands ---------------------------------------------------------------------------


def cmd_train(args: argparse.Namespace) -> int:
    with _progress(args, total=3, desc="train", unit="step") as bar:
        bar.set_postfix_str("reading " + os.path.basename(args.data))
        data = read_data(args.data, args.format, label_column=args.label_column,
                         n_features=args.n_features if not _is_text(args) else None,
                         zero_based=args.zero_based)
        bar.update()
        estimator = make_estimator(args, None if data.text else data.X)
        model = wrap_for_text(estimator, args) if data.text else estimator
        bar.set_postfix_str("fitting " + type(estimator).__name__)
        model.fit(data.X, data.y)
        bar.update()
        bar.set_postfix_str("saving")
        save_model(model, args.output, data)
        bar.update()
    accuracy = float(model.score(data.X, data.y))
    result = {"model": args.output, "algo": args.algo, "estimator": type(estimator).__name__,
              "params": {k: v for k, v in _given_params(args).items()},
              "n_samples": data.n_samples, "train_accuracy": accuracy}
    if args.json:
        _print_json(result)
    else:
        print(f"trained {type(estimator).__name__} on {data.n_samples} examples of {data.path}:"
              f" training accuracy {accuracy:.4f}; saved to {args.output}")
    return 0


def _is_text(args: argparse.Namespace) -> bool:
    return detect_format(args.data, args.format) == "tsv"


def cmd_predict(args: argparse.Namespace) -> int:
    model, metadata = load_model(args.model)
    data = _read_for_model(model, metadata, args)
    predictions = _predict_blocks(model, data, args)
    text = "".join(format_label(p) + "\n" for p in predictions)
    if args.output and args.output != "-":
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _predict_blocks(model, data: Data, args: argparse.Namespace, block: int = 100_000):
    n = data.n_samples
    out = []
    with _progress(args, total=n, desc="predict", unit="ex") as bar:
        for start in range(0, max(n, 1), block):
            stop = min(start + block, n)
            out.append(np.asarray(model.predict(data.X[start:stop])))
            bar.update(stop - start)
    return np.concatenate(out) if out else np.empty(0)


def evaluate_model(model, data: Data) -> dict[str, Any]:
    """Accuracy, losses and margin statistics of ``model`` on ``data`` (see ``evaluate``)."""
    from . import losses
    from .theory import geometric_margin

    estimator, features = split_model(model, data.X)
    y = np.asarray(data.y)
    result: dict[str, Any] = {"data": data.path, "n_samples": data.n_samples,
                              "accuracy": float(model.score(data.X, y))}
    scores = np.asarray(estimator.decision_function(features))
    if scores.ndim != 1:
        result["note"] = (f"{len(estimator.classes_)} classes (one-vs-rest): losses and margins"
                          " are reported for two-class models only")
        return result
    z = _y_pm(y, np.asarray(estimator.classes_), data.path) * scores
    result.update({
        "zero_one": float(np.mean(losses.zero_one(z))),
        "hinge": float(np.mean(losses.hinge(z))),
        "logistic": float(np.mean(losses.logistic(z))),
        "min_functional_margin": float(z.min()),
        "mean_functional_margin": float(z.mean()),
    })
    coef = getattr(estimator, "coef_", None)
    if coef is not None and np.ndim(coef) == 2 and np.shape(coef)[0] == 1:
        b = float(np.ravel(getattr(estimator, "intercept_", [0.0]))[0])
        y_pm = _y_pm(y, np.asarray(estimator.classes_), data.path)
        result["geometric_margin"] = float(geometric_margin(np.ravel(coef), features, y_pm, b=b))
    return result


def cmd_evaluate(args: argparse.Namespace) -> int:
    model, metadata = load_model(args.model)
    data = _read_for_model(model, metadata, args)
    result = evaluate_model(model, data)
    if args.json:
        _print_json(result)
        return 0
    rows = [("data", f"{data.path} ({data.n_samples} examples)"),
            ("accuracy", result["accuracy"])]
    labels = {"zero_one": "zero-one loss", "hinge": "hinge loss", "logistic": "logistic loss",
              "min_functional_margin": "min functional margin",
              "mean_functional_margin": "mean functional margin",
              "geometric_margin": "geometric margin", "note": "note"}
    rows += [(label, result[key]) for key, label in labels.items() if key in result]
    _print_table(rows)
    return 0


def _checkpoints(n: int) -> list[int]:
    """1, 2, 4, 8, ... and n: the rows of the progressive table (as Vowpal Wabbit prints)."""
    points, t = [], 1
    while t < n:
        points.append(t)
        t *= 2
    if n:
        points.append(n)
    return points


def _separable_bound(data: Data, fit_intercept: bool, limit: int) -> dict[str, Any]:
    """``theory.perceptron_bound`` in the learner's setting, when the data is small enough to
    solve the LP/QP; a dict for the JSON output."""
    from .theory import perceptron_bound

    if data.n_samples > limit:
        return {"checked": False,
                "reason": f"{data.n_samples} examples > --bound-limit {limit}: the separability"
                          " LP and the max-margin QP were not solved"}
    res = perceptron_bound(data.X, _binary_pm(data), fit_intercept=fit_intercept)
    out: dict[str, Any] = {"checked": True, "separable": res.separable, "radius": res.radius,
                           "augmented": res.augmented}
    if res.separable:
        out.update(margin=res.margin, novikoff_bound=res.bound)
    return out


def _online_learner(args: argparse.Namespace, X):
    """``make_estimator``, checking that the learner can play the online game."""
    learner = make_estimator(args, X)
    if not callable(getattr(learner, "learn_one", None)):
        online = [a for a in ALGOS if callable(getattr(_estimator_class(a), "learn_one", None))]
        raise CLIError(f"--algo {args.algo} ({type(learner).__name__}) is a batch learner; the"
                       f" online game needs one of: {', '.join(online)}")
    return learner


def cmd_play(args: argparse.Namespace) -> int:
    from .online import play

    data = read_data(args.data, args.format, label_column=args.label_column,
                     n_features=args.n_features if not _is_text(args) else None)
    if data.text:
        raise CLIError(f"{data.path}: play needs numeric features (svmlight, VW or CSV); the"
                       " online game on raw text needs a fixed featurizer, e.g. hash it first")
    learner = _online_learner(args, data.X)
    classes = np.unique(data.y)
    n = data.n_samples
    checkpoints = _checkpoints(n)
    # Play in pieces ending at the checkpoints (and every _PLAY_BLOCK rounds, for the bar):
    # a fitted learner continues the game where it stopped.
    stops = sorted(set(checkpoints) | set(range(_PLAY_BLOCK, n, _PLAY_BLOCK)))
    live = not args.json
    rows, start = [], 0
    last_t = last_m = mistakes_so_far = 0
    with _progress(args, total=n, desc="play", unit="ex") as bar:
        for stop in stops:
            piece = play(learner, data.X[start:stop], data.y[start:stop], classes=classes)
            mistakes_so_far += int(piece.n_mistakes)
            bar.update(stop - start)
            start = stop
            if stop in checkpoints:
                row = {"examples": stop, "mistakes": mistakes_so_far,
                       "average_loss": mistakes_so_far / stop,
                       "since_last": (mistakes_so_far - last_m) / (stop - last_t),
                       "label": format_label(piece.labels[-1]),
                       "predict": format_label(piece.predictions[-1])}
                rows.append(row)
                last_t, last_m = stop, mistakes_so_far
                if live:
                    bar.clear()
                    if len(rows) == 1:
                        print(f"{'examples':>10} {'mistakes':>10} {'average loss':>13}"
                              f" {'since last':>11} {'label':>8} {'predict':>8}")
                    print(f"{row['examples']:>10} {row['mistakes']:>10}"
                          f" {row['average_loss']:>13.6f} {row['since_last']:>11.6f}"
                          f" {row['label']:>8} {row['predict']:>8}", flush=True)
    result: dict[str, Any] = {"algo": args.algo, "n_samples": data.n_samples,
                              "n_mistakes": mistakes_so_far, "table": rows}
    if args.algo in PERCEPTRON_ALGOS:
        # Novikoff bounds the running perceptron's mistakes (its updates): for averaged and
        # voted perceptrons these are not the mistakes of their averaged or voted predictions.
        result["perceptron_mistakes"] = int(learner.n_mistakes_)
        result["bound"] = _separable_bound(data, bool(learner.fit_intercept), args.bound_limit)
    elif args.algo == "halving":
        from .theory import halving_mistake_bound

        result["bound"] = {"checked": True, "halving_bound":
                           float(halving_mistake_bound(learner.n_hypotheses_)),
                           "note": "holds when some hypothesis is consistent with the data"}
    if args.json:
        _print_json(result)
        return 0
    print(f"mistakes: {result['n_mistakes']} in {data.n_samples} rounds")
    bound = result.get("bound")
    if bound and "halving_bound" in bound:
        print(f"halving bound log2 |H| = {bound['halving_bound']:.6g} ({bound['note']})")
    elif bound and not bound["checked"]:
        print(f"Novikoff bound not computed: {bound['reason']}")
    elif bound and bound["separable"]:
        where = " on the points (x, 1), for the offset" if bound["augmented"] else ""
        m = result["perceptron_mistakes"]
        what = "mistakes" if args.algo == "perceptron" else "updates of the running perceptron"
        q = "'" if bound["augmented"] else ""
        print(f"Novikoff bound (R{q}/gamma{q})^2 = ({bound['radius']:.6g}/{bound['margin']:.6g})^2"
              f" = {bound['novikoff_bound']:.6g}{where}; {what} {m}"
              f" {'<=' if m <= bound['novikoff_bound'] else '>'} bound")
    elif bound:
        print("the data is not linearly separable (LP certificate): Novikoff's bound does not"
              " apply")
    return 0


def compute_bounds(data: Data, fit_intercept: bool = True) -> dict[str, Any]:
    """The ``bound`` command's numbers: radius, separability, max margin, VC dimension, and
    the perceptron's mistake bounds in the same setting (``theory.perceptron_bound``)."""
    from .theory import data_radius, max_margin_separator, perceptron_bound

    y_pm = _binary_pm(data)
    d = int(data.X.shape[1])
    res = perceptron_bound(data.X, y_pm, fit_intercept=fit_intercept)
    out: dict[str, Any] = {"data": data.path, "n_samples": data.n_samples, "n_features": d,
                           "radius": float(data_radius(data.X)), "fit_intercept": fit_intercept,
                           "separable": res.separable}
    if res.separable:
        # The SVM's margin of (w, b) with ||w|| = 1; through the origin it is the
        # perceptron's gamma, already solved.
        w, b, margin = (max_margin_separator(data.X, y_pm, fit_intercept=True)
                        if fit_intercept else (res.separator, 0.0, res.margin))
        out.update({"max_margin": float(margin), "w": np.ravel(w), "b": float(b),
                    "perceptron_radius": res.radius, "perceptron_margin": res.margin,
                    "augmented": res.augmented, "novikoff_bound": res.bound,
                    "margin_one_bound": res.margin_one_bound})
    else:
        out["certificate_rows"] = np.asarray(res.certificate_rows).astype(int)
    out["vc_dimension"] = d + 1 if fit_intercept else d
    return out


def cmd_bound(args: argparse.Namespace) -> int:
    data = read_data(args.data, args.format, label_column=args.label_column,
                     n_features=args.n_features)
    if data.text:
        raise CLIError(f"{data.path}: bound needs numeric features (svmlight, VW or CSV)")
    with _progress(args, total=1, desc="bound (LP + QP)", unit="step") as bar:
        out = compute_bounds(data, fit_intercept=args.fit_intercept)
        bar.update()
    if args.json:
        out.pop("w", None)
        _print_json(out)
        return 0
    offset = "with offset b" if out["fit_intercept"] else "through the origin"
    rows = [("data", f"{data.path} ({out['n_samples']} examples, {out['n_features']} features)"),
            ("radius R = max ||x_i||", out["radius"])]
    if out["separable"] and out["augmented"]:
        rows += [("linearly separable", f"yes ({offset})"),
                 ("max margin gamma of (w, b), ||w|| = 1", out["max_margin"]),
                 ("perceptron with offset", "the perceptron through the origin on (x, 1)"),
                 ("R' = max ||(x_i, 1)||", out["perceptron_radius"]),
                 ("gamma' of (w, b), ||(w, b)|| = 1", out["perceptron_margin"]),
                 ("Novikoff bound (R'/gamma')^2", out["novikoff_bound"]),
                 ("margin-1 bound R'^2 ||(w*, b*)||^2", out["margin_one_bound"])]
    elif out["separable"]:
        rows += [("linearly separable", f"yes ({offset})"),
                 ("max margin gamma", out["max_margin"]),
                 ("Novikoff bound (R/gamma)^2", out["novikoff_bound"]),
                 ("margin-1 bound R^2 ||w*||^2", out["margin_one_bound"])]
    else:
        shown = ", ".join(str(r) for r in out["certificate_rows"][:20])
        more = f", ... ({len(out['certificate_rows'])} rows)" \
            if len(out["certificate_rows"]) > 20 else ""
        rows += [("linearly separable", f"no ({offset}); LP certificate (Farkas) on rows"
                                        f" {shown}{more} (0-based)")]
    rows.append(("VC dimension", f"{out['vc_dimension']} (d{' + 1' if out['fit_intercept'] else ''}"
                                 f", halfspaces {offset})"))
    _print_table(rows)
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise CLIError("plot needs matplotlib: pip install 'halfspaces[plot]'") from None
    from . import plotting

    data = read_data(args.data, args.format, label_column=args.label_column,
                     n_features=args.n_features)
    if data.text:
        raise CLIError(f"{data.path}: plots need numeric features (2 of them)")
    kind = args.kind
    args.algo = args.algo or ("perceptron" if kind == "mistakes" else "svm")
    if kind == "regularization":
        fig = Figure(figsize=(10, 4.5), layout="constrained")
        lams = tuple(args.lams)
        plotting.plot_regularization(data.X, data.y, lams=lams, fig=fig)
    else:
        fig = Figure(figsize=(6, 5), layout="constrained")
        ax = fig.add_subplot()
        if kind == "boundary":
            estimator = make_estimator(args, data.X)
            plotting._check_2d("plot_decision_boundary", data.X)
            estimator.fit(data.X, data.y)
            plotting.plot_decision_boundary(estimator, data.X, data.y, ax=ax)
        elif kind == "max-margin":
            plotting.plot_max_margin(data.X, data.y, ax=ax,
                                     fit_intercept=getattr(args, "fit_intercept", True))
        elif kind == "mistakes":
            from .online import play

            learner = _online_learner(args, data.X)
            transcript = play(learner, data.X, data.y, classes=np.unique(data.y))
            bound, label, bound_label = None, None, "Novikoff bound"
            if args.algo in PERCEPTRON_ALGOS:
                info = _separable_bound(data, bool(learner.fit_intercept), args.bound_limit)
                bound = info.get("novikoff_bound")
                if args.algo != "perceptron":  # the bound covers the running perceptron
                    label = (f"mistakes ({transcript.n_mistakes}); running perceptron's"
                             f" updates: {learner.n_mistakes_}")
                    bound_label = "Novikoff bound on the updates"
            plotting.plot_mistakes(transcript, bound=bound, ax=ax, label=label,
                                   bound_label=bound_label)
        elif kind == "objective":
            lam = getattr(args, "lam", 1e-2)
            history, optimum = plotting.pegasos_objective_history(
                data.X, data.y, lam=lam, max_iter=getattr(args, "max_iter", 50),
                random_state=getattr(args, "random_state", 0))
            plotting.plot_objective(history, optimum, ax=ax)
    save_figure(fig, args.output)
    if not args.quiet:
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def save_figure(fig, path: str) -> None:
    """Save a figure as PNG atomically (never compressed, whatever the extension)."""
    with atomic_write(path, compress=False) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    return int(demo.run(out_dir=args.out_dir, quick=args.quick) or 0)


# -- the parser -----------------------------------------------------------------------------

_MAIN_EPILOG = """\
examples:
  halfspaces train heart_scale --algo svm --C 1 -o heart.model
  halfspaces evaluate heart.model heart_scale --json
  halfspaces predict heart.model heart_scale -o predictions.txt
  halfspaces train sms.tsv --algo pegasos --lam 1e-4 -o spam.model   # raw text
  halfspaces play train.svm --algo perceptron --no-fit-intercept
  halfspaces bound train.svm
  halfspaces plot boundary points.csv --algo svm --C 10 -o boundary.png
  halfspaces demo

data formats (--format, else by extension; .gz/.bz2/.xz are stripped first):
  .tsv  label<TAB>text     .csv  numbers, label in --label-column (default 0: first)
  .vw   Vowpal Wabbit      anything else: svmlight / libsvm ("label index:value ...")
DATA - reads standard input (with --format, else the model's recorded format, else svmlight).

errors print one line "halfspaces: error: FILE:LINE: problem" and exit with status 1;
add --debug for the traceback.
"""

_TRAIN_EPILOG = """\
algorithms (--algo) and the class each builds:
  perceptron Perceptron, averaged AveragedPerceptron, voted VotedPerceptron,
  kernel-perceptron KernelPerceptron, pegasos PegasosSVC, svm SVC, logistic
  LogisticRegression, lp LPSeparator, halving HalvingClassifier, weighted-majority
  WeightedMajorityClassifier.
Each option is passed to the estimator under its own name (--max-iter -> max_iter); an option
the estimator does not take is an error. --set NAME=VALUE passes any other parameter.
halving / weighted-majority vote over a finite class H of N hypotheses (--n-hypotheses N,
default 1024): --hypotheses random (default) draws N halfspaces through the origin with
standard normal weights, seeded by --random-state; --hypotheses stumps takes decision stumps
sign * (x_j - theta) on every feature, both signs, thresholds halfway between the feature's
distinct values (at most N in all). Halving needs a hypothesis consistent with the data
(otherwise it stops with an error saying the class was exhausted); weighted-majority does not.
Raw text (.tsv) is featurized by --vectorizer (hashing with --n-features buckets, or tfidf);
the vectorizer is saved with the model, so predict and evaluate take raw text too.

examples:
  halfspaces train a9a --algo svm --C 1 --solver dcd -o a9a.model
  halfspaces train heart_scale --algo pegasos --lam 1e-3 --max-iter 20 --random-state 0 -o m
  halfspaces train heart_scale --algo kernel-perceptron --kernel rbf --gamma 0.5 -o m
  halfspaces train sms.tsv --algo logistic --C 10 -o spam.model
  halfspaces train points.csv --label-column -1 --algo halving --n-hypotheses 4096 -o m
"""


def _add_data_options(parser: argparse.ArgumentParser, *, n_features_help: str,
                      indexing_help: str | None = None) -> None:
    parser.add_argument("--format", choices=FORMATS,
                        help="data format (default: from the extension, see halfspaces --help)")
    parser.add_argument("--label-column", default="0", metavar="COLUMN",
                        help="CSV only: index (0 = first, -1 = last) or header name of the label"
                             " column (default: 0)")
    parser.add_argument("--n-features", type=int, metavar="N", help=n_features_help)
    if indexing_help:
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--zero-based", dest="zero_based", action="store_const", const=True,
                           help="svmlight: indices start at 0 (" + indexing_help + ")")
        group.add_argument("--one-based", dest="zero_based", action="store_const", const=False,
                           help="svmlight: indices start at 1")


def _add_common(parser: argparse.ArgumentParser, *, json_help: str | None = None) -> None:
    parser.add_argument("--json", action="store_true",
                        help=json_help or "print the results as one JSON object")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback on errors")


def _add_estimator_options(parser: argparse.ArgumentParser, *, default_algo: str | None,
                           default_text: str | None = None) -> None:
    group = parser.add_argument_group("estimator parameters (passed under the same name)")
    default_text = default_text or (f"default: {default_algo}" if default_algo else "")
    group.add_argument("--algo", choices=list(ALGOS), default=default_algo, metavar="ALGO",
                       required=default_algo is None and not default_text,
                       help="the learning algorithm: " + ", ".join(ALGOS)
                            + (f" ({default_text})" if default_text else ""))
    for flag, param, kwargs in _ESTIMATOR_OPTIONS:
        group.add_argument(flag, dest=param, default=argparse.SUPPRESS, **kwargs)
    for flag, param, help_text in _BOOL_OPTIONS:
        group.add_argument(flag, dest=param, action=argparse.BooleanOptionalAction,
                           default=argparse.SUPPRESS, help=help_text)
    group.add_argument("--set", action="append", metavar="NAME=VALUE",
                       help="any other estimator parameter (a JSON literal or a string)")
    group.add_argument("--hypotheses", choices=("random", "stumps"), default="random",
                       help="halving / weighted-majority: the finite class, N random halfspaces"
                            " through the origin or decision stumps (default: random)")
    group.add_argument("--n-hypotheses", type=int, default=1024, metavar="N",
                       help="halving / weighted-majority: size N of the class (default: 1024)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``halfspaces`` command."""
    from . import __version__

    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=formatter, epilog=_MAIN_EPILOG,
        description="Online and large-margin linear classifiers, with their theory.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("train", help="fit a model and save it", formatter_class=formatter,
                       epilog=_TRAIN_EPILOG, description="Fit an estimator on DATA and save it.")
    p.add_argument("data", metavar="DATA", help="the data file, or - for standard input")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="where to save the model")
    p.add_argument("--vectorizer", choices=("hashing", "tfidf"), default="hashing",
                   help="featurizer of raw text (.tsv) data (default: hashing, 2**18 buckets"
                        " or --n-features)")
    _add_data_options(p, n_features_help="svmlight: number of features (default: the largest"
                                         " index); VW, and text with --vectorizer hashing:"
                                         " number of hash buckets (default: 2**18)",
                      indexing_help="default: 0-based if any index is 0, else 1-based; the"
                                    " model records it for predict and evaluate")
    _add_estimator_options(p, default_algo=None)
    _add_common(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("predict", help="write one predicted label per line",
                       formatter_class=formatter,
                       description="Predict a label for each example of DATA.",
                       epilog="examples:\n  halfspaces predict heart.model heart_scale -o"
                              " labels.txt\n  halfspaces predict spam.model new.tsv")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA", help="the data file, or - for standard input")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the labels here (atomically; a .gz, .bz2 or .xz name is"
                        " compressed) instead of standard output (-)")
    _add_data_options(p, n_features_help="ignored: the model's number of features is used",
                      indexing_help="default: as the model's training file was read")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "evaluate", help="accuracy, losses and margins of a model on labelled data",
        formatter_class=formatter,
        description="Accuracy; zero-one (a tie y*score = 0 counts as a mistake), hinge and"
                    " logistic losses averaged over the examples; min and mean functional"
                    " margin y*score; geometric margin min y(w.x+b)/||w|| for linear models.",
        epilog="examples:\n  halfspaces evaluate heart.model heart_scale\n"
               "  halfspaces evaluate spam.model test.tsv --json")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA", help="the data file, or - for standard input")
    _add_data_options(p, n_features_help="ignored: the model's number of features is used",
                      indexing_help="default: as the model's training file was read")
    _add_common(p, json_help="print one JSON object (keys include accuracy, zero_one, hinge,"
                             " logistic, min_functional_margin, geometric_margin)")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser(
        "play", help="the online game: predict, see the label, update", formatter_class=formatter,
        description="Play the online prediction game over DATA in file order and print a"
                    " progressive table at 1, 2, 4, 8, ... examples. For perceptrons, ends with"
                    " the mistakes (for averaged and voted: the running perceptron's updates)"
                    " against Novikoff's bound (R/gamma)^2 when the data is separable (checked"
                    " by LP; gamma from the max-margin QP; with an offset, both of the points"
                    " (x, 1); only for at most --bound-limit examples).",
        epilog="examples:\n  halfspaces play train.svm --algo perceptron --no-fit-intercept\n"
               "  halfspaces play a9a --algo pegasos --lam 1e-4 --json")
    p.add_argument("data", metavar="DATA")
    _add_data_options(p, n_features_help="svmlight: number of features (default: the"
                                         " largest index); VW: hash buckets (default: 2**18)")
    _add_estimator_options(p, default_algo="perceptron")
    p.add_argument("--bound-limit", type=int, default=5000,
                   help="largest number of examples for which the separability LP and margin"
                        " QP are solved (default: 5000)")
    _add_common(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "bound", help="radius, separability, max margin, mistake bounds, VC dimension",
        formatter_class=formatter,
        description="The theory on DATA (two classes): radius R = max ||x_i||; linear"
                    " separability by LP (with the rows of the Farkas certificate when not);"
                    " the max margin gamma; the perceptron's Novikoff bound (R/gamma)^2 and"
                    " margin-1 bound R^2 ||w*||^2 (with an offset, R' and gamma' of the points"
                    " (x, 1), as the perceptron runs); the VC dimension of halfspaces in R^d"
                    " (d + 1 with offset).",
        epilog="examples:\n  halfspaces bound train.svm\n"
               "  halfspaces bound points.csv --no-fit-intercept --json")
    p.add_argument("data", metavar="DATA")
    _add_data_options(p, n_features_help="svmlight: number of features (default: the"
                                         " largest index); VW: hash buckets (default: 2**18)")
    p.add_argument("--fit-intercept", action=argparse.BooleanOptionalAction, default=True,
                   help="halfspaces with an offset b (default) or through the origin")
    _add_common(p)
    p.set_defaults(func=cmd_bound)

    p = sub.add_parser(
        "plot", help="draw a figure as PNG", formatter_class=formatter,
        description="Draw a figure of 2-D DATA (boundary, regularization, max-margin) or of any"
                    " data (mistakes, objective) and write it as PNG.\n"
                    "  boundary        fit --algo; decision boundary, margins score = +-1,"
                    " circled points on or inside the margin\n"
                    "  regularization  SVM with a small and a large lambda side by side (--lams)\n"
                    "  max-margin      the max-margin separator and its support vectors\n"
                    "  mistakes        cumulative online mistakes of --algo against Novikoff's"
                    " bound\n"
                    "  objective       Pegasos objective per epoch (--lam, --max-iter) against the"
                    " exact optimum",
        epilog="examples:\n  halfspaces plot boundary points.csv --algo svm --C 10 -o b.png\n"
               "  halfspaces plot regularization points.csv --lams 0.001 1 -o reg.png\n"
               "  halfspaces plot mistakes train.svm --algo perceptron -o mistakes.png")
    p.add_argument("kind", choices=PLOT_KINDS, metavar="KIND",
                   help=", ".join(PLOT_KINDS))
    p.add_argument("data", metavar="DATA")
    p.add_argument("-o", "--output", required=True, metavar="PNG")
    p.add_argument("--lams", type=_float_or_inf, nargs=2, default=(1e-3, 1.0),
                   metavar=("SMALL", "LARGE"), help="regularization: the two lambdas")
    p.add_argument("--bound-limit", type=int, default=5000,
                   help="mistakes: largest data for which the Novikoff bound is computed")
    _add_data_options(p, n_features_help="svmlight: number of features (default: the"
                                         " largest index); VW: hash buckets (default: 2**18)")
    _add_estimator_options(p, default_algo=None,
                           default_text="default: svm for boundary, perceptron for mistakes")
    p.add_argument("--quiet", "-q", action="store_true", help="no messages")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("demo", help="a tour of the library: runs, bounds and figures",
                       formatter_class=formatter,
                       epilog="examples:\n  halfspaces demo\n  halfspaces demo --quick"
                              " --out-dir /tmp/demo")
    p.add_argument("--out-dir", default="demo-output", help="folder for the figures and"
                                                              " reports (default: demo-output)")
    p.add_argument("--quick", action="store_true", help="small data, a few seconds")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=cmd_demo)
    for command in sub.choices.values():
        command.description = _wrap(command.description)
    return parser


def _wrap(text: str | None, width: int = 88) -> str | None:
    """Fill each line of a description (the formatter keeps our line breaks as they are)."""
    if not text:
        return text
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip()))
        hang = indent + " " * 16 if indent else ""
        lines.append(textwrap.fill(line, width, subsequent_indent=hang))
    return "\n".join(lines)


# -- errors and entry point -----------------------------------------------------------------


def describe_error(exc: BaseException) -> str:
    """One line naming the file, the line and the problem."""
    if isinstance(exc, OSError) and getattr(exc, "filename", None) is not None \
            and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    message = _option_names(" ".join(str(exc).split()))
    path, line = getattr(exc, "path", None), getattr(exc, "line", None)
    if path is not None and not message.startswith(str(path)) \
            and os.path.basename(str(path)) not in message.split(":", 1)[0]:
        where = f"{path}:{line}" if line is not None else str(path)
        message = f"{where}: {message}"
    if isinstance(exc, ImportError) and "matplotlib" in message:
        message += " (pip install 'halfspaces[plot]')"
    return message or type(exc).__name__


def _option_names(message: str) -> str:
    """``"SVC: 'lam' must be ..."`` -> ``"SVC: option --lam: 'lam' must be ..."``: a
    parameter check names the command-line option that set the parameter."""
    owner, sep, rest = message.partition(": '")
    name = rest.split("'", 1)[0]
    for flag, param, _ in _ESTIMATOR_OPTIONS:
        if sep and param == name and " " not in owner:
            return f"{owner}: option {flag}: '{rest}"
    return message


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line each, like errors (no source line)."""
    text = " ".join(str(message).split())
    print(f"{PROG}: warning: {text}", file=file or sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``halfspaces`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        with contextlib.suppress(Exception):
            sys.stdout = io.TextIOWrapper(io.BytesIO())
        return 0
    except (CLIError, ValueError, OSError, ImportError, LookupError) as exc:
        if args.debug:
            raise
        print(f"{PROG}: error: {describe_error(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if args.debug:
            raise
        print(f"{PROG}: error: unexpected {type(exc).__name__}: {describe_error(exc)}"
              " (run again with --debug for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
