"""dump_svmlight streams its text: the same bytes as a reference written from the format,
whatever the block size, in memory bounded by a block rather than by the output."""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.datasets import _dump, dump_svmlight, load_svmlight


def reference(X, y, *, zero_based=False, query_id=None, comment=None) -> bytes:
    """The svmlight text from the format's definition: one line per row, label, qid,
    index:value of the non-zero entries in increasing index order, values by repr."""
    D = np.asarray(sp.csr_matrix(X).todense(), dtype=np.float64)  # duplicates summed
    out = [f"# {c}\n" for c in (comment.splitlines() if comment else [])]
    for i, row in enumerate(D):
        label = str(int(y[i])) if np.issubdtype(np.asarray(y).dtype, np.integer) \
            else repr(float(y[i]))
        parts = [label] + ([] if query_id is None else [f"qid:{int(query_id[i])}"])
        parts += [f"{j + (not zero_based)}:{v!r}" for j, v in enumerate(row.tolist()) if v != 0]
        out.append(" ".join(parts) + "\n")
    return "".join(out).encode()


def _cases():
    rng = np.random.default_rng(0)
    D = rng.normal(size=(23, 7)) * (rng.random((23, 7)) < 0.4)
    D[5] = 0.0  # an all-zero row
    y = rng.integers(-1, 2, size=23)
    # CSR with duplicate entries, unsorted indices and explicit zeros: canonicalised per block
    coo = sp.coo_matrix(D)
    messy = sp.csr_matrix((np.r_[coo.data, 1.5, -1.5, 0.0], (np.r_[coo.row, 2, 2, 3],
                                                            np.r_[coo.col, 6, 6, 0])),
                          shape=D.shape)
    messy.data[::-1].sort()  # leave the indices unsorted within rows
    return [(D, y), (sp.csr_matrix(D), y.astype(float) / 3), (messy, y),
            (D.astype(np.float32), y), (sp.csc_matrix(D), y)]


@pytest.mark.parametrize("block_nnz", [1, 3, 10, 1 << 16])
@pytest.mark.parametrize("case", range(5))
def test_the_text_is_the_format_whatever_the_block(tmp_path, monkeypatch, block_nnz, case):
    monkeypatch.setattr(_dump, "BLOCK_NNZ", block_nnz)
    X, y = _cases()[case]
    qid = np.arange(X.shape[0]) // 4
    for kwargs in ({}, {"zero_based": True, "query_id": qid, "comment": "made\nby hand"}):
        path = tmp_path / "out.svm"
        dump_svmlight(X, y, path, **kwargs)
        assert path.read_bytes() == reference(X, y, **kwargs)


@pytest.mark.parametrize(("value", "what"), [(np.nan, "NaN"), (np.inf, "infinity"),
                                             (-np.inf, "infinity")])
def test_a_non_finite_value_in_a_late_block_leaves_the_old_file(tmp_path, monkeypatch, value,
                                                                  what):
    """The writer refuses what the readers refuse (they stop at a non-finite value)."""
    monkeypatch.setattr(_dump, "BLOCK_NNZ", 2)
    path = tmp_path / "out.svm"
    path.write_bytes(b"old\n")
    X = np.ones((10, 2))
    X[8, 1] = value
    with pytest.raises(ValueError, match=f"X contains {what}, which the svmlight readers"):
        dump_svmlight(X, np.ones(10), path)
    assert path.read_bytes() == b"old\n" and os.listdir(tmp_path) == ["out.svm"]


def test_a_non_finite_label_is_refused(tmp_path):
    y = np.ones(4)
    y[2] = np.inf
    with pytest.raises(ValueError, match="label inf at row 2 is not finite"):
        dump_svmlight(np.ones((4, 2)), y, tmp_path / "out.svm")
    assert not (tmp_path / "out.svm").exists()


def test_memory_is_bounded_by_a_block_not_by_the_output(tmp_path, monkeypatch):
    monkeypatch.setattr(_dump, "BLOCK_NNZ", 2000)
    n, k = 20_000, 10
    rng = np.random.default_rng(1)
    X = sp.csr_matrix((rng.random(n * k), np.tile(np.arange(k) * 3, n), np.arange(n + 1) * k),
                      shape=(n, 3 * k))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    path = tmp_path / "big.svm"
    tracemalloc.start()
    try:
        dump_svmlight(X, y, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = path.stat().st_size  # about 4 MB
    assert peak < size / 4, (peak, size)  # the text of one block, not of the file
    X2, y2 = load_svmlight(path, n_features=3 * k)
    assert (X2 != X).nnz == 0 and np.array_equal(y2, y)
