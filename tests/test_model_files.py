"""Model files against crafted input: files made with the module's own writer after tampering
with the tree or the arrays -- with the checksum recomputed, so that only the schema can catch
them -- are refused with a ModelFormatError that names the file and the attribute, before any
compiled code runs (the round trips of every class in its variants are in test_persistence)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from test_persistence import _W, LABELS, TEXTS, _data

import halfspaces
from halfspaces import persistence
from halfspaces.datasets import make_text_pipeline
from halfspaces.persistence import ModelFormatError, load, save

# -- crafted files --------------------------------------------------------------------------

def _write(path, tree, arrays, *, metadata=None, digest=None):
    """Write a model file as save does, with a checksum recomputed over what is written."""
    used = {node["__array__"] for node, _ in persistence._array_nodes(tree, "")}
    arrays = {k: v for k, v in arrays.items() if k in used}
    meta = {"format": persistence.FORMAT_NAME, "format_version": persistence.FORMAT_VERSION,
            "halfspaces_version": halfspaces.__version__, "estimator": tree["__estimator__"],
            "tree": tree, "metadata": {} if metadata is None else metadata}
    meta_bytes = json.dumps(meta).encode()
    entries = {**arrays, "__meta__": np.frombuffer(meta_bytes, dtype=np.uint8),
               "__sha256__": np.array(digest or persistence._digest(meta_bytes, arrays))}
    with open(path, "wb") as f:
        persistence._write_npz(f, entries)


def craft(path, est, edit):
    """Save ``est`` after ``edit(tree, encoder)`` changed its tree (``encoder.encode(value,
    "")`` makes the node of a new value, arrays included)."""
    encoder = persistence._Encoder("test")
    tree = encoder.estimator(est)
    edit(tree, encoder)
    _write(path, tree, encoder.arrays)
    return path


def _fitted(name="Perceptron", n_classes=2, X=None, **params):
    Xd, y = _data(n_classes)
    return getattr(halfspaces, name)(**params).fit(Xd if X is None else X, y)


def _set(where, **values):
    """An edit that sets entries of ``tree[where]`` ("attrs" or "params") to new values."""
    def edit(tree, encoder):
        for key, value in values.items():
            tree[where][key] = encoder.encode(value, key)
    return edit


@pytest.fixture
def path(tmp_path):
    return tmp_path / "model.npz"


def test_issue8_inconsistent_n_features_cannot_crash_decision_function(tmp_path):
    """Issue 8: coef_ of shape (1, 4) with n_features_in_ = 10**9 passed the format,
    checksum and registry checks, then decision_function read far past coef_ (exit 139).
    The file is loaded in a subprocess, so that a crash fails this test instead of pytest."""
    X = np.random.default_rng(0).normal(size=(30, 4))
    est = halfspaces.Perceptron().fit(X, X[:, 0] > 0)
    path = craft(tmp_path / "model.npz", est,
                 lambda tree, enc: tree["attrs"].update(n_features_in_=10**9))
    script = textwrap.dedent(f"""
        import scipy.sparse as sp
        import halfspaces
        try:
            model = halfspaces.load({str(path)!r})
        except halfspaces.ModelFormatError as exc:
            print("refused:", exc)
        else:
            row = sp.csr_matrix(([1.0], [10**9 - 1], [0, 1]), shape=(1, 10**9))
            print("scores:", model.decision_function(row))
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, f"exit status {run.returncode}: {run.stderr[-2000:]}"
    assert run.stdout.startswith(f"refused: {path}: Perceptron.coef_: its shape (1, 4)"), \
        run.stdout
    assert "makes n_features = 4, but Perceptron.n_features_in_ makes n_features =" \
           " 1000000000" in run.stdout


