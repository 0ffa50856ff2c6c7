"""The binary cache: the blocks of a parsed file on disk, read back memory-mapped."""

from __future__ import annotations

import json
import mmap
import os
import shutil
import subprocess
import sys
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same
from sklearn.datasets import load_svmlight_file

import halfspaces.datasets.svmlight as svm
from halfspaces.datasets import DataFormatError, dump_svmlight, load_vw
from halfspaces.datasets.cache import CacheError, cache_path, open_cached


def mapped(a) -> bool:
    """Whether the array is a view of a memory-mapped file (through a memoryview too)."""
    while a is not None:
        if isinstance(a, (np.memmap, mmap.mmap)):
            return True
        a = a.obj if isinstance(a, memoryview) else getattr(a, "base", None)
    return False


def random_file(tmp_path, name="d.svm", n=120, d=50, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.15, random_state=seed, format="csr")
    X.data = rng.standard_normal(X.nnz)
    dump_svmlight(X, rng.choice([-1, 1, 2], n), tmp_path / name)
    return tmp_path / name


def test_cached_blocks_are_the_loaded_file(tmp_path):
    path = random_file(tmp_path)
    cached = open_cached(path, block_bytes=500)
    assert cached.directory == tmp_path / "d.svm.hscache"
    assert len(cached.header["blocks"]) > 5
    ref = load_svmlight_file(str(path))
    assert_same(*cached.load(), *ref)
    assert (cached.n_rows, cached.nnz, cached.n_features) == (120, ref[0].nnz, 50)
    np.testing.assert_array_equal(cached.classes, [-1.0, 1.0, 2.0])
    X, y = next(iter(cached))
    assert mapped(X.data) and mapped(X.indices) and mapped(y)  # not read into memory
    for dtype in (np.float32,):
        assert_same(*open_cached(path, block_bytes=500, dtype=dtype).load(),
                    *load_svmlight_file(str(path), dtype=dtype))


def test_the_whole_file_decides_the_indexing(tmp_path):
    path = tmp_path / "z.svm"
    path.write_text("1 1:1 3:2\n" * 40 + "-1 0:5\n")  # the only index 0 is on the last line
    cached = open_cached(path, block_bytes=64)
    assert cached.zero_based is True
    assert_same(*cached.load(), *load_svmlight_file(str(path)))
    one_based = tmp_path / "o.svm"
    one_based.write_text("1 1:1 3:2\n" * 40)
    cached = open_cached(one_based, block_bytes=64, n_features=5, zero_based=False)
    assert cached.zero_based is False
    assert_same(*cached.load(), *load_svmlight_file(str(one_based), n_features=5))


def test_later_opens_read_no_text(tmp_path, monkeypatch):
    path = random_file(tmp_path)
    first = open_cached(path, block_bytes=400).load()

    def no_parsing(*args, **kwargs):
        raise AssertionError("the text was parsed again")

    monkeypatch.setattr(svm, "_parsed_blocks", no_parsing)
    assert_same(*open_cached(path, block_bytes=400).load(), *first)


def test_a_stale_cache_is_rebuilt(tmp_path):
    path = random_file(tmp_path, seed=1)
    open_cached(path, block_bytes=400)
    random_file(tmp_path, seed=2)  # new contents (size or time differ)
    os.utime(path, ns=(1, 1))
    assert_same(*open_cached(path, block_bytes=400).load(), *load_svmlight_file(str(path)))
    other = open_cached(path, block_bytes=400, dtype=np.float32)  # other options: rebuilt
    assert other.header["dtype"] == "float32"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svm", "d.svm.hscache"]


