"""The CSR dot product in the dense rows' order (issue 14): its vector form gives the bits of
the scalar definition and of an independent NumPy reference, for every layout the compiled
passes take, and a dense row gives the same bits."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import overflows

from halfspaces._primitives import (
    _dot_csr_dense_order_vector,
    dot_csr_dense_order,
    dot_dense,
)


def _reference(w, values, columns):
    """The dense row's sums from the math: column ``j`` into partial sum ``j mod 8`` (the
    last ``d mod 8`` columns into sum 0), each sum in column order, then the fixed tree."""
    d = w.shape[0]
    s = [0.0] * 8
    for j, x in zip(columns.tolist(), values.tolist(), strict=True):
        s[j % 8 if j < d - d % 8 else 0] += float(w[j]) * x
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))


@st.composite
def csr_rows(draw):
    """``(w, data, indices, start, end)``: one canonical CSR row (sorted columns, some
    stored zeros) inside a longer buffer, values over many magnitudes (sums that round)."""
    d = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = np.flatnonzero(rng.random(d) < draw(st.floats(0.0, 1.0)))
    values = rng.normal(size=columns.size) * 10.0 ** rng.uniform(-6, 6, columns.size)
    values[rng.random(columns.size) < 0.1] = 0.0
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    index_dtype = draw(st.sampled_from([np.int32, np.int64]))
    before, after = draw(st.integers(0, 3)), draw(st.integers(0, 3))  # other rows' entries
    data = np.concatenate([rng.normal(size=before), values, rng.normal(size=after)])
    indices = np.concatenate([rng.integers(0, d, before), columns, rng.integers(0, d, after)])
    w = rng.normal(size=d) * 10.0 ** rng.uniform(-3, 3, d)
    return (w, data.astype(dtype), indices.astype(index_dtype), before,
            before + columns.size)


@settings(max_examples=200, deadline=None)
@given(csr_rows())
def test_the_vector_csr_dot_sums_as_the_dense_row(row):
    w, data, indices, start, end = row
    columns, values = indices[start:end].astype(np.int64), data[start:end].astype(np.float64)
    got = _dot_csr_dense_order_vector(w, data, indices, start, end)
    want = _reference(w, values, columns)
    assert np.float64(got).tobytes() == np.float64(want).tobytes()
    assert got == dot_csr_dense_order(w, data, indices, start, end)
    dense = np.zeros(w.shape[0], dtype=data.dtype)
    dense[columns] = data[start:end]
    assert np.float64(dot_dense(w, dense)).tobytes() == np.float64(got).tobytes()


@overflows  # inf * -0.0 without the JIT
def test_a_non_finite_product_stays_in_its_sum():
    """inf and nan products reach the result as in the dense row (the other sums get +0.0,
    never inf * 0)."""
    w = np.array([1.0, 2.0, np.inf, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0])
    indices = np.array([0, 2, 8], dtype=np.int32)
    assert _dot_csr_dense_order_vector(w, np.array([1.0, 1.0, 1.0]), indices, 0, 3) == np.inf
    assert np.isnan(_dot_csr_dense_order_vector(w, np.array([1.0, -0.0, 1.0]), indices, 0, 3))
