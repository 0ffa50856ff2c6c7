"""The ``halfspaces`` command, end to end.

A handful of subprocess tests run the real command (train -> predict -> evaluate, play, bound,
plot, a malformed file); everything else calls ``cli.main`` in-process, which is the same
code without the cost of starting Python and numba. Numbers are checked against references
written here from the formulas: a 10-line perceptron, NumPy losses and margins, scikit-learn
and SciPy optimizers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import hard_margin_through_origin as _hard_margin_through_origin
from helpers import run_fresh
from helpers import separable as _separable
from scipy.optimize import linprog
from sklearn.svm import SVC as SkSVC

from halfspaces import cli
from halfspaces.cli import _theory
from halfspaces.cli._plan import EstimatorSpec
from halfspaces.datasets import detect_format

ENV = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}


# -- data written by hand (independent of our writers) --------------------------------------


def _write_svmlight(path, X, y):
    with open(path, "w") as f:
        for x, label in zip(X, y, strict=True):
            feats = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(x) if v != 0)
            f.write(f"{int(label)} {feats}\n")
    return str(path)


def _write_csv(path, X, y, *, header=None, label_last=False):
    with open(path, "w") as f:
        if header:
            f.write(",".join(header) + "\n")
        for x, label in zip(X, y, strict=True):
            fields = [repr(float(v)) for v in x]
            fields = fields + [str(label)] if label_last else [str(label)] + fields
            f.write(",".join(fields) + "\n")
    return str(path)


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _perceptron_reference(X, y):
    """Rosenblatt's perceptron through the origin, one pass: mistakes per round (ties count)."""
    w = np.zeros(X.shape[1])
    mistakes = np.zeros(len(y), dtype=bool)
    for t, (x_t, y_t) in enumerate(zip(X, y, strict=True)):
        if y_t * (w @ x_t) <= 0:
            w = w + y_t * x_t
            mistakes[t] = True
    return mistakes


# -- subprocess: the real command -----------------------------------------------------------


def _command(*argv, module="halfspaces.cli"):
    return subprocess.run([sys.executable, "-m", module, *map(str, argv)],
                          capture_output=True, text=True, env=ENV, timeout=300)


