"""Hypothesis strategies shared by the test-suite (import as ``from strategies import ...``).

Data is drawn as a few small parameters plus a NumPy seed, then generated with NumPy:
examples stay fast and still shrink to small sizes and simple seeds.

- :func:`separable_through_origin`: labelled points with a planted unit separator ``u``
  through the origin and a planted margin ``gamma`` (the setting of Novikoff's theorem);
- :func:`separable_with_offset`: the same moved away from the origin, so that only a
  halfspace with an offset separates it (the setting of a perceptron with ``fit_intercept``);
- :func:`labelled_data`: arbitrary (not necessarily separable) dense data, two or more
  classes;
- :data:`MATRIX_FORMATS` / :func:`matrix_formats` / :func:`as_format`: the same matrix as
  dense or CSR, float32 or float64, with int32 or int64 indices;

and the set-up the tests of the online estimators share: markers for fits that stop at
``max_iter`` and for data that overflows on purpose, noisy data, label encoding, the
compiled game, the one-example protocol and the messages of NumericalError and of the
ConvergenceWarning.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning


@dataclass(frozen=True)
class SeparableSample:
    """Points ``X`` with labels ``y`` in {-1, +1} such that ``y_i <u, x_i> >= gamma``.

    ``u`` is a unit vector, ``gamma`` the smallest ``y_i <u, x_i>`` (computed, so exact for
    the stored floats) and ``radius`` the largest ``||x_i||``.
    """

    X: np.ndarray
    y: np.ndarray
    u: np.ndarray
    gamma: float
    radius: float


def make_planted(n_samples: int, n_features: int, margin: float, seed: int,
                 radius: float = 1.0) -> SeparableSample:
    """Points in the ball of ``radius``, pushed off the hyperplane ``<u, x> = 0`` to
    distance ``margin`` along a random unit ``u``; ``y = sign(<u, x>)`` (ties to +1)."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(n_features)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n_samples, n_features))
    X *= (radius * rng.random(n_samples) ** (1.0 / n_features)
          / np.maximum(np.linalg.norm(X, axis=1), 1e-300))[:, None]
    t = X @ u
    side = np.where(t >= 0.0, 1.0, -1.0)
    close = np.abs(t) < margin
    X[close] += ((side * margin - t)[close])[:, None] * u  # move onto <u, x> = +-margin
    y = np.where(X @ u >= 0.0, 1.0, -1.0)
    gamma = float(np.min(y * (X @ u)))
    return SeparableSample(X, y, u, gamma, float(np.max(np.linalg.norm(X, axis=1))))


@st.composite
def separable_through_origin(draw, *, min_samples: int = 2, max_samples: int = 60,
                             max_features: int = 8, min_margin: float = 0.05,
                             max_margin: float = 0.5,
                             both_labels: bool = True) -> SeparableSample:
    """A :class:`SeparableSample` with a planted margin in ``[min_margin, max_margin]``
    (relative to the radius, drawn from 0.25, 1 and 3).

    With ``both_labels`` (needs ``min_samples >= 2``) both labels occur: if the draw has one
    label only, the first point is reflected through the origin, which keeps the margin
    and the radius.
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    margin = draw(st.floats(min_margin, max_margin))
    radius = draw(st.sampled_from([1.0, 3.0, 0.25]))
    seed = draw(st.integers(0, 2**32 - 1))
    sample = make_planted(n, d, margin * radius, seed, radius=radius)
    if both_labels and n >= 2 and np.all(sample.y == sample.y[0]):
        sample.X[0] *= -1.0
        sample.y[0] *= -1.0
    return sample


@st.composite
def separable_with_offset(draw, *, max_samples: int = 30, max_features: int = 4,
                          min_margin: float = 0.05, max_shift: float = 2.0
                          ) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: a :func:`separable_through_origin` sample moved by a random vector ``c``
    of norm up to ``max_shift`` times its radius. ``y_i (<u, x_i> + b) >= gamma`` with
    ``b = -<u, c>``: separable with an offset, usually not through the origin."""
    sample = draw(separable_through_origin(max_samples=max_samples, max_features=max_features,
                                           min_margin=min_margin))
    shift = draw(st.floats(0.0, max_shift)) * sample.radius
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = rng.standard_normal(sample.X.shape[1])
    return sample.X + shift * c / np.linalg.norm(c), sample.y


