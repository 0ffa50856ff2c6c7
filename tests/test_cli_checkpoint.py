"""train --checkpoint-every N[rows] / --resume: a run killed with SIGKILL after its k-th
checkpoint and resumed ends with the model of an uninterrupted run, bit for bit (every array
and the metadata of the model file), in memory and streamed, by epochs and by rows inside the
passes, at several kill points. The kill is deterministic: the subprocess's checkpoint writer
kills its own process after writing checkpoint k (no sleeps, no timing)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import (
    AveragedPerceptron,
    KernelPegasosSVC,
    KernelPerceptron,
    LogisticRegression,
    PegasosSVC,
    load,
)
from halfspaces._checkpoint import Checkpointer, checkpointing
from halfspaces.cli import main
from halfspaces.datasets import dump_svmlight
from halfspaces.datasets.stream import fit_stream
from halfspaces.persistence import save

# train, killed by SIGKILL right after its argv[1]-th checkpoint is written
_KILLED_AFTER_CHECKPOINT = """
import os, signal, sys
from halfspaces import _checkpoint
write, written, kill_after = _checkpoint.Checkpointer.epoch_done, [], int(sys.argv[1])

def epoch_done(self, est, epochs, rng, position=None):
    before = os.path.exists(self.path) and os.stat(self.path).st_mtime_ns
    write(self, est, epochs, rng, position)
    if os.path.exists(self.path) and os.stat(self.path).st_mtime_ns != before:
        written.append(epochs)
        if len(written) == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

_checkpoint.Checkpointer.epoch_done = epoch_done
from halfspaces.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _train(*argv, kill_after=None):
    command = [sys.executable, "-m", "halfspaces", "train"] if kill_after is None else \
        [sys.executable, "-c", _KILLED_AFTER_CHECKPOINT, str(kill_after), "train"]
    return subprocess.run(command + [str(a) for a in argv] + ["--quiet"], capture_output=True,
                          text=True)


def _entries(path) -> dict[str, bytes]:
    """The model file's content: every entry (arrays, metadata, checksum), not the zip's
    timestamps."""
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Noisy labels: no pass is free of mistakes, so every run makes all its epochs."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=60) > 0, 1, -1)
    path = tmp_path_factory.mktemp("data") / "train.svm"
    dump_svmlight(X, y, path)
    return path


