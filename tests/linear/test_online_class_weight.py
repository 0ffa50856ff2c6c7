"""``class_weight`` in the perceptron family and Pegasos: each row's weight is its
``sample_weight`` times its class's weight, and that weight scales its update.

Oracles: the same learner given those products as ``sample_weight`` (whose rule the
``*_weights.py`` files test against NumPy references), scikit-learn's
``compute_class_weight`` for ``"balanced"``, and scikit-learn's refusal of ``"balanced"`` in
``SGDClassifier.partial_fit`` for the streaming methods.
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import weighted_rows
from sklearn.utils.class_weight import compute_class_weight
from strategies import OneByOne
from test_model_file_arrays import _rewrite

import halfspaces
from halfspaces import AveragedPerceptron, PegasosSVC, Perceptron, VotedPerceptron
from halfspaces.online import play

LEARNERS = [Perceptron, AveragedPerceptron, VotedPerceptron, PegasosSVC]
pytestmark = [pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
              pytest.mark.filterwarnings("ignore:.*majority class:UserWarning")]


def _make(cls, **params):
    return cls(max_iter=3, random_state=0, **params)


def _data(n_classes=2, n=36, seed=0):
    """Rows with labels 'a', 'b' (, 'c'), and example weights with a 0 and fractions."""
    X, y_pm, s = weighted_rows(n=n, d=4, seed=seed)
    rng = np.random.default_rng(seed + 1)
    labels = np.array(["a", "b", "c"])
    y = labels[(y_pm > 0) + (rng.random(n) < 0.3) * (n_classes - 2)]
    return X, y, s


def _factors(y, class_weight):
    return np.array([class_weight.get(label, 1.0) for label in y])


def assert_same_model(a, b):
    """Every fitted attribute of ``a`` and ``b`` equal, bit for bit."""
    params = a.get_params()
    fitted = [k for k in vars(a) if k not in params and not k.startswith("_rng")]
    assert fitted and sorted(fitted) == sorted(k for k in vars(b) if k not in params
                                               and not k.startswith("_rng"))
    for key in fitted:
        value = getattr(a, key)
        if isinstance(value, np.ndarray | list | float | int | str | bool):
            np.testing.assert_array_equal(value, getattr(b, key), err_msg=key)


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_class_weight_is_that_weight_on_the_class_rows(cls, sparse, n_classes):
    X, y, s = _data(n_classes)
    X = sp.csr_matrix(X) if sparse else X
    class_weight = {"a": 2.5, "c": 0.5} if n_classes == 3 else {"b": 0.25}
    for sample_weight in (None, s):
        by_class = _make(cls, class_weight=class_weight).fit(X, y, sample_weight=sample_weight)
        factors = _factors(y, class_weight)
        by_row = _make(cls).fit(X, y, sample_weight=factors if sample_weight is None
                                else sample_weight * factors)
        assert_same_model(by_class, by_row)


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_balanced_is_scikit_learns_compute_class_weight(cls, sparse):
    X, y, _ = _data(3)
    X = sp.csr_matrix(X) if sparse else X
    classes = np.unique(y)
    weights = dict(zip(classes, compute_class_weight("balanced", classes=classes, y=y),
                       strict=True))
    balanced = _make(cls, class_weight="balanced").fit(X, y)
    assert_same_model(balanced, _make(cls).fit(X, y, sample_weight=_factors(y, weights)))


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_partial_fit_and_learn_one_apply_a_dict_to_each_block(cls, sparse):
    X, y, s = _data(2)
    X = sp.csr_matrix(X) if sparse else X
    class_weight, classes = {"a": 3.0}, ["a", "b"]
    by_class, by_row, by_one = (_make(cls, class_weight=class_weight), _make(cls),
                                _make(cls, class_weight=class_weight))
    for block in (slice(0, 20), slice(20, None)):
        by_class.partial_fit(X[block], y[block], classes=classes, sample_weight=s[block])
        by_row.partial_fit(X[block], y[block], classes=classes,
                           sample_weight=s[block] * _factors(y[block], class_weight))
    assert_same_model(by_class, by_row)
    # learn_one is a partial_fit of one row: its class's weight applies there too
    factors = _factors(y, class_weight)
    by_row = _make(cls).partial_fit(X[:1], y[:1], classes=classes, sample_weight=factors[:1])
    by_one.partial_fit(X[:1], y[:1], classes=classes)
    for t in range(1, X.shape[0]):
        by_one.learn_one(X[t], y[t])
        by_row.partial_fit(X[t : t + 1], y[t : t + 1], sample_weight=factors[t : t + 1])
    np.testing.assert_array_equal(by_one.decision_function(X), by_row.decision_function(X))
    assert by_one.t_ == by_row.t_ and by_one.n_mistakes_ == by_row.n_mistakes_


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_the_online_game_applies_a_dict_round_by_round(cls):
    X, y, _ = _data(2)
    class_weight = {"b": 0.5}
    learner = _make(cls, class_weight=class_weight)
    transcript = play(learner, X, y)
    ref = _make(cls).partial_fit(X, y, classes=["a", "b"],
                                 sample_weight=_factors(y, class_weight))
    np.testing.assert_array_equal(learner.decision_function(X), ref.decision_function(X))
    assert learner.t_ == ref.t_ and learner.n_mistakes_ == ref.n_mistakes_
    assert learner.n_iter_ == 0  # the game is no partial_fit call
    # the transcript of the generic round-by-round game (score_one, then learn_one); Pegasos
    # resolves its first step on the whole game there, on the first row here: give it
    same_step = {"eta0": learner.eta0_} if cls is PegasosSVC else {}
    generic = play(OneByOne(_make(cls, class_weight=class_weight, **same_step),
                            np.array(["a", "b"]), X.shape[1]), X, y)
    np.testing.assert_array_equal(transcript.scores, generic.scores)
    np.testing.assert_array_equal(transcript.mistakes, generic.mistakes)


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_balanced_is_refused_where_only_a_block_is_seen(cls):
    X, y, _ = _data(2)
    name = cls.__name__
    message = (rf"^{name}.partial_fit: 'class_weight' must be None or a dict \{{label:"
               r" weight\} in partial_fit \('balanced' needs the class frequencies of the"
               r" whole stream, which one block does not give\); got 'balanced'\. Compute"
               r" them on a sample of the labels, weights ="
               r" sklearn\.utils\.class_weight\.compute_class_weight\('balanced',"
               r" classes=classes, y=y_sample\), and pass"
               r" class_weight=dict\(zip\(classes, weights\)\)\.$")
    with pytest.raises(ValueError, match=message):
        _make(cls, class_weight="balanced").partial_fit(X, y, classes=["a", "b"])
    with pytest.raises(ValueError, match=message):
        play(_make(cls, class_weight="balanced"), X, y)
    fitted = _make(cls, class_weight="balanced").fit(X, y)
    before = fitted.decision_function(X)
    with pytest.raises(ValueError, match=message):
        fitted.partial_fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(X), before)  # nothing learned


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("class_weight, message", [
    ({"b": -1.0}, r": 'class_weight' must be a dict \{label: weight >= 0\}; got"
                  r" \{'b': -1.0\}"),
    ({"b": float("nan")}, r": 'class_weight' must be a dict \{label: weight >= 0\}"),
    ("balance", r": 'class_weight' must be one of None, 'balanced' or a dict"),
    ({"z": 1.0}, r"\.fit: class_weight names the label 'z', which is not among the classes"
                 r" \['a', 'b'\]; use the labels of y\."),
    ({"a": 0.0, "b": 0.0}, r"\.fit: every example weight \(sample_weight times class_weight\)"
                           r" is zero, so there is nothing to learn from"),
])
def test_bad_class_weights_are_refused_with_the_fix(cls, class_weight, message):
    X, y, _ = _data(2)
    with pytest.raises(ValueError, match=rf"^{cls.__name__}{message}"):
        _make(cls, class_weight=class_weight).fit(X, y)
    if isinstance(class_weight, dict) and "z" in class_weight:
        with pytest.raises(ValueError, match=rf"^{cls.__name__}\.partial_fit"
                                             + message.removeprefix(r"\.fit")):
            _make(cls, class_weight=class_weight).partial_fit(X, y, classes=["a", "b"])


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_no_class_weight_keeps_the_unweighted_path(cls, monkeypatch):
    # no sample_weight and class_weight=None: no weight array is made (the compiled passes
    # then run their plain update)
    import sys

    import halfspaces._weights

    def refuse(*args, **kwargs):
        raise AssertionError("example weights computed on the unweighted path")

    original = halfspaces._weights.example_weights
    for module in [m for name, m in sys.modules.items() if name.startswith("halfspaces")]:
        if getattr(module, "example_weights", None) is original:  # each module's own name
            monkeypatch.setattr(module, "example_weights", refuse)
    X, y, _ = _data(3)
    est = _make(cls).fit(X, y)
    est.partial_fit(X, y)
    est.learn_one(X[0], y[0])
    with pytest.raises(AssertionError, match="unweighted path"):
        _make(cls, class_weight={"a": 1.0}).fit(X, y)


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_a_model_file_keeps_its_class_weight_and_old_files_load(cls, tmp_path):
    X, y, _ = _data(2)
    est = _make(cls, class_weight={"a": 2.0}).fit(X, y)
    path = tmp_path / "m.hs"
    est.save(path)
    loaded = halfspaces.load(path)
    assert loaded.get_params()["class_weight"] == {"a": 2.0}
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    # a file written before the parameter existed: no class_weight among its parameters
    _rewrite(path, lambda meta: meta["tree"]["params"].pop("class_weight"))
    old = halfspaces.load(path)
    assert old.class_weight is None
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("algo, cls", [("perceptron", Perceptron), ("pegasos", PegasosSVC)])
def test_the_cli_passes_class_weight_with_set(algo, cls, tmp_path, capsys):
    # no option of its own: --set NAME=VALUE passes it, as other parameters without one
    from sklearn.datasets import dump_svmlight_file

    from halfspaces import cli
    from halfspaces.datasets import load_svmlight

    X, y, _ = weighted_rows(n=30, d=3, seed=2)
    dump_svmlight_file(X, y, str(tmp_path / "d.svm"))
    model = tmp_path / "m.hs"
    assert cli.main(["train", str(tmp_path / "d.svm"), "--algo", algo, "--random-state", "0",
                     "--set", "class_weight=balanced", "-o", str(model), "-q"]) == 0
    capsys.readouterr()
    X_file, y_file = load_svmlight(tmp_path / "d.svm")
    trained = halfspaces.load(model)
    assert trained.class_weight == "balanced"
    ref = cls(class_weight="balanced", random_state=0).fit(X_file, y_file)
    np.testing.assert_array_equal(trained.coef_, ref.coef_)
    np.testing.assert_array_equal(trained.intercept_, ref.intercept_)


def test_pegasos_passes_scikit_learns_class_weight_check_given_its_epochs():
    # check_class_weight_classifiers, which PegasosSVC declares failing: it sets n_iter=100
    # for 100 epochs, as scikit-learn's old SGD named them; here n_iter counts steps
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    X, y = make_blobs(centers=2, random_state=0, cluster_std=20)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    heavy = {0: 1000, 1: 0.0001}

    def share_of_class_0(**params):
        clf = PegasosSVC(class_weight=heavy, n_iter_no_change=20, random_state=0, **params)
        return np.mean(clf.fit(X_train, y_train).predict(X_test) == 0)

    assert share_of_class_0(max_iter=100) > 0.87  # what the check asks, in 100 epochs
    assert share_of_class_0(max_iter=1000, n_iter=100) <= 0.87  # the check's 100 steps


def test_a_cli_class_weight_dict_names_numeric_labels(tmp_path, capsys):
    # JSON keys are strings; a svmlight file's labels are numbers: "1" names the label 1.0
    # (before: "class_weight names the label '1', which is not among the classes [-1.0, 1.0]")
    from sklearn.datasets import dump_svmlight_file

    from halfspaces import cli
    from halfspaces.datasets import load_svmlight

    X, y, _ = weighted_rows(n=30, d=3, seed=2)
    dump_svmlight_file(X, y, str(tmp_path / "d.svm"))
    model = tmp_path / "m.hs"
    assert cli.main(["train", str(tmp_path / "d.svm"), "--algo", "perceptron",
                     "--random-state", "0", "--set", 'class_weight={"1": 3, "-1": 0.5}',
                     "-o", str(model), "-q"]) == 0, capsys.readouterr().err
    X_file, y_file = load_svmlight(tmp_path / "d.svm")
    trained = halfspaces.load(model)
    assert trained.class_weight == {1.0: 3.0, -1.0: 0.5}
    ref = Perceptron(class_weight={1.0: 3.0, -1.0: 0.5}, random_state=0).fit(X_file, y_file)
    np.testing.assert_array_equal(trained.coef_, ref.coef_)
    np.testing.assert_array_equal(trained.intercept_, ref.intercept_)


@pytest.mark.parametrize("data, given, expected", [
    ("d.tsv", '{"1": 3}', {"1": 3}),  # label<TAB>text: labels are strings
    ("d.svm", '{"1": 3}', {1.0: 3}),
    ("d.csv", '{"1": 3}', {1.0: 3}),
    ("d.svm", '{"spam": 3}', {"spam": 3}),  # not a number: as given (refused at fit)
])
def test_a_cli_class_weight_dict_keeps_text_labels_as_strings(data, given, expected):
    from halfspaces.cli._plan import data_source, estimator_spec

    args = argparse.Namespace(algo="perceptron", data=data, format=None,
                              set=[f"class_weight={given}"])
    spec = estimator_spec(args, data_source(args))
    assert spec.params["class_weight"] == expected
