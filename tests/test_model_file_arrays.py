"""persistence.save's ``arrays`` (a checkpoint's solver state beside the estimator): stored
and returned as given, counted by the checksum, and refused, like the tree's arrays, when
the metadata that names them is malformed or disagrees with their ``.npy`` headers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from halfspaces import SVC, persistence
from halfspaces.persistence import ModelFormatError, load, save


def _rewrite(path, edit_meta, arrays=None):
    """The file at ``path`` with its metadata edited (checksum recomputed)."""
    with np.load(path) as f:
        entries = {k: f[k] for k in f.files}
    meta = json.loads(entries.pop("__meta__").tobytes())
    entries.pop("__sha256__")
    edit_meta(meta)
    entries.update(arrays or {})
    meta_bytes = json.dumps(meta).encode()
    entries["__meta__"] = np.frombuffer(meta_bytes, dtype=np.uint8)
    entries["__sha256__"] = np.array(persistence._digest(
        meta_bytes, {k: v for k, v in entries.items() if not k.startswith("__")}))
    with open(path, "wb") as f:
        persistence._write_npz(f, entries)


def test_arrays_round_trip_and_are_checked(tmp_path):
    path = tmp_path / "c.model"
    arrays = {"alpha": np.linspace(0, 1, 5), "rng": np.array([2**63 + 5], dtype=np.uint64),
              "counters": np.arange(4, dtype=np.int64)}
    save(SVC(C=2.0), path, metadata={"k": 1}, arrays=arrays)
    model, metadata, back = load(path, with_metadata=True, with_arrays=True)
    assert model.C == 2.0 and metadata == {"k": 1} and sorted(back) == sorted(arrays)
    for name, a in arrays.items():
        assert back[name].dtype == a.dtype and np.array_equal(back[name], a)
    assert load(path, with_arrays=True)[1].keys() == arrays.keys()
    save(SVC(), path)
    assert load(path, with_arrays=True)[1] == {}

    save(SVC(), path, arrays={"x": np.zeros(3)})
    _rewrite(path, lambda m: m["arrays"]["x"].update(dtype="<U3"))
    with pytest.raises(ModelFormatError, match="the metadata's arrays entry is malformed"):
        load(path)
    save(SVC(), path, arrays={"x": np.zeros(3)})
    _rewrite(path, lambda m: m["arrays"]["x"].update(shape=[4]))
    with pytest.raises(ModelFormatError, match=r"array 'a0' has dtype <f8 and shape \[3\], but"
                                               r" the metadata says <f8 and \[4\] \(arrays.x\)"):
        load(path)
    save(SVC(), path, arrays={"x": np.zeros(3)})
    _rewrite(path, lambda m: m["arrays"].update(y=dict(m["arrays"]["x"])))
    with pytest.raises(ModelFormatError, match="array 'a0' is used twice"):
        load(path)
    save(SVC(), path, arrays={"x": np.zeros(3)})
    _rewrite(path, lambda m: m.pop("arrays"))
    with pytest.raises(ModelFormatError, match="array 'a0' is not used by the metadata"):
        load(path)
