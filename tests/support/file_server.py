"""A file server on 127.0.0.1 for download tests: serves a dict of path -> bytes, 404 otherwise, and
counts the requests per path."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class FileServer:
    base_url: str
    files: dict[str, bytes] = field(default_factory=dict)
    """What is served, by URL path (`/gold/a.xlsx`); may change while the server runs."""
    requests: Counter[str] = field(default_factory=Counter)

    def url(self, path: str) -> str:
        return self.base_url + path


@contextmanager
def served_files(files: dict[str, bytes] | None = None) -> Iterator[FileServer]:
    """A running FileServer; shut down on exit."""
    state = FileServer("", dict(files or {}))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            state.requests[self.path] += 1
            body = state.files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
