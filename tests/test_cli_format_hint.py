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


@pytest.mark.parametrize(("line", "match", "reason"), [
    ("yes 1:0.5", "expected a label", "label"),  # a first field that is no number
    ("-1 2", "expected 'index:value', got '2'", "pair"),  # a field without a colon
])
def test_the_errors_the_command_rewords_are_tagged(tmp_path, line, match, reason):
    from halfspaces.datasets import DataFormatError, load_svmlight

    data = tmp_path / "d.svm"
    data.write_text(f"+1 1:0.5\n{line}\n")
    with pytest.raises(DataFormatError, match=match) as err:
        load_svmlight(data)
    assert err.value.reason == reason and err.value.line == 2


@pytest.mark.parametrize("algo", [["--algo", "svm"], ["--algo", "perceptron", "--no-shuffle"],
                                  ["--algo", "perceptron", "--no-shuffle", "--n-features", "9",
                                   "--one-based"]])
def test_vw_lines_read_as_svmlight_advise_format_vw(tmp_path, capsys, algo):
    """A VW file named .dat (rcv1_small.dat of ../shared/data) read as svmlight: in memory,
    streamed, and in one read with the columns given."""
    data = tmp_path / "rcv1.dat"
    data.write_text("-1 |f 1:0.5 3:0.25\n1 |f 2:0.5\n")
    code = cli.main(["train", str(data), *algo, "-o", str(tmp_path / "m.hs")])
    err = capsys.readouterr().err
    assert code == 1
    assert (f"{data}:1:4: expected 'index:value', got '|f'; the line looks like Vowpal"
            " Wabbit's format ('|' opens a namespace): pass --format vw") in err
    assert cli.main(["train", str(data), *algo, "--format", "vw", "-o",
                     str(tmp_path / "m.hs")]) == 0, capsys.readouterr().err
