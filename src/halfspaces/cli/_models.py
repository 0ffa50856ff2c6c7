"""``train``, ``predict`` and ``evaluate``: model files in and out."""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from . import _estimators
from ._io import (
    about,
    load_model,
    print_json,
    print_table,
    progress,
    read_args_data,
    read_for_model,
    save_model,
    write_atomic,
)


def cmd_train(args: argparse.Namespace) -> int:
    from . import _stream

    streamed = _stream.train(args)  # the online learners read a svmlight file in blocks
    if streamed is not None:
        return _trained(args, streamed.model, streamed, streamed.accuracy)
    with progress(args, total=3, desc="train", unit="step") as bar:
        bar.set_postfix_str("reading " + os.path.basename(args.data))
        data = read_args_data(args)
        bar.update()
        estimator = _estimators.make_estimator(args, None if data.is_text else data.X)
        _stream.note_in_memory(args, data, estimator)
        model = _estimators.wrap_for_text(estimator, args) if data.is_text else estimator
        bar.set_postfix_str("fitting " + type(estimator).__name__)
        model.fit(data.X, data.y)
        bar.update()
        bar.set_postfix_str("saving")
        save_model(model, args.output, data)
        bar.update()
    return _trained(args, estimator, data, float(model.score(data.X, data.y)))


def _trained(args: argparse.Namespace, estimator, data, accuracy: float) -> int:
    """Report the model ``train`` saved."""
    if args.json:
        print_json({"model": args.output, "algo": args.algo,
                    "estimator": type(estimator).__name__,
                    "params": _estimators.given_params(args), "n_samples": data.n_samples,
                    "train_accuracy": accuracy})
    else:
        print(f"trained {type(estimator).__name__} on {data.n_samples} examples of {data.path}:"
              f" training accuracy {accuracy:.4f}; saved to {args.output}")
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from .._labels import format_label
    from . import _stream

    model, metadata = load_model(args.model)
    predictions = _stream.predict(model, metadata, args)  # a svmlight file in blocks
    if predictions is None:
        predictions = _predict_blocks(model, read_for_model(model, metadata, args), args)
    text = "".join(format_label(p) + "\n" for p in predictions)
    if args.output and args.output != "-":
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _predict_blocks(model, data, args: argparse.Namespace, block: int = 100_000):
    n = data.n_samples
    out = []
    with progress(args, total=n, desc="predict", unit="ex") as bar:
        for start in range(0, max(n, 1), block):
            stop = min(start + block, n)
            out.append(np.asarray(model.predict(data.X[start:stop])))
            bar.update(stop - start)
    return np.concatenate(out) if out else np.empty(0)


_EVALUATE_ROWS = {"accuracy": "accuracy", "zero_one": "zero-one loss", "hinge": "hinge loss",
                  "logistic": "logistic loss", "min_functional_margin": "min functional margin",
                  "mean_functional_margin": "mean functional margin",
                  "geometric_margin": "geometric margin", "note": "note"}


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..metrics import evaluate

    model, metadata = load_model(args.model)
    data = read_for_model(model, metadata, args)
    with about(data):
        result = {"data": data.path, **evaluate(model, data.X, data.y)}
    if args.json:
        print_json(result)
        return 0
    rows = [("data", f"{data.path} ({data.n_samples} examples)")]
    print_table(rows + [(label, result[key]) for key, label in _EVALUATE_ROWS.items()
                        if key in result])
    return 0
