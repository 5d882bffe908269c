"""Adapter entry points: model-written programs for assertions that need more than overrides.

Some physical expectations are not a parameter override away: a quantity the run_ function does not
return (a single-particle gap), a transformed input (a flipped initial state).  For those a model
writes an adapted program: the script under test plus one entry point ``adapter(**params) -> dict``
that composes the script's element functions differently.  The model never sees the expected value,
and the adapted program is only run if it provably uses the script's physics unchanged:

- every top-level function of the script is in the adapted program, AST-identical, defined once;
- PARAMS is AST-identical;
- the only new top-level function is the entry point; every value it returns flows from a call of
  one of the script's element or run_ functions, and it holds no float literal (physical numbers come
  from PARAMS, the overrides or the script's functions, so an expected value cannot be typed in);
- nothing rebinds the script's physics at run time (no assignment to a script function, PARAMS or an
  imported module, no ``global``, no ``globals()``/``setattr``/``exec``/``eval``, no dunder access).

Any breach makes the assertion's obligation an error, never a pass.  This is a static guard against a
model that substitutes its own numbers; a model that re-derives the physics from integers alone
inside the entry point is beyond what it can see, which is why the entry point must consume the
script's functions' outputs.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from physvec.taskfiles.assertions import Assertion
from physvec.verifiers.programming.contract import RUN_PREFIX, element_role

ADAPTER_ENTRY = "adapter"
AdapterWriter = Callable[[Assertion, str], str | None]
"""(assertion, script source) -> the adapted program's source, or None when none was written."""

_REBINDING_CALLS = frozenset({"globals", "setattr", "exec", "eval", "compile", "__import__", "vars"})


def _top_level_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _is_params_assignment(node: ast.stmt) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return any(isinstance(target, ast.Name) and target.id == "PARAMS" for target in targets)


def _params_node(tree: ast.Module) -> ast.AST | None:
    return next((node.value for node in tree.body if _is_params_assignment(node)), None)


def _same(a: ast.AST | None, b: ast.AST | None) -> bool:
    return a is not None and b is not None and ast.dump(a) == ast.dump(b)


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _imported_names(tree: ast.Module) -> set[str]:
    return {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}


def _calls_any(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in names
               for child in ast.walk(node))


def _derived_from(node: ast.AST, sources: set[str], derived: set[str]) -> bool:
    """Whether an expression calls one of ``sources`` or reads a name already derived from one."""
    return _calls_any(node, sources) or any(isinstance(child, ast.Name) and child.id in derived
                                            for child in ast.walk(node))


def _bindings(entry: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[list[ast.expr], ast.expr]]:
    """(targets, value) of every assignment and loop in the entry point."""
    found: list[tuple[list[ast.expr], ast.expr]] = []
    for node in ast.walk(entry):
        if isinstance(node, ast.Assign):
            found.append((node.targets, node.value))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            found.append(([node.target], node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            found.append(([node.target], node.iter))
    return found


def _names_derived_from(entry: ast.FunctionDef | ast.AsyncFunctionDef, sources: set[str]) -> set[str]:
    """Local names whose value depends on a call of ``sources``, propagated to a fixed point."""
    derived: set[str] = set()
    bindings = _bindings(entry)
    changed = True
    while changed:
        changed = False
        for targets, value in bindings:
            if _derived_from(value, sources, derived):
                names = {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)} - derived
                derived |= names
                changed |= bool(names)
    return derived


def _entry_problems(entry: ast.FunctionDef | ast.AsyncFunctionDef, sources: set[str]) -> list[str]:
    problems = [f"line {node.lineno}: the number {node.value!r} is typed into {ADAPTER_ENTRY}"
                for node in ast.walk(entry)
                if isinstance(node, ast.Constant) and isinstance(node.value, (float, complex))]
    if not _calls_any(entry, sources):
        return problems + [f"{ADAPTER_ENTRY} calls none of the script's element or run_ functions"]
    derived = _names_derived_from(entry, sources)
    for node in ast.walk(entry):
        if isinstance(node, ast.Return):
            values = node.value.values if isinstance(node.value, ast.Dict) else [node.value]
            if node.value is None or not all(_derived_from(v, sources, derived) for v in values):
                problems.append(f"line {node.lineno}: a returned value does not come from the script's functions")
    return problems


def _rebindings(tree: ast.Module, protected: set[str]) -> list[str]:
    """Statements that could replace the script's physics at run time: rebinding a script function or
    PARAMS, patching an imported module, or reaching around the names (globals(), exec, __code__)."""
    modules = _imported_names(tree)
    statements = [node for node in tree.body if not _is_params_assignment(node)]
    found = []
    for node in (child for statement in statements for child in ast.walk(statement)):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            found.append(f"line {node.lineno}: a {type(node).__name__.lower()} statement")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _REBINDING_CALLS:
            found.append(f"line {node.lineno}: a call of {node.func.id}()")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr != "__name__":
            found.append(f"line {node.lineno}: access to {node.attr}")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id in protected:
            found.append(f"line {node.lineno}: assignment to the script's {node.id}")
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and _root_name(node) in modules | protected:
            found.append(f"line {node.lineno}: assignment into {_root_name(node)}")
    return found


def adapter_problems(script_source: str, adapted_source: str) -> list[str]:
    """Why the adapted program may not stand for the script under test; empty when it may."""
    try:
        adapted = ast.parse(adapted_source)
    except SyntaxError as error:
        return [f"the adapted program does not parse: line {error.lineno}: {error.msg}"]
    original = ast.parse(script_source)
    originals = {node.name: node for node in _top_level_functions(original)}
    defined = Counter(node.name for node in _top_level_functions(adapted))
    adapted_functions = {node.name: node for node in _top_level_functions(adapted)}
    problems = [f"{name} is defined {count} times" for name, count in sorted(defined.items()) if count > 1]
    for name, node in originals.items():
        if name not in adapted_functions:
            problems.append(f"the script's {name} is missing")
        elif not _same(node, adapted_functions[name]):
            problems.append(f"{name} differs from the script under test")
    if not _same(_params_node(original), _params_node(adapted)):
        problems.append("PARAMS differs from the script under test")
    new = sorted(set(adapted_functions) - set(originals))
    if new != [ADAPTER_ENTRY]:
        extra = [name for name in new if name != ADAPTER_ENTRY]
        problems += [f"the only new function may be {ADAPTER_ENTRY}(**params)"
                     + (f"; found {', '.join(extra)}" if extra else f"; {ADAPTER_ENTRY} is missing")]
    entry = adapted_functions.get(ADAPTER_ENTRY)
    if entry is not None:
        problems += _entry_problems(entry, {name for name in originals
                                            if element_role(name) or name.startswith(RUN_PREFIX)})
    problems += _rebindings(adapted, set(originals) | {"PARAMS"})
    return problems