def test_subprocess_train_predict_evaluate(tmp_path):
    X, y = _separable(n=60, d=3, seed=1)
    data = _write_svmlight(tmp_path / "train.svm", X, y)
    model = tmp_path / "model.hs"
    done = _command("train", data, "--algo", "svm", "--C", "10", "-o", model, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["estimator"] == "SVC"
    preds = tmp_path / "preds.txt"
    done = _command("predict", model, data, "-o", preds)
    assert done.returncode == 0, done.stderr
    done = _command("evaluate", model, data, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # Independent: the same estimator fitted in-process scores the same on the same data.
    from halfspaces import SVC

    expected = SVC(C=10.0).fit(X, y)
    labels = np.loadtxt(preds)
    np.testing.assert_array_equal(labels, expected.predict(X))
    assert result["accuracy"] == pytest.approx(np.mean(labels == y))
    assert result["accuracy"] == pytest.approx(expected.score(X, y))


def test_subprocess_play_bound_plot(tmp_path):
    X, y = _separable(n=50, d=2, seed=2)
    data = _write_svmlight(tmp_path / "sep.svm", X, y)
    done = _command("play", data, "--algo", "perceptron", "--no-fit-intercept")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["examples", "mistakes"]
    assert [int(line.split()[0]) for line in lines[1:8]] == [1, 2, 4, 8, 16, 32, 50]
    assert "Novikoff bound" in done.stdout
    done = _command("bound", data, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["separable"] is True
    png = tmp_path / "boundary.png"
    done = _command("plot", "boundary", data, "--algo", "svm", "--C", "10", "-o", png)
    assert done.returncode == 0, done.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_console_script_sets_the_collector_for_a_short_process(monkeypatch, tmp_path):
    """``run`` (the console script) exits with main's status, collects every 100,000 net
    allocations instead of 700, and freezes what lives at its end; ``main`` leaves the
    collector as it found it."""
    import gc

    X, y = _separable(n=40, d=3, seed=2)
    data = _write_svmlight(tmp_path / "train.svm", X, y)
    before = gc.get_threshold()
    try:
        assert cli.main(["train", str(data), "--algo", "perceptron", "-o",
                         str(tmp_path / "a.hs")]) == 0
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        for argv, status in ((["train", str(data), "--algo", "perceptron", "-o",
                               str(tmp_path / "b.hs")], 0),
                             (["train", str(tmp_path / "missing.svm"), "--algo",
                               "perceptron", "-o", str(tmp_path / "c.hs")], 1)):
            gc.set_threshold(*before)
            gc.unfreeze()
            monkeypatch.setattr(sys, "argv", ["halfspaces", *argv])
            with pytest.raises(SystemExit) as exit_:
                cli.run()
            assert exit_.value.code == status
            assert gc.get_threshold()[0] == 100_000 and gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_subprocess_malformed_file_gives_one_line(tmp_path):
    bad = tmp_path / "data.svm"
    bad.write_text("1 1:0.5 2:1\n-1 1:0.25 2:0.5\n1 abc\n")
    done = _command("bound", bad, module="halfspaces")  # python -m halfspaces works too
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("halfspaces: error: ")
    assert "data.svm:3" in done.stderr and "abc" in done.stderr


# -- formats --------------------------------------------------------------------------------


@pytest.mark.parametrize("name, fmt", [
    ("a.tsv", "tsv"), ("a.TSV.gz", "tsv"), ("a.csv", "csv"), ("a.csv.bz2", "csv"),
    ("a.vw", "vw"), ("a.vw.xz", "vw"), ("heart_scale", "svmlight"), ("a9a.t", "svmlight"),
    ("x.svm.gz", "svmlight"), ("dir.tsv/data.txt", "svmlight"),
])
def test_format_from_extension(name, fmt):
    assert detect_format(name) == fmt
    assert detect_format(name, "csv") == "csv"


def test_csv_label_column_through_the_command(tmp_path, capsys):
    # The reader itself is tested in tests/datasets/test_csv.py; here: --label-column as a
    # negative index and as a header name reaches it, and the fit sees the same data.
    X, y = _separable(n=30, d=2, seed=5)
    path = _write_csv(tmp_path / "h.csv", X, y, header=["a", "b", "label"], label_last=True)
    from halfspaces import Perceptron

    want = Perceptron().fit(X, y).score(X, y)
    for column in ("-1", "2", "label"):
        model = tmp_path / f"m{column}.hs"
        assert _run(capsys, "train", path, "--label-column", column, "--algo", "perceptron",
                    "-o", model)[0] == 0
        code, out, err = _run(capsys, "evaluate", model, path, "--label-column", column,
                              "--json")
        assert code == 0, err
        assert json.loads(out)["accuracy"] == pytest.approx(want)


def test_compressed_csv_and_vw_dispatch(tmp_path, capsys):
    import gzip

    X, y = _separable(n=20, d=2, seed=13)
    plain = _write_csv(tmp_path / "d.csv", X, y)
    with open(plain, "rb") as src, gzip.open(tmp_path / "d.csv.gz", "wb") as dst:
        dst.write(src.read())
    code, out, err = _run(capsys, "bound", tmp_path / "d.csv.gz", "--json")
    assert code == 0, err
    assert json.loads(out)["n_samples"] == 20
    assert json.loads(out)["radius"] == pytest.approx(np.linalg.norm(X, axis=1).max())
    vw = tmp_path / "d.vw"
    vw.write_text("".join(f"{label} | f1:{a!r} f2:{b!r}\n" for (a, b), label
                          in zip(X.tolist(), y.tolist(), strict=True)))
    model = tmp_path / "m.hs"
    assert _run(capsys, "train", vw, "--algo", "perceptron", "-o", model)[0] == 0
    code, out, err = _run(capsys, "evaluate", model, vw, "--json")
    assert code == 0, err
    from halfspaces import Perceptron
    from halfspaces.datasets import load_vw

    Xv, yv = load_vw(vw)
    assert json.loads(out)["accuracy"] == pytest.approx(Perceptron().fit(Xv, yv).score(Xv, yv))


@pytest.mark.parametrize("content, column, match", [
    ("1,2,3\n1,2\n", 0, r"bad.csv:2: expected 3 fields, got 2"),
    ("1,2,3\n1,x,3\n", 0, r"bad.csv:2: expected a number in column 1, got 'x'"),
    ("a,b\n1,2\n", "nope", r"bad.csv:1: no column named 'nope'"),
    ("1,2\n", 5, r"bad.csv:1: --label-column 5 is out of range for 2 columns"),
    ("\n\n", 0, r"bad.csv:1: the file has no data rows"),
])
def test_csv_errors_name_file_and_line(tmp_path, capsys, content, column, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = _run(capsys, "bound", path, "--label-column", column)
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("halfspaces: error: ")
    assert __import__("re").search(match, err), err


def test_missing_file(capsys, tmp_path):
    code, _, err = _run(capsys, "evaluate", tmp_path / "no.model", tmp_path / "no.svm")
    assert code == 1
    assert err == f"halfspaces: error: {tmp_path / 'no.model'}: No such file or directory\n"


# -- train / predict / evaluate -------------------------------------------------------------


def test_train_predict_evaluate_in_process(tmp_path, capsys):
    X, y = _separable(n=80, d=4, seed=3, margin=0.05)
    y = np.where(np.random.default_rng(1).random(len(y)) < 0.1, -y, y)  # some label noise
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    model = tmp_path / "m.hs"
    code, _, err = _run(capsys, "train", data, "--algo", "pegasos", "--lam", "0.01",
                        "--max-iter", "5", "--random-state", "0", "-o", model)
    assert code == 0, err
    preds = tmp_path / "p.txt"
    code, out, err = _run(capsys, "predict", model, data, "-o", preds)
    assert code == 0 and out == "", err
    assert sorted(os.listdir(tmp_path)) == ["d.svm", "m.hs", "p.txt"]  # no temporary left
    code, out, err = _run(capsys, "evaluate", model, data, "--json")
    assert code == 0, err
    result = json.loads(out)
    # Reference: the same estimator fitted here, and the formulas written from the notes.
    from halfspaces import PegasosSVC

    est = PegasosSVC(lam=0.01, max_iter=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(np.loadtxt(preds), est.predict(X))
    assert result["accuracy"] == pytest.approx(np.mean(est.predict(X) == y))
    z = y * est.decision_function(X)
    assert result["zero_one"] == pytest.approx(np.mean(z <= 0))
    assert result["hinge"] == pytest.approx(np.mean(np.maximum(0, 1 - z)))
    assert result["logistic"] == pytest.approx(np.mean(np.log1p(np.exp(-z))))
    assert result["min_functional_margin"] == pytest.approx(z.min())
    assert result["mean_functional_margin"] == pytest.approx(z.mean())
    assert result["geometric_margin"] == pytest.approx(z.min() / np.linalg.norm(est.coef_))
    code, out, _ = _run(capsys, "evaluate", model, data)
    assert code == 0 and "accuracy" in out and "hinge loss" in out


def test_kernelized_pegasos_from_the_command_line(tmp_path, capsys):
    """``--algo pegasos --kernel rbf`` trains kernelized Pegasos: the CLI's predictions are
    those of the library's kernelized Pegasos fitted here with the same parameters."""
    import halfspaces

    X, y = _separable(n=40, d=2, seed=7)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    model, preds = tmp_path / "m.hs", tmp_path / "p.txt"
    code, _, err = _run(capsys, "train", data, "--algo", "pegasos", "--kernel", "rbf",
                        "--gamma", "0.5", "--lam", "0.01", "--max-iter", "3",
                        "--random-state", "0", "-o", model)
    assert code == 0, err
    assert _run(capsys, "predict", model, data, "-o", preds)[0] == 0
    kernel_pegasos = halfspaces.KernelPegasosSVC
    est = kernel_pegasos(kernel="rbf", gamma=0.5, lam=0.01, max_iter=3, random_state=0)
    np.testing.assert_array_equal(np.loadtxt(preds), est.fit(X, y).predict(X))
    assert type(halfspaces.load(model)) is kernel_pegasos


def test_predict_to_stdout_keeps_label_spelling(tmp_path, capsys):
    X, y = _separable(n=30, d=2, seed=4)
    data = _write_csv(tmp_path / "d.csv", X, np.where(y > 0, "yes", "no"))
    model = tmp_path / "m.hs"
    assert _run(capsys, "train", data, "--algo", "perceptron", "-o", model)[0] == 0
    code, out, _ = _run(capsys, "predict", model, data)
    assert code == 0
    assert set(out.split()) <= {"yes", "no"} and len(out.splitlines()) == 30


def test_predict_output_is_atomic_and_compressed_by_extension(tmp_path, capsys):
    import gzip

    X, y = _separable(n=25, d=2, seed=6)
    data = _write_csv(tmp_path / "d.csv", X, y)
    model = tmp_path / "m.hs"
    assert _run(capsys, "train", data, "--algo", "perceptron", "-o", model)[0] == 0
    from halfspaces import Perceptron

    want = Perceptron().fit(X, y).predict(X)
    (tmp_path / "p.txt.gz").write_text("old contents, replaced\n")
    os.chmod(tmp_path / "p.txt.gz", 0o640)
    code, out, err = _run(capsys, "predict", model, data, "-o", tmp_path / "p.txt.gz")
    assert code == 0 and out == "", err
    with gzip.open(tmp_path / "p.txt.gz", "rt") as f:
        np.testing.assert_array_equal(np.loadtxt(f), want)
    assert (tmp_path / "p.txt.gz").stat().st_mode & 0o777 == 0o640  # permissions kept
    assert sorted(os.listdir(tmp_path)) == ["d.csv", "m.hs", "p.txt.gz"]


def test_multiclass_evaluate_reports_accuracy(tmp_path, capsys):
    rng = np.random.default_rng(12)
    X = rng.normal(size=(60, 2))
    y = np.digitize(X[:, 0], [-0.4, 0.4])  # three classes 0, 1, 2
    data = _write_csv(tmp_path / "three.csv", X, y, header=["a", "b", "y"], label_last=True)
    model = tmp_path / "m.hs"
    code, _, err = _run(capsys, "train", data, "--label-column", "y", "--algo", "logistic",
                        "--C", "100", "-o", model)
    assert code == 0, err
    code, out, err = _run(capsys, "evaluate", model, data, "--label-column", "-1", "--json")
    assert code == 0, err
    result = json.loads(out)
    from halfspaces import load

    assert result["accuracy"] == pytest.approx(np.mean(load(model).predict(X) == y))
    assert result["accuracy"] > 0.9 and "one-vs-rest" in result["note"]


def test_text_model_keeps_its_featurizer(tmp_path, capsys):
    texts = ["win cash now", "lunch at noon", "cash prize win today", "see you at noon",
             "free cash prize", "meeting at noon today"] * 3
    labels = ["spam", "ham", "spam", "ham", "spam", "ham"] * 3
    data = tmp_path / "sms.tsv"
    data.write_text("".join(f"{lab}\t{txt}\n" for lab, txt in zip(labels, texts, strict=True)))
    model = tmp_path / "m.hs"
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", model)
    assert code == 0, err
    code, out, err = _run(capsys, "predict", model, data)
    assert code == 0, err
    # Reference: the same pipeline built and fitted in-process.
    from sklearn.feature_extraction.text import HashingVectorizer

    from halfspaces import Perceptron

    vec = HashingVectorizer(n_features=2**18, alternate_sign=False)
    ref = Perceptron().fit(vec.transform(texts), labels)
    assert out.split() == ref.predict(vec.transform(texts)).tolist()
    code, out, _ = _run(capsys, "evaluate", model, data, "--json")
    assert json.loads(out)["accuracy"] == pytest.approx(ref.score(vec.transform(texts), labels))
    # A text model given numbers, and a number model given text: one clear line each.
    numbers = _write_svmlight(tmp_path / "n.svm", *_separable(n=10, d=2))
    code, _, err = _run(capsys, "predict", model, numbers)
    assert code == 1 and "trained on raw text" in err
    number_model = tmp_path / "n.hs"
    assert _run(capsys, "train", numbers, "--algo", "perceptron", "-o", number_model)[0] == 0
    code, _, err = _run(capsys, "evaluate", number_model, data)
    assert code == 1 and "is raw text" in err


def test_options_map_to_parameters(tmp_path, capsys, monkeypatch):
    X, y = _separable(n=20, d=2, seed=5)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    seen = {}
    real = EstimatorSpec.build

    def spy(spec, X=None):
        est = real(spec, X)
        seen.update(est.get_params())
        return est

    monkeypatch.setattr(EstimatorSpec, "build", spy)
    code, _, err = _run(capsys, "train", data, "--algo", "svm", "--C", "inf", "--no-fit-intercept",
                        "--kernel", "rbf", "--gamma", "0.5", "--solver", "qp", "--set", "tol=1e-6",
                        "-o", tmp_path / "m")
    assert code == 0, err
    assert seen["C"] == np.inf and seen["fit_intercept"] is False and seen["kernel"] == "rbf"
    assert seen["gamma"] == 0.5 and seen["solver"] == "qp" and seen["tol"] == 1e-6
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--lam", "0.1",
                        "-o", tmp_path / "m2")
    assert code == 1
    assert "--lam does not apply to --algo perceptron" in err and "max_iter" in err
    code, _, err = _run(capsys, "train", data, "--algo", "pegasos", "--lam", "-1", "-o",
                        tmp_path / "m3")
    assert code == 1 and "'lam' must be" in err and err.count("\n") == 1


def test_halving_with_stumps_is_realizable(tmp_path, capsys):
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(60, 3))
    y = np.where(X[:, 1] >= 0.3, 1, -1)  # a decision stump labels the data
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, err = _run(capsys, "play", data, "--algo", "halving", "--hypotheses", "stumps",
                          "--n-hypotheses", "400", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["n_mistakes"] <= np.log2(400)
    assert result["n_mistakes"] <= result["bound"]["halving_bound"]


# -- play and bound -------------------------------------------------------------------------


def test_play_table_matches_a_reference_perceptron(tmp_path, capsys):
    X, y = _separable(n=70, d=2, seed=7, margin=0.1)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, err = _run(capsys, "play", data, "--no-fit-intercept", "--json")
    assert code == 0, err
    result = json.loads(out)
    mistakes = _perceptron_reference(X, y)
    cumulative = np.cumsum(mistakes)
    assert result["n_mistakes"] == cumulative[-1]
    assert [row["examples"] for row in result["table"]] == [1, 2, 4, 8, 16, 32, 64, 70]
    previous = (0, 0)
    for row in result["table"]:
        t = row["examples"]
        assert row["mistakes"] == cumulative[t - 1]
        assert row["average_loss"] == pytest.approx(cumulative[t - 1] / t)
        assert row["since_last"] == pytest.approx((cumulative[t - 1] - previous[1])
                                                  / (t - previous[0]))
        assert row["label"] == str(y[t - 1])
        previous = (t, cumulative[t - 1])
    bound = result["bound"]
    assert bound["separable"] and not bound["augmented"]
    R = np.linalg.norm(X, axis=1).max()
    gamma = _hard_margin_through_origin(X, y.astype(float))
    assert bound["radius"] == pytest.approx(R)
    assert bound["margin"] == pytest.approx(gamma, rel=1e-4)
    assert bound["novikoff_bound"] == pytest.approx((R / gamma) ** 2, rel=1e-3)
    assert result["n_mistakes"] <= bound["novikoff_bound"]


def test_play_shuffle_plays_the_rows_in_a_seeded_random_order(tmp_path, capsys):
    """--shuffle --random-state 0 plays the rows in RandomState(0)'s permutation (the
    reference perceptron on those rows), not in the file's order (here sorted by class)."""
    X, y = _separable(n=60, d=3, seed=11, margin=0.05)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    data = _write_svmlight(tmp_path / "sorted.svm", X, y)
    code, out, err = _run(capsys, "play", data, "--no-fit-intercept", "--shuffle",
                          "--random-state", "0", "--json")
    assert code == 0, err
    shuffled = np.random.RandomState(0).permutation(len(y))
    expected = int(_perceptron_reference(X[shuffled], y[shuffled]).sum())
    assert json.loads(out)["n_mistakes"] == expected
    assert expected != int(_perceptron_reference(X, y).sum())  # the order matters here
    code, out, _ = _run(capsys, "play", data, "--no-fit-intercept", "--json")  # file order
    assert json.loads(out)["n_mistakes"] == int(_perceptron_reference(X, y).sum())


@pytest.mark.parametrize("randomized", [False, True])
def test_play_weighted_majority_prints_its_bound(tmp_path, capsys, randomized):
    """Littlestone and Warmuth's bound, from N, the best expert's mistakes m* and beta, as
    the formula gives it, and the mistakes (expected ones, randomized) within it."""
    X, y = _separable(n=80, d=3, seed=12)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    argv = ["play", data, "--algo", "weighted-majority", "--beta", "0.7", "--random-state",
            "0", "--set", f"randomized={str(randomized).lower()}"]
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    result = json.loads(out)
    bound = result["bound"]
    n, m, beta = bound["n_experts"], bound["best_expert_mistakes"], bound["beta"]
    assert beta == 0.7 and n > 1 and m >= 0
    formula = (np.log(n) + m * np.log(1 / beta)) / ((1 - beta) if randomized else
                                                    np.log(2 / (1 + beta)))
    assert bound["checked"] and bound["weighted_majority_bound"] == pytest.approx(formula)
    made = bound["expected_mistakes"] if randomized else result["n_mistakes"]
    assert made <= formula
    code, out, _ = _run(capsys, *argv)
    assert code == 0 and "no mistake bound" not in out
    assert "bound: Weighted Majority (ln N + m* ln(1/beta)) / " in out
    assert f"= {formula:.6g} with N = {n} experts" in out


def test_train_logistic_reports_l_bfgs_iterations_not_epochs(tmp_path, capsys):
    X, y = _separable(n=40, d=3, seed=13)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    model = tmp_path / "m.hs"
    code, out, err = _run(capsys, "train", data, "--algo", "logistic", "-o", model)
    assert code == 0, err
    from halfspaces import load

    n_iter = load(model).n_iter_
    assert f" {n_iter} L-BFGS iteration{'s' * (n_iter != 1)}" in out and "epoch" not in out


def test_play_needs_an_online_learner(tmp_path, capsys):
    data = _write_svmlight(tmp_path / "d.svm", *_separable(n=10))
    code, _, err = _run(capsys, "play", data, "--algo", "lp")
    assert code == 1 and "is a batch learner" in err and "perceptron" in err


def test_play_skips_the_bound_on_large_data(tmp_path, capsys):
    X, y = _separable(n=40, d=2, seed=8)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, _ = _run(capsys, "play", data, "--bound-limit", "10")
    assert code == 0
    assert "bound: not computed ('-' in the table): 40 examples > --bound-limit 10" in out


def test_bound_on_separable_data_matches_sklearn(tmp_path, capsys):
    X, y = _separable(n=40, d=3, seed=9)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, err = _run(capsys, "bound", data, "--json")
    assert code == 0, err
    result = json.loads(out)
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    gamma = 1.0 / np.linalg.norm(ref.coef_)
    R = np.linalg.norm(X, axis=1).max()
    assert result["separable"] is True
    assert result["radius"] == pytest.approx(R)
    assert result["max_margin"] == pytest.approx(gamma, rel=1e-4)
    # The perceptron with an offset runs through the origin on (x, 1): its R' and gamma'.
    R_aug = np.sqrt(R**2 + 1.0)
    gamma_aug = _hard_margin_through_origin(np.hstack([X, np.ones((len(y), 1))]), y.astype(float))
    assert result["novikoff_bound"] == pytest.approx((R_aug / gamma_aug) ** 2, rel=1e-3)
    assert result["margin_one_bound"] == pytest.approx((R_aug / gamma_aug) ** 2, rel=1e-3)
    assert result["vc_dimension"] == 4
    code, out, _ = _run(capsys, "bound", data, "--no-fit-intercept", "--json")
    assert json.loads(out)["vc_dimension"] == 3
    code, out, _ = _run(capsys, "bound", data)
    assert "Novikoff bound" in out and "VC dimension" in out


def test_bound_certificate_rows_are_not_separable(tmp_path, capsys):
    rng = np.random.default_rng(10)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # XOR-like: not linearly separable
    data = _write_svmlight(tmp_path / "xor.svm", X, y)
    code, out, err = _run(capsys, "bound", data, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["separable"] is False
    rows = np.asarray(result["certificate_rows"])
    assert rows.size > 0
    # Independent LP: y_i (<w, x_i> + b) >= 1 on just those rows has no solution.
    A = -y[rows, None] * np.hstack([X[rows], np.ones((rows.size, 1))])
    lp = linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(rows.size), bounds=[(None, None)] * 3)
    assert lp.status == 2  # infeasible
    code, out, _ = _run(capsys, "bound", data)
    assert "no (with offset b); LP certificate" in out


def test_bound_needs_two_classes(tmp_path, capsys):
    path = tmp_path / "three.csv"
    path.write_text("0,1,2\n1,2,3\n2,0,1\n")
    code, _, err = _run(capsys, "bound", path)
    assert code == 1 and "needs exactly two classes" in err


# -- plot -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, extra", [
    ("boundary", ["--algo", "perceptron"]),
    ("regularization", ["--lams", "0.01", "1"]),
    ("max-margin", []),
    ("mistakes", ["--algo", "perceptron", "--no-fit-intercept"]),
    ("objective", ["--lam", "0.1", "--max-iter", "5"]),
])
def test_plot_kinds_write_png(tmp_path, capsys, kind, extra):
    X, y = _separable(n=30, d=2, seed=11)
    data = _write_csv(tmp_path / "d.csv", X, y)
    png = tmp_path / f"{kind}.png"
    code, _, err = _run(capsys, "plot", kind, data, "-o", png, *extra)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert sorted(os.listdir(tmp_path)) == sorted(["d.csv", png.name])  # no temporary left


def test_plot_needs_two_features(tmp_path, capsys):
    data = _write_svmlight(tmp_path / "d.svm", *_separable(n=20, d=3))
    code, _, err = _run(capsys, "plot", "boundary", data, "-o", tmp_path / "x.png")
    assert code == 1 and "has 3" in err and "--columns I,J" in err
    assert sorted(os.listdir(tmp_path)) == ["d.svm"]  # neither the figure nor a temporary


# -- help and errors ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["train"], ["predict"], ["evaluate"], ["play"],
                                     ["bound"], ["plot"], ["demo"]])
