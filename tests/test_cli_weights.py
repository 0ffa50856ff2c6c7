"""The CLI and the readers carry example weights (issue 12): a VW file's importance weights
and a CSV's ``--weight-column`` reach ``fit(X, y, sample_weight=w)`` in memory, each streamed
block's ``partial_fit`` and the binary cache (every ``--algo`` takes them);
``evaluate`` adds the weighted figures. The references are the Python estimators fitted
with the weights written into the file, and NumPy means written from the definitions."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import SVC, AveragedPerceptron, LPSeparator, PegasosSVC, Perceptron, cli
from halfspaces.cli import _models
from halfspaces.datasets import load, load_csv, load_vw
from halfspaces.persistence import load as load_model

# the importance weights written into the VW file: a missing one is 1; zeros and fractions
WEIGHTS = [2.0, None, 0.5, 3.0, 1.0, 0.0, 1.5, None, 0.25, 4.0] * 3


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _vw(path, weights=WEIGHTS, seed=0):
    """A VW file of one row per weight (None: no importance field), labels {-1, 1} from a
    noisy halfspace over 5 named features; returns (path, the weights as numbers)."""
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(5)
    lines = []
    for weight in weights:
        x = np.round(rng.standard_normal(5), 3)
        label = 1 if x @ direction + 0.3 * rng.standard_normal() >= 0 else -1
        head = f"{label}" if weight is None else f"{label} {weight!r}"
        lines.append(head + " |f " + " ".join(f"x{j}:{float(v)!r}" for j, v in enumerate(x) if v))
    path.write_text("\n".join(lines) + "\n")
    return path, np.array([1.0 if w is None else w for w in weights])


def _same(a, b):
    """The same fitted arrays, bit for bit."""
    fitted = sorted(k for k in vars(b) if k.endswith("_") and not k.startswith("_"))
    assert fitted == sorted(k for k in vars(a) if k.endswith("_") and not k.startswith("_"))
    for key in fitted:
        va, vb = getattr(a, key), getattr(b, key)
        if sp.issparse(va):  # e.g. SVC's support vectors
            va, vb = va.toarray(), vb.toarray()
        va, vb = np.asarray(va), np.asarray(vb)
        assert va.dtype == vb.dtype and va.tobytes() == vb.tobytes(), key


def _in_memory_forbidden(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("read the whole file")

    monkeypatch.setattr(_models, "read_args_data", refuse)


def test_the_reader_keeps_the_importance_weights_and_none_when_all_are_one(tmp_path):
    path, w = _vw(tmp_path / "w.vw")
    data = load(path)
    assert np.array_equal(data.sample_weight, w)
    unit, _ = _vw(tmp_path / "u.vw", [1.0, None, 1] * 4)
    assert load(unit).sample_weight is None


@pytest.mark.parametrize(("algo", "make", "options"), [
    ("svm", lambda: SVC(C=1.0, random_state=0), ["--C", "1", "--random-state", "0"]),
    ("perceptron", lambda: Perceptron(max_iter=5, random_state=3),
     ["--max-iter", "5", "--random-state", "3"]),
    ("pegasos", lambda: PegasosSVC(lam=0.1, max_iter=4, random_state=1),
     ["--lam", "0.1", "--max-iter", "4", "--random-state", "1"]),
    ("logistic", lambda: __import__("halfspaces").LogisticRegression(C=2.0), ["--C", "2"]),
    ("voted", lambda: __import__("halfspaces").VotedPerceptron(max_iter=3, random_state=2),
     ["--max-iter", "3", "--random-state", "2"]),
    ("kernel-perceptron", lambda: __import__("halfspaces").KernelPerceptron(
        max_iter=3, random_state=2), ["--max-iter", "3", "--random-state", "2"]),
])
def test_in_memory_training_passes_the_importance_weights(tmp_path, capsys, algo, make,
                                                          options):
    path, w = _vw(tmp_path / "w.vw")
    code, out, err = _run(capsys, "train", path, "--algo", algo, *options, "-o",
                          tmp_path / "m", "--json")
    assert code == 0, err
    assert json.loads(out)["sample_weight"] == "importance"
    X, y = load_vw(path)
    with warnings.catch_warnings(action="ignore"):
        _same(load_model(tmp_path / "m"), make().fit(X, y, sample_weight=w))


STREAMED = [
    ("perceptron", lambda: Perceptron(max_iter=6, shuffle=False),
     ["--max-iter", "6", "--no-shuffle"]),
    ("averaged", lambda: AveragedPerceptron(max_iter=4, fit_intercept=False, shuffle=False),
     ["--max-iter", "4", "--no-fit-intercept", "--no-shuffle"]),
    ("voted", lambda: __import__("halfspaces").VotedPerceptron(max_iter=3, shuffle=False),
     ["--max-iter", "3", "--no-shuffle"]),
]


@pytest.mark.parametrize(("algo", "make", "options"), STREAMED)
@pytest.mark.parametrize("cache", [False, True])
def test_streamed_training_passes_the_importance_weights(tmp_path, capsys, monkeypatch, algo,
                                                         make, options, cache):
    path, w = _vw(tmp_path / "w.vw")
    _in_memory_forbidden(monkeypatch)
    flags = ["--cache"] if cache else []
    for _ in range(1 + cache):  # with the cache: written, then read
        code, out, err = _run(capsys, "train", path, "--algo", algo, *options, *flags, "-o",
                              tmp_path / "m")
        assert code == 0, err
        assert "weighted by its VW importance weights" in out
        X, y = load_vw(path)
        with warnings.catch_warnings(action="ignore"):  # not separable in max_iter passes
            expected = make().fit(X, y, sample_weight=w)
        _same(load_model(tmp_path / "m"), expected)
    if cache:
        header = json.loads((tmp_path / "w.vw.hscache" / "header.json").read_text())
        assert header["weighted"] is True


def test_a_cache_written_without_its_weights_record_is_rebuilt(tmp_path, capsys):
    """A cache from before the header recorded the weights is never read as unweighted."""
    path, w = _vw(tmp_path / "w.vw")
    args = ["train", path, "--algo", "perceptron", "--no-shuffle", "--max-iter", "6",
            "--cache", "-o", tmp_path / "m"]
    assert _run(capsys, *args)[0] == 0
    header_path = tmp_path / "w.vw.hscache" / "header.json"
    header = json.loads(header_path.read_text())
    del header["weighted"]
    header_path.write_text(json.dumps(header))
    for block in (tmp_path / "w.vw.hscache").glob("*.weights.npy"):
        block.unlink()  # an older cache had none: rebuilt, not read without them
    code, _, err = _run(capsys, *args)
    assert code == 0, err
    assert json.loads(header_path.read_text())["weighted"] is True
    X, y = load_vw(path)
    with warnings.catch_warnings(action="ignore"):
        _same(load_model(tmp_path / "m"),
              Perceptron(max_iter=6, shuffle=False).fit(X, y, sample_weight=w))


@pytest.mark.parametrize("cache", [[], ["--cache"]])
def test_unit_weights_change_nothing(tmp_path, capsys, cache):
    """A file whose weights are all 1 (written or not) trains the unweighted model."""
    plain, _ = _vw(tmp_path / "plain.vw", [None] * 30)
    ones, _ = _vw(tmp_path / "ones.vw", [1.0, None, 1] * 10)
    models = []
    for path in (plain, ones):
        code, out, err = _run(capsys, "train", path, "--algo", "perceptron", "--no-shuffle",
                              *cache, "-o", tmp_path / f"{path.stem}.m", "--json")
        assert code == 0, err
        assert json.loads(out)["sample_weight"] is None
        models.append(load_model(tmp_path / f"{path.stem}.m"))
    X, y = load_vw(plain)
    with warnings.catch_warnings(action="ignore"):
        _same(models[0], Perceptron(shuffle=False).fit(X, y))
    _same(models[1], models[0])


def test_pegasos_trains_in_memory_when_the_file_has_weights(tmp_path, capsys):
    """Pegasos's stream takes no weights: the CLI trains it in memory with them, and refuses
    --cache (which only streams)."""
    path, w = _vw(tmp_path / "w.vw")
    options = ["--algo", "pegasos", "--lam", "0.1", "--max-iter", "3",
               "--set", "sampling=cyclic"]
    code, out, err = _run(capsys, "train", path, *options, "-o", tmp_path / "m")
    assert code == 0, err
    X, y = load_vw(path)
    _same(load_model(tmp_path / "m"),
          PegasosSVC(lam=0.1, max_iter=3, sampling="cyclic").fit(X, y, sample_weight=w))
    code, _, err = _run(capsys, "train", path, *options, "--cache", "-o", tmp_path / "m2")
    assert code == 1
    assert "--cache: " in err and "drop --cache to train in memory" in err
    assert "--ignore-weights" in err


@pytest.mark.filterwarnings("ignore::halfspaces.NotSeparableWarning")  # noisy labels
def test_lp_trains_with_the_file_weights_and_ignore_weights_trains_without(tmp_path, capsys):
    path, w = _vw(tmp_path / "w.vw")
    code, out, err = _run(capsys, "train", path, "--algo", "lp", "-o", tmp_path / "m")
    assert code == 0, err
    assert "weighted by its VW importance weights" in out
    X, y = load_vw(path)
    _same(load_model(tmp_path / "m"), LPSeparator().fit(X, y, sample_weight=w))
    code, out, err = _run(capsys, "train", path, "--algo", "lp", "--ignore-weights",
                          "-o", tmp_path / "m2")
    assert code == 0, err
    assert "its example weights ignored (--ignore-weights)" in out
    _same(load_model(tmp_path / "m2"), LPSeparator().fit(X, y))


def _csv(path, weights, header=False):
    """label, x0, weight, x1 columns; returns (path, X, y, weights)."""
    rng = np.random.default_rng(1)
    X = np.round(rng.standard_normal((len(weights), 2)), 3)
    y = np.where(X @ [1.0, -2.0] + 0.2 * rng.standard_normal(len(weights)) >= 0, 1.0, -1.0)
    rows = [f"{label:g},{float(a)!r},{float(s)!r},{float(b)!r}"
            for label, (a, b), s in zip(y, X, weights, strict=True)]
    path.write_text(("y,a,w,b\n" if header else "") + "\n".join(rows) + "\n")
    return path, X, y, np.array(weights, dtype=float)


@pytest.mark.parametrize(("column", "header"), [("2", False), ("-2", False), ("w", True)])
def test_a_csv_weight_column_is_passed_to_fit(tmp_path, capsys, column, header):
    path, X, y, w = _csv(tmp_path / "d.csv", [2.0, 0.5, 0.0, 3.0, 1.0, 1.5] * 4, header)
    got = load_csv(path, 0, weight_column=column)
    assert np.array_equal(got[0], X) and np.array_equal(got[1], y)
    assert np.array_equal(got[2], w)
    code, out, err = _run(capsys, "train", path, "--weight-column", column, "--algo", "svm",
                          "--C", "10", "--solver", "qp", "-o", tmp_path / "m", "--json")
    assert code == 0, err
    assert json.loads(out)["sample_weight"] == "column"
    expected = SVC(C=10.0, solver="qp").fit(X, y, sample_weight=w)
    _same(load_model(tmp_path / "m"), expected)
    # predict reads the file as train did: the weights are not a feature
    code, out, err = _run(capsys, "predict", tmp_path / "m", path, "--weight-column", column)
    assert code == 0, err
    assert out.split() == [f"{v:g}" for v in expected.predict(X)]


def test_evaluate_reports_the_weighted_figures(tmp_path, capsys):
    """Weighted means sum_i s_i f_i / sum_i s_i of the right predictions and the losses,
    from a NumPy reference on the model's scores; VW read in blocks, CSV read whole."""
    vw, w = _vw(tmp_path / "w.vw")
    assert _run(capsys, "train", vw, "--algo", "svm", "-o", tmp_path / "m")[0] == 0
    model = load_model(tmp_path / "m")
    X, y = load_vw(vw)
    z = np.where(y == model.classes_[1], 1.0, -1.0) * model.decision_function(X)
    expected = {"weight_sum": w.sum(),
                "weighted_accuracy": w @ (model.predict(X) == y) / w.sum(),
                "weighted_zero_one": w @ (z <= 0) / w.sum(),
                "weighted_hinge": w @ np.maximum(0, 1 - z) / w.sum(),
                "weighted_logistic": w @ np.log1p(np.exp(-z)) / w.sum()}
    code, out, err = _run(capsys, "evaluate", tmp_path / "m", vw, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["sample_weight"] == "used"
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, rel=1e-12), key
    assert result["accuracy"] == pytest.approx(np.mean(model.predict(X) == y))
    code, out, _ = _run(capsys, "evaluate", tmp_path / "m", vw)
    assert "weighted hinge loss" in out and "weights " in out
    code, out, _ = _run(capsys, "evaluate", tmp_path / "m", vw, "--json", "--ignore-weights")
    result = json.loads(out)
    assert result["sample_weight"] == "ignored" and "weighted_accuracy" not in result
    # a file without weights: the unweighted report only
    plain, _ = _vw(tmp_path / "plain.vw", [None] * 12)
    result = json.loads(_run(capsys, "evaluate", tmp_path / "m", plain, "--json")[1])
    assert "sample_weight" not in result and "weighted_accuracy" not in result

    path, Xc, yc, wc = _csv(tmp_path / "d.csv", [2.0, 0.5, 0.0, 3.0, 1.0, 1.5] * 4)
    assert _run(capsys, "train", path, "--weight-column", "2", "--algo", "svm", "-o",
                tmp_path / "c")[0] == 0
    model = load_model(tmp_path / "c")
    result = json.loads(_run(capsys, "evaluate", tmp_path / "c", path, "--weight-column", "2",
                             "--json")[1])
    z = yc * model.decision_function(Xc)
    assert result["weighted_hinge"] == pytest.approx(wc @ np.maximum(0, 1 - z) / wc.sum())


