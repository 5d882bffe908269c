"""Paper sources as text: LaTeX and Markdown are read as they are, PDF through pypdf."""

from __future__ import annotations

from pathlib import Path


def read_paper_text(path: Path) -> str:
    """The text of a .tex, .md or .pdf paper source."""
    if path.suffix.lower() == ".pdf":
        from pypdf import PdfReader

        return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)
    return path.read_text(encoding="utf-8", errors="replace")