def test_help_has_examples(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out


def test_help_imports_no_heavy_library():
    """``halfspaces --help`` (and each command's) stays fast: no scikit-learn, SciPy, pandas,
    numba or matplotlib is imported until a command runs."""
    script = (
        "import contextlib, io, sys\n"
        "from halfspaces.cli import main\n"
        "for command in ([], ['train'], ['predict'], ['evaluate'], ['play'], ['bound'],"
        " ['plot'], ['demo']):\n"
        "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "        main([*command, '--help'])\n")
    heavy = {"sklearn", "scipy", "pandas", "numba", "matplotlib"}
    assert run_fresh(script, ENV, heavy) == ("", "[]")


def test_train_and_estimators_import_no_sklearn_or_pandas(tmp_path):
    """Importing every estimator, ``fit_file`` and ``halfspaces train`` of a perceptron from
    an svmlight file (in memory, and streamed with --cache: written, then read) import
    neither scikit-learn nor pandas; the models are the in-memory fit's."""
    X, y = _separable(n=40)
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    model = tmp_path / "m.npz"
    script = (
        "import sys\n"
        "from halfspaces import (AveragedPerceptron, HalvingClassifier, KernelPegasosSVC,"
        " KernelPerceptron, LogisticRegression, LPSeparator, PegasosSVC, Perceptron, SVC,"
        " VotedPerceptron, WeightedMajorityClassifier)\n"
        "from halfspaces.cli import main\n"
        "from halfspaces.datasets import fit_file\n"
        f"fit_file(Perceptron(shuffle=False, max_iter=2), {str(data)!r})\n"
        "for extra in ([], ['--no-shuffle', '--cache'], ['--no-shuffle', '--cache']):\n"
        f"    assert main(['train', {str(data)!r}, '--algo', 'perceptron', '--max-iter', '1',"
        f" '-o', {str(model)!r}, *extra]) == 0\n")
    assert run_fresh(script, ENV, {"sklearn", "pandas"})[1] == "[]"
    from halfspaces import Perceptron, load

    expected = Perceptron(shuffle=False, max_iter=1).fit(X, y)
    assert np.array_equal(load(model).coef_, expected.coef_)


def test_unexpected_errors_are_one_line_unless_debug(tmp_path, capsys, monkeypatch):
    def boom(args):
        raise RuntimeError("something odd\nover two lines")

    monkeypatch.setattr(_theory, "cmd_bound", boom)
    data = _write_svmlight(tmp_path / "d.svm", *_separable(n=10))
    code, _, err = _run(capsys, "bound", data)
    assert code == 1
    assert err == ("halfspaces: error: unexpected RuntimeError: something odd over two lines"
                   " (run again with --debug for the traceback)\n")
    with pytest.raises(RuntimeError, match="something odd"):
        cli.main(["bound", data, "--debug"])


def test_warnings_are_one_line(tmp_path, capsys, monkeypatch):
    import warnings

    def careful(args):
        warnings.warn("did not converge\nin 3 passes", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(_theory, "cmd_bound", careful)
    data = _write_svmlight(tmp_path / "d.svm", *_separable(n=10))
    code, _, err = _run(capsys, "bound", data)
    assert code == 0
    assert err == "halfspaces: warning: did not converge in 3 passes\n"


def test_demo_calls_the_demo_module(tmp_path, capsys, monkeypatch):
    import halfspaces.demo

    calls = []
    monkeypatch.setattr(halfspaces.demo, "run", lambda out_dir, quick: calls.append(
        (out_dir, quick)) or 0)
    assert cli.main(["demo", "--quick", "--out-dir", str(tmp_path)]) == 0
    assert calls == [(str(tmp_path), True)]


def test_a_warnings_advice_names_the_flags(tmp_path, capsys):
    """The library says "Increase max_iter"; the command line says "Increase --max-iter"."""
    X, y = _separable(n=40)
    y = y.copy()
    y[:4] = -y[:4]  # not separable: the perceptron cannot end with a clean pass
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--max-iter", "2",
                        "--random-state", "0", "-o", tmp_path / "m")
    assert code == 0
    assert "after --max-iter 2 passes" in err and "Increase --max-iter if" in err
    assert "max_iter" not in err


def test_the_summary_of_an_early_stop_says_so(tmp_path, capsys):
    X, y = _separable(n=200)
    y = y.copy()
    y[::7] = -y[::7]  # noisy: no clean pass, so only the held-out rule stops it
    data = _write_svmlight(tmp_path / "d.svm", X, y)
    code, out, _ = _run(capsys, "train", data, "--algo", "perceptron", "--early-stopping",
                        "--n-iter-no-change", "2", "--max-iter", "500", "--random-state", "0",
                        "-o", tmp_path / "m")
    assert code == 0 and "stopped early on held-out data" in out and "NOT converged" not in out


def test_an_sgd_fit_of_fixed_epochs_is_not_called_unconverged(tmp_path, capsys):
    """LogisticRegression(solver="sgd") runs max_iter epochs by design: no convergence test."""
    data = _write_svmlight(tmp_path / "d.svm", *_separable(n=60))
    code, out, _ = _run(capsys, "train", data, "--algo", "logistic", "--set", "solver=sgd",
                        "--max-iter", "3", "--random-state", "0", "--json", "-o", tmp_path / "m")
    assert code == 0 and json.loads(out)["converged"] is None and json.loads(out)["epochs"] == 3
    code, out, _ = _run(capsys, "train", data, "--algo", "logistic", "--set", "solver=sgd",
                        "--max-iter", "3", "--random-state", "0", "-o", tmp_path / "m")
    assert code == 0 and "converged" not in out and "3 epochs" in out


def test_train_says_which_svm_solver_and_why_and_the_fallback(tmp_path, capsys):
    """The summary names the solver and the reason; a fallback to the QP is a warning too."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) * np.array([1e3, 1e3, 1.0, 1.0])  # C ||x||^2 ~ 1e6
    y = np.where(X @ rng.normal(size=4) / np.array([1e3, 1e3, 1.0, 1.0]).mean()
                 + 0.3 * rng.normal(size=60) > 0, 1, -1)
    data = _write_svmlight(tmp_path / "mixed.svm", X, y)
    code, out, err = _run(capsys, "train", data, "--algo", "svm", "-o", tmp_path / "m")
    assert code == 0, err
    assert ("solver qp (solver='auto': dual coordinate descent did not certify its duality"
            " gap in ") in out and "so the low-rank interior point solved the problem" in out
    assert "SolverFallbackWarning" in err or "did not certify its duality gap" in err
    code, out, err = _run(capsys, "train", data, "--algo", "svm", "--solver", "dcd",
                          "--set", "max_iter=20000", "-o", tmp_path / "m2")
    assert code == 0, err
    assert "solver dcd (solver='dcd' was given)" in out
