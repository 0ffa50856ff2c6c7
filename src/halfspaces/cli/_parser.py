"""The argument parser of the ``halfspaces`` command: one small function per sub-command."""

from __future__ import annotations

import argparse
import json

from ..datasets.loader import FORMATS
from . import _features, _figures, _io, _models, _plan, _theory
from ._io import PROG, delimiter
from ._options import ALGOS, BOOL_OPTIONS, ESTIMATOR_OPTIONS, PLOT_KINDS, float_or_inf

_FORMATTER = argparse.RawDescriptionHelpFormatter
_ANY_FEATURES = "svmlight: number of features (default: the largest index); VW: hash buckets" \
                " (default: 2**18)"
_MODEL_FEATURES = ("svmlight: number of features of the file (default: the largest index);"
                   " features beyond the model's are ignored (zero weight), with a note")
_MODEL_INDEXING = "default: as the model's training file was read"
_DETECT_INDEXING = "default: 0-based if any index is 0, else 1-based"
_DATA_HELP = ("the data file, - for standard input, or the name of a bundled set (a9a, sms, ...:"
              " halfspaces data lists them); a file of that name in the working directory"
              " wins, bundled:NAME is always the bundled set")

_MAIN_EPILOG = """\
examples:
  halfspaces train heart_scale --algo svm --C 1 -o heart.model   # a bundled set, by name
  halfspaces evaluate heart.model heart_scale --json
  halfspaces predict heart.model heart_scale -o predictions.txt
  halfspaces train sms --algo pegasos --lam 1e-4 -o spam.model   # raw text
  halfspaces play mushrooms --algo perceptron --no-fit-intercept
  halfspaces bound train.svm
  halfspaces plot boundary points --algo svm --C 10 -o boundary.png
  halfspaces data a9a -o a9a.svm     # write a bundled set to a file (halfspaces data lists them)
  halfspaces shatter 0,0 1,1 1,0 0,1   # VC dimension: not shattered, Radon's partition
  halfspaces playground              # a page in the browser: click points, step the learners
  halfspaces demo

data formats (--format, else by extension; .gz/.bz2/.xz are stripped first):
  .tsv  label<TAB>text     .csv  numbers, label in --label-column (default 0: first),
                                 fields split by --delimiter (default ',')
  .vw   Vowpal Wabbit      anything else: svmlight / libsvm ("label index:value ...")
DATA - reads standard input (with --format, else the model's recorded format, else svmlight).
DATA may also name a bundled set (heart_scale, a9a, a9a.t, mushrooms, mushrooms.t, sms,
points) when no file of that name exists; bundled:NAME always reads the bundled set.

errors print one line "halfspaces: error: FILE:LINE: problem" and exit with status 1
(with --json, one JSON object on standard output); add --debug for the traceback.
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
  halfspaces train points.csv --algo svm --scale standard -o m   # the scaler kept in the model
  halfspaces train reviews.tsv --algo pegasos --ngram 2 -o m       # words and word pairs
  halfspaces train ratings.vw --algo perceptron --quadratic ui --hash-bits 20 -o m   # VW -q, -b
"""


