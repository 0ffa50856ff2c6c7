"""What a model file may hold: one schema per class that :mod:`halfspaces.persistence` loads.

A model file is data that anyone can write. Its SHA-256 checksum detects accidental damage,
not tampering (anyone can recompute it), so what keeps a crafted file away from the compiled
passes is this check. For every class of ``persistence.REGISTRY`` a :class:`~._specs.Schema`
declares

- each constructor parameter: its type and the values allowed. A halfspaces estimator
  declares them once, in its class table ``_parameter_constraints`` (which also checks
  them at fit time); a file may hold only the data among them (:meth:`~._specs.Spec.stored`:
  never a callable). The schemas of scikit-learn's text classes list them
  (:mod:`halfspaces._schema_text`);
- each attribute that a fitted model (and ``partial_fit``) keeps: type and dtype, shape in
  named dimensions, value ranges (finite weights, non-negative counts, indices in range)
  (:mod:`halfspaces._schema_estimators`);
- rules across attributes (support indices below the rows seen, the voted perceptron's
  pointers, a vocabulary that maps onto ``0..n-1``, a Pipeline whose steps agree on the
  number of features, ...).

Anything not declared is refused. :func:`check_structure` checks the metadata tree of a
file, whose dtypes and shapes match the ``.npy`` headers, before any array is decompressed;
:func:`check_values` checks the decoded parameters and attributes of each object before it
is built.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._file_specs import Est
from ._params import TABLES
from ._schema_estimators import ESTIMATOR_SCHEMAS
from ._schema_text import TEXT_SCHEMAS
from ._specs import Schema, SchemaError, Spec, _Dims

__all__ = ["REGISTRY", "SchemaError", "SCHEMAS", "SINCE", "check_structure", "check_values",
           "format_version", "label", "param_specs"]

SCHEMAS: dict[str, Schema] = {**ESTIMATOR_SCHEMAS, **TEXT_SCHEMAS}

#: Every class a model file may name, mapped to the module that defines it. Loading
#: resolves names through this table only (and checks each against its schema here).
REGISTRY: dict[str, str] = {
    "Perceptron": "halfspaces.linear.perceptron",
    "AveragedPerceptron": "halfspaces.linear.averaged_perceptron",
    "VotedPerceptron": "halfspaces.linear.voted_perceptron",
    "PegasosSVC": "halfspaces.linear.pegasos",
    "SVC": "halfspaces.linear.svm",
    "LogisticRegression": "halfspaces.linear.logistic",
    "LPSeparator": "halfspaces.linear.lp",
    "KernelPerceptron": "halfspaces.kernel.kernel_perceptron",
    "KernelPegasosSVC": "halfspaces.kernel.kernel_pegasos",
    "HalvingClassifier": "halfspaces.experts.halving",
    "WeightedMajorityClassifier": "halfspaces.experts.weighted_majority",
    "CoordinateStump": "halfspaces.experts._hypotheses",
    "Pipeline": "sklearn.pipeline",
    "HashingVectorizer": "sklearn.feature_extraction.text",
    "TfidfVectorizer": "sklearn.feature_extraction.text",
    "TfidfTransformer": "sklearn.feature_extraction.text",
    "CountVectorizer": "sklearn.feature_extraction.text",
    "StandardScaler": "sklearn.preprocessing",
    "MaxAbsScaler": "sklearn.preprocessing",
    "MinMaxScaler": "sklearn.preprocessing",
}

#: The file format version that first holds each class (1 for those not listed): a file is
#: written with the lowest version that holds all its classes, so a halfspaces that predates
#: a class says to upgrade instead of naming an unknown class.
SINCE: dict[str, int] = {"StandardScaler": 2, "MaxAbsScaler": 2, "MinMaxScaler": 2}


def label(name: str, where: str) -> str:
    """How messages name an object: ``Perceptron``, or ``Pipeline.steps[1][1] (Perceptron)``."""
    return f"{where} ({name})" if where else name


def param_specs(name: str) -> dict[str, Spec]:
    """What a file may hold of each constructor parameter of the registered class ``name``:
    its schema's ``params``, else the class's own ``_parameter_constraints`` (for the linear
    models, from :mod:`halfspaces._params`, without importing the class's module)."""
    table = SCHEMAS[name].params
    if table is None:
        table = TABLES.get(name)
    if table is None:
        table = getattr(importlib.import_module(REGISTRY[name]), name)._parameter_constraints
    specs = {key: spec.stored() for key, spec in table.items()}
    return {key: spec for key, spec in specs.items() if spec is not None}


def format_version(node: Any) -> int:
    """The lowest file format version that holds every class named in the tree ``node``."""
    if isinstance(node, list):
        return max(map(format_version, node), default=1)
    if not isinstance(node, dict):
        return 1
    own = SINCE.get(node.get("__estimator__"), 1) if "__estimator__" in node else 1
    return max([own, *map(format_version, node.values())])


def _schema_of(node: Any, where: str) -> tuple[str, Schema, dict, dict]:
    name = node.get("__estimator__") if isinstance(node, dict) else None
    if not isinstance(name, str) or name not in SCHEMAS:
        raise SchemaError(where, f"unknown estimator {name!r}; a model file may only name one"
                                 f" of {', '.join(sorted(SCHEMAS))}. Refusing to import"
                                 " anything else.")
    params, attrs = node.get("params"), node.get("attrs")
    if not isinstance(params, dict) or not isinstance(attrs, dict):
        raise SchemaError(label(name, where), "the metadata's estimator entry is malformed.")
    return name, SCHEMAS[name], params, attrs


def _unknown(name: str, specs: dict, schema: Schema, params: dict, attrs: dict,
             here: str) -> None:
    for key in params:
        if key not in specs:
            raise SchemaError(f"{here}.{key}", f"is not a parameter of {name}.")
    for key in attrs:
        if key not in schema.attrs:
            raise SchemaError(f"{here}.{key}", f"is not an attribute that a saved {name}"
                                               " holds; a model file holds only the declared"
                                               " ones.")


def check_structure(node: dict, where: str = "") -> None:
    """Check an estimator node of a file's metadata (and those inside it) against the
    schemas, from the dtypes and shapes the metadata records: before any array is read."""
    name, schema, params, attrs = _schema_of(node, where)
    here = label(name, where)
    specs = param_specs(name)
    _unknown(name, specs, schema, params, attrs, here)
    dims = _Dims()
    for values, table in ((params, specs), (attrs, schema.attrs)):
        for key, spec in table.items():
            if key in values:
                spec.structure(values[key], dims, f"{here}.{key}")


Est.check_nested = staticmethod(check_structure)


def check_values(name: str, params: dict, attrs: dict, where: str = "") -> None:
    """Check the decoded parameters and attributes of one object before it is built."""
    schema = SCHEMAS[name]
    here = label(name, where)
    specs = param_specs(name)
    _unknown(name, specs, schema, params, attrs, here)
    if attrs or schema.required_always:
        for key in schema.required:
            if key not in attrs:
                raise SchemaError(f"{here}.{key}", f"is missing: every fitted {name} has it.")
    dims = _Dims()
    for values, table in ((params, specs), (attrs, schema.attrs)):
        for key, spec in table.items():
            if key in values:
                spec.check(values[key], dims, f"{here}.{key}")
    for rule in schema.rules:
        rule(params, attrs, here)
