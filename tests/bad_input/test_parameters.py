"""Every parameter of every estimator, out of range: cases generated from the class tables.

Each estimator declares its parameters in ``_parameter_constraints`` ({name: Spec}); the
values below are derived from each spec (an int below its lowest value, a float just outside
its bounds, nan, inf where not allowed, a wrong type, a name that is not one of the choices),
so a new parameter gets its cases without editing this file. Each value is checked to break
the spec on its own (``spec.check`` raises), independently of the estimator, and then
``fit`` must raise a ValueError that names the estimator and the parameter, shows the value
received, and says what the parameter must be (and, where the table gives one, a hint).
The command line's spelling of the same errors (``--lam``, ``--kernel``) is checked on a few
options at the end.
"""

from __future__ import annotations

import contextlib
import math
import re

import numpy as np
import pytest
from bad_input_data import ESTIMATORS, Y
from bad_input_data import X as X_GOOD

from halfspaces import cli
from halfspaces._file_specs import Seed
from halfspaces._specs import (
    Bool,
    ByRule,
    Callable,
    Choice,
    Float,
    Int,
    OneOf,
    SchemaError,
    Str,
    _Dims,
)


def _candidates(spec) -> list:
    """Values near or outside the edges of ``spec`` (some may still be valid)."""
    if isinstance(spec, OneOf):
        return [v for alt in spec.alternatives for v in _candidates(alt)] + ["no-such-value"]
    if isinstance(spec, Bool):
        return ["yes", 1]
    if isinstance(spec, Int):
        out = [1.5, "3"]
        if spec.low is not None:
            out.append(spec.low - 1)
        if spec.high is not None:
            out.append(spec.high + 1)
        return out
    if isinstance(spec, Float):
        out = [math.nan, "0.1", None]
        if not spec.allow_inf:
            out.append(math.inf)
        if spec.low is not None:
            out.append(spec.low if spec.low_open else spec.low - 0.5)
            out.append(-math.inf)
        if spec.high is not None:
            out.append(spec.high if spec.high_open else spec.high + 0.5)
        return out
    if isinstance(spec, Choice):
        return ["no-such-value", 3.5]
    if isinstance(spec, Seed):
        return [-1, 2**32, "seed"]
    if isinstance(spec, (Str, Callable)):
        return [5]
    return []


def _breaks(spec, value) -> bool:
    try:
        spec.check(value, _Dims(), "p")
    except SchemaError:
        return True
    return False


def _bad_values(spec) -> list:
    """The candidates that ``spec`` refuses, without repeats (nan counted once)."""
    out, seen = [], set()
    for value in _candidates(spec):
        key = (type(value).__name__, repr(value))
        if key not in seen and _breaks(spec, value):
            seen.add(key)
            out.append(value)
    return out


def _cases():
    for name, make in ESTIMATORS.items():
        cls = type(make())
        for param, spec in cls._parameter_constraints.items():
            if isinstance(spec, ByRule):  # checked by a rule with other parameters (below)
                continue
            for value in _bad_values(spec):
                yield pytest.param(name, param, value, spec, id=f"{name}-{param}={value!r}")


PARAMETER_CASES = list(_cases())


@pytest.mark.parametrize(("name", "param", "value", "spec"), PARAMETER_CASES)
def test_out_of_range_parameter(name, param, value, spec):
    est = ESTIMATORS[name]().set_params(**{param: value})
    with pytest.raises(ValueError) as info:
        est.fit(X_GOOD, Y)
    message = str(info.value)
    assert message.startswith(f"{name}: '{param}' must be "), message  # who and what
    shown = re.escape(repr(value)) if not isinstance(value, float) or math.isfinite(value) \
        else ("nan" if math.isnan(value) else r"-?inf")
    assert re.search(rf"; got {shown}", message), message  # the value received
    if spec.hint:
        assert spec.hint in message, message  # how to fix it


def test_every_estimator_and_every_checkable_parameter_has_a_case():
    covered = {(p.values[0], p.values[1]) for p in PARAMETER_CASES}
    for name, make in ESTIMATORS.items():
        for param, spec in type(make())._parameter_constraints.items():
            if not isinstance(spec, ByRule):
                assert (name, param) in covered, (name, param)


