"""The script contract's ban on looking at the surroundings, found in the source before anything runs.

A script's numbers must come from its parameters alone.  One that reads its environment, its argv, its folder,
its call stack or the machine (verifiers/provenance.py lists the looks) can compute honestly for the verifier
and wrongly for a user; so can one whose run_ function learns through shared state whether main() called it.
The runtime provenance hook records such looks as they happen; this analysis finds the plain ones in the
source, so that a repair can be asked for before a program runs:

- imports of modules made for looking at the interpreter, the process or the machine (and of physvec, the
  verifier itself), and of the looking functions of ``os`` and ``sys``;
- ``os.environ``, ``os.getenv``, ``os.getcwd``, processes, ``sys.argv``, ``sys.path``, ``sys.modules``,
  ``sys._getframe`` and every other ``sys`` attribute but a few harmless ones;
- ``__file__`` and the other module dunders, ``__name__`` outside the ``if __name__ == "__main__"`` guard,
  dunder and frame attributes (``__globals__``, ``__code__``, ``f_back``, ``tb_frame``, ...);
- ``globals()``, ``locals()``, ``vars()``, ``eval``, ``exec``, ``compile``, ``__import__``, ``breakpoint``, and
  ``getattr``/``setattr``/``hasattr``/``delattr`` with a computed name (a name spelled out of pieces hides
  from every check above);
- string constants naming system places (``/proc``, ``/sys``, ``/etc``, ``/dev``, ``/sandbox``, ``~/``);
- state shared between calls: ``global`` and ``nonlocal``, attributes set on the script's own functions, a
  function writing into a module-level container (``STATE["main"] = True``), and mutable default arguments.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from physvec.verifiers.provenance import FORBIDDEN_IMPORTS

FORBIDDEN_MODULES = FORBIDDEN_IMPORTS | {"physvec", "platform", "resource", "builtins"}
"""Modules a script may not import at all."""
FORBIDDEN_ATTRIBUTES = {
    "os": {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv", "getcwd", "getcwdb", "getpid",
           "getppid", "getuid", "geteuid", "getlogin", "uname", "system", "popen", "fork", "forkpty", "kill",
           "killpg", "listdir", "scandir", "walk", "fwalk", "chdir", "open", "read", "write", "close", "dup",
           "dup2", "fdopen", "fstat", "readlink", "ctermid", "ttyname", "sched_getaffinity", "cpu_count",
           *(f"exec{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
           *(f"spawn{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
           "posix_spawn", "posix_spawnp"},
    "os.path": {"expanduser", "expandvars", "abspath", "realpath", "relpath"},
    "pathlib": set(), "Path": {"cwd", "home"},
}
"""What a script may not read of a module it may import; any attribute of ``sys`` not in SYS_ALLOWED is banned."""
SYS_ALLOWED = frozenset({"exit", "stdout", "stderr", "float_info", "int_info", "maxsize", "version_info",
                         "getsizeof", "getrecursionlimit", "setrecursionlimit", "byteorder", "float_repr_style"})
MODULE_DUNDERS = frozenset({"__file__", "__spec__", "__loader__", "__builtins__", "__cached__", "__path__",
                            "__package__", "__dict__"})
DUNDER_ATTRIBUTES_ALLOWED = frozenset({"__init__", "__name__", "__doc__", "__qualname__", "__post_init__"})
FRAME_ATTRIBUTES = frozenset({"f_back", "f_globals", "f_locals", "f_code", "f_builtins", "tb_frame", "tb_next",
                              "gi_frame", "cr_frame", "ag_frame", "gi_code", "cr_code"})
FORBIDDEN_CALLS = frozenset({"globals", "locals", "vars", "eval", "exec", "compile", "__import__", "breakpoint",
                             "input", "help"})
NAMED_ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
SYSTEM_PLACES = re.compile(r"^(?:/proc|/sys|/etc|/dev|/sandbox|/root|/home|/tmp/physvec)(?:/|$)|^~/")
HARMLESS_PLACES = frozenset({"/dev/null"})


@dataclass(frozen=True)
class Look:
    """One place in the source that looks at the surroundings (or keeps state between calls)."""

    function: str
    """the top-level definition it is in, or MODULE_LEVEL"""
    line: int
    what: str


MODULE_LEVEL = "<module>"
MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "pop", "popitem",
                              "clear", "remove", "discard"})


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local names bound to modules and to their functions by imports anywhere: name -> dotted origin."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """``os.path.expanduser`` for an attribute chain rooted at an imported name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _banned_dotted(dotted: str) -> str | None:
    module, _, attribute = dotted.rpartition(".")
    root = dotted.split(".")[0]
    if root in FORBIDDEN_MODULES:
        return f"uses {dotted}"
    if root == "sys" and dotted != "sys":
        name = dotted.split(".")[1]
        return None if name in SYS_ALLOWED else f"reads sys.{name}"
    if module in FORBIDDEN_ATTRIBUTES and attribute in FORBIDDEN_ATTRIBUTES[module]:
        return f"uses {dotted}"
    if module.endswith("Path") and attribute in FORBIDDEN_ATTRIBUTES["Path"]:
        return f"uses {dotted}"
    return None


