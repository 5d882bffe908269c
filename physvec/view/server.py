"""The ``physvec view`` web server: the standard library's threading HTTP server on loopback, pages
rendered from the same jinja2 templates as report.html.

Read-only by construction: it answers GET and HEAD only, serves files only from inside the run and
campaign folders it found, and the pages load nothing from elsewhere (styles and scripts are inline).
"""

from __future__ import annotations

import mimetypes
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

from jinja2 import TemplateError

from physvec.runstore.report import environment, run_context
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
            home="", roots=self.catalogue.roots, runs=rows, unreadable=unreadable,
            campaigns=campaigns, quote=quote)

    def run(self, key: str) -> str | None:
        folder = self.catalogue.resolve(key)
        if folder is None or not is_run(folder):
            return None
        context = run_context(RunDirectory(folder), lambda name: f"/file?key={quote(key)}&name={quote(name)}")
        return _TEMPLATES.get_template("report.html.j2").render(home="/", **context)

    def campaign(self, key: str) -> str | None:
        folder = self.catalogue.resolve(key)
        if folder is None or not is_campaign(folder):
            return None
        run_keys = {entry.path.name: entry.key for entry in self.catalogue.runs()}
        return _TEMPLATES.get_template("campaign.html.j2").render(home="/", page=campaign_page(folder, run_keys),
                                                                   key=key, quote=quote)


class _Handler(BaseHTTPRequestHandler):
    viewer: Viewer

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        url = urlparse(self.path)
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        pages: dict[str, Callable[[], str | None]] = {
            "/": self.viewer.index,
            "/run": lambda: self.viewer.run(query.get("key", "")),
            "/campaign": lambda: self.viewer.campaign(query.get("key", "")),
        }
        if url.path == "/file":
            self._file(self.viewer.catalogue.file(query.get("key", ""), query.get("name", "")))
        elif url.path in pages:
            self._render(pages[url.path])
        else:
            self._page(None)

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", "default-src 'self' data: 'unsafe-inline'")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _page(self, html: str | None) -> None:
        if html is None:
            self._send(HTTPStatus.NOT_FOUND, b"no such run or campaign", "text/plain; charset=utf-8")
        else:
            self._send(HTTPStatus.OK, html.encode(), "text/html; charset=utf-8")

    def _render(self, page: Callable[[], str | None]) -> None:
        """A page, or a 500 that says what went wrong: a run being written can be read half-way."""
        try:
            html = page()
        except (OSError, ValueError, KeyError, TemplateError) as error:
            message = f"this page could not be shown: {type(error).__name__}: {error}"
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, message.encode(), "text/plain; charset=utf-8")
            return
        self._page(html)

    def _file(self, path: Path | None) -> None:
        if path is None:
            self._send(HTTPStatus.NOT_FOUND, b"no such file", "text/plain; charset=utf-8")
        else:
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            self._send(HTTPStatus.OK, path.read_bytes(), kind)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a page view is not news."""


def make_server(roots: list[Path], port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1 (port 0: a free one), not yet serving."""
    handler = type("Handler", (_Handler,), {"viewer": Viewer(Catalogue(roots))})
    return ThreadingHTTPServer(("127.0.0.1", port), handler)