@pytest.fixture(scope="module")
def data3(tmp_path_factory):
    """Three noisy classes (one-vs-rest: three binary problems)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.digitize(X[:, 0] + 0.8 * rng.normal(size=60), [-0.5, 0.5])
    path = tmp_path_factory.mktemp("data") / "train3.svm"
    dump_svmlight(X, y, path)
    return path


@pytest.fixture(scope="module")
def data_vw(tmp_path_factory):
    """Two noisy classes with VW importance weights: zeros (rows left out of the fit),
    fractions, missing (1) and large."""
    rng = np.random.default_rng(4)
    lines = []
    for i in range(40):
        x = rng.normal(size=3)
        label = 1 if x[0] + 0.8 * rng.normal() > 0 else -1
        weight = ("", " 0", " 0.5", " 3")[i % 4]
        lines.append(f"{label}{weight} |f " + " ".join(f"x{j}:{float(v)!r}" for j, v in
                                                       enumerate(x)))
    path = tmp_path_factory.mktemp("data") / "train.vw"
    path.write_text("\n".join(lines) + "\n")
    return path


CASES = {  # the options, and the checkpoints after which a run is killed
    "perceptron": (["--algo", "perceptron", "--random-state", "3"], [1, 4]),
    "averaged-every-2": (["--algo", "averaged", "--random-state", "3", "--checkpoint-every",
                          "2"], [2]),
    "voted": (["--algo", "voted", "--random-state", "3"], [3]),
    "streamed": (["--algo", "perceptron", "--no-shuffle"], [1, 5]),
    "pegasos": (["--algo", "pegasos", "--lam", "0.01", "--random-state", "3"], [1, 4]),
    "pegasos-uniform": (["--algo", "pegasos", "--lam", "0.01", "--random-state", "3", "--set",
                         "sampling=uniform", "--set", "eta0=calibrate"], [3]),
    # streamed, by rows: 60 rows a pass, so kill points inside passes 1 and 2 (and at the
    # end of pass 1 for 12rows: checkpoint 5 is after row 60, before the pass is counted)
    "streamed-rows": (["--algo", "perceptron", "--no-shuffle", "--checkpoint-every", "7rows"],
                      [2, 9, 12]),
    "streamed-rows-cache": (["--algo", "averaged", "--no-shuffle", "--cache",
                             "--checkpoint-every", "12rows"], [1, 5, 7]),
    # shuffled streams: a cache's pieces of 1 row in windows of 16 rows (killed inside passes
    # 1 and 2), and a text file's windows of 16 rows (inside pass 2)
    "streamed-shuffled-rows-cache": (["--algo", "averaged", "--cache", "--shuffle-window",
                                      "16", "--random-state", "3", "--checkpoint-every",
                                      "7rows"], [2, 9]),
    "streamed-shuffled-rows": (["--algo", "voted", "--shuffle-window", "16", "--random-state",
                                "3", "--checkpoint-every", "12rows"], [7]),
    # (its adapter's kill points inside and at the end of passes: pegasos-streamed-rows)
    "pegasos-streamed": (["--algo", "pegasos", "--lam", "0.01", "--set", "sampling=cyclic"],
                         [3]),
    # mini-batches of 4: a checkpoint every 10 rows falls after rows 12, 20, 32, ...
    "pegasos-streamed-rows": (["--algo", "pegasos", "--lam", "0.01", "--set",
                               "sampling=cyclic", "--set", "batch_size=4", "--set",
                               "eta0=calibrate", "--checkpoint-every", "10rows"], [2, 6, 9]),
    # dual coordinate descent, hinge (--max-iter 6: up to 6 checkpoints)
    "svm-dcd": (["--algo", "svm", "--solver", "dcd", "--random-state", "3"], [1, 3, 5]),
    "svm-dcd-every-2": (["--algo", "svm", "--C", "10", "--random-state", "3",
                         "--checkpoint-every", "2"], [1, 2]),
    # the Crammer-Singer solver: its dual variables, W, the order and the generator
    "svm-crammer-singer-3-classes": (["--algo", "svm", "--set", "multi_class=crammer_singer",
                                      "--no-fit-intercept", "--random-state", "3"], [1, 3, 5]),
    # the kernel learners: their dual expansions saved, the Gram matrix computed again
    "kernel-perceptron": (["--algo", "kernel-perceptron", "--kernel", "rbf", "--random-state",
                           "3"], [1, 3, 5]),
    "kernel-perceptron-3-classes": (["--algo", "kernel-perceptron", "--kernel", "rbf",
                                     "--random-state", "3"], [1, 3, 5]),
    "kernel-pegasos": (["--algo", "pegasos", "--kernel", "rbf", "--lam", "0.01",
                        "--random-state", "3"], [1, 3, 5]),
    "kernel-pegasos-3-classes": (["--algo", "pegasos", "--kernel", "rbf", "--lam", "0.01",
                                  "--random-state", "3"], [1, 3, 5]),
    "kernel-pegasos-cyclic-unaveraged": (["--algo", "pegasos", "--kernel", "rbf", "--lam",
                                          "0.01", "--set", "sampling=cyclic", "--set",
                                          "average=false"], [2, 4]),
    # logistic regression's SGD epochs: coef_, intercept_, t_, eta0_ and the shuffles' state
    "logistic-sgd": (["--algo", "logistic", "--solver", "sgd", "--random-state", "3"],
                     [1, 3, 5]),
    "logistic-sgd-3-classes": (["--algo", "logistic", "--solver", "sgd", "--random-state",
                                "3", "--set", "class_weight=balanced"], [1, 4]),
    # one-vs-rest problems in threads, each over the epoch's order
    "logistic-sgd-n-jobs-3-classes": (["--algo", "logistic", "--solver", "sgd", "--lam",
                                       "0.05", "--random-state", "3", "--n-jobs", "2",
                                       "--checkpoint-every", "2"], [1, 2]),
    # example weights from the file (rows of weight 0 left out), class weights on top
    "logistic-sgd-weighted-vw": (["--algo", "logistic", "--solver", "sgd", "--random-state",
                                  "3", "--set", "class_weight=balanced"], [2, 5]),
    "logistic-sgd-no-shuffle": (["--algo", "logistic", "--solver", "sgd", "--no-shuffle",
                                 "--set", "eta0=0.5"], [3]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_killed_and_resumed_gives_the_uninterrupted_model(tmp_path, data, data3, data_vw,
                                                          case):
    options, kill_points = CASES[case]
    data = data3 if case.endswith("3-classes") else data_vw if case.endswith("-vw") else data
    options = ["--max-iter", "6", *options]
    if "--checkpoint-every" not in options:
        options += ["--checkpoint-every", "1"]
    whole = tmp_path / "whole.model"
    done = _train(data, *options, "-o", whole)
    assert done.returncode == 0, done.stderr
    assert not os.path.exists(f"{whole}.checkpoint")  # removed once the model is saved
    for k in kill_points:
        model = tmp_path / f"killed{k}.model"
        killed = _train(data, *options, "-o", model, kill_after=k)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert not model.exists() and os.path.exists(f"{model}.checkpoint")
        resumed = _train(data, *options, "--resume", "-o", model)
        assert resumed.returncode == 0, resumed.stderr
        assert _entries(model) == _entries(whole), f"killed after checkpoint {k}"
        assert sorted(os.listdir(tmp_path)) == sorted(
            f for f in os.listdir(tmp_path) if not f.endswith(".checkpoint"))


def test_svm_one_vs_rest_resumes_inside_each_problem(tmp_path):
    """3 classes, one-vs-rest by dual coordinate descent: killed after checkpoints inside
    the first, second and third problems (the checkpoint holds the finished problems'
    results and the current one's state), resumed: the uninterrupted model, bit for bit."""
    from halfspaces.persistence import load

    rng = np.random.default_rng(2)
    X = rng.normal(size=(45, 3))
    y = np.argmax(X + 0.7 * rng.normal(size=(45, 3)), axis=1)  # noisy: no problem is easy
    data = tmp_path / "three.svm"
    dump_svmlight(X, y, data)
    options = ["--algo", "svm", "--solver", "dcd", "--max-iter", "4", "--random-state", "5",
               "--checkpoint-every", "1"]
    whole = tmp_path / "whole.model"
    assert _train(data, *options, "-o", whole).returncode == 0
    finished = set()
    for k in (2, 6, 10):  # 4 checkpoints a problem (--max-iter 4)
        model = tmp_path / f"killed{k}.model"
        assert _train(data, *options, "-o", model, kill_after=k).returncode == -signal.SIGKILL
        _, arrays = load(f"{model}.checkpoint", with_arrays=True)
        finished.add(len(arrays["done_n_iter"]))
        resumed = _train(data, *options, "--resume", "-o", model)
        assert resumed.returncode == 0, resumed.stderr
        assert _entries(model) == _entries(whole), f"killed after checkpoint {k}"
    assert finished == {0, 1, 2}  # kill points inside each of the three problems


# train --n-jobs 2, killed by SIGKILL right after the first checkpoint whose solver state
# holds at least argv[1] finished problems and argv[2] problems stopped inside (with a finished
# one, the third problem among them: it starts when a thread is free); the first two problems
# meet after their first epoch (a barrier), so that both are in flight when they write
_KILLED_IN_FLIGHT = """
import os, signal, sys, threading
from halfspaces import _checkpoint
from halfspaces.linear import svm
done, running = int(sys.argv[1]), int(sys.argv[2])
write, solve, barrier, started = (_checkpoint.Checkpointer.epoch_done, svm.dcd_svm,
                                  threading.Barrier(2, timeout=60), [])

def epoch_done(self, est, epochs, rng, position=None):
    write(self, est, epochs, rng, position)
    if len(self.arrays["done_problem"]) >= done and len(self.arrays["running"]) >= running \
            and (done == 0 or 2 in self.arrays["running"]):
        os.kill(os.getpid(), signal.SIGKILL)

def dcd_svm(*args, checkpoint, **kwargs):
    started.append(None)
    if len(started) > 2:
        return solve(*args, checkpoint=checkpoint, **kwargs)
    met = []

    def synced(epochs, state):
        if not met:
            met.append(barrier.wait())
        checkpoint(epochs, state)

    return solve(*args, checkpoint=synced, **kwargs)

_checkpoint.Checkpointer.epoch_done, svm.dcd_svm = epoch_done, dcd_svm
from halfspaces.cli import main
sys.exit(main(sys.argv[3:]))
"""


def test_svm_n_jobs_2_resumes_the_problems_in_flight(tmp_path, data3):
    """3 classes, one-vs-rest in two threads: killed with the first two problems in flight,
    and with one finished and the third in flight (started when a thread was free); resumed
    (each unfinished problem from its own state): the uninterrupted model, bit for bit,
    which is also --n-jobs 1's."""
    options = ["--algo", "svm", "--solver", "dcd", "--max-iter", "4", "--random-state", "5",
               "--checkpoint-every", "1", "--quiet"]
    whole, one = tmp_path / "whole.model", tmp_path / "one.model"
    assert _train(data3, *options, "--n-jobs", "2", "-o", whole).returncode == 0
    assert _train(data3, *options, "-o", one).returncode == 0
    for w in ("coef_", "intercept_", "dual_coef_", "support_", "n_iter_"):
        assert np.array_equal(getattr(load(whole), w), getattr(load(one), w))
    for done, running in ((0, 2), (1, 1)):
        model = tmp_path / f"killed-{done}-{running}.model"
        killed = subprocess.run([sys.executable, "-c", _KILLED_IN_FLIGHT, str(done),
                                 str(running), "train", str(data3), *options, "--n-jobs", "2",
                                 "-o", str(model)], capture_output=True, text=True)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        _, arrays = load(f"{model}.checkpoint", with_arrays=True)
        assert len(arrays["done_problem"]) >= done and len(arrays["running"]) >= running
        assert done == 0 or 2 in arrays["running"]
        resumed = _train(data3, *options, "--n-jobs", "2", "--resume", "-o", model)
        assert resumed.returncode == 0, resumed.stderr
        assert _entries(model) == _entries(whole), f"killed at {done} done, {running} running"


def test_svm_crammer_singer_checkpoints_dense_rows_that_auto_would_give_the_qp(tmp_path,
                                                                              capsys):
    """Crammer-Singer has its own solver (dual coordinate descent) whatever the size, on
    dense rows as on sparse ones: it checkpoints, and resumes to
    the uninterrupted model; a damaged state is refused, naming the array."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    y = np.argmax(X + 0.7 * rng.normal(size=(40, 3)), axis=1)
    data = tmp_path / "d.csv"
    data.write_text("".join(f"{c}," + ",".join(map(repr, x.tolist())) + "\n"
                            for c, x in zip(y, X, strict=True)))
    options = ["--algo", "svm", "--set", "multi_class=crammer_singer", "--no-fit-intercept",
               "--max-iter", "5", "--random-state", "1", "--checkpoint-every", "1"]
    whole, model = tmp_path / "whole.model", tmp_path / "m.model"
    assert _train(data, *options, "-o", whole).returncode == 0
    assert _train(data, *options, "-o", model, kill_after=2).returncode == -signal.SIGKILL
    path = f"{model}.checkpoint"
    est, metadata, arrays = load(path, with_metadata=True, with_arrays=True)
    assert arrays["n_iter"].tolist() == [2]
    for name, bad, message in (
            ("alpha", lambda a: a + 1.0, "'alpha' is outside alpha_i^m <= C_i^m (C_i for the"
                                         " class of example i, 0 for the others)"),
            ("W", lambda a: a[:2], "'W' is float64 of shape (2, 3), not float64 of shape"
                                   " (3, 3)"),
            ("order", lambda a: np.zeros_like(a), "'order' is not a permutation of the rows"),
            ("n_iter", lambda a: a + 10, "'n_iter' is not a number of passes from 1 to"
                                         " max_iter - 1 = 4"),
            ("tol", lambda a: -a, "'tol' is not a finite tol' > 0"),
            ("rng", lambda a: a.astype(np.int64), "'rng' is int64 of shape (1,), not uint64")):
        save(est, path, metadata=metadata, arrays={**arrays, name: bad(arrays[name])})
        status, err = _run(capsys, "train", data, *options, "-o", model, "--resume",
                           "--quiet")
        assert status == 1 and err.startswith(f"halfspaces: error: {path}: the solver state")
        assert message in err and "the checkpoint is damaged; run without --resume" in err, \
            (name, err)
    save(est, path, metadata=metadata, arrays=arrays)  # as written: it resumes
    assert _train(data, *options, "-o", model, "--resume").returncode == 0
    assert _entries(model) == _entries(whole)


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


def test_resume_refuses_what_it_cannot_continue(tmp_path, data, capsys):
    model = tmp_path / "m.model"
    base = ["train", data, "--algo", "perceptron", "--max-iter", "3", "--random-state", "1",
            "-o", model, "--quiet"]
    status, err = _run(capsys, *base, "--resume")
    assert status == 1 and f"{model}.checkpoint: no checkpoint to resume from; run without" \
                           " --resume" in err
    # a checkpoint left by a run stopped after its first epoch
    assert _train(*base[1:], "--checkpoint-every", "1", kill_after=1).returncode == -9
    status, err = _run(capsys, *base[:-3], "--max-iter", "4", "-o", model, "--resume")
    assert status == 1 and "the checkpoint is of another training: its parameters max_iter" \
                           " was 3 (now 4)" in err
    # the message names the checkpoint file once, not the data file before it
    assert err.startswith(f"halfspaces: error: {model}.checkpoint: the checkpoint is of")
    other = tmp_path / "other.svm"
    other.write_bytes(data.read_bytes())
    status, err = _run(capsys, "train", other, *base[2:], "--resume")
    assert status == 1 and f"it was written for {data} (" in err
    assert f"the data is now {other} (" in err
    status, err = _run(capsys, *base, "--zero-based", "--resume")
    assert status == 1 and "its data options zero_based was None (now True)" in err
    status, err = _run(capsys, *base, "--resume")  # the same command line continues
    assert status == 0, err
    for algo in ("lp", "halving"):
        status, err = _run(capsys, "train", data, "--algo", algo, "-o", model, "--resume")
        assert status == 1 and f"--checkpoint-every and --resume do not apply to --algo {algo}." \
            " Checkpoints: --algo perceptron, averaged, voted (epochs; streamed with" \
            " --no-shuffle, rows too), kernel-perceptron (epochs), pegasos, also with" \
            " --kernel" in err
        assert "svm (epochs of dual coordinate descent: the linear kernel, one-vs-rest," \
               " also with --n-jobs, or --set multi_class=crammer_singer) and logistic" \
               " --solver sgd (epochs). Not --algo lp, logistic's L-BFGS-B, nor svm's QP:" \
               " Clarabel's QP, SciPy's L-BFGS-B and HiGHS's LP keep their state inside the" \
               " library, so a restart from the iterate alone would not give the same bits" \
               in err
        assert len(err.splitlines()) == 1
    for option in (["--kernel", "rbf"], ["--solver", "qp"]):
        status, err = _run(capsys, "train", data, "--algo", "svm", *option, "-o", model,
                           "--checkpoint-every", "1")
        assert status == 1 and "do not apply to --algo svm with" \
            f" {' '.join(option)}: svm checkpoints the epochs of" \
            " dual coordinate descent (the linear kernel, --solver dcd or auto; one-vs-rest" \
            " or Crammer-Singer); the QP keeps no checkpoints" in err \
            and len(err.splitlines()) == 1
    status, err = _run(capsys, "train", data, "--algo", "pegasos", "--tol", "0.1", "-o", model,
                       "--checkpoint-every", "1")
    assert status == 1 and "apply to --algo pegasos without --tol: Pegasos checkpoints" in err
    status, err = _run(capsys, "train", data, "--algo", "pegasos", "--set", "n_iter=100",
                       "-o", model, "--checkpoint-every", "1")
    assert status == 1 and "apply to --algo pegasos without --set n_iter: Pegasos" \
                           " checkpoints the epochs of its fit in memory (or epochs and rows" \
                           " of a stream, with --set sampling=cyclic)" in err
    status, err = _run(capsys, "train", data, "--algo", "pegasos", "--kernel", "rbf", "--tol",
                       "0.1", "-o", model, "--checkpoint-every", "1")
    assert status == 1 and "apply to --algo pegasos without --tol: Pegasos checkpoints" in err
    for algo, why in ((["kernel-perceptron"], "--algo kernel-perceptron needs all the rows"),
                      (["pegasos", "--kernel", "rbf", "--set", "sampling=cyclic"],
                       "--algo pegasos --kernel needs all the rows at once (its Gram matrix)")):
        status, err = _run(capsys, "train", data, "--algo", *algo, "-o", model,
                           "--checkpoint-every", "10rows")  # in memory: epochs only
        assert status == 1 and "--checkpoint-every 10rows applies to a streamed fit, and this" \
            f" one reads DATA into memory ({why}" in err
    # rows: inside the passes of a streamed fit only
    status, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", model,
                       "--checkpoint-every", "100rows")
    assert status == 1 and "--checkpoint-every 100rows applies to a streamed fit, and this" \
        " one reads DATA into memory (the rows of each pass are shuffled (the default;" \
        " --cache or --shuffle-window streams them shuffled by windows, --no-shuffle in the" \
        " file's order)); checkpoint every N epochs" in err
    for bad in ("100row", "-1", "rows", "1.5"):
        with pytest.raises(SystemExit) as exc:
            main(["train", str(data), "--algo", "perceptron", "-o", str(model),
                  "--checkpoint-every", bad])
        assert exc.value.code == 2
        assert "argument --checkpoint-every: expected N (epochs) or Nrows (rows of a" \
               f" streamed fit), e.g. 5 or 100000rows; got '{bad}'" in capsys.readouterr().err
    (tmp_path / "m2.model.checkpoint").write_bytes(model.read_bytes())  # a model, not one
    status, err = _run(capsys, *base[:-2], tmp_path / "m2.model", "--quiet", "--resume")
    assert status == 1 and "a model file, not a checkpoint" in err
    for option in ("--early-stopping", "--probability"):  # their held-out rows: not saved
        status, err = _run(capsys, "train", data, "--algo", "perceptron", option, "-o", model,
                           "--checkpoint-every", "1")
        assert status == 1 and f"do not apply with {option}: a checkpoint holds" in err


def test_svm_resume_refuses_a_damaged_solver_state(tmp_path, data, capsys):
    """A checkpoint whose DCD state is not this problem's (crafted: the file's checksum and
    schema hold) is refused with the array it names, before any compiled code runs."""
    from halfspaces.persistence import load

    model = tmp_path / "m.model"
    argv = ["train", data, "--algo", "svm", "--solver", "dcd", "--max-iter", "4",
            "-o", model, "--checkpoint-every", "1", "--quiet"]
    assert _train(*argv[1:], kill_after=2).returncode == -signal.SIGKILL
    path = f"{model}.checkpoint"
    est, metadata, arrays = load(path, with_metadata=True, with_arrays=True)
    for name, bad, message in (
            ("alpha", lambda a: -a - 1.0, "'alpha' is outside [0, C_i] (problem 0)"),
            ("active", lambda a: np.zeros_like(a), "'active' is not a permutation of the rows"),
            ("w", lambda a: a[:, :-1],
             "'w' is float64 of shape (1, 3), not float64 of shape (1, 4)"),
            ("scalars", lambda a: np.full_like(a, np.nan), "'scalars' is not finite"),
            ("done_n_iter", lambda a: np.ones(3, dtype=np.int64),
             "'done_n_iter' is int64 of shape (3,), not int64 of shape (0,)"),
            ("running", lambda a: a + 1, "'running' is not increasing indices of the 1"
                                         " problems"),
            ("done_problem", lambda a: np.zeros(1, dtype=np.int64),
             "'running' names a finished problem")):
        save(est, path, metadata=metadata, arrays={**arrays, name: bad(arrays[name])})
        status, err = _run(capsys, *argv, "--resume")
        assert status == 1 and f"{path}: " in err and message in err, (name, err)
        assert "the checkpoint is damaged; run without --resume to start the training" \
               " afresh" in err
    save(est, path, metadata=metadata)  # no solver state at all
    status, err = _run(capsys, *argv, "--resume")
    assert status == 1 and "it holds no solver state: the checkpoint is damaged" in err


def test_logistic_resume_refuses_a_checkpoint_not_of_its_fit(tmp_path, data, capsys):
    """logistic --solver sgd: a checkpoint of other parameters, a damaged file, or one crafted
    (its checksum and schema hold) with other classes, other features or all its epochs made,
    is refused with what differs, before any compiled pass reads it; L-BFGS-B is refused
    with the reason and the fix."""
    import json

    model = tmp_path / "m.model"
    argv = ["train", data, "--algo", "logistic", "--solver", "sgd", "--max-iter", "4",
            "--random-state", "2", "-o", model, "--checkpoint-every", "1", "--quiet"]
    assert _train(*argv[1:], kill_after=2).returncode == -signal.SIGKILL
    path = f"{model}.checkpoint"
    est, metadata = load(path, with_metadata=True)
    status, err = _run(capsys, *argv, "--C", "2", "--resume")
    assert status == 1 and err.startswith(f"halfspaces: error: {path}: the checkpoint is of"
                                           " another training: its parameters C was 1.0 (now"
                                           " 2.0)")
    fewer = load(path)
    fewer.coef_, fewer.n_features_in_ = fewer.coef_[:, :3].copy(), 3
    other_classes = load(path)
    other_classes.classes_ = np.array([-1.0, 2.0])
    done = json.loads(metadata["checkpoint"])
    for crafted, meta, message in (
            (fewer, metadata, "its features (n_features_in_ 3) are not the data's (4)"),
            (other_classes, metadata, "its classes (classes_ [-1.0, 2.0]) are not the data's"
                                      " ([-1.0, 1.0])"),
            (est, {"checkpoint": json.dumps({**done, "epochs": 4})},
             "it holds 4 epochs, and max_iter=4")):
        save(crafted, path, metadata=meta)
        status, err = _run(capsys, *argv, "--resume")
        assert status == 1 and err.splitlines() == [
            f"halfspaces: error: {path}: {message}: the checkpoint is damaged; run without"
            " --resume to start the training afresh"], err
    save(est, path, metadata=metadata)  # the checkpoint as written resumes
    damaged = bytearray(open(path, "rb").read())
    damaged[len(damaged) // 2] ^= 0xFF
    with open(path, "wb") as f:
        f.write(damaged)
    status, err = _run(capsys, *argv, "--resume")
    assert status == 1 and err.startswith(f"halfspaces: error: {path}: the file is corrupted or"
                                           " truncated") and len(err.splitlines()) == 1
    save(est, path, metadata=metadata)
    status, err = _run(capsys, *argv, "--resume")
    assert status == 0 and model.exists(), err
    for solver in ([], ["--solver", "lbfgs"]):
        status, err = _run(capsys, "train", data, "--algo", "logistic", *solver, "-o", model,
                           "--checkpoint-every", "1")
        assert status == 1 and err.splitlines() == [
            "halfspaces: error: --checkpoint-every and --resume do not apply to --algo logistic"
            " with --solver lbfgs: SciPy's L-BFGS-B keeps its state inside the library, so a"
            " restart from the iterate alone would not give the same bits; pass --solver sgd"
            " (its epochs are checkpointed), or train without --checkpoint-every"]
    status, err = _run(capsys, "train", data, "--algo", "logistic", "--solver", "sgd",
                       "--early-stopping", "-o", model, "--checkpoint-every", "1")
    assert status == 1 and "do not apply with --early-stopping: a checkpoint holds" in err


class _Killed(Exception):
    """Stands for the SIGKILL of the subprocess tests, in process."""


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", [
    lambda: AveragedPerceptron(shuffle=False, max_iter=3),
    lambda: PegasosSVC(lam=0.01, sampling="cyclic", batch_size=3, max_iter=3),
], ids=["averaged", "pegasos-batch-3"])
def test_a_stream_of_many_blocks_resumes_inside_a_pass(tmp_path, make):
    """fit_stream over blocks of 7 rows, stopped after its k-th checkpoint of every 10 rows
    (inside passes 1 and 2, across block ends and Pegasos's mini-batches of 3 carried over
    them) and resumed: the model of the uninterrupted fit, every attribute."""
    rng = np.random.default_rng(1)
    X = sp.csr_matrix(rng.normal(size=(60, 4)))
    y = np.where(X[:, 0].toarray().ravel() + 0.8 * rng.normal(size=60) > 0, 1, -1)
    blocks = [(X[i:i + 7], y[i:i + 7]) for i in range(0, 60, 7)]
    save(fit_stream(make(), blocks), tmp_path / "whole.model")
    for k in (1, 4, 9):
        path = tmp_path / f"{k}.checkpoint"
        writer = Checkpointer(path, 10, source={"blocks": 7}, unit="rows")
        written = []

        def epoch_done(est, epochs, rng, position=None, writer=writer, written=written, k=k):
            before = writer.rows_written
            Checkpointer.epoch_done(writer, est, epochs, rng, position)
            if writer.rows_written != before:
                written.append(position["made"])
                if len(written) == k:
                    raise _Killed

        writer.epoch_done = epoch_done
        with checkpointing(writer), pytest.raises(_Killed):
            fit_stream(make(), blocks)
        with checkpointing(Checkpointer(path, 10, source={"blocks": 7}, unit="rows",
                                        resume=True)):
            resumed = fit_stream(make(), blocks)
        save(resumed, tmp_path / f"{k}.model")
        assert _entries(tmp_path / f"{k}.model") == _entries(tmp_path / "whole.model"), \
            f"stopped after row {written[-1]}"


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_kernel_perceptron_resumes_its_expansion_in_the_order_it_sums(tmp_path):
    """Stopped after epoch k and resumed, KernelPerceptron.fit holds at every later epoch the
    expansion of the uninterrupted fit: coefficients, counts and each problem's support set
    in the order its rows joined (the order the scores sum in, so the bits of a near tie)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.digitize(X[:, 0] + 0.8 * rng.normal(size=40), [-0.5, 0.5])

    def expansions(k=None, resume=False):
        writer = Checkpointer(tmp_path / "kp.checkpoint", 1, source={}, resume=resume)
        seen = {}

        def epoch_done(est, epochs, rng, position=None):
            t = est._training
            seen[epochs] = [a.copy() for a in (t.coef, t.alpha, t.n_support)] + [
                t.support[j, : t.n_support[j, 0]].copy() for j in range(3)]
            Checkpointer.epoch_done(writer, est, epochs, rng, position)
            if epochs == k:
                raise _Killed

        writer.epoch_done = epoch_done
        with checkpointing(writer):
            KernelPerceptron(max_iter=6, random_state=3).fit(X, y)
        return seen

    whole = expansions()
    assert len(whole) == 5
    for k in (1, 3):
        with pytest.raises(_Killed):
            expansions(k)
        resumed = expansions(resume=True)
        assert sorted(resumed) == list(range(k + 1, 6))
        for epoch, arrays in resumed.items():
            for got, want in zip(arrays, whole[epoch], strict=True):
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("classes, n_jobs", [(2, None), (3, 2)])
def test_logistic_sgd_stopped_after_any_epoch_resumes_bit_for_bit(tmp_path, classes, n_jobs):
    """LogisticRegression(solver="sgd") with example weights (zeros among them) and class
    weights, stopped after each epoch k in turn and resumed from its checkpoint: the model
    file of the uninterrupted fit, every entry."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3))
    y = np.digitize(X[:, 0] + 0.8 * rng.normal(size=30), [-0.5, 0.5][: classes - 1])
    w = rng.choice([0.0, 0.5, 1.0, 2.0], size=30)

    def fit():
        return LogisticRegression(solver="sgd", max_iter=5, random_state=7, n_jobs=n_jobs,
                                  class_weight="balanced").fit(X, y, sample_weight=w)

    save(fit(), tmp_path / "whole.model")
    path = tmp_path / "lr.checkpoint"
    for k in range(1, 5):
        writer = Checkpointer(path, 1, source={})

        def epoch_done(est, epochs, rng, position=None, writer=writer, k=k):
            Checkpointer.epoch_done(writer, est, epochs, rng, position)
            if epochs == k:
                raise _Killed

        writer.epoch_done = epoch_done
        with checkpointing(writer), pytest.raises(_Killed):
            fit()
        with checkpointing(Checkpointer(path, 1, source={}, resume=True)):
            save(fit(), tmp_path / f"{k}.model")
        assert _entries(tmp_path / f"{k}.model") == _entries(tmp_path / "whole.model"), k


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", [
    lambda: KernelPerceptron(max_iter=4, random_state=3),
    lambda: KernelPegasosSVC(lam=0.01, max_iter=4, random_state=3),
], ids=["kernel-perceptron", "kernel-pegasos"])
def test_a_kernel_checkpoint_is_checked(tmp_path, make):
    """A kernel learner's checkpoint holds its expansion as arrays that the model-file schema
    checks (a crafted one is refused); one of a fit on other rows is refused on resume."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.digitize(X[:, 0] + 0.8 * rng.normal(size=30), [-0.5, 0.5])
    path = tmp_path / "k.checkpoint"
    writer = Checkpointer(path, 1, source={})

    def epoch_done(est, epochs, rng, position=None):
        Checkpointer.epoch_done(writer, est, epochs, rng, position)
        raise _Killed

    writer.epoch_done = epoch_done
    with checkpointing(writer), pytest.raises(_Killed):
        make().fit(X, y)
    est = load(path)
    if isinstance(est, KernelPerceptron):
        assert est._support_order.shape == est.dual_coef_.shape
        est._support_order[0] = np.where(est._support_order[0] >= 0, 7, -1)
        problem = r"_support_order: row 0 must rank the support vectors with a non-zero"
    else:
        assert est._v.shape == est._u.shape == (3, 30) and est._scalars.shape == (3, 6)
        del est._u
        problem = r"_u: is missing, while _v, _scalars are stored"
    with pytest.raises(ValueError, match=problem):
        save(est, tmp_path / "crafted")
    with checkpointing(Checkpointer(path, 1, source={}, resume=True)), \
            pytest.raises(ValueError, match=r"the checkpoint holds the state of a fit on 30"
                                            r" rows, and this one has 20"):
        make().fit(X[:20], y[:20])