# Each sub-command's (help, description, examples), as `halfspaces COMMAND --help` shows them.
_TEXTS = {
    "train": ("fit a model and save it", "Fit an estimator on DATA and save it.",
              _TRAIN_EPILOG),
    "predict": ("write one predicted label per line",
                "Predict a label for each example of DATA.", """\
examples:
  halfspaces predict heart.model heart_scale -o labels.txt
  halfspaces predict spam.model new.tsv"""),
    "evaluate": ("accuracy, losses, margins and scores of a model on labelled data", """\
Accuracy; zero-one (a tie y*score = 0 counts as a mistake), hinge and logistic losses
averaged over the examples; min and mean functional margin y*score; geometric margin min
y(w.x+b)/||w|| for linear models. Then the scores of scikit-learn's metrics: balanced
accuracy, precision / recall / F1 per class with macro and support-weighted averages,
ROC-AUC and average precision of the decision values (one-vs-rest macro averages for more
classes), log-loss and Brier score for a model with probabilities, and the confusion
matrix (rows: true class, columns: predicted).""", """\
examples:
  halfspaces evaluate heart.model heart_scale
  halfspaces evaluate heart.model heart_scale --threshold 0.5
  halfspaces evaluate spam.model test.tsv --json"""),
    "play": ("the online game: predict, see the label, update", """\
Play the online prediction game over DATA in file order and print a progressive table at
1, 2, 4, 8, ... examples. For perceptrons, ends with the mistakes (for averaged and
voted: the running perceptron's updates) against Novikoff's bound (R/gamma)^2 when the
data is separable (checked by LP; gamma from the max-margin QP; with an offset, both of
the points (x, 1); only for at most --bound-limit examples).""", """\
examples:
  halfspaces play train.svm --algo perceptron --no-fit-intercept
  halfspaces play a9a --algo pegasos --lam 1e-4 --json"""),
    "bound": ("radius, separability, max margin, mistake bounds, VC dimension", """\
The theory on DATA (two classes): radius R = max ||x_i||; linear separability by LP
(with the rows of the Farkas certificate when not); the max margin gamma; the
perceptron's Novikoff bound (R/gamma)^2 and margin-1 bound R^2 ||w*||^2 (with an offset,
R' and gamma' of the points (x, 1), as the perceptron runs); the VC dimension of
halfspaces in R^d (d + 1 with offset).""", """\
examples:
  halfspaces bound train.svm
  halfspaces bound points.csv --no-fit-intercept --json"""),
    "plot": ("draw a figure as PNG", """\
Draw a figure of 2-D DATA (boundary, regularization, max-margin, update) or of any data
(mistakes, objective) and write it as PNG.
  boundary        fit --algo; decision boundary, margins score = +-1, circled points on
                  or inside the margin
  regularization  SVM with a small and a large lambda side by side (--lams)
  max-margin      the max-margin separator and its support vectors
  mistakes        cumulative online mistakes of --algo against Novikoff's bound
  objective       Pegasos objective per epoch (--lam, --max-iter) against the exact
                  optimum
  update          the perceptron's update w <- w + y x at its mistake --mistake K
--columns I,J draws two feature columns of wider data (boundary, regularization,
max-margin, update).""", """\
examples:
  halfspaces plot boundary points.csv --algo svm --C 10 -o b.png
  halfspaces plot regularization points.csv --lams 0.001 1 -o reg.png
  halfspaces plot mistakes train.svm --algo perceptron -o mistakes.png
  halfspaces plot update points.csv -o update.png
  halfspaces plot max-margin wide.csv --columns 0,3 -o mm.png"""),
    "data": ("write a bundled data set to a file (list them without NAME)", """\
The data sets bundled with halfspaces. Every command that reads DATA takes a bundled set's
NAME in place of a file: "halfspaces train a9a ..." reads the bundled a9a when no file named
a9a exists in the working directory (a real file always wins); "bundled:a9a" always means
the bundled set. The library's halfspaces.datasets.load("a9a") does the same.
This command writes one of them to FILE (decompressed, unless FILE ends in .gz, .bz2 or
.xz), to read or edit it as a file. Without NAME, it lists them. Their sources are in
halfspaces/datasets/data/PROVENANCE.md.""", """\
examples:
  halfspaces data
  halfspaces train a9a --algo svm --lam 1e-4 -o a9a.model   # by name, no file needed
  halfspaces evaluate a9a.model bundled:a9a.t
  halfspaces data a9a -o a9a.svm
  halfspaces data sms -o sms.tsv
  halfspaces data --text-per-class pos.txt neg.txt -o polarity.tsv  # labels pos and neg"""),
    "split": ("cut a data file into a training and a test file", """\
Hold out --test-fraction of the examples of DATA (drawn by scikit-learn's train_test_split,
stratified by label with --stratify, seeded by --random-state) and write the two parts as
TRAIN and TEST, in DATA's format: the lines of DATA that hold examples, unchanged and in
their order (a CSV header goes to both). Each part is read back before it is written, and
must give exactly its examples of DATA; DATA itself is never overwritten.""", """\
examples:
  halfspaces split a9a --test-fraction 0.2 --stratify --random-state 0 -o train.svm -o test.svm
  halfspaces split points.csv --test-fraction 0.25 -o train.csv -o test.csv"""),
    "cv": ("choose C or lam by stratified K-fold cross-validation", """\
Score each value of --C (or --lam) on --folds stratified folds of DATA (shuffled, seeded by
--random-state, default 0), with the held-out figure --scoring (a figure of evaluate: higher
is better, or for a loss lower); print the mean and spread (std over the folds) per value,
the best marked. Each fold fits the values in turn from the strongest regularization to the
weakest, each fit starting from the previous solution (as LIBLINEAR's -C), and stopping
where a cold fit stops (svm: a certified duality gap, whose largest relative value is
printed). Example weights (--weight-column, VW importance) and --set class_weight=balanced
go to every fit. With -o MODEL, the best value is refitted on every row and saved.""", """\
examples:
  halfspaces cv a9a --algo svm --C 0.01,0.1,1,10,100 --folds 5 --scoring balanced_accuracy
  halfspaces cv heart_scale --algo svm --C 0.1,1,10 --set class_weight=balanced -o best.model
  halfspaces cv heart_scale --algo pegasos --lam 1e-4,1e-3,1e-2 --random-state 0"""),
    "demo": ("a tour of the library: runs, bounds and figures", None, """\
examples:
  halfspaces demo
  halfspaces demo --quick --out-dir /tmp/demo"""),
}


