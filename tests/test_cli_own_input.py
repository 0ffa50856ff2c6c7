"""No command writes over its own input: an output that is the same file as DATA or MODEL
(by any spelling, a symbolic link or a hard link) is refused before any work, and both
files are left byte for byte as they were."""

from __future__ import annotations

import os

import pytest

from halfspaces import cli
from halfspaces.datasets.bundled import BUNDLED, _path

DATA = "y,a,b\n1,1,0\n1,2,0.5\n-1,0,1\n-1,0.5,2\n"


def _spellings(tmp_path, target):
    """Other names of ``target``: absolute, relative with '..', a symbolic and a hard link."""
    os.symlink(target, tmp_path / "soft")
    os.link(target, tmp_path / "hard")
    return {"absolute": str(target),
            "relative": os.path.join("..", tmp_path.name, target.name),
            "symlink": str(tmp_path / "soft"), "hardlink": str(tmp_path / "hard")}


@pytest.fixture
def files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "d.csv"
    data.write_text(DATA)
    assert cli.main(["train", str(data), "--algo", "perceptron", "-o", "m.npz", "-q"]) == 0
    capsys.readouterr()
    return data, tmp_path / "m.npz"


@pytest.mark.parametrize("spelling", ["absolute", "relative", "symlink", "hardlink"])
@pytest.mark.parametrize("command, target, name", [
    ("train {data} --algo perceptron -o {out}", "data", "DATA"),
    ("train {data} --algo perceptron --checkpoint-every 1 -o {out}", "data", "DATA"),
    ("predict {model} {data} -o {out}", "data", "DATA"),
    ("predict {model} {data} -o {out}", "model", "MODEL"),
    ("plot boundary {data} -o {out}", "data", "DATA"),
    ("cv {data} --C 1,10 -o {out}", "data", "DATA"),
])
def test_an_output_that_is_an_input_is_refused(files, capsys, command, target, name,
                                               spelling):
    data, model = files
    before = {p: p.read_bytes() for p in (data, model)}
    out = _spellings(data.parent, data if target == "data" else model)[spelling]
    argv = command.format(data=data, model=model, out=out).split()
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"-o {out} is the same file as {name}" in err
    assert "would destroy the command's own input" in err
    assert {p: p.read_bytes() for p in (data, model)} == before


def test_the_checkpoint_of_train_is_not_its_data(files, capsys):
    data, _ = files
    source = data.parent / "x.checkpoint"
    source.write_text(DATA)
    assert cli.main(["train", str(source), "--format", "csv", "--algo", "perceptron",
                     "--checkpoint-every", "1", "-o", str(data.parent / "x")]) == 1
    assert "the checkpoint" in capsys.readouterr().err
    assert source.read_text() == DATA


def test_data_refuses_to_write_over_the_bundled_file(capsys):
    bundled = str(_path(BUNDLED["heart_scale"].file))
    with open(bundled, "rb") as f:
        before = f.read()
    assert cli.main(["data", "heart_scale", "-o", bundled]) == 1
    assert "the bundled set heart_scale" in capsys.readouterr().err
    with open(bundled, "rb") as f:
        assert f.read() == before


def test_other_outputs_and_devices_are_written(files, capsys):
    data, model = files
    assert cli.main(["predict", str(model), str(data), "-o", os.devnull]) == 0
    assert cli.main(["predict", str(model), str(data), "-o", "p.txt"]) == 0
    assert (data.parent / "p.txt").read_text().split() == ["1", "1", "-1", "-1"]
