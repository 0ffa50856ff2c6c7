"""SVC(n_jobs=...): the one-vs-rest problems in threads, the same model for every n_jobs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import SVC, cli, load
from halfspaces._parallel import effective_n_jobs, map_problems
from halfspaces.datasets import dump_svmlight
from halfspaces.solvers.qp import svm_primal_qp


def _bag_of_words(n=120, d=30, n_classes=4, seed=0):
    """Counts of words, each class drawing more often from its own block of the vocabulary."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rates = np.full((n_classes, d), 0.1)
    for c in range(n_classes):
        rates[c, c * (d // n_classes):(c + 1) * (d // n_classes)] = 0.6
    X = sp.csr_matrix(rng.poisson(rates[y]).astype(np.float64))
    return X, y


@pytest.mark.parametrize("solver", ["dcd", "qp"])
@pytest.mark.parametrize("n_jobs", [2, -1])
def test_threads_give_the_same_model_bit_for_bit(solver, n_jobs):
    X, y = _bag_of_words()
    one = SVC(C=0.5, solver=solver, random_state=0, n_jobs=1).fit(X, y)
    many = SVC(C=0.5, solver=solver, random_state=0, n_jobs=n_jobs).fit(X, y)
    assert one.coef_.tobytes() == many.coef_.tobytes()
    assert one.intercept_.tobytes() == many.intercept_.tobytes()
    assert one.dual_coef_.tobytes() == many.dual_coef_.tobytes()
    assert one.n_iter_ == many.n_iter_


def test_threads_solve_each_class_against_the_rest_as_the_qp():
    """Oracle: the primal QP of each class against the rest, solved on its own."""
    X, y = _bag_of_words(seed=1)
    svc = SVC(C=0.5, solver="dcd", tol=1e-6, random_state=0, n_jobs=2).fit(X, y)
    for k, c in enumerate(svc.classes_):
        y_k = np.where(y == c, 1.0, -1.0)
        qp = svm_primal_qp(X, y_k, 0.5)
        z = y_k * (X @ qp.theta + qp.theta_0)
        optimum = 0.5 * qp.theta @ qp.theta + 0.5 * np.maximum(0.0, 1.0 - z).sum()
        assert svc.objective_[k] == pytest.approx(optimum, rel=1e-6)


def test_kernel_problems_in_threads_are_the_same():
    X, y = _bag_of_words(n=60)
    one = SVC(kernel="rbf", n_jobs=None).fit(X, y)
    many = SVC(kernel="rbf", n_jobs=3).fit(X, y)
    assert one.dual_coef_.tobytes() == many.dual_coef_.tobytes()


def test_map_problems_keeps_the_order_and_raises_the_first_error():
    assert map_problems(lambda k: k * k, 5, 2) == [0, 1, 4, 9, 16]

    def fail(k):
        if k >= 2:
            raise ValueError(f"problem {k}")
        return k

    with pytest.raises(ValueError, match="problem 2"):
        map_problems(fail, 4, 2)


@pytest.mark.parametrize("n_jobs, expected", [(None, 1), (1, 1), (3, 3)])
def test_effective_n_jobs_as_sklearn(n_jobs, expected):
    assert effective_n_jobs(n_jobs) == expected


def test_minus_one_is_every_core():
    import joblib

    assert effective_n_jobs(-1) == joblib.effective_n_jobs(-1)
    assert effective_n_jobs(-2) == max(1, joblib.effective_n_jobs(-2))


@pytest.mark.parametrize("bad", [0, 1.5, "all"])
def test_bad_n_jobs_is_named(bad):
    X, y = _bag_of_words(n=20)
    with pytest.raises(ValueError, match=r"SVC: 'n_jobs' must be .*threads.*Try n_jobs=-1"):
        SVC(n_jobs=bad).fit(X, y)


def test_n_jobs_is_saved_with_the_model(tmp_path):
    X, y = _bag_of_words(n=40)
    svc = SVC(solver="dcd", random_state=0, n_jobs=2).fit(X, y)
    svc.save(tmp_path / "m.hs")
    back = load(tmp_path / "m.hs")
    assert back.get_params()["n_jobs"] == 2
    np.testing.assert_array_equal(back.predict(X), svc.predict(X))


def test_cli_n_jobs_flag(tmp_path, capsys):
    X, y = _bag_of_words(n=40)
    data = tmp_path / "d.svm"
    dump_svmlight(X, y, data)
    model = tmp_path / "m.hs"
    code = cli.main(["train", str(data), "--algo", "svm", "--solver", "dcd", "--n-jobs", "2",
                     "--random-state", "0", "-o", str(model)])
    assert code == 0, capsys.readouterr().err
    assert load(model).get_params()["n_jobs"] == 2
