"""Serve a built site from 127.0.0.1 in a background thread (browser tests and the site benchmark)."""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged: tests and the benchmark watch them from the browser side."""


def free_port() -> int:
    """A port that is free now. A site must be built for the address it is served at (its site_url):
    mkdocs-material's instant navigation only takes over links whose host and port match the sitemap's."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serve(directory: Path, port: int = 0) -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:PORT/`) of `directory`, served until the block ends."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def served_file(site_dir: Path, path: str) -> Path:
    """The built file a same-site URL path names (`` and `x/` are directories: their index.html)."""
    path = path.split("?", maxsplit=1)[0].split("#", maxsplit=1)[0]
    return site_dir / (path + "index.html" if path == "" or path.endswith("/") else path)
