"""``halfspaces train`` streams a svmlight file for the online learners (issue 9): the model
is the one of ``fit`` on the whole file, bit for bit; ``--cache`` / ``--cache-dir`` keep the
parsed rows; batch solvers say how much memory the whole file takes."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from helpers import growing

from halfspaces import AveragedPerceptron, PegasosSVC, Perceptron, VotedPerceptron, cli
from halfspaces._labels import format_label
from halfspaces.cli import _models, _stream
from halfspaces.datasets import load_svmlight, small_svmlight
from halfspaces.persistence import load


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(path, n=90, d=7, seed=0, zero_based=False):
    """A svmlight file of ``n`` rows with labels {-1, 1}, some rows empty, 6-digit values."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < 0.5, np.round(rng.standard_normal((n, d)), 6), 0.0)
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) >= 0, 1, -1)
    base = 0 if zero_based else 1
    lines = [" ".join([str(int(label))]
                      + [f"{j + base}:{float(v)!r}" for j, v in enumerate(row) if v])
             for row, label in zip(X, y, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _in_memory_forbidden(monkeypatch):
    """Training must not read the whole file."""
    def refuse(*args, **kwargs):
        raise AssertionError("read the whole file")

    monkeypatch.setattr(_models, "read_args_data", refuse)


def _progressive(X, y, epochs, fit_intercept=True):
    """NumPy reference of the perceptron's progressive accuracy: in each pass, every row is
    predicted (right when y <w, x> + b > 0: a tie is wrong, as the update rule counts it),
    then learnt; passes stop after one without a mistake. The last pass's share right."""
    X = X.toarray()
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(epochs):
        right = 0
        for x, label in zip(X, np.where(y == y.max(), 1.0, -1.0), strict=True):
            if label * (x @ w + b) > 0:
                right += 1
            else:
                w, b = w + label * x, b + label * fit_intercept
        if right == len(y):
            break
    return right / len(y)


def _same_model(a, b):
    """The same fitted arrays, bit for bit, and the same counts."""
    fitted = sorted(k for k in vars(b) if k.endswith("_") and not k.startswith("_"))
    assert fitted == sorted(k for k in vars(a) if k.endswith("_") and not k.startswith("_"))
    for key in fitted:
        va, vb = np.asarray(getattr(a, key)), np.asarray(getattr(b, key))
        assert va.dtype == vb.dtype and va.tobytes() == vb.tobytes(), key


@pytest.mark.parametrize(("algo", "make", "options"), [
    ("perceptron", lambda: Perceptron(max_iter=4, shuffle=False),
     ["--max-iter", "4", "--no-shuffle"]),
    ("averaged", lambda: AveragedPerceptron(max_iter=3, fit_intercept=False, shuffle=False),
     ["--max-iter", "3", "--no-fit-intercept", "--no-shuffle"]),
    ("voted", lambda: VotedPerceptron(max_iter=2, shuffle=False),
     ["--max-iter", "2", "--no-shuffle"]),
    ("pegasos", lambda: PegasosSVC(lam=0.01, max_iter=3, sampling="cyclic"),
     ["--lam", "0.01", "--max-iter", "3", "--set", "sampling=cyclic"]),
])
def test_online_learners_stream_to_the_model_of_fit(tmp_path, capsys, monkeypatch, algo, make,
                                                    options):
    data = _write(tmp_path / "d.svm")
    _in_memory_forbidden(monkeypatch)
    code, out, err = _run(capsys, "train", data, "--algo", algo, *options, "-o",
                          tmp_path / "m", "--json")
    assert code == 0, err
    X, y = load_svmlight(data)
    with warnings.catch_warnings():  # ConvergenceWarning: the CLI printed it
        warnings.simplefilter("ignore")
        expected = make().fit(X, y)
    model, metadata = load(tmp_path / "m", with_metadata=True)
    _same_model(model, expected)
    assert metadata == {"format": "svmlight", "zero_based": False, "n_features": X.shape[1]}
    report = json.loads(out)
    assert report["n_samples"] == 90
    if algo == "perceptron":
        assert report["train_accuracy"] is None
    else:  # the saved model is an average or a vote: its own accuracy, from one more pass
        assert report["train_accuracy"] == pytest.approx(expected.score(X, y), abs=1e-12)
    if algo == "pegasos":  # its last pass's mistakes, in memory
        progressive = 1 - expected.mistakes_per_epoch_[-1] / 90
    else:  # the running perceptron's
        progressive = _progressive(X, y, expected.max_iter, expected.fit_intercept)
    assert report["progressive_accuracy"] == pytest.approx(progressive, abs=1e-12)


def test_the_report_words_the_progressive_accuracy(tmp_path, capsys):
    data = _write(tmp_path / "d.svm")
    code, out, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                          "--max-iter", "2", "-o", tmp_path / "m")
    assert code == 0, err
    X, y = load_svmlight(data)
    assert (f"progressive accuracy of the last pass {_progressive(X, y, 2):.4f} (each row"
            " predicted before it was learnt, a score of 0 counted wrong; 'halfspaces"
            " evaluate MODEL FILE' gives the model's accuracy)") in out


def test_one_vs_rest_streamed_reports_the_models_training_accuracy(tmp_path, capsys,
                                                                   monkeypatch):
    """More than two classes: the passes count each class's mistakes, not a row's, so the
    report gives model.score's accuracy, from one more pass."""
    X, y = load_svmlight(_write(tmp_path / "d.svm"))
    y = np.where(np.arange(90) % 3 == 0, 3, y)
    data = tmp_path / "m.svm"
    from halfspaces.datasets import dump_svmlight

    dump_svmlight(X, y, data)
    _in_memory_forbidden(monkeypatch)
    code, out, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                          "--max-iter", "2", "-o", tmp_path / "m", "--json")
    assert code == 0, err
    X, y = load_svmlight(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Perceptron(max_iter=2, shuffle=False).fit(X, y)
    report = json.loads(out)
    assert report["train_accuracy"] == expected.score(X, y)
    assert report["progressive_accuracy"] is None


def test_cache_beside_the_file_then_reused(tmp_path, capsys, monkeypatch):
    data = _write(tmp_path / "d.svm", zero_based=True)
    _in_memory_forbidden(monkeypatch)
    for _ in range(2):
        code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--max-iter", "5",
                            "--no-shuffle", "--cache", "-o", tmp_path / "m")
        assert code == 0, err
        header = tmp_path / "d.svm.hscache" / "header.json"
        stamp = header.stat().st_mtime_ns
    assert header.stat().st_mtime_ns == stamp  # the second run read the cache
    X, y = load_svmlight(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Perceptron(max_iter=5, shuffle=False).fit(X, y)
    model, metadata = load(tmp_path / "m", with_metadata=True)
    _same_model(model, expected)
    assert metadata["zero_based"] is True


def test_cache_dir_holds_the_cache(tmp_path, capsys):
    data = _write(tmp_path / "d.svm")
    where = tmp_path / "caches"
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                        "--cache-dir", where,
                        "-o", tmp_path / "m")
    assert code == 0, err
    assert [p.name for p in where.iterdir()] and not (tmp_path / "d.svm.hscache").exists()


