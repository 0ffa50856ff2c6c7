"""Nothing lost on the command line: a model file replaced atomically, with no temporary file
left behind by a run killed while saving (SIGTERM: removed at once; kill -9: by the next
write)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

import halfspaces
from halfspaces.datasets import dump_svmlight, make_separable

# train, with the model's save killed by a signal after half of the file is written
_KILLED_WHILE_SAVING = """
import contextlib, os, signal, sys
import halfspaces.persistence as persistence
real = persistence.atomic_write

@contextlib.contextmanager
def dying(path, **kw):
    with real(path, **kw) as f:
        f.write(b"half of a model")
        f.flush()
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        yield f

persistence.atomic_write = dying
from halfspaces.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.fixture
def data(tmp_path):
    X, y = make_separable(n_samples=30, n_features=3, margin=0.2, random_state=0)
    path = tmp_path / "train.svm"
    dump_svmlight(X, y, path)
    return path


def _train_killed(signame, data, model):
    return subprocess.run([sys.executable, "-c", _KILLED_WHILE_SAVING, signame, "train",
                           str(data), "--algo", "perceptron", "--quiet", "-o", str(model)],
                          capture_output=True, text=True)


def _train(*argv):
    return subprocess.run([sys.executable, "-m", "halfspaces", "train", *map(str, argv)],
                          capture_output=True, text=True)


def test_sigterm_while_saving_keeps_the_old_model_and_leaves_no_temporary(tmp_path, data):
    model = tmp_path / "m.model"
    assert _train(data, "--algo", "perceptron", "--quiet", "-o", model).returncode == 0
    old = model.read_bytes()
    done = _train_killed("SIGTERM", data, model)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert model.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == ["m.model", "train.svm"]


def test_kill_9_while_saving_leaves_a_temporary_the_next_train_removes(tmp_path, data):
    model = tmp_path / "m.model"
    assert _train(data, "--algo", "perceptron", "--quiet", "-o", model).returncode == 0
    old = model.read_bytes()
    assert _train_killed("SIGKILL", data, model).returncode == -signal.SIGKILL
    assert model.read_bytes() == old
    left = [f for f in os.listdir(tmp_path) if f not in ("m.model", "train.svm")]
    assert len(left) == 1 and left[0].startswith(".m.model.")
    assert _train(data, "--algo", "perceptron", "--quiet", "-o", model).returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["m.model", "train.svm"]
    assert halfspaces.load(model).n_features_in_ == 3
