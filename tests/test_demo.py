"""The demo (quick mode) runs end to end: status 0, every algorithm in its table, every bound
holding, the figures written as real PNGs, and the saved models reloading to the same
predictions as models trained afresh here."""

import contextlib
import io
import sys

import numpy as np
import pytest

import halfspaces
from halfspaces import demo

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FIGURES = ["decision_boundary.png", "regularization.png", "max_margin.png",
           "perceptron_update.png", "mistakes_vs_novikoff.png", "pegasos_objective.png"]
ALGORITHMS = ["Perceptron", "AveragedPerceptron", "VotedPerceptron", "KernelPerceptron",
              "WeightedMajority", "Halving", "PegasosSVC", "SVC(dcd", "SVC(qp",
              "SVC(rbf", "LogisticRegression", "LPSeparator"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo") / "out"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = demo.run(out_dir=out_dir, quick=True)
    return status, buffer.getvalue(), out_dir


def _table(out: str) -> str:
    start = out.index("1. Every algorithm")
    return out[start: out.index("\n2. ", start)]


def test_status_zero_and_every_bound_holds(quick_run):
    status, out, out_dir = quick_run
    assert status == 0, out
    assert "VIOLATED" not in out and "FAILED" not in out and "DIFFER" not in out
    assert "every bound held" in out
    assert "(R/gamma)^2" in out
    report = (out_dir / "demo-report.txt").read_text()
    assert report.splitlines()[0].startswith("halfspaces demo")


def test_table_names_every_algorithm(quick_run):
    table = _table(quick_run[1])
    for name in ALGORITHMS:
        assert name in table, name
    assert "raw text" in table  # the sms_spam pipeline


def test_figures_are_nonempty_pngs(quick_run):
    out_dir = quick_run[2]
    for name in FIGURES:
        data = (out_dir / name).read_bytes()
        assert len(data) > 1000 and data.startswith(PNG_SIGNATURE), name


def test_every_model_reloads_and_the_count_matches(quick_run):
    _, out, out_dir = quick_run
    files = sorted((out_dir / "models").glob("*.model"))
    assert len(files) >= len(ALGORITHMS)
    assert f"{len(files)} of {len(files)} models reload to identical predictions" in out
    for path in files:
        assert hasattr(halfspaces.load(path), "predict"), path.name


def test_saved_perceptron_matches_a_fresh_numpy_perceptron(quick_run):
    """The reloaded a9a Perceptron equals the perceptron rule run here from its formula."""
    from halfspaces.datasets.bundled import load_a9a

    X, y = load_a9a("train")
    Xt, _ = load_a9a("test")
    X, y, Xt = X[:3000].toarray(), np.asarray(y[:3000], float), Xt[:3000].toarray()
    w, b = np.zeros(X.shape[1]), 0.0
    for x_t, y_t in zip(X, y, strict=True):  # w <- w + y x, b <- b + y on y (w.x + b) <= 0
        if y_t * (x_t @ w + b) <= 0:
            w, b = w + y_t * x_t, b + y_t
    model = halfspaces.load(quick_run[2] / "models" / "perceptron_a9a_3k.model")
    np.testing.assert_allclose(model.coef_.ravel(), w)
    np.testing.assert_allclose(np.ravel(model.intercept_)[0], b)
    expected = np.where(Xt @ w + b >= 0, 1.0, -1.0)
    np.testing.assert_array_equal(model.predict(Xt), expected)


def test_figures_are_skipped_with_a_note_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    lines = []
    assert demo._figures_section(lines.append, None, {}, str(tmp_path))
    assert "matplotlib is not installed" in lines[0]
    assert not list(tmp_path.glob("*.png"))
