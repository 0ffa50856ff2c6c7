"""n_jobs for the kernel learners: the classes' passes in threads, the same model bit for bit.

Oracles: the model of ``n_jobs=1`` (every fitted attribute, byte for byte: dual
coefficients, support sets in their order, counts, intercepts), and each class against the
rest fitted alone as a binary problem. A barrier shows that ``min(n_jobs, n_classes)``
threads really run the compiled passes at the same time.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same_fit, thread_probe
from helpers import fit_quietly as _fit
from test_model_files import craft

from halfspaces import KernelPegasosSVC, KernelPerceptron, cli, load
from halfspaces._parallel import effective_n_jobs
from halfspaces.datasets import dump_svmlight
from halfspaces.kernel import kernel_pegasos as kpeg
from halfspaces.kernel import kernel_perceptron as kp

LEARNERS = {
    "KernelPerceptron": lambda j: KernelPerceptron(gamma=0.5, max_iter=3, random_state=0,
                                                   n_jobs=j),
    "KernelPegasosSVC": lambda j: KernelPegasosSVC(lam=0.05, gamma=0.5, max_iter=3,
                                                   random_state=0, n_jobs=j),
}


def _data(n=40, d=4, n_classes=4, seed=0):
    """Overlapping classes (each shifts one coordinate of Gaussian noise) and weights with
    zeros and fractions."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, d))
    X[np.arange(n), y % d] += 1.5
    return X, y, rng.choice([0.0, 0.5, 1.0, 2.5], size=n)




@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", LEARNERS)
def test_fit_is_the_same_bit_for_bit_for_every_n_jobs(name, sparse, weighted):
    X, y, s = _data()
    X = sp.csr_matrix(X) if sparse else X
    kw = {"sample_weight": s} if weighted else {}
    one = _fit(LEARNERS[name](1), X, y, **kw)
    assert one.dual_coef_.shape[0] == 4
    for n_jobs in (2, 3, -1):
        assert_same_fit(one, _fit(LEARNERS[name](n_jobs), X, y, **kw))


@pytest.mark.parametrize("name", ["KernelPerceptron", "KernelPegasosSVC"])
def test_fit_over_gram_blocks_is_the_same_for_every_n_jobs(name):
    """Without room for the n x n Gram matrix, each block of rows is computed once and the
    classes' passes run over it in threads."""
    X, y, s = _data()
    small = 16 * 40 * 7 / 2**20  # MB: 7 rows per block
    one = _fit(LEARNERS[name](1).set_params(cache_size=small), X, y, sample_weight=s)
    for n_jobs in (2, 3):
        assert_same_fit(one, _fit(LEARNERS[name](n_jobs).set_params(cache_size=small), X, y,
                                  sample_weight=s))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_partial_fit_is_the_same_bit_for_bit_for_every_n_jobs(sparse, weighted):
    X, y, s = _data()
    X = sp.csr_matrix(X) if sparse else X
    models = {j: LEARNERS["KernelPerceptron"](j) for j in (1, 2, 3, -1)}
    for lo in range(0, 40, 15):  # blocks, then one row (learn_one's path)
        kw = {"sample_weight": s[lo:lo + 15]} if weighted else {}
        for est in models.values():
            est.partial_fit(X[lo:lo + 15], y[lo:lo + 15], classes=np.arange(4), **kw)
    for est in models.values():
        est.learn_one(X[:1], y[0])
    assert models[1].support_.size > 0
    for n_jobs in (2, 3, -1):
        assert_same_fit(models[1], models[n_jobs])


@pytest.mark.parametrize("name", LEARNERS)
def test_each_class_in_threads_is_its_binary_problem(name):
    X, y, s = _data(seed=1)
    ovr = _fit(LEARNERS[name](2), X, y, sample_weight=s)
    for k, c in enumerate(ovr.classes_):
        binary = _fit(LEARNERS[name](None), X, y == c, sample_weight=s)
        dense = np.zeros(40)
        dense[binary.support_] = binary.dual_coef_[0]
        assert ovr.dual_coef_[k].tobytes() == dense[ovr.support_].tobytes()
        assert ovr.intercept_[k] == binary.intercept_[0]


