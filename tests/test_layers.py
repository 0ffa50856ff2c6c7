"""The package's layering (docs/design.md), read from the source: no import cycle, each
module imports only from its own layer and those below, an import inside a function only
where the module says why, and no module reaching into another class's private state."""

from __future__ import annotations

import ast
import fnmatch
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: The layers, bottom first: (name, module patterns). A module belongs to the layer of the
#: longest pattern that matches it; a package's ``__init__`` is its package's name.
LAYERS = [
    ("core", ["halfspaces", "halfspaces.exceptions", "halfspaces._labels", "halfspaces._random",
              "halfspaces._csr", "halfspaces._simd", "halfspaces._primitives",
              "halfspaces._dispatch", "halfspaces._lazy", "halfspaces._progress",
              "halfspaces._memory", "halfspaces.losses", "halfspaces._specs",
              "halfspaces._validation", "halfspaces._predict_linear", "halfspaces.datasets",
              "halfspaces.datasets._io", "halfspaces.datasets._fingerprint",
              "halfspaces.datasets._numbers", "halfspaces.linear", "halfspaces.kernel",
              "halfspaces.experts", "halfspaces.solvers", "halfspaces.theory"]),
    ("readers", ["halfspaces.datasets.*"]),
    ("parameter tables", ["halfspaces._early_stopping", "halfspaces._parallel",
                          "halfspaces._weights", "halfspaces.kernels", "halfspaces._file_specs",
                          "halfspaces._params"]),
    ("model I/O", ["halfspaces._schema*", "halfspaces._model_codec", "halfspaces.persistence"]),
    ("estimator base", ["halfspaces._base", "halfspaces._checkpoint", "halfspaces._online",
                        "halfspaces._streaming", "halfspaces.calibration"]),
    ("compiled passes and solvers", ["halfspaces.linear._pegasos_*",
                                     "halfspaces.linear._multinomial", "halfspaces.solvers.*",
                                     "halfspaces.theory.*", "halfspaces.metrics",
                                     "halfspaces.adversaries"]),
    ("estimators", ["halfspaces.linear.*", "halfspaces.kernel.*", "halfspaces.experts.*",
                    "halfspaces.online", "halfspaces._rounds", "halfspaces.model_selection"]),
    ("streaming and pictures", ["halfspaces.datasets._adapters", "halfspaces.datasets.stream",
                                "halfspaces.datasets.cache", "halfspaces.plotting",
                                "halfspaces.plotting.*"]),
    ("dask", ["halfspaces.dask", "halfspaces.dask.*"]),
    ("cli", ["halfspaces.cli", "halfspaces.cli.*", "halfspaces.playground",
             "halfspaces.playground.*", "halfspaces.demo", "halfspaces.demo.*",
             "halfspaces.__main__"]),
]

#: Modules that import package modules inside functions, and why (an import that would
#: close a cycle is refused by the cycle test whatever its reason).
LAZY = {
    "halfspaces.cli*": "start-up: `halfspaces --help` imports neither scikit-learn, SciPy nor"
                       " numba; a command imports its estimators and readers when it runs",
    "halfspaces.playground*": "the page's actions load the learners they run",
    "halfspaces.demo*": "each case loads its learners",
    "halfspaces.plotting*": "each figure loads the estimators it draws",
    "halfspaces.dask*": "dask is optional; its tasks import the estimators on the workers",
    "halfspaces.datasets*": "a reader loads the format it reads; fit_stream the estimators",
    "halfspaces._base": "save() loads persistence: importing an estimator reads no schema",
    "halfspaces._primitives": "the hand-written vector code is optional: a numba that does not"
                              " compile it gets the portable code",
    "halfspaces._checkpoint": "persistence only when a checkpoint is written or read",
    "halfspaces._validation": "numba's CSR checks only on sparse input",
    "halfspaces.metrics": "the margins (scikit-learn) and losses (SciPy) when asked for",
    "halfspaces.model_selection": "SVC (numba's solvers) when a search runs",
    "halfspaces.theory*": "the margins (scikit-learn) and the QP (SciPy) when computed",
}


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for path in (SRC / "halfspaces").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        package = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if package else parts)] = (path, package)
    return mods


