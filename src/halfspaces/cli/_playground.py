"""``halfspaces playground``: the page of :mod:`halfspaces.playground`, served from the
command line with a data file's two columns."""

from __future__ import annotations

import sys
import threading
import webbrowser

from ..playground import make_server
from ._io import CLIError, read_args_data
from ._plan import data_source


def cmd_playground(args) -> int:
    """``halfspaces playground``: serve until Ctrl-C, opening the page unless --no-browser."""
    X = y = None
    if args.data is not None:
        data = read_args_data(data_source(args), numeric="the playground needs numeric"
                                                          " features")
        cols = args.columns or (0, 1)
        if max(cols) >= data.X.shape[1]:
            raise CLIError(f"--columns {cols[0]},{cols[1]}: {data.path} has {data.X.shape[1]}"
                           f" feature columns (0 to {data.X.shape[1] - 1})")
        X, y = data.X[:, list(cols)], data.y
    elif args.columns is not None:
        raise CLIError("--columns picks two columns of DATA: give the data file too")
    try:
        server = make_server(args.port, X, y, verbose=True)
    except OSError as exc:
        raise CLIError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None
    print(f"halfspaces playground on {server.url} (Ctrl-C stops it)", file=sys.stderr,
          flush=True)
    if not args.no_browser:
        threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