@pytest.mark.parametrize("edit, message", [
    (_set("attrs", coef_=np.zeros((1, 2), np.float32)),
     r"Perceptron\.coef_: must be an array of dtype f8 .*dtype float32 is not allowed"),
    (_set("attrs", coef_=np.zeros((1, 2), np.int64)), r"Perceptron\.coef_: .*dtype int64"),
    (_set("attrs", coef_=np.zeros((2, 2))),
     r"Perceptron\.coef_: its shape \(2, 2\) .* makes n_models = 2, but Perceptron\.classes_"
     r" makes n_models = 1"),
    (_set("attrs", coef_=np.zeros(2)), r"Perceptron\.coef_: .*1 dimensions instead of 2"),
    (_set("attrs", intercept_=np.zeros(3)), r"Perceptron\.intercept_: its shape \(3,\)"),
    (_set("attrs", coef_=np.array([[np.inf, 0.0]])),
     r"Perceptron\.coef_: .*non-finite values at \[0, 0\]"),
    (_set("attrs", n_features_in_=3), r"Perceptron\.coef_: .*n_features = 2, but"
                                      r" Perceptron\.n_features_in_ makes n_features = 3"),
    (_set("attrs", n_features_in_=-3), r"Perceptron\.n_features_in_: must be an int >= 1"),
    (_set("attrs", n_features_in_=2.0), r"Perceptron\.n_features_in_: must be an int"),
    (_set("attrs", t_=-1), r"Perceptron\.t_: must be an int >= 0; got -1"),
    (_set("attrs", mistakes_per_epoch_=[1, -2]),
     r"Perceptron\.mistakes_per_epoch_\[1\]: must be an int >= 0"),
    (_set("attrs", classes_=np.array(["spam", "ham"], dtype=object)),
     r"Perceptron\.classes_: .*not sorted and unique"),
    (_set("attrs", classes_=np.array([1, 1])), r"Perceptron\.classes_: .*not sorted and unique"),
    (_set("attrs", classes_=np.array([np.nan, 1.0])), r"Perceptron\.classes_: .*"),
    (_set("attrs", evil_=1), r"Perceptron\.evil_: is not an attribute that a saved"
                             r" Perceptron holds"),
    (_set("params", evil=1), r"Perceptron\.evil: is not a parameter of Perceptron"),
    (_set("params", max_iter=0), r"Perceptron\.max_iter: must be an int >= 1"),
    (_set("params", random_state=2**40), r"Perceptron\.random_state: must be None, an int"),
    (_set("attrs", converged_="yes"), r"Perceptron\.converged_: must be a bool"),
    (_set("params", fit_intercept=np.ones(10**6, bool)),
     r"Perceptron\.fit_intercept: must be a bool; the file stores an array there"),
    (_set("attrs", t_=[1]), r"Perceptron\.t_: must be an int >= 0; the file stores a list"),
    (lambda tree, enc: tree["attrs"].pop("intercept_"),
     r"Perceptron\.intercept_: is missing: every fitted Perceptron has it"),
    (lambda tree, enc: tree["attrs"].update(t_={"__array__": "a0", "dtype": "<U4",
                                                "object": True, "shape": [2]}),
     r"Perceptron\.t_: .*array 'a0' is used twice|Perceptron\.t_: must be an int"),
])
def test_crafted_perceptron_is_refused(path, edit, message):
    craft(path, _fitted(), edit)
    with pytest.raises(ModelFormatError, match=rf"^{path}: .*({message})"):
        load(path)


def test_non_native_byte_order_is_refused(path):
    def edit(tree, encoder):
        node = tree["attrs"]["coef_"]
        encoder.arrays[node["__array__"]] = encoder.arrays[node["__array__"]].astype(">f8")
        node["dtype"] = ">f8"
    craft(path, _fitted(), edit)
    with pytest.raises(ModelFormatError, match=r"Perceptron\.coef_: .*dtype >f8 is not allowed"):
        load(path)


def test_numeric_array_marked_as_strings_is_refused(path):
    def edit(tree, encoder):
        tree["attrs"]["classes_"] = encoder.encode(np.array([0.0, 1.0]), "")
        tree["attrs"]["classes_"]["object"] = True
    craft(path, _fitted(), edit)
    with pytest.raises(ModelFormatError, match=r"Perceptron\.classes_: is marked as strings"
                                               r" but stored as float64"):
        load(path)


class _Payload:
    """Unpickling this calls open(marker, "w"): it would create the marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return open, (self.marker, "w")


def test_pickled_array_is_refused_without_unpickling(tmp_path, path):
    marker = tmp_path / "unpickled"

    def edit(tree, encoder):  # an object array, which np.save writes as a pickle
        node = tree["attrs"]["classes_"]
        encoder.arrays[node["__array__"]] = np.array([_Payload(str(marker))] * 2, dtype=object)
        node.update(dtype="|O")
        node.pop("object")
    encoder = persistence._Encoder("test")
    tree = encoder.estimator(_fitted())
    edit(tree, encoder)
    _write(path, tree, encoder.arrays, digest="0" * 64)
    with pytest.raises(ModelFormatError, match=r"Perceptron\.classes_: array 'a0' holds Python"
                                               r" objects \(a pickle\).*Refusing to unpickle"):
        load(path)
    assert not marker.exists()


def _rewrite_entry(path, key, raw: bytes):
    """Replace one archive entry's bytes (``key`` + ".npy"), keeping the others."""
    with zipfile.ZipFile(path) as z:
        entries = {name: z.read(name) for name in z.namelist()}
    entries[key + ".npy"] = raw
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)