MODULES = _modules()


def _targets(module: str, package: bool, node) -> list[str]:
    """The package modules an import statement of ``module`` loads."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name.split(".")[0] == "halfspaces"]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: None if package else -1]
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        if base.split(".")[0] != "halfspaces":
            return []
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                 for a in node.names]
    found = []
    for name in names:
        while name not in MODULES:
            name = name.rsplit(".", 1)[0]
        parts = name.split(".")  # importing a.b.c runs a and a.b first
        found += [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return [name for name in found if name != module and not module.startswith(name + ".")]


def _edges(module: str, package: bool, node, in_function: bool, edges: list) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and ast.unparse(child.test).endswith("TYPE_CHECKING"):
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            edges.extend((t, in_function, child.lineno)
                         for t in _targets(module, package, child))
        inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                  ast.Lambda))
        _edges(module, package, child, inner, edges)


def _imports() -> dict[str, list[tuple[str, bool, int]]]:
    """``{module: [(imported module, inside a function, line)]}``, TYPE_CHECKING left out."""
    graph = {}
    for module, (path, package) in MODULES.items():
        graph[module] = []
        _edges(module, package, ast.parse(path.read_text()), False, graph[module])
    return graph


GRAPH = _imports()


def _layer(module: str) -> int:
    found = [(len(p), k) for k, (_, patterns) in enumerate(LAYERS) for p in patterns
             if fnmatch.fnmatchcase(module, p)]
    assert found, f"{module} is in no layer of LAYERS"
    return max(found)[1]


def test_the_parser_of_imports_sees_both_kinds():
    """The graph holds what the source says: a module-level import and one inside a
    function, with the packages that importing a submodule runs."""
    edges = {(t, lazy) for t, lazy, _ in GRAPH["halfspaces.datasets._adapters"]}
    assert ("halfspaces._streaming", False) in edges
    assert any(lazy for _, lazy, _ in GRAPH["halfspaces._base"])
    assert ("halfspaces.datasets", False) in {(t, lazy) for t, lazy, _ in
                                              GRAPH["halfspaces.persistence"]}


def test_no_import_cycle():
    """Depth-first search over every import, module-level and inside functions: a module
    met again on the current path closes a cycle."""
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def walk(module, path):
        state[module] = 1
        for target, _, _ in GRAPH[module]:
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                walk(target, [*path, target])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            walk(module, [module])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_nothing_from_a_layer_above(module):
    mine = _layer(module)
    above = sorted({f"{target} (line {line}, layer {LAYERS[_layer(target)][0]!r})"
                    for target, _, line in GRAPH[module] if _layer(target) > mine})
    assert not above, f"{module} (layer {LAYERS[mine][0]!r}) imports " + ", ".join(above)


def test_imports_inside_functions_have_a_reason():
    lazy = sorted({m for m, edges in GRAPH.items() if any(inner for _, inner, _ in edges)})
    unexplained = [m for m in lazy if not any(fnmatch.fnmatchcase(m, p) and LAZY[p]
                                              for p in LAZY)]
    assert not unexplained, f"imports inside functions without a reason in LAZY: {unexplained}"
    stale = [p for p in LAZY if not any(fnmatch.fnmatchcase(m, p) for m in lazy)]
    assert not stale, f"LAZY names modules without an import inside a function: {stale}"


#: Private names any module may use on any object: the named tuples' API, and
#: scikit-learn's parameter validation that every estimator has.
PUBLIC_PRIVATE = {"_replace", "_asdict", "_fields", "_make", "_validate_params",
                  "_parameter_constraints"}

#: The remaining reads and writes of another object's state, ``(module, what)``, and why.
PRIVATE_ALLOWED = {
    ("halfspaces._base", "vars(estimator)"): "check_is_fitted: any attribute ending in _",
    ("halfspaces._model_codec", "vars(est)"): "a model file holds every attribute",
    ("halfspaces._model_codec", "vars(cls)"): "a class's own _persist_exclude",
    ("halfspaces.persistence", "encoder._array"): "the model codec's other half",
    ("halfspaces.linear._svc_crammer_singer", "svc._is_linear"): "SVC's Crammer-Singer half",
    ("halfspaces._early_stopping", "estimator._decision"):
        "the online learners' early stopping scores the held-out rows with their hook",
    ("halfspaces.online", "learner._play"): "the online game drives OnlineClassifier's rounds",
    ("halfspaces.online", "learner._prepare_online"): "the same, before the first round",
    ("halfspaces.cli._stream", "learner._widen"):
        "train --stream gives a learner the columns a later block brings",
}


@functools.cache
def _defined(module: str) -> frozenset[str]:
    """The private names a module defines: functions, classes, their attributes."""
    names = set()
    for node in ast.walk(TREES[module]):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return frozenset(n for n in names if n.startswith("_"))


@functools.cache
def _bases(module: str) -> frozenset[str]:
    """The package modules that define the base classes of this module's classes."""
    tree, imported = TREES[module], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                one = ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                found = _targets(module, MODULES[module][1], one)
                if found:  # the module that defines the name: the last one imported
                    imported[alias.asname or alias.name] = found[-1]
    return frozenset(imported[b.id] for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                     for b in node.bases if isinstance(b, ast.Name) and b.id in imported)


