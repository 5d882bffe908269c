"""Repair plans and function-level edits, both decided by code.

A programming certificate's failures decide the kind of repair.  A structural failure (no PARAMS, no run_
function, no main(), module-level code that does not parse, fails while the script is imported or looks at
its surroundings, a function defined twice) leaves no function whose replacement could fix it: the whole
script is rewritten under the contract.  Otherwise a repair list names the functions the failures blame,
with what failed and the evidence.  The model may replace those functions, add the element and run_
functions they need, add keys to PARAMS (and replace PARAMS when it is blamed) and add imports; every other
change to existing code in its reply is rejected and recorded, so a repair can never quietly rewrite code
that passed its checks.  Repairers read obligations' evidence only, never their sealed values.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from physvec.verifiers.certificate import Certificate, Obligation, Outcome
from physvec.verifiers.programming.contract import RUN_PREFIX, element_role, top_level_blocks

PARAMS = "PARAMS"
WHOLE_SCRIPT = "the whole script"
_IMPORT = re.compile(r"^(?:import|from)\s+\S.*$", re.MULTILINE)
_PARAMS_START = re.compile(r"^PARAMS\s*(?::[^=]*)?=\s*", re.MULTILINE)
_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==", re.MULTILINE)
_UNDEFINED = re.compile(r"NameError: name '([A-Za-z_]\w*)' is not defined")
_EVIDENCE_KEYS = ("error", "line", "phase", "traceback", "stderr_tail", "interface", "failing_level", "calls",
                  "missing", "looks", "breaches", "library", "inputs")
_STRUCTURAL = ("contract:params", "contract:run", "contract:main", "contract:elements", "contract:surroundings:module")


@dataclass
class RepairItem:
    """One function to replace, and every failed check that blames it."""

    function: str
    problems: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Failure:
    """One failed check as a repairer reads it: its name, its message and the evidence that locates it."""

    name: str
    message: str
    evidence: dict[str, Any]


def _evidence(obligation: Obligation) -> dict[str, Any]:
    """The evidence that tells a repairer where and why (tracebacks, breaches, error output); never ``sealed``."""
    return {k: obligation.evidence[k] for k in _EVIDENCE_KEYS if obligation.evidence.get(k) not in (None, "", [])}


def _failed(certificate: Certificate) -> list[Obligation]:
    return [o for o in certificate.obligations if o.outcome is Outcome.FAILED]


def failures(certificate: Certificate) -> list[Failure]:
    """Every failed check of a certificate, with its locating evidence."""
    return [Failure(o.name, o.message, _evidence(o)) for o in _failed(certificate)]


def structural_problems(certificate: Certificate) -> list[str]:
    """Why no function edit can repair the script (empty: the blamed functions can be replaced).

    Module-level code lies outside every top-level definition, so replacing definitions cannot change it;
    a missing PARAMS, run_ function or main() has nothing to replace; of a function defined twice only the
    first definition would be replaced.
    """
    problems = []
    for obligation in _failed(certificate):
        name = obligation.name
        module_syntax = name == "contract:syntax" and not obligation.evidence.get("function")
        if name in _STRUCTURAL or name.startswith("contract:duplicate:") or module_syntax:
            problems.append(f"{name}: {obligation.message}")
        elif name == "script_executes" and obligation.evidence.get("phase") == "import":
            problems.append(f"{name}: the script fails while it is imported, before main() runs: {obligation.message}")
    return problems


def _undefined_names(obligation: Obligation) -> list[str]:
    """Names a NameError in the obligation says are not defined (a run_ function main calls, say)."""
    text = f"{obligation.message}\n{obligation.evidence.get('error', '')}"
    return list(dict.fromkeys(_UNDEFINED.findall(text)))


def _blamed(obligation: Obligation, unit_failures: set[str]) -> list[str]:
    """The functions (or PARAMS, or main) a failed obligation blames (a unit or differential test its function),
    and any name a NameError says is not defined.

    An integration failure in a function whose own unit test failed is that function's fault; only
    when it passed alone is the interface with the function that made its input blamed.
    """
    kind, _, subject = obligation.name.partition(":")
    named = _undefined_names(obligation)
    if kind in ("unit", "differential"):
        return [subject, *named]
    if kind == "integration":
        failing = obligation.evidence.get("failing_function")
        if failing in unit_failures:
            return [failing, *named]
        return [*(obligation.evidence.get("interface") or [subject]), *named]
    if kind == "contract":
        if subject.startswith("params"):
            return [PARAMS]
        function = obligation.evidence.get("function")
        return [function] if function else ["main"]
    if kind == "provenance":
        return list(dict.fromkeys(_function_at(breach.get("where", ""))
                                  for breach in obligation.evidence.get("breaches", [])))
    return named


def _function_at(where: str) -> str:
    """The function a breach's place names ("script.py:12 in observable_x"); module level is main's business."""
    function = where.rpartition(" in ")[2]
    return "main" if not function or function.startswith("<") else function


def _unit_failures(failed: list[Obligation]) -> set[str]:
    return {o.name.removeprefix("unit:") for o in failed if o.category == "unit"}


def repair_items(certificate: Certificate) -> list[RepairItem]:
    """The repair list of a programming certificate, in the order its obligations blame functions."""
    items: dict[str, RepairItem] = {}
    failed = _failed(certificate)
    unit_failures = _unit_failures(failed)
    for obligation in failed:
        for function in dict.fromkeys(_blamed(obligation, unit_failures)):
            item = items.setdefault(function, RepairItem(function))
            item.problems.append(f"{obligation.name}: {obligation.message}")
            item.evidence.append(_evidence(obligation))
    if failed and not items:  # the script failed outside every element function
        items["main"] = RepairItem("main", [f"{o.name}: {o.message}" for o in failed], [_evidence(o) for o in failed])
    return list(items.values())


def unblamed_failures(certificate: Certificate) -> list[Failure]:
    """The failures that blame no function (an execution that failed, no results file), quoted beside the
    blamed functions so that the repairer sees the error itself; none when main carries them all."""
    failed = _failed(certificate)
    unit_failures = _unit_failures(failed)
    loose = [o for o in failed if not _blamed(o, unit_failures)]
    return [] if len(loose) == len(failed) else [Failure(o.name, o.message, _evidence(o)) for o in loose]


def editable_names(source: str) -> set[str]:
    """Every top-level definition of a script, and PARAMS: what a physics repair may replace."""
    return {name for name, _, _ in top_level_blocks(source)} | {PARAMS}


@dataclass(frozen=True)
class EditResult:
    """The script after the accepted edits, and what was accepted (``added``: new definitions among them) and
    rejected."""

    source: str
    applied: tuple[str, ...]
    rejected: tuple[str, ...]
    added_imports: tuple[str, ...]
    added: tuple[str, ...] = ()


def rewrite(source: str, reply_code: str) -> EditResult:
    """A structural repair's result: the reply's whole script in place of the old one (no edit when it is the
    same script)."""
    new = reply_code.rstrip() + "\n"
    if new == source.rstrip() + "\n":
        return EditResult(source, (), (), ())
    return EditResult(new, (WHOLE_SCRIPT,), (), ())


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


def _params_literal(assignment: str) -> dict | None:
    """The dict a PARAMS assignment's text holds, or None when it is no literal dict."""
    try:
        value = ast.literal_eval(ast.parse(assignment).body[0].value)
    except (SyntaxError, ValueError, IndexError, AttributeError):
        return None
    return value if isinstance(value, dict) else None


