"""The speed table of the README and of the documentation's benchmarks page, read from the
results files: each row names the work timed, the data, the results file, and how its
ratios (ours / peer of the median times: below 1, we are faster) are read from that file.

``docs/_generate.py`` writes the table into the benchmarks page, and
``tests/test_benchmarks.py`` checks that the README's table is this one, so no figure is
copied by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

RESULTS = Path(__file__).resolve().parent / "results"


class Row(NamedTuple):
    work: str
    data: str
    results: str  # the file's name in results/, without .txt
    read: Callable[[str], list[float]]  # the file's text -> its ratios, in the order of data


def labelled(label: str) -> Callable[[str], list[float]]:
    """The number printed after ``label`` on each line that has it."""
    return lambda text: [float(v) for v in re.findall(rf"{re.escape(label)}\s+([\d.]+)", text)]


def column(header: str, index: int) -> Callable[[str], list[float]]:
    """Field ``index`` of each line of the table under the line that starts with ``header``."""
    def read(text: str) -> list[float]:
        lines = text.split("\n")
        start = next(i for i, line in enumerate(lines) if line.startswith(header)) + 1
        rows = lines[start:lines.index("", start) if "" in lines[start:] else None]
        return [float(line.split()[index]) for line in rows]
    return read


def first_pair_of_medians(text: str) -> list[float]:
    """bench_svc: per data set, the first two median times (no offset: ours, then LIBLINEAR)."""
    heads = list(re.finditer(r"^[^\s#][^\n]*: \d+ x \d+, nnz", text, re.M))
    ratios = []
    for head, end in zip(heads, heads[1:] + [None], strict=True):
        section = text[head.start():end.start() if end else None]
        ours, peer = (float(v) for v in re.findall(r"^  \S[^\n]*?\s{2,}median\s+([\d.]+) ms",
                                                  section, re.M)[:2])
        ratios.append(ours / peer)
    return ratios


ROWS = [
    Row("one perceptron epoch, `Perceptron(max_iter=1, shuffle=False).fit` vs scikit-learn's "
        "`Perceptron` (identical `coef_`)",
        "1M x 100k sparse, clean / 10% noise; 200k x 100 dense", "bench_perceptron",
        labelled("ours fit / scikit-learn fit")),
    Row("`SVC(solver=\"dcd\", tol=1e-3).fit` vs scikit-learn's `LinearSVC` (LIBLINEAR), C = 1, "
        "no offset (the same problem)",
        "a9a / w8a / reuters / 200k x 100k sparse", "bench_svc", first_pair_of_medians),
    Row("`LogisticRegression().fit` (L-BFGS) vs scikit-learn's, C = 1 (same optimum and "
        "iterations)",
        "a9a / w8a / reuters / 1M x 100k sparse", "bench_logistic", column("data ", 3)),
    Row("`load_svmlight` vs scikit-learn's `load_svmlight_file` (bit-identical matrices)",
        "a9a / w8a / reuters / rcv1_small", "bench_svmlight", column("file ", 4)),
    Row("the online game in memory, `play(Perceptron(), X, y)` vs River's `Perceptron` "
        "(time per row)",
        "a9a / rcv1_small / 200k x 100k sparse", "bench_online",
        labelled("in memory: ours play / River Perceptron")),
]


def ratios(row: Row) -> list[float]:
    return row.read((RESULTS / f"{row.results}.txt").read_text(encoding="utf-8"))


def _figure(ratio: float) -> str:
    return f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.2g}"


def markdown_table() -> str:
    lines = ["| work: ours vs the peer | data | ours / peer | results file |",
             "|---|---|---|---|"]
    for row in ROWS:
        figures = " / ".join(_figure(r) for r in ratios(row))
        lines.append(f"| {row.work} | {row.data} | {figures} | `{row.results}` |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table())
