"""class_weight in the kernel learners: a class's weight is a sample weight on its rows.

Oracles: the same learner given the product as ``sample_weight`` (``class_weight={c: k}`` is
the weight ``k`` on the rows of class ``c``, bit for bit), scikit-learn's
``compute_class_weight`` for ``"balanced"``, and scikit-learn's refusal of ``"balanced"`` in
``partial_fit`` (SGDClassifier's).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same_fit
from helpers import fit_quietly as _fit
from sklearn.utils.class_weight import compute_class_weight

from halfspaces import KernelPegasosSVC, KernelPerceptron, load
from halfspaces.online import play

LEARNERS = {
    "KernelPerceptron": lambda **kw: KernelPerceptron(max_iter=3, random_state=0, **kw),
    "KernelPegasosSVC": lambda **kw: KernelPegasosSVC(lam=0.05, max_iter=3, random_state=0,
                                                      **kw),
}


def _data(n=36, d=3, n_classes=3, seed=0):
    """Overlapping classes of unequal sizes, and weights with a zero and fractions."""
    rng = np.random.default_rng(seed)
    y = rng.choice(n_classes, size=n, p=np.arange(1, n_classes + 1) / n_classes
                   / (n_classes + 1) * 2)
    X = rng.normal(size=(n, d))
    X[np.arange(n), y % d] += 1.5
    return X, y, rng.choice([0.0, 0.5, 1.0, 2.5], size=n)




@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", LEARNERS)
def test_a_class_weight_is_that_sample_weight_on_the_classs_rows(name, sparse, n_classes):
    X, y, s = _data(n_classes=n_classes)
    X = sp.csr_matrix(X) if sparse else X
    k = {0: 3.0, 1: 0.5}
    on_rows = np.array([k.get(c, 1.0) for c in y])
    for given in (None, s):  # alone, and times a sample_weight
        weighted = _fit(LEARNERS[name](class_weight=k), X, y, sample_weight=given)
        product = on_rows if given is None else given * on_rows
        assert_same_fit(weighted, _fit(LEARNERS[name](), X, y, sample_weight=product))


@pytest.mark.parametrize("name", LEARNERS)
def test_balanced_is_scikit_learns_compute_class_weight(name):
    X, y, _ = _data()
    classes = np.unique(y)
    per_class = compute_class_weight("balanced", classes=classes, y=y)
    assert np.ptp(per_class) > 0  # the classes are of unequal sizes
    balanced = _fit(LEARNERS[name](class_weight="balanced"), X, y)
    as_sample = _fit(LEARNERS[name](), X, y, sample_weight=per_class[np.searchsorted(classes, y)])
    assert_same_fit(balanced, as_sample)


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_refuses_a_class_of_weight_zero(name):
    X, y, _ = _data()
    with pytest.raises(ValueError, match="class 2 has no example with a positive weight"):
        _fit(LEARNERS[name](class_weight={2: 0.0}), X, y)


def test_partial_fit_leaves_out_a_class_of_weight_zero():
    """A stream's block may lack a class, so partial_fit does not refuse: the class's rows
    are left out (no update, no support vector)."""
    X, y, _ = _data()
    kept = y != 2
    est = LEARNERS["KernelPerceptron"](class_weight={2: 0.0}, shuffle=False)
    est.partial_fit(X, y, classes=[0, 1, 2])
    assert np.isin(est.support_, np.flatnonzero(kept)).all() and est.support_.size > 0


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_partial_fit_applies_a_dict_to_each_block(sparse):
    X, y, s = _data()
    X = sp.csr_matrix(X) if sparse else X
    k = {1: 2.5, 2: 0.5}
    on_rows = np.array([k.get(c, 1.0) for c in y])
    weighted, plain = KernelPerceptron(class_weight=k), KernelPerceptron()
    for lo in range(0, 36, 12):  # blocks, then one row (learn_one)
        rows = slice(lo, lo + 12)
        weighted.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=s[rows])
        plain.partial_fit(X[rows], y[rows], classes=[0, 1, 2],
                          sample_weight=s[rows] * on_rows[rows])
    weighted.learn_one(X[3], y[3])
    plain.partial_fit(X[3:4], y[3:4], sample_weight=on_rows[3:4])
    assert_same_fit(weighted, plain)


def test_the_online_game_applies_a_dict_round_by_round():
    X, y, _ = _data(n_classes=2)
    on_rows = np.where(y == 1, 4.0, 1.0)
    learner = KernelPerceptron(gamma=0.5, class_weight={1: 4.0})
    transcript = play(learner, X, y)
    oracle = KernelPerceptron(gamma=0.5).partial_fit(X, y, classes=[0, 1],
                                                    sample_weight=on_rows)
    assert transcript.n_mistakes == oracle.n_mistakes_ > 0
    np.testing.assert_array_equal(learner.dual_coef_, oracle.dual_coef_)
    np.testing.assert_array_equal(learner.support_, oracle.support_)


def test_partial_fit_refuses_balanced_as_sgdclassifier_does():
    X, y, _ = _data()
    est = KernelPerceptron(class_weight="balanced")
    with pytest.raises(ValueError, match=r"KernelPerceptron.partial_fit: 'class_weight' must be"
                                         r" None or a dict .*whole stream.*compute_class_weight"
                                         r".*class_weight=dict\(zip\(classes, weights\)\)"):
        est.partial_fit(X, y, classes=[0, 1, 2])
    assert not hasattr(est, "classes_")  # refused before it started
    with pytest.raises(ValueError, match="compute_class_weight"):
        est.learn_one(X[0], y[0], classes=[0, 1, 2])
    fitted = _fit(KernelPerceptron(class_weight="balanced"), X, y)  # fit takes it
    with pytest.raises(ValueError, match="compute_class_weight"):
        fitted.partial_fit(X, y)


@pytest.mark.parametrize("name", LEARNERS)
def test_bad_class_weights_are_named(name):
    X, y, _ = _data(n=12)
    with pytest.raises(ValueError, match=rf"{name}.fit: class_weight names the label 7, which"
                                         r" is not among the classes \[0, 1, 2\]"):
        LEARNERS[name](class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match=rf"{name}: 'class_weight' must be .*Pass None,"
                                         r" 'balanced'"):
        LEARNERS[name](class_weight="even").fit(X, y)


@pytest.mark.parametrize("name", LEARNERS)
def test_class_weight_is_saved_with_the_model(name, tmp_path):
    X, y, _ = _data()
    est = _fit(LEARNERS[name](class_weight={0: 2.0, 2: 0.5}), X, y)
    est.save(tmp_path / "m.hs")
    back = load(tmp_path / "m.hs")
    assert back.get_params()["class_weight"] == {0: 2.0, 2: 0.5}
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
