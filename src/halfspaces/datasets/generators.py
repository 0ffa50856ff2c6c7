"""Synthetic linearly separable data with an exactly planted margin.

A unit vector ``u`` is drawn first. Every row is then built as its component along ``u``
plus a part orthogonal to it:

    x_i = a_i u_S / ||u_S||^2 + p_i,     <u, p_i> = 0,     y_i = sign(a_i),

where ``S`` is the row's support (all features for dense data) and ``u_S`` is ``u``
restricted to it, so that ``<u, x_i> = a_i`` exactly. The value ``|a_i|`` is drawn in
``[margin, radius ||u_S||]`` and one row gets ``|a_i| = margin``, so the geometric margin of
``u`` on the sample is exactly ``margin``. The orthogonal part is scaled to keep
``||x_i|| <= radius``.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._validation import check_scalar, param_error

_OWNER = "make_separable"
_CHUNK = 1 << 16  # rows generated per vectorised block for sparse data (bounds memory)


def _orthogonal_part(rng, u_rows, sq_norm, length):
    """Random vectors orthogonal to each row of ``u_rows`` with the given lengths."""
    g = rng.standard_normal(u_rows.shape)
    # Project twice ("twice is enough", Kahan/Parlett): a draw nearly parallel to u loses
    # orthogonality to cancellation in one projection, and with it the planted row norms.
    for _ in range(2):
        g -= (np.einsum("ij,ij->i", g, u_rows) / sq_norm)[:, None] * u_rows
    g_norm = np.sqrt(np.einsum("ij,ij->i", g, g))
    # A zero orthogonal part (one feature, or a measure-zero draw) just stays zero.
    scale = np.divide(length, g_norm, out=np.zeros_like(length), where=g_norm > 0)
    return g * scale[:, None]


def _draw_signs(rng, n):
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    if n >= 2 and abs(y.sum()) == n:  # keep both classes in the sample
        y[-1] = -y[-1]
    return y


def _dense_rows(rng, n, d, u, margin, radius, y, tight_row):
    a = y * (margin + (radius - margin) * rng.random(n))
    a[tight_row] = y[tight_row] * margin
    # Orthogonal length uniform in [0, sqrt(R^2 - a^2)]: the rows fill the ball.
    length = np.sqrt(np.maximum(radius**2 - a**2, 0.0)) * rng.random(n)
    U = np.broadcast_to(u, (n, d))
    return a[:, None] * u[None, :] + _orthogonal_part(rng, U, np.ones(n), length)


def _supports(rng, n, d, k):
    """``n`` sorted rows of ``k`` distinct column indices in ``[0, d)``, vectorised.

    Draw with replacement, then redraw only the repeated entries until none is left: each
    redraw is uniform over the columns not yet in the row, so a row is a uniform k-subset.
    Past ``k > d/2`` the complement (``d - k`` columns) is drawn instead.
    """
    if 2 * k > d:
        drop = _supports(rng, n, d, d - k)
        keep = np.ones((n, d), dtype=bool)
        keep[np.arange(n)[:, None], drop] = False
        return np.nonzero(keep)[1].reshape(n, k)
    idx = np.sort(rng.integers(0, d, size=(n, k)), axis=1)
    while k > 1:
        repeat = np.zeros(idx.shape, dtype=bool)
        repeat[:, 1:] = idx[:, 1:] == idx[:, :-1]
        rows = np.flatnonzero(repeat.any(axis=1))
        if rows.size == 0:
            break
        sub, sub_repeat = idx[rows], repeat[rows]
        sub[sub_repeat] = rng.integers(0, d, size=int(sub_repeat.sum()))
        idx[rows] = np.sort(sub, axis=1)
    return idx


def _sparse_block(rng, n, d, k, u, margin, radius, y, tight_row):
    idx = _supports(rng, n, d, k)
    need = margin / radius
    for attempt in range(101):  # redraw supports on which u has too little mass
        sq = np.einsum("ij,ij->i", u[idx], u[idx])
        bad = np.flatnonzero(np.sqrt(sq) < need)
        if bad.size == 0:
            break
        if attempt == 100:
            typical = radius * np.sqrt(k / d)
            raise param_error(
                _OWNER, "margin", f"reachable with {k} nonzeros per row out of {d} features",
                margin, f"A sparse row has margin at most radius*||u_S||, typically about"
                f" {typical:.3g} here; lower the margin or raise density/nnz_per_row.")
        idx[bad] = _supports(rng, bad.size, d, k)
    u_rows = u[idx]
    top = radius * np.sqrt(sq)
    a = y * (margin + (top - margin) * rng.random(n))
    if tight_row is not None:
        a[tight_row] = y[tight_row] * margin
    # The orthogonal part fills up the norm: every row has ||x|| = radius (L2-normalised).
    length = np.sqrt(np.maximum(radius**2 - a**2 / sq, 0.0))
    values = (a / sq)[:, None] * u_rows + _orthogonal_part(rng, u_rows, sq, length)
    return idx, values


def make_separable(
    n_samples: int = 100,
    n_features: int = 2,
    margin: float = 0.1,
    *,
    sparse: bool = False,
    density: float | None = None,
    nnz_per_row: int | None = None,
    noise: float = 0.0,
    radius: float = 1.0,
    random_state=None,
    return_separator: bool = False,
):
    """Linearly separable data (through the origin) with an exactly planted margin.

    Parameters
    ----------
    n_samples : int, default=100
    n_features : int, default=2
    margin : float, default=0.1
        The geometric margin ``gamma`` of the planted unit separator ``u``: every row has
        ``y_i <u, x_i> >= margin`` and the minimum equals ``margin``. Must be ``<= radius``.
    sparse : bool, default=False
        Return a CSR matrix with ``nnz_per_row`` stored entries per row, built block by
        block without a Python loop per row (the peak memory is about twice the result's).
    density : float in (0, 1], optional
        Fraction of features stored per row when ``sparse=True`` (default 0.1); sets
        ``nnz_per_row = max(1, round(density * n_features))``.
    nnz_per_row : int, optional
        Stored entries per row when ``sparse=True``; give this or ``density``, not both.
    noise : float in [0, 1), default=0.0
        Fraction of labels flipped after planting (exactly ``round(noise * n_samples)``
        rows chosen at random); the data is then no longer separable by ``u``.
    radius : float, default=1.0
        Dense rows have ``||x_i|| <= radius`` (they fill the ball). Sparse rows with two or
        more entries have ``||x_i|| = radius`` (L2-normalised when ``radius=1``, like
        tf-idf text). Norms are exact up to floating-point rounding (a few ulps).
    random_state : int, RandomState or None, default=None
        Same seed, same data, bit for bit.
    return_separator : bool, default=False
        Also return ``u``.

    Returns
    -------
    X : ndarray or csr_matrix of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), labels in {-1, +1} (both classes when n >= 2)
    u : ndarray of shape (n_features,), only with ``return_separator=True``; ``||u|| = 1``.

    Notes
    -----
    Each row is ``x_i = a_i u_S/||u_S||^2 + p_i`` with ``p_i`` orthogonal to ``u`` and
    supported on the row's features ``S``, so

    .. math::  y_i \\langle u, x_i \\rangle = |a_i| \\ge \\gamma,
               \\qquad \\min_i y_i \\langle u, x_i \\rangle = \\gamma,
               \\qquad \\lVert x_i \\rVert \\le R .

    ``|a_i|`` is uniform on ``[gamma, R ||u_S||]`` (``||u_S|| = 1`` for dense data). A
    sparse row can only reach margins up to ``R ||u_S||``, about ``R sqrt(k/d)`` for ``k``
    of ``d`` features; supports with too little mass are redrawn, and an unreachable
    margin is reported as an error. The offset is zero: to study ``fit_intercept=True``,
    shift ``X`` by a constant vector ``c`` (the separator then has ``b = -<u, c>``).

    Examples
    --------
    >>> from halfspaces.theory import geometric_margin, data_radius
    >>> X, y, u = make_separable(50, 3, margin=0.2, random_state=0, return_separator=True)
    >>> round(geometric_margin(u, X, y), 12), data_radius(X) <= 1.0
    (0.2, True)
    >>> Xs, ys = make_separable(1000, 500, margin=0.01, sparse=True, nnz_per_row=20,
    ...                         random_state=0)
    >>> Xs.format, Xs.nnz
    ('csr', 20000)
    """
    _check_make_separable(n_samples, n_features, margin, noise, radius, sparse,
                          return_separator)
    n, d = int(n_samples), int(n_features)
    margin, radius = float(margin), float(radius)
    # Draws come from a Generator seeded by random_state (its sampler is several times
    # faster than RandomState's); same random_state, same data.
    rng = np.random.default_rng(
        check_random_state(random_state).randint(np.iinfo(np.int64).max, dtype=np.int64))

    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = _draw_signs(rng, n)
    tight_row = int(rng.integers(n))

    if not sparse:
        if density is not None or nnz_per_row is not None:
            raise param_error(_OWNER, "density/nnz_per_row", "left unset for dense data",
                              density if density is not None else nnz_per_row,
                              "Pass sparse=True to get a CSR matrix.")
        X = _dense_rows(rng, n, d, u, margin, radius, y, tight_row)
    else:
        k = _entries_per_row(d, density, nnz_per_row)
        X = _sparse_rows(rng, (n, d, k), u, margin, radius, y, tight_row)

    if noise > 0:
        flip = rng.permutation(n)[: int(round(noise * n))]
        y[flip] = -y[flip]
    if return_separator:
        return X, y, u
    return X, y


def _check_make_separable(n_samples, n_features, margin, noise, radius, sparse,
                          return_separator) -> None:
    check_scalar(_OWNER, "n_samples", n_samples, kind=numbers.Integral, low=1)
    check_scalar(_OWNER, "n_features", n_features, kind=numbers.Integral, low=1)
    check_scalar(_OWNER, "radius", radius, low=0.0, low_inclusive=False,
                 meaning="largest row norm R")
    check_scalar(_OWNER, "margin", margin, low=0.0, high=float(radius), low_inclusive=False,
                 meaning="planted geometric margin gamma, at most radius",
                 hint="Try margin=0.1 with radius=1.")
    check_scalar(_OWNER, "noise", noise, low=0.0, high=1.0, high_inclusive=False,
                 meaning="fraction of flipped labels")
    check_scalar(_OWNER, "sparse", sparse, kind=(bool, np.bool_))
    check_scalar(_OWNER, "return_separator", return_separator, kind=(bool, np.bool_))


def _entries_per_row(d: int, density, nnz_per_row) -> int:
    """The stored entries per sparse row, from ``nnz_per_row`` or ``density``."""
    if density is not None and nnz_per_row is not None:
        raise param_error(_OWNER, "density", "left unset when nnz_per_row is given",
                          density)
    if nnz_per_row is None:
        density = 0.1 if density is None else density
        check_scalar(_OWNER, "density", density, low=0.0, high=1.0, low_inclusive=False,
                     meaning="fraction of features stored per row")
        nnz_per_row = max(1, int(round(density * d)))
    check_scalar(_OWNER, "nnz_per_row", nnz_per_row, kind=numbers.Integral, low=1,
                 high=d, meaning="stored entries per row, at most n_features")
    return int(nnz_per_row)


def _sparse_rows(rng, shape: tuple[int, int, int], u, margin: float, radius: float, y,
                 tight_row: int) -> sp.csr_matrix:
    """The CSR matrix of ``n`` rows of ``d`` columns with ``k`` entries each, for
    ``shape = (n, d, k)``, built in blocks of rows (each fully vectorised)."""
    n, d, k = shape
    index_dtype = np.int32 if max(d, n * k) < np.iinfo(np.int32).max else np.int64
    indices = np.empty(n * k, dtype=index_dtype)
    data = np.empty(n * k, dtype=np.float64)
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        tight = tight_row - start if start <= tight_row < stop else None
        idx, values = _sparse_block(rng, stop - start, d, k, u, margin, radius,
                                    y[start:stop], tight)
        indices[start * k : stop * k] = idx.ravel()
        data[start * k : stop * k] = values.ravel()
    indptr = np.arange(0, n * k + 1, k, dtype=index_dtype)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    X.has_sorted_indices = True
    return X
