"""Sphinx configuration of the halfspaces documentation (``make docs``).

The pages are Markdown (MyST); the API reference comes from the numpydoc docstrings, the CLI
reference from the command's own parser, the gallery and the benchmarks page from
``docs/_generate.py``, which runs first (``make docs`` calls it). Nothing here reaches the
network: no intersphinx, MathJax is the only script the pages load.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # the sources beside it

project = "halfspaces"
author = "the halfspaces authors"
copyright = "the halfspaces authors, BSD-3-Clause"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "generated/benchmark-*.md"]  # included by benchmarks.md
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

autodoc_typehints = "none"  # the numpydoc sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

nitpicky = False
# index.md lists data.md by the pattern d[ae][st]*, which also takes design.md (the layers of
# the code) into the site when that page is written, and matches something until then.
html_theme = "alabaster"
html_title = "halfspaces"
html_theme_options = {"description": "online and large-margin linear classifiers",
                      "fixed_sidebar": True}
html_static_path: list[str] = []


def _parameters_directive():
    """``.. parameters:: module.Name``, in an ``{eval-rst}`` block of a Markdown page: the
    Parameters section of a numpydoc docstring as a definition list, so that a user-guide page
    shows the parameters without copying them."""
    import importlib

    from docutils import nodes
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList
    from numpydoc.docscrape import ClassDoc

    class Parameters(Directive):
        required_arguments = 1

        def run(self):
            module, _, name = self.arguments[0].rpartition(".")
            doc = ClassDoc(getattr(importlib.import_module(module), name), config={})
            lines = []
            for param in doc["Parameters"]:
                kind = f" : {param.type}" if param.type else ""
                lines += [f"``{param.name}``{kind}"] + [f"    {line}" for line in param.desc]
                lines.append("")
            lines.append(f"All of it: :class:`{self.arguments[0]}`.")
            node = nodes.container()
            self.state.nested_parse(StringList(lines, source=self.arguments[0]),
                                    self.content_offset, node)
            return node.children

    return Parameters


def setup(app):
    app.add_directive("parameters", _parameters_directive())
