"""``--scale``: the scaler is fitted on the training rows, kept in the model file and applied
by ``predict``, ``evaluate``, ``play`` and ``plot``. Each model is compared with the one
built in Python from scikit-learn's scaler and our estimator, and with NumPy's statistics."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler
from test_cli import _run, _write_csv, _write_svmlight

from halfspaces import SVC, Perceptron, load, save
from halfspaces.datasets import load as load_data
from halfspaces.online import iter_play
from halfspaces.persistence import ModelFormatError

SCALERS = {"standard": StandardScaler, "maxabs": MaxAbsScaler, "minmax": MinMaxScaler}


def _data(seed=0, n=40):
    """Two classes on columns of very different sizes, some values zero."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [1e-2, 1.0, 1e2, 1e3] + [0.0, 5.0, -300.0, 0.0]
    X[rng.random(X.shape) < 0.2] = 0.0
    y = np.where(X[:, 0] / 1e-2 + X[:, 2] / 1e2 + 3 > 0, 1, -1)
    return X, y


def _numpy_scaled(kind, X):
    """The scaled features, from the definitions."""
    if kind == "standard":
        return (X - X.mean(axis=0)) / X.std(axis=0)
    if kind == "maxabs":
        return X / np.abs(X).max(axis=0)
    return (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))


@pytest.mark.parametrize("kind", ["standard", "maxabs", "minmax"])
def test_train_equals_sklearn_scaler_then_our_svc(tmp_path, capsys, kind):
    X, y = _data()
    X_new, _ = _data(seed=1)
    train, test = _write_csv(tmp_path / "train.csv", X, y), _write_csv(tmp_path / "t.csv",
                                                                       X_new, y)
    model_path = tmp_path / "m"
    # one seed on both sides: dual coordinate descent draws its row order from it
    code, _, err = _run(capsys, "train", train, "--algo", "svm", "--C", "1", "--scale", kind,
                        "--random-state", "0", "-o", model_path, "-q")
    assert code == 0, err
    model = load(model_path)
    read = load_data(train)  # the values of X, as the command holds them (Fortran order)
    reference = make_pipeline(SCALERS[kind](), SVC(C=1.0, random_state=0)).fit(read.X, read.y)
    scaler = model.steps[0][1]
    assert type(scaler) is SCALERS[kind]
    for name, value in vars(reference.steps[0][1]).items():
        np.testing.assert_array_equal(getattr(scaler, name), value, err_msg=name)
    np.testing.assert_allclose(scaler.transform(X), _numpy_scaled(kind, X), atol=1e-12)
    np.testing.assert_array_equal(model[-1].coef_, reference[-1].coef_)
    np.testing.assert_array_equal(model[-1].intercept_, reference[-1].intercept_)
    # predict and evaluate apply the scaler to new rows, as the Python pipeline does
    code, out, _ = _run(capsys, "predict", model_path, test)
    assert code == 0
    expected = reference.predict(X_new)
    assert [int(v) for v in out.split()] == expected.tolist()
    code, out, _ = _run(capsys, "evaluate", model_path, test, "--json")
    assert json.loads(out)["accuracy"] == pytest.approx(np.mean(expected == y))


def test_maxabs_keeps_sparse_svmlight_sparse(tmp_path, capsys):
    X, y = _data()
    path = _write_svmlight(tmp_path / "train.svm", X, y)
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--scale", "maxabs",
                        "--no-shuffle", "-o", tmp_path / "m", "-q")
    assert code == 0, err
    model = load(tmp_path / "m")
    reference = make_pipeline(MaxAbsScaler(), Perceptron(shuffle=False)).fit(sp.csr_matrix(X),
                                                                            y)
    np.testing.assert_array_equal(model[0].scale_, np.abs(X).max(axis=0))
    np.testing.assert_array_equal(model[-1].coef_, reference[-1].coef_)
    code, out, _ = _run(capsys, "predict", tmp_path / "m", path)
    assert [int(v) for v in out.split()] == reference.predict(X).tolist()


