"""The README's quickstarts run as written, from an empty folder (issue 13).

Each block is taken from README.md verbatim and run in a new empty directory: the command-line
block line by line by the installed ``halfspaces`` command (with ``bash -e``), the Python block
as a doctest. They run the compiled kernels as a user does, also when the suite itself runs
with NUMBA_DISABLE_JIT=1: interpreted, the full a9a set would take many minutes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
ENV = {key: value for key, value in os.environ.items() if key != "NUMBA_DISABLE_JIT"}
ENV.update(MPLBACKEND="Agg", PATH=os.path.dirname(sys.executable) + os.pathsep
           + os.environ.get("PATH", ""))


def _block(section: str, language: str) -> str:
    text = README.read_text(encoding="utf-8")
    body = re.search(rf"## {section}\n(.*?)\n## ", text, re.S).group(1)
    return re.search(rf"```{language}\n(.*?)```", body, re.S).group(1)


def test_cli_quickstart_runs_verbatim_in_an_empty_folder(tmp_path):
    script = _block("Command-line quickstart", "bash")
    # The first line trains on a bundled set by its name: no file to fetch or write first.
    assert script.splitlines()[0].startswith("halfspaces train a9a ")
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    assert len((tmp_path / "predictions.txt").read_text().split()) == 16281
    assert (tmp_path / "boundary.png").stat().st_size > 1000
    assert "linearly separable" in done.stdout and "trained PegasosSVC" in done.stdout
    assert not (tmp_path / "a9a").exists() and not (tmp_path / "sms").exists()


def test_cli_practitioner_block_runs_verbatim_in_an_empty_folder(tmp_path):
    text = README.read_text(encoding="utf-8")
    body = re.search(r"### Choosing C, scaling, text features\n(.*?)\n## ", text, re.S).group(1)
    script = re.search(r"```bash\n(.*?)```", body, re.S).group(1)
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    for name in ("train.svm", "test.svm", "heart.model", "scaled.model", "bigrams.model",
                 "ratings.model", "reviews.tsv", "reviews.model"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert "<- best" in done.stdout and "hash collisions" in done.stdout


def test_python_quickstart_runs_verbatim_in_an_empty_folder(tmp_path):
    block = _block("Python quickstart", "python")
    runner = ("import doctest, sys\n"
              "test = doctest.DocTestParser().get_doctest(sys.stdin.read(), {}, 'README',"
              " 'README.md', 0)\n"
              "runner = doctest.DocTestRunner()\n"
              "runner.run(test)\n"
              "sys.exit(1 if runner.failures or not runner.tries else 0)\n")
    done = subprocess.run([sys.executable, "-c", runner], input=block, cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []  # it writes nothing in the folder it runs in
