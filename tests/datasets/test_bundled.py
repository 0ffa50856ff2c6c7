"""Bundled datasets: same as scikit-learn's parser on the same files, counts as documented."""

import gzip
import hashlib
import io
from importlib import resources

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

from halfspaces.datasets import load_a9a, load_heart_scale, load_mushrooms, load_sms_spam
from halfspaces.datasets.bundled import mushroom_feature_names

DATA = resources.files("halfspaces.datasets") / "data"


def raw_bytes(name):
    data = (DATA / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


# (file, md5 of the uncompressed bytes) as recorded in data/PROVENANCE.md and the team's
# shared data README.
MD5 = {
    "heart_scale": "8d29846f56e4b9ea0f4bf9b8083ecef8",
    "a9a.gz": "fb3596510d780aaf76a06dc721d49662",
    "a9a.t.gz": "f0bb16cf1ee3e80ff560e9d132ee647e",
    "agaricus.txt.train.gz": "a88a94251c2969849ee603701cd4878e",
    "agaricus.txt.test.gz": "e13c43414be35bb0c7d40b09e1ad34ad",
    "featmap.txt": "f13e0e4eaf9b541f2b5987371d4504c6",
    "SMSSpamCollection.gz": "1949b64a224790d01335c2bf8a0e48b2",
    "SMSSpamCollection.readme": "22feb1ec4cbc775f29870c58e6ca2d92",
}


@pytest.mark.parametrize("name", sorted(MD5))
def test_bundled_files_are_the_documented_copies(name):
    assert hashlib.md5(raw_bytes(name)).hexdigest() == MD5[name]


def sklearn_reference(name, n_features):
    import io

    return load_svmlight_file(io.BytesIO(raw_bytes(name)), n_features=n_features,
                              zero_based=False)


# loader, file, features, rows, nnz, {label: count}  (the provenance table)
CASES = [
    (load_heart_scale, (), "heart_scale", 13, 270, 3_378, {1: 120, -1: 150}),
    (load_a9a, ("train",), "a9a.gz", 123, 32_561, 451_592, {1: 7_841, -1: 24_720}),
    (load_a9a, ("test",), "a9a.t.gz", 123, 16_281, 225_731, {1: 3_846, -1: 12_435}),
    (load_mushrooms, ("train",), "agaricus.txt.train.gz", 126, 6_513, 143_286,
     {1: 3_140, 0: 3_373}),
    (load_mushrooms, ("test",), "agaricus.txt.test.gz", 126, 1_611, 35_442,
     {1: 776, 0: 835}),
]


@pytest.mark.parametrize("loader,args,name,d,n,nnz,counts", CASES,
                         ids=["heart", "a9a-train", "a9a-test", "mush-train", "mush-test"])
def test_svmlight_loaders(loader, args, name, d, n, nnz, counts):
    X, y = loader(*args)
    assert X.format == "csr" and X.dtype == np.float64 and y.dtype == np.float64
    assert X.shape == (n, d) and X.nnz == nnz
    values, n_each = np.unique(y, return_counts=True)
    assert dict(zip(values.astype(int).tolist(), n_each.tolist(), strict=True)) == counts
    X_ref, y_ref = sklearn_reference(name, d)
    assert (X != X_ref).nnz == 0
    np.testing.assert_array_equal(y, y_ref)


def test_mushroom_label_meaning_and_feature_map():
    names = mushroom_feature_names()
    assert len(names) == 126
    X, y = load_mushrooms("train")
    assert set(X.getnnz(axis=1).tolist()) == {22}
    X = X.toarray()
    for odor in ("odor=foul", "odor=fishy", "odor=spicy"):  # poisonous
        rows = X[:, names.index(odor)] == 1
        assert rows.any() and np.all(y[rows] == 1)
    for odor in ("odor=almond", "odor=anise"):  # edible
        rows = X[:, names.index(odor)] == 1
        assert rows.any() and np.all(y[rows] == 0)


def test_sms_spam():
    texts, labels = load_sms_spam()
    assert len(texts) == labels.shape[0] == 5_574
    assert (labels == "spam").sum() == 747 and (labels == "ham").sum() == 4_827
    lines = raw_bytes("SMSSpamCollection.gz").decode("utf-8").splitlines()
    assert [f"{lab}\t{txt}" for lab, txt in zip(labels, texts, strict=True)] == lines


def test_bad_split():
    with pytest.raises(ValueError, match="'split' must be one of 'train', 'test'; got 'dev'"):
        load_a9a("dev")
    with pytest.raises(ValueError, match="'split' must be one of"):
        load_mushrooms("all")


# -- bundled sets by name, wherever a data file is read --------------------------------------


def test_load_reads_a_bundled_set_by_name(tmp_path, monkeypatch):
    from halfspaces.datasets import load

    monkeypatch.chdir(tmp_path)  # no file of these names here
    for name, raw, n_features in (("heart_scale", "heart_scale", 13), ("a9a.t", "a9a.t.gz", 123)):
        data = load(name)
        X, y = load_svmlight_file(io.BytesIO(raw_bytes(raw)), n_features=n_features,
                                  zero_based=False)
        assert data.path == name and data.format == "svmlight" and data.zero_based is False
        assert data.X.shape == X.shape and (data.X != X).nnz == 0 and np.array_equal(data.y, y)
    sms = load("sms")  # raw text, told by the name, not the extension
    lines = raw_bytes("SMSSpamCollection.gz").decode("utf-8").splitlines()
    assert sms.format == "tsv" and sms.X == [line.split("\t", 1)[1] for line in lines]
    assert sms.y.tolist() == [line.split("\t", 1)[0] for line in lines]
    points = load("points")
    assert points.format == "csv" and points.X.shape == (200, 2)
    assert set(points.y.tolist()) == {-1.0, 1.0}


def test_a_local_file_wins_over_a_bundled_name_and_bundled_prefix_does_not(tmp_path,
                                                                           monkeypatch):
    from halfspaces.datasets import detect_format, load

    monkeypatch.chdir(tmp_path)
    (tmp_path / "heart_scale").write_text("1 1:0.5\n-1 2:1\n")
    (tmp_path / "sms").write_text("1 1:2\n")
    mine = load("heart_scale")
    assert mine.X.toarray().tolist() == [[0.5, 0.0], [0.0, 1.0]] and mine.y.tolist() == [1, -1]
    assert detect_format("sms") == "svmlight" and load("sms").y.tolist() == [1.0]
    bundled = load("bundled:heart_scale")
    assert bundled.X.shape == (270, 13) and bundled.path == "bundled:heart_scale"
    assert detect_format("bundled:sms") == "tsv"


def test_an_unknown_name_is_no_such_file_and_lists_the_bundled_sets(tmp_path, monkeypatch):
    from halfspaces.datasets import load

    monkeypatch.chdir(tmp_path)
    names = "heart_scale, a9a, a9a.t, mushrooms, mushrooms.t, sms, points"
    with pytest.raises(FileNotFoundError, match=rf"No such file or directory, nor a bundled"
                                                rf" data set \({names}\): 'a9b'"):
        load("a9b")
    with pytest.raises(FileNotFoundError, match=rf"No bundled data set 'a9b'; the bundled sets"
                                                rf" are {names}"):
        load("bundled:a9b")
