"""Rubric trees in the published benchmark's shape, read as our Rubric.

A tree is ``{source, guide_caption, task, weight, children}``; inner nodes are ``{id, statement, weight,
children}`` and leaves ``{issue, weight, children: {judge, support}}`` (``judge`` and ``support`` are
upstream's grading slots, "TBD" when ungraded, and are not read).  Weights are strings upstream and keep
their values.  The four top-level nodes are the four sections, in upstream's order and wording: code
correctness -> reproduction objective, model -> physical system, method -> computational method,
parameters -> parameters.

A leaf of the parameters section that states a number about a parameter the patterns read becomes a
machine check on PARAMS (elsewhere a number is part of a larger claim, and checking it alone would
certify more than was checked):
"bond dimension at least 400" -> ``maxdim >= 400``, "cutoff at most 5.5e-5" -> ``cutoff <= 5.5e-05``,
"sweep number at least 40" -> ``nsweeps >= 40``, ``L=200`` -> ``L == 200`` (keys as ITensors names them;
the task's interface sentence asks for them).  Every other leaf stays prose, judged by vote.
"""

from __future__ import annotations

import re
from typing import Any

from physvec.taskfiles.rubric import RUBRIC_SECTIONS
from physvec.taskfiles.upstream_checks import parse_pairs

UPSTREAM_RUBRIC_KEYS = frozenset({"source", "guide_caption", "task", "weight", "children"})
_SECTION_WORDS = (("code", "reproduction objective"), ("model", "physical system"), ("method", "computational method"),
                  ("parameter", "parameters"))
_NUMBER = r"(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
LEAF_CHECKS: tuple[tuple[str, str, str], ...] = (
    (rf"bond dimension\b.*?\bat least (?:to be )?{_NUMBER}", "maxdim", ">="),
    (rf"\bcutoff\b.*?\bat most (?:to be )?{_NUMBER}", "cutoff", "<="),
    (rf"(?:sweep number|nsweeps?)\b.*?\bat least (?:to be )?{_NUMBER}", "nsweeps", ">="),
)
"""(pattern over the leaf text, PARAMS key, comparison): numbers about accuracy parameters."""
NAME_LENGTH = 90


def is_upstream_rubric(data: dict[str, Any]) -> bool:
    return "children" in data and "sections" not in data and bool({"source", "guide_caption"} & data.keys())


def leaf_check(issue: str) -> str | None:
    """The machine check a leaf's text states, or None when it states none the patterns read."""
    text = " ".join(issue.split())
    for pattern, key, op in LEAF_CHECKS:
        match = re.search(pattern, text, re.IGNORECASE)
        if match:
            return f"{key} {op} {float(match.group(1))!r}" if "." in match.group(1) or "e" in match.group(1).lower() \
                else f"{key} {op} {match.group(1)}"
    system, arguments = parse_pairs(text.replace("$", " "))
    if len(system) == 1 and not arguments:
        ((key, value),) = system.items()
        if key.isidentifier() and isinstance(value, (int, float)):
            return f"{key} == {value!r}"
    return None


def _weight(node: dict[str, Any]) -> float:
    try:
        weight = float(node.get("weight", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return weight if weight > 0 else 1.0


def _section_name(statement: str, index: int) -> str:
    lowered = statement.lower()
    return next((name for word, name in _SECTION_WORDS if word in lowered), RUBRIC_SECTIONS[index % 4])


class _Names:
    """Unique, readable leaf names: the issue's first words, numbered when two would collide."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, text: str) -> str:
        words = " ".join(text.split())
        base = words if len(words) <= NAME_LENGTH else words[:NAME_LENGTH].rsplit(" ", 1)[0] + " ..."
        name, number = base or "unnamed leaf", 2
        while name in self.used:
            name, number = f"{base} ({number})", number + 1
        self.used.add(name)
        return name


def _node(data: dict[str, Any], names: _Names, checks: bool) -> dict[str, Any]:
    """Our node for an upstream node; ``checks``: leaves may become machine checks (the parameters section
    only, where a leaf's number is the whole requirement; elsewhere a number is part of a larger claim)."""
    if "issue" in data or not isinstance(data.get("children"), list):
        issue = str(data.get("issue") or data.get("statement") or "")
        node = {"name": names(issue), "weight": _weight(data), "description": " ".join(issue.split())}
        check = leaf_check(issue) if checks else None
        return {**node, "check": check} if check else node
    children = [_node(child, names, checks) for child in data["children"] if isinstance(child, dict)]
    statement = str(data.get("statement", ""))
    return {"name": names(statement), "weight": _weight(data), "description": statement, "children": children}


def to_rubric_data(data: dict[str, Any]) -> dict[str, Any]:
    """Our rubric's JSON for an upstream tree (validated by the caller like any rubric)."""
    names = _Names()
    sections = []
    for index, section in enumerate(child for child in data.get("children", []) if isinstance(child, dict)):
        name = _section_name(str(section.get("statement", "")), index)
        node = _node(section, names, checks=name == "parameters")
        names.used.add(name)
        sections.append({**node, "name": name, "children": node.get("children", [])})
    _drop_scans(sections)
    return {"task": str(data.get("source") or "") or None, "sections": sections}


def _leaves(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [leaf for child in node.get("children", []) for leaf in _leaves(child)] if node.get("children") else [node]


def _drop_scans(sections: list[dict[str, Any]]) -> None:
    """Checks that pin one key to two values (``theta == -0.64 pi`` and ``theta == -0.74 pi``: a scan, not a
    setting) cannot both hold for one PARAMS; those leaves stay prose."""
    leaves = [leaf for section in sections for leaf in _leaves(section) if "check" in leaf]
    keys = [leaf["check"].split()[0] for leaf in leaves if " == " in leaf["check"]]
    scanned = {key for key in keys if keys.count(key) > 1}
    for leaf in leaves:
        if " == " in leaf["check"] and leaf["check"].split()[0] in scanned:
            del leaf["check"]
