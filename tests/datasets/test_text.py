"""Raw text: the TSV reader against the csv module, and text pipelines on SMS spam."""

from __future__ import annotations

import csv
import gzip
import io
import os
from pathlib import Path

import numpy as np
import pytest
from helpers import load_error
from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer

import halfspaces
from halfspaces.datasets import DataFormatError, load_text_tsv, make_text_pipeline

SHARED = Path(os.environ.get("HALFSPACES_DATA", "/work/shared/data")) / "sms_spam"
BUNDLED = Path(__file__).resolve().parents[2] / "src" / "halfspaces" / "datasets" / "data"


def _sms_path() -> Path:
    for p in (BUNDLED / "SMSSpamCollection.gz", SHARED / "SMSSpamCollection"):
        if p.exists():
            return p
    raise AssertionError("the SMS Spam Collection is neither bundled nor in the shared data")


def _reference(path: Path):
    """The same file read by the csv module (tab-delimited, no quoting)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        text = f.read().decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
    rows = [r for r in rows if r]
    return ["\t".join(r[1:]) for r in rows], [r[0] for r in rows]


def test_sms_spam_matches_the_csv_module():
    path = _sms_path()
    texts, labels = load_text_tsv(path)
    ref_texts, ref_labels = _reference(path)
    assert texts == ref_texts
    assert labels.tolist() == ref_labels
    assert len(texts) == 5574 and int((labels == "spam").sum()) == 747


def test_sms_spam_pipeline_learns_and_streams():
    texts, labels = load_text_tsv(_sms_path())
    train, test = slice(0, 4000), slice(4000, None)
    model = make_text_pipeline(halfspaces.Perceptron(max_iter=20, shuffle=False))
    model.fit(texts[train], labels[train])
    accuracy = model.score(texts[test], labels[test])
    majority = float(np.mean(labels[test] == "ham"))
    assert accuracy > majority + 0.05
    # the same learner by hand: same vectors, same predictions
    vec = HashingVectorizer(n_features=2**18, alternate_sign=False)
    by_hand = halfspaces.Perceptron(max_iter=20, shuffle=False).fit(vec.transform(texts[train]),
                                                                    labels[train])
    assert model.predict(texts[test]).tolist() == \
        by_hand.predict(vec.transform(texts[test])).tolist()
    # stateless featurizer: partial_fit in batches = one online pass over everything
    clf_a, clf_b = halfspaces.Perceptron(), halfspaces.Perceptron()
    classes = np.array(["ham", "spam"])
    for start in range(0, 4000, 1000):
        batch = slice(start, start + 1000)
        clf_a.partial_fit(vec.transform(texts[batch]), labels[batch], classes=classes)
    clf_b.partial_fit(vec.transform(texts[train]), labels[train], classes=classes)
    np.testing.assert_array_equal(clf_a.coef_, clf_b.coef_)
    assert clf_a.n_mistakes_ == clf_b.n_mistakes_ > 0


def test_tfidf_pipeline():
    texts, labels = load_text_tsv(_sms_path())
    model = make_text_pipeline(halfspaces.Perceptron(), vectorizer="tfidf", min_df=2)
    model.fit(texts[:3000], labels[:3000])
    vec = TfidfVectorizer(min_df=2).fit(texts[:3000])
    assert model.named_steps["vectorizer"].vocabulary_ == vec.vocabulary_
    assert model.score(texts[3000:], labels[3000:]) > 0.9
    with pytest.raises(ValueError, match="'vectorizer' must be one of 'hashing', 'tfidf'"):
        make_text_pipeline(halfspaces.Perceptron(), vectorizer="bow")


@pytest.mark.parametrize("content, line, pattern", [
    (b"ham\thello\nspam no tab here\n", 2, r"bad\.tsv:2: expected 'label<TAB>text', found no"
     r" tab in 'spam no tab here'"),
    (b"ham\thello\n\n\tmissing label\n", 3, r"bad\.tsv:3: empty label"),
    (b"ham\thello\nspam\t\xff\xfe\n", 2, r"bad\.tsv:2: bytes that are not utf-8"),
    # numpy's str dtype would drop the trailing NUL and return the label 'spam'
    (b"ham\thello\nspam\x00\tfree\n", 2, r"bad\.tsv:2: a NUL character in the label"
     r" 'spam\\x00' \(column 5\)"),
])
def test_malformed_tsv(tmp_path, content, line, pattern):
    assert load_error(load_text_tsv, tmp_path / "bad.tsv", content, pattern).line == line


def test_crlf_blank_lines_and_compression(tmp_path):
    path = tmp_path / "x.tsv.bz2"
    import bz2

    path.write_bytes(bz2.compress(b"ham\tfirst\r\n\r\nspam\tsecond\tpart\r\n"))
    texts, labels = load_text_tsv(path)
    assert texts == ["first", "second\tpart"] and labels.tolist() == ["ham", "spam"]


def test_a_byte_order_mark_is_not_part_of_the_first_label(tmp_path):
    path = tmp_path / "bom.tsv"
    path.write_bytes(b"\xef\xbb\xbfham\thello\nspam\tWIN\nham\tbye\n")
    texts, labels = load_text_tsv(path)
    assert labels.tolist() == ["ham", "spam", "ham"] and texts == ["hello", "WIN", "bye"]


@pytest.mark.parametrize("content", [b"", b"\n\r\n  \n", b"\xef\xbb\xbf"])
def test_a_file_without_examples_is_an_error(tmp_path, content):
    path = tmp_path / "empty.tsv"
    path.write_bytes(content)
    with pytest.raises(DataFormatError, match=r"empty\.tsv: no examples in the file"):
        load_text_tsv(path)