def _add_data_options(parser: argparse.ArgumentParser, *, n_features_help: str,
                      indexing_help: str | None = None, weights: str | None = None) -> None:
    parser.add_argument("--format", choices=FORMATS,
                        help="data format (default: from the extension, see halfspaces --help)")
    parser.add_argument("--label-column", metavar="COLUMN",
                        help="CSV only: index (0 = first, -1 = last) or header name of the label"
                             " column (default: 0)")
    if weights is not None:
        parser.add_argument("--weight-column", metavar="COLUMN",
                            help="CSV only: index (0 = first, -1 = last) or header name of a"
                                 " column of example weights (numbers >= 0; not a feature)")
    if weights:
        parser.add_argument("--ignore-weights", action="store_true", help=weights)
    parser.add_argument("--n-features", type=int, metavar="N", help=n_features_help)
    parser.add_argument("--delimiter", type=delimiter, metavar="CHAR",
                        help="CSV: the field separator (default: ','; 'tab' or '\\t' for"
                             " tab-separated numbers); implies --format csv")
    parser.add_argument("--encoding", metavar="NAME",
                        help="CSV and raw text: the file's encoding (default: utf-8), e.g."
                             " cp1252, latin-1")
    parser.add_argument("--header", action=argparse.BooleanOptionalAction,
                        help="raw text (.tsv): the first line names the columns"
                             " (label<TAB>text), or with --no-header it is an example"
                             " (default: detected, with a warning)")
    if indexing_help:
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--zero-based", dest="zero_based", action="store_const", const=True,
                           help="svmlight: indices start at 0 (" + indexing_help + ")")
        group.add_argument("--one-based", dest="zero_based", action="store_const", const=False,
                           help="svmlight: indices start at 1")


def _add_feature_options(parser: argparse.ArgumentParser, *, kept: bool) -> None:
    """The features the learner sees: --scale (``kept``: fitted on the training rows and
    saved in the model, which applies it in predict and evaluate; else fitted on DATA)."""
    group = parser.add_argument_group("features" + (" (kept in the model)" if kept else ""))
    group.add_argument("--scale", choices=("standard", "maxabs", "minmax"),
                       help="scale each feature, fitted on "
                            + ("the training rows and applied by the model" if kept
                               else "DATA") + ": standard (zero mean, unit variance), maxabs"
                            " (divide by the largest |value|: keeps zeros, for sparse data)"
                            " or minmax (onto [0, 1]); standard and minmax centre, so need"
                            " dense data (CSV)")
    if kept:
        for flag, kwargs in _KEPT_FEATURES:
            group.add_argument(flag, **kwargs)


