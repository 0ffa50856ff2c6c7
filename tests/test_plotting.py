"""Plots render headless and draw what the math says.

The lines are read back from the Axes and checked against independent computations: the
decision function of a scikit-learn model, scikit-learn's own SVM solution, the perceptron
update ``w + y x`` and ``np.cumsum`` of a transcript's mistakes.
"""

from __future__ import annotations

import importlib.util
import pathlib

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.svm import SVC as SkSVC  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from halfspaces import plotting  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _blobs(n=40, seed=0, gap=1.0, noise=0.6):
    """Two Gaussian blobs in the plane, labels 'neg'/'pos' (any labels must work)."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal([-gap, 0.0], noise, (n // 2, 2)),
                   rng.normal([gap, 0.5], noise, (n - n // 2, 2))])
    y = np.array(["neg"] * (n // 2) + ["pos"] * (n - n // 2))
    return X, y


def _ax():
    return Figure(figsize=(5, 5)).add_subplot()


def _line(ax, label):
    found = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(found) == 1, [line.get_label() for line in ax.get_lines()]
    return np.column_stack([found[0].get_xdata(), found[0].get_ydata()]).astype(float)


def _collection(ax, label):
    found = [c for c in ax.collections if c.get_label() == label]
    assert len(found) == 1, [c.get_label() for c in ax.collections]
    return np.asarray(found[0].get_offsets(), dtype=float)


def _rows_of(points, X):
    """Indices of the rows of X at the given points (exact coordinates)."""
    return sorted(int(np.flatnonzero(np.all(X == p, axis=1))[0]) for p in points)


def test_decision_boundary_lines_have_the_scores_the_math_says():
    X, y = _blobs()
    est = LinearSVC(C=1.0, dual=True, max_iter=100_000, random_state=0).fit(X, y)
    ax = plotting.plot_decision_boundary(est, X, y, ax=_ax())
    for label, level in (("decision boundary (score = 0)", 0.0), ("margin (score = +1)", 1.0),
                         ("margin (score = -1)", -1.0)):
        points = _line(ax, label)
        assert points.shape == (2, 2)
        np.testing.assert_allclose(est.decision_function(points), level, atol=1e-9)
    # Circled: exactly the rows with y * score <= 1, computed here from the model.
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    expected = np.flatnonzero(y_pm * est.decision_function(X) <= 1.0)
    assert expected.size > 0
    assert _rows_of(_collection(ax, "on or inside the margin"), X) == expected.tolist()
    # The lines span the visible box (they are drawn across the whole picture).
    x0, x1 = ax.get_xlim()
    boundary = _line(ax, "decision boundary (score = 0)")
    assert boundary[:, 0].min() <= x0 + 1e-9 or boundary[:, 1].min() <= ax.get_ylim()[0] + 1e-9


def test_decision_boundary_without_margins_draws_one_line():
    X, y = _blobs(seed=1)
    est = LinearSVC(dual=True, max_iter=100_000, random_state=0).fit(X, y)
    ax = plotting.plot_decision_boundary(est, X, y, ax=_ax(), margins=False)
    assert [line.get_label() for line in ax.get_lines()] == ["decision boundary (score = 0)"]
    assert not [c for c in ax.collections if c.get_label() == "on or inside the margin"]


def test_kernel_model_contours_lie_on_the_level_sets():
    X, y = _blobs(seed=2)
    est = SkSVC(kernel="rbf", C=1.0, gamma=0.5).fit(X, y)
    ax = plotting.plot_decision_boundary(est, X, y, ax=_ax(), grid_resolution=300)
    contours = [c for c in ax.collections if isinstance(c, ContourSet) and not c.filled]
    assert len(contours) == 1
    cs = contours[0]
    np.testing.assert_allclose(sorted(cs.levels), [-1.0, 0.0, 1.0])
    for level, segments in zip(cs.levels, cs.allsegs, strict=True):
        assert segments, f"no contour drawn at level {level}"
        vertices = np.vstack(segments)
        # Linear interpolation on a 300 x 300 grid: the scores are the level up to ~1e-2.
        np.testing.assert_allclose(est.decision_function(vertices), level, atol=2e-2)


def test_halfspaces_svc_boundary_margins_are_at_plus_minus_one():
    from halfspaces import SVC

    X, y = _blobs(seed=3)
    est = SVC(C=1.0).fit(X, y)
    ax = plotting.plot_decision_boundary(est, X, y, ax=_ax())
    for label, level in (("margin (score = +1)", 1.0), ("margin (score = -1)", -1.0)):
        np.testing.assert_allclose(est.decision_function(_line(ax, label)), level, atol=1e-8)


@pytest.mark.parametrize("bad_X, match", [
    (np.zeros((5, 3)), "exactly 2 features.*got 3"),
    (np.zeros(5), "exactly 2 features"),
])
def test_boundary_plots_need_two_features(bad_X, match):
    y = np.array([0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match=match):
        plotting.plot_decision_boundary(LinearSVC(), bad_X, y, ax=_ax())
    with pytest.raises(ValueError, match=match):
        plotting.plot_max_margin(bad_X, y, ax=_ax())


def test_boundary_plot_rejects_more_than_two_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.repeat([0, 1, 2], 10)
    est = LinearSVC(dual=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="more than two classes|exactly two classes"):
        plotting.plot_decision_boundary(est, X, y, ax=_ax())


def test_max_margin_matches_a_hard_margin_svm_from_sklearn():
    X, y = _blobs(seed=4, gap=2.0, noise=0.4)
    ax = plotting.plot_max_margin(X, y, ax=_ax())
    # Independent: scikit-learn's SVM with a huge C is the hard-margin SVM on separable data.
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    w, b = ref.coef_[0], ref.intercept_[0]
    y_pm = np.where(y == ref.classes_[1], 1.0, -1.0)
    assert np.all(y_pm * (X @ w + b) > 0), "test data must be separable"
    gamma = 1.0 / np.linalg.norm(w)
    boundary = _line(ax, "max-margin separator")
    # Signed distances of the drawn lines to sklearn's hyperplane: 0 and +-gamma.
    dist = lambda P: (P @ w + b) / np.linalg.norm(w)  # noqa: E731
    np.testing.assert_allclose(dist(boundary), 0.0, atol=1e-4)
    # sklearn's classes_[1] is the +1 class: its margin line lies at distance +gamma
    np.testing.assert_allclose(dist(_line(ax, "margin boundary, +1 side")).mean(), gamma,
                               rtol=1e-4)
    np.testing.assert_allclose(dist(_line(ax, "margin boundary, -1 side")).mean(), -gamma,
                               rtol=1e-4)
    support = _collection(ax, next(c.get_label() for c in ax.collections
                                   if c.get_label().startswith("support vectors")))
    assert _rows_of(support, X) == sorted(ref.support_.tolist())
    assert f"{gamma:.4g}" in ax.get_title()


def test_perceptron_update_geometry():
    w, x, y = np.array([1.0, 0.3]), np.array([-0.5, 1.0]), -1
    ax = plotting.plot_perceptron_update(w, x, y, ax=_ax())
    new = w + y * x
    before, after = _line(ax, "boundary before"), _line(ax, "boundary after")
    np.testing.assert_allclose(before @ w, 0.0, atol=1e-12)
    np.testing.assert_allclose(after @ new, 0.0, atol=1e-12)
    arrows = {q.get_label(): np.array([q.U[0], q.V[0]]) for q in ax.collections
              if hasattr(q, "U") and q.get_label() and not q.get_label().startswith("_")}
    np.testing.assert_allclose(arrows["$w_t$"], w)
    np.testing.assert_allclose(arrows["$y_t x_t$"], y * x)
    np.testing.assert_allclose(arrows["$w_{t+1} = w_t + y_t x_t$"], new)


@pytest.mark.parametrize("w, x, y, match", [
    ([1.0, 0.0, 0.0], [1.0, 0.0], 1, "2 numbers"),
    ([1.0, 0.0], [1.0, 0.0], 0, "y must be -1 or \\+1"),
])
def test_perceptron_update_rejects_bad_input(w, x, y, match):
    with pytest.raises(ValueError, match=match):
        plotting.plot_perceptron_update(w, x, y, ax=_ax())


def test_mistakes_curve_is_the_cumulative_count_and_bound_line():
    from halfspaces import Perceptron
    from halfspaces.online import play

    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 2))
    y = np.where(X @ np.array([1.0, -2.0]) >= 0, 1, -1)
    transcript = play(Perceptron(fit_intercept=False), X, y)
    ax = plotting.plot_mistakes(transcript, bound=17.5, ax=_ax())
    curve, bound = ax.get_lines()
    np.testing.assert_array_equal(curve.get_xdata(), np.arange(1, 201))
    np.testing.assert_array_equal(curve.get_ydata(), np.cumsum(transcript.mistakes))
    np.testing.assert_allclose(bound.get_ydata(), [17.5, 17.5])


def test_objective_plot_and_gap():
    history = np.array([2.0, 1.5, 1.2, 1.05, 1.01])
    ax = plotting.plot_objective(history, 1.0, ax=_ax())
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), history)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), [1.0, 1.0])
    ax = plotting.plot_objective(history, 1.0, ax=_ax(), gap=True)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), history - 1.0)
    assert ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="gap=True needs the optimum"):
        plotting.plot_objective(history, None, ax=_ax(), gap=True)


def test_regularization_panels_match_sklearn_margin_widths():
    X, y = _blobs(n=40, seed=6, gap=0.7, noise=0.7)
    lams = (1e-3, 1.0)
    fig = plotting.plot_regularization(X, y, lams=lams, fig=Figure(figsize=(10, 5)))
    axes = fig.get_axes()
    assert len(axes) == 2
    widths = []
    for ax, lam in zip(axes, lams, strict=True):
        # Independent: sklearn's SVM with C = 1 / (lam n) minimizes the same objective.
        ref = SkSVC(kernel="linear", C=1.0 / (lam * len(y)), tol=1e-8).fit(X, y)
        w = ref.coef_[0]
        plus, minus = _line(ax, "margin (score = +1)"), _line(ax, "margin (score = -1)")
        width = abs(float(np.mean(plus @ w - minus @ w))) / np.linalg.norm(w)
        np.testing.assert_allclose(width, 2.0 / np.linalg.norm(w), rtol=2e-3)
        widths.append(width)
    assert widths[0] < widths[1]  # a larger lambda buys a wider margin


def test_pegasos_objective_history_reaches_towards_the_exact_optimum():
    X, y = _blobs(n=60, seed=7, gap=0.5, noise=0.8)
    lam = 0.05
    history, optimum = plotting.pegasos_objective_history(X, y, lam=lam, max_iter=30,
                                                           random_state=0)
    assert history.shape == (30,)
    # Independent optimum: the lam-form objective at sklearn's SVM solution, C = 1/(lam n).
    ref = SkSVC(kernel="linear", C=1.0 / (lam * len(y)), tol=1e-10).fit(X, y)
    z = np.where(y == ref.classes_[1], 1.0, -1.0) * ref.decision_function(X)
    J_ref = np.mean(np.maximum(0.0, 1.0 - z)) + lam / 2 * ref.coef_[0] @ ref.coef_[0]
    np.testing.assert_allclose(optimum, J_ref, rtol=1e-4)
    assert np.all(history >= optimum - 1e-9)
    assert history[-1] - optimum < 0.05 * optimum


def test_png_is_written_and_not_blank(tmp_path):
    import matplotlib.image as mpimg

    X, y = _blobs(seed=8)
    fig = Figure(figsize=(5, 5))
    plotting.plot_decision_boundary(LinearSVC(dual=True, random_state=0).fit(X, y), X, y,
                                    ax=fig.add_subplot())
    path = tmp_path / "boundary.png"
    fig.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = mpimg.imread(path)
    assert image.shape[0] > 100 and image[..., :3].std() > 0.05


def test_default_axes_use_pyplot_without_showing():
    import matplotlib.pyplot as plt

    X, y = _blobs(seed=9)
    ax = plotting.plot_decision_boundary(LinearSVC(dual=True, random_state=0).fit(X, y), X, y)
    assert ax.figure in [plt.figure(n) for n in plt.get_fignums()]
    plt.close(ax.figure)


def _load_example(path):
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE_SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def test_gallery_is_listed_in_its_readme():
    readme = (EXAMPLES / "README.md").read_text()
    assert len(EXAMPLE_SCRIPTS) >= 6
    for script in EXAMPLE_SCRIPTS:
        assert script.name in readme


@pytest.mark.parametrize("script", EXAMPLE_SCRIPTS, ids=lambda p: p.stem)
def test_gallery_example_writes_its_png(script, tmp_path):
    written = _load_example(script).main(tmp_path)
    assert written, f"{script.name} returned no files"
    for path in written:
        path = pathlib.Path(path)
        assert path.parent == tmp_path and path.suffix == ".png"
        assert path.stat().st_size > 10_000


def test_the_two_margin_lines_differ_in_style_and_in_the_legend():
    X, y = _blobs(seed=4, gap=2.0, noise=0.4)
    for ax, names in (
            (plotting.plot_decision_boundary(SkSVC(kernel="linear", C=10).fit(X, y), X, y,
                                             ax=_ax()),
             ("margin (score = +1)", "margin (score = -1)")),
            (plotting.plot_max_margin(X, y, ax=_ax()),
             ("margin boundary, +1 side", "margin boundary, -1 side")),
            (plotting.plot_decision_boundary(SkSVC(kernel="rbf", C=10).fit(X, y), X, y,
                                             ax=_ax()),
             ("margin (score = +1)", "margin (score = -1)"))):
        handles = {h.get_label(): h for h in ax.get_legend().legend_handles}
        plus, minus = handles[names[0]], handles[names[1]]
        assert (plus.get_linestyle(), plus.get_color()) != (minus.get_linestyle(),
                                                            minus.get_color())
