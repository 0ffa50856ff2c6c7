"""A model trained on a CSV file records its columns (header, label, weight, delimiter), and
``predict`` / ``evaluate`` take a later file's columns by name, in any order, or refuse it
clearly; without a header, by position as at training. References: the model's own
``predict`` (Python API) on the columns arranged by hand in the training order."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_cli

from halfspaces import load
from halfspaces.persistence import save

ROWS = np.array([[1, 1.0, 0.0], [1, 2.0, 0.5], [-1, 0.0, 1.0], [-1, 0.5, 2.0],
                 [1, 3.0, 0.5], [-1, 0.5, 3.0]])


def _csv(path, columns, rows, header=True, delimiter=","):
    lines = [delimiter.join(columns)] if header else []
    lines += [delimiter.join(f"{v:g}" for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def trained(tmp_path, capsys):
    """A perceptron trained on y,a,b and its reference predictions of ROWS."""
    data = _csv(tmp_path / "ab.csv", ["y", "a", "b"], ROWS)
    assert run_cli(capsys, "train", data, "--algo", "perceptron", "-o", tmp_path / "m.npz",
                "-q")[0] == 0
    model = load(tmp_path / "m.npz")
    return tmp_path / "m.npz", model.predict(ROWS[:, 1:])


def test_columns_in_another_order_are_taken_by_name(tmp_path, capsys, trained):
    model, expected = trained
    swapped = _csv(tmp_path / "ba.csv", ["b", "z", "y", "a"],
                   np.column_stack([ROWS[:, 2], np.arange(6), ROWS[:, 0], ROWS[:, 1]]))
    code, out, err = run_cli(capsys, "predict", model, swapped)
    assert code == 0, err
    assert np.array_equal(np.array(out.split(), dtype=float), expected)
    assert "column z ignored" in err
    code, out, _ = run_cli(capsys, "evaluate", model, swapped, "--json")
    assert code == 0
    assert f'"accuracy": {np.mean(expected == ROWS[:, 0])}' in out


def test_prediction_without_the_label_column(tmp_path, capsys, trained):
    model, expected = trained
    unlabelled = _csv(tmp_path / "x.csv", ["b", "a"], ROWS[:, [2, 1]])
    code, out, err = run_cli(capsys, "predict", model, unlabelled)
    assert code == 0, err
    assert np.array_equal(np.array(out.split(), dtype=float), expected)
    code, _, err = run_cli(capsys, "evaluate", model, unlabelled)
    assert code == 1
    assert "no label column 'y'; this file's columns: b, a; name the label's column with" \
        " --label-column" in err


def test_a_missing_feature_column_is_refused(tmp_path, capsys, trained):
    model, _ = trained
    short = _csv(tmp_path / "ya.csv", ["y", "a"], ROWS[:, :2])
    code, _, err = run_cli(capsys, "predict", model, short)
    assert code == 1
    assert "ya.csv:1: no column named 'b', a feature of the model (trained on the columns y," \
        " a, b); this file's columns: y, a" in err
    renamed = _csv(tmp_path / "pqr.csv", ["p", "q", "r"], ROWS)
    code, _, err = run_cli(capsys, "evaluate", model, renamed)
    assert code == 1
    assert "the header row names none of the model's columns (y, a, b): p, q, r" in err


def test_the_weight_column_is_recorded(tmp_path, capsys):
    weights = np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0])
    table = np.column_stack([weights, ROWS])
    for header in (True, False):
        data = _csv(tmp_path / "w.csv", ["w", "y", "a", "b"], table, header)
        column = "w" if header else "0"
        assert run_cli(capsys, "train", data, "--algo", "perceptron", "--weight-column", column,
                    "--label-column", "y" if header else "1", "-o", tmp_path / "w.npz",
                    "-q")[0] == 0
        expected = load(tmp_path / "w.npz").predict(ROWS[:, 1:])
        # the training file itself, and the same rows without the weights
        plain = _csv(tmp_path / "p.csv", ["y", "a", "b"], ROWS, header)
        for path in (data, plain):
            code, out, err = run_cli(capsys, "predict", tmp_path / "w.npz", path)
            assert code == 0, err
            assert np.array_equal(np.array(out.split(), dtype=float), expected)


def test_without_a_header_columns_go_by_position_and_delimiter_is_recorded(tmp_path,
                                                                            capsys):
    data = _csv(tmp_path / "d.csv", [], ROWS[:, [1, 2, 0]], header=False, delimiter=";")
    assert run_cli(capsys, "train", data, "--algo", "perceptron", "--label-column", "-1",
                "--delimiter", ";", "-o", tmp_path / "m.npz", "-q")[0] == 0
    expected = load(tmp_path / "m.npz").predict(ROWS[:, 1:])
    again = tmp_path / "again.txt"  # no extension: the model's format, csv
    again.write_text(data.read_text())
    code, out, err = run_cli(capsys, "predict", tmp_path / "m.npz", again)
    assert code == 0, err
    assert np.array_equal(np.array(out.split(), dtype=float), expected)


def test_a_model_file_without_the_record_reads_by_position(tmp_path, capsys, trained):
    model, expected = trained
    older = tmp_path / "older.npz"
    save(load(model), older, metadata={"format": "csv", "zero_based": None, "n_features": 2})
    data = _csv(tmp_path / "ab2.csv", ["y", "a", "b"], ROWS)
    code, out, _ = run_cli(capsys, "predict", older, data)
    assert code == 0
    assert np.array_equal(np.array(out.split(), dtype=float), expected)


@pytest.mark.parametrize("change, message", [
    ({"version": 2}, "has version 2, and this halfspaces reads version 1"),
    ({"label": 3}, "has label 3, not a column index below 3"),
    ({"header": ["y", "a"]}, "has a header that is not a list of 3 strings"),
    ({"n_fields": 4}, "has 4 fields, but the model has 2 features"),
    ({"extra": 1}, "is malformed"),
])
def test_a_damaged_record_is_refused(tmp_path, capsys, trained, change, message):
    model, _ = trained
    _, metadata = load(model, with_metadata=True)
    metadata["csv"] = {**metadata["csv"], **change}
    bad = tmp_path / "bad.npz"
    save(load(model), bad, metadata=metadata)
    code, _, err = run_cli(capsys, "predict", bad, tmp_path / "ab.csv")
    assert code == 1
    assert f"bad.npz: the metadata's csv entry {message}" in err
