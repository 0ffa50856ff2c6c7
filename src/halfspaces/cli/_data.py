"""``data``: write a bundled data set (see ``halfspaces/datasets/data/PROVENANCE.md``) to a
file. Every command also reads a bundled set by its name (see ``halfspaces.datasets.bundled``),
so the examples of the README and of ``--help`` run in an empty folder either way."""

from __future__ import annotations

import argparse
import sys

from ..datasets.bundled import BUNDLED


def cmd_data(args: argparse.Namespace) -> int:
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
