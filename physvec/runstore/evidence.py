"""Evidence as a reader wants to see it: tables, not JSON cells.

A certificate's evidence is free-form (numbers, tracebacks, lists of rows, nested settings).  Each value is
turned into one display block: a list of records becomes a table with a column per key (a convergence
ladder reads rung by rung), a flat mapping becomes a two-column table, multi-line text becomes a
preformatted block and anything else a short inline value.  Sealed evidence (expected values) is marked
so that a reader knows the model never saw it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from physvec.verifiers.certificate import Obligation

SEALED_NOTE = "never shown to the model"


@dataclass(frozen=True)
class Block:
    """One piece of evidence ready for a template: ``kind`` is table, text or value."""

    key: str
    kind: str
    text: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    sealed: bool = False


def cell(value: Any) -> str:
    """A value as the text of one table cell: numbers rounded to what a reader compares, None as a dash."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(row, dict) for row in value)


def _is_flat_mapping(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(not isinstance(v, (dict, list)) or _short(v)
                                                           for v in value.values())


def _short(value: Any) -> bool:
    return len(json.dumps(value, default=str)) <= 80


def block(key: str, value: Any, sealed: bool = False) -> Block:
    """The display block for one evidence entry."""
    if _is_records(value):
        columns = list(dict.fromkeys(column for row in value for column in row))
        rows = [[cell(row.get(column)) for column in columns] for row in value]
        return Block(key, "table", columns=columns, rows=rows, sealed=sealed)
    if _is_flat_mapping(value):
        return Block(key, "table", columns=["", "value"], rows=[[str(k), cell(v)] for k, v in value.items()],
                     sealed=sealed)
    if isinstance(value, str) and ("\n" in value or len(value) > 120):
        return Block(key, "text", text=value, sealed=sealed)
    if isinstance(value, (dict, list)) and not _short(value):
        return Block(key, "text", text=json.dumps(value, indent=1, default=str), sealed=sealed)
    return Block(key, "value", text=cell(value), sealed=sealed)


def obligation_blocks(obligation: Obligation) -> list[Block]:
    """Every non-empty evidence entry of an obligation, then its non-empty sealed entries (marked as such)."""
    shown = [block(key, value) for key, value in obligation.evidence.items() if not _empty(value)]
    return shown + [block(key, value, sealed=True) for key, value in obligation.sealed.items() if not _empty(value)]


def _empty(value: Any) -> bool:
    return value is None or value in ("", [], {})
