"""Data in and out: svmlight/VW/TSV readers and writers, generators, bundled real sets."""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
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
    "load_text_tsv": ".text",
    "DataFormatError": "._io",
    "make_text_pipeline": ".text",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
