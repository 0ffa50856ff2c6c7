"""``save`` never writes a model that ``load`` refuses for its size (one limit, MAX_BYTES,
asked by both), and ``train`` asks before making a weight vector far wider than the features
a svmlight file uses (one lone index far beyond the rest)."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from halfspaces import Perceptron, cli, load, persistence
from halfspaces.cli import _records
from halfspaces.persistence import ModelFormatError, save


def _fitted(n_features: int = 300) -> Perceptron:
    X = np.zeros((4, n_features))
    X[:, 0] = [1.0, 2.0, -1.0, -2.0]
    return Perceptron().fit(X, [1, 1, -1, -1])


def test_save_keeps_to_the_limit_load_checks(tmp_path, monkeypatch):
    model, path = _fitted(), tmp_path / "m.npz"
    save(model, path)
    with zipfile.ZipFile(path) as zf:  # what load measures: the entries, decompressed
        size = sum(info.file_size for info in zf.infolist())
    for limit in (size - 1, size, size + 1):
        monkeypatch.setattr(persistence, "MAX_BYTES", limit)
        target = tmp_path / f"{limit}.npz"
        if limit < size:
            with pytest.raises(ValueError, match=rf"save\(Perceptron\): cannot save the"
                               rf" model: its arrays take {size:,} bytes once decompressed,"
                               rf" more than max_bytes={limit:,} \(load's limit"):
                save(model, target)
            assert not target.exists()
            with pytest.raises(ModelFormatError, match=f"{size:,} bytes once decompressed"):
                load(path)
        else:
            save(model, target)
            assert np.array_equal(load(target).coef_, model.coef_)


def test_train_asks_before_a_lone_index_far_beyond_the_rest(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_records, "WIDE_FEATURES", 2**12)  # the rule, at a size a test can make
    data = tmp_path / "wide.svm"
    data.write_text("1 1:1 3:0.5\n-1 2:1\n# a comment\n1 3:1 100000:1\n-1 2:2\n")
    code = cli.main(["train", str(data), "--algo", "perceptron", "-o", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 1
    assert "wide.svm: index 100000 on line 4 is far beyond the others (the next largest is 3;" \
        " 4 distinct features in all)" in err
    assert "pass --n-features 100000 to train on it anyway" in err
    assert not (tmp_path / "m").exists()
    # the user's answer: the weight vector as wide as asked
    assert cli.main(["train", str(data), "--algo", "perceptron", "--n-features", "100000",
                     "-o", str(tmp_path / "m"), "-q"]) == 0
    assert load(tmp_path / "m").coef_.shape == (1, 100000)


def test_files_that_use_their_width_are_not_asked_about(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_records, "WIDE_FEATURES", 2**12)
    data = tmp_path / "used.svm"
    rows = [f"{(-1) ** i} {i + 1}:1 {5000 + i}:0.5" for i in range(8)]
    data.write_text("\n".join(rows) + "\n")  # 16 features used of 5,007: 1 in 313
    assert cli.main(["train", str(data), "--algo", "perceptron", "-o",
                     str(tmp_path / "m"), "-q"]) == 0
