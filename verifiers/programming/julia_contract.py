"""The script contract for Julia/ITensors scripts, analysed from text: no Julia needed.

Julia scripts must be analysable on machines without Julia, so this is a small block-structure
parser (function/if/for/... matched with ``end``), not a Julia front end.  It finds element and run_
functions, the element calls of each run_ function in evaluation order, the PARAMS literal and main.
"""

from __future__ import annotations

import re

from verifiers.programming.contract import (
    ElementFunction, RunFunction, ScriptContract, SyntaxFault, _breach, _syntax_obligation, element_role,
)

_BLOCK_OPENERS = re.compile(r"\b(function|if|for|while|let|begin|do|try|struct|module|baremodule|quote|macro)\b")
_END = re.compile(r"\bend\b")
_FUNCTION = re.compile(r"^function\s+([A-Za-z_]\w*!?)\s*\(([^)]*)\)", re.MULTILINE)
_ONE_LINE = re.compile(r"^([A-Za-z_]\w*!?)\s*\(([^)]*)\)\s*(?:::\s*[\w{},. ]+)?\s*=(?!=)", re.MULTILINE)
_PARAMS = re.compile(r"^(?:const\s+)?PARAMS\s*=\s*", re.MULTILINE)
_PAIR = re.compile(r'(?:"(\w+)"|:(\w+))\s*=>\s*([^,\n)]+)|\b(\w+)\s*=\s*([^,\n)]+)')


def _code_only(text: str) -> str:
    """Text with comments, strings and index brackets blanked out (same length, same lines)."""
    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    text = re.sub(r"#=.*?=#", blank, text, flags=re.DOTALL)
    text = re.sub(r'"""(?:.|\n)*?"""|"(?:\\.|[^"\\])*"', blank, text)
    text = re.sub(r"#[^\n]*", blank, text)
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\[[^\[\]]*\]", blank, text)
    return text


def _block_end(code: str, start: int) -> int | None:
    """Index just past the ``end`` closing the block that opens at ``start``."""
    depth = 0
    for match in re.finditer(rf"{_BLOCK_OPENERS.pattern}|{_END.pattern}", code[start:]):
        depth += -1 if match.group(0) == "end" else 1
        if depth == 0:
            return start + match.end()
    return None


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _calls_in_evaluation_order(body: str, names: set[str]) -> tuple[str, ...]:
    """Element calls sorted by where their argument list closes: inner calls first."""
    found = []
    for match in re.finditer(r"\b([A-Za-z_]\w*!?)\s*\(", body):
        if match.group(1) not in names:
            continue
        depth, index = 0, match.end() - 1
        while index < len(body):
            depth += {"(": 1, ")": -1}.get(body[index], 0)
            if depth == 0:
                break
            index += 1
        found.append((index, match.group(1)))
    return tuple(name for _, name in sorted(found))


def _parse_params(text: str, start: int) -> dict[str, str] | None:
    opening = text.find("(", start)
    if opening < 0:
        return None
    depth, index = 0, opening
    while index < len(text):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            break
        index += 1
    inner = text[opening + 1:index]
    params = {}
    for match in _PAIR.finditer(inner):
        key = match.group(1) or match.group(2) or match.group(4)
        params[key] = (match.group(3) or match.group(5)).strip()
    return params


def analyse_julia_script(source: str) -> ScriptContract:
    """Analyse a Julia script in the structured form (element functions, run_ functions, PARAMS, main)."""
    contract = ScriptContract(source=source)
    code = _code_only(source)
    definitions: list[tuple[str, int, int, str]] = []
    for match in _FUNCTION.finditer(code):
        end = _block_end(code, match.start())
        if end is None:
            contract.syntax = SyntaxFault(_line(source, match.start()), "function has no matching end", match.group(1))
            contract.breaches.append(_syntax_obligation(contract.syntax))
            continue
        definitions.append((match.group(1), match.start(), end, match.group(2)))
    for match in _ONE_LINE.finditer(code):
        end = code.find("\n", match.start())
        definitions.append((match.group(1), match.start(), len(code) if end < 0 else end, match.group(2)))
    element_names = {name for name, *_ in definitions if element_role(name)}
    seen: dict[str, int] = {}
    for name, start, end, arguments in sorted(definitions, key=lambda d: d[1]):
        line = _line(source, start)
        if name in seen and name != "main":
            contract.breaches.append(_breach(f"duplicate:{name}", f"{name} is defined twice (lines {seen[name]} "
                                             f"and {line}); Julia adds a method, keep one definition"))
        seen[name] = line
        parameters = tuple(p.split("::")[0].split("=")[0].strip() for p in arguments.split(",") if p.strip())
        role = element_role(name)
        if role is not None:
            contract.elements[name] = ElementFunction(
                name=name, role=role, lineno=line, end_lineno=_line(source, end), source=source[start:end],
                parameters=parameters, annotated="::" in arguments)
        elif name.startswith("run_"):
            contract.runs[name] = RunFunction(name, line, _calls_in_evaluation_order(code[start:end], element_names))
        elif name == "main":
            contract.has_main = True
    params_match = _PARAMS.search(code)
    contract.params = _parse_params(source, params_match.end()) if params_match else None
    if contract.params is None:
        contract.breaches.append(_breach("params", "the script has no PARAMS = Dict(...) or (; ...) literal"))
    if not contract.has_main:
        contract.breaches.append(_breach("main", "the script has no main() that runs with PARAMS"))
    if not contract.runs:
        contract.breaches.append(_breach("run", "the script has no run_ function composing element functions"))
    unbalanced = len(_BLOCK_OPENERS.findall(code)) - len(_END.findall(code))
    if unbalanced and contract.syntax is None:
        contract.breaches.append(_breach("syntax", f"{abs(unbalanced)} block(s) without matching "
                                         f"{'end' if unbalanced > 0 else 'opening'}"))
    return contract
