"""Analysis of the structured script contract from source text alone (Python ``ast``).

The contract (../shared/DESIGN.md) is machine-readable: element functions by role prefix, run_
functions composing them, one PARAMS literal, and main.  Everything the Programming verifier derives
(unit-test subjects, integration levels, parameter overrides) comes from this analysis, never from a
model.  Breaches become obligations with messages that say what to change.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.programming.surroundings import MODULE_LEVEL, looks_at_surroundings

ELEMENT_PREFIXES = ("site_", "lattice_", "hamiltonian_", "initialstate_", "circuit_", "ansatz_", "sampler_",
                    "effector_", "observable_", "item_", "plot_")
RUN_PREFIX = "run_"
CONTRACT = "contract"
_BUILTINS = frozenset(dir(builtins))
_TOP_LEVEL_DEF = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)|^class\s+([A-Za-z_]\w*)", re.MULTILINE)


def element_role(name: str) -> str | None:
    """The role of an element function ("hamiltonian" for hamiltonian_xxz), or None."""
    return next((prefix[:-1] for prefix in ELEMENT_PREFIXES if name.startswith(prefix)), None)


@dataclass(frozen=True)
class ElementFunction:
    """One element function: its role, where it is, and its exact source text."""

    name: str
    role: str
    lineno: int
    end_lineno: int
    source: str
    parameters: tuple[str, ...]
    annotated: bool


@dataclass(frozen=True)
class RunFunction:
    """A run_ function and the element calls in its body, in source order (integration levels)."""

    name: str
    lineno: int
    element_calls: tuple[str, ...]


@dataclass(frozen=True)
class SyntaxFault:
    """A syntax error, located in the top-level function that holds it when there is one."""

    line: int
    message: str
    function: str | None


@dataclass
class ScriptContract:
    """What the contract analysis found in one script."""

    source: str
    elements: dict[str, ElementFunction] = field(default_factory=dict)
    runs: dict[str, RunFunction] = field(default_factory=dict)
    params: dict | None = None
    params_error: str | None = None
    has_main: bool = False
    imports: tuple[str, ...] = ()
    syntax: SyntaxFault | None = None
    tree: ast.Module | None = None
    analysed_source: str = ""
    """The text ``tree`` was parsed from: the source, or with a broken function stubbed out."""
    breaches: list[Obligation] = field(default_factory=list)


def _segment(source: str, node: ast.AST) -> str:
    lines = source.splitlines(keepends=True)
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return "".join(lines[start - 1:node.end_lineno])


def top_level_blocks(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of each top-level def/class, found by text, for broken files."""
    lines = source.splitlines()
    starts = [(m.group(1) or m.group(2), source.count("\n", 0, m.start()) + 1) for m in _TOP_LEVEL_DEF.finditer(source)]
    blocks = []
    for index, (name, start) in enumerate(starts):
        end = starts[index + 1][1] - 1 if index + 1 < len(starts) else len(lines)
        while end > start and not lines[end - 1].strip():
            end -= 1
        blocks.append((name, start, end))
    return blocks


def _stub_broken_function(source: str, fault: SyntaxFault) -> str | None:
    """The source with the broken function's body replaced by a raise, so the rest stays analysable."""
    block = next(((s, e) for name, s, e in top_level_blocks(source) if name == fault.function), None)
    if block is None:
        return None
    lines = source.splitlines(keepends=True)
    stub = [f"def {fault.function}(*args, **kwargs):\n",
            f"    raise SyntaxError({f'line {fault.line}: {fault.message}'!r})\n"]
    stub += ["\n"] * max(0, block[1] - block[0] + 1 - len(stub))  # keep every later line number
    return "".join(lines[:block[0] - 1]) + "".join(stub) + "".join(lines[block[1]:])


def _locate_syntax_error(source: str, error: SyntaxError) -> SyntaxFault:
    line = error.lineno or 0
    function = next((name for name, start, end in top_level_blocks(source) if start <= line <= end), None)
    return SyntaxFault(line=line, message=error.msg, function=function)


