"""ERM for halfspaces by linear programming (the realizable case). Labels y_i in {-1,+1}.

    Separating LP  min ||w||_1  s.t.  y_i (<w, x_i> + b) >= 1 for all i   (b: fit_intercept)
    Farkas         exactly one holds: such (w, b) exists, or some alpha >= 0, alpha != 0 has
                   sum_i alpha_i y_i x_i = 0  (and sum_i alpha_i y_i = 0 with an offset)
    Relaxation     min sum_i s_i xi_i  s.t.  y_i (<w, x_i> + b) >= 1 - xi_i, xi_i >= 0
                   (on_infeasible="least_violation", the default; the certificate is kept)

Example weights s_i >= 0 (sample_weight times class_weight; s_i = 1 without): a row of
weight 0 is left out of every LP, so it is exactly the row removed (the certificate never
puts weight on it). Positive weights do not change the separating LP or the Farkas LP:
whether a separator exists does not depend on them. They weigh the relaxation's hinge
losses, where an integer weight k is the row repeated k times (the same optimal value).

Any strictly separating (w, b) can be rescaled to meet the margin-1 constraints, so the LP is
feasible exactly when the data is separable, and then its solution has zero training error
(the ERM of the 0-1 loss over halfspaces). The LPs are solved by HiGHS
(:mod:`halfspaces.solvers.lp`); there is no compiled pass in this module: the LP solver
does the work.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._base import ClassifierBase, ParamsMixin, SaveMixin, check_is_fitted, safe_sparse_dot
from .._labels import check_classes, decode_scores, encode_pm
from .._parallel import map_problems
from .._params import LP_SEPARATOR
from .._validation import check_row_norms, validate_X, validate_X_y
from .._weights import check_every_class_weighed, example_weights
from ..exceptions import NotSeparableError, NotSeparableWarning
from ..solvers.lp import (
    describe_rows,
    error_over_rows,
    farkas_certificate,
    least_violation_hyperplane,
    over_rows,
    separate_or_certify,
    separating_hyperplane,
)

_HINT = ("Use LPSeparator(on_infeasible='least_violation') to minimise the total margin"
         " violation instead, or a soft-margin learner such as SVC or PegasosSVC.")


class LPSeparator(SaveMixin, ParamsMixin, ClassifierBase):
    """A separating halfspace found by linear programming, or a proof that none exists.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset ``b`` (free, not in the objective). With ``fit_intercept=False`` the
        halfspace goes through the origin.
    on_infeasible : {"least_violation", "raise"}, default="least_violation"
        What to do when a binary problem is not linearly separable. The separating LP is
        always tried first, so on separable data both choices give the same separator.
        ``"least_violation"`` solves the LP relaxation of ERM instead: minimise the sum of
        the slacks ``xi_i`` (the unregularised sum of hinge losses); the Farkas certificate
        that proves the data non-separable is kept in ``certificates_`` and a
        :class:`~halfspaces.exceptions.NotSeparableWarning` names its rows.
        ``"raise"`` is the strict form of ERM in the realizable case: it raises
        :class:`~halfspaces.NotSeparableError` carrying the certificate instead.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: an example's weight is its class's weight (``"balanced"``:
        ``S / (n_classes S_c)``, ``S_c`` the total ``sample_weight`` of class ``c``) times
        its ``sample_weight`` (see Notes for what a weight does).
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems of more than two classes (scikit-learn's
        meaning: None or 1 is one, -1 every core): the LPs of ``min(n_jobs, n_classes)``
        classes are solved at the same time (HiGHS releases the GIL while it solves; the
        LPs' setup in SciPy holds it). Each LP is the same whichever thread solves it, so
        the model is the same, bit for bit, for every ``n_jobs``; with ``"raise"`` the error
        names the first class (in ``classes_`` order) that is not separable.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of labels
    n_features_in_ : int
    separable_ : ndarray of bool, shape (1,) or (n_classes,)
        Whether each binary problem (one per class for one-vs-rest) was separable. Always
        all true with ``on_infeasible="raise"``.
    certificates_ : scipy.sparse.csr_matrix of shape (1, n_samples) or (n_classes, n_samples)
        Row ``k`` is the verified Farkas certificate ``alpha`` (summing to one) of binary
        problem ``k`` over the training rows, and is empty when that problem is separable
        (or, exceptionally, when the data is so close to the boundary of separability that
        no certificate could be verified). At most ``d + 2`` rows carry weight.

    Notes
    -----
    With labels :math:`y_i \\in \\{-1, +1\\}` (``classes_[1]`` is :math:`+1`), ``fit`` solves

    .. math::

        \\min_{w, b} \\; \\|w\\|_1 \\quad\\text{s.t.}\\quad
        y_i(\\langle w, x_i\\rangle + b) \\ge 1, \\quad i = 1, \\dots, n,

    with :math:`w = u - v`, :math:`u, v \\ge 0`. The L1 objective keeps the LP bounded
    and picks a sparse separator among the many feasible ones (a zero objective would make
    the answer whatever vertex the solver reaches first). Scores are
    :math:`\\langle w, x\\rangle + b`; the positive class is predicted when the score is
    :math:`\\ge 0`. When the LP is infeasible the Farkas alternative

    .. math::

        \\alpha \\ge 0,\\; \\sum_i \\alpha_i = 1,\\;
        \\sum_i \\alpha_i y_i x_i = 0 \\; \\Big(\\text{and } \\sum_i \\alpha_i y_i = 0\\Big)

    is solved as an LP of its own; the certificate is verified (relative residual at most
    ``1e-8`` of the data scale) before it is raised: for every :math:`(w, b)`,
    :math:`\\sum_i \\alpha_i y_i(\\langle w, x_i\\rangle + b) = 0`, so some row with
    :math:`\\alpha_i > 0` has :math:`y_i(\\langle w, x_i\\rangle + b) \\le 0`, a mistake.
    The same certificate is kept in ``certificates_`` when ``"least_violation"`` answers
    instead. More than two classes: one-vs-rest, and with ``"raise"`` every class-vs-rest
    problem must be separable (the error names the class). Sparse ``X`` (CSR) gives a sparse
    LP.

    Example weights :math:`s_i \\ge 0` (``sample_weight`` times ``class_weight``, the same
    for every one-vs-rest problem): a row of weight 0 is left out of every LP, exactly as
    if it were removed from ``X`` (``certificates_`` keeps a column for it, always 0).
    Positive weights do not change the separating LP or the Farkas LP, since whether a
    separator exists does not depend on them: on separable data the weights change nothing.
    They weigh the relaxation,

    .. math::

        \\min_{w, b, \\xi} \\; \\sum_i s_i \\xi_i \\quad\\text{s.t.}\\quad
        y_i(\\langle w, x_i\\rangle + b) \\ge 1 - \\xi_i,\\; \\xi_i \\ge 0,

    so that an integer weight :math:`k` is the row repeated :math:`k` times (the same
    optimal value; the LP's optimal vertex need not be unique, so not always the same
    ``coef_``).

    References
    ----------
    Farkas (1902); Shalev-Shwartz and Ben-David (2014), *Understanding Machine Learning*,
    section 9.1.1 (ERM for halfspaces as a linear program).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> clf = LPSeparator().fit(X[:3], [1, 1, -1])
    >>> clf.score(X[:3], [1, 1, -1])
    1.0
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:   # XOR is not separable
    ...     warnings.simplefilter("always")
    ...     clf = LPSeparator().fit(X, [1, 1, -1, -1])
    >>> caught[0].category.__name__, clf.separable_, clf.certificates_.toarray()
    ('NotSeparableWarning', array([False]), array([[0.25, 0.25, 0.25, 0.25]]))
    >>> from halfspaces import NotSeparableError
    >>> try:
    ...     LPSeparator(on_infeasible="raise").fit(X, [1, 1, -1, -1])
    ... except NotSeparableError as err:
    ...     print(err.rows, err.certificate)
    [0 1 2 3] [0.25 0.25 0.25 0.25]
    """

    _parameter_constraints = LP_SEPARATOR

    def __init__(self, *, fit_intercept: bool = True,
                 on_infeasible: str = "least_violation", class_weight=None,
                 n_jobs: int | None = None):
        self.fit_intercept = fit_intercept
        self.on_infeasible = on_infeasible
        self.class_weight = class_weight
        self.n_jobs = n_jobs

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Solve the separating LP of each binary problem (one-vs-rest for more classes).

        ``sample_weight``: one number ``s_i >= 0`` per example; 0 leaves the example out, a
        positive weight weighs its hinge loss in the least-violation LP (see Notes).

        Raises
        ------
        NotSeparableError
            With ``on_infeasible="raise"``, when some binary problem has no separator; its
            ``certificate`` is the Farkas vector over the rows of ``X``.

        Warns
        -----
        NotSeparableWarning
            With ``on_infeasible="least_violation"``, when some binary problem has no
            separator: it names the rows of its certificate (kept in ``certificates_``).
        """
        self._validate_params()
        X, y = validate_X_y(self, X, y, reset=True)
        check_row_norms("LPSeparator", X)  # HiGHS fails on features of 1e154 or more
        self.classes_ = check_classes("LPSeparator", y, None)
        s = example_weights("LPSeparator.fit", sample_weight, X.shape[0], y,
                            self.class_weight, self.classes_)
        check_every_class_weighed("LPSeparator.fit", s, y, self.classes_, self.class_weight)
        y_pm = encode_pm(y, self.classes_)
        X = X.astype(np.float64, copy=False)
        n = X.shape[0]
        kept = np.arange(n) if s is None else np.flatnonzero(s)
        if kept.size < n:  # a row of weight 0 is the row removed
            X, y_pm, s = X[kept], y_pm[..., kept], s[kept]
        fit_b = bool(self.fit_intercept)
        problems = [y_pm] if y_pm.ndim == 1 else list(y_pm)

        def solve(k: int) -> tuple:
            """(w, b, the Farkas certificate or None, whether separable) of problem k."""
            y_k, problem = problems[k], self._problem_name(k, len(problems))
            if self.on_infeasible == "raise":
                try:
                    return (*separate_or_certify(X, y_k, fit_b, owner="LPSeparator",
                                                 problem=problem, hint=_HINT), None, True)
                except NotSeparableError as err:  # its rows as given, weight-0 ones too
                    raise error_over_rows(err, kept, n) from None
            sep = separating_hyperplane(X, y_k, fit_b)
            if sep is not None:
                return (*sep, None, True)
            alpha = farkas_certificate(X, y_k, fit_b)
            return (*least_violation_hyperplane(X, y_k, fit_b, s)[:2],
                    None if alpha is None else over_rows(alpha, kept, n), False)

        coef = np.zeros((len(problems), X.shape[1]))
        intercept = np.zeros(len(problems))
        separable = np.ones(len(problems), dtype=bool)
        alphas, unseparated = {}, []  # problem k -> its Farkas certificate; messages
        for k, (w, b, alpha, separated) in enumerate(
                map_problems(solve, len(problems), self.n_jobs)):
            coef[k], intercept[k], separable[k] = w, b, separated
            if alpha is not None:
                alphas[k] = alpha
            if not separated:
                unseparated.append(_unseparated(self._problem_name(k, len(problems)), k,
                                                alpha, fit_b))
        self.coef_, self.intercept_, self.separable_ = coef, intercept, separable
        self.certificates_ = sp.vstack(
            [sp.csr_matrix(alphas[k] if k in alphas else (1, n))
             for k in range(len(problems))], format="csr")
        if unseparated:
            warnings.warn(NotSeparableWarning(
                f"LPSeparator: {'; '.join(unseparated)}. So fit returned the least-violation"
                " hyperplane (minimum total hinge loss) instead, as on_infeasible="
                "'least_violation' asks. Pass on_infeasible='raise' to raise"
                " NotSeparableError instead, or use a soft-margin learner such as SVC."),
                stacklevel=2)
        return self

    def _problem_name(self, k: int, n_problems: int) -> str:
        """How the messages name binary problem ``k``."""
        if n_problems == 1:
            return "the data"
        label = self.classes_[k]
        label = label.item() if hasattr(label, "item") else label
        return f"class {label!r} vs the rest"

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores ``<w, x> + b``: ``(n,)`` for two classes, ``(n, n_classes)`` for OvR."""
        check_is_fitted(self)
        X = validate_X(self, X, reset=False)
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """Labels: ``classes_[1]`` when the score is ``>= 0`` (binary), argmax (OvR)."""
        return decode_scores(self.decision_function(X), self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _unseparated(problem: str, k: int, alpha, fit_intercept: bool) -> str:
    """'<problem> is not linearly separable ...: the certificate puts weight on rows [...]'."""
    offset = "with an offset" if fit_intercept else "through the origin"
    if alpha is None:
        return (f"{problem} is not linearly separable {offset} by HiGHS, but no Farkas"
                " certificate could be verified (the data is numerically at the boundary of"
                " separability)")
    return (f"{problem} is not linearly separable {offset}: the Farkas certificate"
            f" certificates_[{k}] puts weight on {describe_rows(np.flatnonzero(alpha))}")


__all__ = ["LPSeparator"]
