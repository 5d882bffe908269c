"""Repair lists and function-level edits, both decided by code.

A repair list names the functions a certificate blames, with what failed and the evidence.  The
model may only replace those functions (and add imports); every other definition in its reply is
rejected and recorded, so a repair can never quietly rewrite code that passed its checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from physvec.verifiers.certificate import Certificate, Obligation, Outcome
from physvec.verifiers.programming.contract import top_level_blocks

PARAMS = "PARAMS"
_IMPORT = re.compile(r"^(?:import|from)\s+\S.*$", re.MULTILINE)
_PARAMS_START = re.compile(r"^PARAMS\s*(?::[^=]*)?=\s*", re.MULTILINE)
_EVIDENCE_KEYS = ("error", "line", "traceback", "stderr_tail", "interface", "failing_level", "calls", "missing",
                  "breaches", "library", "inputs")


@dataclass
class RepairItem:
    """One function to replace, and every failed check that blames it."""

    function: str
    problems: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)


def _blamed(obligation: Obligation, unit_failures: set[str]) -> list[str]:
    """The functions (or PARAMS, or main) a failed obligation blames (a unit or differential test its function).

    An integration failure in a function whose own unit test failed is that function's fault; only
    when it passed alone is the interface with the function that made its input blamed.
    """
    kind, _, subject = obligation.name.partition(":")
    if kind in ("unit", "differential"):
        return [subject]
    if kind == "integration":
        failing = obligation.evidence.get("failing_function")
        if failing in unit_failures:
            return [failing]
        return list(obligation.evidence.get("interface") or [subject])
    if kind == "contract":
        if subject.startswith("params"):
            return [PARAMS]
        function = obligation.evidence.get("function")
        return [function] if function else ["main"]
    if kind == "provenance":
        return list(dict.fromkeys(_function_at(breach.get("where", ""))
                                  for breach in obligation.evidence.get("breaches", [])))
    return []


def _function_at(where: str) -> str:
    """The function a breach's place names ("script.py:12 in observable_x"); module level is main's business."""
    function = where.rpartition(" in ")[2]
    return "main" if not function or function.startswith("<") else function


def repair_items(certificate: Certificate) -> list[RepairItem]:
    """The repair list of a programming certificate, in the order its obligations blame functions."""
    items: dict[str, RepairItem] = {}
    failed = [o for o in certificate.obligations if o.outcome is Outcome.FAILED]
    unit_failures = {o.name.removeprefix("unit:") for o in failed if o.category == "unit"}
    for obligation in failed:
        for function in _blamed(obligation, unit_failures):
            item = items.setdefault(function, RepairItem(function))
            item.problems.append(f"{obligation.name}: {obligation.message}")
            item.evidence.append({k: obligation.evidence[k] for k in _EVIDENCE_KEYS if k in obligation.evidence})
    if failed and not items:  # the script failed outside every element function
        items["main"] = RepairItem("main", [f"{o.name}: {o.message}" for o in failed],
                                   [{k: o.evidence[k] for k in _EVIDENCE_KEYS if k in o.evidence} for o in failed])
    return list(items.values())


def editable_names(source: str) -> set[str]:
    """Every top-level definition of a script, and PARAMS: what a physics repair may replace."""
    return {name for name, _, _ in top_level_blocks(source)} | {PARAMS}


@dataclass(frozen=True)
class EditResult:
    """The script after the accepted edits, and what was accepted and rejected."""

    source: str
    applied: tuple[str, ...]
    rejected: tuple[str, ...]
    added_imports: tuple[str, ...]


def _params_span(source: str) -> tuple[int, int] | None:
    """Character span of the PARAMS assignment (through its balanced literal)."""
    match = _PARAMS_START.search(source)
    if match is None:
        return None
    depth, index = 0, match.end()
    while index < len(source):
        depth += {"{": 1, "[": 1, "(": 1, "}": -1, "]": -1, ")": -1}.get(source[index], 0)
        index += 1
        if depth == 0 and (index >= len(source) or source[index] == "\n"):
            break
    return match.start(), index


def _block_text(source: str, name: str) -> str | None:
    lines = source.splitlines()
    return next(("\n".join(lines[start - 1:end]) for block_name, start, end in top_level_blocks(source)
                 if block_name == name), None)


def _replace_block(source: str, name: str, replacement: str) -> str | None:
    block = next(((start, end) for block_name, start, end in top_level_blocks(source) if block_name == name), None)
    if block is None:
        return None
    lines = source.splitlines(keepends=True)
    return "".join(lines[:block[0] - 1]) + replacement.rstrip("\n") + "\n" + "".join(lines[block[1]:])


def apply_edits(source: str, reply_code: str, allowed: set[str]) -> EditResult:
    """Replace the allowed functions (and PARAMS) with the reply's versions; reject every other change.

    A definition repeated unchanged is no edit and is ignored.  Imports in the reply that the script
    lacks are added after the script's last import.
    """
    applied, rejected = [], []
    reply_lines = reply_code.splitlines()
    for name, start, end in top_level_blocks(reply_code):
        definition = "\n".join(reply_lines[start - 1:end])
        if _block_text(source, name) == definition:
            continue
        updated = _replace_block(source, name, definition) if name in allowed else None
        if updated is None:
            rejected.append(name)
        else:
            source = updated
            applied.append(name)
    reply_params = _params_span(reply_code)
    own = _params_span(source)
    unchanged = (reply_params is not None and own is not None
                 and reply_code[reply_params[0]:reply_params[1]] == source[own[0]:own[1]])
    if reply_params is not None and not unchanged:
        if PARAMS in allowed and own is not None:
            source = source[:own[0]] + reply_code[reply_params[0]:reply_params[1]] + source[own[1]:]
            applied.append(PARAMS)
        else:
            rejected.append(PARAMS)
    existing = set(_IMPORT.findall(source))
    new_imports = [line for line in dict.fromkeys(_IMPORT.findall(reply_code)) if line not in existing]
    if new_imports and applied:
        last = list(_IMPORT.finditer(source))
        at = last[-1].end() + 1 if last else 0
        source = source[:at] + "".join(line + "\n" for line in new_imports) + source[at:]
    return EditResult(source, tuple(applied), tuple(rejected), tuple(new_imports if applied else ()))
