"""The script contract for Julia/ITensors scripts, analysed from text: no Julia needed.

Julia scripts must be analysable on machines without Julia, so this is a small block-structure
parser (function/if/for/... matched with ``end``), not a Julia front end.  It finds element and run_
functions, the element calls of each run_ function in evaluation order, the PARAMS literal and main.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from physvec.verifiers.programming.contract import (
    ElementFunction, RunFunction, ScriptContract, SyntaxFault, _breach, _syntax_obligation, element_role,
)

_KEYWORDS = re.compile(r"\b(function|if|for|while|let|begin|do|try|struct|module|baremodule|quote|macro|end)\b")
_STATEMENT_KEYWORDS = {"if", "for", "while", "let", "begin", "try"}
"""Keywords that open a block only where a statement starts: elsewhere they belong to an expression
(``(f(x) for x in xs if p(x))``)."""
_STATEMENT_START = re.compile(r"(?:^|[;=]|\b(?:return|else|elseif))\s*$")
_FUNCTION = re.compile(r"^function\s+([A-Za-z_]\w*!?)\s*\(([^)]*)\)", re.MULTILINE)
_ONE_LINE = re.compile(r"^([A-Za-z_]\w*!?)\s*\(([^)]*)\)\s*(?:::\s*[\w{},. ]+)?\s*=(?!=)", re.MULTILINE)
_PARAMS = re.compile(r"^(?:const\s+)?PARAMS\s*=\s*", re.MULTILINE)
_USING = re.compile(r"^(?:using|import)\s+[^\n]+", re.MULTILINE)
_CONST = re.compile(r"^const\s+([A-Za-z_]\w*)\s*=[^\n]*", re.MULTILINE)
_COMPOSING_CALLS = frozenset({
    "Dict", "NamedTuple", "Tuple", "Vector", "string", "length", "collect", "first", "last", "getindex", "get",
    "haskey", "push!", "append!", "merge", "map", "zip", "enumerate", "range", "Float64", "Int", "real", "imag",
    "round", "isodd", "iseven", "println", "print", "error", "throw", "ArgumentError", "keys", "values", "pairs"})
"""Plain-Julia calls a run_ function may make while composing elements; any other non-script call is
library or numerical work that belongs in an element function."""
_CALL = re.compile(r"(?<![.\w@])([A-Za-z_]\w*!?)\s*\(")
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


def _block_keywords(code: str, start: int = 0) -> list[re.Match[str]]:
    """The block openers and ``end`` keywords from ``start`` on, generator ``for``/``if`` excluded."""
    found = []
    for match in _KEYWORDS.finditer(code, start):
        word = match.group(1)
        if word in _STATEMENT_KEYWORDS:
            line_start = code.rfind("\n", 0, match.start()) + 1
            if not _STATEMENT_START.search(code[line_start:match.start()]):
                continue
        found.append(match)
    return found


def _block_end(code: str, start: int) -> int | None:
    """Index just past the ``end`` closing the block that opens at ``start``."""
    depth = 0
    for match in _block_keywords(code, start):
        depth += -1 if match.group(1) == "end" else 1
        if depth == 0:
            return match.end()
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


def _closing_paren(text: str, start: int) -> tuple[int, int] | None:
    """(index of the first "(" at or after ``start``, index of the ")" that closes it)."""
    opening = text.find("(", start)
    if opening < 0:
        return None
    depth, index = 0, opening
    while index < len(text):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            break
        index += 1
    return opening, index


def _parse_params(text: str, start: int) -> dict[str, str] | None:
    span = _closing_paren(text, start)
    if span is None:
        return None
    params = {}
    for match in _PAIR.finditer(text[span[0] + 1:span[1]]):
        key = match.group(1) or match.group(2) or match.group(4)
        params[key] = (match.group(3) or match.group(5)).strip()
    return params


def julia_params_definition(source: str) -> str | None:
    """The text of the PARAMS definition, from ``const PARAMS`` to its closing parenthesis."""
    match = _PARAMS.search(_code_only(source))
    span = _closing_paren(source, match.end()) if match else None
    return None if span is None else source[match.start():span[1] + 1]


@dataclass(frozen=True)
class JuliaDefinition:
    """A top-level function definition: its name, argument list and where its text lies in the source."""

    name: str
    start: int
    end: int
    arguments: str


def julia_definitions(source: str) -> tuple[list[JuliaDefinition], list[tuple[int, str]]]:
    """The top-level function definitions in source order, and (offset, name) of functions without ``end``."""
    code = _code_only(source)
    definitions, unterminated = [], []
    for match in _FUNCTION.finditer(code):
        end = _block_end(code, match.start())
        if end is None:
            unterminated.append((match.start(), match.group(1)))
            continue
        definitions.append(JuliaDefinition(match.group(1), match.start(), end, match.group(2)))
    for match in _ONE_LINE.finditer(code):
        end = code.find("\n", match.start())
        definitions.append(JuliaDefinition(match.group(1), match.start(), len(code) if end < 0 else end,
                                           match.group(2)))
    return sorted(definitions, key=lambda d: d.start), unterminated


def julia_imports(source: str) -> tuple[str, ...]:
    """The top-level ``using`` and ``import`` lines."""
    return tuple(source[match.start():match.end()] for match in _USING.finditer(_code_only(source)))


def julia_constants(source: str) -> tuple[str, ...]:
    """The top-level one-line ``const`` definitions other than PARAMS (helpers may read them)."""
    code = _code_only(source)
    return tuple(source[match.start():match.end()] for match in _CONST.finditer(code)
                 if match.group(1) != "PARAMS")


def _check_run(contract: ScriptContract, name: str, body: str, script_functions: set[str]) -> None:
    """A run_ function composes element functions: library or numerical calls are a breach."""
    signature_end = body.find(")") + 1
    foreign = sorted({call for call in _CALL.findall(body[signature_end:])
                      if call not in script_functions and call not in _COMPOSING_CALLS})
    if foreign:
        contract.breaches.append(_breach(
            f"run_work:{name}", f"{name} calls library code itself ({', '.join(foreign[:5])}); run_ functions only "
            "compose element functions: move this work into an element function", function=name, calls=foreign))
    if not contract.runs[name].element_calls:
        contract.breaches.append(_breach(f"run_empty:{name}", f"{name} calls no element function", function=name))


def analyse_julia_script(source: str) -> ScriptContract:
    """Analyse a Julia script in the structured form (element functions, run_ functions, PARAMS, main)."""
    contract = ScriptContract(source=source, imports=julia_imports(source))
    code = _code_only(source)
    found, unterminated = julia_definitions(source)
    for start, name in unterminated:
        contract.syntax = SyntaxFault(_line(source, start), "function has no matching end", name)
        contract.breaches.append(_syntax_obligation(contract.syntax))
    element_names = {d.name for d in found if element_role(d.name)}
    seen: dict[str, int] = {}
    for definition in found:
        name, start, end, arguments = definition.name, definition.start, definition.end, definition.arguments
        line = _line(source, start)
        if name in seen and (element_role(name) or name.startswith("run_")):
            contract.breaches.append(_breach(f"duplicate:{name}", f"{name} is defined twice (lines {seen[name]} "
                                             f"and {line}); an element or run_ function has one method"))
        seen[name] = line
        parameters = tuple(p.split("::")[0].split("=")[0].strip() for p in arguments.split(",") if p.strip())
        role = element_role(name)
        if role is not None:
            contract.elements[name] = ElementFunction(
                name=name, role=role, lineno=line, end_lineno=_line(source, end), source=source[start:end],
                parameters=parameters, annotated="::" in arguments)
        elif name.startswith("run_"):
            contract.runs[name] = RunFunction(name, line, _calls_in_evaluation_order(code[start:end], element_names))
            _check_run(contract, name, code[start:end], {d.name for d in found} | {n for _, n in unterminated})
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
    keywords = [match.group(1) for match in _block_keywords(code)]
    unbalanced = len(keywords) - 2 * keywords.count("end")
    if unbalanced and contract.syntax is None:
        contract.breaches.append(_breach("syntax", f"{abs(unbalanced)} block(s) without matching "
                                         f"{'end' if unbalanced > 0 else 'opening'}"))
    return contract
