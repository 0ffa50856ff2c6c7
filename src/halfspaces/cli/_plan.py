"""What a command will do, built once from its arguments and checked before any work: the
data source, the features, the estimator, the output and the reporting options.

The parsed command line (an ``argparse.Namespace``) stops here: the functions that run a
command take its plan, or the parts of it they need, each a frozen dataclass. A new option
adds a field to the part it belongs to and a line to the builder below.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import os
from typing import Any

from ._io import STDIN, CLIError
from ._options import BOOL_OPTIONS, ESTIMATOR_OPTIONS, EXPERT_ALGOS, flag, known_flag, literal


@dataclasses.dataclass(frozen=True)
class Source:
    """The data file (``-``: standard input) and the options it is read with."""

    path: str
    format: str | None = None  # --format, as given
    label_column: str | None = None
    weight_column: str | None = None
    n_features: int | None = None  # --n-features, or 2**B of --hash-bits
    zero_based: bool | None = None
    encoding: str | None = None
    delimiter: str | None = None
    header: bool | None = None
    interactions: tuple[str, ...] | None = None  # VW's pairs of namespaces, --quadratic
    ignore_weights: bool = False
    command: str = "train"  # the command that reads it, which notes weights it ignores


@dataclasses.dataclass(frozen=True)
class Features:
    """What the learner sees besides the file's features, kept in the model."""

    scale: str | None = None
    ngram: int | None = None
    char_ngram: tuple[int, int] | None = None
    vectorizer: str = "hashing"


@dataclasses.dataclass(frozen=True)
class EstimatorSpec:
    """The estimator ``--algo`` names, with the parameters the options give, checked to be
    the class's; :meth:`build` makes it."""

    algo: str
    cls: type
    given: tuple[tuple[str, Any], ...]  # (parameter, value), as the options give them
    set_names: frozenset[str] = frozenset()  # the parameters given by --set NAME=VALUE
    hypotheses: str = "random"  # halving, weighted-majority: the hypothesis class
    n_hypotheses: int = 1024

    @property
    def params(self) -> dict[str, Any]:
        """The parameters given on the command line (a new dict)."""
        return dict(self.given)

    @property
    def experts(self) -> bool:
        """Whether the estimator votes over a hypothesis class built from the data."""
        return self.algo in EXPERT_ALGOS

    def build(self, X=None):
        """The unfitted estimator; ``X``, the training features, builds the hypothesis class
        of the expert algorithms (:attr:`experts`)."""
        params = self.params
        if self.experts:
            from ..experts import make_hypotheses

            if X is None:
                raise CLIError(f"--algo {self.algo} votes over a class of halfspaces in the"
                               " feature space: use svmlight, VW or CSV data, not raw text")
            params.update(make_hypotheses(X, self.hypotheses, self.n_hypotheses,
                                          params.get("random_state"))._asdict())
            # random_state also seeds the hypothesis class, which the estimator may not take
            if "random_state" not in parameter_names(self.cls):
                params.pop("random_state", None)
        return self.cls(**params)


@dataclasses.dataclass(frozen=True)
class Output:
    """Where ``train`` saves the model, and its checkpoints and cache."""

    path: str
    checkpoint_every: int = 0
    checkpoint_unit: str = "epochs"
    resume: bool = False
    cache: bool = False  # --cache, or --cache-dir
    cache_dir: str | None = None
    shuffle_window: int | None = None  # the rows a shuffled stream's pass holds at a time


@dataclasses.dataclass(frozen=True)
class Reporting:
    """How a command reports: one JSON object, and whether to show progress and notes."""

    json: bool = False
    quiet: bool = False


@dataclasses.dataclass(frozen=True)
class TrainPlan:
    """``train``: fit ``estimator`` on ``source`` (of format ``fmt``) with ``features``,
    save it to ``output``, report as ``report`` says."""

    source: Source
    fmt: str  # the data's format: --format, else the file's extension
    features: Features
    estimator: EstimatorSpec
    output: Output
    report: Reporting

    @property
    def algo(self) -> str:
        return self.estimator.algo


@dataclasses.dataclass(frozen=True)
class ModelPlan:
    """``predict`` and ``evaluate``: apply the model file ``model`` to ``source``; write the
    labels (``proba``: the probabilities) to ``output`` (None or ``-``: standard output), or
    score them (``threshold``: the decision value of the second class)."""

    model: str
    source: Source
    report: Reporting
    output: str | None = None
    proba: bool = False
    threshold: float | None = None