def test_svm_auto_checkpoints_small_dense_data_and_the_hard_margin_refuses(tmp_path, capsys):
    """solver='auto' solves the linear SVM with a finite C by DCD at every size, which
    checkpoints its epochs; the hard margin is the QP's, which keeps no checkpoints: the
    training stops at once instead of running without them."""
    data = tmp_path / "d.csv"
    data.write_text("1,0.5,1\n-1,-0.5,-1\n1,1,0.2\n-1,-1,0.1\n1,0.3,0.9\n-1,-0.2,-0.8\n")
    model = tmp_path / "m.model"
    status, err = _run(capsys, "train", data, "--algo", "svm", "--C", "inf", "-o", model,
                       "--checkpoint-every", "1")
    assert status == 1 and err.splitlines() == [
        f"halfspaces: error: {model}.checkpoint: the hard margin (C = inf) is solved by the"
        " QP, which writes no checkpoints; give a finite --C, or train without"
        " --checkpoint-every"]
    assert not model.exists()
    status, err = _run(capsys, "train", data, "--algo", "svm", "-o", model,
                       "--checkpoint-every", "1", "--quiet")
    assert status == 0, err


def test_a_checkpoint_crafted_for_other_columns_or_classes_is_refused_before_a_pass(tmp_path,
                                                                                    data):
    """A checkpoint whose arrays agree with each other (the schema holds) but not with the
    data: refused by name. Before, the perceptron's pass read past its 2-column coef_ with
    4-column rows and the process died of heap corruption (a subprocess here for that)."""
    model = tmp_path / "m.model"
    argv = [data, "--algo", "perceptron", "--max-iter", "6", "--random-state", "2", "-o",
            model, "--checkpoint-every", "1"]
    assert _train(*argv, kill_after=2).returncode == -signal.SIGKILL
    path = f"{model}.checkpoint"
    est, metadata = load(path, with_metadata=True)
    fewer = load(path)
    fewer.coef_, fewer.n_features_in_ = np.ascontiguousarray(fewer.coef_[:, :2]), 2
    other_classes = load(path)
    other_classes.classes_ = np.array([-1.0, 2.0])
    for crafted, message in (
            (fewer, "its features (n_features_in_ 2) are not the data's (4)"),
            (other_classes, "its classes (classes_ [-1.0, 2.0]) are not the data's"
                            " ([-1.0, 1.0])")):
        save(crafted, path, metadata=metadata)
        run = _train(*argv, "--resume")
        assert run.returncode == 1 and run.stderr.splitlines() == [
            f"halfspaces: error: {path}: {message}: the checkpoint is damaged; run without"
            " --resume to start the training afresh"], run.stderr
    save(est, path, metadata=metadata)  # the checkpoint as written resumes
    assert _train(*argv, "--resume").returncode == 0