@st.composite
def labelled_data(draw, *, max_samples: int = 40, max_features: int = 6,
                  n_classes: int | None = None, integer_valued: bool = False):
    """``(X, y)``: dense float64 ``X`` and integer labels with at least 2 classes.

    ``integer_valued=True`` draws small integers, so every dot product is exact whatever the
    summation order (useful for bit-exact comparisons against a reference).
    """
    k = n_classes if n_classes is not None else draw(st.integers(2, 4))
    n = draw(st.integers(k, max_samples))
    d = draw(st.integers(1, max_features))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if integer_valued:
        X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    else:
        X = rng.standard_normal((n, d))
    y = np.concatenate([np.arange(k), rng.integers(0, k, size=n - k)])
    rng.shuffle(y)
    return X, y


#: (name, converter) for every input layout the compiled passes accept without a copy.
MATRIX_FORMATS = {
    "dense-f64": lambda X: np.ascontiguousarray(X, dtype=np.float64),
    "dense-f32": lambda X: np.ascontiguousarray(X, dtype=np.float32),
    "csr-f64-i32": lambda X: _csr(X, np.float64, np.int32),
    "csr-f32-i32": lambda X: _csr(X, np.float32, np.int32),
    "csr-f64-i64": lambda X: _csr(X, np.float64, np.int64),
    "csr-f32-i64": lambda X: _csr(X, np.float32, np.int64),
}


def _csr(X, dtype, index_dtype) -> sp.csr_matrix:
    M = sp.csr_matrix(np.asarray(X, dtype=dtype))
    M.indices = M.indices.astype(index_dtype)
    M.indptr = M.indptr.astype(index_dtype)
    return M


def as_format(X, name: str):
    """Convert dense ``X`` to the layout ``name`` (a key of :data:`MATRIX_FORMATS`)."""
    return MATRIX_FORMATS[name](X)


def matrix_formats() -> st.SearchStrategy[str]:
    """Names of the layouts in :data:`MATRIX_FORMATS`."""
    return st.sampled_from(sorted(MATRIX_FORMATS))


# -- helpers shared by estimator tests ------------------------------------------------------
#: Fits that stop at max_iter on purpose (the data is not separable, or the test caps the
#: passes) warn with a ConvergenceWarning; the tests marked so expect it.
stops_at_max_iter = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

#: Tests that overflow on purpose: NumPy warns as it does (scikit-learn's sum of X, a Gram
#: matrix, the compiled passes when run without the JIT).
overflows = pytest.mark.filterwarnings("ignore:(overflow|invalid value) encountered:RuntimeWarning")

#: XOR: four points that no halfspace separates.
XOR_X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
XOR_Y = np.array([1, 1, -1, -1])