def _only_adds_keys(own: str, reply: str) -> bool:
    """Whether the reply's PARAMS keeps every key of the script's at its value and adds keys: an edited function
    may need a new parameter, and a new key changes nothing that the code that passed its checks reads."""
    old, new = _params_literal(own), _params_literal(reply)
    return old is not None and new is not None and len(new) > len(old) and all(
        key in new and new[key] == value for key, value in old.items())


def _block_text(source: str, name: str) -> str | None:
    lines = source.splitlines()
    return next(("\n".join(lines[start - 1:end]) for block_name, start, end in top_level_blocks(source)
                 if block_name == name), None)


def _replace_block(source: str, name: str, replacement: str) -> str:
    start, end = next((s, e) for block_name, s, e in top_level_blocks(source) if block_name == name)
    lines = source.splitlines(keepends=True)
    return "".join(lines[:start - 1]) + replacement.rstrip("\n") + "\n" + "".join(lines[end:])


def _add_block(source: str, definition: str) -> str:
    """The source with a new top-level definition before main() (or the ``__main__`` guard, or at the end)."""
    main = next((start for name, start, _ in top_level_blocks(source) if name == "main"), None)
    guard = _MAIN_GUARD.search(source)
    at = main - 1 if main is not None else source.count("\n", 0, guard.start()) if guard else None
    if at is None:
        return source.rstrip("\n") + "\n\n\n" + definition.rstrip("\n") + "\n"
    lines = source.splitlines(keepends=True)
    return "".join(lines[:at]) + definition.rstrip("\n") + "\n\n\n" + "".join(lines[at:])