TREES = {m: ast.parse(path.read_text()) for m, (path, _) in MODULES.items()}


@functools.cache
def _own(module: str) -> frozenset[str]:
    """Private names of this module and of the modules of its classes' bases."""
    names, todo, seen = set(), [module], set()
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            names |= _defined(m)
            todo.extend(_bases(m))
    return frozenset(names)


def _reaches(module: str) -> list[str]:
    tree, own = TREES[module], _own(module)
    modules = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
               if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            owner = node.value
            root = owner
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in modules - {"self", "cls"}:
                continue  # np.random.mtrand._rand: a module's
            if isinstance(owner, ast.Name) and owner.id in ({"self", "cls"} | modules):
                continue
            if isinstance(owner, ast.Call) and ast.unparse(owner.func) == "super":
                continue
            if node.attr not in own and node.attr not in PUBLIC_PRIVATE:
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(args) > 1 \
                    and isinstance(args[1], ast.Constant) and str(args[1].value)[:1] == "_" \
                    and not str(args[1].value).startswith("__") \
                    and ast.unparse(args[0]) not in ("self", "cls") \
                    and args[1].value not in own | PUBLIC_PRIVATE:
                found.append(ast.unparse(node))
            if node.func.id == "vars" and args and ast.unparse(args[0]) not in ("self", "cls"):
                found.append(ast.unparse(node))
    return sorted({f for f in found if (module, f) not in PRIVATE_ALLOWED})


def test_the_private_state_check_finds_a_reach():
    """The check flags a private attribute of an object of another module's class."""
    tree = ast.parse("def f(est):\n    est._v[0] = 1\n    return vars(est)\n")
    TREES["halfspaces._probe"] = tree
    MODULES["halfspaces._probe"] = (Path("probe.py"), False)
    try:
        assert _reaches("halfspaces._probe") == ["est._v", "vars(est)"]
    finally:
        del TREES["halfspaces._probe"], MODULES["halfspaces._probe"]
        for cached in (_own, _defined, _bases):
            cached.cache_clear()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_reaches_into_another_class_state(module):
    found = _reaches(module)
    assert not found, f"{module} uses another class's private state: {found}"
