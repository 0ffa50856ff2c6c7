"""Shared by several test files: data written by hand, a margin solved by SciPy (independent
of the library's solvers), the voted perceptron's vote written from its definition, two
fitted models compared byte for byte, a barrier that shows threads running at once, and a
reader for FIFO tests."""

from __future__ import annotations

import subprocess
import sys
import threading
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize


def separable(n=40, d=2, seed=0, margin=0.2):
    """Points with |<u, x>| >= margin for a unit u, labelled by sign(<u, x>)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.uniform(-1, 1, size=(4 * n, d))
    X = X[np.abs(X @ u) >= margin][:n]
    return X, np.where(X @ u > 0, 1, -1)


def weighted_rows(n=40, d=4, seed=0, noise=0.4):
    """Gaussian rows, labels from the first feature plus noise, and example weights in
    {0, 1, 2, 3} whose first three are 0, 2.5 and 0.5 (a zero, a fraction, a half)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + noise * rng.normal(size=n) > 0, 1, -1)
    s = rng.integers(0, 4, size=n).astype(float)
    s[:3] = [0.0, 2.5, 0.5]
    return X, y, s


def voted_scores(X_test, V, B, C, budget):
    """The voted perceptron's vote on each row of ``X_test`` from its vectors ``V``, offsets
    ``B`` and counts ``C``; with a ``budget``, the oldest beyond it vote once as their
    count-weighted average (all their counts behind the sign of its score). Returns the votes
    and the number of vectors merged."""
    old = max(0, len(V) - (budget or len(V)))
    sign = lambda v: 1.0 if v >= 0 else -1.0  # noqa: E731 (a tie votes +1)
    votes = []
    for x in X_test:
        vote = sum(c * sign(x @ v + b) for v, b, c in zip(V[old:], B[old:], C[old:],
                                                          strict=True))
        if old:
            merged = sum(c * (x @ v + b) for v, b, c in zip(V[:old], B[:old], C[:old],
                                                            strict=True))
            vote += sum(C[:old]) * sign(merged)
        votes.append(vote)
    return np.array(votes), old


