"""The course's commands: play --passes / --trace, shatter, plot update and --columns."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from helpers import separable
from scipy.optimize import linprog, nnls

from halfspaces import cli


def _write_svmlight(path, X, y):
    with open(path, "w") as f:
        for x, label in zip(X, y, strict=True):
            f.write(f"{int(label)} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in
                                               enumerate(x) if v != 0) + "\n")
    return str(path)


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _cycling_perceptron(X, y, passes, intercept):
    """Rosenblatt's perceptron cycling over the rows in order: mistakes per pass, and per
    round (w_t, b_t, score), stopping after a pass without a mistake."""
    w, b, per_pass, rounds = np.zeros(X.shape[1]), 0.0, [], []
    for _ in range(passes):
        m = 0
        for x, label in zip(X, y, strict=True):
            score = w @ x + b
            rounds.append((w.copy(), b, score))
            if label * score <= 0:
                w, b, m = w + label * x, b + label * intercept, m + 1
        per_pass.append(m)
        if m == 0:
            break
    return per_pass, rounds, w, b


@pytest.mark.parametrize("intercept", [True, False])
def test_play_passes_cycles_until_no_mistake_as_the_reference(tmp_path, capsys, intercept):
    X, y = separable(n=40, d=3, seed=5, margin=0.1)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    flag = "--fit-intercept" if intercept else "--no-fit-intercept"
    code, out, err = _run(capsys, "play", data, "--passes", 50, flag, "--json")
    assert code == 0, err
    res = json.loads(out)
    per_pass, _, w, b = _cycling_perceptron(X, y, 50, float(intercept))
    assert [e["mistakes"] for e in res["epochs"]] == per_pass
    assert res["converged"] and per_pass[-1] == 0 and len(per_pass) > 1
    np.testing.assert_allclose(res["w"], w)
    assert res["b"] == (b if intercept else None)
    # Novikoff bounds the mistakes of all the passes together
    assert res["n_mistakes"] == sum(per_pass) <= res["bound"]["novikoff_bound"]
    code, text, _ = _run(capsys, "play", data, "--passes", 50, flag)
    assert f"converged: pass {len(per_pass)} made no mistake" in text
    assert f"mistakes {sum(per_pass)} <=" in text


def test_play_passes_on_inseparable_data_never_converges(tmp_path, capsys):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    data = _write_svmlight(tmp_path / "xor.svm", X, [1, 1, -1, -1])
    code, out, err = _run(capsys, "play", data, "--passes", 7)
    assert code == 0, err
    per_pass, _, _, _ = _cycling_perceptron(X, np.array([1, 1, -1, -1]), 7, 1.0)
    assert len(per_pass) == 7 and min(per_pass) > 0
    assert "not converged: every one of the 7 passes" in out
    assert "not linearly separable" in out


def test_play_trace_gives_each_round_as_the_reference(tmp_path, capsys):
    X, y = separable(n=15, d=2, seed=2, margin=0.05)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, err = _run(capsys, "play", data, "--trace", "--passes", 3, "--json")
    assert code == 0, err
    trace = json.loads(out)["trace"]
    per_pass, rounds, _, _ = _cycling_perceptron(X, y, 3, 1.0)
    assert len(trace) == len(rounds) == 15 * len(per_pass)
    for r, (w, b, score) in zip(trace, rounds, strict=True):
        np.testing.assert_allclose(r["w"], w)
        assert r["b"] == pytest.approx(b) and r["score"] == pytest.approx(score)
        x = np.zeros(2)  # svmlight is read as CSR: x_t is {column: value} of its non-zeros
        x[[int(j) for j in r["x"]]] = list(r["x"].values())
        np.testing.assert_allclose(x, X[r["row"]])
        assert r["mistake"] == (y[r["row"]] * score <= 0)
    code, text, _ = _run(capsys, "play", data, "--trace")
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["t", "row", "y_t"] and len(lines) == 16


def test_play_trace_of_a_learner_without_weights(tmp_path, capsys):
    X, y = separable(n=6, d=2, seed=1)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, err = _run(capsys, "play", data, "--trace", "--algo", "kernel-perceptron",
                          "--json")
    assert code == 0, err
    assert all(r["w"] is None for r in json.loads(out)["trace"])


def _separable_by_lp(points, labels):
    """An independent LP: is there (w, b) with y_i (w.x_i + b) >= 1?"""
    A = -labels[:, None] * np.hstack([points, np.ones((len(points), 1))])
    res = linprog(np.zeros(points.shape[1] + 1), A_ub=A, b_ub=-np.ones(len(points)),
                  bounds=[(None, None)] * (points.shape[1] + 1), method="highs")
    return res.status == 0


def _in_hull(points, z):
    weights, residual = nnls(np.vstack([points.T, np.ones(len(points))]), np.append(z, 1.0))
    return residual < 1e-8


@pytest.mark.parametrize("points, shattered", [
    ([[0, 0], [1, 0], [0, 1]], True),
    ([[0, 0], [1, 1], [1, 0], [0, 1]], False),
    ([[0, 0], [1, 1], [2, 2]], False),          # collinear: not shattered
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], True),
    ([[0.3, 0.1], [2, 0], [-1, 3], [0, -2], [4, 4]], False),
])
def test_shatter_against_an_independent_lp(capsys, points, shattered):
    points = np.asarray(points, dtype=float)
    args = [",".join(map(str, p)) for p in points]
    code, out, err = _run(capsys, "shatter", "--json", "--", *args)  # -- before -1,3
    assert code == 0, err
    res = json.loads(out)
    assert res["shattered"] is shattered and res["vc_dimension"] == points.shape[1] + 1
    if not shattered:
        labels = np.array(res["failing_labelling"], dtype=float)
        assert not _separable_by_lp(points, labels)
        radon = res["radon"]
        z = np.array(radon["point"])
        assert _in_hull(points[radon["positive"]], z) and _in_hull(points[radon["negative"]], z)
        assert sorted(radon["positive"] + radon["negative"]) == list(range(len(points)))
    code, text, _ = _run(capsys, "shatter", "--", *args)
    assert ("shattered     yes" in text) is shattered
    assert ("Radon partition" in text) is (not shattered)


def test_shatter_reads_a_file_and_reports_bad_points(tmp_path, capsys):
    f = tmp_path / "p.txt"
    f.write_text("# a square\n0 0\n1 1\n1,0\n\n0 1\n")
    code, out, _ = _run(capsys, "shatter", f, "--no-fit-intercept", "--json")
    assert code == 0 and json.loads(out)["shattered"] is False
    assert json.loads(out)["vc_dimension"] == 2
    code, _, err = _run(capsys, "shatter", "0,0", "1,x")
    assert code == 1 and "point '1,x'" in err and "numbers" in err
    code, _, err = _run(capsys, "shatter", "0,0", "1,0,2")
    assert code == 1 and "same number" in err
    f.write_text("0 0\n1 nan\n")
    code, _, err = _run(capsys, "shatter", f)
    assert code == 1 and f"{f}:2" in err and "finite" in err


def test_plot_update_and_columns(tmp_path, capsys):
    X, y = separable(n=30, d=2, seed=3)
    wide = np.column_stack([X[:, 0], np.zeros(30) + 7.0, X[:, 1]])
    data = _write_svmlight(tmp_path / "wide.svm", wide, y)
    png = tmp_path / "u.png"
    code, _, err = _run(capsys, "plot", "update", data, "-o", png)
    assert code == 1 and "--columns I,J" in err and "has 3" in err
    assert not png.exists()
    for kind in ("update", "max-margin", "boundary"):
        code, _, err = _run(capsys, "plot", kind, data, "--columns", "0,2", "-o", png)
        assert code == 0, err
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = _run(capsys, "plot", "update", data, "--columns", "0,3", "-o", png)
    assert code == 1 and "0 to 2" in err
    code, _, err = _run(capsys, "plot", "mistakes", data, "--columns", "0,2", "-o", png)
    assert code == 1 and "uses every feature" in err
    with pytest.raises(SystemExit):
        cli.main(["plot", "update", data, "--columns", "1,1", "-o", str(png)])
    assert "must differ" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["u.png", "wide.svm"]


def test_plot_update_draws_the_library_example(tmp_path, capsys, monkeypatch):
    from halfspaces import plotting

    X, y = separable(n=30, d=2, seed=3)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    drawn = []
    monkeypatch.setattr(plotting, "plot_perceptron_update",
                        lambda w, x, label, ax: drawn.append((w, x, label)))
    code, _, err = _run(capsys, "plot", "update", data, "--mistake", 1, "-o", tmp_path / "u.png")
    assert code == 0, err
    # the reference: the weights before the perceptron's second mistake (through the origin)
    w, mistakes = np.zeros(2), []
    for x, label in zip(X, y, strict=True):
        if label * (w @ x) <= 0:
            mistakes.append((w.copy(), x, label))
            w = w + label * x
    (w_ref, x_ref, y_ref), (w_got, x_got, y_got) = mistakes[1], drawn[0]
    np.testing.assert_allclose(w_got, w_ref)
    np.testing.assert_allclose(x_got, x_ref)
    assert y_got == y_ref


@pytest.mark.parametrize("command", ["shatter", "playground"])
def test_the_new_commands_have_help_with_examples(capsys, command):
    with pytest.raises(SystemExit) as stop:
        cli.main([command, "--help"])
    out = capsys.readouterr().out
    assert stop.value.code == 0 and "examples:" in out and f"halfspaces {command}" in out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert f"halfspaces {command}" in capsys.readouterr().out  # in the main examples too


def test_play_trace_shows_only_the_weights_that_score(tmp_path, capsys):
    X, y = separable(n=12, d=2, seed=4)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    for extra, shown in (([], False), (["--set", "average=false"], True)):
        code, out, err = _run(capsys, "play", data, "--trace", "--algo", "pegasos", "--lam",
                              0.1, *extra, "--json")
        assert code == 0, err
        trace = json.loads(out)["trace"]
        assert all((r["w"] is not None) is shown for r in trace)
        for r in trace if shown else []:
            x = np.zeros(2)
            x[[int(j) for j in r["x"]]] = list(r["x"].values())
            assert r["score"] == pytest.approx(np.dot(r["w"], x) + r["b"], abs=1e-12)
