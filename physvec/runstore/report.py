"""A run's page: the summary first, then timeline, conversation, certificates, scripts, figures and cost.

The same templates serve two readers: ``report.html``, one self-contained file (style, script and figures
inline) that can be mailed or archived with its run folder, and the ``physvec view`` web app, which serves
the style, the script and the figures as files of their own and adds navigation between runs.

report.html keeps its style and script inline because it is opened from disk: a file:// page has no server
to fetch them from, and a mailed report has no sibling files.  Its own ``<meta>`` content-security policy
allows exactly those two inline blocks (by their SHA-256 hashes) and data-URI images, and nothing else.
A figure comes from the generated program's output, so it is shown only when it is a PNG file.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import os
import stat
from collections import defaultdict
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape

from physvec.runstore.conversation import conversation
from physvec.runstore.evidence import SEALED_NOTE, obligation_blocks
from physvec.runstore.store import RunDirectory
from physvec.runstore.summary import RUBRIC_SCORE_MEANING, summarise
from physvec.runstore.transcript import Event, EventType, read_events

FIGURES = {"figure.png": "the reproduced figure, as the final script drew it",
           "reference_overlay.png": "the reproduction over the paper's reference data"}
FigureSource = Callable[[str, bytes], str]
"""Maps a figure's file name in the run folder and its PNG bytes to the ``src`` an <img> should use."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ASSETS = ("style.css", "page.js")
"""The run-page templates' files that the viewer serves under /static/ and report.html inlines."""


def asset(name: str) -> str:
    """The text of one of ASSETS, read from the installed package."""
    return resources.files("physvec.runstore").joinpath("templates", name).read_text(encoding="utf-8")


def read_png(path: Path) -> bytes | None:
    """The bytes of a PNG file, or None when ``path`` is a symlink, not a regular file, unreadable, or does not
    start with PNG's signature.  A figure is written by an untrusted program, and a page must never hand the
    browser HTML or SVG that only calls itself figure.png.  The file is opened without following a symlink
    and checked through the same descriptor it is read from, so it cannot be swapped in between."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        with open(descriptor, "rb", closefd=False) as stream:
            data = stream.read()
    finally:
        os.close(descriptor)
    return data if data.startswith(PNG_SIGNATURE) else None


def environment(*packages: str) -> Environment:
    """Templates of ``packages`` (searched first) over the run-page templates here."""
    loaders = [PackageLoader(package, "templates") for package in (*packages, "physvec.runstore")]
    return Environment(loader=ChoiceLoader(loaders), undefined=StrictUndefined,
                       autoescape=select_autoescape(["html", "j2"]))


_ENVIRONMENT = environment()


def node_timeline(events: list[Event]) -> list[dict[str, Any]]:
    """One row per node execution; a start without a finish (a killed attempt) shows as interrupted."""
    rows: dict[tuple[str | None, int | None, int], dict[str, Any]] = {}
    first_time = events[0].time if events else 0.0
    for event in events:
        if event.type is EventType.NODE_STARTED:
            rows[(event.node, event.step, event.data["attempt"])] = {
                "node": event.node, "step": event.step, "attempt": event.data["attempt"],
                "start_s": round(event.time - first_time, 2), "seconds": None, "tokens": None, "state": "interrupted",
            }
        elif event.type is EventType.NODE_FINISHED:
            row = rows.get((event.node, event.step, event.data["attempt"]))
            if row is not None:
                row.update(seconds=event.data["seconds"], tokens=event.data["tokens"], state="finished")
    return list(rows.values())


def cost_per_node(timeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, dict[str, Any]] = defaultdict(lambda: {"runs": 0, "seconds": 0.0, "tokens": 0})
    for row in timeline:
        total = totals[row["node"]]
        total["runs"] += 1
        total["seconds"] += row["seconds"] or 0.0
        total["tokens"] += row["tokens"] or 0
    return [{"node": node, **total} for node, total in totals.items()]


def _diff_kind(line: str) -> str:
    """The colour class of one unified-diff line."""
    if line.startswith(("---", "+++")):
        return "file"
    return {"@": "hunk", "+": "added", "-": "removed"}.get(line[:1], "context")


def script_versions(run: RunDirectory) -> list[dict[str, Any]]:
    """Every script version: the first in full, each later one as a coloured diff from its predecessor."""
    scripts = run.scripts()
    versions = [{"name": path.stem, "text": path.read_text(), "diff": []} for path in scripts[:1]]
    for older, newer in zip(scripts, scripts[1:]):
        lines = difflib.unified_diff(older.read_text().splitlines(), newer.read_text().splitlines(),
                                     older.name, newer.name, lineterm="")
        versions.append({"name": newer.stem, "text": newer.read_text(),
                         "diff": [(_diff_kind(line), line) for line in lines]})
    return versions


def inline_figure(name: str, data: bytes) -> str:
    """A figure as a data URI, so report.html needs no other file."""
    return "data:image/png;base64," + base64.b64encode(data).decode()


def _source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline_assets() -> dict[str, str]:
    """The style and script report.html carries inline, and the policy that lets exactly them run; the
    template inserts them verbatim (``| safe``), since the policy's hashes are of these very strings."""
    style, script = (asset(name) for name in ASSETS)
    policy = "; ".join(("default-src 'none'", f"script-src {_source_hash(script)}",
                        f"style-src {_source_hash(style)}", "img-src data:", "base-uri 'none'", "form-action 'none'"))
    return {"style": style, "script": script, "policy": policy}


def run_context(run: RunDirectory, figure_source: FigureSource) -> dict[str, Any]:
    """Everything the run page shows, computed once for either reader."""
    events = read_events(run.transcript_file)
    meta = run.metadata()
    certificates = run.certificates()
    timeline = node_timeline(events)
    counts: dict[str, int] = defaultdict(int)
    for event in events:
        counts[event.type.value] += 1
    return {
        "meta": meta, "status": run.status(), "summary": summarise(meta, certificates, events),
        "timeline": timeline, "costs": cost_per_node(timeline), "counts": counts,
        "conversation": conversation(events), "certificates": certificates, "blocks": obligation_blocks,
        "sealed_note": SEALED_NOTE, "rubric_score_meaning": RUBRIC_SCORE_MEANING, "scripts": script_versions(run),
        "figures": [(figure_source(name, data), caption) for name, caption in FIGURES.items()
                    if (data := read_png(run.path / name)) is not None],
    }


def render_report(run: RunDirectory) -> str:
    """report.html's text: the run page with everything inline."""
    return _ENVIRONMENT.get_template("report.html.j2").render(home="", inline=inline_assets(),
                                                              **run_context(run, inline_figure))


def write_report(run: RunDirectory) -> Path:
    run.report_file.write_text(render_report(run), encoding="utf-8")
    return run.report_file
