"""plot_reliability: the binned curve against a NumPy reference, and ink on the canvas."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from test_pictures import _ink_in_axes  # noqa: E402

from halfspaces import SVC, plotting  # noqa: E402


def _ax():
    return Figure(figsize=(5, 5), layout="constrained").add_subplot()


def test_curve_is_the_binned_fractions_of_positives():
    rng = np.random.default_rng(0)
    p = rng.random(400)
    y = np.where(rng.random(400) < p**2, "spam", "ham")  # over-confident predictions
    ax = plotting.plot_reliability(y, np.column_stack([1 - p, p]), n_bins=5, ax=_ax())
    curve = ax.get_lines()[1]
    k = np.minimum((p * 5).astype(int), 4)  # the bin of each row: [0, .2), ..., [.8, 1]
    np.testing.assert_allclose(curve.get_xdata(), [p[k == b].mean() for b in range(5)])
    np.testing.assert_allclose(curve.get_ydata(), [np.mean(y[k == b] == "spam")
                                                   for b in range(5)])
    assert ax.get_xlabel() == "mean predicted P(y = spam)"
    assert _ink_in_axes(ax) > 0.002


def test_svc_probabilities_in_a_reliability_diagram(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    clf = SVC(probability=True, random_state=0).fit(X, y)
    ax = plotting.plot_reliability(y, clf.predict_proba(X), label="SVC + Platt", ax=_ax())
    ax.get_figure().savefig(tmp_path / "reliability.png")
    xs, ys = ax.get_lines()[1].get_data()
    assert np.all((xs >= 0) & (xs <= 1)) and np.all((ys >= 0) & (ys <= 1))
    assert "SVC + Platt (Brier score" in ax.get_legend().get_texts()[1].get_text()


def test_bad_input_says_what_and_how():
    with pytest.raises(ValueError, match=r"plot_reliability: proba must hold one probability"
                                         r" in \[0, 1\] per row of y_true \(3 rows\)"):
        plotting.plot_reliability([0, 1, 1], [0.2, 0.5], ax=_ax())
    with pytest.raises(ValueError, match=r"with values outside \[0, 1\]"):
        plotting.plot_reliability([0, 1], [0.2, 1.5], ax=_ax())
    with pytest.raises(ValueError, match="needs exactly two classes"):
        plotting.plot_reliability([0, 1, 2], [0.2, 0.5, 0.1], ax=_ax())
    with pytest.raises(ValueError, match="'n_bins' must be an int >= 1"):
        plotting.plot_reliability([0, 1], [0.2, 0.5], n_bins=0, ax=_ax())
