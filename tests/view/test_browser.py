"""`physvec view` and report.html in a real browser: Debian's chromium driven by Playwright.

Each test opens a page of the real server (loopback, a free port, entered through its launch URL as a user
does) or a report.html from disk, and asserts what a first-time reader needs: the summary at the top,
navigation links that lead somewhere, no console error (a content-security-policy violation is one), and no
horizontal scrolling in a 1280 px window.  Files a generated program wrote into a run folder (HTML, SVG, a
figure that is HTML) are opened through the viewer's URLs and must run no script.  Screenshots are saved
under the test's tmp_path (CI keeps them as artefacts).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from physvec.runstore.store import RunDirectory
from physvec.view.server import ViewServer
from tests.view.test_server_security import ACTIVE_TYPES, file_path, serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; "
                                                         ".ci/run installs it): the browser tests need a real browser")
WIDTH = 1280


@pytest.fixture(scope="module")
def server(example_runs: dict[str, RunDirectory], campaign_folder: Path) -> Iterator[ViewServer]:
    """A viewer over the example runs and the campaign."""
    with serving([next(iter(example_runs.values())).path.parent, campaign_folder.parent]) as server:
        yield server


@pytest.fixture(scope="module")
def attacked_server(attacked_root: Path) -> Iterator[ViewServer]:
    """A viewer over the run whose program wrote active content (conftest.attacked_root)."""
    with serving([attacked_root]) as server:
        yield server


def signed_in(page: Page, server: ViewServer) -> str:
    """The base URL, after the page opened the launch URL (which sets the viewer's cookie)."""
    page.goto(server.launch_url)
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def viewer(page: Page, server: ViewServer) -> str:
    """The base URL of the viewer, with the page signed in."""
    return signed_in(page, server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, tmp_path: Path) -> Iterator[Page]:
    """A 1280 px page that fails the test on any console error or uncaught exception, and leaves a
    screenshot in tmp_path."""
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    opened.screenshot(path=str(tmp_path / "page.png"), full_page=True)
    context.close()
    assert errors == [], "the browser console reported errors"


def run_url(base: str, run: RunDirectory) -> str:
    return f"{base}/run?key={quote('0/' + run.path.name)}"


def assert_fits_the_window(page: Page) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= WIDTH, f"the page is {scroll_width} px wide in a {WIDTH} px window"


def assert_navigation_leads_somewhere(page: Page) -> None:
    """Every in-page link of the top bar names an element that exists and is scrolled into view."""
    links = page.locator("header nav a").all()
    assert len(links) >= 5
    for link in links:
        target = link.get_attribute("href")
        assert target and target.startswith("#") and page.locator(target).count() == 1, target
        link.click()
        assert page.locator(target).is_visible(), target


def test_the_readme_example_run_opens_with_its_verdict_and_rubric_score_at_the_top(viewer, example_runs, page):
    page.goto(run_url(viewer, example_runs["readme"]))
    summary = page.locator("#summary")
    assert "certified" in summary.locator("h2").inner_text()
    assert "rubric score" in summary.inner_text()
    assert "unknown" in summary.locator("h3.count-unknown").inner_text()
    assert_navigation_leads_somewhere(page)
    headings = page.locator("#certificates ~ h3[id^=certificate-]").all_inner_texts()
    assert [h.split(":")[0] for h in headings] == ["programming-v01", "scientific-v01", "convergence-v01",
                                                  "domain_checks-v01", "isolation"]
    assert page.locator("#certificate-convergence-v01 ~ div table table th", has_text="observed").count() >= 1
    assert page.locator("img.figure").evaluate("image => image.naturalWidth") > 0
    assert_fits_the_window(page)


def test_a_failed_run_names_the_failed_obligation_first_and_its_conversation_is_searchable(viewer, example_runs,
                                                                                          page):
    page.goto(run_url(viewer, example_runs["failed"]))
    assert "failed" in page.locator("#summary h2").inner_text()
    assert "script_executes" in page.locator("#summary .look-first").inner_text()
    page.locator("#summary li a", has_text="script_executes").click()
    assert page.locator("tr:target").inner_text().startswith("script_executes"), "the summary leads to its row"
    entries = page.locator("#conversation-entries .entry")
    total = entries.count()
    page.fill("#conversation-search", "programming_repair")
    shown = page.locator("#conversation-entries .entry:not(.hidden)").count()
    assert 0 < shown < total, "the search keeps the repair's model call and hides the rest"
    assert_navigation_leads_somewhere(page)
    assert_fits_the_window(page)


def test_a_model_unavailable_run_shows_why_it_stopped(viewer, example_runs, page):
    page.goto(run_url(viewer, example_runs["unavailable"]))
    summary = page.locator("#summary")
    assert "model_unavailable" in summary.inner_text()
    assert "replies were already served" in summary.locator(".look-first").inner_text()
    assert_navigation_leads_somewhere(page)
    assert_fits_the_window(page)


def test_the_run_list_filters_sorts_and_links_to_each_run(viewer, example_runs, page):
    page.goto(viewer + "/")
    rows = page.locator("#run-table tbody tr")
    assert rows.count() == 3
    page.fill("#run-filter", "failed")
    assert page.locator("#run-table tbody tr:not(.hidden)").count() == 1
    page.fill("#run-filter", "")
    page.locator("#run-table th", has_text="tokens").click()
    tokens = [int(text) for text in page.locator("#run-table tbody td:nth-child(7)").all_inner_texts()]
    assert tokens == sorted(tokens)
    page.locator("#run-table a", has_text=example_runs["readme"].run_id).click()
    assert page.locator("#summary").is_visible()
    assert_fits_the_window(page)


def test_a_campaign_page_has_a_per_task_table_its_pass_at_k_plot_and_links_to_its_runs(viewer, page):
    page.goto(viewer + "/")
    page.locator("#campaign-list a", has_text="qmp-campaign").click()
    per_task = page.locator("#per-task + div table")
    assert "library-tfim-quench" in per_task.inner_text() and "tiny-heisenberg" in per_task.inner_text()
    assert page.locator("img.figure").evaluate("image => image.naturalWidth") > 0
    assert page.locator("a", has_text="all runs and campaigns").count() == 1
    assert_fits_the_window(page)
    assert page.locator("a.run-link").count() == 3, "each trial record links to its run"
    page.locator("a.run-link").first.click()
    assert page.locator("#summary").is_visible()


def test_report_html_is_one_file_that_reads_the_same_without_a_server(example_runs, page):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    report = example_runs["readme"].report_file
    page.goto(report.as_uri())
    assert "certified" in page.locator("#summary h2").inner_text()
    assert page.locator("img.figure").evaluate("image => image.naturalWidth") > 0
    assert [url for url in requests if not url.startswith("data:")] == [report.as_uri()]
    page.fill("#conversation-search", "programming")
    assert page.locator("#conversation-search-count").inner_text().endswith(" shown"), "its inline script runs"
    assert_navigation_leads_somewhere(page)
    assert_fits_the_window(page)


def test_files_a_program_wrote_run_no_script_when_opened_through_the_viewer(attacked_server, attacked_root,
                                                                            browser):
    """The page a sandboxed program wrote, its SVG with an onload handler, a figure.png that is HTML and an
    overlay linking to the sealed assertions: none reaches the browser as something it would run or show."""
    context = browser.new_context()
    opened = context.new_page()
    signed_in(opened, attacked_server)
    (run,) = [path for path in attacked_root.iterdir() if path.is_dir()]
    base = f"http://127.0.0.1:{attacked_server.server_address[1]}"
    for name in ("work/evil.html", "work/evil.svg", "figure.png", "reference_overlay.png"):
        response = opened.goto(base + file_path(f"0/{run.name}", name))
        assert response is not None
        kind = response.headers.get("content-type", "")
        assert not any(active in kind for active in ACTIVE_TYPES), (name, kind)
        assert opened.title() != "pwned" and opened.evaluate("window.name") != "pwned", name
        assert "SEALED" not in opened.content(), name
    context.close()


def test_the_attacked_run_page_renders_cleanly_and_shows_no_figure_that_is_not_a_png(attacked_server, page):
    signed_in(page, attacked_server)
    page.locator("#run-table a").first.click()
    assert "certified" in page.locator("#summary h2").inner_text()
    assert page.locator("img.figure").count() == 0
    assert "The run wrote no figure." in page.locator("#figures + p").inner_text()
    assert page.title() != "pwned"