def _is_main_guard(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _imports(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                yield f"imports {alias.name}"
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if module.split(".")[0] in FORBIDDEN_MODULES:
            yield f"imports {module}"
        for alias in node.names:
            problem = _banned_dotted(f"{module}.{alias.name}") if module else None
            if problem and not module.split(".")[0] in FORBIDDEN_MODULES:
                yield f"imports {module}.{alias.name}"


def _module_names(tree: ast.Module) -> set[str]:
    """Names bound at module level by assignment (PARAMS among them)."""
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        names.update(target.id for target in targets if isinstance(target, ast.Name))
    return names


def _local_names(function: ast.AST) -> set[str]:
    names = {arg.arg for arg in ast.walk(function) if isinstance(arg, ast.arg)}
    names.update(node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    return names


def _module_writes(function: ast.FunctionDef | ast.AsyncFunctionDef, module_names: set[str]) -> Iterator[str]:
    """Writes from inside ``function`` into a container bound at module level (not shadowed by a local)."""
    shared = module_names - _local_names(function)
    for node in ast.walk(function):
        target = None
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            for item in node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]:
                if isinstance(item, (ast.Subscript, ast.Attribute)) and isinstance(item.value, ast.Name):
                    target = item.value.id
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS
              and isinstance(node.func.value, ast.Name)):
            target = node.func.value.id
        if target in shared:
            yield f"writes into the module-level {target} (state shared between calls)"


def _looks_of_node(node: ast.AST, aliases: dict[str, str], own_functions: set[str]) -> Iterator[str]:
    yield from _imports(node)
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node, aliases)
        problem = _banned_dotted(dotted) if dotted else None
        if problem:
            yield problem
        elif node.attr.startswith("__") and node.attr not in DUNDER_ATTRIBUTES_ALLOWED:
            yield f"reads the attribute {node.attr}"
        elif node.attr in FRAME_ATTRIBUTES:
            yield f"reads the frame attribute {node.attr}"
    elif isinstance(node, ast.Name) and node.id in MODULE_DUNDERS | {"__name__"}:
        yield f"reads {node.id}"
    elif isinstance(node, ast.Name) and node.id in aliases and _banned_dotted(aliases[node.id]):
        if isinstance(node.ctx, ast.Load):
            yield _banned_dotted(aliases[node.id]) or ""
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in FORBIDDEN_CALLS:
            yield f"calls {name}()"
        elif name in NAMED_ATTRIBUTE_CALLS and not (len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
            yield f"calls {name}() with a computed attribute name"
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield f"declares {type(node).__name__.lower()} {', '.join(node.names)} (state shared between calls)"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SYSTEM_PLACES.match(node.value):
        if node.value not in HARMLESS_PLACES:
            yield f"names the system place {node.value[:40]!r}"
    elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id in own_functions):
                yield f"sets the attribute {target.value.id}.{target.attr} (state shared between calls)"
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        if any(isinstance(d, (ast.List, ast.Dict, ast.Set, ast.Call)) for d in defaults):
            yield "has a mutable default argument (state shared between calls)"


def looks_at_surroundings(tree: ast.Module) -> list[Look]:
    """Every place in the script that looks at its surroundings, by top-level definition and line."""
    aliases = _aliases(tree)
    own_functions = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                          ast.ClassDef))}
    module_names = _module_names(tree)
    found: list[Look] = []
    for statement in tree.body:
        function = statement.name if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                            ast.ClassDef)) else MODULE_LEVEL
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [Look(function, statement.lineno, what) for what in _module_writes(statement, module_names)]
        nodes = ast.walk(statement)
        if _is_main_guard(statement):
            nodes = (node for body in statement.body for node in ast.walk(body))
        for node in nodes:
            for what in _looks_of_node(node, aliases, own_functions):
                found.append(Look(function, getattr(node, "lineno", statement.lineno), what))
    return found
