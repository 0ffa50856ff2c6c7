"""Every public name (docs/conventions.md, "Public names") imports, and is what it says.

Estimators are classes with the scikit-learn contract and ``save``; online ones also play one
example at a time. Functions are callables. The Dask backend's names import without dask
(it is imported inside each function).
"""

import importlib
import inspect

import pytest

ESTIMATORS = ["Perceptron", "AveragedPerceptron", "VotedPerceptron", "KernelPerceptron",
              "HalvingClassifier", "WeightedMajorityClassifier", "PegasosSVC", "KernelPegasosSVC",
              "SVC", "LogisticRegression", "LPSeparator"]
ONLINE = ["Perceptron", "AveragedPerceptron", "VotedPerceptron", "KernelPerceptron",
          "HalvingClassifier", "WeightedMajorityClassifier", "PegasosSVC"]
FUNCTIONS = {
    "halfspaces": ["load", "save"],
    "halfspaces.online": ["play", "iter_play"],
    "halfspaces.theory": ["geometric_margin", "functional_margins", "data_radius",
                          "perceptron_mistake_bound", "halving_mistake_bound",
                          "max_margin_separator", "is_linearly_separable", "shatters"],
    "halfspaces.datasets": ["load", "load_svmlight", "iter_svmlight", "dump_svmlight",
                            "make_separable", "load_text_per_class"],
    "halfspaces.dask": ["fit", "predict", "decision_function", "predict_proba"],
    "halfspaces.model_selection": ["path_scores", "refit_best"],
    "halfspaces.metrics": ["evaluate", "evaluate_blocks", "scores_of", "brier_score"],
}


def _get(module: str, name: str):
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_is_a_class_with_the_contract(name):
    cls = _get("halfspaces", name)
    assert inspect.isclass(cls) and cls.__name__ == name
    for method in ("fit", "predict", "decision_function", "score", "save", "get_params"):
        assert callable(getattr(cls, method, None)), f"{name}.{method}"
    if name in ONLINE:
        for method in ("predict_one", "learn_one"):
            assert callable(getattr(cls, method, None)), f"{name}.{method}"


@pytest.mark.parametrize("module, name", [(m, n) for m, names in FUNCTIONS.items()
                                          for n in names])
def test_function_is_callable(module, name):
    function = _get(module, name)
    assert callable(function) and not inspect.isclass(function)
    assert name in importlib.import_module(module).__all__


def test_save_and_load_are_the_persistence_functions():
    from halfspaces import persistence

    assert _get("halfspaces", "save") is persistence.save
    assert _get("halfspaces", "load") is persistence.load


def test_svccv_is_the_search_estimator_with_the_classifier_contract():
    """SVCCV saves its refitted SVC (best_estimator_.save), not itself."""
    cls = _get("halfspaces", "SVCCV")
    assert cls is _get("halfspaces.model_selection", "SVCCV")
    for method in ("fit", "predict", "decision_function", "score", "get_params"):
        assert callable(getattr(cls, method, None)), f"SVCCV.{method}"