# (n_jobs, classes, threads that must run at once)
THREADS = [(1, 4, 1), (2, 4, 2), (3, 4, 3), (8, 3, 3), (-1, 4, min(effective_n_jobs(-1), 4))]
PASSES = {"KernelPerceptron": (kp, "_kernel_perceptron_pass"),
          "KernelPegasosSVC": (kpeg, "kernel_pegasos_epoch")}


@pytest.mark.parametrize("n_jobs, n_classes, expected", THREADS)
@pytest.mark.parametrize("name", LEARNERS)
def test_the_compiled_passes_run_in_min_n_jobs_classes_threads(name, n_jobs, n_classes,
                                                              expected, monkeypatch):
    X, y, _ = _data(n_classes=n_classes)
    module, function = PASSES[name]
    wrap, seen = thread_probe(expected)
    monkeypatch.setattr(module, function, wrap(getattr(module, function)))
    _fit(LEARNERS[name](n_jobs).set_params(max_iter=1), X, y)
    assert len(seen) == expected


@pytest.mark.parametrize("n_jobs, n_classes, expected", THREADS)
def test_partial_fit_runs_in_min_n_jobs_classes_threads(n_jobs, n_classes, expected,
                                                        monkeypatch):
    X, y, _ = _data(n_classes=n_classes)
    wrap, seen = thread_probe(expected)
    monkeypatch.setattr(kp, "_kernel_perceptron_pass", wrap(kp._kernel_perceptron_pass))
    LEARNERS["KernelPerceptron"](n_jobs).partial_fit(X, y, classes=np.unique(y))
    assert len(seen) == expected


def test_learn_one_stays_in_the_calling_thread(monkeypatch):
    X, y, _ = _data()
    est = LEARNERS["KernelPerceptron"](4).partial_fit(X[:8], y[:8], classes=np.arange(4))
    wrap, seen = thread_probe(1)
    monkeypatch.setattr(kp, "_kernel_perceptron_pass", wrap(kp._kernel_perceptron_pass))
    est.learn_one(X[8], y[8])
    assert seen == {threading.get_ident()}


@pytest.mark.parametrize("name", LEARNERS)
def test_n_jobs_is_saved_and_a_file_without_it_or_class_weight_loads(name, tmp_path):
    X, y, _ = _data()
    est = _fit(LEARNERS[name](2), X, y)
    est.save(tmp_path / "m.hs")
    back = load(tmp_path / "m.hs")
    assert back.get_params()["n_jobs"] == 2
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
    # a file written before the kernel learners took n_jobs and class_weight: its
    # parameters lack them
    def edit(tree, encoder):
        del tree["params"]["n_jobs"], tree["params"]["class_weight"]

    back = load(craft(tmp_path / "old.hs", est, edit))
    assert back.get_params()["n_jobs"] is None and back.get_params()["class_weight"] is None
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("bad", [0, 1.5, "all"])
@pytest.mark.parametrize("cls", [KernelPerceptron, KernelPegasosSVC])
def test_bad_n_jobs_is_named(cls, bad):
    X, y, _ = _data(n=8)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: 'n_jobs' must be .*threads.*"
                                         r"Try n_jobs=-1"):
        cls(n_jobs=bad).fit(X, y)


@pytest.mark.parametrize("args, cls", [
    (["--algo", "kernel-perceptron"], KernelPerceptron),
    (["--algo", "pegasos", "--kernel", "rbf"], KernelPegasosSVC)])
def test_cli_n_jobs_reaches_the_kernel_learners(args, cls, tmp_path, capsys):
    X, y, _ = _data()
    data = tmp_path / "d.svm"
    dump_svmlight(X, y, data)
    model = tmp_path / "m.hs"
    code = cli.main(["train", str(data), *args, "--n-jobs", "2", "--max-iter", "2",
                     "-o", str(model)])
    assert code == 0, capsys.readouterr().err
    back = load(model)
    assert type(back) is cls and back.get_params()["n_jobs"] == 2
