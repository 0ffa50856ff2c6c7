"""``train``, ``predict`` and ``evaluate``: model files in and out."""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from . import _estimators, _features, _io, _plan, _records, _stream
from ._io import (
    about,
    fit_progress,
    load_model,
    print_json,
    print_table,
    progress,
    read_args_data,
    read_for_model,
    save_model,
    write_atomic,
)
from ._plan import ModelPlan, TrainPlan


def cmd_train(args: argparse.Namespace) -> int:
    return train(_plan.train_plan(args))


def train(plan: TrainPlan) -> int:
    """Run ``train``'s plan: the estimator is built once, here (or, for the expert
    algorithms, whose hypothesis class comes from the data, once the data is read)."""
    _remove_stale_checkpoint_temporaries(plan.output.path)
    estimator = None if plan.estimator.experts else plan.estimator.build()
    checkpoints = _checkpoints(plan, estimator)
    if checkpoints is None:
        return _train(plan, estimator)
    from .._checkpoint import checkpointing

    with checkpointing(checkpoints):
        status = _train(plan, estimator)
    checkpoints.finished()
    return status


def _remove_stale_checkpoint_temporaries(output) -> None:
    """Remove the temporary files of checkpoints of ``output`` left by a run killed while it
    wrote one (those of a process that has ended), whether or not this run checkpoints."""
    if not output or not isinstance(output, str) or output == "-":
        return
    from ..datasets._io import remove_stale_temporaries

    remove_stale_temporaries(os.path.realpath(output + ".checkpoint"))


# The learners whose fit writes and resumes checkpoints (halfspaces._checkpoint).
CHECKPOINT_ALGOS = ("perceptron", "averaged", "voted", "kernel-perceptron", "pegasos", "svm",
                    "logistic")
CHECKPOINTED = ("Checkpoints: --algo perceptron, averaged, voted (epochs; streamed with"
                " --no-shuffle, rows too), kernel-perceptron (epochs), pegasos, also with"
                " --kernel (epochs in memory, without --tol or --set record_objective; streamed"
                " with --set sampling=cyclic, epochs or rows), svm (epochs of dual"
                " coordinate descent: the linear kernel, one-vs-rest, also with --n-jobs, or"
                " --set multi_class=crammer_singer) and logistic --solver sgd (epochs). Not"
                " --algo lp, logistic's L-BFGS-B, nor svm's QP: Clarabel's QP, SciPy's"
                " L-BFGS-B and HiGHS's LP"
                " keep their state inside the library, so a restart from the iterate alone"
                " would not give the same bits; nor the one-pass halving and weighted-majority.")


def _checkpoints(plan: TrainPlan, est):
    """The Checkpointer of --checkpoint-every / --resume (None without them) for the
    estimator ``est`` that ``plan`` trains."""
    output, source = plan.output, plan.source
    if not (output.checkpoint_every or output.resume):
        return None
    from .._checkpoint import Checkpointer, file_identity
    from ._io import STDIN, CLIError

    if plan.algo not in CHECKPOINT_ALGOS:
        raise CLIError(f"--checkpoint-every and --resume do not apply to --algo {plan.algo}. "
                       + CHECKPOINTED)
    if source.path == STDIN or not os.path.isfile(source.path):
        raise CLIError("--checkpoint-every and --resume need DATA to be a file (a pipe cannot"
                       " be read again when the training resumes)")
    for name, option in (("early_stopping", "--early-stopping"), ("probability", "--probability")):
        if getattr(est, name, False):  # its held-out rows and fold fits are not checkpointed
            raise CLIError(f"--checkpoint-every and --resume do not apply with {option}: a"
                           " checkpoint holds the learner's passes, not the rows it holds out")
    streamed = _stream._why_not(plan, plan.fmt, est)
    if output.checkpoint_unit == "rows" and streamed is not None:
        raise CLIError(f"--checkpoint-every {output.checkpoint_every}rows applies to a streamed"
                       f" fit, and this one reads DATA into memory ({streamed}); checkpoint"
                       f" every N epochs (--checkpoint-every N), or stream the file")
    if plan.algo == "pegasos" and streamed is not None:
        _check_pegasos_checkpoints(est)
    if plan.algo == "svm":
        _check_svm_checkpoints(est)
    if plan.algo == "logistic" and est.solver == "lbfgs":  # (a bad name: fit says so)
        raise CLIError(f"--checkpoint-every and --resume do not apply to --algo logistic with"
                       f" --solver {est.solver}: SciPy's L-BFGS-B keeps its state inside the"
                       " library, so a restart from the iterate alone would not give the same"
                       " bits; pass --solver sgd (its epochs are checkpointed), or train"
                       " without --checkpoint-every")
    features = plan.features
    options = {"format": source.format, "n_features": source.n_features,
               "scale": features.scale, "ngram": features.ngram,
               "char_ngram": list(features.char_ngram or []) or None,
               "quadratic": None if source.interactions is None else list(source.interactions),
               "zero_based": source.zero_based, "vectorizer": features.vectorizer,
               "weight_column": source.weight_column, "ignore_weights": source.ignore_weights}
    if output.shuffle_window:  # the order of a shuffled stream's passes
        options["shuffle_window"] = output.shuffle_window
    return Checkpointer(output.path + ".checkpoint", output.checkpoint_every,
                        source=file_identity(source.path), options=options,
                        resume=output.resume, unit=output.checkpoint_unit)