@pytest.mark.parametrize(("argv", "why"), [
    (["--algo", "svm"], "--algo svm needs all the rows at once"),
    (["--algo", "pegasos"], "Pegasos streams with --set sampling=cyclic"),
])
def test_cache_without_streaming_is_an_error_in_cli_terms(tmp_path, capsys, argv, why):
    data = _write(tmp_path / "d.svm")
    code, _, err = _run(capsys, "train", data, *argv, "--cache", "-o", tmp_path / "m")
    assert code == 1
    assert err.startswith("halfspaces: error: --cache applies to training by streaming")
    assert why in err and "drop --cache" in err
    assert not (tmp_path / "m").exists()


def test_batch_solver_says_it_holds_the_whole_file(tmp_path, capsys, monkeypatch):
    data = _write(tmp_path / "d.svm")
    code, _, err = _run(capsys, "train", data, "--algo", "svm", "-o", tmp_path / "m")
    assert code == 0 and err == ""  # a small file: holding it is immaterial
    monkeypatch.setattr("halfspaces.cli._stream.NOTE_MEGABYTES", 0.0)
    code, _, err = _run(capsys, "train", data, "--algo", "svm", "-o", tmp_path / "m")
    assert code == 0, err
    X, y = load_svmlight(data)
    megabytes = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes) / 1e6
    assert err == (f"halfspaces: note: SVC trains on the whole of {data} in memory: 90"
                   f" examples, 7 features, about {megabytes:,.1f} MB\n")
    code, _, err = _run(capsys, "train", data, "--algo", "svm", "-q", "-o", tmp_path / "m")
    assert code == 0 and err == ""
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", tmp_path / "m")
    assert code == 0 and err.split("\n")[0] + "\n" == (
        f"halfspaces: note: Perceptron trains on the whole of {data} in memory: 90 examples,"
        f" 7 features, about {megabytes:,.1f} MB; the rows of each pass are shuffled (the"
        " default; --cache or --shuffle-window streams them shuffled by windows, --no-shuffle"
        " in the file's order)\n")