def _npy(a) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, a)
    return buffer.getvalue()


def test_header_larger_than_its_entry_is_refused_before_allocating(path):
    """An .npy header claiming 8 TB over 16 bytes of data: refused from the sizes, without
    trying to allocate the array."""
    _fitted().save(path)
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**12,)})
    _rewrite_entry(path, "a1", buffer.getvalue() + bytes(16))
    with pytest.raises(ModelFormatError, match=r"Perceptron\.coef_: array 'a1' has dtype"
                                               r" float64 and shape \(1000000000000,\)"
                                               r" \(8,000,000,000,\d+ bytes with its header\),"
                                               r" but its archive entry holds \d+ bytes"):
        load(path)


def test_fortran_order_and_negative_shapes_are_refused(path):
    _fitted().save(path)
    _rewrite_entry(path, "a1", _npy(np.asfortranarray(np.zeros((2, 3)))))
    with pytest.raises(ModelFormatError, match=r"Perceptron\.coef_: .*in Fortran order"):
        load(path)
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (-2,)})
    _rewrite_entry(path, "a1", buffer.getvalue())
    with pytest.raises(ModelFormatError, match=r"Perceptron\.coef_: .*shape \(-2,\)"):
        load(path)


@pytest.fixture
def reads(monkeypatch):
    """The archive entries that load decompresses (beyond their headers)."""
    seen = []
    read = persistence._Archive.read

    def spy(self, key):
        seen.append(key)
        return read(self, key)
    monkeypatch.setattr(persistence._Archive, "read", spy)
    return seen


def test_decompressed_size_is_capped_from_the_zip_directory(path, reads):
    _fitted().save(path)
    size = sum(i.file_size for i in zipfile.ZipFile(path).infolist())
    assert load(path, max_bytes=size).n_features_in_ == 2
    reads.clear()
    with pytest.raises(ModelFormatError, match=rf"its arrays take {size:,} bytes once"
                                               rf" decompressed, more than max_bytes="
                                               rf"{size - 1:,}.*pass a larger max_bytes"):
        load(path, max_bytes=size - 1)
    assert reads == []


def test_zip_bomb_that_disagrees_with_its_metadata_is_never_inflated(path, reads):
    """16 MB of zeros in about 16 KB: its header disagrees with the metadata's shape."""
    _fitted().save(path)
    _rewrite_entry(path, "a1", _npy(np.zeros(2 * 10**6)))
    assert os.path.getsize(path) < 100_000
    with pytest.raises(ModelFormatError, match=r"array 'a1' has dtype <f8 and shape \[2000000\],"
                                               r" but the metadata says <f8 and \[1, 2\]"
                                               r" \(Perceptron\.coef_\)"):
        load(path)
    assert "a1" not in reads


def test_zip_bomb_that_disagrees_with_the_schema_is_never_inflated(path, reads):
    """The same zeros as a coef_ whose metadata matches the header: the schema refuses the
    shape from the metadata, before the array is decompressed."""
    craft(path, _fitted(), _set("attrs", coef_=np.zeros((1, 2 * 10**6))))
    assert os.path.getsize(path) < 100_000
    with pytest.raises(ModelFormatError, match=r"Perceptron\.coef_: its shape \(1, 2000000\)"):
        load(path)
    assert reads == ["__meta__"]


