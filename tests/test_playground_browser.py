"""The playground driven in a real browser: Debian's chromium, headless, through Playwright.

Skipped only where chromium is missing, and never in CI: there ``CI_REQUIRE_BROWSER=1``
(set by ``.ci/run``, which installs chromium) makes a missing browser a failure.
"""

from __future__ import annotations

import json
import os
import re
import threading

import numpy as np
import pytest
from sklearn.svm import SVC as SkSVC

from halfspaces import SVC, cli
from halfspaces.playground import make_server
from halfspaces.theory import is_linearly_separable

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
# Clicked points, in pixels of the 560 x 560 plot (the view is [-1, 1]^2): two separable
# clusters, then a +1 point among the -1 ones.
POSITIVE = [(380, 150), (450, 220), (330, 100), (470, 120), (400, 260)]
NEGATIVE = [(150, 400), (220, 460), (120, 330), (250, 380), (300, 480)]
INTRUDER = (190, 410)


def _require_browser():
    missing = None
    if not os.path.exists(CHROMIUM):
        missing = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "the playwright package is missing (pip install playwright)"
    if missing and os.environ.get("CI_REQUIRE_BROWSER") == "1":
        pytest.fail(f"CI_REQUIRE_BROWSER=1 but {missing}")
    if missing:
        pytest.skip(missing)


@pytest.fixture
def page(tmp_path):
    _require_browser()
    from playwright.sync_api import sync_playwright

    server = make_server(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    profile = tmp_path / "profile"  # an empty --user-data-dir
    profile.mkdir()
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS,
                viewport={"width": 1040, "height": 760})
            page = context.new_page()
            page.goto(server.url)
            page.wait_for_selector("#plot[data-ready='idle']")
            yield page
            context.close()
    finally:
        server.shutdown()
        server.server_close()


def _click(page, points, labels):
    for (x, y), label in zip(points, labels, strict=True):
        page.check("#cls-pos" if label == 1 else "#cls-neg")
        page.locator("#plot").click(position={"x": x, "y": y})


def _run(page, mode):
    page.select_option("#mode", mode)
    page.click("#run")
    page.wait_for_selector("#plot[data-ready='done']")
    error = page.locator("#info.error")
    assert error.count() == 0, error.text_content()


def _page_data(page):
    X = np.array(page.evaluate("window.playground.points"), dtype=float)
    y = np.array(page.evaluate("window.playground.labels"), dtype=float)
    return X, y


def _play(tmp_path, capsys, X, y):
    """``halfspaces play --passes 50 --json`` on the page's points written to a file."""
    path = tmp_path / "page.csv"
    rows = [f"{int(label)},{float(a)!r},{float(b)!r}\n"
            for (a, b), label in zip(X, y, strict=True)]
    path.write_text("".join(rows))
    code = cli.main(["play", str(path), "--passes", "50", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _last_number(text):
    return float(re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", text)[-1])


def test_the_playground_in_chromium(page, tmp_path, capsys):
    _click(page, [p for pair in zip(POSITIVE, NEGATIVE, strict=True) for p in pair], [1, -1] * 5)
    X, y = _page_data(page)
    assert len(X) == 10 and y.tolist() == [1.0, -1.0] * 5
    np.testing.assert_allclose(X[0], [380 / 280 - 1, 1 - 150 / 280], atol=1e-4)

    # the perceptron, one round, then to convergence: mistakes and bound as play's
    _run(page, "perceptron")
    page.click("#step")
    assert page.text_content("#round").startswith("1 of ")
    page.click("#to-end")
    assert "converged" in page.text_content("#info")
    played = _play(tmp_path, capsys, X, y)
    assert played["converged"]
    assert int(page.text_content("#mistakes")) == played["n_mistakes"]
    bound = played["bound"]["novikoff_bound"]
    assert _last_number(page.text_content("#bound")) == pytest.approx(bound, rel=1e-5)
    assert played["n_mistakes"] <= bound

    # a mistake after the first round, for the screenshot: the update drawn as vectors
    page.click("#restart")
    page.click("#step")
    page.click("#next-mistake")
    assert "MISTAKE" in page.text_content("#info")
    assert page.locator("#plot .vector").count() == 3  # w_t, y_t x_t, w_t+1
    shot = tmp_path / "playground.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if os.environ.get("PLAYGROUND_SCREENSHOT"):
        page.screenshot(path=os.environ["PLAYGROUND_SCREENSHOT"])

    # the max-margin SVM: the margin shown is SVC(C=inf)'s, and scikit-learn's hard margin
    _run(page, "svm")
    margin = float(page.text_content("#margin"))
    ours = SVC(C=np.inf, kernel="linear").fit(X, y)
    assert margin == pytest.approx(1 / np.linalg.norm(ours.coef_), rel=1e-5)
    theirs = SkSVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    assert margin == pytest.approx(1 / np.linalg.norm(theirs.coef_), rel=1e-3)
    assert page.locator("#plot .margin-pos").count() == 1
    assert page.locator("#plot .margin-neg").count() == 1
    if os.environ.get("PLAYGROUND_SCREENSHOT"):
        page.screenshot(path=os.environ["PLAYGROUND_SCREENSHOT"].replace(".png", "_svm.png"))

    # not separable: the rows circled are the certificate's of is_linearly_separable
    _click(page, [INTRUDER], [1])
    X, y = _page_data(page)
    _run(page, "perceptron")
    assert page.text_content("#bound") == "not separable"
    shown = sorted(int(r) for r in page.eval_on_selector_all(
        "#plot circle.farkas", "nodes => nodes.map(n => n.dataset.row)"))
    certificate = is_linearly_separable(X, y, fit_intercept=True)
    assert not certificate and shown == sorted(certificate.rows.tolist())
    page.click("#to-end")
    assert "not converged" in page.text_content("#info")
    if os.environ.get("PLAYGROUND_SCREENSHOT"):
        page.screenshot(path=os.environ["PLAYGROUND_SCREENSHOT"].replace(".png", "_farkas.png"))

    # the other modes answer without an error
    for mode in ("pegasos", "logistic", "kernel", "experts", "adversary"):
        _run(page, mode)
