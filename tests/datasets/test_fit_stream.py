"""fit_stream / fit_file: the model of the in-memory method, bit for bit, from blocks."""

from __future__ import annotations

import os
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import growing
from sklearn.exceptions import ConvergenceWarning

from halfspaces import (
    SVC,
    AveragedPerceptron,
    HalvingClassifier,
    LogisticRegression,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
    WeightedMajorityClassifier,
)
from halfspaces.datasets import DataFormatError, dump_svmlight, load_svmlight, load_vw
from halfspaces.datasets.stream import fit_file, fit_stream
from halfspaces.exceptions import NumericalError


def sparse_data(n=120, d=15, classes=(-1, 1), seed=0, separable=False):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.3, random_state=seed, format="csr")
    X.data = rng.standard_normal(X.nnz)
    if separable:
        w = rng.standard_normal(d)
        y = np.where(X @ w >= 0, classes[1], classes[0])
    else:
        y = rng.choice(classes, n)
    return X, y


def blocks_of(X, y, sizes):
    """Cut the rows into consecutive blocks of the given sizes (cycled)."""
    out, i, k = [], 0, 0
    while i < X.shape[0]:
        m = sizes[k % len(sizes)]
        out.append((X[i : i + m], y[i : i + m]))
        i, k = i + m, k + 1
    return out


def fitted(est) -> dict:
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def assert_same_model(a, b):
    """Every fitted attribute equal, floats bit for bit."""
    fa, fb = fitted(a), fitted(b)
    assert fa.keys() == fb.keys()
    for key, va in fa.items():
        vb = fb[key]
        if isinstance(va, np.ndarray):
            assert va.dtype == np.asarray(vb).dtype and va.shape == np.asarray(vb).shape, key
            assert va.tobytes() == np.asarray(vb).tobytes(), key
        elif isinstance(va, float):
            assert np.float64(va).tobytes() == np.float64(vb).tobytes(), key
        else:
            assert va == vb, key


def both(make, X, y, sizes, **kwargs):
    """(streamed, in-memory) fits, with the warnings each one gave."""
    with warnings.catch_warnings(record=True) as w_stream:
        warnings.simplefilter("always")
        streamed = fit_stream(make(), blocks_of(X, y, sizes), **kwargs)
    with warnings.catch_warnings(record=True) as w_memory:
        warnings.simplefilter("always")
        in_memory = make().fit(X, y)
    assert [str(w.message) for w in w_stream] == [str(w.message) for w in w_memory]
    return streamed, in_memory


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron])
@pytest.mark.parametrize("separable", [True, False])
@pytest.mark.parametrize("sizes", [[1], [7, 13], [1000]])
def test_perceptron_family_equals_fit(cls, separable, sizes):
    # one-row blocks: one partial_fit per row, so fewer rows (quick without the JIT too)
    X, y = sparse_data(n=40 if sizes == [1] else 120, separable=separable, seed=3)
    max_iter = 200 if separable else 4
    streamed, in_memory = both(lambda: cls(max_iter=max_iter, shuffle=False), X, y, sizes)
    assert_same_model(streamed, in_memory)
    assert in_memory.converged_ == separable  # both endings of fit are compared


def test_the_convergence_warning_is_fit_s():
    X, y = sparse_data(seed=4)
    with pytest.warns(ConvergenceWarning, match="fit stopped after max_iter=3 passes"):
        fit_stream(Perceptron(shuffle=False, max_iter=3), blocks_of(X, y, [10]))


def test_multiclass_and_float32_blocks():
    X, y = sparse_data(classes=(0, 1, 2), seed=5)
    X = X.astype(np.float32)
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron):
        streamed, in_memory = both(lambda c=cls: c(max_iter=4, fit_intercept=False,
                                                   shuffle=False), X, y,
                                   [9, 31])
        assert_same_model(streamed, in_memory)


