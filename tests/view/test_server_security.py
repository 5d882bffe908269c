"""What `physvec view` answers to a browser that is not its user's: a page of another site that rebinds its
name to 127.0.0.1, another local process without the launch token, and the files a sandboxed program wrote
into a run folder (HTML, SVG, a figure that is not an image, a link to the sealed inputs)."""

from __future__ import annotations

import base64
import hashlib
import html
import http.client
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from physvec.runstore.report import render_report
from physvec.runstore.store import RunDirectory
from physvec.view.server import ViewServer, make_server
from tests.view.conftest import SEALED

ACTIVE_TYPES = ("text/html", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml",
                "javascript", "ecmascript", "application/pdf")


@dataclass(frozen=True)
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes


def fetch(server: ViewServer, path: str, host: str | None = "127.0.0.1:{port}", cookie: str = "") -> Reply:
    """One GET with exactly these Host ({port}: the server's; None: no Host header) and Cookie headers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host.format(port=server.server_address[1]))
        if cookie:
            connection.putheader("Cookie", cookie)
        connection.endheaders()
        response = connection.getresponse()
        return Reply(response.status, response.headers, response.read())
    finally:
        connection.close()


def sign_in(server: ViewServer) -> str:
    """The Cookie header a browser sends after opening the launch URL."""
    launch = urlsplit(server.launch_url)
    cookie = fetch(server, f"{launch.path}?{launch.query}").headers["Set-Cookie"]
    assert cookie, "the launch URL sets no cookie"
    return cookie.split(";")[0]


@contextmanager
def serving(roots: list[Path]) -> Iterator[ViewServer]:
    """A viewer of ``roots`` serving on a free port in a thread of this process."""
    server = make_server(roots, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def server(attacked_root: Path, example_runs: dict[str, RunDirectory], campaign_folder: Path
           ) -> Iterator[ViewServer]:
    """A viewer whose root 0 holds the attacked run, root 1 the untouched example runs, root 2 the campaign."""
    with serving([attacked_root, example_runs["readme"].path.parent, campaign_folder.parent]) as server:
        yield server


@pytest.fixture(scope="module")
def cookie(server: ViewServer) -> str:
    return sign_in(server)


@pytest.fixture(scope="module")
def attacked(attacked_root: Path) -> str:
    """The key of the attacked run."""
    (run,) = [path for path in attacked_root.iterdir() if path.is_dir()]
    return f"0/{run.name}"


def file_path(key: str, name: str) -> str:
    return f"/file?key={quote(key, safe='')}&name={quote(name, safe='')}"


def assert_not_active(reply: Reply) -> None:
    kind = reply.headers.get("Content-Type", "")
    assert not any(active in kind for active in ACTIVE_TYPES), kind
    assert reply.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1.evil.example:{port}", "127.0.0.1:{other}",
                                  "localhost", "127.0.0.1", "127.0.0.1:{port}:{port}", "", None])
def test_a_host_header_that_is_not_loopback_with_the_servers_port_is_misdirected(server, cookie, attacked, host):
    named = None if host is None else host.replace("{other}", str(server.server_address[1] + 1))
    for path in ("/", file_path(attacked, "inputs/assertions.json"), f"/run?key={quote(attacked)}"):
        reply = fetch(server, path, host=named, cookie=cookie)
        assert reply.status == 421, (path, named)
        assert SEALED.encode() not in reply.body


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}", "[::1]:{port}"])
def test_the_loopback_names_with_the_servers_port_are_answered(server, cookie, host):
    reply = fetch(server, "/", host=host, cookie=cookie)
    assert reply.status == 200 and b"physvec runs and campaigns" in reply.body


def test_two_launches_have_different_long_random_tokens_and_the_url_printed_carries_it(example_runs):
    roots = [example_runs["readme"].path.parent]
    with serving(roots) as first, serving(roots) as second:
        assert first.token != second.token and len(first.token) >= 32
        assert first.launch_url == f"http://127.0.0.1:{first.server_address[1]}/?token={first.token}"
        assert fetch(second, "/", cookie=sign_in(first)).status == 403, "one launch's cookie opens no other"


@pytest.mark.parametrize("cookie_header", ["", "physvec_view=wrong", "{name}=wrong", "{name}={token}x",
                                           "{name}=", "other={token}"])
def test_without_the_token_or_its_cookie_every_endpoint_is_forbidden(server, attacked, example_runs,
                                                                     cookie_header):
    name = sign_in(server).split("=")[0]
    header = cookie_header.format(name=name, token=server.token)
    for path in ("/", f"/run?key={quote(attacked)}", f"/campaign?key={quote('2/qmp-campaign')}", "/static/page.js",
                 file_path(f"1/{example_runs['readme'].path.name}", "figure.png"),
                 file_path(attacked, "inputs/assertions.json"), "/?token=", "/?token=wrong", "/nowhere"):
        reply = fetch(server, path, cookie=header)
        assert reply.status == 403, (path, header)
        assert SEALED.encode() not in reply.body and b"physvec runs" not in reply.body


def test_the_launch_url_sets_a_strict_http_only_cookie_and_redirects_to_the_same_page_without_the_token(
        server, attacked):
    reply = fetch(server, f"/run?key={quote(attacked)}&token={server.token}")
    assert reply.status == 303
    assert reply.headers["Location"] == f"/run?key={quote(attacked, safe='')}"
    attributes = [part.strip() for part in reply.headers["Set-Cookie"].split(";")]
    assert attributes[0].endswith("=" + server.token)
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(attributes)
    page = fetch(server, reply.headers["Location"], cookie=attributes[0])
    assert page.status == 200 and b'id="summary"' in page.body


def test_pages_run_no_inline_script_or_style_under_their_policy(server, cookie, attacked):
    for path in ("/", f"/run?key={quote(attacked)}", f"/campaign?key={quote('2/qmp-campaign')}"):
        reply = fetch(server, path, cookie=cookie)
        policy = reply.headers["Content-Security-Policy"]
        directives = dict(part.strip().partition(" ")[::2] for part in policy.split(";"))
        assert directives["default-src"] == "'none'" and directives["script-src"] == "'self'", policy
        assert directives["style-src"] == "'self'" and directives["frame-ancestors"] == "'none'", policy
        assert "unsafe" not in policy
        page = reply.body.decode()
        assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/page.js">'], path
        assert "</script>" in page and re.search(r"<script[^>]*>[^<]", page) is None
        assert re.search(r"<style|\sstyle=|\son[a-z]+=|javascript:", page) is None, path


@pytest.mark.parametrize(("path", "kind"), [("/static/page.js", "text/javascript; charset=utf-8"),
                                            ("/static/style.css", "text/css; charset=utf-8")])
def test_the_pages_script_and_styles_come_from_the_package(server, cookie, path, kind):
    reply = fetch(server, path, cookie=cookie)
    assert reply.status == 200 and reply.headers["Content-Type"] == kind
    assert reply.headers["X-Content-Type-Options"] == "nosniff"
    name = path.rsplit("/", 1)[1]
    assert reply.body == (Path(__file__).parents[2] / "physvec/runstore/templates" / name).read_bytes()


@pytest.mark.parametrize("name", ["work/evil.html", "work/evil.svg", "figure.png", "reference_overlay.png",
                                  "report.html", "results.json", "scripts/v01.py", "run.json"])
def test_no_file_a_program_or_the_run_wrote_is_served_as_an_active_type(server, cookie, attacked, name):
    reply = fetch(server, file_path(attacked, name), cookie=cookie)
    assert_not_active(reply)
    assert reply.status == 404 and b"pwned" not in reply.body and SEALED.encode() not in reply.body


def test_a_real_png_figure_is_served_as_image_png_in_a_sandbox(server, cookie, example_runs):
    reply = fetch(server, file_path(f"1/{example_runs['readme'].path.name}", "figure.png"), cookie=cookie)
    assert reply.status == 200 and reply.headers["Content-Type"] == "image/png"
    assert reply.headers["Content-Security-Policy"] == "sandbox"
    assert reply.headers["X-Content-Type-Options"] == "nosniff"
    assert reply.body.startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize(("key", "name"), [
    ("{run}", "inputs/assertions.json"),                      # the sealed folder itself
    ("{run}/inputs", "assertions.json"),                      # the sealed folder as the key
    ("{run}", "figure.png/../inputs/assertions.json"),        # a dot-dot after an allowed name
    ("{run}", "./inputs//assertions.json"),                   # dot and doubled slash
    ("{run}", "inputs%2Fassertions.json"),                    # a slash encoded twice
    ("{run}", "inputs\\assertions.json"),                     # a backslash
    ("{run}", "reference_overlay.png"),                       # an allowed name that links to the sealed file
    ("{run}", "{absolute}"),                                  # an absolute path
    ("{run}", "../../secret.txt"),                            # out of the run and its root
    ("0/..", "secret.txt"),                                   # a key above its root
    ("{run}", "figure.png\x00../inputs/assertions.json"),     # a NUL byte
    ("{run}", "inputs/reference.json"),                       # the sealed reference data
    ("{run}", "task.json"),                                   # the task as run
])
def test_sealed_inputs_and_path_tricks_are_refused(server, cookie, attacked, attacked_root, key, name):
    absolute = str(attacked_root / attacked.partition("/")[2] / "inputs" / "assertions.json")
    path = file_path(key.format(run=attacked), name.format(absolute=absolute))
    reply = fetch(server, path, cookie=cookie)
    assert reply.status == 404, path
    assert SEALED.encode() not in reply.body
    assert_not_active(reply)


def test_the_sealed_inputs_folder_is_no_campaign_even_when_it_holds_records(server, cookie, attacked):
    reply = fetch(server, f"/campaign?key={quote(attacked + '/inputs')}", cookie=cookie)
    assert reply.status == 404 and SEALED.encode() not in reply.body


def source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_report_html_allows_only_its_own_inline_script_and_style(example_runs):
    page = render_report(example_runs["readme"])
    (policy,) = [html.unescape(value) for value in
                 re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)]
    (script,) = re.findall(r"<script>(.*?)</script>", page, re.DOTALL)
    (style,) = re.findall(r"<style>(.*?)</style>", page, re.DOTALL)
    directives = dict(part.strip().partition(" ")[::2] for part in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["img-src"] == "data:", policy
    assert directives["script-src"] == source_hash(script) and directives["style-src"] == source_hash(style)
