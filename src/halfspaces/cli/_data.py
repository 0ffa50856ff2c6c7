"""``data``: write a bundled data set (see ``halfspaces/datasets/data/PROVENANCE.md``) to a
file. Every command also reads a bundled set by its name (see ``halfspaces.datasets.bundled``),
so the examples of the README and of ``--help`` run in an empty folder either way."""

from __future__ import annotations

import argparse
import sys

from ..datasets.bundled import BUNDLED


def cmd_data(args: argparse.Namespace) -> int:
    if args.text_per_class:
        return _text_per_class(args)
    if args.name is None:
        width = max(map(len, BUNDLED))
        for name, entry in BUNDLED.items():
            print(f"{name:<{width}}  {entry.format:<8}  {entry.about}")
        return 0
    from ..datasets._io import atomic_write, open_binary
    from ..datasets.bundled import open_bundled
    from ._io import writing

    with open_bundled(args.name) as source, open_binary(source) as f:
        raw = f.read()
    with writing(args.output), atomic_write(args.output) as handle:
        handle.write(raw)
    if not args.quiet:
        print(f"wrote {args.output} ({BUNDLED[args.name].about})", file=sys.stderr)
    return 0


def _text_per_class(args: argparse.Namespace) -> int:
    """Write the texts of one file per class (``[LABEL=]FILE``) as ``label<TAB>text``."""
    from ..datasets import load_text_per_class
    from ._io import CLIError, write_atomic

    files = {}
    for item in args.text_per_class:
        label, sep, path = item.partition("=")
        files[label if sep else None] = path if sep else item
    named = {label: path for label, path in files.items() if label is not None}
    if None in files or len(files) < len(args.text_per_class):
        if named:
            raise CLIError("--text-per-class: name the label of every file (LABEL=FILE), or"
                           " of none (each file's name is its label)")
        files = list(args.text_per_class)
    try:
        texts, labels = load_text_per_class(files, encoding=args.encoding or "utf-8")
    except ValueError as exc:
        raise CLIError(str(exc).replace("load_text_per_class: ", "--text-per-class: ")
                       .replace("pass a dict {label: path}", "give them as LABEL=FILE")
                       .replace("'files' must name", "give")) from None
    write_atomic(args.output, "".join(f"{label}\t{text}\n"
                                      for label, text in zip(labels, texts, strict=True)))
    if not args.quiet:
        counts = ", ".join(f"{label}: {int((labels == label).sum())}"
                           for label in dict.fromkeys(labels))
        print(f"wrote {args.output} ({len(texts)} texts; {counts})", file=sys.stderr)
    return 0
