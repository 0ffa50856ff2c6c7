"""metrics.evaluate against the formulas written here in NumPy."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.pipeline import make_pipeline

from halfspaces import KernelPerceptron, LogisticRegression, PegasosSVC
from halfspaces.metrics import evaluate


def _noisy(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ np.arange(1, d + 1) + 0.3 * rng.normal(size=n) > 0, "pos", "neg")
    return X, y


def _reference(scores, y_pm):
    """The quantities of evaluate(), from their definitions."""
    z = y_pm * scores
    return {"zero_one": np.mean(z <= 0), "hinge": np.mean(np.maximum(0, 1 - z)),
            "logistic": np.mean(np.log1p(np.exp(-z))), "min_functional_margin": z.min(),
            "mean_functional_margin": z.mean()}


def test_two_classes_match_the_formulas():
    X, y = _noisy()
    model = PegasosSVC(lam=0.01, max_iter=5, random_state=0).fit(X, y)
    result = evaluate(model, X, y)
    scores, y_pm = model.decision_function(X), np.where(y == "pos", 1.0, -1.0)
    expected = _reference(scores, y_pm)
    expected.update(n_samples=60, accuracy=np.mean(model.predict(X) == y),
                    geometric_margin=(y_pm * scores).min() / np.linalg.norm(model.coef_))
    assert {k: result[k] for k in expected} == pytest.approx(expected)


def test_kernel_model_has_no_geometric_margin():
    X, y = _noisy(seed=1)
    model = KernelPerceptron(kernel="rbf").fit(X, y)
    result = evaluate(model, X, y)
    expected = _reference(model.decision_function(X), np.where(y == "pos", 1.0, -1.0))
    expected.update(n_samples=60, accuracy=np.mean(model.predict(X) == y))
    assert {k: result[k] for k in expected} == pytest.approx(expected)
    assert "geometric_margin" not in result  # none for a kernel expansion


def test_text_pipeline_is_scored_on_its_features():
    texts = ["win cash now", "lunch at noon", "cash prize", "see you at noon"] * 5
    labels = np.array(["spam", "ham", "spam", "ham"] * 5)
    model = make_pipeline(HashingVectorizer(n_features=2**10), PegasosSVC(random_state=0))
    model.fit(texts, labels)
    result = evaluate(model, texts, labels)
    features = HashingVectorizer(n_features=2**10).transform(texts)
    z = np.where(labels == "spam", 1.0, -1.0) * model[-1].decision_function(features)
    assert result["accuracy"] == pytest.approx(np.mean(model.predict(texts) == labels))
    assert result["min_functional_margin"] == pytest.approx(z.min())


def test_more_classes_report_accuracy_and_a_note():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = np.digitize(X[:, 0], [-0.4, 0.4])
    model = LogisticRegression(C=100).fit(X, y)
    result = evaluate(model, X, y)
    assert result["accuracy"] == pytest.approx(np.mean(model.predict(X) == y))
    assert "one-vs-rest" in result["note"] and "hinge" not in result


def test_labels_the_model_never_saw_are_an_error():
    X, y = _noisy(seed=3)
    model = PegasosSVC(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"evaluate: labels \['maybe'\] are not among the"
                                         r" model's classes \['neg', 'pos'\]"):
        evaluate(model, X[:3], np.array(["pos", "maybe", "neg"]))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_blocks_give_the_numbers_of_the_whole_set(n_classes):
    """evaluate_blocks over uneven blocks equals evaluate on the stacked rows, exactly, and
    model.score for the accuracy."""
    from halfspaces.metrics import evaluate_blocks

    X, y = _noisy(n=97, seed=4)
    if n_classes == 3:
        y = np.where(X[:, 0] > 0.5, "other", y)
    model = LogisticRegression().fit(X, y)
    cuts = [0, 1, 13, 50, 51, 97]
    blocks = [(X[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    whole = evaluate(model, X, y)
    assert evaluate_blocks(model, blocks) == whole
    assert whole["accuracy"] == model.score(X, y)
    assert ("note" in whole) == (n_classes == 3)
