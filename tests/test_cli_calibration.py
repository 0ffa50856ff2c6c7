"""The command line's --probability, predict --proba, --early-stopping and the held-out loss
of train, against the library called directly (whose own tests check it against scikit-learn
and NumPy references)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from strategies import make_noisy
from test_cli import _run, _write_svmlight

from halfspaces import SVC, Perceptron

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture
def data(tmp_path):
    X, y01 = make_noisy(60, 3, 0, noise=0.5)
    y = np.where(y01 == 1, 1, -1)
    return X, y, _write_svmlight(tmp_path / "train.svm", X, y)


def test_predict_proba_writes_platts_probabilities(tmp_path, capsys, data):
    X, y, path = data
    model = tmp_path / "m.npz"
    code, _, _ = _run(capsys, "train", path, "--algo", "svm", "--probability",
                      "--random-state", "0", "-o", model)
    assert code == 0
    code, out, _ = _run(capsys, "predict", model, path, "--proba")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "labels -1 1"
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    expected = SVC(probability=True, random_state=0).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(rows[:, 1:], expected, rtol=1e-5)
    np.testing.assert_array_equal(rows[:, 0], np.where(expected[:, 1] > 0.5, 1, -1))


def test_predict_proba_of_a_model_without_probabilities_says_how(tmp_path, capsys, data):
    _, _, path = data
    model = tmp_path / "m.npz"
    assert _run(capsys, "train", path, "--algo", "svm", "-o", model)[0] == 0
    code, _, err = _run(capsys, "predict", model, path, "--proba")
    assert code != 0
    assert "--proba: " in err and "has no probabilities; train it with --probability" in err


def test_train_reports_the_held_out_loss_by_epoch(tmp_path, capsys, data):
    X, y, path = data
    args = ("train", path, "--algo", "perceptron", "--no-shuffle", "--early-stopping",
            "--n-iter-no-change", "2", "--validation-fraction", "0.2", "--random-state", "3",
            "-o", tmp_path / "m.npz")
    code, out, _ = _run(capsys, *args, "--json")
    assert code == 0
    reference = Perceptron(shuffle=False, early_stopping=True, n_iter_no_change=2,
                           validation_fraction=0.2, random_state=3).fit(X, y)
    assert json.loads(out)["held_out_loss"] == [1 - s for s in reference.validation_scores_]
    code, out, _ = _run(capsys, *args)
    assert "held-out zero-one loss by epoch " in out
