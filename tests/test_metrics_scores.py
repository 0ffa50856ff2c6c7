"""metrics.evaluate's scores against sklearn.metrics on the same predictions."""

import numpy as np
import pytest
from sklearn import metrics
from sklearn.preprocessing import label_binarize

from halfspaces import LogisticRegression, PegasosSVC
from halfspaces.metrics import brier_score, evaluate


def _data(n_classes, seed=0, n=90):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X @ [1.0, 0.5, -0.3] + 0.8 * rng.normal(size=n),
                    [-0.5, 0.5][: n_classes - 1] if n_classes == 3 else [0.6])
    labels = np.array(["ant", "bee", "cat"])[y]
    return X, labels, rng.uniform(0.0, 3.0, size=n)


def _expected(model, X, y, w, predicted):
    """Every score from sklearn.metrics, on the model's predictions and decision values."""
    classes = model.classes_
    scores, proba = model.decision_function(X), model.predict_proba(X)
    kw = {"sample_weight": w}
    out = {"balanced_accuracy": metrics.balanced_accuracy_score(y, predicted, **kw),
           "log_loss": metrics.log_loss(y, proba, labels=classes, **kw)}
    for average in ("macro", "weighted"):
        out[f"precision_{average}"] = metrics.precision_score(
            y, predicted, average=average, zero_division=0.0, **kw)
        out[f"recall_{average}"] = metrics.recall_score(y, predicted, average=average, **kw)
        out[f"f1_{average}"] = metrics.f1_score(y, predicted, average=average, **kw)
    if len(classes) == 2:
        pos = classes[1]
        out.update(precision=metrics.precision_score(y, predicted, pos_label=pos, **kw),
                   recall=metrics.recall_score(y, predicted, pos_label=pos, **kw),
                   f1=metrics.f1_score(y, predicted, pos_label=pos, **kw),
                   roc_auc=metrics.roc_auc_score(y == pos, scores, **kw),
                   average_precision=metrics.average_precision_score(y == pos, scores, **kw),
                   brier=metrics.brier_score_loss(y == pos, proba[:, 1], **kw))
    else:
        onehot = label_binarize(y, classes=classes)
        out.update(roc_auc=np.mean([metrics.roc_auc_score(onehot[:, k], scores[:, k], **kw)
                                    for k in range(len(classes))]),
                   average_precision=np.mean([metrics.average_precision_score(
                       onehot[:, k], scores[:, k], **kw) for k in range(len(classes))]),
                   brier=metrics.brier_score_loss(y, proba, labels=classes, **kw))
    return out


def _check(result, model, X, y, w, predicted):
    expected = _expected(model, X, y, w, predicted)
    assert {k: result[k] for k in expected} == pytest.approx(expected, rel=1e-12)
    matrix = metrics.confusion_matrix(y, predicted, labels=model.classes_, sample_weight=w)
    np.testing.assert_allclose(result["confusion_matrix"], matrix, rtol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_scores_equal_sklearn_metrics(n_classes, weighted):
    X, y, w = _data(n_classes)
    w = w if weighted else None
    model = LogisticRegression(C=0.5).fit(X, y)
    result = evaluate(model, X, y, w)
    _check(result, model, X, y, w, model.predict(X))
    p, r, f, support = metrics.precision_recall_fscore_support(y, model.predict(X),
                                                               sample_weight=w)
    assert [row["class"] for row in result["per_class"]] == list(model.classes_)
    for name, values in (("precision", p), ("recall", r), ("f1", f), ("support", support)):
        assert [row[name] for row in result["per_class"]] == pytest.approx(values, rel=1e-12)
    assert result["classes"] == list(model.classes_)


def test_threshold_moves_the_decision():
    X, y, _ = _data(2, seed=1)
    model = PegasosSVC(lam=0.01, random_state=0, probability=True).fit(X, y)
    threshold = 0.4
    predicted = np.where(model.decision_function(X) >= threshold, model.classes_[1],
                         model.classes_[0])
    result = evaluate(model, X, y, threshold=threshold)
    _check(result, model, X, y, None, predicted)
    assert result["accuracy"] == np.mean(predicted == y)
    assert result["threshold"] == threshold
    assert not np.array_equal(predicted, model.predict(X))  # the threshold changed some


def test_a_model_without_probabilities_has_no_log_loss():
    X, y, _ = _data(2, seed=2)
    result = evaluate(PegasosSVC(random_state=0).fit(X, y), X, y)
    assert "log_loss" not in result and "brier" not in result and "roc_auc" in result


def test_ranking_is_undefined_with_one_class_present():
    X, y, _ = _data(3, seed=3)
    model = LogisticRegression().fit(X, y)
    keep = y != "cat"
    result = evaluate(model, X[keep], y[keep])
    assert result["roc_auc"] is None and result["average_precision"] is None
    assert result["confusion_matrix"][2] == [0, 0, 0]


def test_threshold_with_more_classes_is_an_error():
    X, y, _ = _data(3, seed=4)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="'threshold' applies to two-class models; this one"
                                         " has 3 classes"):
        evaluate(model, X, y, threshold=0.0)


def test_brier_score_is_the_squared_distance_to_the_one_hot_labels():
    rng = np.random.default_rng(5)
    proba = rng.dirichlet(np.ones(4), size=30)
    y, w = rng.integers(0, 4, size=30), rng.uniform(size=30)
    reference = sum(w[i] * sum((proba[i, k] - (y[i] == k)) ** 2 for k in range(4))
                    for i in range(30)) / w.sum()
    assert brier_score(y, proba, w) == pytest.approx(reference)
