"""A new user's first hour with the command line (issue 13): real files, messages, output.

Each test runs ``cli.main`` in-process on small files written here by hand, and checks the
result against what the file says (its indices, its columns) or against a reference written
from the formulas (Farkas' lemma, the margin of a separator, Novikoff's bound).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import separable as _separable

from halfspaces import cli


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return str(path)


def _tsv(labels, texts):
    return "".join(f"{a}\t{t}\n" for a, t in zip(labels, texts, strict=True))


def _svmlight_text(X, y, offset=1):
    return "".join(f"{int(label)} " + " ".join(f"{j + offset}:{float(v)!r}"
                                                for j, v in enumerate(x) if v != 0) + "\n"
                   for x, label in zip(X, y, strict=True))


# -- 0. --zero-based / --one-based on play, bound and plot -----------------------------------


@pytest.mark.parametrize("indexing, n_features", [("--zero-based", 3), ("--one-based", 2)])
def test_bound_reads_the_indexing_it_is_told(tmp_path, capsys, indexing, n_features):
    # Indices 1 and 2 only: 0-based, the file has 3 columns (column 0 empty); 1-based, 2.
    X, y = _separable(n=20, d=2, seed=3)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    code, out, _ = _run(capsys, "bound", data, indexing, "--json")
    assert code == 0
    assert json.loads(out)["n_features"] == n_features


def test_play_and_plot_take_the_indexing_options(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    X, y = _separable(n=20, d=2, seed=4)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y, offset=0))
    code, out, _ = _run(capsys, "play", data, "--zero-based", "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 20
    # 1-based, the index 0 of this file is an error that names the option to use.
    code, _, err = _run(capsys, "play", data, "--one-based")
    assert code == 1 and "--zero-based" in err
    png = tmp_path / "b.png"
    code, _, _ = _run(capsys, "plot", "boundary", data, "--zero-based", "-o", png, "-q")
    assert code == 0 and png.stat().st_size > 0


# -- 1. real files ---------------------------------------------------------------------------


def _perceptron_with_offset(X, y):
    """Rosenblatt's perceptron with an offset, one pass: the mistakes (a tie counts)."""
    w, b, mistakes = np.zeros(X.shape[1]), 0.0, 0
    for x_t, y_t in zip(X, y, strict=True):
        if y_t * (w @ x_t + b) <= 0:
            w, b, mistakes = w + y_t * x_t, b + y_t, mistakes + 1
    return mistakes


def _trained(tmp_path, capsys, algo="perceptron"):
    X, y = _separable(n=30, d=2, seed=5)
    data = _write(tmp_path / "train.svm", _svmlight_text(X, y))
    model = tmp_path / "m.model"
    assert _run(capsys, "train", data, "--algo", algo, "-o", model)[0] == 0
    from halfspaces import load
    return str(model), load(str(model))


def test_unseen_features_have_zero_weight_with_a_note(tmp_path, capsys):
    model_path, model = _trained(tmp_path, capsys)
    # Indices 5 and 7 never occur in training: they must count as zero weight.
    test = _write(tmp_path / "test.svm", "1 1:0.5 2:1 5:3\n-1 1:-1 7:1\n1 2:2 5:-4 7:1\n")
    x_seen = np.array([[0.5, 1.0], [-1.0, 0.0], [0.0, 2.0]])
    w, b = np.ravel(model.coef_), float(np.ravel(model.intercept_)[0])
    expected = np.where(x_seen @ w + b >= 0, 1, -1)
    code, out, err = _run(capsys, "predict", model_path, test)
    assert code == 0
    assert [int(v) for v in out.split()] == expected.tolist()
    assert err.count("\n") == 1 and "2 features beyond the model's 2 ignored" in err
    code, out, _ = _run(capsys, "evaluate", model_path, test, "--json")
    y = np.array([1, -1, 1])
    assert code == 0 and json.loads(out)["accuracy"] == pytest.approx(np.mean(expected == y))