@pytest.mark.parametrize("command", [["play"], ["bound"]])
def test_the_commands_that_do_not_use_weights_say_so(tmp_path, capsys, command):
    path, _ = _vw(tmp_path / "w.vw", [2.0, None, 0.5] * 4)
    code, _, err = _run(capsys, *command, path, "--json")
    assert code == 0, err
    assert f"halfspaces: note: {path} gives example weights; {command[0]} does not use them" \
        in err


def test_a_negative_importance_weight_is_refused_at_its_line_and_column(tmp_path, capsys):
    path = tmp_path / "n.vw"
    path.write_text("1 |f a\n-1 0.5 |f b\n1 -0.5 'tag |f a\n")
    with pytest.raises(ValueError, match=r"n\.vw:3:3: the importance weight '-0\.5' is"
                                         r" negative; an example's weight must be >= 0"):
        load_vw(path)
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--no-shuffle", "-o",
                        tmp_path / "m")
    assert code == 1
    assert "n.vw:3:3: the importance weight '-0.5' is negative" in err


def test_a_weight_near_the_float_range_trains_and_never_converges_to_inf(tmp_path, capsys):
    # The CLI printed "duality gap inf, converged" for a weight of 1e300 (the QP's failure).
    weights = [1.0] * 24
    weights[3] = 1e300
    path, X, y, w = _csv(tmp_path / "d.csv", weights)
    code, out, err = _run(capsys, "train", path, "--weight-column", "2", "--algo", "svm",
                          "--solver", "qp", "-o", tmp_path / "m", "--json")
    assert code == 0, err
    fit = json.loads(out)
    assert np.isfinite(fit["duality_gap"]) and np.isfinite(fit["objective"])
    assert fit["duality_gap"] <= 1e-3 * fit["objective"]
    # whatever an estimator records, an infinite objective or gap is never "converged"
    stuck = SVC().fit(X, y)
    stuck.duality_gap_ = float("inf")
    assert _models.fit_summary(stuck, None)["converged"] is False