# train's features that the model keeps, besides --scale: (flag, add_argument's options)
_KEPT_FEATURES = (
    ("--ngram", {"type": _features.ngram, "metavar": "N", "help": (
        "raw text: count the n-grams of 1 to N adjacent words (as Vowpal Wabbit's --ngram;"
        " scikit-learn's ngram_range=(1, N)), e.g. 2 for words and word pairs")}),
    ("--char-ngram", {"type": _features.char_ngram, "metavar": "A,B", "help": (
        "raw text: count the character n-grams of A to B characters inside each word, padded"
        " with a space (scikit-learn's analyzer='char_wb', ngram_range=(A, B)), e.g. 2,5")}),
    ("--quadratic", {"action": "append", "type": _features.quadratic, "metavar": "AB",
                     "help": "VW: add the products of the features of namespaces A and B"
                             " (first letters; ':' any namespace, as Vowpal Wabbit's -q),"
                             " hashed as VW does; repeat for more pairs, e.g. --quadratic ab"
                             " --quadratic ::"}),
    ("--hash-bits", {"type": _features.hash_bits, "metavar": "B", "help": (
        "VW, and raw text with --vectorizer hashing: hash into 2**B buckets (Vowpal Wabbit's"
        " -b; default 18); train reports the distinct features that share a bucket")}),
)


def _add_common(parser: argparse.ArgumentParser, *, json_help: str | None = None,
                json: bool = True) -> None:
    if json:
        parser.add_argument("--json", action="store_true",
                            help=json_help or "print the results as one JSON object")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback on errors")


def _add_estimator_options(parser: argparse.ArgumentParser, *, default_algo: str | None,
                           default_text: str | None = None, lists: dict | None = None) -> None:
    group = parser.add_argument_group("estimator parameters (passed under the same name)")
    default_text = default_text or (f"default: {default_algo}" if default_algo else "")
    group.add_argument("--algo", choices=list(ALGOS), default=default_algo, metavar="ALGO",
                       required=default_algo is None and not default_text,
                       help="the learning algorithm: " + ", ".join(ALGOS)
                            + (f" ({default_text})" if default_text else ""))
    for flag, param, kwargs in ESTIMATOR_OPTIONS:
        if lists and param in lists:  # cv: the values to try, "0.01,0.1,1"
            kwargs = {**kwargs, **lists[param]}
        group.add_argument(flag, dest=param, default=argparse.SUPPRESS, **kwargs)
    for flag, param, help_text in BOOL_OPTIONS:
        group.add_argument(flag, dest=param, action=argparse.BooleanOptionalAction,
                           default=argparse.SUPPRESS, help=help_text)
    group.add_argument("--set", action="append", metavar="NAME=VALUE",
                       help="any other estimator parameter (a JSON literal or a string)")
    group.add_argument("--hypotheses", choices=("random", "stumps"), default="random",
                       help="halving / weighted-majority: the finite class, N random halfspaces"
                            " through the origin or decision stumps (default: random)")
    group.add_argument("--n-hypotheses", type=int, default=1024, metavar="N",
                       help="halving / weighted-majority: size N of the class (default: 1024)")


def _command(sub, name: str) -> argparse.ArgumentParser:
    """The sub-command ``name`` with its help, description and examples from ``_TEXTS``."""
    help_text, description, epilog = _TEXTS[name]
    return sub.add_parser(name, help=help_text, description=description, epilog=epilog,
                          formatter_class=_FORMATTER)