def test_a_bad_line_is_named_by_file_and_line_when_streaming(tmp_path, capsys, monkeypatch):
    data = tmp_path / "d.svm"
    data.write_text("1 1:0.5\n-1 2:x\n")
    _in_memory_forbidden(monkeypatch)
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle", "-o",
                        tmp_path / "m")
    assert code == 1
    assert err.startswith(f"halfspaces: error: {data}:2:")
    assert not (tmp_path / "m").exists()


def test_predict_streams_a_svmlight_file(tmp_path, capsys, monkeypatch):
    train, test = _write(tmp_path / "a.svm"), _write(tmp_path / "b.svm", n=40, seed=1)
    assert _run(capsys, "train", train, "--algo", "pegasos", "--lam", "0.1", "--random-state",
                "0", "-o", tmp_path / "m")[0] == 0
    monkeypatch.setattr(_models, "read_for_model", lambda *a: pytest.fail("read it whole"))
    monkeypatch.setattr(small_svmlight, "SMALL_BYTES", 0)  # not the small-file path
    code, out, err = _run(capsys, "predict", tmp_path / "m", test)
    assert code == 0, err
    X, _ = load_svmlight(test, n_features=7)
    expected = load(tmp_path / "m").predict(X)
    assert out == "".join(f"{int(p)}\n" for p in expected)


