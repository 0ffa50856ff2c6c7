"""Raw text files: a ``label<TAB>text`` header row is detected (with a warning) or named by
--header / --no-header, and unlabelled texts keep every word, tabs included. References:
the model's own ``predict`` (Python API) on the texts written here."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_cli

from halfspaces import load
from halfspaces.datasets import load_text_tsv

EXAMPLES = [("ham", "see you at noon"), ("spam", "win cash now"), ("ham", "lunch at noon"),
            ("spam", "cash prize win"), ("ham", "noon lunch ok"), ("spam", "win win cash")]


def _tsv(path, header: bool = True):
    lines = ["label\ttext"] * header + [f"{label}\t{text}" for label, text in EXAMPLES]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_header_row_is_not_a_class(tmp_path):
    with pytest.warns(UserWarning, match=r"t\.tsv:1: 'label'<TAB>'text' read as a header"
                                         r" row, not an example"):
        texts, labels = load_text_tsv(_tsv(tmp_path / "t.tsv"))
    assert (texts, labels.tolist()) == ([t for _, t in EXAMPLES], [y for y, _ in EXAMPLES])
    texts, labels = load_text_tsv(tmp_path / "t.tsv", header=False)
    assert labels[0] == "label" and len(texts) == 7
    texts, labels = load_text_tsv(_tsv(tmp_path / "n.tsv", header=False), header=True)
    assert len(texts) == 5  # the first example is taken as a header, as asked


def test_a_file_without_header_is_read_whole(tmp_path, recwarn):
    texts, labels = load_text_tsv(_tsv(tmp_path / "n.tsv", header=False))
    assert labels.tolist() == [y for y, _ in EXAMPLES]
    assert not [w for w in recwarn if "header" in str(w.message)]


def test_train_on_a_file_with_a_header(tmp_path, capsys):
    code, _, err = run_cli(capsys, "train", _tsv(tmp_path / "t.tsv"), "--algo", "perceptron",
                        "-o", tmp_path / "m.npz", "--json")
    assert code == 0
    assert "warning: " in err and "pass --no-header to read it as an example" in err
    assert sorted(load(tmp_path / "m.npz").classes_) == ["ham", "spam"]
    assert run_cli(capsys, "train", tmp_path / "t.tsv", "--algo", "perceptron", "--no-header",
                "-o", tmp_path / "m3.npz", "-q")[0] == 0
    assert sorted(load(tmp_path / "m3.npz").classes_) == ["ham", "label", "spam"]


@pytest.fixture
def model(tmp_path, capsys):
    assert run_cli(capsys, "train", _tsv(tmp_path / "t.tsv", header=False), "--algo",
                "perceptron", "-o", tmp_path / "m.npz", "-q")[0] == 0
    return tmp_path / "m.npz"


def test_unlabelled_texts_with_tabs_keep_every_word(tmp_path, capsys, model):
    texts = ["win cash prize\tnoon", "lunch at noon ok\twin", "cash\tprize\twin"]
    path = tmp_path / "u.tsv"
    path.write_text("\n".join(texts) + "\n")
    code, out, err = run_cli(capsys, "predict", model, path, "--format", "tsv")
    assert code == 0, err
    expected = load(model).predict(texts).tolist()
    assert out.split() == expected
    # the words before the first tab decide: without them the labels differ
    assert load(model).predict([t.partition("\t")[2] for t in texts]).tolist() != expected


def test_labelled_texts_with_a_header_predict_every_example(tmp_path, capsys, model):
    path = _tsv(tmp_path / "h.tsv")
    code, out, _ = run_cli(capsys, "predict", model, path)
    assert code == 0
    expected = load(model).predict([t for _, t in EXAMPLES]).tolist()
    assert out.split() == expected
    code, out, _ = run_cli(capsys, "evaluate", model, path, "--json")
    assert code == 0
    truth = np.array([y for y, _ in EXAMPLES])
    assert f'"accuracy": {np.mean(truth == np.array(expected))}' in out


def test_a_text_model_reads_a_txt_file_as_text(tmp_path, capsys, model):
    texts = ["win cash prize", "lunch at noon ok"]
    path = tmp_path / "u.txt"  # an extension that names no format: the model's, tsv
    path.write_text("\n".join(texts) + "\n")
    code, out, err = run_cli(capsys, "predict", model, path)
    assert code == 0, err
    assert out.split() == load(model).predict(texts).tolist()