@dataclasses.dataclass(frozen=True)
class BoundPlan:
    """``bound``: the margin, Novikoff's bound or a certificate of the data."""

    source: Source
    report: Reporting
    fit_intercept: bool = True


@dataclasses.dataclass(frozen=True)
class PlayPlan:
    """``play``: the online game of ``estimator`` on the rows of ``source`` (in a random
    order with the estimator's ``shuffle``), scaled as ``scale`` says, with the mistake
    bounds of the first ``bound_limit`` rows; ``passes`` or ``trace``: the course's views."""

    source: Source
    scale: str | None
    estimator: EstimatorSpec
    report: Reporting
    bound_limit: int = 5000
    passes: int | None = None
    trace: bool = False

    @property
    def algo(self) -> str:
        return self.estimator.algo


@dataclasses.dataclass(frozen=True)
class CVPlan:
    """``cv``: score ``estimator`` along ``values`` of ``param`` by ``folds``-fold
    cross-validation with ``scoring``; with ``output``, refit the best and save it."""

    source: Source
    estimator: EstimatorSpec
    param: str
    values: tuple[float, ...]
    folds: int
    scoring: str
    report: Reporting
    output: str | None = None


@dataclasses.dataclass(frozen=True)
class SplitPlan:
    """``split``: copy the lines of ``source`` that hold examples into ``train`` and
    ``test``, a share ``test_fraction`` in ``test`` (``stratify``: in each class)."""

    source: Source
    train: str
    test: str
    test_fraction: float
    stratify: bool
    random_state: int
    report: Reporting


@dataclasses.dataclass(frozen=True)
class PlotPlan:
    """``plot``: the figure ``kind`` of ``source`` (two columns of it: ``columns``), scaled as
    ``scale`` says, saved to ``output``. ``estimator``: the learner drawn, or None for the
    figures that draw none; ``params``: the estimator options given, which some figures
    read."""

    kind: str
    source: Source
    output: str
    scale: str | None
    estimator: EstimatorSpec | None
    params: tuple[tuple[str, Any], ...]
    report: Reporting
    lams: tuple[float, float] = (1e-3, 1.0)
    bound_limit: int = 5000
    columns: tuple[int, int] | None = None
    mistake: int = 2


# -- builders: the command line to plans ------------------------------------------------------


def data_source(args: argparse.Namespace, n_features: int | None = None) -> Source:
    """The data file of ``args`` and its reading options (``n_features``: instead of
    ``--n-features``)."""
    quadratic = getattr(args, "quadratic", None)
    return Source(
        path=args.data, format=getattr(args, "format", None),
        label_column=getattr(args, "label_column", None),
        weight_column=getattr(args, "weight_column", None),
        n_features=getattr(args, "n_features", None) if n_features is None else n_features,
        zero_based=getattr(args, "zero_based", None), encoding=getattr(args, "encoding", None),
        delimiter=getattr(args, "delimiter", None), header=getattr(args, "header", None),
        interactions=None if quadratic is None else tuple(quadratic),
        ignore_weights=bool(getattr(args, "ignore_weights", False)),
        command=getattr(args, "command", "train"))


def reporting(args: argparse.Namespace) -> Reporting:
    return Reporting(json=bool(getattr(args, "json", False)),
                     quiet=bool(getattr(args, "quiet", False)))