def test_streamed_predict_gives_the_models_advice(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(small_svmlight, "SMALL_BYTES", 0)  # not the small-file path
    train = _write(tmp_path / "a.svm")
    assert _run(capsys, "train", train, "--algo", "perceptron", "-o", tmp_path / "m")[0] == 0
    wide = tmp_path / "wide.svm"
    wide.write_text("1 1:1\n-1 9:1\n")
    code, out, err = _run(capsys, "predict", tmp_path / "m", wide)  # issue 13: zero weight
    assert code == 0, err
    assert err == (f"halfspaces: note: {wide}: 1 feature beyond the model's 7 ignored"
                   " (never seen in training: zero weight)\n")
    X = np.zeros((2, 7))
    X[0, 0] = 1.0  # row 2 held only feature 9: an empty row to the model
    assert out.split() == [format_label(p) for p in load(tmp_path / "m").predict(X)]
    zero = tmp_path / "zero.svm"
    zero.write_text("1 1:1\n-1 0:1\n")
    code, _, err = _run(capsys, "predict", tmp_path / "m", zero)
    assert code == 1 and f"{zero}:2:" in err and "train again with --zero-based" in err


def _write_vw(path, n=60, seed=2):
    """A VW file: words of two namespaces, labels -1/+1, some importance weights."""
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(12)]
    lines = []
    for _ in range(n):
        picked = rng.choice(words, size=rng.integers(1, 6))
        label = 1 if ("w1" in picked) ^ (rng.random() < 0.1) else -1
        feats = " ".join(f"{w}:{rng.integers(1, 4)}" for w in picked)
        lines.append(f"{label} |a {feats} |b:0.5 {picked[0]}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["svmlight", "vw"])
@pytest.mark.parametrize("algo", ["perceptron", "svm"])
def test_evaluate_streams_to_the_numbers_of_the_whole_file(tmp_path, capsys, monkeypatch,
                                                           fmt, algo):
    """evaluate reads a svmlight or VW file in blocks (never whole) and reports exactly
    metrics.evaluate on the whole file; predict streams VW files too."""
    from halfspaces.datasets import iter_blocks, load_vw
    from halfspaces.metrics import evaluate

    if fmt == "svmlight":
        train, test = _write(tmp_path / "a.svm"), _write(tmp_path / "b.svm", n=300, seed=1)
    else:
        train, test = _write_vw(tmp_path / "a.vw"), _write_vw(tmp_path / "b.vw", n=300, seed=3)
    extra = ["--n-features", "64"] if fmt == "vw" else []
    assert _run(capsys, "train", train, "--algo", algo, "-o", tmp_path / "m", *extra)[0] == 0
    model = load(tmp_path / "m")
    X, y = load_vw(test, n_features=64) if fmt == "vw" else load_svmlight(test, n_features=7)
    expected = evaluate(model, X, y)
    monkeypatch.setattr(_models, "read_for_model", lambda *a, **k: pytest.fail("read whole"))
    small = [block for block in iter_blocks(test, fmt, n_features=X.shape[1], block_bytes=512)]
    assert len(small) > 2
    real = iter_blocks  # blocks of 512 bytes: the sums run over many blocks

    def tiny_blocks(path, format=None, **kwargs):
        return real(path, format, block_bytes=512, **kwargs)

    monkeypatch.setattr("halfspaces.datasets.iter_blocks", tiny_blocks)
    code, out, err = _run(capsys, "evaluate", tmp_path / "m", test, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got.pop("data") == str(test)
    assert got == json.loads(json.dumps(expected))
    code, out, err = _run(capsys, "predict", tmp_path / "m", test)
    assert code == 0, err
    assert out.split() == [format_label(p) for p in model.predict(X)]


@pytest.mark.parametrize("cache", [[], ["--cache"]])
def test_train_streams_a_vw_file_to_the_model_of_fit(tmp_path, capsys, monkeypatch, cache):
    from halfspaces.datasets import load_vw

    data = _write_vw(tmp_path / "d.vw")
    _in_memory_forbidden(monkeypatch)
    code, out, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                          "--max-iter", "3", "--n-features", "64", "-o", tmp_path / "m",
                          "--json", *cache)
    assert code == 0, err
    X, y = load_vw(data, n_features=64)
    with warnings.catch_warnings():  # ConvergenceWarning: the CLI printed it
        warnings.simplefilter("ignore")
        expected = Perceptron(max_iter=3, shuffle=False).fit(X, y)
    model, metadata = load(tmp_path / "m", with_metadata=True)
    _same_model(model, expected)
    assert metadata == {"format": "vw", "zero_based": None, "n_features": 64}
    assert json.loads(out)["progressive_accuracy"] == pytest.approx(_progressive(X, y, 3),
                                                                    abs=1e-12)


def _count_reads(monkeypatch):
    """The reads of a svmlight file (each pass over it opens and reads it once)."""
    from halfspaces.datasets import _svmlight_blocks

    reads = []
    read_blocks = _svmlight_blocks.read_blocks

    def counted(path, block_bytes):
        reads.append(path)
        return read_blocks(path, block_bytes)

    monkeypatch.setattr(_svmlight_blocks, "read_blocks", counted)
    return reads


@pytest.mark.parametrize("algo", ["perceptron", "averaged", "voted"])
def test_one_pass_with_the_columns_given_reads_the_file_once(tmp_path, capsys, monkeypatch,
                                                             algo):
    """--n-features and the indexing given, labels -1 and +1: no survey, no accuracy pass
    (but one for an averaged or voted model, which is not the running perceptron); the model
    is fit's, bit for bit."""
    data = _write(tmp_path / "d.svm")
    reads = _count_reads(monkeypatch)
    code, out, err = _run(capsys, "train", data, "--algo", algo, "--no-shuffle", "--max-iter",
                          "1", "--n-features", "9", "--one-based", "-o", tmp_path / "m",
                          "--json")
    assert code == 0, err
    assert reads == [str(data)] * (1 if algo == "perceptron" else 2)
    X, y = load_svmlight(data, n_features=9)
    make = {"perceptron": Perceptron, "averaged": AveragedPerceptron,
            "voted": VotedPerceptron}[algo]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = make(max_iter=1, shuffle=False).fit(X, y)
    _same_model(load(tmp_path / "m"), expected)
    report = json.loads(out)
    assert report["n_samples"] == 90
    assert report["progressive_accuracy"] == pytest.approx(_progressive(X, y, 1), abs=1e-12)


def test_a_surveyed_perceptron_training_says_how_to_read_the_file_once(tmp_path, capsys,
                                                                        monkeypatch):
    """A perceptron's training reads a file of labels -1 and +1 once, assuming it 1-based;
    a 0-based one is read again after a survey, which a large enough file's training says,
    with the options that read it once; those give the same model file in one read. No note
    under --quiet, for labels other than -1 and +1, or for other learners."""
    data = _write(tmp_path / "d.svm", zero_based=True)
    monkeypatch.setattr(_stream, "NOTE_MEGABYTES", 0.0)
    reads = _count_reads(monkeypatch)
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                        "--max-iter", 1, "-o", tmp_path / "twice")
    assert code == 0, err
    assert len(reads) == 3  # the one read, stopped at its first index 0; the survey; the pass
    X, _ = load_svmlight(data)
    note = (f"{data} was read more than once (a pass of its own found its columns, indexing"
            f" and classes); with --n-features {X.shape[1]} --zero-based (what that pass"
            " found) the training reads it once")
    assert note in err
    reads.clear()
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                        "--max-iter", 1, "--n-features", X.shape[1], "--zero-based", "-o",
                        tmp_path / "once")
    assert code == 0, err
    assert len(reads) == 1 and "more than once" not in err
    assert (tmp_path / "once").read_bytes() == (tmp_path / "twice").read_bytes()
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                        "--max-iter", 1, "--zero-based", "-o", tmp_path / "half")
    assert code == 0 and "more than once" not in err, err  # the indexing alone: once
    assert (tmp_path / "half").read_bytes() == (tmp_path / "twice").read_bytes()
    for argv in (["--algo", "perceptron", "--quiet"], ["--algo", "pegasos"]):
        code, _, err = _run(capsys, "train", data, *argv, "-o", tmp_path / "other")
        assert code == 0 and "more than once" not in err, err
    other = tmp_path / "labels.svm"
    other.write_text(data.read_text().replace("-1 ", "0 "))
    code, _, err = _run(capsys, "train", other, "--algo", "perceptron", "-o", tmp_path / "o")
    assert code == 0 and "more than once" not in err, err


