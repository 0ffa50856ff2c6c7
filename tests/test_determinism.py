"""Determinism: the same seed gives bit-identical models in two processes, and dense and
sparse input give the same model, bit for bit: every product that decides a step or a
model is summed in the same order for a dense row and its CSR copy.
(``support_vectors_``, rows of the input, keep the sign of a -0.0 in dense input, which
CSR does not store; ``LPSeparator``'s Farkas certificates on data that is not separable
are both valid, but HiGHS may find different ones for the two layouts: these are compared as
values, or left out.)

``LogisticRegression`` and ``SVC(solver="dcd")`` (Crammer-Singer included) too: their
scores, squared norms and mat-vecs sum CSR rows in the dense rows' order
(``_primitives.row_dot_dense_order``, ``matvec``, ``rmatvec``, ``row_sqnorms``; see
``tests/solvers/test_dcd_layouts.py`` for DCD on more data and options). Multinomial
``LogisticRegression`` multiplies dense rows by BLAS and CSR rows in a compiled pass: the
two agree to rounding, not bit for bit (tested apart).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import halfspaces

EXACT = {  # dense and sparse input give the same bits
    "Perceptron": lambda: halfspaces.Perceptron(random_state=0),
    "AveragedPerceptron": lambda: halfspaces.AveragedPerceptron(random_state=0),
    "VotedPerceptron": lambda: halfspaces.VotedPerceptron(random_state=0),
    "KernelPerceptron": lambda: halfspaces.KernelPerceptron(max_iter=5, random_state=0),
    "PegasosSVC": lambda: halfspaces.PegasosSVC(lam=0.01, random_state=0),
    "PegasosSVC-uniform": lambda: halfspaces.PegasosSVC(lam=0.01, sampling="uniform",
                                                        random_state=0),
    "KernelPegasosSVC": lambda: halfspaces.KernelPegasosSVC(lam=0.01, max_iter=3,
                                                            random_state=0),
    "LPSeparator": lambda: halfspaces.LPSeparator(on_infeasible="least_violation"),
    "WeightedMajorityClassifier": lambda: halfspaces.WeightedMajorityClassifier(
        hypotheses=np.random.default_rng(0).normal(size=(64, 5)), randomized=True,
        random_state=0),
}
SUMMED = {  # scores and mat-vecs summed in the dense order for CSR rows too
    # one-vs-rest: the multinomial objective's dense rows go through BLAS (below)
    "LogisticRegression": lambda: halfspaces.LogisticRegression(multi_class="ovr"),
    "SVC-dcd": lambda: halfspaces.SVC(solver="dcd", random_state=0),
    "SVC-dcd-crammer-singer": lambda: halfspaces.SVC(solver="dcd",
                                                     multi_class="crammer_singer",
                                                     fit_intercept=False, max_iter=30,
                                                     random_state=0),
}
EXACT.update(SUMMED)
SEEDED = {**EXACT, "SVC-qp": lambda: halfspaces.SVC(solver="qp")}


def _data(n_classes, name=None):
    """40 rows, 13 columns for SUMMED (8 partial sums and a tail of 5), else 5."""
    rng = np.random.default_rng(0)
    d = 13 if name in SUMMED else 5
    X = rng.normal(size=(40, d)) * (rng.random((40, d)) < 0.6)
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    return X, (np.where(X[:, 2] > 0.5, 2, y) if n_classes == 3 else y)


def _arrays(est) -> dict[str, np.ndarray]:
    """The fitted numeric arrays of ``est`` (a sparse one as dense)."""
    out = {}
    for key, value in vars(est).items():
        if sp.issparse(value):
            value = value.toarray()
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            out[key] = value
    return out


# WeightedMajorityClassifier is binary only
CASES = [(name, k) for name in sorted(EXACT) for k in (2, 3)
         if (name, k) != ("WeightedMajorityClassifier", 3)]
# copies of the input rows (the sign of a zero is the input's), and LP certificates
AS_VALUES = ("support_vectors_",)
NOT_UNIQUE = ("certificates_", "certificate_")


def _fit(name, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SEEDED[name]().fit(X, y)


@pytest.mark.parametrize("name, n_classes", CASES)
def test_dense_and_sparse_input_give_the_same_bits(name, n_classes):
    X, y = _data(n_classes, name)
    dense, sparse = _arrays(_fit(name, X, y)), _arrays(_fit(name, sp.csr_matrix(X), y))
    assert sorted(dense) == sorted(sparse)
    assert len(set(dense) - {"classes_"}) >= 2  # a fitted state to compare
    for key in set(dense) - set(NOT_UNIQUE):
        assert dense[key].dtype == sparse[key].dtype and dense[key].shape == sparse[key].shape
        if key in AS_VALUES:
            np.testing.assert_array_equal(dense[key], sparse[key])
        else:
            assert dense[key].tobytes() == sparse[key].tobytes(), key


def test_multinomial_logistic_dense_and_sparse_agree_to_rounding():
    X, y = _data(3, "LogisticRegression")
    dense = halfspaces.LogisticRegression().fit(X, y)
    sparse = halfspaces.LogisticRegression().fit(sp.csr_matrix(X), y)
    assert dense.multi_class_ == sparse.multi_class_ == "multinomial"
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(dense.intercept_, sparse.intercept_, rtol=1e-7, atol=1e-9)


_FIT_AND_HASH = """
import json, sys
sys.path.insert(0, sys.argv[1])
import test_determinism as t
import scipy.sparse as sp
out = {}
for name in sorted(t.SEEDED):
    for n_classes in (2, 3) if name != "WeightedMajorityClassifier" else (2,):
        X, y = t._data(n_classes, name)
        for fmt, data in (("dense", X), ("csr", sp.csr_matrix(X))):
            arrays = t._arrays(t._fit(name, data, y))
            out[f"{name}/{n_classes}/{fmt}"] = {k: t.digest(a) for k, a in arrays.items()}
print(json.dumps(out))
"""


def digest(a: np.ndarray) -> str:
    return hashlib.sha256(f"{a.dtype.str}{a.shape}".encode() + a.tobytes()).hexdigest()


def test_the_same_seed_gives_the_same_bits_in_two_processes():
    import os

    runs = [subprocess.run([sys.executable, "-c", _FIT_AND_HASH, os.path.dirname(__file__)],
                           capture_output=True, text=True, env={**os.environ,
                                                                "PYTHONHASHSEED": seed})
            for seed in ("1", "2")]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr[-3000:]
    first, second = (json.loads(run.stdout) for run in runs)
    assert len(first) == 2 * (2 * len(SEEDED) - 1)
    assert first == second