def _may_add(name: str, allowed: set[str]) -> bool:
    """A new definition is added when a failure named it or it is a contract function (element or run_): adding
    a function changes no code that passed its checks, and only an edited function can call it."""
    return name in allowed or element_role(name) is not None or name.startswith(RUN_PREFIX)


def _definition_edits(source: str, reply_code: str, allowed: set[str]
                      ) -> tuple[str, list[str], list[str], list[str]]:
    """(source, applied, rejected, added) after the reply's top-level definitions."""
    applied, rejected, added = [], [], []
    reply_lines = reply_code.splitlines()
    for name, start, end in top_level_blocks(reply_code):
        definition = "\n".join(reply_lines[start - 1:end])
        own = _block_text(source, name)
        if own == definition:
            continue
        if own is None and _may_add(name, allowed):
            source = _add_block(source, definition)
            added.append(name)
        elif own is not None and name in allowed:
            source = _replace_block(source, name, definition)
        else:
            rejected.append(name)
            continue
        applied.append(name)
    return source, applied, rejected, added


def _params_edit(source: str, reply_code: str, allowed: set[str]) -> tuple[str, bool | None]:
    """(source, True applied / False rejected / None no PARAMS change) after the reply's PARAMS."""
    reply_span, own_span = _params_span(reply_code), _params_span(source)
    if reply_span is None:
        return source, None
    reply = reply_code[reply_span[0]:reply_span[1]]
    if own_span is None:
        if PARAMS not in allowed:
            return source, False
        imports = list(_IMPORT.finditer(source))
        at = imports[-1].end() + 1 if imports else 0
        return source[:at] + "\n" + reply + "\n" + source[at:], True
    own = source[own_span[0]:own_span[1]]
    if reply == own:
        return source, None
    if PARAMS in allowed or _only_adds_keys(own, reply):
        return source[:own_span[0]] + reply + source[own_span[1]:], True
    return source, False


def apply_edits(source: str, reply_code: str, allowed: set[str]) -> EditResult:
    """Replace the allowed definitions (and PARAMS) with the reply's versions, add its new element and run_
    functions (and new definitions that are allowed), take a PARAMS that only adds keys, and reject every
    other change.

    A definition repeated unchanged is no edit and is ignored.  Imports in the reply that the script
    lacks are added after the script's last import.
    """
    source, applied, rejected, added = _definition_edits(source, reply_code, allowed)
    source, params = _params_edit(source, reply_code, allowed)
    if params is not None:
        (applied if params else rejected).append(PARAMS)
    existing = set(_IMPORT.findall(source))
    new_imports = [line for line in dict.fromkeys(_IMPORT.findall(reply_code)) if line not in existing]
    if new_imports and applied:
        last = list(_IMPORT.finditer(source))
        at = last[-1].end() + 1 if last else 0
        source = source[:at] + "".join(line + "\n" for line in new_imports) + source[at:]
    return EditResult(source, tuple(applied), tuple(rejected), tuple(new_imports if applied else ()), tuple(added))