def analyse_script(source: str) -> ScriptContract:
    """Analyse a Python script; a syntax error is located and the rest is analysed without it."""
    contract = ScriptContract(source=source)
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        contract.syntax = _locate_syntax_error(source, error)
        stubbed = _stub_broken_function(source, contract.syntax) if contract.syntax.function else None
        try:
            tree = ast.parse(stubbed) if stubbed else None
        except SyntaxError:
            tree = None
        if tree is None:
            contract.breaches.append(_syntax_obligation(contract.syntax))
            return contract
        _collect(contract, tree, stubbed)
        contract.breaches.insert(0, _syntax_obligation(contract.syntax))
        return contract
    _collect(contract, tree, source)
    return contract


def _syntax_obligation(fault: SyntaxFault) -> Obligation:
    where = f" in {fault.function}" if fault.function else ""
    return Obligation(name="contract:syntax", category=CONTRACT, outcome=Outcome.FAILED,
                      message=f"syntax error at line {fault.line}{where}: {fault.message}",
                      evidence={"line": fault.line, "function": fault.function})


def _collect(contract: ScriptContract, tree: ast.Module, source: str) -> None:
    contract.tree = tree
    contract.analysed_source = source
    seen: dict[str, int] = {}
    module_variables: set[str] = set()
    imported: set[str] = set()
    imports: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(ast.get_source_segment(source, node) or "")
            imported.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in seen:
                contract.breaches.append(_breach(
                    f"duplicate:{node.name}", f"{node.name} is defined twice (lines {seen[node.name]} and "
                    f"{node.lineno}); the later one silently replaces the first: keep one"))
            seen[node.name] = node.lineno
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            module_variables.update(t.id for t in targets if isinstance(t, ast.Name))
            if any(isinstance(t, ast.Name) and t.id == "PARAMS" for t in targets):
                _read_params(contract, node.value)
    contract.imports = tuple(imports)
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        role = element_role(node.name)
        if role is not None:
            contract.elements[node.name] = _element(node, role, source)
            if contract.syntax is None or contract.syntax.function != node.name:
                _check_element(contract, node, module_variables)
        elif node.name.startswith(RUN_PREFIX):
            contract.runs[node.name] = RunFunction(node.name, node.lineno, _element_calls(node))
            _check_run(contract, node, imported)
        elif node.name == "main":
            contract.has_main = True
    _check_whole(contract, tree)


def _read_params(contract: ScriptContract, value: ast.expr | None) -> None:
    try:
        params = ast.literal_eval(value) if value is not None else None
    except (ValueError, SyntaxError):
        contract.params_error = "PARAMS must be a literal dict (numbers, strings, lists), not computed"
        return
    if not isinstance(params, dict):
        contract.params_error = "PARAMS must be a dict"
        return
    contract.params = params


def _element(node: ast.FunctionDef | ast.AsyncFunctionDef, role: str, source: str) -> ElementFunction:
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    annotated = node.returns is not None and all(a.annotation is not None for a in arguments)
    return ElementFunction(name=node.name, role=role, lineno=node.lineno, end_lineno=node.end_lineno or node.lineno,
                           source=_segment(source, node), parameters=tuple(a.arg for a in arguments),
                           annotated=annotated)