def _add_train(sub) -> None:
    p = _command(sub, "train")
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="where to save the model")
    p.add_argument("--vectorizer", choices=("hashing", "tfidf"), default="hashing",
                   help="featurizer of raw text (.tsv) data (default: hashing, 2**18 buckets"
                        " or --n-features)")
    _add_data_options(p, n_features_help="svmlight: number of features (default: the largest"
                                         " index); VW, and text with --vectorizer hashing:"
                                         " number of hash buckets (default: 2**18)",
                      indexing_help=_DETECT_INDEXING + "; the model records it for predict"
                                                       " and evaluate",
                      weights="train without the example weights of the file (VW importance"
                              " weights, --weight-column): every example counts once")
    p.add_argument("--cache", action="store_true",
                   help="svmlight, streaming learners: parse the file once into a binary cache"
                        " beside it (FILE.hscache), read by later passes and later runs; a"
                        " perceptron's passes are shuffled (see --shuffle-window) unless"
                        " --no-shuffle")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="put the cache of --cache in DIR (implies --cache)")
    p.add_argument("--shuffle-window", type=_positive_int, metavar="ROWS",
                   help="perceptrons streamed with --shuffle (the default): each pass holds"
                        " ROWS rows at a time (default 65536), in windows that are permuted,"
                        " seeded by --random-state; with --cache its pieces of ROWS/16 rows"
                        " come in a random order, so a file sorted by label is mixed; without"
                        " --cache, giving it streams the text, whose rows move only within"
                        " their window. Memory: about three windows of rows")
    p.add_argument("--checkpoint-every", type=_checkpoint_every, default=0, metavar="N[rows]",
                   action=_CheckpointEvery,
                   help="save the fit to MODEL.checkpoint (atomically; removed when the model"
                        " is saved) every N epochs, or with Nrows (e.g. 100000rows) every N"
                        " rows inside the passes of a streamed fit. " + _models.CHECKPOINTED)
    p.add_argument("--resume", action="store_true",
                   help="continue the fit from MODEL.checkpoint, written by a run of the same"
                        " command that was stopped; the model is the one the run would have"
                        " saved, bit for bit")
    _add_estimator_options(p, default_algo=None)
    _add_feature_options(p, kept=True)
    _add_common(p, json_help="print one JSON object; train_accuracy is the model's accuracy on"
                             " DATA, or null where the training streamed two classes:"
                             " progressive_accuracy is then the last pass's, each row"
                             " predicted before it was learnt (evaluate gives the model's)")
    p.set_defaults(func=_models.cmd_train, checkpoint_unit="epochs")


def _checkpoint_every(text: str) -> tuple[int, str]:
    """``N`` (epochs) or ``Nrows``: the number and its unit."""
    number, rows = text[:-4] if text.endswith("rows") else text, text.endswith("rows")
    if not (number.isascii() and number.isdigit()):
        raise argparse.ArgumentTypeError(f"expected N (epochs) or Nrows (rows of a streamed"
                                         f" fit), e.g. 5 or 100000rows; got {text!r}")
    return int(number), "rows" if rows else "epochs"


class _CheckpointEvery(argparse.Action):
    """--checkpoint-every N[rows]: sets ``checkpoint_every`` (N) and ``checkpoint_unit``."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.checkpoint_every, namespace.checkpoint_unit = values


def _add_model_command(sub, name: str) -> argparse.ArgumentParser:
    """A command that reads a MODEL file and a DATA file as the model's training file was."""
    p = _command(sub, name)
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    return p


def _add_predict(sub) -> None:
    p = _add_model_command(sub, "predict")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the labels here (atomically; a .gz, .bz2 or .xz name is"
                        " compressed) instead of standard output (-)")
    p.add_argument("--proba", action="store_true",
                   help="write the probability of each class, as LIBSVM's svm-predict -b 1: a"
                        " line 'labels' and the classes, then per row the most probable class"
                        " and the probabilities (a model trained with --probability, or"
                        " --algo logistic)")
    _add_data_options(p, n_features_help=_MODEL_FEATURES, indexing_help=_MODEL_INDEXING,
                      weights="")
    _add_common(p, json=False)
    p.set_defaults(func=_models.cmd_predict)


