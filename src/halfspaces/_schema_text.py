"""What a model file may hold of a pipeline: scikit-learn's ``Pipeline``, text vectorizers,
``TfidfTransformer`` and the feature scalers (the classes halfspaces saves but does not
define).

Their parameters accept only values that are data, never behaviour: ``input="content"``
(never a file name to open), no callables, a ``token_pattern`` from a short list of
linear-time patterns, no Pipeline ``memory`` folder.
"""

from __future__ import annotations

from ._file_specs import Array, DType, Est, Vocabulary
from ._schema_estimators import ESTIMATOR_SCHEMAS, F8, FEATURES, NONE
from ._specs import (
    Bool,
    Choice,
    Encoding,
    Float,
    Int,
    ListOf,
    OneOf,
    Schema,
    SchemaError,
    Str,
    Tuple,
)


def _ngram_range(params, attrs, where):
    lo, hi = params.get("ngram_range", (1, 1))
    if lo > hi:
        raise SchemaError(f"{where}.ngram_range", f"is {(lo, hi)}; the first must not exceed"
                                                  " the second.")


def _tfidf_width(params, attrs, where):
    tfidf, vocabulary = attrs.get("_tfidf"), attrs.get("vocabulary_")
    width = getattr(tfidf, "n_features_in_", None)
    if vocabulary is not None and width is not None and width != len(vocabulary):
        raise SchemaError(f"{where}._tfidf", f"was fitted on {width} features but the"
                                             f" vocabulary has {len(vocabulary)} terms.")


_VECTORIZERS = ("HashingVectorizer", "CountVectorizer", "TfidfVectorizer")
SCALERS = ("StandardScaler", "MaxAbsScaler", "MinMaxScaler")
_ESTIMATORS = tuple(name for name in ESTIMATOR_SCHEMAS if name != "CoordinateStump")


def _roles(steps: list) -> list[tuple[str, ...]]:
    """What each step of a saved Pipeline may be: a text vectorizer then optional
    TfidfTransformers, or neither; then at most one scaler; then one of our estimators."""
    first = type(steps[0][1]).__name__
    text = first in _VECTORIZERS or first not in SCALERS
    scaled = type(steps[-2][1]).__name__ in SCALERS and (len(steps) > 2 or not text)
    tfidf = len(steps) - 1 - text - scaled
    return [_VECTORIZERS] * text + [("TfidfTransformer",)] * tfidf \
        + [SCALERS] * scaled + [_ESTIMATORS]


def _pipeline_steps(params, attrs, where):
    """A text vectorizer and optional TfidfTransformers, or neither; an optional scaler;
    then one of our estimators, agreeing on the number of features."""
    steps = params.get("steps", [])
    names = [name for name, _ in steps]
    for i, name in enumerate(names):
        if "__" in name or not name or names.index(name) != i:
            raise SchemaError(f"{where}.steps[{i}][0]", f"{name!r} is not a unique step name"
                                                        " without '__'.")
    roles = _roles(steps)
    width = None
    for i, ((_, step), allowed) in enumerate(zip(steps, roles, strict=True)):
        here = f"{where}.steps[{i}][1]"
        if type(step).__name__ not in allowed:
            raise SchemaError(here, f"is a {type(step).__name__}; a saved Pipeline is a text"
                                    " vectorizer and optional TfidfTransformers (or neither),"
                                    " an optional scaler, then a halfspaces estimator.")
        seen = getattr(step, "n_features_in_", None)
        if i > 0 and None not in (seen, width) and seen != width:
            raise SchemaError(f"{here}.n_features_in_", f"is {seen}, but the step before it"
                                                        f" outputs {width} features.")
        if i == 0:
            width = step.n_features if hasattr(step, "n_features") else (
                len(step.vocabulary_) if hasattr(step, "vocabulary_") else seen)


#: The token patterns a saved vectorizer may use: scikit-learn's default (words of 2+
#: characters) and words of 1+ characters. Both run in linear time.
TOKEN_PATTERNS = (r"(?u)\b\w\w+\b", r"(?u)\b\w+\b")
#: Longest n-gram: the n-grams of a document grow with n times its length.
MAX_NGRAM = 10

