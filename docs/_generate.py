"""Write the generated pages of the documentation into ``docs/generated/``.

- ``cli.md``: the help of ``halfspaces`` and of each sub-command, from the parser itself
  (``halfspaces.cli._parser.build_parser``), so the reference cannot drift from the flags;
- ``benchmark-summary.md``: the speed table of ``benchmarks/summary.py`` (the README's),
  and ``benchmark-results.md``: every file of ``benchmarks/results/``, read as it is, with
  the script that wrote it;
- ``gallery/``: every script of ``examples/`` and every notebook of ``notebooks/`` run in this
  one process (the imports and numba's compiled kernels are loaded once), with its printed
  output and its figures. A page is executed again only when its source or the package
  changed (a hash of both is kept beside it).

Usage: ``python docs/_generate.py`` (``make docs`` runs it before Sphinx).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import io
import os
import runpy
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "generated"
WIDTH = "100"  # argparse wraps the help at $COLUMNS: a fixed width gives the same page


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (Sphinx rebuilds changed files only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)


def _fence(text: str, language: str = "text") -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}\n"


# --- the command-line reference -------------------------------------------------------------

def cli_page() -> str:
    os.environ["COLUMNS"] = WIDTH
    from halfspaces.cli._parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = ["# Command-line reference\n",
             "Generated from the command's parser: each section is what "
             "`halfspaces COMMAND --help` prints.\n",
             "## halfspaces\n", _fence(parser.format_help())]
    for name, command in sub.choices.items():
        parts += [f"## halfspaces {name}\n", _fence(command.format_help())]
    return "\n".join(parts)


# --- the benchmark results ------------------------------------------------------------------

def _script_summary(name: str) -> str:
    """The first paragraph of the module docstring of the script that wrote results ``name``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from run_all import RUNS
    finally:
        sys.path.pop(0)
    stem = name.removesuffix("-reduced").removesuffix("-quick")
    script = RUNS.get(stem, (stem, None))[0]
    path = ROOT / "benchmarks" / f"{script}.py"
    if not path.exists():
        return ""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return f"Written by `benchmarks/{script}.py`: " + doc.split("\n\n")[0].replace("\n", " ")


def benchmark_summary() -> str:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import summary
    finally:
        sys.path.pop(0)
    return summary.markdown_table()


def benchmark_results_page() -> str:
    parts = []
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.txt")):
        parts += [f"### `{path.name}`\n", _script_summary(path.stem) + "\n",
                  _fence(path.read_text(encoding="utf-8"))]
    csvs = sorted(p.name for p in (ROOT / "benchmarks" / "results").glob("*.csv"))
    if csvs:
        parts.append("Samples of the soak runs (not shown): " + ", ".join(f"`{c}`" for c in csvs)
                     + ".\n")
    return "\n".join(parts)


# --- the gallery ----------------------------------------------------------------------------

def _package_hash() -> str:
    h = hashlib.sha256()
    for path in sorted((ROOT / "src" / "halfspaces").rglob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()


def _figures(stem: str, images: list[str], folder: Path) -> None:
    """Save every open pyplot figure as ``folder/stem_N.png`` and close it."""
    import matplotlib.pyplot as plt

    for number in plt.get_fignums():
        name = f"{stem}_{len(images)}.png"
        plt.figure(number).savefig(folder / name, dpi=80)
        images.append(name)
    plt.close("all")


def _run_cell(source: str, namespace: dict) -> str:
    """Run one notebook cell as Jupyter does: print the value of a last bare expression."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
            if value is not None and not type(value).__module__.startswith("matplotlib"):
                print(repr(value))
    return out.getvalue()


def notebook_page(path: Path, folder: Path) -> str:
    import jupytext

    notebook = jupytext.read(path)
    namespace: dict = {"__name__": "__main__"}
    parts, images = [], []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source + "\n")
            continue
        parts.append(_fence(cell.source, "python"))
        printed = _run_cell(cell.source, namespace)
        if printed.strip():
            parts.append(_fence(printed))
        before = len(images)
        _figures(path.stem, images, folder)
        parts += [f"![]({name})\n" for name in images[before:]]
    parts.append(f"\nSource: `notebooks/{path.name}` (a jupytext notebook).\n")
    return "\n".join(parts)


def example_page(path: Path, folder: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or path.stem
    title, _, body = doc.partition("\n")
    with tempfile.TemporaryDirectory() as tmp:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            written = runpy.run_path(str(path), run_name="gallery")["main"](tmp)
        images = []
        for png in sorted(Path(p) for p in written):
            name = png.name if png.name.startswith(path.stem) else f"{path.stem}_{png.name}"
            (folder / name).write_bytes(png.read_bytes())
            images.append(name)
    parts = [f"# {title.rstrip('.')}\n", body.strip() + "\n"]
    if out.getvalue().strip():
        parts.append(_fence(out.getvalue()))
    parts += [f"![]({name})\n" for name in images]
    parts += [f"Source: `examples/{path.name}`\n", _fence(path.read_text(encoding="utf-8"),
                                                          "python")]
    return "\n".join(parts)


def gallery(folder: Path) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    folder.mkdir(parents=True, exist_ok=True)
    package = _package_hash()
    pages = []
    sources = sorted((ROOT / "examples").glob("*.py")) + sorted(
        (ROOT / "notebooks").glob("[0-9]*.py"))
    for path in sources:
        stem = path.stem
        page = folder / f"{stem}.md"
        stamp = folder / f"{stem}.hash"
        key = hashlib.sha256(path.read_bytes() + package.encode()).hexdigest()
        if not (page.exists() and stamp.exists() and stamp.read_text() == key):
            start = time.perf_counter()
            with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
                build = notebook_page if path.parent.name == "notebooks" else example_page
                text = build(path, folder)
            _write(page, text)
            stamp.write_text(key)
            print(f"gallery: ran {path.parent.name}/{path.name} in "
                  f"{time.perf_counter() - start:.1f} s")
        pages.append(stem)
    examples = [s for s in pages if not s[0].isdigit()]
    notebooks = [s for s in pages if s[0].isdigit()]
    index = ["# Gallery\n",
             "The scripts of `examples/` (each draws one figure of the lecture notes) and the "
             "notebooks of `notebooks/` (one per chapter, each exercise checked), executed "
             "when the documentation is built.\n",
             "```{toctree}\n:caption: Examples\n:maxdepth: 1\n\n" + "\n".join(examples)
             + "\n```\n",
             "```{toctree}\n:caption: Notebooks\n:maxdepth: 1\n\n" + "\n".join(notebooks)
             + "\n```\n"]
    _write(folder / "index.md", "\n".join(index))


def main() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    start = time.perf_counter()
    _write(OUT / "cli.md", cli_page())
    _write(OUT / "benchmark-summary.md", benchmark_summary())
    _write(OUT / "benchmark-results.md", benchmark_results_page())
    gallery(OUT / "gallery")
    print(f"docs/_generate.py: done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
