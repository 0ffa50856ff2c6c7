"""n_jobs for every one-vs-rest learner: the classes in threads, the same model bit for bit.

Oracles: the model of ``n_jobs=1`` (every fitted attribute, byte for byte), and each class
against the rest fitted on its own as a binary problem (the one-vs-rest decomposition, which
threads must not change). A barrier shows that ``min(n_jobs, n_classes)`` threads really run
at the same time.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same_fit as _assert_same
from helpers import thread_probe as _probe

from halfspaces import (
    AveragedPerceptron,
    LogisticRegression,
    LPSeparator,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
    cli,
    load,
)
from halfspaces._parallel import effective_n_jobs, map_groups
from halfspaces.datasets import dump_svmlight
from halfspaces.linear import logistic, lp

LEARNERS = {
    "Perceptron": lambda j: Perceptron(max_iter=4, random_state=0, n_jobs=j),
    "AveragedPerceptron": lambda j: AveragedPerceptron(max_iter=4, random_state=0, n_jobs=j),
    "VotedPerceptron": lambda j: VotedPerceptron(max_iter=3, max_vectors=5, random_state=0,
                                                 n_jobs=j),
    "PegasosSVC": lambda j: PegasosSVC(lam=0.01, max_iter=3, random_state=0, n_jobs=j),
    "PegasosSVC-batch": lambda j: PegasosSVC(lam=0.01, max_iter=3, batch_size=4,
                                             random_state=0, n_jobs=j),
    "LogisticRegression": lambda j: LogisticRegression(max_iter=20, n_jobs=j, multi_class="ovr"),
    "LogisticRegression-sgd": lambda j: LogisticRegression(solver="sgd", max_iter=3,
                                                           random_state=0, n_jobs=j),
    "LPSeparator": lambda j: LPSeparator(n_jobs=j),
}


def _data(n=60, d=8, n_classes=6, seed=0):
    """Overlapping classes: each shifts one coordinate of Gaussian noise."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, d))
    X[np.arange(n), y % d] += 2.0
    return X, y


