"""Model files: exact round trips for every estimator, safety checks, atomic writes."""

from __future__ import annotations

import importlib
import io
import json
import os
import pickle
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import (
    CountVectorizer,
    HashingVectorizer,
    TfidfTransformer,
    TfidfVectorizer,
)
from sklearn.pipeline import Pipeline

import halfspaces
from halfspaces import _schema, persistence
from halfspaces.datasets import make_text_pipeline
from halfspaces.persistence import ModelFormatError, load, save

# A hypothesis class for the experts learners: 16 directions in the plane, including the
# one that labels the data below, so the problem is realizable.
_ANGLES = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
_W = np.c_[np.cos(_ANGLES), np.sin(_ANGLES)]
_W[2] = [1.0, 1.0]

ESTIMATORS = {
    "Perceptron": lambda cls: cls(),
    "AveragedPerceptron": lambda cls: cls(),
    "VotedPerceptron": lambda cls: cls(),
    "KernelPerceptron": lambda cls: cls(kernel="rbf", gamma=0.5),
    "HalvingClassifier": lambda cls: cls(hypotheses=_W),
    "WeightedMajorityClassifier": lambda cls: cls(hypotheses=_W, randomized=True,
                                                  random_state=0),
    "PegasosSVC": lambda cls: cls(random_state=0),
    "SVC": lambda cls: cls(),
    "LogisticRegression": lambda cls: cls(),
    "LPSeparator": lambda cls: cls(),
}
BINARY_ONLY = {"HalvingClassifier", "WeightedMajorityClassifier"}


def _make(name):
    cls = getattr(importlib.import_module("halfspaces"), name)
    return ESTIMATORS[name](cls)


def _data(n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (60, 2))
    X = X[np.abs(X[:, 0] + X[:, 1]) > 0.2][:40]  # a margin around x0 + x1 = 0
    if n_classes == 2:
        y = np.where(X[:, 0] + X[:, 1] > 0, "spam", "ham").astype(object)
    else:  # three blobs, each linearly separable from the other two (one-vs-rest)
        centers = np.array([[3.0, 0.0], [-3.0, 3.0], [-3.0, -3.0]])
        k = np.arange(X.shape[0]) % 3
        X = centers[k] + X
        y = np.array(["a", "b", "c"], dtype=object)[k]
    return X, y


