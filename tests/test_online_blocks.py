"""A later ``partial_fit`` on a CSR block (a stream's, a cache's memory-mapped blocks) skips
scikit-learn's checks but keeps the compiled sweep (issue 9): same model, same errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import halfspaces._online as online
from halfspaces import AveragedPerceptron, Perceptron


class FullPath(Perceptron):
    """A Perceptron whose partial_fit is not the base one: every call is fully validated."""

    def partial_fit(self, X, y, classes=None):
        return super().partial_fit(X, y, classes=classes)


class FullPathAveraged(AveragedPerceptron):
    def partial_fit(self, X, y, classes=None):
        return super().partial_fit(X, y, classes=classes)


def blocks(n_blocks=4, rows=30, d=12, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    for _ in range(n_blocks):
        X = sp.random(rows, d, density=0.3, format="csr", random_state=rng, dtype=dtype)
        yield X, rng.choice(np.array(["ham", "spam", "eggs"]), rows)


@pytest.mark.parametrize(("fast", "full"), [(Perceptron, FullPath),
                                            (AveragedPerceptron, FullPathAveraged)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_later_csr_blocks_skip_scikit_learns_checks_and_learn_the_same(monkeypatch, fast, full,
                                                                       dtype):
    data = list(blocks(dtype=dtype))
    reference = full(shuffle=False)
    for X, y in data:
        reference.partial_fit(X, y, classes=["eggs", "ham", "spam"])
    calls = []
    real = online.validate_X_y
    monkeypatch.setattr(online, "validate_X_y", lambda *a, **k: calls.append(1) or real(*a, **k))
    clf = fast(shuffle=False)
    for X, y in data:
        clf.partial_fit(X, y, classes=["eggs", "ham", "spam"])
    assert len(calls) == 1  # the first call only
    assert np.array_equal(clf.coef_, reference.coef_)
    assert np.array_equal(clf.intercept_, reference.intercept_)
    assert (clf.n_mistakes_, clf.n_iter_, clf.t_) == (reference.n_mistakes_, reference.n_iter_,
                                                      reference.t_)


def fitted():
    (X, y), *_ = blocks(1)
    return Perceptron().partial_fit(X, y, classes=["eggs", "ham", "spam"])


def test_a_nan_in_a_later_block_is_named_by_row_and_column():
    X, y = next(blocks(1, seed=3))
    X.data[5] = np.nan
    row = int(np.searchsorted(X.indptr, 5, side="right")) - 1
    with pytest.raises(ValueError, match=rf"^Perceptron: Input X contains NaN at row {row},"
                       rf" column {X.indices[5]} \(X\.data\[5\]\)"):
        fitted().partial_fit(X, y)


@pytest.mark.parametrize(("change", "message"), [
    (lambda X, y: (X, np.where(y == "ham", "bacon", y)), r"y contains labels \['bacon'\]"),
    (lambda X, y: (X[:, :5], y), r"X has 5 features, but Perceptron is expecting 12"),
    (lambda X, y: (X[:0], y[:0]), r"0 sample\(s\)"),
    (lambda X, y: (X, y[:-1]), r"X has 30 rows but y has 29 labels"),
])
def test_other_bad_blocks_get_the_full_checks_and_their_messages(change, message):
    X, y = change(*next(blocks(1, seed=4)))
    with pytest.raises(ValueError, match=message):
        fitted().partial_fit(X, y)