class _ElementCallOrder(ast.NodeVisitor):
    """Element calls in evaluation order: a call's arguments are evaluated before the call itself."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and element_role(node.func.id) is not None:
            self.calls.append(node.func.id)


def _element_calls(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    order = _ElementCallOrder()
    for statement in node.body:
        order.visit(statement)
    return tuple(order.calls)


def _breach(name: str, message: str, **evidence: object) -> Obligation:
    return Obligation(name=f"contract:{name}", category=CONTRACT, outcome=Outcome.FAILED, message=message,
                      evidence=dict(evidence))


def _local_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = node.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
            names.add(inner.id)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in inner.names)
        elif isinstance(inner, ast.arg):
            names.add(inner.arg)
    return names


def _check_element(contract: ScriptContract, node: ast.FunctionDef | ast.AsyncFunctionDef,
                   module_variables: set[str]) -> None:
    local = _local_names(node)
    read = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                   and n.id in module_variables and n.id not in local})
    if read:
        contract.breaches.append(_breach(
            f"globals:{node.name}", f"{node.name} reads the module variable(s) {', '.join(read)}; element "
            "functions must be pure: pass the values as parameters", function=node.name, names=read))
    if not contract.elements[node.name].annotated:
        contract.breaches.append(_breach(
            f"annotations:{node.name}", f"{node.name} lacks type annotations on its parameters or return value; "
            "unit tests judge return values by the annotation", function=node.name))


def _check_run(contract: ScriptContract, node: ast.FunctionDef | ast.AsyncFunctionDef, imported: set[str]) -> None:
    numerical = []
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        root = call.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in imported:
            numerical.append(f"line {call.lineno}: {ast.unparse(call.func)}")
    if numerical:
        contract.breaches.append(_breach(
            f"run_work:{node.name}", f"{node.name} calls library code itself ({'; '.join(numerical[:3])}); "
            "run_ functions only compose element functions: move this work into an element function",
            function=node.name, calls=numerical))
    if not _element_calls(node):
        contract.breaches.append(_breach(f"run_empty:{node.name}", f"{node.name} calls no element function",
                                         function=node.name))


def _params_keys_read(tree: ast.Module) -> list[tuple[str, int]]:
    """Constant keys read from PARAMS anywhere, and from ``params`` inside run_ functions."""
    keys = []
    for function in (n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        names = {"PARAMS"} | ({function.args.kwarg.arg} if function.name.startswith(RUN_PREFIX)
                              and function.args.kwarg else set())
        for node in ast.walk(function):
            key = None
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names:
                key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.append((key.value, node.lineno))
    return keys


def _check_whole(contract: ScriptContract, tree: ast.Module) -> None:
    if contract.params_error:
        contract.breaches.append(_breach("params", contract.params_error))
    elif contract.params is None:
        contract.breaches.append(_breach("params", "the script has no PARAMS = {...} literal"))
    else:
        missing = [(key, line) for key, line in _params_keys_read(tree) if key not in contract.params]
        if missing:
            contract.breaches.append(_breach(
                "params_keys", "PARAMS has no key " + ", ".join(f"{k!r} (read at line {line})" for k, line in missing),
                missing=[k for k, _ in missing]))
    if not contract.has_main:
        contract.breaches.append(_breach("main", "the script has no main() that runs with PARAMS and saves results"))
    if not contract.runs:
        contract.breaches.append(_breach("run", "the script has no run_ function composing element functions"))
    if not contract.elements:
        contract.breaches.append(_breach("elements", "the script has no element functions (site_, hamiltonian_, ...)"))
    _check_surroundings(contract, tree)


def _check_surroundings(contract: ScriptContract, tree: ast.Module) -> None:
    """One breach per top-level definition that looks at its surroundings (programming/surroundings.py)."""
    by_function: dict[str, list[str]] = {}
    for look in looks_at_surroundings(tree):
        by_function.setdefault(look.function, []).append(f"line {look.line}: {look.what}")
    for function, looks in by_function.items():
        where = "module-level code" if function == MODULE_LEVEL else function
        contract.breaches.append(_breach(
            f"surroundings:{function.strip('<>')}", f"{where} looks at its surroundings ({'; '.join(looks[:4])}): a "
            "script computes from its parameters alone, so that a user's run gives the numbers the verifier "
            "checked", function="main" if function == MODULE_LEVEL else function, looks=looks))


def contract_obligations(contract: ScriptContract) -> list[Obligation]:
    """The breaches found, or one certified obligation saying the contract holds."""
    if contract.breaches:
        return list(contract.breaches)
    return [Obligation(name="contract", category=CONTRACT, outcome=Outcome.CERTIFIED,
                       message=f"{len(contract.elements)} element functions, {len(contract.runs)} run_ functions",
                       evidence={"elements": list(contract.elements),
                                 "runs": {name: list(run.element_calls) for name, run in contract.runs.items()}})]