def make_noisy(n: int, d: int, seed: int, noise: float = 0.2, integer: bool = False):
    """``(X, y)``: Gaussian (or small-integer) rows labelled 0/1 by a random halfspace
    through the origin whose scores get Gaussian noise of standard deviation ``noise``."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(float) if integer else \
        rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + noise * rng.standard_normal(n) >= 0, 1, 0)
    return X, y


def pm(y, positive) -> np.ndarray:
    """Labels encoded in {-1, +1}, ``positive`` as +1."""
    return np.where(y == positive, 1.0, -1.0)


def dense64(X) -> np.ndarray:
    """Any input layout as a dense float64 array."""
    return X.toarray().astype(np.float64) if sp.issparse(X) else np.asarray(X, np.float64)


def not_finite(owner: str, what: str, row: int) -> str:
    """The start of the NumericalError message of ``owner`` for ``what`` at ``row``."""
    return rf"^{owner}: {what} became non-finite \(inf or nan\) at row {row}: "


def fit_warns_without_a_clean_pass(est, X, y, per_epoch):
    """``est.fit(X, y)`` with ``max_iter=len(per_epoch)`` (a reference's passes, the last
    with mistakes) warns that it stopped without a clean pass, naming that pass's mistakes;
    returns the fitted estimator, whose ``converged_`` is False."""
    assert per_epoch[-1] > 0
    match = (rf"^{type(est).__name__}: fit stopped after max_iter={len(per_epoch)} passes"
             rf" without a pass free of mistakes \(the last pass made {per_epoch[-1]} mistakes"
             rf" on {len(y)} rows\), so converged_ is False")
    with pytest.warns(ConvergenceWarning, match=match):
        est.set_params(max_iter=len(per_epoch)).fit(X, y)
    assert not est.converged_
    return est


def compiled_game(est, X, y_pm, classes=(-1.0, 1.0)):
    """The scores of the online game played by ``est``'s compiled pass (before each update),
    as :func:`halfspaces.online.play` runs it for a fresh estimator."""
    est._prepare_online(np.asarray(classes), X.shape[1])
    return est._play(X, y_pm)


def play_one_by_one(est, X, y, classes):
    """Drive ``est`` through the one-example protocol (``score_one``, ``predict_one``, then
    ``learn_one``) row by row, as a generic online-game loop does; returns the scores and
    predictions made before each update. Compare with ``est._play`` (the compiled game)."""
    est._prepare_online(classes, X.shape[1])
    scores, preds = [], []
    for t in range(X.shape[0]):
        scores.append(est.score_one(X[t]))
        preds.append(est.predict_one(X[t]))
        est.learn_one(X[t], y[t])
    return np.array(scores), np.array(preds)


class OneByOne:
    """Wrap an estimator so that :func:`halfspaces.online.play` cannot use its compiled
    ``_play`` and must take the generic round-by-round path (``score_one``,
    ``predict_one``, ``learn_one``); the wrapped estimator is started for ``classes``."""

    def __init__(self, est, classes, n_features: int):
        self.est = est
        est._prepare_online(classes, n_features)

    def score_one(self, x):
        return self.est.score_one(x)

    def predict_one(self, x):
        return self.est.predict_one(x)

    def learn_one(self, x, y):
        return self.est.learn_one(x, y)


# -- number texts ---------------------------------------------------------------------------

def midpoint(v: float) -> Decimal:
    """The exact decimal halfway between v >= 0 and the next double up (2**1024 above the
    largest)."""
    top = v == np.finfo(np.float64).max
    up = Decimal(2) ** 1024 if top else Decimal(float(np.nextafter(v, np.inf)))
    return (Decimal(v) + up) / 2


_mantissas = st.integers(1, 10**19 - 1) | st.integers(1, 10**40)
_finite = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def decimal_numbers(draw):
    """Decimal texts of every shape Python's float reads, and midpoints of doubles."""
    kind = draw(st.sampled_from(["repr", "format", "digits", "midpoint", "subnormal"]))
    if kind == "repr":
        return repr(draw(_finite))
    if kind == "format":
        v = draw(_finite)
        return format(v, draw(st.sampled_from([".17g", ".16e", ".25e", ".20f", ".3g", "+.19E"])))
    if kind == "digits":
        digits = str(draw(_mantissas))
        cut = draw(st.integers(0, len(digits)))
        text = digits[:cut] + "." + digits[cut:] if draw(st.booleans()) else digits
        if text == ".":
            text = "0."
        zeros = "0" * draw(st.integers(0, 25))
        text = zeros + text if "." not in text or text.index(".") > 0 else "0" + text
        return text + f"e{draw(st.integers(-400, 400))}"
    if kind == "midpoint":  # exactly halfway between two doubles, or a hair off
        m = midpoint(abs(draw(_finite)))
        hair = Decimal(10) ** (m.adjusted() - 60)
        return str(m + draw(st.sampled_from([0, 1, -1])) * hair)
    v = draw(st.integers(1, 2**52)) * 5e-324  # a subnormal (or the smallest normals)
    return format(v, draw(st.sampled_from([".17g", ".25e", ".3g"])))
