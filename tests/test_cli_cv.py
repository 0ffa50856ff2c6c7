"""``halfspaces cv``: the held-out scores of cold fits on the same stratified folds, the best
refitted with -o."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold

from halfspaces import SVC, cli, load


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _data(tmp_path, n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)) + 0.2, 3)
    y = np.where(X[:, 0] + 0.5 * X[:, 2] + 0.6 * rng.normal(size=n) > 1.0, 1, -1)
    path = tmp_path / "d.svm"
    with open(path, "w") as f:
        for x, label in zip(X, y, strict=True):
            f.write(f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(x))
                    + "\n")
    return str(path), X, y


def test_cv_scores_are_those_of_cold_fits_and_o_refits_the_best(tmp_path, capsys):
    path, X, y = _data(tmp_path)
    model = tmp_path / "best.model"
    Cs = [0.01, 0.1, 1.0]
    code, out, err = _run(capsys, "cv", path, "--algo", "svm", "--C", "0.01,0.1,1", "--folds",
                          "4", "--scoring", "balanced_accuracy", "--random-state", "2",
                          "--set", "class_weight=balanced", "-o", model, "--json")
    assert code == 0, err
    result = json.loads(out)
    expected = np.empty((4, 3))
    folds = StratifiedKFold(4, shuffle=True, random_state=2).split(X, y)
    for k, (train, test) in enumerate(folds):
        for j, C in enumerate(Cs):
            fit = SVC(C=C, class_weight="balanced", random_state=2).fit(X[train], y[train])
            expected[k, j] = balanced_accuracy_score(y[test], fit.predict(X[test]))
    np.testing.assert_allclose(result["scores"], expected, atol=1 / 35)
    assert result["best"] == Cs[int(np.argmax(result["mean"]))]
    assert result["max_relative_duality_gap"] <= 1e-6
    best = SVC(C=result["best"], class_weight="balanced", random_state=2).fit(X, y)
    np.testing.assert_allclose(load(model).decision_function(X), best.decision_function(X),
                               atol=1e-4)


def test_the_table_marks_the_best(tmp_path, capsys):
    path, _, _ = _data(tmp_path, seed=1)
    code, out, err = _run(capsys, "cv", path, "--C", "0.01,1", "--folds", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["C", "mean", "std", "max", "gap"]
    marked = [line for line in lines[2:4] if line.endswith("<- best")]
    assert len(marked) == 1 and "best" in lines[4]


@pytest.mark.parametrize(("argv", "message"), [
    (["--C", "1", "--lam", "0.1"], "cv searches one parameter"),
    (["--algo", "pegasos", "--C", "1,2"], "--C does not apply to --algo pegasos"),
    (["--algo", "svm"], "cv searches one parameter: give its values"),
])
def test_what_cv_refuses(tmp_path, capsys, argv, message):
    path, _, _ = _data(tmp_path, n=40, seed=2)
    code, _, err = _run(capsys, "cv", path, *argv)
    assert code == 1 and message in err


def test_a_list_that_is_not_numbers_is_a_usage_error(tmp_path, capsys):
    path, _, _ = _data(tmp_path, n=40, seed=3)
    with pytest.raises(SystemExit) as stop:
        cli.main(["cv", path, "--C", "1,x"])
    assert stop.value.code == 2
    assert "expected numbers separated by commas" in capsys.readouterr().err
