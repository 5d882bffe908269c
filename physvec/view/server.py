"""The ``physvec view`` web server: the standard library's threading HTTP server on loopback, pages
rendered from the same jinja2 templates as report.html.

Read-only by construction: it answers GET and HEAD only, and serves nothing but its pages, their style and
script (from the package, under /static/), and the figures and plots the pages link to.  A run folder also
holds what untrusted parties wrote (the generated programs' ``work/`` folder, the model's replies) and what
they must never read (``inputs/``: the task's sealed expected values), so every response is guarded:

- **Host.**  Only ``127.0.0.1``, ``localhost`` and ``[::1]`` with the server's own port are answered; any
  other Host header, or none, gets 421 Misdirected Request.  A page of another site that rebinds its own
  name to 127.0.0.1 (DNS rebinding) sends its own name as Host, so the browser's same-origin rule is not
  bypassed that way.
- **Launch token.**  Every endpoint, the pages included, needs the random token made when the server is
  made: the pages show sealed values too (a certificate's evidence), and any process or user of the machine
  can connect to loopback.  The address printed at start carries it (``/?token=...``); a request with a
  valid token gets a cookie (HttpOnly, SameSite=Strict, Path=/) and a redirect to the same address without
  the token, so it stays out of the address bar and history; later requests pass by the cookie.  The
  cookie is named after the port, because browsers keep cookies per host, not per port, and two viewers
  must not overwrite each other's.  Without a valid token or cookie: 403.  Tokens are compared with
  ``hmac.compare_digest``.
- **Files.**  ``/file`` serves only what the pages link to, by exact name (catalogue.Catalogue.file): a
  run's figures and a campaign's plots, and only a regular file (no symlink) that starts with PNG's
  signature, as ``image/png``.  Any other name is 404, so no file of a run folder is ever sent as HTML,
  SVG, script or any other type a browser would run, and nothing under ``inputs/`` is sent at all.
- **Headers.**  Every response carries ``X-Content-Type-Options: nosniff``; everything but a page carries
  ``Content-Security-Policy: sandbox``; a page carries PAGE_POLICY: no inline script or style at all (the
  script and the stylesheet are files of the package under /static/, the templates have no style
  attribute), images from the viewer itself or data URIs, no frames, forms or base URL.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlparse

from jinja2 import TemplateError

from physvec.runstore.report import asset, environment, read_png, run_context
from physvec.runstore.store import RunDirectory
from physvec.view.campaigns import campaign_page
from physvec.view.catalogue import Catalogue, is_campaign, is_run

_TEMPLATES = environment("physvec.view")


def run_row(key: str, run: RunDirectory) -> dict[str, Any]:
    """One line of the run list: what a person sorts and filters by."""
    meta = run.metadata()
    created = meta.get("created")
    return {
        "key": key, "run_id": run.run_id, "task": meta.get("task_id", ""), "model": meta.get("model", ""),
        "verdict": str(meta.get("verdict")), "status": run.status(), "tokens": meta.get("tokens_used", 0),
        "created": created or 0,
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(created)) if created else "",
        "seconds": _duration(run, created),
    }


def _duration(run: RunDirectory, created: float | None) -> float | str:
    """Seconds from the run's creation to its transcript's last write (run.json does not record when a run
    ended; the last event is appended and fsynced as the run ends), without reading the transcript."""
    if not created or not run.transcript_file.is_file():
        return ""
    return round(run.transcript_file.stat().st_mtime - created, 1)


class Viewer:
    """Renders the pages of one catalogue."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue

    def index(self) -> str:
        """The run list and the campaigns; a run whose run.json cannot be read (being written, or damaged) is
        named apart instead of taking the whole list down."""
        runs, campaigns = self.catalogue.find()
        rows, unreadable = [], []
        for entry in runs:
            try:
                rows.append(run_row(entry.key, RunDirectory(entry.path)))
            except (OSError, ValueError):
                unreadable.append(entry.path.name)
        return _TEMPLATES.get_template("index.html.j2").render(
            home="", inline=None, roots=self.catalogue.roots, runs=rows, unreadable=unreadable,
            campaigns=campaigns, quote=quote)

    def run(self, key: str) -> str | None:
        folder = self.catalogue.resolve(key)
        if folder is None or not is_run(folder):
            return None
        context = run_context(RunDirectory(folder), lambda name, _: f"/file?key={quote(key)}&name={quote(name)}")
        return _TEMPLATES.get_template("report.html.j2").render(home="/", inline=None, **context)

    def campaign(self, key: str) -> str | None:
        folder = self.catalogue.resolve(key)
        if folder is None or not is_campaign(folder):
            return None
        run_keys = {entry.path.name: entry.key for entry in self.catalogue.runs()}
        return _TEMPLATES.get_template("campaign.html.j2").render(
            home="/", inline=None, page=campaign_page(folder, run_keys), key=key, quote=quote)


PAGE_POLICY = "; ".join(("default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
                         "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"))