def test_a_foreign_or_damaged_directory_is_refused(tmp_path):
    path = random_file(tmp_path)
    target = cache_path(path)
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(CacheError, match=r"d\.svm\.hscache exists but is not a halfspaces"
                                         " cache .*remove it or pass another cache_dir"):
        open_cached(path)
    assert (target / "notes.txt").read_text() == "mine"  # nothing deleted
    (target / "header.json").write_text("{not json")
    with pytest.raises(CacheError, match="header.json cannot be read .*damaged; delete"):
        open_cached(path)
    (target / "header.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(CacheError, match="is not a halfspaces cache"):
        open_cached(path)
    for p in target.iterdir():
        p.unlink()
    target.rmdir()
    cached = open_cached(path, block_bytes=400)
    (cached.directory / "000001.indices.npy").unlink()
    with pytest.raises(CacheError, match=r"lacks 000001\.indices\.npy .*damaged"):
        open_cached(path, block_bytes=400)
    header = json.loads((cached.directory / "header.json").read_text())
    header["version"] = 99
    (cached.directory / "header.json").write_text(json.dumps(header))
    with pytest.raises(CacheError, match="of version 99, this library reads version 2"):
        open_cached(path, block_bytes=400)


def test_a_malformed_file_leaves_no_cache(tmp_path):
    path = tmp_path / "bad.svm"
    path.write_text("1 1:1\n" * 200 + "1 x\n")
    with pytest.raises(DataFormatError, match=r"bad\.svm:201:3"):
        open_cached(path, block_bytes=100)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.svm"]


def test_cache_dir_keeps_files_of_one_name_apart(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pa = random_file(tmp_path / "a", seed=3)
    pb = random_file(tmp_path / "b", seed=4)
    caches = tmp_path / "caches"
    ca, cb = open_cached(pa, caches), open_cached(pb, caches)
    assert ca.directory != cb.directory and ca.directory.parent == caches
    assert_same(*ca.load(), *load_svmlight_file(str(pa)))
    assert_same(*cb.load(), *load_svmlight_file(str(pb)))
    assert not (tmp_path / "a" / "d.svm.hscache").exists()


def test_vw_cache_keeps_the_weights(tmp_path):
    path = tmp_path / "a.vw"
    path.write_text("".join(f"{(-1) ** i} {1 + i % 2} |f a:{i} b |g c\n" for i in range(50)))
    cached = open_cached(path, block_bytes=200)
    X_ref, y_ref, w_ref = load_vw(path, return_weights=True)
    assert_same(*cached.load(), X_ref, y_ref)
    np.testing.assert_array_equal(np.concatenate([b[2] for b in cached.blocks(weights=True)]),
                                  w_ref)


def test_a_pipe_cannot_be_cached(tmp_path):
    fifo = tmp_path / "p.svm"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"p\.svm is a pipe \(FIFO\), which can be read only"
                                         " once, but the cache records the file.s fingerprint"):
        open_cached(fifo)


def _same_size_rewrite(path, how: str) -> None:
    """Rewrite ``path`` with other rows of the same size, and give it back its modification
    time, as ``cp -p`` (in place: same inode), ``rsync -t`` (a new file renamed over it) and
    ``tar x`` (unlinked, then created) do."""
    old = os.stat(path)
    text = path.read_bytes()
    new = text.replace(b"-1 ", b"+X ").replace(b"+1 ", b"-1 ").replace(b"+X ", b"+1 ")
    assert new != text and len(new) == len(text)
    if how == "cp -p":
        source = path.with_name("new.svm")
        source.write_bytes(new)
        os.utime(source, ns=(old.st_atime_ns, old.st_mtime_ns))
        subprocess.run(["cp", "-p", str(source), str(path)], check=True)
        assert os.stat(path).st_ino == old.st_ino  # the same inode: only ctime tells
    elif how == "rsync -t":
        tmp = path.with_name(".d.svm.rsync")
        tmp.write_bytes(new)
        os.utime(tmp, ns=(old.st_atime_ns, old.st_mtime_ns))
        os.replace(tmp, path)
    else:
        path.unlink()
        path.write_bytes(new)
        os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (old.st_size, old.st_mtime_ns)


@pytest.mark.parametrize("how", ["cp -p", "rsync -t", "tar x"])
def test_a_file_replaced_with_the_same_size_and_time_is_read_again(tmp_path, how):
    path = tmp_path / "d.svm"
    rng = np.random.default_rng(5)
    dump_svmlight(rng.normal(size=(40, 3)), rng.choice([-1, 1], 40), path)
    old = open_cached(path, block_bytes=300).load()
    _same_size_rewrite(path, how)
    new = open_cached(path, block_bytes=300).load()
    assert_same(*new, *load_svmlight_file(str(path)))
    assert not np.array_equal(new[1], old[1])


def _edit_npy(path, change) -> None:
    """Change the array of the .npy file ``path`` in place (the same size)."""
    array = np.load(path)
    change(array)
    np.save(path, array)


def test_a_damaged_cache_is_refused_naming_the_file(tmp_path):
    path = random_file(tmp_path)
    directory = open_cached(path, block_bytes=400).directory
    reference = load_svmlight_file(str(path))
    # a column index repeated in a row: the same size, other bytes
    indices = directory / "000000.indices.npy"
    indptr = np.load(directory / "000000.indptr.npy")
    row = int(np.argmax(np.diff(indptr) >= 2))
    _edit_npy(indices, lambda a: a.__setitem__(indptr[row] + 1, a[indptr[row]]))
    with pytest.raises(CacheError, match=r"000000\.indices\.npy: its content is not what the"
                                         r" cache wrote .*delete the directory .*hscache"):
        open_cached(path, block_bytes=400).load()
    # the same, with header.json's checksum made to match: the structure is checked too
    header = json.loads((directory / "header.json").read_text())
    data = indices.read_bytes()
    header["files"][indices.name] = [len(data), zlib.crc32(data)]
    (directory / "header.json").write_text(json.dumps(header))
    with pytest.raises(CacheError, match=rf"block 0 is not a valid CSR matrix \(row {row} .*"
                                         "repeated.*delete the directory"):
        open_cached(path, block_bytes=400).load()
    # a truncated file: named on opening, not numpy's "buffer is smaller than requested size"
    shutil.rmtree(directory)
    open_cached(path, block_bytes=400)
    data = directory / "000001.data.npy"
    data.write_bytes(data.read_bytes()[:-8])
    with pytest.raises(CacheError, match=r"000001\.data\.npy: the file has \d+ bytes, and the"
                                         r" cache wrote \d+ \(truncated\).*delete the directory"):
        open_cached(path, block_bytes=400)
    shutil.rmtree(directory)
    assert_same(*open_cached(path, block_bytes=400).load(), *reference)


def test_a_block_of_another_dtype_than_the_header_is_refused(tmp_path):
    """A crafted cache (header.json's checksum made to match) whose block holds float32
    values where the header says float64 (found by fuzz/cache.py: a shuffled pass then
    mixed the two precisions): refused by name, not read."""
    path = random_file(tmp_path)
    directory = open_cached(path, block_bytes=400).directory
    data = directory / "000001.data.npy"
    np.save(data, np.load(data).astype(np.float32))
    header = json.loads((directory / "header.json").read_text())
    assert header["dtype"] == "float64"
    raw = data.read_bytes()
    header["files"][data.name] = [len(raw), zlib.crc32(raw)]
    (directory / "header.json").write_text(json.dumps(header))
    with pytest.raises(CacheError, match=r"000001\.data\.npy: it holds an array of float32"):
        open_cached(path, block_bytes=400).load()
    header["dtype"] = "float16"  # a header naming a dtype no reader writes
    (directory / "header.json").write_text(json.dumps(header))
    with pytest.raises(CacheError, match="lacks the block layout"):
        open_cached(path, block_bytes=400)


def test_a_cache_of_an_older_version_is_rebuilt(tmp_path):
    path = random_file(tmp_path)
    directory = open_cached(path, block_bytes=400).directory
    header = json.loads((directory / "header.json").read_text())
    header["version"] -= 1
    header["source"] = {k: header["source"][k] for k in ("path", "size", "mtime_ns")}
    (directory / "header.json").write_text(json.dumps(header))
    cached = open_cached(path, block_bytes=400)
    assert cached.header["version"] == header["version"] + 1
    assert_same(*cached.load(), *load_svmlight_file(str(path)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svm", "d.svm.hscache"]


# Rounds of: open the cache of argv[1] with dtype argv[2] (the other dtype's processes make
# it stale: a rebuild each time), and read it in three passes, checked against the file.
_READ_AND_REBUILD = """
import sys
import numpy as np
from sklearn.datasets import load_svmlight_file
from halfspaces.datasets.cache import open_cached
path, dtype = sys.argv[1], np.dtype(sys.argv[2])
X_ref, y_ref = load_svmlight_file(path, dtype=dtype)
for _ in range(12):
    cached = open_cached(path, block_bytes=300, dtype=dtype)
    for _ in range(3):
        X, y = cached.load()
        assert X.dtype == dtype and (X != X_ref).nnz == 0 and np.array_equal(y, y_ref)
    del cached
"""


def test_concurrent_readers_and_rebuilders_all_succeed(tmp_path):
    path = random_file(tmp_path, n=300)
    runs = [subprocess.Popen([sys.executable, "-c", _READ_AND_REBUILD, str(path), dtype],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for dtype in ("float64", "float32", "float64", "float32")]
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err
    # nothing left behind: the caches set aside were removed once no process held them
    open_cached(path, block_bytes=300)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svm", "d.svm.hscache"]
