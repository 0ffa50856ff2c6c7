"""Data in and out: svmlight/VW/TSV/CSV readers and writers, generators, bundled real sets."""

from __future__ import annotations

from .._lazy import attach

_PUBLIC = {
    "load": ".loader",
    "Dataset": ".loader",
    "detect_format": ".loader",
    "make_separable": ".generators",
    "load_heart_scale": ".bundled",
    "load_a9a": ".bundled",
    "load_mushrooms": ".bundled",
    "load_sms_spam": ".bundled",
    "mushroom_feature_names": ".bundled",
    "load_svmlight": ".svmlight",
    "iter_svmlight": ".svmlight",
    "dump_svmlight": ".svmlight",
    "load_vw": ".vw",
    "iter_vw": ".vw",
    "iter_blocks": ".stream",
    "fit_stream": ".stream",
    "fit_file": ".stream",
    "open_cached": ".cache",
    "load_text_tsv": ".text",
    "load_text_per_class": ".text",
    "load_csv": ".csv_format",
    "DataFormatError": "._io",
    "make_text_pipeline": ".text",
}
__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
