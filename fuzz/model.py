"""Fuzz the model-file reader, ``halfspaces.load``, at two depths.

The first byte picks the form of the rest:

- even: the bytes are the file itself (zip archive, ``.npy`` headers, metadata JSON);
- odd: the bytes are JSON ``{"meta": ..., "arrays": {key: [dtype, shape, values]}}`` that the
  harness writes as a model file *with a valid checksum*, as a crafted file would be: the
  fuzzer then reaches the schema checks of every parameter and attribute, which random
  bytes stop short of (the checksum fails first).

Properties checked: the only exception ``load`` raises is ``ModelFormatError``; a model it
returns predicts on a matrix of its width without any exception but ``NumericalError``
(scores that overflow), so nothing it accepted reaches the compiled kernels malformed.

Seeds: ``python fuzz/model.py --make-seeds fuzz/corpus/model``. Run:
``python fuzz/model.py fuzz/corpus/model -max_total_time=60``.
"""

from __future__ import annotations

import io as _stdio
import json
import sys

import numpy as np
from harness import instrumented, main, scratch

persistence, exceptions = instrumented("halfspaces.persistence", "halfspaces.exceptions")

_MAX_VALUES = 10_000


def _crafted(text: bytes) -> bytes | None:
    """The model file that the JSON form describes, or None when it describes none."""
    try:
        spec = json.loads(text)
        entries = {key: np.array(values, dtype=np.dtype(dtype)).reshape(shape)
                   for key, (dtype, shape, values) in spec["arrays"].items()
                   if len(values) <= _MAX_VALUES}
        meta_bytes = json.dumps(spec["meta"], sort_keys=True).encode()
    except Exception:  # not a description of arrays (numpy's dtype parser alone raises
        return None       # SyntaxError, TypeError, ValueError...): nothing to load
    arrays = dict(entries)
    entries["__meta__"] = np.frombuffer(meta_bytes, dtype=np.uint8)
    entries["__sha256__"] = np.array(persistence._digest(meta_bytes, arrays))
    out = _stdio.BytesIO()
    persistence._write_npz(out, entries)
    return out.getvalue()


def test_one(data: bytes) -> None:
    if not data:
        return
    content = data[1:] if data[0] % 2 == 0 else _crafted(data[1:])
    if content is None:
        return
    path = scratch(content, "input.npz")
    try:
        model = persistence.load(path)
    except persistence.ModelFormatError:
        return
    n = getattr(model, "n_features_in_", None)
    if n is None or not hasattr(model, "decision_function") or n > 100_000:
        return
    X = np.linspace(-1.0, 1.0, 2 * n).reshape(2, n)
    try:
        model.decision_function(X)
        model.predict(X)
    except exceptions.NumericalError:
        pass


def make_seeds(directory: str) -> None:
    """Save small fitted models of several classes, in both forms, as seeds."""
    import os
    import zipfile

    from halfspaces import (
        AveragedPerceptron,
        KernelPerceptron,
        LogisticRegression,
        PegasosSVC,
        Perceptron,
        VotedPerceptron,
    )
    from halfspaces.datasets import make_separable

    X, y = make_separable(n_samples=12, n_features=3, margin=0.2, random_state=0)
    models = [Perceptron(), AveragedPerceptron(), VotedPerceptron(), PegasosSVC(lam=0.1),
              LogisticRegression(), KernelPerceptron(kernel="rbf")]
    for model in models:
        name = type(model).__name__
        path = os.path.join(directory, f"raw-{name}")
        model.fit(X, y).save(path + ".npz")
        with open(path + ".npz", "rb") as f:
            raw = f.read()
        os.remove(path + ".npz")
        with open(path, "wb") as f:
            f.write(b"\0" + raw)
        with zipfile.ZipFile(_stdio.BytesIO(raw)) as zf:
            arrays = {n[:-4]: np.lib.format.read_array(zf.open(n)) for n in zf.namelist()}
        meta = json.loads(arrays.pop("__meta__").tobytes())
        arrays.pop("__sha256__")
        spec = {"meta": meta, "arrays": {k: [a.dtype.str, list(a.shape), a.ravel().tolist()]
                                         for k, a in arrays.items()}}
        with open(os.path.join(directory, f"crafted-{name}"), "wb") as f:
            f.write(b"\1" + json.dumps(spec).encode())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make-seeds"]:
        make_seeds(sys.argv[2])
    else:
        main(test_one)