def _add_evaluate(sub) -> None:
    p = _add_model_command(sub, "evaluate")
    _add_data_options(p, n_features_help=_MODEL_FEATURES, indexing_help=_MODEL_INDEXING,
                      weights="report the unweighted figures only, though the file gives"
                              " example weights (which otherwise also weigh the scores)")
    p.add_argument("--threshold", type=float, metavar="T",
                   help="two classes: predict the second class where the decision value is"
                        " >= T (default: the model's own prediction, T = 0 for most)")
    _add_common(p, json_help="print one JSON object (keys include accuracy, zero_one, hinge,"
                             " logistic, min_functional_margin, geometric_margin,"
                             " balanced_accuracy, f1_macro, roc_auc, log_loss, per_class,"
                             " confusion_matrix; with example weights also weighted_accuracy,"
                             " weighted_zero_one, weighted_hinge, weighted_logistic,"
                             " weight_sum)")
    p.set_defaults(func=_models.cmd_evaluate)


def _add_play(sub) -> None:
    p = _command(sub, "play")
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    _add_data_options(p, n_features_help=_ANY_FEATURES, indexing_help=_DETECT_INDEXING)
    _add_estimator_options(p, default_algo="perceptron")
    _add_feature_options(p, kept=False)
    p.add_argument("--bound-limit", type=int, default=5000,
                   help="largest number of examples for which the separability LP and margin"
                        " QP are solved (default: 5000)")
    _add_play_course_options(p)
    _add_common(p)
    p.set_defaults(func=_cmd_play)


def _add_bound(sub) -> None:
    p = _command(sub, "bound")
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    _add_data_options(p, n_features_help=_ANY_FEATURES, indexing_help=_DETECT_INDEXING)
    p.add_argument("--fit-intercept", action=argparse.BooleanOptionalAction, default=True,
                   help="halfspaces with an offset b (default) or through the origin")
    _add_common(p)
    p.set_defaults(func=_theory.cmd_bound)


def _add_plot(sub) -> None:
    p = _command(sub, "plot")
    p.add_argument("kind", choices=PLOT_KINDS, metavar="KIND", help=", ".join(PLOT_KINDS))
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    p.add_argument("-o", "--output", required=True, metavar="PNG")
    p.add_argument("--lams", type=float_or_inf, nargs=2, default=(1e-3, 1.0),
                   metavar=("SMALL", "LARGE"), help="regularization: the two lambdas")
    p.add_argument("--bound-limit", type=int, default=5000,
                   help="mistakes: largest data for which the Novikoff bound is computed")
    _add_plot_course_options(p)
    _add_data_options(p, n_features_help=_ANY_FEATURES, indexing_help=_DETECT_INDEXING)
    _add_estimator_options(p, default_algo=None,
                           default_text="default: svm for boundary, perceptron for mistakes")
    _add_feature_options(p, kept=False)
    p.add_argument("--quiet", "-q", action="store_true", help="no messages")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=_figures.cmd_plot)


def _add_data(sub) -> None:
    from ..datasets.bundled import BUNDLED

    p = _command(sub, "data")
    p.add_argument("name", nargs="?", choices=list(BUNDLED), metavar="NAME",
                   help=", ".join(BUNDLED))
    p.add_argument("-o", "--output", metavar="FILE", help="where to write it")
    p.add_argument("--text-per-class", nargs="+", metavar="[LABEL=]FILE",
                   help="instead of NAME: raw text given as one file per class, one text per"
                        " line, written to FILE as label<TAB>text (.tsv) for every command to"
                        " read; a file's label is its name without .txt (spam.txt: spam)"
                        " unless given as LABEL=FILE")
    p.add_argument("--encoding", metavar="NAME",
                   help="--text-per-class: the files' encoding (default: utf-8)")
    p.add_argument("--quiet", "-q", action="store_true", help="no message")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=_cmd_data)


