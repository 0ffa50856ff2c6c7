"""The playground's server: its security properties (docs/getting-started.md, for a course)
one by one, and its answers against independent references."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading

import numpy as np
import pytest
from helpers import separable
from sklearn.svm import SVC as SkSVC

from halfspaces import cli
from halfspaces.playground import MAX_BODY, make_server
from halfspaces.playground._compute import (
    MAX_GRID,
    MAX_PASSES,
    MAX_POINTS,
    MAX_ROUNDS,
    MAX_STEPS,
)
from halfspaces.theory import is_linearly_separable


@pytest.fixture(scope="module")
def server():
    srv = make_server(0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _request(server, method, path, body=None, host=None, headers=None):
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    if host is not False:
        conn.putheader("Host", host or f"127.0.0.1:{port}")
    data = body if isinstance(body, bytes) else (None if body is None else
                                                  json.dumps(body).encode())
    for key, value in (headers or {}).items():
        conn.putheader(key, value)
    if data is not None and "Content-Length" not in (headers or {}):
        conn.putheader("Content-Length", str(len(data)))
    conn.endheaders()
    if data is not None:
        try:
            conn.send(data)
        except (BrokenPipeError, ConnectionResetError):  # refused before the body was read
            pass
    response = conn.getresponse()
    status, text = response.status, response.read()
    conn.close()
    return status, text


def _points(n=12, seed=0):
    X, y = separable(n=n, d=2, seed=seed, margin=0.15)
    return {"points": X.tolist(), "labels": y.tolist()}


def test_binds_the_loopback_address_only(server):
    assert server.server_address[0] == "127.0.0.1"


@pytest.mark.parametrize("host", ["evil.example:80", "attacker.test", "127.0.0.1:1",
                                  "127.0.0.1", "localhost.evil.test", False])
def test_a_foreign_host_header_is_refused(server, host):
    """DNS rebinding: a page of another name that now resolves to 127.0.0.1 sends its own
    name in Host; no Host at all is refused too."""
    for method, path, body in (("GET", "/", None), ("GET", "/api/datasets", None),
                               ("POST", "/api/perceptron", _points())):
        status, _ = _request(server, method, path, body, host=host)
        assert status == 403


def test_its_own_host_names_are_served(server):
    port = server.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        status, text = _request(server, "GET", "/", host=host)
        assert status == 200 and b"halfspaces playground" in text


@pytest.mark.parametrize("path", ["/etc/passwd", "/../pyproject.toml", "/static/app.js",
                                  "/app.js/../__init__.py", "/%2e%2e/__init__.py",
                                  "/..%2f..%2fREADME.md", "/_compute.py", "//etc/passwd",
                                  "/api/", "/api/../app.js", "/favicon.ico"])
def test_unknown_paths_are_404_and_nothing_is_read_from_the_path(server, path):
    status, text = _request(server, "GET", path)
    assert status == 404 and b"import" not in text and b"root:" not in text
    status, _ = _request(server, "POST", path, _points())
    assert status == 404


def test_only_the_packaged_files_are_served(server):
    from importlib import resources

    for path, name in (("/", "index.html"), ("/app.js", "app.js"), ("/style.css", "style.css")):
        status, text = _request(server, "GET", path)
        packaged = resources.files("halfspaces.playground").joinpath("static", name)
        assert status == 200 and text == packaged.read_bytes()


def test_the_page_names_no_external_resource():
    from importlib import resources

    static = resources.files("halfspaces.playground").joinpath("static")
    for name in ("index.html", "app.js", "style.css"):
        text = static.joinpath(name).read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text and "//cdn" not in text


def test_the_body_size_is_bounded(server):
    status, _ = _request(server, "POST", "/api/perceptron", b"x" * (MAX_BODY + 1))
    assert status == 413
    status, _ = _request(server, "POST", "/api/perceptron", b"{}",
                         headers={"Content-Length": str(10**9)})
    assert status == 413
    status, _ = _request(server, "POST", "/api/perceptron", b"{}",
                         headers={"Content-Length": "-5"})
    assert status == 411


@pytest.mark.parametrize("action, change, message", [
    ("perceptron", {"points": [[0.0, 0.0]] * (MAX_POINTS + 1),
                    "labels": [1] * (MAX_POINTS + 1)}, "at most"),
    ("perceptron", {"passes": MAX_PASSES + 1}, "passes"),
    ("kernel", {"passes": 0, "box": [-1, 1, -1, 1]}, "passes"),
    ("pegasos", {"steps": MAX_STEPS + 1}, "steps"),
    ("logistic", {"box": [-1, 1, -1, 1], "grid": MAX_GRID + 1}, "grid"),
    ("logistic", {"box": [1, -1, -1, 1]}, "box"),
    ("logistic", {}, "box"),
    ("svm", {"C": float("nan")}, "C"),
    ("svm", {"C": "1; rm -rf"}, "C"),
    ("perceptron", {"labels": [2] * 12}, "label"),
    ("perceptron", {"points": [[0.0, float("inf")]] * 12}, "finite"),
    ("perceptron", {"points": [[0.0]] * 12}, "two numbers"),
    ("perceptron", {"labels": [1] * 3}, "same length"),
    ("perceptron", {"labels": [1] * 12}, "both classes"),
    ("kernel", {"kernel": "sigmoid", "box": [-1, 1, -1, 1]}, "kernel"),
    ("experts", {"algo": "hedge"}, "algo"),
    ("experts", {"n_stumps": 10**6}, "n_stumps"),
])
def test_points_rounds_and_parameters_are_bounded(server, action, change, message):
    status, text = _request(server, "POST", f"/api/{action}", {**_points(), **change})
    assert status == 400 and message in json.loads(text)["error"]


def test_the_rounds_of_one_answer_are_bounded(server):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]] * 50)  # XOR, 200 points
    y = [1, 1, -1, -1] * 50
    answer = _post(server, "perceptron", {"points": X.tolist(), "labels": y,
                                          "passes": MAX_PASSES})
    assert len(answer["rounds"]) == MAX_ROUNDS == answer["max_passes"] * 200
    assert not answer["converged"]


def test_bad_json_is_a_400(server):
    for body in (b"{not json", b"[1, 2]", b"\xff\xfe"):
        status, text = _request(server, "POST", "/api/svm", body)
        assert status == 400 and "error" in json.loads(text)


def test_a_data_set_is_named_never_a_path(server):
    for name in ("/etc/passwd", "../README.md", "file", None, ["points"]):
        status, text = _request(server, "POST", "/api/dataset", {"name": name})
        assert status == 400 and "unknown data set" in json.loads(text)["error"]
    status, text = _request(server, "POST", "/api/dataset", {"name": "points"})
    data = json.loads(text)
    assert status == 200 and len(data["points"]) == len(data["labels"]) <= MAX_POINTS


def test_the_command_line_file_is_the_page_data_set_file(tmp_path):
    X, y = separable(n=20, d=3, seed=4)
    srv = make_server(0, X[:, [2, 0]], y)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        status, text = _request(srv, "POST", "/api/dataset", {"name": "file"})
        data = json.loads(text)
        assert status == 200 and np.allclose(data["points"], X[:, [2, 0]])
        assert data["labels"] == y.tolist()
    finally:
        srv.shutdown()
        srv.server_close()


def _post(server, action, params):
    status, text = _request(server, "POST", f"/api/{action}", params)
    assert status == 200, text
    return json.loads(text)


def test_the_perceptron_rounds_are_rosenblatts(server):
    params = _points(20, seed=3)
    X, y = np.array(params["points"]), np.array(params["labels"], dtype=float)
    answer = _post(server, "perceptron", {**params, "fit_intercept": True})
    w, b, t = np.zeros(2), 0.0, 0
    for _ in range(MAX_PASSES):  # a 10-line reference: cycle until a pass without mistake
        m = 0
        for x, label in zip(X, y, strict=True):
            r = answer["rounds"][t]
            assert r["w"] == pytest.approx(w.tolist()) and r["b"] == pytest.approx(b)
            assert r["mistake"] == (label * (w @ x + b) <= 0)
            if r["mistake"]:
                w, b, m = w + label * x, b + label, m + 1
            assert r["w_next"] == pytest.approx(w.tolist())
            t += 1
        if m == 0:
            break
    assert t == len(answer["rounds"]) and answer["converged"]
    assert answer["separable"] and answer["n_mistakes"] <= answer["bound"]


def test_the_hard_and_soft_svm_are_sklearns(server):
    params = _points(16, seed=5)
    X, y = np.array(params["points"]), np.array(params["labels"])
    hard = _post(server, "svm", {**params, "hard": True})
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    assert hard["margin"] == pytest.approx(1 / np.linalg.norm(ref.coef_), rel=1e-3)
    assert sorted(hard["support"]) == sorted(ref.support_.tolist())
    soft = _post(server, "svm", {**params, "C": 0.5})
    ref = SkSVC(kernel="linear", C=0.5, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(soft["w"], ref.coef_[0], rtol=1e-3, atol=1e-4)
    slack = np.maximum(0, 1 - y * ref.decision_function(X))
    np.testing.assert_allclose(soft["slacks"], slack, atol=1e-3)


def test_the_farkas_rows_are_the_certificates(server):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [3.0, 3.0]])
    y = [1, 1, -1, -1, 1]
    answer = _post(server, "perceptron", {"points": X.tolist(), "labels": y, "passes": 3})
    res = is_linearly_separable(X, y)
    assert not answer["separable"] and answer["rows"] == res.rows.tolist()
    assert not answer["converged"] and len(answer["epochs"]) == 3
    hard = _post(server, "svm", {"points": X.tolist(), "labels": y, "hard": True})
    assert not hard["separable"] and hard["rows"] == res.rows.tolist()


def test_pegasos_approaches_the_optimum(server):
    params = _points(20, seed=6)
    answer = _post(server, "pegasos", {**params, "lam": 0.1, "steps": 2000})
    X, y = np.array(params["points"]), np.array(params["labels"])
    # J* independently: scikit-learn's SVC with C = 1/(lam n) minimizes n/... the same J
    n, lam = len(y), 0.1
    ref = SkSVC(kernel="linear", C=1 / (lam * n), tol=1e-10).fit(X, y)
    w, b = ref.coef_[0], ref.intercept_[0]
    J = np.mean(np.maximum(0, 1 - y * (X @ w + b))) + lam / 2 * w @ w
    assert answer["optimum"] == pytest.approx(J, rel=1e-4)
    assert min(answer["objective"]) >= answer["optimum"] - 1e-9
    assert answer["objective"][-1] - answer["optimum"] < 0.1 * (answer["objective"][0]
                                                               - answer["optimum"] + 1e-9) + 0.02


def test_halving_keeps_exactly_the_consistent_stumps(server):
    params = _points(15, seed=7)
    X, y = np.array(params["points"]), np.array(params["labels"])
    answer = _post(server, "experts", {**params, "n_stumps": 16})
    stumps = np.array(answer["stumps"])
    # a stump (j, theta, s) predicts s * sign(x_j - theta), a tie (x_j = theta) counting as +1
    pred = np.where(stumps[:, 2][None, :] * (X[:, stumps[:, 0].astype(int)] - stumps[:, 1])
                    >= 0, 1, -1)
    alive = np.ones(len(stumps), dtype=bool)
    for t, r in enumerate(answer["rounds"]):
        alive &= pred[t] == y[t]
        assert r["state"] == alive.astype(int).tolist()
    assert answer["n_mistakes"] <= answer["bound"] or answer["exhausted_at"] is not None


def test_the_adversary_shows_every_point_once_and_the_bound_holds(server):
    params = _points(25, seed=8)
    answer = _post(server, "adversary", params)
    assert sorted(answer["order"]) == list(range(25))
    assert answer["n_mistakes"] == sum(answer["mistakes"]) <= answer["bound"]


def test_logistic_and_kernel_answer_on_the_grid(server):
    params = {**_points(20, seed=9), "box": [-1, 1, -1, 1], "grid": 7}
    logistic = _post(server, "logistic", params)
    grid = np.array([[x, y] for y in np.linspace(-1, 1, 7) for x in np.linspace(-1, 1, 7)])
    expected = 1 / (1 + np.exp(-(grid @ np.array(logistic["w"]) + logistic["b"])))
    np.testing.assert_allclose(logistic["proba"], expected, rtol=1e-6)
    kernel = _post(server, "kernel", {**params, "kernel": "poly", "degree": 2})
    assert len(kernel["scores"]) == 49 and kernel["converged"]


def test_the_playground_command(tmp_path):
    code = cli.main(["playground", "--columns", "0,1", "--no-browser"])
    assert code == 1
    proc = subprocess.Popen([sys.executable, "-m", "halfspaces", "playground", "--no-browser",
                             "points"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert line.startswith("halfspaces playground on http://127.0.0.1:")
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/dataset", body=json.dumps({"name": "file"}))
        data = json.loads(conn.getresponse().read())
        assert len(data["points"]) == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
