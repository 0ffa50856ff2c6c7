"""``SVC(solver="dcd")`` gives the same model, bit for bit, on dense input and on its CSR copy
(issue 14): every score, squared norm, mean and gap is summed in the same order for a dense
row and its CSR copy, so every step, shrinking decision and stop is the same. The comparison
is the two layouts' fitted arrays, byte for byte (``support_vectors_``, copies of the input
rows, as values: a dense -0.0 is not stored in CSR)."""

from __future__ import annotations

import gzip
import io
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file

import halfspaces.datasets
from halfspaces import SVC


def _fitted(X, y, sample_weight=None, warm=None, **params):
    """The fitted numeric arrays of an SVC(solver="dcd") on X (and its scalars)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small max_iter: not converged, still deterministic
        est = SVC(solver="dcd", **params)
        if warm is not None:  # a first fit at another C, then the warm refit
            est.set_params(C=warm, warm_start=True).fit(X, y, sample_weight=sample_weight)
            est.set_params(C=params.get("C", 1.0))
        est.fit(X, y, sample_weight=sample_weight)
    return {key: np.asarray(value.toarray() if sp.issparse(value) else value)
            for key, value in vars(est).items()
            if key.endswith("_") and (sp.issparse(value) or isinstance(
                value, (np.ndarray, float, int))) and not isinstance(value, bool)}


def assert_same_bits(X, y, **kwargs):
    dense, sparse = _fitted(X, y, **kwargs), _fitted(sp.csr_matrix(X), y, **kwargs)
    assert sorted(dense) == sorted(sparse)
    assert {"coef_", "intercept_", "dual_coef_", "n_iter_", "objective_"} <= set(dense)
    for key in dense:
        if key == "support_vectors_":
            np.testing.assert_array_equal(dense[key], sparse[key])
        else:
            assert dense[key].dtype == sparse[key].dtype, key
            assert dense[key].tobytes() == sparse[key].tobytes(), key


@st.composite
def problems(draw):
    """Rows of any density (values over several magnitudes: sums that round), 2 or 3
    classes, and the options that change the steps."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d = draw(st.integers(6, 30)), draw(st.integers(1, 20))
    X = rng.normal(size=(n, d)) * 10.0 ** rng.uniform(-1, 1, (n, d)) + draw(
        st.sampled_from([0.0, 2.0]))  # un-centred rows: the offset's and the mean's terms
    X[rng.random((n, d)) > draw(st.floats(0.05, 1.0))] = 0.0
    k = draw(st.sampled_from([2, 3]))
    y = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    weights = rng.uniform(0.2, 3.0, n) if draw(st.booleans()) else None
    params = {"loss": draw(st.sampled_from(["hinge", "squared_hinge"])),
              "fit_intercept": draw(st.booleans()), "C": draw(st.sampled_from([0.1, 1.0, 10.0])),
              "shrinking": draw(st.booleans()), "random_state": draw(st.integers(0, 100)),
              "max_iter": 25}
    return X, y, weights, params


@settings(max_examples=30, deadline=None)
@given(problems())
def test_dense_and_csr_input_give_the_same_bits(problem):
    X, y, weights, params = problem
    assert_same_bits(X, y, sample_weight=weights, **params)


@settings(max_examples=10, deadline=None)
@given(problems(), st.sampled_from([0.3, 3.0]))
def test_warm_starts_give_the_same_bits(problem, first_C):
    X, y, weights, params = problem
    assert_same_bits(X, y, sample_weight=weights, warm=first_C, **params)


@settings(max_examples=10, deadline=None)
@given(problems())
def test_crammer_singer_gives_the_same_bits(problem):
    X, y, weights, params = problem
    y = np.where(y == 0, 2, y) if len(np.unique(y)) == 2 else y
    y[:3] = [0, 1, 2]  # three classes
    assert_same_bits(X, y, sample_weight=weights, multi_class="crammer_singer",
                     fit_intercept=False, C=params["C"], random_state=params["random_state"],
                     max_iter=25)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_a9a_rows_give_the_same_bits(loss, fit_intercept):
    """One-hot rows of a real set (123 columns: 15 blocks of 8 and a tail of 3)."""
    with gzip.open(Path(halfspaces.datasets.__file__).parent / "data" / "a9a.gz") as f:
        head = b"".join(f.readline() for _ in range(150))
    # its first rows, read by scikit-learn's parser (quick without the JIT)
    X, y = load_svmlight_file(io.BytesIO(head), n_features=123)
    assert_same_bits(X.toarray(), y, loss=loss, fit_intercept=fit_intercept, random_state=1,
                     max_iter=15)
