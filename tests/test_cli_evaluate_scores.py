"""``halfspaces evaluate``'s scores and --threshold against sklearn.metrics."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn import metrics

from halfspaces import cli, load


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _noisy(n, seed, n_classes=2):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 3)
    t = X @ [1.0, -0.7, 0.4] + 0.7 * rng.normal(size=n)
    y = np.digitize(t, [-0.5, 0.5]) if n_classes == 3 else np.where(t > 0.8, 1, -1)
    return X, y, np.round(rng.uniform(0.1, 2.0, size=n), 2)


def _write(path, X, y, w=None):
    """svmlight, or CSV (label, weight, features) when ``w`` is given."""
    with open(path, "w") as f:
        for i, (x, label) in enumerate(zip(X, y, strict=True)):
            if w is None:
                f.write(f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(x))
                        + "\n")
            else:
                fields = [str(label), repr(float(w[i])), *(repr(float(v)) for v in x)]
                f.write(",".join(fields) + "\n")
    return str(path)


@pytest.mark.parametrize("weighted", [False, True])
def test_scores_and_threshold_equal_sklearn(tmp_path, capsys, weighted):
    X, y, w = _noisy(120, seed=0)
    data = _write(tmp_path / ("d.csv" if weighted else "d.svm"), X, y, w if weighted else None)
    columns = ["--weight-column", "1"] if weighted else []
    model = tmp_path / "m.hs"
    code, _, err = _run(capsys, "train", data, "--algo", "logistic", *columns, "-o", model)
    assert code == 0, err
    code, out, err = _run(capsys, "evaluate", model, data, *columns, "--threshold", "0.3",
                          "--json")
    assert code == 0, err
    result, est = json.loads(out), load(model)
    scores = est.decision_function(X)
    predicted = np.where(scores >= 0.3, 1, -1)
    kw = {"sample_weight": w if weighted else None}
    assert result["threshold"] == 0.3
    assert result["balanced_accuracy"] == pytest.approx(
        metrics.balanced_accuracy_score(y, predicted, **kw))
    assert result["f1"] == pytest.approx(metrics.f1_score(y, predicted, **kw))
    assert result["recall_macro"] == pytest.approx(
        metrics.recall_score(y, predicted, average="macro", **kw))
    assert result["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, scores, **kw))
    assert result["log_loss"] == pytest.approx(metrics.log_loss(y, est.predict_proba(X), **kw))
    np.testing.assert_allclose(result["confusion_matrix"],
                               metrics.confusion_matrix(y, predicted, **kw))


def test_the_table_shows_classes_and_the_confusion_matrix(tmp_path, capsys):
    X, y, _ = _noisy(80, seed=1, n_classes=3)
    data = _write(tmp_path / "three.svm", X, y)
    model = tmp_path / "m.hs"
    assert _run(capsys, "train", data, "--algo", "svm", "-o", model)[0] == 0
    code, out, err = _run(capsys, "evaluate", model, data)
    assert code == 0, err
    predicted = load(model).predict(X)
    matrix = metrics.confusion_matrix(y, predicted)
    lines = out.splitlines()
    at = lines.index("confusion matrix (rows: true class, columns: predicted)")
    assert [[int(v) for v in line.split()[1:]] for line in lines[at + 2:at + 5]] == \
        matrix.tolist()
    macro = next(line for line in lines if line.startswith("macro avg")).split()
    assert float(macro[2]) == pytest.approx(
        metrics.precision_score(y, predicted, average="macro", zero_division=0.0), abs=5e-5)


def test_a_threshold_for_more_classes_is_an_error(tmp_path, capsys):
    X, y, _ = _noisy(60, seed=2, n_classes=3)
    data = _write(tmp_path / "three.svm", X, y)
    model = tmp_path / "m.hs"
    assert _run(capsys, "train", data, "--algo", "logistic", "-o", model)[0] == 0
    code, _, err = _run(capsys, "evaluate", model, data, "--threshold", "0")
    assert code == 1
    assert "'threshold' applies to two-class models; this one has 3 classes" in err