def _check_pegasos_checkpoints(est) -> None:
    """Pegasos checkpoints the epochs of its fit in memory: not with --tol,
    record_objective or n_iter."""
    from ._io import CLIError

    problem = ("--tol" if est.tol is not None else
               "--set record_objective=true" if est.record_objective else
               "--set n_iter" if est.n_iter is not None else None)
    if problem:
        raise CLIError(f"--checkpoint-every and --resume apply to --algo pegasos without"
                       f" {problem}: Pegasos checkpoints the epochs of its fit in memory (or"
                       " epochs and rows of a stream, with --set sampling=cyclic)")


def _check_svm_checkpoints(est) -> None:
    """SVC checkpoints dual coordinate descent (one-vs-rest or Crammer-Singer), not the
    QP."""
    from ._io import CLIError

    problem = ("--kernel " + str(est.kernel) if est.kernel != "linear" else
               "--solver qp" if est.solver == "qp" else None)
    if problem:
        raise CLIError(f"--checkpoint-every and --resume do not apply to --algo svm with"
                       f" {problem}: svm checkpoints the epochs of dual coordinate descent"
                       " (the linear kernel, --solver dcd or auto; one-vs-rest or"
                       " Crammer-Singer); the QP keeps no checkpoints")


def _train(plan: TrainPlan, estimator) -> int:
    """Train ``estimator`` (None: build it from the data) by streaming the file, else in
    memory; save the model and report."""
    source = plan.source
    start = time.perf_counter()
    # the online learners read a svmlight file in blocks
    streamed = _stream.train(plan, estimator)
    if streamed is not None:
        return _trained(plan, streamed.model, streamed, streamed.accuracy,
                        time.perf_counter() - start,
                        _weights_used(source, "vw", streamed.weighted), streamed.progressive)
    data = read_args_data(source)
    _records.check_width(source, data)
    _records.check_labels(data)
    # what the estimator sees, with --scale
    scaler, seen = _features.scaled(plan.features.scale, data)
    if estimator is None:
        estimator = plan.estimator.build(None if data.is_text else seen.X)
    weights = _estimators.fit_weights(source, data)
    _stream.note_in_memory(plan, data, estimator)
    model = _estimators.wrap_for_text(estimator, plan.features, source.n_features) \
        if data.is_text else estimator
    start = time.perf_counter()
    with about(data), fit_progress(plan.report.quiet, estimator):
        model.fit(seen.X, data.y, **weights)
    seconds = time.perf_counter() - start
    if scaler is not None:  # the model scales what it is given, as it was trained
        from sklearn.pipeline import Pipeline

        model = Pipeline([("scaler", scaler), ("classifier", estimator)])
    save_model(model, plan.output.path, data, source.delimiter, source.interactions)
    return _trained(plan, estimator, seen, float(model.score(data.X, data.y)), seconds,
                    _weights_used(source, data.format, data.sample_weight is not None))


def _weights_used(source, fmt: str, weighted: bool) -> str | None:
    """What ``train`` says of the example weights of the file of ``source`` (a
    :class:`~._plan.Source`): "importance" (VW), "column" (CSV), "ignored"
    (--ignore-weights), or None when the file gives none but 1."""
    if not weighted:
        return None
    return "ignored" if source.ignore_weights else {"vw": "importance"}.get(fmt, "column")


# How the report words each value of _weights_used.
_WEIGHTS_WORDS = {"importance": "weighted by its VW importance weights",
                  "column": "weighted by its --weight-column",
                  "ignored": "its example weights ignored (--ignore-weights)"}


