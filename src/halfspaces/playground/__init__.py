"""The playground: a page on ``http://127.0.0.1:PORT/`` where a student clicks points and
watches the library's learners and theorems on them.

The page (``static/``: plain JavaScript and SVG, no external resource) draws; every number
comes from the server, which answers ``POST /api/ACTION`` with the estimators' own results
(:mod:`._compute`). The server is the standard library's
:class:`http.server.ThreadingHTTPServer`, bound to 127.0.0.1 only. It

- serves only its own packaged files, named in a fixed table (no path from the request
  reaches the file system: no traversal);
- answers only requests whose ``Host`` header names its own address (``127.0.0.1:PORT`` or
  ``localhost:PORT``), so that a page of another site whose name was re-bound to 127.0.0.1
  (DNS rebinding) gets 403;
- reads no file named by the page: a data file comes from the command line only;
- bounds what one request may cost: the body size, the points, passes, steps and grid
  (:data:`._compute.MAX_POINTS` ...).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from ._compute import ACTIONS, MAX_POINTS, RequestError, check_points

__all__ = ["PlaygroundServer", "make_server"]

#: Largest request body read, in bytes (200 points fit in about 10 kB).
MAX_BODY = 64 * 1024
# The page's files: URL path -> (file in static/, content type). Nothing else is served.
_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
# Bundled 2-D sets the page may load by name: (bundled set, columns).
_BUNDLED = {"points": ("points", (0, 1)), "heart_scale (age, rest bp)": ("heart_scale", (0, 3))}


def _read_static(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


def _as_page_points(X, y) -> dict[str, Any]:
    """Two columns and the labels of a data set as the page's points (+1 = the larger label),
    at most :data:`MAX_POINTS` of them (the first ones)."""
    import numpy as np
    import scipy.sparse as sp

    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"the playground needs two classes; the data has {classes.size}")
    y_pm = np.where(y == classes[1], 1, -1)
    return {"points": X[:MAX_POINTS].tolist(), "labels": y_pm[:MAX_POINTS].tolist(),
            "truncated": bool(X.shape[0] > MAX_POINTS)}


def _bundled(name: str) -> dict[str, Any]:
    from ..datasets import load

    set_name, cols = _BUNDLED[name]
    X, y = load(set_name)
    return _as_page_points(X[:, list(cols)], y)


class _Handler(BaseHTTPRequestHandler):
    server: PlaygroundServer
    server_version = "halfspaces-playground"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json(status, {"error": message})

    def _host_ok(self) -> bool:
        """The Host header names this server (127.0.0.1:PORT or localhost:PORT)."""
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"127.0.0.1:{port}", f"localhost:{port}")

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if not self._host_ok():
            return self._error(HTTPStatus.FORBIDDEN, "wrong Host header")
        path = self.path.split("?", 1)[0]
        if path in _FILES:
            name, content_type = _FILES[path]
            return self._send(HTTPStatus.OK, _read_static(name), content_type)
        if path == "/api/datasets":
            names = list(_BUNDLED) + (["file"] if self.server.file_points else [])
            return self._json(HTTPStatus.OK, {"datasets": names, "max_points": MAX_POINTS})
        return self._error(HTTPStatus.NOT_FOUND, "not found")

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return self._error(HTTPStatus.FORBIDDEN, "wrong Host header")
        path = self.path.split("?", 1)[0]
        action = path.removeprefix("/api/") if path.startswith("/api/") else None
        if action not in ACTIONS and action != "dataset":
            return self._error(HTTPStatus.NOT_FOUND, "not found")
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            return self._error(HTTPStatus.LENGTH_REQUIRED, "Content-Length required")
        if int(length) > MAX_BODY:
            self.close_connection = True  # the body is left unread
            return self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                               f"the body is larger than {MAX_BODY} bytes")
        try:
            params = json.loads(self.rfile.read(int(length)) or b"{}")
            if not isinstance(params, dict):
                raise RequestError("the body must be a JSON object")
            if action == "dataset":
                return self._json(HTTPStatus.OK, self._dataset(params.get("name")))
            X, y = check_points(params)
            result = ACTIONS[action](X, y, params)
        except (RequestError, ValueError) as exc:  # json's errors are ValueErrors too
            return self._error(HTTPStatus.BAD_REQUEST, str(exc))
        return self._json(HTTPStatus.OK, result)

    def _dataset(self, name: Any) -> dict[str, Any]:
        """A bundled set by its name in the fixed list, or the command line's file."""
        if name == "file" and self.server.file_points:
            return self.server.file_points
        if not isinstance(name, str) or name not in _BUNDLED:
            raise RequestError(f"unknown data set {name!r}: one of {', '.join(_BUNDLED)}")
        return _bundled(name)


class PlaygroundServer(ThreadingHTTPServer):
    """The playground's HTTP server on 127.0.0.1 (``port`` 0: a free one)."""

    daemon_threads = True

    def __init__(self, port: int = 0, file_points: dict | None = None, verbose: bool = False):
        super().__init__(("127.0.0.1", port), _Handler)
        self.file_points = file_points
        self.verbose = verbose

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


def make_server(port: int = 0, X=None, y=None, verbose: bool = False) -> PlaygroundServer:
    """A playground server (not yet serving: call ``serve_forever``, e.g. in a thread),
    optionally with two columns ``X`` and labels ``y`` of a file as its data set "file"."""
    return PlaygroundServer(port, None if X is None else _as_page_points(X, y), verbose)