def test_warm_start_continues_as_fit_does():
    X, y = sparse_data(seed=6)
    a = Perceptron(shuffle=False, max_iter=2, warm_start=True)
    b = Perceptron(shuffle=False, max_iter=2, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(2):
            fit_stream(a, blocks_of(X, y, [17]))
            b.fit(X, y)
    assert_same_model(a, b)
    refit = Perceptron(shuffle=False, max_iter=2)  # without warm_start a second fit starts afresh
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        refit.fit(X[:50], y[:50])
        fit_stream(refit, blocks_of(X, y, [17]))
        assert_same_model(refit, Perceptron(shuffle=False, max_iter=2).fit(X, y))


def halfspace_hypotheses(d, seed):
    return np.random.default_rng(seed).standard_normal((12, d))


def test_experts_equal_fit():
    X, _ = sparse_data(seed=7)
    W = halfspace_hypotheses(X.shape[1], 7)
    y = np.where(X @ W[3] >= 0, 1, -1)  # realizable by hypothesis 3
    noisy = np.where(np.random.default_rng(1).random(y.size) < 0.2, -y, y)
    for labels in (y, noisy):
        for make in (lambda: HalvingClassifier(W), lambda: WeightedMajorityClassifier(W, 0.3)):
            if make().__class__ is HalvingClassifier and labels is noisy:
                continue  # not realizable: Halving raises
            streamed, in_memory = both(make, X, labels, [11, 4])
            assert_same_model(streamed, in_memory)


def test_randomized_weighted_majority_differs_only_in_the_rounding_of_a_sum():
    # expected_mistakes_ adds the probabilities of a mistake block by block (the learner's
    # own blocks of rows in fit), so other blocks round differently: equal to 1e-12, and
    # every other attribute (the weights, the random draws, the mistakes) bit for bit.
    X, _ = sparse_data(seed=7)
    W = halfspace_hypotheses(X.shape[1], 7)
    y = np.where(np.random.default_rng(1).random(X.shape[0]) < 0.2, -1, 1) \
        * np.where(X @ W[3] >= 0, 1, -1)
    streamed, in_memory = both(lambda: WeightedMajorityClassifier(W, randomized=True,
                                                                  random_state=1),
                               X, y, [11, 4])
    np.testing.assert_allclose(streamed.expected_mistakes_, in_memory.expected_mistakes_,
                               rtol=1e-12)
    streamed.expected_mistakes_ = in_memory.expected_mistakes_
    assert_same_model(streamed, in_memory)


def pegasos(**kwargs):
    return lambda: PegasosSVC(**{"lam": 0.01, "sampling": "cyclic", "max_iter": 3,
                                 "random_state": 0, **kwargs})


@pytest.mark.parametrize("kwargs", [
    {},
    {"fit_intercept": False, "average": False, "learning_rate": "pegasos"},
    {"eta0": "calibrate"},
    {"batch_size": 4},
    {"batch_size": 3, "average": "weighted", "projection": False},
    {"n_iter": 250},
    {"average": 40, "learning_rate": "notes", "intercept_decay": 1.0},
    {"learning_rate": "constant", "eta0": 0.05},
])
def test_pegasos_equals_fit(kwargs):
    X, y = sparse_data(seed=8)
    streamed, in_memory = both(pegasos(**kwargs), X, y, [10, 7])
    assert_same_model(streamed, in_memory)


def test_pegasos_calibration_sample_over_many_rows_and_classes():
    # more rows than the calibration sample (1000): the sample is drawn as fit draws it
    X, y = sparse_data(n=1300, d=8, classes=(0, 1, 2), seed=9)
    streamed, in_memory = both(pegasos(eta0="calibrate", max_iter=1, random_state=3), X, y,
                               [250])
    assert_same_model(streamed, in_memory)


def test_logistic_sgd_equals_partial_fit_on_all_rows():
    for kwargs in ({}, {"lam": 0.01, "fit_intercept": False}, {"C": 0.1, "eta0": 0.5}):
        for classes in ((-1, 1), (0, 1, 2)):
            X, y = sparse_data(seed=10, classes=classes)
            streamed = fit_stream(LogisticRegression(**kwargs), blocks_of(X, y, [13, 5]),
                                  epochs=3)
            in_memory = LogisticRegression(**kwargs)
            for _ in range(3):
                in_memory.partial_fit(X, y, classes=np.unique(y))
            assert_same_model(streamed, in_memory)


def test_learners_that_need_all_rows_or_random_order_are_refused():
    X, y = sparse_data(seed=11)
    blocks = blocks_of(X, y, [50])
    with pytest.raises(ValueError, match="SVC is not trained by streaming .*load the file"):
        fit_stream(SVC(), blocks)
    with pytest.raises(ValueError, match="'shuffle_window' must be an int >= 1 .* got 0"):
        fit_stream(Perceptron(shuffle=True), blocks, shuffle_window=0)
    with pytest.raises(ValueError, match="sampling='permutation'.*only sampling='cyclic'"):
        fit_stream(PegasosSVC(), blocks)
    with pytest.raises(ValueError, match="tol=0.001: the stopping rule"):
        fit_stream(PegasosSVC(sampling="cyclic", tol=1e-3), blocks)
    with pytest.raises(ValueError, match="'epochs' must be an int >= 1 or None; got 0"):
        fit_stream(LogisticRegression(), blocks, epochs=0)
    with pytest.raises(TypeError, match="'blocks' must be a CachedData"):
        fit_stream(Perceptron(shuffle=False), 3)


def test_a_numerical_error_names_the_row_in_the_stream():
    X, y = sparse_data(seed=12)
    X = X.tolil()
    X[70, :] = 1e308
    X = X.tocsr()
    with pytest.raises(NumericalError) as in_memory:
        Perceptron(shuffle=False, fit_intercept=False).fit(X, y)
    with pytest.raises(NumericalError) as streamed:
        fit_stream(Perceptron(shuffle=False, fit_intercept=False), blocks_of(X, y, [30]))
    assert streamed.value.row == in_memory.value.row >= 70  # not a row of its block (30)
    assert str(streamed.value) == str(in_memory.value)


# -- from files ---------------------------------------------------------------------------

@pytest.fixture
def svm_file(tmp_path):
    X, y = sparse_data(n=150, d=30, seed=13)
    path = tmp_path / "d.svm"
    dump_svmlight(X, y, path)
    return path


@pytest.mark.parametrize("cache", [False, True])
def test_fit_file_equals_fit_on_the_loaded_file(svm_file, cache):
    X, y = load_svmlight(svm_file)
    for make in (lambda: Perceptron(shuffle=False, max_iter=3), pegasos(max_iter=2),
                 lambda: AveragedPerceptron(shuffle=False, max_iter=2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            streamed = fit_file(make(), svm_file, cache=cache, block_bytes=700, n_threads=2)
            assert_same_model(streamed, make().fit(X, y))
    assert (svm_file.parent / "d.svm.hscache").exists() == cache


def test_fit_file_parsed_ahead_is_the_model_and_the_first_error_of_one_thread(tmp_path):
    # Blocks parsed ahead by 1, 2 or 4 threads while the learner consumes: the model of fit
    # on the loaded file, and a worker's failure raised in the consumer at the first bad
    # line of the file (file, line, column), not at a later one another thread found first.
    rng = np.random.default_rng(15)
    rows = [f"{rng.choice([-1, 1])} " + " ".join(f"{j}:{rng.random():.6f}" for j in
                                                 sorted(rng.choice(np.arange(1, 40), 6,
                                                                   replace=False)))
            for _ in range(300)]
    good = tmp_path / "good.svm"
    good.write_text("\n".join(rows) + "\n")
    X, y = load_svmlight(good)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference = Perceptron(shuffle=False, max_iter=1).fit(X, y)
    bad = tmp_path / "bad.svm"
    bad.write_text("\n".join(rows[:150] + ["1 3:1e999"] + rows[150:] + ["1 abc"]) + "\n")
    for n_threads in (1, 2, 4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            streamed = fit_file(Perceptron(shuffle=False, max_iter=1), good, block_bytes=256,
                                n_threads=n_threads)
            assert_same_model(streamed, reference)
            for n_features in (None, 40):  # with a survey pass first, or without
                with pytest.raises(DataFormatError, match=r"bad\.svm:151:3: the feature value"
                                   r" in '3:1e999' is not finite"):
                    fit_file(Perceptron(shuffle=False, max_iter=1), bad, block_bytes=256,
                             n_threads=n_threads, n_features=n_features, zero_based=False,
                             classes=[-1, 1])


def test_fit_file_from_vw_text(tmp_path):
    path = tmp_path / "a.vw"
    rng = np.random.default_rng(14)
    path.write_text("".join(f"{rng.choice([-1, 1])} |f a:{rng.random()!r} b{i % 7} |g c{i % 3}"
                            "\n" for i in range(200)))
    X, y = load_vw(path, n_features=2**10)
    for cache in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            streamed = fit_file(Perceptron(shuffle=False, max_iter=1), path, cache=cache,
                                n_features=2**10,
                                block_bytes=500)
            assert_same_model(streamed, Perceptron(shuffle=False, max_iter=1).fit(X, y))


def test_a_pipe_is_trained_on_in_one_pass_or_refused(svm_file, tmp_path):
    X, y = load_svmlight(svm_file, 30, zero_based=False)
    fifo = tmp_path / "pipe.svm"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(svm_file.read_bytes()))
    writer.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        streamed = fit_file(Perceptron(shuffle=False, max_iter=1), fifo, classes=[-1.0, 1.0],
                            n_features=30,
                            zero_based=False)
        writer.join()
        assert_same_model(streamed, Perceptron(shuffle=False, max_iter=1).fit(X, y))
    with pytest.raises(ValueError, match=r"pipe\.svm is a pipe \(FIFO\), which can be read"
                                         " only once, but training reads it more than once"):
        fit_file(Perceptron(shuffle=False, max_iter=5), fifo, classes=[-1, 1], n_features=30,
                 zero_based=False)


def test_a_perceptron_stream_imports_no_other_learner(tmp_path):
    """Streaming a perceptron imports neither logistic regression (with SciPy's special
    functions), Pegasos nor the experts: start-up time of ``halfspaces train``."""
    import subprocess
    import sys

    path = tmp_path / "d.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    code = ("import sys, warnings\n"
            "warnings.simplefilter('ignore')\n"
            "from halfspaces.linear.perceptron import Perceptron\n"
            "from halfspaces.datasets.stream import fit_file\n"
            f"fit_file(Perceptron(shuffle=False, max_iter=1), {str(path)!r})\n"
            "print(sorted(m for m in ('halfspaces.linear.logistic', 'halfspaces.linear.pegasos',"
            " 'halfspaces.experts._hypotheses', 'scipy.special') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_file_that_grows_during_a_streamed_fit_is_refused(tmp_path, monkeypatch):
    """A line appended while the first pass reads the file: the pass's end sees it."""
    from halfspaces.datasets import stream
    from halfspaces.datasets._fingerprint import FileChanged

    X, y = sparse_data(n=60, d=4)
    path = tmp_path / "grows.svm"
    dump_svmlight(X, y, path)
    monkeypatch.setattr(stream, "iter_blocks", growing(stream.iter_blocks, path))
    with pytest.raises(FileChanged, match=r"grows\.svm changed while it was being trained on"
                                          r" \(its size \(\d[\d,]* bytes, now \d[\d,]*\)"):
        fit_file(Perceptron(max_iter=3, shuffle=False), path, n_features=4,
                 zero_based=False, classes=[-1, 1], block_bytes=64)