def _trained(plan: TrainPlan, estimator, data, accuracy: float | None,
             seconds: float, weights: str | None, progressive: float | None = None) -> int:
    """Report the model ``train`` saved (``data``: what was read, or the streamed file;
    ``weights``: see :func:`_weights_used`): its training accuracy (``model.score``), or a
    stream's progressive accuracy (``progressive``, the other being None)."""
    fit = fit_summary(estimator, data, weights in ("importance", "column"))
    collisions = _features.hash_collisions(plan.source, plan.fmt, estimator)
    if plan.report.json:
        print_json({"model": plan.output.path, "algo": plan.algo,
                    "estimator": type(estimator).__name__,
                    "params": plan.estimator.params, "n_samples": data.n_samples,
                    "sample_weight": weights, "train_accuracy": accuracy,
                    "progressive_accuracy": progressive, "time_s": seconds,
                    "hash_collisions": collisions,
                    **fit})
    else:
        done = [f"{seconds:.3g} s"] + ([_WEIGHTS_WORDS[weights]] if weights else [])
        if fit["epochs"] is not None:
            unit = fit["iterations_of"]
            done.append(f"{fit['epochs']} {unit + ' iteration' if unit else 'epoch'}"
                        f"{'s' * (fit['epochs'] != 1)}")
        if fit["solver"]:
            why = f" ({fit['solver_reason']})" if fit["solver_reason"] else ""
            done.append(f"solver {fit['solver']}{why}")
        for key, name in (("objective", "objective"), ("duality_gap", "duality gap")):
            if isinstance(fit[key], float):
                done.append(f"{name} {fit[key]:.6g}")
        stopped = bool(fit["held_out_loss"]) and fit["epochs"] is not None \
            and fit["epochs"] < getattr(estimator, "max_iter", np.inf)
        if fit["converged"]:
            done.append("converged")
        elif stopped:
            done.append("stopped early on held-out data")
        elif fit["converged"] is not None:
            done.append("NOT converged")
        if fit["held_out_loss"]:
            losses = fit["held_out_loss"]
            done.append(f"held-out zero-one loss by epoch {' '.join(f'{x:.4g}' for x in losses)}")
        if progressive is None:
            score = f"training accuracy {accuracy:.4f}"
        elif accuracy is None:
            score = (f"progressive accuracy of the last pass {progressive:.4f} (each row"
                     " predicted before it was learnt, a score of 0 counted wrong; 'halfspaces"
                     " evaluate MODEL FILE' gives the model's accuracy)")
        else:  # a saved average (or vote), and the running learner the passes followed
            kind = "voted" if type(estimator).__name__ == "VotedPerceptron" else "averaged"
            score = (f"training accuracy of the saved ({kind}) model {accuracy:.4f}; the"
                     f" running learner's progressive accuracy in the last pass {progressive:.4f}"
                     " (each row predicted by the last iterate before it was learnt: not the"
                     " saved model)")
        print(f"trained {type(estimator).__name__} on {data.n_samples} examples of {data.path}"
              f" ({', '.join(done)}): {score}; saved to {plan.output.path}")
        if collisions is not None:
            print(_features.collisions_line(collisions))
    return 0


def fit_summary(estimator, data, weighted: bool = False) -> dict:
    """How the fit went, from what the estimator recorded: ``epochs`` (passes or solver
    iterations), ``solver`` and ``solver_reason`` (why that solver), ``objective`` (its own,
    or Pegasos's J on the training data,
    weighted when the fit was: ``weighted``),
    ``duality_gap``, ``converged`` (None where the estimator does not say),
    ``held_out_loss`` (with ``early_stopping``), and ``iterations_of`` (the solver whose
    iterations ``epochs`` counts, None when they are passes over the data)."""
    epochs = getattr(estimator, "n_iter_", None)
    objective = getattr(estimator, "objective_", None)
    if objective is None and hasattr(estimator, "lam") and hasattr(estimator, "coef_") \
            and np.shape(estimator.coef_)[0] == 1 and getattr(data, "X", None) is not None \
            and not data.is_text:
        from .._labels import encode_pm
        from ..losses import svm_objective

        y_pm = encode_pm(data.y, estimator.classes_)
        w, b = np.ravel(estimator.coef_), float(estimator.intercept_[0])
        if weighted:  # lam/2 ||w||^2 + 1/n sum s_i hinge_i over the n rows of weight > 0
            s = data.sample_weight
            hinge = np.maximum(0.0, 1.0 - y_pm * (data.X @ w + b))
            objective = float(estimator.lam) / 2 * float(w @ w) \
                + float(s @ hinge) / np.count_nonzero(s)
        else:
            objective = svm_objective(w, b, data.X, y_pm, lam=float(estimator.lam))
    converged = getattr(estimator, "converged_", None)
    tol, max_iter = getattr(estimator, "tol", None), getattr(estimator, "max_iter", None)
    fixed_epochs = getattr(estimator, "solver", None) == "sgd"  # max_iter epochs, no tol
    if converged is None and tol is not None and max_iter is not None and epochs is not None \
            and not fixed_epochs:
        converged = bool(epochs < max_iter)  # a solver that stops at its tolerance
    gap = getattr(estimator, "duality_gap_", None)
    if converged and not all(np.all(np.isfinite(v)) for v in (objective, gap) if v is not None):
        converged = False  # no solver converges to an infinite objective or gap
    return {"epochs": None if epochs is None else int(epochs),
            "solver": getattr(estimator, "solver_", None),
            "solver_reason": getattr(estimator, "solver_reason_", None),
            "objective": _scalar(objective),
            "duality_gap": _scalar(getattr(estimator, "duality_gap_", None)),
            "converged": converged, "held_out_loss": _held_out_loss(estimator),
            "iterations_of": _iterations_of(estimator)}