# Parameters checked by a rule (together with others), and rules across parameters.
RULE_CASES = [
    ("HalvingClassifier", {"hypotheses": np.ones((2, 5))}, r"hypotheses",
     r"5|features|columns", r"."),
    ("HalvingClassifier", {"hypotheses": [[np.nan, 1.0, 0.0]]}, r"hypotheses",
     r"nan|finite", r"."),
    ("WeightedMajorityClassifier", {"offsets": [0.0]}, r"offsets", r"one offset|6", r"."),
    ("SVC", {"C": 2.0, "lam": 0.1}, r"C.*lam|lam.*C", r"both|either|not both", r"."),
    ("SVC", {"solver": "dcd", "kernel": "rbf"}, r"dcd", r"linear|kernel", r"."),
]


@pytest.mark.parametrize(("name", "params", "what", "where", "fix"), RULE_CASES)
def test_parameter_rule(name, params, what, where, fix):
    est = ESTIMATORS[name]().set_params(**params)
    with pytest.raises(ValueError) as info:
        est.fit(X_GOOD, Y)
    message = str(info.value)
    assert message.startswith(name), message
    for part in (what, where, fix):
        assert re.search(part, message), (part, message)


# The command line: one line on stderr naming the option, exit status 1 (2 for argparse).
CLI_PARAMETER_CASES = [
    (["--algo", "pegasos", "--lam", "-1"], 1, r"option --lam: 'lam' must be a float > 0",
     r"got -1\.0"),
    (["--algo", "svm", "--C", "0"], 1, r"option --C: 'C' must be a float > 0", r"got 0\.0"),
    (["--algo", "svm", "--kernel", "sigmoid"], 1, r"option --kernel: 'kernel' must be",
     r"got 'sigmoid'"),
    (["--algo", "svm", "--solver", "newton"], 1, r"option --solver: 'solver' must be one of",
     r"got 'newton'"),
    (["--algo", "perceptron", "--max-iter", "0"], 1, r"option --max-iter: 'max_iter' must be"
     r" an int >= 1", r"got 0\. Try --max-iter 100"),
    (["--algo", "svm", "--degree", "-2", "--kernel", "poly"], 1, r"option --degree",
     r"got -2"),
    (["--algo", "weighted-majority", "--beta", "1.5"], 1, r"option --beta: 'beta' must be",
     r"got 1\.5"),
    (["--algo", "svm", "--gamma", "-1", "--kernel", "rbf"], 1, r"option --gamma", r"got -1"),
    (["--algo", "perceptron", "--max-iter", "many"], 2, r"--max-iter: invalid int value",
     r"'many'"),
    (["--algo", "nonesuch"], 2, r"--algo: invalid choice: 'nonesuch'", r"choose from"),
    (["--algo", "pegasos", "--set", "batch_size=0"], 1, r"'batch_size' must be an int >= 1",
     r"got 0"),
    (["--algo", "pegasos", "--set", "learning_rate=fast"], 1, r"'learning_rate' must be one of",
     r"got 'fast'"),
]


@pytest.mark.parametrize(("options", "status", "what", "got"), CLI_PARAMETER_CASES,
                         ids=[" ".join(c[0]) for c in CLI_PARAMETER_CASES])
def test_out_of_range_option_on_the_command_line(tmp_path, capsys, options, status, what, got):
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{2 * y - 1} 1:{x[0]} 2:{x[1]} 3:{x[2]}\n"
                            for x, y in zip(X_GOOD, Y, strict=True)))
    with pytest.raises(SystemExit) if status == 2 else contextlib.nullcontext() as exited:
        code = cli.main(["train", str(data), "-o", str(tmp_path / "m.hs"), "-q", *options])
    if status == 2:
        code = exited.value.code
    err = capsys.readouterr().err
    assert code == status, err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    assert re.search(what, lines[0]) and re.search(got, lines[0]), lines[0]
    assert not (tmp_path / "m.hs").exists()

