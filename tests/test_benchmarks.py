"""The benchmark harness: the text files it writes hold the data, run_all covers every script.

The benchmarks time nothing here; these tests check the parts whose mistakes would make a
benchmark compare different work: the svmlight and VW files given to the two sides must
hold the same rows, and ``run_all.py --quick`` must reach every script.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import _common  # noqa: E402
import bench_file_to_model  # noqa: E402
import run_all  # noqa: E402
import summary  # noqa: E402


def read_vw(path, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """Reference reader of ``label |f j:v ...`` lines (1-based j), from the VW text format."""
    rows, labels = [], []
    with open(path) as f:
        for line in f:
            label, bar, features = line.partition(" |f")
            assert bar, line
            row = np.zeros(n_features)
            for token in features.split():
                j, v = token.split(":")
                row[int(j) - 1] = float(v)
            rows.append(row)
            labels.append(float(label))
    return np.array(rows), np.array(labels)


def small_set():
    X, y = _common.make_sparse_planted(60, 30, 5, noise=0.2, random_state=3)
    X = X.tolil()
    X[7, :] = 0.0  # an empty row: a line with a label only
    X = sp.csr_matrix(X)
    X.eliminate_zeros()
    return X, y


def test_svmlight_and_vw_files_hold_the_same_rows_exactly(tmp_path):
    X, y = small_set()
    svm, vw = tmp_path / "a.svm", tmp_path / "a.vw"
    _common.write_text_formats(X, y, svm, vw, chunk=16)  # several chunks
    X_svm, y_svm = load_svmlight_file(str(svm), n_features=30)
    assert np.array_equal(X_svm.toarray(), X.toarray()) and np.array_equal(y_svm, y)
    X_vw, y_vw = read_vw(vw, 30)
    assert np.array_equal(X_vw, X.toarray()) and np.array_equal(y_vw, y)


def test_six_digit_files_agree_with_each_other_and_round_the_data(tmp_path):
    X, y = small_set()
    svm, vw = tmp_path / "a.svm", tmp_path / "a.vw"
    _common.write_text_formats(X, y, svm, vw, value_format="%.6g")
    X_svm, _ = load_svmlight_file(str(svm), n_features=30)
    X_vw, _ = read_vw(vw, 30)
    assert np.array_equal(X_svm.toarray(), X_vw)
    np.testing.assert_allclose(X_vw, X.toarray(), rtol=5e-6, atol=0)


def test_file_benchmark_writes_its_files_once(tmp_path):
    files = bench_file_to_model.make_files(tmp_path, 50, 40, 6)
    X, y = _common.make_sparse_planted(50, 40, 6, noise=0.05, random_state=0)
    X_svm, y_svm = load_svmlight_file(str(files["svm"]), n_features=40)
    np.testing.assert_allclose(X_svm.toarray(), X.toarray(), rtol=5e-6, atol=0)
    assert np.array_equal(y_svm, y)
    assert read_vw(files["vw"], 40)[0].tolist() == X_svm.toarray().tolist()
    stamp = files["svm"].stat().st_mtime_ns
    assert bench_file_to_model.make_files(tmp_path, 50, 40, 6) == files
    assert files["svm"].stat().st_mtime_ns == stamp  # reused, not rewritten


def test_run_all_has_a_quick_run_of_every_script():
    scripts = {path.stem for path in BENCH.glob("bench_*.py")}
    assert {script for script, _ in run_all.RUNS.values()} == scripts
    for name, (_, sizes) in run_all.RUNS.items():
        assert "quick" in sizes and "full" in sizes, name
        assert set(sizes) <= set(run_all.SIZES), name


def test_readme_speed_table_is_the_one_read_from_the_results_files():
    readme = (BENCH.parent / "README.md").read_text(encoding="utf-8")
    assert summary.markdown_table() in readme


def test_summary_reads_one_ratio_per_data_set_as_the_files_give_them():
    for row in summary.ROWS:
        assert len(summary.ratios(row)) == len(re.split("[/;]", row.data)), row.results
    # read independently: the printed ratios are those of the medians, or of the speeds
    text = (summary.RESULTS / "bench_perceptron.txt").read_text(encoding="utf-8")
    ours, peer = ([float(v) for v in re.findall(rf"^  {who}: Perceptron.*?median\s+([\d.]+) ms",
                                                  text, re.M)]
                  for who in ("ours", "scikit-learn"))
    perceptron = next(row for row in summary.ROWS if row.results == "bench_perceptron")
    np.testing.assert_allclose(summary.ratios(perceptron), np.divide(ours, peer), atol=0.005)
    text = (summary.RESULTS / "bench_svmlight.txt").read_text(encoding="utf-8")
    speeds = np.array(re.findall(r"^\S+/\S+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)", text, re.M),
                      dtype=float)
    svmlight = next(row for row in summary.ROWS if row.results == "bench_svmlight")
    np.testing.assert_allclose(summary.ratios(svmlight), speeds[:, 1] / speeds[:, 0], atol=0.006)
