"""``--ngram N`` and ``--char-ngram A,B``: the text vectorizer's n-grams, kept in the model.
Each model is compared with the one built in Python from scikit-learn's vectorizer and our
estimator, and saved and reloaded to the same predictions."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
from sklearn.pipeline import make_pipeline
from test_cli import _run

from halfspaces import Perceptron, load

# Word order decides the class: unigrams cannot tell the two apart, bigrams can.
ORDERED = [("pos", "good not bad"), ("neg", "bad not good"), ("pos", "really good not bad"),
           ("neg", "really bad not good"), ("pos", "good not bad at all"),
           ("neg", "bad not good at all")]


def _tsv(path, rows=ORDERED):
    path.write_text("".join(f"{label}\t{text}\n" for label, text in rows))
    return path


def test_word_bigrams_equal_sklearn_ngram_range_then_our_perceptron(tmp_path, capsys):
    data = _tsv(tmp_path / "t.tsv")
    texts, labels = [t for _, t in ORDERED], [label for label, _ in ORDERED]
    for ngram, separated in ((1, False), (2, True)):
        code, out, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                              "--ngram", ngram, "-o", tmp_path / "m", "--json")
        assert code == 0, err
        assert (json.loads(out)["train_accuracy"] == 1.0) is separated
        model = load(tmp_path / "m")
        reference = make_pipeline(
            HashingVectorizer(n_features=2**18, alternate_sign=False, ngram_range=(1, ngram)),
            Perceptron(shuffle=False)).fit(texts, labels)
        assert model[0].get_params() == reference[0].get_params()
        np.testing.assert_array_equal(model[-1].coef_.toarray() if hasattr(
            model[-1].coef_, "toarray") else model[-1].coef_, reference[-1].coef_)
        code, out, _ = _run(capsys, "predict", tmp_path / "m", data)
        assert out.split() == reference.predict(texts).tolist()


def test_char_ngrams_equal_sklearn_char_wb_with_tfidf(tmp_path, capsys):
    rows = [("spam", "WIN cash now"), ("ham", "lunch at noon?"), ("spam", "winner: cash prize"),
            ("ham", "see you at lunch"), ("spam", "claim your prize"), ("ham", "noon is fine")]
    data = _tsv(tmp_path / "t.tsv", rows)
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                        "--vectorizer", "tfidf", "--char-ngram", "2,4", "-o", tmp_path / "m",
                        "-q")
    assert code == 0, err
    texts, labels = [t for _, t in rows], [label for label, _ in rows]
    reference = make_pipeline(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)),
                              Perceptron(shuffle=False)).fit(texts, labels)
    model = load(tmp_path / "m")
    assert model[0].vocabulary_ == reference[0].vocabulary_
    assert " wi" in model[0].vocabulary_  # a word's first characters, padded with a space
    np.testing.assert_array_equal(model[0].idf_, reference[0].idf_)
    np.testing.assert_array_equal(model[-1].coef_, reference[-1].coef_)
    new = ["cash prize now", "lunch at noon"]
    (tmp_path / "new.tsv").write_text("\n".join(new) + "\n")  # one text a line, no label
    code, out, _ = _run(capsys, "predict", tmp_path / "m", tmp_path / "new.tsv")
    assert out.split() == reference.predict(new).tolist()


@pytest.mark.parametrize("argv, message", [
    (["--ngram", "0"], "expected N from 1 to 10"),
    (["--char-ngram", "4,2"], "expected A,B with 1 <= A <= B <= 10"),
    (["--char-ngram", "a"], "expected A,B"),
])
def test_bad_ngram_values_are_refused(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        _run(capsys, "train", _tsv(tmp_path / "t.tsv"), "--algo", "perceptron", *argv,
             "-o", tmp_path / "m")
    assert message in capsys.readouterr().err


def test_word_and_char_ngrams_together_are_refused(tmp_path, capsys):
    code, _, err = _run(capsys, "train", _tsv(tmp_path / "t.tsv"), "--algo", "perceptron",
                        "--ngram", "2", "--char-ngram", "2,3", "-o", tmp_path / "m")
    assert code == 1 and "pass one of them" in err


def test_ngram_needs_raw_text(tmp_path, capsys):
    path = tmp_path / "d.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--ngram", "2",
                        "-o", tmp_path / "m")
    assert code == 1 and "--ngram applies to raw text" in err and "svmlight" in err
    assert not (tmp_path / "m").exists()