def parameter_names(cls) -> set[str]:
    """The parameters of the estimator class ``cls``: its constructor's."""
    return {name for name, p in inspect.signature(cls).parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def estimator_spec(args: argparse.Namespace, source: Source | None = None, *,
                   algo: str | None = None, without: tuple[str, ...] = ()) -> EstimatorSpec:
    """The estimator of ``--algo`` (``algo`` where it is not given) with the parameters the
    options give (but ``without``); a parameter the class does not take is an error naming
    the option that gave it. ``source``: the data, whose labels ``--set class_weight``
    names."""
    from ._estimators import estimator_class

    algo = args.algo or algo
    cls = estimator_class(algo, getattr(args, "kernel", None))
    params = {param: getattr(args, param) for _, param, _ in ESTIMATOR_OPTIONS + BOOL_OPTIONS
              if hasattr(args, param) and param not in without}
    set_names = set()
    for item in getattr(args, "set", None) or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CLIError(f"--set expects NAME=VALUE, got {item!r}")
        name = name.strip().replace("-", "_")
        params[name] = literal(value.strip())
        set_names.add(name)
    if isinstance(params.get("class_weight"), dict):
        params["class_weight"] = _class_weight_labels(params["class_weight"], source)
    allowed = parameter_names(cls)
    unknown = sorted(set(params) - allowed)
    if algo in EXPERT_ALGOS and "random_state" in unknown:  # it seeds the hypotheses
        unknown.remove("random_state")
    if unknown:
        raise CLIError(_not_applicable(unknown, allowed, set_names, algo, cls.__name__))
    return EstimatorSpec(algo, cls, tuple(params.items()), frozenset(set_names),
                         getattr(args, "hypotheses", "random"),
                         getattr(args, "n_hypotheses", 1024))


def _class_weight_labels(class_weight: dict, source: Source | None) -> dict:
    """``--set class_weight={"1": 3}`` with the labels as the data reads them: JSON keys are
    strings, and svmlight, VW and CSV labels are numbers (a CSV's are strings only when one
    is not a number), so a key that is a number names that number; a text file's labels
    (``label<TAB>text``) stay strings."""
    from ..datasets import detect_format

    if source is None or detect_format(source.path, source.format) == "tsv":
        return class_weight

    def label(key):
        try:
            return float(key)
        except ValueError:
            return key

    return {label(key): weight for key, weight in class_weight.items()}


def _not_applicable(unknown: list[str], allowed: set[str], set_names: set[str], algo: str,
                    name: str) -> str:
    """What the user gave that ``--algo`` does not take, in the terms they gave it (an
    option, or ``--set NAME=...``), and what it takes instead."""
    names = ", ".join(f"--set {p}=..." if p in set_names and known_flag(p) is None
                      else flag(p) for p in unknown)
    accepted = sorted(allowed - {"hypotheses", "offsets"})
    if not accepted:  # Halving: its hypothesis class has its own options
        return (f"{names} does not apply to --algo {algo}; {name} takes no other"
                f" parameter (its hypotheses come from --hypotheses and --n-hypotheses)")
    return (f"{names} does not apply to --algo {algo}; {name} takes"
            f" {', '.join(accepted)} (--set NAME=VALUE passes those without an option)")


def train_plan(args: argparse.Namespace) -> TrainPlan:
    """``train``'s plan: the options checked against each other and the data's format."""
    from ..datasets import detect_format

    fmt = detect_format(args.data, args.format)
    _check_features(args, fmt)
    n_features = 2**args.hash_bits if args.hash_bits is not None else args.n_features
    source = data_source(args, n_features)
    return TrainPlan(
        source=source, fmt=fmt,
        features=Features(scale=args.scale, ngram=args.ngram,
                          char_ngram=None if args.char_ngram is None else tuple(args.char_ngram),
                          vectorizer=args.vectorizer),
        estimator=estimator_spec(args, source),
        output=Output(path=args.output, checkpoint_every=args.checkpoint_every,
                      checkpoint_unit=args.checkpoint_unit, resume=args.resume,
                      cache=bool(args.cache or args.cache_dir), cache_dir=args.cache_dir,
                      shuffle_window=getattr(args, "shuffle_window", None)),
        report=reporting(args))


def _check_features(args: argparse.Namespace, fmt: str) -> None:
    """The feature options given make sense for ``fmt`` data."""
    given = [flag for flag, name in (("--ngram", "ngram"), ("--char-ngram", "char_ngram"))
             if getattr(args, name, None)]
    if given and fmt != "tsv":
        raise CLIError(f"{given[0]} applies to raw text (label<TAB>text, .tsv or --format"
                       f" tsv), which the vectorizer splits into words; {args.data} is {fmt}"
                       " data, whose features are given")
    if len(given) == 2:
        raise CLIError("--ngram and --char-ngram each choose what the vectorizer counts (word"
                       " n-grams, or character n-grams within words): pass one of them")
    if args.quadratic and fmt != "vw":
        raise CLIError(f"--quadratic pairs the namespaces of Vowpal Wabbit data (.vw or"
                       f" --format vw); {args.data} is {fmt} data, which has none")
    if args.hash_bits is None:
        return
    if fmt not in ("vw", "tsv") or (fmt == "tsv" and args.vectorizer != "hashing"):
        raise CLIError(f"--hash-bits sets the buckets that hashed features go to: VW data, or"
                       f" raw text with --vectorizer hashing; {args.data} is {fmt} data"
                       + (f" read by --vectorizer {args.vectorizer}" if fmt == "tsv" else ""))
    if args.n_features is not None:
        raise CLIError(f"--hash-bits {args.hash_bits} and --n-features {args.n_features} both"
                       " set the number of hash buckets: pass one of them")


def model_plan(args: argparse.Namespace) -> ModelPlan:
    """``predict``'s or ``evaluate``'s plan."""
    return ModelPlan(model=args.model, source=data_source(args), report=reporting(args),
                     output=getattr(args, "output", None),
                     proba=bool(getattr(args, "proba", False)),
                     threshold=getattr(args, "threshold", None))


def bound_plan(args: argparse.Namespace) -> BoundPlan:
    """``bound``'s plan."""
    return BoundPlan(data_source(args), reporting(args), args.fit_intercept)


def play_plan(args: argparse.Namespace) -> PlayPlan:
    """``play``'s plan."""
    source = data_source(args)
    return PlayPlan(source, getattr(args, "scale", None), estimator_spec(args, source),
                    reporting(args), args.bound_limit, getattr(args, "passes", None),
                    bool(getattr(args, "trace", False)))


# The regularization parameters cv searches, with the --algo each belongs to.
GRID_PARAMS = {"C": "svm, logistic", "lam": "svm, pegasos"}


def cv_plan(args: argparse.Namespace) -> CVPlan:
    """``cv``'s plan: one parameter searched, given as a list of values, which the estimator
    takes."""
    grids = {name: getattr(args, name) for name in GRID_PARAMS if hasattr(args, name)}
    if len(grids) != 1:
        raise CLIError("cv searches one parameter: give its values as --C 0.01,0.1,1,10,100"
                       " (svm, logistic) or --lam 1e-5,1e-4,1e-3 (svm, pegasos), not"
                       f" {' and '.join('--' + name for name in grids) or 'neither'}")
    ((param, values),) = grids.items()
    source = data_source(args)
    return CVPlan(source, estimator_spec(args, source, without=(param,)), param,
                  tuple(values), args.folds, args.scoring, reporting(args), args.output)


def split_plan(args: argparse.Namespace) -> SplitPlan:
    """``split``'s plan: two outputs, neither the input nor each other, and a share of rows
    strictly between 0 and 1."""
    train, test = _split_outputs(args)
    if not 0.0 < args.test_fraction < 1.0:
        raise CLIError(f"--test-fraction must be between 0 and 1 (the share of the rows held"
                       f" out for testing); got {args.test_fraction}. Try 0.2")
    return SplitPlan(data_source(args), train, test, args.test_fraction, args.stratify,
                     args.random_state, reporting(args))


# The plots that draw a learner, and the --algo each draws by default.
PLOT_LEARNERS = {"boundary": "svm", "mistakes": "perceptron"}


def plot_plan(args: argparse.Namespace) -> PlotPlan:
    """``plot``'s plan."""
    source = data_source(args)
    spec = None
    if args.kind in PLOT_LEARNERS:
        spec = estimator_spec(args, source, algo=PLOT_LEARNERS[args.kind])
    params = {param: getattr(args, param) for _, param, _ in ESTIMATOR_OPTIONS + BOOL_OPTIONS
              if hasattr(args, param)}
    return PlotPlan(args.kind, source, args.output, getattr(args, "scale", None), spec,
                    tuple(params.items()), reporting(args), tuple(args.lams),
                    args.bound_limit, args.columns, args.mistake)


def _split_outputs(args: argparse.Namespace) -> tuple[str, str]:
    """The two files of ``-o TRAIN -o TEST``, neither the input nor each other."""
    outputs = args.output or []
    if len(outputs) != 2:
        raise CLIError(f"split writes two files: give -o TRAIN -o TEST (got {len(outputs)}"
                       " -o)")
    if args.data == STDIN:
        raise CLIError("split needs DATA to be a file (its lines are copied to TRAIN and"
                       " TEST); save standard input to a file first")
    train, test = outputs
    if _same(train, test):
        raise CLIError(f"-o {train} -o {test}: the training and test files must differ")
    for path in outputs:
        if os.path.exists(args.data) and _same(path, args.data):
            raise CLIError(f"-o {path} is the input DATA itself: split never overwrites its"
                           " input; write the two parts to other files")
    return train, test


def _same(a: str, b: str) -> bool:
    with contextlib.suppress(OSError):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)