def test_unused_and_foreign_entries_are_refused(path):
    _fitted().save(path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("a99.npy", _npy(np.zeros(3)))
    with pytest.raises(ModelFormatError, match=r"array 'a99' is not used by the metadata"):
        load(path)
    _fitted().save(path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("../evil.npy", _npy(np.zeros(3)))
    with pytest.raises(ModelFormatError, match=r"unexpected entry '\.\./evil\.npy'"):
        load(path)


def _sparse_model():
    X, y = _data(2)
    return halfspaces.KernelPerceptron().fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize("fmt", ["dia", "coo", "csc"])
def test_sparse_attributes_only_in_csr(path, fmt):
    """A CSR matrix turned into DIA on load costs n_diagonals x n_columns: only CSR, the
    format halfspaces writes, is read."""
    def edit(tree, encoder):
        tree["attrs"]["support_vectors_"].update({"__sparse__": fmt, "layout": fmt})
    craft(path, _sparse_model(), edit)
    with pytest.raises(ModelFormatError, match=rf"KernelPerceptron\.support_vectors_: is a {fmt}"
                                               r" matrix; halfspaces stores sparse attributes"
                                               r" in CSR format only"):
        load(path)


@pytest.mark.parametrize("part, values, message", [
    ("indices", lambda a: a + 5, r"column indices must lie in \[0, 2\)"),
    ("indices", lambda a: a - 3, r"column indices must lie in \[0, 2\)"),
    ("indptr", lambda a: a[::-1].copy(), r"indptr must rise from 0"),
])
def test_invalid_csr_structure_is_refused(path, part, values, message):
    def edit(tree, encoder):
        node = tree["attrs"]["support_vectors_"][part]
        encoder.arrays[node["__array__"]] = values(encoder.arrays[node["__array__"]])
    craft(path, _sparse_model(), edit)
    with pytest.raises(ModelFormatError, match=rf"KernelPerceptron\.support_vectors_: is not a"
                                               rf" valid CSR matrix: {message}"):
        load(path)


def test_csr_parts_must_have_index_dtypes(path):
    def edit(tree, encoder):
        node = tree["attrs"]["support_vectors_"]
        old = encoder.arrays[node["indices"]["__array__"]]
        node["indices"] = encoder.encode(old.astype(np.float64), "")
    craft(path, _sparse_model(), edit)
    with pytest.raises(ModelFormatError, match=r"KernelPerceptron\.support_vectors_\.indices:"
                                               r" must be an array of dtype i4 or i8"):
        load(path)


def _replace(attr, change):
    """An edit that replaces the array of attribute ``attr`` by ``change(old array)``."""
    def edit(tree, encoder):
        old = encoder.arrays[tree["attrs"][attr]["__array__"]]
        tree["attrs"][attr] = encoder.encode(change(old.copy()), attr)
    return edit


def _bump_first(a, by):
    a.flat[0] += by
    return a


@pytest.mark.parametrize("name, edit, message", [
    ("VotedPerceptron", _replace("mistake_indices_", lambda a: a + 7),
     r"VotedPerceptron\.mistake_indices_: .*values must be < n_features = 2"),
    ("VotedPerceptron", _replace("mistake_ptr_", lambda a: _bump_first(a, -1)),
     r"VotedPerceptron\.mistake_ptr_: must rise from 0"),
    ("VotedPerceptron", _replace("mistake_indptr_", lambda a: a * 2),
     r"VotedPerceptron\.mistake_indptr_: must rise from 0 to \d+"),
    ("VotedPerceptron", _replace("vote_counts_", lambda a: a[:-1].copy()),
     r"VotedPerceptron\.vote_counts_: holds \d+ counts"),
    ("VotedPerceptron", _replace("mistake_y_", lambda a: a * 0),
     r"VotedPerceptron\.mistake_y_: must hold finite, non-zero steps"),
    ("KernelPerceptron", _set("attrs", n_rows_seen_=1),
     r"KernelPerceptron\.support_: .*values must be < n_rows = 1"),
    ("KernelPerceptron", _replace("alpha_", lambda a: -a),
     r"KernelPerceptron\.alpha_: .*values must be >= 0"),
    ("KernelPerceptron", _replace("support_", lambda a: a[::-1].copy()),
     r"KernelPerceptron\.support_: .*strictly increasing"),
    ("KernelPerceptron", _replace("dual_coef_", lambda a: a[:, :-1].copy()),
     r"KernelPerceptron\.dual_coef_: its shape .* makes n_support"),
    ("PegasosSVC", _replace("_u", lambda a: a[:, :1].copy()),
     r"PegasosSVC\._u: its shape \(1, 1\) .* makes n_averaged = 1|PegasosSVC\._u: has shape"),
    ("PegasosSVC", _replace("_scalars", lambda a: np.zeros((1, 5))),
     r"PegasosSVC\._scalars: .*shape \(1, 5\)"),
    ("PegasosSVC", _replace("_scalars", lambda a: _bump_first(a, np.nan)),
     r"PegasosSVC\._scalars: .*it holds non-finite values"),
    ("PegasosSVC", lambda tree, enc: tree["attrs"].pop("_scalars"),
     r"PegasosSVC\._scalars: is missing, while _v, _u, coef_ are stored"),
    ("KernelPegasosSVC", _replace("support_", lambda a: a + 100),
     r"KernelPegasosSVC\.support_: .*values must be < n_train = \d+"),
    ("SVC", _set("params", kernel="rbf"), r"SVC\.coef_: must not be stored with kernel='rbf'"),
    ("SVC", _set("params", kernel="sigmoid"), r"SVC\.kernel: must be one of 'linear', 'poly',"
                                              r" 'rbf'; got 'sigmoid'"),
    ("SVC", _replace("support_vectors_", lambda a: a[:-1].copy()),
     r"SVC\.support_vectors_: .*n_support"),
    ("LPSeparator", _replace("separable_", lambda a: a.astype(np.int8)),
     r"LPSeparator\.separable_: .*dtype int8 is not allowed"),
    ("HalvingClassifier", _replace("version_space_", lambda a: a & False),
     r"HalvingClassifier\.version_space_: is empty"),
    ("HalvingClassifier", _replace("version_space_", lambda a: a[:-1].copy()),
     r"HalvingClassifier\.version_space_: its shape \(15,\) .* makes n_hypotheses = 15, but"
     r" HalvingClassifier\.hypotheses makes n_hypotheses = 16"),
    ("WeightedMajorityClassifier", _replace("expert_mistakes_", lambda a: a - 100),
     r"WeightedMajorityClassifier\.expert_mistakes_: .*values must be >= 0"),
    ("WeightedMajorityClassifier", _set("attrs", n_hypotheses_=99),
     r"WeightedMajorityClassifier\.n_hypotheses_: its value 99 makes n_hypotheses = 99"),
    ("WeightedMajorityClassifier", _set("attrs", _rng=7),
     r"WeightedMajorityClassifier\._rng: must be a RandomState"),
    ("WeightedMajorityClassifier", _set("attrs", classes_=np.array([0, 1, 2])),
     r"WeightedMajorityClassifier\.classes_: holds 3 classes; this learner is binary"),
])
def test_crafted_estimator_state_is_refused(path, name, edit, message):
    params = {"HalvingClassifier": {"hypotheses": _W},
              "WeightedMajorityClassifier": {"hypotheses": _W, "randomized": True},
              "KernelPegasosSVC": {"max_iter": 2}}
    craft(path, _fitted(name.split("-")[0], **params.get(name, {})), edit)
    with pytest.raises(ModelFormatError, match=rf"^{path}: ({message})"):
        load(path)


@pytest.mark.parametrize("keys, pos, message", [
    (np.zeros(10, np.uint32), 0, r"must be an array of dtype u4 and shape \(624,\); got an array"
                                 r" of dtype uint32 and shape \(10,\)"),
    (np.zeros(624, np.uint32), 10**6, r"is not a valid MT19937 RandomState state"),
])
def test_random_state_must_be_a_valid_mt19937_state(path, keys, pos, message):
    def edit(tree, encoder):
        tree["params"]["random_state"] = {"__random_state__": encoder.encode(keys, ""),
                                          "pos": pos, "has_gauss": 0, "gauss": 0.0}
    craft(path, halfspaces.Perceptron(), edit)
    with pytest.raises(ModelFormatError, match=rf"Perceptron\.random_state: {message}"):
        load(path)


def test_stump_features_must_exist(path):
    from halfspaces.experts import CoordinateStump

    X, y = _data(2)
    stumps = [CoordinateStump(feature=j, threshold=0.0) for j in (0, 1)]
    est = halfspaces.WeightedMajorityClassifier(hypotheses=stumps).fit(X, y)

    def edit(tree, encoder):
        tree["params"]["hypotheses"][1]["attrs"]["feature"] = 5
    craft(path, est, edit)
    with pytest.raises(ModelFormatError, match=r"WeightedMajorityClassifier\.hypotheses\[1\]"
                                               r"\.feature: is 5, outside the 2 features"):
        load(path)


def test_nested_objects_are_checked_wherever_they_are(path):
    from halfspaces.experts import CoordinateStump

    est = halfspaces.HalvingClassifier([CoordinateStump(0), CoordinateStump(1)])

    def edit(tree, encoder):
        tree["params"]["hypotheses"][1]["__estimator__"] = "os.system"
    craft(path, est, edit)
    with pytest.raises(ModelFormatError, match=r"HalvingClassifier\.hypotheses\[1\]: must be a"
                                               r" CoordinateStump; got 'os\.system'"):
        load(path)


# -- raw-text pipelines -------------------------------------------------------------------

def _text_model(vectorizer="hashing"):
    return make_text_pipeline(halfspaces.Perceptron(), vectorizer, n_features=2**6).fit(
        TEXTS, LABELS) if vectorizer == "hashing" else make_text_pipeline(
        halfspaces.Perceptron(), vectorizer).fit(TEXTS, LABELS)


def _step(i, part, **values):
    """An edit that sets parameters or attributes of the Pipeline's step ``i``."""
    def edit(tree, encoder):
        node = tree["params"]["steps"][i]["__tuple__"][1]
        for key, value in values.items():
            node[part][key] = encoder.encode(value, key)
    return edit


VECTORIZER = r"Pipeline\.steps\[0\]\[1\] \(HashingVectorizer\)"


@pytest.mark.parametrize("edit, message", [
    (_step(0, "params", token_pattern="(a+)+$"),
     rf"{VECTORIZER}\.token_pattern: must be one of '\(\?u\)\\\\b\\\\w\\\\w\+\\\\b',"),
    (_step(0, "params", input="filename"),
     rf"{VECTORIZER}\.input: must be one of 'content'; got 'filename'"),
    (_step(0, "params", input="file"), rf"{VECTORIZER}\.input: must be one of 'content'"),
    (_step(0, "params", analyzer="custom"), rf"{VECTORIZER}\.analyzer: must be one of"),
    (_step(0, "params", preprocessor="str.upper"), rf"{VECTORIZER}\.preprocessor: must be one"
                                                   r" of None"),
    (_step(0, "params", ngram_range=(1, 10**6)),
     rf"{VECTORIZER}\.ngram_range\[1\]: must be an int >= 1 and <= 10"),
    (_step(0, "params", ngram_range=(3, 2)), rf"{VECTORIZER}\.ngram_range: is \(3, 2\)"),
    (_step(0, "params", encoding="no-such-codec"),
     rf"{VECTORIZER}\.encoding: .*unknown encoding"),
    (_step(0, "params", n_features=2**7),
     r"Pipeline\.steps\[1\]\[1\]\.n_features_in_: is 64, but the step before it outputs 128"),
    (_step(0, "params", dtype=np.complex128), rf"{VECTORIZER}\.dtype: must be one of"),
    (_step(0, "attrs", vocabulary_={"a": 0}), rf"{VECTORIZER}\.vocabulary_: is not an"
                                              r" attribute"),
    (_set("params", memory="/tmp/halfspaces-cache"),
     r"Pipeline\.memory: must be one of None; got '/tmp/halfspaces-cache'"),
    (lambda tree, enc: tree["params"]["steps"].reverse(),
     r"Pipeline\.steps\[0\]\[1\]: is a Perceptron; a saved Pipeline is a text vectorizer"),
    (lambda tree, enc: tree["params"]["steps"][1]["__tuple__"].__setitem__(0, "a__b"),
     r"Pipeline\.steps\[1\]\[0\]: 'a__b' is not a unique step name"),
])
def test_crafted_text_pipeline_is_refused(path, edit, message):
    craft(path, _text_model(), edit)
    with pytest.raises(ModelFormatError, match=rf"^{path}: {message}"):
        load(path)


TFIDF = r"Pipeline\.steps\[0\]\[1\] \(TfidfVectorizer\)"


@pytest.mark.parametrize("edit, message", [
    (_step(0, "attrs", vocabulary_={"win": 0, "cash": 7}),
     rf"{TFIDF}\.vocabulary_: .*the columns are not 0\.\.n-1, each once"),
    (_step(0, "attrs", vocabulary_={"win": 0, "cash": -1}),
     rf"{TFIDF}\.vocabulary_: .*the columns are not 0\.\.n-1, each once"),
    (_step(0, "attrs", vocabulary_={"win": 0, "cash": 1}),
     rf"{TFIDF}\._tfidf: was fitted on \d+ features but the vocabulary has 2 terms"),
    (_step(0, "params", stop_words=[1, 2]),
     rf"{TFIDF}\.stop_words: must be one of None, 'english' or a list .*; got \[1, 2\]"),
])
def test_crafted_tfidf_pipeline_is_refused(path, edit, message):
    craft(path, _text_model("tfidf"), edit)
    with pytest.raises(ModelFormatError, match=rf"^{path}: {message}"):
        load(path)


@pytest.mark.parametrize("params, message", [
    ({"token_pattern": r"(a+)+$"}, r"token_pattern: must be one of"),
    ({"input": "filename"}, r"input: must be one of 'content'"),
    ({"ngram_range": (1, 50)}, r"ngram_range\[1\]: must be an int >= 1 and <= 10"),
])
def test_save_refuses_what_load_would_refuse(tmp_path, params, message):
    model = make_text_pipeline(halfspaces.Perceptron(), **params)
    with pytest.raises(ValueError, match=rf"save\(Pipeline\): cannot save {VECTORIZER}\."
                                         rf"{message}"):
        save(model, tmp_path / "text.npz")
    assert not os.listdir(tmp_path)


def test_pipeline_memory_cannot_be_saved(tmp_path):
    model = make_text_pipeline(halfspaces.Perceptron()).set_params(memory=str(tmp_path))
    with pytest.raises(ValueError, match=r"cannot save Pipeline\.memory: must be one of None"):
        save(model, tmp_path / "text.npz")


# -- metadata -------------------------------------------------------------------------------

@pytest.mark.parametrize("metadata, message", [
    ({"format": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}},
     r"must be a dict of str keys to None, bools,"),
    ({"rows": ["x" * 70_000]}, r"takes \d{2},\d{3} bytes of JSON, more than 65,536"),
])
def test_metadata_is_plain_and_small(tmp_path, path, metadata, message):
    with pytest.raises(ValueError, match=rf"save\(Perceptron\): cannot save metadata: {message}"):
        save(_fitted(), tmp_path / "m.npz", metadata=metadata)
    encoder = persistence._Encoder("test")
    _write(path, encoder.estimator(_fitted()), encoder.arrays, metadata=metadata)
    with pytest.raises(ModelFormatError, match=rf"^{path}: metadata: {message}"):
        load(path, with_metadata=True)


def test_metadata_lists_round_trip(path):
    metadata = {"format": "svmlight", "columns": [1, 2.5, None, ["a", True]],
                "csv": {"header": ["y", "a"], "label": 0, "nested": {"x": [None]}}}
    save(_fitted(), path, metadata=metadata)
    assert load(path, with_metadata=True)[1] == metadata


# -- every kind of bad file, in one table: refused with a one-line reason, no code run ----------
# Each maker writes a bad file from a good Perceptron model at ``path``; then the file is loaded
# in a fresh interpreter (JIT on), which must refuse it with a ModelFormatError matching the
# pattern, create no marker file (no unpickling) and have run no compiled kernel (no numba
# dispatcher of halfspaces has a compiled signature); and `halfspaces predict` must print the
# reason on one line with exit status 1.

def _truncated(fraction):
    def make(path, marker):
        raw = path.read_bytes()
        path.write_bytes(raw[: int(len(raw) * fraction)])
    return make


def _flipped(entry):
    """Flip a bit in the middle of the (compressed) bytes of an archive entry."""
    def make(path, marker):
        raw = bytearray(path.read_bytes())
        info = zipfile.ZipFile(path).getinfo(entry)
        name_len, extra_len = np.frombuffer(raw, "<u2", 2, info.header_offset + 26)
        raw[info.header_offset + 30 + name_len + extra_len + info.compress_size // 2] ^= 0x10
        path.write_bytes(bytes(raw))
    return make


def _version(value):
    def make(path, marker):
        encoder = persistence._Encoder("test")
        tree = encoder.estimator(halfspaces.load(path))
        _write(path, tree, encoder.arrays)
        with zipfile.ZipFile(path) as z:
            meta = json.loads(np.load(io.BytesIO(z.read("__meta__.npy"))).tobytes())
        meta["format_version"] = value
        meta_bytes = json.dumps(meta).encode()
        _rewrite_entry(path, "__meta__", _npy(np.frombuffer(meta_bytes, dtype=np.uint8)))
    return make


def _foreign_npz(path, marker):
    np.savez(path, coef=np.zeros((1, 3)), intercept=np.zeros(1))
    os.replace(f"{path}.npz", path) if os.path.exists(f"{path}.npz") else None


def _foreign_meta(path, marker):  # another program's archive that also has a __meta__ entry
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("__meta__.npy", _npy(np.frombuffer(b'{"format": "other-tool"}', np.uint8)))
        z.writestr("__sha256__.npy", _npy(np.array("0" * 64)))


def _foreign_zip(path, marker):  # a zip that is no .npz at all (an office document)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")


def _huge_header(path, marker):  # an .npy header that claims 1 MB of header text
    _rewrite_entry(path, "a1", b"\x93NUMPY\x02\x00" + (2**20).to_bytes(4, "little") + b"{")


def _header_v3(path, marker):
    _rewrite_entry(path, "a1", b"\x93NUMPY\x03\x00" + _npy(np.zeros((1, 2)))[8:])


def _tree_edit(edit):
    def make(path, marker):
        craft(path, halfspaces.load(path), edit)
    return make


def _object_array(path, marker):  # an object array of strings where classes_ is stored
    def edit(tree, encoder):
        node = tree["attrs"]["classes_"]
        encoder.arrays[node["__array__"]] = np.array(["a", "b"], dtype=object)
        node.update(dtype="|O")
    craft(path, halfspaces.load(path), edit)


def _pickle_payload(path, marker):  # coef_'s entry replaced by a pickle that opens a file
    encoder = persistence._Encoder("test")
    tree = encoder.estimator(halfspaces.load(path))
    node = tree["attrs"]["coef_"]
    encoder.arrays[node["__array__"]] = np.array([_Payload(marker)], dtype=object)
    node.update(dtype="|O", shape=[1])
    _write(path, tree, encoder.arrays, digest="0" * 64)


BAD_FILES = {
    "truncated to nothing": (_truncated(0), r"not a halfspaces model file"),
    "truncated to 10%": (_truncated(0.1), r"corrupted or truncated"),
    "truncated to 90%": (_truncated(0.9), r"corrupted or truncated"),
    "truncated by 1 byte": (_truncated(0.9999), r"corrupted or truncated"),
    "bit flipped in an array": (_flipped("a1.npy"), r"corrupted or truncated|checksum"),
    "bit flipped in the metadata": (_flipped("__meta__.npy"),
                                    r"corrupted or truncated|checksum mismatch|metadata"),
    "newer version": (_version(persistence.FORMAT_VERSION + 1),
                      rf"format version {persistence.FORMAT_VERSION + 1} is not"
                      r" supported.*upgrade halfspaces"),
    "version 0": (_version(0), r"format version 0 is not supported"),
    "version as text": (_version("1"), r"format version '1' is not supported"),
    "no version": (_version(None), r"format version None is not supported"),
    "another program's .npz": (_foreign_npz, r"not a halfspaces model file \(no __meta__"),
    "another program's metadata": (_foreign_meta, r"its metadata does not name the format"),
    "a zip that is no .npz": (_foreign_zip, r"not a halfspaces model file \(no __meta__"),
    "oversized .npy header": (_huge_header, r"corrupted or truncated .*[Hh]eader"),
    ".npy header version 3": (_header_v3, r"Perceptron\.coef_.*header of version \(3, 0\)"),
    "attributes that disagree": (_tree_edit(_set("attrs", n_features_in_=3)),
                                 r"coef_: .*n_features = 2, but Perceptron\.n_features_in_"),
    "wrong dtype": (_tree_edit(_set("attrs", coef_=np.zeros((1, 2), np.int32))),
                    r"Perceptron\.coef_: must be an array of dtype f8"),
    "wrong shape": (_tree_edit(_set("attrs", coef_=np.zeros((1, 2, 1)))),
                    r"Perceptron\.coef_: .*3 dimensions instead of 2"),
    "object array": (_object_array, r"Perceptron\.classes_: array 'a0' holds Python objects"),
    "pickle payload": (_pickle_payload, r"Perceptron\.coef_: array 'a1' holds Python objects"
                                        r" \(a pickle\)"),
}

_LOAD_IN_A_FRESH_PROCESS = """
import json, sys
import numba
import halfspaces
results = {}
for path in sys.argv[1:]:
    try:
        halfspaces.load(path)
        results[path] = "loaded"
    except halfspaces.ModelFormatError as exc:
        results[path] = str(exc)
compiled = [f"{name}.{attr}" for name, module in list(sys.modules.items())
            if name.startswith("halfspaces") for attr, value in vars(module).items()
            if isinstance(value, numba.core.dispatcher.Dispatcher) and value.signatures]
print(json.dumps({"results": results, "compiled": compiled}))
"""


def test_every_kind_of_bad_file_is_refused_before_any_compiled_code_runs(tmp_path, capsys):
    data = tmp_path / "data.svm"
    X, y = _data(2)
    halfspaces.datasets.dump_svmlight(X, np.where(y == y[0], 1, -1), data)
    files = {}
    for k, (name, (make, _)) in enumerate(BAD_FILES.items()):
        path = files[name] = tmp_path / f"bad{k}.model"
        _fitted().save(path)
        make(path, str(tmp_path / f"unpickled{k}"))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0"}  # compiled code exists to be detected
    run = subprocess.run([sys.executable, "-c", _LOAD_IN_A_FRESH_PROCESS,
                          *map(str, files.values())], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["compiled"] == []
    for name, (_, pattern) in BAD_FILES.items():
        path = files[name]
        assert re.match(rf"{re.escape(str(path))}: .*({pattern})",
                        report["results"][str(path)]), (name, report["results"][str(path)])
        from halfspaces.cli import main

        assert main(["predict", str(path), str(data)]) == 1, name
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"halfspaces: error: {path}: "), err
    assert not [f for f in os.listdir(tmp_path) if f.startswith("unpickled")]
