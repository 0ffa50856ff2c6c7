"""Closed-form mistake bounds of the online algorithms.

    Novikoff (perceptron)   ||x_t|| <= R,  y_t <u, x_t> >= gamma, ||u|| = 1   =>  M <= (R/gamma)^2
    margin-one form         ||x_t|| <= R,  y_t <w*, x_t> >= 1                 =>  M <= R^2 ||w*||^2
    Halving                 some of the N hypotheses is consistent            =>  M <= log2 N
    Weighted Majority       best expert makes m* mistakes, factor beta        =>
                            M <= (ln N + m* ln(1/beta)) / ln(2/(1+beta))
    online-to-batch         perceptron continues from training into testing   =>
                            test mistakes <= (R/gamma)^2 - training mistakes

Pure Python on floats; each function checks its arguments and explains a bad one.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validation import check_scalar, param_error


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
        (through the origin; with an offset, append a constant feature to ``x``).

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


def weighted_majority_mistake_bound(n_experts: int, best_mistakes: float, beta: float
                                    ) -> float:
    """Weighted Majority's bound in terms of the best expert's mistakes.

    Parameters
    ----------
    n_experts : int >= 1
        ``N``.
    best_mistakes : float >= 0
        ``m*``, the mistakes of the best expert on the sequence.
    beta : float in (0, 1)
        The factor by which a wrong expert's weight is multiplied.

    Returns
    -------
    bound : float

    Notes
    -----
    .. math::  M \\le \\frac{\\ln N + m^* \\ln(1/\\beta)}{\\ln\\frac{2}{1+\\beta}}

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
    return (math.log(n_experts) + best_mistakes * math.log(1.0 / beta)) / math.log(
        2.0 / (1.0 + beta))


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
