"""The demo runs end to end (quick mode), reports every bound as holding, writes its report."""

from halfspaces import demo


def test_quick_demo(tmp_path, capsys):
    status = demo.run(out_dir=tmp_path / "out", quick=True)
    out = capsys.readouterr().out
    assert status == 0
    assert "VIOLATED" not in out and "every bound held" in out
    assert "Perceptron" in out and "(R/gamma)^2" in out
    report = (tmp_path / "out" / "demo-report.txt").read_text()
    assert report.splitlines()[0].startswith("halfspaces demo")
