"""The pictures a new user meets (issue 13, section 5), rendered and read back.

Each test draws a figure headless and checks what is on the canvas: the points and lines
inside the visible box, the boundary in view, the axis scale, the labels, and pixels that
are not all background (an empty or off-canvas plot fails). References are computed here:
the model's own scores at the corners of the view, the mistakes counted with NumPy.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import separable  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.linear_model import Perceptron as SkPerceptron  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from halfspaces import SVC, Perceptron, cli, plotting  # noqa: E402


def _ax():
    return Figure(figsize=(5, 5), layout="constrained").add_subplot()


def _ink_in_axes(ax) -> float:
    """The fraction of the axes' pixels that are not background (white or the light class
    shading), after rendering the figure."""
    fig = ax.get_figure()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[..., :3].astype(int)
    x0, y0, x1, y1 = (int(v) for v in ax.get_window_extent().extents)
    h = image.shape[0]
    inside = image[h - y1:h - y0, x0:x1]
    return float(np.mean(inside.min(axis=2) < 200))  # dark enough to be ink


def _points_in_view(ax) -> np.ndarray:
    """Every scattered point, and whether it lies inside the visible box."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    points = np.vstack([c.get_offsets() for c in ax.collections
                        if isinstance(c, PathCollection)])
    inside = ((points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0)
              & (points[:, 1] <= y1))
    return points, inside


def _boundary_in_view(ax, model) -> bool:
    """The model's scores at the view's corners take both signs: its boundary crosses it."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    corners = np.array([[x0, y0], [x0, y1], [x1, y0], [x1, y1]])
    scores = model.decision_function(corners)
    return bool(scores.min() < 0 < scores.max())


def _noisy(n, seed=0):
    X, y = separable(n=n, d=2, seed=seed, margin=0.05)
    flip = np.random.default_rng(seed).choice(n, size=n // 10, replace=False)
    y = y.copy()
    y[flip] = -y[flip]
    return X, y


def test_fifty_thousand_points_stay_readable_with_the_boundary_in_view():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(50_000, 2))
    y = np.where(X @ [1.0, -0.5] + 0.1 > 0, 1, -1)
    model = SkPerceptron(random_state=0).fit(X, y)  # compiled, also without our JIT
    ax = plotting.plot_decision_boundary(model, X, y, ax=_ax(), title="perceptron")
    points, inside = _points_in_view(ax)
    assert len(points) == plotting.MAX_POINTS and inside.all()
    assert "2,000 of 50,000 points shown" in ax.get_title()
    assert _boundary_in_view(ax, model)
    # Both classes are seen: different markers, and each class has its points drawn.
    markers = {c.get_label(): c for c in ax.collections if c.get_label().startswith("y = ")}
    assert set(markers) == {"y = -1", "y = 1"}
    paths = [c.get_paths()[0].vertices.round(3).tolist() for c in markers.values()]
    assert paths[0] != paths[1]
    assert all(len(c.get_offsets()) > 100 for c in markers.values())
    assert 0.02 < _ink_in_axes(ax) < 0.9


def test_margin_lines_only_for_margin_scaled_models():
    X, y = separable(n=40, d=2, seed=1)
    perceptron = plotting.plot_decision_boundary(Perceptron().fit(X, y), X, y, ax=_ax())
    assert [line.get_label() for line in perceptron.get_lines()] == [
        "decision boundary (score = 0)"]
    assert not [c for c in perceptron.collections if c.get_label() == "on or inside the margin"]
    for model in (SVC(C=1.0).fit(X, y), LinearSVC(dual=True, random_state=0).fit(X, y)):
        ax = plotting.plot_decision_boundary(model, X, y, ax=_ax())
        assert {"margin (score = +1)", "margin (score = -1)"} <= {
            line.get_label() for line in ax.get_lines()}


def test_a_boundary_outside_the_data_is_brought_into_view():
    # lambda = 1 on noisy data: a tiny w, so the boundary misses the data's own box.
    X, y = _noisy(200, seed=2)
    lo, hi = X.min(axis=0), X.max(axis=0)
    model = SVC(lam=1.0).fit(X, y)
    data_box = np.array([[lo[0], lo[1]], [lo[0], hi[1]], [hi[0], lo[1]], [hi[0], hi[1]]])
    scores = model.decision_function(data_box)
    assert scores.min() > 0 or scores.max() < 0, "precondition: boundary outside the data"
    fig = plotting.plot_regularization(X, y, lams=(1e-3, 1.0),
                                       fig=Figure(figsize=(10, 5), layout="constrained"))
    for ax, lam in zip(fig.axes, (1e-3, 1.0), strict=True):
        assert _boundary_in_view(ax, SVC(lam=lam).fit(X, y))
        assert _points_in_view(ax)[1].all()
        assert _ink_in_axes(ax) > 0.02


def test_mistakes_on_a_log_axis_when_the_bound_dwarfs_them():
    mistakes = np.zeros(1000, dtype=bool)
    mistakes[[0, 3, 10, 50, 400]] = True
    transcript = type("T", (), {"mistakes": mistakes})()
    rounds, bounds = [1, 2, 4, 1000], [1.0, 40.0, 90.0, 300.0]
    ax = plotting.plot_mistakes(transcript, bound=300.0, bound_at=(rounds, bounds), ax=_ax(),
                                title="Perceptron on d.svm")
    assert ax.get_yscale() == "symlog" and ax.get_title() == "Perceptron on d.svm"
    assert ax.get_ylim()[1] > 300.0  # the bound is inside the picture, not on its edge
    curve = [line for line in ax.get_lines() if "first t rounds" in line.get_label()][0]
    assert curve.get_xdata().tolist() == rounds and curve.get_ydata().tolist() == bounds
    counted = ax.get_lines()[0].get_ydata()
    assert counted[-1] == mistakes.sum() == 5
    assert _ink_in_axes(ax) > 0.005
    linear = plotting.plot_mistakes(transcript, bound=8.0, ax=_ax())
    assert linear.get_yscale() == "linear"


def test_objective_labels_epochs_and_shows_lambda():
    ax = plotting.plot_objective([3.0, 2.0, 1.5], 1.0, ax=_ax(), lam=0.01)
    assert "epoch" in ax.get_xlabel() and "0.01" in ax.get_title()
    assert _ink_in_axes(ax) > 0.005


def _png_ink(path) -> float:
    image = matplotlib.image.imread(str(path))[..., :3]
    return float(np.mean(image.min(axis=2) < 0.78))


@pytest.mark.parametrize("kind, extra", [("boundary", ["--algo", "perceptron"]),
                                         ("mistakes", ["--algo", "perceptron"]),
                                         ("objective", ["--lam", "0.1", "--max-iter", "5"])])
def test_cli_pictures_are_not_empty(tmp_path, capsys, kind, extra):
    X, y = separable(n=60, d=2, seed=3)
    data = tmp_path / "d.csv"
    data.write_text("".join(f"{label},{a!r},{b!r}\n" for (a, b), label in
                            zip(X.tolist(), y.tolist(), strict=True)))
    png = tmp_path / f"{kind}.png"
    assert cli.main(["plot", kind, str(data), "-o", str(png), "-q", *extra]) == 0
    assert 0.01 < _png_ink(png) < 0.9