def _cmd_data(args: argparse.Namespace) -> int:
    from ._data import cmd_data

    if args.name is not None and not args.output:
        raise _io.CLIError(f"data {args.name}: give the file to write with -o FILE")
    if args.text_per_class and (args.name is not None or not args.output):
        raise _io.CLIError("data --text-per-class FILE ... writes the texts of those files, not"
                           " a bundled set: give no NAME, and the .tsv file to write with -o")
    return cmd_data(args)


def _add_split(sub) -> None:
    from ._split import cmd_split

    p = _command(sub, "split")
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    p.add_argument("-o", "--output", action="append", metavar="FILE",
                   help="give it twice: -o TRAIN -o TEST (compressed by a .gz, .bz2 or .xz"
                        " name)")
    p.add_argument("--test-fraction", type=float, default=0.2, metavar="F",
                   help="share of the examples held out in TEST (default: 0.2)")
    p.add_argument("--stratify", action="store_true",
                   help="keep each label's share the same in both parts")
    p.add_argument("--random-state", type=int, default=0, metavar="SEED",
                   help="seed of the draw (default: 0)")
    _add_data_options(p, n_features_help=_ANY_FEATURES, indexing_help=_DETECT_INDEXING,
                      weights="")
    p.add_argument("--quiet", "-q", action="store_true", help="no message")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=cmd_split)


def _add_cv(sub) -> None:
    from ..metrics import SCORES
    from ._cv import cmd_cv, float_list

    p = _command(sub, "cv")
    p.add_argument("data", metavar="DATA", help=_DATA_HELP)
    p.add_argument("--folds", type=int, default=5, metavar="K",
                   help="number of stratified folds (default: 5)")
    p.add_argument("--scoring", choices=sorted(SCORES), default="accuracy", metavar="NAME",
                   help="the held-out figure: " + ", ".join(sorted(SCORES))
                        + " (default: accuracy)")
    p.add_argument("-o", "--output", metavar="MODEL",
                   help="refit the best value on every row and save the model here")
    _add_data_options(p, n_features_help=_ANY_FEATURES, indexing_help=_DETECT_INDEXING,
                      weights="search without the example weights of the file")
    values = {"type": float_list, "metavar": "V1,V2,..."}
    _add_estimator_options(p, default_algo="svm", lists={
        "C": {**values, "help": "the values of C to try, e.g. 0.01,0.1,1,10,100"},
        "lam": {**values, "help": "the values of lambda to try, e.g. 1e-5,1e-4,1e-3"}})
    _add_common(p)
    p.set_defaults(func=cmd_cv)


def _add_demo(sub) -> None:
    p = _command(sub, "demo")
    p.add_argument("--out-dir", default="demo-output", help="folder for the figures and"
                                                              " reports (default: demo-output)")
    p.add_argument("--quick", action="store_true", help="small data, a few seconds")
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=_figures.cmd_demo)


# -- the course's commands and options (play --passes / --trace, plot update and --columns,
# shatter, playground) ----------------------------------------------------------------------

_TEXTS["shatter"] = ("do halfspaces shatter these points? (VC dimension, Radon)", """\
Decide whether halfspaces realize every labelling of POINTS (each labelling one LP; at most
20 points). When they do not, print a labelling no halfspace realizes with its Farkas
certificate and, with an offset, Radon's partition of the points: two sets whose convex
hulls meet. POINTS are x1,x2,... arguments or files with one point per line; put -- before
the points when one starts with a minus sign.""", """\
examples:
  halfspaces shatter 0,0 1,0 0,1            # 3 points in the plane: shattered
  halfspaces shatter 0,0 1,1 1,0 0,1        # 4 points: not (Radon: the two diagonals)
  halfspaces shatter --no-fit-intercept -- -1,0 1,0 0,1
  halfspaces shatter points.txt""")
_TEXTS["playground"] = ("an interactive page: click points, step the learners", """\
Serve the playground on http://127.0.0.1:PORT/ and open it in the browser: click to add +1
and -1 points, step the perceptron round by round against Novikoff's bound (or see the
Farkas certificate when the points are not separable), switch to the max-margin and
soft-margin SVM, Pegasos, logistic regression, kernel perceptrons, Halving and Weighted
Majority over thresholds, and the adaptive adversary. Every number on the page is computed
by the library. The server answers only on 127.0.0.1, serves only its own files, and stops
with Ctrl-C.""", """\
examples:
  halfspaces playground
  halfspaces playground --no-browser --port 8765
  halfspaces playground heart_scale --columns 0,1   # start from two columns of a file""")


