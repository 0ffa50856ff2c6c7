"""A parameter that ``--algo`` does not take is named as the user gave it (an option, or
``--set NAME=...``), with what the algorithm takes instead."""

from __future__ import annotations

import numpy as np
import pytest

from halfspaces import cli
from halfspaces.datasets import dump_svmlight


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    path = tmp_path / "d.svm"
    dump_svmlight(X, np.where(X[:, 0] > 0, 1.0, -1.0), path)
    return path


@pytest.mark.parametrize(("argv", "wanted"), [
    (["--algo", "halving", "--set", "foo=1"],
     "--set foo=... does not apply to --algo halving; HalvingClassifier takes no other"
     " parameter (its hypotheses come from --hypotheses and --n-hypotheses)"),
    (["--algo", "halving", "--set", "class_weight=balanced"],
     "--set class_weight=... does not apply to --algo halving"),
    (["--algo", "halving", "--n-jobs", "2"], "--n-jobs does not apply to --algo halving"),
    (["--algo", "perceptron", "--set", "foo=1"],
     "--set foo=... does not apply to --algo perceptron; Perceptron takes class_weight,"),
    (["--algo", "perceptron", "--lam", "0.1"],
     "--lam does not apply to --algo perceptron; Perceptron takes class_weight,"),
])
def test_the_refused_parameter_is_named_as_given(data, tmp_path, capsys, argv, wanted):
    code = cli.main(["train", str(data), "-o", str(tmp_path / "m.hs"), *argv])
    err = capsys.readouterr().err
    assert code == 1 and wanted in err, err
    assert "--class-weight" not in err and "--foo" not in err  # options that do not exist
