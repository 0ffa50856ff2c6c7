"""Closed-form mistake bounds of the online algorithms.

    Novikoff (perceptron)   ||x_t|| <= R,  y_t <u, x_t> >= gamma, ||u|| = 1   =>  M <= (R/gamma)^2
    margin-one form         ||x_t|| <= R,  y_t <w*, x_t> >= 1                 =>  M <= R^2 ||w*||^2
    Halving                 some of the N hypotheses is consistent            =>  M <= log2 N
    Weighted Majority       best expert makes m* mistakes, factor beta        =>
                            M <= (ln N + m* ln(1/beta)) / ln(2/(1+beta))
    online-to-batch         perceptron continues from training into testing   =>
                            test mistakes <= (R/gamma)^2 - training mistakes

The formulas are pure Python on floats; each function checks its arguments and explains a
bad one. :func:`perceptron_bound` computes ``R`` and the best ``gamma`` of a data set for the
perceptron's own setting (with an offset: on the points ``(x, 1)``) and is what every printed
or plotted perceptron bound of the package comes from.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._validation import check_scalar, param_error
from ..exceptions import NotSeparableError


def _positive(owner: str, name: str, value, meaning: str, *, allow_zero: bool = False) -> float:
    check_scalar(owner, name, value, low=0.0, low_inclusive=allow_zero, meaning=meaning,
                 hint="" if allow_zero else f"A bound needs {name} > 0.")
    value = float(value)
    if not math.isfinite(value):
        raise param_error(owner, name, "finite", value)
    return value


def perceptron_mistake_bound(radius: float, margin: float) -> float:
    """Novikoff's bound ``(R / gamma)^2`` on the perceptron's mistakes.

    Parameters
    ----------
    radius : float >= 0
        ``R``, a bound on every ``||x_t||`` (see :func:`~halfspaces.theory.data_radius`).
    margin : float > 0
        ``gamma``, the margin ``y_t <u, x_t> >= gamma`` of some unit vector ``u``
        (through the origin; with an offset, append a constant feature to ``x``:
        :func:`perceptron_bound` does it for a data set).

    Returns
    -------
    bound : float

    Notes
    -----
    .. math::  M \\le \\left(\\frac{R}{\\gamma}\\right)^2

    The bound holds for *any* unit separator ``u``; the best (smallest) bound uses the
    maximum margin.

    References
    ----------
    Novikoff (1962), "On convergence proofs on perceptrons".

    Examples
    --------
    >>> perceptron_mistake_bound(1.0, 0.1)
    100.0
    >>> perceptron_mistake_bound(2.0, 0.5)
    16.0
    """
    owner = "perceptron_mistake_bound"
    radius = _positive(owner, "radius", radius, "R = max ||x_t||", allow_zero=True)
    margin = _positive(owner, "margin", margin, "gamma of a separator; 0 means not separable")
    return (radius / margin) ** 2


def margin_one_mistake_bound(radius: float, w_norm: float) -> float:
    """The perceptron bound in margin-one form: ``R^2 ||w*||^2``.

    If ``y_t <w*, x_t> >= 1`` for all ``t`` (functional margin 1), then ``u = w*/||w*||``
    has geometric margin ``1/||w*||`` and Novikoff gives ``R^2 ||w*||^2``.

    Parameters
    ----------
    radius : float >= 0
    w_norm : float > 0
        ``||w*||`` of a separator with functional margin at least 1 on every example.

    Returns
    -------
    bound : float

    Notes
    -----
    .. math::  M \\le R^2 \\lVert w^* \\rVert^2

    Examples
    --------
    >>> margin_one_mistake_bound(2.0, 3.0)
    36.0
    """
    owner = "margin_one_mistake_bound"
    radius = _positive(owner, "radius", radius, "R = max ||x_t||", allow_zero=True)
    w_norm = _positive(owner, "w_norm", w_norm, "||w*|| of a margin-one separator")
    return radius**2 * w_norm**2


def halving_mistake_bound(n_hypotheses: int) -> int:
    """The Halving algorithm's bound ``floor(log2 N)`` when some hypothesis is consistent.

    Each mistake at least halves the version space, which must keep the consistent
    hypothesis, so ``2^M <= N``; the mistake count is an integer, hence the floor. Computed
    exactly in integers (no floating-point ``log2``).

    Parameters
    ----------
    n_hypotheses : int >= 1
        ``N = |H|``.

    Returns
    -------
    bound : int

    Notes
    -----
    .. math::  M \\le \\lfloor \\log_2 N \\rfloor

    Examples
    --------
    >>> halving_mistake_bound(16), halving_mistake_bound(17), halving_mistake_bound(1)
    (4, 4, 0)
    """
    # Checked here rather than by check_scalar, which cannot take ints beyond int64.
    if (not isinstance(n_hypotheses, numbers.Integral)
            or isinstance(n_hypotheses, (bool, np.bool_)) or n_hypotheses < 1):
        raise param_error("halving_mistake_bound", "n_hypotheses",
                          "an int >= 1 (N = |H|, the number of hypotheses)", n_hypotheses)
    return int(n_hypotheses).bit_length() - 1


def weighted_majority_mistake_bound(n_experts: int, best_mistakes: float, beta: float, *,
                                    randomized: bool = False) -> float:
    """Weighted Majority's bound in terms of the best expert's mistakes (with
    ``randomized``: the bound on the expected mistakes of the randomized version).

    Parameters
    ----------
    n_experts : int >= 1
        ``N``.
    best_mistakes : float >= 0
        ``m*``, the mistakes of the best expert on the sequence.
    beta : float in (0, 1)
        The factor by which a wrong expert's weight is multiplied.
    randomized : bool, default=False
        Bound ``E[M]`` of the randomized version (which follows one expert drawn by
        weight) instead of ``M`` of the deterministic weighted vote.

    Returns
    -------
    bound : float

    Notes
    -----
    .. math::  M \\le \\frac{\\ln N + m^* \\ln(1/\\beta)}{\\ln\\frac{2}{1+\\beta}},
               \\qquad E[M] \\le \\frac{\\ln N + m^* \\ln(1/\\beta)}{1 - \\beta}
               \\ (\\text{randomized})

    With ``beta = 1/2`` this is about ``2.41 (m* + log2 N)``.

    References
    ----------
    Littlestone and Warmuth (1994), "The weighted majority algorithm".

    Examples
    --------
    >>> round(weighted_majority_mistake_bound(8, 0, 0.5), 4)
    7.2283
    """
    owner = "weighted_majority_mistake_bound"
    check_scalar(owner, "n_experts", n_experts, kind=numbers.Integral, low=1,
                 meaning="N, the number of experts")
    best_mistakes = _positive(owner, "best_mistakes", best_mistakes,
                              "m*, mistakes of the best expert", allow_zero=True)
    check_scalar(owner, "beta", beta, low=0.0, high=1.0, low_inclusive=False,
                 high_inclusive=False, meaning="the weight factor of a wrong expert",
                 hint="Try beta=0.5.")
    numerator = math.log(n_experts) + best_mistakes * math.log(1.0 / beta)
    return numerator / ((1.0 - beta) if randomized else math.log(2.0 / (1.0 + beta)))


def online_to_batch_bound(radius: float, margin: float, train_mistakes: int) -> float:
    """Test mistakes left to a perceptron that keeps learning online after training.

    Run the perceptron (through the origin) on the training sequence and then, without
    restarting, on the test sequence, predicting each test example before seeing its
    label. If every training and test example has ``||x|| <= R`` and some unit ``u`` has
    margin ``gamma`` on all of them, Novikoff's bound covers the whole concatenated
    sequence, so the mistakes made on the test part are at most ``(R/gamma)^2`` minus the
    mistakes already made on the training part.

    Parameters
    ----------
    radius : float >= 0
        ``R`` over training *and* test examples.
    margin : float > 0
        ``gamma`` of one unit separator over training and test examples.
    train_mistakes : int >= 0
        Mistakes the perceptron made on the training part (e.g. ``clf.n_mistakes_``).

    Returns
    -------
    bound : float
        ``(R/gamma)^2 - train_mistakes``.

    Raises
    ------
    ValueError
        If ``train_mistakes`` already exceeds ``(R/gamma)^2``: then the data cannot have
        radius ``R`` and margin ``gamma``, and the premise of the bound is false.

    Notes
    -----
    .. math::  M_{\\text{test}} \\le \\left(\\frac{R}{\\gamma}\\right)^2 - M_{\\text{train}}

    Examples
    --------
    >>> online_to_batch_bound(1.0, 0.25, 10)
    6.0
    """
    owner = "online_to_batch_bound"
    total = perceptron_mistake_bound(radius, margin)
    check_scalar(owner, "train_mistakes", train_mistakes, kind=numbers.Integral, low=0,
                 meaning="mistakes made on the training sequence")
    if train_mistakes > total:
        raise param_error(owner, "train_mistakes", f"<= (R/gamma)^2 = {total:g}",
                          int(train_mistakes),
                          "More mistakes than Novikoff allows means the data does not have"
                          " this radius and margin; recompute them on train and test data.")
    return total - train_mistakes


@dataclass(frozen=True)
class PerceptronBound:
    """Novikoff's bound for a perceptron on a data set: the answer of :func:`perceptron_bound`.

    Attributes
    ----------
    augmented : bool
        True when the perceptron has an offset and the quantities below are those of the
        points ``z_i = (x_i, 1)`` in ``R^(d+1)``; False for the perceptron through the origin
        on ``z_i = x_i``.
    separable : bool
        Whether some ``v`` has ``y_i <v, z_i> > 0`` on every row (by LP); the bound exists only
        then.
    radius : float
        ``R = max_i ||z_i||`` (``sqrt(max_i ||x_i||^2 + 1)`` when ``augmented``).
    margin : float or None
        ``gamma = max_{||v|| = 1} min_i y_i <v, z_i>``, the max margin through the origin on
        the ``z_i`` (the hard-margin QP), if separable.
    bound : float or None
        ``(R / gamma)^2``, if separable.
    margin_one_bound : float or None
        ``R^2 ||v*||^2`` for the separator ``v*`` below; equal to ``bound`` (as
        ``||v*|| = 1/gamma``), if separable.
    separator : ndarray of shape (n_features,) or (n_features + 1,), or None
        ``v*``, the min-norm vector with ``min_i y_i <v*, z_i> = 1``; with ``augmented`` its
        last entry is the offset ``b*`` of ``(w*, b*)``. None if not separable.
    certificate_rows : ndarray of int or None
        If not separable, the rows that carry a Farkas certificate (a subset that is
        already not separable in this setting).
    certificate : ndarray of shape (n_samples,) or None
        If not separable, the certificate itself: ``alpha >= 0``, not all zero, with
        ``sum_i alpha_i y_i z_i = 0`` (see :class:`~halfspaces.exceptions.NotSeparableError`).
    exact : bool
        True when ``margin`` is the maximum margin (the QP's, certified by its duality gap).
        False when the QP could not be solved to a certified optimum (an
        :class:`~halfspaces.exceptions.InexactMarginWarning` says why): ``margin`` is then
        the margin of a verified separator (the separating LP's), at most the maximum, so
        ``bound`` is still an upper bound on the mistakes, only looser than Novikoff's with
        the maximum margin.
    """

    augmented: bool
    separable: bool
    radius: float
    margin: float | None = None
    bound: float | None = None
    margin_one_bound: float | None = None
    separator: NDArray[np.float64] | None = None
    certificate_rows: NDArray[np.intp] | None = None
    certificate: NDArray[np.float64] | None = None
    exact: bool = True


def perceptron_bound(X: ArrayLike, y: ArrayLike, *, fit_intercept: bool) -> PerceptronBound:
    """Novikoff's mistake bound of the perceptron on ``(X, y)``, in the perceptron's setting.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two labels (the larger one, in sorted order, is +1).
    fit_intercept : bool
        The learner's setting: True for a perceptron that learns an offset ``b`` (the
        default of :class:`~halfspaces.Perceptron`, :class:`~halfspaces.AveragedPerceptron`
        and :class:`~halfspaces.VotedPerceptron`), False for one through the origin. Pass the
        learner's own ``fit_intercept``.

    Returns
    -------
    PerceptronBound
        ``radius``, ``margin``, ``bound`` and the separator, or, for data that is not
        separable in this setting, ``separable=False`` with the rows of a Farkas certificate.

    Notes
    -----
    Through the origin the perceptron sees ``z_i = x_i`` and Novikoff's theorem gives

    .. math::  M \\le \\left(\\frac{R}{\\gamma}\\right)^2, \\qquad R = \\max_i \\lVert x_i
               \\rVert, \\qquad \\gamma = \\max_{\\lVert u \\rVert = 1} \\min_i y_i
               \\langle u, x_i \\rangle .

    With an offset the update ``(w, b) <- (w, b) + y_t (x_t, 1)`` and the test
    ``y_t (<w, x_t> + b) <= 0`` are those of the perceptron *through the origin* on the
    augmented points ``z_i = (x_i, 1)`` in :math:`\\mathbb{R}^{d+1}`, so the theorem applies
    to them:

    .. math::  R' = \\max_i \\lVert (x_i, 1) \\rVert = \\sqrt{R^2 + 1}, \\qquad
               \\gamma' = \\max_{\\lVert (w, b) \\rVert = 1} \\min_i
               y_i(\\langle w, x_i \\rangle + b), \\qquad M \\le (R'/\\gamma')^2 .

    :math:`\\gamma'` normalizes the whole vector :math:`(w, b)`. It is *not* the max margin
    :math:`\\gamma` of the offset problem in :math:`\\mathbb{R}^d` (the hard-margin SVM,
    which normalizes :math:`w` alone and leaves :math:`b` free): with :math:`(w^*, b^*)`,
    :math:`\\lVert w^* \\rVert = 1`, the SVM's separator,

    .. math::  \\frac{\\gamma}{\\sqrt{1 + b^{*2}}} \\le \\gamma' \\le \\gamma ,

    so :math:`(R/\\gamma)^2` with the SVM's margin is no bound at all when the data lies far
    from the origin (a large :math:`|b^*|`). In the margin-one form,
    :math:`y_i(\\langle w^*, x_i \\rangle + b^*) \\ge 1` gives
    :math:`M \\le R'^2 (\\lVert w^* \\rVert^2 + b^{*2})`: the offset counts in the norm,
    and the smallest such value is again :math:`(R'/\\gamma')^2`.

    ``gamma`` comes from :func:`~halfspaces.theory.max_margin_separator` through the origin
    on the ``z_i``; the separator it returns has smallest functional margin exactly 1 on
    the data, so ``gamma = 1/||v*||`` is the margin of an actual separator and the bound
    holds for it. Where the QP fails, that separator is the LP's (``exact=False``): the
    bound ``(R/gamma_LP)^2`` is larger than Novikoff's with the maximum margin, never
    smaller. The averaged and voted perceptrons run the same perceptron underneath:
    the bound covers its mistakes (their ``n_mistakes_``), not the mistakes of the averaged
    or voted predictions. It covers every order of the rows, and ``fit``'s passes until
    convergence as one long sequence.

    References
    ----------
    Novikoff (1962), "On convergence proofs on perceptrons".

    Examples
    --------
    Two points on a line, far from the origin:

    >>> import numpy as np
    >>> X = np.array([[3.0], [4.0]])
    >>> res = perceptron_bound(X, [-1, 1], fit_intercept=True)
    >>> res.augmented, round(res.radius ** 2, 6), np.round(res.separator, 6) + 0.0
    (True, 17.0, array([ 2., -7.]))
    >>> round(1.0 / res.margin ** 2, 6), round(res.bound, 6)
    (53.0, 901.0)
    >>> perceptron_bound(X, [-1, 1], fit_intercept=False).certificate_rows
    array([0, 1])

    The perceptron with an offset runs on ``(3, 1)`` and ``(4, 1)``: ``R'^2 = 17``, and the
    smallest ``(w*, b*)`` with functional margin 1 is ``(2, -7)``, so ``gamma'^2 = 1/53``
    and the bound is ``17 * 53 = 901``. The SVM's margin 0.5 (the threshold 3.5) belongs to
    another setting. Through the origin no halfspace separates the two points.
    """
    from .margins import data_radius
    from .separability import _check_X_y, max_margin

    X, y_pm = _check_X_y("perceptron_bound", X, y, fit_intercept)
    augmented = bool(fit_intercept)
    if augmented:
        ones = np.ones((X.shape[0], 1))
        X = sp.hstack([X, ones], format="csr") if sp.issparse(X) else np.hstack([X, ones])
    radius = float(data_radius(X))
    try:
        v, _, margin, exact = max_margin(X, y_pm, False, owner="perceptron_bound")
    except NotSeparableError as exc:
        return PerceptronBound(augmented, False, radius, certificate_rows=exc.rows,
                               certificate=exc.certificate)
    margin = float(margin)
    return PerceptronBound(augmented, True, radius, margin,
                           perceptron_mistake_bound(radius, margin),
                           margin_one_mistake_bound(radius, float(np.linalg.norm(v))), v,
                           exact=exact)