@pytest.mark.parametrize("algo", ["perceptron", "averaged", "voted", "voted-budget"])
@pytest.mark.parametrize("epochs", [1, 4])
def test_one_read_without_the_columns_widens_the_learner_to_the_model_of_fit(
        tmp_path, capsys, monkeypatch, algo, epochs):
    """Without --n-features, a perceptron's training reads a 1-based file once (with more
    passes, the later ones know the columns), its columns growing block by block: the model
    is fit's on the whole file, bit for bit, and records the file's columns. With a budget
    the voted perceptron merges after each block, which rounds otherwise than fit's one
    merge a pass: its model is then the one of the columns given, bit for bit."""
    from halfspaces.datasets import stream

    monkeypatch.setattr(stream, "BLOCK_BYTES", 200)  # about four lines a block
    rng = np.random.default_rng(3)
    lines = []
    for i in range(60):  # the largest index grows along the file, the last at the very end
        top = 2 + i // 6
        cols = np.sort(rng.choice(np.arange(1, top + 1), size=min(3, top), replace=False))
        label = 1 if rng.random() < 0.5 else -1
        lines.append(f"{label} " + " ".join(f"{c}:{rng.normal():.6g}" for c in cols))
    lines.append("1 40:0.5")
    data = tmp_path / "grow.svm"
    data.write_text("\n".join(lines) + "\n")
    reads = _count_reads(monkeypatch)
    name, extra = (algo, []) if algo != "voted-budget" else ("voted", ["--set",
                                                                      "max_vectors=5"])
    code, _, err = _run(capsys, "train", data, "--algo", name, *extra, "--no-shuffle",
                        "--max-iter", epochs, "-o", tmp_path / "m")
    assert code == 0, err
    passes = len(reads)
    X, y = load_svmlight(data)
    assert X.shape[1] == 40
    make = {"perceptron": Perceptron, "averaged": AveragedPerceptron,
            "voted": VotedPerceptron}[name]
    params = {"max_vectors": 5} if algo == "voted-budget" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = make(max_iter=epochs, shuffle=False, **params).fit(X, y)
    # one read a pass, no survey (and one for the accuracy of an averaged or voted model)
    assert passes == expected.n_iter_ + (name != "perceptron")
    if algo == "voted-budget":
        code, _, err = _run(capsys, "train", data, "--algo", name, *extra, "--no-shuffle",
                            "--max-iter", epochs, "--n-features", 40, "--one-based", "-o",
                            tmp_path / "given")
        assert code == 0, err
        expected = load(tmp_path / "given")
    _same_model(load(tmp_path / "m"), expected)


