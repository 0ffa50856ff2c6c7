"""Open the built site in a real browser: Debian's headless chromium through Playwright, as
the playground's test does. Every page of ``docs/_build/html`` must load without a script
error, every image on it must decode, and every link inside the site must name a file that
exists (and an anchor on it that exists). Requests that leave the site (the MathJax script)
are answered empty, so the check needs no network.

Where chromium or Playwright is missing it says so and passes, unless ``CI_REQUIRE_BROWSER=1``
(set by ``.ci/run``), where that is a failure. Usage: ``python docs/_check_site.py``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

SITE = Path(__file__).resolve().parent / "_build" / "html"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
# Per page: the images that did not decode, and the site's links with their targets' ids.
PROBE = """() => ({
  broken: [...document.images].filter(i => !i.complete || i.naturalWidth === 0)
                              .map(i => i.getAttribute('src')),
  links: [...document.querySelectorAll('a[href]')].map(a => a.href)
                              .filter(h => h.startsWith('file:')),
  ids: [...document.querySelectorAll('[id]')].map(e => e.id),
})"""


def check(page, path: Path, ids: dict[Path, set[str]]) -> tuple[list[str], list[str]]:
    """Open one page: its problems, and the site's links on it."""
    page.goto(path.as_uri(), wait_until="load")
    found = page.evaluate(PROBE)
    ids[path] = set(found["ids"])
    return [f"{path}: image {src} does not load" for src in found["broken"]], found["links"]


def main() -> int:
    needs = {CHROMIUM: os.path.exists(CHROMIUM) or "apt-get install -y chromium",
             "playwright": importlib.util.find_spec("playwright") or "pip install playwright"}
    missing = [f"{name} is missing ({how})" for name, how in needs.items() if isinstance(how, str)]
    if missing:
        print(f"docs/_check_site.py: {'; '.join(missing)}: the site is not checked in a browser")
        return 1 if os.environ.get("CI_REQUIRE_BROWSER") == "1" else 0
    from playwright.sync_api import sync_playwright

    pages = sorted(p for p in SITE.rglob("*.html") if "_sources" not in p.parts)
    problems, links, ids = [], [], {}
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM,
                                                       headless=True, args=FLAGS)
        context.route(lambda url: not url.startswith("file:"),
                      lambda route: route.fulfill(status=200, body=""))
        page = context.new_page()
        opened: list[Path] = []
        page.on("pageerror", lambda error: problems.append(f"{opened[-1]}: script {error}"))
        for path in pages:
            opened.append(path)
            broken, found = check(page, path, ids)
            problems += broken
            links += [(path, url) for url in found]
        context.close()
    for source, url in links:
        parts = urlsplit(url)
        target = Path(unquote(parts.path))
        if not target.exists():
            problems.append(f"{source}: link to a missing file {target}")
        elif parts.fragment and target in ids and parts.fragment not in ids[target]:
            problems.append(f"{source}: link to a missing anchor {url}")
    for problem in problems:
        print(problem)
    print(f"docs/_check_site.py: {len(pages)} pages opened in chromium, {len(links)} links, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
