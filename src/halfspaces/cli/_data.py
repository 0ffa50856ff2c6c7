"""``data``: write a bundled data set (see ``halfspaces/datasets/data/PROVENANCE.md``) to a
file, so that the examples of the README and of ``--help`` run in an empty folder."""

from __future__ import annotations

import argparse
import sys

# name -> (bundled file, format, what it is); "points" is generated, not bundled.
BUNDLED = {
    "heart_scale": ("heart_scale", "svmlight", "UCI Statlog Heart, LIBSVM's scaling: 270"
                    " rows, 13 features"),
    "a9a": ("a9a.gz", "svmlight", "UCI Adult, LIBSVM's binarisation: 32,561 training rows,"
            " 123 binary features"),
    "a9a.t": ("a9a.t.gz", "svmlight", "its 16,281 test rows"),
    "mushrooms": ("agaricus.txt.train.gz", "svmlight", "UCI Mushroom one-hot (XGBoost's"
                  " agaricus): 6,513 training rows, 126 features, 1 = poisonous"),
    "mushrooms.t": ("agaricus.txt.test.gz", "svmlight", "its 1,611 test rows"),
    "sms": ("SMSSpamCollection.gz", "tsv", "SMS Spam Collection v.1: 5,574 messages as"
            " label<TAB>text (ham/spam)"),
    "points": (None, "csv", "200 linearly separable points in the plane, label first"
               " (make_separable(200, 2, margin=0.1, random_state=0))"),
}


def cmd_data(args: argparse.Namespace) -> int:
    if args.name is None:
        width = max(map(len, BUNDLED))
        for name, (_, fmt, about) in BUNDLED.items():
            print(f"{name:<{width}}  {fmt:<8}  {about}")
        return 0
    from ._io import write_atomic, writing

    if args.name == "points":
        text = _points()
        write_atomic(args.output, text)
    else:
        from importlib import resources

        from ..datasets._io import atomic_write, open_binary

        with resources.as_file(resources.files("halfspaces.datasets") / "data"
                               / BUNDLED[args.name][0]) as source, open_binary(source) as f:
            raw = f.read()
        with writing(args.output), atomic_write(args.output) as handle:
            handle.write(raw)
    if not args.quiet:
        print(f"wrote {args.output} ({BUNDLED[args.name][2]})", file=sys.stderr)
    return 0


def _points() -> str:
    from ..datasets import make_separable

    X, y = make_separable(n_samples=200, n_features=2, margin=0.1, random_state=0)
    return "".join(f"{int(label)},{a!r},{b!r}\n" for (a, b), label in
                   zip(X.tolist(), y.tolist(), strict=True))
