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


# Every way train streams a svmlight file: the one read of the perceptrons (no --n-features),
# the survey and its passes (checkpoints, Pegasos), the cache.
STREAMED = [["--algo", "perceptron", "--no-shuffle"],
            ["--algo", "averaged", "--no-shuffle", "--cache"],
            ["--algo", "voted", "--no-shuffle", "--checkpoint-every", "1"],
            ["--algo", "pegasos", "--set", "sampling=cyclic"]]


@pytest.mark.parametrize("options", STREAMED, ids=lambda o: " ".join(o[1:]))
def test_streamed_training_asks_as_in_memory_does(tmp_path, capsys, monkeypatch, options):
    monkeypatch.setattr(_records, "WIDE_FEATURES", 2**12)
    data = tmp_path / "wide.svm"
    data.write_text("1 1:1 3:0.5\n-1 2:1\n# a comment\n1 3:1 10000:1\n-1 2:2\n")
    model = tmp_path / "m"
    assert cli.main(["train", str(data), "--algo", "perceptron", "-o", str(model)]) == 1
    in_memory = capsys.readouterr().err
    assert "index 10000 on line 4 is far beyond the others" in in_memory
    assert cli.main(["train", str(data), *options, "-o", str(model)]) == 1
    assert capsys.readouterr().err == in_memory  # the same question, the same advice
    assert not model.exists() and not (tmp_path / "m.checkpoint").exists()
    assert cli.main(["train", str(data), *options, "--n-features", "10000", "-o", str(model),
                     "-q"]) == 0
    assert load(model).n_features_in_ == 10000


@pytest.mark.parametrize("options", [[], *STREAMED], ids=lambda o: " ".join(o[1:]) or "memory")
def test_a_lone_index_near_int32_max_is_refused_before_any_weight(tmp_path, capsys, options):
    data = tmp_path / "lone.svm"
    data.write_text("1 2147483647:1\n-1 2:1\n")
    model = tmp_path / "m"
    code = cli.main(["train", str(data), *(options or ["--algo", "perceptron"]), "-o",
                     str(model)])
    err = capsys.readouterr().err
    assert code == 1 and not model.exists()
    # where a 16 GiB vector cannot even be reserved, the reader refuses the index first
    assert ("index 2147483647 on line 1 is far beyond the others (the next largest is 2;"
            " 2 distinct features in all)" in err and "--n-features 2147483647" in err) \
        or "the index in '2147483647:1' makes 2147483647 features" in err


def test_a_streamed_file_that_uses_its_width_trains_as_fit(tmp_path, monkeypatch):
    from halfspaces.datasets import load_svmlight

    monkeypatch.setattr(_records, "WIDE_FEATURES", 2**12)
    data = tmp_path / "used.svm"
    rows = [f"{(-1) ** i} {i + 1}:1 {5000 + i}:0.5" for i in range(8)]
    data.write_text("\n".join(rows) + "\n")
    X, y = load_svmlight(data)
    for options in STREAMED[:3]:
        model = tmp_path / f"m{len(options)}"
        assert cli.main(["train", str(data), *options, "-o", str(model), "-q"]) == 0
        trained = load(model)
        reference = type(trained)(shuffle=False).fit(X, y)
        assert trained.n_features_in_ == 5007
        assert np.array_equal(trained.decision_function(X), reference.decision_function(X))


def test_save_and_load_ask_one_guard(tmp_path, monkeypatch):
    model, path = _fitted(), tmp_path / "m.npz"
    save(model, path)
    asked = []

    def refuse(total, max_bytes):
        asked.append(total)
        return "refused."

    monkeypatch.setattr(persistence, "_too_large", refuse)
    with pytest.raises(ValueError, match="cannot save the model: refused"):
        save(model, tmp_path / "again.npz")
    with pytest.raises(ModelFormatError, match="refused"):
        load(path)
    assert len(asked) == 2 and not (tmp_path / "again.npz").exists()