def test_n_features_is_honoured_by_predict_and_evaluate(tmp_path, capsys):
    model_path, _ = _trained(tmp_path, capsys)
    test = _write(tmp_path / "test.svm", "1 1:0.5 5:3\n-1 1:-1 7:1\n")
    code, _, err = _run(capsys, "evaluate", model_path, test, "--n-features", "5")
    assert code == 1
    assert "test.svm:2:" in err and "beyond the 5 features" in err and "--n-features" in err
    assert _run(capsys, "evaluate", model_path, test, "--n-features", "9")[0] == 0


def test_delimiter_reads_tab_separated_numbers(tmp_path, capsys):
    X, y = _separable(n=30, d=3, seed=6)
    rows = [f"{int(label)}\t" + "\t".join(repr(float(v)) for v in x)
            for x, label in zip(X, y, strict=True)]
    data = _write(tmp_path / "physics.tsv", "\n".join(rows) + "\n")
    code, out, _ = _run(capsys, "bound", data, "--delimiter", "tab", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["n_features"] == 3
    assert result["radius"] == pytest.approx(np.linalg.norm(X, axis=1).max())
    model = tmp_path / "m.model"
    code, out, _ = _run(capsys, "train", data, "--delimiter", "\\t", "--algo", "perceptron",
                        "-o", model, "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 30


def test_numbers_read_as_raw_text_are_refused_with_a_hint(tmp_path, capsys):
    data = _write(tmp_path / "physics.tsv", "1\t0.5\t2e-3\n-1\t-1.5\t3\n")
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", tmp_path / "m")
    assert code == 1 and err.count("\n") == 1
    assert "physics.tsv: every text is numbers only" in err
    assert "--format csv --delimiter tab" in err


def test_encoding_option_and_its_hint(tmp_path, capsys):
    text = "ham\tsee you at the café\nspam\tWIN a prize now\nham\tlunch at noon\n"
    data = _write(tmp_path / "sms.tsv", text, encoding="cp1252")
    model = tmp_path / "spam.model"
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", model)
    assert code == 1 and "sms.tsv:1: bytes that are not utf-8 text" in err
    assert "--encoding" in err and "encoding=" not in err
    code, _, _ = _run(capsys, "train", data, "--encoding", "cp1252", "--algo", "perceptron",
                      "-o", model)
    assert code == 0
    code, out, _ = _run(capsys, "predict", model, data, "--encoding", "cp1252")
    assert code == 0 and len(out.split()) == 3
    code, _, err = _run(capsys, "bound", _write(tmp_path / "d.svm", "1 1:1\n-1 1:-1\n"),
                        "--encoding", "cp1252")
    assert code == 1 and "--encoding does not apply to svmlight data" in err


def test_predict_on_raw_text_needs_no_label(tmp_path, capsys):
    texts = ["win cash now", "lunch at noon", "cash prize win", "see you at noon"]
    labels = ["spam", "ham", "spam", "ham"]
    data = _write(tmp_path / "sms.tsv", _tsv(labels, texts))
    model = tmp_path / "spam.model"
    assert _run(capsys, "train", data, "--algo", "perceptron", "-o", model)[0] == 0
    new = _write(tmp_path / "new.tsv", "".join(t + "\n" for t in texts))
    code, unlabelled, _ = _run(capsys, "predict", model, new)
    assert code == 0
    code, labelled, _ = _run(capsys, "predict", model, data)
    assert code == 0 and unlabelled.split() == labelled.split() and len(labelled.split()) == 4


def test_play_and_bound_take_raw_text(tmp_path, capsys):
    from sklearn.feature_extraction.text import HashingVectorizer

    texts = ["win cash now", "lunch at noon", "cash prize win", "see you at noon",
             "free cash prize", "noon lunch meeting"]
    labels = ["spam", "ham", "spam", "ham", "spam", "ham"]
    data = _write(tmp_path / "sms.tsv", _tsv(labels, texts))
    # train's default featurizer: hashing without alternating signs into --n-features buckets
    X = HashingVectorizer(n_features=64, alternate_sign=False).transform(texts).toarray()
    y = np.where(np.array(labels) == "spam", 1.0, -1.0)
    code, out, _ = _run(capsys, "play", data, "--n-features", "64", "--json")
    assert code == 0 and json.loads(out)["n_mistakes"] == _perceptron_with_offset(X, y)
    code, out, _ = _run(capsys, "bound", data, "--n-features", "64", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["n_features"] == 64
    assert result["radius"] == pytest.approx(np.linalg.norm(X, axis=1).max())


# -- 2. messages and output ------------------------------------------------------------------

_NOT_SEPARABLE = "1,1,0\n1,-1,0\n-1,0,1\n-1,0,-1\n1,0.1,0\n"  # +1 on the x axis, -1 on the y


def _one_error_line(err):
    assert err.count("\n") == 1 and err.startswith("halfspaces: error: "), err
    return err


def test_library_advice_is_given_as_command_line_options(tmp_path, capsys):
    data = _write(tmp_path / "cross.csv", _NOT_SEPARABLE)
    code, _, err = _run(capsys, "train", data, "--algo", "lp", "--set", "on_infeasible=raise",
                        "-o", tmp_path / "m")
    assert code == 1
    err = _one_error_line(err)
    assert "--set on_infeasible=least_violation" in err and "--algo svm" in err
    assert "LPSeparator(" not in err and ".certificate" not in err and "'" not in err
    code, _, err = _run(capsys, "train", data, "--algo", "svm", "--C", "inf", "-o",
                        tmp_path / "m")
    err = _one_error_line(err)
    assert code == 1 and "a finite --C" in err and "(--C inf)" in err and "C=inf" not in err
    code, _, err = _run(capsys, "train", data, "--algo", "lp", "-o", tmp_path / "m")
    assert code == 0 and "--set on_infeasible=raise" in err and "certificates_" not in err
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--max-iter", "0",
                        "-o", tmp_path / "m")
    assert code == 1 and "Try --max-iter 100." in _one_error_line(err)


def test_scikit_learn_paragraphs_are_cut_to_one_sentence():
    from sklearn.svm import LinearSVC
    from sklearn.utils import check_array

    with pytest.raises(ValueError) as info:
        check_array(np.array([[np.nan, 1.0]]), estimator=LinearSVC(), input_name="X")
    original = " ".join(str(info.value).split())
    assert "scikit-learn.org" in original
    message = cli.cli_terms(original)
    assert message.startswith("Input X contains NaN") and "scikit-learn" not in message
    assert ". " not in message


def test_csv_line_numbers_count_the_header_and_blank_lines(tmp_path, capsys):
    data = _write(tmp_path / "h.csv", "y,a,b\n1,1,2\n\n-1,nan,2\n")
    code, _, err = _run(capsys, "train", data, "--algo", "svm", "-o", tmp_path / "m")
    assert code == 1
    assert _one_error_line(err) == (f"halfspaces: error: {data}:4: expected a finite number in"
                                    " column 1, got 'nan'\n")


def test_a_failed_write_names_the_file_not_a_temporary_one(tmp_path, capsys):
    data = _write(tmp_path / "d.svm", "1 1:1\n-1 1:-1\n")
    target = tmp_path / "missing" / "m.model"
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", target)
    assert code == 1
    assert err == f"halfspaces: error: {target}: No such file or directory\n"


def test_an_unknown_option_shows_the_sub_command_usage(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["train", "d.svm", "--algo", "svm", "--lamda", "1", "-o", "m"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("usage: halfspaces train ")
    assert "halfspaces train: error: unrecognized arguments: --lamda 1" in err
    with pytest.raises(SystemExit):
        cli.main(["bound", "d.svm", "--json", "--lamda", "1"])
    out = json.loads(capsys.readouterr().out)
    assert out["error"] == "halfspaces bound: unrecognized arguments: --lamda 1"
    assert out["usage"].startswith("halfspaces bound ")


def test_errors_are_json_with_json(tmp_path, capsys):
    data = _write(tmp_path / "d.svm", "1 1:1\n-1 1:x\n")
    code, out, err = _run(capsys, "bound", data, "--json")
    assert code == 1 and err == ""
    obj = json.loads(out)
    assert obj["file"] == data and obj["line"] == 2 and obj["error"].startswith(f"{data}:2:")


def test_train_json_reports_how_the_fit_went(tmp_path, capsys):
    from halfspaces import load

    X, y = _separable(n=40, d=2, seed=7)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    model = tmp_path / "m.model"
    code, out, _ = _run(capsys, "train", data, "--algo", "svm", "--C", "1", "-o", model,
                        "--json")
    assert code == 0
    result = json.loads(out)
    svm = load(str(model))
    w, b = np.ravel(svm.coef_), float(np.ravel(svm.intercept_)[0])
    primal = 0.5 * w @ w + np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()  # C = 1
    assert result["objective"] == pytest.approx(primal, rel=1e-6)
    assert result["solver"] in ("dcd", "qp") and result["converged"] is True
    assert 0 <= result["duality_gap"] <= 1e-3 * primal
    assert result["epochs"] >= 1 and result["time_s"] >= 0
    code, out, _ = _run(capsys, "train", data, "--algo", "pegasos", "--lam", "0.1",
                        "--max-iter", "5", "--random-state", "0", "-o", model, "--json")
    result = json.loads(out)
    peg = load(str(model))
    w, b = np.ravel(peg.coef_), float(np.ravel(peg.intercept_)[0])
    J = np.maximum(0.0, 1.0 - y * (X @ w + b)).mean() + 0.05 * w @ w
    assert result["epochs"] == 5 and result["objective"] == pytest.approx(J, rel=1e-9)


def test_bound_json_certificate_and_separator_can_be_verified(tmp_path, capsys):
    data = _write(tmp_path / "cross.csv", _NOT_SEPARABLE)
    code, out, _ = _run(capsys, "bound", data, "--json")
    assert code == 0
    cert = json.loads(out)["certificate"]
    table = np.loadtxt(data, delimiter=",")
    y, X = table[:, 0], table[:, 1:]
    alpha = np.zeros(len(y))
    alpha[cert["rows"]] = cert["alpha"]
    assert np.all(alpha >= 0) and alpha.sum() > 0
    # Farkas: sum_i alpha_i y_i (x_i, 1) = 0, so no (w, b) has y_i (<w, x_i> + b) > 0 for all i
    assert np.allclose(alpha * y @ np.column_stack([X, np.ones(len(y))]), 0.0, atol=1e-8)
    X, y = _separable(n=30, d=2, seed=8)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    result = json.loads(_run(capsys, "bound", data, "--json")[1])
    w, b = np.array(result["separator"]["w"]), result["separator"]["b"]
    margins = y * (X @ w + b)
    assert margins.min() == pytest.approx(1.0, abs=1e-6)
    assert result["max_margin"] == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-6)


def test_play_shows_the_bound_on_every_size(tmp_path, capsys):
    from helpers import hard_margin_through_origin

    X, y = _separable(n=40, d=2, seed=9)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    code, out, _ = _run(capsys, "play", data, "--no-fit-intercept", "--json")
    assert code == 0
    table = json.loads(out)["table"]
    assert [r["examples"] for r in table] == [1, 2, 4, 8, 16, 32, 40]
    for row in table[2:]:  # SLSQP needs a few points; the first rows are checked below
        n = row["examples"]
        R = np.linalg.norm(X[:n], axis=1).max()
        gamma = hard_margin_through_origin(X[:n], y[:n])
        assert row["bound"] == pytest.approx((R / gamma) ** 2, rel=1e-4)
    assert all(row["mistakes"] <= row["bound"] for row in table)
    code, out, _ = _run(capsys, "play", data, "--no-fit-intercept", "--bound-limit", "5")
    rows = [line.split() for line in out.splitlines()[1:8]]
    assert [r[2] for r in rows[3:]] == ["-"] * 4 and rows[2][2] != "-"
    assert "bound: not computed ('-' in the table): 40 examples > --bound-limit 5" in out
    assert "(pass --bound-limit 40 to solve them)" in out
    code, out, _ = _run(capsys, "play", data, "--algo", "pegasos")
    assert "bound: not computed: no mistake bound for --algo pegasos" in out


def test_a_tie_at_round_one_is_printed_as_a_tie(tmp_path, capsys):
    # The perceptron starts at w = 0: its first score is 0, a tie, counted as a mistake.
    data = _write(tmp_path / "d.svm", "1 1:1\n-1 1:-1\n1 1:2\n")
    code, out, _ = _run(capsys, "play", data, "--json")
    first = json.loads(out)["table"][0]
    assert first["tie"] is True and first["mistakes"] == 1
    code, out, _ = _run(capsys, "play", data)
    assert out.splitlines()[1].split()[-1] == "tie"
    assert "a tie counts as a mistake" in out


class _Terminal:
    """A stand-in for standard error that says it is a terminal (so the bar is drawn)."""

    def __init__(self):
        self.text = []

    def write(self, text):
        self.text.append(text)

    def flush(self):
        pass

    def isatty(self):
        return True


def test_a_fit_shows_its_epochs_and_ends_with_a_summary(tmp_path, capsys, monkeypatch):
    data = _write(tmp_path / "cross.csv", _NOT_SEPARABLE)  # never an epoch without mistakes
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = cli.main(["train", str(data), "--algo", "perceptron", "--max-iter", "7", "-o",
                     str(tmp_path / "m")])
    out = capsys.readouterr().out
    assert code == 0
    bar = "".join(terminal.text)
    assert "7/7" in bar and "epoch" in bar and "mistakes" in bar
    assert "7 epochs" in out and "NOT converged" in out and "training accuracy" in out


def _bar_lines(terminal):
    """The states the bar was drawn in (tqdm redraws a line after a carriage return)."""
    import re

    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", "".join(terminal.text))
    return [line.strip() for line in re.split(r"[\r\n]+", text) if line.strip()]


@pytest.mark.parametrize("algo, options, pattern", [
    ("svm", ["--solver", "dcd", "--tol", "1e-6"],
     r"fit SVC \(dcd\): (\d+)/1000 epochs, objective [-\d.e+]+, relative duality gap"
     r" [-\d.e+]+(?: at epoch \d+)? \(stops at 1e-08\), time left (~|at most )"),
    ("logistic", ["--tol", "1e-8"],
     r"fit LogisticRegression \(lbfgs\): (\d+)/100 iterations, objective [-\d.e+]+, max"
     r" \|gradient\| [-\d.e+]+ \(stops at 1e-08\), time left (~|at most )"),
])
def test_a_solver_fit_shows_its_iterations_its_stopping_measure_and_time_left(
        tmp_path, capsys, monkeypatch, algo, options, pattern):
    import re

    X, y = _separable(n=60, d=3, seed=5)
    y = np.where(np.arange(60) % 9 == 0, -y, y)  # noisy: many epochs
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = cli.main(["train", data, "--algo", algo, *options, "--json", "-o",
                     str(tmp_path / "m")])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    shown = [m for m in map(re.compile(pattern).match, _bar_lines(terminal)) if m]
    assert shown, _bar_lines(terminal)
    # the last state drawn is the last iteration (DCD: the epoch in progress is counted
    # by the summary)
    assert summary["epochs"] - 1 <= int(shown[-1][1]) <= summary["epochs"]
    assert "time left ~" in shown[-1].string and "(estimate)" in shown[-1].string


def test_the_lp_fit_says_its_time_left_is_unknown(tmp_path, capsys, monkeypatch):
    X, y = _separable(n=30, d=2, seed=6)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert cli.main(["train", data, "--algo", "lp", "-o", str(tmp_path / "m")]) == 0
    assert any(line.startswith("fit LPSeparator, time left unknown (HiGHS, called through"
                               " SciPy, reports no progress until it is done)")
               for line in _bar_lines(terminal))
    assert "trained LPSeparator on 30 examples" in capsys.readouterr().out


# -- 3. the quickstart's files ---------------------------------------------------------------


def test_data_writes_the_bundled_sets(tmp_path, capsys):
    from halfspaces.datasets import load_heart_scale, load_svmlight

    code, out, _ = _run(capsys, "data")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "heart_scale", "a9a", "a9a.t", "mushrooms", "mushrooms.t", "sms", "points"]
    target = tmp_path / "heart.svm"
    assert _run(capsys, "data", "heart_scale", "-o", target)[0] == 0
    X, y = load_svmlight(target, n_features=13, zero_based=False)
    X0, y0 = load_heart_scale()
    assert (X != X0).nnz == 0 and np.array_equal(y, y0)
    target = tmp_path / "points.csv"
    assert _run(capsys, "data", "points", "-o", target)[0] == 0
    table = np.loadtxt(target, delimiter=",")
    assert table.shape == (200, 3) and set(table[:, 0]) == {-1.0, 1.0}
    code, _, err = _run(capsys, "data", "sms")
    assert code == 1 and "-o FILE" in _one_error_line(err)


def test_every_command_reads_a_bundled_set_by_name(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)  # an empty folder: no file named heart_scale or points
    # heart_scale: 270 rows, 13 features, +1: 120 (PROVENANCE.md)
    code, out, _ = _run(capsys, "bound", "heart_scale", "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 270
    assert json.loads(out)["n_features"] == 13
    assert _run(capsys, "train", "heart_scale", "--algo", "svm", "-o", "m")[0] == 0
    code, out, _ = _run(capsys, "evaluate", "m", "bundled:heart_scale", "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 270
    code, out, _ = _run(capsys, "predict", "m", "heart_scale")
    assert code == 0 and len(out.split()) == 270
    code, out, _ = _run(capsys, "play", "points", "--json")  # a CSV, told by the name
    assert code == 0 and json.loads(out)["n_samples"] == 200
    assert _run(capsys, "plot", "boundary", "points", "-o", "b.png")[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.png", "m"]


def test_a_local_file_wins_over_the_bundled_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "heart_scale").write_text("1 1:1\n-1 1:-1\n1 1:2\n")
    code, out, _ = _run(capsys, "bound", "heart_scale", "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 3
    code, out, _ = _run(capsys, "bound", "bundled:heart_scale", "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 270


@pytest.mark.parametrize("command", [["train", "--algo", "svm", "-o", "m"], ["bound"],
                                     ["play"]])
def test_an_unknown_name_is_no_such_file_listing_the_bundled_sets(tmp_path, capsys,
                                                                   monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, command[0], "a9b", *command[1:])
    assert code == 1
    assert _one_error_line(err) == (
        "halfspaces: error: a9b: No such file or directory, nor a bundled data set"
        " (heart_scale, a9a, a9a.t, mushrooms, mushrooms.t, sms, points)\n")


def test_data_help_says_how_bundled_names_are_read(capsys):
    with pytest.raises(SystemExit):
        cli.main(["data", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a real file always wins" in text and '"bundled:a9a" always means' in text
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the name of a bundled set" in text and "bundled:NAME is always" in text


def test_the_mistakes_plot_says_where_the_bound_ends(tmp_path, capsys, monkeypatch):
    """Novikoff's bound exists only while the first t rounds are separable: the title says
    from which t there is none, checked against a feasibility LP (SciPy's) on each prefix."""
    pytest.importorskip("matplotlib")
    from scipy.optimize import linprog

    from halfspaces import plotting

    def is_separable(X, y):  # some (w, b) with y_i (w.x_i + b) >= 1 for every i
        A = -y[:, None] * np.column_stack([X, np.ones(len(y))])
        res = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(len(y)),
                      bounds=[(None, None)] * A.shape[1], method="highs")
        return res.status == 0

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    y[[9, 20]] *= -1  # two flipped labels: the prefixes end being separable at some t
    path = tmp_path / "d.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
    titles = []
    real = plotting.plot_mistakes
    monkeypatch.setattr(plotting, "plot_mistakes",
                        lambda *a, **k: titles.append(k["title"]) or real(*a, **k))
    code, _, _ = _run(capsys, "plot", "mistakes", path, "--label-column", "0",
                      "--algo", "perceptron", "-o", tmp_path / "m.png")
    assert code == 0
    sizes = [1, 2, 4, 8, 16, 32, 40]
    first = next(t for t in sizes if not is_separable(X[:t], y[:t]))
    assert f"no bound from t = {first}: the first {first} rounds are not" in titles[0]