# train, killed by SIGKILL inside its argv[1]-th checkpoint write: the temporary file is
# complete, not yet renamed over the checkpoint
_KILLED_INSIDE_CHECKPOINT = """
import os, signal, sys
real, count, kill_at = os.replace, [0], int(sys.argv[1])

def replace(src, dst, *args, **kwargs):
    if str(dst).endswith(".checkpoint"):
        count[0] += 1
        if count[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)

os.replace = replace
from halfspaces.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _temporaries(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".halfspaces-tmp"))


@pytest.mark.parametrize("then", [[], ["--checkpoint-every", "1", "--resume"]])
def test_a_kill_inside_a_checkpoint_write_leaves_no_temporary_after_the_next_run(
        tmp_path, data, then):
    """Killed inside the write of checkpoint 1 (none complete) or 3: the next run, a plain
    train or the resume, completes and removes the killed writer's temporary file."""
    model = tmp_path / "m.model"
    argv = ["train", str(data), "--algo", "perceptron", "--max-iter", "5", "--random-state",
            "1", "-o", str(model), "--quiet"]
    kill_at = 3 if then else 1
    killed = subprocess.run([sys.executable, "-c", _KILLED_INSIDE_CHECKPOINT, str(kill_at),
                             *argv, "--checkpoint-every", "1"], capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(_temporaries(tmp_path)) == 1
    done = subprocess.run([sys.executable, "-m", "halfspaces", *argv, *then],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _temporaries(tmp_path) == [] and not (tmp_path / "m.model.checkpoint").exists()
    whole = tmp_path / "whole.model"
    assert main([*argv[:-3], "-o", str(whole), "--quiet"]) == 0
    assert _entries(model) == _entries(whole)


def test_resume_refuses_a_data_file_replaced_with_the_same_size_and_time(tmp_path, data,
                                                                        capsys):
    """cp -p puts other rows in place with the old size and modification time (the same
    inode): the checkpoint's fingerprint of the file (ctime, a content sample) tells."""
    path = tmp_path / "d.svm"
    path.write_bytes(data.read_bytes())
    model = tmp_path / "m.model"
    argv = ["train", path, "--algo", "perceptron", "--max-iter", "3", "--random-state", "1",
            "-o", model, "--quiet"]
    assert _train(*argv[1:], "--checkpoint-every", "1", kill_after=1).returncode == -9
    old = os.stat(path)
    other = tmp_path / "other.svm"  # the rows in reverse order: the same size
    other.write_bytes(b"\n".join(reversed(path.read_bytes().rstrip(b"\n").split(b"\n")))
                      + b"\n")
    os.utime(other, ns=(old.st_atime_ns, old.st_mtime_ns))
    subprocess.run(["cp", "-p", str(other), str(path)], check=True)
    now = os.stat(path)
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (old.st_size, old.st_mtime_ns,
                                                          old.st_ino)
    status, err = _run(capsys, *argv, "--checkpoint-every", "1", "--resume")
    assert status == 1 and f"{path} is not the file it was written for (" in err
    assert "it was rewritten or replaced since" in err

