"""The command line's plan: built once from the arguments, the estimator built once, and the
parsed arguments (an argparse Namespace) reaching no function below the plan builders."""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import halfspaces
from halfspaces import PegasosSVC, Perceptron, WeightedMajorityClassifier, load
from halfspaces.cli import main
from halfspaces.experts import make_hypotheses

CLI = Path(halfspaces.__file__).parent / "cli"

# The functions that take the parsed arguments: the parser's, main's, the plan builders,
# and the commands not yet run from a plan (each of their helpers is listed).
PARSER = {("__init__", "_report"), ("_parser", "_cmd_data"), ("_parser", "_cmd_playground"),
          ("_records", "refuse_overwriting_inputs")}
BUILDERS = {("_plan", name) for name in ("data_source", "reporting", "estimator_spec",
                                         "train_plan", "_check_features", "model_plan",
                                         "bound_plan", "play_plan", "cv_plan",
                                         "split_plan", "_split_outputs", "plot_plan")}
PLANNED = {("_models", "cmd_train"), ("_models", "cmd_predict"), ("_models", "cmd_evaluate"),
           ("_cv", "cmd_cv"), ("_theory", "cmd_bound"), ("_parser", "_cmd_play"),
           ("_split", "cmd_split"), ("_figures", "cmd_plot")}
NOT_YET = {("_course", "cmd_shatter"), ("_data", "cmd_data"), ("_playground", "cmd_playground"),
           ("_data", "_text_per_class"), ("_figures", "cmd_demo")}


def _takes_namespace(function: ast.FunctionDef) -> bool:
    """A parameter named ``args`` or annotated ``argparse.Namespace``."""
    params = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
    return any(p.arg == "args" or (p.annotation is not None
                                   and "Namespace" in ast.unparse(p.annotation))
               for p in params)


@functools.cache
def _functions() -> tuple:
    """``(module, function node)`` of every function in the command line's modules."""
    return tuple((path.stem, node) for path in sorted(CLI.glob("*.py"))
                 for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def test_only_the_parser_and_plan_builders_take_the_parsed_arguments():
    takers = {(module, f.name) for module, f in _functions() if _takes_namespace(f)}
    assert takers - {("__init__", "main")} == PARSER | BUILDERS | PLANNED | NOT_YET


def test_a_planned_command_hands_its_arguments_to_plan_builders_only():
    """``train``, ``predict``, ``evaluate``, ``cv``, ``bound``, ``play``: ``args`` appears
    only as the argument of a ``_plan`` builder."""
    functions = {(module, f.name): f for module, f in _functions()}
    for key in PLANNED:
        function = functions[key]
        uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == "args"]
        handed = [arg for call in ast.walk(function) if isinstance(call, ast.Call)
                  and ast.unparse(call.func).startswith("_plan.")
                  for arg in call.args if isinstance(arg, ast.Name) and arg.id == "args"]
        assert uses and len(uses) == len(handed), key


def _counting(monkeypatch, cls):
    """The instances of ``cls`` the command line makes (a model file's check that it reads
    back what it saved makes one more, in the library)."""
    made = []
    init = cls.__init__

    @functools.wraps(init)
    def counted(self, *args, **kwargs):
        if Path(sys._getframe(1).f_code.co_filename).parent == CLI:
            made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", counted)
    return made


def _svmlight(path, X, y):
    lines = [f"{label:g} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row))
             for row, label in zip(X, y, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _data(tmp_path, n=30):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(n, 3)), 3)
    y = np.where(X @ np.array([1.0, -2.0, 0.5]) + 0.1 > 0, 1.0, -1.0)
    return X, y, _svmlight(tmp_path / "d.svm", X, y)


@pytest.mark.parametrize("extra", [
    [],  # in memory (rows shuffled)
    ["--no-shuffle"],  # streamed
    ["--no-shuffle", "--checkpoint-every", "1"],  # streamed, checkpointed
    ["--checkpoint-every", "1"],  # in memory, checkpointed
])
def test_train_builds_the_perceptron_once(tmp_path, monkeypatch, capsys, extra):
    X, y, data = _data(tmp_path)
    made = _counting(monkeypatch, Perceptron)
    model = tmp_path / "m.npz"
    code = main(["train", str(data), "--algo", "perceptron", "--max-iter", "3",
                 "--random-state", "2", "-o", str(model), *extra])
    assert code == 0, capsys.readouterr().err
    assert len(made) == 1
    monkeypatch.undo()
    shuffle = "--no-shuffle" not in extra
    expected = Perceptron(max_iter=3, random_state=2, shuffle=shuffle).fit(X, y)
    saved = load(model)
    np.testing.assert_array_equal(saved.coef_, expected.coef_)
    np.testing.assert_array_equal(saved.intercept_, expected.intercept_)


def test_train_builds_pegasos_once_with_its_checks(tmp_path, monkeypatch, capsys):
    """The checkpoint checks read the estimator that is trained, not one of their own."""
    X, y, data = _data(tmp_path)
    made = _counting(monkeypatch, PegasosSVC)
    model = tmp_path / "m.npz"
    assert main(["train", str(data), "--algo", "pegasos", "--lam", "0.1", "--max-iter", "4",
                 "--random-state", "1", "--checkpoint-every", "2", "-o", str(model)]) == 0, \
        capsys.readouterr().err
    assert len(made) == 1
    monkeypatch.undo()
    expected = PegasosSVC(lam=0.1, max_iter=4, random_state=1).fit(X, y)
    np.testing.assert_array_equal(load(model).coef_, expected.coef_)


def test_train_builds_an_expert_algorithm_once_from_the_data(tmp_path, monkeypatch, capsys):
    X, y, data = _data(tmp_path)
    made = _counting(monkeypatch, WeightedMajorityClassifier)
    model = tmp_path / "m.npz"
    assert main(["train", str(data), "--algo", "weighted-majority", "--n-hypotheses", "64",
                 "--random-state", "3", "-o", str(model)]) == 0, capsys.readouterr().err
    assert len(made) == 1
    monkeypatch.undo()
    expected = WeightedMajorityClassifier(**make_hypotheses(X, "random", 64, 3)._asdict(),
                                          random_state=3).fit(X, y)
    np.testing.assert_array_equal(load(model).predict(X), expected.predict(X))


def test_the_plan_is_checked_before_any_work(tmp_path, monkeypatch, capsys):
    """A parameter the algorithm does not take is refused before the data is read."""
    from halfspaces.cli import _models

    monkeypatch.setattr(_models, "read_args_data",
                        lambda *a, **k: pytest.fail("read the data"))
    _, _, data = _data(tmp_path)
    code = main(["train", str(data), "--algo", "perceptron", "--set", "lam_bda=1", "-o",
                 str(tmp_path / "m.npz")])
    assert code == 1
    assert "--set lam_bda=... does not apply to --algo perceptron" in capsys.readouterr().err