def _fit(make, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not separable, not converged: the same either way
        return make.fit(X, y)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", LEARNERS)
def test_every_n_jobs_gives_the_same_model_bit_for_bit(name, sparse):
    X, y = _data()
    X = sp.csr_matrix(X) if sparse else X
    one = _fit(LEARNERS[name](1), X, y)
    for n_jobs in (2, 3, -1):
        _assert_same(one, _fit(LEARNERS[name](n_jobs), X, y))


@pytest.mark.parametrize("name", ["Perceptron", "AveragedPerceptron", "VotedPerceptron",
                                  "PegasosSVC", "LogisticRegression-sgd"])
def test_partial_fit_in_threads_is_the_same(name):
    X, y = _data(n_classes=5)
    classes = np.unique(y)
    one, many = LEARNERS[name](None), LEARNERS[name](3)
    for lo in range(0, X.shape[0], 20):  # blocks, then one row (learn_one's path)
        for est in (one, many):
            est.partial_fit(X[lo:lo + 20], y[lo:lo + 20], classes=classes)
    for est in (one, many):
        est.partial_fit(X[:1], y[:1])
    _assert_same(one, many)


@pytest.mark.parametrize("name", ["Perceptron", "PegasosSVC", "LogisticRegression",
                                  "LogisticRegression-sgd", "LPSeparator"])
def test_each_class_in_threads_is_its_binary_problem(name):
    """Oracle: class c against the rest, fitted alone (labels c -> +1, others -> -1)."""
    X, y = _data(n_classes=5, seed=1)
    ovr = _fit(LEARNERS[name](2), X, y)
    for k, c in enumerate(ovr.classes_):
        binary = _fit(LEARNERS[name](None), X, y == c)
        assert ovr.coef_[k].tobytes() == binary.coef_[0].tobytes()
        assert ovr.intercept_[k] == binary.intercept_[0]


# (n_jobs, classes, threads that must run at once)
THREADS = [(1, 5, 1), (2, 5, 2), (3, 5, 3), (8, 3, 3), (-1, 6, min(effective_n_jobs(-1), 6))]


@pytest.mark.parametrize("n_jobs, n_classes, expected", THREADS)
@pytest.mark.parametrize("name", ["Perceptron", "AveragedPerceptron", "VotedPerceptron",
                                  "PegasosSVC"])
def test_the_classes_run_in_min_n_jobs_classes_threads(name, n_jobs, n_classes, expected,
                                                       monkeypatch):
    X, y = _data(n_classes=n_classes)
    est = LEARNERS[name](n_jobs).set_params(max_iter=1)  # one pass: one set of threads
    wrap, seen = _probe(expected)
    monkeypatch.setattr(type(est), "_pass", wrap(type(est)._pass))
    _fit(est, X, y)
    assert len(seen) == expected


@pytest.mark.parametrize("n_jobs, n_classes, expected", THREADS)
@pytest.mark.parametrize("name, module, function", [
    ("LogisticRegression", logistic, "lbfgs"),
    ("LogisticRegression-sgd", logistic, "_logistic_sgd_pass"),
    ("LPSeparator", lp, "separating_hyperplane")])
def test_the_batch_solvers_run_in_min_n_jobs_classes_threads(name, module, function, n_jobs,
                                                             n_classes, expected,
                                                             monkeypatch):
    X, y = _data(n_classes=n_classes)
    wrap, seen = _probe(expected)
    monkeypatch.setattr(module, function, wrap(getattr(module, function)))
    est = LEARNERS[name](n_jobs)
    _fit(est if name == "LPSeparator" else est.set_params(max_iter=1), X, y)
    assert len(seen) == expected


def test_learn_one_stays_in_the_calling_thread(monkeypatch):
    X, y = _data(n_classes=4)
    est = Perceptron(n_jobs=4).partial_fit(X[:8], y[:8], classes=np.unique(y))
    wrap, seen = _probe(1)
    monkeypatch.setattr(Perceptron, "_pass", wrap(Perceptron._pass))
    est.learn_one(X[8], y[8])
    assert seen == {threading.get_ident()}


def test_map_groups_cuts_contiguous_groups_in_order():
    groups = map_groups(list, 7, 3)
    assert groups == [[0, 1], [2, 3], [4, 5, 6]]
    assert map_groups(list, 2, 5) == [[0], [1]]
    assert map_groups(list, 4, None) == [[0, 1, 2, 3]]


def test_a_numerical_error_names_the_first_class_as_one_thread_does():
    X, y = _data(n_classes=4)
    X[5, 0] = 1e308  # row 5: its score overflows in every class's pass
    X[6, 0] = -1e308
    messages = []
    for n_jobs in (1, 4):
        with pytest.raises(Exception, match="row") as err:
            Perceptron(shuffle=False, n_jobs=n_jobs).partial_fit(X, y, classes=np.unique(y))
        messages.append(str(err.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["Perceptron", "PegasosSVC", "LogisticRegression",
                                  "LPSeparator", "VotedPerceptron", "AveragedPerceptron"])
def test_n_jobs_is_saved_with_the_model(name, tmp_path):
    X, y = _data(n_classes=3)
    est = _fit(LEARNERS[name](2), X, y)
    est.save(tmp_path / "m.hs")
    back = load(tmp_path / "m.hs")
    assert back.get_params()["n_jobs"] == 2
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


@pytest.mark.parametrize("bad", [0, 1.5, "all"])
@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron, PegasosSVC,
                                 LogisticRegression, LPSeparator])
def test_bad_n_jobs_is_named(cls, bad):
    X, y = _data(n_classes=3)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: 'n_jobs' must be .*threads.*"
                                         r"Try n_jobs=-1"):
        cls(n_jobs=bad).fit(X, y)


@pytest.mark.parametrize("algo", ["perceptron", "averaged", "voted", "pegasos", "logistic",
                                  "lp"])
def test_cli_n_jobs_flag(algo, tmp_path, capsys):
    X, y = _data(n_classes=3)
    data = tmp_path / "d.svm"
    dump_svmlight(X, y, data)
    model = tmp_path / "m.hs"
    code = cli.main(["train", str(data), "--algo", algo, "--n-jobs", "2", "-o", str(model)])
    assert code == 0, capsys.readouterr().err
    assert load(model).get_params()["n_jobs"] == 2


def test_cli_n_jobs_refused_where_there_is_no_one_vs_rest(tmp_path, capsys):
    X, y = _data(n_classes=3)
    data = tmp_path / "d.svm"
    dump_svmlight(X, y, data)
    code = cli.main(["train", str(data), "--algo", "halving", "--n-jobs", "2",
                     "-o", str(tmp_path / "m.hs")])
    assert code != 0
    assert "--n-jobs does not apply to --algo halving" in capsys.readouterr().err