def _add_play_course_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("the notes' views of the game")
    group.add_argument("--passes", type=_positive_int, metavar="N",
                       help="cycle over DATA in file order until a pass makes no mistake, at"
                            " most N passes; print a row per pass (instead of the progressive"
                            " table)")
    group.add_argument("--trace", action="store_true",
                       help="print every round: t, the row, y_t, the score <w_t, x_t> + b_t,"
                            " mistake or not, x_t and the weights w_t that scored it")


def _cmd_play(args: argparse.Namespace) -> int:
    """``play``: the game (:func:`._theory.play`), or with --passes or --trace the notes'
    views of it (:func:`._course.play_passes`)."""
    from ._course import play_passes

    plan = _plan.play_plan(args)
    return (play_passes if plan.passes or plan.trace else _theory.play)(plan)


def _add_plot_course_options(p: argparse.ArgumentParser) -> None:
    from ._course import columns

    p.add_argument("--columns", type=columns, metavar="I,J",
                   help="boundary, regularization, max-margin, update: draw feature columns I"
                        " and J (0-based) of wider data")
    p.add_argument("--mistake", type=int, default=2, metavar="K",
                   help="update: draw the perceptron's (through the origin) K-th mistake"
                        " (0-based; default: 2)")


def _positive_int(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(text)


def _add_shatter(sub) -> None:
    from ._course import cmd_shatter

    p = _command(sub, "shatter")
    p.add_argument("points", nargs="+", metavar="POINTS",
                   help="points x1,x2,... (one argument each) or files of points")
    p.add_argument("--fit-intercept", action=argparse.BooleanOptionalAction, default=True,
                   help="halfspaces with an offset b (default) or through the origin")
    _add_common(p)
    p.set_defaults(func=cmd_shatter)


def _add_playground(sub) -> None:
    from ._course import columns

    p = _command(sub, "playground")
    p.add_argument("data", nargs="?", metavar="DATA",
                   help="start from two columns of this file (--columns, default 0,1); the"
                        " page itself never names a file")
    p.add_argument("--columns", type=columns, metavar="I,J",
                   help="the two feature columns of DATA (0-based; default: 0,1)")
    p.add_argument("--port", type=int, default=0,
                   help="the port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    _add_data_options(p, n_features_help=_ANY_FEATURES, indexing_help=_DETECT_INDEXING)
    p.add_argument("--debug", action="store_true", help="show the Python traceback on errors")
    p.set_defaults(func=_cmd_playground)


def _cmd_playground(args: argparse.Namespace) -> int:
    from ._playground import cmd_playground

    return cmd_playground(args)


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors as one JSON object on standard output when
    ``json_errors`` (the command line has --json)."""

    json_errors = False

    def error(self, message: str):
        if not self.json_errors:
            super().error(message)
        usage = " ".join(self.format_usage().split()[1:])
        print(json.dumps({"error": f"{self.prog}: {message}", "usage": usage}))
        self.exit(2)


def build_parser(*, json_errors: bool = False) -> argparse.ArgumentParser:
    """The argument parser of the ``halfspaces`` command; ``commands`` maps each sub-command
    to its parser."""
    from .. import __version__

    parser = _Parser(
        prog=PROG, formatter_class=_FORMATTER, epilog=_MAIN_EPILOG,
        description="Online and large-margin linear classifiers, with their theory.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_train, _add_predict, _add_evaluate, _add_play, _add_bound, _add_plot,
                _add_data, _add_split, _add_cv, _add_demo, _add_shatter, _add_playground):
        add(sub)
    parser.commands = sub.choices
    for p in (parser, *sub.choices.values()):
        p.json_errors = json_errors
    return parser