def assert_same_state(a, b, where="estimator"):
    """Recursive equality of two objects' state, arrays bit for bit."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        if a.dtype == object:
            assert a.tolist() == b.tolist(), where
        else:
            assert a.tobytes() == b.tobytes(), where
    elif sp.issparse(a):
        assert a.format == b.format and a.shape == b.shape, where
        for part in ("data", "indices", "indptr"):
            assert_same_state(getattr(a, part), getattr(b, part), f"{where}.{part}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_same_state(u, v, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same_state(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, np.random.RandomState):
        sa, sb = a.get_state(), b.get_state()
        assert sa[0] == sb[0] and np.array_equal(sa[1], sb[1]) and sa[2:] == sb[2:], where
    elif isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state, where
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert_same_state(vars(a), vars(b), f"{where}.__dict__")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, where


def _saved_state(est) -> dict:
    """The instance attributes that a save keeps (all but the class's declared caches)."""
    exclude = set(getattr(est, "_persist_exclude", ()))
    return {k: v for k, v in vars(est).items() if k not in exclude}


def _check_predictions(clf, again, X):
    assert again.predict(X).tolist() == clf.predict(X).tolist()
    if hasattr(clf, "decision_function"):
        d1, d2 = clf.decision_function(X), again.decision_function(X)
        assert d1.dtype == d2.dtype and d1.tobytes() == d2.tobytes()


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_every_estimator_round_trips_exactly(tmp_path, name, n_classes):
    if n_classes == 3 and name in BINARY_ONLY:
        n_classes = 2  # the experts learners' hypotheses are binary
    X, y = _data(n_classes)
    clf = _make(name).fit(X, y)
    path = tmp_path / "model.npz"
    clf.save(path)
    again = halfspaces.load(path)
    assert type(again) is type(clf)
    assert_same_state(vars(again), _saved_state(clf))
    _check_predictions(clf, again, X)
    if hasattr(clf, "partial_fit"):  # the saved state lets training continue identically
        X2, y2 = _data(n_classes, seed=1)
        clf.partial_fit(X2, y2)
        again.partial_fit(X2, y2)
        assert_same_state(vars(again), vars(clf))
        _check_predictions(clf, again, X2)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_unfitted_estimators_round_trip(tmp_path, name):
    est = _make(name)
    save(est, tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert_same_state(again.get_params(), est.get_params())


def test_sparse_input_model(tmp_path):
    X, y = _data()
    Xs = sp.csr_matrix(X)
    clf = halfspaces.Perceptron().fit(Xs, y)
    clf.save(tmp_path / "p.npz")
    _check_predictions(clf, load(tmp_path / "p.npz"), Xs)


def test_pickle_still_works():
    X, y = _data()
    clf = halfspaces.Perceptron().fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert_same_state(vars(again), vars(clf))
    _check_predictions(clf, again, X)


# -- raw-text pipelines ---------------------------------------------------------------------

TEXTS = ["win cash now", "lunch at noon?", "cash prize, win!", "see you at noon",
         "free entry win", "call me later"] * 3
LABELS = np.array(["spam", "ham", "spam", "ham", "spam", "ham"] * 3)


@pytest.mark.parametrize("vectorizer", [
    HashingVectorizer(n_features=2**12, alternate_sign=False, ngram_range=(1, 2)),
    TfidfVectorizer(sublinear_tf=True, stop_words=["at"]),
])
def test_text_pipelines_round_trip(tmp_path, vectorizer):
    model = Pipeline([("vectorizer", vectorizer), ("classifier", halfspaces.Perceptron())])
    model.fit(TEXTS, LABELS)
    save(model, tmp_path / "text.npz")
    again = load(tmp_path / "text.npz")
    assert isinstance(again, Pipeline)
    assert_same_state(vars(again.steps[0][1]), vars(model.steps[0][1]))
    _check_predictions(model, again, TEXTS + ["a new message about cash"])


# Every class in its variants (parameters, input formats, partial_fit state, text
# pipelines).

VARIANTS = {
    "Perceptron": lambda: halfspaces.Perceptron(shuffle=True, random_state=1),
    "AveragedPerceptron": lambda: halfspaces.AveragedPerceptron(),
    "VotedPerceptron": lambda: halfspaces.VotedPerceptron(fit_intercept=False),
    "KernelPerceptron": lambda: halfspaces.KernelPerceptron(kernel="poly", degree=2),
    "PegasosSVC": lambda: halfspaces.PegasosSVC(average=False, tol=1e-3, random_state=0),
    "KernelPegasosSVC": lambda: halfspaces.KernelPegasosSVC(max_iter=3, record_objective=True,
                                                            random_state=0),
    "KernelPegasosSVC-linear": lambda: halfspaces.KernelPegasosSVC(kernel="linear", max_iter=3,
                                                                   random_state=0),
    "SVC-rbf": lambda: halfspaces.SVC(kernel="rbf", C=10.0),
    "SVC-dcd": lambda: halfspaces.SVC(solver="dcd", tol=1e-3),
    "LogisticRegression": lambda: halfspaces.LogisticRegression(lam=0.1),
    "LPSeparator": lambda: halfspaces.LPSeparator(on_infeasible="least_violation"),
}
FORMATS = {
    "dense": lambda X: X,
    "float32": lambda X: X.astype(np.float32),
    "csr": sp.csr_matrix,
    "csr_array-int64": lambda X: sp.csr_array((sp.csr_array(X).data,
                                               sp.csr_array(X).indices.astype(np.int64),
                                               sp.csr_array(X).indptr.astype(np.int64)),
                                              shape=X.shape),
}


def _round_trip(tmp_path, est, X):
    path = tmp_path / "model.npz"
    save(est, path)
    again = load(path)
    assert_same_state(vars(again), _saved_state(est))
    assert again.predict(X).tolist() == est.predict(X).tolist()
    return again


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_variants_round_trip(tmp_path, variant, n_classes, fmt):
    X, y = _data(n_classes)
    X = FORMATS[fmt](X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = VARIANTS[variant]().fit(X, y)
    _round_trip(tmp_path, est, X)


ONLINE = ("Perceptron", "AveragedPerceptron", "VotedPerceptron", "KernelPerceptron",
          "PegasosSVC", "LogisticRegression")


@pytest.mark.parametrize("name", ONLINE)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_partial_fit_state_round_trips(tmp_path, name, fmt):
    """A model trained by partial_fit alone (the state partial_fit needs, and no fit-only
    attributes) loads and goes on learning exactly as the original."""
    X, y = _data(3)
    X = FORMATS[fmt](X)
    est = getattr(halfspaces, name)().partial_fit(X[:20], y[:20], classes=np.unique(y))
    again = _round_trip(tmp_path, est, X)
    est.partial_fit(X[20:], y[20:])
    again.partial_fit(X[20:], y[20:])
    assert_same_state(vars(again), vars(est))


def test_experts_variants_round_trip(tmp_path):
    X, y = _data(2)
    rng = np.random.default_rng(0)
    P = np.where(rng.random((40, 8)) < 0.5, -1.0, 1.0)
    models = [
        (halfspaces.WeightedMajorityClassifier("precomputed", eta=0.4), P, P[:, 3]),
        (halfspaces.HalvingClassifier("precomputed"), P, P[:, 5]),
        (halfspaces.HalvingClassifier(_W.tolist(), offsets=[0.0] * 16), X, y),
        (halfspaces.WeightedMajorityClassifier(_W, beta=0.0), X, y),
        (halfspaces.WeightedMajorityClassifier(_W, randomized=True,
                                               random_state=np.random.RandomState(4)), X, y),
    ]
    for est, Z, labels in models:
        _round_trip(tmp_path, est.fit(Z, labels), Z)


def test_feature_names_round_trip(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _data(3)
    df = pd.DataFrame(X, columns=["left", "right"])
    est = halfspaces.SVC().fit(df, y)
    again = _round_trip(tmp_path, est, df)
    assert again.feature_names_in_.tolist() == ["left", "right"]


@pytest.mark.parametrize("model", [
    make_text_pipeline(halfspaces.VotedPerceptron(), "tfidf", ngram_range=(1, 2), min_df=2,
                       max_df=0.9, stop_words="english", strip_accents="unicode"),
    make_text_pipeline(halfspaces.PegasosSVC(random_state=0), "hashing", analyzer="char_wb",
                       ngram_range=(2, 4), n_features=2**10, norm="l1"),
    Pipeline([("counts", CountVectorizer(token_pattern=r"(?u)\b\w+\b", binary=True)),
              ("tfidf", TfidfTransformer(sublinear_tf=True)),
              ("svm", halfspaces.SVC())]),
], ids=["tfidf", "hashing-char", "count-tfidf"])
def test_text_pipeline_variants_round_trip(tmp_path, model):
    model.fit(TEXTS, LABELS)
    path = tmp_path / "text.npz"
    save(model, path)
    again = load(path)
    for (_, a), (_, b) in zip(again.steps, model.steps, strict=True):
        assert_same_state(vars(a), _saved_state(b))
    docs = TEXTS + ["win a free lunch at noon"]
    assert again.predict(docs).tolist() == model.predict(docs).tolist()


def test_every_registered_class_has_a_schema_for_every_parameter():
    assert set(_schema.SCHEMAS) == set(persistence.REGISTRY)
    for name in persistence.REGISTRY:
        cls = persistence._resolve(name)
        if hasattr(cls, "_get_param_names"):
            assert set(_schema.param_specs(name)) == set(cls._get_param_names()), name


def test_callable_parameters_cannot_be_saved(tmp_path):
    model = Pipeline([("vectorizer", HashingVectorizer(tokenizer=str.split)),
                      ("classifier", halfspaces.Perceptron())])
    with pytest.raises(ValueError, match=r"cannot save HashingVectorizer.tokenizer=.*it is"
                                         r" code \(a callable\)"):
        save(model, tmp_path / "x.npz")
    assert not os.listdir(tmp_path)


def test_callable_kernel_and_hypotheses_cannot_be_saved(tmp_path):
    X, y = _data()
    kp = halfspaces.KernelPerceptron(kernel=lambda A, B: A @ B.T).fit(X, y)
    with pytest.raises(ValueError, match=r"cannot save KernelPerceptron.kernel=<function"
                                         r".*it is code \(a callable\).*kernel='rbf'"):
        kp.save(tmp_path / "k.npz")
    halving = halfspaces.HalvingClassifier(hypotheses=[lambda Z: np.ones(Z.shape[0])])
    with pytest.raises(ValueError, match=r"HalvingClassifier.hypotheses=<function.*it is code"):
        halving.save(tmp_path / "h.npz")
    assert not os.listdir(tmp_path)


def test_stump_hypotheses_are_data(tmp_path):
    from halfspaces.experts import CoordinateStump

    X, y = _data()
    stumps = [CoordinateStump(feature=j, threshold=t, sign=s)
              for j in (0, 1) for t in (-0.5, 0.0, 0.5) for s in (1, -1)]
    clf = halfspaces.WeightedMajorityClassifier(hypotheses=stumps).fit(X, y)
    clf.save(tmp_path / "stumps.model")  # any file name: nothing is appended
    assert os.listdir(tmp_path) == ["stumps.model"]
    again = load(tmp_path / "stumps.model")
    assert_same_state(vars(again), _saved_state(clf))
    _check_predictions(clf, again, X)


def test_unregistered_classes_are_refused(tmp_path):
    from sklearn.linear_model import SGDClassifier

    with pytest.raises(ValueError, match="only registered classes can be saved"):
        save(SGDClassifier(), tmp_path / "x.npz")

    class Perceptron(halfspaces.Perceptron):  # same name, not our class
        pass

    with pytest.raises(ValueError, match="only registered classes can be saved"):
        save(Perceptron(), tmp_path / "x.npz")


def test_random_state_parameter_object(tmp_path):
    est = halfspaces.Perceptron(shuffle=True, random_state=np.random.RandomState(3))
    X, y = _data()
    save(est, tmp_path / "r.npz")
    again = load(tmp_path / "r.npz")
    assert_same_state(again.get_params(), est.get_params())
    np.testing.assert_array_equal(again.fit(X, y).coef_, est.fit(X, y).coef_)


# -- a broken or foreign file is refused, clearly ------------------------------------------

@pytest.fixture
def model_file(tmp_path):
    X, y = _data()
    path = tmp_path / "model.npz"
    halfspaces.Perceptron().fit(X, y).save(path)
    return path


def _rewrite(path, change_meta=None, change_arrays=None, fix_checksum=True):
    """Edit a model file's metadata/arrays (and optionally recompute its checksum)."""
    with np.load(path, allow_pickle=False) as npz:
        entries = {k: npz[k] for k in npz.files}
    meta = json.loads(entries["__meta__"].tobytes())
    if change_meta:
        change_meta(meta)
    if change_arrays:
        change_arrays(entries)
    meta_bytes = json.dumps(meta).encode()
    entries["__meta__"] = np.frombuffer(meta_bytes, dtype=np.uint8)
    arrays = {k: v for k, v in entries.items() if not k.startswith("__")}
    if fix_checksum:
        entries["__sha256__"] = np.array(persistence._digest(meta_bytes, arrays))
    np.savez(path, **entries)
    os.replace(str(path) + ".npz", path) if os.path.exists(str(path) + ".npz") else None


def test_corrupted_byte(model_file):
    """Any flipped byte is refused, or (in a zip header field nobody reads, such as a
    timestamp) leaves the model intact: never a silently different model."""
    original = load(model_file)
    raw = model_file.read_bytes()
    refused = 0
    for pos in range(0, len(raw), 3):
        bad = bytearray(raw)
        bad[pos] ^= 0xFF
        model_file.write_bytes(bytes(bad))
        try:
            again = load(model_file)
        except ModelFormatError as exc:
            assert str(exc).startswith(str(model_file) + ": ")
            refused += 1
        else:
            assert_same_state(vars(again), vars(original))
    assert refused > 0.5 * len(range(0, len(raw), 3))  # the rest: unread zip header fields
    bad = bytearray(raw)
    bad[raw.index(b"__meta__.npy") + 200] ^= 0x01  # inside the (compressed) metadata
    model_file.write_bytes(bytes(bad))
    with pytest.raises(ModelFormatError, match=r"model\.npz: (the file is corrupted or"
                                               r" truncated|checksum mismatch)"):
        load(model_file)


def test_modified_array_fails_the_checksum(model_file):
    def bump(entries):
        entries["a0"] = entries["a0"] + 1.0 if entries["a0"].dtype.kind == "f" else \
            entries["a0"][::-1].copy()
    _rewrite(model_file, change_arrays=bump, fix_checksum=False)
    with pytest.raises(ModelFormatError, match="checksum mismatch: the file is corrupted or"
                                               " was modified"):
        load(model_file)


def test_newer_format_version(model_file):
    _rewrite(model_file, change_meta=lambda m: m.update(format_version=99))
    with pytest.raises(ModelFormatError, match="format version 99 is not supported.*upgrade"
                                               " halfspaces"):
        load(model_file)


def test_unknown_estimator_is_never_imported(model_file):
    def evil(meta):
        meta["estimator"] = meta["tree"]["__estimator__"] = "os.system"
    _rewrite(model_file, change_meta=evil)
    with pytest.raises(ModelFormatError, match="unknown estimator 'os.system'.*Refusing to"
                                               " import anything else"):
        load(model_file)


def test_shape_mismatch(model_file):
    def grow(entries):
        entries["a0"] = np.concatenate([entries["a0"].ravel()] * 2)
    _rewrite(model_file, change_arrays=grow)
    with pytest.raises(ModelFormatError, match="array 'a0' has dtype .* and shape .* but the"
                                               " metadata says"):
        load(model_file)


def test_truncated_file(model_file):
    raw = model_file.read_bytes()
    model_file.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ModelFormatError, match="corrupted or truncated"):
        load(model_file)


def test_not_our_format(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, coef=np.zeros(3))
    with pytest.raises(ModelFormatError, match=r"not a halfspaces model file \(no __meta__"):
        load(path)
    text = tmp_path / "model.txt"
    text.write_text("hello")
    with pytest.raises(ModelFormatError, match="not a halfspaces model file"):
        load(text)
    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(pickle.dumps(halfspaces.Perceptron()))
    with pytest.raises(ModelFormatError, match="not a halfspaces model file"):
        load(pickled)
    with zipfile.ZipFile(tmp_path / "z.npz", "w") as z:
        z.writestr("__meta__.npy", b"junk")
    with pytest.raises(ModelFormatError):
        load(tmp_path / "z.npz")


def test_crash_mid_write_keeps_the_old_model(model_file, monkeypatch):
    before = model_file.read_bytes()
    old = load(model_file)

    def crash(stream, entries):
        stream.write(b"PK\x03\x04 half a zip")
        raise OSError("No space left on device")

    monkeypatch.setattr(persistence, "_write_npz", crash)
    X, y = _data(3)
    with pytest.raises(OSError, match="No space left"):
        halfspaces.Perceptron().fit(X, y).save(model_file)
    assert model_file.read_bytes() == before
    assert os.listdir(model_file.parent) == [model_file.name]
    assert_same_state(vars(load(model_file)), vars(old))


def test_meta_is_plain_json_without_pickle(model_file):
    with zipfile.ZipFile(model_file) as z:
        names = sorted(z.namelist())
        for name in names:  # every entry loads without pickle
            np.load(io.BytesIO(z.read(name)), allow_pickle=False)
    assert "__meta__.npy" in names and "__sha256__.npy" in names
    with np.load(model_file, allow_pickle=False) as npz:
        meta = json.loads(npz["__meta__"].tobytes())
    assert meta["format"] == "halfspaces-model" and meta["format_version"] == 1
    assert meta["estimator"] == "Perceptron"
    assert meta["halfspaces_version"] == halfspaces.__version__


def test_object_dtypes_in_metadata_are_refused(model_file):
    def sneak(meta):
        meta["tree"]["attrs"]["t_"] = {"__scalar__": "|O", "v": "os.system"}
    _rewrite(model_file, change_meta=sneak)
    with pytest.raises(ModelFormatError, match="names dtype '|O'; only numeric, boolean and"
                                               " string types are allowed"):
        load(model_file)


def test_persist_exclude_leaves_out_declared_caches(tmp_path, monkeypatch):
    X, y = _data()
    clf = halfspaces.Perceptron().fit(X, y)
    clf._scratch = object()  # not storable, but declared a cache below
    with pytest.raises(ValueError, match=r"cannot save Perceptron._scratch=<object"):
        clf.save(tmp_path / "m.npz")
    monkeypatch.setattr(halfspaces.Perceptron, "_persist_exclude", ("_scratch",),
                        raising=False)
    clf.save(tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert not hasattr(again, "_scratch")
    _check_predictions(clf, again, X)


def test_metadata_round_trips_and_defaults_to_empty(tmp_path):
    X = np.array([[1.0, 2.0], [-1.0, -2.0]])
    clf = halfspaces.Perceptron().fit(X, [0, 1])
    path = tmp_path / "m.npz"
    save(clf, path, metadata={"format": "svmlight", "zero_based": False})
    model, meta = load(path, with_metadata=True)
    assert meta == {"format": "svmlight", "zero_based": False}
    assert np.array_equal(model.coef_, clf.coef_)
    clf.save(path)
    assert load(path, with_metadata=True)[1] == {}


@pytest.mark.parametrize("vectorizer", ["hashing", "tfidf"])
def test_halfspaces_save_takes_the_pipeline_of_make_text_pipeline(tmp_path, vectorizer):
    """A Pipeline has no ``.save``: ``halfspaces.save(obj, path)``, beside ``halfspaces.load``,
    saves it (issue 14, section 6)."""
    model = make_text_pipeline(halfspaces.Perceptron(random_state=0), vectorizer)
    model.fit(TEXTS, LABELS)
    assert not hasattr(model, "save")
    path = tmp_path / "text.model"
    halfspaces.save(model, path)
    again = halfspaces.load(path)
    assert [name for name, _ in again.steps] == ["vectorizer", "classifier"]
    for (_, a), (_, b) in zip(again.steps, model.steps, strict=True):
        assert_same_state(vars(a), _saved_state(b))
    docs = TEXTS + ["win a free lunch at noon", "cash"]
    np.testing.assert_array_equal(again.decision_function(docs), model.decision_function(docs))
