"""Vowpal Wabbit's ``--quadratic`` (``-q``) interactions and ``--hash-bits`` (``-b``): the
reader against a short NumPy reference written from VW's definition, the command line's
model against our estimator on the reference's features, and the hash collisions that
``train`` reports against a count of the distinct features."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.utils import murmurhash3_32
from test_cli import _run

from halfspaces import Perceptron, load
from halfspaces.datasets import iter_blocks
from halfspaces.datasets.vw import hash_collisions, load_vw

FNV_PRIME = 16777619
LINES = ["1 |a x:2 y |b z:3 |c u", "-1 |a x |bc w:0.5 z", "1 |b z:-1 | q:4 |a y x",
         "-1 |c u:2 u |a y:0.25", "1 |a x:1.5 x |b w", "-1 | q |b z:2 w"]


def _features(line):
    """``[(namespace letter, 32-bit hash, value)]`` of a line, in its order."""
    out = []
    for segment in line.split("|")[1:]:
        tokens = segment.split()
        name = "" if segment[:1].isspace() else tokens.pop(0)
        for token in tokens:
            feature, _, value = token.partition(":")
            h = murmurhash3_32(f"{name}^{feature}", seed=0, positive=True)
            out.append((name[:1] or " ", h, float(value) if value else 1.0))
    return out


def _reference(lines, specs, n_features):
    """The rows of VW's definition: a line's own features, then for each pair of its
    namespaces x <= y named by a spec (':' any), the products with index
    ((FNV * h_i) ^ h_j) mod 2**64, j at or after i when x == y; then index mod n."""
    X, keys = np.zeros((len(lines), n_features)), set()
    for r, line in enumerate(lines):
        feats = _features(line)
        entries = [(h, v) for _, h, v in feats]
        present = sorted({ns for ns, _, _ in feats})
        pairs = {tuple(sorted((x, y))) for a, b in specs for x in present for y in present
                 if a in (":", x) and b in (":", y)}
        for x, y in sorted(pairs):
            for i, (nx, hi, vi) in enumerate(feats):
                for j, (ny, hj, vj) in enumerate(feats):
                    if nx == x and ny == y and (x != y or j >= i):
                        entries.append((((FNV_PRIME * hi) % 2**64) ^ hj, vi * vj))
        for key, value in entries:
            X[r, key % n_features] += value
            keys.add(key)
    return X, keys


@pytest.mark.parametrize("specs", [["ab"], ["ba"], ["ab", "ba"], ["aa"], ["::"], ["a:"],
                                   [" b"], ["cc", "ab"]])
def test_interactions_equal_vw_definition(tmp_path, specs):
    path = tmp_path / "d.vw"
    path.write_text("\n".join(LINES) + "\n")
    X, y = load_vw(path, n_features=2**12, interactions=specs)
    X_ref, _ = _reference(LINES, specs, 2**12)
    np.testing.assert_array_equal(X.toarray(), X_ref)
    blocks = list(iter_blocks(path, "vw", n_features=2**12, interactions=specs,
                              block_bytes=40))
    assert len(blocks) > 1
    np.testing.assert_array_equal(np.vstack([b[0].toarray() for b in blocks]), X_ref)


def test_non_ascii_lines_pair_as_the_compiled_ones(tmp_path):
    """A line with non-ASCII bytes is parsed by Python: its namespaces pair the same."""
    lines = ["1 |a é:2 y |b z:3", "-1 |a x |b ü"]
    path = tmp_path / "d.vw"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    X, _ = load_vw(path, n_features=2**12, interactions=["ab"])
    np.testing.assert_array_equal(X.toarray(), _reference(lines, ["ab"], 2**12)[0])


def test_collisions_count_the_distinct_features_sharing_a_bucket(tmp_path):
    path = tmp_path / "d.vw"
    path.write_text("\n".join(LINES) + "\n")
    for n_features, specs in ((2**3, ["::"]), (2**18, None), (5, ["ab"])):
        _, keys = _reference(LINES, specs or [], n_features)
        buckets = [k % n_features for k in keys]
        collided = sum(buckets.count(b) for b in set(buckets) if buckets.count(b) > 1)
        got = hash_collisions(path, n_features, interactions=specs)
        assert (got["distinct_features"], got["buckets_used"], got["collided"]) == \
            (len(keys), len(set(buckets)), collided)


@pytest.mark.parametrize("streamed", [True, False])
def test_train_quadratic_equals_our_perceptron_on_the_reference(tmp_path, capsys, streamed):
    train, test = tmp_path / "train.vw", tmp_path / "test.vw"
    train.write_text("\n".join(LINES) + "\n")
    test.write_text("\n".join(LINES[::-1]) + "\n")
    y = np.array([float(line.split()[0]) for line in LINES])
    shuffle = ["--no-shuffle"] if streamed else ["--shuffle", "--random-state", "0"]
    code, out, err = _run(capsys, "train", train, "--algo", "perceptron", *shuffle,
                          "--quadratic", "ab", "--quadratic", "cc", "--hash-bits", "10",
                          "-o", tmp_path / "m", "--json")
    assert code == 0, err
    report = json.loads(out)
    X_ref, keys = _reference(LINES, ["ab", "cc"], 2**10)
    reference = Perceptron(shuffle=not streamed, random_state=0).fit(X_ref, y)
    model = load(tmp_path / "m")
    np.testing.assert_array_equal(model.coef_, reference.coef_)
    assert report["hash_collisions"]["distinct_features"] == len(keys)
    assert report["hash_collisions"]["buckets"] == 2**10
    code, out, _ = _run(capsys, "predict", tmp_path / "m", test)
    assert [float(v) for v in out.split()] == reference.predict(X_ref[::-1]).tolist()
    code, out, _ = _run(capsys, "evaluate", tmp_path / "m", test, "--json")
    assert json.loads(out)["accuracy"] == reference.score(X_ref[::-1], y[::-1])


def test_train_reports_the_collisions(tmp_path, capsys):
    path = tmp_path / "d.vw"
    path.write_text("\n".join(LINES) + "\n")
    code, out, _ = _run(capsys, "train", path, "--algo", "perceptron", "--hash-bits", "2",
                        "-o", tmp_path / "m")
    assert code == 0
    keys = _reference(LINES, [], 4)[1]
    assert f"of {len(keys)} distinct features" in out and "of 4 buckets" in out


@pytest.mark.parametrize("data, argv, message", [
    ("d.svm", ["--quadratic", "ab"], "--quadratic pairs the namespaces of Vowpal Wabbit"),
    ("d.vw", ["--hash-bits", "8", "--n-features", "256"], "pass one of them"),
    ("d.svm", ["--hash-bits", "8"], "--hash-bits sets the buckets"),
    ("d.vw", ["--quadratic", "ab", "--cache", "--no-shuffle"], "drop --cache"),
])
def test_bad_combinations_are_refused(tmp_path, capsys, data, argv, message):
    path = tmp_path / data
    path.write_text("1 |a x |b y\n" if data.endswith(".vw") else "1 1:1\n-1 2:1\n")
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", *argv,
                        "-o", tmp_path / "m")
    assert code == 1 and message in err, err


@pytest.mark.parametrize("argv, message", [(["--quadratic", "abc"], "expected two characters"),
                                           (["--hash-bits", "33"], "expected B from 1 to 32")])
def test_bad_values_are_refused(tmp_path, capsys, argv, message):
    path = tmp_path / "d.vw"
    path.write_text("1 |a x |b y\n")
    with pytest.raises(SystemExit):
        _run(capsys, "train", path, "--algo", "perceptron", *argv, "-o", tmp_path / "m")
    assert message in capsys.readouterr().err


def test_interactions_need_hashing(tmp_path):
    path = tmp_path / "d.vw"
    path.write_text("1 |a 1 |b 2\n")
    with pytest.raises(ValueError, match="pass hash_features=True"):
        load_vw(path, hash_features=False, interactions=["ab"])
    with pytest.raises(ValueError, match="two-character strings"):
        load_vw(path, interactions=["abc"])