@pytest.mark.parametrize("kind, centre", [("standard", "mean"), ("minmax", "minimum")])
def test_centring_sparse_data_is_refused_with_the_fix(tmp_path, capsys, kind, centre):
    X, y = _data()
    path = _write_svmlight(tmp_path / "train.svm", X, y)
    code, _, err = _run(capsys, "train", path, "--algo", "svm", "--scale", kind,
                        "-o", tmp_path / "m")
    assert code == 1
    assert f"subtracts its {centre}" in err and "pass --scale maxabs" in err
    assert not (tmp_path / "m").exists()


def test_raw_text_takes_maxabs_after_its_vectorizer(tmp_path, capsys):
    path = tmp_path / "t.tsv"
    path.write_text("spam\twin cash now\nham\tlunch at noon\nspam\tcash prize win\n"
                    "ham\tsee you at noon\n")
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--scale", "standard",
                        "-o", tmp_path / "m")
    assert code == 1 and "raw text, whose vectors are sparse" in err
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--scale", "maxabs",
                        "-o", tmp_path / "m", "-q")
    assert code == 0, err
    model = load(tmp_path / "m")
    assert [name for name, _ in model.steps] == ["vectorizer", "scaler", "classifier"]
    code, out, _ = _run(capsys, "predict", tmp_path / "m", path)
    assert out.split() == ["spam", "ham", "spam", "ham"]


def test_play_scales_the_rows_it_plays(tmp_path, capsys):
    X, y = _data()
    path = _write_csv(tmp_path / "d.csv", X, y)
    read = load_data(path)
    for scale, X_played in ((["--scale", "standard"], StandardScaler().fit_transform(read.X)),
                            ([], read.X)):
        code, out, _ = _run(capsys, "play", path, *scale, "--json")
        assert code == 0
        rows = list(iter_play(Perceptron(), X_played, read.y))
        assert json.loads(out)["n_mistakes"] == rows[-1].mistakes


def test_streamed_learner_reads_whole_file_with_scale(tmp_path, capsys):
    """The stream's one read cannot fit a scaler before the first update: --cache says so."""
    X, y = _data()
    path = _write_svmlight(tmp_path / "train.svm", X, y)
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--no-shuffle",
                        "--scale", "maxabs", "--cache", "-o", tmp_path / "m")
    assert code == 1 and "--scale fits its scaler on every row" in err


# -- the model file --------------------------------------------------------------------------


def _format_version(path):
    with np.load(path) as archive:
        return json.loads(archive["__meta__"].tobytes())["format_version"]


def test_a_scaled_model_is_version_2_and_others_stay_version_1(tmp_path):
    X, y = _data()
    save(make_pipeline(StandardScaler(), Perceptron()).fit(X, y), tmp_path / "scaled")
    save(Perceptron().fit(X, y), tmp_path / "plain")
    assert _format_version(tmp_path / "scaled") == 2
    assert _format_version(tmp_path / "plain") == 1  # halfspaces before the scalers reads it


def test_pipelines_of_other_shapes_are_refused(tmp_path):
    """At most one scaler, after the text vectorizer and its tf-idf steps."""
    X, y = _data()
    texts = ["win cash", "lunch at noon", "cash prize", "see you"]
    for steps, X_fit, y_fit in (
            ([StandardScaler(), MaxAbsScaler(), Perceptron()], X, y),
            ([HashingVectorizer(), MaxAbsScaler(), TfidfTransformer(), Perceptron()], texts,
             [1, 0, 1, 0])):
        with pytest.raises(ValueError, match=r"steps\[[01]\]\[1\]: is a \w+Scaler; a saved"
                                             " Pipeline is a text vectorizer"):
            save(make_pipeline(*steps).fit(X_fit, y_fit), tmp_path / "m")


def test_a_zero_scale_in_a_file_is_refused(tmp_path):
    from test_model_files import craft

    X, y = _data()
    model = make_pipeline(MaxAbsScaler(), Perceptron()).fit(X, y)

    def zero(tree, encoder):
        scaler = tree["params"]["steps"][0]["__tuple__"][1]
        scale = np.ones(X.shape[1])
        scale[2] = 0.0
        scaler["attrs"]["scale_"] = encoder.encode(scale, "")

    craft(tmp_path / "m", model, zero)
    with pytest.raises(ModelFormatError, match=r"scale_.*holds 0.0"):
        load(tmp_path / "m")
