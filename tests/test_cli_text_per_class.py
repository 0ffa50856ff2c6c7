"""Raw text given as one file per class: ``halfspaces data --text-per-class`` writes the
``label<TAB>text`` file every command reads, and ``load_text_per_class`` reads the files in
Python; both against the files' lines read here by hand."""

from __future__ import annotations

import numpy as np
import pytest
from test_cli import _run

from halfspaces import Perceptron, load
from halfspaces.datasets import load_text_per_class, make_text_pipeline

POS = "a good movie\ngreat fun\tand more\n\nloved it\r\n"
NEG = "a bad movie\nawful\n"


def _files(tmp_path):
    (tmp_path / "pos.txt").write_text(POS)
    (tmp_path / "neg.txt").write_text(NEG)
    return tmp_path / "pos.txt", tmp_path / "neg.txt"


def _by_hand():
    """The texts and labels: each non-blank line of a file, its class the file's."""
    rows = [(label, line.rstrip("\r")) for label, text in (("pos", POS), ("neg", NEG))
            for line in text.split("\n") if line.strip()]
    return [t for _, t in rows], [label for label, _ in rows]


def test_load_text_per_class_reads_each_line_with_its_files_label(tmp_path):
    pos, neg = _files(tmp_path)
    texts, labels = load_text_per_class([pos, neg])
    assert (texts, labels.tolist()) == _by_hand()
    texts, labels = load_text_per_class({"good": pos, "bad": neg})
    assert labels.tolist() == ["good"] * 3 + ["bad"] * 2


def test_data_writes_the_tsv_that_train_reads(tmp_path, capsys):
    pos, neg = _files(tmp_path)
    out = tmp_path / "polarity.tsv"
    code, _, err = _run(capsys, "data", "--text-per-class", pos, neg, "-o", out)
    assert code == 0 and "5 texts; pos: 3, neg: 2" in err
    texts, labels = _by_hand()
    assert out.read_text() == "".join(f"{y}\t{t}\n" for t, y in zip(texts, labels,
                                                                     strict=True))
    code, _, err = _run(capsys, "train", out, "--algo", "perceptron", "--no-shuffle",
                        "--ngram", "2", "-o", tmp_path / "m", "-q")
    assert code == 0, err
    reference = make_text_pipeline(Perceptron(shuffle=False), ngram_range=(1, 2))
    reference.fit(texts, labels)
    np.testing.assert_array_equal(load(tmp_path / "m")[-1].coef_, reference[-1].coef_)


@pytest.mark.parametrize("argv, message", [
    (["pos.txt"], "give at least two files"),
    (["pos.txt", "pos.txt"], "would both be class 'pos'; give them as LABEL=FILE"),
    (["p=pos.txt", "neg.txt"], "name the label of every file"),
])
def test_bad_files_are_refused(tmp_path, capsys, monkeypatch, argv, message):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, "data", "--text-per-class", *argv, "-o", "out.tsv")
    assert code == 1 and message in err, err
    assert not (tmp_path / "out.tsv").exists()


def test_an_empty_class_file_is_refused(tmp_path):
    pos, _ = _files(tmp_path)
    (tmp_path / "empty.txt").write_text("\n \n")
    with pytest.raises(ValueError, match="empty.txt: no text in the file"):
        load_text_per_class([pos, tmp_path / "empty.txt"])
