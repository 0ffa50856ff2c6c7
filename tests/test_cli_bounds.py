"""The bounds the command prints (``bound``, ``play``, ``plot mistakes``) against the runs they
bound: the learner run the way the command runs it must never make more mistakes.

A perceptron with an offset is the perceptron through the origin on the points ``(x, 1)``;
its bound is ``(R'/gamma')^2`` on those points (issue 8: ``bound`` printed ``(R/gamma)^2``
with the SVM's margin in R^d, 727 on data where the perceptron makes 3,061 mistakes).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import separable_through_origin, separable_with_offset

from halfspaces import AveragedPerceptron, Perceptron, VotedPerceptron, cli

ALGOS = {"perceptron": Perceptron, "averaged": AveragedPerceptron, "voted": VotedPerceptron}
ISSUE_8 = np.array([[1, -4.951, -2.566], [1, -4.848, -3.076], [1, -4.737, -2.278],
                    [1, -4.483, -3.149], [-1, -5.442, -3.114], [1, -4.876, -3.852],
                    [1, -4.989, -3.384]])


def _write_csv(path, X, y):
    with open(path, "w") as f:
        for x, label in zip(X, y, strict=True):
            f.write(",".join([str(int(label))] + [repr(float(v)) for v in x]) + "\n")
    return str(path)


def _main(*argv):
    """``cli.main`` in-process; returns (exit code, stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue()


def _json(*argv):
    code, out = _main(*argv, "--json")
    assert code == 0
    return json.loads(out)


def _reference_perceptron(X, y, passes):
    """The perceptron with an offset from the notes (a tie is a mistake): the mistakes of
    each pass over the rows in order."""
    w, b, per_pass = np.zeros(X.shape[1]), 0.0, []
    for _ in range(passes):
        per_pass.append(0)
        for x_t, y_t in zip(X, y, strict=True):
            if y_t * (w @ x_t + b) <= 0:
                w, b = w + y_t * x_t, b + y_t
                per_pass[-1] += 1
        if per_pass[-1] == 0:
            break
    return per_pass


def _converged_mistakes(cls, X, y, fit_intercept, bound):
    """``fit`` cycling in file order until a pass makes no mistake; each earlier pass makes
    one, so bound + 2 passes are enough when the bound holds."""
    clf = cls(fit_intercept=fit_intercept, max_iter=int(bound) + 2, shuffle=False).fit(X, y)
    assert clf.converged_
    return clf.n_mistakes_


def _check_printed_bounds(path, X, y, fit_intercept):
    """Every bound the commands print for (X, y) in this setting holds for every perceptron."""
    flag = [] if fit_intercept else ["--no-fit-intercept"]
    printed = _json("bound", path, *flag)
    assert printed["separable"]
    bound = printed["novikoff_bound"]
    for algo, cls in ALGOS.items():
        assert _converged_mistakes(cls, X, y, fit_intercept, bound) <= bound
        played = _json("play", path, "--algo", algo, *flag)
        assert played["perceptron_mistakes"] <= bound
        assert played["bound"]["novikoff_bound"] == bound  # the same function, the same number
        if algo == "perceptron":
            assert played["n_mistakes"] == played["perceptron_mistakes"]
    assert printed["margin_one_bound"] == pytest.approx(bound, rel=1e-9)
    assert printed["augmented"] == fit_intercept


def test_issue_8_bound_and_play_print_the_bound_of_the_perceptron_on_x_1(tmp_path):
    y, X = ISSUE_8[:, 0], ISSUE_8[:, 1:]
    path = _write_csv(tmp_path / "seven.csv", X, y)
    printed = _json("bound", path)
    R_aug = np.sqrt((X ** 2).sum(axis=1).max() + 1.0)
    assert printed["perceptron_radius"] == pytest.approx(R_aug, rel=1e-14)
    assert printed["radius"] == pytest.approx(np.sqrt((X ** 2).sum(axis=1).max()), rel=1e-14)
    per_pass = _reference_perceptron(X, y, passes=100_000)
    assert per_pass[-1] == 0
    # (R/gamma)^2 with the SVM's margin in R^2, what `bound` printed before, is exceeded.
    assert sum(per_pass) > (printed["radius"] / printed["max_margin"]) ** 2
    assert _converged_mistakes(Perceptron, X, y, True, printed["novikoff_bound"]) == sum(per_pass)
    _check_printed_bounds(path, X, y, fit_intercept=True)
    code, out = _main("bound", path)
    assert code == 0
    assert "Novikoff bound (R'/gamma')^2" in out and "R' = max ||(x_i, 1)||" in out
    assert "margin-1 bound R'^2 ||(w*, b*)||^2" in out
    # Through the origin no halfspace separates these points: no bound, from either command.
    assert _json("bound", path, "--no-fit-intercept")["separable"] is False
    assert _json("play", path, "--no-fit-intercept")["bound"]["separable"] is False


def test_play_compares_the_running_perceptrons_updates_with_the_bound(tmp_path):
    y, X = ISSUE_8[:, 0], ISSUE_8[:, 1:]
    path = _write_csv(tmp_path / "seven.csv", X, y)
    for algo in ("averaged", "voted"):
        code, out = _main("play", path, "--algo", algo)
        updates = _reference_perceptron(X, y, passes=1)[0]  # one pass in file order
        assert code == 0
        assert f"updates of the running perceptron {updates} <= bound" in out


@settings(max_examples=15, deadline=None)
@given(fit_intercept=st.booleans(), data=st.data())
def test_no_printed_bound_is_exceeded(fit_intercept, data):
    if fit_intercept:
        X, y = data.draw(separable_with_offset(max_samples=20, max_features=3))
    else:
        sample = data.draw(separable_through_origin(max_samples=20, max_features=3))
        X, y = sample.X, sample.y
    with tempfile.TemporaryDirectory() as folder:
        path = _write_csv(os.path.join(folder, "d.csv"), X, y)
        _check_printed_bounds(path, X, y, fit_intercept)


def _spy_on_plot_mistakes(monkeypatch) -> dict:
    """The keyword arguments (and ``bound``) of the next ``plotting.plot_mistakes`` call,
    filled in when it is made; skips the test without matplotlib."""
    pytest.importorskip("matplotlib")
    from halfspaces import plotting

    drawn = {}
    plot_mistakes = plotting.plot_mistakes

    def spy(transcript, bound=None, **kwargs):
        drawn.update(kwargs, bound=bound)
        return plot_mistakes(transcript, bound, **kwargs)

    monkeypatch.setattr(plotting, "plot_mistakes", spy)
    return drawn


@pytest.mark.parametrize("algo", ["perceptron", "averaged"])
def test_plot_mistakes_draws_the_same_bound(tmp_path, monkeypatch, algo):
    y, X = ISSUE_8[:, 0], ISSUE_8[:, 1:]
    path = _write_csv(tmp_path / "seven.csv", X, y)
    drawn = _spy_on_plot_mistakes(monkeypatch)
    code, _ = _main("plot", "mistakes", path, "--algo", algo, "-o", tmp_path / "m.png", "-q")
    assert code == 0 and (tmp_path / "m.png").stat().st_size > 0
    assert drawn["bound"] == _json("bound", path)["novikoff_bound"]
    if algo == "averaged":
        assert drawn["bound_label"] == "Novikoff bound on the updates"
        updates = _reference_perceptron(X, y, passes=1)[0]
        assert f"running perceptron's updates: {updates}" in drawn["label"]


# -- badly scaled features (the UCI breast-cancer set: `play` died at 256 rows) --------------
def test_play_and_bound_on_badly_scaled_features(tmp_path, capsys):
    from helpers import badly_scaled_separable, hard_margin_kkt

    from halfspaces.theory import perceptron_bound

    X, y = badly_scaled_separable(0)  # Clarabel called it infeasible before the fix
    path = _write_csv(tmp_path / "scaled.csv", X, y)
    code = cli.main(["play", path])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["examples", "mistakes", "bound"]
    assert [float(line.split()[2]) > 0 for line in lines[1:8]] == [True] * 7  # 1, 2, ..., 60
    played = _json("play", path)
    assert all(row["bound_exact"] is True and row["mistakes"] <= row["bound"]
               for row in played["table"])
    # the printed bound is (R'/gamma')^2 with the max margin on (x, 1), checked by KKT
    Z = np.column_stack([X, np.ones(len(y))])
    v = perceptron_bound(X, y, fit_intercept=True).separator
    residual, gamma = hard_margin_kkt(Z, y, v, 0.0, False)
    assert residual <= 1e-7 and played["bound"]["exact"] is True
    R = np.linalg.norm(Z, axis=1).max()
    assert played["bound"]["novikoff_bound"] == pytest.approx((R / gamma) ** 2, rel=1e-6)
    assert played["table"][-1]["bound"] == played["bound"]["novikoff_bound"]
    printed = _json("bound", path)
    assert printed["max_margin_exact"] is True and printed["novikoff_bound_exact"] is True
    w, b = np.array(printed["separator"]["w"]), printed["separator"]["b"]
    residual, gamma = hard_margin_kkt(X, y, w, b, True)
    assert residual <= 1e-7 and printed["max_margin"] == pytest.approx(gamma, rel=1e-6)


def test_play_and_bound_say_when_the_bound_is_from_the_lp_separator(tmp_path, capsys,
                                                                    monkeypatch):
    from helpers import badly_scaled_separable

    from halfspaces.solvers import qp
    from halfspaces.theory import perceptron_bound

    X, y = badly_scaled_separable(0)
    path = _write_csv(tmp_path / "scaled.csv", X, y)
    true = perceptron_bound(X, y, fit_intercept=True).bound
    monkeypatch.setattr(qp, "svm_primal_qp", lambda *a, **k: qp.QPResult(
        "NumericalError", None, None, 0.0, 7))  # Clarabel failing, simulated
    code = cli.main(["play", path])
    out, err = capsys.readouterr()
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:8]]
    assert all(r[2].endswith("*") and float(r[2][:-1]) > 0 for r in rows)
    assert ("bound: * the max-margin QP was not solved to a certified optimum, so gamma_LP is"
            " the margin of a verified separator") in out
    assert "Novikoff bound (R'/gamma'_LP)^2 = " in out and "(an upper bound: " in out
    # one warning, for the whole data (the table's rows are marked instead)
    assert err.count("warning") == 1
    assert err.startswith("halfspaces: warning: the hard-margin QP (Clarabel) stopped with"
                          " status 'NumericalError' on data that the separating LP proves")
    played = _json("play", path)
    assert played["bound"]["exact"] is False and played["bound"]["novikoff_bound"] >= true
    assert all(row["bound_exact"] is False and row["mistakes"] <= row["bound"]
               for row in played["table"])
    printed = _json("bound", path)
    assert printed["max_margin_exact"] is False and printed["novikoff_bound_exact"] is False
    assert printed["novikoff_bound"] >= true
    code = cli.main(["bound", path])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "margin gamma_LP of the LP separator (<= max margin) of (w, b), ||w|| = 1" in out
    assert "Novikoff bound (R'/gamma'_LP)^2 (LP separator: an upper bound)" in out


def test_plot_mistakes_says_when_the_bound_is_from_the_lp_separator(tmp_path, monkeypatch):
    from halfspaces.solvers import qp

    y, X = ISSUE_8[:, 0], ISSUE_8[:, 1:]
    path = _write_csv(tmp_path / "seven.csv", X, y)
    exact = _json("bound", path)["novikoff_bound"]
    drawn = _spy_on_plot_mistakes(monkeypatch)
    monkeypatch.setattr(qp, "svm_primal_qp", lambda *a, **k: qp.QPResult(
        "MaxIterations", None, None, 0.0, 200))  # Clarabel failing, simulated
    code, _ = _main("plot", "mistakes", path, "-o", tmp_path / "m.png", "-q")
    assert code == 0
    assert "\nbound from the LP separator (the max-margin QP failed): an upper bound" in (
        drawn["title"])
    assert drawn["bound"] >= exact
