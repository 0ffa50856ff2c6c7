"""A CSV file whose extension names no format is read as svmlight (the default): its first
line's error says to pass --format csv, when streaming and when reading it whole."""

from __future__ import annotations

import pytest

from halfspaces import cli


@pytest.mark.parametrize("algo", [["--algo", "logistic"], ["--algo", "perceptron",
                                                           "--no-shuffle"]])
def test_comma_separated_values_read_as_svmlight_advise_format_csv(tmp_path, capsys, algo):
    data = tmp_path / "ionosphere.data"
    data.write_text("1,0,0.99539,-0.05889,g\n1,0,1,-0.18829,b\n")
    code = cli.main(["train", str(data), *algo, "-o", str(tmp_path / "m.hs")])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{data}:1:1: expected a label" in err
    assert "; the line looks like comma-separated values: pass --format csv" in err
    assert cli.main(["train", str(data), *algo, "--format", "csv", "--label-column", "-1",
                     "-o", str(tmp_path / "m.hs")]) == 0, capsys.readouterr().err


def test_a_first_field_that_is_no_number_is_tagged_as_a_label_error(tmp_path):
    from halfspaces.datasets import DataFormatError, load_svmlight

    data = tmp_path / "d.svm"
    data.write_text("+1 1:0.5\nyes 1:0.5\n")
    with pytest.raises(DataFormatError, match="expected a label") as err:
        load_svmlight(data)
    assert err.value.reason == "label" and err.value.line == 2
