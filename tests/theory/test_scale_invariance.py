"""Separability is decided the same way at every scale of the data, and every proof checks out.

Whether a halfspace separates ``(X, y)`` does not change when ``X`` is multiplied by
``s > 0``. Entries in ``{-2, -1, 0, 1, 2}`` times a float ``s`` are exactly ``s x_ij`` in
floating point, so the scaled data is separable exactly when the original is. The answer of
every entry point (the theory function, :class:`LPSeparator`, ``SVC(C=inf)``, the report of
``halfspaces bound``) must be the answer at scale 1, and its proof must check out in exact
rational arithmetic here: a separator strictly separates every row, and a Farkas certificate
``alpha >= 0`` has ``sum_i alpha_i y_i x_i = 0`` (and ``sum_i alpha_i y_i = 0`` with an
offset) to a relative ``1e-8`` of the data's own scale ``max |x_ij|``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces import SVC, LPSeparator, NotSeparableError, cli
from halfspaces.theory import bounds_report, is_linearly_separable

ISSUE_X = np.array([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [-2.0, 0.0]])
ISSUE_Y = np.array([1.0, 1.0, -1.0, -1.0])
XOR_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
XOR_Y = np.array([1.0, 1.0, -1.0, -1.0])


def separates_exactly(X, y, w, b) -> bool:
    """Every ``y_i (<w, x_i> + b) > 0``, in exact rational arithmetic."""
    F = [Fraction(float(v)) for v in np.ravel(w)]
    return all(label * (sum((Fraction(float(x)) * f for x, f in zip(row, F, strict=True)),
                            Fraction(0)) + Fraction(float(b))) > 0
               for row, label in zip(X, y, strict=True))


def certifies_exactly(X, y, alpha, fit_intercept, rtol=1e-8) -> bool:
    """``alpha >= 0``, not 0, with ``|sum_i alpha_i y_i x_ij| <= rtol max|x| sum(alpha)``
    (and ``|sum_i alpha_i y_i| <= rtol sum(alpha)``), in exact rational arithmetic."""
    a = [Fraction(float(v)) for v in np.ravel(alpha)]
    total = sum(a, Fraction(0))
    if any(v < 0 for v in a) or total <= 0:
        return False
    scale = max(Fraction(float(abs(v))) for v in np.ravel(X))
    sums = [sum((ai * int(yi) * Fraction(float(x)) for ai, yi, x in zip(a, y, X[:, j],
                                                                      strict=True)),
                Fraction(0)) for j in range(X.shape[1])]
    ok = all(abs(v) <= Fraction(rtol) * scale * total for v in sums)
    if fit_intercept:
        ok &= abs(sum((ai * int(yi) for ai, yi in zip(a, y, strict=True)), Fraction(0))) \
            <= Fraction(rtol) * total
    return ok


def _bound_json(X, y, fit_intercept):
    """``halfspaces bound FILE --json`` on a CSV of ``(X, y)`` written with exact floats."""
    fd, path = tempfile.mkstemp(suffix=".csv")
    try:
        with os.fdopen(fd, "w") as f:
            for x, label in zip(X, y, strict=True):
                f.write(",".join([str(int(label))] + [repr(float(v)) for v in x]) + "\n")
        out = io.StringIO()
        flag = [] if fit_intercept else ["--no-fit-intercept"]
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert cli.main(["bound", path, "--json", *flag]) == 0
        return json.loads(out.getvalue())
    finally:
        os.unlink(path)


def check_every_entry_point(X, y, fit_intercept, expected):
    """Each entry point answers ``expected`` (separable or not) with a proof that checks."""
    res = is_linearly_separable(X, y, fit_intercept)
    assert bool(res) is expected
    if expected:
        assert separates_exactly(X, y, res.w, res.b)
    else:
        assert certifies_exactly(X, y, res.certificate, fit_intercept)

    for est in (LPSeparator(on_infeasible="raise", fit_intercept=fit_intercept),
                SVC(C=np.inf, fit_intercept=fit_intercept)):
        if expected:
            est.fit(X, y)
            assert separates_exactly(X, y, est.coef_[0], est.intercept_[0])
        else:
            with pytest.raises(NotSeparableError) as err:
                est.fit(X, y)
            assert certifies_exactly(X, y, err.value.certificate, fit_intercept)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an inexact max margin is a verified lower bound
        report = bounds_report(X, y, fit_intercept=fit_intercept)
    assert report.separable is expected
    if expected:
        assert separates_exactly(X, y, report.w, report.b)
        assert report.max_margin > 0.0
    else:
        assert certifies_exactly(X, y, report.certificate, fit_intercept)


@pytest.mark.parametrize("exponent", [-150, -30, -9, -8, 0, 9, 30, 150])
def test_issue_example_is_separable_at_every_scale(exponent):
    # Before the fix, at 1e-9 every entry point returned "not separable" with a
    # "verified" certificate on rows 0 and 2 (sign(x_1) separates them), and at 1e30 the
    # LPs raised RuntimeError.
    X = 10.0**exponent * ISSUE_X
    check_every_entry_point(X, ISSUE_Y, True, expected=True)
    check_every_entry_point(10.0**exponent * XOR_X, XOR_Y, True, expected=False)


@pytest.mark.parametrize("exponent", [-150, -9, 150])
def test_the_command_line_bound_agrees_at_every_scale(exponent):
    printed = _bound_json(10.0**exponent * ISSUE_X, ISSUE_Y, True)
    assert printed["separable"] is True
    w, b = printed["separator"]["w"], printed["separator"]["b"]
    assert separates_exactly(10.0**exponent * ISSUE_X, ISSUE_Y, w, b)
    printed = _bound_json(10.0**exponent * XOR_X, XOR_Y, True)
    assert printed["separable"] is False
    alpha = np.zeros(4)
    alpha[printed["certificate"]["rows"]] = printed["certificate"]["alpha"]
    assert certifies_exactly(10.0**exponent * XOR_X, XOR_Y, alpha, True)


@st.composite
def small_grid_problems(draw):
    """``(X, y)`` with entries in {-2, ..., 2} and both labels present."""
    n = draw(st.integers(3, 7))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d),
                               min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    y[0], y[1] = 1.0, -1.0
    if not np.any(X):
        X[0, 0] = 1.0
    return X, y


@settings(max_examples=30, deadline=None)
@given(problem=small_grid_problems(), exponent=st.integers(-150, 150),
       mantissa=st.floats(1.0, 9.99), fit_intercept=st.booleans())
def test_every_entry_point_answers_as_at_scale_one_with_a_proof(problem, exponent, mantissa,
                                                                fit_intercept):
    X, y = problem
    expected = bool(is_linearly_separable(X, y, fit_intercept))
    scale = mantissa * 10.0**exponent
    Xs = X * scale
    assert np.array_equal(Xs / scale, X)  # exactly s X: the same separability
    check_every_entry_point(Xs, y, fit_intercept, expected)
