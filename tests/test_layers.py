"""The layer rule: the core sits at the bottom, the command line at the top, and no module imports a
layer above its own (lazy imports inside functions count too: they are dependencies all the same)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("physvec", "physvec.taskfiles", "physvec.runstore", "physvec.verifiers.certificate",
              "physvec.rubrics", "physvec.assertions")),
    ("knowledge base", ("physvec.knowledge_base",)),
    ("independent methods", ("physvec.independent",)),
    ("verifiers", ("physvec.verifiers",)),
    ("agents", ("physvec.agents",)),
    ("benchmark", ("physvec.qmp_bench",)),
    ("command line", ("physvec.cli",)),
)
"""Bottom to top; a module belongs to the layer of its longest matching package prefix."""
OLD_TOP_LEVEL_NAMES = ("agents", "verifiers", "knowledge_base", "qmp_bench", "independent")


def layer_of(module: str) -> int:
    matches = [(len(prefix), index) for index, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
               if module == prefix or module.startswith(prefix + ".")]
    assert matches, f"{module} belongs to no layer"
    return max(matches)[1]


def package_modules() -> dict[str, Path]:
    """Every module of the distribution, by import name, from pyproject's package-dir mapping."""
    setup = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = setup["package-dir"]
    modules = {}
    for package in setup["packages"]:
        root = max((name for name in folders if package == name or package.startswith(name + ".")), key=len)
        folder = REPO / folders[root] / Path(*package[len(root):].split(".")[1:])
        for path in folder.glob("*.py"):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


def imported_modules(path: Path, module: str) -> set[str]:
    """The absolute names a module imports (relative imports resolved)."""
    names = set()
    package = module if path.stem == "__init__" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


MODULES = package_modules()


def test_the_distribution_has_the_modules_the_folders_hold():
    assert {"physvec.cli.main", "physvec.agents.pipeline", "physvec.verifiers.certificate",
            "physvec.knowledge_base.store", "physvec.qmp_bench.provenance", "physvec.taskfiles.library"} <= set(MODULES)
    on_disk = {path for folder in ("physvec", "agents", "verifiers", "knowledge_base", "independent", "qmp_bench",
                              "rubrics", "assertions")
               for path in (REPO / folder).rglob("*.py")}
    assert on_disk == set(MODULES.values()), "a folder with modules is missing from [tool.setuptools] packages"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(module):
    own = layer_of(module)
    above = sorted(name for name in imported_modules(MODULES[module], module)
                   if name.startswith("physvec.") and layer_of(name) > own)
    assert not above, f"{module} ({LAYERS[own][0]}) imports {above} from a layer above"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if layer_of(name) == layer_of("physvec.verifiers")))
def test_no_verifier_imports_the_independent_methods(module):
    """The independent methods judge the verifier library from outside (its tests, the benchmark's provenance,
    the red team's ground truth); a verifier that used them would make the two agree by construction."""
    used = sorted(name for name in imported_modules(MODULES[module], module)
                  if name == "physvec.independent" or name.startswith("physvec.independent."))
    assert not used, f"{module} imports {used}"


def test_nothing_imports_the_old_top_level_names():
    sources = [*MODULES.values(), *(REPO / "tests").rglob("*.py"), *(REPO / "benchmarks").rglob("*.py")]
    offenders = sorted(f"{path.relative_to(REPO)} imports {name}" for path in sources
                       for name in imported_modules(path, "tests.x")
                       if name.split(".")[0] in OLD_TOP_LEVEL_NAMES)
    assert not offenders


def test_a_module_in_the_wrong_layer_would_be_found():
    """The check itself can fail: the run store importing the pipeline is a violation."""
    assert layer_of("physvec.agents.pipeline") > layer_of("physvec.runstore.store")
    assert layer_of("physvec.verifiers.certificate") < layer_of("physvec.verifiers.sandbox")
    assert layer_of("physvec.qmp_bench.cli") < layer_of("physvec.cli.qmp_bench")