def test_a_file_without_features_is_recorded_as_load_svmlight_reads_it(tmp_path, capsys):
    """Rows of labels alone: one column, and the indexing "auto" decides (0-based), recorded
    in the model file as a read of the whole file records them."""
    data = tmp_path / "empty_rows.svm"
    data.write_text("1\n-1\n1\n")
    for name, argv in (("streamed", ["--no-shuffle"]), ("memory", [])):
        code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--max-iter", 1,
                            *argv, "-o", tmp_path / name)
        assert code == 0, err
    streamed, memory = (load(tmp_path / name, with_metadata=True)[1]
                        for name in ("streamed", "memory"))
    assert streamed["n_features"] == memory["n_features"] == 1
    assert streamed["zero_based"] is memory["zero_based"] is True


@pytest.mark.parametrize(("labels", "reads_made"), [((0, 1), 3), ((1, 2, 3), 4)])
def test_other_labels_than_plus_minus_one_are_surveyed(tmp_path, capsys, monkeypatch, labels,
                                                       reads_made):
    """Labels other than -1 and +1: the read that assumed them stops at the first block with
    another, and the training starts afresh after the survey (one-vs-rest also counts the
    accuracy): the model is still fit's."""
    from halfspaces.datasets import dump_svmlight

    X, _ = load_svmlight(_write(tmp_path / "d.svm", n=3000))
    y = np.asarray(labels)[np.arange(3000) % len(labels)]
    data = tmp_path / "l.svm"
    dump_svmlight(X, y, data)
    reads = _count_reads(monkeypatch)
    monkeypatch.setattr("halfspaces.datasets.stream.BLOCK_BYTES", 4096)  # several blocks
    code, out, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                          "--max-iter", "1", "--n-features", "7", "--one-based", "-o",
                          tmp_path / "m")
    assert code == 0, err
    assert len(reads) == reads_made
    X, y = load_svmlight(data, n_features=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Perceptron(max_iter=1, shuffle=False).fit(X, y)
    _same_model(load(tmp_path / "m"), expected)


@pytest.mark.parametrize(("text", "error"), [
    ("1 1:1\n1 2:1\n", "needs"),  # one class: the survey's error
    ("", "no examples in the file"),
    ("1 1:1\n-1 2:1\n-1 9:1\n", ":3:4: the index in '9:1' is beyond the 7 features"),
    ("1 1:1\n-1 2:x\n", ":2:4: expected"),
])
def test_one_read_gives_the_errors_of_the_survey(tmp_path, capsys, monkeypatch, text, error):
    data = tmp_path / "bad.svm"
    data.write_text(text)
    argv = ["train", data, "--algo", "perceptron", "--no-shuffle", "--max-iter", "1",
            "--n-features", "7", "--one-based", "-o", tmp_path / "m"]
    code, _, err = _run(capsys, *argv)
    assert code == 1 and error in err
    assert not (tmp_path / "m").exists()
    monkeypatch.setattr(_stream, "_fit_once", lambda *args: None)  # the survey's route
    assert _run(capsys, *argv) == (1, "", err)


@pytest.mark.parametrize("one_read", [[], ["--n-features", "7", "--one-based"]])
def test_balanced_class_weights_train_in_memory_to_the_model_of_fit(tmp_path, capsys,
                                                                    one_read):
    """"balanced" needs the class counts of the whole file, which a stream does not have
    before its first block: the training holds the file and gives fit's model (before, a
    streamed training stopped with partial_fit's refusal, in Python terms)."""
    data = _write(tmp_path / "d.svm")
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "--no-shuffle",
                        "--max-iter", "3", "--set", "class_weight=balanced", *one_read,
                        "-o", tmp_path / "m")
    assert code == 0, err
    X, y = load_svmlight(data, n_features=7)
    with warnings.catch_warnings():  # ConvergenceWarning: the CLI printed it
        warnings.simplefilter("ignore")
        expected = Perceptron(max_iter=3, shuffle=False, class_weight="balanced").fit(X, y)
    _same_model(load(tmp_path / "m"), expected)