def _iterations_of(estimator) -> str | None:
    """The solver whose iterations ``n_iter_`` counts (None: passes over the data)."""
    if getattr(estimator, "solver", None) == "lbfgs" and hasattr(estimator, "coef_"):
        return "L-BFGS"
    if getattr(estimator, "solver_", None) == "qp":
        return "QP"
    return None


def _held_out_loss(estimator) -> list[float] | None:
    """The zero-one loss on the rows ``early_stopping`` held out, after each epoch."""
    scores = getattr(estimator, "validation_scores_", None)
    return None if scores is None else [1.0 - s for s in scores]


def _scalar(value):
    """A float, or for one-vs-rest one float per class (None stays None)."""
    if value is None:
        return None
    value = np.asarray(value, dtype=np.float64)
    return float(value) if value.size == 1 else value.ravel().tolist()


def cmd_predict(args: argparse.Namespace) -> int:
    return predict(_plan.model_plan(args))


def predict(plan: ModelPlan) -> int:
    """Write the model's labels (or probabilities) for the rows of the data file."""
    from .._labels import format_label
    from . import _quick

    # a small file and a linear model: no sklearn, no numba (labels only, not --proba)
    predictions = None if plan.proba else _quick.predict(plan.source, plan.model)
    if predictions is None:
        model, metadata = load_model(plan.model)
        if plan.proba and not hasattr(model, "predict_proba"):
            raise _io.CLIError(f"--proba: {plan.model} has no probabilities; train it with"
                               " --probability (svm, pegasos, perceptrons) or use --algo"
                               " logistic")
        # a svmlight file in blocks
        predictions = _stream.predict(model, metadata, plan.source, plan.model, plan.proba)
        if predictions is None:
            X, _ = read_for_model(model, metadata, plan.source, plan.model, labelled=False)
            predictions = _predict_blocks(model, X, plan)
    if plan.proba:
        classes = model.classes_
        text = "".join([f"labels {' '.join(format_label(c) for c in classes)}\n"] + [
            f"{format_label(classes[np.argmax(p)])} {' '.join(f'{x:.6g}' for x in p)}\n"
            for p in predictions])
    else:
        text = "".join(format_label(p) + "\n" for p in predictions)
    if plan.output and plan.output != "-":
        write_atomic(plan.output, text)
    else:
        sys.stdout.write(text)
    return 0


class _Weighted:
    """The blocks ``(X, y[, w])`` of a file, passed on (without ``w`` unless ``keep``),
    noting whether a weight is not 1."""

    def __init__(self, blocks, keep: bool):
        self.blocks, self.keep, self.weighted = blocks, keep, False

    def __iter__(self):
        for block in self.blocks:
            if len(block) > 2:
                self.weighted = self.weighted or bool((block[2] != 1.0).any())
            yield block if self.keep else block[:2]


def _predict_blocks(model, X, plan: ModelPlan, block: int = 100_000):
    n = len(X) if isinstance(X, list) else X.shape[0]
    out = []
    with progress(plan.report.quiet, total=n, desc="predict", unit="ex") as bar:
        for start in range(0, max(n, 1), block):
            stop = min(start + block, n)
            out.append(np.asarray(_estimators.predict_rows(model, X[start:stop],
                                                           plan.proba)))
            bar.update(stop - start)
    return np.concatenate(out) if out else np.empty(0)


