"""The retrieve tool of the agents: documentation snippets for a query, restricted to a task's backend.

The pipeline's retrieve node asks the queries a task implies (its request, its target, its spec) and
records each query with its answer summary and the snippets' sources in the transcript.  A machine
without a built store gets no snippets and a transcript line saying how to build one.
"""

from __future__ import annotations

from pathlib import Path

from physvec.knowledge_base.sources import searched_packages
from physvec.knowledge_base.store import MANIFEST, KnowledgeBase, Snippet, default_path


def store_is_built(path: Path | None = None) -> bool:
    return (Path(path or default_path()) / MANIFEST).is_file()


def retrieve(kb: KnowledgeBase, query: str, backend: str, k: int = 5) -> list[Snippet]:
    """The k best snippets for ``query`` from the backend's packages and our verifier library."""
    return kb.query(query, k, packages=searched_packages(backend))


def task_queries(request: str, figure: str, backend: str, spec_words: str | None = None) -> list[str]:
    """The queries a task implies: its request, its target with the backend, and its spec if it has one."""
    queries = [request, f"{backend} {figure}"]
    if spec_words:
        queries.append(f"{backend} {spec_words}")
    return queries


def summary(snippets: list[Snippet]) -> str:
    """One line answering a query: the qualified names found, best first."""
    return "; ".join(snippet.qualname for snippet in snippets) if snippets else "nothing found"