def test_a_switch_is_advised_as_the_switch(tmp_path, capsys):
    """Library advice ``shuffle=True`` reads ``--shuffle`` on the command line (the option
    takes no value: ``--shuffle True`` would be refused)."""
    from halfspaces.cli import cli_terms

    assert cli_terms("fit with shuffle=True.") == "fit with --shuffle."
    assert cli_terms("(shuffle=False): or fit_intercept=False, then") == \
        "(--no-shuffle): or --no-fit-intercept, then"
    assert cli_terms("max_iter=5, or") == "--max-iter 5, or"


def test_a_parameter_value_is_advised_as_the_command_line_sets_it():
    """``multi_class='ovr'`` (no option of its own) reads ``--set multi_class=ovr``,
    ``solver='qp'`` reads ``--solver qp``; a quoted value that is no estimator parameter
    stays as it is."""
    from halfspaces.cli import cli_terms

    assert cli_terms("an offset, or use multi_class='ovr'.") == \
        "an offset, or use --set multi_class=ovr."
    assert cli_terms("or use solver='qp'.") == "or use --solver qp."
    assert cli_terms("pass on_infeasible='least_violation' to") == \
        "pass --set on_infeasible=least_violation to"
    assert cli_terms("as format='csv' says") == "as format='csv' says"


def test_a_file_that_grows_during_a_streamed_train_is_refused(tmp_path, capsys, monkeypatch):
    """train --no-shuffle reads the file in passes: a line appended during the first one
    stops the training (nothing saved), rather than learning rows of two files."""
    from halfspaces.datasets import stream, svmlight

    monkeypatch.setattr(stream, "BLOCK_BYTES", 200)  # about four lines a block
    path = _write(tmp_path / "grows.svm")
    monkeypatch.setattr(svmlight, "_growing_blocks", growing(svmlight._growing_blocks, path))
    model = tmp_path / "m.hs"
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "--no-shuffle",
                        "--max-iter", "3", "-o", model, "--quiet")
    assert code == 1 and "grows.svm changed while it was being trained on (its size" in err
    assert "nothing was saved" in err and not model.exists()


def test_a_streamed_average_reports_its_own_accuracy_and_warns_on_ordered_rows(tmp_path,
                                                                              capsys):
    """Rows sorted by class: the running perceptron's progressive accuracy is high while the
    saved average is dominated by the last class. The report gives the saved model's
    training accuracy (the in-memory fit's score) and a warning; a shuffled file none."""
    X, y = load_svmlight(_write(tmp_path / "d.svm", n=200, seed=3))
    order = np.argsort(y, kind="stable")
    from halfspaces.datasets import dump_svmlight

    dump_svmlight(X[order], y[order], tmp_path / "sorted.svm")
    model = tmp_path / "m"
    argv = ["--algo", "averaged", "--no-shuffle", "--cache", "--max-iter", "10", "-o", model]
    code, out, err = _run(capsys, "train", tmp_path / "sorted.svm", *argv, "--json")
    assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = AveragedPerceptron(shuffle=False, max_iter=10).fit(X[order], y[order])
    report = json.loads(out)
    assert report["train_accuracy"] == pytest.approx(expected.score(X, y), abs=1e-12)
    assert report["progressive_accuracy"] > report["train_accuracy"]
    assert "sorted.svm come in long runs of one class (2 runs of one label where a random" \
           " order of them gives about" in err
    code, out, err = _run(capsys, "train", tmp_path / "sorted.svm", *argv)
    assert f"training accuracy of the saved (averaged) model {expected.score(X, y):.4f}" in out
    code, out, err = _run(capsys, "train", tmp_path / "d.svm", *argv, "--json")
    assert code == 0 and "long runs of one class" not in err