"""The pages' content-security policy: their script and style only from /static/, nothing inline."""
OTHER_POLICY = "sandbox"
"""Everything that is not a page (figures, /static/ files, errors): an opaque origin that runs nothing."""
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
STATIC_TYPES = {"style.css": "text/css; charset=utf-8", "page.js": "text/javascript; charset=utf-8"}
TEXT = "text/plain; charset=utf-8"


class ViewServer(ThreadingHTTPServer):
    """A viewer of ``roots`` bound to 127.0.0.1, with its launch token (see the module's docstring)."""

    def __init__(self, roots: list[Path], port: int) -> None:
        self.viewer = Viewer(Catalogue(roots))
        self.token = secrets.token_urlsafe(32)
        self.static = {f"/static/{name}": (asset(name).encode(), kind) for name, kind in STATIC_TYPES.items()}
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def launch_url(self) -> str:
        """The address to open first: it carries the token, and sets the cookie that carries it from then on."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    @property
    def cookie_name(self) -> str:
        return f"physvec_view_{self.port}"

    def answers_host(self, hosts: list[str]) -> bool:
        """Whether a request's Host headers are exactly one loopback name with this server's port."""
        return len(hosts) == 1 and hosts[0].lower() in {f"{name}:{self.port}" for name in LOOPBACK}

    def is_token(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        url = urlparse(self.path)
        query = parse_qs(url.query)
        if not self.server.answers_host(self.headers.get_all("Host") or []):
            self._send(HTTPStatus.MISDIRECTED_REQUEST, b"physvec view answers only 127.0.0.1, localhost and "
                                                       b"[::1] with its own port", TEXT)
        elif self.server.is_token(query.pop("token", [None])[0]):
            self._sign_in(url.path, query)
        elif not self.server.is_token(self._cookie()):
            self._send(HTTPStatus.FORBIDDEN, b"open the address physvec view printed when it started: it carries "
                                             b"this launch's token", TEXT)
        else:
            self._route(url.path, {name: values[0] for name, values in query.items()})

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def _cookie(self) -> str | None:
        """The value of this server's cookie, if the request carries it."""
        for header in self.headers.get_all("Cookie") or []:
            for pair in header.split(";"):
                name, _, value = pair.strip().partition("=")
                if name == self.server.cookie_name:
                    return value
        return None

    def _sign_in(self, path: str, query: dict[str, list[str]]) -> None:
        """Set the cookie, and send the browser to the same address without the token.  The location is
        relative to this server whatever the path (a path ``//host`` would otherwise name another site)."""
        location = "/" + path.lstrip("/") + (f"?{urlencode(query, doseq=True)}" if query else "")
        cookie = f"{self.server.cookie_name}={self.server.token}; HttpOnly; SameSite=Strict; Path=/"
        self._send(HTTPStatus.SEE_OTHER, b"", TEXT, headers=(("Location", location), ("Set-Cookie", cookie)))

    def _route(self, path: str, query: dict[str, str]) -> None:
        pages: dict[str, Callable[[], str | None]] = {
            "/": self.server.viewer.index,
            "/run": lambda: self.server.viewer.run(query.get("key", "")),
            "/campaign": lambda: self.server.viewer.campaign(query.get("key", "")),
        }
        if path == "/file":
            self._file(self.server.viewer.catalogue.file(query.get("key", ""), query.get("name", "")))
        elif path in self.server.static:
            self._send(HTTPStatus.OK, *self.server.static[path])
        elif path in pages:
            self._render(pages[path])
        else:
            self._page(None)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, policy: str = OTHER_POLICY,
              headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(status)
        for name, value in (("Content-Type", content_type), ("Content-Length", str(len(body))),
                            ("Content-Security-Policy", policy), ("X-Content-Type-Options", "nosniff"),
                            ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"), *headers):
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _page(self, html: str | None) -> None:
        if html is None:
            self._send(HTTPStatus.NOT_FOUND, b"no such run or campaign", TEXT)
        else:
            self._send(HTTPStatus.OK, html.encode(), "text/html; charset=utf-8", policy=PAGE_POLICY)

    def _render(self, page: Callable[[], str | None]) -> None:
        """A page, or a 500 that says what went wrong: a run being written can be read half-way."""
        try:
            html = page()
        except (OSError, ValueError, KeyError, TemplateError) as error:
            message = f"this page could not be shown: {type(error).__name__}: {error}"
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, message.encode(), TEXT)
            return
        self._page(html)

    def _file(self, path: Path | None) -> None:
        """A linked figure or plot, sent as image/png only when it is one (report.read_png)."""
        data = None if path is None else read_png(path)
        if data is None:
            self._send(HTTPStatus.NOT_FOUND, b"no such figure", TEXT)
        else:
            self._send(HTTPStatus.OK, data, "image/png")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a page view is not news."""


def make_server(roots: list[Path], port: int = 0) -> ViewServer:
    """A server bound to 127.0.0.1 (port 0: a free one), not yet serving; open its ``launch_url``."""
    return ViewServer(roots, port)