def hard_margin_through_origin(X, y):
    """min ||w||^2 s.t. y_i <w, x_i> >= 1 (SLSQP); returns the geometric margin 1/||w||."""
    cons = {"type": "ineq", "fun": lambda w: y * (X @ w) - 1.0, "jac": lambda w: y[:, None] * X}
    w0 = np.linalg.lstsq(X, y.astype(float), rcond=None)[0] * 10
    res = minimize(lambda w: w @ w, w0, jac=lambda w: 2 * w, constraints=[cons],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert res.success
    return 1.0 / np.linalg.norm(res.x)


def assert_same_fit(a, b) -> None:
    """Every fitted attribute of ``a`` and ``b`` (public, ending in ``_``) is the same: arrays
    byte for byte, with their dtype and shape (sparse ones as their dense form)."""
    fa, fb = ({name: value for name, value in vars(est).items()
               if name.endswith("_") and not name.startswith("_")} for est in (a, b))
    assert fa.keys() == fb.keys()
    for name, va in fa.items():
        vb = fb[name]
        if sp.issparse(va):
            va, vb = va.toarray(), vb.toarray()
        if isinstance(va, np.ndarray):
            assert va.dtype == vb.dtype and va.shape == vb.shape, name
            assert va.tobytes() == vb.tobytes(), name
        else:
            assert np.array_equal(np.asarray(va), np.asarray(vb)), name


def thread_probe(expected: int):
    """A wrapper that records each calling thread and makes the first call of each thread
    wait until ``expected`` threads are there (a BrokenBarrierError if they never are):
    ``wrap, seen = thread_probe(2)``, then monkeypatch a function with ``wrap(function)``."""
    barrier, seen, lock = threading.Barrier(expected, timeout=30), set(), threading.Lock()

    def wrap(fn):
        def probed(*args, **kwargs):
            with lock:
                first = threading.get_ident() not in seen
                seen.add(threading.get_ident())
            if first:
                barrier.wait()
            return fn(*args, **kwargs)
        return probed

    return wrap, seen


def read_fifo_in_background(fifo) -> tuple[threading.Thread, list[bytes]]:
    """A thread that opens ``fifo`` for reading and collects what is written into it."""
    got: list[bytes] = []

    def drain():
        with open(fifo, "rb") as f:
            got.append(f.read())

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread, got


def badly_scaled_separable(seed, n=60, d=6, gap=1e-3, scales=(1e-2, 1.0, 1e3, 1e4)):
    """Separable through the origin with a tiny margin and columns of very different sizes
    (as unscaled real features, e.g. the UCI breast-cancer set): ``|<u, x>| >= gap`` for a
    unit ``u`` on standard normal rows, labelled by its sign, then column j times
    ``scales[j]``. Before the QP was solved on equilibrated columns, Clarabel called such
    data infeasible or returned a "separator" that misclassified rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4 * n, d))
    u = rng.normal(size=d)
    s = X @ (u / np.linalg.norm(u))
    keep = np.abs(s) >= gap
    X, s = X[keep][:n], s[keep][:n]
    c = np.ones(d)
    c[: len(scales)] = scales
    return X * c, np.where(s > 0, 1.0, -1.0)


def hard_margin_kkt(X, y, w, b, fit_intercept):
    """Solver-free optimality check of a hard-margin answer ``(w, b)`` with smallest
    functional margin 1: the KKT conditions ``w = sum_{i active} alpha_i y_i x_i``,
    ``alpha >= 0`` (and ``sum alpha_i y_i = 0`` with an offset) are sufficient for the convex
    QP, and then the max margin is ``1 / sqrt(sum alpha)``. ``alpha`` by NNLS on the active
    rows, each coordinate divided by its column's largest ``|x_ij|`` (the same equations,
    equally weighted). Returns (relative residual, 1 / sqrt(sum alpha))."""
    from scipy.optimize import nnls

    active = np.flatnonzero(y * (X @ w + b) <= 1.0 + 1e-6)
    c = np.abs(X).max(axis=0)
    c[c == 0] = 1.0
    A, rhs = (X[active] * y[active, None]).T / c[:, None], w / c
    if fit_intercept:
        A, rhs = np.vstack([A, y[active]]), np.append(rhs, 0.0)
    alpha, residual = nnls(A, rhs)
    return residual / np.linalg.norm(rhs), 1.0 / np.sqrt(alpha.sum())


def assert_same(X, y, X_ref, y_ref):
    """``(X, y)`` read from a file is ``(X_ref, y_ref)`` bit for bit: CSR structure, values
    and labels."""
    import scipy.sparse as sp

    X_ref = sp.csr_matrix(X_ref)
    assert X.shape == X_ref.shape and X.dtype == X_ref.dtype
    np.testing.assert_array_equal(X.indptr, X_ref.indptr)
    np.testing.assert_array_equal(X.indices, X_ref.indices)
    assert X.data.tobytes() == X_ref.data.tobytes()
    assert np.asarray(y).tobytes() == np.asarray(y_ref).tobytes()


def fit_quietly(est, X, y, **kw):
    """``est.fit(X, y, **kw)`` with its warnings silenced (non-separable data: the same
    warning on both sides of a comparison)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **kw)


def run_sklearn_check(estimator, check) -> None:
    """Run one of scikit-learn's estimator checks; a check the estimator declares in
    ``_expected_failed_checks`` (sample-weight equivalence: a weight k is one update or step
    k times longer, not k copies) must fail, and by that assertion."""
    import pytest

    if getattr(check, "func", check).__name__ not in estimator._expected_failed_checks():
        check(estimator)
        return
    with pytest.raises(AssertionError, match="not equivalent to fitting with removed"):
        check(estimator)


def run_fresh(script: str, env: dict, heavy: set) -> tuple[str, str]:
    """Run ``script`` in a fresh Python with ``env`` (it must exit 0): what it printed, and
    which of the top-level modules ``heavy`` it had imported by its end (``"[]"``: none)."""
    probe = (f"import sys\nprint('\\nimported:', sorted({heavy!r} & {{name.split('.')[0]"
             " for name in sys.modules}))\n")
    done = subprocess.run([sys.executable, "-c", script + probe], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    printed, _, imported = done.stdout.rpartition("\nimported: ")
    return printed, imported.strip()


def load_error(load, path, content: bytes, pattern: str):
    """Write ``content`` to ``path``: ``load(path)`` must raise DataFormatError matching
    ``pattern``; the error."""
    import pytest

    from halfspaces.datasets import DataFormatError

    path.write_bytes(content)
    with pytest.raises(DataFormatError, match=pattern) as err:
        load(path)
    return err.value


def run_cli(capsys, *argv):
    """``(status, stdout, stderr)`` of the ``halfspaces`` command run in this process."""
    from halfspaces import cli

    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def growing(reader, path, line: str = "1 1:0.5\n"):
    """``reader`` (a function yielding blocks of the file ``path``), which appends ``line``
    to the file once its first block is yielded, as a writer still filling the file would."""

    def appending(*args, **kwargs):
        for k, block in enumerate(reader(*args, **kwargs)):
            yield block
            if k == 0:
                with open(path, "a") as f:
                    f.write(line)

    return appending