def _write_sorted(path, n, seed):
    """0/1 features, 30% of labels +1 by a noisy linear rule, the lines sorted by label."""
    rng = np.random.default_rng(seed)
    X = (rng.random(size=(n, 10)) < 0.3).astype(float)
    y = np.where(X @ np.linspace(1, -1, 10) + 0.3 * rng.normal(size=n) > 0.5, 1, -1)
    order = np.argsort(y, kind="stable")
    path.write_text("".join(f"{y[i]} " + " ".join(f"{j + 1}:1" for j in np.flatnonzero(X[i]))
                            + "\n" for i in order))
    return path


def test_a_sorted_file_streamed_from_its_cache_is_shuffled(tmp_path, capsys):
    """The averaged perceptron on a file sorted by label, streamed from its cache: in the
    file's order the saved model is poor (and a warning says why); shuffled (the default),
    by windows of 50 rows of pieces read in a random order, it scores as the in-memory fit
    with shuffled passes does."""
    data, test = _write_sorted(tmp_path / "d.svm", 300, 0), _write_sorted(tmp_path / "t.svm",
                                                                          1000, 1)
    X_test, y_test = load_svmlight(test, n_features=10)
    base = ["train", data, "--algo", "averaged", "--max-iter", "3", "--cache"]
    code, _, err = _run(capsys, *base, "--no-shuffle", "-o", tmp_path / "ordered")
    assert code == 0 and "come in long runs of one class" in err
    assert "or drop --no-shuffle: each pass then reads the cache's pieces in a random" in err
    ordered = load(tmp_path / "ordered").score(X_test, y_test)
    X, y = load_svmlight(data)
    reference = AveragedPerceptron(max_iter=3, random_state=0).fit(X, y).score(X_test, y_test)
    code, out, err = _run(capsys, *base, "--shuffle-window", "50", "--random-state", "0", "-o",
                          tmp_path / "shuffled")
    assert code == 0, err
    assert "long runs" not in err and "training accuracy of the saved" in out
    assert load(tmp_path / "shuffled").score(X_test, y_test) >= reference - 0.03
    assert reference > 0.88 and ordered < reference - 0.08


def test_a_shuffled_stream_of_one_window_is_the_in_memory_model(tmp_path, capsys):
    """A file of at most --shuffle-window rows is one window: each pass is fit's
    permutation, so the streamed model (text or cache) is train's in memory, bit for bit."""
    data = _write(tmp_path / "d.svm")
    for algo in ("perceptron", "voted"):
        argv = ["train", data, "--algo", algo, "--max-iter", "3", "--random-state", "4", "-q"]
        assert _run(capsys, *argv, "-o", tmp_path / "memory")[0] == 0
        expected = load(tmp_path / "memory")
        for streamed in (["--shuffle-window", "90"], ["--cache"]):
            assert _run(capsys, *argv, *streamed, "-o", tmp_path / "streamed")[0] == 0
            model = load(tmp_path / "streamed")
            for name in ("coef_", "intercept_", "n_iter_", "mistakes_per_epoch_"):
                if hasattr(expected, name):
                    assert np.array_equal(getattr(model, name), getattr(expected, name)), name


def test_a_text_stream_shuffled_only_within_windows_warns(tmp_path, capsys):
    data = _write_sorted(tmp_path / "d.svm", 200, 0)
    code, _, err = _run(capsys, "train", data, "--algo", "averaged", "--shuffle-window", "50",
                        "--max-iter", "2", "-o", tmp_path / "m")
    assert code == 0
    assert "come in long runs of one class" in err and "the rows moved only within windows" \
        " of 50 rows of the file's order; add --cache" in err


@pytest.mark.parametrize(("argv", "why"), [
    (["--algo", "perceptron", "--no-shuffle"], "--no-shuffle streams the rows in the file"),
    (["--algo", "svm"], "--algo svm needs all the rows at once"),
    (["--algo", "pegasos", "--set", "sampling=cyclic"], "--no-shuffle streams the rows"),
])
def test_shuffle_window_applies_to_shuffled_streams_only(tmp_path, capsys, argv, why):
    data = _write(tmp_path / "d.svm")
    code, _, err = _run(capsys, "train", data, *argv, "--shuffle-window", "10", "-o",
                        tmp_path / "m")
    assert code == 1 and err.startswith("halfspaces: error: --shuffle-window applies to a"
                                        " perceptron's training streamed with --shuffle")
    assert why in err and "drop --shuffle-window" in err and not (tmp_path / "m").exists()