_TEXT_PARAMS = {
    "input": Choice("content"),
    "encoding": Encoding(),
    "decode_error": Choice("strict", "ignore", "replace"),
    "strip_accents": Choice(None, "ascii", "unicode"),
    "lowercase": Bool(),
    "preprocessor": NONE,
    "tokenizer": NONE,
    "analyzer": Choice("word", "char", "char_wb"),
    "stop_words": OneOf(Choice(None, "english"),
                        ListOf(Str(max_len=100), kinds=("list", "tuple", "set"))),
    "token_pattern": Choice(*TOKEN_PATTERNS),
    "ngram_range": Tuple(Int(low=1, high=MAX_NGRAM), Int(low=1, high=MAX_NGRAM)),
    "binary": Bool(),
    "dtype": DType(),
}
_COUNT_PARAMS = {
    **_TEXT_PARAMS,
    "max_df": OneOf(Float(low=0, high=1), Int(low=1)),
    "min_df": OneOf(Float(low=0, high=1), Int(low=1)),
    "max_features": OneOf(NONE, Int(low=1)),
    "vocabulary": OneOf(NONE, Vocabulary(), ListOf(Str(max_len=1000), kinds=("list", "tuple",
                                                                          "set"))),
}
_TFIDF_PARAMS = {"norm": Choice("l1", "l2", None), "use_idf": Bool(), "smooth_idf": Bool(),
                 "sublinear_tf": Bool()}
_VOCABULARY_ATTRS = {"vocabulary_": Vocabulary(dim="n_features"), "fixed_vocabulary_": Bool(),
                     "_stop_words_id": Int()}

def _positive_scale(params, attrs, where):
    """A scaler divides by ``scale_`` (multiplies, for MinMaxScaler): never by zero."""
    scale = attrs.get("scale_")
    if scale is not None and scale.size and scale.min() <= 0:
        raise SchemaError(f"{where}.scale_", f"holds {scale.min()}; a fitted scaler's scales"
                                             " are > 0 (a constant feature gets 1).")


def _feature_range(params, attrs, where):
    lo, hi = params.get("feature_range", (0, 1))
    if not lo < hi:
        raise SchemaError(f"{where}.feature_range", f"is {(lo, hi)}; the first must be below"
                                                    " the second.")


_PER_FEATURE = Array(F8, ("n_features",), finite=True)
_SCALED = {**FEATURES, "n_samples_seen_": OneOf(Int(low=0), Float(low=0),
                                                Array(("i8",), ("n_features",), low=0))}

TEXT_SCHEMAS: dict[str, Schema] = {
    "Pipeline": Schema(
        rules=(_pipeline_steps,),
        params={"steps": ListOf(Tuple(Str(max_len=100), Est(*_VECTORIZERS, "TfidfTransformer",
                                                            *SCALERS, *_ESTIMATORS)),
                                min_len=2),
                "memory": NONE, "transform_input": NONE, "verbose": Bool()}),
    "HashingVectorizer": Schema(
        {"_stop_words_id": Int()}, rules=(_ngram_range,),
        params={**_TEXT_PARAMS, "n_features": Int(low=1, high=2**31 - 1),
                "alternate_sign": Bool(), "norm": Choice("l1", "l2", None)}),
    "CountVectorizer": Schema(
        _VOCABULARY_ATTRS, ("vocabulary_", "fixed_vocabulary_"), (_ngram_range,),
        params=_COUNT_PARAMS),
    "TfidfVectorizer": Schema(
        {**_VOCABULARY_ATTRS, "_tfidf": Est("TfidfTransformer")},
        ("vocabulary_", "fixed_vocabulary_", "_tfidf"), (_ngram_range, _tfidf_width),
        params={**_COUNT_PARAMS, **_TFIDF_PARAMS}),
    "TfidfTransformer": Schema(
        {**FEATURES, "idf_": Array(F8, ("n_features",), finite=True)}, ("n_features_in_",),
        params=_TFIDF_PARAMS),
    "StandardScaler": Schema(
        {**_SCALED, **dict.fromkeys(("mean_", "var_", "scale_"), OneOf(NONE, _PER_FEATURE))},
        ("n_features_in_", "n_samples_seen_", "mean_", "var_", "scale_"), (_positive_scale,),
        params={"copy": Bool(), "with_mean": Bool(), "with_std": Bool()}),
    "MaxAbsScaler": Schema(
        {**_SCALED, "max_abs_": _PER_FEATURE, "scale_": _PER_FEATURE},
        ("n_features_in_", "n_samples_seen_", "max_abs_", "scale_"), (_positive_scale,),
        params={"copy": Bool(), "clip": Bool()}),
    "MinMaxScaler": Schema(
        {**_SCALED, **dict.fromkeys(("scale_", "min_", "data_min_", "data_max_",
                                     "data_range_"), _PER_FEATURE)},
        ("n_features_in_", "n_samples_seen_", "scale_", "min_", "data_min_", "data_max_",
         "data_range_"), (_positive_scale, _feature_range),
        params={"feature_range": Tuple(Float(), Float()), "copy": Bool(), "clip": Bool()}),
}