_EVALUATE_ROWS = {"threshold": "threshold", "accuracy": "accuracy",
                  "zero_one": "zero-one loss", "hinge": "hinge loss",
                  "logistic": "logistic loss", "min_functional_margin": "min functional margin",
                  "mean_functional_margin": "mean functional margin",
                  "geometric_margin": "geometric margin", "note": "note",
                  "weight_sum": "weight sum", "weighted_accuracy": "weighted accuracy",
                  "weighted_zero_one": "weighted zero-one loss",
                  "weighted_hinge": "weighted hinge loss",
                  "weighted_logistic": "weighted logistic loss",
                  "balanced_accuracy": "balanced accuracy", "precision": "precision",
                  "recall": "recall", "f1": "F1", "precision_macro": "precision (macro)",
                  "recall_macro": "recall (macro)", "f1_macro": "F1 (macro)",
                  "precision_weighted": "precision (weighted)",
                  "recall_weighted": "recall (weighted)", "f1_weighted": "F1 (weighted)",
                  "roc_auc": "ROC-AUC", "average_precision": "average precision",
                  "log_loss": "log-loss", "brier": "Brier score"}
# The keys evaluate adds with example weights.
_WEIGHTED_KEYS = ("weight_sum", "weighted_accuracy", "weighted_zero_one", "weighted_hinge",
                  "weighted_logistic")


def cmd_evaluate(args: argparse.Namespace) -> int:
    return evaluate(_plan.model_plan(args))


def evaluate(plan: ModelPlan) -> int:
    """Accuracy, losses and margins; on a file that gives example weights other than 1
    (VW importance weights, --weight-column), also their weighted means (as VW reports its
    weighted average loss), unless --ignore-weights."""
    from ..metrics import evaluate, evaluate_blocks

    source, ignored = plan.source, plan.source.ignore_weights
    model, metadata = load_model(plan.model)
    # svmlight or VW, in blocks
    blocks = _stream.model_blocks(model, metadata, source, plan.model, weights=True)
    if blocks is None:
        data = read_for_model(model, metadata, source, plan.model)
        with about(data):
            result = {"data": data.path, **evaluate(
                model, data.X, data.y, None if ignored else data.sample_weight,
                threshold=plan.threshold)}
        weighted = data.sample_weight is not None
    else:
        seen = _Weighted(blocks, keep=not ignored)
        with about(source):
            result = {"data": source.path, **evaluate_blocks(model, seen,
                                                             threshold=plan.threshold)}
        weighted = seen.weighted
        if not weighted:  # every weight 1: the figures are the unweighted ones
            result = {k: v for k, v in result.items() if k not in _WEIGHTED_KEYS}
    if weighted:  # a file without weights (or all 1) reports as before
        result["sample_weight"] = "ignored" if ignored else "used"
    if plan.report.json:
        print_json(result)
        return 0
    rows = [("data", f"{result['data']} ({result['n_samples']} examples)")]
    if weighted:
        rows.append(("weights", "the file's example weights, ignored (--ignore-weights)"
                     if ignored else "the file's example weights: the weighted"
                     " figures are sums of weight times value over the weight sum"))
    print_table(rows + [(label, "undefined (a class is absent from DATA, or is all of it)"
                         if result[key] is None else result[key])
                        for key, label in _EVALUATE_ROWS.items() if key in result])
    _print_per_class(result)
    return 0


def _print_per_class(result: dict) -> None:
    """The per-class precision, recall, F1 and support, then the confusion matrix."""
    from .._labels import format_label

    names = [format_label(c) for c in result["classes"]]
    rows = [[name, *(f"{row[k]:.4f}" for k in ("precision", "recall", "f1")),
             f"{row['support']:.6g}"] for name, row in zip(names, result["per_class"],
                                                          strict=True)]
    rows += [[f"{average} avg", *(f"{result[f'{k}_{average}']:.4f}"
                                  for k in ("precision", "recall", "f1")), ""]
             for average in ("macro", "weighted")]
    print()
    _print_grid([["class", "precision", "recall", "F1", "support"], *rows])
    print("\nconfusion matrix (rows: true class, columns: predicted)")
    _print_grid([["", *names], *([name, *(f"{v:.6g}" for v in counts)]
                                 for name, counts in zip(names, result["confusion_matrix"],
                                                         strict=True))])


def _print_grid(rows: list[list[str]]) -> None:
    """Rows of cells: the first column left-aligned, the others right-aligned."""
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                         strict=True)]
        print("  ".join(cells).rstrip())
