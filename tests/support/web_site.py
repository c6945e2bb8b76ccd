"""A small shop site on 127.0.0.1 for the web subagent's tests: login, a paginated table, widgets, a download.

Static pages come from tests/support/sites/shop. Dynamic routes: POST /login sets a
session cookie; the table pages and /report.csv need that cookie.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

from stateact.sandbox.backends import SandboxOptions, make_sandbox
from stateact.sandbox.netns import loopback_ports
from stateact.subagents.browser import BrowserSession

SITE_DIR = Path(__file__).parent / "sites" / "shop"
STOCK = [
    ("Anvil", "12.50", 4),
    ("Bucket", "3.20", 0),
    ("Chisel", "7.75", 11),
    ("Drill", "89.00", 2),
    ("Easel", "45.10", 0),
    ("File", "4.40", 7),
    ("Gauge", "15.00", 3),
    ("Hammer", "9.99", 0),
    ("Island bench", "310.00", 1),
]
ROWS_PER_PAGE = 3
TABLE_PAGE = re.compile(r"^/table-(\d+)\.html$")
USER, PASSWORD = "alice", "secret"
REPORT_CSV = b"item,price,stock\nBucket,3.20,0\nEasel,45.10,0\nHammer,9.99,0\n"
COOKIE = "session=alice-ok"


class ShopHandler(SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, directory=str(SITE_DIR), **kwargs)

    def log_message(self, format: str, *args) -> None:
        return None

    def _signed_in(self) -> bool:
        return COOKIE in (self.headers.get("Cookie") or "")

    def _redirect(self, location: str, cookie: str | None = None) -> None:
        self.send_response(303)
        self.send_header("Location", location)
        if cookie:
            self.send_header("Set-Cookie", f"{cookie}; Path=/")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode())
        if self.path == "/login" and form.get("user") == [USER] and form.get("password") == [PASSWORD]:
            self._redirect("/table-1.html", COOKIE)
        else:
            self._redirect("/login.html?error=1")

    def do_GET(self) -> None:
        needs_login = self.path.startswith("/table-") or self.path.startswith("/report.csv")
        if needs_login and not self._signed_in():
            self._redirect("/login.html")
        elif match := TABLE_PAGE.match(self.path):
            self._send(200, "text/html", table_page(int(match.group(1))))
        elif self.path.startswith("/report.csv"):
            self._send(200, "text/csv", REPORT_CSV, 'attachment; filename="stock-report.csv"')
        else:
            super().do_GET()

    def _send(self, status: int, content_type: str, body: bytes, disposition: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if disposition:
            self.send_header("Content-Disposition", disposition)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def table_page(number: int) -> bytes:
    """Page `number` of the stock table, with Previous / Next links; a 404-like page past the end."""
    pages = -(-len(STOCK) // ROWS_PER_PAGE)
    rows = STOCK[(number - 1) * ROWS_PER_PAGE : number * ROWS_PER_PAGE] if 1 <= number <= pages else []
    body = "".join(f"<tr><td>{name}</td><td>{price}</td><td>{stock}</td></tr>" for name, price, stock in rows)
    previous = f'<a href="/table-{number - 1}.html">Previous</a>' if number > 1 else ""
    following = f'<a href="/table-{number + 1}.html">Next</a>' if number < pages else ""
    return f"""<!doctype html>
<html><head><title>Stock, page {number} of {pages}</title></head>
<body>
<h1>Stock</h1>
<p>Signed in as alice. <a href="/widgets.html">Tools</a></p>
<table>
  <thead><tr><th>Item</th><th>Price</th><th>In stock</th></tr></thead>
  <tbody>{body}</tbody>
</table>
<nav>{previous} Page {number} of {pages} {following}</nav>
</body></html>""".encode()


@contextmanager
def serve_site(handler: type[SimpleHTTPRequestHandler] = ShopHandler) -> Iterator[str]:
    """Serve the site on a free local port; yields its base URL and stops the server afterwards."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def browser_session(
    home: Path, cdp_url: str | None = None, isolation: str = "none", sites: Sequence[str] = ()
) -> Iterator[BrowserSession]:
    """A started BrowserSession over a LocalSandbox whose home is `home`, the sites on this machine
    among `sites` (URLs) forwarded in as for a task that names them; both closed afterwards."""
    sandbox = make_sandbox("local", SandboxOptions(home, isolation=isolation, cdp_url=cdp_url))
    sandbox.start()
    sandbox.reach_host_ports(loopback_ports(" ".join(sites)))
    session = BrowserSession(sandbox)
    try:
        session.start()
        yield session
    finally:
        session.close()
        sandbox.close()
